#!/usr/bin/env python3
"""`cfile convert IN.parquet OUT`: Parquet into CFiles and tables, checked.

usage: convert_back.py CFILE SHARED_DIR WORK_DIR

1. Every golden CFile (SHARED/golden) -> Parquet -> CFile: `cfile dump --json`
   values, type, nullability and arrays identical.
2. A table of every type -> Parquet -> a new table (--key) and into an existing
   one: `table scan --json` identical; duplicate keys refused, table unchanged.
3. Every valid file of SHARED/parquet (real writers) -> CFiles, each column's
   values checked against expected.json (value forms mapped to Kudu's); the
   columns without a Kudu type must be refused with exit 3 naming them.
4. Errors: nesting (3), --key missing (2), damaged Parquet (1), values that
   would change (1, naming row and column), nothing left behind by a failure.
"""
import datetime
import json
import os
import shutil
import struct
import subprocess
import sys

CLI, SHARED, WORK = sys.argv[1], sys.argv[2], os.path.join(sys.argv[3], "convert_back")
failures = []
checked = 0


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg, flush=True)


def cfile(*args, rc=0):
    p = subprocess.run([CLI] + list(args), capture_output=True, timeout=300)
    if rc is not None and p.returncode != rc:
        fail("cfile %s: exit %d, want %d: %s" % (" ".join(args), p.returncode, rc,
                                                 p.stderr.decode(errors="replace")[:300]))
    return p


def dump(path):
    p = cfile("dump", "--json", path)
    return json.loads(p.stdout) if p.returncode == 0 else None


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)

# ---- 1. golden CFiles -> Parquet -> CFile -----------------------------------------------------


def to_hex(v):
    if v is None:
        return None
    if isinstance(v, list):
        return [to_hex(x) for x in v]
    if isinstance(v, dict):
        return v["hex"].lower()
    return v.encode("utf-8").hex()


golden = os.path.join(SHARED, "golden")
ngolden = 0
for case in sorted(os.listdir(golden)):
    d = os.path.join(golden, case)
    if not os.path.isdir(d) or case.startswith("bloom-"):
        continue
    src = [f for f in os.listdir(d) if f.endswith(".cfile")]
    if not src:
        continue
    src = os.path.join(d, src[0])
    pq = os.path.join(WORK, case + ".parquet")
    back = os.path.join(WORK, case + ".cfile")
    binary = False
    p = cfile("convert", "--quiet", "--name", "v", src, pq, rc=None)
    if p.returncode == 1 and b"not UTF-8" in p.stderr:
        binary = True  # Parquet's STRING must be UTF-8: such bytes go as BINARY
        p = cfile("convert", "--quiet", "--name", "v", "--binary", "v", src, pq, rc=None)
    if p.returncode != 0:
        fail("golden %s: to Parquet: %s" % (case, p.stderr.decode()[:200]))
        continue
    if cfile("convert", "--quiet", pq, back).returncode != 0:
        continue
    a, b = dump(src), dump(back)
    ngolden += 1
    checked += 1
    want_type = a["type"]  # VARCHAR too: the footer's cfile.kudu_types keeps it
    want = a["values"]
    if binary:
        want_type, want = "BINARY", to_hex(want)
    if (b["type"], b["nullable"], b["is_array"], b["num_values"]) != (
            want_type, a["nullable"], a["is_array"], a["num_values"]):
        fail("golden %s: back as %s nullable=%s array=%s rows=%s, want %s %s %s %s" % (
            case, b["type"], b["nullable"], b["is_array"], b["num_values"], want_type,
            a["nullable"], a["is_array"], a["num_values"]))
    elif b["values"] != want:
        bad = next(i for i in range(len(want)) if i >= len(b["values"]) or b["values"][i] != want[i])
        fail("golden %s: row %d: %r, want %r" % (case, bad, b["values"][bad:bad + 1], want[bad]))
if ngolden < 100:
    fail("only %d golden CFiles converted" % ngolden)

# ---- 2. a table -> Parquet -> a table ---------------------------------------------------------

SCHEMA = ("id INT64 KEY, k2 STRING KEY, i8 INT8 NULL, i16 INT16, i32 INT32 NULL, u8 UINT8, "
          "u16 UINT16 NULL, u32 UINT32, u64 UINT64 NULL, b BOOL NULL, f FLOAT NULL, d DOUBLE, "
          "s STRING NULL, bin BINARY NULL, ts UNIXTIME_MICROS NULL, dt DATE NULL, "
          "d32 DECIMAL32(9,2) NULL, d64 DECIMAL64(18,4), d128 DECIMAL128(38,10) NULL, "
          "arr INT32[] NULL, sarr STRING[], darr DOUBLE[] NULL")
rows = []
for i in range(3000):
    rows.append({
        "id": i * 7 - 9000, "k2": "k%d" % (i % 5), "i8": None if i % 9 == 0 else (i % 256) - 128,
        "i16": i * 11 - 16000, "i32": None if i % 4 == 1 else i * 100003 - 2**31 + 5,
        "u8": i % 256, "u16": None if i % 3 == 0 else i * 21, "u32": 2**32 - 1 - i,
        "u64": None if i % 5 == 0 else 2**64 - 1 - i * 3, "b": None if i % 7 == 0 else i % 2 == 0,
        "f": None if i % 6 == 0 else i / 8, "d": i * 1.5 - 77.25,
        "s": None if i % 10 == 0 else "s\u00e9%d" % (i % 97), "bin": None if i % 8 == 0 else "%02x" % (i % 256),
        "ts": None if i % 11 == 0 else i * 1000003 - 10**12, "dt": None if i % 12 == 0 else i - 1000,
        "d32": None if i % 13 == 0 else (i - 1500) * 100 + i % 100,
        "d64": i * 10**10 + i % 10000,
        "d128": None if i % 14 == 0 else str(-i * 10**30 - i),
        "arr": None if i % 15 == 0 else [j if j % 3 else None for j in range(i % 6)],
        "sarr": ["a%d" % j for j in range(i % 4)],
        "darr": None if i % 16 == 0 else [j / 4 for j in range(i % 3)],
    })
jl = os.path.join(WORK, "t.jsonl")
with open(jl, "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
t1 = os.path.join(WORK, "t1")
cfile("table", "import", t1, jl, "--schema", SCHEMA, "--ts", "5")
tpq = os.path.join(WORK, "t1.parquet")
cfile("convert", "--quiet", "--row-group-rows", "700", t1, tpq)


def scan(t):
    p = cfile("table", "scan", t, "--json")
    return p.stdout


want_scan = scan(t1)
t2 = os.path.join(WORK, "t2")
cfile("convert", "--quiet", "--to", "table", "--key", "id,k2", "--ts", "5", tpq, t2)
checked += 1
if scan(t2) != want_scan:
    fail("table -> Parquet -> table: scans differ")


def schema_of(t):
    out = cfile("table", "info", t).stdout.decode()
    return [ln for ln in out.splitlines() if ln.startswith("schema:")]


checked += 1
if schema_of(t2) != schema_of(t1) or not schema_of(t1):  # DECIMAL(p,s) and all
    fail("table -> Parquet -> table: schema %r, want %r" % (schema_of(t2), schema_of(t1)))
# Keys in another order: the --key columns come first, in --key's order.
t3 = os.path.join(WORK, "t3")
cfile("convert", "--quiet", "--to", "table", "--key", "k2,id", tpq, t3)
checked += 1
p = cfile("table", "scan", t3, "--json", "--limit", "1")
if not p.stdout.startswith(b'{"k2":"k0","id":'):
    fail("--key k2,id: first row %r" % p.stdout[:80])
# Into an existing (empty) table with the same schema, by column names.
t4 = os.path.join(WORK, "t4")
cfile("table", "create", t4, "--schema", SCHEMA)
cfile("convert", "--quiet", "--to", "table", "--ts", "5", tpq, t4)
checked += 1
if scan(t4) != want_scan:
    fail("Parquet -> existing table: scans differ")
# Again into it: every key is a duplicate; the table stays as it was.
p = cfile("convert", "--quiet", "--to", "table", tpq, t4, rc=1)
checked += 1
if b"duplicate key" not in p.stderr or scan(t4) != want_scan:
    fail("duplicate keys into a table: %r" % p.stderr[:200])
# Duplicate keys inside the file: nothing of the new table remains.
dup = os.path.join(WORK, "dup.parquet")
cfile("convert", "--quiet", "--name", "v",
      os.path.join(golden, "int32-rle-nocomp-notnull-multiblock",
                   "int32-rle-nocomp-notnull-multiblock.cfile"), dup)
t5 = os.path.join(WORK, "t5")
p = cfile("convert", "--quiet", "--to", "table", "--key", "v", dup, t5, rc=1)
checked += 1
# (its LOCK included: cf_cli_table_load's undo used to leave it, and so the directory)
left = sorted(os.listdir(t5)) if os.path.exists(t5) else []
if b"duplicate key" not in p.stderr or left != []:
    fail("duplicate keys in the file: %r, left %r" % (p.stderr[:200], left))
# ... and the directory takes a good load afterwards (no half-made table in the way).
cfile("convert", "--quiet", "--to", "table", "--key", "id,k2", tpq, t5)
checked += 1
if scan(t5) != want_scan:
    fail("a load after a failed one: scans differ")
# An OPTIONAL column (as Spark writes every one) as the key: NOT NULL, and a NULL
# in it fails naming the row, leaving no table.
cfile("convert", "--quiet", "--to", "table", "--key", "i8,id", tpq, os.path.join(WORK, "tn"), rc=1)
p = cfile("convert", "--to", "table", "--key", "i32", tpq, os.path.join(WORK, "tn"), rc=1)
checked += 1
tn = os.path.join(WORK, "tn")
if b"row 1, column 'i32': NULL in a key column" not in p.stderr or \
        (os.path.exists(tn) and os.listdir(tn) != []):
    fail("NULL in a key: %r" % p.stderr[:200])
cfile("convert", "--quiet", "--to", "table", "--key", "u64,id", "--column", "id,u64,s", tpq,
      os.path.join(WORK, "tn2"), rc=1)
optj = os.path.join(WORK, "opt.jsonl")
with open(optj, "w") as f:
    f.write('{"id": 2, "s": "b"}\n{"id": 1, "s": null}\n')
optq = os.path.join(WORK, "opt.parquet")
cfile("parquet", "write", "--quiet", "--schema", "id INT64 NULL, s STRING NULL", "--input",
      optj, optq)
tn3 = os.path.join(WORK, "tn3")
cfile("convert", "--quiet", "--to", "table", "--key", "id", optq, tn3)
checked += 1
if scan(tn3) != b'{"id":1,"s":null}\n{"id":2,"s":"b"}\n':
    fail("OPTIONAL key column: %r" % scan(tn3))
# A table column the file lacks is NULL; a key the file lacks is an error.
t6 = os.path.join(WORK, "t6")
cfile("table", "create", t6, "--schema", "id INT64 KEY, k2 STRING KEY, extra STRING NULL, s STRING NULL")
cfile("convert", "--quiet", "--to", "table", "--column", "id,k2,s", tpq, t6)
p = cfile("table", "scan", t6, "--json", "--limit", "2")
checked += 1
if p.stdout.count(b'"extra":null') != 2:
    fail("missing nullable column: %r" % p.stdout[:200])
p = cfile("convert", "--quiet", "--to", "table", "--column", "id,s", tpq,
          os.path.join(WORK, "t6b"), rc=2)

# ---- 2b. Kudu types Parquet cannot say, kept in the footer; progress -------------------------
# VARCHAR(n) is written as STRING and INT128 as FIXED_LEN_BYTE_ARRAY(16); the
# cfile.kudu_types entry of key_value_metadata brings them back exactly.
KSCHEMA = "id INT64 KEY, v VARCHAR(12) NULL, big INT128 NULL, s STRING NULL"
kj = os.path.join(WORK, "k.jsonl")
with open(kj, "w") as f:
    for i in range(1000):
        big = [170141183460469231731687303715884105727, -170141183460469231731687303715884105728,
               0, -1, 2**64 + i][i % 5]
        f.write(json.dumps({"id": i, "v": None if i % 6 == 0 else "v%d" % i,
                            "big": None if i % 7 == 0 else big, "s": "s%d" % i}) + "\n")
k1, kpq, k2 = os.path.join(WORK, "k1"), os.path.join(WORK, "k1.parquet"), os.path.join(WORK, "k2")
cfile("table", "import", k1, kj, "--schema", KSCHEMA, "--ts", "5")
p = cfile("convert", "--progress", k1, kpq)
checked += 1
if not p.stderr.decode().rstrip().split("\r")[-1].startswith("1000 rows, "):
    fail("table -> Parquet --progress: %r" % p.stderr[-200:])
meta = json.loads(cfile("parquet", "meta", "--json", kpq).stdout)
checked += 1
kv = {e["key"]: e.get("value") for e in meta.get("key_value_metadata") or []}
if json.loads(kv.get("cfile.kudu_types", "{}")) != {"v": "VARCHAR(12)", "big": "INT128"}:
    fail("cfile.kudu_types: %r" % kv)
p = cfile("convert", "--progress", "--to", "table", "--key", "id", "--ts", "5", kpq, k2)
checked += 1
if not p.stderr.decode().rstrip().split("\r")[-1].startswith("1000 / 1000 rows (100%), "):
    fail("Parquet -> table --progress: %r" % p.stderr[-200:])
checked += 1
if schema_of(k2) != schema_of(k1) or scan(k2) != scan(k1):
    fail("VARCHAR/INT128 table -> Parquet -> table: schema %r, want %r" % (schema_of(k2),
                                                                          schema_of(k1)))
# Without the entry (an engine rewrote the file), the Parquet types stand.
kpq2 = os.path.join(WORK, "k2.parquet")
cfile("convert", "--quiet", "--meta", "cfile.kudu_types=not json", k1, kpq2)
k3 = os.path.join(WORK, "k3")
cfile("convert", "--quiet", "--to", "table", "--key", "id", kpq2, k3)
checked += 1
if "v STRING NULL" not in " ".join(schema_of(k3)) or "big BINARY NULL" not in " ".join(schema_of(k3)):
    fail("unparsable cfile.kudu_types: schema %r" % schema_of(k3))
# One CFile of INT128 and back.
cf128 = os.path.join(WORK, "big.cfile")
p = cfile("convert", "--quiet", "--to", "cfiles", "--column", "big", kpq, os.path.join(WORK, "kc"))
src128 = os.path.join(WORK, "kc", "big.cfile")
cfile("convert", "--quiet", src128, os.path.join(WORK, "big.parquet"))
cfile("convert", "--quiet", os.path.join(WORK, "big.parquet"), cf128)
a, b = dump(src128), dump(cf128)
checked += 1
if not a or not b or (a["type"], a["values"]) != (b["type"], b["values"]) or a["type"] != "INT128":
    fail("INT128 CFile -> Parquet -> CFile: %r, want %r" % ((b or {}).get("type"), (a or {}).get("type")))

# ---- 3. real Parquet files -> CFiles ----------------------------------------------------------


def days(text):
    """'YYYY-MM-DD' (astronomical years, maybe signed) -> days since 1970-01-01."""
    sign = -1 if text[0] == "-" else 1
    t = text.lstrip("+-")
    y, m, d = t.rsplit("-", 2)
    y = sign * int(y)
    # days from civil (proleptic Gregorian)
    y -= m in ("01", "02") and 1 or 0
    m, d = int(m), int(d)
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def norm_float(v, single=False):
    if isinstance(v, str):
        if v.startswith("0x"):
            return "NaN"
        return {"NaN": "NaN", "Infinity": "inf", "-Infinity": "-inf"}[v]
    if single:  # FLOAT prints its shortest float form, expected.json the widened double
        return struct.unpack("<f", struct.pack("<f", float(v)))[0]
    return float(v)


def leaf_of(schema, i):
    """The element index of field i's leaf (through a LIST), and whether it is a list."""
    e = schema[i]
    if not e.get("num_children"):
        return i, e.get("repetition_type") == "REPEATED"
    j = i + 1
    while schema[j].get("num_children"):
        j += 1
    return j, True


def expected_value(elem, v):
    """expected.json's value form -> what `cfile dump --json` shows for its Kudu type."""
    if v is None:
        return None
    lt = elem.get("logical") or ""
    ct = elem.get("converted_type") or ""
    pt = elem.get("type")
    if lt.startswith("DECIMAL") or ct == "DECIMAL":
        return int(v.replace(".", ""))
    if lt == "DATE" or ct == "DATE":
        return days(v)
    if lt.startswith("TIMESTAMP(MILLIS") or ct == "TIMESTAMP_MILLIS":
        return int(v) * 1000
    if pt in ("FLOAT", "DOUBLE") or lt == "FLOAT16":
        return norm_float(v, pt != "DOUBLE")
    if pt in ("INT32", "INT64", "INT96"):
        return int(v)
    if pt == "BOOLEAN":
        return v
    if lt in ("STRING", "ENUM", "JSON") or ct in ("UTF8", "ENUM", "JSON"):
        return v
    if lt == "UUID":
        return v.replace("-", "")
    return v.lower()


def got_value(typ, v):
    if v is None:
        return None
    if typ in ("FLOAT", "DOUBLE"):
        return norm_float(v, typ == "FLOAT")
    if typ in ("BINARY",):
        return v.lower()
    if typ.startswith("DECIMAL") or typ.startswith("INT") or typ.startswith("UINT") or \
            typ in ("DATE", "UNIXTIME_MICROS"):
        return int(v)
    return v


def same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (a != a and b != b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


# Columns whose values cannot be carried exactly: refused (exit 1) naming the row
# and column. DuckDB's expected values for them wrap around or drop nanoseconds.
REFUSED = {
    ("im_dateless_timestamps", "t"): b"row 5, column 't': value",
    ("im_out_of_range_time_of_day", "d"): b"row 0, column 'd': INT96 timestamp has digits below",
    ("pt_int96_from_spark", "a"): b"row 5, column 'a': value",
}
corpus = os.path.join(SHARED, "parquet")
ncases = ncols = nrefused = 0
for case in sorted(os.listdir(corpus)):
    ej = os.path.join(corpus, case, "expected.json")
    if not os.path.exists(ej):
        continue
    exp = json.load(open(ej))
    pqf = os.path.join(corpus, case, exp["file"])
    out = os.path.join(WORK, "c_" + case)
    if exp["expect"] != "ok":
        p = cfile("convert", "--quiet", "--to", "cfiles", pqf, out, rc=None)
        checked += 1
        if p.returncode not in (1, 3) or os.path.exists(out):
            fail("malformed %s: exit %d, left %s" % (case, p.returncode, os.path.exists(out)))
        continue
    if "rows" not in exp:
        with open(os.path.join(corpus, case, exp["rows_file"])) as f:
            exp["rows"] = [json.loads(line) for line in f if line.strip()]
    schema = exp["schema"]
    # the top-level fields: children of the root, in order
    top, i = [], 1
    while i < len(schema):
        top.append(i)
        # skip the subtree
        todo = schema[i].get("num_children") or 0
        i += 1
        while todo:
            todo += (schema[i].get("num_children") or 0) - 1
            i += 1
    ncases += 1
    p = cfile("convert", "--quiet", "--to", "cfiles", pqf, out, rc=None)
    refused = [k for k in REFUSED if k[0] == case]
    if refused:
        checked += 1
        if p.returncode != 1 or REFUSED[refused[0]] not in p.stderr or os.path.exists(out):
            fail("%s: want exit 1 with %r: exit %d, %r" % (case, REFUSED[refused[0]],
                                                          p.returncode, p.stderr[:200]))
        p.returncode = 3  # each column alone
    if p.returncode == 3:
        # some column has no Kudu type: named in the message; each column alone then
        if not os.path.exists(out) is False and os.path.exists(out) and os.listdir(out):
            fail("%s: refused (exit 3) but left files in %s" % (case, out))
        if b"column '" not in p.stderr:
            fail("%s: exit 3 without naming the column: %r" % (case, p.stderr[:200]))
    elif p.returncode != 0:
        fail("%s: exit %d: %s" % (case, p.returncode, p.stderr.decode(errors="replace")[:300]))
        continue
    for f, ei in enumerate(top):
        name = schema[ei]["name"]
        path = os.path.join(out, name + ".cfile")
        if p.returncode == 3:
            path = os.path.join(WORK, "c_%s__%d.cfile" % (case, f))
            q = cfile("convert", "--quiet", "--column", name, pqf, path, rc=None)
            if (case, name) in REFUSED:
                checked += 1
                if q.returncode != 1 or REFUSED[(case, name)] not in q.stderr:
                    fail("%s: %s: want exit 1: %d %r" % (case, name, q.returncode, q.stderr[:200]))
                continue
            if q.returncode == 3:
                nrefused += 1
                msg = q.stderr.decode(errors="replace")
                if ("column '%s'" % name) not in msg or os.path.exists(path):
                    fail("%s: column %s refused without naming it: %s" % (case, name, msg))
                continue
            if q.returncode != 0:
                fail("%s: column %s: exit %d: %s" % (case, name, q.returncode, q.stderr.decode(errors="replace")[:300]))
                continue
        d = dump(path)
        if d is None:
            fail("%s: %s does not dump" % (case, path))
            continue
        li, is_list = leaf_of(schema, ei)
        want = [r[f] for r in exp["rows"]]
        want = [None if v is None else [expected_value(schema[li], x) for x in v] if is_list
                else expected_value(schema[li], v) for v in want]
        got = [None if v is None else [got_value(d["type"], x) for x in v] if is_list
               else got_value(d["type"], v) for v in d["values"]]
        ncols += 1
        checked += 1
        if d["is_array"] != is_list or len(got) != len(want):
            fail("%s: %s: array=%s rows=%d, want array=%s rows=%d" % (
                case, name, d["is_array"], len(got), is_list, len(want)))
            continue
        for r in range(len(want)):
            if not same(got[r], want[r]):
                fail("%s: %s: row %d: %r, want %r" % (case, name, r, got[r], want[r]))
                break
if ncases < 85 or ncols < 300:
    fail("only %d corpus files, %d columns converted" % (ncases, ncols))

# ---- 4. errors ----------------------------------------------------------------------------------
cx = os.path.join(corpus, "dk_complex", "dk_complex.parquet")
nd = os.path.join(WORK, "nested")
p = cfile("convert", "--to", "cfiles", cx, nd, rc=3)
checked += 1
if b"column '" not in p.stderr or os.path.exists(nd):
    fail("nesting: %r, dir left: %s" % (p.stderr[:200], os.path.exists(nd)))
p = cfile("convert", "--to", "table", tpq, os.path.join(WORK, "nokey"), rc=2)
checked += 1
if b"--key" not in p.stderr or os.path.exists(os.path.join(WORK, "nokey")):
    fail("missing --key: %r" % p.stderr[:200])
cfile("convert", tpq, os.path.join(WORK, "somedir"), rc=2)
cfile("convert", "--codec", "zstd", tpq, os.path.join(WORK, "x.cfile"), rc=2)
cfile("convert", "--to", "cfiles", "--key", "id", tpq, os.path.join(WORK, "y"), rc=2)
p = cfile("convert", tpq, os.path.join(WORK, "many.cfile"), rc=2)
checked += 1
if b"--column" not in p.stderr:
    fail("several columns into one CFile: %r" % p.stderr[:200])
cfile("convert", "--column", "nosuch", tpq, os.path.join(WORK, "z.cfile"), rc=2)
# Damaged: the good file cut short, and with its footer length broken.
data = open(tpq, "rb").read()
for label, bad in (("truncated", data[:len(data) // 2]),
                   ("footer", data[:-8] + b"\xff\xff\xff\x7f" + data[-4:]),
                   ("page", data[:200] + bytes(b ^ 0x5a for b in data[200:260]) + data[260:])):
    bp = os.path.join(WORK, "bad_%s.parquet" % label)
    open(bp, "wb").write(bad)
    o = os.path.join(WORK, "bad_%s" % label)
    p = cfile("convert", "--to", "cfiles", bp, o, rc=1)
    checked += 1
    if not p.stderr or os.path.exists(o):
        fail("damaged (%s): %r, left %s" % (label, p.stderr[:200], os.path.exists(o)))
# Damage in the last row group, found after earlier row groups went into the
# load: no rows of it stay, into a new table or an existing one.
meta = cfile("parquet", "meta", tpq).stdout.decode().split("row group 4:")[1]
at = int(meta.split("data at ")[1].split(",")[0]) + 40  # the last row group's first page
lastbad = os.path.join(WORK, "bad_last.parquet")
open(lastbad, "wb").write(data[:at] + bytes(b ^ 0x5a for b in data[at:at + 64]) + data[at + 64:])
tl = os.path.join(WORK, "tl")
p = cfile("convert", "--to", "table", "--key", "id,k2", lastbad, tl, rc=1)
checked += 1
left = sorted(os.listdir(tl)) if os.path.exists(tl) else []
if left not in ([], ["LOCK"]):
    fail("damage in the last row group, new table: left %r (%r)" % (left, p.stderr[:200]))
te = os.path.join(WORK, "te")
cfile("table", "create", te, "--schema", SCHEMA)
empty = scan(te)
p = cfile("convert", "--to", "table", lastbad, te, rc=1)
checked += 1
if scan(te) != empty:
    fail("damage in the last row group, existing table: rows stayed (%r)" % p.stderr[:200])
# --to cfiles never replaces a file it was not named.
ex = os.path.join(WORK, "exists")
os.makedirs(ex)
open(os.path.join(ex, "s.cfile"), "w").write("mine")
p = cfile("convert", "--to", "cfiles", tpq, ex, rc=1)
checked += 1
if open(os.path.join(ex, "s.cfile")).read() != "mine" or sorted(os.listdir(ex)) != ["s.cfile"]:
    fail("--to cfiles replaced or left files: %r" % os.listdir(ex))


# Values that would change: TIMESTAMP(NANOS) with sub-microsecond digits and
# MILLIS past the microsecond range, made by retagging our own TIMESTAMP(MICROS)
# column's footer (TimeUnit MICROS -> NANOS / MILLIS: one byte).
def retag(src, unit_byte, dst):
    b = bytearray(open(src, "rb").read())
    flen = int.from_bytes(b[-8:-4], "little")
    start = len(b) - 8 - flen
    pat = bytes([0x1c, 0x2c, 0x00, 0x00, 0x00])  # unit: { MICROS: {} }
    at = b.find(pat, start)
    if at < 0:
        fail("retag: no TimeUnit MICROS in %s" % src)
        return
    b[at + 1] = unit_byte
    open(dst, "wb").write(bytes(b))


tsj = os.path.join(WORK, "ts.jsonl")
with open(tsj, "w") as f:
    for v in (1000, 2000, 123456789, -5000):
        f.write(json.dumps({"t": v}) + "\n")
tsq = os.path.join(WORK, "ts.parquet")
cfile("parquet", "write", "--quiet", "--schema", "t UNIXTIME_MICROS", "--input", tsj, tsq)
nanos = os.path.join(WORK, "ts_nanos.parquet")
retag(tsq, 0x3c, nanos)
p = cfile("convert", nanos, os.path.join(WORK, "nanos.cfile"), rc=1)
checked += 1
if b"row 2" not in p.stderr or b"column 't'" not in p.stderr or \
        os.path.exists(os.path.join(WORK, "nanos.cfile")):
    fail("NANOS with sub-microsecond digits: %r" % p.stderr[:300])
with open(tsj, "w") as f:
    for v in (1000, 2000, -5000):
        f.write(json.dumps({"t": v}) + "\n")
cfile("parquet", "write", "--quiet", "--schema", "t UNIXTIME_MICROS", "--input", tsj, tsq)
retag(tsq, 0x3c, nanos)
cfile("convert", "--quiet", nanos, os.path.join(WORK, "nanos.cfile"))
d = dump(os.path.join(WORK, "nanos.cfile"))
checked += 1
if d is None or d["values"] != [1, 2, -5]:
    fail("NANOS converted exactly: %r" % (d and d["values"]))
with open(tsj, "w") as f:
    for v in (1, 2**62, 3):
        f.write(json.dumps({"t": v}) + "\n")
cfile("parquet", "write", "--quiet", "--schema", "t UNIXTIME_MICROS", "--input", tsj, tsq)
millis = os.path.join(WORK, "ts_millis.parquet")
retag(tsq, 0x1c, millis)
p = cfile("convert", millis, os.path.join(WORK, "millis.cfile"), rc=1)
checked += 1
if b"row 1" not in p.stderr or b"column 't'" not in p.stderr:
    fail("MILLIS overflow: %r" % p.stderr[:300])

# ---- 5. killed mid-way: the outputs are complete or absent, a table as it was ------------------
import random
import signal
import time

big = os.path.join(WORK, "big.jsonl")
with open(big, "w") as f:
    for i in range(400000):
        f.write('{"id": %d, "s": "v%d", "l": [%d, %d]}\n' % (i, i % 1000, i, -i))
bigq = os.path.join(WORK, "big.parquet")
cfile("parquet", "write", "--quiet", "--row-group-rows", "50000", "--schema",
      "id INT64, s STRING, l INT64[] NULL", "--input", big, bigq)
tk = os.path.join(WORK, "tk")
cfile("table", "create", tk, "--schema", "id INT64 KEY, s STRING, l INT64[] NULL")
cfile("table", "insert", tk, "--row", "id=-1,s=before")
before = scan(tk)
rnd = random.Random(15)
killed = 0
for trial in range(8):
    kd = os.path.join(WORK, "kill%d" % trial)
    if trial % 2:
        shutil.copytree(tk, kd)  # a table with one row, for this trial alone
    args = ["--to", "cfiles", bigq, kd] if trial % 2 == 0 else ["--to", "table", bigq, kd]
    proc = subprocess.Popen([CLI, "convert", "--quiet"] + args, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    time.sleep(rnd.uniform(0.003, 0.15))
    proc.send_signal(signal.SIGKILL)
    rc = proc.wait()
    killed += rc != 0
    checked += 1
    if trial % 2 == 0:
        done = sorted(f for f in os.listdir(kd) if f.endswith(".cfile")) if os.path.exists(kd) else []
        if rc == 0 and done != ["id.cfile", "l.cfile", "s.cfile"]:
            fail("kill %d: finished but files %r" % (trial, done))
        for f in done:  # what is there is whole
            d = dump(os.path.join(kd, f))
            if d is None or d["num_values"] != 400000:
                fail("kill %d: %s partial" % (trial, f))
    else:
        got = scan(kd)
        if rc == 0:
            if got.count(b"\n") != 400001:
                fail("kill %d: finished with %d rows" % (trial, got.count(b"\n")))
        elif got != before and got.count(b"\n") != 400001:
            # Killed: the load is all or nothing. All is right too when the kill came
            # after the commit (on a fast machine the load can end within the window).
            fail("kill %d: the table changed (%d rows, want the 1 before or all 400001)" %
                 (trial, got.count(b"\n")))

print("%d of 8 conversions killed mid-way" % killed)
print("%d checks (%d golden CFiles, %d corpus files, %d corpus columns, %d refused as "
      "unsupported), %d failures" % (checked, ngolden, ncases, ncols, nrefused, len(failures)))
sys.exit(1 if failures else 0)

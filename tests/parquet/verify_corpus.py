#!/usr/bin/env python3
"""`cfile parquet verify` over ../shared/parquet and over files our writer makes.

    verify_corpus.py CFILE SHARED_PARQUET_DIR WORK_DIR

Every valid case must verify clean (exit 0), except the ones listed in
KNOWN_BAD_STATS, whose writers stored statistics that disagree with their
values (verify must then exit 1 naming the statistics); every malformed case
must exit 1. Then a table of every Kudu type is written with every writer
option (codecs, v1/v2 pages, dictionary on/off/fallback, statistics, page
index, CRCs, bloom filters, small pages and row groups) and each file must
verify clean, with the CRC, page index and bloom counts the options imply;
a file with one flipped byte in a page must fail naming the page.
"""
import json
import os
import random
import subprocess
import sys

cli, corpus, work = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(work, exist_ok=True)
failures = []

# Valid files whose writers' statistics disagree with the data (case -> text
# expected in the problem). Found by this very check; see docs/REDFILE.md.
KNOWN_BAD_STATS = {
    # parquet.net: min_value/max_value that are not the column's min and max
    # (DuckDB's regression file for exactly that).
    "dk_corrupt_stats": "statistics min_value/max_value",
    # parquet-go: an INT(8, false) column whose value 255 has min_value
    # 0xffffffff, the byte sign-extended: above every value in unsigned order.
    "dk_out_of_range_stats": "statistics min_value/max_value min is above the smallest value",
}
# Valid files whose writers have a known, recognised quirk: verify notes it and
# passes (case -> text of the note).
KNOWN_NOTES = {
    "dk_data_page_2_gzip": "is the level count (old parquet-cpp)",
    "dk_data_page_2_none": "is the level count (old parquet-cpp)",
    "go_issue206": "offset index sizes leave out the page headers (parquet-go)",
}


def run(args):
    p = subprocess.run([cli] + args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


manifest = json.load(open(os.path.join(corpus, "MANIFEST.json")))
for case in manifest["cases"]:
    name = case["case"]
    f = os.path.join(corpus, name, name + ".parquet")
    rc, out, err = run(["parquet", "verify", "--json", f])
    if case["expect"] == "error":
        if rc != 1 or not err.strip():
            failures.append(f"{name}: malformed, verify exit {rc}: {err.strip()[:200]}")
        continue
    if name in KNOWN_BAD_STATS:
        if rc != 1 or KNOWN_BAD_STATS[name] not in err:
            failures.append(f"{name}: known bad statistics not reported (exit {rc}): {err[:300]}")
        continue
    if rc != 0:
        failures.append(f"{name}: valid file, verify exit {rc}: {err.strip()[:600]}")
        continue
    doc = json.loads(out)
    if not doc["ok"] or doc["problems"]:
        failures.append(f"{name}: exit 0 but not ok: {out[:300]}")
    if name in KNOWN_NOTES and not any(KNOWN_NOTES[name] in n for n in doc["notes"]):
        failures.append(f"{name}: the known quirk was not noted: {doc['notes']}")
    feats = case.get("features") or {}
    if feats.get("crc") and doc["crc"]["verified"] == 0:
        failures.append(f"{name}: has CRCs, none verified")
    if feats.get("bloom") and doc["bloom_filters"]["checked"] == 0:
        failures.append(f"{name}: has bloom filters, none checked")
    if feats.get("page_index") and doc["page_index"]["checked"] == 0:
        failures.append(f"{name}: has a page index, none checked")

# ---- our writer, every option ----------------------------------------------------------
random.seed(15)
rows = []
for i in range(3000):
    rows.append({
        "i8": random.randint(-128, 127),
        "u64": None if i % 7 == 0 else random.randint(0, 2**64 - 1),
        "s": None if i % 11 == 0 else "s%d" % random.randint(0, 500 if i < 2000 else 100000),
        "d": random.choice([None, 0.0, -0.0, 1.5, i / 3, -1e300]),
        "f": random.random(),
        "flag": i % 3 == 0,
        "arr": None if i % 5 == 0 else [random.randint(-5, 5) for _ in range(i % 4)],
        "dec": random.randint(-99999, 99999),
        "dt": 18262 + i % 28,
        "ts": 1577836800000000 + i * 1000001,
        "bin": "%04x" % i,
        "u32": random.randint(0, 2**32 - 1),
    })
src = os.path.join(work, "rows.jsonl")
with open(src, "w") as fh:
    for r in rows:
        fh.write(json.dumps(r) + "\n")
schema = ("i8 INT8, u64 UINT64 NULL, s STRING NULL, d DOUBLE NULL, f FLOAT, flag BOOL, "
          "arr INT32[] NULL, dec DECIMAL64(10,2), dt DATE NULL, ts UNIXTIME_MICROS, "
          "bin BINARY, u32 UINT32")
variants = []
for codec in ["none", "snappy", "gzip", "brotli", "zstd", "lz4_raw"]:
    variants.append(["--codec", codec])
variants += [
    ["--v2"], ["--v2", "--codec", "zstd", "--no-dictionary"], ["--no-dictionary"],
    ["--dict-bytes", "200"], ["--no-statistics"], ["--no-page-index"], ["--no-crc"],
    ["--bloom", "all", "--bloom-fpp", "0.001"], ["--bloom", "s,u64"],
    ["--row-group-rows", "700", "--page-rows", "64", "--bloom", "all"],
    ["--page-bytes", "512", "--v2", "--bloom", "all"],
    ["--no-statistics", "--no-page-index", "--no-crc", "--no-dictionary"],
]
for k, opts in enumerate(variants):
    out = os.path.join(work, "w%d.parquet" % k)
    rc, o, e = run(["parquet", "write", "--quiet", "--schema", schema, "--input", src] + opts + [out])
    if rc != 0:
        failures.append(f"write {opts}: exit {rc}: {e.strip()}")
        continue
    rc, o, e = run(["parquet", "verify", "--json", out])
    if rc != 0:
        failures.append(f"verify of writer output {opts}: exit {rc}: {e.strip()[:600]}")
        continue
    doc = json.loads(o)
    want_crc = "--no-crc" not in opts
    if (doc["crc"]["verified"] > 0) != want_crc or (doc["crc"]["absent"] > 0) == want_crc:
        failures.append(f"writer {opts}: crc counts {doc['crc']}")
    if (doc["page_index"]["checked"] > 0) == ("--no-page-index" in opts):
        failures.append(f"writer {opts}: page index checked {doc['page_index']}")
    if (doc["statistics"]["checked"] > 0) == ("--no-statistics" in opts):
        failures.append(f"writer {opts}: statistics checked {doc['statistics']}")
    if (doc["bloom_filters"]["checked"] > 0) != any(o2 == "--bloom" for o2 in opts):
        failures.append(f"writer {opts}: bloom filters {doc['bloom_filters']}")
    if doc["values"] == 0 or doc["rows"] != 3000:
        failures.append(f"writer {opts}: {doc['values']} values, {doc['rows']} rows")

# ---- damage: one flipped byte in a page body (CRC on), in a file without CRCs ----------
good = os.path.join(work, "w0.parquet")
if os.path.exists(good):
    rc, o, e = run(["parquet", "pages", "--json", good])
    pages = json.loads(o)["row_groups"][0]["columns"][0]["pages"]
    p = pages[-1]
    at = p["offset"] + p["header_size"] + 2
    data = bytearray(open(good, "rb").read())
    data[at] ^= 0x40
    bad = os.path.join(work, "flipped.parquet")
    open(bad, "wb").write(bytes(data))
    rc, o, e = run(["parquet", "verify", bad])
    if rc != 1 or "CRC-32 mismatch" not in e or "row group 0 column 0" not in e:
        failures.append(f"flipped byte: exit {rc}: {e.strip()[:300]}")

for f in failures:
    print("FAIL", f)
print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)

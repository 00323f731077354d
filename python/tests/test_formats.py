"""cfile.table, cfile.hfile, cfile.bloom and cfile.delta against the golden corpora
and round trips (stdlib unittest; run as test_cfile.py is)."""

import datetime
import decimal
import json
import math
import os
import uuid
import sys
import tempfile
import unittest

# support first: it puts this checkout's cfile on sys.path
from support import SHARED
import cfile  # noqa: E402
from arrow_consumer import consume  # noqa: E402


def load(p):
    with open(p, encoding="utf-8") as f:
        return json.load(f)


def jbytes(x):
    """A corpus byte string: text, or {"hex": ...}."""
    if isinstance(x, dict):
        return bytes.fromhex(x["hex"])
    return x.encode()


class TableTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "t")

    def tearDown(self):
        self.tmp.cleanup()

    def test_rows_and_history(self):
        t = cfile.table.create(self.path, "id INT64 KEY, name STRING NULL, tags INT32[] NULL, "
                               "p DECIMAL64(10,2) NULL, d DATE NULL")
        self.assertEqual(t.columns, ["id", "name", "tags", "p", "d"])
        self.assertTrue(t.schema[0]["is_key"])
        for i in range(50):
            t.insert({"id": i, "name": "n%d" % i, "tags": [i, None] if i % 2 else [], "p": i})
        t.flush()
        t.insert([100, None, None, None, 7])
        ts_before = t.last_ts + 1
        t.update(3, {"name": "three", "tags": [3, 3, 3]})
        t.delete(4)
        self.assertEqual(t.get(3), {"id": 3, "name": "three", "tags": [3, 3, 3], "p": 3,
                                    "d": None})
        self.assertEqual(t.get(3, snapshot=ts_before)["name"], "n3")
        self.assertIsNone(t.get(4))
        self.assertEqual(t.get(4, snapshot=ts_before)["id"], 4)
        self.assertIn(100, t)
        self.assertNotIn(101, t)
        with self.assertRaises(cfile.CFileError) as cm:
            t.insert({"id": 3})
        self.assertEqual(cm.exception.status, cfile.EINVAL)
        self.assertIn("duplicate key", str(cm.exception))
        with self.assertRaises(cfile.CFileError) as cm:
            t.update(999, {"name": "x"})
        self.assertEqual(cm.exception.status, cfile.ENOTFOUND)
        with self.assertRaises(cfile.CFileError):
            t.delete(4)
        with self.assertRaises(KeyError):
            t.insert({"id": 200, "nope": 1})
        ids = [r["id"] for r in t.scan()]
        self.assertEqual(ids, [i for i in range(50) if i != 4] + [100])
        got = list(t.scan(columns=["id", "name"], where=[("id", ">", 45), ("name", "is not null")]))
        self.assertEqual(got, [{"id": i, "name": "n%d" % i} for i in range(46, 50)])
        self.assertEqual(list(t.scan(columns=["id"], where=[("name", "is null")])), [{"id": 100}])
        with self.assertRaises(ValueError):
            t.scan(where=[("id", "~", 1)])
        t.compact()
        self.assertEqual([r["id"] for r in t.scan()], ids)
        # threads change nothing in the rows; out of range is refused
        self.assertEqual(list(t.scan(threads=2)), list(t.scan(threads=1)))
        self.assertEqual(list(t.scan(columns=["id"], where=[("id", ">", 45)], threads=0)),
                         [{"id": i} for i in range(46, 50)] + [{"id": 100}])
        with self.assertRaises(ValueError):
            t.scan(threads=65)
        t.close()
        with self.assertRaises(ValueError):
            t.get(1)
        # Reopened: the log and the rowsets have everything.
        with cfile.table.open(self.path, read_only=True) as r:
            self.assertEqual(r.get(3)["tags"], [3, 3, 3])
            with self.assertRaises(cfile.CFileError) as cm:
                r.insert({"id": 500})
            self.assertIn("read-only", str(cm.exception))

    def test_options_struct_matches_the_library(self):
        # cf_table_options_init writes the whole C struct: a Python mirror that is
        # shorter (a field added in C only, such as mmap) lets it write past the end.
        import ctypes
        from cfile import table as tb
        n = ctypes.sizeof(tb.CTableOptions)
        buf = (ctypes.c_uint8 * (n + 64))(*([0xA5] * (n + 64)))
        cfile._lib.lib().cf_table_options_init(ctypes.cast(buf, ctypes.POINTER(tb.CTableOptions)))
        self.assertEqual(bytes(buf[n:]), b"\xa5" * 64)
        self.assertFalse(tb.CTableOptions.from_buffer(buf).mmap)  # pread by default

    def test_mmap_opt_in_reads_the_same_rows(self):
        with cfile.table.create(self.path, "id INT64 KEY, name STRING NULL") as t:
            for i in range(300):
                t.insert({"id": i, "name": "n%d" % i if i % 3 else None})
            t.flush()
        rows = {}
        for mm in (False, True):
            with cfile.table.open(self.path, read_only=True, mmap=mm) as r:
                rows[mm] = (list(r.scan()), r.get(7), r.get(9))
        self.assertEqual(rows[False], rows[True])
        self.assertEqual(len(rows[False][0]), 300)
        self.assertEqual(rows[False][1], {"id": 7, "name": "n7"})

    def test_composite_key(self):
        with cfile.table.create(self.path, "a STRING KEY, b INT32 KEY, v DOUBLE NULL") as t:
            t.insert({"a": "x", "b": 2, "v": 1.5})
            t.insert({"a": "x", "b": 1})
            self.assertEqual(t.get(("x", 2)), {"a": "x", "b": 2, "v": 1.5})
            with self.assertRaises(ValueError):
                t.get("x")
            self.assertEqual([(r["a"], r["b"]) for r in t], [("x", 1), ("x", 2)])

    def test_quoted_names(self):
        # Any name Kudu takes; one that is not an identifier in backquotes (`` inside).
        with cfile.table.create(self.path, "`my-col` INT64 KEY, `a b, c` STRING NULL, "
                                "`it``s` INT32 NULL") as t:
            self.assertEqual(t.columns, ["my-col", "a b, c", "it`s"])
            t.insert({"my-col": 1, "a b, c": "x", "it`s": 3})
            self.assertEqual(t.get(1), {"my-col": 1, "a b, c": "x", "it`s": 3})
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "n.parquet")
            cfile.parquet.write(p, [[1, "x"]], "`my-col` INT64, `a b, c` STRING NULL")
            with cfile.parquet.open(p) as pq:
                self.assertEqual(pq.read(), [{"my-col": 1, "a b, c": "x"}])


class HFileTest(unittest.TestCase):
    def test_golden(self):
        root = os.path.join(SHARED, "hfile")
        seen = 0
        for name in sorted(os.listdir(root)):
            if not name.endswith(".hfile"):
                continue
            exp = load(os.path.join(root, name + ".expected.json"))
            try:  # features other helpers are still building (FAST_DIFF, LZO, ...)
                with cfile.hfile.open(os.path.join(root, name)) as h:
                    list(h)
            except cfile.CFileError:
                continue
            with self.subTest(name), cfile.hfile.open(os.path.join(root, name)) as h:
                cells = list(h)
                self.assertEqual(len(cells), exp["num_cells"])
                if exp["cell_format"] == "keyvalue" and isinstance(exp.get("cells"), list):
                    for c, e in zip(cells, exp["cells"]):
                        self.assertEqual((c.row, c.family, c.qualifier, c.timestamp, c.type,
                                          c.value),
                                         (jbytes(e["row"]), jbytes(e["family"]),
                                          jbytes(e["qualifier"]), e["timestamp"], e["type"],
                                          jbytes(e["value"])))
                # The Arrow stream holds the same cells (v1: raw keys as rows).
                f, cols = consume(h.__arrow_c_stream__())
                self.assertEqual(len(cols["row"]), len(cells))
                for k in ("row", "family", "qualifier", "timestamp", "type", "value"):
                    self.assertEqual(cols[k], [getattr(c, k) for c in cells])
                seen += 1
        self.assertGreaterEqual(seen, 3)

    def test_write_read(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "x.hfile")
            cells = []
            for i in range(400):
                cells.append((b"row%04d" % i, b"cf", b"a", 2000, "Put", b"v%d" % i))
                cells.append((b"row%04d" % i, b"cf", b"b", 1000, "DeleteColumn", b""))
            self.assertEqual(cfile.hfile.write(p, cells, compression="gz", block_size=1024), 800)
            with cfile.hfile.open(p) as h:
                self.assertEqual(len(h), 800)
                self.assertEqual(h.info["compression"], "GZ")
                self.assertEqual([tuple(c) for c in h], cells)
                self.assertEqual([tuple(c) for c in h.get(b"row0123")], cells[246:248])
                self.assertEqual(h.get("nope"), [])
                self.assertEqual(next(h.cells(start_row=b"row0399")).row, b"row0399")
                self.assertTrue(h.may_contain(b"row0007"))
                absent = sum(not h.may_contain(b"zz%d" % i) for i in range(200))
                self.assertGreater(absent, 150)
            # Out of order: refused, and no file appears.
            q = os.path.join(d, "bad.hfile")
            with self.assertRaises(cfile.CFileError):
                cfile.hfile.write(q, [(b"b", b"f", b"q", 1, "Put", b""),
                                      (b"a", b"f", b"q", 1, "Put", b"")])
            self.assertFalse(os.path.exists(q))
            with open(p, "rb") as f:
                data = f.read()
            with cfile.hfile.open(data) as h:
                self.assertEqual(len(list(h)), 800)


class BloomTest(unittest.TestCase):
    def test_golden_probes_and_rewrite(self):
        root = os.path.join(SHARED, "golden")
        cases = [d for d in sorted(os.listdir(root)) if d.startswith("bloom-")]
        self.assertTrue(cases)
        for c in cases:
            probes = load(os.path.join(root, c, "probes.json"))
            with open(os.path.join(root, c, "keys.txt"), encoding="utf-8") as f:
                keys = f.read().split("\n")
            keys = [k for k in keys if k]
            with cfile.bloom.open(os.path.join(root, c, c + ".cfile")) as b:
                for p in probes["probes"]:
                    self.assertEqual(b.may_contain(p["key"]), p["maybe_present"], p["key"])
            w = probes["write"]
            with tempfile.TemporaryDirectory() as d:
                out = os.path.join(d, "b.cfile")
                n = cfile.bloom.write(out, keys, fp_rate=w["fp_rate"],
                                      bytes_per_block=w["bytes_per_bloom"])
                self.assertEqual(n, w["num_keys"])
                with cfile.bloom.open(out) as b:
                    for p in probes["probes"]:
                        self.assertEqual(b.may_contain(p["key"]), p["maybe_present"])
                with self.assertRaises(cfile.CFileError):
                    cfile.bloom.write(os.path.join(d, "bad.cfile"), [b"b", b"a"])
                self.assertFalse(os.path.exists(os.path.join(d, "bad.cfile")))


class DeltaTest(unittest.TestCase):
    def test_golden(self):
        root = os.path.join(SHARED, "golden-delta")
        seen = 0
        for c in sorted(os.listdir(root)):
            p = os.path.join(root, c, c + ".cfile")
            if not os.path.exists(p):
                continue
            spec = load(os.path.join(root, c, "spec.json"))
            exp = load(os.path.join(root, c, "expected.json"))
            kind = exp["delta_type"].lower()
            names = {col["id"]: col["name"] for col in spec.get("schema", [])}
            if any("decode_error" in e for e in exp["deltas"]):
                # A damaged change list stops the iteration with a clear error.
                with cfile.delta.open(p, kind) as d, self.assertRaises(cfile.CFileError) as cm:
                    list(d)
                self.assertEqual(cm.exception.status, cfile.ECORRUPT)
                continue
            with self.subTest(c), cfile.delta.open(p, kind) as d:
                got = list(d)
                self.assertEqual([(x.row, x.ts, x.op) for x in got],
                                 [(e["row"], e["ts"], e["op"]) for e in exp["deltas"]])
                for x, e in zip(got, exp["deltas"]):
                    # Every column id in the list: named ones and those Kudu's
                    # schema no longer has (a dropped column).
                    ids = {k for k, v in names.items() if v in e.get("set", {})}
                    ids |= {u["col_id"] for u in e.get("unknown_columns", [])}
                    self.assertEqual(set(x.changes), ids)
            seen += 1
        self.assertGreater(seen, 5)
        # Typed values of the basic case.
        p = os.path.join(root, "redo-basic", "redo-basic.cfile")
        with cfile.delta.open(p, "redo", types={10: "INT32", 11: "STRING"}) as d:
            self.assertEqual([x.changes for x in d][:2], [{10: 7, 11: None}, {11: "hello"}])
            self.assertEqual([x.row for x in d.deltas(start_row=6)], [6, 6, 9])

    def test_write_read(self):
        deltas = [(1, 10, "UPDATE", {1: 5, 2: "a"}), (1, 11, "DELETE", {}),
                  (2, 10, "REINSERT", {1: -1, 2: None}), (3, 12, "UPDATE", {2: b"\xff"})]
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "redo.cfile")
            types = {1: "INT64", 2: "BINARY"}
            want = [(1, 10, "UPDATE", {1: 5, 2: b"a"}), (1, 11, "DELETE", {}),
                    (2, 10, "REINSERT", {1: -1, 2: None}), (3, 12, "UPDATE", {2: b"\xff"})]
            self.assertEqual(cfile.delta.write(p, deltas, "redo", types=types), 4)
            with cfile.delta.open(p, "redo", types=types) as r:
                self.assertEqual([tuple(x) for x in r], want)
            with self.assertRaises(cfile.CFileError):
                cfile.delta.write(os.path.join(d, "bad.cfile"),
                                  [(2, 1, "DELETE", {}), (1, 1, "DELETE", {})], "redo")
            self.assertFalse(os.path.exists(os.path.join(d, "bad.cfile")))


def canon(v):
    """A value in shared/parquet/README.md's canonical JSON forms."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return v
    if isinstance(v, decimal.Decimal):
        return format(v, "f")
    if isinstance(v, datetime.date):
        return v.isoformat()
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, uuid.UUID):
        return str(v)
    if isinstance(v, tuple):
        return {"key": canon(v[0]), "value": canon(v[1])}
    if isinstance(v, list):
        return [canon(e) for e in v]
    if isinstance(v, dict):
        return {k: canon(x) for k, x in v.items()}
    raise TypeError(type(v))


def same(got, want):
    if isinstance(got, int) and not isinstance(got, bool) and isinstance(want, str):
        return str(got) == want  # |v| > 2^53 is a decimal string
    if isinstance(got, float) and isinstance(want, (int, float)) and not isinstance(want, bool):
        return got == float(want) and (got != 0 or math.copysign(1, got) == math.copysign(1, want))
    if isinstance(got, list) and isinstance(want, list):
        return len(got) == len(want) and all(same(a, b) for a, b in zip(got, want))
    if isinstance(got, dict) and isinstance(want, dict):
        return got.keys() == want.keys() and all(same(got[k], want[k]) for k in got)
    return got == want and type(got) is type(want)


def civil(days):
    """Days since 1970-01-01 as "YYYY-MM-DD", proleptic Gregorian with astronomical
    years (H. Hinnant's civil_from_days), for dates Python's datetime cannot hold."""
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    y += m <= 2
    ys = "%04d" % y if 0 <= y <= 9999 else ("-%04d" % -y if y < 0 else "+%05d" % y)
    return "%s-%02d-%02d" % (ys, m, d)


class ParquetTest(unittest.TestCase):
    def test_corpus(self):
        root = os.path.join(SHARED, "parquet")
        checked = errors = 0
        for c in sorted(os.listdir(root)):
            d = os.path.join(root, c)
            if not os.path.isdir(d):
                continue
            exp = load(os.path.join(d, "expected.json"))
            f = os.path.join(d, exp["file"])
            with self.subTest(c):
                if exp["expect"] == "error":
                    with self.assertRaises(cfile.CFileError):
                        with cfile.parquet.open(f) as pq:
                            pq.read()
                    errors += 1
                    continue
                with cfile.parquet.open(f) as pq:
                    self.assertEqual(pq.num_rows, exp["num_rows"])
                    if "rows" not in exp:
                        continue  # rows in a side file: counted above
                    dates = {e["name"] for e in exp["schema"]
                             if "DATE" in (str(e.get("logical")), e.get("converted_type"))}
                    rows = [[civil(r[k]) if k in dates and isinstance(r[k], int) else canon(r[k])
                             for k in pq.columns] for r in pq.rows()]
                    self.assertEqual(len(rows), len(exp["rows"]))
                    for i, (g, w) in enumerate(zip(rows, exp["rows"])):
                        if not same(g, w):
                            self.fail("row %d: %r != %r" % (i, g, w))
                    checked += 1
        self.assertGreater(checked, 50)
        self.assertGreater(errors, 3)

    def test_write_read(self):
        schema = ("id INT64 KEY, name STRING NULL, tags INT32[] NULL, p DECIMAL64(10,2) NULL, "
                  "ok BOOL, d DATE NULL, raw BINARY NULL, u UINT32, f DOUBLE NULL")
        rows = [{"id": i, "name": None if i % 3 == 0 else "n\u00e9%d" % i,
                 "tags": None if i % 5 == 0 else [i, None, -i], "p": decimal.Decimal(i) / 100,
                 "ok": i % 2 == 0, "d": datetime.date(2024, 1, 1) + datetime.timedelta(days=i),
                 "raw": bytes([i % 256, 0]), "u": 4000000000 + i,
                 "f": None if i % 7 == 0 else i / 3} for i in range(3000)]
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "x.parquet")
            self.assertEqual(cfile.parquet.write(p, rows, schema, codec="zstd",
                                                 row_group_rows=1000, batch_rows=700), 3000)
            with cfile.parquet.open(p) as pq:
                self.assertEqual(pq.num_rows, 3000)
                self.assertEqual(pq.read(), rows)
            # Any thread count writes the same bytes (the options' mirror reaches threads).
            for t in (1, 2, 4):
                pt = os.path.join(d, "t%d.parquet" % t)
                cfile.parquet.write(pt, rows, schema, codec="zstd", row_group_rows=1000,
                                    batch_rows=700, threads=t)
                with open(pt, "rb") as a, open(p, "rb") as b:
                    self.assertEqual(a.read(), b.read())
            with self.assertRaises(ValueError):
                cfile.parquet.write(os.path.join(d, "t.parquet"), rows, schema, threads=65)
            # Any thread count and read-ahead budget reads the same rows.
            for t, ahead in ((1, None), (2, 1), (2, 1 << 20), (4, 0)):
                with cfile.parquet.open(p, threads=t, max_ahead_bytes=ahead) as pq:
                    self.assertEqual(pq.read(), rows)
            with self.assertRaises(ValueError):
                cfile.parquet.open(p, max_ahead_bytes=-1)
            # Sequences in column order work too.
            q = os.path.join(d, "y.parquet")
            cfile.parquet.write(q, [[1, "a"], [2, None]], "a INT8, b STRING NULL")
            with cfile.parquet.open(q) as pq:
                self.assertEqual(pq.read(), [{"a": 1, "b": "a"}, {"a": 2, "b": None}])
            # A STRING that is not UTF-8 is refused, and no file appears.
            bad = os.path.join(d, "bad.parquet")
            with self.assertRaises(cfile.CFileError) as cm:
                cfile.parquet.write(bad, [[b"\xff"]], "s STRING")
            self.assertEqual(cm.exception.status, cfile.EINVAL)
            self.assertFalse(os.path.exists(bad))
            with self.assertRaises(ValueError):
                cfile.parquet.write(bad, [], "a INT32, a INT64")

    def test_projection_and_pandas(self):
        p = os.path.join(SHARED, "parquet", "dk_boolean_stats")
        f = os.path.join(p, load(os.path.join(p, "expected.json"))["file"])
        with open(f, "rb") as fh:
            data = fh.read()
        with cfile.parquet.open(data) as pq:
            self.assertEqual(pq.columns, ["i"])
            self.assertEqual(pq.read(columns=["i"])[:3], [{"i": None}, {"i": False},
                                                          {"i": True}])
            with self.assertRaises(KeyError):
                pq.read(columns=["nope"])
            try:
                import pandas  # noqa: F401
            except ImportError:
                return
            self.assertEqual(list(pq.to_pandas().columns), ["i"])


if __name__ == "__main__":
    unittest.main()

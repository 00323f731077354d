"""The Arrow PyCapsule interface, numpy and pandas (stdlib unittest).

pyarrow is not in Debian 12, so the capsules are consumed by arrow_consumer.py,
a ctypes Arrow C Stream consumer that moves the stream out of the capsule the
way pyarrow does. Run as test_cfile.py is (CFILE_LIB, CF_SHARED_DIR)."""

import ctypes
import gc
import os
import sys
import tempfile
import unittest

# support first: it puts this checkout's cfile on sys.path
from support import DUCKDB, GOLDEN, duckdb_lib, duckdb_query
import cfile  # noqa: E402
import cfile.hfile  # noqa: E402
import cfile.parquet  # noqa: E402
import cfile.table  # noqa: E402
from arrow_consumer import StreamError, consume  # noqa: E402


try:
    import numpy
except ImportError:
    numpy = None
try:
    import pandas
except ImportError:
    pandas = None


def golden_files():
    out = []
    for d in sorted(os.listdir(GOLDEN)):
        p = os.path.join(GOLDEN, d, d + ".cfile")
        if not d.startswith("bloom-") and os.path.exists(p):
            out.append(p)
    return out


def arrow_form(v):
    """What read() returns, as the consumer decodes Arrow (ints for decimals,
    dates and timestamps; bytes for STRING values that are not UTF-8)."""
    if isinstance(v, list):
        return [arrow_form(e) for e in v]
    return v


class CapsuleTest(unittest.TestCase):
    def setUp(self):
        gc.collect()
        self.live = cfile.arrow.live_streams()

    def tearDown(self):
        gc.collect()
        self.assertEqual(cfile.arrow.live_streams(), self.live, "a stream was not released")

    def test_golden_files_through_capsules(self):
        files = golden_files()
        self.assertGreater(len(files), 150)
        refused = 0
        for p in files:
            with self.subTest(os.path.basename(p)), cfile.open(p) as r:
                want = r.read()
                try:
                    formats, cols = consume(r.__arrow_c_stream__())
                except StreamError as e:
                    # The UTF-8 rule: only STRING bytes that are not UTF-8 are refused.
                    self.assertIn("is not valid UTF-8", e.message)
                    refused += 1
                    formats, cols = consume(r.__arrow_c_stream__(utf8="binary"))
                    want = [v.encode() if isinstance(v, str) else v for v in want]
                self.assertEqual(list(formats), ["value"])
                got = cols["value"]
                if r.info["type"] in ("FLOAT", "DOUBLE"):
                    same = lambda a, b: a == b or (a != a and b != b)  # noqa: E731
                    flat = lambda xs: [e for x in xs for e in (x if isinstance(x, list) else [x])]  # noqa: E731,E501
                    self.assertTrue(all(same(a, b) for a, b in zip(flat(got), flat(want))))
                    self.assertEqual(len(got), len(want))
                else:
                    self.assertEqual(got, arrow_form(want))
        self.assertEqual(refused, 1)  # string-plain-nocomp-notnull-nonutf8-hexinput

    def test_capsule_protocol(self):
        data = cfile.dumps([1, None, 3], "INT32", nullable=True)
        r = cfile.open(data, column_name="n")
        cap = r.__arrow_c_stream__()
        self.assertEqual(type(cap).__name__, "PyCapsule")
        self.assertEqual(cfile.arrow.live_streams(), self.live + 1)
        # The stream reads through handles of its own: closing the reader is fine.
        r.close()
        formats, cols = consume(cap)
        self.assertEqual(formats, {"n": "i"})
        self.assertEqual(cols, {"n": [1, None, 3]})
        self.assertEqual(cfile.arrow.live_streams(), self.live)  # released by the consumer
        del cap  # the destructor finds it moved out: nothing twice
        # A capsule never consumed is released when collected.
        with cfile.open(data) as r:
            cap = r.__arrow_c_stream__()
            self.assertEqual(cfile.arrow.live_streams(), self.live + 1)
            del cap
            gc.collect()
            self.assertEqual(cfile.arrow.live_streams(), self.live)
            sc = r.__arrow_c_schema__()
            s = cfile.arrow.schema_pointer(sc).contents
            self.assertEqual(s.format, b"+s")
            self.assertEqual(s.n_children, 1)
            self.assertEqual(s.children[0].contents.format, b"i")
            self.assertEqual(s.children[0].contents.name, b"value")
            with self.assertRaises(ValueError):
                cfile.arrow.stream_pointer(sc)
            with self.assertRaises(ValueError):
                r.__arrow_c_stream__(utf8="latin1")
            # requested_schema is accepted (and the offered schema kept).
            self.assertEqual(consume(r.__arrow_c_stream__(None))[1], {"value": [1, None, 3]})

    def test_batches_and_strings(self):
        vals = ["s%d" % i for i in range(5000)]
        with cfile.open(cfile.dumps(vals, "STRING", block_size=600)) as r:
            f, cols = consume(r.__arrow_c_stream__(batch_rows=333))
            self.assertEqual(f, {"value": "u"})
            self.assertEqual(cols["value"], vals)
            f, cols = consume(r.__arrow_c_stream__(utf8="binary"))
            self.assertEqual(f, {"value": "z"})
            self.assertEqual(cols["value"], [v.encode() for v in vals])

    def test_columns_side_by_side(self):
        with tempfile.TemporaryDirectory() as d:
            n = 3000
            cfile.write(os.path.join(d, "a.cfile"), list(range(n)), type="INT64", block_size=512)
            cfile.write(os.path.join(d, "b.cfile"), ["x%d" % i if i % 5 else None for i in range(n)],
                        type="STRING", block_size=700)
            cfile.write(os.path.join(d, "c.cfile"), list(range(n + 1)), type="INT64")
            cols = cfile.columns({"a": os.path.join(d, "a.cfile"), "b": os.path.join(d, "b.cfile")})
            f, got = consume(cols.__arrow_c_stream__(batch_rows=1000))
            self.assertEqual(f, {"a": "l", "b": "u"})
            self.assertEqual(got["a"], list(range(n)))
            self.assertEqual(got["b"], ["x%d" % i if i % 5 else None for i in range(n)])
            bad = cfile.columns([("a", os.path.join(d, "a.cfile")),
                                 ("c", os.path.join(d, "c.cfile"))])
            with self.assertRaises(cfile.CFileError) as cm:
                bad.__arrow_c_stream__()
            self.assertIn("same rows", str(cm.exception))

    def test_table_scan_stream(self):
        with tempfile.TemporaryDirectory() as d:
            t = cfile.table.create(os.path.join(d, "t"), "id INT64 KEY, name STRING NULL, "
                                   "tags INT32[] NULL, p DECIMAL64(10,2) NULL")
            for i in range(300):
                t.insert({"id": i, "name": None if i % 7 == 0 else "n%d" % i,
                          "tags": [i, None] if i % 2 else None, "p": i * 5})
                if i in (100, 200):
                    t.flush()
            snap = t.last_ts + 1
            t.update(5, {"name": "five"})
            t.delete(6)
            f, cols = consume(t.__arrow_c_stream__())
            self.assertEqual(f, {"id": "l", "name": "u", "tags": "+l", "p": "d:10,2"})
            rows = list(t.scan())
            self.assertEqual(len(cols["id"]), 299)
            for k in ("id", "name", "tags", "p"):
                self.assertEqual(cols[k], [r[k] for r in rows])
            sc = t.scan(columns=["name", "id"], where=[("id", ">=", 3), ("id", "<", 9)],
                        snapshot=snap)
            f, cols = consume(sc.__arrow_c_stream__())
            self.assertEqual(list(f), ["name", "id"])
            self.assertEqual(cols, {"name": ["n3", "n4", "n5", "n6", None, "n8"],
                                    "id": [3, 4, 5, 6, 7, 8]})
            # The stream's handle is its own: the writer goes on meanwhile.
            cap = sc.__arrow_c_stream__()
            t.insert({"id": 1000})
            self.assertEqual(consume(cap)[1]["id"], [3, 4, 5, 6, 7, 8])
            t.close()

    def test_hfile_stream(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "f.hfile")
            cells = [(b"r%03d" % i, b"f", b"q", 100 + i, "Put", b"\xff" * (i % 3)) for i in range(50)]
            cfile.hfile.write(p, cells)
            with cfile.hfile.open(p) as h:
                f, cols = consume(h.__arrow_c_stream__())
                self.assertEqual(f, {"row": "z", "family": "z", "qualifier": "z",
                                     "timestamp": "l", "type": "u", "value": "z"})
                self.assertEqual(list(zip(*[cols[k] for k in f])), cells)

    def test_parquet_stream(self):
        rows = [{"id": i, "name": None if i % 3 == 0 else "n\u00e9%d" % i,
                 "tags": None if i % 5 == 0 else [i, -i], "f": None if i % 7 == 0 else i / 4}
                for i in range(300)]
        schema = "id INT64, name STRING NULL, tags INT32[] NULL, f DOUBLE NULL"
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "f.parquet")
            cfile.parquet.write(p, rows, schema, row_group_rows=100)
            with cfile.parquet.open(p) as pq:
                cap = pq.__arrow_c_stream__(batch_rows=64)
                cfile.arrow.stream_pointer(cap)  # a capsule named "arrow_array_stream"
                f, cols = consume(cap)
                self.assertEqual(f, {"id": "l", "name": "u", "tags": "+l", "f": "g"})
                for k in f:
                    self.assertEqual(cols[k], [r[k] for r in rows], k)
                # Only some fields, in the order asked for.
                f, cols = consume(pq.select(["f", "id"]).__arrow_c_stream__())
                self.assertEqual(list(f), ["f", "id"])
                self.assertEqual(cols["id"], list(range(300)))
                scap = pq.__arrow_c_schema__()  # owns the schema: kept while it is read
                sch = cfile.arrow.schema_pointer(scap).contents
                self.assertEqual(sch.format, b"+s")
                self.assertEqual(sch.n_children, 4)
                self.assertEqual(sch.children[2].contents.name, b"tags")
                with self.assertRaises(KeyError):
                    pq.select(["nope"])
                cap = pq.__arrow_c_stream__()
            # The stream reads through a handle of its own: still good after close.
            self.assertEqual(consume(cap)[1]["id"], list(range(300)))
            # The file's bytes, not its path.
            with open(p, "rb") as fh:
                data = fh.read()
            with cfile.parquet.open(data) as pq:
                self.assertEqual(consume(pq.__arrow_c_stream__())[1]["name"],
                                 [r["name"] for r in rows])
        gc.collect()
        self.assertEqual(cfile.arrow.live_streams(), self.live)

    def test_parquet_stream_utf8_rule(self):
        # utf8="binary": STRING columns go out as Arrow binary, every byte kept.
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "f.parquet")
            cfile.parquet.write(p, [{"s": "ok"}, {"s": None}], "s STRING NULL")
            with cfile.parquet.open(p) as pq:
                f, cols = consume(pq.__arrow_c_stream__(utf8="binary"))
                self.assertEqual(f, {"s": "z"})
                self.assertEqual(cols["s"], [b"ok", None])


@unittest.skipUnless(DUCKDB, "libduckdb not installed (./test does)")
class DuckDBTest(unittest.TestCase):
    """The capsules' streams scanned by real DuckDB (libduckdb from npm, through
    ctypes: DuckDB's Python package is not in Debian), as duckdb.sql would."""

    def setUp(self):
        d = self.d = duckdb_lib()
        self.db, self.conn = ctypes.c_void_p(), ctypes.c_void_p()
        self.assertEqual(d.duckdb_open(None, ctypes.byref(self.db)), 0)
        self.assertEqual(d.duckdb_connect(self.db, ctypes.byref(self.conn)), 0)
        self.query("SET threads TO 1")

    def tearDown(self):
        self.d.duckdb_disconnect(ctypes.byref(self.conn))
        self.d.duckdb_close(ctypes.byref(self.db))

    def query(self, sql):
        return duckdb_query(self.d, self.conn, sql)

    def load(self, obj, table, **kw):
        """Scan obj.__arrow_c_stream__() into a DuckDB table, moving the stream out
        of the capsule as a consumer does (DuckDB then owns the scan; we release)."""
        cap = obj.__arrow_c_stream__(**kw)
        s = cfile.arrow.ArrowArrayStream()
        p = cfile.arrow.stream_pointer(cap)
        ctypes.memmove(ctypes.addressof(s), p, ctypes.sizeof(s))
        p.contents.release = None
        try:
            self.assertEqual(self.d.duckdb_arrow_scan(self.conn, b"v", ctypes.addressof(s)), 0)
            self.query("CREATE TABLE %s AS SELECT * FROM v" % table)
            self.query("DROP VIEW v")
        finally:
            ctypes.cast(s.release, cfile.arrow.STREAM_RELEASE)(ctypes.pointer(s))

    def test_table_and_reader(self):
        with tempfile.TemporaryDirectory() as d:
            t = cfile.table.create(os.path.join(d, "t"), "id INT64 KEY, g INT32 NULL, "
                                   "s STRING NULL, tags INT32[] NULL")
            for i in range(2000):
                t.insert([i, None if i % 9 == 0 else i % 7, "x%d" % i, [i, i] if i % 2 else None])
                if i % 700 == 699:
                    t.flush()
            t.delete(5)
            self.load(t.scan(where=[("id", "<", 1500)]), "t1", batch_rows=100)
            want = [r for r in t.scan(where=[("id", "<", 1500)])]
            got = self.query("SELECT count(*), sum(id), count(g), sum(g), "
                             "sum(length(s)), sum(len(tags)) FROM t1")[0]
            self.assertEqual(got, [len(want), sum(r["id"] for r in want),
                                   sum(r["g"] is not None for r in want),
                                   sum(r["g"] or 0 for r in want),
                                   sum(len(r["s"]) for r in want),
                                   sum(len(r["tags"]) for r in want if r["tags"])])
            t.close()
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "f.parquet")
            rows = [{"id": i, "s": None if i % 4 == 0 else "v%d" % i} for i in range(5000)]
            cfile.parquet.write(p, rows, "id INT64, s STRING NULL", row_group_rows=1000)
            with cfile.parquet.open(p) as pq:
                self.load(pq, "p1", batch_rows=700)
            self.assertEqual(self.query("SELECT count(*), sum(id), count(s), sum(length(s)) "
                                        "FROM p1"),
                             [[5000, sum(range(5000)), sum(r["s"] is not None for r in rows),
                               sum(len(r["s"]) for r in rows if r["s"])]])
        with cfile.open(cfile.dumps(list(range(-500, 500)), "INT16")) as r:
            self.load(r, "c1")
            self.assertEqual(self.query("SELECT count(*), sum(value), min(value) FROM c1"),
                             [[1000, -500, -500]])


@unittest.skipUnless(numpy is not None, "numpy not installed")
class NumpyTest(unittest.TestCase):
    def test_nullable_masked(self):
        vals = [None if i % 3 == 0 else i for i in range(1000)]
        with cfile.open(cfile.dumps(vals, "INT32", block_size=512)) as r:
            a = r.read_numpy()
            self.assertIsInstance(a, numpy.ma.MaskedArray)
            self.assertEqual(a.dtype, numpy.int32)
            self.assertEqual(a.mask.tolist(), [v is None for v in vals])
            self.assertEqual(a.tolist(), vals)
            self.assertEqual(r.read_numpy(10, 5).tolist(), vals[10:15])
            with self.assertRaises(TypeError):
                list(r.batches(64, numpy=True))

    def test_strings_object(self):
        vals = ["a", None, "\u00e9", "", "z" * 100]
        with cfile.open(cfile.dumps(vals, "STRING")) as r:
            a = r.read_numpy()
            self.assertEqual(a.dtype, object)
            self.assertEqual(a.tolist(), vals)
            self.assertEqual(a.mask.tolist(), [v is None for v in vals])
        with cfile.open(cfile.dumps([b"\x00", b"\xff"], "BINARY")) as r:
            a = r.read_numpy()
            self.assertNotIsInstance(a, numpy.ma.MaskedArray)
            self.assertEqual(a.tolist(), [b"\x00", b"\xff"])
        big = [-(1 << 100), 1 << 100]
        with cfile.open(cfile.dumps(big, "INT128")) as r:
            self.assertEqual(r.read_numpy().tolist(), big)


@unittest.skipUnless(pandas is not None, "pandas not installed")
class PandasTest(unittest.TestCase):
    def test_series(self):
        with cfile.open(cfile.dumps([1, None, 3], "INT64"), column_name="x") as r:
            s = r.to_pandas()
            self.assertEqual(s.name, "x")
            self.assertEqual(str(s.dtype), "Int64")
            self.assertEqual(s.isna().tolist(), [False, True, False])
            self.assertEqual(int(s[2]), 3)
        with cfile.open(cfile.dumps([1.5, None], "DOUBLE")) as r:
            s = r.to_pandas()
            self.assertEqual(s[0], 1.5)
            self.assertTrue(s.isna()[1])
        with cfile.open(cfile.dumps([True, None], "BOOL")) as r:
            self.assertEqual(str(r.to_pandas().dtype), "boolean")
        with cfile.open(cfile.dumps(["a", None], "STRING")) as r:
            self.assertEqual(r.to_pandas().tolist(), ["a", None])

    def test_table_frame(self):
        with tempfile.TemporaryDirectory() as d:
            t = cfile.table.create(os.path.join(d, "t"), "id INT32 KEY, v DOUBLE NULL")
            for i in range(10):
                t.insert([i, i / 2 if i % 2 else None])
            df = t.to_pandas()
            self.assertEqual(list(df.columns), ["id", "v"])
            self.assertEqual(df["id"].tolist(), list(range(10)))
            self.assertEqual(df["v"][3], 1.5)
            t.close()


if __name__ == "__main__":
    unittest.main()

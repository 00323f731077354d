"""cfile.kudu against the Kudu-written tablet-server layouts (../shared/kudu-fs):
blocks, tablets, WAL entries and scans equal the layouts' expected files, the Arrow
stream equals the scan, and nothing under the layouts changes (stdlib unittest)."""

import json
import math
import os
import struct
import sys
import unittest

# support first: it puts this checkout's cfile on sys.path
from support import DUCKDB, LAYOUTS, duckdb_lib, duckdb_query
import cfile  # noqa: E402
from arrow_consumer import consume  # noqa: E402

# the Kudu tests' tree snapshot (tests/kudu/tree_snapshot.py)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                                "kudu"))
from tree_snapshot import snapshot  # noqa: E402


def load(p):
    with open(p, encoding="utf-8") as f:
        return json.load(f)


def norm(v):
    """A value as the layouts' JSON holds it: floats compared as float32 (the layouts
    print FLOAT with nine significant digits), BINARY as hex."""
    if isinstance(v, float):
        if not math.isfinite(v) or abs(v) > 3.4e38:
            return v
        return struct.unpack("f", struct.pack("f", v))[0]
    if isinstance(v, bytes):
        return v.hex()
    return v


class ModulesTest(unittest.TestCase):
    def test_full_build_has_every_module(self):
        # The suite runs only against a build with every module (CMakeLists.txt);
        # has_module used to say False for all of them there.
        for m in ("hfile", "tables", "parquet"):
            self.assertTrue(cfile.has_module(m), m)


class KuduTest(unittest.TestCase):
    def layouts(self):
        for name in sorted(os.listdir(LAYOUTS)):
            ex = os.path.join(LAYOUTS, name, "expected")
            if os.path.isdir(ex):
                fsj = load(os.path.join(ex, "fs.json"))
                root = os.path.join(LAYOUTS, name)
                yield name, ex, fsj, cfile.kudu.open(
                    os.path.join(root, fsj["wal_root"]),
                    data_dirs=[os.path.join(root, d) for d in fsj["data_roots"]])

    def test_blocks_tablets_wal(self):
        seen = 0
        for name, ex, fsj, fs in self.layouts():
            with fs:
                seen += 1
                before = snapshot(os.path.join(LAYOUTS, name, "fs"))
                self.assertEqual(fs.uuid, fsj["fs_uuid"])
                self.assertEqual(fs.block_manager, fsj["block_manager"])
                self.assertFalse(fs.locked)
                self.assertEqual(fs.problems(), [])
                self.assertEqual(sorted(b["id"] for b in fs.blocks()),
                                 sorted(b["block_id"] for b in fsj["live_blocks"]))
                self.assertEqual(fs.tablets, [fsj["tablet_id"]])
                with fs.tablet(fsj["tablet_id"]) as t:
                    sb = load(os.path.join(ex, "superblock.json"))
                    self.assertEqual(t.table_name, sb["table_name"])
                    self.assertEqual(t.superblock["table_name"], sb["table_name"])
                    self.assertEqual(t.consensus["current_term"],
                                     load(os.path.join(ex, "consensus_meta.json"))["current_term"])
                    self.assertEqual([r["id"] for r in t.rowsets],
                                     [int(r["id"]) for r in sb["rowsets"]])
                    self.assertEqual([c["name"] for c in t.schema],
                                     [c["name"] for c in sb["schema"]["columns"]])
                with fs.wal(fsj["tablet_id"]) as w:
                    want = load(os.path.join(ex, "wal.json"))
                    segs = w.segments
                    self.assertEqual([s["file"] for s in segs], [s["file"] for s in want])
                    self.assertEqual([s["torn_tail"] for s in segs],
                                     [s["torn_tail"] for s in want])
                    self.assertEqual([s["footer"] is not None for s in segs],
                                     [s["has_footer"] for s in want])
                    entries = list(w.entries())
                    self.assertEqual(len(entries), sum(len(s["entries"]) for s in want))
                    ops_path = os.path.join(ex, "wal_ops.json")
                    if os.path.exists(ops_path):
                        want_ops = [e["ops"] for e in load(ops_path)["entries"]
                                    if e.get("ops") is not None]
                        got_ops = [e["ops"] for e in entries if "ops" in e]
                        self.assertEqual(len(got_ops), len(want_ops))
                        for g, x in zip(got_ops, want_ops):
                            self.assertEqual([o["op"] for o in g], [o["op"] for o in x])
                            self.assertEqual([{k: norm(v) for k, v in o["row"].items()} for o in g],
                                             [{k: norm(v) for k, v in o["row"].items()}
                                              for o in x])
                self.assertEqual(snapshot(os.path.join(LAYOUTS, name, "fs")), before)
        self.assertEqual(seen, 4)

    def test_scans(self):
        for name, ex, fsj, fs in self.layouts():
            with fs, fs.tablet(fsj["tablet_id"]) as t:
                for kw, exp in (({}, "tablet_latest.json"), ({"wal": False}, "tablet_flushed.json"),
                                (None, "tablet_as_of.json")):
                    want = load(os.path.join(ex, exp))
                    if kw is None:
                        kw = {"as_of": want["as_of"]}
                    rows = t.scan(**kw).to_list()
                    self.assertEqual(len(rows), want["num_rows"], (name, exp))
                    keys = [c["name"] for c in want["schema"] if c["key"]]
                    self.assertEqual([[r[k] for k in keys] for r in rows],
                                     [[r[k] for k in keys] for r in want["rows"]], (name, exp))
                    # Every value of the first non-key column.
                    col = [c["name"] for c in want["schema"] if not c["key"]][0]
                    self.assertEqual([norm(r[col]) for r in rows],
                                     [norm(r[col]) for r in want["rows"]], (name, exp))
                # Projection and a predicate, and the Arrow stream of the same scan.
                key = t.columns[0]
                sc = t.scan(columns=[key], where=[(key, "is not null")], batch_rows=7)
                got = [r[key] for r in sc]
                self.assertEqual(len(got), load(os.path.join(ex, "tablet_latest.json"))["num_rows"])
                fmts, cols = consume(sc.__arrow_c_stream__())
                self.assertEqual(cols[key], got)

    def test_errors(self):
        with self.assertRaises(cfile.CFileError) as cm:
            cfile.kudu.open("/nonexistent-kudu-root")
        self.assertNotEqual(cm.exception.status, cfile.OK)
        for name, ex, fsj, fs in self.layouts():
            with fs:
                with self.assertRaises(cfile.CFileError) as cm:
                    fs.tablet("0" * 32)
                self.assertEqual(cm.exception.status, cfile.ENOTFOUND)
                # A snapshot before the ancient history mark: with no history kept
                # past the tablet's latest timestamp, the as_of scan is refused.
                with fs.tablet(fsj["tablet_id"]) as t:
                    as_of = load(os.path.join(ex, "tablet_as_of.json"))["as_of"]
                    with self.assertRaises(cfile.CFileError) as cm:
                        t.scan(as_of=as_of, history_max_age_sec=0).to_list()
                    self.assertEqual(cm.exception.status, cfile.EINVAL)
                    self.assertIn("ancient history mark", str(cm.exception))
                    self.assertTrue(t.scan(as_of=as_of, history_max_age_sec=-1).to_list())
            break


def duck_query(sql):
    """Rows of int64 values of one query in a fresh in-memory DuckDB (libduckdb from
    npm through ctypes: support.duckdb_lib)."""
    import ctypes
    d = duckdb_lib()
    db, conn = ctypes.c_void_p(), ctypes.c_void_p()
    assert d.duckdb_open(None, ctypes.byref(db)) == 0
    assert d.duckdb_connect(db, ctypes.byref(conn)) == 0
    try:
        return duckdb_query(d, conn, sql)
    finally:
        d.duckdb_disconnect(ctypes.byref(conn))
        d.duckdb_close(ctypes.byref(db))


class KuduTableTest(unittest.TestCase):
    """cfile.kudu.open_table / export: a table's replicas across several servers
    (copies of the layouts in a temporary directory), deduplicated by tablet id,
    the most recent taken, as `cfile convert --kudu-table` (tests/kudu/test_replica.c
    builds the multi-tablet and damaged cases with the library's writers)."""

    def setUp(self):
        import tempfile
        self.tmp = tempfile.mkdtemp(prefix="cf-kudu-table-")

    def tearDown(self):
        import shutil
        shutil.rmtree(self.tmp, ignore_errors=True)

    def server(self, name, layout):
        """A copy of layout's fs/ as server `name`: open_table's dict for it."""
        import shutil
        root = os.path.join(self.tmp, name)
        shutil.copytree(os.path.join(LAYOUTS, layout, "fs"), root, symlinks=True)
        fsj = load(os.path.join(LAYOUTS, layout, "expected", "fs.json"))
        strip = lambda d: os.path.join(root, d[len("fs/"):])  # noqa: E731
        return {"wal_dir": strip(fsj["wal_root"]),
                "data_dirs": [strip(d) for d in fsj["data_roots"]]}, fsj

    def test_newer_replica_taken(self):
        if not os.path.isdir(os.path.join(LAYOUTS, "lbm-basic-s1")):
            self.skipTest("no layouts")
        a, fsj = self.server("s0", "lbm-basic-s1")
        b, _ = self.server("s1", "lbm-basic-s1")
        # s0's replica is older: its WAL's last segment is gone.
        os.unlink(os.path.join(a["wal_dir"], "wals", fsj["tablet_id"], "wal-000000006"))
        before = snapshot(self.tmp)
        want = load(os.path.join(LAYOUTS, "lbm-basic-s1", "expected", "tablet_latest.json"))
        for servers, chosen in (([a, b], 1), ([b, a], 0)):
            with cfile.kudu.open_table(servers, "kudu_fsgen_table") as t:
                reps = t.replicas
                self.assertEqual(len(reps), 2)
                self.assertEqual([r["server"] for r in reps if r["chosen"]], [chosen])
                self.assertEqual(len(t.tablets), 1)
                self.assertEqual(t.tablets[0].id, fsj["tablet_id"])
                other = [r for r in reps if not r["chosen"]][0]
                self.assertLess(other["last_op_id"], reps[chosen]["last_op_id"])
                rows = t.scan().to_list()
                self.assertEqual(len(rows), want["num_rows"])
                for g, w in zip(rows, want["rows"]):
                    self.assertEqual(g["id"], w["id"])
                    self.assertEqual(norm(g["c_flt"]), norm(w["c_flt"]))
                    self.assertEqual(norm(g["c_bin"]), w["c_bin"])
            # The Arrow stream of the table: the same rows.
            with cfile.kudu.open_table([a, b], "kudu_fsgen_table") as t:
                fmts, cols = consume(t.scan(columns=["id", "c_i32"]).__arrow_c_stream__())
                self.assertEqual(cols["id"], [r["id"] for r in want["rows"]])
                self.assertEqual(cols["c_i32"], [r["c_i32"] for r in want["rows"]])
        # export: one Parquet file, read back.
        out = os.path.join(self.tmp, "out.parquet")
        summary = cfile.kudu.export([a, b], out, name="kudu_fsgen_table")
        self.assertEqual(summary["rows"], want["num_rows"])
        self.assertEqual(summary["tablets"], 1)
        with cfile.parquet.open(out) as pq:
            got = list(pq.rows(columns=["id", "c_str"]))
        self.assertEqual([r["id"] for r in got], [r["id"] for r in want["rows"]])
        self.assertEqual([r["c_str"] for r in got], [r["c_str"] for r in want["rows"]])
        if DUCKDB:
            # DuckDB reads the same file: row count and sums of an integer column.
            got = duck_query("SELECT count(*), sum(id), count(c_i32), sum(c_i8) FROM "
                             "read_parquet('%s')" % out)
            rows = want["rows"]
            self.assertEqual(got, [[len(rows), sum(r["id"] for r in rows),
                                    sum(1 for r in rows if r["c_i32"] is not None),
                                    sum(r["c_i8"] for r in rows)]])
        os.unlink(out)
        self.assertEqual(snapshot(self.tmp), before)

    def test_refusals(self):
        if not os.path.isdir(os.path.join(LAYOUTS, "lbm-onedir-s3")):
            self.skipTest("no layouts")
        a, fa = self.server("s0", "lbm-basic-s1")
        b, fb = self.server("s1", "lbm-onedir-s3")
        # Two tables named kudu_fsgen_table: refused; each by its id.
        with self.assertRaises(cfile.CFileError) as cm:
            cfile.kudu.open_table([a, b], "kudu_fsgen_table")
        self.assertIn("several tables", str(cm.exception))
        fs = cfile.kudu.open(b["wal_dir"], data_dirs=b["data_dirs"])
        with fs, fs.tablet(fb["tablet_id"]) as t1:
            tid = t1.table_id
        with cfile.kudu.open_table([a, b], table_id=tid) as t:
            self.assertEqual([x.id for x in t.tablets], [fb["tablet_id"]])
            self.assertEqual(sum(1 for _ in t), 5572)
        with cfile.kudu.open_table([a, b], tablet_id=fa["tablet_id"]) as t:
            self.assertEqual(len(t.tablets), 1)
        with self.assertRaises(cfile.CFileError) as cm:
            cfile.kudu.open_table([a, b], "no_such_table")
        self.assertEqual(cm.exception.status, cfile.ENOTFOUND)


if __name__ == "__main__":
    unittest.main()

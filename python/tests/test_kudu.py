"""cfile.kudu against the Kudu-written tablet-server layouts (../shared/kudu-fs):
blocks, tablets, WAL entries and scans equal the layouts' expected files, the Arrow
stream equals the scan, and nothing under the layouts changes (stdlib unittest)."""

import hashlib
import json
import math
import os
import struct
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import cfile  # noqa: E402
from arrow_consumer import consume  # noqa: E402

SHARED = os.environ.get("CF_SHARED_DIR") or os.path.normpath(os.path.join(HERE, "..", "..", "..",
                                                                          "shared"))
LAYOUTS = os.path.join(SHARED, "kudu-fs")


def load(p):
    with open(p, encoding="utf-8") as f:
        return json.load(f)


def snapshot(d):
    out = {}
    for dp, dns, fns in os.walk(d):
        for n in dns + fns:
            p = os.path.join(dp, n)
            st = os.lstat(p)
            h = None
            if os.path.isfile(p) and not os.path.islink(p):
                with open(p, "rb") as f:
                    h = hashlib.sha256(f.read()).hexdigest()
            out[p] = (st.st_size, st.st_mode, st.st_mtime_ns, h)
    return out


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
            break


if __name__ == "__main__":
    unittest.main()

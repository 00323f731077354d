"""The binding never crashes and never bricks a table (issue 30 item 9): closing a
handle while an iterator over it runs, several threads on one table handle, and
Arrow streams left unconsumed at interpreter exit (stdlib unittest).

Each case fails with a crash (or, under ASan, a report) without the rule it checks:
_lib.Handle (leases, one lock per handle), the table's mutex in the library
(src/rowset/table_guard.c) and the Arrow callbacks that outlive module teardown.
Under ASan (CI's sanitizer build: LD_PRELOAD of the runtime, CMakeLists.txt) the
subprocesses inherit the environment and so run under it too."""

import os
import subprocess
import sys
import tempfile
import threading
import unittest

# support first: it puts this checkout's cfile on sys.path
from support import HERE, LAYOUTS
import cfile  # noqa: E402
import cfile.delta  # noqa: E402
import cfile.hfile  # noqa: E402
import cfile.kudu  # noqa: E402
import cfile.parquet  # noqa: E402
import cfile.table  # noqa: E402

SCHEMA = "id INT64 KEY, name STRING NULL"


def make_table(path, n):
    t = cfile.table.create(path, SCHEMA, sync="none")
    for i in range(n):
        t.insert({"id": i, "name": "row %d" % i})
    return t


class CloseWhileIterating(unittest.TestCase):
    """Each handle: one step of an iterator, close(), then iterating on raises
    ValueError (after the rest of a batch already read: each iterator spans
    several) and frees the iterator, then the handle (no crash, no leak)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def check(self, handle, it, first):
        self.assertEqual(next(it), first)
        handle.close()
        self.assertTrue(handle.closed)
        with self.assertRaises(ValueError) as cm:
            for _ in it:
                pass
        self.assertIn("was closed", str(cm.exception))
        self.assertEqual(handle._h.leases, 0)
        with self.assertRaises(StopIteration):  # the generator ended with the error
            next(it)
        handle.close()  # idempotent

    def test_table_scan(self):
        t = make_table(self.path("t"), 3000)
        self.check(t, iter(t.scan(batch_rows=100)), {"id": 0, "name": "row 0"})
        t = cfile.table.open(self.path("t"))  # the log was synced: every row is there
        self.assertEqual(len(t.scan().to_list()), 3000)
        t.close()

    def test_table_scan_abandoned(self):
        # An iterator never resumed: the handle goes when the iterator is collected.
        t = make_table(self.path("t"), 10)
        it = iter(t.scan())
        next(it)
        t.close()
        self.assertEqual(t._h.leases, 1)
        del it
        self.assertEqual(t._h.leases, 0)
        t = cfile.table.open(self.path("t"))  # the writer lock was let go
        t.close()

    def test_parquet(self):
        p = self.path("x.parquet")
        cfile.parquet.write(p, [{"id": i, "name": "n%d" % i} for i in range(5000)],
                            "id INT64, name STRING NULL")
        pq = cfile.parquet.open(p)
        self.check(pq, pq.rows(batch_rows=100), {"id": 0, "name": "n0"})
        with open(p, "rb") as f:
            pq = cfile.parquet.open(f.read())  # in memory: the bytes stay with the handle
        self.check(pq, pq.rows(batch_rows=100), {"id": 0, "name": "n0"})

    def test_hfile(self):
        p = self.path("x.hfile")
        cells = [(b"r%05d" % i, b"f", b"q", 1, "Put", b"v%d" % i) for i in range(3000)]
        cfile.hfile.write(p, cells, block_size=512)
        h = cfile.hfile.open(p)
        self.check(h, h.cells(), h.get(b"r00000")[0])

    def test_cfile_reader(self):
        r = cfile.open(cfile.dumps(list(range(5000)), "INT32", block_size=512))
        self.check(r, r.batches(100), list(range(100)))

    def test_delta(self):
        p = self.path("x.delta")
        cfile.delta.write(p, [(i, 5, "UPDATE", {1: b"x"}) for i in range(3000)])
        d = cfile.delta.open(p)
        self.check(d, d.deltas(), next(iter(cfile.delta.open(p))))

    @unittest.skipUnless(os.path.isdir(LAYOUTS), "no ../shared/kudu-fs")
    def test_kudu_tablet_and_fs(self):
        import json
        name = sorted(n for n in os.listdir(LAYOUTS)
                      if os.path.isdir(os.path.join(LAYOUTS, n, "expected")))[0]
        root = os.path.join(LAYOUTS, name)
        with open(os.path.join(root, "expected", "fs.json"), encoding="utf-8") as f:
            fsj = json.load(f)

        def fs():
            return cfile.kudu.open(os.path.join(root, fsj["wal_root"]),
                                   data_dirs=[os.path.join(root, d) for d in fsj["data_roots"]])

        f = fs()
        t = f.tablet(fsj["tablet_id"])
        first = next(iter(t.scan()))
        self.check(t, iter(t.scan(batch_rows=1)), first)
        # The fs closed under a live tablet scan: the scan raises, the C fs waits.
        f = fs()
        t = f.tablet(fsj["tablet_id"])
        it = iter(t.scan(batch_rows=1))
        self.assertEqual(next(it), first)
        f.close()
        with self.assertRaises(ValueError):
            t.id
        with self.assertRaises(ValueError):
            next(it)
        t.close()
        self.assertEqual(f._h.leases, 0)
        # The WAL's entries, and a table across servers.
        f = fs()
        w = f.wal(fsj["tablet_id"])
        e0 = next(iter(w.entries()))
        self.check(w, w.entries(), e0)
        kt = cfile.kudu.open_table([f], tablet_id=fsj["tablet_id"])
        self.check(kt, iter(kt.scan(batch_rows=1)), first)
        f.close()


class Threads(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.dir = os.path.join(self.tmp.name, "t")

    def run_threads(self, n, fn):
        errors = []

        def wrap(i):
            try:
                fn(i)
            except BaseException as e:  # noqa: B902  (reported below)
                errors.append((i, e))

        ths = [threading.Thread(target=wrap, args=(i,)) for i in range(n)]
        for th in ths:
            th.start()
        for th in ths:
            th.join()
        return errors

    def test_inserts_from_eight_threads(self):
        per = 150
        for sync in ("commit", "group"):
            with self.subTest(sync=sync):
                d = self.dir + sync
                t = make_table(d, 0)
                t.close()
                t = cfile.table.open(d, sync=sync)

                def insert(i):
                    for k in range(per):
                        key = i * per + k
                        t.insert({"id": key, "name": "row %d" % key})

                errors = self.run_threads(8, insert)
                self.assertEqual(errors, [])
                rows = t.scan().to_list()
                self.assertEqual(rows, [{"id": k, "name": "row %d" % k} for k in range(8 * per)])
                t.close()
                # The log the threads left replays: the table opens with every row.
                t = cfile.table.open(d)
                self.assertEqual(len(t.scan().to_list()), 8 * per)
                self.assertEqual(t.get(8 * per - 1), {"id": 8 * per - 1,
                                                       "name": "row %d" % (8 * per - 1)})
                t.close()

    def test_mixed_ops_and_scans(self):
        # Writers insert, update and flush while others scan and get: every call
        # either works or raises CFileError ESTATE (a scan overtaken by a change),
        # and the table reopens consistent.
        t = make_table(self.dir, 400)
        t.close()
        t = cfile.table.open(self.dir, sync="group")
        refused = []

        def work(i):
            for k in range(60):
                key = (i * 60 + k) % 400
                try:
                    if i % 4 == 0:
                        t.update(key, {"name": "u%d" % i})
                    elif i % 4 == 1:
                        t.insert({"id": 1000 + i * 60 + k, "name": "new"})
                    elif i % 4 == 2:
                        t.scan(batch_rows=16).to_list()
                        t.get(key)
                    elif k % 20 == 0:
                        t.flush()
                    else:
                        t.get(key)
                except cfile.CFileError as e:
                    self.assertEqual(e.status, cfile.ESTATE, str(e))
                    refused.append(e.status)

        self.assertEqual(self.run_threads(8, work), [])
        n = len(t.scan().to_list())
        self.assertEqual(n, 400 + 2 * 60)  # threads 1 and 5 inserted 60 rows each
        t.close()
        t = cfile.table.open(self.dir)
        self.assertEqual(len(t.scan().to_list()), n)
        t.close()

    def test_close_racing_calls(self):
        # close() in one thread while others call: each call works or raises
        # ValueError (closed); none touches a freed handle.
        t = make_table(self.dir, 50)

        def work(i):
            for k in range(200):
                try:
                    if i == 0 and k == 50:
                        t.close()
                    elif i % 2:
                        t.get(k % 50)
                    else:
                        next(iter(t.scan()))
                except ValueError:
                    pass

        self.assertEqual(self.run_threads(6, work), [])
        self.assertTrue(t.closed)
        t = cfile.table.open(self.dir)
        self.assertEqual(len(t.scan().to_list()), 50)
        t.close()


# Streams left alive at exit: in a reference cycle (freed by the last collection,
# after the modules are cleared), in a module global, half consumed.
EXIT_SCRIPT = r"""
import ctypes, gc, sys
sys.path.insert(0, %(pkg)r)
import cfile, cfile.table, cfile.parquet, cfile.hfile
from cfile import arrow as A
d = %(dir)r
t = cfile.table.create(d + "/t", "id INT64 KEY, name STRING NULL")
for i in range(300):
    t.insert({"id": i, "name": "x%%d" %% i})
cfile.parquet.write(d + "/p.parquet", [{"a": i} for i in range(300)], "a INT64")
cfile.hfile.write(d + "/h.hfile", [(b"r%%04d" %% i, b"f", b"q", 1, "Put", b"v") for i in range(300)])
pq = cfile.parquet.open(d + "/p.parquet")
h = cfile.hfile.open(d + "/h.hfile")
mode = sys.argv[1]
if mode == "cycle":
    class Holder:
        pass
    x = Holder()
    x.self = x
    x.caps = [t.scan().__arrow_c_stream__(), pq.__arrow_c_stream__(), h.__arrow_c_stream__()]
    x.t = t
elif mode == "global":
    caps = [t.scan().__arrow_c_stream__(), pq.__arrow_c_stream__(), h.__arrow_c_stream__()]
    cfile.table.left_here = t.scan().__arrow_c_stream__()
elif mode == "half":
    cap = t.scan().__arrow_c_stream__(batch_rows=10)
    p = A.stream_pointer(cap)
    arr = A.ArrowArray()
    assert ctypes.cast(p.contents.get_next, A.GET_NEXT)(p, ctypes.byref(arr)) == 0
    assert arr.length == 10
    ctypes.cast(arr.release, A.ARRAY_RELEASE)(ctypes.byref(arr))
    t.close()
    del t
    gc.collect()
elif mode == "closed":
    cap = t.scan().__arrow_c_stream__()
    t.close()
    pq.close()
print("ok")
"""


class StreamsAtExit(unittest.TestCase):
    def test_unconsumed_streams_at_exit(self):
        for mode in ("cycle", "global", "half", "closed"):
            with self.subTest(mode=mode), tempfile.TemporaryDirectory() as d:
                code = EXIT_SCRIPT % {"pkg": os.path.dirname(HERE), "dir": d}
                out = subprocess.run([sys.executable, "-c", code, mode], capture_output=True,
                                     text=True, timeout=120)
                self.assertEqual(out.returncode, 0, out.stderr[-3000:])
                self.assertEqual(out.stdout, "ok\n")
                self.assertNotIn("Sanitizer", out.stderr)
                self.assertNotIn("Exception ignored", out.stderr)
                # the table the stream read opens again (no lock left, log intact)
                t = cfile.table.open(os.path.join(d, "t"))
                self.assertEqual(len(t.scan().to_list()), 300)
                t.close()


if __name__ == "__main__":
    unittest.main()

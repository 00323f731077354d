"""A libcfile built without some modules (-DCF_WITH_HFILE=OFF, ...): the package
still imports, says which modules it has, and a call into a missing one raises
CFileError(ENOTSUP) naming the option. Run by ctest as python/modules in such a
build, with CFILE_LIB set and the modules left out as argv[1] ("HFILE;PARQUET").
Not a unittest module (test_*.py): the full suite runs only where all are built."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import cfile  # noqa: E402

off = set(sys.argv[1].split(";")) if len(sys.argv) > 1 else set()
calls = {
    "HFILE": ("hfile", lambda d: cfile.hfile.open(os.path.join(d, "x.hfile"))),
    "PARQUET": ("parquet", lambda d: cfile.parquet.open(os.path.join(d, "x.parquet"))),
    "TABLES": ("tables", lambda d: cfile.table.open(os.path.join(d, "t"))),
}
failures = 0
with tempfile.TemporaryDirectory() as d:
    for m, (name, call) in calls.items():
        if cfile.has_module(name) != (m not in off):
            print("FAIL: has_module(%r) is %s" % (name, cfile.has_module(name)))
            failures += 1
        try:
            call(d)
        except cfile.CFileError as e:
            missing = m in off
            if missing and (e.status != cfile.ENOTSUP or "CF_WITH_" + m not in str(e)):
                print("FAIL: %s: %r, want ENOTSUP naming CF_WITH_%s" % (name, e, m))
                failures += 1
            elif not missing and e.status == cfile.ENOTSUP:
                print("FAIL: %s is built but raised %r" % (name, e))
                failures += 1
        else:
            print("FAIL: %s: opening a missing file succeeded" % name)
            failures += 1
    # The core works as ever.
    p = os.path.join(d, "c.cfile")
    cfile.write(p, [1, 2, 3], type="INT32")
    with cfile.open(p) as r:
        if r.read() != [1, 2, 3]:
            print("FAIL: CFile round trip")
            failures += 1
print("modules_test: %s (left out: %s)" % ("FAIL" if failures else "ok", " ".join(sorted(off))))
sys.exit(1 if failures else 0)

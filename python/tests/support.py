"""What the Python tests share: the package of this checkout first on sys.path (so
`import cfile` tests these sources, not an installed copy), this folder on it too (for
arrow_consumer), and where the shared test data is: CF_SHARED_DIR, by default
../../../shared (the repository's sibling `shared`). Import it before cfile."""
import ctypes
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

SHARED = os.environ.get("CF_SHARED_DIR") or os.path.normpath(os.path.join(HERE, "..", "..", "..",
                                                                          "shared"))
GOLDEN = os.path.join(SHARED, "golden")
LAYOUTS = os.path.join(SHARED, "kudu-fs")

# libduckdb from npm (./test installs it), driven through ctypes: DuckDB's Python
# package is not in Debian. None when not installed.
DUCKDB = os.environ.get("CF_DUCKDB_LIB")
if DUCKDB and not os.path.exists(DUCKDB):
    DUCKDB = None


class DuckResult(ctypes.Structure):
    _fields_ = [("column_count", ctypes.c_uint64), ("row_count", ctypes.c_uint64),
                ("rows_changed", ctypes.c_uint64), ("columns", ctypes.c_void_p),
                ("error", ctypes.c_char_p), ("internal", ctypes.c_void_p)]


def duckdb_lib():
    """libduckdb (DUCKDB) with the prototypes of the calls the tests make."""
    d = ctypes.CDLL(DUCKDB)
    P, PP, R = ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(DuckResult)
    for name, res, args in [
            ("duckdb_open", ctypes.c_int, [ctypes.c_char_p, PP]),
            ("duckdb_connect", ctypes.c_int, [P, PP]),
            ("duckdb_disconnect", None, [PP]), ("duckdb_close", None, [PP]),
            ("duckdb_query", ctypes.c_int, [P, ctypes.c_char_p, R]),
            ("duckdb_result_error", ctypes.c_char_p, [R]),
            ("duckdb_destroy_result", None, [R]),
            ("duckdb_value_int64", ctypes.c_int64, [R, ctypes.c_uint64, ctypes.c_uint64]),
            ("duckdb_row_count", ctypes.c_uint64, [R]),
            ("duckdb_column_count", ctypes.c_uint64, [R]),
            ("duckdb_arrow_scan", ctypes.c_int, [P, ctypes.c_char_p, P])]:
        getattr(d, name).restype = res
        getattr(d, name).argtypes = args
    return d


def duckdb_query(d, conn, sql):
    """Rows of int64 values of one query on connection conn of library d
    (duckdb_lib); RuntimeError with DuckDB's message when it fails."""
    r = DuckResult()
    if d.duckdb_query(conn, sql.encode(), ctypes.byref(r)) != 0:
        msg = d.duckdb_result_error(ctypes.byref(r))
        d.duckdb_destroy_result(ctypes.byref(r))
        raise RuntimeError(msg.decode() if msg else sql)
    ncols = d.duckdb_column_count(ctypes.byref(r))
    vals = [[d.duckdb_value_int64(ctypes.byref(r), c, i) for c in range(ncols)]
            for i in range(d.duckdb_row_count(ctypes.byref(r)))]
    d.duckdb_destroy_result(ctypes.byref(r))
    return vals

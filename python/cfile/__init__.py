"""cfile: read and write Apache Kudu CFiles from Python (standard library only).

A thin ctypes binding over libcfile.so. The library is found through the
CFILE_LIB environment variable, else <repo>/build/libcfile.so next to this
package, else ctypes.util.find_library("cfile").

    import cfile
    with cfile.open("col.cfile") as r:
        print(r.info["type"], r.num_values)
        rows = r.read()                 # every row, as Python values
        some = r.read(start=100, count=10)
        hit = r.seek(42)                # (ordinal, exact) or None (value index)
        for batch in r.batches(4096):   # lists of up to 4096 rows
            ...
    cfile.write("out.cfile", [1, None, 3], type="INT32", encoding="bit_shuffle",
                compression="lz4")      # nullable inferred from the None

Value forms (reading; writing accepts the same):
  INT8..INT64, UINT8..UINT64, INT128   int
  FLOAT, DOUBLE                        float (FLOAT widened from float32 exactly)
  BOOL                                 bool
  STRING, VARCHAR                      str; bytes when the stored bytes are not
                                       valid UTF-8 (writing accepts str or bytes)
  BINARY                               bytes
  DECIMAL32/64/128                     int, the unscaled value: a CFile does not
                                       record the scale. With open(..., scale=s):
                                       decimal.Decimal (writing: Writer(scale=s)
                                       accepts Decimals)
  UNIXTIME_MICROS                      int microseconds since the epoch;
                                       open(..., timestamps="datetime"): aware UTC
                                       datetime (writing accepts datetimes; naive
                                       ones are taken as UTC)
  DATE                                 int days since 1970-01-01; open(...,
                                       dates="date"): datetime.date
  NULL                                 None
  array columns                        a list of elements (elements may be None)

numpy (optional, never required): Reader.read_numpy() / read(numpy=True) return
one numpy array for any non-array column: fixed-width types in their raw forms
(one copy per batch into a preallocated array), STRING/VARCHAR/BINARY/INT128/
DECIMAL128 as object arrays, and a numpy.ma.MaskedArray (mask True = NULL) for
nullable columns. pandas (optional): Reader.to_pandas() is a Series (nullable
integer dtypes for nullable ints), Table/Scan.to_pandas() a DataFrame.

Arrow: readers, cfile.columns({...}) (CFiles side by side), tables and their
scans, HFiles and Parquet files (and their select([...]) of fields) implement the
Arrow PyCapsule interface (__arrow_c_stream__, __arrow_c_schema__), so pyarrow,
polars and DuckDB read them directly; see cfile.arrow.

Other formats: cfile.table (tables: scan/get/insert/update/delete), cfile.kudu
(a stopped Kudu server's directories: blocks, tablets, WAL, rows), cfile.hfile
(HBase HFiles), cfile.bloom (BloomFile probes), cfile.delta (DeltaFiles),
cfile.parquet (Parquet: rows, Arrow streams, and writing).

A libcfile built without a module (cmake -DCF_WITH_HFILE=OFF, CF_WITH_TABLES,
CF_WITH_PARQUET) still imports every submodule; a call into the missing one
raises CFileError(ENOTSUP, ...) naming the option. has_module("hfile"|"tables"|
"parquet") says which the loaded library has.

Errors from the library raise CFileError(status, message); .status is the
cf_status code (cfile.ECORRUPT, cfile.EIO, ...). Readers and writers free their
library objects on close() / leaving a `with` block (and, as a safety net, when
garbage collected).
"""

from ._lib import (CFileError, EBUFSIZE, EBUSY, ECORRUPT, EINVAL, EIO, ENOMEM, ENOTFOUND, ENOTSUP,
                   ESTATE, OK)
from ._lib import has_module
from . import arrow, bloom, delta, hfile, kudu, parquet, table
from .reader import Columns, Reader, columns, open
from .writer import Writer, dumps, write

__all__ = [
    "open", "write", "dumps", "Reader", "Writer", "CFileError", "columns", "Columns", "arrow",
    "bloom", "delta", "hfile", "kudu", "parquet", "table", "has_module",
    "OK", "EINVAL", "ESTATE", "ECORRUPT", "ENOTSUP", "EIO", "ENOMEM", "ENOTFOUND", "EBUFSIZE",
    "EBUSY",
]

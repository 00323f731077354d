"""Reading and writing Apache Parquet files (include/cfile/parquet.h: record
assembly, writer).

    with cfile.parquet.open("f.parquet") as pq:
        pq.num_rows, pq.columns
        for row in pq.rows(columns=["a", "b"]):   # dicts, in file order
            ...
        pq.to_pandas()
    cfile.parquet.write("out.parquet", rows, "id INT64, name STRING NULL, tags INT32[] NULL")

Values: BOOLEAN bool; INT32/INT64 int (unsigned annotations as unsigned); FLOAT,
DOUBLE, FLOAT16 float; STRING/ENUM/JSON str (bytes when not UTF-8); other byte
arrays bytes; DECIMAL decimal.Decimal; DATE datetime.date (int days when outside
Python's years 1..9999); TIME and TIMESTAMP int counts of the schema's unit
(TIMESTAMP since the epoch, no zone shift); INT96 int microseconds since the epoch;
UUID uuid.UUID; lists list; maps a list of (key, value) pairs; groups dict; NULL None.
Lists and maps in legacy layouts are read as DuckDB reads them.

Arrow: a ParquetFile is an Arrow stream source (the PyCapsule interface,
cfile.arrow): pq.__arrow_c_stream__() gives record batches with one child per
top-level field (nested fields as struct, list and map), as the library's
cf_arrow_stream_parquet exports them; pq.select(["a", "b"]) is a source of only
those fields. Each stream reads through a handle of its own.
"""

import ctypes
import datetime
import decimal
import struct
import uuid

from . import _lib
from . import arrow as _arrow
from ._lib import CSlice
from ._lib import _E, _P, _PP


BOOLEAN, INT32, INT64, INT96, FLOAT, DOUBLE, BYTE_ARRAY, FIXED = range(8)
LT_STRING, LT_ENUM, LT_DECIMAL, LT_DATE, LT_INTEGER, LT_JSON, LT_UUID, LT_FLOAT16 = (
    1, 4, 5, 6, 10, 12, 14, 15)
STRUCT, LIST, MAP = 1, 2, 3


class CLogical(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_uint32), ("scale", ctypes.c_int32),
                ("precision", ctypes.c_int32), ("unit", ctypes.c_uint32), ("utc", ctypes.c_bool),
                ("bit_width", ctypes.c_int32), ("is_signed", ctypes.c_bool),
                ("has_crs", ctypes.c_bool), ("crs", CSlice)]


class CElement(ctypes.Structure):
    _fields_ = [("name", CSlice)] + [(n, ctypes.c_bool) for n in (
        "has_type", "has_type_length", "has_repetition", "has_num_children",
        "has_converted_type", "has_scale", "has_precision", "has_field_id")] + [
        (n, ctypes.c_int32) for n in ("type", "type_length", "repetition", "num_children",
                                      "converted_type", "scale", "precision", "field_id")] + [
        ("logical", CLogical)]


class CNode(ctypes.Structure):
    pass


CNode._fields_ = [
    ("element", ctypes.POINTER(CElement)), ("index", ctypes.c_uint32),
    ("parent", ctypes.POINTER(CNode)), ("child_count", ctypes.c_uint32),
    ("children", ctypes.POINTER(ctypes.POINTER(CNode))), ("depth", ctypes.c_uint32),
    ("max_def", ctypes.c_uint16), ("max_rep", ctypes.c_uint16), ("column", ctypes.c_int32),
    ("repetition", ctypes.c_int32), ("logical", CLogical),
]


class CArray(ctypes.Structure):
    pass


CArray._fields_ = [
    ("kind", ctypes.c_uint32), ("name", CSlice), ("node", ctypes.POINTER(CNode)),
    ("leaf", ctypes.POINTER(CNode)), ("column", ctypes.c_int32), ("length", ctypes.c_size_t),
    ("null_count", ctypes.c_size_t), ("validity", ctypes.c_void_p),
    ("offsets", ctypes.c_void_p), ("values", ctypes.c_void_p), ("value_size", ctypes.c_size_t),
    ("child_count", ctypes.c_uint32), ("children", ctypes.POINTER(ctypes.POINTER(CArray))),
]


class CRecordsOptions(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("batch_rows", ctypes.c_size_t),
                ("fields", ctypes.POINTER(ctypes.c_uint32)), ("field_count", ctypes.c_uint32),
                ("row_begin", ctypes.c_int64), ("row_end", ctypes.c_int64),
                ("max_batch_levels", ctypes.c_size_t), ("threads", ctypes.c_size_t),
                ("max_ahead_bytes", ctypes.c_size_t)]


_lib.declare({
    "cf_parquet_open_file": (ctypes.c_int, [_PP, ctypes.c_char_p, _P, _E]),
    "cf_parquet_open": (ctypes.c_int, [_PP, _P, _P, _E]),
    "cf_parquet_free": (None, [_P]),
    "cf_parquet_num_rows": (ctypes.c_int64, [_P]),
    "cf_parquet_records_options_init": (None, [ctypes.POINTER(CRecordsOptions)]),
    "cf_parquet_records_open": (ctypes.c_int, [_PP, _P, ctypes.POINTER(CRecordsOptions), _E]),
    "cf_parquet_records_schema": (ctypes.POINTER(CArray), [_P]),
    "cf_parquet_records_next": (ctypes.c_int, [_P, ctypes.POINTER(ctypes.POINTER(CArray)), _E]),
    "cf_parquet_records_free": (None, [_P]),
    "cf_arrow_stream_parquet": (ctypes.c_int, [_P, _P, ctypes.POINTER(CRecordsOptions), _P, _E]),
})

_EPOCH = datetime.date(1970, 1, 1)
_MIN_DAYS = (datetime.date(1, 1, 1) - _EPOCH).days
_MAX_DAYS = (datetime.date(9999, 12, 31) - _EPOCH).days


_WIDE = decimal.Context(prec=100)  # exact for any stored decimal


def _wrap64(x):
    return ((x + (1 << 63)) % (1 << 64)) - (1 << 63)


def _name(a):
    return ctypes.string_at(a.name.data, a.name.len).decode("utf-8", "replace")


def _bit(ptr, i):
    return ctypes.c_uint8.from_address(ptr + (i >> 3)).value >> (i & 7) & 1


class _Leaf:
    """How one leaf column's slots become Python values."""

    def __init__(self, a):
        leaf = a.leaf.contents
        self.phys = leaf.element.contents.type
        lt = leaf.logical
        self.kind = lt.kind
        self.scale = lt.scale
        self.unsigned = lt.kind == LT_INTEGER and not lt.is_signed
        self.size = a.value_size

    def value(self, a, i):
        p, k = self.phys, self.kind
        if p == BYTE_ARRAY:
            offs = ctypes.cast(a.offsets, ctypes.POINTER(ctypes.c_int32))
            b = ctypes.string_at(a.values + offs[i], offs[i + 1] - offs[i]) \
                if offs[i + 1] > offs[i] else b""
            return self.bytes_value(b)
        raw = ctypes.string_at(a.values + i * self.size, self.size)
        if p == BOOLEAN:
            return raw[0] != 0
        if p in (INT32, INT64):
            v = int.from_bytes(raw, "little", signed=not self.unsigned)
            if k == LT_DECIMAL:
                return decimal.Decimal(v).scaleb(-self.scale, _WIDE)
            if k == LT_DATE and p == INT32:
                return _EPOCH + datetime.timedelta(days=v) if _MIN_DAYS <= v <= _MAX_DAYS else v
            return v
        if p == FLOAT:
            return struct.unpack("<f", raw)[0]
        if p == DOUBLE:
            return struct.unpack("<d", raw)[0]
        if p == INT96:
            # As DuckDB computes it (64-bit arithmetic that wraps, C division):
            # the Julian day unsigned, the nanoseconds of the day signed.
            nanos = int.from_bytes(raw[:8], "little", signed=True)
            day = int.from_bytes(raw[8:12], "little")
            micros = abs(nanos) // 1000 * (1 if nanos >= 0 else -1)
            return _wrap64(_wrap64((day - 2440588) * 86400000000) + micros)
        return self.bytes_value(raw)  # FIXED_LEN_BYTE_ARRAY

    def bytes_value(self, b):
        k = self.kind
        if k in (LT_STRING, LT_ENUM, LT_JSON):
            try:
                return b.decode("utf-8")
            except UnicodeDecodeError:
                return b
        if k == LT_DECIMAL:
            return decimal.Decimal(int.from_bytes(b, "big", signed=True)).scaleb(-self.scale, _WIDE)
        if k == LT_UUID and len(b) == 16:
            return uuid.UUID(bytes=b)
        if k == LT_FLOAT16 and len(b) == 2:
            return struct.unpack("<e", b)[0]
        return b


def _values(a, leaves):
    """Every slot of array a as Python values."""
    a = a.contents
    n = a.length
    valid = a.validity
    present = [True] * n if not valid or a.null_count == 0 else [bool(_bit(valid, i))
                                                                  for i in range(n)]
    if a.kind == STRUCT:
        cols = [(_name(a.children[j].contents), _values(a.children[j], leaves))
                for j in range(a.child_count)]
        return [{k: v[i] for k, v in cols} if present[i] else None for i in range(n)]
    if a.kind in (LIST, MAP):
        offs = ctypes.cast(a.offsets, ctypes.POINTER(ctypes.c_int32))
        if a.kind == LIST:
            elems = _values(a.children[0], leaves)
        else:
            kv = a.children[0].contents
            keys = _values(kv.children[0], leaves)
            vals = _values(kv.children[1], leaves)
            elems = list(zip(keys, vals))
        return [elems[offs[i]:offs[i + 1]] if present[i] else None for i in range(n)]
    leaf = leaves.get(a.column)
    if leaf is None:
        leaf = leaves[a.column] = _Leaf(a)
    return [leaf.value(a, i) if present[i] else None for i in range(n)]


def _open_c(source, data):
    """A library handle of its own on the file: (cf_parquet*, cf_io* or None)."""
    lib = _lib.lib()
    out = ctypes.c_void_p()
    err = _lib.CError()
    if data is None:
        _lib.check(lib.cf_parquet_open_file(ctypes.byref(out), source, None, ctypes.byref(err)),
                   err)
        return out.value, None
    return _lib.open_in_memory(lib.cf_parquet_open, data, len(data) - 1)


class ParquetFile(_lib.HandleOwner, _arrow.StreamSource):
    """An open Parquet file (a path or the file's bytes).

    threads: threads that decode (rows, batches, the Arrow stream); None or 0 =
    one per CPU where the work pays for them (compressed or nested columns, at
    least 1 MiB), 1 = the calling thread only, N = N threads. The values are the
    same for every count.
    max_ahead_bytes: with threads, the decoded bytes of the row groups read
    ahead at most; None or 0 = the library's default (256 MiB)."""

    def __init__(self, source, threads=None, max_ahead_bytes=None):
        if threads is not None and not 0 <= int(threads) <= 64:
            raise ValueError("threads must be 0..64")
        if max_ahead_bytes is not None and int(max_ahead_bytes) < 0:
            raise ValueError("max_ahead_bytes must be 0 or more")
        self._threads = int(threads or 0)
        self._max_ahead = int(max_ahead_bytes or 0)
        self._h = None
        self._data = None
        self._path = None
        lib = _lib.lib()
        io = None
        if isinstance(source, (bytes, bytearray, memoryview)):
            self._data = ctypes.create_string_buffer(bytes(source), len(source) + 1)
            pq, io = _lib.open_in_memory(lib.cf_parquet_open, self._data, len(source))
        else:
            out = ctypes.c_void_p()
            err = _lib.CError()
            p = source.__fspath__() if hasattr(source, "__fspath__") else source
            self._path = p.encode() if isinstance(p, str) else bytes(p)
            _lib.check(lib.cf_parquet_open_file(ctypes.byref(out), self._path, None,
                                                ctypes.byref(err)), err)
            pq = out.value
        self._h = _lib.io_handle(pq, lib.cf_parquet_free, io, "the Parquet file", [self._data])
        self.num_rows = lib.cf_parquet_num_rows(pq)
        r = self._records(None, 1, threads=1)
        try:
            root = lib.cf_parquet_records_schema(r).contents
            self.columns = [_name(root.children[j].contents) for j in range(root.child_count)]
        finally:
            lib.cf_parquet_records_free(r)

    def _ptr(self):
        return self._h.get()

    def _records(self, fields, batch_rows, threads=None):
        lib = _lib.lib()
        o = CRecordsOptions()
        lib.cf_parquet_records_options_init(ctypes.byref(o))
        o.threads = self._threads if threads is None else threads
        o.max_ahead_bytes = self._max_ahead
        if batch_rows:
            o.batch_rows = int(batch_rows)
        if fields is not None:
            arr = (ctypes.c_uint32 * len(fields))(*fields)
            o.fields = arr
            o.field_count = len(fields)
        r = ctypes.c_void_p()
        err = _lib.CError()
        _lib.check(lib.cf_parquet_records_open(ctypes.byref(r), self._ptr(), ctypes.byref(o),
                                               ctypes.byref(err)), err)
        return r.value

    def _fields(self, columns):
        """Field indexes of columns (names or indexes), or None for all."""
        if columns is None:
            return None
        idx = {n: i for i, n in enumerate(self.columns)}
        try:
            fields = [idx[c] if isinstance(c, str) else int(c) for c in columns]
        except KeyError as e:
            raise KeyError("no column %s (columns: %s)" % (e, ", ".join(self.columns))) \
                from None
        for f in fields:
            if not 0 <= f < len(self.columns):
                raise IndexError("column %d of %d" % (f, len(self.columns)))
        return fields

    def batches(self, columns=None, batch_rows=None):
        """Lists of row dicts (top-level fields, in `columns` order when given).
        Closing the file meanwhile makes the next step raise ValueError."""
        return self._h.leased(self._batches(self._fields(columns), batch_rows))

    def _batches(self, fields, batch_rows):
        lib = _lib.lib()
        r = self._records(fields, batch_rows)
        try:
            out = ctypes.POINTER(CArray)()
            err = _lib.CError()
            leaves = {}
            while True:
                _lib.check(lib.cf_parquet_records_next(r, ctypes.byref(out), ctypes.byref(err)),
                           err)
                if not out:
                    return
                yield _values(out, leaves)
        finally:
            lib.cf_parquet_records_free(r)

    def rows(self, columns=None, batch_rows=None):
        for b in self.batches(columns, batch_rows):
            yield from b

    def __iter__(self):
        return self.rows()

    def read(self, columns=None):
        return list(self.rows(columns))

    def to_pandas(self, columns=None):
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("to_pandas() needs pandas (Debian: python3-pandas)") from None
        rows = self.read(columns)
        return pd.DataFrame(rows, columns=list(columns) if columns else self.columns)

    def select(self, columns):
        """An Arrow stream source of only these top-level fields, in this order."""
        return _Selection(self, self._fields(columns))

    def _arrow_stream(self, o, ptr, fields=None):
        self._ptr()
        h, io = _open_c(self._path, self._data)
        lib = _lib.lib()
        ro = CRecordsOptions()
        lib.cf_parquet_records_options_init(ctypes.byref(ro))
        ro.batch_rows = o.batch_rows or 65536  # 0: CF_ARROW_BATCH_ROWS, as the library's default
        ro.threads = self._threads
        ro.max_ahead_bytes = self._max_ahead
        arr = None
        if fields is not None:
            arr = (ctypes.c_uint32 * max(len(fields), 1))(*fields)
            ro.fields = arr
            ro.field_count = len(fields)
        err = _lib.CError()
        st = lib.cf_arrow_stream_parquet(ptr, h, ctypes.byref(ro), ctypes.byref(o),
                                         ctypes.byref(err))
        # keep: the bytes a memory io reads, the field list
        cleanup = _lib.stream_cleanup(lib.cf_parquet_free, h, io, [self._data, arr])
        if st != _lib.OK:
            cleanup()
            _lib.check(st, err)
        return cleanup


class _Selection(_arrow.StreamSource):
    """Some top-level fields of a ParquetFile as an Arrow stream source."""

    def __init__(self, pq, fields):
        self._pq = pq
        self._fields = fields

    def _arrow_stream(self, o, ptr):
        return self._pq._arrow_stream(o, ptr, self._fields)


def open(source, threads=None, max_ahead_bytes=None):
    return ParquetFile(source, threads=threads, max_ahead_bytes=max_ahead_bytes)


# ---- writing ----------------------------------------------------------------------------

class CWriteColumn(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("type", ctypes.c_int), ("nullable", ctypes.c_bool),
                ("is_array", ctypes.c_bool), ("precision", ctypes.c_int),
                ("scale", ctypes.c_int), ("bloom_filter", ctypes.c_bool),
                ("binary", ctypes.c_bool)]


class CWriterOptions(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("codec", ctypes.c_int32), ("level", ctypes.c_int),
                ("row_group_rows", ctypes.c_uint64), ("row_group_bytes", ctypes.c_size_t),
                ("page_bytes", ctypes.c_size_t), ("page_rows", ctypes.c_uint32),
                ("dictionary", ctypes.c_bool), ("dict_page_bytes", ctypes.c_size_t),
                ("data_page_v2", ctypes.c_bool), ("statistics", ctypes.c_bool),
                ("page_index", ctypes.c_bool), ("page_crc", ctypes.c_bool),
                ("bloom_fpp", ctypes.c_double), ("kv", ctypes.c_void_p),
                ("kv_count", ctypes.c_size_t), ("threads", ctypes.c_size_t)]


_CODECS = {"none": 0, "uncompressed": 0, "snappy": 1, "gzip": 2, "brotli": 4, "zstd": 6,
           "lz4_raw": 7}

_lib.declare({
    "cf_parquet_writer_options_init": (None, [ctypes.POINTER(CWriterOptions)]),
    "cf_parquet_writer_create_file": (ctypes.c_int, [_PP, ctypes.c_char_p,
                                                     ctypes.POINTER(CWriteColumn), ctypes.c_size_t,
                                                     ctypes.POINTER(CWriterOptions), _E]),
    "cf_parquet_writer_append": (ctypes.c_int, [_P, _P, ctypes.c_size_t, _E]),
    "cf_parquet_writer_finish": (ctypes.c_int, [_P, _E]),
    "cf_parquet_writer_free": (None, [_P]),
})


def _column_batch(col, vals, keep):
    """A cf_batch of one column's Python values (col: a table schema dict)."""
    from . import _convert as cv
    t = col["type_id"]
    scale = col["scale"] if col["type"].startswith("DECIMAL") and col["scale"] else None
    b = _lib.CBatch()
    b.count = len(vals)
    nonnull = cv.make_bitmap([v is not None for v in vals])
    nbuf = (ctypes.c_uint8 * max(len(nonnull), 1)).from_buffer(nonnull) if nonnull else None
    keep += [nonnull, nbuf]
    b.nonnull = ctypes.addressof(nbuf) if nbuf is not None and None in vals else None
    if not col["is_array"]:
        enc = cv.encode(t, vals, scale)
        keep.append(enc)
        b.values = enc.ptr
        return b
    elems, offs = [], [0]
    for v in vals:
        if v is not None:
            if not isinstance(v, (list, tuple)):
                raise TypeError("column %r holds arrays: give lists" % col["name"])
            elems.extend(v)
        offs.append(len(elems))
    enc = cv.encode(t, elems, scale)
    offarr = (ctypes.c_uint32 * len(offs))(*offs)
    enn = cv.make_bitmap([e is not None for e in elems])
    ebuf = (ctypes.c_uint8 * max(len(enn), 1)).from_buffer(enn) if enn else None
    keep += [enc, offarr, enn, ebuf]
    b.values = enc.ptr
    b.elem_offsets = ctypes.addressof(offarr)
    b.elem_count = len(elems)
    b.elem_nonnull = ctypes.addressof(ebuf) if ebuf is not None and None in elems else None
    return b


def _parse_schema(text):
    """Columns of "name TYPE [NULL|NOT NULL|KEY], ..." (TYPE[] or ARRAY<TYPE> for
    arrays, DECIMAL64(p,s)) as the table module's column dicts."""
    import re
    parts, depth, cur, quoted = [], 0, "", False
    for ch in text:
        if ch == "`":
            quoted = not quoted  # `` inside a name toggles twice
        if not quoted:
            depth += ch in "(<"
            depth -= ch in ")>"
        if ch == "," and depth == 0 and not quoted:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    cols = []
    for part in parts:
        # a name is bare or in backquotes (`` for one inside), as cf_schema_parse reads it
        m = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*|`(?:[^`]|``)*`)\s*(ARRAY<\s*(\w+)\s*>|(\w+)"
                     r"(\(\s*(\d+)\s*,\s*(\d+)\s*\))?(\[\])?)\s*(.*)$", part, re.I | re.S)
        if not m:
            raise ValueError("schema: cannot read column %r" % part.strip())
        name, _, arr_t, t, _, prec, scale, brackets, rest = m.groups()
        if name.startswith("`"):
            name = name[1:-1].replace("``", "`")
        attrs = rest.upper().split()
        tname = arr_t or t
        tid = _lib.parse_type(tname)
        cols.append({"name": name, "type": _lib.type_name(tid), "type_id": tid,
                     "nullable": "NULL" in attrs and "NOT" not in attrs,
                     "is_array": bool(arr_t or brackets),
                     "precision": int(prec or 0), "scale": int(scale or 0)})
    if len({c["name"] for c in cols}) != len(cols):
        raise ValueError("schema: duplicate column names")
    return cols


def write(path, rows, schema, codec="snappy", row_group_rows=None, batch_rows=65536,
          threads=None):
    """Write rows (dicts by column name, or sequences in column order) as a Parquet
    file. schema uses the table syntax ("id INT64, name STRING NULL, tags INT32[]
    NULL, p DECIMAL64(10,2) NULL"; KEY and storage attributes are ignored); types
    map as include/cfile/parquet.h's writer says. The file appears atomically when
    complete (nothing on failure). threads: threads that encode and compress the
    columns (default: one per CPU; the file's bytes are the same for any count).
    Returns the number of rows."""
    lib = _lib.lib()
    err = _lib.CError()
    cols = _parse_schema(schema)
    names_list = [c["name"] for c in cols]

    ccols = (CWriteColumn * len(cols))()
    names = [c["name"].encode() for c in cols]
    for i, c in enumerate(cols):
        ccols[i] = CWriteColumn(names[i], c["type_id"], c["nullable"], c["is_array"],
                                c["precision"], c["scale"], False, False)
    o = CWriterOptions()
    lib.cf_parquet_writer_options_init(ctypes.byref(o))
    if codec.lower() not in _CODECS:
        raise ValueError("codec must be one of %s" % ", ".join(_CODECS))
    o.codec = _CODECS[codec.lower()]
    if row_group_rows is not None:
        o.row_group_rows = int(row_group_rows)
    if threads is not None:
        if not 0 <= int(threads) <= 64:
            raise ValueError("threads must be 0..64")
        o.threads = int(threads)
    p = path.__fspath__() if hasattr(path, "__fspath__") else path
    w = ctypes.c_void_p()
    _lib.check(lib.cf_parquet_writer_create_file(ctypes.byref(w), p.encode(), ccols, len(cols),
                                                 ctypes.byref(o), ctypes.byref(err)), err)
    n = 0
    try:
        pending = []

        def flush():
            keep = []
            batches = (_lib.CBatch * len(cols))()
            for j, c in enumerate(cols):
                batches[j] = _column_batch(c, [r[j] for r in pending], keep)
            _lib.check(lib.cf_parquet_writer_append(w, batches, len(pending), ctypes.byref(err)),
                       err)
            pending.clear()

        for row in rows:
            if isinstance(row, dict):
                unknown = set(row) - set(names_list)
                if unknown:
                    raise KeyError("no column %s" % ", ".join(sorted(map(repr, unknown))))
                row = [row.get(c) for c in names_list]
            elif len(row) != len(cols):
                raise ValueError("a row has %d values, got %d" % (len(cols), len(row)))
            pending.append(row)
            n += 1
            if len(pending) >= batch_rows:
                flush()
        if pending:
            flush()
        _lib.check(lib.cf_parquet_writer_finish(w, ctypes.byref(err)), err)
        return n
    finally:
        lib.cf_parquet_writer_free(w)

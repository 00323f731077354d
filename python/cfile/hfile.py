"""HBase HFiles (include/cfile/hfile.h): read cells, probe the row Bloom filter,
write v3 files.

    with cfile.hfile.open("f.hfile") as h:
        for c in h:                      # Cell(row, family, qualifier, timestamp, type, value)
            ...
        h.cells(start_row=b"r10")        # from the first row >= r10
        h.may_contain(b"r42")            # False: certainly absent
        pa.table(h)                      # Arrow: row, family, qualifier, timestamp, type, value
    cfile.hfile.write("out.hfile", cells, compression="gz")

Rows, families, qualifiers and values are bytes; type is HBase's name ("Put",
"Delete", ...); timestamps are ints (milliseconds, as HBase stores them). A v1
file whose keys are opaque bytes gives Cell(key, b"", b"", None, None, value).
"""

import collections
import ctypes

from . import _lib
from . import arrow as _arrow
from ._lib import CFileError, CSlice
from ._lib import _E, _P, _PP


Cell = collections.namedtuple("Cell", "row family qualifier timestamp type value")
_TYPE_CODES = {"Minimum": 0, "Put": 4, "Delete": 8, "DeleteFamilyVersion": 10,
               "DeleteColumn": 12, "DeleteFamily": 14, "Maximum": 255}


class CCell(ctypes.Structure):
    _fields_ = [
        ("key", CSlice), ("row", CSlice), ("family", CSlice), ("qualifier", CSlice),
        ("timestamp", ctypes.c_int64), ("type", ctypes.c_uint8), ("value", CSlice),
        ("tags", CSlice), ("mvcc", ctypes.c_uint64),
    ]


class CTrailer(ctypes.Structure):
    _fields_ = [
        ("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("trailer_size", ctypes.c_uint32),
        ("protobuf", ctypes.c_bool), ("file_info_offset", ctypes.c_uint64),
        ("load_on_open_data_offset", ctypes.c_uint64),
        ("uncompressed_data_index_size", ctypes.c_uint64),
        ("total_uncompressed_bytes", ctypes.c_uint64), ("data_index_count", ctypes.c_uint32),
        ("meta_index_count", ctypes.c_uint32), ("entry_count", ctypes.c_uint64),
        ("num_data_index_levels", ctypes.c_uint32), ("first_data_block_offset", ctypes.c_uint64),
        ("last_data_block_offset", ctypes.c_uint64), ("comparator", ctypes.c_char * 256),
        ("compression_codec", ctypes.c_uint32), ("has_encryption_key", ctypes.c_bool),
        ("data_index_offset", ctypes.c_uint64), ("meta_index_offset", ctypes.c_uint64),
    ]


class CInfoHead(ctypes.Structure):
    """The leading fields of cf_hfile_info (only read through the library's pointer)."""
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                ("compression", ctypes.c_uint32), ("data_block_encoding", ctypes.c_int),
                ("raw_keys", ctypes.c_bool)]


class CWriterOptions(ctypes.Structure):
    _fields_ = [
        ("version", ctypes.c_uint32), ("compression", ctypes.c_uint32),
        ("block_size", ctypes.c_uint32), ("bytes_per_checksum", ctypes.c_uint32),
        ("index_block_size", ctypes.c_uint32), ("index_min_entries", ctypes.c_uint32),
        ("row_bloom", ctypes.c_bool), ("bloom_chunk_size", ctypes.c_uint32),
        ("bloom_error_rate", ctypes.c_double), ("include_mvcc", ctypes.c_bool),
        ("include_tags", ctypes.c_bool), ("create_time", ctypes.c_int64),
        ("comparator", ctypes.c_char_p), ("encoding", ctypes.c_int),
        ("compress_tags", ctypes.c_bool), ("checksum_type", ctypes.c_uint8),
    ]


_lib.declare({
    "cf_hfile_open_file": (ctypes.c_int, [_PP, ctypes.c_char_p, _P, _E]),
    "cf_hfile_open": (ctypes.c_int, [_PP, _P, _P, _E]),
    "cf_hfile_free": (None, [_P]),
    "cf_hfile_get_trailer": (ctypes.POINTER(CTrailer), [_P]),
    "cf_hfile_get_info": (ctypes.POINTER(CInfoHead), [_P]),
    "cf_hfile_type_name": (ctypes.c_char_p, [ctypes.c_uint8]),
    "cf_hfile_codec_name": (ctypes.c_char_p, [ctypes.c_uint32]),
    "cf_hfile_codec_parse": (ctypes.c_int, [ctypes.POINTER(ctypes.c_uint32), ctypes.c_char_p]),
    "cf_hfile_iter_create": (ctypes.c_int, [_PP, _P, _E]),
    "cf_hfile_iter_free": (None, [_P]),
    "cf_hfile_iter_next": (ctypes.c_int, [_P, ctypes.POINTER(CCell),
                                          ctypes.POINTER(ctypes.c_bool), _E]),
    "cf_hfile_iter_seek_row": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_size_t, _E]),
    "cf_hfile_bloom_may_contain": (ctypes.c_int, [_P, ctypes.c_int, ctypes.c_char_p,
                                                  ctypes.c_size_t, ctypes.POINTER(ctypes.c_bool),
                                                  _E]),
    "cf_hfile_writer_options_init": (None, [ctypes.POINTER(CWriterOptions)]),
    "cf_hfile_writer_create": (ctypes.c_int, [_PP, _P, ctypes.POINTER(CWriterOptions), _E]),
    "cf_hfile_writer_append": (ctypes.c_int, [_P, ctypes.POINTER(CCell), _E]),
    "cf_hfile_writer_finish": (ctypes.c_int, [_P, _E]),
    "cf_hfile_writer_free": (None, [_P]),
    "cf_io_create_file": (ctypes.c_int, [_PP, ctypes.c_char_p, _E]),
})


_IO_COMMIT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, _E)


def _b(s):
    return ctypes.string_at(s.data, s.len) if s.len else b""


def _bytes(v, what):
    if isinstance(v, str):
        return v.encode()
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    raise TypeError("%s must be bytes or str, not %s" % (what, type(v).__name__))


def _type_name(code):
    s = _lib.lib().cf_hfile_type_name(code)
    return s.decode() if s else str(code)


def _open_c(source):
    """(hfile, io or None, keepalive) over a path (bytes) or a ctypes buffer."""
    lib = _lib.lib()
    out = ctypes.c_void_p()
    err = _lib.CError()
    if isinstance(source, bytes):
        _lib.check(lib.cf_hfile_open_file(ctypes.byref(out), source, None, ctypes.byref(err)), err)
        return out.value, None
    return _lib.open_in_memory(lib.cf_hfile_open, source, len(source) - 1)


class HFile(_lib.HandleOwner, _arrow.StreamSource):
    """An open HFile (a path or the file's bytes). Iterating yields Cells."""

    def __init__(self, source):
        self._h = None
        if isinstance(source, (bytes, bytearray, memoryview)):
            self._source = ctypes.create_string_buffer(bytes(source), len(source) + 1)
            self.name = "<memory>"
        else:
            p = source.__fspath__() if hasattr(source, "__fspath__") else source
            self._source = p.encode() if isinstance(p, str) else p
            if not isinstance(self._source, bytes):
                raise TypeError("open() takes a path or bytes, not %s" % type(source).__name__)
            self.name = self._source.decode(errors="replace")
        h, io = _open_c(self._source)
        lib = _lib.lib()
        self._h = _lib.io_handle(h, lib.cf_hfile_free, io, "the HFile", [self._source])
        self._raw_keys = bool(lib.cf_hfile_get_info(h).contents.raw_keys)
        t = lib.cf_hfile_get_trailer(h).contents
        codec = _lib.lib().cf_hfile_codec_name(t.compression_codec)
        self.info = {
            "version": "%d.%d" % (t.major, t.minor),
            "entry_count": t.entry_count,
            "compression": codec.decode() if codec else str(t.compression_codec),
            "comparator": t.comparator.decode(errors="replace"),
            "data_index_levels": t.num_data_index_levels,
        }

    def _ptr(self):
        return self._h.get()

    def __len__(self):
        return self.info["entry_count"]

    def cells(self, start_row=None):
        """Cells in file order, from the first row >= start_row when given.
        Closing the HFile meanwhile makes the next step raise ValueError."""
        if start_row is not None:
            start_row = _bytes(start_row, "start_row")
        return self._h.leased(self._cells(start_row))

    def _cells(self, start_row):
        lib = _lib.lib()
        it = ctypes.c_void_p()
        err = _lib.CError()
        _lib.check(lib.cf_hfile_iter_create(ctypes.byref(it), self._ptr(), ctypes.byref(err)),
                   err)
        try:
            if start_row is not None:
                r = start_row
                _lib.check(lib.cf_hfile_iter_seek_row(it, r, len(r), ctypes.byref(err)), err)
            c = CCell()
            has = ctypes.c_bool()
            while True:
                _lib.check(lib.cf_hfile_iter_next(it, ctypes.byref(c), ctypes.byref(has),
                                                  ctypes.byref(err)), err)
                if not has.value:
                    return
                if self._raw_keys:  # v1 with opaque keys: the key is the row
                    yield Cell(_b(c.key), b"", b"", None, None, _b(c.value))
                else:
                    yield Cell(_b(c.row), _b(c.family), _b(c.qualifier), c.timestamp,
                               _type_name(c.type), _b(c.value))
        finally:
            lib.cf_hfile_iter_free(it)

    def __iter__(self):
        return self.cells()

    def get(self, row):
        """Every cell of one row (a list, empty when the row is absent)."""
        r = _bytes(row, "row")
        out = []
        for c in self.cells(start_row=r):
            if c.row != r:
                break
            out.append(c)
        return out

    def may_contain(self, row):
        """The row Bloom filter's answer: False = certainly absent (True without one)."""
        r = _bytes(row, "row")
        out = ctypes.c_bool()
        err = _lib.CError()
        _lib.check(_lib.lib().cf_hfile_bloom_may_contain(self._ptr(), 0, r, len(r),
                                                         ctypes.byref(out), ctypes.byref(err)),
                   err)
        return bool(out.value)

    def to_pandas(self):
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("to_pandas() needs pandas (Debian: python3-pandas)") from None
        return pd.DataFrame(list(self), columns=list(Cell._fields))

    def _arrow_stream(self, o, ptr):
        self._ptr()
        h, io = _open_c(self._source)
        err = _lib.CError()
        lib = _lib.lib()
        st = lib.cf_arrow_stream_hfile(ptr, h, ctypes.byref(o), ctypes.byref(err))
        cleanup = _lib.stream_cleanup(lib.cf_hfile_free, h, io, [self._source])
        if st != _lib.OK:
            cleanup()
            _lib.check(st, err)
        return cleanup


def open(source):
    """Open an HFile (a path or its bytes)."""
    return HFile(source)


def write(path, cells, compression="none", block_size=None, row_bloom=True, include_tags=False):
    """Write cells (Cells or 6-tuples row, family, qualifier, timestamp, type,
    value; type a name or code) as an HFile v3, in HBase's cell order (rows
    ascending, then family, qualifier, timestamp descending): CFileError EINVAL
    otherwise. The file appears atomically when complete (nothing on failure)."""
    lib = _lib.lib()
    o = CWriterOptions()
    lib.cf_hfile_writer_options_init(ctypes.byref(o))
    codec = ctypes.c_uint32()
    if lib.cf_hfile_codec_parse(ctypes.byref(codec), compression.encode()) != _lib.OK:
        raise CFileError(_lib.EINVAL, "unknown HFile compression %r" % compression)
    o.compression = codec.value
    if block_size is not None:
        o.block_size = int(block_size)
    o.row_bloom = bool(row_bloom)
    o.include_tags = bool(include_tags)
    p = path.__fspath__() if hasattr(path, "__fspath__") else path
    err = _lib.CError()
    io = ctypes.c_void_p()
    _lib.check(lib.cf_io_create_file(ctypes.byref(io), p.encode(), ctypes.byref(err)), err)
    w = ctypes.c_void_p()
    try:
        _lib.check(lib.cf_hfile_writer_create(ctypes.byref(w), io, ctypes.byref(o),
                                              ctypes.byref(err)), err)
        n = 0
        for cell in cells:
            row, fam, qual, ts, typ, val = cell
            t = _TYPE_CODES.get(typ, typ) if isinstance(typ, str) else typ
            if not isinstance(t, int):
                raise ValueError("unknown cell type %r" % (typ,))
            parts = [_bytes(row, "row"), _bytes(fam, "family"), _bytes(qual, "qualifier"),
                     _bytes(val, "value")]
            bufs = [ctypes.create_string_buffer(x, len(x) + 1) for x in parts]
            sl = [CSlice(ctypes.addressof(b), len(x)) for b, x in zip(bufs, parts)]
            c = CCell()
            c.row, c.family, c.qualifier, c.value = sl
            c.timestamp = int(ts)
            c.type = t
            _lib.check(lib.cf_hfile_writer_append(w, ctypes.byref(c), ctypes.byref(err)), err)
            n += 1
        _lib.check(lib.cf_hfile_writer_finish(w, ctypes.byref(err)), err)
        # The io's commit (io.h's vtable, entry 4): fsync, rename into place.
        ops = ctypes.cast(io, ctypes.POINTER(ctypes.c_void_p))[0]
        commit = ctypes.cast(ops, ctypes.POINTER(ctypes.c_void_p))[4]
        _lib.check(_IO_COMMIT(commit)(io, ctypes.byref(err)), err)
        return n
    finally:
        if w.value:
            lib.cf_hfile_writer_free(w)
        lib.cf_io_free(io)

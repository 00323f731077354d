"""Kudu DeltaFiles (include/cfile/delta.h): REDO/UNDO mutation history of a rowset.

    with cfile.delta.open("redo.cfile", "redo", types={1: "STRING"}) as d:
        for x in d:              # Delta(row, ts, op, changes)
            ...                  # op "UPDATE"/"DELETE"/"REINSERT"; changes {col_id: value}
    cfile.delta.write("redo.cfile", deltas, "redo", types={1: "STRING"})

A file does not record its columns' types: `types` maps column ids to type names
so values come out (and go in) as Python values; without a type a value is its
raw bytes (the in-memory form). None is SQL NULL.
"""

import collections
import ctypes

from . import _convert as cv
from . import _lib
from ._lib import CSlice
from ._lib import _E, _P, _PP


Delta = collections.namedtuple("Delta", "row ts op changes")
_OPS = {1: "UPDATE", 2: "DELETE", 3: "REINSERT"}
_OP_CODES = {v: k for k, v in _OPS.items()}
_KINDS = {"redo": 0, "undo": 1}


class CDelta(ctypes.Structure):
    _fields_ = [("row", ctypes.c_uint32), ("ts", ctypes.c_uint64), ("key", CSlice),
                ("rcl", CSlice)]


class CRclDecoder(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("p", ctypes.c_void_p), ("end", ctypes.c_void_p)]


class CRclChange(ctypes.Structure):
    _fields_ = [("col_id", ctypes.c_uint32), ("is_null", ctypes.c_bool), ("value", CSlice)]


class CDeltaWriterOptions(ctypes.Structure):
    _fields_ = [
        ("version", ctypes.c_uint32), ("type", ctypes.c_int), ("compression", ctypes.c_int),
        ("block_size", ctypes.c_uint32), ("checksums", ctypes.c_bool),
        ("write_stats", ctypes.c_bool), ("check_order", ctypes.c_bool),
    ]


_lib.declare({
    "cf_delta_reader_open_file": (ctypes.c_int, [_PP, ctypes.c_char_p, ctypes.c_int, _P, _E]),
    "cf_delta_reader_free": (None, [_P]),
    "cf_delta_iter_create": (ctypes.c_int, [_PP, _P, _E]),
    "cf_delta_iter_free": (None, [_P]),
    "cf_delta_iter_seek_to_row": (ctypes.c_int, [_P, ctypes.c_uint32, _E]),
    "cf_delta_iter_next_batch": (ctypes.c_int, [_P, ctypes.POINTER(CDelta), ctypes.c_size_t,
                                                ctypes.POINTER(ctypes.c_size_t), _E]),
    "cf_rcl_decoder_init": (ctypes.c_int, [ctypes.POINTER(CRclDecoder), CSlice, _E]),
    "cf_rcl_decoder_has_next": (ctypes.c_bool, [ctypes.POINTER(CRclDecoder)]),
    "cf_rcl_decoder_next": (ctypes.c_int, [ctypes.POINTER(CRclDecoder),
                                           ctypes.POINTER(CRclChange), _E]),
    "cf_rcl_builder_create": (ctypes.c_int, [_PP, _E]),
    "cf_rcl_builder_free": (None, [_P]),
    "cf_rcl_builder_reset": (None, [_P, ctypes.c_int]),
    "cf_rcl_builder_add": (ctypes.c_int, [_P, ctypes.c_uint32, ctypes.c_void_p, ctypes.c_size_t,
                                          _E]),
    "cf_rcl_builder_bytes": (CSlice, [_P]),
    "cf_delta_writer_options_init": (None, [ctypes.POINTER(CDeltaWriterOptions)]),
    "cf_delta_writer_create_file": (ctypes.c_int, [_PP, ctypes.c_char_p,
                                                   ctypes.POINTER(CDeltaWriterOptions), _E]),
    "cf_delta_writer_append": (ctypes.c_int, [_P, ctypes.c_uint32, ctypes.c_uint64, CSlice, _E]),
    "cf_delta_writer_finish": (ctypes.c_int, [_P, _E]),
    "cf_delta_writer_free": (None, [_P]),
})


def _kind(kind):
    if kind not in _KINDS:
        raise ValueError("kind must be 'redo' or 'undo', not %r" % (kind,))
    return _KINDS[kind]


def _types(types):
    return {int(k): _lib.parse_type(v) for k, v in (types or {}).items()}


class DeltaFile(_lib.HandleOwner):
    """An open DeltaFile; iterating yields Deltas in file order."""

    def __init__(self, path, kind="redo", types=None):
        self._h = None
        self._types = _types(types)
        self._opts = cv.ReadOptions()
        p = path.__fspath__() if hasattr(path, "__fspath__") else path
        out = ctypes.c_void_p()
        err = _lib.CError()
        _lib.check(_lib.lib().cf_delta_reader_open_file(ctypes.byref(out), p.encode(),
                                                        _kind(kind), None, ctypes.byref(err)),
                   err)
        self._h = _lib.Handle(out.value, _lib.lib().cf_delta_reader_free, "the DeltaFile")
        self.kind = kind

    def _value(self, col, ch):
        if ch.is_null:
            return None
        raw = ctypes.string_at(ch.value.data, ch.value.len) if ch.value.len else b""
        t = self._types.get(col)
        if t is None:
            return raw
        if t in cv.BINARY_TYPES:
            return raw if t == cv.BINARY else cv._decode_str(raw)
        buf = ctypes.create_string_buffer(raw, max(len(raw), 1))
        return cv.decode(t, ctypes.addressof(buf), 1, self._opts)[0]

    def _decode(self, d):
        lib = _lib.lib()
        dec = CRclDecoder()
        err = _lib.CError()
        _lib.check(lib.cf_rcl_decoder_init(ctypes.byref(dec), d.rcl, ctypes.byref(err)), err)
        changes = {}
        ch = CRclChange()
        while lib.cf_rcl_decoder_has_next(ctypes.byref(dec)):
            _lib.check(lib.cf_rcl_decoder_next(ctypes.byref(dec), ctypes.byref(ch),
                                               ctypes.byref(err)), err)
            changes[ch.col_id] = self._value(ch.col_id, ch)
        return Delta(d.row, d.ts, _OPS.get(dec.type, str(dec.type)), changes)

    def deltas(self, start_row=None):
        """Deltas in file order (from the first of a row >= start_row). Closing the
        file meanwhile makes the next step raise ValueError."""
        return self._h.leased(self._deltas(start_row))

    def _deltas(self, start_row):
        lib = _lib.lib()
        it = ctypes.c_void_p()
        err = _lib.CError()
        _lib.check(lib.cf_delta_iter_create(ctypes.byref(it), self._h.get(), ctypes.byref(err)),
                   err)
        try:
            if start_row is not None:
                _lib.check(lib.cf_delta_iter_seek_to_row(it, int(start_row), ctypes.byref(err)),
                           err)
            buf = (CDelta * 256)()
            n = ctypes.c_size_t()
            while True:
                _lib.check(lib.cf_delta_iter_next_batch(it, buf, 256, ctypes.byref(n),
                                                        ctypes.byref(err)), err)
                if n.value == 0:
                    return
                for i in range(n.value):
                    yield self._decode(buf[i])
        finally:
            lib.cf_delta_iter_free(it)

    def __iter__(self):
        return self.deltas()


def open(path, kind="redo", types=None):
    return DeltaFile(path, kind, types)


def write(path, deltas, kind="redo", types=None, compression="lz4"):
    """Write deltas (Deltas or (row, ts, op, changes) tuples; op a name) as a
    DeltaFile, in the order the kind needs (REDO: (row, ts) ascending; UNDO: row
    ascending, ts descending within a row: CFileError EINVAL otherwise). The file
    appears atomically when complete. Returns the number of deltas."""
    lib = _lib.lib()
    tmap = _types(types)
    o = CDeltaWriterOptions()
    lib.cf_delta_writer_options_init(ctypes.byref(o))
    o.type = _kind(kind)
    o.compression = _lib.parse_compression(compression)
    p = path.__fspath__() if hasattr(path, "__fspath__") else path
    err = _lib.CError()
    w = ctypes.c_void_p()
    b = ctypes.c_void_p()
    _lib.check(lib.cf_rcl_builder_create(ctypes.byref(b), ctypes.byref(err)), err)
    try:
        _lib.check(lib.cf_delta_writer_create_file(ctypes.byref(w), p.encode(), ctypes.byref(o),
                                                   ctypes.byref(err)), err)
        n = 0
        for row, ts, op, changes in deltas:
            code = _OP_CODES.get(op, op)
            if code not in _OPS:
                raise ValueError("unknown delta op %r" % (op,))
            lib.cf_rcl_builder_reset(b, code)
            for col, v in (changes or {}).items():
                if v is None:
                    _lib.check(lib.cf_rcl_builder_add(b, int(col), None, 0, ctypes.byref(err)),
                               err)
                    continue
                t = tmap.get(int(col))
                if t is None:
                    raw = bytes(v)
                elif t in cv.BINARY_TYPES:
                    raw = v.encode() if isinstance(v, str) else bytes(v)
                else:
                    enc = cv.encode(t, [v])  # alive until its bytes are copied
                    raw = ctypes.string_at(enc.ptr, cv.value_size(t))
                buf = ctypes.create_string_buffer(raw, len(raw) + 1)
                _lib.check(lib.cf_rcl_builder_add(b, int(col), ctypes.addressof(buf), len(raw),
                                                  ctypes.byref(err)), err)
            _lib.check(lib.cf_delta_writer_append(w, int(row), int(ts), lib.cf_rcl_builder_bytes(b),
                                                  ctypes.byref(err)), err)
            n += 1
        _lib.check(lib.cf_delta_writer_finish(w, ctypes.byref(err)), err)
        return n
    finally:
        if w.value:
            lib.cf_delta_writer_free(w)
        lib.cf_rcl_builder_free(b)

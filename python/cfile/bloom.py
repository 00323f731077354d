"""Kudu BloomFiles (include/cfile/bloom.h): probe and write.

    with cfile.bloom.open("bloom.cfile") as b:
        b.may_contain(b"key")        # False: certainly absent
    cfile.bloom.write("bloom.cfile", sorted_keys, fp_rate=0.01)
"""

import ctypes

from . import _lib
from ._lib import CSlice
from ._lib import _E, _P, _PP


class CBloomWriterOptions(ctypes.Structure):
    _fields_ = [
        ("version", ctypes.c_uint32),
        ("bytes_per_block", ctypes.c_size_t),
        ("fp_rate", ctypes.c_double),
        ("checksums", ctypes.c_bool),
    ]


_lib.declare({
    "cf_bloom_reader_open_file": (ctypes.c_int, [_PP, ctypes.c_char_p, ctypes.c_bool, _P, _E]),
    "cf_bloom_reader_open": (ctypes.c_int, [_PP, _P, _P, _E]),
    "cf_bloom_reader_may_contain": (ctypes.c_int, [_P, CSlice, ctypes.POINTER(ctypes.c_bool), _E]),
    "cf_bloom_reader_free": (None, [_P]),
    "cf_bloom_writer_options_init": (None, [ctypes.POINTER(CBloomWriterOptions)]),
    "cf_bloom_writer_create_file": (ctypes.c_int, [_PP, ctypes.c_char_p,
                                                   ctypes.POINTER(CBloomWriterOptions), _E]),
    "cf_bloom_writer_add": (ctypes.c_int, [_P, CSlice, _E]),
    "cf_bloom_writer_finish": (ctypes.c_int, [_P, _E]),
    "cf_bloom_writer_num_keys": (ctypes.c_uint64, [_P]),
    "cf_bloom_writer_free": (None, [_P]),
})


def _key(k):
    if isinstance(k, str):
        return k.encode()
    if isinstance(k, (bytes, bytearray, memoryview)):
        return bytes(k)
    raise TypeError("a key is bytes or str, not %s" % type(k).__name__)


class BloomFile(_lib.HandleOwner):
    """An open BloomFile (a path or the file's bytes)."""

    def __init__(self, source, mmap=False):
        self._h = None
        self._data = None
        io = None
        lib = _lib.lib()
        if isinstance(source, (bytes, bytearray, memoryview)):
            self._data = ctypes.create_string_buffer(bytes(source), len(source) + 1)
            r, io = _lib.open_in_memory(lib.cf_bloom_reader_open, self._data, len(source))
        else:
            out = ctypes.c_void_p()
            err = _lib.CError()
            p = source.__fspath__() if hasattr(source, "__fspath__") else source
            _lib.check(lib.cf_bloom_reader_open_file(ctypes.byref(out), p.encode(), bool(mmap),
                                                     None, ctypes.byref(err)), err)
            r = out.value
        self._h = _lib.io_handle(r, lib.cf_bloom_reader_free, io, "the BloomFile", [self._data])

    def may_contain(self, key):
        """False when `key` is certainly absent; True when present or a false positive."""
        k = _key(key)
        buf = ctypes.create_string_buffer(k, len(k) + 1)
        out = ctypes.c_bool()
        err = _lib.CError()
        with self._h as r:
            _lib.check(_lib.lib().cf_bloom_reader_may_contain(
                r, CSlice(ctypes.addressof(buf), len(k)), ctypes.byref(out),
                ctypes.byref(err)), err)
        return bool(out.value)

    def __contains__(self, key):
        return self.may_contain(key)


def open(source, mmap=False):
    return BloomFile(source, mmap=mmap)


def write(path, keys, fp_rate=None, bytes_per_block=None, checksums=True):
    """Write a BloomFile of keys (bytes or str, in non-decreasing byte order, as
    Kudu adds a rowset's sorted keys: CFileError EINVAL otherwise). The file
    appears atomically when complete. Returns the number of keys."""
    lib = _lib.lib()
    o = CBloomWriterOptions()
    lib.cf_bloom_writer_options_init(ctypes.byref(o))
    if fp_rate is not None:
        o.fp_rate = float(fp_rate)
    if bytes_per_block is not None:
        o.bytes_per_block = int(bytes_per_block)
    o.checksums = bool(checksums)
    p = path.__fspath__() if hasattr(path, "__fspath__") else path
    w = ctypes.c_void_p()
    err = _lib.CError()
    _lib.check(lib.cf_bloom_writer_create_file(ctypes.byref(w), p.encode(), ctypes.byref(o),
                                               ctypes.byref(err)), err)
    try:
        for k in keys:
            kb = _key(k)
            buf = ctypes.create_string_buffer(kb, len(kb) + 1)
            _lib.check(lib.cf_bloom_writer_add(w, CSlice(ctypes.addressof(buf), len(kb)),
                                               ctypes.byref(err)), err)
        _lib.check(lib.cf_bloom_writer_finish(w, ctypes.byref(err)), err)
        return lib.cf_bloom_writer_num_keys(w)
    finally:
        lib.cf_bloom_writer_free(w)

"""Writing a CFile: cfile.write(path, values, type=...) or the Writer class."""

import array
import ctypes

from . import _convert as cv
from . import _lib
from ._lib import CFileError


def _bytes_of(v, what):
    if isinstance(v, str):
        return v.encode("utf-8")
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    raise TypeError("%s must be str or bytes, not %s" % (what, type(v).__name__))


class Writer(_lib.Closing):
    """A CFile being written (one column). Arguments mirror cf_writer_options:

    type                a type name: "INT32", "string", "DECIMAL128", ... (Kudu's names
                        or short forms, case-insensitive)
    encoding            "auto" (Kudu's default for the type), "plain", "prefix", "rle",
                        "dict", "bit_shuffle" (a pair Kudu does not allow resolves to
                        the default, as Kudu does)
    compression         "none", "snappy", "lz4", "zlib"
    nullable, is_array  column shape (arrays: each row is a list of elements)
    write_posidx, write_validx, checksums, optimize_index_keys, block_size,
    index_block_size, restart_interval     as in writer.h (0 = the default size)
    scale               DECIMAL columns: decimal.Decimal values are multiplied by
                        10**scale to get the stored unscaled int (ints are stored as is)
    metadata            header metadata: a dict or a list of (key, value) pairs

    path=None writes to memory: finish() then returns the file's bytes.
    As a context manager it finishes on a normal exit and abandons the output
    (no file appears) when the block raises.
    """

    def __init__(self, path, type, encoding="auto", compression="none", nullable=False,
                 is_array=False, write_posidx=True, write_validx=False, checksums=True,
                 optimize_index_keys=True, block_size=0, index_block_size=0,
                 restart_interval=0, scale=None, metadata=None):
        self._w = None
        self._io = None
        self._result = None
        self._last = None
        lib = _lib.lib()
        t = _lib.parse_type(type)
        o = _lib.CWriterOptions()
        lib.cf_writer_options_init(ctypes.byref(o), t)
        o.encoding = _lib.parse_encoding(encoding or "auto")
        o.compression = _lib.parse_compression(compression or "none")
        o.nullable = bool(nullable)
        o.is_array = bool(is_array)
        o.write_posidx = bool(write_posidx)
        o.write_validx = bool(write_validx)
        o.checksums = bool(checksums)
        o.optimize_index_keys = bool(optimize_index_keys)
        o.block_size = int(block_size or 0)
        o.index_block_size = int(index_block_size or 0)
        o.restart_interval = int(restart_interval or 0)
        self._type = t
        self._nullable = bool(nullable)
        self._is_array = bool(is_array)
        self._scale = scale
        err = _lib.CError()
        out = ctypes.c_void_p()
        if path is None:
            io = ctypes.c_void_p()
            _lib.check(lib.cf_io_create_mem(ctypes.byref(io), ctypes.byref(err)), err)
            self._io = io.value
            st = lib.cf_writer_create(ctypes.byref(out), self._io, ctypes.byref(o),
                                      ctypes.byref(err))
        else:
            p = path.__fspath__() if hasattr(path, "__fspath__") else path
            if isinstance(p, str):
                p = p.encode()
            st = lib.cf_writer_create_file(ctypes.byref(out), p, ctypes.byref(o),
                                           ctypes.byref(err))
        if st != _lib.OK:
            self.close()
            _lib.check(st, err)
        self._w = out.value
        if metadata:
            items = metadata.items() if isinstance(metadata, dict) else metadata
            for k, v in items:
                self.add_metadata(k, v)

    def _ptr(self):
        if not self._w:
            raise ValueError("the writer was closed")
        return self._w

    def add_metadata(self, key, value):
        """Before the first append: header metadata; after it: footer metadata."""
        k = _bytes_of(key, "metadata key")
        if b"\0" in k:
            raise ValueError("metadata key contains NUL")
        v = _bytes_of(value, "metadata value")
        err = _lib.CError()
        _lib.check(_lib.lib().cf_writer_add_metadata(self._ptr(), k, v, len(v),
                                                     ctypes.byref(err)), err)

    def append(self, values):
        """Append rows in ONE library append call (None = NULL; lists for arrays).
        For PLAIN, RLE and BOOL columns the grouping of rows into calls decides
        where blocks end, as in Kudu."""
        values = list(values)
        if self._is_array:
            return self._append_arrays(values)
        w = self._ptr()
        flags = [v is not None for v in values]
        bm = None if all(flags) else cv.make_bitmap(flags)
        enc = cv.encode(self._type, values, self._scale)
        bmp = None if bm is None else (ctypes.c_char * len(bm)).from_buffer(bm)
        err = _lib.CError()
        _lib.check(_lib.lib().cf_writer_append(w, enc.ptr, bmp, len(values),
                                               ctypes.byref(err)), err)
        # The library's value-index order check keeps the last value of a call in
        # memory form, which for binary types is a slice into our buffer: keep that
        # buffer until the next call has been checked against it.
        self._last = enc

    def _append_arrays(self, cells):
        w = self._ptr()
        elems = []
        counts = array.array("I", bytes(4 * len(cells)))
        cell_flags = []
        for i, c in enumerate(cells):
            if c is None:
                cell_flags.append(False)
                continue
            if isinstance(c, (str, bytes, bytearray)) or not hasattr(c, "__iter__"):
                raise TypeError("array rows must be lists (or None), got %r" % (c,))
            c = list(c)
            counts[i] = len(c)
            elems.extend(c)
            cell_flags.append(True)
        eflags = [v is not None for v in elems]
        ebm = None if all(eflags) else cv.make_bitmap(eflags)
        cbm = None if all(cell_flags) else cv.make_bitmap(cell_flags)
        enc = cv.encode(self._type, elems, self._scale)

        def ptr(bm):
            return None if bm is None else (ctypes.c_char * len(bm)).from_buffer(bm)

        err = _lib.CError()
        cptr = counts.buffer_info()[0] if len(cells) else None
        _lib.check(_lib.lib().cf_writer_append_arrays(w, enc.ptr, ptr(ebm), cptr, ptr(cbm),
                                                      len(cells), ctypes.byref(err)), err)
        self._last = enc

    @property
    def num_values(self):
        return _lib.lib().cf_writer_num_values(self._ptr())

    @property
    def resolved(self):
        """The options after resolution: encoding, compression and sizes."""
        o = _lib.lib().cf_writer_resolved_options(self._ptr()).contents
        return {"type": _lib.type_name(o.type), "encoding": _lib.encoding_name(o.encoding),
                "compression": _lib.compression_name(o.compression),
                "block_size": o.block_size, "index_block_size": o.index_block_size,
                "restart_interval": o.restart_interval}

    def finish(self):
        """Write the indexes and footer and make the file appear; frees the writer.
        Returns the bytes for an in-memory writer, else None."""
        err = _lib.CError()
        lib = _lib.lib()
        try:
            _lib.check(lib.cf_writer_finish(self._ptr(), ctypes.byref(err)), err)
            if self._io:
                s = lib.cf_io_mem_contents(self._io)
                self._result = ctypes.string_at(s.data, s.len) if s.len else b""
        finally:
            self.close()
        return self._result

    def close(self):
        """Free the writer; without finish() the output is abandoned."""
        lib = _lib._lib
        if self._w:
            lib.cf_writer_free(self._w)
            self._w = None
        self._last = None
        if self._io:
            lib.cf_io_free(self._io)
            self._io = None

    def __exit__(self, exc_type, exc, tb):
        # Unlike other handles, leaving the block normally finishes the file.
        if exc_type is None and self._w:
            self.finish()
        else:
            self.close()
        return False


def _is_cell(v):
    return isinstance(v, (list, tuple))


def _write(path, values, type, nullable, is_array, append_batch, footer_metadata, options):
    values = list(values)
    if nullable is None:
        nullable = any(v is None for v in values)
    if is_array is None:
        is_array = any(_is_cell(v) for v in values)
    append_batch = int(append_batch or 0)
    if append_batch < 0:
        raise ValueError("append_batch must be >= 0")
    with Writer(path, type, nullable=nullable, is_array=is_array, **options) as w:
        step = append_batch or max(len(values), 1)
        for i in range(0, len(values), step):
            w.append(values[i:i + step])
        if footer_metadata:
            items = footer_metadata.items() if isinstance(footer_metadata, dict) else footer_metadata
            for k, v in items:
                w.add_metadata(k, v)
        n = len(values)
        if path is None:
            return w.finish()
    return n


def write(path, values, type, encoding="auto", compression="none", nullable=None,
          is_array=None, append_batch=0, metadata=None, footer_metadata=None, **options):
    """Write `values` (a list; None = NULL, lists for array rows) as a CFile at path,
    atomically (the file appears only when complete). Returns the number of rows.

    nullable / is_array: None = inferred from the values (any None / any list).
    append_batch: rows per library append call; 0 = all rows in one call (as in
    the golden spec.json files, this decides where PLAIN/RLE/BOOL blocks end).
    metadata: header metadata; footer_metadata: added after the values.
    Other keyword options are those of Writer (block_size, write_validx,
    checksums, write_posidx, optimize_index_keys, index_block_size,
    restart_interval, scale).
    """
    if path is None:
        raise TypeError("write() needs a path; dumps() writes to memory")
    return _write(path, values, type, nullable, is_array, append_batch, footer_metadata,
                  dict(options, encoding=encoding, compression=compression, metadata=metadata))


def dumps(values, type, encoding="auto", compression="none", nullable=None, is_array=None,
          append_batch=0, metadata=None, footer_metadata=None, **options):
    """Like write(), but returns the file's bytes (cfile.open() also takes bytes)."""
    return _write(None, values, type, nullable, is_array, append_batch, footer_metadata,
                  dict(options, encoding=encoding, compression=compression, metadata=metadata))


__all__ = ["Writer", "write", "dumps", "CFileError"]

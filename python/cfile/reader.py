"""Reading a CFile: cfile.open(path) -> Reader."""

import ctypes

from . import _convert as cv
from . import _lib
from . import arrow as _arrow
from ._lib import CFileError

# Rows asked of the library per call; a batch also ends at a block boundary.
_BATCH_ROWS = 65536

try:  # numpy is optional: only read_numpy() and read(numpy=True) need it.
    import numpy as _np
except ImportError:  # pragma: no cover - depends on the machine
    _np = None


def _meta_value(s):
    b = ctypes.string_at(s.data, s.len) if s.len else b""
    return cv._decode_str(b)


class _Iter:
    """One cf_iter: the reader's own (read(), seek(): freed by close()) or a
    generator's (freed when it ends, under a lease on the reader's handle)."""

    def __init__(self, reader):
        self.reader = reader
        p = ctypes.c_void_p()
        err = _lib.CError()
        _lib.check(_lib.lib().cf_iter_create(ctypes.byref(p), reader._ptr(), ctypes.byref(err)),
                   err)
        self.ptr = p.value

    def get(self):
        if not self.ptr:
            raise ValueError("the reader was closed")
        return self.ptr

    def free(self):
        if self.ptr:
            _lib.lib().cf_iter_free(self.ptr)
            self.ptr = None


def _open_c_reader(source, mmap):
    """A library reader of its own over `source` (a path as bytes, or a ctypes
    buffer); returns (reader, io or None)."""
    lib = _lib.lib()
    err = _lib.CError()
    out = ctypes.c_void_p()
    if isinstance(source, bytes):
        _lib.check(lib.cf_reader_open_file(ctypes.byref(out), source, bool(mmap), None,
                                           ctypes.byref(err)), err)
        return out.value, None
    return _lib.open_in_memory(lib.cf_reader_open, source,
                               len(source) - 1 if len(source) > 1 else 0)


def stream_columns(ptr, sources, names, o):
    """Fill the ArrowArrayStream at ptr with CFiles read side by side; returns the
    cleanup that frees the library readers the stream reads from."""
    lib = _lib.lib()
    opened = []

    def cleanup():
        for r, io in opened:
            lib.cf_reader_free(r)
            if io:
                lib.cf_io_free(io)
        opened.clear()

    try:
        for src, mmap in sources:
            opened.append(_open_c_reader(src, mmap))
        n = len(opened)
        readers = (ctypes.c_void_p * n)(*[r for r, _ in opened])
        cnames = (ctypes.c_char_p * n)(*[nm.encode() for nm in names])
        err = _lib.CError()
        _lib.check(lib.cf_arrow_stream_cfiles(ptr, readers, cnames, n, ctypes.byref(o),
                                              ctypes.byref(err)), err)
    except BaseException:
        cleanup()
        raise
    sources_keepalive = list(sources)  # memory sources' buffers live as long as the stream

    def done():
        cleanup()
        sources_keepalive.clear()

    return done


class Reader(_lib.Closing, _arrow.StreamSource):
    """An open CFile. Use cfile.open() to make one.

    A Reader is a context manager; close() (or leaving the `with` block) frees the
    library's reader and every iterator at once. read(), read_next() and seek()
    share one iterator: use a Reader from one thread at a time (batches()
    generators each have their own iterator). Values come out in the forms
    described in cfile's module documentation.
    """

    def __init__(self, source, mmap=False, verify_checksums=True, max_block_len=None,
                 scale=None, timestamps="int", dates="int", column_name="value"):
        self._h = None
        self._source = None
        self._data = None
        self._main = None
        io_ptr = None
        self._opts = cv.ReadOptions(scale, timestamps, dates)
        lib = _lib.lib()
        ro = _lib.CReaderOptions()
        lib.cf_reader_options_init(ctypes.byref(ro))
        ro.verify_checksums = bool(verify_checksums)
        if max_block_len is not None:
            ro.max_block_len = int(max_block_len)
        err = _lib.CError()
        out = ctypes.c_void_p()
        if isinstance(source, (bytes, bytearray, memoryview)):
            # The library borrows these bytes for the reader's whole life.
            self._data = ctypes.create_string_buffer(bytes(source), len(source) + 1)
            io = ctypes.c_void_p()
            _lib.check(lib.cf_io_open_mem(ctypes.byref(io), ctypes.addressof(self._data),
                                          len(source), ctypes.byref(err)), err)
            self._source = self._data
            io_ptr = io.value
            st = lib.cf_reader_open(ctypes.byref(out), io_ptr, ctypes.byref(ro),
                                    ctypes.byref(err))
            self.name = "<memory>"
        else:
            path = source.__fspath__() if hasattr(source, "__fspath__") else source
            if isinstance(path, str):
                path = path.encode()
            if not isinstance(path, bytes):
                raise TypeError("open() takes a path or bytes, not %s" % type(source).__name__)
            st = lib.cf_reader_open_file(ctypes.byref(out), path, bool(mmap), ctypes.byref(ro),
                                         ctypes.byref(err))
            self.name = path.decode(errors="replace")
            self._source = path
        self._mmap = bool(mmap)
        self.column_name = column_name
        if st != _lib.OK:
            if io_ptr:
                lib.cf_io_free(io_ptr)
            _lib.check(st, err)
        self._h = _lib.io_handle(out.value, lib.cf_reader_free, io_ptr, "the reader",
                                 [self._data])
        self.info = self._read_info()
        self._type = self._info.type
        self.num_values = self._info.num_values

    # ---- header and footer -------------------------------------------------------------

    def _ptr(self):
        return self._h.get()

    def _read_info(self):
        lib = _lib.lib()
        fi = lib.cf_reader_info(self._ptr()).contents
        self._info = fi

        def pairs(fn):
            arr = ctypes.POINTER(_lib.CMetadataPair)()
            n = fn(self._ptr(), ctypes.byref(arr))
            return [(_meta_value(arr[i].key), _meta_value(arr[i].value)) for i in range(n)]

        header = pairs(lib.cf_reader_header_metadata)
        footer = pairs(lib.cf_reader_footer_metadata)
        merged = {}
        for k, v in header + footer:  # Kudu's lookup: header first, first match wins
            merged.setdefault(k, v)
        return {
            "format_version": fi.format_version,
            "type": _lib.type_name(fi.type),
            "encoding": _lib.encoding_name(fi.encoding),
            "compression": _lib.compression_name(fi.compression),
            "num_values": fi.num_values,
            "nullable": bool(fi.nullable),
            "is_array": bool(fi.is_array),
            "has_posidx": bool(fi.has_posidx),
            "has_validx": bool(fi.has_validx),
            "has_dict_block": bool(fi.has_dict_block),
            "features": {"incompatible": fi.incompatible_features,
                         "compatible": fi.compatible_features},
            "file_size": fi.file_size,
            "metadata": merged,
            "header_metadata": header,
            "footer_metadata": footer,
        }

    def __len__(self):
        return self.num_values

    def __repr__(self):
        state = "closed" if self.closed else "%s, %d values" % (self.info["type"],
                                                                 self.num_values)
        return "<cfile.Reader %s (%s)>" % (self.name, state)

    # ---- positioning -------------------------------------------------------------------

    def _iter_main(self):
        self._ptr()
        if self._main is None or not self._main.ptr:
            self._main = _Iter(self)
        return self._main

    def _position(self, it, start):
        lib = _lib.lib()
        err = _lib.CError()
        p = it.get()
        if start == 0 or not self._info.has_posidx:
            _lib.check(lib.cf_iter_seek_to_first(p, ctypes.byref(err)), err)
            # Without a positional index the only way to row `start` is to walk there.
            b = _lib.CBatch()
            cur = 0
            while cur < start:
                _lib.check(lib.cf_iter_next_batch(p, start - cur, ctypes.byref(b),
                                                  ctypes.byref(err)), err)
                if b.count == 0:
                    raise CFileError(_lib.ECORRUPT, "file ended at row %d, before row %d"
                                     % (cur, start))
                cur += b.count
        else:
            _lib.check(lib.cf_iter_seek_to_ordinal(p, start, ctypes.byref(err)), err)

    def _range(self, start, count):
        n = self.num_values
        start = int(start)
        if start < 0:
            raise IndexError("start must be >= 0")
        if start > n:
            raise IndexError("start %d is past the end (%d values)" % (start, n))
        if count is None:
            count = n - start
        count = int(count)
        if count < 0:
            raise ValueError("count must be >= 0")
        return start, min(count, n - start)

    def seek(self, value):
        """Find the first row whose value is >= `value` through the value index.

        Returns (ordinal, exact) -- exact tells whether that row equals value --
        or None when every value is smaller. Raises CFileError (EINVAL) when the
        file has no value index. read_next() continues from the found row.
        """
        it = self._iter_main()
        key = cv.encode(self._type, [value], self._opts.scale)
        exact = ctypes.c_bool()
        err = _lib.CError()
        lib = _lib.lib()
        st = lib.cf_iter_seek_at_or_after(it.get(), key.ptr, ctypes.byref(exact),
                                          ctypes.byref(err))
        if st == _lib.ENOTFOUND:
            return None
        _lib.check(st, err)
        return lib.cf_iter_current_ordinal(it.get()), bool(exact.value)

    # ---- values ------------------------------------------------------------------------

    def _decode_batch(self, b):
        t, n, opts = self._type, b.count, self._opts
        if not self._info.is_array:
            return cv.apply_nulls(cv.decode(t, b.values, n, opts), cv.bitmap_flags(b.nonnull, n))
        offs = memoryview(ctypes.string_at(b.elem_offsets, 4 * (n + 1))).cast("I")
        elems = cv.apply_nulls(cv.decode(t, b.values, b.elem_count, opts),
                               cv.bitmap_flags(b.elem_nonnull, b.elem_count))
        cells = cv.bitmap_flags(b.nonnull, n)
        out = [elems[offs[i]:offs[i + 1]] for i in range(n)]
        return cv.apply_nulls(out, cells)

    def _pull(self, it, count, sink):
        """Read `count` rows from it's position, handing each batch to sink(batch)."""
        lib = _lib.lib()
        err = _lib.CError()
        b = _lib.CBatch()
        while count > 0:
            _lib.check(lib.cf_iter_next_batch(it.get(), min(count, _BATCH_ROWS),
                                              ctypes.byref(b), ctypes.byref(err)), err)
            if b.count == 0:
                raise CFileError(_lib.ECORRUPT, "file ended %d rows early" % count)
            sink(b)
            count -= b.count

    def read(self, start=0, count=None, numpy=False):
        """Rows [start, start+count) as a list (all rows from start when count is
        None; fewer when the file ends first). numpy=True: see read_numpy()."""
        if numpy:
            return self.read_numpy(start, count)
        start, count = self._range(start, count)
        out = []
        if count == 0:
            return out
        it = self._iter_main()
        self._position(it, start)
        self._pull(it, count, lambda b: out.extend(self._decode_batch(b)))
        return out

    def read_next(self, count=1):
        """Up to `count` rows from where the last seek() or read() left off."""
        it = self._iter_main()
        pos = _lib.lib().cf_iter_current_ordinal(it.get())
        count = min(int(count), self.num_values - pos)
        out = []
        self._pull(it, count, lambda b: out.extend(self._decode_batch(b)))
        return out

    def numpy_dtype(self):
        """The numpy dtype read_numpy() returns (object for STRING, VARCHAR, BINARY,
        INT128 and DECIMAL128, whose values are Python objects), or None for array
        columns (or when numpy is not installed)."""
        if _np is None or self._info.is_array:
            return None
        name = cv.NUMPY_DTYPE.get(self._type)
        return _np.dtype(name if name is not None else object)

    def read_numpy(self, start=0, count=None):
        """Rows as one numpy array (not for array columns).

        Fixed-width types come out in their raw memory forms (DATE: int32 days,
        UNIXTIME_MICROS: int64 microseconds, DECIMAL32/64: the unscaled ints); each
        batch is copied once (memmove) into one preallocated array, no Python object
        per value. STRING, VARCHAR, BINARY, INT128 and DECIMAL128 come out as an
        object array of the values read() returns. A nullable column comes out as a
        numpy.ma.MaskedArray whose mask is True for NULL rows (the data there is 0,
        or None in object arrays).
        """
        if _np is None:
            raise ImportError("read_numpy() needs numpy")
        dt = self.numpy_dtype()
        if dt is None:
            raise TypeError("%s array column has no numpy form (use read())" % self.info["type"])
        start, count = self._range(start, count)
        arr = _np.empty(count, dtype=dt)
        mask = _np.zeros(count, dtype=bool) if self._info.nullable else None
        if count:
            it = self._iter_main()
            self._position(it, start)
            done = [0]

            def sink(b):
                n, at = b.count, done[0]
                if dt == object:
                    arr[at:at + n] = self._decode_batch(b)
                else:
                    ctypes.memmove(arr.ctypes.data + at * dt.itemsize, b.values, n * dt.itemsize)
                if mask is not None:
                    flags = cv.bitmap_flags(b.nonnull, n)
                    if flags is not None:
                        mask[at:at + n] = _np.logical_not(_np.array(flags, dtype=bool))
                done[0] += n

            self._pull(it, count, sink)
        if mask is None:
            return arr
        return _np.ma.MaskedArray(arr, mask=mask)

    def to_pandas(self, start=0, count=None, name=None):
        """The rows as a pandas Series (needs pandas; the Series is named `name`,
        default the reader's column_name). Nullable integer and bool columns use
        pandas' nullable dtypes (Int32, boolean, ...) so NULL stays NULL without
        turning the column into floats; floats use NaN for NULL; everything else is
        an object Series of read()'s values (None for NULL)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("to_pandas() needs pandas (Debian: python3-pandas)") from None
        name = self.column_name if name is None else name
        if self._info.is_array:
            return pd.Series(self.read(start, count), name=name, dtype=object)
        a = self.read_numpy(start, count)
        if not isinstance(a, _np.ma.MaskedArray):
            return pd.Series(a, name=name)
        kind = a.dtype.kind
        if kind in "iub":
            ext = {"b": "boolean"}.get(kind) or str(a.dtype).capitalize().replace("Uint", "UInt")
            return pd.Series(pd.array(a.data, dtype=ext), name=name).mask(a.mask)
        if kind == "f":
            return pd.Series(a.filled(_np.nan), name=name)
        return pd.Series(a.data, name=name, dtype=object)

    # ---- Arrow --------------------------------------------------------------------------

    def _arrow_stream(self, o, ptr):
        self._ptr()
        return stream_columns(ptr, [(self._source, self._mmap)], [self.column_name], o)

    def batches(self, size=_BATCH_ROWS, start=0, count=None, numpy=False):
        """Yield the rows [start, start+count) as lists of at most `size` rows
        (numpy arrays with numpy=True). Each generator has its own iterator, so
        several may run at once; it is freed when the generator finishes, is
        closed or garbage collected, or when the reader is closed."""
        if size < 1:
            raise ValueError("size must be >= 1")
        start, count = self._range(start, count)
        if numpy and (self.numpy_dtype() is None or self.numpy_dtype() == object
                      or self._info.nullable):
            raise TypeError("batches(numpy=True) needs a fixed-width, non-nullable column "
                            "(read_numpy() takes the others)")
        return self._h.leased(self._batches(size, start, count, numpy))

    def _batches(self, size, start, count, numpy):
        if count == 0:
            return
        it = _Iter(self)
        try:
            self._position(it, start)
            lib = _lib.lib()
            err = _lib.CError()
            b = _lib.CBatch()
            pending = []
            while count > 0:
                _lib.check(lib.cf_iter_next_batch(it.get(), min(count, size - len(pending)),
                                                  ctypes.byref(b), ctypes.byref(err)), err)
                if b.count == 0:
                    raise CFileError(_lib.ECORRUPT, "file ended %d rows early" % count)
                count -= b.count
                if numpy:
                    dt = self.numpy_dtype()
                    arr = _np.empty(b.count, dtype=dt)
                    ctypes.memmove(arr.ctypes.data, b.values, b.count * dt.itemsize)
                    yield arr
                    continue
                pending.extend(self._decode_batch(b))
                if len(pending) >= size or count == 0:
                    out, pending = pending, []
                    yield out
        finally:
            it.free()

    def __iter__(self):
        for batch in self.batches():
            yield from batch

    def verify(self):
        """Check every checksum and decode every block; raises CFileError (with the
        first problem) when anything is damaged."""
        err = _lib.CError()
        damaged = ctypes.c_size_t()
        _lib.check(_lib.lib().cf_reader_verify(self._ptr(), None, None, ctypes.byref(damaged),
                                               ctypes.byref(err)), err)

    # ---- lifetime ----------------------------------------------------------------------

    def close(self):
        """Free the reader; later calls raise ValueError, and so does the next step
        of a generator still running (its iterator is freed then, and the
        library's reader with the last of them: _lib.Handle)."""
        if self._main is not None:
            self._main.free()
            self._main = None
        if self._h is not None:
            self._h.close()

    @property
    def closed(self):
        return self._h is None or self._h.closed


def open(path, mmap=False, verify_checksums=True, max_block_len=None, scale=None,
         timestamps="int", dates="int", column_name="value"):
    """Open a CFile for reading (a path, or the file's bytes).

    mmap:        map the file instead of reading it with pread
    scale:       DECIMAL columns come out as decimal.Decimal(unscaled) * 10**-scale;
                 without it, as the unscaled int (a CFile does not record the scale)
    timestamps:  "int" (microseconds since the epoch) or "datetime" (aware, UTC)
    dates:       "int" (days since 1970-01-01) or "date" (datetime.date)
    column_name: the column's name in Arrow streams and pandas (a CFile has none)
    """
    return Reader(path, mmap=mmap, verify_checksums=verify_checksums,
                  max_block_len=max_block_len, scale=scale, timestamps=timestamps, dates=dates,
                  column_name=column_name)


class Columns(_arrow.StreamSource):
    """CFiles holding the columns of one table, read side by side as Arrow record
    batches: cfile.columns({"id": "id.cfile", "name": "name.cfile"}) (or a list of
    (name, path) pairs). Every file must hold the same number of rows."""

    def __init__(self, columns, mmap=False):
        items = list(columns.items()) if hasattr(columns, "items") else list(columns)
        if not items:
            raise ValueError("columns() needs at least one column")
        self.names = []
        self._sources = []
        for name, path in items:
            p = path.__fspath__() if hasattr(path, "__fspath__") else path
            if isinstance(p, str):
                p = p.encode()
            if not isinstance(p, bytes):
                raise TypeError("column %r: a path, not %s" % (name, type(path).__name__))
            self.names.append(str(name))
            self._sources.append((p, bool(mmap)))

    def _arrow_stream(self, o, ptr):
        return stream_columns(ptr, self._sources, self.names, o)


def columns(columns, mmap=False):
    """See Columns."""
    return Columns(columns, mmap=mmap)

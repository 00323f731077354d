"""Tables (include/cfile/rowset.h): a MemRowSet plus DiskRowSets in a directory.

    t = cfile.table.create("dir", "id INT64 KEY, name STRING NULL, tags INT32[] NULL")
    t.insert({"id": 1, "name": "a", "tags": [1, None]})     # ts: last_ts + 1
    t.update(1, {"name": "b"})
    t.get(1)                      # {"id": 1, "name": "b", "tags": [1, None]} or None
    t.delete(1)
    for row in t.scan(columns=["name"], where=[("id", ">=", 10)], snapshot=5): ...
    t.close()

A key is the key column's value, or a tuple of them for a composite key. Rows
are dicts (column name -> value, in the value forms of cfile's module docs).
Every mutation takes a timestamp `ts` larger than any the table has used
(default: last_ts + 1). A scan is an Arrow stream source too (pa.table(scan)),
read through a read-only table handle of its own.
"""

import ctypes

from . import _convert as cv
from . import _lib
from . import arrow as _arrow
from ._lib import CFileError
from ._lib import _E, _P, _PP


class CColumn(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("type", ctypes.c_int),
        ("nullable", ctypes.c_bool),
        ("is_array", ctypes.c_bool),
        ("is_key", ctypes.c_bool),
        ("encoding", ctypes.c_int),
        ("compression", ctypes.c_int),
        ("block_size", ctypes.c_uint32),
        ("precision", ctypes.c_int),
        ("scale", ctypes.c_int),
        ("length", ctypes.c_int),
    ]


class CTableOptions(ctypes.Structure):
    _fields_ = [
        ("version", ctypes.c_uint32),
        ("cache", ctypes.c_void_p),
        ("cache_bytes", ctypes.c_size_t),
        ("read_only", ctypes.c_bool),
        ("lock_timeout_ms", ctypes.c_uint32),
        ("auto_compact", ctypes.c_bool),
        ("compact_budget_bytes", ctypes.c_uint64),
        ("sync_mode", ctypes.c_int),
        ("sync_bytes", ctypes.c_uint64),
        ("wal_max_bytes", ctypes.c_uint64),
        ("mmap", ctypes.c_bool),
    ]


class CPred(ctypes.Structure):
    _fields_ = [("col", ctypes.c_size_t), ("op", ctypes.c_int), ("value", ctypes.c_void_p)]


class CScanOptions(ctypes.Structure):
    _fields_ = [
        ("version", ctypes.c_uint32),
        ("cols", ctypes.POINTER(ctypes.c_size_t)),
        ("ncols", ctypes.c_size_t),
        ("preds", ctypes.POINTER(CPred)),
        ("npreds", ctypes.c_size_t),
        ("snapshot", ctypes.c_uint64),
        ("batch_rows", ctypes.c_size_t),
        ("threads", ctypes.c_size_t),
    ]


class CRowBatch(ctypes.Structure):
    _fields_ = [
        ("count", ctypes.c_size_t),
        ("ncols", ctypes.c_size_t),
        ("cols", ctypes.POINTER(_lib.CBatch)),
        ("ords", ctypes.c_void_p),
    ]


class CChange(ctypes.Structure):
    _fields_ = [("col", ctypes.c_size_t), ("value", ctypes.c_void_p)]


class CArrayCell(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("count", ctypes.c_size_t),
        ("values", ctypes.c_void_p),
        ("nonnull", ctypes.c_void_p),
    ]


_lib.declare({
    "cf_schema_parse": (ctypes.c_int, [_PP, ctypes.c_char_p, _E]),
    "cf_schema_free": (None, [_P]),
    "cf_schema_column_count": (ctypes.c_size_t, [_P]),
    "cf_schema_column_at": (ctypes.POINTER(CColumn), [_P, ctypes.c_size_t]),
    "cf_rowset_create_empty": (ctypes.c_int, [ctypes.c_char_p, _P, _E]),
    "cf_table_options_init": (None, [ctypes.POINTER(CTableOptions)]),
    "cf_table_open": (ctypes.c_int, [_PP, ctypes.c_char_p, ctypes.POINTER(CTableOptions),
                                     _E]),
    "cf_table_close": (ctypes.c_int, [_P, _E]),
    "cf_table_free": (None, [_P]),
    "cf_table_schema": (_P, [_P]),
    "cf_table_last_ts": (ctypes.c_uint64, [_P]),
    "cf_table_insert": (ctypes.c_int, [_P, _P, ctypes.c_uint64, _E]),
    "cf_table_update": (ctypes.c_int, [_P, _P, ctypes.POINTER(CChange), ctypes.c_size_t,
                                       ctypes.c_uint64, _E]),
    "cf_table_delete": (ctypes.c_int, [_P, _P, ctypes.c_uint64, _E]),
    "cf_table_get": (ctypes.c_int, [_P, _P, ctypes.c_uint64, ctypes.POINTER(CRowBatch), _E]),
    "cf_table_flush": (ctypes.c_int, [_P, _E]),
    "cf_table_sync": (ctypes.c_int, [_P, _E]),
    "cf_table_compact": (ctypes.c_int, [_P, ctypes.c_uint64, _E]),
    "cf_scan_options_init": (None, [ctypes.POINTER(CScanOptions)]),
    "cf_table_scanner_create": (ctypes.c_int, [_PP, _P, ctypes.POINTER(CScanOptions), _E]),
    "cf_table_scanner_next": (ctypes.c_int, [_P, ctypes.POINTER(CRowBatch), _E]),
    "cf_table_scanner_free": (None, [_P]),
})

SNAPSHOT_LATEST = (1 << 64) - 1
_OPS = {"=": 0, "==": 0, "!=": 1, "<>": 1, "<": 2, "<=": 3, ">": 4, ">=": 5,
        "is null": 6, "is not null": 7}


def decode_batch(t, is_array, b, opts, start=0, count=None):
    """Python values of rows [start, start+count) of a cf_batch (iter.h's form)."""
    n = b.count if count is None else count
    if not is_array:
        size = cv.value_size(t)
        vals = cv.decode(t, (b.values or 0) + start * size, n, opts) if n else []
        flags = cv.bitmap_flags(b.nonnull, start + n)
        return cv.apply_nulls(vals, flags[start:] if flags is not None else None)
    total = start + n
    offs = memoryview(ctypes.string_at(b.elem_offsets, 4 * (total + 1))).cast("I")
    elems = cv.apply_nulls(cv.decode(t, b.values, b.elem_count, opts),
                           cv.bitmap_flags(b.elem_nonnull, b.elem_count))
    cells = cv.bitmap_flags(b.nonnull, total)
    out = [elems[offs[i]:offs[i + 1]] for i in range(start, total)]
    return cv.apply_nulls(out, cells[start:] if cells is not None else None)


def _check(st, err):
    _lib.check(st, err)


class _Schema:
    def __init__(self, ptr):
        lib = _lib.lib()
        self.columns = []
        for i in range(lib.cf_schema_column_count(ptr)):
            c = lib.cf_schema_column_at(ptr, i).contents
            self.columns.append({
                "name": c.name.decode(), "type": _lib.type_name(c.type), "type_id": c.type,
                "nullable": bool(c.nullable), "is_array": bool(c.is_array),
                "is_key": bool(c.is_key), "precision": c.precision, "scale": c.scale,
            })
        self.names = [c["name"] for c in self.columns]
        self.keys = [i for i, c in enumerate(self.columns) if c["is_key"]]
        self.index = {n: i for i, n in enumerate(self.names)}

    def col(self, name):
        if isinstance(name, int):
            if not 0 <= name < len(self.columns):
                raise IndexError("column %d of %d" % (name, len(self.columns)))
            return name
        try:
            return self.index[name]
        except KeyError:
            raise KeyError("no column %r (columns: %s)" % (name, ", ".join(self.names))) from None


class _Values:
    """Memory forms of one row's values, kept alive with their pointers."""

    def __init__(self):
        self.keep = []

    def one(self, col, v):
        """A pointer to v's memory form for column col (dict), or None for NULL."""
        if v is None:
            return None
        t = col["type_id"]
        scale = col["scale"] if col["type"].startswith("DECIMAL") and col["scale"] else None
        if col["is_array"]:
            if not isinstance(v, (list, tuple)):
                raise TypeError("column %r holds arrays: give a list" % col["name"])
            enc = cv.encode(t, list(v), scale)
            bm = cv.make_bitmap([e is not None for e in v])
            bmbuf = (ctypes.c_uint8 * max(len(bm), 1)).from_buffer(bm) if bm else None
            cell = CArrayCell(t, len(v), enc.ptr, ctypes.addressof(bmbuf) if bmbuf else None)
            self.keep += [enc, bm, bmbuf, cell]
            return ctypes.addressof(cell)
        enc = cv.encode(t, [v], scale)
        self.keep.append(enc)
        return enc.ptr


class Table(_lib.Closing, _arrow.ScanSource):
    """An open table. cfile.table.open(path) / create(path, schema) make one.

    read_only=True takes no lock and refuses mutations (a reader sees the version
    current when it opened, plus the log). Several threads may share one Table:
    its calls take turns (the default timestamp is taken in the same turn). lock_timeout_ms: how long a writer waits
    for another writer's lock (default 10000). sync: "commit" (fdatasync each op,
    the default), "group" (sync() commits), "none" (bulk loads). mmap=True reads the
    rowsets' files through mmap instead of pread (less CPU when cached, but a file
    cut short underneath or a disk error kills the process with SIGBUS)."""

    def __init__(self, path, read_only=False, lock_timeout_ms=None, sync="commit", mmap=False):
        self._h = None
        self.path = path.__fspath__() if hasattr(path, "__fspath__") else path
        lib = _lib.lib()
        o = CTableOptions()
        lib.cf_table_options_init(ctypes.byref(o))
        o.read_only = bool(read_only)
        if lock_timeout_ms is not None:
            o.lock_timeout_ms = int(lock_timeout_ms)
        modes = {"commit": 0, "group": 1, "none": 2}
        if sync not in modes:
            raise ValueError("sync must be one of %s" % ", ".join(modes))
        o.sync_mode = modes[sync]
        o.mmap = bool(mmap)
        out = ctypes.c_void_p()
        err = _lib.CError()
        _check(lib.cf_table_open(ctypes.byref(out), self.path.encode(), ctypes.byref(o),
                                 ctypes.byref(err)), err)
        self._h = _lib.Handle(out.value, lib.cf_table_free, "the table")
        self.read_only = bool(read_only)
        self._schema = _Schema(lib.cf_table_schema(out.value))
        self._opts = cv.ReadOptions()

    # ---- description ---------------------------------------------------------------------

    def _ptr(self):
        return self._h.get()

    @property
    def schema(self):
        """The columns: dicts of name, type, nullable, is_array, is_key, precision, scale."""
        return [dict(c) for c in self._schema.columns]

    @property
    def columns(self):
        return list(self._schema.names)

    @property
    def last_ts(self):
        with self._h as t:
            return _lib.lib().cf_table_last_ts(t)

    def __repr__(self):
        return "<cfile.table.Table %s (%s)>" % (self.path, "closed" if self.closed else
                                                ", ".join(self._schema.names))

    # ---- keys and rows ---------------------------------------------------------------------

    def _key(self, key, vals):
        keys = self._schema.keys
        if not isinstance(key, tuple):
            key = (key,)
        if len(key) != len(keys):
            raise ValueError("the key has %d column%s, got %d value%s" % (
                len(keys), "" if len(keys) == 1 else "s", len(key), "" if len(key) == 1 else "s"))
        ptrs = (ctypes.c_void_p * len(keys))()
        for i, (k, v) in enumerate(zip(keys, key)):
            if v is None:
                raise ValueError("a key value may not be None")
            ptrs[i] = vals.one(self._schema.columns[k], v)
        vals.keep.append(ptrs)
        return ptrs

    def _ts(self, t, ts):
        """The op's timestamp; called holding the handle, so that two threads
        never both take last_ts + 1."""
        return _lib.lib().cf_table_last_ts(t) + 1 if ts is None else int(ts)

    def _row(self, b, i=0):
        cols = self._schema.columns
        return {c["name"]: decode_batch(c["type_id"], c["is_array"], b.cols[j], self._opts,
                                        i, 1)[0]
                for j, c in enumerate(cols)}

    def insert(self, row, ts=None):
        """Insert one row (a dict by column name, or a sequence in column order;
        missing columns are NULL). CFileError EINVAL "duplicate key" when a live
        row has the key."""
        cols = self._schema.columns
        if isinstance(row, dict):
            unknown = set(row) - set(self._schema.names)
            if unknown:
                raise KeyError("no column %s" % ", ".join(sorted(map(repr, unknown))))
            values = [row.get(c["name"]) for c in cols]
        else:
            values = list(row)
            if len(values) != len(cols):
                raise ValueError("a row has %d values, got %d" % (len(cols), len(values)))
        vals = _Values()
        ptrs = (ctypes.c_void_p * len(cols))(*[vals.one(c, v) for c, v in zip(cols, values)])
        err = _lib.CError()
        with self._h as t:
            st = _lib.lib().cf_table_insert(t, ptrs, self._ts(t, ts), ctypes.byref(err))
        _check(st, err)

    def update(self, key, changes, ts=None):
        """Set columns of a live row: changes is a dict (column -> value, None =
        NULL). CFileError ENOTFOUND when no live row has the key."""
        if not changes:
            raise ValueError("update() needs at least one change")
        vals = _Values()
        k = self._key(key, vals)
        ch = (CChange * len(changes))()
        for i, (name, v) in enumerate(changes.items()):
            j = self._schema.col(name)
            ch[i].col = j
            ch[i].value = vals.one(self._schema.columns[j], v)
        err = _lib.CError()
        with self._h as t:
            st = _lib.lib().cf_table_update(t, k, ch, len(changes), self._ts(t, ts),
                                            ctypes.byref(err))
        _check(st, err)

    def delete(self, key, ts=None):
        """Delete a live row. CFileError ENOTFOUND when absent or already deleted."""
        vals = _Values()
        k = self._key(key, vals)
        err = _lib.CError()
        with self._h as t:
            st = _lib.lib().cf_table_delete(t, k, self._ts(t, ts), ctypes.byref(err))
        _check(st, err)

    def get(self, key, snapshot=None):
        """The row with this key (a dict) at the snapshot (default: latest), or None."""
        vals = _Values()
        k = self._key(key, vals)
        b = CRowBatch()
        err = _lib.CError()
        with self._h as t:  # the row's views last until the next call on the handle
            st = _lib.lib().cf_table_get(t, k,
                                         SNAPSHOT_LATEST if snapshot is None else int(snapshot),
                                         ctypes.byref(b), ctypes.byref(err))
            if st == _lib.ENOTFOUND:
                return None
            _check(st, err)
            return self._row(b)

    def __contains__(self, key):
        return self.get(key) is not None

    # ---- scans ---------------------------------------------------------------------------------

    def scan(self, columns=None, where=None, snapshot=None, batch_rows=None, threads=None):
        """A Scan: rows (dicts of the projected columns) in key order, at the
        snapshot (default: latest). where: (column, op, value) triples, ANDed; op
        is one of = != < <= > >= and "is null" / "is not null" (value ignored).
        threads: threads that read the columns (default 1; 0 = one per CPU);
        the rows are the same for every value."""
        return Scan(self, columns, where, snapshot, batch_rows, threads)

    # ---- maintenance and lifetime ------------------------------------------------------------

    def flush(self):
        """Write the MemRowSet as a DiskRowSet (a checkpoint of the log)."""
        err = _lib.CError()
        with self._h as t:
            _check(_lib.lib().cf_table_flush(t, ctypes.byref(err)), err)

    def compact(self, ahm=0):
        """Merge every rowset into one; history older than ahm is dropped."""
        err = _lib.CError()
        with self._h as t:
            _check(_lib.lib().cf_table_compact(t, int(ahm), ctypes.byref(err)), err)

    def close(self):
        """Sync the log and free the handle (releasing the writer lock). A scan
        still being iterated raises ValueError at its next step; the handle is
        freed when the last such scan ends (_lib.Handle)."""
        h = self._h
        if h is None or h.closed:
            return
        lib = _lib.lib()
        err = _lib.CError()
        with h as t:
            if h.leases:  # freed later without a sync: sync now
                _check(lib.cf_table_sync(t, ctypes.byref(err)), err)

        def final(t):
            _check(lib.cf_table_close(t, ctypes.byref(err)), err)

        h.close(final)

    @property
    def closed(self):
        return self._h is None or self._h.closed

    def __del__(self):
        # Frees without close(): cf_table_close syncs the log and may fail; a
        # finalizer only lets go of the handle.
        try:
            if self._h is not None:
                self._h.close()
        except Exception:
            pass


class _ScanSpec:
    """Scan options in C form, kept alive with their values."""

    def __init__(self, table, columns, where, snapshot, batch_rows, threads=None):
        sch = table._schema
        self.cols = None if columns is None else [sch.col(c) for c in columns]
        if self.cols is not None and not self.cols:
            raise ValueError("a scan needs at least one column")
        self.vals = _Values()
        preds = []
        for w in where or []:
            if len(w) == 2:
                name, op = w
                v = None
            else:
                name, op, v = w
            op = op.lower() if isinstance(op, str) else op
            if op not in _OPS:
                raise ValueError("unknown operator %r (one of %s)" % (op, ", ".join(_OPS)))
            j = sch.col(name)
            code = _OPS[op]
            if code < 6 and v is None:
                raise ValueError("%s %s needs a value (use 'is null')" % (sch.names[j], op))
            preds.append((j, code, None if code >= 6 else self.vals.one(sch.columns[j], v)))
        self.o = CScanOptions()
        _lib.lib().cf_scan_options_init(ctypes.byref(self.o))
        if self.cols is not None:
            self.carr = (ctypes.c_size_t * len(self.cols))(*self.cols)
            self.o.cols = self.carr
            self.o.ncols = len(self.cols)
        if preds:
            self.parr = (CPred * len(preds))(*[CPred(j, c, v) for j, c, v in preds])
            self.o.preds = self.parr
            self.o.npreds = len(preds)
        if snapshot is not None:
            self.o.snapshot = int(snapshot)
        if batch_rows is not None:
            self.o.batch_rows = int(batch_rows)
        if threads is not None:
            if not 0 <= int(threads) <= 64:
                raise ValueError("threads must be 0 (one per CPU) .. 64")
            self.o.threads = int(threads)
        idx = self.cols if self.cols is not None else range(len(sch.columns))
        self.columns = [sch.columns[j] for j in idx]


class RowScan(_arrow.StreamSource):
    """What every scan of rows (a table's, a Kudu tablet's) offers: iterating yields
    dicts; batches() yields lists of them; to_pandas() makes a DataFrame; it is an
    Arrow stream source (__arrow_c_stream__). A subclass sets self._spec (its
    .columns) and self._opts and says how its scanner is made, advanced and freed."""

    _next = None  # the library's scanner_next
    _free = None  # the library's scanner_free

    def _create(self, out, err):
        raise NotImplementedError

    @property
    def columns(self):
        return [c["name"] for c in self._spec.columns]

    def _handle(self):
        raise NotImplementedError

    def batches(self):
        """Lists of row dicts, one per scanner batch. The scan holds a lease on its
        handle (_lib.Handle): closing the table or tablet meanwhile makes the next
        step raise ValueError."""
        h = self._handle()
        return h.leased(self._batches())

    def _batches(self):
        lib = _lib.lib()
        sc = ctypes.c_void_p()
        err = _lib.CError()
        _check(self._create(ctypes.byref(sc), ctypes.byref(err)), err)
        try:
            b = CRowBatch()
            cols = self._spec.columns
            names = [c["name"] for c in cols]
            while True:
                _check(getattr(lib, self._next)(sc, ctypes.byref(b), ctypes.byref(err)), err)
                if b.count == 0:
                    return
                colvals = [decode_batch(c["type_id"], c["is_array"], b.cols[j], self._opts)
                           for j, c in enumerate(cols)]
                yield [dict(zip(names, r)) for r in zip(*colvals)]
        finally:
            getattr(lib, self._free)(sc)

    def __iter__(self):
        for batch in self.batches():
            yield from batch

    def to_list(self):
        return list(self)

    def to_pandas(self):
        """The rows as a pandas DataFrame (needs pandas)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("to_pandas() needs pandas (Debian: python3-pandas)") from None
        return pd.DataFrame(self.to_list(), columns=self.columns)


class Scan(RowScan):
    """A table scan (Table.scan), a RowScan. batches() uses the table's handle: a
    change to the table (from this thread or another) makes its next step raise
    CFileError ESTATE, closing the table makes it raise ValueError. Its Arrow
    stream reads through a read-only handle of its own."""

    _next = "cf_table_scanner_next"
    _free = "cf_table_scanner_free"

    def __init__(self, table, columns, where, snapshot, batch_rows, threads=None):
        self._table = table
        self._spec = _ScanSpec(table, columns, where, snapshot, batch_rows, threads)
        self._args = (columns, where, snapshot, batch_rows, threads)
        self._opts = table._opts

    def _handle(self):
        return self._table._h

    def _create(self, out, err):
        return _lib.lib().cf_table_scanner_create(out, self._table._ptr(),
                                                  ctypes.byref(self._spec.o), err)

    def _arrow_stream(self, o, ptr):
        # A read-only handle of the stream's own: the stream may outlive this
        # object and the table handle, and the writer may go on changing the table.
        # The stream holds a lease on it: whatever frees the reader object first
        # (a garbage collection at exit), the C table outlives the stream's scanner.
        reader = Table(self._table.path, read_only=True)
        spec = _ScanSpec(reader, *self._args)
        err = _lib.CError()
        h = reader._h
        h.acquire()
        with h as rt:
            st = _lib.lib().cf_arrow_stream_table(ptr, rt, ctypes.byref(spec.o), ctypes.byref(o),
                                                  ctypes.byref(err))
        if st != _lib.OK:
            h.release()
            reader.close()
            _check(st, err)

        def cleanup():  # no module globals: it may run while the interpreter exits
            spec.vals.keep.clear()
            h.release()
            h.close()  # read-only: nothing to sync

        return cleanup


def open(path, read_only=False, lock_timeout_ms=None, sync="commit", mmap=False):
    """Open the table in directory `path` (see Table)."""
    return Table(path, read_only=read_only, lock_timeout_ms=lock_timeout_ms, sync=sync,
                 mmap=mmap)


def create(path, schema, **kw):
    """Create an empty table in `path` (created when missing) with a schema in
    cfile's syntax ("id INT64 KEY, name STRING NULL, ...") and open it."""
    lib = _lib.lib()
    s = ctypes.c_void_p()
    err = _lib.CError()
    p = path.__fspath__() if hasattr(path, "__fspath__") else path
    _check(lib.cf_schema_parse(ctypes.byref(s), schema.encode(), ctypes.byref(err)), err)
    try:
        _check(lib.cf_rowset_create_empty(p.encode(), s, ctypes.byref(err)), err)
    finally:
        lib.cf_schema_free(s)
    return Table(p, **kw)

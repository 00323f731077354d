"""A stopped Kudu tablet server's own directories, read-only (include/cfile/kudu.h).

    fs = cfile.kudu.open("fs/wal", data_dirs=["fs/data0", "fs/data1"])
    fs.uuid, fs.block_manager          # "5418f5...", "log" or "file"
    fs.tablets                         # tablet ids with a superblock
    fs.blocks()                        # live blocks: dicts of id, data_dir, container, ...
    fs.problems()                      # damage found while loading (file, offset, what)
    t = fs.tablet(fs.tablets[0])
    t.table_name, t.schema, t.rowsets, t.superblock, t.consensus
    for row in t.scan(columns=["host", "metric"], where=[("count", ">", 3)]): ...
    t.scan(as_of=7238560973769170944)  # a snapshot within the retained history
    t.scan(wal=False)                  # the DiskRowSets alone
    pyarrow.table(t.scan())            # an Arrow stream source, as table scans are
    w = fs.wal(t.id)                   # the tablet's WAL segments
    for seg in w.segments: seg["file"], seg["header"], seg["footer"], seg["torn_tail"]
    for e in w.entries(): e["op_id"], e["type"], e.get("ops")

A table across several stopped servers (each an Fs, a WAL dir, or a dict of
open's arguments); replicas deduplicated by tablet id, the most recent taken
(only TABLET_DATA_READY ones; the largest last op id in the WAL, then
current_term, then the server given first):

    t = cfile.kudu.open_table([{"wal_dir": "a/wal", "data_dirs": ["a/d0"]},
                               {"wal_dir": "b/wal", "data_dirs": ["b/d0"]}], "metrics")
    t.replicas                         # every replica found, "chosen" marked
    t.tablets                          # Tablets of the chosen replicas, partition order
    for row in t.scan(): ...           # every tablet's rows, tablet after tablet
    pyarrow.table(t)                   # one Arrow stream over every tablet
    cfile.kudu.export(servers, "out.parquet", name="metrics")  # as `cfile convert`

Nothing here writes under the server's directories: every file is opened
read-only (docs/KUDU-ON-DISK.md). Rows are dicts in the value forms of the
package docs; a scan answers what Kudu would answer after a restart (DiskRowSets
with their deltas, plus the operations the WAL holds that are not yet flushed).
"""

import ctypes
import json

from . import _convert as cv
from . import _lib
from . import arrow as _arrow
from . import table as _table
from ._lib import CFileError  # noqa: F401  (re-exported for callers)
from ._lib import _E, _P, _PP

_S = ctypes.c_char_p


class CFsOptions(ctypes.Structure):
    _fields_ = [
        ("version", ctypes.c_uint32),
        ("wal_dir", ctypes.c_char_p),
        ("metadata_dir", ctypes.c_char_p),
        ("data_dirs", ctypes.POINTER(ctypes.c_char_p)),
        ("ndata_dirs", ctypes.c_size_t),
        ("log_container_max_size", ctypes.c_uint64),
        ("reader_cache", ctypes.c_size_t),  # version 2 (kudu.h)
    ]


class CBlock(ctypes.Structure):
    _fields_ = [
        ("id", ctypes.c_uint64),
        ("data_dir", ctypes.c_size_t),
        ("container", ctypes.c_char_p),
        ("offset", ctypes.c_uint64),
        ("length", ctypes.c_uint64),
        ("path", ctypes.c_char_p),
    ]


class CProblem(ctypes.Structure):
    _fields_ = [
        ("path", ctypes.c_char_p),
        ("has_offset", ctypes.c_bool),
        ("offset", ctypes.c_uint64),
        ("what", ctypes.c_char_p),
    ]


class CRowset(ctypes.Structure):
    _fields_ = [
        ("id", ctypes.c_uint64),
        ("last_durable_dms_id", ctypes.c_int64),
        ("ncolumns", ctypes.c_size_t),
        ("column_blocks", ctypes.POINTER(ctypes.c_uint64)),
        ("column_ids", ctypes.POINTER(ctypes.c_uint32)),
        ("nredo", ctypes.c_size_t),
        ("nundo", ctypes.c_size_t),
        ("redo_blocks", ctypes.POINTER(ctypes.c_uint64)),
        ("undo_blocks", ctypes.POINTER(ctypes.c_uint64)),
        ("has_bloom", ctypes.c_bool),
        ("has_adhoc_index", ctypes.c_bool),
        ("bloom_block", ctypes.c_uint64),
        ("adhoc_index_block", ctypes.c_uint64),
        ("min_key", ctypes.c_void_p),
        ("max_key", ctypes.c_void_p),
        ("min_key_len", ctypes.c_size_t),
        ("max_key_len", ctypes.c_size_t),
        ("has_live_row_count", ctypes.c_bool),
        ("live_row_count", ctypes.c_int64),
    ]


class CSegment(ctypes.Structure):
    _fields_ = [
        ("file", ctypes.c_char_p),
        ("path", ctypes.c_char_p),
        ("size", ctypes.c_uint64),
        ("sequence_number", ctypes.c_uint64),
        ("first_entry_offset", ctypes.c_uint64),
        ("has_footer", ctypes.c_bool),
        ("torn_tail", ctypes.c_bool),
        ("end_offset", ctypes.c_uint64),
        ("nentries", ctypes.c_size_t),
    ]


class CRowOp(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("ncols", ctypes.c_size_t),
        ("set", ctypes.POINTER(ctypes.c_bool)),
        ("values", ctypes.POINTER(ctypes.c_void_p)),
        ("failed", ctypes.c_bool),
    ]


class CMemStore(ctypes.Structure):
    _fields_ = [
        ("mrs_id", ctypes.c_int64),
        ("rs_id", ctypes.c_int64),
        ("dms_id", ctypes.c_int64),
        ("rs_txn_id", ctypes.c_int64),
    ]


class COpResult(ctypes.Structure):
    _fields_ = [
        ("failed", ctypes.c_bool),
        ("skip_on_replay", ctypes.c_bool),
        ("nstores", ctypes.c_size_t),
        ("stores", ctypes.POINTER(CMemStore)),
    ]


class CEntry(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("segment", ctypes.c_size_t),
        ("offset", ctypes.c_uint64),
        ("term", ctypes.c_int64),
        ("index", ctypes.c_int64),
        ("timestamp", ctypes.c_uint64),
        ("op_type", ctypes.c_int),
        ("schema", ctypes.c_void_p),
        ("nops", ctypes.c_size_t),
        ("ops", ctypes.POINTER(CRowOp)),
        ("nresults", ctypes.c_size_t),
        ("results", ctypes.POINTER(COpResult)),
        ("schema_ids", ctypes.POINTER(ctypes.c_uint32)),
        ("has_txn_id", ctypes.c_bool),
        ("txn_id", ctypes.c_int64),
        ("participant_op", ctypes.c_int),
        ("alter_schema_version", ctypes.c_int64),
    ]


class CKuduScanOptions(ctypes.Structure):
    _fields_ = [
        ("version", ctypes.c_uint32),
        ("as_of", ctypes.c_uint64),
        ("no_wal", ctypes.c_bool),
        ("cols", ctypes.POINTER(ctypes.c_size_t)),
        ("ncols", ctypes.c_size_t),
        ("preds", ctypes.POINTER(_table.CPred)),
        ("npreds", ctypes.c_size_t),
        ("batch_rows", ctypes.c_size_t),
        ("mmap", ctypes.c_bool),
        ("history_max_age_sec", ctypes.c_int64),
    ]


_lib.declare({
    "cf_kudu_fs_options_init": (None, [ctypes.POINTER(CFsOptions)]),
    "cf_kudu_fs_open": (ctypes.c_int, [_PP, ctypes.POINTER(CFsOptions), _E]),
    "cf_kudu_fs_free": (None, [_P]),
    "cf_kudu_fs_block_manager": (ctypes.c_int, [_P]),
    "cf_kudu_fs_uuid": (_S, [_P]),
    "cf_kudu_fs_locked": (ctypes.c_bool, [_P]),
    "cf_kudu_fs_data_dir_count": (ctypes.c_size_t, [_P]),
    "cf_kudu_fs_data_dir_at": (_S, [_P, ctypes.c_size_t]),
    "cf_kudu_fs_block_count": (ctypes.c_size_t, [_P]),
    "cf_kudu_fs_block_at": (ctypes.POINTER(CBlock), [_P, ctypes.c_size_t]),
    "cf_kudu_fs_problem_count": (ctypes.c_size_t, [_P]),
    "cf_kudu_fs_problem_at": (ctypes.POINTER(CProblem), [_P, ctypes.c_size_t]),
    "cf_kudu_fs_tablet_count": (ctypes.c_size_t, [_P]),
    "cf_kudu_fs_tablet_at": (_S, [_P, ctypes.c_size_t]),
    "cf_kudu_tablet_open": (ctypes.c_int, [_PP, _P, _S, _E]),
    "cf_kudu_tablet_free": (None, [_P]),
    "cf_kudu_tablet_id": (_S, [_P]),
    "cf_kudu_tablet_table_id": (_S, [_P]),
    "cf_kudu_tablet_table_name": (_S, [_P]),
    "cf_kudu_tablet_data_state": (_S, [_P]),
    "cf_kudu_tablet_last_durable_mrs_id": (ctypes.c_int64, [_P]),
    "cf_kudu_tablet_schema": (_P, [_P]),
    "cf_kudu_tablet_column_id": (ctypes.c_uint32, [_P, ctypes.c_size_t]),
    "cf_kudu_tablet_superblock_json": (ctypes.c_int, [_P, ctypes.c_bool, _PP, _E]),
    "cf_kudu_tablet_consensus_json": (ctypes.c_int, [_P, ctypes.c_bool, _PP, _E]),
    "cf_kudu_tablet_rowset_count": (ctypes.c_size_t, [_P]),
    "cf_kudu_tablet_rowset_at": (ctypes.POINTER(CRowset), [_P, ctypes.c_size_t]),
    "cf_kudu_wal_open": (ctypes.c_int, [_PP, _P, _S, _E]),
    "cf_kudu_wal_free": (None, [_P]),
    "cf_kudu_wal_segment_count": (ctypes.c_size_t, [_P]),
    "cf_kudu_wal_segment_at": (ctypes.POINTER(CSegment), [_P, ctypes.c_size_t]),
    "cf_kudu_wal_segment_json": (ctypes.c_int, [_P, ctypes.c_size_t, ctypes.c_bool,
                                                ctypes.c_bool, _PP, _E]),
    "cf_kudu_wal_entry_at": (ctypes.POINTER(CEntry), [_P, ctypes.c_size_t, ctypes.c_size_t]),
    "cf_kudu_wal_entry_json": (ctypes.c_int, [_P, ctypes.c_size_t, ctypes.c_size_t,
                                              ctypes.c_bool, _PP, _E]),
    "cf_kudu_row_op_name": (_S, [ctypes.c_int]),
    "cf_kudu_scan_options_init": (None, [ctypes.POINTER(CKuduScanOptions)]),
    "cf_kudu_scanner_create": (ctypes.c_int, [_PP, _P, ctypes.POINTER(CKuduScanOptions), _E]),
    "cf_kudu_scanner_next": (ctypes.c_int, [_P, ctypes.POINTER(_table.CRowBatch), _E]),
    "cf_kudu_scanner_free": (None, [_P]),
    "cf_arrow_stream_kudu_tablet": (ctypes.c_int, [_P, _P, ctypes.POINTER(CKuduScanOptions),
                                                   _P, _E]),
})

_libc = ctypes.CDLL(None)
_libc.free.argtypes = [ctypes.c_void_p]
_libc.free.restype = None


def _json_of(call):
    """Call fn(..., char **json, err) and parse what it printed (None for no JSON)."""
    out = ctypes.c_void_p()
    err = _lib.CError()
    st = call(ctypes.byref(out), ctypes.byref(err))
    if st == _lib.ENOTFOUND:
        return None
    _lib.check(st, err)
    if not out.value:
        return None
    try:
        return json.loads(ctypes.string_at(out.value).decode())
    finally:
        _libc.free(out.value)


def _text(p):
    return p.decode() if p is not None else None


def _fspath(p):
    return (p.__fspath__() if hasattr(p, "__fspath__") else p).encode()


class Fs(_lib.HandleOwner):
    """A server's directories (cfile.kudu.open makes one); blocks, containers'
    damage and tablets. Free with close() or a `with` block."""

    def __init__(self, wal_dir, data_dirs=None, metadata_dir=None, log_container_max_size=None):
        self._h = None
        lib = _lib.lib()
        o = CFsOptions()
        lib.cf_kudu_fs_options_init(ctypes.byref(o))
        self._keep = [_fspath(wal_dir)]
        o.wal_dir = self._keep[0]
        if metadata_dir is not None:
            self._keep.append(_fspath(metadata_dir))
            o.metadata_dir = self._keep[-1]
        if data_dirs:
            if isinstance(data_dirs, (str, bytes)) or hasattr(data_dirs, "__fspath__"):
                data_dirs = [data_dirs]
            arr = (ctypes.c_char_p * len(data_dirs))(*[_fspath(d) for d in data_dirs])
            self._keep.append(arr)
            o.data_dirs = arr
            o.ndata_dirs = len(data_dirs)
        if log_container_max_size is not None:
            o.log_container_max_size = int(log_container_max_size)
        out = ctypes.c_void_p()
        err = _lib.CError()
        _lib.check(lib.cf_kudu_fs_open(ctypes.byref(out), ctypes.byref(o), ctypes.byref(err)), err)
        self._h = _lib.Handle(out.value, lib.cf_kudu_fs_free, "the fs")

    def _ptr(self):
        return self._h.get()

    @property
    def uuid(self):
        return _text(_lib.lib().cf_kudu_fs_uuid(self._ptr()))

    @property
    def block_manager(self):
        return {1: "log", 2: "file"}.get(_lib.lib().cf_kudu_fs_block_manager(self._ptr()))

    @property
    def locked(self):
        """Whether a running server holds its lock (reported only: never taken)."""
        return bool(_lib.lib().cf_kudu_fs_locked(self._ptr()))

    @property
    def data_dirs(self):
        lib, p = _lib.lib(), self._ptr()
        return [_text(lib.cf_kudu_fs_data_dir_at(p, i))
                for i in range(lib.cf_kudu_fs_data_dir_count(p))]

    @property
    def tablets(self):
        lib, p = _lib.lib(), self._ptr()
        return [_text(lib.cf_kudu_fs_tablet_at(p, i)) for i in range(lib.cf_kudu_fs_tablet_count(p))]

    def blocks(self):
        """Every live block, in id order: dicts of id, data_dir, container (None for
        the file block manager), offset, length, path."""
        lib, p = _lib.lib(), self._ptr()
        out = []
        for i in range(lib.cf_kudu_fs_block_count(p)):
            b = lib.cf_kudu_fs_block_at(p, i).contents
            out.append({"id": b.id, "data_dir": b.data_dir, "container": _text(b.container),
                        "offset": b.offset, "length": b.length, "path": _text(b.path)})
        return out

    def problems(self):
        """Damage found while loading: dicts of path, offset (None when there is
        none) and what."""
        lib, p = _lib.lib(), self._ptr()
        out = []
        for i in range(lib.cf_kudu_fs_problem_count(p)):
            q = lib.cf_kudu_fs_problem_at(p, i).contents
            out.append({"path": _text(q.path), "offset": q.offset if q.has_offset else None,
                        "what": _text(q.what)})
        return out

    def tablet(self, tablet_id):
        """The tablet's superblock (and consensus metadata) as a Tablet."""
        return Tablet(self, tablet_id)

    def wal(self, tablet_id):
        """The tablet's write-ahead log as a Wal."""
        return Wal(self, tablet_id)

    def close(self):
        """Free the fs; its tablets and WALs raise ValueError from then on (the C
        side goes when the last of them is freed too)."""
        if self._h is not None:
            self._h.close()

    def __repr__(self):
        return "<cfile.kudu.Fs %s>" % ("closed" if self.closed else self.uuid)


class Tablet(_lib.HandleOwner, _arrow.ScanSource):
    """One tablet of an Fs (which must stay open while the tablet is used)."""

    def __init__(self, fs, tablet_id):
        self._h = None
        self.fs = fs
        lib = _lib.lib()
        out = ctypes.c_void_p()
        err = _lib.CError()
        with fs._h as f:
            _lib.check(lib.cf_kudu_tablet_open(ctypes.byref(out), f, tablet_id.encode(),
                                               ctypes.byref(err)), err)
        self._h = _lib.Handle(out.value, lib.cf_kudu_tablet_free, "the tablet", fs._h)
        self._schema = _table._Schema(lib.cf_kudu_tablet_schema(out.value))
        self._opts = cv.ReadOptions()

    def _ptr(self):
        self.fs._ptr()
        return self._h.get()

    @property
    def id(self):
        return _text(_lib.lib().cf_kudu_tablet_id(self._ptr()))

    @property
    def table_id(self):
        return _text(_lib.lib().cf_kudu_tablet_table_id(self._ptr()))

    @property
    def table_name(self):
        return _text(_lib.lib().cf_kudu_tablet_table_name(self._ptr()))

    @property
    def data_state(self):
        return _text(_lib.lib().cf_kudu_tablet_data_state(self._ptr()))

    @property
    def last_durable_mrs_id(self):
        return _lib.lib().cf_kudu_tablet_last_durable_mrs_id(self._ptr())

    @property
    def schema(self):
        """The columns (dicts as cfile.table's schema) with Kudu's column ids."""
        lib, p = _lib.lib(), self._ptr()
        return [dict(c, column_id=lib.cf_kudu_tablet_column_id(p, i))
                for i, c in enumerate(self._schema.columns)]

    @property
    def columns(self):
        return list(self._schema.names)

    @property
    def rowsets(self):
        """The DiskRowSets: dicts of id, last_durable_dms_id, columns ({column id:
        block id}), redo, undo (block ids), bloom, adhoc_index (block id or None),
        min_key, max_key (encoded bytes or None), live_row_count (or None)."""
        lib, p = _lib.lib(), self._ptr()
        out = []
        for i in range(lib.cf_kudu_tablet_rowset_count(p)):
            r = lib.cf_kudu_tablet_rowset_at(p, i).contents
            out.append({
                "id": r.id, "last_durable_dms_id": r.last_durable_dms_id,
                "columns": {r.column_ids[k]: r.column_blocks[k] for k in range(r.ncolumns)},
                "redo": [r.redo_blocks[k] for k in range(r.nredo)],
                "undo": [r.undo_blocks[k] for k in range(r.nundo)],
                "bloom": r.bloom_block if r.has_bloom else None,
                "adhoc_index": r.adhoc_index_block if r.has_adhoc_index else None,
                "min_key": ctypes.string_at(r.min_key, r.min_key_len) if r.min_key else None,
                "max_key": ctypes.string_at(r.max_key, r.max_key_len) if r.max_key else None,
                "live_row_count": r.live_row_count if r.has_live_row_count else None,
            })
        return out

    @property
    def superblock(self):
        """The TabletSuperBlockPB in protobuf's JSON mapping, as a dict."""
        p = self._ptr()
        return _json_of(lambda o, e: _lib.lib().cf_kudu_tablet_superblock_json(p, False, o, e))

    @property
    def consensus(self):
        """The ConsensusMetadataPB as a dict, or None when the tablet has none."""
        p = self._ptr()
        return _json_of(lambda o, e: _lib.lib().cf_kudu_tablet_consensus_json(p, False, o, e))

    def scan(self, columns=None, where=None, as_of=None, wal=True, batch_rows=None,
             history_max_age_sec=None):
        """A TabletScan: rows (dicts) in primary key order, as Kudu answers a scan
        after a restart. as_of: a hybrid time within the retained history (UNDO
        deltas applied): one before the ancient history mark (the tablet's latest
        timestamp minus history_max_age_sec, the server's
        --tablet_history_max_age_sec, Kudu's 7 days by default) raises, as Kudu
        refuses it; wal=False: the DiskRowSets alone. where: (column, op, value)
        triples as cfile.table's scans take them."""
        return TabletScan(self, columns, where, as_of, wal, batch_rows, history_max_age_sec)

    def __repr__(self):
        return "<cfile.kudu.Tablet %s>" % ("closed" if self.closed else
                                          "%s of %s" % (self.id, self.table_name))


class _KuduScanSpec:
    """Scan options in C form, kept alive with their values."""

    def __init__(self, tablet, columns, where, as_of, wal, batch_rows, history_max_age_sec=None):
        # cfile.table's spec parses the projection and the predicates the same way.
        base = _table._ScanSpec(tablet, columns, where, None, batch_rows)
        self.base = base
        self.columns = base.columns
        self.o = CKuduScanOptions()
        _lib.lib().cf_kudu_scan_options_init(ctypes.byref(self.o))
        self.o.cols, self.o.ncols = base.o.cols, base.o.ncols
        self.o.preds, self.o.npreds = base.o.preds, base.o.npreds
        if batch_rows is not None:
            self.o.batch_rows = int(batch_rows)
        if as_of is not None:
            self.o.as_of = int(as_of)
        self.o.no_wal = not wal
        if history_max_age_sec is not None:
            self.o.history_max_age_sec = int(history_max_age_sec)


class TabletScan(_table.RowScan):
    """A tablet scan (Tablet.scan), a cfile.table.RowScan: iterating yields dicts,
    batches() lists of them, to_pandas() a DataFrame; an Arrow stream source."""

    _next = "cf_kudu_scanner_next"
    _free = "cf_kudu_scanner_free"

    def __init__(self, tablet, columns, where, as_of, wal, batch_rows, history_max_age_sec=None):
        self._tablet = tablet
        self._spec = _KuduScanSpec(tablet, columns, where, as_of, wal, batch_rows,
                                   history_max_age_sec)
        self._opts = tablet._opts

    def _handle(self):
        return self._tablet._h

    def _create(self, out, err):
        return _lib.lib().cf_kudu_scanner_create(out, self._tablet._ptr(),
                                                 ctypes.byref(self._spec.o), err)

    def _arrow_stream(self, o, ptr):
        # The stream holds a lease on the tablet (which holds one on its fs) and
        # keeps the spec alive until released.
        return _lease_stream(self._tablet, self._spec, _lib.lib().cf_arrow_stream_kudu_tablet,
                             o, ptr)


def _lease_stream(owner, spec, make, o, ptr):
    """Fill the stream at ptr with make(ptr, handle, scan options, o, err) under a
    lease on owner's handle, given back (and spec let go) when it is released."""
    h = owner._h
    owner._ptr()
    h.acquire()
    try:
        err = _lib.CError()
        with h as p:
            _lib.check(make(ptr, p, ctypes.byref(spec.o), ctypes.byref(o), ctypes.byref(err)), err)
    except BaseException:
        h.release()
        raise
    keep = [spec]

    def cleanup():
        keep.clear()
        h.release()

    return cleanup


class Wal(_lib.HandleOwner):
    """A tablet's write-ahead log (Fs.wal): its segments and entries."""

    def __init__(self, fs, tablet_id):
        self._h = None
        self.fs = fs
        out = ctypes.c_void_p()
        err = _lib.CError()
        with fs._h as f:
            _lib.check(_lib.lib().cf_kudu_wal_open(ctypes.byref(out), f, tablet_id.encode(),
                                                   ctypes.byref(err)), err)
        self._h = _lib.Handle(out.value, _lib.lib().cf_kudu_wal_free, "the WAL", fs._h)

    def _ptr(self):
        self.fs._ptr()
        return self._h.get()

    @property
    def segments(self):
        """Dicts of file, path, size, sequence_number, has_footer, torn_tail,
        entries (the count), header and footer (protobuf JSON as dicts)."""
        lib, p = _lib.lib(), self._ptr()
        out = []
        for i in range(lib.cf_kudu_wal_segment_count(p)):
            s = lib.cf_kudu_wal_segment_at(p, i).contents
            out.append({
                "file": _text(s.file), "path": _text(s.path), "size": s.size,
                "sequence_number": s.sequence_number, "has_footer": bool(s.has_footer),
                "torn_tail": bool(s.torn_tail), "entries": s.nentries,
                "header": _json_of(lambda o, e, i=i: lib.cf_kudu_wal_segment_json(p, i, False,
                                                                                  False, o, e)),
                "footer": _json_of(lambda o, e, i=i: lib.cf_kudu_wal_segment_json(p, i, True,
                                                                                  False, o, e)),
            })
        return out

    def entries(self):
        """Every entry in log order: dicts of segment, type ("REPLICATE", "COMMIT"),
        op_id (term, index), timestamp, op_type, the row operations of a WRITE_OP
        ("ops": [{"op": "INSERT", "row": {column: value}}]) and a COMMIT's per-op
        results ("results": [{"failed", "skip_on_replay", "stores"}])."""
        return self._h.leased(self._entries())

    def _entries(self):
        lib, p = _lib.lib(), self._ptr()
        types = {1: "REPLICATE", 2: "COMMIT", 999: "FLUSH_MARKER"}
        for si in range(lib.cf_kudu_wal_segment_count(p)):
            seg = lib.cf_kudu_wal_segment_at(p, si).contents
            for i in range(seg.nentries):
                e = lib.cf_kudu_wal_entry_at(p, si, i).contents
                d = {"segment": _text(seg.file), "type": types.get(e.type, e.type),
                     "op_id": (e.term, e.index), "timestamp": e.timestamp, "op_type": e.op_type}
                if e.nops and e.schema:
                    d["ops"] = self._ops(e)
                if e.nresults:
                    d["results"] = [{
                        "failed": bool(r.failed), "skip_on_replay": bool(r.skip_on_replay),
                        "stores": [{"mrs_id": s.mrs_id, "rs_id": s.rs_id, "dms_id": s.dms_id}
                                   for s in (r.stores[k] for k in range(r.nstores))]}
                        for r in (e.results[k] for k in range(e.nresults))]
                yield d

    def _ops(self, e):
        lib = _lib.lib()
        sch = _table._Schema(e.schema)
        opts = cv.ReadOptions()
        out = []
        for k in range(e.nops):
            op = e.ops[k]
            row = {}
            for j in range(op.ncols):
                if not op.set[j]:
                    continue
                c = sch.columns[j]
                v = op.values[j]
                if not v:
                    row[c["name"]] = None
                elif c["is_array"]:
                    row[c["name"]] = _array_value(v, opts)
                else:
                    row[c["name"]] = cv.decode(c["type_id"], v, 1, opts)[0]
            out.append({"op": _text(lib.cf_kudu_row_op_name(op.type)), "row": row})
        return out


class _ArrayCell(ctypes.Structure):
    """types.h's cf_array_cell: an array column's value in a decoded row op."""
    _fields_ = [("type", ctypes.c_int), ("count", ctypes.c_size_t),
                ("values", ctypes.c_void_p), ("nonnull", ctypes.c_void_p)]


def _array_value(ptr, opts):
    a = ctypes.cast(ptr, ctypes.POINTER(_ArrayCell)).contents
    if a.count == 0:
        return []
    return cv.apply_nulls(cv.decode(a.type, a.values, a.count, opts),
                          cv.bitmap_flags(a.nonnull, a.count))


def open(wal_dir, data_dirs=None, metadata_dir=None, log_container_max_size=None):
    """Open a stopped server's directories as Kudu's flags name them: --fs_wal_dir,
    --fs_data_dirs (a list; default: the WAL dir) and --fs_metadata_dir (default:
    the WAL dir)."""
    return Fs(wal_dir, data_dirs, metadata_dir, log_container_max_size)


# ---- a table across several servers (kudu.h: cf_kudu_replicas_*) ---------------------------

class CReplica(ctypes.Structure):
    _fields_ = [
        ("tablet_id", ctypes.c_char_p),
        ("server", ctypes.c_size_t),
        ("table_id", ctypes.c_char_p),
        ("table_name", ctypes.c_char_p),
        ("data_state", ctypes.c_char_p),
        ("current_term", ctypes.c_int64),
        ("last_term", ctypes.c_int64),
        ("last_index", ctypes.c_int64),
        ("partition_key_start", ctypes.c_void_p),
        ("partition_key_end", ctypes.c_void_p),
        ("partition_key_start_len", ctypes.c_size_t),
        ("partition_key_end_len", ctypes.c_size_t),
        ("chosen", ctypes.c_bool),
        ("problem", ctypes.c_char_p),
    ]


class CReplicasOptions(ctypes.Structure):
    _fields_ = [
        ("version", ctypes.c_uint32),
        ("table_name", ctypes.c_char_p),
        ("table_id", ctypes.c_char_p),
        ("tablet_id", ctypes.c_char_p),
        ("skip_damaged", ctypes.c_bool),
    ]


_lib.declare({
    "cf_kudu_replicas_options_init": (None, [ctypes.POINTER(CReplicasOptions)]),
    "cf_kudu_replicas_find": (ctypes.c_int, [_PP, ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t,
                                             ctypes.POINTER(CReplicasOptions), _E]),
    "cf_kudu_replicas_free": (None, [_P]),
    "cf_kudu_replicas_count": (ctypes.c_size_t, [_P]),
    "cf_kudu_replicas_at": (ctypes.POINTER(CReplica), [_P, ctypes.c_size_t]),
    "cf_kudu_replicas_tablet_count": (ctypes.c_size_t, [_P]),
    "cf_kudu_replicas_chosen_at": (ctypes.POINTER(CReplica), [_P, ctypes.c_size_t]),
    "cf_kudu_replicas_tablet_at": (_P, [_P, ctypes.c_size_t]),
    "cf_kudu_replicas_schema": (_P, [_P]),
    "cf_arrow_stream_kudu_replicas": (ctypes.c_int, [_P, _P, ctypes.POINTER(CKuduScanOptions),
                                                     _P, _E]),
})


def _bytes_at(p, n):
    return ctypes.string_at(p, n) if p and n else b""


class _ChosenTablet(Tablet):
    """A tablet the replica set opened (borrowed: freed with the set)."""

    def __init__(self, table, ptr):  # noqa: D107  (Tablet.__init__ opens; this borrows)
        self._h = _lib.Handle(ptr, lambda p: None, "the tablet", table._h)
        self.fs = table
        self._schema = _table._Schema(_lib.lib().cf_kudu_tablet_schema(ptr))
        self._opts = cv.ReadOptions()


def _server(s):
    """An Fs from an Fs, a WAL dir (a single root), or a dict of Fs's arguments."""
    if isinstance(s, Fs):
        return s, False
    if isinstance(s, dict):
        return Fs(**s), True
    if isinstance(s, (tuple, list)):
        return Fs(*s), True
    return Fs(s), True


class KuduTable(_lib.HandleOwner, _arrow.ScanSource):
    """Every tablet of one Kudu table (or one tablet) found on several stopped
    servers, each read from the replica Kudu would count as the most recent
    (include/cfile/kudu.h: only TABLET_DATA_READY replicas; then the largest last
    op id in the WAL, term then index; then current_term; then the server given
    first). cfile.kudu.open_table makes one."""

    def __init__(self, servers, name=None, table_id=None, tablet_id=None, skip_damaged=False):
        self._h = None
        self._tablets = []
        self._fs, self._owned, self._fs_leases = [], [], []
        try:
            for s in servers:
                fs, owned = _server(s)
                self._fs.append(fs)
                if owned:
                    self._owned.append(fs)
            if not self._fs:
                raise ValueError("open_table needs at least one server")
            lib = _lib.lib()
            o = CReplicasOptions()
            lib.cf_kudu_replicas_options_init(ctypes.byref(o))
            self._keep = [x.encode() if x is not None else None
                          for x in (name, table_id, tablet_id)]
            o.table_name, o.table_id, o.tablet_id = self._keep
            o.skip_damaged = bool(skip_damaged)
            arr = (ctypes.c_void_p * len(self._fs))(*[f._ptr() for f in self._fs])
            for f in self._fs:  # the replicas point into every server's fs
                f._h.acquire()
                self._fs_leases.append(f._h)
            out = ctypes.c_void_p()
            err = _lib.CError()
            _lib.check(lib.cf_kudu_replicas_find(ctypes.byref(out), arr, len(self._fs),
                                                 ctypes.byref(o), ctypes.byref(err)), err)
            leases, self._fs_leases = self._fs_leases, []

            def free(r):
                lib.cf_kudu_replicas_free(r)
                for h in leases:
                    h.release()

            self._h = _lib.Handle(out.value, free, "the table")
            r = out.value
            self._schema = _table._Schema(lib.cf_kudu_replicas_schema(r))
            self._tablets = [_ChosenTablet(self, lib.cf_kudu_replicas_tablet_at(r, i))
                             for i in range(lib.cf_kudu_replicas_tablet_count(r))]
        except BaseException:
            self.close()
            raise

    def _ptr(self):
        return self._h.get()

    @staticmethod
    def _replica(r):
        return {
            "tablet_id": _text(r.tablet_id), "server": r.server, "table_id": _text(r.table_id),
            "table_name": _text(r.table_name), "data_state": _text(r.data_state),
            "current_term": r.current_term, "last_op_id": (r.last_term, r.last_index),
            "partition_key_start": _bytes_at(r.partition_key_start, r.partition_key_start_len),
            "partition_key_end": _bytes_at(r.partition_key_end, r.partition_key_end_len),
            "chosen": bool(r.chosen), "problem": _text(r.problem),
        }

    @property
    def replicas(self):
        """Every replica found (dicts; "chosen" marks the one each tablet is read
        from, "server" indexes the servers given), by tablet then server."""
        lib, p = _lib.lib(), self._ptr()
        return [self._replica(lib.cf_kudu_replicas_at(p, i).contents)
                for i in range(lib.cf_kudu_replicas_count(p))]

    @property
    def tablets(self):
        """The tablets in partition key order, each a Tablet of its chosen replica."""
        self._ptr()
        return list(self._tablets)

    @property
    def schema(self):
        return self._tablets[0].schema

    @property
    def columns(self):
        return list(self._schema.names)

    def scan(self, columns=None, where=None, as_of=None, wal=True, batch_rows=None):
        """The rows of every tablet (dicts), tablet after tablet in partition key
        order, each as Tablet.scan gives them."""
        return TableScan(self, columns, where, as_of, wal, batch_rows)

    def export(self, path, as_of=None, wal=True, codec="snappy", row_group_rows=None):
        """Write every tablet's rows into one Parquet file at path (created
        atomically); returns the number of rows. Batches go from the scanner to
        the Parquet writer without becoming Python values."""
        from . import parquet as _pq
        lib = _lib.lib()
        cols = self._schema.columns
        ccols = (_pq.CWriteColumn * len(cols))()
        names = [c["name"].encode() for c in cols]
        for i, c in enumerate(cols):
            ccols[i] = _pq.CWriteColumn(names[i], c["type_id"], c["nullable"], c["is_array"],
                                        c["precision"], c["scale"], False, False)
        o = _pq.CWriterOptions()
        lib.cf_parquet_writer_options_init(ctypes.byref(o))
        if codec.lower() not in _pq._CODECS:
            raise ValueError("codec must be one of %s" % ", ".join(_pq._CODECS))
        o.codec = _pq._CODECS[codec.lower()]
        if row_group_rows is not None:
            o.row_group_rows = int(row_group_rows)
        w = ctypes.c_void_p()
        err = _lib.CError()
        p = path.__fspath__() if hasattr(path, "__fspath__") else path
        _lib.check(lib.cf_parquet_writer_create_file(ctypes.byref(w), p.encode(), ccols,
                                                     len(cols), ctypes.byref(o),
                                                     ctypes.byref(err)), err)
        n = 0
        try:
            for t in self._tablets:
                spec = _KuduScanSpec(t, None, None, as_of, wal, None)
                sc = ctypes.c_void_p()
                _lib.check(lib.cf_kudu_scanner_create(ctypes.byref(sc), t._ptr(),
                                                      ctypes.byref(spec.o), ctypes.byref(err)),
                           err)
                try:
                    b = _table.CRowBatch()
                    while True:
                        _lib.check(lib.cf_kudu_scanner_next(sc, ctypes.byref(b),
                                                            ctypes.byref(err)), err)
                        if b.count == 0:
                            break
                        _lib.check(lib.cf_parquet_writer_append(w, ctypes.cast(b.cols, _P),
                                                                b.count, ctypes.byref(err)), err)
                        n += b.count
                finally:
                    lib.cf_kudu_scanner_free(sc)
            _lib.check(lib.cf_parquet_writer_finish(w, ctypes.byref(err)), err)
        finally:
            lib.cf_parquet_writer_free(w)
        return n

    def close(self):
        """Free the replica set and the servers it opened; scans still being
        iterated raise ValueError at their next step (the C side goes with the
        last of them)."""
        for t in getattr(self, "_tablets", []):
            t.close()
        if getattr(self, "_h", None) is not None:
            self._h.close()
        for h in getattr(self, "_fs_leases", []):
            h.release()
        self._fs_leases = []
        for fs in getattr(self, "_owned", []):
            fs.close()
        self._owned = []

    def __repr__(self):
        if self.closed:
            return "<cfile.kudu.KuduTable closed>"
        return "<cfile.kudu.KuduTable %d tablets>" % len(self._tablets)


class TableScan(_table.RowScan):
    """A scan of every tablet of a KuduTable, tablet after tablet in partition key
    order, a cfile.table.RowScan: iterating yields dicts, batches() lists of them,
    to_pandas() a DataFrame; an Arrow stream source (the tablets as one stream)."""

    def __init__(self, table, columns, where, as_of, wal, batch_rows):
        self._table = table
        self._args = (columns, where, as_of, wal, batch_rows)
        self._spec = _KuduScanSpec(table.tablets[0], *self._args)
        self._opts = table.tablets[0]._opts

    def batches(self):
        for t in self._table.tablets:
            yield from TabletScan(t, *self._args).batches()

    def _arrow_stream(self, o, ptr):
        # The stream holds a lease on the table (its replica set, which holds
        # leases on the servers) and keeps the scan options alive until released:
        # tablets past the first are scanned later.
        return _lease_stream(self._table, self._spec,
                             _lib.lib().cf_arrow_stream_kudu_replicas, o, ptr)


def open_table(servers, name=None, table_id=None, tablet_id=None, skip_damaged=False):
    """A table (by name or table_id) or one tablet (tablet_id) across several
    stopped servers: each server an Fs, a WAL dir (a single root), or a dict of
    cfile.kudu.open's arguments ({"wal_dir": ..., "data_dirs": [...]}).
    Replicas are deduplicated by tablet id, the most recent taken (see KuduTable);
    a name several tables have, tablets whose schemas differ and a tablet without
    a READY replica raise CFileError."""
    return KuduTable(servers, name, table_id, tablet_id, skip_damaged)


def export(servers, path, name=None, table_id=None, tablet_id=None, as_of=None, wal=True,
           skip_damaged=False, codec="snappy"):
    """Every tablet of a table across several servers (open_table's arguments)
    into one Parquet file at path, as `cfile convert --kudu-table` does. Returns
    {"rows", "tablets", "replicas"}."""
    with open_table(servers, name, table_id, tablet_id, skip_damaged) as t:
        rows = t.export(path, as_of=as_of, wal=wal, codec=codec)
        return {"rows": rows, "tablets": len(t.tablets), "replicas": t.replicas}

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

_P = ctypes.c_void_p
_E = ctypes.POINTER(_lib.CError)
_PP = ctypes.POINTER(ctypes.c_void_p)
_S = ctypes.c_char_p


class CFsOptions(ctypes.Structure):
    _fields_ = [
        ("version", ctypes.c_uint32),
        ("wal_dir", ctypes.c_char_p),
        ("metadata_dir", ctypes.c_char_p),
        ("data_dirs", ctypes.POINTER(ctypes.c_char_p)),
        ("ndata_dirs", ctypes.c_size_t),
        ("log_container_max_size", ctypes.c_uint64),
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
    ]


class CMemStore(ctypes.Structure):
    _fields_ = [("mrs_id", ctypes.c_int64), ("rs_id", ctypes.c_int64), ("dms_id", ctypes.c_int64)]


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


class Fs(_lib.Closing):
    """A server's directories (cfile.kudu.open makes one); blocks, containers'
    damage and tablets. Free with close() or a `with` block."""

    def __init__(self, wal_dir, data_dirs=None, metadata_dir=None, log_container_max_size=None):
        self._fs = None
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
        self._fs = out.value

    def _ptr(self):
        if not self._fs:
            raise ValueError("the fs was closed")
        return self._fs

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
        if self._fs:
            fs, self._fs = self._fs, None
            _lib.lib().cf_kudu_fs_free(fs)

    def __repr__(self):
        return "<cfile.kudu.Fs %s>" % ("closed" if not self._fs else self.uuid)


class Tablet(_lib.Closing, _arrow.StreamSource):
    """One tablet of an Fs (which must stay open while the tablet is used)."""

    def __init__(self, fs, tablet_id):
        self._t = None
        self.fs = fs
        lib = _lib.lib()
        out = ctypes.c_void_p()
        err = _lib.CError()
        _lib.check(lib.cf_kudu_tablet_open(ctypes.byref(out), fs._ptr(), tablet_id.encode(),
                                           ctypes.byref(err)), err)
        self._t = out.value
        self._schema = _table._Schema(lib.cf_kudu_tablet_schema(self._t))
        self._opts = cv.ReadOptions()

    def _ptr(self):
        if not self._t:
            raise ValueError("the tablet was closed")
        self.fs._ptr()
        return self._t

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

    def scan(self, columns=None, where=None, as_of=None, wal=True, batch_rows=None):
        """A TabletScan: rows (dicts) in primary key order, as Kudu answers a scan
        after a restart. as_of: a hybrid time within the retained history (UNDO
        deltas applied); wal=False: the DiskRowSets alone. where: (column, op,
        value) triples as cfile.table's scans take them."""
        return TabletScan(self, columns, where, as_of, wal, batch_rows)

    def __iter__(self):
        return iter(self.scan())

    def _arrow_stream(self, o, ptr):
        return self.scan()._arrow_stream(o, ptr)

    def to_pandas(self, **kw):
        return self.scan(**kw).to_pandas()

    def close(self):
        if self._t:
            t, self._t = self._t, None
            _lib.lib().cf_kudu_tablet_free(t)

    def __repr__(self):
        return "<cfile.kudu.Tablet %s>" % ("closed" if not self._t else
                                          "%s of %s" % (self.id, self.table_name))


class _KuduScanSpec:
    """Scan options in C form, kept alive with their values."""

    def __init__(self, tablet, columns, where, as_of, wal, batch_rows):
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


class TabletScan(_table.RowScan):
    """A tablet scan (Tablet.scan), a cfile.table.RowScan: iterating yields dicts,
    batches() lists of them, to_pandas() a DataFrame; an Arrow stream source."""

    _next = "cf_kudu_scanner_next"
    _free = "cf_kudu_scanner_free"

    def __init__(self, tablet, columns, where, as_of, wal, batch_rows):
        self._tablet = tablet
        self._spec = _KuduScanSpec(tablet, columns, where, as_of, wal, batch_rows)
        self._opts = tablet._opts

    def _create(self, out, err):
        return _lib.lib().cf_kudu_scanner_create(out, self._tablet._ptr(),
                                                 ctypes.byref(self._spec.o), err)

    def _arrow_stream(self, o, ptr):
        # The stream keeps the tablet (and so its fs) and the spec alive until released.
        tablet, spec = self._tablet, self._spec
        err = _lib.CError()
        _lib.check(_lib.lib().cf_arrow_stream_kudu_tablet(ptr, tablet._ptr(), ctypes.byref(spec.o),
                                                          ctypes.byref(o), ctypes.byref(err)), err)
        keep = [tablet, spec]
        return keep.clear


class Wal(_lib.Closing):
    """A tablet's write-ahead log (Fs.wal): its segments and entries."""

    def __init__(self, fs, tablet_id):
        self._w = None
        self.fs = fs
        out = ctypes.c_void_p()
        err = _lib.CError()
        _lib.check(_lib.lib().cf_kudu_wal_open(ctypes.byref(out), fs._ptr(), tablet_id.encode(),
                                               ctypes.byref(err)), err)
        self._w = out.value

    def _ptr(self):
        if not self._w:
            raise ValueError("the WAL was closed")
        self.fs._ptr()
        return self._w

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
                row[c["name"]] = None if not v else cv.decode(c["type_id"], v, 1, opts)[0]
            out.append({"op": _text(lib.cf_kudu_row_op_name(op.type)), "row": row})
        return out

    def close(self):
        if self._w:
            w, self._w = self._w, None
            _lib.lib().cf_kudu_wal_free(w)


def open(wal_dir, data_dirs=None, metadata_dir=None, log_container_max_size=None):
    """Open a stopped server's directories as Kudu's flags name them: --fs_wal_dir,
    --fs_data_dirs (a list; default: the WAL dir) and --fs_metadata_dir (default:
    the WAL dir)."""
    return Fs(wal_dir, data_dirs, metadata_dir, log_container_max_size)

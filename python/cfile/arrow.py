"""Arrow PyCapsule interface: cfile objects as Arrow streams (no pyarrow needed).

Readers, table scans, HFiles and Parquet files have

    obj.__arrow_c_stream__(requested_schema=None)  -> PyCapsule "arrow_array_stream"
    obj.__arrow_c_schema__()                       -> PyCapsule "arrow_schema"

as the Arrow PyCapsule interface specifies, so pyarrow (pa.table(obj),
pa.RecordBatchReader.from_stream(obj)), polars (pl.from_arrow) and DuckDB
(duckdb.sql("select * from obj")) take them without glue. The stream's batches
are record batches: a struct with one child per column.

Each stream reads through library handles of its own (opened again from the
same path or bytes), so it stays valid after the Python object that made it is
closed, and it frees them when the consumer releases the stream (or when the
capsule is garbage collected without being consumed).

Options (keyword arguments of the methods that make streams):
  utf8="check"   STRING/VARCHAR exported as Arrow utf8; a value that is not valid
                 UTF-8 fails the stream (the consumer raises, naming the row)
  utf8="binary"  STRING/VARCHAR exported as Arrow binary (every byte kept)
  batch_rows     rows per record batch (default 65536)
  requested_schema is accepted and ignored (the stream's own schema is the only
  one offered), as the interface allows.
"""

import ctypes
import threading

from . import _lib


class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p),
    ("name", ctypes.c_char_p),
    ("metadata", ctypes.c_void_p),
    ("flags", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
    ("dictionary", ctypes.POINTER(ArrowSchema)),
    ("release", ctypes.c_void_p),
    ("private_data", ctypes.c_void_p),
]


class ArrowArray(ctypes.Structure):
    pass


ArrowArray._fields_ = [
    ("length", ctypes.c_int64),
    ("null_count", ctypes.c_int64),
    ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))),
    ("dictionary", ctypes.POINTER(ArrowArray)),
    ("release", ctypes.c_void_p),
    ("private_data", ctypes.c_void_p),
]


class ArrowArrayStream(ctypes.Structure):
    _fields_ = [
        ("get_schema", ctypes.c_void_p),
        ("get_next", ctypes.c_void_p),
        ("get_last_error", ctypes.c_void_p),
        ("release", ctypes.c_void_p),
        ("private_data", ctypes.c_void_p),
    ]


class ArrowOptions(ctypes.Structure):
    """cf_arrow_options (include/cfile/arrow.h), field for field."""
    _fields_ = [
        ("version", ctypes.c_uint32),
        ("name", ctypes.c_char_p),
        ("decimal_precision", ctypes.c_int32),
        ("decimal_scale", ctypes.c_int32),
        ("native_decimal_widths", ctypes.c_bool),
        ("large_binary", ctypes.c_bool),
        ("timezone", ctypes.c_char_p),
        ("lender", ctypes.c_void_p),
        ("zero_copy", ctypes.c_bool),
        ("utf8", ctypes.c_int),
        ("batch_rows", ctypes.c_size_t),
    ]


UTF8_CHECK = 0
UTF8_BINARY = 1

STREAM_RELEASE = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArrayStream))
SCHEMA_RELEASE = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))
GET_SCHEMA = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream),
                              ctypes.POINTER(ArrowSchema))
GET_NEXT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream),
                            ctypes.POINTER(ArrowArray))
GET_LAST_ERROR = ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.POINTER(ArrowArrayStream))
ARRAY_RELEASE = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))

_STREAM_NAME = b"arrow_array_stream"
_SCHEMA_NAME = b"arrow_schema"

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_libc = ctypes.CDLL(None)
_libc.malloc.restype = ctypes.c_void_p
_libc.malloc.argtypes = [ctypes.c_size_t]
_libc.free.restype = None
_libc.free.argtypes = [ctypes.c_void_p]

# What each live stream keeps alive (library handles, Python buffers), keyed by
# the C stream's private_data: a consumer may move the struct elsewhere, but
# private_data travels with it.
_live = {}
_live_lock = threading.Lock()


def live_streams():
    """How many exported streams have not been released yet (for tests)."""
    with _live_lock:
        return len(_live)


# The callbacks below are called from C, also while the interpreter shuts down: a
# capsule or a consumer's copy of a stream may be freed after this module's
# globals are cleared, and a ctypes callback freed before the capsule that names
# it would be a jump into freed memory. So each callback takes what it uses as
# default arguments, not globals, and is kept alive for the life of the process
# (_forever); and what a stream reads from is freed only under a lease on its
# handle (_lib.Handle), so no order of collection frees a table before its scanner.


def _forever(fn):
    _api.Py_IncRef(ctypes.py_object(fn))
    return fn


_api.Py_IncRef.restype = None
_api.Py_IncRef.argtypes = [ctypes.py_object]


@_forever
@STREAM_RELEASE
def _release_stream(p, _live=_live, _live_lock=_live_lock, STREAM_RELEASE=STREAM_RELEASE,
                    ctypes=ctypes):
    s = p.contents
    key = s.private_data
    with _live_lock:
        entry = _live.pop(key, None)
    if entry is not None:
        orig_release, cleanup = entry
        ctypes.cast(orig_release, STREAM_RELEASE)(p)  # the library's release
        cleanup()
    s.release = None
    s.private_data = None


_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def _capsule_gone(name, struct, release_type, ctypes=ctypes, api=_api, libc=_libc):
    """The destructor of a capsule holding a malloc'd `struct` under `name`."""

    @_forever
    @_CAPSULE_DESTRUCTOR
    def gone(cap):
        ptr = api.PyCapsule_GetPointer(ctypes.cast(cap, ctypes.py_object), name)
        if ptr:
            s = struct.from_address(ptr)
            if s.release:  # never consumed: release it here
                ctypes.cast(s.release, release_type)(ctypes.cast(ptr, ctypes.POINTER(struct)))
            libc.free(ptr)

    return gone


_stream_capsule_gone = _capsule_gone(_STREAM_NAME, ArrowArrayStream, STREAM_RELEASE)
_schema_capsule_gone = _capsule_gone(_SCHEMA_NAME, ArrowSchema, SCHEMA_RELEASE)


def options(utf8="check", batch_rows=None):
    """A cf_arrow_options from the keyword forms above."""
    o = ArrowOptions()
    _lib.lib().cf_arrow_options_init(ctypes.byref(o))
    if utf8 == "check":
        o.utf8 = UTF8_CHECK
    elif utf8 == "binary":
        o.utf8 = UTF8_BINARY
    else:
        raise ValueError("utf8 must be 'check' or 'binary', not %r" % (utf8,))
    if batch_rows is not None:
        if int(batch_rows) < 1:
            raise ValueError("batch_rows must be >= 1")
        o.batch_rows = int(batch_rows)
    return o


def export_stream(make, cleanup):
    """A stream capsule. make(stream_ptr) fills the C stream (raising on error);
    cleanup() frees what the stream reads from, once the stream is released."""
    ptr = _libc.malloc(ctypes.sizeof(ArrowArrayStream))
    if not ptr:
        cleanup()
        raise MemoryError("arrow stream")
    ctypes.memset(ptr, 0, ctypes.sizeof(ArrowArrayStream))
    try:
        make(ptr)
    except BaseException:
        _libc.free(ptr)
        cleanup()
        raise
    s = ArrowArrayStream.from_address(ptr)
    with _live_lock:
        _live[s.private_data] = (s.release, cleanup)
    s.release = ctypes.cast(_release_stream, ctypes.c_void_p).value
    return _api.PyCapsule_New(ptr, _STREAM_NAME,
                              ctypes.cast(_stream_capsule_gone, ctypes.c_void_p).value)


def schema_capsule_of(stream_capsule):
    """The schema of a stream capsule (which is then released) as a schema capsule."""
    sp = _api.PyCapsule_GetPointer(stream_capsule, _STREAM_NAME)
    s = ArrowArrayStream.from_address(sp)
    ptr = _libc.malloc(ctypes.sizeof(ArrowSchema))
    if not ptr:
        raise MemoryError("arrow schema")
    ctypes.memset(ptr, 0, ctypes.sizeof(ArrowSchema))
    rc = ctypes.cast(s.get_schema, GET_SCHEMA)(ctypes.cast(sp, ctypes.POINTER(ArrowArrayStream)),
                                               ctypes.cast(ptr, ctypes.POINTER(ArrowSchema)))
    if rc != 0:
        _libc.free(ptr)
        raise _lib.CFileError(_lib.EIO, "arrow get_schema failed (errno %d)" % rc)
    return _api.PyCapsule_New(ptr, _SCHEMA_NAME,
                              ctypes.cast(_schema_capsule_gone, ctypes.c_void_p).value)


def stream_pointer(capsule):
    """The ArrowArrayStream* inside a stream capsule (ValueError if it is not one)."""
    if not _api.PyCapsule_IsValid(capsule, _STREAM_NAME):
        raise ValueError("not an arrow_array_stream capsule")
    return ctypes.cast(_api.PyCapsule_GetPointer(capsule, _STREAM_NAME),
                       ctypes.POINTER(ArrowArrayStream))


def schema_pointer(capsule):
    """The ArrowSchema* inside a schema capsule (ValueError if it is not one)."""
    if not _api.PyCapsule_IsValid(capsule, _SCHEMA_NAME):
        raise ValueError("not an arrow_schema capsule")
    return ctypes.cast(_api.PyCapsule_GetPointer(capsule, _SCHEMA_NAME),
                       ctypes.POINTER(ArrowSchema))


class StreamSource:
    """Mixin: __arrow_c_stream__ / __arrow_c_schema__ from self._arrow_stream(o, ptr),
    which fills the C stream at ptr with options o and returns the cleanup."""

    def __arrow_c_stream__(self, requested_schema=None, utf8="check", batch_rows=None):
        o = options(utf8, batch_rows)
        box = []

        def make(ptr):
            box.append(self._arrow_stream(o, ptr))

        return export_stream(make, lambda: box and box.pop()())

    def __arrow_c_schema__(self, utf8="check"):
        return schema_capsule_of(self.__arrow_c_stream__(utf8=utf8))


class ScanSource(StreamSource):
    """Mixin for an object whose rows come from self.scan(**kw) (a scan object with
    __iter__, _arrow_stream and to_pandas): iterating it, its Arrow stream and
    to_pandas are those of a scan with the defaults."""

    def __iter__(self):
        return iter(self.scan())

    def _arrow_stream(self, o, ptr):
        return self.scan()._arrow_stream(o, ptr)

    def to_pandas(self, **kw):
        return self.scan(**kw).to_pandas()

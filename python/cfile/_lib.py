"""Loading libcfile.so and declaring the C functions the package calls (ctypes).

The structures below mirror include/cfile/{status,types,reader,iter,writer}.h
field for field; they must change when those headers change.

Where the library is found, first match wins:
  1. the CFILE_LIB environment variable (a path to libcfile.so);
  2. the build tree next to this package: <repo>/build/libcfile.so;
  3. the library CMake installed beside the package (<libdir>/libcfile.so.0, the
     package being in <libdir>/python3/dist-packages/cfile);
  4. ctypes.util.find_library("cfile"), else "libcfile.so.0" through the dynamic
     linker's search (ldconfig's cache, LD_LIBRARY_PATH).
The library is loaded on first use, so `import cfile` never fails for lack of it.
"""

import ctypes
import ctypes.util
import os
import sys
import threading

c_status = ctypes.c_int  # enum cf_status


class CError(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_int),
        ("msg", ctypes.c_char * 256),
        ("where", ctypes.c_char * 64),
    ]


class CSlice(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("len", ctypes.c_size_t)]


class CMetadataPair(ctypes.Structure):
    _fields_ = [("key", CSlice), ("value", CSlice)]


class CFileInfo(ctypes.Structure):
    _fields_ = [
        ("format_version", ctypes.c_int),
        ("type", ctypes.c_int),
        ("encoding", ctypes.c_int),
        ("compression", ctypes.c_int),
        ("num_values", ctypes.c_uint64),
        ("nullable", ctypes.c_bool),
        ("is_array", ctypes.c_bool),
        ("has_posidx", ctypes.c_bool),
        ("has_validx", ctypes.c_bool),
        ("has_dict_block", ctypes.c_bool),
        ("incompatible_features", ctypes.c_uint32),
        ("compatible_features", ctypes.c_uint32),
        ("file_size", ctypes.c_uint64),
        ("posidx_root_off", ctypes.c_uint64),
        ("validx_root_off", ctypes.c_uint64),
        ("dict_block_off", ctypes.c_uint64),
        ("posidx_root_size", ctypes.c_uint32),
        ("validx_root_size", ctypes.c_uint32),
        ("dict_block_size", ctypes.c_uint32),
        ("header_len", ctypes.c_size_t),
        ("footer_len", ctypes.c_size_t),
    ]


class CReaderOptions(ctypes.Structure):
    _fields_ = [
        ("version", ctypes.c_uint32),
        ("verify_checksums", ctypes.c_bool),
        ("max_block_len", ctypes.c_size_t),
    ]


class CWriterOptions(ctypes.Structure):
    _fields_ = [
        ("version", ctypes.c_uint32),
        ("type", ctypes.c_int),
        ("encoding", ctypes.c_int),
        ("compression", ctypes.c_int),
        ("nullable", ctypes.c_bool),
        ("is_array", ctypes.c_bool),
        ("write_posidx", ctypes.c_bool),
        ("write_validx", ctypes.c_bool),
        ("checksums", ctypes.c_bool),
        ("optimize_index_keys", ctypes.c_bool),
        ("block_size", ctypes.c_uint32),
        ("index_block_size", ctypes.c_uint32),
        ("restart_interval", ctypes.c_uint32),
    ]


class CBatch(ctypes.Structure):
    _fields_ = [
        ("count", ctypes.c_size_t),
        ("first_ord", ctypes.c_uint64),
        ("values", ctypes.c_void_p),
        ("nonnull", ctypes.c_void_p),
        ("elem_offsets", ctypes.c_void_p),
        ("elem_count", ctypes.c_size_t),
        ("elem_nonnull", ctypes.c_void_p),
    ]


# Status codes (status.h; pinned forever).
OK = 0
EINVAL = 1
ESTATE = 2
ECORRUPT = 3
ENOTSUP = 4
EIO = 5
ENOMEM = 6
ENOTFOUND = 7
EBUFSIZE = 8
EBUSY = 9

# cf_status_str's names (pinned with the codes).
_STATUS_NAMES = {
    OK: "ok", EINVAL: "invalid argument", ESTATE: "call out of order",
    ECORRUPT: "corruption", ENOTSUP: "not supported", EIO: "i/o error",
    ENOMEM: "out of memory", ENOTFOUND: "not found", EBUFSIZE: "buffer too small",
    EBUSY: "busy",
}


class Closing:
    """Mixin for an object that holds library handles and frees them in close():
    `with` closes it on the way out, and so does the garbage collector. A failure
    while collected is dropped: __del__ may run at interpreter exit, when the
    library may already be gone."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class HandleOwner(Closing):
    """Closing for an object whose one library handle is self._h (a Handle; None
    until opened): close() frees it, closed says whether it is gone."""

    def close(self):
        if self._h is not None:
            self._h.close()

    @property
    def closed(self):
        return self._h is None or self._h.closed


class Handle:
    """One library handle (a C pointer) and the package's one rule for its lifetime
    and its threads; every object of the package that owns a handle keeps it in one.

    A call on the handle runs inside `with h as ptr:`, which holds the handle's
    lock, so calls from several Python threads run one at a time (ctypes lets go
    of the GIL during a call), and raises ValueError once the handle is closed.
    Whatever keeps using the handle between calls (an iterator part way through,
    an Arrow stream) holds a lease: acquire() ... release(). close() marks the
    handle closed at once, so a lease holder's next call raises ValueError, but
    frees it in C only when the last lease is given back: no C object is ever
    freed while another one (an iterator, a scanner) still points into it.
    A handle that points into another one (a Kudu tablet into its server's fs)
    names it as parent and holds a lease on it until it is freed itself; calls
    on it are refused once the parent is closed."""

    def __init__(self, ptr, free, what, parent=None):
        self._ptr = ptr
        self._free = free  # free(ptr): frees the handle and whatever it holds
        self.what = what  # "the table", for "the table was closed"
        self._lock = threading.RLock()
        self._leases = 0
        self._closed = False
        self._parent = parent
        if parent is not None:
            try:
                parent.acquire()
            except BaseException:
                free(ptr)
                raise

    def _done(self, ptr, final=None):
        try:
            (final or self._free)(ptr)
        finally:
            if self._parent is not None:
                self._parent.release()

    @property
    def closed(self):
        return self._closed

    @property
    def leases(self):
        return self._leases

    def _refuse(self):
        """ValueError naming the closed handle (this one or a parent), else None."""
        h = self
        while h is not None:
            if h._closed:
                raise ValueError("%s was closed" % h.what)
            h = h._parent

    def get(self):
        """The pointer, for a call that needs no lock (ValueError once closed)."""
        self._refuse()
        return self._ptr

    def __enter__(self):
        self._lock.acquire()
        try:
            self._refuse()
        except ValueError:
            self._lock.release()
            raise
        return self._ptr

    def __exit__(self, *exc):
        self._lock.release()
        return False

    def acquire(self):
        """Take a lease (ValueError once closed); give it back with release()."""
        with self._lock:
            self._refuse()
            self._leases += 1

    def release(self):
        with self._lock:
            self._leases -= 1
            if not self._closed or self._leases or self._ptr is None:
                return
            ptr, self._ptr = self._ptr, None
        self._done(ptr)

    def close(self, final=None):
        """Close: every later call raises ValueError. The C side is freed now, by
        final(ptr) when given (a free that reports errors), else by the handle's
        free; or, while leases are out, by the free when the last one returns.
        Returns whether it was freed now."""
        with self._lock:
            if self._closed:
                return False
            self._closed = True
            if self._leases:
                return False
            ptr, self._ptr = self._ptr, None
        if ptr:
            self._done(ptr, final)
        return True

    def leased(self, gen):
        """Run generator `gen` (made from the pointer) under a lease: each step is
        a call under the lock, refused once the handle is closed; the generator is
        closed (its finally frees what it made) before the lease is given back."""
        self.acquire()
        try:
            while True:
                with self as _:
                    try:
                        item = next(gen)
                    except StopIteration:
                        return
                yield item
        finally:
            with self._lock:
                gen.close()
            self.release()


def io_handle(ptr, free, io, what, keep=()):
    """A Handle over ptr whose free is free(ptr), then the io under it (0 or None:
    none), then letting go of `keep`, the Python objects (file bytes) the C side
    points into."""
    lib_ = lib()
    keep = list(keep)

    def free_all(p):
        free(p)
        if io:
            lib_.cf_io_free(io)
        keep.clear()

    return Handle(ptr, free_all, what)


def open_in_memory(open_fn, buf, size, opts=None):
    """A handle opened by open_fn(out, io, opts, err) over the first `size` bytes
    of the ctypes buffer `buf`, through a memory io: (handle, io). The library
    borrows the bytes, so buf must outlive the handle; on failure the io is
    freed and CFileError raised."""
    lib_ = lib()
    err = CError()
    io = ctypes.c_void_p()
    check(lib_.cf_io_open_mem(ctypes.byref(io), ctypes.addressof(buf), size, ctypes.byref(err)),
          err)
    out = ctypes.c_void_p()
    st = open_fn(ctypes.byref(out), io.value, opts, ctypes.byref(err))
    if st != OK:
        lib_.cf_io_free(io.value)
        check(st, err)
    return out.value, io.value


def stream_cleanup(free, handle, io, keep):
    """The cleanup of an Arrow stream that reads through a handle of its own:
    free the handle, then the io under it (0 or None: none), then let go of
    `keep`, the Python objects (file bytes, arrays) the C side points into. It
    uses no module globals: it may run while the interpreter exits."""
    io_free = lib().cf_io_free

    def cleanup():
        free(handle)
        if io:
            io_free(io)
        keep.clear()

    return cleanup


class CFileError(Exception):
    """A call into libcfile failed.

    status:      the cf_status code (an int, e.g. cfile.ECORRUPT == 3)
    status_name: the library's name for it ("corruption", "not found", ...)
    message:     the library's one-line message (what and where)
    """

    def __init__(self, status, message):
        self.status = int(status)
        self.message = message
        # Not asked of the library: this error also reports that it failed to load.
        self.status_name = _STATUS_NAMES.get(self.status, "unknown status")
        super().__init__(self.status, message)

    def __str__(self):
        return "%s: %s" % (self.status_name, self.message)


# The argument types of every module's declarations: a handle, a cf_error *, and
# the out-pointer a handle is returned through.
_P = ctypes.c_void_p
_E = ctypes.POINTER(CError)
_PP = ctypes.POINTER(ctypes.c_void_p)

# name: (restype, argtypes)
_DECLS = {
    "cf_status_str": (ctypes.c_char_p, [ctypes.c_int]),
    "cf_type_name": (ctypes.c_char_p, [ctypes.c_int]),
    "cf_encoding_name": (ctypes.c_char_p, [ctypes.c_int]),
    "cf_compression_name": (ctypes.c_char_p, [ctypes.c_int]),
    "cf_type_parse": (c_status, [ctypes.POINTER(ctypes.c_int), ctypes.c_char_p]),
    "cf_encoding_parse": (c_status, [ctypes.POINTER(ctypes.c_int), ctypes.c_char_p]),
    "cf_compression_parse": (c_status, [ctypes.POINTER(ctypes.c_int), ctypes.c_char_p]),
    "cf_type_size": (ctypes.c_size_t, [ctypes.c_int]),
    "cf_reader_options_init": (None, [ctypes.POINTER(CReaderOptions)]),
    "cf_reader_open_file": (c_status, [_PP, ctypes.c_char_p, ctypes.c_bool,
                                       ctypes.POINTER(CReaderOptions), _E]),
    "cf_reader_open": (c_status, [_PP, _P, ctypes.POINTER(CReaderOptions), _E]),
    "cf_reader_info": (ctypes.POINTER(CFileInfo), [_P]),
    "cf_reader_header_metadata": (ctypes.c_size_t, [_P, ctypes.POINTER(ctypes.POINTER(CMetadataPair))]),
    "cf_reader_footer_metadata": (ctypes.c_size_t, [_P, ctypes.POINTER(ctypes.POINTER(CMetadataPair))]),
    "cf_reader_verify": (c_status, [_P, _P, _P, ctypes.POINTER(ctypes.c_size_t), _E]),
    "cf_reader_free": (None, [_P]),
    "cf_io_open_mem": (c_status, [_PP, _P, ctypes.c_size_t, _E]),
    "cf_io_create_mem": (c_status, [_PP, _E]),
    "cf_io_mem_contents": (CSlice, [_P]),
    "cf_io_free": (None, [_P]),
    "cf_iter_create": (c_status, [_PP, _P, _E]),
    "cf_iter_free": (None, [_P]),
    "cf_iter_seek_to_first": (c_status, [_P, _E]),
    "cf_iter_seek_to_ordinal": (c_status, [_P, ctypes.c_uint64, _E]),
    "cf_iter_seek_at_or_after": (c_status, [_P, _P, ctypes.POINTER(ctypes.c_bool), _E]),
    "cf_iter_next_batch": (c_status, [_P, ctypes.c_size_t, ctypes.POINTER(CBatch), _E]),
    "cf_iter_current_ordinal": (ctypes.c_uint64, [_P]),
    "cf_writer_options_init": (None, [ctypes.POINTER(CWriterOptions), ctypes.c_int]),
    "cf_writer_create": (c_status, [_PP, _P, ctypes.POINTER(CWriterOptions), _E]),
    "cf_writer_create_file": (c_status, [_PP, ctypes.c_char_p, ctypes.POINTER(CWriterOptions), _E]),
    "cf_writer_add_metadata": (c_status, [_P, ctypes.c_char_p, _P, ctypes.c_size_t, _E]),
    "cf_writer_append": (c_status, [_P, _P, _P, ctypes.c_size_t, _E]),
    "cf_writer_append_arrays": (c_status, [_P, _P, _P, _P, _P, ctypes.c_size_t, _E]),
    "cf_writer_finish": (c_status, [_P, _E]),
    "cf_writer_num_values": (ctypes.c_uint64, [_P]),
    "cf_writer_resolved_options": (ctypes.POINTER(CWriterOptions), [_P]),
    "cf_writer_free": (None, [_P]),
    "cf_arrow_options_init": (None, [_P]),
    "cf_arrow_stream_cfiles": (c_status, [_P, _P, _P, ctypes.c_size_t, _P, _E]),
    "cf_arrow_stream_table": (c_status, [_P, _P, _P, _P, _E]),
    "cf_arrow_stream_hfile": (c_status, [_P, _P, _P, _E]),
}


def declare(decls):
    """Add declarations (name: (restype, argtypes)) before the library loads;
    modules of the package call it at import."""
    if _lib is not None:
        for name, (res, args) in decls.items():
            try:
                fn = getattr(_lib, name)
            except AttributeError:
                continue
            if isinstance(fn, _NotBuilt):
                continue
            fn.restype = res
            fn.argtypes = args
    _DECLS.update(decls)
    owner = sys._getframe(1).f_globals.get("__name__")
    for name in decls:
        _OWNER[name] = owner


# The modules a libcfile can be built without (-DCF_WITH_X=OFF, CMakeLists.txt): which
# one a function belongs to, by the package module that declared it (or its name), so a
# call into one that is absent raises ENOTSUP naming the option.
_MODULES = {"cfile.hfile": ("HFile", "CF_WITH_HFILE"),
            "cfile.parquet": ("Parquet", "CF_WITH_PARQUET"),
            "cfile.table": ("tables", "CF_WITH_TABLES"),
            "cfile.kudu": ("tables", "CF_WITH_TABLES"),
            "cf_arrow_stream_hfile": ("HFile", "CF_WITH_HFILE"),
            "cf_arrow_stream_parquet": ("Parquet", "CF_WITH_PARQUET"),
            "cf_arrow_stream_table": ("tables", "CF_WITH_TABLES")}
_OWNER = {}  # function name -> the module that declared it


class _NotBuilt:
    """Stands for a function of a module this libcfile was built without."""

    def __init__(self, name):
        self.name = name

    def __call__(self, *args):
        m = _MODULES.get(self.name) or _MODULES.get(_OWNER.get(self.name))
        if m is not None:
            raise CFileError(ENOTSUP, "this libcfile has no %s module (built with %s=OFF)" % m)
        raise CFileError(ENOTSUP, "%s: not in this libcfile" % self.name)


class _Lib:
    """The library with stand-ins for the functions it lacks (modules left out)."""

    def __init__(self, handle, missing):
        self._handle = handle
        for name in missing:
            setattr(self, name, _NotBuilt(name))

    def __getattr__(self, name):
        return getattr(self._handle, name)


def has_module(module):
    """Whether the loaded libcfile has a module: "hfile", "tables" or "parquet"."""
    probe = {"hfile": "cf_arrow_stream_hfile", "tables": "cf_arrow_stream_table",
             "parquet": "cf_arrow_stream_parquet"}[module]
    handle = lib()
    # A _Lib wraps the CDLL of a build that lacks functions; a full build's lib() is
    # the CDLL itself, whose own _handle is the dlopen handle (an int), not a library.
    return hasattr(handle._handle if isinstance(handle, _Lib) else handle, probe)

_lock = threading.Lock()
_lib = None


def _candidates():
    env = os.environ.get("CFILE_LIB")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    out = [os.path.normpath(os.path.join(here, "..", "..", "build", "libcfile.so")),
           # Installed by CMake beside the library: <libdir>/python3/dist-packages/cfile.
           os.path.normpath(os.path.join(here, "..", "..", "..", "libcfile.so.0"))]
    found = ctypes.util.find_library("cfile")
    out.append(found or "libcfile.so.0")  # the dynamic linker's own search
    return out


def lib():
    """The loaded library, with every function of _DECLS declared."""
    global _lib
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is None:
            tried = []
            handle = None
            for path in _candidates():
                if os.sep in path and not os.path.exists(path):
                    tried.append(path + " (missing)")
                    continue
                try:
                    handle = ctypes.CDLL(path)
                    break
                except OSError as e:
                    tried.append("%s (%s)" % (path, e))
            if handle is None:
                raise CFileError(EIO, "cannot load libcfile: tried " + "; ".join(tried)
                                 + " (set CFILE_LIB to the path of libcfile.so)")
            missing = []
            for name, (res, args) in _DECLS.items():
                try:
                    fn = getattr(handle, name)
                except AttributeError:
                    missing.append(name)
                    continue
                fn.restype = res
                fn.argtypes = args
            _lib = _Lib(handle, missing) if missing else handle
    return _lib


def check(st, err):
    """Raise CFileError for a failed call; err is the CError the call filled."""
    if st != OK:
        msg = err.msg.decode("utf-8", "replace") if err.code == st else ""
        raise CFileError(st, msg or "call failed")


def status_str(st):
    return lib().cf_status_str(st).decode()


def _parse(fn_name, kind, name):
    if not isinstance(name, str):
        raise TypeError("%s must be a str, not %s" % (kind, type(name).__name__))
    out = ctypes.c_int()
    st = getattr(lib(), fn_name)(ctypes.byref(out), name.encode())
    if st != OK:
        raise CFileError(st, "unknown %s name %r" % (kind, name))
    return out.value


def parse_type(name):
    return _parse("cf_type_parse", "type", name)


def parse_encoding(name):
    return _parse("cf_encoding_parse", "encoding", name)


def parse_compression(name):
    return _parse("cf_compression_parse", "compression", name)


def type_name(t):
    s = lib().cf_type_name(t)
    return s.decode() if s else "UNKNOWN(%d)" % t


def encoding_name(e):
    s = lib().cf_encoding_name(e)
    return s.decode() if s else "UNKNOWN(%d)" % e


def compression_name(c):
    s = lib().cf_compression_name(c)
    return s.decode() if s else "UNKNOWN(%d)" % c

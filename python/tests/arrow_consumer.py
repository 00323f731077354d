"""A minimal Arrow C Stream consumer in ctypes, standing in for pyarrow (not in
Debian 12): takes a PyCapsule "arrow_array_stream" the way pyarrow does (moves
the stream out of it), reads every record batch and decodes the columns into
Python lists. Covers the layouts cfile exports: primitives, bool, utf8/binary
(int32 and int64 offsets), date32, timestamp[us], decimal128 (as unscaled ints),
lists, and the struct root."""

import ctypes
import struct

from cfile import arrow as A


class StreamError(Exception):
    def __init__(self, code, message):
        super().__init__("%d: %s" % (code, message))
        self.code = code
        self.message = message


_FIXED = {"c": "b", "C": "B", "s": "h", "S": "H", "i": "i", "I": "I", "l": "q", "L": "Q",
          "f": "f", "g": "d", "tdD": "i"}


def _bit(buf, i):
    return (ctypes.string_at(buf + (i >> 3), 1)[0] >> (i & 7)) & 1


def decode(schema, arr):
    """Python values of one array (schema: ArrowSchema, arr: ArrowArray)."""
    fmt = schema.format.decode()
    n, off = arr.length, arr.offset
    bufs = arr.buffers
    valid = bufs[0]

    def present(i):
        return not valid or arr.null_count == 0 or _bit(valid, off + i)

    if fmt == "+s":
        cols = {}
        for k in range(schema.n_children):
            cs = schema.children[k].contents
            cols[cs.name.decode()] = decode(cs, arr.children[k].contents)
        return cols
    if fmt == "+l":
        offs = struct.unpack("<%di" % (n + 1), ctypes.string_at(bufs[1] + 4 * off, 4 * (n + 1)))
        elems = decode(schema.children[0].contents, arr.children[0].contents)
        return [elems[offs[i]:offs[i + 1]] if present(i) else None for i in range(n)]
    if fmt in _FIXED or fmt.startswith("ts"):
        code = _FIXED.get(fmt, "q")
        size = struct.calcsize(code)
        vals = struct.unpack("<%d%s" % (n, code), ctypes.string_at(bufs[1] + size * off, size * n))
        return [v if present(i) else None for i, v in enumerate(vals)]
    if fmt == "b":
        return [bool(_bit(bufs[1], off + i)) if present(i) else None for i in range(n)]
    if fmt.startswith("d:"):
        raw = ctypes.string_at(bufs[1] + 16 * off, 16 * n)
        return [int.from_bytes(raw[16 * i:16 * i + 16], "little", signed=True) if present(i)
                else None for i in range(n)]
    if fmt in ("u", "z", "U", "Z"):
        w = 8 if fmt in ("U", "Z") else 4
        offs = struct.unpack("<%d%s" % (n + 1, "q" if w == 8 else "i"),
                             ctypes.string_at(bufs[1] + w * off, w * (n + 1)))
        out = []
        for i in range(n):
            if not present(i):
                out.append(None)
                continue
            b = ctypes.string_at(bufs[2] + offs[i], offs[i + 1] - offs[i])
            out.append(b.decode("utf-8") if fmt in ("u", "U") else b)
        return out
    raise NotImplementedError(fmt)


def consume(capsule):
    """(schema formats by name, {name: values}) of every batch of a stream capsule."""
    p = A.stream_pointer(capsule)
    # Move the stream out of the capsule, as consumers do: the capsule's destructor
    # then finds it released and only frees the struct.
    s = A.ArrowArrayStream()
    ctypes.memmove(ctypes.addressof(s), p, ctypes.sizeof(s))
    p.contents.release = None
    sp = ctypes.pointer(s)
    try:
        sch = A.ArrowSchema()
        rc = ctypes.cast(s.get_schema, A.GET_SCHEMA)(sp, ctypes.byref(sch))
        if rc:
            raise StreamError(rc, "get_schema")
        formats = {}
        cols = {}
        for k in range(sch.n_children):
            c = sch.children[k].contents
            formats[c.name.decode()] = c.format.decode()
            cols[c.name.decode()] = []
        while True:
            arr = A.ArrowArray()
            rc = ctypes.cast(s.get_next, A.GET_NEXT)(sp, ctypes.byref(arr))
            if rc:
                msg = ctypes.cast(s.get_last_error, A.GET_LAST_ERROR)(sp)
                raise StreamError(rc, msg.decode() if msg else "")
            if not arr.release:
                break
            batch = decode(sch, arr)
            for k, v in batch.items():
                cols[k].extend(v)
            ctypes.cast(arr.release, A.ARRAY_RELEASE)(ctypes.byref(arr))
        ctypes.cast(sch.release, A.SCHEMA_RELEASE)(ctypes.byref(sch))
        return formats, cols
    finally:
        if s.release:
            ctypes.cast(s.release, A.STREAM_RELEASE)(sp)

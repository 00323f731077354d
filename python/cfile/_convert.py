"""Between the library's in-memory value forms (iter.h, writer.h) and Python values.

Memory forms (native byte order): one fixed-width value per row for numeric
types, uint8 0/1 for BOOL, 16-byte little-endian two's complement for
INT128/DECIMAL128, and a cf_slice {pointer, size_t length} for STRING, BINARY
and VARCHAR.
"""

import array
import ctypes
import datetime
import decimal
import itertools

from . import _lib

# cf_type values (types.h).
UINT8, INT8, UINT16, INT16, UINT32, INT32, UINT64, INT64 = range(8)
STRING, BOOL, FLOAT, DOUBLE, BINARY, UNIXTIME_MICROS = 8, 9, 10, 11, 12, 13
INT128, DECIMAL32, DECIMAL64, DECIMAL128, VARCHAR, DATE = 14, 15, 16, 17, 19, 20

# array-module type codes of the fixed-width memory forms.
TYPECODE = {
    UINT8: "B", INT8: "b", UINT16: "H", INT16: "h", UINT32: "I", INT32: "i",
    UINT64: "Q", INT64: "q", BOOL: "B", FLOAT: "f", DOUBLE: "d",
    UNIXTIME_MICROS: "q", DECIMAL32: "i", DECIMAL64: "q", DATE: "i",
}
WIDE = (INT128, DECIMAL128)
BINARY_TYPES = (STRING, BINARY, VARCHAR)
DECIMALS = (DECIMAL32, DECIMAL64, DECIMAL128)

for _code, _size in (("b", 1), ("h", 2), ("i", 4), ("q", 8), ("f", 4), ("d", 8)):
    assert array.array(_code).itemsize == _size, "unexpected C type sizes"
assert ctypes.sizeof(_lib.CSlice) == 16, "cfile's Python binding needs a 64-bit platform"

NUMPY_DTYPE = {
    UINT8: "uint8", INT8: "int8", UINT16: "uint16", INT16: "int16", UINT32: "uint32",
    INT32: "int32", UINT64: "uint64", INT64: "int64", BOOL: "bool", FLOAT: "float32",
    DOUBLE: "float64", UNIXTIME_MICROS: "int64", DECIMAL32: "int32",
    DECIMAL64: "int64", DATE: "int32",
}

EPOCH_DATE = datetime.date(1970, 1, 1)
EPOCH_TS = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)

# _BITS[b]: the 8 presence flags of bitmap byte b, least significant bit first.
_BITS = tuple(tuple(bool(b >> i & 1) for i in range(8)) for b in range(256))


def value_size(t):
    if t in TYPECODE:
        return array.array(TYPECODE[t]).itemsize
    if t in WIDE:
        return 16
    return 16  # cf_slice


class ReadOptions:
    """How values of a few types are presented (see cfile.open)."""

    def __init__(self, scale=None, timestamps="int", dates="int"):
        if scale is not None and (not isinstance(scale, int) or scale < 0):
            raise ValueError("scale must be a non-negative int")
        if timestamps not in ("int", "datetime"):
            raise ValueError("timestamps must be 'int' or 'datetime'")
        if dates not in ("int", "date"):
            raise ValueError("dates must be 'int' or 'date'")
        self.scale = scale
        self.timestamps = timestamps
        self.dates = dates


def bitmap_flags(ptr, n):
    """Presence flags of n rows from a bitmap at address ptr (None/0 = all present)."""
    if not ptr:
        return None
    raw = ctypes.string_at(ptr, (n + 7) // 8)
    flags = list(itertools.chain.from_iterable(_BITS[b] for b in raw))
    del flags[n:]
    return flags


def _decode_str(b):
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return b


def decode(t, ptr, n, opts):
    """n values of type t at address ptr as Python values (NULL rows come out as
    the zero value; apply_nulls replaces them)."""
    if n == 0:
        return []
    code = TYPECODE.get(t)
    if code is not None:
        raw = ctypes.string_at(ptr, n * value_size(t))
        vals = memoryview(raw).cast(code).tolist()
        if t == BOOL:
            return [v != 0 for v in vals]
        if t == DATE and opts.dates == "date":
            return [EPOCH_DATE + datetime.timedelta(days=v) for v in vals]
        if t == UNIXTIME_MICROS and opts.timestamps == "datetime":
            return [EPOCH_TS + datetime.timedelta(microseconds=v) for v in vals]
        if t in DECIMALS and opts.scale is not None:
            return [decimal.Decimal(v).scaleb(-opts.scale) for v in vals]
        return vals
    if t in WIDE:
        raw = ctypes.string_at(ptr, n * 16)
        fb = int.from_bytes
        vals = [fb(raw[i:i + 16], "little", signed=True) for i in range(0, n * 16, 16)]
        if t == DECIMAL128 and opts.scale is not None:
            return [decimal.Decimal(v).scaleb(-opts.scale) for v in vals]
        return vals
    if t in BINARY_TYPES:
        raw = ctypes.string_at(ptr, n * 16)
        q = memoryview(raw).cast("Q")
        sa = ctypes.string_at
        vals = [sa(q[i], q[i + 1]) if q[i + 1] else b"" for i in range(0, 2 * n, 2)]
        if t != BINARY:
            vals = [_decode_str(b) for b in vals]
        return vals
    raise _lib.CFileError(_lib.ENOTSUP, "type %d has no Python form" % t)


def apply_nulls(vals, flags):
    if flags is None:
        return vals
    return [v if p else None for v, p in zip(vals, flags)]


# ---- Python values -> memory form ----------------------------------------------------

def _to_int(t, v, scale):
    if isinstance(v, bool) or not isinstance(v, int):
        if t in DECIMALS and isinstance(v, decimal.Decimal):
            if scale is None:
                if v != v.to_integral_value():
                    raise ValueError("a Decimal with a fraction needs scale= (%s)" % v)
                return int(v)
            u = v.scaleb(scale)
            if u != u.to_integral_value():
                raise ValueError("%s has more than %d decimal places" % (v, scale))
            return int(u)
        if t == DATE and isinstance(v, datetime.date) and not isinstance(v, datetime.datetime):
            return (v - EPOCH_DATE).days
        if t == UNIXTIME_MICROS and isinstance(v, datetime.datetime):
            if v.tzinfo is None:  # naive datetimes are taken as UTC
                v = v.replace(tzinfo=datetime.timezone.utc)
            d = v - EPOCH_TS
            return (d.days * 86400 + d.seconds) * 1000000 + d.microseconds
        raise TypeError("expected an int for %s, got %r" % (_lib.type_name(t), v))
    return v


def _to_bytes(t, v):
    if t != BINARY and isinstance(v, str):
        return v.encode("utf-8")
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    raise TypeError("expected %s for %s, got %r"
                    % ("bytes" if t == BINARY else "str or bytes", _lib.type_name(t), v))


class Encoded:
    """Values in memory form; `ptr` is an address valid while this object lives."""

    def __init__(self, ptr, keep):
        self.ptr = ptr
        self._keep = keep


def encode(t, vals, scale=None):
    """Encode a list of values (None = NULL: a zero slot) in t's memory form."""
    n = len(vals)
    if n == 0:
        return Encoded(None, None)
    code = TYPECODE.get(t)
    try:
        if code is not None:
            if t == BOOL:
                arr = array.array("B", [1 if v else 0 for v in vals])
            elif t in (FLOAT, DOUBLE):
                for v in vals:
                    if v is not None and (isinstance(v, bool)
                                          or not isinstance(v, (int, float))):
                        raise TypeError("expected a float for %s, got %r"
                                        % (_lib.type_name(t), v))
                arr = array.array(code, [0.0 if v is None else v for v in vals])
            else:
                arr = array.array(code, [0 if v is None else _to_int(t, v, scale)
                                         for v in vals])
            return Encoded(arr.buffer_info()[0], arr)
        if t in WIDE:
            raw = bytearray(b"".join(
                (0 if v is None else _to_int(t, v, scale)).to_bytes(16, "little", signed=True)
                for v in vals))
            buf = (ctypes.c_char * len(raw)).from_buffer(raw)
            return Encoded(ctypes.addressof(buf), (raw, buf))
        if t in BINARY_TYPES:
            bs = [b"" if v is None else _to_bytes(t, v) for v in vals]
            joined = b"".join(bs)
            store = ctypes.create_string_buffer(joined, max(len(joined), 1))
            base = ctypes.addressof(store)
            sl = array.array("Q", bytes(16 * n))
            off = 0
            for i, b in enumerate(bs):
                sl[2 * i] = base + off
                sl[2 * i + 1] = len(b)
                off += len(b)
            return Encoded(sl.buffer_info()[0], (store, sl))
    except OverflowError as e:
        raise OverflowError("a value is out of range for %s: %s" % (_lib.type_name(t), e))
    raise _lib.CFileError(_lib.ENOTSUP, "type %d has no Python form" % t)


def make_bitmap(flags):
    """LSB-first bitmap of a list of presence flags."""
    n = len(flags)
    bm = bytearray((n + 7) // 8)
    for i, p in enumerate(flags):
        if p:
            bm[i >> 3] |= 1 << (i & 7)
    return bm

/* The Thrift compact protocol, reader and writer (wire facts in thrift.h).
 *
 * The reader never trusts a length: every varint, string, list size and field
 * header is checked against the bytes left before it is used, nesting is
 * limited to CF_THRIFT_MAX_DEPTH, and decoded structures come from an arena
 * whose total is capped in proportion to the input, so a small hostile footer
 * cannot make us allocate much. */
#include "thrift.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"

/* ---- allocation: the reader's cf_arena, within what the input justifies ---- */

size_t cf_thrift_alloc_bound(size_t len)
{
    /* 256 bytes per input byte covers a decoded struct per one-byte element;
     * the 1 MiB floor keeps tiny inputs from being starved. */
    size_t b;
    if (!cf_mul_ok(len, 256, &b) || !cf_add_ok(b, (size_t)1 << 20, &b))
        return SIZE_MAX;
    return b;
}

cf_status cf_thrift_alloc(cf_thrift_reader *r, void **out, size_t count, size_t size)
{
    size_t n;
    /* The alignment of max_align_t (16 on x86-64), not its size (32): the arena asserts
     * an alignment it can give, which a Debug build checks on every Parquet read. */
    const size_t align = _Alignof(max_align_t);
    *out = NULL;
    /* Rounded up before the comparison, so alloc_used never passes the limit. */
    if (!cf_mul_ok(count, size, &n) || !cf_add_ok(n, align - 1, &n) ||
        (n = n / align * align, n > r->alloc_limit - r->alloc_used))
        return cf_thrift_fail(r,
                              "decoding needs more memory (%zu x %zu bytes) than %zu input "
                              "bytes can justify",
                              count, size, (size_t)(r->end - r->base));
    if (n == 0)
        n = align; /* a distinct pointer for an empty list */
    if (n > r->alloc_limit - r->alloc_used)
        return cf_thrift_fail(r, "decoding needs more memory than %zu input bytes can justify",
                              (size_t)(r->end - r->base));
    void *p = cf_arena_alloc_aligned(&r->arena, n, align);
    if (!p)
        CF_FAIL(r->err, CF_ENOMEM, "%s: out of memory (%zu bytes)", r->what, n);
    r->alloc_used += n;
    memset(p, 0, n);
    *out = p;
    return CF_OK;
}

/* ---- reader ---------------------------------------------------------------------- */

/* Every reader below sets its out-parameters first, so they hold a value on
 * every path, failures included: a caller never sees an unset one, and gcc's
 * -Wmaybe-uninitialized (Release, -O3) sees that as well. */

void cf_thrift_reader_init(cf_thrift_reader *r, const uint8_t *data, size_t len, uint64_t base_off,
                           const char *what, cf_error *err)
{
    memset(r, 0, sizeof(*r));
    r->base = data;
    r->p = data;
    r->end = data + len;
    r->base_off = base_off;
    r->what = what;
    r->alloc_limit = cf_thrift_alloc_bound(len);
    r->err = err;
}

void cf_thrift_reader_dispose(cf_thrift_reader *r)
{
    cf_arena_dispose(&r->arena);
}

cf_arena cf_thrift_reader_take_arena(cf_thrift_reader *r)
{
    cf_arena a = r->arena;
    cf_arena_init(&r->arena, 0);
    return a;
}

cf_status cf_thrift_fail(cf_thrift_reader *r, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    CF_FAIL(r->err, CF_ECORRUPT, "%s at offset %" PRIu64 ": %s", r->what,
            r->base_off + (uint64_t)(r->p - r->base), msg);
}

static cf_status read_varint(cf_thrift_reader *r, uint64_t *out)
{
    uint64_t v = 0;
    *out = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (r->p == r->end)
            return cf_thrift_fail(r, "truncated varint");
        uint8_t b = *r->p++;
        /* The tenth byte may carry only the top bit of a 64-bit value. */
        if (shift == 63 && b > 1)
            return cf_thrift_fail(r, "varint overflows 64 bits");
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return CF_OK;
        }
    }
    return cf_thrift_fail(r, "varint longer than 10 bytes");
}

static int64_t unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static cf_status enter(cf_thrift_reader *r)
{
    if (r->depth >= CF_THRIFT_MAX_DEPTH)
        return cf_thrift_fail(r, "nesting deeper than %d levels", CF_THRIFT_MAX_DEPTH);
    r->depth++;
    return CF_OK;
}

cf_status cf_thrift_struct_begin(cf_thrift_reader *r)
{
    CF_TRY(enter(r));
    r->last_fid[r->depth] = 0;
    return CF_OK;
}

void cf_thrift_struct_end(cf_thrift_reader *r)
{
    if (r->depth > 0)
        r->depth--;
}

cf_status cf_thrift_field_next(cf_thrift_reader *r, int16_t *fid, uint8_t *type)
{
    *type = CF_TT_STOP;
    *fid = 0;
    if (r->p == r->end)
        return cf_thrift_fail(r, "truncated struct (no stop byte)");
    uint8_t b = *r->p++;
    uint8_t t = b & 0x0f;
    *type = t;
    if (t == CF_TT_STOP) {
        if (b != 0)
            return cf_thrift_fail(r, "stop byte 0x%02x has a field id", b);
        return CF_OK;
    }
    if (t > CF_TT_UUID)
        return cf_thrift_fail(r, "field of unknown type %u", t);
    unsigned delta = b >> 4;
    int32_t id;
    if (delta) {
        id = (int32_t)r->last_fid[r->depth] + (int32_t)delta;
    } else {
        uint64_t v;
        CF_TRY(read_varint(r, &v));
        int64_t s = unzigzag(v);
        if (s < INT16_MIN || s > INT16_MAX)
            return cf_thrift_fail(r, "field id %" PRId64 " out of range", s);
        id = (int32_t)s;
    }
    if (id > INT16_MAX)
        return cf_thrift_fail(r, "field id %" PRId32 " out of range", id);
    r->last_fid[r->depth] = (int16_t)id;
    *fid = (int16_t)id;
    if (t == CF_TT_BOOL_TRUE || t == CF_TT_BOOL_FALSE)
        r->bool_field = t == CF_TT_BOOL_TRUE;
    return CF_OK;
}

static const char *type_name(uint8_t t)
{
    static const char *const names[] = {"stop",   "bool",   "bool", "i8",  "i16", "i32",    "i64",
                                        "double", "binary", "list", "set", "map", "struct", "uuid"};
    return t < sizeof(names) / sizeof(names[0]) ? names[t] : "unknown";
}

static cf_status want(cf_thrift_reader *r, uint8_t got, const char *expected)
{
    return cf_thrift_fail(r, "expected %s, found a %s", expected, type_name(got));
}

/* In a field header the value is the type; as a list element it is one byte. */
cf_status cf_thrift_read_bool(cf_thrift_reader *r, uint8_t type, bool *out)
{
    *out = false;
    if (type != CF_TT_BOOL_TRUE && type != CF_TT_BOOL_FALSE)
        return want(r, type, "a bool");
    *out = r->bool_field;
    return CF_OK;
}

static cf_status read_bool_elem(cf_thrift_reader *r, bool *out)
{
    *out = false;
    if (r->p == r->end)
        return cf_thrift_fail(r, "truncated bool");
    uint8_t b = *r->p++;
    /* Thrift writes 1 for true and 2 (some writers 0) for false. */
    if (b > 2)
        return cf_thrift_fail(r, "bool byte 0x%02x", b);
    *out = b == 1;
    return CF_OK;
}

cf_status cf_thrift_read_i64(cf_thrift_reader *r, uint8_t type, int64_t *out)
{
    *out = 0;
    if (type == CF_TT_I8) {
        if (r->p == r->end)
            return cf_thrift_fail(r, "truncated i8");
        *out = (int8_t)*r->p++;
        return CF_OK;
    }
    if (type != CF_TT_I16 && type != CF_TT_I32 && type != CF_TT_I64)
        return want(r, type, "an integer");
    uint64_t v;
    CF_TRY(read_varint(r, &v));
    *out = unzigzag(v);
    return CF_OK;
}

cf_status cf_thrift_read_i32(cf_thrift_reader *r, uint8_t type, int32_t *out)
{
    *out = 0;
    if (type == CF_TT_I64)
        return want(r, type, "an i32");
    int64_t v;
    CF_TRY(cf_thrift_read_i64(r, type, &v));
    if (v < INT32_MIN || v > INT32_MAX)
        return cf_thrift_fail(r, "i32 value %" PRId64 " out of range", v);
    *out = (int32_t)v;
    return CF_OK;
}

cf_status cf_thrift_read_double(cf_thrift_reader *r, uint8_t type, double *out)
{
    *out = 0;
    if (type != CF_TT_DOUBLE)
        return want(r, type, "a double");
    if (r->end - r->p < 8)
        return cf_thrift_fail(r, "truncated double");
    uint64_t bits = cf_load_le64(r->p);
    r->p += 8;
    memcpy(out, &bits, 8);
    return CF_OK;
}

cf_status cf_thrift_read_binary(cf_thrift_reader *r, uint8_t type, cf_slice *out)
{
    *out = (cf_slice){NULL, 0};
    if (type != CF_TT_BINARY)
        return want(r, type, "a binary");
    uint64_t n;
    CF_TRY(read_varint(r, &n));
    if (n > (uint64_t)(r->end - r->p))
        return cf_thrift_fail(r, "binary of %" PRIu64 " bytes, only %zu left", n,
                              (size_t)(r->end - r->p));
    out->data = r->p;
    out->len = (size_t)n;
    r->p += n;
    return CF_OK;
}

/* Every element occupies at least one byte on the wire (a bool element, an i8,
 * a varint, an empty struct's STOP), so a count beyond the bytes left is a lie. */
static cf_status check_count(cf_thrift_reader *r, uint64_t n, uint32_t *count)
{
    *count = 0;
    if (n > (uint64_t)(r->end - r->p))
        return cf_thrift_fail(r, "%" PRIu64 " elements claimed, only %zu bytes left", n,
                              (size_t)(r->end - r->p));
    *count = (uint32_t)n;
    return CF_OK;
}

static bool elem_type_ok(uint8_t t)
{
    return t >= CF_TT_BOOL_TRUE && t <= CF_TT_UUID;
}

cf_status cf_thrift_list_begin(cf_thrift_reader *r, uint8_t type, uint8_t *elem_type,
                               uint32_t *count)
{
    *elem_type = 0;
    *count = 0;
    if (type != CF_TT_LIST && type != CF_TT_SET)
        return want(r, type, "a list");
    if (r->p == r->end)
        return cf_thrift_fail(r, "truncated list header");
    uint8_t b = *r->p++;
    uint64_t n = b >> 4;
    *elem_type = b & 0x0f;
    if (n == 15)
        CF_TRY(read_varint(r, &n));
    /* Some writers give an empty list element type 0; nothing is read with it. */
    if (!elem_type_ok(*elem_type) && !(n == 0 && *elem_type == CF_TT_STOP))
        return cf_thrift_fail(r, "list of unknown element type %u", *elem_type);
    CF_TRY(check_count(r, n, count));
    return enter(r);
}

void cf_thrift_list_end(cf_thrift_reader *r)
{
    if (r->depth > 0)
        r->depth--;
}

cf_status cf_thrift_map_begin(cf_thrift_reader *r, uint8_t type, uint8_t *key_type,
                              uint8_t *value_type, uint32_t *count)
{
    *key_type = *value_type = 0;
    *count = 0;
    if (type != CF_TT_MAP)
        return want(r, type, "a map");
    uint64_t n;
    CF_TRY(read_varint(r, &n));
    if (n) {
        if (r->p == r->end)
            return cf_thrift_fail(r, "truncated map header");
        uint8_t b = *r->p++;
        *key_type = b >> 4;
        *value_type = b & 0x0f;
        if (!elem_type_ok(*key_type) || !elem_type_ok(*value_type))
            return cf_thrift_fail(r, "map of unknown types %u/%u", *key_type, *value_type);
        /* Two elements per entry, each at least one byte. */
        if (n > (uint64_t)(r->end - r->p) / 2)
            return cf_thrift_fail(r, "%" PRIu64 " map entries claimed, only %zu bytes left", n,
                                  (size_t)(r->end - r->p));
    }
    *count = (uint32_t)n;
    return enter(r);
}

/* Skip one list element or map key/value: bools there are a byte, not a type. */
static cf_status skip_elem(cf_thrift_reader *r, uint8_t type)
{
    if (type == CF_TT_BOOL_TRUE || type == CF_TT_BOOL_FALSE) {
        bool b;
        return read_bool_elem(r, &b);
    }
    return cf_thrift_skip(r, type);
}

cf_status cf_thrift_skip(cf_thrift_reader *r, uint8_t type)
{
    switch (type) {
    case CF_TT_BOOL_TRUE:
    case CF_TT_BOOL_FALSE: return CF_OK; /* the value was in the field header */
    case CF_TT_I8:
    case CF_TT_I16:
    case CF_TT_I32:
    case CF_TT_I64: {
        int64_t v;
        return cf_thrift_read_i64(r, type, &v);
    }
    case CF_TT_DOUBLE: {
        double d;
        return cf_thrift_read_double(r, type, &d);
    }
    case CF_TT_BINARY: {
        cf_slice s;
        return cf_thrift_read_binary(r, type, &s);
    }
    case CF_TT_UUID:
        if (r->end - r->p < 16)
            return cf_thrift_fail(r, "truncated uuid");
        r->p += 16;
        return CF_OK;
    case CF_TT_LIST:
    case CF_TT_SET: {
        uint8_t et;
        uint32_t n;
        CF_TRY(cf_thrift_list_begin(r, type, &et, &n));
        for (uint32_t i = 0; i < n; i++)
            CF_TRY(skip_elem(r, et));
        cf_thrift_list_end(r);
        return CF_OK;
    }
    case CF_TT_MAP: {
        uint8_t kt, vt;
        uint32_t n;
        CF_TRY(cf_thrift_map_begin(r, type, &kt, &vt, &n));
        for (uint32_t i = 0; i < n; i++) {
            CF_TRY(skip_elem(r, kt));
            CF_TRY(skip_elem(r, vt));
        }
        cf_thrift_list_end(r);
        return CF_OK;
    }
    case CF_TT_STRUCT: {
        CF_TRY(cf_thrift_struct_begin(r));
        for (;;) {
            int16_t fid;
            uint8_t t;
            CF_TRY(cf_thrift_field_next(r, &fid, &t));
            if (t == CF_TT_STOP)
                break;
            CF_TRY(cf_thrift_skip(r, t));
        }
        cf_thrift_struct_end(r);
        return CF_OK;
    }
    default: return cf_thrift_fail(r, "cannot skip a value of type %u", type);
    }
}

cf_status cf_thrift_read_bool_elem(cf_thrift_reader *r, bool *out)
{
    return read_bool_elem(r, out);
}

/* ---- writer ---------------------------------------------------------------------- */

void cf_thrift_writer_init(cf_thrift_writer *w, cf_buf *out)
{
    memset(w, 0, sizeof(*w));
    w->out = out;
}

cf_status cf_thrift_writer_status(const cf_thrift_writer *w)
{
    return cf_buf_status(w->out);
}

static uint64_t zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

void cf_thrift_write_struct_begin(cf_thrift_writer *w)
{
    if (w->depth < CF_THRIFT_MAX_DEPTH)
        w->depth++;
    w->last_fid[w->depth] = 0;
}

void cf_thrift_write_struct_end(cf_thrift_writer *w)
{
    cf_buf_put_u8(w->out, CF_TT_STOP);
    if (w->depth > 0)
        w->depth--;
}

void cf_thrift_write_field(cf_thrift_writer *w, int16_t fid, uint8_t type)
{
    int32_t delta = (int32_t)fid - w->last_fid[w->depth];
    if (delta > 0 && delta <= 15) {
        cf_buf_put_u8(w->out, (uint8_t)(delta << 4 | type));
    } else {
        cf_buf_put_u8(w->out, type);
        cf_buf_put_varint64(w->out, zigzag(fid));
    }
    w->last_fid[w->depth] = fid;
}

void cf_thrift_write_field_bool(cf_thrift_writer *w, int16_t fid, bool v)
{
    cf_thrift_write_field(w, fid, v ? CF_TT_BOOL_TRUE : CF_TT_BOOL_FALSE);
}

void cf_thrift_write_field_i32(cf_thrift_writer *w, int16_t fid, int32_t v)
{
    cf_thrift_write_field(w, fid, CF_TT_I32);
    cf_thrift_write_i32(w, v);
}

void cf_thrift_write_field_i64(cf_thrift_writer *w, int16_t fid, int64_t v)
{
    cf_thrift_write_field(w, fid, CF_TT_I64);
    cf_thrift_write_i64(w, v);
}

void cf_thrift_write_field_binary(cf_thrift_writer *w, int16_t fid, const void *p, size_t len)
{
    cf_thrift_write_field(w, fid, CF_TT_BINARY);
    cf_thrift_write_binary(w, p, len);
}

void cf_thrift_write_bool(cf_thrift_writer *w, bool v)
{
    cf_buf_put_u8(w->out, v ? CF_TT_BOOL_TRUE : CF_TT_BOOL_FALSE);
}

void cf_thrift_write_i8(cf_thrift_writer *w, int8_t v)
{
    cf_buf_put_u8(w->out, (uint8_t)v);
}
void cf_thrift_write_i32(cf_thrift_writer *w, int32_t v)
{
    cf_buf_put_varint64(w->out, zigzag(v));
}
void cf_thrift_write_i64(cf_thrift_writer *w, int64_t v)
{
    cf_buf_put_varint64(w->out, zigzag(v));
}

void cf_thrift_write_double(cf_thrift_writer *w, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    cf_buf_put_le64(w->out, bits);
}

void cf_thrift_write_binary(cf_thrift_writer *w, const void *p, size_t len)
{
    cf_buf_put_varint64(w->out, len);
    cf_buf_append(w->out, p, len);
}

void cf_thrift_write_list_begin(cf_thrift_writer *w, uint8_t elem_type, uint32_t count)
{
    if (count < 15) {
        cf_buf_put_u8(w->out, (uint8_t)(count << 4 | elem_type));
    } else {
        cf_buf_put_u8(w->out, (uint8_t)(0xf0 | elem_type));
        cf_buf_put_varint32(w->out, count);
    }
}

void cf_thrift_write_map_begin(cf_thrift_writer *w, uint8_t key_type, uint8_t value_type,
                               uint32_t count)
{
    cf_buf_put_varint32(w->out, count);
    if (count)
        cf_buf_put_u8(w->out, (uint8_t)(key_type << 4 | value_type));
}

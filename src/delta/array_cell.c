/* Array cells of RowChangeLists (format §12.3, SPEC-NOTES D.2): a FlatBuffers `Content` table
 * written and read without a FlatBuffers library, for this one schema only.
 *
 *   Content      { data_type: u8 (field 0), data: offset (field 1), validity: [u8] (field 2) }
 *   <T>Array     { values: [T] (field 0) }        T = the element's vector type
 *   StringArray  { values: [string] }
 *   BinaryArray  { values: [UInt8Array] }          one table per element
 *
 * FlatBuffers builds back to front: every object is prepended, offsets point
 * forward (to higher addresses), and alignment is relative to the END of the
 * buffer, which the final root offset pads to the largest alignment used. The
 * writer below replays the builder's steps in the order Kudu's serializer makes
 * them (validity first, then the values, the inner table, Content, root), so the
 * bytes match, padding and shared vtables included.
 */
#include <string.h>

#include <cfile/delta.h>

#include "util/alloc.h"
#include "util/error.h"

/* The union's tags, in array1d.fbs declaration order (0 = NONE). */
enum {
    U_INT8 = 1,
    U_UINT8,
    U_INT16,
    U_UINT16,
    U_INT32,
    U_UINT32,
    U_INT64,
    U_UINT64,
    U_FLOAT,
    U_DOUBLE,
    U_STRING,
    U_BINARY
};

/* vtable slots (byte offsets inside a vtable) of the fields we use */
enum { VT_FIELD0 = 4, VT_FIELD1 = 6, VT_FIELD2 = 8 };

#define MAX_ELEMS 65535u

/* Kudu's mapping of element types to vectors (DATE and DECIMAL32 share Int32,
 * UNIXTIME_MICROS and DECIMAL64 share Int64, BOOL is UInt8, VARCHAR is String). */
static int union_tag(cf_type t)
{
    switch (t) {
    case CF_TYPE_INT8: return U_INT8;
    case CF_TYPE_BOOL:
    case CF_TYPE_UINT8: return U_UINT8;
    case CF_TYPE_INT16: return U_INT16;
    case CF_TYPE_UINT16: return U_UINT16;
    case CF_TYPE_INT32:
    case CF_TYPE_DATE:
    case CF_TYPE_DECIMAL32: return U_INT32;
    case CF_TYPE_UINT32: return U_UINT32;
    case CF_TYPE_INT64:
    case CF_TYPE_UNIXTIME_MICROS:
    case CF_TYPE_DECIMAL64: return U_INT64;
    case CF_TYPE_UINT64: return U_UINT64;
    case CF_TYPE_FLOAT: return U_FLOAT;
    case CF_TYPE_DOUBLE: return U_DOUBLE;
    case CF_TYPE_STRING:
    case CF_TYPE_VARCHAR: return U_STRING;
    case CF_TYPE_BINARY: return U_BINARY;
    default: return 0;
    }
}

static bool bit(const uint8_t *bm, size_t i)
{
    return (bm[i >> 3] >> (i & 7)) & 1;
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static void wr32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void wr16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

/* ---- writer ------------------------------------------------------------------------ */

/* A downward buffer: `size` bytes used at the end of [base, base + cap). Positions
 * are "size at the time", as the FlatBuffers builder keeps them. The capacity
 * comes from cf_array_cell_encoded_max, so pushes never check it. */
typedef struct fbb {
    uint8_t *base;
    size_t cap, size;
    size_t minalign;
    uint32_t vtables[4]; /* positions of distinct vtables written, oldest first */
    size_t nvtables;
    /* fields of the table being built: vtable slot and position */
    uint16_t field_slot[3];
    uint32_t field_pos[3];
    size_t nfields;
} fbb;

static uint8_t *at(const fbb *b, size_t pos)
{
    return b->base + b->cap - pos;
}

static void pad(fbb *b, size_t n)
{
    b->size += n;
    memset(at(b, b->size), 0, n);
}

static size_t padding(size_t size, size_t align)
{
    return (~size + 1) & (align - 1);
}

static void track(fbb *b, size_t align)
{
    if (align > b->minalign)
        b->minalign = align;
}

static void align_to(fbb *b, size_t align)
{
    track(b, align);
    pad(b, padding(b->size, align));
}

/* Pad so that `len` more bytes end `align`-aligned (nothing for len 0). */
static void prealign(fbb *b, size_t len, size_t align)
{
    if (len == 0)
        return;
    track(b, align);
    pad(b, padding(b->size + len, align));
}

static void push_bytes(fbb *b, const void *p, size_t n)
{
    b->size += n;
    if (n > 0)
        memcpy(at(b, b->size), p, n);
}

static uint32_t push_u32(fbb *b, uint32_t v)
{
    align_to(b, 4);
    b->size += 4;
    wr32(at(b, b->size), v);
    return (uint32_t)b->size;
}

/* An offset stored here, pointing to the object at position `pos`. */
static uint32_t refer_to(fbb *b, uint32_t pos)
{
    align_to(b, 4);
    return (uint32_t)(b->size - pos + 4);
}

static uint32_t push_offset(fbb *b, uint32_t pos)
{
    return push_u32(b, refer_to(b, pos));
}

/* A vector of n elements of `width` bytes (NULL data = zeros). */
static uint32_t create_vector(fbb *b, const void *data, size_t n, size_t width)
{
    prealign(b, n * width, 4);
    prealign(b, n * width, width);
    if (data != NULL)
        push_bytes(b, data, n * width);
    else
        pad(b, n * width);
    return push_u32(b, (uint32_t)n);
}

static uint32_t create_string(fbb *b, const uint8_t *p, size_t len)
{
    prealign(b, len + 1, 4);
    pad(b, 1); /* the terminator */
    push_bytes(b, p, len);
    return push_u32(b, (uint32_t)len);
}

/* A vector of offsets to the objects at pos[0..n), element 0 first in memory. */
static uint32_t create_offset_vector(fbb *b, const uint32_t *pos, size_t n)
{
    prealign(b, n * 4, 4);
    for (size_t i = n; i > 0; i--)
        push_offset(b, pos[i - 1]);
    return push_u32(b, (uint32_t)n);
}

static size_t start_table(fbb *b)
{
    b->nfields = 0;
    return b->size;
}

static void add_offset(fbb *b, uint16_t slot, uint32_t pos)
{
    if (pos == 0)
        return; /* absent */
    uint32_t at_pos = push_offset(b, pos);
    b->field_slot[b->nfields] = slot;
    b->field_pos[b->nfields++] = at_pos;
}

static void add_u8(fbb *b, uint16_t slot, uint8_t v)
{
    if (v == 0)
        return; /* the default is not stored */
    b->size += 1;
    *at(b, b->size) = v;
    b->field_slot[b->nfields] = slot;
    b->field_pos[b->nfields++] = (uint32_t)b->size;
}

/* Close the table: its soffset, then its vtable right before it unless an
 * identical one was written earlier (then the new one is dropped and the
 * soffset points forward to the old one). */
static uint32_t end_table(fbb *b, size_t start)
{
    uint32_t loc = push_u32(b, 0);
    uint16_t vsize = 4;
    for (size_t i = 0; i < b->nfields; i++)
        if (b->field_slot[i] + 2 > vsize)
            vsize = (uint16_t)(b->field_slot[i] + 2);
    pad(b, vsize);
    uint8_t *vt = at(b, b->size);
    wr16(vt, vsize);
    wr16(vt + 2, (uint16_t)(loc - start));
    for (size_t i = 0; i < b->nfields; i++)
        wr16(vt + b->field_slot[i], (uint16_t)(loc - b->field_pos[i]));
    b->nfields = 0;
    uint32_t use = (uint32_t)b->size;
    for (size_t i = 0; i < b->nvtables; i++) {
        const uint8_t *old = at(b, b->vtables[i]);
        if (rd16(old) == vsize && memcmp(old, vt, vsize) == 0) {
            use = b->vtables[i];
            b->size = loc;
            break;
        }
    }
    if (use == b->size && b->nvtables < sizeof(b->vtables) / sizeof(b->vtables[0]))
        b->vtables[b->nvtables++] = use;
    wr32(at(b, loc), (uint32_t)((int32_t)use - (int32_t)loc));
    return loc;
}

static void finish(fbb *b, uint32_t root)
{
    prealign(b, 4, b->minalign);
    push_offset(b, root);
}

size_t cf_array_cell_encoded_max(const cf_array_cell *cell)
{
    size_t n = cell->count;
    /* Content + its vtable + root + paddings, the validity vector, and per
     * element its value, or for binary types its bytes plus length, terminator
     * or table, slot in the offset vector and padding. */
    size_t max = 96 + (n + 7) / 8 + 8;
    if (cf_type_is_binary(cell->type)) {
        const cf_slice *s = cell->values;
        for (size_t i = 0; i < n; i++)
            max += 32 + (cell->nonnull && !bit(cell->nonnull, i) ? 0 : s[i].len);
    } else {
        max += n * 8 + 16;
    }
    return max;
}

cf_status cf_array_cell_encode(uint8_t *dst, size_t cap, size_t *len, const cf_array_cell *cell,
                               cf_error *err)
{
    int tag = union_tag(cell->type);
    CF_CHECK(tag != 0, err, CF_ENOTSUP, "array cell: %s elements cannot be serialized",
             cf_type_name(cell->type) ? cf_type_name(cell->type) : "unknown");
    size_t n = cell->count;
    CF_CHECK(n <= MAX_ELEMS, err, CF_EINVAL, "array cell: %zu elements (at most %u)", n, MAX_ELEMS);
    CF_CHECK(n == 0 || cell->values != NULL, err, CF_EINVAL, "array cell: no values");
    size_t need = cf_array_cell_encoded_max(cell);
    CF_CHECK(cap >= need, err, CF_EBUFSIZE, "array cell: %zu bytes of room, %zu needed", cap, need);

    /* Kudu stores the validity bitmap only when some element is NULL. */
    const uint8_t *nonnull = cell->nonnull;
    bool any_null = false;
    for (size_t i = 0; nonnull != NULL && i < n && !any_null; i++)
        any_null = !bit(nonnull, i);

    fbb b = {.base = dst, .cap = cap, .minalign = 1};
    uint32_t validity = 0;
    if (any_null) {
        size_t nbytes = (n + 7) / 8;
        prealign(&b, nbytes, 4);
        push_bytes(&b, nonnull, nbytes);
        if (n % 8) /* bits past the last element are zero, not the caller's */
            at(&b, b.size)[n / 8] &= (uint8_t)((1u << (n % 8)) - 1);
        validity = push_u32(&b, (uint32_t)nbytes);
    }

    uint32_t vec;
    if (tag == U_STRING || tag == U_BINARY) {
        const cf_slice *s = cell->values;
        uint32_t *pos = n ? cf_malloc(n * sizeof(*pos)) : NULL;
        CF_CHECK(n == 0 || pos != NULL, err, CF_ENOMEM, "array cell: out of memory");
        for (size_t i = 0; i < n; i++) {
            bool null = any_null && !bit(nonnull, i);
            const uint8_t *p = null ? NULL : s[i].data;
            size_t l = null ? 0 : s[i].len;
            if (tag == U_STRING) {
                pos[i] = create_string(&b, p, l);
            } else {
                uint32_t bytes = create_vector(&b, p, l, 1);
                size_t t = start_table(&b);
                add_offset(&b, VT_FIELD0, bytes);
                pos[i] = end_table(&b, t);
            }
        }
        vec = create_offset_vector(&b, pos, n);
        cf_free(pos);
    } else {
        size_t width = cf_type_size(cell->type);
        vec = create_vector(&b, NULL, n, width);
        /* Copy the values in, zeroing NULL slots (Kudu copies whatever its
         * row held there; zeros are what its own NULL slots hold). */
        uint8_t *dst_vals = at(&b, vec) + 4;
        for (size_t i = 0; i < n; i++) {
            if (any_null && !bit(nonnull, i))
                continue;
            memcpy(dst_vals + i * width, (const uint8_t *)cell->values + i * width, width);
            if (cell->type == CF_TYPE_BOOL)
                dst_vals[i] = dst_vals[i] != 0;
        }
    }
    size_t t = start_table(&b);
    add_offset(&b, VT_FIELD0, vec);
    uint32_t inner = end_table(&b, t);

    t = start_table(&b);
    add_offset(&b, VT_FIELD2, validity);
    add_offset(&b, VT_FIELD1, inner);
    add_u8(&b, VT_FIELD0, (uint8_t)tag);
    uint32_t content = end_table(&b, t);
    finish(&b, content);

    memmove(dst, at(&b, b.size), b.size);
    *len = b.size;
    return CF_OK;
}

/* ---- reader ------------------------------------------------------------------------ */

/* Bounds and alignment checks in the spirit of FlatBuffers' Verifier, with
 * which Kudu checks a cell before reading it. */
typedef struct rd {
    const uint8_t *p;
    size_t len;
    cf_error *err;
} rd;

static bool in(const rd *r, size_t off, size_t n)
{
    return off <= r->len && n <= r->len - off;
}

/* The object an offset field at `off` points to, or 0 on failure. */
static size_t follow(const rd *r, size_t off)
{
    if (!in(r, off, 4) || off % 4)
        return 0;
    uint32_t o = rd32(r->p + off);
    if (o == 0 || o > INT32_MAX || !in(r, off + o, 1))
        return 0;
    return off + o;
}

/* Check the table at `t` and return the position of field `slot` (0 = absent),
 * which must hold `width` bytes aligned to `width`; SIZE_MAX on failure. */
static size_t table_field(const rd *r, size_t t, uint16_t slot, size_t width)
{
    if (!in(r, t, 4) || t % 4)
        return SIZE_MAX;
    int64_t vt = (int64_t)t - (int32_t)rd32(r->p + t);
    if (vt < 0 || !in(r, (size_t)vt, 2) || vt % 2)
        return SIZE_MAX;
    uint16_t vsize = rd16(r->p + vt);
    if (vsize % 2 || vsize < 4 || !in(r, (size_t)vt, vsize))
        return SIZE_MAX;
    if (slot + 2 > vsize)
        return 0;
    uint16_t fo = rd16(r->p + vt + slot);
    if (fo == 0)
        return 0;
    size_t f = t + fo;
    if (!in(r, f, width) || f % width)
        return SIZE_MAX;
    return f;
}

/* Check a vector (or a string, with its terminator) at `v`: *n elements. */
static bool vector_ok(const rd *r, size_t v, size_t width, bool string, uint32_t *n)
{
    if (!in(r, v, 4) || v % 4)
        return false;
    *n = rd32(r->p + v);
    if ((uint64_t)*n * width + (string ? 1 : 0) > r->len - v - 4)
        return false;
    return !string || r->p[v + 4 + *n] == 0;
}

/* The vector that offset field `slot` of table `t` points to, 0 when absent,
 * SIZE_MAX when broken. */
static size_t table_vector(const rd *r, size_t t, uint16_t slot, size_t width, uint32_t *n)
{
    size_t f = table_field(r, t, slot, 4);
    *n = 0;
    if (f == 0 || f == SIZE_MAX)
        return f;
    size_t v = follow(r, f);
    if (v == 0 || !vector_ok(r, v, width, false, n))
        return SIZE_MAX;
    return v;
}

#define BAD(r, what) CF_FAIL((r)->err, CF_ECORRUPT, "array cell: %s", what)

cf_status cf_array_cell_decode(cf_array_cell_view *out, cf_slice bytes, cf_type type, cf_error *err)
{
    memset(out, 0, sizeof(*out));
    out->type = type;
    int tag = union_tag(type);
    CF_CHECK(tag != 0, err, CF_ENOTSUP, "array cell: %s elements cannot be serialized",
             cf_type_name(type) ? cf_type_name(type) : "unknown");
    if (bytes.len == 0)
        return CF_OK; /* Kudu reads 0 bytes as an empty array */
    rd r = {bytes.data, bytes.len, err};
    if (bytes.len >= INT32_MAX)
        BAD(&r, "too big");
    size_t content = follow(&r, 0);
    if (content == 0)
        BAD(&r, "bad root offset");
    size_t f_tag = table_field(&r, content, VT_FIELD0, 1);
    size_t f_data = table_field(&r, content, VT_FIELD1, 4);
    uint32_t nvalid;
    size_t validity = table_vector(&r, content, VT_FIELD2, 1, &nvalid);
    if (f_tag == SIZE_MAX || f_data == SIZE_MAX || validity == SIZE_MAX)
        BAD(&r, "bad Content table");
    int got = f_tag ? r.p[f_tag] : 0;

    uint32_t n = 0;
    if (f_data != 0) {
        /* Data without its tag cannot be interpreted; Kudu's verifier skips
         * it and its reader takes it as no data. We refuse it. */
        if (got != tag)
            BAD(&r, "element vector of another type");
        size_t inner = follow(&r, f_data);
        if (inner == 0)
            BAD(&r, "bad data offset");
        bool binary = tag == U_STRING || tag == U_BINARY;
        size_t width = binary ? 4 : cf_type_size(type);
        size_t v = table_vector(&r, inner, VT_FIELD0, width, &n);
        if (v == SIZE_MAX)
            BAD(&r, "bad values vector");
        if (v != 0)
            out->elems = r.p + v + 4;
        for (uint32_t i = 0; binary && i < n; i++) {
            size_t e = follow(&r, v + 4 + (size_t)i * 4);
            uint32_t elen;
            if (e == 0)
                BAD(&r, "bad element offset");
            if (tag == U_STRING) {
                if (!vector_ok(&r, e, 1, true, &elen))
                    BAD(&r, "bad string element");
            } else if (table_vector(&r, e, VT_FIELD0, 1, &elen) == SIZE_MAX) {
                BAD(&r, "bad binary element");
            }
        }
    }
    out->count = n;
    if (validity != 0 && nvalid != 0) {
        if (nvalid != (n + 7) / 8)
            BAD(&r, "'validity' and 'data' fields not in sync");
        out->validity = r.p + validity + 4;
        for (size_t i = 0; i < n && !out->has_nulls; i++)
            out->has_nulls = !bit(out->validity, i);
    }
    return CF_OK;
}

bool cf_array_cell_is_null(const cf_array_cell_view *v, size_t i)
{
    return v->has_nulls && !bit(v->validity, i);
}

void cf_array_cell_get(const cf_array_cell_view *v, size_t i, void *out)
{
    if (!cf_type_is_binary(v->type)) {
        size_t width = cf_type_size(v->type);
        memcpy(out, v->elems + i * width, width);
        if (v->type == CF_TYPE_BOOL)
            *(uint8_t *)out = *(uint8_t *)out != 0;
        return;
    }
    /* Checked by decode: every offset and length below is in bounds. */
    const uint8_t *slot = v->elems + i * 4;
    const uint8_t *e = slot + rd32(slot);
    cf_slice s = {NULL, 0};
    if (v->type == CF_TYPE_BINARY) {
        const uint8_t *vt = e - (int32_t)rd32(e);
        uint16_t fo = rd16(vt) >= VT_FIELD0 + 2 ? rd16(vt + VT_FIELD0) : 0;
        if (fo != 0) {
            const uint8_t *f = e + fo;
            e = f + rd32(f);
        } else {
            e = NULL;
        }
    }
    if (e != NULL)
        s = (cf_slice){e + 4, rd32(e)};
    memcpy(out, &s, sizeof(s));
}

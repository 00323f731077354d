/* A column builder for record batches (record.h): rows arrive as cf_batch pieces
 * (CFile iterators, table scanners) or one value at a time (HFile cells) and
 * leave as one ArrowArray in the layouts of src/cfile/arrow.c:
 *   primitive  {validity?, values}   bool {validity?, bits}   decimal32/64 widened to 16 bytes
 *   binary     {validity?, offsets[n+1], bytes}   list {validity?, int32 offsets[n+1]} + child
 * The validity buffer is NULL exactly when the batch has no NULL. */
#include "record.h"

#include <inttypes.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/utf8.h"

/* Bytes per value in Arrow form (0 for bits and binary). */
static size_t width_of(const cf_arrow_col *c)
{
    if (c->binary || c->type == CF_TYPE_BOOL)
        return 0;
    if (!c->o.native_decimal_widths &&
        (c->type == CF_TYPE_DECIMAL32 || c->type == CF_TYPE_DECIMAL64))
        return 16;
    return cf_type_size(c->type);
}

static void reset(cf_arrow_col *c)
{
    c->count = 0;
    c->nulls = 0;
    cf_buf_clear(&c->validity);
    cf_buf_clear(&c->values);
    cf_buf_clear(&c->bytes);
    if (c->is_array)
        cf_buf_put_le32(&c->values, 0);
    else if (c->binary) {
        if (c->large)
            cf_buf_put_le64(&c->values, 0);
        else
            cf_buf_put_le32(&c->values, 0);
    }
}

cf_status cf_arrow_col_init(cf_arrow_col *c, const char *name, cf_type type, bool is_array,
                            bool nullable, int precision, int scale, const cf_arrow_options *o,
                            cf_error *err)
{
    memset(c, 0, sizeof *c);
    cf_buf_init(&c->validity);
    cf_buf_init(&c->values);
    cf_buf_init(&c->bytes);
    c->o = *o;
    c->o.name = NULL;
    c->o.timezone = NULL; /* copied below: o's strings need not outlive the stream */
    c->o.lender = NULL;
    c->o.zero_copy = false;
    if (precision > 0) {
        c->o.decimal_precision = precision;
        c->o.decimal_scale = scale;
    }
    c->type = type;
    c->is_array = is_array;
    c->nullable = nullable;
    size_t n = strlen(name);
    c->name = cf_malloc(n + 1);
    char *tz = NULL;
    if (c->name != NULL && o->timezone != NULL) {
        size_t tn = strlen(o->timezone);
        tz = cf_malloc(tn + 1);
        if (tz != NULL)
            memcpy(tz, o->timezone, tn + 1);
    }
    if (c->name == NULL || (o->timezone != NULL && tz == NULL)) {
        cf_free(tz);
        cf_free(c->name);
        c->name = NULL;
        CF_FAIL(err, CF_ENOMEM, "out of memory for an arrow column");
    }
    memcpy(c->name, name, n + 1);
    c->o.timezone = tz;
    cf_status st = cf_arrow_check_options(&c->o, type, err);
    if (st != CF_OK) {
        cf_arrow_col_dispose(c);
        return cf_error_prefix(err, st, "column '%s': ", name);
    }
    if (is_array) {
        c->elem = cf_calloc(1, sizeof *c->elem);
        st = c->elem
                 ? cf_arrow_col_init(c->elem, "item", type, false, true, precision, scale, o, err)
                 : cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__,
                                "out of memory for an arrow column");
        if (st != CF_OK) {
            cf_free(c->elem);
            c->elem = NULL;
            cf_arrow_col_dispose(c);
            return st;
        }
    } else {
        c->binary = cf_type_is_binary(type);
        c->large = c->binary && o->large_binary;
        c->check_utf8 =
            (type == CF_TYPE_STRING || type == CF_TYPE_VARCHAR) && o->utf8 == CF_ARROW_UTF8_CHECK;
    }
    reset(c);
    return cf_buf_status(&c->values);
}

void cf_arrow_col_dispose(cf_arrow_col *c)
{
    if (c->elem != NULL) {
        cf_arrow_col_dispose(c->elem);
        cf_free(c->elem);
        c->elem = NULL;
    }
    cf_buf_dispose(&c->validity);
    cf_buf_dispose(&c->values);
    cf_buf_dispose(&c->bytes);
    cf_free(c->name);
    cf_free((char *)c->o.timezone);
    c->name = NULL;
    c->o.timezone = NULL;
}

cf_status cf_arrow_col_schema(const cf_arrow_col *c, struct ArrowSchema *out, cf_error *err)
{
    int64_t flags = c->nullable ? ARROW_FLAG_NULLABLE : 0;
    if (c->is_array) {
        CF_TRY(cf_arrow_schema_new(out, "+l", c->name, flags, 1, err));
        cf_status st = cf_arrow_col_schema(c->elem, out->children[0], err);
        if (st != CF_OK)
            out->release(out);
        return st;
    }
    char *fmt = NULL;
    CF_TRY(cf_arrow_format(&fmt, c->type, &c->o, c->large, err));
    cf_status st = cf_arrow_schema_new(out, fmt, c->name, flags, 0, err);
    cf_free(fmt);
    return st;
}

/* One validity bit for the next row (only nullable columns keep a bitmap). */
static void put_valid(cf_arrow_col *c, bool present)
{
    if (!present)
        c->nulls++;
    if (!c->nullable)
        return;
    size_t byte = c->count >> 3;
    if (byte >= c->validity.len)
        cf_buf_put_u8(&c->validity, 0);
    if (present && !c->validity.oom)
        c->validity.data[byte] |= (uint8_t)(1u << (c->count & 7));
}

static cf_status put_value(cf_arrow_col *c, const void *v, uint64_t row, cf_error *err)
{
    if (v == NULL && !c->nullable)
        CF_FAIL(err, CF_ECORRUPT,
                "arrow: column '%s' row %" PRIu64 ": NULL in a column that "
                "is not nullable",
                c->name, row);
    put_valid(c, v != NULL);
    if (c->binary) {
        cf_slice s = v ? *(const cf_slice *)v : (cf_slice){NULL, 0};
        if (c->check_utf8 && s.len) {
            size_t at = cf_utf8_invalid_at(s.data, s.len);
            if (at != s.len)
                return cf_arrow_utf8_error(err, c->name, row, at);
        }
        if (s.len)
            cf_buf_append(&c->bytes, s.data, s.len);
        if (c->large)
            cf_buf_put_le64(&c->values, c->bytes.len);
        else {
            CF_CHECK(c->bytes.len <= (size_t)INT32_MAX, err, CF_ENOTSUP,
                     "arrow: column '%s': more than 2 GiB of bytes in one batch; set "
                     "large_binary or fewer batch_rows",
                     c->name);
            cf_buf_put_le32(&c->values, (uint32_t)c->bytes.len);
        }
    } else if (c->type == CF_TYPE_BOOL) {
        size_t byte = c->count >> 3;
        if (byte >= c->values.len)
            cf_buf_put_u8(&c->values, 0);
        if (v != NULL && *(const uint8_t *)v && !c->values.oom)
            c->values.data[byte] |= (uint8_t)(1u << (c->count & 7));
    } else {
        size_t w = width_of(c);
        uint8_t *d = cf_buf_extend(&c->values, w);
        if (d != NULL) {
            if (v == NULL)
                memset(d, 0, w);
            else if (w == 16 && c->type == CF_TYPE_DECIMAL32) {
                int64_t lo = *(const int32_t *)v, hi = lo < 0 ? -1 : 0;
                memcpy(d, &lo, 8);
                memcpy(d + 8, &hi, 8);
            } else if (w == 16 && c->type == CF_TYPE_DECIMAL64) {
                int64_t lo = *(const int64_t *)v, hi = lo < 0 ? -1 : 0;
                memcpy(d, &lo, 8);
                memcpy(d + 8, &hi, 8);
            } else
                memcpy(d, v, w);
        }
    }
    c->count++;
    if (c->values.oom || c->bytes.oom || c->validity.oom)
        CF_FAIL(err, CF_ENOMEM, "out of memory for arrow column '%s'", c->name);
    return CF_OK;
}

cf_status cf_arrow_col_append_one(cf_arrow_col *c, const void *value, uint64_t row, cf_error *err)
{
    return put_value(c, value, row, err);
}

static bool bit(const uint8_t *bm, size_t i)
{
    return bm == NULL || (bm[i >> 3] >> (i & 7)) & 1;
}

cf_status cf_arrow_col_append(cf_arrow_col *c, const cf_batch *b, size_t from, size_t n,
                              uint64_t row0, cf_error *err)
{
    if (!c->is_array) {
        size_t size = cf_type_size(c->type);
        const uint8_t *vals = b->values;
        for (size_t i = from; i < from + n; i++)
            CF_TRY(put_value(c, bit(b->nonnull, i) ? vals + i * size : NULL, row0 + i, err));
        return CF_OK;
    }
    size_t size = cf_type_size(c->type);
    const uint8_t *vals = b->values;
    for (size_t r = from; r < from + n; r++) {
        bool present = bit(b->nonnull, r);
        if (!present && !c->nullable)
            CF_FAIL(err, CF_ECORRUPT,
                    "arrow: column '%s' row %" PRIu64 ": NULL in a column "
                    "that is not nullable",
                    c->name, row0 + r);
        put_valid(c, present);
        uint32_t e0 = b->elem_offsets[r], e1 = b->elem_offsets[r + 1];
        CF_CHECK(e0 <= e1 && e1 <= b->elem_count, err, CF_ECORRUPT,
                 "arrow: column '%s' row %" PRIu64 ": bad element offsets", c->name, row0 + r);
        for (uint32_t e = present ? e0 : e1; e < e1; e++)
            CF_TRY(put_value(c->elem, bit(b->elem_nonnull, e) ? vals + (size_t)e * size : NULL,
                             row0 + r, err));
        CF_CHECK(c->elem->count <= (size_t)INT32_MAX, err, CF_ENOTSUP,
                 "arrow: column '%s': more than 2^31 array elements in one batch; use fewer "
                 "batch_rows",
                 c->name);
        cf_buf_put_le32(&c->values, (uint32_t)c->elem->count);
        c->count++;
        if (c->values.oom || c->validity.oom)
            CF_FAIL(err, CF_ENOMEM, "out of memory for arrow column '%s'", c->name);
    }
    return CF_OK;
}

/* The buffer's bytes, taken from it (at least one byte: Arrow wants data
 * buffers non-NULL even when empty). */
static void *take(cf_buf *b)
{
    void *d = b->data;
    if (d == NULL)
        d = cf_calloc(1, 8);
    b->data = NULL;
    b->len = b->cap = 0;
    return d;
}

cf_status cf_arrow_col_finish(cf_arrow_col *c, struct ArrowArray *out, cf_error *err)
{
    int64_t nbufs = c->binary ? 3 : 2;
    CF_TRY(cf_arrow_array_new(out, (int64_t)c->count, nbufs, c->is_array ? 1 : 0, err));
    out->null_count = (int64_t)c->nulls;
    bool ok = true;
    if (c->nulls > 0) {
        void *v = take(&c->validity);
        ok = v != NULL;
        cf_arrow_array_own(out, 0, v);
    }
    for (int64_t i = 1; i < nbufs && ok; i++) {
        void *d = take(i == 1 ? &c->values : &c->bytes);
        ok = d != NULL;
        cf_arrow_array_own(out, (int)i, d);
    }
    if (!ok) {
        out->release(out);
        reset(c);
        CF_FAIL(err, CF_ENOMEM, "out of memory for arrow column '%s'", c->name);
    }
    cf_status st = CF_OK;
    if (c->is_array)
        st = cf_arrow_col_finish(c->elem, out->children[0], err);
    reset(c);
    if (st == CF_OK)
        st = cf_buf_status(&c->values);
    if (st != CF_OK)
        out->release(out);
    return st;
}

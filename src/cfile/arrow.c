/* Export of iterator batches through the Arrow C Data Interface (include/cfile/arrow.h).
 *
 * Built only on the public API (cf_iter_next_batch) plus src/util. Layouts produced,
 * per the Arrow columnar format:
 *   primitive  buffers = {validity?, values}                  n_buffers 2
 *   bool       buffers = {validity?, bits LSB-first}          n_buffers 2
 *   utf8/bin   buffers = {validity?, offsets[n+1], bytes}     n_buffers 3
 *   list       buffers = {validity?, int32 offsets[n+1]}      n_buffers 2, one child
 * The validity buffer is NULL exactly when null_count == 0 (allowed by the spec).
 *
 * Ownership: each ArrowArray/ArrowSchema has its own private block holding the
 * buffers it allocated and (for lists) its child struct. A child is self-contained,
 * so a consumer may move it out; the parent's release then sees child->release ==
 * NULL and skips it.
 */
#include <cfile/arrow.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/bitmap.h"
#include "util/error.h"
#include "util/utf8.h"
#include "arrow_internal.h"

void cf_arrow_options_init(cf_arrow_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->version = CF_ARROW_OPTIONS_VERSION;
}

const cf_arrow_options *cf_arrow_options_or_default(const cf_arrow_options *o,
                                                    cf_arrow_options *dflt)
{
    if (o != NULL)
        return o;
    cf_arrow_options_init(dflt);
    return dflt;
}

/* ---- options and formats --------------------------------------------------------------- */

static int32_t decimal_max_precision(cf_type t)
{
    switch (t) {
    case CF_TYPE_DECIMAL32: return 9;
    case CF_TYPE_DECIMAL64: return 18;
    default: return 38;
    }
}

static cf_status check_options(const cf_arrow_options *o, cf_type t, cf_error *err)
{
    CF_CHECK(o->version == CF_ARROW_OPTIONS_VERSION, err, CF_EINVAL,
             "arrow options: version %" PRIu32 " is not %d (call cf_arrow_options_init)",
             o->version, CF_ARROW_OPTIONS_VERSION);
    CF_CHECK(o->utf8 == CF_ARROW_UTF8_CHECK || o->utf8 == CF_ARROW_UTF8_BINARY, err, CF_EINVAL,
             "arrow options: utf8 %d is neither CF_ARROW_UTF8_CHECK nor CF_ARROW_UTF8_BINARY",
             o->utf8);
    CF_CHECK(o->decimal_precision >= 0 && o->decimal_precision <= 38, err, CF_EINVAL,
             "arrow options: decimal_precision %" PRId32 " is outside 0..38", o->decimal_precision);
    bool dec = t == CF_TYPE_DECIMAL32 || t == CF_TYPE_DECIMAL64 || t == CF_TYPE_DECIMAL128;
    if (dec) {
        int32_t p = o->decimal_precision ? o->decimal_precision : decimal_max_precision(t);
        if (o->native_decimal_widths)
            CF_CHECK(p <= decimal_max_precision(t), err, CF_EINVAL,
                     "arrow options: decimal_precision %" PRId32 " does not fit %s natively", p,
                     cf_type_name(t));
        CF_CHECK(o->decimal_scale <= p, err, CF_EINVAL,
                 "arrow options: decimal_scale %" PRId32 " exceeds the precision %" PRId32,
                 o->decimal_scale, p);
    }
    return CF_OK;
}

cf_status cf_arrow_check_options(const cf_arrow_options *o, cf_type t, cf_error *err)
{
    return check_options(o, t, err);
}

/* The Arrow format string of one (element) type, in a cf_malloc'd string. */
cf_status cf_arrow_format(char **out, cf_type t, const cf_arrow_options *o, bool large,
                          cf_error *err)
{
    const char *f = NULL;
    char buf[48];
    switch (t) {
    case CF_TYPE_INT8: f = "c"; break;
    case CF_TYPE_UINT8: f = "C"; break;
    case CF_TYPE_INT16: f = "s"; break;
    case CF_TYPE_UINT16: f = "S"; break;
    case CF_TYPE_INT32: f = "i"; break;
    case CF_TYPE_UINT32: f = "I"; break;
    case CF_TYPE_INT64: f = "l"; break;
    case CF_TYPE_UINT64: f = "L"; break;
    case CF_TYPE_FLOAT: f = "f"; break;
    case CF_TYPE_DOUBLE: f = "g"; break;
    case CF_TYPE_BOOL: f = "b"; break;
    case CF_TYPE_STRING:
    case CF_TYPE_VARCHAR:
        if (o->utf8 == CF_ARROW_UTF8_BINARY)
            f = large ? "Z" : "z";
        else
            f = large ? "U" : "u";
        break;
    case CF_TYPE_BINARY: f = large ? "Z" : "z"; break;
    case CF_TYPE_DATE: f = "tdD"; break;
    case CF_TYPE_INT128: f = "d:38,0"; break;
    case CF_TYPE_UNIXTIME_MICROS: {
        const char *tz = o->timezone ? o->timezone : "";
        size_t n = strlen(tz);
        char *s = cf_malloc(n + 5);
        CF_CHECK(s != NULL, err, CF_ENOMEM, "out of memory for an arrow format");
        memcpy(s, "tsu:", 4);
        memcpy(s + 4, tz, n + 1);
        *out = s;
        return CF_OK;
    }
    case CF_TYPE_DECIMAL32:
    case CF_TYPE_DECIMAL64:
    case CF_TYPE_DECIMAL128: {
        int32_t p = o->decimal_precision ? o->decimal_precision : decimal_max_precision(t);
        int bits = !o->native_decimal_widths ? 0
                   : t == CF_TYPE_DECIMAL32  ? 32
                   : t == CF_TYPE_DECIMAL64  ? 64
                                             : 0;
        if (bits)
            snprintf(buf, sizeof buf, "d:%" PRId32 ",%" PRId32 ",%d", p, o->decimal_scale, bits);
        else
            snprintf(buf, sizeof buf, "d:%" PRId32 ",%" PRId32, p, o->decimal_scale);
        f = buf;
        break;
    }
    default: CF_FAIL(err, CF_ENOTSUP, "arrow: no mapping for column type %d", (int)t);
    }
    size_t n = strlen(f);
    char *s = cf_malloc(n + 1);
    CF_CHECK(s != NULL, err, CF_ENOMEM, "out of memory for an arrow format");
    memcpy(s, f, n + 1);
    *out = s;
    return CF_OK;
}

/* ---- schema ---------------------------------------------------------------------------- */

typedef struct schema_priv {
    char *format;
    char *name;
    struct ArrowSchema *child_ptr;
    struct ArrowSchema child;
} schema_priv;

static void release_schema(struct ArrowSchema *s)
{
    if (s == NULL || s->release == NULL)
        return;
    schema_priv *p = s->private_data;
    if (p != NULL) {
        /* A child moved out by the consumer is marked released: skip it. */
        if (p->child.release != NULL)
            p->child.release(&p->child);
        cf_free(p->format);
        cf_free(p->name);
        cf_free(p);
    }
    s->release = NULL;
    s->private_data = NULL;
}

/* One schema node; `fmt` is taken over (freed on failure too). */
static cf_status schema_node(struct ArrowSchema *s, char *fmt, const char *name, int64_t flags,
                             cf_error *err)
{
    memset(s, 0, sizeof *s);
    schema_priv *p = cf_calloc(1, sizeof *p);
    size_t n = strlen(name);
    char *nm = p ? cf_malloc(n + 1) : NULL;
    if (nm == NULL) {
        cf_free(p);
        cf_free(fmt);
        CF_FAIL(err, CF_ENOMEM, "out of memory for an arrow schema");
    }
    memcpy(nm, name, n + 1);
    p->format = fmt;
    p->name = nm;
    s->format = fmt;
    s->name = nm;
    s->flags = flags;
    s->private_data = p;
    s->release = release_schema;
    return CF_OK;
}

static cf_status make_schema(struct ArrowSchema *out, const cf_file_info *fi,
                             const cf_arrow_options *o, bool large, cf_error *err)
{
    memset(out, 0, sizeof *out);
    const char *name = o->name ? o->name : "";
    int64_t flags = fi->nullable ? ARROW_FLAG_NULLABLE : 0;
    char *fmt = NULL;
    CF_TRY(cf_arrow_format(&fmt, fi->type, o, large, err));
    if (!fi->is_array)
        return schema_node(out, fmt, name, flags, err);

    char *lf = cf_malloc(3);
    if (lf == NULL) {
        cf_free(fmt);
        CF_FAIL(err, CF_ENOMEM, "out of memory for an arrow schema");
    }
    memcpy(lf, "+l", 3);
    cf_status st = schema_node(out, lf, name, flags, err);
    if (st != CF_OK) {
        cf_free(fmt);
        return st;
    }
    schema_priv *p = out->private_data;
    /* Elements of a cell may be NULL whether or not cells may be. */
    st = schema_node(&p->child, fmt, "item", ARROW_FLAG_NULLABLE, err);
    if (st != CF_OK) {
        release_schema(out);
        return st;
    }
    p->child_ptr = &p->child;
    out->n_children = 1;
    out->children = &p->child_ptr;
    return CF_OK;
}

cf_status cf_arrow_schema(const cf_reader *r, const cf_arrow_options *opts, struct ArrowSchema *out,
                          cf_error *err)
{
    memset(out, 0, sizeof *out);
    cf_arrow_options dflt;
    opts = cf_arrow_options_or_default(opts, &dflt);
    const cf_file_info *fi = cf_reader_info(r);
    CF_TRY(check_options(opts, fi->type, err));
    return make_schema(out, fi, opts, opts->large_binary, err);
}

cf_status cf_arrow_utf8_error(cf_error *err, const char *column, uint64_t row, size_t at)
{
    char where[200] = "";
    if (column != NULL)
        snprintf(where, sizeof where, "column '%.120s' ", column);
    return cf_error_set(err, CF_ENOTSUP, __FILE__, __LINE__,
                        "arrow: %srow %" PRIu64 " is not valid UTF-8 (byte %zu); arrow utf8 "
                        "cannot hold it: export STRING as binary (utf8 = CF_ARROW_UTF8_BINARY)",
                        where, row, at);
}

/* ---- arrays ---------------------------------------------------------------------------- */

typedef struct array_priv {
    void *owned[3];      /* buffers this array allocated (NULL when borrowed or absent) */
    const void *bufs[3]; /* what `buffers` points to */
    struct ArrowArray *child_ptr;
    struct ArrowArray child;
} array_priv;

static void release_array(struct ArrowArray *a)
{
    if (a == NULL || a->release == NULL)
        return;
    array_priv *p = a->private_data;
    if (p != NULL) {
        if (p->child.release != NULL)
            p->child.release(&p->child);
        for (int i = 0; i < 3; i++)
            cf_free(p->owned[i]);
        cf_free(p);
    }
    a->release = NULL;
    a->private_data = NULL;
}

/* An empty, releasable array node with n_buffers slots. */
static cf_status array_node(struct ArrowArray *a, int64_t length, int64_t n_buffers, cf_error *err)
{
    memset(a, 0, sizeof *a);
    array_priv *p = cf_calloc(1, sizeof *p);
    CF_CHECK(p != NULL, err, CF_ENOMEM, "out of memory for an arrow array");
    a->length = length;
    a->n_buffers = n_buffers;
    a->buffers = p->bufs;
    a->private_data = p;
    a->release = release_array;
    return CF_OK;
}

/* An owned buffer of at least one byte (Arrow wants non-NULL data buffers). */
static void *own(struct ArrowArray *a, int slot, size_t len, cf_error *err)
{
    array_priv *p = a->private_data;
    void *b = cf_malloc(len ? len : 1);
    if (b == NULL) {
        cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__,
                     "out of memory for an arrow buffer of %zu bytes", len);
        return NULL;
    }
    p->owned[slot] = b;
    p->bufs[slot] = b;
    return b;
}

/* Validity from a cfile bitmap: null_count, and a copy only when something is NULL. */
static cf_status put_validity(struct ArrowArray *a, const uint8_t *nonnull, size_t n, cf_error *err)
{
    a->null_count = 0;
    if (nonnull == NULL || n == 0)
        return CF_OK;
    size_t present = cf_bitmap_count(nonnull, 0, n);
    a->null_count = (int64_t)(n - present);
    if (present == n)
        return CF_OK;
    uint8_t *v = own(a, 0, cf_bitmap_bytes(n), err);
    if (v == NULL)
        return CF_ENOMEM;
    memcpy(v, nonnull, cf_bitmap_bytes(n));
    return CF_OK;
}

/* [base, base + len) of the lender's bytes, or false when it lends none. */
static bool lender_range(cf_io *io, uintptr_t *lo, uintptr_t *hi)
{
    if (io == NULL || io->ops == NULL || io->ops->view_at == NULL || io->ops->size == NULL)
        return false;
    uint64_t size = io->ops->size(io);
    if (size == 0 || size > SIZE_MAX)
        return false;
    const uint8_t *base = io->ops->view_at(io, 0, (size_t)size);
    if (base == NULL)
        return false;
    *lo = (uintptr_t)base;
    *hi = (uintptr_t)base + (size_t)size;
    return true;
}

/* Is [p, p + len) inside bytes the lender keeps for its whole life? */
static bool lent(const cf_arrow_options *o, const void *p, size_t len)
{
    uintptr_t lo, hi, a = (uintptr_t)p;
    if (len == 0 || !lender_range(o->lender, &lo, &hi))
        return false;
    return a >= lo && a <= hi && len <= hi - a;
}

/* A leaf array of `n` values of type t in the iterator's memory form.
 * *large tells whether binary offsets came out as int64. */
static cf_status leaf(struct ArrowArray *a, cf_type t, const cf_arrow_options *o,
                      const void *values, const uint8_t *nonnull, size_t n, uint64_t first_ord,
                      const uint32_t *cells, bool *large, cf_error *err)
{
    bool bin = cf_type_is_binary(t);
    CF_TRY(array_node(a, (int64_t)n, bin ? 3 : 2, err));
    array_priv *p = a->private_data;
    cf_status st = put_validity(a, nonnull, n, err);
    if (st != CF_OK)
        goto fail;
    *large = false;

    if (bin) {
        const cf_slice *sl = values;
        size_t total = 0;
        for (size_t i = 0; i < n; i++) {
            if (!cf_add_ok(total, sl[i].len, &total)) {
                st = cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__, "arrow: batch too large");
                goto fail;
            }
        }
        if ((t == CF_TYPE_STRING || t == CF_TYPE_VARCHAR) && o->utf8 == CF_ARROW_UTF8_CHECK) {
            for (size_t i = 0; i < n; i++) {
                size_t at = cf_utf8_invalid_at(sl[i].data, sl[i].len);
                if (at != sl[i].len) {
                    /* Elements of arrays: name the row (cell) holding element i. */
                    size_t row = i;
                    if (cells != NULL)
                        for (row = 0; cells[row + 1] <= i; row++) {
                        }
                    st = cf_arrow_utf8_error(err, NULL, first_ord + row, at);
                    goto fail;
                }
            }
        }
        *large = o->large_binary || total > (size_t)INT32_MAX;
        size_t ow = *large ? 8 : 4, olen;
        if (!cf_mul_ok(n + 1, ow, &olen)) {
            st = cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__, "arrow: batch too large");
            goto fail;
        }
        uint8_t *offs = own(a, 1, olen, err);
        uint8_t *data = offs ? own(a, 2, total, err) : NULL;
        if (data == NULL) {
            st = CF_ENOMEM;
            goto fail;
        }
        size_t pos = 0;
        if (*large) {
            int64_t *o64 = (int64_t *)(void *)offs;
            for (size_t i = 0; i < n; i++) {
                o64[i] = (int64_t)pos;
                if (sl[i].len)
                    memcpy(data + pos, sl[i].data, sl[i].len);
                pos += sl[i].len;
            }
            o64[n] = (int64_t)pos;
        } else {
            int32_t *o32 = (int32_t *)(void *)offs;
            for (size_t i = 0; i < n; i++) {
                o32[i] = (int32_t)pos;
                if (sl[i].len)
                    memcpy(data + pos, sl[i].data, sl[i].len);
                pos += sl[i].len;
            }
            o32[n] = (int32_t)pos;
        }
        return CF_OK;
    }

    if (t == CF_TYPE_BOOL) {
        const uint8_t *b = values;
        uint8_t *bits = own(a, 1, cf_bitmap_bytes(n), err);
        if (bits == NULL) {
            st = CF_ENOMEM;
            goto fail;
        }
        memset(bits, 0, cf_bitmap_bytes(n) ? cf_bitmap_bytes(n) : 1);
        for (size_t i = 0; i < n; i++)
            bits[i >> 3] |= (uint8_t)((b[i] != 0) << (i & 7));
        return CF_OK;
    }

    bool widen = !o->native_decimal_widths && (t == CF_TYPE_DECIMAL32 || t == CF_TYPE_DECIMAL64);
    if (widen) {
        /* decimal128 is a 16-byte little-endian two's complement integer. */
        size_t len;
        if (!cf_mul_ok(n, 16, &len)) {
            st = cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__, "arrow: batch too large");
            goto fail;
        }
        int64_t *w = own(a, 1, len, err);
        if (w == NULL) {
            st = CF_ENOMEM;
            goto fail;
        }
        if (t == CF_TYPE_DECIMAL32) {
            const int32_t *v = values;
            for (size_t i = 0; i < n; i++) {
                w[2 * i] = v[i];
                w[2 * i + 1] = v[i] < 0 ? -1 : 0;
            }
        } else {
            const int64_t *v = values;
            for (size_t i = 0; i < n; i++) {
                w[2 * i] = v[i];
                w[2 * i + 1] = v[i] < 0 ? -1 : 0;
            }
        }
        return CF_OK;
    }

    /* Same layout in cfile memory form and in Arrow: borrow or copy. */
    size_t len;
    if (!cf_mul_ok(n, cf_type_size(t), &len)) {
        st = cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__, "arrow: batch too large");
        goto fail;
    }
    if (lent(o, values, len)) {
        p->bufs[1] = values;
        return CF_OK;
    }
    void *d = own(a, 1, len, err);
    if (d == NULL) {
        st = CF_ENOMEM;
        goto fail;
    }
    if (len)
        memcpy(d, values, len);
    return CF_OK;
fail:
    release_array(a);
    return st;
}

/* A list array over the batch's cells, with the elements as its child. */
static cf_status list_of(struct ArrowArray *a, cf_type t, const cf_arrow_options *o,
                         const cf_batch *b, bool *large, cf_error *err)
{
    CF_CHECK(b->elem_count <= (size_t)INT32_MAX, err, CF_ENOTSUP,
             "arrow: %zu array elements in one batch exceed int32 list offsets", b->elem_count);
    CF_CHECK(b->elem_offsets != NULL, err, CF_ECORRUPT, "arrow: array batch without offsets");
    CF_TRY(array_node(a, (int64_t)b->count, 2, err));
    array_priv *p = a->private_data;
    cf_status st = put_validity(a, b->nonnull, b->count, err);
    if (st != CF_OK)
        goto fail;
    int32_t *offs = own(a, 1, (b->count + 1) * 4, err);
    if (offs == NULL) {
        st = CF_ENOMEM;
        goto fail;
    }
    for (size_t i = 0; i <= b->count; i++)
        offs[i] = (int32_t)b->elem_offsets[i];
    st = leaf(&p->child, t, o, b->values, b->elem_nonnull, b->elem_count, b->first_ord,
              b->elem_offsets, large, err);
    if (st != CF_OK)
        goto fail;
    p->child_ptr = &p->child;
    a->n_children = 1;
    a->children = &p->child_ptr;
    return CF_OK;
fail:
    release_array(a);
    return st;
}

cf_status cf_iter_next_arrow(cf_iter *it, size_t max_rows, const cf_arrow_options *opts,
                             struct ArrowArray *out, struct ArrowSchema *schema, cf_error *err)
{
    const cf_reader *r = cf_iter_reader(it);
    memset(out, 0, sizeof *out);
    if (schema != NULL)
        memset(schema, 0, sizeof *schema);
    cf_arrow_options dflt;
    opts = cf_arrow_options_or_default(opts, &dflt);
    cf_arrow_options with_lender;
    if (opts->zero_copy && opts->lender == NULL) {
        with_lender = *opts;
        with_lender.lender = cf_reader_io(r);
        opts = &with_lender;
    }
    const cf_file_info *fi = cf_reader_info(r);
    /* Options first, so a bad one consumes no rows. */
    CF_TRY(check_options(opts, fi->type, err));
    cf_batch b;
    CF_TRY(cf_iter_next_batch(it, max_rows, &b, err));
    if (b.count == 0)
        return CF_OK; /* end: out stays marked released */
    CF_CHECK(b.count <= (size_t)INT64_MAX, err, CF_EINVAL, "arrow: batch too large");

    bool large = false;
    if (fi->is_array)
        CF_TRY(list_of(out, fi->type, opts, &b, &large, err));
    else
        CF_TRY(leaf(out, fi->type, opts, b.values, b.nonnull, b.count, b.first_ord, NULL, &large,
                    err));
    if (schema != NULL) {
        cf_status st = make_schema(schema, fi, opts, large, err);
        if (st != CF_OK) {
            release_array(out);
            return st;
        }
    }
    return CF_OK;
}

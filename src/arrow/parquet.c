/* A record-batch stream over a Parquet file (cf_arrow_stream_parquet): the
 * nested arrays of cf_parquet_records handed over as Arrow arrays, one struct
 * child per top-level field, lists as "+l", maps as "+m" (entries struct of
 * key, value), structs as "+s".
 *
 * Leaf types (physical + annotation -> Arrow):
 *   BOOLEAN "b" (bytes packed to bits)     INT(8|16|32|64, signed) "c" "s" "i" "l"
 *   INT(.., unsigned) "C" "S" "I" "L"      plain INT32 "i", INT64 "l"
 *   DATE "tdD"    TIME(MILLIS) "ttm", (MICROS) "ttu", (NANOS) "ttn"
 *   TIMESTAMP(unit, utc) "ts<m|u|n>:" + "UTC" when adjusted to UTC
 *   INT96 "tsu:" (microseconds, computed as the JSON dump does)
 *   FLOAT "f"  DOUBLE "g"  FLOAT16 "e" (the 2 stored bytes as they are)
 *   DECIMAL on any physical type, precision <= 38: "d:P,S" (decimal128)
 *   STRING/ENUM/JSON "u" (bytes checked as UTF-8), or "z" with utf8 = BINARY
 *   other BYTE_ARRAY "z"; other FIXED_LEN_BYTE_ARRAY (UUID too) "w:N"
 *   INTERVAL "tin" (months, days, millis -> month_day_nano)
 *   the null type (UNKNOWN) "n"
 * Each batch's buffers are copies: the records reader reuses its own. */
#include "record.h"

#include <cfile/parquet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/int128.h"

typedef struct pq_stream {
    cf_arrow_stream_state st; /* first: stream.c's callbacks reach it */
    cf_parquet_records *rec;
    cf_arrow_options o;
} pq_stream;

static const cf_parquet_logical *lt_of(const cf_parquet_array *a)
{
    return &a->leaf->logical;
}

static bool is_interval(const cf_parquet_array *a)
{
    const cf_parquet_schema_element *e = a->leaf->element;
    return e->has_converted_type && e->converted_type == CF_PARQUET_CT_INTERVAL &&
           e->type == CF_PARQUET_FIXED_LEN_BYTE_ARRAY && e->type_length == 12;
}

static bool is_text(const cf_parquet_array *a)
{
    uint32_t k = lt_of(a)->kind;
    return a->leaf->element->type == CF_PARQUET_BYTE_ARRAY &&
           (k == CF_PARQUET_LT_STRING || k == CF_PARQUET_LT_ENUM || k == CF_PARQUET_LT_JSON);
}

/* The Arrow format of a leaf into buf. */
static cf_status leaf_format(const cf_parquet_array *a, const cf_arrow_options *o, char *buf,
                             size_t cap, cf_error *err)
{
    const cf_parquet_logical *lt = lt_of(a);
    int32_t type = a->leaf->element->type;
    const char *f = NULL;
    if (lt->kind == CF_PARQUET_LT_UNKNOWN) {
        f = "n";
    } else if (lt->kind == CF_PARQUET_LT_DECIMAL &&
               (type == CF_PARQUET_INT32 || type == CF_PARQUET_INT64 ||
                type == CF_PARQUET_BYTE_ARRAY || type == CF_PARQUET_FIXED_LEN_BYTE_ARRAY)) {
        CF_CHECK(lt->precision >= 1 && lt->precision <= 38 && lt->scale >= 0 &&
                     lt->scale <= lt->precision,
                 err, CF_ENOTSUP,
                 "parquet column %.*s: DECIMAL(%" PRId32 ",%" PRId32 ") has no decimal128 form",
                 (int)a->name.len, (const char *)a->name.data, lt->precision, lt->scale);
        snprintf(buf, cap, "d:%" PRId32 ",%" PRId32, lt->precision, lt->scale);
        return CF_OK;
    } else {
        switch (type) {
        case CF_PARQUET_BOOLEAN: f = "b"; break;
        case CF_PARQUET_INT32:
            if (lt->kind == CF_PARQUET_LT_DATE)
                f = "tdD";
            else if (lt->kind == CF_PARQUET_LT_TIME)
                f = "ttm";
            else if (lt->kind == CF_PARQUET_LT_INTEGER && lt->bit_width == 8)
                f = lt->is_signed ? "c" : "C";
            else if (lt->kind == CF_PARQUET_LT_INTEGER && lt->bit_width == 16)
                f = lt->is_signed ? "s" : "S";
            else if (lt->kind == CF_PARQUET_LT_INTEGER && !lt->is_signed)
                f = "I";
            else
                f = "i";
            break;
        case CF_PARQUET_INT64:
            if (lt->kind == CF_PARQUET_LT_TIME) {
                f = lt->unit == CF_PARQUET_NANOS ? "ttn" : "ttu";
            } else if (lt->kind == CF_PARQUET_LT_TIMESTAMP) {
                char u = lt->unit == CF_PARQUET_MILLIS  ? 'm'
                         : lt->unit == CF_PARQUET_NANOS ? 'n'
                                                        : 'u';
                snprintf(buf, cap, "ts%c:%s", u, lt->utc ? "UTC" : "");
                return CF_OK;
            } else if (lt->kind == CF_PARQUET_LT_INTEGER && !lt->is_signed) {
                f = "L";
            } else {
                f = "l";
            }
            break;
        case CF_PARQUET_INT96: f = "tsu:"; break;
        case CF_PARQUET_FLOAT: f = "f"; break;
        case CF_PARQUET_DOUBLE: f = "g"; break;
        case CF_PARQUET_BYTE_ARRAY:
            f = is_text(a) && o->utf8 == CF_ARROW_UTF8_CHECK ? "u" : "z";
            break;
        case CF_PARQUET_FIXED_LEN_BYTE_ARRAY:
            if (lt->kind == CF_PARQUET_LT_FLOAT16 && a->value_size == 2)
                f = "e";
            else if (is_interval(a))
                f = "tin";
            else {
                snprintf(buf, cap, "w:%zu", a->value_size);
                return CF_OK;
            }
            break;
        default: break;
        }
    }
    CF_CHECK(f, err, CF_ENOTSUP, "parquet column %.*s: no Arrow type", (int)a->name.len,
             (const char *)a->name.data);
    snprintf(buf, cap, "%s", f);
    return CF_OK;
}

static cf_status schema_of(const cf_parquet_array *a, const cf_arrow_options *o,
                           struct ArrowSchema *out, bool nullable, const char *name_override,
                           cf_error *err)
{
    char name[1024];
    if (name_override)
        snprintf(name, sizeof name, "%s", name_override);
    else
        snprintf(name, sizeof name, "%.*s", (int)(a->name.len < 1000 ? a->name.len : 1000),
                 a->name.data ? (const char *)a->name.data : "");
    int64_t flags = nullable ? ARROW_FLAG_NULLABLE : 0;
    switch (a->kind) {
    case CF_PARQUET_ARRAY_PRIMITIVE: {
        char fmt[64];
        CF_TRY(leaf_format(a, o, fmt, sizeof fmt, err));
        return cf_arrow_schema_new(out, fmt, name, flags, 0, err);
    }
    case CF_PARQUET_ARRAY_STRUCT:
        CF_TRY(cf_arrow_schema_new(out, "+s", name, flags, a->child_count, err));
        for (uint32_t k = 0; k < a->child_count; k++) {
            cf_status st = schema_of(a->children[k], o, out->children[k], true, NULL, err);
            if (st != CF_OK) {
                out->release(out);
                return st;
            }
        }
        return CF_OK;
    case CF_PARQUET_ARRAY_LIST: {
        CF_TRY(cf_arrow_schema_new(out, "+l", name, flags, 1, err));
        cf_status st = schema_of(a->children[0], o, out->children[0], true, NULL, err);
        if (st != CF_OK)
            out->release(out);
        return st;
    }
    case CF_PARQUET_ARRAY_MAP: {
        const cf_parquet_array *kv = a->children[0];
        CF_TRY(cf_arrow_schema_new(out, "+m", name, flags, 1, err));
        struct ArrowSchema *e = out->children[0];
        cf_status st = cf_arrow_schema_new(e, "+s", "entries", 0, kv->child_count, err);
        for (uint32_t k = 0; k < kv->child_count && st == CF_OK; k++)
            st = schema_of(kv->children[k], o, e->children[k], k != 0, k == 0 ? "key" : "value",
                           err);
        if (st != CF_OK)
            out->release(out);
        return st;
    }
    default: CF_FAIL(err, CF_ENOTSUP, "parquet: unknown array kind %" PRIu32, a->kind);
    }
}

static void *copy_of(const void *p, size_t n)
{
    void *q = cf_malloc(n ? n : 1);
    if (q && n)
        memcpy(q, p, n);
    return q;
}

/* The validity buffer (or none) into slot 0. */
static cf_status put_validity(struct ArrowArray *out, const cf_parquet_array *a, cf_error *err)
{
    out->null_count = (int64_t)a->null_count;
    if (!a->validity)
        return CF_OK;
    void *v = copy_of(a->validity, a->length / 8 + 1);
    CF_CHECK(v, err, CF_ENOMEM, "arrow: out of memory");
    cf_arrow_array_own(out, 0, v);
    return CF_OK;
}

static cf_status leaf_array(const cf_parquet_array *a, const char *fmt, const cf_arrow_options *o,
                            struct ArrowArray *out, cf_error *err)
{
    size_t n = a->length;
    if (fmt[0] == 'n') {
        CF_TRY(cf_arrow_array_new(out, (int64_t)n, 0, 0, err));
        out->null_count = (int64_t)n;
        return CF_OK;
    }
    bool bin = fmt[0] == 'u' || fmt[0] == 'z';
    CF_TRY(cf_arrow_array_new(out, (int64_t)n, bin ? 3 : 2, 0, err));
    cf_status st = put_validity(out, a, err);
    if (st != CF_OK)
        return st;
    const uint8_t *v = a->values;
    size_t vs = a->value_size;
    void *buf = NULL;
    int32_t type = a->leaf->element->type;
    const cf_parquet_logical *lt = lt_of(a);
    if (bin) {
        size_t bytes = n ? (size_t)a->offsets[n] : 0;
        if (fmt[0] == 'u') {
            for (size_t i = 0; i < n; i++) {
                const uint8_t *p = v + a->offsets[i];
                size_t len = (size_t)(a->offsets[i + 1] - a->offsets[i]);
                /* Strict UTF-8 as in the CFile export: the first bad byte names it. */
                size_t k = 0;
                while (k < len) {
                    uint8_t c = p[k];
                    size_t l = c < 0x80             ? 1
                               : (c & 0xe0) == 0xc0 ? 2
                               : (c & 0xf0) == 0xe0 ? 3
                               : (c & 0xf8) == 0xf0 ? 4
                                                    : 0;
                    bool ok = l && k + l <= len;
                    for (size_t j = 1; ok && j < l; j++)
                        ok = (p[k + j] & 0xc0) == 0x80;
                    if (ok && l == 2)
                        ok = c >= 0xc2;
                    if (ok && l == 3) {
                        uint32_t cp = (uint32_t)(c & 0x0f) << 12 |
                                      (uint32_t)(p[k + 1] & 0x3f) << 6 | (p[k + 2] & 0x3f);
                        ok = cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff);
                    }
                    if (ok && l == 4) {
                        uint32_t cp = (uint32_t)(c & 0x07) << 18 |
                                      (uint32_t)(p[k + 1] & 0x3f) << 12 |
                                      (uint32_t)(p[k + 2] & 0x3f) << 6 | (p[k + 3] & 0x3f);
                        ok = cp >= 0x10000 && cp <= 0x10ffff;
                    }
                    CF_CHECK(ok, err, CF_ENOTSUP,
                             "parquet column %.*s: value %zu of the batch is not valid UTF-8 "
                             "(byte %zu); export it as binary (utf8 = CF_ARROW_UTF8_BINARY)",
                             (int)a->name.len, (const char *)a->name.data, i, k);
                    k += l;
                }
            }
        }
        void *off = copy_of(a->offsets, (n + 1) * sizeof(int32_t));
        void *data = copy_of(v, bytes);
        if (!off || !data) {
            cf_free(off);
            cf_free(data);
            CF_FAIL(err, CF_ENOMEM, "arrow: out of memory");
        }
        cf_arrow_array_own(out, 1, off);
        cf_arrow_array_own(out, 2, data);
        return CF_OK;
    }
    if (fmt[0] == 'b') {
        buf = cf_calloc(n / 8 + 1, 1);
        CF_CHECK(buf, err, CF_ENOMEM, "arrow: out of memory");
        for (size_t i = 0; i < n; i++)
            if (v[i])
                ((uint8_t *)buf)[i >> 3] |= (uint8_t)(1u << (i & 7));
    } else if (fmt[0] == 'd') {
        buf = cf_calloc(n ? n : 1, 16);
        CF_CHECK(buf, err, CF_ENOMEM, "arrow: out of memory");
        for (size_t i = 0; i < n; i++) {
            cf_i128 x = 0;
            if (type == CF_PARQUET_INT32) {
                int32_t y;
                memcpy(&y, v + i * 4, 4);
                x = y;
            } else if (type == CF_PARQUET_INT64) {
                int64_t y;
                memcpy(&y, v + i * 8, 8);
                x = y;
            } else {
                const uint8_t *p = vs ? v + i * vs : v + a->offsets[i];
                size_t len = vs ? vs : (size_t)(a->offsets[i + 1] - a->offsets[i]);
                /* Big-endian two's complement; precision <= 38 fits 16 bytes
                 * once leading sign bytes go. */
                size_t skip = 0;
                while (len - skip > 16 && (p[skip] == 0x00 || p[skip] == 0xff))
                    skip++;
                if (len - skip > 16) {
                    cf_free(buf);
                    CF_FAIL(err, CF_ECORRUPT,
                            "parquet column %.*s: a DECIMAL value of %zu bytes exceeds "
                            "decimal128",
                            (int)a->name.len, (const char *)a->name.data, len);
                }
                cf_u128 u = (len > skip && (p[skip] & 0x80)) ? ~(cf_u128)0 : 0;
                for (size_t k = skip; k < len; k++)
                    u = (u << 8) | p[k];
                x = (cf_i128)u;
            }
            memcpy((uint8_t *)buf + i * 16, &x, 16);
        }
    } else if (type == CF_PARQUET_INT96) {
        buf = cf_calloc(n ? n : 1, 8);
        CF_CHECK(buf, err, CF_ENOMEM, "arrow: out of memory");
        for (size_t i = 0; i < n; i++) {
            int64_t nanos;
            uint32_t jd;
            memcpy(&nanos, v + i * 12, 8);
            memcpy(&jd, v + i * 12 + 8, 4);
            uint64_t days = (uint64_t)jd - 2440588u;
            int64_t us = (int64_t)(days * UINT64_C(86400000000) + (uint64_t)(nanos / 1000));
            memcpy((uint8_t *)buf + i * 8, &us, 8);
        }
    } else if (fmt[0] == 't' && fmt[1] == 'i') {
        buf = cf_calloc(n ? n : 1, 16);
        CF_CHECK(buf, err, CF_ENOMEM, "arrow: out of memory");
        for (size_t i = 0; i < n; i++) {
            uint32_t m, d, ms;
            memcpy(&m, v + i * 12, 4);
            memcpy(&d, v + i * 12 + 4, 4);
            memcpy(&ms, v + i * 12 + 8, 4);
            int32_t mm = (int32_t)m, dd = (int32_t)d;
            int64_t ns = (int64_t)ms * 1000000;
            uint8_t *q = (uint8_t *)buf + i * 16;
            memcpy(q, &mm, 4);
            memcpy(q + 4, &dd, 4);
            memcpy(q + 8, &ns, 8);
        }
    } else if (type == CF_PARQUET_INT32 && (lt->kind == CF_PARQUET_LT_INTEGER) &&
               (lt->bit_width == 8 || lt->bit_width == 16)) {
        size_t w = (size_t)lt->bit_width / 8;
        buf = cf_calloc(n ? n : 1, w);
        CF_CHECK(buf, err, CF_ENOMEM, "arrow: out of memory");
        for (size_t i = 0; i < n; i++) /* little-endian: the low bytes come first */
            memcpy((uint8_t *)buf + i * w, v + i * 4, w);
    } else {
        buf = copy_of(v, n * vs);
        CF_CHECK(buf, err, CF_ENOMEM, "arrow: out of memory");
    }
    cf_arrow_array_own(out, 1, buf);
    return CF_OK;
}

static cf_status array_of(const cf_parquet_array *a, const struct ArrowSchema *s,
                          const cf_arrow_options *o, struct ArrowArray *out, cf_error *err)
{
    cf_status st = CF_OK;
    switch (a->kind) {
    case CF_PARQUET_ARRAY_PRIMITIVE: st = leaf_array(a, s->format, o, out, err); break;
    case CF_PARQUET_ARRAY_STRUCT:
        CF_TRY(cf_arrow_array_new(out, (int64_t)a->length, 1, a->child_count, err));
        st = put_validity(out, a, err);
        for (uint32_t k = 0; k < a->child_count && st == CF_OK; k++)
            st = array_of(a->children[k], s->children[k], o, out->children[k], err);
        break;
    case CF_PARQUET_ARRAY_LIST:
    case CF_PARQUET_ARRAY_MAP: {
        CF_TRY(cf_arrow_array_new(out, (int64_t)a->length, 2, 1, err));
        st = put_validity(out, a, err);
        if (st == CF_OK) {
            void *off = copy_of(a->offsets, (a->length + 1) * sizeof(int32_t));
            if (!off)
                st = cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__, "arrow: out of memory");
            else
                cf_arrow_array_own(out, 1, off);
        }
        if (st == CF_OK)
            st = array_of(a->children[0], s->children[0], o, out->children[0], err);
        if (st == CF_OK && a->kind == CF_PARQUET_ARRAY_MAP)
            out->children[0]->null_count = 0; /* entries are never null */
        break;
    }
    default: st = cf_error_set(err, CF_ENOTSUP, __FILE__, __LINE__, "arrow: unknown kind");
    }
    if (st != CF_OK && out->release)
        out->release(out);
    return st;
}

static int get_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    pq_stream *p = s->private_data;
    memset(out, 0, sizeof *out);
    if (p->st.failed)
        return p->st.failed;
    cf_error err = {0};
    const cf_parquet_array *b;
    cf_status st = cf_parquet_records_next(p->rec, &b, &err);
    if (st != CF_OK)
        return cf_arrow_stream_fail(&p->st, st, &err);
    if (!b)
        return 0;
    st = array_of(b, &p->st.schema, &p->o, out, &err);
    if (st != CF_OK)
        return cf_arrow_stream_fail(&p->st, st, &err);
    return 0;
}

static void release(struct ArrowArrayStream *s)
{
    if (s == NULL || s->release == NULL)
        return;
    pq_stream *p = s->private_data;
    cf_parquet_records_free(p->rec);
    if (p->st.schema.release)
        p->st.schema.release(&p->st.schema);
    cf_free(p);
    s->release = NULL;
    s->private_data = NULL;
}

cf_status cf_arrow_stream_parquet(struct ArrowArrayStream *out, const cf_parquet *pq,
                                  const cf_parquet_records_options *ro,
                                  const cf_arrow_options *opts, cf_error *err)
{
    memset(out, 0, sizeof *out);
    cf_arrow_options def;
    if (!opts) {
        cf_arrow_options_init(&def);
        opts = &def;
    }
    CF_CHECK(opts->version == CF_ARROW_OPTIONS_VERSION, err, CF_EINVAL,
             "arrow options: version %" PRIu32 " is not %d (call cf_arrow_options_init)",
             opts->version, CF_ARROW_OPTIONS_VERSION);
    cf_parquet_records_options rdef;
    if (!ro) {
        cf_parquet_records_options_init(&rdef);
        rdef.batch_rows = opts->batch_rows ? opts->batch_rows : CF_ARROW_BATCH_ROWS;
        ro = &rdef;
    }
    pq_stream *p = cf_calloc(1, sizeof *p);
    CF_CHECK(p, err, CF_ENOMEM, "out of memory for an arrow stream");
    p->o = *opts;
    cf_status st = cf_parquet_records_open(&p->rec, pq, ro, err);
    if (st == CF_OK)
        st = schema_of(cf_parquet_records_schema(p->rec), &p->o, &p->st.schema, false, "", err);
    if (st != CF_OK) {
        cf_parquet_records_free(p->rec);
        cf_free(p);
        return st;
    }
    return cf_arrow_stream_publish(out, get_next, release, p);
}

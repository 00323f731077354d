/* Parquet columns as Kudu columns: the type mapping and the value conversion
 * of `cfile convert IN.parquet OUT` (pq_kudu.h). */
#include "pq_kudu.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "values.h"

/* How one value converts. */
enum {
    K_BOOL,      /* BOOLEAN -> BOOL */
    K_INT,       /* INT32/INT64 (annotated or not) -> an integer or DECIMAL of any width */
    K_FLOAT,     /* FLOAT -> FLOAT */
    K_DOUBLE,    /* DOUBLE -> DOUBLE */
    K_FLOAT16,   /* FIXED_LEN_BYTE_ARRAY(2) FLOAT16 -> FLOAT (exact: a half widens) */
    K_TS_MILLIS, /* INT64 TIMESTAMP(MILLIS) -> UNIXTIME_MICROS, x 1000 */
    K_TS_NANOS,  /* INT64 TIMESTAMP(NANOS) -> UNIXTIME_MICROS, / 1000 when exact */
    K_INT96,     /* INT96 (Julian day, nanoseconds) -> UNIXTIME_MICROS when exact */
    K_DEC_BYTES, /* BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY DECIMAL (big-endian) -> DECIMAL* */
    K_BYTES      /* BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY -> STRING or BINARY */
};

static uint32_t ld32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t ld64(const uint8_t *p)
{
    return ld32(p) | (uint64_t)ld32(p + 4) << 32;
}

static void st_le(uint8_t *dst, cf_cli_u128 v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = (uint8_t)(v >> (8 * i));
}

static bool bit(const uint8_t *bm, size_t i)
{
    return bm == NULL || (bm[i >> 3] >> (i & 7)) & 1;
}

static void set_bit(uint8_t *bm, size_t i, bool on)
{
    if (on)
        bm[i >> 3] |= (uint8_t)(1u << (i & 7));
    else
        bm[i >> 3] &= (uint8_t) ~(1u << (i & 7));
}

/* ---- the type mapping -------------------------------------------------------------------- */

static int notsup(cf_cli *c, const char *file, const cf_pq_kcol *k, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int notsup(cf_cli *c, const char *file, const cf_pq_kcol *k, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    cf_cli_fail(c,
                "%s: column '%s': %s: no Kudu column type holds it (leave it out with "
                "--column)",
                file, k->name, msg);
    return CF_EXIT_NOTSUP;
}

static cf_type int_type(int bits, bool is_signed)
{
    switch (bits) {
    case 8: return is_signed ? CF_TYPE_INT8 : CF_TYPE_UINT8;
    case 16: return is_signed ? CF_TYPE_INT16 : CF_TYPE_UINT16;
    case 32: return is_signed ? CF_TYPE_INT32 : CF_TYPE_UINT32;
    default: return is_signed ? CF_TYPE_INT64 : CF_TYPE_UINT64;
    }
}

/* The leaf's Kudu type and conversion into k. */
static int map_leaf(cf_cli *c, const char *file, const cf_parquet_node *leaf, cf_pq_kcol *k)
{
    const cf_parquet_schema_element *e = leaf->element;
    const cf_parquet_logical *lt = &leaf->logical;
    int32_t ptype = e->type;
    uint32_t kind = lt->kind;
    char lbuf[64];
    const char *pname = cf_parquet_type_name(ptype);
    if (kind == CF_PARQUET_LT_UNKNOWN || kind == CF_PARQUET_LT_UNSUPPORTED)
        kind = CF_PARQUET_LT_NONE; /* only nulls / an annotation to ignore, as the spec says */
    if (e->has_converted_type && e->converted_type == CF_PARQUET_CT_INTERVAL)
        return notsup(c, file, k, "INTERVAL");
    if (kind == CF_PARQUET_LT_TIME)
        return notsup(c, file, k, "%s", cf_parquet_logical_str(lt, lbuf, sizeof(lbuf)));
    if (kind == CF_PARQUET_LT_DECIMAL) {
        if (lt->precision < 1 || lt->precision > 38)
            return notsup(c, file, k,
                          "DECIMAL(%" PRId32 ",%" PRId32 ") (Kudu's decimals have "
                          "1 to 38 digits)",
                          lt->precision, lt->scale);
        if (lt->scale < 0 || lt->scale > lt->precision)
            return notsup(c, file, k,
                          "DECIMAL(%" PRId32 ",%" PRId32 ") (a scale outside 0..%" PRId32 ")",
                          lt->precision, lt->scale, lt->precision);
        /* Kudu picks a decimal's width by its precision, whatever the physical type. */
        k->col.type = lt->precision <= 9    ? CF_TYPE_DECIMAL32
                      : lt->precision <= 18 ? CF_TYPE_DECIMAL64
                                            : CF_TYPE_DECIMAL128;
        k->col.precision = lt->precision;
        k->col.scale = lt->scale;
        switch (ptype) {
        case CF_PARQUET_INT32:
        case CF_PARQUET_INT64:
            k->conv = K_INT;
            k->bits = ptype == CF_PARQUET_INT32 ? 32 : 64;
            k->src_signed = true;
            return 0;
        case CF_PARQUET_BYTE_ARRAY:
        case CF_PARQUET_FIXED_LEN_BYTE_ARRAY: k->conv = K_DEC_BYTES; return 0;
        default: return notsup(c, file, k, "DECIMAL on %s", pname ? pname : "?");
        }
    }
    switch (ptype) {
    case CF_PARQUET_BOOLEAN:
        k->col.type = CF_TYPE_BOOL;
        k->conv = K_BOOL;
        return 0;
    case CF_PARQUET_INT32:
    case CF_PARQUET_INT64:
        k->conv = K_INT;
        k->bits = ptype == CF_PARQUET_INT32 ? 32 : 64;
        k->src_signed = true;
        if (kind == CF_PARQUET_LT_INTEGER) {
            if (lt->bit_width != 8 && lt->bit_width != 16 && lt->bit_width != 32 &&
                lt->bit_width != 64)
                return notsup(c, file, k, "INT(%" PRId32 ")", lt->bit_width);
            k->col.type = int_type(lt->bit_width, lt->is_signed);
            k->src_signed = lt->is_signed;
            return 0;
        }
        if (kind == CF_PARQUET_LT_DATE && ptype == CF_PARQUET_INT32) {
            k->col.type = CF_TYPE_DATE;
            return 0;
        }
        if (kind == CF_PARQUET_LT_TIMESTAMP && ptype == CF_PARQUET_INT64) {
            /* isAdjustedToUTC=false (a local date-time) keeps its count: Kudu has
             * no local timestamp, and every engine reads the number as is. */
            k->col.type = CF_TYPE_UNIXTIME_MICROS;
            k->conv = lt->unit == CF_PARQUET_MILLIS  ? K_TS_MILLIS
                      : lt->unit == CF_PARQUET_NANOS ? K_TS_NANOS
                                                     : K_INT;
            return 0;
        }
        if (kind != CF_PARQUET_LT_NONE)
            return notsup(c, file, k, "%s on %s", cf_parquet_logical_str(lt, lbuf, sizeof(lbuf)),
                          pname);
        k->col.type = ptype == CF_PARQUET_INT32 ? CF_TYPE_INT32 : CF_TYPE_INT64;
        return 0;
    case CF_PARQUET_INT96:
        k->col.type = CF_TYPE_UNIXTIME_MICROS;
        k->conv = K_INT96;
        return 0;
    case CF_PARQUET_FLOAT:
        k->col.type = CF_TYPE_FLOAT;
        k->conv = K_FLOAT;
        return 0;
    case CF_PARQUET_DOUBLE:
        k->col.type = CF_TYPE_DOUBLE;
        k->conv = K_DOUBLE;
        return 0;
    case CF_PARQUET_BYTE_ARRAY:
    case CF_PARQUET_FIXED_LEN_BYTE_ARRAY:
        if (kind == CF_PARQUET_LT_FLOAT16) {
            if (ptype != CF_PARQUET_FIXED_LEN_BYTE_ARRAY || e->type_length != 2)
                return notsup(c, file, k, "FLOAT16 on %s", pname);
            k->col.type = CF_TYPE_FLOAT;
            k->conv = K_FLOAT16;
            return 0;
        }
        k->conv = K_BYTES;
        if (ptype == CF_PARQUET_FIXED_LEN_BYTE_ARRAY && kind == CF_PARQUET_LT_NONE)
            k->fixed_len = e->type_length;
        if (ptype == CF_PARQUET_BYTE_ARRAY &&
            (kind == CF_PARQUET_LT_STRING || kind == CF_PARQUET_LT_ENUM ||
             kind == CF_PARQUET_LT_JSON))
            k->col.type = CF_TYPE_STRING;
        else
            k->col.type = CF_TYPE_BINARY; /* bytes (UUID, BSON, geometry WKB) kept as they are */
        return 0;
    default: return notsup(c, file, k, "physical type %" PRId32, ptype);
    }
}

int cf_pq_kudu_map(cf_cli *c, const char *file, const cf_parquet_array *a, uint32_t field,
                   cf_pq_kcol *k)
{
    memset(k, 0, sizeof(*k));
    k->field = field;
    k->name = malloc(a->name.len + 1);
    if (k->name == NULL)
        return cf_cli_fail(c, "out of memory");
    memcpy(k->name, a->name.data, a->name.len);
    k->name[a->name.len] = '\0';
    k->col.name = k->name;
    if (strlen(k->name) != a->name.len)
        return notsup(c, file, k, "a name with a NUL byte");
    k->col.nullable = a->node->repetition == CF_PARQUET_OPTIONAL;
    const cf_parquet_array *leaf = a;
    if (a->kind == CF_PARQUET_ARRAY_LIST) {
        leaf = a->children[0];
        k->col.is_array = true;
        if (leaf->kind != CF_PARQUET_ARRAY_PRIMITIVE)
            return notsup(c, file, k, "a list of %s",
                          leaf->kind == CF_PARQUET_ARRAY_LIST     ? "lists"
                          : leaf->kind == CF_PARQUET_ARRAY_STRUCT ? "structs"
                                                                  : "maps");
    } else if (a->kind == CF_PARQUET_ARRAY_STRUCT) {
        return notsup(c, file, k, "a struct (group)");
    } else if (a->kind == CF_PARQUET_ARRAY_MAP) {
        return notsup(c, file, k, "a map");
    }
    return map_leaf(c, file, leaf->leaf, k);
}

/* ---- Kudu types recorded in the footer ----------------------------------------------------- */

char *cf_pq_kudu_types_value(const cf_parquet_write_column *cols, const int *lengths, size_t n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return NULL;
    cf_jw w;
    cf_jw_init(&w, f);
    cf_jw_obj_begin(&w);
    size_t any = 0;
    for (size_t i = 0; i < n; i++) {
        char t[32];
        if (cols[i].type == CF_TYPE_VARCHAR && !cols[i].binary) {
            if (lengths != NULL && lengths[i] > 0)
                snprintf(t, sizeof(t), "VARCHAR(%d)", lengths[i]);
            else
                snprintf(t, sizeof(t), "VARCHAR");
        } else if (cols[i].type == CF_TYPE_INT128) {
            snprintf(t, sizeof(t), "INT128");
        } else {
            continue;
        }
        cf_jw_kv_cstr(&w, cols[i].name, t);
        any++;
    }
    cf_jw_obj_end(&w);
    if (fclose(f) != 0 || any == 0) {
        free(text);
        return NULL;
    }
    return text;
}

void cf_pq_kudu_apply_types(const cf_parquet_file_meta *meta, cf_pq_kcol *k, size_t n)
{
    const cf_parquet_kv *kv = NULL;
    for (uint32_t i = 0; i < meta->kv_count; i++) {
        const cf_parquet_kv *e = &meta->kv[i];
        if (e->has_value && e->key.len == strlen(CF_PQ_KUDU_TYPES_KEY) &&
            memcmp(e->key.data, CF_PQ_KUDU_TYPES_KEY, e->key.len) == 0)
            kv = e;
    }
    if (kv == NULL)
        return;
    cf_json_doc doc;
    char msg[128];
    if (cf_json_parse(&doc, (const char *)kv->value.data, kv->value.len, msg, sizeof(msg)) != 0 ||
        doc.root.kind != CF_JSON_OBJECT) {
        cf_json_doc_dispose(&doc);
        return;
    }
    for (size_t m = 0; m < doc.root.n; m++) {
        const cf_json_member *jm = &doc.root.members[m];
        if (jm->value.kind != CF_JSON_STRING)
            continue;
        const char *t = jm->value.str;
        for (size_t i = 0; i < n; i++) {
            if (strlen(k[i].name) != jm->key_len || memcmp(k[i].name, jm->key, jm->key_len) != 0)
                continue;
            int len = 0, used = 0;
            if (k[i].conv == K_BYTES && k[i].col.type == CF_TYPE_STRING &&
                (strcmp(t, "VARCHAR") == 0 ||
                 (sscanf(t, "VARCHAR(%d)%n", &len, &used) == 1 && t[used] == '\0' && len > 0))) {
                k[i].col.type = CF_TYPE_VARCHAR;
                k[i].col.length = len;
            } else if (k[i].conv == K_BYTES && k[i].fixed_len == 16 && strcmp(t, "INT128") == 0) {
                k[i].col.type = CF_TYPE_INT128;
                k[i].conv = K_DEC_BYTES; /* big-endian two's complement, as decimals */
            }
        }
    }
    cf_json_doc_dispose(&doc);
}

/* ---- values ----------------------------------------------------------------------------- */

static void put_i128(char *buf, size_t cap, cf_cli_i128 v)
{
    char tmp[48];
    size_t n = 0;
    cf_cli_u128 u = v < 0 ? -(cf_cli_u128)v : (cf_cli_u128)v;
    do {
        tmp[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    size_t o = 0;
    if (v < 0 && o + 1 < cap)
        buf[o++] = '-';
    while (n && o + 1 < cap)
        buf[o++] = tmp[--n];
    buf[o] = '\0';
}

/* Is v inside the Kudu type t (integers and decimals)? */
static bool fits(const cf_pq_kcol *k, cf_cli_i128 v, char *msg, size_t cap)
{
    cf_cli_i128 lo, hi;
    switch (k->col.type) {
    case CF_TYPE_INT128: return true; /* 16 bytes at most, checked by the caller */
    case CF_TYPE_INT8: lo = INT8_MIN, hi = INT8_MAX; break;
    case CF_TYPE_INT16: lo = INT16_MIN, hi = INT16_MAX; break;
    case CF_TYPE_INT32:
    case CF_TYPE_DATE: lo = INT32_MIN, hi = INT32_MAX; break;
    case CF_TYPE_UINT8: lo = 0, hi = UINT8_MAX; break;
    case CF_TYPE_UINT16: lo = 0, hi = UINT16_MAX; break;
    case CF_TYPE_UINT32: lo = 0, hi = UINT32_MAX; break;
    case CF_TYPE_UINT64: lo = 0, hi = UINT64_MAX; break;
    case CF_TYPE_DECIMAL32:
    case CF_TYPE_DECIMAL64:
    case CF_TYPE_DECIMAL128: {
        /* A value of more digits than the precision would be a value the
         * Kudu column's type does not allow. */
        cf_cli_i128 p10 = 1;
        for (int i = 0; i < k->col.precision; i++)
            p10 *= 10;
        lo = -p10 + 1, hi = p10 - 1;
        break;
    }
    default: lo = INT64_MIN, hi = INT64_MAX; break;
    }
    if (v >= lo && v <= hi)
        return true;
    char num[48];
    put_i128(num, sizeof(num), v);
    if (k->col.type >= CF_TYPE_DECIMAL32 && k->col.type <= CF_TYPE_DECIMAL128)
        snprintf(msg, cap, "unscaled value %s has more than the %d digits of DECIMAL(%d,%d)", num,
                 k->col.precision, k->col.precision, k->col.scale);
    else
        snprintf(msg, cap, "value %s does not fit %s", num, cf_cli_type_name(k->col.type));
    return false;
}

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | man << 13; /* infinity, NaN (payload kept) */
    } else if (exp != 0) {
        bits = sign | (exp + 112) << 23 | man << 13;
    } else if (man == 0) {
        bits = sign;
    } else { /* subnormal half: a normal float */
        int e = -1;
        do {
            e++;
            man <<= 1;
        } while (!(man & 0x400));
        bits = sign | (uint32_t)(112 - e) << 23 | (man & 0x3ff) << 13;
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* Slot i of primitive array p into dst (cf_type_size(k->col.type) bytes);
 * -1 with msg when the value cannot be carried exactly. */
static int conv_value(const cf_pq_kcol *k, const cf_parquet_array *p, size_t i, uint8_t *dst,
                      char *msg, size_t cap)
{
    size_t w = cf_type_size(k->col.type);
    const uint8_t *v = p->values + i * p->value_size;
    switch (k->conv) {
    case K_BOOL: dst[0] = v[0] != 0; return 0;
    case K_FLOAT: memcpy(dst, v, 4); return 0;
    case K_DOUBLE: memcpy(dst, v, 8); return 0;
    case K_FLOAT16: {
        float f = half_to_float((uint16_t)(v[0] | v[1] << 8));
        memcpy(dst, &f, 4);
        return 0;
    }
    case K_INT:
    case K_TS_MILLIS:
    case K_TS_NANOS: {
        cf_cli_i128 x;
        if (k->bits == 32)
            x = k->src_signed ? (cf_cli_i128)(int32_t)ld32(v) : (cf_cli_i128)ld32(v);
        else
            x = k->src_signed ? (cf_cli_i128)(int64_t)ld64(v) : (cf_cli_i128)ld64(v);
        /* INT(8|16, ...) annotations on INT32: the bits above the width must
         * be the sign (or zero) extension, else the value does not fit. */
        if (k->conv == K_TS_MILLIS) {
            x *= 1000;
        } else if (k->conv == K_TS_NANOS) {
            if (x % 1000 != 0) {
                snprintf(msg, cap,
                         "TIMESTAMP(NANOS) %" PRId64 " has digits below a "
                         "microsecond (UNIXTIME_MICROS would lose them)",
                         (int64_t)x);
                return -1;
            }
            x /= 1000;
        }
        if (!fits(k, x, msg, cap))
            return -1;
        st_le(dst, (cf_cli_u128)x, w);
        return 0;
    }
    case K_INT96: {
        int64_t nanos = (int64_t)ld64(v);
        cf_cli_i128 days = (cf_cli_i128)ld32(v + 8) - 2440588;
        if (nanos % 1000 != 0) {
            snprintf(msg, cap,
                     "INT96 timestamp has digits below a microsecond "
                     "(%" PRId64 " ns into the day; UNIXTIME_MICROS would lose them)",
                     nanos);
            return -1;
        }
        cf_cli_i128 us = days * 86400000000 + nanos / 1000;
        if (!fits(k, us, msg, cap))
            return -1;
        st_le(dst, (cf_cli_u128)us, 8);
        return 0;
    }
    case K_DEC_BYTES: {
        const uint8_t *b = v;
        size_t n = p->value_size;
        if (n == 0) {
            b = p->values + p->offsets[i];
            n = (size_t)(p->offsets[i + 1] - p->offsets[i]);
        }
        /* Big-endian two's complement; bytes beyond 16 must only extend the sign. */
        cf_cli_i128 x = n > 0 && (b[0] & 0x80) ? -1 : 0;
        for (size_t j = 0; j < n; j++) {
            if (j + 16 < n) {
                if (b[j] != ((b[n - 16] & 0x80) ? 0xff : 0)) {
                    snprintf(msg, cap, "a DECIMAL of %zu bytes wider than 128 bits", n);
                    return -1;
                }
                continue;
            }
            x = (cf_cli_i128)((cf_cli_u128)x << 8 | b[j]);
        }
        if (!fits(k, x, msg, cap))
            return -1;
        st_le(dst, (cf_cli_u128)x, w);
        return 0;
    }
    case K_BYTES: {
        cf_slice s;
        if (p->value_size == 0)
            s = (cf_slice){p->values + p->offsets[i], (size_t)(p->offsets[i + 1] - p->offsets[i])};
        else
            s = (cf_slice){v, p->value_size};
        memcpy(dst, &s, sizeof(s));
        return 0;
    }
    default: snprintf(msg, cap, "no conversion"); return -1;
    }
}

static int grow(cf_cli *c, void **p, size_t *cap, size_t need, size_t unit)
{
    if (need <= *cap)
        return 0;
    size_t n = need + need / 2 + 64;
    void *q = realloc(*p, n * unit);
    if (q == NULL)
        return cf_cli_fail(c, "out of memory");
    *p = q;
    *cap = n;
    return 0;
}

static int bad_value(cf_cli *c, const char *file, const cf_pq_kcol *k, int64_t row, const char *msg)
{
    return cf_cli_fail(c, "%s: row %" PRId64 ", column '%s': %s", file, row, k->name, msg);
}

int cf_pq_kudu_convert(cf_cli *c, const char *file, cf_pq_kcol *k, const cf_parquet_array *a,
                       int64_t first_row)
{
    size_t n = a->length, w = cf_type_size(k->col.type);
    char msg[300];
    int rc;
    k->rows = n;
    k->elems = 0;
    if ((rc = grow(c, (void **)&k->nn, &k->nn_cap, n + 8, 1)) != 0)
        return rc;
    memset(k->nn, 0, n / 8 + 1);
    for (size_t i = 0; i < n; i++) {
        bool present = bit(a->validity, i);
        if (!present && !k->col.nullable)
            return bad_value(c, file, k, first_row + (int64_t)i,
                             k->is_key ? "NULL in a key column"
                                       : "NULL in a column that is not OPTIONAL");
        set_bit(k->nn, i, present);
    }
    if (!k->col.is_array) {
        if ((rc = grow(c, (void **)&k->vals, &k->vals_cap, n, w)) != 0)
            return rc;
        for (size_t i = 0; i < n; i++) {
            uint8_t *dst = k->vals + i * w;
            if (!bit(a->validity, i)) {
                memset(dst, 0, w); /* NULL rows hold zeros (an empty slice) */
                continue;
            }
            if (conv_value(k, a, i, dst, msg, sizeof(msg)) != 0)
                return bad_value(c, file, k, first_row + (int64_t)i, msg);
        }
        return 0;
    }
    const cf_parquet_array *e = a->children[0];
    if ((rc = grow(c, (void **)&k->counts, &k->counts_cap, n, sizeof(uint32_t))) != 0)
        return rc;
    size_t total = n ? (size_t)(a->offsets[n] - a->offsets[0]) : 0;
    if ((rc = grow(c, (void **)&k->vals, &k->vals_cap, total, w)) != 0 ||
        (rc = grow(c, (void **)&k->enn, &k->enn_cap, total + 8, 1)) != 0)
        return rc;
    memset(k->enn, 0, total / 8 + 1);
    for (size_t i = 0; i < n; i++) {
        k->counts[i] = 0;
        if (!bit(a->validity, i))
            continue;
        size_t from = (size_t)a->offsets[i], to = (size_t)a->offsets[i + 1];
        if (to - from > CF_MAX_ARRAY_ELEMS) {
            snprintf(msg, sizeof(msg), "a list of %zu elements (a Kudu array holds at most %u)",
                     to - from, CF_MAX_ARRAY_ELEMS);
            cf_cli_fail(c, "%s: row %" PRId64 ", column '%s': %s", file, first_row + (int64_t)i,
                        k->name, msg);
            return CF_EXIT_NOTSUP;
        }
        k->counts[i] = (uint32_t)(to - from);
        for (size_t j = from; j < to; j++, k->elems++) {
            uint8_t *dst = k->vals + k->elems * w;
            bool present = bit(e->validity, j);
            set_bit(k->enn, k->elems, present);
            if (!present)
                memset(dst, 0, w);
            else if (conv_value(k, e, j, dst, msg, sizeof(msg)) != 0)
                return bad_value(c, file, k, first_row + (int64_t)i, msg);
        }
    }
    return 0;
}

cf_colvec cf_pq_kudu_colvec(const cf_pq_kcol *k)
{
    return (cf_colvec){k->vals, k->col.nullable ? k->nn : NULL, k->col.is_array ? k->counts : NULL,
                       k->col.is_array ? k->enn : NULL};
}

void cf_pq_kudu_dispose(cf_pq_kcol *k)
{
    free(k->name);
    free(k->vals);
    free(k->nn);
    free(k->enn);
    free(k->counts);
    memset(k, 0, sizeof(*k));
}

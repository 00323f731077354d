/* Parquet sort orders: comparison of values and running min/max (pq_order.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pq_order.h"

/* The order min_value/max_value are written in; CF_PQ_ORD_NONE with *why. */
cf_pq_order cf_pq_stat_order(const cf_parquet_column *col, const char **why)
{
    const cf_parquet_logical *lt = &col->leaf->logical;
    const cf_parquet_schema_element *e = col->leaf->element;
    if (e->has_converted_type && e->converted_type == CF_PARQUET_CT_INTERVAL) {
        *why = "INTERVAL has no defined sort order";
        return CF_PQ_ORD_NONE;
    }
    switch (col->type) {
    case CF_PARQUET_BOOLEAN: return CF_PQ_ORD_BOOL;
    case CF_PARQUET_INT32:
        return lt->kind == CF_PARQUET_LT_INTEGER && !lt->is_signed ? CF_PQ_ORD_U32 : CF_PQ_ORD_I32;
    case CF_PARQUET_INT64:
        return lt->kind == CF_PARQUET_LT_INTEGER && !lt->is_signed ? CF_PQ_ORD_U64 : CF_PQ_ORD_I64;
    case CF_PARQUET_FLOAT: return CF_PQ_ORD_FLOAT;
    case CF_PARQUET_DOUBLE: return CF_PQ_ORD_DOUBLE;
    case CF_PARQUET_INT96: *why = "INT96 has no defined sort order"; return CF_PQ_ORD_NONE;
    case CF_PARQUET_BYTE_ARRAY:
    case CF_PARQUET_FIXED_LEN_BYTE_ARRAY:
        if (lt->kind == CF_PARQUET_LT_DECIMAL)
            return CF_PQ_ORD_DECIMAL;
        if (lt->kind == CF_PARQUET_LT_FLOAT16) {
            *why = "FLOAT16 statistics are not checked";
            return CF_PQ_ORD_NONE;
        }
        return CF_PQ_ORD_BYTES;
    default: *why = "unknown physical type"; return CF_PQ_ORD_NONE;
    }
}

static int64_t ld_i64(const uint8_t *p, size_t n)
{
    uint64_t u = 0;
    for (size_t i = 0; i < n; i++)
        u |= (uint64_t)p[i] << (8 * i);
    if (n == 4)
        return (int32_t)(uint32_t)u;
    return (int64_t)u;
}

static double ld_f(const uint8_t *p, size_t n)
{
    if (n == 4) {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    double d;
    memcpy(&d, p, 8);
    return d;
}

bool cf_pq_is_nan(cf_pq_order o, cf_pq_val a)
{
    return (o == CF_PQ_ORD_FLOAT || o == CF_PQ_ORD_DOUBLE) && isnan(ld_f(a.p, a.n));
}

/* Width a stats value must have in cf_pq_order o (0: any). */
size_t cf_pq_order_width(cf_pq_order o)
{
    switch (o) {
    case CF_PQ_ORD_BOOL: return 1;
    case CF_PQ_ORD_I32:
    case CF_PQ_ORD_U32:
    case CF_PQ_ORD_FLOAT: return 4;
    case CF_PQ_ORD_I64:
    case CF_PQ_ORD_U64:
    case CF_PQ_ORD_DOUBLE: return 8;
    default: return 0;
    }
}

int cf_pq_cmp(cf_pq_order o, cf_pq_val a, cf_pq_val b)
{
    switch (o) {
    case CF_PQ_ORD_BOOL: return (a.p[0] != 0) - (b.p[0] != 0);
    case CF_PQ_ORD_I32:
    case CF_PQ_ORD_I64: {
        int64_t x = ld_i64(a.p, a.n), y = ld_i64(b.p, b.n);
        return (x > y) - (x < y);
    }
    case CF_PQ_ORD_U32:
    case CF_PQ_ORD_U64: {
        uint64_t x = (uint64_t)ld_i64(a.p, a.n), y = (uint64_t)ld_i64(b.p, b.n);
        if (o == CF_PQ_ORD_U32) {
            x &= 0xffffffffu;
            y &= 0xffffffffu;
        }
        return (x > y) - (x < y);
    }
    case CF_PQ_ORD_FLOAT:
    case CF_PQ_ORD_DOUBLE: {
        double x = ld_f(a.p, a.n), y = ld_f(b.p, b.n);
        return (x > y) - (x < y); /* -0 == +0 */
    }
    case CF_PQ_ORD_BYTES: {
        size_t n = a.n < b.n ? a.n : b.n;
        int c = n ? memcmp(a.p, b.p, n) : 0;
        if (c)
            return c < 0 ? -1 : 1;
        return (a.n > b.n) - (a.n < b.n);
    }
    case CF_PQ_ORD_DECIMAL: {
        bool na = a.n && (a.p[0] & 0x80), nb = b.n && (b.p[0] & 0x80);
        if (na != nb)
            return na ? -1 : 1;
        /* Same sign: compare sign-extended to the longer length. */
        size_t n = a.n > b.n ? a.n : b.n;
        uint8_t pad = na ? 0xff : 0x00;
        for (size_t i = 0; i < n; i++) {
            uint8_t x = i < n - a.n ? pad : a.p[i - (n - a.n)];
            uint8_t y = i < n - b.n ? pad : b.p[i - (n - b.n)];
            if (x != y)
                return x < y ? -1 : 1;
        }
        return 0;
    }
    default: return 0;
    }
}

static void keep(uint8_t **buf, size_t *cap, size_t *n, cf_pq_val v)
{
    if (v.n > *cap) {
        uint8_t *b = realloc(*buf, v.n);
        if (!b)
            return;
        *buf = b;
        *cap = v.n;
    }
    if (v.n)
        memcpy(*buf, v.p, v.n);
    *n = v.n;
}

void cf_pq_range_add(cf_pq_range *r, cf_pq_order o, cf_pq_val v)
{
    if (o == CF_PQ_ORD_NONE || cf_pq_is_nan(o, v))
        return;
    if (!r->any || cf_pq_cmp(o, v, (cf_pq_val){r->min, r->min_n}) < 0)
        keep(&r->min, &r->min_cap, &r->min_n, v);
    if (!r->any || cf_pq_cmp(o, v, (cf_pq_val){r->max, r->max_n}) > 0)
        keep(&r->max, &r->max_cap, &r->max_n, v);
    r->any = true;
}

void cf_pq_range_free(cf_pq_range *r)
{
    free(r->min);
    free(r->max);
    memset(r, 0, sizeof(*r));
}

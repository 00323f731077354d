/* Per-block value statistics for `cfile info --blocks` (blockstats.h). Values are
 * compared in their memory forms by the type's physical kind; NaNs take no part in
 * min/max (as Parquet's statistics leave them out). */
#include "blockstats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "values.h"

void cf_cli_bstats_init(cf_cli_bstats *s, cf_type t, bool want_distinct)
{
    memset(s, 0, sizeof(*s));
    s->type = t;
    s->want_distinct = want_distinct;
}

void cf_cli_bstats_dispose(cf_cli_bstats *s)
{
    free(s->min_bytes);
    free(s->max_bytes);
    free(s->hashes);
    memset(s, 0, sizeof(*s));
}

static bool bit(const uint8_t *bm, size_t i)
{
    return (bm[i >> 3] >> (i & 7)) & 1;
}

/* <0, 0, >0 as a is below, equal to, above b; NaN never reaches here. */
static int cmp(cf_type t, const void *a, const void *b)
{
    switch (cf_type_physical(t)) {
    case CF_TYPE_INT8:
        return (*(const int8_t *)a > *(const int8_t *)b) -
               (*(const int8_t *)a < *(const int8_t *)b);
    case CF_TYPE_UINT8:
    case CF_TYPE_BOOL:
        return (*(const uint8_t *)a > *(const uint8_t *)b) -
               (*(const uint8_t *)a < *(const uint8_t *)b);
#define CMPT(T)                                                                                    \
    do {                                                                                           \
        T x, y;                                                                                    \
        memcpy(&x, a, sizeof x);                                                                   \
        memcpy(&y, b, sizeof y);                                                                   \
        return (x > y) - (x < y);                                                                  \
    } while (0)
    case CF_TYPE_INT16: CMPT(int16_t);
    case CF_TYPE_UINT16: CMPT(uint16_t);
    case CF_TYPE_INT32: CMPT(int32_t);
    case CF_TYPE_UINT32: CMPT(uint32_t);
    case CF_TYPE_INT64: CMPT(int64_t);
    case CF_TYPE_UINT64: CMPT(uint64_t);
    case CF_TYPE_FLOAT: CMPT(float);
    case CF_TYPE_DOUBLE: CMPT(double);
    case CF_TYPE_INT128: CMPT(cf_cli_i128);
#undef CMPT
    case CF_TYPE_BINARY: {
        const cf_slice *x = a, *y = b;
        size_t n = x->len < y->len ? x->len : y->len;
        int c = n ? memcmp(x->data, y->data, n) : 0;
        return c != 0 ? c : (x->len > y->len) - (x->len < y->len);
    }
    default: return 0;
    }
}

static bool is_nan(cf_type t, const void *v)
{
    if (t == CF_TYPE_FLOAT) {
        float f;
        memcpy(&f, v, sizeof f);
        return isnan(f);
    }
    if (t == CF_TYPE_DOUBLE) {
        double d;
        memcpy(&d, v, sizeof d);
        return isnan(d);
    }
    return false;
}

/* Keep v as the new min or max: binary values are copied (the batch's views die). */
static void keep(cf_cli_bstats *s, uint8_t slot[16], uint8_t **owned, const void *v)
{
    if (!cf_type_is_binary(s->type)) {
        memcpy(slot, v, cf_type_size(s->type));
        return;
    }
    const cf_slice *in = v;
    uint8_t *copy = malloc(in->len ? in->len : 1);
    if (copy == NULL) {
        s->oom = true;
        return;
    }
    if (in->len)
        memcpy(copy, in->data, in->len);
    free(*owned);
    *owned = copy;
    cf_slice out = {copy, in->len};
    memcpy(slot, &out, sizeof out);
}

static uint64_t hash_value(cf_type t, const void *v)
{
    const uint8_t *p = v;
    size_t n = cf_type_size(t);
    if (cf_type_is_binary(t)) {
        const cf_slice *sl = v;
        p = sl->data;
        n = sl->len;
    }
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a 64, then a final mix */
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

static void add_value(cf_cli_bstats *s, const void *v)
{
    if (s->want_distinct && !s->oom) {
        if (s->nhashes == s->hcap) {
            size_t cap = s->hcap ? s->hcap * 2 : 256;
            uint64_t *h = realloc(s->hashes, cap * sizeof(*h));
            if (h == NULL) {
                s->oom = true;
                return;
            }
            s->hashes = h;
            s->hcap = cap;
        }
        s->hashes[s->nhashes++] = hash_value(s->type, v);
    }
    if (is_nan(s->type, v))
        return;
    if (!s->has_minmax) {
        keep(s, s->min, &s->min_bytes, v);
        keep(s, s->max, &s->max_bytes, v);
        s->has_minmax = !s->oom;
        return;
    }
    if (cmp(s->type, v, s->min) < 0)
        keep(s, s->min, &s->min_bytes, v);
    if (cmp(s->type, v, s->max) > 0)
        keep(s, s->max, &s->max_bytes, v);
}

void cf_cli_bstats_add(cf_cli_bstats *s, bool is_array, const cf_batch *b, size_t i)
{
    s->rows++;
    if (b->nonnull != NULL && !bit(b->nonnull, i)) {
        s->nulls++;
        return;
    }
    size_t width = cf_type_size(s->type);
    const uint8_t *vals = b->values;
    if (!is_array) {
        add_value(s, vals + i * width);
        return;
    }
    if (b->elem_offsets == NULL)
        return;
    for (uint32_t e = b->elem_offsets[i]; e < b->elem_offsets[i + 1]; e++)
        if (b->elem_nonnull == NULL || bit(b->elem_nonnull, e))
            add_value(s, vals + (size_t)e * width);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

uint64_t cf_cli_bstats_distinct(cf_cli_bstats *s)
{
    if (s->nhashes == 0)
        return 0;
    qsort(s->hashes, s->nhashes, sizeof(s->hashes[0]), cmp_u64);
    uint64_t n = 1;
    for (size_t i = 1; i < s->nhashes; i++)
        n += s->hashes[i] != s->hashes[i - 1];
    return n;
}

void cf_cli_bstats_write_min(cf_jw *w, const cf_cli_bstats *s)
{
    if (s->has_minmax)
        cf_cli_value_write(w, s->type, s->min);
    else
        cf_jw_null(w);
}

void cf_cli_bstats_write_max(cf_jw *w, const cf_cli_bstats *s)
{
    if (s->has_minmax)
        cf_cli_value_write(w, s->type, s->max);
    else
        cf_jw_null(w);
}

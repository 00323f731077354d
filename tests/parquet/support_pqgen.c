/* cf-needs: parquet */
#include "support_pqgen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"
#include "util/int128.h"

void pqg_setbit(uint8_t *bm, size_t i, bool v)
{
    if (v)
        bm[i >> 3] |= (uint8_t)(1u << (i & 7));
    else
        bm[i >> 3] &= (uint8_t) ~(1u << (i & 7));
}

void pqg_value(pqg_table *t, cf_type ty, uint64_t x, uint8_t *slot)
{
    switch (ty) {
    case CF_TYPE_BOOL: slot[0] = (uint8_t)(x & 1); break;
    case CF_TYPE_INT8:
    case CF_TYPE_UINT8: slot[0] = (uint8_t)(x * 37); break;
    case CF_TYPE_INT16:
    case CF_TYPE_UINT16: {
        uint16_t v = (uint16_t)(x * 40503u);
        memcpy(slot, &v, 2);
        break;
    }
    case CF_TYPE_INT32:
    case CF_TYPE_UINT32: {
        uint32_t v = (uint32_t)(x * 2654435761u);
        memcpy(slot, &v, 4);
        break;
    }
    case CF_TYPE_DECIMAL32: {
        int32_t v = (int32_t)(x % 1999999999) - 999999999;
        memcpy(slot, &v, 4);
        break;
    }
    case CF_TYPE_DATE: {
        int32_t v = (int32_t)(x % 100000) - 50000;
        memcpy(slot, &v, 4);
        break;
    }
    case CF_TYPE_INT64:
    case CF_TYPE_UINT64:
    case CF_TYPE_UNIXTIME_MICROS: {
        uint64_t v = x * 0x9E3779B97F4A7C15ULL;
        memcpy(slot, &v, 8);
        break;
    }
    case CF_TYPE_DECIMAL64: {
        int64_t v = (int64_t)(x % 1999999999999999999ULL) - 999999999999999999LL;
        memcpy(slot, &v, 8);
        break;
    }
    case CF_TYPE_FLOAT: {
        float v = (float)((double)(int64_t)(x % 20001) - 10000.0) / 8.0f;
        if (x % 97 == 5)
            v = -0.0f;
        memcpy(slot, &v, 4);
        break;
    }
    case CF_TYPE_DOUBLE: {
        double v = ((double)(int64_t)(x % 2000001) - 1e6) / 3.0;
        if (x % 89 == 3)
            v = 0.0;
        memcpy(slot, &v, 8);
        break;
    }
    case CF_TYPE_INT128:
    case CF_TYPE_DECIMAL128: {
        cf_i128 v = ((cf_i128)(int64_t)(x * 0x9E3779B97F4A7C15ULL)) * 1000003;
        memcpy(slot, &v, 16);
        break;
    }
    case CF_TYPE_STRING:
    case CF_TYPE_VARCHAR:
    case CF_TYPE_BINARY: {
        char tmp[96];
        int n = snprintf(tmp, sizeof tmp, "v%llu", (unsigned long long)x);
        size_t pad = x % 5 == 0 ? (size_t)(x % 70) : 0; /* some past the 64-byte truncation */
        size_t len = (size_t)n + pad;
        if (x % 211 == 0)
            len = 0;
        cf_slice s;
        s.len = len;
        s.data = (const uint8_t *)(uintptr_t)t->str_len; /* fixed below */
        assert_true(t->str_len + len <= t->str_cap);
        memcpy(t->strings + t->str_len, tmp, len < (size_t)n ? len : (size_t)n);
        for (size_t i = (size_t)n; i < len; i++)
            t->strings[t->str_len + i] = (char)('a' + i % 26);
        if (ty == CF_TYPE_BINARY && len > 0)
            t->strings[t->str_len] = (char)0xff;
        t->str_len += len;
        memcpy(slot, &s, sizeof s);
        break;
    }
    }
}

void pqg_add_col(pqg_table *t, const char *name, cf_type ty, bool nullable, bool array,
                 uint64_t card, bool bloom)
{
    assert_true(t->ncols < PQG_MAX_COLS);
    if (!name) {
        snprintf(t->names[t->ncols], sizeof t->names[0], "c%zu", t->ncols);
        name = t->names[t->ncols];
    }
    pqg_col *g = &t->c[t->ncols++];
    memset(g, 0, sizeof *g);
    g->spec.name = name;
    g->spec.type = ty;
    g->spec.nullable = nullable;
    g->spec.is_array = array;
    g->spec.bloom_filter = bloom;
    g->width = cf_type_size(ty);
    g->card = card;
}

/* The strings' offsets into t->strings become pointers (the buffer no longer moves). */
static void fix_slices(pqg_table *t)
{
    for (size_t c = 0; c < t->ncols; c++) {
        pqg_col *g = &t->c[c];
        if (!cf_type_is_binary(g->spec.type))
            continue;
        size_t n = g->spec.is_array ? g->elems : t->rows;
        for (size_t i = 0; i < n; i++) {
            cf_slice s;
            memcpy(&s, g->values + i * sizeof s, sizeof s);
            s.data = (const uint8_t *)t->strings + (uintptr_t)s.data;
            memcpy(g->values + i * sizeof s, &s, sizeof s);
        }
    }
}

void pqg_gen(pqg_table *t, size_t rows, uint64_t seed)
{
    uint64_t null_in = t->null_one_in ? t->null_one_in : 6;
    uint64_t elem_null_in = t->elem_null_one_in ? t->elem_null_one_in : 5;
    cf_rng rng;
    cf_rng_init(&rng, seed);
    t->rows = rows;
    t->str_cap = rows * 20 * 100 + 1;
    t->strings = malloc(t->str_cap);
    assert_non_null(t->strings);
    t->str_len = 0;
    for (size_t c = 0; c < t->ncols; c++) {
        pqg_col *g = &t->c[c];
        g->nonnull = calloc(rows / 8 + 1, 1);
        size_t cap = g->spec.is_array ? rows * 4 : rows;
        g->values = calloc(cap + 1, g->width);
        if (g->spec.is_array) {
            g->offsets = calloc(rows + 1, sizeof(uint32_t));
            g->elem_nonnull = calloc(cap / 8 + 1, 1);
        }
        for (size_t r = 0; r < rows; r++) {
            bool present = !g->spec.nullable || cf_rng_below(&rng, null_in) != 0;
            pqg_setbit(g->nonnull, r, present);
            if (!g->spec.is_array) {
                if (present)
                    pqg_value(t, g->spec.type, cf_rng_below(&rng, g->card),
                              g->values + r * g->width);
                continue;
            }
            g->offsets[r] = (uint32_t)g->elems;
            if (!present)
                continue;
            size_t n = cf_rng_below(&rng, 4); /* 0..3 elements, some empty lists */
            for (size_t j = 0; j < n; j++) {
                bool ep = cf_rng_below(&rng, elem_null_in) != 0;
                pqg_setbit(g->elem_nonnull, g->elems, ep);
                if (ep)
                    pqg_value(t, g->spec.type, cf_rng_below(&rng, g->card),
                              g->values + g->elems * g->width);
                g->elems++;
            }
        }
        if (g->spec.is_array)
            g->offsets[rows] = (uint32_t)g->elems;
    }
    fix_slices(t);
}

void pqg_free(pqg_table *t)
{
    for (size_t c = 0; c < t->ncols; c++) {
        free(t->c[c].values);
        free(t->c[c].nonnull);
        free(t->c[c].offsets);
        free(t->c[c].elem_nonnull);
    }
    free(t->strings);
}

/* A bit of a bitmap, NULL: all set. */
static bool getbit(const uint8_t *bm, size_t i)
{
    return bm == NULL || (bm[i >> 3] >> (i & 7)) & 1;
}

void pqg_slice(const pqg_col *g, size_t r, size_t n, cf_batch *b)
{
    memset(b, 0, sizeof *b);
    b->count = n;
    uint8_t *nn = calloc(n / 8 + 1, 1);
    for (size_t i = 0; i < n; i++)
        pqg_setbit(nn, i, getbit(g->nonnull, r + i));
    b->nonnull = nn;
    if (!g->spec.is_array) {
        b->values = g->values + r * g->width;
        return;
    }
    uint32_t base = g->offsets[r];
    uint32_t *offs = malloc((n + 1) * sizeof(uint32_t));
    for (size_t i = 0; i <= n; i++)
        offs[i] = g->offsets[r + i] - base;
    b->elem_offsets = offs;
    b->elem_count = offs[n];
    b->values = g->values + (size_t)base * g->width;
    uint8_t *en = calloc(b->elem_count / 8 + 1, 1);
    for (size_t i = 0; i < b->elem_count; i++)
        pqg_setbit(en, i, getbit(g->elem_nonnull, base + i));
    b->elem_nonnull = en;
}

void pqg_slice_free(cf_batch *b)
{
    free((void *)b->nonnull);
    free((void *)b->elem_offsets);
    free((void *)b->elem_nonnull);
}

void pqg_batches(cf_batch *b, size_t n, const void *const *values)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (cf_batch){.values = values[i]};
}

cf_status pqg_writer(cf_parquet_writer **w, cf_io **io, const pqg_table *t,
                     const cf_parquet_writer_options *o, cf_error *err)
{
    CF_ASSERT_OK(cf_io_create_mem(io, err), err);
    cf_parquet_write_column specs[PQG_MAX_COLS];
    for (size_t c = 0; c < t->ncols; c++)
        specs[c] = t->c[c].spec;
    cf_status st = cf_parquet_writer_create(w, *io, specs, t->ncols, o, err);
    if (st != CF_OK) {
        cf_io_free(*io);
        *io = NULL;
    }
    return st;
}

uint8_t *pqg_finish(cf_parquet_writer *w, cf_io *io, size_t *len)
{
    cf_error err;
    CF_ASSERT_OK(cf_parquet_writer_finish(w, &err), &err);
    cf_slice s = cf_io_mem_contents(io);
    uint8_t *copy = malloc(s.len);
    assert_non_null(copy);
    memcpy(copy, s.data, s.len);
    *len = s.len;
    cf_parquet_writer_free(w);
    cf_io_free(io);
    return copy;
}

/* Benchmark data sets (datasets.h). Every formula and the order of every
 * random draw here is what the benchmarks' numbers were measured on: change
 * one and tests/cli/test_datasets.c fails; new data goes in a new set. */
#include "datasets.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t cf_dataset_rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static bool is_binary(cf_type t)
{
    return t == CF_TYPE_STRING || t == CF_TYPE_BINARY || t == CF_TYPE_VARCHAR;
}

/* d->vals for n values of d->type (at least one element, so never NULL). */
static int alloc_vals(cf_dataset *d, size_t n)
{
    d->n = n;
    d->vals = calloc(n ? n : 1, cf_type_size(d->type));
    return d->vals ? 0 : -2;
}

static void set_raw_bytes(cf_dataset *d)
{
    if (!is_binary(d->type)) {
        d->raw_bytes = (uint64_t)d->n * cf_type_size(d->type);
        return;
    }
    const cf_slice *s = d->vals;
    d->raw_bytes = 0;
    for (size_t i = 0; i < d->n; i++)
        d->raw_bytes += s[i].len + 4;
}

void cf_dataset_free(cf_dataset *d)
{
    if (d == NULL)
        return;
    free(d->vals);
    free(d->nonnull);
    free(d->arena);
    memset(d, 0, sizeof *d);
}

/* ---- named sets ---------------------------------------------------------------------- */

const char *const cf_dataset_names[] = {
    "int32_random", "int64_sorted", "int32_small", "int32_runs",     "double_walk",
    "string_zipf",  "string_keys",  "bool_runs",   "int64_nullable", "string_nullable",
};
const size_t cf_dataset_count = sizeof cf_dataset_names / sizeof cf_dataset_names[0];

/* zipf(1) over 1000 words, by inverse CDF. */
static int gen_string_zipf(cf_dataset *d, uint64_t *s)
{
    enum { W = 1000 };
    double cdf[W], h = 0;
    for (int k = 0; k < W; k++)
        cdf[k] = h += 1.0 / (k + 1);
    d->arena = malloc((size_t)W * 16);
    if (d->arena == NULL)
        return -2;
    for (int k = 0; k < W; k++)
        snprintf(d->arena + k * 16, 16, "word-%05d-%c%c", k * 7919 % 100000, 'a' + k % 26,
                 'a' + k / 26 % 26);
    cf_slice *sl = d->vals;
    for (size_t i = 0; i < d->n; i++) {
        double u = (double)(cf_dataset_rng_next(s) >> 11) / 9007199254740992.0 * h;
        int lo = 0, hi = W - 1;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (cdf[mid] < u)
                lo = mid + 1;
            else
                hi = mid;
        }
        sl[i] = (cf_slice){(const uint8_t *)d->arena + lo * 16, strlen(d->arena + lo * 16)};
    }
    return 0;
}

static int gen_named(cf_dataset *d, int which, uint64_t *s)
{
    size_t n = d->n;
    int32_t *i32 = d->vals;
    int64_t *i64 = d->vals;
    double *f64 = d->vals;
    uint8_t *b = d->vals;
    cf_slice *sl = d->vals;
    switch (which) {
    case 0:
        for (size_t i = 0; i < n; i++)
            i32[i] = (int32_t)cf_dataset_rng_next(s);
        break;
    case 1: { /* steps of 2..4: value + 1 is never present */
        int64_t x = 1000000;
        d->validx = true;
        for (size_t i = 0; i < n; i++)
            i64[i] = x += 2 + (int64_t)(cf_dataset_rng_next(s) % 3);
        break;
    }
    case 2:
        for (size_t i = 0; i < n; i++)
            i32[i] = (int32_t)(cf_dataset_rng_next(s) % 1000);
        break;
    case 3: /* runs of 1..128 equal values (mean ~64) */
        for (size_t i = 0; i < n;) {
            size_t run = 1 + cf_dataset_rng_next(s) % 128;
            int32_t v = (int32_t)(cf_dataset_rng_next(s) % 100000);
            for (size_t j = 0; j < run && i < n; j++)
                i32[i++] = v;
        }
        break;
    case 4: {
        double x = 100.0;
        for (size_t i = 0; i < n; i++) {
            x += ((double)(cf_dataset_rng_next(s) % 2001) - 1000.0) / 1000.0;
            f64[i] = x;
        }
        break;
    }
    case 5: return gen_string_zipf(d, s);
    case 6: /* even numbers only: key + "\0" and odd keys are absent */
        d->validx = true;
        d->arena = malloc(n * 16 + 1);
        if (d->arena == NULL)
            return -2;
        for (size_t i = 0; i < n; i++) {
            snprintf(d->arena + i * 16, 16, "user%010u", (unsigned)(i * 2));
            sl[i] = (cf_slice){(const uint8_t *)d->arena + i * 16, 14};
        }
        break;
    case 7:
        for (size_t i = 0; i < n;) {
            size_t run = 1 + cf_dataset_rng_next(s) % 200;
            uint8_t v = cf_dataset_rng_next(s) & 1;
            for (size_t j = 0; j < run && i < n; j++)
                b[i++] = v;
        }
        break;
    case 8:
        d->nullable = true;
        d->nonnull = calloc(n / 8 + 1, 1);
        if (d->nonnull == NULL)
            return -2;
        for (size_t i = 0; i < n; i++) {
            i64[i] = (int64_t)(cf_dataset_rng_next(s) >> 20);
            if (cf_dataset_rng_next(s) % 5 != 0)
                d->nonnull[i / 8] |= (uint8_t)(1u << (i % 8));
        }
        break;
    case 9: { /* string_zipf's values, then ~20% of the rows NULL (empty slices) */
        int rc = gen_string_zipf(d, s);
        if (rc != 0)
            return rc;
        d->nullable = true;
        d->nonnull = calloc(n / 8 + 1, 1);
        if (d->nonnull == NULL)
            return -2;
        for (size_t i = 0; i < n; i++) {
            if (cf_dataset_rng_next(s) % 5 != 0)
                d->nonnull[i / 8] |= (uint8_t)(1u << (i % 8));
            else
                sl[i].len = 0;
        }
        break;
    }
    }
    return 0;
}

int cf_dataset_generate(cf_dataset *d, const char *name, size_t n)
{
    static const cf_type types[] = {CF_TYPE_INT32,  CF_TYPE_INT64,  CF_TYPE_INT32,  CF_TYPE_INT32,
                                    CF_TYPE_DOUBLE, CF_TYPE_STRING, CF_TYPE_STRING, CF_TYPE_BOOL,
                                    CF_TYPE_INT64,  CF_TYPE_STRING};
    memset(d, 0, sizeof *d);
    int which = -1;
    for (size_t i = 0; i < cf_dataset_count; i++)
        if (strcmp(name, cf_dataset_names[i]) == 0)
            which = (int)i;
    if (which < 0)
        return -1;
    d->name = cf_dataset_names[which];
    d->type = types[which];
    uint64_t s = 0x5eed;
    int rc = alloc_vals(d, n);
    if (rc == 0)
        rc = gen_named(d, which, &s);
    if (rc == 0)
        set_raw_bytes(d);
    return rc;
}

/* ---- the micro-benchmark suite ------------------------------------------------------- */

static const struct {
    const char *name;
    cf_type type;
    bool strings; /* n_str values instead of n */
} suite_sets[] = {
    {"int64 sorted keys", CF_TYPE_INT64, false},
    {"int32 random", CF_TYPE_INT32, false},
    {"int32 in [0,65536)", CF_TYPE_INT32, false},
    {"int32 run-heavy", CF_TYPE_INT32, false},
    {"timestamps (us)", CF_TYPE_UNIXTIME_MICROS, false},
    {"double random walk", CF_TYPE_DOUBLE, false},
    {"bool with runs", CF_TYPE_BOOL, false},
    {"strings zipf (1000)", CF_TYPE_STRING, true},
    {"sorted user%010d keys", CF_TYPE_STRING, true},
};

void cf_dataset_suite_init(cf_dataset_suite *s)
{
    s->rng = 0x9e3779b97f4a7c15ull;
    s->next = 0;
}

static int gen_suite(cf_dataset *d, size_t which, uint64_t *s)
{
    size_t n = d->n;
    int32_t *i32 = d->vals;
    int64_t *i64 = d->vals;
    double *f64 = d->vals;
    uint8_t *b8 = d->vals;
    cf_slice *sl = d->vals;
    switch (which) {
    case 0: {
        int64_t k = 1000000;
        for (size_t i = 0; i < n; i++)
            i64[i] = (k += 1 + (int64_t)(cf_dataset_rng_next(s) % 8));
        break;
    }
    case 1:
        for (size_t i = 0; i < n; i++)
            i32[i] = (int32_t)cf_dataset_rng_next(s);
        break;
    case 2:
        for (size_t i = 0; i < n; i++)
            i32[i] = (int32_t)(cf_dataset_rng_next(s) % 65536);
        break;
    case 3:
        for (size_t i = 0; i < n;) {
            int32_t v = (int32_t)(cf_dataset_rng_next(s) % 1000);
            size_t run = 1 + cf_dataset_rng_next(s) % 64;
            for (size_t j = 0; j < run && i < n; j++)
                i32[i++] = v;
        }
        break;
    case 4: {
        int64_t ts = 1700000000000000LL;
        for (size_t i = 0; i < n; i++)
            i64[i] = (ts += (int64_t)(cf_dataset_rng_next(s) % 2000000));
        break;
    }
    case 5: {
        double x = 100.0;
        for (size_t i = 0; i < n; i++)
            f64[i] = (x += ((double)(cf_dataset_rng_next(s) % 2001) - 1000.0) / 100.0);
        break;
    }
    case 6:
        for (size_t i = 0; i < n;) {
            uint8_t v = cf_dataset_rng_next(s) & 1;
            size_t run = 1 + cf_dataset_rng_next(s) % 100;
            for (size_t j = 0; j < run && i < n; j++)
                b8[i++] = v;
        }
        break;
    case 7: /* zipf-ish over 1000 words */
        d->arena = malloc(1000 * 16);
        if (d->arena == NULL)
            return -2;
        for (int w = 0; w < 1000; w++)
            snprintf(d->arena + w * 16, 16, "word-%d-%c", w * 7919 % 10007, 'a' + w % 26);
        for (size_t i = 0; i < n; i++) {
            double u = (double)(cf_dataset_rng_next(s) % 1000000 + 1) / 1000001.0;
            int w = (int)(pow(u, 3.0) * 1000) % 1000; /* skewed towards small ids */
            sl[i] = (cf_slice){(const uint8_t *)d->arena + w * 16, strlen(d->arena + w * 16)};
        }
        break;
    case 8:
        d->arena = malloc(n * 16 + 1);
        if (d->arena == NULL)
            return -2;
        for (size_t i = 0; i < n; i++) {
            /* unsigned: 10 digits at most, so the 14 bytes fit (both benchmarks
             * had the same keys for any n they could hold in memory) */
            snprintf(d->arena + i * 16, 16, "user%010u", (unsigned)(i * 3));
            sl[i] = (cf_slice){(const uint8_t *)d->arena + i * 16, 14};
        }
        break;
    }
    return 0;
}

int cf_dataset_suite_next(cf_dataset_suite *s, cf_dataset *d, size_t n, size_t n_str)
{
    memset(d, 0, sizeof *d);
    if (s->next >= sizeof suite_sets / sizeof suite_sets[0])
        return 0;
    size_t which = s->next++;
    d->name = suite_sets[which].name;
    d->type = suite_sets[which].type;
    int rc = alloc_vals(d, suite_sets[which].strings ? n_str : n);
    if (rc == 0)
        rc = gen_suite(d, which, &s->rng);
    if (rc != 0)
        return rc;
    set_raw_bytes(d);
    return 1;
}

const cf_encoding *cf_dataset_bench_encodings(cf_type t, size_t *count)
{
    static const cf_encoding ints[] = {CF_ENC_PLAIN, CF_ENC_BIT_SHUFFLE, CF_ENC_RLE};
    static const cf_encoding flts[] = {CF_ENC_PLAIN, CF_ENC_BIT_SHUFFLE};
    static const cf_encoding strs[] = {CF_ENC_PLAIN, CF_ENC_PREFIX, CF_ENC_DICT};
    static const cf_encoding bools[] = {CF_ENC_PLAIN, CF_ENC_RLE};
    switch (t) {
    case CF_TYPE_BOOL: *count = 2; return bools;
    case CF_TYPE_FLOAT:
    case CF_TYPE_DOUBLE: *count = 2; return flts;
    default:
        if (is_binary(t)) {
            *count = 3;
            return strs;
        }
        *count = 3;
        return ints;
    }
}

/* bench/parquet_pages: speed of the Parquet page decoders (src/parquet) on
 * one page of each kind a scan meets, encoded by our encoders. Not a test: it
 * prints numbers.
 *
 *   bench_parquet_pages [VALUES [RUNS [FILTER]]]   values per page (default
 *       65536), timed runs per row (default 9; best), only rows whose name
 *       contains FILTER
 *
 * Per row: values/s, MB/s of encoded page bytes, and the ratio of the time
 * to a memcpy of the same number of encoded bytes in the same run (1.0 = as
 * fast as copying the page; larger is slower). Times are CPU time of this
 * process (the machine is shared). Each output is folded into a checksum so
 * nothing is optimized away.
 */
/* cf-needs: parquet */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "parquet/encoding.h"
#include "util/buf.h"

#define BENCH_NAME "bench_parquet_pages"
#include "bench_util.h"

static volatile uint64_t sink;

static uint64_t rng_state = BENCH_SEED;

typedef enum { K_VALUES, K_DICT, K_LEVELS } kind;

typedef struct row {
    const char *name;
    kind k;
    unsigned enc, type;
    int32_t tl;
} row;

static const row rows[] = {
    {"PLAIN int64", K_VALUES, CF_PQE_PLAIN, CF_PQT_INT64, 0},
    {"PLAIN double", K_VALUES, CF_PQE_PLAIN, CF_PQT_DOUBLE, 0},
    {"PLAIN boolean", K_VALUES, CF_PQE_PLAIN, CF_PQT_BOOLEAN, 0},
    {"PLAIN byte_array (~12 B)", K_VALUES, CF_PQE_PLAIN, CF_PQT_BYTE_ARRAY, 0},
    {"RLE_DICTIONARY idx (10 bit)", K_DICT, CF_PQE_RLE_DICTIONARY, 0, 0},
    {"RLE def levels (20% null)", K_LEVELS, CF_PQE_RLE, 0, 0},
    {"DELTA_BINARY_PACKED int64", K_VALUES, CF_PQE_DELTA_BINARY_PACKED, CF_PQT_INT64, 0},
    {"DELTA_BINARY_PACKED int32", K_VALUES, CF_PQE_DELTA_BINARY_PACKED, CF_PQT_INT32, 0},
    {"DELTA_LENGTH_BYTE_ARRAY", K_VALUES, CF_PQE_DELTA_LENGTH_BYTE_ARRAY, CF_PQT_BYTE_ARRAY, 0},
    {"DELTA_BYTE_ARRAY (sorted keys)", K_VALUES, CF_PQE_DELTA_BYTE_ARRAY, CF_PQT_BYTE_ARRAY, 0},
    {"BYTE_STREAM_SPLIT double", K_VALUES, CF_PQE_BYTE_STREAM_SPLIT, CF_PQT_DOUBLE, 0},
    {"BYTE_STREAM_SPLIT float", K_VALUES, CF_PQE_BYTE_STREAM_SPLIT, CF_PQT_FLOAT, 0},
};

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 65536;
    int runs = argc > 2 ? atoi(argv[2]) : 9;
    if (n == 0)
        n = 1;
    if (runs < 1)
        runs = 1;
    uint8_t *vals = malloc(n * 16), *out = malloc(n * 16 + 64), *copy = malloc(n * 64 + 64);
    char *heap = malloc(n * 32);
    uint32_t *idx = malloc(n * 4);
    uint16_t *lv = malloc(n * 2);
    cf_error err;
    cf_buf page;
    cf_buf_init(&page);
    printf("%-32s %10s %12s %10s %9s %8s\n", "page", "bytes", "values/s", "MB/s", "B/value",
           "x memcpy");
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        const row *w = &rows[r];
        if (argc > 3 && strstr(w->name, argv[3]) == NULL)
            continue;
        cf_buf_clear(&page);
        /* data of a typical shape for the encoding */
        size_t hl = 0;
        cf_slice *sl = (cf_slice *)(void *)vals;
        for (size_t i = 0; i < n; i++) {
            switch (w->type) {
            case CF_PQT_INT64: {
                int64_t v = 1700000000000000 + (int64_t)i * 1000 +
                            (int64_t)(bench_xorshift(&rng_state) % 500);
                memcpy(vals + 8 * i, &v, 8);
                break;
            }
            case CF_PQT_INT32: {
                int32_t v = (int32_t)(i * 3 + bench_xorshift(&rng_state) % 7);
                memcpy(vals + 4 * i, &v, 4);
                break;
            }
            case CF_PQT_DOUBLE: {
                double v = 20.0 + (double)(bench_xorshift(&rng_state) % 10000) / 100.0;
                memcpy(vals + 8 * i, &v, 8);
                break;
            }
            case CF_PQT_FLOAT: {
                float v = 20.0f + (float)(bench_xorshift(&rng_state) % 10000) / 100.0f;
                memcpy(vals + 4 * i, &v, 4);
                break;
            }
            case CF_PQT_BOOLEAN: vals[i] = (uint8_t)(bench_xorshift(&rng_state) & 1); break;
            case CF_PQT_BYTE_ARRAY: {
                int l =
                    w->enc == CF_PQE_DELTA_BYTE_ARRAY
                        ? snprintf(heap + hl, 32, "user/%010zu", i * 7)
                        : snprintf(heap + hl, 32, "%llx-%u",
                                   (unsigned long long)(bench_xorshift(&rng_state) & 0xffffffffu),
                                   (unsigned)(bench_xorshift(&rng_state) % 100));
                sl[i] = (cf_slice){(const uint8_t *)heap + hl, (size_t)l};
                hl += (size_t)l;
                break;
            }
            default: break;
            }
            idx[i] = (uint32_t)(bench_xorshift(&rng_state) % 1000);
            lv[i] = bench_xorshift(&rng_state) % 5 != 0;
        }
        cf_status st;
        if (w->k == K_DICT)
            st = cf_pq_dict_indices_encode(&page, idx, n, 1000, &err);
        else if (w->k == K_LEVELS)
            st = cf_pq_levels_encode(&page, lv, n, CF_PQE_RLE, 1, false, &err);
        else
            st = cf_pq_encode(&page, w->enc, w->type, w->tl, vals, n, &err);
        if (st != CF_OK) {
            fprintf(stderr, "%s: encode: %s\n", w->name, err.msg);
            return 1;
        }
        double best = 1e30, best_copy = 1e30;
        for (int k = 0; k < runs + 1; k++) { /* the first run warms up */
            double t0 = bench_cpu();
            if (w->k == K_DICT) {
                st = cf_pq_dict_indices_decode((uint32_t *)(void *)out, n, 1000, page.data,
                                               page.len, &err);
            } else if (w->k == K_LEVELS) {
                st = cf_pq_levels_decode((uint16_t *)(void *)out, n, CF_PQE_RLE, 1, false,
                                         page.data, page.len, NULL, &err);
            } else {
                cf_pq_decoder d;
                st = cf_pq_decoder_init(&d, w->enc, w->type, w->tl, page.data, page.len, n, &err);
                if (st == CF_OK)
                    st = cf_pq_decoder_get(&d, out, n, &err);
                cf_pq_decoder_dispose(&d);
            }
            double t = bench_cpu() - t0;
            if (st != CF_OK) {
                fprintf(stderr, "%s: decode: %s\n", w->name, err.msg);
                return 1;
            }
            sink += out[0] + out[n / 2] + 1;
            if (k > 0 && t < best)
                best = t;
            t0 = bench_cpu();
            memcpy(copy, page.data, page.len);
            t = bench_cpu() - t0;
            sink += copy[page.len / 2];
            if (k > 0 && t < best_copy)
                best_copy = t;
        }
        if (best <= 0)
            best = 1e-9;
        if (best_copy <= 0)
            best_copy = 1e-9;
        printf("%-32s %10zu %12.3g %10.0f %9.2f %8.1f\n", w->name, page.len, (double)n / best,
               (double)page.len / best / 1e6, (double)page.len / (double)n, best / best_copy);
    }
    printf("(checksum %llu)\n", (unsigned long long)sink);
    cf_buf_dispose(&page);
    free(vals);
    free(out);
    free(copy);
    free(heap);
    free(idx);
    free(lv);
    return 0;
}

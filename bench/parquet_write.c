/* bench/parquet_write: speed of the Parquet writer (cf_parquet_writer_*) on
 * generated rows. Not a test: it prints numbers. bench/parquet_write.mjs runs
 * it beside DuckDB's COPY ... TO (FORMAT parquet) on the same rows.
 *
 *   bench_parquet_write [ROWS [RUNS [DIR]]]   rows per case (default 1000000),
 *       timed runs per case (default 5; best and median), DIR: also leave each
 *       case's file there as DIR/<case>.parquet (for the DuckDB side)
 *
 * Each case writes to memory (cf_io_create_mem), so the numbers are the
 * encoder's and not the disk's. One JSON object per case on stdout:
 * {"case", "rows", "raw_bytes" (the values in memory: 8 per int64, string
 * bytes + 4, ...), "file_bytes", "best_s", "median_s", "rows_per_s", "mb_per_s"
 * (raw MB/s at the best time), "memcpy_s" (median time of a memcpy of
 * raw_bytes in the same run, the reference of "ratio to memcpy")}. Times are
 * CPU seconds of the process (the machine is shared: repeat, and read the
 * median too).
 */
/* cf-needs: parquet */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cfile/cfile.h>
#include <cfile/parquet.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile uint8_t sink;

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

#define MAXC 4

typedef struct bcase {
    const char *name;
    int32_t codec;
    size_t ncols;
    cf_parquet_write_column cols[MAXC];
} bcase;

static const bcase cases[] = {
    {"int64_seq_snappy", CF_PARQUET_SNAPPY, 1, {{.name = "v", .type = CF_TYPE_INT64}}},
    {"int64_rand_snappy", CF_PARQUET_SNAPPY, 1, {{.name = "v", .type = CF_TYPE_INT64}}},
    {"int64_dict_snappy", CF_PARQUET_SNAPPY, 1, {{.name = "v", .type = CF_TYPE_INT64}}},
    {"string_dict_snappy", CF_PARQUET_SNAPPY, 1, {{.name = "s", .type = CF_TYPE_STRING}}},
    {"string_unique_zstd", CF_PARQUET_ZSTD, 1, {{.name = "s", .type = CF_TYPE_STRING}}},
    {"double_snappy", CF_PARQUET_SNAPPY, 1, {{.name = "d", .type = CF_TYPE_DOUBLE}}},
    {"list_int32_snappy",
     CF_PARQUET_SNAPPY,
     1,
     {{.name = "l", .type = CF_TYPE_INT32, .is_array = true, .nullable = true}}},
    {"mixed_nullable_zstd",
     CF_PARQUET_ZSTD,
     4,
     {{.name = "id", .type = CF_TYPE_INT64},
      {.name = "name", .type = CF_TYPE_STRING, .nullable = true},
      {.name = "price", .type = CF_TYPE_DOUBLE, .nullable = true},
      {.name = "qty", .type = CF_TYPE_INT32, .nullable = true}}},
};

typedef struct gcol {
    void *values;
    uint8_t *nonnull;
    uint32_t *offs;
    size_t elems;
    char *bytes;
} gcol;

static size_t gen(const bcase *bc, size_t k, gcol *g, size_t rows)
{
    const cf_parquet_write_column *c = &bc->cols[k];
    size_t raw = 0;
    memset(g, 0, sizeof(*g));
    if (c->nullable) {
        g->nonnull = calloc(rows / 8 + 1, 1);
        for (size_t i = 0; i < rows; i++)
            if (rnd() % 10 != 0)
                g->nonnull[i >> 3] |= (uint8_t)(1u << (i & 7));
    }
    if (c->is_array) {
        g->offs = malloc((rows + 1) * sizeof(uint32_t));
        int32_t *v = malloc((rows * 6 + 1) * sizeof(int32_t));
        for (size_t i = 0; i < rows; i++) {
            g->offs[i] = (uint32_t)g->elems;
            size_t n = rnd() % 7;
            for (size_t j = 0; j < n; j++)
                v[g->elems++] = (int32_t)(rnd() % 1000);
        }
        g->offs[rows] = (uint32_t)g->elems;
        g->values = v;
        return g->elems * 4 + rows;
    }
    switch (c->type) {
    case CF_TYPE_INT64: {
        int64_t *v = malloc(rows * 8);
        for (size_t i = 0; i < rows; i++)
            v[i] = strcmp(bc->name, "int64_seq_snappy") == 0    ? (int64_t)i
                   : strcmp(bc->name, "int64_dict_snappy") == 0 ? (int64_t)(rnd() % 1000) * 7919
                                                                : (int64_t)rnd();
        g->values = v;
        raw = rows * 8;
        break;
    }
    case CF_TYPE_INT32: {
        int32_t *v = malloc(rows * 4);
        for (size_t i = 0; i < rows; i++)
            v[i] = (int32_t)(rnd() % 100000);
        g->values = v;
        raw = rows * 4;
        break;
    }
    case CF_TYPE_DOUBLE: {
        double *v = malloc(rows * 8);
        for (size_t i = 0; i < rows; i++)
            v[i] = (double)(rnd() % 100000000) / 100.0;
        g->values = v;
        raw = rows * 8;
        break;
    }
    default: { /* strings: ~10-20 bytes, from 1000 distinct or all distinct */
        bool unique = strstr(bc->name, "unique") != NULL;
        g->bytes = malloc(rows * 32);
        cf_slice *v = malloc(rows * sizeof(cf_slice));
        size_t at = 0;
        for (size_t i = 0; i < rows; i++) {
            uint64_t x = unique ? rnd() : rnd() % 1000;
            int n = sprintf(g->bytes + at, "name-%llu", (unsigned long long)x);
            v[i].data = (const uint8_t *)g->bytes + at;
            v[i].len = (size_t)n;
            at += (size_t)n;
            raw += (size_t)n + 4;
        }
        g->values = v;
        break;
    }
    }
    return raw;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    size_t rows = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    const char *dir = argc > 3 ? argv[3] : NULL;
    if (runs < 1 || runs > 99)
        runs = 5;
    for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
        const bcase *bc = &cases[ci];
        if (getenv("CF_BENCH_FILTER") && !strstr(bc->name, getenv("CF_BENCH_FILTER")))
            continue; /* CF_BENCH_FILTER=text: only the cases whose name contains it */
        gcol g[MAXC];
        cf_batch b[MAXC];
        size_t raw = 0;
        for (size_t k = 0; k < bc->ncols; k++) {
            raw += gen(bc, k, &g[k], rows);
            memset(&b[k], 0, sizeof(b[k]));
            b[k].values = g[k].values;
            b[k].nonnull = g[k].nonnull;
            b[k].elem_offsets = g[k].offs;
            b[k].elem_count = g[k].elems;
        }
        cf_parquet_writer_options o;
        cf_parquet_writer_options_init(&o);
        o.codec = bc->codec;
        double t[99];
        size_t file_bytes = 0;
        for (int r = 0; r < runs; r++) {
            cf_error err;
            cf_io *io;
            cf_parquet_writer *w;
            if (cf_io_create_mem(&io, &err) != CF_OK ||
                cf_parquet_writer_create(&w, io, bc->cols, bc->ncols, &o, &err) != CF_OK) {
                fprintf(stderr, "%s: %s\n", bc->name, err.msg);
                return 1;
            }
            double t0 = now();
            /* batches of 1024 rows, as a scan hands them over */
            for (size_t at = 0; at < rows; at += 1024) {
                size_t n = rows - at < 1024 ? rows - at : 1024;
                cf_batch s[MAXC];
                uint8_t nn[MAXC][129];
                for (size_t k = 0; k < bc->ncols; k++) {
                    s[k] = b[k];
                    if (b[k].nonnull) { /* the batch's bits start at bit 0: at is a multiple of 8 */
                        memcpy(nn[k], b[k].nonnull + at / 8, n / 8 + 1 <= 129 ? n / 8 + 1 : 129);
                        s[k].nonnull = nn[k];
                    }
                    if (b[k].elem_offsets)
                        s[k].elem_offsets = b[k].elem_offsets + at;
                    else
                        s[k].values =
                            (const uint8_t *)b[k].values + at * cf_type_size(bc->cols[k].type);
                }
                if (cf_parquet_writer_append(w, s, n, &err) != CF_OK) {
                    fprintf(stderr, "%s: %s\n", bc->name, err.msg);
                    return 1;
                }
            }
            if (cf_parquet_writer_finish(w, &err) != CF_OK) {
                fprintf(stderr, "%s: %s\n", bc->name, err.msg);
                return 1;
            }
            t[r] = now() - t0;
            cf_slice f = cf_io_mem_contents(io);
            file_bytes = f.len;
            if (dir != NULL && r == 0) {
                char path[4096];
                snprintf(path, sizeof(path), "%s/%s.parquet", dir, bc->name);
                FILE *fp = fopen(path, "wb");
                if (fp == NULL || fwrite(f.data, 1, f.len, fp) != f.len || fclose(fp) != 0) {
                    fprintf(stderr, "%s: cannot write\n", path);
                    return 1;
                }
            }
            cf_parquet_writer_free(w);
            cf_io_free(io);
        }
        /* the memcpy reference: raw_bytes copied, median of the same number of runs */
        double mt[99], memcpy_s = 0;
        uint8_t *ms = malloc(raw ? raw : 1), *md = malloc(raw ? raw : 1);
        if (ms != NULL && md != NULL) {
            memset(ms, 0x5a, raw);
            memset(md, 0, raw); /* fault the pages in before timing */
            for (int r = 0; r < runs; r++) {
                double t0 = now();
                memcpy(md, ms, raw);
                mt[r] = now() - t0;
                sink ^= md[raw ? raw - 1 : 0]; /* keeps the copy */
            }
            qsort(mt, (size_t)runs, sizeof(double), cmpd);
            memcpy_s = mt[runs / 2];
        }
        free(ms);
        free(md);
        double best = t[0];
        for (int r = 1; r < runs; r++)
            best = t[r] < best ? t[r] : best;
        qsort(t, (size_t)runs, sizeof(double), cmpd);
        printf("{\"case\": \"%s\", \"rows\": %zu, \"raw_bytes\": %zu, \"file_bytes\": %zu, "
               "\"best_s\": %.6f, \"median_s\": %.6f, \"rows_per_s\": %.0f, \"mb_per_s\": %.1f, "
               "\"memcpy_s\": %.6f}\n",
               bc->name, rows, raw, file_bytes, best, t[runs / 2], (double)rows / best,
               (double)raw / best / 1e6, memcpy_s);
        fflush(stdout);
        for (size_t k = 0; k < bc->ncols; k++) {
            free(g[k].values);
            free(g[k].nonnull);
            free(g[k].offs);
            free(g[k].bytes);
        }
    }
    return 0;
}

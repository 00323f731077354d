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
 * raw_bytes in the same run, the reference of "ratio to memcpy")}. Those times
 * are CPU seconds of the process at threads = 1 (the machine is shared:
 * repeat, and read the median too). Each run also writes the case with
 * threads = CF_PARQUET_THREADS_AUTO (one per CPU), alternating with the
 * one-thread run: "threads" (the count that means), "wall1_s" and "walln_s"
 * (median wall seconds at 1 and at that count), "cpun_s" (median CPU seconds
 * of the process, every thread's, at that count), "callern_s" (median CPU
 * seconds of the calling thread alone at that count: the work left on the
 * critical path, which wall times on a loaded machine hide). The files are the same bytes
 * at both counts (checked here; a difference exits 1).
 *
 * lineitem_wide_snappy is a lineitem-shaped table of 16 columns (three BIGINT
 * keys, INTEGER, four DECIMAL(15,2), two one-letter strings, three DATEs, two
 * low-cardinality strings, a high-cardinality comment), the shape of
 * bench/parquet_read.c's wide file; its rows: CF_BENCH_WIDE_ROWS (default
 * 3000000).
 */
/* cf-needs: parquet */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cfile/cfile.h>
#include <cfile/parquet.h>
#include <unistd.h>

#define BENCH_NAME "bench_parquet_write"
#include "bench_util.h"

static volatile uint8_t sink;

static uint64_t rng_state = BENCH_SEED;

#define MAXC 16

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
    {"int64_walk_zstd", CF_PARQUET_ZSTD, 1, {{.name = "v", .type = CF_TYPE_INT64}}},
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
    {"lineitem_wide_snappy",
     CF_PARQUET_SNAPPY,
     16,
     {{.name = "l_orderkey", .type = CF_TYPE_INT64},
      {.name = "l_partkey", .type = CF_TYPE_INT64},
      {.name = "l_suppkey", .type = CF_TYPE_INT64},
      {.name = "l_linenumber", .type = CF_TYPE_INT32},
      {.name = "l_quantity", .type = CF_TYPE_DECIMAL64, .precision = 15, .scale = 2},
      {.name = "l_extendedprice", .type = CF_TYPE_DECIMAL64, .precision = 15, .scale = 2},
      {.name = "l_discount", .type = CF_TYPE_DECIMAL64, .precision = 15, .scale = 2},
      {.name = "l_tax", .type = CF_TYPE_DECIMAL64, .precision = 15, .scale = 2},
      {.name = "l_returnflag", .type = CF_TYPE_STRING},
      {.name = "l_linestatus", .type = CF_TYPE_STRING},
      {.name = "l_shipdate", .type = CF_TYPE_DATE},
      {.name = "l_commitdate", .type = CF_TYPE_DATE},
      {.name = "l_receiptdate", .type = CF_TYPE_DATE},
      {.name = "l_shipinstruct", .type = CF_TYPE_STRING},
      {.name = "l_shipmode", .type = CF_TYPE_STRING},
      {.name = "l_comment", .type = CF_TYPE_STRING}}},
};

typedef struct gcol {
    void *values;
    uint8_t *nonnull;
    uint32_t *offs;
    size_t elems;
    char *bytes;
} gcol;

/* Column k of lineitem_wide_snappy (bench/parquet_read.c's wide_case). */
static size_t gen_wide(size_t k, gcol *g, size_t rows)
{
    static const char *const flags[] = {"A", "N", "R"}, *const status[] = {"F", "O"};
    static const char *const instr[] = {"DELIVER IN PERSON", "COLLECT COD", "NONE",
                                        "TAKE BACK RETURN"};
    static const char *const modes[] = {"AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"};
    size_t raw = 0;
    if (k <= 2 || (k >= 4 && k <= 7)) { /* BIGINT keys, DECIMAL(15,2) as int64 */
        int64_t *v = malloc(rows * 8);
        for (size_t i = 0; i < rows; i++)
            v[i] = k == 0   ? (int64_t)(i / 4 + 1)
                   : k == 1 ? (int64_t)(bench_xorshift(&rng_state) % 200000 + 1)
                   : k == 2 ? (int64_t)(bench_xorshift(&rng_state) % 10000 + 1)
                   : k == 4 ? (int64_t)(bench_xorshift(&rng_state) % 50 + 1) * 100
                   : k == 5 ? (int64_t)(bench_xorshift(&rng_state) % 10000000)
                   : k == 6 ? (int64_t)(bench_xorshift(&rng_state) % 11)
                            : (int64_t)(bench_xorshift(&rng_state) % 9);
        g->values = v;
        return rows * 8;
    }
    if (k == 3 || (k >= 10 && k <= 12)) { /* INTEGER, DATE */
        int32_t *v = malloc(rows * 4);
        for (size_t i = 0; i < rows; i++)
            v[i] =
                k == 3 ? (int32_t)(i % 7 + 1) : (int32_t)(8035 + bench_xorshift(&rng_state) % 2500);
        g->values = v;
        return rows * 4;
    }
    g->bytes = malloc(rows * 48);
    cf_slice *v = malloc(rows * sizeof(cf_slice));
    size_t at = 0;
    for (size_t i = 0; i < rows; i++) {
        const char *s = NULL;
        char tmp[48];
        if (k == 8)
            s = flags[bench_xorshift(&rng_state) % 3];
        else if (k == 9)
            s = status[bench_xorshift(&rng_state) % 2];
        else if (k == 13)
            s = instr[bench_xorshift(&rng_state) % 4];
        else if (k == 14)
            s = modes[bench_xorshift(&rng_state) % 7];
        else { /* the comment: 10..39 hex digits, nearly all distinct */
            size_t n = 10 + bench_xorshift(&rng_state) % 30;
            for (size_t j = 0; j < n; j++)
                tmp[j] = "0123456789abcdef"[bench_xorshift(&rng_state) & 15];
            tmp[n] = '\0';
            s = tmp;
        }
        size_t n = strlen(s);
        memcpy(g->bytes + at, s, n);
        v[i].data = (const uint8_t *)g->bytes + at;
        v[i].len = n;
        at += n;
        raw += n + 4;
    }
    g->values = v;
    return raw;
}

static size_t gen(const bcase *bc, size_t k, gcol *g, size_t rows)
{
    const cf_parquet_write_column *c = &bc->cols[k];
    size_t raw = 0;
    memset(g, 0, sizeof(*g));
    if (bc->ncols == 16)
        return gen_wide(k, g, rows);
    if (c->nullable) {
        g->nonnull = calloc(rows / 8 + 1, 1);
        for (size_t i = 0; i < rows; i++)
            if (bench_xorshift(&rng_state) % 10 != 0)
                g->nonnull[i >> 3] |= (uint8_t)(1u << (i & 7));
    }
    if (c->is_array) {
        g->offs = malloc((rows + 1) * sizeof(uint32_t));
        int32_t *v = malloc((rows * 6 + 1) * sizeof(int32_t));
        for (size_t i = 0; i < rows; i++) {
            g->offs[i] = (uint32_t)g->elems;
            size_t n = bench_xorshift(&rng_state) % 7;
            for (size_t j = 0; j < n; j++)
                v[g->elems++] = (int32_t)(bench_xorshift(&rng_state) % 1000);
        }
        g->offs[rows] = (uint32_t)g->elems;
        g->values = v;
        return g->elems * 4 + rows;
    }
    if (!cf_type_is_binary(c->type)) { /* fixed width: rows values, each its size */
        raw = rows * cf_type_size(c->type);
        g->values = malloc(raw);
    }
    switch (c->type) {
    case CF_TYPE_INT64: {
        int64_t *v = g->values;
        int64_t walk = 1700000000000000; /* int64_walk_zstd: timestamps (us) a few ms apart */
        for (size_t i = 0; i < rows; i++)
            v[i] = strcmp(bc->name, "int64_walk_zstd") == 0
                       ? (walk += (int64_t)(bench_xorshift(&rng_state) % 5000))
                   : strcmp(bc->name, "int64_seq_snappy") == 0 ? (int64_t)i
                   : strcmp(bc->name, "int64_dict_snappy") == 0
                       ? (int64_t)(bench_xorshift(&rng_state) % 1000) * 7919
                       : (int64_t)bench_xorshift(&rng_state);
        break;
    }
    case CF_TYPE_INT32:
        for (size_t i = 0; i < rows; i++)
            ((int32_t *)g->values)[i] = (int32_t)(bench_xorshift(&rng_state) % 100000);
        break;
    case CF_TYPE_DOUBLE:
        for (size_t i = 0; i < rows; i++)
            ((double *)g->values)[i] = (double)(bench_xorshift(&rng_state) % 100000000) / 100.0;
        break;
    default: { /* strings: ~10-20 bytes, from 1000 distinct or all distinct */
        bool unique = strstr(bc->name, "unique") != NULL;
        g->bytes = malloc(rows * 32);
        cf_slice *v = malloc(rows * sizeof(cf_slice));
        size_t at = 0;
        for (size_t i = 0; i < rows; i++) {
            uint64_t x = unique ? bench_xorshift(&rng_state) : bench_xorshift(&rng_state) % 1000;
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
    size_t all_rows = rows;
    size_t wide_rows =
        getenv("CF_BENCH_WIDE_ROWS") ? strtoull(getenv("CF_BENCH_WIDE_ROWS"), NULL, 10) : 3000000;
    for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
        const bcase *bc = &cases[ci];
        if (getenv("CF_BENCH_FILTER") && !strstr(bc->name, getenv("CF_BENCH_FILTER")))
            continue; /* CF_BENCH_FILTER=text: only the cases whose name contains it */
        rows = bc->ncols == 16 ? wide_rows : all_rows;
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
        double t[99], w1[99], wn[99], cn[99], kn[99];
        size_t file_bytes = 0;
        uint8_t *first = NULL;
        for (int rr = 0; rr < 2 * runs; rr++) {
            int r = rr / 2;
            bool many = rr % 2; /* alternate: one thread, then one per CPU */
            o.threads = many ? CF_PARQUET_THREADS_AUTO : 1;
            cf_error err;
            cf_io *io;
            cf_parquet_writer *w;
            if (cf_io_create_mem(&io, &err) != CF_OK ||
                cf_parquet_writer_create(&w, io, bc->cols, bc->ncols, &o, &err) != CF_OK) {
                fprintf(stderr, "%s: %s\n", bc->name, err.msg);
                return 1;
            }
            /* k0: the calling thread's CPU alone; at several threads, the work left on the
             * critical path (what a free core per thread would make the wall time), which a
             * loaded machine's wall times cannot show. */
            double t0 = bench_cpu(), wall0 = bench_wall(), k0 = bench_thread_cpu();
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
            double cpu = bench_cpu() - t0, wl = bench_wall() - wall0, kc = bench_thread_cpu() - k0;
            if (many) {
                wn[r] = wl;
                cn[r] = cpu;
                kn[r] = kc;
            } else {
                t[r] = cpu;
                w1[r] = wl;
            }
            cf_slice f = cf_io_mem_contents(io);
            if (rr == 0) {
                first = malloc(f.len);
                memcpy(first, f.data, f.len);
            } else if (f.len != file_bytes || memcmp(f.data, first, f.len) != 0) {
                fprintf(stderr, "%s: threads %zu wrote other bytes than one thread\n", bc->name,
                        o.threads);
                return 1;
            }
            file_bytes = f.len;
            if (dir != NULL && rr == 0) {
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
                double t0 = bench_cpu();
                memcpy(md, ms, raw);
                mt[r] = bench_cpu() - t0;
                sink ^= md[raw ? raw - 1 : 0]; /* keeps the copy */
            }
            qsort(mt, (size_t)runs, sizeof(double), cmpd);
            memcpy_s = mt[runs / 2];
        }
        free(ms);
        free(md);
        free(first);
        double best = t[0];
        for (int r = 1; r < runs; r++)
            best = t[r] < best ? t[r] : best;
        qsort(t, (size_t)runs, sizeof(double), cmpd);
        qsort(w1, (size_t)runs, sizeof(double), cmpd);
        qsort(wn, (size_t)runs, sizeof(double), cmpd);
        qsort(cn, (size_t)runs, sizeof(double), cmpd);
        qsort(kn, (size_t)runs, sizeof(double), cmpd);
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        size_t nth = cpus < 1 ? 1 : (size_t)cpus;
        nth = nth > CF_PARQUET_MAX_THREADS ? CF_PARQUET_MAX_THREADS : nth;
        nth = nth > bc->ncols ? (bc->ncols == 1 && nth >= 2 ? 2 : bc->ncols) : nth;
        printf("{\"case\": \"%s\", \"rows\": %zu, \"raw_bytes\": %zu, \"file_bytes\": %zu, "
               "\"best_s\": %.6f, \"median_s\": %.6f, \"rows_per_s\": %.0f, \"mb_per_s\": %.1f, "
               "\"memcpy_s\": %.6f, \"threads\": %zu, \"wall1_s\": %.6f, \"walln_s\": %.6f, "
               "\"cpun_s\": %.6f, \"callern_s\": %.6f}\n",
               bc->name, rows, raw, file_bytes, best, t[runs / 2], (double)rows / best,
               (double)raw / best / 1e6, memcpy_s, nth, w1[runs / 2], wn[runs / 2], cn[runs / 2],
               kn[runs / 2]);
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

/* Rowset benchmark: import N rows (default 10 million) of a 6-column table, then
 * full scans, scans with predicates, and random point lookups.
 * usage: bench_rowset [ROWS] [DIR] [LOOKUPS] [CACHE_MB] [THREADS] [REPS]
 *   DIR default /tmp/cf_bench_rowset, removed first; LOOKUPS default 200000;
 *   CACHE_MB the rowset's block cache (default CF_ROWSET_DEFAULT_CACHE_BYTES: at
 *   10 M rows random lookups touch ~78 MB of blocks, more than the default);
 *   THREADS a comma-separated list of scan thread counts (cf_scan_options
 *   .threads, default "1,2"): every scan runs with each, REPS times (default
 *   3), alternating the counts, after one untimed warm-up scan.
 * Each scan prints one line of key=value fields (stable, for scripts):
 *   scan NAME threads=T rows=R matches=M reps=K wall_best=S wall_med=S
 *   cpu_med=S caller_cpu_med=S rows_per_s=X rows_per_cpu_s=Y
 * rows = rows the scan covers (examined or skipped), wall_* in seconds of
 * CLOCK_MONOTONIC, cpu_med the median process CPU seconds (all threads) of a
 * scan, caller_cpu_med that of the calling thread alone (with threads it
 * also spins while it waits for a worker, so on an idle machine it is close
 * to the wall time), rows_per_s = rows / wall_best, rows_per_cpu_s = rows /
 * cpu_med. On a shared machine compare CPU times; wall times only from a
 * quiet run. */
/* cf-needs: tables */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cfile/cfile.h>
#include <cfile/rowset.h>

#define BENCH_NAME "bench_rowset"
#include "bench_util.h"

#define B 4096
#define MAX_THREAD_COUNTS 8
#define MAX_REPS 32

static size_t thread_counts[MAX_THREAD_COUNTS] = {1, 2};
static size_t nthread_counts = 2;
static int reps = 3;

/* One scan with `threads`; returns the matches, wall and CPU seconds. */
static uint64_t scan_once(cf_rowset *rs, const cf_pred *p, size_t np, const size_t *cols,
                          size_t ncols, size_t threads, double *wall, double *cpu, double *caller)
{
    cf_error e;
    cf_scan_options o;
    cf_scan_options_init(&o);
    o.preds = p;
    o.npreds = np;
    o.cols = cols;
    o.ncols = ncols;
    o.batch_rows = 4096;
    o.threads = threads;
    cf_rowset_scanner *sc;
    double t0 = bench_wall(), c0 = bench_cpu(), k0 = bench_thread_cpu();
    cf_status st = cf_rowset_scanner_create(&sc, rs, &o, &e);
    if (st)
        bench_die("scan", st, &e);
    uint64_t n = 0;
    for (;;) {
        cf_row_batch b;
        if ((st = cf_rowset_scanner_next(sc, &b, &e)))
            bench_die("scan", st, &e);
        if (!b.count)
            break;
        n += b.count;
    }
    cf_rowset_scanner_free(sc);
    *wall = bench_wall() - t0;
    *cpu = bench_cpu() - c0;
    *caller = bench_thread_cpu() - k0;
    return n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The scan `name` over `rows` rows with every thread count, reps times each
 * (counts alternating within a repetition), one line per count. */
static void scan(const char *name, uint64_t rows, cf_rowset *rs, const cf_pred *p, size_t np,
                 const size_t *cols, size_t ncols)
{
    double wall[MAX_THREAD_COUNTS][MAX_REPS], cpu[MAX_THREAD_COUNTS][MAX_REPS];
    double caller[MAX_THREAD_COUNTS][MAX_REPS];
    uint64_t matches = 0;
    double w, c, k;
    scan_once(rs, p, np, cols, ncols, 1, &w, &c, &k); /* warm-up: page cache, block cache */
    for (int r = 0; r < reps; r++)
        for (size_t t = 0; t < nthread_counts; t++)
            matches = scan_once(rs, p, np, cols, ncols, thread_counts[t], &wall[t][r], &cpu[t][r],
                                &caller[t][r]);
    for (size_t t = 0; t < nthread_counts; t++) {
        qsort(wall[t], (size_t)reps, sizeof(double), cmp_double);
        qsort(cpu[t], (size_t)reps, sizeof(double), cmp_double);
        qsort(caller[t], (size_t)reps, sizeof(double), cmp_double);
        double cmed = cpu[t][reps / 2];
        printf("scan %-14s threads=%zu rows=%" PRIu64 " matches=%" PRIu64
               " reps=%d wall_best=%.4f wall_med=%.4f cpu_med=%.4f caller_cpu_med=%.4f"
               " rows_per_s=%.0f rows_per_cpu_s=%.0f\n",
               name, thread_counts[t], rows, matches, reps, wall[t][0], wall[t][reps / 2], cmed,
               caller[t][reps / 2], rows / wall[t][0], rows / cmed);
    }
    fflush(stdout);
}

/* Scans with selective predicates on a DICT and an RLE column of a table whose
 * rows arrive clustered by them (as time-ordered data often is by region or
 * batch): blocks whose codewords or runs cannot match are skipped. */
static int skip_bench(uint64_t rows, const char *dir0)
{
    char dir[600];
    snprintf(dir, sizeof(dir), "%s-skip", dir0);
    if (bench_rm_rf(dir) != 0)
        return 1;
    cf_error e;
    cf_status st;
    cf_schema *s;
    if ((st = cf_schema_parse(
             &s, "id INT64 KEY, region STRING, grp INT32 ENCODING rle, amount DOUBLE", &e)))
        bench_die("schema", st, &e);
    cf_rowset_writer *w;
    if ((st = cf_rowset_writer_create(&w, dir, s, NULL, &e)))
        bench_die("writer", st, &e);
    static const char *regions[8] = {"r0-north",  "r1-south", "r2-east",   "r3-west",
                                     "r4-centre", "r5-coast", "r6-island", "r7-hills"};
    static int64_t id[B];
    static cf_slice reg[B];
    static int32_t grp[B];
    static double amount[B];
    for (uint64_t base = 0; base < rows; base += B) {
        size_t m = rows - base < B ? (size_t)(rows - base) : B;
        for (size_t j = 0; j < m; j++) {
            uint64_t i = base + j;
            id[j] = (int64_t)i;
            const char *r = regions[(i / 50000) % 8];
            reg[j] = (cf_slice){(const uint8_t *)r, strlen(r)};
            grp[j] = (int32_t)(i / 1000);
            amount[j] = (double)(i % 10007) * 0.5;
        }
        cf_colvec cv[4] = {{id, NULL, NULL, NULL},
                           {reg, NULL, NULL, NULL},
                           {grp, NULL, NULL, NULL},
                           {amount, NULL, NULL, NULL}};
        if ((st = cf_rowset_writer_append(w, cv, m, &e)))
            bench_die("append", st, &e);
    }
    if ((st = cf_rowset_writer_finish(w, &e)))
        bench_die("finish", st, &e);
    cf_rowset_writer_free(w);
    cf_rowset *rs;
    if ((st = cf_rowset_open(&rs, dir, NULL, &e)))
        bench_die("open", st, &e);
    /* region = 'r3-west' (DICT, 1/8 of the rows, clustered) and grp = N (RLE,
     * runs of 1000): all 4 columns */
    cf_slice west = {(const uint8_t *)"r3-west", 7};
    cf_pred pr = {1, CF_PRED_EQ, &west};
    scan("skip_dict_eq", rows, rs, &pr, 1, NULL, 0);
    int32_t g = (int32_t)(rows / 2000);
    cf_pred pg = {2, CF_PRED_EQ, &g};
    scan("skip_rle_eq", rows, rs, &pg, 1, NULL, 0);
    cf_rowset_free(rs);
    cf_schema_free(s);
    return bench_rm_rf(dir) != 0;
}

int main(int argc, char **argv)
{
    uint64_t rows = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000ull;
    const char *dir = argc > 2 ? argv[2] : "/tmp/cf_bench_rowset";
    if (argc > 5) {
        nthread_counts = 0;
        for (const char *q = argv[5]; *q && nthread_counts < MAX_THREAD_COUNTS;) {
            char *end;
            thread_counts[nthread_counts++] = (size_t)strtoull(q, &end, 10);
            q = *end == ',' ? end + 1 : end + strlen(end);
        }
    }
    if (argc > 6) {
        reps = atoi(argv[6]);
        if (reps < 1 || reps > MAX_REPS) {
            fprintf(stderr, "bench_rowset: REPS must be 1..%d\n", MAX_REPS);
            return 2;
        }
    }
    if (bench_rm_rf(dir) != 0)
        return 1;
    cf_error e;
    cf_status st;
    cf_schema *s;
    if ((st = cf_schema_parse(&s,
                              "id INT64 KEY, name STRING, v INT32, price DOUBLE, "
                              "ts UNIXTIME_MICROS, note STRING NULL",
                              &e)))
        bench_die("schema", st, &e);
    cf_rowset_writer *w;
    if ((st = cf_rowset_writer_create(&w, dir, s, NULL, &e)))
        bench_die("writer", st, &e);
    static int64_t id[B], ts[B];
    static int32_t v[B];
    static double price[B];
    static cf_slice name[B], note[B];
    static char nb[B][24], tb[B][24];
    static uint8_t nn[B / 8];
    double t0 = bench_wall(), c0 = bench_cpu();
    for (uint64_t base = 0; base < rows; base += B) {
        size_t m = rows - base < B ? (size_t)(rows - base) : B;
        memset(nn, 0, sizeof(nn));
        for (size_t j = 0; j < m; j++) {
            uint64_t i = base + j;
            id[j] = (int64_t)i * 3;
            int l = snprintf(nb[j], sizeof(nb[j]), "user%07" PRIu64, i % 1000000);
            name[j] = (cf_slice){(const uint8_t *)nb[j], (size_t)l};
            v[j] = (int32_t)(i % 1000);
            price[j] = (double)(i % 10007) * 0.01;
            ts[j] = 1700000000000000ll + (int64_t)i * 1000;
            if (i % 10 != 0) {
                nn[j / 8] |= (uint8_t)(1u << (j % 8));
                l = snprintf(tb[j], sizeof(tb[j]), "n%" PRIu64, i % 97);
                note[j] = (cf_slice){(const uint8_t *)tb[j], (size_t)l};
            } else {
                note[j] = (cf_slice){NULL, 0};
            }
        }
        cf_colvec cv[6] = {{id, NULL, NULL, NULL}, {name, NULL, NULL, NULL},
                           {v, NULL, NULL, NULL},  {price, NULL, NULL, NULL},
                           {ts, NULL, NULL, NULL}, {note, nn, NULL, NULL}};
        if ((st = cf_rowset_writer_append(w, cv, m, &e)))
            bench_die("append", st, &e);
    }
    if ((st = cf_rowset_writer_finish(w, &e)))
        bench_die("finish", st, &e);
    double ti = bench_wall() - t0, tc = bench_cpu() - c0;
    cf_rowset_writer_free(w);
    printf("import rows=%" PRIu64 " wall=%.3f cpu=%.3f rows_per_s=%.0f rows_per_cpu_s=%.0f\n", rows,
           ti, tc, rows / ti, rows / tc);

    cf_rowset *rs;
    cf_rowset_options ro;
    cf_rowset_options_init(&ro);
    if (argc > 4)
        ro.cache_bytes = (size_t)strtoull(argv[4], NULL, 10) << 20;
    if ((st = cf_rowset_open(&rs, dir, &ro, &e)))
        bench_die("open", st, &e);
    /* all columns; (id, v); v = 7 (all columns of the ~0.1% matching rows);
     * price > 50 (50% match) projecting (id, v); a 100 k-row key range */
    scan("all_columns", rows, rs, NULL, 0, NULL, 0);
    size_t c2[2] = {0, 2};
    scan("id_v", rows, rs, NULL, 0, c2, 2);
    int32_t seven = 7;
    cf_pred pv = {2, CF_PRED_EQ, &seven};
    scan("v_eq_7", rows, rs, &pv, 1, NULL, 0);
    double lim = 50.0;
    cf_pred pp = {3, CF_PRED_GT, &lim};
    scan("price_gt_50", rows, rs, &pp, 1, c2, 2);
    int64_t lo = (int64_t)rows, hi = (int64_t)rows + 300000; /* ids are 3 * row */
    cf_pred pk[2] = {{0, CF_PRED_GE, &lo}, {0, CF_PRED_LT, &hi}};
    scan("key_range", rows >= 300000 ? 100000 : 0, rs, pk, 2, NULL, 0);

    double secs;
    uint64_t seed = 12345, found = 0;
    const uint64_t lookups = argc > 3 ? strtoull(argv[3], NULL, 10) : 200000;
    t0 = bench_wall();
    for (uint64_t i = 0; i < lookups; i++) {
        int64_t key = bench_lookup_key(&seed, rows);
        const void *k[1] = {&key};
        cf_row_batch b;
        st = cf_rowset_get(rs, k, CF_SNAPSHOT_LATEST, &b, &e);
        if (st == CF_OK)
            found++;
        else if (st != CF_ENOTFOUND)
            bench_die("get", st, &e);
    }
    secs = bench_wall() - t0;
    printf("point lookups:     %" PRIu64 " (%" PRIu64 " found) in %.2f s = %.0f lookups/s\n",
           lookups, found, secs, lookups / secs);
    cf_rowset_free(rs);
    cf_schema_free(s);
    return skip_bench(rows, dir);
}

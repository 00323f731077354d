/* Rowset benchmark: import N rows (default 10 million) of a 6-column table, then
 * full scans, scans with predicates, and random point lookups.
 * usage: bench_rowset [ROWS] [DIR] [LOOKUPS] [CACHE_MB]
 *   DIR default /tmp/cf_bench_rowset, removed first; LOOKUPS default 200000;
 *   CACHE_MB the rowset's block cache (default CF_RS_DEFAULT_CACHE_BYTES: at
 *   10 M rows random lookups touch ~78 MB of blocks, more than the default) */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cfile/cfile.h>
#include <cfile/rowset.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, cf_status st, const cf_error *e)
{
    fprintf(stderr, "bench_rowset: %s: %s: %s\n", what, cf_status_str(st), e->msg);
    exit(1);
}

#define B 4096

static uint64_t scan(cf_rowset *rs, const cf_rs_pred *p, size_t np, const size_t *cols,
                     size_t ncols, double *secs)
{
    cf_error e;
    cf_rs_scan_options o;
    cf_rs_scan_options_init(&o);
    o.preds = p;
    o.npreds = np;
    o.cols = cols;
    o.ncols = ncols;
    o.batch_rows = 4096;
    cf_rs_scanner *sc;
    double t0 = now();
    cf_status st = cf_rs_scanner_create(&sc, rs, &o, &e);
    if (st)
        die("scan", st, &e);
    uint64_t n = 0;
    for (;;) {
        cf_rs_batch b;
        if ((st = cf_rs_scanner_next(sc, &b, &e)))
            die("scan", st, &e);
        if (!b.count)
            break;
        n += b.count;
    }
    cf_rs_scanner_free(sc);
    *secs = now() - t0;
    return n;
}

/* Scans with selective predicates on a DICT and an RLE column of a table whose
 * rows arrive clustered by them (as time-ordered data often is by region or
 * batch): blocks whose codewords or runs cannot match are skipped. */
static int skip_bench(uint64_t rows, const char *dir0)
{
    char dir[600];
    snprintf(dir, sizeof(dir), "%s-skip", dir0);
    char cmd[700];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        return 1;
    cf_error e;
    cf_status st;
    cf_rs_schema *s;
    if ((st = cf_rs_schema_parse(&s, "id INT64 KEY, region STRING, grp INT32 ENCODING rle, amount DOUBLE",
                                 &e)))
        die("schema", st, &e);
    cf_rs_writer *w;
    if ((st = cf_rs_writer_create(&w, dir, s, NULL, &e)))
        die("writer", st, &e);
    static const char *regions[8] = {"r0-north", "r1-south", "r2-east",   "r3-west",
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
        cf_rs_colvec cv[4] = {{id, NULL, NULL, NULL}, {reg, NULL, NULL, NULL},
                              {grp, NULL, NULL, NULL}, {amount, NULL, NULL, NULL}};
        if ((st = cf_rs_writer_append(w, cv, m, &e)))
            die("append", st, &e);
    }
    if ((st = cf_rs_writer_finish(w, &e)))
        die("finish", st, &e);
    cf_rs_writer_free(w);
    cf_rowset *rs;
    if ((st = cf_rowset_open(&rs, dir, &e)))
        die("open", st, &e);
    double secs;
    cf_slice west = {(const uint8_t *)"r3-west", 7};
    cf_rs_pred pr = {1, CF_RS_EQ, &west};
    uint64_t n = scan(rs, &pr, 1, NULL, 0, &secs);
    printf("skip: region = r3-west (DICT):   %" PRIu64 " matches of %" PRIu64 " rows in %.3f s = %.0f rows/s\n",
           n, rows, secs, rows / secs);
    int32_t g = (int32_t)(rows / 2000);
    cf_rs_pred pg = {2, CF_RS_EQ, &g};
    n = scan(rs, &pg, 1, NULL, 0, &secs);
    printf("skip: grp = %d (RLE):          %" PRIu64 " matches of %" PRIu64 " rows in %.3f s = %.0f rows/s\n",
           (int)g, n, rows, secs, rows / secs);
    cf_rowset_free(rs);
    cf_rs_schema_free(s);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) != 0;
}

int main(int argc, char **argv)
{
    uint64_t rows = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000ull;
    const char *dir = argc > 2 ? argv[2] : "/tmp/cf_bench_rowset";
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        return 1;
    cf_error e;
    cf_status st;
    cf_rs_schema *s;
    if ((st = cf_rs_schema_parse(&s,
                                 "id INT64 KEY, name STRING, v INT32, price DOUBLE, "
                                 "ts UNIXTIME_MICROS, note STRING NULL",
                                 &e)))
        die("schema", st, &e);
    cf_rs_writer *w;
    if ((st = cf_rs_writer_create(&w, dir, s, NULL, &e)))
        die("writer", st, &e);
    static int64_t id[B], ts[B];
    static int32_t v[B];
    static double price[B];
    static cf_slice name[B], note[B];
    static char nb[B][24], tb[B][24];
    static uint8_t nn[B / 8];
    double t0 = now();
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
        cf_rs_colvec cv[6] = {{id, NULL, NULL, NULL},    {name, NULL, NULL, NULL},
                              {v, NULL, NULL, NULL},     {price, NULL, NULL, NULL},
                              {ts, NULL, NULL, NULL},    {note, nn, NULL, NULL}};
        if ((st = cf_rs_writer_append(w, cv, m, &e)))
            die("append", st, &e);
    }
    if ((st = cf_rs_writer_finish(w, &e)))
        die("finish", st, &e);
    double ti = now() - t0;
    cf_rs_writer_free(w);
    printf("import:            %" PRIu64 " rows in %.2f s = %.0f rows/s\n", rows, ti, rows / ti);

    cf_rowset *rs;
    cf_rowset_options ro;
    cf_rowset_options_init(&ro);
    if (argc > 4)
        ro.cache_bytes = (size_t)strtoull(argv[4], NULL, 10) << 20;
    if ((st = cf_rowset_open_opts(&rs, dir, &ro, &e)))
        die("open", st, &e);
    double secs;
    uint64_t n = scan(rs, NULL, 0, NULL, 0, &secs);
    printf("scan all columns:  %" PRIu64 " rows in %.2f s = %.0f rows/s\n", n, secs, n / secs);
    size_t c2[2] = {0, 2};
    n = scan(rs, NULL, 0, c2, 2, &secs);
    printf("scan (id, v):      %" PRIu64 " rows in %.2f s = %.0f rows/s\n", rows, secs, rows / secs);
    int32_t seven = 7;
    cf_rs_pred pv = {2, CF_RS_EQ, &seven};
    n = scan(rs, &pv, 1, NULL, 0, &secs);
    printf("scan v = 7:        %" PRIu64 " matches, %" PRIu64 " rows examined in %.2f s = %.0f rows/s\n",
           n, rows, secs, rows / secs);
    double lim = 50.0;
    cf_rs_pred pp = {3, CF_RS_GT, &lim};
    n = scan(rs, &pp, 1, c2, 2, &secs);
    printf("scan price > 50:   %" PRIu64 " matches, %" PRIu64 " rows examined in %.2f s = %.0f rows/s\n",
           n, rows, secs, rows / secs);
    int64_t lo = (int64_t)rows, hi = (int64_t)rows + 300000;
    cf_rs_pred pk[2] = {{0, CF_RS_GE, &lo}, {0, CF_RS_LT, &hi}};
    n = scan(rs, pk, 2, NULL, 0, &secs);
    printf("scan key range:    %" PRIu64 " rows in %.4f s\n", n, secs);

    uint64_t seed = 12345, found = 0;
    const uint64_t lookups = argc > 3 ? strtoull(argv[3], NULL, 10) : 200000;
    t0 = now();
    for (uint64_t i = 0; i < lookups; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        int64_t key = (int64_t)((seed >> 11) % (rows * 3)); /* one in three exists */
        const void *k[1] = {&key};
        cf_rs_batch b;
        st = cf_rowset_get(rs, k, CF_RS_SNAPSHOT_LATEST, &b, &e);
        if (st == CF_OK)
            found++;
        else if (st != CF_ENOTFOUND)
            die("get", st, &e);
    }
    secs = now() - t0;
    printf("point lookups:     %" PRIu64 " (%" PRIu64 " found) in %.2f s = %.0f lookups/s\n",
           lookups, found, secs, lookups / secs);
    cf_rowset_free(rs);
    cf_rs_schema_free(s);
    return skip_bench(rows, dir);
}

/* Kudu tablet scan benchmark: a tablet read from a Kudu server's own directories
 * (cf_kudu_scanner: DiskRowSets with deltas + WAL replay) against our own table
 * scan (cf_table_scanner) of the same rows loaded into a cfile table, warm, in
 * one process. Prints rows/s and MB/s (bytes of values: fixed widths plus binary
 * lengths) of each and the ratio.
 * usage: bench_kudu_scan LAYOUT [ITERS] [DIR]
 *        LAYOUT: a folder with fs/wal and fs/data0, fs/data1, ... (../shared/kudu-fs/*)
 *        ITERS default 200; DIR (the cfile table) default /tmp/cf_bench_kudu_scan */
/* cf-needs: tables */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cfile/kudu.h>
#include <cfile/rowset.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, cf_status st, const cf_error *e)
{
    fprintf(stderr, "bench_kudu_scan: %s: %s: %s\n", what, cf_status_str(st), e->msg);
    exit(1);
}

static uint64_t batch_bytes(const cf_schema *s, const cf_row_batch *b)
{
    uint64_t n = 0;
    for (size_t j = 0; j < b->ncols; j++) {
        cf_type t = cf_schema_column_at(s, j)->type;
        if (!cf_type_is_binary(t)) {
            n += b->count * cf_type_size(t);
            continue;
        }
        const cf_slice *sl = b->cols[j].values;
        for (size_t i = 0; i < b->count; i++)
            n += sl[i].len;
    }
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_kudu_scan LAYOUT [ITERS] [DIR]\n");
        return 2;
    }
    int iters = argc > 2 ? atoi(argv[2]) : 200;
    const char *dir = argc > 3 ? argv[3] : "/tmp/cf_bench_kudu_scan";
    char wal[1024], data[8][1024];
    const char *datap[8];
    size_t nd = 0;
    snprintf(wal, sizeof(wal), "%s/fs/wal", argv[1]);
    for (; nd < 8; nd++) {
        struct stat st;
        snprintf(data[nd], sizeof(data[nd]), "%s/fs/data%zu", argv[1], nd);
        if (stat(data[nd], &st) != 0)
            break;
        datap[nd] = data[nd];
    }
    cf_error e;
    cf_status st;
    cf_kudu_fs_options fo;
    cf_kudu_fs_options_init(&fo);
    fo.wal_dir = wal;
    fo.data_dirs = datap;
    fo.ndata_dirs = nd;
    cf_kudu_fs *fs;
    cf_kudu_tablet *t;
    double t0 = now();
    if ((st = cf_kudu_fs_open(&fs, &fo, &e)) != CF_OK)
        die("fs open", st, &e);
    if ((st = cf_kudu_tablet_open(&t, fs, cf_kudu_fs_tablet_at(fs, 0), &e)) != CF_OK)
        die("tablet open", st, &e);
    double t_open = now() - t0;
    const cf_schema *s = cf_kudu_tablet_schema(t);
    size_t nc = cf_schema_column_count(s);

    /* The same rows as a cfile table (one load, then flushed). */
    char cmd[1200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        return 1;
    if ((st = cf_rowset_create_empty(dir, s, &e)) != CF_OK)
        die("table create", st, &e);
    cf_table *tb;
    if ((st = cf_table_open(&tb, dir, NULL, &e)) != CF_OK)
        die("table open", st, &e);
    cf_table_loader *ld;
    if ((st = cf_table_loader_create(&ld, tb, NULL, &e)) != CF_OK)
        die("loader", st, &e);
    cf_kudu_scanner *sc;
    if ((st = cf_kudu_scanner_create(&sc, t, NULL, &e)) != CF_OK)
        die("scan", st, &e);
    cf_colvec *cv = calloc(nc, sizeof(*cv));
    for (;;) {
        cf_row_batch b;
        if ((st = cf_kudu_scanner_next(sc, &b, &e)) != CF_OK)
            die("scan", st, &e);
        if (b.count == 0)
            break;
        for (size_t j = 0; j < nc; j++) {
            cv[j].values = b.cols[j].values;
            cv[j].nonnull = b.cols[j].nonnull;
        }
        if ((st = cf_table_loader_append(ld, cv, b.count, &e)) != CF_OK)
            die("load", st, &e);
    }
    cf_kudu_scanner_free(sc);
    if ((st = cf_table_loader_commit(ld, &e)) != CF_OK)
        die("commit", st, &e);
    cf_table_loader_free(ld);
    cf_table_free(tb);
    /* Without a block cache: every scan decompresses and decodes again, as the
     * tablet scan (which has none) does. */
    cf_table_options to;
    cf_table_options_init(&to);
    to.read_only = true;
    to.cache_bytes = 0;
    if ((st = cf_table_open(&tb, dir, &to, &e)) != CF_OK)
        die("table reopen", st, &e);

    static const char *names[3] = {"kudu tablet (latest, WAL replayed)", "kudu tablet (--no-wal)",
                                   "cfile table (same rows, no cache)"};
    double secs[3] = {0}, csecs[3] = {0};
    uint64_t rows[3] = {0}, bytes[3] = {0};
    /* BENCH_KUDU_ONLY=0|1|2: run that one scan kind alone (for profiles). */
    const char *only = getenv("BENCH_KUDU_ONLY");
    for (int k = 0; k < 3; k++) {
        if (only != NULL && atoi(only) != k)
            continue;
        for (int it = 0; it < iters + 1; it++) {
            double a = now();
            cf_kudu_scanner *ks = NULL;
            cf_table_scanner *ts = NULL;
            if (k < 2) {
                cf_kudu_scan_options o;
                cf_kudu_scan_options_init(&o);
                o.no_wal = k == 1;
                if ((st = cf_kudu_scanner_create(&ks, t, &o, &e)) != CF_OK)
                    die("scan", st, &e);
            } else {
                cf_scan_options o;
                cf_scan_options_init(&o);
                o.threads = 1;
                if ((st = cf_table_scanner_create(&ts, tb, &o, &e)) != CF_OK)
                    die("table scan", st, &e);
            }
            double created = now() - a;
            uint64_t r = 0, by = 0;
            for (;;) {
                cf_row_batch b;
                st = k < 2 ? cf_kudu_scanner_next(ks, &b, &e) : cf_table_scanner_next(ts, &b, &e);
                if (st != CF_OK)
                    die("next", st, &e);
                if (b.count == 0)
                    break;
                r += b.count;
                by += batch_bytes(s, &b);
            }
            cf_kudu_scanner_free(ks);
            cf_table_scanner_free(ts);
            if (it == 0)
                continue; /* warm-up */
            secs[k] += now() - a;
            csecs[k] += created;
            rows[k] += r;
            bytes[k] += by;
        }
    }
    printf("layout %s: %zu rowsets, open %.2f ms, %d scans each\n", argv[1],
           cf_kudu_tablet_rowset_count(t), t_open * 1e3, iters);
    for (int k = 0; k < 3; k++)
        if (secs[k] > 0)
            printf("  %-36s %10.0f rows/s %8.1f MB/s  (%.3f ms per scan of %" PRIu64
                   " rows, %.3f ms of it creating the scanner; %.0f rows/s past that)\n",
                   names[k], rows[k] / secs[k], bytes[k] / secs[k] / 1e6, secs[k] / iters * 1e3,
                   rows[k] / (uint64_t)iters, csecs[k] / iters * 1e3,
                   rows[k] / (secs[k] - csecs[k]));
    if (only == NULL)
        printf("  ratio kudu latest / cfile table: %.2f; --no-wal / cfile table: %.2f\n",
               (rows[0] / secs[0]) / (rows[2] / secs[2]),
               (rows[1] / secs[1]) / (rows[2] / secs[2]));
    cf_table_free(tb);
    cf_kudu_tablet_free(t);
    cf_kudu_fs_free(fs);
    free(cv);
    return 0;
}

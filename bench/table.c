/* Table benchmark (inserts of new keys): a one-pass import of half the rows of the
 * 6-column table of bench/rowset.c, then inserts of the other half in random key
 * order (between the existing keys) through the MemRowSet, which flushes to new
 * DiskRowSets; merged scans and point lookups over several rowsets; a merge
 * compaction; the same reads over the compacted rowset.
 * usage: bench_table [ROWS] [DIR] [FLUSH_MB]
 *        (ROWS default 1 million, DIR default /tmp/cf_bench_table, removed first,
 *         FLUSH_MB = MemRowSet flush size, default the library's)
 *        bench_table wal [N] [DIR]
 *        single-row inserts through the write-ahead log with an fdatasync per
 *        commit (N/50 rows), group commit (a cf_table_sync per 100 rows) and no
 *        sync (N rows, default 200000); then the replay time of a log grown to the
 *        checkpoint size (CF_TABLE_WAL_MAX_BYTES).
 *        bench_table many [ROWS] [ROWSETS] [ITERS] [DIR]
 *        full scans of ROWS rows (default 500000) in ROWSETS rowsets (default
 *        250) of contiguous key ranges (disjoint), in ROWSETS rowsets whose keys
 *        interleave (row i in rowset i % ROWSETS), and in one rowset; ITERS
 *        rounds (default 15) alternating the three, medians of CPU and wall
 *        time (BENCH_TABLE_MANY_ONLY=0, 1 or 2: only the disjoint, interleaved
 *        or one-rowset scans, for a profiler). */
/* cf-needs: tables */
#include <sys/stat.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cfile/cfile.h>
#include <cfile/rowset.h>
#include "util/int128.h"

#define BENCH_NAME "bench_table"
#include "bench_util.h"

#define B 4096

/* Row i's values (id given): the forms of bench/rowset.c. */
typedef struct rowvals {
    int64_t id, ts;
    int32_t v;
    double price;
    cf_slice name, note;
    char nb[24], tb[24];
    bool has_note;
} rowvals;

static void make_row(rowvals *r, uint64_t i, int64_t id)
{
    r->id = id;
    int l = snprintf(r->nb, sizeof(r->nb), "user%07" PRIu64, i % 1000000);
    r->name = (cf_slice){(const uint8_t *)r->nb, (size_t)l};
    r->v = (int32_t)(i % 1000);
    r->price = (double)(i % 10007) * 0.01;
    r->ts = 1700000000000000ll + (int64_t)i * 1000;
    r->has_note = i % 10 != 0;
    l = snprintf(r->tb, sizeof(r->tb), "n%" PRIu64, i % 97);
    r->note = (cf_slice){(const uint8_t *)r->tb, r->has_note ? (size_t)l : 0};
}

/* Up to B rows as the six column vectors a table loader takes. */
typedef struct batch {
    rowvals rv[B];
    int64_t id[B], ts[B];
    int32_t v[B];
    double price[B];
    cf_slice name[B], note[B];
    uint8_t nn[B / 8];
    cf_colvec cv[6];
} batch;

/* Empty again: the vectors point at the batch's arrays, no note set. */
static void batch_clear(batch *bt)
{
    bt->cv[0] = (cf_colvec){bt->id, NULL, NULL, NULL};
    bt->cv[1] = (cf_colvec){bt->name, NULL, NULL, NULL};
    bt->cv[2] = (cf_colvec){bt->v, NULL, NULL, NULL};
    bt->cv[3] = (cf_colvec){bt->price, NULL, NULL, NULL};
    bt->cv[4] = (cf_colvec){bt->ts, NULL, NULL, NULL};
    bt->cv[5] = (cf_colvec){bt->note, bt->nn, NULL, NULL};
    memset(bt->nn, 0, sizeof(bt->nn));
}

/* Row i's values (id given) at position j. */
static void batch_put(batch *bt, size_t j, uint64_t i, int64_t id)
{
    rowvals *r = &bt->rv[j];
    make_row(r, i, id);
    bt->id[j] = r->id;
    bt->name[j] = r->name;
    bt->v[j] = r->v;
    bt->price[j] = r->price;
    bt->ts[j] = r->ts;
    bt->note[j] = r->note;
    if (r->has_note)
        bt->nn[j / 8] |= (uint8_t)(1u << (j % 8));
}

/* Rows base .. base + m - 1 (m <= B) of the one-pass import (ids 0, 6, 12, ...) as
 * the six column vectors; valid until the next call. */
static cf_colvec *sorted_batch(uint64_t base, size_t m)
{
    static batch bt;
    batch_clear(&bt);
    for (size_t j = 0; j < m; j++)
        batch_put(&bt, j, base + j, (int64_t)(base + j) * 6);
    return bt.cv;
}

static uint64_t scan(cf_table *t, double *secs)
{
    cf_error e;
    cf_scan_options o;
    cf_scan_options_init(&o);
    o.batch_rows = 4096;
    cf_table_scanner *sc;
    double t0 = bench_wall();
    cf_status st = cf_table_scanner_create(&sc, t, &o, &e);
    if (st)
        bench_die("scan", st, &e);
    uint64_t n = 0;
    for (;;) {
        cf_row_batch b;
        if ((st = cf_table_scanner_next(sc, &b, &e)))
            bench_die("scan", st, &e);
        if (!b.count)
            break;
        n += b.count;
    }
    *secs = bench_wall() - t0;
    cf_table_scanner_free(sc);
    return n;
}

static void lookups(cf_table *t, uint64_t rows, const char *what)
{
    cf_error e;
    uint64_t seed = 12345, found = 0;
    const uint64_t n = 20000;
    double t0 = bench_wall();
    for (uint64_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        int64_t key = (int64_t)((seed >> 11) % (rows * 6)); /* one in three exists */
        const void *k[1] = {&key};
        cf_row_batch b;
        cf_status st = cf_table_get(t, k, CF_SNAPSHOT_LATEST, &b, &e);
        if (st == CF_OK)
            found++;
        else if (st != CF_ENOTFOUND)
            bench_die("get", st, &e);
    }
    double secs = bench_wall() - t0;
    printf("point lookups %-12s %" PRIu64 " (%" PRIu64 " found) in %.2f s = %.0f lookups/s\n", what,
           n, found, secs, n / secs);
}

/* The one-pass import again through a table bulk loader (rowset.h), into a new
 * table at dir: what `cfile table import` does with sorted rows. */
static double loader_import(const char *dir, const cf_schema *s, uint64_t half)
{
    cf_error e;
    cf_status st;
    if (bench_rm_rf(dir) != 0)
        exit(1);
    if ((st = cf_rowset_create_empty(dir, s, &e)))
        bench_die("create", st, &e);
    double t0 = bench_wall();
    cf_table *t;
    cf_table_loader *l;
    if ((st = cf_table_open(&t, dir, NULL, &e)) || (st = cf_table_loader_create(&l, t, NULL, &e)))
        bench_die("loader", st, &e);
    for (uint64_t base = 0; base < half; base += B) {
        size_t m = half - base < B ? (size_t)(half - base) : B;
        cf_colvec *cv = sorted_batch(base, m);
        if ((st = cf_table_loader_append(l, cv, m, &e)))
            bench_die("loader append", st, &e);
    }
    if ((st = cf_table_loader_commit(l, &e)))
        bench_die("loader commit", st, &e);
    cf_table_loader_free(l);
    cf_table_free(t);
    return bench_wall() - t0;
}

static cf_status insert_row(cf_table *t, uint64_t i, uint64_t ts, cf_error *e)
{
    rowvals r;
    make_row(&r, i, (int64_t)i);
    const void *vals[6] = {&r.id, &r.name, &r.v, &r.price, &r.ts, r.has_note ? &r.note : NULL};
    return cf_table_insert(t, vals, ts, e);
}

static void fresh(const char *dir, const cf_schema *s)
{
    cf_error e;
    cf_status st;
    if (bench_rm_rf(dir) != 0 || (st = cf_rowset_create_empty(dir, s, &e)) != CF_OK)
        bench_die("create", CF_EIO, &e);
}

static uint64_t log_bytes(const char *dir)
{
    char p[600];
    uint64_t total = 0;
    for (int seq = 1; seq < 64; seq++) {
        struct stat sb;
        snprintf(p, sizeof(p), "%s/wal/wal-%016d.log", dir, seq);
        if (stat(p, &sb) == 0)
            total += (uint64_t)sb.st_size;
    }
    return total;
}

static int bench_wal(uint64_t n, const char *dir, const cf_schema *s)
{
    static const struct {
        const char *name;
        cf_table_sync_mode mode;
        uint64_t div, group;
    } modes[] = {{"fdatasync per commit", CF_TABLE_SYNC_COMMIT, 50, 1},
                 {"group commit (100 rows)", CF_TABLE_SYNC_GROUP, 1, 100},
                 {"no sync", CF_TABLE_SYNC_NONE, 1, 0}};
    cf_error e;
    cf_status st;
    for (size_t m = 0; m < 3; m++) {
        fresh(dir, s);
        cf_table *t;
        if ((st = cf_table_open(&t, dir, NULL, &e)))
            bench_die("open", st, &e);
        cf_table_set_sync(t, modes[m].mode, 0);
        uint64_t rows = n / modes[m].div, ts = cf_table_last_ts(t) + 1;
        double t0 = bench_wall();
        for (uint64_t i = 0; i < rows; i++) {
            if ((st = insert_row(t, i, ts++, &e)))
                bench_die("insert", st, &e);
            if (modes[m].group > 1 && (i + 1) % modes[m].group == 0 && (st = cf_table_sync(t, &e)))
                bench_die("sync", st, &e);
        }
        if ((st = cf_table_sync(t, &e)))
            bench_die("sync", st, &e);
        double ti = bench_wall() - t0;
        printf("single-row inserts, %-24s %8" PRIu64 " rows in %.2f s = %.0f rows/s\n",
               modes[m].name, rows, ti, rows / ti);
        cf_table_free(t);
    }
    /* Replay: a log just below the checkpoint size, MemRowSet not flushed. */
    fresh(dir, s);
    cf_table *t;
    if ((st = cf_table_open(&t, dir, NULL, &e)))
        bench_die("open", st, &e);
    cf_table_set_sync(t, CF_TABLE_SYNC_NONE, 0);
    uint64_t ts = cf_table_last_ts(t) + 1, rows = 0;
    while (log_bytes(dir) < CF_TABLE_WAL_MAX_BYTES - 4096) {
        for (int k = 0; k < 64; k++, rows++)
            if ((st = insert_row(t, rows, ts++, &e)))
                bench_die("insert", st, &e);
    }
    cf_table_free(t);
    uint64_t lb = log_bytes(dir);
    double t0 = bench_wall();
    if ((st = cf_table_open(&t, dir, NULL, &e)))
        bench_die("reopen", st, &e);
    double ti = bench_wall() - t0;
    printf("replay on open:           %" PRIu64 " ops, %.1f MiB of log in %.3f s = %.0f ops/s "
           "(%zu MemRowSet rows)\n",
           rows, lb / 1048576.0, ti, rows / ti, cf_table_mrs_rows(t));
    cf_table_free(t);
    return 0;
}

/* A table at dir of `rows` rows (ids 0..rows-1) in `parts` loader commits, each
 * its own rowset (auto compaction off): row i in part i / per (disjoint) or
 * i % parts (interleave). */
static cf_table *many_table(const char *dir, const cf_schema *s, uint64_t rows, size_t parts,
                            bool interleave)
{
    cf_error e;
    cf_status st;
    cf_table_options o;
    cf_table_options_init(&o);
    o.auto_compact = false;
    cf_table *t;
    /* kept from an earlier run with the same shape: reused (writing it takes minutes) */
    if (cf_table_open(&t, dir, &o, &e) == CF_OK) {
        uint64_t have = 0;
        for (size_t i = 0; i < cf_table_rowset_count(t); i++) {
            cf_rowset_info info;
            cf_rowset_get_info(cf_table_rowset_at(t, i, NULL), &info);
            have += info.rows;
        }
        if (cf_table_rowset_count(t) == parts && have == rows)
            return t;
        cf_table_free(t);
    }
    fresh(dir, s);
    if ((st = cf_table_open(&t, dir, &o, &e)))
        bench_die("open", st, &e);
    uint64_t per = (rows + parts - 1) / parts;
    static batch bt;
    for (size_t p = 0; p < parts; p++) {
        cf_table_loader *l;
        if ((st = cf_table_loader_create(&l, t, NULL, &e)))
            bench_die("loader", st, &e);
        size_t m = 0;
        batch_clear(&bt);
        for (uint64_t i = 0; i <= rows; i++) {
            bool mine = i < rows && (interleave ? i % parts == p : i / per == p);
            if (mine)
                batch_put(&bt, m++, i, (int64_t)i);
            if (m == B || (i == rows && m > 0)) {
                if ((st = cf_table_loader_append(l, bt.cv, m, &e)))
                    bench_die("loader append", st, &e);
                m = 0;
                batch_clear(&bt);
            }
        }
        if ((st = cf_table_loader_commit(l, &e)))
            bench_die("loader commit", st, &e);
        cf_table_loader_free(l);
    }
    return t;
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int bench_many(uint64_t rows, size_t parts, int iters, const char *dir, const cf_schema *s)
{
    char d[3][600];
    const char *what[3] = {"disjoint", "interleaved", "one rowset"};
    cf_table *t[3];
    for (int k = 0; k < 3; k++) {
        snprintf(d[k], sizeof(d[k]), "%s-%d", dir, k);
        t[k] = many_table(d[k], s, rows, k == 2 ? 1 : parts, k == 1);
    }
    double *cpu = calloc((size_t)iters * 3, sizeof(double));
    double *wall = calloc((size_t)iters * 3, sizeof(double));
    if (cpu == NULL || wall == NULL)
        return 1;
    /* BENCH_TABLE_MANY_ONLY=0|1|2: scan only that layout (for a profiler) */
    const char *only = getenv("BENCH_TABLE_MANY_ONLY");
    for (int r = 0; r < iters; r++) {
        for (int k = 0; k < 3; k++) {
            if (only != NULL && atoi(only) != k)
                continue;
            double c0 = bench_cpu(), secs;
            uint64_t n = scan(t[k], &secs);
            cpu[k * iters + r] = bench_cpu() - c0;
            wall[k * iters + r] = secs;
            if (n != rows) {
                fprintf(stderr, "bench_table: %s scan gave %" PRIu64 " rows of %" PRIu64 "\n",
                        what[k], n, rows);
                return 1;
            }
        }
    }
    for (int k = 0; k < 3; k++) {
        if (only != NULL && atoi(only) != k) {
            cf_table_free(t[k]);
            continue;
        }
        qsort(cpu + k * iters, (size_t)iters, sizeof(double), dbl_cmp);
        qsort(wall + k * iters, (size_t)iters, sizeof(double), dbl_cmp);
        printf("full scan, %-11s %4zu rowsets: %" PRIu64 " rows, median CPU %8.2f ms, wall %8.2f "
               "ms (%d rounds)\n",
               what[k], cf_table_rowset_count(t[k]), rows, cpu[k * iters + iters / 2] * 1e3,
               wall[k * iters + iters / 2] * 1e3, iters);
        cf_table_free(t[k]);
    }
    free(cpu);
    free(wall);
    return 0;
}

/* The table every case of this bench writes and reads. */
static cf_schema *table_schema(void)
{
    cf_error e;
    cf_schema *s;
    cf_status st = cf_schema_parse(&s,
                                   "id INT64 KEY, name STRING, v INT32, price DOUBLE, "
                                   "ts UNIXTIME_MICROS, note STRING NULL",
                                   &e);
    if (st != CF_OK)
        bench_die("schema", st, &e);
    return s;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "many") == 0) {
        cf_schema *s = table_schema();
        int rc = bench_many(argc > 2 ? strtoull(argv[2], NULL, 10) : 500000,
                            argc > 3 ? (size_t)strtoull(argv[3], NULL, 10) : 250,
                            argc > 4 ? atoi(argv[4]) : 15,
                            argc > 5 ? argv[5] : "/tmp/cf_bench_table_many", s);
        cf_schema_free(s);
        return rc;
    }
    if (argc > 1 && strcmp(argv[1], "wal") == 0) {
        cf_schema *s = table_schema();
        int rc = bench_wal(argc > 2 ? strtoull(argv[2], NULL, 10) : 200000,
                           argc > 3 ? argv[3] : "/tmp/cf_bench_table_wal", s);
        cf_schema_free(s);
        return rc;
    }
    uint64_t rows = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000ull;
    const char *dir = argc > 2 ? argv[2] : "/tmp/cf_bench_table";
    size_t flush_mb = argc > 3 ? (size_t)strtoull(argv[3], NULL, 10) : 0;
    rows &= ~(uint64_t)1;
    if (bench_rm_rf(dir) != 0)
        return 1;
    cf_error e;
    cf_status st;
    cf_schema *s = table_schema();
    /* Half the rows, ids 0, 6, 12, ..., written in one pass. */
    uint64_t half = rows / 2;
    cf_rowset_writer *w;
    if ((st = cf_rowset_writer_create(&w, dir, s, NULL, &e)))
        bench_die("writer", st, &e);
    double t0 = bench_wall();
    for (uint64_t base = 0; base < half; base += B) {
        size_t m = half - base < B ? (size_t)(half - base) : B;
        cf_colvec *cv = sorted_batch(base, m);
        if ((st = cf_rowset_writer_append(w, cv, m, &e)))
            bench_die("append", st, &e);
    }
    if ((st = cf_rowset_writer_finish(w, &e)))
        bench_die("finish", st, &e);
    double ti = bench_wall() - t0;
    cf_rowset_writer_free(w);
    printf("one-pass import:          %" PRIu64 " rows in %.2f s = %.0f rows/s\n", half, ti,
           half / ti);
    {
        char ldir[600];
        snprintf(ldir, sizeof(ldir), "%s-loader", dir);
        double tl = loader_import(ldir, s, half);
        printf("one-pass import (loader): %" PRIu64 " rows in %.2f s = %.0f rows/s (%.1f%% of the "
               "writer's)\n",
               half, tl, half / tl, 100.0 * ti / tl);
        if (bench_rm_rf(ldir) != 0)
            return 1;
    }

    /* The other half, ids 3, 9, 15, ..., in a random order: i -> i * P mod half
     * with P prime and not a factor of half visits each once. */
    cf_table *t;
    if ((st = cf_table_open(&t, dir, NULL, &e)))
        bench_die("open", st, &e);
    if (flush_mb)
        cf_table_set_flush_bytes(t, flush_mb << 20);
    /* bulk work: the log is written, not synced per insert (the flush syncs) */
    cf_table_set_sync(t, CF_TABLE_SYNC_NONE, 0);
    uint64_t p = 1000003;
    while (half % p == 0)
        p += 2;
    uint64_t ts0 = cf_table_last_ts(t) + 1;
    t0 = bench_wall();
    for (uint64_t k = 0; k < half; k++) {
        uint64_t i = (uint64_t)(((cf_u128)k * p) % half);
        rowvals r;
        make_row(&r, half + i, (int64_t)i * 6 + 3);
        const void *vals[6] = {&r.id, &r.name, &r.v, &r.price, &r.ts, r.has_note ? &r.note : NULL};
        if ((st = cf_table_insert(t, vals, ts0 + k, &e)))
            bench_die("insert", st, &e);
    }
    if ((st = cf_table_flush(t, &e)))
        bench_die("flush", st, &e);
    ti = bench_wall() - t0;
    printf("inserts, random order:    %" PRIu64 " rows in %.2f s = %.0f rows/s (%zu rowsets)\n",
           half, ti, half / ti, cf_table_rowset_count(t));
    /* Duplicates: every insert of an existing key is refused (bloom, then index). */
    t0 = bench_wall();
    uint64_t dups = 0;
    for (uint64_t k = 0; k < 100000; k++) {
        rowvals r;
        make_row(&r, k, (int64_t)(k % half) * 3);
        const void *vals[6] = {&r.id, &r.name, &r.v, &r.price, &r.ts, &r.note};
        st = cf_table_insert(t, vals, ts0 + half + k, &e);
        dups += st == CF_EINVAL;
    }
    ti = bench_wall() - t0;
    printf("duplicate inserts:        %" PRIu64 " refused of 100000 in %.2f s = %.0f/s\n", dups, ti,
           100000 / ti);

    double secs;
    uint64_t n = scan(t, &secs);
    printf("merged scan (%zu rowsets): %" PRIu64 " rows in %.2f s = %.0f rows/s\n",
           cf_table_rowset_count(t), n, secs, n / secs);
    lookups(t, half, "(merged):");
    t0 = bench_wall();
    if ((st = cf_table_compact(t, 0, &e)))
        bench_die("compact", st, &e);
    ti = bench_wall() - t0;
    printf("merge compaction:         %" PRIu64 " rows in %.2f s = %.0f rows/s\n", rows, ti,
           rows / ti);
    n = scan(t, &secs);
    printf("scan (1 rowset):          %" PRIu64 " rows in %.2f s = %.0f rows/s\n", n, secs,
           n / secs);
    lookups(t, half, "(1 rowset):");
    cf_table_free(t);
    cf_schema_free(s);
    return 0;
}

/* Automatic compaction benchmark: the old CLI pattern at library level, N
 * single-row inserts of random keys each followed by a flush (a new rowset
 * every time), with automatic compaction on or off. Prints the time per insert
 * (insert + flush + any merges) over the first and the last 1000 inserts, the
 * slowest single insert (the longest merge pause), the final rowset count, and
 * the time to open the table at the end (best of 3).
 * usage: bench_compact [N] [on|off] [DIR]
 *        (N default 10000, on by default, DIR default /tmp/cf_bench_compact,
 *         removed first) */
/* cf-needs: tables */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cfile/cfile.h>
#include <cfile/rowset.h>

#define BENCH_NAME "bench_compact"
#include "bench_util.h"

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000;
    bool on = argc > 2 ? strcmp(argv[2], "off") != 0 : true;
    const char *dir = argc > 3 ? argv[3] : "/tmp/cf_bench_compact";
    if (bench_rm_rf(dir) != 0)
        return 1;
    cf_error e;
    cf_status st;
    cf_schema *s;
    if ((st = cf_schema_parse(&s, "id INT64 KEY, v INT64, name STRING NULL", &e)))
        bench_die("schema", st, &e);
    if ((st = cf_rowset_create_empty(dir, s, &e)))
        bench_die("create", st, &e);
    cf_table *t;
    if ((st = cf_table_open(&t, dir, NULL, &e)))
        bench_die("open", st, &e);
    cf_table_set_compaction(t, on, 0);
    uint64_t w = n < 1000 ? n : 1000;
    double t0 = bench_wall(), first = 0, last = 0, worst = 0, tl = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (i == n - w)
            tl = bench_wall();
        double a = bench_wall();
        /* random keys: a bijection of i on 2^40, scattered */
        int64_t id = (int64_t)((i * 0x9E3779B97F4A7C15ull) >> 24);
        int64_t v = (int64_t)i;
        char nb[24];
        int l = snprintf(nb, sizeof(nb), "user%07" PRIu64, i);
        cf_slice name = {(const uint8_t *)nb, (size_t)l};
        const void *vals[3] = {&id, &v, &name};
        if ((st = cf_table_insert(t, vals, i + 2, &e)))
            bench_die("insert", st, &e);
        if ((st = cf_table_flush(t, &e)))
            bench_die("flush", st, &e);
        double d = bench_wall() - a;
        if (d > worst)
            worst = d;
        if (i + 1 == w)
            first = bench_wall() - t0;
    }
    last = bench_wall() - tl;
    double total = bench_wall() - t0;
    size_t nrs = cf_table_rowset_count(t);
    if ((st = cf_table_compaction_status(t, &e)))
        bench_die("automatic compaction", st, &e);
    if ((st = cf_table_close(t, &e)))
        bench_die("close", st, &e);
    double open_best = 1e9;
    uint64_t check = 0;
    for (int r = 0; r < 3; r++) {
        double a = bench_wall();
        if ((st = cf_table_open(&t, dir, NULL, &e)))
            bench_die("reopen", st, &e);
        double d = bench_wall() - a;
        if (d < open_best)
            open_best = d;
        check += cf_table_rowset_count(t);
        cf_table_free(t);
    }
    printf("auto compaction %s, %" PRIu64 " inserts + flushes: %.3f s (%.0f/s)\n",
           on ? "on" : "off", n, total, n / total);
    printf("  per insert: first %" PRIu64 " %.3f ms, last %" PRIu64 " %.3f ms, slowest %.3f ms\n",
           w, first / w * 1e3, w, last / w * 1e3, worst * 1e3);
    printf("  rowsets at the end: %zu; open: %.3f ms (check %" PRIu64 ")\n", nrs, open_best * 1e3,
           check);
    cf_schema_free(s);
    return 0;
}

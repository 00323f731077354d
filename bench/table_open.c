/* Opening a table of many rowsets: builds a table of N one-row rowsets
 * (automatic compaction off, one flush per insert, as N CLI inserts did before
 * it existed), then times cf_table_open (writer) and a read-only open, and the
 * first lookup after each. The number issue 14 asks for: the time to open a
 * table of 1,000 rowsets.
 * usage: bench_table_open [N] [DIR] [reuse]   (N default 1000, DIR default
 *        /tmp/cf_bench_table_open, removed first; with "reuse" the table in DIR
 *        is opened as it is, to compare two builds on one table) */
/* cf-needs: tables */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cfile/cfile.h>
#include <cfile/rowset.h>

#define BENCH_NAME "bench_table_open"
#include "bench_util.h"

int main(int argc, char **argv)
{
    unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1000u;
    const char *dir = argc > 2 ? argv[2] : "/tmp/cf_bench_table_open";
    bool reuse = argc > 3 && strcmp(argv[3], "reuse") == 0;
    cf_error e;
    cf_status st;
    cf_table *t;
    if (reuse)
        goto time_open;
    if (bench_rm_rf(dir) != 0)
        return 1;
    cf_schema *s;
    if ((st = cf_schema_parse(&s, "id INT64 KEY, name STRING NULL, v INT32 NULL", &e)))
        bench_die("schema", st, &e);
    if ((st = cf_rowset_create_empty(dir, s, &e)))
        bench_die("create", st, &e);
    cf_schema_free(s);
    if ((st = cf_table_open(&t, dir, NULL, &e)))
        bench_die("open", st, &e);
    cf_table_set_compaction(t, false, 0);
    double t0 = bench_wall();
    for (unsigned i = 0; i < n; i++) {
        int64_t id = (int64_t)i * 7919 % 1000003;
        int32_t v = (int32_t)i;
        cf_slice nm = {(const uint8_t *)"name", 4};
        const void *vals[3] = {&id, &nm, &v};
        if ((st = cf_table_insert(t, vals, cf_table_last_ts(t) + 1, &e)))
            bench_die("insert", st, &e);
        if ((st = cf_table_flush(t, &e)))
            bench_die("flush", st, &e);
    }
    printf("built %u rowsets in %.2f s\n", (unsigned)cf_table_rowset_count(t), bench_wall() - t0);
    cf_table_free(t);
time_open:
    for (int ro = 0; ro < 2; ro++) {
        cf_table_options o;
        cf_table_options_init(&o);
        o.read_only = ro;
        double best = 1e9, look = 0;
        for (int rep = 0; rep < 5; rep++) {
            t0 = bench_wall();
            if ((st = cf_table_open(&t, dir, &o, &e)))
                bench_die("open", st, &e);
            double d = bench_wall() - t0;
            if (d < best)
                best = d;
            int64_t id = 7919;
            const void *key[1] = {&id};
            cf_row_batch b;
            t0 = bench_wall();
            if ((st = cf_table_get(t, key, CF_SNAPSHOT_LATEST, &b, &e)))
                bench_die("get", st, &e);
            look = bench_wall() - t0;
            cf_table_free(t);
        }
        printf("open %s, %u rowsets: %.1f ms (best of 5); first lookup after it %.3f ms\n",
               ro ? "read-only" : "for writing", n, best * 1e3, look * 1e3);
    }
    return 0;
}

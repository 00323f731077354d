/* Point lookups only, on a rowset bench_rowset wrote (its 6-column table), so
 * two builds can be alternated on the same files: REPS repetitions of LOOKUPS
 * random cf_rowset_get calls on one open rowset (one key in three exists, as in
 * bench_rowset), each reported as lookups per wall second and per CPU second
 * of this process (the machine may be shared). Every found row is checked
 * against the values bench_rowset wrote, so a fast wrong answer fails.
 * usage: bench_lookup DIR [LOOKUPS] [CACHE_MB] [REPS] [SEED]
 *   (LOOKUPS default 40000, CACHE_MB default CF_ROWSET_DEFAULT_CACHE_BYTES, REPS 3)
 * make the table with: bench_rowset ROWS DIR 0 */
/* cf-needs: tables */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cfile/cfile.h>
#include <cfile/rowset.h>

#define BENCH_NAME "bench_lookup"
#include "bench_util.h"

/* The row bench_rowset wrote for ordinal i (key 3i). */
static void check_row(const cf_row_batch *b, int64_t key)
{
    uint64_t i = (uint64_t)key / 3;
    char name[24], note[24];
    int nl = snprintf(name, sizeof(name), "user%07" PRIu64, i % 1000000);
    int tl = snprintf(note, sizeof(note), "n%" PRIu64, i % 97);
    const cf_slice *nm = b->cols[1].values, *nt = b->cols[5].values;
    bool note_null = b->cols[5].nonnull != NULL && !(b->cols[5].nonnull[0] & 1);
    bool ok = b->count == 1 && b->ncols == 6 && *(const int64_t *)b->cols[0].values == key &&
              nm->len == (size_t)nl && memcmp(nm->data, name, (size_t)nl) == 0 &&
              *(const int32_t *)b->cols[2].values == (int32_t)(i % 1000) &&
              fabs(*(const double *)b->cols[3].values - (double)(i % 10007) * 0.01) < 1e-9 &&
              *(const int64_t *)b->cols[4].values == 1700000000000000ll + (int64_t)i * 1000 &&
              (i % 10 == 0 ? note_null
                           : !note_null && nt->len == (size_t)tl &&
                                 memcmp(nt->data, note, (size_t)tl) == 0);
    if (!ok) {
        fprintf(stderr, "bench_lookup: key %" PRId64 ": wrong row\n", key);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_lookup DIR [LOOKUPS] [CACHE_MB] [REPS] [SEED]\n");
        return 2;
    }
    const char *dir = argv[1];
    uint64_t lookups = argc > 2 ? strtoull(argv[2], NULL, 10) : 40000;
    int reps = argc > 4 ? atoi(argv[4]) : 3;
    uint64_t seed = argc > 5 ? strtoull(argv[5], NULL, 10) : 12345;
    cf_error e;
    cf_status st;
    cf_rowset *rs;
    cf_rowset_options ro;
    cf_rowset_options_init(&ro);
    ro.read_only = true;
    if (argc > 3)
        ro.cache_bytes = (size_t)strtoull(argv[3], NULL, 10) << 20;
    if ((st = cf_rowset_open(&rs, dir, &ro, &e)))
        bench_die("open", st, &e);
    cf_rowset_info info;
    cf_rowset_get_info(rs, &info);
    uint64_t rows = info.rows;
    for (int r = 0; r < reps; r++) {
        uint64_t found = 0;
        double w0 = bench_clock(CLOCK_MONOTONIC), c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
        for (uint64_t i = 0; i < lookups; i++) {
            int64_t key = bench_lookup_key(&seed, rows);
            const void *k[1] = {&key};
            cf_row_batch b;
            st = cf_rowset_get(rs, k, CF_SNAPSHOT_LATEST, &b, &e);
            if (st == CF_OK) {
                found++;
                check_row(&b, key);
            } else if (st != CF_ENOTFOUND) {
                bench_die("get", st, &e);
            }
            if ((st == CF_OK) != (key % 3 == 0)) {
                fprintf(stderr, "bench_lookup: key %" PRId64 ": found=%d\n", key, st == CF_OK);
                return 1;
            }
        }
        double w = bench_clock(CLOCK_MONOTONIC) - w0,
               c = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
        printf("rep %d: %" PRIu64 " lookups (%" PRIu64 " found) wall %.3f s = %.0f/s, cpu %.3f s "
               "= %.0f/cpu-s\n",
               r + 1, lookups, found, w, lookups / w, c, lookups / c);
    }
    cf_cache *c = cf_rowset_cache(rs);
    if (c != NULL) {
        cf_cache_stats cs;
        cf_cache_get_stats(c, &cs);
        printf("cache: %zu MiB capacity, %" PRIu64 " entries, %.1f MB, %" PRIu64 " hits, %" PRIu64
               " misses, %" PRIu64 " evictions\n",
               cs.capacity >> 20, (uint64_t)cs.entries, cs.bytes / 1e6, (uint64_t)cs.hits,
               (uint64_t)cs.misses, (uint64_t)cs.evictions);
    }
    cf_rowset_free(rs);
    return 0;
}

/* bench/ab/ab.h: what the A/B harnesses (prefix_ab.c, scan_ab.c) share: thread
 * CPU time, a sort order for medians, a status check that names the harness,
 * and main: "PROG seek|scan FILE CACHE_MB N" opens FILE, with a block cache of
 * CACHE_MB MiB (0: none), and runs the harness's seek or scan function. Header
 * only: each harness is one translation unit that the bench/ab scripts compile
 * against each build in turn. */
#ifndef CF_BENCH_AB_H
#define CF_BENCH_AB_H

#define _GNU_SOURCE
#include <cfile/cfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *ab_prog = "ab";

static inline double ab_cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static inline int ab_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static inline void ab_check(cf_status st, const cf_error *e, const char *what)
{
    if (st != CF_OK) {
        fprintf(stderr, "%s: %s: %s\n", ab_prog, what, e->msg);
        exit(1);
    }
}

/* One full scan by a new iterator, in cap-row copy batches into vals and
 * nonnull (NULL for a column without NULLs). each, when given, sees every batch
 * (the last one empty) with its row count; the rows must add up to the file's. */
static inline void ab_scan_once(cf_reader *r, void *vals, uint8_t *nonnull, size_t cap,
                                void (*each)(void *ctx, size_t got), void *ctx)
{
    cf_error e = {0};
    cf_iter *it;
    ab_check(cf_iter_create(&it, r, &e), &e, "iterator");
    ab_check(cf_iter_seek_to_first(it, &e), &e, "seek to first");
    size_t got, total = 0;
    do {
        ab_check(cf_iter_copy_batch(it, vals, nonnull, cap, &got, &e), &e, "copy");
        total += got;
        if (each != NULL)
            each(ctx, got);
    } while (got > 0);
    cf_iter_free(it);
    uint64_t want = cf_reader_info(r)->num_values;
    if (total != want) {
        fprintf(stderr, "%s: scanned %zu of %llu rows\n", ab_prog, total, (unsigned long long)want);
        exit(1);
    }
}

typedef void ab_run_fn(cf_reader *r, size_t n);

static inline int ab_main(int argc, char **argv, const char *prog, ab_run_fn *seek, ab_run_fn *scan)
{
    ab_prog = prog;
    if (argc != 5 || (strcmp(argv[1], "seek") != 0 && strcmp(argv[1], "scan") != 0)) {
        fprintf(stderr, "usage: %s seek|scan FILE CACHE_MB N\n", prog);
        return 2;
    }
    cf_error e = {0};
    size_t cache_mb = strtoul(argv[3], NULL, 10), n = strtoul(argv[4], NULL, 10);
    if (n == 0)
        n = 1;
    cf_cache *cache = NULL;
    if (cache_mb)
        ab_check(cf_cache_create(&cache, cache_mb << 20, &e), &e, "cache");
    cf_reader_options opts;
    cf_reader_options_init(&opts);
    opts.cache = cache;
    cf_reader *r;
    ab_check(cf_reader_open_file(&r, argv[2], false, &opts, &e), &e, argv[2]);
    (strcmp(argv[1], "seek") == 0 ? seek : scan)(r, n);
    cf_reader_free(r);
    cf_cache_free(cache);
    return 0;
}

#endif

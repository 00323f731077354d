/* bench/ab/prefix_ab: PREFIX value seeks and scans through the public API, for
 * comparing two builds of the library in one run (bench/ab/prefix_ab.sh links
 * it against each build's libcfile.so in turn and alternates them).
 *
 *   prefix_ab seek FILE CACHE_MB N   mean thread CPU ns per value seek (N keys:
 *                                    values at random rows, every other one made
 *                                    absent by a trailing NUL; each seek followed
 *                                    by a one-row copy; best of two passes after
 *                                    a warm-up pass; answers checked)
 *   prefix_ab scan FILE CACHE_MB N   median thread CPU ms of N full scans (a new
 *                                    iterator each, 1024-row copy batches into one
 *                                    buffer, after an untimed scan) and minor page
 *                                    faults per scan
 *
 * CACHE_MB 0: no block cache (every block read with pread and its checksum
 * checked, "cold" in bench/PERFORMANCE-notes.md); otherwise a cache of that
 * size, warmed by the untimed pass ("warm"). Thread CPU time: the machines
 * these run on are shared, and time spent descheduled is not ours. */
#include "ab.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static void run_seeks(cf_reader *r, size_t n)
{
    cf_error e = {0};
    const cf_file_info *fi = cf_reader_info(r);
    cf_iter *it;
    ab_check(cf_iter_create(&it, r, &e), &e, "iterator");
    cf_slice *keys = calloc(n, sizeof *keys);
    uint64_t s = 42;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        cf_slice v;
        size_t got;
        ab_check(cf_iter_seek_to_ordinal(it, s % fi->num_values, &e), &e, "seek to ordinal");
        ab_check(cf_iter_copy_batch(it, &v, NULL, 1, &got, &e), &e, "copy");
        uint8_t *b = malloc(v.len + 1);
        memcpy(b, v.data, v.len);
        b[v.len] = 0;
        keys[i] = (cf_slice){b, v.len + (i % 2)};
    }
    double best = 0;
    for (int pass = 0; pass < 3; pass++) {
        double t0 = ab_cpu_ns();
        for (size_t i = 0; i < n; i++) {
            bool exact;
            cf_slice v;
            size_t got;
            cf_status st = cf_iter_seek_at_or_after(it, &keys[i], &exact, &e);
            if (st == CF_ENOTFOUND)
                continue;
            ab_check(st, &e, "value seek");
            ab_check(cf_iter_copy_batch(it, &v, NULL, 1, &got, &e), &e, "copy");
            if (exact != (i % 2 == 0) ||
                (exact && (v.len != keys[i].len || memcmp(v.data, keys[i].data, v.len) != 0))) {
                fprintf(stderr, "prefix_ab: wrong answer for key %zu\n", i);
                exit(1);
            }
        }
        double t = (ab_cpu_ns() - t0) / (double)n;
        if (pass == 1 || (pass > 1 && t < best))
            best = t;
    }
    printf("%.1f\n", best);
    for (size_t i = 0; i < n; i++)
        free((void *)keys[i].data);
    free(keys);
    cf_iter_free(it);
}

static void run_scans(cf_reader *r, size_t n)
{
    static cf_slice buf[1024];
    double *ts = calloc(n, sizeof *ts);
    struct rusage ru0 = {0}, ru1;
    for (size_t k = 0; k <= n; k++) {
        if (k == 1)
            getrusage(RUSAGE_THREAD, &ru0);
        double t0 = ab_cpu_ns();
        ab_scan_once(r, buf, NULL, 1024, NULL, NULL);
        if (k > 0)
            ts[k - 1] = (ab_cpu_ns() - t0) / 1e6;
    }
    getrusage(RUSAGE_THREAD, &ru1);
    qsort(ts, n, sizeof *ts, ab_cmp_double);
    printf("%.3f %.1f\n", ts[n / 2], (double)(ru1.ru_minflt - ru0.ru_minflt) / (double)n);
    free(ts);
}

int main(int argc, char **argv)
{
    return ab_main(argc, argv, "prefix_ab", run_seeks, run_scans);
}

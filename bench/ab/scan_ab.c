/* bench/ab/scan_ab: full scans and ordinal seeks of any CFile through the
 * public API, for comparing two builds of the library in one run
 * (bench/ab/scan_ab.sh compiles it against each build's headers, links it to
 * that build's libcfile.so and alternates the two).
 *
 *   scan_ab scan FILE CACHE_MB N   median thread CPU ms of N full scans (a new
 *                                  iterator each, 1024-row copy batches into
 *                                  one buffer, after an untimed scan); the
 *                                  rows and non-NULL count are checked
 *   scan_ab seek FILE CACHE_MB N   mean thread CPU ns of an ordinal seek to a
 *                                  random row and a one-row copy (N seeks,
 *                                  best of two passes after a warm-up pass)
 *
 * CACHE_MB 0: no block cache (every block read with pread and its checksum
 * checked); otherwise a cache of that size, warmed by the untimed pass.
 * Thread CPU time, because the machines these run on are shared and time
 * spent descheduled is not ours. The program prints a checksum of what it
 * read on stderr so the two builds can be seen to agree. */
#include "ab.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { BATCH = 1024 };

/* FNV-1a over the bytes a scan hands out (slices by their contents), so a
 * difference between the two builds' answers shows. */
static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t digest(const cf_file_info *fi, const void *vals, const uint8_t *nn, size_t got)
{
    uint64_t h = 0xcbf29ce484222325ull;
    size_t w = cf_type_size(fi->type);
    for (size_t i = 0; i < got; i++) {
        if (nn != NULL && !(nn[i / 8] >> (i % 8) & 1))
            continue;
        const uint8_t *v = (const uint8_t *)vals + i * w;
        if (cf_type_is_binary(fi->type)) {
            const cf_slice *s = (const cf_slice *)v;
            h = mix(h, s->data, s->len);
        } else {
            h = mix(h, v, w);
        }
    }
    return h;
}

/* The digest of a scan's batches, each mixed with the rows so far. */
typedef struct scan_digest {
    const cf_file_info *fi;
    const void *vals;
    const uint8_t *nonnull;
    size_t total;
    uint64_t sum;
} scan_digest;

static void digest_batch(void *ctx, size_t got)
{
    scan_digest *d = ctx;
    d->total += got;
    d->sum ^= digest(d->fi, d->vals, d->nonnull, got) + d->total;
}

static void run_scans(cf_reader *r, size_t n)
{
    const cf_file_info *fi = cf_reader_info(r);
    void *vals = malloc(BATCH * cf_type_size(fi->type));
    uint8_t nn_buf[BATCH / 8], *nn = fi->nullable ? nn_buf : NULL;
    double *ts = calloc(n, sizeof *ts);
    scan_digest d = {fi, vals, nn, 0, 0};
    for (size_t k = 0; k <= n; k++) {
        double t0 = ab_cpu_ns();
        ab_scan_once(r, vals, nn, BATCH, k == 0 ? digest_batch : NULL, &d);
        if (k > 0)
            ts[k - 1] = (ab_cpu_ns() - t0) / 1e6;
    }
    qsort(ts, n, sizeof *ts, ab_cmp_double);
    printf("%.3f\n", ts[n / 2]);
    fprintf(stderr, "digest %016llx\n", (unsigned long long)d.sum);
    free(ts);
    free(vals);
}

static void run_seeks(cf_reader *r, size_t n)
{
    cf_error e = {0};
    const cf_file_info *fi = cf_reader_info(r);
    void *val = malloc(cf_type_size(fi->type));
    uint8_t nn[1];
    cf_iter *it;
    ab_check(cf_iter_create(&it, r, &e), &e, "iterator");
    double best = 0;
    uint64_t sum = 0;
    for (int pass = 0; pass < 3; pass++) {
        uint64_t s = 42;
        double t0 = ab_cpu_ns();
        for (size_t i = 0; i < n; i++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            size_t got;
            ab_check(cf_iter_seek_to_ordinal(it, s % fi->num_values, &e), &e, "seek to ordinal");
            ab_check(cf_iter_copy_batch(it, val, fi->nullable ? nn : NULL, 1, &got, &e), &e,
                     "copy");
            if (pass == 0)
                sum ^= digest(fi, val, fi->nullable ? nn : NULL, got) + i;
        }
        double t = (ab_cpu_ns() - t0) / (double)n;
        if (pass == 1 || (pass > 1 && t < best))
            best = t;
    }
    printf("%.1f\n", best);
    fprintf(stderr, "digest %016llx\n", (unsigned long long)sum);
    cf_iter_free(it);
    free(val);
}

int main(int argc, char **argv)
{
    return ab_main(argc, argv, "scan_ab", run_seeks, run_scans);
}

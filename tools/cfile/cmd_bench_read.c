/* `cfile bench read`: full scans of a CFile (view or copy batches, several
 * threads, a cold page cache) timed against memcpy of the same bytes. */
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "datasets.h"
#include "json.h"

/* ---- read ------------------------------------------------------------------------------ */

typedef struct scan_job {
    const cf_reader *r;
    uint64_t start, end; /* ordinal range */
    size_t batch;
    bool view;
    bool count_bytes;        /* sum the decoded bytes (untimed scans only) */
    uint8_t *vals, *nonnull; /* reused buffers (copy mode) */
    uint64_t rows, bytes;    /* what the scan saw */
    double secs;
    cf_status st;
    cf_error err;
} scan_job;

/* Decoded bytes (documented in the usage text): fixed-width values at their
 * memory size, or binary values' bytes plus a 4-byte length each. */
static uint64_t batch_bytes(const cf_file_info *fi, const void *vals, size_t n, size_t elems)
{
    if (!cf_type_is_binary(fi->type))
        return (uint64_t)(fi->is_array ? elems : n) * cf_type_size(fi->type);
    const cf_slice *s = vals;
    uint64_t b = 0;
    size_t k = fi->is_array ? elems : n;
    for (size_t i = 0; i < k; i++)
        b += s[i].len + 4;
    return b;
}

static void *scan_range(void *arg)
{
    scan_job *j = arg;
    const cf_file_info *fi = cf_reader_info(j->r);
    cf_iter *it = NULL;
    double t0 = cf_cli_now_s();
    j->rows = j->bytes = 0;
    j->st = cf_iter_create(&it, j->r, &j->err);
    if (j->st == CF_OK && j->start > 0 && j->start < fi->num_values)
        j->st = cf_iter_seek_to_ordinal(it, j->start, &j->err);
    bool copy = !j->view && !fi->is_array;
    uint64_t left = j->end > j->start ? j->end - j->start : 0;
    while (j->st == CF_OK && left > 0) {
        size_t want = left < j->batch ? (size_t)left : j->batch, n, elems = 0;
        const void *v;
        if (copy) {
            j->st = cf_iter_copy_batch(it, j->vals, fi->nullable ? j->nonnull : NULL, want, &n,
                                       &j->err);
            v = j->vals;
        } else {
            cf_batch b;
            j->st = cf_iter_next_batch(it, want, &b, &j->err);
            n = b.count;
            elems = b.elem_count;
            v = b.values;
        }
        if (j->st != CF_OK || n == 0)
            break;
        j->rows += n;
        if (j->count_bytes)
            j->bytes += batch_bytes(fi, v, n, elems);
        left -= n;
    }
    cf_iter_free(it);
    j->secs = cf_cli_now_s() - t0;
    return NULL;
}

/* One timed scan of [0, rows) as `threads` equal ordinal ranges. With bytes
 * not NULL it also sums the decoded bytes: binary ones take a pass over every
 * slice, which is the benchmark's work, not the reader's, so only the untimed
 * warm-up scans count them. */
/* --cold: the file every scan drops from the page cache first (NULL: warm). */
static const char *cold_path;

static cf_status drop_page_cache(const char *path, cf_error *err)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return cf_bench_fail(err, CF_EIO, "--cold: cannot open the file again");
    /* Dirty pages are not dropped: write them out first. */
    int rc = fdatasync(fd);
    if (rc == 0)
        rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
    return rc == 0 ? CF_OK
                   : cf_bench_fail(err, CF_EIO, "--cold: cannot drop the file's cached pages");
}

static cf_status timed_scan(const cf_reader *r, size_t batch, bool view, unsigned threads,
                            scan_job *jobs, double *secs, uint64_t *bytes, cf_error *err)
{
    uint64_t nv = cf_reader_info(r)->num_values;
    pthread_t th[64];
    if (cold_path != NULL) {
        cf_status cst = drop_page_cache(cold_path, err);
        if (cst != CF_OK)
            return cst;
    }
    double t0 = cf_cli_now_s();
    for (unsigned t = 0; t < threads; t++) {
        jobs[t].r = r;
        jobs[t].start = nv * t / threads;
        jobs[t].end = nv * (t + 1) / threads;
        jobs[t].batch = batch;
        jobs[t].view = view;
        jobs[t].count_bytes = bytes != NULL;
        if (threads == 1)
            scan_range(&jobs[t]);
        else if (pthread_create(&th[t], NULL, scan_range, &jobs[t]) != 0)
            return cf_bench_fail(err, CF_ENOMEM, "cannot start a thread");
    }
    if (threads > 1)
        for (unsigned t = 0; t < threads; t++)
            pthread_join(th[t], NULL);
    *secs = cf_cli_now_s() - t0;
    uint64_t rows = 0, sum = 0;
    for (unsigned t = 0; t < threads; t++) {
        if (jobs[t].st != CF_OK) {
            *err = jobs[t].err;
            return jobs[t].st;
        }
        rows += jobs[t].rows;
        sum += jobs[t].bytes;
    }
    if (bytes)
        *bytes = sum;
    if (rows != nv)
        return cf_bench_fail(err, CF_ECORRUPT, "a scan did not see every row");
    return CF_OK;
}

/* K scans; *med and *best in seconds. */
static cf_status scans(const cf_reader *r, size_t batch, bool view, unsigned threads,
                       unsigned iters, scan_job *jobs, double *med, double *best, uint64_t *bytes,
                       cf_error *err)
{
    double *t = calloc(iters, sizeof *t);
    if (t == NULL)
        return CF_ENOMEM;
    cf_status st = CF_OK;
    for (unsigned k = 0; k < iters && st == CF_OK; k++)
        st = timed_scan(r, batch, view, threads, jobs, &t[k], bytes, err);
    if (st == CF_OK) {
        *med = cf_bench_median(t, iters);
        *best = t[0];
    }
    free(t);
    return st;
}

/* The memcpy reference: the scan's decoded bytes copied from one buffer of
 * that size, 64-byte aligned as the block cache aligns PLAIN values, in
 * batch-sized pieces into the scan's own reused batch buffer: the same bytes,
 * chunking and destination as a copy-mode scan. */
typedef struct memcpy_ref {
    uint8_t *src, *dst;
    uint64_t bytes;
    size_t chunk;
} memcpy_ref;

static bool memcpy_ref_init(memcpy_ref *m, uint64_t bytes, size_t chunk, uint8_t *dst)
{
    m->bytes = bytes;
    m->chunk = chunk;
    m->dst = dst;
    m->src = bytes ? aligned_alloc(64, (size_t)(bytes + 63) & ~(size_t)63) : NULL;
    if (m->src == NULL || m->dst == NULL || chunk == 0)
        return false;
    memset(m->src, 0x5a, bytes); /* fault the pages in before timing */
    return true;
}

static double memcpy_once(const memcpy_ref *m)
{
    volatile uint8_t sink = 0;
    double t0 = cf_cli_now_s();
    for (uint64_t off = 0; off < m->bytes; off += m->chunk) {
        size_t n = m->bytes - off < m->chunk ? (size_t)(m->bytes - off) : m->chunk;
        memcpy(m->dst, m->src + off, n);
        /* Keep the copy observable so it is not elided. */
        sink ^= m->dst[n - 1];
    }
    (void)sink;
    return cf_cli_now_s() - t0;
}

/* K pairs of one timed scan and one timed memcpy of the same bytes, which
 * goes first alternating, each timed run right after an untimed run of the
 * same kind. A pair's two runs are moments apart, so load drifting on a
 * shared VM moves both sides of its ratio; the untimed runs give each side
 * its own data in the caches, as back-to-back runs of one kind would (were
 * the two interleaved bare, each would find the other's data there and a
 * file larger than the caches' share would leave both bound by DRAM, hiding
 * the reader's overhead). Medians of each side, and *ratio the median of the
 * K pair ratios (memcpy / scan; 0 without a reference). bytes: the decoded
 * bytes the caller's warm-up scan counted. */
static cf_status scans_vs_memcpy(const cf_reader *r, size_t batch, bool view, unsigned iters,
                                 scan_job *jobs, double *med, double *best, double *mc_med,
                                 double *mc_best, double *ratio, uint64_t bytes, cf_error *err)
{
    double *t = calloc(iters, sizeof *t), *m = calloc(iters, sizeof *m),
           *q = calloc(iters, sizeof *q);
    memcpy_ref ref = {0};
    cf_status st = CF_OK;
    if (t == NULL || m == NULL || q == NULL) {
        st = CF_ENOMEM;
        goto out;
    }
    /* Binary values: the average bytes of one batch of rows. */
    uint64_t nv = cf_reader_info(r)->num_values;
    size_t chunk = nv ? (size_t)((bytes * batch + nv - 1) / nv) : 0;
    if (!cf_type_is_binary(cf_reader_info(r)->type))
        chunk = batch * cf_type_size(cf_reader_info(r)->type);
    /* Binary batches copy more bytes than their slices fill: a buffer of their own. */
    uint8_t *own = chunk > batch * cf_type_size(cf_reader_info(r)->type) ? malloc(chunk) : NULL;
    bool have_ref = memcpy_ref_init(&ref, bytes, chunk, own ? own : jobs[0].vals);
    for (unsigned k = 0; k < iters && st == CF_OK; k++) {
        for (unsigned side = 0; side < 2 && st == CF_OK; side++) {
            if ((side + k) % 2 == 0) {
                double untimed;
                st = timed_scan(r, batch, view, 1, jobs, &untimed, NULL, err);
                if (st == CF_OK)
                    st = timed_scan(r, batch, view, 1, jobs, &t[k], NULL, err);
            } else if (have_ref) {
                memcpy_once(&ref);
                m[k] = memcpy_once(&ref);
            }
        }
        q[k] = have_ref && t[k] > 0 ? m[k] / t[k] : 0;
    }
    if (st == CF_OK) {
        *ratio = cf_bench_median(q, iters);
        *med = cf_bench_median(t, iters); /* sorts: [0] is then the best */
        *best = t[0];
        *mc_med = cf_bench_median(m, iters);
        *mc_best = m[0];
    }
    free(own);
out:
    free(ref.src);
    free(t);
    free(m);
    free(q);
    return st;
}

int cf_bench_read(cf_cli *c, int argc, char **argv)
{
    uint64_t iters = 5, batch = CF_CLI_BATCH, threads = 1, cache_mb = 0;
    bool mmap = false, view = false, no_cksum = false, cold = false, no_memcpy = false;
    const char *path;
    const cf_bench_opt opts[] = {
        {"iters", 'k', CF_BENCH_COUNT, &iters, NULL},
        {"batch", 'b', CF_BENCH_COUNT, &batch, NULL},
        {"mmap", 'm', CF_BENCH_FLAG, &mmap, NULL},
        {"view", 'v', CF_BENCH_FLAG, &view, NULL},
        {"threads", 't', CF_BENCH_COUNT, &threads, NULL},
        {"cache", 'c', CF_BENCH_COUNT, &cache_mb, NULL},
        {"no-checksum-cost", 'x', CF_BENCH_FLAG, &no_cksum, NULL},
        {"cold", 0, CF_BENCH_FLAG, &cold, NULL},
        {"no-memcpy", 0, CF_BENCH_FLAG, &no_memcpy, NULL},
        {NULL, 0, 0, NULL, NULL},
    };
    int rc = cf_bench_parse_opts(c, argc, argv, opts, "FILE", &path);
    if (rc >= 0)
        return rc;
    if (iters == 0 || iters > 1000 || batch == 0 || batch > (1u << 24) || threads == 0 ||
        threads > 64)
        return cf_cli_usage(c, "--iters 1..1000, --batch 1..16M, --threads 1..64");
    if (cold && mmap)
        return cf_cli_usage(c, "--cold reads with pread: not with --mmap");
    cold_path = cold ? path : NULL;
    cf_error e = {0};
    cf_cache *cache = NULL, *cache2 = NULL;
    cf_reader *r = NULL, *r2 = NULL;
    scan_job *jobs = calloc(threads, sizeof *jobs);
    int ret = CF_EXIT_FAIL;
    cf_status st = CF_OK;
    if (jobs == NULL)
        goto out;
    if (cache_mb && (st = cf_cache_create(&cache, (size_t)cache_mb << 20, &e)) != CF_OK)
        goto out;
    if ((st = cf_bench_open_reader(&r, path, mmap, true, cache, &e)) != CF_OK)
        goto out;
    const cf_file_info *fi = cf_reader_info(r);
    size_t es = cf_type_size(fi->type);
    for (unsigned t = 0; t < threads; t++) {
        jobs[t].vals = malloc((size_t)batch * es);
        jobs[t].nonnull = malloc((size_t)batch / 8 + 1);
        if (jobs[t].vals == NULL || jobs[t].nonnull == NULL)
            goto out;
    }
    double med, best, mc_best = 0, nv_med = 0, nv_best, th_med = 0, th_best;
    uint64_t bytes = 0;
    double mc_med = 0, ratio = 0;
    /* One untimed scan warms the page cache (and the block cache) and counts the
     * decoded bytes. --no-memcpy: no bytes to copy, so no reference runs and the
     * process's CPU time is the scans' alone (bench/kudu_oracle.sh compares it
     * with the peer's). */
    if ((st = scans(r, batch, view, 1, 1, jobs, &med, &best, &bytes, &e)) != CF_OK ||
        (st = scans_vs_memcpy(r, batch, view, (unsigned)iters, jobs, &med, &best, &mc_med, &mc_best,
                              &ratio, no_memcpy ? 0 : bytes, &e)) != CF_OK)
        goto out;
    if (!no_cksum && (fi->incompatible_features & CF_FEATURE_CHECKSUM)) {
        /* The same configuration with verification off: with --cache a cache
         * of its own (warmed the same way), so that the difference is what
         * checksums cost that configuration, not cache against no cache. */
        if ((cache_mb && (st = cf_cache_create(&cache2, (size_t)cache_mb << 20, &e)) != CF_OK) ||
            (st = cf_bench_open_reader(&r2, path, mmap, false, cache2, &e)) != CF_OK ||
            (st = scans(r2, batch, view, 1, 1, jobs, &nv_med, &nv_best, NULL, &e)) != CF_OK ||
            (st = scans(r2, batch, view, 1, (unsigned)iters, jobs, &nv_med, &nv_best, NULL, &e)) !=
                CF_OK)
            goto out;
    }
    if (threads > 1 && (st = scans(r, batch, view, (unsigned)threads, (unsigned)iters, jobs,
                                   &th_med, &th_best, NULL, &e)) != CF_OK)
        goto out;
    FILE *f = c->out;
    cf_bench_json_header(f, "read", path, fi);
    fprintf(f, ",\"iters\":%" PRIu64 ",\"batch\":%" PRIu64 ",\"mmap\":%s,\"view\":%s", iters, batch,
            mmap ? "true" : "false", view ? "true" : "false");
    fprintf(f, ",\"cold\":%s", cold ? "true" : "false");
    fprintf(f, ",\"decoded_bytes\":%" PRIu64 ",\"best_s\":%.6f,\"median_s\":%.6f", bytes, best,
            med);
    fprintf(f, ",\"values_per_s\":%.0f,\"mb_per_s\":%.1f", (double)fi->num_values / med,
            (double)bytes / med / 1e6);
    fprintf(f, ",\"memcpy_best_s\":%.6f,\"memcpy_median_s\":%.6f,\"memcpy_mb_per_s\":%.1f", mc_best,
            mc_med, mc_med > 0 ? (double)bytes / mc_med / 1e6 : 0);
    /* > 1 means the decode beat memcpy of the same bytes (median of pairs).
     * The ratio of the best times as well: on a loaded VM a run of a few ms is
     * often preempted, which only ever adds time, so bests are the steadier
     * estimate when many pairs are hit. */
    fprintf(f, ",\"ratio_vs_memcpy\":%.3f,\"best_ratio_vs_memcpy\":%.3f", ratio,
            best > 0 ? mc_best / best : 0);
    if (nv_med > 0)
        fprintf(f, ",\"nocksum_median_s\":%.6f,\"checksum_cost\":%.4f", nv_med,
                (med - nv_med) / med);
    if (threads > 1)
        fprintf(f, ",\"threads\":%" PRIu64 ",\"threads_median_s\":%.6f,\"speedup\":%.3f", threads,
                th_med, th_med > 0 ? med / th_med : 0);
    cf_bench_json_cache(f, cache);
    fprintf(f, "}\n");
    ret = CF_EXIT_OK;
out:
    if (ret != CF_EXIT_OK)
        ret = st != CF_OK ? cf_cli_lib_fail(c, path, st, &e) : cf_cli_fail(c, "out of memory");
    for (unsigned t = 0; jobs && t < threads; t++) {
        free(jobs[t].vals);
        free(jobs[t].nonnull);
    }
    free(jobs);
    cf_reader_free(r2);
    cf_reader_free(r);
    cf_cache_free(cache2);
    cf_cache_free(cache);
    return ret;
}

/* cfile bench: read, seek and write benchmarks with JSON output, and the
 * deterministic data sets `make bench` (bench/run_bench.sh) writes with them.
 *
 * Timing is wall clock (CLOCK_MONOTONIC); every figure is a median over
 * repetitions, and every ratio compares two numbers measured in this process
 * one after the other, because the machines we run on are noisy VMs.
 */
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cfile/rowset.h>

#include "cli.h"
#include "datasets.h"
#include "json.h"
#include "table_args.h"

const char cf_cmd_bench_usage[] =
    "usage: cfile bench read FILE [--iters K] [--batch N] [--mmap] [--view] [--threads T]\n"
    "                          [--cache MB] [--no-checksum-cost] [--cold]\n"
    "       cfile bench seek FILE --mode ordinal|value [--n N] [--mmap] [--cache MB]\n"
    "                          [--keys-out PATH]\n"
    "       cfile bench write --dataset NAME [--rows N] [--encoding E] [--compression C]\n"
    "                          [--iters K] [--out FILE] [--values-out PATH]\n"
    "       cfile bench scan DIR [--threads T[,T...]] [--iters K] [--batch N]\n"
    "                          [--columns a,b] [--where \"COL OP VALUE [AND ...]\"]\n"
    "\n"
    "Benchmarks; each prints one JSON object (--json is accepted and changes nothing).\n"
    "\n"
    "read   open FILE once, scan it once untimed, then K times (default 5) in batches\n"
    "       of N rows (default 1024) copied into one reused buffer (--view: take the\n"
    "       iterator's views, zero-copy where the file is mmap'd and PLAIN), each scan\n"
    "       paired with a memcpy of the same bytes from one 64-byte aligned buffer into\n"
    "       that batch buffer, N rows' worth at a time (order alternating by pair;\n"
    "       each timed run right after an untimed one of its kind).\n"
    "       Decoded bytes: cf_type_size per value for fixed-width types (NULL rows\n"
    "       included); for binary types the value bytes plus 4 per value (a length,\n"
    "       as in an offsets + data column), not the 16-byte slices handed out.\n"
    "       Reports best and median seconds, values/s, decoded MB/s, the memcpy\n"
    "       figures and decode/memcpy (median of the pair ratios, and the ratio of\n"
    "       the best times; > 1: faster than memcpy); the cost of checksums (a second\n"
    "       reader with verification off); with --threads T > 1 the file is also\n"
    "       scanned as T ordinal ranges by T iterators over one reader, and the\n"
    "       speedup reported. --cold drops FILE from the page cache (fdatasync +\n"
    "       posix_fadvise DONTNEED, untimed) before every scan, so each one reads\n"
    "       from the disk (pread only: not with --mmap).\n"
    "seek   N (default 100000) random seeks, each reading one row, timed one by one\n"
    "       after an untimed warm-up pass over the same targets. --mode value seeks\n"
    "       need a value index; half of their keys are absent (value + 1, string +\n"
    "       \"\\0\"). Reports seeks/s, mean, p50 and p99 in microseconds, and the\n"
    "       block cache's counters with --cache. --keys-out writes the value-seek\n"
    "       keys for bench_peers (int64: 8-byte LE each; strings: u32 LE length +\n"
    "       bytes).\n"
    "write  generate a data set (see below) and time encode + compress + index +\n"
    "       write into memory, K times (default 3); with --out also write FILE and\n"
    "       report the writer's peak memory (RSS growth during that write).\n"
    "       --values-out writes the values as --keys-out does.\n"
    "scan   a scan of the table in DIR (read-only; projection and predicates as\n"
    "       `cfile table scan`), once untimed, then K times (default 5) with each\n"
    "       thread count of --threads (cf_rs_scan_options.threads; default 1,2),\n"
    "       the counts alternating. Reports per count the best and median wall\n"
    "       seconds and the median process CPU seconds (all threads): on a busy\n"
    "       machine compare CPU, and wall only from a quiet run.\n"
    "\n"
    "data sets (deterministic): int32_random, int64_sorted (value index),\n"
    "int32_small (0..999), int32_runs, double_walk, string_zipf (1000 words),\n"
    "string_keys (sorted user%010d, value index), bool_runs, int64_nullable (20% NULL)\n";

/* ---- timing ---------------------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts v. */
static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static bool is_binary(cf_type t)
{
    return t == CF_TYPE_STRING || t == CF_TYPE_BINARY || t == CF_TYPE_VARCHAR;
}

static int parse_opt_u64(cf_cli *c, const char *name, uint64_t *out)
{
    if (cf_cli_parse_u64(optarg, out) != 0)
        return cf_cli_usage(c, "--%s: not a number: %s", name, optarg);
    return 0;
}

static cf_status open_reader(cf_reader **out, const char *path, bool mmap, bool verify,
                             cf_cache *cache, cf_error *err)
{
    cf_reader_options o;
    cf_reader_options_init(&o);
    o.verify_checksums = verify;
    o.cache = cache;
    return cf_reader_open_file(out, path, mmap, &o, err);
}

static void json_header(FILE *f, const char *op, const char *path, const cf_file_info *fi)
{
    /* Compact, as every --json; the path through the JSON writer (escaped). */
    fprintf(f, "{\"op\":\"%s\",\"file\":", op);
    cf_jw w;
    cf_jw_init(&w, f);
    cf_jw_cstr(&w, path);
    fprintf(f, ",\"type\":\"%s\",\"encoding\":\"%s\","
               "\"compression\":\"%s\",\"nullable\":%s,\"rows\":%" PRIu64,
            cf_cli_type_name(fi->type), cf_cli_encoding_name(fi->encoding),
            cf_cli_compression_name(fi->compression), fi->nullable ? "true" : "false",
            fi->num_values);
}

static void json_cache(FILE *f, const cf_cache *cache)
{
    if (cache == NULL)
        return;
    cf_cache_stats s;
    cf_cache_get_stats(cache, &s);
    fprintf(f,
            ",\"cache\":{\"capacity\":%zu,\"bytes\":%zu,\"entries\":%zu,\"hits\":%" PRIu64
            ",\"misses\":%" PRIu64 ",\"inserts\":%" PRIu64 ",\"evictions\":%" PRIu64 "}",
            s.capacity, s.bytes, s.entries, s.hits, s.misses, s.inserts, s.evictions);
}

static cf_status fail(cf_error *err, cf_status st, const char *msg)
{
    err->code = st;
    snprintf(err->msg, sizeof err->msg, "%s", msg);
    return st;
}

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
    if (!is_binary(fi->type))
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
    double t0 = now_s();
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
    j->secs = now_s() - t0;
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
        return fail(err, CF_EIO, "--cold: cannot open the file again");
    /* Dirty pages are not dropped: write them out first. */
    int rc = fdatasync(fd);
    if (rc == 0)
        rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
    return rc == 0 ? CF_OK : fail(err, CF_EIO, "--cold: cannot drop the file's cached pages");
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
    double t0 = now_s();
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
            return fail(err, CF_ENOMEM, "cannot start a thread");
    }
    if (threads > 1)
        for (unsigned t = 0; t < threads; t++)
            pthread_join(th[t], NULL);
    *secs = now_s() - t0;
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
        return fail(err, CF_ECORRUPT, "a scan did not see every row");
    return CF_OK;
}

/* K scans; *med and *best in seconds. */
static cf_status scans(const cf_reader *r, size_t batch, bool view, unsigned threads,
                       unsigned iters, scan_job *jobs, double *med, double *best,
                       uint64_t *bytes, cf_error *err)
{
    double *t = calloc(iters, sizeof *t);
    if (t == NULL)
        return CF_ENOMEM;
    cf_status st = CF_OK;
    for (unsigned k = 0; k < iters && st == CF_OK; k++)
        st = timed_scan(r, batch, view, threads, jobs, &t[k], bytes, err);
    if (st == CF_OK) {
        *med = median(t, iters);
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
    double t0 = now_s();
    for (uint64_t off = 0; off < m->bytes; off += m->chunk) {
        size_t n = m->bytes - off < m->chunk ? (size_t)(m->bytes - off) : m->chunk;
        memcpy(m->dst, m->src + off, n);
        /* Keep the copy observable so it is not elided. */
        sink ^= m->dst[n - 1];
    }
    (void)sink;
    return now_s() - t0;
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
    if (!is_binary(cf_reader_info(r)->type))
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
        *ratio = median(q, iters);
        *med = median(t, iters); /* sorts: [0] is then the best */
        *best = t[0];
        *mc_med = median(m, iters);
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

static int bench_read(cf_cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        {"iters", required_argument, NULL, 'k'},  {"batch", required_argument, NULL, 'b'},
        {"mmap", no_argument, NULL, 'm'},         {"view", no_argument, NULL, 'v'},
        {"threads", required_argument, NULL, 't'}, {"cache", required_argument, NULL, 'c'},
        {"no-checksum-cost", no_argument, NULL, 'x'}, {"help", no_argument, NULL, 'h'},
        {"cold", no_argument, NULL, 'C'},         {"json", no_argument, NULL, 'J'},
        {NULL, 0, NULL, 0},
    };
    uint64_t iters = 5, batch = CF_CLI_BATCH, threads = 1, cache_mb = 0;
    bool mmap = false, view = false, cksum = true, cold = false;
    int ch, rc;
    while ((ch = getopt_long(argc, argv, "k:b:mvt:c:xh", opts, NULL)) != -1) {
        switch (ch) {
        case 'k': if ((rc = parse_opt_u64(c, "iters", &iters))) return rc; break;
        case 'b': if ((rc = parse_opt_u64(c, "batch", &batch))) return rc; break;
        case 't': if ((rc = parse_opt_u64(c, "threads", &threads))) return rc; break;
        case 'c': if ((rc = parse_opt_u64(c, "cache", &cache_mb))) return rc; break;
        case 'm': mmap = true; break;
        case 'v': view = true; break;
        case 'x': cksum = false; break;
        case 'C': cold = true; break;
        case 'J': break; /* the report is JSON already: --json is accepted as everywhere */
        case 'h': return cf_cli_help(c);
        default: return cf_cli_bad_option(c, argv);
        }
    }
    if (optind + 1 != argc)
        return cf_cli_usage(c, "read needs exactly one FILE");
    if (iters == 0 || iters > 1000 || batch == 0 || batch > (1u << 24) || threads == 0 ||
        threads > 64)
        return cf_cli_usage(c, "--iters 1..1000, --batch 1..16M, --threads 1..64");
    if (cold && mmap)
        return cf_cli_usage(c, "--cold reads with pread: not with --mmap");
    const char *path = argv[optind];
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
    if ((st = open_reader(&r, path, mmap, true, cache, &e)) != CF_OK)
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
     * decoded bytes. */
    if ((st = scans(r, batch, view, 1, 1, jobs, &med, &best, &bytes, &e)) != CF_OK ||
        (st = scans_vs_memcpy(r, batch, view, (unsigned)iters, jobs, &med, &best, &mc_med,
                              &mc_best, &ratio, bytes, &e)) != CF_OK)
        goto out;
    if (cksum && (fi->incompatible_features & CF_FEATURE_CHECKSUM)) {
        /* The same configuration with verification off: with --cache a cache
         * of its own (warmed the same way), so that the difference is what
         * checksums cost that configuration, not cache against no cache. */
        if ((cache_mb && (st = cf_cache_create(&cache2, (size_t)cache_mb << 20, &e)) != CF_OK) ||
            (st = open_reader(&r2, path, mmap, false, cache2, &e)) != CF_OK ||
            (st = scans(r2, batch, view, 1, 1, jobs, &nv_med, &nv_best, NULL, &e)) != CF_OK ||
            (st = scans(r2, batch, view, 1, (unsigned)iters, jobs, &nv_med, &nv_best, NULL, &e)) !=
                CF_OK)
            goto out;
    }
    if (threads > 1 &&
        (st = scans(r, batch, view, (unsigned)threads, (unsigned)iters, jobs, &th_med, &th_best,
                    NULL, &e)) != CF_OK)
        goto out;
    FILE *f = c->out;
    json_header(f, "read", path, fi);
    fprintf(f, ",\"iters\":%" PRIu64 ",\"batch\":%" PRIu64 ",\"mmap\":%s,\"view\":%s",
            iters, batch, mmap ? "true" : "false", view ? "true" : "false");
    fprintf(f, ",\"cold\":%s", cold ? "true" : "false");
    fprintf(f, ",\"decoded_bytes\":%" PRIu64 ",\"best_s\":%.6f,\"median_s\":%.6f", bytes,
            best, med);
    fprintf(f, ",\"values_per_s\":%.0f,\"mb_per_s\":%.1f", (double)fi->num_values / med,
            (double)bytes / med / 1e6);
    fprintf(f, ",\"memcpy_best_s\":%.6f,\"memcpy_median_s\":%.6f,\"memcpy_mb_per_s\":%.1f",
            mc_best, mc_med, mc_med > 0 ? (double)bytes / mc_med / 1e6 : 0);
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
        fprintf(f, ",\"threads\":%" PRIu64 ",\"threads_median_s\":%.6f,\"speedup\":%.3f",
                threads, th_med, th_med > 0 ? med / th_med : 0);
    json_cache(f, cache);
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

/* ---- seek ------------------------------------------------------------------------------ */

typedef struct key_set {
    size_t n, es;
    uint8_t *vals;   /* n keys in memory form */
    uint8_t **owned; /* string keys' bytes */
} key_set;

static void keys_free(key_set *k)
{
    if (k->owned)
        for (size_t i = 0; i < k->n; i++)
            free(k->owned[i]);
    free(k->owned);
    free(k->vals);
}

/* Value-seek keys: the values at random rows, every other one made absent. */
static cf_status make_keys(const cf_reader *r, size_t n, key_set *k, cf_error *err)
{
    const cf_file_info *fi = cf_reader_info(r);
    k->n = n;
    k->es = cf_type_size(fi->type);
    k->vals = calloc(n, k->es);
    k->owned = is_binary(fi->type) ? calloc(n, sizeof *k->owned) : NULL;
    if (k->vals == NULL || (is_binary(fi->type) && k->owned == NULL))
        return CF_ENOMEM;
    cf_iter *it;
    cf_status st = cf_iter_create(&it, r, err);
    if (st != CF_OK)
        return st;
    uint64_t s = 42;
    uint8_t v[16];
    for (size_t i = 0; i < n && st == CF_OK; i++) {
        size_t got;
        st = cf_iter_seek_to_ordinal(it, cf_dataset_rng_next(&s) % fi->num_values, err);
        if (st == CF_OK)
            st = cf_iter_copy_batch(it, v, NULL, 1, &got, err);
        if (st != CF_OK)
            break;
        bool absent = i % 2 == 1;
        uint8_t *dst = k->vals + i * k->es;
        if (is_binary(fi->type)) {
            cf_slice sl = *(cf_slice *)(void *)v;
            uint8_t *b = malloc(sl.len + 1);
            if (b == NULL)
                return CF_ENOMEM;
            memcpy(b, sl.data, sl.len);
            b[sl.len] = 0; /* with absent: the key plus a NUL sorts just after it */
            k->owned[i] = b;
            cf_slice ks = {b, sl.len + (absent ? 1 : 0)};
            memcpy(dst, &ks, sizeof ks);
        } else if (absent && (k->es == 4 || k->es == 8) && fi->type != CF_TYPE_FLOAT &&
                   fi->type != CF_TYPE_DOUBLE) {
            if (k->es == 4) {
                uint32_t x;
                memcpy(&x, v, 4);
                x++;
                memcpy(dst, &x, 4);
            } else {
                uint64_t x;
                memcpy(&x, v, 8);
                x++;
                memcpy(dst, &x, 8);
            }
        } else {
            memcpy(dst, v, k->es);
        }
    }
    cf_iter_free(it);
    return st;
}

/* int64: 8-byte LE each; strings: u32 LE length + bytes. */
static int write_values(const char *path, cf_type t, const void *vals, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (is_binary(t)) {
            const cf_slice *s = (const cf_slice *)vals + i;
            uint8_t l[4] = {(uint8_t)s->len, (uint8_t)(s->len >> 8), (uint8_t)(s->len >> 16),
                            (uint8_t)(s->len >> 24)};
            fwrite(l, 1, 4, f);
            fwrite(s->data, 1, s->len, f);
        } else {
            int64_t x = 0;
            if (cf_type_size(t) == 8)
                memcpy(&x, (const uint8_t *)vals + i * 8, 8);
            else {
                int32_t y;
                memcpy(&y, (const uint8_t *)vals + i * 4, 4);
                x = y;
            }
            fwrite(&x, 8, 1, f);
        }
    }
    return fclose(f) == 0 ? 0 : -1;
}

static int bench_seek(cf_cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        {"mode", required_argument, NULL, 'o'}, {"n", required_argument, NULL, 'n'},
        {"mmap", no_argument, NULL, 'm'},       {"cache", required_argument, NULL, 'c'},
        {"keys-out", required_argument, NULL, 'K'}, {"help", no_argument, NULL, 'h'},
        {"json", no_argument, NULL, 'J'},       {NULL, 0, NULL, 0},
    };
    const char *mode = NULL, *keys_out = NULL;
    uint64_t n = 100000, cache_mb = 0;
    bool mmap = false;
    int ch, rc;
    while ((ch = getopt_long(argc, argv, "o:n:mc:K:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'o': mode = optarg; break;
        case 'n': if ((rc = parse_opt_u64(c, "n", &n))) return rc; break;
        case 'c': if ((rc = parse_opt_u64(c, "cache", &cache_mb))) return rc; break;
        case 'm': mmap = true; break;
        case 'K': keys_out = optarg; break;
        case 'J': break; /* the report is JSON already: --json is accepted as everywhere */
        case 'h': return cf_cli_help(c);
        default: return cf_cli_bad_option(c, argv);
        }
    }
    if (optind + 1 != argc)
        return cf_cli_usage(c, "seek needs exactly one FILE");
    if (mode == NULL || (strcmp(mode, "ordinal") != 0 && strcmp(mode, "value") != 0))
        return cf_cli_usage(c, "--mode ordinal or --mode value");
    if (n == 0 || n > 100000000)
        return cf_cli_usage(c, "--n 1..100000000");
    bool by_value = strcmp(mode, "value") == 0;
    const char *path = argv[optind];
    cf_error e = {0};
    cf_cache *cache = NULL;
    cf_reader *r = NULL;
    cf_iter *it = NULL;
    key_set ks = {0};
    uint64_t *ords = NULL;
    double *lat = NULL;
    int ret = CF_EXIT_FAIL;
    cf_status st = CF_OK;
    if (cache_mb && (st = cf_cache_create(&cache, (size_t)cache_mb << 20, &e)) != CF_OK)
        goto out;
    if ((st = open_reader(&r, path, mmap, true, cache, &e)) != CF_OK)
        goto out;
    const cf_file_info *fi = cf_reader_info(r);
    if (fi->num_values == 0 || fi->is_array) {
        ret = cf_cli_fail(c, "%s: nothing to seek (empty or array column)", path);
        goto out;
    }
    if (by_value && !fi->has_validx) {
        ret = cf_cli_fail(c, "%s: no value index", path);
        goto out;
    }
    ords = malloc(n * sizeof *ords);
    lat = malloc(n * sizeof *lat);
    if (ords == NULL || lat == NULL)
        goto out;
    uint64_t s = 7;
    for (size_t i = 0; i < n; i++)
        ords[i] = cf_dataset_rng_next(&s) % fi->num_values;
    if (by_value && (st = make_keys(r, n, &ks, &e)) != CF_OK)
        goto out;
    if (keys_out && by_value && write_values(keys_out, fi->type, ks.vals, n) != 0) {
        ret = cf_cli_fail(c, "cannot write %s", keys_out);
        goto out;
    }
    if ((st = cf_iter_create(&it, r, &e)) != CF_OK)
        goto out;
    uint8_t v[16], nn[1];
    uint64_t exact_n = 0;
    /* Pass 0 warms every block the targets touch; pass 1 is timed. */
    for (int pass = 0; pass < 2; pass++) {
        exact_n = 0;
        for (size_t i = 0; i < n; i++) {
            double t0 = now_s();
            size_t got = 0;
            bool exact = false;
            if (by_value)
                st = cf_iter_seek_at_or_after(it, ks.vals + i * ks.es, &exact, &e);
            else
                st = cf_iter_seek_to_ordinal(it, ords[i], &e);
            if (st == CF_ENOTFOUND) {
                st = CF_OK; /* past the last value: a valid answer */
            } else if (st == CF_OK) {
                st = cf_iter_copy_batch(it, v, nn, 1, &got, &e);
            }
            lat[i] = now_s() - t0;
            if (st != CF_OK)
                goto out;
            exact_n += exact;
        }
    }
    double total = 0;
    for (size_t i = 0; i < n; i++)
        total += lat[i];
    double mean = total / (double)n;
    qsort(lat, n, sizeof *lat, cmp_double);
    FILE *f = c->out;
    json_header(f, "seek", path, fi);
    fprintf(f, ",\"mode\":\"%s\",\"n\":%" PRIu64 ",\"mmap\":%s,\"cache_mb\":%" PRIu64,
            mode, n, mmap ? "true" : "false", cache_mb);
    fprintf(f, ",\"seeks_per_s\":%.0f,\"mean_us\":%.3f,\"p50_us\":%.3f,\"p99_us\":%.3f",
            (double)n / total, mean * 1e6, lat[n / 2] * 1e6, lat[(size_t)((double)n * 0.99)] * 1e6);
    if (by_value)
        fprintf(f, ",\"exact\":%" PRIu64, exact_n);
    json_cache(f, cache);
    fprintf(f, "}\n");
    ret = CF_EXIT_OK;
out:
    if (ret == CF_EXIT_FAIL && st != CF_OK)
        ret = cf_cli_lib_fail(c, path, st, &e);
    cf_iter_free(it);
    keys_free(&ks);
    free(ords);
    free(lat);
    cf_reader_free(r);
    cf_cache_free(cache);
    return ret;
}

/* ---- write ----------------------------------------------------------------------------- */

/* Appends in 1024-row calls, as a flush of a Kudu memrowset would. */
static cf_status write_dataset(const cf_dataset *d, cf_io *io, const cf_writer_options *o,
                               cf_encoding *resolved, cf_error *err)
{
    cf_writer *w;
    cf_status st = cf_writer_create(&w, io, o, err);
    if (st != CF_OK)
        return st;
    *resolved = cf_writer_resolved_options(w)->encoding;
    size_t es = cf_type_size(d->type);
    uint8_t nn[128];
    for (size_t i = 0; i < d->n && st == CF_OK; i += 1024) {
        size_t k = d->n - i < 1024 ? d->n - i : 1024;
        const uint8_t *bm = NULL;
        if (d->nonnull) { /* realign the bitmap to row i (i is a multiple of 8) */
            memcpy(nn, d->nonnull + i / 8, (k + 7) / 8);
            bm = nn;
        }
        st = cf_writer_append(w, (const uint8_t *)d->vals + i * es, bm, k, err);
    }
    if (st == CF_OK)
        st = cf_writer_finish(w, err);
    cf_writer_free(w);
    return st;
}

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, rss = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
            rss = 0;
        fclose(f);
    }
    return rss * 4;
}

static int bench_write(cf_cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        {"dataset", required_argument, NULL, 'd'},  {"rows", required_argument, NULL, 'r'},
        {"encoding", required_argument, NULL, 'e'}, {"compression", required_argument, NULL, 'z'},
        {"iters", required_argument, NULL, 'k'},    {"out", required_argument, NULL, 'o'},
        {"values-out", required_argument, NULL, 'V'}, {"help", no_argument, NULL, 'h'},
        {"json", no_argument, NULL, 'J'},           {NULL, 0, NULL, 0},
    };
    const char *name = NULL, *out = NULL, *values_out = NULL;
    uint64_t rows = 1000000, iters = 3;
    cf_encoding enc = CF_ENC_AUTO;
    cf_compression comp = CF_COMP_NONE;
    int ch, rc;
    while ((ch = getopt_long(argc, argv, "d:r:e:z:k:o:V:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'd': name = optarg; break;
        case 'r': if ((rc = parse_opt_u64(c, "rows", &rows))) return rc; break;
        case 'k': if ((rc = parse_opt_u64(c, "iters", &iters))) return rc; break;
        case 'e':
            if (cf_encoding_parse(&enc, optarg) != CF_OK)
                return cf_cli_usage(c, "--encoding: unknown encoding %s", optarg);
            break;
        case 'z':
            if (cf_compression_parse(&comp, optarg) != CF_OK)
                return cf_cli_usage(c, "--compression: unknown codec %s", optarg);
            break;
        case 'o': out = optarg; break;
        case 'V': values_out = optarg; break;
        case 'J': break; /* the report is JSON already: --json is accepted as everywhere */
        case 'h': return cf_cli_help(c);
        default: return cf_cli_bad_option(c, argv);
        }
    }
    if (optind != argc)
        return cf_cli_usage(c, "write takes no FILE argument (use --out)");
    if (name == NULL)
        return cf_cli_usage(c, "--dataset is required");
    if (rows == 0 || rows > 200000000 || iters == 0 || iters > 1000)
        return cf_cli_usage(c, "--rows 1..200000000, --iters 1..1000");
    cf_dataset d;
    int g = cf_dataset_generate(&d, name, (size_t)rows);
    if (g == -1) {
        cf_dataset_free(&d);
        return cf_cli_usage(c, "--dataset: unknown data set %s", name);
    }
    int ret = CF_EXIT_FAIL;
    cf_error e = {0};
    cf_status st = CF_OK;
    double *t = calloc(iters, sizeof *t);
    if (g != 0 || t == NULL) {
        ret = cf_cli_fail(c, "out of memory generating %s", name);
        goto out;
    }
    if (values_out && write_values(values_out, d.type, d.vals, d.n) != 0) {
        ret = cf_cli_fail(c, "cannot write %s", values_out);
        goto out;
    }
    cf_writer_options o;
    cf_writer_options_init(&o, d.type);
    o.encoding = enc;
    o.compression = comp;
    o.nullable = d.nullable;
    o.write_validx = d.validx;
    long mem_kb = -1;
    cf_encoding resolved = enc;
    double file_s = 0;
    uint64_t file_bytes = 0;
    if (out) {
        cf_io *io;
        long before = rss_kb();
        double t0 = now_s();
        if ((st = cf_io_create_file(&io, out, &e)) != CF_OK)
            goto out;
        st = write_dataset(&d, io, &o, &resolved, &e);
        file_bytes = io->ops->size(io);
        cf_io_free(io);
        file_s = now_s() - t0;
        if (st != CF_OK)
            goto out;
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        mem_kb = ru.ru_maxrss - before;
    }
    uint64_t mem_bytes = 0;
    for (unsigned k = 0; k < iters; k++) {
        cf_io *io;
        if ((st = cf_io_create_mem(&io, &e)) != CF_OK)
            goto out;
        double t0 = now_s();
        st = write_dataset(&d, io, &o, &resolved, &e);
        t[k] = now_s() - t0;
        mem_bytes = cf_io_mem_contents(io).len;
        cf_io_free(io);
        if (st != CF_OK)
            goto out;
    }
    double med = median(t, iters);
    uint64_t raw = d.raw_bytes;
    FILE *f = c->out;
    fprintf(f, "{\"op\":\"write\",\"dataset\":\"%s\",\"type\":\"%s\",\"encoding\":\"%s\","
               "\"compression\":\"%s\",\"rows\":%" PRIu64 ",\"raw_bytes\":%" PRIu64
               ",\"file_bytes\":%" PRIu64,
            name, cf_cli_type_name(d.type), cf_cli_encoding_name(resolved),
            cf_cli_compression_name(comp), rows, raw, mem_bytes);
    fprintf(f, ",\"iters\":%" PRIu64 ",\"best_s\":%.6f,\"median_s\":%.6f,\"mb_per_s\":"
               "%.1f,\"values_per_s\":%.0f",
            iters, t[0], med, (double)raw / med / 1e6, (double)rows / med);
    if (out) {
        cf_jw w;
        cf_jw_init(&w, f);
        fputs(",\"out\":", f);
        cf_jw_cstr(&w, out);
        fprintf(f, ",\"out_bytes\":%" PRIu64 ",\"file_write_s\":%.6f,\"writer_peak_rss_kb\":%ld",
                file_bytes, file_s, mem_kb);
    }
    fprintf(f, "}\n");
    ret = CF_EXIT_OK;
out:
    if (ret == CF_EXIT_FAIL && st != CF_OK)
        ret = cf_cli_lib_fail(c, name, st, &e);
    free(t);
    cf_dataset_free(&d);
    return ret;
}

/* ---- scan: a table scan with each thread count -------------------------------------------- */

static double cpu_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One scan of t with o: rows returned, wall and process CPU seconds. */
static cf_status table_scan_once(cf_table *t, const cf_rs_scan_options *o, uint64_t *rows,
                                 double *wall, double *cpu, cf_error *e)
{
    double w0 = now_s(), c0 = cpu_now_s();
    cf_table_scanner *sc = NULL;
    cf_status st = cf_table_scanner_create(&sc, t, o, e);
    *rows = 0;
    while (st == CF_OK) {
        cf_rs_batch b;
        if ((st = cf_table_scanner_next(sc, &b, e)) != CF_OK || b.count == 0)
            break;
        *rows += b.count;
    }
    cf_table_scanner_free(sc);
    *wall = now_s() - w0;
    *cpu = cpu_now_s() - c0;
    return st;
}

#define BENCH_SCAN_MAX_T 8

static int bench_scan(cf_cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        {"iters", required_argument, NULL, 'k'},   {"batch", required_argument, NULL, 'b'},
        {"threads", required_argument, NULL, 't'}, {"columns", required_argument, NULL, 'c'},
        {"where", required_argument, NULL, 'w'},   {"help", no_argument, NULL, 'h'},
        {"json", no_argument, NULL, 'J'},          {NULL, 0, NULL, 0},
    };
    uint64_t iters = 5, batch = 1024;
    size_t counts[BENCH_SCAN_MAX_T] = {1, 2};
    size_t ncounts = 2;
    const char *columns = NULL, *where = NULL;
    int ch, rc;
    while ((ch = getopt_long(argc, argv, "k:b:t:c:w:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'k': if ((rc = parse_opt_u64(c, "iters", &iters))) return rc; break;
        case 'b': if ((rc = parse_opt_u64(c, "batch", &batch))) return rc; break;
        case 't': {
            ncounts = 0;
            char *copy = strdup(optarg), *save = NULL;
            for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
                uint64_t n;
                if (ncounts == BENCH_SCAN_MAX_T || cf_cli_parse_u64(w, &n) != 0 || n < 1 ||
                    n > CF_RS_MAX_THREADS) {
                    free(copy);
                    return cf_cli_usage(c, "--threads: up to %d counts of 1..%u, got '%s'",
                                        BENCH_SCAN_MAX_T, CF_RS_MAX_THREADS, optarg);
                }
                counts[ncounts++] = (size_t)n;
            }
            free(copy);
            if (ncounts == 0)
                return cf_cli_usage(c, "--threads: empty");
            break;
        }
        case 'c': columns = optarg; break;
        case 'w': where = optarg; break;
        case 'J': break; /* the report is JSON already */
        case 'h': return cf_cli_help(c);
        default: return cf_cli_bad_option(c, argv);
        }
    }
    if (optind + 1 != argc)
        return cf_cli_usage(c, "scan needs exactly one table DIR");
    if (iters == 0 || iters > 1000 || batch == 0 || batch > (1u << 24))
        return cf_cli_usage(c, "--iters 1..1000, --batch 1..16M");
    const char *dir = argv[optind];
    cf_error e = {0};
    cf_table_options to;
    cf_table_options_init(&to);
    to.read_only = true;
    cf_table *t = NULL;
    cf_status st = cf_table_open_opts(&t, dir, &to, &e);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, dir, st, &e);
    const cf_rs_schema *s = cf_table_schema(t);
    cf_arena a;
    cf_arena_init(&a);
    size_t *cols = NULL, ncols = 0, npreds = 0;
    cf_rs_pred *preds = NULL;
    double *wall = calloc(iters * ncounts, sizeof(double));
    double *cpu = calloc(iters * ncounts, sizeof(double));
    rc = CF_EXIT_FAIL;
    if (wall == NULL || cpu == NULL)
        goto out;
    if (columns != NULL) {
        cols = calloc(strlen(columns) + 1, sizeof(*cols));
        char *copy = strdup(columns), *save = NULL;
        for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
            int k = cf_rs_schema_find(s, w);
            if (k < 0) {
                rc = cf_cli_usage(c, "--columns: no column '%s'", w);
                free(copy);
                goto out;
            }
            cols[ncols++] = (size_t)k;
        }
        free(copy);
    }
    if ((rc = cf_cli_where_parse(c, s, where, &preds, &npreds, &a)) != 0)
        goto out;
    rc = CF_EXIT_FAIL;
    cf_rs_scan_options o;
    cf_rs_scan_options_init(&o);
    o.cols = cols;
    o.ncols = ncols;
    o.preds = preds;
    o.npreds = npreds;
    o.batch_rows = (size_t)batch;
    uint64_t rows = 0;
    double w, u;
    if ((st = table_scan_once(t, &o, &rows, &w, &u, &e)) != CF_OK) /* warm-up */
        goto fail;
    for (uint64_t i = 0; i < iters; i++) {
        for (size_t k = 0; k < ncounts; k++) {
            o.threads = counts[k];
            uint64_t got;
            if ((st = table_scan_once(t, &o, &got, &wall[k * iters + i], &cpu[k * iters + i],
                                      &e)) != CF_OK)
                goto fail;
        }
    }
    FILE *f = c->out;
    /* Compact, as every --json; the directory through the JSON writer (escaped). */
    fputs("{\"op\":\"scan\",\"table\":", f);
    cf_jw jw;
    cf_jw_init(&jw, f);
    cf_jw_cstr(&jw, dir);
    fprintf(f, ",\"rows\":%" PRIu64 ",\"iters\":%" PRIu64 ",\"batch\":%" PRIu64 ",\"runs\":[",
            rows, iters, batch);
    for (size_t k = 0; k < ncounts; k++) {
        double *wk = &wall[k * iters], *ck = &cpu[k * iters];
        double cmed = median(ck, iters), wmed = median(wk, iters); /* sorts */
        fprintf(f, "%s{\"threads\":%zu,\"best_s\":%.6f,\"median_s\":%.6f,"
                   "\"cpu_median_s\":%.6f,\"rows_per_s\":%.0f,\"rows_per_cpu_s\":%.0f}",
                k ? "," : "", counts[k], wk[0], wmed, cmed, (double)rows / wmed,
                (double)rows / cmed);
    }
    fprintf(f, "]}\n");
    rc = CF_EXIT_OK;
    goto out;
fail:
    rc = cf_cli_lib_fail(c, "scan", st, &e);
out:
    free(wall);
    free(cpu);
    free(cols);
    cf_arena_dispose(&a);
    cf_table_free(t);
    return rc;
}

int cf_cmd_bench(cf_cli *c, int argc, char **argv)
{
    if (argc < 2)
        return cf_cli_usage(c, "which benchmark: read, seek, write or scan?");
    const char *sub = argv[1];
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0)
        return cf_cli_help(c);
    if (strcmp(sub, "read") == 0)
        return bench_read(c, argc - 1, argv + 1);
    if (strcmp(sub, "seek") == 0)
        return bench_seek(c, argc - 1, argv + 1);
    if (strcmp(sub, "write") == 0)
        return bench_write(c, argc - 1, argv + 1);
    if (strcmp(sub, "scan") == 0)
        return bench_scan(c, argc - 1, argv + 1);
    return cf_cli_usage(c, "unknown benchmark '%s'", sub);
}

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

#include "bench.h"
#include "cli.h"
#include "datasets.h"
#include "json.h"

const char cf_cmd_bench_usage[] =
    "usage: cfile bench read FILE [--iters K] [--batch N] [--mmap] [--view] [--threads T]\n"
    "                          [--cache MB] [--no-checksum-cost] [--cold] [--no-memcpy]\n"
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
    "       from the disk (pread only: not with --mmap). --no-memcpy leaves the\n"
    "       memcpy reference out (its figures 0), so that the process's CPU time is\n"
    "       the scans' alone: each of the K iterations is an untimed and a timed scan.\n"
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
    "       thread count of --threads (cf_scan_options.threads; default 1,2),\n"
    "       the counts alternating. Reports per count the best and median wall\n"
    "       seconds and the median process CPU seconds (all threads): on a busy\n"
    "       machine compare CPU, and wall only from a quiet run.\n"
    "\n"
    "data sets (deterministic): int32_random, int64_sorted (value index),\n"
    "int32_small (0..999), int32_runs, double_walk, string_zipf (1000 words),\n"
    "string_keys (sorted user%010d, value index), bool_runs, int64_nullable (20% NULL),\n"
    "string_nullable (string_zipf with 20% NULL)\n";

/* ---- timing ---------------------------------------------------------------------------- */

int cf_bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts v. */
double cf_bench_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cf_bench_cmp_double);
    return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- options ------------------------------------------------------------------------------ */

#define BENCH_MAX_OPTS 16
/* getopt's code for opts[i] when it has no letter: past every char. */
#define LONG_ONLY 256

int cf_bench_parse_opts(cf_cli *c, int argc, char **argv, const cf_bench_opt *opts,
                        const char *operand, const char **operand_out)
{
    struct option lo[BENCH_MAX_OPTS + 3];
    char shorts[3 * BENCH_MAX_OPTS + 2];
    size_t n = 0, ns = 0;
    for (; opts[n].name != NULL; n++) {
        const cf_bench_opt *o = &opts[n];
        bool arg = o->kind != CF_BENCH_FLAG;
        lo[n] = (struct option){o->name, arg ? required_argument : no_argument, NULL,
                                o->letter ? o->letter : LONG_ONLY + (int)n};
        if (o->letter) {
            shorts[ns++] = o->letter;
            if (arg)
                shorts[ns++] = ':';
        }
    }
    lo[n] = (struct option){"help", no_argument, NULL, 'h'};
    lo[n + 1] = (struct option){"json", no_argument, NULL, 'J'};
    lo[n + 2] = (struct option){NULL, 0, NULL, 0};
    shorts[ns++] = 'h';
    shorts[ns] = '\0';
    int ch, rc;
    while ((ch = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
        if (ch == 'h')
            return cf_cli_help(c);
        if (ch == 'J')
            continue;
        size_t i = 0;
        while (i < n && ch != (opts[i].letter ? opts[i].letter : LONG_ONLY + (int)i))
            i++;
        if (i == n)
            return cf_cli_bad_option(c, argv);
        const cf_bench_opt *o = &opts[i];
        switch (o->kind) {
        case CF_BENCH_FLAG: *(bool *)o->dst = true; break;
        case CF_BENCH_COUNT:
            if (cf_cli_parse_u64(optarg, o->dst) != 0)
                return cf_cli_usage(c, "--%s: not a number: %s", o->name, optarg);
            break;
        case CF_BENCH_TEXT: *(const char **)o->dst = optarg; break;
        case CF_BENCH_PARSE:
            if ((rc = o->parse(c, optarg, o->dst)) != 0)
                return rc;
            break;
        }
    }
    if (operand == NULL) {
        if (optind != argc)
            return cf_cli_usage(c, "%s takes no FILE argument (use --out)", argv[0]);
        return -1;
    }
    if (optind + 1 != argc)
        return cf_cli_usage(c, "%s needs exactly one %s", argv[0], operand);
    *operand_out = argv[optind];
    return -1;
}

cf_status cf_bench_open_reader(cf_reader **out, const char *path, bool mmap, bool verify,
                               cf_cache *cache, cf_error *err)
{
    cf_reader_options o;
    cf_reader_options_init(&o);
    o.verify_checksums = verify;
    o.cache = cache;
    return cf_reader_open_file(out, path, mmap, &o, err);
}

void cf_bench_json_header(FILE *f, const char *op, const char *path, const cf_file_info *fi)
{
    /* Compact, as every --json; the path through the JSON writer (escaped). */
    fprintf(f, "{\"op\":\"%s\",\"file\":", op);
    cf_jw w;
    cf_jw_init(&w, f);
    cf_jw_cstr(&w, path);
    fprintf(f,
            ",\"type\":\"%s\",\"encoding\":\"%s\","
            "\"compression\":\"%s\",\"nullable\":%s,\"rows\":%" PRIu64,
            cf_cli_type_name(fi->type), cf_cli_encoding_name(fi->encoding),
            cf_cli_compression_name(fi->compression), fi->nullable ? "true" : "false",
            fi->num_values);
}

void cf_bench_json_cache(FILE *f, const cf_cache *cache)
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

cf_status cf_bench_fail(cf_error *err, cf_status st, const char *msg)
{
    err->code = st;
    snprintf(err->msg, sizeof err->msg, "%s", msg);
    return st;
}

int cf_bench_write_values(const char *path, cf_type t, const void *vals, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (cf_type_is_binary(t)) {
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

int cf_cmd_bench(cf_cli *c, int argc, char **argv)
{
    if (argc < 2)
        return cf_cli_usage(c, "which benchmark: read, seek, write or scan?");
    const char *sub = argv[1];
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0)
        return cf_cli_help(c);
    if (strcmp(sub, "read") == 0)
        return cf_bench_read(c, argc - 1, argv + 1);
    if (strcmp(sub, "seek") == 0)
        return cf_bench_seek(c, argc - 1, argv + 1);
    if (strcmp(sub, "write") == 0)
        return cf_bench_write(c, argc - 1, argv + 1);
    if (strcmp(sub, "scan") == 0) {
#if CF_HAVE_TABLES
        return cf_bench_scan(c, argc - 1, argv + 1);
#else
        return cf_cli_not_built(c, "scan", "CF_WITH_TABLES");
#endif
    }
    return cf_cli_usage(c, "unknown benchmark '%s'", sub);
}

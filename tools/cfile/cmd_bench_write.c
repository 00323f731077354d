/* `cfile bench write`: a deterministic data set (datasets.h) encoded,
 * compressed, indexed and written into memory, and with --out into a file. */
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

static int parse_encoding(cf_cli *c, const char *arg, void *dst)
{
    if (cf_encoding_parse(dst, arg) != CF_OK)
        return cf_cli_usage(c, "--encoding: unknown encoding %s", arg);
    return 0;
}

static int parse_compression(cf_cli *c, const char *arg, void *dst)
{
    if (cf_compression_parse(dst, arg) != CF_OK)
        return cf_cli_usage(c, "--compression: unknown codec %s", arg);
    return 0;
}

int cf_bench_write(cf_cli *c, int argc, char **argv)
{
    const char *name = NULL, *out = NULL, *values_out = NULL;
    uint64_t rows = 1000000, iters = 3;
    cf_encoding enc = CF_ENC_AUTO;
    cf_compression comp = CF_COMP_NONE;
    const cf_bench_opt opts[] = {
        {"dataset", 'd', CF_BENCH_TEXT, &name, NULL},
        {"rows", 'r', CF_BENCH_COUNT, &rows, NULL},
        {"encoding", 'e', CF_BENCH_PARSE, &enc, parse_encoding},
        {"compression", 'z', CF_BENCH_PARSE, &comp, parse_compression},
        {"iters", 'k', CF_BENCH_COUNT, &iters, NULL},
        {"out", 'o', CF_BENCH_TEXT, &out, NULL},
        {"values-out", 'V', CF_BENCH_TEXT, &values_out, NULL},
        {NULL, 0, 0, NULL, NULL},
    };
    int rc = cf_bench_parse_opts(c, argc, argv, opts, NULL, NULL);
    if (rc >= 0)
        return rc;
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
    if (values_out && cf_bench_write_values(values_out, d.type, d.vals, d.n) != 0) {
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
        double t0 = cf_cli_now_s();
        if ((st = cf_io_create_file(&io, out, &e)) != CF_OK)
            goto out;
        st = write_dataset(&d, io, &o, &resolved, &e);
        file_bytes = io->ops->size(io);
        cf_io_free(io);
        file_s = cf_cli_now_s() - t0;
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
        double t0 = cf_cli_now_s();
        st = write_dataset(&d, io, &o, &resolved, &e);
        t[k] = cf_cli_now_s() - t0;
        mem_bytes = cf_io_mem_contents(io).len;
        cf_io_free(io);
        if (st != CF_OK)
            goto out;
    }
    double med = cf_bench_median(t, iters);
    uint64_t raw = d.raw_bytes;
    FILE *f = c->out;
    fprintf(f,
            "{\"op\":\"write\",\"dataset\":\"%s\",\"type\":\"%s\",\"encoding\":\"%s\","
            "\"compression\":\"%s\",\"rows\":%" PRIu64 ",\"raw_bytes\":%" PRIu64
            ",\"file_bytes\":%" PRIu64,
            name, cf_cli_type_name(d.type), cf_cli_encoding_name(resolved),
            cf_cli_compression_name(comp), rows, raw, mem_bytes);
    fprintf(f,
            ",\"iters\":%" PRIu64 ",\"best_s\":%.6f,\"median_s\":%.6f,\"mb_per_s\":"
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

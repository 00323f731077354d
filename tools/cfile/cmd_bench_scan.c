/* `cfile bench scan`: a table scan (projection and predicates as `cfile table
 * scan`) timed with each thread count, wall and CPU seconds. */
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cfile/rowset.h>

#include "bench.h"
#include "cli.h"
#include "datasets.h"
#include "json.h"
#include "table_args.h"

/* ---- scan: a table scan with each thread count -------------------------------------------- */

static double cpu_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One scan of t with o: rows returned, wall and process CPU seconds. */
static cf_status table_scan_once(cf_table *t, const cf_scan_options *o, uint64_t *rows,
                                 double *wall, double *cpu, cf_error *e)
{
    double w0 = cf_cli_now_s(), c0 = cpu_now_s();
    cf_table_scanner *sc = NULL;
    cf_status st = cf_table_scanner_create(&sc, t, o, e);
    *rows = 0;
    while (st == CF_OK) {
        cf_row_batch b;
        if ((st = cf_table_scanner_next(sc, &b, e)) != CF_OK || b.count == 0)
            break;
        *rows += b.count;
    }
    cf_table_scanner_free(sc);
    *wall = cf_cli_now_s() - w0;
    *cpu = cpu_now_s() - c0;
    return st;
}

#define BENCH_SCAN_MAX_T 8

/* --threads T[,T...]: the thread counts to time, in order. */
typedef struct thread_counts {
    size_t counts[BENCH_SCAN_MAX_T];
    size_t n;
} thread_counts;

static int parse_threads(cf_cli *c, const char *arg, void *dst)
{
    thread_counts *tc = dst;
    tc->n = 0;
    char *copy = strdup(arg), *save = NULL;
    for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        uint64_t n;
        if (tc->n == BENCH_SCAN_MAX_T || cf_cli_parse_u64(w, &n) != 0 || n < 1 ||
            n > CF_SCAN_MAX_THREADS) {
            free(copy);
            return cf_cli_usage(c, "--threads: up to %d counts of 1..%u, got '%s'",
                                BENCH_SCAN_MAX_T, CF_SCAN_MAX_THREADS, arg);
        }
        tc->counts[tc->n++] = (size_t)n;
    }
    free(copy);
    if (tc->n == 0)
        return cf_cli_usage(c, "--threads: empty");
    return 0;
}

int cf_bench_scan(cf_cli *c, int argc, char **argv)
{
    uint64_t iters = 5, batch = 1024;
    thread_counts tc = {{1, 2}, 2};
    const char *columns = NULL, *where = NULL, *dir;
    const cf_bench_opt opts[] = {
        {"iters", 'k', CF_BENCH_COUNT, &iters, NULL},
        {"batch", 'b', CF_BENCH_COUNT, &batch, NULL},
        {"threads", 't', CF_BENCH_PARSE, &tc, parse_threads},
        {"columns", 'c', CF_BENCH_TEXT, &columns, NULL},
        {"where", 'w', CF_BENCH_TEXT, &where, NULL},
        {NULL, 0, 0, NULL, NULL},
    };
    int rc = cf_bench_parse_opts(c, argc, argv, opts, "table DIR", &dir);
    if (rc >= 0)
        return rc;
    if (iters == 0 || iters > 1000 || batch == 0 || batch > (1u << 24))
        return cf_cli_usage(c, "--iters 1..1000, --batch 1..16M");
    const size_t *counts = tc.counts, ncounts = tc.n;
    cf_error e = {0};
    cf_table_options to;
    cf_table_options_init(&to);
    to.read_only = true;
    cf_table *t = NULL;
    cf_status st = cf_table_open(&t, dir, &to, &e);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, dir, st, &e);
    const cf_schema *s = cf_table_schema(t);
    cf_cli_arena a;
    cf_cli_arena_init(&a);
    size_t *cols = NULL, ncols = 0, npreds = 0;
    cf_pred *preds = NULL;
    double *wall = calloc(iters * ncounts, sizeof(double));
    double *cpu = calloc(iters * ncounts, sizeof(double));
    rc = CF_EXIT_FAIL;
    if (wall == NULL || cpu == NULL)
        goto out;
    /* As `cfile table scan --columns` reads them; without it, every column. */
    if (columns != NULL && (rc = cf_cli_columns_parse(c, s, columns, &cols, &ncols)) != 0)
        goto out;
    if ((rc = cf_cli_where_parse(c, s, where, &preds, &npreds, &a)) != 0)
        goto out;
    rc = CF_EXIT_FAIL;
    cf_scan_options o;
    cf_cli_scan_options(&o, cols, ncols, preds, npreds);
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
    fprintf(f, ",\"rows\":%" PRIu64 ",\"iters\":%" PRIu64 ",\"batch\":%" PRIu64 ",\"runs\":[", rows,
            iters, batch);
    for (size_t k = 0; k < ncounts; k++) {
        double *wk = &wall[k * iters], *ck = &cpu[k * iters];
        double cmed = cf_bench_median(ck, iters), wmed = cf_bench_median(wk, iters); /* sorts */
        fprintf(f,
                "%s{\"threads\":%zu,\"best_s\":%.6f,\"median_s\":%.6f,"
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
    cf_cli_arena_dispose(&a);
    cf_table_free(t);
    return rc;
}

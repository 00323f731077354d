/* bench/parquet_read: scanning Parquet columns with cfile's reader and with
 * DuckDB (libduckdb from npm, tools/duckdb), single-threaded, in one run, on
 * the same files. Not a test: it prints numbers.
 *
 *   bench_parquet_read [ROWS [RUNS [DIR]]]   rows per file (default 2000000),
 *       timed runs per row and side (default 5; median and best), DIR where
 *       the files are written once and kept (default /dev/shm/cf_parquet_read,
 *       else /tmp/...). CF_DUCKDB_LIB overrides the libduckdb.so to load.
 *
 * The files are written by DuckDB's COPY ... TO (FORMAT parquet) (so both
 * readers read a third party's pages, DuckDB's own writer's choices: every
 * column OPTIONAL, dictionary when the values repeat, PLAIN otherwise, data
 * page v1), one column each:
 *
 *   int64_plain    random 63-bit BIGINTs (PLAIN pages), UNCOMPRESSED
 *   int64_dict     1000 distinct BIGINTs (RLE_DICTIONARY), UNCOMPRESSED
 *   string_dict    'name-<0..999>' (RLE_DICTIONARY), UNCOMPRESSED
 *   list_int64     LIST<BIGINT> of 0..6 random elements, UNCOMPRESSED
 *   int64_zstd     i/4 + a small noise (PLAIN), ZSTD
 *   int64_snappy   the same values, SNAPPY
 *
 * What each side does per file and run (CPU time of this process; DuckDB runs
 * with SET threads=1 in this process, so its time is its one thread's):
 *   ours column   cf_parquet_open_file, then every row group's column through
 *                 cf_parquet_column_read in batches of 2048 level entries into
 *                 caller buffers: definition levels (and repetition levels for
 *                 lists) as uint16_t, values in their forms (int64 8 bytes,
 *                 strings a cf_slice into the page or dictionary). Levels and
 *                 values, not nested rows: the lowest layer.
 *   ours records  cf_parquet_records (record assembly) in batches of 2048 rows:
 *                 Arrow-shaped arrays (validity bitmap, values; strings copied
 *                 into offsets + bytes; lists as offsets + child), what DuckDB
 *                 hands out too.
 *   duckdb        SELECT col FROM read_parquet(file), a streaming result, every
 *                 data chunk fetched (duckdb_fetch_chunk): DuckDB's vectors of
 *                 2048 rows, lists and strings materialised as DuckDB does.
 * Neither side looks at the values after decoding them.
 *
 * Then every core (the second table): each file and `lineitem_wide`, a
 * lineitem-shaped file of 16 columns (BIGINT keys, INTEGER, DECIMAL(15,2),
 * DATEs, one-letter flags, low- and high-cardinality strings) DuckDB writes
 * with SNAPPY and its own row groups, read whole by cf_parquet_records (all
 * fields, batches of 65536 rows, as the Arrow stream reads) and by DuckDB's
 * SELECT *: wall-clock seconds at one thread (ours threads = 1, DuckDB SET
 * threads = 1) and at the default (ours threads = 0, one per CPU; DuckDB's
 * default, RESET threads), alternated run by run, medians; with the process
 * CPU seconds of each (all threads).
 *
 * Per row and side: values/s (leaf values, nulls and list elements included),
 * MB/s of the decoded bytes (8 per int64; string bytes + 4; list elements x 8
 * + 4 per row), the time over a memcpy of that many bytes in the same run
 * (1.0 = as fast as copying them), and ours / DuckDB as a speed ratio (> 1:
 * we are faster), by the medians. One JSON line per row follows the table
 * (CF_BENCH_JSON=1: only the JSON). The machine may be shared: read medians.
 * CF_BENCH_FILTER=text: only the files whose name contains it.
 */
/* cf-needs: parquet */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cfile/cfile.h>
#include <cfile/parquet.h>

#define BENCH_NAME "bench_parquet_read"
#include "bench_util.h"

#ifndef CF_DUCKDB_LIB
#define CF_DUCKDB_LIB "libduckdb.so"
#endif

#define BATCH 2048

static volatile uint64_t sink;

/* ---- DuckDB's C API through dlopen (the npm package ships no header) ---------------------- */

typedef uint64_t duck_idx;
typedef struct duck_result { /* duckdb_result: public fixed layout */
    duck_idx column_count, row_count, rows_changed;
    void *columns;
    char *error;
    void *internal;
} duck_result;

static struct {
    void *lib, *db, *conn;
    int (*open)(const char *, void **);
    int (*connect)(void *, void **);
    int (*query)(void *, const char *, duck_result *);
    void (*destroy_result)(duck_result *);
    const char *(*result_error)(duck_result *);
    int (*prepare)(void *, const char *, void **);
    void (*destroy_prepare)(void **);
    const char *(*prepare_error)(void *);
    int (*pending_streaming)(void *, void **);
    void (*destroy_pending)(void **);
    int (*execute_pending)(void *, duck_result *);
    void *(*fetch_chunk)(duck_result);
    duck_idx (*chunk_size)(void *);
    void (*destroy_chunk)(void **);
} dk;

static void *sym(const char *name)
{
    void *p = dlsym(dk.lib, name);
    if (p == NULL) {
        fprintf(stderr, "bench_parquet_read: libduckdb has no %s\n", name);
        exit(1);
    }
    return p;
}

static void duck_start(void)
{
    const char *lib = getenv("CF_DUCKDB_LIB") ? getenv("CF_DUCKDB_LIB") : CF_DUCKDB_LIB;
    dk.lib = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (dk.lib == NULL) {
        fprintf(stderr,
                "bench_parquet_read: cannot load DuckDB (%s): %s; ./test installs it "
                "(tools/duckdb/README.md)\n",
                lib, dlerror());
        exit(77);
    }
    *(void **)&dk.open = sym("duckdb_open");
    *(void **)&dk.connect = sym("duckdb_connect");
    *(void **)&dk.query = sym("duckdb_query");
    *(void **)&dk.destroy_result = sym("duckdb_destroy_result");
    *(void **)&dk.result_error = sym("duckdb_result_error");
    *(void **)&dk.prepare = sym("duckdb_prepare");
    *(void **)&dk.destroy_prepare = sym("duckdb_destroy_prepare");
    *(void **)&dk.prepare_error = sym("duckdb_prepare_error");
    *(void **)&dk.pending_streaming = sym("duckdb_pending_prepared_streaming");
    *(void **)&dk.destroy_pending = sym("duckdb_destroy_pending");
    *(void **)&dk.execute_pending = sym("duckdb_execute_pending");
    *(void **)&dk.fetch_chunk = sym("duckdb_fetch_chunk");
    *(void **)&dk.chunk_size = sym("duckdb_data_chunk_get_size");
    *(void **)&dk.destroy_chunk = sym("duckdb_destroy_data_chunk");
    if (dk.open(NULL, &dk.db) != 0 || dk.connect(dk.db, &dk.conn) != 0) {
        fprintf(stderr, "bench_parquet_read: DuckDB would not open\n");
        exit(1);
    }
}

static void duck_exec(const char *sql)
{
    duck_result r;
    memset(&r, 0, sizeof r);
    if (dk.query(dk.conn, sql, &r) != 0) {
        fprintf(stderr, "bench_parquet_read: duckdb: %s: %s\n", sql, dk.result_error(&r));
        exit(1);
    }
    dk.destroy_result(&r);
}

/* Every chunk of `SELECT col FROM read_parquet(path)`; returns the rows. */
static uint64_t duck_scan(const char *path)
{
    char sql[4600];
    snprintf(sql, sizeof sql, "SELECT * FROM read_parquet('%s')", path);
    void *prep = NULL, *pend = NULL;
    duck_result res;
    memset(&res, 0, sizeof res);
    if (dk.prepare(dk.conn, sql, &prep) != 0) {
        fprintf(stderr, "bench_parquet_read: duckdb: %s\n", dk.prepare_error(prep));
        exit(1);
    }
    if (dk.pending_streaming(prep, &pend) != 0 || dk.execute_pending(pend, &res) != 0) {
        fprintf(stderr, "bench_parquet_read: duckdb: %s: %s\n", sql, dk.result_error(&res));
        exit(1);
    }
    uint64_t rows = 0;
    for (;;) {
        void *chunk = dk.fetch_chunk(res);
        if (chunk == NULL)
            break;
        duck_idx n = dk.chunk_size(chunk);
        dk.destroy_chunk(&chunk);
        if (n == 0)
            break;
        rows += n;
    }
    dk.destroy_result(&res);
    dk.destroy_pending(&pend);
    dk.destroy_prepare(&prep);
    return rows;
}

/* ---- our reader --------------------------------------------------------------------------- */

typedef struct counts {
    uint64_t rows, levels, values, bytes; /* bytes: the decoded bytes (see the top) */
} counts;

/* Levels and values of every row group of column 0 (counts on the first run). */
static void ours_column(const char *path, counts *c)
{
    static uint16_t def[BATCH], rep[BATCH];
    static uint8_t vals[BATCH * 16];
    cf_error err;
    cf_parquet *pq;
    if (cf_parquet_open_file(&pq, path, NULL, &err) != CF_OK)
        bench_die_err(path, &err);
    const cf_parquet_column *col = cf_parquet_column_at(pq, 0);
    uint64_t levels = 0, values = 0, rows = 0, bytes = 0;
    uint32_t rgs = cf_parquet_meta(pq)->row_group_count;
    for (uint32_t g = 0; g < rgs; g++) {
        cf_parquet_column_reader *r;
        if (cf_parquet_column_open(&r, pq, g, 0, &err) != CF_OK)
            bench_die_err(path, &err);
        for (;;) {
            size_t nl, nv;
            if (cf_parquet_column_read(r, BATCH, col->max_def ? def : NULL,
                                       col->max_rep ? rep : NULL, vals, &nl, &nv, &err) != CF_OK)
                bench_die_err(path, &err);
            if (nl == 0)
                break;
            levels += nl;
            values += nv;
            if (c != NULL && c->rows == 0) { /* the first run counts what it read */
                if (col->max_rep)
                    for (size_t i = 0; i < nl; i++)
                        rows += rep[i] == 0;
                else
                    rows += nl;
                if (col->type == CF_PARQUET_BYTE_ARRAY)
                    for (size_t i = 0; i < nv; i++)
                        bytes += ((const cf_slice *)vals)[i].len + 4;
            }
        }
        cf_parquet_column_free(r);
    }
    cf_parquet_free(pq);
    sink += levels + values;
    if (c != NULL && c->rows == 0) {
        c->rows = rows;
        c->levels = levels;
        c->values = values;
        if (col->type != CF_PARQUET_BYTE_ARRAY)
            bytes = levels * 8 + (col->max_rep ? rows * 4 : 0);
        c->bytes = bytes;
    }
}

static uint64_t ours_records_with(const char *path, size_t batch, size_t threads)
{
    cf_error err;
    cf_parquet *pq;
    if (cf_parquet_open_file(&pq, path, NULL, &err) != CF_OK)
        bench_die_err(path, &err);
    cf_parquet_records_options o;
    cf_parquet_records_options_init(&o);
    o.batch_rows = batch;
    o.threads = threads;
    cf_parquet_records *r;
    if (cf_parquet_records_open(&r, pq, &o, &err) != CF_OK)
        bench_die_err(path, &err);
    uint64_t rows = 0;
    for (;;) {
        const cf_parquet_array *a;
        if (cf_parquet_records_next(r, &a, &err) != CF_OK)
            bench_die_err(path, &err);
        if (a == NULL)
            break;
        rows += a->length;
    }
    cf_parquet_records_free(r);
    cf_parquet_free(pq);
    sink += rows;
    return rows;
}

static void ours_records(const char *path)
{
    ours_records_with(path, BATCH, 1);
}

/* ---- the run ------------------------------------------------------------------------------ */

typedef struct fcase {
    const char *name, *select, *codec;
} fcase;

static const fcase cases[] = {
    {"int64_plain", "SELECT (hash(i) >> 1)::BIGINT AS v FROM range(%zu) t(i)", "uncompressed"},
    {"int64_dict", "SELECT (hash(i) %% 1000)::BIGINT * 7919 AS v FROM range(%zu) t(i)",
     "uncompressed"},
    {"string_dict", "SELECT 'name-' || (hash(i) %% 1000)::VARCHAR AS s FROM range(%zu) t(i)",
     "uncompressed"},
    {"list_int64",
     "SELECT list_transform(range((hash(i) %% 7)::BIGINT), x -> (hash(i * 8 + x) >> 1)::BIGINT) "
     "AS l FROM range(%zu) t(i)",
     "uncompressed"},
    {"int64_zstd", "SELECT (i // 4 + hash(i) %% 16)::BIGINT AS v FROM range(%zu) t(i)", "zstd"},
    {"int64_snappy", "SELECT (i // 4 + hash(i) %% 16)::BIGINT AS v FROM range(%zu) t(i)", "snappy"},
};

/* Written for the every-core table only. */
static const fcase wide_case = {
    "lineitem_wide",
    "SELECT (i // 4 + 1)::BIGINT AS l_orderkey, (hash(i) %% 200000 + 1)::BIGINT AS l_partkey, "
    "(hash(i * 3) %% 10000 + 1)::BIGINT AS l_suppkey, (i %% 7 + 1)::INTEGER AS l_linenumber, "
    "((hash(i * 5) %% 50) + 1)::DECIMAL(15,2) AS l_quantity, "
    "((hash(i * 7) %% 10000000) / 100.0)::DECIMAL(15,2) AS l_extendedprice, "
    "((hash(i * 11) %% 11) / 100.0)::DECIMAL(15,2) AS l_discount, "
    "((hash(i * 13) %% 9) / 100.0)::DECIMAL(15,2) AS l_tax, "
    "['A','N','R'][(hash(i * 17) %% 3 + 1)::INTEGER] AS l_returnflag, "
    "['F','O'][(hash(i * 19) %% 2 + 1)::INTEGER] AS l_linestatus, "
    "DATE '1992-01-01' + (hash(i * 23) %% 2500)::INTEGER AS l_shipdate, "
    "DATE '1992-01-01' + (hash(i * 29) %% 2500)::INTEGER AS l_commitdate, "
    "DATE '1992-01-01' + (hash(i * 31) %% 2500)::INTEGER AS l_receiptdate, "
    "['DELIVER IN PERSON','COLLECT COD','NONE','TAKE BACK RETURN'][(hash(i * 37) %% 4 + "
    "1)::INTEGER] AS l_shipinstruct, "
    "['AIR','FOB','MAIL','RAIL','REG AIR','SHIP','TRUCK'][(hash(i * 41) %% 7 + 1)::INTEGER] "
    "AS l_shipmode, "
    "md5(i::VARCHAR)[1:(hash(i * 43) %% 30 + 10)::INTEGER] AS l_comment "
    "FROM range(%zu) t(i)",
    "snappy"};

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct stat2 {
    double med, best;
} stat2;

static stat2 summarize(double *t, int runs)
{
    qsort(t, (size_t)runs, sizeof(double), cmpd);
    return (stat2){t[runs / 2], t[0]};
}

/* The file of case fc with `rows` rows in dir, written by DuckDB once. */
static void case_path(const fcase *fc, const char *dir, size_t rows, char *path, size_t cap)
{
    struct stat st;
    snprintf(path, cap, "%s/%s.%zu.parquet", dir, fc->name, rows);
    if (stat(path, &st) == 0)
        return; /* written once, kept for later runs */
    char sel[4096], sql[8192], tmp[4200];
    snprintf(sel, sizeof sel, fc->select, rows);
    snprintf(sql, sizeof sql, "COPY (%s) TO '%s.tmp' (FORMAT parquet, COMPRESSION %s)", sel, path,
             fc->codec);
    duck_exec("SET threads=1"); /* the same row groups whatever the machine */
    duck_exec(sql);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (rename(tmp, path) != 0) {
        perror(path);
        exit(1);
    }
}

/* One round of the every-core table at one thread (both sides) or at each side's
 * default: ours, then DuckDB, each timed in wall and CPU seconds. */
static void one_round(const char *path, bool one_thread, double *ours_wall, double *duck_wall,
                      double *ours_cpu, double *duck_cpu)
{
    duck_exec(one_thread ? "SET threads=1" : "RESET threads");
    double w0 = bench_wall(), c0 = bench_cpu();
    ours_records_with(path, 65536, one_thread ? 1 : 0);
    double w1 = bench_wall(), c1 = bench_cpu();
    duck_scan(path);
    double w2 = bench_wall(), c2 = bench_cpu();
    *ours_wall = w1 - w0;
    *duck_wall = w2 - w1;
    *ours_cpu = c1 - c0;
    *duck_cpu = c2 - c1;
}

/* Every core: wall seconds at one thread and at the default, both sides. */
static void threads_table(const char *dir, size_t rows, int runs, bool json_only)
{
    if (!json_only)
        printf("\nevery core (wall seconds, medians; ours threads=0 and DuckDB's default)\n"
               "%-14s %9s | %8s %8s %6s | %8s %8s %6s | %8s %8s %8s %8s\n",
               "file", "rows", "ours 1T", "dk 1T", "1T x", "ours NT", "dk NT", "NT x", "cpu 1T",
               "dk 1T", "cpu NT", "dk NT");
    size_t ncase = sizeof cases / sizeof cases[0];
    for (size_t ci = 0; ci <= ncase; ci++) {
        const fcase *fc = ci < ncase ? &cases[ci] : &wide_case;
        if (getenv("CF_BENCH_FILTER") && !strstr(fc->name, getenv("CF_BENCH_FILTER")))
            continue;
        char path[4096];
        case_path(fc, dir, rows, path, sizeof path);
        uint64_t got = ours_records_with(path, 65536, 0);
        duck_exec("RESET threads");
        if (duck_scan(path) != got) {
            fprintf(stderr, "bench_parquet_read: %s: DuckDB and we disagree on the rows\n", path);
            exit(1);
        }
        double o1[99], d1[99], on[99], dn[99], oc[99], dc[99], oc1[99], dc1[99];
        for (int r = 0; r < runs; r++) { /* alternated, so load hits all alike */
            one_round(path, true, &o1[r], &d1[r], &oc1[r], &dc1[r]);
            one_round(path, false, &on[r], &dn[r], &oc[r], &dc[r]);
        }
        stat2 so1 = summarize(o1, runs), sd1 = summarize(d1, runs), son = summarize(on, runs),
              sdn = summarize(dn, runs), soc = summarize(oc, runs), sdc = summarize(dc, runs),
              soc1 = summarize(oc1, runs), sdc1 = summarize(dc1, runs);
        if (!json_only)
            printf(
                "%-14s %9llu | %8.4f %8.4f %6.2f | %8.4f %8.4f %6.2f | %8.4f %8.4f %8.4f %8.4f\n",
                fc->name, (unsigned long long)got, so1.med, sd1.med, sd1.med / so1.med, son.med,
                sdn.med, sdn.med / son.med, soc1.med, sdc1.med, soc.med, sdc.med);
        fprintf(json_only ? stdout : stderr,
                "{\"file\": \"%s\", \"table\": \"threads\", \"rows\": %llu, "
                "\"ours_1t_wall_s\": %.6f, \"duckdb_1t_wall_s\": %.6f, \"ours_nt_wall_s\": %.6f, "
                "\"duckdb_nt_wall_s\": %.6f, \"ours_1t_cpu_s\": %.6f, \"duckdb_1t_cpu_s\": %.6f, "
                "\"ours_nt_cpu_s\": %.6f, \"duckdb_nt_cpu_s\": %.6f, "
                "\"vs_duckdb_1t\": %.2f, \"vs_duckdb_nt\": %.2f}\n",
                fc->name, (unsigned long long)got, so1.med, sd1.med, son.med, sdn.med, soc1.med,
                sdc1.med, soc.med, sdc.med, sd1.med / so1.med, sdn.med / son.med);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    size_t rows = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000000;
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    struct stat st;
    const char *dir = argc > 3                     ? argv[3]
                      : stat("/dev/shm", &st) == 0 ? "/dev/shm/cf_parquet_read"
                                                   : "/tmp/cf_parquet_read";
    if (rows == 0)
        rows = 1;
    if (runs < 1 || runs > 99)
        runs = 5;
    bool json_only = getenv("CF_BENCH_JSON") != NULL;
    mkdir(dir, 0777);
    duck_start();
    duck_exec("SET threads=1");
    if (!json_only)
        printf(
            "%-13s %9s %10s | %-7s %9s %8s %7s | %-7s %9s %8s %7s | %-7s %9s %8s %7s | %6s %6s\n",
            "file", "rows", "values", "column", "values/s", "MB/s", "/memcpy", "records",
            "values/s", "MB/s", "/memcpy", "duckdb", "values/s", "MB/s", "/memcpy", "col/dk",
            "rec/dk");
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const fcase *fc = &cases[ci];
        if (getenv("CF_BENCH_FILTER") && !strstr(fc->name, getenv("CF_BENCH_FILTER")))
            continue;
        char path[4096];
        case_path(fc, dir, rows, path, sizeof path);
        duck_exec("SET threads=1");
        counts c = {0};
        ours_column(path, &c); /* warm up (page cache, allocator) and count */
        ours_records(path);
        uint64_t drows = duck_scan(path);
        if (drows != c.rows) {
            fprintf(stderr, "bench_parquet_read: %s: DuckDB read %llu rows, we %llu\n", path,
                    (unsigned long long)drows, (unsigned long long)c.rows);
            return 1;
        }
        uint8_t *src = malloc(c.bytes + 64), *dst = malloc(c.bytes + 64);
        memset(src, 1, c.bytes + 64);
        memset(dst, 2, c.bytes + 64);
        double tc[99], tr[99], td[99], tm[99];
        for (int r = 0; r < runs; r++) { /* interleaved, so load hits all alike */
            double t0 = bench_cpu();
            ours_column(path, NULL);
            double t1 = bench_cpu();
            ours_records(path);
            double t2 = bench_cpu();
            duck_scan(path);
            double t3 = bench_cpu();
            memcpy(dst, src, c.bytes);
            sink += dst[c.bytes / 2];
            double t4 = bench_cpu();
            tc[r] = t1 - t0;
            tr[r] = t2 - t1;
            td[r] = t3 - t2;
            tm[r] = t4 - t3;
        }
        free(src);
        free(dst);
        stat2 sc = summarize(tc, runs), sr = summarize(tr, runs), sd = summarize(td, runs),
              sm = summarize(tm, runs);
        double mem = sm.med > 1e-9 ? sm.med : 1e-9;
        if (!json_only)
            printf("%-13s %9llu %10llu | %7s %9.3g %8.1f %7.2f | %7s %9.3g %8.1f %7.2f | %7s "
                   "%9.3g %8.1f %7.2f | %6.2f %6.2f\n",
                   fc->name, (unsigned long long)c.rows, (unsigned long long)c.levels, "",
                   (double)c.levels / sc.med, (double)c.bytes / sc.med / 1e6, sc.med / mem, "",
                   (double)c.levels / sr.med, (double)c.bytes / sr.med / 1e6, sr.med / mem, "",
                   (double)c.levels / sd.med, (double)c.bytes / sd.med / 1e6, sd.med / mem,
                   sd.med / sc.med, sd.med / sr.med);
        fprintf(json_only ? stdout : stderr,
                "{\"file\": \"%s\", \"rows\": %llu, \"values\": %llu, \"decoded_bytes\": %llu, "
                "\"column_median_s\": %.6f, \"column_best_s\": %.6f, \"records_median_s\": %.6f, "
                "\"records_best_s\": %.6f, \"duckdb_median_s\": %.6f, \"duckdb_best_s\": %.6f, "
                "\"memcpy_median_s\": %.6f, \"column_vs_duckdb\": %.2f, "
                "\"records_vs_duckdb\": %.2f}\n",
                fc->name, (unsigned long long)c.rows, (unsigned long long)c.levels,
                (unsigned long long)c.bytes, sc.med, sc.best, sr.med, sr.best, sd.med, sd.best,
                sm.med, sd.med / sc.med, sd.med / sr.med);
        fflush(stdout);
    }
    if (!getenv("CF_BENCH_ONE_THREAD"))
        threads_table(dir, rows, runs, json_only);
    return 0;
}

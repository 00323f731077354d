/* One reader shared by 8 threads (reader.h: a reader is immutable once open).
 * Each thread has its own iterators and does random ordinal seeks, value
 * seeks and scans over files of several encodings (BIT_SHUFFLE, DICT, PREFIX,
 * PLAIN; nullable; LZ4, Snappy, zlib; three readers sharing a block cache),
 * checking every row against the values written. Runs in the normal ctest and
 * is the target of `make tsan` (ThreadSanitizer) and `make memcheck`.
 *
 * cmocka's asserts longjmp and are not thread-safe, so worker threads only
 * record their first mismatch; the main thread asserts there was none. */
/* cf-label: threads */
#include "test_common.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/cfile.h>

#include "support_mem.h"
#include "support_opts.h"

enum { NTHREADS = 8, NFILES = 5 };

/* Operations per thread; CF_THREAD_OPS in the environment overrides it. */
#define DEFAULT_OPS 1000

typedef struct col {
    const char *name;
    cf_writer_options o;
    size_t n;
    uint8_t *vals; /* n row-aligned values in memory form */
    bool *valid;   /* NULL = no NULL rows */
    bool sorted;   /* written with a value index */
    char *strings; /* backing store of binary values */
    uint8_t *file; /* the written bytes */
    size_t file_len;
    cf_io *io;
    cf_reader *r;
} col;

static col g_cols[NFILES];
static cf_cache *g_cache;

/* ---- building the files ------------------------------------------------------------ */

static void alloc_col(col *c, size_t n, bool nullable)
{
    c->n = n;
    c->vals = calloc(n, cf_type_size(c->o.type));
    assert_non_null(c->vals);
    c->o.nullable = nullable;
    if (nullable) {
        c->valid = calloc(n, sizeof *c->valid);
        assert_non_null(c->valid);
    }
}

/* Room for n strings of at most 15 bytes each. */
static char *alloc_strings(col *c)
{
    c->strings = calloc(c->n, 16);
    assert_non_null(c->strings);
    return c->strings;
}

static void write_col(col *c)
{
    cf_error err;
    cf_io *io;
    cf_writer *w;
    CF_ASSERT_OK(mem_writer_create(&w, &io, &c->o, &err), &err);
    uint8_t *bm = NULL;
    if (c->valid) {
        bm = calloc(c->n / 8 + 1, 1);
        assert_non_null(bm);
        for (size_t i = 0; i < c->n; i++)
            if (c->valid[i])
                bm[i / 8] |= (uint8_t)(1u << (i % 8));
    }
    /* Uneven append calls, as a real caller would make them. */
    size_t es = cf_type_size(c->o.type);
    for (size_t i = 0, k; i < c->n; i += k) {
        k = 1 + (i * 7919) % 1500;
        if (k > c->n - i)
            k = c->n - i;
        uint8_t *part = NULL;
        if (bm) {
            part = calloc(k / 8 + 1, 1);
            assert_non_null(part);
            for (size_t j = 0; j < k; j++)
                if (c->valid[i + j])
                    part[j / 8] |= (uint8_t)(1u << (j % 8));
        }
        CF_ASSERT_OK(cf_writer_append(w, c->vals + i * es, part, k, &err), &err);
        free(part);
    }
    mem_file f;
    CF_ASSERT_OK(mem_file_finish(w, io, CF_OK, &f, &err), &err);
    c->file = f.data;
    c->file_len = f.len;
    free(bm);
}

static void build_files(void)
{
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(0x7468726561647331ull));
    col *c;

    /* 0: INT32 BIT_SHUFFLE, value index, sorted with duplicates and gaps; shared cache. */
    c = &g_cols[0];
    c->name = "int32 bitshuffle validx cached";
    c->o = col_options((col_opts){.type = CF_TYPE_INT32,
                                  .enc = CF_ENC_BIT_SHUFFLE,
                                  .validx = true,
                                  .block_size = 1024,
                                  .index_block_size = 256});
    alloc_col(c, 30000, false);
    c->sorted = true;
    for (size_t i = 0; i < c->n; i++)
        ((int32_t *)c->vals)[i] = (int32_t)(i / 3) * 2 - 10000;

    /* 1: INT64 PLAIN, nullable, LZ4. */
    c = &g_cols[1];
    c->name = "int64 plain nullable lz4";
    c->o = col_options((col_opts){
        .type = CF_TYPE_INT64, .enc = CF_ENC_PLAIN, .comp = CF_COMP_LZ4, .block_size = 2048});
    alloc_col(c, 20000, true);
    for (size_t i = 0; i < c->n; i++) {
        c->valid[i] = cf_rng_below(&rng, 5) != 0;
        if (c->valid[i])
            ((int64_t *)c->vals)[i] = (int64_t)cf_rng_next(&rng);
    }

    /* 2: STRING DICT, value index, sorted, Snappy, shared cache. The vocabulary
     * outgrows the dictionary, so later blocks fall back to plain strings (mode 2). */
    c = &g_cols[2];
    c->name = "string dict validx snappy cached";
    c->o = col_options((col_opts){.type = CF_TYPE_STRING,
                                  .enc = CF_ENC_DICT,
                                  .validx = true,
                                  .comp = CF_COMP_SNAPPY,
                                  .block_size = 4096});
    alloc_col(c, 20000, false);
    c->sorted = true;
    char *sp = alloc_strings(c);
    for (size_t i = 0; i < c->n; i++) {
        int len = snprintf(sp + i * 16, 16, "key%07zu", (i / 2) * 3);
        ((cf_slice *)c->vals)[i] = (cf_slice){(const uint8_t *)sp + i * 16, (size_t)len};
    }

    /* 3: DOUBLE BIT_SHUFFLE, nullable, zlib. */
    c = &g_cols[3];
    c->name = "double bitshuffle nullable zlib";
    c->o = col_options((col_opts){.type = CF_TYPE_DOUBLE,
                                  .enc = CF_ENC_BIT_SHUFFLE,
                                  .comp = CF_COMP_ZLIB,
                                  .block_size = 2048});
    alloc_col(c, 15000, true);
    for (size_t i = 0; i < c->n; i++) {
        c->valid[i] = (i / 100) % 4 != 1; /* NULL runs, and all-NULL blocks */
        if (c->valid[i])
            ((double *)c->vals)[i] = (double)cf_rng_below(&rng, 1000000) / 7.0;
    }

    /* 4: STRING PREFIX, nullable, uncompressed, random lengths incl. empty;
     * shared cache (in-place blocks: marks carrying the null flags). */
    c = &g_cols[4];
    c->name = "string prefix nullable cached";
    c->o =
        col_options((col_opts){.type = CF_TYPE_STRING, .enc = CF_ENC_PREFIX, .block_size = 1024});
    alloc_col(c, 12000, true);
    sp = alloc_strings(c);
    for (size_t i = 0; i < c->n; i++) {
        c->valid[i] = cf_rng_below(&rng, 10) != 0;
        size_t len = c->valid[i] ? cf_rng_below(&rng, 16) : 0;
        for (size_t j = 0; j < len; j++)
            sp[i * 16 + j] = (char)('a' + cf_rng_below(&rng, 3));
        ((cf_slice *)c->vals)[i] = (cf_slice){(const uint8_t *)sp + i * 16, len};
    }

    cf_error err;
    CF_ASSERT_OK(cf_cache_create(&g_cache, 1u << 20, &err), &err);
    for (int f = 0; f < NFILES; f++) {
        c = &g_cols[f];
        write_col(c);
        CF_ASSERT_OK(cf_io_open_mem(&c->io, c->file, c->file_len, &err), &err);
        cf_reader_options ro;
        cf_reader_options_init(&ro);
        if (f == 0 || f == 2 || f == 4) /* three readers share the cache */
            ro.cache = g_cache;
        CF_ASSERT_OK(cf_reader_open(&c->r, c->io, &ro, &err), &err);
        assert_int_equal(cf_reader_info(c->r)->num_values, c->n);
    }
}

static void free_files(void)
{
    for (int f = 0; f < NFILES; f++) {
        col *c = &g_cols[f];
        cf_reader_free(c->r);
        cf_io_free(c->io);
        free(c->file);
        free(c->vals);
        free(c->valid);
        free(c->strings);
        memset(c, 0, sizeof *c);
    }
    cf_cache_free(g_cache);
    g_cache = NULL;
}

/* ---- the workers ------------------------------------------------------------------- */

typedef struct worker {
    int id;
    long ops;
    uint64_t seed;
    long failures;
    long rows_checked, seeks, value_seeks, scans;
    char first_failure[320];
} worker;

#define WFAIL(w, ...)                                                                              \
    do {                                                                                           \
        if ((w)->failures++ == 0)                                                                  \
            snprintf((w)->first_failure, sizeof(w)->first_failure, __VA_ARGS__);                   \
        return;                                                                                    \
    } while (0)

static bool value_equal(const col *c, size_t row, const void *got)
{
    if (cf_type_is_binary(c->o.type)) {
        const cf_slice *a = (const cf_slice *)c->vals + row, *b = got;
        return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
    }
    size_t es = cf_type_size(c->o.type);
    return memcmp(c->vals + row * es, got, es) == 0;
}

/* Check `count` rows starting at `first`: values (and bitmap) of a batch. */
static void check_rows(worker *w, const col *c, uint64_t first, size_t count, const void *values,
                       const uint8_t *nonnull)
{
    size_t es = cf_type_size(c->o.type);
    if (first > c->n || count > c->n - first)
        WFAIL(w, "%s: batch [%llu, +%zu) past %zu rows", c->name, (unsigned long long)first, count,
              c->n);
    if (c->valid != NULL && nonnull == NULL)
        WFAIL(w, "%s: nullable batch without a bitmap", c->name);
    for (size_t i = 0; i < count; i++) {
        size_t row = (size_t)first + i;
        bool present = nonnull ? (nonnull[i / 8] >> (i % 8)) & 1 : true;
        bool want = c->valid ? c->valid[row] : true;
        if (present != want)
            WFAIL(w, "%s: row %zu null flag %d, want %d", c->name, row, present, want);
        if (present && !value_equal(c, row, (const uint8_t *)values + i * es))
            WFAIL(w, "%s: row %zu value differs", c->name, row);
    }
    w->rows_checked += (long)count;
}

/* Read up to `rows` rows with next_batch from the current position, which must be `ord`. */
static void read_and_check(worker *w, const col *c, cf_iter *it, uint64_t ord, size_t rows,
                           size_t max_batch)
{
    cf_error err;
    if (cf_iter_current_ordinal(it) != ord)
        WFAIL(w, "%s: positioned at %llu, want %llu", c->name,
              (unsigned long long)cf_iter_current_ordinal(it), (unsigned long long)ord);
    while (rows > 0) {
        cf_batch b;
        cf_status st = cf_iter_next_batch(it, rows < max_batch ? rows : max_batch, &b, &err);
        if (st != CF_OK)
            WFAIL(w, "%s: next_batch at %llu: %s", c->name, (unsigned long long)ord, err.msg);
        if (b.count == 0) {
            if (ord != c->n)
                WFAIL(w, "%s: end of data at %llu of %zu", c->name, (unsigned long long)ord, c->n);
            return;
        }
        if (b.first_ord != ord)
            WFAIL(w, "%s: batch starts at %llu, want %llu", c->name,
                  (unsigned long long)b.first_ord, (unsigned long long)ord);
        check_rows(w, c, b.first_ord, b.count, b.values, b.nonnull);
        if (w->failures)
            return;
        ord += b.count;
        rows -= b.count < rows ? b.count : rows;
    }
}

static int cmp_value(const col *c, size_t row, const void *key)
{
    if (cf_type_is_binary(c->o.type)) {
        const cf_slice *a = (const cf_slice *)c->vals + row, *b = key;
        size_t m = a->len < b->len ? a->len : b->len;
        int r = m ? memcmp(a->data, b->data, m) : 0;
        return r ? r : (a->len > b->len) - (a->len < b->len);
    }
    int32_t a = ((const int32_t *)c->vals)[row], b = *(const int32_t *)key;
    return (a > b) - (a < b);
}

/* First row whose value is >= key, c->n if none. */
static size_t lower_bound(const col *c, const void *key)
{
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_value(c, mid, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void op_ordinal_seek(worker *w, cf_rng *rng, const col *c, cf_iter *it)
{
    cf_error err;
    uint64_t ord = cf_rng_below(rng, c->n + 1);
    cf_status st = cf_iter_seek_to_ordinal(it, ord, &err);
    w->seeks++;
    if (ord == c->n) {
        if (st != CF_ENOTFOUND)
            WFAIL(w, "%s: seek past the end gave %s", c->name, cf_status_str(st));
        return;
    }
    if (st != CF_OK)
        WFAIL(w, "%s: seek_to_ordinal(%llu): %s", c->name, (unsigned long long)ord, err.msg);
    read_and_check(w, c, it, ord, 1 + cf_rng_below(rng, 600), 1 + cf_rng_below(rng, 200));
}

static void op_value_seek(worker *w, cf_rng *rng, const col *c, cf_iter *it)
{
    cf_error err;
    int32_t ikey;
    char sbuf[24];
    cf_slice skey;
    const void *key;
    /* A key at a row's value, just after it (absent), or before/after everything. */
    size_t row = cf_rng_below(rng, c->n);
    int kind = (int)cf_rng_below(rng, 8);
    if (cf_type_is_binary(c->o.type)) {
        skey = ((const cf_slice *)c->vals)[row];
        if (kind == 1 || kind == 2) { /* "key0000003" + "x" sorts after it, before the next */
            memcpy(sbuf, skey.data, skey.len);
            sbuf[skey.len] = 'x';
            skey = (cf_slice){(const uint8_t *)sbuf, skey.len + 1};
        } else if (kind == 3) {
            skey = (cf_slice){(const uint8_t *)"", 0};
        } else if (kind == 4) {
            skey = (cf_slice){(const uint8_t *)"kez", 3};
        }
        key = &skey;
    } else {
        ikey = ((const int32_t *)c->vals)[row];
        if (kind == 1 || kind == 2)
            ikey += 1; /* the values are even: odd keys are absent */
        else if (kind == 3)
            ikey = INT32_MIN;
        else if (kind == 4)
            ikey = INT32_MAX;
        key = &ikey;
    }
    size_t want = lower_bound(c, key);
    bool exact = cf_rng_below(rng, 2) != 0; /* seek must overwrite it */
    cf_status st = cf_iter_seek_at_or_after(it, key, &exact, &err);
    w->value_seeks++;
    if (want == c->n) {
        if (st != CF_ENOTFOUND)
            WFAIL(w, "%s: value seek past the last value gave %s", c->name, cf_status_str(st));
        return;
    }
    if (st != CF_OK)
        WFAIL(w, "%s: seek_at_or_after (row %zu kind %d): %s", c->name, row, kind, err.msg);
    bool want_exact = cmp_value(c, want, key) == 0;
    if (exact != want_exact)
        WFAIL(w, "%s: value seek exact=%d, want %d", c->name, exact, want_exact);
    read_and_check(w, c, it, want, 1 + cf_rng_below(rng, 300), 1 + cf_rng_below(rng, 100));
}

/* A whole scan with caller-owned buffers (copy_batch). */
static void op_scan(worker *w, cf_rng *rng, const col *c, cf_iter *it)
{
    cf_error err;
    w->scans++;
    if (cf_iter_seek_to_first(it, &err) != CF_OK)
        WFAIL(w, "%s: seek_to_first: %s", c->name, err.msg);
    size_t cap = 1 + cf_rng_below(rng, 2000);
    size_t es = cf_type_size(c->o.type);
    uint8_t *vals = malloc(cap * es);
    uint8_t *bm = malloc(cap / 8 + 1);
    if (vals == NULL || bm == NULL) {
        free(vals);
        free(bm);
        WFAIL(w, "out of memory");
    }
    uint64_t ord = 0;
    for (;;) {
        size_t n;
        cf_status st = cf_iter_copy_batch(it, vals, c->valid ? bm : NULL, cap, &n, &err);
        if (st != CF_OK) {
            if (w->failures++ == 0)
                snprintf(w->first_failure, sizeof w->first_failure, "%s: copy_batch at %llu: %s",
                         c->name, (unsigned long long)ord, err.msg);
            break;
        }
        if (n == 0)
            break;
        check_rows(w, c, ord, n, vals, c->valid ? bm : NULL);
        if (w->failures)
            break;
        ord += n;
    }
    if (w->failures == 0 && ord != c->n && w->failures++ == 0)
        snprintf(w->first_failure, sizeof w->first_failure, "%s: scan saw %llu of %zu rows",
                 c->name, (unsigned long long)ord, c->n);
    free(vals);
    free(bm);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    cf_rng rng;
    cf_rng_init(&rng, w->seed);
    cf_iter *its[NFILES] = {0};
    cf_error err;
    for (int f = 0; f < NFILES; f++) {
        if (cf_iter_create(&its[f], g_cols[f].r, &err) != CF_OK) {
            w->failures++;
            snprintf(w->first_failure, sizeof w->first_failure, "iter_create: %s", err.msg);
            goto out;
        }
    }
    for (long i = 0; i < w->ops && w->failures == 0; i++) {
        int f = (int)cf_rng_below(&rng, NFILES);
        const col *c = &g_cols[f];
        uint64_t pick = cf_rng_below(&rng, 100);
        if (pick < 3)
            op_scan(w, &rng, c, its[f]);
        else if (pick < 50 && c->sorted)
            op_value_seek(w, &rng, c, its[f]);
        else
            op_ordinal_seek(w, &rng, c, its[f]);
    }
out:
    for (int f = 0; f < NFILES; f++)
        cf_iter_free(its[f]);
    return NULL;
}

static long ops_per_thread(void)
{
    const char *s = getenv("CF_THREAD_OPS");
    long n = s ? strtol(s, NULL, 10) : DEFAULT_OPS;
    return n > 0 ? n : DEFAULT_OPS;
}

static void run_workers(int nthreads, long ops)
{
    pthread_t tid[NTHREADS];
    worker ws[NTHREADS];
    uint64_t seed = cf_test_seed(0x7468726561647332ull);
    for (int t = 0; t < nthreads; t++) {
        memset(&ws[t], 0, sizeof ws[t]);
        ws[t].id = t;
        ws[t].ops = ops;
        ws[t].seed = seed + (uint64_t)t * 0x9e3779b97f4a7c15ull;
        assert_int_equal(pthread_create(&tid[t], NULL, worker_main, &ws[t]), 0);
    }
    long rows = 0, failures = 0, seeks = 0, vseeks = 0, scans = 0;
    for (int t = 0; t < nthreads; t++) {
        assert_int_equal(pthread_join(tid[t], NULL), 0);
        if (ws[t].failures)
            print_error("thread %d: %ld failures, first: %s\n", t, ws[t].failures,
                        ws[t].first_failure);
        failures += ws[t].failures;
        rows += ws[t].rows_checked;
        seeks += ws[t].seeks;
        vseeks += ws[t].value_seeks;
        scans += ws[t].scans;
    }
    print_message("%d threads x %ld ops: %ld ordinal seeks, %ld value seeks, %ld scans, "
                  "%ld rows checked\n",
                  nthreads, ops, seeks, vseeks, scans, rows);
    assert_int_equal(failures, 0);
    assert_true(seeks > 0 && vseeks > 0 && rows > 0);
}

static int setup(void **state)
{
    (void)state;
    build_files();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free_files();
    return 0;
}

/* The same checks on one thread: a failure here is a reader bug, not a race. */
static void test_threads__single_thread_baseline(void **state)
{
    (void)state;
    run_workers(1, ops_per_thread());
}

static void test_threads__eight_threads_share_one_reader(void **state)
{
    (void)state;
    run_workers(NTHREADS, ops_per_thread());
    /* The shared cache saw traffic from every thread and stayed consistent. */
    cf_cache_stats st;
    cf_cache_get_stats(g_cache, &st);
    print_message("cache: %llu hits, %llu misses\n", (unsigned long long)st.hits,
                  (unsigned long long)st.misses);
    assert_true(st.hits + st.misses > 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads__single_thread_baseline),
        cmocka_unit_test(test_threads__eight_threads_share_one_reader),
    };
    int rc;
    /* Each test builds the files afresh (setup/teardown per test). */
    struct CMUnitTest wrapped[sizeof tests / sizeof tests[0]];
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        wrapped[i] = tests[i];
        wrapped[i].setup_func = setup;
        wrapped[i].teardown_func = teardown;
    }
    rc = CF_RUN_TESTS(argc, argv, wrapped);
    return rc;
}

/* Scans with threads (cf_scan_options.threads > 1) against the same scans
 * on one thread: every batch (counts, ordinals, values, NULLs, arrays) and the
 * stats must be identical, over tables with deltas in files and in memory,
 * several rowsets and a MemRowSet, snapshots, predicates (with and without
 * block skipping), projections and batch sizes. Also: a damaged block fails
 * the scan with the single thread's message (and a damaged block that the
 * single thread never reads fails nothing), scanners freed at any point, and
 * bad thread counts. */
/* cf-label: threads */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support_model.h"
#include "support_table.h"

#include <cfile/delta.h>

#include "rowset/internal.h"
#include "util/alloc.h"
#include "util/buf.h"

#define SCHEMA                                                                                     \
    "id INT64 KEY, a INT32 NULL BLOCK_SIZE 1024, b STRING ENCODING dict_encoding BLOCK_SIZE 512, " \
    "c INT32 ENCODING rle BLOCK_SIZE 256, d DOUBLE NULL BLOCK_SIZE 2048, "                         \
    "e STRING NULL ENCODING plain_encoding BLOCK_SIZE 4096, f INT32[] NULL BLOCK_SIZE 1024"
#define NCOLS 7

/* ---- writing ------------------------------------------------------------------------------ */

static const char *groups[7] = {"g-alpha",   "g-beta", "g-gamma", "g-delta",
                                "g-epsilon", "g-zeta", "g-eta"};

/* Write rows [0, n) (ids 2i) as the table's only rowset, at ts 1. */
static void write_rows(const char *dir, size_t n)
{
    cf_error err;
    cf_schema *s;
    CF_ASSERT_OK(cf_schema_parse(&s, SCHEMA, &err), &err);
    cf_rowset_writer *w;
    CF_ASSERT_OK(cf_rowset_writer_create(&w, dir, s, NULL, &err), &err);
    int64_t *id = calloc(n, sizeof(*id));
    int32_t *a = calloc(n, sizeof(*a)), *c = calloc(n, sizeof(*c));
    double *d = calloc(n, sizeof(*d));
    cf_slice *b = calloc(n, sizeof(*b)), *e = calloc(n, sizeof(*e));
    char(*eb)[24] = calloc(n, sizeof(*eb));
    uint8_t *ann = calloc(n / 8 + 1, 1), *dnn = calloc(n / 8 + 1, 1), *enn = calloc(n / 8 + 1, 1);
    uint8_t *fnn = calloc(n / 8 + 1, 1);
    uint32_t *fc = calloc(n, sizeof(*fc));
    int32_t *fe = calloc(n * 3, sizeof(*fe));
    size_t nfe = 0;
    for (size_t i = 0; i < n; i++) {
        id[i] = (int64_t)i * 2;
        a[i] = (int32_t)(i * 7919 % 1000);
        if (i % 13 != 0)
            ann[i / 8] |= (uint8_t)(1u << (i % 8));
        const char *g = groups[i / 700 % 7]; /* clustered: DICT blocks can be skipped */
        b[i] = (cf_slice){(const uint8_t *)g, strlen(g)};
        c[i] = (int32_t)(i / 300 % 5); /* runs: RLE blocks can be skipped */
        d[i] = (double)(i % 1001) * 0.25;
        if (i % 5 != 0 && (i / 2000) % 3 != 1) /* every fifth, and whole blocks, NULL */
            dnn[i / 8] |= (uint8_t)(1u << (i % 8));
        int l = snprintf(eb[i], sizeof(eb[i]), "e%zu-%s", i * 31 % 977, i % 3 ? "x" : "yy");
        e[i] = (cf_slice){(const uint8_t *)eb[i], (size_t)l};
        if (i % 4 != 0)
            enn[i / 8] |= (uint8_t)(1u << (i % 8));
        if (i % 6 != 0) {
            fnn[i / 8] |= (uint8_t)(1u << (i % 8));
            fc[i] = (uint32_t)(i % 4);
            for (uint32_t k = 0; k < fc[i]; k++)
                fe[nfe++] = (int32_t)(i + k);
        }
    }
    cf_colvec cv[NCOLS] = {{id, NULL, NULL, NULL}, {a, ann, NULL, NULL}, {b, NULL, NULL, NULL},
                           {c, NULL, NULL, NULL},  {d, dnn, NULL, NULL}, {e, enn, NULL, NULL},
                           {fe, fnn, fc, NULL}};
    CF_ASSERT_OK(cf_rowset_writer_append(w, cv, n, &err), &err);
    CF_ASSERT_OK(cf_rowset_writer_finish(w, &err), &err);
    cf_rowset_writer_free(w);
    cf_schema_free(s);
    free(id), free(a), free(c), free(d), free(b), free(e), free(eb), free(ann), free(dnn);
    free(enn), free(fnn), free(fc), free(fe);
}

/* A fresh directory (in memory when there is one; malloc'd) holding a table
 * of rows [0, n) as write_rows writes them; drop_table removes it. */
static char *rows_table(size_t n)
{
    char *dir = strdup(mkdtemp_fast_dir());
    assert_non_null(dir);
    write_rows(dir, n);
    return dir;
}

static void drop_table(char *dir)
{
    CF_ASSERT_RM_RF(dir);
    free(dir);
}

/* Random updates (a, b, c, d, e, f), deletes and inserts of new keys (odd ids)
 * at ts, ts+1, ...; returns the next free ts. */
static uint64_t mutate(cf_table *t, size_t n, cf_rng *rng, size_t ops, uint64_t ts)
{
    cf_error err;
    for (size_t k = 0; k < ops; k++, ts++) {
        int64_t id = (int64_t)cf_rng_below(rng, n) * 2;
        const void *key[1] = {&id};
        int what = (int)cf_rng_below(rng, 10);
        if (what == 0) {
            cf_status st = cf_table_delete(t, key, ts, &err);
            assert_true(st == CF_OK || st == CF_ENOTFOUND);
        } else if (what == 1) {
            int64_t nid = id + 1;
            int32_t av = (int32_t)cf_rng_below(rng, 1000), cvv = (int32_t)cf_rng_below(rng, 5);
            double dv = 3.5;
            cf_slice bv = {(const uint8_t *)"g-new", 5}, ev = {(const uint8_t *)"inserted", 8};
            const void *vals[NCOLS] = {&nid, &av, &bv, &cvv, &dv, cf_rng_below(rng, 2) ? &ev : NULL,
                                       NULL};
            cf_status st = cf_table_insert(t, vals, ts, &err);
            assert_true(st == CF_OK || st == CF_EINVAL);
        } else {
            int32_t av = (int32_t)cf_rng_below(rng, 1000), cvv = (int32_t)cf_rng_below(rng, 5);
            double dv = (double)cf_rng_below(rng, 300);
            const char *g = groups[cf_rng_below(rng, 7)];
            cf_slice bv = {(const uint8_t *)g, strlen(g)}, ev = {(const uint8_t *)"upd", 3};
            int32_t elems[2] = {-1, -2};
            cf_array_cell fv = {CF_TYPE_INT32, cf_rng_below(rng, 3), elems, NULL};
            cf_column_change ch[2];
            size_t col = 1 + cf_rng_below(rng, NCOLS - 1);
            bool null = cf_rng_below(rng, 4) == 0 && col != 2 && col != 3;
            const void *v = col == 1   ? (const void *)&av
                            : col == 2 ? (const void *)&bv
                            : col == 3 ? (const void *)&cvv
                            : col == 4 ? (const void *)&dv
                            : col == 5 ? (const void *)&ev
                                       : (const void *)&fv;
            ch[0] = (cf_column_change){col, null ? NULL : v};
            cf_status st = cf_table_update(t, key, ch, 1, ts, &err);
            assert_true(st == CF_OK || st == CF_ENOTFOUND);
        }
    }
    return ts;
}

/* ---- one scan, serialized ------------------------------------------------------------------ */

static void put(cf_buf *o, const void *p, size_t n)
{
    cf_buf_append(o, p, n);
    assert_false(o->oom);
}

/* Append batch b to o in a form that two equal scans share byte for byte. */
static void serialize(cf_buf *o, const cf_schema *s, const size_t *proj, const cf_row_batch *b)
{
    put(o, &b->count, sizeof(b->count));
    put(o, b->ords, b->count * sizeof(uint64_t));
    for (size_t j = 0; j < b->ncols; j++) {
        const cf_column *c = cf_schema_column_at(s, proj[j]);
        const cf_batch *x = &b->cols[j];
        size_t w = cf_type_size(c->type);
        size_t nv = c->is_array ? x->elem_offsets[b->count] - x->elem_offsets[0] : b->count;
        size_t base = c->is_array ? x->elem_offsets[0] : 0;
        for (size_t i = 0; i < b->count; i++) {
            uint8_t nn = bit(x->nonnull, i);
            put(o, &nn, 1);
            if (c->is_array)
                put(o, &x->elem_offsets[i + 1], 4);
        }
        for (size_t i = 0; i < nv; i++) {
            if (c->is_array) {
                uint8_t enn = bit(x->elem_nonnull, base + i);
                put(o, &enn, 1);
            }
            const uint8_t *v = (const uint8_t *)x->values + (base + i) * w;
            if (cf_type_is_binary(c->type)) {
                cf_slice sl;
                memcpy(&sl, v, sizeof(sl));
                put(o, &sl.len, sizeof(sl.len));
                if (sl.len)
                    put(o, sl.data, sl.len);
            } else if (c->is_array || bit(x->nonnull, i)) {
                put(o, v, w);
            }
        }
    }
}

typedef struct scan_case {
    size_t proj[8];
    size_t nproj;
    cf_pred preds[3];
    size_t npreds;
    uint64_t snapshot;
    size_t batch_rows;
    /* predicate values */
    int32_t a, c;
    double d;
    int64_t lo, hi;
    cf_slice b;
} scan_case;

static void draw_case(scan_case *k, cf_rng *rng, uint64_t last_ts, size_t n)
{
    memset(k, 0, sizeof(*k));
    k->nproj = 1 + cf_rng_below(rng, 6);
    for (size_t j = 0; j < k->nproj; j++)
        k->proj[j] = cf_rng_below(rng, NCOLS); /* repeats allowed */
    k->a = (int32_t)cf_rng_below(rng, 1000);
    k->c = (int32_t)cf_rng_below(rng, 5);
    k->d = (double)cf_rng_below(rng, 250);
    k->lo = (int64_t)cf_rng_below(rng, 2 * n);
    k->hi = k->lo + (int64_t)cf_rng_below(rng, 2 * n);
    const char *g = groups[cf_rng_below(rng, 7)];
    k->b = (cf_slice){(const uint8_t *)g, strlen(g)};
    size_t np = cf_rng_below(rng, 3);
    for (size_t i = 0; i < np; i++) {
        switch (cf_rng_below(rng, 7)) {
        case 0: k->preds[k->npreds++] = (cf_pred){1, CF_PRED_GE, &k->a}; break;
        case 1: k->preds[k->npreds++] = (cf_pred){2, CF_PRED_EQ, &k->b}; break;
        case 2: k->preds[k->npreds++] = (cf_pred){3, CF_PRED_EQ, &k->c}; break;
        case 3: k->preds[k->npreds++] = (cf_pred){4, CF_PRED_LT, &k->d}; break;
        case 4: k->preds[k->npreds++] = (cf_pred){4, CF_PRED_IS_NULL, NULL}; break;
        case 5:
            k->preds[k->npreds++] = (cf_pred){0, CF_PRED_GE, &k->lo};
            k->preds[k->npreds++] = (cf_pred){0, CF_PRED_LT, &k->hi};
            break;
        default: k->preds[k->npreds++] = (cf_pred){6, CF_PRED_IS_NOT_NULL, NULL}; break;
        }
        if (k->npreds >= 2)
            break;
    }
    k->snapshot = cf_rng_below(rng, 3) == 0 ? CF_SNAPSHOT_LATEST : 2 + cf_rng_below(rng, last_ts);
    static const size_t sizes[] = {1, 7, 100, 1000, 1024, 4096, 5000};
    k->batch_rows = sizes[cf_rng_below(rng, sizeof(sizes) / sizeof(sizes[0]))];
}

/* Run case k with `threads` on the table (or on its rowset i when rs != NULL,
 * reading ahead by `window` rows unless 0); the batches serialized into out,
 * the stats into st. */
static cf_status run_case_w(cf_table *t, cf_rowset *rs, const scan_case *k, size_t threads,
                            size_t window, cf_buf *out, cf_scan_stats *st, cf_error *err)
{
    cf_scan_options o;
    cf_scan_options_init(&o);
    o.cols = k->proj;
    o.ncols = k->nproj;
    o.preds = k->preds;
    o.npreds = k->npreds;
    o.snapshot = k->snapshot;
    o.batch_rows = k->batch_rows;
    o.threads = threads;
    cf_buf_clear(out);
    const cf_schema *s = cf_table_schema(t);
    cf_rowset_scanner *rsc = NULL;
    cf_table_scanner *tsc = NULL;
    cf_status r = rs != NULL ? cf_rowset_scanner_create(&rsc, rs, &o, err)
                             : cf_table_scanner_create(&tsc, t, &o, err);
    if (r != CF_OK)
        return r;
    if (rsc != NULL && window != 0)
        cf_rowset_scanner_set_window_rows(rsc, window);
    for (;;) {
        cf_row_batch b;
        r = rsc != NULL ? cf_rowset_scanner_next(rsc, &b, err)
                        : cf_table_scanner_next(tsc, &b, err);
        if (r != CF_OK || b.count == 0)
            break;
        serialize(out, s, k->proj, &b);
    }
    *st = rsc != NULL ? *cf_rowset_scanner_stats(rsc) : *cf_table_scanner_stats(tsc);
    cf_rowset_scanner_free(rsc);
    cf_table_scanner_free(tsc);
    return r;
}

static cf_status run_case(cf_table *t, cf_rowset *rs, const scan_case *k, size_t threads,
                          cf_buf *out, cf_scan_stats *st, cf_error *err)
{
    return run_case_w(t, rs, k, threads, 0, out, st, err);
}

static void assert_same_stats(const cf_scan_stats *x, const cf_scan_stats *y)
{
    assert_int_equal(x->rows_in_range, y->rows_in_range);
    assert_int_equal(x->rows_examined, y->rows_examined);
    assert_int_equal(x->batches_skipped, y->batches_skipped);
    assert_int_equal(x->bloom_pruned, y->bloom_pruned);
    assert_int_equal(x->blocks_skipped, y->blocks_skipped);
    assert_int_equal(x->rows_skipped, y->rows_skipped);
}

/* Case k with 1, 2, 3 and CPU-count threads: the same bytes, stats and status. */
static void check_case(cf_table *t, cf_rowset *rs, const scan_case *k, size_t *checked_rows)
{
    static const size_t counts[] = {2, 3, CF_SCAN_THREADS_AUTO};
    cf_buf one, many;
    cf_buf_init(&one);
    cf_buf_init(&many);
    cf_scan_stats s1, s2;
    cf_error e1, e2;
    cf_status st1 = run_case(t, rs, k, 1, &one, &s1, &e1);
    CF_ASSERT_OK(st1, &e1);
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        cf_status st2 = run_case(t, rs, k, counts[i], &many, &s2, &e2);
        CF_ASSERT_OK(st2, &e2);
        CF_ASSERT_BYTES(many.data, many.len, one.data, one.len);
        assert_same_stats(&s2, &s1);
    }
    *checked_rows += s1.rows_examined;
    cf_buf_dispose(&one);
    cf_buf_dispose(&many);
}

/* ---- tests ------------------------------------------------------------------------------- */

static void test_scan_threads__same_as_one_thread(void **state)
{
    (void)state;
    cf_rng rng;
    uint64_t seed = cf_test_seed(17);
    cf_rng_init(&rng, seed);
    const size_t n = 20000;
    char *dir = rows_table(n);
    cf_error err;
    cf_table *t = table_open(dir);
    cf_table_set_sync(t, CF_TABLE_SYNC_NONE, 0);
    cf_table_set_compaction(t, false, 0);
    size_t rows = 0;
    uint64_t ts = 2;
    for (int round = 0; round < 4; round++) {
        /* round 0: base data only; 1: deltas in memory; 2: flushed deltas, a
         * second rowset and a MemRowSet; 3: compacted (UNDO history) plus new deltas */
        if (round == 1)
            ts = mutate(t, n, &rng, 300, ts);
        if (round == 2) {
            CF_ASSERT_OK(cf_table_flush(t, &err), &err);
            ts = mutate(t, n, &rng, 300, ts);
        }
        if (round == 3) {
            CF_ASSERT_OK(cf_table_compact(t, 0, &err), &err);
            ts = mutate(t, n, &rng, 200, ts);
        }
        for (int i = 0; i < 12; i++) {
            scan_case k;
            draw_case(&k, &rng, ts, n);
            check_case(t, NULL, &k, &rows);
            check_case(t, cf_table_rowset_at(t, 0, NULL), &k, &rows);
        }
    }
    assert_true(rows > 100000); /* the cases did read something */
    cf_table_free(t);
    drop_table(dir);
}

/* The byte at the middle of column `col`'s file flipped. */
static void damage_column(const char *dir, size_t col, double where)
{
    cf_error err;
    cf_rowset *rs;
    CF_ASSERT_OK(cf_rowset_open(&rs, dir, NULL, &err), &err);
    const char *name, *role;
    size_t seen = 0;
    char path[600] = "";
    for (size_t i = 0; cf_rowset_file_at(rs, i, &name, &role); i++) {
        if (strcmp(role, "column") == 0 && seen++ == col)
            snprintf(path, sizeof(path), "%s/%s", dir, name);
    }
    cf_rowset_free(rs);
    assert_true(path[0] != '\0');
    int fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    struct stat sb;
    assert_int_equal(fstat(fd, &sb), 0);
    off_t at = (off_t)((double)sb.st_size * where);
    uint8_t byte;
    assert_int_equal(pread(fd, &byte, 1, at), 1);
    byte ^= 0x5a;
    assert_int_equal(pwrite(fd, &byte, 1, at), 1);
    close(fd);
}

static void test_scan_threads__damaged_block(void **state)
{
    (void)state;
    const size_t n = 20000;
    /* e (PLAIN strings) damaged early (inside the first window of reads
     * ahead) or late; a (bit-shuffled ints) in the middle */
    static const struct {
        size_t col;
        double where;
    } cases[] = {{5, 0.1}, {5, 0.8}, {1, 0.5}};
    for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
        char *dir = rows_table(n);
        damage_column(dir, cases[ci].col, cases[ci].where);
        cf_error err;
        cf_table *t;
        cf_table_options to;
        cf_table_options_init(&to);
        to.read_only = true;
        CF_ASSERT_OK(cf_table_open(&t, dir, &to, &err), &err);
        cf_rowset *rs = cf_table_rowset_at(t, 0, NULL);
        /* every column: fails, with the one thread's message */
        scan_case k;
        memset(&k, 0, sizeof(k));
        k.nproj = NCOLS;
        for (size_t j = 0; j < NCOLS; j++)
            k.proj[j] = j;
        k.snapshot = CF_SNAPSHOT_LATEST;
        k.batch_rows = 1000;
        cf_buf one, many;
        cf_buf_init(&one);
        cf_buf_init(&many);
        cf_scan_stats s1, s2;
        cf_error e1, e2;
        cf_status st1 = run_case(t, rs, &k, 1, &one, &s1, &e1);
        assert_int_equal(st1, CF_ECORRUPT);
        for (size_t threads = 2; threads <= 4; threads++) {
            cf_status st2 = run_case(t, rs, &k, threads, &many, &s2, &e2);
            assert_int_equal(st2, st1);
            assert_string_equal(e2.msg, e1.msg);
            CF_ASSERT_BYTES(many.data, many.len, one.data, one.len); /* the rows before it */
        }
        /* a predicate every row is examined for and none passes (b is never
         * NULL; IS NULL skips no blocks): one thread never reads the damaged
         * column, so the threads, reading it ahead, must not fail either */
        k.preds[0] = (cf_pred){2, CF_PRED_IS_NULL, NULL};
        k.npreds = 1;
        st1 = run_case(t, rs, &k, 1, &one, &s1, &e1);
        CF_ASSERT_OK(st1, &e1);
        assert_int_equal(s1.rows_examined, n);
        for (size_t threads = 2; threads <= 4; threads++) {
            CF_ASSERT_OK(run_case(t, rs, &k, threads, &many, &s2, &e2), &e2);
            assert_int_equal(many.len, 0);
            assert_same_stats(&s2, &s1);
        }
        cf_buf_dispose(&one);
        cf_buf_dispose(&many);
        cf_table_free(t);
        drop_table(dir);
    }
}

static void test_scan_threads__free_early(void **state)
{
    (void)state;
    char *dir = rows_table(20000);
    cf_error err;
    cf_table *t = table_open(dir);
    cf_rowset *rs = cf_table_rowset_at(t, 0, NULL);
    cf_scan_options o;
    cf_scan_options_init(&o);
    o.threads = 4;
    o.batch_rows = 777;
    for (int after = 0; after < 5; after++) {
        cf_rowset_scanner *sc;
        CF_ASSERT_OK(cf_rowset_scanner_create(&sc, rs, &o, &err), &err);
        for (int i = 0; i < after * 3; i++) {
            cf_row_batch b;
            CF_ASSERT_OK(cf_rowset_scanner_next(sc, &b, &err), &err);
        }
        cf_rowset_scanner_free(sc); /* workers are joined, windows freed (ASan: no leak) */
        cf_table_scanner *ts = table_scan_open(t, &o);
        for (int i = 0; i < after; i++) {
            cf_row_batch b;
            CF_ASSERT_OK(cf_table_scanner_next(ts, &b, &err), &err);
        }
        cf_table_scanner_free(ts);
    }
    /* a merged scan (a MemRowSet row too) freed after its first batch */
    int64_t id = 1;
    int32_t a = 1, c = 1;
    double d = 1;
    cf_slice b = {(const uint8_t *)"x", 1};
    const void *vals[NCOLS] = {&id, &a, &b, &c, &d, NULL, NULL};
    CF_ASSERT_OK(cf_table_insert(t, vals, 2, &err), &err);
    cf_table_scanner *ts = table_scan_open(t, &o);
    cf_row_batch bt;
    CF_ASSERT_OK(cf_table_scanner_next(ts, &bt, &err), &err);
    assert_true(bt.count > 0);
    cf_table_scanner_free(ts);
    cf_table_free(t);
    drop_table(dir);
}

/* The windows read ahead (and the pipeline that reads the next while batches
 * are taken from the current) at many sizes, against one thread: windows of
 * one row, of fewer rows than a batch, not a multiple of the block sizes,
 * larger than the table; over random shapes with deltas in files and memory. */
static void test_scan_threads__window_sizes(void **state)
{
    (void)state;
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(34));
    const size_t n = 12000;
    char *dir = rows_table(n);
    cf_error err;
    cf_table *t = table_open(dir);
    cf_table_set_sync(t, CF_TABLE_SYNC_NONE, 0);
    cf_table_set_compaction(t, false, 0);
    uint64_t ts = mutate(t, n, &rng, 200, 2);
    CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    ts = mutate(t, n, &rng, 200, ts);
    static const size_t windows[] = {1, 7, 999, 1024, 3000, 8192, 50000};
    cf_buf one, many;
    cf_buf_init(&one);
    cf_buf_init(&many);
    size_t rows = 0;
    for (int i = 0; i < 40; i++) {
        scan_case k;
        draw_case(&k, &rng, ts, n);
        cf_rowset *rs = cf_table_rowset_at(t, 0, NULL);
        cf_scan_stats s1, s2;
        cf_error e1, e2;
        CF_ASSERT_OK(run_case_w(t, rs, &k, 1, 0, &one, &s1, &e1), &e1);
        for (size_t w = 0; w < sizeof(windows) / sizeof(windows[0]); w++) {
            size_t threads = 2 + cf_rng_below(&rng, 3);
            CF_ASSERT_OK(run_case_w(t, rs, &k, threads, windows[w], &many, &s2, &e2), &e2);
            CF_ASSERT_BYTES(many.data, many.len, one.data, one.len);
            assert_same_stats(&s2, &s1);
        }
        rows += s1.rows_examined;
    }
    assert_true(rows > 50000);
    cf_buf_dispose(&one);
    cf_buf_dispose(&many);
    cf_table_free(t);
    drop_table(dir);
}

/* A table without a block cache, and a scan that fills none (a whole rowset):
 * the blocks live in the iterators' own buffers, which the next window's read
 * reuses while batches still take rows from this window; binary values must
 * have been copied out (a window's last batch once kept pointing into them). */
static void test_scan_threads__no_cache(void **state)
{
    (void)state;
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(51));
    const size_t n = 12000;
    char *dir = rows_table(n);
    cf_error err;
    cf_table *t;
    cf_table_options to;
    cf_table_options_init(&to);
    to.cache_bytes = 0;
    CF_ASSERT_OK(cf_table_open(&t, dir, &to, &err), &err);
    cf_table_set_sync(t, CF_TABLE_SYNC_NONE, 0);
    cf_table_set_compaction(t, false, 0);
    uint64_t ts = mutate(t, n, &rng, 200, 2);
    CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    size_t rows = 0;
    for (int i = 0; i < 12; i++) {
        scan_case k;
        draw_case(&k, &rng, ts, n);
        if (i < 4) { /* whole rows, no predicate: every string of every window */
            k.nproj = NCOLS;
            for (size_t j = 0; j < NCOLS; j++)
                k.proj[j] = j;
            k.npreds = 0;
        }
        check_case(t, cf_table_rowset_at(t, 0, NULL), &k, &rows);
        check_case(t, NULL, &k, &rows);
    }
    assert_true(rows > 50000);
    cf_table_free(t);
    drop_table(dir);
}

/* An allocation failing anywhere in a threaded scan (the caller's or a
 * worker's read ahead): the scan either gives the single thread's rows (a
 * window that failed is read again batch by batch) or stops with CF_ENOMEM;
 * it never hangs, and leaks nothing (ASan). */
static void test_scan_threads__alloc_failures(void **state)
{
    (void)state;
    const size_t n = 6000;
    char *dir = rows_table(n);
    cf_table *t = table_open(dir);
    cf_table_set_sync(t, CF_TABLE_SYNC_NONE, 0);
    cf_rng rng;
    cf_rng_init(&rng, 7);
    (void)mutate(t, n, &rng, 100, 2);
    cf_rowset *rs = cf_table_rowset_at(t, 0, NULL);
    scan_case k;
    memset(&k, 0, sizeof(k));
    k.nproj = 5;
    size_t proj[5] = {0, 1, 2, 4, 5}; /* no arrays: every column read ahead */
    memcpy(k.proj, proj, sizeof(proj));
    k.d = 100;
    k.preds[0] = (cf_pred){4, CF_PRED_LT, &k.d};
    k.npreds = 1;
    k.snapshot = CF_SNAPSHOT_LATEST;
    k.batch_rows = 500;
    cf_buf one[2], many; /* one thread: the rowset's rows, the table's */
    cf_buf_init(&one[0]);
    cf_buf_init(&one[1]);
    cf_buf_init(&many);
    cf_scan_stats s1, s2;
    cf_error e1, e2;
    CF_ASSERT_OK(run_case_w(t, rs, &k, 1, 0, &one[0], &s1, &e1), &e1);
    CF_ASSERT_OK(run_case_w(t, NULL, &k, 1, 0, &one[1], &s1, &e1), &e1);
    assert_true(one[1].len > one[0].len); /* the MemRowSet's rows too */
    /* the output buffer never grows during the runs below (an injected
     * failure must hit the scan, not the test) */
    assert_non_null(cf_buf_extend(&many, one[1].len + 4096));
    cf_alloc_stats as;
    cf_alloc_stats_start();
    CF_ASSERT_OK(run_case_w(t, rs, &k, 2, 1500, &many, &s2, &e2), &e2);
    cf_alloc_stats_stop(&as);
    CF_ASSERT_BYTES(many.data, many.len, one[0].data, one[0].len);
    size_t ok = 0, failed = 0;
    for (uint64_t f = 1; f <= as.calls + 5; f++) {
        for (int table = 0; table < 2; table++) {
            cf_alloc_fail_after(f);
            cf_status st = run_case_w(t, table ? NULL : rs, &k, 2 + (f % 2), table ? 0 : 1500,
                                      &many, &s2, &e2);
            cf_alloc_fail_after(0);
            if (st == CF_OK) {
                ok++;
                CF_ASSERT_BYTES(many.data, many.len, one[table].data, one[table].len);
            } else {
                failed++;
                assert_int_equal(st, CF_ENOMEM);
                assert_non_null(strstr(e2.msg, "out of memory"));
            }
        }
    }
    assert_true(failed > 0);
    assert_true(ok > 0);
    cf_buf_dispose(&one[0]);
    cf_buf_dispose(&one[1]);
    cf_buf_dispose(&many);
    cf_table_free(t);
    drop_table(dir);
}

static void test_scan_threads__bad_count(void **state)
{
    (void)state;
    char *dir = rows_table(100);
    cf_error err;
    cf_table *t = table_open(dir);
    cf_scan_options o;
    cf_scan_options_init(&o);
    assert_int_equal(o.threads, 1);
    o.threads = CF_SCAN_MAX_THREADS + 1;
    cf_rowset_scanner *sc = NULL;
    CF_ASSERT_STATUS(cf_rowset_scanner_create(&sc, cf_table_rowset_at(t, 0, NULL), &o, &err),
                     CF_EINVAL, &err);
    assert_null(sc);
    assert_non_null(strstr(err.msg, "threads 65"));
    cf_table_scanner *ts = NULL;
    CF_ASSERT_STATUS(cf_table_scanner_create(&ts, t, &o, &err), CF_EINVAL, &err);
    assert_null(ts);
    o.threads = CF_SCAN_MAX_THREADS; /* allowed; capped by the columns */
    CF_ASSERT_OK(cf_table_scanner_create(&ts, t, &o, &err), &err);
    cf_row_batch b;
    CF_ASSERT_OK(cf_table_scanner_next(ts, &b, &err), &err);
    assert_int_equal(b.count, 100);
    cf_table_scanner_free(ts);
    cf_table_free(t);
    drop_table(dir);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_threads__same_as_one_thread),
        cmocka_unit_test(test_scan_threads__damaged_block),
        cmocka_unit_test(test_scan_threads__free_early),
        cmocka_unit_test(test_scan_threads__window_sizes),
        cmocka_unit_test(test_scan_threads__no_cache),
        cmocka_unit_test(test_scan_threads__alloc_failures),
        cmocka_unit_test(test_scan_threads__bad_count),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

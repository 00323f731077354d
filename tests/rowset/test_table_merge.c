/* The table scanner's merge over many rowsets (table_scan.c): rowsets with
 * disjoint key ranges committed out of key order, interleaved rowsets, rowsets
 * with MemRowSet rows between their keys, and a mix; every layout scanned with
 * batch sizes that split and straddle the rowsets' batches, with and without
 * the key column in the projection, with a predicate; the rows must be the
 * model's, in key order. Disjoint rowsets are read one after another (at most
 * two rowset scanners open at once), and a scan stopped early still counts the
 * rows in range of the rowsets it never reached. A full scan of a rowset
 * larger than half the block cache adds none of its data blocks to it; key
 * ranges do, and smaller rowsets are cached by full scans too. */
#include "test_common.h"

#include <dirent.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>

#include <cfile/cfile.h>
#include <cfile/rowset.h>

#include "rowset/internal.h"
#include "support_model.h"

#define N 2000 /* keys 0 .. N-1 exist in the model */

/* Row id's values: name NULL for every 7th id, of varying length otherwise. */
static int32_t v_of(int64_t id)
{
    return (int32_t)(id % 100);
}

static size_t name_of(int64_t id, char *buf)
{
    return (size_t)snprintf(buf, 32, "n%" PRId64 "%.*s", id, (int)(id % 5), "xxxxx");
}

static bool has_name(int64_t id)
{
    return id % 7 != 0;
}

/* Load the ids [i in 0..N) with part_of(i) == p, for p in `order`, one commit (one
 * rowset) each; ids with part_of(i) < 0 are inserted through the MemRowSet and
 * left there. */
typedef int (*part_fn)(int64_t id);

static cf_table *build(const char *dir, part_fn part_of, const int *order, size_t nparts)
{
    cf_error e;
    cf_schema *s;
    CF_ASSERT_OK(cf_schema_parse(&s, "id INT64 KEY, name STRING NULL, v INT32", &e), &e);
    CF_ASSERT_OK(cf_rowset_create_empty(dir, s, &e), &e);
    cf_schema_free(s);
    cf_table_options o;
    cf_table_options_init(&o);
    o.auto_compact = false; /* keep the rowsets as loaded */
    cf_table *t;
    CF_ASSERT_OK(cf_table_open(&t, dir, &o, &e), &e);
    static int64_t ids[N];
    static int32_t vs[N];
    static cf_slice names[N];
    static char nb[N][32];
    static uint8_t nn[N / 8 + 1];
    for (size_t k = 0; k < nparts; k++) {
        size_t m = 0;
        memset(nn, 0, sizeof(nn));
        for (int64_t id = 0; id < N; id++) {
            if (part_of(id) != order[k])
                continue;
            ids[m] = id;
            vs[m] = v_of(id);
            names[m] = (cf_slice){(const uint8_t *)nb[m], name_of(id, nb[m])};
            if (has_name(id))
                nn[m / 8] |= (uint8_t)(1u << (m % 8));
            m++;
        }
        cf_table_loader *l;
        CF_ASSERT_OK(cf_table_loader_create(&l, t, NULL, &e), &e);
        cf_colvec cv[3] = {
            {ids, NULL, NULL, NULL}, {names, nn, NULL, NULL}, {vs, NULL, NULL, NULL}};
        CF_ASSERT_OK(cf_table_loader_append(l, cv, m, &e), &e);
        CF_ASSERT_OK(cf_table_loader_commit(l, &e), &e);
        cf_table_loader_free(l);
    }
    uint64_t ts = cf_table_last_ts(t) + 1;
    for (int64_t id = N - 1; id >= 0; id--) { /* the MemRowSet's, in descending order */
        if (part_of(id) >= 0)
            continue;
        char b[32];
        cf_slice n = {(const uint8_t *)b, name_of(id, b)};
        int32_t v = v_of(id);
        const void *vals[3] = {&id, has_name(id) ? &n : NULL, &v};
        CF_ASSERT_OK(cf_table_insert(t, vals, ts++, &e), &e);
    }
    assert_int_equal(cf_table_rowset_count(t), nparts);
    return t;
}

/* Scan t (projection cols[0..ncols) of (id, name, v); v < vmax when vmax < 100)
 * with batch_rows, checking every row against the model in key order. Returns
 * the most rowset scanners open at once. */
static size_t check_scan(cf_table *t, const size_t *cols, size_t ncols, int32_t vmax,
                         size_t batch_rows)
{
    cf_error e;
    cf_scan_options o;
    cf_scan_options_init(&o);
    o.cols = cols;
    o.ncols = ncols;
    o.batch_rows = batch_rows;
    cf_pred p = {2, CF_PRED_LT, &vmax};
    if (vmax < 100) {
        o.preds = &p;
        o.npreds = 1;
    }
    cf_table_scanner *sc;
    CF_ASSERT_OK(cf_table_scanner_create(&sc, t, &o, &e), &e);
    int64_t want = 0; /* the next id the model expects */
    size_t most = 0;
    for (;;) {
        cf_row_batch b;
        CF_ASSERT_OK(cf_table_scanner_next(sc, &b, &e), &e);
        size_t open = cf_rs_table_scanner_open_rowsets(sc);
        most = open > most ? open : most;
        if (b.count == 0)
            break;
        assert_true(b.count <= batch_rows);
        assert_int_equal(b.ncols, ncols);
        for (size_t r = 0; r < b.count; r++) {
            while (want < N && v_of(want) >= vmax)
                want++;
            assert_true(want < N);
            for (size_t j = 0; j < ncols; j++) {
                const cf_batch *c = &b.cols[j];
                bool present = c->nonnull == NULL || (c->nonnull[r / 8] >> (r % 8)) & 1;
                if (cols[j] == 0) {
                    assert_true(present);
                    assert_int_equal(((const int64_t *)c->values)[r], want);
                } else if (cols[j] == 2) {
                    assert_true(present);
                    assert_int_equal(((const int32_t *)c->values)[r], v_of(want));
                } else {
                    assert_int_equal(present, has_name(want));
                    if (present) {
                        char nb[32];
                        size_t len = name_of(want, nb);
                        const cf_slice *sl = &((const cf_slice *)c->values)[r];
                        CF_ASSERT_BYTES(sl->data, sl->len, nb, len);
                    }
                }
            }
            want++;
        }
    }
    while (want < N && v_of(want) >= vmax)
        want++;
    assert_int_equal(want, N); /* every row came */
    cf_table_scanner_free(sc);
    return most;
}

/* Every projection, predicate and batch size over t; the most scanners open. */
static size_t check_all(cf_table *t)
{
    static const size_t all[] = {0, 1, 2}, name_v[] = {1, 2}, v_id[] = {2, 0};
    static const size_t batches[] = {1, 7, 50, 64, 1024, 5000};
    size_t most = 0;
    for (size_t k = 0; k < sizeof(batches) / sizeof(batches[0]); k++) {
        size_t m[4] = {
            check_scan(t, all, 3, 100, batches[k]), check_scan(t, name_v, 2, 100, batches[k]),
            check_scan(t, v_id, 2, 30, batches[k]), check_scan(t, all, 3, 1, batches[k])};
        for (int i = 0; i < 4; i++)
            most = m[i] > most ? m[i] : most;
    }
    return most;
}

static int disjoint_part(int64_t id)
{
    return (int)(id / 50); /* 40 rowsets of 50 keys */
}

static int interleaved_part(int64_t id)
{
    return (int)(id % 9);
}

/* Even ids in 10 disjoint rowsets, odd ids below 1000 in the MemRowSet, odd
 * ids from 1000 in 3 interleaved rowsets overlapping the upper five. */
static int mixed_part(int64_t id)
{
    if (id % 2 == 0)
        return (int)(id / 200);
    return id < 1000 ? -1 : 10 + (int)(id % 3);
}

static void test_merge__disjoint_out_of_order(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    int order[40];
    for (int k = 0; k < 40; k++)
        order[k] = (k * 17) % 40; /* committed out of key order */
    cf_table *t = build(dir, disjoint_part, order, 40);
    /* One rowset read at a time (two while the next is opened before the last
     * one's end is handed out), never all 40. */
    assert_true(check_all(t) <= 2);
    cf_table_free(t);
    CF_ASSERT_RM_RF(dir);
}

static void test_merge__interleaved(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    static const int order[] = {3, 1, 4, 0, 5, 8, 2, 6, 7};
    cf_table *t = build(dir, interleaved_part, order, 9);
    check_all(t);
    cf_table_free(t);
    CF_ASSERT_RM_RF(dir);
}

static void test_merge__mixed_with_memrowset(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    static const int order[] = {12, 9, 0, 11, 5, 1, 8, 2, 10, 6, 3, 7, 4};
    cf_table *t = build(dir, mixed_part, order, 13);
    check_all(t);
    cf_table_free(t);
    CF_ASSERT_RM_RF(dir);
}

/* A scan stopped after its first batch reports every rowset's rows in range,
 * those of rowsets its merge never opened included. */
static void test_merge__stats_of_unreached_rowsets(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    int order[40];
    for (int k = 0; k < 40; k++)
        order[k] = k;
    cf_table *t = build(dir, disjoint_part, order, 40);
    cf_error e;
    cf_scan_options o;
    cf_scan_options_init(&o);
    o.batch_rows = 10;
    cf_table_scanner *sc;
    CF_ASSERT_OK(cf_table_scanner_create(&sc, t, &o, &e), &e);
    cf_row_batch b;
    CF_ASSERT_OK(cf_table_scanner_next(sc, &b, &e), &e);
    assert_int_equal(b.count, 10);
    assert_true(cf_rs_table_scanner_open_rowsets(sc) <= 2);
    const cf_scan_stats *st = cf_table_scanner_stats(sc);
    assert_int_equal(st->rows_in_range, N);
    assert_true(st->rows_examined < N);
    cf_table_scanner_free(sc);
    /* An equality on the whole key: every rowset asked, the bloom filters or
     * key ranges rule all but one out; the row is found. */
    int64_t id = 1234;
    cf_pred p = {0, CF_PRED_EQ, &id};
    o.preds = &p;
    o.npreds = 1;
    CF_ASSERT_OK(cf_table_scanner_create(&sc, t, &o, &e), &e);
    CF_ASSERT_OK(cf_table_scanner_next(sc, &b, &e), &e);
    assert_int_equal(b.count, 1);
    assert_int_equal(((const int64_t *)b.cols[0].values)[0], 1234);
    CF_ASSERT_OK(cf_table_scanner_next(sc, &b, &e), &e);
    assert_int_equal(b.count, 0);
    assert_int_equal(cf_table_scanner_stats(sc)->rows_in_range, 1);
    cf_table_scanner_free(sc);
    cf_table_free(t);
    CF_ASSERT_RM_RF(dir);
}

/* The bytes of the column files of the table's one rowset. */
static size_t column_bytes(const char *dir)
{
    char rs[512], f[1024];
    snprintf(rs, sizeof(rs), "%s/rs-1", dir);
    DIR *d = opendir(rs);
    assert_non_null(d);
    size_t total = 0;
    for (struct dirent *de; (de = readdir(d)) != NULL;) {
        struct stat st;
        snprintf(f, sizeof(f), "%s/%s", rs, de->d_name);
        if (strstr(de->d_name, ".col") != NULL && stat(f, &st) == 0)
            total += (size_t)st.st_size;
    }
    closedir(d);
    assert_true(total > 0);
    return total;
}

static int one_part(int64_t id)
{
    (void)id;
    return 0;
}

/* Rows of [lo, hi) by a key range scan. */
static size_t range_rows(cf_table *t, int64_t lo, int64_t hi)
{
    cf_error e;
    cf_pred p[2] = {{0, CF_PRED_GE, &lo}, {0, CF_PRED_LT, &hi}};
    cf_scan_options so;
    cf_scan_options_init(&so);
    so.preds = p;
    so.npreds = 2;
    cf_table_scanner *sc;
    CF_ASSERT_OK(cf_table_scanner_create(&sc, t, &so, &e), &e);
    size_t rows = 0;
    for (;;) {
        cf_row_batch rb;
        CF_ASSERT_OK(cf_table_scanner_next(sc, &rb, &e), &e);
        if (rb.count == 0)
            break;
        rows += rb.count;
    }
    cf_table_scanner_free(sc);
    return rows;
}

static cf_table *open_cached(const char *dir, cf_cache *c)
{
    cf_error e;
    cf_table_options o;
    cf_table_options_init(&o);
    o.cache = c;
    o.auto_compact = false;
    cf_table *t;
    CF_ASSERT_OK(cf_table_open(&t, dir, &o, &e), &e);
    return t;
}

/* Full scans and the block cache. Rowsets much smaller than the cache are
 * cached by a full scan, so the next one reads nothing again. A rowset whose
 * columns hold more than half the cache is not: a full scan adds none of its
 * data blocks (it would only push out what lookups keep), a key range scan
 * does, and a full scan then finds those there. */
static void test_merge__full_scans_and_the_cache(void **state)
{
    (void)state;
    static const size_t all[] = {0, 1, 2};
    cf_error e;
    cf_cache_stats a, b, d;
    char *dir = mkdtemp_dir();
    int order[40];
    for (int k = 0; k < 40; k++)
        order[k] = k;
    cf_table_free(build(dir, disjoint_part, order, 40));
    cf_cache *c;
    CF_ASSERT_OK(cf_cache_create(&c, 16u << 20, &e), &e);
    cf_table *t = open_cached(dir, c);
    cf_cache_get_stats(c, &a);
    check_scan(t, all, 3, 100, 1024);
    cf_cache_get_stats(c, &b);
    assert_true(b.inserts - a.inserts >= 120); /* 40 rowsets x 3 columns */
    check_scan(t, all, 3, 100, 1024);
    cf_cache_get_stats(c, &d);
    assert_int_equal(d.inserts, b.inserts);
    assert_true(d.hits - b.hits >= 120);
    cf_table_free(t);
    cf_cache_free(c);
    CF_ASSERT_RM_RF(dir);

    dir = mkdtemp_dir();
    static const int one[] = {0};
    cf_table_free(build(dir, one_part, one, 1));
    /* a cache of the columns' bytes: a full scan of them is more than half */
    CF_ASSERT_OK(cf_cache_create(&c, column_bytes(dir), &e), &e);
    t = open_cached(dir, c);
    cf_cache_get_stats(c, &a);
    check_scan(t, all, 3, 100, 1024);
    cf_cache_get_stats(c, &b);
    assert_true(b.inserts - a.inserts <= 2); /* an index block at most, no data block */
    assert_int_equal(range_rows(t, 10, 30), 20);
    cf_cache_get_stats(c, &d);
    assert_true(d.inserts - b.inserts >= 3); /* the range's block of each column */
    check_scan(t, all, 3, 100, 1024);
    cf_cache_get_stats(c, &a);
    assert_int_equal(a.inserts, d.inserts);
    assert_true(a.hits > d.hits);
    cf_table_free(t);
    cf_cache_free(c);
    CF_ASSERT_RM_RF(dir);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge__disjoint_out_of_order),
        cmocka_unit_test(test_merge__interleaved),
        cmocka_unit_test(test_merge__mixed_with_memrowset),
        cmocka_unit_test(test_merge__stats_of_unreached_rowsets),
        cmocka_unit_test(test_merge__full_scans_and_the_cache),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

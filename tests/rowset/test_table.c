/* Table tests: inserts of new keys through the MemRowSet, several DiskRowSets,
 * merged scans and lookups, duplicate-key errors, reinserts, flushes and merge
 * compactions; a model-based MVCC test with fresh inserts on several seeds; the
 * older one-rowset layout; TABLET damage; SIGKILL during MemRowSet flushes. */
#include "test_common.h"

#include <dirent.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cfile/cfile.h>
#include <cfile/rowset.h>

#include "util/error.h"

#include "support_model.h"
#include "support_table.h"

static bool exists(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

/* (id INT64 KEY, name STRING NULL) */
static void make_table(const char *dir)
{
    table_create(dir, "id INT64 KEY, name STRING NULL");
}

static cf_status ins(cf_table *t, int64_t id, const char *name, uint64_t ts, cf_error *err)
{
    cf_slice n = {(const uint8_t *)name, name ? strlen(name) : 0};
    const void *v[2] = {&id, name ? &n : NULL};
    return cf_table_insert(t, v, ts, err);
}

/* The ids of a full scan at snap, in order, into ids (returns how many). */
static size_t scan_ids(cf_table *t, uint64_t snap, int64_t *ids, size_t cap)
{
    cf_scan_options o;
    cf_scan_options_init(&o);
    o.snapshot = snap;
    cf_table_scanner *sc = table_scan_open(t, &o);
    size_t n = 0;
    cf_row_batch b;
    while (table_scan_next(sc, &b)) {
        for (size_t r = 0; r < b.count; r++) {
            assert_true(n < cap);
            ids[n++] = ((const int64_t *)b.cols[0].values)[r];
        }
    }
    cf_table_scanner_free(sc);
    return n;
}

static void test_table__insert_any_order(void **state)
{
    const char *dir = *state;
    make_table(dir);
    cf_error err;
    cf_table *t = table_open(dir);
    static const int64_t order[] = {50, 10, 30, 20, 40};
    for (size_t i = 0; i < 5; i++)
        CF_ASSERT_OK(ins(t, order[i], "x", 10 + i, &err), &err);
    /* Duplicate in the MemRowSet. */
    CF_ASSERT_STATUS(ins(t, 30, "dup", 20, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "duplicate key"));
    /* Timestamps must grow. */
    CF_ASSERT_STATUS(ins(t, 60, "late", 14, &err), CF_EINVAL, &err);
    int64_t ids[16];
    assert_int_equal(scan_ids(t, CF_SNAPSHOT_LATEST, ids, 16), 5);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(ids[i], 10 * (int64_t)(i + 1));
    /* MVCC: the row inserted at 12 (id 30) is invisible to snapshots <= 12. */
    assert_int_equal(scan_ids(t, 12, ids, 16), 2);
    assert_int_equal(ids[0], 10);
    assert_int_equal(ids[1], 50);
    /* Flush to a DiskRowSet; the table directory now lists it. */
    CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    assert_int_equal(cf_table_mrs_rows(t), 0);
    assert_int_equal(cf_table_rowset_count(t), 2);
    assert_true(exists(dir, "TABLET"));
    assert_true(exists(dir, "rs-1/MANIFEST"));
    /* Duplicates in a DiskRowSet are refused too (bloom, then index). */
    CF_ASSERT_STATUS(ins(t, 40, "dup", 30, &err), CF_EINVAL, &err);
    /* New keys before, between and after go to a new MemRowSet. */
    CF_ASSERT_OK(ins(t, 5, "a", 31, &err), &err);
    CF_ASSERT_OK(ins(t, 25, "b", 32, &err), &err);
    CF_ASSERT_OK(ins(t, 99, "c", 33, &err), &err);
    /* Delete in the DiskRowSet, then reinsert the key: it stays in its rowset. */
    int64_t k = 20;
    const void *key[1] = {&k};
    CF_ASSERT_OK(cf_table_delete(t, key, 34, &err), &err);
    CF_ASSERT_STATUS(cf_table_delete(t, key, 35, &err), CF_ENOTFOUND, &err);
    CF_ASSERT_OK(ins(t, 20, "again", 36, &err), &err);
    /* Update and delete rows of the MemRowSet. */
    k = 25;
    cf_slice nv = {(const uint8_t *)"B", 1};
    cf_column_change ch = {1, &nv};
    CF_ASSERT_OK(cf_table_update(t, key, &ch, 1, 37, &err), &err);
    k = 99;
    CF_ASSERT_OK(cf_table_delete(t, key, 38, &err), &err);
    k = 1000;
    CF_ASSERT_STATUS(cf_table_update(t, key, &ch, 1, 39, &err), CF_ENOTFOUND, &err);
    assert_int_equal(scan_ids(t, CF_SNAPSHOT_LATEST, ids, 16), 7);
    static const int64_t want[] = {5, 10, 20, 25, 30, 40, 50};
    assert_memory_equal(ids, want, sizeof(want));
    /* Lookups in either store. */
    k = 25;
    cf_row_batch b;
    CF_ASSERT_OK(cf_table_get(t, key, CF_SNAPSHOT_LATEST, &b, &err), &err);
    assert_int_equal(b.count, 1);
    assert_int_equal(((const cf_slice *)b.cols[1].values)[0].len, 1);
    assert_memory_equal(((const cf_slice *)b.cols[1].values)[0].data, "B", 1);
    CF_ASSERT_OK(cf_table_get(t, key, 37, &b, &err), &err);
    assert_memory_equal(((const cf_slice *)b.cols[1].values)[0].data, "b", 1);
    CF_ASSERT_STATUS(cf_table_get(t, key, 32, &b, &err), CF_ENOTFOUND, &err);
    k = 20;
    CF_ASSERT_OK(cf_table_get(t, key, CF_SNAPSHOT_LATEST, &b, &err), &err);
    assert_memory_equal(((const cf_slice *)b.cols[1].values)[0].data, "again", 5);
    CF_ASSERT_STATUS(cf_table_get(t, key, 35, &b, &err), CF_ENOTFOUND, &err);
    /* Close does not flush: reopening replays the log, the same rows and
     * timestamps in the MemRowSet; a flush then writes them as a rowset. */
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    t = table_open(dir);
    assert_int_equal(cf_table_rowset_count(t), 2);
    assert_true(cf_table_mrs_rows(t) > 0);
    assert_int_equal(cf_table_last_ts(t), 38);
    CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    assert_int_equal(cf_table_rowset_count(t), 3);
    assert_int_equal(cf_table_last_ts(t), 38);
    assert_int_equal(scan_ids(t, CF_SNAPSHOT_LATEST, ids, 16), 7);
    assert_memory_equal(ids, want, sizeof(want));
    assert_int_equal(scan_ids(t, 12, ids, 16), 2);
    /* Compaction merges the rowsets into one; history stays. */
    CF_ASSERT_OK(cf_table_compact(t, 0, &err), &err);
    assert_int_equal(cf_table_rowset_count(t), 1);
    assert_false(exists(dir, "MANIFEST")); /* the root rowset was merged away */
    assert_false(exists(dir, "rs-1"));
    assert_int_equal(scan_ids(t, CF_SNAPSHOT_LATEST, ids, 16), 7);
    assert_memory_equal(ids, want, sizeof(want));
    assert_int_equal(scan_ids(t, 12, ids, 16), 2);
    assert_int_equal(scan_ids(t, 10, ids, 16), 0);
    assert_int_equal(scan_ids(t, 36, ids, 16), 7); /* 99 live, 20 deleted */
    assert_int_equal(ids[6], 99);
    cf_table_free(t);
    t = table_open(dir);
    assert_int_equal(scan_ids(t, 37, ids, 16), 8);
    cf_table_free(t);
}

static void test_table__mrs_flushes_by_size(void **state)
{
    const char *dir = *state;
    make_table(dir);
    cf_error err;
    cf_table *t = table_open(dir);
    cf_table_set_flush_bytes(t, 8192);
    /* Many rowsets for the merged scans below: no automatic merges. */
    cf_table_set_compaction(t, false, 0);
    /* 997 is prime: i * 389 % 997 visits every id once, in no order. */
    for (int64_t i = 0; i < 997; i++)
        CF_ASSERT_OK(ins(t, i * 389 % 997, i % 7 ? "v" : NULL, 2 + (uint64_t)i, &err), &err);
    assert_true(cf_table_rowset_count(t) > 3);
    assert_true(cf_table_mrs_rows(t) < 997);
    static int64_t ids[1000];
    assert_int_equal(scan_ids(t, CF_SNAPSHOT_LATEST, ids, 1000), 997);
    for (int64_t i = 0; i < 997; i++)
        assert_int_equal(ids[i], i);
    /* A key predicate and a projection without the key columns. */
    int64_t lo = 500;
    size_t col1 = 1;
    cf_pred p = {0, CF_PRED_GE, &lo};
    cf_scan_options o;
    cf_scan_options_init(&o);
    o.preds = &p;
    o.npreds = 1;
    o.cols = &col1;
    o.ncols = 1;
    cf_table_scanner *sc = table_scan_open(t, &o);
    size_t n = 0, nulls = 0;
    cf_row_batch b;
    while (table_scan_next(sc, &b)) {
        assert_int_equal(b.ncols, 1);
        for (size_t r = 0; r < b.count; r++)
            nulls += !bit(b.cols[0].nonnull, r);
        n += b.count;
    }
    cf_table_scanner_free(sc);
    assert_int_equal(n, 497);
    size_t want_nulls = 0;
    for (int64_t i = 0; i < 997; i++)
        want_nulls += i % 7 == 0 && i * 389 % 997 >= 500;
    assert_int_equal(nulls, want_nulls);
    CF_ASSERT_OK(cf_table_compact(t, 0, &err), &err);
    assert_int_equal(cf_table_rowset_count(t), 1);
    assert_int_equal(scan_ids(t, CF_SNAPSHOT_LATEST, ids, 1000), 997);
    assert_int_equal(scan_ids(t, 502, ids, 1000), 500); /* inserted at ts 2..501 */
    cf_table_free(t);
}

/* Every rowset of a table reads through the table's one block cache, which
 * outlives flushes and compactions; or through a shared one; or none. */
static void check_cache(cf_table *t, cf_cache *want)
{
    assert_ptr_equal(cf_table_cache(t), want);
    for (size_t i = 0; i < cf_table_rowset_count(t); i++)
        assert_ptr_equal(cf_rowset_cache(cf_table_rowset_at(t, i, NULL)), want);
}

static void test_table__block_cache(void **state)
{
    const char *dir = *state;
    make_table(dir);
    cf_error err;
    cf_table *t = table_open(dir);
    cf_cache *c = cf_table_cache(t);
    assert_non_null(c);
    cf_table_set_flush_bytes(t, 4096);
    for (int64_t i = 0; i < 500; i++)
        CF_ASSERT_OK(ins(t, i, "name", 2 + (uint64_t)i, &err), &err);
    assert_true(cf_table_rowset_count(t) > 2);
    check_cache(t, c);
    static int64_t ids[600];
    assert_int_equal(scan_ids(t, CF_SNAPSHOT_LATEST, ids, 600), 500);
    /* A string no row holds: every rowset's DICT blocks are ruled out, and the
     * table's stats add up what its rowsets skipped. */
    cf_slice none = {(const uint8_t *)"zzz", 3};
    cf_pred p = {1, CF_PRED_EQ, &none};
    cf_scan_options so;
    cf_scan_options_init(&so);
    so.preds = &p;
    so.npreds = 1;
    cf_table_scanner *sc = table_scan_open(t, &so);
    cf_row_batch b;
    CF_ASSERT_OK(cf_table_scanner_next(sc, &b, &err), &err);
    assert_int_equal(b.count, 0);
    const cf_scan_stats *ss = cf_table_scanner_stats(sc);
    assert_true(ss->blocks_skipped > 0);
    assert_true(ss->rows_skipped > 400); /* all but the MemRowSet's rows */
    assert_int_equal(ss->rows_examined + ss->rows_skipped, ss->rows_in_range);
    cf_table_scanner_free(sc);
    CF_ASSERT_OK(cf_table_compact(t, 0, &err), &err);
    check_cache(t, c);
    assert_int_equal(scan_ids(t, CF_SNAPSHOT_LATEST, ids, 600), 500);
    cf_cache_stats st;
    cf_cache_get_stats(c, &st);
    assert_true(st.inserts > 0);
    cf_table_free(t);

    cf_table_options o;
    cf_table_options_init(&o);
    o.cache_bytes = 0;
    CF_ASSERT_OK(cf_table_open(&t, dir, &o, &err), &err);
    check_cache(t, NULL);
    assert_int_equal(scan_ids(t, CF_SNAPSHOT_LATEST, ids, 600), 500);
    cf_table_free(t);

    cf_cache *shared;
    CF_ASSERT_OK(cf_cache_create(&shared, 1u << 20, &err), &err);
    o.cache = shared;
    CF_ASSERT_OK(cf_table_open(&t, dir, &o, &err), &err);
    check_cache(t, shared);
    assert_int_equal(scan_ids(t, CF_SNAPSHOT_LATEST, ids, 600), 500);
    cf_table_free(t);
    cf_cache_free(shared);
    o.version = 0;
    CF_ASSERT_STATUS(cf_table_open(&t, dir, &o, &err), CF_EINVAL, &err);
}

/* Rowset files under dir this process has open: descriptors (/proc/self/fd;
 * pread, the default) plus mappings (/proc/self/maps; the mmap opt-in). The
 * table's own LOCK and pin files are not rowset files ("/rs-" in the path). A
 * rowset's directory is not held open either (the table's descriptor is). */
static size_t open_under(const char *dir)
{
    size_t n = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    assert_non_null(f);
    char line[1024];
    while (fgets(line, sizeof(line), f) != NULL)
        if (strstr(line, dir) != NULL && strstr(line, "/rs-") != NULL)
            n++;
    fclose(f);
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char link[300], target[1024];
        snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
        ssize_t len = readlink(link, target, sizeof(target) - 1);
        if (len <= 0)
            continue;
        target[len] = '\0';
        if (strstr(target, dir) != NULL && strstr(target, "/rs-") != NULL)
            n++;
    }
    closedir(d);
    return n;
}

/* A table opened for writing opens a rowset's files only when something touches
 * it (issue 14 item 3): opening opens none of them; a lookup, insert or update in
 * one rowset's key range opens that rowset's files only. A file of an untouched
 * rowset that is damaged does not stop the writer; touching that rowset fails
 * with CF_ECORRUPT naming it (never "not found", which would let an insert of
 * a key it holds through as new, nor a silent answer). Readers holding the pin
 * do the same, and what a writer's commit makes obsolete stays on disk until
 * they let go; a reader of a damaged rowset fails when it touches it. */
static void test_table__lazy_rowset_open(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    make_table(dir);
    cf_error err;
    cf_table *t;
    uint64_t ts = 2;
    t = table_open(dir);
    cf_table_set_compaction(t, false, 0);
    for (int r = 0; r < 3; r++) { /* rs-1: 0..9, rs-2: 100..109, rs-3: 200..209 */
        for (int k = 0; k < 10; k++)
            CF_ASSERT_OK(ins(t, r * 100 + k, "x", ts++, &err), &err);
        CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    }
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    assert_int_equal(open_under(dir), 0);
    cf_table_options o;
    cf_table_options_init(&o);
    o.auto_compact = false;
    CF_ASSERT_OK(cf_table_open(&t, dir, &o, &err), &err);
    assert_int_equal(cf_table_rowset_count(t), 4);
    assert_int_equal(open_under(dir), 0); /* nothing opened at open */
    int64_t id = 105;
    const void *key[1] = {&id};
    cf_row_batch b;
    CF_ASSERT_OK(cf_table_get(t, key, CF_SNAPSHOT_LATEST, &b, &err), &err);
    size_t one = open_under(dir);
    assert_true(one > 0);
    char rs2[600];
    snprintf(rs2, sizeof(rs2), "%s/rs-2/", dir);
    assert_int_equal(open_under(rs2), one);            /* only rs-2's */
    CF_ASSERT_OK(ins(t, 50, "new", ts++, &err), &err); /* in no rowset's range */
    assert_int_equal(open_under(dir), one);
    cf_table_free(t);
    /* A reader (pinned) opens lazily too: nothing at open, one rowset's files
     * for a lookup in its range. Rows 0..9, 50, 100..109, 200..209. */
    cf_table_options ro;
    cf_table_options_init(&ro);
    ro.read_only = true;
    cf_table *r;
    CF_ASSERT_OK(cf_table_open(&r, dir, &ro, &err), &err);
    assert_int_equal(cf_table_rowset_count(r), 4);
    assert_int_equal(open_under(dir), 0);
    id = 105;
    CF_ASSERT_OK(cf_table_get(r, key, CF_SNAPSHOT_LATEST, &b, &err), &err);
    assert_int_equal(b.count, 1);
    assert_int_equal(open_under(rs2), one);
    assert_int_equal(open_under(dir), one);
    /* A writer merges everything (rs-1..rs-3 and the log's row 50 into rs-5)
     * and deletes a row; the pinned reader's rowsets, opened or not, stay on
     * disk, and it still reads its one version: 31 rows, 205 present. */
    CF_ASSERT_OK(cf_table_open(&t, dir, &o, &err), &err);
    CF_ASSERT_OK(cf_table_compact(t, 0, &err), &err);
    assert_int_equal(cf_table_rowset_count(t), 1);
    id = 205;
    CF_ASSERT_OK(cf_table_delete(t, key, ts++, &err), &err);
    CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    assert_true(exists(dir, "rs-1/MANIFEST") && exists(dir, "rs-3/1.col1.cfile"));
    int64_t ids[64];
    assert_int_equal(scan_ids(r, CF_SNAPSHOT_LATEST, ids, 64), 31);
    CF_ASSERT_OK(cf_table_get(r, key, CF_SNAPSHOT_LATEST, &b, &err), &err);
    assert_int_equal(b.count, 1);
    cf_table_free(r);
    /* Once the reader is gone, the next clean-up takes them. */
    CF_ASSERT_OK(ins(t, 300, "z", ts++, &err), &err);
    CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    assert_false(exists(dir, "rs-1") || exists(dir, "rs-2") || exists(dir, "rs-3"));
    cf_table_free(t);
    /* A single rowset is compacted in place when no reader is pinned (its
     * MANIFEST generation moves on), into a new directory when one is. */
    CF_ASSERT_OK(cf_table_open(&t, dir, &o, &err), &err);
    CF_ASSERT_OK(cf_table_compact(t, 0, &err), &err);
    assert_int_equal(cf_table_rowset_count(t), 1);
    const char *only;
    cf_rowset_info info;
    cf_table_rowset_at(t, 0, &only);
    char before[40];
    snprintf(before, sizeof(before), "%s", only);
    cf_rowset_get_info(cf_table_rowset_at(t, 0, NULL), &info);
    uint64_t gen = info.generation;
    CF_ASSERT_OK(cf_table_compact(t, 0, &err), &err);
    cf_table_rowset_at(t, 0, &only);
    assert_string_equal(only, before);
    cf_rowset_get_info(cf_table_rowset_at(t, 0, NULL), &info);
    assert_true(info.generation > gen);
    CF_ASSERT_OK(cf_table_open(&r, dir, &ro, &err), &err);
    id = 300;
    CF_ASSERT_OK(ins(t, 301, "y", ts++, &err), &err);
    CF_ASSERT_OK(cf_table_compact(t, 0, &err), &err);
    cf_table_rowset_at(t, 0, &only);
    assert_string_not_equal(only, before);
    assert_true(exists(dir, before));
    CF_ASSERT_OK(cf_table_get(r, key, CF_SNAPSHOT_LATEST, &b, &err), &err);
    assert_int_equal(b.count, 1);
    assert_int_equal(scan_ids(r, CF_SNAPSHOT_LATEST, ids, 64), 31); /* 205 gone, 300 in */
    cf_table_free(r);
    cf_table_free(t);
    /* The table of the damage test below: rs-1..rs-3 hold 0..9, 100..109,
     * 200..209; 50 is in the log. */
    CF_ASSERT_RM_RF(dir);
    assert_int_equal(mkdir(dir, 0700), 0);
    make_table(dir);
    t = table_open(dir);
    cf_table_set_compaction(t, false, 0);
    ts = 2;
    for (int rr = 0; rr < 3; rr++) {
        for (int k = 0; k < 10; k++)
            CF_ASSERT_OK(ins(t, rr * 100 + k, "x", ts++, &err), &err);
        CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    }
    CF_ASSERT_OK(ins(t, 50, "new", ts++, &err), &err); /* in the log */
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    /* A damaged column file of rs-3 */
    char p[700];
    snprintf(p, sizeof(p), "%s/rs-3/1.col1.cfile", dir);
    assert_true(truncate(p, 20) == 0);
    CF_ASSERT_OK(cf_table_open(&t, dir, &o, &err), &err);
    CF_ASSERT_OK(ins(t, 51, "ok", ts++, &err), &err);
    id = 205;
    CF_ASSERT_STATUS(cf_table_get(t, key, CF_SNAPSHOT_LATEST, &b, &err), CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "rs-3"));
    CF_ASSERT_STATUS(ins(t, 205, "dup", ts, &err), CF_ECORRUPT, &err);
    CF_ASSERT_STATUS(ins(t, 250, "in range? no", ts, &err), CF_OK, &err);
    ts++;
    id = 203;
    cf_slice nm = {(const uint8_t *)"y", 1};
    cf_column_change ch = {1, &nm};
    CF_ASSERT_STATUS(cf_table_update(t, key, &ch, 1, ts, &err), CF_ECORRUPT, &err);
    CF_ASSERT_STATUS(cf_table_delete(t, key, ts, &err), CF_ECORRUPT, &err);
    assert_int_equal(cf_table_mrs_rows(t), 3); /* 50, 51, 250: not 205 */
    cf_table_free(t);
    /* A reader opens, reads the other rowsets, and fails on rs-3 naming it. */
    CF_ASSERT_OK(cf_table_open(&r, dir, &ro, &err), &err);
    id = 105;
    CF_ASSERT_OK(cf_table_get(r, key, CF_SNAPSHOT_LATEST, &b, &err), &err);
    assert_int_equal(b.count, 1);
    id = 205;
    CF_ASSERT_STATUS(cf_table_get(r, key, CF_SNAPSHOT_LATEST, &b, &err), CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "rs-3"));
    cf_scan_options so;
    cf_scan_options_init(&so);
    cf_table_scanner *sc = NULL;
    cf_status st = cf_table_scanner_create(&sc, r, &so, &err);
    while (st == CF_OK) {
        st = cf_table_scanner_next(sc, &b, &err);
        if (st == CF_OK && b.count == 0)
            break;
    }
    assert_int_equal(st, CF_ECORRUPT);
    assert_non_null(strstr(err.msg, "rs-3"));
    cf_table_scanner_free(sc);
    cf_table_free(r);
    CF_ASSERT_RM_RF(dir);
}

static void test_table__old_layout_and_damage(void **state)
{
    const char *dir = *state;
    cf_error err;
    cf_table *t;
    CF_ASSERT_STATUS(cf_table_open(&t, dir, NULL, &err), CF_ENOTFOUND, &err);
    make_table(dir);
    /* A one-rowset directory opens as a table of that rowset, and a single rowset
     * compacts in place (no TABLET written). */
    t = table_open(dir);
    assert_int_equal(cf_table_rowset_count(t), 1);
    CF_ASSERT_OK(cf_table_compact(t, 0, &err), &err);
    assert_false(exists(dir, "TABLET"));
    CF_ASSERT_OK(ins(t, 1, "one", 5, &err), &err);
    CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    assert_true(exists(dir, "TABLET"));
    /* Leftovers of a crashed flush (an unnamed rowset directory) are ignored,
     * then removed by the next flush. */
    char p[512];
    snprintf(p, sizeof(p), "%s/rs-9", dir);
    assert_int_equal(mkdir(p, 0777), 0);
    /* A temporary of cf_io_create_file (NAME.tmp.PID.HEX16) is ours; a name
     * that only looks like one is not. */
    static const char *const tmps[] = {"TABLET.tmp.1.0123456789abcdef", "TABLET.tmp.1.2"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(p, sizeof(p), "%s/%s", dir, tmps[i]);
        FILE *tf = fopen(p, "w");
        assert_non_null(tf);
        fclose(tf);
    }
    t = table_open(dir);
    CF_ASSERT_OK(ins(t, 2, "two", 6, &err), &err);
    CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    assert_false(exists(dir, "rs-9"));
    assert_false(exists(dir, tmps[0]));
    assert_true(exists(dir, tmps[1]));
    cf_table_free(t);
    /* Damage: a flipped byte, then a TABLET naming a missing rowset. */
    snprintf(p, sizeof(p), "%s/TABLET", dir);
    FILE *f = fopen(p, "r+b");
    assert_non_null(f);
    fseek(f, 5, SEEK_SET);
    fputc('X', f);
    fclose(f);
    CF_ASSERT_STATUS(cf_table_open(&t, dir, NULL, &err), CF_ECORRUPT, &err);
    char cmd[1200];
    snprintf(cmd, sizeof(cmd),
             "rm -rf '%s/rs-2' && sed -i 's/^cfile-tablet X/cfile-tablet 1/; s/^cfilX/cfile/' "
             "'%s/TABLET'",
             dir, dir);
    assert_int_equal(system(cmd), 0);
    CF_ASSERT_STATUS(cf_table_open(&t, dir, NULL, &err), CF_ECORRUPT, &err);
}

/* ---- array columns ----------------------------------------------------------------------------
 */

/* Table (id INT64 KEY, tags INT32[] NULL, names STRING[] NULL) under random
 * inserts (any order, so MemRowSet rows), updates, deletes, reinserts, flushes
 * and compactions, against a model of each key's versions: merged scans at
 * random snapshots and lookups see every array cell as the model has it. */
typedef struct aver {
    uint64_t ts;
    bool alive, tags_nn, names_nn;
    int ntags;
    int32_t tags[3];
    uint8_t tags_valid; /* bit per element */
    char name[12];      /* names = [name] when non-empty, [] when empty */
} aver;

#define AKEYS 24

typedef struct arow {
    aver h[64];
    size_t n;
} arow;

static const aver *aat(const arow *r, uint64_t snap)
{
    const aver *v = NULL;
    for (size_t i = 0; i < r->n; i++)
        if (r->h[i].ts < snap)
            v = &r->h[i];
    return v != NULL && v->alive ? v : NULL;
}

static void arand(aver *v, cf_rng *rng, int64_t id)
{
    v->tags_nn = cf_rng_below(rng, 5) != 0;
    v->ntags = v->tags_nn ? (int)cf_rng_below(rng, 4) : 0;
    v->tags_valid = (uint8_t)(cf_rng_below(rng, 3) ? 0x7 : cf_rng_below(rng, 8));
    for (int e = 0; e < 3; e++)
        v->tags[e] = (v->tags_valid >> e) & 1 ? (int32_t)cf_rng_below(rng, 1000) - 500 : 0;
    v->names_nn = cf_rng_below(rng, 4) != 0;
    v->name[0] = '\0';
    if (v->names_nn && cf_rng_below(rng, 3))
        snprintf(v->name, sizeof(v->name), "n%" PRId64 "-%u", id, (unsigned)cf_rng_below(rng, 99));
}

/* The memory forms of v's cells (cells and slices owned by the caller). */
static void acells(const aver *v, cf_array_cell *tags, cf_array_cell *names, cf_slice *nm)
{
    *tags = (cf_array_cell){CF_TYPE_INT32, (size_t)v->ntags, v->tags, &v->tags_valid};
    *nm = (cf_slice){(const uint8_t *)v->name, strlen(v->name)};
    *names = (cf_array_cell){CF_TYPE_STRING, v->name[0] ? 1 : 0, nm, NULL};
}

static void acheck_row(const cf_row_batch *b, size_t r, const aver *v)
{
    const cf_batch *t = &b->cols[1], *n = &b->cols[2];
    assert_int_equal(bit(t->nonnull, r), v->tags_nn);
    uint32_t a = t->elem_offsets[r];
    assert_int_equal(t->elem_offsets[r + 1] - a, (uint32_t)v->ntags);
    for (int e = 0; e < v->ntags; e++) {
        bool valid = (v->tags_valid >> e) & 1;
        assert_int_equal(bit(t->elem_nonnull, a + (uint32_t)e), valid);
        if (valid)
            assert_int_equal(((const int32_t *)t->values)[a + (uint32_t)e], v->tags[e]);
    }
    assert_int_equal(bit(n->nonnull, r), v->names_nn);
    a = n->elem_offsets[r];
    size_t want = v->names_nn && v->name[0] ? 1 : 0;
    assert_int_equal(n->elem_offsets[r + 1] - a, want);
    if (want) {
        const cf_slice *sl = (const cf_slice *)n->values + a;
        assert_int_equal(sl->len, strlen(v->name));
        assert_memory_equal(sl->data, v->name, sl->len);
    }
}

static void acheck(cf_table *t, const arow *m, uint64_t snap, size_t batch)
{
    cf_scan_options o;
    cf_scan_options_init(&o);
    o.snapshot = snap;
    o.batch_rows = batch;
    cf_table_scanner *sc = table_scan_open(t, &o);
    int64_t k = 0;
    cf_row_batch b;
    while (table_scan_next(sc, &b)) {
        for (size_t r = 0; r < b.count; r++, k++) {
            while (k < AKEYS && aat(&m[k], snap) == NULL)
                k++;
            assert_true(k < AKEYS);
            assert_int_equal(((const int64_t *)b.cols[0].values)[r], k);
            acheck_row(&b, r, aat(&m[k], snap));
        }
    }
    while (k < AKEYS && aat(&m[k], snap) == NULL)
        k++;
    assert_int_equal(k, AKEYS);
    cf_table_scanner_free(sc);
}

static void test_table__arrays(void **state)
{
    const char *dir = *state;
    cf_error err;
    cf_schema *s;
    CF_ASSERT_OK(cf_schema_parse(&s, "id INT64 KEY, tags INT32[] NULL, names STRING[] NULL", &err),
                 &err);
    CF_ASSERT_OK(cf_rowset_create_empty(dir, s, &err), &err);
    cf_schema_free(s);
    cf_table *t = table_open(dir);
    static arow m[AKEYS];
    memset(m, 0, sizeof(m));
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(31));
    uint64_t ts = cf_table_last_ts(t);
    for (int op = 0; op < 400; op++) {
        /* The first ops insert every other key, then update them, all in the
         * MemRowSet (checked there before any flush); then anything goes. */
        int64_t id = op < AKEYS ? (op % (AKEYS / 2)) * 2 : (int64_t)cf_rng_below(&rng, AKEYS);
        arow *r = &m[id];
        const aver *cur = r->n ? &r->h[r->n - 1] : NULL;
        bool alive = cur != NULL && cur->alive;
        unsigned pick = (unsigned)cf_rng_below(&rng, 100);
        if (op < AKEYS)
            pick = op < AKEYS / 2 ? 0 : 60;
        else if (op == AKEYS)
            pick = 95;
        if (r->n + 1 >= sizeof(r->h) / sizeof(r->h[0]))
            pick = 99; /* this key's history is full: check instead */
        aver v;
        memset(&v, 0, sizeof(v));
        v.ts = ++ts;
        cf_array_cell tags, names;
        cf_slice nm;
        /* inserts and updates (where possible), deletes, few flushes, checks */
        if (pick < 50 && !alive) { /* insert (or reinsert) */
            arand(&v, &rng, id);
            v.alive = true;
            acells(&v, &tags, &names, &nm);
            const void *vals[3] = {&id, v.tags_nn ? &tags : NULL, v.names_nn ? &names : NULL};
            CF_ASSERT_OK(cf_table_insert(t, vals, v.ts, &err), &err);
            r->h[r->n++] = v;
        } else if (pick < 80 && alive) { /* update one or both columns */
            v = *cur;
            v.ts = ts;
            aver nv;
            arand(&nv, &rng, id);
            int which = (int)cf_rng_below(&rng, 3);
            if (which != 1) {
                v.tags_nn = nv.tags_nn, v.ntags = nv.ntags, v.tags_valid = nv.tags_valid;
                memcpy(v.tags, nv.tags, sizeof(v.tags));
            }
            if (which != 0) {
                v.names_nn = nv.names_nn;
                memcpy(v.name, nv.name, sizeof(v.name));
            }
            acells(&v, &tags, &names, &nm);
            cf_column_change ch[2];
            size_t nch = 0;
            if (which != 1)
                ch[nch++] = (cf_column_change){1, v.tags_nn ? &tags : NULL};
            if (which != 0)
                ch[nch++] = (cf_column_change){2, v.names_nn ? &names : NULL};
            const void *key[1] = {&id};
            CF_ASSERT_OK(cf_table_update(t, key, ch, nch, v.ts, &err), &err);
            r->h[r->n++] = v;
        } else if (pick >= 80 && pick < 86 && alive) {
            const void *key[1] = {&id};
            CF_ASSERT_OK(cf_table_delete(t, key, v.ts, &err), &err);
            r->h[r->n++] = v; /* alive = false */
        } else if (pick >= 86 && pick < 89) {
            CF_ASSERT_OK(cf_table_flush(t, &err), &err);
            ts--;
        } else if (pick == 89) {
            CF_ASSERT_OK(cf_table_compact(t, 0, &err), &err);
            ts--;
        } else if (pick < 50 || pick >= 90) {
            ts--;
            uint64_t snap = 1 + cf_rng_below(&rng, ts + 1);
            acheck(t, m, snap, 1 + (size_t)cf_rng_below(&rng, 9));
            const void *key[1] = {&id};
            cf_row_batch b;
            const aver *want = aat(r, CF_SNAPSHOT_LATEST);
            cf_status st = cf_table_get(t, key, CF_SNAPSHOT_LATEST, &b, &err);
            if (want == NULL) {
                assert_int_equal(st, CF_ENOTFOUND);
            } else {
                CF_ASSERT_OK(st, &err);
                acheck_row(&b, 0, want);
            }
        } else {
            ts--; /* an update or delete of a key not alive: nothing */
        }
    }
    acheck(t, m, CF_SNAPSHOT_LATEST, 5);
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    t = table_open(dir);
    for (uint64_t snap = 1; snap <= ts + 1; snap += 7)
        acheck(t, m, snap, 4);
    acheck(t, m, CF_SNAPSHOT_LATEST, 1024);
    CF_ASSERT_OK(cf_table_compact(t, 0, &err), &err);
    for (uint64_t snap = 1; snap <= ts + 1; snap += 5)
        acheck(t, m, snap, 3);
    cf_table_free(t);
}

/* ---- model-based test --------------------------------------------------------------------------
 */

/* Table (k STRING KEY, j INT32 KEY, v INT32 NULL, s STRING NULL): compound keys.
 * Key i of KEYS sorts as i does; the initial import holds the even ones of the
 * middle half, so fresh inserts land before, between and after them. */
#define KEYS 600

static void model_run(uint64_t seed)
{
    cf_rng rng;
    cf_rng_init(&rng, seed);
    char *dir;
    mrow *m = model_start(&dir, KEYS, KEYS / 4, 3 * KEYS / 4, 2, &rng);
    cf_error err;
    cf_table *t = table_open(dir);
    /* Small MemRowSets: flushes happen on their own too. */
    cf_table_set_flush_bytes(t, 16384 + cf_rng_below(&rng, 32768));
    uint64_t ts = 10, ahm = 0;
    size_t inserts = 0, dups = 0;
    uint64_t last_ok = 10; /* the timestamp of the last operation that succeeded */
    for (int step = 0; step < 300; step++) {
        int op = (int)cf_rng_below(&rng, 100);
        size_t r = cf_rng_below(&rng, KEYS);
        model_key mk;
        model_key_of(&mk, r);
        const version *cur = at(&m[r], UINT64_MAX);
        ts += 1 + cf_rng_below(&rng, 3);
        if (op < 30) { /* insert: fresh, reinsert of a deleted key, or a duplicate */
            model_insert mi;
            model_insert_draw(&mi, &rng, &mk, true, 'i', ts);
            cf_status st = cf_table_insert(t, mi.vals, ts, &err);
            if (cur != NULL) {
                CF_ASSERT_STATUS(st, CF_EINVAL, &err);
                dups++;
            } else {
                CF_ASSERT_OK(st, &err);
                push_version(&m[r], mi.next);
                inserts++;
                last_ok = ts;
            }
        } else if (op < 60) { /* update v and/or s */
            model_update u;
            model_update_draw(&u, &rng, cur, ts);
            cf_status st = cf_table_update(t, mk.key, u.ch, u.nch, ts, &err);
            if (model_apply_update(&m[r], st, &err, &u.next))
                last_ok = ts;
        } else if (op < 75) {
            if (model_apply_delete(&m[r], cf_table_delete(t, mk.key, ts, &err), &err, ts))
                last_ok = ts;
        } else if (op < 77) {
            CF_ASSERT_OK(cf_table_flush(t, &err), &err);
        } else if (op < 79) {
            if (cf_rng_below(&rng, 3) == 0)
                ahm = ahm + (ts - ahm) / 2;
            CF_ASSERT_OK(cf_table_compact(t, ahm, &err), &err);
            model_compacted(m, KEYS, ahm);
        } else if (op < 80) { /* reopen: closing flushes */
            if (cf_rng_below(&rng, 2))
                CF_ASSERT_OK(cf_table_close(t, &err), &err);
            else {
                CF_ASSERT_OK(cf_table_flush(t, &err), &err);
                cf_table_free(t);
            }
            t = table_open(dir);
            assert_int_equal(cf_table_last_ts(t), last_ok);
            cf_table_set_flush_bytes(t, 16384 + cf_rng_below(&rng, 32768));
        } else {
            model_check_table(t, m, KEYS, model_snap_draw(&rng, ahm, ts), &rng);
        }
    }
    assert_true(inserts > 40);
    assert_true(dups > 3);
    CF_ASSERT_OK(cf_table_compact(t, 0, &err), &err);
    assert_int_equal(cf_table_rowset_count(t), 1);
    assert_int_equal(cf_table_mrs_rows(t), 0);
    for (uint64_t snap = ahm; snap < ts + 2; snap += 1 + ts / 20)
        model_check_table(t, m, KEYS, snap, &rng);
    cf_table_free(t);
    model_end(dir, m, KEYS);
}

static void test_table__model(void **state)
{
    (void)state;
    uint64_t seed = cf_test_seed(20261121);
    for (uint64_t i = 0; i < 3; i++)
        model_run(seed + i * 7919);
}

/* ---- crash test
 * ---------------------------------------------------------------------------------- */

static cf_status flush_rounds(cf_table *t, void *ctx, cf_error *err)
{
    (void)ctx;
    uint64_t ts = 2;
    for (int64_t r = 0; r < 50; r++) {
        for (int64_t i = 0; i < 2000; i++)
            CF_TRY(ins(t, (1999 - i) * 50 + r, "crash", ts++, err));
        CF_TRY(cf_table_flush(t, err));
        if (r % 2 == 1)
            CF_TRY(cf_table_compact(t, 0, err));
    }
    return CF_OK;
}

/* The child inserts rounds of 2000 new ids (round r: ids r, r + 50, ...) and
 * flushes after each; SIGKILL at a random moment must leave a table that opens
 * with whole rounds only. */
static void test_table__crash_during_flush(void **state)
{
    (void)state;
    uint64_t seed = cf_test_seed(13);
    cf_rng rng;
    cf_rng_init(&rng, seed);
    for (int round = 0; round < 6; round++) {
        char *dir = mkdtemp_dir();
        make_table(dir);
        run_table_child(dir, flush_rounds, NULL, (double)(2000 + cf_rng_below(&rng, 300000)) / 1e6,
                        NULL);
        cf_error err;
        cf_table *t = table_open(dir);
        static int64_t ids[100000];
        size_t n = scan_ids(t, CF_SNAPSHOT_LATEST, ids, 100000);
        /* Every insert is logged before it returns: the rows are the first n
         * inserts, whole rounds or not (the write-ahead log replays the rest). */
        static bool want[100000];
        memset(want, 0, sizeof(want));
        for (size_t j = 0; j < n; j++)
            want[(1999 - j % 2000) * 50 + j / 2000] = true;
        size_t k = 0;
        for (int64_t id = 0; id < 100000; id++)
            if (want[id])
                assert_int_equal(ids[k++], id);
        assert_int_equal(k, n);
        /* The table takes new rows and flushes after the crash. */
        CF_ASSERT_OK(ins(t, -1, "after", cf_table_last_ts(t) + 1, &err), &err);
        CF_ASSERT_OK(cf_table_close(t, &err), &err);
        CF_ASSERT_RM_RF(dir);
    }
}

/* A table is a directory handle, not a path (issue 31 item 4): a writer's
 * directory renamed under it, and a symlink to another directory put at the
 * old path, do not redirect its writes. Inserts (the log), a flush and a
 * checkpoint (new rowset directories, MANIFESTs, TABLET, a new log segment),
 * a merge and its clean-up after the rename all land in the directory the
 * table was opened in, now under its new name; the symlink's target stays
 * empty, and the moved table reads back every row. */
static void test_table__directory_renamed_under_writer(void **state)
{
    (void)state;
    char a[400], b[400], c[400];
    char *base = mkdtemp_dir();
    moved_dir_setup(base, a, b, c, sizeof(a));
    make_table(a);
    cf_error err;
    cf_table *t;
    uint64_t ts = 2;
    CF_ASSERT_OK(cf_table_open(&t, a, NULL, &err), &err);
    cf_table_set_compaction(t, false, 0);
    for (int k = 0; k < 10; k++)
        CF_ASSERT_OK(ins(t, k, "before", ts++, &err), &err);
    CF_ASSERT_OK(cf_table_flush(t, &err), &err); /* rs-1 */
    move_under_writer(a, b, c);
    for (int k = 10; k < 20; k++)
        CF_ASSERT_OK(ins(t, k, "after", ts++, &err), &err);
    CF_ASSERT_OK(cf_table_flush(t, &err), &err); /* rs-2, a checkpoint */
    for (int k = 20; k < 25; k++)
        CF_ASSERT_OK(ins(t, k, "logged", ts++, &err), &err);
    CF_ASSERT_OK(cf_table_compact(t, 0, &err), &err); /* a merge into rs-3 */
    for (int k = 25; k < 30; k++)
        CF_ASSERT_OK(ins(t, k, "logged", ts++, &err), &err);
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    assert_int_equal(dir_entries(c), 0); /* nothing reached the symlink's target */
    struct stat sb;
    assert_int_equal(lstat(a, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    assert_true(exists(b, "TABLET"));
    assert_true(exists(b, "rs-4"));  /* the merge of rs-1..3 (rs-3: the compaction's flush) */
    assert_false(exists(b, "rs-1")); /* merged away, removed in the moved directory */
    assert_false(exists(b, "rs-2"));
    /* Reopened at its new name: every row, the last ones from the log. */
    CF_ASSERT_OK(cf_table_open(&t, b, NULL, &err), &err);
    int64_t ids[64];
    size_t n = scan_ids(t, CF_SNAPSHOT_LATEST, ids, 64);
    assert_int_equal(n, 30);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(ids[i], (int64_t)i);
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    CF_ASSERT_RM_RF(base);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        TMPDIR_TEST(test_table__arrays),
        TMPDIR_TEST(test_table__insert_any_order),
        TMPDIR_TEST(test_table__mrs_flushes_by_size),
        TMPDIR_TEST(test_table__block_cache),
        TMPDIR_TEST(test_table__old_layout_and_damage),
        cmocka_unit_test(test_table__lazy_rowset_open),
        cmocka_unit_test(test_table__model),
        cmocka_unit_test(test_table__crash_during_flush),
        cmocka_unit_test(test_table__directory_renamed_under_writer),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

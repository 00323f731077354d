/* Clean-up touches only what the table wrote (docs/ROWSET.md "Clean-up"): a
 * user's files whose names merely look like ours survive create, flushes,
 * compactions and merges; a symlink named like a rowset is never followed,
 * and a file so named is no rowset; create refuses a non-empty directory that
 * is not a table; a missing TABLET beside rowset directories, or a missing
 * MANIFEST of a named rowset, is an error naming what is missing; rowset names
 * are never reused. */
#include "test_common.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cfile/cfile.h>
#include <cfile/rowset.h>

#include "rowset/internal.h" /* cf_table_reserve_rowset */
#include "support_model.h"
#include "support_table.h"

static bool exists(const char *dir, const char *name)
{
    char p[512];
    assert_true(snprintf(p, sizeof(p), "%s/%s", dir, name) < (int)sizeof(p));
    struct stat sb;
    return lstat(p, &sb) == 0;
}

static void put(const char *dir, const char *name, const char *text)
{
    char p[512];
    assert_true(snprintf(p, sizeof(p), "%s/%s", dir, name) < (int)sizeof(p));
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void expect(const char *dir, const char *name, const char *text)
{
    char p[512];
    assert_true(snprintf(p, sizeof(p), "%s/%s", dir, name) < (int)sizeof(p));
    size_t len;
    uint8_t *got = cf_test_read_file(p, &len);
    if (got == NULL)
        fail_msg("%s was removed", p);
    assert_int_equal(len, strlen(text));
    assert_memory_equal(got, text, len);
    free(got);
}

static cf_schema *schema(void)
{
    cf_error err;
    cf_schema *s;
    CF_ASSERT_OK(cf_schema_parse(&s, "id INT64 KEY, name STRING NULL", &err), &err);
    return s;
}

static void make_table(const char *dir)
{
    cf_error err;
    cf_schema *s = schema();
    CF_ASSERT_OK(cf_rowset_create_empty(dir, s, &err), &err);
    cf_schema_free(s);
}

static cf_status ins(cf_table *t, int64_t id, uint64_t ts, cf_error *err)
{
    cf_slice n = {(const uint8_t *)"n", 1};
    const void *v[2] = {&id, &n};
    return cf_table_insert(t, v, ts, err);
}

/* Names a user may keep beside a table: like ours, but not ours. */
static const char *const foreign[] = {
    "2023-sales.cfile",
    "2024-q1.delta.bak",
    "1.col0.cfile.bak",
    "01.col0.cfile",
    "7.col0.cfile.tmp.1.2",
    "MANIFEST.bak",
    "notes.txt",
    "3.bloom.cfile~",
    "rs-x",
    "rs-01",
};
#define NFOREIGN (sizeof(foreign) / sizeof(foreign[0]))

static void test_gc__foreign_files_survive(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    make_table(dir);
    for (size_t i = 0; i < NFOREIGN; i++)
        put(dir, foreign[i], foreign[i]);
    cf_error err;
    cf_table *t;
    uint64_t ts = 10;
    int64_t id = 0;
    char inside[64] = "";
    for (int round = 0; round < 6; round++) {
        t = table_open(dir);
        for (int i = 0; i < 3; i++)
            CF_ASSERT_OK(ins(t, id++, ts++, &err), &err);
        CF_ASSERT_OK(cf_table_flush(t, &err), &err);
        /* A user's file inside a live rowset directory too. */
        const char *nm;
        cf_table_rowset_at(t, cf_table_rowset_count(t) - 1, &nm);
        char sub[512];
        snprintf(sub, sizeof(sub), "%s/%s", dir, nm);
        if (round == 1) {
            put(sub, "2023-sales.cfile", "inside");
            snprintf(inside, sizeof(inside), "%s", nm);
        }
        if (round % 2 == 1)
            CF_ASSERT_OK(cf_table_compact(t, 0, &err), &err);
        CF_ASSERT_OK(cf_table_close(t, &err), &err);
    }
    t = table_open(dir);
    assert_int_equal(table_count_rows(t), (size_t)id);
    /* The merge removed rs-1 but for the user's file in it: the directory stays
     * with that file alone, and its name is never used again. */
    cf_table_free(t);
    for (size_t i = 0; i < NFOREIGN; i++)
        expect(dir, foreign[i], foreign[i]);
    char p[128];
    snprintf(p, sizeof(p), "%s/2023-sales.cfile", inside);
    expect(dir, p, "inside");
    snprintf(p, sizeof(p), "%s/MANIFEST", inside);
    assert_false(exists(dir, p));
    /* The root rowset was merged away: its MANIFEST went, our files with it. */
    assert_false(exists(dir, "MANIFEST"));
    CF_ASSERT_RM_RF(dir);
}

static void test_gc__symlink_named_like_a_rowset(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    char outside[512];
    snprintf(outside, sizeof(outside), "%s.outside", dir);
    assert_int_equal(mkdir(outside, 0777), 0);
    /* Files an unwary clean-up would take for a rowset's. */
    static const char *const names[] = {"MANIFEST", "1.col0.cfile", "1.bloom.cfile", "2.redo.delta",
                                        "MANIFEST.tmp.1.0123456789abcdef"};
    for (size_t i = 0; i < 5; i++)
        put(outside, names[i], names[i]);
    make_table(dir);
    cf_error err;
    cf_table *t = table_open(dir);
    CF_ASSERT_OK(ins(t, 100, 4, &err), &err);
    CF_ASSERT_OK(cf_table_flush(t, &err), &err); /* TABLET, rs-1 (close does not flush) */
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    char link[512];
    snprintf(link, sizeof(link), "%s/rs-9", dir);
    assert_int_equal(symlink(outside, link), 0);
    snprintf(link, sizeof(link), "%s/rs-2", dir);
    assert_int_equal(symlink(outside, link), 0);
    t = table_open(dir);
    CF_ASSERT_OK(ins(t, 1, 5, &err), &err);
    /* rs-2 is the next name; something not ours holds it: refused, not removed. */
    CF_ASSERT_STATUS(cf_table_flush(t, &err), CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "rs-2"));
    assert_non_null(strstr(err.msg, "never reused"));
    cf_table_free(t);
    unlink(link); /* the user moves it away */
    t = table_open(dir);
    /* key 1 came back from the write-ahead log; its flush now succeeds */
    CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    for (int64_t i = 2; i <= 3; i++) {
        CF_ASSERT_OK(ins(t, i, 10 + (uint64_t)i, &err), &err);
        CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    }
    CF_ASSERT_OK(cf_table_compact(t, 0, &err), &err);
    assert_int_equal(table_count_rows(t), 4);
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    for (size_t i = 0; i < 5; i++)
        expect(outside, names[i], names[i]);
    assert_true(exists(dir, "rs-9"));
    CF_ASSERT_RM_RF(outside);
    CF_ASSERT_RM_RF(dir);
}

/* A user's file named like a rowset directory is no rowset: in a directory
 * that holds no table, opening says there is none (not "damaged"); beside a
 * new table (no TABLET yet) it does not make the table look damaged, and it
 * survives the table's first flush. */
static void test_gc__file_named_like_a_rowset(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    put(dir, "rs-2", "user's");
    cf_error err;
    cf_table *t;
    CF_ASSERT_STATUS(cf_table_open(&t, dir, NULL, &err), CF_ENOTFOUND, &err);
    assert_non_null(strstr(err.msg, "no table here"));
    char p[512];
    snprintf(p, sizeof(p), "%s/rs-2", dir);
    assert_int_equal(unlink(p), 0);
    make_table(dir);
    put(dir, "rs-2", "user's");
    t = table_open(dir);
    CF_ASSERT_OK(ins(t, 1, 5, &err), &err);
    CF_ASSERT_OK(cf_table_flush(t, &err), &err); /* TABLET and rs-1 */
    assert_int_equal(table_count_rows(t), 1);
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    expect(dir, "rs-2", "user's");
    t = table_open(dir);
    assert_int_equal(table_count_rows(t), 1);
    cf_table_free(t);
    CF_ASSERT_RM_RF(dir);
}

/* A new table in a temporary directory, with key 1 flushed: its TABLET names rs-1. */
static char *table_with_one_rowset(void)
{
    char *dir = mkdtemp_dir();
    make_table(dir);
    cf_error err;
    cf_table *t = table_open(dir);
    CF_ASSERT_OK(ins(t, 1, 5, &err), &err);
    CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    return dir;
}

/* A load's rowset directory whose name something not ours holds: refused as
 * damage, with nothing left for the caller to free (no name, no path, no
 * directory), for the load's first directory and a later one alike. */
static void test_gc__reserve_refused_leaves_nothing(void **state)
{
    (void)state;
    char *dir = table_with_one_rowset();
    cf_error err;
    for (int i = 2; i <= 4; i++) {
        char n[16];
        snprintf(n, sizeof(n), "rs-%d", i);
        put(dir, n, "not a rowset");
    }
    cf_table *t = table_open(dir);
    for (int i = 2; i <= 3; i++) {
        char *name = (char *)"sentinel", *path = (char *)"sentinel";
        int dfd = 7;
        CF_ASSERT_STATUS(cf_table_reserve_rowset(t, &name, &path, &dfd, &err), CF_ECORRUPT, &err);
        char want[16];
        snprintf(want, sizeof(want), "rs-%d", i);
        assert_non_null(strstr(err.msg, want));
        assert_null(name);
        assert_null(path); /* was left set (and leaked) when mkdir failed */
        assert_int_equal(dfd, -1);
    }
    assert_int_equal(table_count_rows(t), 1);
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    for (int i = 2; i <= 4; i++) {
        char n[16];
        snprintf(n, sizeof(n), "rs-%d", i);
        expect(dir, n, "not a rowset");
    }
    CF_ASSERT_RM_RF(dir);
}

static void test_gc__create_refuses_foreign_directory(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    put(dir, "2023-sales.cfile", "mine");
    put(dir, "2024-q1.delta.bak", "mine too");
    cf_error err;
    cf_schema *s = schema();
    CF_ASSERT_STATUS(cf_rowset_create_empty(dir, s, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, dir));
    assert_non_null(strstr(err.msg, "not empty"));
    cf_rowset_writer *w;
    CF_ASSERT_STATUS(cf_rowset_writer_create(&w, dir, s, NULL, &err), CF_EINVAL, &err);
    expect(dir, "2023-sales.cfile", "mine");
    expect(dir, "2024-q1.delta.bak", "mine too");
    /* Leftovers of a crashed first writer (its numbered files and temporaries,
     * no MANIFEST) are ours: the writer starts over. */
    char *dir2 = mkdtemp_dir();
    put(dir2, "1.col0.cfile", "x");
    put(dir2, "1.bloom.cfile.tmp.77.0123456789abcdef", "x");
    CF_ASSERT_OK(cf_rowset_create_empty(dir2, s, &err), &err);
    assert_false(exists(dir2, "1.col0.cfile"));
    assert_false(exists(dir2, "1.bloom.cfile.tmp.77.0123456789abcdef"));
    /* ... but a file of another generation is not provably ours. */
    char *dir3 = mkdtemp_dir();
    put(dir3, "5.col0.cfile", "x");
    CF_ASSERT_STATUS(cf_rowset_create_empty(dir3, s, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "5.col0.cfile"));
    cf_schema_free(s);
    CF_ASSERT_RM_RF(dir3);
    CF_ASSERT_RM_RF(dir2);
    CF_ASSERT_RM_RF(dir);
}

static void test_gc__missing_metadata_is_damage(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    make_table(dir);
    cf_error err;
    cf_table *t = table_open(dir);
    for (int64_t i = 1; i <= 2; i++) {
        CF_ASSERT_OK(ins(t, i, 10 + (uint64_t)i, &err), &err);
        CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    }
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    char p[512], q[512];
    snprintf(p, sizeof(p), "%s/TABLET", dir);
    snprintf(q, sizeof(q), "%s/TABLET.saved", dir);
    assert_int_equal(rename(p, q), 0);
    /* Without TABLET the root rowset alone would be a silently smaller table. */
    cf_table_options o;
    cf_table_options_init(&o);
    for (int ro = 0; ro < 2; ro++) {
        o.read_only = ro;
        CF_ASSERT_STATUS(cf_table_open(&t, dir, &o, &err), CF_ECORRUPT, &err);
        assert_non_null(strstr(err.msg, "TABLET"));
        assert_non_null(strstr(err.msg, "rs-"));
    }
    /* ... and with no root MANIFEST either. */
    snprintf(p, sizeof(p), "%s/MANIFEST", dir);
    snprintf(q, sizeof(q), "%s/MANIFEST.saved", dir);
    assert_int_equal(rename(p, q), 0);
    CF_ASSERT_STATUS(cf_table_open(&t, dir, NULL, &err), CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "TABLET"));
    assert_int_equal(rename(q, p), 0);
    snprintf(p, sizeof(p), "%s/TABLET", dir);
    snprintf(q, sizeof(q), "%s/TABLET.saved", dir);
    assert_int_equal(rename(q, p), 0);
    t = table_open(dir);
    assert_int_equal(table_count_rows(t), 2);
    cf_table_free(t);
    /* A rowset TABLET names without its MANIFEST. */
    snprintf(p, sizeof(p), "%s/rs-2/MANIFEST", dir);
    snprintf(q, sizeof(q), "%s/rs-2/MANIFEST.saved", dir);
    assert_int_equal(rename(p, q), 0);
    for (int ro = 0; ro < 2; ro++) {
        o.read_only = ro;
        CF_ASSERT_STATUS(cf_table_open(&t, dir, &o, &err), CF_ECORRUPT, &err);
        assert_non_null(strstr(err.msg, "rs-2"));
        assert_non_null(strstr(err.msg, "MANIFEST"));
    }
    /* Nothing was removed by the failed opens. */
    assert_true(exists(dir, "rs-2/MANIFEST.saved"));
    assert_true(exists(dir, "rs-1/MANIFEST"));
    CF_ASSERT_RM_RF(dir);
}

static void test_gc__first_flush_writes_tablet_first(void **state)
{
    (void)state;
    char *dir = table_with_one_rowset();
    cf_error err;
    /* A leftover of a crashed flush (numbered past next_rowset) goes; a stale
     * rowset directory with a MANIFEST of ours goes; one with a user's file in
     * it keeps that file. */
    char sub[512];
    snprintf(sub, sizeof(sub), "%s/rs-7", dir);
    assert_int_equal(mkdir(sub, 0777), 0);
    put(sub, "1.col0.cfile", "partial");
    put(sub, "MANIFEST.tmp.3.0123456789abcdef", "partial");
    snprintf(sub, sizeof(sub), "%s/rs-8", dir);
    assert_int_equal(mkdir(sub, 0777), 0);
    put(sub, "1.col0.cfile", "partial");
    put(sub, "keep.txt", "mine");
    cf_table *t = table_open(dir);
    CF_ASSERT_OK(ins(t, 2, 6, &err), &err);
    CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    assert_false(exists(dir, "rs-7"));
    expect(dir, "rs-8/keep.txt", "mine");
    assert_false(exists(dir, "rs-8/1.col0.cfile"));
    assert_int_equal(table_count_rows(t), 2);
    cf_table_free(t);
    CF_ASSERT_RM_RF(dir);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gc__foreign_files_survive),
        cmocka_unit_test(test_gc__symlink_named_like_a_rowset),
        cmocka_unit_test(test_gc__file_named_like_a_rowset),
        cmocka_unit_test(test_gc__create_refuses_foreign_directory),
        cmocka_unit_test(test_gc__reserve_refused_leaves_nothing),
        cmocka_unit_test(test_gc__missing_metadata_is_damage),
        cmocka_unit_test(test_gc__first_flush_writes_tablet_first),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

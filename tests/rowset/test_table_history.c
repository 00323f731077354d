/* No silent history or timestamp lies: the ancient history mark a compaction
 * was given is recorded in the MANIFEST, survives reopening and merges, and
 * reads at older snapshots are refused saying so; timestamps the table
 * reserves are refused up front with the allowed range. */
#include "test_common.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/cfile.h>
#include <cfile/rowset.h>

#include "support_model.h"
#include "support_table.h"

static void make_table(const char *dir)
{
    table_create(dir, "id INT64 KEY, v INT64 NULL");
}

static cf_status ins(cf_table *t, int64_t id, int64_t v, uint64_t ts, cf_error *err)
{
    const void *vals[2] = {&id, &v};
    return cf_table_insert(t, vals, ts, err);
}

static cf_status upd(cf_table *t, int64_t id, int64_t v, uint64_t ts, cf_error *err)
{
    const void *key[1] = {&id};
    cf_column_change ch = {1, &v};
    return cf_table_update(t, key, &ch, 1, ts, err);
}

static cf_status scan_at(cf_table *t, uint64_t snap, size_t *rows, cf_error *err)
{
    cf_scan_options o;
    cf_scan_options_init(&o);
    o.snapshot = snap;
    cf_table_scanner *sc;
    cf_status st = cf_table_scanner_create(&sc, t, &o, err);
    if (st != CF_OK)
        return st;
    *rows = 0;
    for (;;) {
        cf_row_batch b;
        CF_ASSERT_OK(cf_table_scanner_next(sc, &b, err), err);
        if (b.count == 0)
            break;
        *rows += b.count;
    }
    cf_table_scanner_free(sc);
    return CF_OK;
}

static void expect_refused(cf_table *t, uint64_t snap, uint64_t ahm)
{
    cf_error err;
    size_t n;
    CF_ASSERT_STATUS(scan_at(t, snap, &n, &err), CF_EINVAL, &err);
    char want[96];
    snprintf(want, sizeof(want), "history before %" PRIu64 " was discarded by compaction", ahm);
    assert_non_null(strstr(err.msg, want));
    int64_t id = 1;
    const void *key[1] = {&id};
    cf_row_batch b;
    CF_ASSERT_STATUS(cf_table_get(t, key, snap, &b, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, want));
}

static void test_history__ahm_recorded_and_enforced(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    make_table(dir);
    cf_error err;
    cf_table *t = table_open(dir);
    for (int64_t i = 1; i <= 4; i++)
        CF_ASSERT_OK(ins(t, i, i, 10 + (uint64_t)i, &err), &err); /* ts 11..14 */
    CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    for (int64_t i = 1; i <= 4; i++)
        CF_ASSERT_OK(upd(t, i, 100 + i, 20 + (uint64_t)i, &err), &err); /* ts 21..24 */
    size_t n;
    CF_ASSERT_OK(scan_at(t, 12, &n, &err), &err);
    assert_int_equal(n, 1);
    assert_int_equal(cf_table_ahm(t), 0);
    CF_ASSERT_OK(cf_table_compact(t, 23, &err), &err);
    assert_int_equal(cf_table_ahm(t), 23);
    expect_refused(t, 12, 23);
    expect_refused(t, 22, 23);
    CF_ASSERT_OK(scan_at(t, 23, &n, &err), &err);
    assert_int_equal(n, 4);
    CF_ASSERT_OK(scan_at(t, CF_SNAPSHOT_LATEST, &n, &err), &err);
    assert_int_equal(n, 4);
    CF_ASSERT_OK(cf_table_close(t, &err), &err);

    /* Reopened (writer and reader), the mark is still there. */
    cf_table_options o;
    cf_table_options_init(&o);
    o.read_only = true;
    CF_ASSERT_OK(cf_table_open(&t, dir, &o, &err), &err);
    assert_int_equal(cf_table_ahm(t), 23);
    expect_refused(t, 12, 23);
    const char *name;
    cf_rowset *rs = cf_table_rowset_at(t, 0, &name);
    cf_rowset_info info;
    cf_rowset_get_info(rs, &info);
    assert_int_equal(info.ahm, 23);
    /* ... and for a rowset read on its own. */
    cf_scan_options so;
    cf_scan_options_init(&so);
    so.snapshot = 5;
    cf_rowset_scanner *rsc;
    CF_ASSERT_STATUS(cf_rowset_scanner_create(&rsc, rs, &so, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "discarded by compaction"));
    int64_t id = 2;
    const void *key[1] = {&id};
    cf_row_batch b;
    CF_ASSERT_STATUS(cf_rowset_get(rs, key, 5, &b, &err), CF_EINVAL, &err);
    CF_ASSERT_OK(cf_rowset_get(rs, key, 30, &b, &err), &err);
    cf_table_free(t);

    /* New rows, then merges and compactions with smaller marks: the mark never
     * moves back (the merged history stays lost). */
    t = table_open(dir);
    CF_ASSERT_OK(ins(t, 50, 50, 40, &err), &err);
    CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    assert_int_equal(cf_table_ahm(t), 23);
    CF_ASSERT_OK(cf_table_compact(t, 0, &err), &err); /* merges both rowsets */
    assert_int_equal(cf_table_rowset_count(t), 1);
    assert_int_equal(cf_table_ahm(t), 23);
    CF_ASSERT_OK(cf_table_compact(t, 5, &err), &err); /* in place */
    assert_int_equal(cf_table_ahm(t), 23);
    expect_refused(t, 22, 23);
    CF_ASSERT_OK(cf_table_compact(t, 30, &err), &err);
    assert_int_equal(cf_table_ahm(t), 30);
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    t = table_open(dir);
    expect_refused(t, 29, 30);
    CF_ASSERT_OK(scan_at(t, 41, &n, &err), &err);
    assert_int_equal(n, 5);
    cf_table_free(t);
    CF_ASSERT_RM_RF(dir);
}

static void test_history__reserved_timestamps(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    make_table(dir);
    cf_error err;
    cf_table *t = table_open(dir);
    CF_ASSERT_OK(ins(t, 1, 1, 5, &err), &err);
    char range[64];
    snprintf(range, sizeof(range), "1..%" PRIu64, CF_TS_MAX);
    static const uint64_t bad[] = {UINT64_MAX - 1, UINT64_MAX, CF_TS_MAX + 1};
    for (size_t i = 0; i < 3; i++) {
        CF_ASSERT_STATUS(ins(t, 2, 2, bad[i], &err), CF_EINVAL, &err);
        assert_non_null(strstr(err.msg, range));
        CF_ASSERT_STATUS(upd(t, 1, 9, bad[i], &err), CF_EINVAL, &err);
        assert_non_null(strstr(err.msg, range));
        int64_t id = 1;
        const void *key[1] = {&id};
        CF_ASSERT_STATUS(cf_table_delete(t, key, bad[i], &err), CF_EINVAL, &err);
        assert_non_null(strstr(err.msg, range));
    }
    /* Nothing was used up: the table goes on at ordinary timestamps. */
    assert_int_equal(cf_table_last_ts(t), 5);
    CF_ASSERT_OK(upd(t, 1, 9, 6, &err), &err);
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    /* A rowset on its own and a writer's insert_ts follow the same range. */
    cf_rowset *rs;
    t = table_open(dir);
    const char *name;
    cf_table_rowset_at(t, cf_table_rowset_count(t) - 1, &name);
    char sub[512];
    snprintf(sub, sizeof(sub), "%s/%s", dir, name);
    cf_table_free(t);
    CF_ASSERT_OK(cf_rowset_open(&rs, sub, NULL, &err), &err);
    int64_t id = 1, v = 3;
    const void *key[1] = {&id};
    cf_column_change ch = {1, &v};
    CF_ASSERT_STATUS(cf_rowset_update(rs, key, &ch, 1, UINT64_MAX - 1, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, range));
    cf_rowset_free(rs);
    cf_schema *s;
    CF_ASSERT_OK(cf_schema_parse(&s, "id INT64 KEY", &err), &err);
    cf_rowset_writer_options wo;
    cf_rowset_writer_options_init(&wo);
    wo.insert_ts = UINT64_MAX;
    cf_rowset_writer *w;
    char *dir2 = mkdtemp_dir();
    CF_ASSERT_STATUS(cf_rowset_writer_create(&w, dir2, s, &wo, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, range));
    cf_schema_free(s);
    CF_ASSERT_RM_RF(dir2);
    CF_ASSERT_RM_RF(dir);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_history__ahm_recorded_and_enforced),
        cmocka_unit_test(test_history__reserved_timestamps),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* cf-needs: tables */
/* Kudu tablets as Arrow record-batch streams (cf_arrow_stream_kudu_tablet): for
 * every layout of ../shared/kudu-fs, the stream's schema is the tablet's, its
 * rows are the scanner's (count, key order, every value of a projected column)
 * at the latest snapshot and --as-of, in batches of any size, and a bad
 * projection fails at creation. */
#include <stdlib.h>
#include <string.h>

#include "test_common.h"

#include <cfile/arrow.h>
#include <cfile/kudu.h>

#include "support_fsroot.h"

/* Rows of the stream, and the sum of the int64 values of its first column when that
 * column is INT64 (a cheap digest compared with the scanner's). */
static size_t stream_rows(cf_kudu_tablet *t, const cf_kudu_scan_options *so, size_t batch,
                          int64_t *sum)
{
    cf_error err = {0};
    cf_arrow_options ao;
    cf_arrow_options_init(&ao);
    ao.batch_rows = batch;
    struct ArrowArrayStream s;
    CF_ASSERT_OK(cf_arrow_stream_kudu_tablet(&s, t, so, &ao, &err), &err);
    struct ArrowSchema sc;
    assert_int_equal(s.get_schema(&s, &sc), 0);
    bool int64 = strcmp(sc.children[0]->format, "l") == 0;
    sc.release(&sc);
    size_t rows = 0;
    *sum = 0;
    struct ArrowArray arr;
    while (s.get_next(&s, &arr) == 0 && arr.release != NULL) {
        assert_true((size_t)arr.length <= batch);
        if (int64) {
            const int64_t *v = arr.children[0]->buffers[1];
            for (int64_t i = 0; i < arr.length; i++)
                *sum += v[arr.children[0]->offset + i];
        }
        rows += (size_t)arr.length;
        arr.release(&arr);
    }
    s.release(&s);
    return rows;
}

static size_t scanner_rows(cf_kudu_tablet *t, const cf_kudu_scan_options *so, int64_t *sum)
{
    cf_error err = {0};
    cf_kudu_scanner *sc = NULL;
    CF_ASSERT_OK(cf_kudu_scanner_create(&sc, t, so, &err), &err);
    bool int64 =
        cf_schema_column_at(cf_kudu_tablet_schema(t), so && so->cols ? so->cols[0] : 0)->type ==
        CF_TYPE_INT64;
    size_t rows = 0;
    *sum = 0;
    cf_row_batch b;
    while (kfs_scan_next_ok(sc, &b)) {
        if (int64)
            for (size_t i = 0; i < b.count; i++)
                *sum += ((const int64_t *)b.cols[0].values)[i];
        rows += b.count;
    }
    cf_kudu_scanner_free(sc);
    return rows;
}

static void test_kudu_arrow__every_layout(void **state)
{
    (void)state;
    for (size_t li = 0; li < KFS_NLAYOUTS; li++) {
        kfs_layout l;
        kfs_layout_load(&l, kfs_layouts[li]);
        cf_kudu_fs *fs = NULL;
        cf_error err = {0};
        CF_ASSERT_OK(kfs_layout_open(&l, &fs, &err), &err);
        const cf_json *tid = cf_json_get(&l.fsj.root, "tablet_id");
        assert_non_null(tid);
        cf_kudu_tablet *t = NULL;
        CF_ASSERT_OK(cf_kudu_tablet_open(&t, fs, tid->str, &err), &err);

        /* The schema: the tablet's names, in order. */
        struct ArrowArrayStream s;
        CF_ASSERT_OK(cf_arrow_stream_kudu_tablet(&s, t, NULL, NULL, &err), &err);
        struct ArrowSchema sc;
        assert_int_equal(s.get_schema(&s, &sc), 0);
        const cf_schema *schema = cf_kudu_tablet_schema(t);
        assert_int_equal((size_t)sc.n_children, cf_schema_column_count(schema));
        for (size_t i = 0; i < cf_schema_column_count(schema); i++)
            assert_string_equal(sc.children[i]->name, cf_schema_column_at(schema, i)->name);
        sc.release(&sc);
        s.release(&s);

        /* Latest and as-of, whole and projected to the last column, in batches of
         * 1, 7 and 4096 rows: the scanner's row count and digest. */
        cf_json_doc latest, as_of;
        kfs_expected(&l, "tablet_latest.json", &latest);
        kfs_expected(&l, "tablet_as_of.json", &as_of);
        size_t last = cf_schema_column_count(schema) - 1;
        for (int mode = 0; mode < 2; mode++) {
            cf_kudu_scan_options so;
            cf_kudu_scan_options_init(&so);
            if (mode == 1)
                so.as_of = (uint64_t)kfs_int(&as_of.root, "as_of");
            size_t want = (size_t)kfs_int(mode == 0 ? &latest.root : &as_of.root, "num_rows");
            int64_t want_sum, got_sum;
            assert_int_equal(scanner_rows(t, &so, &want_sum), want);
            static const size_t batches[] = {1, 7, 4096};
            for (size_t b = 0; b < 3; b++) {
                assert_int_equal(stream_rows(t, &so, batches[b], &got_sum), want);
                assert_true(got_sum == want_sum);
            }
            so.cols = &last;
            so.ncols = 1;
            assert_int_equal(stream_rows(t, &so, 1000, &got_sum), want);
        }
        cf_json_doc_dispose(&latest);
        cf_json_doc_dispose(&as_of);

        /* A projection past the schema fails at creation, leaving no stream. */
        cf_kudu_scan_options bad;
        cf_kudu_scan_options_init(&bad);
        size_t nope = cf_schema_column_count(schema);
        bad.cols = &nope;
        bad.ncols = 1;
        assert_int_not_equal(cf_arrow_stream_kudu_tablet(&s, t, &bad, NULL, &err), CF_OK);
        assert_null(s.release);

        cf_kudu_tablet_free(t);
        cf_kudu_fs_free(fs);
        kfs_layout_dispose(&l);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kudu_arrow__every_layout),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

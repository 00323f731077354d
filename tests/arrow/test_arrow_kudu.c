/* cf-needs: tables */
/* cf_arrow_stream_kudu_tablet over the Kudu-written layouts of shared/kudu-fs: the schema
 * names the tablet's columns, the batches hold every row of the tablet scan
 * (latest, --no-wal, --as-of counts of the expected files), a projection gives
 * its columns, and a bad projection fails the call. */
#include <cfile/arrow.h>
#include <cfile/kudu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_common.h"

static bool open_layout(const char *name, cf_kudu_fs **fs, cf_kudu_tablet **t, char *root,
                        size_t cap)
{
    snprintf(root, cap, "%s/kudu-fs/%s", cf_test_shared_dir(), name);
    char wal[600], data[4][600];
    const char *dp[4];
    size_t nd = 0;
    struct stat st;
    snprintf(wal, sizeof(wal), "%s/fs/wal", root);
    if (stat(wal, &st) != 0)
        return false;
    for (; nd < 4; nd++) {
        char d[600];
        snprintf(d, sizeof(d), "%s/fs/data%zu", root, nd);
        if (stat(d, &st) != 0)
            break;
        memcpy(data[nd], d, sizeof(d));
        dp[nd] = data[nd];
    }
    cf_kudu_fs_options o;
    cf_kudu_fs_options_init(&o);
    o.wal_dir = wal;
    o.data_dirs = dp;
    o.ndata_dirs = nd;
    cf_error err;
    CF_ASSERT_OK(cf_kudu_fs_open(fs, &o, &err), &err);
    CF_ASSERT_OK(cf_kudu_tablet_open(t, *fs, cf_kudu_fs_tablet_at(*fs, 0), &err), &err);
    return true;
}

static uint64_t expected_u64(const char *root, const char *file, const char *key)
{
    char p[700];
    snprintf(p, sizeof(p), "%s/expected/%s", root, file);
    size_t len;
    char *s = (char *)cf_test_read_file(p, &len);
    assert_non_null(s);
    char pat[64];
    snprintf(pat, sizeof(pat), "\"%s\": ", key);
    char *z = realloc(s, len + 1);
    assert_non_null(z);
    z[len] = '\0';
    const char *q = strstr(z, pat);
    assert_non_null(q);
    uint64_t v = strtoull(q + strlen(pat), NULL, 10);
    free(z);
    return v;
}

/* Every batch of the stream, its rows counted; the stream released. */
static uint64_t drain(struct ArrowArrayStream *s, int64_t ncols)
{
    struct ArrowSchema sc;
    assert_int_equal(s->get_schema(s, &sc), 0);
    assert_int_equal(sc.n_children, ncols);
    sc.release(&sc);
    uint64_t rows = 0;
    for (;;) {
        struct ArrowArray a;
        assert_int_equal(s->get_next(s, &a), 0);
        if (a.release == NULL)
            break;
        assert_int_equal(a.n_children, ncols);
        rows += (uint64_t)a.length;
        a.release(&a);
    }
    s->release(s);
    return rows;
}

static void test_arrow_kudu__layouts(void **state)
{
    (void)state;
    static const char *const layouts[] = {"fbm-small-s4", "lbm-basic-s1", "lbm-compound-s2",
                                          "lbm-onedir-s3"};
    for (size_t i = 0; i < 4; i++) {
        cf_kudu_fs *fs;
        cf_kudu_tablet *t;
        char root[512];
        if (!open_layout(layouts[i], &fs, &t, root, sizeof(root)))
            skip();
        int64_t nc = (int64_t)cf_schema_column_count(cf_kudu_tablet_schema(t));
        cf_error err;
        struct ArrowArrayStream s;
        CF_ASSERT_OK(cf_arrow_stream_kudu_tablet(&s, t, NULL, NULL, &err), &err);
        assert_int_equal(drain(&s, nc), expected_u64(root, "tablet_latest.json", "num_rows"));
        cf_kudu_scan_options o;
        cf_kudu_scan_options_init(&o);
        o.no_wal = true;
        CF_ASSERT_OK(cf_arrow_stream_kudu_tablet(&s, t, &o, NULL, &err), &err);
        assert_int_equal(drain(&s, nc), expected_u64(root, "tablet_flushed.json", "num_rows"));
        cf_kudu_scan_options_init(&o);
        o.as_of = expected_u64(root, "tablet_as_of.json", "as_of");
        size_t proj[2] = {(size_t)nc - 1, 0};
        o.cols = proj;
        o.ncols = 2;
        cf_arrow_options ao;
        cf_arrow_options_init(&ao);
        ao.batch_rows = 100;
        CF_ASSERT_OK(cf_arrow_stream_kudu_tablet(&s, t, &o, &ao, &err), &err);
        assert_int_equal(drain(&s, 2), expected_u64(root, "tablet_as_of.json", "num_rows"));
        size_t bad = 999;
        o.cols = &bad;
        o.ncols = 1;
        assert_int_equal(cf_arrow_stream_kudu_tablet(&s, t, &o, NULL, &err), CF_EINVAL);
        cf_kudu_tablet_free(t);
        cf_kudu_fs_free(fs);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arrow_kudu__layouts),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

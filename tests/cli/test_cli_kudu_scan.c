/* cf-needs: tables */
/* `cfile kudu tablet scan` over the Kudu-written layouts of shared/kudu-fs: the
 * JSON lines equal expected/tablet_latest.json, tablet_flushed.json (--no-wal) and
 * tablet_as_of.json (--as-of) row for row and value for value, the latest also with
 * the blocks mmap'd (--mmap; pread is the default); --columns, --where
 * and --limit as `cfile table scan` has them; usage errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sys/time.h>

#include <cfile/config.h>

#include "json.h"
#include "support_cli.h"
#include "support_fsroot.h"
#include "support_json.h"
#include "support_kudu.h"
#include "support_walgen.h"
#include "test_common.h"

static void expect_rows(const char *what, const char *out, const cf_json *rows)
{
    cf_json_doc got;
    cli_json_lines(&got, out);
    if (got.root.n != rows->n)
        fail_msg("%s: %zu rows, expected %zu", what, got.root.n, rows->n);
    for (size_t i = 0; i < rows->n; i++)
        if (!cli_json_same(&got.root.items[i], &rows->items[i], false))
            fail_msg("%s: row %zu differs", what, i);
    cf_json_doc_dispose(&got);
}

static void test_cli_kudu_scan__layouts(void **state)
{
    (void)state;
    for (size_t i = 0; i < CLI_KUDU_NLAYOUTS; i++) {
        cli_kudu_lay l;
        if (!cli_kudu_lay_open(&l, cli_kudu_layouts[i], NULL))
            skip();
        for (size_t m = 0; m < 4; m++) {
            char p[700], what[200];
            snprintf(p, sizeof(p), "%s/expected/%s", l.root, cli_kudu_expected[m]);
            snprintf(what, sizeof(what), "%s %s", cli_kudu_layouts[i], cli_kudu_expected[m]);
            cf_json_doc want;
            char msg[200];
            if (cf_json_parse_file(&want, p, msg, sizeof(msg)) != 0)
                fail_msg("%s: %s", p, msg);
            const cf_json *rows = cf_json_get(&want.root, "rows");
            assert_non_null(rows);
            run r;
            if (m == 0) {
                CLI(&r, "kudu", "tablet", "scan", "--json", "--fs-wal-dir", l.wal, "--fs-data-dirs",
                    l.data, l.tablet);
            } else if (m == 1) {
                CLI(&r, "kudu", "tablet", "scan", "--json", "--no-wal", "--fs-wal-dir", l.wal,
                    "--fs-data-dirs", l.data, l.tablet);
            } else if (m == 3) {
                CLI(&r, "kudu", "tablet", "scan", "--json", "--mmap", "--fs-wal-dir", l.wal,
                    "--fs-data-dirs", l.data, l.tablet);
            } else {
                const cf_json *asof = cf_json_get(&want.root, "as_of");
                assert_non_null(asof);
                char ts[32];
                snprintf(ts, sizeof(ts), "%.*s", (int)asof->len, asof->str);
                CLI(&r, "kudu", "tablet", "scan", "--json", "--as-of", ts, "--fs-wal-dir", l.wal,
                    "--fs-data-dirs", l.data, l.tablet);
            }
            EXPECT_RC(r, 0);
            expect_rows(what, r.out, rows);
            done(&r);
            cf_json_doc_dispose(&want);
        }
    }
}

/* --columns, --where and --limit: the expected rows, projected and filtered here. */
static void test_cli_kudu_scan__options(void **state)
{
    (void)state;
    cli_kudu_lay l;
    if (!cli_kudu_lay_open(&l, "lbm-basic-s1", NULL))
        skip();
    char p[700];
    snprintf(p, sizeof(p), "%s/expected/tablet_latest.json", l.root);
    cf_json_doc want;
    char msg[200];
    if (cf_json_parse_file(&want, p, msg, sizeof(msg)) != 0)
        fail_msg("%s: %s", p, msg);
    const cf_json *rows = cf_json_get(&want.root, "rows");
    /* c_i32 IS NULL, projected to (c_str, id). */
    size_t nulls = 0;
    for (size_t i = 0; i < rows->n; i++)
        nulls += cf_json_get(&rows->items[i], "c_i32")->kind == CF_JSON_NULL;
    assert_true(nulls > 0 && nulls < rows->n);
    run r;
    CLI(&r, "kudu", "tablet", "scan", "--json", "--columns", "c_str,id", "--where", "c_i32 IS NULL",
        "--fs-wal-dir", l.wal, "--fs-data-dirs", l.data, l.tablet);
    EXPECT_RC(r, 0);
    cf_json_doc got;
    cli_json_lines(&got, r.out);
    assert_int_equal(got.root.n, nulls);
    size_t k = 0;
    for (size_t i = 0; i < rows->n; i++) {
        const cf_json *row = &rows->items[i];
        if (cf_json_get(row, "c_i32")->kind != CF_JSON_NULL)
            continue;
        const cf_json *g = &got.root.items[k++];
        assert_int_equal(g->n, 2);
        assert_string_equal(g->members[0].key, "c_str");
        assert_string_equal(g->members[1].key, "id");
        assert_true(cli_json_same(&g->members[0].value, cf_json_get(row, "c_str"), false));
        assert_true(cli_json_same(&g->members[1].value, cf_json_get(row, "id"), false));
    }
    cf_json_doc_dispose(&got);
    done(&r);
    /* --limit 5 and a comparison on the key: the first five rows past it. */
    const cf_json *id10 = cf_json_get(&rows->items[10], "id");
    char where[64];
    snprintf(where, sizeof(where), "id > %.*s", (int)id10->len, id10->str);
    CLI(&r, "kudu", "tablet", "scan", "--json", "--limit", "5", "--where", where, "--fs-wal-dir",
        l.wal, "--fs-data-dirs", l.data, l.tablet);
    EXPECT_RC(r, 0);
    cli_json_lines(&got, r.out);
    assert_int_equal(got.root.n, 5);
    for (size_t i = 0; i < 5; i++)
        assert_true(cli_json_same(&got.root.items[i], &rows->items[11 + i], false));
    cf_json_doc_dispose(&got);
    done(&r);
    /* The text form has a header and one line per row. */
    CLI(&r, "kudu", "tablet", "scan", "--limit", "2", "--columns", "id", "--fs-wal-dir", l.wal,
        "--fs-data-dirs", l.data, l.tablet);
    cli_out(&r, 0, "id");
    cf_json_doc_dispose(&want);
}

static void test_cli_kudu_scan__usage(void **state)
{
    (void)state;
    cli_kudu_lay l;
    if (!cli_kudu_lay_open(&l, "lbm-basic-s1", NULL))
        skip();
    run r;
    CLI(&r, "kudu", "tablet", "scan", "--fs-wal-dir", l.wal, "--fs-data-dirs", l.data);
    EXPECT_RC(r, 2); /* no tablet */
    done(&r);
    CLI(&r, "kudu", "tablet", "scan", "--as-of", "soon", "--fs-wal-dir", l.wal, l.tablet);
    cli_rc(&r, 2);
    CLI(&r, "kudu", "tablet", "scan", "--limit", "-1", "--fs-wal-dir", l.wal, l.tablet);
    cli_rc(&r, 2);
    CLI(&r, "kudu", "tablet", "scan", "--batch-rows", "0", "--fs-wal-dir", l.wal, l.tablet);
    cli_rc(&r, 2);
    CLI(&r, "kudu", "tablet", "scan", "--columns", "nosuch", "--fs-wal-dir", l.wal,
        "--fs-data-dirs", l.data, l.tablet);
    cli_rc(&r, 2);
    CLI(&r, "kudu", "tablet", "scan", "--where", "id >>> 3", "--fs-wal-dir", l.wal,
        "--fs-data-dirs", l.data, l.tablet);
    cli_rc(&r, 2);
    CLI(&r, "kudu", "tablet", "scan", "--fs-wal-dir", l.wal, "--fs-data-dirs", l.data,
        "00000000000000000000000000000000");
    EXPECT_RC(r, 1); /* not on this server */
    done(&r);
    CLI(&r, "kudu", "tablet", "scan", "--help");
    cli_out(&r, 0, "--as-of");
}

#define GT "0123456789abcdef0123456789abcdef"

/* A scratch root whose WAL has: an insert of k 1 committed (ts now, or a logical
 * 1000), a PARTICIPANT_OP when txn, and an INSERT of k 2 with no COMMIT past the
 * last committed index. */
static void wal_root(char *root, size_t cap, bool txn, bool wall_clock)
{
    cf_schema *s;
    cf_error e = {0};
    CF_ASSERT_OK(cf_schema_parse(&s, "k INT64 KEY, v INT32", &e), &e);
    kfs_tmpdir(root, cap);
    walgen_tablet_root(root, &(walgen_tablet){GT, s, NULL, 0, 0, NULL, 0, -1});
    struct timeval tv;
    gettimeofday(&tv, NULL);
    uint64_t now = ((uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec) << 12;
    walgen g;
    walgen_begin(&g, GT, 1, s, NULL, 0);
    int64_t k1 = 1, k2 = 2;
    int32_t v = 10;
    walgen_write(&g, 1, 1, wall_clock ? now : 1000, CF_KUDU_OP_INSERT, (bool[]){true, true},
                 (const void *[]){&k1, &v}, -1);
    walgen_commit_write(&g, 1, 1, WALGEN_MRS(1));
    if (txn) {
        walgen_participant(&g, 1, 2, 1001, 1, 5);
        walgen_commit(&g, 1, 2, 6, false);
    }
    walgen_write(&g, 1, txn ? 3 : 2, 1002, CF_KUDU_OP_INSERT, (bool[]){true, true},
                 (const void *[]){&k2, &v}, -1);
    walgen_finish(&g, root, "", 1);
    cf_schema_free(s);
}

/* What bootstrap does not replay is never silent: a transaction's op is exit 3
 * naming it; ops Raft has yet to decide are a warning; a snapshot before the
 * ancient history mark is exit 2 (Kudu's InvalidArgument), unless the server kept
 * more history (--history-max-age-sec). */
static void test_cli_kudu_scan__not_replayed(void **state)
{
    (void)state;
    char root[512];
    run r;
    wal_root(root, sizeof root, false, true);
    CLI(&r, "kudu", "tablet", "scan", "--json", "--fs-wal-dir", root, GT);
    EXPECT_RC(r, 0);
    assert_string_equal(r.out, "{\"k\":1,\"v\":10}\n");
    assert_non_null(strstr(r.err, "warning"));
    assert_non_null(strstr(r.err, "1 WAL op (index 2..2) has no COMMIT"));
    done(&r);
    char asof[32];
    struct timeval tv;
    gettimeofday(&tv, NULL);
    snprintf(asof, sizeof asof, "%llu",
             (unsigned long long)(((uint64_t)(tv.tv_sec - 8 * 86400) * 1000000u) << 12));
    CLI(&r, "kudu", "tablet", "scan", "--as-of", asof, "--fs-wal-dir", root, GT);
    cli_err(&r, 2, "ancient history mark");
    CLI(&r, "kudu", "tablet", "scan", "--as-of", asof, "--history-max-age-sec", "864000",
        "--fs-wal-dir", root, GT);
    cli_rc(&r, 0);
    CLI(&r, "kudu", "tablet", "scan", "--history-max-age-sec", "x", "--fs-wal-dir", root, GT);
    cli_rc(&r, 2);
#if CF_HAVE_PARQUET
    /* convert: the same mark, the same warning */
    char out[600];
    snprintf(out, sizeof out, "%s/x.parquet", root);
    CLI(&r, "convert", "--kudu-tablet", GT, "--fs-wal-dir", root, "--as-of", asof, out);
    cli_err(&r, 2, "ancient history mark");
    CLI(&r, "convert", "--kudu-tablet", GT, "--fs-wal-dir", root, "--history-max-age-sec", "864000",
        "--as-of", asof, out);
    cli_rc(&r, 0);
    remove(out);
    CLI(&r, "convert", "--kudu-tablet", GT, "--fs-wal-dir", root, out);
    cli_err(&r, 0, "Raft decides them");
    remove(out);
#endif
    CF_ASSERT_RM_RF(root);
    wal_root(root, sizeof root, true, false);
    CLI(&r, "kudu", "tablet", "scan", "--fs-wal-dir", root, GT);
    cli_err(&r, 3, "PARTICIPANT_OP 1.2 of transaction 5");
    CF_ASSERT_RM_RF(root);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_kudu_scan__layouts),
        cmocka_unit_test(test_cli_kudu_scan__options),
        cmocka_unit_test(test_cli_kudu_scan__usage),
        cmocka_unit_test(test_cli_kudu_scan__not_replayed),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

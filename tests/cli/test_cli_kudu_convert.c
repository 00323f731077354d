/* cf-needs: tables parquet */
/* `cfile convert --kudu-tablet ID FS OUT.parquet`: every layout of shared/kudu-fs
 * exported latest, --no-wal, --as-of and --mmap holds the expected rows (count from the
 * summary, the first rows read back from the file); usage errors. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "support_cli.h"
#include "support_json.h"
#include "support_kudu.h"
#include "test_common.h"

static uint64_t json_num(const cf_json *obj, const char *key)
{
    const cf_json *v = cf_json_get(obj, key);
    assert_non_null(v);
    return strtoull(v->str, NULL, 10);
}

static void test_cli_kudu_convert__layouts(void **state)
{
    (void)state;
    for (size_t i = 0; i < CLI_KUDU_NLAYOUTS; i++) {
        cli_kudu_lay l;
        if (!cli_kudu_lay_open(&l, cli_kudu_layouts[i], NULL))
            skip();
        char *root = l.root, *wal = l.wal, *data = l.data, *tablet = l.tablet;
        for (size_t m = 0; m < 4; m++) {
            char p[700], msg[200];
            snprintf(p, sizeof(p), "%s/expected/%s", root, cli_kudu_expected[m]);
            cf_json_doc want;
            if (cf_json_parse_file(&want, p, msg, sizeof(msg)) != 0)
                fail_msg("%s: %s", p, msg);
            char *out = cli_dir_path("t.parquet");
            run r;
            char ts[32] = "";
            if (m == 2)
                snprintf(ts, sizeof(ts), "%" PRIu64, json_num(&want.root, "as_of"));
            if (m == 0)
                CLI(&r, "convert", "--json", "--kudu-tablet", tablet, "--fs-wal-dir", wal,
                    "--fs-data-dirs", data, out);
            else if (m == 1)
                CLI(&r, "convert", "--json", "--no-wal", "--kudu-tablet", tablet, "--fs-wal-dir",
                    wal, "--fs-data-dirs", data, out);
            else if (m == 3)
                CLI(&r, "convert", "--json", "--mmap", "--kudu-tablet", tablet, "--fs-wal-dir", wal,
                    "--fs-data-dirs", data, out);
            else
                CLI(&r, "convert", "--json", "--as-of", ts, "--kudu-tablet", tablet, "--fs-wal-dir",
                    wal, "--fs-data-dirs", data, out);
            EXPECT_RC(r, 0);
            cf_json_doc sum;
            if (cf_json_parse(&sum, r.out, r.out_len, msg, sizeof(msg)) != 0)
                fail_msg("summary: %s: %s", msg, r.out);
            assert_string_equal(cf_json_get(&sum.root, "from")->str, "kudu");
            if (json_num(&sum.root, "rows") != json_num(&want.root, "num_rows"))
                fail_msg("%s %s: %" PRIu64 " rows", cli_kudu_layouts[i], cli_kudu_expected[m],
                         json_num(&sum.root, "rows"));
            cf_json_doc_dispose(&sum);
            done(&r);
            /* The first row's key, read back. */
            const cf_json *schema = cf_json_get(&want.root, "schema");
            char key[64];
            snprintf(key, sizeof(key), "%s", cf_json_get(&schema->items[0], "name")->str);
            CLI(&r, "parquet", "head", "-n", "1", "--columns", key, out);
            EXPECT_RC(r, 0);
            cf_json_doc got;
            if (cf_json_parse(&got, r.out, r.out_len, msg, sizeof(msg)) != 0)
                fail_msg("head: %s: %s", msg, r.out);
            const cf_json *g = cf_json_get(&got.root, key);
            const cf_json *e = cf_json_get(&cf_json_get(&want.root, "rows")->items[0], key);
            assert_true(g != NULL && e != NULL && g->kind == e->kind);
            assert_int_equal(g->len, e->len);
            assert_memory_equal(g->str, e->str, e->len);
            cf_json_doc_dispose(&got);
            done(&r);
            unlink(out);
            cf_json_doc_dispose(&want);
        }
    }
}

/* --to table: a new cfile table whose scan equals the tablet's expected rows. */
static void test_cli_kudu_convert__to_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < CLI_KUDU_NLAYOUTS; i++) {
        char msg[200];
        cli_kudu_lay l;
        if (!cli_kudu_lay_open(&l, cli_kudu_layouts[i], NULL))
            skip();
        char *root = l.root, *wal = l.wal, *data = l.data, *tablet = l.tablet;
        char *dir = cli_dir_path(cli_kudu_layouts[i]);
        run r;
        CLI(&r, "convert", "--json", "--kudu-tablet", tablet, "--fs-wal-dir", wal, "--fs-data-dirs",
            data, "--to", "table", dir);
        cli_rc(&r, 0);
        CLI(&r, "table", "scan", "--json", dir);
        EXPECT_RC(r, 0);
        char p[700];
        snprintf(p, sizeof(p), "%s/expected/tablet_latest.json", root);
        cf_json_doc want;
        if (cf_json_parse_file(&want, p, msg, sizeof(msg)) != 0)
            fail_msg("%s: %s", p, msg);
        const cf_json *rows = cf_json_get(&want.root, "rows");
        size_t n = 0;
        for (char *line = r.out; line != NULL && *line; n++) {
            char *nl = strchr(line, '\n');
            size_t len = nl != NULL ? (size_t)(nl - line) : strlen(line);
            cf_json_doc got;
            if (cf_json_parse(&got, line, len, msg, sizeof(msg)) != 0)
                fail_msg("%s: row %zu: %s", cli_kudu_layouts[i], n, msg);
            assert_true(n < rows->n);
            if (!cli_json_same(&got.root, &rows->items[n], true))
                fail_msg("%s: row %zu differs", cli_kudu_layouts[i], n);
            cf_json_doc_dispose(&got);
            line = nl != NULL ? nl + 1 : NULL;
        }
        assert_int_equal(n, rows->n);
        cf_json_doc_dispose(&want);
        done(&r);
        /* Never into a table that exists. */
        CLI(&r, "convert", "--kudu-tablet", tablet, "--fs-wal-dir", wal, "--fs-data-dirs", data,
            "--to", "table", dir);
        cli_rc(&r, 1);
    }
}

/* --kudu-table over two servers holding replicas of one tablet: the tablet once,
 * from the replica whose WAL reaches further (here the second server given: the
 * first one's copy lost its last WAL segment). */
static void test_cli_kudu_convert__table_replicas(void **state)
{
    (void)state;
    char msg[200];
    cli_kudu_lay l;
    if (!cli_kudu_lay_open(&l, "lbm-basic-s1", NULL))
        skip();
    char *root = l.root, *wal = l.wal, *data = l.data, *tablet = l.tablet;
    char *copy = cli_dir_path("copy");
    char cmd[2000];
    snprintf(cmd, sizeof(cmd), "cp -a '%s/fs' '%s' && rm '%s/wal/wals/%s/wal-000000006'", root,
             copy, copy, tablet);
    assert_int_equal(system(cmd), 0);
    char s1[2400], s2[2400];
    snprintf(s1, sizeof(s1), "%s/wal:%s/data0,%s/data1", copy, copy, copy);
    snprintf(s2, sizeof(s2), "%s:%s", wal, data);
    char *out = cli_dir_path("t.parquet");
    run r;
    CLI(&r, "convert", "--kudu-table", "kudu_fsgen_table", "--kudu-server", s1, "--kudu-server", s2,
        out);
    EXPECT_RC(r, 0);
    char want[200];
    snprintf(want, sizeof(want), "tablet %s: server 2", tablet);
    if (strstr(r.err, want) == NULL)
        fail_msg("stderr: %s", r.err);
    done(&r);
    CLI(&r, "convert", "--json", "--kudu-table", "kudu_fsgen_table", "--kudu-server", s2,
        "--kudu-server", s1, out);
    EXPECT_RC(r, 0);
    cf_json_doc sum, exp;
    if (cf_json_parse(&sum, r.out, r.out_len, msg, sizeof(msg)) != 0)
        fail_msg("summary: %s", msg);
    char p[700];
    snprintf(p, sizeof(p), "%s/expected/tablet_latest.json", root);
    if (cf_json_parse_file(&exp, p, msg, sizeof(msg)) != 0)
        fail_msg("%s: %s", p, msg);
    assert_int_equal(json_num(&sum.root, "rows"), json_num(&exp.root, "num_rows"));
    cf_json_doc_dispose(&sum);
    cf_json_doc_dispose(&exp);
    done(&r);
    CLI(&r, "convert", "--kudu-table", "no_such_table", "--kudu-server", s2, out);
    cli_rc(&r, 1);
    CLI(&r, "convert", "--kudu-server", s2, out);
    cli_rc(&r, 2);
    CLI(&r, "convert", "--kudu-table", "kudu_fsgen_table", "--kudu-tablet", tablet, "--kudu-server",
        s2, out);
    cli_rc(&r, 2);
}

static void test_cli_kudu_convert__usage(void **state)
{
    (void)state;
    cli_kudu_lay l;
    if (!cli_kudu_lay_open(&l, "lbm-basic-s1", NULL))
        skip();
    char *wal = l.wal, *data = l.data, *tablet = l.tablet;
    run r;
    CLI(&r, "convert", "--kudu-tablet", tablet, "--fs-wal-dir", wal, cli_dir_path("x.cfile"));
    EXPECT_RC(r, 2); /* not .parquet */
    done(&r);
    CLI(&r, "convert", "--kudu-tablet", tablet, "--fs-wal-dir", wal, "in",
        cli_dir_path("x.parquet"));
    EXPECT_RC(r, 2); /* an IN as well */
    done(&r);
    CLI(&r, "convert", "--no-wal", "in.cfile", cli_dir_path("x.parquet"));
    EXPECT_RC(r, 2); /* --no-wal without a tablet */
    done(&r);
    CLI(&r, "convert", "--kudu-tablet", tablet, "--fs-wal-dir", wal, "--to", "table", "--key", "id",
        cli_dir_path("t"));
    EXPECT_RC(r, 2); /* the tablet's key is the table's */
    done(&r);
    CLI(&r, "convert", "--kudu-tablet", "00000000000000000000000000000000", "--fs-wal-dir", wal,
        "--fs-data-dirs", data, cli_dir_path("x.parquet"));
    cli_rc(&r, 1);
    struct stat st;
    assert_int_not_equal(stat(cli_dir_path("x.parquet"), &st), 0); /* nothing left behind */
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cli_kudu_convert__layouts, cli_dir_setup,
                                        cli_dir_teardown),
        cmocka_unit_test_setup_teardown(test_cli_kudu_convert__to_table, cli_dir_setup,
                                        cli_dir_teardown),
        cmocka_unit_test_setup_teardown(test_cli_kudu_convert__table_replicas, cli_dir_setup,
                                        cli_dir_teardown),
        cmocka_unit_test_setup_teardown(test_cli_kudu_convert__usage, cli_dir_setup,
                                        cli_dir_teardown),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* `cfile table` and the write-ahead log segment a table needs (issue 30 item
 * 10): with the segment holding acknowledged changes deleted, every command
 * refuses with exit 1 naming the segment
 * (it used to scan the older state with exit 0 and insert at a reused
 * timestamp); and `table info`'s row count is what `table scan` returns, with
 * rows in the log, deletes in the log and in files, several rowsets, and after
 * a compaction (it counted stored rows: deleted ones in, log ones out). */
/* cf-needs: tables */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "json.h"
#include "support_cli.h"
#include "test_common.h"

#define SCHEMA "id INT64 KEY, name STRING NULL"

static void ok(const char *a, const char *b, const char *c, const char *d, const char *e)
{
    run r;
    cli(&r, "table", a, b, c, d, e, NULL);
    cli_rc(&r, 0);
}

/* Rows of `table scan --format csv` (its header left out). */
static long scan_rows(const char *dir)
{
    run r;
    cli(&r, "table", "scan", dir, "--format", "csv", NULL);
    EXPECT_RC(r, 0);
    long lines = 0;
    for (const char *p = r.out; *p; p++)
        lines += *p == '\n';
    done(&r);
    return lines - 1;
}

/* `table info`'s rows, text and JSON, checked against a scan. */
static void expect_info_rows(const char *dir, long want)
{
    assert_int_equal(scan_rows(dir), want);
    run r;
    cli(&r, "table", "info", dir, NULL);
    EXPECT_RC(r, 0);
    char line[64];
    snprintf(line, sizeof(line), "\nrows:        %ld\n", want);
    if (strstr(r.out, line) == NULL)
        fail_msg("info does not say %ld rows: %.600s", want, r.out);
    done(&r);
    cli(&r, "table", "info", dir, "--json", NULL);
    EXPECT_RC(r, 0);
    cf_json_doc doc;
    char msg[200];
    if (cf_json_parse(&doc, r.out, strlen(r.out), msg, sizeof(msg)) != 0) {
        cf_json_doc_dispose(&doc);
        fail_msg("not JSON (%s): %.300s", msg, r.out);
    }
    const cf_json *rows = cf_json_get(&doc.root, "rows");
    assert_true(rows != NULL && rows->kind == CF_JSON_NUMBER);
    assert_int_equal(atol(rows->str), want);
    cf_json_doc_dispose(&doc);
    done(&r);
}

static void test_cli_table_walseg__info_rows_agree_with_scan(void **state)
{
    (void)state;
    char *dir = cli_dir_path("t");
    ok("create", dir, "--schema", SCHEMA, NULL);
    expect_info_rows(dir, 0);
    char row[32];
    for (int i = 1; i <= 4; i++) {
        snprintf(row, sizeof(row), "id=%d,name=n%d", i, i);
        ok("insert", dir, "--row", row, NULL);
    }
    ok("delete", dir, "--key", "2", NULL);
    expect_info_rows(dir, 3); /* the log alone: it said 0 */
    ok("flush", dir, NULL, NULL, NULL);
    expect_info_rows(dir, 3); /* a rowset of 4 rows, one deleted: it said 4 */
    ok("delete", dir, "--key", "3", NULL);
    ok("insert", dir, "--row", "id=9,name=n9", NULL);
    ok("insert", dir, "--row", "id=2,name=back", NULL); /* reinserted where it lives */
    expect_info_rows(dir, 4);
    ok("flush", dir, NULL, NULL, NULL);
    expect_info_rows(dir, 4);
    ok("compact", dir, NULL, NULL, NULL);
    expect_info_rows(dir, 4);
    ok("delete", dir, "--key", "9", NULL);
    expect_info_rows(dir, 3);
}

static void test_cli_table_walseg__missing_segment_refused(void **state)
{
    (void)state;
    char *dir = cli_dir_path("t");
    ok("create", dir, "--schema", SCHEMA, NULL);
    ok("insert", dir, "--row", "id=1,name=a", NULL);
    ok("flush", dir, NULL, NULL, NULL);
    ok("insert", dir, "--row", "id=2,name=b", NULL);
    ok("delete", dir, "--key", "1", NULL);
    assert_int_equal(scan_rows(dir), 1);
    char seg[200], keep[220];
    snprintf(seg, sizeof(seg), "%s/wal/wal-0000000000000002.log", dir);
    snprintf(keep, sizeof(keep), "%s.keep", seg);
    assert_int_equal(rename(seg, keep), 0);
    const char *const cmds[][6] = {
        {"scan", dir, NULL},
        {"info", dir, NULL},
        {"get", dir, "1", NULL},
        {"insert", dir, "--row", "id=3,name=c", NULL},
        {"delete", dir, "--key", "2", NULL},
        {"flush", dir, NULL},
        {"compact", dir, NULL},
    };
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        run r;
        char *args[8] = {"table"};
        for (size_t k = 0; k < 6 && cmds[i][k] != NULL; k++)
            args[1 + k] = (char *)cmds[i][k];
        run_argv(&r, NULL, args);
        if (r.rc != 1 || strstr(r.err, "wal-0000000000000002.log") == NULL ||
            strstr(r.err, "segment missing") == NULL)
            fail_msg("table %s: exit %d, stderr %.400s", cmds[i][0], r.rc, r.err);
        done(&r);
    }
    struct stat sb;
    assert_int_equal(stat(seg, &sb), -1); /* no command made a new one */
    assert_int_equal(rename(keep, seg), 0);
    assert_int_equal(scan_rows(dir), 1);
    ok("insert", dir, "--row", "id=3,name=c", NULL);
    assert_int_equal(scan_rows(dir), 2);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        CLI_DIR_TEST(test_cli_table_walseg__info_rows_agree_with_scan),
        CLI_DIR_TEST(test_cli_table_walseg__missing_segment_refused),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

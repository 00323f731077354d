/* `cfile table` with new keys: `table insert`, import of unsorted CSV into an
 * empty table and of any CSV into a table with rows, duplicate-key errors with
 * their line, and scans/gets/info/compact over several rowsets. */
/* cf-needs: tables */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "support_cli.h"
#include "test_common.h"

#define SCHEMA "id INT64 KEY, name STRING NULL"

static void test_cli_table_insert__unsorted_import_and_insert(void **state)
{
    (void)state;
    char *dir = cli_table_import("t", SCHEMA, "id,name\n3,c\n1,a\n2,\n", "imported 3 rows");
    run r;
    cli_prints("{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":null}\n{\"id\":3,\"name\":\"c\"}\n",
               "table", "scan", dir, "--json", NULL);
    /* Out of order: the rows were sorted in memory and committed together at one
     * timestamp (1, a new table's first): every snapshot sees all or none. */
    cli_prints("", "table", "scan", dir, "--json", "--as-of", "0", NULL);
    cli_prints("{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":null}\n{\"id\":3,\"name\":\"c\"}\n",
               "table", "scan", dir, "--json", "--as-of", "1", NULL);
    cli(&r, "table", "insert", dir, "--row", "name=zero, id=0", NULL);
    cli_out_is(&r, 0, "inserted 1 row at ts 2\n");
    cli(&r, "table", "insert", dir, "--row", "id=2,name=again", NULL);
    cli_err(&r, CF_EXIT_FAIL, "duplicate key");
    cli(&r, "table", "insert", dir, "--row", "name=nokey", NULL);
    cli_err(&r, CF_EXIT_USAGE, "no value for column 'id'");
    /* Delete, then insert the key again. */
    cli(&r, "table", "delete", dir, "--key", "2", NULL);
    cli_rc(&r, 0);
    cli(&r, "table", "insert", dir, "--row", "id=2,name=back", "--ts", "9", NULL);
    cli_out_is(&r, 0, "inserted 1 row at ts 9\n");
    cli(&r, "table", "get", dir, "--json", "2", "0", NULL);
    cli_out_is(&r, 0, "{\"id\":2,\"name\":\"back\"}\n{\"id\":0,\"name\":\"zero\"}\n");
    cli(&r, "table", "info", dir, NULL);
    EXPECT_RC(r, 0);
    /* no flush per command: the last insert is in the log and the MemRowSet;
     * the import, out of order from its first rows, sorted them all into one
     * rowset (keys 1..3) */
    assert_null(strstr(r.out, "rowsets:"));
    assert_non_null(strstr(r.out, "rs-1/1.col0.cfile"));
    assert_non_null(
        strstr(r.out, "min key:     8000000000000001\nmax key:     8000000000000003\n"));
    assert_non_null(strstr(r.out, "memrowset:   1 rows"));
    done(&r);
}

/* --row, --set, --where and KEY values are read by the one text-to-value parser
 * (values.h cf_cli_value_parse_text), the rules of CSV fields and the value
 * forms. The table options had their own (strtod, strtoll), which stored 1e999
 * and "inf" as infinity and a FLOAT's 1e39 as infinity with exit 0, read "+3"
 * and took 0x... as a C hex float where the value forms mean a NaN's bits. */
static void test_cli_table_insert__values_as_text_forms(void **state)
{
    (void)state;
    char *dir = cli_dir_path("vt");
    run r;
    cli_table_create(dir, "id INT64 KEY, d DOUBLE NULL, f FLOAT NULL");
    static const char *const bad[][2] = {
        {"id=1,d=1e999", "column 'd': DOUBLE: 1e999 is out of range (use \"Infinity\""},
        {"id=1,f=1e39", "column 'f': FLOAT: 1e39 is out of range"},
        {"id=1,d=inf", "column 'd': DOUBLE: not a number: inf"},
        {"id=+1", "column 'id': INT64: not an integer: +1"},
        {"id=9223372036854775808", "INT64: 9223372036854775808 is out of range"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cli(&r, "table", "insert", dir, "--row", bad[i][0], NULL);
        EXPECT_RC(r, CF_EXIT_USAGE);
        if (strstr(r.err, bad[i][1]) == NULL)
            fail_msg("--row %s: %s", bad[i][0], r.err);
        done(&r);
    }
    cli(&r, "table", "insert", dir, "--row", "id=1,d=0x7ff8000000000001,f=-Infinity", NULL);
    cli_rc(&r, 0);
    cli(&r, "table", "insert", dir, "--row", "id=-9223372036854775808,d=NaN,f=1.5", NULL);
    cli_rc(&r, 0);
    cli(&r, "table", "update", dir, "--key", "1", "--set", "f=TRUE", NULL);
    cli_err(&r, CF_EXIT_USAGE, "FLOAT: not a number: TRUE");
    cli(&r, "table", "scan", dir, "--where", "d < 1e999", NULL);
    cli_err(&r, CF_EXIT_USAGE, "DOUBLE: 1e999 is out of range");
    cli_prints("{\"id\":1,\"d\":\"0x7ff8000000000001\",\"f\":\"-Infinity\"}\n", "table", "scan",
               dir, "--json", "--where", "f < -1e38", NULL);
    cli(&r, "table", "get", dir, "--format", "csv", "--", "-9223372036854775808", NULL);
    cli_out_is(&r, 0, "id,d,f\n-9223372036854775808,NaN,1.5\n");
}

static void test_cli_table_insert__import_into_rows(void **state)
{
    (void)state;
    char *dir = cli_dir_path("t2");
    char *a = cli_dir_path("a.csv"), *b = cli_dir_path("b.csv"), *c = cli_dir_path("c.csv");
    write_str(a, "id,name\n10,x\n20,y\n");
    write_str(b, "name,id\nw,25\nv,5\n");
    write_str(c, "id,name\n30,z\n20,dup\n");
    run r;
    cli(&r, "table", "import", dir, "--schema", SCHEMA, a, NULL);
    cli_rc(&r, 0);
    /* Sorted rows into an empty table: one rowset written in one pass. */
    cli(&r, "table", "info", dir, NULL);
    EXPECT_RC(r, 0);
    assert_non_null(strstr(r.out, "rows:        2\nstored rows: 2\ngeneration:  1\n"));
    assert_null(strstr(r.out, "rowsets:"));
    done(&r);
    cli(&r, "table", "import", dir, b, NULL);
    cli_out(&r, 0, "imported 2 rows");
    /* A duplicate stops the import with its line; its rows are not kept. */
    cli(&r, "table", "import", dir, c, NULL);
    cli_err(&r, CF_EXIT_FAIL, "c.csv: line 3: duplicate key (the table holds it in rs-");
    cli(&r, "table", "import", dir, "--schema", "id INT64 KEY, name STRING", b, NULL);
    cli_rc(&r, CF_EXIT_USAGE);
    cli_prints("{\"id\":5,\"name\":\"v\"}\n{\"id\":10,\"name\":\"x\"}\n{\"id\":20,\"name\":\"y\"}\n"
               "{\"id\":25,\"name\":\"w\"}\n",
               "table", "scan", dir, "--json", NULL);
    cli(&r, "table", "update", dir, "--key", "25", "--set", "name=W", NULL);
    cli_rc(&r, 0);
    cli(&r, "table", "compact", dir, NULL);
    cli_out(&r, 0, ": 4 rows,");
    cli_prints("{\"id\":5,\"name\":\"v\"}\n{\"id\":10,\"name\":\"x\"}\n{\"id\":20,\"name\":\"y\"}\n"
               "{\"id\":25,\"name\":\"W\"}\n",
               "table", "scan", dir, "--json", NULL);
    cli_prints("{\"id\":10,\"name\":\"x\"}\n{\"id\":20,\"name\":\"y\"}\n", "table", "scan", dir,
               "--json", "--as-of", "1", NULL);
    /* A repeated key in sorted input into an empty table: the one-pass writer
     * refuses it, and nothing opens as a table. */
    char *d3 = cli_dir_path("t3"), *dup = cli_dir_path("dup.csv");
    write_str(dup, "id,name\n1,a\n2,b\n2,c\n");
    cli(&r, "table", "import", d3, "--schema", SCHEMA, dup, NULL);
    cli_err(&r, CF_EXIT_FAIL, "dup.csv: line 4: duplicate key (repeated in the load)");
    assert_int_equal(access(cli_dir_path("t3/MANIFEST"), F_OK), -1);
    /* A table of several rowsets is not replaced by `create`. */
    cli(&r, "table", "insert", dir, "--row", "id=1", NULL);
    cli_rc(&r, 0);
    cli(&r, "table", "create", dir, "--schema", SCHEMA, NULL);
    cli_err(&r, CF_EXIT_FAIL, "already holds a table");
}

/* One way to name a row: --key KEY in get (repeatable), update and delete; the
 * older positional keys still work, never mixed with --key; extra keys where one
 * row is meant are refused rather than ignored. */
static void test_cli_table_insert__key_option_everywhere(void **state)
{
    (void)state;
    char *dir = cli_table_import("t", SCHEMA, "id,name\n-5,neg\n1,a\n2,b\n3,c\n", NULL);
    run r;
    const char *want = "{\"id\":3,\"name\":\"c\"}\n{\"id\":1,\"name\":\"a\"}\n";
    cli(&r, "table", "get", dir, "--json", "--key", "3", "--key", "1", NULL);
    cli_out_is(&r, 0, want);
    cli(&r, "table", "get", dir, "--json", "3", "1", NULL);
    cli_out_is(&r, 0, want);
    /* A key starting with '-' is a value of --key, and --key=KEY works too. */
    cli(&r, "table", "get", dir, "--json", "--key", "-5", "--key=2", NULL);
    cli_out_is(&r, 0, "{\"id\":-5,\"name\":\"neg\"}\n{\"id\":2,\"name\":\"b\"}\n");
    cli(&r, "table", "get", dir, "--key", "9", NULL);
    cli_err(&r, CF_EXIT_FAIL, "key 9: not found");
    cli(&r, "table", "get", dir, "--key", "x", NULL);
    cli_rc(&r, CF_EXIT_USAGE);
    cli(&r, "table", "get", dir, "--key", "1", "2", NULL);
    cli_err(&r, CF_EXIT_USAGE, "--key KEY or as arguments, not both (argument '2')");
    cli(&r, "table", "get", dir, NULL);
    cli_err(&r, CF_EXIT_USAGE, "get needs a key: --key KEY");
    /* update and delete: one key, by --key or as the argument after DIR. */
    cli(&r, "table", "update", dir, "--key", "1", "--key", "2", "--set", "name=z", NULL);
    cli_err(&r, CF_EXIT_USAGE, "update takes one key (--key KEY), got 2");
    cli(&r, "table", "delete", dir, "--key", "1", "2", NULL);
    cli_err(&r, CF_EXIT_USAGE, "delete takes one key");
    cli(&r, "table", "delete", dir, NULL);
    cli_err(&r, CF_EXIT_USAGE, "delete needs --key KEY");
    cli(&r, "table", "update", dir, "2", "--set", "name=two", NULL);
    cli_rc(&r, 0);
    cli(&r, "table", "delete", dir, "3", NULL);
    cli_rc(&r, 0);
    cli(&r, "table", "delete", dir, "--key", "-5", NULL);
    cli_rc(&r, 0);
    cli_prints("{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":\"two\"}\n", "table", "scan", dir,
               "--json", NULL);
    /* The help names --key for get first. */
    cli(&r, "table", "--help", NULL);
    EXPECT_RC(r, 0);
    assert_non_null(strstr(r.out, "cfile table get DIR [--json | --format text|csv|jsonl] "
                                  "[--as-of TS]\n                           --key KEY"));
    done(&r);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        CLI_DIR_TEST(test_cli_table_insert__unsorted_import_and_insert),
        CLI_DIR_TEST(test_cli_table_insert__values_as_text_forms),
        CLI_DIR_TEST(test_cli_table_insert__import_into_rows),
        CLI_DIR_TEST(test_cli_table_insert__key_option_everywhere),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

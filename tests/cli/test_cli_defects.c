/* Known CLI defects (issue 14, item 10), each pinned by the test that failed
 * before its fix:
 *  - `table scan --columns` naming an unknown column printed freed memory;
 *  - reading a STRING updated to '' (a delta holding only empty values) made
 *    UBSan report NULL + 0 (the scan/get output is checked here; the report
 *    itself needs the sanitizer build, where this test failed);
 *  - `bloom probe` on a CFile that is not a BloomFile answered "absent", exit 0;
 *  - `verify`, `dump` and `info --blocks` called Kudu's valid BloomFiles
 *    damaged (they decoded bloom blocks as PLAIN binary values);
 *  - `table insert/update/delete/compact --json` printed text;
 *  - a long option missing its argument was named by its short letter
 *    (`dump F --count` said "-n"), or by a control character for long-only ones.
 * The table cases run in builds with the table module (CF_HAVE_TABLES).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cfile/config.h> /* CF_HAVE_TABLES */

#include "cli.h"
#include "support_cli.h"
#include "test_common.h"

#if CF_HAVE_TABLES
static void test_cli_defects__scan_unknown_column_is_named(void **state)
{
    (void)state;
    char *t = cli_dir_path("t");
    run r;
    cli_table_create(t, "id INT64 KEY, v INT32");
    /* Long enough that the freed copy is reused and overwritten. */
    CLI(&r, "table", "scan", t, "--columns", "id,no_such_column_anywhere_in_this_table");
    cli_err(&r, CF_EXIT_USAGE, "--columns: no column 'no_such_column_anywhere_in_this_table'");
    CLI(&r, "table", "scan", t, "--columns", "nosuch,id");
    cli_err(&r, CF_EXIT_USAGE, "no column 'nosuch'");
}

static void test_cli_defects__string_updated_to_empty(void **state)
{
    (void)state;
    char *t = cli_dir_path("t");
    run r;
    cli_table_create(t, "id INT64 KEY, s STRING, n STRING NULL, b BINARY");
    CLI(&r, "table", "insert", t, "--row", "id=1,s=abc,n=def,b=0a0b");
    cli_rc(&r, 0);
    CLI(&r, "table", "insert", t, "--row", "id=2,s=xyz,b=ff");
    cli_rc(&r, 0);
    /* Every value of these deltas is empty: nothing is allocated for them. */
    CLI(&r, "table", "update", t, "--key", "1", "--set", "s=''");
    cli_rc(&r, 0);
    CLI(&r, "table", "update", t, "--key", "2", "--set", "n=\"\",b=");
    cli_rc(&r, 0);
    const char *want = "{\"id\":1,\"s\":\"\",\"n\":\"def\",\"b\":\"0a0b\"}\n"
                       "{\"id\":2,\"s\":\"xyz\",\"n\":\"\",\"b\":\"\"}\n";
    cli_prints(want, "table", "scan", t, "--json", NULL);
    CLI(&r, "table", "get", t, "--json", "1");
    cli_out_is(&r, 0, "{\"id\":1,\"s\":\"\",\"n\":\"def\",\"b\":\"0a0b\"}\n");
    CLI(&r, "table", "compact", t);
    cli_rc(&r, 0);
    cli_prints(want, "table", "scan", t, "--json", NULL);
}
#endif

static char *golden(const char *name)
{
    static char buf[4][1024];
    static int k;
    char *p = buf[k++ % 4];
    snprintf(p, 1024, "%s/golden/%.200s/%.200s.cfile", cf_test_shared_dir(), name, name);
    return p;
}

static void test_cli_defects__bloom_probe_refuses_other_files(void **state)
{
    (void)state;
    /* A sorted column with a value index: it used to be "probed". */
    char *f = golden("string-dict-nocomp-notnull-sorted-validx-multilevel");
    run r;
    CLI(&r, "bloom", "probe", f, "abc");
    EXPECT_RC(r, CF_EXIT_FAIL);
    assert_string_equal(r.out, "");
    assert_non_null(strstr(r.err, "not a BloomFile"));
    done(&r);
    CLI(&r, "bloom", "probe", "--json", f, "abc");
    cli_out_is(&r, CF_EXIT_FAIL, "");
    /* Without a value index: not "unsupported" (exit 3), not a BloomFile. */
    CLI(&r, "bloom", "probe", golden("int32-plain-nocomp-notnull-appendbatch1"), "5");
    cli_err(&r, CF_EXIT_FAIL, "not a BloomFile");
    /* A real one still answers. */
    CLI(&r, "bloom", "probe", golden("bloom-100keys-4096b"), "no-such-key-at-all");
    cli_rc(&r, 0);
}

/* Keys to probe by --key (repeatable) as `table get` takes them, or after
 * FILE as before; not both. */
static void test_cli_defects__bloom_probe_key_option(void **state)
{
    (void)state;
    char *f = golden("bloom-100keys-4096b");
    run a, b;
    CLI(&a, "bloom", "probe", "--json", f, "key-000000", "no-such-key");
    EXPECT_RC(a, 0);
    CLI(&b, "bloom", "probe", "--json", f, "--key", "key-000000", "--key", "no-such-key");
    EXPECT_RC(b, 0);
    assert_string_equal(a.out, b.out);
    assert_non_null(strstr(b.out, "\"key\":\"key-000000\",\"maybe_present\":true"));
    done(&a);
    done(&b);
    CLI(&a, "bloom", "probe", f, "--key", "key-000000", "key-000001");
    cli_err(&a, CF_EXIT_USAGE, "not both");
    CLI(&a, "bloom", "write", "--key", "x", "keys.txt", "out.bloom");
    cli_err(&a, CF_EXIT_USAGE, "--key is for probe");
}

/* Every golden BloomFile: verify, dump (each format) and info --blocks succeed. */
static void test_cli_defects__golden_bloom_files(void **state)
{
    (void)state;
    char gdir[512];
    snprintf(gdir, sizeof gdir, "%s/golden", cf_test_shared_dir());
    DIR *d = opendir(gdir);
    assert_non_null(d);
    int seen = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "bloom-", 6) != 0)
            continue;
        char *f = golden(e->d_name);
        run r;
        CLI(&r, "verify", f);
        cli_out(&r, 0, ": ok (BloomFile: ");
        CLI(&r, "verify", "--json", f);
        cli_out_has(&r, 0, "\"ok\":true,\"kind\":\"BloomFile\"", "\"damaged\":[]", NULL);
        CLI(&r, "dump", f);
        cli_out_has(&r, 0, "BloomFile", "# bloom block 0 at offset 16, ", NULL);
        CLI(&r, "dump", "--json", f);
        cli_out_has(&r, 0, "\"kind\":\"BloomFile\",\"bloom_blocks\":[{\"offset\":16,",
                    "\"values\":[]}\n", NULL);
        CLI(&r, "dump", "--format", "csv", f);
        cli_out_is(&r, 0, "row,value\n");
        CLI(&r, "dump", "--format", "jsonl", f);
        cli_out_is(&r, 0, "");
        CLI(&r, "info", "--blocks", f);
        EXPECT_RC(r, 0);
        assert_non_null(strstr(r.out, "bloom block"));
        assert_null(strstr(r.out, "data block"));
        done(&r);
        seen++;
    }
    closedir(d);
    assert_true(seen >= 2);

    /* A damaged bloom block is still found. */
    size_t len;
    uint8_t *bytes = cf_test_read_file(golden("bloom-100keys-4096b"), &len);
    assert_non_null(bytes);
    bytes[100] ^= 0x10; /* inside the one bloom block (offset 16, 4106 bytes) */
    char *bad = cli_dir_path("bad-bloom.cfile");
    write_text(bad, (const char *)bytes, len);
    free(bytes);
    run r;
    CLI(&r, "verify", bad);
    cli_out(&r, CF_EXIT_FAIL, "DAMAGED bloom block at offset 16");
    CLI(&r, "dump", bad);
    cli_rc(&r, CF_EXIT_FAIL);
}

#if CF_HAVE_TABLES
static void test_cli_defects__table_json_results(void **state)
{
    (void)state;
    char *t = cli_dir_path("t");
    run r;
    CLI(&r, "table", "create", t, "--schema", "id INT64 KEY, v INT32 NULL");
    cli_out_is(&r, 0, "");
    CLI(&r, "table", "insert", t, "--row", "id=1,v=10", "--json");
    cli_out_is(&r, 0, "{\"op\":\"insert\",\"rows\":1,\"ts\":2}\n");
    CLI(&r, "table", "insert", t, "--row", "id=2", "--json", "--ts", "7");
    cli_out_is(&r, 0, "{\"op\":\"insert\",\"rows\":1,\"ts\":7}\n");
    CLI(&r, "table", "update", t, "--key", "1", "--set", "v=11", "--json");
    cli_out_is(&r, 0, "{\"op\":\"update\",\"rows\":1,\"ts\":8}\n");
    CLI(&r, "table", "delete", t, "--key", "2", "--json");
    cli_out_is(&r, 0, "{\"op\":\"delete\",\"rows\":1,\"ts\":9}\n");
    CLI(&r, "table", "compact", t, "--json");
    EXPECT_RC(r, 0);
    /* The counts are the library's; the shape and the op are the CLI's. */
    cli_has(r.out, "{\"op\":\"compact\",\"table\":\"", "\"rows\":", "\"generation\":", NULL);
    assert_int_equal(r.out[strlen(r.out) - 1], '\n');
    done(&r);
    cli_prints("{\"id\":1,\"v\":11}\n", "table", "scan", t, "--json", NULL);
    /* Options a subcommand does not take are refused, not ignored. */
    CLI(&r, "table", "create", cli_dir_path("u"), "--schema", "id INT64 KEY", "--limit", "3");
    cli_err(&r, CF_EXIT_USAGE, "create does not take --limit");
    CLI(&r, "table", "insert", t, "--row", "id=3", "--where", "id = 1");
    cli_err(&r, CF_EXIT_USAGE, "insert does not take --where");
    CLI(&r, "table", "scan", t, "--ts", "5");
    cli_err(&r, CF_EXIT_USAGE, "scan does not take --ts");
    /* Nothing was written by the refused insert. */
    cli_prints("{\"id\":1,\"v\":11}\n", "table", "scan", t, "--json", NULL);
}
#endif

/* The first line of stderr. */
static void expect_first_err_line(run *r, const char *want)
{
    EXPECT_RC(*r, CF_EXIT_USAGE);
    char *nl = strchr(r->err, '\n');
    if (nl != NULL)
        *nl = '\0';
    assert_string_equal(r->err, want);
    done(r);
}

static void test_cli_defects__option_errors_name_what_was_typed(void **state)
{
    (void)state;
    run r;
    CLI(&r, "dump", "f", "--count");
    expect_first_err_line(&r, "cfile dump: option --count needs an argument");
    CLI(&r, "dump", "f", "--co"); /* an abbreviation is named as typed */
    expect_first_err_line(&r, "cfile dump: option --co needs an argument");
    CLI(&r, "dump", "f", "-n");
    expect_first_err_line(&r, "cfile dump: bad option or missing argument: -n");
    CLI(&r, "dump", "f", "--json=1");
    expect_first_err_line(&r, "cfile dump: option --json takes no argument");
    CLI(&r, "dump", "f", "--bogus");
    expect_first_err_line(&r, "cfile dump: unknown or ambiguous option: --bogus");
    CLI(&r, "dump", "f", "--f", "1"); /* --format or --from */
    expect_first_err_line(&r, "cfile dump: unknown or ambiguous option: --f");
    CLI(&r, "dump", "--json", "-jq", "f"); /* inside a cluster, after a long option */
    expect_first_err_line(&r, "cfile dump: bad option or missing argument: -q");
    /* Long-only options (codes above 255) used to print as a control byte. */
#if CF_HAVE_TABLES
    CLI(&r, "table", "scan", "t", "--where");
    expect_first_err_line(&r, "cfile table: option --where needs an argument");
    CLI(&r, "table", "scan", "t", "--stats=yes");
    expect_first_err_line(&r, "cfile table: option --stats takes no argument");
#endif
    CLI(&r, "seek", "f", "--ordinal");
    expect_first_err_line(&r, "cfile seek: option --ordinal needs an argument");
    CLI(&r, "bloom", "write", "--bytes");
    expect_first_err_line(&r, "cfile bloom: option --bytes needs an argument");
    /* A bad value names its option, whether given as one word or two. */
    CLI(&r, "write", "--type", "INT32", "--block-size", "abc", "in", "out");
    expect_first_err_line(&r, "cfile write: --block-size: not a number in 0..4294967295: abc");
    CLI(&r, "write", "--type", "INT32", "--append-batch=-1", "in", "out");
    expect_first_err_line(&r, "cfile write: --append-batch: not a number in 0..4294967295: -1");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
#if CF_HAVE_TABLES
        CLI_DIR_TEST(test_cli_defects__scan_unknown_column_is_named),
        CLI_DIR_TEST(test_cli_defects__string_updated_to_empty),
#endif
        CLI_DIR_TEST(test_cli_defects__bloom_probe_refuses_other_files),
        CLI_DIR_TEST(test_cli_defects__golden_bloom_files),
        CLI_DIR_TEST(test_cli_defects__bloom_probe_key_option),
#if CF_HAVE_TABLES
        CLI_DIR_TEST(test_cli_defects__table_json_results),
#endif
        cmocka_unit_test(test_cli_defects__option_errors_name_what_was_typed),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* cf-needs: tables */
/* `cfile kudu wal dump` over ../shared/kudu-fs: the JSON contract (segments,
 * footers or null, torn tails, entries with decoded ops), the text form, and the
 * errors: damage in a closed segment names the segment file and the offset
 * (exit 1), a torn last segment is not an error, a bad tablet id is a usage
 * error, a missing tablet a failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"

#include "json.h"
#include "support_cli.h"

#define LAYOUT "lbm-compound-s2"
#define TABLET "874d5577a6e1690d74a4679dbb1beb26"

static char wal_dir[1024], data_dirs[2048];

static void layout_dirs(void)
{
    const char *sh = cf_test_shared_dir();
    snprintf(wal_dir, sizeof wal_dir, "%s/kudu-fs/%s/fs/wal", sh, LAYOUT);
    snprintf(data_dirs, sizeof data_dirs, "%s/kudu-fs/%s/fs/data0,%s/kudu-fs/%s/fs/data1", sh,
             LAYOUT, sh, LAYOUT);
}

static void test_json_dump(void **state)
{
    (void)state;
    layout_dirs();
    run r;
    CLI(&r, "kudu", "wal", "dump", "--json", "--fs-wal-dir", wal_dir, "--fs-data-dirs", data_dirs,
        TABLET);
    EXPECT_RC(r, 0);
    cf_json_doc d;
    char msg[256];
    if (cf_json_parse(&d, r.out, r.out_len, msg, sizeof msg) != 0)
        fail_msg("not JSON: %s", msg);
    const cf_json *segs = cf_json_get(&d.root, "segments");
    assert_non_null(segs);
    assert_int_equal(segs->n, 3);
    for (size_t i = 0; i < 3; i++) {
        const cf_json *s = &segs->items[i];
        bool last = i == 2;
        assert_int_equal(cf_json_get(s, "torn_tail")->kind, last ? CF_JSON_TRUE : CF_JSON_FALSE);
        assert_int_equal(cf_json_get(s, "footer")->kind, last ? CF_JSON_NULL : CF_JSON_OBJECT);
        assert_int_equal(cf_json_get(s, "header")->kind, CF_JSON_OBJECT);
    }
    assert_string_equal(cf_json_get(&segs->items[0], "file")->str, "wal-000000004");
    /* the first entry is a REPLICATE WRITE_OP of inserts, decoded */
    const cf_json *e0 = &cf_json_get(&segs->items[0], "entries")->items[0];
    assert_string_equal(cf_json_get(e0, "type")->str, "REPLICATE");
    const cf_json *ops = cf_json_get(e0, "ops");
    assert_non_null(ops);
    assert_true(ops->n > 0);
    const cf_json *op = &ops->items[0];
    assert_string_equal(cf_json_get(op, "op")->str, "INSERT");
    const cf_json *row = cf_json_get(op, "row");
    assert_string_equal(cf_json_get(row, "host")->str, "host-02-003");
    assert_int_equal(cf_json_get(row, "count")->kind, CF_JSON_NULL);
    assert_int_equal(row->n, 6);
    cf_json_doc_dispose(&d);
    done(&r);
}

static void test_text_dump(void **state)
{
    (void)state;
    layout_dirs();
    run r;
    CLI(&r, "kudu", "wal", "dump", "--fs-wal-dir", wal_dir, "--fs-data-dirs", data_dirs, TABLET);
    EXPECT_RC(r, 0);
    cli_has(r.out, "wal-000000006: sequence 6", "Footer: none",
            "torn tail: entries end at offset 4403 of 1048576", "1.159 REPLICATE WRITE_OP",
            "INSERT (STRING host=host-02-003", "1.159 COMMIT WRITE_OP", NULL);
    done(&r);
}

static void test_usage_and_missing(void **state)
{
    (void)state;
    layout_dirs();
    run r;
    CLI(&r, "kudu", "wal", "dump", "--json", TABLET);
    cli_rc(&r, 2);
    CLI(&r, "kudu", "wal", "dump", "--fs-wal-dir", wal_dir, "--fs-data-dirs", data_dirs, "../x");
    cli_err(&r, 2, "not a tablet id");
    CLI(&r, "kudu", "wal", "dump", "--fs-wal-dir", wal_dir, "--fs-data-dirs", data_dirs,
        "00000000000000000000000000000000");
    cli_err(&r, 1, "no WAL for tablet");
    CLI(&r, "kudu", "wal", "frob");
    cli_rc(&r, 2);
}

/* A copy of the WAL root with one byte of a closed segment's entry flipped. */
static void test_damage_names_segment_and_offset(void **state)
{
    (void)state;
    layout_dirs();
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s/wal' && chmod -R u+w '%s/wal'", wal_dir, cli_dir,
             cli_dir);
    assert_int_equal(system(cmd), 0);
    char seg[1024];
    snprintf(seg, sizeof seg, "%s/wal/wals/%s/wal-000000005", cli_dir, TABLET);
    FILE *f = fopen(seg, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, 5000, SEEK_SET), 0);
    int ch = fgetc(f);
    assert_int_equal(fseek(f, 5000, SEEK_SET), 0);
    fputc(ch ^ 0x10, f);
    fclose(f);
    run r;
    CLI(&r, "kudu", "wal", "dump", "--json", "--fs-wal-dir", cli_dir_path("wal"), "--fs-data-dirs",
        data_dirs, TABLET);
    EXPECT_RC(r, 1);
    assert_non_null(strstr(r.err, "wal-000000005"));
    assert_non_null(strstr(r.err, "at offset"));
    done(&r);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_dump),
        cmocka_unit_test(test_text_dump),
        cmocka_unit_test(test_usage_and_missing),
        cmocka_unit_test_setup_teardown(test_damage_names_segment_and_offset, cli_dir_setup,
                                        cli_dir_teardown),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

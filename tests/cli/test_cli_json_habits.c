/* One set of habits (issue 18, item 4): --json on the reporting commands that
 * lacked it (demo, table create/import/flush, delta write), each one compact JSON
 * document; --limit N on `hfile dump` and `parquet dump`, stopping after N rows
 * as `cfile dump --limit` does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "support_cli.h"
#include "test_common.h"

/* Parse a run's stdout as exactly one JSON document on one line. */
static void parse_one(cf_json_doc *doc, const run *r)
{
    char msg[160];
    assert_non_null(r->out);
    assert_true(r->out_len > 1);
    assert_int_equal(r->out[r->out_len - 1], '\n');
    assert_null(memchr(r->out, '\n', r->out_len - 1)); /* one line: compact */
    if (cf_json_parse(doc, r->out, r->out_len, msg, sizeof(msg)) != 0)
        fail_msg("not JSON (%s): %.200s", msg, r->out);
}

static const char *str_of(const cf_json *o, const char *key)
{
    const cf_json *v = cf_json_get(o, key);
    if (v == NULL || v->kind != CF_JSON_STRING)
        fail_msg("no string \"%s\"", key);
    return v->str;
}

static long long num_of(const cf_json *o, const char *key)
{
    const cf_json *v = cf_json_get(o, key);
    if (v == NULL || v->kind != CF_JSON_NUMBER)
        fail_msg("no number \"%s\"", key);
    return atoll(v->str);
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void rm_rf(const char *dir)
{
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_json_habits__demo(void **state)
{
    (void)state;
    char dir[] = "/tmp/cf_habits_XXXXXX";
    assert_non_null(mkdtemp(dir));
    run r;
    CLI(&r, "demo", "--dir", dir, "--rows", "300", "--json");
    EXPECT_RC(r, 0);
    cf_json_doc doc;
    parse_one(&doc, &r);
    assert_string_equal(str_of(&doc.root, "dir"), dir);
    assert_int_equal(num_of(&doc.root, "rows"), 300);
    const cf_json *cols = cf_json_get(&doc.root, "columns");
    assert_non_null(cols);
    assert_int_equal(cols->n, 6);
    for (size_t i = 0; i < cols->n; i++) {
        const cf_json *c = &cols->items[i];
        assert_int_equal(num_of(c, "rows"), 300);
        /* bytes: the file's size on disk */
        struct stat sb;
        assert_int_equal(stat(str_of(c, "file"), &sb), 0);
        assert_int_equal(num_of(c, "bytes"), sb.st_size);
        const cf_json *fv = cf_json_get(c, "first_values");
        assert_true(fv != NULL && fv->kind == CF_JSON_ARRAY && fv->n == 4);
    }
    assert_string_equal(str_of(&cols->items[0], "name"), "id");
    const cf_json *lk = cf_json_get(&cols->items[0], "value_index_lookup");
    assert_non_null(lk);
    /* ids are 0, 7, 14, ...: the key 150*7+3 falls between two of them */
    assert_int_equal(num_of(lk, "key"), 1053);
    assert_int_equal(num_of(lk, "value"), 1057);
    assert_int_equal(num_of(lk, "row"), 151);
    assert_int_equal(cf_json_get(lk, "exact")->kind, CF_JSON_FALSE);
    cf_json_doc_dispose(&doc);
    done(&r);
    /* Text stays as it was: a table, then the hint. */
    CLI(&r, "demo", "--dir", dir, "--rows", "300");
    EXPECT_RC(r, 0);
    assert_non_null(strstr(r.out, "column  type"));
    assert_non_null(strstr(r.out, "\ntry: cfile info"));
    assert_null(strstr(r.out, "  \n")); /* no trailing blanks */
    done(&r);
    rm_rf(dir);
}

static void test_json_habits__table_create_import_flush(void **state)
{
    (void)state;
    char dir[] = "/tmp/cf_habits_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char t[128], csv[128];
    snprintf(t, sizeof(t), "%s/t", dir);
    snprintf(csv, sizeof(csv), "%s/rows.csv", dir);
    write_str(csv, "id,name\n1,a\n2,b\n3,c\n");
    run r;
    cf_json_doc doc;
    CLI(&r, "table", "create", t, "--schema", "id INT64 KEY, name STRING NULL", "--json");
    EXPECT_RC(r, 0);
    parse_one(&doc, &r);
    assert_string_equal(str_of(&doc.root, "op"), "create");
    assert_string_equal(str_of(&doc.root, "table"), t);
    assert_string_equal(str_of(&doc.root, "schema"), "id INT64 KEY, name STRING NULL");
    cf_json_doc_dispose(&doc);
    done(&r);

    CLI(&r, "table", "import", t, csv, "--json");
    EXPECT_RC(r, 0);
    parse_one(&doc, &r);
    assert_string_equal(str_of(&doc.root, "op"), "import");
    assert_int_equal(num_of(&doc.root, "rows"), 3);
    cf_json_doc_dispose(&doc);
    done(&r);

    CLI(&r, "table", "insert", t, "--row", "id=9,name=z");
    EXPECT_RC(r, 0);
    done(&r);
    CLI(&r, "table", "flush", t, "--json");
    EXPECT_RC(r, 0);
    parse_one(&doc, &r);
    assert_string_equal(str_of(&doc.root, "op"), "flush");
    assert_int_equal(num_of(&doc.root, "rows"), 1);
    assert_int_equal(num_of(&doc.root, "rowsets"), 2);
    cf_json_doc_dispose(&doc);
    done(&r);

    /* flush takes only --json and --lock-timeout now, like the other writers. */
    CLI(&r, "table", "flush", t, "--where", "id = 1");
    EXPECT_RC(r, 2);
    assert_non_null(strstr(r.err, "flush does not take --where"));
    done(&r);
    rm_rf(dir);
}

static void test_json_habits__delta_write(void **state)
{
    (void)state;
    char dir[] = "/tmp/cf_habits_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char spec[512], out[128];
    snprintf(spec, sizeof(spec), "%s/golden-delta/redo-basic/spec.json", cf_test_shared_dir());
    snprintf(out, sizeof(out), "%s/d.cfile", dir);
    run r;
    CLI(&r, "delta", "write", "--json", spec, out);
    EXPECT_RC(r, 0);
    cf_json_doc doc;
    parse_one(&doc, &r);
    assert_string_equal(str_of(&doc.root, "file"), out);
    struct stat sb;
    assert_int_equal(stat(out, &sb), 0);
    assert_int_equal(num_of(&doc.root, "bytes"), sb.st_size);
    long long nd = num_of(&doc.root, "deltas");
    cf_json_doc_dispose(&doc);
    done(&r);
    /* As many as dump finds in the file. */
    CLI(&r, "delta", "dump", "--json", out, "--schema", spec, "--type", "REDO");
    EXPECT_RC(r, 0);
    char msg[128];
    assert_int_equal(cf_json_parse(&doc, r.out, r.out_len, msg, sizeof(msg)), 0);
    const cf_json *ds = cf_json_get(&doc.root, "deltas");
    assert_non_null(ds);
    assert_int_equal((long long)ds->n, nd);
    assert_true(nd > 0);
    cf_json_doc_dispose(&doc);
    done(&r);
    /* Without --json: silent, as before. */
    unlink(out);
    CLI(&r, "delta", "write", spec, out);
    EXPECT_RC(r, 0);
    assert_int_equal(r.out_len, 0);
    done(&r);
    CLI(&r, "delta", "write", "--jsn", spec, out);
    EXPECT_RC(r, 2);
    done(&r);
    rm_rf(dir);
}

static void test_json_habits__hfile_dump_limit(void **state)
{
    (void)state;
    char f[512];
    snprintf(f, sizeof(f), "%s/hfile/gohfile_simple_v1.hfile", cf_test_shared_dir());
    run r;
    cf_json_doc doc;
    CLI(&r, "hfile", "dump", "--json", f);
    EXPECT_RC(r, 0);
    parse_one(&doc, &r);
    size_t all = cf_json_get(&doc.root, "cells")->n;
    assert_true(all > 2);
    cf_json_doc_dispose(&doc);
    done(&r);
    CLI(&r, "hfile", "dump", "--json", "--limit", "2", f);
    EXPECT_RC(r, 0);
    parse_one(&doc, &r);
    assert_int_equal(cf_json_get(&doc.root, "cells")->n, 2);
    cf_json_doc_dispose(&doc);
    done(&r);
    /* Text: two cells and the count line. */
    CLI(&r, "hfile", "dump", "-n", "2", f);
    EXPECT_RC(r, 0);
    assert_int_equal(count_lines(r.out), 3);
    assert_non_null(strstr(r.out, "Scanned kv count -> 2\n"));
    done(&r);
    CLI(&r, "hfile", "dump", "--limit", "0", "--json", f);
    EXPECT_RC(r, 0);
    parse_one(&doc, &r);
    assert_int_equal(cf_json_get(&doc.root, "cells")->n, 0);
    cf_json_doc_dispose(&doc);
    done(&r);
    CLI(&r, "hfile", "meta", "--limit", "2", f);
    EXPECT_RC(r, 2);
    assert_non_null(strstr(r.err, "--limit does not apply to 'meta'"));
    done(&r);
    CLI(&r, "hfile", "dump", "--limit", "x", f);
    EXPECT_RC(r, 2);
    done(&r);
}

static void test_json_habits__parquet_dump_limit(void **state)
{
    (void)state;
    char f[512];
    snprintf(f, sizeof(f), "%s/parquet/pt_binary/pt_binary.parquet", cf_test_shared_dir());
    run r;
    cf_json_doc doc;
    CLI(&r, "parquet", "dump", "--json", "--limit", "3", f);
    EXPECT_RC(r, 0);
    parse_one(&doc, &r);
    const cf_json *rows = cf_json_get(&doc.root, "rows");
    assert_int_equal(rows->n, 3);
    cf_json_doc_dispose(&doc);
    done(&r);
    /* JSON Lines stop after N rows, from --rows' start. */
    CLI(&r, "parquet", "dump", "--limit", "2", "--rows", "5..", f);
    EXPECT_RC(r, 0);
    assert_string_equal(r.out, "{\"foo\": \"05\"}\n{\"foo\": \"06\"}\n");
    done(&r);
    CLI(&r, "parquet", "head", "--limit", "1", f);
    EXPECT_RC(r, 0);
    assert_int_equal(count_lines(r.out), 1);
    done(&r);
    CLI(&r, "parquet", "meta", "--limit", "1", f);
    EXPECT_RC(r, 2);
    assert_non_null(strstr(r.err, "--limit"));
    done(&r);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_habits__demo),
        cmocka_unit_test(test_json_habits__table_create_import_flush),
        cmocka_unit_test(test_json_habits__delta_write),
        cmocka_unit_test(test_json_habits__hfile_dump_limit),
        cmocka_unit_test(test_json_habits__parquet_dump_limit),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

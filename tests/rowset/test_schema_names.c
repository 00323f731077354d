/* Column names: the schema takes what Kudu's master takes (ValidateIdentifier in
 * src/kudu/master/catalog_manager.cc: 1..256 bytes, UTF-8 as gutil's charntorune
 * decodes it, no U+FFFD) and refuses the rest naming the column; the schema text
 * quotes exactly the names that are not plain identifiers, in backquotes, and
 * parses them back; a table's MANIFEST keeps them across a reopen, and a schema of
 * plain names is written byte for byte as before. */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/cfile.h>
#include <cfile/rowset.h>

#include "rowset/internal.h"
#include "support_model.h"
#include "support_table.h"

static cf_status one(const char *name, cf_error *err)
{
    cf_column c[2] = {{.name = "id", .type = CF_TYPE_INT64, .is_key = true},
                      {.name = name, .type = CF_TYPE_STRING, .nullable = true}};
    cf_schema *s = NULL;
    cf_status st = cf_schema_create(&s, c, 2, err);
    cf_schema_free(s);
    return st;
}

static void test_names__kudu_rule(void **state)
{
    (void)state;
    cf_error err;
    char n256[300], n257[300];
    memset(n256, 'x', 256);
    n256[256] = '\0';
    memset(n257, 'y', 257);
    n257[257] = '\0';
    static const char *const ok[] = {
        "my-col",
        "a b",
        "select",
        "Gr\xc3\xb6\xc3\x9f"
        "e",
        "1abc",
        "`",
        "a,b",
        "\"q\"",
        "x\ny",
        " lead",
        "\xe6\x97\xa5\xe6\x9c\xac",
        "\xf0\x9f\x98\x80", /* U+1F600 */
        "\xed\xa0\x80",     /* U+D800: charntorune takes surrogates */
        "\xf4\x90\x80\x80", /* U+110000: and code points up to U+1FFFFF */
        "\xf7\xbf\xbf\xbf",
        "\xef\xbf\xbc", /* U+FFFC */
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        CF_ASSERT_OK(one(ok[i], &err), &err);
    CF_ASSERT_OK(one(n256, &err), &err);
    /* 256 bytes of two-byte characters */
    char u256[300];
    for (int i = 0; i < 128; i++)
        memcpy(u256 + 2 * i, "\xc3\xa9", 2);
    u256[256] = '\0';
    CF_ASSERT_OK(one(u256, &err), &err);

    CF_ASSERT_STATUS(one(n257, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "column 1"));
    assert_non_null(strstr(err.msg, "longer than 256 bytes"));
    CF_ASSERT_STATUS(one("", &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "empty"));
    static const char *const bad[] = {
        "\xc0\x80",             /* overlong NUL */
        "\xc1\xbf",             /* overlong */
        "\xe0\x9f\xbf",         /* overlong 3-byte */
        "\xf0\x8f\xbf\xbf",     /* overlong 4-byte */
        "ab\x80",               /* a lone continuation byte */
        "ab\xc3",               /* cut short */
        "\xe6\x97",             /* cut short */
        "\xf8\x88\x80\x80\x80", /* 5-byte forms */
        "\xff",
        "a\xef\xbf\xbd", /* U+FFFD is Kudu's Runeerror */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CF_ASSERT_STATUS(one(bad[i], &err), CF_EINVAL, &err);
        assert_non_null(strstr(err.msg, "not valid UTF-8"));
        assert_non_null(strstr(err.msg, "column 1"));
    }
    /* names differ byte for byte */
    cf_column c[2] = {{.name = "id", .type = CF_TYPE_INT64, .is_key = true},
                      {.name = "ID", .type = CF_TYPE_STRING}};
    cf_schema *s;
    CF_ASSERT_OK(cf_schema_create(&s, c, 2, &err), &err);
    assert_int_equal(cf_schema_find(s, "ID"), 1);
    cf_schema_free(s);
}

static void roundtrip(const char *const *names, size_t n, const char *want_text)
{
    cf_column c[16];
    assert_true(n <= 16);
    for (size_t i = 0; i < n; i++)
        c[i] = (cf_column){.name = names[i],
                           .type = i ? CF_TYPE_INT32 : CF_TYPE_STRING,
                           .is_key = i == 0,
                           .nullable = i > 0};
    cf_error err;
    cf_schema *s, *back;
    CF_ASSERT_OK(cf_schema_create(&s, c, n, &err), &err);
    size_t len = cf_schema_format(s, NULL, 0);
    char *text = malloc(len + 1);
    assert_non_null(text);
    assert_int_equal(cf_schema_format(s, text, len + 1), len);
    if (want_text != NULL)
        assert_string_equal(text, want_text);
    CF_ASSERT_OK(cf_schema_parse(&back, text, &err), &err);
    assert_true(cf_schema_equal(s, back));
    for (size_t i = 0; i < n; i++)
        assert_string_equal(cf_schema_column_at(back, i)->name, names[i]);
    /* a short buffer: truncated, NUL-terminated, same length reported */
    char small[8];
    assert_int_equal(cf_schema_format(s, small, sizeof small), len);
    assert_int_equal(strlen(small), 7);
    free(text);
    cf_schema_free(s);
    cf_schema_free(back);
}

static void test_names__text_roundtrip(void **state)
{
    (void)state;
    /* plain identifiers: bare, as always */
    static const char *const plain[] = {"id", "name", "_x1"};
    roundtrip(plain, 3, "id STRING KEY, name INT32 NULL, _x1 INT32 NULL");
    static const char *const odd[] = {"my-col",    "a b",  "it`s", "``",   "a,b",
                                      "\"q\" 'r'", "x\ny", "1abc", "NULL", "KEY"};
    roundtrip(odd, 10,
              "`my-col` STRING KEY, `a b` INT32 NULL, `it``s` INT32 NULL, `````` INT32 NULL, "
              "`a,b` INT32 NULL, `\"q\" 'r'` INT32 NULL, `x\ny` INT32 NULL, `1abc` INT32 NULL, "
              "NULL INT32 NULL, KEY INT32 NULL");
    static const char *const utf[] = {"Gr\xc3\xb6\xc3\x9f"
                                      "e",
                                      "\xf0\x9f\x98\x80", "\xed\xa0\x80"};
    roundtrip(utf, 3, NULL);
    char n256[300], q256[300];
    memset(n256, 'x', 256);
    n256[256] = '\0';
    memset(q256, '`', 256);
    q256[256] = '\0';
    const char *const longs[] = {n256, q256};
    roundtrip(longs, 2, NULL);

    /* by hand: quoted names anywhere a name goes, blanks around them */
    cf_error err;
    cf_schema *s;
    CF_ASSERT_OK(cf_schema_parse(&s, "  `my col`  INT64 KEY,`b``c`STRING NULL , d INT32", &err),
                 &err);
    assert_string_equal(cf_schema_column_at(s, 0)->name, "my col");
    assert_string_equal(cf_schema_column_at(s, 1)->name, "b`c");
    assert_true(cf_schema_column_at(s, 1)->nullable);
    cf_schema_free(s);

    /* errors name what is wrong */
    CF_ASSERT_STATUS(cf_schema_parse(&s, "`a INT64 KEY", &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "no closing backquote"));
    CF_ASSERT_STATUS(cf_schema_parse(&s, "`` INT64 KEY", &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "empty"));
    CF_ASSERT_STATUS(cf_schema_parse(&s, "my-col INT64 KEY", &err), CF_EINVAL, &err);
    char text[400];
    memset(text, 'z', 257);
    snprintf(text + 257, sizeof text - 257, " INT64 KEY");
    CF_ASSERT_STATUS(cf_schema_parse(&s, text, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "longer than 256"));
    text[0] = '`';
    memset(text + 1, 'z', 257);
    snprintf(text + 258, sizeof text - 258, "` INT64 KEY");
    CF_ASSERT_STATUS(cf_schema_parse(&s, text, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "longer than 256"));
    CF_ASSERT_STATUS(cf_schema_parse(&s, "`a\xc3` INT64 KEY", &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "UTF-8"));
}

static void test_names__name_calls(void **state)
{
    (void)state;
    char buf[64];
    assert_int_equal(cf_schema_name_format("abc", buf, sizeof buf), 3);
    assert_string_equal(buf, "abc");
    assert_int_equal(cf_schema_name_format("a`b", buf, sizeof buf), 6);
    assert_string_equal(buf, "`a``b`");
    assert_int_equal(cf_schema_name_format("", buf, sizeof buf), 2);
    assert_string_equal(buf, "``");
    assert_int_equal(cf_schema_name_format("a b", buf, 3), 5);
    assert_string_equal(buf, "`a");
    assert_int_equal(cf_schema_name_format("a b", NULL, 0), 5);

    size_t used;
    cf_error err;
    CF_ASSERT_OK(cf_schema_name_parse(buf, sizeof buf, &used, "`a``b` rest", &err), &err);
    assert_string_equal(buf, "a`b");
    assert_int_equal(used, 6);
    CF_ASSERT_OK(cf_schema_name_parse(buf, sizeof buf, &used, "ab_1-x", &err), &err);
    assert_string_equal(buf, "ab_1");
    assert_int_equal(used, 4);
    CF_ASSERT_STATUS(cf_schema_name_parse(buf, sizeof buf, &used, "-x", &err), CF_EINVAL, &err);
    CF_ASSERT_STATUS(cf_schema_name_parse(buf, sizeof buf, &used, "`ab", &err), CF_EINVAL, &err);
    CF_ASSERT_STATUS(cf_schema_name_parse(buf, 3, &used, "`abc`", &err), CF_EINVAL, &err);
    CF_ASSERT_STATUS(cf_schema_name_parse(buf, 3, &used, "abc", &err), CF_EINVAL, &err);
    CF_ASSERT_OK(cf_schema_name_parse(buf, 4, &used, "abc", &err), &err);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static void test_names__manifest(void **state)
{
    (void)state;
    cf_error err;
    /* plain names: the MANIFEST's column lines as they always were */
    char *dir = mkdtemp_dir();
    cf_schema *s;
    CF_ASSERT_OK(cf_schema_parse(&s, "id INT64 KEY, name STRING NULL", &err), &err);
    CF_ASSERT_OK(cf_rowset_create_empty(dir, s, &err), &err);
    cf_schema_free(s);
    char path[1200];
    snprintf(path, sizeof path, "%s/MANIFEST", dir);
    const char *m = slurp(path);
    assert_non_null(strstr(m, "\ncolumn id INT64 k AUTO DEFAULT 0 0 0 0\n"
                              "column name STRING n AUTO DEFAULT 0 0 0 0\n"));
    CF_ASSERT_RM_RF(dir);

    /* odd names, a newline and 256 backquotes too (twice as long quoted) */
    dir = mkdtemp_dir();
    char q256[300];
    memset(q256, '`', 256);
    q256[256] = '\0';
    cf_column c[5] = {
        {.name = "my-col", .type = CF_TYPE_INT64, .is_key = true},
        {.name = "a b, c", .type = CF_TYPE_STRING, .nullable = true},
        {.name = "x\ny `z`", .type = CF_TYPE_INT32, .nullable = true},
        {.name = q256, .type = CF_TYPE_INT32, .nullable = true},
        {.name = "Gr\xc3\xb6\xc3\x9f"
                 "e",
         .type = CF_TYPE_DOUBLE,
         .nullable = true},
    };
    CF_ASSERT_OK(cf_schema_create(&s, c, 5, &err), &err);
    CF_ASSERT_OK(cf_rowset_create_empty(dir, s, &err), &err);
    snprintf(path, sizeof path, "%s/MANIFEST", dir);
    m = slurp(path);
    assert_non_null(strstr(m, "\ncolumn `my-col` INT64 k AUTO DEFAULT 0 0 0 0\n"
                              "column `a b, c` STRING n AUTO DEFAULT 0 0 0 0\n"
                              "column `x\ny ``z``` INT32 n AUTO DEFAULT 0 0 0 0\n"));
    cf_table *t = table_open(dir);
    int64_t id = 7;
    cf_slice v = {(const uint8_t *)"v", 1};
    int32_t x = 3, q = 4;
    double g = 1.5;
    const void *vals[5] = {&id, &v, &x, &q, &g};
    CF_ASSERT_OK(cf_table_insert(t, vals, 2, &err), &err);
    CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    assert_true(cf_schema_equal(cf_table_schema(t), s));
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    t = table_open(dir);
    const cf_schema *back = cf_table_schema(t);
    assert_true(cf_schema_equal(back, s));
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(cf_schema_column_at(back, i)->name, c[i].name);
    cf_table_free(t);
    cf_schema_free(s);
    CF_ASSERT_RM_RF(dir);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names__kudu_rule),
        cmocka_unit_test(test_names__text_roundtrip),
        cmocka_unit_test(test_names__name_calls),
        cmocka_unit_test(test_names__manifest),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

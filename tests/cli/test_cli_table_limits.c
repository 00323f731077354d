/* `cfile table` has no limit of its own (issue 14, item 8): a table of 600
 * columns and one of 100 key columns go through every command; compound keys
 * whose STRING columns hold commas and quotes are addressed by get, update and
 * delete with --row's quoting. */
/* cf-needs: tables */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/rowset.h>

#include "cli.h"
#include "support_cli.h"
#include "test_common.h"

/* A growing string (open_memstream). */
typedef struct sb {
    char *s;
    size_t n;
    FILE *f;
} sb;

static void sb_init(sb *b)
{
    b->s = NULL;
    b->n = 0;
    b->f = open_memstream(&b->s, &b->n);
    assert_non_null(b->f);
}

static void sb_printf(sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(b->f, fmt, ap);
    va_end(ap);
}

/* The text so far (valid until the next sb_printf or sb_free). */
static const char *sb_str(sb *b)
{
    fflush(b->f);
    return b->s;
}

static void sb_free(sb *b)
{
    fclose(b->f);
    free(b->s);
}

static void parse_json(cf_json_doc *doc, const char *text)
{
    char msg[200];
    if (cf_json_parse(doc, text, strlen(text), msg, sizeof(msg)) != 0)
        fail_msg("not JSON (%s): %.300s", msg, text);
}

/* The member `name` of a JSON object row, which must exist. */
static const cf_json *member(const cf_json *row, const char *name)
{
    const cf_json *v = cf_json_get(row, name);
    if (v == NULL)
        fail_msg("no member '%s'", name);
    return v;
}

/* ---- 600 columns ----------------------------------------------------------------------------- */

#define WIDE 600

/* c0 INT64 KEY, then STRING / INT32 / DOUBLE / INT64 columns in turn, all NULL-able. */
static const char *wide_type(size_t i)
{
    static const char *t[] = {"STRING", "INT32", "DOUBLE", "INT64"};
    return i == 0 ? "INT64" : t[i % 4];
}

/* The value row `row` has in column i (as --row and CSV write it). */
static void wide_value(sb *b, size_t row, size_t i)
{
    if (i == 0)
        sb_printf(b, "%zu", row);
    else if (i % 4 == 0)
        sb_printf(b, "s%zu_%zu", row, i);
    else if (i % 4 == 1)
        sb_printf(b, "%zu", row * 1000 + i);
    else if (i % 4 == 2)
        sb_printf(b, "%zu.5", i);
    else
        sb_printf(b, "%zu", row * 100000 + i);
}

/* Check a JSON row of the wide table: every column, in the order `order` (NULL:
 * schema order), holds row `row`'s value, or `upd`'s for the columns updated. */
static void check_wide_row(const cf_json *obj, size_t row, const size_t *order, bool updated)
{
    assert_int_equal(obj->kind, CF_JSON_OBJECT);
    assert_int_equal(obj->n, WIDE);
    for (size_t k = 0; k < WIDE; k++) {
        size_t i = order ? order[k] : k;
        char name[16];
        snprintf(name, sizeof(name), "c%zu", i);
        assert_string_equal(obj->members[k].key, name);
        const cf_json *v = &obj->members[k].value;
        sb want;
        sb_init(&want);
        if (updated && i % 4 == 1 && i > 0)
            sb_printf(&want, "%zu", 7 * i); /* update set every INT32 column to 7*i */
        else
            wide_value(&want, row, i);
        const char *w = sb_str(&want);
        if (v->kind == CF_JSON_STRING || v->kind == CF_JSON_NUMBER) {
            if (strcmp(v->str, w) != 0)
                fail_msg("row %zu column %s: got %s, want %s", row, name, v->str, w);
        } else {
            fail_msg("row %zu column %s: a %s", row, name, cf_json_kind_name(v->kind));
        }
        sb_free(&want);
    }
}

static void test_cli_table_limits__600_columns(void **state)
{
    (void)state;
    sb schema;
    sb_init(&schema);
    for (size_t i = 0; i < WIDE; i++)
        sb_printf(&schema, "%sc%zu %s%s", i ? ", " : "", i, wide_type(i), i ? " NULL" : " KEY");
    char *dir = cli_dir_path("wide"), *csv = cli_dir_path("wide.csv"),
         *dir2 = cli_dir_path("wide2");
    run r;
    cli_table_create(dir, sb_str(&schema));

    /* insert rows 1 and 2 with every column given */
    for (size_t row = 1; row <= 2; row++) {
        sb ins;
        sb_init(&ins);
        for (size_t i = 0; i < WIDE; i++) {
            sb_printf(&ins, "%sc%zu=", i ? "," : "", i);
            wide_value(&ins, row, i);
        }
        cli(&r, "table", "insert", dir, "--row", sb_str(&ins), NULL);
        cli_rc(&r, 0);
        sb_free(&ins);
    }
    cf_json_doc doc;
    cli(&r, "table", "get", dir, "--json", "2", NULL);
    EXPECT_RC(r, 0);
    parse_json(&doc, r.out);
    check_wide_row(&doc.root, 2, NULL, false);
    cf_json_doc_dispose(&doc);
    done(&r);

    /* update: every INT32 column (150 assignments) */
    sb set;
    sb_init(&set);
    for (size_t i = 1; i < WIDE; i += 4)
        sb_printf(&set, "%sc%zu=%zu", i > 1 ? "," : "", i, 7 * i);
    cli(&r, "table", "update", dir, "--key", "1", "--set", sb_str(&set), NULL);
    cli_rc(&r, 0);
    sb_free(&set);

    /* scan --columns: all 600, in reverse order */
    size_t order[WIDE];
    sb cols;
    sb_init(&cols);
    for (size_t k = 0; k < WIDE; k++) {
        order[k] = WIDE - 1 - k;
        sb_printf(&cols, "%sc%zu", k ? "," : "", order[k]);
    }
    /* --where: 300 conditions, every one true for row 1 only */
    sb where;
    sb_init(&where);
    for (size_t i = 1; i < WIDE; i += 2) {
        sb_printf(&where, "%sc%zu = ", i > 1 ? " AND " : "", i);
        if (i % 4 == 1)
            sb_printf(&where, "%zu", 7 * i);
        else
            wide_value(&where, 1, i);
    }
    cli(&r, "table", "scan", dir, "--json", "--columns", sb_str(&cols), "--where", sb_str(&where),
        NULL);
    EXPECT_RC(r, 0);
    assert_int_equal(strchr(r.out, '\n') - r.out + 1, (long)r.out_len); /* one row */
    parse_json(&doc, r.out);
    check_wide_row(&doc.root, 1, order, true);
    cf_json_doc_dispose(&doc);
    done(&r);

    /* info: the whole schema, in text and JSON */
    cf_schema *s;
    cf_error e;
    CF_ASSERT_OK(cf_schema_parse(&s, sb_str(&schema), &e), &e);
    size_t flen = cf_schema_format(s, NULL, 0);
    char *full = malloc(flen + 1);
    cf_schema_format(s, full, flen + 1);
    assert_true(flen > 8192); /* longer than the buffers the commands had */
    cli(&r, "table", "info", dir, NULL);
    EXPECT_RC(r, 0);
    char *line = strstr(r.out, "schema:      ");
    assert_non_null(line);
    line += strlen("schema:      ");
    assert_int_equal(strncmp(line, full, flen), 0);
    assert_int_equal(line[flen], '\n');
    done(&r);
    cli(&r, "table", "info", dir, "--json", NULL);
    EXPECT_RC(r, 0);
    parse_json(&doc, r.out);
    assert_string_equal(member(&doc.root, "schema")->str, full);
    assert_int_equal(member(&doc.root, "columns")->n, WIDE);
    cf_json_doc_dispose(&doc);
    done(&r);

    /* delete, compact, then the table holds row 2 alone */
    cli(&r, "table", "delete", dir, "--key", "1", NULL);
    cli_rc(&r, 0);
    cli(&r, "table", "compact", dir, NULL);
    cli_rc(&r, 0);
    cli(&r, "table", "scan", dir, "--json", NULL);
    EXPECT_RC(r, 0);
    parse_json(&doc, r.out);
    check_wide_row(&doc.root, 2, NULL, false);
    cf_json_doc_dispose(&doc);
    done(&r);

    /* import: 3 rows of 600 fields into a new table, and into the table's own
     * schema (its text is longer than 8 KiB) */
    sb data;
    sb_init(&data);
    for (size_t i = 0; i < WIDE; i++)
        sb_printf(&data, "%sc%zu", i ? "," : "", i);
    sb_printf(&data, "\n");
    for (size_t row = 10; row < 13; row++) {
        for (size_t i = 0; i < WIDE; i++) {
            if (i)
                sb_printf(&data, ",");
            wide_value(&data, row, i);
        }
        sb_printf(&data, "\n");
    }
    write_str(csv, sb_str(&data));
    sb_free(&data);
    cli(&r, "table", "import", dir2, "--schema", sb_str(&schema), csv, NULL);
    cli_rc(&r, 0);
    cli(&r, "table", "import", dir, csv, NULL);
    cli_rc(&r, 0);
    for (int t = 0; t < 2; t++) {
        cli(&r, "table", "get", t ? dir : dir2, "--json", "11", NULL);
        EXPECT_RC(r, 0);
        parse_json(&doc, r.out);
        check_wide_row(&doc.root, 11, NULL, false);
        cf_json_doc_dispose(&doc);
        done(&r);
    }
    /* --schema given again for a table with rows: the long texts compare equal */
    cli(&r, "table", "import", dir, "--schema", sb_str(&schema), csv, NULL);
    cli_err(&r, CF_EXIT_FAIL, "duplicate key");

    free(full);
    cf_schema_free(s);
    sb_free(&where);
    sb_free(&cols);
    sb_free(&schema);
}

/* ---- 100 key columns ------------------------------------------------------------------------- */

#define NKEYS 100

/* Key column i of row `row`: k0 INT64, then STRING and INT32 in turn. */
static void key_value(sb *b, size_t row, size_t i)
{
    if (i == 0)
        sb_printf(b, "%zu", row);
    else if (i % 2)
        sb_printf(b, "s%zu", i + row);
    else
        sb_printf(b, "%zu", i * 10);
}

static void key_text(sb *b, size_t row)
{
    for (size_t i = 0; i < NKEYS; i++) {
        if (i)
            sb_printf(b, ",");
        key_value(b, row, i);
    }
}

static void test_cli_table_limits__100_key_columns(void **state)
{
    (void)state;
    sb schema;
    sb_init(&schema);
    for (size_t i = 0; i < NKEYS; i++)
        sb_printf(&schema, "k%zu %s KEY, ", i, i == 0 ? "INT64" : i % 2 ? "STRING" : "INT32");
    sb_printf(&schema, "v STRING NULL");
    char *dir = cli_dir_path("keys"), *csv = cli_dir_path("keys.csv");

    /* import in key order into an empty table: one pass by the rowset writer,
     * every row at the writer's timestamp 1 */
    sb data;
    sb_init(&data);
    for (size_t i = 0; i < NKEYS; i++)
        sb_printf(&data, "k%zu,", i);
    sb_printf(&data, "v\n");
    for (size_t row = 1; row <= 3; row++) {
        key_text(&data, row);
        sb_printf(&data, ",v%zu\n", row);
    }
    write_str(csv, sb_str(&data));
    sb_free(&data);
    run r;
    cli(&r, "table", "import", dir, "--schema", sb_str(&schema), csv, NULL);
    cli_rc(&r, 0);
    cli_prints("{\"k0\":1,\"v\":\"v1\"}\n{\"k0\":2,\"v\":\"v2\"}\n"
               "{\"k0\":3,\"v\":\"v3\"}\n",
               "table", "scan", dir, "--columns", "k0,v", "--json", "--as-of", "1", NULL);

    /* insert row 4 */
    sb row;
    sb_init(&row);
    for (size_t i = 0; i < NKEYS; i++) {
        sb_printf(&row, "k%zu=", i);
        key_value(&row, 4, i);
        sb_printf(&row, ",");
    }
    sb_printf(&row, "v=v4");
    cli(&r, "table", "insert", dir, "--row", sb_str(&row), NULL);
    cli_rc(&r, 0);
    sb_free(&row);

    /* get 2 and 4, update 3, delete 1 */
    sb k2, k4, k3, k1;
    sb_init(&k1);
    sb_init(&k2);
    sb_init(&k3);
    sb_init(&k4);
    key_text(&k1, 1);
    key_text(&k2, 2);
    key_text(&k3, 3);
    key_text(&k4, 4);
    char *k2s = strdup(sb_str(&k2)), *k4s = strdup(sb_str(&k4));
    cli(&r, "table", "get", dir, "--json", k2s, k4s, NULL);
    EXPECT_RC(r, 0);
    char *second = strchr(r.out, '\n') + 1;
    cf_json_doc doc;
    second[-1] = '\0';
    parse_json(&doc, r.out);
    assert_int_equal(doc.root.n, NKEYS + 1);
    assert_string_equal(member(&doc.root, "k99")->str, "s101");
    assert_string_equal(member(&doc.root, "v")->str, "v2");
    cf_json_doc_dispose(&doc);
    parse_json(&doc, second);
    assert_string_equal(member(&doc.root, "k99")->str, "s103");
    assert_string_equal(member(&doc.root, "v")->str, "v4");
    cf_json_doc_dispose(&doc);
    done(&r);
    cli(&r, "table", "update", dir, "--key", sb_str(&k3), "--set", "v=three", NULL);
    cli_rc(&r, 0);
    cli(&r, "table", "delete", dir, "--key", sb_str(&k1), NULL);
    cli_rc(&r, 0);

    /* --where on every key column: row 3 */
    sb where;
    sb_init(&where);
    for (size_t i = 0; i < NKEYS; i++) {
        sb_printf(&where, "%sk%zu = ", i ? " AND " : "", i);
        key_value(&where, 3, i);
    }
    cli_prints("{\"k0\":3,\"v\":\"three\"}\n", "table", "scan", dir, "--columns", "k0,v", "--json",
               "--where", sb_str(&where), NULL);
    cli(&r, "table", "compact", dir, NULL);
    cli_rc(&r, 0);
    cli_prints("{\"k0\":2,\"k99\":\"s101\",\"v\":\"v2\"}\n"
               "{\"k0\":3,\"k99\":\"s102\",\"v\":\"three\"}\n"
               "{\"k0\":4,\"k99\":\"s103\",\"v\":\"v4\"}\n",
               "table", "scan", dir, "--columns", "k0,k99,v", "--json", NULL);
    cli(&r, "table", "info", dir, "--json", NULL);
    EXPECT_RC(r, 0);
    parse_json(&doc, r.out);
    assert_int_equal(member(&doc.root, "columns")->n, NKEYS + 1);
    assert_true(member(&member(&doc.root, "columns")->items[NKEYS - 1], "key")->kind ==
                CF_JSON_TRUE);
    cf_json_doc_dispose(&doc);
    done(&r);

    /* too few values: a usage error that says how many */
    cli(&r, "table", "get", dir, "1,s2,20", NULL);
    cli_err(&r, CF_EXIT_USAGE, "needs 100 comma-separated values");

    free(k2s);
    free(k4s);
    sb_free(&k1);
    sb_free(&k2);
    sb_free(&k3);
    sb_free(&k4);
    sb_free(&where);
    sb_free(&schema);
}

/* ---- keys with commas and quotes ---------------------------------------------------------------
 */

static void test_cli_table_limits__quoted_keys(void **state)
{
    (void)state;
    char *dir = cli_dir_path("q");
    run r;
    cli(&r, "table", "create", dir, "--schema",
        "a INT64 KEY, b STRING KEY, c INT32 KEY, v STRING NULL", NULL);
    cli_rc(&r, 0);
    /* b = x,y "q" z' (a comma, double quotes, a single quote) */
    cli(&r, "table", "insert", dir, "--row", "a=7,b=\"x,y \\\"q\\\" z'\",c=3,v=first", NULL);
    cli_rc(&r, 0);
    /* b = p,q\ in single quotes (a backslash before other text stays) */
    cli(&r, "table", "insert", dir, "--row", "a=7,b='p,q\\ \\'s',c=4,v='1,2'", NULL);
    cli_rc(&r, 0);
    cli_prints("{\"a\":7,\"b\":\"p,q\\\\ 's\",\"c\":4,\"v\":\"1,2\"}\n"
               "{\"a\":7,\"b\":\"x,y \\\"q\\\" z'\",\"c\":3,\"v\":\"first\"}\n",
               "table", "scan", dir, "--json", NULL);

    const char *k1 = "7,\"x,y \\\"q\\\" z'\",3", *k1s = "7,'x,y \"q\" z\\'',3";
    cli_prints("{\"a\":7,\"b\":\"x,y \\\"q\\\" z'\",\"c\":3,\"v\":\"first\"}\n", "table", "get",
               dir, "--json", (char *)k1, NULL);
    /* the same key in single quotes */
    cli_prints("{\"a\":7,\"b\":\"x,y \\\"q\\\" z'\",\"c\":3,\"v\":\"first\"}\n", "table", "get",
               dir, "--json", (char *)k1s, NULL);
    cli(&r, "table", "update", dir, "--key", k1, "--set", "v=\"a,b\"", NULL);
    cli_rc(&r, 0);
    cli_prints("{\"a\":7,\"b\":\"x,y \\\"q\\\" z'\",\"c\":3,\"v\":\"a,b\"}\n", "table", "get", dir,
               "--json", (char *)k1, NULL);
    /* --where takes the same quoting */
    cli_prints("{\"c\":3}\n", "table", "scan", dir, "--json", "--columns", "c", "--where",
               "b = 'x,y \"q\" z\\'' AND v = \"a,b\"", NULL);
    cli(&r, "table", "delete", dir, "--key", k1, NULL);
    cli_rc(&r, 0);
    cli(&r, "table", "get", dir, (char *)k1, NULL);
    cli_err(&r, CF_EXIT_FAIL, "not found");
    cli_prints("{\"a\":7,\"b\":\"p,q\\\\ 's\",\"c\":4,\"v\":\"1,2\"}\n", "table", "get", dir,
               "--json", "7,'p,q\\ \\'s',4", NULL);

    /* A last STRING key column takes commas unquoted, as before. */
    char *dir2 = cli_dir_path("q2");
    cli_table_create(dir2, "a INT64 KEY, b STRING KEY");
    cli(&r, "table", "insert", dir2, "--row", "a=1,b='x,y,z'", NULL);
    cli_rc(&r, 0);
    cli_prints("{\"a\":1,\"b\":\"x,y,z\"}\n", "table", "get", dir2, "--json", "1,x,y,z", NULL);
    cli_prints("{\"a\":1,\"b\":\"x,y,z\"}\n", "table", "get", dir2, "--json", "1,\"x,y,z\"", NULL);
}

/* The limits are the library's: past them, create says which (exit 2). */
static void test_cli_table_limits__stated_limits(void **state)
{
    (void)state;
    sb schema;
    sb_init(&schema);
    for (size_t i = 0; i <= CF_SCHEMA_MAX_COLUMNS; i++)
        sb_printf(&schema, "%sc%zu INT32 KEY", i ? ", " : "", i);
    run r;
    cli(&r, "table", "create", cli_dir_path("many"), "--schema", sb_str(&schema), NULL);
    cli_err(&r, CF_EXIT_USAGE, "more than 1024 columns");
    sb_free(&schema);
    char name[300]; /* Kudu's --max_identifier_length default */
    memset(name, 'n', 257);
    strcpy(name + 257, " INT64 KEY");
    cli(&r, "table", "create", cli_dir_path("long"), "--schema", name, NULL);
    cli_err(&r, CF_EXIT_USAGE, "longer than 256 bytes");
    strcpy(name + 256, " INT64 KEY");
    cli(&r, "table", "create", cli_dir_path("long"), "--schema", name, NULL);
    cli_rc(&r, 0);
    cli(&r, "table", "--help", NULL);
    cli_out_has(&r, 0, "a schema has 1..1024 columns, any number of them KEY", "at most 256 bytes",
                NULL);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        CLI_DIR_TEST(test_cli_table_limits__600_columns),
        CLI_DIR_TEST(test_cli_table_limits__100_key_columns),
        CLI_DIR_TEST(test_cli_table_limits__quoted_keys),
        CLI_DIR_TEST(test_cli_table_limits__stated_limits),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* The CLI over Parquet files. `cfile parquet bloom`: probes against a file our
 * writer made (values written: maybe present; others: absent), the JSON form,
 * and the exit codes (no filter 1, bad value or column 2, BOOLEAN 3). The
 * other commands over files of the corpus. */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cfile/cfile.h>
#include <cfile/parquet.h>

#include "cli.h"
#include "support_pqgen.h"

static char dir[] = "/tmp/cf_pqcli_XXXXXX";
static char file[256];

/* The streams write the caller's pointers directly: a local buffer pointer
 * copied out afterwards makes gcc 12 (-O3) see the caller's text as pointing
 * into a dead local (-Wdangling-pointer). */
static int run_cli(char **argv, int argc, char **out_text, char **err_text)
{
    size_t ol = 0, el = 0;
    *out_text = *err_text = NULL;
    FILE *out = open_memstream(out_text, &ol), *errf = open_memstream(err_text, &el);
    int rc = cf_cli_main(argc, argv, out, errf);
    fclose(out);
    fclose(errf);
    return rc;
}

/* Run cfile with `args` (NULL-terminated): it exits `rc`, its output holds
 * each of `out` and its errors each of `err` (NULL-terminated lists; NULL:
 * not checked). */
static void expect_cli(char **args, int rc, const char *const *out, const char *const *err)
{
    int argc = 0;
    while (args[argc])
        argc++;
    char *o, *e;
    assert_int_equal(run_cli(args, argc, &o, &e), rc);
    for (size_t i = 0; out && out[i]; i++)
        if (!strstr(o, out[i]))
            fail_msg("output lacks \"%s\": %s", out[i], o);
    for (size_t i = 0; err && err[i]; i++)
        if (!strstr(e, err[i]))
            fail_msg("errors lack \"%s\": %s", err[i], e);
    free(o);
    free(e);
}

/* id INT64 (bloom), name STRING (bloom), flag BOOL (bloom asked, none
 * written), plain INT32 (no bloom), d DOUBLE (bloom); 2 row groups of 100 rows:
 * id = row * 10, name = "n<row>", d = row / 2.0. */
static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    snprintf(file, sizeof file, "%s/b.parquet", dir);
    cf_parquet_write_column cols[] = {
        {.name = "id", .type = CF_TYPE_INT64, .bloom_filter = true},
        {.name = "name", .type = CF_TYPE_STRING, .bloom_filter = true},
        {.name = "flag", .type = CF_TYPE_BOOL, .bloom_filter = true},
        {.name = "plain", .type = CF_TYPE_INT32},
        {.name = "d", .type = CF_TYPE_DOUBLE, .bloom_filter = true},
    };
    cf_parquet_writer_options o;
    cf_parquet_writer_options_init(&o);
    o.row_group_rows = 100;
    int64_t id[200];
    cf_slice name[200];
    char nbuf[200][8];
    uint8_t flag[200];
    int32_t plain[200];
    double d[200];
    for (int i = 0; i < 200; i++) {
        id[i] = i * 10;
        int n = snprintf(nbuf[i], sizeof nbuf[i], "n%d", i);
        name[i].data = (const uint8_t *)nbuf[i];
        name[i].len = (size_t)n;
        flag[i] = i & 1;
        plain[i] = i;
        d[i] = i / 2.0;
    }
    cf_batch b[5];
    pqg_batches(b, 5, (const void *const[]){id, name, flag, plain, d});
    cf_error err = {0};
    cf_parquet_writer *w = NULL;
    if (cf_parquet_writer_create_file(&w, file, cols, 5, &o, &err) != CF_OK ||
        cf_parquet_writer_append(w, b, 200, &err) != CF_OK ||
        cf_parquet_writer_finish(w, &err) != CF_OK) {
        fprintf(stderr, "setup: %s\n", err.msg);
        cf_parquet_writer_free(w);
        return -1;
    }
    cf_parquet_writer_free(w);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(file);
    rmdir(dir);
    return 0;
}

static void test_bloom_cli(void **state)
{
    (void)state;
    /* 50 is in row group 0, 1500 in row group 1, 55 nowhere */
    expect_cli(
        (char *[]){"cfile", "parquet", "bloom", "--column", "id", file, "50", "1500", "55", NULL},
        0,
        (const char *const[]){"column id (INT64): bloom filters in 2 of 2 row groups\n",
                              "\n50: row group 0 maybe present, row group 1 absent\n",
                              "\n1500: row group 0 absent, row group 1 maybe present\n",
                              "\n55: row group 0 absent, row group 1 absent\n", NULL},
        NULL);

    expect_cli((char *[]){"cfile", "parquet", "bloom", "--json", file, "--column", "name", "n7",
                          "zz", NULL},
               0,
               (const char *const[]){
                   "\"values\":[{\"value\":\"n7\",\"present\":[true,false]},"
                   "{\"value\":\"zz\",\"present\":[false,false]}]}\n",
                   "\"column\":[\"name\"],\"type\":\"BYTE_ARRAY\",\"row_groups\":2", NULL},
               NULL);

    /* hex for BYTE_ARRAY: "n7" */
    expect_cli(
        (char *[]){"cfile", "parquet", "bloom", "--hex", "--column", "name", file, "6e37", NULL}, 0,
        (const char *const[]){"6e37: row group 0 maybe present, row group 1 absent\n", NULL}, NULL);

    /* negative values after -- (never written: absent) */
    expect_cli((char *[]){"cfile", "parquet", "bloom", "--column", "id", file, "--", "-10", NULL},
               0, (const char *const[]){"-10: row group 0 absent, row group 1 absent\n", NULL},
               NULL);

    /* no filter: exit 1 naming the column */
    expect_cli((char *[]){"cfile", "parquet", "bloom", "--column", "plain", file, "1", NULL}, 1,
               NULL, (const char *const[]){"column plain has no bloom filter", NULL});

    /* BOOLEAN: not defined by the format (exit 3) */
    expect_cli((char *[]){"cfile", "parquet", "bloom", "--column", "flag", file, "1", NULL}, 3,
               NULL, NULL);

    /* usage: a value that is not an INT64, an unknown column, no --column */
    expect_cli((char *[]){"cfile", "parquet", "bloom", "--column", "id", file, "x1", NULL}, 2, NULL,
               (const char *const[]){"'x1' is not a value", NULL});
    expect_cli((char *[]){"cfile", "parquet", "bloom", "--column", "nope", file, "1", NULL}, 2,
               NULL, NULL);
    expect_cli((char *[]){"cfile", "parquet", "bloom", file, "1", NULL}, 2, NULL, NULL);
}

/* Values are read by the CLI's one text-to-value parser (cf_cli_value_parse_text),
 * the forms --where and --set take: a DOUBLE's bits as 0x<hex>, NaN and Infinity;
 * text strtod/strtoll took and bent (a hex float, overflow to infinity or to
 * INT64_MAX, blanks) is a usage error naming the value. */
static void test_bloom_cli_value_forms(void **state)
{
    (void)state;
    char *o, *e;
    /* 2.0 (row 4, row group 0) by its bits; 0.5 in decimal; NaN and Infinity never written */
    expect_cli((char *[]){"cfile", "parquet", "bloom", "--column", "d", file, "0x4000000000000000",
                          "0.5", "NaN", "Infinity", "--", "-Infinity", NULL},
               0,
               (const char *const[]){
                   "\n0x4000000000000000: row group 0 maybe present, row group 1 absent\n",
                   "\n0.5: row group 0 maybe present, row group 1 absent\n",
                   "\nNaN: row group 0 absent, row group 1 absent\n",
                   "\nInfinity: row group 0 absent, row group 1 absent\n",
                   "\n-Infinity: row group 0 absent, row group 1 absent\n", NULL},
               NULL);

    static const struct {
        const char *col, *value;
    } bad[] = {
        {"d", "1e999"},                 /* was infinity */
        {"d", "inf"},                   /* Infinity is the form */
        {"d", "0x1p3"},                 /* a hex float */
        {"id", "99999999999999999999"}, /* was INT64_MAX */
        {"id", " 50"},                  /* blanks */
        {"id", "+50"},
        {"id", "0x32"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *a[] = {"cfile", "parquet",           "bloom", "--column", (char *)bad[i].col, file,
                     "--",    (char *)bad[i].value};
        int rc = run_cli(a, 8, &o, &e);
        if (rc != 2 || strstr(e, bad[i].value) == NULL || strstr(e, "is not a value") == NULL)
            fail_msg("%s %s: exit %d, stderr %s", bad[i].col, bad[i].value, rc, e);
        free(o);
        free(e);
    }
}

/* `cfile parquet schema|meta|pages` and `cfile info` over files of
 * shared/parquet/, the schema's JSON against the file's expected.json; damage
 * exits 1, usage 2. */
static void test_pq_cli__corpus_files(void **state)
{
    (void)state;
    char corpus[1024], path[2300], bad[2300], tmp[2300];
    snprintf(corpus, sizeof(corpus), "%s/parquet", cf_test_shared_dir());
    snprintf(path, sizeof(path), "%s/pt_nested_lists_snappy/pt_nested_lists_snappy.parquet",
             corpus);
    snprintf(bad, sizeof(bad), "%s/dk_missingmagicatend/dk_missingmagicatend.parquet", corpus);
    char *o, *e;

    char *a1[] = {"cfile", "parquet", "schema", "--json", path};
    assert_int_equal(run_cli(a1, 5, &o, &e), 0);
    cf_json_doc doc, exp;
    char msg[256];
    assert_int_equal(cf_json_parse(&doc, o, strlen(o), msg, sizeof(msg)), 0);
    snprintf(tmp, sizeof(tmp), "%s/pt_nested_lists_snappy/expected.json", corpus);
    assert_int_equal(cf_json_parse_file(&exp, tmp, msg, sizeof(msg)), 0);
    const cf_json *gs = cf_json_get(&doc.root, "schema"), *es = cf_json_get(&exp.root, "schema");
    assert_int_equal(gs->n, es->n);
    for (size_t i = 0; i < gs->n; i++) {
        static const char *const keys[] = {"name",         "type",           "repetition_type",
                                           "num_children", "converted_type", "logical"};
        for (size_t k = 0; k < 6; k++) {
            const cf_json *g = cf_json_get(&gs->items[i], keys[k]);
            const cf_json *x = cf_json_get(&es->items[i], keys[k]);
            assert_non_null(g);
            assert_int_equal(g->kind, x->kind);
            if (x->str)
                assert_string_equal(g->str, x->str);
        }
    }
    const cf_json *cols = cf_json_get(&doc.root, "columns");
    assert_int_equal(cols->n, 2);
    const cf_json *c0 = &cols->items[0];
    assert_string_equal(cf_json_get(c0, "max_definition_level")->str, "7");
    assert_string_equal(cf_json_get(c0, "max_repetition_level")->str, "3");
    cf_json_doc_dispose(&doc);
    cf_json_doc_dispose(&exp);
    free(o);
    free(e);

    char *a2[] = {"cfile", "parquet", "schema", path};
    assert_int_equal(run_cli(a2, 4, &o, &e), 0);
    assert_non_null(strstr(o, "message spark_schema {"));
    assert_non_null(strstr(o, "  optional group a (LIST) {\n    repeated group list {"));
    assert_non_null(strstr(o, "optional binary element (STRING);"));
    assert_non_null(strstr(o, "D:7 R:3"));
    free(o);
    free(e);

    char *a3[] = {"cfile", "parquet", "meta", "--json", path};
    assert_int_equal(run_cli(a3, 5, &o, &e), 0);
    assert_int_equal(cf_json_parse(&doc, o, strlen(o), msg, sizeof(msg)), 0);
    assert_string_equal(cf_json_get(&doc.root, "num_rows")->str, "3");
    const cf_json *rgs = cf_json_get(&doc.root, "row_groups");
    assert_int_equal(rgs->n, 1);
    assert_int_equal(cf_json_get(&rgs->items[0], "columns")->n, 2);
    cf_json_doc_dispose(&doc);
    free(o);
    free(e);

    expect_cli((char *[]){"cfile", "parquet", "meta", path, NULL}, 0,
               (const char *const[]){"row groups:      1", NULL}, NULL);

    /* Damage: exit 1 and a message naming what and where. */
    expect_cli((char *[]){"cfile", "parquet", "meta", bad, NULL}, 1, NULL,
               (const char *const[]){"no \"PAR1\" magic at the end (offset 34", NULL});

    /* Usage errors. */
    expect_cli((char *[]){"cfile", "parquet", "frobnicate", path, NULL}, 2, NULL, NULL);
    expect_cli((char *[]){"cfile", "parquet", "meta", NULL}, 2, NULL, NULL);

    char *ap[] = {"cfile", "parquet", "pages", "--json", path};
    assert_int_equal(run_cli(ap, 5, &o, &e), 0);
    assert_int_equal(cf_json_parse(&doc, o, strlen(o), msg, sizeof(msg)), 0);
    assert_string_equal(cf_json_get(&doc.root, "num_pages")->str,
                        "4"); /* dictionary + data, twice */
    cf_json_doc_dispose(&doc);
    free(o);
    free(e);
    snprintf(tmp, sizeof(tmp),
             "%s/pt_datapage_v1-corrupt-checksum/"
             "pt_datapage_v1-corrupt-checksum.parquet",
             corpus);
    char *aq[] = {"cfile", "parquet", "pages", "--json", tmp};
    assert_int_equal(run_cli(aq, 5, &o, &e), 1);
    assert_string_equal(o, ""); /* no half document */
    assert_non_null(strstr(e, "row group 0 column 0 page 0 at offset 4: page CRC-32 mismatch"));
    free(o);
    free(e);

    /* cfile info recognizes Parquet by its magic. */
    expect_cli((char *[]){"cfile", "info", path, NULL}, 0,
               (const char *const[]){"Apache Parquet", "rows:        3", NULL}, NULL);
    /* info --json: "format", then the summary `parquet meta --json` starts
     * with, the same keys in the same order (one writer for both). */
    char *a9[] = {"cfile", "info", "--json", path};
    assert_int_equal(run_cli(a9, 4, &o, &e), 0);
    free(e);
    char *mo;
    char *a10[] = {"cfile", "parquet", "meta", "--json", path};
    assert_int_equal(run_cli(a10, 5, &mo, &e), 0);
    free(e);
    static const char head[] = "{\"format\":\"parquet\",";
    assert_true(strncmp(o, head, sizeof head - 1) == 0);
    const char *summary = o + sizeof head - 1;
    const char *kv = strstr(mo, ",\"key_value_metadata\"");
    assert_non_null(kv);
    size_t n = (size_t)(kv - (mo + 1));
    assert_true(strncmp(summary, "\"file_size\":", 12) == 0);
    assert_true(strncmp(summary, mo + 1, n) == 0 && strcmp(summary + n, "}\n") == 0);
    assert_non_null(strstr(summary, "\"footer_num_rows\":3,"));
    free(mo);
    free(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bloom_cli),
        cmocka_unit_test(test_bloom_cli_value_forms),
        cmocka_unit_test(test_pq_cli__corpus_files),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

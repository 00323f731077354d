/* `cfile parquet bloom`: probes through the CLI against a file our writer
 * made (values written: maybe present; others: absent), the JSON form, and
 * the exit codes (no filter 1, bad value or column 2, BOOLEAN 3). */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cfile/cfile.h>
#include <cfile/parquet.h>

#include "cli.h"

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
    memset(b, 0, sizeof b);
    b[0].values = id;
    b[1].values = name;
    b[2].values = flag;
    b[3].values = plain;
    b[4].values = d;
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
    char *o, *e;
    /* 50 is in row group 0, 1500 in row group 1, 55 nowhere */
    char *a1[] = {"cfile", "parquet", "bloom", "--column", "id", file, "50", "1500", "55"};
    assert_int_equal(run_cli(a1, 9, &o, &e), 0);
    assert_non_null(strstr(o, "column id (INT64): bloom filters in 2 of 2 row groups\n"));
    assert_non_null(strstr(o, "\n50: row group 0 maybe present, row group 1 absent\n"));
    assert_non_null(strstr(o, "\n1500: row group 0 absent, row group 1 maybe present\n"));
    assert_non_null(strstr(o, "\n55: row group 0 absent, row group 1 absent\n"));
    free(o);
    free(e);

    char *a2[] = {"cfile", "parquet", "bloom", "--json", file, "--column", "name", "n7", "zz"};
    assert_int_equal(run_cli(a2, 9, &o, &e), 0);
    assert_non_null(strstr(o, "\"values\":[{\"value\":\"n7\",\"present\":[true,false]},"
                              "{\"value\":\"zz\",\"present\":[false,false]}]}\n"));
    assert_non_null(strstr(o, "\"column\":[\"name\"],\"type\":\"BYTE_ARRAY\",\"row_groups\":2"));
    free(o);
    free(e);

    /* hex for BYTE_ARRAY: "n7" */
    char *a3[] = {"cfile", "parquet", "bloom", "--hex", "--column", "name", file, "6e37"};
    assert_int_equal(run_cli(a3, 8, &o, &e), 0);
    assert_non_null(strstr(o, "6e37: row group 0 maybe present, row group 1 absent\n"));
    free(o);
    free(e);

    /* negative values after -- (never written: absent) */
    char *a4[] = {"cfile", "parquet", "bloom", "--column", "id", file, "--", "-10"};
    assert_int_equal(run_cli(a4, 8, &o, &e), 0);
    assert_non_null(strstr(o, "-10: row group 0 absent, row group 1 absent\n"));
    free(o);
    free(e);

    /* no filter: exit 1 naming the column */
    char *a5[] = {"cfile", "parquet", "bloom", "--column", "plain", file, "1"};
    assert_int_equal(run_cli(a5, 7, &o, &e), 1);
    assert_non_null(strstr(e, "column plain has no bloom filter"));
    free(o);
    free(e);

    /* BOOLEAN: not defined by the format (exit 3) */
    char *a6[] = {"cfile", "parquet", "bloom", "--column", "flag", file, "1"};
    assert_int_equal(run_cli(a6, 7, &o, &e), 3);
    free(o);
    free(e);

    /* usage: a value that is not an INT64, an unknown column, no --column */
    char *a7[] = {"cfile", "parquet", "bloom", "--column", "id", file, "x1"};
    assert_int_equal(run_cli(a7, 7, &o, &e), 2);
    assert_non_null(strstr(e, "'x1' is not a value"));
    free(o);
    free(e);
    char *a8[] = {"cfile", "parquet", "bloom", "--column", "nope", file, "1"};
    assert_int_equal(run_cli(a8, 7, &o, &e), 2);
    free(o);
    free(e);
    char *a9[] = {"cfile", "parquet", "bloom", file, "1"};
    assert_int_equal(run_cli(a9, 5, &o, &e), 2);
    free(o);
    free(e);
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
    char *a1[] = {"cfile", "parquet",  "bloom", "--column", "d", file, "0x4000000000000000", "0.5",
                  "NaN",   "Infinity", "--",    "-Infinity"};
    assert_int_equal(run_cli(a1, 12, &o, &e), 0);
    assert_non_null(
        strstr(o, "\n0x4000000000000000: row group 0 maybe present, row group 1 absent\n"));
    assert_non_null(strstr(o, "\n0.5: row group 0 maybe present, row group 1 absent\n"));
    assert_non_null(strstr(o, "\nNaN: row group 0 absent, row group 1 absent\n"));
    assert_non_null(strstr(o, "\nInfinity: row group 0 absent, row group 1 absent\n"));
    assert_non_null(strstr(o, "\n-Infinity: row group 0 absent, row group 1 absent\n"));
    free(o);
    free(e);

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bloom_cli),
        cmocka_unit_test(test_bloom_cli_value_forms),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

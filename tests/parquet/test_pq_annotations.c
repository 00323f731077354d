/* Schema annotations the reader must not guess at (issue 30): an empty name
 * is read as one (DuckDB's UNION tag); a converted_type outside parquet.thrift
 * is damage where it decides the element's meaning (a LIST would read as a
 * struct); an annotation that does not fit the physical type is refused, as
 * DuckDB refuses it. Schemas built element by element. */
/* cf-needs: parquet */
#include "test_common.h"

#include <string.h>

#include <cfile/parquet.h>

#include "parquet/internal.h"
#include "support_pqfile.h"

static void expect_ok(const cf_parquet_schema_element *e, uint32_t n)
{
    cf_pq_schema s;
    cf_error err;
    CF_ASSERT_OK(cf_pq_schema_build(&s, e, n, &err), &err);
    cf_pq_schema_dispose(&s);
}

static void expect_refused(const cf_parquet_schema_element *e, uint32_t n, const char *msg)
{
    cf_pq_schema s;
    cf_error err;
    CF_ASSERT_STATUS(cf_pq_schema_build(&s, e, n, &err), CF_ECORRUPT, &err);
    if (!strstr(err.msg, msg))
        fail_msg("message '%s' lacks '%s'", err.msg, msg);
}

static void test_pq_annotations__empty_name(void **state)
{
    (void)state;
    /* DuckDB's UNION(num INT): optional group u { optional int32 "" (UINT_8);
     * optional int32 num }. */
    cf_parquet_schema_element e[] = {
        pqt_element("duckdb_schema", -1, -1, 1, -1),
        pqt_element("u", -1, CF_PARQUET_OPTIONAL, 2, -1),
        pqt_element("", CF_PARQUET_INT32, CF_PARQUET_OPTIONAL, -1, CF_PARQUET_CT_UINT_8),
        pqt_element("num", CF_PARQUET_INT32, CF_PARQUET_OPTIONAL, -1, -1),
    };
    cf_pq_schema s;
    cf_error err;
    CF_ASSERT_OK(cf_pq_schema_build(&s, e, 4, &err), &err);
    assert_int_equal(s.column_count, 2);
    assert_int_equal(s.columns[0].path_len, 2);
    assert_int_equal(s.columns[0].path[1].len, 0);
    assert_int_equal(s.columns[0].max_def, 2);
    cf_pq_schema_dispose(&s);
}

static void test_pq_annotations__unknown_converted_type(void **state)
{
    (void)state;
    /* optional group a (LIST) { repeated group list { optional int32 element } } */
    cf_parquet_schema_element e[] = {
        pqt_element("schema", -1, -1, 1, -1),
        pqt_element("a", -1, CF_PARQUET_OPTIONAL, 1, CF_PARQUET_CT_LIST),
        pqt_element("list", -1, CF_PARQUET_REPEATED, 1, -1),
        pqt_element("element", CF_PARQUET_INT32, CF_PARQUET_OPTIONAL, -1, -1),
    };
    expect_ok(e, 4);
    e[1].converted_type = 99;
    expect_refused(e, 4, "schema element 1 (\"a\"): unknown converted_type 99");
    e[1].converted_type = -1;
    expect_refused(e, 4, "unknown converted_type -1");
    /* A logical type we know decides instead. */
    e[1].logical.kind = CF_PARQUET_LT_LIST;
    expect_ok(e, 4);
    e[1].logical.kind = CF_PARQUET_LT_UNSUPPORTED;
    expect_refused(e, 4, "unknown converted_type -1");
    e[1] = pqt_element("a", -1, CF_PARQUET_OPTIONAL, 1, CF_PARQUET_CT_LIST);
    /* On a leaf too; the legacy NULL (24) is known. */
    e[3].has_converted_type = true;
    e[3].converted_type = 22;
    expect_refused(e, 4, "schema element 3 (\"element\"): unknown converted_type 22");
    e[3].converted_type = 24;
    expect_ok(e, 4);
}

static void test_pq_annotations__misfits(void **state)
{
    (void)state;
    static const struct {
        int type, length, ct;
        cf_parquet_logical lt; /* used when kind != 0 */
        const char *msg;       /* NULL: fits */
    } cases[] = {
        {CF_PARQUET_BYTE_ARRAY,
         0,
         CF_PARQUET_CT_INT_8,
         {0},
         "INT(8,true) annotation on physical "
         "type BYTE_ARRAY"},
        {CF_PARQUET_BYTE_ARRAY,
         0,
         -1,
         {.kind = CF_PARQUET_LT_INTEGER, .bit_width = 32, .is_signed = true},
         "INT(32,true) annotation"},
        {CF_PARQUET_INT32,
         0,
         CF_PARQUET_CT_INT_64,
         {0},
         "INT(64,true) annotation on physical "
         "type INT32"},
        {CF_PARQUET_INT32, 0, CF_PARQUET_CT_UINT_64, {0}, "INT(64,false)"},
        {CF_PARQUET_INT64,
         0,
         CF_PARQUET_CT_INT_32,
         {0},
         "INT(32,true) annotation on physical "
         "type INT64"},
        {CF_PARQUET_INT32,
         0,
         -1,
         {.kind = CF_PARQUET_LT_INTEGER, .bit_width = 12},
         "INT(12,false)"},
        {CF_PARQUET_INT32, 0, CF_PARQUET_CT_UTF8, {0}, "STRING annotation on physical type INT32"},
        {CF_PARQUET_DOUBLE, 0, CF_PARQUET_CT_JSON, {0}, "JSON annotation"},
        {CF_PARQUET_INT64, 0, CF_PARQUET_CT_DATE, {0}, "DATE annotation on physical type INT64"},
        {CF_PARQUET_INT32, 0, CF_PARQUET_CT_TIME_MICROS, {0}, "TIME(MICROS,true)"},
        {CF_PARQUET_INT64, 0, CF_PARQUET_CT_TIME_MILLIS, {0}, "TIME(MILLIS,true)"},
        {CF_PARQUET_INT32, 0, CF_PARQUET_CT_TIMESTAMP_MILLIS, {0}, "TIMESTAMP(MILLIS,true)"},
        {CF_PARQUET_BOOLEAN, 0, CF_PARQUET_CT_DECIMAL, {0}, "DECIMAL(0,0) annotation"},
        {CF_PARQUET_FIXED_LEN_BYTE_ARRAY,
         8,
         -1,
         {.kind = CF_PARQUET_LT_UUID},
         "UUID annotation on physical type FIXED_LEN_BYTE_ARRAY(8)"},
        {CF_PARQUET_FIXED_LEN_BYTE_ARRAY, 4, -1, {.kind = CF_PARQUET_LT_FLOAT16}, "FLOAT16"},
        {CF_PARQUET_INT32, 0, CF_PARQUET_CT_LIST, {0}, "LIST annotation on physical type INT32"},
        /* Fits. */
        {CF_PARQUET_INT32, 0, CF_PARQUET_CT_INT_8, {0}, NULL},
        {CF_PARQUET_INT32, 0, CF_PARQUET_CT_UINT_32, {0}, NULL},
        {CF_PARQUET_INT64, 0, CF_PARQUET_CT_INT_64, {0}, NULL},
        {CF_PARQUET_FIXED_LEN_BYTE_ARRAY, 5, CF_PARQUET_CT_UTF8, {0}, NULL},
        {CF_PARQUET_FIXED_LEN_BYTE_ARRAY, 9, CF_PARQUET_CT_DECIMAL, {0}, NULL},
        {CF_PARQUET_INT64, 0, CF_PARQUET_CT_DECIMAL, {0}, NULL},
        {CF_PARQUET_INT32, 0, CF_PARQUET_CT_DATE, {0}, NULL},
        {CF_PARQUET_INT64, 0, CF_PARQUET_CT_TIMESTAMP_MICROS, {0}, NULL},
        {CF_PARQUET_INT64, 0, -1, {.kind = CF_PARQUET_LT_TIME, .unit = CF_PARQUET_NANOS}, NULL},
        {CF_PARQUET_FIXED_LEN_BYTE_ARRAY, 16, -1, {.kind = CF_PARQUET_LT_UUID}, NULL},
        {CF_PARQUET_INT96, 0, -1, {0}, NULL},
        {CF_PARQUET_BOOLEAN, 0, -1, {.kind = CF_PARQUET_LT_UNKNOWN}, NULL},
        /* A logical type supersedes the converted one. */
        {CF_PARQUET_BYTE_ARRAY, 0, CF_PARQUET_CT_INT_8, {.kind = CF_PARQUET_LT_STRING}, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cf_parquet_schema_element e[] = {
            pqt_element("schema", -1, -1, 1, -1),
            pqt_element("x", cases[i].type, CF_PARQUET_OPTIONAL, -1, cases[i].ct),
        };
        if (cases[i].length) {
            e[1].has_type_length = true;
            e[1].type_length = cases[i].length;
        }
        e[1].logical = cases[i].lt;
        if (cases[i].msg) {
            expect_refused(e, 2, cases[i].msg);
        } else {
            cf_pq_schema s;
            cf_error err;
            if (cf_pq_schema_build(&s, e, 2, &err) != CF_OK)
                fail_msg("case %zu refused: %s", i, err.msg);
            cf_pq_schema_dispose(&s);
        }
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pq_annotations__empty_name),
        cmocka_unit_test(test_pq_annotations__unknown_converted_type),
        cmocka_unit_test(test_pq_annotations__misfits),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

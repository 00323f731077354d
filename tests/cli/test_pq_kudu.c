/* tools/cfile/pq_kudu.c: Parquet values into Kudu's memory forms, on
 * hand-built arrays for what real files rarely hold: every kind of half float,
 * decimals wider than 16 bytes, values at the edges of their Kudu type, INT96
 * and timestamps that convert exactly or are refused naming row and column. */
/* cf-needs: tables parquet */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pq_kudu.h"
#include "test_common.h"

typedef struct fixture {
    cf_parquet_schema_element e;
    cf_parquet_node node;
    cf_parquet_array a;
    cf_cli c;
    char *err;
    size_t err_len;
} fixture;

/* One REQUIRED (or OPTIONAL) primitive top-level column named "x". */
static void setup_col(fixture *f, int32_t ptype, int32_t type_len, cf_parquet_logical lt,
                      bool optional)
{
    memset(f, 0, sizeof(*f));
    f->e.type = ptype;
    f->e.type_length = type_len;
    f->node.element = &f->e;
    f->node.repetition = optional ? CF_PARQUET_OPTIONAL : CF_PARQUET_REQUIRED;
    f->node.logical = lt;
    f->node.column = 0;
    f->a.kind = CF_PARQUET_ARRAY_PRIMITIVE;
    f->a.name = (cf_slice){(const uint8_t *)"x", 1};
    f->a.node = &f->node;
    f->a.leaf = &f->node;
    f->c.out = stdout;
    f->c.err = open_memstream(&f->err, &f->err_len);
    f->c.cmd = "convert";
}

static void done_col(fixture *f)
{
    fclose(f->c.err), free(f->err);
}

static cf_parquet_logical lt_of(uint32_t kind)
{
    return (cf_parquet_logical){.kind = kind};
}

/* Map and convert n values of value_size bytes; the exit code. */
static int convert(fixture *f, cf_pq_kcol *k, const void *values, size_t value_size, size_t n)
{
    f->a.values = values;
    f->a.value_size = value_size;
    f->a.length = n;
    int rc = cf_pq_kudu_map(&f->c, "t.parquet", &f->a, 0, k);
    if (rc == 0)
        rc = cf_pq_kudu_convert(&f->c, "t.parquet", k, &f->a, 100);
    fflush(f->c.err);
    return rc;
}

static void test_pq_kudu__float16(void **state)
{
    (void)state;
    static const struct {
        uint16_t h;
        float want;
    } cases[] = {
        {0x3c00, 1.0f},
        {0xc000, -2.0f},
        {0x7bff, 65504.0f},
        {0x0001, 5.9604644775390625e-08f},
        {0x03ff, 6.0975551605224609e-05f},
        {0x0400, 6.103515625e-05f},
        {0x3555, 0.333251953125f},
        {0x8000, -0.0f},
        {0x0000, 0.0f},
        {0x7c00, INFINITY},
        {0xfc00, -INFINITY},
    };
    size_t n = sizeof(cases) / sizeof(cases[0]);
    uint8_t v[2 * 16];
    for (size_t i = 0; i < n; i++)
        v[2 * i] = (uint8_t)cases[i].h, v[2 * i + 1] = (uint8_t)(cases[i].h >> 8);
    v[2 * n] = 0x00, v[2 * n + 1] = 0x7e; /* NaN */
    fixture f;
    setup_col(&f, CF_PARQUET_FIXED_LEN_BYTE_ARRAY, 2, lt_of(CF_PARQUET_LT_FLOAT16), false);
    cf_pq_kcol k;
    assert_int_equal(convert(&f, &k, v, 2, n + 1), 0);
    assert_int_equal(k.col.type, CF_TYPE_FLOAT);
    for (size_t i = 0; i < n; i++) {
        float got;
        memcpy(&got, k.vals + 4 * i, 4);
        if (got != cases[i].want || signbit(got) != signbit(cases[i].want))
            fail_msg("half %04x: %.17g, want %.17g", cases[i].h, got, cases[i].want);
    }
    float nan;
    memcpy(&nan, k.vals + 4 * n, 4);
    assert_true(isnan(nan));
    cf_pq_kudu_dispose(&k);
    done_col(&f);
}

static void test_pq_kudu__wide_decimals(void **state)
{
    (void)state;
    /* DECIMAL(38,0) in 20 bytes: -2 (sign-extended), then a value whose top
     * bytes are not the sign: wider than 128 bits. */
    uint8_t v[40];
    memset(v, 0xff, 20);
    v[19] = 0xfe;
    memset(v + 20, 0, 20);
    v[20 + 3] = 1;
    cf_parquet_logical lt = {.kind = CF_PARQUET_LT_DECIMAL, .precision = 38, .scale = 0};
    fixture f;
    setup_col(&f, CF_PARQUET_FIXED_LEN_BYTE_ARRAY, 20, lt, false);
    cf_pq_kcol k;
    assert_int_equal(convert(&f, &k, v, 20, 1), 0);
    assert_int_equal(k.col.type, CF_TYPE_DECIMAL128);
    uint8_t want[16];
    memset(want, 0xff, 16);
    want[0] = 0xfe;
    assert_memory_equal(k.vals, want, 16);
    cf_pq_kudu_dispose(&k);
    assert_int_equal(convert(&f, &k, v, 20, 2), CF_EXIT_FAIL);
    assert_non_null(strstr(f.err, "t.parquet: row 101, column 'x': a DECIMAL of 20 bytes wider"));
    cf_pq_kudu_dispose(&k);
    done_col(&f);

    /* DECIMAL(5,2) on INT64: a DECIMAL32 (Kudu picks by precision); 99999
     * fits, 100000 has six digits. */
    int64_t d[2] = {-99999, 100000};
    lt = (cf_parquet_logical){.kind = CF_PARQUET_LT_DECIMAL, .precision = 5, .scale = 2};
    setup_col(&f, CF_PARQUET_INT64, 0, lt, false);
    assert_int_equal(convert(&f, &k, d, 8, 1), 0);
    assert_int_equal(k.col.type, CF_TYPE_DECIMAL32);
    assert_int_equal(k.col.precision, 5);
    assert_int_equal(k.col.scale, 2);
    int32_t got;
    memcpy(&got, k.vals, 4);
    assert_int_equal(got, -99999);
    cf_pq_kudu_dispose(&k);
    assert_int_equal(convert(&f, &k, d, 8, 2), CF_EXIT_FAIL);
    assert_non_null(strstr(f.err, "row 101, column 'x': unscaled value 100000 has more than "
                                  "the 5 digits of DECIMAL(5,2)"));
    cf_pq_kudu_dispose(&k);
    done_col(&f);
}

static void test_pq_kudu__integer_edges(void **state)
{
    (void)state;
    static const struct {
        int bits;
        bool is_signed;
        cf_type type;
        uint32_t ok, bad; /* INT32 bits */
        const char *msg;
    } cases[] = {
        {8, true, CF_TYPE_INT8, (uint32_t)-128, 128, "value 128 does not fit INT8"},
        {8, false, CF_TYPE_UINT8, 255, (uint32_t)-1, "value 4294967295 does not fit UINT8"},
        {16, true, CF_TYPE_INT16, 32767, (uint32_t)-32769, "value -32769 does not fit INT16"},
        {16, false, CF_TYPE_UINT16, 65535, 65536, "value 65536 does not fit UINT16"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cf_parquet_logical lt = {.kind = CF_PARQUET_LT_INTEGER,
                                 .bit_width = cases[i].bits,
                                 .is_signed = cases[i].is_signed};
        fixture f;
        setup_col(&f, CF_PARQUET_INT32, 0, lt, false);
        uint32_t v[2] = {cases[i].ok, cases[i].bad};
        cf_pq_kcol k;
        assert_int_equal(convert(&f, &k, v, 4, 1), 0);
        assert_int_equal(k.col.type, cases[i].type);
        assert_memory_equal(k.vals, v, cf_type_size(cases[i].type)); /* little-endian */
        cf_pq_kudu_dispose(&k);
        assert_int_equal(convert(&f, &k, v, 4, 2), CF_EXIT_FAIL);
        if (strstr(f.err, cases[i].msg) == NULL)
            fail_msg("case %zu: %s", i, f.err);
        cf_pq_kudu_dispose(&k);
        done_col(&f);
    }
    /* UINT64 keeps its 64 bits. */
    cf_parquet_logical lt = {.kind = CF_PARQUET_LT_INTEGER, .bit_width = 64, .is_signed = false};
    fixture f;
    setup_col(&f, CF_PARQUET_INT64, 0, lt, false);
    uint64_t u = UINT64_MAX;
    cf_pq_kcol k;
    assert_int_equal(convert(&f, &k, &u, 8, 1), 0);
    assert_int_equal(k.col.type, CF_TYPE_UINT64);
    assert_memory_equal(k.vals, &u, 8);
    cf_pq_kudu_dispose(&k);
    done_col(&f);
}

static void test_pq_kudu__timestamps(void **state)
{
    (void)state;
    /* INT96: nanoseconds of the day, then the Julian day. */
    uint8_t v[36];
    int64_t nanos[3] = {1500000, 1500001, 0};
    uint32_t day[3] = {2440589, 2440588, 4000000000u};
    for (int i = 0; i < 3; i++) {
        memcpy(v + 12 * i, &nanos[i], 8);
        memcpy(v + 12 * i + 8, &day[i], 4);
    }
    fixture f;
    setup_col(&f, CF_PARQUET_INT96, 0, lt_of(CF_PARQUET_LT_NONE), true);
    cf_pq_kcol k;
    assert_int_equal(convert(&f, &k, v, 12, 1), 0);
    assert_int_equal(k.col.type, CF_TYPE_UNIXTIME_MICROS);
    assert_true(k.col.nullable);
    int64_t us;
    memcpy(&us, k.vals, 8);
    assert_int_equal(us, INT64_C(86400000000) + 1500);
    cf_pq_kudu_dispose(&k);
    assert_int_equal(convert(&f, &k, v, 12, 2), CF_EXIT_FAIL);
    assert_non_null(strstr(f.err, "row 101, column 'x': INT96 timestamp has digits below a "
                                  "microsecond"));
    cf_pq_kudu_dispose(&k);
    /* a NULL row is not converted (its slot holds zeros) */
    uint8_t validity = 0x5; /* rows 0 and 2 present */
    f.a.validity = &validity;
    memcpy(v + 12, v, 12);
    assert_int_equal(convert(&f, &k, v, 12, 3), CF_EXIT_FAIL);
    assert_non_null(strstr(f.err, "row 102, column 'x': value"));
    assert_non_null(strstr(f.err, "does not fit UNIXTIME_MICROS"));
    cf_pq_kudu_dispose(&k);
    done_col(&f);

    /* MILLIS times 1000 unless it overflows; NANOS / 1000 only when exact. */
    int64_t ms[2] = {-1234, INT64_MAX / 1000 + 1};
    cf_parquet_logical lt = {.kind = CF_PARQUET_LT_TIMESTAMP, .unit = CF_PARQUET_MILLIS};
    setup_col(&f, CF_PARQUET_INT64, 0, lt, false);
    assert_int_equal(convert(&f, &k, ms, 8, 1), 0);
    memcpy(&us, k.vals, 8);
    assert_int_equal(us, -1234000);
    cf_pq_kudu_dispose(&k);
    assert_int_equal(convert(&f, &k, ms, 8, 2), CF_EXIT_FAIL);
    assert_non_null(strstr(f.err, "row 101, column 'x'"));
    cf_pq_kudu_dispose(&k);
    done_col(&f);
    int64_t ns[2] = {-7000, 7001};
    lt.unit = CF_PARQUET_NANOS;
    setup_col(&f, CF_PARQUET_INT64, 0, lt, false);
    assert_int_equal(convert(&f, &k, ns, 8, 1), 0);
    memcpy(&us, k.vals, 8);
    assert_int_equal(us, -7);
    cf_pq_kudu_dispose(&k);
    assert_int_equal(convert(&f, &k, ns, 8, 2), CF_EXIT_FAIL);
    assert_non_null(strstr(f.err, "row 101, column 'x': TIMESTAMP(NANOS) 7001 has digits below"));
    cf_pq_kudu_dispose(&k);
    done_col(&f);
}

static void test_pq_kudu__no_kudu_type(void **state)
{
    (void)state;
    cf_parquet_logical lt = {.kind = CF_PARQUET_LT_TIME, .unit = CF_PARQUET_MICROS, .utc = true};
    fixture f;
    setup_col(&f, CF_PARQUET_INT64, 0, lt, false);
    cf_pq_kcol k;
    int64_t v = 1;
    assert_int_equal(convert(&f, &k, &v, 8, 1), CF_EXIT_NOTSUP);
    assert_non_null(strstr(f.err, "t.parquet: column 'x': TIME(MICROS,true): no Kudu column"));
    cf_pq_kudu_dispose(&k);
    done_col(&f);
    lt = (cf_parquet_logical){.kind = CF_PARQUET_LT_DECIMAL, .precision = 39, .scale = 0};
    setup_col(&f, CF_PARQUET_BYTE_ARRAY, 0, lt, false);
    assert_int_equal(cf_pq_kudu_map(&f.c, "t.parquet", &f.a, 0, &k), CF_EXIT_NOTSUP);
    fflush(f.c.err);
    assert_non_null(strstr(f.err, "DECIMAL(39,0)"));
    cf_pq_kudu_dispose(&k);
    done_col(&f);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pq_kudu__float16),
        cmocka_unit_test(test_pq_kudu__wide_decimals),
        cmocka_unit_test(test_pq_kudu__integer_edges),
        cmocka_unit_test(test_pq_kudu__timestamps),
        cmocka_unit_test(test_pq_kudu__no_kudu_type),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

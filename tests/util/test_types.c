/* Type, encoding and compression names, sizes and the §8.0 matrix. */
#include "test_common.h"

#include <string.h>

#include <cfile/types.h>

#include "all_types.h"

static void test_types__names_are_kudus(void **state)
{
    (void)state;
    assert_string_equal(cf_type_name(CF_TYPE_INT32), "INT32");
    assert_string_equal(cf_type_name(CF_TYPE_UNIXTIME_MICROS), "UNIXTIME_MICROS");
    assert_string_equal(cf_type_name(CF_TYPE_DECIMAL128), "DECIMAL128");
    assert_string_equal(cf_type_name(CF_TYPE_VARCHAR), "VARCHAR");
    assert_string_equal(cf_type_name(CF_TYPE_DATE), "DATE");
    assert_null(cf_type_name((cf_type)18));
    assert_null(cf_type_name((cf_type)21));
    assert_null(cf_type_name((cf_type)-1));

    assert_string_equal(cf_encoding_name(CF_ENC_AUTO), "AUTO_ENCODING");
    assert_string_equal(cf_encoding_name(CF_ENC_PLAIN), "PLAIN_ENCODING");
    assert_string_equal(cf_encoding_name(CF_ENC_PREFIX), "PREFIX_ENCODING");
    assert_string_equal(cf_encoding_name(CF_ENC_GROUP_VARINT), "GROUP_VARINT");
    assert_string_equal(cf_encoding_name(CF_ENC_RLE), "RLE");
    assert_string_equal(cf_encoding_name(CF_ENC_DICT), "DICT_ENCODING");
    assert_string_equal(cf_encoding_name(CF_ENC_BIT_SHUFFLE), "BIT_SHUFFLE");
    assert_null(cf_encoding_name((cf_encoding)7));

    assert_string_equal(cf_compression_name(CF_COMP_DEFAULT), "DEFAULT_COMPRESSION");
    assert_string_equal(cf_compression_name(CF_COMP_NONE), "NO_COMPRESSION");
    assert_string_equal(cf_compression_name(CF_COMP_SNAPPY), "SNAPPY");
    assert_string_equal(cf_compression_name(CF_COMP_LZ4), "LZ4");
    assert_string_equal(cf_compression_name(CF_COMP_ZLIB), "ZLIB");
    assert_null(cf_compression_name((cf_compression)5));
}

static void test_types__parse_round_trips_every_name(void **state)
{
    (void)state;
    for (size_t i = 0; i < CF_NTYPES; i++) {
        cf_type t = (cf_type)-1;
        assert_int_equal(cf_type_parse(&t, cf_type_name(cf_all_types[i])), CF_OK);
        assert_int_equal(t, cf_all_types[i]);
    }
    for (int e = CF_ENC_AUTO; e <= CF_ENC_BIT_SHUFFLE; e++) {
        cf_encoding got = (cf_encoding)-1;
        assert_int_equal(cf_encoding_parse(&got, cf_encoding_name((cf_encoding)e)), CF_OK);
        assert_int_equal(got, e);
    }
    for (int c = CF_COMP_DEFAULT; c <= CF_COMP_ZLIB; c++) {
        cf_compression got = (cf_compression)-1;
        assert_int_equal(cf_compression_parse(&got, cf_compression_name((cf_compression)c)), CF_OK);
        assert_int_equal(got, c);
    }
}

static void test_types__parse_short_forms_any_case(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        int want;
    } enc[] =
        {
            {"plain", CF_ENC_PLAIN},
            {"Plain_Encoding", CF_ENC_PLAIN},
            {"prefix", CF_ENC_PREFIX},
            {"dict", CF_ENC_DICT},
            {"bitshuffle", CF_ENC_BIT_SHUFFLE},
            {"bit_shuffle", CF_ENC_BIT_SHUFFLE},
            {"auto", CF_ENC_AUTO},
            {"rle", CF_ENC_RLE},
            {"group_varint", CF_ENC_GROUP_VARINT},
        },
      comp[] =
          {
              {"none", CF_COMP_NONE},     {"no_compression", CF_COMP_NONE},
              {"snappy", CF_COMP_SNAPPY}, {"LZ4", CF_COMP_LZ4},
              {"zlib", CF_COMP_ZLIB},     {"default", CF_COMP_DEFAULT},
          },
      typ[] = {
          {"int32", CF_TYPE_INT32},
          {"string", CF_TYPE_STRING},
          {"Unixtime_Micros", CF_TYPE_UNIXTIME_MICROS},
          {"bool", CF_TYPE_BOOL},
          {"decimal128", CF_TYPE_DECIMAL128},
          {"varchar", CF_TYPE_VARCHAR},
      };
    for (size_t i = 0; i < sizeof enc / sizeof enc[0]; i++) {
        cf_encoding e;
        assert_int_equal(cf_encoding_parse(&e, enc[i].s), CF_OK);
        assert_int_equal(e, enc[i].want);
    }
    for (size_t i = 0; i < sizeof comp / sizeof comp[0]; i++) {
        cf_compression c;
        assert_int_equal(cf_compression_parse(&c, comp[i].s), CF_OK);
        assert_int_equal(c, comp[i].want);
    }
    for (size_t i = 0; i < sizeof typ / sizeof typ[0]; i++) {
        cf_type t;
        assert_int_equal(cf_type_parse(&t, typ[i].s), CF_OK);
        assert_int_equal(t, typ[i].want);
    }
}

static void test_types__parse_rejects_unknown(void **state)
{
    (void)state;
    cf_type t = CF_TYPE_INT8;
    cf_encoding e = CF_ENC_RLE;
    cf_compression c = CF_COMP_LZ4;
    assert_int_equal(cf_type_parse(&t, "int33"), CF_EINVAL);
    assert_int_equal(cf_type_parse(&t, ""), CF_EINVAL);
    assert_int_equal(cf_type_parse(&t, NULL), CF_EINVAL);
    assert_int_equal(cf_type_parse(&t, "IS_DELETED"), CF_EINVAL);
    assert_int_equal(cf_encoding_parse(&e, "plainx"), CF_EINVAL);
    assert_int_equal(cf_encoding_parse(&e, NULL), CF_EINVAL);
    assert_int_equal(cf_compression_parse(&c, "zstd"), CF_EINVAL);
    /* out is untouched on failure */
    assert_int_equal(t, CF_TYPE_INT8);
    assert_int_equal(e, CF_ENC_RLE);
    assert_int_equal(c, CF_COMP_LZ4);
}

static void test_types__valid_binary_and_sizes(void **state)
{
    (void)state;
    for (int t = -2; t < 30; t++) {
        bool want = (t >= 0 && t <= 17) || t == 19 || t == 20;
        assert_int_equal(cf_type_valid(t), want);
    }
    assert_true(cf_type_is_binary(CF_TYPE_STRING));
    assert_true(cf_type_is_binary(CF_TYPE_BINARY));
    assert_true(cf_type_is_binary(CF_TYPE_VARCHAR));
    assert_false(cf_type_is_binary(CF_TYPE_INT32));
    assert_false(cf_type_is_binary(CF_TYPE_BOOL));

    static const struct {
        cf_type t;
        size_t size;
    } sz[] = {
        {CF_TYPE_UINT8, 1},
        {CF_TYPE_INT8, 1},
        {CF_TYPE_UINT16, 2},
        {CF_TYPE_INT16, 2},
        {CF_TYPE_UINT32, 4},
        {CF_TYPE_INT32, 4},
        {CF_TYPE_UINT64, 8},
        {CF_TYPE_INT64, 8},
        {CF_TYPE_BOOL, 1},
        {CF_TYPE_FLOAT, 4},
        {CF_TYPE_DOUBLE, 8},
        {CF_TYPE_UNIXTIME_MICROS, 8},
        {CF_TYPE_INT128, 16},
        {CF_TYPE_DECIMAL32, 4},
        {CF_TYPE_DECIMAL64, 8},
        {CF_TYPE_DECIMAL128, 16},
        {CF_TYPE_DATE, 4},
        {CF_TYPE_STRING, sizeof(cf_slice)},
        {CF_TYPE_BINARY, sizeof(cf_slice)},
        {CF_TYPE_VARCHAR, sizeof(cf_slice)},
    };
    for (size_t i = 0; i < sizeof sz / sizeof sz[0]; i++)
        assert_int_equal(cf_type_size(sz[i].t), sz[i].size);
    assert_int_equal(cf_type_size((cf_type)18), 0);
}

static void test_types__physical(void **state)
{
    (void)state;
    assert_int_equal(cf_type_physical(CF_TYPE_STRING), CF_TYPE_BINARY);
    assert_int_equal(cf_type_physical(CF_TYPE_VARCHAR), CF_TYPE_BINARY);
    assert_int_equal(cf_type_physical(CF_TYPE_UNIXTIME_MICROS), CF_TYPE_INT64);
    assert_int_equal(cf_type_physical(CF_TYPE_DECIMAL64), CF_TYPE_INT64);
    assert_int_equal(cf_type_physical(CF_TYPE_DECIMAL32), CF_TYPE_INT32);
    assert_int_equal(cf_type_physical(CF_TYPE_DATE), CF_TYPE_INT32);
    assert_int_equal(cf_type_physical(CF_TYPE_DECIMAL128), CF_TYPE_INT128);
    assert_int_equal(cf_type_physical(CF_TYPE_UINT16), CF_TYPE_UINT16);
    assert_int_equal(cf_type_physical(CF_TYPE_BOOL), CF_TYPE_BOOL);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_types__names_are_kudus),
        cmocka_unit_test(test_types__parse_round_trips_every_name),
        cmocka_unit_test(test_types__parse_short_forms_any_case),
        cmocka_unit_test(test_types__parse_rejects_unknown),
        cmocka_unit_test(test_types__valid_binary_and_sizes),
        cmocka_unit_test(test_types__physical),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

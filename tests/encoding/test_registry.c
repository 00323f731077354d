/* The (type, encoding) table (format §8.0) and value comparison. */
#include "test_common.h"

#include <stdio.h>
#include <string.h>

#include "encoding/encodings.h"
#include "util/int128.h"
#include "all_types.h"

static void test_registry__resolve(void **state)
{
    (void)state;
    /* AUTO -> the type's default */
    assert_int_equal(cf_encoding_resolve(CF_TYPE_INT32, CF_ENC_AUTO), CF_ENC_BIT_SHUFFLE);
    assert_int_equal(cf_encoding_resolve(CF_TYPE_STRING, CF_ENC_AUTO), CF_ENC_DICT);
    assert_int_equal(cf_encoding_resolve(CF_TYPE_BOOL, CF_ENC_AUTO), CF_ENC_RLE);
    /* pairs Kudu was verified to replace (§8.0) */
    assert_int_equal(cf_encoding_resolve(CF_TYPE_DOUBLE, CF_ENC_RLE), CF_ENC_BIT_SHUFFLE);
    assert_int_equal(cf_encoding_resolve(CF_TYPE_INT32, CF_ENC_PREFIX), CF_ENC_BIT_SHUFFLE);
    assert_int_equal(cf_encoding_resolve(CF_TYPE_DECIMAL128, CF_ENC_RLE), CF_ENC_BIT_SHUFFLE);
    assert_int_equal(cf_encoding_resolve(CF_TYPE_INT64, CF_ENC_GROUP_VARINT), CF_ENC_BIT_SHUFFLE);
    assert_int_equal(cf_encoding_resolve(CF_TYPE_STRING, CF_ENC_GROUP_VARINT), CF_ENC_DICT);
    assert_int_equal(cf_encoding_resolve(CF_TYPE_UINT32, CF_ENC_GROUP_VARINT), CF_ENC_BIT_SHUFFLE);
    assert_int_equal(cf_encoding_resolve(CF_TYPE_BOOL, CF_ENC_BIT_SHUFFLE), CF_ENC_RLE);
    /* allowed pairs stay */
    assert_int_equal(cf_encoding_resolve(CF_TYPE_INT32, CF_ENC_PLAIN), CF_ENC_PLAIN);
    assert_int_equal(cf_encoding_resolve(CF_TYPE_UINT32, CF_ENC_RLE), CF_ENC_RLE);
    assert_int_equal(cf_encoding_resolve(CF_TYPE_VARCHAR, CF_ENC_PREFIX), CF_ENC_PREFIX);
    assert_int_equal(cf_encoding_resolve(CF_TYPE_BOOL, CF_ENC_PLAIN), CF_ENC_PLAIN);
    /* resolution always lands on an allowed pair */
    for (size_t i = 0; i < CF_NTYPES; i++)
        for (int e = CF_ENC_AUTO; e <= CF_ENC_BIT_SHUFFLE; e++)
            assert_true(cf_type_allows_encoding(
                cf_all_types[i], cf_encoding_resolve(cf_all_types[i], (cf_encoding)e)));
}

static void test_registry__plain_by_type(void **state)
{
    (void)state;
    for (size_t i = 0; i < CF_NTYPES; i++) {
        cf_type t = cf_all_types[i];
        const cf_encoder_ops *eo = cf_encoder_lookup(t, CF_ENC_PLAIN);
        const cf_decoder_ops *dop = cf_decoder_lookup(t, CF_ENC_PLAIN);
        if (t == CF_TYPE_BOOL) {
            assert_ptr_equal(eo, &cf_enc_plain_bool_ops);
            assert_ptr_equal(dop, &cf_dec_plain_bool_ops);
        } else if (cf_type_is_binary(t)) {
            assert_ptr_equal(eo, &cf_enc_plain_binary_ops);
            assert_ptr_equal(dop, &cf_dec_plain_binary_ops);
        } else {
            assert_ptr_equal(eo, &cf_enc_plain_ops);
            assert_ptr_equal(dop, &cf_dec_plain_ops);
        }
    }
}

/* Whatever is implemented so far: never outside the matrix, and the ops report
 * the encoding they were looked up for. */
static void test_registry__lookups_follow_the_matrix(void **state)
{
    (void)state;
    for (size_t i = 0; i < CF_NTYPES; i++) {
        cf_type t = cf_all_types[i];
        for (int ei = CF_ENC_AUTO; ei <= CF_ENC_BIT_SHUFFLE + 1; ei++) {
            cf_encoding e = (cf_encoding)ei;
            const cf_encoder_ops *eo = cf_encoder_lookup(t, e);
            const cf_decoder_ops *dop = cf_decoder_lookup(t, e);
            if (!cf_type_allows_encoding(t, e)) {
                assert_null(eo);
                if (!(e == CF_ENC_GROUP_VARINT && t == CF_TYPE_UINT32))
                    assert_null(dop);
            }
            if (eo)
                assert_int_equal(eo->encoding, e);
            if (dop)
                assert_int_equal(dop->encoding, e);
        }
    }
    /* GROUP_VARINT: never written; read only for UINT32 (if gvint.c exists) */
    assert_null(cf_encoder_lookup(CF_TYPE_UINT32, CF_ENC_GROUP_VARINT));
    assert_null(cf_decoder_lookup(CF_TYPE_INT32, CF_ENC_GROUP_VARINT));
    assert_null(cf_decoder_lookup(CF_TYPE_STRING, CF_ENC_GROUP_VARINT));
    /* RLE has no INT128, floats or binary */
    assert_null(cf_encoder_lookup(CF_TYPE_INT128, CF_ENC_RLE));
    assert_null(cf_decoder_lookup(CF_TYPE_DECIMAL128, CF_ENC_RLE));
    assert_null(cf_decoder_lookup(CF_TYPE_FLOAT, CF_ENC_RLE));
    assert_null(cf_decoder_lookup(CF_TYPE_STRING, CF_ENC_RLE));
    /* AUTO is resolved before lookup */
    assert_null(cf_encoder_lookup(CF_TYPE_INT32, CF_ENC_AUTO));
    assert_null(cf_encoder_lookup((cf_type)18, CF_ENC_PLAIN));
    assert_null(cf_decoder_lookup((cf_type)99, CF_ENC_PLAIN));
}

/* The whole §8.0 matrix, written out per logical type. */
static void test_registry__the_whole_matrix(void **state)
{
    (void)state;
    enum {
        A = 1 << CF_ENC_AUTO,
        P = 1 << CF_ENC_PLAIN,
        X = 1 << CF_ENC_PREFIX,
        G = 1 << CF_ENC_GROUP_VARINT,
        R = 1 << CF_ENC_RLE,
        D = 1 << CF_ENC_DICT,
        B = 1 << CF_ENC_BIT_SHUFFLE
    };
    static const struct {
        cf_type t;
        int allowed;
        cf_encoding dflt;
    } m[] = {
        {CF_TYPE_UINT8, B | P | R, CF_ENC_BIT_SHUFFLE},
        {CF_TYPE_INT8, B | P | R, CF_ENC_BIT_SHUFFLE},
        {CF_TYPE_UINT16, B | P | R, CF_ENC_BIT_SHUFFLE},
        {CF_TYPE_INT16, B | P | R, CF_ENC_BIT_SHUFFLE},
        {CF_TYPE_UINT32, B | P | R, CF_ENC_BIT_SHUFFLE},
        {CF_TYPE_INT32, B | P | R, CF_ENC_BIT_SHUFFLE},
        {CF_TYPE_UINT64, B | P | R, CF_ENC_BIT_SHUFFLE},
        {CF_TYPE_INT64, B | P | R, CF_ENC_BIT_SHUFFLE},
        {CF_TYPE_STRING, D | P | X, CF_ENC_DICT},
        {CF_TYPE_BOOL, R | P, CF_ENC_RLE},
        {CF_TYPE_FLOAT, B | P, CF_ENC_BIT_SHUFFLE},
        {CF_TYPE_DOUBLE, B | P, CF_ENC_BIT_SHUFFLE},
        {CF_TYPE_BINARY, D | P | X, CF_ENC_DICT},
        {CF_TYPE_UNIXTIME_MICROS, B | P | R, CF_ENC_BIT_SHUFFLE},
        {CF_TYPE_INT128, B | P, CF_ENC_BIT_SHUFFLE},
        {CF_TYPE_DECIMAL32, B | P | R, CF_ENC_BIT_SHUFFLE},
        {CF_TYPE_DECIMAL64, B | P | R, CF_ENC_BIT_SHUFFLE},
        {CF_TYPE_DECIMAL128, B | P, CF_ENC_BIT_SHUFFLE},
        {CF_TYPE_VARCHAR, D | P | X, CF_ENC_DICT},
        {CF_TYPE_DATE, B | P | R, CF_ENC_BIT_SHUFFLE},
    };
    (void)A;
    (void)G;
    assert_int_equal(sizeof m / sizeof m[0], CF_NTYPES);
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        assert_int_equal(cf_type_default_encoding(m[i].t), m[i].dflt);
        for (int e = CF_ENC_AUTO; e <= CF_ENC_BIT_SHUFFLE; e++) {
            bool want = (m[i].allowed >> e) & 1;
            if (cf_type_allows_encoding(m[i].t, (cf_encoding)e) != want)
                fail_msg("type %s encoding %s: allowed %d, want %d", cf_type_name(m[i].t),
                         cf_encoding_name((cf_encoding)e), !want, want);
        }
    }
    assert_false(cf_type_allows_encoding((cf_type)18, CF_ENC_PLAIN));
    assert_int_equal(cf_type_default_encoding((cf_type)18), CF_ENC_AUTO);
}

/* Every pair that can be written can be read back, and each type has exactly
 * one default, which it allows. */
static void test_registry__table_is_consistent(void **state)
{
    (void)state;
    for (size_t i = 0; i < CF_NTYPES; i++) {
        cf_type t = cf_all_types[i];
        int defaults = 0;
        for (int ei = CF_ENC_AUTO; ei <= CF_ENC_BIT_SHUFFLE; ei++) {
            cf_encoding e = (cf_encoding)ei;
            if (cf_encoder_lookup(t, e) != NULL) {
                assert_true(cf_type_allows_encoding(t, e));
                assert_non_null(cf_decoder_lookup(t, e));
            }
            if (e == cf_type_default_encoding(t)) {
                defaults++;
                assert_true(cf_type_allows_encoding(t, e));
            }
        }
        assert_int_equal(defaults, 1);
    }
}

static void test_registry__decoder_open(void **state)
{
    (void)state;
    uint8_t blk[32];
    size_t len = cf_test_unhex("03 00 00 00 00 00 00 00 01 00 00 00 02 00 00 00 03 00 00 00", blk,
                               sizeof blk);
    cf_dec_params p = {.type = CF_TYPE_DATE, .elem_size = 4};
    cf_decoder *d = NULL;
    cf_error err;
    CF_ASSERT_OK(cf_decoder_open(&d, CF_ENC_PLAIN, &p, blk, len, &err), &err);
    assert_int_equal(d->count, 3);
    cf_decoder_free(d);

    d = (cf_decoder *)1;
    CF_ASSERT_STATUS(cf_decoder_open(&d, CF_ENC_PLAIN, &p, blk, len - 1, &err), CF_ECORRUPT, &err);
    assert_null(d);
    d = (cf_decoder *)1;
    CF_ASSERT_STATUS(cf_decoder_open(&d, CF_ENC_PREFIX, &p, blk, len, &err), CF_ENOTSUP, &err);
    assert_null(d);
    assert_non_null(strstr(err.msg, "PREFIX_ENCODING"));
    cf_decoder_free(NULL);
    cf_encoder_free(NULL);
}

/* The positional seek the encodings share (decoder.c): to the end is
 * fine, one past it is CF_EINVAL naming the encoding; the position stays. */
static void test_registry__positional_seek(void **state)
{
    (void)state;
    static const struct {
        cf_type t;
        cf_encoding e;
    } cases[] = {
        {CF_TYPE_INT32, CF_ENC_PLAIN},   {CF_TYPE_BOOL, CF_ENC_PLAIN},
        {CF_TYPE_STRING, CF_ENC_PLAIN},  {CF_TYPE_INT32, CF_ENC_BIT_SHUFFLE},
        {CF_TYPE_STRING, CF_ENC_PREFIX},
    };
    int32_t ints[3] = {1, 2, 3};
    uint8_t bools[3] = {1, 0, 1};
    cf_slice strs[3] = {
        {(const uint8_t *)"a", 1}, {(const uint8_t *)"b", 1}, {(const uint8_t *)"c", 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cf_type t = cases[i].t;
        const void *vals = t == CF_TYPE_INT32  ? (const void *)ints
                           : t == CF_TYPE_BOOL ? (const void *)bools
                                               : (const void *)strs;
        cf_enc_params ep = {
            .type = t, .elem_size = cf_type_size(t), .block_size = 4096, .restart_interval = 16};
        const cf_encoder_ops *eo = cf_encoder_lookup(t, cases[i].e);
        assert_non_null(eo);
        cf_encoder *enc = NULL;
        cf_error err;
        CF_ASSERT_OK(eo->create(&enc, &ep, &err), &err);
        assert_int_equal(eo->add(enc, vals, 3, true), 3);
        cf_slice blk;
        CF_ASSERT_OK(eo->finish(enc, 0, &blk, &err), &err);
        cf_dec_params dp = {.type = t, .elem_size = cf_type_size(t)};
        cf_decoder *d = NULL;
        CF_ASSERT_OK(cf_decoder_open(&d, cases[i].e, &dp, blk.data, blk.len, &err), &err);
        CF_ASSERT_OK(d->ops->seek(d, 3, &err), &err);
        assert_int_equal(d->pos, 3);
        CF_ASSERT_OK(d->ops->seek(d, 1, &err), &err);
        CF_ASSERT_STATUS(d->ops->seek(d, 4, &err), CF_EINVAL, &err);
        assert_int_equal(d->pos, 1);
        char want[64];
        snprintf(want, sizeof want, "%s block: seek to 4 past 3 values",
                 cf_encoding_name(cases[i].e));
        if (strstr(err.msg, want) == NULL)
            fail_msg("%s %s: \"%s\" does not say \"%s\"", cf_type_name(t),
                     cf_encoding_name(cases[i].e), err.msg, want);
        cf_decoder_free(d);
        cf_encoder_free(enc);
    }
}

static void test_registry__value_compare(void **state)
{
    (void)state;
    int8_t a8 = -1, b8 = 1;
    uint8_t ua8 = 0xff, ub8 = 1;
    assert_int_equal(cf_value_compare(CF_TYPE_INT8, &a8, &b8), -1);
    assert_int_equal(cf_value_compare(CF_TYPE_UINT8, &ua8, &ub8), 1);
    int16_t a16 = -300, b16 = 300;
    uint16_t ua16 = 0x8000, ub16 = 0x7fff;
    assert_int_equal(cf_value_compare(CF_TYPE_INT16, &a16, &b16), -1);
    assert_int_equal(cf_value_compare(CF_TYPE_UINT16, &ua16, &ub16), 1);
    int32_t a32 = INT32_MIN, b32 = INT32_MAX;
    uint32_t ua32 = 0x80000000u, ub32 = 1;
    assert_int_equal(cf_value_compare(CF_TYPE_INT32, &a32, &b32), -1);
    assert_int_equal(cf_value_compare(CF_TYPE_DATE, &a32, &b32), -1);
    assert_int_equal(cf_value_compare(CF_TYPE_DECIMAL32, &b32, &a32), 1);
    assert_int_equal(cf_value_compare(CF_TYPE_UINT32, &ua32, &ub32), 1);
    assert_int_equal(cf_value_compare(CF_TYPE_INT32, &b32, &b32), 0);
    int64_t a64 = -1, b64 = 0;
    uint64_t ua64 = UINT64_MAX, ub64 = 0;
    assert_int_equal(cf_value_compare(CF_TYPE_INT64, &a64, &b64), -1);
    assert_int_equal(cf_value_compare(CF_TYPE_UNIXTIME_MICROS, &a64, &b64), -1);
    assert_int_equal(cf_value_compare(CF_TYPE_DECIMAL64, &b64, &a64), 1);
    assert_int_equal(cf_value_compare(CF_TYPE_UINT64, &ua64, &ub64), 1);
    /* INT128 is signed across all 16 bytes, compared from unaligned memory */
    uint8_t raw[40];
    cf_i128 neg = -((cf_i128)1 << 100), pos = ((cf_i128)1 << 64) + 5, pos2 = ((cf_i128)1 << 64) + 6;
    memcpy(raw + 1, &neg, 16);
    memcpy(raw + 17, &pos, 16);
    assert_int_equal(cf_value_compare(CF_TYPE_INT128, raw + 1, raw + 17), -1);
    assert_int_equal(cf_value_compare(CF_TYPE_DECIMAL128, raw + 17, raw + 1), 1);
    assert_int_equal(cf_value_compare(CF_TYPE_INT128, raw + 17, &pos2), -1);
    assert_int_equal(cf_value_compare(CF_TYPE_INT128, raw + 17, &pos), 0);
    /* binary: memcmp, unsigned bytes, then length */
    cf_slice s1 = {(const uint8_t *)"ab", 2}, s2 = {(const uint8_t *)"abc", 3},
             s3 = {(const uint8_t *)"\x80", 1}, s4 = {NULL, 0};
    assert_int_equal(cf_value_compare(CF_TYPE_STRING, &s1, &s2), -1);
    assert_int_equal(cf_value_compare(CF_TYPE_BINARY, &s3, &s2), 1);
    assert_int_equal(cf_value_compare(CF_TYPE_VARCHAR, &s4, &s1), -1);
    assert_int_equal(cf_value_compare(CF_TYPE_VARCHAR, &s4, &s4), 0);
    assert_int_equal(cf_value_compare(CF_TYPE_BINARY, &s2, &s2), 0);
    /* no key order in Kudu, but numeric here */
    double d1 = -0.5, d2 = 2.0;
    float f1 = 3.0f, f2 = 1.0f;
    uint8_t t = 1, f = 0;
    assert_int_equal(cf_value_compare(CF_TYPE_DOUBLE, &d1, &d2), -1);
    assert_int_equal(cf_value_compare(CF_TYPE_FLOAT, &f1, &f2), 1);
    assert_int_equal(cf_value_compare(CF_TYPE_BOOL, &t, &f), 1);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry__resolve),
        cmocka_unit_test(test_registry__plain_by_type),
        cmocka_unit_test(test_registry__lookups_follow_the_matrix),
        cmocka_unit_test(test_registry__the_whole_matrix),
        cmocka_unit_test(test_registry__table_is_consistent),
        cmocka_unit_test(test_registry__decoder_open),
        cmocka_unit_test(test_registry__positional_seek),
        cmocka_unit_test(test_registry__value_compare),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

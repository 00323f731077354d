/* PLAIN for BOOL: a packed bitmap (format §8.2, §10.2). */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "encoding/encodings.h"

#include "support_codec.h"

static cf_status try_load(const uint8_t *data, size_t len, cf_error *err)
{
    cf_dec_params p = {.type = CF_TYPE_BOOL, .elem_size = 1};
    return dec_try(CF_ENC_PLAIN, &p, data, len, 0, NULL, err);
}

static void test_plain_bool__exact_bytes(void **state)
{
    (void)state;
    /* 9 values: bits 0, 2, 3 of byte 0 and bit 0 of byte 1; ordinal 5 */
    const uint8_t v[9] = {1, 0, 1, 1, 0, 0, 0, 0, 1};
    cf_encoder *e = enc_create(&cf_enc_plain_bool_ops, CF_TYPE_BOOL, 512);
    assert_int_equal(e->ops->add(e, v, 4, false), 4);
    assert_int_equal(e->ops->add(e, v + 4, 5, false), 5);
    assert_int_equal(e->ops->count(e), 9);
    cf_slice out;
    cf_error err;
    CF_ASSERT_OK(e->ops->finish(e, 5, &out, &err), &err);
    uint8_t want[16];
    size_t wlen = cf_test_unhex("09 00 00 00 05 00 00 00 0d 01", want, sizeof want);
    CF_ASSERT_BYTES(out.data, out.len, want, wlen);

    cf_decoder *d = dec_open(CF_ENC_PLAIN, CF_TYPE_BOOL, want, wlen);
    assert_int_equal(d->count, 9);
    assert_int_equal(d->first_ord, 5);
    uint8_t got[16];
    size_t n;
    CF_ASSERT_OK(d->ops->next(d, got, 16, &n, &err), &err);
    assert_int_equal(n, 9);
    assert_memory_equal(got, v, 9);
    cf_decoder_free(d);
    cf_encoder_free(e);
}

static void test_plain_bool__empty_block(void **state)
{
    (void)state;
    cf_encoder *e = enc_create(&cf_enc_plain_bool_ops, CF_TYPE_BOOL, 512);
    cf_slice out;
    cf_error err;
    CF_ASSERT_OK(e->ops->finish(e, 0, &out, &err), &err);
    const uint8_t want[8] = {0};
    CF_ASSERT_BYTES(out.data, out.len, want, 8);
    cf_decoder *d = dec_open(CF_ENC_PLAIN, CF_TYPE_BOOL, out.data, out.len);
    assert_int_equal(d->count, 0);
    cf_decoder_free(d);
    cf_encoder_free(e);
}

static void test_plain_bool__nonzero_bytes_are_true(void **state)
{
    (void)state;
    const uint8_t v[3] = {2, 0, 0xff};
    cf_encoder *e = enc_create(&cf_enc_plain_bool_ops, CF_TYPE_BOOL, 512);
    e->ops->add(e, v, 3, false);
    cf_slice out;
    cf_error err;
    CF_ASSERT_OK(e->ops->finish(e, 0, &out, &err), &err);
    assert_int_equal(out.len, 9);
    assert_int_equal(out.data[8], 0x05);
    cf_encoder_free(e);
}

static void test_plain_bool__fullness(void **state)
{
    (void)state;
    /* full once 8 + ceil(n/8) > 512, i.e. ceil(n/8) = 505: n = 4033 */
    cf_encoder *e = enc_create(&cf_enc_plain_bool_ops, CF_TYPE_BOOL, 512);
    uint8_t one = 1;
    size_t n = 0;
    while (!e->ops->is_full(e)) {
        assert_int_equal(e->ops->add(e, &one, 1, false), 1);
        n++;
    }
    assert_int_equal(n, 4033);
    cf_slice out;
    cf_error err;
    CF_ASSERT_OK(e->ops->finish(e, 0, &out, &err), &err);
    assert_int_equal(out.len, 513);
    assert_int_equal(out.data[512], 0x01);

    /* one big call is taken whole */
    e->ops->reset(e);
    uint8_t *many = calloc(10000, 1);
    assert_int_equal(e->ops->add(e, many, 10000, false), 10000);
    assert_true(e->ops->is_full(e));
    CF_ASSERT_OK(e->ops->finish(e, 0, &out, &err), &err);
    assert_int_equal(out.len, 8 + 1250);
    free(many);
    cf_encoder_free(e);
}

static void test_plain_bool__random_round_trip(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(3));
    cf_error err;
    for (int iter = 0; iter < 100; iter++) {
        size_t n = (size_t)cf_rng_below(&r, 3000);
        uint8_t *v = malloc(n + 1), *got = malloc(n + 1);
        int density = (int)cf_rng_below(&r, 4);
        for (size_t i = 0; i < n; i++)
            v[i] = density == 0 ? 0 : density == 1 ? 1 : (uint8_t)(cf_rng_next(&r) & 1);
        cf_encoder *e = enc_create(&cf_enc_plain_bool_ops, CF_TYPE_BOOL, 4096);
        for (size_t done = 0; done < n;) {
            size_t k = 1 + (size_t)cf_rng_below(&r, n - done < 40 ? n - done : 40);
            assert_int_equal(e->ops->add(e, v + done, k, false), k);
            done += k;
        }
        cf_slice out;
        CF_ASSERT_OK(e->ops->finish(e, (uint32_t)iter, &out, &err), &err);
        assert_int_equal(out.len, 8 + (n + 7) / 8);
        /* unused high bits of the last byte are 0 */
        if (n % 8)
            assert_int_equal(out.data[out.len - 1] >> (n % 8), 0);
        cf_decoder *d = dec_open(CF_ENC_PLAIN, CF_TYPE_BOOL, out.data, out.len);
        size_t pos = 0, k;
        while (pos < n) {
            size_t want = 1 + (size_t)cf_rng_below(&r, 70);
            CF_ASSERT_OK(d->ops->next(d, got + pos, want, &k, &err), &err);
            assert_true(k > 0);
            pos += k;
        }
        if (n)
            assert_memory_equal(got, v, n);
        for (int s = 0; s < 30 && n > 0; s++) {
            size_t idx = (size_t)cf_rng_below(&r, n + 1);
            size_t want = (size_t)cf_rng_below(&r, 50);
            CF_ASSERT_OK(d->ops->seek(d, idx, &err), &err);
            CF_ASSERT_OK(d->ops->next(d, got, want, &k, &err), &err);
            assert_int_equal(k, want < n - idx ? want : n - idx);
            if (k)
                assert_memory_equal(got, v + idx, k);
        }
        cf_decoder_free(d);
        cf_encoder_free(e);
        free(v);
        free(got);
    }
}

static void test_plain_bool__corrupt_and_unsupported(void **state)
{
    (void)state;
    uint8_t blk[16];
    size_t len = cf_test_unhex("09 00 00 00 00 00 00 00 0d 01", blk, sizeof blk);
    cf_error err;
    CF_ASSERT_OK(try_load(blk, len, &err), &err);
    for (size_t cut = 0; cut < len; cut++)
        CF_ASSERT_STATUS(try_load(blk, cut, &err), CF_ECORRUPT, &err);
    blk[len] = 0;
    CF_ASSERT_STATUS(try_load(blk, len + 1, &err), CF_ECORRUPT, &err);
    const uint32_t lies[] = {8, 17, 0, 0xffffffffu};
    for (size_t i = 0; i < sizeof lies / sizeof lies[0]; i++) {
        memcpy(blk, &lies[i], 4);
        CF_ASSERT_STATUS(try_load(blk, len, &err), CF_ECORRUPT, &err);
    }
    /* 10..16 values all need 2 bitmap bytes */
    const uint32_t sixteen = 16;
    memcpy(blk, &sixteen, 4);
    CF_ASSERT_OK(try_load(blk, len, &err), &err);

    cf_decoder *d = dec_open(CF_ENC_PLAIN, CF_TYPE_BOOL, blk, len);
    uint8_t key = 1;
    bool exact;
    CF_ASSERT_STATUS(d->ops->seek_at_or_after(d, &key, &exact, &err), CF_ENOTSUP, &err);
    CF_ASSERT_STATUS(d->ops->seek(d, 17, &err), CF_EINVAL, &err);
    cf_decoder_free(d);

    cf_enc_params ep = {.type = CF_TYPE_INT8, .block_size = 512};
    cf_encoder *e;
    CF_ASSERT_STATUS(cf_enc_plain_bool_ops.create(&e, &ep, &err), CF_EINVAL, &err);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_bool__exact_bytes),
        cmocka_unit_test(test_plain_bool__empty_block),
        cmocka_unit_test(test_plain_bool__nonzero_bytes_are_true),
        cmocka_unit_test(test_plain_bool__fullness),
        cmocka_unit_test(test_plain_bool__random_round_trip),
        cmocka_unit_test(test_plain_bool__corrupt_and_unsupported),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* Legacy GROUP_VARINT decoder (format §8.9, §1.6). */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "encoding/encodings.h"
#include "util/buf.h"
#include "util/group_varint.h"

#include "support_codec.h"

static const cf_dec_params params = {.type = CF_TYPE_UINT32, .elem_size = 4};

/* What the removed Kudu writer produced: gvint(count, min, ord, 0) || groups of v - min. */
static void build(cf_buf *b, const uint32_t *v, size_t n, uint32_t ord)
{
    uint32_t min = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || v[i] < min)
            min = v[i];
    uint32_t *rel = malloc((n ? n : 1) * sizeof *rel);
    for (size_t i = 0; i < n; i++)
        rel[i] = v[i] - min;
    cf_buf_clear(b);
    uint8_t *h = cf_buf_extend(b, CF_GVINT_MAX_GROUP);
    b->len = cf_gvint_encode_group(h, (uint32_t)n, min, ord, 0);
    cf_gvint_append(b, rel, n);
    assert_false(b->oom);
    free(rel);
}

static void test_gvint__exact_bytes(void **state)
{
    (void)state;
    uint8_t blk[64];
    size_t len = cf_test_unhex("10 05 e8 03 00 00"
                               "06 00 01 2c 01 70 11 01"
                               "c0 00 00 00 01 00 00 00",
                               blk, sizeof blk);
    const uint32_t want[] = {1000, 1001, 1300, 71000, 16778216};
    cf_buf b;
    cf_buf_init(&b);
    build(&b, want, 5, 0);
    CF_ASSERT_BYTES(b.data, b.len, blk, len);
    cf_buf_dispose(&b);

    cf_error err;
    cf_decoder *d;
    CF_ASSERT_OK(cf_decoder_open(&d, CF_ENC_GROUP_VARINT, &params, blk, len, &err), &err);
    assert_int_equal(d->first_ord, 0);
    dec_expect_values(d, want, 5, sizeof want[0]);
    cf_decoder_free(d);
}

static void test_gvint__empty(void **state)
{
    (void)state;
    uint8_t blk[8];
    size_t len = cf_test_unhex("00 00 00 07 00", blk, sizeof blk);
    cf_error err;
    cf_decoder *d;
    CF_ASSERT_OK(cf_decoder_open(&d, CF_ENC_GROUP_VARINT, &params, blk, len, &err), &err);
    assert_int_equal(d->count, 0);
    assert_int_equal(d->first_ord, 7);
    uint32_t got[1], key = 0;
    size_t g = 9;
    CF_ASSERT_OK(d->ops->next(d, got, 1, &g, &err), &err);
    assert_int_equal(g, 0);
    bool exact;
    CF_ASSERT_STATUS(d->ops->seek_at_or_after(d, &key, &exact, &err), CF_ENOTFOUND, &err);
    cf_decoder_free(d);
}

static void test_gvint__wrong_type(void **state)
{
    (void)state;
    cf_error err;
    cf_decoder *d;
    cf_dec_params p = {.type = CF_TYPE_INT32, .elem_size = 4};
    CF_ASSERT_STATUS(cf_dec_gvint_ops.create(&d, &p, &err), CF_EINVAL, &err);
}

static void test_gvint__round_trip_and_seek(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0x67f1));
    cf_error err;
    cf_buf b;
    cf_buf_init(&b);
    cf_decoder *d;
    CF_ASSERT_OK(cf_dec_gvint_ops.create(&d, &params, &err), &err);
    for (int it = 0; it < 200; it++) {
        size_t n = cf_rng_below(&r, 600);
        uint32_t *v = malloc((n + 1) * sizeof *v), *got = malloc((n + 1) * sizeof *got);
        uint32_t x = (uint32_t)cf_rng_next(&r);
        int shift = (int)cf_rng_below(&r, 32);
        bool sorted = it % 2;
        for (size_t i = 0; i < n; i++) {
            uint32_t step = (uint32_t)(cf_rng_next(&r) >> (32 + shift));
            if (sorted) {
                x = x + step < x ? x : x + step;
                v[i] = x;
            } else {
                v[i] = (uint32_t)cf_rng_next(&r) >> shift;
            }
        }
        if (sorted && n)
            v[0] = v[0] > 10 ? v[0] - 10 : 0;
        uint32_t ord = (uint32_t)cf_rng_next(&r);
        build(&b, v, n, ord);
        uint8_t *copy = malloc(b.len);
        memcpy(copy, b.data, b.len);
        CF_ASSERT_OK(d->ops->load(d, copy, b.len, &err), &err);
        assert_int_equal(d->count, n);
        assert_int_equal(d->first_ord, ord);
        size_t at = cf_rng_below(&r, n + 1), g;
        CF_ASSERT_OK(d->ops->seek(d, at, &err), &err);
        size_t pos = at;
        while (pos < n) {
            CF_ASSERT_OK(d->ops->next(d, got, 1 + cf_rng_below(&r, 9), &g, &err), &err);
            assert_true(g > 0);
            assert_memory_equal(got, v + pos, g * 4);
            pos += g;
        }
        if (sorted) {
            for (int k = 0; k < 20; k++) {
                uint32_t key = n && k % 2 ? v[cf_rng_below(&r, n)] : (uint32_t)cf_rng_next(&r);
                size_t want = 0;
                while (want < n && v[want] < key)
                    want++;
                dec_expect_seek(d, &key, want, n, want < n && v[want] == key);
            }
        }
        free(copy);
        free(v);
        free(got);
    }
    cf_decoder_free(d);
    cf_buf_dispose(&b);
}

static cf_status decode_all(const uint8_t *blk, size_t len, cf_error *err)
{
    return dec_try(CF_ENC_GROUP_VARINT, &params, blk, len, 16, NULL, err);
}

static void test_gvint__corrupt(void **state)
{
    (void)state;
    dec_expect_hex(decode_all, "", CF_ECORRUPT);
    dec_expect_hex(decode_all, "10 05 e8 03", CF_ECORRUPT); /* header cut */
    /* 9 values, 2 groups */
    dec_expect_hex(decode_all, "10 09 e8 03 00 00 06 00 01 2c 01 70 11 01 c0 00 00 00 01 00 00 00",
                   CF_ECORRUPT);
    /* last group cut */
    dec_expect_hex(decode_all, "10 05 e8 03 00 00 06 00 01 2c 01 70 11 01 c0 00 00 00 01 00 00",
                   CF_ECORRUPT);
    dec_expect_hex(decode_all, "00 ff e8 03 00 00 06 00 01 2c 01", CF_ECORRUPT); /* huge count */

    /* every truncation and random bit flips: a clean status */
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0x67f2));
    uint32_t v[300];
    for (int i = 0; i < 300; i++)
        v[i] = (uint32_t)cf_rng_next(&r) >> (i % 32);
    cf_buf b;
    cf_buf_init(&b);
    build(&b, v, 300, 3);
    cf_error err;
    for (size_t cut = 0; cut < b.len; cut++)
        assert_true(decode_all(b.data, cut, &err) == CF_ECORRUPT);
    uint8_t *m = malloc(b.len);
    for (int it = 0; it < 2000; it++) {
        memcpy(m, b.data, b.len);
        m[cf_rng_below(&r, b.len)] ^= (uint8_t)(1u << cf_rng_below(&r, 8));
        cf_status st = decode_all(m, b.len, &err);
        assert_true(st == CF_OK || st == CF_ECORRUPT);
    }
    free(m);
    cf_buf_dispose(&b);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gvint__exact_bytes),
        cmocka_unit_test(test_gvint__empty),
        cmocka_unit_test(test_gvint__wrong_type),
        cmocka_unit_test(test_gvint__round_trip_and_seek),
        cmocka_unit_test(test_gvint__corrupt),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

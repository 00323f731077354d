/* Memcomparable varints and DeltaKeys (format §1.5, §12.2, §14.12). */
#include <string.h>

#include "test_common.h"

#include <cfile/delta.h>

static void check_enc(uint64_t v, const char *hex)
{
    uint8_t want[16], got[16];
    size_t wn = cf_test_unhex(hex, want, sizeof(want));
    size_t gn = cf_mcvarint_encode(got, v);
    CF_ASSERT_BYTES(want, wn, got, gn);
    uint64_t back = 0;
    assert_int_equal(cf_mcvarint_decode(got, gn, &back), gn);
    assert_true(back == v);
    /* Every proper prefix is truncated. */
    for (size_t i = 0; i < gn; i++)
        assert_int_equal(cf_mcvarint_decode(got, i, &back), 0);
}

static void test_mcvarint__spec_examples(void **state)
{
    (void)state;
    check_enc(0, "00");
    check_enc(240, "f0");
    check_enc(241, "f1 01");
    check_enc(300, "f1 3c");
    check_enc(2287, "f8 ff");
    check_enc(2288, "f9 00 00");
    check_enc(67823, "f9 ff ff");
    check_enc(67824, "fa 01 08 f0");
    check_enc(70000, "fa 01 11 70");
    check_enc(1ull << 24, "fb 01 00 00 00");
    check_enc(1ull << 32, "fc 01 00 00 00 00");
    check_enc(0x60a24181e4000000ull, "ff 60 a2 41 81 e4 00 00 00");
    check_enc(UINT64_MAX, "ff ff ff ff ff ff ff ff ff");
}

static void test_mcvarint__random_roundtrip_and_order(void **state)
{
    (void)state;
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(1205));
    uint8_t a[9], b[9];
    for (int i = 0; i < 20000; i++) {
        int shift = (int)cf_rng_below(&rng, 64);
        uint64_t x = cf_rng_next(&rng) >> shift,
                 y = cf_rng_next(&rng) >> (int)cf_rng_below(&rng, 64);
        size_t an = cf_mcvarint_encode(a, x), bn = cf_mcvarint_encode(b, y);
        uint64_t bx;
        assert_int_equal(cf_mcvarint_decode(a, an, &bx), an);
        assert_true(bx == x);
        /* memcmp order (shorter first on a tie) equals numeric order. */
        size_t m = an < bn ? an : bn;
        int c = memcmp(a, b, m);
        if (c == 0)
            c = (an > bn) - (an < bn);
        assert_int_equal(c < 0, x < y);
        assert_int_equal(c == 0, x == y);
    }
}

static void test_mcvarint__delta_key(void **state)
{
    (void)state;
    uint8_t k[CF_DELTA_KEY_MAX], want[32];
    size_t n = cf_delta_key_encode(k, 300, 10);
    size_t wn = cf_test_unhex("f1 3c 0a", want, sizeof(want));
    CF_ASSERT_BYTES(want, wn, k, n);
    /* 14.12: a DELETE of row 300 at a hybrid timestamp. */
    n = cf_delta_key_encode(k, 300, 0x60a24181e4000000ull);
    wn = cf_test_unhex("f1 3c ff 60 a2 41 81 e4 00 00 00", want, sizeof(want));
    CF_ASSERT_BYTES(want, wn, k, n);
    uint32_t row;
    uint64_t ts;
    size_t used;
    cf_error err;
    CF_ASSERT_OK(cf_delta_key_decode(k, n, &row, &ts, &used, &err), &err);
    assert_int_equal(row, 300);
    assert_true(ts == 0x60a24181e4000000ull);
    assert_int_equal(used, n);
    for (size_t i = 0; i < n; i++)
        CF_ASSERT_STATUS(cf_delta_key_decode(k, i, &row, &ts, &used, &err), CF_ECORRUPT, &err);
    /* A row ordinal beyond 32 bits is corrupt. */
    uint8_t big[CF_DELTA_KEY_MAX];
    size_t bn = cf_mcvarint_encode(big, 1ull << 32);
    bn += cf_mcvarint_encode(big + bn, 5);
    CF_ASSERT_STATUS(cf_delta_key_decode(big, bn, &row, &ts, &used, &err), CF_ECORRUPT, &err);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mcvarint__spec_examples),
        cmocka_unit_test(test_mcvarint__random_roundtrip_and_order),
        cmocka_unit_test(test_mcvarint__delta_key),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

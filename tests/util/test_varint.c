/* LEB128 varints (format §1.3): exact encodings, the 5/10-byte limits, the
 * dropped high bits of a 5th varint32 byte, overlong forms, truncation. */
#include "test_common.h"

#include <string.h>

#include "util/varint.h"

static void check_enc64(uint64_t v, const char *hex)
{
    uint8_t want[16], got[16];
    size_t wn = cf_test_unhex(hex, want, sizeof want);
    size_t n = cf_varint64_encode(got, v);
    CF_ASSERT_BYTES(got, n, want, wn);
    assert_int_equal(cf_varint64_len(v), wn);
    if (v <= UINT32_MAX) {
        n = cf_varint32_encode(got, (uint32_t)v);
        CF_ASSERT_BYTES(got, n, want, wn);
    }
}

static void test_varint__exact_encodings(void **state)
{
    check_enc64(0, "00");
    check_enc64(1, "01");
    check_enc64(127, "7f");
    check_enc64(128, "80 01");
    check_enc64(300, "ac 02");
    check_enc64(16383, "ff 7f");
    check_enc64(16384, "80 80 01");
    check_enc64(UINT32_MAX, "ff ff ff ff 0f");
    check_enc64((uint64_t)UINT32_MAX + 1, "80 80 80 80 10");
    check_enc64(UINT64_MAX, "ff ff ff ff ff ff ff ff ff 01");
}

/* Decode a 32-bit (bits 32) or 64-bit varint from an exact-size heap copy of
 * hex, so any over-read is an ASan error; *out keeps its value when the
 * decoder leaves it. */
static const uint8_t *dec(const char *hex, int bits, uint64_t *out, size_t *used)
{
    uint8_t tmp[32];
    size_t n = cf_test_unhex(hex, tmp, sizeof tmp);
    uint8_t *p = test_malloc(n ? n : 1);
    memcpy(p, tmp, n);
    const uint8_t *q;
    if (bits == 32) {
        uint32_t v = (uint32_t)*out;
        q = cf_varint32_decode(p, p + n, &v);
        *out = v;
    } else {
        q = cf_varint64_decode(p, p + n, out);
    }
    *used = q ? (size_t)(q - p) : 0;
    test_free(p);
    return q;
}

static const uint8_t *dec32(const char *hex, uint32_t *out, size_t *used)
{
    uint64_t w = *out;
    const uint8_t *q = dec(hex, 32, &w, used);
    *out = (uint32_t)w;
    return q;
}

static const uint8_t *dec64(const char *hex, uint64_t *out, size_t *used)
{
    return dec(hex, 64, out, used);
}

static void test_varint__decode_exact(void **state)
{
    uint32_t v = 0;
    uint64_t w = 0;
    size_t used;
    assert_non_null(dec32("ac 02 ff", &v, &used)); /* stops at the first byte < 0x80 */
    assert_int_equal(v, 300);
    assert_int_equal(used, 2);
    assert_non_null(dec32("ff ff ff ff 0f", &v, &used));
    assert_int_equal(v, UINT32_MAX);
    assert_int_equal(used, 5);
    assert_non_null(dec64("ff ff ff ff ff ff ff ff ff 01", &w, &used));
    assert_true(w == UINT64_MAX);
    assert_int_equal(used, 10);
}

static void test_varint__five_byte_limit(void **state)
{
    uint32_t v = 0;
    uint64_t w = 0;
    size_t used;
    /* A 5th byte that still continues: the varint32 is too long. */
    assert_null(dec32("80 80 80 80 80 00", &v, &used));
    assert_null(dec32("ff ff ff ff ff 01", &v, &used));
    /* Bits above 32 in the 5th byte are dropped, as Kudu's decoder does. */
    assert_non_null(dec32("ff ff ff ff 7f", &v, &used));
    assert_int_equal(v, UINT32_MAX);
    assert_non_null(dec32("80 80 80 80 70", &v, &used));
    assert_int_equal(v, 0);
    /* The same bytes are a fine varint64. */
    assert_non_null(dec64("80 80 80 80 80 00", &w, &used));
    assert_int_equal(used, 6);
    /* varint64 stops at 10 bytes. */
    assert_null(dec64("80 80 80 80 80 80 80 80 80 80 00", &w, &used));
}

static void test_varint__truncated(void **state)
{
    uint32_t v = 0x12345678;
    uint64_t w = 0;
    size_t used;
    assert_null(dec32("", &v, &used));
    assert_null(dec64("", &w, &used));
    assert_null(dec32("80", &v, &used));
    assert_null(dec32("ff ff ff ff", &v, &used));
    assert_null(dec64("ff ff ff ff ff ff ff ff ff", &w, &used));
    /* Every proper prefix of every encoding is rejected. */
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0x7a1));
    for (int i = 0; i < 2000; i++) {
        uint64_t x = cf_rng_next(&r) >> cf_rng_below(&r, 64);
        uint8_t buf[10];
        size_t n = cf_varint64_encode(buf, x);
        for (size_t k = 0; k < n; k++) {
            uint8_t *p = test_malloc(k ? k : 1);
            memcpy(p, buf, k);
            assert_null(cf_varint64_decode(p, p + k, &w));
            test_free(p);
        }
    }
    assert_int_equal(v, 0x12345678); /* failed decodes leave *out alone */
}

static void test_varint__overlong_accepted_within_limit(void **state)
{
    /* Kudu never writes non-minimal varints but its decoder reads them. */
    uint32_t v = 99;
    uint64_t w = 99;
    size_t used;
    assert_non_null(dec32("80 00", &v, &used));
    assert_int_equal(v, 0);
    assert_int_equal(used, 2);
    assert_non_null(dec32("81 80 80 80 00", &v, &used));
    assert_int_equal(v, 1);
    assert_int_equal(used, 5);
    assert_non_null(dec64("81 80 80 80 80 80 80 80 80 00", &w, &used));
    assert_int_equal(w, 1);
}

static void test_varint__random_round_trip(void **state)
{
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0x7a1));
    uint8_t buf[64];
    for (int i = 0; i < 100000; i++) {
        uint64_t x = cf_rng_next(&r) >> cf_rng_below(&r, 64);
        size_t n = cf_varint64_encode(buf, x);
        assert_int_equal(n, cf_varint64_len(x));
        uint64_t y;
        assert_ptr_equal(cf_varint64_decode(buf, buf + n, &y), buf + n);
        assert_true(x == y);
        uint32_t x32 = (uint32_t)x, y32;
        n = cf_varint32_encode(buf, x32);
        assert_true(n <= 5);
        assert_ptr_equal(cf_varint32_decode(buf, buf + n, &y32), buf + n);
        assert_int_equal(x32, y32);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_varint__exact_encodings),
        cmocka_unit_test(test_varint__decode_exact),
        cmocka_unit_test(test_varint__five_byte_limit),
        cmocka_unit_test(test_varint__truncated),
        cmocka_unit_test(test_varint__overlong_accepted_within_limit),
        cmocka_unit_test(test_varint__random_round_trip),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

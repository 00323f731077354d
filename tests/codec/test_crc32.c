/* cf_crc32 (codec/crc32.h) against zlib's crc32 and the check value: every
 * length up to 600 at every alignment mod 16 (the folding path starts at 128
 * bytes, folds 64 and then 16 at a time), continued CRCs, and buffers of
 * megabytes. */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/crc32.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint8_t rnd8(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint8_t)(rng >> 24);
}

static void test_crc32__check_value(void **state)
{
    (void)state;
    assert_int_equal(cf_crc32(0, "123456789", 9), 0xCBF43926u);
    assert_int_equal(cf_crc32(0, "", 0), 0);
    uint8_t zeros[256] = {0};
    assert_int_equal(cf_crc32(0, zeros, sizeof(zeros)), cf_crc32_zlib(0, zeros, sizeof(zeros)));
}

static void test_crc32__all_lengths(void **state)
{
    (void)state;
    uint8_t *buf = malloc(600 + 16);
    for (size_t i = 0; i < 616; i++)
        buf[i] = rnd8();
    for (size_t off = 0; off < 16; off++)
        for (size_t len = 0; len <= 600; len++) {
            uint32_t seed = len % 3 == 0 ? 0 : (uint32_t)rng;
            uint32_t want = cf_crc32_zlib(seed, buf + off, len);
            uint32_t got = cf_crc32(seed, buf + off, len);
            if (got != want) {
                fprintf(stderr, "off %zu len %zu seed %08x: %08x, zlib %08x\n", off, len, seed, got,
                        want);
                free(buf);
                fail();
            }
        }
    free(buf);
}

static void test_crc32__large_and_chained(void **state)
{
    (void)state;
    size_t n = (size_t)5 << 20;
    uint8_t *buf = malloc(n);
    for (size_t i = 0; i < n; i++)
        buf[i] = rnd8();
    uint32_t whole = cf_crc32(0, buf, n);
    assert_int_equal(whole, cf_crc32_zlib(0, buf, n));
    /* continuing across any split gives the CRC of the whole */
    size_t cuts[] = {1, 127, 128, 129, 4096, 1 << 20, n - 1};
    for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++)
        assert_int_equal(cf_crc32(cf_crc32(0, buf, cuts[i]), buf + cuts[i], n - cuts[i]), whole);
    /* a flipped bit anywhere changes it */
    buf[n / 3] ^= 0x10;
    assert_int_not_equal(cf_crc32(0, buf, n), whole);
    free(buf);
    printf("cf_crc32 implementation: %s\n", cf_crc32_impl());
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc32__check_value),
        cmocka_unit_test(test_crc32__all_lengths),
        cmocka_unit_test(test_crc32__large_and_chained),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* Kudu's CityHash64 variant: every test vector of format Appendix A. */
#include <string.h>

#include "test_common.h"

#include "bloom/cityhash.h"
#include "util/alloc.h"

static uint64_t hash_str(const char *s)
{
    return cf_cityhash64((const uint8_t *)s, strlen(s));
}

/* bytes 00 01 02 ... (n-1) */
static uint64_t hash_seq(size_t n)
{
    uint8_t buf[256];
    assert_true(n <= sizeof buf);
    for (size_t i = 0; i < n; i++)
        buf[i] = (uint8_t)i;
    return cf_cityhash64(buf, n);
}

static void test_cityhash__short_vectors(void **state)
{
    (void)state;
    assert_true(cf_cityhash64(NULL, 0) == 0xc47b6e9e3a970ed3ULL);
    assert_true(hash_str("") == 0xc47b6e9e3a970ed3ULL);
    assert_true(hash_str("a") == 0x235e57f972565b24ULL);
    assert_true(hash_str("abc") == 0x224ca0a599a6c2bfULL);
    assert_true(hash_str("kudu") == 0xe9acbb85bf356209ULL);
    static const uint8_t int32_one[4] = {0x80, 0x00, 0x00, 0x01};
    assert_true(cf_cityhash64(int32_one, 4) == 0xd7e089a4c738ad33ULL);
    assert_true(hash_str("hello world") == 0x4c55f5b5efce471cULL);
    assert_true(hash_str("0123456789abcdef") == 0x4f2c4bbf27ba62daULL);
}

static void test_cityhash__medium_and_large_vectors(void **state)
{
    (void)state;
    assert_true(hash_str("0123456789abcdefX") == 0xbc5a9f847806ec69ULL);
    assert_true(hash_seq(33) == 0xb8f6cbac6984655cULL);
    assert_true(hash_str("The quick brown fox jumps over the lazy dog") == 0xe152aa10da070864ULL);
}

static void test_cityhash__long_vectors(void **state)
{
    (void)state;
    assert_true(hash_seq(65) == 0x2412b7c806b9991eULL);
    assert_true(
        hash_str("The quick brown fox jumps over the lazy dog, twice: The quick brown fox!") ==
        0x394b81fb28a5585dULL);
    assert_true(hash_seq(200) == 0x47058938042640efULL);
}

/* Every length reads only its own bytes: each key sits at the very end of an
 * exact-size heap block, so ASan catches any read past it; and the hash
 * depends on every byte (flipping any one byte changes it). */
static void test_cityhash__all_lengths_in_bounds(void **state)
{
    (void)state;
    for (size_t n = 0; n <= 300; n++) {
        uint8_t *b = cf_malloc(n > 0 ? n : 1);
        assert_non_null(b);
        for (size_t i = 0; i < n; i++)
            b[i] = (uint8_t)(i * 31 + n);
        uint64_t h = cf_cityhash64(b, n);
        assert_true(cf_cityhash64(b, n) == h);
        for (size_t i = 0; i < n; i++) {
            b[i] ^= 0x01;
            assert_true(cf_cityhash64(b, n) != h);
            b[i] ^= 0x01;
        }
        cf_free(b);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cityhash__short_vectors),
        cmocka_unit_test(test_cityhash__medium_and_large_vectors),
        cmocka_unit_test(test_cityhash__long_vectors),
        cmocka_unit_test(test_cityhash__all_lengths_in_bounds),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

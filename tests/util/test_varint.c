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

/* hex decoded as a varint32 (bits 32) or a varint64: refused (NULL, *out left
 * alone), or the value and the bytes it used. */
typedef struct dec_case {
    const char *hex;
    int bits;
    bool ok;
    uint64_t value;
    size_t used;
} dec_case;

static const dec_case dec_cases[] = {
    /* exact forms; decoding stops at the first byte < 0x80 */
    {"ac 02 ff", 32, true, 300, 2},
    {"ff ff ff ff 0f", 32, true, UINT32_MAX, 5},
    {"ff ff ff ff ff ff ff ff ff 01", 64, true, UINT64_MAX, 10},
    /* a 5th byte that still continues: the varint32 is too long */
    {"80 80 80 80 80 00", 32, false, 0, 0},
    {"ff ff ff ff ff 01", 32, false, 0, 0},
    /* bits above 32 in the 5th byte are dropped, as Kudu's decoder does */
    {"ff ff ff ff 7f", 32, true, UINT32_MAX, 5},
    {"80 80 80 80 70", 32, true, 0, 5},
    /* the same bytes are a fine varint64, which stops at 10 bytes */
    {"80 80 80 80 80 00", 64, true, 0, 6},
    {"80 80 80 80 80 80 80 80 80 80 00", 64, false, 0, 0},
    /* truncated */
    {"", 32, false, 0, 0},
    {"", 64, false, 0, 0},
    {"80", 32, false, 0, 0},
    {"ff ff ff ff", 32, false, 0, 0},
    {"ff ff ff ff ff ff ff ff ff", 64, false, 0, 0},
    /* overlong forms within the limit: Kudu never writes them, its decoder reads them */
    {"80 00", 32, true, 0, 2},
    {"81 80 80 80 00", 32, true, 1, 5},
    {"81 80 80 80 80 80 80 80 80 00", 64, true, 1, 10},
};

static void test_varint__decode_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof dec_cases / sizeof dec_cases[0]; i++) {
        const dec_case *c = &dec_cases[i];
        uint64_t out = 0x12345678;
        size_t used;
        const uint8_t *q = dec(c->hex, c->bits, &out, &used);
        if (!c->ok) {
            if (q != NULL)
                fail_msg("\"%s\" (%d bits) decoded", c->hex, c->bits);
            assert_int_equal(out, 0x12345678); /* a failed decode leaves *out alone */
            continue;
        }
        if (q == NULL)
            fail_msg("\"%s\" (%d bits) refused", c->hex, c->bits);
        assert_true(out == c->value);
        assert_int_equal(used, c->used);
    }
}

/* Every proper prefix of every encoding is rejected. */
static void test_varint__truncated(void **state)
{
    (void)state;
    uint64_t w = 0;
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
        cmocka_unit_test(test_varint__decode_cases),
        cmocka_unit_test(test_varint__truncated),
        cmocka_unit_test(test_varint__random_round_trip),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* CRC-32C (format §4): the check value, the worked examples of §14, and every
 * implementation (portable, hardware with pclmul merge, hardware with software
 * merge, AVX-512 and AVX2 folding, AVX2 folding mixed with crc32 streams)
 * against a bit-at-a-time reference over all small lengths, random
 * alignments, the interleaved-path and mixed-path boundaries and large
 * buffers. */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "codec/crc32c.h"
#if defined(CF_HAVE_ISAL)
#include "codec/isal/crc32c_isal.h"
#define ISAL_STATE "tested"
#else
#define ISAL_STATE "not built"
#endif

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);

/* Straight from the definition: reflected, preset and final XOR all ones. */
static uint32_t crc_ref(uint32_t crc, const uint8_t *p, size_t len)
{
    uint32_t reg = ~crc;
    for (size_t i = 0; i < len; i++) {
        reg ^= p[i];
        for (int k = 0; k < 8; k++)
            reg = (reg >> 1) ^ ((reg & 1u) ? 0x82F63B78u : 0u);
    }
    return ~reg;
}

static const struct {
    const char *name;
    crc_fn fn;
} impls[] = {
    {"extend", cf_crc32c_extend}, {"portable", cf_crc32c_portable},
    {"hw", cf_crc32c_hw},         {"hw_nopclmul", cf_crc32c_hw_nopclmul},
    {"avx512", cf_crc32c_avx512}, {"avx2", cf_crc32c_avx2},
    {"mix", cf_crc32c_mix},
#if defined(CF_HAVE_ISAL)
    {"isal", cf_crc32c_isal},
#endif
};
#define NIMPLS (sizeof impls / sizeof impls[0])

static void fill_random(cf_rng *r, uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)cf_rng_next(r);
}

/* Every implementation gives want for p[0..len) from start (mis: the
 * misalignment, for the message). */
static void check_impls(uint32_t start, const uint8_t *p, size_t len, size_t mis, uint32_t want)
{
    for (size_t i = 0; i < NIMPLS; i++) {
        uint32_t got = impls[i].fn(start, p, len);
        if (got != want)
            fail_msg("%s: len %zu misalign %zu: got %08x want %08x", impls[i].name, len, mis, got,
                     want);
    }
}

/* check_impls from a random start value, want from the bitwise reference or
 * (for lengths where it is too slow) the portable table code. */
static void check_from_random_start(cf_rng *r, bool portable, const uint8_t *p, size_t len,
                                    size_t mis)
{
    uint32_t start = (uint32_t)cf_rng_next(r);
    uint32_t want = portable ? cf_crc32c_portable(start, p, len) : crc_ref(start, p, len);
    check_impls(start, p, len, mis, want);
}

/* n random bytes (malloc'd). */
static uint8_t *random_buf(cf_rng *r, size_t n)
{
    uint8_t *p = malloc(n);
    assert_non_null(p);
    fill_random(r, p, n);
    return p;
}

static void test_crc32c__check_value(void **state)
{
    assert_int_equal(cf_crc32c("123456789", 9), 0xE3069283u);
    for (size_t i = 0; i < NIMPLS; i++)
        assert_int_equal(impls[i].fn(0, "123456789", 9), 0xE3069283u);
    assert_int_equal(crc_ref(0, (const uint8_t *)"123456789", 9), 0xE3069283u);
    assert_int_equal(cf_crc32c("", 0), 0);
    assert_int_equal(cf_crc32c(NULL, 0), 0);
    assert_non_null(cf_crc32c_impl());
    print_message(
        "# crc32c implementation: %s (avx512 folding %s, avx2 folding %s, ISA-L %s)\n",
        cf_crc32c_impl(), cf_crc32c_avx512_available() ? "tested" : "not on this CPU: falls back",
        cf_crc32c_avx2_available() ? "tested" : "not on this CPU: falls back", ISAL_STATE);
}

static void check_hex(const char *hex, uint32_t want)
{
    uint8_t buf[64];
    size_t n = cf_test_unhex(hex, buf, sizeof buf);
    assert_int_equal(cf_crc32c(buf, n), want);
    for (size_t i = 0; i < NIMPLS; i++)
        assert_int_equal(impls[i].fn(0, buf, n), want);
}

/* The stored fixed32 LE bytes of each example, read as a number. */
static void test_crc32c__format_examples(void **state)
{
    /* §14.1 header: magic + H = 0 -> stored 02 94 3a d3 */
    check_hex("6b 75 64 75 63 66 6c 32 00 00 00 00", 0xd33a9402u);
    /* §14.2 data block (20 bytes) -> be e9 2a 24 */
    check_hex("03 00 00 00 00 00 00 00 01 00 00 00 02 00 00 00 03 00 00 00", 0x242ae9beu);
    /* §14.2 positional index leaf (19 bytes) -> 33 c9 f2 19 */
    check_hex("04 00 00 00 00 10 18 00 00 00 00 08 01 10 00 04 00 00 00", 0x19f2c933u);
    /* §14.2 footer PB + magic + F (32 bytes) -> 1f 6b a4 58 */
    check_hex("08 05 10 01 18 03 22 06 0a 04 08 28 10 17 30 01 40 00 50 01"
              " 6b 75 64 75 63 66 6c 32 14 00 00 00",
              0x58a46b1fu);
    /* §14.11 LZ4-wrapped block -> 05 6a ba 30 */
    check_hex("14 00 00 00 22 03 00 01 00 c0 01 00 00 00 02 00 00 00 03 00 00 00", 0x30ba6a05u);
    /* §14.11 raw-wrapped block -> cf b0 58 7b */
    check_hex("14 00 00 00 03 00 00 00 00 00 00 00 01 00 00 00 02 00 00 00 03 00 00 00",
              0x7b58b0cfu);
}

/* Every length 0..1024 at a random misalignment and start value. */
static void test_crc32c__all_small_lengths(void **state)
{
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0xc5c));
    uint8_t *buf = malloc(1024 + 64);
    assert_non_null(buf);
    for (int round = 0; round < 4; round++) {
        for (size_t len = 0; len <= 1024; len++) {
            size_t mis = (size_t)cf_rng_below(&r, 64);
            uint8_t *p = buf + mis;
            fill_random(&r, p, len);
            uint32_t start = round == 0 ? 0 : (uint32_t)cf_rng_next(&r);
            uint32_t want = crc_ref(start, p, len);
            check_impls(start, p, len, mis, want);
        }
    }
    free(buf);
}

/* Lengths straddling the interleaved rounds (3 * 256 and 3 * 8192 bytes per
 * round, after up to 7 alignment bytes), so every merge path runs with every
 * kind of tail. */
static void test_crc32c__interleave_boundaries(void **state)
{
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0xc5c));
    const size_t cap = 5 * 3 * 8192 + 4096;
    uint8_t *buf = random_buf(&r, cap + 16);
    const size_t bases[] = {3 * 256,      2 * 3 * 256,        3 * 8192,
                            2 * 3 * 8192, 3 * 8192 + 3 * 256, 5 * 3 * 8192};
    for (size_t b = 0; b < sizeof bases / sizeof bases[0]; b++) {
        for (long d = -17; d <= 17; d++) {
            for (size_t mis = 0; mis < 8; mis++) {
                size_t len = (size_t)((long)bases[b] + d);
                uint8_t *p = buf + mis;
                check_from_random_start(&r, false, p, len, mis);
            }
        }
    }
    free(buf);
}

/* The folding paths (buffers of 256 and 128 bytes and more) at every length
 * of their first few rounds: 256/128-byte rounds, then 64/32-byte blocks,
 * then the tail bytes, each at a random misalignment and start value. */
static void test_crc32c__fold_lengths(void **state)
{
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0xc5c));
    const size_t lo = 128, hi = 4 * 256 + 64;
    uint8_t *buf = random_buf(&r, hi + 64);
    for (size_t len = lo; len <= hi; len++) {
        size_t mis = (size_t)cf_rng_below(&r, 64);
        check_from_random_start(&r, false, buf + mis, len, mis);
    }
    free(buf);
}

/* The mixed path (2 KiB and up): n rounds of 128 folded + 3 x S streamed
 * bytes, merged, then a tail of under one round through the folding or the
 * crc32 loop. Every length over its first rounds (so every tail, and round
 * counts whose merge constant has one to several bits), and lengths around
 * the 256 KiB blocks it mostly sees, with every misalignment mod 32. */
static void test_crc32c__mix_lengths(void **state)
{
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0xc5c));
    const size_t hi = 6000, big = (size_t)256 << 10;
    uint8_t *buf = random_buf(&r, big + 1024);
    for (size_t len = 1900; len <= hi; len++) {
        size_t mis = (size_t)cf_rng_below(&r, 64);
        uint32_t start = (uint32_t)cf_rng_next(&r);
        uint32_t want = crc_ref(start, buf + mis, len);
        uint32_t got = cf_crc32c_mix(start, buf + mis, len);
        if (got != want)
            fail_msg("mix: len %zu misalign %zu: got %08x want %08x", len, mis, got, want);
    }
    assert_int_equal(crc_ref(0, buf, big), cf_crc32c_portable(0, buf, big));
    for (long d = -300; d <= 300; d++) {
        size_t len = (size_t)((long)big + d), mis = (size_t)(d & 31) + 32;
        check_from_random_start(&r, true, buf + mis, len, mis);
    }
    free(buf);
}

static void test_crc32c__large_random(void **state)
{
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0xc5c));
    const size_t cap = (size_t)9 << 20;
    uint8_t *buf = random_buf(&r, cap + 64);
    for (int iter = 0; iter < 24; iter++) {
        size_t len = iter == 0 ? cap : (size_t)cf_rng_below(&r, cap);
        size_t mis = (size_t)cf_rng_below(&r, 64);
        uint32_t start = (uint32_t)cf_rng_next(&r);
        uint32_t want = cf_crc32c_portable(start, buf + mis, len);
        if (iter < 3) /* the reference is slow; anchor the portable path too */
            assert_int_equal(crc_ref(start, buf + mis, len), want);
        check_impls(start, buf + mis, len, mis, want);
    }
    free(buf);
}

/* Zeros and all-ones buffers exercise the merge with degenerate registers. */
static void test_crc32c__constant_buffers(void **state)
{
    const size_t len = 3 * 8192 * 3 + 1000;
    uint8_t *buf = malloc(len);
    assert_non_null(buf);
    for (int v = 0; v < 2; v++) {
        memset(buf, v ? 0xff : 0x00, len);
        for (size_t n = len - 40; n <= len; n++) {
            uint32_t want = crc_ref(0, buf, n);
            for (size_t i = 0; i < NIMPLS; i++)
                assert_int_equal(impls[i].fn(0, buf, n), want);
            /* start register ~0 makes the internal register 0 */
            want = crc_ref(0xffffffffu, buf, n);
            for (size_t i = 0; i < NIMPLS; i++)
                assert_int_equal(impls[i].fn(0xffffffffu, buf, n), want);
        }
    }
    free(buf);
}

static void test_crc32c__extend_chains(void **state)
{
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0xc5c));
    const size_t cap = 200000;
    uint8_t *buf = random_buf(&r, cap);
    for (int iter = 0; iter < 300; iter++) {
        size_t len = (size_t)cf_rng_below(&r, cap + 1);
        uint32_t whole = cf_crc32c(buf, len);
        /* Cut into random pieces, each fed to a random implementation. */
        uint32_t crc = 0;
        size_t off = 0;
        while (off < len) {
            size_t piece = (size_t)cf_rng_below(&r, len - off + 1);
            if (cf_rng_below(&r, 4) == 0)
                piece = (size_t)cf_rng_below(&r, 16);
            if (piece > len - off)
                piece = len - off;
            crc = impls[cf_rng_below(&r, NIMPLS)].fn(crc, buf + off, piece);
            off += piece;
        }
        assert_int_equal(crc, whole);
    }
    free(buf);
}

static void test_crc32c__combine(void **state)
{
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0xc5c));
    const size_t cap = 100000;
    uint8_t *buf = random_buf(&r, cap);
    for (int iter = 0; iter < 500; iter++) {
        size_t len = (size_t)cf_rng_below(&r, cap + 1);
        size_t cut = (size_t)cf_rng_below(&r, len + 1);
        if (iter < 20)
            cut = iter % 2 ? 0 : len; /* empty halves */
        uint32_t a = cf_crc32c(buf, cut), b = cf_crc32c(buf + cut, len - cut);
        assert_int_equal(cf_crc32c_combine(a, b, len - cut), cf_crc32c(buf, len));
    }
    /* A huge zero run: crc of 2^40 zero bytes after "123456789", built by
     * doubling with combine, equals combining the check value once. */
    uint32_t z = cf_crc32c("\0", 1); /* one zero byte */
    uint64_t zl = 1;
    for (int k = 0; k < 40; k++, zl *= 2)
        z = cf_crc32c_combine(z, z, zl);
    uint32_t lhs = cf_crc32c_combine(0xE3069283u, z, zl);
    /* Same thing built the other way round: (check || zeros) by extending
     * in two halves of 2^39 zeros. */
    uint32_t h = cf_crc32c("\0", 1);
    uint64_t hl = 1;
    for (int k = 0; k < 39; k++, hl *= 2)
        h = cf_crc32c_combine(h, h, hl);
    uint32_t rhs = cf_crc32c_combine(cf_crc32c_combine(0xE3069283u, h, hl), h, hl);
    assert_int_equal(lhs, rhs);
    free(buf);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc32c__check_value),
        cmocka_unit_test(test_crc32c__format_examples),
        cmocka_unit_test(test_crc32c__all_small_lengths),
        cmocka_unit_test(test_crc32c__interleave_boundaries),
        cmocka_unit_test(test_crc32c__fold_lengths),
        cmocka_unit_test(test_crc32c__mix_lengths),
        cmocka_unit_test(test_crc32c__large_random),
        cmocka_unit_test(test_crc32c__constant_buffers),
        cmocka_unit_test(test_crc32c__extend_chains),
        cmocka_unit_test(test_crc32c__combine),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

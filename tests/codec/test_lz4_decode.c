/* Our LZ4 block decoder (cf_lz4_decode_exact, lz4.c: bitshuffle chunks and LZ4 blocks)
 * against liblz4's LZ4_decompress_safe: on valid blocks of every shape and on
 * mutated ones, both must accept the same inputs and produce the same bytes. */
#include "test_common.h"

#include <lz4.h>
#include <stdlib.h>
#include <string.h>

#include "codec/bitshuffle.h"

enum { MAX_RAW = 9000 };

static void fill(cf_rng *r, uint8_t *p, size_t n, int kind)
{
    switch (kind) {
    case 0: /* random: incompressible */
        for (size_t i = 0; i < n; i++)
            p[i] = (uint8_t)cf_rng_next(r);
        break;
    case 1: /* long runs of few values: bitshuffled planes look like this */
        for (size_t i = 0; i < n;) {
            uint8_t v = cf_rng_below(r, 3) ? 0 : (uint8_t)cf_rng_next(r);
            size_t run = 1 + cf_rng_below(r, 600);
            for (size_t j = 0; j < run && i < n; j++)
                p[i++] = v;
        }
        break;
    case 2: { /* short periodic patterns: matches at offsets 1..32 */
        size_t period = 1 + cf_rng_below(r, 32);
        for (size_t i = 0; i < n; i++)
            p[i] = i < period ? (uint8_t)cf_rng_next(r) : p[i - period];
        for (size_t k = 0; k < n / 200; k++)
            p[cf_rng_below(r, n)] ^= 1;
        break;
    }
    case 4: { /* sorted little-endian int64s (PLAIN int64 blocks): one literal
               * byte, then a 7-byte match at offset 8, per value */
        uint64_t x = cf_rng_next(r) >> 8;
        for (size_t i = 0; i < n; i++) {
            if (i % 8 == 0)
                x += 2 + cf_rng_below(r, 3);
            p[i] = (uint8_t)(x >> (8 * (i % 8)));
        }
        break;
    }
    case 5: /* runs of short periods 1..16 with long matches (the pattern path) */
        for (size_t i = 0; i < n;) {
            size_t period = 1 + cf_rng_below(r, 16), run = 1 + cf_rng_below(r, 300);
            for (size_t j = 0; j < run && i < n; j++, i++)
                p[i] = j < period ? (uint8_t)cf_rng_next(r) : p[i - period];
        }
        break;
    default: /* text-like: small alphabet */
        for (size_t i = 0; i < n; i++)
            p[i] = (uint8_t)('a' + cf_rng_below(r, 4 + (unsigned)cf_rng_below(r, 20)));
    }
}

static void check_same(const uint8_t *src, size_t src_len, size_t dst_len)
{
    static uint8_t ours[MAX_RAW + CF_BSHUF_LZ4_SLACK], theirs[MAX_RAW];
    int want = LZ4_decompress_safe((const char *)src, (char *)theirs, (int)src_len, (int)dst_len);
    bool got = cf_lz4_decode_exact(src, src_len, ours, dst_len);
    bool want_ok = want >= 0 && (size_t)want == dst_len;
    if (got != want_ok)
        fail_msg("our decoder says %d, liblz4 returned %d for %zu -> %zu bytes", got, want, src_len,
                 dst_len);
    if (got)
        assert_memory_equal(ours, theirs, dst_len);
}

static void test_lz4_decode__valid_blocks_match_liblz4(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(7));
    static uint8_t raw[MAX_RAW], comp[LZ4_COMPRESSBOUND(MAX_RAW)];
    for (int it = 0; it < 20000; it++) {
        size_t n = cf_rng_below(&r, 8) == 0 ? cf_rng_below(&r, 40) : 1 + cf_rng_below(&r, 8192);
        fill(&r, raw, n, (int)cf_rng_below(&r, 7));
        int c = LZ4_compress_default((const char *)raw, (char *)comp, (int)n, (int)sizeof comp);
        assert_true(c > 0 || n == 0);
        static uint8_t out[MAX_RAW + CF_BSHUF_LZ4_SLACK];
        if (!cf_lz4_decode_exact(comp, (size_t)c, out, n))
            fail_msg("valid block of %zu bytes (%d compressed) rejected", n, c);
        assert_memory_equal(out, raw, n);
        check_same(comp, (size_t)c, n);
        /* wrong output sizes must be refused by both */
        if (n > 0)
            check_same(comp, (size_t)c, n - 1);
        check_same(comp, (size_t)c, n + 1);
    }
}

static void test_lz4_decode__mutations_match_liblz4(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(7) + 1);
    static uint8_t raw[MAX_RAW], comp[LZ4_COMPRESSBOUND(MAX_RAW)];
    for (int it = 0; it < 20000; it++) {
        size_t n = 1 + cf_rng_below(&r, 4096);
        fill(&r, raw, n, (int)cf_rng_below(&r, 7));
        int c = LZ4_compress_default((const char *)raw, (char *)comp, (int)n, (int)sizeof comp);
        size_t len = (size_t)c;
        int flips = 1 + (int)cf_rng_below(&r, 3);
        for (int f = 0; f < flips; f++)
            comp[cf_rng_below(&r, len)] ^= (uint8_t)(1u << cf_rng_below(&r, 8));
        if (cf_rng_below(&r, 4) == 0)
            len = cf_rng_below(&r, len + 1); /* truncate */
        check_same(comp, len, n);
    }
}

/* Empty output: liblz4 takes only the block "00" (fuzz_lz4_diff found our
 * decoder accepting "02": the last token's match bits are ignored elsewhere). */
static void test_lz4_decode__empty_output(void **state)
{
    (void)state;
    static const uint8_t blocks[][2] = {{0x00, 0}, {0x02, 0}, {0x0f, 0}, {0x10, 'a'}, {0x00, 0x00}};
    static const size_t lens[] = {1, 1, 1, 2, 2, 0};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
        check_same(blocks[i < 5 ? i : 0], lens[i], 0);
    uint8_t out[CF_BSHUF_LZ4_SLACK];
    assert_true(cf_lz4_decode_exact(blocks[0], 1, out, 0));
    assert_false(cf_lz4_decode_exact(blocks[1], 1, out, 0));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lz4_decode__valid_blocks_match_liblz4),
        cmocka_unit_test(test_lz4_decode__mutations_match_liblz4),
        cmocka_unit_test(test_lz4_decode__empty_output),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* Our LZ4 block decoder (cf_lz4_decode_exact, lz4.c: bitshuffle chunks and LZ4 blocks)
 * against liblz4's LZ4_decompress_safe: on valid blocks of every shape and on
 * mutated ones, both must accept the same inputs and produce the same bytes. */
#include "test_common.h"

#include <lz4.h>
#include <stdlib.h>
#include <string.h>

#include "codec/bitshuffle.h"
#include "codec/lz4.h"
#include "support_decode.h"

enum { MAX_RAW = DECODE_MAX_RAW };

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

static size_t compress(const uint8_t *raw, size_t n, uint8_t *comp, size_t cap)
{
    int c = LZ4_compress_default((const char *)raw, (char *)comp, (int)n, (int)cap);
    assert_true(c > 0 || n == 0);
    return (size_t)c;
}

static const decode_pair lz4 = {"liblz4", compress, cf_lz4_decode_exact, CF_BSHUF_LZ4_SLACK,
                                check_same};

static void test_lz4_decode__valid_blocks_match_liblz4(void **state)
{
    (void)state;
    decode_check_impl(cf_lz4_impl());
    decode_sweep_valid(&lz4, cf_test_seed(7));
}

static void test_lz4_decode__mutations_match_liblz4(void **state)
{
    (void)state;
    decode_sweep_mutations(&lz4, cf_test_seed(7) + 1);
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

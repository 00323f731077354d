/* Our snappy decoder (cf_snappy_decode_exact, snappy.c: SNAPPY CFile blocks and
 * Parquet pages) against libsnappy's snappy_uncompress: on valid payloads of
 * every shape, on mutated ones and on payloads whose length lies, both must
 * accept the same inputs and produce the same bytes. */
#include "test_common.h"

#include <snappy-c.h>
#include <stdlib.h>
#include <string.h>

#include "codec/compress.h"
#include "codec/snappy.h"
#include "support_decode.h"

enum { MAX_RAW = DECODE_MAX_RAW };

/* Both decoders on src for dst_len bytes: the same verdict and bytes. Ours
 * writes into a buffer exactly dst_len long (ASan sees any store past it). */
static void check_same(const uint8_t *src, size_t src_len, size_t dst_len)
{
    static uint8_t theirs[MAX_RAW + 1];
    uint8_t *ours = malloc(dst_len ? dst_len : 1);
    assert_non_null(ours);
    size_t want_len = 0, out_len = dst_len;
    bool want_ok =
        snappy_uncompressed_length((const char *)src, src_len, &want_len) == SNAPPY_OK &&
        want_len == dst_len &&
        snappy_uncompress((const char *)src, src_len, (char *)theirs, &out_len) == SNAPPY_OK &&
        out_len == dst_len;
    bool got = cf_snappy_decode_exact(src, src_len, ours, dst_len);
    if (got != want_ok)
        fail_msg("our decoder says %d, libsnappy %d for %zu -> %zu bytes", got, want_ok, src_len,
                 dst_len);
    if (got)
        assert_memory_equal(ours, theirs, dst_len);
    free(ours);
}

static size_t compress(const uint8_t *raw, size_t n, uint8_t *comp, size_t cap)
{
    size_t c = cap;
    assert_int_equal(snappy_compress((const char *)raw, n, (char *)comp, &c), SNAPPY_OK);
    return c;
}

static const decode_pair snappy = {"libsnappy", compress, cf_snappy_decode_exact, 0, check_same};

static void test_snappy_decode__valid_payloads_match_libsnappy(void **state)
{
    (void)state;
    decode_check_impl(cf_snappy_impl());
    decode_sweep_valid(&snappy, cf_test_seed(11));
}

static void test_snappy_decode__mutations_match_libsnappy(void **state)
{
    (void)state;
    decode_sweep_mutations(&snappy, cf_test_seed(11) + 1);
}

/* Hand-made payloads for what libsnappy's compressor never writes: copies at
 * offset 0 or before the start, a payload that claims more or fewer bytes
 * than its elements make (a page header that lies about its uncompressed
 * size), trailing bytes, 4-byte offsets, long-literal length bytes. */
static void test_snappy_decode__edges(void **state)
{
    (void)state;
    static const struct {
        uint8_t bytes[24];
        size_t len, out;
        bool ok;
    } cases[] = {
        {{0x00}, 1, 0, true},                                          /* empty */
        {{0x00, 0x00}, 2, 0, false},                                   /* trailing tag */
        {{0x80, 0x00}, 2, 0, true},                                    /* a 2-byte zero length */
        {{0x01, 0x00, 'a'}, 3, 1, true},                               /* one literal */
        {{0x02, 0x00, 'a'}, 3, 2, false},                              /* claims 2, makes 1 */
        {{0x01, 0x00, 'a'}, 3, 2, false},                              /* a header saying 2 */
        {{0x05, 0x00, 'a', 0x01, 0x01}, 5, 5, true},                   /* copy-1 at offset 1 */
        {{0x05, 0x00, 'a', 0x01, 0x00}, 5, 5, false},                  /* offset 0 */
        {{0x05, 0x00, 'a', 0x01, 0x02}, 5, 5, false},                  /* before the start */
        {{0x05, 0x00, 'a', 0x01}, 4, 5, false},                        /* truncated copy */
        {{0x05, 0x00, 'a', 0x0e, 0x01, 0x00}, 6, 5, true},             /* copy-2 */
        {{0x05, 0x00, 'a', 0x0f, 0x01, 0x00, 0x00, 0x00}, 8, 5, true}, /* copy-4 */
        {{0x05, 0x00, 'a', 0x0f, 0x01, 0x00, 0x00}, 7, 5, false},      /* truncated copy-4 */
        {{0x02, 0xf0, 0x01, 'a', 'b'}, 5, 2, true},                    /* literal, 1 length byte */
        {{0x02, 0xfc, 0x01, 0x00, 0x00, 0x00, 'a', 'b'}, 8, 2, true},  /* 4 length bytes */
        {{0x02, 0xfc, 0xff, 0xff, 0xff, 0xff, 'a', 'b'}, 8, 2, false}, /* 2^32 bytes */
        {{0x03, 0x08, 'a', 'b', 'c'}, 4, 3, false},                    /* literal past the input */
        {{0xff, 0xff, 0xff, 0xff, 0x0f}, 5, 0xffffffffu, false},       /* 2^32 - 1 claimed */
        {{0xff, 0xff, 0xff, 0xff, 0x1f}, 5, 0, false},                 /* more than 32 bits */
        {{0xff, 0xff, 0xff, 0xff, 0xff, 0x00}, 6, 0, false},           /* a 6-byte varint */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t out[8];
        size_t out_len = cases[i].out;
        bool got = out_len <= sizeof out &&
                   cf_snappy_decode_exact(cases[i].bytes, cases[i].len, out, out_len);
        if (got != cases[i].ok)
            fail_msg("case %zu: ours says %d, expected %d", i, got, cases[i].ok);
        if (out_len <= MAX_RAW)
            check_same(cases[i].bytes, cases[i].len, out_len);
    }
}

/* The block codec: a payload whose length is not the block's is damage. */
static void test_snappy_decode__codec_refuses_lying_length(void **state)
{
    (void)state;
    static uint8_t raw[4096], comp[8192], out[4097];
    for (size_t i = 0; i < sizeof raw; i++)
        raw[i] = (uint8_t)((i / 8) >> (8 * (i % 8)));
    size_t c = sizeof comp;
    assert_int_equal(snappy_compress((const char *)raw, sizeof raw, (char *)comp, &c), SNAPPY_OK);
    cf_error err;
    assert_int_equal(cf_codec_decompress(CF_COMP_SNAPPY, comp, c, out, sizeof raw, &err), CF_OK);
    assert_memory_equal(out, raw, sizeof raw);
    assert_int_equal(cf_codec_decompress(CF_COMP_SNAPPY, comp, c, out, sizeof raw + 1, &err),
                     CF_ECORRUPT);
    assert_int_equal(cf_codec_decompress(CF_COMP_SNAPPY, comp, c, out, sizeof raw - 1, &err),
                     CF_ECORRUPT);
    comp[1] ^= 0x80; /* the first tag: damage inside */
    cf_status st = cf_codec_decompress(CF_COMP_SNAPPY, comp, c, out, sizeof raw, &err);
    assert_int_equal(st, CF_ECORRUPT);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_snappy_decode__valid_payloads_match_libsnappy),
        cmocka_unit_test(test_snappy_decode__mutations_match_libsnappy),
        cmocka_unit_test(test_snappy_decode__edges),
        cmocka_unit_test(test_snappy_decode__codec_refuses_lying_length),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

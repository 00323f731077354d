/* bitshuffle transpose (format Appendix B) and its LZ4 framing (format §8.5.2):
 * the appendix examples, a bit-by-bit reference against the portable and SIMD
 * code, round trips, multi-chunk payloads and corrupt payloads. */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include <lz4.h>

#include "codec/bitshuffle.h"
#include "codec/bitshuffle_impl.h"
#include "util/buf.h"
#include "util/endian.h"

static const size_t sizes[] = {1, 2, 4, 8, 16};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Appendix B, literally: bit (8j + b) * n + i of Y is bit b of byte j of element i. */
static void reference(const uint8_t *x, uint8_t *y, size_t n, size_t s)
{
    memset(y, 0, n * s);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < s; j++)
            for (unsigned b = 0; b < 8; b++)
                if ((x[i * s + j] >> b) & 1) {
                    size_t q = (8 * j + b) * n + i;
                    y[q / 8] |= (uint8_t)(1u << (q % 8));
                }
}

static void fill_random(cf_rng *r, uint8_t *p, size_t len)
{
    int mode = (int)cf_rng_below(r, 3);
    for (size_t i = 0; i < len; i++) {
        uint64_t x = cf_rng_next(r);
        p[i] = mode == 0 ? (uint8_t)x : mode == 1 ? (uint8_t)(x & 0x11) : (uint8_t)(x % 3 == 0);
    }
}

static void test_bitshuffle__appendix_b(void **state)
{
    (void)state;
    uint8_t y[32], want[32] = {0x15, 0x06, 0x18};
    const uint32_t v32[8] = {1, 2, 3, 4, 5, 0, 0, 0};
    uint8_t x[32];
    for (int i = 0; i < 8; i++)
        cf_store_le32(x + 4 * i, v32[i]);
    cf_bitshuffle(x, y, 8, 4);
    CF_ASSERT_BYTES(y, 32, want, 32);
    cf_bitshuffle_portable(x, y, 8, 4);
    CF_ASSERT_BYTES(y, 32, want, 32);

    const uint8_t v8[8] = {0, 1, 0, 0, 0, 0, 0, 0};
    const uint8_t want8[8] = {0x02};
    cf_bitshuffle(v8, y, 8, 1);
    CF_ASSERT_BYTES(y, 8, want8, 8);
}

static void test_bitshuffle__chunk_elems(void **state)
{
    (void)state;
    assert_int_equal(cf_bshuf_chunk_elems(1), 8192);
    assert_int_equal(cf_bshuf_chunk_elems(2), 4096);
    assert_int_equal(cf_bshuf_chunk_elems(4), 2048);
    assert_int_equal(cf_bshuf_chunk_elems(8), 1024);
    assert_int_equal(cf_bshuf_chunk_elems(16), 512);
    assert_int_equal(cf_bshuf_chunk_elems(3), 2728);
    assert_int_equal(cf_bshuf_chunk_elems(64), 128);
}

#ifdef CF_BITSHUFFLE_X86
typedef void (*xpose_fn)(const void *in, void *out, size_t n, size_t elem_size);

/* A SIMD transpose and its inverse called directly for n = 8 .. maxn, with odd
 * element sizes too (they fall back to the portable code): the transpose is the
 * reference's, and the inverse gives x back and writes nothing past its end. */
static void check_direct(cf_rng *r, xpose_fn shuffle, xpose_fn unshuffle, size_t maxn, uint8_t *x,
                         uint8_t *ref, uint8_t *a, uint8_t *back)
{
    const size_t odd[] = {3, 5, 12, 24};
    for (size_t si = 0; si < NSIZES + 4; si++) {
        size_t s = si < NSIZES ? sizes[si] : odd[si - NSIZES];
        for (size_t n = 8; n <= maxn; n += 8) {
            fill_random(r, x, n * s);
            reference(x, ref, n, s);
            shuffle(x, a, n, s);
            CF_ASSERT_BYTES(a, n * s, ref, n * s);
            memset(back, 0xa5, n * s + 16);
            unshuffle(a, back, n, s);
            CF_ASSERT_BYTES(back, n * s, x, n * s);
            for (size_t i = 0; i < 16; i++) /* nothing written past the end */
                assert_int_equal(back[n * s + i], 0xa5);
        }
    }
}
#endif

/* Portable, dispatched (SIMD when the CPU has it) and the reference agree for
 * every element size and n = 8 .. 4104, and every transpose inverts. */
static void test_bitshuffle__impls_agree(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(1));
    print_message("# bitshuffle implementation: %s\n", cf_bitshuffle_impl());
    const size_t maxn = 4104;
    uint8_t *x = malloc(maxn * 24), *ref = malloc(maxn * 24), *a = malloc(maxn * 24),
            *b = malloc(maxn * 24), *back = malloc(maxn * 24 + 16);
    for (size_t si = 0; si < NSIZES; si++) {
        size_t s = sizes[si];
        for (size_t n = 8; n <= maxn; n += 8) {
            fill_random(&r, x, n * s);
            cf_bitshuffle_portable(x, a, n, s);
            cf_bitshuffle(x, b, n, s);
            if (n <= 256 || n % 512 == 0) {
                reference(x, ref, n, s);
                CF_ASSERT_BYTES(a, n * s, ref, n * s);
            }
            CF_ASSERT_BYTES(b, n * s, a, n * s);
            cf_bitunshuffle(a, back, n, s);
            CF_ASSERT_BYTES(back, n * s, x, n * s);
            cf_bitunshuffle_portable(a, back, n, s);
            CF_ASSERT_BYTES(back, n * s, x, n * s);
        }
    }
#ifdef CF_BITSHUFFLE_X86
    if (__builtin_cpu_supports("avx2"))
        check_direct(&r, cf_bitshuffle_avx2, cf_bitunshuffle_avx2, 1032, x, ref, a, back);
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("gfni"))
        /* unshuffle only: its input is the portable transpose */
        check_direct(&r, cf_bitshuffle_portable, cf_bitunshuffle_avx512, 1160, x, ref, a, back);
#endif
    free(x);
    free(ref);
    free(a);
    free(b);
    free(back);
}

/* §14.5: INT32 1..5 padded to 8 elements, with the LZ4 bytes Kudu writes. */
static void test_bitshuffle__lz4_example(void **state)
{
    (void)state;
    uint8_t x[32] = {0};
    for (int i = 0; i < 5; i++)
        cf_store_le32(x + 4 * i, (uint32_t)(i + 1));
    cf_buf out;
    cf_buf_init(&out);
    cf_error err;
    CF_ASSERT_OK(cf_bshuf_compress_lz4(x, 8, 4, &out, &err), &err);
    uint8_t want[32];
    size_t wl = cf_test_unhex("0000000e 4f 15 06 18 00 01 00 04 50 00 00 00 00 00", want, 32);
    CF_ASSERT_BYTES(out.data, out.len, want, wl);
    uint8_t back[32];
    CF_ASSERT_OK(cf_bshuf_decompress_lz4(out.data, out.len, back, 8, 4, &err), &err);
    CF_ASSERT_BYTES(back, 32, x, 32);

    /* §14.9: codewords 0,1,0 narrowed to one byte */
    cf_buf_clear(&out);
    const uint8_t cw[8] = {0, 1, 0};
    CF_ASSERT_OK(cf_bshuf_compress_lz4(cw, 8, 1, &out, &err), &err);
    wl = cf_test_unhex("00000009 80 02 00 00 00 00 00 00 00", want, 32);
    CF_ASSERT_BYTES(out.data, out.len, want, wl);
    cf_buf_dispose(&out);

    /* no elements: no bytes */
    cf_buf_init(&out);
    CF_ASSERT_OK(cf_bshuf_compress_lz4(x, 0, 4, &out, &err), &err);
    assert_int_equal(out.len, 0);
    CF_ASSERT_OK(cf_bshuf_decompress_lz4(out.data, 0, back, 0, 4, &err), &err);
    cf_buf_dispose(&out);
}

/* Walk the chunk framing of a payload: the chunk sizes in elements. */
static size_t count_chunks(const uint8_t *p, size_t len)
{
    size_t off = 0, c = 0;
    while (off < len) {
        off += 4 + cf_load_be32(p + off);
        c++;
    }
    assert_int_equal(off, len);
    return c;
}

static void test_bitshuffle__multi_chunk_round_trip(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(1) + 1);
    cf_error err;
    for (size_t si = 0; si < NSIZES; si++) {
        size_t s = sizes[si];
        size_t chunk = cf_bshuf_chunk_elems(s);
        const size_t ns[] = {8, chunk - 8, chunk, chunk + 8, 3 * chunk + 264, 5 * chunk};
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
            size_t n = ns[k];
            uint8_t *x = malloc(n * s), *back = malloc(n * s);
            /* compressible data: small values */
            for (size_t i = 0; i < n * s; i++)
                x[i] = (i % s == 0) ? (uint8_t)cf_rng_below(&r, 16) : 0;
            cf_buf out;
            cf_buf_init(&out);
            CF_ASSERT_OK(cf_bshuf_compress_lz4(x, n, s, &out, &err), &err);
            assert_int_equal(count_chunks(out.data, out.len), (n + chunk - 1) / chunk);
            /* each chunk is the LZ4 of the transposed chunk */
            size_t first = n < chunk ? n : chunk;
            uint8_t *t = malloc(first * s),
                    *lz = malloc((size_t)LZ4_compressBound((int)(first * s)));
            cf_bitshuffle_portable(x, t, first, s);
            int lzn = LZ4_compress_default((const char *)t, (char *)lz, (int)(first * s),
                                           LZ4_compressBound((int)(first * s)));
            assert_int_equal(cf_load_be32(out.data), (uint32_t)lzn);
            assert_memory_equal(out.data + 4, lz, (size_t)lzn);
            free(t);
            free(lz);
            CF_ASSERT_OK(cf_bshuf_decompress_lz4(out.data, out.len, back, n, s, &err), &err);
            assert_memory_equal(back, x, n * s);
            cf_buf_dispose(&out);
            free(x);
            free(back);
        }
    }
}

static void test_bitshuffle__corrupt(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(1) + 2);
    cf_error err;
    const size_t s = 4, n = 2048 + 512; /* two chunks */
    uint8_t *x = malloc(n * s), *back = malloc(n * s);
    for (size_t i = 0; i < n * s; i++)
        x[i] = (uint8_t)cf_rng_below(&r, 4);
    cf_buf out;
    cf_buf_init(&out);
    CF_ASSERT_OK(cf_bshuf_compress_lz4(x, n, s, &out, &err), &err);
    uint8_t *p = malloc(out.len + 16);
    const size_t len = out.len;
    uint32_t l0 = cf_load_be32(out.data);

    /* every truncation */
    for (size_t cut = 0; cut < len; cut++) {
        memcpy(p, out.data, cut);
        CF_ASSERT_STATUS(cf_bshuf_decompress_lz4(p, cut, back, n, s, &err), CF_ECORRUPT, &err);
    }
    /* trailing garbage */
    memcpy(p, out.data, len);
    p[len] = 0;
    CF_ASSERT_STATUS(cf_bshuf_decompress_lz4(p, len + 1, back, n, s, &err), CF_ECORRUPT, &err);
    /* chunk lengths: too big, huge, zero, one short */
    const uint32_t bad[] = {l0 + 1, 0xffffffffu, 0x80000000u, 0, l0 - 1, (uint32_t)len};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        memcpy(p, out.data, len);
        cf_store_be32(p, bad[k]);
        CF_ASSERT_STATUS(cf_bshuf_decompress_lz4(p, len, back, n, s, &err), CF_ECORRUPT, &err);
    }
    /* fewer elements than the payload holds, or more */
    CF_ASSERT_STATUS(cf_bshuf_decompress_lz4(out.data, len, back, n - 8, s, &err), CF_ECORRUPT,
                     &err);
    uint8_t *big = malloc((n + 8) * s);
    CF_ASSERT_STATUS(cf_bshuf_decompress_lz4(out.data, len, big, n + 8, s, &err), CF_ECORRUPT,
                     &err);
    free(big);
    /* random bit flips: clean error or (rarely) a valid decode; never a crash */
    for (int iter = 0; iter < 2000; iter++) {
        memcpy(p, out.data, len);
        int flips = 1 + (int)cf_rng_below(&r, 4);
        for (int f = 0; f < flips; f++)
            p[cf_rng_below(&r, len)] ^= (uint8_t)(1u << cf_rng_below(&r, 8));
        cf_status st = cf_bshuf_decompress_lz4(p, len, back, n, s, &err);
        assert_true(st == CF_OK || st == CF_ECORRUPT);
    }
    /* LZ4 garbage with a consistent length */
    for (int iter = 0; iter < 500; iter++) {
        size_t gl = 1 + (size_t)cf_rng_below(&r, 60);
        cf_store_be32(p, (uint32_t)gl);
        for (size_t i = 0; i < gl; i++)
            p[4 + i] = (uint8_t)cf_rng_next(&r);
        CF_ASSERT_STATUS(cf_bshuf_decompress_lz4(p, 4 + gl, back, 64, 1, &err), CF_ECORRUPT, &err);
    }
    /* bad arguments */
    CF_ASSERT_STATUS(cf_bshuf_decompress_lz4(out.data, len, back, 7, s, &err), CF_EINVAL, &err);
    CF_ASSERT_STATUS(cf_bshuf_compress_lz4(x, 8, 0, &out, &err), CF_EINVAL, &err);
    CF_ASSERT_STATUS(cf_bshuf_compress_lz4(x, 12, 4, &out, &err), CF_EINVAL, &err);
    cf_buf_dispose(&out);
    free(p);
    free(x);
    free(back);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bitshuffle__appendix_b),
        cmocka_unit_test(test_bitshuffle__chunk_elems),
        cmocka_unit_test(test_bitshuffle__impls_agree),
        cmocka_unit_test(test_bitshuffle__lz4_example),
        cmocka_unit_test(test_bitshuffle__multi_chunk_round_trip),
        cmocka_unit_test(test_bitshuffle__corrupt),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

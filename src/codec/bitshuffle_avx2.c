/* AVX2 bit transpose for bitshuffle (format Appendix B); same bytes as the
 * portable code in bitshuffle.c, which also finishes chunk tails that are not
 * a multiple of 32 elements. Compiled without -m flags: every function carries
 * target("avx2") and is only called after the dispatcher saw the CPU feature.
 *
 * Shuffle, per tile of 32 elements: byte-transpose the tile into elem_size
 * rows of 32 bytes (row j = byte j of each element), then peel the 8 bit
 * planes of a row off with movemask (bit 7 first, shifting left each time).
 * Unshuffle runs the other way: each plane's 32 bits are spread back into
 * bytes with a shuffle + compare, accumulated into a row, and the rows are
 * interleaved back into elements. */
#include "bitshuffle_impl.h"

#ifdef CF_BITSHUFFLE_X86

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#define AVX2 __attribute__((target("avx2")))

/* 8 rows of 8 bytes (row r at in + r*is) -> 8 rows of 8 bytes (row c at
 * out + c*os), out[c][r] = in[r][c]. */
AVX2 static inline void tr8x8_bytes(const uint8_t *in, size_t is, uint8_t *out, size_t os)
{
    __m128i a0 = _mm_loadl_epi64((const __m128i *)(const void *)(in + 0 * is));
    __m128i a1 = _mm_loadl_epi64((const __m128i *)(const void *)(in + 1 * is));
    __m128i a2 = _mm_loadl_epi64((const __m128i *)(const void *)(in + 2 * is));
    __m128i a3 = _mm_loadl_epi64((const __m128i *)(const void *)(in + 3 * is));
    __m128i a4 = _mm_loadl_epi64((const __m128i *)(const void *)(in + 4 * is));
    __m128i a5 = _mm_loadl_epi64((const __m128i *)(const void *)(in + 5 * is));
    __m128i a6 = _mm_loadl_epi64((const __m128i *)(const void *)(in + 6 * is));
    __m128i a7 = _mm_loadl_epi64((const __m128i *)(const void *)(in + 7 * is));
    __m128i t0 = _mm_unpacklo_epi8(a0, a1), t1 = _mm_unpacklo_epi8(a2, a3);
    __m128i t2 = _mm_unpacklo_epi8(a4, a5), t3 = _mm_unpacklo_epi8(a6, a7);
    __m128i u0 = _mm_unpacklo_epi16(t0, t1), u1 = _mm_unpackhi_epi16(t0, t1);
    __m128i u2 = _mm_unpacklo_epi16(t2, t3), u3 = _mm_unpackhi_epi16(t2, t3);
    __m128i v0 = _mm_unpacklo_epi32(u0, u2), v1 = _mm_unpackhi_epi32(u0, u2);
    __m128i v2 = _mm_unpacklo_epi32(u1, u3), v3 = _mm_unpackhi_epi32(u1, u3);
    _mm_storel_epi64((__m128i *)(void *)(out + 0 * os), v0);
    _mm_storel_epi64((__m128i *)(void *)(out + 1 * os), _mm_srli_si128(v0, 8));
    _mm_storel_epi64((__m128i *)(void *)(out + 2 * os), v1);
    _mm_storel_epi64((__m128i *)(void *)(out + 3 * os), _mm_srli_si128(v1, 8));
    _mm_storel_epi64((__m128i *)(void *)(out + 4 * os), v2);
    _mm_storel_epi64((__m128i *)(void *)(out + 5 * os), _mm_srli_si128(v2, 8));
    _mm_storel_epi64((__m128i *)(void *)(out + 6 * os), v3);
    _mm_storel_epi64((__m128i *)(void *)(out + 7 * os), _mm_srli_si128(v3, 8));
}

AVX2 static inline __m256i load32(const uint8_t *p)
{
    return _mm256_loadu_si256((const __m256i *)(const void *)p);
}

AVX2 static inline void store32(uint8_t *p, __m256i v)
{
    _mm256_storeu_si256((__m256i *)(void *)p, v);
}

/* Row v holds byte j of 32 consecutive elements; write its planes 8j..8j+7
 * (dst = plane 8j at this tile's byte, planes nb bytes apart). */
AVX2 static inline void row_to_planes(__m256i v, uint8_t *dst, size_t nb)
{
    for (int b = 7; b >= 0; b--) {
        uint32_t m = (uint32_t)_mm256_movemask_epi8(v);
        memcpy(dst + (size_t)b * nb, &m, 4);
        v = _mm256_add_epi8(v, v);
    }
}

/* Inverse of row_to_planes: gather 32 bits from each of 8 planes into bytes. */
AVX2 static inline __m256i planes_to_row(const uint8_t *src, size_t nb)
{
    const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2,
                                            2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i sel = _mm256_set1_epi64x((long long)0x8040201008040201ull);
    __m256i acc = _mm256_setzero_si256();
    for (int b = 7; b >= 0; b--) {
        uint32_t m;
        memcpy(&m, src + (size_t)b * nb, 4);
        __m256i x = _mm256_shuffle_epi8(_mm256_set1_epi32((int)m), spread);
        x = _mm256_cmpeq_epi8(_mm256_and_si256(x, sel), sel); /* 0xff where the bit is set */
        acc = _mm256_sub_epi8(_mm256_add_epi8(acc, acc), x);  /* acc = 2*acc + bit */
    }
    return acc;
}

AVX2 void cf_bitshuffle_avx2(const void *in, void *out, size_t n, size_t elem_size)
{
    const size_t s = elem_size, nb = n / 8, n32 = n & ~(size_t)31;
    const uint8_t *src = in;
    uint8_t *dst = out;
    if (s != 1 && s != 2 && s != 4 && s != 8 && s != 16) {
        cf_bitshuffle_groups(in, out, n, s, 0, nb);
        return;
    }
    const __m256i sh2 = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15, 0, 2,
                                         4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
    const __m256i sh4 = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 0, 4,
                                         8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    const __m256i pair = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    _Alignas(32) uint8_t tmp[16 * 32];
    for (size_t i = 0; i < n32; i += 32) {
        const uint8_t *e = src + i * s;
        uint8_t *o = dst + i / 8;
        switch (s) {
        case 1: row_to_planes(load32(e), o, nb); break;
        case 2: {
            /* per lane: 8 low bytes then 8 high bytes; then gather the halves */
            __m256i a = _mm256_shuffle_epi8(load32(e), sh2);
            __m256i b = _mm256_shuffle_epi8(load32(e + 32), sh2);
            a = _mm256_permute4x64_epi64(a, _MM_SHUFFLE(3, 1, 2, 0));
            b = _mm256_permute4x64_epi64(b, _MM_SHUFFLE(3, 1, 2, 0));
            row_to_planes(_mm256_permute2x128_si256(a, b, 0x20), o, nb);
            row_to_planes(_mm256_permute2x128_si256(a, b, 0x31), o + 8 * nb, nb);
            break;
        }
        case 4: {
            /* each x holds 8 elements as 4 qwords: byte 0..3 of elements 0..7 */
            __m256i x0 = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(load32(e), sh4), pair);
            __m256i x1 =
                _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(load32(e + 32), sh4), pair);
            __m256i x2 =
                _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(load32(e + 64), sh4), pair);
            __m256i x3 =
                _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(load32(e + 96), sh4), pair);
            __m256i lo01 = _mm256_unpacklo_epi64(x0, x1), hi01 = _mm256_unpackhi_epi64(x0, x1);
            __m256i lo23 = _mm256_unpacklo_epi64(x2, x3), hi23 = _mm256_unpackhi_epi64(x2, x3);
            row_to_planes(_mm256_permute2x128_si256(lo01, lo23, 0x20), o, nb);
            row_to_planes(_mm256_permute2x128_si256(hi01, hi23, 0x20), o + 8 * nb, nb);
            row_to_planes(_mm256_permute2x128_si256(lo01, lo23, 0x31), o + 16 * nb, nb);
            row_to_planes(_mm256_permute2x128_si256(hi01, hi23, 0x31), o + 24 * nb, nb);
            break;
        }
        default: /* 8 or 16: 8x8 byte transposes into rows of 32 */
            for (size_t q = 0; q < 4; q++)
                for (size_t h = 0; h < s; h += 8)
                    tr8x8_bytes(e + q * 8 * s + h, s, tmp + h * 32 + q * 8, 32);
            for (size_t j = 0; j < s; j++)
                row_to_planes(load32(tmp + j * 32), o + 8 * j * nb, nb);
            break;
        }
    }
    cf_bitshuffle_groups(in, out, n, s, n32 / 8, nb);
}

AVX2 void cf_bitunshuffle_avx2(const void *in, void *out, size_t n, size_t elem_size)
{
    const size_t s = elem_size, nb = n / 8, n32 = n & ~(size_t)31;
    const uint8_t *src = in;
    uint8_t *dst = out;
    if (s != 1 && s != 2 && s != 4 && s != 8 && s != 16) {
        cf_bitunshuffle_groups(in, out, n, s, 0, nb);
        return;
    }
    _Alignas(32) uint8_t tmp[16 * 32];
    for (size_t i = 0; i < n32; i += 32) {
        const uint8_t *p = src + i / 8;
        uint8_t *e = dst + i * s;
        switch (s) {
        case 1: store32(e, planes_to_row(p, nb)); break;
        case 2: {
            __m256i r0 = planes_to_row(p, nb), r1 = planes_to_row(p + 8 * nb, nb);
            __m256i lo = _mm256_unpacklo_epi8(r0, r1), hi = _mm256_unpackhi_epi8(r0, r1);
            store32(e, _mm256_permute2x128_si256(lo, hi, 0x20));
            store32(e + 32, _mm256_permute2x128_si256(lo, hi, 0x31));
            break;
        }
        case 4: {
            __m256i r0 = planes_to_row(p, nb), r1 = planes_to_row(p + 8 * nb, nb);
            __m256i r2 = planes_to_row(p + 16 * nb, nb), r3 = planes_to_row(p + 24 * nb, nb);
            __m256i a = _mm256_unpacklo_epi8(r0, r1), b = _mm256_unpackhi_epi8(r0, r1);
            __m256i c = _mm256_unpacklo_epi8(r2, r3), d = _mm256_unpackhi_epi8(r2, r3);
            __m256i p0 = _mm256_unpacklo_epi16(a, c), p1 = _mm256_unpackhi_epi16(a, c);
            __m256i p2 = _mm256_unpacklo_epi16(b, d), p3 = _mm256_unpackhi_epi16(b, d);
            store32(e, _mm256_permute2x128_si256(p0, p1, 0x20));
            store32(e + 32, _mm256_permute2x128_si256(p2, p3, 0x20));
            store32(e + 64, _mm256_permute2x128_si256(p0, p1, 0x31));
            store32(e + 96, _mm256_permute2x128_si256(p2, p3, 0x31));
            break;
        }
        default:
            for (size_t j = 0; j < s; j++)
                store32(tmp + j * 32, planes_to_row(p + 8 * j * nb, nb));
            for (size_t q = 0; q < 4; q++)
                for (size_t h = 0; h < s; h += 8)
                    tr8x8_bytes(tmp + h * 32 + q * 8, 32, e + q * 8 * s + h, s);
            break;
        }
    }
    cf_bitunshuffle_groups(in, out, n, s, n32 / 8, nb);
}

#endif

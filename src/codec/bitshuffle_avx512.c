/* AVX-512 bit un-transpose for bitshuffle (format Appendix B), for CPUs with
 * AVX-512 F + BW + VBMI and GFNI (Ice Lake, Zen 4 and later); same bytes as the
 * portable code in bitshuffle.c, which also finishes chunk tails that are not
 * a multiple of 64 elements. Compiled without -m flags: every function carries
 * the target attribute and is only called after the dispatcher saw all four
 * CPU features.
 *
 * Per tile of 64 elements, byte row j (byte j of each of the 64 elements) is
 * rebuilt from bit planes 8j..8j+7: gather the planes' 8-byte pieces into one
 * register, byte-transpose it (vpermb) so that each qword holds one group of 8
 * elements' bits from the 8 planes, and transpose each qword as an 8x8 bit
 * matrix with one GF(2) affine instruction. The rows are then interleaved
 * into elements with unpacks (within 128-bit lanes) and a 4x4 transpose of
 * 128-bit lanes. Decoding is what readers do on every scan, so only the
 * unshuffle direction has this version; shuffling uses the AVX2 code. */
#include "bitshuffle_impl.h"

#ifdef CF_BITSHUFFLE_X86

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#define AVX512 __attribute__((target("avx512f,avx512bw,avx512vbmi,gfni")))

/* Row of 64 bytes from 8 planes of 64 bits (plane b at src + b * nb).
 * gf2p8affine(c, a) sets bit i of byte j of each qword to the parity of
 * (byte 7 - i of a) & (byte j of c); with c's byte j = 1 << j that is bit j of
 * a's byte 7 - i, an 8x8 bit transpose that also reverses the byte order,
 * which the permutation undoes in advance by putting plane 7 - b' at byte b'. */
AVX512 static inline __m512i planes_to_row(const uint8_t *src, size_t nb)
{
    const __m512i vidx =
        _mm512_setr_epi64(0, (long long)nb, 2 * (long long)nb, 3 * (long long)nb, 4 * (long long)nb,
                          5 * (long long)nb, 6 * (long long)nb, 7 * (long long)nb);
    /* byte 8k + b' of the result = byte k of plane 7 - b' */
    const __m512i perm = _mm512_set_epi8(
        7, 15, 23, 31, 39, 47, 55, 63, 6, 14, 22, 30, 38, 46, 54, 62, 5, 13, 21, 29, 37, 45, 53, 61,
        4, 12, 20, 28, 36, 44, 52, 60, 3, 11, 19, 27, 35, 43, 51, 59, 2, 10, 18, 26, 34, 42, 50, 58,
        1, 9, 17, 25, 33, 41, 49, 57, 0, 8, 16, 24, 32, 40, 48, 56);
    __m512i x = _mm512_i64gather_epi64(vidx, (const void *)src, 1);
    __m512i y = _mm512_permutexvar_epi8(perm, x);
    return _mm512_gf2p8affine_epi64_epi8(_mm512_set1_epi64((long long)0x8040201008040201ull), y, 0);
}

AVX512 static inline void store64(uint8_t *p, __m512i v)
{
    _mm512_storeu_si512((void *)p, v);
}

/* out[L] = lane L of p0, p1, p2, p3 (a 4x4 transpose of 128-bit lanes). */
AVX512 static inline void lanes4x4(__m512i p0, __m512i p1, __m512i p2, __m512i p3, __m512i out[4])
{
    const __m512i lo = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
    const __m512i hi = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
    __m512i t0 = _mm512_permutex2var_epi64(p0, lo, p1); /* p0.0 p1.0 p0.1 p1.1 */
    __m512i t1 = _mm512_permutex2var_epi64(p2, lo, p3); /* p2.0 p3.0 p2.1 p3.1 */
    __m512i t2 = _mm512_permutex2var_epi64(p0, hi, p1); /* p0.2 p1.2 p0.3 p1.3 */
    __m512i t3 = _mm512_permutex2var_epi64(p2, hi, p3);
    out[0] = _mm512_shuffle_i64x2(t0, t1, 0x44);
    out[1] = _mm512_shuffle_i64x2(t0, t1, 0xee);
    out[2] = _mm512_shuffle_i64x2(t2, t3, 0x44);
    out[3] = _mm512_shuffle_i64x2(t2, t3, 0xee);
}

/* Eight rows (bytes 0..7 of 64 elements) -> w[m], lane L holding the 8 bytes
 * of elements 16L + 2m and 16L + 2m + 1. */
AVX512 static inline void rows8_to_pairs(const __m512i r[8], __m512i w[8])
{
    __m512i a[8], b[8];
    for (unsigned i = 0; i < 4; i++) {
        a[2 * i] = _mm512_unpacklo_epi8(r[2 * i], r[2 * i + 1]);     /* 16L+0..7  */
        a[2 * i + 1] = _mm512_unpackhi_epi8(r[2 * i], r[2 * i + 1]); /* 16L+8..15 */
    }
    /* b[0..3]: bytes 0..3 of 16L + 0..3, 4..7, 8..11, 12..15; b[4..7]: bytes 4..7 */
    for (unsigned h = 0; h < 2; h++) {
        __m512i x = a[4 * h], y = a[4 * h + 2], xh = a[4 * h + 1], yh = a[4 * h + 3];
        b[4 * h + 0] = _mm512_unpacklo_epi16(x, y);
        b[4 * h + 1] = _mm512_unpackhi_epi16(x, y);
        b[4 * h + 2] = _mm512_unpacklo_epi16(xh, yh);
        b[4 * h + 3] = _mm512_unpackhi_epi16(xh, yh);
    }
    for (unsigned q = 0; q < 4; q++) {
        w[2 * q] = _mm512_unpacklo_epi32(b[q], b[4 + q]);
        w[2 * q + 1] = _mm512_unpackhi_epi32(b[q], b[4 + q]);
    }
}

AVX512 void cf_bitunshuffle_avx512(const void *in, void *out, size_t n, size_t elem_size)
{
    const size_t s = elem_size, nb = n / 8, n64 = n & ~(size_t)63;
    const uint8_t *src = in;
    uint8_t *dst = out;
    if (s != 1 && s != 2 && s != 4 && s != 8 && s != 16) {
        cf_bitunshuffle_groups(in, out, n, s, 0, nb);
        return;
    }
    for (size_t i = 0; i < n64; i += 64) {
        const uint8_t *p = src + i / 8;
        uint8_t *e = dst + i * s;
        switch (s) {
        case 1: store64(e, planes_to_row(p, nb)); break;
        case 2: {
            __m512i r0 = planes_to_row(p, nb), r1 = planes_to_row(p + 8 * nb, nb);
            __m512i lo = _mm512_unpacklo_epi8(r0, r1), hi = _mm512_unpackhi_epi8(r0, r1);
            store64(e,
                    _mm512_permutex2var_epi64(lo, _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11), hi));
            store64(e + 64, _mm512_permutex2var_epi64(
                                lo, _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15), hi));
            break;
        }
        case 4: {
            __m512i r0 = planes_to_row(p, nb), r1 = planes_to_row(p + 8 * nb, nb);
            __m512i r2 = planes_to_row(p + 16 * nb, nb), r3 = planes_to_row(p + 24 * nb, nb);
            __m512i a = _mm512_unpacklo_epi8(r0, r1), b = _mm512_unpackhi_epi8(r0, r1);
            __m512i c = _mm512_unpacklo_epi8(r2, r3), d = _mm512_unpackhi_epi8(r2, r3);
            __m512i o[4];
            /* lane L: elements 16L + 0..3, 4..7, 8..11, 12..15 */
            lanes4x4(_mm512_unpacklo_epi16(a, c), _mm512_unpackhi_epi16(a, c),
                     _mm512_unpacklo_epi16(b, d), _mm512_unpackhi_epi16(b, d), o);
            for (unsigned v = 0; v < 4; v++)
                store64(e + 64 * v, o[v]);
            break;
        }
        case 8: {
            __m512i r[8], w[8], o[4];
            for (unsigned j = 0; j < 8; j++)
                r[j] = planes_to_row(p + 8 * j * nb, nb);
            rows8_to_pairs(r, w);
            /* output vector v holds elements 8v..8v+7: lane L of w[4(v%2)..+3] */
            for (unsigned h = 0; h < 2; h++) {
                lanes4x4(w[4 * h], w[4 * h + 1], w[4 * h + 2], w[4 * h + 3], o);
                for (unsigned L = 0; L < 4; L++)
                    store64(e + 64 * (2 * L + h), o[L]);
            }
            break;
        }
        default: { /* 16 */
            __m512i r[8], w[8], wh[8], z[16], o[4];
            for (unsigned j = 0; j < 8; j++)
                r[j] = planes_to_row(p + 8 * j * nb, nb);
            rows8_to_pairs(r, w);
            for (unsigned j = 0; j < 8; j++)
                r[j] = planes_to_row(p + 8 * (8 + j) * nb, nb);
            rows8_to_pairs(r, wh);
            /* z[k] lane L: the 16 bytes of element 16L + k */
            for (unsigned m = 0; m < 8; m++) {
                z[2 * m] = _mm512_unpacklo_epi64(w[m], wh[m]);
                z[2 * m + 1] = _mm512_unpackhi_epi64(w[m], wh[m]);
            }
            for (unsigned c = 0; c < 4; c++) {
                lanes4x4(z[4 * c], z[4 * c + 1], z[4 * c + 2], z[4 * c + 3], o);
                for (unsigned L = 0; L < 4; L++)
                    store64(e + 64 * (4 * L + c), o[L]);
            }
            break;
        }
        }
    }
    cf_bitunshuffle_groups(in, out, n, s, n64 / 8, nb);
}

#endif

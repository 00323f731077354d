/* CRC-32C by carry-less folding with 512-bit VPCLMULQDQ (crc32c_fold.h).
 *
 * The crc32 instruction retires one 8-byte step per cycle however many
 * streams are interleaved (it has one port); folding instead multiplies
 * 16-byte lanes, four per 512-bit register and four registers per round
 * (256 bytes), so the four independent chains hide the multiply latency. What is left at the end
 * (one 16-byte lane plus < 64 tail bytes) goes through the crc32 instruction:
 * the CRC of the lane's bytes from a zero register is exactly the reduction of
 * that 128-bit polynomial times x^32 mod P, so no Barrett step is needed.
 *
 * Only compiled for x86-64; crc32c.c calls it after checking the CPU. */
#include "crc32c_fold.h"

#if defined(__x86_64__)

#include <immintrin.h>

#define CF_FOLD_TARGET __attribute__((target("avx512f,vpclmulqdq,pclmul,sse4.2")))

/* x * x^F folded onto `next`: both halves of every lane multiplied by their
 * constant and the three terms XORed in one ternary-logic op (0x96 = a^b^c). */
CF_FOLD_TARGET static inline __m512i fold512(__m512i x, __m512i k, __m512i next)
{
    __m512i lo = _mm512_clmulepi64_epi128(x, k, 0x00);
    __m512i hi = _mm512_clmulepi64_epi128(x, k, 0x11);
    return _mm512_ternarylogic_epi64(lo, hi, next, 0x96);
}

CF_FOLD_TARGET static inline __m128i fold128(__m128i x, cf_crc32c_fold_k k)
{
    __m128i kk = _mm_set_epi64x((long long)k.hi, (long long)k.lo);
    return _mm_xor_si128(_mm_clmulepi64_si128(x, kk, 0x00), _mm_clmulepi64_si128(x, kk, 0x11));
}

CF_FOLD_TARGET static inline __m512i bcast(cf_crc32c_fold_k k)
{
    return _mm512_broadcast_i32x4(_mm_set_epi64x((long long)k.hi, (long long)k.lo));
}

CF_FOLD_TARGET uint32_t cf_crc32c_fold512_reg(uint32_t reg, const uint8_t *p, size_t len,
                                              const cf_crc32c_fold_consts *k)
{
    /* XORing the register into the first 4 message bytes is the same as
     * starting the CRC from it (format §4 chaining). */
    __m512i x0 = _mm512_loadu_si512((const void *)p);
    x0 = _mm512_mask_xor_epi32(x0, 1, x0, _mm512_set1_epi32((int)reg));
    __m512i x1 = _mm512_loadu_si512((const void *)(p + 64));
    __m512i x2 = _mm512_loadu_si512((const void *)(p + 128));
    __m512i x3 = _mm512_loadu_si512((const void *)(p + 192));
    p += 256;
    len -= 256;

    const __m512i k256 = bcast(k->by256);
    while (len >= 256) {
        x0 = fold512(x0, k256, _mm512_loadu_si512((const void *)p));
        x1 = fold512(x1, k256, _mm512_loadu_si512((const void *)(p + 64)));
        x2 = fold512(x2, k256, _mm512_loadu_si512((const void *)(p + 128)));
        x3 = fold512(x3, k256, _mm512_loadu_si512((const void *)(p + 192)));
        p += 256;
        len -= 256;
    }

    /* Four accumulators into one, then whole 64-byte blocks of what is left. */
    const __m512i k64 = bcast(k->by64);
    x1 = fold512(x0, k64, x1);
    x2 = fold512(x1, k64, x2);
    x3 = fold512(x2, k64, x3);
    while (len >= 64) {
        x3 = fold512(x3, k64, _mm512_loadu_si512((const void *)p));
        p += 64;
        len -= 64;
    }

    /* Lanes 0, 1, 2 sit 48, 32, 16 bytes before lane 3. */
    __m128i r = _mm512_extracti32x4_epi32(x3, 3);
    r = _mm_xor_si128(r, fold128(_mm512_extracti32x4_epi32(x3, 0), k->by48));
    r = _mm_xor_si128(r, fold128(_mm512_extracti32x4_epi32(x3, 1), k->by32));
    r = _mm_xor_si128(r, fold128(_mm512_extracti32x4_epi32(x3, 2), k->by16));

    return cf_crc32c_lane_tail(r, p, len);
}

#else

/* Not x86-64: nothing to build (ISO C wants a non-empty translation unit). */
typedef int cf_crc32c_avx512_unused;

#endif

/* CRC-32C by carry-less folding with 256-bit VPCLMULQDQ (crc32c_fold.h), for
 * CPUs that have VPCLMULQDQ but not AVX-512 (AMD Zen 3, Intel client cores
 * since Alder Lake). The same scheme as crc32c_avx512.c at half the width:
 * four 256-bit accumulators, 128 bytes per round, then one register over the
 * remaining 32-byte blocks, its two lanes into one, and the crc32 instruction
 * for that lane and the tail.
 *
 * Only compiled for x86-64; crc32c.c calls it after checking the CPU. */
#include "crc32c_fold.h"

#if defined(__x86_64__)

#include <immintrin.h>

#define CF_FOLD_TARGET __attribute__((target("avx2,vpclmulqdq,pclmul,sse4.2")))

/* x * x^F folded onto `next` in every 128-bit lane. */
CF_FOLD_TARGET static inline __m256i fold256(__m256i x, __m256i k, __m256i next)
{
    __m256i lo = _mm256_clmulepi64_epi128(x, k, 0x00);
    __m256i hi = _mm256_clmulepi64_epi128(x, k, 0x11);
    return _mm256_xor_si256(_mm256_xor_si256(lo, hi), next);
}

CF_FOLD_TARGET static inline __m256i bcast(cf_crc32c_fold_k k)
{
    return _mm256_broadcastsi128_si256(_mm_set_epi64x((long long)k.hi, (long long)k.lo));
}

CF_FOLD_TARGET uint32_t cf_crc32c_fold256_reg(uint32_t reg, const uint8_t *p, size_t len,
                                              const cf_crc32c_fold_consts *k)
{
    /* The register XORed into the first 4 message bytes starts the CRC from it. */
    __m256i x0 = _mm256_loadu_si256((const void *)p);
    x0 = _mm256_xor_si256(x0, _mm256_set_epi32(0, 0, 0, 0, 0, 0, 0, (int)reg));
    __m256i x1 = _mm256_loadu_si256((const void *)(p + 32));
    __m256i x2 = _mm256_loadu_si256((const void *)(p + 64));
    __m256i x3 = _mm256_loadu_si256((const void *)(p + 96));
    p += 128;
    len -= 128;

    const __m256i k128 = bcast(k->by128);
    while (len >= 128) {
        x0 = fold256(x0, k128, _mm256_loadu_si256((const void *)p));
        x1 = fold256(x1, k128, _mm256_loadu_si256((const void *)(p + 32)));
        x2 = fold256(x2, k128, _mm256_loadu_si256((const void *)(p + 64)));
        x3 = fold256(x3, k128, _mm256_loadu_si256((const void *)(p + 96)));
        p += 128;
        len -= 128;
    }

    const __m256i k32 = bcast(k->by32);
    x1 = fold256(x0, k32, x1);
    x2 = fold256(x1, k32, x2);
    x3 = fold256(x2, k32, x3);
    while (len >= 32) {
        x3 = fold256(x3, k32, _mm256_loadu_si256((const void *)p));
        p += 32;
        len -= 32;
    }

    /* Lane 0 sits 16 bytes before lane 1. */
    __m128i lane0 = _mm256_castsi256_si128(x3);
    __m128i kk = _mm_set_epi64x((long long)k->by16.hi, (long long)k->by16.lo);
    __m128i r = _mm_xor_si128(_mm256_extracti128_si256(x3, 1),
                              _mm_xor_si128(_mm_clmulepi64_si128(lane0, kk, 0x00),
                                            _mm_clmulepi64_si128(lane0, kk, 0x11)));

    uint64_t c = _mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(r));
    c = _mm_crc32_u64(c, (uint64_t)_mm_extract_epi64(r, 1));
    while (len >= 8) {
        uint64_t w;
        __builtin_memcpy(&w, p, 8); /* x86-64 is little-endian, as the CRC reads words */
        c = _mm_crc32_u64(c, w);
        p += 8;
        len -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (len > 0) {
        c32 = _mm_crc32_u8(c32, *p++);
        len--;
    }
    return c32;
}

#else

/* Not x86-64: nothing to build (ISO C wants a non-empty translation unit). */
typedef int cf_crc32c_avx2_unused;

#endif

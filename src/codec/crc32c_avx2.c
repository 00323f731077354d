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

/* Folds four accumulators (x0 first) into one register, onto the 32-byte
 * blocks left at p, and reduces it with the crc32 instruction, then the
 * tail: the register after len more bytes. */
CF_FOLD_TARGET static inline uint32_t finish4(__m256i x0, __m256i x1, __m256i x2, __m256i x3,
                                              const uint8_t *p, size_t len,
                                              const cf_crc32c_fold_consts *k)
{
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

    return cf_crc32c_lane_tail(r, p, len);
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
    return finish4(x0, x1, x2, x3, p, len, k);
}

/* For the constant xk = x^(e - 33) mod P: reg * x^e mod P. The
 * carry-less product of two reflected 32-bit values is reg * xk * x read as
 * a 64-bit message word, and crc32 of a word from a zero register multiplies
 * by x^32 (as crc32c.c shift_clmul). */
CF_FOLD_TARGET static inline uint32_t shift_by(uint32_t reg, uint32_t xk)
{
    __m128i prod = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)reg), _mm_cvtsi32_si128((int)xk), 0);
    return (uint32_t)_mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(prod));
}

/* x^(8 * bytes - 33) mod P, bytes a nonzero multiple of 8 (so every set bit
 * of 8 * bytes is bit 6 or above, where k->xshift is defined): one
 * multiply per further set bit. */
CF_FOLD_TARGET static inline uint32_t shift_const(uint64_t bytes, const cf_crc32c_fold_consts *k)
{
    uint64_t e = bytes << 3;
    unsigned j = (unsigned)__builtin_ctzll(e);
    uint32_t xk = k->xshift[j];
    for (e &= e - 1; e != 0; e &= e - 1)
        xk = shift_by(xk, k->xshift[__builtin_ctzll(e)]);
    return xk;
}

#define MIX_S CF_CRC32C_MIX_STREAM

/* One crc32 step of each stream on its word at offset o of the round. */
#define MIX_STEP(o)                                                                                \
    do {                                                                                           \
        uint64_t wb, wc, wd;                                                                       \
        __builtin_memcpy(&wb, b + (o), 8);                                                         \
        __builtin_memcpy(&wc, c + (o), 8);                                                         \
        __builtin_memcpy(&wd, d + (o), 8);                                                         \
        cb = _mm_crc32_u64(cb, wb);                                                                \
        cc = _mm_crc32_u64(cc, wc);                                                                \
        cd = _mm_crc32_u64(cd, wd);                                                                \
    } while (0)

#define MIX_STREAMS()                                                                              \
    do {                                                                                           \
        for (unsigned o = 0; o < MIX_S; o += 8)                                                    \
            MIX_STEP(o);                                                                           \
        b += MIX_S;                                                                                \
        c += MIX_S;                                                                                \
        d += MIX_S;                                                                                \
    } while (0)

/* The carry-less multiplies and the crc32 instruction run on different
 * execution units (AMD Zen 3: the vector pipes and an integer ALU), so the
 * folding of one part of the buffer and three crc32 streams over the rest
 * proceed side by side: a round is four
 * 256-bit folds (8 multiplies, 128 bytes) and 3 x 5 crc32 (120 bytes):
 * 36-37 GB/s on 256 KiB where either alone runs at 21-22 (the stream length
 * per round measured flat from 40 to 64 bytes, 32 slower). */
CF_FOLD_TARGET uint32_t cf_crc32c_mix256_reg(uint32_t reg, const uint8_t *p, size_t len,
                                             const cf_crc32c_fold_consts *k, size_t *done)
{
    size_t n = len / CF_CRC32C_MIX_ROUND;
    size_t sl = (size_t)MIX_S * n; /* each stream's bytes */
    const uint8_t *a = p, *b = p + 128 * n, *c = b + sl, *d = c + sl;
    /* Independent of the data: the out-of-order core overlaps it with the loop. */
    uint32_t xk = shift_const(sl, k);

    __m256i x0 = _mm256_loadu_si256((const void *)a);
    x0 = _mm256_xor_si256(x0, _mm256_set_epi32(0, 0, 0, 0, 0, 0, 0, (int)reg));
    __m256i x1 = _mm256_loadu_si256((const void *)(a + 32));
    __m256i x2 = _mm256_loadu_si256((const void *)(a + 64));
    __m256i x3 = _mm256_loadu_si256((const void *)(a + 96));
    a += 128;
    uint64_t cb = 0, cc = 0, cd = 0;

    const __m256i k128 = bcast(k->by128);
    for (size_t i = 1; i < n; i++) {
        x0 = fold256(x0, k128, _mm256_loadu_si256((const void *)a));
        x1 = fold256(x1, k128, _mm256_loadu_si256((const void *)(a + 32)));
        MIX_STREAMS();
        x2 = fold256(x2, k128, _mm256_loadu_si256((const void *)(a + 64)));
        x3 = fold256(x3, k128, _mm256_loadu_si256((const void *)(a + 96)));
        a += 128;
    }
    MIX_STREAMS();

    uint32_t ra = finish4(x0, x1, x2, x3, a, 0, k);
    /* A || B || C || D: shift what is before each part over the part. */
    uint32_t r = shift_by(ra, xk) ^ (uint32_t)cb;
    r = shift_by(r, xk) ^ (uint32_t)cc;
    r = shift_by(r, xk) ^ (uint32_t)cd;
    *done = CF_CRC32C_MIX_ROUND * n;
    return r;
}

#else

/* Not x86-64: nothing to build (ISO C wants a non-empty translation unit). */
typedef int cf_crc32c_avx2_unused;

#endif

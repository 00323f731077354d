/* Spreading dense values around NULL rows (see expand.h).
 *
 * 4-, 8- and 16-byte values on CPUs with AVX2 go eight 32-bit lanes at a
 * time (8, 4 or 2 rows): the row flags of a group index a table of lane
 * permutations that moves the group's dense values into their rows (one
 * load, one permute, one mask, one store, and a popcount to advance), where
 * the portable loop takes one row per step. Everything else, and the rows after the last whole group, use
 * the portable loop: branch-free, one slot per step (a NULL slot loads the
 * next dense value and masks it to zero), because 10-20% NULLs at random make
 * runs too short for a memcpy per run to pay.
 */
#include "expand.h"

#include <pthread.h>
#include <string.h>

#include "../util/bitmap.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CF_EXPAND_X86 1
#include <immintrin.h>
#endif

#define SCATTER_FIXED(T)                                                                           \
    do {                                                                                           \
        for (size_t i = 0; i < n; i++) {                                                           \
            T x;                                                                                   \
            uint64_t b = cf_bitmap_get(bm, bit0 + i);                                              \
            memcpy(&x, dense + j * sizeof(T), sizeof(T));                                          \
            x &= (T)(0 - b);                                                                       \
            memcpy(out + i * sizeof(T), &x, sizeof(T));                                            \
            j += b;                                                                                \
        }                                                                                          \
    } while (0)

/* Flags of rows [b, b + 8) as one byte (bit r = row b + r). */
static inline unsigned group8(const uint8_t *bm, size_t b)
{
    const uint8_t *p = bm + (b >> 3);
    unsigned s = (unsigned)(b & 7);
    if (s == 0)
        return p[0];
    return ((unsigned)p[0] | (unsigned)p[1] << 8) >> s & 0xff;
}

static void expand_portable(uint8_t *out, const uint8_t *dense, const uint8_t *bm, size_t bit0,
                            size_t n, size_t es)
{
    size_t j = 0;
    switch (es) {
    case 1: SCATTER_FIXED(uint8_t); return;
    case 2: SCATTER_FIXED(uint16_t); return;
    case 4: SCATTER_FIXED(uint32_t); return;
    case 8: SCATTER_FIXED(uint64_t); return;
    case 16: { /* cf_slice and INT128: two 8-byte halves */
        /* Eight rows with no NULL (most of them at 10% NULLs) are one copy,
         * eight NULLs one clear; mixed groups go row by row. */
        size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            unsigned m = group8(bm, bit0 + i);
            if (m == 0xff) {
                memcpy(out + i * 16, dense + j * 16, 128);
                j += 8;
                continue;
            }
            if (m == 0) {
                memset(out + i * 16, 0, 128);
                continue;
            }
            for (size_t r = i; r < i + 8; r++) {
                uint64_t b = m >> (r - i) & 1, mk = 0 - b, x[2];
                memcpy(x, dense + j * 16, 16);
                x[0] &= mk;
                x[1] &= mk;
                memcpy(out + r * 16, x, 16);
                j += b;
            }
        }
        for (; i < n; i++) {
            uint64_t b = cf_bitmap_get(bm, bit0 + i), m = 0 - b, x[2];
            memcpy(x, dense + j * 16, 16);
            x[0] &= m;
            x[1] &= m;
            memcpy(out + i * 16, x, 16);
            j += b;
        }
        return;
    }
    default: break;
    }
    size_t i = 0;
    while (i < n) {
        size_t run = cf_bitmap_run(bm, bit0 + i, n - i);
        if (cf_bitmap_get(bm, bit0 + i)) {
            memcpy(out + i * es, dense, run * es);
            dense += run * es;
        } else {
            memset(out + i * es, 0, run * es);
        }
        i += run;
    }
}


#ifdef CF_EXPAND_X86
/* lane_idx[m]: for each of 8 lanes, the index among the set bits of m below
 * it (the dense value that lane takes), one byte per lane; 0 for clear bits
 * (masked afterwards). pair_mask[m4]: 4 row flags as 8 lane flags (a 64-bit
 * value is two lanes). */
static uint64_t lane_idx[256];
static uint8_t pair_mask[16];
static int have_avx2;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init(void)
{
    for (unsigned m = 0; m < 256; m++) {
        uint64_t v = 0;
        unsigned k = 0;
        for (unsigned l = 0; l < 8; l++)
            if (m >> l & 1)
                v |= (uint64_t)k++ << (8 * l);
        lane_idx[m] = v;
    }
    for (unsigned m = 0; m < 16; m++) {
        unsigned v = 0;
        for (unsigned r = 0; r < 4; r++)
            if (m >> r & 1)
                v |= 3u << (2 * r);
        pair_mask[m] = (uint8_t)v;
    }
    __builtin_cpu_init();
    have_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
}

#define AVX2 __attribute__((target("avx2,popcnt")))

/* Eight lanes of 32 bits under lane flags m, from the dense lanes at src;
 * returns how many dense lanes it took. */
AVX2 static inline unsigned lanes8(uint8_t *dst, const uint8_t *src, unsigned m)
{
    const __m256i sel = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    __m256i idx = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)lane_idx[m]));
    __m256i keep = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)m), sel), sel);
    __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)src);
    v = _mm256_and_si256(_mm256_permutevar8x32_epi32(v, idx), keep);
    _mm256_storeu_si256((__m256i *)(void *)dst, v);
    return (unsigned)_mm_popcnt_u32(m);
}

/* Rows [0, *done) of an es = 4, 8 or 16 expansion; returns the dense values taken. */
AVX2 static size_t expand_avx2(uint8_t *out, const uint8_t *dense, const uint8_t *bm, size_t bit0,
                               size_t n, size_t es, size_t *done)
{
    size_t i = 0, j = 0;
    if (es == 4) {
        for (; i + 8 <= n; i += 8) {
            unsigned m = group8(bm, bit0 + i);
            j += lanes8(out + i * 4, dense + j * 4, m);
        }
    } else if (es == 8) {
        for (; i + 8 <= n; i += 8) {
            unsigned m = group8(bm, bit0 + i);
            j += lanes8(out + i * 8, dense + j * 8, pair_mask[m & 15]) / 2;
            j += lanes8(out + i * 8 + 32, dense + j * 8, pair_mask[m >> 4]) / 2;
        }
    } else {
        /* 16 bytes: two rows of four lanes per register */
        static const uint8_t quad_mask[4] = {0x00, 0x0f, 0xf0, 0xff};
        for (; i + 8 <= n; i += 8) {
            unsigned m = group8(bm, bit0 + i);
            for (unsigned q = 0; q < 4; q++)
                j += lanes8(out + (i + 2 * q) * 16, dense + j * 16, quad_mask[m >> (2 * q) & 3]) / 4;
        }
    }
    *done = i;
    return j;
}
#endif

void cf_expand_nulls(uint8_t *out, const uint8_t *dense, const uint8_t *bm, size_t bit0, size_t n,
                     size_t k, size_t es)
{
    if (k == n) { /* no NULLs in this stretch */
        memcpy(out, dense, n * es);
        return;
    }
    if (k == 0) {
        memset(out, 0, n * es);
        return;
    }
#ifdef CF_EXPAND_X86
    if (es == 4 || es == 8 || es == 16) {
        pthread_once(&once, init);
        if (have_avx2) {
            size_t done, j = expand_avx2(out, dense, bm, bit0, n, es, &done);
            out += done * es;
            dense += j * es;
            bit0 += done;
            n -= done;
        }
    }
#endif
    expand_portable(out, dense, bm, bit0, n, es);
}

/* Spreading dense values around NULL rows (see expand.h).
 *
 * 4-, 8- and 16-byte values on CPUs with AVX2 go eight 32-bit lanes at a
 * time (8, 4 or 2 rows): the row flags of a group index a table of lane
 * permutations that moves the group's dense values into their rows (one
 * table load, one permute, one blend that zeroes the NULL lanes, one store,
 * and a popcount to advance), 64 rows per bitmap load, where the portable
 * loop takes one row per step. Everything else, and the rows after the last
 * whole group, use the portable loop: branch-free, one slot per step (a NULL
 * slot loads the next dense value and masks it to zero), because 10-20% NULLs
 * at random make runs too short for a memcpy per run to pay. Neither reads
 * past the k dense values, so PLAIN blocks are spread from in place.
 *
 * In place (dense = out's last k slots): a step that takes rows [i, i + r)
 * and dense values from j writes no further than row i + r, while the
 * values still unread start at slot n - k + j + (the step's values) >= i + r,
 * because the NULLs among the first i + r rows (i + r - j - those values)
 * are at most n - k. Each step loads before it stores, so the loops need
 * nothing else; runs of present rows move with memmove.
 */
#include "expand.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "util/bitmap.h"
#include "util/cpu.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CF_EXPAND_X86 1
#include <immintrin.h>
#endif

/* Rows while dense values remain (j < k: the slot loaded is always one of
 * them); the rows after the last dense value are all NULL. */
#define SCATTER_FIXED(T)                                                                           \
    do {                                                                                           \
        size_t i = 0;                                                                              \
        for (; i < n && j < k; i++) {                                                              \
            T x;                                                                                   \
            uint64_t b = cf_bitmap_get(bm, bit0 + i);                                              \
            memcpy(&x, dense + j * sizeof(T), sizeof(T));                                          \
            x &= (T)(0 - b);                                                                       \
            memcpy(out + i * sizeof(T), &x, sizeof(T));                                            \
            j += b;                                                                                \
        }                                                                                          \
        memset(out + i * sizeof(T), 0, (n - i) * sizeof(T));                                       \
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
                            size_t n, size_t k, size_t es)
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
        for (; i + 8 <= n && j + 8 <= k; i += 8) {
            unsigned m = group8(bm, bit0 + i);
            if (m == 0xff) {
                memmove(out + i * 16, dense + j * 16, 128);
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
        for (; i < n && j < k; i++) {
            uint64_t b = cf_bitmap_get(bm, bit0 + i), m = 0 - b, x[2];
            memcpy(x, dense + j * 16, 16);
            x[0] &= m;
            x[1] &= m;
            memcpy(out + i * 16, x, 16);
            j += b;
        }
        memset(out + i * 16, 0, (n - i) * 16);
        return;
    }
    default: break;
    }
    size_t i = 0;
    while (i < n) {
        size_t run = cf_bitmap_run(bm, bit0 + i, n - i);
        if (cf_bitmap_get(bm, bit0 + i)) {
            memmove(out + i * es, dense, run * es);
            dense += run * es;
        } else {
            memset(out + i * es, 0, run * es);
        }
        i += run;
    }
}

#ifdef CF_EXPAND_X86
/* Lane permutations, one byte per 32-bit lane: the dense lane a lane takes,
 * or 0x80 for a lane of a NULL row (sign-extended, its sign selects zero in
 * the blend). idx4[m]: 8 rows of 4 bytes under flags m; idx8[m]: 4 rows of 8
 * bytes (two lanes each); idx16[m]: 2 rows of 16 bytes (four lanes each). */
static uint64_t idx4[256], idx8[16], idx16[4];
static int have_avx2;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static uint64_t lanes_for(unsigned m, unsigned rows, unsigned per_row)
{
    uint64_t v = 0;
    unsigned k = 0;
    for (unsigned r = 0; r < rows; r++) {
        bool set = m >> r & 1;
        for (unsigned l = 0; l < per_row; l++) {
            uint64_t b = set ? (uint64_t)(k * per_row + l) : 0x80;
            v |= b << (8 * (r * per_row + l));
        }
        k += set;
    }
    return v;
}

static void init(void)
{
    for (unsigned m = 0; m < 256; m++)
        idx4[m] = lanes_for(m, 8, 1);
    for (unsigned m = 0; m < 16; m++)
        idx8[m] = lanes_for(m, 4, 2);
    for (unsigned m = 0; m < 4; m++)
        idx16[m] = lanes_for(m, 2, 4);
    have_avx2 = cf_cpu_has(CF_CPU_AVX2 | CF_CPU_POPCNT);
}

#define AVX2 __attribute__((target("avx2,popcnt")))

/* One register of rows: 32 bytes of dense values from src permuted by the
 * lane table entry t, NULL lanes zeroed. */
AVX2 static inline void spread(uint8_t *dst, const uint8_t *src, uint64_t t)
{
    __m256i idx = _mm256_cvtepi8_epi32(_mm_cvtsi64_si128((long long)t));
    __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)src);
    v = _mm256_permutevar8x32_epi32(v, idx);
    v = _mm256_blendv_epi8(v, _mm256_setzero_si256(), idx);
    _mm256_storeu_si256((__m256i *)(void *)dst, v);
}

/* Flags of rows [b, b + 64), all inside the range (the ninth byte is read
 * only when b is not on a byte, and then it holds some of them). */
static inline uint64_t group64(const uint8_t *bm, size_t b)
{
    const uint8_t *p = bm + (b >> 3);
    unsigned s = (unsigned)(b & 7);
    uint64_t w;
    memcpy(&w, p, 8);
    if (s != 0)
        w = w >> s | (uint64_t)p[8] << (64 - s);
    return w;
}

/* Rows [0, *done) of an es = 4, 8 or 16 expansion; returns the dense values
 * taken. A step loads 32 bytes of dense values: steps run only while enough
 * values remain, so nothing past the k values is read. 64 rows take one
 * bitmap load; each register is one table load, permute, blend and store,
 * and a popcount to advance. */
AVX2 static size_t expand_avx2(uint8_t *out, const uint8_t *dense, const uint8_t *bm, size_t bit0,
                               size_t n, size_t k, size_t es, size_t *done)
{
    size_t i = 0, j = 0;
    if (es == 4) {
        for (; i + 64 <= n && j + 64 <= k; i += 64) {
            uint64_t w = group64(bm, bit0 + i);
            for (unsigned g = 0; g < 8; g++) {
                unsigned m = (unsigned)(w >> (8 * g)) & 0xff;
                spread(out + (i + 8 * g) * 4, dense + j * 4, idx4[m]);
                j += (unsigned)_mm_popcnt_u32(m);
            }
        }
        for (; i + 8 <= n && j + 8 <= k; i += 8) {
            unsigned m = group8(bm, bit0 + i);
            spread(out + i * 4, dense + j * 4, idx4[m]);
            j += (unsigned)_mm_popcnt_u32(m);
        }
    } else if (es == 8) {
        for (; i + 64 <= n && j + 64 <= k; i += 64) {
            uint64_t w = group64(bm, bit0 + i);
            for (unsigned g = 0; g < 16; g++) {
                unsigned m = (unsigned)(w >> (4 * g)) & 15;
                spread(out + (i + 4 * g) * 8, dense + j * 8, idx8[m]);
                j += (unsigned)_mm_popcnt_u32(m);
            }
        }
        for (; i + 8 <= n && j + 8 <= k; i += 8) {
            unsigned m = group8(bm, bit0 + i);
            spread(out + i * 8, dense + j * 8, idx8[m & 15]);
            j += (unsigned)_mm_popcnt_u32(m & 15);
            spread(out + i * 8 + 32, dense + j * 8, idx8[m >> 4]);
            j += (unsigned)_mm_popcnt_u32(m >> 4);
        }
    } else {
        for (; i + 64 <= n && j + 64 <= k; i += 64) {
            uint64_t w = group64(bm, bit0 + i);
            for (unsigned g = 0; g < 32; g++) {
                unsigned m = (unsigned)(w >> (2 * g)) & 3;
                spread(out + (i + 2 * g) * 16, dense + j * 16, idx16[m]);
                j += (m & 1) + (m >> 1);
            }
        }
        for (; i + 8 <= n && j + 8 <= k; i += 8) {
            unsigned m = group8(bm, bit0 + i);
            for (unsigned q = 0; q < 4; q++) {
                unsigned mq = m >> (2 * q) & 3;
                spread(out + (i + 2 * q) * 16, dense + j * 16, idx16[mq]);
                j += (mq & 1) + (mq >> 1);
            }
        }
    }
    *done = i;
    return j;
}

/* A NULL row's slice. */
static const cf_slice no_entry;
/* dict_rows8 turns a codeword into its entry's address with a shift. */
_Static_assert(sizeof(cf_slice) == 16, "cf_slice is two 8-byte words");

/* Eight rows of a DICT expansion under flags m (table entry t = idx4[m]):
 * the group's codewords permuted into their rows, widened to the addresses of
 * their entries (NULL rows: no_entry's), then one 16-byte copy per row. The
 * addresses go through memory: one store per four rows, then a load per row,
 * cheaper than extracting lanes. */
AVX2 static inline void dict_rows8(cf_slice *out, const uint32_t *cw, const cf_slice *entries,
                                   uint64_t t)
{
    __m128i t8 = _mm_cvtsi64_si128((long long)t);
    __m256i c = _mm256_loadu_si256((const __m256i *)(const void *)cw);
    c = _mm256_permutevar8x32_epi32(c, _mm256_cvtepi8_epi32(t8));
    __m256i base = _mm256_set1_epi64x((long long)(uintptr_t)entries);
    __m256i none = _mm256_set1_epi64x((long long)(uintptr_t)&no_entry);
    __m256i lo = _mm256_cvtepu32_epi64(_mm256_castsi256_si128(c));
    __m256i hi = _mm256_cvtepu32_epi64(_mm256_extracti128_si256(c, 1));
    lo = _mm256_add_epi64(_mm256_slli_epi64(lo, 4), base);
    hi = _mm256_add_epi64(_mm256_slli_epi64(hi, 4), base);
    /* a NULL row's table byte is 0x80: sign-extended, it selects no_entry */
    lo = _mm256_blendv_epi8(lo, none, _mm256_cvtepi8_epi64(t8));
    hi = _mm256_blendv_epi8(hi, none, _mm256_cvtepi8_epi64(_mm_srli_si128(t8, 4)));
    uintptr_t at[8];
    _mm256_storeu_si256((__m256i *)(void *)at, lo);
    _mm256_storeu_si256((__m256i *)(void *)(at + 4), hi);
    for (unsigned r = 0; r < 8; r++)
        memcpy(&out[r], (const void *)at[r], sizeof(cf_slice));
}

/* Rows [0, *done) of a DICT expansion; returns the codewords taken. A group
 * loads eight codewords: groups run only while eight remain. */
AVX2 static size_t expand_dict_avx2(cf_slice *out, const uint32_t *cw, const cf_slice *entries,
                                    const uint8_t *bm, size_t bit0, size_t n, size_t k,
                                    size_t *done)
{
    size_t i = 0, j = 0;
    for (; i + 64 <= n && j + 64 <= k; i += 64) {
        uint64_t w = group64(bm, bit0 + i);
        for (unsigned g = 0; g < 8; g++) {
            unsigned m = (unsigned)(w >> (8 * g)) & 0xff;
            dict_rows8(out + i + 8 * g, cw + j, entries, idx4[m]);
            j += (unsigned)_mm_popcnt_u32(m);
        }
    }
    for (; i + 8 <= n && j + 8 <= k; i += 8) {
        unsigned m = group8(bm, bit0 + i);
        dict_rows8(out + i, cw + j, entries, idx4[m]);
        j += (unsigned)_mm_popcnt_u32(m);
    }
    *done = i;
    return j;
}
#endif

/* simd: whether the AVX2 loops may run (tests turn them off to reach the
 * portable ones on CPUs that have AVX2). */
static void expand_nulls(uint8_t *out, const uint8_t *dense, const uint8_t *bm, size_t bit0,
                         size_t n, size_t k, size_t es, bool simd)
{
    if (k == n) { /* no NULLs in this stretch */
        if (out != dense)
            memcpy(out, dense, n * es);
        return;
    }
    if (k == 0) {
        memset(out, 0, n * es);
        return;
    }
#ifdef CF_EXPAND_X86
    if (simd && (es == 4 || es == 8 || es == 16)) {
        pthread_once(&once, init);
        if (have_avx2) {
            size_t done, j = expand_avx2(out, dense, bm, bit0, n, k, es, &done);
            out += done * es;
            dense += j * es;
            bit0 += done;
            n -= done;
            k -= j;
        }
    }
#else
    (void)simd;
#endif
    expand_portable(out, dense, bm, bit0, n, k, es);
}

const char *cf_expand_impl(void)
{
#ifdef CF_EXPAND_X86
    pthread_once(&once, init);
    if (have_avx2)
        return "avx2";
#endif
    return "portable";
}

void cf_expand_nulls(uint8_t *out, const uint8_t *dense, const uint8_t *bm, size_t bit0, size_t n,
                     size_t k, size_t es)
{
    expand_nulls(out, dense, bm, bit0, n, k, es, true);
}

void cf_expand_nulls_portable(uint8_t *out, const uint8_t *dense, const uint8_t *bm, size_t bit0,
                              size_t n, size_t k, size_t es)
{
    expand_nulls(out, dense, bm, bit0, n, k, es, false);
}

static void expand_dict(cf_slice *out, const uint32_t *cw, const cf_slice *entries,
                        const uint8_t *bm, size_t bit0, size_t n, size_t k, bool simd)
{
    /* The lookup and the spreading in one pass (not entries into a dense
     * array, then that array into the rows), without a branch per row (NULLs
     * at random defeat the predictor): every row loads the entry of the next
     * codeword (there is one while j < k) and a NULL row masks it to zero;
     * eight rows share one bitmap load. With AVX2, eight rows' entry
     * addresses are computed in one register pass (dict_rows8). */
    size_t i = 0, j = 0;
#ifdef CF_EXPAND_X86
    if (simd) {
        pthread_once(&once, init);
        if (have_avx2)
            j = expand_dict_avx2(out, cw, entries, bm, bit0, n, k, &i);
    }
#else
    (void)simd;
#endif
    uint8_t *o = (uint8_t *)out;
    for (; i + 8 <= n && j + 8 <= k; i += 8) {
        unsigned m = group8(bm, bit0 + i);
        for (unsigned r = 0; r < 8; r++) {
            uint64_t b = m >> r & 1, mk = 0 - b, x[2];
            memcpy(x, &entries[cw[j]], 16);
            x[0] &= mk;
            x[1] &= mk;
            memcpy(o + (i + r) * 16, x, 16);
            j += b;
        }
    }
    for (; i < n && j < k; i++) {
        uint64_t b = cf_bitmap_get(bm, bit0 + i), mk = 0 - b, x[2];
        memcpy(x, &entries[cw[j]], 16);
        x[0] &= mk;
        x[1] &= mk;
        memcpy(o + i * 16, x, 16);
        j += b;
    }
    memset(o + i * 16, 0, (n - i) * 16);
}

void cf_expand_dict(cf_slice *out, const uint32_t *cw, const cf_slice *entries, const uint8_t *bm,
                    size_t bit0, size_t n, size_t k)
{
    expand_dict(out, cw, entries, bm, bit0, n, k, true);
}

void cf_expand_dict_portable(cf_slice *out, const uint32_t *cw, const cf_slice *entries,
                             const uint8_t *bm, size_t bit0, size_t n, size_t k)
{
    expand_dict(out, cw, entries, bm, bit0, n, k, false);
}

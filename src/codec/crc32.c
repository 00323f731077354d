/* CRC-32 (zlib's, see crc32.h) by carry-less folding for buffers of
 * FOLD_MIN bytes or more, zlib's crc32_z for the rest and the last bytes.
 *
 * zlib 1.2.13 (Debian 12) computes this CRC with tables, about 2 GB/s here:
 * a Parquet writer that checksums every page spent a tenth of its time in it.
 * Folding is the scheme of the CRC-32C folding paths (crc32c_fold.h, derived
 * in crc32c.c): four 128-bit accumulators move 64 bytes forward per round with
 * two carry-less multiplies each, then fold into one 128-bit lane. That lane
 * and the tail are handed to crc32_z, which needs no reduction of ours: the
 * folded lane followed by the tail has the same CRC (from a zero register) as
 * the whole buffer with the start register XORed into its first 4 bytes.
 *
 * Polynomials are in the reflected representation: bit i of a 32-bit word is
 * the coefficient of x^(31-i).
 */
#include "crc32.h"
#include "gf2.h"

#include <pthread.h>
#include <stdbool.h>
#include <zlib.h>

#include "util/cpu.h"

#if defined(__x86_64__)
#define CF_CRC32_X86 1
#include <immintrin.h>
#else
#define CF_CRC32_X86 0
#endif

#define POLY 0xEDB88320u
#define FOLD_MIN 128u

uint32_t cf_crc32_zlib(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = data;
    while (len > 0) { /* crc32_z takes a z_size_t; keep to uInt steps for old zlibs */
        uInt n = len > 0x40000000u ? 0x40000000u : (uInt)len;
        crc = (uint32_t)crc32(crc, p, n);
        p += n;
        len -= n;
    }
    return crc;
}

#if CF_CRC32_X86

typedef struct fold_k {
    uint64_t lo, hi;
} fold_k;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool have_clmul;
static fold_k by64, by16;

/* a(x) * b(x) mod P. */
static uint32_t gf_mul(uint32_t a, uint32_t b)
{
    return cf_gf2_mul(a, b, POLY);
}

/* x^n mod P, by squaring. */
static uint32_t xpow(uint64_t n)
{
    uint32_t r = 0x80000000u, sq = 0x40000000u; /* 1 and x^1 */
    for (; n != 0; n >>= 1) {
        if (n & 1u)
            r = gf_mul(r, sq);
        sq = gf_mul(sq, sq);
    }
    return r;
}

/* Constants that move a 128-bit lane `bits` forward (crc32c.c fold_pair). */
static fold_k fold_pair(uint64_t bits)
{
    fold_k k = {(uint64_t)xpow(bits + 63) << 32, (uint64_t)xpow(bits - 1) << 32};
    return k;
}

static void init(void)
{
    have_clmul = cf_cpu_has(CF_CPU_PCLMUL | CF_CPU_SSE41);
    by64 = fold_pair(64 * 8);
    by16 = fold_pair(16 * 8);
}

#define CF_CLMUL_TARGET __attribute__((target("pclmul,sse4.1")))

CF_CLMUL_TARGET static inline __m128i fold(__m128i x, __m128i k, __m128i next)
{
    return _mm_xor_si128(
        _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)), next);
}

/* len >= FOLD_MIN. */
CF_CLMUL_TARGET static uint32_t crc_fold(uint32_t crc, const uint8_t *p, size_t len)
{
    __m128i x0 = _mm_loadu_si128((const void *)p);
    x0 = _mm_xor_si128(x0, _mm_cvtsi32_si128((int)~crc));
    __m128i x1 = _mm_loadu_si128((const void *)(p + 16));
    __m128i x2 = _mm_loadu_si128((const void *)(p + 32));
    __m128i x3 = _mm_loadu_si128((const void *)(p + 48));
    p += 64;
    len -= 64;
    const __m128i k64 = _mm_set_epi64x((long long)by64.hi, (long long)by64.lo);
    while (len >= 64) {
        x0 = fold(x0, k64, _mm_loadu_si128((const void *)p));
        x1 = fold(x1, k64, _mm_loadu_si128((const void *)(p + 16)));
        x2 = fold(x2, k64, _mm_loadu_si128((const void *)(p + 32)));
        x3 = fold(x3, k64, _mm_loadu_si128((const void *)(p + 48)));
        p += 64;
        len -= 64;
    }
    const __m128i k16 = _mm_set_epi64x((long long)by16.hi, (long long)by16.lo);
    x1 = fold(x0, k16, x1);
    x2 = fold(x1, k16, x2);
    x3 = fold(x2, k16, x3);
    while (len >= 16) {
        x3 = fold(x3, k16, _mm_loadu_si128((const void *)p));
        p += 16;
        len -= 16;
    }
    uint8_t lane[16];
    _mm_storeu_si128((void *)lane, x3);
    /* from a zero register: crc32_z's preset is the complement of its argument */
    uint32_t c = (uint32_t)crc32(0xffffffffu, lane, 16);
    return len ? (uint32_t)crc32(c, p, (uInt)len) : c;
}

uint32_t cf_crc32(uint32_t crc, const void *data, size_t len)
{
    pthread_once(&once, init);
    if (len >= FOLD_MIN && have_clmul)
        return crc_fold(crc, data, len);
    return cf_crc32_zlib(crc, data, len);
}

const char *cf_crc32_impl(void)
{
    pthread_once(&once, init);
    return have_clmul ? "pclmul" : "zlib";
}

#else

uint32_t cf_crc32(uint32_t crc, const void *data, size_t len)
{
    return cf_crc32_zlib(crc, data, len);
}

const char *cf_crc32_impl(void)
{
    return "zlib";
}

#endif

/* CRC-32C (Castagnoli), format §4: reflected polynomial 0x82F63B78, register
 * preset to 0xFFFFFFFF, final XOR 0xFFFFFFFF. Chaining a previous result as the
 * start value equals the CRC of the concatenation (cf_crc32c_extend).
 *
 * Five implementations, the fastest the CPU has picked at first use (pthread_once):
 *   - portable: slicing-by-8 tables (8 x 256 words, built once);
 *   - sse42, 1 stream: the crc32 instruction, 8 bytes per step;
 *   - sse42, 3 streams: the crc32 instruction has a latency of 3 cycles but a
 *     throughput of 1, so large buffers are cut into three adjacent chunks whose
 *     CRCs run interleaved and are then merged. Merging shifts a register over
 *     n zero bytes, i.e. multiplies it by x^(8n) mod P; with pclmulqdq that is
 *     one carry-less multiply plus one crc32 reduction, else a software
 *     multiply (32 steps, still cheap next to a 24 KiB round);
 *   - avx512: carry-less folding of 64-byte registers (crc32c_avx512.c) for
 *     buffers of FOLD_THRESHOLD bytes or more, the avx2 path below that;
 *   - avx2: the same folding with 32-byte registers (crc32c_avx2.c), for CPUs
 *     with VPCLMULQDQ but no AVX-512, from FOLD256_THRESHOLD bytes, the
 *     3-stream path below that;
 *   - mix (what those CPUs run): from MIX_THRESHOLD bytes, the 256-bit folding
 *     of one part of the buffer and three crc32 streams over the rest at the
 *     same time (crc32c_avx2.c cf_crc32c_mix256_reg): the multiplies and the
 *     crc32 instruction use different units, so together they take a 256 KiB
 *     block at 36-37 GB/s where either alone runs at 21-22 (AMD EPYC, Zen 3).
 *
 * Intel ISA-L's crc32_iscsi (src/codec/isal/, optional) is not among them:
 * timed beside ours on 4 KiB..256 KiB buffers (AVX-512 Xeon), its AVX-512
 * path ran at 76-78 GB/s against our folding's 84-91, and its SSE4.2 paths
 * (crc32_iscsi_00/_01, called directly from a one-off harness) at 17-23 GB/s
 * against our 3-stream path's 22-23. bench_crc32c keeps comparing them.
 *
 * Polynomials below are in the reflected ("bit 31 is x^0") representation the
 * register uses: bit i holds the coefficient of x^(31-i).
 */
#include "crc32c.h"
#include "crc32c_fold.h"
#include "gf2.h"

#include <pthread.h>
#include <string.h>

#include "util/cpu.h"
#include "util/endian.h"

#if defined(__x86_64__)
#define CF_CRC_X86 1
#include <nmmintrin.h>
#include <wmmintrin.h>
#else
#define CF_CRC_X86 0
#endif

#define POLY 0x82F63B78u

/* Streams of the interleaved path: a round covers 3 * LONG (or 3 * SHORT) bytes. */
#define LONG_CHUNK 8192u
#define SHORT_CHUNK 256u
/* The folding path needs one 256-byte round; from there on it beats the
 * 3-stream path at every length measured (256 bytes: 33 against 15 GB/s,
 * 4 KiB: 73 against 22 GB/s on our AVX-512 Xeon VM). */
#define FOLD_THRESHOLD CF_CRC32C_FOLD_MIN
/* Likewise 128 bytes for the 256-bit path (128 bytes: 15 against 7 GB/s,
 * 1 KiB: 39 against 16 GB/s, on the same machine). */
#define FOLD256_THRESHOLD CF_CRC32C_FOLD256_MIN
/* The mixed path's merge costs three dependent shifts plus the building of
 * their constant (up to ~20 multiplies, overlapped with the rounds); it needs
 * two rounds at least. */
#define MIX_THRESHOLD 2048u
_Static_assert(MIX_THRESHOLD >= 2 * CF_CRC32C_MIX_ROUND, "the mixed path needs two rounds");

static pthread_once_t once = PTHREAD_ONCE_INIT;
static uint32_t table[8][256];
/* x^(2^k) mod P for k = 0..66: squaring ladder for shifts over any 64-bit
 * number of bytes (8 * len needs 67 bits). */
static uint32_t xpow2[67];

/* Merge constants of the 3-stream path for one chunk size: `clmul*` for
 * shift_clmul (x^(8n - 33)), `soft*` for gf_mul (x^(8n)), n = chunk, 2 * chunk. */
typedef struct merge_consts {
    uint32_t clmul1, clmul2, soft1, soft2;
} merge_consts;
static merge_consts m_long, m_short;
static bool have_sse42, have_clmul, have_fold, have_fold256;
static cf_crc32c_fold_consts fold_k;
static uint32_t (*impl)(uint32_t, const void *, size_t);
static const char *impl_name = "portable";

/* a(x) * b(x) mod P. */
static uint32_t gf_mul(uint32_t a, uint32_t b)
{
    return cf_gf2_mul(a, b, POLY);
}

/* x^(n * 2^scale) mod P, scale <= 3. */
static uint32_t xpow(uint64_t n, unsigned scale)
{
    uint32_t r = 0x80000000u; /* the polynomial 1 */
    for (unsigned k = scale; n != 0; k++, n >>= 1)
        if (n & 1u)
            r = gf_mul(r, xpow2[k]);
    return r;
}

/* The register after feeding `len` zero bytes into register `reg`. */
static uint32_t shift_soft(uint32_t reg, uint64_t len)
{
    return gf_mul(reg, xpow(len, 3));
}

static merge_consts make_consts(uint32_t chunk)
{
    /* shift_clmul multiplies by K and by x^33 on the way (see there), so a
     * shift over n bytes needs K = x^(8n - 33). */
    merge_consts m = {
        .clmul1 = xpow(8 * (uint64_t)chunk - 33, 0),
        .clmul2 = xpow(16 * (uint64_t)chunk - 33, 0),
        .soft1 = xpow(chunk, 3),
        .soft2 = xpow(2 * (uint64_t)chunk, 3),
    };
    return m;
}

/* Constants to move a 128-bit lane forward by `bits` (crc32c_fold.h). A
 * carry-less product of two 64-bit lanes read as a 128-bit lane (bit j is
 * the coefficient of x^(127-j)) is a * b * x, so each half needs x^(d - 1)
 * for its distance d: bits + 64 for the first 8 bytes, bits for the last 8.
 * A 32-bit register value (bit i = x^(31-i)) sits in the lane's top half. */
static cf_crc32c_fold_k fold_pair(uint64_t bits)
{
    cf_crc32c_fold_k k = {
        .lo = (uint64_t)xpow(bits + 63, 0) << 32,
        .hi = (uint64_t)xpow(bits - 1, 0) << 32,
    };
    return k;
}

static void init(void)
{
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ ((c & 1u) ? POLY : 0u);
        table[0][n] = c;
    }
    for (uint32_t n = 0; n < 256; n++)
        for (int t = 1; t < 8; t++)
            table[t][n] = (table[t - 1][n] >> 8) ^ table[0][table[t - 1][n] & 0xffu];

    xpow2[0] = 0x40000000u; /* x^1 */
    for (int k = 1; k < 67; k++)
        xpow2[k] = gf_mul(xpow2[k - 1], xpow2[k - 1]);
    m_long = make_consts(LONG_CHUNK);
    m_short = make_consts(SHORT_CHUNK);

#if CF_CRC_X86
    have_sse42 = cf_cpu_has(CF_CPU_SSE42);
    have_clmul = cf_cpu_has(CF_CPU_SSE42 | CF_CPU_PCLMUL);
    have_fold = cf_cpu_has(CF_CPU_SSE42 | CF_CPU_PCLMUL | CF_CPU_AVX512F | CF_CPU_VPCLMULQDQ);
    have_fold256 = cf_cpu_has(CF_CPU_SSE42 | CF_CPU_PCLMUL | CF_CPU_AVX2 | CF_CPU_VPCLMULQDQ);
#endif
    fold_k.by256 = fold_pair(256 * 8);
    fold_k.by64 = fold_pair(64 * 8);
    fold_k.by48 = fold_pair(48 * 8);
    fold_k.by32 = fold_pair(32 * 8);
    fold_k.by16 = fold_pair(16 * 8);
    fold_k.by128 = fold_pair(128 * 8);
    for (unsigned j = 6; j < 63; j++)
        fold_k.xshift[j] = xpow(((uint64_t)1 << j) - 33, 0);
    if (have_fold) {
        impl = cf_crc32c_avx512;
        impl_name = "avx512+vpclmul";
    } else if (have_fold256) {
        impl = cf_crc32c_mix;
        impl_name = "avx2+vpclmul+crc32 mix";
    } else if (have_sse42) {
        impl = cf_crc32c_hw;
        impl_name = have_clmul ? "sse42+pclmul" : "sse42";
    } else {
        impl = cf_crc32c_portable;
        impl_name = "portable";
    }
}

static inline void ensure_init(void)
{
    pthread_once(&once, init);
}

/* ---- portable ------------------------------------------------------------------------- */

static uint32_t portable_reg(uint32_t reg, const uint8_t *p, size_t len)
{
    while (len > 0 && ((uintptr_t)p & 7u) != 0) {
        reg = (reg >> 8) ^ table[0][(reg ^ *p++) & 0xffu];
        len--;
    }
    while (len >= 8) {
        uint64_t w = cf_load_le64(p) ^ reg;
        reg = table[7][w & 0xffu] ^ table[6][(w >> 8) & 0xffu] ^ table[5][(w >> 16) & 0xffu] ^
              table[4][(w >> 24) & 0xffu] ^ table[3][(w >> 32) & 0xffu] ^
              table[2][(w >> 40) & 0xffu] ^ table[1][(w >> 48) & 0xffu] ^ table[0][w >> 56];
        p += 8;
        len -= 8;
    }
    while (len > 0) {
        reg = (reg >> 8) ^ table[0][(reg ^ *p++) & 0xffu];
        len--;
    }
    return reg;
}

uint32_t cf_crc32c_portable(uint32_t crc, const void *data, size_t len)
{
    ensure_init();
    return ~portable_reg(~crc, data, len);
}

/* ---- hardware ------------------------------------------------------------------------- */

#if CF_CRC_X86

/* reg(x) * x^(8n) mod P for the n whose constant is k = x^(8n - 33). The
 * carry-less product of two reflected 32-bit values lands in bits 0..62 with
 * bit j holding x^(62-j); read as a 64-bit message word (bit j = x^(63-j)) that
 * is reg*k*x, and crc32 of a word from a zero register multiplies by x^32. */
__attribute__((target("sse4.2,pclmul"))) static inline uint32_t shift_clmul(uint32_t reg,
                                                                            uint32_t k)
{
    __m128i prod = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)reg), _mm_cvtsi32_si128((int)k), 0);
    return (uint32_t)_mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(prod));
}

/* Interleaved rounds of 3 * chunk bytes; returns the register, advances *pp. */
__attribute__((target("sse4.2,pclmul"))) static uint32_t rounds3(uint32_t reg, const uint8_t **pp,
                                                                 size_t *lenp, size_t chunk,
                                                                 const merge_consts *m, bool clmul)
{
    const uint8_t *p = *pp;
    size_t len = *lenp;
    while (len >= 3 * chunk) {
        uint64_t a = reg, b = 0, c = 0;
        const uint8_t *q = p, *end = p + chunk;
        while (q != end) {
            a = _mm_crc32_u64(a, cf_load_le64(q));
            b = _mm_crc32_u64(b, cf_load_le64(q + chunk));
            c = _mm_crc32_u64(c, cf_load_le64(q + 2 * chunk));
            q += 8;
        }
        /* a is followed by 2 chunks, b by 1: shift each over what follows. */
        if (clmul)
            reg = shift_clmul((uint32_t)a, m->clmul2) ^ shift_clmul((uint32_t)b, m->clmul1) ^
                  (uint32_t)c;
        else
            reg = gf_mul((uint32_t)a, m->soft2) ^ gf_mul((uint32_t)b, m->soft1) ^ (uint32_t)c;
        p += 3 * chunk;
        len -= 3 * chunk;
    }
    *pp = p;
    *lenp = len;
    return reg;
}

__attribute__((target("sse4.2"))) static uint32_t hw_tail(uint32_t reg, const uint8_t *p,
                                                          size_t len)
{
    uint64_t r = reg;
    while (len >= 8) {
        r = _mm_crc32_u64(r, cf_load_le64(p));
        p += 8;
        len -= 8;
    }
    reg = (uint32_t)r;
    while (len > 0) {
        reg = _mm_crc32_u8(reg, *p++);
        len--;
    }
    return reg;
}

__attribute__((target("sse4.2"))) static uint32_t hw_reg(uint32_t reg, const uint8_t *p, size_t len,
                                                         bool clmul)
{
    /* Align the loads of the main loops to 8 bytes. */
    while (len > 0 && ((uintptr_t)p & 7u) != 0) {
        reg = _mm_crc32_u8(reg, *p++);
        len--;
    }
    if (len >= 3 * SHORT_CHUNK) {
        reg = rounds3(reg, &p, &len, LONG_CHUNK, &m_long, clmul);
        /* A software merge costs about as much as a short round saves. */
        if (clmul)
            reg = rounds3(reg, &p, &len, SHORT_CHUNK, &m_short, clmul);
    }
    return hw_tail(reg, p, len);
}

bool cf_crc32c_hw_available(void)
{
    ensure_init();
    return have_sse42;
}

uint32_t cf_crc32c_hw(uint32_t crc, const void *data, size_t len)
{
    ensure_init();
    if (!have_sse42) /* contract says callers check; stay correct anyway */
        return cf_crc32c_portable(crc, data, len);
    return ~hw_reg(~crc, data, len, have_clmul);
}

uint32_t cf_crc32c_hw_nopclmul(uint32_t crc, const void *data, size_t len)
{
    ensure_init();
    if (!have_sse42)
        return cf_crc32c_portable(crc, data, len);
    return ~hw_reg(~crc, data, len, false);
}

bool cf_crc32c_avx512_available(void)
{
    ensure_init();
    return have_fold;
}

uint32_t cf_crc32c_avx512(uint32_t crc, const void *data, size_t len)
{
    ensure_init();
    if (!have_fold)
        return cf_crc32c_hw(crc, data, len);
    if (len < FOLD_THRESHOLD) /* 128..255 bytes: the 256-bit path still wins */
        return cf_crc32c_avx2(crc, data, len);
    return ~cf_crc32c_fold512_reg(~crc, data, len, &fold_k);
}

bool cf_crc32c_avx2_available(void)
{
    ensure_init();
    return have_fold256;
}

uint32_t cf_crc32c_avx2(uint32_t crc, const void *data, size_t len)
{
    ensure_init();
    if (!have_fold256)
        return cf_crc32c_hw(crc, data, len);
    if (len < FOLD256_THRESHOLD)
        return ~hw_reg(~crc, data, len, true);
    return ~cf_crc32c_fold256_reg(~crc, data, len, &fold_k);
}

uint32_t cf_crc32c_mix(uint32_t crc, const void *data, size_t len)
{
    ensure_init();
    if (!have_fold256 || len < MIX_THRESHOLD)
        return cf_crc32c_avx2(crc, data, len);
    size_t done;
    uint32_t reg = cf_crc32c_mix256_reg(~crc, data, len, &fold_k, &done);
    const uint8_t *p = (const uint8_t *)data + done;
    len -= done; /* under one round (CF_CRC32C_MIX_ROUND bytes) */
    if (len >= FOLD256_THRESHOLD)
        return ~cf_crc32c_fold256_reg(reg, p, len, &fold_k);
    return ~hw_tail(reg, p, len);
}

#else

bool cf_crc32c_hw_available(void)
{
    return false;
}

bool cf_crc32c_avx512_available(void)
{
    return false;
}

bool cf_crc32c_avx2_available(void)
{
    return false;
}

uint32_t cf_crc32c_avx2(uint32_t crc, const void *data, size_t len)
{
    return cf_crc32c_portable(crc, data, len);
}

uint32_t cf_crc32c_avx512(uint32_t crc, const void *data, size_t len)
{
    return cf_crc32c_portable(crc, data, len);
}

uint32_t cf_crc32c_mix(uint32_t crc, const void *data, size_t len)
{
    return cf_crc32c_portable(crc, data, len);
}

uint32_t cf_crc32c_hw(uint32_t crc, const void *data, size_t len)
{
    return cf_crc32c_portable(crc, data, len);
}

uint32_t cf_crc32c_hw_nopclmul(uint32_t crc, const void *data, size_t len)
{
    return cf_crc32c_portable(crc, data, len);
}

#endif

/* ---- dispatch ------------------------------------------------------------------------- */

uint32_t cf_crc32c_extend(uint32_t crc, const void *data, size_t len)
{
    ensure_init();
    return impl(crc, data, len);
}

uint32_t cf_crc32c(const void *data, size_t len)
{
    return cf_crc32c_extend(0, data, len);
}

const char *cf_crc32c_impl(void)
{
    ensure_init();
    return impl_name;
}

uint32_t cf_crc32c_combine(uint32_t crc1, uint32_t crc2, uint64_t len2)
{
    ensure_init();
    /* The pre- and post-inversions cancel: crc(A || B) = crc(A) * x^(8|B|) ^ crc(B). */
    return shift_soft(crc1, len2) ^ crc2;
}

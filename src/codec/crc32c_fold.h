/* Internal to src/codec/crc32c*.c: the carry-less folding path of CRC-32C
 * (crc32c_avx512.c) and the constants crc32c.c computes for it at init.
 *
 * Folding moves a 128-bit lane of message forward by F bits: with the lane's
 * first 8 bytes a_lo (higher degree) and last 8 bytes a_hi, lane * x^F ==
 * a_lo * x^(F+64) + a_hi * x^F (mod P). Each half is multiplied by a 32-bit
 * constant, so one fold is two carry-less multiplies and the result stays a
 * 128-bit lane that is XORed into the data F bits further on. */
#ifndef CF_CODEC_CRC32C_FOLD_H
#define CF_CODEC_CRC32C_FOLD_H

#include <stddef.h>
#include <stdint.h>

/* One fold distance: {constant for a_lo, constant for a_hi}, as the 128-bit
 * lane the multiplies read (see crc32c.c fold_pair for the derivation). */
typedef struct cf_crc32c_fold_k {
    uint64_t lo, hi;
} cf_crc32c_fold_k;

typedef struct cf_crc32c_fold_consts {
    cf_crc32c_fold_k by256;            /* 4 x 512-bit accumulators: 256 bytes per round */
    cf_crc32c_fold_k by64;             /* one 512-bit register onto the next 64 bytes */
    cf_crc32c_fold_k by48, by32, by16; /* lanes 0..2 of a 512-bit register onto lane 3 */
    cf_crc32c_fold_k by128;            /* 4 x 256-bit accumulators: 128 bytes per round */
    /* (256-bit: by32 folds one register onto the next 32 bytes, by16 lane 0 onto 1) */
    /* x^(2^j - 33) mod P for j = 6..62 (0 below): a register times x^(2^j) is
     * one carry-less multiply by it and one crc32 (crc32c.c shift_clmul). */
    uint32_t xshift[63];
} cf_crc32c_fold_consts;

/* Smallest lengths the folding paths take: their first round's loads. */
#define CF_CRC32C_MIX_STREAM 40u /* bytes per crc32 stream per round of the mixed path */
#define CF_CRC32C_MIX_ROUND (128u + 3u * CF_CRC32C_MIX_STREAM)
#define CF_CRC32C_FOLD_MIN 256u
#define CF_CRC32C_FOLD256_MIN 128u

/* The register after `len` >= CF_CRC32C_FOLD_MIN bytes from register `reg`
 * (no pre/post inversion). Needs AVX-512F, VPCLMULQDQ and SSE4.2 at run time. */
uint32_t cf_crc32c_fold512_reg(uint32_t reg, const uint8_t *p, size_t len,
                               const cf_crc32c_fold_consts *k);
/* The same with 256-bit registers, len >= CF_CRC32C_FOLD256_MIN; needs AVX2,
 * VPCLMULQDQ and SSE4.2 at run time. */
uint32_t cf_crc32c_fold256_reg(uint32_t reg, const uint8_t *p, size_t len,
                               const cf_crc32c_fold_consts *k);

/* The mixed path: the first 128 * n bytes by 256-bit folding while three
 * crc32-instruction streams take the 3 * S * n bytes after them (S =
 * CF_CRC32C_MIX_STREAM, n = len / CF_CRC32C_MIX_ROUND >= 2), the four parts
 * then merged by shifts. Returns the register after those n rounds' bytes and
 * sets *done to their count (the caller takes the rest). Needs what
 * fold256_reg needs; len >= 2 * CF_CRC32C_MIX_ROUND. */
uint32_t cf_crc32c_mix256_reg(uint32_t reg, const uint8_t *p, size_t len,
                              const cf_crc32c_fold_consts *k, size_t *done);

#if defined(__x86_64__)
#include <immintrin.h>

/* The end of both folding paths: the register after the 128-bit lane r (the
 * message so far, folded, with no register to start from) and then the len
 * bytes at p, by the crc32 instruction. Inline, under the callers' targets,
 * which include these. */
__attribute__((target("sse4.2"))) static inline uint32_t
cf_crc32c_lane_tail(__m128i r, const uint8_t *p, size_t len)
{
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
#endif

#endif

/* Internal to src/codec/crc32*.c: multiplication of polynomials over GF(2)
 * modulo a CRC's polynomial, in the reflected bit order both CRCs use (bit 31
 * is x^0). crc32.c and crc32c.c differ only in the polynomial; each computes
 * its shift constants with this at init (and CRC-32C merges its three streams
 * with it where the CPU has no carry-less multiply). */
#ifndef CF_CODEC_GF2_H
#define CF_CODEC_GF2_H

#include <stdint.h>

/* a(x) * b(x) mod P, P the reflected polynomial `poly`. Walks a from x^0 up
 * while multiplying b by x each step. Inline so that each caller's constant
 * polynomial folds into the loop. */
static inline uint32_t cf_gf2_mul(uint32_t a, uint32_t b, uint32_t poly)
{
    uint32_t prod = 0;
    for (uint32_t bit = 0x80000000u; bit != 0 && a != 0; bit >>= 1) {
        if (a & bit) {
            prod ^= b;
            a ^= bit;
        }
        b = (b >> 1) ^ ((b & 1u) ? poly : 0u);
    }
    return prod;
}

#endif

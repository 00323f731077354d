/* Internal: plain LSB-first bitmaps (format §1.7): bit i is bit (i & 7) of byte i >> 3. */
#ifndef CF_UTIL_BITMAP_H
#define CF_UTIL_BITMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline size_t cf_bitmap_bytes(size_t nbits)
{
    return (nbits + 7) / 8;
}
static inline bool cf_bitmap_get(const uint8_t *bm, size_t i)
{
    return (bm[i >> 3] >> (i & 7)) & 1;
}
static inline void cf_bitmap_set(uint8_t *bm, size_t i)
{
    bm[i >> 3] |= (uint8_t)(1u << (i & 7));
}
static inline void cf_bitmap_clear(uint8_t *bm, size_t i)
{
    bm[i >> 3] &= (uint8_t) ~(1u << (i & 7));
}
static inline void cf_bitmap_put(uint8_t *bm, size_t i, bool v)
{
    if (v)
        cf_bitmap_set(bm, i);
    else
        cf_bitmap_clear(bm, i);
}

/* Set (v = true) or clear bits [start, start + n). */
void cf_bitmap_fill(uint8_t *bm, size_t start, size_t n, bool v);
/* Number of set bits in [start, start + n). */
size_t cf_bitmap_count(const uint8_t *bm, size_t start, size_t n);
/* The loop cf_bitmap_count uses: "popcnt" or "portable" (for tests). */
const char *cf_bitmap_count_impl(void);
/* Length of the run of bits equal to bit `start`, from start, at most `max`. */
size_t cf_bitmap_run(const uint8_t *bm, size_t start, size_t max);
/* Copy n bits from src[src_off..] to dst[dst_off..]. */
void cf_bitmap_copy(uint8_t *dst, size_t dst_off, const uint8_t *src, size_t src_off, size_t n);

#endif

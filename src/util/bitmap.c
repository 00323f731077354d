/* Plain LSB-first bitmaps (format §1.7): bit i is bit (i & 7) of byte i >> 3.
 *
 * The range operations work a 64-bit word at a time where they can, since
 * nullable blocks call them on every batch. Word loads go through memcpy so
 * unaligned bitmaps are fine; bytes past the last bit of the range are never
 * read or written. */
#include "bitmap.h"

#include <string.h>

#include "cpu.h"
#include "endian.h"

/* Mask of bits [lo, hi) within one byte, 0 <= lo < hi <= 8. */
static inline uint8_t byte_mask(unsigned lo, unsigned hi)
{
    return (uint8_t)(((1u << (hi - lo)) - 1u) << lo);
}

void cf_bitmap_fill(uint8_t *bm, size_t start, size_t n, bool v)
{
    if (n == 0)
        return;
    size_t end = start + n;
    size_t b0 = start >> 3, b1 = end >> 3; /* first byte, byte holding `end` */
    unsigned s = (unsigned)(start & 7), e = (unsigned)(end & 7);
    if (b0 == b1) {
        uint8_t m = byte_mask(s, e);
        bm[b0] = v ? (uint8_t)(bm[b0] | m) : (uint8_t)(bm[b0] & ~m);
        return;
    }
    if (s != 0) {
        uint8_t m = byte_mask(s, 8);
        bm[b0] = v ? (uint8_t)(bm[b0] | m) : (uint8_t)(bm[b0] & ~m);
        b0++;
    }
    memset(bm + b0, v ? 0xff : 0x00, b1 - b0);
    if (e != 0) {
        uint8_t m = byte_mask(0, e);
        bm[b1] = v ? (uint8_t)(bm[b1] | m) : (uint8_t)(bm[b1] & ~m);
    }
}

static inline __attribute__((always_inline)) size_t count_impl(const uint8_t *bm, size_t start,
                                                               size_t n)
{
    if (n == 0)
        return 0;
    size_t end = start + n;
    size_t b0 = start >> 3, b1 = end >> 3;
    unsigned s = (unsigned)(start & 7), e = (unsigned)(end & 7);
    if (b0 == b1)
        return (size_t)__builtin_popcount(bm[b0] & byte_mask(s, e));
    size_t total = 0;
    if (s != 0) {
        total += (size_t)__builtin_popcount(bm[b0] & byte_mask(s, 8));
        b0++;
    }
    for (; b1 - b0 >= 8; b0 += 8)
        total += (size_t)__builtin_popcountll(cf_load_le64(bm + b0));
    for (; b0 < b1; b0++)
        total += (size_t)__builtin_popcount(bm[b0]);
    if (e != 0)
        total += (size_t)__builtin_popcount(bm[b1] & byte_mask(0, e));
    return total;
}

/* Without -mpopcnt, __builtin_popcount is a libgcc call per word (4% of a
 * nullable scan); x86 CPUs with POPCNT get a copy of the loop built for it,
 * picked once through cpu.h (so CF_CPU_DISABLE reaches it). */
typedef size_t (*count_fn)(const uint8_t *bm, size_t start, size_t n);

static size_t count_portable(const uint8_t *bm, size_t start, size_t n)
{
    return count_impl(bm, start, n);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__POPCNT__)
__attribute__((target("popcnt"))) static size_t count_popcnt(const uint8_t *bm, size_t start,
                                                             size_t n)
{
    return count_impl(bm, start, n);
}

static const cf_cpu_kernel counters[] = {
    {"popcnt", CF_CPU_POPCNT, (cf_cpu_fn)count_popcnt, NULL},
    {"portable", 0, (cf_cpu_fn)count_portable, NULL},
};
static cf_cpu_dispatch counter = CF_CPU_DISPATCH(counters);

size_t cf_bitmap_count(const uint8_t *bm, size_t start, size_t n)
{
    return ((count_fn)cf_cpu_resolve(&counter)->fn)(bm, start, n);
}

const char *cf_bitmap_count_impl(void)
{
    return cf_cpu_resolve(&counter)->name;
}
#else
size_t cf_bitmap_count(const uint8_t *bm, size_t start, size_t n)
{
    return count_portable(bm, start, n);
}

const char *cf_bitmap_count_impl(void)
{
    return "portable";
}
#endif

size_t cf_bitmap_run(const uint8_t *bm, size_t start, size_t max)
{
    if (max == 0)
        return 0;
    bool v = cf_bitmap_get(bm, start);
    size_t i = start, end = start + max;
    /* Finish the partial first byte bit by bit. */
    while (i < end && (i & 7) != 0) {
        if (cf_bitmap_get(bm, i) != v)
            return i - start;
        i++;
    }
    /* Whole words: look for the first bit that differs from v. */
    const uint64_t all = v ? ~(uint64_t)0 : 0;
    while (end - i >= 64) {
        uint64_t w = cf_load_le64(bm + (i >> 3)) ^ all;
        if (w != 0)
            return i + (size_t)__builtin_ctzll(w) - start;
        i += 64;
    }
    const uint8_t allb = v ? 0xff : 0x00;
    while (end - i >= 8) {
        uint8_t w = bm[i >> 3] ^ allb;
        if (w != 0)
            return i + (size_t)__builtin_ctz(w) - start;
        i += 8;
    }
    while (i < end && cf_bitmap_get(bm, i) == v)
        i++;
    return i - start;
}

void cf_bitmap_copy(uint8_t *dst, size_t dst_off, const uint8_t *src, size_t src_off, size_t n)
{
    if (n == 0)
        return;
    if (((dst_off ^ src_off) & 7) == 0) {
        /* Same bit phase: edges by hand, the middle with memmove. */
        size_t head = (8 - (dst_off & 7)) & 7;
        if (head > n)
            head = n;
        for (size_t k = 0; k < head; k++)
            cf_bitmap_put(dst, dst_off + k, cf_bitmap_get(src, src_off + k));
        dst_off += head;
        src_off += head;
        n -= head;
        size_t bytes = n >> 3;
        memmove(dst + (dst_off >> 3), src + (src_off >> 3), bytes);
        dst_off += bytes * 8;
        src_off += bytes * 8;
        n -= bytes * 8;
        for (size_t k = 0; k < n; k++)
            cf_bitmap_put(dst, dst_off + k, cf_bitmap_get(src, src_off + k));
        return;
    }
    /* Different phase: gather up to 8 source bits into one byte, then place it.
     * Bring dst to a byte boundary first so every full step writes a whole byte. */
    while (n > 0 && (dst_off & 7) != 0) {
        cf_bitmap_put(dst, dst_off++, cf_bitmap_get(src, src_off++));
        n--;
    }
    unsigned sh = (unsigned)(src_off & 7); /* nonzero here: phases differ */
    while (n >= 8) {
        const uint8_t *p = src + (src_off >> 3);
        /* 8 bits starting at bit sh of p[0] span p[0] and p[1]. */
        dst[dst_off >> 3] = (uint8_t)((p[0] >> sh) | (p[1] << (8 - sh)));
        dst_off += 8;
        src_off += 8;
        n -= 8;
    }
    for (size_t k = 0; k < n; k++)
        cf_bitmap_put(dst, dst_off + k, cf_bitmap_get(src, src_off + k));
}

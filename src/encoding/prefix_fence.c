/* A PREFIX block's restart fence: for each restart, 8 bytes of its value (the
 * bytes right after the prefix all restarts of the block share) as one
 * big-endian integer, in one contiguous array.
 *
 * A value seek into a 256 KiB block of short keys binary-searches ~4000
 * restarts; in the block each probe is two dependent cache misses (the restart
 * offset, then the entry) and they were most of a warm seek's time. The fence
 * is ~8 bytes per restart (31 KiB for such a block), searched without
 * branches and with both possible next probes prefetched, and it leaves one
 * restart to read from the block. Building it reads every restart once, so it
 * is only worth keeping where a block cache keeps it with the block (as PLAIN
 * BINARY's decoded offsets are kept); without a cache seeks search the block.
 *
 * Layout (native order, 8-byte aligned when the state is):
 *   u32 nrestarts R, u32 common_len L, u32 common_off, u32 entries_off, u64 len,
 *   u64 window[R + 1]
 * common_off: where restart 0's value bytes start (their first L bytes are the
 * shared prefix); window[k] = bytes [L, L + 8) of restart k's value, zero
 * padded, big-endian. For two strings a, b that share their first L bytes,
 * window(a) < window(b) implies a < b (a byte of padding is a zero past the
 * string's end, and a string that ends there is a prefix, hence smaller);
 * equal windows decide nothing. */
#include "prefix_fence.h"

#include <string.h>

#include "util/endian.h"
#include "util/varint.h"

#define HDR 24

size_t cf_prefix_fence_size(uint32_t nrestarts)
{
    return HDR + 8 * ((size_t)nrestarts + 1);
}

static uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Bytes [from, from + 8) of s[0, len), zero padded, as a big-endian integer. */
static inline uint64_t window(const uint8_t *s, size_t len, size_t from)
{
    uint8_t b[8] = {0};
    if (len > from)
        memcpy(b, s + from, len - from < 8 ? len - from : 8);
    return cf_load_be64(b);
}

/* memcmp-then-length order */
static int cmp_bytes(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;
    return c != 0 ? c : alen < blen ? -1 : alen > blen ? 1 : 0;
}

static size_t restart_off(const uint8_t *data, size_t entries_off, size_t entries_end, uint32_t k)
{
    return k == 0 ? entries_off : cf_load_le32(data + entries_end + 4 * ((size_t)k - 1));
}

/* Restart k's value in *v, *vlen; false if the restart or its entry is unsound
 * (format §8.7: restarts increase, each leaves room for an entry, and an entry
 * at a restart shares nothing). */
static bool restart_value(const uint8_t *data, size_t entries_off, size_t entries_end,
                          uint32_t nrestarts, uint32_t k, const uint8_t **v, size_t *vlen)
{
    size_t r = restart_off(data, entries_off, entries_end, k);
    size_t end = k == nrestarts ? entries_end : restart_off(data, entries_off, entries_end, k + 1);
    if (r >= end || end > entries_end || end - r < 2)
        return false;
    uint32_t shared, non_shared;
    const uint8_t *p = cf_varint32_decode(data + r, data + end, &shared);
    if (p != NULL)
        p = cf_varint32_decode(p, data + end, &non_shared);
    if (p == NULL || shared != 0 || non_shared > (size_t)(data + end - p))
        return false;
    *v = p;
    *vlen = non_shared;
    return true;
}

bool cf_prefix_fence_build(uint8_t *dst, const uint8_t *data, size_t len, size_t entries_off,
                           size_t entries_end, uint32_t nrestarts)
{
    if (entries_off > UINT32_MAX || entries_end > len || len - entries_end < 4 ||
        (len - entries_end - 4) / 4 < nrestarts)
        return false;
    const uint8_t *first, *last;
    size_t first_len, last_len;
    if (!restart_value(data, entries_off, entries_end, nrestarts, 0, &first, &first_len) ||
        !restart_value(data, entries_off, entries_end, nrestarts, nrestarts, &last, &last_len))
        return false;
    /* In order, every restart's value shares what the first and last share. */
    size_t common = 0, cn = first_len < last_len ? first_len : last_len;
    while (common < cn && first[common] == last[common])
        common++;
    if (common > UINT32_MAX || (size_t)(first - data) > UINT32_MAX)
        return false;
    uint8_t *w = dst + HDR;
    const uint8_t *prev = first;
    size_t prev_len = first_len;
    for (uint32_t k = 0; k <= nrestarts; k++) {
        const uint8_t *v;
        size_t vlen;
        if (!restart_value(data, entries_off, entries_end, nrestarts, k, &v, &vlen) ||
            cmp_bytes(prev, prev_len, v, vlen) > 0)
            return false;
        uint64_t x = window(v, vlen, common);
        memcpy(w + 8 * (size_t)k, &x, 8);
        prev = v;
        prev_len = vlen;
    }
    uint32_t h[4] = {nrestarts, (uint32_t)common, (uint32_t)(first - data), (uint32_t)entries_off};
    uint64_t l = len;
    memcpy(dst, h, 16);
    memcpy(dst + 16, &l, 8);
    return true;
}

bool cf_prefix_fence_fits(const uint8_t *fence, size_t state_len, size_t len, size_t entries_off,
                          uint32_t nrestarts)
{
    if (state_len != cf_prefix_fence_size(nrestarts))
        return false;
    uint32_t h[4];
    uint64_t l;
    memcpy(h, fence, 16);
    memcpy(&l, fence + 16, 8);
    /* restart 0's value lies in the block, after its two length bytes at least */
    return h[0] == nrestarts && h[3] == entries_off && l == len && h[2] >= entries_off + 2 &&
           h[2] <= len && h[1] <= len - h[2];
}

/* For the n > 0 windows at w, in order: the index i such that the number of
 * windows below x (or_equal: at most x) is i or i + 1, the first exactly when
 * window i is not (see finish). Branch-free, prefetching both possible next
 * probes; once at most 16 candidates are left, also the restart offsets (at
 * `offs`, one per window) that the caller reads next, so that their cache
 * miss overlaps the last probes instead of following them. */
static inline size_t narrow(const uint8_t *w, size_t n, uint64_t x, bool or_equal,
                            const uint8_t *offs)
{
    const uint8_t *base = w;
    while (n > 1) {
        size_t half = n / 2;
        __builtin_prefetch(base + 8 * (half / 2));
        __builtin_prefetch(base + 8 * (half + half / 2));
        if (n <= 16) {
            size_t i = (size_t)(base - w) / 8;
            __builtin_prefetch(offs + 4 * i);
            __builtin_prefetch(offs + 4 * (i + n));
        }
        uint64_t v = load64(base + 8 * half);
        base = (or_equal ? v <= x : v < x) ? base + 8 * half : base;
        n -= half;
    }
    return (size_t)(base - w) / 8;
}

static inline size_t finish(const uint8_t *w, size_t i, uint64_t x, bool or_equal)
{
    uint64_t v = load64(w + 8 * i);
    return i + (or_equal ? v <= x : v < x);
}

/* Prefetch the entry at restart k, which the caller reads first. */
static inline void prefetch_restart(const uint8_t *data, size_t len, size_t entries_end,
                                    const uint8_t *offs, size_t k)
{
    if (k > 0 && 4 * k <= len - entries_end) {
        uint32_t off = cf_load_le32(offs + 4 * k);
        if (off < len)
            __builtin_prefetch(data + off);
    }
}

void cf_prefix_fence_range(const uint8_t *fence, const uint8_t *data, size_t len,
                           size_t entries_end, const uint8_t *key, size_t klen, uint32_t *lo,
                           uint32_t *hi)
{
    uint32_t h[4];
    memcpy(h, fence, 16);
    const uint32_t nr = h[0];
    const size_t common = h[1];
    /* Against the prefix every restart shares: a key below it (or a prefix of
     * it, shorter than every restart) is below every restart, one above it
     * above every restart. */
    size_t n = klen < common ? klen : common;
    int c = cmp_bytes(key, n, data + h[2], n);
    if (c < 0 || (c == 0 && klen < common)) {
        *lo = *hi = 0;
        return;
    }
    if (c > 0) {
        *lo = *hi = nr;
        return;
    }
    uint64_t x = window(key, klen, common);
    const uint8_t *w = fence + HDR + 8; /* restarts 1..nr (nr >= 1) */
    /* restart k's offset is at offs + 4 * k (restart 0 has none) */
    const uint8_t *offs = data + entries_end - 4;
    size_t i = narrow(w, nr, x, false, offs);
    /* The answer is restart i or i + 1: start loading both entries while the
     * last window is compared (the offsets are on their way: see narrow). */
    prefetch_restart(data, len, entries_end, offs, i);
    prefetch_restart(data, len, entries_end, offs, i + 1);
    size_t below = finish(w, i, x, false);
    size_t upto = below;
    if (below < nr && load64(w + 8 * below) == x) {
        size_t m = nr - below - 1;
        upto = below + 1;
        if (m > 0)
            upto +=
                finish(w + 8 * (below + 1),
                       narrow(w + 8 * (below + 1), m, x, true, offs + 4 * (below + 1)), x, true);
    }
    *lo = (uint32_t)below;
    *hi = (uint32_t)upto;
}

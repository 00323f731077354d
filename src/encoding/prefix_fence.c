/* A PREFIX block's restart fence: for each restart, 8 bytes of its value (the
 * bytes right after the prefix all restarts of the block share) as one
 * big-endian integer, in one contiguous array.
 *
 * A value seek into a 256 KiB block of short keys binary-searches ~4000
 * restarts; in the block each probe is two dependent cache misses (the restart
 * offset, then the entry) and they were most of a warm seek's time. The fence
 * is 12 bytes per restart (47 KiB for such a block): the window and the
 * restart's offset side by side, so that the last probes bring the offsets
 * the walk needs. It is searched without branches, both possible next probes
 * prefetched, and the candidate entries prefetched before the search ends;
 * it leaves one restart run to read from the block. Building it reads every
 * restart once, so it is only worth keeping where a block cache keeps it
 * with the block (as PLAIN BINARY's decoded offsets are kept); without a
 * cache seeks search the block.
 *
 * Layout (native order):
 *   u32 nrestarts R, u32 common_len L, u32 common_off, u32 entries_off, u64 len,
 *   T2 = ceil(T / 16) u64 windows: top entry 16 j's (128 bytes for R = 4096),
 *   T = ceil(R / 16) u64 windows, the top entries: restart 1 + 16 j's,
 *   then R + 1 records of 12 bytes: u64 window, u32 offset
 * common_off: where restart 0's value bytes start (their first L bytes are the
 * shared prefix); record k: window = bytes [L, L + 8) of restart k's value,
 * zero padded, big-endian; offset = restart k's entry. For two strings a, b that share their first
 * L bytes, window(a) < window(b) implies a < b (a byte of padding is a zero past the string's end,
 * and a string that ends there is a prefix, hence smaller); equal windows decide nothing. */
#include "prefix_fence.h"

#include <string.h>

#include "util/bytes.h"
#include "util/endian.h"
#include "util/varint.h"

#define HDR 24
#define REC 12   /* bytes per restart */
#define GROUP 16 /* restarts per top entry */

/* Top entries for restarts 1..nr: one per GROUP. */
static size_t top_count(uint32_t nrestarts)
{
    return ((size_t)nrestarts + GROUP - 1) / GROUP;
}

/* Entries above the top ones: one per GROUP of them. */
static size_t top2_count(uint32_t nrestarts)
{
    return (top_count(nrestarts) + GROUP - 1) / GROUP;
}

/* Where the top entries and record 0 start. */
static size_t top_at(uint32_t nrestarts)
{
    return HDR + 8 * top2_count(nrestarts);
}
static size_t recs_at(uint32_t nrestarts)
{
    return top_at(nrestarts) + 8 * top_count(nrestarts);
}

size_t cf_prefix_fence_size(uint32_t nrestarts)
{
    return recs_at(nrestarts) + REC * ((size_t)nrestarts + 1);
}

size_t cf_prefix_fence_restart(const uint8_t *fence, uint32_t k)
{
    uint32_t nr;
    memcpy(&nr, fence, 4);
    return cf_load_le32(fence + recs_at(nr) + REC * (size_t)k + 8);
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
    if (len >= from + 8)
        return cf_load_be64(s + from);
    uint64_t x = 0;
    for (size_t i = from; i < len; i++)
        x |= (uint64_t)s[i] << (8 * (7 - (i - from)));
    return x;
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
    uint8_t *w = dst + recs_at(nrestarts);
    const uint8_t *prev = first;
    size_t prev_len = first_len;
    for (uint32_t k = 0; k <= nrestarts; k++) {
        const uint8_t *v;
        size_t vlen;
        if (!restart_value(data, entries_off, entries_end, nrestarts, k, &v, &vlen) ||
            cf_bytes_cmp_short(prev, prev_len, v, vlen) > 0)
            return false;
        uint64_t x = window(v, vlen, common);
        uint32_t off = (uint32_t)restart_off(data, entries_off, entries_end, k);
        memcpy(w + REC * (size_t)k, &x, 8);
        memcpy(w + REC * (size_t)k + 8, &off, 4);
        prev = v;
        prev_len = vlen;
    }
    /* the top level: the window of every GROUP-th restart from restart 1 */
    uint8_t *top = dst + top_at(nrestarts);
    for (size_t j = 0; j < top_count(nrestarts); j++)
        memcpy(top + 8 * j, w + REC * (1 + GROUP * j), 8);
    /* and above it, every GROUP-th top entry */
    for (size_t j = 0; j < top2_count(nrestarts); j++)
        memcpy(dst + HDR + 8 * j, top + 8 * GROUP * j, 8);
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

/* Prefetch restart k's entry (k <= R: its record is in the fence) if it lies
 * in the block. */
static inline void prefetch_restart(const uint8_t *recs, const uint8_t *data, size_t len, size_t k)
{
    uint32_t off = cf_load_le32(recs + REC * k + 8);
    if (off < len)
        __builtin_prefetch(data + off);
}

/* For the n > 0 records at r (restarts k0, k0 + 1, ...; recs: record 0), in
 * order of their windows: the index i such that the number of windows below
 * x (or_equal: at most x) is i or i + 1, the first exactly when window i is
 * not (see finish). Branch-free, prefetching both possible next probes. The
 * caller then reads the answer's entry from the block, a cache miss: once at
 * most 4 candidates are left, their entries are prefetched (their offsets are
 * in the records these probes bring in), so that miss overlaps the search. */
static inline size_t narrow(const uint8_t *r, size_t n, uint64_t x, bool or_equal,
                            const uint8_t *recs, size_t k0, const uint8_t *data, size_t len)
{
    const uint8_t *base = r;
    while (n > 1) {
        size_t half = n / 2;
        __builtin_prefetch(base + REC * (half / 2));
        __builtin_prefetch(base + REC * (half + half / 2));
        if (n <= 4) {
            /* the answer is restart k0 - 1 + i + c for some c in [0, n] */
            size_t i = (size_t)(base - r) / REC;
            for (size_t c = 0; c <= n; c++)
                prefetch_restart(recs, data, len, k0 - 1 + i + c);
        }
        uint64_t v = load64(base + REC * half);
        base = (or_equal ? v <= x : v < x) ? base + REC * half : base;
        n -= half;
    }
    return (size_t)(base - r) / REC;
}

/* Of the n > 0 windows at w (8 bytes each), the first of which is below x:
 * the index of the last one below x. Branch-free. */
static inline size_t last_below(const uint8_t *w, size_t n, uint64_t x)
{
    const uint8_t *base = w;
    while (n > 1) {
        size_t half = n / 2;
        base = load64(base + 8 * half) < x ? base + 8 * half : base;
        n -= half;
    }
    return (size_t)(base - w) / 8;
}

/* Prefetch the n bytes at p. */
static inline void prefetch_span(const uint8_t *p, size_t n)
{
    for (size_t off = 0; off < n; off += 64)
        __builtin_prefetch(p + off);
    __builtin_prefetch(p + n - 1);
}

static inline size_t finish(const uint8_t *r, size_t i, uint64_t x, bool or_equal)
{
    uint64_t v = load64(r + REC * i);
    return i + (or_equal ? v <= x : v < x);
}

void cf_prefix_fence_range(const uint8_t *fence, const uint8_t *data, size_t len,
                           const uint8_t *key, size_t klen, uint32_t *lo, uint32_t *hi)
{
    uint32_t h[4];
    memcpy(h, fence, 16);
    const uint32_t nr = h[0];
    const size_t common = h[1];
    /* Against the prefix every restart shares: a key below it (or a prefix of
     * it, shorter than every restart) is below every restart, one above it
     * above every restart. */
    size_t n = klen < common ? klen : common;
    int c = cf_bytes_cmp_short(key, n, data + h[2], n);
    if (c < 0 || (c == 0 && klen < common)) {
        *lo = *hi = 0;
        return;
    }
    if (c > 0) {
        *lo = *hi = nr;
        return;
    }
    uint64_t x = window(key, klen, common);
    const uint8_t *top2 = fence + HDR, *top = fence + top_at(nr), *recs = fence + recs_at(nr);
    const uint8_t *w = recs + REC; /* restarts 1..nr (nr >= 1) */
    /* Three levels, each a span whose lines are fetched together (not one
     * dependent miss per probe): the entries above the top ones (one per
     * GROUP top entries) say which GROUP top entries hold the answer's
     * group, those (one window per GROUP restarts) which group, then that
     * group's records (GROUP * 12 bytes). */
    size_t below = 0;
    if (load64(top2) < x) {
        size_t tc = top_count(nr), t2c = top2_count(nr);
        if (t2c <= 32) /* blocks of up to 8192 restarts; a bigger one's probes go one by one */
            prefetch_span(top2, 8 * t2c);
        size_t g2 = last_below(top2, t2c, x);
        size_t tfirst = GROUP * g2, tcnt = tc - tfirst < GROUP ? tc - tfirst : GROUP;
        prefetch_span(top + 8 * tfirst, 8 * tcnt);
        /* group g: windows before it are below x, those after it are not */
        size_t g = tfirst + last_below(top + 8 * tfirst, tcnt, x);
        size_t first = GROUP * g, cnt = nr - first < GROUP ? nr - first : GROUP;
        const uint8_t *r = w + REC * first;
        prefetch_span(r, REC * cnt);
        below = first + finish(r, narrow(r, cnt, x, false, recs, 1 + first, data, len), x, false);
    }
    size_t upto = below;
    if (below < nr && load64(w + REC * below) == x) {
        size_t m = nr - below - 1;
        const uint8_t *w2 = w + REC * (below + 1);
        upto = below + 1;
        if (m > 0)
            upto += finish(w2, narrow(w2, m, x, true, recs, below + 2, data, len), x, true);
    }
    *lo = (uint32_t)below;
    *hi = (uint32_t)upto;
}

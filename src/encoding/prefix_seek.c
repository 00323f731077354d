/* PREFIX decoder's value seek, seek_at_or_after (format §8.10): a binary
 * search over the restarts (narrowed by the restart fence when one is
 * loaded), then a walk of one run comparing the key in place. Owns only the
 * search; it builds just the answer and hands it to the stream
 * (cf_prefix_stream_seat_after_seek). It must not decode into random
 * access's `vals` nor move the stream otherwise. */
#include <inttypes.h>
#include <string.h>

#include "encodings.h"
#include "prefix.h"
#include "prefix_fence.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/varint.h"

/* An empty asm statement in one arm of an if keeps the compiler from turning
 * it into a conditional move. */
#if defined(__GNUC__) || defined(__clang__)
#define CF_NO_IF_CONVERSION() __asm__ volatile("")
#else
#define CF_NO_IF_CONVERSION() ((void)0)
#endif

/* Compare a (alen bytes) with b (blen bytes) as memcmp-then-length order;
 * *lcp = the length of their common prefix. Eight bytes per step: the keys
 * compared here are mostly short, where a memcmp call costs more than this. */
static inline int cmp_lcp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen, size_t *lcp)
{
    size_t n = alen < blen ? alen : blen, i = 0;
    for (; n - i >= 8; i += 8) {
        uint64_t x = cf_load_le64(a + i), y = cf_load_le64(b + i);
        if (x != y) {
            unsigned k = (unsigned)__builtin_ctzll(x ^ y) >> 3;
            *lcp = i + k;
            return a[i + k] < b[i + k] ? -1 : 1;
        }
    }
    for (; i < n; i++)
        if (a[i] != b[i]) {
            *lcp = i;
            return a[i] < b[i] ? -1 : 1;
        }
    *lcp = n;
    return alen < blen ? -1 : alen > blen ? 1 : 0;
}

/* One entry's two varints at p (before limit): the common one-byte case inline. */
static inline const uint8_t *entry_lengths(const uint8_t *p, const uint8_t *limit, uint32_t *shared,
                                           uint32_t *non_shared)
{
    if (limit - p >= 2 && (p[0] | p[1]) < 0x80) {
        *shared = p[0];
        *non_shared = p[1];
        return p + 2;
    }
    p = cf_varint32_decode(p, limit, shared);
    return p != NULL ? cf_varint32_decode(p, limit, non_shared) : NULL;
}

/* Value seeks compare the key in place against the entries, as Kudu does,
 * without rebuilding any value: with m = the common prefix of the previous
 * value and the key (which the previous value is below), an entry sharing
 * more than m bytes with it is below the key as well (same byte at m); one
 * sharing at most m bytes equals the key on those bytes, so only its suffix
 * is compared, against the key's bytes from there. That is exact whatever the
 * order of the values, so damage cannot make it answer wrongly. The answer is
 * then key[0, shared) + its suffix: it alone is built, and the stream (a scan
 * from here) continues right after it. */
cf_status cf_prefix_seek_at_or_after(cf_decoder *d_, const void *key, bool *exact, cf_error *err)
{
    prefix_dec *d = (prefix_dec *)d_;
    const cf_slice *t = key;
    const uint8_t *kd = t->len ? t->data : (const uint8_t *)""; /* no offsets on NULL */
    const size_t klen = t->len;
    *exact = false;
    if (d->base.count == 0) {
        d->base.pos = 0;
        CF_FAIL(err, CF_ENOTFOUND, "prefix block: empty");
    }
    /* format §8.7: last restart whose value is < target (restart 0 if none) */
    const uint8_t *const limit = d->data + d->entries_end;
    uint32_t left = 0, right = d->nrestarts;
    if (d->fence != NULL)
        cf_prefix_fence_range(d->fence, d->data, d->len, kd, klen, &left, &right);
    while (left < right) {
        uint32_t mid = left + (right - left + 1) / 2;
        size_t roff, lcp;
        uint32_t shared, non_shared;
        /* the restart offsets of both possible next probes */
        uint32_t lo_next = left + (mid - 1 - left + 1) / 2, hi_next = mid + (right - mid + 1) / 2;
        if (lo_next > 0)
            __builtin_prefetch(d->restarts + 4 * ((size_t)lo_next - 1));
        __builtin_prefetch(d->restarts + 4 * ((size_t)hi_next - 1));
        CF_CHECK(restart_checked(d, mid, &roff), err, CF_ECORRUPT,
                 "prefix block: restart %" PRIu32 " at offset %zu is outside (%zu, %zu)", mid, roff,
                 restart_off(d, mid - 1), d->entries_end);
        const uint8_t *p = entry_lengths(d->data + roff, limit, &shared, &non_shared);
        CF_CHECK(p != NULL && shared == 0 && non_shared <= (size_t)(limit - p), err, CF_ECORRUPT,
                 "prefix block: bad entry at restart %" PRIu32, mid);
        /* A real branch, not a conditional move: its speculation starts the
         * next probe's two dependent cache misses (restart, then entry) early
         * half the time; a conditional move would wait for every one. */
        if (cmp_lcp(p, non_shared, kd, klen, &lcp) < 0) {
            left = mid;
            CF_NO_IF_CONVERSION();
        } else {
            right = mid - 1;
        }
    }
    /* Walk the entries from restart `left` with the checks decode_run_to makes. */
    const uint32_t interval = d->interval;
    size_t idx = (size_t)left * interval;
    uint32_t k = left;
    size_t start = d->entries_off, end = d->entries_end;
    if (d->fence != NULL) /* its offsets were checked as restart_checked does */
        start = cf_prefix_fence_restart(d->fence, k);
    else
        CF_CHECK(k == 0 || restart_checked(d, k, &start), err, CF_ECORRUPT,
                 "prefix block: restart %" PRIu32 " at offset %zu is outside (%zu, %zu)", k,
                 restart_off(d, k), restart_off(d, k - 1), d->entries_end);
    const uint8_t *p = d->data + start;
    /* the run's later lines: the walk below reads them one after another */
    if (d->entries_end - start > 64)
        __builtin_prefetch(p + 64);
    if (d->entries_end - start > 128)
        __builtin_prefetch(p + 128);
    size_t prev_len = 0, m = 0;
    /* next_run: the first value of the next run (no division per entry) */
    size_t next_run = idx;
    k = left - 1; /* becomes left at the first run start */
    for (; idx < d->base.count; idx++) {
        if (idx == next_run) {
            k++;
            next_run += interval;
            CF_CHECK(p == d->data + end || k == left, err, CF_ECORRUPT,
                     "prefix block: restart %" PRIu32 " at offset %zu does not follow value %zu", k,
                     end, idx - 1);
            end = d->entries_end;
            if (k < d->nrestarts && d->fence != NULL)
                end = cf_prefix_fence_restart(d->fence, k + 1);
            else
                CF_CHECK(k == d->nrestarts || restart_checked(d, k + 1, &end), err, CF_ECORRUPT,
                         "prefix block: restart %" PRIu32 " at offset %zu is outside (%zu, %zu)",
                         k + 1, restart_off(d, k + 1), restart_off(d, k), d->entries_end);
            prev_len = 0;
            m = 0;
        }
        const uint8_t *run_end = d->data + end;
        uint32_t shared, non_shared;
        const uint8_t *q = entry_lengths(p, run_end, &shared, &non_shared);
        CF_CHECK(q != NULL, err, CF_ECORRUPT, "prefix block: value %zu: bad shared or value length",
                 idx);
        CF_CHECK(non_shared <= (size_t)(run_end - q), err, CF_ECORRUPT,
                 "prefix block: value %zu: %" PRIu32 " bytes run past the end of its run", idx,
                 non_shared);
        /* format §8.7: shared never exceeds the previous value (0 at a restart) */
        CF_CHECK(shared <= prev_len, err, CF_ECORRUPT,
                 "prefix block: value %zu shares %" PRIu32 " bytes with a %zu-byte value", idx,
                 shared, prev_len);
        p = q + non_shared;
        prev_len = (size_t)shared + non_shared;
        if (shared > m)
            continue; /* still below the key, with the same common prefix */
        size_t lcp;
        int c = cmp_lcp(q, non_shared, kd + shared, klen - shared, &lcp);
        m = shared + lcp;
        if (c < 0)
            continue;
        *exact = c == 0;
        d->base.pos = idx;
        if (idx >= d->s_idx && d->s_idx != SIZE_MAX)
            return cf_prefix_stream_seat_after_seek(d, idx, kd, shared, q, non_shared,
                                                    (size_t)(p - d->data), end, err);
        return CF_OK;
    }
    d->base.pos = d->base.count;
    CF_FAIL(err, CF_ENOTFOUND, "prefix block: every value is smaller than the key");
}

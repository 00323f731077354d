/* PREFIX decoder's stream: the values a scan reads in order (prefix.h), for
 * next() (prefix_dec.c, which also starts the stream's arena over for a
 * batch-scoped caller). Owns decoding into the stream's position and arena
 * (s_*, sa) and where a value seek leaves the stream (h_*). It must not touch
 * random access's state (vals, runs, ra except for a seek's answer), nor
 * parse the block's header (prefix_dec.c's load). */
#include <inttypes.h>
#include <string.h>

#include "encodings.h"
#include "prefix.h"
#include "util/arena.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/varint.h"

/* Start run k at the stream's position p (an offset): the run before it must
 * have ended exactly here (at restart k), and the run's end is restart k + 1,
 * checked as restart_checked does, or the restart array. */
static cf_status stream_run_start(prefix_dec *d, uint32_t k, size_t p, size_t *end, cf_error *err)
{
    CF_CHECK(p == *end, err, CF_ECORRUPT,
             "prefix block: restart %" PRIu32 " at offset %zu does not follow value %zu", k, *end,
             (size_t)k * d->interval - 1);
    if (k == d->nrestarts) {
        *end = d->entries_end;
        return CF_OK;
    }
    size_t r = restart_off(d, k + 1);
    CF_CHECK(r > p && r < d->entries_end && d->entries_end - r >= 2, err, CF_ECORRUPT,
             "prefix block: restart %" PRIu32 " at offset %zu is outside (%zu, %zu)", k + 1, r, p,
             d->entries_end);
    *end = r;
    return CF_OK;
}

/* Move the stream forward to value idx, the first of its run. */
static cf_status stream_seat(prefix_dec *d, size_t idx, cf_error *err)
{
    uint32_t k = (uint32_t)(idx / d->interval);
    size_t off = d->entries_off;
    CF_CHECK(k == 0 || restart_checked(d, k, &off), err, CF_ECORRUPT,
             "prefix block: restart %" PRIu32 " at offset %zu is outside (%zu, %zu)", k,
             restart_off(d, k), restart_off(d, k - 1), d->entries_end);
    d->s_idx = idx;
    d->s_off = d->s_end = off;
    d->s_prev = (cf_slice){NULL, 0};
    return CF_OK;
}

/* A value seek found value idx = key[0, shared) + the suffix at q: keep it as
 * the head (h_idx) and stand the stream right after it (at offset next, in the
 * run ending at run_end), so that reading on from the seek decodes nothing
 * twice. Only called when the stream has not passed idx: each value is then
 * still built at most once per load. */
cf_status cf_prefix_stream_seat_after_seek(prefix_dec *d, size_t idx, const uint8_t *key,
                                           size_t shared, const uint8_t *q, size_t non_shared,
                                           size_t next, size_t run_end, cf_error *err)
{
    cf_slice v = {q, non_shared};
    if (shared > 0) {
        size_t n = shared + non_shared;
        CF_CHECK(n <= d->materialize_cap - d->s_materialized, err, CF_ENOTSUP,
                 "prefix block: values expand beyond %zu bytes", d->materialize_cap);
        uint8_t *dst = cf_arena_alloc(&d->ra, n < 16 ? 16 : n); /* see readable16 */
        CF_CHECK(dst != NULL, err, CF_ENOMEM, "prefix block: out of memory");
        d->s_materialized += n;
        copy_short(dst, key, shared);
        copy_short(dst + shared, q, non_shared);
        v = (cf_slice){dst, n};
    }
    d->h_idx = idx;
    d->h_val = v;
    d->s_idx = idx + 1;
    d->s_off = next;
    d->s_end = run_end;
    d->s_prev = v;
    return CF_OK;
}

/* The stream's arena cursor a (a copy of d->sa.p, advanced by the caller)
 * has fewer than `need` bytes left before its end: store it back and return
 * a cursor with room for `need` (*end: its end), NULL when memory is short
 * (d->sa.p is then the caller's cursor, consistent). */
static uint8_t *stream_arena_refill(prefix_dec *d, uint8_t *a, size_t need, uint8_t **end)
{
    d->sa.p = a;
    if (!cf_arena_reserve(&d->sa, need))
        return NULL;
    *end = d->sa.end;
    return d->sa.p;
}

#ifdef PREFIX_SSE2
/* keep_mask + 16 - s: 16-byte mask whose first s bytes are 0xff (s <= 16). */
static const uint8_t keep_mask[32] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
#endif

/* The next n values (s_idx + n <= count) from the stream into out.
 *
 * The arena cursor lives in locals (a, a_end) while decoding: stores to out
 * could otherwise alias the decoder's fields and force reloads. A value of at
 * most 16 bytes whose suffix starts at least 16 bytes before the block's end
 * is built in a register from the previous value's register copy (`pr`, valid
 * whenever p <= safe: the previous value is then either in the arena, which
 * has 16 readable bytes behind each value, or earlier in the block) and
 * stored packed. Such values take at most 16 bytes per 2-byte entry, so only
 * longer ones count against materialize_cap. */
static cf_status stream_next(prefix_dec *d, cf_slice *out, size_t n, cf_error *err)
{
    const uint8_t *const data = d->data;
    /* p <= safe: 16 bytes readable at p (never true for a block under 16 bytes) */
    const uint8_t *const safe = data + (d->len >= 16 ? d->len - 16 : 0);
    const size_t cap = d->materialize_cap;
    const uint32_t interval = d->interval;
    size_t idx = d->s_idx, end = d->s_end, mat = d->s_materialized;
    const uint8_t *p = data + d->s_off, *lim = data + end;
    cf_slice prev = d->s_prev;
    uint8_t *a = d->sa.p, *a_end = d->sa.end; /* NULL, NULL before its first chunk */
    cf_status st = CF_OK;
#ifdef PREFIX_SSE2
    __m128i pr = _mm_setzero_si128();
    if (prev.len > 0 && readable16(d, prev.data))
        pr = _mm_loadu_si128((const __m128i *)(const void *)prev.data);
#endif
    size_t j = 0;
    /* values left in the run that ends at `end` (0: the next value starts a run) */
    size_t run_left = idx % interval ? interval - idx % interval : 0;
    while (j < n) {
        if (run_left == 0) {
            CF_TRY_OUT(
                stream_run_start(d, (uint32_t)(idx / interval), (size_t)(p - data), &end, err));
            lim = data + end;
            prev = (cf_slice){NULL, 0};
            run_left = interval;
        }
#ifdef PREFIX_SSE2
        /* While the run ends at least 18 bytes before the block's end, every
         * 16-byte load below stays in the block; values of at most 16 bytes
         * take 16 bytes of arena room at most, reserved up front. Runs follow
         * one another in this loop (a restart costs a few checks, not a trip
         * through the loop around it). The first entry or restart it does not
         * take (long lengths, a long value, damage, the block's last bytes)
         * goes to the code around it, which reports damage. */
        if ((size_t)(data + d->len - lim) >= 18) {
            size_t want = n - j;
            if ((size_t)(a_end - a) < 16 * want && (size_t)(a_end - a) < 16 * 64) {
                size_t need = 16 * (want < 1024 ? want : 1024);
                if ((a = stream_arena_refill(d, a, need, &a_end)) == NULL) {
                    a = d->sa.p;
                    CF_FAIL_OUT(err, CF_ENOMEM, "prefix block: out of memory");
                }
            }
            size_t room = (size_t)(a_end - a) / 16;
            /* out through a pointer, shared as a negative index: fewer
             * instructions per value (the loop is throughput-bound too) */
            cf_slice *o = out + j, *const o_end = o + (want < room ? want : room);
            uint32_t k = (uint32_t)(idx / interval); /* the current run */
            const uint8_t *pd = prev.data;
            size_t plen = prev.len;
            const uint8_t *const keep_end = keep_mask + 16;
            for (; o < o_end; o++) {
                if (run_left == 0) {
                    /* run k + 1 starts here: stream_run_start's checks */
                    size_t r = d->entries_end;
                    if (p != lim || k + 1 > d->nrestarts)
                        break;
                    if (k + 1 < d->nrestarts) {
                        r = restart_off(d, k + 2);
                        if (r <= (size_t)(p - data) || r >= d->entries_end ||
                            d->entries_end - r < 2)
                            break;
                    }
                    if (d->len - r < 18)
                        break;
                    k++;
                    end = r;
                    lim = data + r;
                    run_left = interval;
                    pd = NULL;
                    plen = 0;
                }
                /* Two byte loads, not one 16-bit load and a shift: the next
                 * entry's address (p + 2 + non_shared) is the loop's chain of
                 * dependent loads, one instruction shorter this way. */
                size_t shared = p[0], non_shared = p[1];
                const uint8_t *q = p + 2;
                if (((shared | non_shared) & 0x80) != 0 || (ptrdiff_t)non_shared > lim - q ||
                    shared > plen)
                    break;
                size_t len = shared + non_shared;
                if (__builtin_expect(shared != 0, 1)) {
                    if (len > 16)
                        break;
                    ptrdiff_t back = -(ptrdiff_t)shared;
                    __m128i keep =
                        _mm_loadu_si128((const __m128i *)(const void *)(keep_end + back));
                    __m128i suf = _mm_loadu_si128((const __m128i *)(const void *)(q + back));
                    pr = _mm_or_si128(_mm_and_si128(keep, pr), _mm_andnot_si128(keep, suf));
                    _mm_storeu_si128((__m128i *)(void *)a, pr);
                    pd = a;
                    plen = len;
                    a += len;
                } else {
                    pd = q;
                    plen = non_shared;
                    pr = _mm_loadu_si128((const __m128i *)(const void *)q);
                }
                *o = (cf_slice){pd, plen};
                p = q + non_shared;
                run_left--;
            }
            size_t done = (size_t)(o - (out + j));
            j += done;
            idx += done;
            prev = (cf_slice){pd, plen};
        }
#endif
        size_t m = run_left < n - j ? run_left : n - j;
        const size_t stop = j + m;
        run_left -= m;
        for (; j < stop; j++, idx++) {
            uint32_t shared, non_shared;
            /* Two bytes are readable even at lim (p <= lim <= entries_end, and
             * the restart count follows); an entry that does not fit before
             * lim fails the non_shared check below. */
            uint16_t w = cf_load_le16(p);
            if ((w & 0x8080) == 0) {
                shared = w & 0x7f;
                non_shared = w >> 8;
                p += 2;
            } else {
                p = cf_varint32_decode(p, lim, &shared);
                if (p != NULL)
                    p = cf_varint32_decode(p, lim, &non_shared);
                if (p == NULL)
                    CF_FAIL_OUT(err, CF_ECORRUPT,
                                "prefix block: value %zu: bad shared or value length", idx);
            }
            if ((ptrdiff_t)non_shared > lim - p)
                CF_FAIL_OUT(err, CF_ECORRUPT,
                            "prefix block: value %zu: %" PRIu32
                            " bytes run past the end of its run",
                            idx, non_shared);
            /* format §8.7: shared never exceeds the previous value (0 at a restart) */
            if (shared > prev.len)
                CF_FAIL_OUT(err, CF_ECORRUPT,
                            "prefix block: value %zu shares %" PRIu32
                            " bytes with a %zu-byte value",
                            idx, shared, prev.len);
            size_t len = (size_t)shared + non_shared;
            if (shared == 0) {
                prev = (cf_slice){p, non_shared};
#ifdef PREFIX_SSE2
                if (p <= safe)
                    pr = _mm_loadu_si128((const __m128i *)(const void *)p);
            } else if (len <= 16 && p <= safe) {
                if ((size_t)(a_end - a) < 16 &&
                    (a = stream_arena_refill(d, a, 16, &a_end)) == NULL) {
                    a = d->sa.p;
                    CF_FAIL_OUT(err, CF_ENOMEM, "prefix block: out of memory");
                }
                /* prefix from the register, suffix loaded from p - shared (inside
                 * the run: a value is never longer than its run's suffixes so
                 * far) so that its bytes land at offset shared */
                __m128i keep =
                    _mm_loadu_si128((const __m128i *)(const void *)(keep_mask + 16 - shared));
                __m128i suf = _mm_loadu_si128((const __m128i *)(const void *)(p - shared));
                pr = _mm_or_si128(_mm_and_si128(keep, pr), _mm_andnot_si128(keep, suf));
                _mm_storeu_si128((__m128i *)(void *)a, pr);
                prev = (cf_slice){a, len};
                a += len; /* packed: the next value's store may cover our spare bytes */
#endif
            } else {
                if (len > cap - mat)
                    CF_FAIL_OUT(err, CF_ENOTSUP, "prefix block: values expand beyond %zu bytes",
                                cap);
                mat += len;
                size_t room = len < 16 ? 16 : len; /* 16 readable bytes: see readable16 */
                if ((size_t)(a_end - a) < room &&
                    (a = stream_arena_refill(d, a, room, &a_end)) == NULL) {
                    a = d->sa.p;
                    CF_FAIL_OUT(err, CF_ENOMEM, "prefix block: out of memory");
                }
                copy_short(a, prev.data, shared);
                copy_short(a + shared, p, non_shared);
#ifdef PREFIX_SSE2
                pr = _mm_loadu_si128((const __m128i *)(const void *)a);
#endif
                prev = (cf_slice){a, len};
                a += room;
            }
            out[j] = prev;
            p += non_shared;
        }
    }
    d->s_idx = idx;
    d->s_off = (size_t)(p - data);
    d->s_end = end;
    d->s_prev = prev;
    d->s_materialized = mat;
out:
    if (st != CF_OK)
        d->s_idx = SIZE_MAX; /* the random-access path takes over and meets the same damage */
    d->sa.p = a;
    return st;
}

/* prefix.h */
cf_status cf_prefix_stream_next(prefix_dec *d, cf_slice *out, size_t n, size_t *got, cf_error *err)
{
    size_t avail = d->base.count - d->base.pos;
    if (n > avail)
        n = avail;
    *got = 0;
    if (n == 0)
        return CF_OK;
    /* A seek forward to a run start moves the stream there. */
    if (d->base.pos != d->s_idx)
        CF_TRY(stream_seat(d, d->base.pos, err));
    CF_TRY(stream_next(d, out, n, err));
    d->base.pos += n;
    *got = n;
    return CF_OK;
}

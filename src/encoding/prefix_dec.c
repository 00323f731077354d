/* PREFIX decoder handle (prefix.h has the block layout and the two read
 * paths). Owns: creating and freeing the decoder, load (parsing a block's
 * header and restart count and bounding what it may rebuild), random access
 * (decoding entries lazily into `vals`, one restart run at a time), next()
 * (a value seek's answer, the stream or random access for each value), the
 * positional seek, the saved restart fence (prefix_fence.c) and the ops
 * table. It must not decode for the stream (prefix_stream.c) nor search by
 * value (prefix_seek.c). */
#include <inttypes.h>
#include <string.h>

#include "encodings.h"
#include "prefix.h"
#include "prefix_fence.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/group_varint.h"
#include "util/varint.h"

/* Refuse blocks whose rebuilt values would exceed this many bytes beyond the
 * structural bound (see prefix_materialize_cap); a hostile restart interval could
 * otherwise make a few KiB expand to gigabytes. */
#define MATERIALIZE_FLOOR ((size_t)64 << 20)

static void prefix_dec_free(cf_decoder *d_)
{
    prefix_dec *d = (prefix_dec *)d_;
    if (d == NULL)
        return;
    cf_arena_dispose(&d->ra);
    cf_arena_dispose(&d->sa);
    cf_free(d->vals);
    cf_free(d->runs);
    cf_free(d->fence_own);
    cf_free(d);
}

static cf_status prefix_dec_create(cf_decoder **out, const cf_dec_params *p, cf_error *err)
{
    *out = NULL;
    CF_CHECK(p->elem_size == sizeof(cf_slice), err, CF_EINVAL,
             "prefix decoding: type %d is not a binary type", (int)p->type);
    return cf_dec_new(out, sizeof(prefix_dec), &cf_dec_prefix_ops, "prefix decoding", err);
}

static cf_status prefix_load(cf_decoder *d_, const uint8_t *data, size_t len, cf_error *err)
{
    prefix_dec *d = (prefix_dec *)d_;
    uint32_t hdr[4];
    cf_dec_unbind(&d->base);
    d->data = NULL;
    d->len = 0;
    d->nrestarts = 0;
    CF_CHECK(len > 0, err, CF_ECORRUPT, "prefix block: empty");
    const uint8_t *p = cf_gvint_decode_group(data, data + len, hdr);
    CF_CHECK(p != NULL, err, CF_ECORRUPT, "prefix block: %zu bytes cannot hold its header", len);
    size_t hl = (size_t)(p - data);
    /* format §8.7: the block ends with fixed32 R, preceded by R fixed32 restarts */
    CF_CHECK(len - hl >= 4, err, CF_ECORRUPT,
             "prefix block: %zu bytes cannot hold the restart count", len);
    uint32_t nr = cf_load_le32(data + len - 4);
    CF_CHECK(nr <= (len - hl - 4) / 4, err, CF_ECORRUPT,
             "prefix block: %" PRIu32 " restarts do not fit in %zu bytes", nr, len);
    size_t entries_end = len - 4 - 4 * (size_t)nr;
    size_t count = hdr[0];
    uint32_t interval = hdr[2];
    if (count > 0) {
        CF_CHECK(interval >= 1, err, CF_ECORRUPT, "prefix block: restart interval 0");
        /* each entry takes at least two bytes (its two varints) */
        CF_CHECK(count <= (entries_end - hl) / 2, err, CF_ECORRUPT,
                 "prefix block: %zu values cannot fit in %zu bytes of entries", count,
                 entries_end - hl);
        uint32_t want = (uint32_t)((count - 1) / interval);
        CF_CHECK(nr == want, err, CF_ECORRUPT,
                 "prefix block: %" PRIu32 " restarts for %zu values at interval %" PRIu32
                 " (expected %" PRIu32 ")",
                 nr, count, interval, want);
    } else {
        CF_CHECK(nr == 0, err, CF_ECORRUPT, "prefix block: %" PRIu32 " restarts but no values", nr);
    }
    /* Each restart is checked when a seek or a decode first uses it
     * (restart_checked), not here: a load then costs O(1) instead of a read of
     * every restart, which dominated value seeks into big blocks. */
    const uint8_t *restarts = data + entries_end;
    /* Both arrays describe one load only: grow them without copying (a copy
     * would touch every page of the old array on each bigger block; fresh
     * zeroed memory is touched only where a seek decodes). */
    if (count > d->vals_cap) {
        /* an eighth more: blocks of one file differ by a few values */
        size_t cap = count + count / 8;
        cf_free(d->vals);
        d->vals_cap = 0;
        d->vals = cf_malloc(cap * sizeof *d->vals);
        CF_CHECK(d->vals != NULL, err, CF_ENOMEM, "prefix block: out of memory for %zu values",
                 count);
        d->vals_cap = cap;
    }
    if ((size_t)nr + 1 > d->runs_cap) {
        size_t cap = (size_t)nr + 1 + ((size_t)nr + 1) / 8;
        cf_free(d->runs);
        d->runs_cap = 0;
        d->runs = cf_calloc(cap, sizeof *d->runs);
        CF_CHECK(d->runs != NULL, err, CF_ENOMEM,
                 "prefix block: out of memory for %" PRIu32 " runs", nr);
        d->runs_cap = cap;
    }
    d->data = data;
    d->len = len;
    d->entries_off = hl;
    d->entries_end = entries_end;
    d->restarts = restarts;
    d->nrestarts = nr;
    d->interval = interval;
    /* Run states start lazily (run_at): a seek into a big block touches only
     * the runs it decodes, not one state per restart. */
    if (++d->gen == 0) {
        memset(d->runs, 0, d->runs_cap * sizeof *d->runs);
        d->gen = 1;
    }
    cf_arena_reset(&d->ra);
    cf_arena_reset(&d->sa);
    d->materialized = 0;
    /* s_end == s_off: the "previous run ends here" check at value 0 holds */
    d->s_idx = 0;
    d->s_off = d->s_end = hl;
    d->s_prev = (cf_slice){NULL, 0};
    d->s_materialized = 0;
    d->h_idx = SIZE_MAX;
    d->fence = NULL;
    /* A well-formed block rebuilds at most interval * entries bytes (a value is no
     * longer than the entries of its run so far); allow that for ordinary
     * intervals, and a fixed floor beyond. */
    size_t bound;
    if (!cf_mul_ok(entries_end - hl, interval < 16 ? interval : 16, &bound))
        bound = SIZE_MAX;
    d->materialize_cap = bound > MATERIALIZE_FLOOR ? bound : MATERIALIZE_FLOOR;
    d->base.count = count;
    d->base.first_ord = hdr[1];
    return CF_OK;
}

/* Run k's state, started afresh if it belongs to an earlier load. */
static inline run_state *run_at(prefix_dec *d, uint32_t k)
{
    run_state *rs = &d->runs[k];
    if (rs->gen != d->gen) {
        rs->gen = d->gen;
        rs->done = 0;
        rs->next_off = restart_off(d, k);
    }
    return rs;
}

/* Decode run k up to and including value index idx (in the run's range). */
static cf_status decode_run_to(prefix_dec *d, uint32_t k, size_t idx, cf_error *err)
{
    run_state *rs = run_at(d, k);
    size_t base = (size_t)k * d->interval;
    /* a run ends at the next restart (which must be exactly where its last entry
     * ends) or at the restart array */
    size_t start, end = d->entries_end;
    CF_CHECK(k == 0 || restart_checked(d, k, &start), err, CF_ECORRUPT,
             "prefix block: restart %" PRIu32 " at offset %zu is outside (%zu, %zu)", k,
             restart_off(d, k), restart_off(d, k - 1), d->entries_end);
    CF_CHECK(k == d->nrestarts || restart_checked(d, k + 1, &end), err, CF_ECORRUPT,
             "prefix block: restart %" PRIu32 " at offset %zu is outside (%zu, %zu)", k + 1,
             restart_off(d, k + 1), restart_off(d, k), d->entries_end);
    const uint8_t *p = d->data + rs->next_off;
    const uint8_t *limit = d->data + end;
    size_t i = base + rs->done;
    cf_slice prevv = rs->done ? d->vals[i - 1] : (cf_slice){NULL, 0};
#ifdef PREFIX_SSE2
    const __m128i iota = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
#endif
    for (; i <= idx; i++) {
        uint32_t shared, non_shared;
        if (p < limit && *p < 0x80) {
            shared = *p++;
        } else {
            p = cf_varint32_decode(p, limit, &shared);
            CF_CHECK(p != NULL, err, CF_ECORRUPT, "prefix block: value %zu: bad shared length", i);
        }
        if (p < limit && *p < 0x80) {
            non_shared = *p++;
        } else {
            p = cf_varint32_decode(p, limit, &non_shared);
            CF_CHECK(p != NULL, err, CF_ECORRUPT, "prefix block: value %zu: bad length", i);
        }
        CF_CHECK(non_shared <= (size_t)(limit - p), err, CF_ECORRUPT,
                 "prefix block: value %zu: %" PRIu32 " bytes run past the end of its run", i,
                 non_shared);
        /* format §8.7: shared never exceeds the previous value (0 at a restart) */
        CF_CHECK(shared <= prevv.len, err, CF_ECORRUPT,
                 "prefix block: value %zu shares %" PRIu32 " bytes with a %zu-byte value", i,
                 shared, prevv.len);
        if (shared == 0) {
            prevv.data = p;
            prevv.len = non_shared;
#ifdef PREFIX_SSE2
        } else if (shared + non_shared <= 16 && (size_t)(d->data + d->len - p) >= 16 &&
                   readable16(d, prevv.data)) {
            /* A short value is built in one register and stored with one
             * 16-byte store: the next value's prefix load then forwards from
             * that store instead of stalling on two partial ones. The suffix
             * is loaded from p - shared so that its bytes land at offset
             * shared; p - shared >= the run's start, since a value is never
             * longer than the suffixes of its run so far. */
            size_t n = (size_t)shared + non_shared;
            CF_CHECK(n <= d->materialize_cap - d->materialized, err, CF_ENOTSUP,
                     "prefix block: values expand beyond %zu bytes", d->materialize_cap);
            uint8_t *dst = cf_arena_alloc(&d->ra, 16); /* 16 so that it can be loaded whole */
            CF_CHECK(dst != NULL, err, CF_ENOMEM, "prefix block: out of memory");
            d->materialized += n;
            __m128i keep = _mm_cmpgt_epi8(_mm_set1_epi8((char)shared), iota);
            __m128i pre = _mm_loadu_si128((const __m128i *)(const void *)prevv.data);
            __m128i suf = _mm_loadu_si128((const __m128i *)(const void *)(p - shared));
            _mm_storeu_si128((__m128i *)(void *)dst,
                             _mm_or_si128(_mm_and_si128(keep, pre), _mm_andnot_si128(keep, suf)));
            prevv.data = dst;
            prevv.len = n;
            d->vals[i] = prevv;
            p += non_shared;
            continue;
#endif
        } else {
            size_t n = (size_t)shared + non_shared;
            CF_CHECK(n <= d->materialize_cap - d->materialized, err, CF_ENOTSUP,
                     "prefix block: values expand beyond %zu bytes", d->materialize_cap);
            uint8_t *dst = cf_arena_alloc(&d->ra, n < 16 ? 16 : n); /* see readable16 */
            CF_CHECK(dst != NULL, err, CF_ENOMEM, "prefix block: out of memory");
            d->materialized += n;
            copy_short(dst, prevv.data, shared);
            copy_short(dst + shared, p, non_shared);
            prevv.data = dst;
            prevv.len = n;
        }
        d->vals[i] = prevv;
        p += non_shared;
    }
    rs->done = (uint32_t)(i - base);
    rs->next_off = (size_t)(p - d->data);
    size_t run_n = d->base.count - base;
    if (run_n > d->interval)
        run_n = d->interval;
    if (rs->done == run_n && k < d->nrestarts)
        CF_CHECK(p == limit, err, CF_ECORRUPT,
                 "prefix block: restart %" PRIu32 " at offset %zu does not follow value %zu", k + 1,
                 end, i - 1);
    return CF_OK;
}

/* Make values [idx, idx + n) available in d->vals; *in_run = how many of
 * them lie in idx's run. */
static cf_status ensure(prefix_dec *d, size_t idx, size_t n, size_t *in_run, cf_error *err)
{
    uint32_t k = (uint32_t)(idx / d->interval);
    size_t base = (size_t)k * d->interval;
    size_t run_end = d->base.count - base > d->interval ? base + d->interval : d->base.count;
    size_t last = idx + n < run_end ? idx + n : run_end; /* exclusive */
    if (base + run_at(d, k)->done < last)
        CF_TRY(decode_run_to(d, k, last - 1, err));
    *in_run = last - idx;
    return CF_OK;
}

/* Batch-scoped stream (base.batch_scoped): what earlier calls handed out is
 * dead, so the stream arena starts over; only the stream's previous value,
 * the prefix source of its next one, moves to the front if it lives there. */
static cf_status stream_arena_restart(prefix_dec *d, cf_error *err)
{
    cf_arena *sa = &d->sa;
    const uint8_t *v = d->s_prev.data;
    size_t len = d->s_prev.len;
    bool in_sa = len > 0 && cf_arena_owns(sa, v);
    cf_arena_reset(sa);
    if (!in_sa)
        return CF_OK;
    /* v's chunk holds at least the room asked here (see readable16), so
     * the walk to a chunk with room never frees it as too small */
    uint8_t *dst = cf_arena_alloc(sa, len < 16 ? 16 : len); /* see readable16 */
    CF_CHECK(dst != NULL, err, CF_ENOMEM, "prefix block: out of memory");
    memmove(dst, v, len); /* both may lie in the first chunk */
    d->s_prev.data = dst;
    return CF_OK;
}

/* prefix.h. Here, beside random access, not with the stream: a cached seek
 * reads one value through ensure(), which then stays inlined (a call into
 * another file cost 23 instructions per seek); a scan's call goes to the
 * stream straight away (a tail call). */
cf_status cf_prefix_next(cf_decoder *d_, void *dst, size_t n, size_t *got, cf_error *err)
{
    prefix_dec *d = (prefix_dec *)d_;
    cf_slice *out = dst;
    *got = 0;
    if (d->base.batch_scoped && d->sa.head != NULL)
        CF_TRY(stream_arena_restart(d, err));
    if (d->base.pos == d->s_idx) /* never a value seek's answer: h_idx < s_idx */
        return cf_prefix_stream_next(d, out, n, got, err);
    size_t avail = d->base.count - d->base.pos;
    if (n > avail)
        n = avail;
    size_t i = 0;
    while (i < n) {
        size_t m, pos = d->base.pos;
        if (pos == d->h_idx) {
            /* the value a value seek found; the stream continues after it */
            out[i++] = d->h_val;
            d->base.pos++;
            *got = i;
            continue;
        }
        /* The stream, where it stands or from a run start ahead of it,
         * takes the rest of the call. */
        if (pos == d->s_idx || (pos > d->s_idx && pos % d->interval == 0)) {
            CF_TRY(cf_prefix_stream_next(d, out + i, n - i, &m, err));
            *got = i + m;
            return CF_OK;
        }
        CF_TRY(ensure(d, pos, n - i, &m, err));
        memcpy(out + i, d->vals + pos, m * sizeof *out);
        i += m;
        d->base.pos += m;
        *got = i;
    }
    return CF_OK;
}

/* Saved state (encoding.h): the block's restart fence, built here (one read of
 * every restart) for a block cache to keep; 0 when the block has too few
 * restarts to gain from one, so many that the fence would outweigh half the
 * block, or restarts a fence cannot describe exactly (damage, values out of
 * order: seeks then search the block, as without). */
static size_t prefix_saved_len(cf_decoder *d_)
{
    prefix_dec *d = (prefix_dec *)d_;
    if (d->data == NULL || d->nrestarts < CF_PREFIX_FENCE_MIN_RESTARTS)
        return 0;
    size_t n = cf_prefix_fence_size(d->nrestarts);
    /* Short restart intervals make a fence of ~12 bytes per few values: keep
     * it to half the block, so that the cache it is charged to keeps most of
     * its room for blocks (Kudu's interval of 16 over 16-byte keys: ~18%). */
    if (n > d->len / 2)
        return 0;
    if (d->fence == NULL) {
        if (n > d->fence_cap) {
            cf_free(d->fence_own);
            d->fence = NULL;
            d->fence_cap = 0;
            d->fence_own = cf_malloc(n);
            if (d->fence_own == NULL)
                return 0;
            d->fence_cap = n;
        }
        if (!cf_prefix_fence_build(d->fence_own, d->data, d->len, d->entries_off, d->entries_end,
                                   d->nrestarts))
            return 0;
        d->fence = d->fence_own; /* this load's seeks use it too */
    }
    return n;
}

static void prefix_save(const cf_decoder *d_, void *dst)
{
    const prefix_dec *d = (const prefix_dec *)d_;
    memcpy(dst, d->fence, cf_prefix_fence_size(d->nrestarts));
}

static cf_status prefix_load_saved(cf_decoder *d_, const uint8_t *data, size_t len,
                                   const void *state, size_t state_len, cf_error *err)
{
    prefix_dec *d = (prefix_dec *)d_;
    CF_TRY(prefix_load(d_, data, len, err));
    if (!cf_prefix_fence_fits(state, state_len, len, d->entries_off, d->nrestarts)) {
        d->base.count = 0;
        d->data = NULL;
        d->len = 0;
        d->nrestarts = 0;
        CF_FAIL(err, CF_ECORRUPT, "prefix block: saved restart fence does not fit the block");
    }
    d->fence = state;
    return CF_OK;
}

const cf_decoder_ops cf_dec_prefix_ops = {
    .encoding = CF_ENC_PREFIX,
    .create = prefix_dec_create,
    .free = prefix_dec_free,
    .load = prefix_load,
    .seek = cf_dec_seek_positional,
    .next = cf_prefix_next,
    .seek_at_or_after = cf_prefix_seek_at_or_after,
    .saved_len = prefix_saved_len,
    .save = prefix_save,
    .load_saved = prefix_load_saved,
};

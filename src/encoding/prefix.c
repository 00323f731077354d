/* PREFIX block encoding for binary types: front coding with restart points
 * (format §8.7; writer fullness §10.2; seeking §8.10).
 *
 *   offset            size     field
 *   0                 5..17    gvint(count, first_ordinal, restart_interval, 0)
 *   H                 ...      entry[0..count): varint32 shared, varint32 non_shared,
 *                              non_shared bytes (value[shared:])
 *   len - 4 - 4R      4 * R    restart[1..R]: fixed32 offset from block start of
 *                              entry[k * restart_interval]; restart 0 (= H) is implicit
 *   len - 4           4        fixed32 R = floor((count - 1) / restart_interval), 0 if empty
 *
 * Writer: shared is the full common prefix with the previous value, 0 at a
 * restart; a value is taken only while the entries area (header and restarts
 * excluded) is <= block_size.
 *
 * Reader: a value with shared == 0 is served straight from the block; others
 * are rebuilt into a chunked arena so that every slice handed out stays valid
 * until the next load. Two paths decode:
 *  - the stream: next() from where the previous next() stopped (a scan) writes
 *    slices straight into the caller's array and keeps the previous value's
 *    first 16 bytes in a register, so a short value is one blend and one store;
 *  - random access (after a seek, and value seeks): entries are decoded
 *    lazily into `vals`, one restart run at a time and only as far as asked.
 * Each value is decoded at most once by each path per load, which bounds the
 * arena; both apply the same checks.
 */
#include <inttypes.h>
#include <string.h>

#include "encodings.h"
#include "prefix_fence.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/group_varint.h"
#include "util/varint.h"

/* SSE2 is part of x86-64 itself: no run-time check needed. */
#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__))
#include <emmintrin.h>
#define PREFIX_SSE2 1
#endif

/* An empty asm statement in one arm of an if keeps the compiler from turning
 * it into a conditional move. */
#if defined(__GNUC__) || defined(__clang__)
#define CF_NO_IF_CONVERSION() __asm__ volatile("")
#else
#define CF_NO_IF_CONVERSION() ((void)0)
#endif

/* The encoder keeps this much room in front of the entries so that finish can
 * write the header in place (a gvint group is at most 17 bytes). */
#define HDR_ROOM CF_GVINT_MAX_GROUP

/* Refuse blocks whose rebuilt values would exceed this many bytes beyond the
 * structural bound (see prefix_materialize_cap); a hostile restart interval could
 * otherwise make a few KiB expand to gigabytes. */
#define MATERIALIZE_FLOOR ((size_t)64 << 20)

/* ---- encoder ---------------------------------------------------------------------- */

typedef struct prefix_enc {
    cf_encoder base;
    uint32_t block_size;
    uint32_t interval;
    cf_buf buf;         /* HDR_ROOM spare bytes, then the entries; restarts at finish */
    uint32_t *restarts; /* offsets relative to the start of the entries area */
    size_t nrestarts, restarts_cap;
    cf_buf last; /* copy of the last value added, for the next call's prefix */
    size_t count;
    uint32_t since_restart;
    bool failed; /* allocation failed or a value was too long: finish reports it */
    cf_status fail_code;
    bool finished; /* out is the finished block, until reset */
    cf_slice out;
} prefix_enc;

static size_t entries_len(const prefix_enc *e)
{
    return e->buf.len - HDR_ROOM;
}

static void prefix_enc_reset(cf_encoder *e_)
{
    prefix_enc *e = (prefix_enc *)e_;
    e->buf.len = HDR_ROOM;
    e->nrestarts = 0;
    cf_buf_clear(&e->last);
    e->count = 0;
    e->since_restart = 0;
    e->finished = false;
}

static void prefix_enc_free(cf_encoder *e_)
{
    prefix_enc *e = (prefix_enc *)e_;
    if (e == NULL)
        return;
    cf_buf_dispose(&e->buf);
    cf_buf_dispose(&e->last);
    cf_free(e->restarts);
    cf_free(e);
}

static cf_status prefix_enc_create(cf_encoder **out, const cf_enc_params *p, cf_error *err)
{
    *out = NULL;
    CF_CHECK(p->elem_size == sizeof(cf_slice), err, CF_EINVAL,
             "prefix encoding: type %d is not a binary type", (int)p->type);
    CF_CHECK(p->restart_interval >= 1, err, CF_EINVAL,
             "prefix encoding: restart interval must be at least 1");
    prefix_enc *e = cf_calloc(1, sizeof *e);
    CF_CHECK(e != NULL, err, CF_ENOMEM, "prefix encoding: out of memory");
    e->base.ops = &cf_enc_prefix_ops;
    e->block_size = p->block_size;
    e->interval = p->restart_interval;
    cf_buf_init(&e->buf);
    cf_buf_init(&e->last);
    if (!cf_buf_reserve(&e->buf, HDR_ROOM + (size_t)p->block_size + 64)) {
        prefix_enc_free(&e->base);
        CF_FAIL(err, CF_ENOMEM, "prefix encoding: out of memory");
    }
    e->buf.len = HDR_ROOM;
    *out = &e->base;
    return CF_OK;
}

static size_t common_prefix(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen, i = 0;
    while (n - i >= 8) {
        uint64_t x = cf_load_le64(a + i) ^ cf_load_le64(b + i);
        if (x != 0)
            return i + ((size_t)__builtin_ctzll(x) >> 3);
        i += 8;
    }
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

static void enc_fail(prefix_enc *e, cf_status code)
{
    if (!e->failed) {
        e->failed = true;
        e->fail_code = code;
    }
}

static bool push_restart(prefix_enc *e, uint32_t off)
{
    if (e->nrestarts == e->restarts_cap) {
        size_t cap = e->restarts_cap ? e->restarts_cap * 2 : 64;
        uint32_t *r = cf_realloc(e->restarts, cap * sizeof *r);
        if (r == NULL)
            return false;
        e->restarts = r;
        e->restarts_cap = cap;
    }
    e->restarts[e->nrestarts++] = off;
    return true;
}

static size_t prefix_add(cf_encoder *e_, const void *vals, size_t n, bool force)
{
    prefix_enc *e = (prefix_enc *)e_;
    const cf_slice *v = vals;
    const uint8_t *prev = e->last.data;
    size_t prev_len = e->last.len;
    size_t i = 0;
    if (e->failed)
        return n; /* swallow values: finish reports the first failure */
    if (e->finished)
        return 0; /* Requires: reset after finish */
    for (; i < n; i++) {
        /* format §8.7: the entries area alone is compared, before each value */
        if (!force && entries_len(e) > e->block_size)
            break;
        const uint8_t *s = v[i].data;
        size_t len = v[i].len;
        if (len > UINT32_MAX || entries_len(e) + len > UINT32_MAX - 16) {
            enc_fail(e, CF_EINVAL);
            return n;
        }
        if (!cf_buf_reserve(&e->buf, 10 + len)) {
            enc_fail(e, CF_ENOMEM);
            return n;
        }
        size_t shared = 0;
        if (e->since_restart < e->interval) {
            shared = common_prefix(prev, prev_len, s, len);
        } else {
            if (!push_restart(e, (uint32_t)entries_len(e))) {
                enc_fail(e, CF_ENOMEM);
                return n;
            }
            e->since_restart = 0;
        }
        uint8_t *dst = e->buf.data + e->buf.len;
        dst += cf_varint32_encode(dst, (uint32_t)shared);
        dst += cf_varint32_encode(dst, (uint32_t)(len - shared));
        if (len - shared)
            memcpy(dst, s + shared, len - shared);
        dst += len - shared;
        e->buf.len = (size_t)(dst - e->buf.data);
        prev = s;
        prev_len = len;
        e->since_restart++;
        e->count++;
    }
    if (i > 0) {
        /* the last value may live in the caller's memory: keep our own copy */
        cf_buf_clear(&e->last);
        cf_buf_append(&e->last, prev, prev_len);
        if (e->last.oom)
            enc_fail(e, CF_ENOMEM);
    }
    return i;
}

static bool prefix_is_full(const cf_encoder *e_)
{
    const prefix_enc *e = (const prefix_enc *)e_;
    return e->failed || entries_len(e) > e->block_size;
}

static size_t prefix_count(const cf_encoder *e_)
{
    return ((const prefix_enc *)e_)->count;
}

static cf_status prefix_finish(cf_encoder *e_, uint32_t first_ord, cf_slice *out, cf_error *err)
{
    prefix_enc *e = (prefix_enc *)e_;
    if (e->failed)
        CF_FAIL(err, e->fail_code,
                e->fail_code == CF_ENOMEM ? "prefix encoding: out of memory"
                                          : "prefix encoding: value or block longer than 4 GiB");
    CF_CHECK(e->count <= UINT32_MAX, err, CF_EINVAL, "prefix encoding: too many values");
    if (e->finished) { /* the trailer is already appended: only the ordinal can change */
        uint8_t *old = (uint8_t *)e->out.data;
        uint8_t hdr[CF_GVINT_MAX_GROUP];
        size_t hl = cf_gvint_encode_group(hdr, (uint32_t)e->count, first_ord, e->interval, 0);
        size_t oldhl = (size_t)(e->buf.data + HDR_ROOM - old);
        CF_CHECK(hl == oldhl, err, CF_ESTATE, "prefix encoding: finish twice with another ordinal");
        memcpy(old, hdr, hl);
        *out = e->out;
        return CF_OK;
    }
    uint8_t hdr[CF_GVINT_MAX_GROUP];
    size_t hl = cf_gvint_encode_group(hdr, (uint32_t)e->count, first_ord, e->interval, 0);
    uint8_t *tail = cf_buf_extend(&e->buf, 4 * e->nrestarts + 4);
    CF_CHECK(tail != NULL, err, CF_ENOMEM, "prefix encoding: out of memory");
    for (size_t k = 0; k < e->nrestarts; k++)
        cf_store_le32(tail + 4 * k, e->restarts[k] + (uint32_t)hl);
    cf_store_le32(tail + 4 * e->nrestarts, (uint32_t)e->nrestarts);
    uint8_t *start = e->buf.data + HDR_ROOM - hl;
    memcpy(start, hdr, hl);
    out->data = start;
    out->len = e->buf.len - (HDR_ROOM - hl);
    e->out = *out;
    e->finished = true;
    return CF_OK;
}

const cf_encoder_ops cf_enc_prefix_ops = {
    .encoding = CF_ENC_PREFIX,
    .create = prefix_enc_create,
    .free = prefix_enc_free,
    .add = prefix_add,
    .is_full = prefix_is_full,
    .count = prefix_count,
    .finish = prefix_finish,
    .reset = prefix_enc_reset,
    .finish_dict = NULL,
};

/* ---- decoder ---------------------------------------------------------------------- */

/* Decoding state of one restart run: how many of its values are decoded and
 * where its next entry starts (offset from the block start). */
typedef struct run_state {
    uint32_t done;
    uint32_t gen; /* the state is current only when this equals the decoder's gen */
    size_t next_off;
} run_state;

typedef struct prefix_dec {
    cf_decoder base;
    const uint8_t *data;
    size_t len;
    size_t entries_off; /* header length */
    size_t entries_end; /* offset where the restart array begins */
    const uint8_t *restarts;
    uint32_t nrestarts;
    uint32_t interval;
    cf_slice *vals; /* value i, once its run has decoded that far */
    size_t vals_cap;
    run_state *runs; /* nrestarts + 1, initialized on first use (see run_at) */
    size_t runs_cap;
    uint32_t gen; /* bumped by every load: makes every run state stale at once */
    /* Rebuilt values: ra for the random-access path and value seeks' answers
     * (valid until the next load), sa for the stream (until the next load, or
     * with base.batch_scoped until the next call: it then stays a batch's size). */
    cf_arena ra, sa; /* reset by every load, keeping their chunks */
    size_t materialized, materialize_cap;
    /* The stream (see the top of the file). s_idx only grows during a load
     * (SIZE_MAX once it failed), so it decodes each value at most once. */
    size_t s_idx;        /* next value the stream decodes */
    size_t s_off, s_end; /* its entry's offset; the end of its run (checked) */
    cf_slice s_prev;     /* the value before s_idx in its run; {NULL, 0} at a run start */
    size_t s_materialized;
    /* A value seek's answer, rebuilt from the key (see prefix_seek_at_or_after):
     * value h_idx is h_val, and the stream stands right after it. SIZE_MAX: none. */
    size_t h_idx;
    cf_slice h_val;
    /* The loaded block's restart fence (prefix_fence.h), if any: a saved
     * state's (load_saved) or fence_own once saved_len built it. */
    const uint8_t *fence;
    uint8_t *fence_own;
    size_t fence_cap;
} prefix_dec;

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
    prefix_dec *d = cf_calloc(1, sizeof *d);
    CF_CHECK(d != NULL, err, CF_ENOMEM, "prefix decoding: out of memory");
    d->base.ops = &cf_dec_prefix_ops;
    *out = &d->base;
    return CF_OK;
}

/* Copy n bytes between non-overlapping buffers without a library call for the
 * short lengths values mostly have: two overlapping fixed-size copies. */
static inline void copy_short(uint8_t *dst, const uint8_t *src, size_t n)
{
    if (n >= 16) {
        if (n > 32) {
            memcpy(dst, src, n);
            return;
        }
        memcpy(dst, src, 16);
        memcpy(dst + n - 16, src + n - 16, 16);
    } else if (n >= 8) {
        memcpy(dst, src, 8);
        memcpy(dst + n - 8, src + n - 8, 8);
    } else if (n >= 4) {
        memcpy(dst, src, 4);
        memcpy(dst + n - 4, src + n - 4, 4);
    } else if (n > 0) {
        dst[0] = src[0];
        dst[n / 2] = src[n / 2];
        dst[n - 1] = src[n - 1];
    }
}

static inline size_t restart_off(const prefix_dec *d, uint32_t k)
{
    return k == 0 ? d->entries_off : cf_load_le32(d->restarts + 4 * ((size_t)k - 1));
}

static cf_status prefix_load(cf_decoder *d_, const uint8_t *data, size_t len, cf_error *err)
{
    prefix_dec *d = (prefix_dec *)d_;
    uint32_t hdr[4];
    d->base.count = 0;
    d->base.first_ord = 0;
    d->base.pos = 0;
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

/* Whether 16 bytes can be read from v, the start of a non-empty value: it is
 * either inside the block or in the arena, whose allocations are all at least
 * 16 bytes long. */
static inline bool readable16(const prefix_dec *d, const uint8_t *v)
{
    uintptr_t off = (uintptr_t)v - (uintptr_t)d->data;
    return off >= d->len || d->len - off >= 16;
}

/* Restart k's offset (1 <= k <= nrestarts) in *off, and whether it is sound:
 * strictly after restart k - 1 (restart 0 is the end of the header), inside
 * the entries area and leaving room for one two-byte entry (format §8.7). */
static inline bool restart_checked(const prefix_dec *d, uint32_t k, size_t *off)
{
    size_t r = restart_off(d, k), prev = restart_off(d, k - 1);
    *off = r;
    return r > prev && r < d->entries_end && d->entries_end - r >= 2;
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

/* Make values [idx, idx + n) available; returns how many of them lie in idx's run. */
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

/* ---- the stream ------------------------------------------------------------------- */

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
static cf_status seat_after_seek(prefix_dec *d, size_t idx, const uint8_t *key, size_t shared,
                                 const uint8_t *q, size_t non_shared, size_t next, size_t run_end,
                                 cf_error *err)
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

static cf_status prefix_seek(cf_decoder *d_, size_t idx, cf_error *err)
{
    CF_CHECK(idx <= d_->count, err, CF_EINVAL, "prefix block: seek to %zu past %zu values", idx,
             d_->count);
    d_->pos = idx;
    return CF_OK;
}

static cf_status prefix_next(cf_decoder *d_, void *dst, size_t n, size_t *got, cf_error *err)
{
    prefix_dec *d = (prefix_dec *)d_;
    cf_slice *out = dst;
    size_t avail = d->base.count - d->base.pos;
    if (n > avail)
        n = avail;
    *got = 0;
    if (d->base.batch_scoped && d->sa.head != NULL)
        CF_TRY(stream_arena_restart(d, err));
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
        /* A seek forward to a run start moves the stream there. */
        if (pos > d->s_idx && pos % d->interval == 0)
            CF_TRY(stream_seat(d, pos, err));
        if (pos == d->s_idx) {
            m = n - i;
            CF_TRY(stream_next(d, out + i, m, err));
        } else {
            CF_TRY(ensure(d, pos, n - i, &m, err));
            memcpy(out + i, d->vals + pos, m * sizeof *out);
        }
        i += m;
        d->base.pos += m;
        *got = i;
    }
    return CF_OK;
}

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
static cf_status prefix_seek_at_or_after(cf_decoder *d_, const void *key, bool *exact,
                                         cf_error *err)
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
            return seat_after_seek(d, idx, kd, shared, q, non_shared, (size_t)(p - d->data), end,
                                   err);
        return CF_OK;
    }
    d->base.pos = d->base.count;
    CF_FAIL(err, CF_ENOTFOUND, "prefix block: every value is smaller than the key");
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
    .seek = prefix_seek,
    .next = prefix_next,
    .seek_at_or_after = prefix_seek_at_or_after,
    .saved_len = prefix_saved_len,
    .save = prefix_save,
    .load_saved = prefix_load_saved,
};

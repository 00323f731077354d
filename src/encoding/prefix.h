/* Internal: the PREFIX block encoding's shared pieces (format §8.7; writer
 * fullness §10.2; seeking §8.10), for its files:
 *   prefix_enc.c     the encoder (builds a block)
 *   prefix_dec.c     the decoder handle: load (the block layout and its checks),
 *                    random access by restart run, next() (which path serves
 *                    each value), the saved restart fence
 *   prefix_stream.c  the stream a scan reads, beside random access
 *   prefix_seek.c    value seeks (seek_at_or_after)
 *   prefix_fence.c   the restart fence a block cache keeps with a block
 *
 * Block layout:
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
 *  - the stream (prefix_stream.c): next() from where the previous next()
 *    stopped (a scan) writes slices straight into the caller's array and
 *    keeps the previous value's first 16 bytes in a register, so a short
 *    value is one blend and one store;
 *  - random access (prefix_dec.c; after a seek, and value seeks): entries are
 *    decoded lazily into `vals`, one restart run at a time and only as far
 *    as asked.
 * Each value is decoded at most once by each path per load, which bounds the
 * arena; both apply the same checks.
 *
 * This header holds the decoder's state and the small checks every path
 * shares; it owns no behaviour of its own. */
#ifndef CF_ENCODING_PREFIX_H
#define CF_ENCODING_PREFIX_H

#include <string.h>

#include "encoding.h"
#include "util/arena.h"
#include "util/endian.h"

/* SSE2 is part of x86-64 itself: no run-time check needed. */
#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE2__))
#include <emmintrin.h>
#define PREFIX_SSE2 1
#endif

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

/* The decoder's next() (prefix_dec.c): a value seek's answer, the stream or
 * random access, value by value. */
cf_status cf_prefix_next(cf_decoder *d_, void *dst, size_t n, size_t *got, cf_error *err);

/* next() from the stream (prefix_stream.c), which stands at d->base.pos or,
 * when that is a run start, behind it: every value asked for. */
cf_status cf_prefix_stream_next(prefix_dec *d, cf_slice *out, size_t n, size_t *got, cf_error *err);

/* A value seek (prefix_seek.c) found value idx = key[0, shared) + the suffix
 * at q: keep it as the head and stand the stream right after it
 * (prefix_stream.c). */
cf_status cf_prefix_stream_seat_after_seek(prefix_dec *d, size_t idx, const uint8_t *key,
                                           size_t shared, const uint8_t *q, size_t non_shared,
                                           size_t next, size_t run_end, cf_error *err);

/* The decoder's seek_at_or_after (prefix_seek.c). */
cf_status cf_prefix_seek_at_or_after(cf_decoder *d_, const void *key, bool *exact, cf_error *err);

#endif

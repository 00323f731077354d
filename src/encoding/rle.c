/* RLE encoding for BOOL (format §8.3) and for integer types (format §8.4).
 *
 *   offset  size  field
 *   0       4     count, fixed32
 *   4       4     first ordinal, fixed32
 *   8       ...   RLE_w stream of count values (format §7), to the end of the block;
 *                 w = 1 for BOOL, 8 * sizeof(type) for integers (8, 16, 32, 64)
 *
 * Writer: every value of an add call is accepted; the block is full once the
 * bytes the RLE writer has emitted, header included, exceed the block size;
 * values still buffered in the RLE writer and an unfinished repeated run do
 * not count (format §8.3, §10.2). The stream carries no index: seeks build
 * one in memory as far as their targets (a checkpoint every 16 runs, see
 * cf_rle_index_extend) and restart from the nearest checkpoint before the
 * target; value seek is a linear scan (integers only).
 */
#include <string.h>

#include "block_header.h"
#include "encodings.h"
#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/rle.h"

#define RLE_HEADER CF_ENC_COUNTED_HEADER
/* Values decoded per step of a value seek. */
#define SCAN_BATCH 256

static bool is_int_type(cf_type phys)
{
    switch (phys) {
    case CF_TYPE_UINT8:
    case CF_TYPE_INT8:
    case CF_TYPE_UINT16:
    case CF_TYPE_INT16:
    case CF_TYPE_UINT32:
    case CF_TYPE_INT32:
    case CF_TYPE_UINT64:
    case CF_TYPE_INT64: return true;
    default: return false;
    }
}

static bool is_signed(cf_type phys)
{
    return phys == CF_TYPE_INT8 || phys == CF_TYPE_INT16 || phys == CF_TYPE_INT32 ||
           phys == CF_TYPE_INT64;
}

/* Check the type for the BOOL or the integer flavour; *elem = memory bytes. */
static cf_status check_type(cf_type t, size_t elem_size, bool want_bool, size_t *elem,
                            cf_error *err)
{
    CF_CHECK(cf_type_valid((int)t), err, CF_EINVAL, "rle: unknown type %d", (int)t);
    cf_type phys = cf_type_physical(t);
    if (want_bool)
        CF_CHECK(phys == CF_TYPE_BOOL, err, CF_EINVAL, "rle bool: type %s is not BOOL",
                 cf_type_name(t));
    else
        CF_CHECK(is_int_type(phys), err, CF_EINVAL,
                 "rle: type %s is not an integer type of at most 8 bytes", cf_type_name(t));
    *elem = cf_type_size(t);
    CF_CHECK(elem_size == 0 || elem_size == *elem, err, CF_EINVAL,
             "rle: element size %zu does not match type %s (%zu)", elem_size, cf_type_name(t),
             *elem);
    return CF_OK;
}

/* ---- encoder ----------------------------------------------------------------------- */

typedef struct rle_enc {
    cf_encoder base;
    cf_rle_encoder rle; /* its out buffer holds header + stream */
    size_t elem;
    size_t count;
    uint32_t block_size;
} rle_enc;

static void enc_reset(cf_encoder *e)
{
    rle_enc *p = (rle_enc *)e;
    cf_rle_enc_reset(&p->rle);
    /* The header is reserved up front so that it counts toward fullness. */
    uint8_t *h = cf_buf_extend(&p->rle.out, RLE_HEADER);
    if (h)
        memset(h, 0, RLE_HEADER);
    p->count = 0;
}

static cf_status enc_create_common(cf_encoder **out, const cf_enc_params *prm, bool want_bool,
                                   const cf_encoder_ops *ops, cf_error *err)
{
    size_t elem;
    *out = NULL;
    CF_TRY(check_type(prm->type, prm->elem_size, want_bool, &elem, err));
    rle_enc *p = cf_calloc(1, sizeof *p);
    CF_CHECK(p != NULL, err, CF_ENOMEM, "rle: out of memory creating encoder");
    p->base.ops = ops;
    p->elem = elem;
    p->block_size = prm->block_size;
    cf_rle_enc_init(&p->rle, want_bool ? 1 : (unsigned)(8 * elem));
    cf_buf_reserve(&p->rle.out, (size_t)prm->block_size + RLE_HEADER);
    enc_reset(&p->base);
    *out = &p->base;
    return CF_OK;
}

static cf_status enc_create_int(cf_encoder **out, const cf_enc_params *prm, cf_error *err)
{
    return enc_create_common(out, prm, false, &cf_enc_rle_ops, err);
}

static cf_status enc_create_bool(cf_encoder **out, const cf_enc_params *prm, cf_error *err)
{
    return enc_create_common(out, prm, true, &cf_enc_rle_bool_ops, err);
}

static void enc_free(cf_encoder *e)
{
    rle_enc *p = (rle_enc *)e;
    if (p == NULL)
        return;
    cf_rle_enc_dispose(&p->rle);
    cf_free(p);
}

static size_t enc_add(cf_encoder *e, const void *vals, size_t n, bool force)
{
    rle_enc *p = (rle_enc *)e;
    (void)force; /* format §10.2: RLE takes every value of the call anyway */
    cf_rle_enc_put_values(&p->rle, vals, p->elem, n);
    p->count += n;
    return n;
}

static bool enc_is_full(const cf_encoder *e)
{
    const rle_enc *p = (const rle_enc *)e;
    /* format §8.3: emitted bytes, header included, compared with the block size. */
    return cf_rle_enc_emitted_len(&p->rle) > p->block_size || p->rle.out.oom;
}

static size_t enc_count(const cf_encoder *e)
{
    return ((const rle_enc *)e)->count;
}

static cf_status enc_finish(cf_encoder *e, uint32_t first_ord, cf_slice *out, cf_error *err)
{
    rle_enc *p = (rle_enc *)e;
    CF_CHECK(cf_rle_enc_finish(&p->rle) == CF_OK, err, CF_ENOMEM,
             "rle: out of memory building a block");
    return cf_enc_finish_counted(&p->rle.out, p->count, first_ord, "rle", out, err);
}

const cf_encoder_ops cf_enc_rle_ops = {
    .encoding = CF_ENC_RLE,
    .create = enc_create_int,
    .free = enc_free,
    .add = enc_add,
    .is_full = enc_is_full,
    .count = enc_count,
    .finish = enc_finish,
    .reset = enc_reset,
    .finish_dict = NULL,
};

const cf_encoder_ops cf_enc_rle_bool_ops = {
    .encoding = CF_ENC_RLE,
    .create = enc_create_bool,
    .free = enc_free,
    .add = enc_add,
    .is_full = enc_is_full,
    .count = enc_count,
    .finish = enc_finish,
    .reset = enc_reset,
    .finish_dict = NULL,
};

/* ---- decoder ----------------------------------------------------------------------- */

typedef struct rle_dec {
    cf_decoder base;
    cf_rle_decoder rd;
    const uint8_t *stream; /* after the header */
    size_t stream_len;
    size_t elem;
    unsigned width;
    cf_type phys;
    /* Run index of the loaded block (cf_rle_index_extend), built by seeks
     * only as far as their targets: checkpoints for values [0, walk.index). */
    cf_buf cps;
    cf_rle_index_walk walk;
} rle_dec;

/* A checkpoint every this many runs: seeks skip at most this many runs. */
#define CP_EVERY_RUNS 16

static cf_status dec_create_common(cf_decoder **out, const cf_dec_params *prm, bool want_bool,
                                   const cf_decoder_ops *ops, cf_error *err)
{
    size_t elem;
    *out = NULL;
    CF_TRY(check_type(prm->type, prm->elem_size, want_bool, &elem, err));
    CF_TRY(cf_dec_new(out, sizeof(rle_dec), ops, "rle", err));
    rle_dec *d = (rle_dec *)*out;
    d->elem = elem;
    d->width = want_bool ? 1 : (unsigned)(8 * elem);
    d->phys = cf_type_physical(prm->type);
    cf_buf_init(&d->cps);
    return CF_OK;
}

static cf_status dec_create_int(cf_decoder **out, const cf_dec_params *prm, cf_error *err)
{
    return dec_create_common(out, prm, false, &cf_dec_rle_ops, err);
}

static cf_status dec_create_bool(cf_decoder **out, const cf_dec_params *prm, cf_error *err)
{
    return dec_create_common(out, prm, true, &cf_dec_rle_bool_ops, err);
}

static void dec_free(cf_decoder *dd)
{
    if (dd)
        cf_buf_dispose(&((rle_dec *)dd)->cps);
    cf_free(dd);
}

static void restart(rle_dec *d)
{
    cf_rle_dec_init(&d->rd, d->stream, d->stream_len, d->width);
    d->base.pos = 0;
}

static cf_status dec_load(cf_decoder *dd, const uint8_t *data, size_t len, cf_error *err)
{
    rle_dec *d = (rle_dec *)dd;
    cf_dec_unbind(dd);
    d->stream = NULL;
    d->stream_len = 0;
    cf_buf_clear(&d->cps);
    memset(&d->walk, 0, sizeof d->walk);
    cf_rle_dec_init(&d->rd, NULL, 0, d->width);
    uint32_t count, first_ord;
    CF_TRY(cf_enc_read_counted(data, len, "rle block", &count, &first_ord, err));
    dd->count = count;
    dd->first_ord = first_ord;
    d->stream = data + RLE_HEADER;
    d->stream_len = len - RLE_HEADER;
    restart(d);
    return CF_OK;
}

/* Skip forward to idx (pos <= idx <= count). */
static cf_status skip_to(rle_dec *d, size_t idx, cf_error *err)
{
    size_t want = idx - d->base.pos;
    size_t got = cf_rle_dec_skip(&d->rd, want, NULL);
    d->base.pos += got;
    CF_CHECK(got == want, err, CF_ECORRUPT, "rle block: stream ends after %zu of %zu values",
             d->base.pos, d->base.count);
    return CF_OK;
}

static cf_status dec_seek(cf_decoder *dd, size_t idx, cf_error *err)
{
    rle_dec *d = (rle_dec *)dd;
    CF_CHECK(idx <= dd->count, err, CF_EINVAL, "rle block: seek to %zu past count %zu", idx,
             dd->count);
    if (idx == dd->pos)
        return CF_OK;
    if (!d->walk.done && d->walk.index <= idx) {
        /* Walk the runs up to idx (what a skip from the start would cost),
         * leaving checkpoints: later seeks below it are O(log runs). */
        cf_rle_index_extend(&d->cps, d->stream, d->stream_len, d->width, dd->count, CP_EVERY_RUNS,
                            idx, &d->walk);
    }
    size_t n_cp = d->cps.oom ? 0 : d->cps.len / sizeof(cf_rle_checkpoint);
    if (n_cp > 0) {
        const cf_rle_checkpoint *cp = (const cf_rle_checkpoint *)(const void *)d->cps.data;
        size_t lo = 0, hi = n_cp;
        while (hi - lo > 1) { /* last checkpoint at or before idx; cp[0] is value 0 */
            size_t mid = lo + (hi - lo) / 2;
            if (cp[mid].index <= idx)
                lo = mid;
            else
                hi = mid;
        }
        /* Jump unless the current position is already between it and idx. */
        if (idx < dd->pos || cp[lo].index > dd->pos) {
            cf_rle_dec_init(&d->rd, d->stream + cp[lo].off, d->stream_len - cp[lo].off, d->width);
            dd->pos = (size_t)cp[lo].index;
        }
    } else if (idx < dd->pos) {
        restart(d);
    }
    return skip_to(d, idx, err);
}

static cf_status dec_next(cf_decoder *dd, void *dst, size_t n, size_t *got, cf_error *err)
{
    rle_dec *d = (rle_dec *)dd;
    size_t left = dd->count - dd->pos;
    size_t k = n < left ? n : left;
    size_t g = k ? cf_rle_dec_get(&d->rd, dst, d->elem, k) : 0;
    dd->pos += g;
    *got = g;
    CF_CHECK(g == k, err, CF_ECORRUPT, "rle block: stream ends after %zu of %zu values", dd->pos,
             dd->count);
    return CF_OK;
}

/* Order-preserving map of a value to u64: signed values get their sign bit flipped. */
static inline uint64_t order_key(const uint8_t *p, size_t elem, bool sign)
{
    switch (elem) {
    case 1: return sign ? (uint64_t)(int64_t)(int8_t)p[0] ^ (1ull << 63) : p[0];
    case 2:
        return sign ? (uint64_t)(int64_t)(int16_t)cf_load_le16(p) ^ (1ull << 63) : cf_load_le16(p);
    case 4:
        return sign ? (uint64_t)(int64_t)(int32_t)cf_load_le32(p) ^ (1ull << 63) : cf_load_le32(p);
    default: return sign ? cf_load_le64(p) ^ (1ull << 63) : cf_load_le64(p);
    }
}

static cf_status dec_seek_value(cf_decoder *dd, const void *key, bool *exact, cf_error *err)
{
    rle_dec *d = (rle_dec *)dd;
    CF_CHECK(d->width != 1, err, CF_ENOTSUP, "rle block: BOOL values have no key order");
    const bool sign = is_signed(d->phys);
    const uint64_t target = order_key(key, d->elem, sign);
    uint8_t batch[SCAN_BATCH * 8];
    /* format §8.4: linear scan from the start for the first value >= key. */
    restart(d);
    while (dd->pos < dd->count) {
        /* Inside a repeated run: one comparison decides the whole rest of it,
         * so a run of billions of equal values costs O(1), not O(run). */
        if (d->rd.rep_left > 0) {
            uint8_t rv[8];
            memcpy(rv, &d->rd.rep_value, sizeof rv);
            if (order_key(rv, d->elem, sign) < target) {
                size_t left = dd->count - dd->pos;
                size_t n = d->rd.rep_left < left ? (size_t)d->rd.rep_left : left;
                size_t skipped = cf_rle_dec_skip(&d->rd, n, NULL);
                CF_CHECK(skipped == n, err, CF_ECORRUPT,
                         "rle block: stream ends after %zu of %zu values", dd->pos + skipped,
                         dd->count);
                dd->pos += skipped;
                continue;
            }
        }
        cf_rle_decoder saved = d->rd;
        size_t left = dd->count - dd->pos;
        size_t k = left < SCAN_BATCH ? left : SCAN_BATCH;
        size_t g = cf_rle_dec_get(&d->rd, batch, d->elem, k);
        for (size_t i = 0; i < g; i++) {
            uint64_t v = order_key(batch + i * d->elem, d->elem, sign);
            if (v >= target) {
                /* Rewind to the batch start and step to the match. */
                d->rd = saved;
                cf_rle_dec_skip(&d->rd, i, NULL);
                dd->pos += i;
                *exact = v == target;
                return CF_OK;
            }
        }
        dd->pos += g;
        CF_CHECK(g == k, err, CF_ECORRUPT, "rle block: stream ends after %zu of %zu values",
                 dd->pos, dd->count);
    }
    *exact = false;
    CF_FAIL(err, CF_ENOTFOUND, "rle block: every value is smaller than the key");
}

/* One test per repeated run (however long), one per value of literal runs. */
static cf_status dec_block_any(cf_decoder *dd, const cf_value_test *t, bool *any, cf_error *err)
{
    rle_dec *d = (rle_dec *)dd;
    uint8_t batch[SCAN_BATCH * 8];
    *any = false;
    restart(d);
    while (dd->pos < dd->count) {
        size_t left = dd->count - dd->pos;
        if (d->rd.rep_left > 0) {
            uint8_t rv[8];
            memcpy(rv, &d->rd.rep_value, sizeof rv); /* little-endian: the low bytes */
            if (t->fn(t->ctx, rv)) {
                *any = true;
                return CF_OK;
            }
            size_t n = d->rd.rep_left < left ? (size_t)d->rd.rep_left : left;
            size_t skipped = cf_rle_dec_skip(&d->rd, n, NULL);
            dd->pos += skipped;
            CF_CHECK(skipped == n, err, CF_ECORRUPT,
                     "rle block: stream ends after %zu of %zu values", dd->pos, dd->count);
            continue;
        }
        /* Inside a literal run: its values, at most to its end. Between runs:
         * one value, which reads the next run's header (a repeated run is then
         * settled by the test above, whatever its length). */
        size_t k = left < SCAN_BATCH ? left : SCAN_BATCH;
        if (d->rd.lit_left == 0)
            k = 1;
        else if (d->rd.lit_left < k)
            k = (size_t)d->rd.lit_left;
        size_t g = cf_rle_dec_get(&d->rd, batch, d->elem, k);
        dd->pos += g; /* the position stays true to the stream, also on return */
        CF_CHECK(g == k, err, CF_ECORRUPT, "rle block: stream ends after %zu of %zu values",
                 dd->pos, dd->count);
        for (size_t i = 0; i < g; i++) {
            if (t->fn(t->ctx, batch + i * d->elem)) {
                *any = true;
                return CF_OK;
            }
        }
    }
    return CF_OK;
}

const cf_decoder_ops cf_dec_rle_ops = {
    .encoding = CF_ENC_RLE,
    .create = dec_create_int,
    .free = dec_free,
    .load = dec_load,
    .seek = dec_seek,
    .next = dec_next,
    .seek_at_or_after = dec_seek_value,
    .block_any = dec_block_any,
};

const cf_decoder_ops cf_dec_rle_bool_ops = {
    .encoding = CF_ENC_RLE,
    .create = dec_create_bool,
    .free = dec_free,
    .load = dec_load,
    .seek = dec_seek,
    .next = dec_next,
    .seek_at_or_after = dec_seek_value,
    .block_any = dec_block_any,
};

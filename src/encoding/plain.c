/* PLAIN encoding for fixed-width types: all integers, FLOAT, DOUBLE, INT128 and
 * their logical aliases (format §8.1).
 *
 *   offset   size          field
 *   0        4             count, fixed32
 *   4        4             first ordinal, fixed32
 *   8        count * size  the values, little-endian, back to back
 *
 * The block is exactly 8 + count * size bytes. The writer takes every value of
 * an add call and calls the block full once its bytes, header included, exceed
 * the block size (format §10.2).
 */
#include <string.h>

#include "block_header.h"
#include "encodings.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/endian.h"
#include "util/error.h"

#define PLAIN_HEADER CF_ENC_COUNTED_HEADER

typedef struct plain_enc {
    cf_counted_enc c; /* buf: header placeholder + values */
    size_t elem;
} plain_enc;

typedef struct plain_dec {
    cf_decoder base;
    const uint8_t *vals; /* first value of the loaded block */
    size_t elem;
    cf_type type;
} plain_dec;

static cf_status check_type(cf_type t, size_t elem_size, size_t *elem, cf_error *err)
{
    CF_CHECK(cf_type_valid((int)t) && !cf_type_is_binary(t) && t != CF_TYPE_BOOL, err, CF_EINVAL,
             "plain: type %d is not a fixed-width numeric type", (int)t);
    *elem = cf_type_size(t);
    CF_CHECK(elem_size == 0 || elem_size == *elem, err, CF_EINVAL,
             "plain: element size %zu does not match type %s (%zu)", elem_size, cf_type_name(t),
             *elem);
    return CF_OK;
}

/* ---- encoder ----------------------------------------------------------------------- */

static cf_status enc_create(cf_encoder **out, const cf_enc_params *prm, cf_error *err)
{
    size_t elem;
    *out = NULL;
    CF_TRY(check_type(prm->type, prm->elem_size, &elem, err));
    cf_counted_enc *c;
    /* Blocks overshoot by up to one add call; start with the usual size. */
    CF_TRY(cf_counted_enc_create(&c, sizeof(plain_enc), &cf_enc_plain_ops, prm, prm->block_size,
                                 "plain", err));
    ((plain_enc *)c)->elem = elem;
    *out = &c->base;
    return CF_OK;
}

static size_t enc_add(cf_encoder *e, const void *vals, size_t n, bool force)
{
    plain_enc *p = (plain_enc *)e;
    size_t bytes;
    if (!cf_mul_ok(n, p->elem, &bytes))
        p->c.buf.oom = true;
    else
        cf_buf_append(&p->c.buf, vals, bytes);
    /* format §8.1: every value of the call is accepted, forced or not. */
    p->c.count += n;
    return n;
}

const cf_encoder_ops cf_enc_plain_ops = {
    .encoding = CF_ENC_PLAIN,
    .create = enc_create,
    .free = cf_counted_enc_free,
    .add = enc_add,
    .is_full = cf_counted_enc_is_full,
    .count = cf_counted_enc_count,
    .finish = cf_counted_enc_finish,
    .reset = cf_counted_enc_reset,
    .finish_dict = NULL,
};

/* ---- decoder ----------------------------------------------------------------------- */

static cf_status dec_create(cf_decoder **out, const cf_dec_params *prm, cf_error *err)
{
    size_t elem;
    *out = NULL;
    CF_TRY(check_type(prm->type, prm->elem_size, &elem, err));
    CF_TRY(cf_dec_new(out, sizeof(plain_dec), &cf_dec_plain_ops, "plain", err));
    plain_dec *d = (plain_dec *)*out;
    d->elem = elem;
    d->type = cf_type_physical(prm->type);
    return CF_OK;
}

static cf_status dec_load(cf_decoder *dd, const uint8_t *data, size_t len, cf_error *err)
{
    plain_dec *d = (plain_dec *)dd;
    cf_dec_unbind(dd);
    d->vals = NULL;
    uint32_t count, first_ord;
    CF_TRY(cf_enc_read_counted(data, len, "plain block", &count, &first_ord, err));
    size_t body = len - PLAIN_HEADER;
    /* format §8.1: the length is exactly 8 + count * size. */
    CF_CHECK(body % d->elem == 0 && body / d->elem == count, err, CF_ECORRUPT,
             "plain block: count %u needs %zu value bytes, block has %zu", count,
             (size_t)count * d->elem, body);
    d->base.count = count;
    d->base.first_ord = first_ord;
    d->vals = data + PLAIN_HEADER;
    return CF_OK;
}

static cf_status dec_next(cf_decoder *dd, void *dst, size_t n, size_t *got, cf_error *err)
{
    plain_dec *d = (plain_dec *)dd;
    size_t left = dd->count - dd->pos;
    size_t k = n < left ? n : left;
    if (k)
        memcpy(dst, d->vals + dd->pos * d->elem, k * d->elem);
    dd->pos += k;
    *got = k;
    return CF_OK;
}

static const void *dec_view(cf_decoder *dd, size_t n)
{
    plain_dec *d = (plain_dec *)dd;
    const uint8_t *p = d->vals + dd->pos * d->elem;
    dd->pos += n;
    return p;
}

/* Branch-free lower bound over n > 0 values of type T: the probe moves by a
 * conditional add, and both probes that can follow are prefetched, so the
 * cache misses of a search in a 256 KiB block overlap instead of each
 * waiting for the previous comparison (without the prefetch a branch-free
 * search is slower than a mispredicting one, whose speculation overlaps them
 * half the time). The answer lies in [b, b + len] throughout; any order of the
 * values gives an index in [0, n]. */
#define LOWER_BOUND(T)                                                                             \
    do {                                                                                           \
        T k, x;                                                                                    \
        memcpy(&k, key, sizeof k);                                                                 \
        size_t b = 0, len = n;                                                                     \
        while (len > 1) {                                                                          \
            size_t half = len / 2;                                                                 \
            /* both possible next probes: their misses overlap this one's */                       \
            __builtin_prefetch(vals + (b + half / 2) * sizeof(T));                                 \
            __builtin_prefetch(vals + (b + half + half / 2) * sizeof(T));                          \
            memcpy(&x, vals + (b + half) * sizeof(T), sizeof x);                                   \
            b += x < k ? half : 0;                                                                 \
            len -= half;                                                                           \
        }                                                                                          \
        memcpy(&x, vals + b * sizeof(T), sizeof x);                                                \
        b += x < k;                                                                                \
        *pos = b;                                                                                  \
        if (b < n)                                                                                 \
            memcpy(&x, vals + b * sizeof(T), sizeof x);                                            \
        *exact = b < n && x == k;                                                                  \
        return true;                                                                               \
    } while (0)

/* The integer types' value seeks without a compare call per probe; false for
 * the others (the generic loop takes them). */
static bool typed_lower_bound(cf_type t, const uint8_t *vals, size_t n, const void *key,
                              size_t *pos, bool *exact)
{
    switch (t) {
    case CF_TYPE_INT8: LOWER_BOUND(int8_t);
    case CF_TYPE_UINT8: LOWER_BOUND(uint8_t);
    case CF_TYPE_INT16: LOWER_BOUND(int16_t);
    case CF_TYPE_UINT16: LOWER_BOUND(uint16_t);
    case CF_TYPE_INT32: LOWER_BOUND(int32_t);
    case CF_TYPE_UINT32: LOWER_BOUND(uint32_t);
    case CF_TYPE_INT64: LOWER_BOUND(int64_t);
    case CF_TYPE_UINT64: LOWER_BOUND(uint64_t);
    default: return false;
    }
}

static cf_status dec_seek_value(cf_decoder *dd, const void *key, bool *exact, cf_error *err)
{
    plain_dec *d = (plain_dec *)dd;
    CF_CHECK(d->type != CF_TYPE_FLOAT && d->type != CF_TYPE_DOUBLE, err, CF_ENOTSUP,
             "plain block: %s values have no key order", cf_type_name(d->type));
    /* Lower bound: the first index whose value is >= key (format §8.1). */
    size_t pos;
    if (dd->count > 0 && typed_lower_bound(d->type, d->vals, dd->count, key, &pos, exact)) {
        dd->pos = pos;
        if (pos == dd->count)
            CF_FAIL(err, CF_ENOTFOUND, "plain block: every value is smaller than the key");
        return CF_OK;
    }
    size_t lo = 0, hi = dd->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cf_value_compare(d->type, d->vals + mid * d->elem, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    dd->pos = lo;
    *exact = lo < dd->count && cf_value_compare(d->type, d->vals + lo * d->elem, key) == 0;
    if (lo == dd->count)
        CF_FAIL(err, CF_ENOTFOUND, "plain block: every value is smaller than the key");
    return CF_OK;
}

const cf_decoder_ops cf_dec_plain_ops = {
    .encoding = CF_ENC_PLAIN,
    .create = dec_create,
    .free = cf_dec_free_flat,
    .load = dec_load,
    .seek = cf_dec_seek_positional,
    .next = dec_next,
    .seek_at_or_after = dec_seek_value,
    .view = dec_view,
};

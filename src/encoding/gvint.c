/* GROUP_VARINT block decoder: the legacy UINT32 encoding Kudu removed in 2016
 * (format §8.9; group varint §1.6). Read only; nothing writes it.
 *
 *   offset   size        field
 *   0        5..17       gvint(count, min_value, first_ordinal, 0)
 *   H        ...         ceil(count / 4) groups of (value - min_value), the last one
 *                        zero-padded
 *
 * The whole block is decoded on load (values are widened back by adding
 * min_value modulo 2^32), so seeks are direct and value seeks binary-search.
 */
#include <inttypes.h>
#include <string.h>

#include "encodings.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/group_varint.h"

typedef struct gvint_dec {
    cf_decoder base;
    uint32_t *vals;
    size_t cap;
} gvint_dec;

static void gvint_free(cf_decoder *d_)
{
    gvint_dec *d = (gvint_dec *)d_;
    if (d == NULL)
        return;
    cf_free(d->vals);
    cf_free(d);
}

static cf_status gvint_create(cf_decoder **out, const cf_dec_params *p, cf_error *err)
{
    *out = NULL;
    CF_CHECK(p->type == CF_TYPE_UINT32 && p->elem_size == 4, err, CF_EINVAL,
             "group varint decoding: only UINT32 is supported, not type %d", (int)p->type);
    return cf_dec_new(out, sizeof(gvint_dec), &cf_dec_gvint_ops, "group varint decoding", err);
}

static cf_status gvint_load(cf_decoder *d_, const uint8_t *data, size_t len, cf_error *err)
{
    gvint_dec *d = (gvint_dec *)d_;
    const uint8_t *end = data + len;
    uint32_t hdr[4];
    cf_dec_unbind(&d->base);
    const uint8_t *p = cf_gvint_decode_group(data, end, hdr);
    CF_CHECK(p != NULL, err, CF_ECORRUPT, "group varint block: %zu bytes cannot hold its header",
             len);
    size_t count = hdr[0];
    uint32_t min = hdr[1];
    size_t groups = count / 4 + (count % 4 != 0);
    /* every group takes at least 5 bytes */
    CF_CHECK(groups <= (size_t)(end - p) / 5, err, CF_ECORRUPT,
             "group varint block: %zu values cannot fit in %zu bytes", count, (size_t)(end - p));
    if (groups * 4 > d->cap) {
        uint32_t *v = cf_realloc(d->vals, groups * 4 * sizeof *v);
        CF_CHECK(v != NULL, err, CF_ENOMEM, "group varint block: out of memory for %zu values",
                 count);
        d->vals = v;
        d->cap = groups * 4;
    }
    for (size_t g = 0; g < groups; g++) {
        uint32_t *o = d->vals + 4 * g;
        p = cf_gvint_decode_group(p, end, o);
        CF_CHECK(p != NULL, err, CF_ECORRUPT,
                 "group varint block: group %zu runs past the end of the block", g);
        o[0] += min;
        o[1] += min;
        o[2] += min;
        o[3] += min;
    }
    d->base.count = count;
    d->base.first_ord = hdr[2];
    return CF_OK;
}

static cf_status gvint_next(cf_decoder *d_, void *dst, size_t n, size_t *got, cf_error *err)
{
    gvint_dec *d = (gvint_dec *)d_;
    size_t avail = d->base.count - d->base.pos;
    if (n > avail)
        n = avail;
    if (n)
        memcpy(dst, d->vals + d->base.pos, n * sizeof(uint32_t));
    d->base.pos += n;
    *got = n;
    return CF_OK;
}

static cf_status gvint_seek_at_or_after(cf_decoder *d_, const void *key, bool *exact, cf_error *err)
{
    gvint_dec *d = (gvint_dec *)d_;
    uint32_t t;
    memcpy(&t, key, 4);
    size_t lo = 0, hi = d->base.count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->vals[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    d->base.pos = lo;
    *exact = lo < d->base.count && d->vals[lo] == t;
    if (lo == d->base.count)
        CF_FAIL(err, CF_ENOTFOUND, "group varint block: every value is smaller than %" PRIu32, t);
    return CF_OK;
}

const cf_decoder_ops cf_dec_gvint_ops = {
    .encoding = CF_ENC_GROUP_VARINT,
    .create = gvint_create,
    .free = gvint_free,
    .load = gvint_load,
    .seek = cf_dec_seek_positional,
    .next = gvint_next,
    .seek_at_or_after = gvint_seek_at_or_after,
};

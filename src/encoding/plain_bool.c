/* PLAIN encoding for BOOL: a packed LSB-first bitmap (format §8.2, §1.7).
 *
 *   offset   size            field
 *   0        4               count, fixed32
 *   4        4               first ordinal, fixed32
 *   8        ceil(count/8)   value i is bit (i & 7) of byte 8 + (i >> 3);
 *                            unused high bits of the last byte are 0
 *
 * The block is exactly 8 + ceil(count/8) bytes. The writer takes every value of
 * an add call and calls the block full once its bytes, header and partial last
 * byte included, exceed the block size (format §10.2).
 */
#include <string.h>

#include "block_header.h"
#include "encodings.h"
#include "util/alloc.h"
#include "util/bitmap.h"
#include "util/buf.h"
#include "util/endian.h"
#include "util/error.h"

#define BOOL_HEADER CF_ENC_COUNTED_HEADER

/* buf: header placeholder + bitmap, len = 8 + ceil(count/8) */
typedef cf_counted_enc bool_enc;

typedef struct bool_dec {
    cf_decoder base;
    const uint8_t *bits;
} bool_dec;

static cf_status check_type(cf_type t, size_t elem_size, cf_error *err)
{
    CF_CHECK(t == CF_TYPE_BOOL, err, CF_EINVAL, "plain bool: type %d is not BOOL", (int)t);
    CF_CHECK(elem_size == 0 || elem_size == 1, err, CF_EINVAL,
             "plain bool: element size %zu, want 1", elem_size);
    return CF_OK;
}

/* ---- encoder ----------------------------------------------------------------------- */

static cf_status enc_create(cf_encoder **out, const cf_enc_params *prm, cf_error *err)
{
    *out = NULL;
    CF_TRY(check_type(prm->type, prm->elem_size, err));
    cf_counted_enc *c;
    CF_TRY(cf_counted_enc_create(&c, sizeof(bool_enc), &cf_enc_plain_bool_ops, prm, 0, "plain bool",
                                 err));
    *out = &c->base;
    return CF_OK;
}

static size_t enc_add(cf_encoder *e, const void *vals, size_t n, bool force)
{
    bool_enc *p = (bool_enc *)e;
    const uint8_t *v = vals;
    size_t need = cf_bitmap_bytes(p->count + n) - cf_bitmap_bytes(p->count);
    uint8_t *fresh = cf_buf_extend(&p->buf, need);
    if (fresh == NULL && need > 0) {
        p->count += n; /* keep the count honest; finish reports CF_ENOMEM */
        return n;
    }
    if (need)
        memset(fresh, 0, need);
    uint8_t *bm = p->buf.data + BOOL_HEADER;
    size_t i = 0, c = p->count;
    /* Fill the partial byte bit by bit, then whole bytes eight values at a time. */
    for (; i < n && (c & 7) != 0; i++, c++)
        bm[c >> 3] |= (uint8_t)((v[i] != 0) << (c & 7));
    for (; n - i >= 8; i += 8, c += 8) {
        unsigned b = 0;
        for (unsigned k = 0; k < 8; k++)
            b |= (unsigned)(v[i + k] != 0) << k;
        bm[c >> 3] = (uint8_t)b;
    }
    for (; i < n; i++, c++)
        bm[c >> 3] |= (uint8_t)((v[i] != 0) << (c & 7));
    p->count = c;
    return n;
}

const cf_encoder_ops cf_enc_plain_bool_ops = {
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
    *out = NULL;
    CF_TRY(check_type(prm->type, prm->elem_size, err));
    return cf_dec_new(out, sizeof(bool_dec), &cf_dec_plain_bool_ops, "plain bool", err);
}

static cf_status dec_load(cf_decoder *dd, const uint8_t *data, size_t len, cf_error *err)
{
    bool_dec *d = (bool_dec *)dd;
    cf_dec_unbind(dd);
    d->bits = NULL;
    uint32_t count, first_ord;
    CF_TRY(cf_enc_read_counted(data, len, "plain bool block", &count, &first_ord, err));
    /* format §8.2: the length is exactly 8 + ceil(count/8). Stray high bits in
     * the last byte are ignored, as Kudu ignores them. */
    CF_CHECK(len - BOOL_HEADER == cf_bitmap_bytes(count), err, CF_ECORRUPT,
             "plain bool block: count %u needs %zu bitmap bytes, block has %zu", count,
             cf_bitmap_bytes(count), len - BOOL_HEADER);
    d->base.count = count;
    d->base.first_ord = first_ord;
    d->bits = data + BOOL_HEADER;
    return CF_OK;
}

static cf_status dec_next(cf_decoder *dd, void *dst, size_t n, size_t *got, cf_error *err)
{
    bool_dec *d = (bool_dec *)dd;
    uint8_t *out = dst;
    size_t left = dd->count - dd->pos;
    size_t k = n < left ? n : left, i = 0, pos = dd->pos;
    for (; i < k && (pos & 7) != 0; i++, pos++)
        out[i] = cf_bitmap_get(d->bits, pos);
    /* Whole bytes: spread the 8 bits of b over 8 bytes, bit j into byte j. The
     * multiply copies b into every byte, the mask keeps bit j of byte j, and
     * adding 0x7f carries any set bit up to bit 7 without crossing bytes. */
    for (; k - i >= 8; i += 8, pos += 8) {
        uint64_t b = d->bits[pos >> 3];
        uint64_t x = ((b * 0x0101010101010101ull) & 0x8040201008040201ull) + 0x7f7f7f7f7f7f7f7full;
        x = (x >> 7) & 0x0101010101010101ull;
        cf_store_le64(out + i, x);
    }
    for (; i < k; i++, pos++)
        out[i] = cf_bitmap_get(d->bits, pos);
    dd->pos = pos;
    *got = k;
    return CF_OK;
}

static cf_status dec_seek_value(cf_decoder *dd, const void *key, bool *exact, cf_error *err)
{
    CF_FAIL(err, CF_ENOTSUP, "plain bool block: BOOL values have no key order");
}

const cf_decoder_ops cf_dec_plain_bool_ops = {
    .encoding = CF_ENC_PLAIN,
    .create = dec_create,
    .free = cf_dec_free_flat,
    .load = dec_load,
    .seek = cf_dec_seek_positional,
    .next = dec_next,
    .seek_at_or_after = dec_seek_value,
};

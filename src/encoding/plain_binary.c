/* PLAIN encoding for binary types (BINARY, STRING, VARCHAR); also the form of
 * the dictionary block and of DICT fallback blocks (format §8.6).
 *
 *   offset        size                field
 *   0             4                   first ordinal, fixed32
 *   4             4                   count, fixed32
 *   8             4                   offsets_pos = 12 + total length of the strings, fixed32
 *   12            offsets_pos - 12    the strings, back to back
 *   offsets_pos   to the end          group-varint sequence (§1.6) of count u32
 *                                     offsets, each relative to the block start
 *
 * String i is block[offset[i], offset[i+1]) with offset[count] = offsets_pos.
 * The writer keeps Kudu's running size estimate and takes a value only while the
 * estimate is <= the block size (format §8.6, §10.2).
 */
#include <string.h>

#include "encodings.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/group_varint.h"

#define BIN_HEADER 12

typedef struct bin_enc {
    cf_encoder base;
    cf_buf buf;     /* header placeholder + strings, then offsets once finished */
    uint32_t *offs; /* offset of each string */
    size_t count;
    size_t offs_cap;
    size_t estimate; /* format §8.6 running estimate */
    size_t data_end; /* offsets_pos: end of the strings */
    uint32_t block_size;
    bool finished;
    bool oom;
    bool too_big; /* the strings passed 4 GiB: offsets cannot address them */
} bin_enc;

typedef struct bin_dec {
    cf_decoder base;
    const uint8_t *data;
    const uint32_t *offs; /* count + 1 entries once loaded (the last is offsets_pos):
                           * own, or a saved state's (load_saved) */
    uint32_t *own;
    size_t own_cap;
} bin_dec;

/* Saved state (load_saved): u32 count, u32 offsets_pos, then the count + 1
 * decoded offsets, all in memory order. */
#define SAVED_HEAD 2

static cf_status check_type(cf_type t, size_t elem_size, cf_error *err)
{
    CF_CHECK(cf_type_is_binary(t), err, CF_EINVAL, "plain binary: type %d is not binary", (int)t);
    CF_CHECK(elem_size == 0 || elem_size == sizeof(cf_slice), err, CF_EINVAL,
             "plain binary: element size %zu, want %zu", elem_size, sizeof(cf_slice));
    return CF_OK;
}

/* ---- encoder ----------------------------------------------------------------------- */

static void enc_reset(cf_encoder *e)
{
    bin_enc *p = (bin_enc *)e;
    cf_buf_clear(&p->buf);
    uint8_t *h = cf_buf_extend(&p->buf, BIN_HEADER);
    if (h)
        memset(h, 0, BIN_HEADER);
    p->count = 0;
    p->estimate = BIN_HEADER;
    p->data_end = BIN_HEADER;
    p->finished = false;
    p->oom = false;
    p->too_big = false;
}

static cf_status enc_create(cf_encoder **out, const cf_enc_params *prm, cf_error *err)
{
    *out = NULL;
    CF_TRY(check_type(prm->type, prm->elem_size, err));
    bin_enc *p = cf_calloc(1, sizeof *p);
    CF_CHECK(p != NULL, err, CF_ENOMEM, "plain binary: out of memory creating encoder");
    p->base.ops = &cf_enc_plain_binary_ops;
    p->block_size = prm->block_size;
    cf_buf_init(&p->buf);
    cf_buf_reserve(&p->buf, (size_t)prm->block_size + BIN_HEADER);
    enc_reset(&p->base);
    *out = &p->base;
    return CF_OK;
}

static void enc_free(cf_encoder *e)
{
    bin_enc *p = (bin_enc *)e;
    if (p == NULL)
        return;
    cf_buf_dispose(&p->buf);
    cf_free(p->offs);
    cf_free(p);
}

static bool grow_offsets(bin_enc *p, size_t need)
{
    if (need <= p->offs_cap)
        return true;
    size_t cap = p->offs_cap ? p->offs_cap : 256, bytes;
    while (cap < need)
        cap *= 2;
    if (!cf_mul_ok(cap, sizeof *p->offs, &bytes))
        return false;
    uint32_t *o = cf_realloc(p->offs, bytes);
    if (o == NULL)
        return false;
    p->offs = o;
    p->offs_cap = cap;
    return true;
}

static size_t enc_add(cf_encoder *e, const void *vals, size_t n, bool force)
{
    bin_enc *p = (bin_enc *)e;
    const cf_slice *v = vals;
    size_t i = 0;
    if (p->oom || p->too_big || p->finished)
        return force ? n : 0; /* finish reports the failure */
    for (; i < n; i++) {
        /* format §8.6: a value joins only while the estimate is <= block size. */
        if (!force && p->estimate > p->block_size)
            break;
        size_t off = p->buf.len;
        if (off > UINT32_MAX || v[i].len > UINT32_MAX - off) {
            p->too_big = true;
            return force ? n : i;
        }
        if (p->count == p->offs_cap && !grow_offsets(p, p->count + 1)) {
            p->oom = true;
            return force ? n : i;
        }
        if (p->count % 4 == 0)
            p->estimate++; /* a new group's selector byte */
        p->offs[p->count++] = (uint32_t)off;
        p->estimate += cf_gvint_value_len((uint32_t)off) + v[i].len;
        if (v[i].len <= p->buf.cap - p->buf.len) { /* the common case, without a call */
            if (v[i].len)
                memcpy(p->buf.data + p->buf.len, v[i].data, v[i].len);
            p->buf.len += v[i].len;
        } else {
            cf_buf_append(&p->buf, v[i].data, v[i].len);
        }
        if (p->buf.oom) {
            p->oom = true;
            return force ? n : i + 1;
        }
    }
    p->data_end = p->buf.len;
    return i;
}

static bool enc_is_full(const cf_encoder *e)
{
    const bin_enc *p = (const bin_enc *)e;
    return p->estimate > p->block_size || p->oom || p->too_big;
}

static size_t enc_count(const cf_encoder *e)
{
    return ((const bin_enc *)e)->count;
}

static cf_status enc_finish(cf_encoder *e, uint32_t first_ord, cf_slice *out, cf_error *err)
{
    bin_enc *p = (bin_enc *)e;
    CF_CHECK(!p->oom, err, CF_ENOMEM, "plain binary: out of memory building a block");
    CF_CHECK(!p->too_big, err, CF_EINVAL, "plain binary: strings exceed 4 GiB in one block");
    CF_CHECK(p->count <= UINT32_MAX, err, CF_EINVAL,
             "plain binary: %zu values do not fit one block", p->count);
    if (!p->finished) {
        p->data_end = p->buf.len;
        cf_gvint_append(&p->buf, p->offs, p->count);
        CF_CHECK(!p->buf.oom, err, CF_ENOMEM, "plain binary: out of memory building a block");
        p->finished = true;
    }
    cf_store_le32(p->buf.data, first_ord);
    cf_store_le32(p->buf.data + 4, (uint32_t)p->count);
    cf_store_le32(p->buf.data + 8, (uint32_t)p->data_end);
    out->data = p->buf.data;
    out->len = p->buf.len;
    return CF_OK;
}

const cf_encoder_ops cf_enc_plain_binary_ops = {
    .encoding = CF_ENC_PLAIN,
    .create = enc_create,
    .free = enc_free,
    .add = enc_add,
    .is_full = enc_is_full,
    .count = enc_count,
    .finish = enc_finish,
    .reset = enc_reset,
    .finish_dict = NULL,
};

/* ---- decoder ----------------------------------------------------------------------- */

static cf_status dec_create(cf_decoder **out, const cf_dec_params *prm, cf_error *err)
{
    *out = NULL;
    CF_TRY(check_type(prm->type, prm->elem_size, err));
    return cf_dec_new(out, sizeof(bin_dec), &cf_dec_plain_binary_ops, "plain binary", err);
}

static void dec_free(cf_decoder *dd)
{
    bin_dec *d = (bin_dec *)dd;
    if (d == NULL)
        return;
    cf_free(d->own);
    cf_free(d);
}

static cf_status dec_load(cf_decoder *dd, const uint8_t *data, size_t len, cf_error *err)
{
    bin_dec *d = (bin_dec *)dd;
    cf_dec_unbind(&d->base);
    d->data = NULL;
    d->offs = NULL;
    CF_CHECK(len >= BIN_HEADER, err, CF_ECORRUPT,
             "plain binary block: %zu bytes cannot hold the 12-byte header", len);
    uint32_t count = cf_load_le32(data + 4);
    uint32_t offsets_pos = cf_load_le32(data + 8);
    /* format §8.6: the strings end inside the block, after the header. */
    CF_CHECK(offsets_pos >= BIN_HEADER && offsets_pos <= len, err, CF_ECORRUPT,
             "plain binary block: offsets_pos %u outside [12, %zu]", offsets_pos, len);
    /* Each group holds 4 offsets in at least 5 bytes: this bounds count by the
     * bytes present before anything is allocated. */
    size_t groups = (size_t)count / 4 + (count % 4 != 0);
    CF_CHECK(groups <= (len - offsets_pos) / 5, err, CF_ECORRUPT,
             "plain binary block: %u offsets cannot fit in %zu bytes", count, len - offsets_pos);
    size_t need = groups * 4 + 1;
    if (need > d->own_cap) {
        uint32_t *o = cf_realloc(d->own, need * sizeof *o); /* < 4 * len: no overflow */
        CF_CHECK(o != NULL, err, CF_ENOMEM, "plain binary block: out of memory for %u offsets",
                 count);
        d->own = o;
        d->own_cap = need;
    }
    const uint8_t *p = data + offsets_pos, *end = data + len;
    uint32_t *o = d->own;
    size_t g = 0;
    /* Unchecked while a whole 17-byte group surely fits, checked near the end. */
    p = cf_gvint_decode_groups(p, end, o, groups, &g);
    for (; g < groups; g++) {
        p = cf_gvint_decode_group(p, end, o + 4 * g);
        CF_CHECK(p != NULL, err, CF_ECORRUPT,
                 "plain binary block: offset group %zu runs past the block end", g);
    }
    o[count] = offsets_pos;
    /* Stricter than Kudu: every string lies inside [12, offsets_pos] and starts
     * where the previous one starts or later, so next() never checks again. */
    /* Each pair compared on its own (no value carried from one step to the next)
     * into an unsigned accumulator, so the compiler vectorizes the loop (GCC 12
     * does not with a bool one: 3.4% of an uncached seek's instructions). */
    unsigned bad = o[0] < BIN_HEADER;
    for (size_t i = 1; i <= count; i++)
        bad |= o[i] < o[i - 1];
    CF_CHECK(!bad, err, CF_ECORRUPT,
             "plain binary block: string offsets out of order or outside [12, %u]", offsets_pos);
    d->data = data;
    d->offs = o;
    d->base.count = count;
    d->base.first_ord = cf_load_le32(data);
    return CF_OK;
}

static size_t dec_saved_len(cf_decoder *dd)
{
    const bin_dec *d = (const bin_dec *)dd;
    if (d->offs == NULL)
        return 0;
    return (SAVED_HEAD + dd->count + 1) * sizeof(uint32_t);
}

static void dec_save(const cf_decoder *dd, void *dst)
{
    const bin_dec *d = (const bin_dec *)dd;
    uint32_t *s = dst;
    s[0] = (uint32_t)dd->count;
    s[1] = d->offs[dd->count];
    memcpy(s + SAVED_HEAD, d->offs, (dd->count + 1) * sizeof *s);
}

/* The offsets were checked (ordered, inside [12, offsets_pos]) when they were
 * decoded; here they need only belong to a block of the same count and string
 * area, which also keeps every slice inside the block whatever they hold. */
static cf_status dec_load_saved(cf_decoder *dd, const uint8_t *data, size_t len, const void *state,
                                size_t state_len, cf_error *err)
{
    bin_dec *d = (bin_dec *)dd;
    const uint32_t *s = state;
    cf_dec_unbind(&d->base);
    d->data = NULL;
    d->offs = NULL;
    CF_CHECK(len >= BIN_HEADER && state_len >= (SAVED_HEAD + 1) * sizeof *s, err, CF_ECORRUPT,
             "plain binary block: saved offsets do not fit the block");
    uint32_t count = cf_load_le32(data + 4), offsets_pos = cf_load_le32(data + 8);
    CF_CHECK(s[0] == count && s[1] == offsets_pos && offsets_pos <= len &&
                 state_len / sizeof *s - SAVED_HEAD - 1 == count &&
                 s[SAVED_HEAD + count] == offsets_pos,
             err, CF_ECORRUPT, "plain binary block: saved offsets do not fit the block");
    d->data = data;
    d->offs = s + SAVED_HEAD;
    d->base.count = count;
    d->base.first_ord = cf_load_le32(data);
    return CF_OK;
}

static cf_status dec_next(cf_decoder *dd, void *dst, size_t n, size_t *got, cf_error *err)
{
    bin_dec *d = (bin_dec *)dd;
    cf_slice *out = dst;
    size_t left = dd->count - dd->pos;
    size_t k = n < left ? n : left;
    *got = k;
    if (k == 0) /* also when nothing is loaded: offs may be NULL */
        return CF_OK;
    const uint32_t *o = d->offs + dd->pos;
    for (size_t i = 0; i < k; i++) {
        out[i].data = d->data + o[i];
        out[i].len = o[i + 1] - o[i];
    }
    dd->pos += k;
    return CF_OK;
}

static int cmp_at(const bin_dec *d, size_t i, const cf_slice *key)
{
    size_t len = d->offs[i + 1] - d->offs[i];
    size_t m = len < key->len ? len : key->len;
    int c = m ? memcmp(d->data + d->offs[i], key->data, m) : 0;
    if (c != 0)
        return c;
    return (len > key->len) - (len < key->len);
}

static cf_status dec_seek_value(cf_decoder *dd, const void *key, bool *exact, cf_error *err)
{
    bin_dec *d = (bin_dec *)dd;
    cf_slice k;
    memcpy(&k, key, sizeof k);
    /* Lower bound in memcmp order, a proper prefix first (format §8.6). */
    size_t lo = 0, hi = dd->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_at(d, mid, &k) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    dd->pos = lo;
    *exact = lo < dd->count && cmp_at(d, lo, &k) == 0;
    if (lo == dd->count)
        CF_FAIL(err, CF_ENOTFOUND, "plain binary block: every value is smaller than the key");
    return CF_OK;
}

const cf_decoder_ops cf_dec_plain_binary_ops = {
    .encoding = CF_ENC_PLAIN,
    .create = dec_create,
    .free = dec_free,
    .load = dec_load,
    .seek = cf_dec_seek_positional,
    .next = dec_next,
    .seek_at_or_after = dec_seek_value,
    .saved_len = dec_saved_len,
    .save = dec_save,
    .load_saved = dec_load_saved,
};

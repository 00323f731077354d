/* The (type, encoding) table (format §8.0) and value comparison in key order
 * (format §1.8, §8.10).
 *
 * One row per pair Kudu knows, by physical type (util/types.c maps logical
 * types onto physical ones): the encoder and decoder that implement it and
 * whether it is the type's default. A pair is allowed for writing when it has
 * an encoder; GROUP_VARINT has only a decoder (legacy UINT32 files). Adding an
 * encoding means adding its rows here and nothing else.
 */
#include <string.h>

#include "encodings.h"
#include "util/error.h"
#include "util/int128.h"

typedef struct encoding_row {
    cf_type phys;
    cf_encoding enc;
    const cf_encoder_ops *encoder; /* NULL: read-only (legacy) */
    const cf_decoder_ops *decoder;
    bool is_default;
} encoding_row;

static const encoding_row encoding_table[] = {
    {CF_TYPE_UINT8, CF_ENC_BIT_SHUFFLE, &cf_enc_bshuf_ops, &cf_dec_bshuf_ops, true},
    {CF_TYPE_UINT8, CF_ENC_PLAIN, &cf_enc_plain_ops, &cf_dec_plain_ops, false},
    {CF_TYPE_UINT8, CF_ENC_RLE, &cf_enc_rle_ops, &cf_dec_rle_ops, false},
    {CF_TYPE_INT8, CF_ENC_BIT_SHUFFLE, &cf_enc_bshuf_ops, &cf_dec_bshuf_ops, true},
    {CF_TYPE_INT8, CF_ENC_PLAIN, &cf_enc_plain_ops, &cf_dec_plain_ops, false},
    {CF_TYPE_INT8, CF_ENC_RLE, &cf_enc_rle_ops, &cf_dec_rle_ops, false},
    {CF_TYPE_UINT16, CF_ENC_BIT_SHUFFLE, &cf_enc_bshuf_ops, &cf_dec_bshuf_ops, true},
    {CF_TYPE_UINT16, CF_ENC_PLAIN, &cf_enc_plain_ops, &cf_dec_plain_ops, false},
    {CF_TYPE_UINT16, CF_ENC_RLE, &cf_enc_rle_ops, &cf_dec_rle_ops, false},
    {CF_TYPE_INT16, CF_ENC_BIT_SHUFFLE, &cf_enc_bshuf_ops, &cf_dec_bshuf_ops, true},
    {CF_TYPE_INT16, CF_ENC_PLAIN, &cf_enc_plain_ops, &cf_dec_plain_ops, false},
    {CF_TYPE_INT16, CF_ENC_RLE, &cf_enc_rle_ops, &cf_dec_rle_ops, false},
    {CF_TYPE_UINT32, CF_ENC_BIT_SHUFFLE, &cf_enc_bshuf_ops, &cf_dec_bshuf_ops, true},
    {CF_TYPE_UINT32, CF_ENC_PLAIN, &cf_enc_plain_ops, &cf_dec_plain_ops, false},
    {CF_TYPE_UINT32, CF_ENC_RLE, &cf_enc_rle_ops, &cf_dec_rle_ops, false},
    {CF_TYPE_UINT32, CF_ENC_GROUP_VARINT, NULL, &cf_dec_gvint_ops, false},
    {CF_TYPE_INT32, CF_ENC_BIT_SHUFFLE, &cf_enc_bshuf_ops, &cf_dec_bshuf_ops, true},
    {CF_TYPE_INT32, CF_ENC_PLAIN, &cf_enc_plain_ops, &cf_dec_plain_ops, false},
    {CF_TYPE_INT32, CF_ENC_RLE, &cf_enc_rle_ops, &cf_dec_rle_ops, false},
    {CF_TYPE_UINT64, CF_ENC_BIT_SHUFFLE, &cf_enc_bshuf_ops, &cf_dec_bshuf_ops, true},
    {CF_TYPE_UINT64, CF_ENC_PLAIN, &cf_enc_plain_ops, &cf_dec_plain_ops, false},
    {CF_TYPE_UINT64, CF_ENC_RLE, &cf_enc_rle_ops, &cf_dec_rle_ops, false},
    {CF_TYPE_INT64, CF_ENC_BIT_SHUFFLE, &cf_enc_bshuf_ops, &cf_dec_bshuf_ops, true},
    {CF_TYPE_INT64, CF_ENC_PLAIN, &cf_enc_plain_ops, &cf_dec_plain_ops, false},
    {CF_TYPE_INT64, CF_ENC_RLE, &cf_enc_rle_ops, &cf_dec_rle_ops, false},
    {CF_TYPE_FLOAT, CF_ENC_BIT_SHUFFLE, &cf_enc_bshuf_ops, &cf_dec_bshuf_ops, true},
    {CF_TYPE_FLOAT, CF_ENC_PLAIN, &cf_enc_plain_ops, &cf_dec_plain_ops, false},
    {CF_TYPE_DOUBLE, CF_ENC_BIT_SHUFFLE, &cf_enc_bshuf_ops, &cf_dec_bshuf_ops, true},
    {CF_TYPE_DOUBLE, CF_ENC_PLAIN, &cf_enc_plain_ops, &cf_dec_plain_ops, false},
    {CF_TYPE_INT128, CF_ENC_BIT_SHUFFLE, &cf_enc_bshuf_ops, &cf_dec_bshuf_ops, true},
    {CF_TYPE_INT128, CF_ENC_PLAIN, &cf_enc_plain_ops, &cf_dec_plain_ops, false},
    {CF_TYPE_BINARY, CF_ENC_DICT, &cf_enc_dict_ops, &cf_dec_dict_ops, true},
    {CF_TYPE_BINARY, CF_ENC_PLAIN, &cf_enc_plain_binary_ops, &cf_dec_plain_binary_ops, false},
    {CF_TYPE_BINARY, CF_ENC_PREFIX, &cf_enc_prefix_ops, &cf_dec_prefix_ops, false},
    {CF_TYPE_BOOL, CF_ENC_RLE, &cf_enc_rle_bool_ops, &cf_dec_rle_bool_ops, true},
    {CF_TYPE_BOOL, CF_ENC_PLAIN, &cf_enc_plain_bool_ops, &cf_dec_plain_bool_ops, false},
};

static const encoding_row *find_row(cf_type t, cf_encoding e)
{
    if (!cf_type_valid((int)t))
        return NULL;
    cf_type phys = cf_type_physical(t);
    for (size_t i = 0; i < sizeof encoding_table / sizeof encoding_table[0]; i++)
        if (encoding_table[i].phys == phys && encoding_table[i].enc == e)
            return &encoding_table[i];
    return NULL;
}

cf_encoding cf_type_default_encoding(cf_type t)
{
    if (cf_type_valid((int)t)) {
        cf_type phys = cf_type_physical(t);
        for (size_t i = 0; i < sizeof encoding_table / sizeof encoding_table[0]; i++)
            if (encoding_table[i].phys == phys && encoding_table[i].is_default)
                return encoding_table[i].enc;
    }
    return CF_ENC_AUTO;
}

bool cf_type_allows_encoding(cf_type t, cf_encoding e)
{
    /* AUTO is a request, not an encoding; GROUP_VARINT has no encoder. */
    return cf_encoder_lookup(t, e) != NULL;
}

cf_encoding cf_encoding_resolve(cf_type t, cf_encoding requested)
{
    /* format §8.0: Kudu silently falls back to the type's default. */
    if (cf_type_allows_encoding(t, requested))
        return requested;
    return cf_type_default_encoding(t);
}

const cf_encoder_ops *cf_encoder_lookup(cf_type t, cf_encoding e)
{
    const encoding_row *r = find_row(t, e);
    return r ? r->encoder : NULL;
}

const cf_decoder_ops *cf_decoder_lookup(cf_type t, cf_encoding e)
{
    const encoding_row *r = find_row(t, e);
    return r ? r->decoder : NULL;
}

cf_status cf_decoder_open(cf_decoder **out, cf_encoding e, const cf_dec_params *p,
                          const uint8_t *data, size_t len, cf_error *err)
{
    *out = NULL;
    CF_CHECK(p != NULL, err, CF_EINVAL, "decoder open: no parameters");
    const cf_decoder_ops *ops = cf_decoder_lookup(p->type, e);
    CF_CHECK(ops != NULL, err, CF_ENOTSUP, "no decoder for type %s with encoding %s",
             cf_type_name(p->type) ? cf_type_name(p->type) : "(invalid)",
             cf_encoding_name(e) ? cf_encoding_name(e) : "(invalid)");
    cf_decoder *d = NULL;
    CF_TRY(ops->create(&d, p, err));
    cf_status st = ops->load(d, data, len, err);
    if (st != CF_OK) {
        ops->free(d);
        return st;
    }
    *out = d;
    return CF_OK;
}

#define CMP3(x, y) (((x) > (y)) - ((x) < (y)))
#define CMP_AS(T)                                                                                  \
    do {                                                                                           \
        T x_, y_;                                                                                  \
        memcpy(&x_, a, sizeof x_);                                                                 \
        memcpy(&y_, b, sizeof y_);                                                                 \
        return CMP3(x_, y_);                                                                       \
    } while (0)

/* BOOL, FLOAT and DOUBLE have no key order in Kudu (format §1.8); they are
 * compared numerically here only so that tests and tools can sort them (NaN
 * compares equal to everything). */
int cf_value_compare(cf_type t, const void *a, const void *b)
{
    switch (cf_type_physical(t)) {
    case CF_TYPE_UINT8:
    case CF_TYPE_BOOL: CMP_AS(uint8_t);
    case CF_TYPE_INT8: CMP_AS(int8_t);
    case CF_TYPE_UINT16: CMP_AS(uint16_t);
    case CF_TYPE_INT16: CMP_AS(int16_t);
    case CF_TYPE_UINT32: CMP_AS(uint32_t);
    case CF_TYPE_INT32: CMP_AS(int32_t);
    case CF_TYPE_UINT64: CMP_AS(uint64_t);
    case CF_TYPE_INT64: CMP_AS(int64_t);
    case CF_TYPE_INT128: CMP_AS(cf_i128);
    case CF_TYPE_FLOAT: CMP_AS(float);
    case CF_TYPE_DOUBLE: CMP_AS(double);
    case CF_TYPE_BINARY: {
        cf_slice x, y;
        memcpy(&x, a, sizeof x);
        memcpy(&y, b, sizeof y);
        size_t n = x.len < y.len ? x.len : y.len;
        int c = n ? memcmp(x.data, y.data, n) : 0;
        if (c != 0)
            return c < 0 ? -1 : 1;
        return CMP3(x.len, y.len);
    }
    default: return 0;
    }
}

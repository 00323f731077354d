/* The (type, encoding) registry (format §8.0) and value comparison in key order
 * (format §1.8, §8.10).
 *
 * Lookups follow Kudu's matrix by physical type; a pair outside the matrix has
 * no implementation (NULL), except the legacy GROUP_VARINT decoder for UINT32.
 */
#include <string.h>

#include "encodings.h"
#include "util/error.h"

cf_encoding cf_encoding_resolve(cf_type t, cf_encoding requested)
{
    /* format §8.0: Kudu silently falls back to the type's default. */
    if (cf_type_allows_encoding(t, requested))
        return requested;
    return cf_type_default_encoding(t);
}

static bool is_rle_int(cf_type phys)
{
    return phys <= CF_TYPE_INT64; /* UINT8 .. INT64 are ids 0..7 */
}

const cf_encoder_ops *cf_encoder_lookup(cf_type t, cf_encoding e)
{
    if (!cf_type_allows_encoding(t, e))
        return NULL;
    cf_type phys = cf_type_physical(t);
    switch (e) {
    case CF_ENC_PLAIN:
        if (phys == CF_TYPE_BOOL)
            return &cf_enc_plain_bool_ops;
        if (phys == CF_TYPE_BINARY)
            return &cf_enc_plain_binary_ops;
        return &cf_enc_plain_ops;
    case CF_ENC_RLE:
        if (phys == CF_TYPE_BOOL)
            return (&cf_enc_rle_bool_ops);
        return is_rle_int(phys) ? (&cf_enc_rle_ops) : NULL;
    case CF_ENC_BIT_SHUFFLE: return (&cf_enc_bshuf_ops);
    case CF_ENC_PREFIX: return (&cf_enc_prefix_ops);
    case CF_ENC_DICT: return (&cf_enc_dict_ops);
    default: return NULL; /* AUTO must be resolved first; GROUP_VARINT is never written */
    }
}

const cf_decoder_ops *cf_decoder_lookup(cf_type t, cf_encoding e)
{
    cf_type phys = cf_type_physical(t);
    if (e == CF_ENC_GROUP_VARINT)
        return t == CF_TYPE_UINT32 ? (&cf_dec_gvint_ops) : NULL;
    if (!cf_type_allows_encoding(t, e))
        return NULL;
    switch (e) {
    case CF_ENC_PLAIN:
        if (phys == CF_TYPE_BOOL)
            return &cf_dec_plain_bool_ops;
        if (phys == CF_TYPE_BINARY)
            return &cf_dec_plain_binary_ops;
        return &cf_dec_plain_ops;
    case CF_ENC_RLE:
        if (phys == CF_TYPE_BOOL)
            return (&cf_dec_rle_bool_ops);
        return is_rle_int(phys) ? (&cf_dec_rle_ops) : NULL;
    case CF_ENC_BIT_SHUFFLE: return (&cf_dec_bshuf_ops);
    case CF_ENC_PREFIX: return (&cf_dec_prefix_ops);
    case CF_ENC_DICT: return (&cf_dec_dict_ops);
    default: return NULL;
    }
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

__extension__ typedef __int128 cf_i128;

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

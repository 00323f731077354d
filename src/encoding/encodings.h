/* Internal: the ops of every block encoding, for the registry and for
 * encodings built from others (DICT uses PLAIN BINARY and BIT_SHUFFLE). */
#ifndef CF_ENCODING_ENCODINGS_H
#define CF_ENCODING_ENCODINGS_H

#include "encoding.h"

extern const cf_encoder_ops cf_enc_plain_ops; /* fixed-width types */
extern const cf_decoder_ops cf_dec_plain_ops;
extern const cf_encoder_ops cf_enc_plain_bool_ops; /* BOOL as a packed bitmap */
extern const cf_decoder_ops cf_dec_plain_bool_ops;
extern const cf_encoder_ops cf_enc_plain_binary_ops; /* binary types */
extern const cf_decoder_ops cf_dec_plain_binary_ops;
extern const cf_encoder_ops cf_enc_rle_ops; /* integer types */
extern const cf_decoder_ops cf_dec_rle_ops;
extern const cf_encoder_ops cf_enc_rle_bool_ops; /* BOOL */
extern const cf_decoder_ops cf_dec_rle_bool_ops;
extern const cf_encoder_ops cf_enc_bshuf_ops; /* ints, floats, 128-bit */
extern const cf_decoder_ops cf_dec_bshuf_ops;
extern const cf_encoder_ops cf_enc_prefix_ops; /* binary types */
extern const cf_decoder_ops cf_dec_prefix_ops;
extern const cf_encoder_ops cf_enc_dict_ops; /* binary types */
extern const cf_decoder_ops cf_dec_dict_ops;
extern const cf_decoder_ops cf_dec_gvint_ops; /* legacy UINT32, read only */

/* The decoder base (decoder.c). A zeroed decoder of size bytes (its struct
 * starts with cf_decoder) for ops in *out; CF_ENOMEM naming `name`. */
cf_status cf_dec_new(cf_decoder **out, size_t size, const cf_decoder_ops *ops, const char *name,
                     cf_error *err);
/* The free op of a decoder that owns nothing beyond itself. */
void cf_dec_free_flat(cf_decoder *d);
/* The seek op of every decoder whose values need nothing to be decoded to
 * stand at an index: checks idx <= count and moves there. */
cf_status cf_dec_seek_positional(cf_decoder *d, size_t idx, cf_error *err);

/* Forget the loaded block's count, ordinal and position (the first thing a
 * load does, so that a failed load leaves an empty decoder). */
static inline void cf_dec_unbind(cf_decoder *d)
{
    d->count = 0;
    d->pos = 0;
    d->first_ord = 0;
}

#endif

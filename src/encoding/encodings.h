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

/* The seek op of every decoder whose values need nothing to be decoded to
 * stand at an index (seek_positional.c): checks idx <= count and moves there. */
cf_status cf_dec_seek_positional(cf_decoder *d, size_t idx, cf_error *err);

#endif

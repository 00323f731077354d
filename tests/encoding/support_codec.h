/* Shared by the encoding tests: an encoder or decoder of one encoding's ops
 * for a type, created with the parameters the tests use (the type's width,
 * restart interval 16), and a decoder opened on a block through the registry.
 * Each asserts it was created. */
#ifndef CF_TEST_SUPPORT_CODEC_H
#define CF_TEST_SUPPORT_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "encoding/encodings.h"

cf_encoder *enc_create(const cf_encoder_ops *ops, cf_type t, uint32_t block_size);
cf_decoder *dec_create(const cf_decoder_ops *ops, cf_type t);
/* A decoder of encoding enc for type t, loaded with data[0..len). */
cf_decoder *dec_open(cf_encoding enc, cf_type t, const uint8_t *data, size_t len);

#endif

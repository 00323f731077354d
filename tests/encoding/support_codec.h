/* Shared by the encoding tests: an encoder or decoder of one encoding's ops
 * for a type, created with the parameters the tests use (the type's width,
 * restart interval 16), and a decoder opened on a block through the registry.
 * Each asserts it was created. */
#ifndef CF_TEST_SUPPORT_CODEC_H
#define CF_TEST_SUPPORT_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "encoding/encodings.h"

cf_encoder *enc_create(const cf_encoder_ops *ops, cf_type t, uint32_t block_size);
cf_decoder *dec_create(const cf_decoder_ops *ops, cf_type t);
/* A decoder of encoding enc for type t, loaded with data[0..len). */
cf_decoder *dec_open(cf_encoding enc, cf_type t, const uint8_t *data, size_t len);

/* Read every value of a loaded decoder in calls of up to batch (<= 16)
 * values: the first failure, else CF_OK. For damaged blocks, where a clean
 * error passes. */
cf_status dec_next_all(cf_decoder *d, size_t batch, cf_error *err);
/* A loaded decoder holds exactly the n values want[] of es bytes each (n < 16,
 * es <= 16): its count, one call for n + 1 values gives those n, the next none. */
void dec_expect_values(cf_decoder *d, const void *want, size_t n, size_t es);
/* For damaged blocks: a decoder of enc opened on an exact-size heap copy of
 * data[0..len) (so ASan sees a read past its end), every value read in calls
 * of `batch` values (0: none read), then `more` (when not NULL) on it, given
 * the copy; the first failure, else CF_OK. */
typedef cf_status (*dec_more_fn)(cf_decoder *d, const uint8_t *copy, size_t len, cf_error *err);
cf_status dec_try(cf_encoding enc, const cf_dec_params *p, const uint8_t *data, size_t len,
                  size_t batch, dec_more_fn more, cf_error *err);
/* A block given in hex (at most 256 bytes) gives status `want` when `check`
 * (a dec_try for one encoding and type) decodes it. */
typedef cf_status (*dec_check_fn)(const uint8_t *blk, size_t len, cf_error *err);
void dec_expect_hex(dec_check_fn check, const char *hex, cf_status want);
/* A value seek to key, `want` of the block's n values being below it: the
 * decoder at want, and CF_OK with *exact == want_exact, or CF_ENOTFOUND when
 * want == n. Returns want < n (a value to read). */
bool dec_expect_seek(cf_decoder *d, const void *key, size_t want, size_t n, bool want_exact);
/* A value seek to key; CF_ENOTFOUND (past the last value) counts as CF_OK. */
cf_status dec_seek_value(cf_decoder *d, const cf_slice *key, cf_error *err);

#endif

/* Internal to src/encoding: the 8-byte header that PLAIN (format §8.1), PLAIN
 * BOOL (§8.2) and RLE (§8.3) blocks open with, as their encoders finish it
 * and their decoders read it.
 *
 *   | offset | size | field                               |
 *   |--------|------|-------------------------------------|
 *   | 0      | 4    | number of values, little-endian     |
 *   | 4      | 4    | ordinal of the first value (LE)     |
 *   | 8      | ...  | the values in the encoding's layout |
 */
#ifndef CF_ENCODING_BLOCK_HEADER_H
#define CF_ENCODING_BLOCK_HEADER_H

#include <stdint.h>

#include <cfile/types.h>

#include "encoding.h"

#include "util/buf.h"
#include "util/endian.h"
#include "util/error.h"

#define CF_ENC_COUNTED_HEADER 8u

/* Fill the header reserved at the start of b (the first CF_ENC_COUNTED_HEADER
 * bytes an encoder appended) and hand out the block, valid until b changes.
 * CF_ENOMEM when an append to b failed, CF_EINVAL for more values than the
 * header's 32 bits count; `name` ("plain", "rle", ...) starts the message. */
static inline cf_status cf_enc_finish_counted(cf_buf *b, size_t count, uint32_t first_ord,
                                              const char *name, cf_slice *out, cf_error *err)
{
    CF_CHECK(!b->oom, err, CF_ENOMEM, "%s: out of memory building a block", name);
    CF_CHECK(count <= UINT32_MAX, err, CF_EINVAL, "%s: %zu values do not fit one block", name,
             count);
    cf_store_le32(b->data, (uint32_t)count);
    cf_store_le32(b->data + 4, first_ord);
    out->data = b->data;
    out->len = b->len;
    return CF_OK;
}

/* The header of a block of len bytes; CF_ECORRUPT when len cannot hold it.
 * `name` ("plain block", ...) starts the message. */
static inline cf_status cf_enc_read_counted(const uint8_t *data, size_t len, const char *name,
                                            uint32_t *count, uint32_t *first_ord, cf_error *err)
{
    CF_CHECK(len >= CF_ENC_COUNTED_HEADER, err, CF_ECORRUPT,
             "%s: %zu bytes cannot hold the 8-byte header", name, len);
    *count = cf_load_le32(data);
    *first_ord = cf_load_le32(data + 4);
    return CF_OK;
}

/* The encoder state PLAIN and PLAIN BOOL share (block_header.c): the block
 * being built behind its header placeholder, and Kudu's fullness rule for
 * both (format §10.2: full once the bytes, header included, exceed the block
 * size). An encoding with more state embeds it first. */
typedef struct cf_counted_enc {
    cf_encoder base;
    cf_buf buf; /* header placeholder + values */
    size_t count;
    uint32_t block_size;
    const char *name; /* "plain", ...: starts messages */
} cf_counted_enc;

/* Allocate an encoder of size bytes (>= sizeof(cf_counted_enc), zeroed) for
 * ops, with reserve bytes of buffer room beyond the header (0: grow as
 * needed), reset for its first block; CF_ENOMEM naming `name`. */
cf_status cf_counted_enc_create(cf_counted_enc **out, size_t size, const cf_encoder_ops *ops,
                                const cf_enc_params *p, size_t reserve, const char *name,
                                cf_error *err);
/* The ops (encoding.h) of a counted encoder: free, reset, is_full, count, finish. */
void cf_counted_enc_free(cf_encoder *e);
void cf_counted_enc_reset(cf_encoder *e);
bool cf_counted_enc_is_full(const cf_encoder *e);
size_t cf_counted_enc_count(const cf_encoder *e);
cf_status cf_counted_enc_finish(cf_encoder *e, uint32_t first_ord, cf_slice *out, cf_error *err);

#endif

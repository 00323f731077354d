/* Internal: the block codecs (format §5.3): raw snappy, LZ4 block format, zlib stream. */
#ifndef CF_CODEC_COMPRESS_H
#define CF_CODEC_COMPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/types.h>

#include "../util/buf.h"

/* Is this codec compiled in? (NONE always is.) */
bool cf_codec_available(cf_compression c);
/* Append the codec's output for src to dst, exactly as Kudu calls the codec
 * (snappy::Compress, LZ4_compress_default, zlib compress() at level 6). */
cf_status cf_codec_compress(cf_compression c, const uint8_t *src, size_t len, cf_buf *dst,
                            cf_error *err);
/* Decompress src into exactly dst_len bytes; anything else is CF_ECORRUPT.
 * Never writes past dst + dst_len, whatever src holds. */
cf_status cf_codec_decompress(cf_compression c, const uint8_t *src, size_t len, uint8_t *dst,
                              size_t dst_len, cf_error *err);

#endif

/* Internal: our raw snappy decoder (snappy.c), used by the SNAPPY block codec
 * (CFile blocks, Parquet pages). Encoding stays libsnappy's. */
#ifndef CF_CODEC_SNAPPY_H
#define CF_CODEC_SNAPPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decode one raw snappy payload (varint length, then elements) of exactly
 * src_len bytes into exactly dst_len bytes. Accepts exactly what libsnappy's
 * snappy_uncompress accepts with a result of dst_len bytes (tests and
 * fuzz/fuzz_snappy_diff.c compare the two). Never writes outside
 * [dst, dst + dst_len) nor reads outside [src, src + src_len). */
bool cf_snappy_decode_exact(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len);

/* The fast loop in use: "ssse3" or "portable" (cf_build_features). */
const char *cf_snappy_impl(void);

#endif

/* Internal: our LZ4 block decoder (lz4.c), shared by bitshuffle's chunks and
 * the LZ4 block codec. Encoding stays liblz4's. */
#ifndef CF_CODEC_LZ4_H
#define CF_CODEC_LZ4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes past dst + dst_len that cf_lz4_decode_exact may overwrite. */
#define CF_LZ4_SLACK 64u

/* Decode one LZ4 block of exactly src_len bytes into exactly dst_len bytes.
 * Accepts exactly what liblz4's LZ4_decompress_safe(src, dst, src_len, dst_len)
 * accepts with a result of dst_len (tests and fuzz/fuzz_lz4_diff.c compare the
 * two), but may write up to CF_LZ4_SLACK bytes past dst + dst_len: the caller
 * provides that room. Never reads outside [src, src + src_len). */
bool cf_lz4_decode_exact(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len);

/* The fast loop in use: "ssse3" or "portable" (cf_build_features). */
const char *cf_lz4_impl(void);

#endif

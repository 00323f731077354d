/* Internal: bitshuffle's bit transpose (format Appendix B) and its LZ4 framing
 * as bitshuffle 0.3.5 compress_lz4 writes it (format §8.5.2). The transpose has
 * a portable and SIMD versions, chosen once at run time; all give equal bytes. */
#ifndef CF_CODEC_BITSHUFFLE_H
#define CF_CODEC_BITSHUFFLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/status.h>

#include "../util/buf.h"

/* Transpose n elements (n a multiple of 8) of elem_size bytes: out has 8*elem_size
 * bit planes of n/8 bytes. in and out must not overlap. */
void cf_bitshuffle(const void *in, void *out, size_t n, size_t elem_size);
void cf_bitunshuffle(const void *in, void *out, size_t n, size_t elem_size);
/* The implementations, for tests and benchmarks. */
void cf_bitshuffle_portable(const void *in, void *out, size_t n, size_t elem_size);
void cf_bitunshuffle_portable(const void *in, void *out, size_t n, size_t elem_size);
const char *cf_bitshuffle_impl(void);

/* bitshuffle's default chunk, in elements: max(128, (8192 / elem_size) rounded down to 8). */
size_t cf_bshuf_chunk_elems(size_t elem_size);
/* Append the payload for n elements (n a multiple of 8): per chunk, a big-endian
 * u32 length then the LZ4 block of the transposed chunk. */
cf_status cf_bshuf_compress_lz4(const void *in, size_t n, size_t elem_size, cf_buf *out,
                                cf_error *err);
/* Decode a payload of exactly src_len bytes into n elements at out
 * (n * elem_size bytes). CF_ECORRUPT if the payload does not decode to exactly that. */
cf_status cf_bshuf_decompress_lz4(const uint8_t *src, size_t src_len, void *out, size_t n,
                                  size_t elem_size, cf_error *err);

#endif

/* Internal: bitshuffle's bit transpose (format Appendix B) and its LZ4 framing
 * as bitshuffle 0.3.5 compress_lz4 writes it (format §8.5.2). The transpose has
 * a portable and SIMD versions, chosen once at run time; all give equal bytes. */
#ifndef CF_CODEC_BITSHUFFLE_H
#define CF_CODEC_BITSHUFFLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/status.h>

#include "util/buf.h"
#include "lz4.h"

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

/* Lazy, per-chunk decoding (BIT_SHUFFLE readers decode only the chunks they
 * touch). A chunk is at most CF_BSHUF_CHUNK_BYTES decoded bytes for every
 * element size up to 64; the scratch a chunk decode needs is
 * CF_BSHUF_SCRATCH_BYTES (LZ4 output plus the slack our decoder may write). */
#define CF_BSHUF_CHUNK_BYTES 8192u
#define CF_BSHUF_LZ4_SLACK CF_LZ4_SLACK
#define CF_BSHUF_SCRATCH_BYTES (CF_BSHUF_CHUNK_BYTES + CF_BSHUF_LZ4_SLACK)
/* Walk the big-endian chunk length prefixes of a payload for n elements:
 * chunk_off[c] = payload offset of chunk c's prefix (the caller gives room for
 * ceil(n / cf_bshuf_chunk_elems(elem_size)) entries). CF_ECORRUPT unless the
 * chunks tile the payload exactly. Does not decompress. */
cf_status cf_bshuf_index_lz4(const uint8_t *src, size_t src_len, size_t n, size_t elem_size,
                             uint32_t *chunk_off, size_t *nchunks, cf_error *err);
/* Decode one chunk of k elements whose length prefix starts at src (src_len
 * bytes readable from there) into out (k * elem_size bytes). scratch holds
 * CF_BSHUF_SCRATCH_BYTES. CF_ECORRUPT if it does not decode to exactly that. */
cf_status cf_bshuf_decompress_chunk(const uint8_t *src, size_t src_len, void *out, size_t k,
                                    size_t elem_size, uint8_t *scratch, cf_error *err);
/* The first half of cf_bshuf_decompress_chunk: only the LZ4 block, so scratch
 * holds the chunk still transposed (8 * elem_size bit planes of k / 8 bytes). */
cf_status cf_bshuf_lz4_chunk(const uint8_t *src, size_t src_len, size_t k, size_t elem_size,
                             uint8_t *scratch, cf_error *err);
/* Element i of a transposed chunk of k elements (k a multiple of 8, i < k) into
 * out (elem_size bytes): one bit from each plane, so reading a few values of a
 * chunk costs 8 * elem_size loads each instead of a transpose of the chunk. */
void cf_bshuf_extract(const uint8_t *t, size_t k, size_t elem_size, size_t i, uint8_t *out);

#endif

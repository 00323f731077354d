/* Internal: the block codecs (format §5.3): raw snappy, LZ4 block format, zlib stream. */
#ifndef CF_CODEC_COMPRESS_H
#define CF_CODEC_COMPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/types.h>

#include "util/buf.h"

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

/* Bytes past dst + dst_len that cf_codec_decompress_padded may overwrite. */
#define CF_CODEC_PAD 64u
/* cf_codec_decompress for a dst with CF_CODEC_PAD writable bytes after dst_len
 * (their contents are then undefined): LZ4 takes our faster decoder (lz4.c),
 * which accepts exactly what liblz4 accepts. */
cf_status cf_codec_decompress_padded(cf_compression c, const uint8_t *src, size_t len, uint8_t *dst,
                                     size_t dst_len, cf_error *err);

/* The ZLIB codec's decoders (inflate.c): ISA-L's inflate where the build has it
 * (AUTO picks it), zlib's uncompress() always. Both accept exactly what zlib
 * accepts for a dst_len-byte block; tests run both over the same inputs. */
typedef enum cf_inflater { CF_INFLATE_AUTO, CF_INFLATE_ZLIB, CF_INFLATE_ISAL } cf_inflater;
bool cf_codec_inflater_available(cf_inflater which);
/* The inflater AUTO uses: "isa-l" or "zlib" (cf_build_features). */
const char *cf_codec_inflater_name(void);
/* Decode the zlib stream src into exactly dst_len bytes (else CF_ECORRUPT);
 * CF_ENOTSUP if `which` is not in this build. */
cf_status cf_codec_zlib_inflate(cf_inflater which, const uint8_t *src, size_t len, uint8_t *dst,
                                size_t dst_len, cf_error *err);

/* The codecs Parquet adds (src/parquet/codec.c maps its codec numbers onto
 * these and the ones above). Each decompressor writes at most dst_len bytes
 * and fails (CF_ECORRUPT) unless the payload decodes to exactly dst_len. A
 * level of 0 means the codec's default.
 *
 * GZIP and ZSTD compress with a context (cx; NULL: one made and freed for the
 * call) from cf_codec_{gzip,zstd}_cctx_create (NULL: out of memory), freed by
 * _cctx_free (NULL is a no-op). A context keeps the codec's tables, about a
 * MiB, from one call to the next: made anew per call they are fresh memory
 * the kernel must zero every time. The bytes out are the same either way. A
 * context belongs to one thread at a time. */
typedef struct cf_codec_gzip_cctx cf_codec_gzip_cctx;
typedef struct cf_codec_zstd_cctx cf_codec_zstd_cctx;
cf_codec_gzip_cctx *cf_codec_gzip_cctx_create(void);
void cf_codec_gzip_cctx_free(cf_codec_gzip_cctx *cx);
cf_codec_zstd_cctx *cf_codec_zstd_cctx_create(void);
void cf_codec_zstd_cctx_free(cf_codec_zstd_cctx *cx);

/* GZIP (RFC 1952), level 6 by default. Decoding also takes a zlib (RFC 1950)
 * stream and several gzip members back to back (gzip.c). */
cf_status cf_codec_gzip_compress(cf_codec_gzip_cctx *cx, const uint8_t *src, size_t len, int level,
                                 cf_buf *dst, cf_error *err);
cf_status cf_codec_gzip_decompress(const uint8_t *src, size_t len, uint8_t *dst, size_t dst_len,
                                   cf_error *err);
/* Zstandard frames (libzstd); several frames back to back decode as one (zstd.c). */
cf_status cf_codec_zstd_compress(cf_codec_zstd_cctx *cx, const uint8_t *src, size_t len, int level,
                                 cf_buf *dst, cf_error *err);
cf_status cf_codec_zstd_decompress(const uint8_t *src, size_t len, uint8_t *dst, size_t dst_len,
                                   cf_error *err);
/* Brotli (RFC 7932, libbrotlienc/libbrotlidec), window 2^22 (brotli.c). */
cf_status cf_codec_brotli_compress(const uint8_t *src, size_t len, int quality, cf_buf *dst,
                                   cf_error *err);
cf_status cf_codec_brotli_decompress(const uint8_t *src, size_t len, uint8_t *dst, size_t dst_len,
                                     cf_error *err);
/* An LZ4 frame (lz4frame.h, magic 04 22 4d 18), which old parquet-cpp wrote
 * for Parquet's LZ4 codec; frames back to back decode as one (zstd.c). */
bool cf_codec_is_lz4_frame(const uint8_t *src, size_t len);
cf_status cf_codec_lz4_frame_decompress(const uint8_t *src, size_t len, uint8_t *dst,
                                        size_t dst_len, cf_error *err);

/* Hadoop's BlockCompressorStream framing (hadoop.c): blocks of a big-endian
 * uncompressed length, then (big-endian compressed length, chunk) pairs until
 * the block is produced, until the input ends. `chunk` decodes one chunk into
 * at most cap bytes, *got what it produced. Exactly dst_len bytes or
 * CF_ECORRUPT naming `name`. Shared by HFile payloads and Parquet's LZO. */
typedef cf_status (*cf_codec_chunk_fn)(const uint8_t *src, size_t len, uint8_t *dst, size_t cap,
                                       size_t *got, cf_error *err);
cf_status cf_codec_hadoop_decode(const char *name, cf_codec_chunk_fn chunk, const uint8_t *src,
                                 size_t len, uint8_t *dst, size_t dst_len, cf_error *err);
/* LZO1X (liblzo2): one chunk decoded (a cf_codec_chunk_fn), or compressed
 * into dst (room for cf_codec_lzo_bound(len) bytes; *dst_len in: room, out:
 * bytes). cf_codec_lzo_ready: the library initialised (once). */
bool cf_codec_lzo_ready(void);
cf_status cf_codec_lzo_chunk(const uint8_t *src, size_t len, uint8_t *dst, size_t cap, size_t *got,
                             cf_error *err);
size_t cf_codec_lzo_bound(size_t len);
/* The chunk codecs Hadoop's framing carries here (HFile: all four; Parquet's
 * LZ4 and LZO pages). */
typedef enum cf_hadoop_chunk {
    CF_HADOOP_SNAPPY,
    CF_HADOOP_LZ4,
    CF_HADOOP_LZO,
    CF_HADOOP_ZSTD /* level 3, as HBase's ZstdCodec */
} cf_hadoop_chunk;
/* Append src (at most 2^31 - 1 bytes) as one block of one chunk, what
 * BlockCompressorStream writes when the payload fits its buffer. An empty
 * payload is the block length 0 alone (Hadoop's empty stream, HBase 2.x), or
 * with empty_chunk that and one chunk compressed from no bytes (Parquet's LZ4
 * pages, as parquet-java and arrow write them). `name` starts messages. */
cf_status cf_codec_hadoop_encode(cf_hadoop_chunk kind, const char *name, const uint8_t *src,
                                 size_t len, bool empty_chunk, cf_buf *dst, cf_error *err);
cf_status cf_codec_lzo_compress_chunk(const uint8_t *src, size_t len, uint8_t *dst, size_t *dst_len,
                                      cf_error *err);

#endif

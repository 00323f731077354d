/* Parquet page codecs (Compression.md), mapped onto src/codec.
 *
 *   | codec        | payload                                              |
 *   |--------------|------------------------------------------------------|
 *   | UNCOMPRESSED | the page                                             |
 *   | SNAPPY       | raw snappy (varint length + elements), not framed    |
 *   | GZIP         | gzip member(s); a zlib stream is accepted too        |
 *   | LZO          | Hadoop-framed LZO1X chunks (hadoop-lzo's LzoCodec)   |
 *   | BROTLI       | brotli stream                                        |
 *   | LZ4          | see below                                            |
 *   | ZSTD         | zstd frame(s)                                        |
 *   | LZ4_RAW      | one LZ4 block, no framing                            |
 *
 * The deprecated LZ4 codec has three forms in real files. parquet-java (and
 * arrow since it learned to match) write Hadoop's framing: blocks of
 *   | 4 | uncompressed length, big-endian |
 *   | 4 | compressed length, big-endian   |
 *   | n | one LZ4 block                    |
 * until the input ends. Old parquet-cpp wrote a bare LZ4 block, and some
 * versions an LZ4 frame. Like parquet-cpp we first try the Hadoop framing
 * (every header consistent with the bytes and the promised size, every block
 * decoding to its stated length, nothing left over), then an LZ4 frame by its
 * magic number, then a raw block. The raw block is always tried last because
 * it is the only form without a signature.
 *
 * LZO pages (parquet-java with hadoop-lzo) carry the same Hadoop block framing
 * as HFile's LZO payloads: one framing decoder (src/codec/hadoop.c) serves both.
 */
#include "encoding.h"

#include <limits.h>
#include <string.h>

#include <lz4.h>

#include "codec/compress.h"
#include "util/endian.h"
#include "util/error.h"

static const char *const codec_names[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO",
                                          "BROTLI",       "LZ4",    "ZSTD", "LZ4_RAW"};

const char *cf_pq_codec_name(unsigned codec)
{
    return codec < sizeof codec_names / sizeof codec_names[0] ? codec_names[codec] : NULL;
}

bool cf_pq_codec_supported(unsigned codec)
{
    return codec <= CF_PQC_LZ4_RAW;
}

/* Hadoop-framed LZ4: true and the whole of dst filled, or false (nothing
 * decided: the caller tries the other forms). */
static bool lz4_hadoop(const uint8_t *src, size_t len, uint8_t *dst, size_t dst_len)
{
    size_t in = 0, out = 0;
    if (len < 8)
        return false;
    while (len - in >= 8) {
        uint32_t ulen = cf_load_be32(src + in), clen = cf_load_be32(src + in + 4);
        in += 8;
        if (clen > len - in || ulen > dst_len - out || clen > INT_MAX || ulen > INT_MAX)
            return false;
        int n =
            LZ4_decompress_safe((const char *)src + in, (char *)dst + out, (int)clen, (int)ulen);
        if (n < 0 || (uint32_t)n != ulen)
            return false;
        in += clen;
        out += ulen;
    }
    return in == len && out == dst_len;
}

cf_status cf_pq_decompress(unsigned codec, const uint8_t *src, size_t len, uint8_t *dst,
                           size_t dst_len, cf_error *err)
{
    switch (codec) {
    case CF_PQC_UNCOMPRESSED:
        CF_CHECK(len == dst_len, err, CF_ECORRUPT,
                 "UNCOMPRESSED page has %zu bytes, its header says %zu", len, dst_len);
        if (len)
            memcpy(dst, src, len);
        return CF_OK;
    case CF_PQC_SNAPPY: return cf_codec_decompress(CF_COMP_SNAPPY, src, len, dst, dst_len, err);
    case CF_PQC_GZIP: return cf_codec_gzip_decompress(src, len, dst, dst_len, err);
    case CF_PQC_BROTLI: return cf_codec_brotli_decompress(src, len, dst, dst_len, err);
    case CF_PQC_ZSTD: return cf_codec_zstd_decompress(src, len, dst, dst_len, err);
    case CF_PQC_LZ4_RAW: return cf_codec_decompress(CF_COMP_LZ4, src, len, dst, dst_len, err);
    case CF_PQC_LZO:
        return cf_codec_hadoop_decode("LZO", cf_codec_lzo_chunk, src, len, dst, dst_len, err);
    case CF_PQC_LZ4:
        if (dst_len == 0 && len == 0)
            return CF_OK;
        if (lz4_hadoop(src, len, dst, dst_len))
            return CF_OK;
        if (cf_codec_is_lz4_frame(src, len))
            return cf_codec_lz4_frame_decompress(src, len, dst, dst_len, err);
        {
            cf_status st = cf_codec_decompress(CF_COMP_LZ4, src, len, dst, dst_len, err);
            if (st != CF_OK)
                return cf_error_prefix(err, st,
                                       "LZ4 page is neither Hadoop-framed, an LZ4 frame "
                                       "nor a raw block: ");
            return CF_OK;
        }
    default: {
        const char *name = cf_pq_codec_name(codec);
        CF_FAIL(err, CF_ENOTSUP, "compression codec %s (%u) is not supported",
                name ? name : "unknown", codec);
    }
    }
}

void cf_pq_compressor_init(cf_pq_compressor *cz, unsigned codec, int level)
{
    memset(cz, 0, sizeof(*cz));
    cz->codec = codec;
    cz->level = level;
}

void cf_pq_compressor_dispose(cf_pq_compressor *cz)
{
    cf_codec_gzip_cctx_free(cz->gzip);
    cf_codec_zstd_cctx_free(cz->zstd);
    cz->gzip = NULL;
    cz->zstd = NULL;
}

cf_status cf_pq_compressor_run(cf_pq_compressor *cz, const uint8_t *src, size_t len, cf_buf *dst,
                               cf_error *err)
{
    if (cz->codec == CF_PQC_ZSTD) {
        if (cz->zstd == NULL)
            cz->zstd = cf_codec_zstd_cctx_create();
        CF_CHECK(cz->zstd != NULL, err, CF_ENOMEM, "zstd: cannot allocate a compression context");
        return cf_codec_zstd_compress(cz->zstd, src, len, cz->level, dst, err);
    }
    if (cz->codec == CF_PQC_GZIP) {
        if (cz->gzip == NULL)
            cz->gzip = cf_codec_gzip_cctx_create();
        CF_CHECK(cz->gzip != NULL, err, CF_ENOMEM, "gzip: cannot allocate a compression context");
        return cf_codec_gzip_compress(cz->gzip, src, len, cz->level, dst, err);
    }
    return cf_pq_compress(cz->codec, src, len, cz->level, dst, err);
}

cf_status cf_pq_compress(unsigned codec, const uint8_t *src, size_t len, int level, cf_buf *dst,
                         cf_error *err)
{
    switch (codec) {
    case CF_PQC_UNCOMPRESSED: return cf_codec_compress(CF_COMP_NONE, src, len, dst, err);
    case CF_PQC_SNAPPY: return cf_codec_compress(CF_COMP_SNAPPY, src, len, dst, err);
    case CF_PQC_GZIP: return cf_codec_gzip_compress(NULL, src, len, level, dst, err);
    case CF_PQC_BROTLI: return cf_codec_brotli_compress(src, len, level, dst, err);
    case CF_PQC_ZSTD: return cf_codec_zstd_compress(NULL, src, len, level, dst, err);
    case CF_PQC_LZ4_RAW: return cf_codec_compress(CF_COMP_LZ4, src, len, dst, err);
    /* One Hadoop block of one chunk (codec/hadoop.c), as parquet-java and arrow
     * write an LZ4 page and hadoop-lzo's LzoCodec an LZO one. */
    case CF_PQC_LZ4: return cf_codec_hadoop_encode(CF_HADOOP_LZ4, "LZ4", src, len, true, dst, err);
    case CF_PQC_LZO: return cf_codec_hadoop_encode(CF_HADOOP_LZO, "LZO", src, len, false, dst, err);
    default: {
        const char *name = cf_pq_codec_name(codec);
        CF_FAIL(err, CF_ENOTSUP, "compression codec %s (%u) is not supported",
                name ? name : "unknown", codec);
    }
    }
}

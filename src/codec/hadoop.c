/* Hadoop's BlockCompressorStream framing, shared by HFile payloads
 * (src/hfile/codec.c: SNAPPY, LZ4, LZO, ZSTD) and Parquet's LZO pages
 * (src/parquet/codec.c):
 *
 *   off  size  field
 *     0     4  uncompressed length of this block (big-endian)
 *     4     4  compressed length of the next chunk
 *     8     n  chunk
 *           .. more (length, chunk) pairs until the block's bytes are produced,
 *              then the next block's uncompressed length, until the input ends.
 *
 * Written by cf_codec_hadoop_encode, read by cf_codec_hadoop_decode. LZO
 * chunks are LZO1X (hadoop-lzo's LzoCodec), coded here with liblzo2. */
#include "compress.h"

#include <pthread.h>

#include <lzo1x.h>
#include <zstd.h>

#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"

cf_status cf_codec_hadoop_decode(const char *name, cf_codec_chunk_fn chunk, const uint8_t *src,
                                 size_t len, uint8_t *dst, size_t dst_len, cf_error *err)
{
    size_t in = 0, out = 0;
    while (out < dst_len || in < len) {
        CF_CHECK(len - in >= 4, err, CF_ECORRUPT, "%s: framing truncated at byte %zu", name, in);
        size_t blk = cf_load_be32(src + in);
        in += 4;
        /* A zero-length framed block is what Hadoop's BlockCompressorStream
         * writes for an empty stream (HBase 2.x's empty meta index, say);
         * its decompressor reads it as the end. */
        if (blk == 0)
            continue;
        CF_CHECK(blk <= dst_len - out, err, CF_ECORRUPT,
                 "%s: framed block of %zu bytes overflows the %zu-byte payload", name, blk,
                 dst_len);
        size_t done = 0;
        while (done < blk) {
            CF_CHECK(len - in >= 4, err, CF_ECORRUPT, "%s: chunk length truncated", name);
            size_t clen = cf_load_be32(src + in);
            in += 4;
            CF_CHECK(clen <= len - in, err, CF_ECORRUPT,
                     "%s: chunk of %zu bytes overruns the payload", name, clen);
            size_t got = 0;
            CF_TRY(chunk(src + in, clen, dst + out + done, blk - done, &got, err));
            CF_CHECK(got > 0, err, CF_ECORRUPT, "%s: empty chunk", name);
            done += got;
            in += clen;
        }
        out += blk;
    }
    return CF_OK;
}

static pthread_once_t lzo_once = PTHREAD_ONCE_INIT;
static bool lzo_ok;
static void lzo_setup(void)
{
    lzo_ok = lzo_init() == LZO_E_OK;
}

bool cf_codec_lzo_ready(void)
{
    pthread_once(&lzo_once, lzo_setup);
    return lzo_ok;
}

cf_status cf_codec_lzo_chunk(const uint8_t *src, size_t len, uint8_t *dst, size_t cap, size_t *got,
                             cf_error *err)
{
    CF_CHECK(cf_codec_lzo_ready(), err, CF_ENOTSUP, "lzo: library failed to initialise");
    lzo_uint n = cap;
    int r = lzo1x_decompress_safe(src, len, dst, &n, NULL);
    CF_CHECK(r == LZO_E_OK, err, CF_ECORRUPT, "lzo: corrupt chunk (error %d)", r);
    *got = n;
    return CF_OK;
}

size_t cf_codec_lzo_bound(size_t len)
{
    return len + len / 16 + 64 + 3;
}

cf_status cf_codec_lzo_compress_chunk(const uint8_t *src, size_t len, uint8_t *dst, size_t *dst_len,
                                      cf_error *err)
{
    CF_CHECK(cf_codec_lzo_ready(), err, CF_ENOTSUP, "lzo: library failed to initialise");
    CF_CHECK(*dst_len >= cf_codec_lzo_bound(len), err, CF_EINVAL, "lzo: output too small");
    void *wrk = cf_malloc(LZO1X_1_MEM_COMPRESS);
    CF_CHECK(wrk != NULL, err, CF_ENOMEM, "lzo: cannot allocate the %u-byte compression work area",
             (unsigned)LZO1X_1_MEM_COMPRESS);
    lzo_uint on = *dst_len;
    int r = lzo1x_1_compress(src, len, dst, &on, wrk);
    cf_free(wrk);
    CF_CHECK(r == LZO_E_OK, err, CF_ENOMEM, "lzo: compress failed (%d)", r);
    *dst_len = on;
    return CF_OK;
}

/* One chunk's compressed bytes, appended to dst. */
static cf_status append_chunk(cf_hadoop_chunk kind, const char *name, const uint8_t *src,
                              size_t len, cf_buf *dst, cf_error *err)
{
    if (kind == CF_HADOOP_SNAPPY || kind == CF_HADOOP_LZ4)
        return cf_codec_compress(kind == CF_HADOOP_SNAPPY ? CF_COMP_SNAPPY : CF_COMP_LZ4, src, len,
                                 dst, err);
    size_t bound = kind == CF_HADOOP_LZO ? cf_codec_lzo_bound(len) : ZSTD_compressBound(len);
    uint8_t *o = cf_buf_extend(dst, bound);
    CF_CHECK(o != NULL, err, CF_ENOMEM, "%s: cannot allocate %zu output bytes", name, bound);
    size_t n = bound;
    if (kind == CF_HADOOP_LZO) {
        CF_TRY(cf_codec_lzo_compress_chunk(src, len, o, &n, err));
    } else {
        n = ZSTD_compress(o, bound, src, len, 3);
        CF_CHECK(!ZSTD_isError(n), err, CF_EIO, "%s: %s", name, ZSTD_getErrorName(n));
    }
    dst->len -= bound - n;
    return CF_OK;
}

cf_status cf_codec_hadoop_encode(cf_hadoop_chunk kind, const char *name, const uint8_t *src,
                                 size_t len, bool empty_chunk, cf_buf *dst, cf_error *err)
{
    CF_CHECK(len <= INT32_MAX, err, CF_EINVAL, "%s: %zu bytes exceed one Hadoop block", name, len);
    size_t at = dst->len;
    cf_buf_put_be32(dst, (uint32_t)len);
    CF_CHECK(!dst->oom, err, CF_ENOMEM, "%s: cannot allocate the 4-byte block length", name);
    if (len == 0 && !empty_chunk)
        return CF_OK;
    cf_buf_put_be32(dst, 0); /* the chunk's length, once known */
    CF_CHECK(!dst->oom, err, CF_ENOMEM, "%s: cannot allocate the 4-byte chunk length", name);
    CF_TRY(append_chunk(kind, name, src, len, dst, err));
    cf_store_be32(dst->data + at + 4, (uint32_t)(dst->len - at - 8));
    return CF_OK;
}

/* Brotli payloads (Parquet's BROTLI codec, RFC 7932) through Debian's
 * libbrotlienc / libbrotlidec. The one-shot decoder stops with an error
 * rather than write past the caller's capacity; its window (at most 16 MiB
 * without the large-window extension, which we do not enable) is the only
 * memory it takes.
 */
#include "compress.h"

#include <brotli/decode.h>
#include <brotli/encode.h>

#include "util/error.h"

cf_status cf_codec_brotli_compress(const uint8_t *src, size_t len, int quality, cf_buf *dst,
                                   cf_error *err)
{
    size_t bound = BrotliEncoderMaxCompressedSize(len);
    CF_CHECK(bound != 0, err, CF_EINVAL, "brotli: %zu bytes exceed the input limit", len);
    CF_CHECK(cf_buf_reserve(dst, bound), err, CF_ENOMEM, "brotli: cannot allocate %zu output bytes",
             bound);
    size_t n = bound;
    int q = quality ? quality : 5;
    CF_CHECK(BrotliEncoderCompress(q, 22, BROTLI_MODE_GENERIC, len, src, &n,
                                   dst->data + dst->len) == BROTLI_TRUE,
             err, CF_EIO, "brotli: compression of %zu bytes failed", len);
    dst->len += n;
    return CF_OK;
}

cf_status cf_codec_brotli_decompress(const uint8_t *src, size_t len, uint8_t *dst, size_t dst_len,
                                     cf_error *err)
{
    uint8_t one;
    size_t n = dst_len;
    BrotliDecoderResult r = BrotliDecoderDecompress(len, src, &n, dst_len ? dst : &one);
    CF_CHECK(r == BROTLI_DECODER_RESULT_SUCCESS, err, CF_ECORRUPT,
             "brotli: corrupt %zu-byte payload or more than %zu bytes out", len, dst_len);
    CF_CHECK(n == dst_len, err, CF_ECORRUPT,
             "brotli: payload decodes to %zu bytes, the page header says %zu", n, dst_len);
    return CF_OK;
}

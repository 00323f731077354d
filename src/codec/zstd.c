/* Zstandard and LZ4-frame payloads (Parquet's ZSTD codec; old parquet-cpp
 * LZ4 pages in the LZ4 frame format). Both libraries decode into the
 * caller's buffer with its capacity as a hard limit, so a payload can never
 * make us write or allocate past the size the page header promised.
 */
#include "compress.h"

#include <string.h>

#include <lz4frame.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"

struct cf_codec_zstd_cctx {
    ZSTD_CCtx *z;
};

cf_codec_zstd_cctx *cf_codec_zstd_cctx_create(void)
{
    cf_codec_zstd_cctx *cx = cf_malloc(sizeof(*cx));
    if (cx == NULL)
        return NULL;
    cx->z = ZSTD_createCCtx();
    if (cx->z == NULL) {
        cf_free(cx);
        return NULL;
    }
    return cx;
}

void cf_codec_zstd_cctx_free(cf_codec_zstd_cctx *cx)
{
    if (cx == NULL)
        return;
    ZSTD_freeCCtx(cx->z);
    cf_free(cx);
}

cf_status cf_codec_zstd_compress(cf_codec_zstd_cctx *cx, const uint8_t *src, size_t len, int level,
                                 cf_buf *dst, cf_error *err)
{
    size_t bound = ZSTD_compressBound(len);
    CF_CHECK(!ZSTD_isError(bound), err, CF_EINVAL, "zstd: %zu bytes exceed the input limit", len);
    CF_CHECK(cf_buf_reserve(dst, bound), err, CF_ENOMEM, "zstd: cannot allocate %zu output bytes",
             bound);
    /* ZSTD_compress is ZSTD_compressCCtx on a context of its own: the same
     * bytes, but its tables are built and freed on every call. */
    int lv = level ? level : ZSTD_CLEVEL_DEFAULT;
    size_t n = cx ? ZSTD_compressCCtx(cx->z, dst->data + dst->len, bound, src, len, lv)
                  : ZSTD_compress(dst->data + dst->len, bound, src, len, lv);
    CF_CHECK(!ZSTD_isError(n), err, CF_EIO, "zstd: compression of %zu bytes failed: %s", len,
             ZSTD_getErrorName(n));
    dst->len += n;
    return CF_OK;
}

cf_status cf_codec_zstd_decompress(const uint8_t *src, size_t len, uint8_t *dst, size_t dst_len,
                                   cf_error *err)
{
    uint8_t one;
    size_t n = ZSTD_decompress(dst_len ? dst : &one, dst_len, src, len);
    CF_CHECK(!ZSTD_isError(n), err,
             ZSTD_getErrorCode(n) == ZSTD_error_memory_allocation ? CF_ENOMEM : CF_ECORRUPT,
             "zstd: corrupt %zu-byte payload (expected %zu bytes out): %s", len, dst_len,
             ZSTD_getErrorName(n));
    CF_CHECK(n == dst_len, err, CF_ECORRUPT,
             "zstd: payload decodes to %zu bytes, the page header says %zu", n, dst_len);
    return CF_OK;
}

bool cf_codec_is_lz4_frame(const uint8_t *src, size_t len)
{
    return len >= 4 && cf_load_le32(src) == 0x184D2204u;
}

cf_status cf_codec_lz4_frame_decompress(const uint8_t *src, size_t len, uint8_t *dst,
                                        size_t dst_len, cf_error *err)
{
    LZ4F_dctx *dc = NULL;
    CF_CHECK(!LZ4F_isError(LZ4F_createDecompressionContext(&dc, LZ4F_VERSION)), err, CF_ENOMEM,
             "lz4 frame: cannot create a decoder");
    cf_status st = CF_OK;
    size_t in_off = 0, out_off = 0;
    uint8_t scratch;
    for (;;) {
        bool over = out_off == dst_len;
        size_t out_n = over ? 1 : dst_len - out_off, in_n = len - in_off;
        size_t hint =
            LZ4F_decompress(dc, over ? &scratch : dst + out_off, &out_n, src + in_off, &in_n, NULL);
        if (LZ4F_isError(hint))
            CF_FAIL_OUT(err, CF_ECORRUPT, "lz4 frame: corrupt payload at offset %zu: %s", in_off,
                        LZ4F_getErrorName(hint));
        if (over && out_n > 0)
            CF_FAIL_OUT(err, CF_ECORRUPT, "lz4 frame: payload decodes to more than %zu bytes",
                        dst_len);
        in_off += in_n;
        out_off += out_n;
        if (hint == 0) { /* frame complete */
            if (in_off == len)
                break;
            LZ4F_resetDecompressionContext(dc); /* another frame follows */
            continue;
        }
        if (in_n == 0 && out_n == 0)
            CF_FAIL_OUT(err, CF_ECORRUPT, "lz4 frame: payload of %zu bytes ends inside a frame",
                        len);
    }
    if (out_off != dst_len)
        CF_FAIL_OUT(err, CF_ECORRUPT,
                    "lz4 frame: payload decodes to %zu bytes, the page header says %zu", out_off,
                    dst_len);
out:
    LZ4F_freeDecompressionContext(dc);
    return st;
}

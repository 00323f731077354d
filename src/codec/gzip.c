/* GZIP pages (Parquet's GZIP codec, RFC 1952) over zlib.
 *
 * Writers emit a gzip member (parquet-java through Hadoop's GzipCodec, arrow
 * through zlib with a gzip header); readers should accept several members
 * back to back (Compression.md). zlib's automatic header detection (window
 * bits 15 + 32) also takes a zlib stream (RFC 1950), which some writers have
 * produced, at no cost. Output is bounded by the caller's size: inflate never
 * gets more room than dst_len, plus one scratch byte to notice a payload
 * that is longer than promised.
 */
#include "compress.h"

#include <limits.h>
#include <string.h>

#include <zlib.h>

#include "util/alloc.h"
#include "util/error.h"

struct cf_codec_gzip_cctx {
    z_stream z;
    int level; /* the level z was started with; 0: not started */
};

cf_codec_gzip_cctx *cf_codec_gzip_cctx_create(void)
{
    return cf_calloc(1, sizeof(cf_codec_gzip_cctx));
}

void cf_codec_gzip_cctx_free(cf_codec_gzip_cctx *cx)
{
    if (cx == NULL)
        return;
    if (cx->level)
        deflateEnd(&cx->z);
    cf_free(cx);
}

/* deflate src into dst with z, started (or reset) for one gzip member. */
static cf_status gzip_run(z_stream *z, const uint8_t *src, size_t len, cf_buf *dst, cf_error *err)
{
    uLong bound = deflateBound(z, (uLong)len);
    CF_CHECK(cf_buf_reserve(dst, bound), err, CF_ENOMEM, "gzip: cannot allocate %lu output bytes",
             bound);
    z->next_in = (Bytef *)(uintptr_t)src;
    z->avail_in = (uInt)len;
    z->next_out = dst->data + dst->len;
    z->avail_out = (uInt)(bound > UINT_MAX ? UINT_MAX : bound);
    int rc = deflate(z, Z_FINISH);
    CF_CHECK(rc == Z_STREAM_END, err, CF_EIO, "gzip: compression of %zu bytes failed (%d)", len,
             rc);
    dst->len += z->total_out;
    return CF_OK;
}

cf_status cf_codec_gzip_compress(cf_codec_gzip_cctx *cx, const uint8_t *src, size_t len, int level,
                                 cf_buf *dst, cf_error *err)
{
    CF_CHECK(len <= UINT_MAX, err, CF_EINVAL, "gzip: %zu bytes exceed the input limit", len);
    int lv = level ? level : 6;
    if (cx != NULL && cx->level == lv) {
        /* deflateReset keeps the window and hash tables deflateInit2 allocated:
         * the member is the bytes a fresh stream would make */
        int rc = deflateReset(&cx->z);
        CF_CHECK(rc == Z_OK, err, CF_EINVAL, "gzip: cannot restart level %d (%d)", lv, rc);
        return gzip_run(&cx->z, src, len, dst, err);
    }
    z_stream local, *z = &local;
    if (cx != NULL) {
        if (cx->level)
            deflateEnd(&cx->z);
        cx->level = 0;
        z = &cx->z;
    }
    memset(z, 0, sizeof(*z));
    int rc = deflateInit2(z, lv, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    CF_CHECK(rc == Z_OK, err, rc == Z_MEM_ERROR ? CF_ENOMEM : CF_EINVAL,
             "gzip: cannot start level %d (%d)", lv, rc);
    if (cx != NULL) {
        cx->level = lv;
        return gzip_run(z, src, len, dst, err);
    }
    cf_status st = gzip_run(z, src, len, dst, err);
    deflateEnd(z);
    return st;
}

cf_status cf_codec_gzip_decompress(const uint8_t *src, size_t len, uint8_t *dst, size_t dst_len,
                                   cf_error *err)
{
    CF_CHECK(len <= UINT_MAX && dst_len <= UINT_MAX, err, CF_ECORRUPT,
             "gzip: payload %zu / output %zu bytes exceed the codec's limits", len, dst_len);
    z_stream z;
    memset(&z, 0, sizeof z);
    int rc = inflateInit2(&z, 15 + 32);
    CF_CHECK(rc == Z_OK, err, CF_ENOMEM, "gzip: cannot start the decoder (%d)", rc);
    cf_status st = CF_OK;
    uint8_t scratch;
    size_t produced = 0;
    int members = 0;
    z.next_in = (Bytef *)(uintptr_t)src;
    z.avail_in = (uInt)len;
    for (;;) {
        bool over = produced == dst_len;
        z.next_out = over ? &scratch : dst + produced;
        z.avail_out = over ? 1 : (uInt)(dst_len - produced);
        uLong before = z.total_out;
        rc = inflate(&z, Z_NO_FLUSH);
        size_t got = (size_t)(z.total_out - before);
        if (over && got > 0)
            CF_FAIL_OUT(err, CF_ECORRUPT,
                        "gzip: payload decodes to more than the %zu bytes the "
                        "page header says",
                        dst_len);
        produced += got;
        if (rc == Z_STREAM_END) {
            members++;
            if (z.avail_in == 0)
                break;
            /* Another member follows (gzip only: 1f 8b). */
            if (z.avail_in < 2 || z.next_in[0] != 0x1f || z.next_in[1] != 0x8b)
                CF_FAIL_OUT(err, CF_ECORRUPT,
                            "gzip: %u bytes after member %d at offset %zu "
                            "are not another gzip member",
                            z.avail_in, members, (size_t)(z.next_in - src));
            rc = inflateReset(&z);
            if (rc != Z_OK)
                CF_FAIL_OUT(err, CF_ECORRUPT, "gzip: cannot restart after member %d", members);
            continue;
        }
        if (rc == Z_MEM_ERROR)
            CF_FAIL_OUT(err, CF_ENOMEM, "gzip: out of memory decompressing");
        if (rc != Z_OK && !(rc == Z_BUF_ERROR && got > 0))
            CF_FAIL_OUT(err, CF_ECORRUPT, "gzip: corrupt payload at offset %zu of %zu: %s",
                        (size_t)(z.next_in - src), len,
                        rc == Z_BUF_ERROR ? "truncated" : (z.msg ? z.msg : "bad stream"));
        if (got == 0 && z.avail_in == 0)
            CF_FAIL_OUT(err, CF_ECORRUPT, "gzip: payload of %zu bytes ends inside the stream", len);
    }
    if (produced != dst_len)
        CF_FAIL_OUT(err, CF_ECORRUPT,
                    "gzip: payload decodes to %zu bytes, the page header says %zu", produced,
                    dst_len);
out:
    inflateEnd(&z);
    return st;
}

/* The block codecs of format §5.3, called the way Kudu calls them so that the
 * compressed bytes match:
 *
 * | codec  | payload format                       | compress             | decompress          |
 * |--------|--------------------------------------|----------------------|---------------------|
 * | SNAPPY | raw snappy: varint length + elements | snappy_compress      | snappy.c (ours)     |
 * | LZ4    | LZ4 block (no frame, no size prefix) | LZ4_compress_default | LZ4_decompress_safe |
 * | ZLIB   | zlib stream (RFC 1950), level 6      | compress2 (level 6)  | inflate.c (ISA-L)   |
 *
 * The §5.1 wrapper (the 4-byte uncompressed size, raw pass-through) belongs to
 * the block layer; here a payload must decode to exactly dst_len bytes.
 * cf_codec_decompress_padded decodes LZ4 with our own decoder (lz4.c, same
 * acceptance as liblz4), SNAPPY always takes ours (snappy.c, same acceptance as
 * snappy_uncompress) and ZLIB goes through inflate.c (ISA-L when built in). The
 * libraries allocate with their own malloc: their state is internal to one call.
 */
#include "compress.h"

#include <limits.h>
#include <string.h>

#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>

#include "util/error.h"
#include "lz4.h"
#include "snappy.h"

bool cf_codec_available(cf_compression c)
{
    switch (c) {
    case CF_COMP_NONE:
    case CF_COMP_SNAPPY:
    case CF_COMP_LZ4:
    case CF_COMP_ZLIB: return true;
    case CF_COMP_DEFAULT: break;
    }
    return false;
}

/* DEFAULT is an option value the writer resolves; anything else is unknown. */
static cf_status bad_codec(cf_compression c, cf_error *err)
{
    if (c == CF_COMP_DEFAULT)
        CF_FAIL(err, CF_EINVAL, "compression DEFAULT must be resolved to a codec before use");
    CF_FAIL(err, CF_ENOTSUP, "unknown compression codec %d", (int)c);
}

/* Reserve `bound` bytes at the end of dst; NULL (and dst->oom) on failure. */
static uint8_t *reserve(cf_buf *dst, size_t bound)
{
    return cf_buf_reserve(dst, bound) ? dst->data + dst->len : NULL;
}

static cf_status compress_snappy(const uint8_t *src, size_t len, cf_buf *dst, cf_error *err)
{
    /* The raw format's length header is a varint32. */
    CF_CHECK(len <= UINT32_MAX, err, CF_EINVAL, "snappy: %zu bytes exceed the 4 GiB input limit",
             len);
    size_t bound = snappy_max_compressed_length(len);
    uint8_t *out = reserve(dst, bound);
    CF_CHECK(out != NULL, err, CF_ENOMEM, "snappy: cannot allocate %zu output bytes", bound);
    size_t out_len = bound;
    snappy_status s = snappy_compress((const char *)src, len, (char *)out, &out_len);
    CF_CHECK(s == SNAPPY_OK, err, CF_EIO, "snappy: compression failed (status %d)", (int)s);
    dst->len += out_len;
    return CF_OK;
}

static cf_status compress_lz4(const uint8_t *src, size_t len, cf_buf *dst, cf_error *err)
{
    CF_CHECK(len <= (size_t)LZ4_MAX_INPUT_SIZE, err, CF_EINVAL,
             "lz4: %zu bytes exceed the input limit %d", len, LZ4_MAX_INPUT_SIZE);
    int bound = LZ4_compressBound((int)len);
    uint8_t *out = reserve(dst, (size_t)bound);
    CF_CHECK(out != NULL, err, CF_ENOMEM, "lz4: cannot allocate %d output bytes", bound);
    /* With a bound-sized buffer compression cannot fail for a valid length. */
    int n = LZ4_compress_default((const char *)src, (char *)out, (int)len, bound);
    CF_CHECK(n > 0, err, CF_EIO, "lz4: compression of %zu bytes failed", len);
    dst->len += (size_t)n;
    return CF_OK;
}

static cf_status compress_zlib(const uint8_t *src, size_t len, cf_buf *dst, cf_error *err)
{
    CF_CHECK(len <= (uLong)-1, err, CF_EINVAL, "zlib: %zu bytes exceed the input limit", len);
    uLong bound = compressBound((uLong)len);
    uint8_t *out = reserve(dst, (size_t)bound);
    CF_CHECK(out != NULL, err, CF_ENOMEM, "zlib: cannot allocate %lu output bytes", bound);
    uLongf out_len = bound;
    /* compress() is exactly compress2() at Z_DEFAULT_COMPRESSION (level 6). */
    int z = compress2(out, &out_len, src, (uLong)len, Z_DEFAULT_COMPRESSION);
    CF_CHECK(z != Z_MEM_ERROR, err, CF_ENOMEM, "zlib: out of memory compressing %zu bytes", len);
    CF_CHECK(z == Z_OK, err, CF_EIO, "zlib: compression of %zu bytes failed (%d)", len, z);
    dst->len += (size_t)out_len;
    return CF_OK;
}

cf_status cf_codec_compress(cf_compression c, const uint8_t *src, size_t len, cf_buf *dst,
                            cf_error *err)
{
    CF_CHECK(dst->oom == false, err, CF_ENOMEM, "compress: output buffer already out of memory");
    switch (c) {
    case CF_COMP_NONE:
        cf_buf_append(dst, src, len);
        CF_CHECK(!dst->oom, err, CF_ENOMEM, "compress: cannot allocate %zu output bytes", len);
        return CF_OK;
    case CF_COMP_SNAPPY: return compress_snappy(src, len, dst, err);
    case CF_COMP_LZ4: return compress_lz4(src, len, dst, err);
    case CF_COMP_ZLIB: return compress_zlib(src, len, dst, err);
    case CF_COMP_DEFAULT: break;
    }
    return bad_codec(c, err);
}

static cf_status decompress_snappy(const uint8_t *src, size_t len, uint8_t *dst, size_t dst_len,
                                   cf_error *err)
{
    size_t claimed;
    CF_CHECK(snappy_uncompressed_length((const char *)src, len, &claimed) == SNAPPY_OK, err,
             CF_ECORRUPT, "snappy: %zu-byte payload has no valid length header", len);
    /* The claimed length bounds every write snappy makes; it must be ours. */
    CF_CHECK(claimed == dst_len, err, CF_ECORRUPT,
             "snappy: payload claims %zu bytes, block header says %zu", claimed, dst_len);
    /* Our decoder (snappy.c): libsnappy's acceptance, faster on short copies. */
    CF_CHECK(cf_snappy_decode_exact(src, len, dst, dst_len), err, CF_ECORRUPT,
             "snappy: corrupt %zu-byte payload (expected %zu bytes out)", len, dst_len);
    return CF_OK;
}

static cf_status decompress_lz4(const uint8_t *src, size_t len, uint8_t *dst, size_t dst_len,
                                cf_error *err)
{
    CF_CHECK(len <= INT_MAX && dst_len <= INT_MAX, err, CF_ECORRUPT,
             "lz4: payload %zu / output %zu bytes exceed the codec's limits", len, dst_len);
    char one;
    int n = LZ4_decompress_safe((const char *)src, dst_len ? (char *)dst : &one, (int)len,
                                (int)dst_len);
    CF_CHECK(n >= 0, err, CF_ECORRUPT, "lz4: corrupt %zu-byte payload (expected %zu bytes out)",
             len, dst_len);
    CF_CHECK((size_t)n == dst_len, err, CF_ECORRUPT,
             "lz4: payload decodes to %d bytes, block header says %zu", n, dst_len);
    return CF_OK;
}

/* With CF_CODEC_PAD bytes of room past the output, LZ4 goes through our own
 * decoder (lz4.c: same acceptance as liblz4, faster on short sequences). */
static cf_status decompress_lz4_padded(const uint8_t *src, size_t len, uint8_t *dst, size_t dst_len,
                                       cf_error *err)
{
    CF_CHECK(cf_lz4_decode_exact(src, len, dst, dst_len), err, CF_ECORRUPT,
             "lz4: corrupt %zu-byte payload (does not decode to the %zu bytes the block header "
             "says)",
             len, dst_len);
    return CF_OK;
}

cf_status cf_codec_decompress_padded(cf_compression c, const uint8_t *src, size_t len, uint8_t *dst,
                                     size_t dst_len, cf_error *err)
{
    if (c == CF_COMP_LZ4)
        return decompress_lz4_padded(src, len, dst, dst_len, err);
    return cf_codec_decompress(c, src, len, dst, dst_len, err);
}

cf_status cf_codec_decompress(cf_compression c, const uint8_t *src, size_t len, uint8_t *dst,
                              size_t dst_len, cf_error *err)
{
    switch (c) {
    case CF_COMP_NONE:
        CF_CHECK(len == dst_len, err, CF_ECORRUPT,
                 "uncompressed payload has %zu bytes, expected %zu", len, dst_len);
        if (len)
            memcpy(dst, src, len);
        return CF_OK;
    case CF_COMP_SNAPPY: return decompress_snappy(src, len, dst, dst_len, err);
    case CF_COMP_LZ4: return decompress_lz4(src, len, dst, dst_len, err);
    case CF_COMP_ZLIB: return cf_codec_zlib_inflate(CF_INFLATE_AUTO, src, len, dst, dst_len, err);
    case CF_COMP_DEFAULT: break;
    }
    return bad_codec(c, err);
}

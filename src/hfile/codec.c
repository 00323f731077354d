/* HFile payload codecs, checksums and Hadoop vlongs.
 *
 * GZ: a gzip stream (HBase's ReusableStreamGzipCodec / Hadoop GzipCodec);
 * the reader accepts gzip or zlib headers and concatenated members.
 * SNAPPY, LZ4 and (HBase's own) ZSTD: Hadoop's BlockCompressorStream framing,
 *   off  size  field
 *     0     4  uncompressed length of this block (big-endian)
 *     4     4  compressed length of the next chunk
 *     8     n  chunk (raw snappy / LZ4 block / zstd frame)
 *           .. more (length, chunk) pairs until the block's bytes are produced,
 *              then the next block's uncompressed length, until the input ends.
 * LZO (hadoop-lzo's LzoCodec) uses the same framing around LZO1X chunks.
 * ZSTD payloads that start with a bare zstd frame (Hadoop's ZStandardCodec
 * stream) are decoded as such; HBase 2.4+'s own ZstdCodec frames them.
 * BZIP2 (Hadoop's BZip2Codec): one ordinary "BZh" bzip2 stream.
 */
#include "internal.h"

#include <limits.h>
#include <string.h>

#include <bzlib.h>
#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>
#ifdef CF_HAVE_ZSTD
#include <zstd.h>
#endif

#include "codec/compress.h"
#include "codec/crc32.h"
#include "codec/crc32c.h"
#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"

const char HF_DATA[] = "DATABLK*";
const char HF_ENCDATA[] = "DATABLKE";
const char HF_LEAF[] = "IDXLEAF2";
const char HF_BLOOMCHK[] = "BLMFBLK2";
const char HF_META[] = "METABLKc";
const char HF_INTER[] = "IDXINTE2";
const char HF_ROOT[] = "IDXROOT2";
const char HF_FILEINFO[] = "FILEINF2";
const char HF_GBLOOM[] = "BLMFMET2";
const char HF_DFBLOOM[] = "DFBLMET2";
const char HF_TRAILER[] = "TRABLK\"$";
const char HF_IDXV1[] = "IDXBLK)+";

static const char *const codec_names[] = {"LZO", "GZ", "NONE", "SNAPPY", "LZ4", "BZIP2", "ZSTD"};

const char *cf_hfile_codec_name(uint32_t codec)
{
    return codec < sizeof(codec_names) / sizeof(codec_names[0]) ? codec_names[codec] : NULL;
}

cf_status cf_hfile_codec_parse(uint32_t *out, const char *name)
{
    for (uint32_t i = 0; i < sizeof(codec_names) / sizeof(codec_names[0]); i++) {
        if (strcasecmp(name, codec_names[i]) == 0) {
            *out = i;
            return CF_OK;
        }
    }
    return CF_EINVAL;
}

bool cf_hfile_codec_built(uint32_t codec)
{
    switch (codec) {
    case CF_HFILE_NONE:
    case CF_HFILE_GZ:
    case CF_HFILE_SNAPPY:
    case CF_HFILE_LZ4:
    case CF_HFILE_LZO:
    case CF_HFILE_BZIP2: return true;
#ifdef CF_HAVE_ZSTD
    case CF_HFILE_ZSTD: return true;
#endif
    default: return false;
    }
}

uint32_t cf_hfile_checksum(uint8_t type, const uint8_t *p, size_t len)
{
    if (type == 1)
        return cf_crc32(0, p, len);
    return cf_crc32c(p, len);
}

/* ---- vlongs (WritableUtils) ---------------------------------------------------------- */

size_t cf_hfile_get_vlong(const uint8_t *p, size_t n, int64_t *out)
{
    if (n < 1)
        return 0;
    int8_t first = (int8_t)p[0];
    if (first >= -112) {
        *out = first;
        return 1;
    }
    /* -113..-120: positive, -121..-128: negative; the length is the distance. */
    size_t len = first < -120 ? (size_t)(-119 - first) : (size_t)(-111 - first);
    if (len - 1 > n - 1)
        return 0;
    uint64_t v = 0;
    for (size_t i = 1; i < len; i++)
        v = (v << 8) | p[i];
    *out = first < -120 ? (int64_t)~v : (int64_t)v;
    return len;
}

size_t cf_hfile_vlong_size(int64_t v)
{
    if (v >= -112 && v <= 127)
        return 1;
    uint64_t u = v < 0 ? ~(uint64_t)v : (uint64_t)v;
    size_t n = 0;
    while (u != 0) {
        n++;
        u >>= 8;
    }
    return n + 1;
}

void cf_hfile_put_vlong(cf_buf *b, int64_t v)
{
    if (v >= -112 && v <= 127) {
        cf_buf_put_u8(b, (uint8_t)v);
        return;
    }
    int base = -112;
    uint64_t u = (uint64_t)v;
    if (v < 0) {
        u = ~u;
        base = -120;
    }
    size_t n = cf_hfile_vlong_size(v) - 1;
    cf_buf_put_u8(b, (uint8_t)(int8_t)(base - (int)n));
    for (size_t i = n; i > 0; i--)
        cf_buf_put_u8(b, (uint8_t)(u >> (8 * (i - 1))));
}

/* ---- decompression ------------------------------------------------------------------- */

/* Inflate gzip/zlib members into dst (cap bytes); *produced = bytes written.
 * want_exact: the input must be used up exactly. */
static cf_status inflate_all(const uint8_t *src, size_t len, uint8_t *dst, size_t cap,
                             size_t *produced, bool *full, cf_error *err)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    if (inflateInit2(&z, 15 + 32) != Z_OK)
        CF_FAIL(err, CF_ENOMEM, "gz: inflateInit failed");
    cf_status st = CF_OK;
    z.next_in = (Bytef *)(uintptr_t)src;
    z.avail_in = (uInt)len;
    z.next_out = dst;
    z.avail_out = (uInt)cap;
    *full = false;
    for (;;) {
        int r = inflate(&z, Z_NO_FLUSH);
        if (r == Z_STREAM_END) {
            /* Hadoop may concatenate gzip members; trailing zero padding is tolerated. */
            if (z.avail_in == 0)
                break;
            if (z.next_in[0] == 0)
                break;
            if (inflateReset(&z) != Z_OK)
                CF_FAIL_OUT(err, CF_ECORRUPT, "gz: cannot restart stream");
            continue;
        }
        if (r == Z_OK) {
            if (z.avail_out == 0) {
                *full = true;
                break;
            }
            if (z.avail_in == 0)
                CF_FAIL_OUT(err, CF_ECORRUPT, "gz: stream truncated");
            continue;
        }
        if (r == Z_BUF_ERROR && z.avail_out == 0) {
            *full = true;
            break;
        }
        CF_FAIL_OUT(err, CF_ECORRUPT, "gz: %s", z.msg ? z.msg : "bad stream");
    }
    *produced = cap - z.avail_out;
out:
    inflateEnd(&z);
    return st;
}

/* One chunk of Hadoop block framing per codec (cf_codec_chunk_fn). */
static cf_status chunk_snappy(const uint8_t *src, size_t len, uint8_t *dst, size_t cap, size_t *got,
                              cf_error *err)
{
    size_t n;
    if (snappy_uncompressed_length((const char *)src, len, &n) != SNAPPY_OK || n > cap)
        CF_FAIL(err, CF_ECORRUPT, "snappy: bad chunk header (or %zu bytes overflow the block)",
                cap);
    if (snappy_uncompress((const char *)src, len, (char *)dst, &n) != SNAPPY_OK)
        CF_FAIL(err, CF_ECORRUPT, "snappy: corrupt chunk");
    *got = n;
    return CF_OK;
}

static cf_status chunk_lz4(const uint8_t *src, size_t len, uint8_t *dst, size_t cap, size_t *got,
                           cf_error *err)
{
    if (len > INT32_MAX || cap > INT32_MAX)
        CF_FAIL(err, CF_ECORRUPT, "lz4: chunk too large");
    int r = LZ4_decompress_safe((const char *)src, (char *)dst, (int)len, (int)cap);
    if (r < 0)
        CF_FAIL(err, CF_ECORRUPT, "lz4: corrupt chunk");
    *got = (size_t)r;
    return CF_OK;
}

#ifdef CF_HAVE_ZSTD
static cf_status chunk_zstd(const uint8_t *src, size_t len, uint8_t *dst, size_t cap, size_t *got,
                            cf_error *err)
{
    size_t r = ZSTD_decompress(dst, cap, src, len);
    if (ZSTD_isError(r))
        CF_FAIL(err, CF_ECORRUPT, "zstd: %s", ZSTD_getErrorName(r));
    *got = r;
    return CF_OK;
}
#endif

static cf_status hadoop_block_decode(uint32_t codec, const uint8_t *src, size_t len, uint8_t *dst,
                                     size_t dst_len, cf_error *err)
{
    cf_codec_chunk_fn fn = codec == CF_HFILE_SNAPPY ? chunk_snappy
                           : codec == CF_HFILE_LZ4  ? chunk_lz4
                           : codec == CF_HFILE_LZO  ? cf_codec_lzo_chunk
#ifdef CF_HAVE_ZSTD
                           : codec == CF_HFILE_ZSTD ? chunk_zstd
#endif
                                                    : NULL;
    const char *name = cf_hfile_codec_name(codec);
    CF_CHECK(fn != NULL, err, CF_ENOTSUP, "compression %s is not built in", name ? name : "?");
    return cf_codec_hadoop_decode(name, fn, src, len, dst, dst_len, err);
}

/* One bzip2 stream (Hadoop writes "BZh" streams; an empty payload may be no
 * stream at all) that must inflate to exactly dst_len bytes. */
static cf_status bzip2_decode(const uint8_t *src, size_t len, uint8_t *dst, size_t dst_len,
                              cf_error *err)
{
    if (len == 0 && dst_len == 0)
        return CF_OK;
    CF_CHECK(len <= UINT_MAX && dst_len < UINT_MAX, err, CF_ECORRUPT, "bzip2: block too large");
    bz_stream z;
    memset(&z, 0, sizeof(z));
    CF_CHECK(BZ2_bzDecompressInit(&z, 0, 0) == BZ_OK, err, CF_ENOMEM, "bzip2: init failed");
    uint8_t spare;
    z.next_in = (char *)(uintptr_t)src;
    z.avail_in = (unsigned)len;
    z.next_out = dst_len ? (char *)dst : (char *)&spare;
    /* One byte of slack shows a stream that inflates past the header's size. */
    z.avail_out = (unsigned)dst_len;
    int r = BZ2_bzDecompress(&z);
    size_t got = dst_len - z.avail_out;
    if (r == BZ_OK && z.avail_out == 0) {
        z.next_out = (char *)&spare;
        z.avail_out = 1;
        r = BZ2_bzDecompress(&z);
        if (z.avail_out == 0)
            got++;
    }
    BZ2_bzDecompressEnd(&z);
    CF_CHECK(r == BZ_STREAM_END || r == BZ_OK, err, CF_ECORRUPT, "bzip2: corrupt stream (%d)", r);
    CF_CHECK(r == BZ_STREAM_END, err, CF_ECORRUPT, "bzip2: stream truncated");
    CF_CHECK(got == dst_len, err, CF_ECORRUPT,
             "bzip2: payload inflates to %zu+ bytes, header "
             "says %zu",
             got, dst_len);
    return CF_OK;
}

cf_status cf_hfile_decompress(uint32_t codec, const uint8_t *src, size_t len, uint8_t *dst,
                              size_t dst_len, cf_error *err)
{
    switch (codec) {
    case CF_HFILE_NONE: return cf_codec_decompress(CF_COMP_NONE, src, len, dst, dst_len, err);
    case CF_HFILE_GZ: {
        size_t got = 0;
        bool full = false;
        if (dst_len == 0 && len == 0)
            return CF_OK;
        uint8_t probe;
        /* Inflate one byte past the end to detect a payload that is too long. */
        cf_status st;
        if (dst_len == 0) {
            st = inflate_all(src, len, &probe, 1, &got, &full, err);
        } else {
            st = inflate_all(src, len, dst, dst_len, &got, &full, err);
        }
        CF_TRY(st);
        CF_CHECK(got == dst_len, err, CF_ECORRUPT,
                 "gz: payload inflates to %zu bytes, header says %zu", got, dst_len);
        return CF_OK;
    }
    case CF_HFILE_SNAPPY:
    case CF_HFILE_LZ4:
    case CF_HFILE_LZO: return hadoop_block_decode(codec, src, len, dst, dst_len, err);
    case CF_HFILE_BZIP2: return bzip2_decode(src, len, dst, dst_len, err);
#ifdef CF_HAVE_ZSTD
    case CF_HFILE_ZSTD:
        if (len >= 4 && cf_load_le32(src) == 0xFD2FB528u) {
            size_t r = ZSTD_decompress(dst, dst_len, src, len);
            CF_CHECK(!ZSTD_isError(r), err, CF_ECORRUPT, "zstd: %s", ZSTD_getErrorName(r));
            CF_CHECK(r == dst_len, err, CF_ECORRUPT, "zstd: %zu bytes, header says %zu", r,
                     dst_len);
            return CF_OK;
        }
        return hadoop_block_decode(codec, src, len, dst, dst_len, err);
#endif
    default:
        CF_FAIL(err, CF_ENOTSUP, "compression %s (%u) is not supported",
                cf_hfile_codec_name(codec) ? cf_hfile_codec_name(codec) : "unknown", codec);
    }
}

cf_status cf_hfile_decompress_grow(uint32_t codec, const uint8_t *src, size_t len, cf_buf *dst,
                                   size_t max, cf_error *err)
{
    cf_buf_clear(dst);
    if (codec == CF_HFILE_NONE) {
        cf_buf_append(dst, src, len);
        CF_CHECK(!dst->oom, err, CF_ENOMEM, "cannot allocate %zu bytes for an uncompressed block",
                 len);
        return CF_OK;
    }
    CF_CHECK(codec == CF_HFILE_GZ, err, CF_ENOTSUP,
             "v1 blocks compressed with %s are not supported",
             cf_hfile_codec_name(codec) ? cf_hfile_codec_name(codec) : "an unknown codec");
    size_t cap = len * 4 + 64;
    for (;;) {
        if (cap > max)
            cap = max;
        cf_buf_clear(dst);
        CF_CHECK(cf_buf_reserve(dst, cap), err, CF_ENOMEM,
                 "gz: cannot allocate %zu bytes to inflate a block into", cap);
        size_t got = 0;
        bool full = false;
        CF_TRY(inflate_all(src, len, dst->data, cap, &got, &full, err));
        if (!full) {
            dst->len = got;
            return CF_OK;
        }
        CF_CHECK(cap < max, err, CF_ECORRUPT, "gz: block inflates past %zu bytes", max);
        cap *= 2;
    }
}

/* ---- compression --------------------------------------------------------------------- */

static cf_status gzip_stream(const uint8_t *src, size_t len, cf_buf *dst, cf_error *err)
{
    /* Java's GZIPOutputStream header: no name, mtime 0, xfl 0, OS 0. */
    static const uint8_t hdr[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0};
    cf_buf_append(dst, hdr, sizeof(hdr));
    z_stream z;
    memset(&z, 0, sizeof(z));
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        CF_FAIL(err, CF_ENOMEM, "gz: deflateInit failed");
    size_t bound = deflateBound(&z, (uLong)len);
    uint8_t *o = cf_buf_extend(dst, bound);
    if (o == NULL) {
        deflateEnd(&z);
        CF_FAIL(err, CF_ENOMEM, "gz: cannot allocate %zu output bytes", sizeof(hdr) + bound);
    }
    z.next_in = (Bytef *)(uintptr_t)src;
    z.avail_in = (uInt)len;
    z.next_out = o;
    z.avail_out = (uInt)bound;
    int r = deflate(&z, Z_FINISH);
    size_t produced = bound - z.avail_out;
    deflateEnd(&z);
    CF_CHECK(r == Z_STREAM_END, err, CF_ENOMEM, "gz: deflate failed");
    dst->len -= bound - produced;
    uint8_t tail[8];
    uint32_t crc = cf_crc32(0, src, len);
    cf_store_le32(tail, crc);
    cf_store_le32(tail + 4, (uint32_t)len);
    cf_buf_append(dst, tail, 8);
    CF_CHECK(!dst->oom, err, CF_ENOMEM, "gz: cannot allocate the 8-byte trailer");
    return CF_OK;
}

static cf_status bzip2_stream(const uint8_t *src, size_t len, cf_buf *dst, cf_error *err)
{
    CF_CHECK(len < UINT_MAX / 2, err, CF_EINVAL, "block of %zu bytes too large", len);
    unsigned cap = (unsigned)(len + len / 100 + 600);
    size_t base = dst->len;
    uint8_t *o = cf_buf_extend(dst, cap);
    CF_CHECK(o != NULL, err, CF_ENOMEM, "bzip2: cannot allocate %u output bytes", cap);
    int r =
        BZ2_bzBuffToBuffCompress((char *)o, &cap, (char *)(uintptr_t)src, (unsigned)len, 9, 0, 0);
    CF_CHECK(r == BZ_OK, err, CF_ENOMEM, "bzip2: compress failed (%d)", r);
    dst->len = base + cap;
    return CF_OK;
}

cf_status cf_hfile_compress(uint32_t codec, const uint8_t *src, size_t len, cf_buf *dst,
                            cf_error *err)
{
    switch (codec) {
    case CF_HFILE_NONE:
        cf_buf_append(dst, src, len);
        CF_CHECK(!dst->oom, err, CF_ENOMEM, "cannot allocate %zu bytes for an uncompressed block",
                 len);
        return CF_OK;
    case CF_HFILE_GZ: return gzip_stream(src, len, dst, err);
    case CF_HFILE_BZIP2: return bzip2_stream(src, len, dst, err);
    /* One framed block holding one chunk (codec/hadoop.c); an empty payload
     * is one zero-length block, as HBase 2.x writes it. */
    case CF_HFILE_SNAPPY:
        return cf_codec_hadoop_encode(CF_HADOOP_SNAPPY, "SNAPPY", src, len, false, dst, err);
    case CF_HFILE_LZ4:
        return cf_codec_hadoop_encode(CF_HADOOP_LZ4, "LZ4", src, len, false, dst, err);
    case CF_HFILE_LZO:
        return cf_codec_hadoop_encode(CF_HADOOP_LZO, "LZO", src, len, false, dst, err);
#ifdef CF_HAVE_ZSTD
    case CF_HFILE_ZSTD:
        return cf_codec_hadoop_encode(CF_HADOOP_ZSTD, "ZSTD", src, len, false, dst, err);
#endif
    default:
        CF_FAIL(err, CF_ENOTSUP, "writing %s is not supported",
                cf_hfile_codec_name(codec) ? cf_hfile_codec_name(codec) : "an unknown codec");
    }
}

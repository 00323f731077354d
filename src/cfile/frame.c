/* Block framing, both directions (format §2.7, §5.1, §5.2): cf_frame_block
 * writes it, cf_unframe_block undoes it.
 *
 * | stored bytes (compression NONE)   | logical block                              |
 * | stored bytes, v2 (SNAPPY, LZ4,    | fixed32 U = logical length, then payload:  |
 * |   ZLIB)                           | codec output if it saves > 10%, else raw   |
 * |                                   | (raw: payload length == U)                 |
 * | stored bytes, v1 (read only)      | fixed32 C = payload length, fixed32 U,     |
 * |                                   | codec output                               |
 * | then, with checksums              | fixed32 crc32c(stored bytes)               |
 */
#include "frame.h"

#include <cfile/reader.h>

#include "codec/compress.h"
#include "codec/crc32c.h"
#include "util/endian.h"

cf_status cf_frame_block(const cf_frame_opts *fo, const uint8_t *logical, size_t len, cf_buf *out,
                         cf_error *err)
{
    cf_buf_clear(out);
    if (fo->compression != CF_COMP_NONE) {
        /* format §5.1: Kudu refuses to compress blocks over --max_cfile_block_size. */
        CF_CHECK(len <= CF_DEFAULT_MAX_BLOCK_LEN, err, CF_EINVAL,
                 "block of %zu bytes exceeds the %u-byte limit for compressed blocks", len,
                 CF_DEFAULT_MAX_BLOCK_LEN);
        cf_buf_put_le32(out, (uint32_t)len);
        CF_TRY(cf_codec_compress(fo->compression, logical, len, out, err));
        size_t clen = out->len - 4;
        /* Keep the codec output only if strictly shorter and the ratio is <= 0.9,
         * compared in double precision as Kudu does. */
        bool keep = clen < len && !((double)clen / (double)len > CF_MIN_COMPRESSION_RATIO);
        if (!keep) {
            out->len = 4;
            cf_buf_append(out, logical, len);
        }
    } else {
        cf_buf_append(out, logical, len);
    }
    if (fo->checksums)
        cf_buf_put_le32(out, cf_crc32c(out->data, out->len));
    CF_CHECK(!out->oom, err, CF_ENOMEM, "out of memory framing a block of %zu bytes", len);
    return CF_OK;
}

cf_status cf_unframe_block(const cf_frame_opts *fo, const cf_block_contents *in, bool skip_crc,
                           cf_buf *scratch, cf_block_contents *out, cf_error *err)
{
    const uint8_t *data = in->data.data;
    size_t len = in->data.len;
    cf_block_home home = in->home;
    cf_cache_entry *pin = in->pin;
    CF_CHECK(!fo->checksums || len >= 4, err, CF_ECORRUPT, "%zu bytes cannot hold its checksum",
             len);
    size_t stored = len - (fo->checksums ? 4 : 0);
    if (fo->checksums && fo->verify_checksums && !skip_crc) {
        uint32_t want = cf_load_le32(data + stored), got = cf_crc32c(data, stored);
        CF_CHECK(want == got, err, CF_ECORRUPT, "checksum mismatch (stored %08x, computed %08x)",
                 want, got);
    }
    if (fo->compression == CF_COMP_NONE) {
        *out = (cf_block_contents){{data, stored}, home, pin};
        return CF_OK;
    }
    size_t hdr = fo->format_version == 1 ? 8 : 4;
    CF_CHECK(stored >= hdr, err, CF_ECORRUPT, "%zu bytes cannot hold the compression header",
             stored);
    uint32_t ulen = cf_load_le32(data + hdr - 4);
    size_t plen = stored - hdr;
    CF_CHECK(ulen <= fo->max_block_len, err, CF_ECORRUPT,
             "claims %u uncompressed bytes, over the %zu-byte limit", ulen, fo->max_block_len);
    if (fo->format_version == 1) {
        CF_CHECK(cf_load_le32(data) == plen, err, CF_ECORRUPT,
                 "v1 compressed size %u does not match the %zu payload bytes", cf_load_le32(data),
                 plen);
    } else {
        if (plen == ulen) { /* stored raw: compression did not pay */
            *out = (cf_block_contents){{data + hdr, plen}, home, pin};
            return CF_OK;
        }
        CF_CHECK(plen < ulen, err, CF_ECORRUPT,
                 "%zu payload bytes exceed the %u uncompressed bytes", plen, ulen);
    }
    /* Decompress after the current contents of scratch; when the stored bytes
     * live there, the reserve may move them. */
    size_t data_off = home == CF_BLOCK_IN_SCRATCH ? (size_t)(data - scratch->data) : 0;
    size_t dst_off = scratch->len;
    /* CF_CODEC_PAD: room the fast LZ4 decoder may overwrite (it also keeps
     * scratch->data from being NULL: NULL + 0 is undefined) */
    CF_CHECK(cf_buf_reserve(scratch, (size_t)ulen + CF_CODEC_PAD), err, CF_ENOMEM, "out of memory");
    if (home == CF_BLOCK_IN_SCRATCH)
        data = scratch->data + data_off;
    uint8_t *dst = scratch->data + dst_off;
    scratch->len += ulen;
    CF_TRY(cf_codec_decompress_padded(fo->compression, data + hdr, plen, dst, ulen, err));
    *out = (cf_block_contents){{dst, ulen}, CF_BLOCK_IN_SCRATCH, pin};
    return CF_OK;
}

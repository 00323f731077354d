/* Block framing on write (format §2.7, §5.1).
 *
 * | stored bytes (compression NONE)   | logical block                              |
 * | stored bytes (SNAPPY, LZ4, ZLIB)  | fixed32 U = logical length, then payload:  |
 * |                                   | codec output if it saves > 10%, else raw   |
 * | then, with checksums              | fixed32 crc32c(stored bytes)               |
 */
#include "internal.h"

#include "codec/compress.h"
#include "codec/crc32c.h"
#include "util/endian.h"
#include "util/error.h"

cf_status cf_frame_block(const cf_frame_opts *fo, const uint8_t *logical, size_t len,
                         cf_buf *out, cf_error *err)
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

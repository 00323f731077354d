/* Fuzz the header and footer protobufs (format §2.2, §2.3, §3) and what the
 * reader makes of them. The input's protobuf is put into a file with correct
 * framing and checksums, so mutations reach every field check of open:
 *
 *   input:  [opt][u16 le n][n protobuf bytes][rest]
 *   opt bit 0 = 0: file = rest | crc32c | footer PB | magic | fixed32 n
 *   opt bit 0 = 1: file = magic | fixed32 n | header PB | crc32c | rest
 *   opt bit 1: v1 magic; bit 2: verify checksums; bits 3..7: seed.
 *
 * Seeds are golden files split at their footer (rest = everything before the
 * footer's checksum), so a seed rebuilds its file exactly. */
#include "fuzz.h"

#include <string.h>

#include "cfile/internal.h"
#include "codec/crc32c.h"
#include "util/buf.h"
#include "util/endian.h"
#include "cfile.pb-c.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    uint8_t opt = fuzz_u8(&in);
    size_t n = fuzz_u16(&in);
    if (n > in.size)
        n = in.size;
    const uint8_t *pb = in.data, *rest = in.data + n;
    size_t rest_len = in.size - n;
    const char *magic = (opt & 2) ? CF_MAGIC_V1 : CF_MAGIC_V2;

    /* The messages on their own (protobuf-c's parser, and our free paths). */
    Kudu__CFileFooterPB *f = kudu__cfile_footer_pb__unpack(NULL, n, pb);
    if (f)
        kudu__cfile_footer_pb__free_unpacked(f, NULL);
    Kudu__CFileHeaderPB *h = kudu__cfile_header_pb__unpack(NULL, n, pb);
    if (h)
        kudu__cfile_header_pb__free_unpacked(h, NULL);

    cf_buf b;
    cf_buf_init(&b);
    uint8_t tail[12];
    memcpy(tail, magic, CF_MAGIC_LEN);
    cf_store_le32(tail + 8, (uint32_t)n);
    if (opt & 1) {
        cf_buf_append(&b, tail, 12);
        cf_buf_append(&b, pb, n);
        cf_buf_put_le32(&b, cf_crc32c(b.data, b.len));
        cf_buf_append(&b, rest, rest_len);
    } else {
        cf_buf_append(&b, rest, rest_len);
        uint32_t crc = cf_crc32c_extend(cf_crc32c(pb, n), tail, 12);
        cf_buf_put_le32(&b, crc);
        cf_buf_append(&b, pb, n);
        cf_buf_append(&b, tail, 12);
    }
    FUZZ_REQUIRE(!b.oom);
    uint8_t *file = fuzz_dup(b.data, b.len);
    size_t len = b.len;
    cf_buf_dispose(&b);
    fuzz_check_file(file, len, (opt & 4) != 0, (uint32_t)opt >> 3);
    free(file);
    return 0;
}

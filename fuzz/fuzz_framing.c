/* Fuzz block framing (format §2.7, §4, §5): the CRC and the v1/v2 compression
 * wrappers around a block, with every codec, as cf_reader_read_block undoes
 * them; and the round trip of cf_frame_block (write) through it.
 *
 *   input: [opt][stored block bytes]
 *   opt bits 0-1: codec NONE, SNAPPY, LZ4, ZLIB   bit 2: v1 (else v2)
 *   bit 3: file has checksums   bit 4: verify them   bit 5: io without views
 *   bit 6: 4 KiB block limit (else the default)   bit 7: append a correct CRC
 */
#include "fuzz.h"

#include <string.h>

#include "cfile/internal.h"
#include "codec/crc32c.h"
#include "util/buf.h"
#include "util/endian.h"

/* Read the block stored at [1, 1 + stored_len) of a file of stored_len + 2 bytes. */
static cf_status read_one(uint8_t opt, const uint8_t *stored, size_t stored_len, cf_buf *scratch,
                          uint8_t **copy, size_t *copy_len, cf_error *err)
{
    size_t flen = stored_len + 2;
    uint8_t *file = malloc(flen);
    FUZZ_REQUIRE(file != NULL);
    file[0] = 0xee;
    if (stored_len)
        memcpy(file + 1, stored, stored_len);
    file[flen - 1] = 0xee;

    cf_io *io = NULL;
    if (opt & 32)
        io = fuzz_io_noview_strict(file, flen);
    else
        FUZZ_REQUIRE(cf_io_open_mem(&io, file, flen, err) == CF_OK);

    cf_reader r;
    memset(&r, 0, sizeof r);
    r.io = io;
    cf_reader_options_init(&r.opts);
    r.opts.verify_checksums = (opt & 16) != 0;
    if (opt & 64)
        r.opts.max_block_len = 4096;
    r.info.file_size = flen;
    r.info.format_version = (opt & 4) ? 1 : 2;
    r.info.compression = (cf_compression)(CF_COMP_NONE + (opt & 3));
    r.info.incompatible_features = (opt & 8) ? CF_FEATURE_CHECKSUM : 0;
    cf_reader_init_frame(&r);

    cf_slice out = {NULL, 0};
    cf_status st = cf_reader_read_block(&r, (cf_block_ptr){1, (uint32_t)stored_len}, scratch, &out,
                                        "data block", err);
    *copy = NULL;
    *copy_len = 0;
    if (st == CF_OK) {
        FUZZ_REQUIRE(out.len <= stored_len || out.len <= r.opts.max_block_len);
        FUZZ_REQUIRE(out.len == 0 || out.data != NULL);
        *copy = fuzz_dup(out.data, out.len);
        *copy_len = out.len;
    } else {
        FUZZ_REQUIRE(err->code == st && err->msg[0] != '\0');
        FUZZ_REQUIRE_MSG(st == CF_ECORRUPT || st == CF_ENOTSUP || st == CF_ENOMEM, err);
    }
    cf_io_free(io);
    free(file);
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    uint8_t opt = fuzz_u8(&in);
    if (in.size > (1u << 20))
        return 0;
    cf_error err = {0};
    cf_buf scratch, stored;
    cf_buf_init(&scratch);
    cf_buf_init(&stored);
    cf_buf_append(&stored, in.data, in.size);
    if ((opt & 128) && (opt & 8))
        cf_buf_put_le32(&stored, cf_crc32c(in.data, in.size));
    FUZZ_REQUIRE(!stored.oom);

    /* 1. undo arbitrary framing; twice, so the scratch buffer is reused */
    uint8_t *a = NULL, *b = NULL;
    size_t alen = 0, blen = 0;
    cf_status st1 = read_one(opt, stored.data, stored.len, &scratch, &a, &alen, &err);
    cf_status st2 = read_one(opt, stored.data, stored.len, &scratch, &b, &blen, &err);
    FUZZ_REQUIRE(st1 == st2);
    if (st1 == CF_OK)
        FUZZ_REQUIRE(alen == blen && (alen == 0 || memcmp(a, b, alen) == 0));
    free(a);
    free(b);

    /* 2. v2 framing written by us reads back as the same logical bytes */
    if (!(opt & 4) && in.size <= 65536 && !(in.size == 0 && fuzz_skip("buf_extend_zero"))) {
        cf_frame_opts fo = {.compression = (cf_compression)(CF_COMP_NONE + (opt & 3)),
                            .checksums = (opt & 8) != 0};
        cf_buf framed;
        cf_buf_init(&framed);
        cf_status st = cf_frame_block(&fo, in.data, in.size, &framed, &err);
        FUZZ_REQUIRE_MSG(st == CF_OK, &err);
        uint8_t ropt = (uint8_t)((opt & 0x3f) | 16); /* same codec and CRC, verify on */
        st = read_one(ropt, framed.data, framed.len, &scratch, &a, &alen, &err);
        FUZZ_REQUIRE_MSG(st == CF_OK, &err);
        FUZZ_REQUIRE(alen == in.size && (alen == 0 || memcmp(a, in.data, alen) == 0));
        free(a);
        cf_buf_dispose(&framed);
    }
    cf_buf_dispose(&stored);
    cf_buf_dispose(&scratch);
    return 0;
}

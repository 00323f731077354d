/* The ZLIB block codec's decoder (format §5.3): a zlib stream (RFC 1950) that
 * must decode to exactly the block header's size, through Intel ISA-L's
 * inflate where the build has it (CF_HAVE_ISAL_INFLATE) and zlib's
 * uncompress() otherwise. Writing always goes through zlib (compress.c), so
 * our bytes stay Kudu's.
 *
 * Why ISA-L and not libdeflate: on 256 KiB zlib-6 blocks (bench/
 * PERFORMANCE-notes.md) ISA-L inflates sorted int64 1.5x and string keys 2x
 * faster than zlib; libdeflate matched it on strings but not on int64 (1.0x),
 * and it accepts damaged streams zlib rejects (bit flips in a block's code
 * lengths: it allows incomplete Huffman codes), so a reader using it would
 * accept files Kudu refuses. ISA-L agreed with zlib on every input of the
 * differential test (tests/codec/test_inflate.c).
 *
 * Acceptance must be zlib's (Kudu calls uncompress()): the stream must end
 * within dst_len bytes and produce exactly dst_len; bytes after the stream's
 * end are ignored; the Adler-32 is checked. One zlib quirk is kept by routing
 * it to zlib: asked for 0 bytes, uncompress() decodes into a 1-byte scratch
 * and accepts a stream of 0 or 1 byte.
 */
#include "compress.h"

#include <string.h>

#include <zlib.h>
#ifdef CF_HAVE_ISAL_INFLATE
#include <isa-l/igzip_lib.h>
#endif

#include "util/alloc.h"
#include "util/error.h"

bool cf_codec_inflater_available(cf_inflater which)
{
    switch (which) {
    case CF_INFLATE_AUTO:
    case CF_INFLATE_ZLIB: return true;
    case CF_INFLATE_ISAL:
#ifdef CF_HAVE_ISAL_INFLATE
        return true;
#else
        return false;
#endif
    }
    return false;
}

const char *cf_codec_inflater_name(void)
{
    return cf_codec_inflater_available(CF_INFLATE_ISAL) ? "isa-l" : "zlib";
}

static cf_status inflate_zlib(const uint8_t *src, size_t len, uint8_t *dst, size_t dst_len,
                              cf_error *err)
{
    CF_CHECK(len <= (uLong)-1 && dst_len <= (uLong)-1, err, CF_ECORRUPT,
             "zlib: payload %zu / output %zu bytes exceed the codec's limits", len, dst_len);
    /* Kudu calls uncompress(): it needs the stream's end within dst_len bytes
     * (so a larger output is Z_BUF_ERROR) and ignores bytes after the end. */
    uLongf out_len = (uLongf)dst_len;
    Bytef one;
    int z = uncompress(dst_len ? dst : &one, &out_len, src, (uLong)len);
    CF_CHECK(z != Z_MEM_ERROR, err, CF_ENOMEM, "zlib: out of memory decompressing");
    CF_CHECK(z == Z_OK, err, CF_ECORRUPT,
             "zlib: corrupt %zu-byte payload (expected %zu bytes out): %s", len, dst_len,
             z == Z_BUF_ERROR ? "output too long or input truncated" : "bad stream");
    CF_CHECK(out_len == dst_len, err, CF_ECORRUPT,
             "zlib: payload decodes to %lu bytes, block header says %zu", (unsigned long)out_len,
             dst_len);
    return CF_OK;
}

#ifdef CF_HAVE_ISAL_INFLATE
static const char *isal_reason(int rc)
{
    switch (rc) {
    case ISAL_END_INPUT: return "input truncated";
    case ISAL_OUT_OVERFLOW: return "output too long";
    case ISAL_NEED_DICT: return "stream needs a preset dictionary";
    case ISAL_INVALID_BLOCK: return "invalid deflate block";
    case ISAL_INVALID_SYMBOL: return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK: return "match distance before the start";
    case ISAL_INVALID_WRAPPER: return "bad zlib header";
    case ISAL_UNSUPPORTED_METHOD: return "unsupported method";
    case ISAL_INCORRECT_CHECKSUM: return "Adler-32 mismatch";
    }
    return "bad stream";
}

static cf_status inflate_isal(const uint8_t *src, size_t len, uint8_t *dst, size_t dst_len,
                              cf_error *err)
{
    CF_CHECK(len <= UINT32_MAX && dst_len <= UINT32_MAX, err, CF_ECORRUPT,
             "zlib: payload %zu / output %zu bytes exceed the codec's limits", len, dst_len);
    /* 87 KB of state: too much for the stack of a caller's thread; a heap
     * chunk this size is reused by malloc from block to block. */
    struct inflate_state *st = cf_malloc(sizeof *st);
    CF_CHECK(st != NULL, err, CF_ENOMEM, "zlib: cannot allocate the %zu-byte inflate state",
             sizeof *st);
    isal_inflate_init(st);
    st->crc_flag = ISAL_ZLIB; /* header, Adler-32 trailer checked */
    st->next_in = (uint8_t *)(uintptr_t)src;
    st->avail_in = (uint32_t)len;
    st->next_out = dst;
    st->avail_out = (uint32_t)dst_len;
    int rc = isal_inflate_stateless(st);
    size_t out_len = st->total_out;
    cf_free(st);
    CF_CHECK(rc == ISAL_DECOMP_OK, err, CF_ECORRUPT,
             "zlib: corrupt %zu-byte payload (expected %zu bytes out): %s", len, dst_len,
             isal_reason(rc));
    CF_CHECK(out_len == dst_len, err, CF_ECORRUPT,
             "zlib: payload decodes to %zu bytes, block header says %zu", out_len, dst_len);
    return CF_OK;
}
#endif

cf_status cf_codec_zlib_inflate(cf_inflater which, const uint8_t *src, size_t len, uint8_t *dst,
                                size_t dst_len, cf_error *err)
{
    CF_CHECK(cf_codec_inflater_available(which), err, CF_ENOTSUP,
             "zlib: inflater %d is not in this build", (int)which);
#ifdef CF_HAVE_ISAL_INFLATE
    if (which != CF_INFLATE_ZLIB && dst_len > 0)
        return inflate_isal(src, len, dst, dst_len, err);
#endif
    return inflate_zlib(src, len, dst, dst_len, err);
}

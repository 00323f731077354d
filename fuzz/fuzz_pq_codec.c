/* Fuzz the Parquet page codecs (src/parquet/codec.c, src/codec/gzip.c,
 * zstd.c, brotli.c): decompression is bounded by the page header's size.
 * Input: [codec][uncompressed size x3] then the compressed page.
 * The output buffer is exactly the promised size (ASan sees any write past
 * it); a success must fill it, and then compressing what came out and
 * decompressing again must give it back. */
/* cf-needs: parquet */
#include "fuzz.h"

#include <string.h>

#include "parquet/encoding.h"
#include "util/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    unsigned codec = fuzz_u8(&in) % 9;                                    /* 8: unknown */
    size_t dst_len = fuzz_u16(&in) | (size_t)(fuzz_u8(&in) & 0x0f) << 16; /* < 1 MiB */
    uint8_t *p = fuzz_dup(in.data, in.size);
    uint8_t *dst = malloc(dst_len ? dst_len : 1), *again = malloc(dst_len ? dst_len : 1);
    cf_error err;
    cf_buf b;
    cf_buf_init(&b);
    cf_status st = cf_pq_decompress(codec, p, in.size, dst, dst_len, &err);
    if (st != CF_OK) {
        fuzz_require_clean_error(st, &err);
        goto out;
    }
    FUZZ_REQUIRE(cf_pq_codec_supported(codec));
    st = cf_pq_compress(codec, dst, dst_len, 1, &b, &err);
    FUZZ_REQUIRE_MSG(st == CF_OK, &err);
    st = cf_pq_decompress(codec, b.data, b.len, again, dst_len, &err);
    FUZZ_REQUIRE_MSG(st == CF_OK, &err);
    FUZZ_REQUIRE(dst_len == 0 || memcmp(dst, again, dst_len) == 0);
out:
    cf_buf_dispose(&b);
    free(dst);
    free(again);
    free(p);
    return 0;
}

/* Differential fuzzing of our snappy decoder (src/codec/snappy.c: SNAPPY CFile
 * blocks and Parquet pages) against libsnappy's snappy_uncompress, with the
 * input and checks of fuzz_codec_diff_target (fuzz.h). Ours writes into a
 * buffer of exactly dst_len bytes (ASan sees any store past it). */
#include "fuzz.h"

#include <snappy-c.h>

#include "codec/snappy.h"

static size_t lib_compress(const uint8_t *src, size_t len, unsigned level, uint8_t **out)
{
    (void)level;
    size_t n = snappy_max_compressed_length(len);
    *out = malloc(n + 1);
    FUZZ_REQUIRE(snappy_compress((const char *)src, len, (char *)*out, &n) == SNAPPY_OK);
    return n;
}

static bool ours(const uint8_t *src, size_t len, uint8_t *dst, size_t dst_len)
{
    return cf_snappy_decode_exact(src, len, dst, dst_len);
}

/* libsnappy accepts when the header names exactly dst_len bytes and the body
 * decodes to that many. */
static bool theirs(const uint8_t *src, size_t len, uint8_t *dst, size_t dst_len, long *got)
{
    size_t want_len = 0, out_len = dst_len;
    bool ok = snappy_uncompressed_length((const char *)src, len, &want_len) == SNAPPY_OK &&
              want_len == dst_len &&
              snappy_uncompress((const char *)src, len, (char *)dst, &out_len) == SNAPPY_OK &&
              out_len == dst_len;
    *got = (long)want_len;
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const fuzz_codec_diff c = {"libsnappy", "payload", 0, lib_compress, ours, theirs};
    return fuzz_codec_diff_target(&c, data, size);
}

/* Differential fuzzing of our LZ4 block decoder (src/codec/lz4.c: bitshuffle
 * chunks and LZ4 codec blocks) against liblz4's LZ4_decompress_safe, which
 * Kudu calls, with the input and checks of fuzz_codec_diff_target (fuzz.h);
 * liblz4 compresses with acceleration 1 + (mode >> 4). Ours may write
 * CF_LZ4_SLACK bytes past the output and no further (its buffer is exactly
 * that big, so ASan sees more); liblz4 gets exactly dst_len bytes. */
#include "fuzz.h"

#include <lz4.h>

#include "codec/lz4.h"

static size_t lib_compress(const uint8_t *src, size_t len, unsigned level, uint8_t **out)
{
    int bound = LZ4_compressBound((int)len);
    *out = malloc((size_t)bound + 1);
    int n = LZ4_compress_fast((const char *)src, (char *)*out, (int)len, bound, 1 + (int)level);
    FUZZ_REQUIRE(n > 0 || len == 0);
    return n > 0 ? (size_t)n : 0;
}

static bool ours(const uint8_t *src, size_t len, uint8_t *dst, size_t dst_len)
{
    return cf_lz4_decode_exact(src, len, dst, dst_len);
}

static bool theirs(const uint8_t *src, size_t len, uint8_t *dst, size_t dst_len, long *got)
{
    int n = LZ4_decompress_safe((const char *)src, (char *)dst, (int)len, (int)dst_len);
    *got = n;
    return n >= 0 && (size_t)n == dst_len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const fuzz_codec_diff c = {"liblz4", "block", CF_LZ4_SLACK, lib_compress, ours, theirs};
    return fuzz_codec_diff_target(&c, data, size);
}

/* Differential fuzzing of our LZ4 block decoder (src/codec/lz4.c: bitshuffle
 * chunks and LZ4 codec blocks) against liblz4's LZ4_decompress_safe, which
 * Kudu calls: on any input both must accept or both refuse, and accepted
 * blocks must decode to the same bytes. Ours may write CF_LZ4_SLACK bytes past
 * the output and no further (its buffer is exactly that big, so ASan sees
 * more); liblz4 gets exactly dst_len bytes.
 *
 * Input: [mode][dst_len: u16 + 4 bits] then bytes.
 *   mode & 1 == 0: the bytes are an LZ4 block, decoded for dst_len bytes.
 *   mode & 1 == 1: the bytes are data; liblz4 compresses them (acceleration
 *                  from mode >> 4) and both decode the block for its true
 *                  size, or for that size plus (mode >> 1 & 7) - 4 bytes; so
 *                  the fuzzer reaches valid blocks of every shape, and lies
 *                  about their size.
 */
#include "fuzz.h"

#include <lz4.h>
#include <string.h>

#include "codec/lz4.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    unsigned mode = fuzz_u8(&in);
    size_t dst_len = fuzz_u16(&in) | (size_t)(fuzz_u8(&in) & 0x0f) << 16; /* < 1 MiB */
    uint8_t *src = fuzz_dup(in.data, in.size);
    size_t src_len = in.size;
    if (mode & 1) {
        int bound = LZ4_compressBound((int)in.size);
        uint8_t *block = malloc((size_t)bound + 1);
        int n = LZ4_compress_fast((const char *)src, (char *)block, (int)in.size, bound,
                                  1 + (int)(mode >> 4));
        FUZZ_REQUIRE(n > 0 || in.size == 0);
        long want = (long)in.size + ((mode >> 1 & 7) == 0 ? 0 : (long)(mode >> 1 & 7) - 4);
        dst_len = want < 0 ? 0 : (size_t)want;
        free(src);
        src_len = n > 0 ? (size_t)n : 0;
        src = fuzz_dup(block, src_len); /* exactly the block: ASan sees reads past it */
        free(block);
    }
    uint8_t *ours = malloc(dst_len + CF_LZ4_SLACK), *theirs = malloc(dst_len ? dst_len : 1);
    bool ok = cf_lz4_decode_exact(src, src_len, ours, dst_len);
    int n = LZ4_decompress_safe((const char *)src, (char *)theirs, (int)src_len, (int)dst_len);
    bool lib_ok = n >= 0 && (size_t)n == dst_len;
    if (ok != lib_ok) {
        fprintf(stderr, "ours %s, liblz4 %s (%d) a %zu-byte block for %zu bytes\n",
                ok ? "accepts" : "refuses", lib_ok ? "accepts" : "refuses", n, src_len, dst_len);
        abort();
    }
    FUZZ_REQUIRE(!ok || dst_len == 0 || memcmp(ours, theirs, dst_len) == 0);
    if ((mode & 1) && (mode >> 1 & 7) == 0) /* a true block of the true size */
        FUZZ_REQUIRE(ok && (dst_len == 0 || memcmp(ours, in.data, dst_len) == 0));
    free(ours);
    free(theirs);
    free(src);
    return 0;
}

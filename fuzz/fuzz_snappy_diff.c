/* Differential fuzzing of our snappy decoder (src/codec/snappy.c: SNAPPY CFile
 * blocks and Parquet pages) against libsnappy's snappy_uncompress: on any
 * input both must accept or both refuse, and accepted payloads must decode to
 * the same bytes. Ours writes into a buffer of exactly dst_len bytes (ASan
 * sees any store past it).
 *
 * Input: [mode][dst_len: u16 + 4 bits] then bytes.
 *   mode & 1 == 0: the bytes are a snappy payload, decoded for dst_len bytes.
 *   mode & 1 == 1: the bytes are data; libsnappy compresses them and both
 *                  decode the payload for its true size, or for that size
 *                  plus (mode >> 1 & 7) - 4 bytes; so the fuzzer reaches valid
 *                  payloads of every shape, and lies about their size.
 */
#include "fuzz.h"

#include <snappy-c.h>
#include <string.h>

#include "codec/snappy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    unsigned mode = fuzz_u8(&in);
    size_t dst_len = fuzz_u16(&in) | (size_t)(fuzz_u8(&in) & 0x0f) << 16; /* < 1 MiB */
    uint8_t *src = fuzz_dup(in.data, in.size);
    size_t src_len = in.size;
    if (mode & 1) {
        size_t bound = snappy_max_compressed_length(in.size), n = bound;
        uint8_t *payload = malloc(bound + 1);
        FUZZ_REQUIRE(snappy_compress((const char *)src, in.size, (char *)payload, &n) == SNAPPY_OK);
        long want = (long)in.size + ((mode >> 1 & 7) == 0 ? 0 : (long)(mode >> 1 & 7) - 4);
        dst_len = want < 0 ? 0 : (size_t)want;
        free(src);
        src_len = n;
        src = fuzz_dup(payload, src_len); /* exactly the payload: ASan sees reads past it */
        free(payload);
    }
    uint8_t *ours = malloc(dst_len ? dst_len : 1), *theirs = malloc(dst_len ? dst_len : 1);
    bool ok = cf_snappy_decode_exact(src, src_len, ours, dst_len);
    size_t want_len = 0, out_len = dst_len;
    bool lib_ok =
        snappy_uncompressed_length((const char *)src, src_len, &want_len) == SNAPPY_OK &&
        want_len == dst_len &&
        snappy_uncompress((const char *)src, src_len, (char *)theirs, &out_len) == SNAPPY_OK &&
        out_len == dst_len;
    if (ok != lib_ok) {
        fprintf(stderr, "ours %s, libsnappy %s a %zu-byte payload for %zu bytes\n",
                ok ? "accepts" : "refuses", lib_ok ? "accepts" : "refuses", src_len, dst_len);
        abort();
    }
    FUZZ_REQUIRE(!ok || dst_len == 0 || memcmp(ours, theirs, dst_len) == 0);
    if ((mode & 1) && (mode >> 1 & 7) == 0) /* a true payload of the true size */
        FUZZ_REQUIRE(ok && (dst_len == 0 || memcmp(ours, in.data, dst_len) == 0));
    free(ours);
    free(theirs);
    free(src);
    return 0;
}

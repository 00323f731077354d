/* Differential fuzzing of the CRC-32C implementations (src/codec/crc32c*.c):
 * every one (crc32 streams with and without the pclmul merge, 512- and
 * 256-bit folding, the folding mixed with crc32 streams, the dispatch) must
 * give the portable slicing-by-8 result on the same bytes, and chaining two
 * pieces through any of them must equal the whole.
 *
 * Input: [start x4][repeat x2][cut x2][bytes]. The bytes are repeated
 * `repeat % 64 + 1` times (so short inputs reach the mixed path's 2 KiB and
 * its many-round shapes), read from a misaligned copy (misalignment = start's
 * low bits), and cut at `cut` (mod the length) for the chained check.
 */
#include "fuzz.h"

#include <string.h>

#include "codec/crc32c.h"

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);

static const crc_fn impls[] = {
    cf_crc32c_extend, cf_crc32c_hw,   cf_crc32c_hw_nopclmul,
    cf_crc32c_avx512, cf_crc32c_avx2, cf_crc32c_mix,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    uint32_t start = fuzz_u32(&in);
    size_t repeat = (size_t)fuzz_u16(&in) % 64 + 1;
    size_t cut = fuzz_u16(&in);
    size_t mis = start & 63u;
    size_t len = in.size * repeat;
    uint8_t *buf = malloc(len + mis + 1);
    FUZZ_REQUIRE(buf != NULL);
    uint8_t *p = buf + mis;
    for (size_t i = 0; i < repeat; i++)
        memcpy(p + i * in.size, in.data, in.size);
    uint32_t want = cf_crc32c_portable(start, p, len);
    cut = len ? cut % (len + 1) : 0;
    for (size_t i = 0; i < sizeof impls / sizeof impls[0]; i++) {
        uint32_t got = impls[i](start, p, len);
        if (got != want) {
            fprintf(stderr, "impl %zu: %08x, portable %08x, %zu bytes at +%zu\n", i, got, want, len,
                    mis);
            abort();
        }
        crc_fn second = impls[(i + 1) % (sizeof impls / sizeof impls[0])];
        uint32_t chained = second(impls[i](start, p, cut), p + cut, len - cut);
        if (chained != want) {
            fprintf(stderr, "impl %zu then next: %08x, portable %08x, cut %zu of %zu\n", i, chained,
                    want, cut, len);
            abort();
        }
    }
    free(buf);
    return 0;
}

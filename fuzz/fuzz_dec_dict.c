/* Fuzz the DICT (codewords against a synthetic dictionary) block decoder (format §8.8): load
 * arbitrary bytes, then next / seek / seek_at_or_after under encoding.h's invariants (common.c).
 * Input: [type selector][seed x4][dict size x2] then the block. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_decoder_target(CF_ENC_DICT, FUZZ_TYPES_BINARY, data, size);
}

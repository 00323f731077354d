/* Fuzz the PLAIN fixed-width and BOOL block decoder (format §8.1, §8.2): load arbitrary bytes, then
 * next / seek / seek_at_or_after under encoding.h's invariants (common.c).
 * Input: [type selector][seed x4][dict size x2] then the block. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_decoder_target(CF_ENC_PLAIN, FUZZ_TYPES_FIXED, data, size);
}

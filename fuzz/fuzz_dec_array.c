/* Fuzz the array data block framing (format §6.3) as the iterator parses it:
 * the input's block is wrapped into a minimal CFile (fuzz_wrap_block) of any
 * (type, encoding) and read, sought and verified through the public API.
 * Input: [(type, encoding) selector][seed x4][dict size x2] then the block. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_block_in_file_target(true, data, size);
}

/* Fuzz the whole reader: arbitrary bytes opened as a CFile from memory (and
 * through an io without zero-copy views), then info, metadata, a full scan,
 * copies, seeks by ordinal and value, and cf_reader_verify (common.c).
 * The input is the file itself, so Kudu's golden files are seeds as they are.
 * Checksums are verified on a first pass and ignored on a second, so mutations
 * also reach the blocks behind a broken CRC. */
#include "fuzz.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *file = fuzz_dup(data, size);
    /* The seed (io kind, batch sizes, seek targets) comes from the bytes too. */
    uint32_t seed = (uint32_t)size * 2654435761u;
    for (size_t i = 0; i < size && i < 64; i++)
        seed = seed * 31u + data[size - 1 - i];
    fuzz_check_file(file, size, true, seed);
    fuzz_check_file(file, size, false, seed ^ 1u);
    free(file);
    return 0;
}

/* Fuzz the nullable data block framing (format §6.2) as the iterator parses it:
 * the input's block is wrapped into a minimal CFile (fuzz_wrap_block) of any
 * (type, encoding) and read, sought and verified through the public API.
 * The block's row bitmap is also decoded by cf_rle_dec_bitmap (the scan's
 * decoder: 8-byte stores, short runs without a branch) and by
 * cf_rle_dec_get_bits, which must agree flag for flag and leave the decoder
 * in the same place.
 * Input: [(type, encoding) selector][seed x4][dict size x2] then the block. */
#include "fuzz.h"

#include <string.h>

#include "util/bitmap.h"
#include "util/rle.h"
#include "util/varint.h"

static void bitmap_decoders_agree(const uint8_t *data, size_t size)
{
    if (size < 7)
        return;
    const uint8_t *p = data + 7, *end = data + size;
    uint32_t rows, len;
    p = cf_varint32_decode(p, end, &rows);
    if (p != NULL)
        p = cf_varint32_decode(p, end, &len);
    if (p == NULL || len > (size_t)(end - p) || rows > (1u << 20))
        return;
    size_t nb = cf_bitmap_bytes(rows) + 8;
    uint8_t *a = calloc(nb, 1), *b = calloc(nb, 1);
    FUZZ_REQUIRE(a != NULL && b != NULL);
    cf_rle_decoder da, db;
    cf_rle_dec_init(&da, p, len, 1);
    cf_rle_dec_init(&db, p, len, 1);
    size_t ka = cf_rle_dec_bitmap(&da, a, rows), kb = cf_rle_dec_get_bits(&db, b, 0, rows);
    FUZZ_REQUIRE(ka == kb);
    for (size_t i = 0; i < nb * 8; i++)
        FUZZ_REQUIRE(cf_bitmap_get(a, i) == (i < ka && cf_bitmap_get(b, i)));
    FUZZ_REQUIRE(da.p == db.p && da.rep_left == db.rep_left && da.lit_left == db.lit_left);
    FUZZ_REQUIRE(da.lit_left == 0 || (da.lit_p == db.lit_p && da.lit_bit == db.lit_bit));
    free(a);
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bitmap_decoders_agree(data, size);
    return fuzz_block_in_file_target(false, data, size);
}

/* Fuzz Parquet levels, the RLE / bit-packing hybrid and dictionary indices
 * (src/parquet/levels.c, dict.c).
 * Input: [mode][max level x2][count x2] then the bytes.
 *   mode bits 0-1: 0 RLE levels with the v1 length prefix, 1 RLE levels
 *                  without (v2), 2 BIT_PACKED levels, 3 dictionary indices
 *                  (max level x2 is then the dictionary size)
 * A decode that succeeds must hold only levels <= max (indices < size), must
 * not consume more than it was given, and must survive our encoder: encode,
 * decode, same values. */
/* cf-needs: parquet */
#include "fuzz.h"

#include <string.h>

#include "parquet/encoding.h"
#include "util/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    uint8_t mode = fuzz_u8(&in) & 3;
    uint16_t max = fuzz_u16(&in);
    size_t n = fuzz_u16(&in);
    uint8_t *p = fuzz_dup(in.data, in.size);
    size_t len = in.size;
    cf_error err;
    cf_buf b;
    cf_buf_init(&b);
    if (mode == 3) {
        uint32_t *idx = malloc((n + 1) * 4), *back = malloc((n + 1) * 4);
        cf_status st = cf_pq_dict_indices_decode(idx, n, max, p, len, &err);
        if (st != CF_OK) {
            fuzz_require_clean_error(st, &err);
        } else {
            for (size_t i = 0; i < n; i++)
                FUZZ_REQUIRE(idx[i] < max);
            st = cf_pq_dict_indices_encode(&b, idx, n, max, &err);
            FUZZ_REQUIRE_MSG(st == CF_OK, &err);
            st = cf_pq_dict_indices_decode(back, n, max, b.data, b.len, &err);
            FUZZ_REQUIRE_MSG(st == CF_OK, &err);
            FUZZ_REQUIRE(n == 0 || memcmp(idx, back, n * 4) == 0);
        }
        free(idx);
        free(back);
    } else {
        unsigned enc = mode == 2 ? CF_PQE_BIT_PACKED : CF_PQE_RLE;
        bool prefixed = mode == 0;
        uint16_t *lv = malloc((n + 1) * 2), *back = malloc((n + 1) * 2);
        size_t used;
        cf_status st = cf_pq_levels_decode(lv, n, enc, max, prefixed, p, len, &used, &err);
        if (st != CF_OK) {
            fuzz_require_clean_error(st, &err);
        } else {
            FUZZ_REQUIRE(used <= len);
            for (size_t i = 0; i < n; i++)
                FUZZ_REQUIRE(lv[i] <= max);
            st = cf_pq_levels_encode(&b, lv, n, enc, max, prefixed, &err);
            FUZZ_REQUIRE_MSG(st == CF_OK, &err);
            size_t used2;
            st = cf_pq_levels_decode(back, n, enc, max, prefixed, b.data, b.len, &used2, &err);
            FUZZ_REQUIRE_MSG(st == CF_OK, &err);
            FUZZ_REQUIRE(n == 0 || memcmp(lv, back, n * 2) == 0);
            FUZZ_REQUIRE(max == 0 || !prefixed || used2 == b.len);
        }
        free(lv);
        free(back);
    }
    cf_buf_dispose(&b);
    free(p);
    return 0;
}

/* Dictionary indices of RLE_DICTIONARY / PLAIN_DICTIONARY data pages
 * (Encodings.md "Dictionary Encoding"):
 *
 *   | bytes | field                                                   |
 *   |-------|---------------------------------------------------------|
 *   | 1     | bit width w of the indices, 0..32                       |
 *   | rest  | RLE / bit-packing hybrid of w-bit indices, no length    |
 *
 * The dictionary page itself is PLAIN values (cf_pq_decoder). Each index is
 * checked against the dictionary's size here, so the reader can look values
 * up without a check of its own.
 */
#include "encoding.h"

#include "util/error.h"

/* Every index below dict_count, else `bad` naming the first that is not
 * (damage when decoding, a caller's mistake when encoding). One pass with a
 * running maximum is cheaper than a branch per index; the search for the
 * culprit runs only on failure. */
static cf_status check_indices(const uint32_t *idx, size_t n, uint32_t dict_count, cf_status bad,
                               cf_error *err)
{
    uint32_t max = 0;
    for (size_t i = 0; i < n; i++)
        max = idx[i] > max ? idx[i] : max;
    if (n == 0 || max < dict_count)
        return CF_OK;
    size_t i = 0;
    while (idx[i] < dict_count)
        i++;
    CF_FAIL(err, bad,
            "RLE_DICTIONARY: index %" PRIu32 " of value %zu is outside the %" PRIu32
            "-entry dictionary",
            idx[i], i, dict_count);
}

cf_status cf_pq_dict_indices_decode(uint32_t *out, size_t n, uint32_t dict_count,
                                    const uint8_t *data, size_t len, cf_error *err)
{
    if (n == 0)
        return CF_OK;
    CF_CHECK(len >= 1, err, CF_ECORRUPT, "RLE_DICTIONARY: empty data for %zu indices at offset 0",
             n);
    unsigned w = data[0];
    CF_CHECK(w <= 32, err, CF_ECORRUPT, "RLE_DICTIONARY: bit width %u at offset 0 exceeds 32", w);
    cf_status st = cf_pq_hybrid_decode(out, 4, n, w, data + 1, len - 1, err);
    if (st != CF_OK)
        return cf_error_prefix(err, st, "RLE_DICTIONARY indices at offset 1: ");
    return check_indices(out, n, dict_count, CF_ECORRUPT, err);
}

cf_status cf_pq_dict_indices_encode(cf_buf *out, const uint32_t *idx, size_t n, uint32_t dict_count,
                                    cf_error *err)
{
    CF_TRY(check_indices(idx, n, dict_count, CF_EINVAL, err));
    unsigned w = dict_count > 0 ? cf_pq_bit_width(dict_count - 1) : 0;
    cf_buf_put_u8(out, (uint8_t)w);
    return cf_pq_hybrid_encode(out, idx, 4, n, w, err);
}

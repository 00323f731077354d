/* One bloom block and its sizing (format §11.2 - §11.4).
 *
 * Block layout (the logical bytes of one raw CFile block):
 *
 *   offset      size      field
 *   0           4         hdr_len, fixed32 little-endian
 *   4           hdr_len   BloomBlockHeaderPB { required int32 num_hash_functions = 1; }
 *   4+hdr_len   the rest  bitmap, n_bits = 8 * bytes, bit i = byte i/8, bit i%8 (LSB first)
 *
 * Kudu writes the header as `08 <varint k>`, so with its defaults the block starts
 * `02 00 00 00 08 0d`.
 */
#include "bloom.h"

#include <math.h>

#include "util/endian.h"
#include "util/error.h"
#include "util/varint.h"

/* Kudu's approximation of ln 2 (format §11.4: 0.69314, not ln 2). */
static const double KUDU_LN2 = 0.69314;

void cf_bloom_writer_options_init(cf_bloom_writer_options *opts)
{
    opts->version = CF_BLOOM_WRITER_OPTIONS_VERSION;
    opts->bytes_per_block = CF_BLOOM_DEFAULT_BLOCK_BYTES;
    opts->fp_rate = CF_BLOOM_DEFAULT_FP_RATE;
    opts->checksums = true;
}

cf_status cf_bloom_sizing_compute(cf_bloom_sizing *out, size_t n_bytes, double fp_rate,
                                  cf_error *err)
{
    CF_CHECK(n_bytes > 0 && n_bytes <= CF_BLOOM_MAX_BLOCK_BYTES, err, CF_EINVAL,
             "bytes_per_block: %zu is not in 1..%u", n_bytes, CF_BLOOM_MAX_BLOCK_BYTES);
    CF_CHECK(fp_rate > 0.0 && fp_rate < 1.0, err, CF_EINVAL,
             "fp_rate: %g is not in the open interval (0, 1)", fp_rate);
    /* format §11.4, in Kudu's order of operations so the doubles round alike. */
    double n_bits = (double)(n_bytes * 8);
    double expected = -n_bits * KUDU_LN2 * KUDU_LN2 / log(fp_rate);
    double count = ceil(expected);
    /* Rates near 1 ask for absurdly many keys per block; keep the count exact. */
    CF_CHECK(count >= 1.0 && count <= 9007199254740992.0, err, CF_EINVAL,
             "fp_rate: %g gives %g keys per %zu-byte block", fp_rate, count, n_bytes);
    size_t expected_count = (size_t)count;
    /* Kudu truncates n_bits * ln2 / count to int, with a floor of one hash. */
    double k = n_bits * KUDU_LN2 / (double)expected_count;
    CF_CHECK(k <= (double)CF_BLOOM_MAX_HASHES, err, CF_EINVAL,
             "fp_rate: %g needs %.0f hash functions (at most %u)", fp_rate, k, CF_BLOOM_MAX_HASHES);
    uint32_t n_hashes = (uint32_t)k;
    if (n_hashes < 1)
        n_hashes = 1;
    out->n_bytes = n_bytes;
    out->expected_count = expected_count;
    out->n_hashes = n_hashes;
    return CF_OK;
}

size_t cf_bloom_header_encode(uint8_t *dst, uint32_t k)
{
    size_t pb_len = 1 + cf_varint32_encode(dst + 5, k);
    dst[4] = 0x08; /* field 1, wire type varint */
    cf_store_le32(dst, (uint32_t)pb_len);
    return 4 + pb_len;
}

/* Skip one protobuf field value of wire type wt; NULL when it runs off the end
 * or the wire type is not one a proto2 message may hold here. */
static const uint8_t *skip_field(const uint8_t *p, const uint8_t *end, unsigned wt)
{
    uint64_t v;
    switch (wt) {
    case 0: return cf_varint64_decode(p, end, &v);
    case 1: return (size_t)(end - p) >= 8 ? p + 8 : NULL;
    case 5: return (size_t)(end - p) >= 4 ? p + 4 : NULL;
    case 2:
        p = cf_varint64_decode(p, end, &v);
        if (p == NULL || v > (uint64_t)(end - p))
            return NULL;
        return p + v;
    default: return NULL;
    }
}

cf_status cf_bloom_block_parse(cf_bloom_block *out, const uint8_t *data, size_t len, cf_error *err)
{
    /* format §11.2: fixed32 header length first. */
    CF_CHECK(len >= 4, err, CF_ECORRUPT, "bloom block: %zu bytes cannot hold a header length", len);
    uint32_t hdr_len = cf_load_le32(data);
    CF_CHECK(hdr_len <= len - 4, err, CF_ECORRUPT,
             "bloom block: header of %" PRIu32 " bytes does not fit in %zu bytes", hdr_len,
             len - 4);
    const uint8_t *p = data + 4, *end = p + hdr_len;
    bool have_k = false;
    int32_t k = 0;
    while (p < end) {
        uint32_t tag;
        const uint8_t *q = cf_varint32_decode(p, end, &tag);
        CF_CHECK(q != NULL && (tag >> 3) != 0, err, CF_ECORRUPT,
                 "bloom block: malformed header protobuf at byte %zu", (size_t)(p - data));
        if (tag == 0x08) {
            uint64_t v;
            p = cf_varint64_decode(q, end, &v);
            CF_CHECK(p != NULL, err, CF_ECORRUPT, "bloom block: truncated num_hash_functions");
            k = (int32_t)(uint32_t)v; /* int32 fields keep the low 32 bits */
            have_k = true;
        } else {
            p = skip_field(q, end, tag & 7);
            CF_CHECK(p != NULL, err, CF_ECORRUPT,
                     "bloom block: malformed header protobuf field %" PRIu32, tag >> 3);
        }
    }
    CF_CHECK(have_k, err, CF_ECORRUPT, "bloom block: header lacks num_hash_functions");
    CF_CHECK(k >= 1 && (uint32_t)k <= CF_BLOOM_MAX_HASHES, err, CF_ECORRUPT,
             "bloom block: %" PRId32 " hash functions (must be 1..%u)", k, CF_BLOOM_MAX_HASHES);
    size_t bitmap_len = len - 4 - hdr_len;
    CF_CHECK(bitmap_len > 0, err, CF_ECORRUPT, "bloom block: empty bitmap");
    CF_CHECK(bitmap_len <= CF_BLOOM_MAX_BLOCK_BYTES, err, CF_ECORRUPT,
             "bloom block: bitmap of %zu bytes is larger than %u", bitmap_len,
             CF_BLOOM_MAX_BLOCK_BYTES);
    out->bitmap = end;
    out->n_bits = bitmap_len * 8;
    out->n_hashes = (uint32_t)k;
    return CF_OK;
}

bool cf_bloom_is_bloom_file(const cf_file_info *fi)
{
    /* format §11.1 */
    return fi->type == CF_TYPE_BINARY && fi->encoding == CF_ENC_PLAIN && fi->num_values == 0 &&
           fi->has_validx && !fi->has_posidx && !fi->nullable && !fi->is_array;
}

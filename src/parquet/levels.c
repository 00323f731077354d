/* Parquet's RLE / bit-packing hybrid and the repetition/definition levels
 * (Encodings.md "Run Length Encoding / Bit-Packing Hybrid", "Bit-packed").
 *
 *   | bytes     | field                                                          |
 *   |-----------|----------------------------------------------------------------|
 *   | 4         | length of what follows, LE (data page v1 levels, RLE booleans) |
 *   | 1..5      | ULEB128 run header h                                           |
 *   | h odd     | (h >> 1) groups of 8 values, w bits each, LSB-first: w bytes   |
 *   |           | per group                                                      |
 *   | h even    | (h >> 1) copies of one value in ceil(w / 8) LE bytes           |
 *   | ...       | more runs                                                      |
 *
 * Same grammar as Kudu's RLE (src/util/rle.c, format §7): the bits are
 * packed in the same LSB-first order and the headers are the same varints, so
 * decoding goes through cf_rle_decoder, which already checks every byte.
 * Differences handled here: width 0 is legal (runs with no value bytes; the
 * Kudu decoder copes, cf_rle_dec_get yields zeros), widths stop at 32, and
 * an encoder must finish its last bit-packed run with a whole group (Kudu's
 * ends on a partial byte group, which parquet-java's reader would misread as
 * a truncated stream) -- so the encoder below is Parquet's own.
 * Kudu's decoder reads a width-1 repeated value byte as "any non-zero is 1"
 * (its bitmaps) and cuts wider ones to the width; here repeated values are
 * kept whole, as parquet-java, Arrow and DuckDB read them, so that a level or
 * index too large is refused by the range checks below instead of becoming
 * another valid one.
 *
 * The deprecated BIT_PACKED level encoding has no runs and no header: n values
 * of w bits packed MSB-first, ceil(n * w / 8) bytes.
 */
#include "encoding.h"

#include <string.h>

#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"

/* A run length must fit a signed 32-bit integer (Encodings.md note 3). */
#define MAX_RUN 0x7fffffffu
/* Literal runs are split so that a header never exceeds 3 bytes. */
#define MAX_LIT_GROUPS 8192u

/* cf_pq_hybrid_decode, also giving the largest repeated-run value used (0 when
 * none): literal values have bit_width bits, repeated ones whole bytes. */
static cf_status hybrid_decode(void *out, size_t elem_size, size_t n, unsigned bit_width,
                               const uint8_t *data, size_t len, uint64_t *rep_max, cf_error *err)
{
    *rep_max = 0;
    CF_CHECK(elem_size == 2 || elem_size == 4, err, CF_EINVAL, "RLE: element size %zu", elem_size);
    CF_CHECK(bit_width <= 8 * elem_size && bit_width <= 32, err, CF_ECORRUPT,
             "RLE: bit width %u does not fit %zu-byte values", bit_width, elem_size);
    cf_rle_decoder d;
    cf_rle_dec_init(&d, data, len, bit_width);
    d.raw_repeats = true; /* a repeated value too wide is for the caller's range check */
    size_t got = cf_rle_dec_get(&d, out, elem_size, n);
    *rep_max = d.rep_max;
    CF_CHECK(got == n, err, CF_ECORRUPT,
             "RLE: stream of %zu bytes ends after %zu of %zu values (bit width %u)", len, got, n,
             bit_width);
    return CF_OK;
}

cf_status cf_pq_hybrid_decode(void *out, size_t elem_size, size_t n, unsigned bit_width,
                              const uint8_t *data, size_t len, cf_error *err)
{
    uint64_t rep_max;
    return hybrid_decode(out, elem_size, n, bit_width, data, len, &rep_max, err);
}

/* ---- encoder ---------------------------------------------------------------------------- */

static inline uint32_t val_at(const uint8_t *vals, size_t es, size_t i)
{
    switch (es) {
    case 1: return vals[i];
    case 2: return cf_load_le16(vals + 2 * i);
    default: return cf_load_le32(vals + 4 * i);
    }
}

static void put_repeat(cf_buf *out, unsigned w, uint32_t v, size_t count)
{
    uint8_t vb[4];
    cf_store_le32(vb, v);
    while (count > 0) {
        uint32_t k = count > MAX_RUN ? MAX_RUN : (uint32_t)count;
        cf_buf_put_varint32(out, k << 1);
        cf_buf_append(out, vb, (w + 7) / 8);
        count -= k;
    }
}

/* Values [from, to) as bit-packed runs; the last group is padded with zeros.
 * Four bytes are stored at a time from a 64-bit accumulator (w <= 32, so it
 * holds at most 31 + 32 bits), then the rest of the run's w bytes per group. */
static inline __attribute__((always_inline)) void
put_literal(cf_buf *out, unsigned w, const uint8_t *vals, const size_t es, size_t from, size_t to)
{
    while (from < to) {
        size_t groups = (to - from + 7) / 8;
        if (groups > MAX_LIT_GROUPS)
            groups = MAX_LIT_GROUPS;
        cf_buf_put_varint32(out, (uint32_t)(groups << 1) | 1);
        uint8_t *q = cf_buf_extend(out, groups * w);
        if (q == NULL)
            return;
        uint8_t *const end = q + groups * w;
        size_t stop = from + groups * 8 < to ? from + groups * 8 : to;
        uint64_t acc = 0;
        unsigned nb = 0;
        for (size_t i = from; i < stop; i++) {
            acc |= (uint64_t)val_at(vals, es, i) << nb;
            nb += w;
            if (nb >= 32) {
                cf_store_le32(q, (uint32_t)acc);
                q += 4;
                acc >>= 32;
                nb -= 32;
            }
        }
        while (q < end) { /* what is left of acc, then the padding's zeros */
            *q++ = (uint8_t)acc;
            acc >>= 8;
        }
        from = stop;
    }
}

/* The encoder for one element size (es a constant where it is inlined). */
static inline __attribute__((always_inline)) cf_status hybrid_encode(cf_buf *out,
                                                                     const uint8_t *vals,
                                                                     const size_t es, size_t n,
                                                                     unsigned w, cf_error *err)
{
    const uint64_t limit = (uint64_t)1 << w;
    uint32_t any = 0; /* every value's bits: one branch-free pass for the width check */
    for (size_t i = 0; i < n; i++)
        any |= val_at(vals, es, i);
    if ((uint64_t)any >= limit) {
        size_t i = 0;
        while (val_at(vals, es, i) < limit)
            i++;
        CF_FAIL(err, CF_EINVAL, "RLE: value %" PRIu32 " at %zu needs more than %u bits",
                val_at(vals, es, i), i, w);
    }
    size_t lit = 0; /* first value of the open literal stretch */
    size_t i = 0;
    while (i < n) {
        uint32_t v = val_at(vals, es, i);
        if (i + 1 < n && val_at(vals, es, i + 1) != v) {
            i++; /* no run starts here (the common case of literal stretches) */
            continue;
        }
        size_t j = i + 1;
        while (j < n && val_at(vals, es, j) == v)
            j++;
        /* A repeated run pays off from 8 values; the literal stretch before it
         * must end on a group boundary, so it borrows the run's first values. */
        size_t borrow = (8 - (i - lit) % 8) % 8;
        if (j - i >= 8 + borrow) {
            put_literal(out, w, vals, es, lit, i + borrow);
            put_repeat(out, w, v, j - i - borrow);
            lit = j;
        }
        i = j;
    }
    put_literal(out, w, vals, es, lit, n);
    CF_CHECK(!out->oom, err, CF_ENOMEM, "RLE: cannot allocate the encoded stream");
    return CF_OK;
}

cf_status cf_pq_hybrid_encode(cf_buf *out, const void *vals, size_t elem_size, size_t n,
                              unsigned bit_width, cf_error *err)
{
    CF_CHECK(elem_size == 1 || elem_size == 2 || elem_size == 4, err, CF_EINVAL,
             "RLE: element size %zu", elem_size);
    CF_CHECK(bit_width <= 32, err, CF_EINVAL, "RLE: bit width %u exceeds 32", bit_width);
    switch (elem_size) {
    case 1: return hybrid_encode(out, vals, 1, n, bit_width, err);
    case 2: return hybrid_encode(out, vals, 2, n, bit_width, err);
    default: return hybrid_encode(out, vals, 4, n, bit_width, err);
    }
}

/* ---- deprecated BIT_PACKED ---------------------------------------------------------------- */

static cf_status bitpacked_decode(uint16_t *out, size_t n, unsigned w, const uint8_t *data,
                                  size_t len, size_t *used, cf_error *err)
{
    size_t bits;
    CF_CHECK(cf_mul_ok(n, w, &bits) && bits / 8 + (bits % 8 != 0) <= len, err, CF_ECORRUPT,
             "BIT_PACKED: %zu levels of %u bits need more than the %zu bytes present", n, w, len);
    *used = bits / 8 + (bits % 8 != 0);
    const uint8_t *q = data;
    uint32_t acc = 0;
    unsigned nb = 0;
    const uint32_t mask = ((uint32_t)1 << w) - 1;
    for (size_t i = 0; i < n; i++) {
        while (nb < w) {
            acc = (acc << 8) | *q++;
            nb += 8;
        }
        nb -= w;
        out[i] = (uint16_t)((acc >> nb) & mask);
        acc &= ((uint32_t)1 << nb) - 1;
    }
    return CF_OK;
}

static void bitpacked_encode(cf_buf *out, const uint16_t *lv, size_t n, unsigned w)
{
    uint32_t acc = 0;
    unsigned nb = 0;
    for (size_t i = 0; i < n; i++) {
        acc = (acc << w) | lv[i];
        nb += w;
        while (nb >= 8) {
            nb -= 8;
            cf_buf_put_u8(out, (uint8_t)(acc >> nb));
        }
        acc &= ((uint32_t)1 << nb) - 1;
    }
    if (nb > 0)
        cf_buf_put_u8(out, (uint8_t)(acc << (8 - nb)));
}

/* ---- levels ------------------------------------------------------------------------------- */

cf_status cf_pq_levels_decode(uint16_t *out, size_t n, unsigned encoding, uint16_t max_level,
                              bool prefixed, const uint8_t *data, size_t len, size_t *consumed,
                              cf_error *err)
{
    size_t used = 0;
    uint64_t rep_max = 0;
    const unsigned w = cf_pq_bit_width(max_level);
    if (consumed)
        *consumed = 0;
    if (max_level == 0) {
        memset(out, 0, n * sizeof *out);
        return CF_OK;
    }
    if (encoding == CF_PQE_BIT_PACKED) {
        CF_TRY(bitpacked_decode(out, n, w, data, len, &used, err));
    } else {
        CF_CHECK(encoding == CF_PQE_RLE, err, CF_ECORRUPT,
                 "levels: encoding %s (%u) is not RLE or "
                 "BIT_PACKED",
                 cf_pq_encoding_name(encoding) ? cf_pq_encoding_name(encoding) : "unknown",
                 encoding);
        const uint8_t *p = data;
        size_t plen = len;
        if (prefixed) {
            CF_CHECK(len >= 4, err, CF_ECORRUPT,
                     "RLE levels: %zu bytes cannot hold the 4-byte length at offset 0", len);
            uint32_t l = cf_load_le32(data);
            CF_CHECK(l <= len - 4, err, CF_ECORRUPT,
                     "RLE levels: length %" PRIu32 " at offset 0 exceeds the %zu bytes after it", l,
                     len - 4);
            p = data + 4;
            plen = l;
        }
        cf_status st = hybrid_decode(out, 2, n, w, p, plen, &rep_max, err);
        if (st != CF_OK)
            return cf_error_prefix(err, st, "levels at offset %zu: ", (size_t)(p - data));
        used = (size_t)(p - data) + plen;
    }
    /* Every reader of levels goes through here. A literal value has w bits, so
     * it can pass max_level only when max_level < 2^w - 1: then one
     * branch-free pass over the levels. A repeated run's value has whole
     * bytes (kept as stored), so an OPTIONAL column's level can be 2: the
     * decoder's largest repeated value says so at no cost per level. The
     * culprit is looked for only on failure. */
    if (max_level != ((1u << w) - 1) || rep_max > max_level) {
        uint16_t mx = 0;
        for (size_t i = 0; i < n; i++)
            mx = out[i] > mx ? out[i] : mx;
        if (mx > max_level) {
            size_t i = 0;
            while (out[i] <= max_level)
                i++;
            CF_FAIL(err, CF_ECORRUPT, "%s levels: level %u of value %zu exceeds the maximum %u",
                    encoding == CF_PQE_RLE ? "RLE" : "BIT_PACKED", out[i], i, max_level);
        }
    }
    if (consumed)
        *consumed = used;
    return CF_OK;
}

cf_status cf_pq_levels_encode(cf_buf *out, const uint16_t *levels, size_t n, unsigned encoding,
                              uint16_t max_level, bool prefixed, cf_error *err)
{
    if (max_level == 0)
        return CF_OK;
    const unsigned w = cf_pq_bit_width(max_level);
    uint16_t top = 0; /* the largest level, branch-free (the loop vectorizes) */
    for (size_t i = 0; i < n; i++)
        top = levels[i] > top ? levels[i] : top;
    if (top > max_level) {
        size_t i = 0;
        while (levels[i] <= max_level)
            i++;
        CF_FAIL(err, CF_EINVAL, "levels: level %u of value %zu exceeds the maximum %u", levels[i],
                i, max_level);
    }
    if (encoding == CF_PQE_BIT_PACKED) {
        bitpacked_encode(out, levels, n, w);
    } else {
        CF_CHECK(encoding == CF_PQE_RLE, err, CF_EINVAL,
                 "levels: encoding %u is not RLE or "
                 "BIT_PACKED",
                 encoding);
        size_t at = out->len;
        if (prefixed)
            cf_buf_put_le32(out, 0);
        CF_TRY(cf_pq_hybrid_encode(out, levels, 2, n, w, err));
        if (prefixed && !out->oom) {
            size_t l = out->len - at - 4;
            CF_CHECK(l <= UINT32_MAX, err, CF_EINVAL, "RLE levels: %zu bytes exceed 4 GiB", l);
            cf_store_le32(out->data + at, (uint32_t)l);
        }
    }
    CF_CHECK(!out->oom, err, CF_ENOMEM, "levels: cannot allocate the encoded stream");
    return CF_OK;
}

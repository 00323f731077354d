/* DELTA_BINARY_PACKED (Encodings.md "Delta Encoding"), INT32 and INT64.
 *
 *   | field                  | form                                            |
 *   |------------------------|-------------------------------------------------|
 *   | block size             | ULEB128, a multiple of 128                      |
 *   | miniblocks per block   | ULEB128, block size / it = a multiple of 32     |
 *   | total value count      | ULEB128                                         |
 *   | first value            | zigzag ULEB128                                  |
 *   | then per block:        |                                                 |
 *   |   min delta            | zigzag ULEB128                                  |
 *   |   bit widths           | 1 byte per miniblock (all of them, even unused) |
 *   |   miniblocks           | (values per miniblock * width / 8) bytes each,  |
 *   |                        | LSB-first; none for miniblocks after the last   |
 *   |                        | value                                           |
 *
 * value[i] = value[i-1] + min_delta + packed[i], all wrapping in the type's
 * width (the spec asks for 2's complement wraparound): we add in uint64_t and
 * keep the low 32 bits for INT32, which is the same thing. A bit width above
 * the type's width is damage (writers must not use more bits than PLAIN
 * would); widths of miniblocks never entered are not looked at, as the spec
 * says readers must accept anything there.
 *
 * The cursor decodes straight from the page: no buffer, no allocation.
 */
#include "encoding.h"

#include <string.h>

#include "util/endian.h"
#include "util/error.h"
#include "util/varint.h"

#define OFF(d, q) ((size_t)((q) - (d)->start))

static inline uint64_t unzigzag(uint64_t v)
{
    return (v >> 1) ^ (0 - (v & 1));
}
static inline uint64_t zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (0 - ((uint64_t)v >> 63));
}

/* w bits (0..64) at bit position `bit` of [base, end); the caller has checked
 * that they lie inside. */
static inline uint64_t getbits(const uint8_t *base, const uint8_t *end, uint64_t bit, unsigned w)
{
    const uint8_t *q = base + (bit >> 3);
    unsigned sh = (unsigned)(bit & 7);
    uint64_t x;
    if (end - q >= 9) {
        x = cf_load_le64(q) >> sh;
        if (sh + w > 64)
            x |= (uint64_t)q[8] << (64 - sh);
    } else {
        x = 0;
        size_t k = (size_t)(end - q);
        uint64_t lo = 0;
        for (size_t i = 0; i < k && i < 8; i++)
            lo |= (uint64_t)q[i] << (8 * i);
        x = lo >> sh; /* the caller's bits lie inside: sh + w <= 8k <= 64 */
    }
    return w >= 64 ? x : x & (((uint64_t)1 << w) - 1);
}

cf_status cf_pq_dbp_init(cf_pq_dbp *d, unsigned bits, const uint8_t *data, size_t len,
                         cf_error *err)
{
    memset(d, 0, sizeof *d);
    d->start = d->p = data;
    d->end = data ? data + len : data;
    d->max_width = bits;
    uint64_t f[4];
    static const char *const what[4] = {"block size", "miniblock count", "value count",
                                        "first value"};
    for (int i = 0; i < 4; i++) {
        const uint8_t *q = cf_varint64_decode(d->p, d->end, &f[i]);
        CF_CHECK(q != NULL, err, CF_ECORRUPT, "DELTA_BINARY_PACKED: truncated %s at offset %zu",
                 what[i], OFF(d, d->p));
        d->p = q;
    }
    CF_CHECK(f[0] > 0 && f[0] % 128 == 0 && f[0] <= ((uint64_t)1 << 31), err, CF_ECORRUPT,
             "DELTA_BINARY_PACKED: block size %" PRIu64 " at offset 0 is not a multiple of 128",
             f[0]);
    CF_CHECK(f[1] > 0 && f[1] <= f[0] && f[0] % f[1] == 0 && (f[0] / f[1]) % 32 == 0, err,
             CF_ECORRUPT,
             "DELTA_BINARY_PACKED: %" PRIu64 " miniblocks do not split a %" PRIu64
             "-value block into multiples of 32",
             f[1], f[0]);
    d->block_size = f[0];
    d->mb_count = (uint32_t)f[1];
    d->mb_size = f[0] / f[1];
    d->total = f[2];
    d->last = unzigzag(f[3]);
    d->mb_index = d->mb_count; /* the first delta opens a block */
    return CF_OK;
}

static cf_status next_miniblock(cf_pq_dbp *d, cf_error *err)
{
    if (d->mb_index == d->mb_count) {
        uint64_t md;
        const uint8_t *q = cf_varint64_decode(d->p, d->end, &md);
        CF_CHECK(q != NULL, err, CF_ECORRUPT,
                 "DELTA_BINARY_PACKED: truncated block header (min delta) at offset %zu",
                 OFF(d, d->p));
        CF_CHECK(d->mb_count <= (size_t)(d->end - q), err, CF_ECORRUPT,
                 "DELTA_BINARY_PACKED: %" PRIu32 " miniblock bit widths at offset %zu run past the "
                 "end (%zu bytes)",
                 d->mb_count, OFF(d, q), OFF(d, d->end));
        d->min_delta = unzigzag(md);
        d->widths = q;
        d->p = q + d->mb_count;
        d->mb_index = 0;
    }
    unsigned w = d->widths[d->mb_index];
    CF_CHECK(w <= d->max_width, err, CF_ECORRUPT,
             "DELTA_BINARY_PACKED: miniblock bit width %u at offset %zu exceeds %u", w,
             OFF(d, d->widths + d->mb_index), d->max_width);
    uint64_t bytes = d->mb_size * w / 8;
    size_t avail = (size_t)(d->end - d->p);
    d->mb_p = d->p;
    d->p += bytes < avail ? (size_t)bytes : avail;
    d->mb_end = d->p;
    d->mb_bit = 0;
    d->mb_width = w;
    d->mb_left = d->mb_size;
    d->mb_index++;
    return CF_OK;
}

cf_status cf_pq_dbp_get(cf_pq_dbp *d, void *out, size_t n, cf_error *err)
{
    CF_CHECK(n <= d->total - d->done, err, CF_ECORRUPT,
             "DELTA_BINARY_PACKED: %zu values asked, the header holds %" PRIu64 " more", n,
             d->total - d->done);
    uint8_t *o = out;
    const size_t es = d->max_width / 8;
    size_t i = 0;
    if (n > 0 && d->done == 0) {
        if (es == 4)
            cf_store_le32(o, (uint32_t)d->last);
        else
            cf_store_le64(o, d->last);
        i = 1;
        d->done = 1;
    }
    while (i < n) {
        if (d->mb_left == 0)
            CF_TRY(next_miniblock(d, err));
        size_t k = d->mb_left < n - i ? (size_t)d->mb_left : n - i;
        const unsigned w = d->mb_width;
        uint64_t have = (uint64_t)(d->mb_end - d->mb_p) * 8;
        CF_CHECK(d->mb_bit + (uint64_t)k * w <= have, err, CF_ECORRUPT,
                 "DELTA_BINARY_PACKED: miniblock at offset %zu is cut short by the end of the data "
                 "(%zu bytes)",
                 OFF(d, d->mb_p), OFF(d, d->end));
        uint64_t last = d->last, md = d->min_delta, bit = d->mb_bit;
        size_t j = 0;
        if (w == 0) {
            /* Every delta is the block's min delta. */
            for (; j < k; j++) {
                last += md;
                if (es == 4)
                    cf_store_le32(o + 4 * (i + j), (uint32_t)last);
                else
                    cf_store_le64(o + 8 * (i + j), last);
            }
        } else if (w <= 56) {
            /* Values whose 8-byte load stays inside the buffer need no end
             * check: one load, shift and mask each. (Their bits are inside the
             * miniblock, checked above; the load may read past it, never past
             * the buffer, and the mask drops what it read there.) */
            const uint64_t mask = ((uint64_t)1 << w) - 1;
            const size_t avail = (size_t)(d->end - d->mb_p);
            size_t fast = 0;
            if (avail >= 8) {
                uint64_t lim = (uint64_t)(avail - 8) * 8 + 7; /* last safe start bit */
                if (bit <= lim)
                    fast = (lim - bit) / w + 1 < k ? (size_t)((lim - bit) / w + 1) : k;
            }
            const uint8_t *mp = d->mb_p;
            if (es == 4) {
                for (; j < fast; j++, bit += w) {
                    last += md + ((cf_load_le64(mp + (bit >> 3)) >> (bit & 7)) & mask);
                    cf_store_le32(o + 4 * (i + j), (uint32_t)last);
                }
            } else {
                for (; j < fast; j++, bit += w) {
                    last += md + ((cf_load_le64(mp + (bit >> 3)) >> (bit & 7)) & mask);
                    cf_store_le64(o + 8 * (i + j), last);
                }
            }
        }
        if (es == 4) {
            for (; j < k; j++, bit += w) {
                last += md + getbits(d->mb_p, d->mb_end, bit, w);
                cf_store_le32(o + 4 * (i + j), (uint32_t)last);
            }
        } else {
            for (; j < k; j++, bit += w) {
                last += md + getbits(d->mb_p, d->mb_end, bit, w);
                cf_store_le64(o + 8 * (i + j), last);
            }
        }
        d->last = last;
        d->mb_bit = bit;
        d->mb_left -= k;
        d->done += k;
        i += k;
    }
    return CF_OK;
}

cf_status cf_pq_dbp_skip_all(cf_pq_dbp *d, bool nonneg, uint64_t *sum, size_t *end_off,
                             cf_error *err)
{
    uint64_t s = 0;
    uint8_t buf[256 * 8];
    const size_t es = d->max_width / 8;
    while (d->done < d->total) {
        uint64_t left = d->total - d->done;
        size_t k = left < 256 ? (size_t)left : 256;
        uint64_t at = d->done;
        CF_TRY(cf_pq_dbp_get(d, buf, k, err));
        for (size_t j = 0; j < k && (nonneg || sum); j++) {
            int64_t v = es == 4 ? (int64_t)(int32_t)cf_load_le32(buf + 4 * j)
                                : (int64_t)cf_load_le64(buf + 8 * j);
            CF_CHECK(!nonneg || v >= 0, err, CF_ECORRUPT,
                     "DELTA_BINARY_PACKED: length %" PRId64 " of value %" PRIu64 " is negative", v,
                     at + j);
            /* Lengths are >= 0 here; saturate so a huge sum stays huge. */
            s = s + (uint64_t)v < s ? UINT64_MAX : s + (uint64_t)v;
        }
    }
    if (sum)
        *sum = s;
    if (end_off)
        *end_off = OFF(d, d->p);
    return CF_OK;
}

/* ---- encoder ------------------------------------------------------------------------------ */

#define ENC_BLOCK 128
#define ENC_MB 4
#define ENC_MB_SIZE (ENC_BLOCK / ENC_MB)

/* Append k <= 32 bits of v through a little accumulator. */
typedef struct bitw {
    cf_buf *out;
    uint64_t acc;
    unsigned nb;
} bitw;

static inline void bitw_put(bitw *b, uint64_t v, unsigned k)
{
    b->acc |= v << b->nb;
    b->nb += k;
    while (b->nb >= 8) {
        cf_buf_put_u8(b->out, (uint8_t)b->acc);
        b->acc >>= 8;
        b->nb -= 8;
    }
}

cf_status cf_pq_dbp_encode(cf_buf *out, unsigned bits, const void *vals, size_t n, cf_error *err)
{
    CF_CHECK(bits == 32 || bits == 64, err, CF_EINVAL, "DELTA_BINARY_PACKED: %u-bit values", bits);
    const uint8_t *v = vals;
    const size_t es = bits / 8;
    uint64_t prev = 0;
    if (n > 0)
        prev = es == 4 ? (uint64_t)(int64_t)(int32_t)cf_load_le32(v) : cf_load_le64(v);
    cf_buf_put_varint64(out, ENC_BLOCK);
    cf_buf_put_varint64(out, ENC_MB);
    cf_buf_put_varint64(out, n);
    cf_buf_put_varint64(out, zigzag((int64_t)prev));
    uint64_t rel[ENC_BLOCK];
    for (size_t i = 1; i < n;) {
        size_t k = n - i < ENC_BLOCK ? n - i : ENC_BLOCK;
        int64_t min = INT64_MAX;
        int64_t dl[ENC_BLOCK];
        for (size_t j = 0; j < k; j++) {
            uint64_t cur;
            int64_t delta;
            if (es == 4) {
                uint32_t c32 = cf_load_le32(v + 4 * (i + j));
                delta = (int32_t)(c32 - (uint32_t)prev);
                cur = c32;
            } else {
                cur = cf_load_le64(v + 8 * (i + j));
                delta = (int64_t)(cur - prev);
            }
            dl[j] = delta;
            min = delta < min ? delta : min;
            prev = cur;
        }
        uint8_t widths[ENC_MB] = {0};
        for (size_t j = 0; j < ENC_BLOCK; j++) {
            if (j < k) {
                uint64_t r = (uint64_t)dl[j] - (uint64_t)min;
                rel[j] = es == 4 ? (uint32_t)r : r;
            } else {
                rel[j] = 0;
            }
            unsigned w = cf_pq_bit_width(rel[j]);
            if (w > widths[j / ENC_MB_SIZE])
                widths[j / ENC_MB_SIZE] = (uint8_t)w;
        }
        cf_buf_put_varint64(out, zigzag(min));
        cf_buf_append(out, widths, ENC_MB);
        size_t used_mb = (k + ENC_MB_SIZE - 1) / ENC_MB_SIZE;
        bitw b = {out, 0, 0};
        for (size_t m = 0; m < used_mb; m++) {
            unsigned w = widths[m];
            for (size_t j = m * ENC_MB_SIZE; j < (m + 1) * ENC_MB_SIZE; j++) {
                if (w > 32) {
                    bitw_put(&b, rel[j] & 0xffffffffu, 32);
                    bitw_put(&b, rel[j] >> 32, w - 32);
                } else {
                    bitw_put(&b, rel[j], w);
                }
            }
        }
        i += k;
    }
    CF_CHECK(!out->oom, err, CF_ENOMEM, "DELTA_BINARY_PACKED: cannot allocate the encoded stream");
    return CF_OK;
}

/* Kudu's RLE / bit-packing hybrid (format §7).
 *
 * Stream layout (format §7.1), no length prefix, width w fixed by the caller:
 *
 *   | size            | field                                                   |
 *   |-----------------|---------------------------------------------------------|
 *   | 1..5            | varint32 indicator; bit 0 = 1: literal, 0: repeated      |
 *   | repeated run    | ceil(w/8) bytes: the value, little-endian (byte aligned) |
 *   | literal run     | (ind >> 1) groups of 8 values, w bits each, LSB-first;   |
 *   |                 | the stream's last group may hold fewer values, padded    |
 *   |                 | with zero bits to a byte                                 |
 *
 * The encoder follows Kudu's run-splitting heuristic step for step (§7.3) so
 * that its bytes equal Kudu's. Literal values are only ever flushed in whole
 * groups of 8 (w bytes, byte aligned) except at finish, so every emitted byte
 * is final and the bytes-emitted count that Kudu's writer uses for "block
 * full" (§8.3) is simply the output length.
 *
 * The decoder trusts nothing: a truncated indicator or repeated value ends the
 * stream, and a literal run claiming more values than the buffer holds is cut
 * to the values whose bits are present (§7.1: the last group may be partial).
 */
#include "rle.h"

#include <string.h>

#include "bitmap.h"
#include "endian.h"
#include "varint.h"

/* A repeated-run indicator is a varint32 of count << 1. */
#define MAX_REPEAT 0x7fffffffu
/* Literal runs are closed before their group count needs a second indicator
 * byte (§7.3: ceil(lit/8) + 1 >= 64). */
#define MAX_LIT_GROUPS 64u

static uint64_t width_mask(unsigned w)
{
    return w >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << w) - 1);
}

/* ---- encoder ------------------------------------------------------------------------- */

void cf_rle_enc_init(cf_rle_encoder *e, unsigned width)
{
    memset(e, 0, sizeof *e);
    cf_buf_init(&e->out);
    e->width = width;
    e->mask = width_mask(width);
}

void cf_rle_enc_dispose(cf_rle_encoder *e)
{
    cf_buf_dispose(&e->out);
}

void cf_rle_enc_reset(cf_rle_encoder *e)
{
    cf_buf_clear(&e->out);
    e->cur = 0;
    e->rep = 0;
    e->nbuf = 0;
    e->lit = 0;
    e->ind_pos = 0;
    e->ind_open = false;
}

/* Append n values (n <= 8) of e->width bits: ceil(n * w / 8) bytes. */
static void pack_values(cf_rle_encoder *e, const uint64_t *v, unsigned n)
{
    const unsigned w = e->width;
    size_t len = ((size_t)n * w + 7) / 8;
    uint8_t *q = cf_buf_extend(&e->out, len);
    if (q == NULL || len == 0)
        return; /* finish may flush an empty group */
    switch (w) {
    case 1: {
        unsigned byte = 0;
        for (unsigned i = 0; i < n; i++)
            byte |= (unsigned)v[i] << i;
        q[0] = (uint8_t)byte;
        return;
    }
    case 8:
        for (unsigned i = 0; i < n; i++)
            q[i] = (uint8_t)v[i];
        return;
    case 16:
        for (unsigned i = 0; i < n; i++)
            cf_store_le16(q + 2 * i, (uint16_t)v[i]);
        return;
    case 32:
        for (unsigned i = 0; i < n; i++)
            cf_store_le32(q + 4 * i, (uint32_t)v[i]);
        return;
    case 64:
        for (unsigned i = 0; i < n; i++)
            cf_store_le64(q + 8 * i, v[i]);
        return;
    default: break;
    }
    uint64_t acc = 0;
    unsigned bits = 0; /* < 64 */
    uint8_t *p = q;
    for (unsigned i = 0; i < n; i++) {
        uint64_t x = v[i];
        acc |= x << bits;
        if (bits + w >= 64) {
            cf_store_le64(p, acc);
            p += 8;
            unsigned used = 64 - bits; /* bits of x already stored, 1..64 */
            acc = used < 64 ? x >> used : 0;
            bits = bits + w - 64;
        } else {
            bits += w;
        }
    }
    for (unsigned k = 0; k < bits; k += 8)
        *p++ = (uint8_t)(acc >> k);
}

static void write_literal_values(cf_rle_encoder *e)
{
    if (!e->ind_open) {
        e->ind_pos = e->out.len;
        e->ind_open = true;
        cf_buf_put_u8(&e->out, 0); /* patched by close_literal */
    }
    pack_values(e, e->buf, e->nbuf);
    e->nbuf = 0;
}

static void close_literal(cf_rle_encoder *e)
{
    unsigned groups = (e->lit + 7) / 8;
    if (!e->out.oom && e->ind_pos < e->out.len)
        e->out.data[e->ind_pos] = (uint8_t)((groups << 1) | 1);
    e->ind_open = false;
    e->lit = 0;
}

static void emit_repeated(cf_rle_encoder *e)
{
    const unsigned vb = (e->width + 7) / 8;
    uint64_t left = e->rep;
    /* Kudu never gets here with more than 2^30 values; longer runs are split
     * into several equal runs, which every decoder accepts (§7.2). */
    while (left > 0) {
        uint32_t k = left > MAX_REPEAT ? MAX_REPEAT : (uint32_t)left;
        cf_buf_put_varint32(&e->out, k << 1);
        uint8_t v[8];
        cf_store_le64(v, e->cur);
        cf_buf_append(&e->out, v, vb);
        left -= k;
    }
    e->nbuf = 0;
    e->rep = 0;
}

/* Eight values are buffered: they either join a repeated run or become a
 * literal group (§7.3 flush_group with done = false). */
static void flush_group(cf_rle_encoder *e)
{
    if (e->rep >= 8) {
        e->nbuf = 0;
        if (e->lit > 0)
            close_literal(e);
        return;
    }
    e->lit += e->nbuf;
    write_literal_values(e);
    if ((e->lit + 7) / 8 + 1 >= MAX_LIT_GROUPS)
        close_literal(e);
    e->rep = 0;
}

static inline void put1(cf_rle_encoder *e, uint64_t v)
{
    if (v == e->cur) {
        e->rep++;
        if (e->rep > 8)
            return; /* a long run: only count */
    } else {
        if (e->rep >= 8)
            emit_repeated(e);
        e->rep = 1;
        e->cur = v;
    }
    e->buf[e->nbuf++] = v;
    if (e->nbuf == 8)
        flush_group(e);
}

void cf_rle_enc_put(cf_rle_encoder *e, uint64_t v)
{
    put1(e, v & e->mask);
}

void cf_rle_enc_put_run(cf_rle_encoder *e, uint64_t v, size_t n)
{
    v &= e->mask;
    while (n > 0) {
        if (v == e->cur && e->rep >= 8) {
            /* Inside a repeated run every further equal value only counts. */
            e->rep += n;
            return;
        }
        put1(e, v);
        n--;
    }
}

static inline uint64_t load_elem(const uint8_t *p, size_t elem_size)
{
    switch (elem_size) {
    case 1: return *p;
    case 2: return cf_load_le16(p);
    case 4: return cf_load_le32(p);
    default: return cf_load_le64(p);
    }
}

void cf_rle_enc_put_values(cf_rle_encoder *e, const void *vals, size_t elem_size, size_t n)
{
    const uint8_t *p = vals;
    const uint64_t mask = e->mask;
    const bool flag = e->width == 1;
    size_t i = 0;
    while (i < n) {
        uint64_t raw = load_elem(p + i * elem_size, elem_size);
        size_t j = i + 1;
        while (j < n && load_elem(p + j * elem_size, elem_size) == raw)
            j++;
        uint64_t v = flag ? (raw != 0) : (raw & mask);
        if (j - i == 1)
            put1(e, v);
        else
            cf_rle_enc_put_run(e, v, j - i);
        i = j;
    }
}

size_t cf_rle_enc_emitted_len(const cf_rle_encoder *e)
{
    return e->out.len;
}

cf_status cf_rle_enc_finish(cf_rle_encoder *e)
{
    if (e->lit > 0 || e->rep > 0 || e->nbuf > 0) {
        if (e->rep > 0 && e->lit == 0 && (e->rep == e->nbuf || e->nbuf == 0)) {
            emit_repeated(e);
        } else {
            e->lit += e->nbuf;
            write_literal_values(e);
            close_literal(e);
            e->rep = 0;
        }
    }
    return cf_buf_status(&e->out);
}

/* ---- decoder ------------------------------------------------------------------------- */

void cf_rle_dec_init(cf_rle_decoder *d, const uint8_t *data, size_t len, unsigned width)
{
    memset(d, 0, sizeof *d);
    d->p = data;
    d->end = data ? data + len : data; /* NULL + 0 is undefined behaviour */
    d->width = width;
}

/* Make sure a run with values left is current. false at the end of the stream
 * or at a malformed indicator or value, after which the stream is over. */
static bool refill(cf_rle_decoder *d)
{
    while (d->rep_left == 0 && d->lit_left == 0) {
        uint32_t ind;
        const uint8_t *q = cf_varint32_decode(d->p, d->end, &ind);
        if (q == NULL) {
            d->p = d->end;
            return false;
        }
        d->p = q;
        const unsigned w = d->width;
        if (ind & 1) {
            uint64_t groups = ind >> 1;
            uint64_t bytes = groups * w; /* groups * 8 values * w bits / 8 */
            size_t avail = (size_t)(d->end - d->p);
            d->lit_p = d->p;
            d->lit_bit = 0;
            if (bytes <= avail) {
                d->lit_left = groups * 8;
                d->p += bytes;
            } else {
                /* §7.1: the last literal group may be partial; keep only the
                 * values whose bits are all present. */
                d->lit_left = ((uint64_t)avail * 8) / w;
                d->p = d->end;
            }
            d->lit_end = d->p;
        } else {
            const unsigned vb = (w + 7) / 8;
            if ((size_t)(d->end - d->p) < vb) {
                d->p = d->end;
                return false;
            }
            uint64_t v = 0;
            for (unsigned i = 0; i < vb; i++)
                v |= (uint64_t)d->p[i] << (8 * i);
            d->p += vb;
            /* §7.2: for bitmaps any non-zero byte means "true". */
            if (d->raw_repeats) {
                d->rep_value = v;
                d->rep_max = v > d->rep_max ? v : d->rep_max;
            } else {
                d->rep_value = w == 1 ? (v != 0) : (v & width_mask(w));
            }
            d->rep_left = ind >> 1;
        }
    }
    return true;
}

/* The literal value at bit position bit of [base, end); all its bits are
 * known to lie inside the range. */
static inline uint64_t read_bits(const uint8_t *base, const uint8_t *end, uint64_t bit, unsigned w)
{
    const uint8_t *q = base + (bit >> 3);
    unsigned sh = (unsigned)(bit & 7);
    uint64_t x;
    if (end - q >= 8) {
        x = cf_load_le64(q) >> sh;
        if (sh + w > 64)
            x |= (uint64_t)q[8] << (64 - sh);
    } else {
        x = 0;
        for (size_t i = 0; i < (size_t)(end - q); i++)
            x |= (uint64_t)q[i] << (8 * i);
        x >>= sh;
    }
    return x & width_mask(w);
}

static inline void store_elem(uint8_t *dst, size_t elem_size, uint64_t v)
{
    switch (elem_size) {
    case 1: *dst = (uint8_t)v; break;
    case 2: cf_store_le16(dst, (uint16_t)v); break;
    case 4: cf_store_le32(dst, (uint32_t)v); break;
    default: cf_store_le64(dst, v); break;
    }
}

/* Byte k of the result is bit k of b. */
static inline uint64_t spread_bits(uint8_t b)
{
    uint64_t x = ((uint64_t)b * 0x0101010101010101ull) & 0x8040201008040201ull;
    return ((x + 0x7f7f7f7f7f7f7f7full) >> 7) & 0x0101010101010101ull;
}

/* Store k copies of v. Fixed-width loops per element size so the compiler
 * turns them into wide vector stores (a variable-size memcpy per value would
 * be a library call per value). */
static void fill(uint8_t *dst, size_t elem_size, uint64_t v, size_t k)
{
    if (elem_size == 1 || v == 0) {
        memset(dst, (int)(uint8_t)v, k * elem_size);
        return;
    }
    switch (elem_size) {
    case 2: {
        uint16_t x = (uint16_t)v;
        for (size_t i = 0; i < k; i++)
            memcpy(dst + 2 * i, &x, 2);
        break;
    }
    case 4: {
        uint32_t x = (uint32_t)v;
        for (size_t i = 0; i < k; i++)
            memcpy(dst + 4 * i, &x, 4);
        break;
    }
    case 8:
        for (size_t i = 0; i < k; i++)
            memcpy(dst + 8 * i, &v, 8);
        break;
    default: {
        uint8_t pat[8];
        cf_store_le64(pat, v);
        for (size_t i = 0; i < k; i++)
            memcpy(dst + i * elem_size, pat, elem_size);
        break;
    }
    }
}

/* Eight w-bit values (one literal group, w bytes) into u32, w fixed at
 * compile time so that every shift and offset is a constant. Reads up to
 * byte 7w/8 + 7 of `in`: callers make sure 8 bytes follow the group's start
 * plus its length rounded down. */
#define CF_UNPACK8(W)                                                                              \
    static void unpack8_##W(const uint8_t *in, uint8_t *out)                                       \
    {                                                                                              \
        for (unsigned j = 0; j < 8; j++) {                                                         \
            uint32_t v = (uint32_t)((cf_load_le64(in + (j * W) / 8) >> ((j * W) % 8)) &            \
                                    (((uint64_t)1 << W) - 1));                                     \
            memcpy(out + 4 * j, &v, 4);                                                            \
        }                                                                                          \
    }
CF_UNPACK8(2)
CF_UNPACK8(3)
CF_UNPACK8(4)
CF_UNPACK8(5)
CF_UNPACK8(6)
CF_UNPACK8(7)
CF_UNPACK8(9)
CF_UNPACK8(10)
CF_UNPACK8(11)
CF_UNPACK8(12)
CF_UNPACK8(13)
CF_UNPACK8(14)
CF_UNPACK8(15)
CF_UNPACK8(17)
CF_UNPACK8(18)
CF_UNPACK8(19)
CF_UNPACK8(20)
CF_UNPACK8(21)
CF_UNPACK8(22)
CF_UNPACK8(23)
CF_UNPACK8(24)
#undef CF_UNPACK8
typedef void (*unpack8_fn)(const uint8_t *in, uint8_t *out);
/* Widths of dictionary indices (up to 16 M entries) that are not whole bytes. */
static const unpack8_fn unpack8_u32[25] = {
    NULL,       NULL,       unpack8_2,  unpack8_3,  unpack8_4,  unpack8_5,  unpack8_6,
    unpack8_7,  NULL,       unpack8_9,  unpack8_10, unpack8_11, unpack8_12, unpack8_13,
    unpack8_14, unpack8_15, NULL,       unpack8_17, unpack8_18, unpack8_19, unpack8_20,
    unpack8_21, unpack8_22, unpack8_23, unpack8_24};

/* Copy k literal values out of the current literal run into dst. */
static void get_literal(cf_rle_decoder *d, uint8_t *dst, size_t elem_size, size_t k)
{
    const unsigned w = d->width;
    if (w == 8 * elem_size) {
        /* Whole-byte values of the destination width: the bits are the bytes. */
        memcpy(dst, d->lit_p + (d->lit_bit >> 3), k * elem_size);
        return;
    }
    size_t i = 0;
    uint64_t bit = d->lit_bit;
    if (w == 1 && elem_size == 1) {
        for (; i < k && (bit & 7) != 0; i++, bit++)
            dst[i] = (d->lit_p[bit >> 3] >> (bit & 7)) & 1;
        for (; k - i >= 8; i += 8, bit += 8)
            cf_store_le64(dst + i, spread_bits(d->lit_p[bit >> 3]));
        for (; i < k; i++, bit++)
            dst[i] = (d->lit_p[bit >> 3] >> (bit & 7)) & 1;
        return;
    }
    if (w == 8 || w == 16 || w == 32 || w == 64) {
        /* Whole-byte values of another width (e.g. u16 counts into u32). */
        const uint8_t *q = d->lit_p + (bit >> 3);
        const size_t vb = w / 8;
        for (; i < k; i++, q += vb)
            store_elem(dst + i * elem_size, elem_size, load_elem(q, vb));
        return;
    }
    if (w == 1 && elem_size == 2) {
        /* Definition levels of a nullable column: 4 flags at a time become 4
         * u16 lanes by one multiply (bit j moves to bit 16j, no carries). */
        const uint64_t spread = 0x0000200040008001ull, lanes = 0x0001000100010001ull;
        for (; i < k && (bit & 7) != 0; i++, bit++)
            cf_store_le16(dst + 2 * i, (d->lit_p[bit >> 3] >> (bit & 7)) & 1);
        for (; k - i >= 8; i += 8, bit += 8) {
            uint8_t b = d->lit_p[bit >> 3];
            cf_store_le64(dst + 2 * i, ((uint64_t)(b & 15) * spread) & lanes);
            cf_store_le64(dst + 2 * i + 8, ((uint64_t)(b >> 4) * spread) & lanes);
        }
        for (; i < k; i++, bit++)
            cf_store_le16(dst + 2 * i, (d->lit_p[bit >> 3] >> (bit & 7)) & 1);
        return;
    }
    if (w < 32 && (elem_size == 2 || elem_size == 4)) {
        /* Narrow values into u16/u32 (levels, dictionary indices): one 64-bit
         * load per value while 8 bytes of the stream remain (the load may
         * read past the run, never past the buffer; the mask drops those
         * bits), the width and the store size fixed for the loop; the last
         * few values take the careful path. */
        const uint64_t mask = width_mask(w);
        const uint8_t *base = d->lit_p, *end = d->end;
        if (elem_size == 4) {
            unpack8_fn u = w < 25 ? unpack8_u32[w] : NULL;
            if (u != NULL && (bit & 7) == 0 && bit % (8 * w) == 0) {
                /* whole groups from a group boundary */
                for (; k - i >= 8 && end - (base + (bit >> 3)) >= (ptrdiff_t)(w + 8);
                     i += 8, bit += 8 * (uint64_t)w)
                    u(base + (bit >> 3), dst + 4 * i);
            }
            for (; i < k && end - (base + (bit >> 3)) >= 8; i++, bit += w) {
                uint32_t v = (uint32_t)((cf_load_le64(base + (bit >> 3)) >> (bit & 7)) & mask);
                memcpy(dst + 4 * i, &v, 4);
            }
        } else {
            for (; i < k && end - (base + (bit >> 3)) >= 8; i++, bit += w) {
                uint16_t v = (uint16_t)((cf_load_le64(base + (bit >> 3)) >> (bit & 7)) & mask);
                memcpy(dst + 2 * i, &v, 2);
            }
        }
    }
    for (; i < k; i++, bit += w)
        store_elem(dst + i * elem_size, elem_size, read_bits(d->lit_p, d->lit_end, bit, w));
}

size_t cf_rle_dec_get(cf_rle_decoder *d, void *dst, size_t elem_size, size_t n)
{
    uint8_t *out = dst;
    size_t done = 0;
    while (done < n && refill(d)) {
        size_t want = n - done;
        if (d->rep_left > 0) {
            size_t k = d->rep_left < want ? (size_t)d->rep_left : want;
            fill(out + done * elem_size, elem_size, d->rep_value, k);
            d->rep_left -= k;
            done += k;
        } else {
            size_t k = d->lit_left < want ? (size_t)d->lit_left : want;
            get_literal(d, out + done * elem_size, elem_size, k);
            d->lit_bit += (uint64_t)k * d->width;
            d->lit_left -= k;
            done += k;
        }
    }
    return done;
}

/* Bits are produced in order into whole bytes of the destination through a
 * 64-bit accumulator: a literal run moves up to 56 bits per step, a repeated
 * run whole bytes by memset, instead of bit-by-bit edges around every short
 * run (a 20%-NULL bitmap alternates short literal and repeated runs). */
typedef struct bit_sink {
    uint8_t *q;   /* next whole destination byte */
    uint64_t acc; /* pending bits, LSB first */
    unsigned na;  /* how many (< 8 between steps) */
} bit_sink;

static inline void sink_put(bit_sink *s, uint64_t bits, unsigned k) /* k <= 56 */
{
    s->acc |= bits << s->na;
    s->na += k;
    while (s->na >= 8) {
        *s->q++ = (uint8_t)s->acc;
        s->acc >>= 8;
        s->na -= 8;
    }
}

static void sink_fill(bit_sink *s, bool v, size_t k)
{
    uint64_t ones = v ? ~(uint64_t)0 : 0;
    unsigned head = s->na ? 8 - s->na : 0;
    if (head > k)
        head = (unsigned)k;
    sink_put(s, ones & width_mask(head), head);
    k -= head;
    if (k >= 8) {
        memset(s->q, v ? 0xff : 0, k >> 3);
        s->q += k >> 3;
        k &= 7;
    }
    sink_put(s, ones & width_mask((unsigned)k), (unsigned)k);
}

size_t cf_rle_dec_get_bits(cf_rle_decoder *d, uint8_t *bitmap, size_t off, size_t n)
{
    size_t done = 0;
    /* Up to 7 flags one by one, so that the rest starts on a byte. */
    while (done < n && ((off + done) & 7) != 0 && refill(d)) {
        bool v;
        if (d->rep_left > 0) {
            v = d->rep_value != 0;
            d->rep_left--;
        } else {
            v = read_bits(d->lit_p, d->lit_end, d->lit_bit, d->width) != 0;
            d->lit_bit += d->width;
            d->lit_left--;
        }
        cf_bitmap_put(bitmap, off + done, v);
        done++;
    }
    if (done == n || ((off + done) & 7) != 0)
        return done;
    bit_sink s = {bitmap + ((off + done) >> 3), 0, 0};
    while (done < n && refill(d)) {
        size_t want = n - done;
        if (d->rep_left > 0) {
            size_t k = d->rep_left < want ? (size_t)d->rep_left : want;
            sink_fill(&s, d->rep_value != 0, k);
            d->rep_left -= k;
            done += k;
        } else {
            size_t k = d->lit_left < want ? (size_t)d->lit_left : want;
            d->lit_left -= k;
            done += k;
            if (d->width == 1) {
                while (k > 0) {
                    unsigned t = k < 56 ? (unsigned)k : 56;
                    sink_put(&s, read_bits(d->lit_p, d->lit_end, d->lit_bit, t), t);
                    d->lit_bit += t;
                    k -= t;
                }
            } else {
                for (; k > 0; k--, d->lit_bit += d->width)
                    sink_put(&s, read_bits(d->lit_p, d->lit_end, d->lit_bit, d->width) != 0, 1);
            }
        }
    }
    /* The last partial byte keeps the destination's bits above the flags. */
    if (s.na > 0) {
        uint8_t m = (uint8_t)width_mask(s.na);
        *s.q = (uint8_t)((*s.q & ~m) | ((uint8_t)s.acc & m));
    }
    return done;
}

/* A bit writer for cf_rle_dec_bitmap: pending bits (fewer than 8 between
 * steps) in acc; every step stores 8 bytes at q and moves q by the whole
 * bytes completed, with no loop and no branch on the count. */
typedef struct bit_writer {
    uint8_t *q;
    uint64_t acc;
    unsigned na;
} bit_writer;

static inline void bw_put(bit_writer *w, uint64_t bits, unsigned k) /* k <= 56, bits < 2^k */
{
    w->acc |= bits << w->na;
    w->na += k;
    cf_store_le64(w->q, w->acc);
    unsigned nb = w->na >> 3;
    w->q += nb;
    w->acc >>= nb * 8; /* nb <= 7 */
    w->na &= 7;
}

static inline void bw_fill(bit_writer *w, bool v, size_t k)
{
    uint64_t ones = v ? ~(uint64_t)0 : 0;
    if (k <= 56) {
        bw_put(w, ones & width_mask((unsigned)k), (unsigned)k);
        return;
    }
    unsigned head = (8 - w->na) & 7; /* to a byte boundary: then acc is empty */
    bw_put(w, ones & width_mask(head), head);
    k -= head;
    memset(w->q, v ? 0xff : 0, k >> 3);
    w->q += k >> 3;
    bw_put(w, ones & width_mask((unsigned)(k & 7)), (unsigned)(k & 7));
}

size_t cf_rle_dec_bitmap(cf_rle_decoder *d, uint8_t *bitmap, size_t n)
{
    if (d->width != 1)
        return cf_rle_dec_get_bits(d, bitmap, 0, n);
    bit_writer w = {bitmap, 0, 0};
    size_t done = 0;
    while (done < n) {
        if (d->rep_left == 0 && d->lit_left == 0) {
            /* Short runs without a branch on their kind (at 10% NULLs at
             * random the kinds alternate unpredictably): a one-byte indicator
             * and either a repeated run of at most 56 flags or a literal run of
             * at most 7 bytes, all in one 8-byte load. A literal run of at
             * most 7 bytes followed by a repeated run (the usual pair at 10%
             * NULLs) goes in one step: the pair after it starts len + 3
             * bytes on, known from the first indicator alone, so the steps
             * chain through one load per two runs instead of one per run.
             * Everything in locals: stores through w.q may alias *d. */
            const uint8_t *p = d->p;
            if (d->end - p >= 10) {
                const uint8_t *last = d->end - 10; /* p <= last: p[0..9] readable */
                size_t left = n - done;
                while (left > 0 && p <= last) {
                    unsigned ind = p[0];
                    uint64_t word = cf_load_le64(p + 1);
                    unsigned len = ind >> 1;
                    if ((ind & 1) && len <= 7) {
                        /* p[1 + len], p[2 + len]: at most p[9] */
                        unsigned ind2 = p[1 + len];
                        unsigned k1 = len << 3, k2 = ind2 >> 1, k = k1 + k2;
                        /* ind2 even and k2 <= 56: a one-byte repeated-run
                         * indicator; k1 < left: the literal does not end the
                         * flags asked for (the decoder must then stop before
                         * the repeated run, as get_bits does) */
                        if ((ind2 & 1) == 0 && k <= 56 && k <= left && k1 < left) {
                            uint64_t rep = 0 - (uint64_t)(p[2 + len] != 0);
                            uint64_t bits = (word & width_mask(k1)) | (rep << k1);
                            bw_put(&w, bits & width_mask(k), k);
                            p += len + 3;
                            left -= k;
                            continue;
                        }
                    }
                    uint64_t lit = 0 - (uint64_t)(ind & 1);
                    unsigned k = len << (ind & 1 ? 3 : 0);
                    if (ind >= 0x80 || k > 56 || k > left)
                        break;
                    uint64_t rep = 0 - (uint64_t)((word & 0xff) != 0);
                    bw_put(&w, ((word & lit) | (rep & ~lit)) & width_mask(k), k);
                    p += 2 + (((size_t)len - 1) & (size_t)lit);
                    left -= k;
                }
                done = n - left;
            }
            d->p = p;
            if (done == n)
                break;
            /* The common case inline (a one-byte indicator, a repeated run's
             * value byte or a literal run all present); the rest by refill. */
            if (d->end - p >= 2 && p[0] < 0x80) {
                unsigned ind = p[0];
                if ((ind & 1) == 0) {
                    d->rep_value = p[1] != 0;
                    d->rep_left = ind >> 1;
                    d->p = p + 2;
                    continue;
                }
                size_t bytes = ind >> 1;
                if (bytes <= (size_t)(d->end - p - 1)) {
                    d->lit_p = p + 1;
                    d->lit_bit = 0;
                    d->lit_left = bytes * 8;
                    d->p = d->lit_end = p + 1 + bytes;
                    continue;
                }
            }
            if (!refill(d))
                break;
        }
        size_t want = n - done;
        if (d->rep_left > 0) {
            size_t k = d->rep_left < want ? (size_t)d->rep_left : want;
            bw_fill(&w, d->rep_value != 0, k);
            d->rep_left -= k;
            done += k;
        } else {
            size_t k = d->lit_left < want ? (size_t)d->lit_left : want;
            d->lit_left -= k;
            done += k;
            while (k > 0) {
                unsigned t = k < 56 ? (unsigned)k : 56;
                bw_put(&w, read_bits(d->lit_p, d->lit_end, d->lit_bit, t), t);
                d->lit_bit += t;
                k -= t;
            }
        }
    }
    return done;
}

/* Non-zero values among k literal values from the current position. */
static size_t count_literal_nonzero(const cf_rle_decoder *d, size_t k)
{
    const unsigned w = d->width;
    if (w == 1)
        return cf_bitmap_count(d->lit_p, (size_t)d->lit_bit, k);
    size_t nz = 0;
    if ((w & 7) == 0) {
        const size_t vb = w / 8;
        const uint8_t *q = d->lit_p + (d->lit_bit >> 3);
        for (size_t i = 0; i < k; i++, q += vb) {
            uint8_t any = 0;
            for (size_t j = 0; j < vb; j++)
                any |= q[j];
            nz += any != 0;
        }
        return nz;
    }
    uint64_t bit = d->lit_bit;
    for (size_t i = 0; i < k; i++, bit += w)
        nz += read_bits(d->lit_p, d->lit_end, bit, w) != 0;
    return nz;
}

size_t cf_rle_dec_skip(cf_rle_decoder *d, size_t n, size_t *nonzero)
{
    size_t done = 0, nz = 0;
    while (done < n && refill(d)) {
        size_t want = n - done;
        if (d->rep_left > 0) {
            size_t k = d->rep_left < want ? (size_t)d->rep_left : want;
            if (d->rep_value != 0)
                nz += k;
            d->rep_left -= k;
            done += k;
        } else {
            size_t k = d->lit_left < want ? (size_t)d->lit_left : want;
            if (nonzero)
                nz += count_literal_nonzero(d, k);
            d->lit_bit += (uint64_t)k * d->width;
            d->lit_left -= k;
            done += k;
        }
    }
    if (nonzero)
        *nonzero = nz;
    return done;
}

void cf_rle_index_extend(cf_buf *out, const uint8_t *data, size_t len, unsigned width, size_t n,
                         unsigned every, size_t upto, cf_rle_index_walk *w)
{
    if (every == 0)
        every = 1;
    if (w->done || w->off > len)
        return;
    cf_rle_decoder d;
    cf_rle_dec_init(&d, data + w->off, len - (size_t)w->off, width);
    while (w->index <= upto) {
        if (w->index >= n) {
            w->done = true;
            break;
        }
        /* Between runs the decoder's state is only its byte position. */
        cf_rle_checkpoint cp = {w->index, (uint64_t)(d.p - data)};
        if (!refill(&d)) {
            w->done = true;
            break;
        }
        if (w->runs++ % every == 0)
            cf_buf_append(out, &cp, sizeof cp);
        uint64_t k = d.rep_left > 0 ? d.rep_left : d.lit_left;
        if (k > n - w->index)
            k = n - w->index;
        w->index += k;
        /* refill already moved p past the run's value or literal bytes. */
        d.rep_left = 0;
        d.lit_left = 0;
    }
    w->off = (uint64_t)(d.p - data);
}

size_t cf_rle_index_build(cf_buf *out, const uint8_t *data, size_t len, unsigned width, size_t n,
                          unsigned every)
{
    cf_rle_index_walk w = {0, 0, 0, false};
    cf_rle_index_extend(out, data, len, width, n, every, SIZE_MAX, &w);
    return (size_t)w.index;
}

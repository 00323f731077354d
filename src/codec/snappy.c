/* Our own raw snappy decoder (google/snappy format_description.txt: a varint
 * of the uncompressed length, then elements), used for SNAPPY CFile blocks
 * and Parquet pages (compress.c). libsnappy's decoder was most of the time
 * of a scan of SNAPPY Parquet pages, for the reason lz4.c gives for liblz4:
 * PLAIN int64 pages compress to a few literal bytes, then a copy of 6 or 7
 * bytes at offset 8, per value; each copy's load spans bytes the previous
 * elements just stored, which the CPU cannot forward from its store buffer,
 * and libsnappy (1.1.9, Debian) also calls memmove for every copy. Here the
 * SSSE3 loop keeps the last 16 output bytes in a register and builds a copy
 * at offset <= 16 from it with one byte shuffle, so the output is only ever
 * stored, never reloaded (bench/PERFORMANCE-notes.md).
 *
 * Elements (tag byte t, t & 3 the kind):
 *   0 literal   length (t >> 2) + 1, or for t >> 2 = 60..63 the next 1..4
 *               bytes (little-endian) + 1; then that many bytes
 *   1 copy      length 4 + (t >> 2 & 7), offset (t >> 5) << 8 | next byte
 *   2 copy      length (t >> 2) + 1, offset the next 2 bytes (little-endian)
 *   3 copy      length (t >> 2) + 1, offset the next 4 bytes (little-endian)
 * A copy repeats the bytes `offset` back (1..bytes produced; it may overlap
 * itself). The payload is valid when its elements end exactly with the input
 * and produce exactly the promised length.
 *
 * Acceptance is exactly libsnappy's: whatever our loops refuse (every damaged
 * payload, and header forms we do not parse) goes to snappy_uncompress, which
 * has the last word; tests/codec/test_snappy_decode.c and
 * fuzz/fuzz_snappy_diff.c hold ours to it. Every store stays inside
 * [dst, dst + dst_len): the fast loop runs only while 80 bytes of output are
 * left (a copy is at most 64 bytes, and its 16-byte stores overshoot by < 16),
 * the careful step writes exact lengths.
 */
#include "snappy.h"

#include <string.h>

#include <snappy-c.h>

#include "util/cpu.h"

#if defined(__x86_64__) || defined(__i386__)
#define CF_SNAPPY_X86 1
#include <immintrin.h>
#endif

enum { TAG_MORE, TAG_DONE, TAG_FAIL };

static inline size_t load_le(const uint8_t *p, size_t n)
{
    size_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (size_t)p[i] << (8 * i);
    return v;
}

/* One element with every check: the start and the end of the payload, long
 * literals, 4-byte offsets and whatever the fast loop leaves. */
static inline int careful_tag(const uint8_t **ipp, uint8_t **opp, const uint8_t *iend, uint8_t *dst,
                              uint8_t *oend)
{
    const uint8_t *ip = *ipp;
    uint8_t *op = *opp;
    if (ip == iend)
        return op == oend ? TAG_DONE : TAG_FAIL;
    unsigned t = *ip++;
    size_t len, off;
    switch (t & 3) {
    case 0:
        len = t >> 2;
        if (len >= 60) {
            size_t nb = len - 59;
            if ((size_t)(iend - ip) < nb)
                return TAG_FAIL;
            len = load_le(ip, nb);
            ip += nb;
        }
        len += 1;
        if (len > (size_t)(iend - ip) || len > (size_t)(oend - op))
            return TAG_FAIL;
        memcpy(op, ip, len);
        *ipp = ip + len;
        *opp = op + len;
        return TAG_MORE;
    case 1:
        if (ip == iend)
            return TAG_FAIL;
        len = 4 + (t >> 2 & 7);
        off = (size_t)(t >> 5) << 8 | *ip++;
        break;
    case 2:
        if (iend - ip < 2)
            return TAG_FAIL;
        len = (t >> 2) + 1;
        off = load_le(ip, 2);
        ip += 2;
        break;
    default:
        if (iend - ip < 4)
            return TAG_FAIL;
        len = (t >> 2) + 1;
        off = load_le(ip, 4);
        ip += 4;
        break;
    }
    if (off - 1 >= (size_t)(op - dst) || len > (size_t)(oend - op)) /* 0, before the start */
        return TAG_FAIL;
    const uint8_t *m = op - off;
    if (off >= len) {
        memcpy(op, m, len);
    } else {
        for (size_t i = 0; i < len; i++)
            op[i] = m[i]; /* byte order matters: the copy overlaps itself */
    }
    *ipp = ip;
    *opp = op + len;
    return TAG_MORE;
}

static bool decode_portable(const uint8_t *ip, const uint8_t *iend, uint8_t *dst, size_t dst_len)
{
    uint8_t *op = dst;
    uint8_t *const oend = dst + dst_len;
    for (;;) {
        int r = careful_tag(&ip, &op, iend, dst, oend);
        if (r != TAG_MORE)
            return r == TAG_DONE;
    }
}

#ifdef CF_SNAPPY_X86
/* Byte shuffles (pshufb masks; 0x80 gives a zero byte), as in lz4.c:
 * lo[s], hi[s]: bytes s..s+15 of the 32-byte pair (a, b), as
 *               shuffle(a, lo[s]) | shuffle(b, hi[s]), s = 0..16;
 * rep[o]:       the last o bytes of a register repeated from its start
 *               (the first 16 bytes of a copy at offset o < 16). */
static _Alignas(16) uint8_t shift_lo[17][16], shift_hi[17][16], rep[16][16];

/* What the fast loop needs of a tag byte, so that it needs no branch on the
 * kind: offset = (next 4 bytes & off_mask) | off_hi (0 for a literal). Eight
 * bytes, so that &tags[t] is one addressing mode: the loop's critical path is
 * ip -> tag -> tags[tag].adv -> ip, and a 12-byte entry put two LEAs on it
 * (by latency ~13 cycles per element instead of ~11; measured: uncached seeks
 * of short strings -13%). */
typedef struct tag_info {
    uint8_t len;       /* bytes produced */
    uint8_t adv;       /* input bytes of the element (tag, offset, literal) */
    uint8_t lit;       /* 1: a literal */
    uint8_t slow;      /* 1: longer than 16 bytes or a 4-byte offset: the careful step */
    uint16_t off_mask; /* 0xff, 0xffff or 0 (a literal) */
    uint16_t off_hi;   /* a 1-byte-offset copy's high bits, (t >> 5) << 8 */
} tag_info;
_Static_assert(sizeof(tag_info) == 8, "tag_info: one scaled index");
static tag_info tags[256];

static void init_tables(void)
{
    for (int s = 0; s <= 16; s++)
        for (int i = 0; i < 16; i++) {
            shift_lo[s][i] = (uint8_t)(i + s < 16 ? i + s : 0x80);
            shift_hi[s][i] = (uint8_t)(i + s >= 16 ? i + s - 16 : 0x80);
            if (s < 16)
                rep[s][i] = (uint8_t)(s ? 16 - s + i % s : 0x80);
        }
    for (unsigned t = 0; t < 256; t++) {
        tag_info *e = &tags[t];
        switch (t & 3) {
        case 0:
            e->len = (uint8_t)((t >> 2) + 1);
            e->adv = (uint8_t)(e->len + 1);
            e->lit = 1;
            e->slow = (t >> 2) + 1 > 16;
            break;
        case 1:
            e->len = (uint8_t)(4 + (t >> 2 & 7));
            e->adv = 2;
            e->off_mask = 0xff;
            e->off_hi = (uint16_t)((t >> 5) << 8);
            break;
        case 2:
            e->len = (uint8_t)((t >> 2) + 1);
            e->adv = 3;
            e->off_mask = 0xffff;
            e->slow = (t >> 2) + 1 > 16;
            break;
        default: e->slow = 1; break;
        }
    }
}

#define SSSE3 __attribute__((target("ssse3")))

/* The last 16 bytes of (h, v) after appending s bytes of v to h. */
SSSE3 static inline __m128i append(__m128i h, __m128i v, size_t s)
{
    return _mm_or_si128(_mm_shuffle_epi8(h, _mm_load_si128((const __m128i *)shift_lo[s])),
                        _mm_shuffle_epi8(v, _mm_load_si128((const __m128i *)shift_hi[s])));
}

SSSE3 static bool decode_ssse3(const uint8_t *ip, const uint8_t *iend, uint8_t *dst, size_t dst_len)
{
    uint8_t *op = dst;
    uint8_t *const oend = dst + dst_len;
    /* In the fast loop an element starts 20+ bytes before the input end (its
     * tag, offset and a 16-byte literal load fit) and 80+ before the output
     * end (16-byte stores fit), so the only check left is a copy's offset. */
    const uint8_t *const ilimit = iend - ip > 20 ? iend - 20 : ip;
    uint8_t *const olimit = dst_len > 80 ? oend - 80 : dst;
    for (;;) {
        if (ip < ilimit && op < olimit && op - dst >= 16) {
            __m128i h = _mm_loadu_si128((const __m128i *)(op - 16)); /* the last 16 bytes */
            while (ip < ilimit && op < olimit) {
                /* Literals and copies of <= 16 bytes with 1- or 2-byte
                 * offsets take one path without a branch on the kind (the
                 * kinds alternate unpredictably): 16 bytes come from the input
                 * (literal), from the output (copy at offset >= 16) or from
                 * the register (copy at offset < 16, which overlaps itself). */
                const tag_info *e = &tags[ip[0]];
                if (e->slow)
                    break;
                uint32_t w;
                memcpy(&w, ip + 1, 4);
                size_t off = (w & e->off_mask) | e->off_hi, len = e->len;
                /* A copy's offset is 1..bytes produced; a literal's 0 passes as 1
                 * (one test: a branch on the kind would be mispredicted). */
                if ((off | e->lit) - 1 >= (size_t)(op - dst))
                    return false;
                size_t near = off - 1 < 15; /* a copy at offset 1..15 */
                const uint8_t *from = (near | e->lit) ? ip + 1 : op - off;
                __m128i v = _mm_loadu_si128((const __m128i *)from);
                __m128i p = _mm_shuffle_epi8(h, _mm_load_si128((const __m128i *)rep[off & 15]));
                __m128i m = _mm_set1_epi32(-(int32_t)near);
                v = _mm_or_si128(_mm_and_si128(m, p), _mm_andnot_si128(m, v));
                _mm_storeu_si128((__m128i *)op, v);
                h = append(h, v, len);
                op += len;
                ip += e->adv;
            }
        }
        int r = careful_tag(&ip, &op, iend, dst, oend);
        if (r != TAG_MORE)
            return r == TAG_DONE;
    }
}
#endif

typedef bool (*decode_fn)(const uint8_t *, const uint8_t *, uint8_t *, size_t);
static const cf_cpu_kernel kernels[] = {
#ifdef CF_SNAPPY_X86
    {"ssse3", CF_CPU_SSSE3, (cf_cpu_fn)decode_ssse3, init_tables},
#endif
    {"portable", 0, (cf_cpu_fn)decode_portable, NULL},
};
static cf_cpu_dispatch decoder = CF_CPU_DISPATCH(kernels);

const char *cf_snappy_impl(void)
{
    return cf_cpu_resolve(&decoder)->name;
}

/* The length preamble when it is a varint32 of at most 5 bytes: its end. */
static const uint8_t *preamble(const uint8_t *p, const uint8_t *end, uint64_t *len)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 35 && p < end; shift += 7) {
        unsigned c = *p++;
        v |= (uint64_t)(c & 0x7f) << shift;
        if (c < 0x80) {
            if (v > UINT32_MAX)
                return NULL;
            *len = v;
            return p;
        }
    }
    return NULL;
}

bool cf_snappy_decode_exact(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
    decode_fn decode = (decode_fn)cf_cpu_resolve(&decoder)->fn;
    uint64_t claimed;
    const uint8_t *ip = preamble(src, src + src_len, &claimed);
    if (ip != NULL && claimed == dst_len && decode(ip, src + src_len, dst, dst_len))
        return true;
    /* Damage, or a form our loops do not take: libsnappy decides. */
    size_t want;
    if (snappy_uncompressed_length((const char *)src, src_len, &want) != SNAPPY_OK ||
        want != dst_len)
        return false;
    char one;
    size_t out_len = dst_len;
    return snappy_uncompress((const char *)src, src_len, dst_len ? (char *)dst : &one, &out_len) ==
               SNAPPY_OK &&
           out_len == dst_len;
}

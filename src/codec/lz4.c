/* Our own LZ4 block decoder (the LZ4 block format: sequences of a token, literal
 * length, literals, 2-byte offset, match length), used for bitshuffle chunks
 * and LZ4 codec blocks (compress.c). Two weak spots of liblz4's safe decoder
 * made it the slowest step of decoding:
 *
 * - Long matches at short offsets (the zero and one runs of bitshuffled
 *   planes, RLE-like data): liblz4 copies them 8 bytes at a time, each copy
 *   reading the bytes the previous one just stored. We replicate a
 *   short-period pattern with wide stores instead.
 * - Many short sequences whose match starts in bytes just written (PLAIN
 *   sorted int64: one literal byte, then 7 bytes at offset 8, every 8 bytes).
 *   Each match's load then spans two stores still in flight, which the CPU
 *   cannot forward: ~30 cycles a sequence. The SSSE3 loop keeps the last 16
 *   output bytes in a register and builds a match at offset <= 16 from it
 *   with one byte shuffle, so the output is only ever stored, never reloaded
 *   (3x liblz4 on such blocks, bench/PERFORMANCE-notes.md).
 *
 * It accepts a subset of what liblz4's LZ4_decompress_safe accepts when asked
 * for exactly dst_len bytes (everything liblz4's compressor writes), with
 * liblz4 itself as the fallback for the rest: the last sequence is literals
 * only and ends both buffers; every other sequence has its literals end at
 * least 12 bytes before the output end and 8 before the input end; a match
 * ends at least 5 bytes before the output end, and its offset is 1..bytes
 * produced. It writes up to CF_LZ4_SLACK bytes past dst + dst_len (scratch the
 * caller provides) and never reads outside [src, src + src_len).
 */
#include "lz4.h"

#include <limits.h>
#include <string.h>

#include <lz4.h>

#include "util/cpu.h"

#if defined(__x86_64__) || defined(__i386__)
#define CF_LZ4_X86 1
#include <immintrin.h>
#endif

enum { SEQ_MORE, SEQ_DONE, SEQ_FAIL };

/* One sequence with every check: the start and end of a block, long lengths
 * and whatever the fast loop leaves. *ipp points at the token. */
static inline int careful_seq(const uint8_t **ipp, uint8_t **opp, const uint8_t *iend, uint8_t *dst,
                              uint8_t *oend)
{
    const uint8_t *ip = *ipp;
    uint8_t *op = *opp;
    if (ip == iend)
        return SEQ_FAIL;
    unsigned tok = *ip++;
    size_t lit = tok >> 4;
    if (lit == 15) {
        unsigned c;
        do {
            if (ip == iend)
                return SEQ_FAIL;
            c = *ip++;
            lit += c;
        } while (c == 255);
    }
    if (lit > (size_t)(iend - ip) || lit > (size_t)(oend - op))
        return SEQ_FAIL;
    if (lit <= 32 && iend - ip >= 32)
        memcpy(op, ip, 32); /* op + 32 <= oend + 32: inside the slack */
    else
        memcpy(op, ip, lit);
    ip += lit;
    op += lit;
    if ((size_t)(oend - op) < 12 || (size_t)(iend - ip) < 8)
        return ip == iend && op == oend ? SEQ_DONE : SEQ_FAIL; /* must be the last sequence */
    size_t off = (size_t)ip[0] | (size_t)ip[1] << 8;
    ip += 2;
    if (off == 0 || off > (size_t)(op - dst))
        return SEQ_FAIL;
    size_t ml = tok & 15;
    if (ml == 15) {
        unsigned c;
        do {
            if (ip == iend)
                return SEQ_FAIL;
            c = *ip++;
            ml += c;
        } while (c == 255);
    }
    ml += 4;
    if (ml > (size_t)(oend - op) - 5) /* oend - op >= 12 here */
        return SEQ_FAIL;
    const uint8_t *m = op - off;
    uint8_t *const cpy = op + ml;
    if (off >= 16) {
        /* Steps of 16 read only bytes already written (m + 16 <= op at
         * each step); most matches are done after one or two. */
        memcpy(op, m, 16);
        if (ml > 16) {
            memcpy(op + 16, m + 16, 16);
            if (ml > 32) {
                uint8_t *q = op + 32;
                m += 32;
                if (off >= 32) {
                    for (; q < cpy; q += 32, m += 32)
                        memcpy(q, m, 32);
                } else {
                    for (; q < cpy; q += 16, m += 16)
                        memcpy(q, m, 16);
                }
            }
        }
    } else if (off >= 8 && ml <= 16) {
        memcpy(op, m, 8);
        memcpy(op + 8, m + 8, 8); /* off >= 8: reads written bytes */
    } else {
        /* Period-off pattern: write its first 32 bytes, then repeat them at
         * a stride that is a multiple of off (overshoot lands in the slack
         * or is overwritten by the next sequence). */
        if (off < 8) {
            for (unsigned i = 0; i < 8; i++)
                op[i] = m[i]; /* byte order matters: the copy overlaps */
            const size_t st8 = 8 - 8 % off;
            uint64_t v;
            memcpy(&v, op, 8);
            for (uint8_t *q = op + st8; q < op + 32; q += st8)
                memcpy(q, &v, 8);
        } else {
            for (unsigned i = 0; i < 32; i += 8)
                memcpy(op + i, m + i, 8); /* off >= 8: reads written bytes */
        }
        if (ml > 32) {
            uint8_t pat[32];
            memcpy(pat, op, 32);
            const size_t st = 32 - 32 % off;
            for (uint8_t *q = op + st; q < cpy; q += st)
                memcpy(q, pat, 32);
        }
    }
    *ipp = ip;
    *opp = cpy;
    return SEQ_MORE;
}

static bool decode_portable(const uint8_t *ip, size_t src_len, uint8_t *dst, size_t dst_len)
{
    const uint8_t *const iend = ip + src_len;
    uint8_t *op = dst;
    uint8_t *const oend = dst + dst_len;
    for (;;) {
        int r = careful_seq(&ip, &op, iend, dst, oend);
        if (r != SEQ_MORE)
            return r == SEQ_DONE;
    }
}

#ifdef CF_LZ4_X86
/* Byte shuffles (pshufb masks; 0x80 gives a zero byte):
 * lo[s], hi[s]: bytes s..s+15 of the 32-byte pair (a, b), as
 *               shuffle(a, lo[s]) | shuffle(b, hi[s]), s = 0..16;
 * rep[o]:       the last o bytes of a register repeated from its start
 *               (the first 16 bytes of a match at offset o <= 16). */
static _Alignas(16) uint8_t shift_lo[17][16], shift_hi[17][16], rep[17][16];

static void init_tables(void)
{
    for (int s = 0; s <= 16; s++)
        for (int i = 0; i < 16; i++) {
            shift_lo[s][i] = (uint8_t)(i + s < 16 ? i + s : 0x80);
            shift_hi[s][i] = (uint8_t)(i + s >= 16 ? i + s - 16 : 0x80);
            rep[s][i] = (uint8_t)(s ? 16 - s + i % s : 0x80);
        }
}

#define SSSE3 __attribute__((target("ssse3")))

/* The last 16 bytes of (h, v) after appending s bytes of v to h. */
SSSE3 static inline __m128i append(__m128i h, __m128i v, size_t s)
{
    return _mm_or_si128(_mm_shuffle_epi8(h, _mm_load_si128((const __m128i *)shift_lo[s])),
                        _mm_shuffle_epi8(v, _mm_load_si128((const __m128i *)shift_hi[s])));
}

SSSE3 static bool decode_ssse3(const uint8_t *ip, size_t src_len, uint8_t *dst, size_t dst_len)
{
    const uint8_t *const iend = ip + src_len;
    uint8_t *op = dst;
    uint8_t *const oend = dst + dst_len;
    /* In the fast loop a sequence starts 32+ bytes before the input end and
     * 40+ before the output end: its literals (<= 14) can be loaded and stored
     * 16 bytes at a time, it cannot be the last sequence, and a match of <= 16
     * bytes ends 10+ bytes before the output end, so every check that is left
     * is the offset's. */
    const uint8_t *const ilimit = src_len > 32 ? iend - 32 : ip;
    uint8_t *const olimit = dst_len > 40 ? oend - 40 : dst;
    for (;;) {
        if (ip < ilimit && op < olimit && op - dst >= 16) {
            __m128i h = _mm_loadu_si128((const __m128i *)(op - 16)); /* the last 16 bytes */
            while (ip < ilimit && op < olimit) {
                unsigned t = *ip;
                if (t >= 0xf0) /* long literal run */
                    break;
                size_t lit = t >> 4;
                __m128i l = _mm_loadu_si128((const __m128i *)(ip + 1));
                _mm_storeu_si128((__m128i *)op, l);
                h = append(h, l, lit);
                ip += 1 + lit;
                op += lit;
                size_t off = (size_t)ip[0] | (size_t)ip[1] << 8;
                ip += 2;
                if (off - 1 >= (size_t)(op - dst)) /* 0, or before the start */
                    return false;
                size_t ml = (t & 15) + 4;
                if (ml <= 16) {
                    __m128i p = off <= 16
                                    ? _mm_shuffle_epi8(h, _mm_load_si128((const __m128i *)rep[off]))
                                    : _mm_loadu_si128((const __m128i *)(op - off));
                    _mm_storeu_si128((__m128i *)op, p);
                    h = append(h, p, ml);
                    op += ml;
                    continue;
                }
                if (ml == 19) {
                    unsigned c;
                    do {
                        if (ip == iend)
                            return false;
                        c = *ip++;
                        ml += c;
                    } while (c == 255);
                }
                if (ml > (size_t)(oend - op) - 5) /* oend - op > 26 here */
                    return false;
                uint8_t *const cpy = op + ml;
                if (off >= 16) { /* each load reads bytes already stored */
                    const uint8_t *m = op - off;
                    for (uint8_t *q = op; q < cpy; q += 16, m += 16)
                        _mm_storeu_si128((__m128i *)q, _mm_loadu_si128((const __m128i *)m));
                } else { /* the pattern, at a stride that is a multiple of off */
                    __m128i p = _mm_shuffle_epi8(h, _mm_load_si128((const __m128i *)rep[off]));
                    const size_t st = 16 - 16 % off;
                    for (uint8_t *q = op; q < cpy; q += st)
                        _mm_storeu_si128((__m128i *)q, p);
                }
                op = cpy; /* overshoot (< 16) lands in the slack or is rewritten */
                h = _mm_loadu_si128((const __m128i *)(op - 16));
            }
        }
        int r = careful_seq(&ip, &op, iend, dst, oend);
        if (r != SEQ_MORE)
            return r == SEQ_DONE;
    }
}
#endif

typedef bool (*decode_fn)(const uint8_t *, size_t, uint8_t *, size_t);
static const cf_cpu_kernel kernels[] = {
#ifdef CF_LZ4_X86
    {"ssse3", CF_CPU_SSSE3, (cf_cpu_fn)decode_ssse3, init_tables},
#endif
    {"portable", 0, (cf_cpu_fn)decode_portable, NULL},
};
static cf_cpu_dispatch decoder = CF_CPU_DISPATCH(kernels);

const char *cf_lz4_impl(void)
{
    return cf_cpu_resolve(&decoder)->name;
}

bool cf_lz4_decode_exact(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
    decode_fn decode = (decode_fn)cf_cpu_resolve(&decoder)->fn;
    /* liblz4 takes only the one-byte block 00 for an empty output (elsewhere
     * it ignores the last token's match bits); fuzz_lz4_diff found "02". */
    if (dst_len == 0)
        return src_len == 1 && src[0] == 0;
    if (decode(src, src_len, dst, dst_len))
        return true;
    /* The fast paths refuse a few unusual but legal block endings (and every
     * damaged block); liblz4 has the last word, so acceptance is exactly its. */
    if (src_len > INT32_MAX || dst_len > INT32_MAX)
        return false;
    int n = LZ4_decompress_safe((const char *)src, (char *)dst, (int)src_len, (int)dst_len);
    return n >= 0 && (size_t)n == dst_len;
}

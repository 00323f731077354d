/* bitshuffle's bit transpose (format Appendix B) and the LZ4 framing of
 * bitshuffle 0.3.5 compress_lz4 (format §8.5.2), which Kudu's BIT_SHUFFLE
 * blocks carry as their payload.
 *
 * Payload layout for N elements of s bytes (N a multiple of 8), chunks of
 * B = cf_bshuf_chunk_elems(s) elements and a last chunk of N mod B:
 *
 *   | offset | size | field                                              |
 *   |--------|------|----------------------------------------------------|
 *   | 0      | 4    | L, big-endian: length of this chunk's LZ4 block     |
 *   | 4      | L    | LZ4 block of the transposed chunk (chunk * s bytes) |
 *   | 4 + L  | ...  | the next chunk, to the end of the payload           |
 *
 * Transposed chunk of n elements: 8*s bit planes of n/8 bytes; plane 8j+b
 * holds bit b of byte j of every element, element i at bit i of the plane
 * (LSB-first). The portable code works a group of 8 elements at a time with an
 * 8x8 bit-matrix transpose in a 64-bit word; the AVX2 code in
 * bitshuffle_avx2.c and, for unshuffling, the AVX-512 + GFNI code in
 * bitshuffle_avx512.c are picked once at run time and produce equal bytes.
 * LZ4 blocks are decoded by our own decoder (cf_lz4_decode_exact, lz4.c) and encoded by
 * liblz4.
 */
#include "bitshuffle.h"

#include <inttypes.h>
#include <stdbool.h>
#include <limits.h>
#include <string.h>

#include <lz4.h>

#include "bitshuffle_impl.h"
#include "util/cpu.h"
#include "util/endian.h"
#include "util/error.h"

/* bitshuffle's default block: 8 KiB of elements, in multiples of 8, >= 128. */
#define CHUNK_TARGET_BYTES CF_BSHUF_CHUNK_BYTES
#define CHUNK_MIN_ELEMS 128u
/* Larger elements would make chunks (and our stack buffer) exceed 8 KiB. */
#define MAX_ELEM_SIZE 64u

/* ---- portable transpose ------------------------------------------------------------- */

/* Transpose an 8x8 bit matrix held as 8 bytes (row r = byte r, column c = bit
 * c): afterwards byte c bit r is the former byte r bit c. Self-inverse. */
static inline uint64_t transpose8x8(uint64_t x)
{
    uint64_t t;
    t = (x ^ (x >> 7)) & 0x00aa00aa00aa00aaull;
    x ^= t ^ (t << 7);
    t = (x ^ (x >> 14)) & 0x0000cccc0000ccccull;
    x ^= t ^ (t << 14);
    t = (x ^ (x >> 28)) & 0x00000000f0f0f0f0ull;
    x ^= t ^ (t << 28);
    return x;
}

/* One 8x8 bit block from one layout to the other: 8 bytes gathered from in
 * every in_step bytes, transposed, scattered to out every out_step bytes.
 * Shuffling and unshuffling are both this (transpose8x8 is self-inverse),
 * with the element stride and the plane stride swapped. */
static inline void transpose_block(const uint8_t *in, size_t in_step, uint8_t *out, size_t out_step)
{
    uint64_t x = 0;
    for (unsigned k = 0; k < 8; k++)
        x |= (uint64_t)in[k * in_step] << (8 * k);
    x = transpose8x8(x);
    for (unsigned k = 0; k < 8; k++)
        out[k * out_step] = (uint8_t)(x >> (8 * k));
}

/* Groups [g0, g1): byte j of elements 8g..8g+7 (s bytes apart) to byte g of
 * planes 8j..8j+7 (nb bytes apart), or back when unshuffling. Inline: each
 * direction compiles to its own loop (1% fewer instructions than the two
 * hand-written loops it replaced). */
static inline void transpose_groups(const uint8_t *src, uint8_t *dst, size_t n, size_t s, size_t g0,
                                    size_t g1, bool unshuffle)
{
    if (g0 >= g1)
        return; /* the SIMD paths' empty tails: before any set-up */
    const size_t nb = n / 8;
    /* byte j of group g: element side at g * 8s + j, plane side at g + j * 8nb */
    const size_t eg = 8 * s, ej = 1, pg = 1, pj = 8 * nb;
    const size_t in_g = unshuffle ? pg : eg, in_j = unshuffle ? pj : ej;
    const size_t out_g = unshuffle ? eg : pg, out_j = unshuffle ? ej : pj;
    const size_t in_step = unshuffle ? nb : s, out_step = unshuffle ? s : nb;
    for (size_t g = g0; g < g1; g++) {
        const uint8_t *in = src + g * in_g;
        uint8_t *out = dst + g * out_g;
        for (size_t j = 0; j < s; j++, in += in_j, out += out_j)
            transpose_block(in, in_step, out, out_step);
    }
}

void cf_bitshuffle_groups(const void *in, void *out, size_t n, size_t elem_size, size_t g0,
                          size_t g1)
{
    transpose_groups(in, out, n, elem_size, g0, g1, false);
}

void cf_bitunshuffle_groups(const void *in, void *out, size_t n, size_t elem_size, size_t g0,
                            size_t g1)
{
    transpose_groups(in, out, n, elem_size, g0, g1, true);
}

void cf_bitshuffle_portable(const void *in, void *out, size_t n, size_t elem_size)
{
    cf_bitshuffle_groups(in, out, n, elem_size, 0, n / 8);
}

void cf_bitunshuffle_portable(const void *in, void *out, size_t n, size_t elem_size)
{
    cf_bitunshuffle_groups(in, out, n, elem_size, 0, n / 8);
}

/* ---- run-time dispatch -------------------------------------------------------------- */

typedef void (*transpose_fn)(const void *, void *, size_t, size_t);

static const cf_cpu_kernel shufflers[] = {
#ifdef CF_BITSHUFFLE_X86
    {"avx2", CF_CPU_AVX2, (cf_cpu_fn)cf_bitshuffle_avx2, NULL},
#endif
    {"portable", 0, (cf_cpu_fn)cf_bitshuffle_portable, NULL},
};
static const cf_cpu_kernel unshufflers[] = {
#ifdef CF_BITSHUFFLE_X86
    {"avx512", CF_CPU_AVX512F | CF_CPU_AVX512BW | CF_CPU_AVX512VBMI | CF_CPU_GFNI,
     (cf_cpu_fn)cf_bitunshuffle_avx512, NULL},
    {"avx2", CF_CPU_AVX2, (cf_cpu_fn)cf_bitunshuffle_avx2, NULL},
#endif
    {"portable", 0, (cf_cpu_fn)cf_bitunshuffle_portable, NULL},
};
static cf_cpu_dispatch shuffler = CF_CPU_DISPATCH(shufflers);
static cf_cpu_dispatch unshuffler = CF_CPU_DISPATCH(unshufflers);

void cf_bitshuffle(const void *in, void *out, size_t n, size_t elem_size)
{
    ((transpose_fn)cf_cpu_resolve(&shuffler)->fn)(in, out, n, elem_size);
}

void cf_bitunshuffle(const void *in, void *out, size_t n, size_t elem_size)
{
    ((transpose_fn)cf_cpu_resolve(&unshuffler)->fn)(in, out, n, elem_size);
}

const char *cf_bitshuffle_impl(void)
{
    /* "avx2", "avx512" (unshuffle only), "avx2+avx512" or "portable" */
    const char *s = cf_cpu_resolve(&shuffler)->name, *u = cf_cpu_resolve(&unshuffler)->name;
    if (strcmp(s, u) == 0 || strcmp(s, "portable") == 0)
        return u;
    return "avx2+avx512";
}

/* ---- LZ4 framing (format §8.5.2) ---------------------------------------------------- */

size_t cf_bshuf_chunk_elems(size_t elem_size)
{
    if (elem_size == 0)
        return CHUNK_MIN_ELEMS;
    size_t b = CHUNK_TARGET_BYTES / elem_size / 8 * 8;
    return b < CHUNK_MIN_ELEMS ? CHUNK_MIN_ELEMS : b;
}

cf_status cf_bshuf_compress_lz4(const void *in, size_t n, size_t elem_size, cf_buf *out,
                                cf_error *err)
{
    CF_CHECK(elem_size >= 1 && elem_size <= MAX_ELEM_SIZE, err, CF_EINVAL,
             "bitshuffle: element size %zu not in 1..%u", elem_size, MAX_ELEM_SIZE);
    CF_CHECK(n % 8 == 0, err, CF_EINVAL, "bitshuffle: %zu elements is not a multiple of 8", n);
    _Alignas(64) uint8_t tmp[CHUNK_TARGET_BYTES];
    const uint8_t *src = in;
    const size_t chunk = cf_bshuf_chunk_elems(elem_size);
    for (size_t done = 0; done < n;) {
        size_t k = n - done < chunk ? n - done : chunk;
        size_t bytes = k * elem_size; /* <= 8192 */
        cf_bitshuffle(src + done * elem_size, tmp, k, elem_size);
        int bound = LZ4_compressBound((int)bytes);
        size_t start = out->len;
        uint8_t *dst = cf_buf_extend(out, 4 + (size_t)bound);
        CF_CHECK(dst != NULL, err, CF_ENOMEM, "bitshuffle: out of memory for %zu bytes",
                 4 + (size_t)bound);
        int lz = LZ4_compress_default((const char *)tmp, (char *)dst + 4, (int)bytes, bound);
        if (lz <= 0) {
            out->len = start;
            CF_FAIL(err, CF_EINVAL, "bitshuffle: lz4 failed on a %zu-byte chunk", bytes);
        }
        cf_store_be32(dst, (uint32_t)lz);
        out->len = start + 4 + (size_t)lz;
        done += k;
    }
    return CF_OK;
}

cf_status cf_bshuf_index_lz4(const uint8_t *src, size_t src_len, size_t n, size_t elem_size,
                             uint32_t *chunk_off, size_t *nchunks, cf_error *err)
{
    CF_CHECK(elem_size >= 1 && elem_size <= MAX_ELEM_SIZE, err, CF_EINVAL,
             "bitshuffle: element size %zu not in 1..%u", elem_size, MAX_ELEM_SIZE);
    CF_CHECK(n % 8 == 0, err, CF_EINVAL, "bitshuffle: %zu elements is not a multiple of 8", n);
    CF_CHECK(src_len <= UINT32_MAX, err, CF_ECORRUPT, "bitshuffle: %zu-byte payload too long",
             src_len);
    const size_t chunk = cf_bshuf_chunk_elems(elem_size);
    size_t off = 0, idx = 0;
    for (size_t done = 0; done < n; idx++) {
        size_t k = n - done < chunk ? n - done : chunk;
        CF_CHECK(src_len - off >= 4, err, CF_ECORRUPT,
                 "bitshuffle: chunk %zu length cut off at payload offset %zu of %zu", idx, off,
                 src_len);
        uint32_t lz = cf_load_be32(src + off);
        CF_CHECK(lz <= src_len - off - 4 && lz <= INT_MAX, err, CF_ECORRUPT,
                 "bitshuffle: chunk %zu claims %" PRIu32 " bytes, %zu left", idx, lz,
                 src_len - off - 4);
        chunk_off[idx] = (uint32_t)off;
        off += 4 + (size_t)lz;
        done += k;
    }
    CF_CHECK(off == src_len, err, CF_ECORRUPT, "bitshuffle: %zu trailing bytes after %zu elements",
             src_len - off, n);
    *nchunks = idx;
    return CF_OK;
}

cf_status cf_bshuf_lz4_chunk(const uint8_t *src, size_t src_len, size_t k, size_t elem_size,
                             uint8_t *scratch, cf_error *err)
{
    size_t bytes = k * elem_size;
    CF_CHECK(bytes <= CF_BSHUF_CHUNK_BYTES && k % 8 == 0 && src_len >= 4, err, CF_EINVAL,
             "bitshuffle: bad chunk of %zu elements", k);
    uint32_t lz = cf_load_be32(src);
    CF_CHECK(lz <= src_len - 4, err, CF_ECORRUPT, "bitshuffle: chunk claims %" PRIu32 " bytes", lz);
    CF_CHECK(cf_lz4_decode_exact(src + 4, lz, scratch, bytes), err, CF_ECORRUPT,
             "bitshuffle: chunk does not decode to %zu bytes", bytes);
    return CF_OK;
}

cf_status cf_bshuf_decompress_chunk(const uint8_t *src, size_t src_len, void *out, size_t k,
                                    size_t elem_size, uint8_t *scratch, cf_error *err)
{
    CF_TRY(cf_bshuf_lz4_chunk(src, src_len, k, elem_size, scratch, err));
    cf_bitunshuffle(scratch, out, k, elem_size);
    return CF_OK;
}

void cf_bshuf_extract(const uint8_t *t, size_t k, size_t elem_size, size_t i, uint8_t *out)
{
    const size_t nb = k / 8, byte = i / 8;
    const unsigned bit = (unsigned)(i % 8);
    for (size_t j = 0; j < elem_size; j++) {
        const uint8_t *p = t + 8 * j * nb + byte; /* plane 8j + b at p + b * nb */
        unsigned v = 0;
        for (unsigned b = 0; b < 8; b++)
            v |= (unsigned)((p[b * nb] >> bit) & 1u) << b;
        out[j] = (uint8_t)v;
    }
}

cf_status cf_bshuf_decompress_lz4(const uint8_t *src, size_t src_len, void *out, size_t n,
                                  size_t elem_size, cf_error *err)
{
    CF_CHECK(elem_size >= 1 && elem_size <= MAX_ELEM_SIZE, err, CF_EINVAL,
             "bitshuffle: element size %zu not in 1..%u", elem_size, MAX_ELEM_SIZE);
    CF_CHECK(n % 8 == 0, err, CF_EINVAL, "bitshuffle: %zu elements is not a multiple of 8", n);
    _Alignas(64) uint8_t tmp[CF_BSHUF_SCRATCH_BYTES];
    uint8_t *dst = out;
    const size_t chunk = cf_bshuf_chunk_elems(elem_size);
    size_t off = 0, idx = 0;
    for (size_t done = 0; done < n; idx++) {
        size_t k = n - done < chunk ? n - done : chunk;
        size_t bytes = k * elem_size;
        CF_CHECK(src_len - off >= 4, err, CF_ECORRUPT,
                 "bitshuffle: chunk %zu length cut off at payload offset %zu of %zu", idx, off,
                 src_len);
        uint32_t lz = cf_load_be32(src + off);
        off += 4;
        CF_CHECK(lz <= src_len - off && lz <= INT_MAX, err, CF_ECORRUPT,
                 "bitshuffle: chunk %zu claims %" PRIu32 " bytes, %zu left", idx, lz,
                 src_len - off);
        CF_CHECK(cf_lz4_decode_exact(src + off, lz, tmp, bytes), err, CF_ECORRUPT,
                 "bitshuffle: chunk %zu at payload offset %zu does not decode to %zu bytes", idx,
                 off - 4, bytes);
        cf_bitunshuffle(tmp, dst + done * elem_size, k, elem_size);
        off += lz;
        done += k;
    }
    CF_CHECK(off == src_len, err, CF_ECORRUPT, "bitshuffle: %zu trailing bytes after %zu elements",
             src_len - off, n);
    return CF_OK;
}

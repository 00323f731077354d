/* Group varint: four u32 values per group (format §1.6).
 *
 *   offset      size        field
 *   0           1           selector: (len(a)-1)<<6 | (len(b)-1)<<4 | (len(c)-1)<<2 | (len(d)-1)
 *   1           len(a)      a, little-endian, 1..4 bytes
 *   1+len(a)    len(b)      b
 *   ...         len(c)      c
 *   ...         len(d)      d
 *
 * A group is 5..17 bytes. A sequence of n values is ceil(n/4) groups, the last
 * one padded with zeros (each padding value costs one byte).
 */
#include "group_varint.h"

#include "alloc.h"
#include "cpu.h"
#include "endian.h"

size_t cf_gvint_encode_group(uint8_t *dst, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    size_t la = cf_gvint_value_len(a), lb = cf_gvint_value_len(b);
    size_t lc = cf_gvint_value_len(c), ld = cf_gvint_value_len(d);
    dst[0] = (uint8_t)(((la - 1) << 6) | ((lb - 1) << 4) | ((lc - 1) << 2) | (ld - 1));
    /* Whole 4-byte stores are safe: the last one starts at most 13 bytes in and
     * ends at byte 17, the room the caller promises. Bytes past the value's
     * length are overwritten by the next store or lie beyond the group. */
    size_t o = 1;
    cf_store_le32(dst + o, a);
    o += la;
    cf_store_le32(dst + o, b);
    o += lb;
    cf_store_le32(dst + o, c);
    o += lc;
    cf_store_le32(dst + o, d);
    return o + ld;
}

const uint8_t *cf_gvint_decode_group(const uint8_t *p, const uint8_t *end, uint32_t out[4])
{
    if (p >= end)
        return NULL;
    unsigned sel = p[0];
    size_t l[4] = {(sel >> 6) + 1, ((sel >> 4) & 3) + 1, ((sel >> 2) & 3) + 1, (sel & 3) + 1};
    size_t avail = (size_t)(end - p);
    if (avail >= CF_GVINT_MAX_GROUP)
        return cf_gvint_decode_group_17(p, out); /* every 4-byte load stays inside */
    if (1 + l[0] + l[1] + l[2] + l[3] > avail)
        return NULL;
    /* Near the end: read exactly the bytes the selector names, never beyond. */
    const uint8_t *q = p + 1;
    for (int i = 0; i < 4; i++) {
        uint32_t v = 0;
        for (size_t k = 0; k < l[i]; k++)
            v |= (uint32_t)q[k] << (8 * k);
        out[i] = v;
        q += l[i];
    }
    return q;
}

void cf_gvint_append(cf_buf *b, const uint32_t *v, size_t n)
{
    if (n == 0)
        return;
    size_t groups = n / 4 + (n % 4 != 0), room;
    if (!cf_mul_ok(groups, CF_GVINT_MAX_GROUP, &room)) {
        b->oom = true;
        return;
    }
    if (!cf_buf_reserve(b, room))
        return;
    uint8_t *dst = b->data + b->len, *start = dst;
    size_t i = 0;
    for (; n - i >= 4; i += 4)
        dst += cf_gvint_encode_group(dst, v[i], v[i + 1], v[i + 2], v[i + 3]);
    if (i < n) {
        uint32_t pad[4] = {0, 0, 0, 0};
        for (size_t k = 0; i + k < n; k++)
            pad[k] = v[i + k];
        dst += cf_gvint_encode_group(dst, pad[0], pad[1], pad[2], pad[3]);
    }
    b->len += (size_t)(dst - start);
}

/* ---- many groups at once ------------------------------------------------------------ */

/* The portable loop, and an SSSE3 one: a group's selector byte picks a 16-byte
 * shuffle that moves its value bytes into four zero-extended u32 lanes (one load,
 * one pshufb, one store per group), where the scalar loop takes four masked loads. */
static const uint8_t *groups_portable(const uint8_t *p, const uint8_t *end, uint32_t *out,
                                      size_t groups, size_t *done)
{
    size_t g = 0;
    for (; g < groups && (size_t)(end - p) >= CF_GVINT_MAX_GROUP; g++)
        p = cf_gvint_decode_group_17(p, out + 4 * g);
    *done = g;
    return p;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

static uint8_t shuf[256][16]; /* filled once by build_shuf (the kernel's prepare) */
static uint8_t glen[256];     /* bytes of the group after its selector */

static void build_shuf(void)
{
    for (unsigned sel = 0; sel < 256; sel++) {
        unsigned off = 0;
        for (unsigned i = 0; i < 4; i++) {
            unsigned l = ((sel >> (6 - 2 * i)) & 3) + 1;
            for (unsigned j = 0; j < 4; j++)
                shuf[sel][4 * i + j] = j < l ? (uint8_t)(off + j) : 0x80;
            off += l;
        }
        glen[sel] = (uint8_t)off;
    }
}

__attribute__((target("ssse3"))) static const uint8_t *
groups_ssse3(const uint8_t *p, const uint8_t *end, uint32_t *out, size_t groups, size_t *done)
{
    size_t g = 0;
    /* 17 readable bytes: the selector and the 16-byte load after it */
    for (; g < groups && (size_t)(end - p) >= CF_GVINT_MAX_GROUP; g++) {
        unsigned sel = p[0];
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 1));
        __m128i m = _mm_loadu_si128((const __m128i *)(const void *)shuf[sel]);
        _mm_storeu_si128((__m128i *)(void *)(out + 4 * g), _mm_shuffle_epi8(v, m));
        p += 1 + glen[sel];
    }
    *done = g;
    return p;
}
#define CF_GVINT_SSSE3 1
#endif

typedef const uint8_t *(*groups_fn)(const uint8_t *, const uint8_t *, uint32_t *, size_t, size_t *);
static const cf_cpu_kernel kernels[] = {
#ifdef CF_GVINT_SSSE3
    {"ssse3", CF_CPU_SSSE3, (cf_cpu_fn)groups_ssse3, build_shuf},
#endif
    {"portable", 0, (cf_cpu_fn)groups_portable, NULL},
};
static cf_cpu_dispatch decoder = CF_CPU_DISPATCH(kernels);

const uint8_t *cf_gvint_decode_groups(const uint8_t *p, const uint8_t *end, uint32_t *out,
                                      size_t groups, size_t *done)
{
    return ((groups_fn)cf_cpu_resolve(&decoder)->fn)(p, end, out, groups, done);
}

const uint8_t *cf_gvint_decode_groups_portable(const uint8_t *p, const uint8_t *end, uint32_t *out,
                                               size_t groups, size_t *done)
{
    return groups_portable(p, end, out, groups, done);
}

/* Internal: group varint, four u32 values per group (format §1.6). */
#ifndef CF_UTIL_GROUP_VARINT_H
#define CF_UTIL_GROUP_VARINT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "buf.h"

#define CF_GVINT_MAX_GROUP 17

/* Encode one group at dst (room for 17 bytes); returns bytes written (5..17). */
size_t cf_gvint_encode_group(uint8_t *dst, uint32_t a, uint32_t b, uint32_t c, uint32_t d);
/* Bytes one value takes inside a group (1..4; 0 takes 1). */
static inline size_t cf_gvint_value_len(uint32_t v)
{
    return v < (1u << 8) ? 1 : v < (1u << 16) ? 2 : v < (1u << 24) ? 3 : 4;
}
/* Decode one group at p when at least CF_GVINT_MAX_GROUP (17) bytes are
 * readable from p, without checks; returns the end of the group. For tight
 * loops; everything else uses cf_gvint_decode_group. */
static inline const uint8_t *cf_gvint_decode_group_17(const uint8_t *p, uint32_t out[4])
{
    static const uint32_t mask[4] = {0xffu, 0xffffu, 0xffffffu, 0xffffffffu};
    unsigned sel = p[0];
    const uint8_t *q = p + 1;
    for (int i = 0; i < 4; i++) {
        unsigned l = (sel >> (6 - 2 * i)) & 3;
        uint32_t v;
        memcpy(&v, q, 4); /* little-endian host (util/endian.h) */
        out[i] = v & mask[l];
        q += l + 1;
    }
    return q;
}
/* Decode one group from [p, end); NULL if it does not fit. */
const uint8_t *cf_gvint_decode_group(const uint8_t *p, const uint8_t *end, uint32_t out[4]);
/* Decode up to `groups` groups from p into out (4 u32 each) while a group's 17
 * bytes are surely readable (end - p >= 17); *done = groups decoded. Returns the
 * end of the last one: the caller finishes near the end with cf_gvint_decode_group.
 * SIMD where the CPU has it; the _portable form is for tests. */
const uint8_t *cf_gvint_decode_groups(const uint8_t *p, const uint8_t *end, uint32_t *out,
                                      size_t groups, size_t *done);
const uint8_t *cf_gvint_decode_groups_portable(const uint8_t *p, const uint8_t *end, uint32_t *out,
                                               size_t groups, size_t *done);
/* Append n values as ceil(n/4) groups, the last one padded with zeros. */
void cf_gvint_append(cf_buf *b, const uint32_t *v, size_t n);

#endif

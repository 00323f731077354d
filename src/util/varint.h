/* Internal: unsigned LEB128 varints (format §1.3). */
#ifndef CF_UTIL_VARINT_H
#define CF_UTIL_VARINT_H

#include <stddef.h>
#include <stdint.h>

/* Write v at dst (room for 5 / 10 bytes); returns bytes written. */
size_t cf_varint32_encode(uint8_t *dst, uint32_t v);
size_t cf_varint64_encode(uint8_t *dst, uint64_t v);
/* Bytes cf_varint64_encode would write. */
size_t cf_varint64_len(uint64_t v);

/* Decode from [p, end). Returns the byte after the varint, or NULL when the
 * buffer ends first or the varint is longer than 5 (10) bytes. Like Kudu, bits
 * above 32 in the 5th byte of a varint32 are dropped. */
const uint8_t *cf_varint32_decode_any(const uint8_t *p, const uint8_t *end, uint32_t *out);
const uint8_t *cf_varint64_decode_any(const uint8_t *p, const uint8_t *end, uint64_t *out);

/* One-byte varints (lengths, counts: nearly all of them) inline, the rest
 * through the call: index and PREFIX entry walks decode one per probe. */
static inline const uint8_t *cf_varint32_decode(const uint8_t *p, const uint8_t *end, uint32_t *out)
{
    if (p != end && *p < 0x80) {
        *out = *p;
        return p + 1;
    }
    return cf_varint32_decode_any(p, end, out);
}

static inline const uint8_t *cf_varint64_decode(const uint8_t *p, const uint8_t *end, uint64_t *out)
{
    if (p != end && *p < 0x80) {
        *out = *p;
        return p + 1;
    }
    return cf_varint64_decode_any(p, end, out);
}

#endif

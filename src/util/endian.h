/* Internal: loads and stores of little- and big-endian integers from unaligned
 * bytes (format §1.1). memcpy compiles to a single move on x86-64. */
#ifndef CF_UTIL_ENDIAN_H
#define CF_UTIL_ENDIAN_H

#include <stdint.h>
#include <string.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "cfile assumes a little-endian host");

static inline uint16_t cf_load_le16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}
static inline uint32_t cf_load_le32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static inline uint64_t cf_load_le64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}
static inline void cf_store_le16(uint8_t *p, uint16_t v)
{
    memcpy(p, &v, 2);
}
static inline void cf_store_le32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}
static inline void cf_store_le64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}
static inline uint32_t cf_load_be32(const uint8_t *p)
{
    return __builtin_bswap32(cf_load_le32(p));
}
static inline uint64_t cf_load_be64(const uint8_t *p)
{
    return __builtin_bswap64(cf_load_le64(p));
}
static inline void cf_store_be32(uint8_t *p, uint32_t v)
{
    cf_store_le32(p, __builtin_bswap32(v));
}
static inline void cf_store_be64(uint8_t *p, uint64_t v)
{
    cf_store_le64(p, __builtin_bswap64(v));
}

#endif

/* XXH64 and the split-block bloom filter's block operations, shared by the
 * writer (bloom_write.c, writer_col.c) and the reader (bloom_read.c); see
 * bloom.h for the layout.
 *
 * XXH64 is written from the algorithm's description: four 64-bit lanes over
 * 32-byte stripes, then the tail in 8-, 4- and 1-byte steps, then the
 * avalanche.
 */
#include "bloom.h"

#include <cfile/parquet.h>

#include "util/endian.h"

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL
#define P4 0x85EBCA77C2B2AE63ULL
#define P5 0x27D4EB2F165667C5ULL

static inline uint64_t rotl(uint64_t x, unsigned r)
{
    return (x << r) | (x >> (64 - r));
}

static inline uint64_t lane(uint64_t acc, uint64_t in)
{
    acc += in * P2;
    return rotl(acc, 31) * P1;
}

static inline uint64_t merge(uint64_t h, uint64_t v)
{
    h ^= lane(0, v);
    return h * P1 + P4;
}

uint64_t cf_parquet_xxh64(const void *data, size_t len, uint64_t seed)
{
    const uint8_t *p = data, *end = p + len;
    uint64_t h;
    if (len >= 32) {
        uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
        while (end - p >= 32) {
            v1 = lane(v1, cf_load_le64(p));
            v2 = lane(v2, cf_load_le64(p + 8));
            v3 = lane(v3, cf_load_le64(p + 16));
            v4 = lane(v4, cf_load_le64(p + 24));
            p += 32;
        }
        h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
        h = merge(h, v1);
        h = merge(h, v2);
        h = merge(h, v3);
        h = merge(h, v4);
    } else {
        h = seed + P5;
    }
    h += (uint64_t)len;
    while (end - p >= 8) {
        h ^= lane(0, cf_load_le64(p));
        h = rotl(h, 27) * P1 + P4;
        p += 8;
    }
    if (end - p >= 4) {
        h ^= (uint64_t)cf_load_le32(p) * P1;
        h = rotl(h, 23) * P2 + P3;
        p += 4;
    }
    while (p < end) {
        h ^= (uint64_t)*p++ * P5;
        h = rotl(h, 11) * P1;
    }
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    h ^= h >> 32;
    return h;
}

static const uint32_t salt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                                 0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};

void cf_pq_bloom_insert(uint8_t *bits, size_t bytes, uint64_t hash)
{
    uint64_t z = bytes / 32;
    uint8_t *block = bits + (((hash >> 32) * z) >> 32) * 32;
    uint32_t key = (uint32_t)hash;
    for (unsigned i = 0; i < 8; i++) {
        uint32_t w = cf_load_le32(block + 4 * i);
        w |= 1u << ((key * salt[i]) >> 27);
        cf_store_le32(block + 4 * i, w);
    }
}

bool cf_pq_bloom_check(const uint8_t *bits, size_t bytes, uint64_t hash)
{
    uint64_t z = bytes / 32;
    const uint8_t *block = bits + (((hash >> 32) * z) >> 32) * 32;
    uint32_t key = (uint32_t)hash;
    for (unsigned i = 0; i < 8; i++)
        if (!(cf_load_le32(block + 4 * i) & (1u << ((key * salt[i]) >> 27))))
            return false;
    return true;
}

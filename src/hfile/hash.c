/* HBase's hash functions for Bloom filters (org.apache.hadoop.hbase.util.Hash
 * types 0 JENKINS, 1 MURMUR, 2 MURMUR3) and the compound Bloom bit probe.
 *
 * Quirk kept on purpose: HBase's MURMUR (MurmurHash2) folds the 1-3 tail bytes
 * in as *signed* Java bytes, so a tail byte >= 0x80 sign-extends into the
 * upper bits. Blooms written by HBase depend on it.
 *
 * Probe (BloomFilterUtil.contains): h1 = hash(key, 0), h2 = hash(key, h1);
 * for i < hash_count: bit = |(h1 + i*h2) mod bits| (Java int arithmetic);
 * bit b is set when byte[b >> 3] & (1 << (b & 7)).
 */
#include "internal.h"

#include <stdlib.h>

static inline uint32_t rotl32(uint32_t x, int r)
{
    return (x << r) | (x >> (32 - r));
}

static uint32_t murmur2(const uint8_t *p, size_t len, uint32_t seed)
{
    const uint32_t m = 0x5bd1e995u;
    uint32_t h = seed ^ (uint32_t)len;
    size_t n4 = len >> 2;
    for (size_t i = 0; i < n4; i++) {
        const uint8_t *q = p + 4 * i;
        uint32_t k = (uint32_t)q[0] | ((uint32_t)q[1] << 8) | ((uint32_t)q[2] << 16) |
                     ((uint32_t)q[3] << 24);
        k *= m;
        k ^= k >> 24;
        k *= m;
        h *= m;
        h ^= k;
    }
    const uint8_t *t = p + 4 * n4;
    size_t left = len & 3;
    if (left != 0) {
        if (left >= 3)
            h ^= (uint32_t)((int32_t)(int8_t)t[2] * 65536);
        if (left >= 2)
            h ^= (uint32_t)((int32_t)(int8_t)t[1] * 256);
        h ^= (uint32_t)(int32_t)(int8_t)t[0];
        h *= m;
    }
    h ^= h >> 13;
    h *= m;
    h ^= h >> 15;
    return h;
}

static uint32_t murmur3(const uint8_t *p, size_t len, uint32_t seed)
{
    const uint32_t c1 = 0xcc9e2d51u, c2 = 0x1b873593u;
    uint32_t h = seed;
    size_t end = len & ~(size_t)3;
    for (size_t i = 0; i < end; i += 4) {
        uint32_t k = (uint32_t)p[i] | ((uint32_t)p[i + 1] << 8) | ((uint32_t)p[i + 2] << 16) |
                     ((uint32_t)p[i + 3] << 24);
        k *= c1;
        k = rotl32(k, 15);
        k *= c2;
        h ^= k;
        h = rotl32(h, 13);
        h = h * 5 + 0xe6546b64u;
    }
    uint32_t k = 0;
    switch (len & 3) {
    case 3:
        k = (uint32_t)p[end + 2] << 16;
        /* fall through */
    case 2:
        k |= (uint32_t)p[end + 1] << 8;
        /* fall through */
    case 1:
        k |= p[end];
        k *= c1;
        k = rotl32(k, 15);
        k *= c2;
        h ^= k;
        break;
    default: break;
    }
    h ^= (uint32_t)len;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

/* Bob Jenkins' lookup3 hashlittle, as HBase's JenkinsHash computes it. */
#define JMIX(a, b, c)                                                                              \
    do {                                                                                           \
        a -= c;                                                                                    \
        a ^= rotl32(c, 4);                                                                         \
        c += b;                                                                                    \
        b -= a;                                                                                    \
        b ^= rotl32(a, 6);                                                                         \
        a += c;                                                                                    \
        c -= b;                                                                                    \
        c ^= rotl32(b, 8);                                                                         \
        b += a;                                                                                    \
        a -= c;                                                                                    \
        a ^= rotl32(c, 16);                                                                        \
        c += b;                                                                                    \
        b -= a;                                                                                    \
        b ^= rotl32(a, 19);                                                                        \
        a += c;                                                                                    \
        c -= b;                                                                                    \
        c ^= rotl32(b, 4);                                                                         \
        b += a;                                                                                    \
    } while (0)
#define JFINAL(a, b, c)                                                                            \
    do {                                                                                           \
        c ^= b;                                                                                    \
        c -= rotl32(b, 14);                                                                        \
        a ^= c;                                                                                    \
        a -= rotl32(c, 11);                                                                        \
        b ^= a;                                                                                    \
        b -= rotl32(a, 25);                                                                        \
        c ^= b;                                                                                    \
        c -= rotl32(b, 16);                                                                        \
        a ^= c;                                                                                    \
        a -= rotl32(c, 4);                                                                         \
        b ^= a;                                                                                    \
        b -= rotl32(a, 14);                                                                        \
        c ^= b;                                                                                    \
        c -= rotl32(b, 24);                                                                        \
    } while (0)

static uint32_t le_part(const uint8_t *p, size_t n)
{
    uint32_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint32_t)p[i] << (8 * i);
    return v;
}

static uint32_t jenkins(const uint8_t *p, size_t len, uint32_t seed)
{
    uint32_t a, b, c;
    a = b = c = 0xdeadbeefu + (uint32_t)len + seed;
    while (len > 12) {
        a += le_part(p, 4);
        b += le_part(p + 4, 4);
        c += le_part(p + 8, 4);
        JMIX(a, b, c);
        p += 12;
        len -= 12;
    }
    if (len == 0)
        return c;
    a += le_part(p, len < 4 ? len : 4);
    if (len > 4)
        b += le_part(p + 4, len - 4 < 4 ? len - 4 : 4);
    if (len > 8)
        c += le_part(p + 8, len - 8);
    JFINAL(a, b, c);
    return c;
}

int32_t cf_hfile_hash(uint32_t hash_type, const void *data, size_t len, int32_t seed)
{
    const uint8_t *p = data;
    switch (hash_type) {
    case CF_HFILE_HASH_JENKINS: return (int32_t)jenkins(p, len, (uint32_t)seed);
    case CF_HFILE_HASH_MURMUR3: return (int32_t)murmur3(p, len, (uint32_t)seed);
    default: return (int32_t)murmur2(p, len, (uint32_t)seed);
    }
}

bool cf_hfile_bloom_probe(uint32_t hash_type, uint32_t hash_count, const uint8_t *bits,
                          size_t nbytes, const void *key, size_t len)
{
    if (nbytes == 0 || nbytes > (size_t)INT32_MAX / 8)
        return true;
    int32_t nbits = (int32_t)(nbytes * 8);
    int32_t h1 = cf_hfile_hash(hash_type, key, len, 0);
    int32_t h2 = cf_hfile_hash(hash_type, key, len, h1);
    uint32_t comp = (uint32_t)h1;
    for (uint32_t i = 0; i < hash_count; i++) {
        int32_t r = (int32_t)comp % nbits;
        uint32_t bit = (uint32_t)abs(r);
        comp += (uint32_t)h2;
        if ((bits[bit >> 3] & (1u << (bit & 7))) == 0)
            return false;
    }
    return true;
}

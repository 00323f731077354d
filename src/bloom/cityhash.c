/* CityHash64 as bundled with Kudu (format Appendix A), written from the
 * specification's pseudocode and checked against its test vectors
 * (tests/bloom/test_cityhash.c).
 *
 *   input length   path
 *   0..16          short_hash   (three sub-cases: 0, 1..3, 4..8, 9..16)
 *   17..32         medium_hash
 *   33..64         large_hash
 *   65..           the 64-byte chunk loop, tail folded in before the loop
 *
 * All arithmetic is modulo 2^64; loads are little-endian at byte offsets. */
#include "cityhash.h"

#include "util/endian.h"

static const uint64_t K0 = 0xa5b85c5e198ed849ULL;
static const uint64_t K1 = 0x8d58ac26afe12e47ULL;
static const uint64_t K2 = 0xc47b6e9e3a970ed3ULL;
static const uint64_t K3 = 0xc70f6907e782aa0bULL;
static const uint64_t KMUL = 0xc6a4a7935bd1e995ULL;

static inline uint64_t ld64(const uint8_t *s, size_t off)
{
    return cf_load_le64(s + off);
}
static inline uint64_t ld32(const uint8_t *s, size_t off)
{
    return cf_load_le32(s + off);
}

/* Rotate right; r == 0 must not shift by 64 (undefined in C). */
static inline uint64_t ror(uint64_t v, unsigned r)
{
    return r == 0 ? v : (v >> r) | (v << (64 - r));
}

static inline uint64_t mix(uint64_t v)
{
    return v ^ (v >> 47);
}

/* Fold 128 bits to 64; `hi` is the first argument (Appendix A note). */
static inline uint64_t pair16(uint64_t hi, uint64_t lo)
{
    uint64_t a = (lo ^ hi) * KMUL;
    a ^= a >> 47;
    uint64_t b = (hi ^ a) * KMUL;
    b ^= b >> 47;
    return b * KMUL;
}

static uint64_t short_hash(const uint8_t *s, size_t n)
{
    if (n > 8) {
        uint64_t a = ld64(s, 0), b = ld64(s, n - 8);
        return pair16(a, ror(b + n, (unsigned)n)) ^ b;
    }
    if (n >= 4) {
        uint64_t a = ld32(s, 0);
        return pair16(n + (a << 3), ld32(s, n - 4));
    }
    if (n > 0) {
        uint32_t x = s[0], y = s[n >> 1], z = s[n - 1];
        uint64_t p = (uint32_t)(x + (y << 8));
        uint64_t q = (uint32_t)(n + (z << 2));
        return mix((p * K2) ^ (q * K3)) * K2;
    }
    return K2;
}

static uint64_t medium_hash(const uint8_t *s, size_t n)
{
    uint64_t a = ld64(s, 0) * K1;
    uint64_t b = ld64(s, 8);
    uint64_t c = ld64(s, n - 8) * K2;
    uint64_t d = ld64(s, n - 16) * K0;
    return pair16(ror(a - b, 43) + ror(c, 30) + d, a + ror(b ^ K3, 20) - c + n);
}

static uint64_t large_hash(const uint8_t *s, size_t n)
{
    uint64_t z = ld64(s, 24);
    uint64_t a = ld64(s, 0) + (n + ld64(s, n - 16)) * K0;
    uint64_t b = ror(a + z, 52);
    uint64_t c = ror(a, 37);
    a += ld64(s, 8);
    c += ror(a, 7);
    a += ld64(s, 16);
    uint64_t vf = a + z;
    uint64_t vs = b + ror(a, 31) + c;
    a = ld64(s, 16) + ld64(s, n - 32);
    z += ld64(s, n - 8);
    b = ror(a + z, 52);
    c = ror(a, 37);
    a += ld64(s, n - 24);
    c += ror(a, 7);
    a += ld64(s, n - 16);
    uint64_t wf = a + z;
    uint64_t ws = b + ror(a, 31) + c;
    uint64_t r = mix((vf + ws) * K2 + (wf + vs) * K0);
    return mix(r * K0 + vs) * K2;
}

typedef struct pair64 {
    uint64_t first, second;
} pair64;

static inline pair64 weak_at(const uint8_t *s, size_t p, uint64_t a, uint64_t b)
{
    uint64_t w = ld64(s, p), x = ld64(s, p + 8), y = ld64(s, p + 16), z = ld64(s, p + 24);
    a += w;
    b = ror(b + a + z, 51);
    uint64_t c = a;
    a += x + y;
    b += ror(a, 23);
    return (pair64){a + z, b + c};
}

uint64_t cf_cityhash64(const uint8_t *s, size_t n)
{
    if (n <= 16)
        return short_hash(s, n);
    if (n <= 32)
        return medium_hash(s, n);
    if (n <= 64)
        return large_hash(s, n);

    uint64_t x = ld64(s, n - 40);
    uint64_t y = ld64(s, n - 16) + ld64(s, n - 56);
    uint64_t z = pair16(ld64(s, n - 48) + n, ld64(s, n - 24));
    pair64 v = weak_at(s, n - 64, n, z);
    pair64 w = weak_at(s, n - 32, y + K1, x);
    x = x * K1 + ld64(s, 0);
    /* Only whole 64-byte chunks of the first n-1 bytes; the tail was folded
     * in above through the loads relative to n. */
    size_t chunks = ((n - 1) & ~(size_t)63) / 64;
    size_t p = 0;
    for (size_t i = 0; i < chunks; i++, p += 64) {
        x = ror(x + y + v.first + ld64(s, p + 8), 37) * K1;
        y = ror(y + v.second + ld64(s, p + 48), 42) * K1;
        x ^= w.second;
        y += v.first + ld64(s, p + 40);
        z = ror(z + w.first, 33) * K1;
        v = weak_at(s, p, v.second * K1, x + w.first);
        w = weak_at(s, p + 32, z + w.second, y + ld64(s, p + 16));
        uint64_t t = z;
        z = x;
        x = t;
    }
    return pair16(pair16(v.first, w.first) + mix(y) * K1 + z, pair16(v.second, w.second) + x);
}

/* Internal to the bloom layer: one bloom block (format §11.2, §11.3) and the
 * sizing of §11.4. The BloomFile writer and reader (bloomfile_*.c) and the tests
 * use these; the public API is include/cfile/bloom.h. */
#ifndef CF_BLOOM_BLOOM_H
#define CF_BLOOM_BLOOM_H

#include <cfile/bloom.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* fixed32 length + tag byte + a 5-byte varint: the longest header we write. */
#define CF_BLOOM_MAX_HEADER_LEN 10u

/* A parsed bloom block: a view into the block's bytes. */
typedef struct cf_bloom_block {
    const uint8_t *bitmap;
    size_t n_bits;     /* 8 * bitmap bytes, >= 8 */
    uint32_t n_hashes; /* 1..CF_BLOOM_MAX_HASHES */
} cf_bloom_block;

/* Write `fixed32 hdr_len | BloomBlockHeaderPB{num_hash_functions = k}` to dst
 * (at least CF_BLOOM_MAX_HEADER_LEN bytes); returns the bytes written. */
size_t cf_bloom_header_encode(uint8_t *dst, uint32_t k);

/* Parse a bloom block's logical bytes. CF_ECORRUPT when the header does not fit
 * the block, the protobuf is malformed or lacks num_hash_functions, k is 0 or
 * above CF_BLOOM_MAX_HASHES, or no bitmap bytes follow the header. */
cf_status cf_bloom_block_parse(cf_bloom_block *out, const uint8_t *data, size_t len, cf_error *err);

/* The bit a probe touches: x mod n_bits (Kudu masks for n_bits = 32768, which
 * gives the same number). */
static inline uint32_t cf_bloom_pick_bit(uint32_t x, size_t n_bits)
{
    return (n_bits & (n_bits - 1)) == 0 ? (uint32_t)(x & (n_bits - 1)) : (uint32_t)(x % n_bits);
}

/* Set the k bits of a key whose CityHash64 is h (format §11.3). */
static inline void cf_bloom_set(uint8_t *bitmap, size_t n_bits, uint32_t k, uint64_t h)
{
    uint32_t x = (uint32_t)h, step = (uint32_t)(h >> 32);
    for (uint32_t i = 0; i < k; i++, x += step) {
        uint32_t b = cf_bloom_pick_bit(x, n_bits);
        bitmap[b >> 3] |= (uint8_t)(1u << (b & 7));
    }
}

/* Are all k bits of h set? */
static inline bool cf_bloom_test(const cf_bloom_block *blk, uint64_t h)
{
    uint32_t x = (uint32_t)h, step = (uint32_t)(h >> 32);
    for (uint32_t i = 0; i < blk->n_hashes; i++, x += step) {
        uint32_t b = cf_bloom_pick_bit(x, blk->n_bits);
        if (!(blk->bitmap[b >> 3] & (1u << (b & 7))))
            return false;
    }
    return true;
}

/* cf_bloom_reader_open that takes `io` over: freed with the reader, or now on
 * failure. */
cf_status cf_bloom_reader_open_owned(cf_bloom_reader **out, cf_io *io,
                                     const cf_reader_options *opts, cf_error *err);

#endif

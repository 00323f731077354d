/* Internal: the split-block bloom filter of apache/parquet-format
 * BloomFilter.md, both directions (bloom.c). The hash is XXH64 with seed 0
 * (cf_parquet_xxh64, public) over a value's PLAIN bytes (BYTE_ARRAY: the
 * bytes without their length prefix).
 *
 * The filter is z blocks of 256 bits (eight 32-bit little-endian words). A
 * hash h picks block ((h >> 32) * z) >> 32; its low 32 bits, multiplied by
 * eight fixed odd salts, pick one bit (the top 5 bits of each product) in
 * each word. */
#ifndef CF_PARQUET_BLOOM_H
#define CF_PARQUET_BLOOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest bitset written or read (parquet-java's limit, BloomFilter.md). */
#define CF_PQ_BLOOM_MAX_BYTES ((size_t)128 << 20)

/* Requires: bytes a non-zero multiple of 32. */
void cf_pq_bloom_insert(uint8_t *bits, size_t bytes, uint64_t hash);
bool cf_pq_bloom_check(const uint8_t *bits, size_t bytes, uint64_t hash);

#endif

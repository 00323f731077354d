/* Kudu's CityHash64 (the older Google "gutil" variant; format Appendix A).
 * Its constants and mixing differ from the public CityHash releases: a public
 * CityHash library gives different hashes and would make every bloom probe of a
 * Kudu-written BloomFile wrong. */
#ifndef CF_BLOOM_CITYHASH_H
#define CF_BLOOM_CITYHASH_H

#include <stddef.h>
#include <stdint.h>

/* The 64-bit hash of n bytes at s (s may be NULL when n == 0). Pure function. */
uint64_t cf_cityhash64(const uint8_t *s, size_t n);

#endif

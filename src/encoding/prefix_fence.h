/* Internal: a PREFIX block's restart fence (prefix_fence.c), derived state a
 * block cache keeps with the block (encoding.h: saved_len / save / load_saved)
 * so that value seeks binary-search a small array instead of the block. */
#ifndef CF_ENCODING_PREFIX_FENCE_H
#define CF_ENCODING_PREFIX_FENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Blocks with fewer restarts gain nothing from a fence. */
#define CF_PREFIX_FENCE_MIN_RESTARTS 4

/* Bytes of the fence of a block with nrestarts restarts (after restart 0). */
size_t cf_prefix_fence_size(uint32_t nrestarts);

/* Build the fence of the PREFIX block data[0, len) into dst (size above):
 * entries from entries_off, restart array at entries_end, nrestarts restarts.
 * false (dst unspecified) unless every restart is sound (increasing offsets
 * inside the entries area, each an entry with shared == 0 and its bytes in
 * its run) and the restarts' values are in order: only then is a fence exact
 * (and the same answer as searching the block). */
bool cf_prefix_fence_build(uint8_t *dst, const uint8_t *data, size_t len, size_t entries_off,
                           size_t entries_end, uint32_t nrestarts);

/* Whether a fence of state_len bytes was built from a block of this shape
 * (cheap checks; the fence must come from these very bytes). */
bool cf_prefix_fence_fits(const uint8_t *fence, size_t state_len, size_t len, size_t entries_off,
                          uint32_t nrestarts);

/* The restarts left undecided for key[0, klen): restarts 1..*lo hold values
 * below the key, restarts after *hi values at or above it, and restarts in
 * (*lo, *hi] (usually none) must be compared with the key in the block.
 * So the last restart whose value is below the key is in [*lo, *hi].
 * data[0, len): the block (the entries the answer may start at are
 * prefetched). */
void cf_prefix_fence_range(const uint8_t *fence, const uint8_t *data, size_t len,
                           const uint8_t *key, size_t klen, uint32_t *lo, uint32_t *hi);

/* Restart k's offset (k <= nrestarts), checked when the fence was built. */
size_t cf_prefix_fence_restart(const uint8_t *fence, uint32_t k);

#endif

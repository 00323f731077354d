/* cfile: a shared block cache. Readers given one in cf_reader_options keep the
 * logical bytes of the data blocks they read (checksum verified, decompressed)
 * in it, with what loading them decoded (binary offsets, DICT codewords, null
 * flags), so repeated scans and seeks into the same blocks neither read,
 * check, decompress nor decode them again. Value seeks (key lookups) into a
 * BIT_SHUFFLE block also keep the block's seek index there (the first value of
 * each 8 KiB chunk), charged and evicted like a block. Blocks an mmap/memory io serves in
 * place uncompressed keep only that decoded state (and a checked mark): their
 * bytes already cost nothing.
 *
 * Call order:  create (shared by any number of readers, in any threads)* free
 * Ownership: the caller creates and frees the cache; readers, rowsets and
 * tables given one in their options borrow it. What must outlive what: cache >
 * every reader, rowset and table using it.
 * Thread-safe: every reader and iterator may use one cache at the same time.
 * Bounded: the bytes of the cached blocks and their decoded state (plus a
 * small per-entry charge) never exceed the capacity; the least recently used
 * blocks go first. A block larger than a shard's share of the capacity is
 * simply not cached. Blocks an iterator is still reading stay alive after
 * eviction until it moves on, outside the count (at most one block per
 * iterator).
 */
#ifndef CFILE_CACHE_H
#define CFILE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cf_cache cf_cache;

typedef struct cf_cache_stats {
    uint64_t hits;      /* lookups that found their block */
    uint64_t misses;    /* lookups that did not */
    uint64_t inserts;   /* blocks added */
    uint64_t evictions; /* blocks dropped to stay under the capacity */
    size_t entries;     /* blocks cached now */
    size_t bytes;       /* bytes charged now (<= capacity) */
    size_t capacity;    /* as created */
} cf_cache_stats;

/* Create a cache holding at most `capacity_bytes` (> 0; CF_EINVAL otherwise).
 * Caches of 16 MiB and more are split into 16 independently locked shards
 * (each with 1/16 of the capacity) so that threads rarely wait on each other;
 * smaller ones are one exact LRU list. Errors: CF_EINVAL, CF_ENOMEM. */
CF_API cf_status cf_cache_create(cf_cache **out, size_t capacity_bytes, cf_error *err);

/* NULL is a no-op.
 * REQUIRES: every reader, rowset and table using the cache has been freed. */
CF_API void cf_cache_free(cf_cache *c);

/* A consistent snapshot of the counters (summed over the shards). */
CF_API void cf_cache_get_stats(const cf_cache *c, cf_cache_stats *out);

#ifdef __cplusplus
}
#endif
#endif

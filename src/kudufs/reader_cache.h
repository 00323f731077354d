/* Internal to src/kudu: the block readers an fs keeps open between scans
 * (reader_cache.c), so that scanning one tablet again, or another tablet of the
 * same fs, does not open every block, read its footer and its dictionary again, as
 * a cfile table keeps its rowsets' readers from open to free.
 *
 * An entry is one block's io and CFile reader. A scan takes an entry out (it is
 * then the scan's alone, as a freshly opened one would be) and gives it back when
 * the rowset is done; only entries not in use are kept, at most the bound, least
 * recently given back dropped first. So what a scan holds open is what it held
 * before; the cache adds at most its bound of descriptors (or mappings) to that. */
#ifndef CF_KUDU_READER_CACHE_H
#define CF_KUDU_READER_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/io.h>
#include <cfile/reader.h>

typedef struct cf_kudu_reader_cache cf_kudu_reader_cache;

/* max: cf_kudu_fs_options.reader_cache (0 = from RLIMIT_NOFILE); NULL when out of
 * memory. */
cf_kudu_reader_cache *cf_kudu_reader_cache_new(size_t max);
void cf_kudu_reader_cache_free(cf_kudu_reader_cache *c); /* NULL ok */

/* Take block `id`'s entry (opened with `mmap`) out of the cache: true with *io and
 * *r set, false when none is kept. */
bool cf_kudu_reader_cache_take(cf_kudu_reader_cache *c, uint64_t id, bool mmap, cf_io **io,
                               cf_reader **r);
/* Give an entry back (NULL c: freed at once). Past the bound the least recently
 * given back entry is freed. */
void cf_kudu_reader_cache_give(cf_kudu_reader_cache *c, uint64_t id, bool mmap, cf_io *io,
                               cf_reader *r);
/* Free every kept entry: when opening a block ran out of descriptors. */
void cf_kudu_reader_cache_drop_all(cf_kudu_reader_cache *c);
/* Entries kept now, and the bound now (for tests). */
size_t cf_kudu_reader_cache_count(cf_kudu_reader_cache *c);
size_t cf_kudu_reader_cache_bound(const cf_kudu_reader_cache *c);

#endif

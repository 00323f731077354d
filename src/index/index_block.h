/* Internal: one B-tree index block (format §9.1): entries of (key, child block
 * pointer), an entry offset array, an IndexBlockTrailerPB and its length. */
#ifndef CF_INDEX_BLOCK_H
#define CF_INDEX_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/types.h>

#include "util/buf.h"

typedef struct cf_block_ptr {
    uint64_t off;
    uint32_t size;
} cf_block_ptr;

/* Builder. Call order: init (add* estimated_size? finish reset)* dispose */
typedef struct cf_index_builder {
    bool leaf;
    cf_buf entries;
    cf_buf offsets; /* fixed32 per entry */
    cf_buf first_key;
    cf_buf out;
    size_t count;
} cf_index_builder;

void cf_ib_init(cf_index_builder *b, bool leaf);
void cf_ib_dispose(cf_index_builder *b);
void cf_ib_reset(cf_index_builder *b);
void cf_ib_add(cf_index_builder *b, cf_slice key, cf_block_ptr child);
/* Kudu's estimate: entry bytes + 4 * entries + 16 (format §9.3). */
size_t cf_ib_estimated_size(const cf_index_builder *b);
/* Key of the first entry (valid until reset). */
cf_slice cf_ib_first_key(const cf_index_builder *b);
/* Serialize; the slice is valid until reset. CF_ENOMEM possible. */
cf_status cf_ib_finish(cf_index_builder *b, cf_slice *out, cf_error *err);

/* Reader over one block's logical bytes (borrowed). */
typedef struct cf_index_block {
    const uint8_t *data;
    size_t len;
    uint32_t count;
    bool leaf;
    size_t offsets_pos; /* where the fixed32 entry offsets start */
} cf_index_block;

/* Validate the trailer and offset array (Kudu's checks, format §9.1). */
cf_status cf_ib_parse(cf_index_block *ib, const uint8_t *data, size_t len, cf_error *err);
/* Entry i (< count): key (a view into the block) and child pointer. */
cf_status cf_ib_entry(const cf_index_block *ib, size_t i, cf_slice *key, cf_block_ptr *child,
                      cf_error *err);
/* Index of the last entry whose key <= target (memcmp order, shorter prefix
 * first). CF_ENOTFOUND when every key is greater (or the block is empty). */
cf_status cf_ib_seek_at_or_before(const cf_index_block *ib, cf_slice target, size_t *idx,
                                  cf_error *err);
/* Index of the last entry whose key < target (strictly). CF_ENOTFOUND when
 * every key is >= target. */
cf_status cf_ib_seek_before(const cf_index_block *ib, cf_slice target, size_t *idx, cf_error *err);

/* Key windows of a block that is searched more than once (the B-tree root on
 * every seek of an iterator): the prefix the keys share (but the first, which
 * writers shorten) and, per entry, the next 8 key bytes as a big-endian
 * integer, zero padded. A search then runs
 * over 8-byte integers without branches and compares whole keys only where
 * windows tie. Only for blocks whose every entry reads soundly and whose keys
 * are in order, so the answers are the plain search's. */
typedef struct cf_ib_windows {
    const uint64_t *w;            /* count entries */
    const cf_slice *keys;         /* count entries, decoded (views into the block) */
    const cf_block_ptr *children; /* count entries, decoded */
    const uint8_t *common;        /* the prefix entries 1.. share: in the block */
    size_t common_len;
    bool increasing; /* strictly: an at-or-before search has one answer */
} cf_ib_windows;

/* Bytes of memory windows for ib take (8-byte aligned). */
size_t cf_ib_windows_size(const cf_index_block *ib);
/* Fill dst (cf_ib_windows_size bytes, 8-byte aligned) and *out; false (and
 * nothing usable) when an entry is unsound, the keys are out of order, or
 * the block has no entries. */
bool cf_ib_windows_build(const cf_index_block *ib, void *dst, cf_ib_windows *out);
/* cf_ib_seek_before (strict) or cf_ib_seek_at_or_before through the windows
 * built for ib: same answers, same errors; entry *idx is then
 * wv->keys[*idx], wv->children[*idx] (what cf_ib_entry would decode). */
cf_status cf_ib_seek_windowed(const cf_index_block *ib, const cf_ib_windows *wv, cf_slice target,
                              bool strict, size_t *idx, cf_error *err);

#endif

/* Internal: the B-tree over data blocks (format §9.3, §9.4), used for both the
 * positional and the value index. Blocks are framed and stored by the cfile
 * layer through callbacks, so this layer knows nothing of files. */
#ifndef CF_INDEX_BTREE_H
#define CF_INDEX_BTREE_H

#include "index_block.h"

/* Frame and append one index block's logical bytes; returns its pointer. */
typedef cf_status (*cf_block_write_fn)(void *ctx, const uint8_t *data, size_t len,
                                       cf_block_ptr *out, cf_error *err);
/* Read one block's logical bytes (checksum verified, decompressed). The result
 * is either a view owned by ctx's io (mmap) or placed in `scratch`; it stays
 * valid until scratch is reused. */
typedef cf_status (*cf_block_read_fn)(void *ctx, cf_block_ptr ptr, cf_buf *scratch, cf_slice *out,
                                      cf_error *err);

/* Deepest tree we follow; deeper (or cyclic) trees are corrupt. */
#define CF_BTREE_MAX_DEPTH 24

typedef struct cf_btree_writer cf_btree_writer;

/* Call order: create append* finish free */
cf_status cf_btree_writer_create(cf_btree_writer **out, size_t index_block_size,
                                 cf_block_write_fn write, void *ctx, cf_error *err);
/* Add the entry of one data block (in file order). May write index blocks. */
cf_status cf_btree_writer_append(cf_btree_writer *w, cf_slice key, cf_block_ptr child,
                                 cf_error *err);
/* Flush every level bottom-up and write the root (an empty leaf if no entry). */
cf_status cf_btree_writer_finish(cf_btree_writer *w, cf_block_ptr *root, cf_error *err);
void cf_btree_writer_free(cf_btree_writer *w);

typedef struct cf_btree_iter cf_btree_iter;

/* Call order: create ((seek_at_or_before | seek_to_first) (next | ptr | key)*)* free */
cf_status cf_btree_iter_create(cf_btree_iter **out, cf_block_ptr root, cf_block_read_fn read,
                               void *ctx, cf_error *err);
/* Position at the leaf entry with the last key <= target. CF_ENOTFOUND when
 * the target is smaller than every key (or the tree is empty). */
cf_status cf_btree_iter_seek_at_or_before(cf_btree_iter *it, cf_slice target, cf_error *err);
/* Position at the leaf entry with the last key < target (strictly): the block
 * where a value seek must start when values may repeat across blocks.
 * CF_ENOTFOUND when no key is smaller. */
cf_status cf_btree_iter_seek_before(cf_btree_iter *it, cf_slice target, cf_error *err);
/* Position at the first leaf entry. CF_ENOTFOUND for an empty tree. */
cf_status cf_btree_iter_seek_to_first(cf_btree_iter *it, cf_error *err);
/* Advance to the next leaf entry. CF_ENOTFOUND after the last. */
cf_status cf_btree_iter_next(cf_btree_iter *it, cf_error *err);
/* Current entry (valid after a successful seek/next). */
cf_block_ptr cf_btree_iter_ptr(const cf_btree_iter *it);
cf_slice cf_btree_iter_key(const cf_btree_iter *it);
/* Is there a leaf entry after the current one? (without moving) */
bool cf_btree_iter_has_next(const cf_btree_iter *it);
void cf_btree_iter_free(cf_btree_iter *it);
/* How many times a block's key windows were built (tests: a seek pattern
 * that leaves and re-enters large blocks must not decode them whole each time). */
uint64_t cf_btree_iter_windows_built(const cf_btree_iter *it);

/* Walk the whole tree calling visit for each index block (level 0 = root), for
 * `cfile info` and `verify`. */
typedef cf_status (*cf_btree_visit_fn)(void *vctx, unsigned level, cf_block_ptr ptr,
                                       const cf_index_block *ib, cf_error *err);
cf_status cf_btree_walk(cf_block_ptr root, cf_block_read_fn read, void *ctx,
                        cf_btree_visit_fn visit, void *vctx, cf_error *err);

#endif

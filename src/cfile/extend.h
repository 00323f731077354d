/* Internal: what the BloomFile and DeltaFile layers (src/bloom, src/delta)
 * need from a CFile beyond the public API. Both are CFiles whose value index
 * is keyed differently from an ordinary column (format §11.5, §12.5). */
#ifndef CF_CFILE_EXTEND_H
#define CF_CFILE_EXTEND_H

#include <cfile/iter.h>
#include <cfile/writer.h>

#include "index/btree.h"
#include "util/buf.h"
#include "util/error.h"

/* ---- writing ------------------------------------------------------------------------- */

/* Derive the value-index key of a block from its first value (memory form).
 * Replaces `out`. */
typedef void (*cf_validx_key_fn)(void *ctx, const void *value, cf_buf *out);

/* Key the value index with fn(first value of each block) instead of the
 * memcomparable value (DeltaFile: the DeltaKey prefix, format §12.5). Turns off
 * the writer's sort check: the caller orders its values. Requires write_validx;
 * call before the first append (CF_ESTATE otherwise). */
cf_status cf_writer_set_validx_key_fn(cf_writer *w, cf_validx_key_fn fn, void *ctx, cf_error *err);

/* Append a block of raw logical bytes that holds no values (BloomFile pages,
 * format §11.5): framed like any block (compression, checksum), entered in the
 * value index under first_key, shortened against the previous raw block's
 * last_key when optimize_index_keys is on. num_values is unchanged and the
 * positional index gets no entry. Not mixable with value appends. */
cf_status cf_writer_append_raw_block(cf_writer *w, const uint8_t *data, size_t len,
                                     cf_slice first_key, cf_slice last_key, cf_error *err);

/* ---- reading ------------------------------------------------------------------------- */

/* Find, through the value index, the block whose entry is the last one with a
 * key <= key (at or before), or the first block when every key is greater
 * (*before_all = true). *ptr is its pointer. CF_ENOTFOUND for an empty index;
 * CF_EINVAL without a value index. */
cf_status cf_reader_find_validx_block(const cf_reader *r, cf_slice key, cf_block_ptr *ptr,
                                      bool *before_all, cf_error *err);

/* Position an iterator at row 0 of the data block the value index leads to for
 * `key` (as cf_reader_find_validx_block); later batches continue block after
 * block along the value index. CF_ENOTFOUND for an empty file. */
cf_status cf_iter_seek_validx_block(cf_iter *it, cf_slice key, cf_error *err);

/* ---- opening over an io the caller opened ----------------------------------------- */

/* cf_reader_open that takes `io` over: freed with the reader, or now on failure
 * (a rowset opens its files relative to its directory's descriptor). */
cf_status cf_reader_open_owned(cf_reader **out, cf_io *io, const cf_reader_options *opts,
                               cf_error *err);

/* ---- verifying ---------------------------------------------------------------------- */

/* One verification under way (cf_reader_verify, cf_bloom_reader_verify): the
 * file, the caller's callback, the damage so far. The fields after `first`
 * describe the block about to be reported (cfile info --blocks, --svg): set
 * just before cf_verify_report, which clears them. */
typedef struct cf_verifier {
    const cf_reader *r;
    cf_verify_fn fn;
    void *ctx;
    size_t damaged;
    cf_sticky first; /* the first damage found, returned by cf_verify_done */
    uint32_t logical_size;
    int dict_mode;
    uint32_t index_entries;
    unsigned index_level;
} cf_verifier;

/* Report one block of `kind` at p holding rows [first, first + rows) to the
 * callback; st != CF_OK counts it as damaged (e saying why). */
void cf_verify_report(cf_verifier *v, const char *kind, cf_block_ptr p, uint64_t first,
                      uint64_t rows, cf_status st, const cf_error *e);
/* Walk the index tree at root, reporting each of its blocks as `kind`; a tree
 * that cannot be walked is reported once, at its root, and its status returned. */
cf_status cf_verify_index(cf_verifier *v, cf_block_ptr root, const char *kind);
/* The end of a verification: *damaged (may be NULL) gets the count, and the
 * first damage is returned. */
cf_status cf_verify_done(cf_verifier *v, size_t *damaged, cf_error *err);

#endif

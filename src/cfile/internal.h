/* Internal to the cfile layer: the file frame (header, footer, block framing),
 * value-index keys, and the reader struct shared by reader.c, iter.c and
 * loaded_block.c. */
#ifndef CF_CFILE_INTERNAL_H
#define CF_CFILE_INTERNAL_H

#include <cfile/iter.h>
#include <cfile/reader.h>
#include <cfile/writer.h>

#include "encoding/encoding.h"
#include "frame.h"
#include "index/btree.h"
#include "util/buf.h"

#define CF_MAGIC_V1 "kuducfil"
#define CF_MAGIC_V2 "kuducfl2"
#define CF_MAGIC_LEN 8
/* Kudu's limit on the header and footer protobuf lengths (format §2.2, §2.3). */
#define CF_MAX_PB_LEN 65536u

/* ---- value-index keys (format §1.8, §9.2) ------------------------------------------ */

/* Does the type have Kudu's memcomparable key encoding? */
bool cf_key_supported(cf_type t);
/* Replace `out` with the memcomparable encoding of one value (memory form). */
void cf_key_encode(cf_type t, const void *value, cf_buf *out);
/* The same for a fixed-width (not binary) type, into out; returns its length. */
size_t cf_key_encode_fixed(cf_type t, const void *value, uint8_t out[16]);
/* Kudu's key shortening: the shortest prefix of cur still > prev. */
size_t cf_key_shortened_len(cf_slice prev, cf_slice cur);

/* ---- the shared block cache (cache.c, include/cfile/cache.h) ------------------------ */

/* A key space of its own for one reader, so stale blocks of a freed reader are
 * never served to a new one. */
uint64_t cf_cache_new_file_id(cf_cache *c);
/* Find the block (file_id, off) of `size` stored bytes. On a hit the entry is
 * pinned (release it with cf_cache_release), *out shows its logical bytes and
 * *is_view says the entry only records that the block, served in place by the
 * io, passed its checksum (out is then empty). NULL on a miss. */
cf_cache_entry *cf_cache_lookup(cf_cache *c, uint64_t file_id, uint64_t off, uint32_t size,
                                cf_slice *out, bool *is_view);
/* Insert a copy of data[0, len) (or, with is_view, a "checksum verified" mark
 * without bytes) and return it pinned with *out showing the cached bytes. NULL
 * when the block is too large for the cache or memory is short. */
cf_cache_entry *cf_cache_insert(cf_cache *c, uint64_t file_id, uint64_t off, uint32_t size,
                                const uint8_t *data, size_t len, bool is_view, cf_slice *out);
/* An entry of len bytes for the block (file_id, off), not yet in the cache,
 * for the caller to fill at *data (a read straight into the cache's memory):
 * then cf_cache_publish, or cf_cache_discard. NULL as for cf_cache_insert. */
cf_cache_entry *cf_cache_reserve(cf_cache *c, uint64_t file_id, uint64_t off, uint32_t size,
                                 size_t len, uint8_t **data);
/* Put a reserved entry in the cache holding its first len bytes (at most the
 * reserved length): returned pinned as cf_cache_insert's, *out its bytes. */
cf_cache_entry *cf_cache_publish(cf_cache *c, cf_cache_entry *e, size_t len, cf_slice *out);
/* Free a reserved entry never published. */
void cf_cache_discard(cf_cache_entry *e);
/* Drop a pin; NULL is a no-op. */
void cf_cache_release(cf_cache *c, cf_cache_entry *e);
/* State derived from a cached block's bytes (a cf_block_aux for data blocks),
 * kept with the entry so that the next iterator to load the block skips that
 * decode; NULL until set. The pointer stays valid while e is pinned. */
const void *cf_cache_entry_aux(const cf_cache_entry *e);
/* Offer aux (cf_malloc'd, `charge` bytes) for pinned e. Returns the entry's
 * aux: ours, now owned by the entry (freed with it and charged to the cache),
 * or one another thread set first (ours is then freed). */
const void *cf_cache_entry_set_aux(cf_cache *c, cf_cache_entry *e, void *aux, size_t charge);

/* What loading a cached data block derives from its bytes, kept as the cache
 * entry's aux (loaded_block.c) so that the next load of the block, by any iterator,
 * adopts it instead of decoding again: a nullable block's null-flag state and
 * the decoder's saved state (cf_decoder_ops.save: PLAIN BINARY offsets, DICT
 * codewords). One allocation, charged to the cache, immutable once attached,
 * alive while the entry is pinned; attached only after the whole load passed
 * its checks. */
typedef struct cf_block_aux {
    const struct cf_null_state *ns; /* nullable (not array) blocks, else NULL */
    const void *dec;                /* the decoder's saved state, or NULL */
    size_t dec_len;
} cf_block_aux;

/* ---- the reader (immutable after open) --------------------------------------------- */

struct cf_reader {
    cf_io *io;
    cf_io *owned_io;
    cf_reader_options opts;
    cf_file_info info;
    cf_metadata_pair *header_md, *footer_md;
    size_t n_header_md, n_footer_md;
    uint8_t *header_md_bytes; /* backing stores of the metadata slices */
    uint8_t *footer_md_bytes;
    const cf_decoder_ops *dec_ops;
    cf_dec_params dec_params;
    cf_dict dict; /* DICT files: the decoded dictionary */
    cf_slice *dict_entries;
    uint8_t *dict_bytes;
    uint64_t cache_file_id; /* key space in opts.cache (0 without a cache) */
    cf_frame_opts frame;    /* how every block is framed (frame.c), from the footer,
                               the header's magic and opts */
};

/* Set r->frame, the framing every block of the file has (frame.c), from
 * r->info (footer and header read) and r->opts. Built once at open rather
 * than per block read: it is the same for every block. */
void cf_reader_init_frame(cf_reader *r);

/* Read one block's logical bytes through `r` (check CRC, undo compression).
 * The result is a view into the io (mmap/memory, uncompressed) or lives in
 * scratch. `what` names the block kind in errors ("data block", ...). */
cf_status cf_reader_read_block(const cf_reader *r, cf_block_ptr ptr, cf_buf *scratch, cf_slice *out,
                               const char *what, cf_error *err);

/* cf_reader_read_block for a BloomFile's index and bloom blocks and a value
 * index's blocks, which every point lookup and duplicate check reads
 * (cf_reader_find_validx_block), through the reader's cache when it has one:
 * a block the io serves in place uncompressed is cached as a mark that its
 * checksum passed (later reads skip the check, as data blocks' view marks
 * do); any other (read with pread, or decompressed) is cached as a copy of
 * its logical bytes, copied into scratch on a hit, so a lookup through pread
 * neither reads, checks nor decompresses it again. Verification uses
 * cf_reader_read_block, which always reads and checks. */
cf_status cf_reader_read_index_block(const cf_reader *r, cf_block_ptr ptr, cf_buf *scratch,
                                     cf_slice *out, const char *what, cf_error *err);

/* cf_reader_read_block for data blocks, through the reader's cache when it has
 * one. out->home says where the bytes live and out->pin is the cache entry
 * to release (cf_cache_release(r->opts.cache, out->pin)) when not NULL: the
 * entry holding the bytes (IN_CACHE), or the "checked" mark of a block the io
 * serves in place (IN_IO), which carries the block's aux as well. Without a
 * cache hit or insert the bytes are in the io or in scratch, unpinned.
 * A block the cache lacks is added; one read through pread without
 * compression is read straight into its cache entry. _no_fill (a one-pass
 * scan, Kudu's fill_cache=false): a block the cache does not hold is read
 * into scratch and not added. */
cf_status cf_reader_read_data_block(const cf_reader *r, cf_block_ptr ptr, cf_buf *scratch,
                                    cf_block_contents *out, cf_error *err);
cf_status cf_reader_read_data_block_no_fill(const cf_reader *r, cf_block_ptr ptr, cf_buf *scratch,
                                            cf_block_contents *out, cf_error *err);

/* Whether the data blocks the iterator reads and the reader's cache lacks are
 * added to it (default true; false for a one-pass scan, so that it neither
 * evicts what lookups keep hot nor copies every block into the cache). */
void cf_iter_set_fill_cache(cf_iter *it, bool fill);

/* cf_block_filter (filter.c): the caller's test and, for DICT files, its answer
 * for every dictionary entry. */
struct cf_block_filter {
    const cf_reader *r;
    cf_value_test test; /* dict_pass owned */
};

/* For verify: load the data block at ptr into the iterator and decode all of
 * its rows; *first_ord and *rows describe it, *logical_size is its length after
 * decompression and *dict_mode its DICT mode word (0 for other encodings). */
cf_status cf_iter_check_block(cf_iter *it, cf_block_ptr ptr, uint64_t *first_ord, uint64_t *rows,
                              uint32_t *logical_size, int *dict_mode, cf_error *err);

#endif

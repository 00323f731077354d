/* cfile: opening a CFile (v1 "kuducfil" or v2 "kuducfl2") and reading its
 * header and footer. Data is read through iterators (iter.h).
 *
 * Call order:  options_init? open (getters | verify | iter_create)* free
 *
 * Ownership: cf_reader_open borrows its io, cf_reader_open_file owns one. What
 * the getters return (cf_file_info, metadata pairs, the io) points into the
 * reader and lives as long as it. A cache named in the options is borrowed.
 * What must outlive what:  io (when borrowed) > cache > reader > iterators and
 * block filters made on it (iter.h) > the batches they hand out.
 *
 * Threads: a reader is immutable once open: any number of threads may use one
 * reader at the same time (getters, verify, creating iterators), each with its
 * own iterators.
 */
#ifndef CFILE_READER_H
#define CFILE_READER_H

#include "cache.h"
#include "io.h"
#include "status.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cf_reader cf_reader;

#define CF_READER_OPTIONS_VERSION 1
/* Kudu's --max_cfile_block_size: larger claimed uncompressed sizes are corrupt. */
#define CF_DEFAULT_MAX_BLOCK_LEN (16u * 1024u * 1024u)

/* Incompatible feature bits (footer field 10). */
#define CF_FEATURE_CHECKSUM 0x1u
#define CF_FEATURE_ARRAY_DATA_BLOCK 0x2u
#define CF_FEATURES_SUPPORTED (CF_FEATURE_CHECKSUM | CF_FEATURE_ARRAY_DATA_BLOCK)

typedef struct cf_reader_options {
    uint32_t version;      /* CF_READER_OPTIONS_VERSION, set by _init */
    bool verify_checksums; /* default true */
    size_t max_block_len;  /* refuse blocks claiming more bytes; default 16 MiB */
    /* Optional shared block cache (cache.h; borrowed: it must outlive the
     * reader). Data blocks are kept there checked and decompressed; default NULL. */
    cf_cache *cache;
} cf_reader_options;

CF_API void cf_reader_options_init(cf_reader_options *opts);

/* What the header and footer say. Strings and slices point into the reader and
 * live as long as it. */
typedef struct cf_file_info {
    int format_version;   /* 1 or 2 (from the header's magic) */
    cf_type type;         /* element type for arrays */
    cf_encoding encoding; /* as recorded in the footer */
    cf_compression compression;
    uint64_t num_values; /* rows, NULLs included */
    bool nullable;
    bool is_array;
    bool has_posidx;
    bool has_validx;
    bool has_dict_block;
    uint32_t incompatible_features;
    uint32_t compatible_features;
    uint64_t file_size;
    uint64_t posidx_root_off, validx_root_off, dict_block_off;
    uint32_t posidx_root_size, validx_root_size, dict_block_size;
    size_t header_len; /* bytes of the header PB */
    size_t footer_len; /* bytes of the footer PB */
} cf_file_info;

/* Open a reader on `io` (borrowed: it must outlive the reader). Reads and checks
 * the footer and header (magic, lengths, checksums, feature bits, type and
 * encoding). Errors: CF_ECORRUPT (bad magic, lengths, protobuf, checksum),
 * CF_ENOTSUP (unknown incompatible feature bit, named in the message; an
 * encoding this build cannot decode), CF_EIO. opts may be NULL (defaults). */
CF_API cf_status cf_reader_open(cf_reader **out, cf_io *io, const cf_reader_options *opts,
                                cf_error *err);
/* Same, opening `path` with pread (mmap == false) or mmap; the reader owns its io. */
CF_API cf_status cf_reader_open_file(cf_reader **out, const char *path, bool mmap,
                                     const cf_reader_options *opts, cf_error *err);

CF_API const cf_file_info *cf_reader_info(const cf_reader *r);
/* The io the reader reads from (its own for cf_reader_open_file); lives as long
 * as the reader. */
CF_API cf_io *cf_reader_io(const cf_reader *r);

/* Header pairs (written before data) and footer pairs, in file order. */
CF_API size_t cf_reader_header_metadata(const cf_reader *r, const cf_metadata_pair **out);
CF_API size_t cf_reader_footer_metadata(const cf_reader *r, const cf_metadata_pair **out);
/* Kudu's lookup: header pairs first, then footer; the first match wins. true
 * and *out (may be NULL) = the value when found, false when absent (an in-memory
 * lookup: cfile.h "Lookups"). */
CF_API bool cf_reader_get_metadata(const cf_reader *r, const char *key, cf_slice *out);

/* What `cf_reader_verify` found about one block. */
typedef struct cf_block_report {
    const char *kind;   /* "data block", "positional index", "value index", "dictionary block" */
    uint64_t off;       /* file offset of the block */
    uint32_t size;      /* stored bytes */
    uint64_t first_ord; /* data blocks: first row (from the index when undecodable) */
    uint64_t rows;      /* data blocks: rows; 0 when unknown */
    cf_status status;   /* CF_OK when intact */
    const char *msg;    /* why not, when status != CF_OK (valid during the callback) */
    /* Added for `cfile info --blocks` (fields only ever appended here): */
    uint32_t logical_size; /* bytes after the CRC and compression are undone; 0 when unknown */
    int dict_mode;         /* DICT data blocks: 1 codewords, 2 plain strings; else 0 */
    /* Index blocks (for drawing the trees): verify reports each tree's blocks in a
     * pre-order walk, so a block's parent is the last one reported a level up. */
    uint32_t index_entries; /* entries (children, or data blocks for a leaf) */
    unsigned index_level;   /* depth below the root (the root is 0) */
} cf_block_report;

typedef void (*cf_verify_fn)(void *ctx, const cf_block_report *rep);

/* Check every checksum and decode every block: the dictionary, every index
 * block of both trees, and every data block with all its rows. `fn` (may be
 * NULL) hears about each block, intact or not, so a caller can tell exactly
 * which rows are lost. Verification continues past a damaged data block; a
 * damaged index block hides the blocks below it. *damaged (may be NULL) gets
 * the number of damaged blocks. Returns CF_OK when everything is intact, else
 * the first problem (CF_ECORRUPT with its block and offset in err). */
CF_API cf_status cf_reader_verify(const cf_reader *r, cf_verify_fn fn, void *ctx, size_t *damaged,
                                  cf_error *err);

/* NULL is a no-op.
 * REQUIRES: every iterator and block filter made on r has been freed. */
CF_API void cf_reader_free(cf_reader *r);

#ifdef __cplusplus
}
#endif
#endif

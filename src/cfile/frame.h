/* Internal: block framing, both directions (frame.c), and who owns a block's
 * bytes once read (cf_block_contents). */
#ifndef CF_CFILE_FRAME_H
#define CF_CFILE_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/types.h>

#include "util/buf.h"
#include "util/error.h"

/* Kudu's --min_compression_ratio: compress only when it saves more than 10%. */
#define CF_MIN_COMPRESSION_RATIO 0.9

typedef struct cf_frame_opts {
    cf_compression compression;
    bool checksums; /* a fixed32 crc32c follows the stored bytes */
    /* Reading only (cf_unframe_block); the writer always writes v2. */
    uint8_t format_version; /* 1: v1's 8-byte compression header, else v2's 4 bytes */
    bool verify_checksums;  /* compare the CRC (cf_reader_options.verify_checksums) */
    size_t max_block_len;   /* refuse a claimed uncompressed length over this */
} cf_frame_opts;

typedef struct cf_cache_entry cf_cache_entry;

/* Where a block's bytes live, and so what their holder must do with them:
 * the model is LevelDB's BlockContents {data, cachable, heap_allocated}. Code
 * holding a block reads these fields; it never infers ownership by comparing
 * pointers. */
typedef enum cf_block_home {
    CF_BLOCK_IN_IO,      /* the io's own memory (memory io, mmap): alive as long as the
                            io, nothing to free; a cache keeps only a "checked" mark */
    CF_BLOCK_IN_SCRATCH, /* the caller's scratch buffer (read, or decompressed): alive
                            until the buffer is next used; a cache must copy it */
    CF_BLOCK_IN_CACHE,   /* a cache entry's copy: alive while `pin` is held */
} cf_block_home;

typedef struct cf_block_contents {
    cf_slice data; /* the logical bytes (after CRC and compression framing) */
    cf_block_home home;
    cf_cache_entry *pin; /* a pinned cache entry to release (IN_CACHE, or an IN_IO
                            block's checked mark), else NULL */
} cf_block_contents;

/* Wrap logical bytes as Kudu stores a block: compression header and payload
 * (raw when compression does not pay), then the CRC. Result replaces `out`. */
cf_status cf_frame_block(const cf_frame_opts *fo, const uint8_t *logical, size_t len, cf_buf *out,
                         cf_error *err);

/* Undo cf_frame_block (or Kudu's v1 framing) for one block's stored bytes,
 * in->data (CRC included). Checks the CRC unless skip_crc (the cache vouches
 * for an in-place block) or verification is off. *out is a view into in's
 * bytes, with in's home, or the bytes decompressed into scratch after its
 * current contents (home IN_SCRATCH; in may itself be IN_SCRATCH). Errors
 * name no block: the caller prefixes which and where. out may be in. */
cf_status cf_unframe_block(const cf_frame_opts *fo, const cf_block_contents *in, bool skip_crc,
                           cf_buf *scratch, cf_block_contents *out, cf_error *err);

#endif

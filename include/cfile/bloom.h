/* cfile: BloomFiles, the CFiles in which a Kudu DiskRowSet keeps bloom filters
 * over its encoded primary keys (format §11). Files are byte-identical to Kudu's
 * BloomFileWriter for the same keys and sizing, and Kudu-written files probe
 * with Kudu's answers.
 *
 * Writer call order:  options_init create add* finish? free
 * Reader call order:  open (may_contain | verify | cfile)* free
 *
 * Ownership: cf_bloom_writer_create and cf_bloom_reader_open borrow their io
 * (REQUIRES: it outlives the writer or reader; the writer's finish commits it);
 * the *_file variants own theirs. add copies the key's bytes as needed.
 *
 * A writer belongs to one thread at a time; its first error is sticky (every
 * later call returns it) and `free` without a successful `finish` abandons the
 * output. A reader is immutable once open: any number of threads may call
 * cf_bloom_reader_may_contain on one reader at the same time.
 */
#ifndef CFILE_BLOOM_H
#define CFILE_BLOOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io.h"
#include "reader.h"
#include "status.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cf_bloom_writer cf_bloom_writer;
typedef struct cf_bloom_reader cf_bloom_reader;

#define CF_BLOOM_WRITER_OPTIONS_VERSION 1
/* Kudu's --tablet_bloom_block_size. */
#define CF_BLOOM_DEFAULT_BLOCK_BYTES 4096u
/* Kudu's --tablet_bloom_target_fp_rate is written as the float literal 0.0001f,
 * so the double Kudu sizes with is 9.999999747378752e-05, not 1e-4 (format §11.4). */
#define CF_BLOOM_DEFAULT_FP_RATE ((double)0.0001f)
/* Largest bitmap of one bloom block, in bytes: the block must stay below the
 * reader's default 16 MiB block limit. */
#define CF_BLOOM_MAX_BLOCK_BYTES (16u * 1024u * 1024u - 64u)
/* Most hash functions a block may ask for. Sizing gives about -log2(fp_rate),
 * so only absurd rates (below ~1e-300) come near; a header claiming more is
 * treated as corrupt rather than probed for seconds per key. */
#define CF_BLOOM_MAX_HASHES 1024u

typedef struct cf_bloom_writer_options {
    uint32_t version;       /* CF_BLOOM_WRITER_OPTIONS_VERSION, set by _init */
    size_t bytes_per_block; /* bitmap bytes per bloom block; default 4096 */
    double fp_rate;         /* target false-positive rate, in (0, 1); default
                             * CF_BLOOM_DEFAULT_FP_RATE */
    bool checksums;         /* CRC-32C on header, blocks, footer; default true */
} cf_bloom_writer_options;

/* Fill opts with Kudu's tablet defaults. */
CF_API void cf_bloom_writer_options_init(cf_bloom_writer_options *opts);

/* Kudu's BySizeAndFPRate sizing (format §11.4) of one bloom block. */
typedef struct cf_bloom_sizing {
    size_t n_bytes;        /* bitmap bytes */
    size_t expected_count; /* keys per block before the writer cuts it */
    uint32_t n_hashes;     /* k, the number of probes per key */
} cf_bloom_sizing;

/* Compute the sizing Kudu uses for n_bytes of bitmap at fp_rate.
 * CF_EINVAL when n_bytes is 0 or above CF_BLOOM_MAX_BLOCK_BYTES, when fp_rate is
 * not in (0, 1), or when the sizing would need more than CF_BLOOM_MAX_HASHES. */
CF_API cf_status cf_bloom_sizing_compute(cf_bloom_sizing *out, size_t n_bytes, double fp_rate,
                                         cf_error *err);

/* Start a BloomFile on `io` (borrowed: it must outlive the writer; finish
 * commits it). opts == NULL means defaults; a bad field is CF_EINVAL naming it. */
CF_API cf_status cf_bloom_writer_create(cf_bloom_writer **out, cf_io *io,
                                        const cf_bloom_writer_options *opts, cf_error *err);
/* Same, creating `path` atomically; the writer owns its io. */
CF_API cf_status cf_bloom_writer_create_file(cf_bloom_writer **out, const char *path,
                                             const cf_bloom_writer_options *opts, cf_error *err);

/* Add one key (its bytes are copied as needed; the caller keeps ownership).
 * REQUIRES: keys in non-decreasing byte order (memcmp, shorter first on a
 * common prefix), as Kudu appends a rowset's sorted primary keys; a smaller key
 * than the previous one is CF_EINVAL (and sticky, like every writer error). */
CF_API cf_status cf_bloom_writer_add(cf_bloom_writer *w, cf_slice key, cf_error *err);

/* Write the last, partial bloom block, the value index and the footer; commit. */
CF_API cf_status cf_bloom_writer_finish(cf_bloom_writer *w, cf_error *err);

/* The sizing the writer uses, keys added so far, bloom blocks written so far. */
CF_API const cf_bloom_sizing *cf_bloom_writer_sizing(const cf_bloom_writer *w);
CF_API uint64_t cf_bloom_writer_num_keys(const cf_bloom_writer *w);
CF_API uint64_t cf_bloom_writer_num_blocks(const cf_bloom_writer *w);
/* Bytes written to the io so far (the file size after a successful finish). */
CF_API uint64_t cf_bloom_writer_written_size(const cf_bloom_writer *w);

/* NULL is a no-op. Without finish, abandons the output. */
CF_API void cf_bloom_writer_free(cf_bloom_writer *w);

/* Does a CFile's footer describe a BloomFile (format §11.1: BINARY, PLAIN,
 * no values, a value index and no positional index)?
 * REQUIRES: fi != NULL. */
CF_API bool cf_bloom_is_bloom_file(const cf_file_info *fi);

/* Open a BloomFile on `io` (borrowed: it must outlive the reader). opts may be
 * NULL (defaults: checksums verified). Errors: those of cf_reader_open,
 * CF_EINVAL ("not a BloomFile") for a CFile that is not shaped like one (it
 * holds values, or is not BINARY PLAIN), and CF_ENOTSUP for a compressed file
 * or one without a value index (Kudu refuses both). Bloom blocks are read and
 * checked when a probe reaches them. */
CF_API cf_status cf_bloom_reader_open(cf_bloom_reader **out, cf_io *io,
                                      const cf_reader_options *opts, cf_error *err);
/* Same, opening `path` with pread (mmap == false) or mmap; the reader owns its io. */
CF_API cf_status cf_bloom_reader_open_file(cf_bloom_reader **out, const char *path, bool mmap,
                                           const cf_reader_options *opts, cf_error *err);

/* May `key` be in the set? *out = false means definitely absent; true means
 * present or a false positive. Finds the bloom block through the value index
 * and probes it with Kudu's hashing (format §11.3, §11.5).
 * Errors: CF_ECORRUPT for a damaged block (bad checksum, header longer than the
 * block, k = 0 or above CF_BLOOM_MAX_HASHES, empty bitmap), CF_EIO. */
CF_API cf_status cf_bloom_reader_may_contain(const cf_bloom_reader *r, cf_slice key, bool *out,
                                             cf_error *err);

/* Check every block: each index block of the value index (its checksum and
 * layout) and each bloom block (its checksum and header, §11.2), reporting each
 * one to fn (may be NULL) with kind "value index" or "bloom block" (rows 0), as
 * cf_reader_verify does for a column (whose data-block decoding does not apply
 * to bloom blocks). Continues past a damaged bloom block; a damaged index block
 * hides the blocks below it. *damaged (may be NULL) gets the number of damaged
 * blocks. Returns CF_OK when all are intact, else the first problem. */
CF_API cf_status cf_bloom_reader_verify(const cf_bloom_reader *r, cf_verify_fn fn, void *ctx,
                                        size_t *damaged, cf_error *err);

/* The CFile underneath (header, footer, metadata); lives as long as r. */
CF_API const cf_reader *cf_bloom_reader_cfile(const cf_bloom_reader *r);

/* NULL is a no-op. */
CF_API void cf_bloom_reader_free(cf_bloom_reader *r);

#ifdef __cplusplus
}
#endif

#endif

/* Shared by every fuzz target (STYLE.md §9).
 *
 * A target is one file fuzz/fuzz_<name>.c defining LLVMFuzzerTestOneInput. It
 * links with common.c (the harness pieces below) and either libFuzzer (clang,
 * CF_BUILD_FUZZERS=ON) or standalone_main.c, which replays fuzz/corpus/<name>/
 * and fuzz/regress/<name>/ as a plain ctest with any compiler.
 *
 * Inputs start with a few option bytes (type, chunk sizes, seek targets,
 * codec) so that one corpus file pins one configuration; the rest is the
 * bytes under test. A clean error from the library is a pass; FUZZ_REQUIRE
 * states the invariants a successful call must keep, and aborts (always on,
 * whatever NDEBUG says) so libFuzzer and ctest both see the failure.
 */
#ifndef CF_FUZZ_H
#define CF_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cfile/cfile.h>
#include <cfile/config.h> /* CF_HAVE_HFILE, CF_HAVE_PARQUET */
#include <cfile/delta.h>
#if CF_HAVE_HFILE
#include <cfile/hfile.h>
#endif
#if CF_HAVE_PARQUET
#include <cfile/parquet.h>
#endif

#include "encoding/encoding.h"

#define FUZZ_REQUIRE(cond)                                                                         \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: FUZZ_REQUIRE(%s) failed\n", __FILE__, __LINE__, #cond);        \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* Like FUZZ_REQUIRE, with the library's error message. */
#define FUZZ_REQUIRE_MSG(cond, errp)                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: FUZZ_REQUIRE(%s) failed; last error: %s (%s)\n", __FILE__,     \
                    __LINE__, #cond, (errp)->msg, (errp)->where);                                  \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Local exploration past a known finding: FUZZ_SKIP="name,name" in the
 * environment turns off the named checks (fuzz/README.md lists them). CI never
 * sets it, so open findings keep failing there until they are fixed. */
bool fuzz_skip(const char *check);

/* ---- option bytes --------------------------------------------------------------------- */

/* A cursor over the leading option bytes; reading past the end gives zeros. */
typedef struct fuzz_input {
    const uint8_t *data;
    size_t size;
} fuzz_input;

uint8_t fuzz_u8(fuzz_input *in);
uint16_t fuzz_u16(fuzz_input *in);
uint32_t fuzz_u32(fuzz_input *in);

/* Tiny deterministic PRNG seeded from option bytes (chunk sizes, seek targets). */
typedef struct fuzz_rng {
    uint32_t s;
} fuzz_rng;
uint32_t fuzz_rng_next(fuzz_rng *r);
/* Uniform-ish in [0, n); 0 when n == 0. */
size_t fuzz_rng_below(fuzz_rng *r, size_t n);

/* A malloc'd copy of exactly len bytes, so that any read past either end is an
 * ASan report rather than a read of the option bytes. Never NULL. */
uint8_t *fuzz_dup(const uint8_t *p, size_t len);

/* Text written to memory (open_memstream): fuzz_text_open gives the stream and
 * aborts when there is none; fuzz_text_close closes it (aborts when that fails)
 * and returns the bytes, NUL-terminated, t->len long, for free(). t->len follows
 * what is written at each fflush. */
typedef struct fuzz_text {
    FILE *f;
    char *buf;
    size_t len;
} fuzz_text;
FILE *fuzz_text_open(fuzz_text *t);
char *fuzz_text_close(fuzz_text *t);

/* A failed call must say why: a status a caller can branch on (ECORRUPT,
 * ENOTSUP, EIO, ENOMEM, EINVAL, ENOTFOUND), matching err->code, and a
 * terminated, non-empty message. Aborts otherwise. */
void fuzz_require_clean_error(cf_status st, const cf_error *err);

/* An io over [p, p+n) (borrowed) without view_at, so readers copy blocks
 * through read_at into scratch buffers, the path of files opened with pread.
 * Freed with cf_io_free. */
cf_io *fuzz_io_noview(const uint8_t *p, size_t n);

/* The bytes under test as a file: an exact-size copy (a read past the end is
 * an ASan report) behind an io that serves views in place (cf_io_open_mem) or,
 * with no_view, only copying reads (fuzz_io_noview). False when the io cannot
 * be made; then there is nothing to close. */
typedef struct fuzz_file {
    uint8_t *bytes;
    size_t size;
    cf_io *io;
} fuzz_file;
bool fuzz_file_open(fuzz_file *f, const uint8_t *p, size_t n, bool no_view);
/* Frees the io, then the bytes it borrows. */
void fuzz_file_close(fuzz_file *f);
/* A file target's input, [opt][file]: *opt is the option byte, the rest is opened as
 * fuzz_file_open does, with no_view when opt has any of no_view_bits. */
bool fuzz_file_input(fuzz_file *f, uint8_t *opt, const uint8_t *data, size_t size,
                     uint8_t no_view_bits);

/* fuzz_io_noview for a caller whose reads must all be in range: a read past the end
 * is a finding (aborts) instead of an EIO. */
cf_io *fuzz_io_noview_strict(const uint8_t *p, size_t n);

/* A reader-and-writer target: input [opt][rest]. opt bit 0 clear: `rest` is a
 * file for read_file; set: the writer's input for round_trip. Either gets opt
 * and an exact-size copy of rest. */
typedef void (*fuzz_body_fn)(uint8_t opt, const uint8_t *rest, size_t len);
int fuzz_read_or_round_trip(const uint8_t *data, size_t size, fuzz_body_fn read_file,
                            fuzz_body_fn round_trip);

#if CF_HAVE_PARQUET
/* A Parquet target: input [opt][file], the file opened (with no_view when opt has any
 * of no_view_bits) and handed to check with opt; a file that does not open must fail
 * with a clean error and hand out nothing. Frees what it opened; returns 0. */
typedef void (*fuzz_parquet_fn)(cf_parquet *pq, const fuzz_file *f, uint8_t opt);
int fuzz_parquet_target(const uint8_t *data, size_t size, uint8_t no_view_bits,
                        fuzz_parquet_fn check);
#endif
#if CF_HAVE_HFILE
/* An HFile target: input [opt][file], opened with blocks up to 16 MiB and checksums
 * verified when opt bit 0 is set, and handed to check with opt; a file that does not
 * open must fail with a message. Frees what it opened; returns 0. */
typedef void (*fuzz_hfile_fn)(cf_hfile *h, const fuzz_file *f, uint8_t opt);
int fuzz_hfile_target(const uint8_t *data, size_t size, fuzz_hfile_fn check);
#endif

/* ---- decoders --------------------------------------------------------------------------- */

/* Every type with a decoder for `enc` (for picking one with an option byte). */
size_t fuzz_types_for(cf_encoding enc, cf_type *out, size_t cap);

/* The generic decoder target: option bytes [type selector][seed x4][dict size
 * x2], then the block. `which` narrows the types the selector picks from. */
enum { FUZZ_TYPES_ALL, FUZZ_TYPES_FIXED, FUZZ_TYPES_BINARY };
/* The types of fuzz_types_for(enc) that `which` admits (at most 32). */
size_t fuzz_types_which(cf_encoding enc, int which, cf_type *out);

/* A dictionary of n synthetic entries of varied lengths (n <= 1024), valid for
 * the process lifetime: DICT decoders need one and do not own it. */
const cf_dict *fuzz_dict(size_t n);

/* Load `blk` into a decoder of (type, enc) and exercise next / seek /
 * seek_at_or_after under the invariants of encoding.h: never more values than
 * count, exact positions, seeks past count rejected, seeks agree with a
 * sequential decode, and (for sorted blocks) seek_at_or_after finds a value
 * >= the key. `seed` varies chunk sizes and seek targets. */
void fuzz_check_decoder(cf_encoding enc, cf_type type, const cf_dict *dict, const uint8_t *blk,
                        size_t len, uint32_t seed);

int fuzz_decoder_target(cf_encoding enc, int which, const uint8_t *data, size_t size);

/* ---- whole files ------------------------------------------------------------------------ */

/* Open `file` (borrowed) and use everything the public API offers: info and
 * metadata, a full scan in batches of varied sizes (view and copy), seeks to
 * ordinals and values, and cf_reader_verify, asserting that they agree. */
void fuzz_check_file(const uint8_t *file, size_t len, bool verify_checksums, uint32_t seed);

/* What fuzz_wrap_block puts around a logical data block. */
typedef struct fuzz_wrap {
    cf_type type;
    cf_encoding encoding;
    bool nullable;
    bool is_array;
    uint64_t num_values;
    size_t dict_entries; /* DICT: entries of the synthetic dictionary block */
} fuzz_wrap;

/* Build a minimal v2 CFile (no checksums, no compression) whose only data block
 * is `blk`: header, optional dictionary block, the data block, a one-entry
 * positional index and the footer. The result is malloc'd (*out, *out_len). */
void fuzz_wrap_block(const fuzz_wrap *w, const uint8_t *blk, size_t len, uint8_t **out,
                     size_t *out_len);

/* Every (type, encoding) pair with a decoder, in a fixed order (option bytes
 * index it). Returns the number of pairs. */
size_t fuzz_pairs(cf_type *types, cf_encoding *encs, size_t cap);

/* Targets for the nullable (format §6.2) and array (§6.3) framing: option
 * bytes [(type, encoding) selector][seed x4][dict size x2], then one logical
 * data block, wrapped into a file by fuzz_wrap_block and read with
 * fuzz_check_file. */
int fuzz_block_in_file_target(bool is_array, const uint8_t *data, size_t size);

/* ---- row change lists ------------------------------------------------------------------ */

/* Walk a RowChangeList (format §12.2) as fuzz_delta and fuzz_wal both read
 * them: the decoder's type is one of the three; every change takes at least two
 * bytes of the list and its value lies inside it (empty when NULL); each
 * change validates against schema[0..ncols) at the index cf_delta_schema_find
 * gives, or fails cleanly; value (may be NULL) sees every non-NULL value with
 * its column id. A change that fails to decode ends the walk (a clean error).
 * Returns the decoder's init status, its error in *err (a caller whose list was
 * already checked requires CF_OK). */
typedef void (*fuzz_rcl_value_fn)(cf_slice value, uint32_t col_id);
cf_status fuzz_check_rcl(cf_slice rcl, const cf_delta_column *schema, size_t ncols,
                         fuzz_rcl_value_fn value, cf_error *err);

/* ---- a codec against its reference library --------------------------------------------- */

/* The codec-specific part of a differential target (fuzz_lz4_diff,
 * fuzz_snappy_diff): our decoder, the library's, and the library's compressor. */
typedef struct fuzz_codec_diff {
    const char *lib;  /* in messages: "liblz4" */
    const char *unit; /* what a payload is called: "block" */
    size_t slack;     /* bytes ours may write past dst_len (its buffer has exactly these) */
    /* Compress len bytes into a malloc'd *out, returning its length; `level` is
     * the option byte's top four bits (liblz4's acceleration). */
    size_t (*compress)(const uint8_t *src, size_t len, unsigned level, uint8_t **out);
    /* Decode src into exactly dst_len bytes; false when it refuses. */
    bool (*ours)(const uint8_t *src, size_t len, uint8_t *dst, size_t dst_len);
    /* The same with the library, into a buffer of exactly dst_len bytes; *got is
     * what it returned (a length or a code), for the failure message. */
    bool (*theirs)(const uint8_t *src, size_t len, uint8_t *dst, size_t dst_len, long *got);
} fuzz_codec_diff;

/* Input: [mode][dst_len: u16 + 4 bits (< 1 MiB)] then bytes.
 *   mode & 1 == 0: the bytes are a payload, decoded for dst_len bytes.
 *   mode & 1 == 1: the bytes are data; the library compresses them (level
 *                  mode >> 4) and both decode the payload for its true size,
 *                  or for that size plus (mode >> 1 & 7) - 4 bytes; so the
 *                  fuzzer reaches valid payloads of every shape, and lies about
 *                  their size.
 * Both decoders must accept or both refuse, accepted payloads must decode to
 * the same bytes, and a true payload of its true size to the data. */
int fuzz_codec_diff_target(const fuzz_codec_diff *c, const uint8_t *data, size_t size);

#endif

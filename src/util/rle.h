/* Internal: Kudu's RLE / bit-packing hybrid (format §7), bit widths 1..64.
 *
 * The encoder reproduces Kudu's run-splitting heuristic exactly (§7.3), so its
 * streams are byte-identical to Kudu's. The decoder accepts every stream the
 * grammar allows (§7.1) and never reads outside its buffer.
 */
#ifndef CF_UTIL_RLE_H
#define CF_UTIL_RLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/status.h>

#include "buf.h"

typedef struct cf_rle_encoder {
    cf_buf out;      /* emitted bytes */
    unsigned width;  /* bits per value, 1..64 */
    uint64_t cur;    /* value of the current run */
    uint64_t rep;    /* length of that run since the last flush point */
    uint64_t mask;   /* low `width` bits set */
    uint64_t buf[8]; /* pending values */
    unsigned nbuf;
    unsigned lit;   /* values in the open literal run */
    size_t ind_pos; /* byte offset of the open literal run's indicator */
    bool ind_open;
} cf_rle_encoder;

void cf_rle_enc_init(cf_rle_encoder *e, unsigned width);
void cf_rle_enc_dispose(cf_rle_encoder *e);
/* Start a new, empty stream (keeps memory). Bytes appended to e->out right
 * after reset (a block header) stay in front of the stream and count in
 * cf_rle_enc_emitted_len. */
void cf_rle_enc_reset(cf_rle_encoder *e);
/* Add one value (masked to width bits). */
void cf_rle_enc_put(cf_rle_encoder *e, uint64_t v);
/* Add the same value n times (fast path for bitmaps). */
void cf_rle_enc_put_run(cf_rle_encoder *e, uint64_t v, size_t n);
/* Add n values stored as little-endian integers of elem_size bytes (1, 2, 4
 * or 8), exactly as n cf_rle_enc_put calls would, with runs of equal values
 * taken in one step. For width 1 any non-zero value counts as 1 (BOOL bytes). */
void cf_rle_enc_put_values(cf_rle_encoder *e, const void *vals, size_t elem_size, size_t n);
/* Bytes emitted so far, counting a partially filled literal byte, but not the
 * values still buffered nor an unfinished repeated run (Kudu's fullness rule,
 * format §8.3). */
size_t cf_rle_enc_emitted_len(const cf_rle_encoder *e);
/* Flush everything; the stream is in e->out until reset. CF_ENOMEM possible. */
cf_status cf_rle_enc_finish(cf_rle_encoder *e);

typedef struct cf_rle_decoder {
    const uint8_t *p, *end; /* unread bytes */
    unsigned width;
    uint64_t rep_left; /* values left in the current repeated run */
    uint64_t rep_value;
    uint64_t lit_left;      /* values left in the current literal run (claimed) */
    const uint8_t *lit_p;   /* literal bits */
    const uint8_t *lit_end; /* end of the literal run's bytes present in the buffer */
    uint64_t lit_bit;       /* bit position within the literal run */
    /* Repeated values as stored (all ceil(width/8) bytes), not cut to the
     * width: Parquet's readers take them so, and check them against the
     * column's maximum level or the dictionary's size, so a value too wide is
     * damage there, not another valid value. Set after cf_rle_dec_init. */
    bool raw_repeats;
    uint64_t rep_max; /* with raw_repeats: the largest repeated value loaded */
} cf_rle_decoder;

void cf_rle_dec_init(cf_rle_decoder *d, const uint8_t *data, size_t len, unsigned width);
/* Decode up to n values into dst as little-endian integers of elem_size bytes
 * (1, 2, 4 or 8). Returns how many were decoded: fewer than n only when the
 * stream ends (or is malformed); callers that know the count treat that as
 * corruption. */
size_t cf_rle_dec_get(cf_rle_decoder *d, void *dst, size_t elem_size, size_t n);
/* Width 1 only: decode up to n flags into bitmap bits [off, off + n). */
size_t cf_rle_dec_get_bits(cf_rle_decoder *d, uint8_t *bitmap, size_t off, size_t n);
/* Width 1 only: decode up to n flags into bits [0, n) of a bitmap with
 * cf_bitmap_bytes(n) + 8 writable bytes, for nullable blocks' row bitmaps.
 * Writes 8 bytes at a time: the bits past the flags, up to 8 bytes past
 * them, become 0. Returns how many flags were decoded, as get_bits does, and
 * leaves the decoder where get_bits would. */
size_t cf_rle_dec_bitmap(cf_rle_decoder *d, uint8_t *bitmap, size_t n);
/* Skip up to n values; *nonzero (may be NULL) gets how many skipped values
 * were non-zero. Returns how many were skipped. */
size_t cf_rle_dec_skip(cf_rle_decoder *d, size_t n, size_t *nonzero);

/* A run index for seeking (format §7 streams carry none): a checkpoint at the
 * start of every `every`-th run, so a seek restarts from the nearest one
 * before its target instead of from the stream's start. */
typedef struct cf_rle_checkpoint {
    uint64_t index; /* values before this run */
    uint64_t off;   /* byte offset of the run's indicator in the stream */
} cf_rle_checkpoint;

/* Walk the stream [data, data + len) run by run up to its first n values and
 * append a checkpoint for runs 0, every, 2 * every, ... to *out (an array of
 * cf_rle_checkpoint; out->oom on failure). Returns how many values the stream
 * holds, up to n. Decoding from a checkpoint: cf_rle_dec_init at data + off
 * (length len - off), at value `index`. */
size_t cf_rle_index_build(cf_buf *out, const uint8_t *data, size_t len, unsigned width, size_t n,
                          unsigned every);

/* The same walk in steps, so that an index is built only as far as seeks
 * need it. Start with a zeroed walk; each call continues it until it has
 * passed value `upto` (or n values, or the stream's end: then done). */
typedef struct cf_rle_index_walk {
    uint64_t index; /* values walked */
    uint64_t off;   /* byte offset of the next run */
    uint64_t runs;  /* runs walked */
    bool done;
} cf_rle_index_walk;
void cf_rle_index_extend(cf_buf *out, const uint8_t *data, size_t len, unsigned width, size_t n,
                         unsigned every, size_t upto, cf_rle_index_walk *w);

#endif

/* Internal: the HFile writer's state and the pieces its files share
 * (writer.c's opening comment has the file layout):
 *   writer.c            the public calls and the finish sequence
 *   writer_block.c      framing, compressing, checksumming and appending a block;
 *                       closing a data block
 *   writer_index.c      index chunks, inline leaf blocks, intermediate levels,
 *                       the data blocks' shortened index keys
 *   writer_bloom.c      the row Bloom filter's chunks
 *   writer_file_info.c  FileInfo and the sorted record lists
 * Owns no behaviour of its own. */
#ifndef CF_HFILE_WRITER_H
#define CF_HFILE_WRITER_H

#include "internal.h"
#include "util/buf.h"
#include "util/endian.h"
#include "util/error.h"

#define NTYPES 10

/* A block index chunk (HBase BlockIndexChunk): entries with their keys, and
 * for the root of a multi-level index the running count of data blocks. */
typedef struct ichunk {
    hf_entry *v;
    uint64_t *sub;
    size_t n, cap;
    cf_buf keys;
    size_t root_bytes; /* sum of root-format entry sizes */
    size_t key_bytes;  /* sum of key lengths */
} ichunk;

typedef struct ready_chunk {
    size_t data_off, data_len, key_off, key_len;
} ready_chunk;

struct cf_hfile_writer {
    cf_io *io;
    cf_hfile_writer_options o;
    cf_sticky sticky; /* the first failure, replayed by every later call */
    bool finished;
    char comparator[256];
    uint64_t pos;
    int64_t prev_off[NTYPES];
    cf_buf out, payload, key, last_key, blk, blk_first_key, prev_blk_last_key;
    uint64_t blk_cells;
    bool have_prev_blk;
    ichunk leaf, root;
    uint32_t levels;
    uint64_t leaf_entries_total;
    uint64_t total_uncompressed, index_uncompressed;
    uint64_t entries, total_key_len, total_val_len, max_mvcc;
    uint32_t max_tags;
    int64_t first_data_off, last_data_off;
    /* ROW Bloom (CompoundBloomFilterWriter). */
    uint8_t *bits;
    size_t bloom_bytes;
    uint32_t hash_count;
    uint64_t chunk_max_keys, chunk_keys;
    bool chunk_open;
    cf_buf chunk_first_key, last_row, ready_data;
    bool have_row;
    ready_chunk *ready;
    size_t nready, ready_cap;
    ichunk bloom_index;
    uint64_t bloom_total_bytes, bloom_total_keys, bloom_total_max;
    cf_buf user_fi, metas; /* records: u32 len | bytes | u32 len | bytes */
    cf_buf enc;            /* the encoded form of a data block */
    bool delta;            /* PREFIX, DIFF or FAST_DIFF: one family per file */
};

typedef struct rec {
    const uint8_t *k, *v;
    size_t kl, vl;
} rec;

/* writer_index.c: index chunks (HBase BlockIndexChunk) and index blocks. */
void cf_hfile_ichunk_init(ichunk *c);
void cf_hfile_ichunk_dispose(ichunk *c);
void cf_hfile_ichunk_clear(ichunk *c);
/* Append an entry; sub: the running count of data blocks (multi-level root). */
cf_status cf_hfile_ichunk_add(ichunk *c, const uint8_t *key, size_t klen, uint64_t off,
                              uint32_t size, uint64_t sub, cf_error *err);
/* Bytes of c as a non-root block. */
size_t cf_hfile_ichunk_nonroot_size(const ichunk *c);
/* Append c in root format / non-root format to b. */
void cf_hfile_ichunk_write_root(const ichunk *c, cf_buf *b);
void cf_hfile_ichunk_write_nonroot(const ichunk *c, cf_buf *b);
static inline void cf_hfile_put_be64(cf_buf *b, uint64_t v)
{
    uint8_t t[8];
    cf_store_be64(t, v);
    cf_buf_append(b, t, 8);
}
/* A KeyValue key: row length (2) | row | family length (1) | family | qualifier |
 * timestamp (8) | type (1). Inline: append writes one per cell. */
static inline void cf_hfile_put_key(cf_buf *b, cf_slice row, cf_slice fam, cf_slice qual,
                                    int64_t ts, uint8_t type)
{
    uint8_t t[2] = {(uint8_t)(row.len >> 8), (uint8_t)row.len};
    cf_buf_append(b, t, 2);
    cf_buf_append(b, row.data, row.len);
    cf_buf_put_u8(b, (uint8_t)fam.len);
    cf_buf_append(b, fam.data, fam.len);
    cf_buf_append(b, qual.data, qual.len);
    cf_hfile_put_be64(b, (uint64_t)ts);
    cf_buf_put_u8(b, type);
}
/* Write the inline blocks due after a data block (a full leaf chunk, ready
 * Bloom chunks); closing: everything left, at finish. */
cf_status cf_hfile_write_inline(cf_hfile_writer *w, bool closing, cf_error *err);
/* One level of intermediate index blocks over cur's entries, indexed in parent. */
cf_status cf_hfile_write_intermediate_level(cf_hfile_writer *w, ichunk *cur, ichunk *parent,
                                            cf_error *err);
/* The index key of the data block just written (writer_index.c). */
cf_status cf_hfile_index_key(cf_hfile_writer *w, cf_buf *o, cf_error *err);

/* writer_block.c */
cf_status cf_hfile_emit(cf_hfile_writer *w, const void *p, size_t n, cf_error *err);
/* Frame, compress, checksum and append one block. count_total: add it to the
 * trailer's total_uncompressed_bytes (HBase leaves the root/intermediate index out). */
cf_status cf_hfile_write_block(cf_hfile_writer *w, const char *magic, const uint8_t *p, size_t len,
                               bool count_total, uint64_t *off_out, uint32_t *size_out,
                               cf_error *err);
/* Write the pending data block (if any cells) and index it. */
cf_status cf_hfile_finish_data_block(cf_hfile_writer *w, cf_error *err);

/* writer_bloom.c */
void cf_hfile_bloom_setup(cf_hfile_writer *w);
/* Close the open chunk into the ready list when full (or closing). */
cf_status cf_hfile_bloom_enqueue(cf_hfile_writer *w, bool closing, cf_error *err);
cf_status cf_hfile_bloom_add(cf_hfile_writer *w, const uint8_t *row, size_t len, cf_error *err);

/* writer_file_info.c */
/* Append a record: u32 len | key | u32 len | value. */
void cf_hfile_put_record(cf_buf *b, const void *k, size_t kl, const void *v, size_t vl);
/* Records of a put_record buffer, sorted by key (NULL: out of memory). */
rec *cf_hfile_records(const cf_buf *b, size_t *n);
void cf_hfile_put_varint(cf_buf *b, uint64_t v);
cf_status cf_hfile_write_file_info(cf_hfile_writer *w, cf_error *err);

#endif

/* Reading a column chunk's split-block bloom filter (BloomFilter.md):
 *
 *   bloom_filter_offset -> BloomFilterHeader (compact Thrift) | bitset (numBytes)
 *
 * bloom_filter_length, when the writer gave it (parquet-format 2.10+), covers
 * header and bitset; older writers give only the offset, so the header is
 * decoded from a small window first and the bitset read after it. Everything
 * must lie inside the file's data (after the leading magic, before the
 * footer), so the bitset allocation is bounded by the file's size. */
#include "internal.h"

#include <string.h>

#include "bloom.h"
#include "util/alloc.h"
#include "util/error.h"

struct cf_parquet_bloom {
    int32_t type, type_length; /* the column's physical type */
    uint64_t offset, length;   /* the whole filter in the file */
    size_t bytes;              /* of the bitset */
    uint8_t *bits;
};

/* A BloomFilterHeader is four small fields: this window holds any real one. */
#define HEADER_WINDOW 64

#define WHERE "row group %" PRIu32 " column %" PRIu32 ": bloom filter at %" PRId64

void cf_parquet_bloom_free(cf_parquet_bloom *b)
{
    if (!b)
        return;
    cf_free(b->bits);
    cf_free(b);
}

cf_status cf_parquet_bloom_open(cf_parquet_bloom **out, const cf_parquet *pq, uint32_t row_group,
                                uint32_t column, cf_error *err)
{
    *out = NULL;
    const cf_parquet_column_chunk *cc;
    CF_TRY(cf_pq_chunk_at(pq, row_group, column, "parquet bloom filter", &cc, err));
    const cf_parquet_column_meta *cm = &cc->meta;
    CF_CHECK(cm->has_bloom_filter_offset, err, CF_ENOTFOUND,
             "row group %" PRIu32 " column %" PRIu32 ": no bloom filter", row_group, column);
    int64_t off = cm->bloom_filter_offset;
    uint64_t data_end = cf_parquet_file_size(pq) - 8 - cf_parquet_footer_len(pq);
    CF_CHECK(off >= 4 && (uint64_t)off < data_end, err, CF_ECORRUPT,
             WHERE " lies outside the data (4..%" PRIu64 ")", row_group, column, off, data_end);
    uint64_t avail = data_end - (uint64_t)off;
    if (cm->has_bloom_filter_length)
        CF_CHECK(cm->bloom_filter_length > 0 && (uint64_t)cm->bloom_filter_length <= avail, err,
                 CF_ECORRUPT, WHERE ": %" PRId32 " bytes, only %" PRIu64 " before the footer",
                 row_group, column, off, cm->bloom_filter_length, avail);

    cf_io *io = cf_parquet_io(pq);
    uint8_t win[HEADER_WINDOW];
    size_t wlen = avail < sizeof win ? (size_t)avail : sizeof win;
    if (cm->has_bloom_filter_length && (size_t)cm->bloom_filter_length < wlen)
        wlen = (size_t)cm->bloom_filter_length;
    CF_TRY(io->ops->read_at(io, (uint64_t)off, win, wlen, err));
    cf_pq_bloom_header h;
    size_t hl;
    cf_status st = cf_pq_bloom_header_decode(&h, &hl, win, wlen, (uint64_t)off, err);
    if (st != CF_OK)
        return cf_error_prefix(err, st, "row group %" PRIu32 " column %" PRIu32 ": ", row_group,
                               column);
    /* Union member ids: BLOCK, XXHASH and UNCOMPRESSED are each member 1. */
    CF_CHECK(h.algorithm == 1 && h.hash == 1 && h.compression == 1, err, CF_ENOTSUP,
             WHERE ": algorithm %" PRIu32 ", hash %" PRIu32 ", compression %" PRIu32
                   " (only BLOCK, XXHASH, UNCOMPRESSED are defined)",
             row_group, column, off, h.algorithm, h.hash, h.compression);
    size_t bytes = (size_t)h.num_bytes;
    CF_CHECK(bytes > 0 && bytes % 32 == 0, err, CF_ECORRUPT,
             WHERE ": a bitset of %zu bytes is not whole 32-byte blocks", row_group, column, off,
             bytes);
    CF_CHECK(bytes <= avail - hl, err, CF_ECORRUPT,
             WHERE ": a bitset of %zu bytes, only %" PRIu64 " before the footer", row_group, column,
             off, bytes, avail - hl);
    if (cm->has_bloom_filter_length)
        CF_CHECK(hl + bytes == (uint64_t)cm->bloom_filter_length, err, CF_ECORRUPT,
                 WHERE ": header %zu + bitset %zu bytes, bloom_filter_length says %" PRId32,
                 row_group, column, off, hl, bytes, cm->bloom_filter_length);
    CF_CHECK(bytes <= CF_PQ_BLOOM_MAX_BYTES, err, CF_ENOTSUP,
             WHERE ": a bitset of %zu bytes, more than this reader takes", row_group, column, off,
             bytes);

    cf_parquet_bloom *b = cf_calloc(1, sizeof(*b));
    CF_CHECK(b, err, CF_ENOMEM, "parquet bloom filter: out of memory");
    b->bits = cf_malloc(bytes);
    if (!b->bits) {
        cf_free(b);
        CF_FAIL(err, CF_ENOMEM, "parquet bloom filter: out of memory for %zu bytes", bytes);
    }
    st = io->ops->read_at(io, (uint64_t)off + hl, b->bits, bytes, err);
    if (st != CF_OK) {
        cf_parquet_bloom_free(b);
        return st;
    }
    const cf_parquet_column *col = cf_parquet_column_at(pq, column);
    b->type = col->type;
    b->type_length = col->type_length;
    b->offset = (uint64_t)off;
    b->length = hl + bytes;
    b->bytes = bytes;
    *out = b;
    return CF_OK;
}

size_t cf_parquet_bloom_bitset_bytes(const cf_parquet_bloom *b)
{
    return b->bytes;
}
uint64_t cf_parquet_bloom_offset(const cf_parquet_bloom *b)
{
    return b->offset;
}
uint64_t cf_parquet_bloom_length(const cf_parquet_bloom *b)
{
    return b->length;
}

bool cf_parquet_bloom_probe_hash(const cf_parquet_bloom *b, uint64_t hash)
{
    return cf_pq_bloom_check(b->bits, b->bytes, hash);
}

bool cf_parquet_bloom_probe_bytes(const cf_parquet_bloom *b, const void *data, size_t len)
{
    return cf_pq_bloom_check(b->bits, b->bytes, cf_parquet_xxh64(data, len, 0));
}

uint64_t cf_parquet_bloom_hash(int32_t type, int32_t type_length, const void *value)
{
    switch (type) {
    case CF_PARQUET_INT32:
    case CF_PARQUET_FLOAT: return cf_parquet_xxh64(value, 4, 0);
    case CF_PARQUET_INT64:
    case CF_PARQUET_DOUBLE: return cf_parquet_xxh64(value, 8, 0);
    case CF_PARQUET_INT96: return cf_parquet_xxh64(value, 12, 0);
    case CF_PARQUET_FIXED_LEN_BYTE_ARRAY:
        return cf_parquet_xxh64(value, type_length > 0 ? (size_t)type_length : 0, 0);
    case CF_PARQUET_BYTE_ARRAY: {
        const cf_slice *s = value;
        return cf_parquet_xxh64(s->data, s->len, 0);
    }
    default: return 0;
    }
}

bool cf_parquet_bloom_probe(const cf_parquet_bloom *b, const void *value)
{
    /* The format hashes no BOOLEAN values: "maybe" is the only safe answer. */
    if (b->type == CF_PARQUET_BOOLEAN || b->type < 0 || b->type > CF_PARQUET_FIXED_LEN_BYTE_ARRAY)
        return true;
    return cf_pq_bloom_check(b->bits, b->bytes,
                             cf_parquet_bloom_hash(b->type, b->type_length, value));
}

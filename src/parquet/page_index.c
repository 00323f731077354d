/* Reading a column chunk's page index (PageIndex.md): the ColumnIndex and
 * OffsetIndex structs sit between the last row group and the footer, located
 * by the ColumnChunk's *_index_offset/_length. Each is read whole, checked to
 * lie inside the data region and to decode to exactly its length. */
#include "internal.h"

#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

struct cf_parquet_page_index {
    uint8_t *bytes[2];
    cf_arena arena[2];
    bool has_offsets, has_columns;
    cf_parquet_offset_index offsets;
    cf_parquet_column_index columns;
};

void cf_parquet_page_index_free(cf_parquet_page_index *pi)
{
    if (!pi)
        return;
    for (int i = 0; i < 2; i++) {
        cf_free(pi->bytes[i]);
        cf_arena_dispose(&pi->arena[i]);
    }
    cf_free(pi);
}

const cf_parquet_offset_index *cf_parquet_page_index_offsets(const cf_parquet_page_index *pi)
{
    return pi->has_offsets ? &pi->offsets : NULL;
}

const cf_parquet_column_index *cf_parquet_page_index_columns(const cf_parquet_page_index *pi)
{
    return pi->has_columns ? &pi->columns : NULL;
}

/* Read [off, off+len) into pi->bytes[k] and decode it with `fn`. */
static cf_status read_struct(cf_parquet_page_index *pi, int k, const cf_parquet *pq, int64_t off,
                             int32_t len, const char *what, uint32_t g, uint32_t c, cf_error *err)
{
    uint64_t data_end = cf_parquet_file_size(pq) - 8 - cf_parquet_footer_len(pq);
    CF_CHECK(off >= 4 && len > 0 && (uint64_t)off < data_end &&
                 (uint64_t)len <= data_end - (uint64_t)off,
             err, CF_ECORRUPT,
             "row group %" PRIu32 " column %" PRIu32 ": %s at %" PRId64 " of %" PRId32
             " bytes lies outside the data (4..%" PRIu64 ")",
             g, c, what, off, len, data_end);
    pi->bytes[k] = cf_malloc((size_t)len);
    CF_CHECK(pi->bytes[k], err, CF_ENOMEM, "parquet: out of memory for a %" PRId32 "-byte %s", len,
             what);
    cf_io *io = cf_parquet_io(pq);
    CF_TRY(io->ops->read_at(io, (uint64_t)off, pi->bytes[k], (size_t)len, err));
    cf_thrift_reader r;
    cf_thrift_reader_init(&r, pi->bytes[k], (size_t)len, (uint64_t)off, what, err);
    cf_status st = k == 0 ? cf_pq_offset_index_decode(&r, &pi->offsets)
                          : cf_pq_column_index_decode(&r, &pi->columns);
    pi->arena[k] = cf_thrift_reader_take_arena(&r);
    if (st == CF_OK && cf_thrift_pos(&r) != (size_t)len)
        st = cf_error_set(err, CF_ECORRUPT, __FILE__, __LINE__,
                          "%s at %" PRId64 ": %" PRId32 " bytes but the struct ends after %zu",
                          what, off, len, cf_thrift_pos(&r));
    if (st != CF_OK)
        return cf_error_prefix(err, st, "row group %" PRIu32 " column %" PRIu32 ": ", g, c);
    return CF_OK;
}

cf_status cf_parquet_page_index_read(cf_parquet_page_index **out, const cf_parquet *pq,
                                     uint32_t row_group, uint32_t column, cf_error *err)
{
    *out = NULL;
    const cf_parquet_column_chunk *cc;
    CF_TRY(cf_pq_chunk_at(pq, row_group, column, "parquet page index", &cc, err));
    CF_CHECK(cc->has_offset_index || cc->has_column_index, err, CF_ENOTFOUND,
             "row group %" PRIu32 " column %" PRIu32 ": no page index", row_group, column);
    cf_parquet_page_index *pi = cf_calloc(1, sizeof(*pi));
    CF_CHECK(pi, err, CF_ENOMEM, "parquet: out of memory");
    cf_status st = CF_OK;
    if (cc->has_offset_index) {
        st = read_struct(pi, 0, pq, cc->offset_index_offset, cc->offset_index_length,
                         "offset index", row_group, column, err);
        pi->has_offsets = st == CF_OK;
    }
    if (st == CF_OK && cc->has_column_index) {
        st = read_struct(pi, 1, pq, cc->column_index_offset, cc->column_index_length,
                         "column index", row_group, column, err);
        pi->has_columns = st == CF_OK;
    }
    if (st == CF_OK && pi->has_offsets && pi->has_columns &&
        pi->offsets.page_count != pi->columns.page_count)
        st = cf_error_set(err, CF_ECORRUPT, __FILE__, __LINE__,
                          "row group %" PRIu32 " column %" PRIu32 ": offset index of %" PRIu32
                          " pages, column index of %" PRIu32,
                          row_group, column, pi->offsets.page_count, pi->columns.page_count);
    if (st != CF_OK) {
        cf_parquet_page_index_free(pi);
        return st;
    }
    *out = pi;
    return CF_OK;
}

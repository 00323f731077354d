/* Opening a Parquet file: the magic at both ends, the footer length, the
 * FileMetaData, the schema tree, and the checks that tie them together
 * (parquet-format README "File Format", "Metadata").
 *
 *   offset 0         4     "PAR1"
 *   4 ..             ...   column chunks
 *   size-8-len       len   FileMetaData, compact Thrift
 *   size-8           4     len, little-endian
 *   size-4           4     "PAR1" ("PARE": encrypted footer, not supported) */
#include "internal.h"

#include <string.h>

#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"

#define DEFAULT_MAX_FOOTER ((size_t)256 << 20)

void cf_parquet_options_init(cf_parquet_options *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->version = CF_PARQUET_OPTIONS_VERSION;
    opts->max_footer_len = DEFAULT_MAX_FOOTER;
}

bool cf_parquet_sniff(cf_io *io)
{
    uint64_t size = io->ops->size(io);
    uint8_t head[4], tail[4];
    if (size < 12 || io->ops->read_at(io, 0, head, 4, NULL) != CF_OK ||
        io->ops->read_at(io, size - 4, tail, 4, NULL) != CF_OK)
        return false;
    return memcmp(head, CF_PQ_MAGIC, 4) == 0 &&
           (memcmp(tail, CF_PQ_MAGIC, 4) == 0 || memcmp(tail, CF_PQ_MAGIC_ENCRYPTED, 4) == 0);
}

/* A column chunk's bytes must lie between the leading magic and the footer. */
static cf_status check_chunk(const cf_parquet *pq, uint32_t g, uint32_t c,
                             const cf_parquet_column_chunk *cc, const cf_parquet_column *col,
                             cf_error *err)
{
    const cf_parquet_column_meta *m = &cc->meta;
    uint64_t data_end = pq->file_size - 8 - pq->footer_len;
    CF_CHECK(m->type == col->type, err, CF_ECORRUPT,
             "row group %" PRIu32 " column %" PRIu32 ": chunk type %s, schema says %s", g, c,
             cf_parquet_type_name(m->type) ? cf_parquet_type_name(m->type) : "unknown",
             cf_parquet_type_name(col->type));
    CF_CHECK(m->num_values >= 0 && m->total_compressed_size >= 0 && m->total_uncompressed_size >= 0,
             err, CF_ECORRUPT, "row group %" PRIu32 " column %" PRIu32 ": negative count or size",
             g, c);
    /* Some writers record a dictionary_page_offset of 0 for chunks without a
     * dictionary, and a data_page_offset of 0 for chunks without data pages
     * (no values); an offset of 0 is "none" then. */
    bool has_dict = m->has_dictionary_page_offset && m->dictionary_page_offset > 0;
    bool has_data = m->num_values > 0 || m->data_page_offset != 0;
    CF_CHECK(!has_data || (m->data_page_offset >= 4 && (uint64_t)m->data_page_offset < data_end),
             err, CF_ECORRUPT,
             "row group %" PRIu32 " column %" PRIu32 ": data page offset %" PRId64
             " outside the data (4..%" PRIu64 ")",
             g, c, m->data_page_offset, data_end);
    CF_CHECK(!has_dict ||
                 (m->dictionary_page_offset >= 4 && (uint64_t)m->dictionary_page_offset < data_end),
             err, CF_ECORRUPT,
             "row group %" PRIu32 " column %" PRIu32 ": dictionary page offset %" PRId64
             " outside the data (4..%" PRIu64 ")",
             g, c, m->dictionary_page_offset, data_end);
    if (!has_dict && !has_data)
        return CF_OK;
    int64_t start = !has_data ? m->dictionary_page_offset
                    : has_dict && m->dictionary_page_offset < m->data_page_offset
                        ? m->dictionary_page_offset
                        : m->data_page_offset;
    CF_CHECK((uint64_t)m->total_compressed_size <= data_end - (uint64_t)start, err, CF_ECORRUPT,
             "row group %" PRIu32 " column %" PRIu32 ": chunk at %" PRId64 " of %" PRId64
             " bytes runs past the data (ends at %" PRIu64 ")",
             g, c, start, m->total_compressed_size, data_end);
    return CF_OK;
}

static cf_status check_meta(cf_parquet *pq, cf_error *err)
{
    const cf_parquet_file_meta *m = &pq->meta;
    if (m->encrypted)
        CF_FAIL(err, CF_ENOTSUP,
                "parquet: encrypted columns (plaintext footer with an "
                "encryption algorithm) are not supported");
    CF_CHECK(m->num_rows >= 0, err, CF_ECORRUPT, "footer: num_rows %" PRId64 " < 0", m->num_rows);
    int64_t total = 0;
    for (uint32_t g = 0; g < m->row_group_count; g++) {
        const cf_parquet_row_group *rg = &m->row_groups[g];
        CF_CHECK(rg->num_rows >= 0, err, CF_ECORRUPT,
                 "row group %" PRIu32 ": num_rows %" PRId64 " < 0", g, rg->num_rows);
        CF_CHECK(!__builtin_add_overflow(total, rg->num_rows, &total), err, CF_ECORRUPT,
                 "row group %" PRIu32 ": row count overflows", g);
        CF_CHECK(rg->column_count == pq->schema.column_count, err, CF_ECORRUPT,
                 "row group %" PRIu32 ": %" PRIu32 " column chunks, the schema has %" PRIu32
                 " columns",
                 g, rg->column_count, pq->schema.column_count);
        for (uint32_t c = 0; c < rg->column_count; c++) {
            const cf_parquet_column_chunk *cc = &rg->columns[c];
            if (cc->encrypted)
                CF_FAIL(err, CF_ENOTSUP,
                        "row group %" PRIu32 " column %" PRIu32 ": encrypted column", g, c);
            if (cc->has_file_path)
                CF_FAIL(err, CF_ENOTSUP,
                        "row group %" PRIu32 " column %" PRIu32
                        ": the chunk lives in another file (file_path \"%.*s\")",
                        g, c, cc->file_path.len > 100 ? 100 : (int)cc->file_path.len,
                        cc->file_path.len ? (const char *)cc->file_path.data : "");
            CF_CHECK(cc->has_meta_data, err, CF_ECORRUPT,
                     "row group %" PRIu32 " column %" PRIu32 ": no ColumnMetaData", g, c);
            CF_TRY(check_chunk(pq, g, c, cc, &pq->schema.columns[c], err));
        }
    }
    pq->num_rows = total;
    return CF_OK;
}

static cf_status open_io(cf_parquet *pq, const cf_parquet_options *o, cf_error *err)
{
    cf_io *io = pq->io;
    pq->file_size = io->ops->size(io);
    CF_CHECK(pq->file_size >= 12, err, CF_ECORRUPT,
             "parquet: %" PRIu64 " bytes cannot hold the magic and the footer length "
             "(12 bytes at least)",
             pq->file_size);
    uint8_t head[4], tail[8];
    CF_TRY(io->ops->read_at(io, 0, head, 4, err));
    CF_TRY(io->ops->read_at(io, pq->file_size - 8, tail, 8, err));
    if (memcmp(tail + 4, CF_PQ_MAGIC_ENCRYPTED, 4) == 0)
        CF_FAIL(err, CF_ENOTSUP, "parquet: encrypted footer (\"PARE\") is not supported");
    CF_CHECK(memcmp(head, CF_PQ_MAGIC, 4) == 0, err, CF_ECORRUPT,
             "parquet: no \"PAR1\" magic at offset 0 (found %02x %02x %02x %02x)", head[0], head[1],
             head[2], head[3]);
    CF_CHECK(memcmp(tail + 4, CF_PQ_MAGIC, 4) == 0, err, CF_ECORRUPT,
             "parquet: no \"PAR1\" magic at the end (offset %" PRIu64
             ", found %02x %02x %02x %02x)",
             pq->file_size - 4, tail[4], tail[5], tail[6], tail[7]);
    uint32_t len = cf_load_le32(tail);
    pq->footer_len = len;
    CF_CHECK(len > 0, err, CF_ECORRUPT, "parquet: footer length 0 (offset %" PRIu64 ")",
             pq->file_size - 8);
    CF_CHECK(len <= pq->file_size - 12, err, CF_ECORRUPT,
             "parquet: footer length %" PRIu32 " at offset %" PRIu64 " exceeds the %" PRIu64
             " bytes between the magics",
             len, pq->file_size - 8, pq->file_size - 12);
    CF_CHECK(len <= o->max_footer_len, err, CF_ENOTSUP,
             "parquet: footer of %" PRIu32 " bytes exceeds the limit of %zu", len,
             o->max_footer_len);
    uint64_t foff = pq->file_size - 8 - len;
    pq->footer = cf_malloc(len);
    CF_CHECK(pq->footer, err, CF_ENOMEM, "parquet: out of memory for a %" PRIu32 "-byte footer",
             len);
    CF_TRY(io->ops->read_at(io, foff, pq->footer, len, err));

    cf_thrift_reader r;
    cf_thrift_reader_init(&r, pq->footer, len, foff, "footer", err);
    cf_status st = cf_pq_file_meta_decode(&r, &pq->meta);
    pq->arena = cf_thrift_reader_take_arena(&r);
    if (st != CF_OK)
        return cf_error_prefix(err, st, "parquet: ");
    /* parquet-mr and others pad nothing after FileMetaData; trailing bytes mean
     * the length or the struct is wrong. */
    CF_CHECK(cf_thrift_pos(&r) == len, err, CF_ECORRUPT,
             "parquet: footer at offset %" PRIu64 " is %" PRIu32 " bytes but FileMetaData "
             "ends after %zu",
             foff, len, cf_thrift_pos(&r));
    st = cf_pq_schema_build(&pq->schema, pq->meta.schema, pq->meta.schema_count, err);
    if (st != CF_OK)
        return cf_error_prefix(err, st, "parquet: ");
    st = check_meta(pq, err);
    if (st != CF_OK)
        return cf_error_prefix(err, st, "parquet: ");
    return CF_OK;
}

cf_status cf_parquet_open(cf_parquet **out, cf_io *io, const cf_parquet_options *opts,
                          cf_error *err)
{
    *out = NULL;
    cf_parquet_options def;
    if (!opts) {
        cf_parquet_options_init(&def);
        opts = &def;
    }
    CF_CHECK(opts->version == CF_PARQUET_OPTIONS_VERSION, err, CF_EINVAL,
             "parquet options: version %" PRIu32 " (expected %d; call cf_parquet_options_init)",
             opts->version, CF_PARQUET_OPTIONS_VERSION);
    cf_parquet *pq = cf_calloc(1, sizeof(*pq));
    CF_CHECK(pq, err, CF_ENOMEM, "parquet: out of memory");
    pq->io = io;
    cf_status st = open_io(pq, opts, err);
    if (st != CF_OK) {
        cf_parquet_free(pq);
        return st;
    }
    *out = pq;
    return CF_OK;
}

cf_status cf_parquet_open_file(cf_parquet **out, const char *path, const cf_parquet_options *opts,
                               cf_error *err)
{
    *out = NULL;
    cf_io *io;
    CF_TRY(cf_io_open_file(&io, path, err));
    cf_status st = cf_parquet_open(out, io, opts, err);
    if (st != CF_OK) {
        cf_io_free(io);
        return st;
    }
    (*out)->own_io = true;
    return CF_OK;
}

void cf_parquet_free(cf_parquet *pq)
{
    if (!pq)
        return;
    cf_pq_schema_dispose(&pq->schema);
    cf_arena_dispose(&pq->arena);
    cf_free(pq->footer);
    if (pq->own_io)
        cf_io_free(pq->io);
    cf_free(pq);
}

const cf_parquet_file_meta *cf_parquet_meta(const cf_parquet *pq)
{
    return &pq->meta;
}
uint64_t cf_parquet_file_size(const cf_parquet *pq)
{
    return pq->file_size;
}
uint32_t cf_parquet_footer_len(const cf_parquet *pq)
{
    return pq->footer_len;
}
int64_t cf_parquet_num_rows(const cf_parquet *pq)
{
    return pq->num_rows;
}
const cf_parquet_node *cf_parquet_schema_root(const cf_parquet *pq)
{
    return &pq->schema.nodes[0];
}
uint32_t cf_parquet_column_count(const cf_parquet *pq)
{
    return pq->schema.column_count;
}
const cf_parquet_column *cf_parquet_column_at(const cf_parquet *pq, uint32_t i)
{
    return i < pq->schema.column_count ? &pq->schema.columns[i] : NULL;
}
cf_status cf_pq_chunk_at(const cf_parquet *pq, uint32_t row_group, uint32_t column,
                         const char *what, const cf_parquet_column_chunk **out, cf_error *err)
{
    *out = NULL;
    CF_CHECK(row_group < pq->meta.row_group_count && column < pq->schema.column_count, err,
             CF_EINVAL, "%s: row group %" PRIu32 " column %" PRIu32 " out of range", what,
             row_group, column);
    *out = &pq->meta.row_groups[row_group].columns[column];
    return CF_OK;
}
cf_io *cf_parquet_io(const cf_parquet *pq)
{
    return pq->io;
}

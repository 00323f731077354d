/* The pages of a column chunk (parquet-format README "Column chunks",
 * "Checksumming"; parquet.thrift PageHeader):
 *
 *   chunk = [dictionary page] data page* ; page = PageHeader (compact Thrift) | body
 *   body  = compressed_page_size bytes; v1: levels and values compressed together;
 *           v2: repetition levels | definition levels (never compressed) | values
 *   crc   = CRC-32 (the zlib/gzip polynomial, not CRC-32C) of the body as stored
 *
 * The chunk spans total_compressed_size bytes from its first page (the
 * dictionary page when there is one). Headers are read through a window that
 * grows while a header does not fit it, so huge statistics cost only what the
 * chunk holds; bodies are served in place when the io can lend its bytes. */
#include "internal.h"

#include <string.h>

#include <zlib.h>

#include "codec/crc32.h"

#include "util/alloc.h"
#include "util/error.h"

struct cf_parquet_pages {
    const cf_parquet *pq;
    uint32_t row_group, column;
    bool verify_crc;
    uint64_t pos, end;   /* next page header, end of the chunk */
    int64_t values_left; /* the chunk's num_values not yet seen in data pages */
    uint32_t index;      /* pages returned */
    bool seen_data;
    bool skipped;   /* a seek passed over pages: no count at the end */
    uint64_t start; /* the chunk's first page */
    uint8_t *buf;   /* header window and body, when the io cannot lend */
    size_t cap;
};

static cf_status grow(cf_parquet_pages *it, size_t n, cf_error *err)
{
    if (n <= it->cap)
        return CF_OK;
    uint8_t *b = cf_realloc(it->buf, n);
    CF_CHECK(b, err, CF_ENOMEM, "parquet pages: out of memory for %zu bytes", n);
    it->buf = b;
    it->cap = n;
    return CF_OK;
}

/* [off, off+len) of the file: in place when the io lends it, else copied. */
static cf_status get_bytes(cf_parquet_pages *it, uint64_t off, size_t len, const uint8_t **out,
                           cf_error *err)
{
    cf_io *io = cf_parquet_io(it->pq);
    if (io->ops->view_at) {
        const uint8_t *p = io->ops->view_at(io, off, len);
        if (p) {
            *out = p;
            return CF_OK;
        }
    }
    CF_TRY(grow(it, len ? len : 1, err));
    CF_TRY(io->ops->read_at(io, off, it->buf, len, err));
    *out = it->buf;
    return CF_OK;
}

void cf_parquet_pages_options_init(cf_parquet_pages_options *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->version = CF_PARQUET_PAGES_OPTIONS_VERSION;
    opts->verify_crc = true;
}

cf_status cf_parquet_pages_open(cf_parquet_pages **out, const cf_parquet *pq, uint32_t row_group,
                                uint32_t column, const cf_parquet_pages_options *opts,
                                cf_error *err)
{
    *out = NULL;
    cf_parquet_pages_options def;
    if (!opts) {
        cf_parquet_pages_options_init(&def);
        opts = &def;
    }
    CF_CHECK(opts->version == CF_PARQUET_PAGES_OPTIONS_VERSION, err, CF_EINVAL,
             "parquet pages options: version %" PRIu32
             " (expected %d; call cf_parquet_pages_options_init)",
             opts->version, CF_PARQUET_PAGES_OPTIONS_VERSION);
    const cf_parquet_column_chunk *cc;
    CF_TRY(cf_pq_chunk_at(pq, row_group, column, "parquet pages", &cc, err));
    const cf_parquet_column_meta *cm = &cc->meta;
    cf_parquet_pages *it = cf_calloc(1, sizeof(*it));
    CF_CHECK(it, err, CF_ENOMEM, "parquet pages: out of memory");
    it->pq = pq;
    it->row_group = row_group;
    it->column = column;
    it->verify_crc = opts->verify_crc;
    /* The same start as the open-time range check (parquet.c check_chunk). */
    bool has_dict = cm->has_dictionary_page_offset && cm->dictionary_page_offset > 0;
    bool has_data = cm->num_values > 0 || cm->data_page_offset != 0;
    int64_t start = cm->data_page_offset;
    if (has_dict && (!has_data || cm->dictionary_page_offset < cm->data_page_offset))
        start = cm->dictionary_page_offset;
    it->pos = (uint64_t)start;
    it->end = has_dict || has_data ? (uint64_t)start + (uint64_t)cm->total_compressed_size
                                   : it->pos; /* no pages at all */
    it->values_left = cm->num_values;
    it->start = it->pos;
    *out = it;
    return CF_OK;
}

cf_status cf_parquet_pages_seek(cf_parquet_pages *it, uint64_t offset, cf_error *err)
{
    CF_CHECK(offset >= it->start && offset < it->end, err, CF_ECORRUPT,
             "row group %" PRIu32 " column %" PRIu32 ": page offset %" PRIu64
             " outside the chunk (%" PRIu64 "..%" PRIu64 ")",
             it->row_group, it->column, offset, it->start, it->end);
    if (offset != it->pos)
        it->skipped = true;
    it->pos = offset;
    it->seen_data = true; /* a dictionary page is only valid first */
    if (it->index == 0)
        it->index = 1;
    return CF_OK;
}

void cf_parquet_pages_free(cf_parquet_pages *it)
{
    if (!it)
        return;
    cf_free(it->buf);
    cf_free(it);
}

#define WHERE "row group %" PRIu32 " column %" PRIu32 " page %" PRIu32 " at offset %" PRIu64
#define WHERE_ARGS it->row_group, it->column, it->index, it->pos

/* Decode the header at it->pos, widening the window while it does not fit. */
static cf_status read_header(cf_parquet_pages *it, cf_pq_page_header *h, size_t *hl, cf_error *err)
{
    uint64_t left = it->end - it->pos;
    size_t win = left < 256 ? (size_t)left : 256;
    for (;;) {
        const uint8_t *p;
        CF_TRY(get_bytes(it, it->pos, win, &p, err));
        cf_status st = cf_pq_page_header_decode(h, hl, p, win, it->pos, err);
        if (st == CF_OK || st != CF_ECORRUPT || win == left)
            return st == CF_OK ? st : cf_error_prefix(err, st, WHERE ": ", WHERE_ARGS);
        win = left < (uint64_t)win * 4 ? (size_t)left : win * 4;
    }
}

cf_status cf_parquet_pages_next(cf_parquet_pages *it, cf_parquet_page *pg, bool *has, cf_error *err)
{
    memset(pg, 0, sizeof(*pg));
    *has = false;
    if (it->pos >= it->end) {
        CF_CHECK(it->values_left == 0 || it->skipped, err, CF_ECORRUPT,
                 "row group %" PRIu32 " column %" PRIu32 ": the chunk's pages hold %" PRId64
                 " values fewer than its num_values says",
                 it->row_group, it->column, it->values_left);
        return CF_OK;
    }
    cf_pq_page_header h;
    size_t hl;
    CF_TRY(read_header(it, &h, &hl, err));
    uint64_t left = it->end - it->pos - hl;
    CF_CHECK((uint64_t)h.compressed_page_size <= left, err, CF_ECORRUPT,
             WHERE ": %" PRId32 " page bytes, only %" PRIu64 " left in the chunk", WHERE_ARGS,
             h.compressed_page_size, left);
    pg->offset = it->pos;
    pg->header_len = (uint32_t)hl;
    pg->type = h.type;
    pg->compressed_size = h.compressed_page_size;
    pg->uncompressed_size = h.uncompressed_page_size;
    pg->num_nulls = pg->num_rows = -1;
    pg->encoding = pg->def_encoding = pg->rep_encoding = -1;
    pg->def_levels_len = pg->rep_levels_len = -1;
    pg->is_compressed = true;
    pg->has_crc = h.has_crc;
    pg->crc = h.crc;
    switch (h.type) {
    case CF_PARQUET_DICTIONARY_PAGE:
        CF_CHECK(!it->seen_data && it->index == 0, err, CF_ECORRUPT,
                 WHERE ": a dictionary page after the first page", WHERE_ARGS);
        pg->num_values = h.dictionary_page.num_values;
        pg->encoding = h.dictionary_page.encoding;
        pg->is_sorted = h.dictionary_page.has_is_sorted && h.dictionary_page.is_sorted;
        break;
    case CF_PARQUET_DATA_PAGE:
        pg->num_values = h.data_page.num_values;
        pg->encoding = h.data_page.encoding;
        pg->def_encoding = h.data_page.definition_level_encoding;
        pg->rep_encoding = h.data_page.repetition_level_encoding;
        pg->has_statistics = h.data_page.has_statistics;
        pg->statistics = h.data_page.statistics;
        break;
    case CF_PARQUET_DATA_PAGE_V2: {
        const cf_pq_data_page_header_v2 *v = &h.data_page_v2;
        /* Both level sections sit uncompressed at the front of the page. */
        CF_CHECK((int64_t)v->definition_levels_byte_length + v->repetition_levels_byte_length <=
                     h.compressed_page_size,
                 err, CF_ECORRUPT,
                 WHERE ": levels of %" PRId32 "+%" PRId32 " bytes in a page of %" PRId32,
                 WHERE_ARGS, v->repetition_levels_byte_length, v->definition_levels_byte_length,
                 h.compressed_page_size);
        pg->num_values = v->num_values;
        pg->num_nulls = v->num_nulls;
        pg->num_rows = v->num_rows;
        pg->encoding = v->encoding;
        pg->def_levels_len = v->definition_levels_byte_length;
        pg->rep_levels_len = v->repetition_levels_byte_length;
        pg->is_compressed = v->is_compressed;
        pg->has_statistics = v->has_statistics;
        pg->statistics = v->statistics;
        break;
    }
    default: /* index pages and types from the future: skipped by readers */ break;
    }
    if (h.type == CF_PARQUET_DATA_PAGE || h.type == CF_PARQUET_DATA_PAGE_V2) {
        it->seen_data = true;
        CF_CHECK(pg->num_values <= it->values_left || it->skipped, err, CF_ECORRUPT,
                 WHERE ": %" PRId32 " values, more than the chunk's %" PRId64 " left", WHERE_ARGS,
                 pg->num_values, it->values_left);
        it->values_left -= pg->num_values;
    }
    /* The statistics point into the header window, which the body read may
     * replace: keep the page bytes after the header in the same window. */
    const uint8_t *p;
    CF_TRY(get_bytes(it, it->pos, hl + (size_t)h.compressed_page_size, &p, err));
    pg->body.data = p + hl;
    pg->body.len = (size_t)h.compressed_page_size;
    if (pg->has_statistics) {
        /* Re-point the statistics into the bytes just fetched. */
        cf_pq_page_header again;
        size_t hl2;
        CF_TRY(cf_pq_page_header_decode(&again, &hl2, p, hl, it->pos, err));
        pg->statistics = h.type == CF_PARQUET_DATA_PAGE ? again.data_page.statistics
                                                        : again.data_page_v2.statistics;
    }
    if (it->verify_crc && pg->has_crc) {
        uint32_t got = cf_crc32(0, pg->body.data, pg->body.len);
        CF_CHECK(got == pg->crc, err, CF_ECORRUPT,
                 WHERE ": page CRC-32 mismatch (stored %08" PRIx32 ", computed %08" PRIx32 ")",
                 WHERE_ARGS, pg->crc, got);
    }
    it->pos += hl + (uint64_t)h.compressed_page_size;
    it->index++;
    *has = true;
    return CF_OK;
}

/* A Parquet column chunk to the file: the dictionary page and the held data
 * pages (at the row group's end, or once when the chunk starts to stream),
 * the chunk's record for the footer and page index, sealing ahead on a job
 * (last page, dictionary page, bloom bits), and the bloom filter after the
 * chunk. It must not encode values or pages (writer_col.c, writer_col_page.c)
 * and writes only to the io it is given.
 */
#include "writer_col.h"

/* Chunk statistics with a longer min or max leave both out (null_count stays). */
#define STATS_MAX_LEN 4096

/* The chunk's dictionary page (when its pages use one) and the data pages
 * held so far, to io: the chunk's file offsets are set and the pages' memory
 * is free for the next ones. */
cf_status cf_pq_wcol_write_held(cf_pq_wcol *c, cf_io *io, cf_error *err)
{
    c->chunk_off = (int64_t)io->ops->size(io);
    c->dict_unc = 0;
    if (c->dict_used) {
        if (!c->dict_ready)
            CF_TRY(cf_pq_wcol_dict_page(c, err));
        c->dict_ready = false;
        const cf_buf *stored = c->o.codec != CF_PQC_UNCOMPRESSED ? &c->comp : &c->dict;
        CF_TRY(io_put(io, c->hdr.data, c->hdr.len, err));
        CF_TRY(io_put(io, stored->data, stored->len, err));
        c->dict_unc = (int64_t)(c->hdr.len + c->dict.len);
        c->encodings |= 1u << CF_PQE_PLAIN;
    }
    c->data_off = (int64_t)io->ops->size(io);
    for (size_t i = 0, h = 0, p = 0; i < c->nrecs; i++) {
        size_t hl = c->recs[i].hdr_len, pl = (size_t)c->recs[i].size - hl;
        if (hl == 0) /* in flight (every header has bytes): it streams once committed */
            break;
        CF_TRY(io_put(io, c->hdrs.data + h, hl, err));
        CF_TRY(io_put(io, c->pages.data + p, pl, err));
        h += hl;
        p += pl;
    }
    cf_buf_clear(&c->pages);
    cf_buf_clear(&c->hdrs);
    return CF_OK;
}

cf_status cf_pq_wcol_write_chunk(cf_pq_wcol *c, cf_io *io, cf_pq_chunk_rec *rec, cf_error *err)
{
    CF_TRY(cf_pq_wcol_flush_page(c, err));
    CF_TRY(cf_pq_wcol_drain(c, err));
    memset(rec, 0, sizeof(*rec));
    if (c->streaming) /* the pages are in the file already */
        CF_CHECK(io == c->stream_io, err, CF_ESTATE, "column %s: chunk streamed to another file",
                 c->d.name);
    else
        CF_TRY(cf_pq_wcol_write_held(c, io, err));
    if (c->dict_used) {
        rec->has_dict = true;
        rec->dict_page_offset = c->chunk_off;
    }
    rec->data_page_offset = c->data_off;
    rec->num_values = c->num_values;
    rec->total_uncompressed = c->dict_unc + c->unc_total;
    rec->total_compressed = (int64_t)io->ops->size(io) - c->chunk_off;
    rec->encodings = c->encodings;
    rec->has_stats = c->o.statistics;
    rec->null_count = c->cnulls;
    if (c->o.statistics && c->cstat.has && c->cstat.min.len <= STATS_MAX_LEN &&
        c->cstat.max.len <= STATS_MAX_LEN) {
        rec->min = cf_malloc(c->cstat.min.len + 1);
        rec->max = cf_malloc(c->cstat.max.len + 1);
        CF_CHECK(rec->min != NULL && rec->max != NULL, err, CF_ENOMEM, "out of memory");
        if (c->cstat.min.len) /* the empty string's buffer may be NULL */
            memcpy(rec->min, c->cstat.min.data, c->cstat.min.len);
        if (c->cstat.max.len)
            memcpy(rec->max, c->cstat.max.data, c->cstat.max.len);
        rec->min_len = (uint32_t)c->cstat.min.len;
        rec->max_len = (uint32_t)c->cstat.max.len;
        cf_pq_minmax_fix_zero(c->d.sort, rec->min, rec->max);
        rec->has_minmax = true;
    }
    if (c->o.page_index) {
        for (size_t i = 0; i < c->nrecs; i++)
            c->recs[i].offset += rec->data_page_offset;
        rec->page_count = (uint32_t)c->nrecs;
        rec->pages = c->recs;
        c->recs = NULL;
        c->recs_cap = 0;
        rec->bounds = c->bounds.data;
        cf_buf_init(&c->bounds);
        rec->ci_ok = c->ci_ok;
    }
    cf_pq_wcol_reset_chunk(c);
    return CF_OK;
}

/* The bloom filter's bits from the chunk's distinct hashes. */
static cf_status bloom_bits(cf_pq_wcol *c, cf_error *err)
{
    cf_pq_hashset *s = &c->bloom;
    size_t bytes = cf_pq_bloom_bytes(s->count + s->has_zero, c->o.bloom_fpp);
    uint8_t *bits = cf_calloc(1, bytes);
    CF_CHECK(bits != NULL, err, CF_ENOMEM, "column %s: out of memory for a %zu-byte bloom filter",
             c->d.name, bytes);
    for (size_t i = 0; i < s->cap; i++)
        if (s->slots[i] != 0)
            cf_pq_bloom_insert(bits, bytes, s->slots[i]);
    if (s->has_zero)
        cf_pq_bloom_insert(bits, bytes, 0);
    cf_pq_hashset_dispose(s);
    c->bloom_bits = bits;
    c->bloom_nbytes = bytes;
    return CF_OK;
}

cf_status cf_pq_wcol_seal(cf_pq_wcol *c, cf_error *err)
{
    CF_TRY(cf_pq_wcol_flush_page(c, err));
    /* the dictionary page and the bloom bits while the last page builds */
    if (c->dict_used && !c->streaming)
        CF_TRY(cf_pq_wcol_dict_page(c, err));
    if (c->d.bloom && c->bloom_bits == NULL)
        CF_TRY(bloom_bits(c, err));
    return cf_pq_wcol_drain(c, err);
}

cf_status cf_pq_wcol_write_bloom(cf_pq_wcol *c, cf_io *io, cf_pq_chunk_rec *rec, cf_error *err)
{
    if (!c->d.bloom)
        return CF_OK;
    if (c->bloom_bits == NULL)
        CF_TRY(bloom_bits(c, err));
    uint8_t *bits = c->bloom_bits;
    size_t bytes = c->bloom_nbytes;
    c->bloom_bits = NULL;

    cf_buf *hdr = &c->hdr;
    cf_buf_clear(hdr);
    cf_thrift_writer tw;
    cf_thrift_writer_init(&tw, hdr);
    cf_thrift_write_struct_begin(&tw);
    cf_thrift_write_field_i32(&tw, 1, (int32_t)bytes);
    for (int16_t f = 2; f <= 4; f++) { /* algorithm BLOCK, hash XXHASH, UNCOMPRESSED */
        cf_thrift_write_field(&tw, f, CF_TT_STRUCT);
        cf_thrift_write_struct_begin(&tw);
        cf_thrift_write_field(&tw, 1, CF_TT_STRUCT);
        cf_thrift_write_struct_begin(&tw);
        cf_thrift_write_struct_end(&tw);
        cf_thrift_write_struct_end(&tw);
    }
    cf_thrift_write_struct_end(&tw);
    cf_status st = CF_OK;
    if (cf_thrift_writer_status(&tw) != CF_OK) {
        cf_free(bits);
        CF_FAIL(err, CF_ENOMEM, "column %s: out of memory", c->d.name);
    }
    rec->has_bloom = true;
    rec->bloom_offset = (int64_t)io->ops->size(io);
    rec->bloom_len = (int32_t)(hdr->len + bytes);
    st = io_put(io, hdr->data, hdr->len, err);
    if (st == CF_OK)
        st = io_put(io, bits, bytes, err);
    cf_free(bits);
    return st;
}

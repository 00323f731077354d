/* A data page of a Parquet column chunk, closed: its levels and values
 * encoded (RLE levels; dictionary indices or PLAIN values), compressed, its
 * header (sizes, encodings, CRC) made, its record for the page index kept and
 * the chunk's totals and min and max moved on; then, when the chunk streams,
 * written. It must not decide when a page closes (writer_col.c,
 * writer_col_fixed.c) or write the chunk's held pages (writer_col_chunk.c).
 */
#include "writer_col.h"

#include "codec/crc32.h"

void cf_pq_wcol_put_crc(const cf_pq_wcol *c, cf_thrift_writer *tw, const uint8_t *a, size_t al,
                        const uint8_t *b2, size_t bl)
{
    if (!c->o.page_crc)
        return;
    uint32_t crc = cf_crc32(0, a, al);
    if (bl)
        crc = cf_crc32(crc, b2, bl);
    cf_thrift_write_field_i32(tw, 4, (int32_t)(uint32_t)crc);
}

/* Let the chunk write from here on (see the top): its dictionary is settled. */
static cf_status start_stream(cf_pq_wcol *c, cf_error *err)
{
    CF_TRY(cf_pq_wcol_write_held(c, c->stream_io, err));
    c->streaming = true;
    return CF_OK;
}

/* Close the open page: encode, compress, and add it to the chunk. The body
 * goes into `pages` as it is made (values encoded after the levels in `body`,
 * or PLAIN values taken from `plain` where they lie, compressed straight into
 * `pages`); the header, which needs the stored size and CRC, goes into `hdrs`.
 * write_chunk interleaves the two. */
cf_status cf_pq_wcol_flush_page(cf_pq_wcol *c, cf_error *err)
{
    if (c->nlev == 0)
        return CF_OK;
    if (c->stream_io != NULL && !c->streaming && !c->dict_on)
        CF_TRY(start_stream(c, err));
    const bool v2 = c->o.v2, dict = c->dict_on;
    cf_buf *body = &c->body, *pages = &c->pages;
    cf_buf_clear(body);

    /* levels: repetition first, then definition */
    CF_TRY(cf_pq_levels_encode(body, c->rep, c->nlev, CF_PQE_RLE, c->d.max_rep, !v2, err));
    size_t rep_len = body->len;
    CF_TRY(cf_pq_levels_encode(body, c->def, c->nlev, CF_PQE_RLE, c->d.max_def, !v2, err));
    const size_t lev_len = body->len, def_len = lev_len - rep_len;

    /* the values: [vals, vals + vals_len), after the levels in body unless
     * they are PLAIN bytes that can be compressed (or stored) where they lie */
    unsigned enc;
    if (dict) {
        enc = CF_PQE_RLE_DICTIONARY;
        CF_TRY(cf_pq_dict_indices_encode(body, c->idx, c->nidx, (uint32_t)c->dict_count, err));
        c->dict_used = true;
    } else {
        enc = CF_PQE_PLAIN;
        if (c->d.ptype == CF_PQT_BOOLEAN)
            CF_TRY(
                cf_pq_encode(body, CF_PQE_PLAIN, CF_PQT_BOOLEAN, 0, c->plain.data, c->nvals, err));
        else if (!v2 && lev_len > 0)
            cf_buf_append(body, c->plain.data, c->plain.len); /* v1 compresses both together */
    }
    CF_CHECK(!body->oom, err, CF_ENOMEM, "column %s: out of memory for a page", c->d.name);
    const bool in_body = dict || c->d.ptype == CF_PQT_BOOLEAN || (!v2 && lev_len > 0);
    const uint8_t *vals = in_body ? body->data + lev_len : c->plain.data;
    const size_t vals_len = in_body ? body->len - lev_len : c->plain.len;
    if (vals == NULL)
        vals = (const uint8_t *)""; /* nothing allocated for no values */

    /* what is compressed: v1 the levels and values, v2 only the values (the
     * levels are stored before them as they are) */
    const uint8_t *src = v2 || !in_body ? vals : body->data;
    const size_t src_len = v2 || !in_body ? vals_len : body->len;
    const size_t unc_len = lev_len + vals_len;
    const size_t start = pages->len;
    if (v2 && lev_len > 0)
        cf_buf_append(pages, body->data, lev_len);
    CF_CHECK(!pages->oom, err, CF_ENOMEM, "column %s: out of memory for the row group's pages",
             c->d.name);
    if (c->o.codec == CF_PQC_UNCOMPRESSED) {
        cf_buf_append(pages, src, src_len);
        CF_CHECK(!pages->oom, err, CF_ENOMEM, "column %s: out of memory for the row group's pages",
                 c->d.name);
    } else {
        CF_TRY(cf_pq_compressor_run(c->cz, src, src_len, pages, err));
    }
    const size_t page_len = pages->len - start;
    CF_CHECK(unc_len <= INT32_MAX && page_len <= INT32_MAX, err, CF_EINVAL,
             "column %s: a page of %zu bytes exceeds 2^31 - 1 (lower the page size)", c->d.name,
             unc_len);

    cf_buf *hdr = &c->hdrs;
    const size_t hdr_at = hdr->len;
    cf_thrift_writer tw;
    cf_thrift_writer_init(&tw, hdr);
    cf_thrift_write_struct_begin(&tw);
    cf_thrift_write_field_i32(&tw, 1, v2 ? CF_PARQUET_DATA_PAGE_V2 : CF_PARQUET_DATA_PAGE);
    cf_thrift_write_field_i32(&tw, 2, (int32_t)unc_len);
    cf_thrift_write_field_i32(&tw, 3, (int32_t)page_len);
    cf_pq_wcol_put_crc(c, &tw, pages->data + start, page_len, NULL, 0);
    if (!v2) {
        cf_thrift_write_field(&tw, 5, CF_TT_STRUCT);
        cf_thrift_write_struct_begin(&tw);
        cf_thrift_write_field_i32(&tw, 1, (int32_t)c->nlev);
        cf_thrift_write_field_i32(&tw, 2, (int32_t)enc);
        cf_thrift_write_field_i32(&tw, 3, CF_PQE_RLE);
        cf_thrift_write_field_i32(&tw, 4, CF_PQE_RLE);
        cf_thrift_write_struct_end(&tw);
    } else {
        cf_thrift_write_field(&tw, 8, CF_TT_STRUCT);
        cf_thrift_write_struct_begin(&tw);
        cf_thrift_write_field_i32(&tw, 1, (int32_t)c->nlev);
        cf_thrift_write_field_i32(&tw, 2, (int32_t)(c->nlev - c->nvals));
        cf_thrift_write_field_i32(&tw, 3, (int32_t)c->page_rows);
        cf_thrift_write_field_i32(&tw, 4, (int32_t)enc);
        cf_thrift_write_field_i32(&tw, 5, (int32_t)def_len);
        cf_thrift_write_field_i32(&tw, 6, (int32_t)rep_len);
        cf_thrift_write_field_bool(&tw, 7, c->o.codec != CF_PQC_UNCOMPRESSED);
        cf_thrift_write_struct_end(&tw);
    }
    cf_thrift_write_struct_end(&tw);
    CF_CHECK(cf_thrift_writer_status(&tw) == CF_OK, err, CF_ENOMEM, "column %s: out of memory",
             c->d.name);
    const size_t hdr_len = hdr->len - hdr_at;

    /* the page record (offset within the chunk's data pages for now) */
    if (!grow((void **)&c->recs, &c->recs_cap, c->nrecs + 1, sizeof(*c->recs)))
        CF_FAIL(err, CF_ENOMEM, "column %s: out of memory for the page index", c->d.name);
    cf_pq_page_rec *pr = &c->recs[c->nrecs++];
    memset(pr, 0, sizeof(*pr));
    pr->offset = c->data_bytes;
    pr->size = (int32_t)(hdr_len + page_len);
    pr->hdr_len = (uint32_t)hdr_len;
    pr->first_row = c->page_first_row;
    pr->null_count = c->pnulls;
    pr->null_page = c->nvals == 0;
    if (c->pstat.has) {
        bool trunc = c->d.sort == CF_PQS_BYTES;
        pr->has_minmax = true;
        cf_pq_wcol_put_bound(&c->bounds, &c->pstat.min, false, trunc, &pr->min_off, &pr->min_len);
        cf_pq_wcol_put_bound(&c->bounds, &c->pstat.max, true, trunc, &pr->max_off, &pr->max_len);
        if (c->d.sort == CF_PQS_FLOAT || c->d.sort == CF_PQS_DOUBLE)
            cf_pq_minmax_fix_zero(c->d.sort, c->bounds.data + pr->min_off,
                                  c->bounds.data + pr->max_off);
    } else if (!pr->null_page) {
        c->ci_ok = false; /* only NaNs: no bounds to give */
    }
    CF_CHECK(!c->bounds.oom, err, CF_ENOMEM, "column %s: out of memory for the page index",
             c->d.name);

    /* chunk totals */
    c->data_bytes += (int64_t)(hdr_len + page_len);
    c->unc_total += (int64_t)(hdr_len + unc_len);
    c->encodings |= 1u << enc;
    if (c->d.max_def || c->d.max_rep)
        c->encodings |= 1u << CF_PQE_RLE;
    c->num_values += (int64_t)c->nlev;
    c->cnulls += c->pnulls;
    if (c->pstat.has) {
        minmax_add(&c->cstat, c->d.sort, c->pstat.min.data, c->pstat.min.len);
        minmax_add(&c->cstat, c->d.sort, c->pstat.max.data, c->pstat.max.len);
    }

    if (c->streaming) {
        CF_TRY(io_put(c->stream_io, hdr->data + hdr_at, hdr_len, err));
        CF_TRY(io_put(c->stream_io, pages->data + start, page_len, err));
        cf_buf_clear(pages);
        cf_buf_clear(hdr);
    }

    c->nlev = 0;
    c->nidx = 0;
    if (++c->page_no == 0) { /* wrapped: no entry may look seen in the new page */
        if (c->dict_seen)
            memset(c->dict_seen, 0, c->dict_seen_cap * sizeof(*c->dict_seen));
        c->page_no = 1;
    }
    cf_buf_clear(&c->plain);
    c->nvals = 0;
    c->page_rows = 0;
    c->page_first_row = c->rg_rows;
    c->pstat.has = false;
    c->pnulls = 0;
    return CF_OK;
}

/* A data page of a Parquet column chunk, closed, in two steps.
 *
 * Close (the column's thread): the page's record for the page index, the
 * chunk's totals, min and max moved on, and its values (levels, dictionary
 * indices or PLAIN bytes) handed to a build. Build: levels and values
 * encoded (RLE levels; RLE/bit-packed indices or PLAIN values), compressed,
 * its header (sizes, encodings, CRC) made, appended to the chunk's held
 * bytes. Commit (the column's thread, in page order): the page's offset and
 * size in the chunk, and when the chunk streams, the page to the file.
 *
 * Pipeline: with a worker team (cf_pq_wcol_pipeline, for a file of one
 * column, whose append has no other column to run beside), pages are built on
 * the team while the column goes on encoding the next ones. Closed pages go
 * into slots, a group of per_run (the team's threads) at a time: each closed
 * page's arrays are swapped with its slot's, so the open page goes on in the
 * slot's old set. A full group is posted as one run of per_run builds, after
 * the run before it has finished and its pages are committed; the caller
 * takes that run's unclaimed builds at that point, so per_run pages compress
 * at once while the caller encodes. At most 2 x per_run pages are in memory
 * beyond the chunk's held bytes, each with its stored body. A build writes
 * only its slot (its scratch, stored body and header) with its own
 * compressor and reads of the column only what is fixed at create; its page
 * joins the chunk (cf_pq_wcol_buffered, the held bytes or the stream) when it
 * is committed, in page order, so the bytes are those of one thread. A
 * build's error (out of memory, a page over 2^31 - 1 bytes) surfaces at the
 * next commit or drain, with the same text, the first in page order.
 *
 * It must not decide when a page closes (writer_col.c, writer_col_fixed.c)
 * or write the chunk's held pages (writer_col_chunk.c).
 */
#include "writer_col.h"

#include "codec/crc32.h"

/* The most bytes of header a data page can have (its Thrift fields, all at
 * their longest varints, are under 80). */
#define HDR_MAX 128

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

/* Let the chunk write from here on (see writer_col.c): its dictionary is settled. */
static cf_status start_stream(cf_pq_wcol *c, cf_error *err)
{
    CF_TRY(cf_pq_wcol_write_held(c, c->stream_io, err));
    c->streaming = true;
    return CF_OK;
}

/* Build page pg with compressor cz: its stored body is appended to `pages`
 * as it is made (values encoded after the levels in `body`, scratch, or PLAIN
 * values taken from `plain` where they lie, compressed straight into
 * `pages`); the header, which needs the stored size and CRC, to `hdrs`.
 * write_held interleaves the two. Reads of the column only what is fixed at
 * create (c->d, c->o). */
static cf_status build(const cf_pq_wcol *c, cf_pq_wpage *pg, cf_pq_compressor *cz, cf_buf *body,
                       cf_buf *pages, cf_buf *hdr, cf_error *err)
{
    const bool v2 = c->o.v2, dict = pg->dict;
    cf_buf_clear(body);

    /* levels: repetition first, then definition */
    CF_TRY(cf_pq_levels_encode(body, pg->rep, pg->nlev, CF_PQE_RLE, c->d.max_rep, !v2, err));
    size_t rep_len = body->len;
    CF_TRY(cf_pq_levels_encode(body, pg->def, pg->nlev, CF_PQE_RLE, c->d.max_def, !v2, err));
    const size_t lev_len = body->len, def_len = lev_len - rep_len;

    /* the values: [vals, vals + vals_len), after the levels in body unless
     * they are PLAIN bytes that can be compressed (or stored) where they lie */
    const cf_buf *plain = pg->plain;
    if (dict)
        CF_TRY(cf_pq_dict_indices_encode(body, pg->idx, pg->nidx, pg->dict_count, err));
    else if (c->d.ptype == CF_PQT_BOOLEAN)
        CF_TRY(cf_pq_encode(body, CF_PQE_PLAIN, CF_PQT_BOOLEAN, 0, plain->data, pg->nvals, err));
    else if (!v2 && lev_len > 0)
        cf_buf_append(body, plain->data, plain->len); /* v1 compresses both together */
    CF_CHECK(!body->oom, err, CF_ENOMEM, "column %s: out of memory for a page", c->d.name);
    const bool in_body = dict || c->d.ptype == CF_PQT_BOOLEAN || (!v2 && lev_len > 0);
    const uint8_t *vals = in_body ? body->data + lev_len : plain->data;
    const size_t vals_len = in_body ? body->len - lev_len : plain->len;
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
        CF_TRY(cf_pq_compressor_run(cz, src, src_len, pages, err));
    }
    const size_t page_len = pages->len - start;
    CF_CHECK(unc_len <= INT32_MAX && page_len <= INT32_MAX, err, CF_EINVAL,
             "column %s: a page of %zu bytes exceeds 2^31 - 1 (lower the page size)", c->d.name,
             unc_len);

    const size_t hdr_at = hdr->len;
    cf_thrift_writer tw;
    cf_thrift_writer_init(&tw, hdr);
    cf_thrift_write_struct_begin(&tw);
    cf_thrift_write_field_i32(&tw, 1, v2 ? CF_PARQUET_DATA_PAGE_V2 : CF_PARQUET_DATA_PAGE);
    cf_thrift_write_field_i32(&tw, 2, (int32_t)unc_len);
    cf_thrift_write_field_i32(&tw, 3, (int32_t)page_len);
    cf_pq_wcol_put_crc(c, &tw, pages->data + start, page_len, NULL, 0);
    const int32_t enc = dict ? CF_PQE_RLE_DICTIONARY : CF_PQE_PLAIN;
    if (!v2) {
        cf_thrift_write_field(&tw, 5, CF_TT_STRUCT);
        cf_thrift_write_struct_begin(&tw);
        cf_thrift_write_field_i32(&tw, 1, (int32_t)pg->nlev);
        cf_thrift_write_field_i32(&tw, 2, enc);
        cf_thrift_write_field_i32(&tw, 3, CF_PQE_RLE);
        cf_thrift_write_field_i32(&tw, 4, CF_PQE_RLE);
        cf_thrift_write_struct_end(&tw);
    } else {
        cf_thrift_write_field(&tw, 8, CF_TT_STRUCT);
        cf_thrift_write_struct_begin(&tw);
        cf_thrift_write_field_i32(&tw, 1, (int32_t)pg->nlev);
        cf_thrift_write_field_i32(&tw, 2, (int32_t)(pg->nlev - pg->nvals));
        cf_thrift_write_field_i32(&tw, 3, (int32_t)pg->page_rows);
        cf_thrift_write_field_i32(&tw, 4, enc);
        cf_thrift_write_field_i32(&tw, 5, (int32_t)def_len);
        cf_thrift_write_field_i32(&tw, 6, (int32_t)rep_len);
        cf_thrift_write_field_bool(&tw, 7, c->o.codec != CF_PQC_UNCOMPRESSED);
        cf_thrift_write_struct_end(&tw);
    }
    cf_thrift_write_struct_end(&tw);
    CF_CHECK(cf_thrift_writer_status(&tw) == CF_OK, err, CF_ENOMEM, "column %s: out of memory",
             c->d.name);
    pg->hdr_at = hdr_at;
    pg->hdr_len = hdr->len - hdr_at;
    pg->start = start;
    pg->page_len = page_len;
    pg->unc_len = unc_len;
    return CF_OK;
}

/* The built page into the chunk, in page order: its offset and size, the
 * chunk's byte totals, and when the chunk streams, the page (header at hdr,
 * stored body at body) to the file. */
static cf_status commit(cf_pq_wcol *c, const cf_pq_wpage *pg, const uint8_t *hdr,
                        const uint8_t *body, cf_error *err)
{
    cf_pq_page_rec *pr = &c->recs[pg->rec];
    pr->offset = c->data_bytes;
    pr->size = (int32_t)(pg->hdr_len + pg->page_len);
    pr->hdr_len = (uint32_t)pg->hdr_len;
    c->data_bytes += (int64_t)(pg->hdr_len + pg->page_len);
    c->unc_total += (int64_t)(pg->hdr_len + pg->unc_len);
    if (c->streaming) {
        CF_TRY(io_put(c->stream_io, hdr, pg->hdr_len, err));
        CF_TRY(io_put(c->stream_io, body, pg->page_len, err));
    }
    return CF_OK;
}

/* A slot's page into the chunk: held (its header and body appended to the
 * chunk's) or streamed. */
static cf_status commit_slot(cf_pq_wcol *c, cf_pq_fly *f, cf_error *err)
{
    if (!c->streaming) {
        cf_buf_append(&c->hdrs, f->hdr.data, f->hdr.len);
        cf_buf_append(&c->pages, f->out.data, f->out.len);
        CF_CHECK(!c->hdrs.oom && !c->pages.oom, err, CF_ENOMEM,
                 "column %s: out of memory for the row group's pages", c->d.name);
    }
    return commit(c, &f->pg, f->hdr.data, f->out.data, err);
}

/* A team job: build page i of the open run in its slot, with the run's i-th
 * compressor. */
static cf_status build_job(void *ctx, size_t i, cf_error *err)
{
    cf_pq_wcol *c = ctx;
    cf_pq_fly *f = &c->fly[c->run_group * c->per_run + i];
    cf_buf_clear(&f->out);
    cf_buf_clear(&f->hdr);
    return build(c, &f->pg, &c->fly_czs[i], &f->body, &f->out, &f->hdr, err);
}

/* Wait for the open run and commit its pages in order; the first failed
 * build's error. */
static cf_status finish_run(cf_pq_wcol *c, cf_error *err)
{
    if (!c->run_open)
        return CF_OK;
    cf_team_finish(c->team, c->ticket);
    c->run_open = false;
    const size_t base = c->run_group * c->per_run;
    for (size_t i = 0; i < c->run_n; i++) {
        if (c->fly_st[base + i] != CF_OK) {
            if (err)
                *err = c->fly_err[base + i];
            return c->fly_st[base + i];
        }
        CF_TRY(commit_slot(c, &c->fly[base + i], err));
    }
    return CF_OK;
}

/* Post the group being filled as the next run, after the open one is
 * committed. */
static cf_status post_group(cf_pq_wcol *c, cf_error *err)
{
    CF_TRY(finish_run(c, err));
    if (c->filled == 0)
        return CF_OK;
    const size_t base = c->fill_group * c->per_run;
    c->run_group = c->fill_group;
    c->run_n = c->filled;
    c->ticket =
        cf_team_start(c->team, build_job, c, c->filled, &c->fly_st[base], &c->fly_err[base]);
    c->run_open = true;
    c->fill_group ^= 1u;
    c->filled = 0;
    return CF_OK;
}

cf_status cf_pq_wcol_drain(cf_pq_wcol *c, cf_error *err)
{
    if (c->team == NULL)
        return CF_OK;
    CF_TRY(post_group(c, err));
    return finish_run(c, err);
}

uint64_t cf_pq_wcol_in_flight_max(const cf_pq_wcol *c)
{
    uint64_t most = 0;
    if (c->run_open)
        for (size_t i = 0; i < c->run_n; i++)
            most += c->fly[c->run_group * c->per_run + i].pg.bound;
    for (size_t i = 0; i < c->filled; i++)
        most += c->fly[c->fill_group * c->per_run + i].pg.bound;
    return most;
}

void cf_pq_wcol_fly_free(cf_pq_wcol *c)
{
    for (size_t i = 0; c->fly != NULL && i < 2 * c->per_run; i++) {
        cf_pq_fly *f = &c->fly[i];
        cf_free(f->def);
        cf_free(f->rep);
        cf_free(f->idx);
        cf_buf_dispose(&f->plain);
        cf_buf_dispose(&f->body);
        cf_buf_dispose(&f->out);
        cf_buf_dispose(&f->hdr);
    }
    cf_free(c->fly);
    cf_free(c->fly_st);
    cf_free(c->fly_err);
    c->fly = NULL;
    c->fly_st = NULL;
    c->fly_err = NULL;
}

cf_status cf_pq_wcol_pipeline(cf_pq_wcol *c, cf_team *team, cf_pq_compressor *czs, size_t per_run,
                              cf_error *err)
{
    c->per_run = per_run;
    c->fly = cf_calloc(2 * per_run, sizeof(*c->fly));
    c->fly_st = cf_calloc(2 * per_run, sizeof(*c->fly_st));
    c->fly_err = cf_calloc(2 * per_run, sizeof(*c->fly_err));
    if (c->fly == NULL || c->fly_st == NULL || c->fly_err == NULL) {
        cf_pq_wcol_fly_free(c);
        CF_FAIL(err, CF_ENOMEM, "column %s: out of memory for the pages in flight", c->d.name);
    }
    for (size_t i = 0; i < 2 * per_run; i++) {
        cf_buf_init(&c->fly[i].plain);
        cf_buf_init(&c->fly[i].body);
        cf_buf_init(&c->fly[i].out);
        cf_buf_init(&c->fly[i].hdr);
    }
    c->team = team;
    c->fly_czs = czs;
    return CF_OK;
}

#define SWAP(T, x, y)                                                                              \
    do {                                                                                           \
        T t_ = x;                                                                                  \
        x = y;                                                                                     \
        y = t_;                                                                                    \
    } while (0)

/* The open page's arrays and slot f's, exchanged: the closed page's values
 * go to the build, the open page goes on in the slot's old set. */
static void swap_arrays(cf_pq_wcol *c, cf_pq_fly *f)
{
    SWAP(uint16_t *, c->def, f->def);
    SWAP(uint16_t *, c->rep, f->rep);
    SWAP(uint32_t *, c->idx, f->idx);
    SWAP(size_t, c->lev_cap, f->lev_cap);
    SWAP(size_t, c->idx_cap, f->idx_cap);
    SWAP(cf_buf, c->plain, f->plain);
}

/* The most bytes page pg can add to the chunk (header and stored body):
 * levels at most 3 bytes each per stream, an index at most 5, PLAIN its
 * bytes, and a codec's output at most 1.5 times its input plus 4 KiB (every
 * codec's bound is well inside). Lets the writer see, without waiting for the
 * build, that a row group cannot have reached its size. */
static uint64_t page_bound(const cf_pq_wpage *pg)
{
    uint64_t unc = 2 * (3 * (uint64_t)pg->nlev + 16);
    unc += pg->dict ? 5 * (uint64_t)pg->nidx + 16 : (uint64_t)pg->plain->len + 16;
    return HDR_MAX + unc + unc / 2 + 4096;
}

cf_status cf_pq_wcol_flush_page(cf_pq_wcol *c, cf_error *err)
{
    if (c->nlev == 0)
        return CF_OK;
    /* Pages still in flight are committed later, in order, after the held
     * bytes start_stream writes. */
    if (c->stream_io != NULL && !c->streaming && !c->dict_on)
        CF_TRY(start_stream(c, err));
    const bool dict = c->dict_on;
    const unsigned enc = dict ? CF_PQE_RLE_DICTIONARY : CF_PQE_PLAIN;
    if (dict)
        c->dict_used = true;

    /* the page record (offset and size at commit) */
    if (!grow((void **)&c->recs, &c->recs_cap, c->nrecs + 1, sizeof(*c->recs)))
        CF_FAIL(err, CF_ENOMEM, "column %s: out of memory for the page index", c->d.name);
    const size_t rec = c->nrecs++;
    cf_pq_page_rec *pr = &c->recs[rec];
    memset(pr, 0, sizeof(*pr));
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

    /* chunk totals that do not wait for the bytes */
    c->encodings |= 1u << enc;
    if (c->d.max_def || c->d.max_rep)
        c->encodings |= 1u << CF_PQE_RLE;
    c->num_values += (int64_t)c->nlev;
    c->cnulls += c->pnulls;
    if (c->pstat.has) {
        minmax_add(&c->cstat, c->d.sort, c->pstat.min.data, c->pstat.min.len);
        minmax_add(&c->cstat, c->d.sort, c->pstat.max.data, c->pstat.max.len);
    }

    /* the build: on the team when the column has one, else here */
    cf_pq_fly *f = c->team != NULL ? &c->fly[c->fill_group * c->per_run + c->filled] : NULL;
    cf_pq_wpage *pg = f != NULL ? &f->pg : &c->page;
    pg->nlev = c->nlev;
    pg->nidx = c->nidx;
    pg->nvals = c->nvals;
    pg->page_rows = c->page_rows;
    pg->dict_count = (uint32_t)c->dict_count;
    pg->dict = dict;
    pg->rec = rec;
    if (f != NULL) {
        swap_arrays(c, f);
        pg->def = f->def;
        pg->rep = f->rep;
        pg->idx = f->idx;
        pg->plain = &f->plain;
        pg->bound = page_bound(pg);
        if (++c->filled == c->per_run)
            CF_TRY(post_group(c, err));
    } else {
        pg->def = c->def;
        pg->rep = c->rep;
        pg->idx = c->idx;
        pg->plain = &c->plain;
        CF_TRY(build(c, pg, c->cz, &c->body, &c->pages, &c->hdrs, err));
        CF_TRY(commit(c, pg, c->hdrs.data + pg->hdr_at, c->pages.data + pg->start, err));
        if (c->streaming) {
            cf_buf_clear(&c->pages);
            cf_buf_clear(&c->hdrs);
        }
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

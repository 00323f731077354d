/* One column chunk of the Parquet writer: Kudu values in, pages out. This
 * file owns the column's life (create, free, reset for the next chunk) and
 * its rows on the general path: Kudu values to PLAIN bytes, levels, values
 * into the open page, and when a page closes. It must not encode or write
 * pages (writer_col_page.c, writer_col_chunk.c), look into the dictionary's
 * table (writer_col_dict.c) or take the 4- and 8-byte fast path's columns
 * (writer_col_fixed.c); writer_col.h lists the files.
 *
 * Values arrive a row at a time (cf_batch form), become their Parquet
 * physical form (PLAIN bytes), and go into the open page as dictionary
 * indices or PLAIN bytes, with their definition and repetition levels. A page
 * closes at a row boundary once it holds page_rows rows or page_bytes bytes
 * of values (a page never splits a row, so the offset index's first_row_index
 * and v2's num_rows are exact). Closed pages are encoded, compressed and kept
 * in memory until the row group ends, because the dictionary page must come
 * first in the chunk and is only complete then.
 *
 * Streaming: the first column's chunk leads its row group, so nothing else
 * is written while it is open. Once its dictionary is settled (none, or given
 * up for PLAIN, after which no entry is added) the writer lets it write: the
 * dictionary page and the pages held so far go to the file, and every later
 * page as it closes (cf_pq_wcol_stream_to). The bytes are those the chunk
 * would have had at the row group's end; only the memory differs (one page
 * instead of the chunk, reused).
 *
 * Dictionary fallback: once the chunk's dictionary (PLAIN bytes) passes
 * dict_page_bytes, the open page is closed with its indices and the rest of
 * the chunk is PLAIN, as parquet-java and arrow do; the next chunk starts over
 * with a dictionary.
 *
 * Levels for a column `c` (Dremel): scalar REQUIRED max_def 0; OPTIONAL
 * max_def 1 (0 = NULL). LIST: `<rep> group c (LIST) { repeated group list
 * { optional T element } }`: max_rep 1; max_def 3 when the list is OPTIONAL
 * (0 NULL list, 1 empty list, 2 NULL element, 3 value), 2 when REQUIRED.
 */
#include "writer_col.h"

/* ---- create / free ------------------------------------------------------------------- */

void cf_pq_wcol_reset_chunk(cf_pq_wcol *c)
{
    c->rg_rows = 0;
    c->page_first_row = 0;
    c->cstat.has = false;
    c->cnulls = 0;
    c->dict_on = c->o.dictionary && c->d.ptype != CF_PQT_BOOLEAN;
    c->dict_used = false;
    c->fallback = false;
    cf_buf_clear(&c->dict);
    c->dict_count = 0;
    if (c->slots)
        memset(c->slots, 0, c->slot_cap * sizeof(*c->slots));
    cf_buf_clear(&c->pages);
    cf_buf_clear(&c->hdrs);
    c->data_bytes = 0;
    c->streaming = false;
    c->dict_ready = false;
    c->chunk_off = c->data_off = c->dict_unc = 0;
    c->nrecs = 0;
    cf_buf_clear(&c->bounds);
    c->ci_ok = true;
    c->encodings = 0;
    c->num_values = 0;
    c->unc_total = 0;
}

/* fn on every buffer of the column: one list for create and free. */
static void each_buf(cf_pq_wcol *c, void (*fn)(cf_buf *))
{
    cf_buf *const bufs[] = {&c->plain,     &c->pstat.min, &c->pstat.max, &c->cstat.min,
                            &c->cstat.max, &c->dict,      &c->pages,     &c->hdrs,
                            &c->bounds,    &c->body,      &c->comp,      &c->hdr};
    for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
        fn(bufs[i]);
}

cf_status cf_pq_wcol_create(cf_pq_wcol **out, const cf_pq_wcol_def *def, const cf_pq_wopts *o,
                            cf_pq_compressor *cz, cf_error *err)
{
    cf_pq_wcol *c = cf_calloc(1, sizeof(*c));
    CF_CHECK(c != NULL, err, CF_ENOMEM, "out of memory creating a column writer");
    c->d = *def;
    c->o = *o;
    c->cz = cz;
    c->src_width = cf_type_size(def->ktype);
    c->page_no = 1;
    c->bad_row = UINT64_MAX;
    each_buf(c, cf_buf_init);
    cf_pq_wcol_reset_chunk(c);
    *out = c;
    return CF_OK;
}

void cf_pq_wcol_free(cf_pq_wcol *c)
{
    if (c == NULL)
        return;
    cf_free(c->def);
    cf_free(c->rep);
    cf_free(c->idx);
    cf_pq_wcol_fly_free(c);
    each_buf(c, cf_buf_dispose);
    cf_free(c->dict_offs);
    cf_free(c->dict_seen);
    cf_free(c->slots);
    cf_free(c->slot_keys);
    cf_free(c->recs);
    cf_pq_hashset_dispose(&c->bloom);
    cf_free(c->bloom_bits);
    cf_free(c);
}

void cf_pq_chunk_rec_dispose(cf_pq_chunk_rec *r)
{
    cf_free(r->min);
    cf_free(r->max);
    cf_free(r->pages);
    cf_free(r->bounds);
    memset(r, 0, sizeof(*r));
}

uint64_t cf_pq_wcol_bad_row(const cf_pq_wcol *c)
{
    return c->bad_row;
}

size_t cf_pq_wcol_buffered(const cf_pq_wcol *c)
{
    /* the pages written by streaming count as if held, so a row group ends
     * where it would without streaming */
    return (size_t)c->data_bytes + c->plain.len + c->nidx * 4 + c->dict.len;
}

void cf_pq_wcol_stream_to(cf_pq_wcol *c, cf_io *io)
{
    c->stream_io = io;
}

void cf_pq_wcol_set_compressor(cf_pq_wcol *c, cf_pq_compressor *cz)
{
    c->cz = cz;
}

/* ---- the open page ------------------------------------------------------------------ */

static inline cf_status push_level(cf_pq_wcol *c, uint16_t def, uint16_t rep, cf_error *err)
{
    if (c->nlev == c->lev_cap) {
        size_t ncap = c->lev_cap ? 2 * c->lev_cap : 1024;
        if (c->d.max_def) {
            uint16_t *p = cf_realloc(c->def, ncap * sizeof(*p));
            CF_CHECK(p != NULL, err, CF_ENOMEM, "column %s: out of memory for levels", c->d.name);
            c->def = p;
        }
        if (c->d.max_rep) {
            uint16_t *p = cf_realloc(c->rep, ncap * sizeof(*p));
            CF_CHECK(p != NULL, err, CF_ENOMEM, "column %s: out of memory for levels", c->d.name);
            c->rep = p;
        }
        c->lev_cap = ncap;
    }
    if (c->d.max_def)
        c->def[c->nlev] = def;
    if (c->d.max_rep)
        c->rep[c->nlev] = rep;
    c->nlev++;
    return CF_OK;
}

static inline __attribute__((always_inline)) cf_status add_value(cf_pq_wcol *c, const uint8_t *p,
                                                                 size_t n, cf_error *err)
{
    CF_CHECK(n <= INT32_MAX, err, CF_EINVAL, "column %s: a value of %zu bytes exceeds 2^31 - 1",
             c->d.name, n);
    if (c->dict_on) {
        /* A value already in the dictionary has had its UTF-8 check and bloom
         * hash (dict_index does them for a new one), and a value the page has
         * had cannot move its min or max: min and max take each entry once per
         * page, in the order the values come, so they are the bytes the
         * value-by-value comparison would keep. */
        uint32_t e = UINT32_MAX;
        const uint64_t h = dict_hash(p, n);
        if (c->slot_keys != NULL) { /* 4- and 8-byte values: dict_index's probe, inlined */
            const uint64_t key = n == 8 ? cf_load_le64(p) : cf_load_le32(p);
            const size_t mask = c->slot_cap - 1;
            for (size_t j = (size_t)h & mask; c->slots[j] != 0; j = (j + 1) & mask)
                if (c->slot_keys[j] == key) {
                    e = c->slots[j] - 1;
                    break;
                }
        }
        if (e == UINT32_MAX)
            CF_TRY(cf_pq_wcol_dict_index(c, p, n, h, &e, err));
        if (c->dict_seen[e] != c->page_no) {
            c->dict_seen[e] = c->page_no;
            if (stats_on(c) && !is_nan(c->d.sort, p))
                minmax_add(&c->pstat, c->d.sort, p, n);
        }
        CF_CHECK(grow((void **)&c->idx, &c->idx_cap, c->nidx + 1, sizeof(uint32_t)), err, CF_ENOMEM,
                 "column %s: out of memory for a page", c->d.name);
        c->idx[c->nidx++] = e;
        c->nvals++;
        return CF_OK;
    }
    if (c->d.utf8 && !utf8_ok(p, n)) {
        c->bad_row = c->rows_total;
        CF_FAIL(err, CF_EINVAL, UTF8_MSG, c->d.name, c->rows_total);
    }
    if (stats_on(c) && !is_nan(c->d.sort, p))
        minmax_add(&c->pstat, c->d.sort, p, n);
    if (c->d.bloom)
        CF_CHECK(cf_pq_hashset_add(&c->bloom, cf_parquet_xxh64(p, n, 0)), err, CF_ENOMEM,
                 "column %s: out of memory for the bloom filter", c->d.name);
    if (c->d.ptype == CF_PQT_BYTE_ARRAY)
        cf_buf_put_le32(&c->plain, (uint32_t)n);
    cf_buf_append(&c->plain, p, n);
    CF_CHECK(!c->plain.oom, err, CF_ENOMEM, "column %s: out of memory for a page", c->d.name);
    c->nvals++;
    return CF_OK;
}

/* A row is complete: close the page when it is full or the dictionary is. */
static cf_status row_done(cf_pq_wcol *c, cf_error *err)
{
    c->page_rows++;
    c->rg_rows++;
    c->rows_total++;
    size_t est;
    if (c->dict_on)
        est = c->nidx * cf_pq_bit_width(c->dict_count) / 8;
    else
        est = c->d.ptype == CF_PQT_BOOLEAN ? c->plain.len / 8 : c->plain.len;
    if (c->fallback) {
        CF_TRY(cf_pq_wcol_flush_page(c, err));
        c->dict_on = false;
        c->fallback = false;
        return CF_OK;
    }
    if (c->page_rows >= c->o.page_rows || est >= c->o.page_bytes)
        CF_TRY(cf_pq_wcol_flush_page(c, err));
    return CF_OK;
}

/* ---- Kudu values -> Parquet values ----------------------------------------------------- */

/* The PLAIN bytes of the Kudu value at src: *p points at them (into src or tmp). */
static inline __attribute__((always_inline)) size_t
to_plain(const cf_pq_wcol *c, const uint8_t *src, uint8_t tmp[16], const uint8_t **p)
{
    int32_t v32;
    switch (c->d.ktype) {
    case CF_TYPE_INT8: v32 = (int8_t)src[0]; break;
    case CF_TYPE_UINT8: v32 = src[0]; break;
    case CF_TYPE_INT16: {
        int16_t v;
        memcpy(&v, src, 2);
        v32 = v;
        break;
    }
    case CF_TYPE_UINT16: {
        uint16_t v;
        memcpy(&v, src, 2);
        v32 = v;
        break;
    }
    case CF_TYPE_BOOL:
        tmp[0] = src[0] != 0;
        *p = tmp;
        return 1;
    case CF_TYPE_INT128:
    case CF_TYPE_DECIMAL128:
        for (int i = 0; i < 16; i++)
            tmp[i] = src[15 - i];
        *p = tmp;
        return 16;
    case CF_TYPE_STRING:
    case CF_TYPE_VARCHAR:
    case CF_TYPE_BINARY: {
        cf_slice s;
        memcpy(&s, src, sizeof(s));
        *p = s.len ? s.data : tmp;
        return s.len;
    }
    default:
        /* 4- and 8-byte types are stored as they are in memory (little-endian) */
        *p = src;
        return c->src_width;
    }
    cf_store_le32(tmp, (uint32_t)v32);
    *p = tmp;
    return 4;
}

static inline bool bit(const uint8_t *bm, size_t i)
{
    return bm == NULL || (bm[i >> 3] >> (i & 7)) & 1;
}

cf_status cf_pq_wcol_append(cf_pq_wcol *c, const cf_batch *b, size_t from, size_t to, cf_error *err)
{
    const uint8_t *vals = b->values;
    uint8_t tmp[16];
    const uint8_t *p;
    if (cf_pq_wcol_fixed_fast(c))
        return cf_pq_wcol_append_fixed(c, b, from, to, err);
    if (!c->d.is_array) {
        /* Fast path: REQUIRED, no levels. */
        for (size_t r = from; r < to; r++) {
            bool present = bit(b->nonnull, r);
            if (!present) {
                if (!c->d.nullable)
                    c->bad_row = c->rows_total;
                CF_CHECK(c->d.nullable, err, CF_EINVAL,
                         "column %s: row %" PRIu64 " is NULL but the column is not nullable",
                         c->d.name, c->rows_total);
                CF_TRY(push_level(c, 0, 0, err));
                c->pnulls++;
            } else {
                CF_TRY(push_level(c, c->d.max_def, 0, err));
                size_t n = to_plain(c, vals + r * c->src_width, tmp, &p);
                CF_TRY(add_value(c, p, n, err));
            }
            CF_TRY(row_done(c, err));
        }
        return CF_OK;
    }
    const uint32_t *off = b->elem_offsets;
    CF_CHECK(off != NULL || to == from, err, CF_EINVAL, "column %s: an array batch without offsets",
             c->d.name);
    const uint16_t md = c->d.max_def;
    for (size_t r = from; r < to; r++) {
        if (!bit(b->nonnull, r)) {
            if (!c->d.nullable)
                c->bad_row = c->rows_total;
            CF_CHECK(c->d.nullable, err, CF_EINVAL,
                     "column %s: row %" PRIu64 " is NULL but the column is not nullable", c->d.name,
                     c->rows_total);
            CF_TRY(push_level(c, 0, 0, err));
            c->pnulls++;
        } else {
            uint32_t a = off[r], e = off[r + 1];
            CF_CHECK(a <= e && e <= b->elem_count, err, CF_EINVAL,
                     "column %s: row %zu: element offsets %u..%u outside %zu elements", c->d.name,
                     r, a, e, b->elem_count);
            if (a == e) {
                CF_TRY(push_level(c, (uint16_t)(md - 2), 0, err));
                c->pnulls++;
            }
            for (uint32_t j = a; j < e; j++) {
                uint16_t rep = j == a ? 0 : 1;
                if (!bit(b->elem_nonnull, j)) {
                    CF_TRY(push_level(c, (uint16_t)(md - 1), rep, err));
                    c->pnulls++;
                } else {
                    CF_TRY(push_level(c, md, rep, err));
                    size_t n = to_plain(c, vals + (size_t)j * c->src_width, tmp, &p);
                    CF_TRY(add_value(c, p, n, err));
                }
            }
        }
        CF_TRY(row_done(c, err));
    }
    return CF_OK;
}

/* Internal: one column chunk of the Parquet writer, shared by the files that
 * make it (writer.h has what writer.c calls). Each file owns one concept:
 *   writer_col.c        the column's life (create, free, the chunk's reset) and
 *                       its rows: Kudu values to PLAIN bytes, levels, values
 *                       into the open page, when a page closes
 *   writer_col_fixed.c  the same for 4- and 8-byte numbers, a stretch at a time
 *   writer_col_dict.c   the chunk's dictionary: lookup, growth, fallback to
 *                       PLAIN, and its dictionary page
 *   writer_col_page.c   closing a data page: levels and values encoded,
 *                       compressed, its header and CRC, its page-index record
 *   writer_col_stats.c  min and max: the sort orders, the zero rule, the
 *                       column index's truncated bounds
 *   writer_col_chunk.c  the chunk to the file: held pages, streaming, the
 *                       chunk record, sealing, the bloom filter
 * The hot helpers every file needs are inline here. Nothing outside these
 * files may include this header or touch a cf_pq_wcol's fields. */
#ifndef CF_PARQUET_WRITER_COL_H
#define CF_PARQUET_WRITER_COL_H

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/utf8.h"
#include "writer.h"

/* The refusal of a value that is not UTF-8 (column, row). */
#define UTF8_MSG                                                                                   \
    "column %s: row %" PRIu64 ": the value is not UTF-8, which Parquet's STRING requires (write "  \
    "the column as binary)"

/* A closed data page on its way into the chunk (writer_col_page.c): what
 * its build reads, and what the build made for its commit. */
typedef struct cf_pq_wpage {
    const uint16_t *def, *rep;
    const uint32_t *idx;
    const cf_buf *plain;
    size_t nlev, nidx, nvals;
    uint32_t page_rows, dict_count;
    bool dict;
    size_t rec;     /* its record in recs */
    uint64_t bound; /* the most bytes it can add to the chunk (pipelined only) */
    /* made by the build */
    size_t hdr_at, hdr_len, start, page_len, unc_len;
} cf_pq_wpage;

/* One page in flight: the arrays its values were closed in (swapped with the
 * open page's), and what its build makes, kept apart from the chunk's bytes
 * until the page is committed in order. */
typedef struct cf_pq_fly {
    cf_pq_wpage pg;
    uint16_t *def, *rep;
    uint32_t *idx;
    size_t lev_cap, idx_cap;
    cf_buf plain;
    cf_buf body, out, hdr; /* the build's scratch, stored body and header */
} cf_pq_fly;

struct cf_pq_wcol {
    cf_pq_wcol_def d;
    cf_pq_wopts o;
    size_t src_width; /* bytes of one Kudu value in a batch */

    /* the open page */
    uint16_t *def, *rep;
    size_t nlev, lev_cap;
    uint32_t *idx;
    size_t nidx, idx_cap;
    cf_buf plain; /* PLAIN values (BOOLEAN: a byte per value, packed at flush) */
    size_t nvals; /* non-null values */
    uint32_t page_rows;
    int64_t page_first_row;
    cf_pq_minmax pstat;
    int64_t pnulls;
    bool fallback; /* the dictionary is full: close the page at the row's end */

    /* the open chunk */
    uint64_t rows_total; /* rows appended before the current one, all row groups */
    uint64_t bad_row;    /* the row a value was refused in; UINT64_MAX: none */
    int64_t rg_rows;
    cf_pq_minmax cstat;
    int64_t cnulls;
    bool dict_on, dict_used;
    cf_buf dict;         /* PLAIN dictionary values */
    uint32_t *dict_offs; /* entry i starts at dict.data + dict_offs[i] */
    size_t dict_count, dict_offs_cap;
    uint32_t *dict_seen; /* entry i was last in page number dict_seen[i] (add_value) */
    size_t dict_seen_cap;
    uint32_t page_no;    /* the open page's number, counted over the file from 1 */
    uint32_t *slots;     /* open addressing: entry + 1, 0 = empty */
    uint64_t *slot_keys; /* 4- and 8-byte values: the value of each used slot, so a
                          * probe compares in the table, without visiting the entry */
    size_t slot_cap;
    cf_buf pages;       /* the held data pages' bodies (levels and stored values) */
    cf_buf hdrs;        /* their headers (recs[i].hdr_len bytes each, in order) */
    int64_t data_bytes; /* the data pages' bytes so far, held or written */
    /* streaming (see the top): */
    cf_io *stream_io;     /* the file, when this column may write before the row group ends */
    bool streaming;       /* the chunk is being written: pages go out as they close */
    int64_t chunk_off;    /* its file offset (dictionary page or first data page) */
    int64_t data_off;     /* its data pages' file offset */
    int64_t dict_unc;     /* its dictionary page's uncompressed size, header included */
    cf_pq_compressor *cz; /* the writer's (shared by its columns) */
    cf_pq_page_rec *recs;
    size_t nrecs, recs_cap;
    cf_buf bounds;
    bool ci_ok;
    uint32_t encodings;
    int64_t num_values;
    int64_t unc_total;
    cf_pq_hashset bloom;
    /* made ahead by cf_pq_wcol_seal, on any thread: */
    bool dict_ready;     /* the dictionary page's header in hdr, body in comp (or dict) */
    uint8_t *bloom_bits; /* the filter's bits (bloom_nbytes) */
    size_t bloom_nbytes;

    /* scratch */
    cf_buf body, comp, hdr;

    cf_pq_wpage page; /* the page a flush builds without a team */

    /* the pages in flight (writer_col_page.c, "Pipeline"); team NULL: none */
    cf_team *team;
    cf_pq_compressor *fly_czs; /* per_run: job i of a run builds with the i-th */
    size_t per_run;            /* pages a run builds at once */
    struct cf_pq_fly *fly;     /* 2 x per_run slots: group g is [g * per_run, ...) */
    cf_status *fly_st;         /* per slot, for the team */
    cf_error *fly_err;
    unsigned fill_group; /* the group closed pages go into */
    size_t filled;       /* closed pages in it, not posted yet */
    unsigned run_group;  /* the group the open run builds */
    size_t run_n;        /* its pages */
    bool run_open;
    uint64_t ticket;
};

static inline bool stats_on(const cf_pq_wcol *c)
{
    return c->o.statistics || c->o.page_index;
}

static inline bool is_nan(cf_pq_sort s, const uint8_t *p)
{
    if (s == CF_PQS_FLOAT) {
        float f;
        memcpy(&f, p, 4);
        return isnan(f);
    }
    if (s == CF_PQS_DOUBLE) {
        double d;
        memcpy(&d, p, 8);
        return isnan(d);
    }
    return false;
}

static inline void set_buf(cf_buf *b, const uint8_t *p, size_t n)
{
    if (n <= b->cap && !b->oom) { /* min and max are replaced often: no call */
        if (n)
            memcpy(b->data, p, n);
        b->len = n;
        return;
    }
    cf_buf_clear(b);
    cf_buf_append(b, p, n);
}

static inline void minmax_add(cf_pq_minmax *m, cf_pq_sort s, const uint8_t *p, size_t n)
{
    if (!m->has) {
        set_buf(&m->min, p, n);
        set_buf(&m->max, p, n);
        m->has = true;
        return;
    }
    if (cf_pq_wcol_cmp(s, p, n, m->min.data, m->min.len) < 0)
        set_buf(&m->min, p, n);
    else if (cf_pq_wcol_cmp(s, p, n, m->max.data, m->max.len) > 0)
        set_buf(&m->max, p, n);
}

static inline bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t ncap = *cap ? *cap : 1024;
    while (ncap < need)
        ncap *= 2;
    void *np = cf_realloc(*p, ncap * elem);
    if (np == NULL)
        return false;
    *p = np;
    *cap = ncap;
    return true;
}

/* The dictionary's hash: for 4- and 8-byte values (most columns) a 64-bit
 * finalizer (two multiplies; every input bit reaches the low bits the table
 * uses), XXH64 for the others. */
static inline uint64_t dict_hash(const uint8_t *p, size_t n)
{
    uint64_t h;
    if (n == 8)
        h = cf_load_le64(p);
    else if (n == 4)
        h = cf_load_le32(p);
    else
        return cf_parquet_xxh64(p, n, 0);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 33);
}

/* Well-formed UTF-8 (no overlongs, surrogates or code points past U+10FFFF):
 * the one validator, util/utf8.c. */
static inline bool utf8_ok(const uint8_t *p, size_t n)
{
    return cf_utf8_invalid_at(p, n) == n;
}

static inline cf_status io_put(cf_io *io, const void *p, size_t n, cf_error *err)
{
    if (n == 0)
        return CF_OK;
    return io->ops->append(io, p, n, err);
}

/* writer_col.c: the chunk's state back to empty (a new row group). */
void cf_pq_wcol_reset_chunk(cf_pq_wcol *c);

/* writer_col_fixed.c: can cf_pq_wcol_append_fixed take the column? */
bool cf_pq_wcol_fixed_fast(const cf_pq_wcol *c);
/* writer_col_fixed.c: cf_pq_wcol_append for such a column. */
cf_status cf_pq_wcol_append_fixed(cf_pq_wcol *c, const cf_batch *b, size_t from, size_t to,
                                  cf_error *err);

/* writer_col_dict.c: the dictionary index of value [p, p+n) (hash h, by
 * dict_hash), added when new. */
cf_status cf_pq_wcol_dict_index(cf_pq_wcol *c, const uint8_t *p, size_t n, uint64_t h,
                                uint32_t *out, cf_error *err);
/* writer_col_dict.c: the dictionary page: header into c->hdr, body into c->comp. */
cf_status cf_pq_wcol_dict_page(cf_pq_wcol *c, cf_error *err);

/* writer_col_page.c: close the open page (a no-op when it is empty). */
cf_status cf_pq_wcol_flush_page(cf_pq_wcol *c, cf_error *err);
/* writer_col_page.c: a page header's CRC field (when the options ask for it)
 * over [a, a+al) then [b2, b2+bl). */
void cf_pq_wcol_put_crc(const cf_pq_wcol *c, cf_thrift_writer *tw, const uint8_t *a, size_t al,
                        const uint8_t *b2, size_t bl);

/* writer_col_stats.c: a page's min or max into the column index's bounds b. */
void cf_pq_wcol_put_bound(cf_buf *b, const cf_buf *v, bool is_max, bool truncate, uint32_t *off,
                          uint32_t *len);

/* writer_col_chunk.c: the dictionary page and the held pages to io. */
cf_status cf_pq_wcol_write_held(cf_pq_wcol *c, cf_io *io, cf_error *err);

/* Free the pipeline's page slots (writer_col_page.c); none: a no-op. */
void cf_pq_wcol_fly_free(cf_pq_wcol *c);

#endif

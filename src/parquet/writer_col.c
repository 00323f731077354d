/* One column chunk of the Parquet writer: Kudu values in, pages out.
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
#include "writer.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "codec/crc32.h"
#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/utf8.h"

/* The refusal of a value that is not UTF-8 (column, row). */
#define UTF8_MSG                                                                                   \
    "column %s: row %" PRIu64 ": the value is not UTF-8, which Parquet's STRING requires (write "  \
    "the column as binary)"
/* Column index bounds of BYTE_ARRAY pages longer than this are truncated. */
#define CI_TRUNC 64
/* A chunk's dictionary with this many entries, nearly one per value, falls
 * back to PLAIN (dict_index). */
#define DICT_GIVE_UP 32768
/* Chunk statistics with a longer min or max leave both out (null_count stays). */
#define STATS_MAX_LEN 4096

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
};

static bool stats_on(const cf_pq_wcol *c)
{
    return c->o.statistics || c->o.page_index;
}

/* ---- ordering --------------------------------------------------------------------------- */

int cf_pq_wcol_cmp(cf_pq_sort s, const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
    switch (s) {
    case CF_PQS_BOOL: return (int)a[0] - (int)b[0];
    case CF_PQS_I32: {
        int32_t x = (int32_t)cf_load_le32(a), y = (int32_t)cf_load_le32(b);
        return (x > y) - (x < y);
    }
    case CF_PQS_U32: {
        uint32_t x = cf_load_le32(a), y = cf_load_le32(b);
        return (x > y) - (x < y);
    }
    case CF_PQS_I64: {
        int64_t x = (int64_t)cf_load_le64(a), y = (int64_t)cf_load_le64(b);
        return (x > y) - (x < y);
    }
    case CF_PQS_U64: {
        uint64_t x = cf_load_le64(a), y = cf_load_le64(b);
        return (x > y) - (x < y);
    }
    case CF_PQS_FLOAT: {
        float x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return (x > y) - (x < y);
    }
    case CF_PQS_DOUBLE: {
        double x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return (x > y) - (x < y);
    }
    case CF_PQS_DECIMAL_BE: {
        int x = (int8_t)a[0], y = (int8_t)b[0];
        if (x != y)
            return (x > y) - (x < y);
        int m = memcmp(a + 1, b + 1, al - 1);
        return m;
    }
    case CF_PQS_BYTES:
    default: {
        size_t n = al < bl ? al : bl;
        int m = n ? memcmp(a, b, n) : 0;
        if (m != 0)
            return m;
        return (al > bl) - (al < bl);
    }
    }
}

static bool is_nan(cf_pq_sort s, const uint8_t *p)
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

void cf_pq_minmax_fix_zero(cf_pq_sort sort, uint8_t *min, uint8_t *max)
{
    /* PageIndex.md / parquet.thrift: a min of +0 is written -0, a max of -0 as +0,
     * so a reader comparing against either zero never skips wrongly. */
    if (sort == CF_PQS_FLOAT) {
        float z = -0.0f, mn, mx;
        memcpy(&mn, min, 4);
        memcpy(&mx, max, 4);
        if (mn == 0.0f)
            memcpy(min, &z, 4);
        if (mx == 0.0f) {
            z = 0.0f;
            memcpy(max, &z, 4);
        }
    } else if (sort == CF_PQS_DOUBLE) {
        double z = -0.0, mn, mx;
        memcpy(&mn, min, 8);
        memcpy(&mx, max, 8);
        if (mn == 0.0)
            memcpy(min, &z, 8);
        if (mx == 0.0) {
            z = 0.0;
            memcpy(max, &z, 8);
        }
    }
}

/* ---- create / free ------------------------------------------------------------------- */

static void reset_chunk(cf_pq_wcol *c)
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
    cf_buf_init(&c->plain);
    cf_buf_init(&c->pstat.min);
    cf_buf_init(&c->pstat.max);
    cf_buf_init(&c->cstat.min);
    cf_buf_init(&c->cstat.max);
    cf_buf_init(&c->dict);
    cf_buf_init(&c->pages);
    cf_buf_init(&c->hdrs);
    cf_buf_init(&c->bounds);
    cf_buf_init(&c->body);
    cf_buf_init(&c->comp);
    cf_buf_init(&c->hdr);
    reset_chunk(c);
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
    cf_buf_dispose(&c->plain);
    cf_buf_dispose(&c->pstat.min);
    cf_buf_dispose(&c->pstat.max);
    cf_buf_dispose(&c->cstat.min);
    cf_buf_dispose(&c->cstat.max);
    cf_buf_dispose(&c->dict);
    cf_free(c->dict_offs);
    cf_free(c->dict_seen);
    cf_free(c->slots);
    cf_free(c->slot_keys);
    cf_buf_dispose(&c->pages);
    cf_buf_dispose(&c->hdrs);
    cf_free(c->recs);
    cf_buf_dispose(&c->bounds);
    cf_pq_hashset_dispose(&c->bloom);
    cf_free(c->bloom_bits);
    cf_buf_dispose(&c->body);
    cf_buf_dispose(&c->comp);
    cf_buf_dispose(&c->hdr);
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

static bool grow(void **p, size_t *cap, size_t need, size_t elem)
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

static inline bool same_fixed(const uint8_t *a, const uint8_t *b, size_t n)
{
    if (n == 8)
        return cf_load_le64(a) == cf_load_le64(b);
    if (n == 4)
        return cf_load_le32(a) == cf_load_le32(b);
    return memcmp(a, b, n) == 0;
}

/* Well-formed UTF-8 (no overlongs, surrogates or code points past U+10FFFF):
 * the one validator, util/utf8.c. */
static bool utf8_ok(const uint8_t *p, size_t n)
{
    return cf_utf8_invalid_at(p, n) == n;
}

/* The dictionary index of value [p, p+n), added when new. A new value is
 * where the general path's once-per-distinct-value work is done (add_value):
 * its UTF-8 check and bloom filter hash. */
static cf_status dict_index(cf_pq_wcol *c, const uint8_t *p, size_t n, uint64_t h, uint32_t *out,
                            cf_error *err)
{
    const bool ba = c->d.ptype == CF_PQT_BYTE_ARRAY, keyed = !ba && (n == 4 || n == 8);
    /* Keyed tables (found by append_fixed's inlined probe) stay at most a
     * quarter full up to 8 Ki entries (a 384 KiB table), so most values are in
     * their home slot and the probe's loop exit is predicted; past that, and
     * for the others, half full (a table of nearly distinct values grows to
     * DICT_GIVE_UP entries before it is abandoned: its memory is fresh pages). */
    const size_t fill = keyed && c->dict_count < 8192 ? 4 : 2;
    if (fill * (c->dict_count + 1) > c->slot_cap) {
        size_t ncap = c->slot_cap ? 2 * c->slot_cap : 1024;
        while (fill * (c->dict_count + 1) > ncap)
            ncap *= 2;
        uint32_t *ns = cf_calloc(ncap, sizeof(*ns));
        uint64_t *nk = keyed ? cf_malloc(ncap * sizeof(*nk)) : NULL;
        if (ns == NULL || (keyed && nk == NULL)) {
            cf_free(ns);
            cf_free(nk);
            CF_FAIL(err, CF_ENOMEM, "column %s: out of memory for the dictionary", c->d.name);
        }
        cf_free(c->slots);
        cf_free(c->slot_keys);
        c->slots = ns;
        c->slot_keys = nk;
        c->slot_cap = ncap;
        for (size_t i = 0; i < c->dict_count; i++) {
            const uint8_t *e = c->dict.data + c->dict_offs[i];
            size_t el = c->d.ptype == CF_PQT_BYTE_ARRAY ? cf_load_le32(e) : n;
            if (c->d.ptype == CF_PQT_BYTE_ARRAY)
                e += 4;
            size_t j = (size_t)dict_hash(e, el) & (ncap - 1);
            while (ns[j] != 0)
                j = (j + 1) & (ncap - 1);
            ns[j] = (uint32_t)i + 1;
            if (keyed)
                nk[j] = n == 8 ? cf_load_le64(e) : cf_load_le32(e);
        }
    }
    size_t mask = c->slot_cap - 1, j = (size_t)h & mask;
    uint64_t key = 0;
    if (keyed) {
        key = n == 8 ? cf_load_le64(p) : cf_load_le32(p);
        while (c->slots[j] != 0) {
            if (c->slot_keys[j] == key) {
                *out = c->slots[j] - 1;
                return CF_OK;
            }
            j = (j + 1) & mask;
        }
    }
    while (c->slots[j] != 0) {
        uint32_t e = c->slots[j] - 1;
        const uint8_t *q = c->dict.data + c->dict_offs[e];
        if (ba) {
            if (cf_load_le32(q) == n && (n == 0 || memcmp(q + 4, p, n) == 0)) {
                *out = e;
                return CF_OK;
            }
        } else if (same_fixed(q, p, n)) {
            *out = e;
            return CF_OK;
        }
        j = (j + 1) & mask;
    }
    if (c->d.utf8 && !utf8_ok(p, n)) {
        c->bad_row = c->rows_total;
        CF_FAIL(err, CF_EINVAL, UTF8_MSG, c->d.name, c->rows_total);
    }
    if (c->d.bloom)
        CF_CHECK(cf_pq_hashset_add(&c->bloom, n == 4 || n == 8 ? cf_parquet_xxh64(p, n, 0)
                                                               : h), /* h is XXH64 then */
                 err, CF_ENOMEM, "column %s: out of memory for the bloom filter", c->d.name);
    CF_CHECK(
        grow((void **)&c->dict_offs, &c->dict_offs_cap, c->dict_count + 1, sizeof(uint32_t)) &&
            grow((void **)&c->dict_seen, &c->dict_seen_cap, c->dict_count + 1, sizeof(uint32_t)),
        err, CF_ENOMEM, "column %s: out of memory for the dictionary", c->d.name);
    c->dict_offs[c->dict_count] = (uint32_t)c->dict.len;
    c->dict_seen[c->dict_count] = 0;
    if (ba)
        cf_buf_put_le32(&c->dict, (uint32_t)n);
    cf_buf_append(&c->dict, p, n);
    CF_CHECK(!c->dict.oom, err, CF_ENOMEM, "column %s: out of memory for the dictionary",
             c->d.name);
    c->slots[j] = (uint32_t)c->dict_count + 1;
    if (keyed)
        c->slot_keys[j] = key;
    *out = (uint32_t)c->dict_count++;
    if (c->dict.len > c->o.dict_page_bytes)
        c->fallback = true;
    /* A dictionary of (nearly) all distinct values only adds bytes (the
     * dictionary page plus indices nearly as wide as the values) and time:
     * give up once it holds DICT_GIVE_UP entries for fewer than 1.25 values
     * each, as DuckDB and arrow do on high-cardinality data. */
    else if (c->dict_count >= DICT_GIVE_UP &&
             (uint64_t)c->dict_count * 5 > ((uint64_t)c->num_values + c->nlev + 1) * 4)
        c->fallback = true;
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
            CF_TRY(dict_index(c, p, n, h, &e, err));
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

/* Truncate a BYTE_ARRAY page bound for the column index: the min to a prefix
 * (never larger), the max to a prefix with its last byte raised (never
 * smaller). A max of only 0xff bytes stays whole. */
static void put_bound(cf_buf *b, const cf_buf *v, bool is_max, bool truncate, uint32_t *off,
                      uint32_t *len)
{
    size_t n = v->len;
    *off = (uint32_t)b->len;
    if (!truncate || n <= CI_TRUNC) {
        cf_buf_append(b, v->data, n);
        *len = (uint32_t)n;
        return;
    }
    if (!is_max) {
        cf_buf_append(b, v->data, CI_TRUNC);
        *len = CI_TRUNC;
        return;
    }
    size_t k = CI_TRUNC;
    while (k > 0 && v->data[k - 1] == 0xff)
        k--;
    if (k == 0) {
        cf_buf_append(b, v->data, n);
        *len = (uint32_t)n;
        return;
    }
    cf_buf_append(b, v->data, k);
    if (!b->oom)
        b->data[b->len - 1]++;
    *len = (uint32_t)k;
}

static void put_header_crc(cf_pq_wcol *c, cf_thrift_writer *tw, const uint8_t *a, size_t al,
                           const uint8_t *b2, size_t bl)
{
    if (!c->o.page_crc)
        return;
    uint32_t crc = cf_crc32(0, a, al);
    if (bl)
        crc = cf_crc32(crc, b2, bl);
    cf_thrift_write_field_i32(tw, 4, (int32_t)(uint32_t)crc);
}

static cf_status io_put(cf_io *io, const void *p, size_t n, cf_error *err)
{
    if (n == 0)
        return CF_OK;
    return io->ops->append(io, p, n, err);
}

/* The dictionary page: its header into hdr, its body compressed into comp
 * (uncompressed: the body is dict itself). */
static cf_status dict_page(cf_pq_wcol *c, cf_error *err)
{
    cf_buf *hdr = &c->hdr, *comp = &c->comp;
    cf_buf_clear(hdr);
    cf_buf_clear(comp);
    const uint8_t *stored = c->dict.data;
    size_t stored_len = c->dict.len;
    if (c->o.codec != CF_PQC_UNCOMPRESSED) {
        CF_TRY(cf_pq_compressor_run(c->cz, c->dict.data, c->dict.len, comp, err));
        stored = comp->data;
        stored_len = comp->len;
    }
    CF_CHECK(c->dict.len <= INT32_MAX && stored_len <= INT32_MAX, err, CF_EINVAL,
             "column %s: dictionary page of %zu bytes", c->d.name, c->dict.len);
    cf_thrift_writer tw;
    cf_thrift_writer_init(&tw, hdr);
    cf_thrift_write_struct_begin(&tw);
    cf_thrift_write_field_i32(&tw, 1, CF_PARQUET_DICTIONARY_PAGE);
    cf_thrift_write_field_i32(&tw, 2, (int32_t)c->dict.len);
    cf_thrift_write_field_i32(&tw, 3, (int32_t)stored_len);
    put_header_crc(c, &tw, NULL, 0, stored, stored_len);
    cf_thrift_write_field(&tw, 7, CF_TT_STRUCT);
    cf_thrift_write_struct_begin(&tw);
    cf_thrift_write_field_i32(&tw, 1, (int32_t)c->dict_count);
    cf_thrift_write_field_i32(&tw, 2, CF_PQE_PLAIN);
    cf_thrift_write_struct_end(&tw);
    cf_thrift_write_struct_end(&tw);
    CF_CHECK(cf_thrift_writer_status(&tw) == CF_OK, err, CF_ENOMEM, "column %s: out of memory",
             c->d.name);
    c->dict_ready = true;
    return CF_OK;
}

/* The chunk's dictionary page (when its pages use one) and the data pages
 * held so far, to io: the chunk's file offsets are set and the pages' memory
 * is free for the next ones. */
static cf_status write_held(cf_pq_wcol *c, cf_io *io, cf_error *err)
{
    c->chunk_off = (int64_t)io->ops->size(io);
    c->dict_unc = 0;
    if (c->dict_used) {
        if (!c->dict_ready)
            CF_TRY(dict_page(c, err));
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
        CF_TRY(io_put(io, c->hdrs.data + h, hl, err));
        CF_TRY(io_put(io, c->pages.data + p, pl, err));
        h += hl;
        p += pl;
    }
    cf_buf_clear(&c->pages);
    cf_buf_clear(&c->hdrs);
    return CF_OK;
}

/* Let the chunk write from here on (see the top): its dictionary is settled. */
static cf_status start_stream(cf_pq_wcol *c, cf_error *err)
{
    CF_TRY(write_held(c, c->stream_io, err));
    c->streaming = true;
    return CF_OK;
}

/* Close the open page: encode, compress, and add it to the chunk. The body
 * goes into `pages` as it is made (values encoded after the levels in `body`,
 * or PLAIN values taken from `plain` where they lie, compressed straight into
 * `pages`); the header, which needs the stored size and CRC, goes into `hdrs`.
 * write_chunk interleaves the two. */
static cf_status flush_page(cf_pq_wcol *c, cf_error *err)
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
    put_header_crc(c, &tw, pages->data + start, page_len, NULL, 0);
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
        put_bound(&c->bounds, &c->pstat.min, false, trunc, &pr->min_off, &pr->min_len);
        put_bound(&c->bounds, &c->pstat.max, true, trunc, &pr->max_off, &pr->max_len);
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
        CF_TRY(flush_page(c, err));
        c->dict_on = false;
        c->fallback = false;
        return CF_OK;
    }
    if (c->page_rows >= c->o.page_rows || est >= c->o.page_bytes)
        CF_TRY(flush_page(c, err));
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

/* Columns append_fixed takes: 4- and 8-byte integers and floats stored as they
 * are in memory (INT32, UINT32, INT64, UINT64, DATE, UNIXTIME_MICROS,
 * DECIMAL32/64, FLOAT, DOUBLE), not arrays, without a bloom filter. */
static bool fixed_fast(const cf_pq_wcol *c)
{
    if (c->d.is_array || c->d.bloom || c->d.utf8)
        return false;
    if (c->d.sort == CF_PQS_I32 || c->d.sort == CF_PQS_U32)
        return c->src_width == 4 && c->d.ptype == CF_PQT_INT32;
    if (c->d.sort == CF_PQS_I64 || c->d.sort == CF_PQS_U64)
        return c->src_width == 8 && c->d.ptype == CF_PQT_INT64;
    if (c->d.sort == CF_PQS_FLOAT)
        return c->src_width == 4 && c->d.ptype == CF_PQT_FLOAT;
    if (c->d.sort == CF_PQS_DOUBLE)
        return c->src_width == 8 && c->d.ptype == CF_PQT_DOUBLE;
    return false;
}

/* What one stretch of append_fixed did (fixed_run). */
typedef struct fixed_out {
    size_t rows; /* rows taken (a refused row not counted) */
    size_t nv;   /* non-null values among them */
    uint64_t kmin, kmax;
    bool refused; /* stopped at a NULL of a column that is not nullable */
    bool slow;    /* stopped after a row whose value was new to the dictionary */
} fixed_out;

#define CF_PQ_KEY_TOP (UINT64_C(1) << 63)

/* How append_fixed turns a value into a key whose unsigned order is the
 * column's sort order, and back. */
enum { KEY_UNSIGNED, KEY_SIGNED, KEY_FLOAT };

/* The key of value bits v (w bytes); floats: their bits with the sign flipped
 * when positive, all flipped when negative (-0 sorts before +0, which the
 * statistics' zero rule makes moot). */
static inline uint64_t fixed_key(uint64_t v, size_t w, int km)
{
    if (km == KEY_SIGNED)
        return w == 8 ? v ^ CF_PQ_KEY_TOP : (uint64_t)(int64_t)(int32_t)(uint32_t)v ^ CF_PQ_KEY_TOP;
    if (km == KEY_FLOAT) {
        if (w == 8)
            return (v >> 63) ? ~v : v ^ CF_PQ_KEY_TOP;
        uint32_t b = (uint32_t)v;
        return (b >> 31) ? (uint32_t)~b : b ^ 0x80000000u;
    }
    return v;
}

static inline uint64_t fixed_unkey(uint64_t k, size_t w, int km)
{
    if (km == KEY_SIGNED)
        return k ^ CF_PQ_KEY_TOP; /* 4 bytes: the truncation drops the sign extension */
    if (km == KEY_FLOAT) {
        if (w == 8)
            return (k >> 63) ? k ^ CF_PQ_KEY_TOP : ~k;
        uint32_t b = (uint32_t)k;
        return (b >> 31) ? b ^ 0x80000000u : (uint32_t)~b;
    }
    return k;
}

/* A NaN's bits (left out of min and max, as the general path does). */
static inline bool fixed_nan(uint64_t v, size_t w, int km)
{
    if (km != KEY_FLOAT)
        return false;
    return w == 8 ? (v & ~CF_PQ_KEY_TOP) > UINT64_C(0x7ff0000000000000)
                  : ((uint32_t)v & 0x7fffffffu) > 0x7f800000u;
}

/* Rows [r, r + n) of a fixed_fast column into the open page, which has room
 * for all of them (levels, indices or PLAIN bytes reserved by the caller).
 * Instantiated for each width, signedness, null bitmap and encoding, so the
 * loop holds no per-value branch on them: min and max are kept as sort keys
 * (the value in a form whose unsigned order is the column's), a value already
 * in the dictionary is found by an inlined probe, and a new one goes through
 * dict_index and ends the stretch, since the dictionary (and so the page size
 * estimate) changed. */
static inline __attribute__((always_inline)) void
fixed_run(cf_pq_wcol *c, const uint8_t *vals, const uint8_t *nonnull, size_t r, size_t n,
          const size_t w, const int km, const bool has_nn, const bool dict, fixed_out *o,
          cf_status *st, cf_error *err)
{
    const uint16_t md = c->d.max_def;
    const bool nullable = c->d.nullable;
    uint16_t *def = md ? c->def + c->nlev : NULL;
    uint32_t *idx = dict ? c->idx + c->nidx : NULL;
    uint8_t *plain = dict ? NULL : c->plain.data + c->plain.len;
    const uint32_t *slots = c->slots;
    const uint64_t *keys = c->slot_keys;
    size_t mask = c->slot_cap - 1;
    uint64_t kmin = o->kmin, kmax = o->kmax;
    size_t nv = 0, i = 0;
    for (; i < n; i++) {
        const size_t row = r + i;
        if (has_nn && !((nonnull[row >> 3] >> (row & 7)) & 1)) {
            if (!nullable) {
                o->refused = true;
                break;
            }
            def[i] = 0;
            continue;
        }
        if (md)
            def[i] = md;
        const uint8_t *p = vals + row * w;
        uint64_t v = w == 8 ? cf_load_le64(p) : cf_load_le32(p);
        uint64_t k = fixed_key(v, w, km);
        if (!fixed_nan(v, w, km)) {
            kmin = k < kmin ? k : kmin;
            kmax = k > kmax ? k : kmax;
        }
        if (dict) {
            uint32_t e = UINT32_MAX;
            uint64_t h = dict_hash(p, w);
            if (keys != NULL)
                for (size_t j = (size_t)h & mask; slots[j] != 0; j = (j + 1) & mask)
                    if (keys[j] == v) {
                        e = slots[j] - 1;
                        break;
                    }
            if (e == UINT32_MAX) {
                unsigned bw = cf_pq_bit_width(c->dict_count);
                *st = dict_index(c, p, w, h, &e, err);
                if (*st != CF_OK)
                    break;
                idx[nv++] = e;
                if (c->fallback || cf_pq_bit_width(c->dict_count) != bw) {
                    i++;
                    o->slow = true;
                    break;
                }
                slots = c->slots; /* dict_index may have grown the table */
                keys = c->slot_keys;
                mask = c->slot_cap - 1;
                continue;
            }
            idx[nv++] = e;
        } else {
            memcpy(plain + nv * w, p, w);
            nv++;
        }
    }
    o->rows = i;
    o->nv = nv;
    o->kmin = kmin;
    o->kmax = kmax;
}

/* cf_pq_wcol_append for the columns of fixed_fast: the same pages,
 * dictionary, statistics and errors as the general path's row by row, decided
 * once per stretch instead. A stretch is as many rows as the open page can
 * take before a limit (page_rows; page_bytes, counting every row as a value,
 * which only ever shortens it) would close it, so the limits are tested where
 * the general path would find them reached, and nothing per row. */
static cf_status append_fixed(cf_pq_wcol *c, const cf_batch *b, size_t from, size_t to,
                              cf_error *err)
{
    const size_t w = c->src_width;
    const int km = c->d.sort == CF_PQS_I32 || c->d.sort == CF_PQS_I64        ? KEY_SIGNED
                   : c->d.sort == CF_PQS_FLOAT || c->d.sort == CF_PQS_DOUBLE ? KEY_FLOAT
                                                                             : KEY_UNSIGNED;
    const bool has_nn = b->nonnull != NULL;
    const bool stats = stats_on(c);
    size_t r = from;
    while (r < to) {
        const bool dict = c->dict_on;
        size_t seg = to - r;
        size_t room = c->page_rows < c->o.page_rows ? c->o.page_rows - c->page_rows : 1;
        if (seg > room)
            seg = room;
        /* values until the page's estimate reaches page_bytes (row_done's test) */
        size_t vroom;
        if (dict) {
            unsigned bw = cf_pq_bit_width(c->dict_count);
            size_t bits = 8 * c->o.page_bytes, have = c->nidx * bw;
            vroom = bw == 0 ? SIZE_MAX : have >= bits ? 1 : (bits - have + bw - 1) / bw;
        } else {
            vroom =
                c->plain.len >= c->o.page_bytes ? 1 : (c->o.page_bytes - c->plain.len + w - 1) / w;
        }
        if (seg > vroom)
            seg = vroom;
        if (c->nlev + seg > c->lev_cap) {
            size_t ncap = c->lev_cap ? 2 * c->lev_cap : 1024;
            while (ncap < c->nlev + seg)
                ncap *= 2;
            if (c->d.max_def) {
                uint16_t *q = cf_realloc(c->def, ncap * sizeof(*q));
                CF_CHECK(q != NULL, err, CF_ENOMEM, "column %s: out of memory for levels",
                         c->d.name);
                c->def = q;
            }
            c->lev_cap = ncap;
        }
        if (dict) {
            CF_CHECK(grow((void **)&c->idx, &c->idx_cap, c->nidx + seg, sizeof(uint32_t)), err,
                     CF_ENOMEM, "column %s: out of memory for a page", c->d.name);
        } else {
            CF_CHECK(cf_buf_reserve(&c->plain, seg * w), err, CF_ENOMEM,
                     "column %s: out of memory for a page", c->d.name);
        }
        fixed_out o = {.kmin = UINT64_MAX, .kmax = 0};
        cf_status st = CF_OK;
        const uint8_t *v = b->values, *nn = b->nonnull;
#define CF_PQ_RUN(W, S, N, D) fixed_run(c, v, nn, r, seg, W, S, N, D, &o, &st, err)
#define CF_PQ_RUN_D(W, S, N) (dict ? CF_PQ_RUN(W, S, N, true) : CF_PQ_RUN(W, S, N, false))
#define CF_PQ_RUN_N(W, S) (has_nn ? CF_PQ_RUN_D(W, S, true) : CF_PQ_RUN_D(W, S, false))
        if (w == 8)
            km == KEY_SIGNED  ? CF_PQ_RUN_N(8, KEY_SIGNED)
            : km == KEY_FLOAT ? CF_PQ_RUN_N(8, KEY_FLOAT)
                              : CF_PQ_RUN_N(8, KEY_UNSIGNED);
        else
            km == KEY_SIGNED  ? CF_PQ_RUN_N(4, KEY_SIGNED)
            : km == KEY_FLOAT ? CF_PQ_RUN_N(4, KEY_FLOAT)
                              : CF_PQ_RUN_N(4, KEY_UNSIGNED);
#undef CF_PQ_RUN
#undef CF_PQ_RUN_D
#undef CF_PQ_RUN_N
        /* the rows taken, as row_done counts them */
        c->nlev += o.rows;
        c->pnulls += (int64_t)(o.rows - o.nv);
        c->nvals += o.nv;
        if (dict)
            c->nidx += o.nv;
        else
            c->plain.len += o.nv * w;
        c->page_rows += (uint32_t)o.rows;
        c->rg_rows += (int64_t)o.rows;
        c->rows_total += o.rows;
        if (stats && o.kmin <= o.kmax) { /* a value that is not NaN */
            uint64_t mn = fixed_unkey(o.kmin, w, km), mx = fixed_unkey(o.kmax, w, km);
            uint8_t a[8], z[8];
            if (w == 8) {
                cf_store_le64(a, mn);
                cf_store_le64(z, mx);
            } else {
                cf_store_le32(a, (uint32_t)mn);
                cf_store_le32(z, (uint32_t)mx);
            }
            minmax_add(&c->pstat, c->d.sort, a, w);
            minmax_add(&c->pstat, c->d.sort, z, w);
        }
        if (st != CF_OK)
            return st;
        if (o.refused) {
            c->bad_row = c->rows_total;
            CF_FAIL(err, CF_EINVAL,
                    "column %s: row %" PRIu64 " is NULL but the column is not nullable", c->d.name,
                    c->rows_total);
        }
        size_t est = dict ? c->nidx * cf_pq_bit_width(c->dict_count) / 8 : c->plain.len;
        if (c->fallback || c->page_rows >= c->o.page_rows || est >= c->o.page_bytes) {
            CF_TRY(flush_page(c, err));
            if (c->fallback) {
                c->dict_on = false;
                c->fallback = false;
            }
        }
        r += o.rows;
    }
    return CF_OK;
}

cf_status cf_pq_wcol_append(cf_pq_wcol *c, const cf_batch *b, size_t from, size_t to, cf_error *err)
{
    const uint8_t *vals = b->values;
    uint8_t tmp[16];
    const uint8_t *p;
    if (fixed_fast(c))
        return append_fixed(c, b, from, to, err);
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

/* ---- the chunk ----------------------------------------------------------------------- */

cf_status cf_pq_wcol_write_chunk(cf_pq_wcol *c, cf_io *io, cf_pq_chunk_rec *rec, cf_error *err)
{
    CF_TRY(flush_page(c, err));
    memset(rec, 0, sizeof(*rec));
    if (c->streaming) /* the pages are in the file already */
        CF_CHECK(io == c->stream_io, err, CF_ESTATE, "column %s: chunk streamed to another file",
                 c->d.name);
    else
        CF_TRY(write_held(c, io, err));
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
    reset_chunk(c);
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
    CF_TRY(flush_page(c, err));
    if (c->dict_used && !c->streaming)
        CF_TRY(dict_page(c, err));
    if (c->d.bloom && c->bloom_bits == NULL)
        CF_TRY(bloom_bits(c, err));
    return CF_OK;
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

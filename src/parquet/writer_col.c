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
#include "parquet/writer.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <zlib.h>

#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"

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
    cf_buf plain;          /* PLAIN values (BOOLEAN: a byte per value, packed at flush) */
    size_t nvals;          /* non-null values */
    uint32_t page_rows;
    int64_t page_first_row;
    cf_pq_minmax pstat;
    int64_t pnulls;
    bool fallback;         /* the dictionary is full: close the page at the row's end */

    /* the open chunk */
    uint64_t rows_total; /* rows appended before the current one, all row groups */
    uint64_t bad_row;    /* the row a value was refused in; UINT64_MAX: none */
    int64_t rg_rows;
    cf_pq_minmax cstat;
    int64_t cnulls;
    bool dict_on, dict_used;
    cf_buf dict;           /* PLAIN dictionary values */
    uint32_t *dict_offs;   /* entry i starts at dict.data + dict_offs[i] */
    size_t dict_count, dict_offs_cap;
    uint32_t *slots;       /* open addressing: entry + 1, 0 = empty */
    uint64_t *slot_keys;   /* 4- and 8-byte values: the value of each used slot, so a
                            * probe compares in the table, without visiting the entry */
    size_t slot_cap;
    cf_buf pages;          /* encoded data pages, headers included */
    cf_pq_page_rec *recs;
    size_t nrecs, recs_cap;
    cf_buf bounds;
    bool ci_ok;
    uint32_t encodings;
    int64_t num_values;
    int64_t unc_total;
    cf_pq_hashset bloom;

    /* scratch */
    cf_buf body, vals, comp, hdr;
};

static bool stats_on(const cf_pq_wcol *c) { return c->o.statistics || c->o.page_index; }

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
    c->nrecs = 0;
    cf_buf_clear(&c->bounds);
    c->ci_ok = true;
    c->encodings = 0;
    c->num_values = 0;
    c->unc_total = 0;
}

cf_status cf_pq_wcol_create(cf_pq_wcol **out, const cf_pq_wcol_def *def, const cf_pq_wopts *o,
                            cf_error *err)
{
    cf_pq_wcol *c = cf_calloc(1, sizeof(*c));
    CF_CHECK(c != NULL, err, CF_ENOMEM, "out of memory creating a column writer");
    c->d = *def;
    c->o = *o;
    c->src_width = cf_type_size(def->ktype);
    c->bad_row = UINT64_MAX;
    cf_buf_init(&c->plain);
    cf_buf_init(&c->pstat.min);
    cf_buf_init(&c->pstat.max);
    cf_buf_init(&c->cstat.min);
    cf_buf_init(&c->cstat.max);
    cf_buf_init(&c->dict);
    cf_buf_init(&c->pages);
    cf_buf_init(&c->bounds);
    cf_buf_init(&c->body);
    cf_buf_init(&c->vals);
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
    cf_free(c->slots);
    cf_free(c->slot_keys);
    cf_buf_dispose(&c->pages);
    cf_free(c->recs);
    cf_buf_dispose(&c->bounds);
    cf_pq_hashset_dispose(&c->bloom);
    cf_buf_dispose(&c->body);
    cf_buf_dispose(&c->vals);
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

uint64_t cf_pq_wcol_bad_row(const cf_pq_wcol *c) { return c->bad_row; }

size_t cf_pq_wcol_buffered(const cf_pq_wcol *c)
{
    return c->pages.len + c->plain.len + c->nidx * 4 + c->dict.len;
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

/* The dictionary index of value [p, p+n), added when new. */
static cf_status dict_index(cf_pq_wcol *c, const uint8_t *p, size_t n, uint64_t h, uint32_t *out,
                            cf_error *err)
{
    const bool ba = c->d.ptype == CF_PQT_BYTE_ARRAY, keyed = !ba && (n == 4 || n == 8);
    if (2 * (c->dict_count + 1) > c->slot_cap) {
        size_t ncap = c->slot_cap ? 2 * c->slot_cap : 1024;
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
    CF_CHECK(grow((void **)&c->dict_offs, &c->dict_offs_cap, c->dict_count + 1,
                  sizeof(uint32_t)),
             err, CF_ENOMEM, "column %s: out of memory for the dictionary", c->d.name);
    c->dict_offs[c->dict_count] = (uint32_t)c->dict.len;
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

/* Well-formed UTF-8 (no overlongs, surrogates or code points past U+10FFFF). */
static bool utf8_ok(const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (n - i >= 8 && (cf_load_le64(p + i) & 0x8080808080808080ULL) == 0) {
            i += 8; /* ASCII */
            continue;
        }
        uint8_t b = p[i];
        if (b < 0x80) {
            i++;
            continue;
        }
        size_t k;
        uint8_t lo = 0x80, hi = 0xbf;
        if (b >= 0xc2 && b <= 0xdf)
            k = 1;
        else if (b >= 0xe0 && b <= 0xef) {
            k = 2;
            if (b == 0xe0)
                lo = 0xa0;
            else if (b == 0xed)
                hi = 0x9f;
        } else if (b >= 0xf0 && b <= 0xf4) {
            k = 3;
            if (b == 0xf0)
                lo = 0x90;
            else if (b == 0xf4)
                hi = 0x8f;
        } else {
            return false;
        }
        if (n - i <= k || p[i + 1] < lo || p[i + 1] > hi)
            return false;
        for (size_t j = 2; j <= k; j++)
            if ((p[i + j] & 0xc0) != 0x80)
                return false;
        i += k + 1;
    }
    return true;
}

static cf_status add_value(cf_pq_wcol *c, const uint8_t *p, size_t n, cf_error *err)
{
    CF_CHECK(n <= INT32_MAX, err, CF_EINVAL, "column %s: a value of %zu bytes exceeds 2^31 - 1",
             c->d.name, n);
    if (c->d.utf8 && !utf8_ok(p, n))
        c->bad_row = c->rows_total;
    CF_CHECK(!c->d.utf8 || utf8_ok(p, n), err, CF_EINVAL,
             "column %s: row %" PRIu64 ": the value is not UTF-8, which Parquet's STRING "
             "requires (write the column as binary)",
             c->d.name, c->rows_total);
    if (stats_on(c) && !is_nan(c->d.sort, p))
        minmax_add(&c->pstat, c->d.sort, p, n);
    if (c->d.bloom)
        CF_CHECK(cf_pq_hashset_add(&c->bloom, cf_parquet_xxh64(p, n, 0)), err, CF_ENOMEM,
                 "column %s: out of memory for the bloom filter", c->d.name);
    if (c->dict_on) {
        uint32_t e;
        CF_TRY(dict_index(c, p, n, dict_hash(p, n), &e, err));
        CF_CHECK(grow((void **)&c->idx, &c->idx_cap, c->nidx + 1, sizeof(uint32_t)), err,
                 CF_ENOMEM, "column %s: out of memory for a page", c->d.name);
        c->idx[c->nidx++] = e;
    } else {
        if (c->d.ptype == CF_PQT_BYTE_ARRAY)
            cf_buf_put_le32(&c->plain, (uint32_t)n);
        cf_buf_append(&c->plain, p, n);
        CF_CHECK(!c->plain.oom, err, CF_ENOMEM, "column %s: out of memory for a page",
                 c->d.name);
    }
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
    uLong crc = crc32(0L, Z_NULL, 0);
    if (al)
        crc = crc32(crc, a, (uInt)al);
    if (bl)
        crc = crc32(crc, b2, (uInt)bl);
    cf_thrift_write_field_i32(tw, 4, (int32_t)(uint32_t)crc);
}

/* Close the open page: encode, compress, append header and body to the chunk. */
static cf_status flush_page(cf_pq_wcol *c, cf_error *err)
{
    if (c->nlev == 0)
        return CF_OK;
    const bool v2 = c->o.v2, dict = c->dict_on;
    cf_buf *body = &c->body, *vals = &c->vals, *comp = &c->comp, *hdr = &c->hdr;
    cf_buf_clear(body);
    cf_buf_clear(vals);
    cf_buf_clear(comp);
    cf_buf_clear(hdr);

    /* levels: repetition first, then definition */
    CF_TRY(cf_pq_levels_encode(body, c->rep, c->nlev, CF_PQE_RLE, c->d.max_rep, !v2, err));
    size_t rep_len = body->len;
    CF_TRY(cf_pq_levels_encode(body, c->def, c->nlev, CF_PQE_RLE, c->d.max_def, !v2, err));
    size_t def_len = body->len - rep_len;

    unsigned enc;
    if (dict) {
        enc = CF_PQE_RLE_DICTIONARY;
        CF_TRY(cf_pq_dict_indices_encode(vals, c->idx, c->nidx, (uint32_t)c->dict_count, err));
        c->dict_used = true;
    } else {
        enc = CF_PQE_PLAIN;
        if (c->d.ptype == CF_PQT_BOOLEAN)
            CF_TRY(cf_pq_encode(vals, CF_PQE_PLAIN, CF_PQT_BOOLEAN, 0, c->plain.data, c->nvals,
                                err));
        else
            cf_buf_append(vals, c->plain.data, c->plain.len);
    }
    CF_CHECK(!vals->oom && !body->oom, err, CF_ENOMEM, "column %s: out of memory for a page",
             c->d.name);

    /* what is compressed: v1 the whole body, v2 only the values */
    const uint8_t *stored;
    size_t stored_len, unc_len;
    const uint8_t *lev = NULL;
    size_t lev_len = 0;
    if (!v2) {
        cf_buf_append(body, vals->data, vals->len);
        CF_CHECK(!body->oom, err, CF_ENOMEM, "column %s: out of memory for a page", c->d.name);
        unc_len = body->len;
        if (c->o.codec == CF_PQC_UNCOMPRESSED) {
            stored = body->data;
            stored_len = body->len;
        } else {
            CF_TRY(cf_pq_compress((unsigned)c->o.codec, body->data, body->len, c->o.level, comp,
                                  err));
            stored = comp->data;
            stored_len = comp->len;
        }
    } else {
        lev = body->data;
        lev_len = body->len;
        unc_len = lev_len + vals->len;
        if (c->o.codec == CF_PQC_UNCOMPRESSED) {
            stored = vals->data;
            stored_len = vals->len;
        } else {
            CF_TRY(cf_pq_compress((unsigned)c->o.codec, vals->data, vals->len, c->o.level, comp,
                                  err));
            stored = comp->data;
            stored_len = comp->len;
        }
    }
    size_t page_len = lev_len + stored_len;
    CF_CHECK(unc_len <= INT32_MAX && page_len <= INT32_MAX, err, CF_EINVAL,
             "column %s: a page of %zu bytes exceeds 2^31 - 1 (lower the page size)", c->d.name,
             unc_len);

    cf_thrift_writer tw;
    cf_thrift_writer_init(&tw, hdr);
    cf_thrift_write_struct_begin(&tw);
    cf_thrift_write_field_i32(&tw, 1, v2 ? CF_PARQUET_DATA_PAGE_V2 : CF_PARQUET_DATA_PAGE);
    cf_thrift_write_field_i32(&tw, 2, (int32_t)unc_len);
    cf_thrift_write_field_i32(&tw, 3, (int32_t)page_len);
    put_header_crc(c, &tw, lev, lev_len, stored, stored_len);
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

    /* the page record (offset within the chunk's data pages for now) */
    if (!grow((void **)&c->recs, &c->recs_cap, c->nrecs + 1, sizeof(*c->recs)))
        CF_FAIL(err, CF_ENOMEM, "column %s: out of memory for the page index", c->d.name);
    cf_pq_page_rec *pr = &c->recs[c->nrecs++];
    memset(pr, 0, sizeof(*pr));
    pr->offset = (int64_t)c->pages.len;
    pr->size = (int32_t)(hdr->len + page_len);
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

    cf_buf_append(&c->pages, hdr->data, hdr->len);
    if (lev_len)
        cf_buf_append(&c->pages, lev, lev_len);
    cf_buf_append(&c->pages, stored, stored_len);
    CF_CHECK(!c->pages.oom && !c->bounds.oom, err, CF_ENOMEM,
             "column %s: out of memory for the row group's pages", c->d.name);

    /* chunk totals */
    c->unc_total += (int64_t)(hdr->len + unc_len);
    c->encodings |= 1u << enc;
    if (c->d.max_def || c->d.max_rep)
        c->encodings |= 1u << CF_PQE_RLE;
    c->num_values += (int64_t)c->nlev;
    c->cnulls += c->pnulls;
    if (c->pstat.has) {
        minmax_add(&c->cstat, c->d.sort, c->pstat.min.data, c->pstat.min.len);
        minmax_add(&c->cstat, c->d.sort, c->pstat.max.data, c->pstat.max.len);
    }

    c->nlev = 0;
    c->nidx = 0;
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
static size_t to_plain(const cf_pq_wcol *c, const uint8_t *src, uint8_t tmp[16],
                       const uint8_t **p)
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

static inline bool bit(const uint8_t *bm, size_t i) { return bm == NULL || (bm[i >> 3] >> (i & 7)) & 1; }

/* Columns append_fixed takes: 4- and 8-byte integers stored as they are in
 * memory (INT32, UINT32, INT64, UINT64, DATE, UNIXTIME_MICROS, DECIMAL32/64),
 * not arrays, without a bloom filter. */
static bool fixed_fast(const cf_pq_wcol *c)
{
    if (c->d.is_array || c->d.bloom || c->d.utf8)
        return false;
    if (c->d.sort == CF_PQS_I32 || c->d.sort == CF_PQS_U32)
        return c->src_width == 4 && c->d.ptype == CF_PQT_INT32;
    if (c->d.sort == CF_PQS_I64 || c->d.sort == CF_PQS_U64)
        return c->src_width == 8 && c->d.ptype == CF_PQT_INT64;
    return false;
}

/* The value at p as a key whose unsigned order is the column's sort order. */
static inline uint64_t sort_key(cf_pq_sort s, const uint8_t *p)
{
    switch (s) {
    case CF_PQS_I32: return (uint64_t)(int64_t)(int32_t)cf_load_le32(p) ^ (UINT64_C(1) << 63);
    case CF_PQS_U32: return cf_load_le32(p);
    case CF_PQS_I64: return cf_load_le64(p) ^ (UINT64_C(1) << 63);
    default: return cf_load_le64(p);
    }
}

/* cf_pq_wcol_append for the columns of fixed_fast, doing what the general
 * path does row by row (the same pages, dictionary, statistics and errors)
 * without its per-value calls: levels and dictionary indices reserved once per
 * stretch of rows, PLAIN values copied straight from the batch, min and max
 * kept as sort keys in registers and merged into the page's statistics before
 * the page is closed. A stretch ends where a page does. */
static cf_status append_fixed(cf_pq_wcol *c, const cf_batch *b, size_t from, size_t to,
                              cf_error *err)
{
    const size_t w = c->src_width;
    const uint8_t *vals = b->values;
    const cf_pq_sort sort = c->d.sort;
    const bool stats = stats_on(c);
    const uint16_t md = c->d.max_def;
    size_t r = from;
    while (r < to) {
        size_t seg = to - r;
        if (c->nlev + seg > c->lev_cap) {
            size_t ncap = c->lev_cap ? 2 * c->lev_cap : 1024;
            while (ncap < c->nlev + seg)
                ncap *= 2;
            if (md) {
                uint16_t *q = cf_realloc(c->def, ncap * sizeof(*q));
                CF_CHECK(q != NULL, err, CF_ENOMEM, "column %s: out of memory for levels",
                         c->d.name);
                c->def = q;
            }
            c->lev_cap = ncap;
        }
        const bool dict = c->dict_on;
        uint8_t *plain = NULL;
        size_t plain0 = c->plain.len;
        if (dict) {
            CF_CHECK(grow((void **)&c->idx, &c->idx_cap, c->nidx + seg, sizeof(uint32_t)), err,
                     CF_ENOMEM, "column %s: out of memory for a page", c->d.name);
        } else {
            plain = cf_buf_extend(&c->plain, seg * w);
            CF_CHECK(plain != NULL, err, CF_ENOMEM, "column %s: out of memory for a page",
                     c->d.name);
        }
        uint64_t kmin = UINT64_MAX, kmax = 0;
        const uint8_t *pmin = NULL, *pmax = NULL;
        size_t nv = 0;
        bool close = false;
        cf_status st = CF_OK;
        size_t i = r;
        for (; i < to && !close; i++) {
            if (!bit(b->nonnull, i)) {
                if (!c->d.nullable) {
                    c->bad_row = c->rows_total;
                    st = cf_error_set(err, CF_EINVAL, __FILE__, __LINE__,
                                      "column %s: row %" PRIu64
                                      " is NULL but the column is not nullable",
                                      c->d.name, c->rows_total);
                    break;
                }
                c->def[c->nlev++] = 0;
                c->pnulls++;
            } else {
                const uint8_t *p = vals + i * w;
                if (md)
                    c->def[c->nlev] = md;
                c->nlev++;
                if (stats) {
                    uint64_t k = sort_key(sort, p);
                    if (k <= kmin) {
                        kmin = k;
                        pmin = p;
                    }
                    if (k >= kmax) {
                        kmax = k;
                        pmax = p;
                    }
                }
                if (dict) {
                    /* A value already in the dictionary (the common case) is
                     * found here; dict_index adds the others. */
                    uint64_t h = dict_hash(p, w);
                    uint32_t e = UINT32_MAX;
                    if (c->slot_keys != NULL) {
                        const uint64_t key = w == 8 ? cf_load_le64(p) : cf_load_le32(p);
                        const size_t mask = c->slot_cap - 1;
                        for (size_t j = (size_t)h & mask; c->slots[j] != 0; j = (j + 1) & mask)
                            if (c->slot_keys[j] == key) {
                                e = c->slots[j] - 1;
                                break;
                            }
                    }
                    if (e == UINT32_MAX) {
                        st = dict_index(c, p, w, h, &e, err);
                        if (st != CF_OK)
                            break;
                    }
                    c->idx[c->nidx++] = e;
                } else {
                    memcpy(plain + nv * w, p, w);
                }
                nv++;
                c->nvals++;
            }
            /* row_done, without the flush: that comes after the statistics */
            c->page_rows++;
            c->rg_rows++;
            c->rows_total++;
            size_t est = dict ? c->nidx * cf_pq_bit_width(c->dict_count) / 8 : c->plain.len;
            if (!dict)
                est = plain0 + nv * w;
            close = c->fallback || c->page_rows >= c->o.page_rows || est >= c->o.page_bytes;
        }
        if (!dict)
            c->plain.len = plain0 + nv * w; /* give back what the stretch did not use */
        if (pmin != NULL) {
            minmax_add(&c->pstat, sort, pmin, w);
            minmax_add(&c->pstat, sort, pmax, w);
        }
        if (st != CF_OK)
            return st;
        if (close) {
            CF_TRY(flush_page(c, err));
            if (c->fallback) {
                c->dict_on = false;
                c->fallback = false;
            }
        }
        r = i;
    }
    return CF_OK;
}

cf_status cf_pq_wcol_append(cf_pq_wcol *c, const cf_batch *b, size_t from, size_t to,
                            cf_error *err)
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
                     "column %s: row %" PRIu64 " is NULL but the column is not nullable",
                     c->d.name, c->rows_total);
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

static cf_status io_put(cf_io *io, const void *p, size_t n, cf_error *err)
{
    if (n == 0)
        return CF_OK;
    return io->ops->append(io, p, n, err);
}

cf_status cf_pq_wcol_write_chunk(cf_pq_wcol *c, cf_io *io, cf_pq_chunk_rec *rec, cf_error *err)
{
    CF_TRY(flush_page(c, err));
    memset(rec, 0, sizeof(*rec));
    int64_t start = (int64_t)io->ops->size(io);
    int64_t unc = 0;
    if (c->dict_used) {
        cf_buf *hdr = &c->hdr, *comp = &c->comp;
        cf_buf_clear(hdr);
        cf_buf_clear(comp);
        const uint8_t *stored = c->dict.data;
        size_t stored_len = c->dict.len;
        if (c->o.codec != CF_PQC_UNCOMPRESSED) {
            CF_TRY(cf_pq_compress((unsigned)c->o.codec, c->dict.data, c->dict.len, c->o.level,
                                  comp, err));
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
        CF_CHECK(cf_thrift_writer_status(&tw) == CF_OK, err, CF_ENOMEM,
                 "column %s: out of memory", c->d.name);
        rec->has_dict = true;
        rec->dict_page_offset = start;
        CF_TRY(io_put(io, hdr->data, hdr->len, err));
        CF_TRY(io_put(io, stored, stored_len, err));
        unc = (int64_t)(hdr->len + c->dict.len);
        c->encodings |= 1u << CF_PQE_PLAIN;
    }
    rec->data_page_offset = (int64_t)io->ops->size(io);
    CF_TRY(io_put(io, c->pages.data, c->pages.len, err));
    rec->num_values = c->num_values;
    rec->total_uncompressed = unc + c->unc_total;
    rec->total_compressed = (int64_t)io->ops->size(io) - start;
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

cf_status cf_pq_wcol_write_bloom(cf_pq_wcol *c, cf_io *io, cf_pq_chunk_rec *rec, cf_error *err)
{
    if (!c->d.bloom)
        return CF_OK;
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

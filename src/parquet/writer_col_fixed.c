/* cf_pq_wcol_append's fast path for 4- and 8-byte numbers (INT32, UINT32,
 * INT64, UINT64, DATE, UNIXTIME_MICROS, DECIMAL32/64, FLOAT, DOUBLE; not
 * arrays, bloom filters or strings): a stretch of rows at a time, with the
 * same pages, dictionary, statistics and errors as the general path in
 * writer_col.c. It must not encode pages or change the dictionary other than
 * through cf_pq_wcol_dict_index, so both paths keep one set of rules.
 */
#include "writer_col.h"

/* Columns append_fixed takes: 4- and 8-byte integers and floats stored as they
 * are in memory (INT32, UINT32, INT64, UINT64, DATE, UNIXTIME_MICROS,
 * DECIMAL32/64, FLOAT, DOUBLE), not arrays, without a bloom filter. */
bool cf_pq_wcol_fixed_fast(const cf_pq_wcol *c)
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
                *st = cf_pq_wcol_dict_index(c, p, w, h, &e, err);
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
cf_status cf_pq_wcol_append_fixed(cf_pq_wcol *c, const cf_batch *b, size_t from, size_t to,
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
            CF_TRY(cf_pq_wcol_flush_page(c, err));
            if (c->fallback) {
                c->dict_on = false;
                c->fallback = false;
            }
        }
        r += o.rows;
    }
    return CF_OK;
}

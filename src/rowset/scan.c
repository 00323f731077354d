/* Scanning a rowset: projection, predicates, MVCC snapshots.
 *
 * Per batch of ordinals [cur, cur+n):
 *   1. every delta applier (UNDO files, REDO files, then the DMS) prepares the
 *      batch; DELETE/REINSERT decide which rows exist at the snapshot;
 *   2. predicate columns are read, their deltas applied, the predicates
 *      evaluated on the result (so updated values are what is filtered);
 *   3. only when a row survives are the other projected columns read;
 *   4. surviving rows are packed into the output batch.
 * Key predicates first narrow [lo, hi) through the key index (format §13), and an
 * equality on the whole key asks the bloom filter before anything is read.
 */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "cfile/internal.h"
#include <cfile/team.h>

#include "util/alloc.h"
#include "util/bitmap.h"
#include "util/error.h"
#include "util/int128.h"

/* Rows a column is read ahead by with threads (see "reading ahead"). */
#ifndef WINDOW_ROWS
#define WINDOW_ROWS 8192
#endif

/* a OP b for the comparison operators. */
#define TEST_OP(op, a, b)                                                                          \
    ((op) == CF_PRED_EQ   ? (a) == (b)                                                             \
     : (op) == CF_PRED_NE ? (a) != (b)                                                             \
     : (op) == CF_PRED_LT ? (a) < (b)                                                              \
     : (op) == CF_PRED_LE ? (a) <= (b)                                                             \
     : (op) == CF_PRED_GT ? (a) > (b)                                                              \
                          : (a) >= (b))

/* Rows [lo, hi) of a column read ahead (threads). */
typedef struct rs_win {
    cf_buf vals, nn, bytes;
    uint64_t lo, hi;
} rs_win;

typedef struct rs_col {
    size_t idx;
    const cf_column *c;
    size_t width;
    cf_iter *it;
    uint64_t pos;
    bool loaded;
    cf_buf vals, nn, offs, enn;
    size_t elems;
    cf_arena arena;
    cf_buf ovals, onn, ooffs, oenn;
    /* The batch's rows as the predicates and the output see them: vals/nn,
     * or a slice of the window. */
    uint8_t *bv, *bnn;
    /* Threads (team != NULL, not arrays): two windows of rows read ahead, each
     * with its own copies of binary bytes: win[cw] the one batches take rows
     * from, the other being read (busy: by a run of the team that may still be
     * going, into rows [nlo, nlo + nrows)) or read (next_ok). Rows before
     * wbad_hi are read batch by batch again, because a window read there
     * failed (the error is reported only if a batch really needs those rows,
     * and then as a single thread would report it). used = the batch that
     * last needed the column. While busy, only the job touches it, iterator
     * included. */
    rs_win win[2];
    unsigned cw;
    bool busy, next_ok;
    uint64_t nlo;
    size_t nrows;
    uint64_t wbad_hi, used;
    /* the last window read: nanoseconds taken (the longest go first), status, error */
    uint64_t cost_ns;
    cf_status jst;
    cf_error jerr;
    /* A key column no delta visible to this scanner changes: a point lookup
     * (cf_rowset_scanner_set_row) hands its value in, so the column is not read. */
    bool key_fixed;
} rs_col;

typedef struct rs_pred {
    size_t c; /* index into sc->cols */
    size_t col;
    cf_pred_op op;
    cf_type phys;
    _Alignas(16) uint8_t slot[16];
    /* Block skipping (filter != NULL): [ok_lo, ok_hi) is the last block of the
     * column found to hold possible matches. */
    cf_block_filter *filter;
    uint64_t ok_lo, ok_hi;
} rs_pred;

struct cf_rowset_scanner {
    cf_rowset *rs;
    const cf_schema *s;
    rs_col *cols;
    size_t ncols;
    size_t *proj;
    size_t nproj;
    rs_pred *preds;
    size_t npreds;
    cf_arena parena;
    cf_delta_apply **ap;
    uint64_t *ap_pos;
    size_t nap;
    uint64_t lo, hi, cur;
    bool visible, raw;
    size_t batch_rows;
    cf_buf sel;
    cf_batch *out;
    cf_buf ords;
    cf_scan_stats st;
    /* Column reads shared with worker threads (threads > 1): the team (owned,
     * or a table scanner's); the columns of the windows being read (jobs), the
     * run's ticket while it may be going (inflight), and the team's status and
     * error slots for them (each column also keeps its own, which is what is
     * read back). */
    cf_team *team;
    bool own_team, inflight;
    size_t *jobs, njobs;
    bool *moves; /* advance: per column */
    uint64_t ticket;
    uint64_t batchno;   /* batches so far */
    size_t window_rows; /* WINDOW_ROWS, or a test's */
    cf_status *jst;
    cf_error *jerr;
    /* cf_rowset_scanner_set_row: the looked-up key's column values (memory form),
     * for the one row of the range; NULL otherwise. */
    const void *const *keyvals;
};

void cf_scan_options_init(cf_scan_options *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->version = CF_SCAN_OPTIONS_VERSION;
    opts->snapshot = CF_SNAPSHOT_LATEST;
    opts->batch_rows = 1024;
    opts->threads = 1;
}

static void col_dispose(rs_col *c)
{
    cf_iter_free(c->it);
    cf_buf_dispose(&c->vals);
    cf_buf_dispose(&c->nn);
    cf_buf_dispose(&c->offs);
    cf_buf_dispose(&c->enn);
    cf_buf_dispose(&c->ovals);
    cf_buf_dispose(&c->onn);
    cf_buf_dispose(&c->ooffs);
    cf_buf_dispose(&c->oenn);
    cf_arena_dispose(&c->arena);
    for (int k = 0; k < 2; k++) {
        cf_buf_dispose(&c->win[k].vals);
        cf_buf_dispose(&c->win[k].nn);
        cf_buf_dispose(&c->win[k].bytes);
    }
}

static void settle(cf_rowset_scanner *sc);
#ifdef CF_SCAN_TRACE
static void trace_dump(void);
#endif

void cf_rowset_scanner_free(cf_rowset_scanner *sc)
{
    if (sc == NULL)
        return;
    /* A worker may still read a window ahead for this scanner: wait for it
     * before the columns go. */
    settle(sc);
#ifdef CF_SCAN_TRACE
    trace_dump();
#endif
    if (sc->own_team)
        cf_team_free(sc->team);
    cf_free(sc->jobs);
    cf_free(sc->moves);
    cf_free(sc->jst);
    cf_free(sc->jerr);
    for (size_t i = 0; i < sc->ncols; i++)
        col_dispose(&sc->cols[i]);
    for (size_t i = 0; i < sc->nap; i++)
        cf_delta_apply_free(sc->ap[i]);
    cf_free(sc->ap);
    cf_free(sc->ap_pos);
    cf_free(sc->cols);
    cf_free(sc->proj);
    for (size_t i = 0; i < sc->npreds; i++)
        cf_block_filter_free(sc->preds[i].filter);
    cf_free(sc->preds);
    cf_free(sc->out);
    cf_buf_dispose(&sc->sel);
    cf_buf_dispose(&sc->ords);
    cf_arena_dispose(&sc->parena);
    cf_free(sc);
}

static cf_status add_col(cf_rowset_scanner *sc, size_t idx, size_t *out, cf_error *err)
{
    for (size_t i = 0; i < sc->ncols; i++) {
        if (sc->cols[i].idx == idx) {
            *out = i;
            return CF_OK;
        }
    }
    rs_col *c = &sc->cols[sc->ncols];
    memset(c, 0, sizeof(*c));
    c->idx = idx;
    c->c = &sc->s->cols[idx];
    c->width = cf_type_size(c->c->type);
    c->pos = UINT64_MAX;
    cf_buf_init(&c->vals);
    cf_buf_init(&c->nn);
    cf_buf_init(&c->offs);
    cf_buf_init(&c->enn);
    cf_buf_init(&c->ovals);
    cf_buf_init(&c->onn);
    cf_buf_init(&c->ooffs);
    cf_buf_init(&c->oenn);
    for (int k = 0; k < 2; k++) {
        cf_buf_init(&c->win[k].vals);
        cf_buf_init(&c->win[k].nn);
        cf_buf_init(&c->win[k].bytes);
    }
    *out = sc->ncols++;
    if (cf_rs_rows(sc->rs) > 0)
        CF_TRY(cf_iter_create(&c->it, cf_rs_column_reader(sc->rs, idx), err));
    return CF_OK;
}

/* ---- key range pushdown --------------------------------------------------------------------- */

/* The smallest byte string greater than every string that starts with b:
 * drop trailing ff bytes, then add one to the last. False when none exists. */
static bool prefix_succ(cf_buf *b)
{
    while (b->len > 0 && b->data[b->len - 1] == 0xff)
        b->len--;
    if (b->len == 0)
        return false;
    b->data[b->len - 1]++;
    return true;
}

static void buf_set(cf_buf *dst, const cf_buf *src)
{
    cf_buf_clear(dst);
    cf_buf_append(dst, src->data, src->len);
}

/* Bound on key column k from `pred` after an equal prefix: lower (GE/GT) or upper (LT/LE). */
static void pred_bound(cf_rowset_scanner *sc, const cf_buf *prefix, size_t k, const rs_pred *p,
                       cf_buf *out, bool *none)
{
    const cf_schema *s = sc->s;
    bool last_bin = cf_type_physical(s->cols[k].type) == CF_TYPE_BINARY && k + 1 == s->nkeys;
    buf_set(out, prefix);
    cf_rs_key_append(out, s, k, p->slot);
    *none = false;
    if (p->op == CF_PRED_GT || p->op == CF_PRED_LE) {
        if (last_bin)
            cf_buf_put_u8(out, 0);
        else
            *none = !prefix_succ(out);
    }
}

static cf_status key_range(cf_rowset_scanner *sc, cf_error *err)
{
    const cf_schema *s = sc->s;
    cf_rowset *rs = sc->rs;
    sc->lo = 0;
    sc->hi = cf_rs_rows(rs);
    if (sc->raw || sc->hi == 0)
        return CF_OK;
    cf_buf prefix, lo, hi, t;
    cf_buf_init(&prefix);
    cf_buf_init(&lo);
    cf_buf_init(&hi);
    cf_buf_init(&t);
    bool have_hi = false, whole = true;
    cf_status st = CF_OK;
    size_t k = 0;
    for (; k < s->nkeys; k++) {
        const rs_pred *eq = NULL;
        for (size_t i = 0; i < sc->npreds && eq == NULL; i++)
            if (sc->preds[i].col == k && sc->preds[i].op == CF_PRED_EQ)
                eq = &sc->preds[i];
        if (eq != NULL) {
            cf_rs_key_append(&prefix, s, k, eq->slot);
            continue;
        }
        whole = false;
        buf_set(&lo, &prefix);
        buf_set(&hi, &prefix);
        have_hi = prefix.len > 0 && prefix_succ(&hi);
        for (size_t i = 0; i < sc->npreds; i++) {
            const rs_pred *p = &sc->preds[i];
            if (p->col != k || p->op == CF_PRED_NE || p->op == CF_PRED_IS_NULL ||
                p->op == CF_PRED_IS_NOT_NULL)
                continue;
            bool none;
            pred_bound(sc, &prefix, k, p, &t, &none);
            if (p->op == CF_PRED_GE || p->op == CF_PRED_GT) {
                if (none) { /* nothing is greater */
                    sc->hi = 0;
                    goto out;
                }
                if (cf_rs_bytes_cmp(t.data, t.len, lo.data, lo.len) > 0)
                    buf_set(&lo, &t);
            } else if (!none) {
                if (!have_hi || cf_rs_bytes_cmp(t.data, t.len, hi.data, hi.len) < 0)
                    buf_set(&hi, &t);
                have_hi = true;
            }
        }
        break;
    }
    if (whole) {
        /* Equality on every key column: one key; the bloom filter may rule it out. */
        uint64_t ord;
        bool pruned;
        st = cf_rs_probe_key(rs, prefix.data, prefix.len, &ord, &pruned, err);
        sc->st.bloom_pruned = pruned;
        if (st == CF_ENOTFOUND) {
            st = CF_OK;
            sc->hi = 0;
        } else if (st == CF_OK) {
            sc->lo = ord;
            sc->hi = ord + 1;
        }
        goto out;
    }
    if (lo.len > 0)
        CF_TRY_OUT(cf_rs_lower_bound(rs, lo.data, lo.len, &sc->lo, err));
    if (have_hi)
        CF_TRY_OUT(cf_rs_lower_bound(rs, hi.data, hi.len, &sc->hi, err));
    if (lo.oom || hi.oom || prefix.oom || t.oom)
        CF_FAIL_OUT(err, CF_ENOMEM, "scan: out of memory");
out:
    if (sc->hi < sc->lo)
        sc->hi = sc->lo;
    cf_buf_dispose(&prefix);
    cf_buf_dispose(&lo);
    cf_buf_dispose(&hi);
    cf_buf_dispose(&t);
    return st;
}

/* ---- create -----------------------------------------------------------------------------------
 */

static cf_status copy_pred(cf_rowset_scanner *sc, const cf_pred *p, rs_pred *out, cf_error *err)
{
    const cf_schema *s = sc->s;
    CF_CHECK(p->col < s->ncols, err, CF_EINVAL, "scan: predicate on column %zu of %zu", p->col,
             s->ncols);
    CF_CHECK((int)p->op >= CF_PRED_EQ && p->op <= CF_PRED_IS_NOT_NULL, err, CF_EINVAL,
             "scan: bad predicate operator");
    const cf_column *c = &s->cols[p->col];
    out->col = p->col;
    out->op = p->op;
    out->phys = cf_type_physical(c->type);
    memset(out->slot, 0, sizeof(out->slot));
    if (p->op == CF_PRED_IS_NULL || p->op == CF_PRED_IS_NOT_NULL)
        return CF_OK;
    CF_CHECK(!c->is_array, err, CF_EINVAL, "scan: array column '%s' takes only IS [NOT] NULL",
             c->name);
    CF_CHECK(p->value != NULL, err, CF_EINVAL, "scan: predicate on '%s' has no value", c->name);
    if (cf_type_is_binary(c->type)) {
        cf_slice v;
        memcpy(&v, p->value, sizeof(v));
        uint8_t *copy = cf_arena_alloc_aligned(&sc->parena, v.len ? v.len : 1, 16);
        CF_CHECK(copy != NULL, err, CF_ENOMEM, "scan: out of memory");
        if (v.len)
            memcpy(copy, v.data, v.len);
        v.data = copy;
        memcpy(out->slot, &v, sizeof(v));
    } else {
        memcpy(out->slot, p->value, cf_type_size(c->type));
    }
    return CF_OK;
}

/* ---- block skipping -------------------------------------------------------------------------- */

/* The predicate on one value (never NULL), for cf_block_filter. */
static bool pred_test(void *ctx, const void *value)
{
    const rs_pred *p = ctx;
#define T(type)                                                                                    \
    do {                                                                                           \
        type a, b;                                                                                 \
        memcpy(&a, value, sizeof a);                                                               \
        memcpy(&b, p->slot, sizeof b);                                                             \
        return TEST_OP(p->op, a, b);                                                               \
    } while (0)
    switch (p->phys) {
    case CF_TYPE_UINT8:
    case CF_TYPE_BOOL: T(uint8_t);
    case CF_TYPE_INT8: T(int8_t);
    case CF_TYPE_UINT16: T(uint16_t);
    case CF_TYPE_INT16: T(int16_t);
    case CF_TYPE_UINT32: T(uint32_t);
    case CF_TYPE_INT32: T(int32_t);
    case CF_TYPE_UINT64: T(uint64_t);
    case CF_TYPE_INT64: T(int64_t);
    case CF_TYPE_INT128: T(cf_i128);
    case CF_TYPE_FLOAT: T(float);
    case CF_TYPE_DOUBLE: T(double);
    default: {
        cf_slice a, b;
        memcpy(&a, value, sizeof a);
        memcpy(&b, p->slot, sizeof b);
        int r = cf_rs_bytes_cmp(a.data, a.len, b.data, b.len);
        return TEST_OP(p->op, r, 0);
    }
    }
#undef T
}

/* Mark in `changed` (one flag per column) the columns whose values deltas of
 * reader r may change: UPDATEs name them; a REINSERT brings a whole row back;
 * missing statistics could hide either. */
static void mark_changed(const cf_schema *s, const cf_delta_reader *r, bool *changed)
{
    const cf_delta_stats *ds;
    cf_error e;
    if (cf_delta_reader_stats(r, &ds, &e) != CF_OK || ds->reinsert_count != 0) {
        for (size_t i = 0; i < s->ncols; i++)
            changed[i] = true;
        return;
    }
    for (size_t k = 0; k < ds->ncols; k++) {
        if (ds->cols[k].update_count == 0)
            continue;
        int i = cf_delta_schema_find(s->dcols, s->ncols, ds->cols[k].col_id);
        if (i < 0) {
            for (size_t j = 0; j < s->ncols; j++)
                changed[j] = true;
            return;
        }
        changed[i] = true;
    }
}

/* Mark in `changed` the key columns whose values deltas of reader r may set:
 * only a change list naming the column can (its statistics count every
 * column an UPDATE or REINSERT sets); without statistics, all of them. Our
 * writers never set a key column, but a file may. */
static void mark_keys_changed(const cf_schema *s, const cf_delta_reader *r, bool *changed)
{
    const cf_delta_stats *ds;
    cf_error e;
    bool all = cf_delta_reader_stats(r, &ds, &e) != CF_OK;
    for (size_t k = 0; !all && k < ds->ncols; k++) {
        if (ds->cols[k].update_count == 0)
            continue;
        int i = cf_delta_schema_find(s->dcols, s->ncols, ds->cols[k].col_id);
        if (i < 0)
            all = true;
        else if ((size_t)i < s->nkeys)
            changed[i] = true;
    }
    for (size_t i = 0; all && i < s->nkeys; i++)
        changed[i] = true;
}

/* A block filter for each comparison on a column whose encoding can rule
 * blocks out and whose values no delta visible to this scan changes (changed[],
 * from mark_changed; deleted rows only ever leave a block with fewer matches). */
static cf_status make_filters(cf_rowset_scanner *sc, const bool *changed, cf_error *err)
{
    cf_rowset *rs = sc->rs;
    cf_status st = CF_OK;
    if (cf_rs_rows(rs) == 0)
        return CF_OK;
    for (size_t i = 0; i < sc->npreds; i++) {
        rs_pred *p = &sc->preds[i];
        if (p->op == CF_PRED_IS_NULL || p->op == CF_PRED_IS_NOT_NULL || changed[p->col])
            continue;
        const cf_reader *cr = cf_rs_column_reader(rs, p->col);
        const cf_file_info *fi = cf_reader_info(cr);
        if (fi->is_array ||
            (fi->encoding != CF_ENC_DICT && fi->encoding != CF_ENC_RLE && !fi->nullable))
            continue; /* nothing to learn from its blocks */
        CF_TRY(cf_block_filter_create(&p->filter, cr, pred_test, p, err));
        p->ok_lo = p->ok_hi = 0;
    }
    return st;
}

/* Whether the rows from sc->cur on may match every filtered predicate: *skip_to
 * > cur when a block rules them out up to there; *end = where the blocks known
 * to hold possible matches end (a batch stops there, so the next one starts
 * with a fresh check). */
static cf_status check_blocks(cf_rowset_scanner *sc, uint64_t *skip_to, uint64_t *end,
                              cf_error *err)
{
    *skip_to = sc->cur;
    *end = sc->hi;
    for (size_t i = 0; i < sc->npreds; i++) {
        rs_pred *p = &sc->preds[i];
        if (p->filter == NULL)
            continue;
        if (sc->cur < p->ok_lo || sc->cur >= p->ok_hi) {
            rs_col *c = &sc->cols[p->c];
            if (c->busy) /* the iterator is the job's until it ends */
                settle(sc);
            cf_block_info bi;
            CF_TRY(cf_iter_block_at(c->it, sc->cur, p->filter, &bi, err));
            c->pos = sc->cur; /* block_at left the iterator there */
            if (!bi.may_match) {
                *skip_to = bi.first_ord + bi.rows;
                return CF_OK;
            }
            p->ok_lo = bi.first_ord;
            p->ok_hi = bi.first_ord + bi.rows;
        }
        if (p->ok_hi < *end)
            *end = p->ok_hi;
    }
    return CF_OK;
}

static void set_fill_cache(cf_rowset_scanner *sc, bool fill)
{
    for (size_t i = 0; i < sc->ncols; i++)
        if (sc->cols[i].it != NULL)
            cf_iter_set_fill_cache(sc->cols[i].it, fill);
}

cf_status cf_rowset_scanner_create_ex(cf_rowset_scanner **out, cf_rowset *rs,
                                      const cf_scan_options *o, bool raw, bool include_dms,
                                      cf_error *err)
{
    *out = NULL;
    cf_scan_options dflt;
    if (o == NULL) {
        cf_scan_options_init(&dflt);
        o = &dflt;
    }
    CF_CHECK(o->version == CF_SCAN_OPTIONS_VERSION, err, CF_EINVAL,
             "scan: options.version %u unknown", o->version);
    CF_TRY(cf_rs_load(rs, err));
    const cf_schema *s = cf_rowset_schema(rs);
    cf_rowset_scanner *sc = cf_calloc(1, sizeof(*sc));
    CF_CHECK(sc != NULL, err, CF_ENOMEM, "scan: out of memory");
    bool *changed = NULL, *kchanged = NULL;
    sc->rs = rs;
    sc->s = s;
    sc->raw = raw;
    cf_buf_init(&sc->sel);
    cf_buf_init(&sc->ords);
    sc->batch_rows = o->batch_rows ? o->batch_rows : 1024;
    sc->window_rows = WINDOW_ROWS;
    cf_status st = CF_OK;
    size_t nproj = o->cols ? o->ncols : s->ncols;
    sc->cols = cf_calloc(s->ncols, sizeof(*sc->cols));
    sc->proj = cf_calloc(nproj ? nproj : 1, sizeof(*sc->proj));
    sc->out = cf_calloc(nproj ? nproj : 1, sizeof(*sc->out));
    sc->preds = cf_calloc(o->npreds ? o->npreds : 1, sizeof(*sc->preds));
    if (sc->cols == NULL || sc->proj == NULL || sc->out == NULL || sc->preds == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "scan: out of memory");
    for (size_t i = 0; i < nproj; i++) {
        size_t idx = o->cols ? o->cols[i] : i;
        if (idx >= s->ncols)
            CF_FAIL_OUT(err, CF_EINVAL, "scan: no column %zu (the schema has %zu)", idx, s->ncols);
        CF_TRY_OUT(add_col(sc, idx, &sc->proj[i], err));
    }
    sc->nproj = nproj;
    for (size_t i = 0; i < o->npreds; i++) {
        CF_TRY_OUT(copy_pred(sc, &o->preds[i], &sc->preds[i], err));
        CF_TRY_OUT(add_col(sc, sc->preds[i].col, &sc->preds[i].c, err));
        sc->npreds++;
    }
    size_t workers;
    CF_TRY_OUT(cf_rs_scan_workers(o, sc->ncols, &workers, err));
    sc->jobs = cf_calloc(sc->ncols + 1, sizeof(*sc->jobs));
    sc->jst = cf_calloc(sc->ncols + 1, sizeof(*sc->jst));
    sc->jerr = cf_calloc(sc->ncols + 1, sizeof(*sc->jerr));
    sc->moves = cf_calloc(sc->ncols + 1, sizeof(*sc->moves));
    if (sc->jobs == NULL || sc->jst == NULL || sc->jerr == NULL || sc->moves == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "scan: out of memory");
    if (workers > 0 && cf_rs_rows(rs) > 0) {
        CF_TRY_OUT(cf_team_create(&sc->team, workers, err));
        sc->own_team = true;
    }
    sc->visible = raw || cf_rs_insert_ts(rs) < o->snapshot;
    if (!raw) {
        size_t nd = cf_rs_delta_file_count(rs);
        sc->ap = cf_calloc(nd + 1, sizeof(*sc->ap));
        sc->ap_pos = cf_calloc(nd + 1, sizeof(*sc->ap_pos));
        changed = cf_calloc(s->ncols, sizeof(bool));  /* columns deltas may change */
        kchanged = cf_calloc(s->ncols, sizeof(bool)); /* key columns deltas may set */
        if (sc->ap == NULL || sc->ap_pos == NULL || changed == NULL || kchanged == NULL)
            CF_FAIL_OUT(err, CF_ENOMEM, "scan: out of memory");
        for (size_t i = 0; i <= nd; i++) {
            cf_delta_reader *r;
            if (i < nd) {
                cf_delta_type t;
                r = cf_rs_delta_file(rs, i, &t);
            } else {
                if (!include_dms)
                    break;
                r = cf_rs_dms_reader(rs, err, &st);
                if (st != CF_OK)
                    goto out;
                if (r == NULL)
                    break;
            }
            bool culled;
            CF_TRY_OUT(cf_delta_apply_create(&sc->ap[sc->nap], r, s->dcols, s->ncols, o->snapshot,
                                             &culled, err));
            if (culled) {
                cf_delta_apply_free(sc->ap[sc->nap]);
                sc->ap[sc->nap] = NULL;
                continue;
            }
            sc->ap_pos[sc->nap++] = UINT64_MAX;
            mark_changed(s, r, changed);
            mark_keys_changed(s, r, kchanged);
        }
        CF_TRY_OUT(make_filters(sc, changed, err));
        for (size_t i = 0; i < sc->ncols; i++)
            sc->cols[i].key_fixed = sc->cols[i].idx < s->nkeys && !kchanged[sc->cols[i].idx];
    }
    CF_TRY_OUT(key_range(sc, err));
    /* A scan of the whole rowset reads each block once: it leaves the cache
     * to what lookups and narrower scans read again (set_range turns it back). */
    if (sc->lo == 0 && sc->hi == cf_rs_rows(rs))
        set_fill_cache(sc, false);
    sc->cur = sc->lo;
    sc->st.rows_in_range = sc->hi - sc->lo;
out:
    cf_free(changed);
    cf_free(kchanged);
    if (st != CF_OK) {
        cf_rowset_scanner_free(sc);
        return st;
    }
    *out = sc;
    return CF_OK;
}

cf_status cf_rowset_scanner_create(cf_rowset_scanner **out, cf_rowset *rs,
                                   const cf_scan_options *opts, cf_error *err)
{
    *out = NULL;
    cf_rowset_info info;
    cf_rowset_get_info(rs, &info);
    CF_TRY(cf_rs_check_snapshot(opts != NULL ? opts->snapshot : CF_SNAPSHOT_LATEST, info.ahm, err));
    return cf_rowset_scanner_create_ex(out, rs, opts, false, true, err);
}

void cf_rowset_scanner_set_row(cf_rowset_scanner *sc, uint64_t ord, const void *const *keyvals)
{
    cf_rowset_scanner_set_range(sc, ord, ord + 1);
    sc->keyvals = keyvals;
}

void cf_rowset_scanner_set_range(cf_rowset_scanner *sc, uint64_t lo, uint64_t hi)
{
    settle(sc);
    set_fill_cache(sc, true);
    sc->keyvals = NULL;
    uint64_t rows = cf_rs_rows(sc->rs);
    sc->lo = lo < rows ? lo : rows;
    sc->hi = hi < rows ? hi : rows;
    if (sc->hi < sc->lo)
        sc->hi = sc->lo;
    sc->cur = sc->lo;
}

void cf_rowset_scanner_set_team(cf_rowset_scanner *sc, cf_team *team)
{
    settle(sc);
    if (sc->own_team)
        cf_team_free(sc->team);
    sc->team = team;
    sc->own_team = false;
}

cf_status cf_rs_scan_workers(const cf_scan_options *o, size_t ncols, size_t *workers, cf_error *err)
{
    size_t t = o->threads;
    *workers = 0;
    if (t == CF_SCAN_THREADS_AUTO)
        t = cf_team_online_cpus(CF_SCAN_MAX_THREADS);
    CF_CHECK(t <= CF_SCAN_MAX_THREADS, err, CF_EINVAL,
             "scan: threads %zu (at most %u, or 0 for one per CPU)", t, CF_SCAN_MAX_THREADS);
    /* Each thread reads whole columns: more threads than columns would idle. */
    if (t > ncols)
        t = ncols;
    *workers = t > 1 ? t - 1 : 0;
    return CF_OK;
}

void cf_rowset_scanner_set_window_rows(cf_rowset_scanner *sc, size_t rows)
{
    sc->window_rows = rows;
}

const cf_scan_stats *cf_rowset_scanner_stats(const cf_rowset_scanner *sc)
{
    return &sc->st;
}

/* ---- reading one column ------------------------------------------------------------------------
 */

/* Copy the bytes of binary slices into the column's arena: the iterator's views
 * die at its next call, and a batch may need several. */
static cf_status deep_copy(cf_arena *arena, cf_slice *v, size_t n, cf_error *err)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += v[i].len;
    uint8_t *p = cf_arena_alloc_aligned(arena, total ? total : 1, 16);
    CF_CHECK(p != NULL, err, CF_ENOMEM, "scan: out of memory");
    for (size_t i = 0; i < n; i++) {
        if (v[i].len)
            memcpy(p, v[i].data, v[i].len);
        v[i].data = p;
        p += v[i].len;
    }
    return CF_OK;
}

/* Window reads copy binary bytes to one buffer that is reused from window to
 * window: the slices hold offsets into it until the read ends and it can no
 * longer move. */
static cf_status copy_to_buf(cf_buf *bytes, cf_slice *v, size_t n, cf_error *err)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += v[i].len;
    size_t at = bytes->len;
    uint8_t *p = cf_buf_extend(bytes, total);
    CF_CHECK(p != NULL, err, CF_ENOMEM, "scan: out of memory");
    for (size_t i = 0; i < n; i++) {
        if (v[i].len)
            memcpy(p, v[i].data, v[i].len);
        p += v[i].len;
        v[i].data = (const uint8_t *)(uintptr_t)at;
        at += v[i].len;
    }
    return CF_OK;
}

/* Read rows [cur, cur+n) of column c into vals/nn: the column's own buffers
 * for a batch (binary bytes that the iterator's next call would invalidate
 * copied to arena), its window's when reading ahead (bytes != NULL, never
 * arrays). */
static cf_status load_into(rs_col *c, uint64_t cur, size_t n, cf_buf *vals, cf_buf *nnb,
                           cf_arena *arena, cf_buf *bytes, cf_error *err)
{
    size_t copied = 0; /* rows whose bytes went to `bytes` */
    cf_buf_clear(vals);
    cf_buf_clear(nnb);
    cf_buf_clear(&c->offs);
    cf_buf_clear(&c->enn);
    c->elems = 0;
    if (bytes != NULL)
        cf_buf_clear(bytes);
    else
        cf_arena_reset(arena); /* memory kept: batch after batch reuses it */
    if (c->pos != cur) {
        CF_TRY(cf_iter_seek_to_ordinal(c->it, cur, err));
        c->pos = cur;
    }
    uint8_t *nn = cf_buf_extend(nnb, cf_bitmap_bytes(n));
    CF_CHECK(nn != NULL, err, CF_ENOMEM, "scan: out of memory");
    bool bin = cf_type_is_binary(c->c->type);
    if (c->c->is_array)
        cf_buf_put_le32(&c->offs, 0);
    size_t got = 0;
    while (got < n) {
        cf_batch b;
        CF_TRY(cf_iter_next_batch(c->it, n - got, &b, err));
        CF_CHECK(b.count > 0 && b.count <= n - got, err, CF_ECORRUPT,
                 "column '%s': ends at row %" PRIu64 ", before the manifest's row count",
                 c->c->name, cur + got);
        bool more = got + b.count < n;
        if (b.nonnull)
            cf_bitmap_copy(nn, got, b.nonnull, 0, b.count);
        else
            cf_bitmap_fill(nn, got, b.count, true);
        if (!c->c->is_array) {
            uint8_t *dst = cf_buf_extend(vals, b.count * c->width);
            CF_CHECK(dst != NULL, err, CF_ENOMEM, "scan: out of memory");
            memcpy(dst, b.values, b.count * c->width);
            if (bin && bytes != NULL) {
                /* every row: the window outlives the iterator's next call
                 * (the next window is read while batches take rows from this one) */
                CF_TRY(copy_to_buf(bytes, (cf_slice *)dst, b.count, err));
                copied += b.count;
            } else if (bin && more) {
                CF_TRY(deep_copy(arena, (cf_slice *)dst, b.count, err));
            }
        } else {
            uint32_t base = b.elem_offsets[0];
            for (size_t i = 0; i < b.count; i++)
                cf_buf_put_le32(&c->offs, (uint32_t)c->elems + b.elem_offsets[i + 1] - base);
            size_t ne = b.elem_offsets[b.count] - base;
            uint8_t *dst = cf_buf_extend(vals, ne * c->width);
            CF_CHECK(dst != NULL || ne == 0, err, CF_ENOMEM, "scan: out of memory");
            if (ne) {
                memcpy(dst, (const uint8_t *)b.values + (size_t)base * c->width, ne * c->width);
                if (bin && more)
                    CF_TRY(deep_copy(arena, (cf_slice *)dst, ne, err));
            }
            size_t need = cf_bitmap_bytes(c->elems + ne);
            if (need > c->enn.len)
                cf_buf_extend(&c->enn, need - c->enn.len);
            CF_CHECK(!c->enn.oom, err, CF_ENOMEM, "scan: out of memory");
            if (ne) {
                if (b.elem_nonnull)
                    cf_bitmap_copy(c->enn.data, c->elems, b.elem_nonnull, base, ne);
                else
                    cf_bitmap_fill(c->enn.data, c->elems, ne, true);
            }
            c->elems += ne;
        }
        got += b.count;
    }
    CF_CHECK(!vals->oom && !c->offs.oom, err, CF_ENOMEM, "scan: out of memory");
    cf_slice *v = (cf_slice *)(void *)vals->data;
    for (size_t i = 0; i < copied; i++)
        v[i].data = bytes->data + (uintptr_t)v[i].data;
    c->pos = cur + n;
    return CF_OK;
}

static cf_status load_col(rs_col *c, uint64_t cur, size_t n, cf_error *err)
{
    CF_TRY(load_into(c, cur, n, &c->vals, &c->nn, &c->arena, NULL, err));
    c->bv = c->vals.data;
    c->bnn = c->nn.data;
    c->loaded = true;
    return CF_OK;
}

/* Apply updates of an array column: the appliers hand out serialized cells (the
 * column's change-list form), so rows they touch are rebuilt into new flattened
 * buffers, the others copied. `cells` starts as a marker that no update can
 * produce, so a touched row is one whose slot no longer holds it. */
static cf_status apply_arrays(cf_rowset_scanner *sc, rs_col *c, size_t n, cf_error *err)
{
    static const uint8_t untouched;
    cf_slice *cells = cf_malloc((n ? n : 1) * sizeof(*cells));
    CF_CHECK(cells != NULL, err, CF_ENOMEM, "scan: out of memory");
    for (size_t i = 0; i < n; i++)
        cells[i] = (cf_slice){&untouched, 0};
    cf_status st = CF_OK;
    for (size_t i = 0; i < sc->nap; i++)
        CF_TRY_OUT(cf_delta_apply_updates(sc->ap[i], c->idx, cells, c->nn.data, err));
    size_t touched = 0;
    for (size_t i = 0; i < n; i++)
        touched += cells[i].data != &untouched;
    if (touched == 0)
        goto out;
    cf_buf_clear(&c->ovals);
    cf_buf_clear(&c->ooffs);
    cf_buf_clear(&c->oenn);
    const uint32_t *offs = (const uint32_t *)(const void *)c->offs.data;
    size_t ne = 0;
    cf_buf_put_le32(&c->ooffs, 0);
    for (size_t i = 0; i < n; i++) {
        uint32_t k = 0;
        if (cells[i].data == &untouched) {
            size_t a = offs[i];
            k = offs[i + 1] - offs[i];
            cf_buf_append(&c->ovals, c->vals.data + a * c->width, k * c->width);
            size_t need = cf_bitmap_bytes(ne + k);
            if (need > c->oenn.len) {
                size_t old = c->oenn.len;
                uint8_t *q = cf_buf_extend(&c->oenn, need - old);
                if (q != NULL)
                    memset(q, 0, need - old);
            }
            if (!c->oenn.oom && k > 0)
                cf_bitmap_copy(c->oenn.data, ne, c->enn.data, a, k);
            ne += k;
        } else if (cf_bitmap_get(c->nn.data, i)) {
            CF_TRY_OUT(cf_rs_cell_to_flat(cells[i], c->c->type, &c->ovals, &c->oenn, &ne, &k, err));
        }
        cf_buf_put_le32(&c->ooffs, (uint32_t)ne);
    }
    if (c->ovals.oom || c->ooffs.oom || c->oenn.oom)
        CF_FAIL_OUT(err, CF_ENOMEM, "scan: out of memory");
    /* The rebuilt buffers become the column's; pack reuses the old ones. */
    cf_buf t = c->vals;
    c->vals = c->ovals;
    c->ovals = t;
    t = c->offs;
    c->offs = c->ooffs;
    c->ooffs = t;
    t = c->enn;
    c->enn = c->oenn;
    c->oenn = t;
    c->elems = ne;
    c->bv = c->vals.data;
out:
    cf_free(cells);
    return st;
}

/* The looked-up key's value as the column's one row (cf_rowset_scanner_set_row):
 * the probe found the row by this very value, and no delta sets it. */
static cf_status load_key_value(rs_col *c, const void *v, cf_error *err)
{
    cf_buf_clear(&c->vals);
    cf_buf_clear(&c->nn);
    cf_arena_reset(&c->arena);
    uint8_t *nn = cf_buf_extend(&c->nn, 1);
    uint8_t *dst = cf_buf_extend(&c->vals, c->width);
    CF_CHECK(nn != NULL && dst != NULL, err, CF_ENOMEM, "scan: out of memory");
    nn[0] = 1;
    memcpy(dst, v, c->width);
    if (cf_type_is_binary(c->c->type)) /* the caller's bytes: copied, they may go */
        CF_TRY(deep_copy(&c->arena, (cf_slice *)(void *)dst, 1, err));
    c->pos = UINT64_MAX; /* the iterator did not move */
    c->bv = c->vals.data;
    c->bnn = c->nn.data;
    c->loaded = true;
    return CF_OK;
}

static cf_status load_and_apply(cf_rowset_scanner *sc, rs_col *c, size_t n, cf_error *err)
{
    if (c->busy)
        settle(sc);
    if (sc->keyvals != NULL && c->key_fixed && n == 1)
        return load_key_value(c, sc->keyvals[c->idx], err);
    CF_TRY(load_col(c, sc->cur, n, err));
    if (c->c->is_array)
        return sc->nap ? apply_arrays(sc, c, n, err) : CF_OK;
    for (size_t i = 0; i < sc->nap; i++)
        CF_TRY(cf_delta_apply_updates(sc->ap[i], c->idx, c->bv, c->bnn, err));
    return CF_OK;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- reading ahead with threads ------------------------------------------------------- *
 *
 * A column's blocks hold tens of thousands of rows and are decoded whole when
 * the iterator enters them, and columns of different widths change blocks at
 * different rows: shared out batch by batch, one thread would decode a block
 * while the others copied rows out of blocks already decoded. So with threads
 * the columns are read ahead in windows of many batches (WINDOW_ROWS, cut where
 * block skipping may stop the scan), each batch then taking its rows from the
 * windows and applying its deltas to them as before.
 *
 * Each column has two windows. When a batch needs a column whose window does
 * not hold its rows, that column and every column the last batch needed move
 * on together: to the window read ahead for them if it holds the rows, else
 * to one read now (spread over the team, the caller taking jobs too); and at
 * once the next window of each of them is posted to the team, which reads it
 * while the caller works through this one (and while the caller's caller
 * works through the batches). Workers thus decode window k+1 while batches
 * are taken from window k, and the caller joins in only for what is left
 * when it reaches the end of window k. A window only ever covers rows the
 * single-threaded scan examines; it may read a column for rows that the
 * predicates then reject (which a single thread would not read), so an error
 * there is kept back, and the rows are read again batch by batch if a batch
 * needs them (giving the single thread's result and message). */
/* ... but the windows of a wide scan hold at most about this many bytes of
 * values (slices for strings, whose bytes come on top), two windows per
 * column, never less than a batch. */
#define WINDOW_BYTES ((size_t)16 << 20)

#ifdef CF_SCAN_TRACE
/* Debug builds (-DCF_SCAN_TRACE): a timeline of the threaded reads, appended
 * at scanner free to the file $CF_SCAN_TRACE, one event per line:
 * "thread kind column first_row rows start_ns end_ns" with kind J (a window
 * read, on any thread), W (the caller waiting for, or helping with, windows
 * read ahead), S (the caller reading windows now) or N (one
 * cf_rowset_scanner_next). Not for production: one global buffer. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#define TRACE_MAX ((size_t)1 << 20)
typedef struct trace_ev {
    unsigned tid;
    char kind;
    size_t col;
    uint64_t lo, rows, t0, t1;
} trace_ev;
static trace_ev trace_evs[TRACE_MAX];
static atomic_size_t trace_n;
static atomic_uint trace_tids;
static _Thread_local unsigned trace_tid;

static void trace(char kind, size_t col, uint64_t lo, uint64_t rows, uint64_t t0, uint64_t t1)
{
    if (trace_tid == 0)
        trace_tid = atomic_fetch_add(&trace_tids, 1) + 1;
    size_t i = atomic_fetch_add(&trace_n, 1);
    if (i < TRACE_MAX)
        trace_evs[i] = (trace_ev){trace_tid, kind, col, lo, rows, t0, t1};
}

static void trace_dump(void)
{
    const char *path = getenv("CF_SCAN_TRACE");
    FILE *f = path != NULL ? fopen(path, "a") : NULL;
    size_t n = atomic_exchange(&trace_n, 0);
    if (f != NULL)
        fprintf(f, "# scanner\n");
    for (size_t i = 0; f != NULL && i < n && i < TRACE_MAX; i++)
        fprintf(f, "%u %c %zu %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", trace_evs[i].tid,
                trace_evs[i].kind, trace_evs[i].col, trace_evs[i].lo, trace_evs[i].rows,
                trace_evs[i].t0, trace_evs[i].t1);
    if (f != NULL)
        fclose(f);
}
#define TRACE(...) trace(__VA_ARGS__)
#else
#define TRACE(...) ((void)0)
#endif

/* Job i: the next window [nlo, nlo + nrows) of the column sc->jobs[i]. */
static cf_status window_job(void *ctx, size_t i, cf_error *err)
{
    cf_rowset_scanner *sc = ctx;
    rs_col *c = &sc->cols[sc->jobs[i]];
    rs_win *w = &c->win[c->cw ^ 1];
    uint64_t t0 = now_ns();
    c->jst = load_into(c, c->nlo, c->nrows, &w->vals, &w->nn, NULL, &w->bytes, &c->jerr);
    c->cost_ns = now_ns() - t0;
    TRACE('J', c->idx, c->nlo, c->nrows, t0, t0 + c->cost_ns);
    (void)err;
    return c->jst;
}

/* Whether the rows [cur, cur+n) of c are in window w. */
static bool in_win(const rs_win *w, uint64_t cur, size_t n)
{
    return w->lo <= cur && cur + n <= w->hi;
}

static bool in_window(const rs_col *c, uint64_t cur, size_t n)
{
    return in_win(&c->win[c->cw], cur, n);
}

/* Post jobs (sc->jobs, the longest first by the last window's times) and
 * mark them busy; the run goes on in the background. */
static void post(cf_rowset_scanner *sc)
{
    for (size_t k = 1; k < sc->njobs; k++) {
        size_t x = sc->jobs[k], m = k;
        for (; m > 0 && sc->cols[sc->jobs[m - 1]].cost_ns < sc->cols[x].cost_ns; m--)
            sc->jobs[m] = sc->jobs[m - 1];
        sc->jobs[m] = x;
    }
    for (size_t k = 0; k < sc->njobs; k++) {
        rs_col *x = &sc->cols[sc->jobs[k]];
        x->busy = true;
        x->next_ok = false;
    }
    sc->ticket = cf_team_start(sc->team, window_job, sc, sc->njobs, sc->jst, sc->jerr);
    sc->inflight = sc->njobs > 0;
}

/* Wait for the posted run (helping with its jobs nobody took) and take in
 * its windows: read (next_ok), or failed (their rows read batch by batch). */
static void settle(cf_rowset_scanner *sc)
{
    if (!sc->inflight)
        return;
#ifdef CF_SCAN_TRACE
    uint64_t t0 = now_ns();
#endif
    cf_team_finish(sc->team, sc->ticket);
    TRACE('W', 0, 0, 0, t0, now_ns());
    sc->inflight = false;
    for (size_t k = 0; k < sc->njobs; k++) {
        rs_col *x = &sc->cols[sc->jobs[k]];
        x->busy = false;
        if (x->jst == CF_OK) {
            x->win[x->cw ^ 1].lo = x->nlo;
            x->win[x->cw ^ 1].hi = x->nlo + x->nrows;
            x->next_ok = true;
        } else {
            if (x->wbad_hi < x->nlo + x->nrows)
                x->wbad_hi = x->nlo + x->nrows;
            x->pos = UINT64_MAX; /* where the failure left the iterator is unknown */
            x->jst = CF_OK;
        }
    }
    sc->njobs = 0;
}

/* Move c and every column the last batch needed that has no window at cur
 * to one that has (read ahead, or read now), then post the reads of their
 * next windows; `end` = where the scan may stop (block skipping). */
static void advance(cf_rowset_scanner *sc, rs_col *c, size_t n, uint64_t end)
{
    settle(sc);
    uint64_t cur = sc->cur;
    size_t row_bytes = 0;
    for (size_t i = 0; i < sc->ncols; i++)
        row_bytes += sc->cols[i].width;
    size_t want = sc->window_rows;
    if (row_bytes > 0 && WINDOW_BYTES / 2 / row_bytes < want)
        want = WINDOW_BYTES / 2 / row_bytes;
    size_t rows = sc->batch_rows < want ? want / sc->batch_rows * sc->batch_rows : sc->batch_rows;
    /* the columns that move on: read ahead, or read now (jobs) */
    bool *moves = sc->moves;
    for (size_t i = 0; i < sc->ncols; i++) {
        rs_col *x = &sc->cols[i];
        /* needed by the last batch or this one; at the start, every column */
        bool hot = x->used + 1 >= sc->batchno || (x->used == 0 && sc->batchno == 1);
        moves[i] = x == c || (hot && !x->c->is_array && !x->loaded && !in_window(x, cur, n) &&
                              cur >= x->wbad_hi);
        if (!moves[i])
            continue;
        if (x->next_ok && in_win(&x->win[x->cw ^ 1], cur, n)) {
            x->cw ^= 1;
            x->next_ok = false;
        } else {
            x->nlo = cur;
            x->nrows = rows < end - cur ? rows : (size_t)(end - cur);
            sc->jobs[sc->njobs++] = i;
        }
    }
    if (sc->njobs > 0) {
#ifdef CF_SCAN_TRACE
        uint64_t t0 = now_ns();
#endif
        post(sc);
        settle(sc);
        TRACE('S', 0, cur, rows, t0, now_ns());
        for (size_t i = 0; i < sc->ncols; i++) {
            rs_col *x = &sc->cols[i];
            if (moves[i] && x->next_ok && in_win(&x->win[x->cw ^ 1], cur, n)) {
                x->cw ^= 1;
                x->next_ok = false;
            }
        }
    }
    /* Read ahead: the next window of every column that moved, up to where
     * block skipping may stop the scan (a window ends on a batch boundary
     * there, or at a multiple of the batch rows). */
    for (size_t i = 0; i < sc->ncols; i++) {
        rs_col *x = &sc->cols[i];
        uint64_t hi = x->win[x->cw].hi;
        if (!moves[i] || !in_window(x, cur, n) || hi >= end)
            continue;
        x->nlo = hi;
        x->nrows = rows < end - hi ? rows : (size_t)(end - hi);
        sc->jobs[sc->njobs++] = i;
    }
    if (sc->njobs > 0)
        post(sc);
}

/* Make the batch's rows of column c (n rows at sc->cur) readable at c->bv /
 * c->bnn with the deltas applied, once per batch. */
static cf_status need_col(cf_rowset_scanner *sc, rs_col *c, size_t n, uint64_t end, cf_error *err)
{
    if (c->loaded)
        return CF_OK;
    c->used = sc->batchno;
    uint64_t cur = sc->cur;
    if (sc->team == NULL || c->c->is_array || (sc->keyvals != NULL && c->key_fixed))
        return load_and_apply(sc, c, n, err);
    if (!in_window(c, cur, n)) {
        settle(sc); /* c's next window may be on its way */
        if (cur < c->wbad_hi)
            return load_and_apply(sc, c, n, err);
        advance(sc, c, n, end);
        if (!in_window(c, cur, n))
            return load_and_apply(sc, c, n, err); /* the window failed: as a single thread */
    }
    const rs_win *w = &c->win[c->cw];
    uint64_t off = cur - w->lo;
    c->bv = w->vals.data + off * c->width;
    if (off % 8 == 0) {
        c->bnn = w->nn.data + off / 8;
    } else { /* the deltas and the output want the batch's bits from bit 0 */
        cf_buf_clear(&c->nn);
        uint8_t *nn = cf_buf_extend(&c->nn, cf_bitmap_bytes(n));
        CF_CHECK(nn != NULL, err, CF_ENOMEM, "scan: out of memory");
        cf_bitmap_copy(nn, 0, w->nn.data, (size_t)off, n);
        c->bnn = nn;
    }
    c->loaded = true;
    for (size_t i = 0; i < sc->nap; i++)
        CF_TRY(cf_delta_apply_updates(sc->ap[i], c->idx, c->bv, c->bnn, err));
    return CF_OK;
}

/* ---- predicates -------------------------------------------------------------------------------
 */

#define EVAL_NUM(T)                                                                                \
    do {                                                                                           \
        const T *v = (const T *)(const void *)c->bv;                                               \
        T x;                                                                                       \
        memcpy(&x, p->slot, sizeof(T));                                                            \
        for (size_t i = 0; i < n; i++)                                                             \
            if (cf_bitmap_get(sel, i) && !(cf_bitmap_get(nn, i) && TEST_OP(op, v[i], x)))          \
                cf_bitmap_clear(sel, i);                                                           \
    } while (0)

static void eval_pred(const rs_pred *p, const rs_col *c, uint8_t *sel, size_t n)
{
    const uint8_t *nn = c->bnn;
    cf_pred_op op = p->op;
    if (op == CF_PRED_IS_NULL || op == CF_PRED_IS_NOT_NULL) {
        bool want = op == CF_PRED_IS_NOT_NULL;
        for (size_t i = 0; i < n; i++)
            if (cf_bitmap_get(nn, i) != want)
                cf_bitmap_clear(sel, i);
        return;
    }
    switch (cf_type_physical(c->c->type)) {
    case CF_TYPE_UINT8:
    case CF_TYPE_BOOL: EVAL_NUM(uint8_t); break;
    case CF_TYPE_INT8: EVAL_NUM(int8_t); break;
    case CF_TYPE_UINT16: EVAL_NUM(uint16_t); break;
    case CF_TYPE_INT16: EVAL_NUM(int16_t); break;
    case CF_TYPE_UINT32: EVAL_NUM(uint32_t); break;
    case CF_TYPE_INT32: EVAL_NUM(int32_t); break;
    case CF_TYPE_UINT64: EVAL_NUM(uint64_t); break;
    case CF_TYPE_INT64: EVAL_NUM(int64_t); break;
    case CF_TYPE_INT128: EVAL_NUM(cf_i128); break;
    case CF_TYPE_FLOAT: EVAL_NUM(float); break;
    case CF_TYPE_DOUBLE: EVAL_NUM(double); break;
    default: {
        const cf_slice *v = (const cf_slice *)(const void *)c->bv;
        cf_slice x;
        memcpy(&x, p->slot, sizeof(x));
        for (size_t i = 0; i < n; i++) {
            if (!cf_bitmap_get(sel, i))
                continue;
            int r = cf_rs_bytes_cmp(v[i].data, v[i].len, x.data, x.len);
            if (!(cf_bitmap_get(nn, i) && TEST_OP(op, r, 0)))
                cf_bitmap_clear(sel, i);
        }
    }
    }
}

/* ---- output --------------------------------------------------------------------------------- */

static cf_status pack(rs_col *c, const uint8_t *sel, size_t n, size_t count, cf_batch *b,
                      cf_error *err)
{
    memset(b, 0, sizeof(*b));
    b->count = count;
    if (count == n) { /* every row survived: hand out the column buffers */
        b->values = c->bv;
        b->nonnull = c->c->nullable ? c->bnn : NULL;
        if (c->c->is_array) {
            b->elem_offsets = (const uint32_t *)(const void *)c->offs.data;
            b->elem_count = c->elems;
            b->elem_nonnull = c->enn.data;
        }
        return CF_OK;
    }
    cf_buf_clear(&c->ovals);
    cf_buf_clear(&c->onn);
    cf_buf_clear(&c->ooffs);
    cf_buf_clear(&c->oenn);
    uint8_t *onn = cf_buf_extend(&c->onn, cf_bitmap_bytes(count) + 1);
    CF_CHECK(onn != NULL, err, CF_ENOMEM, "scan: out of memory");
    memset(onn, 0, cf_bitmap_bytes(count) + 1);
    size_t j = 0;
    if (!c->c->is_array) {
        uint8_t *dst = cf_buf_extend(&c->ovals, count * c->width + 1);
        CF_CHECK(dst != NULL, err, CF_ENOMEM, "scan: out of memory");
        for (size_t i = 0; i < n; i++) {
            if (!cf_bitmap_get(sel, i))
                continue;
            memcpy(dst + j * c->width, c->bv + i * c->width, c->width);
            cf_bitmap_put(onn, j, cf_bitmap_get(c->bnn, i));
            j++;
        }
    } else {
        const uint32_t *offs = (const uint32_t *)(const void *)c->offs.data;
        cf_buf_put_le32(&c->ooffs, 0);
        size_t ne = 0;
        for (size_t i = 0; i < n; i++) {
            if (!cf_bitmap_get(sel, i))
                continue;
            size_t a = offs[i], k = offs[i + 1] - offs[i];
            cf_buf_append(&c->ovals, c->vals.data + a * c->width, k * c->width);
            size_t need = cf_bitmap_bytes(ne + k) + 1;
            if (need > c->oenn.len) {
                size_t old = c->oenn.len;
                uint8_t *q = cf_buf_extend(&c->oenn, need - old);
                if (q != NULL)
                    memset(q, 0, need - old);
            }
            if (!c->oenn.oom && k > 0)
                cf_bitmap_copy(c->oenn.data, ne, c->enn.data, a, k);
            ne += k;
            cf_buf_put_le32(&c->ooffs, (uint32_t)ne);
            cf_bitmap_put(onn, j, cf_bitmap_get(c->nn.data, i));
            j++;
        }
        CF_CHECK(!c->ovals.oom && !c->ooffs.oom && !c->oenn.oom, err, CF_ENOMEM,
                 "scan: out of memory");
        b->elem_offsets = (const uint32_t *)(const void *)c->ooffs.data;
        b->elem_count = ne;
        b->elem_nonnull = c->oenn.data;
    }
    b->values = c->ovals.data;
    b->nonnull = c->c->nullable ? onn : NULL;
    return CF_OK;
}

cf_status cf_rowset_scanner_next(cf_rowset_scanner *sc, cf_row_batch *out, cf_error *err)
{
    memset(out, 0, sizeof(*out));
    out->ncols = sc->nproj;
    out->cols = sc->out;
#ifdef CF_SCAN_TRACE
    uint64_t t0 = now_ns();
#endif
    while (sc->visible && sc->cur < sc->hi) {
        uint64_t skip_to, end;
        CF_TRY(check_blocks(sc, &skip_to, &end, err));
        if (skip_to > sc->cur) {
            uint64_t to = skip_to < sc->hi ? skip_to : sc->hi;
            sc->st.blocks_skipped++;
            sc->st.rows_skipped += to - sc->cur;
            sc->cur = to;
            continue;
        }
        size_t n = end - sc->cur < sc->batch_rows ? (size_t)(end - sc->cur) : sc->batch_rows;
        cf_buf_clear(&sc->sel);
        uint8_t *sel = cf_buf_extend(&sc->sel, cf_bitmap_bytes(n));
        CF_CHECK(sel != NULL, err, CF_ENOMEM, "scan: out of memory");
        cf_bitmap_fill(sel, 0, n, true);
        for (size_t i = 0; i < sc->nap; i++) {
            if (sc->ap_pos[i] != sc->cur)
                CF_TRY(cf_delta_apply_seek(sc->ap[i], (uint32_t)sc->cur, err));
            CF_TRY(cf_delta_apply_prepare(sc->ap[i], n, err));
            sc->ap_pos[i] = sc->cur + n;
            CF_TRY(cf_delta_apply_deletes(sc->ap[i], sel, err));
        }
        sc->st.rows_examined += n;
        sc->batchno++;
        for (size_t i = 0; i < sc->ncols; i++)
            sc->cols[i].loaded = false;
        size_t count = cf_bitmap_count(sel, 0, n);
        for (size_t i = 0; i < sc->npreds && count > 0; i++) {
            rs_col *c = &sc->cols[sc->preds[i].c];
            CF_TRY(need_col(sc, c, n, end, err));
            eval_pred(&sc->preds[i], c, sel, n);
            count = cf_bitmap_count(sel, 0, n);
        }
        if (count == 0) {
            sc->st.batches_skipped++;
            sc->cur += n;
            continue;
        }
        for (size_t j = 0; j < sc->nproj; j++)
            CF_TRY(need_col(sc, &sc->cols[sc->proj[j]], n, end, err));
        for (size_t j = 0; j < sc->nproj; j++)
            CF_TRY(pack(&sc->cols[sc->proj[j]], sel, n, count, &sc->out[j], err));
        cf_buf_clear(&sc->ords);
        uint64_t *ords = (uint64_t *)(void *)cf_buf_extend(&sc->ords, count * sizeof(uint64_t));
        CF_CHECK(ords != NULL, err, CF_ENOMEM, "scan: out of memory");
        size_t j = 0;
        for (size_t i = 0; i < n; i++)
            if (cf_bitmap_get(sel, i))
                ords[j++] = sc->cur + i;
        out->count = count;
        out->ords = ords;
        sc->cur += n;
        TRACE('N', 0, sc->cur - n, n, t0, now_ns());
        return CF_OK;
    }
    settle(sc); /* the end: no worker reads for this scanner any more */
    return CF_OK;
}

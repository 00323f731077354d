/* The rowset scanner's predicates: copied at create (binary values into the
 * scanner's arena), block skipping (a cf_block_filter per comparison on a
 * column no visible delta changes, from the delta statistics) and their
 * evaluation on a batch's rows. Owns rs_pred's state; reads a column's batch
 * rows (bv/bnn) but must not load them (scan_load.c, scan_ahead.c), except
 * that a block check waits for the column's window read first (scan.h). */
#include <inttypes.h>
#include <string.h>

#include "scan.h"

#include "util/alloc.h"
#include "util/bitmap.h"
#include "util/error.h"
#include "util/int128.h"

/* ---- create -----------------------------------------------------------------------------------
 */

cf_status cf_rs_scan_copy_pred(cf_rowset_scanner *sc, const cf_pred *p, rs_pred *out, cf_error *err)
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
void cf_rs_scan_mark_changed(const cf_schema *s, const cf_delta_reader *r, bool *changed)
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
void cf_rs_scan_mark_keys_changed(const cf_schema *s, const cf_delta_reader *r, bool *changed)
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
cf_status cf_rs_scan_make_filters(cf_rowset_scanner *sc, const bool *changed, cf_error *err)
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
cf_status cf_rs_scan_check_blocks(cf_rowset_scanner *sc, uint64_t *skip_to, uint64_t *end,
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
                cf_rs_scan_settle(sc);
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

void cf_rs_scan_eval_pred(const rs_pred *p, const rs_col *c, uint8_t *sel, size_t n)
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

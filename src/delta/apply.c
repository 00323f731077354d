/* Applying the deltas of a DeltaFile visible at an MVCC snapshot to a batch of
 * base column values, as Kudu's DeltaFileIterator + DeltaPreparer do with
 * PREPARE_FOR_APPLY (format §12.5):
 *   - a snapshot at TS has committed every op with ts < TS;
 *   - REDO: a delta is applied when ts < TS; UNDO: undone when ts >= TS;
 *   - within a row the first delta that does not qualify ends the row (files
 *     are ordered so that every later delta of that row would not qualify);
 *   - per column the last qualifying change of a row wins (REDO: the newest,
 *     UNDO: the oldest undo, i.e. the value just before TS);
 *   - DELETE / REINSERT toggle a per-row state; a pair within one batch cancels.
 * Kudu resets its "row finished" flag at each data block boundary; for files
 * in Kudu's order this changes nothing, so we keep one flag for the scan.
 */
#include <string.h>

#include "delta_internal.h"

#include "util/alloc.h"
#include "util/error.h"

#define LOOKAHEAD 256

typedef struct upd {
    uint32_t row;
    bool is_null;
    size_t off, len; /* value bytes in a->vals */
} upd;

typedef struct upd_list {
    upd *v;
    size_t n, cap;
} upd_list;

enum { DEL_UNKNOWN, DEL_DELETED, DEL_REINSERTED };

struct cf_delta_apply {
    const cf_delta_reader *r;
    const cf_delta_column *cols;
    size_t ncols;
    uint64_t snapshot;
    bool culled;
    bool redo;
    cf_delta_iter *it;
    cf_delta batch[LOOKAHEAD];
    size_t bn, bi;
    uint32_t cur, prev; /* next prepare starts at cur; the prepared batch at prev */
    size_t nrows;       /* rows of the prepared batch */
    bool prepared;
    upd_list *ups; /* per column */
    cf_buf vals;
    uint32_t *deleted, *reinserted;
    size_t ndel, nrein, cap_del, cap_rein;
    int del_state;
    bool has_last;
    uint32_t last_added;
    bool finished_row;
};

cf_status cf_delta_apply_create(cf_delta_apply **out, const cf_delta_reader *r,
                                const cf_delta_column *cols, size_t ncols, uint64_t snapshot,
                                bool *culled, cf_error *err)
{
    const cf_delta_stats *st;
    *out = NULL;
    CF_TRY(cf_delta_reader_stats(r, &st, err));
    cf_delta_apply *a = cf_calloc(1, sizeof(*a));
    CF_CHECK(a != NULL, err, CF_ENOMEM, "delta apply: out of memory");
    a->r = r;
    a->cols = cols;
    a->ncols = ncols;
    a->snapshot = snapshot;
    a->redo = cf_delta_reader_type(r) == CF_DELTA_REDO;
    /* Kudu's IsDeltaRelevantForApply over the file's ts range. */
    a->culled = a->redo ? !(st->min_ts < snapshot) : st->max_ts < snapshot;
    cf_buf_init(&a->vals);
    cf_status s = CF_OK;
    a->ups = cf_calloc(ncols ? ncols : 1, sizeof(*a->ups));
    if (a->ups == NULL)
        s = cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__, "delta apply: out of memory");
    if (s == CF_OK && !a->culled)
        s = cf_delta_iter_create(&a->it, r, err);
    if (s != CF_OK) {
        cf_delta_apply_free(a);
        return s;
    }
    if (culled != NULL)
        *culled = a->culled;
    *out = a;
    return CF_OK;
}

void cf_delta_apply_free(cf_delta_apply *a)
{
    if (a == NULL)
        return;
    cf_delta_iter_free(a->it);
    if (a->ups != NULL)
        for (size_t i = 0; i < a->ncols; i++)
            cf_free(a->ups[i].v);
    cf_free(a->ups);
    cf_buf_dispose(&a->vals);
    cf_free(a->deleted);
    cf_free(a->reinserted);
    cf_free(a);
}

cf_status cf_delta_apply_seek(cf_delta_apply *a, uint32_t row, cf_error *err)
{
    a->cur = a->prev = row;
    a->prepared = false;
    a->bn = a->bi = 0;
    if (a->culled)
        return CF_OK;
    return cf_delta_iter_seek_to_row(a->it, row, err);
}

static cf_status push_row(uint32_t **v, size_t *n, size_t *cap, uint32_t row, cf_error *err)
{
    if (*n == *cap)
        CF_CHECK(cf_array_grow(v, cap, sizeof **v, 64), err, CF_ENOMEM,
                 "delta apply: out of memory");
    (*v)[(*n)++] = row;
    return CF_OK;
}

/* Record the finished row's deletion state (Kudu's MaybeProcessPreviousRowChange). */
static cf_status close_row(cf_delta_apply *a, cf_error *err)
{
    if (a->has_last) {
        if (a->del_state == DEL_DELETED)
            CF_TRY(push_row(&a->deleted, &a->ndel, &a->cap_del, a->last_added, err));
        else if (a->del_state == DEL_REINSERTED)
            CF_TRY(push_row(&a->reinserted, &a->nrein, &a->cap_rein, a->last_added, err));
    }
    a->del_state = DEL_UNKNOWN;
    return CF_OK;
}

static void toggle(cf_delta_apply *a, cf_rcl_type t)
{
    /* Kudu's UpdateDeletionState (release behaviour): a DELETE after a REINSERT
     * of the same batch, or the reverse, returns to UNKNOWN. */
    if (t == CF_RCL_DELETE)
        a->del_state = a->del_state == DEL_UNKNOWN ? DEL_DELETED : DEL_UNKNOWN;
    else if (t == CF_RCL_REINSERT)
        a->del_state = a->del_state == DEL_UNKNOWN ? DEL_REINSERTED : DEL_UNKNOWN;
}

static cf_status add_delta(cf_delta_apply *a, const cf_delta *d, cf_error *err)
{
    if (a->has_last && d->row != a->last_added)
        CF_TRY(close_row(a, err));
    bool relevant = a->redo ? d->ts < a->snapshot : d->ts >= a->snapshot;
    a->finished_row = !relevant;
    if (relevant) {
        cf_rcl_decoder dec;
        CF_TRY(cf_rcl_decoder_init(&dec, d->rcl, err));
        toggle(a, dec.type);
        while (dec.type != CF_RCL_DELETE && cf_rcl_decoder_has_next(&dec)) {
            cf_rcl_change c;
            int ci;
            CF_TRY(cf_rcl_decoder_next(&dec, &c, err));
            CF_TRY(cf_rcl_change_validate(&c, a->cols, a->ncols, &ci, err));
            if (ci < 0)
                continue; /* not a column we apply */
            upd_list *l = &a->ups[ci];
            if (l->n == 0 || l->v[l->n - 1].row != d->row) {
                if (l->n == l->cap)
                    CF_CHECK(cf_array_grow(&l->v, &l->cap, sizeof *l->v, 16), err, CF_ENOMEM,
                             "delta apply: out of memory");
                l->n++;
            }
            upd *u = &l->v[l->n - 1];
            u->row = d->row;
            u->is_null = c.is_null;
            u->off = a->vals.len;
            u->len = c.value.len;
            cf_buf_append(&a->vals, c.value.data, c.value.len);
            CF_CHECK(!a->vals.oom, err, CF_ENOMEM, "delta apply: out of memory");
        }
    }
    a->has_last = true;
    a->last_added = d->row;
    return CF_OK;
}

cf_status cf_delta_apply_prepare(cf_delta_apply *a, size_t nrows, cf_error *err)
{
    CF_CHECK(nrows > 0, err, CF_EINVAL, "delta apply: prepare of 0 rows");
    CF_CHECK(nrows - 1 <= UINT32_MAX - a->cur, err, CF_EINVAL,
             "delta apply: rows %" PRIu32 "+%zu pass the 32-bit row range", a->cur, nrows);
    uint32_t start = a->cur, stop = (uint32_t)(a->cur + (nrows - 1));
    for (size_t i = 0; i < a->ncols; i++)
        a->ups[i].n = 0;
    cf_buf_clear(&a->vals);
    a->ndel = a->nrein = 0;
    a->del_state = DEL_UNKNOWN;
    if (!a->culled) {
        for (;;) {
            if (a->bi == a->bn) {
                CF_TRY(cf_delta_iter_next_batch(a->it, a->batch, LOOKAHEAD, &a->bn, err));
                a->bi = 0;
                if (a->bn == 0)
                    break;
            }
            const cf_delta *d = &a->batch[a->bi];
            if (a->has_last && a->last_added == d->row && a->finished_row) {
                a->bi++;
                continue;
            }
            a->finished_row = false;
            if (d->row > stop)
                break; /* kept for the next batch */
            a->bi++;
            if (d->row < start)
                continue;
            cf_status st = add_delta(a, d, err);
            if (st != CF_OK)
                return cf_error_prefix(err, st, "delta (row %" PRIu32 "@ts%" PRIu64 "): ", d->row,
                                       d->ts);
        }
        CF_TRY(close_row(a, err));
    }
    a->prev = start;
    a->cur = stop + 1 == 0 ? stop : stop + 1;
    a->nrows = nrows;
    a->prepared = true;
    return CF_OK;
}

cf_status cf_delta_apply_updates(cf_delta_apply *a, size_t col, void *values, uint8_t *nonnull,
                                 cf_error *err)
{
    CF_CHECK(a->prepared, err, CF_ESTATE, "delta apply: updates before prepare");
    CF_CHECK(col < a->ncols, err, CF_EINVAL, "delta apply: column %zu of %zu", col, a->ncols);
    const cf_delta_column *c = &a->cols[col];
    /* Without the bitmap an update to NULL could only zero the value and leave
     * the row reading as present: refused up front, whatever the deltas hold, so
     * a caller's mistake shows on the first call and not only on some data. */
    CF_CHECK(!c->nullable || nonnull != NULL, err, CF_EINVAL,
             "delta apply: column %zu (%s) is nullable: updates need its nonnull bitmap", col,
             c->name != NULL ? c->name : "?");
    size_t w = cf_type_size(c->type);
    bool bin = cf_type_is_binary(c->type);
    const upd_list *l = &a->ups[col];
    for (size_t i = 0; i < l->n; i++) {
        const upd *u = &l->v[i];
        size_t idx = u->row - a->prev;
        uint8_t *slot = (uint8_t *)values + idx * w;
        if (u->is_null) {
            memset(slot, 0, w);
            if (nonnull != NULL)
                nonnull[idx / 8] &= (uint8_t) ~(1u << (idx % 8));
            continue;
        }
        if (nonnull != NULL)
            nonnull[idx / 8] |= (uint8_t)(1u << (idx % 8));
        /* vals is still unallocated (NULL) when every update so far set an
         * empty value: '' must not become NULL + 0 (undefined behaviour). */
        static const uint8_t none[1];
        const uint8_t *src = a->vals.data != NULL ? a->vals.data + u->off : none;
        if (bin) {
            /* The slice points into vals, which no longer grows until the
             * next prepare. */
            cf_slice s = {src, u->len};
            memcpy(slot, &s, sizeof(s));
        } else if (u->len > 0) {
            memcpy(slot, src, u->len < w ? u->len : w);
        }
    }
    return CF_OK;
}

cf_status cf_delta_apply_deletes(cf_delta_apply *a, uint8_t *selected, cf_error *err)
{
    CF_CHECK(a->prepared, err, CF_ESTATE, "delta apply: deletes before prepare");
    for (size_t i = 0; i < a->ndel; i++) {
        size_t idx = a->deleted[i] - a->prev;
        selected[idx / 8] &= (uint8_t) ~(1u << (idx % 8));
    }
    for (size_t i = 0; i < a->nrein; i++) {
        size_t idx = a->reinserted[i] - a->prev;
        selected[idx / 8] |= (uint8_t)(1u << (idx % 8));
    }
    return CF_OK;
}

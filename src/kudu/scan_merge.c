/* The merge of a tablet scan: the rowsets' current rows in a heap by encoded key
 * (as Kudu's MergeIterator) and the replayed WAL ops in key order, one output row
 * per live key, then predicates and projection into the caller's batch
 * (cf_kudu_scanner_next). A rowset whose remaining keys are all below every other
 * source's streams its rows without keys (can_stream). */
#include <string.h>

#include "scan_internal.h"
#include "tablet.h"

#include "rowset/internal.h"
#include "util/arena.h"
#include "util/bitmap.h"
#include "util/buf.h"
#include "util/error.h"

static bool rowset_less(const scan_rowset *a, const scan_rowset *b)
{
    return key_cmp(a->key.data, a->key.len, b->key.data, b->key.len) < 0;
}

void cf_kudu_scan_merge_add(cf_kudu_scanner *sc, scan_rowset *d)
{
    size_t i = sc->nheap++;
    while (i > 0 && rowset_less(d, sc->heap[(i - 1) / 2])) {
        sc->heap[i] = sc->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    sc->heap[i] = d;
}

/* The top moved on to a larger key, or ended: restore the order. */
static void heap_fix_top(cf_kudu_scanner *sc)
{
    scan_rowset *d = sc->heap[0];
    if (d->eof) {
        cf_kudu_scan_rowset_close(sc, d); /* its rows are out (copied, or no longer lent) */
        d = sc->heap[--sc->nheap];
    }
    size_t n = sc->nheap, i = 0;
    if (n == 0)
        return;
    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= n)
            break;
        if (k + 1 < n && rowset_less(sc->heap[k + 1], sc->heap[k]))
            k++;
        if (!rowset_less(sc->heap[k], d))
            break;
        sc->heap[i] = sc->heap[k];
        i = k;
    }
    sc->heap[i] = d;
}

static void copy_width(uint8_t *dst, const uint8_t *v, size_t w)
{
    /* Fixed sizes, so the compiler inlines each copy (no memcpy call per cell). */
    switch (w) {
    case 1: *dst = *v; break;
    case 2: memcpy(dst, v, 2); break;
    case 4: memcpy(dst, v, 4); break;
    case 8: memcpy(dst, v, 8); break;
    case 16: memcpy(dst, v, 16); break;
    default: memcpy(dst, v, w);
    }
}

/* Copy the current row of d into the merged row. */
static void rowset_to_cells(cf_kudu_scanner *sc, const scan_rowset *d)
{
    for (size_t c = 0; c < sc->s->ncols; c++) {
        cf_mrs_cell *cell = &sc->cells[c];
        memset(cell->slot, 0, sizeof(cell->slot));
        cell->nonnull = false;
        if (!sc->need[c])
            continue;
        size_t w = sc->width[c];
        cell->nonnull = cf_bitmap_get(d->nn[c], d->i);
        copy_width(cell->slot, d->vals[c] + d->i * w, w);
    }
}

static bool preds_pass(const cf_kudu_scanner *sc)
{
    for (size_t i = 0; i < sc->npreds; i++)
        if (!cf_rs_pred_pass(&sc->s->cols[sc->preds[i].col], &sc->preds[i],
                             &sc->cells[sc->preds[i].col]))
            return false;
    return true;
}

/* Predicates on row i of a rowset's batch, read in place. */
static bool preds_pass_rowset(cf_kudu_scanner *sc, const scan_rowset *d, size_t i)
{
    for (size_t k = 0; k < sc->npreds; k++) {
        size_t c = sc->preds[k].col;
        cf_mrs_cell *cell = &sc->cells[c];
        size_t w = sc->width[c];
        cell->nonnull = cf_bitmap_get(d->nn[c], i);
        memcpy(cell->slot, d->vals[c] + i * w, w);
        if (!cf_rs_pred_pass(&sc->s->cols[c], &sc->preds[k], cell))
            return false;
    }
    return true;
}

/* The array value in slot v (scan_internal.h: a scan_flat, or a serialized cell,
 * which is decoded: one that does not decode, from a damaged DeltaFile or
 * default, is CF_ECORRUPT) appended to projected column j's elements, the next
 * row's; binary elements' bytes copied (the sources move on before the batch
 * is handed out). */
static cf_status array_put(cf_kudu_scanner *sc, size_t j, const uint8_t *v, bool nonnull,
                           cf_error *err)
{
    const cf_column *col = &sc->s->cols[sc->proj[j]];
    cf_buf *vals = &sc->avals[j], *enn = &sc->aenn[j];
    size_t elems = sc->aelems[j], before = elems, w = cf_type_size(col->type);
    cf_slice sl;
    memcpy(&sl, v, sizeof(sl));
    if (nonnull && sl.len == SCAN_FLAT) {
        const scan_flat *f = (const scan_flat *)(const void *)sl.data;
        uint8_t *dst = cf_buf_extend(vals, f->count * w);
        size_t need = cf_bitmap_bytes(elems + f->count);
        if (need > enn->len) {
            size_t old = enn->len;
            uint8_t *q = cf_buf_extend(enn, need - old);
            if (q != NULL)
                memset(q, 0, need - old);
        }
        CF_CHECK((dst != NULL || f->count == 0) && !enn->oom, err, CF_ENOMEM,
                 "scan: out of memory");
        if (f->count > 0) {
            memcpy(dst, f->values, f->count * w);
            if (f->enn != NULL)
                cf_bitmap_copy(enn->data, elems, f->enn, f->first, f->count);
            else
                cf_bitmap_fill(enn->data, elems, f->count, true);
        }
        elems += f->count;
    } else if (nonnull) {
        uint32_t count = 0;
        cf_status st = cf_rs_cell_to_flat(sl, col->type, vals, enn, &elems, &count, err);
        if (st != CF_OK)
            return cf_error_prefix(err, st, "tablet %s: column %s: ", cf_kudu_tablet_id(sc->t),
                                   col->name);
    }
    if (cf_type_is_binary(col->type) && elems > before) {
        cf_slice *e = (cf_slice *)(void *)vals->data;
        for (size_t k = before; k < elems; k++) {
            if (e[k].len == 0)
                continue;
            uint8_t *p = cf_arena_alloc(&sc->obytes, e[k].len);
            CF_CHECK(p != NULL, err, CF_ENOMEM, "scan: out of memory");
            memcpy(p, e[k].data, e[k].len);
            e[k].data = p;
        }
    }
    sc->aelems[j] = elems;
    cf_buf_put_le32(&sc->aoffs[j], (uint32_t)elems);
    CF_CHECK(!sc->aoffs[j].oom, err, CF_ENOMEM, "scan: out of memory");
    return CF_OK;
}

/* One value into output row r of projected column j (binary bytes copied: the
 * sources move on before the batch is handed out). */
static cf_status put_value(cf_kudu_scanner *sc, size_t j, size_t r, const uint8_t *v, bool nonnull,
                           cf_error *err)
{
    size_t w = sc->pwidth[j];
    uint8_t *dst = sc->ovals[j] + r * w;
    cf_bitmap_put(sc->onn[j], r, nonnull);
    if (sc->s->cols[sc->proj[j]].is_array)
        return array_put(sc, j, v, nonnull, err);
    if (!sc->pbin[j] || !nonnull) {
        copy_width(dst, v, w);
        return CF_OK;
    }
    cf_slice sl;
    memcpy(&sl, v, sizeof(sl));
    if (sl.len > 0) {
        uint8_t *p = cf_arena_alloc(&sc->obytes, sl.len);
        CF_CHECK(p != NULL, err, CF_ENOMEM, "scan: out of memory");
        memcpy(p, sl.data, sl.len);
        sl.data = p;
    }
    memcpy(dst, &sl, sizeof(sl));
    return CF_OK;
}

/* Append the merged row to the output batch. */
static cf_status emit(cf_kudu_scanner *sc, size_t r, cf_error *err)
{
    for (size_t j = 0; j < sc->nproj; j++) {
        const cf_mrs_cell *cell = &sc->cells[sc->proj[j]];
        CF_TRY(put_value(sc, j, r, cell->slot, cell->nonnull, err));
    }
    return CF_OK;
}

/* Append row i of a rowset's batch to the output batch, read in place. */
static cf_status emit_rowset_row(cf_kudu_scanner *sc, const scan_rowset *d, size_t i, size_t r,
                                 cf_error *err)
{
    for (size_t j = 0; j < sc->nproj; j++) {
        size_t c = sc->proj[j];
        CF_TRY(put_value(sc, j, r, d->vals[c] + i * sc->width[c], cf_bitmap_get(d->nn[c], i), err));
    }
    return CF_OK;
}

/* Can the top rowset's remaining rows go out without comparing keys? When its
 * largest key (the superblock's max_encoded_key) is below every other source's
 * current key, no other source can come before any of its rows: the common case
 * of rowsets with disjoint key ranges. */
static bool can_stream(const cf_kudu_scanner *sc, const scan_rowset *d)
{
    if (d->m->max_key == NULL)
        return false;
    for (size_t k = 1; k <= 2 && k < sc->nheap; k++) {
        const scan_rowset *o = sc->heap[k];
        if (key_cmp(d->m->max_key, d->m->max_key_len, o->key.data, o->key.len) >= 0)
            return false;
    }
    if (sc->oi < sc->nops) {
        const wal_op *w = &sc->ops[sc->oi];
        if (key_cmp(d->m->max_key, d->m->max_key_len, w->key, w->klen) >= 0)
            return false;
    }
    return cf_kudu_scan_lazy_before(sc, d->m->max_key, d->m->max_key_len);
}

/* Rows [d->i, d->n) of a rowset's batch with the dead ones (deleted at the
 * snapshot, or failing a predicate) squeezed out, in place: the batch is going
 * out whole. */
static void squeeze_dead(cf_kudu_scanner *sc, scan_rowset *d)
{
    size_t live = d->i;
    for (size_t c = 0; c < sc->s->ncols; c++) {
        if (!sc->need[c])
            continue;
        size_t w = sc->width[c];
        uint8_t *v = d->vals[c], *nn = d->nn[c];
        live = d->i;
        for (size_t k = d->i; k < d->n; k++) {
            if (!cf_bitmap_get(d->sel, k))
                continue;
            if (live != k) {
                copy_width(v + live * w, v + k * w, w);
                cf_bitmap_put(nn, live, cf_bitmap_get(nn, k));
            }
            live++;
        }
    }
    cf_bitmap_fill(d->sel, d->i, live - d->i, true);
    d->n = live;
}

/* Stream the top rowset's live rows into the output from row r on; *r advances.
 * Stops when the output is full or the rowset ends. Keys are not encoded. An
 * output batch that would start with the rest of the rowset's batch is that
 * batch, handed out in place (sc->view: no copy of values or binary bytes; it
 * ends there, as the rowset's next refill reuses the buffers). */
static cf_status stream_rows(cf_kudu_scanner *sc, scan_rowset *d, size_t *r, cf_error *err)
{
    while (*r < sc->batch_rows) {
        if (d->i >= d->n) {
            if (d->next >= d->rows) {
                d->eof = true;
                return CF_OK;
            }
            CF_TRY(cf_kudu_scan_rowset_refill(sc, d, err));
            continue;
        }
        size_t i = d->i;
        if (*r == 0 && !sc->proj_arrays && d->n - i <= sc->batch_rows) {
            for (size_t k = i; k < d->n && sc->npreds > 0; k++) /* failing rows as dead */
                if (cf_bitmap_get(d->sel, k) && !preds_pass_rowset(sc, d, k))
                    cf_bitmap_put(d->sel, k, false);
            if (cf_bitmap_count(d->sel, i, d->n - i) != d->n - i)
                squeeze_dead(sc, d);
            if (d->n > i) {
                sc->view = d;
                sc->view_at = i;
                *r = d->n - i;
            }
            d->i = d->n;
            return CF_OK;
        }
        bool live = cf_bitmap_get(d->sel, i);
        size_t run = cf_bitmap_run(d->sel, i, d->n - i);
        if (!live) {
            d->i += run;
            continue;
        }
        if (sc->npreds > 0) {
            /* Row by row: each is tested. */
            d->i++;
            if (preds_pass_rowset(sc, d, i))
                CF_TRY(emit_rowset_row(sc, d, i, (*r)++, err));
            continue;
        }
        /* A run of live rows: each column copied as one range. */
        if (run > sc->batch_rows - *r)
            run = sc->batch_rows - *r;
        for (size_t j = 0; j < sc->nproj; j++) {
            size_t c = sc->proj[j], w = sc->width[c];
            memcpy(sc->ovals[j] + *r * w, d->vals[c] + i * w, run * w);
            cf_bitmap_copy(sc->onn[j], *r, d->nn[c], i, run);
            if (sc->s->cols[c].is_array) {
                for (size_t k = 0; k < run; k++)
                    CF_TRY(array_put(sc, j, d->vals[c] + (i + k) * w,
                                     cf_bitmap_get(d->nn[c], i + k), err));
                continue;
            }
            if (!sc->pbin[j])
                continue;
            /* Binary values: their bytes into the output's arena, in one piece. */
            cf_slice *sl = (cf_slice *)(void *)(sc->ovals[j] + *r * w);
            size_t total = 0;
            for (size_t k = 0; k < run; k++)
                total += sl[k].len;
            uint8_t *p = cf_arena_alloc(&sc->obytes, total ? total : 1);
            CF_CHECK(p != NULL, err, CF_ENOMEM, "scan: out of memory");
            for (size_t k = 0; k < run; k++) {
                if (sl[k].len > 0)
                    memcpy(p, sl[k].data, sl[k].len);
                sl[k].data = p;
                p += sl[k].len;
            }
        }
        *r += run;
        d->i += run;
    }
    return CF_OK;
}

cf_status cf_kudu_scanner_next(cf_kudu_scanner *sc, cf_row_batch *out, cf_error *err)
{
    memset(out, 0, sizeof(*out));
    cf_arena_reset(&sc->obytes);
    sc->view = NULL;
    for (size_t j = 0; j < sc->nproj; j++) {
        if (!sc->s->cols[sc->proj[j]].is_array)
            continue;
        cf_buf_clear(&sc->aoffs[j]);
        cf_buf_clear(&sc->avals[j]);
        cf_buf_clear(&sc->aenn[j]);
        sc->aelems[j] = 0;
        cf_buf_put_le32(&sc->aoffs[j], 0);
        CF_CHECK(!sc->aoffs[j].oom, err, CF_ENOMEM, "scan: out of memory");
    }
    size_t r = 0;
    const cf_schema *s = sc->s;
    while (!sc->done && r < sc->batch_rows) {
        CF_TRY(cf_kudu_scan_lazy_open(sc, err));
        scan_rowset *base = sc->nheap > 0 ? sc->heap[0] : NULL;
        /* Streaming is tried at the top's batch boundaries and when a rowset opened
         * or ended: not per row, where interleaved rowsets would pay for it every
         * time. */
        if (base != NULL && !base->streaming &&
            (base->fresh || sc->nheap != sc->last_nheap || sc->pi != sc->last_pi)) {
            sc->last_nheap = sc->nheap;
            sc->last_pi = sc->pi;
            base->fresh = false;
            base->streaming = can_stream(sc, base);
        }
        if (base != NULL && base->streaming) {
            CF_TRY(stream_rows(sc, base, &r, err));
            if (base->eof)
                heap_fix_top(sc);
            if (sc->view != NULL)
                break;
            continue;
        }
        /* The smallest key among the rowsets' current rows and the next replayed op. */
        const uint8_t *min = base != NULL ? base->key.data : NULL;
        size_t mlen = base != NULL ? base->key.len : 0;
        const wal_op *w = sc->oi < sc->nops ? &sc->ops[sc->oi] : NULL;
        bool from_wal = false;
        if (w != NULL && (min == NULL || key_cmp(w->key, w->klen, min, mlen) <= 0)) {
            from_wal = true;
            if (min != NULL && key_cmp(w->key, w->klen, min, mlen) < 0)
                base = NULL; /* a key only the log has */
        }
        if (base == NULL && !from_wal) {
            sc->done = true;
            break;
        }
        if (!from_wal) {
            /* A rowset row no replayed op touches: straight from its batch. */
            if (sc->npreds == 0 || preds_pass_rowset(sc, base, base->i))
                CF_TRY(emit_rowset_row(sc, base, base->i, r++, err));
        } else {
            bool live = false;
            if (base != NULL) {
                rowset_to_cells(sc, base);
                live = true;
            }
            const uint8_t *k = w->key;
            size_t klen = w->klen;
            while (sc->oi < sc->nops &&
                   key_cmp(sc->ops[sc->oi].key, sc->ops[sc->oi].klen, k, klen) == 0) {
                const wal_op *o = &sc->ops[sc->oi++];
                if (o->ts < sc->snap)
                    CF_TRY(cf_kudu_scan_wal_apply(sc, o, &live, err));
            }
            if (live && preds_pass(sc))
                CF_TRY(emit(sc, r++, err));
        }
        if (base != NULL) {
            /* A live key lives in one store at a time (Kudu looks in every rowset
             * before an insert): two rowsets holding it live is damage. The other
             * rowsets' smallest key is at heap[1] or heap[2]. */
            for (size_t k = 1; k <= 2 && k < sc->nheap; k++) {
                const scan_rowset *o = sc->heap[k];
                CF_CHECK(key_cmp(o->key.data, o->key.len, base->key.data, base->key.len) != 0, err,
                         CF_ECORRUPT,
                         "tablet %s: rowsets %" PRIu64 " and %" PRIu64
                         " both hold one key live at the snapshot",
                         cf_kudu_tablet_id(sc->t), base->m->id, o->m->id);
            }
            base->i++;
            CF_TRY(cf_kudu_scan_rowset_settle(sc, base, err));
            heap_fix_top(sc);
        }
    }
    for (size_t j = 0; j < sc->nproj; j++) {
        cf_batch *b = &sc->out[j];
        memset(b, 0, sizeof(*b));
        b->count = r;
        b->values = sc->ovals[j];
        b->nonnull = s->cols[sc->proj[j]].nullable ? sc->onn[j] : NULL;
        if (sc->view != NULL) {
            size_t c = sc->proj[j], at = sc->view_at;
            b->values = sc->view->vals[c] + at * sc->width[c];
            if (at % 8 == 0) {
                if (b->nonnull != NULL)
                    b->nonnull = sc->view->nn[c] + at / 8;
            } else {
                cf_bitmap_copy(sc->onn[j], 0, sc->view->nn[c], at, r);
            }
        }
        if (s->cols[sc->proj[j]].is_array) {
            b->values = sc->avals[j].data;
            b->elem_offsets = (const uint32_t *)(const void *)sc->aoffs[j].data;
            b->elem_count = sc->aelems[j];
            b->elem_nonnull = sc->aenn[j].data;
        }
    }
    out->count = r;
    out->ncols = sc->nproj;
    out->cols = sc->out;
    out->ords = NULL;
    return CF_OK;
}

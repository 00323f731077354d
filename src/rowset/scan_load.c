/* Reading one column of the rowset scanner: rows [cur, cur+n) from its
 * iterator into the column's buffers (a batch) or a window's (read ahead),
 * binary bytes copied out where the iterator's next call would invalidate
 * them, array cells flattened, and the deltas' updates applied. Owns the
 * column's batch buffers and its iterator position; must not decide which
 * rows are read or when (scan.c, scan_ahead.c) (scan.h). */
#include <inttypes.h>
#include <string.h>

#include "scan.h"

#include "util/alloc.h"
#include "util/bitmap.h"
#include "util/error.h"
#include "util/int128.h"

/* ---- reading one column ------------------------------------------------------------------------
 */

/* The iterator's views die at its next call, and a batch may need several:
 * their bytes are kept in one piece of the arena (internal.h). */
cf_status cf_rs_keep_bytes(cf_arena *arena, cf_slice *v, size_t n, cf_error *err)
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
cf_status cf_rs_scan_load_into(rs_col *c, uint64_t cur, size_t n, cf_buf *vals, cf_buf *nnb,
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
                CF_TRY(cf_rs_keep_bytes(arena, (cf_slice *)dst, b.count, err));
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
                    CF_TRY(cf_rs_keep_bytes(arena, (cf_slice *)dst, ne, err));
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
    CF_TRY(cf_rs_scan_load_into(c, cur, n, &c->vals, &c->nn, &c->arena, NULL, err));
    c->bv = c->vals.data;
    c->bnn = c->nn.data;
    c->loaded = true;
    return CF_OK;
}

void cf_rs_scan_copy_elems(rs_col *c, size_t i, size_t *ne, size_t slack)
{
    const uint32_t *offs = (const uint32_t *)(const void *)c->offs.data;
    size_t a = offs[i], k = offs[i + 1] - offs[i];
    cf_buf_append(&c->ovals, c->vals.data + a * c->width, k * c->width);
    size_t need = cf_bitmap_bytes(*ne + k) + slack;
    if (need > c->oenn.len) {
        size_t old = c->oenn.len;
        uint8_t *q = cf_buf_extend(&c->oenn, need - old);
        if (q != NULL)
            memset(q, 0, need - old);
    }
    if (!c->oenn.oom && k > 0)
        cf_bitmap_copy(c->oenn.data, *ne, c->enn.data, a, k);
    *ne += k;
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
    size_t ne = 0;
    cf_buf_put_le32(&c->ooffs, 0);
    for (size_t i = 0; i < n; i++) {
        uint32_t k = 0;
        if (cells[i].data == &untouched)
            cf_rs_scan_copy_elems(c, i, &ne, 0);
        else if (cf_bitmap_get(c->nn.data, i))
            CF_TRY_OUT(cf_rs_cell_to_flat(cells[i], c->c->type, &c->ovals, &c->oenn, &ne, &k, err));
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
        CF_TRY(cf_rs_keep_bytes(&c->arena, (cf_slice *)(void *)dst, 1, err));
    c->pos = UINT64_MAX; /* the iterator did not move */
    c->bv = c->vals.data;
    c->bnn = c->nn.data;
    c->loaded = true;
    return CF_OK;
}

cf_status cf_rs_scan_load_and_apply(cf_rowset_scanner *sc, rs_col *c, size_t n, cf_error *err)
{
    if (c->busy)
        cf_rs_scan_settle(sc);
    if (sc->keyvals != NULL && c->key_fixed && n == 1)
        return load_key_value(c, sc->keyvals[c->idx], err);
    CF_TRY(load_col(c, sc->cur, n, err));
    if (c->c->is_array)
        return sc->nap ? apply_arrays(sc, c, n, err) : CF_OK;
    for (size_t i = 0; i < sc->nap; i++)
        CF_TRY(cf_delta_apply_updates(sc->ap[i], c->idx, c->bv, c->bnn, err));
    return CF_OK;
}

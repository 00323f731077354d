/* One DiskRowSet as a source of a tablet scan: its base columns (CFiles in the
 * block manager) streamed one batch at a time, with the UNDO and REDO DeltaFiles
 * visible at the snapshot applied to each batch (tablet/diskrowset.cc,
 * delta_tracker.cc), rows deleted at the snapshot skipped, and the current row's
 * encoded key for the merge. */
#include <stdio.h>
#include <string.h>

#include "kudufs/fs_internal.h"
#include "scan_internal.h"
#include "tablet.h"

#include "rowset/internal.h"
#include "util/alloc.h"
#include "util/bitmap.h"
#include "util/error.h"

void cf_kudu_scan_rowset_dispose(cf_kudu_scanner *sc, scan_rowset *d)
{
    size_t ncols = sc->s->ncols;
    for (size_t c = 0; c < ncols; c++) {
        if (d->cit != NULL)
            cf_iter_free(d->cit[c]);
        if (d->crd != NULL && d->crd[c] != NULL) /* opened and checked: kept for the next scan */
            cf_kudu_reader_cache_give(sc->fs->readers, d->blk[c], sc->mmap, d->cio[c], d->crd[c]);
        else if (d->cio != NULL)
            cf_io_free(d->cio[c]);
        if (d->vals != NULL)
            cf_free(d->vals[c]);
        if (d->nn != NULL)
            cf_free(d->nn[c]);
    }
    for (size_t i = 0; i < d->nd; i++) {
        cf_delta_apply_free(d->dap[i]);
        cf_delta_reader_free(d->drd[i]);
        cf_io_free(d->dio[i]);
    }
    cf_free(d->cit);
    cf_free(d->blk);
    cf_free(d->crd);
    cf_free(d->cio);
    cf_free(d->vals);
    cf_free(d->nn);
    cf_free(d->dap);
    cf_free(d->drd);
    cf_free(d->dio);
    cf_free(d->sel);
    cf_arena_dispose(&d->bytes);
    cf_buf_dispose(&d->key);
}

void cf_kudu_scan_rowset_close(cf_kudu_scanner *sc, scan_rowset *d)
{
    cf_kudu_scan_rowset_dispose(sc, d);
    memset(d, 0, sizeof(*d));
    d->eof = true;
}

/* " (block N in FILE+O)": where a block's bytes are, for messages (a CFile error
 * names an offset inside the block, so the file offset is O plus that). FILE is the
 * container's data file (log block manager) or the block's own file, by name: the
 * message has 256 bytes. */
static const char *block_where(const cf_kudu_scanner *sc, uint64_t id, char *buf, size_t cap)
{
    const cf_kudu_block *b = cf_kudu_fs_find_block(sc->fs, id);
    if (b == NULL || b->path == NULL) {
        snprintf(buf, cap, " (block %" PRIu64 ")", id);
    } else {
        const char *base = strrchr(b->path, '/');
        snprintf(buf, cap, " (block %" PRIu64 " in %s+%" PRIu64 ")", id,
                 base != NULL ? base + 1 : b->path, b->offset);
    }
    return buf;
}

/* Why a block the superblock names may be missing, for its message: the first
 * damage the block manager found while loading (a cut or damaged container loses
 * its blocks), else where the blocks were looked for. */
static void missing_why(const cf_kudu_scanner *sc, char *buf, size_t cap)
{
    size_t np = cf_kudu_fs_problem_count(sc->fs);
    if (np > 0) {
        const cf_kudu_problem *p = cf_kudu_fs_problem_at(sc->fs, 0);
        const char *base = p->path != NULL ? strrchr(p->path, '/') : NULL;
        base = base != NULL ? base + 1 : p->path != NULL ? p->path : "?";
        char off[32] = "";
        if (p->has_offset)
            snprintf(off, sizeof(off), "+%" PRIu64, p->offset);
        snprintf(buf, cap, "; damage there: %s%s: %s%s", base, off, p->what != NULL ? p->what : "",
                 np > 1 ? " (and more)" : "");
        return;
    }
    size_t nd = cf_kudu_fs_data_dir_count(sc->fs);
    const char *dir = nd > 0 ? cf_kudu_fs_data_dir_at(sc->fs, 0) : "?";
    snprintf(buf, cap, " (%zu live blocks under %s/data%s)", cf_kudu_fs_block_count(sc->fs), dir,
             nd > 1 ? " and the other data dirs" : "");
}

/* An io over block `id` of rowset `rs` (what = its role, for messages). A block the
 * superblock names but the block manager does not hold is damage. */
static cf_status open_block(const cf_kudu_scanner *sc, const cf_kudu_rowset *rs, uint64_t id,
                            const char *what, cf_io **io, cf_error *err)
{
    cf_status st = cf_kudu_fs_open_block(sc->fs, id, sc->mmap, io, err);
    if (st == CF_ENOTFOUND) {
        char why[200];
        missing_why(sc, why, sizeof(why));
        CF_FAIL(err, CF_ECORRUPT,
                "tablet %s: rowset %" PRIu64 " %s: block %" PRIu64 " is not in the block manager%s",
                cf_kudu_tablet_id(sc->t), rs->id, what, id, why);
    }
    char wb[300];
    if (st != CF_OK)
        return cf_error_prefix(err, st,
                               "tablet %s: rowset %" PRIu64 " %s%s: ", cf_kudu_tablet_id(sc->t),
                               rs->id, what, block_where(sc, id, wb, sizeof(wb)));
    return CF_OK;
}

/* Column block `id` opened: its io and CFile reader (*r NULL when the reader does not
 * open: the io is still the caller's to free). When the open fails while the fs
 * keeps readers of other blocks (a descriptor limit reached, say), those are closed
 * and the open tried once more. */
static cf_status open_column(const cf_kudu_scanner *sc, const cf_kudu_rowset *m, uint64_t id,
                             const char *what, cf_io **io, cf_reader **r, cf_error *err)
{
    for (int attempt = 0;; attempt++) {
        cf_status st = open_block(sc, m, id, what, io, err);
        if (st == CF_OK)
            st = cf_reader_open(r, *io, NULL, err);
        if (st == CF_OK || st == CF_ECORRUPT || attempt > 0 ||
            cf_kudu_reader_cache_count(sc->fs->readers) == 0)
            return st;
        cf_io_free(*io);
        *io = NULL;
        cf_kudu_reader_cache_drop_all(sc->fs->readers);
    }
}

static cf_status open_delta(cf_kudu_scanner *sc, scan_rowset *d, uint64_t id, cf_delta_type type,
                            size_t k, cf_error *err)
{
    char what[32];
    snprintf(what, sizeof(what), "%s%zu", type == CF_DELTA_UNDO ? "undo" : "redo", k);
    cf_io *io = NULL;
    cf_delta_reader *r = NULL;
    cf_delta_apply *a = NULL;
    bool culled = false;
    cf_status st = open_block(sc, d->m, id, what, &io, err);
    if (st == CF_OK)
        st = cf_delta_reader_open(&r, io, type, NULL, err);
    if (st == CF_OK)
        cf_kudu_scan_note_delta(sc, r); /* the ancient history mark's clock check */
    if (st == CF_OK)
        st = cf_delta_apply_create(&a, r, sc->dcols, sc->s->ncols, sc->snap, &culled, err);
    if (st == CF_OK && !culled)
        st = cf_delta_apply_seek(a, 0, err);
    if (st != CF_OK || culled) {
        cf_delta_apply_free(a);
        cf_delta_reader_free(r);
        cf_io_free(io);
        char wb[300];
        if (st != CF_OK && st != CF_ENOMEM)
            st = cf_error_prefix(err, st,
                                 "tablet %s: rowset %" PRIu64 " %s%s: ", cf_kudu_tablet_id(sc->t),
                                 d->m->id, what, block_where(sc, id, wb, sizeof(wb)));
        return st;
    }
    d->dio[d->nd] = io;
    d->drd[d->nd] = r;
    d->dap[d->nd] = a;
    d->nd++;
    return CF_OK;
}

cf_status cf_kudu_scan_rowset_open(cf_kudu_scanner *sc, scan_rowset *d, const cf_kudu_rowset *m,
                                   cf_error *err)
{
    const cf_schema *s = sc->s;
    size_t nc = s->ncols;
    d->m = m;
    cf_arena_init(&d->bytes, 0);
    cf_buf_init(&d->key);
    CF_CHECK(sc->fixed_key == 0 || cf_buf_reserve(&d->key, sc->fixed_key), err, CF_ENOMEM,
             "scan: out of memory");
    d->cio = cf_calloc(nc, sizeof(*d->cio));
    d->crd = cf_calloc(nc, sizeof(*d->crd));
    d->cit = cf_calloc(nc, sizeof(*d->cit));
    d->blk = cf_calloc(nc, sizeof(*d->blk));
    d->vals = cf_calloc(nc, sizeof(*d->vals));
    d->nn = cf_calloc(nc, sizeof(*d->nn));
    size_t ndelta = m->nundo + m->nredo;
    d->dio = cf_calloc(ndelta + 1, sizeof(*d->dio));
    d->drd = cf_calloc(ndelta + 1, sizeof(*d->drd));
    d->dap = cf_calloc(ndelta + 1, sizeof(*d->dap));
    d->sel = cf_malloc(cf_bitmap_bytes(sc->rs_rows));
    CF_CHECK(d->cio && d->crd && d->cit && d->blk && d->vals && d->nn && d->dio && d->drd &&
                 d->dap && d->sel,
             err, CF_ENOMEM, "scan: out of memory");
    bool rows_known = false;
    for (size_t c = 0; c < nc; c++) {
        if (!sc->need[c])
            continue;
        const cf_column *col = &s->cols[c];
        d->vals[c] = cf_malloc(sc->rs_rows * sc->width[c]);
        d->nn[c] = cf_malloc(cf_bitmap_bytes(sc->rs_rows));
        CF_CHECK(d->vals[c] != NULL && d->nn[c] != NULL, err, CF_ENOMEM, "scan: out of memory");
        uint32_t id = cf_kudu_tablet_column_id(sc->t, c);
        size_t b = NONE;
        for (size_t i = 0; i < m->ncolumns; i++)
            if (m->column_ids[i] == id)
                b = i;
        if (b == NONE) {
            /* A column added after the rowset was written: Kudu reads its read
             * default (tablet/diskrowset.cc's DefaultColumnValueIterator). */
            CF_CHECK(col->nullable || sc->rdef[c].nonnull, err, CF_ECORRUPT,
                     "tablet %s: rowset %" PRIu64 " has no block for column %s, which is NOT "
                     "NULL and has no read default",
                     cf_kudu_tablet_id(sc->t), m->id, col->name);
            continue;
        }
        char what[160];
        snprintf(what, sizeof(what), "column %s", col->name);
        d->blk[c] = m->column_blocks[b];
        cf_status st = CF_OK;
        if (!cf_kudu_reader_cache_take(sc->fs->readers, d->blk[c], sc->mmap, &d->cio[c],
                                       &d->crd[c]))
            st = open_column(sc, m, d->blk[c], what, &d->cio[c], &d->crd[c], err);
        if (st == CF_OK)
            st = cf_iter_create(&d->cit[c], d->crd[c], err);
        char wb[300];
        if (st != CF_OK)
            return cf_error_prefix(
                err, st, "tablet %s: rowset %" PRIu64 " %s%s: ", cf_kudu_tablet_id(sc->t), m->id,
                what, block_where(sc, m->column_blocks[b], wb, sizeof(wb)));
        const cf_file_info *fi = cf_reader_info(d->crd[c]);
        CF_CHECK(
            (fi->type == col->type || cf_type_physical(fi->type) == cf_type_physical(col->type)) &&
                fi->is_array == col->is_array,
            err, CF_ECORRUPT,
            "tablet %s: rowset %" PRIu64 " %s (block %" PRIu64 "): the CFile holds %s%s, the "
            "schema says %s%s",
            cf_kudu_tablet_id(sc->t), m->id, what, m->column_blocks[b], cf_type_name(fi->type),
            fi->is_array ? "[]" : "", cf_type_name(col->type), col->is_array ? "[]" : "");
        if (!rows_known) {
            d->rows = fi->num_values;
            rows_known = true;
        }
        CF_CHECK(fi->num_values == d->rows, err, CF_ECORRUPT,
                 "tablet %s: rowset %" PRIu64 " %s (block %" PRIu64 "): %" PRIu64
                 " rows, other columns %" PRIu64,
                 cf_kudu_tablet_id(sc->t), m->id, what, m->column_blocks[b], fi->num_values,
                 d->rows);
    }
    /* The key columns are always read, so the row count is known here. */
    CF_CHECK(rows_known, err, CF_ECORRUPT, "tablet %s: rowset %" PRIu64 " has no key column block",
             cf_kudu_tablet_id(sc->t), m->id);
    if (sc->snap != CF_SNAPSHOT_LATEST)
        for (size_t k = 0; k < m->nundo; k++) /* newest first: the oldest undo wins */
            CF_TRY(open_delta(sc, d, m->undo_blocks[k], CF_DELTA_UNDO, k, err));
    for (size_t k = 0; k < m->nredo; k++) /* oldest first: the newest redo wins */
        CF_TRY(open_delta(sc, d, m->redo_blocks[k], CF_DELTA_REDO, k, err));
    d->eof = d->rows == 0;
    return CF_OK;
}

/* Rows [next, next + n) of array column c: the iterator's elements copied into the
 * batch's bytes, each cell a scan_flat over them (scan_internal.h). */
static cf_status rowset_fill_array(cf_kudu_scanner *sc, scan_rowset *d, size_t c, size_t n,
                                   cf_error *err)
{
    const cf_column *col = &sc->s->cols[c];
    cf_slice *vals = (cf_slice *)(void *)d->vals[c];
    uint8_t *nn = d->nn[c];
    for (size_t got = 0; got < n;) {
        cf_batch b;
        cf_status st = cf_iter_next_batch(d->cit[c], n - got, &b, err);
        char wb[300];
        if (st != CF_OK)
            return cf_error_prefix(
                err, st, "tablet %s: rowset %" PRIu64 " column %s%s: ", cf_kudu_tablet_id(sc->t),
                d->m->id, col->name, block_where(sc, d->blk[c], wb, sizeof(wb)));
        CF_CHECK(b.count > 0 && b.count <= n - got, err, CF_ECORRUPT,
                 "tablet %s: rowset %" PRIu64 " column %s: ends at row %" PRIu64 " of %" PRIu64,
                 cf_kudu_tablet_id(sc->t), d->m->id, col->name, d->next + got, d->rows);
        /* the batch's elements, once: they live in the iterator until its next call */
        size_t w = cf_type_size(col->type), e0 = b.elem_offsets[0];
        size_t ne = b.elem_offsets[b.count] - e0;
        uint8_t *ev = cf_arena_alloc_aligned(&d->bytes, ne * w + 1, 16);
        scan_flat *f = cf_arena_alloc_aligned(&d->bytes, b.count * sizeof(*f), _Alignof(scan_flat));
        uint8_t *enn = NULL;
        if (b.elem_nonnull != NULL && ne > 0) {
            enn = cf_arena_alloc(&d->bytes, cf_bitmap_bytes(ne));
            CF_CHECK(enn != NULL, err, CF_ENOMEM, "scan: out of memory");
            memset(enn, 0, cf_bitmap_bytes(ne));
            cf_bitmap_copy(enn, 0, b.elem_nonnull, e0, ne);
        }
        CF_CHECK(ev != NULL && f != NULL, err, CF_ENOMEM, "scan: out of memory");
        if (ne > 0)
            memcpy(ev, (const uint8_t *)b.values + e0 * w, ne * w);
        if (cf_type_is_binary(col->type))
            CF_TRY(cf_rs_keep_bytes(&d->bytes, (cf_slice *)(void *)ev, ne, err));
        for (size_t i = 0; i < b.count; i++) {
            bool present = b.nonnull == NULL || cf_bitmap_get(b.nonnull, i);
            cf_bitmap_put(nn, got + i, present);
            size_t a = b.elem_offsets[i] - e0;
            f[i] = (scan_flat){ev + a * w, enn, a, b.elem_offsets[i + 1] - b.elem_offsets[i]};
            vals[got + i] =
                present ? (cf_slice){(const uint8_t *)&f[i], SCAN_FLAT} : (cf_slice){NULL, 0};
        }
        got += b.count;
    }
    return CF_OK;
}

/* Read rows [next, next + n) of needed column c into the batch. */
static cf_status rowset_fill_col(cf_kudu_scanner *sc, scan_rowset *d, size_t c, size_t n,
                                 cf_error *err)
{
    const cf_column *col = &sc->s->cols[c];
    size_t w = sc->width[c];
    uint8_t *vals = d->vals[c], *nn = d->nn[c];
    if (d->cit[c] == NULL) { /* not in this rowset: its read default, or NULL */
        const cf_mrs_cell *def = &sc->rdef[c];
        for (size_t i = 0; i < n; i++)
            memcpy(vals + i * w, def->slot, w);
        cf_bitmap_fill(nn, 0, n, def->nonnull);
        return CF_OK;
    }
    if (col->is_array)
        return rowset_fill_array(sc, d, c, n, err);
    bool bin = cf_type_is_binary(col->type);
    for (size_t got = 0; got < n;) {
        size_t k = 0;
        /* Validity straight into the batch's bitmap when the rows start on a byte
         * (copy_batch writes from bit 0, whole bytes), else through tmpn. */
        bool aligned = got % 8 == 0;
        uint8_t *vn = aligned ? nn + got / 8 : sc->tmpn;
        cf_status st = cf_iter_copy_batch(d->cit[c], vals + got * w, vn, n - got, &k, err);
        char wb[300];
        if (st != CF_OK)
            return cf_error_prefix(
                err, st, "tablet %s: rowset %" PRIu64 " column %s%s: ", cf_kudu_tablet_id(sc->t),
                d->m->id, col->name, block_where(sc, d->blk[c], wb, sizeof(wb)));
        CF_CHECK(k > 0, err, CF_ECORRUPT,
                 "tablet %s: rowset %" PRIu64 " column %s: ends at row %" PRIu64 " of %" PRIu64,
                 cf_kudu_tablet_id(sc->t), d->m->id, col->name, d->next + got, d->rows);
        if (!aligned)
            cf_bitmap_copy(nn, got, sc->tmpn, 0, k);
        if (bin && got + k < n) {
            /* The slices point into the iterator until its next call, which this
             * batch makes: keep their bytes. The last call's stay where they are,
             * valid until the rowset's next refill (as the rowset scanner keeps
             * them). */
            CF_TRY(cf_rs_keep_bytes(&d->bytes, (cf_slice *)(void *)(vals + got * w), k, err));
        }
        got += k;
    }
    return CF_OK;
}

static cf_status rowset_key(cf_kudu_scanner *sc, scan_rowset *d, cf_error *err)
{
    if (sc->fixed_key) {
        /* Fixed-width key columns: big-endian, sign bit flipped (as cf_rs_key_append
         * writes them), straight into the buffer sized at open. */
        uint8_t *o = d->key.data;
        for (size_t k = 0; k < sc->s->nkeys; k++) {
            size_t w = sc->width[k];
            const uint8_t *v = d->vals[k] + d->i * w;
            for (size_t j = 0; j < w; j++)
                o[j] = v[w - 1 - j];
            if (sc->key_signed[k])
                o[0] ^= 0x80;
            o += w;
        }
        d->key.len = sc->fixed_key;
        return CF_OK;
    }
    cf_buf_clear(&d->key);
    for (size_t k = 0; k < sc->s->nkeys; k++) {
        size_t w = cf_type_size(sc->s->cols[k].type);
        cf_rs_key_append(&d->key, sc->s, k, d->vals[k] + d->i * w);
    }
    CF_CHECK(!d->key.oom, err, CF_ENOMEM, "scan: out of memory");
    return CF_OK;
}

/* Read the next batch of base rows and apply the deltas visible at the snapshot. */
cf_status cf_kudu_scan_rowset_refill(cf_kudu_scanner *sc, scan_rowset *d, cf_error *err)
{
    const cf_schema *s = sc->s;
    uint64_t left = d->rows - d->next;
    size_t n = left < sc->rs_rows ? (size_t)left : sc->rs_rows;
    cf_arena_reset(&d->bytes);
    for (size_t c = 0; c < s->ncols; c++)
        if (sc->need[c])
            CF_TRY(rowset_fill_col(sc, d, c, n, err));
    cf_bitmap_fill(d->sel, 0, n, true);
    for (size_t k = 0; k < d->nd; k++) {
        cf_delta_apply *a = d->dap[k];
        cf_status st = cf_delta_apply_prepare(a, n, err);
        for (size_t c = 0; c < s->ncols && st == CF_OK; c++)
            if (sc->need[c])
                st = cf_delta_apply_updates(a, c, d->vals[c], s->cols[c].nullable ? d->nn[c] : NULL,
                                            err);
        if (st == CF_OK)
            st = cf_delta_apply_deletes(a, d->sel, err);
        if (st != CF_OK)
            return cf_error_prefix(
                err, st, "tablet %s: rowset %" PRIu64 " deltas, rows %" PRIu64 "..%" PRIu64 ": ",
                cf_kudu_tablet_id(sc->t), d->m->id, d->next, d->next + n);
    }
    d->next += n;
    d->n = n;
    d->i = 0;
    d->fresh = true;
    return CF_OK;
}

/* Move to the first live row at or after the current one (refilling as needed). */
cf_status cf_kudu_scan_rowset_settle(cf_kudu_scanner *sc, scan_rowset *d, cf_error *err)
{
    for (;;) {
        while (d->i < d->n && !cf_bitmap_get(d->sel, d->i))
            d->i++;
        if (d->i < d->n)
            return d->streaming ? CF_OK : rowset_key(sc, d, err);
        if (d->next >= d->rows) {
            d->eof = true;
            return CF_OK;
        }
        CF_TRY(cf_kudu_scan_rowset_refill(sc, d, err));
    }
}

/* Compaction: rewrite base data + deltas into a new rowset generation.
 *
 * Per base row, oldest first: the REDO deltas (every REDO file in MANIFEST order,
 * which is timestamp order) are replayed on the base values; each replayed
 * mutation leaves an UNDO delta that reverses it (UPDATE -> UPDATE of the old
 * values, DELETE -> REINSERT of the row, REINSERT -> DELETE). The new base is
 * the latest state. A row whose last operation is a DELETE keeps its last live
 * values with that DELETE as a REDO delta, unless it happened before the ancient
 * history mark, when the row is dropped. New UNDOs (newest first) are followed by
 * the row's older UNDOs, so the UNDO file stays in Kudu's order (row ascending,
 * timestamp descending, format §12.2). The new MANIFEST is committed atomically,
 * then the old files are removed.
 *
 * A table's compaction merges several rowsets (cf_rs_compact_merge) into a new
 * directory: rows come from every source in key order (their keys are
 * disjoint), and the output's insert_ts is the earliest source's; a row of a
 * later source gets an UNDO DELETE at its source's insert_ts so that older
 * snapshots still do not see it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#include "util/alloc.h"
#include "util/bitmap.h"
#include "util/error.h"

#define DS_BATCH 128

typedef struct dstream {
    cf_delta_iter *it;
    cf_delta buf[DS_BATCH];
    size_t n, i;
    bool eof;
} dstream;

static cf_status ds_peek(dstream *d, const cf_delta **out, cf_error *err)
{
    *out = NULL;
    if (d->i == d->n && !d->eof) {
        CF_TRY(cf_delta_iter_next_batch(d->it, d->buf, DS_BATCH, &d->n, err));
        d->i = 0;
        d->eof = d->n == 0;
    }
    if (!d->eof)
        *out = &d->buf[d->i];
    return CF_OK;
}

typedef struct ent {
    uint64_t ts;
    size_t off, len;
} ent;

typedef struct ent_list {
    ent *v;
    size_t n, cap;
    cf_buf bytes;
} ent_list;

static cf_status ent_push(ent_list *l, uint64_t ts, cf_slice rcl, cf_error *err)
{
    if (l->n == l->cap)
        CF_CHECK(cf_array_grow(&l->v, &l->cap, sizeof *l->v, 16), err, CF_ENOMEM,
                 "compact: out of memory");
    l->v[l->n++] = (ent){ts, l->bytes.len, rcl.len};
    cf_buf_append(&l->bytes, rcl.data, rcl.len);
    CF_CHECK(!l->bytes.oom, err, CF_ENOMEM, "compact: out of memory");
    return CF_OK;
}

static void ent_clear(ent_list *l)
{
    l->n = 0;
    cf_buf_clear(&l->bytes);
}

static cf_slice ent_rcl(const ent_list *l, size_t i)
{
    return (cf_slice){l->bytes.data + l->v[i].off, l->v[i].len};
}

/* Take every delta of `row` from the stream (views die at the next refill). */
static cf_status take_row(dstream *d, uint32_t row, ent_list *into, cf_error *err)
{
    for (;;) {
        const cf_delta *x;
        CF_TRY(ds_peek(d, &x, err));
        if (x == NULL || x->row > row)
            return CF_OK;
        if (x->row == row)
            CF_TRY(ent_push(into, x->ts, x->rcl, err));
        d->i++;
    }
}

typedef struct cell {
    bool nonnull;
    uint8_t slot[16];
} cell;

typedef struct outcol {
    cf_buf vals, nn, counts, enn;
    size_t elems;
} outcol;

typedef struct compactor {
    int outdfd; /* the output directory (dirfd.c) */
    const char *outdir;
    uint64_t insert_ts; /* of the output: the earliest of the sources' */
    const cf_schema *s;
    uint64_t ahm;
    cell *row;
    outcol *oc;
    size_t orows; /* rows in the pending output batch */
    uint64_t out_ord;
    cf_arena arena;
    cf_rcl_builder *b;
    cf_rowset_writer *w;
    cf_delta_writer *undo, *redo;
    cf_io *undo_io, *redo_io; /* theirs, created with the output's file_mode */
    cf_rs_manifest *nm;
    char undo_name[CF_RS_DELTA_NAME_MAX], redo_name[CF_RS_DELTA_NAME_MAX];
} compactor;

static cf_status rcl_value(compactor *k, size_t col, const cell *c, cf_error *err)
{
    const cf_column *cd = &k->s->cols[col];
    if (!c->nonnull)
        return cf_rcl_builder_add(k->b, (uint32_t)col, NULL, 0, err);
    if (cf_type_is_binary(cd->type) || cd->is_array) { /* arrays: the serialized cell */
        cf_slice v;
        memcpy(&v, c->slot, sizeof(v));
        return cf_rcl_builder_add(k->b, (uint32_t)col, v.len ? v.data : (const uint8_t *)"", v.len,
                                  err);
    }
    return cf_rcl_builder_add(k->b, (uint32_t)col, c->slot, cf_type_size(cd->type), err);
}

/* Apply one change list to the row; with `undo` the reverse list goes there. */
static cf_status replay(compactor *k, cf_slice rcl, uint64_t ts, bool *alive, ent_list *undo,
                        cf_error *err)
{
    cf_rcl_decoder d;
    CF_TRY(cf_rcl_decoder_init(&d, rcl, err));
    if (d.type == CF_RCL_DELETE) {
        CF_CHECK(*alive, err, CF_ECORRUPT, "compact: DELETE of a deleted row at ts %" PRIu64, ts);
        cf_rcl_builder_reset(k->b, CF_RCL_REINSERT);
        for (size_t c = k->s->nkeys; c < k->s->ncols; c++)
            CF_TRY(rcl_value(k, c, &k->row[c], err));
        *alive = false;
        return ent_push(undo, ts, cf_rcl_builder_bytes(k->b), err);
    }
    if (d.type == CF_RCL_REINSERT) {
        CF_CHECK(!*alive, err, CF_ECORRUPT, "compact: REINSERT of a live row at ts %" PRIu64, ts);
        *alive = true;
        cf_rcl_builder_reset(k->b, CF_RCL_DELETE);
        CF_TRY(ent_push(undo, ts, cf_rcl_builder_bytes(k->b), err));
    } else {
        cf_rcl_builder_reset(k->b, CF_RCL_UPDATE);
        cf_rcl_decoder d2 = d;
        while (cf_rcl_decoder_has_next(&d2)) {
            cf_rcl_change ch;
            int idx;
            CF_TRY(cf_rcl_decoder_next(&d2, &ch, err));
            CF_TRY(cf_rcl_change_validate(&ch, k->s->dcols, k->s->ncols, &idx, err));
            if (idx >= 0)
                CF_TRY(rcl_value(k, (size_t)idx, &k->row[idx], err));
        }
        CF_TRY(ent_push(undo, ts, cf_rcl_builder_bytes(k->b), err));
    }
    while (cf_rcl_decoder_has_next(&d)) {
        cf_rcl_change ch;
        int idx;
        CF_TRY(cf_rcl_decoder_next(&d, &ch, err));
        CF_TRY(cf_rcl_change_validate(&ch, k->s->dcols, k->s->ncols, &idx, err));
        if (idx < 0 || k->s->cols[idx].is_key)
            continue;
        cell *c = &k->row[idx];
        c->nonnull = !ch.is_null;
        memset(c->slot, 0, sizeof(c->slot));
        if (ch.is_null)
            continue;
        if (cf_type_is_binary(k->s->cols[idx].type) || k->s->cols[idx].is_array)
            memcpy(c->slot, &ch.value, sizeof(cf_slice));
        else
            memcpy(c->slot, ch.value.data, ch.value.len); /* size checked by validate */
    }
    return CF_OK;
}

/* Add the row (k->row, its final state) to the pending output batch, copying
 * bytes that must outlive it. */
static cf_status emit_row(compactor *k, cf_error *err)
{
    for (size_t c = 0; c < k->s->ncols; c++) {
        const cf_column *cd = &k->s->cols[c];
        outcol *o = &k->oc[c];
        size_t w = cf_type_size(cd->type);
        size_t need = cf_bitmap_bytes(k->orows + 1);
        if (o->nn.len < need)
            cf_buf_put_u8(&o->nn, 0);
        if (cd->is_array) {
            /* The row's final cell, serialized (base or replayed), back to elements. */
            const cell *cl = &k->row[c];
            uint32_t n = 0;
            if (cl->nonnull) {
                cf_slice v;
                memcpy(&v, cl->slot, sizeof(v));
                size_t first = o->elems;
                CF_TRY(cf_rs_cell_to_flat(v, cd->type, &o->vals, &o->enn, &o->elems, &n, err));
                if (cf_type_is_binary(cd->type) && n > 0 && !o->vals.oom) {
                    /* the elements point into change lists reused by the next row */
                    cf_slice *e = (cf_slice *)(void *)(o->vals.data + first * w);
                    for (uint32_t j = 0; j < n; j++) {
                        uint8_t *p = cf_arena_alloc_aligned(&k->arena, e[j].len ? e[j].len : 1, 16);
                        CF_CHECK(p != NULL, err, CF_ENOMEM, "compact: out of memory");
                        if (e[j].len)
                            memcpy(p, e[j].data, e[j].len);
                        e[j].data = p;
                    }
                }
            }
            cf_buf_put_le32(&o->counts, n);
            if (!o->nn.oom)
                cf_bitmap_put(o->nn.data, k->orows, cl->nonnull);
            continue;
        }
        cell *cl = &k->row[c];
        uint8_t slot[16];
        memcpy(slot, cl->slot, sizeof(slot));
        if (cf_type_is_binary(cd->type) && cl->nonnull) {
            cf_slice v;
            memcpy(&v, slot, sizeof(v));
            uint8_t *p = cf_arena_alloc_aligned(&k->arena, v.len ? v.len : 1, 16);
            CF_CHECK(p != NULL, err, CF_ENOMEM, "compact: out of memory");
            if (v.len)
                memcpy(p, v.data, v.len);
            v.data = p;
            memcpy(slot, &v, sizeof(v));
        }
        cf_buf_append(&o->vals, slot, w);
        if (!o->nn.oom)
            cf_bitmap_put(o->nn.data, k->orows, cl->nonnull);
    }
    k->orows++;
    return CF_OK;
}

static cf_status flush_out(compactor *k, cf_error *err)
{
    if (k->orows == 0)
        return CF_OK;
    cf_colvec cv[CF_SCHEMA_MAX_COLUMNS];
    for (size_t c = 0; c < k->s->ncols; c++) {
        outcol *o = &k->oc[c];
        CF_CHECK(!o->vals.oom && !o->nn.oom && !o->counts.oom && !o->enn.oom, err, CF_ENOMEM,
                 "compact: out of memory");
        cv[c] = (cf_colvec){o->vals.data, o->nn.data,
                            (const uint32_t *)(const void *)o->counts.data, o->enn.data};
    }
    CF_TRY(cf_rowset_writer_append(k->w, cv, k->orows, err));
    for (size_t c = 0; c < k->s->ncols; c++) {
        cf_buf_clear(&k->oc[c].vals);
        cf_buf_clear(&k->oc[c].nn);
        cf_buf_clear(&k->oc[c].counts);
        cf_buf_clear(&k->oc[c].enn);
        k->oc[c].elems = 0;
    }
    k->orows = 0;
    cf_arena_reset(&k->arena);
    return CF_OK;
}

/* One input rowset: its raw base rows (all columns, no deltas) and its delta
 * files as streams read in row order alongside. */
typedef struct csrc {
    cf_rowset *rs;
    cf_rowset_scanner *sc;
    cf_row_batch b;
    size_t i;
    bool eof;
    dstream *ds;
    cf_delta_type *dt;
    size_t nds;
    uint64_t insert_ts;
    cf_buf key; /* encoded key of row i (merges only) */
} csrc;

typedef struct lists {
    ent_list redo, undo_old, undo_new;
} lists;

/* Position src on its next base row (refilling the batch); eof at the end. */
static cf_status src_ready(compactor *k, csrc *src, bool want_key, cf_error *err)
{
    while (!src->eof && src->i >= src->b.count) {
        CF_TRY(cf_rowset_scanner_next(src->sc, &src->b, err));
        src->i = 0;
        src->eof = src->b.count == 0;
    }
    if (src->eof || !want_key)
        return CF_OK;
    cf_buf_clear(&src->key);
    for (size_t c = 0; c < k->s->nkeys; c++) {
        size_t w = cf_type_size(k->s->cols[c].type);
        cf_rs_key_append(&src->key, k->s, c, (const uint8_t *)src->b.cols[c].values + src->i * w);
    }
    CF_CHECK(!src->key.oom, err, CF_ENOMEM, "compact: out of memory");
    return CF_OK;
}

/* Replay one base row's history and emit it (or drop it, see the file comment). */
static cf_status compact_row(compactor *k, csrc *src, lists *l, cf_error *err)
{
    const cf_row_batch *b = &src->b;
    size_t i = src->i;
    uint32_t row = (uint32_t)b->ords[i];
    ent_clear(&l->redo);
    ent_clear(&l->undo_old);
    ent_clear(&l->undo_new);
    for (size_t f = 0; f < src->nds; f++)
        CF_TRY(
            take_row(&src->ds[f], row, src->dt[f] == CF_DELTA_REDO ? &l->redo : &l->undo_old, err));
    /* A row of a rowset inserted after the output's insert_ts did not exist
     * before its own insert: record that as the oldest UNDO (a DELETE), unless
     * its history already ends with one (rows flushed from a MemRowSet). */
    if (src->insert_ts > k->insert_ts) {
        size_t n = l->undo_old.n;
        bool has = n > 0 && l->undo_old.v[n - 1].len > 0 &&
                   ent_rcl(&l->undo_old, n - 1).data[0] == CF_RCL_DELETE;
        if (!has) {
            static const uint8_t del = CF_RCL_DELETE;
            CF_TRY(ent_push(&l->undo_old, src->insert_ts, (cf_slice){&del, 1}, err));
        }
    }
    for (size_t c = 0; c < k->s->ncols; c++) {
        const cf_batch *cb = &b->cols[c];
        cell *cl = &k->row[c];
        cl->nonnull = cb->nonnull == NULL || cf_bitmap_get(cb->nonnull, i);
        memset(cl->slot, 0, sizeof(cl->slot));
        if (k->s->cols[c].is_array) {
            /* Serialized, so change lists can replace it and UNDOs restore it. */
            cf_slice v = {NULL, 0};
            if (cl->nonnull) {
                uint32_t a = cb->elem_offsets[i];
                CF_TRY(cf_rs_cell_from_flat(&k->arena, k->s->cols[c].type, cb->values,
                                            cb->elem_nonnull, a, cb->elem_offsets[i + 1] - a, &v,
                                            err));
            }
            memcpy(cl->slot, &v, sizeof(v));
            continue;
        }
        size_t w = cf_type_size(k->s->cols[c].type);
        memcpy(cl->slot, (const uint8_t *)cb->values + i * w, w);
    }
    bool alive = true;
    uint64_t del_ts = 0;
    for (size_t j = 0; j < l->redo.n; j++) {
        CF_TRY(replay(k, ent_rcl(&l->redo, j), l->redo.v[j].ts, &alive, &l->undo_new, err));
        if (!alive)
            del_ts = l->redo.v[j].ts;
    }
    if (!alive) {
        l->undo_new.n--; /* the final DELETE stays a REDO: no UNDO for it */
        if (del_ts < k->ahm)
            return CF_OK;
    }
    bool any_undo = false;
    for (size_t j = 0; j < l->undo_new.n && !any_undo; j++)
        any_undo = l->undo_new.v[j].ts >= k->ahm;
    for (size_t j = 0; j < l->undo_old.n && !any_undo; j++)
        any_undo = l->undo_old.v[j].ts >= k->ahm;
    if (any_undo) {
        CF_TRY(cf_rs_delta_open(&k->undo, &k->undo_io, k->undo_name, k->outdfd, k->outdir, k->nm,
                                CF_DELTA_UNDO, err));
        for (size_t j = l->undo_new.n; j-- > 0;)
            if (l->undo_new.v[j].ts >= k->ahm)
                CF_TRY(cf_delta_writer_append(k->undo, (uint32_t)k->out_ord, l->undo_new.v[j].ts,
                                              ent_rcl(&l->undo_new, j), err));
        for (size_t j = 0; j < l->undo_old.n; j++)
            if (l->undo_old.v[j].ts >= k->ahm)
                CF_TRY(cf_delta_writer_append(k->undo, (uint32_t)k->out_ord, l->undo_old.v[j].ts,
                                              ent_rcl(&l->undo_old, j), err));
    }
    if (!alive) {
        CF_TRY(cf_rs_delta_open(&k->redo, &k->redo_io, k->redo_name, k->outdfd, k->outdir, k->nm,
                                CF_DELTA_REDO, err));
        static const uint8_t del = CF_RCL_DELETE;
        CF_TRY(cf_delta_writer_append(k->redo, (uint32_t)k->out_ord, del_ts, (cf_slice){&del, 1},
                                      err));
    }
    CF_TRY(emit_row(k, err));
    k->out_ord++;
    return CF_OK;
}

/* Rows of every source in key order (sources hold disjoint keys: the table
 * layer keeps each key in one store), output batches of DS_OUT rows. */
#define DS_OUT 1024

static cf_status compact_rows(compactor *k, csrc *src, size_t n, cf_error *err)
{
    cf_status st = CF_OK;
    lists l;
    memset(&l, 0, sizeof(l));
    cf_buf_init(&l.redo.bytes);
    cf_buf_init(&l.undo_old.bytes);
    cf_buf_init(&l.undo_new.bytes);
    bool merge = n > 1;
    for (size_t s = 0; s < n; s++)
        CF_TRY_OUT(src_ready(k, &src[s], merge, err));
    for (;;) {
        csrc *best = NULL;
        for (size_t s = 0; s < n; s++) {
            if (src[s].eof)
                continue;
            if (best == NULL ||
                cf_rs_bytes_cmp(src[s].key.data, src[s].key.len, best->key.data, best->key.len) < 0)
                best = &src[s];
        }
        if (best == NULL)
            break;
        CF_TRY_OUT(compact_row(k, best, &l, err));
        best->i++;
        /* emit_row copied the row's values, so sources may refill freely. */
        if (k->orows >= DS_OUT)
            CF_TRY_OUT(flush_out(k, err));
        CF_TRY_OUT(src_ready(k, best, merge, err));
    }
    CF_TRY_OUT(flush_out(k, err));
out:
    cf_free(l.redo.v);
    cf_free(l.undo_old.v);
    cf_free(l.undo_new.v);
    cf_buf_dispose(&l.redo.bytes);
    cf_buf_dispose(&l.undo_old.bytes);
    cf_buf_dispose(&l.undo_new.bytes);
    return st;
}

static void src_dispose(csrc *src)
{
    cf_rowset_scanner_free(src->sc);
    for (size_t f = 0; src->ds != NULL && f < src->nds; f++)
        cf_delta_iter_free(src->ds[f].it);
    cf_free(src->ds);
    cf_free(src->dt);
    cf_buf_dispose(&src->key);
}

static cf_status src_open(csrc *src, cf_rowset *rs, cf_error *err)
{
    memset(src, 0, sizeof(*src));
    cf_buf_init(&src->key);
    src->rs = rs;
    src->insert_ts = cf_rs_insert_ts(rs);
    CF_TRY(cf_rs_load(rs, err));
    src->nds = cf_rs_delta_file_count(rs);
    src->ds = cf_calloc(src->nds + 1, sizeof(*src->ds));
    src->dt = cf_calloc(src->nds + 1, sizeof(*src->dt));
    CF_CHECK(src->ds != NULL && src->dt != NULL, err, CF_ENOMEM, "compact: out of memory");
    for (size_t f = 0; f < src->nds; f++) {
        cf_delta_reader *r = cf_rs_delta_file(rs, f, &src->dt[f]);
        CF_TRY(cf_delta_iter_create(&src->ds[f].it, r, err));
        CF_TRY(cf_delta_iter_seek_to_first(src->ds[f].it, err));
    }
    return cf_rowset_scanner_create_ex(&src->sc, rs, NULL, true, false, err);
}

/* Rewrite the n (flushed) sources into new files in outdir, numbered from
 * nm->next_file; adds the files, rows and keys to nm (not written). */
static cf_status compact_into(cf_rowset *const *rs, size_t n, int outdfd, const char *outdir,
                              uint64_t ahm, cf_rs_manifest *nm, cf_error *err)
{
    const cf_schema *s = cf_rowset_schema(rs[0]);
    compactor k;
    memset(&k, 0, sizeof(k));
    k.outdfd = outdfd;
    k.outdir = outdir;
    k.s = s;
    k.ahm = ahm;
    k.nm = nm;
    k.insert_ts = nm->insert_ts;
    csrc *src = cf_calloc(n, sizeof(*src));
    k.row = cf_calloc(s->ncols, sizeof(*k.row));
    k.oc = cf_calloc(s->ncols, sizeof(*k.oc));
    size_t nsrc = 0;
    cf_status st = CF_OK;
    if (src == NULL || k.row == NULL || k.oc == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "compact: out of memory");
    for (size_t c = 0; c < s->ncols; c++) {
        cf_buf_init(&k.oc[c].vals);
        cf_buf_init(&k.oc[c].nn);
        cf_buf_init(&k.oc[c].counts);
        cf_buf_init(&k.oc[c].enn);
    }
    for (; nsrc < n; nsrc++)
        CF_TRY_OUT(src_open(&src[nsrc], rs[nsrc], err));
    CF_TRY_OUT(cf_rcl_builder_create(&k.b, err));
    cf_rowset_writer_options wo;
    cf_rowset_writer_options_init(&wo);
    wo.insert_ts = nm->insert_ts;
    CF_TRY_OUT(cf_rowset_writer_create_in(&k.w, outdfd, outdir, s, &wo, nm, err));
    CF_TRY_OUT(compact_rows(&k, src, n, err));
    CF_TRY_OUT(cf_rowset_writer_finish_files(k.w, nm, err));
    if (k.undo != NULL) {
        CF_TRY_OUT(cf_delta_writer_finish(k.undo, err));
        CF_TRY_OUT(cf_rs_manifest_add(nm, CF_RS_FILE_UNDO, 0, k.undo_name, err));
    }
    if (k.redo != NULL) {
        CF_TRY_OUT(cf_delta_writer_finish(k.redo, err));
        CF_TRY_OUT(cf_rs_manifest_add(nm, CF_RS_FILE_REDO, 0, k.redo_name, err));
    }
    CF_TRY_OUT(cf_schema_clone(&nm->schema, s, err));
out:
    for (size_t i = 0; i < nsrc; i++)
        src_dispose(&src[i]);
    if (src != NULL && nsrc < n)
        src_dispose(&src[nsrc]); /* the one whose open failed */
    cf_free(src);
    cf_free(k.row);
    for (size_t c = 0; k.oc != NULL && c < s->ncols; c++) {
        cf_buf_dispose(&k.oc[c].vals);
        cf_buf_dispose(&k.oc[c].nn);
        cf_buf_dispose(&k.oc[c].counts);
        cf_buf_dispose(&k.oc[c].enn);
    }
    cf_free(k.oc);
    cf_arena_dispose(&k.arena);
    cf_rcl_builder_free(k.b);
    cf_rowset_writer_free(k.w);
    cf_delta_writer_free(k.undo);
    cf_delta_writer_free(k.redo);
    cf_io_free(k.undo_io); /* after the writers; removes what was not committed */
    cf_io_free(k.redo_io);
    return st;
}

/* A compaction in place replaces the MANIFEST and then removes the files the
 * old one named, which a table reader holding the pin may still open: the pin
 * (of the table the rowset belongs to, or of its own directory, the older
 * one-rowset layout) is taken exclusively before anything is written and held
 * to the end, and when a reader holds it the old files are left in place (a
 * leak like a crash's between commit and clean-up; a table's own compaction
 * writes a new rowset directory then, see cf_table_compact). */
cf_status cf_rowset_compact(cf_rowset *rs, uint64_t ahm, cf_error *err)
{
    CF_TRY(cf_rs_writable(rs, err));
    /* the pin of the directory whose LOCK we hold, found from the rowset's
     * descriptor (not by its path) */
    int dfd = cf_rs_dir_use(rs);
    CF_CHECK(dfd != -1, err, CF_EIO, "%s: %s", cf_rs_dir(rs), strerror(errno));
    char *pd;
    int pdfd = cf_rs_lock_dir_open(dfd, cf_rs_dir(rs), &pd);
    int pin = pdfd != -1 ? cf_rs_pin_open_at(pdfd, pd) : -1;
    if (pdfd != dfd)
        cf_rs_dir_close(pdfd);
    cf_rs_dir_done(rs, dfd);
    cf_free(pd);
    CF_CHECK(pdfd != -1, err, CF_ENOMEM, "rowset: out of memory");
    bool gc = cf_rs_pin_exclusive(pin);
    cf_status st = cf_rs_compact_in_place(rs, ahm, gc, err);
    if (pin >= 0)
        close(pin); /* drops the pin */
    return st;
}

cf_status cf_rs_compact_in_place(cf_rowset *rs, uint64_t ahm, bool gc_prev, cf_error *err)
{
    CF_TRY(cf_rs_writable(rs, err));
    CF_TRY(cf_rowset_flush(rs, err));
    const cf_rs_manifest *old = cf_rs_manifest_of(rs);
    cf_rs_manifest nm;
    cf_rs_manifest_init(&nm);
    nm.next_file = old->next_file;
    nm.file_mode = old->file_mode;
    nm.generation = old->generation + 1;
    nm.insert_ts = old->insert_ts;
    nm.last_ts = old->last_ts;
    nm.ahm = ahm > old->ahm ? ahm : old->ahm; /* the mark never moves back */
    int dfd = cf_rs_dir_use(rs);
    if (dfd == -1) {
        cf_rs_manifest_dispose(&nm);
        CF_FAIL(err, CF_EIO, "%s: %s", cf_rs_dir(rs), strerror(errno));
    }
    cf_status st = compact_into(&rs, 1, dfd, cf_rs_dir(rs), ahm, &nm, err);
    /* The commit point: before this rename the old rowset is intact, after it the new. */
    if (st == CF_OK)
        st = cf_rs_manifest_write_at(&nm, dfd, cf_rs_dir(rs), err);
    cf_rs_manifest_dispose(&nm);
    /* The files of the MANIFEST just replaced are what clean-up may remove. */
    cf_rs_manifest prev;
    cf_rs_manifest_init(&prev);
    prev.next_file = old->next_file;
    for (size_t i = 0; st == CF_OK && i < old->nfiles; i++)
        st = cf_rs_manifest_add(&prev, old->files[i].role, old->files[i].col, old->files[i].name,
                                err);
    if (st == CF_OK)
        st = cf_rs_reload(rs, err);
    if (st == CF_OK && gc_prev)
        cf_rs_gc_at(dfd, cf_rs_dir(rs), cf_rs_manifest_of(rs), &prev, prev.next_file);
    cf_rs_manifest_dispose(&prev);
    cf_rs_dir_done(rs, dfd);
    return st;
}

cf_status cf_rs_compact_merge(cf_rowset *const *rs, size_t n, int outdfd, const char *outdir,
                              uint64_t ahm, unsigned mode, cf_error *err)
{
    CF_CHECK(n > 0, err, CF_EINVAL, "compact: no rowset");
    cf_rs_manifest nm;
    cf_rs_manifest_init(&nm);
    nm.file_mode = mode;
    nm.next_file = 1;
    nm.generation = 1;
    nm.ahm = ahm;
    nm.insert_ts = UINT64_MAX;
    cf_status st = CF_OK;
    for (size_t i = 0; i < n; i++) {
        CF_TRY_OUT(cf_rowset_flush(rs[i], err));
        const cf_rs_manifest *m = cf_rs_manifest_of(rs[i]);
        if (!cf_schema_equal(m->schema, cf_rowset_schema(rs[0])))
            CF_FAIL_OUT(err, CF_EINVAL, "compact: rowsets with different schemas");
        if (m->insert_ts < nm.insert_ts)
            nm.insert_ts = m->insert_ts;
        if (m->last_ts > nm.last_ts)
            nm.last_ts = m->last_ts;
        if (m->ahm > nm.ahm) /* a merged source's lost history stays lost */
            nm.ahm = m->ahm;
    }
    CF_TRY_OUT(compact_into(rs, n, outdfd, outdir, ahm, &nm, err));
    CF_TRY_OUT(cf_rs_manifest_write_at(&nm, outdfd, outdir, err));
out:
    cf_rs_manifest_dispose(&nm);
    return st;
}

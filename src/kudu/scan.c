/* The tablet scanner's setup: options checked and copied, the columns' read and
 * write defaults, every rowset opened and the WAL indexed at create, and free.
 * What a scan answers and how the work is split: scan_internal.h. */
#include <string.h>

#include "scan_internal.h"
#include "tablet.h"

#include "util/alloc.h"
#include "util/arena.h"
#include "util/bitmap.h"
#include "util/buf.h"
#include "util/error.h"

/* Memory for the rowsets' batches together, and the fewest rows one reads at a time. */
#define RS_BUDGET ((size_t)32 << 20)
#define RS_MIN_ROWS 64

void cf_kudu_scan_options_init(cf_kudu_scan_options *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->version = CF_KUDU_SCAN_OPTIONS_VERSION;
    opts->as_of = CF_SNAPSHOT_LATEST;
    opts->batch_rows = 1024;
    opts->history_max_age_sec = 7 * 24 * 3600; /* Kudu's --tablet_history_max_age_sec */
}

size_t cf_kudu_scanner_wal_pending(const cf_kudu_scanner *sc, int64_t *first, int64_t *last)
{
    if (first != NULL)
        *first = sc != NULL ? sc->wal_pending_first : 0;
    if (last != NULL)
        *last = sc != NULL ? sc->wal_pending_last : 0;
    return sc != NULL ? sc->wal_pending : 0;
}

void cf_kudu_scanner_free(cf_kudu_scanner *sc)
{
    if (sc == NULL)
        return;
    for (size_t i = 0; sc->rs != NULL && sc->s != NULL && i < sc->nrs; i++)
        cf_kudu_scan_rowset_dispose(sc, &sc->rs[i]);
    cf_free(sc->rs);
    cf_free(sc->heap);
    cf_free(sc->pending);
    for (size_t i = 0; i < sc->nmaps; i++)
        cf_free(sc->maps[i].map);
    cf_free(sc->maps);
    cf_free(sc->ops);
    cf_kudu_wal_free(sc->wal);
    cf_arena_dispose(&sc->wkeys);
    for (size_t j = 0; j < sc->nproj; j++) {
        if (sc->ovals != NULL)
            cf_free(sc->ovals[j]);
        if (sc->onn != NULL)
            cf_free(sc->onn[j]);
    }
    for (size_t j = 0; j < sc->nproj; j++) {
        if (sc->aoffs != NULL)
            cf_buf_dispose(&sc->aoffs[j]);
        if (sc->avals != NULL)
            cf_buf_dispose(&sc->avals[j]);
        if (sc->aenn != NULL)
            cf_buf_dispose(&sc->aenn[j]);
    }
    cf_free(sc->aelems);
    cf_free(sc->aoffs);
    cf_free(sc->avals);
    cf_free(sc->aenn);
    cf_free(sc->ovals);
    cf_free(sc->onn);
    cf_free(sc->out);
    cf_arena_dispose(&sc->obytes);
    cf_free(sc->need);
    cf_free(sc->width);
    cf_free(sc->key_signed);
    cf_free(sc->pwidth);
    cf_free(sc->pbin);
    cf_free(sc->proj);
    cf_free(sc->preds);
    cf_arena_dispose(&sc->parena);
    cf_free(sc->dcols);
    cf_free(sc->tmpn);
    cf_buf_dispose(&sc->kb);
    cf_free(sc->cells);
    cf_free(sc->rdef);
    cf_free(sc->wdef);
    cf_free(sc->immutable);
    cf_free(sc);
}

/* ---- options -------------------------------------------------------------------------------- */

static cf_status copy_options(cf_kudu_scanner *sc, const cf_kudu_scan_options *o, cf_error *err)
{
    const cf_schema *s = sc->s;
    sc->nproj = o->cols != NULL ? o->ncols : s->ncols;
    CF_CHECK(o->cols == NULL || o->ncols > 0, err, CF_EINVAL, "scan: an empty projection");
    sc->proj = cf_calloc(sc->nproj + 1, sizeof(*sc->proj));
    sc->need = cf_calloc(s->ncols + 1, sizeof(*sc->need));
    sc->width = cf_calloc(s->ncols + 1, sizeof(*sc->width));
    sc->pwidth = cf_calloc(sc->nproj + 1, sizeof(*sc->pwidth));
    sc->pbin = cf_calloc(sc->nproj + 1, sizeof(*sc->pbin));
    CF_CHECK(sc->width != NULL && sc->pwidth != NULL && sc->pbin != NULL, err, CF_ENOMEM,
             "scan: out of memory");
    /* An array cell travels through the scan in Kudu's physical form, the bytes of
     * its serialized cell (a slice, as RowChangeLists and the WAL carry it); the
     * output batch gets its elements (scan_merge.c). */
    for (size_t c = 0; c < s->ncols; c++)
        sc->width[c] = s->cols[c].is_array ? sizeof(cf_slice) : cf_type_size(s->cols[c].type);
    sc->key_signed = cf_calloc(s->nkeys + 1, sizeof(*sc->key_signed));
    CF_CHECK(sc->key_signed != NULL, err, CF_ENOMEM, "scan: out of memory");
    for (size_t k = 0; k < s->nkeys; k++) {
        cf_type p = cf_type_physical(s->cols[k].type);
        if (cf_type_is_binary(p)) {
            sc->fixed_key = 0;
            break;
        }
        sc->key_signed[k] = p == CF_TYPE_INT8 || p == CF_TYPE_INT16 || p == CF_TYPE_INT32 ||
                            p == CF_TYPE_INT64 || p == CF_TYPE_INT128;
        sc->fixed_key += sc->width[k];
    }
    sc->preds = cf_calloc(o->npreds + 1, sizeof(*sc->preds));
    CF_CHECK(sc->proj != NULL && sc->need != NULL && sc->preds != NULL, err, CF_ENOMEM,
             "scan: out of memory");
    for (size_t k = 0; k < s->nkeys; k++)
        sc->need[k] = true; /* the merge orders rows by key */
    for (size_t j = 0; j < sc->nproj; j++) {
        size_t c = o->cols != NULL ? o->cols[j] : j;
        CF_CHECK(c < s->ncols, err, CF_EINVAL, "scan: projected column %zu of %zu", c, s->ncols);
        sc->proj[j] = c;
        sc->need[c] = true;
        sc->pwidth[j] = sc->width[c];
        sc->pbin[j] = cf_type_is_binary(s->cols[c].type) && !s->cols[c].is_array;
        sc->proj_arrays |= s->cols[c].is_array;
    }
    sc->npreds = o->npreds;
    for (size_t i = 0; i < o->npreds; i++) {
        const cf_pred *p = &o->preds[i];
        CF_CHECK(p->col < s->ncols, err, CF_EINVAL, "scan: predicate on column %zu of %zu", p->col,
                 s->ncols);
        CF_CHECK(p->op >= CF_PRED_EQ && p->op <= CF_PRED_IS_NOT_NULL, err, CF_EINVAL,
                 "scan: predicate %zu: unknown operator %d", i, (int)p->op);
        const cf_column *c = &s->cols[p->col];
        bool nullop = p->op == CF_PRED_IS_NULL || p->op == CF_PRED_IS_NOT_NULL;
        CF_CHECK(nullop || !c->is_array, err, CF_EINVAL,
                 "scan: array column %s takes only IS [NOT] NULL", c->name);
        CF_CHECK(nullop || p->value != NULL, err, CF_EINVAL, "scan: predicate on %s has no value",
                 c->name);
        sc->preds[i] = *p;
        sc->need[p->col] = true;
        if (nullop)
            continue;
        CF_TRY(cf_rs_pred_value_copy(&sc->parena, c, p->value, &sc->preds[i].value, err));
    }
    return CF_OK;
}

/* One default of the superblock's ColumnSchemaPB (common/wire_protocol.cc writes
 * the value's bytes: a binary value's bytes, else its cf_type_size little-endian
 * bytes) as a cell; binary values point into the superblock. */
static cf_status default_cell(const cf_kudu_scanner *sc, size_t c, protobuf_c_boolean has,
                              ProtobufCBinaryData v, const char *which, cf_mrs_cell *out,
                              cf_error *err)
{
    memset(out, 0, sizeof(*out));
    if (!has)
        return CF_OK;
    const cf_column *col = &sc->s->cols[c];
    if (cf_type_is_binary(col->type) || col->is_array) { /* an array: its serialized cell */
        cf_slice sl = {v.data, v.len};
        memcpy(out->slot, &sl, sizeof(sl));
    } else {
        CF_CHECK(v.len == cf_type_size(col->type), err, CF_ECORRUPT,
                 "%s: column %s: %s of %zu bytes for a %s", cf_kudu_tablet_path(sc->t), col->name,
                 which, v.len, cf_type_name(col->type));
        memcpy(out->slot, v.data, v.len);
    }
    out->nonnull = true;
    return CF_OK;
}

static cf_status load_defaults(cf_kudu_scanner *sc, cf_error *err)
{
    size_t nc = sc->s->ncols;
    sc->rdef = cf_calloc(nc + 1, sizeof(*sc->rdef));
    sc->wdef = cf_calloc(nc + 1, sizeof(*sc->wdef));
    sc->immutable = cf_calloc(nc + 1, sizeof(*sc->immutable));
    CF_CHECK(sc->rdef != NULL && sc->wdef != NULL && sc->immutable != NULL, err, CF_ENOMEM,
             "scan: out of memory");
    const Kudu__Tablet__TabletSuperBlockPB *sb = cf_kudu_tablet_superblock(sc->t);
    const Kudu__SchemaPB *pb = sb != NULL ? sb->schema : NULL;
    if (pb == NULL || pb->n_columns != nc)
        return CF_OK; /* no defaults known (a tablet made in memory) */
    for (size_t c = 0; c < nc; c++) {
        const Kudu__ColumnSchemaPB *cp = pb->columns[c];
        sc->immutable[c] = cp->has_immutable && cp->immutable;
        CF_TRY(default_cell(sc, c, cp->has_read_default_value, cp->read_default_value,
                            "read_default_value", &sc->rdef[c], err));
        CF_TRY(default_cell(sc, c, cp->has_write_default_value, cp->write_default_value,
                            "write_default_value", &sc->wdef[c], err));
    }
    return CF_OK;
}

/* ---- create ---------------------------------------------------------------------------------- */

cf_status cf_kudu_scanner_create(cf_kudu_scanner **out, const cf_kudu_tablet *t,
                                 const cf_kudu_scan_options *opts, cf_error *err)
{
    *out = NULL;
    cf_kudu_scan_options def;
    if (opts == NULL) {
        cf_kudu_scan_options_init(&def);
        opts = &def;
    }
    CF_CHECK(opts->version == CF_KUDU_SCAN_OPTIONS_VERSION, err, CF_EINVAL,
             "scan options: version %u, expected %u (call cf_kudu_scan_options_init)",
             opts->version, CF_KUDU_SCAN_OPTIONS_VERSION);
    const cf_kudu_fs *fs = cf_kudu_tablet_fs(t);
    CF_CHECK(fs != NULL, err, CF_EINVAL, "tablet %s: opened without its server's directories",
             cf_kudu_tablet_id(t));
    cf_kudu_scanner *sc = cf_calloc(1, sizeof(*sc));
    CF_CHECK(sc != NULL, err, CF_ENOMEM, "scan: out of memory");
    cf_status st;
    sc->t = t;
    sc->fs = fs;
    sc->s = cf_kudu_tablet_schema(t);
    sc->snap = opts->as_of;
    sc->batch_rows = opts->batch_rows ? opts->batch_rows : 1024;
    sc->mmap = opts->mmap;
    cf_arena_init(&sc->parena, 0);
    cf_arena_init(&sc->wkeys, 0);
    cf_arena_init(&sc->obytes, 0);
    cf_buf_init(&sc->kb);
    const cf_schema *s = sc->s;
    if (sc->batch_rows > ((size_t)1 << 20))
        CF_FAIL_OUT(err, CF_EINVAL, "scan: batch_rows %zu is more than %zu", sc->batch_rows,
                    (size_t)1 << 20);
    for (size_t c = 0; c < s->ncols; c++)
        if (s->cols[c].is_array &&
            (s->cols[c].type == CF_TYPE_INT128 || s->cols[c].type == CF_TYPE_DECIMAL128))
            CF_FAIL_OUT(err, CF_ENOTSUP,
                        "tablet %s: column %s: arrays of 128-bit %s are not supported: Kudu "
                        "refuses such columns (CatalogManager::CreateTable) and has no "
                        "serialized form for their cells",
                        cf_kudu_tablet_id(t), s->cols[c].name, cf_type_name(s->cols[c].type));
    CF_TRY_OUT(copy_options(sc, opts, err));
    CF_TRY_OUT(load_defaults(sc, err));
    sc->dcols = cf_calloc(s->ncols + 1, sizeof(*sc->dcols));
    sc->cells = cf_calloc(s->ncols + 1, sizeof(*sc->cells));
    /* Each rowset holds one batch of the columns read: with many rowsets, smaller
     * batches keep the whole within RS_BUDGET (never below RS_MIN_ROWS rows). */
    size_t row_bytes = 1;
    for (size_t c = 0; c < s->ncols; c++)
        row_bytes += sc->need[c] ? sc->width[c] + 1 : 0;
    size_t nrs = cf_kudu_tablet_rowset_count(t), live;
    CF_TRY_OUT(cf_kudu_scan_lazy_plan(sc, &live, err));
    size_t cap = RS_BUDGET / ((live ? live : 1) * row_bytes);
    if (cap < RS_MIN_ROWS)
        cap = RS_MIN_ROWS;
    sc->rs_rows = sc->batch_rows < cap ? sc->batch_rows : cap;
    sc->tmpn = cf_malloc(cf_bitmap_bytes(sc->rs_rows));
    sc->ovals = cf_calloc(sc->nproj + 1, sizeof(*sc->ovals));
    sc->onn = cf_calloc(sc->nproj + 1, sizeof(*sc->onn));
    sc->out = cf_calloc(sc->nproj + 1, sizeof(*sc->out));
    sc->aoffs = cf_calloc(sc->nproj + 1, sizeof(*sc->aoffs));
    sc->avals = cf_calloc(sc->nproj + 1, sizeof(*sc->avals));
    sc->aenn = cf_calloc(sc->nproj + 1, sizeof(*sc->aenn));
    sc->aelems = cf_calloc(sc->nproj + 1, sizeof(*sc->aelems));
    if (!sc->dcols || !sc->cells || !sc->tmpn || !sc->ovals || !sc->onn || !sc->out || !sc->aoffs ||
        !sc->avals || !sc->aenn || !sc->aelems)
        CF_FAIL_OUT(err, CF_ENOMEM, "scan: out of memory");
    for (size_t c = 0; c < s->ncols; c++) {
        const cf_column *col = &s->cols[c];
        sc->dcols[c] = (cf_delta_column){cf_kudu_tablet_column_id(t, c), col->name,
                                         /* an array update is its serialized cell
                                          * (Kudu's physical BINARY) */
                                         col->is_array ? CF_TYPE_BINARY : col->type, col->nullable,
                                         c < s->nkeys, col->precision, col->scale, col->length};
    }
    for (size_t j = 0; j < sc->nproj; j++) {
        sc->ovals[j] = cf_malloc(sc->batch_rows * sc->pwidth[j]);
        sc->onn[j] = cf_malloc(cf_bitmap_bytes(sc->batch_rows));
        if (sc->ovals[j] == NULL || sc->onn[j] == NULL)
            CF_FAIL_OUT(err, CF_ENOMEM, "scan: out of memory");
    }
    sc->rs = cf_calloc(nrs + 1, sizeof(*sc->rs));
    sc->heap = cf_calloc(nrs + 1, sizeof(*sc->heap));
    if (sc->rs == NULL || sc->heap == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "scan: out of memory");
    sc->nrs = nrs;
    for (size_t i = 0; i < nrs; i++) {
        const cf_kudu_rowset *m = cf_kudu_tablet_rowset_at(t, i);
        if (rowset_lazy(sc, m))
            continue; /* opened when the merge reaches its min key (scan_lazy.c) */
        CF_TRY_OUT(cf_kudu_scan_rowset_open(sc, &sc->rs[i], m, err));
        CF_TRY_OUT(cf_kudu_scan_rowset_settle(sc, &sc->rs[i], err));
        if (!sc->rs[i].eof)
            cf_kudu_scan_merge_add(sc, &sc->rs[i]);
    }
    if (!opts->no_wal)
        CF_TRY_OUT(cf_kudu_scan_wal_load(sc, err));
    CF_TRY_OUT(cf_kudu_history_check(sc, opts->as_of, opts->history_max_age_sec, err));
    CF_TRY_OUT(cf_kudu_scan_lazy_open(sc, err));
    *out = sc;
    return CF_OK;
out:
    cf_kudu_scanner_free(sc);
    return st;
}

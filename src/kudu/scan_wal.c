/* The WAL's part of a tablet scan: the row ops bootstrap would apply again
 * (replay.h walks them), each with its encoded key, sorted by key and then COMMIT
 * order, so the merge meets every op of a key together; and what one op does to
 * the row of its key (the replayed MemRowSet and DeltaMemStores exist only as this
 * index). */
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "scan_internal.h"
#include "tablet.h"

#include "rowset/internal.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"

/* Where each tablet column is in the ops decoded with schema ws (by Kudu's
 * column id, which a rename keeps: the schema in force when the op was written,
 * the tablet's now being the latest; a column added since is absent, NONE). */
static cf_status map_for(cf_kudu_scanner *sc, const cf_schema *ws, const uint32_t *ids,
                         const size_t **out, cf_error *err)
{
    for (size_t i = 0; i < sc->nmaps; i++)
        if (sc->maps[i].ws == ws && sc->maps[i].ids == ids) {
            *out = sc->maps[i].map;
            return CF_OK;
        }
    wal_colmap *nm = cf_realloc(sc->maps, (sc->nmaps + 1) * sizeof(*nm));
    CF_CHECK(nm != NULL, err, CF_ENOMEM, "scan: out of memory");
    sc->maps = nm;
    size_t *map = cf_calloc(sc->s->ncols + 1, sizeof(*map));
    CF_CHECK(map != NULL, err, CF_ENOMEM, "scan: out of memory");
    sc->maps[sc->nmaps].ws = ws;
    sc->maps[sc->nmaps].ids = ids;
    sc->maps[sc->nmaps].map = map;
    sc->nmaps++;
    size_t nw = ws != NULL ? cf_schema_column_count(ws) : 0;
    for (size_t c = 0; c < sc->s->ncols; c++) {
        const cf_column *col = &sc->s->cols[c];
        int wc = -1;
        if (ids != NULL) {
            uint32_t id = cf_kudu_tablet_column_id(sc->t, c);
            for (size_t j = 0; j < nw && wc < 0; j++)
                if (ids[j] == id)
                    wc = (int)j;
        } else if (ws != NULL) {
            wc = cf_schema_find(ws, col->name);
        }
        map[c] = wc < 0 ? NONE : (size_t)wc;
        if (wc < 0)
            continue;
        const cf_column *wcol = cf_schema_column_at(ws, (size_t)wc);
        CF_CHECK(wcol->type == col->type && wcol->is_array == col->is_array, err, CF_ENOTSUP,
                 "column %s is %s in the WAL and %s in the tablet (an altered column)", col->name,
                 cf_type_name(wcol->type), cf_type_name(col->type));
    }
    *out = map;
    return CF_OK;
}

static bool row_op_kind(cf_kudu_row_op_type t)
{
    switch (t) {
    case CF_KUDU_OP_INSERT:
    case CF_KUDU_OP_INSERT_IGNORE:
    case CF_KUDU_OP_UPSERT:
    case CF_KUDU_OP_UPSERT_IGNORE:
    case CF_KUDU_OP_UPDATE:
    case CF_KUDU_OP_UPDATE_IGNORE:
    case CF_KUDU_OP_DELETE:
    case CF_KUDU_OP_DELETE_IGNORE: return true;
    default: return false; /* split rows and range bounds carry no data */
    }
}

static cf_status collect_op(void *ctx, const cf_kudu_wal_entry *rep,
                            const cf_kudu_wal_entry *commit, size_t i, cf_kudu_op_action act,
                            cf_error *err)
{
    cf_kudu_scanner *sc = ctx;
    (void)commit;
    const cf_kudu_row_op *op = &rep->ops[i];
    bool fresh = act == CF_KUDU_ACT_APPLY_PENDING;
    /* an op run from scratch that Kudu's decoder rejects is a row error, no more */
    if ((act != CF_KUDU_ACT_REPLAY && !fresh) || !row_op_kind(op->type) || (fresh && op->failed))
        return CF_OK;
    const size_t *map;
    CF_TRY(map_for(sc, rep->schema, rep->schema_ids, &map, err));
    cf_buf_clear(&sc->kb);
    for (size_t k = 0; k < sc->s->nkeys; k++) {
        size_t wc = map[k];
        CF_CHECK(wc != NONE && wc < op->ncols && op->set[wc] && op->values[wc] != NULL, err,
                 CF_ECORRUPT, "op %" PRId64 ".%" PRId64 ", row op %zu: no value for key column %s",
                 rep->term, rep->index, i, sc->s->cols[k].name);
        cf_rs_key_append(&sc->kb, sc->s, k, op->values[wc]);
    }
    CF_CHECK(!sc->kb.oom, err, CF_ENOMEM, "scan: out of memory");
    if (sc->nops == sc->capops) {
        size_t cap = sc->capops ? sc->capops * 2 : 256;
        wal_op *n = cf_realloc(sc->ops, cap * sizeof(*n));
        CF_CHECK(n != NULL, err, CF_ENOMEM, "scan: out of memory");
        sc->ops = n;
        sc->capops = cap;
    }
    uint8_t *key = cf_arena_alloc(&sc->wkeys, sc->kb.len ? sc->kb.len : 1);
    CF_CHECK(key != NULL, err, CF_ENOMEM, "scan: out of memory");
    memcpy(key, sc->kb.data, sc->kb.len);
    sc->ops[sc->nops] = (wal_op){key, sc->kb.len, sc->nops, rep->timestamp, op, map, rep, fresh};
    sc->nops++;
    return CF_OK;
}

static int wop_cmp(const void *x, const void *y)
{
    const wal_op *a = x, *b = y;
    int r = key_cmp(a->key, a->klen, b->key, b->klen);
    if (r != 0)
        return r;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

cf_status cf_kudu_scan_wal_load(cf_kudu_scanner *sc, cf_error *err)
{
    CF_TRY(cf_kudu_wal_open(&sc->wal, sc->fs, cf_kudu_tablet_id(sc->t), err));
    cf_kudu_replay_info info;
    CF_TRY(cf_kudu_replay_walk(sc->t, sc->wal, collect_op, sc, &info, err));
    sc->wal_pending = info.npending;
    sc->wal_pending_first = info.first_pending;
    sc->wal_pending_last = info.last_pending;
    if (sc->nops > 1)
        qsort(sc->ops, sc->nops, sizeof(*sc->ops), wop_cmp);
    return CF_OK;
}

/* Set the columns an op sets (keys too when with_key) in the merged row (an
 * array value as a scan_flat over the op's cf_array_cell). */
static cf_status op_set(cf_kudu_scanner *sc, const wal_op *w, bool with_key, cf_error *err)
{
    const cf_kudu_row_op *op = w->op;
    /* An UPSERT of a live row is an UPDATE of the columns it sets; an immutable
     * one it skips (UPSERT_IGNORE; a plain UPSERT failed: Tablet::ApplyUpsertAsUpdate). */
    bool upsert_update =
        !with_key && (op->type == CF_KUDU_OP_UPSERT || op->type == CF_KUDU_OP_UPSERT_IGNORE);
    for (size_t c = with_key ? 0 : sc->s->nkeys; c < sc->s->ncols; c++) {
        size_t wc = w->map[c];
        if (wc == NONE || wc >= op->ncols || !op->set[wc])
            continue;
        if (upsert_update && sc->immutable[c])
            continue;
        cf_mrs_cell *cell = &sc->cells[c];
        memset(cell->slot, 0, sizeof(cell->slot));
        cell->nonnull = op->values[wc] != NULL;
        if (!cell->nonnull)
            continue;
        if (sc->s->cols[c].is_array) {
            /* the op's elements live as long as the scanner (its WAL) */
            const cf_array_cell *a = op->values[wc];
            scan_flat *f = cf_arena_alloc_aligned(&sc->wkeys, sizeof(*f), _Alignof(scan_flat));
            CF_CHECK(f != NULL, err, CF_ENOMEM, "scan: out of memory");
            *f = (scan_flat){a->values, a->nonnull, 0, a->count};
            cf_slice sl = {(const uint8_t *)f, SCAN_FLAT};
            memcpy(cell->slot, &sl, sizeof(sl));
        } else {
            memcpy(cell->slot, op->values[wc], cf_type_size(sc->s->cols[c].type));
        }
    }
    return CF_OK;
}

/* Apply one op to the merged row (*live: whether it exists). An op that cannot
 * apply (an INSERT of a live key, an UPDATE or DELETE of a missing one) did apply
 * before the restart, so the tablet's files disagree with its log: damage, as
 * bootstrap's "Operation which previously succeeded failed during log replay". */
cf_status cf_kudu_scan_wal_apply(cf_kudu_scanner *sc, const wal_op *w, bool *live, cf_error *err)
{
    const char *bad = NULL;
    switch (w->op->type) {
    case CF_KUDU_OP_INSERT:
    case CF_KUDU_OP_INSERT_IGNORE:
    case CF_KUDU_OP_UPSERT:
    case CF_KUDU_OP_UPSERT_IGNORE:
        if (*live) {
            if (w->op->type == CF_KUDU_OP_UPSERT || w->op->type == CF_KUDU_OP_UPSERT_IGNORE)
                CF_TRY(
                    op_set(sc, w, false, err)); /* an UPSERT of a live row updates what it sets */
            else if (w->op->type == CF_KUDU_OP_INSERT)
                bad = "inserts a key that is live";
            break;
        }
        /* A column the op does not set takes its write default, else NULL
         * (common/row_operations.cc decodes an INSERT so); one added to the schema
         * after the op was written reads as its read default, as Kudu projects an
         * older row onto the new schema. */
        memcpy(sc->cells, sc->wdef, sc->s->ncols * sizeof(*sc->cells));
        for (size_t c = 0; c < sc->s->ncols; c++)
            if (w->map[c] == NONE)
                sc->cells[c] = sc->rdef[c];
        CF_TRY(op_set(sc, w, true, err));
        *live = true;
        break;
    case CF_KUDU_OP_UPDATE:
    case CF_KUDU_OP_UPDATE_IGNORE:
        if (*live)
            CF_TRY(op_set(sc, w, false, err));
        else if (w->op->type == CF_KUDU_OP_UPDATE)
            bad = "updates a key that is not live";
        break;
    case CF_KUDU_OP_DELETE:
    case CF_KUDU_OP_DELETE_IGNORE:
        if (*live)
            *live = false;
        else if (w->op->type == CF_KUDU_OP_DELETE)
            bad = "deletes a key that is not live";
        break;
    default: break;
    }
    if (bad != NULL && w->fresh)
        return CF_OK; /* run again from scratch, it gets a row error and changes nothing */
    const cf_kudu_wal_segment *seg = cf_kudu_wal_segment_at(sc->wal, w->rep->segment);
    CF_CHECK(bad == NULL, err, CF_ECORRUPT,
             "%s at offset %" PRIu64 ": replaying op %" PRId64 ".%" PRId64 ": %s %s, but the "
             "tablet's rowsets and earlier ops say otherwise",
             seg != NULL ? seg->path : "wal", w->rep->offset, w->rep->term, w->rep->index,
             cf_kudu_row_op_name(w->op->type), bad);
    return CF_OK;
}

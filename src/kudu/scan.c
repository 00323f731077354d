/* A Kudu tablet as rows, the way the tablet answers a scan after a restart:
 *
 *   DiskRowSets  base columns (CFiles in the block manager) with their UNDO and
 *                REDO DeltaFiles applied at the snapshot (tablet/diskrowset.cc,
 *                delta_tracker.cc: REDOs oldest first, UNDOs newest first as the
 *                superblock lists them), rows that are deleted at the snapshot
 *                dropped;
 *   the WAL      the row ops bootstrap would apply again (bootstrap.c), replayed
 *                per key in COMMIT order on top of whatever the DiskRowSets hold
 *                for that key: an INSERT into an empty slot is a MemRowSet row,
 *                an UPDATE or DELETE of a DiskRowSet row is its DeltaMemStore;
 *   the merge    every source in encoded key order (a live key lives in one store
 *                at a time, tablet.cc), then predicates and projection.
 *
 * MVCC as Kudu's MvccSnapshot(T) (tablet/mvcc.cc): an op is visible when its
 * timestamp is < T; the latest snapshot sees everything.
 *
 * Memory: each DiskRowSet streams one batch at a time of the columns read (key,
 * projection, predicates): batch_rows rows, fewer when many rowsets would pass
 * RS_BUDGET together, plus the bytes of the batch's binary values; the merge is a
 * heap over the rowsets. The WAL is held as cf_kudu_wal reads it (every entry
 * decoded), and the row ops to replay are indexed by key (a pointer and a key copy
 * each): the replayed MemRowSet and DeltaMemStores exist only as that index. So
 * memory is O(rowsets x batch + WAL), never O(tablet rows).
 *
 * Schema changes: a column a rowset has no block for reads as its read default
 * (or NULL); a replayed INSERT that does not set a column takes its write default
 * (or NULL); WAL ops are matched to the tablet's columns by name.
 *
 * History: an --as-of scan undoes what the UNDO files hold. Kudu drops UNDO files
 * older than its ancient history mark (tablet_history_max_age_sec) and the
 * superblock does not record that mark, so a snapshot older than the retained
 * history cannot be told from a valid one: it reads as the oldest state the UNDOs
 * reach, as Kudu itself would read it without its AHM check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "tablet.h"

#include "rowset/internal.h"
#include "rowset/memrowset.h"
#include "util/alloc.h"
#include "util/arena.h"
#include "util/bitmap.h"
#include "util/buf.h"
#include "util/error.h"

#define NONE SIZE_MAX
/* Memory for the rowsets' batches together, and the fewest rows one reads at a time. */
#define RS_BUDGET ((size_t)32 << 20)
#define RS_MIN_ROWS 64

/* Encoded keys compare as byte strings (memcomparable, format §1.8). Most keys are a
 * few bytes: eight at a time as big-endian words, no library call. */
static inline int key_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y) {
            x = __builtin_bswap64(x);
            y = __builtin_bswap64(y);
            return x < y ? -1 : 1;
        }
    }
    for (; i < n; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return alen < blen ? -1 : alen > blen;
}

void cf_kudu_scan_options_init(cf_kudu_scan_options *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->version = CF_KUDU_SCAN_OPTIONS_VERSION;
    opts->as_of = CF_SNAPSHOT_LATEST;
    opts->batch_rows = 1024;
}

/* ---- one DiskRowSet, streamed --------------------------------------------------------------- */

typedef struct drs {
    const cf_kudu_rowset *m;
    uint64_t rows; /* base rows */
    uint64_t next; /* ordinal of the next batch's first row */
    cf_io **cio;   /* per schema column: NULL when not read or not in the rowset */
    cf_reader **crd;
    cf_iter **cit;
    uint64_t *blk; /* per schema column: its block id (0 when not read) */
    size_t nd;     /* delta files applied at the snapshot */
    cf_io **dio;
    cf_delta_reader **drd;
    cf_delta_apply **dap;
    uint8_t **vals, **nn; /* per needed column: the batch's values and validity */
    uint8_t *sel;         /* rows of the batch alive at the snapshot */
    bool streaming;       /* past every other source: rows go out without keys */
    bool fresh;           /* a batch was read since streaming was last ruled out */
    size_t n, i;          /* rows in the batch, the current one */
    cf_arena bytes;       /* the batch's binary values */
    cf_buf key;           /* the current row's encoded key */
    bool eof;
} drs;

/* ---- the WAL's ops to replay, by key -------------------------------------------------------- */

typedef struct wop {
    const uint8_t *key;
    size_t klen;
    uint64_t seq; /* COMMIT order */
    uint64_t ts;
    const cf_kudu_row_op *op;
    const size_t *map; /* tablet column -> the op's column, or NONE */
    const cf_kudu_wal_entry *rep;
} wop;

typedef struct smap {
    const cf_schema *ws;
    size_t *map;
} smap;

struct cf_kudu_scanner {
    const cf_kudu_tablet *t;
    const cf_kudu_fs *fs;
    const cf_schema *s;
    uint64_t snap;
    size_t batch_rows;
    bool *need;        /* columns read: key, projection, predicates */
    size_t *width;     /* per column: cf_type_size */
    size_t fixed_key;  /* the encoded key's length when every key column is fixed-width */
    bool *key_signed;  /* per key column: a signed integer (its sign bit flipped) */
    size_t last_nheap; /* rowsets left when streaming was last ruled out */
    size_t *pwidth;    /* per projected column: its width, and whether it is binary */
    bool *pbin;
    size_t *proj, nproj;
    cf_pred *preds;
    size_t npreds;
    cf_arena parena;
    cf_delta_column *dcols;
    drs *rs;
    size_t nrs;
    size_t rs_rows; /* rows a rowset reads per batch */
    drs **heap;     /* the rowsets not at their end, smallest current key first */
    size_t nheap;
    uint8_t *tmpn; /* validity of one copy_batch call */
    cf_kudu_wal *wal;
    wop *ops;
    size_t nops, capops, oi;
    cf_arena wkeys;
    smap *maps;
    size_t nmaps;
    cf_buf kb;          /* a key being built */
    cf_mrs_cell *cells; /* the row being merged */
    cf_mrs_cell *rdef;  /* per column: its read default (nonnull false: none) */
    cf_mrs_cell *wdef;  /* per column: its write default */
    bool *immutable;    /* per column: ColumnSchemaPB.immutable */
    uint8_t **ovals;    /* per projected column */
    uint8_t **onn;
    cf_batch *out;
    cf_arena obytes;
    bool done;
};

static void drs_dispose(drs *d, size_t ncols)
{
    for (size_t c = 0; c < ncols; c++) {
        if (d->cit != NULL)
            cf_iter_free(d->cit[c]);
        if (d->crd != NULL)
            cf_reader_free(d->crd[c]);
        if (d->cio != NULL)
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

void cf_kudu_scanner_free(cf_kudu_scanner *sc)
{
    if (sc == NULL)
        return;
    size_t ncols = sc->s != NULL ? sc->s->ncols : 0;
    for (size_t i = 0; sc->rs != NULL && i < sc->nrs; i++)
        drs_dispose(&sc->rs[i], ncols);
    cf_free(sc->rs);
    cf_free(sc->heap);
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
    for (size_t c = 0; c < s->ncols; c++)
        sc->width[c] = cf_type_size(s->cols[c].type);
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
        sc->pbin[j] = cf_type_is_binary(s->cols[c].type);
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
        uint8_t *slot = cf_arena_alloc_aligned(&sc->parena, 16, 16);
        CF_CHECK(slot != NULL, err, CF_ENOMEM, "scan: out of memory");
        memset(slot, 0, 16);
        if (cf_type_is_binary(c->type)) {
            cf_slice v;
            memcpy(&v, p->value, sizeof(v));
            uint8_t *b = cf_arena_alloc(&sc->parena, v.len ? v.len : 1);
            CF_CHECK(b != NULL, err, CF_ENOMEM, "scan: out of memory");
            if (v.len)
                memcpy(b, v.data, v.len);
            v.data = b;
            memcpy(slot, &v, sizeof(v));
        } else {
            memcpy(slot, p->value, cf_type_size(c->type));
        }
        sc->preds[i].value = slot;
    }
    for (size_t c = 0; c < s->ncols; c++)
        CF_CHECK(!sc->need[c] || !s->cols[c].is_array, err, CF_ENOTSUP,
                 "scan: array column %s: tablet scans do not read arrays yet (project it away "
                 "with --columns)",
                 s->cols[c].name);
    return CF_OK;
}

/* ---- DiskRowSets ---------------------------------------------------------------------------- */

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
    cf_status st = cf_kudu_fs_open_block(sc->fs, id, true, io, err);
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

static cf_status open_delta(cf_kudu_scanner *sc, drs *d, uint64_t id, cf_delta_type type, size_t k,
                            cf_error *err)
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

static cf_status drs_open(cf_kudu_scanner *sc, drs *d, const cf_kudu_rowset *m, cf_error *err)
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
        d->vals[c] = cf_malloc(sc->rs_rows * cf_type_size(col->type));
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
        CF_TRY(open_block(sc, m, m->column_blocks[b], what, &d->cio[c], err));
        cf_status st = cf_reader_open(&d->crd[c], d->cio[c], NULL, err);
        if (st == CF_OK)
            st = cf_iter_create(&d->cit[c], d->crd[c], err);
        char wb[300];
        if (st != CF_OK)
            return cf_error_prefix(
                err, st, "tablet %s: rowset %" PRIu64 " %s%s: ", cf_kudu_tablet_id(sc->t), m->id,
                what, block_where(sc, m->column_blocks[b], wb, sizeof(wb)));
        const cf_file_info *fi = cf_reader_info(d->crd[c]);
        CF_CHECK(fi->type == col->type || cf_type_physical(fi->type) == cf_type_physical(col->type),
                 err, CF_ECORRUPT,
                 "tablet %s: rowset %" PRIu64 " %s (block %" PRIu64 "): the CFile holds %s, the "
                 "schema says %s",
                 cf_kudu_tablet_id(sc->t), m->id, what, m->column_blocks[b], cf_type_name(fi->type),
                 cf_type_name(col->type));
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

/* Read rows [next, next + n) of needed column c into the batch. */
static cf_status drs_fill_col(cf_kudu_scanner *sc, drs *d, size_t c, size_t n, cf_error *err)
{
    const cf_column *col = &sc->s->cols[c];
    size_t w = cf_type_size(col->type);
    uint8_t *vals = d->vals[c], *nn = d->nn[c];
    if (d->cit[c] == NULL) { /* not in this rowset: its read default, or NULL */
        const cf_mrs_cell *def = &sc->rdef[c];
        for (size_t i = 0; i < n; i++)
            memcpy(vals + i * w, def->slot, w);
        cf_bitmap_fill(nn, 0, n, def->nonnull);
        return CF_OK;
    }
    bool bin = cf_type_is_binary(col->type);
    for (size_t got = 0; got < n;) {
        size_t k = 0;
        cf_status st = cf_iter_copy_batch(d->cit[c], vals + got * w, sc->tmpn, n - got, &k, err);
        char wb[300];
        if (st != CF_OK)
            return cf_error_prefix(
                err, st, "tablet %s: rowset %" PRIu64 " column %s%s: ", cf_kudu_tablet_id(sc->t),
                d->m->id, col->name, block_where(sc, d->blk[c], wb, sizeof(wb)));
        CF_CHECK(k > 0, err, CF_ECORRUPT,
                 "tablet %s: rowset %" PRIu64 " column %s: ends at row %" PRIu64 " of %" PRIu64,
                 cf_kudu_tablet_id(sc->t), d->m->id, col->name, d->next + got, d->rows);
        cf_bitmap_copy(nn, got, sc->tmpn, 0, k);
        if (bin) {
            /* The slices point into the iterator until its next call: keep the
             * bytes for the batch. */
            cf_slice *sl = (cf_slice *)(void *)(vals + got * w);
            for (size_t i = 0; i < k; i++) {
                if (sl[i].len == 0)
                    continue;
                uint8_t *p = cf_arena_alloc(&d->bytes, sl[i].len);
                CF_CHECK(p != NULL, err, CF_ENOMEM, "scan: out of memory");
                memcpy(p, sl[i].data, sl[i].len);
                sl[i].data = p;
            }
        }
        got += k;
    }
    return CF_OK;
}

static cf_status drs_key(cf_kudu_scanner *sc, drs *d, cf_error *err)
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
static cf_status drs_refill(cf_kudu_scanner *sc, drs *d, cf_error *err)
{
    const cf_schema *s = sc->s;
    uint64_t left = d->rows - d->next;
    size_t n = left < sc->rs_rows ? (size_t)left : sc->rs_rows;
    cf_arena_reset(&d->bytes);
    for (size_t c = 0; c < s->ncols; c++)
        if (sc->need[c])
            CF_TRY(drs_fill_col(sc, d, c, n, err));
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
static cf_status drs_settle(cf_kudu_scanner *sc, drs *d, cf_error *err)
{
    for (;;) {
        while (d->i < d->n && !cf_bitmap_get(d->sel, d->i))
            d->i++;
        if (d->i < d->n)
            return d->streaming ? CF_OK : drs_key(sc, d, err);
        if (d->next >= d->rows) {
            d->eof = true;
            return CF_OK;
        }
        CF_TRY(drs_refill(sc, d, err));
    }
}

/* ---- the WAL ----------------------------------------------------------------------------------
 */

/* Where each tablet column is in the ops decoded with schema ws (by name: a WAL
 * segment's schema is the tablet's when the segment was written). */
static cf_status map_for(cf_kudu_scanner *sc, const cf_schema *ws, const size_t **out,
                         cf_error *err)
{
    for (size_t i = 0; i < sc->nmaps; i++)
        if (sc->maps[i].ws == ws) {
            *out = sc->maps[i].map;
            return CF_OK;
        }
    smap *nm = cf_realloc(sc->maps, (sc->nmaps + 1) * sizeof(*nm));
    CF_CHECK(nm != NULL, err, CF_ENOMEM, "scan: out of memory");
    sc->maps = nm;
    size_t *map = cf_calloc(sc->s->ncols + 1, sizeof(*map));
    CF_CHECK(map != NULL, err, CF_ENOMEM, "scan: out of memory");
    sc->maps[sc->nmaps].ws = ws;
    sc->maps[sc->nmaps].map = map;
    sc->nmaps++;
    for (size_t c = 0; c < sc->s->ncols; c++) {
        const cf_column *col = &sc->s->cols[c];
        int wc = ws != NULL ? cf_schema_find(ws, col->name) : -1;
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
    if (act != CF_KUDU_ACT_REPLAY || !row_op_kind(op->type))
        return CF_OK;
    const size_t *map;
    CF_TRY(map_for(sc, rep->schema, &map, err));
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
        wop *n = cf_realloc(sc->ops, cap * sizeof(*n));
        CF_CHECK(n != NULL, err, CF_ENOMEM, "scan: out of memory");
        sc->ops = n;
        sc->capops = cap;
    }
    uint8_t *key = cf_arena_alloc(&sc->wkeys, sc->kb.len ? sc->kb.len : 1);
    CF_CHECK(key != NULL, err, CF_ENOMEM, "scan: out of memory");
    memcpy(key, sc->kb.data, sc->kb.len);
    sc->ops[sc->nops] = (wop){key, sc->kb.len, sc->nops, rep->timestamp, op, map, rep};
    sc->nops++;
    return CF_OK;
}

static int wop_cmp(const void *x, const void *y)
{
    const wop *a = x, *b = y;
    int r = key_cmp(a->key, a->klen, b->key, b->klen);
    if (r != 0)
        return r;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static cf_status load_wal(cf_kudu_scanner *sc, cf_error *err)
{
    CF_TRY(cf_kudu_wal_open(&sc->wal, sc->fs, cf_kudu_tablet_id(sc->t), err));
    CF_TRY(cf_kudu_replay_walk(sc->t, sc->wal, collect_op, sc, err));
    if (sc->nops > 1)
        qsort(sc->ops, sc->nops, sizeof(*sc->ops), wop_cmp);
    return CF_OK;
}

/* Set the columns an op sets (keys too when with_key) in the merged row. */
static void op_set(const cf_kudu_scanner *sc, const wop *w, bool with_key)
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
        if (cell->nonnull)
            memcpy(cell->slot, op->values[wc], cf_type_size(sc->s->cols[c].type));
    }
}

/* Apply one op to the merged row (*live: whether it exists). An op that cannot
 * apply (an INSERT of a live key, an UPDATE or DELETE of a missing one) did apply
 * before the restart, so the tablet's files disagree with its log: damage, as
 * bootstrap's "Operation which previously succeeded failed during log replay". */
static cf_status op_apply(cf_kudu_scanner *sc, const wop *w, bool *live, cf_error *err)
{
    const char *bad = NULL;
    switch (w->op->type) {
    case CF_KUDU_OP_INSERT:
    case CF_KUDU_OP_INSERT_IGNORE:
    case CF_KUDU_OP_UPSERT:
    case CF_KUDU_OP_UPSERT_IGNORE:
        if (*live) {
            if (w->op->type == CF_KUDU_OP_UPSERT || w->op->type == CF_KUDU_OP_UPSERT_IGNORE)
                op_set(sc, w, false); /* an UPSERT of a live row updates the columns it sets */
            else if (w->op->type == CF_KUDU_OP_INSERT)
                bad = "inserts a key that is live";
            break;
        }
        /* A column the op does not set takes its write default, else NULL
         * (common/row_operations.cc decodes an INSERT so). */
        memcpy(sc->cells, sc->wdef, sc->s->ncols * sizeof(*sc->cells));
        op_set(sc, w, true);
        *live = true;
        break;
    case CF_KUDU_OP_UPDATE:
    case CF_KUDU_OP_UPDATE_IGNORE:
        if (*live)
            op_set(sc, w, false);
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
    const cf_kudu_wal_segment *seg = cf_kudu_wal_segment_at(sc->wal, w->rep->segment);
    CF_CHECK(bad == NULL, err, CF_ECORRUPT,
             "%s at offset %" PRIu64 ": replaying op %" PRId64 ".%" PRId64 ": %s %s, but the "
             "tablet's rowsets and earlier ops say otherwise",
             seg != NULL ? seg->path : "wal", w->rep->offset, w->rep->term, w->rep->index,
             cf_kudu_row_op_name(w->op->type), bad);
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
    if (cf_type_is_binary(col->type)) {
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

/* ---- the merge: a heap of rowsets by current key (as Kudu's MergeIterator) ------------------ */

static bool drs_less(const drs *a, const drs *b)
{
    return key_cmp(a->key.data, a->key.len, b->key.data, b->key.len) < 0;
}

static void heap_push(cf_kudu_scanner *sc, drs *d)
{
    size_t i = sc->nheap++;
    while (i > 0 && drs_less(d, sc->heap[(i - 1) / 2])) {
        sc->heap[i] = sc->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    sc->heap[i] = d;
}

/* The top moved on to a larger key, or ended: restore the order. */
static void heap_fix_top(cf_kudu_scanner *sc)
{
    drs *d = sc->heap[0];
    if (d->eof)
        d = sc->heap[--sc->nheap];
    size_t n = sc->nheap, i = 0;
    if (n == 0)
        return;
    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= n)
            break;
        if (k + 1 < n && drs_less(sc->heap[k + 1], sc->heap[k]))
            k++;
        if (!drs_less(sc->heap[k], d))
            break;
        sc->heap[i] = sc->heap[k];
        i = k;
    }
    sc->heap[i] = d;
}

/* ---- create / next ----------------------------------------------------------------------------
 */

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
    cf_arena_init(&sc->parena, 0);
    cf_arena_init(&sc->wkeys, 0);
    cf_arena_init(&sc->obytes, 0);
    cf_buf_init(&sc->kb);
    const cf_schema *s = sc->s;
    if (sc->batch_rows > ((size_t)1 << 20))
        CF_FAIL_OUT(err, CF_EINVAL, "scan: batch_rows %zu is more than %zu", sc->batch_rows,
                    (size_t)1 << 20);
    CF_TRY_OUT(copy_options(sc, opts, err));
    CF_TRY_OUT(load_defaults(sc, err));
    sc->dcols = cf_calloc(s->ncols + 1, sizeof(*sc->dcols));
    sc->cells = cf_calloc(s->ncols + 1, sizeof(*sc->cells));
    /* Each rowset holds one batch of the columns read: with many rowsets, smaller
     * batches keep the whole within RS_BUDGET (never below RS_MIN_ROWS rows). */
    size_t row_bytes = 1;
    for (size_t c = 0; c < s->ncols; c++)
        row_bytes += sc->need[c] ? cf_type_size(s->cols[c].type) + 1 : 0;
    size_t nrs = cf_kudu_tablet_rowset_count(t);
    size_t cap = RS_BUDGET / ((nrs ? nrs : 1) * row_bytes);
    if (cap < RS_MIN_ROWS)
        cap = RS_MIN_ROWS;
    sc->rs_rows = sc->batch_rows < cap ? sc->batch_rows : cap;
    sc->tmpn = cf_malloc(cf_bitmap_bytes(sc->rs_rows));
    sc->ovals = cf_calloc(sc->nproj + 1, sizeof(*sc->ovals));
    sc->onn = cf_calloc(sc->nproj + 1, sizeof(*sc->onn));
    sc->out = cf_calloc(sc->nproj + 1, sizeof(*sc->out));
    if (!sc->dcols || !sc->cells || !sc->tmpn || !sc->ovals || !sc->onn || !sc->out)
        CF_FAIL_OUT(err, CF_ENOMEM, "scan: out of memory");
    for (size_t c = 0; c < s->ncols; c++) {
        const cf_column *col = &s->cols[c];
        sc->dcols[c] = (cf_delta_column){cf_kudu_tablet_column_id(t, c),
                                         col->name,
                                         col->type,
                                         col->nullable,
                                         c < s->nkeys,
                                         col->precision,
                                         col->scale,
                                         col->length};
    }
    for (size_t j = 0; j < sc->nproj; j++) {
        sc->ovals[j] = cf_malloc(sc->batch_rows * cf_type_size(s->cols[sc->proj[j]].type));
        sc->onn[j] = cf_malloc(cf_bitmap_bytes(sc->batch_rows));
        if (sc->ovals[j] == NULL || sc->onn[j] == NULL)
            CF_FAIL_OUT(err, CF_ENOMEM, "scan: out of memory");
    }
    sc->rs = cf_calloc(nrs + 1, sizeof(*sc->rs));
    sc->heap = cf_calloc(nrs + 1, sizeof(*sc->heap));
    if (sc->rs == NULL || sc->heap == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "scan: out of memory");
    for (size_t i = 0; i < nrs; i++) {
        sc->nrs = i + 1;
        CF_TRY_OUT(drs_open(sc, &sc->rs[i], cf_kudu_tablet_rowset_at(t, i), err));
        CF_TRY_OUT(drs_settle(sc, &sc->rs[i], err));
        if (!sc->rs[i].eof)
            heap_push(sc, &sc->rs[i]);
    }
    if (!opts->no_wal)
        CF_TRY_OUT(load_wal(sc, err));
    *out = sc;
    return CF_OK;
out:
    cf_kudu_scanner_free(sc);
    return st;
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
static void drs_row(cf_kudu_scanner *sc, const drs *d)
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
static bool preds_pass_drs(cf_kudu_scanner *sc, const drs *d, size_t i)
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

/* One value into output row r of projected column j (binary bytes copied: the
 * sources move on before the batch is handed out). */
static cf_status put_value(cf_kudu_scanner *sc, size_t j, size_t r, const uint8_t *v, bool nonnull,
                           cf_error *err)
{
    size_t w = sc->pwidth[j];
    uint8_t *dst = sc->ovals[j] + r * w;
    cf_bitmap_put(sc->onn[j], r, nonnull);
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
static cf_status emit_drs(cf_kudu_scanner *sc, const drs *d, size_t i, size_t r, cf_error *err)
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
static bool can_stream(const cf_kudu_scanner *sc, const drs *d)
{
    if (d->m->max_key == NULL)
        return false;
    for (size_t k = 1; k <= 2 && k < sc->nheap; k++) {
        const drs *o = sc->heap[k];
        if (key_cmp(d->m->max_key, d->m->max_key_len, o->key.data, o->key.len) >= 0)
            return false;
    }
    if (sc->oi < sc->nops) {
        const wop *w = &sc->ops[sc->oi];
        if (key_cmp(d->m->max_key, d->m->max_key_len, w->key, w->klen) >= 0)
            return false;
    }
    return true;
}

/* Stream the top rowset's live rows into the output from row r on; *r advances.
 * Stops when the output is full or the rowset ends. Keys are not encoded. */
static cf_status stream_rows(cf_kudu_scanner *sc, drs *d, size_t *r, cf_error *err)
{
    while (*r < sc->batch_rows) {
        if (d->i >= d->n) {
            if (d->next >= d->rows) {
                d->eof = true;
                return CF_OK;
            }
            CF_TRY(drs_refill(sc, d, err));
            continue;
        }
        size_t i = d->i;
        bool live = cf_bitmap_get(d->sel, i);
        size_t run = cf_bitmap_run(d->sel, i, d->n - i);
        if (!live) {
            d->i += run;
            continue;
        }
        if (sc->npreds > 0) {
            /* Row by row: each is tested. */
            d->i++;
            if (preds_pass_drs(sc, d, i))
                CF_TRY(emit_drs(sc, d, i, (*r)++, err));
            continue;
        }
        /* A run of live rows: each column copied as one range. */
        if (run > sc->batch_rows - *r)
            run = sc->batch_rows - *r;
        for (size_t j = 0; j < sc->nproj; j++) {
            size_t c = sc->proj[j], w = sc->width[c];
            memcpy(sc->ovals[j] + *r * w, d->vals[c] + i * w, run * w);
            cf_bitmap_copy(sc->onn[j], *r, d->nn[c], i, run);
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
    size_t r = 0;
    const cf_schema *s = sc->s;
    while (!sc->done && r < sc->batch_rows) {
        drs *base = sc->nheap > 0 ? sc->heap[0] : NULL;
        /* Streaming is tried at the top's batch boundaries and when a rowset ended:
         * not per row, where interleaved rowsets would pay for it every time. */
        if (base != NULL && !base->streaming && (base->fresh || sc->nheap != sc->last_nheap)) {
            sc->last_nheap = sc->nheap;
            base->fresh = false;
            base->streaming = can_stream(sc, base);
        }
        if (base != NULL && base->streaming) {
            CF_TRY(stream_rows(sc, base, &r, err));
            if (base->eof)
                heap_fix_top(sc);
            continue;
        }
        /* The smallest key among the rowsets' current rows and the next replayed op. */
        const uint8_t *min = base != NULL ? base->key.data : NULL;
        size_t mlen = base != NULL ? base->key.len : 0;
        const wop *w = sc->oi < sc->nops ? &sc->ops[sc->oi] : NULL;
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
            if (sc->npreds == 0 || preds_pass_drs(sc, base, base->i))
                CF_TRY(emit_drs(sc, base, base->i, r++, err));
        } else {
            bool live = false;
            if (base != NULL) {
                drs_row(sc, base);
                live = true;
            }
            const uint8_t *k = w->key;
            size_t klen = w->klen;
            while (sc->oi < sc->nops &&
                   key_cmp(sc->ops[sc->oi].key, sc->ops[sc->oi].klen, k, klen) == 0) {
                const wop *o = &sc->ops[sc->oi++];
                if (o->ts < sc->snap)
                    CF_TRY(op_apply(sc, o, &live, err));
            }
            if (live && preds_pass(sc))
                CF_TRY(emit(sc, r++, err));
        }
        if (base != NULL) {
            /* A live key lives in one store at a time (Kudu looks in every rowset
             * before an insert): two rowsets holding it live is damage. The other
             * rowsets' smallest key is at heap[1] or heap[2]. */
            for (size_t k = 1; k <= 2 && k < sc->nheap; k++) {
                const drs *o = sc->heap[k];
                CF_CHECK(key_cmp(o->key.data, o->key.len, base->key.data, base->key.len) != 0, err,
                         CF_ECORRUPT,
                         "tablet %s: rowsets %" PRIu64 " and %" PRIu64
                         " both hold one key live at the snapshot",
                         cf_kudu_tablet_id(sc->t), base->m->id, o->m->id);
            }
            base->i++;
            CF_TRY(drs_settle(sc, base, err));
            heap_fix_top(sc);
        }
    }
    for (size_t j = 0; j < sc->nproj; j++) {
        cf_batch *b = &sc->out[j];
        memset(b, 0, sizeof(*b));
        b->count = r;
        b->values = sc->ovals[j];
        b->nonnull = s->cols[sc->proj[j]].nullable ? sc->onn[j] : NULL;
    }
    out->count = r;
    out->ncols = sc->nproj;
    out->cols = sc->out;
    out->ords = NULL;
    return CF_OK;
}

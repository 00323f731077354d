/* Scanning a table: every store at one snapshot, merged in key order.
 *
 * Each DiskRowSet is read by its own rowset scanner (projection, predicates and
 * snapshot pushed down, the key columns added to the projection so rows can be
 * ordered); MemRowSet rows are materialized at the snapshot and filtered here.
 * Stores never share a key (table.c's opening comment), so the merge compares keys only. Output
 * values are copied as they are (binary ones as slices): a batch ends before a
 * rowset scanner whose rows it holds must refill, so the bytes they point to
 * stay valid until the next call. With a single non-empty rowset and an empty
 * MemRowSet the rowset scanner's batches are handed out as they are.
 *
 * The cost of the merge must not grow with the number of rowsets (a table of
 * many small flushes or imports has hundreds): the sources with a current row
 * sit in a heap by key; a rowset's scanner is created only when the merge
 * reaches its min key (rowsets sorted by it), and freed when it runs out, so
 * rowsets with disjoint key ranges are read one after another with one scanner
 * open; and rows of the smallest source that are all below every other
 * source's next key (the bound) are taken as a run without comparing keys, its
 * whole batch handed out as it is when it starts an output batch.
 */
#include <stdlib.h>
#include <string.h>

#include "memrowset.h"
#include <cfile/team.h>

#include "util/alloc.h"
#include "util/bitmap.h"
#include "util/error.h"
#include "util/int128.h"

typedef struct tsrc {
    cf_rowset_scanner *sc; /* NULL: the MemRowSet, or a rowset not open (yet, or any more) */
    bool mrs;
    cf_rowset *rs;    /* a rowset source's */
    cf_slice min_key; /* its smallest key (the manifest's; empty if unknown: opened first) */
    cf_row_batch b;
    size_t i;
    bool eof;
    const cf_mrs_row *row; /* MemRowSet: the current matching row */
    uint64_t mrs_ord;
    cf_buf key;
} tsrc;

struct cf_table_scanner {
    const cf_schema *s;
    cf_mrs *mrs;
    size_t *proj, nproj; /* the caller's projection */
    size_t *ext, next;   /* the rowset scanners': proj + missing key columns */
    size_t *kpos;        /* key column k's position in ext */
    cf_pred *preds;
    size_t npreds;
    cf_arena parena; /* predicate values */
    uint64_t snap;
    size_t batch_rows;
    cf_rowset_scanner *single;
    tsrc *src;
    size_t nsrc;
    tsrc **heap; /* the sources with a current row, the smallest key on top */
    size_t nheap;
    tsrc **pend; /* the rowset sources by min key; [pnext, npend) not opened yet */
    size_t npend, pnext;
    tsrc *refill;         /* the source whose batch the last output batch used up */
    const tsrc *checked;  /* the top whose batch's last key was last compared with the bound */
    bool tail_below;      /* ... and whether it was below */
    cf_buf tkey;          /* scratch: a key */
    cf_scan_options so;   /* the rowset scanners' options (projection ext, the preds copies) */
    cf_scan_stats closed; /* the sums of the rowset scanners freed */
    size_t closed_pruned, closed_rowsets;
    cf_mrs_cell *cells; /* the MemRowSet's current row */
    uint64_t mrs_examined;
    cf_buf *ovals, *onn;
    cf_buf *ooffs, *oenn; /* array columns: cell offsets (u32) and element validity */
    size_t *oelems;       /* array columns: elements in the batch */
    size_t *width;        /* of each projected column's values */
    cf_batch *out;
    cf_buf ords;
    cf_scan_stats st;
    cf_team *team;      /* threads > 1: shared by the rowset scanners */
    cf_rs_guard *guard; /* its table's (table_guard.c); NULL until registered */
    uint64_t gen;       /* the table's count of changes when it was made */
    cf_table_scanner *live_prev, *live_next; /* the guard's list of live scanners */
};

/* Free what reads the table's stores: the rowset scanners (their delta and block
 * iterators point into the rowsets, which a change may rebuild or free). */
static void release_stores(cf_table_scanner *sc)
{
    cf_rowset_scanner_free(sc->single);
    sc->single = NULL;
    for (size_t i = 0; sc->src != NULL && i < sc->nsrc; i++) {
        cf_rowset_scanner_free(sc->src[i].sc);
        sc->src[i].sc = NULL;
    }
    cf_team_free(sc->team); /* after the scanners that borrow it */
    sc->team = NULL;
}

static void unlink_live(cf_rs_guard *g, cf_table_scanner *sc)
{
    if (sc->live_prev != NULL)
        sc->live_prev->live_next = sc->live_next;
    else if (g->live == sc)
        g->live = sc->live_next;
    if (sc->live_next != NULL)
        sc->live_next->live_prev = sc->live_prev;
    sc->live_prev = sc->live_next = NULL;
}

void cf_rs_guard_detach_scanners(cf_rs_guard *g)
{
    while (g->live != NULL) {
        cf_table_scanner *sc = g->live;
        release_stores(sc);
        unlink_live(g, sc);
    }
}

static void scanner_free(cf_table_scanner *sc)
{
    release_stores(sc);
    for (size_t i = 0; sc->src != NULL && i < sc->nsrc; i++)
        cf_buf_dispose(&sc->src[i].key);
    /* all four or none: a create that failed between them (out of memory)
     * left calloc's zeroes, which dispose takes */
    for (size_t j = 0; sc->ovals != NULL && sc->onn != NULL && sc->ooffs != NULL &&
                       sc->oenn != NULL && j < sc->nproj;
         j++) {
        cf_buf_dispose(&sc->ovals[j]);
        cf_buf_dispose(&sc->onn[j]);
        cf_buf_dispose(&sc->ooffs[j]);
        cf_buf_dispose(&sc->oenn[j]);
    }
    cf_free(sc->ooffs);
    cf_free(sc->oenn);
    cf_free(sc->oelems);
    cf_free(sc->src);
    cf_free(sc->heap);
    cf_free(sc->pend);
    cf_buf_dispose(&sc->tkey);
    cf_free(sc->proj);
    cf_free(sc->ext);
    cf_free(sc->kpos);
    cf_free(sc->preds);
    cf_free(sc->cells);
    cf_free(sc->ovals);
    cf_free(sc->onn);
    cf_free(sc->out);
    cf_buf_dispose(&sc->ords);
    cf_arena_dispose(&sc->parena);
    cf_free(sc->width);
    cf_free(sc);
}

/* ---- MemRowSet rows: predicates ------------------------------------------------------------ */

#define CMP(T)                                                                                     \
    do {                                                                                           \
        T a, b;                                                                                    \
        memcpy(&a, v->slot, sizeof(T));                                                            \
        memcpy(&b, p->value, sizeof(T));                                                           \
        r = a < b ? -1 : a > b ? 1 : 0;                                                            \
        if (a != a || b != b) /* NaN compares false with everything */                             \
            return false;                                                                          \
    } while (0)

bool cf_rs_pred_pass(const cf_column *c, const cf_pred *p, const cf_mrs_cell *v)
{
    if (p->op == CF_PRED_IS_NULL)
        return !v->nonnull;
    if (p->op == CF_PRED_IS_NOT_NULL)
        return v->nonnull;
    if (!v->nonnull)
        return false;
    int r;
    switch (cf_type_physical(c->type)) {
    case CF_TYPE_UINT8:
    case CF_TYPE_BOOL: CMP(uint8_t); break;
    case CF_TYPE_INT8: CMP(int8_t); break;
    case CF_TYPE_UINT16: CMP(uint16_t); break;
    case CF_TYPE_INT16: CMP(int16_t); break;
    case CF_TYPE_UINT32: CMP(uint32_t); break;
    case CF_TYPE_INT32: CMP(int32_t); break;
    case CF_TYPE_UINT64: CMP(uint64_t); break;
    case CF_TYPE_INT64: CMP(int64_t); break;
    case CF_TYPE_INT128: CMP(cf_i128); break;
    case CF_TYPE_FLOAT: CMP(float); break;
    case CF_TYPE_DOUBLE: CMP(double); break;
    default: {
        cf_slice a, b;
        memcpy(&a, v->slot, sizeof(a));
        memcpy(&b, p->value, sizeof(b));
        r = cf_rs_bytes_cmp(a.data, a.len, b.data, b.len);
    }
    }
    switch (p->op) {
    case CF_PRED_EQ: return r == 0;
    case CF_PRED_NE: return r != 0;
    case CF_PRED_LT: return r < 0;
    case CF_PRED_LE: return r <= 0;
    case CF_PRED_GT: return r > 0;
    case CF_PRED_GE: return r >= 0;
    default: return false;
    }
}

/* Advance the MemRowSet source to its next row visible at the snapshot that
 * passes every predicate (starting with `from`). */
static cf_status mrs_advance(cf_table_scanner *sc, tsrc *src, const cf_mrs_row *from, cf_error *err)
{
    for (const cf_mrs_row *r = from; r != NULL; r = cf_mrs_next(r)) {
        sc->mrs_examined++;
        bool visible;
        CF_TRY(cf_mrs_row_at(sc->mrs, r, sc->snap, sc->cells, &visible, err));
        for (size_t i = 0; i < sc->npreds && visible; i++)
            visible = cf_rs_pred_pass(&sc->s->cols[sc->preds[i].col], &sc->preds[i],
                                      &sc->cells[sc->preds[i].col]);
        if (visible) {
            src->row = r;
            cf_slice k = cf_mrs_row_key(r);
            cf_buf_clear(&src->key);
            cf_buf_append(&src->key, k.data, k.len);
            CF_CHECK(!src->key.oom, err, CF_ENOMEM, "scan: out of memory");
            return CF_OK;
        }
    }
    src->row = NULL;
    src->eof = true;
    return CF_OK;
}

/* ---- rowset sources ------------------------------------------------------------------------ */

/* Encoded key of row i of the rowset source's batch, into out. */
static cf_status row_key(cf_table_scanner *sc, const tsrc *src, size_t i, cf_buf *out,
                         cf_error *err)
{
    cf_buf_clear(out);
    for (size_t k = 0; k < sc->s->nkeys; k++) {
        size_t w = cf_type_size(sc->s->cols[k].type);
        cf_rs_key_append(out, sc->s, k, (const uint8_t *)src->b.cols[sc->kpos[k]].values + i * w);
    }
    CF_CHECK(!out->oom, err, CF_ENOMEM, "scan: out of memory");
    return CF_OK;
}

/* Encoded key of the rowset source's current row. */
static cf_status rs_key(cf_table_scanner *sc, tsrc *src, cf_error *err)
{
    return row_key(sc, src, src->i, &src->key, err);
}

/* Refill a rowset source whose batch is used up (its rows must no longer be in
 * an output batch), and key its current row. */
static cf_status rs_ready(cf_table_scanner *sc, tsrc *src, cf_error *err)
{
    while (!src->eof && src->i >= src->b.count) {
        CF_TRY(cf_rowset_scanner_next(src->sc, &src->b, err));
        src->i = 0;
        src->eof = src->b.count == 0;
    }
    return src->eof ? CF_OK : rs_key(sc, src, err);
}

/* ---- the heap of sources -------------------------------------------------------------------- */

static int key_cmp(const cf_buf *a, const cf_buf *b)
{
    return cf_rs_bytes_cmp(a->data, a->len, b->data, b->len);
}

static void heap_push(cf_table_scanner *sc, tsrc *x)
{
    size_t i = sc->nheap++;
    while (i > 0 && key_cmp(&x->key, &sc->heap[(i - 1) / 2]->key) < 0) {
        sc->heap[i] = sc->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    sc->heap[i] = x;
}

/* Put x at the top and sift it down (x: the old top with a larger key, or the last). */
static void heap_sift(cf_table_scanner *sc, tsrc *x)
{
    size_t n = sc->nheap, i = 0;
    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= n)
            break;
        if (k + 1 < n && key_cmp(&sc->heap[k + 1]->key, &sc->heap[k]->key) < 0)
            k++;
        if (key_cmp(&sc->heap[k]->key, &x->key) >= 0)
            break;
        sc->heap[i] = sc->heap[k];
        i = k;
    }
    sc->heap[i] = x;
}

/* Take the top out of the heap (it ran out of rows, or of its batch). */
static void heap_pop(cf_table_scanner *sc)
{
    tsrc *last = sc->heap[--sc->nheap];
    if (sc->nheap > 0)
        heap_sift(sc, last);
}

/* The smallest key another source than the top may hand out next: the smaller
 * of the heap's second row and the next unopened rowset's min key. False when
 * there is none (the top's rows are the last). */
static bool bound_of(const cf_table_scanner *sc, const uint8_t **k, size_t *len)
{
    const cf_buf *b = NULL;
    for (size_t i = 1; i <= 2 && i < sc->nheap; i++)
        if (b == NULL || key_cmp(&sc->heap[i]->key, b) < 0)
            b = &sc->heap[i]->key;
    if (b != NULL) {
        *k = b->data;
        *len = b->len;
    }
    if (sc->pnext < sc->npend) {
        cf_slice m = sc->pend[sc->pnext]->min_key;
        if (b == NULL || cf_rs_bytes_cmp(m.data, m.len, *k, *len) < 0) {
            *k = m.data;
            *len = m.len;
        }
        return true;
    }
    return b != NULL;
}

/* A rowset source's scanner is done: keep its stats, free it (its rows are no
 * longer in an output batch). */
static void close_src(cf_table_scanner *sc, tsrc *src)
{
    const cf_scan_stats *x = cf_rowset_scanner_stats(src->sc);
    sc->closed.rows_in_range += x->rows_in_range;
    sc->closed.rows_examined += x->rows_examined;
    sc->closed.batches_skipped += x->batches_skipped;
    sc->closed.blocks_skipped += x->blocks_skipped;
    sc->closed.rows_skipped += x->rows_skipped;
    sc->closed_pruned += x->bloom_pruned;
    sc->closed_rowsets++;
    cf_rowset_scanner_free(src->sc);
    src->sc = NULL;
}

/* Open a rowset source: its scanner, its first row; into the heap, or closed
 * when no row of it is visible and matches. */
static cf_status open_src(cf_table_scanner *sc, tsrc *src, cf_error *err)
{
    CF_TRY(cf_rowset_scanner_create(&src->sc, src->rs, &sc->so, err));
    if (sc->team != NULL)
        cf_rowset_scanner_set_team(src->sc, sc->team);
    CF_TRY(rs_ready(sc, src, err));
    if (src->eof)
        close_src(sc, src);
    else
        heap_push(sc, src);
    return CF_OK;
}

/* Open every unopened rowset whose min key the merge has reached (no key in
 * the heap is smaller). */
static cf_status open_reached(cf_table_scanner *sc, cf_error *err)
{
    while (sc->pnext < sc->npend) {
        tsrc *p = sc->pend[sc->pnext];
        if (sc->nheap > 0 && cf_rs_bytes_cmp(p->min_key.data, p->min_key.len, sc->heap[0]->key.data,
                                             sc->heap[0]->key.len) > 0)
            break;
        sc->pnext++;
        CF_TRY(open_src(sc, p, err));
    }
    return CF_OK;
}

static int min_key_order(const void *a, const void *b)
{
    const tsrc *x = *(tsrc *const *)a, *y = *(tsrc *const *)b;
    return cf_rs_bytes_cmp(x->min_key.data, x->min_key.len, y->min_key.data, y->min_key.len);
}

/* ---- create ---------------------------------------------------------------------------------- */

static cf_status copy_preds(cf_table_scanner *sc, const cf_scan_options *o, cf_error *err)
{
    sc->npreds = o->npreds;
    sc->preds = cf_calloc(o->npreds + 1, sizeof(*sc->preds));
    CF_CHECK(sc->preds != NULL, err, CF_ENOMEM, "scan: out of memory");
    for (size_t i = 0; i < o->npreds; i++) {
        const cf_pred *p = &o->preds[i];
        sc->preds[i] = *p;
        /* The rowset scanners validate the predicates; copy only what is read here. */
        if (p->col >= sc->s->ncols || p->value == NULL || p->op == CF_PRED_IS_NULL ||
            p->op == CF_PRED_IS_NOT_NULL)
            continue;
        CF_TRY(cf_rs_pred_value_copy(&sc->parena, &sc->s->cols[p->col], p->value,
                                     &sc->preds[i].value, err));
    }
    return CF_OK;
}

cf_status cf_rs_pred_value_copy(cf_arena *a, const cf_column *c, const void *value,
                                const void **out, cf_error *err)
{
    uint8_t *slot = cf_arena_alloc_aligned(a, 16, 16);
    CF_CHECK(slot != NULL, err, CF_ENOMEM, "scan: out of memory");
    memset(slot, 0, 16);
    if (cf_type_is_binary(c->type)) {
        cf_slice v;
        memcpy(&v, value, sizeof(v));
        uint8_t *b = cf_arena_alloc_aligned(a, v.len ? v.len : 1, 16);
        CF_CHECK(b != NULL, err, CF_ENOMEM, "scan: out of memory");
        if (v.len)
            memcpy(b, v.data, v.len);
        v.data = b;
        memcpy(slot, &v, sizeof(v));
    } else {
        memcpy(slot, value, cf_type_size(c->type));
    }
    *out = slot;
    return CF_OK;
}

static cf_status setup_merge(cf_table_scanner *sc, cf_table *t, const cf_scan_options *o,
                             cf_error *err)
{
    const cf_schema *s = sc->s;
    sc->nproj = o->cols != NULL ? o->ncols : s->ncols;
    sc->proj = cf_calloc(sc->nproj + 1, sizeof(size_t));
    sc->ext = cf_calloc(sc->nproj + s->nkeys + 1, sizeof(size_t));
    sc->kpos = cf_calloc(s->nkeys + 1, sizeof(size_t));
    sc->cells = cf_calloc(s->ncols, sizeof(*sc->cells));
    sc->ovals = cf_calloc(sc->nproj + 1, sizeof(cf_buf));
    sc->onn = cf_calloc(sc->nproj + 1, sizeof(cf_buf));
    sc->ooffs = cf_calloc(sc->nproj + 1, sizeof(cf_buf));
    sc->oenn = cf_calloc(sc->nproj + 1, sizeof(cf_buf));
    sc->oelems = cf_calloc(sc->nproj + 1, sizeof(size_t));
    sc->out = cf_calloc(sc->nproj + 1, sizeof(cf_batch));
    sc->width = cf_calloc(sc->nproj + 1, sizeof(size_t));
    size_t nrs = cf_table_rowset_count(t);
    sc->src = cf_calloc(nrs + 1, sizeof(tsrc));
    sc->heap = cf_calloc(nrs + 1, sizeof(tsrc *));
    sc->pend = cf_calloc(nrs + 1, sizeof(tsrc *));
    CF_CHECK(sc->proj && sc->ext && sc->kpos && sc->cells && sc->ovals && sc->onn && sc->out &&
                 sc->src && sc->width && sc->ooffs && sc->oenn && sc->oelems && sc->heap &&
                 sc->pend,
             err, CF_ENOMEM, "scan: out of memory");
    for (size_t j = 0; j < sc->nproj; j++) {
        sc->proj[j] = o->cols != NULL ? o->cols[j] : j;
        CF_CHECK(sc->proj[j] < s->ncols, err, CF_EINVAL, "scan: no column %zu", sc->proj[j]);
        cf_buf_init(&sc->ovals[j]);
        cf_buf_init(&sc->onn[j]);
        sc->width[j] = cf_type_size(s->cols[sc->proj[j]].type);
        sc->ext[sc->next++] = sc->proj[j];
    }
    for (size_t k = 0; k < s->nkeys; k++) {
        size_t at = SIZE_MAX;
        for (size_t j = 0; j < sc->next && at == SIZE_MAX; j++)
            if (sc->ext[j] == k)
                at = j;
        if (at == SIZE_MAX) {
            at = sc->next;
            sc->ext[sc->next++] = k;
        }
        sc->kpos[k] = at;
    }
    CF_TRY(copy_preds(sc, o, err));
    /* Rowset scanners are created later than this call: the options hold only
     * this scanner's copies. */
    cf_scan_options so = *o;
    so.cols = sc->ext;
    so.ncols = sc->next;
    so.preds = sc->preds;
    /* One team for all rowset scanners: they run one at a time (the merge
     * refills one source at a time), so more would only idle. */
    size_t workers;
    CF_TRY(cf_rs_scan_workers(o, sc->next, &workers, err));
    if (workers > 0)
        CF_TRY(cf_team_create(&sc->team, workers, err));
    so.threads = 1;
    sc->so = so;
    for (size_t i = 0; i < nrs; i++) {
        cf_rowset *rs = cf_table_rowset_at(t, i, NULL);
        cf_rowset_info info;
        cf_rowset_get_info(rs, &info);
        if (info.rows == 0)
            continue;
        tsrc *src = &sc->src[sc->nsrc++];
        cf_buf_init(&src->key);
        src->rs = rs;
        src->min_key = info.min_key;
        sc->pend[sc->npend++] = src;
    }
    qsort(sc->pend, sc->npend, sizeof(*sc->pend), min_key_order);
    if (cf_mrs_rows(sc->mrs) > 0) {
        tsrc *src = &sc->src[sc->nsrc++];
        cf_buf_init(&src->key);
        src->mrs = true;
        CF_TRY(mrs_advance(sc, src, cf_mrs_seek(sc->mrs, NULL, 0), err));
        if (!src->eof)
            heap_push(sc, src);
    }
    /* The first rowset now, whatever its keys: what is wrong with the options
     * (projection, predicates) is reported by create, as before. */
    if (sc->npend > 0)
        CF_TRY(open_src(sc, sc->pend[sc->pnext++], err));
    return open_reached(sc, err);
}

void cf_table_scanner_free(cf_table_scanner *sc)
{
    if (sc == NULL)
        return;
    cf_rs_guard *g = sc->guard;
    if (g == NULL) {
        scanner_free(sc);
        return;
    }
    cf_rs_guard_lock(g);
    unlink_live(g, sc);
    scanner_free(sc);
    cf_rs_guard_unlock(g);
}

static cf_status scanner_create(cf_table_scanner **out, cf_table *t, const cf_scan_options *opts,
                                cf_error *err)
{
    *out = NULL;
    cf_scan_options dflt;
    if (opts == NULL) {
        cf_scan_options_init(&dflt);
        opts = &dflt;
    }
    CF_TRY(cf_rs_check_snapshot(opts->snapshot, cf_table_ahm(t), err));
    cf_table_scanner *sc = cf_calloc(1, sizeof(*sc));
    CF_CHECK(sc != NULL, err, CF_ENOMEM, "scan: out of memory");
    cf_buf_init(&sc->ords);
    sc->s = cf_table_schema(t);
    sc->mrs = cf_table_mrs(t);
    sc->snap = opts->snapshot;
    sc->batch_rows = opts->batch_rows ? opts->batch_rows : 1024;
    size_t nonempty = 0, last = 0;
    for (size_t i = 0; i < cf_table_rowset_count(t); i++) {
        cf_rowset_info info;
        cf_rowset_get_info(cf_table_rowset_at(t, i, NULL), &info);
        if (info.rows > 0) {
            nonempty++;
            last = i;
        }
    }
    cf_status st;
    if (nonempty <= 1 && cf_mrs_rows(sc->mrs) == 0)
        st = cf_rowset_scanner_create(&sc->single, cf_table_rowset_at(t, last, NULL), opts, err);
    else
        st = setup_merge(sc, t, opts, err);
    if (st != CF_OK) {
        cf_table_scanner_free(sc);
        return st;
    }
    *out = sc;
    return CF_OK;
}

/* ---- next ------------------------------------------------------------------------------------ */

/* Copy w bytes; the common widths as fixed-size copies the compiler inlines. */
static inline void copy_value(uint8_t *dst, const uint8_t *src, size_t w)
{
    switch (w) {
    case 1: *dst = *src; break;
    case 2: memcpy(dst, src, 2); break;
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    case 16: memcpy(dst, src, 16); break;
    default: memcpy(dst, src, w);
    }
}

/* Cell n of array column j from src's current row: the MemRowSet's serialized
 * cell decoded, or the rowset batch's elements copied. Binary elements keep
 * pointing where they were (the MemRowSet, or the rowset scanner's batch, which
 * outlives this batch: see the top of the file). */
static cf_status put_array(cf_table_scanner *sc, const tsrc *src, size_t r, size_t j, size_t n,
                           cf_error *err)
{
    cf_type type = sc->s->cols[sc->proj[j]].type;
    size_t w = sc->width[j];
    bool nonnull;
    uint32_t k = 0;
    if (src->mrs) {
        const cf_mrs_cell *cell = &sc->cells[sc->proj[j]];
        nonnull = cell->nonnull;
        if (nonnull) {
            cf_slice v;
            memcpy(&v, cell->slot, sizeof(v));
            CF_TRY(
                cf_rs_cell_to_flat(v, type, &sc->ovals[j], &sc->oenn[j], &sc->oelems[j], &k, err));
        }
    } else {
        const cf_batch *b = &src->b.cols[j];
        nonnull = b->nonnull == NULL || cf_bitmap_get(b->nonnull, r);
        uint32_t a = b->elem_offsets[r];
        k = b->elem_offsets[r + 1] - a;
        if (k > 0) /* values may be NULL when the batch holds no elements */
            cf_buf_append(&sc->ovals[j], (const uint8_t *)b->values + (size_t)a * w, (size_t)k * w);
        size_t need = cf_bitmap_bytes(sc->oelems[j] + k);
        if (need > sc->oenn[j].len) {
            size_t old = sc->oenn[j].len;
            uint8_t *q = cf_buf_extend(&sc->oenn[j], need - old);
            if (q != NULL)
                memset(q, 0, need - old);
        }
        if (!sc->oenn[j].oom)
            for (uint32_t e = 0; e < k; e++)
                cf_bitmap_put(sc->oenn[j].data, sc->oelems[j] + e,
                              b->elem_nonnull == NULL || cf_bitmap_get(b->elem_nonnull, a + e));
        sc->oelems[j] += k;
    }
    cf_buf_put_le32(&sc->ooffs[j], (uint32_t)sc->oelems[j]);
    CF_CHECK(!sc->ovals[j].oom && !sc->oenn[j].oom && !sc->ooffs[j].oom, err, CF_ENOMEM,
             "scan: out of memory");
    if (nonnull)
        cf_bitmap_set(sc->onn[j].data, n);
    return CF_OK;
}

/* Row n of the output batch from the MemRowSet's current row (buffers sized for the batch). */
static cf_status put_mrs_row(cf_table_scanner *sc, const tsrc *src, size_t n, cf_error *err)
{
    for (size_t j = 0; j < sc->nproj; j++) {
        if (sc->s->cols[sc->proj[j]].is_array) {
            CF_TRY(put_array(sc, src, 0, j, n, err));
            continue;
        }
        const cf_mrs_cell *cell = &sc->cells[sc->proj[j]];
        copy_value(sc->ovals[j].data + n * sc->width[j], cell->slot, sc->width[j]);
        if (cell->nonnull)
            cf_bitmap_set(sc->onn[j].data, n);
    }
    cf_buf_append(&sc->ords, &src->mrs_ord, sizeof(src->mrs_ord));
    CF_CHECK(!sc->ords.oom, err, CF_ENOMEM, "scan: out of memory");
    return CF_OK;
}

/* Rows [n, n + m) of the output batch from the rowset source's rows [i, i + m). */
static cf_status put_rows(cf_table_scanner *sc, const tsrc *src, size_t n, size_t m, cf_error *err)
{
    size_t i = src->i;
    for (size_t j = 0; j < sc->nproj; j++) {
        const cf_batch *b = &src->b.cols[j];
        if (sc->s->cols[sc->proj[j]].is_array) {
            for (size_t r = 0; r < m; r++)
                CF_TRY(put_array(sc, src, i + r, j, n + r, err));
            continue;
        }
        size_t w = sc->width[j];
        if (m == 1)
            copy_value(sc->ovals[j].data + n * w, (const uint8_t *)b->values + i * w, w);
        else
            memcpy(sc->ovals[j].data + n * w, (const uint8_t *)b->values + i * w, m * w);
        if (b->nonnull == NULL)
            cf_bitmap_fill(sc->onn[j].data, n, m, true);
        else
            cf_bitmap_copy(sc->onn[j].data, n, b->nonnull, i, m);
    }
    cf_buf_append(&sc->ords, src->b.ords + i, m * sizeof(uint64_t));
    CF_CHECK(!sc->ords.oom, err, CF_ENOMEM, "scan: out of memory");
    return CF_OK;
}

cf_status cf_table_scanner_create(cf_table_scanner **out, cf_table *t, const cf_scan_options *opts,
                                  cf_error *err)
{
    cf_rs_guard *g = cf_rs_table_guard(t);
    cf_rs_guard_lock(g);
    cf_status st = scanner_create(out, t, opts, err);
    if (st == CF_OK) {
        (*out)->guard = g;
        (*out)->gen = g->gen;
        (*out)->live_next = g->live;
        if (g->live != NULL)
            g->live->live_prev = *out;
        g->live = *out;
    }
    cf_rs_guard_unlock(g);
    return st;
}

static cf_status scanner_next(cf_table_scanner *sc, cf_row_batch *out, cf_error *err)
{
    if (sc->single != NULL)
        return cf_rowset_scanner_next(sc->single, out, err);
    memset(out, 0, sizeof(*out));
    out->ncols = sc->nproj;
    out->cols = sc->out;
    /* The previous batch is gone: the source it used up may refill now. */
    tsrc *r = sc->refill;
    if (r != NULL) {
        sc->refill = NULL;
        CF_TRY(rs_ready(sc, r, err));
        if (r->eof)
            close_src(sc, r);
        else
            heap_push(sc, r);
    }
    CF_TRY(open_reached(sc, err));
    /* A rowset's batch that starts below every other source's next key and
     * ends there too is the output batch as it is. */
    if (sc->nheap > 0 && !sc->heap[0]->mrs && sc->heap[0]->i == 0) {
        tsrc *top = sc->heap[0];
        const uint8_t *bk;
        size_t bl;
        bool below = !bound_of(sc, &bk, &bl);
        if (!below) {
            CF_TRY(row_key(sc, top, top->b.count - 1, &sc->tkey, err));
            below = cf_rs_bytes_cmp(sc->tkey.data, sc->tkey.len, bk, bl) < 0;
        }
        if (below) {
            out->cols = top->b.cols;
            out->count = top->b.count;
            out->ords = top->b.ords;
            top->i = top->b.count;
            heap_pop(sc);
            sc->refill = top;
            return CF_OK;
        }
    }
    cf_buf_clear(&sc->ords);
    for (size_t j = 0; j < sc->nproj; j++) {
        cf_buf_clear(&sc->ovals[j]);
        cf_buf_clear(&sc->onn[j]);
        cf_buf_clear(&sc->ooffs[j]);
        cf_buf_clear(&sc->oenn[j]);
        sc->oelems[j] = 0;
        cf_buf_put_le32(&sc->ooffs[j], 0);
        uint8_t *nn = cf_buf_extend(&sc->onn[j], cf_bitmap_bytes(sc->batch_rows));
        CF_CHECK(cf_buf_extend(&sc->ovals[j], sc->batch_rows * sc->width[j] + 1) != NULL &&
                     nn != NULL,
                 err, CF_ENOMEM, "scan: out of memory");
        memset(nn, 0, cf_bitmap_bytes(sc->batch_rows));
        if (sc->s->cols[sc->proj[j]].is_array)
            cf_buf_clear(&sc->ovals[j]); /* elements are appended, not placed by row */
    }
    size_t n = 0;
    sc->checked = NULL;
    while (n < sc->batch_rows) {
        CF_TRY(open_reached(sc, err));
        if (sc->nheap == 0)
            break;
        tsrc *best = sc->heap[0];
        const uint8_t *bk;
        size_t bl;
        bool bounded = bound_of(sc, &bk, &bl);
        if (best->mrs) {
            CF_TRY(put_mrs_row(sc, best, n, err));
            n++;
            best->mrs_ord++;
            CF_TRY(mrs_advance(sc, best, cf_mrs_next(best->row), err));
            if (best->eof)
                heap_pop(sc);
            else if (bounded && cf_rs_bytes_cmp(best->key.data, best->key.len, bk, bl) > 0)
                heap_sift(sc, best);
            continue;
        }
        /* All the rest of its batch below the bound: a run, no key compared. */
        if (sc->checked != best) {
            sc->checked = best;
            sc->tail_below = !bounded;
            if (bounded) {
                CF_TRY(row_key(sc, best, best->b.count - 1, &sc->tkey, err));
                sc->tail_below = cf_rs_bytes_cmp(sc->tkey.data, sc->tkey.len, bk, bl) < 0;
            }
        }
        size_t m = 1;
        if (sc->tail_below) {
            m = best->b.count - best->i;
            if (m > sc->batch_rows - n)
                m = sc->batch_rows - n;
        }
        CF_TRY(put_rows(sc, best, n, m, err));
        n += m;
        best->i += m;
        if (best->i >= best->b.count) {
            heap_pop(sc);
            sc->refill = best;
            break; /* its refill would invalidate the rows just copied */
        }
        CF_TRY(rs_key(sc, best, err));
        if (!sc->tail_below && bounded &&
            cf_rs_bytes_cmp(best->key.data, best->key.len, bk, bl) > 0) {
            heap_sift(sc, best);
            sc->checked = NULL;
        }
    }
    for (size_t j = 0; j < sc->nproj; j++) {
        const cf_column *c = &sc->s->cols[sc->proj[j]];
        memset(&sc->out[j], 0, sizeof(sc->out[j]));
        sc->out[j].count = n;
        sc->out[j].values = sc->ovals[j].data;
        sc->out[j].nonnull = c->nullable ? sc->onn[j].data : NULL;
        if (c->is_array) {
            CF_CHECK(!sc->ooffs[j].oom, err, CF_ENOMEM, "scan: out of memory");
            sc->out[j].elem_offsets = (const uint32_t *)(const void *)sc->ooffs[j].data;
            sc->out[j].elem_count = sc->oelems[j];
            sc->out[j].elem_nonnull = sc->oenn[j].data;
        }
    }
    out->count = n;
    out->ords = (const uint64_t *)(const void *)sc->ords.data;
    return CF_OK;
}

cf_status cf_table_scanner_next(cf_table_scanner *sc, cf_row_batch *out, cf_error *err)
{
    memset(out, 0, sizeof(*out));
    cf_rs_guard *g = sc->guard;
    cf_rs_guard_lock(g);
    if (sc->gen != g->gen) {
        cf_rs_guard_unlock(g);
        CF_FAIL(err, CF_ESTATE,
                "scan: the table changed since the scan began (a scanner must be freed before "
                "the next insert, update, delete, flush or compaction)");
    }
    cf_status st = scanner_next(sc, out, err);
    cf_rs_guard_unlock(g);
    return st;
}

size_t cf_rs_table_scanner_open_rowsets(const cf_table_scanner *sc)
{
    size_t n = sc->single != NULL;
    for (size_t i = 0; i < sc->nsrc; i++)
        n += sc->src[i].sc != NULL;
    return n;
}

/* The rowsets the merge has not reached yet (a scan stopped early) count their
 * rows in the key range too, as when every scanner was created up front: each
 * gets a scanner now, which reads nothing but its key index and bloom filter.
 * Not when the table has changed (its rowsets may be gone). */
static void pending_stats(cf_table_scanner *sc, size_t *pruned, size_t *rowsets)
{
    cf_rs_guard *g = sc->guard;
    if (sc->pnext >= sc->npend || g == NULL)
        return;
    cf_rs_guard_lock(g);
    for (size_t i = sc->pnext; sc->gen == g->gen && i < sc->npend; i++) {
        cf_rowset_scanner *x;
        cf_error e;
        if (cf_rowset_scanner_create(&x, sc->pend[i]->rs, &sc->so, &e) != CF_OK)
            continue;
        const cf_scan_stats *xs = cf_rowset_scanner_stats(x);
        sc->st.rows_in_range += xs->rows_in_range;
        *pruned += xs->bloom_pruned;
        ++*rowsets;
        cf_rowset_scanner_free(x);
    }
    cf_rs_guard_unlock(g);
}

const cf_scan_stats *cf_table_scanner_stats(const cf_table_scanner *sc)
{
    if (sc->single != NULL)
        return cf_rowset_scanner_stats(sc->single);
    cf_table_scanner *m = (cf_table_scanner *)sc; /* the sums are computed on demand */
    m->st = sc->closed;
    size_t pruned = sc->closed_pruned, rowsets = sc->closed_rowsets;
    pending_stats(m, &pruned, &rowsets);
    for (size_t i = 0; i < sc->nsrc; i++) {
        if (sc->src[i].sc == NULL)
            continue;
        const cf_scan_stats *x = cf_rowset_scanner_stats(sc->src[i].sc);
        m->st.rows_in_range += x->rows_in_range;
        m->st.rows_examined += x->rows_examined;
        m->st.batches_skipped += x->batches_skipped;
        m->st.blocks_skipped += x->blocks_skipped;
        m->st.rows_skipped += x->rows_skipped;
        pruned += x->bloom_pruned;
        rowsets++;
    }
    m->st.rows_in_range += sc->mrs_examined;
    m->st.rows_examined += sc->mrs_examined;
    m->st.bloom_pruned = rowsets > 0 && pruned == rowsets;
    return &m->st;
}

/* Scanning a rowset: projection, predicates, MVCC snapshots.
 *
 * Per batch of ordinals [cur, cur+n):
 *   1. every delta applier (UNDO files, REDO files, then the DMS) prepares the
 *      batch; DELETE/REINSERT decide which rows exist at the snapshot;
 *   2. predicate columns are read, their deltas applied, the predicates
 *      evaluated on the result (so updated values are what is filtered);
 *   3. only when a row survives are the other projected columns read;
 *   4. surviving rows are packed into the output batch.
 * Key predicates first narrow [lo, hi) through the key index (format §13), and an
 * equality on the whole key asks the bloom filter before anything is read.
 *
 * This file owns the scanner's life (options, create, set_range/set_row, free)
 * and the batch loop with its packing; how the range is found (scan_keys.c),
 * predicates (scan_pred.c), column reads (scan_load.c) and reading ahead with
 * threads (scan_ahead.c) are theirs (scan.h): it calls them and must not reach
 * into a window, an iterator's position or a filter's state itself.
 */
#include <inttypes.h>
#include <string.h>

#include "scan.h"
#include "cfile/internal.h"

#include "util/alloc.h"
#include "util/bitmap.h"
#include "util/error.h"
#include "util/int128.h"

void cf_scan_options_init(cf_scan_options *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->version = CF_SCAN_OPTIONS_VERSION;
    opts->snapshot = CF_SNAPSHOT_LATEST;
    opts->batch_rows = 1024;
    opts->threads = 1;
}

static void col_dispose(rs_col *c)
{
    cf_iter_free(c->it);
    cf_buf_dispose(&c->vals);
    cf_buf_dispose(&c->nn);
    cf_buf_dispose(&c->offs);
    cf_buf_dispose(&c->enn);
    cf_buf_dispose(&c->ovals);
    cf_buf_dispose(&c->onn);
    cf_buf_dispose(&c->ooffs);
    cf_buf_dispose(&c->oenn);
    cf_arena_dispose(&c->arena);
    for (int k = 0; k < 2; k++) {
        cf_buf_dispose(&c->win[k].vals);
        cf_buf_dispose(&c->win[k].nn);
        cf_buf_dispose(&c->win[k].bytes);
    }
}

void cf_rowset_scanner_free(cf_rowset_scanner *sc)
{
    if (sc == NULL)
        return;
    /* A worker may still read a window ahead for this scanner: wait for it
     * before the columns go. */
    cf_rs_scan_settle(sc);
#ifdef CF_SCAN_TRACE
    cf_rs_scan_trace_dump();
#endif
    if (sc->own_team)
        cf_team_free(sc->team);
    cf_free(sc->jobs);
    cf_free(sc->moves);
    cf_free(sc->jst);
    cf_free(sc->jerr);
    for (size_t i = 0; i < sc->ncols; i++)
        col_dispose(&sc->cols[i]);
    for (size_t i = 0; i < sc->nap; i++)
        cf_delta_apply_free(sc->ap[i]);
    cf_free(sc->ap);
    cf_free(sc->ap_pos);
    cf_free(sc->cols);
    cf_free(sc->proj);
    for (size_t i = 0; i < sc->npreds; i++)
        cf_block_filter_free(sc->preds[i].filter);
    cf_free(sc->preds);
    cf_free(sc->out);
    cf_buf_dispose(&sc->sel);
    cf_buf_dispose(&sc->ords);
    cf_arena_dispose(&sc->parena);
    cf_free(sc);
}

static cf_status add_col(cf_rowset_scanner *sc, size_t idx, size_t *out, cf_error *err)
{
    for (size_t i = 0; i < sc->ncols; i++) {
        if (sc->cols[i].idx == idx) {
            *out = i;
            return CF_OK;
        }
    }
    rs_col *c = &sc->cols[sc->ncols];
    memset(c, 0, sizeof(*c));
    c->idx = idx;
    c->c = &sc->s->cols[idx];
    c->width = cf_type_size(c->c->type);
    c->pos = UINT64_MAX;
    cf_buf_init(&c->vals);
    cf_buf_init(&c->nn);
    cf_buf_init(&c->offs);
    cf_buf_init(&c->enn);
    cf_buf_init(&c->ovals);
    cf_buf_init(&c->onn);
    cf_buf_init(&c->ooffs);
    cf_buf_init(&c->oenn);
    for (int k = 0; k < 2; k++) {
        cf_buf_init(&c->win[k].vals);
        cf_buf_init(&c->win[k].nn);
        cf_buf_init(&c->win[k].bytes);
    }
    *out = sc->ncols++;
    if (cf_rs_rows(sc->rs) > 0)
        CF_TRY(cf_iter_create(&c->it, cf_rs_column_reader(sc->rs, idx), err));
    return CF_OK;
}

static void set_fill_cache(cf_rowset_scanner *sc, bool fill)
{
    for (size_t i = 0; i < sc->ncols; i++)
        if (sc->cols[i].it != NULL)
            cf_iter_set_fill_cache(sc->cols[i].it, fill);
}

/* Whether a scan of the whole rowset would only churn the block cache: its
 * columns' files hold more than half of what the cache holds (a scan of less
 * fills it, so that scanning again, or a lookup, finds the blocks there). */
static bool churns_cache(const cf_rowset_scanner *sc)
{
    uint64_t bytes = 0;
    cf_cache *c = NULL;
    for (size_t i = 0; i < sc->ncols; i++) {
        if (sc->cols[i].it == NULL)
            continue;
        const cf_reader *r = cf_rs_column_reader(sc->rs, sc->cols[i].idx);
        c = r->opts.cache;
        bytes += r->info.file_size;
    }
    if (c == NULL)
        return false;
    cf_cache_stats st;
    cf_cache_get_stats(c, &st);
    return bytes > st.capacity / 2;
}

cf_status cf_rowset_scanner_create_ex(cf_rowset_scanner **out, cf_rowset *rs,
                                      const cf_scan_options *o, bool raw, bool include_dms,
                                      cf_error *err)
{
    *out = NULL;
    cf_scan_options dflt;
    if (o == NULL) {
        cf_scan_options_init(&dflt);
        o = &dflt;
    }
    CF_CHECK(o->version == CF_SCAN_OPTIONS_VERSION, err, CF_EINVAL,
             "scan: options.version %u unknown", o->version);
    CF_TRY(cf_rs_load(rs, err));
    const cf_schema *s = cf_rowset_schema(rs);
    cf_rowset_scanner *sc = cf_calloc(1, sizeof(*sc));
    CF_CHECK(sc != NULL, err, CF_ENOMEM, "scan: out of memory");
    bool *changed = NULL, *kchanged = NULL;
    sc->rs = rs;
    sc->s = s;
    sc->raw = raw;
    cf_buf_init(&sc->sel);
    cf_buf_init(&sc->ords);
    sc->batch_rows = o->batch_rows ? o->batch_rows : 1024;
    sc->window_rows = WINDOW_ROWS;
    cf_status st = CF_OK;
    size_t nproj = o->cols ? o->ncols : s->ncols;
    sc->cols = cf_calloc(s->ncols, sizeof(*sc->cols));
    sc->proj = cf_calloc(nproj ? nproj : 1, sizeof(*sc->proj));
    sc->out = cf_calloc(nproj ? nproj : 1, sizeof(*sc->out));
    sc->preds = cf_calloc(o->npreds ? o->npreds : 1, sizeof(*sc->preds));
    if (sc->cols == NULL || sc->proj == NULL || sc->out == NULL || sc->preds == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "scan: out of memory");
    for (size_t i = 0; i < nproj; i++) {
        size_t idx = o->cols ? o->cols[i] : i;
        if (idx >= s->ncols)
            CF_FAIL_OUT(err, CF_EINVAL, "scan: no column %zu (the schema has %zu)", idx, s->ncols);
        CF_TRY_OUT(add_col(sc, idx, &sc->proj[i], err));
    }
    sc->nproj = nproj;
    for (size_t i = 0; i < o->npreds; i++) {
        CF_TRY_OUT(cf_rs_scan_copy_pred(sc, &o->preds[i], &sc->preds[i], err));
        CF_TRY_OUT(add_col(sc, sc->preds[i].col, &sc->preds[i].c, err));
        sc->npreds++;
    }
    size_t workers;
    CF_TRY_OUT(cf_rs_scan_workers(o, sc->ncols, &workers, err));
    sc->jobs = cf_calloc(sc->ncols + 1, sizeof(*sc->jobs));
    sc->jst = cf_calloc(sc->ncols + 1, sizeof(*sc->jst));
    sc->jerr = cf_calloc(sc->ncols + 1, sizeof(*sc->jerr));
    sc->moves = cf_calloc(sc->ncols + 1, sizeof(*sc->moves));
    if (sc->jobs == NULL || sc->jst == NULL || sc->jerr == NULL || sc->moves == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "scan: out of memory");
    if (workers > 0 && cf_rs_rows(rs) > 0) {
        CF_TRY_OUT(cf_team_create(&sc->team, workers, err));
        sc->own_team = true;
    }
    sc->visible = raw || cf_rs_insert_ts(rs) < o->snapshot;
    if (!raw) {
        size_t nd = cf_rs_delta_file_count(rs);
        sc->ap = cf_calloc(nd + 1, sizeof(*sc->ap));
        sc->ap_pos = cf_calloc(nd + 1, sizeof(*sc->ap_pos));
        changed = cf_calloc(s->ncols, sizeof(bool));  /* columns deltas may change */
        kchanged = cf_calloc(s->ncols, sizeof(bool)); /* key columns deltas may set */
        if (sc->ap == NULL || sc->ap_pos == NULL || changed == NULL || kchanged == NULL)
            CF_FAIL_OUT(err, CF_ENOMEM, "scan: out of memory");
        for (size_t i = 0; i <= nd; i++) {
            cf_delta_reader *r;
            if (i < nd) {
                cf_delta_type t;
                r = cf_rs_delta_file(rs, i, &t);
            } else {
                if (!include_dms)
                    break;
                r = cf_rs_dms_reader(rs, err, &st);
                if (st != CF_OK)
                    goto out;
                if (r == NULL)
                    break;
            }
            bool culled;
            CF_TRY_OUT(cf_delta_apply_create(&sc->ap[sc->nap], r, s->dcols, s->ncols, o->snapshot,
                                             &culled, err));
            if (culled) {
                cf_delta_apply_free(sc->ap[sc->nap]);
                sc->ap[sc->nap] = NULL;
                continue;
            }
            sc->ap_pos[sc->nap++] = UINT64_MAX;
            cf_rs_scan_mark_changed(s, r, changed);
            cf_rs_scan_mark_keys_changed(s, r, kchanged);
        }
        CF_TRY_OUT(cf_rs_scan_make_filters(sc, changed, err));
        for (size_t i = 0; i < sc->ncols; i++)
            sc->cols[i].key_fixed = sc->cols[i].idx < s->nkeys && !kchanged[sc->cols[i].idx];
    }
    CF_TRY_OUT(cf_rs_scan_key_range(sc, err));
    /* A scan of the whole rowset reads each block once: when it is larger
     * than the cache can keep, it leaves the cache to what lookups and
     * narrower scans read again (set_range turns filling back on). */
    if (sc->lo == 0 && sc->hi == cf_rs_rows(rs) && churns_cache(sc))
        set_fill_cache(sc, false);
    sc->cur = sc->lo;
    sc->st.rows_in_range = sc->hi - sc->lo;
out:
    cf_free(changed);
    cf_free(kchanged);
    if (st != CF_OK) {
        cf_rowset_scanner_free(sc);
        return st;
    }
    *out = sc;
    return CF_OK;
}

cf_status cf_rowset_scanner_create(cf_rowset_scanner **out, cf_rowset *rs,
                                   const cf_scan_options *opts, cf_error *err)
{
    *out = NULL;
    cf_rowset_info info;
    cf_rowset_get_info(rs, &info);
    CF_TRY(cf_rs_check_snapshot(opts != NULL ? opts->snapshot : CF_SNAPSHOT_LATEST, info.ahm, err));
    return cf_rowset_scanner_create_ex(out, rs, opts, false, true, err);
}

void cf_rowset_scanner_set_row(cf_rowset_scanner *sc, uint64_t ord, const void *const *keyvals)
{
    cf_rowset_scanner_set_range(sc, ord, ord + 1);
    sc->keyvals = keyvals;
}

void cf_rowset_scanner_set_range(cf_rowset_scanner *sc, uint64_t lo, uint64_t hi)
{
    cf_rs_scan_settle(sc);
    set_fill_cache(sc, true);
    sc->keyvals = NULL;
    uint64_t rows = cf_rs_rows(sc->rs);
    sc->lo = lo < rows ? lo : rows;
    sc->hi = hi < rows ? hi : rows;
    if (sc->hi < sc->lo)
        sc->hi = sc->lo;
    sc->cur = sc->lo;
}

void cf_rowset_scanner_set_team(cf_rowset_scanner *sc, cf_team *team)
{
    cf_rs_scan_settle(sc);
    if (sc->own_team)
        cf_team_free(sc->team);
    sc->team = team;
    sc->own_team = false;
}

cf_status cf_rs_scan_workers(const cf_scan_options *o, size_t ncols, size_t *workers, cf_error *err)
{
    size_t t = o->threads;
    *workers = 0;
    if (t == CF_SCAN_THREADS_AUTO)
        t = cf_team_online_cpus(CF_SCAN_MAX_THREADS);
    CF_CHECK(t <= CF_SCAN_MAX_THREADS, err, CF_EINVAL,
             "scan: threads %zu (at most %u, or 0 for one per CPU)", t, CF_SCAN_MAX_THREADS);
    /* Each thread reads whole columns: more threads than columns would idle. */
    if (t > ncols)
        t = ncols;
    *workers = t > 1 ? t - 1 : 0;
    return CF_OK;
}

void cf_rowset_scanner_set_window_rows(cf_rowset_scanner *sc, size_t rows)
{
    sc->window_rows = rows;
}

const cf_scan_stats *cf_rowset_scanner_stats(const cf_rowset_scanner *sc)
{
    return &sc->st;
}

/* ---- output --------------------------------------------------------------------------------- */

static cf_status pack(rs_col *c, const uint8_t *sel, size_t n, size_t count, cf_batch *b,
                      cf_error *err)
{
    memset(b, 0, sizeof(*b));
    b->count = count;
    if (count == n) { /* every row survived: hand out the column buffers */
        b->values = c->bv;
        b->nonnull = c->c->nullable ? c->bnn : NULL;
        if (c->c->is_array) {
            b->elem_offsets = (const uint32_t *)(const void *)c->offs.data;
            b->elem_count = c->elems;
            b->elem_nonnull = c->enn.data;
        }
        return CF_OK;
    }
    cf_buf_clear(&c->ovals);
    cf_buf_clear(&c->onn);
    cf_buf_clear(&c->ooffs);
    cf_buf_clear(&c->oenn);
    uint8_t *onn = cf_buf_extend(&c->onn, cf_bitmap_bytes(count) + 1);
    CF_CHECK(onn != NULL, err, CF_ENOMEM, "scan: out of memory");
    memset(onn, 0, cf_bitmap_bytes(count) + 1);
    size_t j = 0;
    if (!c->c->is_array) {
        uint8_t *dst = cf_buf_extend(&c->ovals, count * c->width + 1);
        CF_CHECK(dst != NULL, err, CF_ENOMEM, "scan: out of memory");
        for (size_t i = 0; i < n; i++) {
            if (!cf_bitmap_get(sel, i))
                continue;
            memcpy(dst + j * c->width, c->bv + i * c->width, c->width);
            cf_bitmap_put(onn, j, cf_bitmap_get(c->bnn, i));
            j++;
        }
    } else {
        cf_buf_put_le32(&c->ooffs, 0);
        size_t ne = 0;
        for (size_t i = 0; i < n; i++) {
            if (!cf_bitmap_get(sel, i))
                continue;
            cf_rs_scan_copy_elems(c, i, &ne, 1);
            cf_buf_put_le32(&c->ooffs, (uint32_t)ne);
            cf_bitmap_put(onn, j, cf_bitmap_get(c->nn.data, i));
            j++;
        }
        CF_CHECK(!c->ovals.oom && !c->ooffs.oom && !c->oenn.oom, err, CF_ENOMEM,
                 "scan: out of memory");
        b->elem_offsets = (const uint32_t *)(const void *)c->ooffs.data;
        b->elem_count = ne;
        b->elem_nonnull = c->oenn.data;
    }
    b->values = c->ovals.data;
    b->nonnull = c->c->nullable ? onn : NULL;
    return CF_OK;
}

cf_status cf_rowset_scanner_next(cf_rowset_scanner *sc, cf_row_batch *out, cf_error *err)
{
    memset(out, 0, sizeof(*out));
    out->ncols = sc->nproj;
    out->cols = sc->out;
#ifdef CF_SCAN_TRACE
    uint64_t t0 = cf_rs_scan_now_ns();
#endif
    while (sc->visible && sc->cur < sc->hi) {
        uint64_t skip_to, end;
        CF_TRY(cf_rs_scan_check_blocks(sc, &skip_to, &end, err));
        if (skip_to > sc->cur) {
            uint64_t to = skip_to < sc->hi ? skip_to : sc->hi;
            sc->st.blocks_skipped++;
            sc->st.rows_skipped += to - sc->cur;
            sc->cur = to;
            continue;
        }
        size_t n = end - sc->cur < sc->batch_rows ? (size_t)(end - sc->cur) : sc->batch_rows;
        cf_buf_clear(&sc->sel);
        uint8_t *sel = cf_buf_extend(&sc->sel, cf_bitmap_bytes(n));
        CF_CHECK(sel != NULL, err, CF_ENOMEM, "scan: out of memory");
        cf_bitmap_fill(sel, 0, n, true);
        for (size_t i = 0; i < sc->nap; i++) {
            if (sc->ap_pos[i] != sc->cur)
                CF_TRY(cf_delta_apply_seek(sc->ap[i], (uint32_t)sc->cur, err));
            CF_TRY(cf_delta_apply_prepare(sc->ap[i], n, err));
            sc->ap_pos[i] = sc->cur + n;
            CF_TRY(cf_delta_apply_deletes(sc->ap[i], sel, err));
        }
        sc->st.rows_examined += n;
        sc->batchno++;
        for (size_t i = 0; i < sc->ncols; i++)
            sc->cols[i].loaded = false;
        size_t count = cf_bitmap_count(sel, 0, n);
        for (size_t i = 0; i < sc->npreds && count > 0; i++) {
            rs_col *c = &sc->cols[sc->preds[i].c];
            CF_TRY(cf_rs_scan_need_col(sc, c, n, end, err));
            cf_rs_scan_eval_pred(&sc->preds[i], c, sel, n);
            count = cf_bitmap_count(sel, 0, n);
        }
        if (count == 0) {
            sc->st.batches_skipped++;
            sc->cur += n;
            continue;
        }
        for (size_t j = 0; j < sc->nproj; j++)
            CF_TRY(cf_rs_scan_need_col(sc, &sc->cols[sc->proj[j]], n, end, err));
        for (size_t j = 0; j < sc->nproj; j++)
            CF_TRY(pack(&sc->cols[sc->proj[j]], sel, n, count, &sc->out[j], err));
        cf_buf_clear(&sc->ords);
        uint64_t *ords = (uint64_t *)(void *)cf_buf_extend(&sc->ords, count * sizeof(uint64_t));
        CF_CHECK(ords != NULL, err, CF_ENOMEM, "scan: out of memory");
        size_t j = 0;
        for (size_t i = 0; i < n; i++)
            if (cf_bitmap_get(sel, i))
                ords[j++] = sc->cur + i;
        out->count = count;
        out->ords = ords;
        sc->cur += n;
        TRACE('N', 0, sc->cur - n, n, t0, cf_rs_scan_now_ns());
        return CF_OK;
    }
    cf_rs_scan_settle(sc); /* the end: no worker reads for this scanner any more */
    return CF_OK;
}

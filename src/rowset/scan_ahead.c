/* Reading ahead with threads for the rowset scanner: each column's two
 * windows, the worker team's jobs (posted, settled, their errors kept back
 * until a batch needs those rows), and need_col, which makes a batch's rows
 * of a column readable from a window or, single-threaded, from scan_load.c.
 * Owns the windows and the team's run; must not evaluate predicates or pack
 * output (scan.h). */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "scan.h"

#include "util/alloc.h"
#include "util/bitmap.h"
#include "util/error.h"
#include "util/int128.h"

uint64_t cf_rs_scan_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- reading ahead with threads ------------------------------------------------------- *
 *
 * A column's blocks hold tens of thousands of rows and are decoded whole when
 * the iterator enters them, and columns of different widths change blocks at
 * different rows: shared out batch by batch, one thread would decode a block
 * while the others copied rows out of blocks already decoded. So with threads
 * the columns are read ahead in windows of many batches (WINDOW_ROWS, cut where
 * block skipping may stop the scan), each batch then taking its rows from the
 * windows and applying its deltas to them as before.
 *
 * Each column has two windows. When a batch needs a column whose window does
 * not hold its rows, that column and every column the last batch needed move
 * on together: to the window read ahead for them if it holds the rows, else
 * to one read now (spread over the team, the caller taking jobs too); and at
 * once the next window of each of them is posted to the team, which reads it
 * while the caller works through this one (and while the caller's caller
 * works through the batches). Workers thus decode window k+1 while batches
 * are taken from window k, and the caller joins in only for what is left
 * when it reaches the end of window k. A window only ever covers rows the
 * single-threaded scan examines; it may read a column for rows that the
 * predicates then reject (which a single thread would not read), so an error
 * there is kept back, and the rows are read again batch by batch if a batch
 * needs them (giving the single thread's result and message). */
/* ... but the windows of a wide scan hold at most about this many bytes of
 * values (slices for strings, whose bytes come on top), two windows per
 * column, never less than a batch. */
#define WINDOW_BYTES ((size_t)16 << 20)

#ifdef CF_SCAN_TRACE
/* Debug builds (-DCF_SCAN_TRACE): a timeline of the threaded reads, appended
 * at scanner free to the file $CF_SCAN_TRACE, one event per line:
 * "thread kind column first_row rows start_ns end_ns" with kind J (a window
 * read, on any thread), W (the caller waiting for, or helping with, windows
 * read ahead), S (the caller reading windows now) or N (one
 * cf_rowset_scanner_next). Not for production: one global buffer. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#define TRACE_MAX ((size_t)1 << 20)
typedef struct trace_ev {
    unsigned tid;
    char kind;
    size_t col;
    uint64_t lo, rows, t0, t1;
} trace_ev;
static trace_ev trace_evs[TRACE_MAX];
static atomic_size_t trace_n;
static atomic_uint trace_tids;
static _Thread_local unsigned trace_tid;

void cf_rs_scan_trace(char kind, size_t col, uint64_t lo, uint64_t rows, uint64_t t0, uint64_t t1)
{
    if (trace_tid == 0)
        trace_tid = atomic_fetch_add(&trace_tids, 1) + 1;
    size_t i = atomic_fetch_add(&trace_n, 1);
    if (i < TRACE_MAX)
        trace_evs[i] = (trace_ev){trace_tid, kind, col, lo, rows, t0, t1};
}

void cf_rs_scan_trace_dump(void)
{
    const char *path = getenv("CF_SCAN_TRACE");
    FILE *f = path != NULL ? fopen(path, "a") : NULL;
    size_t n = atomic_exchange(&trace_n, 0);
    if (f != NULL)
        fprintf(f, "# scanner\n");
    for (size_t i = 0; f != NULL && i < n && i < TRACE_MAX; i++)
        fprintf(f, "%u %c %zu %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", trace_evs[i].tid,
                trace_evs[i].kind, trace_evs[i].col, trace_evs[i].lo, trace_evs[i].rows,
                trace_evs[i].t0, trace_evs[i].t1);
    if (f != NULL)
        fclose(f);
}
#endif

/* Job i: the next window [nlo, nlo + nrows) of the column sc->jobs[i]. */
static cf_status window_job(void *ctx, size_t i, cf_error *err)
{
    cf_rowset_scanner *sc = ctx;
    rs_col *c = &sc->cols[sc->jobs[i]];
    rs_win *w = &c->win[c->cw ^ 1];
    uint64_t t0 = cf_rs_scan_now_ns();
    c->jst = cf_rs_scan_load_into(c, c->nlo, c->nrows, &w->vals, &w->nn, NULL, &w->bytes, &c->jerr);
    c->cost_ns = cf_rs_scan_now_ns() - t0;
    TRACE('J', c->idx, c->nlo, c->nrows, t0, t0 + c->cost_ns);
    (void)err;
    return c->jst;
}

/* Whether the rows [cur, cur+n) of c are in window w. */
static bool in_win(const rs_win *w, uint64_t cur, size_t n)
{
    return w->lo <= cur && cur + n <= w->hi;
}

static bool in_window(const rs_col *c, uint64_t cur, size_t n)
{
    return in_win(&c->win[c->cw], cur, n);
}

/* Post jobs (sc->jobs, the longest first by the last window's times) and
 * mark them busy; the run goes on in the background. */
static void post(cf_rowset_scanner *sc)
{
    for (size_t k = 1; k < sc->njobs; k++) {
        size_t x = sc->jobs[k], m = k;
        for (; m > 0 && sc->cols[sc->jobs[m - 1]].cost_ns < sc->cols[x].cost_ns; m--)
            sc->jobs[m] = sc->jobs[m - 1];
        sc->jobs[m] = x;
    }
    for (size_t k = 0; k < sc->njobs; k++) {
        rs_col *x = &sc->cols[sc->jobs[k]];
        x->busy = true;
        x->next_ok = false;
    }
    sc->ticket = cf_team_start(sc->team, window_job, sc, sc->njobs, sc->jst, sc->jerr);
    sc->inflight = sc->njobs > 0;
}

/* Wait for the posted run (helping with its jobs nobody took) and take in
 * its windows: read (next_ok), or failed (their rows read batch by batch). */
void cf_rs_scan_settle(cf_rowset_scanner *sc)
{
    if (!sc->inflight)
        return;
#ifdef CF_SCAN_TRACE
    uint64_t t0 = cf_rs_scan_now_ns();
#endif
    cf_team_finish(sc->team, sc->ticket);
    TRACE('W', 0, 0, 0, t0, cf_rs_scan_now_ns());
    sc->inflight = false;
    for (size_t k = 0; k < sc->njobs; k++) {
        rs_col *x = &sc->cols[sc->jobs[k]];
        x->busy = false;
        if (x->jst == CF_OK) {
            x->win[x->cw ^ 1].lo = x->nlo;
            x->win[x->cw ^ 1].hi = x->nlo + x->nrows;
            x->next_ok = true;
        } else {
            if (x->wbad_hi < x->nlo + x->nrows)
                x->wbad_hi = x->nlo + x->nrows;
            x->pos = UINT64_MAX; /* where the failure left the iterator is unknown */
            x->jst = CF_OK;
        }
    }
    sc->njobs = 0;
}

/* Move c and every column the last batch needed that has no window at cur
 * to one that has (read ahead, or read now), then post the reads of their
 * next windows; `end` = where the scan may stop (block skipping). */
static void advance(cf_rowset_scanner *sc, rs_col *c, size_t n, uint64_t end)
{
    cf_rs_scan_settle(sc);
    uint64_t cur = sc->cur;
    size_t row_bytes = 0;
    for (size_t i = 0; i < sc->ncols; i++)
        row_bytes += sc->cols[i].width;
    size_t want = sc->window_rows;
    if (row_bytes > 0 && WINDOW_BYTES / 2 / row_bytes < want)
        want = WINDOW_BYTES / 2 / row_bytes;
    size_t rows = sc->batch_rows < want ? want / sc->batch_rows * sc->batch_rows : sc->batch_rows;
    /* the columns that move on: read ahead, or read now (jobs) */
    bool *moves = sc->moves;
    for (size_t i = 0; i < sc->ncols; i++) {
        rs_col *x = &sc->cols[i];
        /* needed by the last batch or this one; at the start, every column */
        bool hot = x->used + 1 >= sc->batchno || (x->used == 0 && sc->batchno == 1);
        moves[i] = x == c || (hot && !x->c->is_array && !x->loaded && !in_window(x, cur, n) &&
                              cur >= x->wbad_hi);
        if (!moves[i])
            continue;
        if (x->next_ok && in_win(&x->win[x->cw ^ 1], cur, n)) {
            x->cw ^= 1;
            x->next_ok = false;
        } else {
            x->nlo = cur;
            x->nrows = rows < end - cur ? rows : (size_t)(end - cur);
            sc->jobs[sc->njobs++] = i;
        }
    }
    if (sc->njobs > 0) {
#ifdef CF_SCAN_TRACE
        uint64_t t0 = cf_rs_scan_now_ns();
#endif
        post(sc);
        cf_rs_scan_settle(sc);
        TRACE('S', 0, cur, rows, t0, cf_rs_scan_now_ns());
        for (size_t i = 0; i < sc->ncols; i++) {
            rs_col *x = &sc->cols[i];
            if (moves[i] && x->next_ok && in_win(&x->win[x->cw ^ 1], cur, n)) {
                x->cw ^= 1;
                x->next_ok = false;
            }
        }
    }
    /* Read ahead: the next window of every column that moved, up to where
     * block skipping may stop the scan (a window ends on a batch boundary
     * there, or at a multiple of the batch rows). */
    for (size_t i = 0; i < sc->ncols; i++) {
        rs_col *x = &sc->cols[i];
        uint64_t hi = x->win[x->cw].hi;
        if (!moves[i] || !in_window(x, cur, n) || hi >= end)
            continue;
        x->nlo = hi;
        x->nrows = rows < end - hi ? rows : (size_t)(end - hi);
        sc->jobs[sc->njobs++] = i;
    }
    if (sc->njobs > 0)
        post(sc);
}

/* Make the batch's rows of column c (n rows at sc->cur) readable at c->bv /
 * c->bnn with the deltas applied, once per batch. */
cf_status cf_rs_scan_need_col(cf_rowset_scanner *sc, rs_col *c, size_t n, uint64_t end,
                              cf_error *err)
{
    if (c->loaded)
        return CF_OK;
    c->used = sc->batchno;
    uint64_t cur = sc->cur;
    if (sc->team == NULL || c->c->is_array || (sc->keyvals != NULL && c->key_fixed))
        return cf_rs_scan_load_and_apply(sc, c, n, err);
    if (!in_window(c, cur, n)) {
        cf_rs_scan_settle(sc); /* c's next window may be on its way */
        if (cur < c->wbad_hi)
            return cf_rs_scan_load_and_apply(sc, c, n, err);
        advance(sc, c, n, end);
        if (!in_window(c, cur, n))
            return cf_rs_scan_load_and_apply(sc, c, n,
                                             err); /* the window failed: as a single thread */
    }
    const rs_win *w = &c->win[c->cw];
    uint64_t off = cur - w->lo;
    c->bv = w->vals.data + off * c->width;
    if (off % 8 == 0) {
        c->bnn = w->nn.data + off / 8;
    } else { /* the deltas and the output want the batch's bits from bit 0 */
        cf_buf_clear(&c->nn);
        uint8_t *nn = cf_buf_extend(&c->nn, cf_bitmap_bytes(n));
        CF_CHECK(nn != NULL, err, CF_ENOMEM, "scan: out of memory");
        cf_bitmap_copy(nn, 0, w->nn.data, (size_t)off, n);
        c->bnn = nn;
    }
    c->loaded = true;
    for (size_t i = 0; i < sc->nap; i++)
        CF_TRY(cf_delta_apply_updates(sc->ap[i], c->idx, c->bv, c->bnn, err));
    return CF_OK;
}

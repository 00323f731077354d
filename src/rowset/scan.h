/* The rowset scanner's state, shared by the files that implement it
 * (src/rowset/scan*.c): one concept each, named by the file.
 *
 *   scan.c        the scanner's life: options, create (projection, delta
 *                 appliers, snapshot), set_range/set_row, free; the batch loop
 *                 (cf_rowset_scanner_next) and packing the surviving rows
 *   scan_keys.c   key predicates to the ordinal range [lo, hi) (key index,
 *                 bloom filter for an equality on the whole key)
 *   scan_pred.c   predicates: copied at create, block skipping (filters, the
 *                 delta statistics that allow it), evaluation on a batch
 *   scan_load.c   reading one column's rows for a batch or a window: the
 *                 iterator, binary bytes copied out, deltas applied
 *   scan_ahead.c  reading ahead with threads: the two windows per column, the
 *                 team's jobs, settle/advance, need_col
 *
 * Only these files see this header; everything else goes through
 * include/cfile/rowset.h and src/rowset/internal.h. */
#ifndef CF_ROWSET_SCAN_H
#define CF_ROWSET_SCAN_H

#include "internal.h"
#include <cfile/team.h>

#include "util/arena.h"
#include "util/buf.h"

/* Rows a column is read ahead by with threads (see "reading ahead"). */
#ifndef WINDOW_ROWS
#define WINDOW_ROWS 8192
#endif

/* a OP b for the comparison operators. */
#define TEST_OP(op, a, b)                                                                          \
    ((op) == CF_PRED_EQ   ? (a) == (b)                                                             \
     : (op) == CF_PRED_NE ? (a) != (b)                                                             \
     : (op) == CF_PRED_LT ? (a) < (b)                                                              \
     : (op) == CF_PRED_LE ? (a) <= (b)                                                             \
     : (op) == CF_PRED_GT ? (a) > (b)                                                              \
                          : (a) >= (b))

/* Rows [lo, hi) of a column read ahead (threads). */
typedef struct rs_win {
    cf_buf vals, nn, bytes;
    uint64_t lo, hi;
} rs_win;

typedef struct rs_col {
    size_t idx;
    const cf_column *c;
    size_t width;
    cf_iter *it;
    uint64_t pos;
    bool loaded;
    cf_buf vals, nn, offs, enn;
    size_t elems;
    cf_arena arena;
    cf_buf ovals, onn, ooffs, oenn;
    /* The batch's rows as the predicates and the output see them: vals/nn,
     * or a slice of the window. */
    uint8_t *bv, *bnn;
    /* Threads (team != NULL, not arrays): two windows of rows read ahead, each
     * with its own copies of binary bytes: win[cw] the one batches take rows
     * from, the other being read (busy: by a run of the team that may still be
     * going, into rows [nlo, nlo + nrows)) or read (next_ok). Rows before
     * wbad_hi are read batch by batch again, because a window read there
     * failed (the error is reported only if a batch really needs those rows,
     * and then as a single thread would report it). used = the batch that
     * last needed the column. While busy, only the job touches it, iterator
     * included. */
    rs_win win[2];
    unsigned cw;
    bool busy, next_ok;
    uint64_t nlo;
    size_t nrows;
    uint64_t wbad_hi, used;
    /* the last window read: nanoseconds taken (the longest go first), status, error */
    uint64_t cost_ns;
    cf_status jst;
    cf_error jerr;
    /* A key column no delta visible to this scanner changes: a point lookup
     * (cf_rowset_scanner_set_row) hands its value in, so the column is not read. */
    bool key_fixed;
} rs_col;

typedef struct rs_pred {
    size_t c; /* index into sc->cols */
    size_t col;
    cf_pred_op op;
    cf_type phys;
    _Alignas(16) uint8_t slot[16];
    /* Block skipping (filter != NULL): [ok_lo, ok_hi) is the last block of the
     * column found to hold possible matches. */
    cf_block_filter *filter;
    uint64_t ok_lo, ok_hi;
} rs_pred;

struct cf_rowset_scanner {
    cf_rowset *rs;
    const cf_schema *s;
    rs_col *cols;
    size_t ncols;
    size_t *proj;
    size_t nproj;
    rs_pred *preds;
    size_t npreds;
    cf_arena parena;
    cf_delta_apply **ap;
    uint64_t *ap_pos;
    size_t nap;
    uint64_t lo, hi, cur;
    bool visible, raw;
    size_t batch_rows;
    cf_buf sel;
    cf_batch *out;
    cf_buf ords;
    cf_scan_stats st;
    /* Column reads shared with worker threads (threads > 1): the team (owned,
     * or a table scanner's); the columns of the windows being read (jobs), the
     * run's ticket while it may be going (inflight), and the team's status and
     * error slots for them (each column also keeps its own, which is what is
     * read back). */
    cf_team *team;
    bool own_team, inflight;
    size_t *jobs, njobs;
    bool *moves; /* advance: per column */
    uint64_t ticket;
    uint64_t batchno;   /* batches so far */
    size_t window_rows; /* WINDOW_ROWS, or a test's */
    cf_status *jst;
    cf_error *jerr;
    /* cf_rowset_scanner_set_row: the looked-up key's column values (memory form),
     * for the one row of the range; NULL otherwise. */
    const void *const *keyvals;
};

/* scan_keys.c: narrow [sc->lo, sc->hi) by the key predicates. */
cf_status cf_rs_scan_key_range(cf_rowset_scanner *sc, cf_error *err);

/* scan_pred.c */
cf_status cf_rs_scan_copy_pred(cf_rowset_scanner *sc, const cf_pred *p, rs_pred *out,
                               cf_error *err);
void cf_rs_scan_mark_changed(const cf_schema *s, const cf_delta_reader *r, bool *changed);
void cf_rs_scan_mark_keys_changed(const cf_schema *s, const cf_delta_reader *r, bool *changed);
cf_status cf_rs_scan_make_filters(cf_rowset_scanner *sc, const bool *changed, cf_error *err);
cf_status cf_rs_scan_check_blocks(cf_rowset_scanner *sc, uint64_t *skip_to, uint64_t *end,
                                  cf_error *err);
void cf_rs_scan_eval_pred(const rs_pred *p, const rs_col *c, uint8_t *sel, size_t n);

/* scan_load.c */
cf_status cf_rs_scan_load_into(rs_col *c, uint64_t cur, size_t n, cf_buf *vals, cf_buf *nnb,
                               cf_arena *arena, cf_buf *bytes, cf_error *err);
/* Append row i's array elements (values and their non-null bits) from c's
 * column buffers to its output buffers (ovals, oenn), *ne elements in so far,
 * and count them into *ne; oenn keeps `slack` zero bytes past its last bit. An
 * allocation failure leaves a buffer's oom flag set, for the caller to check. */
void cf_rs_scan_copy_elems(rs_col *c, size_t i, size_t *ne, size_t slack);
cf_status cf_rs_scan_load_and_apply(cf_rowset_scanner *sc, rs_col *c, size_t n, cf_error *err);

/* scan_ahead.c */
void cf_rs_scan_settle(cf_rowset_scanner *sc);
cf_status cf_rs_scan_need_col(cf_rowset_scanner *sc, rs_col *c, size_t n, uint64_t end,
                              cf_error *err);
uint64_t cf_rs_scan_now_ns(void);
#ifdef CF_SCAN_TRACE
void cf_rs_scan_trace(char kind, size_t col, uint64_t lo, uint64_t rows, uint64_t t0, uint64_t t1);
void cf_rs_scan_trace_dump(void);
#define TRACE(...) cf_rs_scan_trace(__VA_ARGS__)
#else
#define TRACE(...) ((void)0)
#endif

#endif

/* The tablet scan's parts, shared by the files that hold them (cf_kudu_scanner_*
 * in include/cfile/kudu.h is the public face). One concept a file:
 *
 *   scan.c         options, the columns' defaults, create and free;
 *   scan_rowset.c  one DiskRowSet as a source: its base columns streamed a batch at
 *                  a time, its UNDO/REDO deltas applied at the snapshot;
 *   scan_wal.c     the WAL's row ops to replay, indexed by encoded key, and what one
 *                  op does to the row of its key;
 *   scan_merge.c   the k-way merge of the rowsets and the replayed ops by encoded
 *                  key, then predicates and projection (cf_kudu_scanner_next);
 *   scan_lazy.c    rowsets with key bounds opened when the merge reaches them.
 *
 * What a scan answers: the tablet as rows, the way the tablet answers a scan after
 * a restart:
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
 * Memory: each open DiskRowSet streams one batch at a time of the columns read
 * (key, projection, predicates): batch_rows rows, fewer when the rowsets open at
 * once would pass RS_BUDGET together, plus the bytes of the batch's binary values
 * that must outlive an iterator call; the merge is a heap over the open rowsets.
 * In a scan of the latest snapshot, a rowset with key bounds in the superblock is
 * open only from the merge reaching its min key to its end (scan_lazy.c), so "open at once" is the
 * rowsets whose key ranges overlap (all of them when they interleave), as are the blocks open. The
 * WAL is held as cf_kudu_wal reads it (every entry decoded), and the row ops to
 * replay are indexed by key (a pointer and a key copy each): the replayed MemRowSet
 * and DeltaMemStores exist only as that index. So memory is O(overlapping rowsets
 * x batch + WAL), never O(tablet rows).
 *
 * Copies: a column is decoded straight into its rowset's batch (cf_iter_copy_batch),
 * deltas applied there; a streamed rowset's batch that fills an output batch from
 * its start is handed out in place (scan_merge.c's view), so its values and binary
 * bytes are not copied again; rows that go through the merge are copied into the
 * output, binary bytes included (their rowset refills before the batch is out).
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
#ifndef CF_KUDU_SCAN_INTERNAL_H
#define CF_KUDU_SCAN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cfile/delta.h>
#include <cfile/kudu.h>

#include "rowset/memrowset.h"
#include "util/arena.h"
#include "util/buf.h"

/* "No such column" in the column maps. */
#define NONE SIZE_MAX

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

/* One DiskRowSet as a source of rows (scan_rowset.c). */
typedef struct scan_rowset {
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
} scan_rowset;

/* One row op of the WAL to replay (scan_wal.c), with its encoded key. */
typedef struct wal_op {
    const uint8_t *key;
    size_t klen;
    uint64_t seq; /* COMMIT order */
    uint64_t ts;
    const cf_kudu_row_op *op;
    const size_t *map; /* tablet column -> the op's column, or NONE */
    const cf_kudu_wal_entry *rep;
    bool fresh; /* an orphaned REPLICATE Raft commits at startup: runs from scratch */
} wal_op;

/* Where the tablet's columns are in the ops decoded with one WAL schema. */
typedef struct wal_colmap {
    const cf_schema *ws;
    const uint32_t *ids;
    size_t *map;
} wal_colmap;

/* An array value in a scan slot is a cf_slice: the bytes of its serialized cell
 * (Kudu's physical form: delta updates, defaults), or, with len SCAN_FLAT, data
 * pointing to a scan_flat (base CFile rows and replayed ops, whose elements are
 * at hand: no serializing them only to decode them again). */
#define SCAN_FLAT SIZE_MAX
typedef struct scan_flat {
    const void *values; /* count elements of cf_type_size(type) */
    const uint8_t *enn; /* element validity from bit `first`; NULL = all present */
    size_t first, count;
} scan_flat;

struct cf_kudu_scanner {
    const cf_kudu_tablet *t;
    const cf_kudu_fs *fs;
    const cf_schema *s;
    uint64_t snap;
    size_t batch_rows;
    bool mmap;         /* blocks through mmap, else pread (cf_kudu_scan_options.mmap) */
    bool *need;        /* columns read: key, projection, predicates */
    size_t *width;     /* per column: cf_type_size; a slice for arrays (SCAN_FLAT) */
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
    scan_rowset *rs;
    size_t nrs;
    size_t rs_rows;     /* rows a rowset reads per batch */
    scan_rowset **heap; /* the rowsets not at their end, smallest current key first */
    size_t nheap;
    /* Rowsets with min/max keys in the superblock open only when the merge reaches
     * their min key and close at their end (as Kudu's MergeIterator keeps such
     * sub-iterators cold until their lower bound): pending[pi..npending) by min
     * key. The others open at create. */
    size_t *pending, npending, pi, last_pi;
    uint8_t *tmpn; /* validity of one copy_batch call */
    cf_kudu_wal *wal;
    uint64_t max_ts; /* the latest DeltaFile timestamp the scan has seen (history.c) */
    bool has_delta_ts;
    size_t wal_pending; /* orphaned REPLICATEs left to Raft (not applied) */
    int64_t wal_pending_first, wal_pending_last;
    wal_op *ops;
    size_t nops, capops, oi;
    cf_arena wkeys;
    wal_colmap *maps;
    size_t nmaps;
    cf_buf kb;          /* a key being built */
    cf_mrs_cell *cells; /* the row being merged */
    cf_mrs_cell *rdef;  /* per column: its read default (nonnull false: none) */
    cf_mrs_cell *wdef;  /* per column: its write default */
    bool *immutable;    /* per column: ColumnSchemaPB.immutable */
    uint8_t **ovals;    /* per projected column */
    uint8_t **onn;
    cf_buf *aoffs, *avals, *aenn; /* per projected array column: the batch's elements */
    size_t *aelems;               /* and how many so far */
    cf_batch *out;
    cf_arena obytes;
    /* The output batch is rows [view_at, view->n) of this rowset's batch, handed
     * out in place (scan_merge.c), or NULL: rows copied to ovals. */
    const scan_rowset *view;
    size_t view_at;
    bool proj_arrays; /* an array column is projected (never a view) */
    bool done;
};

/* Is rowset m opened only when the merge reaches it (scan_lazy.c)? When the
 * superblock gives its key bounds, and the scan is of the latest snapshot: an
 * --as-of scan opens every rowset at create, as the ancient history mark's check
 * (history.c) needs every DeltaFile's latest timestamp then. */
static inline bool rowset_lazy(const cf_kudu_scanner *sc, const cf_kudu_rowset *m)
{
    return sc->snap == CF_SNAPSHOT_LATEST && m->min_key != NULL && m->max_key != NULL;
}

/* scan_rowset.c: open rowset m (its column and delta blocks) into *d; settle on
 * its first live row (d->eof when none, else d->key is the row's key unless the
 * rowset streams); read its next batch; free what it holds (its column readers given back to the
 * fs's reader cache, reader_cache.h). */
cf_status cf_kudu_scan_rowset_open(cf_kudu_scanner *sc, scan_rowset *d, const cf_kudu_rowset *m,
                                   cf_error *err);
cf_status cf_kudu_scan_rowset_settle(cf_kudu_scanner *sc, scan_rowset *d, cf_error *err);
cf_status cf_kudu_scan_rowset_refill(cf_kudu_scanner *sc, scan_rowset *d, cf_error *err);
void cf_kudu_scan_rowset_dispose(cf_kudu_scanner *sc, scan_rowset *d);
/* A rowset at its end: its blocks and batch freed now, not at the scanner's free. */
void cf_kudu_scan_rowset_close(cf_kudu_scanner *sc, scan_rowset *d);

/* scan_wal.c: read the tablet's WAL and index the row ops bootstrap would replay
 * by key (sc->ops, sorted by key then COMMIT order); apply one of them to the row
 * in sc->cells (*live: whether the row exists before and after). */
cf_status cf_kudu_scan_wal_load(cf_kudu_scanner *sc, cf_error *err);
cf_status cf_kudu_scan_wal_apply(cf_kudu_scanner *sc, const wal_op *w, bool *live, cf_error *err);

/* history.c: CF_EINVAL when snapshot `snap` is before the tablet's ancient history
 * mark as far as it can be known offline (the superblock's mtime minus the
 * table's history_max_age_sec, else flag_max_age_sec; negative: no mark). */
cf_status cf_kudu_history_check(cf_kudu_scanner *sc, uint64_t snap, int64_t flag_max_age_sec,
                                cf_error *err);
/* history.c: note the latest timestamp of a DeltaFile the scan opened. */
void cf_kudu_scan_note_delta(cf_kudu_scanner *sc, const cf_delta_reader *r);

/* scan_merge.c: add a rowset that has a current row to the merge. */
void cf_kudu_scan_merge_add(cf_kudu_scanner *sc, scan_rowset *d);

/* scan_lazy.c: sort the rowsets with key bounds into sc->pending and say how many
 * rowsets are open at once at most (*live: those without bounds, plus the most
 * bounds that overlap); open the pending rowsets the merge has reached. */
cf_status cf_kudu_scan_lazy_plan(cf_kudu_scanner *sc, size_t *live, cf_error *err);
cf_status cf_kudu_scan_lazy_open(cf_kudu_scanner *sc, cf_error *err);
bool cf_kudu_scan_lazy_before(const cf_kudu_scanner *sc, const uint8_t *key, size_t len);

#endif

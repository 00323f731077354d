/* The log replayed at open (docs/ROWSET.md "Write-ahead log"), by a writer
 * before it appends, and by a reader racing the writer's checkpoints.
 * Replayed ops go through table_write.c's apply_* into memory only; this file
 * must not write the log, TABLET or any file.
 *
 * On open, every op of the newest log segment is applied again to the store
 * holding its key (replay_apply), unless its effect is already in files:
 *   - ts <= the segment's durable_ts: a checkpoint flushed it;
 *   - the store holding the key is a rowset whose MANIFEST last_ts >= ts: that
 *     rowset's files hold every op on it up to last_ts (cf_rowset_flush writes
 *     its whole delta store and last_ts with it; a MemRowSet flush writes every
 *     row with all its mutations, last_ts = the newest of them), and any op on
 *     the key went to that store (a key lives in one store; a rowset made by a
 *     MemRowSet flush holds the ops the MemRowSet had; an automatic merge keeps
 *     all history, flushes its sources first and takes their largest last_ts;
 *     a merge that may drop rows, cf_table_compact, runs after a checkpoint).
 * Ops come in timestamp order, so a rowset's last_ts grows as replay applies
 * them, and the comparison stays right op after op.
 */
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "table_internal.h"

#include "util/alloc.h"

typedef struct replay_ctx {
    cf_table *t;
    const cf_wal_scan *scan;
    uint64_t prev;
} replay_ctx;

/* Decode change list `rcl` into t->rvals (key columns when keys, else the
 * others); an UPDATE also into t->rchg (*nchg). Each column at most once;
 * insert lists (REINSERT, keys) must name all their columns. */
static cf_status replay_values(cf_table *t, cf_slice rcl, bool keys, size_t *nchg, cf_error *err)
{
    const cf_schema *s = cf_table_schema(t);
    cf_rcl_decoder d;
    CF_TRY(cf_rcl_decoder_init(&d, rcl, err));
    size_t n = 0;
    if (d.type == CF_RCL_DELETE)
        return CF_OK;
    while (cf_rcl_decoder_has_next(&d)) {
        cf_rcl_change ch;
        int idx;
        CF_TRY(cf_rcl_decoder_next(&d, &ch, err));
        CF_TRY(cf_rcl_change_validate(&ch, s->dcols, s->ncols, &idx, err));
        CF_CHECK(idx >= 0 && s->cols[idx].is_key == keys, err, CF_ECORRUPT,
                 "column id %" PRIu32 " does not belong here", ch.col_id);
        for (size_t i = 0; i < n; i++)
            CF_CHECK(t->rchg[i].col != (size_t)idx, err, CF_ECORRUPT, "column '%s' set twice",
                     s->cols[idx].name);
        const cf_column *c = &s->cols[idx];
        cf_mrs_cell *cell = &t->rcells[idx];
        const void *v = NULL;
        if (!ch.is_null && c->is_array) {
            cf_buf_clear(&t->gvals[idx]);
            cf_buf_clear(&t->genn[idx]);
            size_t ne = 0;
            uint32_t k = 0;
            CF_TRY(
                cf_rs_cell_to_flat(ch.value, c->type, &t->gvals[idx], &t->genn[idx], &ne, &k, err));
            t->rarr[idx] = (cf_array_cell){c->type, k, t->gvals[idx].data, t->genn[idx].data};
            v = &t->rarr[idx];
        } else if (!ch.is_null) {
            if (cf_type_is_binary(c->type))
                memcpy(cell->slot, &ch.value, sizeof(cf_slice));
            else
                memcpy(cell->slot, ch.value.data, ch.value.len); /* size checked by validate */
            v = cell->slot;
        }
        t->rvals[idx] = v;
        t->rchg[n++] = (cf_column_change){(size_t)idx, v};
    }
    size_t want = keys ? s->nkeys : s->ncols - s->nkeys;
    CF_CHECK(d.type == CF_RCL_UPDATE && !keys ? n > 0 : n == want, err, CF_ECORRUPT,
             "%zu columns where %zu are needed", n, want);
    *nchg = n;
    return CF_OK;
}

/* The store holding the key in t->key: *where = -1 the MemRowSet, -2 none,
 * else the rowset's index; *done when that rowset's files already have op ts.
 *
 * An op logged with CF_WAL_OP_MRS at a ts above every rowset's files (files_ts)
 * probes no rowset: when it was applied its key lived in the MemRowSet (or, for
 * an insert, nowhere else), so no rowset held the key then; a rowset that got
 * it later would have it from a MemRowSet flush or a merge after ts, and its
 * last_ts would be >= ts > files_ts. So the key is in the replayed MemRowSet,
 * or (an insert) in no store. This is what keeps a CLI command's replay cost
 * from growing with the rowsets (each probe reads a bloom page and the key
 * index, checksums and all, in a fresh process). */
static cf_status replay_locate(cf_table *t, const cf_wal_op *op, long *where, bool *done,
                               cf_error *err)
{
    *done = false;
    *where = -1;
    if (cf_mrs_find(t->mrs, t->key.data, t->key.len) != NULL)
        return CF_OK;
    *where = -2;
    if ((op->flags & CF_WAL_OP_MRS) && op->ts > t->files_ts)
        return CF_OK;
    for (size_t i = 0; i < t->nrs; i++) {
        if (!cf_tbl_covers(t, i))
            continue;
        t->replay_probes++;
        uint64_t ord;
        cf_status st = cf_rs_find_key(t->rs[i], t->key.data, t->key.len, &ord, err);
        if (st == CF_ENOTFOUND)
            continue;
        CF_TRY(st);
        cf_rowset_info info;
        cf_rowset_get_info(t->rs[i], &info);
        *done = info.last_ts >= op->ts;
        *where = (long)i;
        return CF_OK;
    }
    return CF_OK;
}

/* Apply a replayed op to the store that holds its key (not through the
 * routing of new ops: that asks each covering rowset in turn, and a rowset that
 * does not hold the key but has a later last_ts would refuse the timestamp). */
static cf_status replay_apply(cf_table *t, const cf_wal_op *op, long where, size_t nchg,
                              cf_error *err)
{
    const void *const *v = t->rvals;
    if (where == -1) { /* the MemRowSet: the routing takes it first */
        if (op->type == CF_WAL_INSERT)
            return cf_tbl_apply_insert(t, v, op->ts, err);
        if (op->type == CF_WAL_UPDATE)
            return cf_tbl_apply_update(t, v, t->rchg, nchg, op->ts, err);
        return cf_tbl_apply_delete(t, v, op->ts, err);
    }
    if (where == -2) {
        CF_CHECK(op->type == CF_WAL_INSERT, err, CF_ENOTFOUND, "key not found");
        return cf_mrs_insert(t->mrs, t->key.data, t->key.len, v, op->ts, err);
    }
    cf_rowset *rs = t->rs[where];
    cf_status st;
    cf_rs_set_replay(rs, true); /* a reader's rowsets too: memory only */
    if (op->type == CF_WAL_INSERT)
        st = cf_rowset_reinsert(rs, v, v, op->ts, err);
    else if (op->type == CF_WAL_UPDATE)
        st = cf_rowset_update(rs, v, t->rchg, nchg, op->ts, err);
    else
        st = cf_rowset_delete(rs, v, op->ts, err);
    cf_rs_set_replay(rs, false);
    return st;
}

static cf_status replay_op(void *ctx, const cf_wal_op *op, const char *seg, uint64_t off,
                           cf_error *err)
{
    replay_ctx *r = ctx;
    cf_table *t = r->t;
    CF_CHECK(op->ts > r->prev && op->ts != CF_SNAPSHOT_LATEST, err, CF_ECORRUPT,
             "%s: record at offset %" PRIu64 ": timestamp %" PRIu64
             " is not after the previous record's %" PRIu64
             ": the log is out of order (concurrent calls on one table handle wrote such logs "
             "before the handle serialised them)",
             seg, off, op->ts, r->prev);
    r->prev = op->ts;
    if (op->ts <= r->scan->hdr.durable_ts)
        return CF_OK;
    size_t nkey, nchg = 0;
    cf_status st = replay_values(t, op->key, true, &nkey, err);
    if (st == CF_OK)
        st = cf_tbl_encode_key(t, t->rvals, err);
    bool done = false;
    long where = -2;
    if (st == CF_OK)
        st = replay_locate(t, op, &where, &done, err);
    if (st == CF_OK && !done) {
        /* rvals holds the key columns; the change list fills in the rest */
        st = replay_values(t, op->rcl, false, &nchg, err);
        if (st == CF_OK)
            st = replay_apply(t, op, where, nchg, err);
        t->replay_applied++;
    }
    if (st != CF_OK) {
        cf_error_prefix(err, st, "%s: record at offset %" PRIu64 ": op at ts %" PRIu64 ": ", seg,
                        off, op->ts);
        return st == CF_ENOMEM || st == CF_EIO ? st : CF_ECORRUPT;
    }
    cf_tbl_set_last_ts(t, op->ts);
    return CF_OK;
}

/* The largest last_ts of the rowsets as opened (their files; before replay
 * adds deltas in memory). */
static void note_files_ts(cf_table *t)
{
    t->files_ts = 0;
    t->replay_applied = t->replay_probes = 0;
    for (size_t i = 0; i < t->nrs; i++) {
        cf_rowset_info info;
        cf_rowset_get_info(t->rs[i], &info);
        if (info.last_ts > t->files_ts)
            t->files_ts = info.last_ts;
    }
}

void cf_table_replay_stats(const cf_table *t, uint64_t *applied, uint64_t *probes)
{
    *applied = t->replay_applied;
    *probes = t->replay_probes;
}

/* The newest log segment's number: 0 when there is none, UINT64_MAX when the
 * directory cannot be listed (then no two readings agree). */
uint64_t cf_tbl_newest_seq(const cf_table *t)
{
    uint64_t *seqs = NULL, seq = 0;
    size_t n = 0;
    cf_error e;
    if (cf_wal_list_at(t->dfd, t->dir, &seqs, &n, &e) != CF_OK)
        return UINT64_MAX;
    if (n > 0)
        seq = seqs[n - 1];
    cf_free(seqs);
    return seq;
}

/* Replay the log into memory; a writer then opens it for appending (cutting a
 * torn tail, removing what an interrupted checkpoint left). */
cf_status cf_tbl_wal_attach(cf_table *t, bool writer, cf_error *err)
{
    cf_wal_scan sc;
    replay_ctx r = {t, &sc, 0};
    note_files_ts(t);
    if (writer) {
        /* Under the lock: nothing changes while we read. */
        CF_TRY(cf_wal_scan_dir_at(t->dfd, t->dir, replay_op, &r, &sc, err));
        CF_TRY(cf_wal_check_need(t->dir, &t->wal_need, &sc, err));
        if (sc.found)
            cf_tbl_set_last_ts(t, sc.hdr.durable_ts);
        /* Without a log, everything so far is in the rowsets' files. */
        return cf_wal_open_at(&t->wal, t->dfd, t->dir, &sc, t->last_ts,
                              (cf_wal_sync_mode)t->sync_mode, t->sync_bytes, err);
    }
    /* A reader races the writer's checkpoints: one writes a new segment after
     * its flush, then deletes the older ones and may compact. Rowsets opened
     * before that plus the segment read after it would be a state that never
     * was (ops of a deleted segment missing, or ops aimed at rows a merge
     * dropped). The newest segment is listed before TABLET is read
     * (t->wal_seq0) and again after the replay; while no checkpoint happened in
     * between, the rowsets are at most a flush ahead of the log, which the
     * replay's last_ts rule handles. Otherwise start over. Readings that do
     * not reach a segment's end (a writer appending) see a prefix of it. */
    for (int attempt = 0;; attempt++) {
        r.prev = 0;
        cf_status st = cf_wal_scan_dir_at(t->dfd, t->dir, replay_op, &r, &sc, err);
        if (st == CF_OK) /* the TABLET read this time named a segment listed after it */
            st = cf_wal_check_need(t->dir, &t->wal_need, &sc, err);
        uint64_t now = cf_tbl_newest_seq(t);
        bool same = now == t->wal_seq0 && (st != CF_OK || !sc.found || sc.hdr.seq == now);
        if (same && st == CF_OK) {
            if (sc.found)
                cf_tbl_set_last_ts(t, sc.hdr.durable_ts);
            return CF_OK;
        }
        if ((same && st != CF_ENOTFOUND) || st == CF_ENOMEM)
            return st; /* not a race */
        if (attempt == 20) {
            /* Still racing the writer's checkpoints. Whatever this last reading
             * failed with came from rowsets and a log of two different versions,
             * not from damage: say so, never "corrupt". */
            CF_CHECK(same, err, CF_EIO,
                     "%s: the write-ahead log kept changing while it was read; try again", t->dir);
            return st;
        }
        cf_mrs_clear(t->mrs);
        cf_tbl_close_rowsets(t);
        t->tablet_sum = 0;
        t->last_ts = 0;
        t->wal_seq0 = cf_tbl_newest_seq(t);
        CF_TRY(cf_tbl_open_rowsets_reader(t, err));
        note_files_ts(t);
        usleep(1000u << (attempt < 5 ? attempt : 5));
    }
}

/* Which WAL row ops a restarted tablet applies again: tablet_bootstrap.cc's
 * FilterOperation over the superblock's durable ids (FlushedStoresSnapshot), and
 * its pairing of COMMIT entries with the REPLICATEs they commit. Read-only: the
 * decisions only say what scan.c replays in memory. */
#include <string.h>

#include "replay.h"
#include "tablet.h"

#include "util/alloc.h"
#include "util/error.h"

/* consensus.proto's OperationType (kudu_log.proto here). */
enum { OP_NO = 1, OP_WRITE = 3, OP_ALTER_SCHEMA = 4, OP_CHANGE_CONFIG = 5, OP_PARTICIPANT = 6 };
/* tserver.proto's ParticipantOpPB.ParticipantOpType. */
enum { TXN_BEGIN = 1, TXN_BEGIN_COMMIT = 2, TXN_FINALIZE_COMMIT = 3, TXN_ABORT = 4 };

const char *cf_kudu_op_action_name(cf_kudu_op_action a)
{
    switch (a) {
    case CF_KUDU_ACT_REPLAY: return "NEEDS_REPLAY";
    case CF_KUDU_ACT_SKIP_FLUSHED: return "SKIP_PREVIOUSLY_FLUSHED";
    case CF_KUDU_ACT_SKIP_FAILED: return "SKIP_PREVIOUSLY_FAILED";
    case CF_KUDU_ACT_APPLY_PENDING: return "APPLY_COMMITTED_PENDING";
    case CF_KUDU_ACT_PENDING: return "PENDING_UNCOMMITTED";
    }
    return "?";
}

/* FlushedStoresSnapshot::IsMemStoreActive: an MRS is active above the durable MRS
 * id; a DMS above its rowset's durable DMS id. A rowset the superblock does not
 * name was compacted away or culled empty: whatever went to it is in its
 * successors (or gone with its rows), so it counts as flushed. */
static bool txn_needs_mrs(const cf_kudu_tablet *t, int64_t txn);

static bool store_active(const cf_kudu_tablet *t, const cf_kudu_mem_store *s)
{
    if (s->mrs_id >= 0)
        return s->mrs_id > cf_kudu_tablet_last_durable_mrs_id(t);
    /* a transaction's MRS (FilterOperation): live while the superblock says it was
     * not flushed after its commit and the transaction did not abort */
    if (s->rs_id < 0)
        return s->rs_txn_id >= 0 && txn_needs_mrs(t, s->rs_txn_id);
    size_t n = cf_kudu_tablet_rowset_count(t);
    for (size_t i = 0; i < n; i++) {
        const cf_kudu_rowset *rs = cf_kudu_tablet_rowset_at(t, i);
        if (rs->id == (uint64_t)s->rs_id)
            return s->dms_id > rs->last_durable_dms_id;
    }
    return false;
}

cf_status cf_kudu_op_action_of(const cf_kudu_tablet *t, const cf_kudu_op_result *res,
                               cf_kudu_op_action *out, cf_error *err)
{
    if (res->failed) {
        *out = CF_KUDU_ACT_SKIP_FAILED;
        return CF_OK;
    }
    if (res->skip_on_replay) {
        *out = CF_KUDU_ACT_SKIP_FLUSHED;
        return CF_OK;
    }
    CF_CHECK(res->nstores <= 2, err, CF_ECORRUPT,
             "a row op names %zu mutated stores; Kudu writes at most two", res->nstores);
    /* No store at all: an UPSERT of only the key onto an existing row was dropped;
     * nothing to replay. */
    size_t active = 0;
    for (size_t i = 0; i < res->nstores; i++)
        active += store_active(t, &res->stores[i]);
    CF_CHECK(active < 2, err, CF_ECORRUPT,
             "a row op was duplicated to two stores that are both still active");
    *out = active ? CF_KUDU_ACT_REPLAY : CF_KUDU_ACT_SKIP_FLUSHED;
    return CF_OK;
}

/* The superblock's record of transaction txn (TxnMetadataPB), or NULL. */
static const Kudu__Tablet__TxnMetadataPB *txn_meta(const cf_kudu_tablet *t, int64_t txn)
{
    const Kudu__Tablet__TabletSuperBlockPB *sb = cf_kudu_tablet_superblock(t);
    for (size_t i = 0; sb != NULL && i < sb->n_txn_metadata; i++) {
        const Kudu__Tablet__TxnMetadataEntry *e = sb->txn_metadata[i];
        if (e->has_key && e->key == txn)
            return e->value;
    }
    return NULL;
}

/* TabletMetadata::GetTxnIds: committed (a commit timestamp) or aborted is terminal;
 * a transaction not flushed since its commit and not aborted needs its MRS rebuilt. */
static bool txn_terminal(const cf_kudu_tablet *t, int64_t txn)
{
    const Kudu__Tablet__TxnMetadataPB *m = txn_meta(t, txn);
    return m != NULL && ((m->has_commit_timestamp && m->commit_timestamp != 0) ||
                         (m->has_aborted && m->aborted));
}

static bool txn_needs_mrs(const cf_kudu_tablet *t, int64_t txn)
{
    const Kudu__Tablet__TxnMetadataPB *m = txn_meta(t, txn);
    return m != NULL && !(m->has_flushed_committed_mrs && m->flushed_committed_mrs) &&
           !(m->has_aborted && m->aborted);
}

/* A map from op index to log entry, by increasing index (bootstrap's
 * OpIndexToEntryMap): the REPLICATEs waiting for their COMMIT, and the COMMITs
 * waiting for the ones before them. */
typedef struct by_index {
    const cf_kudu_wal_entry **e;
    size_t n, cap;
} by_index;

static size_t bi_lower(const by_index *m, int64_t index)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->e[mid]->index < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static const cf_kudu_wal_entry *bi_find(const by_index *m, int64_t index)
{
    size_t i = bi_lower(m, index);
    return i < m->n && m->e[i]->index == index ? m->e[i] : NULL;
}

static cf_status bi_insert(by_index *m, const cf_kudu_wal_entry *e, cf_error *err)
{
    if (m->n == m->cap)
        CF_CHECK(cf_array_grow((void *)&m->e, &m->cap, sizeof *m->e, 64), err, CF_ENOMEM,
                 "wal replay: out of memory");
    size_t i = bi_lower(m, e->index);
    memmove(&m->e[i + 1], &m->e[i], (m->n - i) * sizeof(*m->e));
    m->e[i] = e;
    m->n++;
    return CF_OK;
}

static void bi_erase(by_index *m, size_t i)
{
    memmove(&m->e[i], &m->e[i + 1], (m->n - i - 1) * sizeof(*m->e));
    m->n--;
}

typedef struct walker {
    const cf_kudu_tablet *t;
    const cf_kudu_wal *w;
    cf_kudu_replay_fn fn;
    void *ctx;
    by_index reps, commits;
    const cf_kudu_wal_entry *prev;           /* the last REPLICATE */
    int64_t committed_term, committed_index; /* the highest COMMIT's */
} walker;

static const char *file_of(const walker *k, const cf_kudu_wal_entry *e)
{
    const cf_kudu_wal_segment *seg = cf_kudu_wal_segment_at(k->w, e->segment);
    return seg != NULL ? seg->path : "wal";
}

static const char *op_type_name(int t)
{
    switch (t) {
    case OP_NO: return "NO_OP";
    case OP_WRITE: return "WRITE_OP";
    case OP_ALTER_SCHEMA: return "ALTER_SCHEMA_OP";
    case OP_CHANGE_CONFIG: return "CHANGE_CONFIG_OP";
    case OP_PARTICIPANT: return "PARTICIPANT_OP";
    }
    return "UNKNOWN_OP";
}

/* A REPLICATE (HandleReplicateMessage): within a term indexes never skip ahead;
 * one at an index already pending replaces it and every later pending one. */
static cf_status on_replicate(walker *k, const cf_kudu_wal_entry *e, cf_error *err)
{
    if (k->prev != NULL && e->term == k->prev->term && e->index > k->prev->index + 1) {
        /* ops are missing: name where the log stopped having them too (a segment
         * cut short is where they went) */
        const cf_kudu_wal_segment *ps = cf_kudu_wal_segment_at(k->w, k->prev->segment);
        CF_FAIL(err, CF_ECORRUPT,
                "%s at offset %" PRIu64 ": REPLICATE %" PRId64 ".%" PRId64
                " does not follow %" PRId64 ".%" PRId64 " (%s at offset %" PRIu64
                "%s): ops are missing within a term",
                file_of(k, e), e->offset, e->term, e->index, k->prev->term, k->prev->index,
                ps != NULL ? ps->file : "wal", k->prev->offset,
                ps != NULL && ps->torn_tail ? ", a segment with a torn tail" : "");
    }
    k->prev = e;
    size_t i = bi_lower(&k->reps, e->index);
    if (i < k->reps.n && k->reps.e[i]->index == e->index)
        k->reps.n = i;
    return bi_insert(&k->reps, e, err);
}

/* An op whose transaction cfile does not replay: exit 3 naming it, never a scan
 * without its rows. */
static cf_status refuse_txn(walker *k, const cf_kudu_wal_entry *r, const char *why, cf_error *err)
{
    CF_FAIL(err, CF_ENOTSUP,
            "%s at offset %" PRIu64 ": %s %" PRId64 ".%" PRId64 " of transaction %" PRId64
            " %s: multi-row transactions are not replayed",
            file_of(k, r), r->offset, op_type_name(r->op_type), r->term, r->index, r->txn_id, why);
}

/* An ALTER_SCHEMA_OP that applies: the writes after it are decoded with its schema
 * (wal.c), and the tablet's schema becomes it. The superblock took it when Kudu
 * applied the ALTER; one newer than the superblock's (applied only now, at a
 * restart) would change the scan's columns: refused. */
static cf_status apply_alter(walker *k, const cf_kudu_wal_entry *r, cf_error *err)
{
    const Kudu__Tablet__TabletSuperBlockPB *sb = cf_kudu_tablet_superblock(k->t);
    int64_t have = sb != NULL && sb->has_schema_version ? (int64_t)sb->schema_version : 0;
    CF_CHECK(r->alter_schema_version <= have, err, CF_ENOTSUP,
             "%s at offset %" PRIu64 ": ALTER_SCHEMA_OP %" PRId64 ".%" PRId64
             " brings schema version %" PRId64 ", newer than the superblock's %" PRId64
             ": Kudu would apply it at startup; not supported",
             file_of(k, r), r->offset, r->term, r->index, r->alter_schema_version, have);
    return CF_OK;
}

/* A PARTICIPANT_OP with its COMMIT (PlayTxnParticipantOpRequest): nothing to do for
 * a transaction the superblock records as committed or aborted, unless it is the
 * FINALIZE_COMMIT of one whose MRS must be rebuilt; anything else is refused. */
static cf_status apply_participant(walker *k, const cf_kudu_wal_entry *r, cf_error *err)
{
    if (!r->has_txn_id)
        CF_FAIL(err, CF_ECORRUPT,
                "%s at offset %" PRIu64 ": PARTICIPANT_OP %" PRId64 ".%" PRId64 " has no txn_id",
                file_of(k, r), r->offset, r->term, r->index);
    if (txn_terminal(k->t, r->txn_id) &&
        !(r->participant_op == TXN_FINALIZE_COMMIT && txn_needs_mrs(k->t, r->txn_id)))
        return CF_OK;
    /* a transaction the superblock has in flight was opened from it: its BEGIN_TXN
     * is not played again */
    if (txn_meta(k->t, r->txn_id) != NULL && r->participant_op == TXN_BEGIN)
        return CF_OK;
    return refuse_txn(k, r, "is not finished in the superblock", err);
}

/* A REPLICATE and its COMMIT (HandleEntryPair, dispatching on the COMMIT's type). */
static cf_status apply_pair(walker *k, const cf_kudu_wal_entry *r, const cf_kudu_wal_entry *c,
                            cf_error *err)
{
    const char *file = file_of(k, c);
    switch (c->op_type) {
    case OP_WRITE: break;
    case OP_ALTER_SCHEMA:
        if (c->nresults > 0 && c->results[0].failed)
            return CF_OK; /* it failed the first time: no schema change */
        return apply_alter(k, r, err);
    case OP_PARTICIPANT: return apply_participant(k, r, err);
    case OP_NO:
    case OP_CHANGE_CONFIG: return CF_OK; /* no rows */
    default:
        CF_FAIL(err, CF_ECORRUPT,
                "%s at offset %" PRIu64 ": COMMIT of %" PRId64 ".%" PRId64
                " has op type %d, which bootstrap does not know",
                file, c->offset, c->term, c->index, c->op_type);
    }
    CF_CHECK(r->op_type == OP_WRITE, err, CF_ECORRUPT,
             "%s at offset %" PRIu64 ": COMMIT of %" PRId64 ".%" PRId64
             " is a WRITE_OP's, its REPLICATE a %s",
             file, c->offset, c->term, c->index, op_type_name(r->op_type));
    if (c->nresults != r->nops)
        CF_FAIL(err, CF_ECORRUPT,
                "%s at offset %" PRIu64 ": COMMIT of %" PRId64 ".%" PRId64
                " has %zu op results for %zu row ops",
                file, c->offset, c->term, c->index, c->nresults, r->nops);
    for (size_t i = 0; i < r->nops; i++) {
        cf_kudu_op_action a;
        cf_status st = cf_kudu_op_action_of(k->t, &c->results[i], &a, err);
        if (st != CF_OK)
            return cf_error_prefix(
                err, st,
                "%s at offset %" PRIu64 ": COMMIT of %" PRId64 ".%" PRId64 ", row op %zu: ", file,
                c->offset, c->term, c->index, i);
        if (a == CF_KUDU_ACT_REPLAY && r->has_txn_id)
            return refuse_txn(k, r, "has rows in an MRS the tablet must rebuild", err);
        CF_TRY(k->fn(k->ctx, r, c, i, a, err));
    }
    return CF_OK;
}

/* A COMMIT whose REPLICATE is gone (in a segment already GC'd): it must name only
 * flushed stores (CheckOrphanedCommitDoesntNeedReplay). */
static cf_status orphan_commit(walker *k, const cf_kudu_wal_entry *c, cf_error *err)
{
    for (size_t i = 0; i < c->nresults; i++) {
        cf_kudu_op_action a;
        cf_status st = cf_kudu_op_action_of(k->t, &c->results[i], &a, err);
        if (st == CF_OK && a == CF_KUDU_ACT_REPLAY)
            st = cf_error_set(err, CF_ECORRUPT, __FILE__, __LINE__,
                              "COMMIT of %" PRId64 ".%" PRId64
                              " has no REPLICATE in the log but names a store that is "
                              "not flushed",
                              c->term, c->index);
        if (st != CF_OK)
            return cf_error_prefix(err, st, "%s at offset %" PRIu64 ": ", file_of(k, c), c->offset);
    }
    return CF_OK;
}

/* ApplyCommitMessage: the REPLICATE of the COMMIT's index must have its term. */
static cf_status apply_commit(walker *k, const cf_kudu_wal_entry *c, cf_error *err)
{
    size_t i = bi_lower(&k->reps, c->index);
    if (i >= k->reps.n || k->reps.e[i]->index != c->index)
        return orphan_commit(k, c, err);
    const cf_kudu_wal_entry *r = k->reps.e[i];
    bi_erase(&k->reps, i);
    CF_CHECK(r->term == c->term, err, CF_ECORRUPT,
             "%s at offset %" PRIu64 ": COMMIT of %" PRId64 ".%" PRId64
             " but the REPLICATE at that index is of term %" PRId64,
             file_of(k, c), c->offset, c->term, c->index, r->term);
    return apply_pair(k, r, c, err);
}

/* HandleCommitMessage: a COMMIT applies only when its REPLICATE is the first
 * pending one; otherwise it waits (the COMMITs of earlier ops are not written yet:
 * early lock release), and the waiting ones that follow on apply after it. */
static cf_status on_commit(walker *k, const cf_kudu_wal_entry *c, cf_error *err)
{
    if (c->index > k->committed_index) {
        k->committed_index = c->index;
        k->committed_term = c->term;
    }
    if (k->reps.n == 0 || k->reps.e[0]->index > c->index)
        return orphan_commit(k, c, err);
    if (k->reps.e[0]->index != c->index) {
        CF_CHECK(bi_find(&k->reps, c->index) != NULL, err, CF_ECORRUPT,
                 "%s at offset %" PRIu64 ": no REPLICATE for the COMMIT of %" PRId64 ".%" PRId64,
                 file_of(k, c), c->offset, c->term, c->index);
        CF_CHECK(bi_find(&k->commits, c->index) == NULL, err, CF_ECORRUPT,
                 "%s at offset %" PRIu64 ": a second COMMIT of %" PRId64 ".%" PRId64, file_of(k, c),
                 c->offset, c->term, c->index);
        return bi_insert(&k->commits, c, err);
    }
    int64_t last = c->index;
    CF_TRY(apply_commit(k, c, err));
    while (k->commits.n > 0 && k->commits.e[0]->index == last + 1) {
        const cf_kudu_wal_entry *n = k->commits.e[0];
        bi_erase(&k->commits, 0);
        last = n->index;
        CF_TRY(apply_commit(k, n, err));
    }
    return CF_OK;
}

/* Does any of the COMMIT's row ops name a store, and is none of them active? */
static cf_status no_store_active(const walker *k, const cf_kudu_wal_entry *c, bool *out,
                                 cf_error *err)
{
    bool any = false;
    for (size_t i = 0; i < c->nresults; i++)
        for (size_t j = 0; j < c->results[i].nstores; j++) {
            any = true;
            cf_kudu_op_result one = {false, false, 1, &c->results[i].stores[j]};
            cf_kudu_op_action a;
            CF_TRY(cf_kudu_op_action_of(k->t, &one, &a, err));
            if (a == CF_KUDU_ACT_REPLAY) {
                *out = false;
                return CF_OK;
            }
        }
    *out = any;
    return CF_OK;
}

/* An orphaned REPLICATE Raft applies when it starts: a WRITE_OP's row ops run
 * again from scratch (they get new results: a row error is just that). */
static cf_status apply_pending(walker *k, const cf_kudu_wal_entry *r, cf_error *err)
{
    switch (r->op_type) {
    case OP_WRITE:
        if (r->has_txn_id && r->nops > 0)
            return refuse_txn(k, r, "has no COMMIT yet but is committed", err);
        for (size_t i = 0; i < r->nops; i++)
            CF_TRY(k->fn(k->ctx, r, NULL, i, CF_KUDU_ACT_APPLY_PENDING, err));
        return CF_OK;
    case OP_ALTER_SCHEMA: return apply_alter(k, r, err);
    case OP_PARTICIPANT: return apply_participant(k, r, err);
    default: return CF_OK;
    }
}

/* The end of the log (PlaySegments, then RaftConsensus::Start and
 * PendingRounds::SetInitialCommittedOpId): every waiting COMMIT must belong to a
 * pending REPLICATE and, for a write, to a store still active; the pending
 * REPLICATEs up to the highest committed index are committed and applied in index
 * order; the ones after it stay Raft's to decide and are not in the tablet. */
static cf_status finish(walker *k, cf_kudu_replay_info *info, cf_error *err)
{
    for (size_t i = 0; i < k->commits.n; i++) {
        const cf_kudu_wal_entry *c = k->commits.e[i];
        CF_CHECK(bi_find(&k->reps, c->index) != NULL, err, CF_ECORRUPT,
                 "%s at offset %" PRIu64 ": COMMIT of %" PRId64 ".%" PRId64
                 " left without its REPLICATE at the end of the log",
                 file_of(k, c), c->offset, c->term, c->index);
        bool none = false;
        if (c->op_type == OP_WRITE)
            CF_TRY(no_store_active(k, c, &none, err));
        CF_CHECK(!none, err, CF_ECORRUPT,
                 "%s at offset %" PRIu64 ": COMMIT of %" PRId64 ".%" PRId64
                 " waits for earlier ops but names no store that is still active",
                 file_of(k, c), c->offset, c->term, c->index);
    }
    if (k->reps.n == 0)
        return CF_OK;
    const cf_kudu_wal_entry *first = k->reps.e[0];
    if (k->committed_index < first->index)
        CF_CHECK(k->committed_index == first->index - 1, err, CF_ECORRUPT,
                 "%s at offset %" PRIu64 ": the first op without a COMMIT is %" PRId64 ".%" PRId64
                 " but the last committed index is %" PRId64 " (Raft refuses a gap between them)",
                 file_of(k, first), first->offset, first->term, first->index, k->committed_index);
    size_t n = 0;
    while (n < k->reps.n && k->reps.e[n]->index <= k->committed_index)
        n++;
    if (n > 0) {
        const cf_kudu_wal_entry *last = k->reps.e[n - 1];
        CF_CHECK(last->index != k->committed_index || last->term == k->committed_term, err,
                 CF_ECORRUPT,
                 "%s at offset %" PRIu64 ": op %" PRId64 ".%" PRId64
                 " has no COMMIT and is not the op %" PRId64 ".%" PRId64 " the log committed",
                 file_of(k, last), last->offset, last->term, last->index, k->committed_term,
                 k->committed_index);
    }
    for (size_t i = 0; i < n; i++)
        CF_TRY(apply_pending(k, k->reps.e[i], err));
    if (info != NULL) {
        info->napplied_pending = n;
        info->npending = k->reps.n - n;
        if (info->npending > 0) {
            info->first_pending = k->reps.e[n]->index;
            info->last_pending = k->reps.e[k->reps.n - 1]->index;
        }
    }
    for (size_t i = n; i < k->reps.n; i++)
        for (size_t j = 0; j < k->reps.e[i]->nops; j++)
            CF_TRY(k->fn(k->ctx, k->reps.e[i], NULL, j, CF_KUDU_ACT_PENDING, err));
    return CF_OK;
}

cf_status cf_kudu_replay_walk(const cf_kudu_tablet *t, const cf_kudu_wal *w, cf_kudu_replay_fn fn,
                              void *ctx, cf_kudu_replay_info *info, cf_error *err)
{
    if (info != NULL)
        memset(info, 0, sizeof *info);
    walker k = {.t = t, .w = w, .fn = fn, .ctx = ctx};
    cf_status st = CF_OK;
    size_t nseg = cf_kudu_wal_segment_count(w);
    for (size_t s = 0; s < nseg && st == CF_OK; s++) {
        size_t n = cf_kudu_wal_segment_at(w, s)->nentries;
        for (size_t i = 0; i < n && st == CF_OK; i++) {
            const cf_kudu_wal_entry *e = cf_kudu_wal_entry_at(w, s, i);
            if (e->type == CF_KUDU_ENTRY_REPLICATE)
                st = on_replicate(&k, e, err);
            else if (e->type == CF_KUDU_ENTRY_COMMIT)
                st = on_commit(&k, e, err);
            else /* FLUSH_MARKER or unknown: TabletBootstrap::HandleEntry refuses it */
                st = cf_error_set(err, CF_ECORRUPT, __FILE__, __LINE__,
                                  "%s at offset %" PRIu64
                                  ": log entry of type %d, which bootstrap does not replay",
                                  file_of(&k, e), e->offset, (int)e->type);
        }
    }
    if (st == CF_OK)
        st = finish(&k, info, err);
    if (st == CF_OK && info != NULL)
        info->committed_index = k.committed_index;
    cf_free(k.reps.e);
    cf_free(k.commits.e);
    return st;
}

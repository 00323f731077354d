/* Kudu's tablet bootstrap, read-only: which row operations of the write-ahead log
 * a restarted tablet would apply again (tablet/tablet_bootstrap.cc's
 * FilterOperation and its FlushedStoresSnapshot), and the walk over the log that
 * pairs each COMMIT with its REPLICATE the way bootstrap pairs them. scan.c
 * replays the chosen ops in memory; nothing is written. Not installed. */
#ifndef CF_KUDU_REPLAY_H
#define CF_KUDU_REPLAY_H

#include <cfile/kudu.h>

/* What bootstrap does with one row op (tablet_bootstrap.cc's OpAction). */
typedef enum cf_kudu_op_action {
    CF_KUDU_ACT_REPLAY = 0,       /* NEEDS_REPLAY: a store it went to is not durable */
    CF_KUDU_ACT_SKIP_FLUSHED = 1, /* SKIP_PREVIOUSLY_FLUSHED */
    CF_KUDU_ACT_SKIP_FAILED = 2,  /* SKIP_PREVIOUSLY_FAILED */
    /* An orphaned REPLICATE (no COMMIT) at or below the log's highest committed
     * index: Raft commits it when it starts and it runs again from scratch. */
    CF_KUDU_ACT_APPLY_PENDING = 3,
    /* An orphaned REPLICATE past that index: Raft's to decide; not applied. */
    CF_KUDU_ACT_PENDING = 4
} cf_kudu_op_action;

/* "NEEDS_REPLAY", "SKIP_PREVIOUSLY_FLUSHED", "SKIP_PREVIOUSLY_FAILED". */
const char *cf_kudu_op_action_name(cf_kudu_op_action a);

/* The decision for one row op's COMMIT result against the superblock: failed ops
 * and ops marked skip_on_replay are skipped; otherwise the op is replayed when one
 * of its stores is still active (an MRS id above last_durable_mrs_id, or a DMS id
 * above its rowset's last_durable_dms_id; a rowset the superblock no longer names
 * was compacted away, so its stores count as flushed). More than two stores, or two
 * active ones, is CF_ECORRUPT as in Kudu. */
cf_status cf_kudu_op_action_of(const cf_kudu_tablet *t, const cf_kudu_op_result *res,
                               cf_kudu_op_action *out, cf_error *err);

/* Called for every row op of every WRITE_OP bootstrap applies, in the order it
 * applies them: each COMMIT's (commit = that COMMIT; act from its result), then the
 * orphaned REPLICATEs Raft commits at startup (commit NULL, act APPLY_PENDING),
 * then, for the record, those it leaves pending (commit NULL, act PENDING). */
typedef cf_status (*cf_kudu_replay_fn)(void *ctx, const cf_kudu_wal_entry *rep,
                                       const cf_kudu_wal_entry *commit, size_t op,
                                       cf_kudu_op_action act, cf_error *err);

/* What the walk left to Raft. */
typedef struct cf_kudu_replay_info {
    int64_t committed_index;             /* the highest COMMIT's index */
    size_t napplied_pending;             /* orphaned REPLICATEs applied (index <= committed) */
    size_t npending;                     /* orphaned REPLICATEs past it: not applied */
    int64_t first_pending, last_pending; /* their indexes */
} cf_kudu_replay_info;

/* Walk the log as tablet_bootstrap.cc's PlaySegments does, then as Raft's start
 * treats what is left (raft_consensus.cc Start, PendingRounds::SetInitialCommittedOpId):
 * - a REPLICATE waits for its COMMIT; one at an index already pending replaces it
 *   and every later pending one (a new leader's ops); within a term indexes never
 *   skip ahead (CF_ECORRUPT);
 * - a COMMIT applies only when its REPLICATE is the first pending one, else it
 *   waits, and the waiting ones that follow apply after it; a COMMIT whose
 *   REPLICATE was garbage-collected must name only flushed stores;
 * - a WRITE_OP's row ops go to fn; an ALTER_SCHEMA_OP changes the schema later
 *   writes are decoded with (wal.c does the decoding; one newer than the
 *   superblock's schema is CF_ENOTSUP); transactions (a write with a txn_id whose
 *   rows need replaying, a PARTICIPANT_OP the superblock does not record as
 *   finished) are CF_ENOTSUP naming the op;
 * - at the end, the pending REPLICATEs up to the highest committed index are
 *   applied in index order (APPLY_PENDING), a gap between that index and the first
 *   pending one is CF_ECORRUPT, and the rest are reported in *info (may be NULL).
 * Damage is CF_ECORRUPT naming the segment and offset. */
cf_status cf_kudu_replay_walk(const cf_kudu_tablet *t, const cf_kudu_wal *w, cf_kudu_replay_fn fn,
                              void *ctx, cf_kudu_replay_info *info, cf_error *err);

#endif

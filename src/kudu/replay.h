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
    CF_KUDU_ACT_SKIP_FAILED = 2   /* SKIP_PREVIOUSLY_FAILED */
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

/* Called for every row op of every COMMIT of a WRITE_OP whose REPLICATE is in the
 * log, in COMMIT order (the order bootstrap applies them): `rep` holds the op
 * (rep->ops[op]), `commit` its result (commit->results[op]). */
typedef cf_status (*cf_kudu_replay_fn)(void *ctx, const cf_kudu_wal_entry *rep,
                                       const cf_kudu_wal_entry *commit, size_t op,
                                       cf_kudu_op_action act, cf_error *err);

/* Walk the log as bootstrap does: REPLICATEs wait for their COMMIT (a later
 * REPLICATE of the same or a lower index replaces the pending ones from that index
 * on, as a new leader's ops do); a COMMIT applies its REPLICATE's ops. A COMMIT
 * whose REPLICATE was garbage-collected must name only flushed stores
 * (CF_ECORRUPT otherwise, as bootstrap's CheckOrphanedCommitDoesntNeedReplay);
 * REPLICATEs left without a COMMIT are Raft's pending ops, not part of the
 * tablet's state, and are not applied. A COMMIT whose result count differs from its
 * REPLICATE's row ops is CF_ECORRUPT naming the segment and offset. */
cf_status cf_kudu_replay_walk(const cf_kudu_tablet *t, const cf_kudu_wal *w, cf_kudu_replay_fn fn,
                              void *ctx, cf_error *err);

#endif

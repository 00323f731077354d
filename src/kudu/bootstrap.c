/* Which WAL row ops a restarted tablet applies again: tablet_bootstrap.cc's
 * FilterOperation over the superblock's durable ids (FlushedStoresSnapshot), and
 * its pairing of COMMIT entries with the REPLICATEs they commit. Read-only: the
 * decisions only say what scan.c replays in memory. */
#include <string.h>

#include "replay.h"

#include "util/alloc.h"
#include "util/error.h"

/* consensus.proto's OperationType WRITE_OP (kudu_log.proto here). */
#define KUDU_WRITE_OP 3

const char *cf_kudu_op_action_name(cf_kudu_op_action a)
{
    switch (a) {
    case CF_KUDU_ACT_REPLAY: return "NEEDS_REPLAY";
    case CF_KUDU_ACT_SKIP_FLUSHED: return "SKIP_PREVIOUSLY_FLUSHED";
    case CF_KUDU_ACT_SKIP_FAILED: return "SKIP_PREVIOUSLY_FAILED";
    }
    return "?";
}

/* FlushedStoresSnapshot::IsMemStoreActive: an MRS is active above the durable MRS
 * id; a DMS above its rowset's durable DMS id. A rowset the superblock does not
 * name was compacted away or culled empty: whatever went to it is in its
 * successors (or gone with its rows), so it counts as flushed. */
static bool store_active(const cf_kudu_tablet *t, const cf_kudu_mem_store *s)
{
    if (s->mrs_id >= 0)
        return s->mrs_id > cf_kudu_tablet_last_durable_mrs_id(t);
    if (s->rs_id < 0)
        return false;
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

/* REPLICATEs waiting for their COMMIT, by increasing index. */
typedef struct pending {
    const cf_kudu_wal_entry **e;
    size_t n, cap;
} pending;

static cf_status pending_add(pending *p, const cf_kudu_wal_entry *e, cf_error *err)
{
    /* A REPLICATE at index i supersedes every pending one at i or later (a new
     * term's leader overwrote them; bootstrap drops them the same way). */
    while (p->n > 0 && p->e[p->n - 1]->index >= e->index)
        p->n--;
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 64;
        const cf_kudu_wal_entry **ne = cf_realloc(p->e, cap * sizeof(*ne));
        CF_CHECK(ne != NULL, err, CF_ENOMEM, "wal replay: out of memory");
        p->e = ne;
        p->cap = cap;
    }
    p->e[p->n++] = e;
    return CF_OK;
}

/* Take the pending REPLICATE with the COMMIT's op id out of the list; NULL when
 * there is none (its segment was garbage-collected, or it was superseded). */
static const cf_kudu_wal_entry *pending_take(pending *p, const cf_kudu_wal_entry *commit)
{
    for (size_t i = 0; i < p->n; i++) {
        const cf_kudu_wal_entry *r = p->e[i];
        if (r->index == commit->index && r->term == commit->term) {
            memmove(&p->e[i], &p->e[i + 1], (p->n - i - 1) * sizeof(*p->e));
            p->n--;
            return r;
        }
    }
    return NULL;
}

static cf_status walk_commit(const cf_kudu_tablet *t, const cf_kudu_wal *w, pending *p,
                             const cf_kudu_wal_entry *c, cf_kudu_replay_fn fn, void *ctx,
                             cf_error *err)
{
    const cf_kudu_wal_segment *seg = cf_kudu_wal_segment_at(w, c->segment);
    const char *file = seg != NULL ? seg->file : "?";
    const cf_kudu_wal_entry *r = pending_take(p, c);
    if (r == NULL) {
        /* An orphaned COMMIT: its REPLICATE is gone, so it must be fully flushed. */
        for (size_t i = 0; i < c->nresults; i++) {
            cf_kudu_op_action a;
            cf_status st = cf_kudu_op_action_of(t, &c->results[i], &a, err);
            if (st == CF_OK && a == CF_KUDU_ACT_REPLAY)
                st = cf_error_set(err, CF_ECORRUPT, __FILE__, __LINE__,
                                  "COMMIT of %" PRId64 ".%" PRId64
                                  " has no REPLICATE in the log but names a store that is "
                                  "not flushed",
                                  c->term, c->index);
            if (st != CF_OK)
                return cf_error_prefix(err, st, "%s at offset %" PRIu64 ": ", file, c->offset);
        }
        return CF_OK;
    }
    if (r->op_type != KUDU_WRITE_OP)
        return CF_OK; /* NO_OP, ALTER_SCHEMA, CHANGE_CONFIG: no rows */
    if (c->nresults != r->nops)
        CF_FAIL(err, CF_ECORRUPT,
                "%s at offset %" PRIu64 ": COMMIT of %" PRId64 ".%" PRId64
                " has %zu op results for %zu row ops",
                file, c->offset, c->term, c->index, c->nresults, r->nops);
    for (size_t i = 0; i < r->nops; i++) {
        cf_kudu_op_action a;
        cf_status st = cf_kudu_op_action_of(t, &c->results[i], &a, err);
        if (st != CF_OK)
            return cf_error_prefix(
                err, st,
                "%s at offset %" PRIu64 ": COMMIT of %" PRId64 ".%" PRId64 ", row op %zu: ", file,
                c->offset, c->term, c->index, i);
        CF_TRY(fn(ctx, r, c, i, a, err));
    }
    return CF_OK;
}

cf_status cf_kudu_replay_walk(const cf_kudu_tablet *t, const cf_kudu_wal *w, cf_kudu_replay_fn fn,
                              void *ctx, cf_error *err)
{
    pending p = {0};
    cf_status st = CF_OK;
    size_t nseg = cf_kudu_wal_segment_count(w);
    for (size_t s = 0; s < nseg && st == CF_OK; s++) {
        size_t n = cf_kudu_wal_segment_at(w, s)->nentries;
        for (size_t i = 0; i < n && st == CF_OK; i++) {
            const cf_kudu_wal_entry *e = cf_kudu_wal_entry_at(w, s, i);
            if (e->type == CF_KUDU_ENTRY_REPLICATE)
                st = pending_add(&p, e, err);
            else if (e->type == CF_KUDU_ENTRY_COMMIT)
                st = walk_commit(t, w, &p, e, fn, ctx, err);
        }
    }
    cf_free(p.e);
    return st;
}

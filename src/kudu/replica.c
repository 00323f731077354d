/* A table's tablets across several stopped servers (kudu.h, "a table across
 * several servers"): every replica of the table or tablet asked for, judged by
 * what Kudu ranks replicas by, and one chosen per tablet.
 *
 * The ranking, with where each fact comes from:
 *   - only TABLET_DATA_READY replicas hold a tablet's data: TOMBSTONED and
 *     DELETED ones have had it removed, and a COPYING one is an unfinished tablet
 *     copy that the server tombstones at startup (tserver/ts_tablet_manager.cc,
 *     HandleNonReadyTabletOnStartup);
 *   - the last op id in the replica's WAL, compared term first, then index: Raft
 *     grants a vote only to a candidate whose last logged op id is at least the
 *     voter's (consensus/raft_consensus.cc, RequestVote), so the largest one is
 *     the log every committed op reached. current_term (consensus/metadata.proto)
 *     only breaks ties: a replica can have voted in a later term (raising its
 *     term) without receiving any op of it, and its log may hold ops of an older
 *     term that the new leader overwrote;
 *   - then the server named first, so the choice is the same every run.
 * A replica that cannot be judged fails the search (or, asked, is passed over and
 * kept with its problem), so a damaged newer replica never gives way in silence;
 * the only READY replica of a tablet needs no judging and is taken, its problem
 * kept (the scan reports the damage it meets). Messages count servers from 1, in
 * the order given.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/bytes.h"
#include "util/error.h"

#include "kudu_raft.pb-c.h"
#include "tablet.h"

#define READY "TABLET_DATA_READY"

typedef struct rep {
    cf_kudu_replica pub;
    cf_kudu_tablet *t; /* open while it may be chosen; NULL after */
    char *strs[5];     /* owned copies behind pub's strings */
    uint8_t *pks, *pke;
} rep;

struct cf_kudu_replicas {
    rep *reps; /* by tablet (partition order), then server */
    size_t nreps, cap;
    size_t *chosen; /* per tablet: index into reps */
    size_t ntablets;
};

void cf_kudu_replicas_options_init(cf_kudu_replicas_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->version = CF_KUDU_REPLICAS_OPTIONS_VERSION;
}

static void rep_dispose(rep *r)
{
    cf_kudu_tablet_free(r->t);
    for (size_t i = 0; i < 5; i++)
        cf_free(r->strs[i]);
    cf_free(r->pks);
    cf_free(r->pke);
}

void cf_kudu_replicas_free(cf_kudu_replicas *r)
{
    if (r == NULL)
        return;
    for (size_t i = 0; i < r->nreps; i++)
        rep_dispose(&r->reps[i]);
    cf_free(r->reps);
    cf_free(r->chosen);
    cf_free(r);
}

size_t cf_kudu_replicas_count(const cf_kudu_replicas *r)
{
    return r->nreps;
}

const cf_kudu_replica *cf_kudu_replicas_at(const cf_kudu_replicas *r, size_t i)
{
    return i < r->nreps ? &r->reps[i].pub : NULL;
}

size_t cf_kudu_replicas_tablet_count(const cf_kudu_replicas *r)
{
    return r->ntablets;
}

const cf_kudu_replica *cf_kudu_replicas_chosen_at(const cf_kudu_replicas *r, size_t i)
{
    return i < r->ntablets ? &r->reps[r->chosen[i]].pub : NULL;
}

const cf_kudu_tablet *cf_kudu_replicas_tablet_at(const cf_kudu_replicas *r, size_t i)
{
    return i < r->ntablets ? r->reps[r->chosen[i]].t : NULL;
}

const cf_schema *cf_kudu_replicas_schema(const cf_kudu_replicas *r)
{
    return r->ntablets > 0 ? cf_kudu_tablet_schema(r->reps[r->chosen[0]].t) : NULL;
}

/* A copy owned by the replica (slot k), or NULL for NULL. */
static const char *keep(rep *r, size_t k, const char *s, bool *oom)
{
    if (s == NULL)
        return NULL;
    r->strs[k] = cf_strdup(s);
    if (r->strs[k] == NULL)
        *oom = true;
    return r->strs[k];
}

static cf_status rep_add(cf_kudu_replicas *set, rep **out, cf_error *err)
{
    if (set->nreps == set->cap)
        CF_CHECK(cf_array_grow(&set->reps, &set->cap, sizeof *set->reps, 16), err, CF_ENOMEM,
                 "out of memory for replicas");
    *out = &set->reps[set->nreps++];
    memset(*out, 0, sizeof **out);
    (*out)->pub.current_term = -1;
    return CF_OK;
}

/* The last REPLICATE op id of the tablet's WAL (0.0 when it holds none). */
static cf_status last_op(const cf_kudu_fs *fs, const char *tablet_id, int64_t *term, int64_t *index,
                         cf_error *err)
{
    *term = *index = 0;
    cf_kudu_wal *w = NULL;
    cf_status st = cf_kudu_wal_open(&w, fs, tablet_id, err);
    if (st == CF_ENOTFOUND)
        return CF_OK; /* no WAL directory: Kudu starts a new, empty log */
    CF_TRY(st);
    for (size_t s = 0; s < cf_kudu_wal_segment_count(w); s++) {
        const cf_kudu_wal_segment *seg = cf_kudu_wal_segment_at(w, s);
        for (size_t i = 0; i < seg->nentries; i++) {
            const cf_kudu_wal_entry *e = cf_kudu_wal_entry_at(w, s, i);
            if (e->type != CF_KUDU_ENTRY_REPLICATE)
                continue;
            if (e->term > *term || (e->term == *term && e->index > *index)) {
                *term = e->term;
                *index = e->index;
            }
        }
    }
    cf_kudu_wal_free(w);
    return CF_OK;
}

/* Judge an open READY replica: its current term and its WAL's last op id. A
 * failure is kept as its problem (the replica is then not a candidate). */
static cf_status judge(rep *r, const cf_kudu_fs *fs, bool *oom)
{
    cf_error e = {0};
    const Kudu__Consensus__ConsensusMetadataPB *cm = cf_kudu_tablet_consensus(r->t);
    cf_status st = CF_OK;
    if (cm == NULL) {
        char *json = NULL;
        st = cf_kudu_tablet_consensus_json(r->t, false, &json, &e);
        free(json);
        if (st == CF_OK || st == CF_ENOTFOUND) {
            /* Kudu cannot open a READY replica without it (consensus_meta.cc). */
            st = CF_ECORRUPT;
            cf_error_set(&e, st, __FILE__, __LINE__, "%s/consensus-meta/%s: missing",
                         cf_kudu_fs_metadata_dir(fs), r->pub.tablet_id);
        }
    } else {
        r->pub.current_term = cm->has_current_term ? cm->current_term : -1;
        st = last_op(fs, r->pub.tablet_id, &r->pub.last_term, &r->pub.last_index, &e);
    }
    if (st == CF_ENOMEM)
        return st;
    if (st != CF_OK)
        r->pub.problem = keep(r, 4, e.msg, oom);
    return CF_OK;
}

/* Read every superblock of server s that matches. */
static cf_status scan_server(cf_kudu_replicas *set, const cf_kudu_fs *fs, size_t s,
                             const cf_kudu_replicas_options *o, cf_error *err)
{
    for (size_t i = 0; i < cf_kudu_fs_tablet_count(fs); i++) {
        const char *id = cf_kudu_fs_tablet_at(fs, i);
        if (o->tablet_id != NULL && strcmp(id, o->tablet_id) != 0)
            continue;
        cf_kudu_tablet *t = NULL;
        cf_error e = {0};
        cf_status st = cf_kudu_tablet_open(&t, fs, id, &e);
        if (st == CF_ENOMEM) {
            *err = e;
            return st;
        }
        if (st == CF_OK) {
            bool name_ok =
                o->table_name == NULL || strcmp(cf_kudu_tablet_table_name(t), o->table_name) == 0;
            bool id_ok =
                o->table_id == NULL || strcmp(cf_kudu_tablet_table_id(t), o->table_id) == 0;
            if (!name_ok || !id_ok) {
                cf_kudu_tablet_free(t);
                continue;
            }
        } else if (!o->skip_damaged) {
            /* Its table is unknown: it may be a replica of this one. */
            *err = e;
            return cf_error_prefix(err, st, "server %zu (%s): ", s + 1, cf_kudu_fs_wal_dir(fs));
        }
        rep *r;
        if (rep_add(set, &r, err) != CF_OK) {
            cf_kudu_tablet_free(t);
            return CF_ENOMEM;
        }
        bool oom = false;
        r->t = t;
        r->pub.server = s;
        r->pub.tablet_id = keep(r, 0, id, &oom);
        if (t == NULL) {
            r->pub.problem = keep(r, 4, e.msg, &oom);
        } else {
            r->pub.table_id = keep(r, 1, cf_kudu_tablet_table_id(t), &oom);
            r->pub.table_name = keep(r, 2, cf_kudu_tablet_table_name(t), &oom);
            r->pub.data_state = keep(r, 3, cf_kudu_tablet_data_state(t), &oom);
            const Kudu__PartitionPB *p = cf_kudu_tablet_superblock(t)->partition;
            if (p != NULL && p->has_partition_key_start && p->partition_key_start.len > 0) {
                r->pks = cf_malloc(p->partition_key_start.len);
                oom |= r->pks == NULL;
                if (r->pks != NULL)
                    memcpy(r->pks, p->partition_key_start.data, p->partition_key_start.len);
                r->pub.partition_key_start = r->pks;
                r->pub.partition_key_start_len = r->pks ? p->partition_key_start.len : 0;
            }
            if (p != NULL && p->has_partition_key_end && p->partition_key_end.len > 0) {
                r->pke = cf_malloc(p->partition_key_end.len);
                oom |= r->pke == NULL;
                if (r->pke != NULL)
                    memcpy(r->pke, p->partition_key_end.data, p->partition_key_end.len);
                r->pub.partition_key_end = r->pke;
                r->pub.partition_key_end_len = r->pke ? p->partition_key_end.len : 0;
            }
            if (!oom && strcmp(r->pub.data_state, READY) == 0 && judge(r, fs, &oom) != CF_OK)
                oom = true;
        }
        CF_CHECK(!oom, err, CF_ENOMEM, "out of memory for replicas");
    }
    return CF_OK;
}

/* Replicas ordered by partition start, tablet id, then server. */
static int rep_order(const void *x, const void *y)
{
    const cf_kudu_replica *a = &((const rep *)x)->pub, *b = &((const rep *)y)->pub;
    int c = cf_bytes_cmp(a->partition_key_start, a->partition_key_start_len, b->partition_key_start,
                         b->partition_key_start_len);
    if (c == 0)
        c = strcmp(a->tablet_id, b->tablet_id);
    if (c == 0)
        c = a->server < b->server ? -1 : a->server > b->server;
    return c;
}

static bool candidate(const rep *r)
{
    return r->t != NULL && r->pub.problem == NULL && r->pub.data_state != NULL &&
           strcmp(r->pub.data_state, READY) == 0;
}

/* Is a more recent than b (the ranking at the top of this file; servers tie to
 * the first given)? */
static bool newer(const cf_kudu_replica *a, const cf_kudu_replica *b)
{
    if (a->last_term != b->last_term)
        return a->last_term > b->last_term;
    if (a->last_index != b->last_index)
        return a->last_index > b->last_index;
    if (a->current_term != b->current_term)
        return a->current_term > b->current_term;
    return a->server < b->server;
}

/* Several tables by one name: refused, naming two of their ids. Only replicas that
 * hold data count: a dropped table's tombstones keep its name. */
static cf_status check_one_table(const cf_kudu_replicas *set, const char *name, cf_error *err)
{
    const char *first = NULL;
    for (size_t i = 0; i < set->nreps; i++) {
        const cf_kudu_replica *p = &set->reps[i].pub;
        if (p->table_id == NULL || !candidate(&set->reps[i]))
            continue;
        if (first == NULL)
            first = p->table_id;
        else if (strcmp(first, p->table_id) != 0)
            CF_FAIL(err, CF_EINVAL,
                    "table '%s': several tables have that name (ids %s and %s): name one by "
                    "its id",
                    name, first, p->table_id);
    }
    return CF_OK;
}

/* The first logical difference between two schemas, or NULL. */
static const char *schema_diff(const cf_schema *a, const cf_schema *b, char *buf, size_t cap)
{
    size_t na = cf_schema_column_count(a), nb = cf_schema_column_count(b);
    for (size_t i = 0; i < na && i < nb; i++) {
        const cf_column *x = cf_schema_column_at(a, i), *y = cf_schema_column_at(b, i);
        const char *what = strcmp(x->name, y->name) != 0 ? "name"
                           : x->type != y->type          ? "type"
                           : x->nullable != y->nullable  ? "nullability"
                           : x->is_key != y->is_key      ? "key"
                           : x->is_array != y->is_array  ? "array"
                           : x->precision != y->precision || x->scale != y->scale
                               ? "precision or scale"
                           : x->length != y->length ? "length"
                                                    : NULL;
        if (what != NULL) {
            snprintf(buf, cap, "column %zu ('%s', '%s'): %s", i, x->name, y->name, what);
            return buf;
        }
    }
    if (na != nb) {
        snprintf(buf, cap, "%zu columns, %zu columns", na, nb);
        return buf;
    }
    return NULL;
}

/* Choose per tablet (reps sorted, so a tablet's replicas are adjacent). */
static cf_status choose(cf_kudu_replicas *set, const cf_kudu_replicas_options *o, cf_error *err)
{
    set->chosen = cf_calloc(set->nreps + 1, sizeof *set->chosen);
    CF_CHECK(set->chosen != NULL, err, CF_ENOMEM, "out of memory for replicas");
    for (size_t i = 0; i < set->nreps;) {
        const char *id = set->reps[i].pub.tablet_id;
        size_t end = i, best = SIZE_MAX;
        while (end < set->nreps && strcmp(set->reps[end].pub.tablet_id, id) == 0)
            end++;
        /* One READY replica leaves nothing to judge: a consensus metadata or WAL that
         * does not read is the scan's to report (or not, with no_wal). */
        size_t ready = 0, only = SIZE_MAX;
        for (size_t k = i; k < end; k++)
            if (set->reps[k].t != NULL && set->reps[k].pub.data_state != NULL &&
                strcmp(set->reps[k].pub.data_state, READY) == 0) {
                ready++;
                only = k;
            }
        if (ready == 1 && set->reps[only].pub.problem != NULL) {
            set->reps[only].pub.chosen = true;
            set->chosen[set->ntablets++] = only;
            i = end;
            continue;
        }
        for (size_t k = i; k < end; k++) {
            const rep *r = &set->reps[k];
            if (r->pub.problem != NULL && !o->skip_damaged)
                CF_FAIL(err, CF_ECORRUPT, "tablet %s, server %zu: %s", id, r->pub.server + 1,
                        r->pub.problem);
            if (candidate(r) && (best == SIZE_MAX || newer(&r->pub, &set->reps[best].pub)))
                best = k;
        }
        bool unknown = true; /* every replica's superblock unreadable (skip_damaged) */
        for (size_t k = i; k < end; k++)
            unknown &= set->reps[k].pub.table_id == NULL;
        if (best == SIZE_MAX && unknown) {
            i = end; /* not known to be a tablet of this table: passed over */
            continue;
        }
        if (best == SIZE_MAX) {
            const cf_kudu_replica *p = &set->reps[i].pub;
            CF_FAIL(err, CF_ENOTFOUND,
                    "tablet %s: no replica holds its data (%zu found; server %zu's is %s)", id,
                    end - i, p->server + 1, p->problem != NULL ? "damaged" : p->data_state);
        }
        set->reps[best].pub.chosen = true;
        set->chosen[set->ntablets++] = best;
        i = end;
    }
    /* Only chosen tablets stay open. */
    for (size_t i = 0; i < set->nreps; i++)
        if (!set->reps[i].pub.chosen) {
            cf_kudu_tablet_free(set->reps[i].t);
            set->reps[i].t = NULL;
        }
    CF_CHECK(set->ntablets > 0, err, CF_ENOTFOUND, "no replica holds data of the table");
    const rep *r0 = &set->reps[set->chosen[0]];
    for (size_t k = 1; k < set->ntablets; k++) {
        const rep *r = &set->reps[set->chosen[k]];
        char buf[160];
        const char *d =
            schema_diff(cf_kudu_tablet_schema(r0->t), cf_kudu_tablet_schema(r->t), buf, sizeof buf);
        CF_CHECK(d == NULL, err, CF_EINVAL, "the schemas of tablets %s and %s differ: %s",
                 r0->pub.tablet_id, r->pub.tablet_id, d);
    }
    return CF_OK;
}

cf_status cf_kudu_replicas_find(cf_kudu_replicas **out, const cf_kudu_fs *const *servers,
                                size_t nservers, const cf_kudu_replicas_options *opts,
                                cf_error *err)
{
    *out = NULL;
    CF_CHECK(opts != NULL && opts->version == CF_KUDU_REPLICAS_OPTIONS_VERSION, err, CF_EINVAL,
             "replicas: options version %u (want %u)", opts ? opts->version : 0,
             CF_KUDU_REPLICAS_OPTIONS_VERSION);
    CF_CHECK(opts->table_name != NULL || opts->table_id != NULL || opts->tablet_id != NULL, err,
             CF_EINVAL, "replicas: name a table (by name or id) or a tablet");
    CF_CHECK(nservers > 0 && servers != NULL, err, CF_EINVAL, "replicas: no server given");
    cf_kudu_replicas *set = cf_calloc(1, sizeof *set);
    CF_CHECK(set != NULL, err, CF_ENOMEM, "out of memory for replicas");
    cf_status st = CF_OK;
    for (size_t s = 0; s < nservers; s++)
        CF_TRY_OUT(scan_server(set, servers[s], s, opts, err));
    if (set->nreps == 0) {
        if (opts->tablet_id != NULL)
            CF_FAIL_OUT(err, CF_ENOTFOUND, "tablet %s: on none of the %zu servers", opts->tablet_id,
                        nservers);
        CF_FAIL_OUT(err, CF_ENOTFOUND, "table %s: no tablet of it on the %zu servers",
                    opts->table_name != NULL ? opts->table_name : opts->table_id, nservers);
    }
    qsort(set->reps, set->nreps, sizeof *set->reps, rep_order);
    if (opts->table_id == NULL && opts->table_name != NULL)
        CF_TRY_OUT(check_one_table(set, opts->table_name, err));
    CF_TRY_OUT(choose(set, opts, err));
    *out = set;
    return CF_OK;
out:
    cf_kudu_replicas_free(set);
    return st;
}

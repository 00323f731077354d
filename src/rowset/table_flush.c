/* Flushes and compaction of a table: the MemRowSet written as a new rowset, a
 * checkpoint (every store to files, then a new log segment), and merges of
 * rowsets, automatic after a flush (compaction_policy.c picks a subset; the
 * output takes the first one's place in TABLET order, so the rowset count stays
 * logarithmic in the rows) or asked for (cf_table_compact). Commits go through
 * table_tablet.c; this file must not write TABLET or remove directories itself,
 * nor append to the log.
 */
#include <sys/stat.h>

#include "table_internal.h"

#include "util/alloc.h"

static cf_status auto_compact(cf_table *t, cf_error *err);

static cf_status flush_mrs(cf_table *t, cf_error *err)
{
    if (cf_mrs_rows(t->mrs) == 0)
        return CF_OK;
    char name[40];
    char *path = NULL;
    int dfd = -1;
    cf_rowset *nrs = NULL;
    char **names = NULL;
    cf_status st = CF_OK;
    CF_TRY_OUT(cf_tbl_new_rowset_dir(t, name, sizeof(name), &path, &dfd, err));
    CF_TRY_OUT(cf_mrs_flush(t->mrs, dfd, path, t->file_mode, err));
    cf_tbl_match_mode(t, dfd, path);
    CF_TRY_OUT(cf_tbl_open_rowset(t, name, &nrs, err));
    cf_rowset **rs = cf_realloc(t->rs, (t->nrs + 1) * sizeof(*rs));
    names = cf_calloc(t->nrs + 1, sizeof(*names));
    if (rs != NULL)
        t->rs = rs;
    if (rs == NULL || names == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "table: out of memory");
    for (size_t i = 0; i <= t->nrs; i++)
        if ((names[i] = cf_strdup(i < t->nrs ? t->names[i] : name)) == NULL)
            CF_FAIL_OUT(err, CF_ENOMEM, "table: out of memory");
    st = cf_tbl_commit_list(t, names, t->nrs + 1, err);
    names = NULL;
    CF_TRY_OUT(st);
    t->rs[t->nrs++] = nrs;
    nrs = NULL;
    cf_mrs_clear(t->mrs);
out:
    cf_tbl_free_names(names, t->nrs + 1);
    cf_rowset_free(nrs);
    cf_rs_dir_close(dfd);
    cf_free(path);
    return st;
}

/* A checkpoint (docs/ROWSET.md "Write-ahead log"): write the MemRowSet and
 * every rowset's deltas to files, then start a new log segment whose header
 * says that every op up to last_ts is in those files, and drop the older
 * segments. Compaction may then drop rows and history (the ancient history
 * mark) that older log records refer to: replay never sees those records
 * again, since it starts from the newest segment and skips ops at or before its
 * durable_ts. A crash in between leaves the old segment, which replays onto
 * whatever part of the flush committed (each store's MANIFEST last_ts says
 * which ops it already holds). */
static cf_status checkpoint(cf_table *t, cf_error *err)
{
    CF_TRY(flush_mrs(t, err));
    for (size_t i = 0; i < t->nrs; i++)
        CF_TRY(cf_rowset_flush(t->rs[i], err));
    if (t->wal == NULL)
        return CF_OK;
    /* No TABLET: no op of ours yet (each commits one first), and every op an
     * older binary logged is in files now. It stays without one (a sorted
     * import's fast path still takes the directory); the first op records. */
    if (!t->has_tablet)
        return cf_wal_checkpoint(t->wal, t->last_ts, err);
    CF_TRY(cf_wal_roll(t->wal, t->last_ts, err));
    return cf_tbl_wal_record(t, err); /* names the new segment, then retires the older */
}

cf_status cf_rs_table_flush(cf_table *t, cf_error *err)
{
    CF_TRY(cf_tbl_check_writable(t, err));
    CF_TRY(cf_tbl_usable(t, err));
    CF_TRY(checkpoint(t, err));
    return auto_compact(t, err);
}

/* Flush what has grown past its limit: everything (a checkpoint) once the log
 * is past wal_max_bytes, else the MemRowSet alone once it is past flush_bytes.
 * A MemRowSet flush needs no checkpoint: the new rowset's last_ts covers every
 * op it holds, which is what replay checks. Neither do the automatic merges
 * that follow: they keep all history (ahm 0) and flush their sources first, so
 * the output holds every op on its keys and its last_ts is the sources'
 * largest. *flushed: whether anything was written. */
static cf_status flush_due(cf_table *t, bool *flushed, cf_error *err)
{
    *flushed = false;
    if (t->wal != NULL && cf_wal_bytes(t->wal) > t->wal_max_bytes) {
        *flushed = true;
        return checkpoint(t, err);
    }
    if (cf_mrs_bytes(t->mrs) > t->flush_bytes) {
        *flushed = true;
        return flush_mrs(t, err);
    }
    return CF_OK;
}

/* Before an op: what is due must be flushed, else the op is refused (memory
 * and replay time stay bounded). */
cf_status cf_tbl_maybe_flush(cf_table *t, cf_error *err)
{
    bool flushed;
    CF_TRY(flush_due(t, &flushed, err));
    return flushed ? auto_compact(t, err) : CF_OK;
}

/* After an op is committed (logged): flush what is due, best effort. A failed
 * flush leaves the table consistent and is not this op's failure (the op is
 * durable); the next op flushes first and reports it. A merge that failed while
 * committing its TABLET leaves the handle unsure of the disk: unusable. */
void cf_tbl_flush_after(cf_table *t)
{
    cf_error e;
    bool flushed;
    if (flush_due(t, &flushed, &e) != CF_OK || !flushed)
        return;
    cf_status st = auto_compact(t, &e);
    cf_sticky_set(&t->sticky, st, &e);
}

/* Merge rowsets pick[0..np) (ascending indexes, np >= 2) into one new rowset,
 * which takes the place of the first of them in TABLET order; the others keep
 * theirs. The new directory is complete before the TABLET naming it is
 * committed. *committing is set once the TABLET write has begun: a failure from
 * then on leaves the table's state on disk unknown to this handle. */
static cf_status merge_rowsets(cf_table *t, const size_t *pick, size_t np, uint64_t ahm,
                               bool *committing, cf_error *err)
{
    char name[40];
    char *path = NULL;
    int dfd = -1;
    cf_rowset *nrs = NULL;
    cf_rowset **src = NULL;
    char **names = NULL;
    size_t nn = t->nrs - np + 1;
    cf_status st = CF_OK;
    *committing = false;
    CF_TRY_OUT(cf_tbl_new_rowset_dir(t, name, sizeof(name), &path, &dfd, err));
    src = cf_malloc(np * sizeof(*src));
    names = cf_calloc(nn, sizeof(*names));
    if (src == NULL || names == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "table: out of memory");
    for (size_t k = 0; k < np; k++)
        src[k] = t->rs[pick[k]];
    CF_TRY_OUT(cf_rs_compact_merge(src, np, dfd, path, ahm, t->file_mode, err));
    cf_tbl_match_mode(t, dfd, path);
    CF_TRY_OUT(cf_tbl_open_rowset(t, name, &nrs, err));
    for (size_t i = 0, k = 0, j = 0; i < t->nrs; i++) {
        const char *n = t->names[i];
        if (k < np && pick[k] == i) {
            if (k++ > 0)
                continue;
            n = name;
        }
        if ((names[j++] = cf_strdup(n)) == NULL)
            CF_FAIL_OUT(err, CF_ENOMEM, "table: out of memory");
    }
    size_t old_n = t->nrs;
    char **old_names = t->names;
    uint64_t old_next = t->tablet_next;
    t->names = NULL; /* cf_tbl_commit_list frees the list it replaces: keep the old one */
    t->nrs = 0;
    *committing = true;
    st = cf_tbl_commit_list(t, names, nn, err);
    names = NULL;
    if (st != CF_OK) {
        t->names = old_names;
        t->nrs = old_n;
        goto out;
    }
    size_t j = 0;
    for (size_t i = 0, k = 0; i < old_n; i++) {
        if (k < np && pick[k] == i) {
            cf_rowset_free(t->rs[i]);
            if (k++ == 0)
                t->rs[j++] = nrs;
        } else {
            t->rs[j++] = t->rs[i];
        }
    }
    t->nrs = j;
    nrs = NULL;
    cf_tbl_refresh_ahm(t);
    cf_tbl_gc_rowsets(t, old_names, old_n,
                      old_next); /* the merged rowsets: TABLET no longer names them */
    cf_tbl_free_names(old_names, old_n);
out:
    cf_tbl_free_names(names, nn);
    cf_free(src);
    cf_rowset_free(nrs);
    cf_rs_dir_close(dfd);
    cf_free(path);
    return st;
}

cf_status cf_rs_table_compact(cf_table *t, uint64_t ahm, cf_error *err)
{
    CF_TRY(cf_tbl_check_writable(t, err));
    /* a checkpoint first: the merge may drop what older log records name */
    CF_TRY(cf_table_flush(t, err));
    /* One rowset is compacted in place when no reader is pinned: the pin is
     * held from before the rewrite until the old files are removed (a reader
     * arriving meanwhile opens every file up front). With a reader pinned, the
     * old files must stay until it lets go, and only a rowset directory of its
     * own is found again by a later clean-up: the rowset is merged into a new
     * rs-<n> instead, as a merge of several would be. */
    if (t->nrs == 1 && cf_rs_pin_exclusive(t->pin_fd)) {
        cf_status st = cf_rs_compact_in_place(t->rs[0], ahm, true, err);
        cf_rs_pin_unlock(t->pin_fd);
        cf_tbl_refresh_ahm(t);
        return st;
    }
    size_t *all = cf_malloc(t->nrs * sizeof(*all));
    CF_CHECK(all != NULL, err, CF_ENOMEM, "table: out of memory");
    for (size_t i = 0; i < t->nrs; i++)
        all[i] = i;
    bool committing;
    cf_status st = merge_rowsets(t, all, t->nrs, ahm, &committing, err);
    cf_free(all);
    return st;
}

/* On-disk bytes of a rowset: its MANIFEST and every file it names. */
static uint64_t rowset_bytes(const cf_rowset *rs)
{
    uint64_t sum = 0;
    const char *name, *role;
    struct stat sb;
    int dfd = cf_rs_dir_use(rs);
    if (dfd == -1)
        return 0;
    if (cf_rs_lstat_at(dfd, cf_rs_dir(rs), CF_RS_MANIFEST, &sb) == 0)
        sum += (uint64_t)sb.st_size;
    for (size_t i = 0; cf_rowset_file_at(rs, i, &name, &role); i++)
        if (cf_rs_lstat_at(dfd, cf_rs_dir(rs), name, &sb) == 0)
            sum += (uint64_t)sb.st_size;
    cf_rs_dir_done(rs, dfd);
    return sum;
}

/* After a flush: the merges the policy asks for, until it asks for none. A
 * merge that fails before its commit leaves the table as it was (its
 * directory is removed by the next flush or merge); that is not an error of
 * the flush, which is committed: it is kept for cf_table_compaction_status
 * and the policy is asked again after the next flush. */
static cf_status auto_compact(cf_table *t, cf_error *err)
{
    if (!t->auto_compact)
        return CF_OK;
    cf_status st = CF_OK;
    cf_cpol_rowset *in = NULL;
    size_t *pick = NULL;
    bool committing = false;
    while (t->nrs >= t->cpol.fanout) {
        cf_cpol_rowset *in2 = cf_realloc(in, t->nrs * sizeof(*in));
        size_t *pick2 = in2 != NULL ? cf_realloc(pick, t->nrs * sizeof(*pick)) : NULL;
        if (in2 != NULL)
            in = in2;
        if (pick2 != NULL)
            pick = pick2;
        if (in2 == NULL || pick2 == NULL) {
            st = cf_error_set(&t->compact_err, CF_ENOMEM, __FILE__, __LINE__,
                              "automatic compaction: out of memory");
            break;
        }
        for (size_t i = 0; i < t->nrs; i++) {
            cf_rowset_info info;
            cf_rowset_get_info(t->rs[i], &info);
            in[i] = (cf_cpol_rowset){info.rows, rowset_bytes(t->rs[i])};
        }
        size_t np = cf_cpol_pick(in, t->nrs, &t->cpol, pick);
        if (np < 2)
            break;
        st = merge_rowsets(t, pick, np, 0, &committing, &t->compact_err);
        if (st != CF_OK)
            break;
    }
    cf_free(in);
    cf_free(pick);
    t->compact_st = st;
    if (st != CF_OK && committing) {
        /* The TABLET write failed part way: the handle may no longer match
         * the disk, so the caller must see it. */
        *err = t->compact_err;
        cf_error_prefix(err, st, "automatic compaction: ");
        return st;
    }
    if (st != CF_OK)
        cf_error_prefix(&t->compact_err, st, "automatic compaction: ");
    return CF_OK;
}

void cf_table_set_compaction(cf_table *t, bool on, uint64_t budget_bytes)
{
    t->auto_compact = on && !t->read_only;
    t->cpol.budget_bytes = budget_bytes ? budget_bytes : CF_TABLE_COMPACT_BUDGET;
}

cf_status cf_table_compaction_status(const cf_table *t, cf_error *err)
{
    if (t->compact_st != CF_OK && err != NULL)
        *err = t->compact_err;
    return t->compact_st;
}

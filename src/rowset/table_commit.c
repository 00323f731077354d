/* Rowsets made outside the table joining it (bulk loads, table_import.c): a
 * fresh rowset directory reserved for a load, one discarded, and the one
 * TABLET write that adds a load's rowsets (and the copies that replace
 * rowsets it reinserted into). This file must not build rowsets itself nor
 * touch the log: a load's rows are logged by no record (table_import.c says
 * why).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "table_internal.h"

#include "util/alloc.h"

cf_status cf_rs_table_reserve_rowset(cf_table *t, char **name, char **path, int *dfd, cf_error *err)
{
    *name = *path = NULL;
    *dfd = -1;
    CF_TRY(cf_tbl_check_writable(t, err));
    if (t->next_rowset == t->tablet_next) {
        /* The load's first directory: the same steps as a flush's (a TABLET
         * first, clean-up of a crashed writer's leftovers). Later ones skip the
         * clean-up, which would take the load's own unnamed directories. */
        char tmp[40];
        CF_TRY(cf_tbl_new_rowset_dir(t, tmp, sizeof(tmp), path, dfd, err));
        if ((*name = cf_strdup(tmp)) == NULL) {
            cf_free(*path);
            *path = NULL;
            cf_rs_dir_close(*dfd);
            *dfd = -1;
            CF_FAIL(err, CF_ENOMEM, "table: out of memory");
        }
        return CF_OK;
    }
    char buf[40];
    snprintf(buf, sizeof(buf), "rs-%" PRIu64, t->next_rowset++);
    *name = cf_strdup(buf);
    *path = *name != NULL ? cf_rs_path(t->dir, buf) : NULL;
    if (*path == NULL) {
        cf_free(*name);
        *name = NULL;
        CF_FAIL(err, CF_ENOMEM, "table: out of memory");
    }
    if (cf_tbl_mkdir_rowset(t, buf) != 0 || (*dfd = cf_rs_subdir_open(t->dfd, t->dir, buf)) < 0) {
        int e = errno;
        cf_status st = cf_error_set(err, e == EEXIST ? CF_ECORRUPT : CF_EIO, __FILE__, __LINE__,
                                    "%s: cannot create rowset directory: %s", *path, strerror(e));
        cf_free(*name);
        cf_free(*path);
        *name = *path = NULL;
        return st;
    }
    return CF_OK;
}

void cf_table_discard_rowset(cf_table *t, const char *name)
{
    uint64_t num;
    if (!cf_tbl_rowset_num(name, &num) || num < t->tablet_next ||
        cf_tbl_named(t->names, t->nrs, name))
        return; /* only a directory of this handle's, not yet committed */
    cf_rs_remove_dead_dir_at(t->dfd, t->dir, name);
}

cf_status cf_rs_table_commit_rowsets(cf_table *t, char *const *names, cf_rowset **rs, size_t n,
                                     const size_t *replaces, bool takes_mrs, uint64_t ts,
                                     cf_error *err)
{
    if (n == 0)
        return CF_OK;
    /* Where each of the table's rowsets goes: kept, replaced by new rowset j,
     * or (the empty root rowset of a new table, `table create`'s) dropped from
     * the list, as a compaction drops merged rowsets. */
    size_t *by = cf_malloc((t->nrs ? t->nrs : 1) * sizeof(*by));
    CF_CHECK(by != NULL, err, CF_ENOMEM, "table: out of memory");
    size_t added = 0, nrepl = 0;
    for (size_t i = 0; i < t->nrs; i++)
        by[i] = SIZE_MAX;
    for (size_t j = 0; j < n; j++) {
        size_t r = replaces != NULL ? replaces[j] : SIZE_MAX;
        if (r == SIZE_MAX) {
            added++;
            continue;
        }
        if (r >= t->nrs || by[r] != SIZE_MAX) {
            cf_free(by);
            CF_FAIL(err, CF_EINVAL, "table: bad rowset replacement");
        }
        by[r] = j;
        nrepl++;
    }
    size_t drop = SIZE_MAX;
    for (size_t i = 0; i < t->nrs; i++) {
        cf_rowset_info info;
        cf_rowset_get_info(t->rs[i], &info);
        if (by[i] == SIZE_MAX && strcmp(t->names[i], ".") == 0 && info.rows == 0 &&
            info.dms_deltas == 0)
            drop = i;
    }
    size_t keep = t->nrs - (drop != SIZE_MAX), total = keep + added;
    char **nn = cf_calloc(total, sizeof(*nn));
    cf_rowset **nrs = cf_calloc(total, sizeof(*nrs));
    cf_status st = CF_OK;
    if (nn == NULL || nrs == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "table: out of memory");
    size_t k = 0;
    for (size_t i = 0; i < t->nrs; i++) {
        if (i == drop)
            continue;
        size_t j = by[i];
        nrs[k] = j == SIZE_MAX ? t->rs[i] : rs[j];
        if ((nn[k++] = cf_strdup(j == SIZE_MAX ? t->names[i] : names[j])) == NULL)
            CF_FAIL_OUT(err, CF_ENOMEM, "table: out of memory");
    }
    for (size_t j = 0; j < n; j++) {
        if (replaces != NULL && replaces[j] != SIZE_MAX)
            continue;
        nrs[k] = rs[j];
        if ((nn[k++] = cf_strdup(names[j])) == NULL)
            CF_FAIL_OUT(err, CF_ENOMEM, "table: out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        char *d = cf_tbl_rowset_dir(t, names[i]);
        if (d == NULL)
            CF_FAIL_OUT(err, CF_ENOMEM, "table: out of memory");
        int dfd = cf_rs_subdir_open(t->dfd, t->dir, names[i]);
        if (dfd >= 0)
            cf_tbl_match_mode(t, dfd, d);
        cf_rs_dir_close(dfd);
        cf_free(d);
    }
    /* TABLET is the commit point: before it, none of the new rowsets counts. */
    CF_TRY_OUT(cf_tbl_tablet_write(t, nn, total, err));
    cf_rowset *dropped = drop != SIZE_MAX ? t->rs[drop] : NULL;
    for (size_t i = 0; i < t->nrs; i++)
        if (by[i] != SIZE_MAX)
            cf_rowset_free(t->rs[i]); /* its copy took its place */
    char **old_names = t->names;
    size_t old_n = t->nrs;
    uint64_t old_next = t->tablet_next;
    cf_free(t->rs);
    t->names = nn;
    t->rs = nrs;
    t->nrs = total;
    t->has_tablet = true;
    t->tablet_next = t->next_rowset;
    nn = NULL;
    nrs = NULL;
    if (takes_mrs)
        cf_mrs_clear(t->mrs); /* its rows are in a rowset the TABLET names now */
    if (ts > t->last_ts)
        t->last_ts = ts;
    cf_tbl_refresh_ahm(t);
    cf_rowset_free(dropped);
    if (dropped != NULL || nrepl > 0)
        cf_tbl_gc_rowsets(t, old_names, old_n,
                          old_next); /* the root rowset's or the replaced ones */
    cf_tbl_free_names(old_names, old_n);
out:
    cf_tbl_free_names(nn, total);
    cf_free(nrs);
    cf_free(by);
    return st;
}

/* The thread rule of a table handle (rowset.h "Threads"): every call on one
 * cf_table takes its mutex, so calls from several threads run one at a time
 * and each sees the last one's state whole. Without it two inserts could both
 * pass the timestamp check, build their log records in the handle's one buffer
 * and append records out of order or mixed, a log that replay refuses.
 *
 * A scanner lives across calls: it notes the handle's count of changes when it
 * is made and is refused (CF_ESTATE) once a change has happened since. Before a
 * change runs, every live scanner lets go of the stores it reads (its rowset
 * scanners): a flush frees the MemRowSet, a merge frees rowsets, and even an
 * update makes the next read rebuild a rowset's delta reader, so a scanner
 * that kept them would free, later, iterators over freed memory. */
#include <string.h>

#include "internal.h"

#include "util/error.h"

cf_status cf_rs_guard_init(cf_rs_guard *g, cf_error *err)
{
    memset(g, 0, sizeof(*g));
    pthread_mutexattr_t a;
    CF_CHECK(pthread_mutexattr_init(&a) == 0, err, CF_ENOMEM, "table: out of memory for a mutex");
    int rc = pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    if (rc == 0)
        rc = pthread_mutex_init(&g->mu, &a);
    pthread_mutexattr_destroy(&a);
    CF_CHECK(rc == 0, err, CF_ENOMEM, "table: cannot make the handle's mutex (error %d)", rc);
    return CF_OK;
}

void cf_rs_guard_dispose(cf_rs_guard *g)
{
    pthread_mutex_destroy(&g->mu);
}

void cf_rs_guard_lock(cf_rs_guard *g)
{
    pthread_mutex_lock(&g->mu);
}

void cf_rs_guard_unlock(cf_rs_guard *g)
{
    pthread_mutex_unlock(&g->mu);
}

/* A change ends every scanner made before it. */
static void begin_change(cf_rs_guard *g)
{
    cf_rs_guard_lock(g);
    g->gen++;
    cf_rs_guard_detach_scanners(g);
}

static cf_status end(cf_rs_guard *g, cf_status st)
{
    cf_rs_guard_unlock(g);
    return st;
}

cf_status cf_table_insert(cf_table *t, const void *const *values, uint64_t ts, cf_error *err)
{
    cf_rs_guard *g = cf_rs_table_guard(t);
    begin_change(g);
    return end(g, cf_rs_table_insert(t, values, ts, err));
}

cf_status cf_table_update(cf_table *t, const void *const *key, const cf_column_change *changes,
                          size_t n, uint64_t ts, cf_error *err)
{
    cf_rs_guard *g = cf_rs_table_guard(t);
    begin_change(g);
    return end(g, cf_rs_table_update(t, key, changes, n, ts, err));
}

cf_status cf_table_delete(cf_table *t, const void *const *key, uint64_t ts, cf_error *err)
{
    cf_rs_guard *g = cf_rs_table_guard(t);
    begin_change(g);
    return end(g, cf_rs_table_delete(t, key, ts, err));
}

cf_status cf_table_flush(cf_table *t, cf_error *err)
{
    cf_rs_guard *g = cf_rs_table_guard(t);
    begin_change(g);
    return end(g, cf_rs_table_flush(t, err));
}

cf_status cf_table_compact(cf_table *t, uint64_t ahm, cf_error *err)
{
    cf_rs_guard *g = cf_rs_table_guard(t);
    begin_change(g);
    return end(g, cf_rs_table_compact(t, ahm, err));
}

cf_status cf_table_commit_rowsets(cf_table *t, char *const *names, cf_rowset **rs, size_t n,
                                  const size_t *replaces, bool takes_mrs, uint64_t ts,
                                  cf_error *err)
{
    cf_rs_guard *g = cf_rs_table_guard(t);
    begin_change(g);
    return end(g, cf_rs_table_commit_rowsets(t, names, rs, n, replaces, takes_mrs, ts, err));
}

cf_status cf_table_reserve_rowset(cf_table *t, char **name, char **path, int *dfd, cf_error *err)
{
    cf_rs_guard *g = cf_rs_table_guard(t);
    cf_rs_guard_lock(g);
    return end(g, cf_rs_table_reserve_rowset(t, name, path, dfd, err));
}

cf_status cf_table_get(cf_table *t, const void *const *key, uint64_t snapshot, cf_row_batch *out,
                       cf_error *err)
{
    cf_rs_guard *g = cf_rs_table_guard(t);
    cf_rs_guard_lock(g);
    return end(g, cf_rs_table_get(t, key, snapshot, out, err));
}

cf_status cf_table_sync(cf_table *t, cf_error *err)
{
    cf_rs_guard *g = cf_rs_table_guard(t);
    cf_rs_guard_lock(g);
    return end(g, cf_rs_table_sync(t, err));
}

cf_status cf_table_key_state(cf_table *t, const uint8_t *key, size_t len,
                             const void *const *keyvals, int *state, const char **where,
                             size_t *store, cf_error *err)
{
    cf_rs_guard *g = cf_rs_table_guard(t);
    cf_rs_guard_lock(g);
    return end(g, cf_rs_table_key_state(t, key, len, keyvals, state, where, store, err));
}

/* Tables: a MemRowSet for new rows plus any number of DiskRowSets, listed by a
 * TABLET file (docs/ROWSET.md "Tables"). This file opens and closes a table
 * handle and answers its accessors; what a table is made of lives beside it,
 * one concept a file (table_internal.h lists them).
 *
 * Every key lives in exactly one store (the MemRowSet or one rowset): an insert
 * first looks the key up in the MemRowSet, then in each rowset whose key range
 * covers it (bloom, then key index); a live row refuses the insert, a deleted
 * one is reinserted where it lives, and only a key found nowhere goes to the
 * MemRowSet. Updates and deletes go to the store holding the key. Because
 * stores never share a key, scans and compactions merge them by key alone.
 *
 * Open: a writer takes the lock (lock.c) before it reads anything, then the
 * TABLET (table_tablet.c) and every rowset it names, then replays the log
 * (table_replay.c); a reader takes the pin instead, or opens every file up
 * front. This file must not write anything to the table directory itself:
 * TABLET writes and rowset directories belong to table_tablet.c, the log to
 * wal.c through table_replay.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "table_internal.h"

#include "util/alloc.h"

void cf_tbl_close_rowsets(cf_table *t)
{
    for (size_t i = 0; t->rs != NULL && i < t->nrs; i++)
        cf_rowset_free(t->rs[i]);
    cf_free(t->rs);
    t->rs = NULL;
    cf_tbl_free_names(t->names, t->nrs);
    t->names = NULL;
    t->nrs = 0;
}

void cf_table_free(cf_table *t)
{
    if (t == NULL)
        return;
    cf_tbl_close_rowsets(t);
    cf_mrs_free(t->mrs);
    cf_buf_dispose(&t->key);
    cf_rcl_builder_free(t->rcl);
    cf_wal_free(t->wal);
    cf_rcl_builder_free(t->lkey);
    cf_rcl_builder_free(t->lrcl);
    cf_free(t->rcells);
    cf_free(t->rarr);
    cf_free(t->rvals);
    cf_free(t->rchg);
    for (size_t c = 0; t->gvals != NULL && t->schema != NULL && c < t->schema->ncols; c++) {
        cf_buf_dispose(&t->gvals[c]);
        cf_buf_dispose(&t->genn[c]);
    }
    cf_schema_free(t->schema);
    cf_free(t->cells);
    cf_free(t->gcols);
    cf_free(t->gnn);
    cf_free(t->gvals);
    cf_free(t->genn);
    cf_free(t->goffs);
    cf_cache_free(t->own_cache); /* after the rowsets reading through it */
    if (t->pin_fd >= 0)
        close(t->pin_fd);           /* a reader's pin: its files are open or no longer needed */
    cf_rs_lock_release(t->lock_fd); /* last: every write is done */
    cf_rs_dir_close(t->dfd);
    cf_free(t->dir);
    cf_rs_guard_dispose(&t->guard);
    cf_free(t);
}

/* Open one rowset of the table, reading through the table's cache; it writes
 * under the table's lock (or not at all, for a reader). */
cf_status cf_tbl_open_rowset(const cf_table *t, const char *name, cf_rowset **out, cf_error *err)
{
    *out = NULL;
    char *path = cf_tbl_rowset_dir(t, name); /* for messages */
    CF_CHECK(path != NULL, err, CF_ENOMEM, "table: out of memory");
    cf_rowset_options o;
    cf_rowset_options_init(&o);
    o.cache = t->cache;
    o.cache_bytes = 0; /* no cache of its own when the table has none */
    o.mmap = t->mmap;
    cf_rs_mode mode = !t->read_only    ? CF_RS_MODE_TABLE
                      : t->pin_fd >= 0 ? CF_RS_MODE_READ_PINNED
                                       : CF_RS_MODE_READ_ONLY;
    /* below the table's descriptor, opened from it for each operation (never
     * by the table's path again) */
    cf_status st = cf_rs_open_mode_in(out, t->dfd, name, path, &o, mode, err);
    cf_free(path);
    return st;
}

cf_status cf_tbl_check_writable(const cf_table *t, cf_error *err)
{
    CF_CHECK(!t->read_only, err, CF_EINVAL, "%s: table opened read-only", t->dir);
    return CF_OK;
}

/* t->ahm := the largest ancient history mark of the rowsets. Kept current by
 * whatever changes the rowset list or compacts (open, flush, merge, compact,
 * a load's commit), so reads check it without walking every rowset. */
void cf_tbl_refresh_ahm(cf_table *t)
{
    uint64_t ahm = 0;
    for (size_t i = 0; t->rs != NULL && i < t->nrs; i++) {
        cf_rowset_info info;
        if (t->rs[i] == NULL)
            continue;
        cf_rowset_get_info(t->rs[i], &info);
        if (info.ahm > ahm)
            ahm = info.ahm;
    }
    t->ahm = ahm;
}

static cf_status open_rowsets(cf_table *t, cf_error *err)
{
    cf_status st = cf_tbl_tablet_read(t, err);
    char rsname[64];
    if (st == CF_ENOTFOUND && cf_tbl_find_rowset_dir(t->dfd, t->dir, rsname, sizeof(rsname))) {
        /* Rowset directories exist only once a TABLET does (the first flush
         * writes one before it creates rs-<n>): the list is lost, and opening
         * the root rowset alone would silently drop rows. */
        CF_FAIL(err, CF_ECORRUPT,
                "%s: TABLET (the table's list of rowsets) is missing, but rowset directory "
                "%s is here: the table is damaged",
                t->dir, rsname);
    }
    if (st == CF_ENOTFOUND) {
        t->has_tablet = false;
        t->names = cf_calloc(1, sizeof(*t->names));
        CF_CHECK(t->names != NULL, err, CF_ENOMEM, "table: out of memory");
        t->names[0] = cf_strdup(".");
        CF_CHECK(t->names[0] != NULL, err, CF_ENOMEM, "table: out of memory");
        t->nrs = 1;
        t->next_rowset = 1;
        t->tablet_next = 1;
    } else {
        CF_TRY(st);
        t->has_tablet = true;
        t->tablet_next = t->next_rowset;
    }
    t->rs = cf_calloc(t->nrs, sizeof(*t->rs));
    CF_CHECK(t->rs != NULL, err, CF_ENOMEM, "table: out of memory");
    for (size_t i = 0; i < t->nrs; i++) {
        st = cf_tbl_open_rowset(t, t->names[i], &t->rs[i], err);
        if (st != CF_OK && t->has_tablet) {
            cf_error_prefix(err, st, "rowset %s: ", t->names[i]);
            return st == CF_ENOTFOUND ? CF_ECORRUPT : st;
        }
        CF_TRY(st);
        CF_CHECK(cf_schema_equal(cf_rowset_schema(t->rs[i]), cf_rowset_schema(t->rs[0])), err,
                 CF_ECORRUPT, "rowset %s: schema differs from the table's", t->names[i]);
        cf_rowset_info info;
        cf_rowset_get_info(t->rs[i], &info);
        if (info.last_ts > t->last_ts)
            t->last_ts = info.last_ts;
    }
    cf_tbl_refresh_ahm(t);
    return CF_OK;
}

/* A reader takes no lock: a writer may commit a new TABLET and remove rowsets
 * the old one named while we open them. Then the TABLET on disk is a new one
 * and we start over from it. */
cf_status cf_tbl_open_rowsets_reader(cf_table *t, cf_error *err)
{
    cf_status st;
    for (int attempt = 0;; attempt++) {
        st = open_rowsets(t, err);
        if (st == CF_OK || st == CF_ENOMEM || attempt == 8 ||
            cf_tbl_tablet_sum_on_disk(t) == t->tablet_sum)
            break;
        cf_tbl_close_rowsets(t);
        t->tablet_sum = 0;
        t->last_ts = 0;
    }
    return st;
}

void cf_table_options_init(cf_table_options *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->version = CF_TABLE_OPTIONS_VERSION;
    opts->cache = NULL;
    opts->cache_bytes = CF_ROWSET_DEFAULT_CACHE_BYTES;
    opts->read_only = false;
    opts->lock_timeout_ms = CF_RS_LOCK_TIMEOUT_MS;
    opts->auto_compact = true;
    opts->compact_budget_bytes = CF_TABLE_COMPACT_BUDGET;
    opts->sync_mode = CF_TABLE_SYNC_COMMIT;
    opts->sync_bytes = CF_TABLE_SYNC_BYTES;
    opts->wal_max_bytes = CF_TABLE_WAL_MAX_BYTES;
}

cf_cache *cf_table_cache(const cf_table *t)
{
    return t->cache;
}

bool cf_table_read_only(const cf_table *t)
{
    return t->read_only;
}

/* Does dir hold a table at all (a TABLET or a MANIFEST)? Checked before a
 * writer creates its LOCK, so that opening a directory that is not a table
 * leaves nothing behind. */
static bool looks_like_table(const cf_table *t)
{
    struct stat sb;
    if (cf_rs_lstat_at(t->dfd, t->dir, TABLET, &sb) == 0 ||
        cf_rs_lstat_at(t->dfd, t->dir, CF_RS_MANIFEST, &sb) == 0)
        return true;
    char rsname[64];
    return cf_tbl_find_rowset_dir(t->dfd, t->dir, rsname,
                                  sizeof(rsname)); /* open reports the damage */
}

cf_status cf_table_open(cf_table **out, const char *dir, const cf_table_options *opts,
                        cf_error *err)
{
    *out = NULL;
    cf_table_options dflt;
    if (opts == NULL) {
        cf_table_options_init(&dflt);
        opts = &dflt;
    }
    CF_CHECK(opts->version == CF_TABLE_OPTIONS_VERSION, err, CF_EINVAL,
             "table: options.version %u unknown", opts->version);
    CF_CHECK(opts->compact_budget_bytes > 0, err, CF_EINVAL,
             "table: options.compact_budget_bytes must be > 0");
    CF_CHECK(opts->sync_mode <= CF_TABLE_SYNC_NONE, err, CF_EINVAL,
             "table: options.sync_mode %d unknown", (int)opts->sync_mode);
    CF_CHECK(opts->sync_bytes > 0, err, CF_EINVAL, "table: options.sync_bytes must be above 0");
    CF_CHECK(opts->wal_max_bytes > 0 && opts->wal_max_bytes <= ((uint64_t)1 << 30), err, CF_EINVAL,
             "table: options.wal_max_bytes %" PRIu64 " is not in 1..2^30", opts->wal_max_bytes);
    cf_table *t = cf_calloc(1, sizeof(*t));
    CF_CHECK(t != NULL, err, CF_ENOMEM, "table: out of memory");
    cf_status gst = cf_rs_guard_init(&t->guard, err);
    if (gst != CF_OK) {
        cf_free(t);
        return gst;
    }
    t->lock_fd = -1;
    t->pin_fd = -1;
    t->dfd = -1;
    t->read_only = opts->read_only;
    t->mmap = opts->mmap;
    cf_buf_init(&t->key);
    t->flush_bytes = CF_TABLE_FLUSH_BYTES;
    t->auto_compact = opts->auto_compact && !opts->read_only;
    t->cpol = (cf_cpol_options){CF_TABLE_COMPACT_FANOUT, opts->compact_budget_bytes,
                                CF_TABLE_COMPACT_MAX_INPUTS};
    t->sync_mode = opts->sync_mode;
    t->sync_bytes = opts->sync_bytes;
    t->wal_max_bytes = opts->wal_max_bytes;
    cf_status st = CF_OK;
    if ((t->dir = cf_strdup(dir)) == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "table: out of memory");
    /* The directory is opened once, here: everything after reaches it through
     * t->dfd, never by its path again. One that cannot be opened fails now,
     * saying why (a fallback to paths would lose that guarantee for one case). */
    if ((t->dfd = cf_rs_dir_open(dir)) < 0) {
        int e = errno;
        t->dfd = -1;
        if (e == ENOENT || e == ENOTDIR)
            CF_FAIL_OUT(err, CF_ENOTFOUND, "%s: no table here (%s)", dir, strerror(e));
        CF_FAIL_OUT(err, e == ENOMEM ? CF_ENOMEM : CF_EIO, "%s: cannot open the directory: %s", dir,
                    strerror(e));
    }
    t->cache = opts->cache;
    if (t->cache == NULL && opts->cache_bytes > 0) {
        CF_TRY_OUT(cf_cache_create(&t->own_cache, opts->cache_bytes, err));
        t->cache = t->own_cache;
    }
    if (!t->read_only) {
        /* The lock comes before any metadata is read: what we read is then what
         * we write on top of, until close. */
        if (!looks_like_table(t))
            CF_FAIL_OUT(err, CF_ENOTFOUND, "%s: no table here (no %s or %s)", dir, TABLET,
                        CF_RS_MANIFEST);
        CF_TRY_OUT(
            cf_rs_lock_acquire_at(&t->lock_fd, NULL, t->dfd, dir, opts->lock_timeout_ms, err));
        /* -1: clean-up keeps what readers might use */
        t->pin_fd = cf_rs_pin_open_at(t->dfd, dir);
        if ((t->file_mode = cf_tbl_mode_of(t, TABLET)) == 0)
            t->file_mode = cf_tbl_mode_of(t, CF_RS_MANIFEST);
        t->dir_mode = cf_tbl_mode_of(t, ".");
        CF_TRY_OUT(open_rowsets(t, err));
    } else {
        /* A reader takes no lock. Pinned (before anything is read: every file
         * the TABLET and MANIFESTs we read name then stays until we let go),
         * it opens each rowset's files at first use. Unpinned (the writer is
         * removing files right now), a writer may commit a new TABLET and
         * remove rowsets the old one named while we open them: we open every
         * file up front, and start over from a new TABLET when one appears. */
        t->pin_fd = cf_rs_pin_shared_at(t->dfd, dir);
        t->wal_seq0 = cf_tbl_newest_seq(t);
        CF_TRY_OUT(cf_tbl_open_rowsets_reader(t, err));
    }
    CF_TRY_OUT(cf_schema_clone(&t->schema, cf_rowset_schema(t->rs[0]), err));
    const cf_schema *s = t->schema;
    CF_TRY_OUT(cf_mrs_create(&t->mrs, s, err));
    CF_TRY_OUT(cf_rcl_builder_create(&t->rcl, err));
    t->cells = cf_calloc(s->ncols, sizeof(*t->cells));
    t->gcols = cf_calloc(s->ncols, sizeof(*t->gcols));
    t->gnn = cf_calloc(s->ncols, 1);
    t->gvals = cf_calloc(s->ncols, sizeof(*t->gvals));
    t->genn = cf_calloc(s->ncols, sizeof(*t->genn));
    t->goffs = cf_calloc(s->ncols * 2, sizeof(*t->goffs));
    t->rcells = cf_calloc(s->ncols, sizeof(*t->rcells));
    t->rarr = cf_calloc(s->ncols, sizeof(*t->rarr));
    t->rvals = cf_calloc(s->ncols, sizeof(*t->rvals));
    t->rchg = cf_calloc(s->ncols, sizeof(*t->rchg));
    if (t->cells == NULL || t->gcols == NULL || t->gnn == NULL || t->gvals == NULL ||
        t->genn == NULL || t->goffs == NULL || t->rcells == NULL || t->rarr == NULL ||
        t->rvals == NULL || t->rchg == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "table: out of memory");
    CF_TRY_OUT(cf_rcl_builder_create(&t->lkey, err));
    CF_TRY_OUT(cf_rcl_builder_create(&t->lrcl, err));
    CF_TRY_OUT(cf_tbl_wal_attach(t, !t->read_only, err));
out:
    if (st != CF_OK) {
        cf_table_free(t);
        return st;
    }
    *out = t;
    return CF_OK;
}

cf_status cf_table_close(cf_table *t, cf_error *err)
{
    if (t == NULL)
        return CF_OK;
    /* No flush: every acknowledged op is in the log. Group commit's last ops
     * are synced here. */
    cf_rs_guard_lock(&t->guard);
    cf_status st = cf_sticky_replay(&t->sticky, "table", err);
    if (st == CF_OK && t->wal != NULL)
        st = cf_wal_sync(t->wal, err);
    cf_rs_guard_unlock(&t->guard);
    cf_table_free(t);
    return st;
}

void cf_table_set_flush_bytes(cf_table *t, size_t bytes)
{
    t->flush_bytes = bytes ? bytes : CF_TABLE_FLUSH_BYTES;
}

void cf_table_set_sync(cf_table *t, cf_table_sync_mode mode, uint64_t sync_bytes)
{
    t->sync_mode = mode <= CF_TABLE_SYNC_NONE ? mode : CF_TABLE_SYNC_COMMIT;
    t->sync_bytes = sync_bytes ? sync_bytes : CF_TABLE_SYNC_BYTES;
    if (t->wal != NULL)
        cf_wal_set_mode(t->wal, (cf_wal_sync_mode)t->sync_mode, t->sync_bytes);
}

void cf_table_set_wal_max_bytes(cf_table *t, uint64_t bytes)
{
    t->wal_max_bytes = bytes ? bytes : CF_TABLE_WAL_MAX_BYTES;
}

const cf_schema *cf_table_schema(const cf_table *t)
{
    return t->schema;
}

uint64_t cf_table_last_ts(const cf_table *t)
{
    cf_rs_guard *g = (cf_rs_guard *)&t->guard; /* the lock, not the table, changes */
    cf_rs_guard_lock(g);
    uint64_t ts = t->last_ts;
    cf_rs_guard_unlock(g);
    return ts;
}

uint64_t cf_table_ahm(const cf_table *t)
{
    return t->ahm;
}

size_t cf_table_mrs_rows(const cf_table *t)
{
    return cf_mrs_rows(t->mrs);
}

size_t cf_table_rowset_count(const cf_table *t)
{
    return t->nrs;
}

cf_rowset *cf_table_rowset_at(const cf_table *t, size_t i, const char **name)
{
    if (i >= t->nrs)
        return NULL;
    if (name != NULL)
        *name = t->names[i];
    return t->rs[i];
}

/* Internal, for table_scan.c. */
cf_mrs *cf_table_mrs(const cf_table *t)
{
    return t->mrs;
}

bool cf_table_pinned(const cf_table *t)
{
    return t->read_only && t->pin_fd >= 0;
}

unsigned cf_table_file_mode(const cf_table *t)
{
    return t->file_mode;
}

cf_status cf_table_open_rowset(const cf_table *t, const char *name, cf_rowset **out, cf_error *err)
{
    return cf_tbl_open_rowset(t, name, out, err);
}

cf_rs_guard *cf_rs_table_guard(cf_table *t)
{
    return &t->guard;
}

/* Tables: a MemRowSet for new rows plus any number of DiskRowSets, listed by a
 * TABLET file (docs/ROWSET.md "Tables").
 *
 * Every key lives in exactly one store (the MemRowSet or one rowset): an insert
 * first looks the key up in the MemRowSet, then in each rowset whose key range
 * covers it (bloom, then key index); a live row refuses the insert, a deleted
 * one is reinserted where it lives, and only a key found nowhere goes to the
 * MemRowSet. Updates and deletes go to the store holding the key. Because
 * stores never share a key, scans and compactions merge them by key alone.
 *
 * TABLET: text lines, written atomically (temp + fsync + rename):
 *   cfile-tablet 2       (1: written before the wal line existed; still read)
 *   next_rowset N        (subdirectory numbers are never reused)
 *   wal SEQ BYTES        (version 2 only, once: the log segment the table
 *                         needs, and its bytes durable at this commit; see
 *                         "the log segment the table needs" below)
 *   rowset NAME          (one per DiskRowSet: "." = the table directory itself,
 *                         the older one-rowset layout; else "rs-<n>")
 *   end CHECKSUM         (FNV-1a 64 of every byte before "end", 16 hex digits)
 * A rowset directory counts only once TABLET names it; after a crash, unnamed
 * rs-* directories (and an unnamed root rowset) that are provably ours are
 * removed by the next flush or compaction (gc_rowsets; docs/ROWSET.md
 * "Clean-up"). The first flush writes a TABLET before it creates rs-<n>, so
 * rs-<n> beside no TABLET is damage, never the older one-rowset layout.
 *
 * After each flush of the MemRowSet, automatic compaction merges the rowsets
 * compaction_policy.c picks (a subset; the output takes the first one's place
 * in TABLET order), so the rowset count stays logarithmic in the rows.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compaction_policy.h"
#include "memrowset.h"
#include "wal.h"

#include "util/alloc.h"
#include "util/bitmap.h"
#include "util/error.h"

#define TABLET CF_RS_TABLET
#define MAX_TABLET_LEN (16u << 20)

struct cf_table {
    char *dir;
    bool read_only;
    bool mmap; /* cf_table_options.mmap, passed to every rowset */
    /* Modes new files and rowset directories get (0: the defaults): those of
     * the table's metadata (TABLET, else the root MANIFEST) and its directory
     * at open, so a table made private stays private as it grows. */
    unsigned file_mode, dir_mode;
    uint64_t ahm; /* cf_table_ahm: the largest of the rowsets', kept current */
    int lock_fd;  /* the writer lock (lock.c); -1 for a reader */
    /* The reader pin (lock.c, docs/ROWSET.md "Readers: the pin"): a writer's fd
     * of the directory, taken exclusively around removals of what a commit made
     * obsolete; a reader's, held shared from before it reads TABLET until it is
     * freed (-1: not pinned; it then opened every file up front). */
    int pin_fd;
    uint64_t tablet_sum;  /* checksum of the TABLET read at open (0: none) */
    uint64_t tablet_next; /* next_rowset of the TABLET on disk (1 when there is none) */
    /* One block cache for every rowset of the table (rowsets come and go with
     * flushes and compactions; the cache stays). own_cache is freed with t. */
    cf_cache *cache, *own_cache;
    cf_schema *schema; /* a copy: rowsets come and go with compactions */
    cf_rowset **rs;
    char **names;
    size_t nrs;
    uint64_t next_rowset;
    bool has_tablet;
    cf_mrs *mrs;
    uint64_t last_ts;
    size_t flush_bytes;
    cf_buf key;
    cf_rcl_builder *rcl;
    /* cf_table_get on a MemRowSet row: the returned views */
    cf_mrs_cell *cells;
    cf_batch *gcols;
    uint8_t *gnn;
    cf_buf *gvals, *genn; /* array columns: the row's elements */
    uint32_t *goffs;      /* array columns: [0, count] per column */
    /* Automatic compaction after flushes (compaction_policy.h). */
    bool auto_compact;
    cf_cpol_options cpol;
    cf_error compact_err; /* the last automatic merge that failed */
    cf_status compact_st;
    /* The write-ahead log (docs/ROWSET.md "Write-ahead log"): every insert,
     * update and delete is applied in memory, then appended (and by default
     * synced) before it returns success. NULL for a reader. */
    cf_wal *wal;
    cf_table_sync_mode sync_mode;
    uint64_t sync_bytes, wal_max_bytes;
    cf_wal_need wal_need;        /* what the TABLET on disk records of the log (seq 0: none) */
    cf_rcl_builder *lkey, *lrcl; /* the op being logged: its key and change list */
    cf_wal_op lop;
    bool lop_mrs; /* the op being applied went to the MemRowSet (CF_WAL_OP_MRS) */
    /* A log append or sync failed after the op was applied in memory: memory is
     * now ahead of the log, so the handle refuses everything (close does not
     * flush); reopening replays what is durable. */
    cf_sticky sticky;  /* the first failure that left the handle unusable, replayed */
    uint64_t wal_seq0; /* a reader: the newest log segment before it read TABLET */
    /* replay: one op's values in memory form */
    cf_mrs_cell *rcells;
    cf_array_cell *rarr;
    const void **rvals;
    cf_column_change *rchg;
    uint64_t files_ts; /* replay: the largest last_ts of the rowsets' files at open */
    uint64_t replay_applied, replay_probes; /* cf_table_replay_stats */
    cf_rs_guard guard;                      /* the thread rule (table_guard.c) */
};

static cf_status usable(const cf_table *t, cf_error *err);
static void flush_after(cf_table *t);
static cf_status wal_attach(cf_table *t, bool writer, cf_error *err);

/* ---- TABLET ----------------------------------------------------------------------------- */

static bool rowset_name_ok(const char *n)
{
    if (strcmp(n, ".") == 0)
        return true;
    if (strncmp(n, "rs-", 3) != 0 || n[3] == '\0')
        return false;
    for (const char *p = n + 3; *p; p++)
        if (*p < '0' || *p > '9')
            return false;
    return true;
}

static char *dup_str(const char *s)
{
    size_t l = strlen(s);
    char *p = cf_malloc(l + 1);
    if (p != NULL)
        memcpy(p, s, l + 1);
    return p;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; names != NULL && i < n; i++)
        cf_free(names[i]);
    cf_free(names);
}

static void wal_retire_after(cf_table *t, uint64_t old_seq);

/* Write a TABLET naming `names` (t->next_rowset, t->file_mode). A writer's
 * carries the wal line (version 2): its log's current segment and the bytes of
 * it known durable now; t->wal_need follows once committed. */
static cf_status tablet_write(cf_table *t, char *const *names, size_t n, cf_error *err)
{
    cf_wal_need need = t->wal_need;
    if (t->wal != NULL)
        need = (cf_wal_need){cf_wal_seq(t->wal), cf_wal_durable_bytes(t->wal)};
    cf_buf b;
    cf_buf_init(&b);
    char line[128];
    snprintf(line, sizeof(line), "cfile-tablet %d\nnext_rowset %" PRIu64 "\n", need.seq > 0 ? 2 : 1,
             t->next_rowset);
    cf_buf_append(&b, line, strlen(line));
    if (need.seq > 0) {
        snprintf(line, sizeof(line), "wal %" PRIu64 " %" PRIu64 "\n", need.seq, need.bytes);
        cf_buf_append(&b, line, strlen(line));
    }
    for (size_t i = 0; i < n; i++) {
        cf_buf_append(&b, "rowset ", 7);
        cf_buf_append(&b, names[i], strlen(names[i]));
        cf_buf_put_u8(&b, '\n');
    }
    snprintf(line, sizeof(line), "end %016" PRIx64 "\n", cf_rs_fnv1a(b.data, b.len));
    cf_buf_append(&b, line, strlen(line));
    cf_status st = CF_OK;
    cf_io *io = NULL;
    char *path = cf_rs_path(t->dir, TABLET);
    if (b.oom || path == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "tablet: out of memory");
    CF_TRY_OUT(cf_io_create_file_mode(&io, path, t->file_mode, err));
    CF_TRY_OUT(io->ops->append(io, b.data, b.len, err));
    CF_TRY_OUT(io->ops->commit(io, err));
    uint64_t old_seq = t->wal_need.seq;
    t->wal_need = need;
    wal_retire_after(t, old_seq);
out:
    cf_io_free(io);
    cf_free(path);
    cf_buf_dispose(&b);
    return st;
}

/* "SEQ BYTES" of a wal line: SEQ >= 1, a header's bytes at least. */
static int tablet_parse_wal(const char *s, cf_wal_need *need)
{
    char *end;
    errno = 0;
    if (*s < '0' || *s > '9')
        return -1;
    need->seq = strtoull(s, &end, 10);
    if (errno != 0 || *end != ' ' || end[1] < '0' || end[1] > '9' || need->seq == 0)
        return -1;
    need->bytes = strtoull(end + 1, &end, 10);
    if (errno != 0 || *end != '\0' || need->bytes < CF_WAL_HEADER_LEN ||
        need->bytes > CF_WAL_MAX_SEGMENT)
        return -1;
    return 0;
}

/* Read TABLET into t->names / next_rowset / wal_need; CF_ENOTFOUND when there
 * is none. */
static cf_status tablet_read(cf_table *t, cf_error *err)
{
    t->wal_need = (cf_wal_need){0, 0};
    char *path = cf_rs_path(t->dir, TABLET);
    CF_CHECK(path != NULL, err, CF_ENOMEM, "tablet: out of memory");
    cf_status st = CF_OK;
    cf_io *io = NULL;
    char *text = NULL;
    if (access(path, F_OK) != 0)
        CF_FAIL_OUT(err, CF_ENOTFOUND, "no TABLET");
    CF_TRY_OUT(cf_io_open_file(&io, path, err));
    uint64_t size = io->ops->size(io);
    if (size > MAX_TABLET_LEN)
        CF_FAIL_OUT(err, CF_ECORRUPT, "tablet: %" PRIu64 " bytes is too large", size);
    text = cf_malloc((size_t)size + 1);
    if (text == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "tablet: out of memory");
    CF_TRY_OUT(io->ops->read_at(io, 0, text, (size_t)size, err));
    text[size] = '\0';
    if (size < 21 || memcmp(text + size - 21, "end ", 4) != 0 || text[size - 1] != '\n')
        CF_FAIL_OUT(err, CF_ECORRUPT, "tablet: truncated (no end line)");
    t->tablet_sum = strtoull(text + size - 17, NULL, 16);
    if (cf_rs_fnv1a((const uint8_t *)text, (size_t)size - 21) != t->tablet_sum)
        CF_FAIL_OUT(err, CF_ECORRUPT, "tablet: checksum mismatch");
    text[size - 21] = '\0';
    char *save = NULL;
    size_t line = 0;
    bool magic = false;
    int version = 0;
    bool wal_line = false;
    for (char *ln = strtok_r(text, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
        line++;
        if (!magic) {
            if (strcmp(ln, "cfile-tablet 1") == 0 || strcmp(ln, "cfile-tablet 2") == 0)
                version = ln[13] - '0';
            else
                CF_FAIL_OUT(err, strncmp(ln, "cfile-tablet ", 13) == 0 ? CF_ENOTSUP : CF_ECORRUPT,
                            "tablet: unknown header '%.40s'", ln);
            magic = true;
        } else if (version >= 2 && strncmp(ln, "wal ", 4) == 0) {
            if (wal_line || tablet_parse_wal(ln + 4, &t->wal_need) != 0)
                CF_FAIL_OUT(err, CF_ECORRUPT, "tablet line %zu: bad wal line", line);
            wal_line = true;
        } else if (strncmp(ln, "next_rowset ", 12) == 0) {
            char *end;
            errno = 0;
            t->next_rowset = strtoull(ln + 12, &end, 10);
            if (*end != '\0' || errno != 0 || ln[12] < '0' || ln[12] > '9')
                CF_FAIL_OUT(err, CF_ECORRUPT, "tablet line %zu: bad next_rowset", line);
        } else if (strncmp(ln, "rowset ", 7) == 0) {
            if (!rowset_name_ok(ln + 7) || t->nrs >= 1u << 20)
                CF_FAIL_OUT(err, CF_ECORRUPT, "tablet line %zu: bad rowset name", line);
            char **p = cf_realloc(t->names, (t->nrs + 1) * sizeof(*p));
            if (p == NULL)
                CF_FAIL_OUT(err, CF_ENOMEM, "tablet: out of memory");
            t->names = p;
            if ((p[t->nrs] = dup_str(ln + 7)) == NULL)
                CF_FAIL_OUT(err, CF_ENOMEM, "tablet: out of memory");
            t->nrs++;
        } else {
            CF_FAIL_OUT(err, CF_ECORRUPT, "tablet line %zu: unknown field", line);
        }
    }
    if (!magic || t->nrs == 0)
        CF_FAIL_OUT(err, CF_ECORRUPT, "tablet: no rowset");
    if (version >= 2 && !wal_line)
        CF_FAIL_OUT(err, CF_ECORRUPT, "tablet: no wal line (version 2 has one)");
out:
    cf_io_free(io);
    cf_free(path);
    cf_free(text);
    return st;
}

/* The checksum on the end line of the TABLET now on disk (0 when unreadable). */
static uint64_t tablet_sum_on_disk(const char *dir)
{
    char *path = cf_rs_path(dir, TABLET);
    uint64_t sum = 0;
    FILE *f = path != NULL ? fopen(path, "rb") : NULL;
    char tail[22];
    if (f != NULL && fseek(f, -21, SEEK_END) == 0 && fread(tail, 1, 21, f) == 21 &&
        memcmp(tail, "end ", 4) == 0) {
        tail[20] = '\0';
        sum = strtoull(tail + 4, NULL, 16);
    }
    if (f != NULL)
        fclose(f);
    cf_free(path);
    return sum;
}

static char *rowset_dir(const cf_table *t, const char *name)
{
    return strcmp(name, ".") == 0 ? dup_str(t->dir) : cf_rs_path(t->dir, name);
}

/* ---- garbage: rowset directories and root files TABLET does not name -------------------- */

static bool named(char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return false;
}

/* "rs-<n>" exactly (n decimal, no leading zero): *num = n. */
static bool rowset_num(const char *n, uint64_t *num)
{
    if (strncmp(n, "rs-", 3) != 0 || n[3] < '1' || n[3] > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(n + 3, &end, 10);
    if (*end != '\0' || errno != 0)
        return false;
    *num = v;
    return true;
}

/* Does path hold a MANIFEST of ours (its checksum checks)? */
static bool has_our_manifest(const char *path)
{
    cf_rs_manifest m;
    cf_error e;
    if (cf_rs_manifest_read(&m, path, &e) != CF_OK)
        return false;
    cf_rs_manifest_dispose(&m);
    return true;
}

/* Clean-up of the table directory (docs/ROWSET.md "Clean-up"), under the writer
 * lock, once a TABLET exists: it is then the one list of rowsets. Removed are
 * only TABLET temporaries and rowset directories "rs-<n>" (real directories, by
 * lstat: a symlink named like one is left alone) that the TABLET does not name
 * and that are provably ours: named by the TABLET a commit just replaced (prev),
 * numbered at or past the committed next_rowset (an unfinished flush or merge),
 * or holding a MANIFEST of ours. Inside one, only our own file names go
 * (cf_rs_remove_dead_dir); a directory that still holds anything else stays. */
static void gc_rowsets(const cf_table *t, char *const *prev, size_t nprev, uint64_t prev_next)
{
    /* What a committed TABLET named may be in use by a pinned reader that read
     * that TABLET: removed only while no reader is pinned (any reader pinned
     * later reads the TABLET just committed, which names none of it), else
     * left for a later clean-up, which finds it by its MANIFEST. */
    bool unpinned = cf_rs_pin_exclusive(t->pin_fd);
    DIR *d = opendir(t->dir);
    if (d == NULL) {
        cf_rs_pin_unlock(t->pin_fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        uint64_t num;
        char *p = cf_rs_path(t->dir, n);
        struct stat sb;
        if (p == NULL || lstat(p, &sb) != 0) {
            cf_free(p);
            continue;
        }
        if (cf_rs_tmp_name(n, TABLET) && S_ISREG(sb.st_mode)) {
            unlink(p); /* a TABLET write cut short */
        } else if (rowset_num(n, &num) && S_ISDIR(sb.st_mode) && !named(t->names, t->nrs, n)) {
            if (num >= prev_next) /* never named by a committed TABLET */
                cf_rs_remove_dead_dir(p);
            else if (!unpinned)
                ; /* perhaps a pinned reader's: for a later clean-up */
            else if (named(prev, nprev, n) || has_our_manifest(p))
                cf_rs_remove_dead_dir(p);
            else
                rmdir(p); /* emptied by a clean-up a crash cut short; kept if not empty */
        }
        cf_free(p);
    }
    closedir(d);
    if (unpinned && !named(t->names, t->nrs, ".")) {
        /* The root rowset was merged away: the files its MANIFEST names (and
         * unfinished ones past its next_file), then the MANIFEST itself, so a
         * crash midway leaves it to name what is left. */
        cf_rs_manifest m;
        cf_error e2;
        if (cf_rs_manifest_read(&m, t->dir, &e2) == CF_OK) {
            cf_rs_gc(t->dir, NULL, &m, m.next_file);
            cf_rs_manifest_dispose(&m);
            char *p = cf_rs_path(t->dir, CF_RS_MANIFEST);
            struct stat sb;
            if (p != NULL && lstat(p, &sb) == 0 && S_ISREG(sb.st_mode))
                unlink(p);
            cf_free(p);
        }
    }
    cf_rs_pin_unlock(t->pin_fd);
}

/* The first "rs-<n>" entry of dir into name (any kind: a rowset directory or
 * something named like one); false when there is none. */
static bool find_rowset_dir(const char *dir, char *name, size_t cap)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return false;
    struct dirent *e;
    bool found = false;
    while (!found && (e = readdir(d)) != NULL) {
        uint64_t num;
        size_t l = strlen(e->d_name);
        if (rowset_num(e->d_name, &num) && l < cap) {
            memcpy(name, e->d_name, l + 1);
            found = true;
        }
    }
    closedir(d);
    return found;
}

/* ---- open / close ------------------------------------------------------------------------- */

static void close_rowsets(cf_table *t)
{
    for (size_t i = 0; t->rs != NULL && i < t->nrs; i++)
        cf_rowset_free(t->rs[i]);
    cf_free(t->rs);
    t->rs = NULL;
    free_names(t->names, t->nrs);
    t->names = NULL;
    t->nrs = 0;
}

void cf_table_free(cf_table *t)
{
    if (t == NULL)
        return;
    close_rowsets(t);
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
    cf_free(t->dir);
    cf_rs_guard_dispose(&t->guard);
    cf_free(t);
}

/* The permission bits of dir/name (0 when it is not a regular file or dir). */
static unsigned mode_of(const char *dir, const char *name)
{
    char *p = name != NULL ? cf_rs_path(dir, name) : NULL;
    struct stat sb;
    unsigned m = 0;
    if ((name == NULL || p != NULL) && lstat(p != NULL ? p : dir, &sb) == 0 &&
        (S_ISREG(sb.st_mode) || S_ISDIR(sb.st_mode)))
        m = (unsigned)(sb.st_mode & 07777);
    cf_free(p);
    return m;
}

/* The files of a new rowset directory take the table's file mode (they were
 * created with the defaults by the rowset writers) before TABLET names them;
 * only regular files, by lstat. */
static void match_mode(const cf_table *t, const char *path)
{
    if (t->file_mode == 0)
        return;
    DIR *d = opendir(path);
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *p = cf_rs_path(path, e->d_name);
        struct stat sb;
        if (p != NULL && lstat(p, &sb) == 0 && S_ISREG(sb.st_mode) &&
            (sb.st_mode & 07777) != t->file_mode)
            (void)chmod(p, t->file_mode);
        cf_free(p);
    }
    closedir(d);
}

/* mkdir a new rowset directory with the table directory's mode. */
static int mkdir_rowset(const cf_table *t, const char *path)
{
    if (mkdir(path, t->dir_mode ? 0700 : 0777) != 0)
        return -1;
    if (t->dir_mode)
        (void)chmod(path, t->dir_mode);
    return 0;
}

/* Open one rowset of the table, reading through the table's cache; it writes
 * under the table's lock (or not at all, for a reader). */
static cf_status open_rowset(const cf_table *t, const char *path, cf_rowset **out, cf_error *err)
{
    cf_rowset_options o;
    cf_rowset_options_init(&o);
    o.cache = t->cache;
    o.cache_bytes = 0; /* no cache of its own when the table has none */
    o.mmap = t->mmap;
    cf_rs_mode mode = !t->read_only    ? CF_RS_MODE_TABLE
                      : t->pin_fd >= 0 ? CF_RS_MODE_READ_PINNED
                                       : CF_RS_MODE_READ_ONLY;
    return cf_rs_open_mode(out, path, &o, mode, err);
}

static cf_status check_writable(const cf_table *t, cf_error *err)
{
    CF_CHECK(!t->read_only, err, CF_EINVAL, "%s: table opened read-only", t->dir);
    return CF_OK;
}

/* t->ahm := the largest ancient history mark of the rowsets. Kept current by
 * whatever changes the rowset list or compacts (open, flush, merge, compact,
 * a load's commit), so reads check it without walking every rowset. */
static void refresh_ahm(cf_table *t)
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
    cf_status st = tablet_read(t, err);
    char rsname[64];
    if (st == CF_ENOTFOUND && find_rowset_dir(t->dir, rsname, sizeof(rsname))) {
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
        t->names[0] = dup_str(".");
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
        char *d = rowset_dir(t, t->names[i]);
        CF_CHECK(d != NULL, err, CF_ENOMEM, "table: out of memory");
        st = open_rowset(t, d, &t->rs[i], err);
        cf_free(d);
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
    refresh_ahm(t);
    return CF_OK;
}

/* A reader takes no lock: a writer may commit a new TABLET and remove rowsets
 * the old one named while we open them. Then the TABLET on disk is a new one
 * and we start over from it. */
static cf_status open_rowsets_reader(cf_table *t, cf_error *err)
{
    cf_status st;
    for (int attempt = 0;; attempt++) {
        st = open_rowsets(t, err);
        if (st == CF_OK || st == CF_ENOMEM || attempt == 8 ||
            tablet_sum_on_disk(t->dir) == t->tablet_sum)
            break;
        close_rowsets(t);
        t->tablet_sum = 0;
        t->last_ts = 0;
    }
    return st;
}

/* The newest log segment's number: 0 when there is none, UINT64_MAX when the
 * directory cannot be listed (then no two readings agree). */
static uint64_t newest_seq(const char *dir)
{
    uint64_t *seqs = NULL, seq = 0;
    size_t n = 0;
    cf_error e;
    if (cf_wal_list(dir, &seqs, &n, &e) != CF_OK)
        return UINT64_MAX;
    if (n > 0)
        seq = seqs[n - 1];
    cf_free(seqs);
    return seq;
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
static bool looks_like_table(const char *dir)
{
    bool any = false;
    const char *names[] = {TABLET, CF_RS_MANIFEST};
    for (size_t i = 0; i < 2 && !any; i++) {
        char *p = cf_rs_path(dir, names[i]);
        struct stat sb;
        any = p == NULL || lstat(p, &sb) == 0; /* out of memory: let open report it */
        cf_free(p);
    }
    char rsname[64];
    return any || find_rowset_dir(dir, rsname, sizeof(rsname)); /* open reports the damage */
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
    if ((t->dir = dup_str(dir)) == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "table: out of memory");
    t->cache = opts->cache;
    if (t->cache == NULL && opts->cache_bytes > 0) {
        CF_TRY_OUT(cf_cache_create(&t->own_cache, opts->cache_bytes, err));
        t->cache = t->own_cache;
    }
    if (!t->read_only) {
        /* The lock comes before any metadata is read: what we read is then what
         * we write on top of, until close. */
        if (!looks_like_table(dir))
            CF_FAIL_OUT(err, CF_ENOTFOUND, "%s: no table here (no %s or %s)", dir, TABLET,
                        CF_RS_MANIFEST);
        CF_TRY_OUT(cf_rs_lock_acquire(&t->lock_fd, dir, opts->lock_timeout_ms, err));
        t->pin_fd = cf_rs_pin_open(dir); /* -1: clean-up keeps what readers might use */
        if ((t->file_mode = mode_of(dir, TABLET)) == 0)
            t->file_mode = mode_of(dir, CF_RS_MANIFEST);
        t->dir_mode = mode_of(dir, NULL);
        CF_TRY_OUT(open_rowsets(t, err));
    } else {
        /* A reader takes no lock. Pinned (before anything is read: every file
         * the TABLET and MANIFESTs we read name then stays until we let go),
         * it opens each rowset's files at first use. Unpinned (the writer is
         * removing files right now), a writer may commit a new TABLET and
         * remove rowsets the old one named while we open them: we open every
         * file up front, and start over from a new TABLET when one appears. */
        t->pin_fd = cf_rs_pin_shared(dir);
        t->wal_seq0 = newest_seq(dir);
        CF_TRY_OUT(open_rowsets_reader(t, err));
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
    CF_TRY_OUT(wal_attach(t, !t->read_only, err));
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

/* ---- flush ---------------------------------------------------------------------------------- */

/* Commit a new rowset list: TABLET first (the commit point), then the in-memory
 * state. `names` is taken over. */
static cf_status commit_list(cf_table *t, char **names, size_t n, cf_error *err)
{
    cf_status st = tablet_write(t, names, n, err);
    if (st != CF_OK) {
        free_names(names, n);
        return st;
    }
    free_names(t->names, t->nrs);
    t->names = names;
    t->has_tablet = true;
    t->tablet_next = t->next_rowset;
    return CF_OK;
}

/* Create a fresh rowset subdirectory (after removing a crashed writer's
 * leftovers). Its name is never reused: one that still exists is an error. */
static cf_status new_rowset_dir(cf_table *t, char *name, size_t cap, char **path, cf_error *err)
{
    *path = NULL;
    if (!t->has_tablet) {
        /* The first rowset directory: a TABLET (naming the root rowset) comes
         * first, so rs-<n> directories never exist without one and a missing
         * TABLET beside them always reads as damage. */
        CF_TRY(tablet_write(t, t->names, t->nrs, err));
        t->has_tablet = true;
        t->tablet_next = t->next_rowset;
    }
    gc_rowsets(t, NULL, 0, t->tablet_next);
    snprintf(name, cap, "rs-%" PRIu64, t->next_rowset++);
    *path = cf_rs_path(t->dir, name);
    CF_CHECK(*path != NULL, err, CF_ENOMEM, "table: out of memory");
    if (mkdir_rowset(t, *path) != 0) {
        int e = errno;
        CF_FAIL(err, e == EEXIST ? CF_ECORRUPT : CF_EIO, "%s: cannot create rowset directory: %s%s",
                *path, strerror(e),
                e == EEXIST ? " (it holds files that are not ours; rowset names are never reused)"
                            : "");
    }
    return CF_OK;
}

static cf_status flush_mrs(cf_table *t, cf_error *err)
{
    if (cf_mrs_rows(t->mrs) == 0)
        return CF_OK;
    char name[40];
    char *path = NULL;
    cf_rowset *nrs = NULL;
    char **names = NULL;
    cf_status st = CF_OK;
    CF_TRY_OUT(new_rowset_dir(t, name, sizeof(name), &path, err));
    CF_TRY_OUT(cf_mrs_flush(t->mrs, path, t->file_mode, err));
    match_mode(t, path);
    CF_TRY_OUT(open_rowset(t, path, &nrs, err));
    cf_rowset **rs = cf_realloc(t->rs, (t->nrs + 1) * sizeof(*rs));
    names = cf_calloc(t->nrs + 1, sizeof(*names));
    if (rs != NULL)
        t->rs = rs;
    if (rs == NULL || names == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "table: out of memory");
    for (size_t i = 0; i <= t->nrs; i++)
        if ((names[i] = dup_str(i < t->nrs ? t->names[i] : name)) == NULL)
            CF_FAIL_OUT(err, CF_ENOMEM, "table: out of memory");
    st = commit_list(t, names, t->nrs + 1, err);
    names = NULL;
    CF_TRY_OUT(st);
    t->rs[t->nrs++] = nrs;
    nrs = NULL;
    cf_mrs_clear(t->mrs);
out:
    free_names(names, t->nrs + 1);
    cf_rowset_free(nrs);
    cf_free(path);
    return st;
}

static cf_status auto_compact(cf_table *t, cf_error *err);

/* ---- the log segment the table needs ------------------------------------------------------
 *
 * Deleting or truncating the log segment that holds acknowledged ops must not
 * let an open show the table as it was before them (and a later op reuse their
 * timestamps, making the loss permanent). So the TABLET records the segment
 * (wal.h "the segment a table needs"): `wal SEQ BYTES`, and an open refuses a
 * table whose recorded segment is missing with no newer one in its place, or
 * holds fewer whole-record bytes than BYTES (cf_wal_check_need).
 *
 * Invariant: while a committed TABLET says SEQ, segment SEQ exists, and every
 * segment numbered above it holds no acknowledged op. It holds because
 *   - a segment is created durably (temporary, fsync, rename, directory fsync)
 *     before any TABLET names it: the first one by cf_wal_open, later ones by
 *     cf_wal_roll in a checkpoint, after every op so far is in files;
 *   - no op is appended to a segment before a committed TABLET names it
 *     (log_done commits one first when the current segment is not the one
 *     recorded, refusing the op if that fails);
 *   - older segments are removed only after a TABLET naming a newer one is
 *     committed (wal_retire_after), or, at open, when a newer one exists;
 *   - BYTES is what was fdatasync'd of the segment before that TABLET was
 *     committed (cf_wal_durable_bytes), always whole records, and a writer only
 *     ever truncates a torn tail, which lies past every synced record.
 * So a crash at any point leaves either the recorded segment with at least
 * BYTES of whole records, or a newer segment (a checkpoint cut short between
 * its rename and its TABLET commit, or between that commit and the removal),
 * whose header's durable_ts covers every op of the recorded one: an open never
 * refuses a table a crash left and never finds an acknowledged op missing.
 * Ops acknowledged after the last TABLET commit are past BYTES: a truncation
 * that removes only those whole records cannot be told from fewer ops, short
 * of a metadata write per op.
 *
 * Tables without the record (a TABLET version 1, or none yet) open as before;
 * the first op or checkpoint of a writer records it (TABLET version 2, which
 * older binaries refuse as CF_ENOTSUP, never misread). */

/* After a TABLET commit: once it names the current segment in place of an
 * older one, the older ones are retired. */
static void wal_retire_after(cf_table *t, uint64_t old_seq)
{
    if (t->wal != NULL && t->wal_need.seq != old_seq && t->wal_need.seq == cf_wal_seq(t->wal))
        cf_wal_retire(t->wal);
}

/* Commit a TABLET naming the log's current segment (the rowset list as it is;
 * a table without a TABLET gets one naming its root rowset). */
static cf_status wal_record(cf_table *t, cf_error *err)
{
    CF_TRY(tablet_write(t, t->names, t->nrs, err));
    t->has_tablet = true;
    t->tablet_next = t->next_rowset;
    return CF_OK;
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
    return wal_record(t, err); /* names the new segment, then retires the older */
}

cf_status cf_rs_table_flush(cf_table *t, cf_error *err)
{
    CF_TRY(check_writable(t, err));
    CF_TRY(usable(t, err));
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
static cf_status maybe_flush(cf_table *t, cf_error *err)
{
    bool flushed;
    CF_TRY(flush_due(t, &flushed, err));
    return flushed ? auto_compact(t, err) : CF_OK;
}

/* After an op is committed (logged): flush what is due, best effort. A failed
 * flush leaves the table consistent and is not this op's failure (the op is
 * durable); the next op flushes first and reports it. A merge that failed while
 * committing its TABLET leaves the handle unsure of the disk: unusable. */
static void flush_after(cf_table *t)
{
    cf_error e;
    bool flushed;
    if (flush_due(t, &flushed, &e) != CF_OK || !flushed)
        return;
    cf_status st = auto_compact(t, &e);
    cf_sticky_set(&t->sticky, st, &e);
}

/* ---- compaction ------------------------------------------------------------------------------ */

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
    cf_rowset *nrs = NULL;
    cf_rowset **src = NULL;
    char **names = NULL;
    size_t nn = t->nrs - np + 1;
    cf_status st = CF_OK;
    *committing = false;
    CF_TRY_OUT(new_rowset_dir(t, name, sizeof(name), &path, err));
    src = cf_malloc(np * sizeof(*src));
    names = cf_calloc(nn, sizeof(*names));
    if (src == NULL || names == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "table: out of memory");
    for (size_t k = 0; k < np; k++)
        src[k] = t->rs[pick[k]];
    CF_TRY_OUT(cf_rs_compact_merge(src, np, path, ahm, t->file_mode, err));
    match_mode(t, path);
    CF_TRY_OUT(open_rowset(t, path, &nrs, err));
    for (size_t i = 0, k = 0, j = 0; i < t->nrs; i++) {
        const char *n = t->names[i];
        if (k < np && pick[k] == i) {
            if (k++ > 0)
                continue;
            n = name;
        }
        if ((names[j++] = dup_str(n)) == NULL)
            CF_FAIL_OUT(err, CF_ENOMEM, "table: out of memory");
    }
    size_t old_n = t->nrs;
    char **old_names = t->names;
    uint64_t old_next = t->tablet_next;
    t->names = NULL; /* commit_list frees the list it replaces: keep the old one */
    t->nrs = 0;
    *committing = true;
    st = commit_list(t, names, nn, err);
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
    refresh_ahm(t);
    gc_rowsets(t, old_names, old_n, old_next); /* the merged rowsets: TABLET no longer names them */
    free_names(old_names, old_n);
out:
    free_names(names, nn);
    cf_free(src);
    cf_rowset_free(nrs);
    cf_free(path);
    return st;
}

cf_status cf_rs_table_compact(cf_table *t, uint64_t ahm, cf_error *err)
{
    CF_TRY(check_writable(t, err));
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
        refresh_ahm(t);
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
    char *p = cf_rs_path(cf_rs_dir(rs), CF_RS_MANIFEST);
    if (p != NULL && lstat(p, &sb) == 0)
        sum += (uint64_t)sb.st_size;
    cf_free(p);
    for (size_t i = 0; cf_rowset_file_at(rs, i, &name, &role); i++) {
        p = cf_rs_path(cf_rs_dir(rs), name);
        if (p != NULL && lstat(p, &sb) == 0)
            sum += (uint64_t)sb.st_size;
        cf_free(p);
    }
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

/* ---- keys and lookups --------------------------------------------------------------------- */

static cf_status encode_key(cf_table *t, const void *const *key, cf_error *err)
{
    const cf_schema *s = cf_table_schema(t);
    cf_buf_clear(&t->key);
    for (size_t k = 0; k < s->nkeys; k++)
        cf_rs_key_append(&t->key, s, k, key[k]);
    CF_CHECK(!t->key.oom, err, CF_ENOMEM, "table: out of memory");
    return CF_OK;
}

/* May rowset i hold the encoded key in t->key (its min/max key range covers it)? */
static bool covers(const cf_table *t, size_t i)
{
    cf_rowset_info info;
    cf_rowset_get_info(t->rs[i], &info);
    if (info.rows == 0)
        return false;
    const uint8_t *k = t->key.data;
    size_t n = t->key.len;
    return cf_rs_bytes_cmp(info.min_key.data, info.min_key.len, k, n) <= 0 &&
           cf_rs_bytes_cmp(k, n, info.max_key.data, info.max_key.len) <= 0;
}

static cf_status check_ts(const cf_table *t, uint64_t ts, cf_error *err)
{
    CF_TRY(cf_rs_check_ts_range(ts, err));
    CF_CHECK(ts > t->last_ts && ts != CF_SNAPSHOT_LATEST, err, CF_EINVAL,
             "timestamp %" PRIu64 " is not after the last one (%" PRIu64 ")", ts, t->last_ts);
    return CF_OK;
}

cf_status cf_rs_rcl_add_value(cf_rcl_builder *b, const cf_column *c, size_t col, const void *value,
                              cf_error *err)
{
    if (value == NULL) {
        CF_CHECK(c->nullable, err, CF_EINVAL, "column '%s' cannot be NULL", c->name);
        return cf_rcl_builder_add(b, (uint32_t)col, NULL, 0, err);
    }
    if (c->is_array)
        return cf_rs_rcl_add_cell(b, (uint32_t)col, c, value, err);
    if (cf_type_is_binary(c->type)) {
        cf_slice s;
        memcpy(&s, value, sizeof(s));
        return cf_rcl_builder_add(b, (uint32_t)col, s.data ? s.data : (const uint8_t *)"", s.len,
                                  err);
    }
    return cf_rcl_builder_add(b, (uint32_t)col, value, cf_type_size(c->type), err);
}

static cf_status add_value(cf_table *t, size_t col, const void *value, cf_error *err)
{
    return cf_rs_rcl_add_value(t->rcl, &cf_table_schema(t)->cols[col], col, value, err);
}

static void set_last_ts(cf_table *t, uint64_t ts)
{
    if (ts > t->last_ts)
        t->last_ts = ts;
}

/* ---- the log: building and appending an op --------------------------------------------------- */

static cf_status usable(const cf_table *t, cf_error *err)
{
    return cf_sticky_replay(&t->sticky, "table", err);
}

/* t->lop.key := the key columns of `key` as an UPDATE change list. */
static cf_status log_key(cf_table *t, const void *const *key, cf_error *err)
{
    const cf_schema *s = cf_table_schema(t);
    cf_rcl_builder_reset(t->lkey, CF_RCL_UPDATE);
    for (size_t k = 0; k < s->nkeys; k++)
        CF_TRY(cf_rs_rcl_add_value(t->lkey, &s->cols[k], k, key[k], err));
    t->lop.key = cf_rcl_builder_bytes(t->lkey);
    return CF_OK;
}

static cf_status log_done(cf_table *t, uint8_t type, uint64_t ts, cf_error *err)
{
    t->lop.type = type;
    t->lop.ts = ts;
    t->lop.rcl = cf_rcl_builder_bytes(t->lrcl);
    /* checked before the op is applied: a refused append must not leave memory
     * ahead of the log (batch framing takes well under 64 bytes) */
    CF_CHECK(t->lop.key.len + t->lop.rcl.len <= CF_WAL_MAX_RECORD - 64, err, CF_EINVAL,
             "operation of %zu bytes is larger than a log record may be (%u)",
             t->lop.key.len + t->lop.rcl.len, CF_WAL_MAX_RECORD - 64);
    /* the TABLET names the segment this op goes to before the op can be
     * acknowledged ("the log segment the table needs") */
    if (t->wal != NULL && t->wal_need.seq != cf_wal_seq(t->wal))
        CF_TRY(wal_record(t, err));
    /* the room to log it, taken now: out of memory refuses the op, where
     * after applying it the handle could only give up (memory ahead of the
     * log, its reads showing an op that failed) */
    return t->wal != NULL ? cf_wal_reserve(t->wal, &t->lop, 1, err) : CF_OK;
}

/* Append t->lop, the op just applied in memory. A failure makes the handle
 * unusable: memory is ahead of the log. */
static cf_status log_commit(cf_table *t, cf_error *err)
{
    t->lop.flags = t->lop_mrs ? CF_WAL_OP_MRS : 0;
    cf_status st = t->wal != NULL ? cf_wal_append(t->wal, &t->lop, 1, err) : CF_OK;
    if (st != CF_OK) {
        cf_error_prefix(err, st, "the operation was not logged (reopen the table): ");
        return cf_sticky_set(&t->sticky, st, err);
    }
    flush_after(t);
    return CF_OK;
}

/* ---- applying ops in memory (shared by the API and log replay) ------------------------------- */

/* Route an insert of a key no live row has (t->key holds it encoded). */
static cf_status apply_insert(cf_table *t, const void *const *values, uint64_t ts, cf_error *err)
{
    const cf_schema *s = cf_table_schema(t);
    cf_mrs_row *r = cf_mrs_find(t->mrs, t->key.data, t->key.len);
    if (r != NULL) {
        CF_CHECK(!cf_mrs_row_alive(r), err, CF_EINVAL, "insert: duplicate key");
        cf_rcl_builder_reset(t->rcl, CF_RCL_REINSERT);
        for (size_t c = s->nkeys; c < s->ncols; c++)
            CF_TRY(add_value(t, c, values[c], err));
        CF_TRY(cf_mrs_mutate(t->mrs, r, cf_rcl_builder_bytes(t->rcl), ts, err));
        set_last_ts(t, ts);
        t->lop_mrs = true;
        return CF_OK;
    }
    t->lop_mrs = false;
    for (size_t i = 0; i < t->nrs; i++) {
        if (!covers(t, i))
            continue;
        cf_rowset_info info;
        cf_rowset_get_info(t->rs[i], &info);
        /* Such a rowset answers CF_ENOTSUP for every key: that must not read as
         * "not here", or a duplicate could reach the MemRowSet. */
        CF_CHECK(info.rows <= UINT32_MAX, err, CF_ENOTSUP,
                 "insert: rowset %s is too large to take deltas", t->names[i]);
        cf_error e2;
        cf_status st = cf_rowset_reinsert(t->rs[i], values, values, ts, &e2);
        if (st == CF_ENOTSUP)
            continue; /* not in this rowset */
        if (st == CF_EINVAL)
            CF_FAIL(err, CF_EINVAL, "insert: duplicate key");
        if (st != CF_OK) {
            if (err != NULL)
                *err = e2;
            return st;
        }
        set_last_ts(t, ts);
        return CF_OK;
    }
    CF_TRY(cf_mrs_insert(t->mrs, t->key.data, t->key.len, values, ts, err));
    set_last_ts(t, ts);
    t->lop_mrs = true;
    return CF_OK;
}

static cf_status apply_update(cf_table *t, const void *const *key, const cf_column_change *changes,
                              size_t n, uint64_t ts, cf_error *err)
{
    cf_mrs_row *r = cf_mrs_find(t->mrs, t->key.data, t->key.len);
    if (r != NULL) {
        cf_rcl_builder_reset(t->rcl, CF_RCL_UPDATE);
        for (size_t i = 0; i < n; i++)
            CF_TRY(add_value(t, changes[i].col, changes[i].value, err));
        CF_CHECK(cf_mrs_row_alive(r), err, CF_ENOTFOUND, "update: key not found (deleted)");
        CF_TRY(cf_mrs_mutate(t->mrs, r, cf_rcl_builder_bytes(t->rcl), ts, err));
        set_last_ts(t, ts);
        t->lop_mrs = true;
        return CF_OK;
    }
    t->lop_mrs = false;
    bool tried = false; /* then err holds the rowset's own message */
    for (size_t i = 0; i < t->nrs; i++) {
        if (!covers(t, i))
            continue;
        cf_status st = cf_rowset_update(t->rs[i], key, changes, n, ts, err);
        if (st == CF_ENOTFOUND) {
            tried = true;
            continue;
        }
        CF_TRY(st);
        set_last_ts(t, ts);
        return CF_OK;
    }
    if (tried)
        return CF_ENOTFOUND;
    CF_FAIL(err, CF_ENOTFOUND, "key not found");
}

static cf_status apply_delete(cf_table *t, const void *const *key, uint64_t ts, cf_error *err)
{
    cf_mrs_row *r = cf_mrs_find(t->mrs, t->key.data, t->key.len);
    if (r != NULL) {
        CF_CHECK(cf_mrs_row_alive(r), err, CF_ENOTFOUND, "delete: key not found (deleted)");
        static const uint8_t del = CF_RCL_DELETE;
        CF_TRY(cf_mrs_mutate(t->mrs, r, (cf_slice){&del, 1}, ts, err));
        set_last_ts(t, ts);
        t->lop_mrs = true;
        return CF_OK;
    }
    t->lop_mrs = false;
    bool tried = false; /* then err holds the rowset's own message */
    for (size_t i = 0; i < t->nrs; i++) {
        if (!covers(t, i))
            continue;
        cf_status st = cf_rowset_delete(t->rs[i], key, ts, err);
        if (st == CF_ENOTFOUND) {
            tried = true;
            continue;
        }
        CF_TRY(st);
        set_last_ts(t, ts);
        return CF_OK;
    }
    if (tried)
        return CF_ENOTFOUND;
    CF_FAIL(err, CF_ENOTFOUND, "key not found");
}

/* ---- the API: check, log record built, apply, append ------------------------------------------
 */

static cf_status begin_op(cf_table *t, uint64_t ts, cf_error *err)
{
    CF_TRY(check_writable(t, err));
    CF_TRY(usable(t, err));
    CF_TRY(maybe_flush(t, err));
    return check_ts(t, ts, err);
}

cf_status cf_rs_table_insert(cf_table *t, const void *const *values, uint64_t ts, cf_error *err)
{
    const cf_schema *s = cf_table_schema(t);
    CF_TRY(begin_op(t, ts, err));
    for (size_t c = 0; c < s->ncols; c++) {
        CF_CHECK(values[c] != NULL || s->cols[c].nullable, err, CF_EINVAL,
                 "insert: column '%s' cannot be NULL", s->cols[c].name);
    }
    CF_TRY(log_key(t, values, err));
    cf_rcl_builder_reset(t->lrcl, CF_RCL_REINSERT);
    for (size_t c = s->nkeys; c < s->ncols; c++)
        CF_TRY(cf_rs_rcl_add_value(t->lrcl, &s->cols[c], c, values[c], err));
    CF_TRY(log_done(t, CF_WAL_INSERT, ts, err));
    CF_TRY(encode_key(t, values, err));
    CF_TRY(apply_insert(t, values, ts, err));
    return log_commit(t, err);
}

cf_status cf_rs_table_update(cf_table *t, const void *const *key, const cf_column_change *changes,
                             size_t n, uint64_t ts, cf_error *err)
{
    const cf_schema *s = cf_table_schema(t);
    CF_TRY(begin_op(t, ts, err));
    CF_CHECK(n > 0, err, CF_EINVAL, "update: no column to set");
    CF_TRY(log_key(t, key, err));
    cf_rcl_builder_reset(t->lrcl, CF_RCL_UPDATE);
    for (size_t i = 0; i < n; i++) {
        size_t c = changes[i].col;
        CF_CHECK(c < s->ncols, err, CF_EINVAL, "update: no column %zu", c);
        CF_CHECK(!s->cols[c].is_key, err, CF_EINVAL, "update: '%s' is a key column",
                 s->cols[c].name);
        CF_TRY(cf_rs_rcl_add_value(t->lrcl, &s->cols[c], c, changes[i].value, err));
    }
    CF_TRY(log_done(t, CF_WAL_UPDATE, ts, err));
    CF_TRY(encode_key(t, key, err));
    CF_TRY(apply_update(t, key, changes, n, ts, err));
    return log_commit(t, err);
}

cf_status cf_rs_table_delete(cf_table *t, const void *const *key, uint64_t ts, cf_error *err)
{
    CF_TRY(begin_op(t, ts, err));
    CF_TRY(log_key(t, key, err));
    cf_rcl_builder_reset(t->lrcl, CF_RCL_DELETE);
    CF_TRY(log_done(t, CF_WAL_DELETE, ts, err));
    CF_TRY(encode_key(t, key, err));
    CF_TRY(apply_delete(t, key, ts, err));
    return log_commit(t, err);
}

cf_status cf_rs_table_sync(cf_table *t, cf_error *err)
{
    CF_TRY(usable(t, err));
    return t->wal != NULL ? cf_wal_sync(t->wal, err) : CF_OK;
}

/* ---- replay ------------------------------------------------------------------------------------
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
        if (!covers(t, i))
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
            return apply_insert(t, v, op->ts, err);
        if (op->type == CF_WAL_UPDATE)
            return apply_update(t, v, t->rchg, nchg, op->ts, err);
        return apply_delete(t, v, op->ts, err);
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
        st = encode_key(t, t->rvals, err);
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
    set_last_ts(t, op->ts);
    return CF_OK;
}

/* Replay the log into memory; a writer then opens it for appending (cutting a
 * torn tail, removing what an interrupted checkpoint left). */
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

bool cf_table_pinned(const cf_table *t)
{
    return t->read_only && t->pin_fd >= 0;
}

void cf_table_replay_stats(const cf_table *t, uint64_t *applied, uint64_t *probes)
{
    *applied = t->replay_applied;
    *probes = t->replay_probes;
}

static cf_status wal_attach(cf_table *t, bool writer, cf_error *err)
{
    cf_wal_scan sc;
    replay_ctx r = {t, &sc, 0};
    note_files_ts(t);
    if (writer) {
        /* Under the lock: nothing changes while we read. */
        CF_TRY(cf_wal_scan_dir(t->dir, replay_op, &r, &sc, err));
        CF_TRY(cf_wal_check_need(t->dir, &t->wal_need, &sc, err));
        if (sc.found)
            set_last_ts(t, sc.hdr.durable_ts);
        /* Without a log, everything so far is in the rowsets' files. */
        return cf_wal_open(&t->wal, t->dir, &sc, t->last_ts, (cf_wal_sync_mode)t->sync_mode,
                           t->sync_bytes, err);
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
        cf_status st = cf_wal_scan_dir(t->dir, replay_op, &r, &sc, err);
        if (st == CF_OK) /* the TABLET read this time named a segment listed after it */
            st = cf_wal_check_need(t->dir, &t->wal_need, &sc, err);
        uint64_t now = newest_seq(t->dir);
        bool same = now == t->wal_seq0 && (st != CF_OK || !sc.found || sc.hdr.seq == now);
        if (same && st == CF_OK) {
            if (sc.found)
                set_last_ts(t, sc.hdr.durable_ts);
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
        close_rowsets(t);
        t->tablet_sum = 0;
        t->last_ts = 0;
        t->wal_seq0 = newest_seq(t->dir);
        CF_TRY(open_rowsets_reader(t, err));
        note_files_ts(t);
        usleep(1000u << (attempt < 5 ? attempt : 5));
    }
}

cf_status cf_rs_table_get(cf_table *t, const void *const *key, uint64_t snapshot, cf_row_batch *out,
                          cf_error *err)
{
    memset(out, 0, sizeof(*out));
    CF_TRY(cf_rs_check_snapshot(snapshot, cf_table_ahm(t), err));
    const cf_schema *s = cf_table_schema(t);
    CF_TRY(encode_key(t, key, err));
    cf_mrs_row *r = cf_mrs_find(t->mrs, t->key.data, t->key.len);
    if (r != NULL) {
        bool visible;
        CF_TRY(cf_mrs_row_at(t->mrs, r, snapshot, t->cells, &visible, err));
        CF_CHECK(visible, err, CF_ENOTFOUND, "key not found (deleted)");
        for (size_t c = 0; c < s->ncols; c++) {
            memset(&t->gcols[c], 0, sizeof(t->gcols[c]));
            t->gcols[c].count = 1;
            t->gcols[c].values = t->cells[c].slot;
            t->gnn[c] = t->cells[c].nonnull;
            if (s->cols[c].is_array) {
                /* the serialized cell, as flattened elements */
                cf_slice cell;
                memcpy(&cell, t->cells[c].slot, sizeof(cell));
                cf_buf_clear(&t->gvals[c]);
                cf_buf_clear(&t->genn[c]);
                size_t ne = 0;
                uint32_t k = 0;
                if (t->cells[c].nonnull)
                    CF_TRY(cf_rs_cell_to_flat(cell, s->cols[c].type, &t->gvals[c], &t->genn[c], &ne,
                                              &k, err));
                t->goffs[2 * c] = 0;
                t->goffs[2 * c + 1] = k;
                t->gcols[c].values = t->gvals[c].data;
                t->gcols[c].elem_offsets = &t->goffs[2 * c];
                t->gcols[c].elem_count = k;
                t->gcols[c].elem_nonnull = t->genn[c].data;
            }
            t->gcols[c].nonnull = s->cols[c].nullable ? &t->gnn[c] : NULL;
        }
        static const uint64_t zero = 0;
        out->count = 1;
        out->ncols = s->ncols;
        out->cols = t->gcols;
        out->ords = &zero;
        return CF_OK;
    }
    bool tried = false;
    for (size_t i = 0; i < t->nrs; i++) {
        if (!covers(t, i))
            continue;
        cf_status st = cf_rowset_get(t->rs[i], key, snapshot, out, err);
        if (st != CF_ENOTFOUND)
            return st;
        tried = true;
    }
    if (tried)
        return CF_ENOTFOUND;
    CF_FAIL(err, CF_ENOTFOUND, "key not found");
}

/* ---- bulk loads (table_import.c) ------------------------------------------------------------ */

cf_status cf_rs_table_reserve_rowset(cf_table *t, char **name, char **path, cf_error *err)
{
    *name = *path = NULL;
    CF_TRY(check_writable(t, err));
    if (t->next_rowset == t->tablet_next) {
        /* The load's first directory: the same steps as a flush's (a TABLET
         * first, clean-up of a crashed writer's leftovers). Later ones skip the
         * clean-up, which would take the load's own unnamed directories. */
        char tmp[40];
        CF_TRY(new_rowset_dir(t, tmp, sizeof(tmp), path, err));
        if ((*name = dup_str(tmp)) == NULL) {
            cf_free(*path);
            *path = NULL;
            CF_FAIL(err, CF_ENOMEM, "table: out of memory");
        }
        return CF_OK;
    }
    char buf[40];
    snprintf(buf, sizeof(buf), "rs-%" PRIu64, t->next_rowset++);
    *name = dup_str(buf);
    *path = *name != NULL ? cf_rs_path(t->dir, buf) : NULL;
    if (*path == NULL) {
        cf_free(*name);
        *name = NULL;
        CF_FAIL(err, CF_ENOMEM, "table: out of memory");
    }
    if (mkdir_rowset(t, *path) != 0) {
        int e = errno;
        cf_free(*name);
        *name = NULL;
        CF_FAIL(err, e == EEXIST ? CF_ECORRUPT : CF_EIO, "%s: cannot create rowset directory: %s",
                *path, strerror(e));
    }
    return CF_OK;
}

void cf_table_discard_rowset(cf_table *t, const char *name)
{
    uint64_t num;
    if (!rowset_num(name, &num) || num < t->tablet_next || named(t->names, t->nrs, name))
        return; /* only a directory of this handle's, not yet committed */
    char *p = cf_rs_path(t->dir, name);
    if (p != NULL)
        cf_rs_remove_dead_dir(p);
    cf_free(p);
}

cf_status cf_table_open_rowset(const cf_table *t, const char *path, cf_rowset **out, cf_error *err)
{
    return open_rowset(t, path, out, err);
}

cf_status cf_rs_table_key_state(cf_table *t, const uint8_t *key, size_t len,
                                const void *const *keyvals, int *state, const char **where,
                                size_t *store, cf_error *err)
{
    *state = 0;
    *where = NULL;
    *store = CF_TABLE_STORE_MRS;
    cf_mrs_row *r = cf_mrs_find(t->mrs, key, len);
    if (r != NULL) {
        *state = cf_mrs_row_alive(r) ? 1 : 2;
        *where = "the MemRowSet";
        return CF_OK;
    }
    for (size_t i = 0; i < t->nrs; i++) {
        cf_rowset_info info;
        cf_rowset_get_info(t->rs[i], &info);
        if (info.rows == 0 || cf_rs_bytes_cmp(info.min_key.data, info.min_key.len, key, len) > 0 ||
            cf_rs_bytes_cmp(key, len, info.max_key.data, info.max_key.len) > 0)
            continue;
        uint64_t ord;
        bool pruned;
        cf_status st = cf_rs_probe_key(t->rs[i], key, len, &ord, &pruned, err);
        if (st == CF_ENOTFOUND)
            continue;
        CF_TRY(st);
        cf_row_batch b;
        st = cf_rowset_get(t->rs[i], keyvals, CF_SNAPSHOT_LATEST, &b, err);
        if (st != CF_OK && st != CF_ENOTFOUND)
            return st;
        *state = st == CF_OK ? 1 : 2;
        *where = t->names[i];
        *store = i;
        return CF_OK;
    }
    return CF_OK;
}

unsigned cf_table_file_mode(const cf_table *t)
{
    return t->file_mode;
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
        if ((nn[k++] = dup_str(j == SIZE_MAX ? t->names[i] : names[j])) == NULL)
            CF_FAIL_OUT(err, CF_ENOMEM, "table: out of memory");
    }
    for (size_t j = 0; j < n; j++) {
        if (replaces != NULL && replaces[j] != SIZE_MAX)
            continue;
        nrs[k] = rs[j];
        if ((nn[k++] = dup_str(names[j])) == NULL)
            CF_FAIL_OUT(err, CF_ENOMEM, "table: out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        char *d = rowset_dir(t, names[i]);
        if (d == NULL)
            CF_FAIL_OUT(err, CF_ENOMEM, "table: out of memory");
        match_mode(t, d);
        cf_free(d);
    }
    /* TABLET is the commit point: before it, none of the new rowsets counts. */
    CF_TRY_OUT(tablet_write(t, nn, total, err));
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
    refresh_ahm(t);
    cf_rowset_free(dropped);
    if (dropped != NULL || nrepl > 0)
        gc_rowsets(t, old_names, old_n, old_next); /* the root rowset's or the replaced ones */
    free_names(old_names, old_n);
out:
    free_names(nn, total);
    cf_free(nrs);
    cf_free(by);
    return st;
}

cf_rs_guard *cf_rs_table_guard(cf_table *t)
{
    return &t->guard;
}

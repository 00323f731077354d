/* The TABLET file of a table and the rowset directories it names
 * (docs/ROWSET.md "Tables", "Clean-up"): reading and writing it, the commit
 * of a new rowset list, making a fresh rs-<n> with the table's permission bits,
 * and removing what no TABLET names. Callers decide what to commit (flush,
 * compaction, a load's commit); this file must not open rowsets or touch the
 * MemRowSet or the log beyond recording the log segment in TABLET's wal line.
 *
 * TABLET: text lines, written atomically (temp + fsync + rename):
 *   cfile-tablet 2       (1: written before the wal line existed; still read)
 *   next_rowset N        (subdirectory numbers are never reused)
 *   wal SEQ BYTES        (version 2 only, once: the log segment the table
 *                         needs, and its bytes durable at this commit;
 *                         table_walneed.c)
 *   rowset NAME          (one per DiskRowSet: "." = the table directory itself,
 *                         the older one-rowset layout; else "rs-<n>")
 *   end CHECKSUM         (FNV-1a 64 of every byte before "end", 16 hex digits)
 * A rowset directory counts only once TABLET names it; after a crash, unnamed
 * rs-* directories (and an unnamed root rowset) that are provably ours are
 * removed by the next flush or compaction (gc_rowsets; docs/ROWSET.md
 * "Clean-up"). The first flush writes a TABLET before it creates rs-<n>, so
 * rs-<n> beside no TABLET is damage, never the older one-rowset layout.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "table_internal.h"

#include "io/io_at.h"

#include "util/alloc.h"

#define MAX_TABLET_LEN (16u << 20)

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

void cf_tbl_free_names(char **names, size_t n)
{
    for (size_t i = 0; names != NULL && i < n; i++)
        cf_free(names[i]);
    cf_free(names);
}

/* Write a TABLET naming `names` (t->next_rowset, t->file_mode). A writer's
 * carries the wal line (version 2): its log's current segment and the bytes of
 * it known durable now; t->wal_need follows once committed. */
cf_status cf_tbl_tablet_write(cf_table *t, char *const *names, size_t n, cf_error *err)
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
    if (b.oom)
        CF_FAIL_OUT(err, CF_ENOMEM, "tablet: out of memory");
    CF_TRY_OUT(cf_rs_create_file_at(&io, t->dfd, t->dir, TABLET, t->file_mode, err));
    CF_TRY_OUT(io->ops->append(io, b.data, b.len, err));
    CF_TRY_OUT(io->ops->commit(io, err));
    uint64_t old_seq = t->wal_need.seq;
    t->wal_need = need;
    cf_tbl_wal_retire_after(t, old_seq);
out:
    cf_io_free(io);
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
cf_status cf_tbl_tablet_read(cf_table *t, cf_error *err)
{
    t->wal_need = (cf_wal_need){0, 0};
    char *path = cf_rs_path(t->dir, TABLET);
    CF_CHECK(path != NULL, err, CF_ENOMEM, "tablet: out of memory");
    cf_status st = CF_OK;
    cf_io *io = NULL;
    char *text = NULL;
    if (faccessat(t->dfd, TABLET, F_OK, 0) != 0)
        CF_FAIL_OUT(err, CF_ENOTFOUND, "no TABLET");
    CF_TRY_OUT(cf_io_open_file_at(&io, t->dfd, TABLET, path, err));
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
            if ((p[t->nrs] = cf_strdup(ln + 7)) == NULL)
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
uint64_t cf_tbl_tablet_sum_on_disk(const cf_table *t)
{
    int fd = openat(t->dfd, TABLET, O_RDONLY | O_CLOEXEC);
    uint64_t sum = 0;
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (f == NULL && fd >= 0)
        close(fd);
    char tail[22];
    if (f != NULL && fseek(f, -21, SEEK_END) == 0 && fread(tail, 1, 21, f) == 21 &&
        memcmp(tail, "end ", 4) == 0) {
        tail[20] = '\0';
        sum = strtoull(tail + 4, NULL, 16);
    }
    if (f != NULL)
        fclose(f);
    return sum;
}

char *cf_tbl_rowset_dir(const cf_table *t, const char *name)
{
    return strcmp(name, ".") == 0 ? cf_strdup(t->dir) : cf_rs_path(t->dir, name);
}

/* Commit a new rowset list: TABLET first (the commit point), then the in-memory
 * state. `names` is taken over. */
cf_status cf_tbl_commit_list(cf_table *t, char **names, size_t n, cf_error *err)
{
    cf_status st = cf_tbl_tablet_write(t, names, n, err);
    if (st != CF_OK) {
        cf_tbl_free_names(names, n);
        return st;
    }
    cf_tbl_free_names(t->names, t->nrs);
    t->names = names;
    t->has_tablet = true;
    t->tablet_next = t->next_rowset;
    return CF_OK;
}

/* Create a fresh rowset subdirectory (after removing a crashed writer's
 * leftovers). Its name is never reused: one that still exists is an error. */
cf_status cf_tbl_new_rowset_dir(cf_table *t, char *name, size_t cap, char **path, int *dfd,
                                cf_error *err)
{
    *path = NULL;
    *dfd = -1;
    if (!t->has_tablet) {
        /* The first rowset directory: a TABLET (naming the root rowset) comes
         * first, so rs-<n> directories never exist without one and a missing
         * TABLET beside them always reads as damage. */
        CF_TRY(cf_tbl_tablet_write(t, t->names, t->nrs, err));
        t->has_tablet = true;
        t->tablet_next = t->next_rowset;
    }
    cf_tbl_gc_rowsets(t, NULL, 0, t->tablet_next);
    snprintf(name, cap, "rs-%" PRIu64, t->next_rowset++);
    *path = cf_rs_path(t->dir, name);
    CF_CHECK(*path != NULL, err, CF_ENOMEM, "table: out of memory");
    cf_status st = CF_OK;
    if (cf_tbl_mkdir_rowset(t, name) != 0) {
        int e = errno;
        st = cf_error_set(err, e == EEXIST ? CF_ECORRUPT : CF_EIO, __FILE__, __LINE__,
                          "%s: cannot create rowset directory: %s%s", *path, strerror(e),
                          e == EEXIST
                              ? " (it holds files that are not ours; rowset names are never reused)"
                              : "");
    } else if ((*dfd = cf_rs_subdir_open(t->dfd, t->dir, name)) < 0) {
        st = cf_error_set(err, CF_EIO, __FILE__, __LINE__,
                          "%s: cannot open the new rowset directory: %s", *path, strerror(errno));
    }
    if (st != CF_OK) { /* nothing for the caller to free */
        cf_free(*path);
        *path = NULL;
    }
    return st;
}

/* The permission bits of name in the table directory ("." for the directory
 * itself; 0 when it is not a regular file or dir). */
unsigned cf_tbl_mode_of(const cf_table *t, const char *name)
{
    struct stat sb;
    unsigned m = 0;
    if (cf_rs_lstat_at(t->dfd, t->dir, name, &sb) == 0 &&
        (S_ISREG(sb.st_mode) || S_ISDIR(sb.st_mode)))
        m = (unsigned)(sb.st_mode & 07777);
    return m;
}

/* The files of a new rowset directory take the table's file mode (they were
 * created with the defaults by the rowset writers) before TABLET names them;
 * only regular files, by lstat. */
void cf_tbl_match_mode(const cf_table *t, int dfd, const char *path)
{
    if (t->file_mode == 0)
        return;
    DIR *d = cf_rs_opendir_at(dfd, path);
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        struct stat sb;
        if (cf_rs_lstat_at(dfd, path, e->d_name, &sb) == 0 && S_ISREG(sb.st_mode) &&
            (sb.st_mode & 07777) != t->file_mode)
            (void)cf_rs_chmod_at(dfd, path, e->d_name, t->file_mode);
    }
    closedir(d);
}

/* mkdir a new rowset directory `name` with the table directory's mode. */
int cf_tbl_mkdir_rowset(const cf_table *t, const char *name)
{
    if (cf_rs_mkdir_at(t->dfd, t->dir, name, t->dir_mode ? 0700 : 0777) != 0)
        return -1;
    if (t->dir_mode)
        (void)cf_rs_chmod_at(t->dfd, t->dir, name, t->dir_mode);
    return 0;
}

bool cf_tbl_named(char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return false;
}

/* "rs-<n>" exactly (n decimal, no leading zero): *num = n. */
bool cf_tbl_rowset_num(const char *n, uint64_t *num)
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

/* Does subdirectory `name` hold a MANIFEST of ours (its checksum checks)? */
static bool has_our_manifest(const cf_table *t, const char *name, const char *path)
{
    int dfd = cf_rs_subdir_open(t->dfd, t->dir, name);
    cf_rs_manifest m;
    cf_error e;
    bool ours = dfd >= 0 && cf_rs_manifest_read_at(&m, dfd, path, &e) == CF_OK;
    if (ours)
        cf_rs_manifest_dispose(&m);
    cf_rs_dir_close(dfd);
    return ours;
}

/* Clean-up of the table directory (docs/ROWSET.md "Clean-up"), under the writer
 * lock, once a TABLET exists: it is then the one list of rowsets. Removed are
 * only TABLET temporaries and rowset directories "rs-<n>" (real directories, by
 * lstat: a symlink named like one is left alone) that the TABLET does not name
 * and that are provably ours: named by the TABLET a commit just replaced (prev),
 * numbered at or past the committed next_rowset (an unfinished flush or merge),
 * or holding a MANIFEST of ours. Inside one, only our own file names go
 * (cf_rs_remove_dead_dir); a directory that still holds anything else stays. */
void cf_tbl_gc_rowsets(const cf_table *t, char *const *prev, size_t nprev, uint64_t prev_next)
{
    /* What a committed TABLET named may be in use by a pinned reader that read
     * that TABLET: removed only while no reader is pinned (any reader pinned
     * later reads the TABLET just committed, which names none of it), else
     * left for a later clean-up, which finds it by its MANIFEST. */
    bool unpinned = cf_rs_pin_exclusive(t->pin_fd);
    DIR *d = cf_rs_opendir_at(t->dfd, t->dir);
    if (d == NULL) {
        cf_rs_pin_unlock(t->pin_fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        uint64_t num;
        struct stat sb;
        if (cf_rs_lstat_at(t->dfd, t->dir, n, &sb) != 0)
            continue;
        if (cf_rs_tmp_name(n, TABLET) && S_ISREG(sb.st_mode)) {
            cf_rs_unlink_at(t->dfd, t->dir, n, false); /* a TABLET write cut short */
        } else if (cf_tbl_rowset_num(n, &num) && S_ISDIR(sb.st_mode) &&
                   !cf_tbl_named(t->names, t->nrs, n)) {
            char *p = cf_rs_path(t->dir, n); /* for messages */
            if (num >= prev_next)            /* never named by a committed TABLET */
                cf_rs_remove_dead_dir_at(t->dfd, t->dir, n);
            else if (!unpinned || p == NULL)
                ; /* perhaps a pinned reader's: for a later clean-up */
            else if (cf_tbl_named(prev, nprev, n) || has_our_manifest(t, n, p))
                cf_rs_remove_dead_dir_at(t->dfd, t->dir, n);
            else /* emptied by a clean-up a crash cut short; kept if not empty */
                cf_rs_unlink_at(t->dfd, t->dir, n, true);
            cf_free(p);
        }
    }
    closedir(d);
    if (unpinned && !cf_tbl_named(t->names, t->nrs, ".")) {
        /* The root rowset was merged away: the files its MANIFEST names (and
         * unfinished ones past its next_file), then the MANIFEST itself, so a
         * crash midway leaves it to name what is left. */
        cf_rs_manifest m;
        cf_error e2;
        if (cf_rs_manifest_read_at(&m, t->dfd, t->dir, &e2) == CF_OK) {
            cf_rs_gc_at(t->dfd, t->dir, NULL, &m, m.next_file);
            cf_rs_manifest_dispose(&m);
            struct stat sb;
            if (cf_rs_lstat_at(t->dfd, t->dir, CF_RS_MANIFEST, &sb) == 0 && S_ISREG(sb.st_mode))
                cf_rs_unlink_at(t->dfd, t->dir, CF_RS_MANIFEST, false);
        }
    }
    cf_rs_pin_unlock(t->pin_fd);
}

/* The first "rs-<n>" entry of dir into name (any kind: a rowset directory or
 * something named like one); false when there is none. */
bool cf_tbl_find_rowset_dir(int dfd, const char *dir, char *name, size_t cap)
{
    DIR *d = cf_rs_opendir_at(dfd, dir);
    if (d == NULL)
        return false;
    struct dirent *e;
    bool found = false;
    while (!found && (e = readdir(d)) != NULL) {
        uint64_t num;
        size_t l = strlen(e->d_name);
        struct stat sb;
        /* only a directory: a file that happens to be named rs-<n> is no rowset */
        if (cf_tbl_rowset_num(e->d_name, &num) && l < cap &&
            cf_rs_lstat_at(dfd, dir, e->d_name, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            memcpy(name, e->d_name, l + 1);
            found = true;
        }
    }
    closedir(d);
    return found;
}

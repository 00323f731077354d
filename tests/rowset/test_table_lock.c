/* The table's writer lock (rowset.h "One writer, many readers"): two writer
 * handles in one process conflict; a writer in another process makes ours give
 * up naming its pid; readers open while the lock is held, see one committed
 * version and refuse every mutation; a rowset opened on its own locks at its
 * first mutation and refuses to write on a stale view; rowset writers lock too;
 * opening a directory that is no table leaves no LOCK behind, nor does a rowset
 * writer that refuses one (a LOCK already there stays); a LOCK its maker
 * removes while a writer waits on it sends that writer to the new one. */
#include "test_common.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cfile/cfile.h>
#include <cfile/rowset.h>

#include "rowset/internal.h"
#include "support_model.h"
#include "support_table.h"

/* (id INT64 KEY, name STRING NULL) */
static void make_table(const char *dir)
{
    table_create(dir, "id INT64 KEY, name STRING NULL");
}

static cf_status ins(cf_table *t, int64_t id, const char *name, uint64_t ts, cf_error *err)
{
    cf_slice n = {(const uint8_t *)name, strlen(name)};
    const void *v[2] = {&id, &n};
    return cf_table_insert(t, v, ts, err);
}

/* A rowset writer in dir, of the table's columns, that does not wait for the lock. */
static cf_status writer_nowait(cf_rowset_writer **w, const char *dir, cf_error *err)
{
    cf_schema *s;
    CF_ASSERT_OK(cf_schema_parse(&s, "id INT64 KEY, name STRING NULL", err), err);
    cf_rowset_writer_options wo;
    cf_rowset_writer_options_init(&wo);
    wo.lock_timeout_ms = 0;
    cf_status st = cf_rowset_writer_create(w, dir, s, &wo, err);
    cf_schema_free(s);
    return st;
}

static cf_status open_with(cf_table **t, const char *dir, bool read_only, uint32_t ms,
                           cf_error *err)
{
    cf_table_options o;
    cf_table_options_init(&o);
    o.read_only = read_only;
    o.lock_timeout_ms = ms;
    return cf_table_open(t, dir, &o, err);
}

static void test_lock__defaults(void **state)
{
    (void)state;
    cf_table_options o;
    cf_table_options_init(&o);
    assert_int_equal(o.version, CF_TABLE_OPTIONS_VERSION);
    assert_null(o.cache);
    assert_int_equal(o.cache_bytes, CF_ROWSET_DEFAULT_CACHE_BYTES);
    assert_false(o.read_only);
    assert_int_equal(o.lock_timeout_ms, 10000);
    cf_rowset_options ro;
    cf_rowset_options_init(&ro);
    assert_false(ro.read_only);
    assert_int_equal(ro.lock_timeout_ms, 10000);
    cf_rowset_writer_options wo;
    cf_rowset_writer_options_init(&wo);
    assert_int_equal(wo.lock_timeout_ms, 10000);
    /* An unknown options layout is refused, naming it. */
    char *dir = mkdtemp_dir();
    make_table(dir);
    cf_error err;
    cf_table *t;
    o.version = 99;
    CF_ASSERT_STATUS(cf_table_open(&t, dir, &o, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "version"));
    CF_ASSERT_RM_RF(dir);
}

static void test_lock__two_handles_in_one_process(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    make_table(dir);
    cf_error err;
    cf_table *a, *b;
    a = table_open(dir);
    CF_ASSERT_STATUS(open_with(&b, dir, false, 0, &err), CF_EBUSY, &err);
    char want[64];
    snprintf(want, sizeof(want), "pid %ld ", (long)getpid());
    assert_non_null(strstr(err.msg, want));
    assert_non_null(strstr(err.msg, "another writer"));
    /* A bounded wait gives up the same way. */
    CF_ASSERT_STATUS(open_with(&b, dir, false, 30, &err), CF_EBUSY, &err);
    assert_non_null(strstr(err.msg, "gave up after 30 ms"));
    CF_ASSERT_OK(ins(a, 1, "one", 5, &err), &err);
    CF_ASSERT_OK(cf_table_close(a, &err), &err);
    /* Released by close: the next writer gets it and sees the committed row. */
    CF_ASSERT_OK(open_with(&b, dir, false, 0, &err), &err);
    assert_int_equal(table_count_rows(b), 1);
    cf_table_free(b);
    /* The LOCK stays (never deleted), with no holder line once released. */
    char p[512];
    snprintf(p, sizeof(p), "%s/LOCK", dir);
    struct stat sb;
    assert_int_equal(stat(p, &sb), 0);
    assert_int_equal(sb.st_size, 0);
    CF_ASSERT_RM_RF(dir);
}

static void test_lock__other_process_holds_it(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    make_table(dir);
    int ready[2], go[2];
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(go), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(ready[0]);
        close(go[1]);
        cf_table *t;
        cf_error e;
        if (cf_table_open(&t, dir, NULL, &e) != CF_OK)
            _exit(2);
        char c = 'r';
        if (write(ready[1], &c, 1) != 1)
            _exit(3);
        if (read(go[0], &c, 1) < 0) /* until the parent says go (or dies) */
            _exit(4);
        cf_table_free(t);
        _exit(0);
    }
    close(ready[1]);
    close(go[0]);
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    cf_error err;
    cf_table *t;
    CF_ASSERT_STATUS(open_with(&t, dir, false, 50, &err), CF_EBUSY, &err);
    char want[64];
    snprintf(want, sizeof(want), "pid %ld ", (long)pid);
    assert_non_null(strstr(err.msg, want));
    assert_non_null(strstr(err.msg, dir));
    /* Readers are not held up by the writer. */
    CF_ASSERT_OK(open_with(&t, dir, true, 0, &err), &err);
    assert_int_equal(table_count_rows(t), 0);
    cf_table_free(t);
    assert_int_equal(write(go[1], "g", 1), 1);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* The child is gone: the lock with it. */
    CF_ASSERT_OK(open_with(&t, dir, false, 0, &err), &err);
    cf_table_free(t);
    close(ready[0]);
    close(go[1]);

    /* A writer killed while holding the lock does not leave the table locked. */
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        cf_table *ct;
        cf_error e;
        if (cf_table_open(&ct, dir, NULL, &e) != CF_OK)
            _exit(2);
        for (;;)
            pause();
    }
    /* Wait (bounded by the child's own progress) until it holds the lock. */
    for (int i = 0; i < 20000; i++) {
        cf_status st = open_with(&t, dir, false, 0, &err);
        if (st == CF_EBUSY)
            break;
        CF_ASSERT_OK(st, &err);
        cf_table_free(t);
        usleep(1000);
    }
    kill(pid, SIGKILL);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    CF_ASSERT_OK(open_with(&t, dir, false, 0, &err), &err);
    cf_table_free(t);
    CF_ASSERT_RM_RF(dir);
}

static void test_lock__readers(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    make_table(dir);
    cf_error err;
    cf_table *w, *r;
    w = table_open(dir);
    CF_ASSERT_OK(ins(w, 1, "one", 5, &err), &err);
    CF_ASSERT_OK(ins(w, 2, "two", 6, &err), &err);
    CF_ASSERT_OK(cf_table_flush(w, &err), &err);
    CF_ASSERT_OK(open_with(&r, dir, true, 0, &err), &err);
    assert_true(cf_table_read_only(r));
    assert_false(cf_table_read_only(w));
    assert_int_equal(table_count_rows(r), 2);
    /* Every mutation of a reader is refused, saying why. */
    int64_t k = 1;
    const void *key[1] = {&k};
    cf_slice nv = {(const uint8_t *)"x", 1};
    cf_column_change ch = {1, &nv};
    CF_ASSERT_STATUS(ins(r, 9, "nine", 100, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "table opened read-only"));
    CF_ASSERT_STATUS(cf_table_update(r, key, &ch, 1, 101, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "read-only"));
    CF_ASSERT_STATUS(cf_table_delete(r, key, 102, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "read-only"));
    CF_ASSERT_STATUS(cf_table_flush(r, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "read-only"));
    CF_ASSERT_STATUS(cf_table_compact(r, 0, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "read-only"));
    /* ... also through its rowsets. */
    const char *name;
    cf_rowset *rrs = cf_table_rowset_at(r, cf_table_rowset_count(r) - 1, &name);
    CF_ASSERT_STATUS(cf_rowset_update(rrs, key, &ch, 1, 103, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "read-only"));
    CF_ASSERT_STATUS(cf_rowset_compact(rrs, 0, &err), CF_EINVAL, &err);
    /* The writer goes on; the open reader keeps the version it opened, even
     * across a compaction that removes the rowsets it reads. */
    CF_ASSERT_OK(ins(w, 3, "three", 7, &err), &err);
    CF_ASSERT_OK(cf_table_compact(w, 0, &err), &err);
    assert_int_equal(table_count_rows(r), 2);
    cf_row_batch b;
    CF_ASSERT_OK(cf_table_get(r, key, CF_SNAPSHOT_LATEST, &b, &err), &err);
    assert_int_equal(b.count, 1);
    /* A new reader sees the new version. */
    cf_table *r2;
    CF_ASSERT_OK(open_with(&r2, dir, true, 0, &err), &err);
    assert_int_equal(table_count_rows(r2), 3);
    CF_ASSERT_OK(cf_table_close(r2, &err), &err); /* nothing to flush */
    cf_table_free(r);
    CF_ASSERT_OK(cf_table_close(w, &err), &err);
    /* A reader never creates the LOCK. */
    char *dir2 = mkdtemp_dir();
    make_table(dir2);
    char p[512];
    snprintf(p, sizeof(p), "%s/LOCK", dir2);
    unlink(p); /* cf_rowset_create_empty locked it */
    CF_ASSERT_OK(open_with(&r, dir2, true, 0, &err), &err);
    cf_table_free(r);
    assert_int_not_equal(access(p, F_OK), 0);
    CF_ASSERT_RM_RF(dir2);
    CF_ASSERT_RM_RF(dir);
}

static void test_lock__not_a_table_leaves_nothing(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    cf_error err;
    cf_table *t;
    CF_ASSERT_STATUS(cf_table_open(&t, dir, NULL, &err), CF_ENOTFOUND, &err);
    assert_non_null(strstr(err.msg, "no table"));
    char p[512];
    snprintf(p, sizeof(p), "%s/LOCK", dir);
    assert_int_not_equal(access(p, F_OK), 0);
    /* A LOCK that is a symlink is never written through. */
    make_table(dir);
    char target[512];
    snprintf(target, sizeof(target), "%s.target", dir);
    FILE *f = fopen(target, "w");
    assert_non_null(f);
    fputs("keep", f);
    fclose(f);
    unlink(p);
    assert_int_equal(symlink(target, p), 0);
    CF_ASSERT_STATUS(cf_table_open(&t, dir, NULL, &err), CF_EIO, &err);
    assert_non_null(strstr(err.msg, "LOCK"));
    size_t len;
    uint8_t *got = cf_test_read_file(target, &len);
    assert_non_null(got);
    assert_int_equal(len, 4);
    free(got);
    unlink(target);
    /* A directory that is not there, or a file: no table, for a writer and a
     * reader alike, saying why (the directory is opened once, never reached by
     * its path instead). */
    const char *const not_dirs[] = {p /* gone with the table */, target /* a file */};
    const int why[] = {ENOENT, ENOTDIR};
    assert_int_equal(unlink(p), 0);
    f = fopen(target, "w");
    assert_non_null(f);
    fclose(f);
    for (size_t i = 0; i < 2; i++) {
        for (int ro = 0; ro <= 1; ro++) {
            CF_ASSERT_STATUS(open_with(&t, not_dirs[i], ro, 100, &err), CF_ENOTFOUND, &err);
            assert_non_null(strstr(err.msg, "no table here"));
            assert_non_null(strstr(err.msg, strerror(why[i])));
        }
        cf_rowset *rs; /* a rowset on its own likewise */
        CF_ASSERT_STATUS(cf_rowset_open(&rs, not_dirs[i], NULL, &err), CF_ENOTFOUND, &err);
        assert_non_null(strstr(err.msg, "no rowset here"));
        assert_non_null(strstr(err.msg, strerror(why[i])));
        assert_null(rs);
    }
    unlink(target);
    CF_ASSERT_RM_RF(dir);
}

static void test_lock__standalone_rowset(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    cf_error err;
    cf_table *t;
    make_table(dir);
    t = table_open(dir);
    for (int64_t i = 1; i <= 3; i++)
        CF_ASSERT_OK(ins(t, i, "v", (uint64_t)i + 1, &err), &err);
    CF_ASSERT_OK(cf_table_flush(t, &err), &err); /* rs-1 (close does not flush) */
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    char sub[512];
    snprintf(sub, sizeof(sub), "%s/rs-1", dir);

    cf_rowset_options o;
    cf_rowset_options_init(&o);
    o.lock_timeout_ms = 0;
    cf_rowset *a, *b;
    CF_ASSERT_OK(cf_rowset_open(&a, sub, &o, &err), &err);
    CF_ASSERT_OK(cf_rowset_open(&b, sub, &o, &err), &err);
    int64_t k = 2;
    const void *key[1] = {&k};
    cf_slice nv = {(const uint8_t *)"x", 1};
    cf_column_change ch = {1, &nv};
    /* Opening took no lock: a table writer can still open. */
    CF_ASSERT_OK(open_with(&t, dir, false, 0, &err), &err);
    /* A rowset writer of a new rs-<n> waits for the table's lock, and gives up
     * leaving nothing. */
    cf_rowset_writer *w;
    char sub9[512];
    snprintf(sub9, sizeof(sub9), "%s/rs-9", dir);
    CF_ASSERT_STATUS(writer_nowait(&w, sub9, &err), CF_EBUSY, &err);
    assert_non_null(strstr(err.msg, "table lock"));
    assert_int_not_equal(access(sub9, F_OK), 0);
    /* ... and then the rowset's first mutation finds the table's lock taken (the
     * lock of an rs-<n> rowset is its table's). */
    CF_ASSERT_STATUS(cf_rowset_update(a, key, &ch, 1, 100, &err), CF_EBUSY, &err);
    cf_table_free(t);
    CF_ASSERT_OK(cf_rowset_update(a, key, &ch, 1, 100, &err), &err);
    /* a holds the lock now, until it is freed. */
    CF_ASSERT_STATUS(open_with(&t, dir, false, 0, &err), CF_EBUSY, &err);
    CF_ASSERT_STATUS(cf_rowset_delete(b, key, 101, &err), CF_EBUSY, &err);
    CF_ASSERT_OK(cf_rowset_flush(a, &err), &err);
    cf_rowset_free(a);
    /* b opened before a committed: its view is stale and it must not write. */
    CF_ASSERT_STATUS(cf_rowset_delete(b, key, 101, &err), CF_ESTATE, &err);
    assert_non_null(strstr(err.msg, "changed since it was opened"));
    CF_ASSERT_STATUS(cf_rowset_flush(b, &err), CF_ESTATE, &err);
    cf_rowset_free(b);
    /* b gave the lock back: a table writer opens and sees a's update. */
    CF_ASSERT_OK(open_with(&t, dir, false, 0, &err), &err);
    cf_row_batch bt;
    CF_ASSERT_OK(cf_table_get(t, key, CF_SNAPSHOT_LATEST, &bt, &err), &err);
    const cf_slice *nm = (const cf_slice *)bt.cols[1].values;
    assert_int_equal(nm[0].len, 1);
    assert_memory_equal(nm[0].data, "x", 1);
    /* A rowset the table compacts away is stale too. */
    CF_ASSERT_OK(cf_rowset_open(&b, sub, &o, &err), &err);
    CF_ASSERT_OK(cf_table_compact(t, 0, &err), &err);
    cf_table_free(t);
    CF_ASSERT_STATUS(cf_rowset_delete(b, key, 200, &err), CF_ESTATE, &err);
    cf_rowset_free(b);
    /* A read-only rowset refuses to write, and takes no lock. */
    CF_ASSERT_OK(open_with(&t, dir, false, 0, &err), &err);
    const char *name;
    cf_table_rowset_at(t, 0, &name);
    snprintf(sub, sizeof(sub), "%s/%s", dir, name);
    o.read_only = true;
    CF_ASSERT_OK(cf_rowset_open(&b, sub, &o, &err), &err);
    CF_ASSERT_STATUS(cf_rowset_delete(b, key, 300, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "read-only"));
    cf_rowset_free(b);
    cf_table_free(t);
    CF_ASSERT_RM_RF(dir);
}

static void test_lock__root_rowset_and_writer(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    make_table(dir);
    cf_error err;
    cf_table *t = table_open(dir);
    /* cf_rowset_writer_create and cf_rowset_create_empty wait for the lock as well. */
    cf_rowset_writer *w;
    CF_ASSERT_STATUS(writer_nowait(&w, dir, &err), CF_EBUSY, &err);
    /* The root rowset of a one-rowset table shares the table's LOCK. */
    cf_rowset_options o;
    cf_rowset_options_init(&o);
    o.lock_timeout_ms = 0;
    cf_rowset *rs;
    CF_ASSERT_OK(cf_rowset_open(&rs, dir, &o, &err), &err);
    CF_ASSERT_STATUS(cf_rowset_flush(rs, &err), CF_EBUSY, &err);
    cf_table_free(t);
    /* A writer holds the lock until it is freed. */
    CF_ASSERT_OK(writer_nowait(&w, dir, &err), &err);
    CF_ASSERT_STATUS(open_with(&t, dir, false, 0, &err), CF_EBUSY, &err);
    CF_ASSERT_OK(cf_rowset_writer_finish(w, &err), &err);
    cf_rowset_writer_free(w);
    /* Its MANIFEST replaced the one rs loaded: rs is stale. */
    CF_ASSERT_STATUS(cf_rowset_flush(rs, &err), CF_ESTATE, &err);
    cf_rowset_free(rs);
    /* A directory holding a table (a TABLET) is never overwritten by a writer. */
    t = table_open(dir);
    CF_ASSERT_OK(ins(t, 1, "one", 5, &err), &err);
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    /* the row is in the write-ahead log: that is a table too (and a TABLET now
     * records the log segment holding it, which the writer finds first) */
    CF_ASSERT_STATUS(writer_nowait(&w, dir, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "already holds a table"));
    t = table_open(dir);
    CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    CF_ASSERT_STATUS(writer_nowait(&w, dir, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "already holds a table"));

    CF_ASSERT_RM_RF(dir);
}

/* A refused directory is left as it was: no LOCK added, one already there kept;
 * a directory the writer made is removed again. */
static void test_lock__refused_dir_left_as_it_was(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    char p[512], sub[512];
    snprintf(p, sizeof(p), "%s/notes.txt", dir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fclose(f);
    cf_error err;
    cf_schema *s;
    CF_ASSERT_OK(cf_schema_parse(&s, "id INT64 KEY", &err), &err);
    CF_ASSERT_STATUS(cf_rowset_create_empty(dir, s, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "not a table of ours"));
    snprintf(p, sizeof(p), "%s/LOCK", dir);
    assert_int_not_equal(access(p, F_OK), 0);
    f = fopen(p, "w");
    assert_non_null(f);
    fclose(f);
    CF_ASSERT_STATUS(cf_rowset_create_empty(dir, s, &err), CF_EINVAL, &err);
    assert_int_equal(access(p, F_OK), 0);
    /* A directory that cannot be made (its parent is missing) leaves nothing. */
    snprintf(sub, sizeof(sub), "%s/no/such", dir);
    CF_ASSERT_STATUS(cf_rowset_create_empty(sub, s, &err), CF_EIO, &err);
    snprintf(sub, sizeof(sub), "%s/no", dir);
    assert_int_not_equal(access(sub, F_OK), 0);
    cf_schema_free(s);
    CF_ASSERT_RM_RF(dir);
}

/* Whether process pid has path open. */
static bool has_open(pid_t pid, const char *path)
{
    char fd_dir[64], link[600], target[600];
    snprintf(fd_dir, sizeof(fd_dir), "/proc/%ld/fd", (long)pid);
    for (int i = 0; i < 64; i++) {
        snprintf(link, sizeof(link), "%s/%d", fd_dir, i);
        ssize_t n = readlink(link, target, sizeof(target) - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        if (strcmp(target, path) == 0)
            return true;
    }
    return false;
}

/* The maker of a LOCK removes it while holding it; a writer waiting on that
 * file then finds it gone and locks a new LOCK at the path, never the old one. */
static void test_lock__removed_lock_sends_waiters_to_a_new_one(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    char real[PATH_MAX], lock[PATH_MAX + 8];
    assert_non_null(realpath(dir, real));
    snprintf(lock, sizeof(lock), "%s/LOCK", real);
    cf_error err;
    int fd;
    bool made;
    CF_ASSERT_OK(cf_rs_lock_acquire2(&fd, &made, real, 1000, &err), &err);
    assert_true(made);
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* The inherited descriptor shares the parent's flock: drop it first. */
        close(fd);
        close(ready[0]);
        if (write(ready[1], "r", 1) != 1)
            _exit(5);
        int cfd;
        bool cmade;
        cf_error e;
        if (cf_rs_lock_acquire2(&cfd, &cmade, real, 20000, &e) != CF_OK)
            _exit(2);
        struct stat a, b;
        if (fstat(cfd, &a) != 0 || lstat(lock, &b) != 0 || a.st_ino != b.st_ino)
            _exit(3); /* holds a file that is no longer the LOCK */
        _exit(cmade ? 0 : 4);
    }
    close(ready[1]);
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    close(ready[0]);
    /* Until the child has the old LOCK open (it then waits on it). */
    for (int i = 0; i < 10000 && !has_open(pid, lock); i++)
        usleep(1000);
    assert_true(has_open(pid, lock));
    cf_rs_lock_remove(fd, real);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) != 0)
        fail_msg("waiter exit %d", WEXITSTATUS(status));
    /* A LOCK that was there is not "made" by the next taker. */
    CF_ASSERT_OK(cf_rs_lock_acquire2(&fd, &made, real, 1000, &err), &err);
    assert_false(made);
    cf_rs_lock_release(fd);
    CF_ASSERT_RM_RF(dir);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lock__defaults),
        cmocka_unit_test(test_lock__two_handles_in_one_process),
        cmocka_unit_test(test_lock__other_process_holds_it),
        cmocka_unit_test(test_lock__readers),
        cmocka_unit_test(test_lock__not_a_table_leaves_nothing),
        cmocka_unit_test(test_lock__refused_dir_left_as_it_was),
        cmocka_unit_test(test_lock__removed_lock_sends_waiters_to_a_new_one),
        cmocka_unit_test(test_lock__standalone_rowset),
        cmocka_unit_test(test_lock__root_rowset_and_writer),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

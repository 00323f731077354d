/* The writer lock of a table (docs/ROWSET.md "One writer, many readers").
 *
 * An exclusive flock(2) on DIR/LOCK, a file that is created when missing. GC
 * leaves it alone. Only a run that made a directory's LOCK and then gives the
 * directory up (a refused or failed new table) deletes it again, and only while
 * holding it (cf_rs_lock_remove): a waiter that then gets the flock finds the
 * path no longer names its file and starts over on the new one, so no two
 * writers ever hold locks on different inodes. flock locks belong to the
 * open file description, so two handles in one process conflict just as two
 * processes do, and the kernel drops the lock when its holder dies: a crashed
 * writer never leaves the table locked. Once locked, the holder writes "pid P
 * HOST COMMAND since TIME" into the file so a writer that gives up can say who
 * has it; the text is informational only (truncated again on release).
 *
 * The lock is advisory and, like flock itself, meant for local file systems.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#include "util/alloc.h"
#include "util/error.h"

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void sleep_ms(uint64_t ms)
{
    struct timespec ts = {(time_t)(ms / 1000u), (long)(ms % 1000u) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* "pid P HOST COMMAND since YYYY-MM-DDTHH:MM:SSZ" */
static void write_holder(int fd)
{
    char host[64] = "?", cmd[32] = "?", when[32] = "?";
    if (gethostname(host, sizeof(host)) != 0)
        strcpy(host, "?");
    host[sizeof(host) - 1] = '\0';
    FILE *f = fopen("/proc/self/comm", "r");
    if (f != NULL) {
        if (fgets(cmd, sizeof(cmd), f) == NULL)
            strcpy(cmd, "?");
        fclose(f);
        cmd[strcspn(cmd, "\n")] = '\0';
    }
    time_t t = time(NULL);
    struct tm tm;
    if (gmtime_r(&t, &tm) != NULL)
        strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
    char line[192];
    int n =
        snprintf(line, sizeof(line), "pid %ld %s %s since %s\n", (long)getpid(), host, cmd, when);
    if (n < 0)
        return;
    /* Informational: a failure here (disk full) must not fail the lock. */
    if (ftruncate(fd, 0) == 0 && pwrite(fd, line, (size_t)n, 0) < 0) {
        /* nothing to do */
    }
}

/* The holder's line, printable characters only, into dst. */
static void read_holder(int fd, char *dst, size_t cap)
{
    ssize_t n = pread(fd, dst, cap - 1, 0);
    if (n <= 0) {
        snprintf(dst, cap, "holder unknown");
        return;
    }
    dst[n] = '\0';
    dst[strcspn(dst, "\n")] = '\0';
    for (char *p = dst; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
            *p = '?';
    if (dst[0] == '\0')
        snprintf(dst, cap, "holder unknown");
}

/* Whether fd is still the file `at` names in dfd (the LOCK was not deleted or
 * replaced while we waited for it). */
static bool still_named(int fd, int dfd, const char *at)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && fstatat(dfd, at, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
           a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

cf_status cf_rs_lock_acquire2(int *fd_out, bool *created, const char *dir, uint32_t timeout_ms,
                              cf_error *err)
{
    return cf_rs_lock_acquire_at(fd_out, created, AT_FDCWD, dir, timeout_ms, err);
}

cf_status cf_rs_lock_acquire_at(int *fd_out, bool *created, int dfd, const char *dir,
                                uint32_t timeout_ms, cf_error *err)
{
    *fd_out = -1;
    if (created)
        *created = false;
    char *path = cf_rs_path(dir, CF_RS_LOCK);
    CF_CHECK(path != NULL, err, CF_ENOMEM, "lock: out of memory");
    const char *at = dfd == AT_FDCWD ? path : CF_RS_LOCK;
    uint64_t start = now_ms();
    uint64_t nap = 1;
    int fd = -1, e = 0;
    bool made = false;
    cf_status st = CF_OK;
    for (;;) {
        if (fd < 0) {
            /* O_NOFOLLOW: a LOCK that is a symlink is not ours to write through.
             * O_EXCL first, to know whether this run made the file. */
            fd = openat(dfd, at, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
            made = fd >= 0;
            if (fd < 0 && errno == EEXIST) {
                fd = openat(dfd, at, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
                /* Deleted between the two opens: again, within the wait. */
                if (fd < 0 && errno == ENOENT && now_ms() - start <= timeout_ms)
                    continue;
            }
            if (fd < 0) {
                e = errno;
                st = cf_error_set(err, e == ENOENT ? CF_ENOTFOUND : CF_EIO, __FILE__, __LINE__,
                                  "%s: cannot open %s: %s", dir, CF_RS_LOCK, strerror(e));
                break;
            }
        }
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
            if (still_named(fd, dfd, at))
                break;
            /* Its maker removed it while we waited: lock the LOCK there is now. */
            close(fd);
            fd = -1;
            continue;
        }
        e = errno;
        if (e == EINTR)
            continue;
        if (e != EWOULDBLOCK) {
            close(fd);
            fd = -1;
            st = cf_error_set(err, CF_EIO, __FILE__, __LINE__, "%s: cannot lock %s: %s", dir,
                              CF_RS_LOCK, strerror(e));
            break;
        }
        uint64_t waited = now_ms() - start;
        if (waited >= timeout_ms) {
            char holder[160];
            read_holder(fd, holder, sizeof(holder));
            close(fd);
            fd = -1;
            st = cf_error_set(err, CF_EBUSY, __FILE__, __LINE__,
                              "%s: another writer holds the table lock (%s); gave up after %u ms",
                              dir, holder, timeout_ms);
            break;
        }
        uint64_t left = timeout_ms - waited;
        sleep_ms(nap < left ? nap : left);
        if (nap < 50)
            nap *= 2;
    }
    cf_free(path);
    if (st != CF_OK)
        return st;
    write_holder(fd);
    *fd_out = fd;
    if (created)
        *created = made;
    return CF_OK;
}

cf_status cf_rs_lock_acquire(int *fd_out, const char *dir, uint32_t timeout_ms, cf_error *err)
{
    return cf_rs_lock_acquire2(fd_out, NULL, dir, timeout_ms, err);
}

void cf_rs_lock_remove(int fd, const char *dir)
{
    cf_rs_lock_remove_at(fd, AT_FDCWD, dir);
}

void cf_rs_lock_remove_at(int fd, int dfd, const char *dir)
{
    if (fd < 0)
        return;
    char *path = dfd == AT_FDCWD ? cf_rs_path(dir, CF_RS_LOCK) : NULL;
    const char *at = dfd == AT_FDCWD ? path : CF_RS_LOCK;
    if (at != NULL && still_named(fd, dfd, at))
        unlinkat(dfd, at, 0);
    cf_free(path);
    close(fd); /* drops the flock */
}

void cf_rs_lock_release(int fd)
{
    if (fd < 0)
        return;
    /* Clear the holder line first: nobody holds it any more. */
    if (ftruncate(fd, 0) != 0) {
        /* informational only */
    }
    close(fd); /* drops the flock */
}

/* Is dir's last component "rs-<digits>"? *l gets dir's length without
 * trailing slashes, *b where that component starts. */
static bool rs_named(const char *dir, size_t *b, size_t *l)
{
    *l = strlen(dir);
    while (*l > 1 && dir[*l - 1] == '/')
        (*l)--;
    *b = *l;
    while (*b > 0 && dir[*b - 1] != '/')
        (*b)--;
    bool rsname = *l - *b > 3 && strncmp(dir + *b, "rs-", 3) == 0;
    for (size_t i = *b + 3; rsname && i < *l; i++)
        rsname = dir[i] >= '0' && dir[i] <= '9';
    return rsname;
}

/* The first n bytes of dir as a path, "." when n is 0 (malloc'd; NULL when out
 * of memory). */
static char *dir_prefix(const char *dir, size_t n)
{
    char *p = cf_malloc(n > 0 ? n + 1 : 2);
    if (p == NULL)
        return NULL;
    if (n == 0)
        strcpy(p, ".");
    else {
        memcpy(p, dir, n);
        p[n] = '\0';
    }
    return p;
}

/* The directory whose LOCK guards `dir`, by paths: the table's, when dir is one
 * of a table's rowset subdirectories (rs-<n> beside a TABLET), else dir itself. */
static char *lock_dir_by_path(const char *dir)
{
    size_t b, l;
    if (rs_named(dir, &b, &l)) {
        char *parent = dir_prefix(dir, b);
        if (parent == NULL)
            return NULL;
        char *tablet = cf_rs_path(parent, CF_RS_TABLET);
        struct stat sb;
        bool is_table = tablet != NULL && lstat(tablet, &sb) == 0;
        cf_free(tablet);
        if (is_table)
            return parent;
        cf_free(parent);
    }
    return dir_prefix(dir, l);
}

int cf_rs_lock_dir_open(int dfd, const char *dir, char **ldir)
{
    if (dfd == AT_FDCWD) {
        *ldir = lock_dir_by_path(dir);
        return *ldir != NULL ? AT_FDCWD : -1;
    }
    size_t b, l;
    if (rs_named(dir, &b, &l)) {
        /* the directory holding the one we hold, whatever path named it */
        int pfd = openat(dfd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct stat sb;
        if (pfd >= 0 && fstatat(pfd, CF_RS_TABLET, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
            (*ldir = dir_prefix(dir, b)) != NULL)
            return pfd;
        if (pfd >= 0)
            close(pfd);
    }
    *ldir = dir_prefix(dir, l);
    return *ldir != NULL ? dfd : -1;
}

/* ---- the reader pin (docs/ROWSET.md "Readers: the pin") ------------------------------------
 *
 * A flock(2) on the table directory itself: readers hold it shared from before
 * they read TABLET until they close, and the writer removes what a commit made
 * obsolete only while it holds it exclusively (LOCK_NB: it never waits, and
 * leaves the files for a later clean-up when a reader is in). A directory lock
 * needs no file of its own, so a reader writes nothing and any table, old ones
 * included, can be pinned; it is a different inode from LOCK, so the pin and
 * the writer lock never meet. */

int cf_rs_pin_open(const char *dir)
{
    return cf_rs_pin_open_at(AT_FDCWD, dir);
}

int cf_rs_pin_open_at(int dfd, const char *dir)
{
    /* a descriptor of its own (flock belongs to the open file description),
     * of the directory dfd holds, not of whatever dir names now */
    return dfd == AT_FDCWD ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                           : openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

int cf_rs_pin_shared(const char *dir)
{
    return cf_rs_pin_shared_at(AT_FDCWD, dir);
}

int cf_rs_pin_shared_at(int dfd, const char *dir)
{
    int fd = cf_rs_pin_open_at(dfd, dir);
    if (fd < 0)
        return -1;
    /* The writer holds the pin exclusively only while it removes files (or,
     * for a compaction in place, while it rewrites a rowset): a short wait, and
     * never on the writer's LOCK. Past it the caller opens without a pin. */
    uint64_t nap = 1, waited = 0;
    for (;;) {
        if (flock(fd, LOCK_SH | LOCK_NB) == 0)
            return fd;
        if (errno == EINTR)
            continue;
        if (errno != EWOULDBLOCK || waited >= CF_RS_PIN_WAIT_MS) {
            close(fd);
            return -1;
        }
        sleep_ms(nap);
        waited += nap;
        if (nap < 8)
            nap *= 2;
    }
}

bool cf_rs_pin_exclusive(int fd)
{
    if (fd < 0)
        return false;
    for (;;) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            return true;
        if (errno != EINTR)
            return false;
    }
}

void cf_rs_pin_unlock(int fd)
{
    if (fd >= 0)
        (void)flock(fd, LOCK_UN);
}

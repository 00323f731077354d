/* POSIX file ios: a reader over pread(2) and an atomic writer.
 *
 * The writer never shows a half-written file under its final name: bytes go
 * to "<path>.tmp.<pid>.<random>" in the same directory (so rename stays within
 * one filesystem), through a 1 MiB buffer; commit is flush, fsync(file),
 * rename over the target, fsync(directory) so the rename itself is durable.
 * Freeing without commit unlinks the temporary file. The *_at forms work in a
 * directory the caller holds open (a descriptor): the temporary, the rename and
 * the directory's fsync all happen in that directory even if its path is
 * renamed or replaced meanwhile; the path given is for messages only. */
#include <cfile/io.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io_at.h"
#include "io_internal.h"
#include "util/alloc.h"
#include "util/error.h"

#define WRITE_BUF_CAP ((size_t)1 << 20)

cf_status cf_io_open_ro(int *fd_out, uint64_t *size_out, const char *path, cf_error *err)
{
    return cf_io_open_ro_at(fd_out, size_out, AT_FDCWD, path, path, err);
}

cf_status cf_io_open_ro_at(int *fd_out, uint64_t *size_out, int dirfd, const char *name,
                           const char *path, cf_error *err)
{
    *fd_out = -1;
    CF_CHECK(path != NULL && name != NULL, err, CF_EINVAL, "open: NULL path");
    int fd;
    do
        fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    CF_CHECK(fd >= 0, err, CF_EIO, "open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        CF_FAIL(err, CF_EIO, "stat %s: %s", path, strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        CF_FAIL(err, CF_EIO, "open %s: %s", path, strerror(EISDIR));
    }
    *fd_out = fd;
    *size_out = st.st_size > 0 ? (uint64_t)st.st_size : 0;
    return CF_OK;
}

/* ---- pread reader --------------------------------------------------------------------- */

typedef struct file_reader {
    cf_io base;
    int fd;
    uint64_t size;
    char path[]; /* for messages */
} file_reader;

static cf_status file_read_at(cf_io *io, uint64_t off, void *dst, size_t len, cf_error *err)
{
    const file_reader *f = (const file_reader *)io;
    CF_CHECK(len <= f->size && off <= f->size - len, err, CF_EIO,
             "read %s: %zu bytes at offset %" PRIu64 " run past the end of the file (%" PRIu64
             " bytes)",
             f->path, len, off, f->size);
    uint8_t *p = dst;
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(f->fd, p + done, len - done, (off_t)(off + done));
        if (n < 0 && errno == EINTR)
            continue;
        CF_CHECK(n >= 0, err, CF_EIO, "read %s: %zu bytes at offset %" PRIu64 ": %s", f->path, len,
                 off, strerror(errno));
        /* The file shrank since open. */
        CF_CHECK(n > 0, err, CF_EIO,
                 "read %s: %zu bytes at offset %" PRIu64 ": end of file after %zu bytes", f->path,
                 len, off, done);
        done += (size_t)n;
    }
    return CF_OK;
}

/* pread has no bytes to lend: callers fall back to read_at. */
static const uint8_t *file_view_at(cf_io *io, uint64_t off, size_t len)
{
    return NULL;
}

static uint64_t file_size(cf_io *io)
{
    return ((const file_reader *)io)->size;
}

static void file_free(cf_io *io)
{
    file_reader *f = (file_reader *)io;
    close(f->fd);
    cf_free(f);
}

static const cf_io_ops file_reader_ops = {
    .read_at = file_read_at,
    .view_at = file_view_at,
    .size = file_size,
    .free = file_free,
};

cf_status cf_io_open_file(cf_io **out, const char *path, cf_error *err)
{
    return cf_io_open_file_at(out, AT_FDCWD, path, path, err);
}

cf_status cf_io_open_file_at(cf_io **out, int dirfd, const char *name, const char *path,
                             cf_error *err)
{
    *out = NULL;
    int fd;
    uint64_t size;
    CF_TRY(cf_io_open_ro_at(&fd, &size, dirfd, name, path, err));
    size_t plen = strlen(path), total;
    file_reader *f = NULL;
    if (cf_add_ok(sizeof *f, plen + 1, &total))
        f = cf_malloc(total);
    if (f == NULL) {
        close(fd);
        CF_FAIL(err, CF_ENOMEM, "open %s: cannot allocate the reader", path);
    }
    f->base.ops = &file_reader_ops;
    f->fd = fd;
    f->size = size;
    memcpy(f->path, path, plen + 1);
    *out = &f->base;
    return CF_OK;
}

/* ---- atomic writer -------------------------------------------------------------------- */

typedef struct file_writer {
    cf_io base;
    int fd;  /* -1 once closed */
    int dfd; /* the directory the file goes to (our own descriptor of it) */
    bool committed;
    cf_sticky failed;  /* the first failure, replayed by every later call */
    uint64_t appended; /* bytes accepted by append */
    uint8_t *buf;
    size_t buf_len;
    char *path, *tmp_path; /* for messages */
    char *name, *tmp_name; /* in dfd */
    bool created;          /* tmp_path names a file this writer created */
} file_writer;

/* Remember the first failure: later calls replay it. */
static cf_status stick(file_writer *w, cf_status st, const cf_error *err)
{
    cf_error own;
    if (err == NULL && st != CF_OK) {
        /* a caller without an error record still gets a message on replay */
        cf_error_set(&own, st, __FILE__, __LINE__, "write %s: %s", w->path, cf_status_str(st));
        err = &own;
    }
    return cf_sticky_set(&w->failed, st, err);
}

static cf_status write_all(file_writer *w, const uint8_t *p, size_t len, cf_error *err)
{
    while (len > 0) {
        ssize_t n = write(w->fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        CF_CHECK(n >= 0, err, CF_EIO, "write %s: %s", w->tmp_path, strerror(errno));
        /* write(2) returning 0 for a non-empty buffer would loop forever. */
        CF_CHECK(n > 0, err, CF_EIO, "write %s: no progress", w->tmp_path);
        p += n;
        len -= (size_t)n;
    }
    return CF_OK;
}

static cf_status flush_buf(file_writer *w, cf_error *err)
{
    cf_status st = write_all(w, w->buf, w->buf_len, err);
    w->buf_len = 0;
    return st;
}

static cf_status fw_append(cf_io *io, const void *src, size_t len, cf_error *err)
{
    file_writer *w = (file_writer *)io;
    CF_TRY(cf_sticky_replay(&w->failed, "file writer", err));
    CF_CHECK(!w->committed, err, CF_ESTATE, "write %s: append after commit", w->path);
    cf_status st = CF_OK;
    if (len <= WRITE_BUF_CAP - w->buf_len) {
        memcpy(w->buf + w->buf_len, src, len);
        w->buf_len += len;
        if (w->buf_len == WRITE_BUF_CAP)
            st = flush_buf(w, err);
    } else {
        /* Too big to buffer: drain what is buffered, then write straight through. */
        st = flush_buf(w, err);
        if (st == CF_OK)
            st = write_all(w, src, len, err);
    }
    if (st != CF_OK)
        return stick(w, st, err);
    w->appended += len;
    return CF_OK;
}

static uint64_t fw_size(cf_io *io)
{
    return ((const file_writer *)io)->appended;
}

/* fsync the directory holding the file so the rename survives a crash: the
 * descriptor the file was created and renamed in, never a path looked up again. */
static cf_status sync_dir(const file_writer *w, cf_error *err)
{
    int rc = fsync(w->dfd);
    int e = errno;
    /* Some filesystems cannot sync a directory (EINVAL); the rename stands. */
    CF_CHECK(rc == 0 || e == EINVAL, err, CF_EIO, "fsync the directory of %s: %s", w->path,
             strerror(e));
    return CF_OK;
}

static cf_status fw_commit_steps(file_writer *w, cf_error *err)
{
    CF_TRY(flush_buf(w, err));
    CF_CHECK(fsync(w->fd) == 0, err, CF_EIO, "fsync %s: %s", w->tmp_path, strerror(errno));
    int rc = close(w->fd);
    w->fd = -1;
    CF_CHECK(rc == 0, err, CF_EIO, "close %s: %s", w->tmp_path, strerror(errno));
    CF_CHECK(renameat(w->dfd, w->tmp_name, w->dfd, w->name) == 0, err, CF_EIO,
             "rename %s to %s: %s", w->tmp_path, w->path, strerror(errno));
    /* The temporary name is gone: free must not unlink anything now. */
    w->committed = true;
    return sync_dir(w, err);
}

static cf_status fw_commit(cf_io *io, cf_error *err)
{
    file_writer *w = (file_writer *)io;
    CF_TRY(cf_sticky_replay(&w->failed, "file writer", err));
    CF_CHECK(!w->committed, err, CF_ESTATE, "commit %s: already committed", w->path);
    cf_status st = fw_commit_steps(w, err);
    if (st != CF_OK)
        return stick(w, st, err);
    return CF_OK;
}

static void fw_free(cf_io *io)
{
    file_writer *w = (file_writer *)io;
    if (w->fd >= 0)
        close(w->fd);
    /* Only a temporary file this writer created is ours to remove. */
    if (w->created && !w->committed)
        unlinkat(w->dfd, w->tmp_name, 0);
    if (w->dfd >= 0)
        close(w->dfd);
    cf_free(w->buf);
    cf_free(w->path);
    cf_free(w->tmp_path);
    cf_free(w->name);
    cf_free(w->tmp_name);
    cf_free(w);
}

static const cf_io_ops file_writer_ops = {
    .size = fw_size,
    .append = fw_append,
    .commit = fw_commit,
    .free = fw_free,
};

/* Rewriting a file must not widen (or narrow) who may read it: the temporary
 * gets the mode of the file it will replace, and its owner when we may (root,
 * or a group we belong to; on EPERM the mode alone is kept). The temporary is
 * created with that mode already (less the umask), so it is never more open
 * than the old file, even before the fchmod that restores the exact bits.
 * lstat: a symlink at the path is replaced, not followed, so it lends nothing.
 * chown first, since it may clear set-id bits. */
static cf_status keep_mode(const file_writer *w, const struct stat *old, cf_error *err)
{
    if (old->st_uid != geteuid() || old->st_gid != getegid())
        (void)!fchown(w->fd, old->st_uid, old->st_gid);
    CF_CHECK(fchmod(w->fd, old->st_mode & 07777) == 0, err, CF_EIO, "chmod %s: %s", w->tmp_path,
             strerror(errno));
    return CF_OK;
}

/* A fresh suffix per attempt: not secret, just unlikely to collide; O_EXCL
 * catches the collisions that remain. */
static uint64_t tmp_suffix(void)
{
    static _Atomic uint64_t counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) ^
                 (atomic_fetch_add(&counter, 1) * 0x9e3779b97f4a7c15ull) ^ (uint64_t)(uintptr_t)&ts;
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 29;
    return x;
}

cf_status cf_io_create_file(cf_io **out, const char *path, cf_error *err)
{
    return cf_io_create_file_mode(out, path, 0, err);
}

static cf_status create_at(cf_io **out, int dirfd, const char *name, const char *path,
                           unsigned new_mode, cf_error *err);

/* dup(2) of dirfd, close-on-exec; -1 on failure (errno set). */
static int dup_dir(int dirfd)
{
    return fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
}

cf_status cf_io_create_file_mode(cf_io **out, const char *path, unsigned new_mode, cf_error *err)
{
    *out = NULL;
    CF_CHECK(path != NULL && path[0] != '\0', err, CF_EINVAL, "create: empty path");
    /* The directory, opened once: the temporary, the rename and the
     * directory's fsync all happen in the one it names now. */
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (slash == NULL) {
        strcpy(dir, ".");
    } else {
        size_t n = slash == path ? 1 : (size_t)(slash - path);
        CF_CHECK(n < sizeof dir, err, CF_EIO, "create %s: path too long", path);
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    CF_CHECK(slash == NULL || slash[1] != '\0', err, CF_EINVAL, "create %s: no file name", path);
    int dfd;
    do
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    while (dfd < 0 && errno == EINTR);
    CF_CHECK(dfd >= 0, err, CF_EIO, "create %s: directory %s: %s", path, dir, strerror(errno));
    cf_status st = create_at(out, dfd, slash != NULL ? slash + 1 : path, path, new_mode, err);
    close(dfd);
    return st;
}

cf_status cf_io_create_file_at(cf_io **out, int dirfd, const char *name, const char *path,
                               unsigned new_mode, cf_error *err)
{
    *out = NULL;
    CF_CHECK(name != NULL && name[0] != '\0' && strchr(name, '/') == NULL && path != NULL, err,
             CF_EINVAL, "create: '%s' is not a file name", name != NULL ? name : "(null)");
    return create_at(out, dirfd, name, path, new_mode, err);
}
static cf_status create_at(cf_io **out, int dirfd, const char *name, const char *path,
                           unsigned new_mode, cf_error *err)
{
    cf_status st = CF_OK;
    file_writer *w = cf_calloc(1, sizeof *w);
    CF_CHECK(w != NULL, err, CF_ENOMEM, "create %s: cannot allocate the writer", path);
    w->base.ops = &file_writer_ops;
    w->fd = -1;
    w->dfd = -1;
    size_t plen = strlen(path), nlen = strlen(name);
    /* ".tmp." + pid (<= 20 digits) + "." + 16 hex digits + NUL */
    size_t tcap = plen + 48, ncap = nlen + 48;
    w->path = cf_malloc(plen + 1);
    w->tmp_path = cf_malloc(tcap);
    w->name = cf_malloc(nlen + 1);
    w->tmp_name = cf_malloc(ncap);
    w->buf = cf_malloc(WRITE_BUF_CAP);
    if (w->path == NULL || w->tmp_path == NULL || w->name == NULL || w->tmp_name == NULL ||
        w->buf == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "create %s: cannot allocate the writer", path);
    memcpy(w->path, path, plen + 1);
    memcpy(w->name, name, nlen + 1);
    if ((w->dfd = dup_dir(dirfd)) < 0)
        CF_FAIL_OUT(err, CF_EIO, "create %s: %s", path, strerror(errno));
    struct stat old;
    bool replacing = fstatat(w->dfd, name, &old, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(old.st_mode);
    new_mode &= 07777;
    /* created no more open than asked (less the umask), then set exactly */
    mode_t mode = replacing ? old.st_mode & 07777 : new_mode ? (mode_t)new_mode : 0666;
    for (int attempt = 0; attempt < 100; attempt++) {
        uint64_t x = tmp_suffix();
        snprintf(w->tmp_path, tcap, "%s.tmp.%ld.%016" PRIx64, path, (long)getpid(), x);
        snprintf(w->tmp_name, ncap, "%s.tmp.%ld.%016" PRIx64, name, (long)getpid(), x);
        w->fd = openat(w->dfd, w->tmp_name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        if (w->fd >= 0 || (errno != EEXIST && errno != EINTR))
            break;
    }
    if (w->fd < 0) {
        int e = errno;
        CF_FAIL_OUT(err, CF_EIO, "create %s: %s", w->tmp_path, strerror(e));
    }
    w->created = true;
    if (replacing)
        CF_TRY_OUT(keep_mode(w, &old, err));
    else if (new_mode != 0 && fchmod(w->fd, (mode_t)new_mode) != 0)
        CF_FAIL_OUT(err, CF_EIO, "chmod %s: %s", w->tmp_path, strerror(errno));
    *out = &w->base;
    return CF_OK;
out:
    fw_free(&w->base);
    return st;
}

/* Directories held open: how the rowset layer reaches the files of a table or
 * rowset directory it has open (a descriptor, docs/ROWSET.md "Tables"), so that
 * renaming the directory, or putting a symlink in its place, cannot redirect
 * what a running writer or reader touches. Every function takes the directory
 * as (dfd, dir): the descriptor and the path it was opened by, which is used
 * for messages only (joined with a file name here, once). dfd AT_FDCWD means
 * "dir is just a path" (a standalone rowset opened by name, the CLI's one-off
 * commands): the same calls then work on dir/name, as before.
 *
 * This file owns no policy: what to create, read or remove is its callers'. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#include "io/io_at.h"
#include "util/alloc.h"
#include "util/error.h"

int cf_rs_dir_open(const char *dir)
{
    int fd;
    do
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    return fd;
}

int cf_rs_subdir_open(int dfd, const char *dir, const char *name)
{
    if (dfd == AT_FDCWD) {
        char *p = cf_rs_path(dir, name);
        int fd = p != NULL ? cf_rs_dir_open(p) : -1;
        cf_free(p);
        return fd;
    }
    int fd;
    do
        fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    while (fd < 0 && errno == EINTR);
    return fd;
}

void cf_rs_dir_close(int dfd)
{
    if (dfd >= 0)
        close(dfd);
}

/* What an *at call gets for `name`: itself in a held directory, else the path. */
static const char *at_name(int dfd, const char *name, const char *path)
{
    return dfd == AT_FDCWD ? path : name;
}

cf_status cf_rs_open_file_at(cf_io **out, int dfd, const char *dir, const char *name, bool mmap,
                             cf_error *err)
{
    *out = NULL;
    char *path = cf_rs_path(dir, name);
    CF_CHECK(path != NULL, err, CF_ENOMEM, "%s/%s: out of memory", dir, name);
    const char *n = at_name(dfd, name, path);
    cf_status st = mmap ? cf_io_open_mmap_at(out, dfd, n, path, err)
                        : cf_io_open_file_at(out, dfd, n, path, err);
    cf_free(path);
    return st;
}

cf_status cf_rs_create_file_at(cf_io **out, int dfd, const char *dir, const char *name,
                               unsigned mode, cf_error *err)
{
    *out = NULL;
    char *path = cf_rs_path(dir, name);
    CF_CHECK(path != NULL, err, CF_ENOMEM, "%s/%s: out of memory", dir, name);
    cf_status st = dfd == AT_FDCWD ? cf_io_create_file_mode(out, path, mode, err)
                                   : cf_io_create_file_at(out, dfd, name, path, mode, err);
    cf_free(path);
    return st;
}

int cf_rs_lstat_at(int dfd, const char *dir, const char *name, struct stat *sb)
{
    if (dfd != AT_FDCWD)
        return fstatat(dfd, name, sb, AT_SYMLINK_NOFOLLOW);
    char *p = cf_rs_path(dir, name);
    int rc = p != NULL ? lstat(p, sb) : -1;
    cf_free(p);
    return rc;
}

int cf_rs_unlink_at(int dfd, const char *dir, const char *name, bool is_dir)
{
    int flags = is_dir ? AT_REMOVEDIR : 0;
    if (dfd != AT_FDCWD)
        return unlinkat(dfd, name, flags);
    char *p = cf_rs_path(dir, name);
    int rc = p != NULL ? unlinkat(AT_FDCWD, p, flags) : -1;
    cf_free(p);
    return rc;
}

int cf_rs_chmod_at(int dfd, const char *dir, const char *name, unsigned mode)
{
    if (dfd != AT_FDCWD)
        return fchmodat(dfd, name, (mode_t)mode, 0);
    char *p = cf_rs_path(dir, name);
    int rc = p != NULL ? chmod(p, (mode_t)mode) : -1;
    cf_free(p);
    return rc;
}

int cf_rs_mkdir_at(int dfd, const char *dir, const char *name, unsigned mode)
{
    if (dfd != AT_FDCWD)
        return mkdirat(dfd, name, (mode_t)mode);
    char *p = cf_rs_path(dir, name);
    int rc = p != NULL ? mkdir(p, (mode_t)mode) : -1;
    cf_free(p);
    return rc;
}

DIR *cf_rs_opendir_at(int dfd, const char *dir)
{
    if (dfd == AT_FDCWD)
        return opendir(dir);
    /* a descriptor of its own: closedir closes it, and its position is ours */
    int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (d == NULL && fd >= 0)
        close(fd);
    return d;
}

/* A copy of a rowset in a new directory that shares its files (hard links), for
 * a bulk load that reinserts keys the rowset holds as deleted rows
 * (docs/ROWSET.md "Bulk loads"): the load adds its REINSERT deltas to the copy
 * as a new REDO file, and the TABLET write that commits the load names the copy
 * instead of the original. Until then nothing the table reads has changed.
 *
 * Files named by a committed MANIFEST are never rewritten (only replaced by
 * new names and removed), so a link is as good as a copy; where the file
 * system has no hard links (or refuses one), the bytes are copied (temporary
 * name, fsync, rename).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#include "util/alloc.h"
#include "util/error.h"

/* What an *at call takes for file `name` of (dfd, path joined for messages). */
static const char *at(int dfd, const char *name, const char *path)
{
    return dfd == AT_FDCWD ? path : name;
}

/* Copy file `name` of sdfd to a new one in ddfd through a temporary; mode 0 =
 * src's bits. src and dst are their paths, for messages. */
static cf_status copy_file(int sdfd, int ddfd, const char *ddir, const char *name, const char *src,
                           const char *dst, unsigned mode, cf_error *err)
{
    cf_status st = CF_OK;
    cf_io *out = NULL;
    uint8_t *buf = NULL;
    int fd = openat(sdfd, at(sdfd, name, src), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0)
        CF_FAIL_OUT(err, CF_EIO, "%s: %s", src, strerror(errno));
    CF_TRY_OUT(cf_rs_create_file_at(&out, ddfd, ddir, name,
                                    mode ? mode : (unsigned)(sb.st_mode & 07777), err));
    enum { CHUNK = 1 << 16 };
    buf = cf_malloc(CHUNK);
    if (buf == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "%s: out of memory", dst);
    for (;;) {
        ssize_t n = read(fd, buf, CHUNK);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            CF_FAIL_OUT(err, CF_EIO, "%s: %s", src, strerror(errno));
        if (n == 0)
            break;
        CF_TRY_OUT(out->ops->append(out, buf, (size_t)n, err));
    }
    CF_TRY_OUT(out->ops->commit(out, err));
out:
    cf_io_free(out); /* removes the temporary unless committed */
    cf_free(buf);
    if (fd >= 0)
        close(fd);
    return st;
}

cf_status cf_rs_clone(const cf_rs_manifest *m, int sdfd, const char *src_dir, int ddfd,
                      const char *dst_dir, unsigned mode, cf_error *err)
{
    cf_status st = CF_OK;
    for (size_t i = 0; i < m->nfiles && st == CF_OK; i++) {
        char *src = cf_rs_path(src_dir, m->files[i].name);
        char *dst = cf_rs_path(dst_dir, m->files[i].name);
        if (src == NULL || dst == NULL) {
            st = CF_ENOMEM;
            cf_error_set(err, st, __FILE__, __LINE__, "clone: out of memory");
        } else if (linkat(sdfd, at(sdfd, m->files[i].name, src), ddfd,
                          at(ddfd, m->files[i].name, dst), 0) != 0) {
            int e = errno;
            if (e == EXDEV || e == EPERM || e == ENOTSUP || e == EMLINK || e == ENOSYS)
                st = copy_file(sdfd, ddfd, dst_dir, m->files[i].name, src, dst, mode, err);
            else
                st = cf_error_set(err, CF_EIO, __FILE__, __LINE__, "link %s to %s: %s", src, dst,
                                  strerror(e));
        }
        cf_free(src);
        cf_free(dst);
    }
    if (st == CF_OK) {
        /* the links are durable before the MANIFEST naming them is */
        int dfd = ddfd == AT_FDCWD ? cf_rs_dir_open(dst_dir) : ddfd;
        if (dfd < 0 || fsync(dfd) != 0)
            st = cf_error_set(err, CF_EIO, __FILE__, __LINE__, "fsync %s: %s", dst_dir,
                              strerror(errno));
        if (dfd >= 0 && dfd != ddfd)
            close(dfd);
    }
    if (st == CF_OK) {
        cf_rs_manifest c = *m; /* a shallow copy: only the new MANIFEST's mode differs */
        c.file_mode = mode;
        st = cf_rs_manifest_write_at(&c, ddfd, dst_dir, err);
    }
    return st;
}

/* Byte ranges as ios: a window over another io (cf_io_open_range), and a window of a
 * file opened for just that range (cf_io_open_file_range), pread or mmap. Kudu's log
 * block manager keeps many blocks in one data file; a block read through a range is
 * read in place, as any file is, without copying it out. */
#include <cfile/io.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_at.h"
#include "util/alloc.h"
#include "util/error.h"

/* ---- a window over another io ---------------------------------------------------------- */

typedef struct range_io {
    cf_io base;
    cf_io *inner;
    bool own;
    uint64_t off, len;
} range_io;

static cf_status range_read_at(cf_io *io, uint64_t off, void *dst, size_t len, cf_error *err)
{
    const range_io *r = (const range_io *)io;
    CF_CHECK(len <= r->len && off <= r->len - len, err, CF_EIO,
             "read: %zu bytes at offset %" PRIu64 " run past the end of a %" PRIu64 "-byte range",
             len, off, r->len);
    return r->inner->ops->read_at(r->inner, r->off + off, dst, len, err);
}

static const uint8_t *range_view_at(cf_io *io, uint64_t off, size_t len)
{
    const range_io *r = (const range_io *)io;
    if (r->inner->ops->view_at == NULL || len > r->len || off > r->len - len)
        return NULL;
    return r->inner->ops->view_at(r->inner, r->off + off, len);
}

static uint64_t range_size(cf_io *io)
{
    return ((const range_io *)io)->len;
}

static void range_free(cf_io *io)
{
    range_io *r = (range_io *)io;
    if (r->own)
        cf_io_free(r->inner);
    cf_free(r);
}

static const cf_io_ops range_ops = {
    .read_at = range_read_at,
    .view_at = range_view_at,
    .size = range_size,
    .free = range_free,
};

cf_status cf_io_open_range(cf_io **out, cf_io *base, bool own_base, uint64_t off, uint64_t len,
                           cf_error *err)
{
    *out = NULL;
    cf_status st = CF_OK;
    if (base == NULL || base->ops == NULL || base->ops->read_at == NULL || base->ops->size == NULL)
        CF_FAIL_OUT(err, CF_EINVAL, "range: the base io cannot be read");
    uint64_t size = base->ops->size(base);
    if (len > size || off > size - len)
        CF_FAIL_OUT(err, CF_EINVAL,
                    "range: %" PRIu64 " bytes at offset %" PRIu64 " run past the end of a %" PRIu64
                    "-byte io",
                    len, off, size);
    range_io *r = cf_malloc(sizeof *r);
    if (r == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "range: cannot allocate the io");
    r->base.ops = &range_ops;
    r->inner = base;
    r->own = own_base;
    r->off = off;
    r->len = len;
    *out = &r->base;
    return CF_OK;
out:
    if (own_base)
        cf_io_free(base);
    return st;
}

/* ---- a pread window of a file -------------------------------------------------------------- */

typedef struct pread_range {
    cf_io base;
    int fd;
    uint64_t off, len;
    char path[]; /* for messages */
} pread_range;

static cf_status pr_read_at(cf_io *io, uint64_t off, void *dst, size_t len, cf_error *err)
{
    const pread_range *r = (const pread_range *)io;
    CF_CHECK(len <= r->len && off <= r->len - len, err, CF_EIO,
             "read %s: %zu bytes at offset %" PRIu64 " run past the end of a %" PRIu64
             "-byte range",
             r->path, len, off, r->len);
    uint8_t *p = dst;
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(r->fd, p + done, len - done, (off_t)(r->off + off + done));
        if (n < 0 && errno == EINTR)
            continue;
        CF_CHECK(n >= 0, err, CF_EIO, "read %s: %zu bytes at offset %" PRIu64 ": %s", r->path, len,
                 r->off + off, strerror(errno));
        CF_CHECK(n > 0, err, CF_EIO,
                 "read %s: %zu bytes at offset %" PRIu64 ": end of file after %zu bytes", r->path,
                 len, r->off + off, done);
        done += (size_t)n;
    }
    return CF_OK;
}

static const uint8_t *pr_view_at(cf_io *io, uint64_t off, size_t len)
{
    (void)io, (void)off, (void)len;
    return NULL;
}

static uint64_t pr_size(cf_io *io)
{
    return ((const pread_range *)io)->len;
}

static void pr_free(cf_io *io)
{
    pread_range *r = (pread_range *)io;
    close(r->fd);
    cf_free(r);
}

static const cf_io_ops pread_range_ops = {
    .read_at = pr_read_at,
    .view_at = pr_view_at,
    .size = pr_size,
    .free = pr_free,
};

/* On success the reader owns fd. */
static cf_status pread_file_range(cf_io **out, int fd, const char *path, uint64_t off, uint64_t len,
                                  cf_error *err)
{
    size_t plen = strlen(path), total;
    pread_range *r = NULL;
    if (cf_add_ok(sizeof *r, plen + 1, &total))
        r = cf_malloc(total);
    CF_CHECK(r != NULL, err, CF_ENOMEM, "open %s: cannot allocate the reader", path);
    r->base.ops = &pread_range_ops;
    r->fd = fd;
    r->off = off;
    r->len = len;
    memcpy(r->path, path, plen + 1);
    *out = &r->base;
    return CF_OK;
}

/* ---- a mapped window of a file ------------------------------------------------------------ */

typedef struct map_range {
    cf_io base;
    void *map; /* NULL for an empty range */
    size_t map_len;
    const uint8_t *data; /* the range's first byte inside map */
    uint64_t len;
} map_range;

static cf_status mr_read_at(cf_io *io, uint64_t off, void *dst, size_t len, cf_error *err)
{
    const map_range *m = (const map_range *)io;
    CF_CHECK(len <= m->len && off <= m->len - len, err, CF_EIO,
             "read: %zu bytes at offset %" PRIu64 " run past the end of a %" PRIu64 "-byte range",
             len, off, m->len);
    if (len)
        memcpy(dst, m->data + off, len);
    return CF_OK;
}

static const uint8_t *mr_view_at(cf_io *io, uint64_t off, size_t len)
{
    const map_range *m = (const map_range *)io;
    if (len > m->len || off > m->len - len)
        return NULL;
    static const uint8_t empty[1];
    return m->data != NULL ? m->data + off : empty;
}

static uint64_t mr_size(cf_io *io)
{
    return ((const map_range *)io)->len;
}

static void mr_free(cf_io *io)
{
    map_range *m = (map_range *)io;
    if (m->map != NULL)
        munmap(m->map, m->map_len);
    cf_free(m);
}

static const cf_io_ops map_range_ops = {
    .read_at = mr_read_at,
    .view_at = mr_view_at,
    .size = mr_size,
    .free = mr_free,
};

static cf_status map_file_range(cf_io **out, int fd, const char *path, uint64_t off, uint64_t len,
                                cf_error *err)
{
    map_range *m = cf_calloc(1, sizeof *m);
    CF_CHECK(m != NULL, err, CF_ENOMEM, "open %s: cannot allocate the reader", path);
    m->base.ops = &map_range_ops;
    m->len = len;
    if (len > 0) {
        long page = sysconf(_SC_PAGESIZE);
        uint64_t pg = page > 0 ? (uint64_t)page : 4096;
        uint64_t start = off - off % pg, span = off - start + len;
        if (span > SIZE_MAX || span < len) {
            cf_free(m);
            CF_FAIL(err, CF_EIO, "mmap %s: %" PRIu64 " bytes do not fit the address space", path,
                    len);
        }
        void *p = mmap(NULL, (size_t)span, PROT_READ, MAP_PRIVATE, fd, (off_t)start);
        if (p == MAP_FAILED) {
            int e = errno;
            cf_free(m);
            CF_FAIL(err, CF_EIO, "mmap %s: %" PRIu64 " bytes at offset %" PRIu64 ": %s", path, len,
                    off, strerror(e));
        }
        m->map = p;
        m->map_len = (size_t)span;
        m->data = (const uint8_t *)p + (off - start);
    }
    *out = &m->base;
    return CF_OK;
}

cf_status cf_io_open_file_range(cf_io **out, const char *path, uint64_t off, uint64_t len,
                                unsigned flags, cf_error *err)
{
    return cf_io_open_file_range_at(out, AT_FDCWD, path, path, off, len, flags, err);
}

cf_status cf_io_open_file_range_at(cf_io **out, int dirfd, const char *name, const char *path,
                                   uint64_t off, uint64_t len, unsigned flags, cf_error *err)
{
    *out = NULL;
    CF_CHECK(path != NULL && name != NULL, err, CF_EINVAL, "open: NULL path");
    /* O_NONBLOCK: a FIFO (or device) where a file belongs must not block the open
     * until a writer appears; it is refused as not a regular file below. For a
     * regular file the flag changes nothing. */
    int oflags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
    if (flags & CF_IO_RANGE_NOFOLLOW)
        oflags |= O_NOFOLLOW;
    int fd;
    do
        fd = openat(dirfd, name, oflags);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        int e = errno;
        /* O_NOFOLLOW on a link fails with ELOOP; say what it is. */
        CF_FAIL(err, CF_EIO, "open %s: %s", path,
                e == ELOOP && (flags & CF_IO_RANGE_NOFOLLOW) ? "a symbolic link (not followed)"
                                                             : strerror(e));
    }
    cf_status st = CF_OK;
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        CF_FAIL_OUT(err, CF_EIO, "stat %s: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        CF_FAIL_OUT(err, CF_EIO, "open %s: not a regular file", path);
    uint64_t size = sb.st_size > 0 ? (uint64_t)sb.st_size : 0;
    if (len == UINT64_MAX && off <= size)
        len = size - off;
    if (len > size || off > size - len)
        CF_FAIL_OUT(err, CF_ECORRUPT,
                    "%s: %" PRIu64 " bytes at offset %" PRIu64
                    " run past the end of the file (%" PRIu64 " bytes)",
                    path, len, off, size);
    if (flags & CF_IO_RANGE_MMAP) {
        st = map_file_range(out, fd, path, off, len, err);
        goto out;
    }
    st = pread_file_range(out, fd, path, off, len, err);
    if (st == CF_OK)
        return CF_OK; /* the reader keeps the descriptor */
out:
    close(fd);
    return st;
}

/* A read-only mmap of a whole file: view_at lends pointers into the map, so
 * uncompressed blocks are served without a copy. The descriptor is closed
 * once mapped; the map lives until free. */
#include <cfile/io.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io_at.h"
#include "io_internal.h"
#include "util/alloc.h"
#include "util/error.h"

typedef struct mmap_reader {
    cf_io base;
    const uint8_t *data; /* NULL for an empty file (mmap refuses length 0) */
    uint64_t size;
    char path[];
} mmap_reader;

static cf_status mm_read_at(cf_io *io, uint64_t off, void *dst, size_t len, cf_error *err)
{
    const mmap_reader *m = (const mmap_reader *)io;
    CF_CHECK(len <= m->size && off <= m->size - len, err, CF_EIO,
             "read %s: %zu bytes at offset %" PRIu64 " run past the end of the file (%" PRIu64
             " bytes)",
             m->path, len, off, m->size);
    if (len)
        memcpy(dst, m->data + off, len);
    return CF_OK;
}

static const uint8_t *mm_view_at(cf_io *io, uint64_t off, size_t len)
{
    const mmap_reader *m = (const mmap_reader *)io;
    if (len > m->size || off > m->size - len)
        return NULL;
    static const uint8_t empty[1];
    return m->data ? m->data + off : empty;
}

static uint64_t mm_size(cf_io *io)
{
    return ((const mmap_reader *)io)->size;
}

static void mm_free(cf_io *io)
{
    mmap_reader *m = (mmap_reader *)io;
    if (m->data != NULL)
        munmap((void *)m->data, (size_t)m->size);
    cf_free(m);
}

static const cf_io_ops mmap_ops = {
    .read_at = mm_read_at,
    .view_at = mm_view_at,
    .size = mm_size,
    .free = mm_free,
};

cf_status cf_io_open_mmap(cf_io **out, const char *path, cf_error *err)
{
    return cf_io_open_mmap_at(out, AT_FDCWD, path, path, err);
}

cf_status cf_io_open_mmap_at(cf_io **out, int dirfd, const char *name, const char *path,
                             cf_error *err)
{
    *out = NULL;
    int fd;
    uint64_t size;
    CF_TRY(cf_io_open_ro_at(&fd, &size, dirfd, name, path, err));
    cf_status st = CF_OK;
    size_t plen = strlen(path), total;
    mmap_reader *m = NULL;
    if (cf_add_ok(sizeof *m, plen + 1, &total))
        m = cf_malloc(total);
    if (m == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "open %s: cannot allocate the reader", path);
    m->base.ops = &mmap_ops;
    m->data = NULL;
    m->size = size;
    memcpy(m->path, path, plen + 1);
    if (size > SIZE_MAX) {
        cf_free(m);
        m = NULL;
        CF_FAIL_OUT(err, CF_EIO, "mmap %s: %" PRIu64 " bytes do not fit the address space", path,
                    size);
    }
    if (size > 0) {
        void *p = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            int e = errno;
            cf_free(m);
            m = NULL;
            CF_FAIL_OUT(err, CF_EIO, "mmap %s: %s", path, strerror(e));
        }
        m->data = p;
    }
    *out = &m->base;
out:
    close(fd);
    return st;
}

/* cfile: where bytes live. A cf_io is a small vtable, so a caller can read from
 * a file, memory, an mmap or a remote store with range reads, and write to a
 * file (atomically) or memory.
 *
 * Call order:
 *   reading io:  open (read_at | view_at | size)* free
 *   writing io:  create append* commit? free
 * A writing io freed without commit leaves nothing behind: a file io writes to a
 * temporary name and only `commit` (fsync, rename, fsync of the directory) makes
 * the target path appear. append or commit after commit is CF_ESTATE.
 *
 * Ownership: whoever opens or creates an io frees it (cf_io_free). Readers and
 * writers given an io borrow it (REQUIRES: it outlives them; whether a writer's
 * finish also commits it, each create function says); the *_open_file and
 * *_create_file variants of the format APIs own the io they open. Pointers from
 * view_at stay valid until the io is freed; cf_io_open_mem reads memory the caller
 * keeps alive (REQUIRES: the bytes outlive the io and do not change).
 *
 * Threads: the library's reading ios (file, mmap, memory) may be read from any
 * number of threads at once (pread, no shared cursor), which is what lets one
 * cf_reader serve many threads; an io of your own must allow the same if it backs
 * a shared reader. A writing io belongs to one thread at a time.
 */
#ifndef CFILE_IO_H
#define CFILE_IO_H

#include <stdbool.h>
#include <stdint.h>

#include "status.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cf_io cf_io;

/* The vtable. Unused entries are NULL (a read-only io has no append). */
typedef struct cf_io_ops {
    /* Read exactly len bytes at off into dst; fewer available is CF_EIO/CF_ECORRUPT. */
    cf_status (*read_at)(cf_io *io, uint64_t off, void *dst, size_t len, cf_error *err);
    /* Optional zero-copy: a pointer to len bytes at off that stays valid until the
     * io is freed, or NULL when the io cannot lend its bytes (then read_at is used). */
    const uint8_t *(*view_at)(cf_io *io, uint64_t off, size_t len);
    /* Total size in bytes (for a writer: bytes appended so far). */
    uint64_t (*size)(cf_io *io);
    cf_status (*append)(cf_io *io, const void *src, size_t len, cf_error *err);
    /* Make everything appended durable and visible under the final name. */
    cf_status (*commit)(cf_io *io, cf_error *err);
    /* Release everything; an uncommitted writer's temporary file is removed. */
    void (*free)(cf_io *io);
} cf_io_ops;

struct cf_io {
    const cf_io_ops *ops;
};

/* Open a file for reading with pread. */
CF_API cf_status cf_io_open_file(cf_io **out, const char *path, cf_error *err);
/* Map a file read-only; blocks that are stored uncompressed are served in place.
 * Faster than pread for seeks without a cache and for scans of big files, but
 * opt-in: a file truncated under the mapping, or a media error on a page the
 * kernel must fetch, arrives as SIGBUS (the process dies) where pread returns
 * CF_EIO. Use it for files you know stay intact (docs/PERFORMANCE.md, "Why
 * pread stays the default"). */
CF_API cf_status cf_io_open_mmap(cf_io **out, const char *path, cf_error *err);
/* Read from memory the caller owns.
 * REQUIRES: data[0, len) outlives the io and does not change while it is open. */
CF_API cf_status cf_io_open_mem(cf_io **out, const void *data, size_t len, cf_error *err);
/* Create `path` atomically: bytes go to "<path>.tmp.<pid>.<random>" (same
 * directory, created with O_EXCL) until commit; append after commit is CF_ESTATE.
 * Commit is fsync, rename over `path`, fsync of the directory; free without
 * commit (and any failed write, e.g. EFBIG over RLIMIT_FSIZE or ENOSPC, which
 * is reported with the system's message) removes the temporary file.
 * Replacing an existing regular file keeps its permission bits (and, when the
 * process may, its owner and group): the temporary gets them before any byte
 * is written. A symlink at `path` is not followed: the rename replaces the
 * link itself (as `sed -i` and `mv` do), its target is left untouched, and the
 * new file gets the default mode (0666 less the umask). */
CF_API cf_status cf_io_create_file(cf_io **out, const char *path, cf_error *err);
/* cf_io_create_file, except that a new file (nothing at `path`, or a symlink)
 * gets exactly the permission bits `mode` (07777 bits; the umask does not
 * apply), from its creation on. Replacing a regular file keeps its bits as
 * above. mode 0: the default. A table's writers use it so that files they add
 * take the mode of the table's own metadata (docs/ROWSET.md). */
CF_API cf_status cf_io_create_file_mode(cf_io **out, const char *path, unsigned mode,
                                        cf_error *err);
/* Write into a growing memory buffer; cf_io_mem_contents() shows it. */
CF_API cf_status cf_io_create_mem(cf_io **out, cf_error *err);
/* The bytes of a memory writer, valid until the next append or free. */
CF_API cf_slice cf_io_mem_contents(const cf_io *io);
/* A read-only io over bytes [off, off + len) of `base`: offset 0 of the new io is
 * `off` of base, its size is len, reads and views are passed through (so a base that
 * lends its bytes lends them here too, without a copy). With `own_base` the new io
 * frees base when freed (also when this call fails); otherwise base is borrowed
 * (REQUIRES: it outlives the new io). A range past base's end is CF_EINVAL. */
CF_API cf_status cf_io_open_range(cf_io **out, cf_io *base, bool own_base, uint64_t off,
                                  uint64_t len, cf_error *err);

/* Flags of cf_io_open_file_range. */
#define CF_IO_RANGE_MMAP 1u     /* map just the range (pages around it) instead of pread */
#define CF_IO_RANGE_NOFOLLOW 2u /* refuse a symbolic link as the last path component */
/* Open bytes [off, off + len) of the file at `path` read-only (O_CLOEXEC); len
 * UINT64_MAX means "to the end of the file". The pread form keeps one descriptor;
 * the mmap form maps only the pages that hold the range and closes the descriptor
 * (the SIGBUS caveat of cf_io_open_mmap applies). A range past the end of the file
 * is CF_ECORRUPT naming the path, offset and size. */
CF_API cf_status cf_io_open_file_range(cf_io **out, const char *path, uint64_t off, uint64_t len,
                                       unsigned flags, cf_error *err);
/* Frees any io; NULL is a no-op. */
CF_API void cf_io_free(cf_io *io);

#ifdef __cplusplus
}
#endif
#endif

/* Internal to src/io: helpers shared by the POSIX-backed ios. */
#ifndef CF_IO_INTERNAL_H
#define CF_IO_INTERNAL_H

#include <stdint.h>

#include <cfile/status.h>

/* Open path read-only (O_CLOEXEC) and stat it: *fd_out and *size_out on success.
 * Refuses directories. Errors name the path and the system's reason. */
cf_status cf_io_open_ro(int *fd_out, uint64_t *size_out, const char *path, cf_error *err);
/* The same for file `name` in directory dirfd (AT_FDCWD: a path); `path`
 * names it in messages. */
cf_status cf_io_open_ro_at(int *fd_out, uint64_t *size_out, int dirfd, const char *name,
                           const char *path, cf_error *err);

#endif

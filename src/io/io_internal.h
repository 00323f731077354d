/* Internal to src/io: helpers shared by the POSIX-backed ios. */
#ifndef CF_IO_INTERNAL_H
#define CF_IO_INTERNAL_H

#include <stdint.h>

#include <cfile/status.h>

/* Open path read-only (O_CLOEXEC) and stat it: *fd_out and *size_out on success.
 * Refuses directories. Errors name the path and the system's reason. */
cf_status cf_io_open_ro(int *fd_out, uint64_t *size_out, const char *path, cf_error *err);

#endif

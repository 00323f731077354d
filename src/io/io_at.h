/* ios over files in a directory the caller holds open (not installed).
 *
 * Code that keeps a directory open (a table, a rowset, a Kudu root) reaches its
 * files through the descriptor, so a rename of the directory or a symlink put
 * in its place meanwhile cannot redirect a read or a write. `name` is a file
 * name in dirfd (no slash for the writer); `path` is what messages call it
 * (the directory's path joined with name, once, by the caller). */
#ifndef CF_IO_AT_H
#define CF_IO_AT_H

#include <cfile/io.h>

/* cf_io_open_file / cf_io_open_mmap of dirfd/name. */
cf_status cf_io_open_file_at(cf_io **out, int dirfd, const char *name, const char *path,
                             cf_error *err);
cf_status cf_io_open_mmap_at(cf_io **out, int dirfd, const char *name, const char *path,
                             cf_error *err);
/* cf_io_open_file_range of dirfd/name (`name` may hold slashes: it is
 * resolved below dirfd, never from the path again). */
cf_status cf_io_open_file_range_at(cf_io **out, int dirfd, const char *name, const char *path,
                                   uint64_t off, uint64_t len, unsigned flags, cf_error *err);
/* cf_io_create_file_mode of dirfd/name: the temporary, the rename over name
 * and the fsync of the directory all in dirfd (kept by the writer as its own
 * duplicate until freed). */
cf_status cf_io_create_file_at(cf_io **out, int dirfd, const char *name, const char *path,
                               unsigned mode, cf_error *err);

#endif

/* Shared by the CLI's Kudu tests: the one-directory root most of them build. */
#ifndef CF_TEST_SUPPORT_KUDU_H
#define CF_TEST_SUPPORT_KUDU_H

#include "kudufs/lbm_writer.h"

/* Write a Kudu root at `root` holding WAL and data in one directory (log block
 * manager, 4 KiB file system blocks, server uuid fedcba98...), the data directory's
 * uuid all[0] (all: an array of one, outliving the returned spec); fails the test on
 * error. Returns the spec written, for a variant of it. */
cf_kudu_root_spec cli_kudu_root(const char *root, const char *const *all);

#endif

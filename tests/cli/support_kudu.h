/* Shared by the CLI's Kudu tests: the one-directory root most of them build. */
#ifndef CF_TEST_SUPPORT_KUDU_H
#define CF_TEST_SUPPORT_KUDU_H

#include <stdbool.h>

#include "kudufs/lbm_writer.h"
#include "kudu/tablet.h"
#include "kudu_tablet.pb-c.h"

/* Write a Kudu root at `root` holding WAL and data in one directory (log block
 * manager, 4 KiB file system blocks, server uuid fedcba98...), the data directory's
 * uuid all[0] (all: an array of one, outliving the returned spec); fails the test on
 * error. Returns the spec written, for a variant of it. */
cf_kudu_root_spec cli_kudu_root(const char *root, const char *const *all);

/* The Kudu-written layouts of shared/kudu-fs the CLI tests read. */
extern const char *const cli_kudu_layouts[4];
#define CLI_KUDU_NLAYOUTS 4

/* Each layout's expected/ files in the order the tests produce them: the latest
 * rows, --no-wal, --as-of, and the latest again with the blocks read through mmap
 * (--mmap). */
extern const char *const cli_kudu_expected[4];

/* One layout's directory options and tablet id, from its expected/fs.json. */
typedef struct cli_kudu_lay {
    char root[512];                        /* shared/kudu-fs/<name> */
    char wal[700], data[1600], tablet[80]; /* --fs-wal-dir, --fs-data-dirs, the tablet id */
} cli_kudu_lay;

/* Fill l for shared/kudu-fs/<name>, its roots (named in fs.json relative to the
 * layout's directory) under `base`, or under l->root when base is NULL (a copy of the
 * layout's fs/ elsewhere: base is where that copy's parent is). False when the layout
 * is not there (the test skips); fails the test when fs.json does not parse or lacks
 * a root or the tablet. */
bool cli_kudu_lay_open(cli_kudu_lay *l, const char *name, const char *base);

/* The superblock `spec` describes, packed (cf_kudu_superblock_pack) and unpacked, for
 * a test to edit before writing it; fails the test on error. Free it with
 * kudu__tablet__tablet_super_block_pb__free_unpacked(pb, NULL). */
Kudu__Tablet__TabletSuperBlockPB *cli_kudu_superblock_pb(const cf_kudu_superblock_spec *spec);

#endif

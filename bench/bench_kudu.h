/* What the Kudu-on-disk benchmarks (kudu_fs.c, kudu_scan.c) share: the server root
 * they generate. Include after bench_util.h. */
#ifndef CF_BENCH_KUDU_H
#define CF_BENCH_KUDU_H

#include "kudufs/lbm_writer.h"

/* Make `root` a Kudu root holding WAL and data in one directory (log block manager,
 * data directory 0123..., file system blocks of fs_block_size bytes); exits on error. */
static inline void bench_kudu_root(const char *root, uint64_t fs_block_size)
{
    static const char *const all[] = {"0123456789abcdef0123456789abcdef"};
    cf_kudu_root_spec spec = {.root = root,
                              .server_uuid = "fedcba9876543210fedcba9876543210",
                              .wal = true,
                              .data = true,
                              .dir_uuid = all[0],
                              .all_uuids = all,
                              .nall = 1,
                              .dir_type = "log",
                              .fs_block_size = fs_block_size};
    cf_error e = {0};
    cf_status st = cf_kudu_root_write(&spec, &e);
    if (st != CF_OK)
        bench_die("root", st, &e);
}

#endif

/* cf-needs: tables */
/* Shared by the CLI's Kudu tests: see support_kudu.h. */
#include "support_kudu.h"

#include "test_common.h"

cf_kudu_root_spec cli_kudu_root(const char *root, const char *const *all)
{
    cf_kudu_root_spec spec = {.root = root,
                              .server_uuid = "fedcba9876543210fedcba9876543210",
                              .wal = true,
                              .data = true,
                              .dir_uuid = all[0],
                              .all_uuids = all,
                              .nall = 1,
                              .dir_type = "log",
                              .fs_block_size = 4096};
    cf_error err = {0};
    CF_ASSERT_OK(cf_kudu_root_write(&spec, &err), &err);
    return spec;
}

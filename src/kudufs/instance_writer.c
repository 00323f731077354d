/* A server root's instance files written (lbm_writer.h cf_kudu_root_write), as
 * FsManager::CreateInitialFileSystemLayout (fs_manager.cc) and
 * DirInstanceMetadataFile::Create (dir_util.cc) leave them; read back by
 * instance.c. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "kudu_common.pb-c.h"
#include "lbm_writer.h"
#include "pbc_writer.h"
#include "util/alloc.h"
#include "util/error.h"

static cf_status make_dir(const char *path, cf_error *err)
{
    /* Kudu creates its directories 0700 under its umask. */
    if (mkdir(path, 0700) != 0 && errno != EEXIST)
        CF_FAIL(err, CF_EIO, "mkdir %s: %s", path, strerror(errno));
    return CF_OK;
}

static cf_status sub(char *out, size_t cap, const char *root, const char *name, cf_error *err)
{
    int n = snprintf(out, cap, "%s/%s", root, name);
    CF_CHECK(n > 0 && (size_t)n < cap, err, CF_EINVAL, "%s/%s: path too long", root, name);
    return CF_OK;
}

cf_status cf_kudu_root_write(const cf_kudu_root_spec *s, cf_error *err)
{
    char path[4096];
    CF_TRY(make_dir(s->root, err));
    Kudu__InstanceMetadataPB inst = KUDU__INSTANCE_METADATA_PB__INIT;
    inst.has_uuid = true;
    inst.uuid.data = (uint8_t *)s->server_uuid;
    inst.uuid.len = strlen(s->server_uuid);
    inst.format_stamp = (char *)"Formatted by cfile";
    inst.server_key = (char *)s->server_key;
    CF_TRY(sub(path, sizeof path, s->root, "instance", err));
    CF_TRY(cf_kudu_pbc_write_file(path, &inst.base, err));
    if (s->wal) {
        static const char *const dirs[] = {"wals", "tablet-meta", "consensus-meta"};
        for (size_t i = 0; i < 3; i++) {
            CF_TRY(sub(path, sizeof path, s->root, dirs[i], err));
            CF_TRY(make_dir(path, err));
        }
    }
    if (!s->data)
        return CF_OK;
    CF_TRY(sub(path, sizeof path, s->root, "data", err));
    CF_TRY(make_dir(path, err));
    Kudu__DirSetPB set = KUDU__DIR_SET_PB__INIT;
    set.has_uuid = true;
    set.uuid.data = (uint8_t *)s->dir_uuid;
    set.uuid.len = strlen(s->dir_uuid);
    ProtobufCBinaryData *all = cf_calloc(s->nall ? s->nall : 1, sizeof *all);
    CF_CHECK(all != NULL, err, CF_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->nall; i++) {
        all[i].data = (uint8_t *)s->all_uuids[i];
        all[i].len = strlen(s->all_uuids[i]);
    }
    set.n_all_uuids = s->nall;
    set.all_uuids = all;
    Kudu__DirInstanceMetadataPB di = KUDU__DIR_INSTANCE_METADATA_PB__INIT;
    di.dir_set = &set;
    di.dir_type = (char *)s->dir_type;
    di.has_filesystem_block_size_bytes = true;
    di.filesystem_block_size_bytes = s->fs_block_size;
    cf_status st = sub(path, sizeof path, s->root, "data/block_manager_instance", err);
    if (st == CF_OK)
        st = cf_kudu_pbc_write_file(path, &di.base, err);
    cf_free(all);
    return st;
}

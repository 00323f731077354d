/* The instance files of a server's roots, read and checked as Kudu's FsManager and
 * DirManager check them at startup, without taking their locks:
 *
 *   <root>/instance                     InstanceMetadataPB: the server's uuid and,
 *                                       on an encrypted server, its server_key
 *                                       (fs_manager.cc PartialOpen)
 *   <data root>/data/block_manager_instance
 *                                       DirInstanceMetadataPB: this dir's uuid, the
 *                                       uuids of the whole dir set, the block manager
 *                                       ("log" or "file") and the filesystem block
 *                                       size (dir_util.cc LoadFromDisk,
 *                                       dir_manager.cc LoadInstances)
 *
 * Every file is a protobuf container (pbc.c) holding one message, reached through
 * its directory as the fs holds it open read-only (the root, or <data root>/data),
 * never through the path again. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs_internal.h"
#include "kudu_common.pb-c.h"
#include "io/io_at.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/pb_mem.h"

bool cf_kudu_file_locked(int dirfd, const char *name)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return false;
    /* Kudu takes a whole-file write lock with fcntl(F_SETLK) (util/env_posix.cc
     * LockOrUnlock); F_GETLK only asks whether one would conflict. */
    struct flock f;
    memset(&f, 0, sizeof f);
    f.l_type = F_WRLCK;
    f.l_whence = SEEK_SET;
    bool locked = fcntl(fd, F_GETLK, &f) == 0 && f.l_type != F_UNLCK;
    close(fd);
    return locked;
}

/* The one message of the container `name` in dirfd (`path` in messages): its bytes
 * in *msg (cf_malloc'd). `expect` is the type a version 2 container must name. A
 * missing file is CF_ENOTFOUND (the caller says what that means). */
static cf_status read_one(int dirfd, const char *name, const char *path, const char *expect,
                          uint8_t **msg, size_t *len, cf_error *err)
{
    *msg = NULL;
    *len = 0;
    struct stat sb;
    if (fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            CF_FAIL(err, CF_ENOTFOUND, "%s: no such file", path);
        CF_FAIL(err, CF_EIO, "%s: %s", path, strerror(errno));
    }
    cf_io *io = NULL;
    cf_kudu_pbc *c = NULL;
    cf_status st = CF_OK;
    CF_TRY_OUT(
        cf_io_open_file_range_at(&io, dirfd, name, path, 0, UINT64_MAX, CF_IO_RANGE_NOFOLLOW, err));
    CF_TRY_OUT(cf_kudu_pbc_open(&c, io, path, err));
    const char *type = cf_kudu_pbc_type(c);
    if (type != NULL && strcmp(type, expect) != 0)
        CF_FAIL_OUT(err, CF_ECORRUPT, "%s: holds %s, not the %s Kudu keeps there", path, type,
                    expect);
    const uint8_t *data;
    uint64_t off;
    bool has;
    CF_TRY_OUT(cf_kudu_pbc_next(c, &data, len, &off, &has, err));
    if (!has)
        CF_FAIL_OUT(err, CF_ECORRUPT, "%s: the container holds no %s", path, expect);
    *msg = cf_malloc(*len ? *len : 1);
    if (*msg == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "%s: out of memory", path);
    memcpy(*msg, data, *len);
out:
    cf_kudu_pbc_free(c);
    cf_io_free(io);
    return st;
}

/* Read and check <root>/instance (rootfd: the root held open); the first root read
 * sets fs->uuid and the others must agree (fs_manager.cc: "Mismatched UUIDs across
 * filesystem roots"). */
static cf_status check_root(cf_kudu_fs *fs, int rootfd, const char *root, const char **first_root,
                            cf_error *err)
{
    const char *path = cf_kudu_fs_join(fs, root, "instance");
    CF_CHECK(path != NULL, err, CF_ENOMEM, "out of memory");
    uint8_t *msg;
    size_t len;
    cf_status st = read_one(rootfd, "instance", path, "kudu.InstanceMetadataPB", &msg, &len, err);
    if (st == CF_ENOTFOUND)
        CF_FAIL(err, CF_ECORRUPT, "%s: not a Kudu directory (it has no instance file)", root);
    if (st == CF_ECORRUPT && err != NULL && strstr(err->msg, "magic") != NULL)
        return cf_error_prefix(err, st, "%s: not a Kudu directory: ", root);
    CF_TRY(st);
    cf_pb_mem mem;
    cf_pb_mem_init(&mem);
    Kudu__InstanceMetadataPB *pb = kudu__instance_metadata_pb__unpack(&mem.a, len, msg);
    cf_free(msg);
    CF_CHECK(pb != NULL || !mem.oom, err, CF_ENOMEM, "%s: out of memory", path);
    CF_CHECK(pb != NULL, err, CF_ECORRUPT,
             "%s: the record at offset 0 does not parse as kudu.InstanceMetadataPB", path);
    if (!pb->has_uuid || pb->uuid.len == 0)
        CF_FAIL_OUT(err, CF_ECORRUPT, "%s: the instance has no uuid (a field Kudu requires)", path);
    /* fs_manager.cc: a server_key (or a tenant key) means the data is encrypted at
     * rest with keys only the server's key provider can open. */
    bool encrypted = pb->server_key != NULL && pb->server_key[0] != '\0';
    for (size_t i = 0; i < pb->n_tenants; i++)
        if (pb->tenants[i]->tenant_key != NULL && pb->tenants[i]->tenant_key[0] != '\0')
            encrypted = true;
    if (encrypted)
        CF_FAIL_OUT(err, CF_ENOTSUP, "%s: the server's data is encrypted, not supported", path);
    const char *uuid = cf_kudu_fs_strndup(fs, (const char *)pb->uuid.data, pb->uuid.len);
    if (uuid == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "out of memory");
    if (fs->uuid == NULL) {
        fs->uuid = uuid;
        *first_root = root;
    } else if (strcmp(fs->uuid, uuid) != 0) {
        CF_FAIL_OUT(err, CF_ECORRUPT,
                    "%s: directories of different servers: its instance has uuid %s, %s has %s",
                    root, uuid, *first_root, fs->uuid);
    }
    if (cf_kudu_file_locked(rootfd, "instance"))
        fs->locked = true;
out:
    kudu__instance_metadata_pb__free_unpacked(pb, &mem.a);
    return st;
}

typedef struct dir_instance {
    char *type;
    size_t nall;
    char **all; /* all_uuids */
} dir_instance;

static void dir_instance_free(dir_instance *di, size_t n)
{
    for (size_t i = 0; di != NULL && i < n; i++) {
        for (size_t j = 0; j < di[i].nall; j++)
            cf_free(di[i].all[j]);
        cf_free(di[i].all);
        cf_free(di[i].type);
    }
    cf_free(di);
}

static char *dup_bytes(const uint8_t *p, size_t n)
{
    char *s = cf_malloc(n + 1);
    if (s != NULL) {
        memcpy(s, p, n);
        s[n] = '\0';
    }
    return s;
}

/* Open <root>/data below the data root (held open), then read and check its
 * block_manager_instance through it. */
static cf_status load_dir_instance(cf_kudu_fs *fs, size_t i, dir_instance *di, cf_error *err)
{
    cf_kudu_data_dir *d = &fs->dirs[i];
    const char *path = cf_kudu_fs_join(fs, d->dir, "block_manager_instance");
    CF_CHECK(path != NULL, err, CF_ENOMEM, "out of memory");
    cf_status st = cf_kudu_fs_open_dir(&d->fd, d->root_fd, "data", d->dir, err);
    uint8_t *msg = NULL;
    size_t len = 0;
    if (st == CF_OK)
        st = read_one(d->fd, "block_manager_instance", path, "kudu.DirInstanceMetadataPB", &msg,
                      &len, err);
    if (st == CF_ENOTFOUND)
        CF_FAIL(err, CF_ECORRUPT,
                "%s: not a Kudu data directory (it has no data/block_manager_instance)", d->root);
    CF_TRY(st);
    cf_pb_mem mem;
    cf_pb_mem_init(&mem);
    Kudu__DirInstanceMetadataPB *pb = kudu__dir_instance_metadata_pb__unpack(&mem.a, len, msg);
    cf_free(msg);
    CF_CHECK(pb != NULL || !mem.oom, err, CF_ENOMEM, "%s: out of memory", path);
    CF_CHECK(pb != NULL, err, CF_ECORRUPT,
             "%s: the record does not parse as kudu.DirInstanceMetadataPB", path);
    if (pb->dir_set == NULL || !pb->dir_set->has_uuid || pb->dir_set->uuid.len == 0)
        CF_FAIL_OUT(err, CF_ECORRUPT, "%s: no dir_set.uuid (a field Kudu requires)", path);
    if (pb->dir_type == NULL)
        CF_FAIL_OUT(err, CF_ECORRUPT, "%s: no dir_type (a field Kudu requires)", path);
    d->uuid = cf_kudu_fs_strndup(fs, (const char *)pb->dir_set->uuid.data, pb->dir_set->uuid.len);
    di->type = dup_bytes((const uint8_t *)pb->dir_type, strlen(pb->dir_type));
    di->all = cf_calloc(pb->dir_set->n_all_uuids ? pb->dir_set->n_all_uuids : 1, sizeof *di->all);
    if (d->uuid == NULL || di->type == NULL || di->all == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "out of memory");
    for (size_t j = 0; j < pb->dir_set->n_all_uuids; j++) {
        ProtobufCBinaryData u = pb->dir_set->all_uuids[j];
        if ((di->all[j] = dup_bytes(u.data, u.len)) == NULL)
            CF_FAIL_OUT(err, CF_ENOMEM, "out of memory");
        di->nall = j + 1;
    }
    /* dir_util.cc: every directory of a log block manager records its filesystem's
     * block size (blocks are aligned to it and holes punched in its units). */
    if (strcmp(pb->dir_type, "log") == 0 &&
        (!pb->has_filesystem_block_size_bytes || pb->filesystem_block_size_bytes == 0))
        CF_FAIL_OUT(err, CF_ECORRUPT,
                    "%s: no filesystem_block_size_bytes, which a log block manager dir requires",
                    path);
    d->fs_block_size = pb->has_filesystem_block_size_bytes ? pb->filesystem_block_size_bytes : 0;
    if (cf_kudu_file_locked(d->fd, "block_manager_instance"))
        fs->locked = true;
out:
    kudu__dir_instance_metadata_pb__free_unpacked(pb, &mem.a);
    return st;
}

static bool has_uuid(const dir_instance *di, const char *u)
{
    for (size_t j = 0; j < di->nall; j++)
        if (strcmp(di->all[j], u) == 0)
            return true;
    return false;
}

cf_status cf_kudu_instances_load(cf_kudu_fs *fs, cf_error *err)
{
    const char *first = NULL;
    CF_TRY(check_root(fs, fs->wal_fd, fs->wal_dir, &first, err));
    if (strcmp(fs->metadata_dir, fs->wal_dir) != 0)
        CF_TRY(check_root(fs, fs->meta_fd, fs->metadata_dir, &first, err));
    for (size_t i = 0; i < fs->ndirs; i++) {
        const char *r = fs->dirs[i].root;
        if (strcmp(r, fs->wal_dir) != 0 && strcmp(r, fs->metadata_dir) != 0)
            CF_TRY(check_root(fs, fs->dirs[i].root_fd, r, &first, err));
    }

    cf_status st = CF_OK;
    dir_instance *di = cf_calloc(fs->ndirs, sizeof *di);
    CF_CHECK(di != NULL, err, CF_ENOMEM, "out of memory");
    for (size_t i = 0; i < fs->ndirs; i++)
        CF_TRY_OUT(load_dir_instance(fs, i, &di[i], err));
    /* One block manager for all (dir_util.cc refuses a dir of another type). */
    const char *type = di[0].type;
    for (size_t i = 1; i < fs->ndirs; i++)
        if (strcmp(di[i].type, type) != 0)
            CF_FAIL_OUT(err, CF_ECORRUPT,
                        "%s: formatted for the '%s' block manager, but %s for '%s'",
                        fs->dirs[i].root, di[i].type, fs->dirs[0].root, type);
    if (strcmp(type, "log") == 0)
        fs->bm = CF_KUDU_BM_LOG;
    else if (strcmp(type, "file") == 0)
        fs->bm = CF_KUDU_BM_FILE;
    else
        CF_FAIL_OUT(err, CF_ENOTSUP, "%s: block manager '%s' is not supported", fs->dirs[0].root,
                    type);
    for (size_t i = 0; i < fs->ndirs; i++) {
        for (size_t j = 0; j < i; j++)
            if (strcmp(fs->dirs[i].uuid, fs->dirs[j].uuid) == 0)
                CF_FAIL_OUT(err, CF_ECORRUPT,
                            "%s and %s are the same data dir (uuid %s): given twice or copied",
                            fs->dirs[j].root, fs->dirs[i].root, fs->dirs[i].uuid);
        /* dir_manager.cc: each dir's uuid is one of the set... */
        if (!has_uuid(&di[i], fs->dirs[i].uuid))
            CF_FAIL_OUT(err, CF_ECORRUPT, "%s: its uuid %s is not in its own dir set",
                        fs->dirs[i].root, fs->dirs[i].uuid);
        /* ...and every dir named by any set must be here, or its blocks are missing. */
        for (size_t k = 0; k < di[i].nall; k++) {
            size_t j = 0;
            while (j < fs->ndirs && strcmp(fs->dirs[j].uuid, di[i].all[k]) != 0)
                j++;
            if (j == fs->ndirs)
                CF_FAIL_OUT(err, CF_ECORRUPT,
                            "%s: its dir set names data dir %s, which is not among the data dirs "
                            "given (a data dir is missing)",
                            fs->dirs[i].root, di[i].all[k]);
        }
        for (size_t j = 0; j < fs->ndirs; j++)
            if (!has_uuid(&di[j], fs->dirs[i].uuid))
                CF_FAIL_OUT(err, CF_ECORRUPT,
                            "%s: data dir %s is not in the dir set of %s (another server's "
                            "directory?)",
                            fs->dirs[i].root, fs->dirs[i].uuid, fs->dirs[j].root);
    }
out:
    dir_instance_free(di, fs->ndirs);
    return st;
}

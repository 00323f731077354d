/* The file block manager's blocks (src/kudu/fs/file_block_manager.cc): one file per
 * block under <data root>/data, in a tree hashed on the id's bytes:
 *
 *   data/<b2>/<b3>/<b4>/<id>     b2, b3, b4: bits 40-47, 32-39, 24-31 of the id as two
 *                                lower-case hex digits; <id> the id in decimal, zero-
 *                                padded to 16 digits (BlockId::ToString)
 *
 * As Kudu's GetAllBlockIdsForDataDirCb does, a file is a block only when its whole
 * path is the one its name's id hashes to; anything else is ignored. The walk goes
 * exactly three levels down, opens each level with O_NOFOLLOW | O_DIRECTORY (a
 * symbolic link, and so a link loop, is never entered) and counts a block file only
 * when it is a regular file. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs_internal.h"
#include "util/alloc.h"
#include "util/error.h"

/* Is `name` the file name of a block whose tree path is b2/b3/b4? */
static bool block_name(const char *name, unsigned b2, unsigned b3, unsigned b4, uint64_t *id)
{
    if (strlen(name) != 16)
        return false;
    uint64_t v = 0;
    for (int i = 0; i < 16; i++) {
        if (name[i] < '0' || name[i] > '9')
            return false;
        unsigned dgt = (unsigned)(name[i] - '0');
        if (v > (UINT64_MAX - dgt) / 10)
            return false;
        v = v * 10 + dgt;
    }
    if (((v >> 40) & 0xff) != b2 || ((v >> 32) & 0xff) != b3 || ((v >> 24) & 0xff) != b4)
        return false;
    *id = v;
    return true;
}

/* A two-hex-digit directory name (lower case, as Kudu prints it). */
static bool hex_byte(const char *name, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 2; i++) {
        char ch = name[i];
        if (ch >= '0' && ch <= '9')
            v = v * 16 + (unsigned)(ch - '0');
        else if (ch >= 'a' && ch <= 'f')
            v = v * 16 + (unsigned)(ch - 'a' + 10);
        else
            return false;
    }
    if (name[2] != '\0')
        return false;
    *out = v;
    return true;
}

/* Is `name` a log block manager container's file (32 hex digits, .data or
 * .metadata)? */
static bool lbm_file_name(const char *name)
{
    size_t n = strlen(name), stem;
    if (n == 32 + 5 && strcmp(name + 32, ".data") == 0)
        stem = 32;
    else if (n == 32 + 9 && strcmp(name + 32, ".metadata") == 0)
        stem = 32;
    else
        return false;
    for (size_t i = 0; i < stem; i++)
        if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
            return false;
    return true;
}

typedef struct walk {
    cf_kudu_fs *fs;
    size_t d;
    unsigned b[3];
    char path[4096];
} walk;

static cf_status walk_level(walk *w, int dfd, int level, size_t plen, cf_error *err)
{
    DIR *dh = fdopendir(dfd);
    if (dh == NULL) {
        int e = errno;
        close(dfd);
        return cf_kudu_fs_problem(w->fs, w->path, false, 0, err, "cannot list: %s", strerror(e));
    }
    cf_status st = CF_OK;
    struct dirent *e;
    while ((e = readdir(dh)) != NULL) {
        const char *name = e->d_name;
        if (name[0] == '.')
            continue;
        size_t nlen = strlen(name);
        if (plen + 1 + nlen + 1 > sizeof w->path)
            continue;
        w->path[plen] = '/';
        memcpy(w->path + plen + 1, name, nlen + 1);
        /* Kudu refuses a dir whose block_manager_instance names another block
         * manager than its own (dir_util.cc LoadFromDisk); we take the block
         * manager from that file, so containers beside it betray an instance file
         * that is not this directory's (a log server's dir with a file server's
         * instance would otherwise list no block at all). */
        if (level == 0 && lbm_file_name(name))
            CF_FAIL_OUT(err, CF_ECORRUPT,
                        "%s: a log block manager container, but %.*s/block_manager_instance says "
                        "'file': that instance file is not this directory's",
                        w->path, (int)plen, w->path);
        if (level < 3) {
            if (!hex_byte(name, &w->b[level]))
                continue;
            int sub = openat(dirfd(dh), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub < 0)
                continue; /* not a directory (or a link to one): not Kudu's tree */
            CF_TRY_OUT(walk_level(w, sub, level + 1, plen + 1 + nlen, err));
            continue;
        }
        uint64_t id;
        if (!block_name(name, w->b[0], w->b[1], w->b[2], &id))
            continue;
        struct stat sb;
        if (fstatat(dirfd(dh), name, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
            CF_TRY_OUT(cf_kudu_fs_problem(w->fs, w->path, false, 0, err, "cannot stat block: %s",
                                          strerror(errno)));
            continue;
        }
        if (!S_ISREG(sb.st_mode)) {
            CF_TRY_OUT(cf_kudu_fs_problem(
                w->fs, w->path, false, 0, err,
                "block %" PRIu64 " is not a regular file (a link is not followed)", id));
            continue;
        }
        const char *p = cf_kudu_fs_strdup(w->fs, w->path);
        if (p == NULL)
            CF_FAIL_OUT(err, CF_ENOMEM, "out of memory");
        cf_kudu_block b = {
            .id = id,
            .data_dir = w->d,
            .container = NULL,
            .offset = 0,
            .length = sb.st_size > 0 ? (uint64_t)sb.st_size : 0,
            .path = p,
        };
        CF_TRY_OUT(cf_kudu_fs_add_block(w->fs, &b, err));
    }
out:
    w->path[plen] = '\0';
    closedir(dh);
    return st;
}

cf_status cf_kudu_fbm_load_dir(cf_kudu_fs *fs, size_t d, cf_error *err)
{
    walk *w = cf_calloc(1, sizeof *w);
    CF_CHECK(w != NULL, err, CF_ENOMEM, "out of memory");
    w->fs = fs;
    w->d = d;
    const char *dir = fs->dirs[d].dir;
    size_t n = strlen(dir);
    cf_status st = CF_OK;
    if (n + 1 > sizeof w->path)
        CF_FAIL_OUT(err, CF_EINVAL, "%s: path too long", dir);
    memcpy(w->path, dir, n + 1);
    /* a descriptor of its own (fdopendir takes it) of the dir held open */
    int fd = fcntl(fs->dirs[d].fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
        CF_FAIL_OUT(err, CF_EIO, "%s: %s", dir, strerror(errno));
    st = walk_level(w, fd, 0, n, err);
out:
    cf_free(w);
    return st;
}

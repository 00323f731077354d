/* A stopped Kudu server's directories (include/cfile/kudu.h, "a server's
 * directories"): the roots as Kudu's flags name them, checked through their
 * instance files (instance.c), then the block manager's blocks loaded from every
 * data dir (lbm.c for the log block manager, fbm.c for the file block manager),
 * and the tablets with a superblock listed. Kudu's FsManager::Open
 * (src/kudu/fs/fs_manager.cc) is the model: we read what it reads, check what it
 * checks, and never write, create, lock or repair anything. */
#include <cfile/kudu.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs_internal.h"
#include "io/io_at.h"
#include "util/alloc.h"
#include "util/error.h"

void cf_kudu_fs_options_init(cf_kudu_fs_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->version = CF_KUDU_FS_OPTIONS_VERSION;
}

const char *cf_kudu_fs_strndup(cf_kudu_fs *fs, const char *s, size_t n)
{
    char *d = cf_arena_alloc(&fs->strings, n + 1);
    if (d == NULL)
        return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

const char *cf_kudu_fs_strdup(cf_kudu_fs *fs, const char *s)
{
    return cf_kudu_fs_strndup(fs, s, strlen(s));
}

int cf_kudu_fs_wal_fd(const cf_kudu_fs *fs)
{
    return fs->wal_fd;
}

int cf_kudu_fs_metadata_fd(const cf_kudu_fs *fs)
{
    return fs->meta_fd;
}

const char *cf_kudu_fs_in_dir(const cf_kudu_fs *fs, size_t d, const char *path)
{
    if (d >= fs->ndirs || fs->dirs[d].fd < 0 || path == NULL)
        return NULL;
    const char *dir = fs->dirs[d].dir;
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') /* as cf_kudu_fs_join joined it */
        n--;
    if (strncmp(path, dir, n) != 0 || path[n] != '/' || path[n + 1] == '\0')
        return NULL;
    return path + n + 1;
}

char *cf_kudu_path(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = n >= 0 ? cf_malloc((size_t)n + 1) : NULL;
    if (p != NULL) {
        va_start(ap, fmt);
        vsnprintf(p, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    return p;
}

const char *cf_kudu_fs_join(cf_kudu_fs *fs, const char *a, const char *b)
{
    size_t na = strlen(a);
    /* "root/" given with a slash keeps one slash. */
    while (na > 1 && a[na - 1] == '/')
        na--;
    size_t nb = strlen(b);
    char *d = cf_arena_alloc(&fs->strings, na + 1 + nb + 1); /* straight into the arena */
    if (d == NULL)
        return NULL;
    memcpy(d, a, na);
    d[na] = '/';
    memcpy(d + na + 1, b, nb + 1);
    return d;
}

cf_status cf_kudu_fs_open_dir(int *fd, int dirfd, const char *name, const char *path, cf_error *err)
{
    do
        *fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    while (*fd < 0 && errno == EINTR);
    if (*fd < 0) {
        int e = errno;
        CF_CHECK(e != ENOENT && e != ENOTDIR, err, CF_ENOTFOUND, "%s: no such directory", path);
        CF_FAIL(err, CF_EIO, "%s: %s", path, strerror(e));
    }
    return CF_OK;
}

/* A root as given, opened read-only once: every file of it is read through *fd. */
static cf_status open_root(int *fd, const char *root, cf_error *err)
{
    cf_status st = cf_kudu_fs_open_dir(fd, AT_FDCWD, root, root, err);
    if (st == CF_ENOTFOUND)
        CF_FAIL(err, CF_ECORRUPT, "%s: not a Kudu directory (no such directory)", root);
    return st;
}

cf_status cf_kudu_fs_problem(cf_kudu_fs *fs, const char *path, bool has_offset, uint64_t offset,
                             cf_error *err, const char *fmt, ...)
{
    if (fs->nproblems >= CF_KUDU_MAX_PROBLEMS && path != NULL) {
        fs->problems_dropped++;
        return CF_OK;
    }
    if (fs->nproblems == fs->problems_cap) {
        size_t cap = fs->problems_cap ? fs->problems_cap * 2 : 16, bytes;
        CF_CHECK(cf_mul_ok(cap, sizeof *fs->problems, &bytes), err, CF_ENOMEM, "too many problems");
        cf_kudu_problem *p = cf_realloc(fs->problems, bytes);
        CF_CHECK(p != NULL, err, CF_ENOMEM, "out of memory for the problems found");
        fs->problems = p;
        fs->problems_cap = cap;
    }
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    cf_kudu_problem *p = &fs->problems[fs->nproblems];
    p->path = cf_kudu_fs_strdup(fs, path != NULL ? path : fs->wal_dir);
    p->what = cf_kudu_fs_strdup(fs, what);
    CF_CHECK(p->path != NULL && p->what != NULL, err, CF_ENOMEM,
             "out of memory for the problems found");
    p->has_offset = has_offset;
    p->offset = has_offset ? offset : 0;
    fs->nproblems++;
    return CF_OK;
}

cf_status cf_kudu_fs_add_block(cf_kudu_fs *fs, const cf_kudu_block *b, cf_error *err)
{
    if (fs->nblocks == fs->blocks_cap) {
        size_t cap = fs->blocks_cap ? fs->blocks_cap * 2 : 256, bytes;
        CF_CHECK(cf_mul_ok(cap, sizeof *fs->blocks, &bytes), err, CF_ENOMEM, "too many blocks");
        cf_kudu_block *p = cf_realloc(fs->blocks, bytes);
        CF_CHECK(p != NULL, err, CF_ENOMEM, "out of memory for %zu blocks", cap);
        fs->blocks = p;
        fs->blocks_cap = cap;
    }
    fs->blocks[fs->nblocks++] = *b;
    return CF_OK;
}

static int block_cmp(const void *a, const void *b)
{
    uint64_t x = ((const cf_kudu_block *)a)->id, y = ((const cf_kudu_block *)b)->id;
    return x < y ? -1 : x > y;
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Blocks by id; one id live in two places (two containers, or two data dirs of the
 * file block manager) is damage Kudu refuses at startup (log_block_manager.cc
 * AddLogBlock): both are reported and the first kept so the rest can be listed. */
static cf_status sort_blocks(cf_kudu_fs *fs, cf_error *err)
{
    if (fs->nblocks > 1)
        qsort(fs->blocks, fs->nblocks, sizeof *fs->blocks, block_cmp);
    size_t w = 0;
    for (size_t i = 0; i < fs->nblocks; i++) {
        if (w > 0 && fs->blocks[w - 1].id == fs->blocks[i].id) {
            const cf_kudu_block *a = &fs->blocks[w - 1], *b = &fs->blocks[i];
            CF_TRY(cf_kudu_fs_problem(fs, b->path, b->container != NULL, b->offset, err,
                                      "block %" PRIu64 " is live here and in %s", b->id, a->path));
            continue;
        }
        fs->blocks[w++] = fs->blocks[i];
    }
    fs->nblocks = w;
    return CF_OK;
}

/* Tablet ids: the files of <metadata dir>/tablet-meta/ named as Kudu names them
 * (fs_manager.cc IsValidTabletId: no dot, so temporaries such as "<id>.kudutmp.XXXXXX"
 * are left out). A missing directory is a server without tablets. */
static cf_status list_tablets(cf_kudu_fs *fs, cf_error *err)
{
    const char *dir = cf_kudu_fs_join(fs, fs->metadata_dir, "tablet-meta");
    CF_CHECK(dir != NULL, err, CF_ENOMEM, "out of memory");
    int dfd = openat(fs->meta_fd, "tablet-meta", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (d == NULL) {
        int e = errno;
        if (dfd >= 0)
            close(dfd);
        if (e == ENOENT)
            return CF_OK;
        CF_FAIL(err, CF_EIO, "%s: %s", dir, strerror(e));
    }
    cf_status st = CF_OK;
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strchr(e->d_name, '.') != NULL)
            continue;
        if (fs->ntablets == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            const char **p = cf_realloc((void *)fs->tablets, ncap * sizeof *p);
            if (p == NULL)
                CF_FAIL_OUT(err, CF_ENOMEM, "out of memory listing %s", dir);
            fs->tablets = p;
            cap = ncap;
        }
        const char *id = cf_kudu_fs_strdup(fs, e->d_name);
        if (id == NULL)
            CF_FAIL_OUT(err, CF_ENOMEM, "out of memory listing %s", dir);
        fs->tablets[fs->ntablets++] = id;
    }
    if (fs->ntablets > 1)
        qsort((void *)fs->tablets, fs->ntablets, sizeof *fs->tablets, str_cmp);
out:
    closedir(d);
    return st;
}

cf_status cf_kudu_fs_open(cf_kudu_fs **out, const cf_kudu_fs_options *opts, cf_error *err)
{
    *out = NULL;
    /* version 1: the struct before reader_cache (not read then) */
    CF_CHECK(opts != NULL && (opts->version == 1 || opts->version == CF_KUDU_FS_OPTIONS_VERSION),
             err, CF_EINVAL, "kudu fs: options not initialised with cf_kudu_fs_options_init");
    CF_CHECK(opts->wal_dir != NULL && opts->wal_dir[0] != '\0', err, CF_EINVAL,
             "kudu fs: the WAL directory (--fs-wal-dir) is required");
    CF_CHECK(opts->ndata_dirs == 0 || opts->data_dirs != NULL, err, CF_EINVAL,
             "kudu fs: %zu data dirs but no names", opts->ndata_dirs);
    /* Kudu stores the data dir index in 16 bits (file_block_manager.cc). */
    CF_CHECK(opts->ndata_dirs <= 65535, err, CF_EINVAL, "kudu fs: %zu data dirs is too many",
             opts->ndata_dirs);
    cf_status st = CF_OK;
    cf_kudu_fs *fs = cf_calloc(1, sizeof *fs);
    CF_CHECK(fs != NULL, err, CF_ENOMEM, "kudu fs: out of memory");
    fs->wal_fd = fs->meta_fd = -1;
    fs->readers = cf_kudu_reader_cache_new(opts->version >= 2 ? opts->reader_cache : 0);
    if (fs->readers == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "kudu fs: out of memory");
    fs->lbm_max_size =
        opts->log_container_max_size ? opts->log_container_max_size : CF_KUDU_LBM_DEFAULT_MAX_SIZE;
    fs->wal_dir = cf_kudu_fs_strdup(fs, opts->wal_dir);
    fs->metadata_dir =
        cf_kudu_fs_strdup(fs, opts->metadata_dir != NULL ? opts->metadata_dir : opts->wal_dir);
    fs->ndirs = opts->ndata_dirs ? opts->ndata_dirs : 1;
    fs->dirs = cf_arena_alloc_aligned(&fs->strings, fs->ndirs * sizeof *fs->dirs, 8);
    fs->data_roots = cf_arena_alloc_aligned(&fs->strings, fs->ndirs * sizeof *fs->data_roots, 8);
    if (fs->wal_dir == NULL || fs->metadata_dir == NULL || fs->dirs == NULL ||
        fs->data_roots == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "kudu fs: out of memory");
    for (size_t i = 0; i < fs->ndirs; i++) {
        const char *root = opts->ndata_dirs ? opts->data_dirs[i] : opts->wal_dir;
        if (root == NULL || root[0] == '\0')
            CF_FAIL_OUT(err, CF_EINVAL, "kudu fs: data dir %zu has no name", i);
        cf_kudu_data_dir *d = &fs->dirs[i];
        memset(d, 0, sizeof *d);
        d->fd = d->root_fd = -1;
        d->root = fs->data_roots[i] = cf_kudu_fs_strdup(fs, root);
        d->dir = cf_kudu_fs_join(fs, root, "data");
        if (d->root == NULL || d->dir == NULL)
            CF_FAIL_OUT(err, CF_ENOMEM, "kudu fs: out of memory");
    }
    /* The roots, each opened once, read-only: their instance files, the tablets'
     * logs (WAL root), superblocks and consensus metadata (metadata root) and each
     * data root's data/ are reached through them, never through the path again. */
    CF_TRY_OUT(open_root(&fs->wal_fd, fs->wal_dir, err));
    CF_TRY_OUT(open_root(&fs->meta_fd, fs->metadata_dir, err));
    for (size_t i = 0; i < fs->ndirs; i++)
        CF_TRY_OUT(open_root(&fs->dirs[i].root_fd, fs->dirs[i].root, err));
    CF_TRY_OUT(cf_kudu_instances_load(fs, err));
    for (size_t i = 0; i < fs->ndirs; i++) {
        /* a data root holds nothing more to read than its instance and data/ */
        close(fs->dirs[i].root_fd);
        fs->dirs[i].root_fd = -1;
        /* data/ (opened with its instance): every container, block file and block
         * read from here on is reached through its fd. */
        if (fs->bm == CF_KUDU_BM_LOG)
            CF_TRY_OUT(cf_kudu_lbm_load_dir(fs, i, err));
        else
            CF_TRY_OUT(cf_kudu_fbm_load_dir(fs, i, err));
    }
    CF_TRY_OUT(sort_blocks(fs, err));
    if (fs->problems_dropped > 0)
        /* A NULL path passes the cap: the summary is always kept. */
        CF_TRY_OUT(cf_kudu_fs_problem(fs, NULL, false, 0, err,
                                      "%zu more problems found, not kept (the first %d are listed)",
                                      fs->problems_dropped, CF_KUDU_MAX_PROBLEMS));
    CF_TRY_OUT(list_tablets(fs, err));
    *out = fs;
    return CF_OK;
out:
    cf_kudu_fs_free(fs);
    return st;
}

void cf_kudu_fs_free(cf_kudu_fs *fs)
{
    if (fs == NULL)
        return;
    for (size_t i = 0; i < fs->ncontainers; i++)
        cf_free((void *)fs->containers[i].records);
    cf_kudu_reader_cache_free(fs->readers); /* its ios read the containers' files */
    cf_free(fs->containers);
    cf_free(fs->blocks);
    cf_free(fs->problems);
    cf_free((void *)fs->tablets);
    for (size_t i = 0; fs->dirs != NULL && i < fs->ndirs; i++) {
        if (fs->dirs[i].fd >= 0)
            close(fs->dirs[i].fd);
        if (fs->dirs[i].root_fd >= 0)
            close(fs->dirs[i].root_fd);
    }
    if (fs->wal_fd >= 0)
        close(fs->wal_fd);
    if (fs->meta_fd >= 0)
        close(fs->meta_fd);
    cf_arena_dispose(&fs->strings);
    cf_free(fs);
}

cf_kudu_block_manager cf_kudu_fs_block_manager(const cf_kudu_fs *fs)
{
    return fs->bm;
}

const char *cf_kudu_fs_uuid(const cf_kudu_fs *fs)
{
    return fs->uuid;
}

const char *cf_kudu_fs_wal_dir(const cf_kudu_fs *fs)
{
    return fs->wal_dir;
}

const char *cf_kudu_fs_metadata_dir(const cf_kudu_fs *fs)
{
    return fs->metadata_dir;
}

size_t cf_kudu_fs_data_dir_count(const cf_kudu_fs *fs)
{
    return fs->ndirs;
}

const char *cf_kudu_fs_data_dir_at(const cf_kudu_fs *fs, size_t i)
{
    return i < fs->ndirs ? fs->data_roots[i] : NULL;
}

bool cf_kudu_fs_locked(const cf_kudu_fs *fs)
{
    return fs->locked;
}

size_t cf_kudu_fs_block_count(const cf_kudu_fs *fs)
{
    return fs->nblocks;
}

const cf_kudu_block *cf_kudu_fs_block_at(const cf_kudu_fs *fs, size_t i)
{
    return i < fs->nblocks ? &fs->blocks[i] : NULL;
}

const cf_kudu_block *cf_kudu_fs_find_block(const cf_kudu_fs *fs, uint64_t id)
{
    size_t lo = 0, hi = fs->nblocks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (fs->blocks[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < fs->nblocks && fs->blocks[lo].id == id ? &fs->blocks[lo] : NULL;
}

cf_status cf_kudu_fs_open_block(const cf_kudu_fs *fs, uint64_t id, bool mmap, cf_io **out,
                                cf_error *err)
{
    *out = NULL;
    const cf_kudu_block *b = cf_kudu_fs_find_block(fs, id);
    CF_CHECK(b != NULL, err, CF_ENOTFOUND, "block %" PRIu64 " is not a live block of this server",
             id);
    unsigned flags = CF_IO_RANGE_NOFOLLOW | (mmap ? CF_IO_RANGE_MMAP : 0);
    const char *rel = cf_kudu_fs_in_dir(fs, b->data_dir, b->path);
    cf_status st = rel != NULL
                       ? cf_io_open_file_range_at(out, fs->dirs[b->data_dir].fd, rel, b->path,
                                                  b->offset, b->length, flags, err)
                       : cf_io_open_file_range(out, b->path, b->offset, b->length, flags, err);
    if (st != CF_OK)
        return cf_error_prefix(err, st, "block %" PRIu64 ": ", id);
    return CF_OK;
}

size_t cf_kudu_fs_container_count(const cf_kudu_fs *fs)
{
    return fs->ncontainers;
}

const cf_kudu_container *cf_kudu_fs_container_at(const cf_kudu_fs *fs, size_t i)
{
    return i < fs->ncontainers ? &fs->containers[i] : NULL;
}

size_t cf_kudu_fs_problem_count(const cf_kudu_fs *fs)
{
    return fs->nproblems;
}

const cf_kudu_problem *cf_kudu_fs_problem_at(const cf_kudu_fs *fs, size_t i)
{
    return i < fs->nproblems ? &fs->problems[i] : NULL;
}

size_t cf_kudu_fs_tablet_count(const cf_kudu_fs *fs)
{
    return fs->ntablets;
}

const char *cf_kudu_fs_tablet_at(const cf_kudu_fs *fs, size_t i)
{
    return i < fs->ntablets ? fs->tablets[i] : NULL;
}

/* Internal to src/kudu: a server's directories as cf_kudu_fs_open loads them
 * (fs.c), and what its parts share: the instance files (instance.c), the log block
 * manager's containers (lbm.c, lbm_record.c) and the file block manager's tree
 * (fbm.c). */
#ifndef CF_KUDU_FS_INTERNAL_H
#define CF_KUDU_FS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/kudu.h>

#include "reader_cache.h"
#include "util/arena.h"

/* Problems kept; a hostile root could name one per record of millions. The rest
 * are counted and summed up in one last problem. */
#define CF_KUDU_MAX_PROBLEMS 10000

/* Kudu's default --log_container_max_size (log_block_manager.cc): 10 GiB. */
#define CF_KUDU_LBM_DEFAULT_MAX_SIZE ((uint64_t)10 << 30)

/* One data directory: the root as given and Kudu's `<root>/data`. */
typedef struct cf_kudu_data_dir {
    const char *root; /* as given */
    int root_fd;     /* the root opened read-only while its instance and data/ are read (else -1) */
    const char *dir; /* <root>/data: for messages; its files are reached through fd */
    int fd; /* <root>/data opened read-only once below root_fd, with its instance (-1: not yet) */
    const char *uuid;       /* its DirSetPB uuid */
    uint64_t fs_block_size; /* DirInstanceMetadataPB.filesystem_block_size_bytes */
} cf_kudu_data_dir;

struct cf_kudu_fs {
    cf_arena strings; /* every string and small array the getters hand out */
    cf_kudu_block_manager bm;
    const char *uuid;
    const char *wal_dir, *metadata_dir;
    int wal_fd;  /* the WAL root opened read-only once (-1: not yet): the WAL is read through it */
    int meta_fd; /* the metadata root, likewise: tablet-meta/ and consensus-meta/ */
    const char **data_roots; /* as given, for cf_kudu_fs_data_dir_at */
    cf_kudu_data_dir *dirs;
    size_t ndirs;
    bool locked;
    uint64_t lbm_max_size;

    cf_kudu_block *blocks; /* sorted by id once loaded */
    size_t nblocks, blocks_cap;
    cf_kudu_container *containers;
    size_t ncontainers, containers_cap;
    cf_kudu_problem *problems;
    size_t nproblems, problems_cap;
    size_t problems_dropped; /* past CF_KUDU_MAX_PROBLEMS: counted, not kept */
    const char **tablets;
    size_t ntablets;
    cf_kudu_reader_cache *readers; /* block readers kept between scans */
};

/* A copy of s (or of n bytes of it) in the fs's arena; NULL when out of memory. */
const char *cf_kudu_fs_strdup(cf_kudu_fs *fs, const char *s);
const char *cf_kudu_fs_strndup(cf_kudu_fs *fs, const char *s, size_t n);
/* The name of `path` (a file of data dir d, joined from its dir) below the
 * dir, for the *at calls on the dir's fd; NULL when path is not under it. */
const char *cf_kudu_fs_in_dir(const cf_kudu_fs *fs, size_t d, const char *path);
/* The WAL root as the fs holds it open (src/kudu/wal.c reads wals/<tablet>
 * through it); -1 before it is opened. */
int cf_kudu_fs_wal_fd(const cf_kudu_fs *fs);
/* The metadata root likewise (src/kudu/tablet.c reads superblocks through it). */
int cf_kudu_fs_metadata_fd(const cf_kudu_fs *fs);
/* A path printed by fmt (cf_free it); NULL when memory is short. Every path the
 * kudu layers join goes through it (or cf_kudu_fs_join). */
char *cf_kudu_path(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "a/b" in the arena (a's trailing slashes but one dropped). */
const char *cf_kudu_fs_join(cf_kudu_fs *fs, const char *a, const char *b);
/* Open directory `name` below dirfd (AT_FDCWD: a path) read-only into *fd (`path`
 * in messages). Nothing there, or not a directory: CF_ENOTFOUND; else CF_EIO. */
cf_status cf_kudu_fs_open_dir(int *fd, int dirfd, const char *name, const char *path,
                              cf_error *err);

/* Keep a problem (path copied). CF_ENOMEM only. Past CF_KUDU_MAX_PROBLEMS problems
 * are only counted. */
cf_status cf_kudu_fs_problem(cf_kudu_fs *fs, const char *path, bool has_offset, uint64_t offset,
                             cf_error *err, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* Append a live block (fields copied; strings must already live in the arena). */
cf_status cf_kudu_fs_add_block(cf_kudu_fs *fs, const cf_kudu_block *b, cf_error *err);

/* Read every instance file of the roots in `fs` (their fds open) and check them as
 * Kudu's FsManager and DirManager do; opens each data dir's fd and sets fs->uuid,
 * fs->bm, each dir's uuid and block size, and fs->locked. */
cf_status cf_kudu_instances_load(cf_kudu_fs *fs, cf_error *err);

/* Is there a lock on file `name` in dirfd (fcntl F_GETLK: asks, never takes)? */
bool cf_kudu_file_locked(int dirfd, const char *name);

/* Load every container of data dir `d` (log block manager). Damage inside a
 * container becomes problems; only I/O on the directory itself or memory fail. */
cf_status cf_kudu_lbm_load_dir(cf_kudu_fs *fs, size_t d, cf_error *err);

/* Walk data dir `d`'s hashed tree (file block manager). */
cf_status cf_kudu_fbm_load_dir(cf_kudu_fs *fs, size_t d, cf_error *err);

/* One BlockRecordPB's fields (fs.proto), decoded by hand: the loader reads millions
 * of them, and a record is five scalar fields. Unknown fields are skipped as
 * protobuf does. false when the bytes are not a valid message. */
typedef struct cf_kudu_block_record {
    bool has_block_id, has_op, has_timestamp, has_offset, has_length;
    uint64_t block_id;
    int64_t op;
    uint64_t timestamp_us;
    int64_t offset, length;
} cf_kudu_block_record;

bool cf_kudu_block_record_decode(const uint8_t *p, size_t len, cf_kudu_block_record *r);

/* The LBM metadata of one container, as Kudu's container loader reads it, over the
 * bytes of its metadata and the size of its data file (lbm.c). Used by the loader
 * and by the fuzz target. `c` gets records, live and deleted counts, torn_metadata;
 * live blocks are appended with cf_kudu_fs_add_block, problems kept in `fs`;
 * *live_aligned (may be NULL) gets the live blocks' bytes rounded as Kudu's
 * LogBlock::fs_aligned_length rounds them. */
cf_status cf_kudu_lbm_load_container(cf_kudu_fs *fs, cf_kudu_container *c, cf_io *metadata,
                                     uint64_t *live_aligned, cf_error *err);

#endif

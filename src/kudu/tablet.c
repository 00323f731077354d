/* A tablet's superblock (tablet-meta/<id>, kudu.tablet.TabletSuperBlockPB) and
 * consensus metadata (consensus-meta/<id>, kudu.consensus.ConsensusMetadataPB), each
 * a protobuf container read with pbc.c, as Kudu's TabletMetadata::Load and
 * ConsensusMetadata::Load read them (tablet/tablet_metadata.cc,
 * tablet/rowset_metadata.cc, consensus/consensus_meta.cc).
 *
 * Kudu reads the first record of each file and lets protobuf refuse a message
 * without its required fields (tablet/metadata.proto, consensus/metadata.proto,
 * common/common.proto, fs/fs.proto); our .proto files make every field optional, so
 * check_superblock and check_cmeta name the missing field instead. Kudu also refuses
 * a superblock without a partition (KUDU-818) and one whose tablet_id is not the
 * file's name.
 *
 * Files are opened relative to the metadata directory without following a
 * symbolic link at tablet-meta/, consensus-meta/ or the file, and read whole (they
 * are small: Kudu parses at most 512 MiB, pb_util.cc), never written.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/pb_mem.h"

#include "kudufs/fs_internal.h"
#include "tablet.h"

#define SUPERBLOCK_TYPE "kudu.tablet.TabletSuperBlockPB"
#define CMETA_TYPE "kudu.consensus.ConsensusMetadataPB"
/* pb_util.cc: the limit Kudu sets on one message it parses */
#define MAX_META_FILE ((uint64_t)512 << 20)

struct cf_kudu_tablet {
    const cf_kudu_fs *fs;
    char id[33];
    char *path, *cmeta_path;
    cf_pb_mem mem; /* the unpacked messages' allocator */
    uint8_t *sb_bytes, *cm_bytes;
    size_t sb_len, cm_len;
    Kudu__Tablet__TabletSuperBlockPB *sb;
    Kudu__Consensus__ConsensusMetadataPB *cm;
    cf_error cm_err; /* why there is no cm, when there is a file */
    bool has_cm_file;
    bool has_sb_mtime;           /* read from a file (not _open_mem) */
    int64_t sb_mtime_us;         /* then that file's mtime, as it was when read */
    char *table_id, *table_name; /* NUL-terminated copies */
    cf_schema *schema;
    uint32_t *col_ids;
    cf_kudu_rowset *rowsets;
    size_t nrowsets;
    cf_arena arena; /* the rowsets' arrays */
};

bool cf_kudu_tablet_id_valid(const char *id)
{
    size_t i = 0;
    for (; id != NULL && id[i] != '\0'; i++)
        if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f') ||
              (id[i] >= 'A' && id[i] <= 'F')))
            return false;
    return id != NULL && i == 32;
}

/* ---- reading a metadata file ---- */

/* The whole of <dir>/<sub>/<name> into *data (cf_malloc'd), below rootfd (the
 * metadata root held open by the fs; -1: dir, by path), and its mtime in
 * microseconds into *mtime_us unless NULL. Nothing there is CF_ENOTFOUND; a
 * symbolic link or anything but a regular file is CF_ECORRUPT. */
static cf_status read_file(uint8_t **data, size_t *len, int64_t *mtime_us, int rootfd,
                           const char *dir, const char *sub, const char *name, const char *path,
                           cf_error *err)
{
    *data = NULL;
    *len = 0;
    int dfd = rootfd >= 0 ? fcntl(rootfd, F_DUPFD_CLOEXEC, 0)
                          : open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        CF_FAIL(err, errno == ENOENT ? CF_ENOTFOUND : CF_EIO, "%s: %s", dir, strerror(errno));
    int sfd = openat(dfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int e = errno;
    struct stat lst;
    /* O_NOFOLLOW with O_DIRECTORY says ENOTDIR for a link: ask what it is */
    bool link = sfd < 0 && (e == ELOOP || e == ENOTDIR) &&
                fstatat(dfd, sub, &lst, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(lst.st_mode);
    close(dfd);
    if (sfd < 0)
        CF_FAIL(err,
                e == ENOENT                  ? CF_ENOTFOUND
                : e == ELOOP || e == ENOTDIR ? CF_ECORRUPT
                                             : CF_EIO,
                "%s/%s: %s", dir, sub, link ? "a symbolic link (not followed)" : strerror(e));
    int fd = openat(sfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    e = errno;
    close(sfd);
    if (fd < 0)
        CF_FAIL(err,
                e == ENOENT  ? CF_ENOTFOUND
                : e == ELOOP ? CF_ECORRUPT
                             : CF_EIO,
                "%s: %s", path, e == ELOOP ? "a symbolic link (not followed)" : strerror(e));
    struct stat sb;
    cf_status st = CF_OK;
    uint8_t *buf = NULL;
    if (fstat(fd, &sb) != 0)
        CF_FAIL_OUT(err, CF_EIO, "%s: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        CF_FAIL_OUT(err, CF_ECORRUPT, "%s: not a regular file", path);
    if ((uint64_t)sb.st_size > MAX_META_FILE)
        CF_FAIL_OUT(err, CF_ECORRUPT, "%s: %lld bytes, more than a metadata file holds", path,
                    (long long)sb.st_size);
    size_t n = (size_t)sb.st_size;
    buf = cf_malloc(n ? n : 1);
    if (buf == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "%s: out of memory", path);
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, buf + got, n - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            CF_FAIL_OUT(err, CF_EIO, "%s: read at offset %zu: %s", path, got, strerror(errno));
        if (r == 0)
            break; /* shrank under us: parse what is there */
        got += (size_t)r;
    }
    *data = buf;
    *len = got;
    if (mtime_us != NULL)
        *mtime_us = (int64_t)sb.st_mtim.tv_sec * 1000000 + sb.st_mtim.tv_nsec / 1000;
    buf = NULL;
out:
    cf_free(buf);
    close(fd);
    return st;
}

/* The first record of the container in data[0, len) into a fresh copy. */
static cf_status first_record(uint8_t **rec, size_t *rec_len, const uint8_t *data, size_t len,
                              const char *path, const char *type, cf_error *err)
{
    *rec = NULL;
    cf_io *io = NULL;
    cf_kudu_pbc *c = NULL;
    cf_status st;
    CF_TRY_OUT(cf_io_open_mem(&io, data, len, err));
    CF_TRY_OUT(cf_kudu_pbc_open(&c, io, path, err));
    const char *t = cf_kudu_pbc_type(c);
    if (t != NULL && strcmp(t, type) != 0)
        CF_FAIL_OUT(err, CF_ECORRUPT, "%s: holds %s records, not %s", path, t, type);
    const uint8_t *p;
    size_t n;
    uint64_t off;
    bool has;
    CF_TRY_OUT(cf_kudu_pbc_next(c, &p, &n, &off, &has, err));
    if (!has) {
        uint64_t torn;
        if (cf_kudu_pbc_torn(c, &torn))
            CF_FAIL_OUT(err, CF_ECORRUPT, "%s: offset %llu: the %s record is incomplete", path,
                        (unsigned long long)torn, type);
        CF_FAIL_OUT(err, CF_ECORRUPT, "%s: no %s record", path, type);
    }
    *rec = cf_malloc(n ? n : 1);
    if (*rec == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "%s: out of memory", path);
    memcpy(*rec, p, n);
    *rec_len = n;
out:
    cf_kudu_pbc_free(c);
    cf_io_free(io);
    return st;
}

/* ---- required fields ---- */

#define NEED(cond, field)                                                                          \
    CF_CHECK(cond, err, CF_ECORRUPT, "%s: %s: missing required field %s", path, SUPERBLOCK_TYPE,   \
             field)

static cf_status check_block(const Kudu__BlockIdPB *b, const char *path, const char *what,
                             size_t rs, size_t i, cf_error *err)
{
    CF_CHECK(b != NULL && b->has_id, err, CF_ECORRUPT,
             "%s: rowset %zu: %s %zu: missing required field %s", path, rs, what, i,
             b == NULL ? "block" : "block.id");
    return CF_OK;
}

static cf_status check_superblock(const Kudu__Tablet__TabletSuperBlockPB *sb, const char *path,
                                  const char *id, cf_error *err)
{
    NEED(sb->has_table_id, "table_id");
    NEED(sb->has_tablet_id, "tablet_id");
    NEED(sb->has_last_durable_mrs_id, "last_durable_mrs_id");
    NEED(sb->table_name != NULL, "table_name");
    NEED(sb->schema != NULL, "schema");
    NEED(sb->has_schema_version, "schema_version");
    /* tablet_metadata.cc: NotFound, "Missing partition in superblock" (KUDU-818) */
    NEED(sb->partition != NULL, "partition");
    CF_CHECK(sb->tablet_id.len == 32 && memcmp(sb->tablet_id.data, id, 32) == 0, err, CF_ECORRUPT,
             "%s: the superblock is tablet '%.*s', not %s", path,
             (int)(sb->tablet_id.len > 64 ? 64 : sb->tablet_id.len),
             (const char *)sb->tablet_id.data, id);
    for (size_t r = 0; r < sb->n_rowsets; r++) {
        const Kudu__Tablet__RowSetDataPB *rs = sb->rowsets[r];
        CF_CHECK(rs->has_id, err, CF_ECORRUPT, "%s: rowset %zu: missing required field id", path,
                 r);
        CF_CHECK(rs->has_last_durable_dms_id, err, CF_ECORRUPT,
                 "%s: rowset %zu: missing required field last_durable_dms_id", path, r);
        for (size_t i = 0; i < rs->n_columns; i++) {
            CF_TRY(check_block(rs->columns[i]->block, path, "column", r, i, err));
            CF_CHECK(rs->columns[i]->has_column_id, err, CF_ECORRUPT,
                     "%s: rowset %zu: column %zu: no column_id", path, r, i);
        }
        for (size_t i = 0; i < rs->n_redo_deltas; i++)
            CF_TRY(check_block(rs->redo_deltas[i]->block, path, "redo delta", r, i, err));
        for (size_t i = 0; i < rs->n_undo_deltas; i++)
            CF_TRY(check_block(rs->undo_deltas[i]->block, path, "undo delta", r, i, err));
        if (rs->bloom_block != NULL)
            CF_TRY(check_block(rs->bloom_block, path, "bloom", r, 0, err));
        if (rs->adhoc_index_block != NULL)
            CF_TRY(check_block(rs->adhoc_index_block, path, "ad-hoc index", r, 0, err));
        /* rowset_metadata.cc keeps the key range only as a pair */
        CF_CHECK(rs->has_min_encoded_key == rs->has_max_encoded_key, err, CF_ECORRUPT,
                 "%s: rowset %zu: %s without %s", path, r,
                 rs->has_min_encoded_key ? "min_encoded_key" : "max_encoded_key",
                 rs->has_min_encoded_key ? "max_encoded_key" : "min_encoded_key");
    }
    for (size_t i = 0; i < sb->n_orphaned_blocks; i++)
        CF_CHECK(sb->orphaned_blocks[i]->has_id, err, CF_ECORRUPT,
                 "%s: orphaned block %zu: missing required field id", path, i);
    return CF_OK;
}

static cf_status check_cmeta(const Kudu__Consensus__ConsensusMetadataPB *cm, const char *path,
                             cf_error *err)
{
    CF_CHECK(cm->committed_config != NULL, err, CF_ECORRUPT,
             "%s: %s: missing required field committed_config", path, CMETA_TYPE);
    CF_CHECK(cm->has_current_term, err, CF_ECORRUPT, "%s: %s: missing required field current_term",
             path, CMETA_TYPE);
    const Kudu__Consensus__RaftConfigPB *cfg = cm->committed_config;
    for (size_t i = 0; i < cfg->n_peers; i++) {
        const Kudu__HostPortPB *a = cfg->peers[i]->last_known_addr;
        CF_CHECK(a == NULL || (a->host != NULL && a->has_port), err, CF_ECORRUPT,
                 "%s: committed_config peer %zu: last_known_addr: missing required field %s", path,
                 i, a && a->host ? "port" : "host");
    }
    return CF_OK;
}

/* ---- the tablet ---- */

static char *dup_bytes(const void *p, size_t n)
{
    char *s = cf_malloc(n + 1);
    if (s != NULL) {
        if (n)
            memcpy(s, p, n);
        s[n] = '\0';
    }
    return s;
}

static cf_status build_rowsets(cf_kudu_tablet *t, cf_error *err)
{
    const Kudu__Tablet__TabletSuperBlockPB *sb = t->sb;
    t->nrowsets = sb->n_rowsets;
    if (sb->n_rowsets == 0)
        return CF_OK;
    t->rowsets = cf_calloc(sb->n_rowsets, sizeof(*t->rowsets));
    CF_CHECK(t->rowsets != NULL, err, CF_ENOMEM, "%s: out of memory", t->path);
    for (size_t r = 0; r < sb->n_rowsets; r++) {
        const Kudu__Tablet__RowSetDataPB *p = sb->rowsets[r];
        cf_kudu_rowset *rs = &t->rowsets[r];
        rs->id = p->id;
        rs->last_durable_dms_id = p->last_durable_dms_id;
        rs->ncolumns = p->n_columns;
        rs->nredo = p->n_redo_deltas;
        rs->nundo = p->n_undo_deltas;
        uint64_t *cb = cf_arena_alloc_aligned(&t->arena, (p->n_columns + 1) * 8, 8);
        uint32_t *ci = cf_arena_alloc_aligned(&t->arena, (p->n_columns + 1) * 4, 4);
        uint64_t *rb = cf_arena_alloc_aligned(&t->arena, (p->n_redo_deltas + 1) * 8, 8);
        uint64_t *ub = cf_arena_alloc_aligned(&t->arena, (p->n_undo_deltas + 1) * 8, 8);
        CF_CHECK(cb && ci && rb && ub, err, CF_ENOMEM, "%s: out of memory", t->path);
        for (size_t i = 0; i < p->n_columns; i++) {
            cb[i] = p->columns[i]->block->id;
            ci[i] = (uint32_t)p->columns[i]->column_id;
        }
        for (size_t i = 0; i < p->n_redo_deltas; i++)
            rb[i] = p->redo_deltas[i]->block->id;
        for (size_t i = 0; i < p->n_undo_deltas; i++)
            ub[i] = p->undo_deltas[i]->block->id;
        rs->column_blocks = cb;
        rs->column_ids = ci;
        rs->redo_blocks = rb;
        rs->undo_blocks = ub;
        if (p->bloom_block != NULL) {
            rs->has_bloom = true;
            rs->bloom_block = p->bloom_block->id;
        }
        if (p->adhoc_index_block != NULL) {
            rs->has_adhoc_index = true;
            rs->adhoc_index_block = p->adhoc_index_block->id;
        }
        if (p->has_min_encoded_key && p->has_max_encoded_key) {
            /* never NULL for a present key, even an empty one */
            static const uint8_t empty[1];
            rs->min_key = p->min_encoded_key.len ? p->min_encoded_key.data : empty;
            rs->min_key_len = p->min_encoded_key.len;
            rs->max_key = p->max_encoded_key.len ? p->max_encoded_key.data : empty;
            rs->max_key_len = p->max_encoded_key.len;
        }
        /* rowset_metadata.cc: the count means something only when the tablet says so */
        if (sb->has_supports_live_row_count && sb->supports_live_row_count) {
            rs->has_live_row_count = true;
            rs->live_row_count = p->has_live_row_count ? p->live_row_count : 0;
        }
    }
    return CF_OK;
}

static cf_status load_superblock(cf_kudu_tablet *t, cf_error *err)
{
    t->sb = kudu__tablet__tablet_super_block_pb__unpack(&t->mem.a, t->sb_len, t->sb_bytes);
    CF_CHECK(t->sb != NULL || !t->mem.oom, err, CF_ENOMEM, "%s: out of memory", t->path);
    CF_CHECK(t->sb != NULL, err, CF_ECORRUPT, "%s: the %s record does not parse", t->path,
             SUPERBLOCK_TYPE);
    CF_TRY(check_superblock(t->sb, t->path, t->id, err));
    t->table_id = dup_bytes(t->sb->table_id.data, t->sb->table_id.len);
    t->table_name = dup_bytes(t->sb->table_name, strlen(t->sb->table_name));
    CF_CHECK(t->table_id && t->table_name, err, CF_ENOMEM, "%s: out of memory", t->path);
    CF_TRY(cf_kudu_schema_from_pb(&t->schema, &t->col_ids, t->sb->schema, t->path, err));
    return build_rowsets(t, err);
}

/* The consensus metadata: a damaged file does not fail the tablet (its rows do not
 * depend on it); the damage is kept for cf_kudu_tablet_consensus_json. */
static void load_cmeta(cf_kudu_tablet *t)
{
    cf_error *e = &t->cm_err;
    t->cm = kudu__consensus__consensus_metadata_pb__unpack(&t->mem.a, t->cm_len, t->cm_bytes);
    if (t->cm == NULL) {
        cf_error_set(e, t->mem.oom ? CF_ENOMEM : CF_ECORRUPT, __FILE__, __LINE__,
                     "%s: the %s record does not parse", t->cmeta_path, CMETA_TYPE);
        return;
    }
    if (check_cmeta(t->cm, t->cmeta_path, e) != CF_OK) {
        kudu__consensus__consensus_metadata_pb__free_unpacked(t->cm, &t->mem.a);
        t->cm = NULL;
    }
}

void cf_kudu_tablet_free(cf_kudu_tablet *t)
{
    if (t == NULL)
        return;
    if (t->sb != NULL)
        kudu__tablet__tablet_super_block_pb__free_unpacked(t->sb, &t->mem.a);
    if (t->cm != NULL)
        kudu__consensus__consensus_metadata_pb__free_unpacked(t->cm, &t->mem.a);
    cf_free(t->path);
    cf_free(t->cmeta_path);
    cf_free(t->sb_bytes);
    cf_free(t->cm_bytes);
    cf_free(t->table_id);
    cf_free(t->table_name);
    cf_schema_free(t->schema);
    cf_free(t->col_ids);
    cf_free(t->rowsets);
    cf_arena_dispose(&t->arena);
    cf_free(t);
}

static cf_status tablet_new(cf_kudu_tablet **out, const cf_kudu_fs *fs, const char *tablet_id,
                            cf_error *err)
{
    *out = NULL;
    CF_CHECK(cf_kudu_tablet_id_valid(tablet_id), err, CF_EINVAL,
             "tablet id '%.40s': not 32 hex digits", tablet_id ? tablet_id : "(null)");
    cf_kudu_tablet *t = cf_calloc(1, sizeof(*t));
    CF_CHECK(t != NULL, err, CF_ENOMEM, "tablet: out of memory");
    t->fs = fs;
    memcpy(t->id, tablet_id, 33);
    cf_pb_mem_init(&t->mem);
    *out = t;
    return CF_OK;
}

/* Parse what was read into t: the superblock's container, then the consensus
 * metadata's, when there is a file (cm_file with cm_file_len bytes). */
static cf_status parse(cf_kudu_tablet *t, const uint8_t *sb_file, size_t sb_file_len,
                       const uint8_t *cm_file, size_t cm_file_len, cf_error *err)
{
    CF_TRY(first_record(&t->sb_bytes, &t->sb_len, sb_file, sb_file_len, t->path, SUPERBLOCK_TYPE,
                        err));
    CF_TRY(load_superblock(t, err));
    if (cm_file != NULL) {
        t->has_cm_file = true;
        if (first_record(&t->cm_bytes, &t->cm_len, cm_file, cm_file_len, t->cmeta_path, CMETA_TYPE,
                         &t->cm_err) == CF_OK)
            load_cmeta(t);
    }
    return CF_OK;
}

/* Every data dir the superblock's data_dir_group names is one of the server's, as
 * Kudu's DataDirManager::LoadDataDirGroupFromPB requires before the tablet opens: a
 * uuid no data dir has means a dir is missing or is another server's. */
static cf_status check_dir_group(const cf_kudu_tablet *t, cf_error *err)
{
    const Kudu__DataDirGroupPB *g = t->sb->data_dir_group;
    if (t->fs == NULL || g == NULL)
        return CF_OK;
    for (size_t i = 0; i < g->n_uuids; i++) {
        bool found = false;
        for (size_t d = 0; d < t->fs->ndirs && !found; d++) {
            const char *u = t->fs->dirs[d].uuid;
            found = u != NULL && strlen(u) == g->uuids[i].len &&
                    memcmp(u, g->uuids[i].data, g->uuids[i].len) == 0;
        }
        if (found)
            continue;
        char dirs[512] = "";
        size_t used = 0;
        for (size_t d = 0; d < t->fs->ndirs && used < sizeof dirs; d++) {
            int n = snprintf(dirs + used, sizeof dirs - used, "%s%s (%s)", d > 0 ? ", " : "",
                             t->fs->dirs[d].dir, t->fs->dirs[d].uuid ? t->fs->dirs[d].uuid : "?");
            if (n < 0)
                break;
            used += (size_t)n;
        }
        CF_FAIL(err, CF_ECORRUPT,
                "%s: data_dir_group names data dir %.*s, which none of the data dirs has: %s",
                t->path, (int)(g->uuids[i].len > 64 ? 64 : g->uuids[i].len),
                (const char *)g->uuids[i].data, dirs);
    }
    return CF_OK;
}

static cf_status open_in(cf_kudu_tablet **out, const cf_kudu_fs *fs, int rootfd,
                         const char *metadata_dir, const char *tablet_id, cf_error *err);

cf_status cf_kudu_tablet_open_dir(cf_kudu_tablet **out, const cf_kudu_fs *fs,
                                  const char *metadata_dir, const char *tablet_id, cf_error *err)
{
    return open_in(out, fs, -1, metadata_dir, tablet_id, err);
}

static cf_status open_in(cf_kudu_tablet **out, const cf_kudu_fs *fs, int rootfd,
                         const char *metadata_dir, const char *tablet_id, cf_error *err)
{
    cf_kudu_tablet *t;
    CF_TRY(tablet_new(&t, fs, tablet_id, err));
    uint8_t *sbf = NULL, *cmf = NULL;
    size_t sbn = 0, cmn = 0;
    cf_status st;
    t->path = cf_kudu_path("%s/tablet-meta/%s", metadata_dir, t->id);
    t->cmeta_path = cf_kudu_path("%s/consensus-meta/%s", metadata_dir, t->id);
    if (t->path == NULL || t->cmeta_path == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "tablet: out of memory");
    st = read_file(&sbf, &sbn, &t->sb_mtime_us, rootfd, metadata_dir, "tablet-meta", t->id, t->path,
                   err);
    t->has_sb_mtime = st == CF_OK;
    if (st == CF_ENOTFOUND)
        cf_error_prefix(err, st, "tablet %s is not on this server: ", t->id);
    if (st != CF_OK)
        goto out;
    cf_status cst = read_file(&cmf, &cmn, NULL, rootfd, metadata_dir, "consensus-meta", t->id,
                              t->cmeta_path, &t->cm_err);
    if (cst != CF_OK && cst != CF_ENOTFOUND)
        t->has_cm_file = true; /* there, but unreadable: cm_err says why */
    st = parse(t, sbf, sbn, cst == CF_OK ? cmf : NULL, cmn, err);
    if (st == CF_OK)
        st = check_dir_group(t, err);
out:
    cf_free(sbf);
    cf_free(cmf);
    if (st != CF_OK) {
        cf_kudu_tablet_free(t);
        return st;
    }
    *out = t;
    return CF_OK;
}

cf_status cf_kudu_tablet_open_mem(cf_kudu_tablet **out, const char *tablet_id, const void *sb,
                                  size_t sb_len, const char *path, const void *cmeta,
                                  size_t cmeta_len, cf_error *err)
{
    cf_kudu_tablet *t;
    CF_TRY(tablet_new(&t, NULL, tablet_id, err));
    cf_status st;
    t->path = dup_bytes(path, strlen(path));
    t->cmeta_path = dup_bytes("consensus-meta", 14);
    if (t->path == NULL || t->cmeta_path == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "tablet: out of memory");
    st = parse(t, sb, sb_len, cmeta, cmeta_len, err);
out:
    if (st != CF_OK) {
        cf_kudu_tablet_free(t);
        return st;
    }
    *out = t;
    return CF_OK;
}

cf_status cf_kudu_tablet_open(cf_kudu_tablet **out, const cf_kudu_fs *fs, const char *tablet_id,
                              cf_error *err)
{
    *out = NULL;
    CF_CHECK(fs != NULL, err, CF_EINVAL, "tablet: no fs");
    return open_in(out, fs, cf_kudu_fs_metadata_fd(fs), cf_kudu_fs_metadata_dir(fs), tablet_id,
                   err);
}

/* ---- getters ---- */

const cf_kudu_fs *cf_kudu_tablet_fs(const cf_kudu_tablet *t)
{
    return t->fs;
}

const Kudu__Tablet__TabletSuperBlockPB *cf_kudu_tablet_superblock(const cf_kudu_tablet *t)
{
    return t->sb;
}

const Kudu__Consensus__ConsensusMetadataPB *cf_kudu_tablet_consensus(const cf_kudu_tablet *t)
{
    return t->cm;
}

bool cf_kudu_tablet_sb_mtime(const cf_kudu_tablet *t, int64_t *us)
{
    *us = t->sb_mtime_us;
    return t->has_sb_mtime;
}

const char *cf_kudu_tablet_path(const cf_kudu_tablet *t)
{
    return t->path;
}

const char *cf_kudu_tablet_id(const cf_kudu_tablet *t)
{
    return t->id;
}

const char *cf_kudu_tablet_table_id(const cf_kudu_tablet *t)
{
    return t->table_id;
}

const char *cf_kudu_tablet_table_name(const cf_kudu_tablet *t)
{
    return t->table_name;
}

const char *cf_kudu_tablet_data_state(const cf_kudu_tablet *t)
{
    /* metadata.proto's default when the field is absent */
    int v = t->sb->has_tablet_data_state ? (int)t->sb->tablet_data_state
                                         : KUDU__TABLET__TABLET_DATA_STATE__TABLET_DATA_UNKNOWN;
    const ProtobufCEnumValue *e =
        protobuf_c_enum_descriptor_get_value(&kudu__tablet__tablet_data_state__descriptor, v);
    return e != NULL ? e->name : "TABLET_DATA_UNKNOWN";
}

int64_t cf_kudu_tablet_last_durable_mrs_id(const cf_kudu_tablet *t)
{
    return t->sb->last_durable_mrs_id;
}

const cf_schema *cf_kudu_tablet_schema(const cf_kudu_tablet *t)
{
    return t->schema;
}

uint32_t cf_kudu_tablet_column_id(const cf_kudu_tablet *t, size_t i)
{
    return i < cf_schema_column_count(t->schema) ? t->col_ids[i] : UINT32_MAX;
}

cf_status cf_kudu_tablet_superblock_json(const cf_kudu_tablet *t, bool pretty, char **json,
                                         cf_error *err)
{
    *json = NULL;
    cf_status st = cf_kudu_pb_to_json(SUPERBLOCK_TYPE, t->sb_bytes, t->sb_len, pretty, json, err);
    return cf_error_prefix(err, st, "%s: ", t->path);
}

cf_status cf_kudu_tablet_consensus_json(const cf_kudu_tablet *t, bool pretty, char **json,
                                        cf_error *err)
{
    *json = NULL;
    if (t->cm == NULL && t->has_cm_file) {
        if (err != NULL)
            *err = t->cm_err;
        return t->cm_err.code;
    }
    CF_CHECK(t->cm != NULL, err, CF_ENOTFOUND, "tablet %s: no consensus metadata (%s)", t->id,
             t->cmeta_path);
    cf_status st = cf_kudu_pb_to_json(CMETA_TYPE, t->cm_bytes, t->cm_len, pretty, json, err);
    return cf_error_prefix(err, st, "%s: ", t->cmeta_path);
}

size_t cf_kudu_tablet_rowset_count(const cf_kudu_tablet *t)
{
    return t->nrowsets;
}

const cf_kudu_rowset *cf_kudu_tablet_rowset_at(const cf_kudu_tablet *t, size_t i)
{
    return i < t->nrowsets ? &t->rowsets[i] : NULL;
}

const char *cf_kudu_block_kind_name(cf_kudu_block_kind k)
{
    switch (k) {
    case CF_KUDU_BLOCK_ORPHAN: return "orphan";
    case CF_KUDU_BLOCK_COLUMN: return "column";
    case CF_KUDU_BLOCK_BLOOM: return "bloom";
    case CF_KUDU_BLOCK_ADHOC_INDEX: return "adhoc_index";
    case CF_KUDU_BLOCK_UNDO: return "undo";
    case CF_KUDU_BLOCK_REDO: return "redo";
    }
    return "unknown";
}

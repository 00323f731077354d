/* The log block manager's containers (src/kudu/fs/log_block_manager.cc), loaded as
 * its container loader loads them, read-only:
 *
 *   <data root>/data/<id>.data       the blocks, each at a filesystem-block-aligned
 *                                    offset; deleted blocks are punched holes (zeros)
 *   <data root>/data/<id>.metadata   a protobuf container of BlockRecordPB: CREATE
 *                                    (block id, offset, length, timestamp) and DELETE
 *
 * Records are applied in file order, so later records win: a DELETE ends the block
 * its CREATE began. What Kudu's ProcessRecord calls malformed (a CREATE without
 * offset or length or with negative ones, one past the data file's end, a second
 * CREATE of a live block, a DELETE of a block that is not live, an unknown op type)
 * is kept as a problem naming the metadata file and the record's offset, and the
 * record is skipped as Kudu skips it. A torn last record ends the records, as Kudu
 * tolerates it (its repair truncates it away). Beyond Kudu's loader we also name
 * live blocks at misaligned offsets (its misaligned_block_check) and live blocks
 * whose bytes overlap another block's, whose bytes a hole punch may have zeroed.
 *
 * Containers Kudu would not load are recognised as it recognises them
 * (LogBlockContainer::CheckContainerFiles): incomplete (both files empty or too
 * short to be a container; or a data file missing and no live block), full (its
 * next block offset at --log_container_max_size) and dead (full, every block
 * deleted: Kudu removes it at startup). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs_internal.h"
#include "io/io_at.h"
#include "util/alloc.h"
#include "util/error.h"

/* pb_util.cc kPBContainerMinimumValidLength: magic and version (v1 header). */
#define PBC_MIN_VALID_LEN 12u
/* Metadata files up to this size are read into memory in one read. */
#define PRELOAD_MAX ((uint64_t)16 << 20)
/* --log_container_excess_space_before_cleanup_fraction (log_block_manager.cc). */
#define EXCESS_SPACE_FRACTION 0.10

static cf_status add_record(cf_kudu_container *c, size_t *cap, const cf_kudu_record *r,
                            cf_error *err)
{
    if (c->nrecords == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16, bytes;
        CF_CHECK(cf_mul_ok(ncap, sizeof *c->records, &bytes), err, CF_ENOMEM,
                 "%s: too many records", c->metadata_path);
        cf_kudu_record *p = cf_realloc((void *)c->records, bytes);
        CF_CHECK(p != NULL, err, CF_ENOMEM, "%s: out of memory for %zu records", c->metadata_path,
                 ncap);
        c->records = p;
        *cap = ncap;
    }
    ((cf_kudu_record *)c->records)[c->nrecords++] = *r;
    return CF_OK;
}

typedef struct rec_ref {
    uint64_t id;
    size_t rec;
} rec_ref;

static int rec_ref_cmp(const void *a, const void *b)
{
    const rec_ref *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->rec < y->rec ? -1 : x->rec > y->rec;
}

typedef struct range {
    uint64_t off, end, id;
    bool live;
} range;

static int range_cmp(const void *a, const void *b)
{
    const range *x = a, *y = b;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
    if (a == 0)
        return v;
    uint64_t r = v % a;
    return r == 0 || v > UINT64_MAX - (a - r) ? v : v + (a - r);
}

/* Read every record of the metadata file into c->records (file order). */
static cf_status read_records(cf_kudu_fs *fs, cf_kudu_container *c, cf_io *metadata, cf_error *err)
{
    size_t cap = 0;
    cf_kudu_pbc *pbc = NULL;
    cf_error e = {0};
    cf_status st = cf_kudu_pbc_open(&pbc, metadata, c->metadata_path, &e);
    if (st == CF_ENOMEM)
        return cf_error_prefix(err, st, "%s", e.msg);
    if (st != CF_OK)
        return cf_kudu_fs_problem(fs, c->metadata_path, true, 0, err, "%s", e.msg);
    const char *type = cf_kudu_pbc_type(pbc);
    if (type != NULL && strcmp(type, "kudu.BlockRecordPB") != 0) {
        st = cf_kudu_fs_problem(fs, c->metadata_path, true, 0, err,
                                "holds %s records, not kudu.BlockRecordPB", type);
        goto out;
    }
    /* Where the next record starts, once one has been read: a record is its length
     * (and, in version 2, the length's checksum), the message and its checksum. */
    bool know_next = false;
    uint64_t next_at = 0;
    const uint64_t framing = cf_kudu_pbc_version(pbc) >= 2 ? 12 : 8;
    for (;;) {
        const uint8_t *data;
        size_t len;
        uint64_t off;
        bool has;
        st = cf_kudu_pbc_next(pbc, &data, &len, &off, &has, &e);
        if (st == CF_ENOMEM) {
            st = cf_error_prefix(err, st, "%s", e.msg);
            goto out;
        }
        if (st != CF_OK) {
            /* Kudu's loader stops the container here (an unrecoverable error); the
             * records before it stay, so the rest of the container can be listed. */
            /* Before any record was read, the reader's message says where. */
            const char *at = strstr(e.msg, "record at offset ");
            if (!know_next && at != NULL) {
                next_at = strtoull(at + strlen("record at offset "), NULL, 10);
                know_next = true;
            }
            st = cf_kudu_fs_problem(fs, c->metadata_path, know_next, next_at, err, "%s", e.msg);
            goto out;
        }
        if (!has)
            break;
        know_next = true;
        next_at = off + framing + len;
        cf_kudu_block_record br;
        if (!cf_kudu_block_record_decode(data, len, &br)) {
            st = cf_kudu_fs_problem(
                fs, c->metadata_path, true, off, err,
                "the record at offset %" PRIu64 " does not parse as kudu.BlockRecordPB", off);
            goto out;
        }
        if (!br.has_block_id || !br.has_op || !br.has_timestamp) {
            /* Required fields: Kudu's parse of the record fails. */
            st = cf_kudu_fs_problem(
                fs, c->metadata_path, true, off, err,
                "the record at offset %" PRIu64 " lacks %s, which Kudu requires", off,
                !br.has_block_id ? "block_id"
                : !br.has_op     ? "op_type"
                                 : "timestamp_us");
            goto out;
        }
        cf_kudu_record r = {
            .op = (int)br.op,
            .block_id = br.block_id,
            .timestamp_us = br.timestamp_us,
            .offset = br.has_offset ? br.offset : -1,
            .length = br.has_length ? br.length : -1,
            .file_offset = off,
        };
        CF_TRY_OUT(add_record(c, &cap, &r, err));
    }
    uint64_t torn_at;
    if (cf_kudu_pbc_torn(pbc, &torn_at))
        c->torn_metadata = true;
    /* Records stay for the fs's lifetime: give back the doubling's slack (with
     * 10,000 containers of ~100 records it is a third of their memory). */
    if (c->nrecords > 0 && c->nrecords < cap) {
        cf_kudu_record *p = cf_realloc((void *)c->records, c->nrecords * sizeof *c->records);
        if (p != NULL)
            c->records = p;
    }
out:
    cf_kudu_pbc_free(pbc);
    return st;
}

cf_status cf_kudu_lbm_load_container(cf_kudu_fs *fs, cf_kudu_container *c, cf_io *metadata,
                                     uint64_t *live_aligned_out, cf_error *err)
{
    if (live_aligned_out != NULL)
        *live_aligned_out = 0;
    CF_TRY(read_records(fs, c, metadata, err));
    const uint64_t fsb = fs->dirs[c->data_dir].fs_block_size;
    cf_status st = CF_OK;
    rec_ref *refs = NULL;
    range *ranges = NULL;
    size_t nrefs = 0, nranges = 0;
    uint64_t next_offset = 0, live_aligned = 0;
    if (c->nrecords > 0) {
        refs = cf_malloc(c->nrecords * sizeof *refs);
        ranges = cf_malloc(c->nrecords * sizeof *ranges);
        if (refs == NULL || ranges == NULL)
            CF_FAIL_OUT(err, CF_ENOMEM, "%s: out of memory", c->metadata_path);
    }
    /* Records that name a block, by block id then file order: each block's records
     * apply in file order, independent of other blocks', so this is the sequential
     * replay Kudu does, O(n log n) and without a map. */
    for (size_t i = 0; i < c->nrecords; i++) {
        const cf_kudu_record *r = &c->records[i];
        if (r->op == CF_KUDU_RECORD_CREATE) {
            if (r->offset < 0 || r->length < 0) {
                CF_TRY_OUT(cf_kudu_fs_problem(fs, c->metadata_path, true, r->file_offset, err,
                                              "CREATE of block %" PRIu64
                                              " without a valid offset and length (%" PRId64
                                              ", %" PRId64 ")",
                                              r->block_id, r->offset, r->length));
                continue;
            }
            uint64_t off = (uint64_t)r->offset, len = (uint64_t)r->length;
            if (len > 0 && (off > c->data_size || len > c->data_size - off)) {
                CF_TRY_OUT(cf_kudu_fs_problem(fs, c->metadata_path, true, r->file_offset, err,
                                              "block %" PRIu64 " (offset %" PRIu64
                                              ", length %" PRIu64
                                              ") runs past the end of %s (%" PRIu64 " bytes)",
                                              r->block_id, off, len, c->data_path, c->data_size));
                continue;
            }
        } else if (r->op != CF_KUDU_RECORD_DELETE) {
            CF_TRY_OUT(cf_kudu_fs_problem(fs, c->metadata_path, true, r->file_offset, err,
                                          "record of unknown type %d (block %" PRIu64 ")", r->op,
                                          r->block_id));
            continue;
        }
        refs[nrefs].id = r->block_id;
        refs[nrefs].rec = i;
        nrefs++;
    }
    if (nrefs > 1)
        qsort(refs, nrefs, sizeof *refs, rec_ref_cmp);
    for (size_t i = 0; i < nrefs;) {
        size_t j = i;
        const cf_kudu_record *live = NULL;
        for (; j < nrefs && refs[j].id == refs[i].id; j++) {
            const cf_kudu_record *r = &c->records[refs[j].rec];
            if (r->op == CF_KUDU_RECORD_CREATE) {
                if (live != NULL) {
                    CF_TRY_OUT(cf_kudu_fs_problem(fs, c->metadata_path, true, r->file_offset, err,
                                                  "second CREATE of live block %" PRIu64
                                                  " (first at offset %" PRIu64 ")",
                                                  r->block_id, live->file_offset));
                    continue;
                }
                live = r;
                /* Kudu counts every created block's bytes, deleted or not, so the
                 * container never reuses a range (UpdateNextBlockOffset). */
                uint64_t end = (uint64_t)r->offset + (uint64_t)r->length;
                uint64_t next = align_up(end, fsb);
                if (next > next_offset)
                    next_offset = next;
                ranges[nranges++] = (range){(uint64_t)r->offset, end, r->block_id, false};
            } else if (live == NULL) {
                CF_TRY_OUT(cf_kudu_fs_problem(fs, c->metadata_path, true, r->file_offset, err,
                                              "DELETE of block %" PRIu64 ", which is not live",
                                              r->block_id));
            } else {
                live = NULL;
                c->deleted_blocks++;
            }
        }
        if (live != NULL) {
            ranges[nranges - 1].live = true;
            cf_kudu_block b = {
                .id = live->block_id,
                .data_dir = c->data_dir,
                .container = c->id,
                .offset = (uint64_t)live->offset,
                .length = (uint64_t)live->length,
                .path = c->data_path,
            };
            CF_TRY_OUT(cf_kudu_fs_add_block(fs, &b, err));
            c->live_blocks++;
            c->live_bytes += b.length;
            /* LogBlock::fs_aligned_length: a misaligned block is counted unaligned. */
            live_aligned += fsb && b.offset % fsb == 0 ? align_up(b.length, fsb) : b.length;
            if (fsb && b.offset % fsb != 0)
                CF_TRY_OUT(
                    cf_kudu_fs_problem(fs, c->data_path, true, b.offset, err,
                                       "block %" PRIu64 " starts at offset %" PRIu64
                                       ", not a multiple of the filesystem block size %" PRIu64,
                                       b.id, b.offset, fsb));
        }
        i = j;
    }
    /* Overlaps that touch a live block: its bytes may be another block's, or zeros
     * where a deleted neighbour's hole was punched. */
    if (nranges > 1)
        qsort(ranges, nranges, sizeof *ranges, range_cmp);
    size_t top = SIZE_MAX; /* the range reaching furthest so far */
    for (size_t i = 0; i < nranges; i++) {
        const range *r = &ranges[i];
        if (r->end == r->off)
            continue;
        if (top != SIZE_MAX && r->off < ranges[top].end && (r->live || ranges[top].live))
            CF_TRY_OUT(cf_kudu_fs_problem(fs, c->data_path, true, r->off, err,
                                          "block %" PRIu64 " [%" PRIu64 ", %" PRIu64
                                          ") overlaps block %" PRIu64 " [%" PRIu64 ", %" PRIu64 ")",
                                          r->id, r->off, r->end, ranges[top].id, ranges[top].off,
                                          ranges[top].end));
        if (top == SIZE_MAX || r->end > ranges[top].end)
            top = i;
    }
    c->full = next_offset >= fs->lbm_max_size;
    c->dead = c->full && c->live_blocks == 0;
    if (live_aligned_out != NULL)
        *live_aligned_out = live_aligned;
out:
    cf_free(refs);
    cf_free(ranges);
    return st;
}

/* ---- one data dir ---------------------------------------------------------------------------- */

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static cf_status add_container(cf_kudu_fs *fs, cf_kudu_container **out, cf_error *err)
{
    if (fs->ncontainers == fs->containers_cap) {
        size_t cap = fs->containers_cap ? fs->containers_cap * 2 : 64, bytes;
        CF_CHECK(cf_mul_ok(cap, sizeof *fs->containers, &bytes), err, CF_ENOMEM,
                 "too many containers");
        cf_kudu_container *p = cf_realloc(fs->containers, bytes);
        CF_CHECK(p != NULL, err, CF_ENOMEM, "out of memory for %zu containers", cap);
        fs->containers = p;
        fs->containers_cap = cap;
    }
    *out = &fs->containers[fs->ncontainers++];
    memset(*out, 0, sizeof **out);
    return CF_OK;
}

/* A file of the container: exists (as a regular file, never followed through a
 * link), its size and the bytes it takes on disk. */
typedef struct file_info {
    bool exists, regular;
    uint64_t size, on_disk;
} file_info;

static void probe(const cf_kudu_fs *fs, size_t d, const char *path, file_info *fi)
{
    memset(fi, 0, sizeof *fi);
    struct stat sb;
    const char *rel = cf_kudu_fs_in_dir(fs, d, path);
    if ((rel != NULL ? fstatat(fs->dirs[d].fd, rel, &sb, AT_SYMLINK_NOFOLLOW) : lstat(path, &sb)) !=
        0)
        return;
    fi->exists = true;
    fi->regular = S_ISREG(sb.st_mode);
    fi->size = sb.st_size > 0 ? (uint64_t)sb.st_size : 0;
    fi->on_disk = sb.st_blocks > 0 ? (uint64_t)sb.st_blocks * 512u : 0;
}

static cf_status load_one(cf_kudu_fs *fs, size_t d, const char *name, cf_error *err)
{
    const char *dir = fs->dirs[d].dir;
    cf_kudu_container *c;
    CF_TRY(add_container(fs, &c, err));
    c->id = cf_kudu_fs_strdup(fs, name);
    c->data_dir = d;
    char *tmp;
    size_t n = strlen(name);
    tmp = cf_malloc(n + 16);
    CF_CHECK(tmp != NULL && c->id != NULL, err, CF_ENOMEM, "out of memory");
    memcpy(tmp, name, n);
    memcpy(tmp + n, ".data", 6);
    c->data_path = cf_kudu_fs_join(fs, dir, tmp);
    memcpy(tmp + n, ".metadata", 10);
    c->metadata_path = cf_kudu_fs_join(fs, dir, tmp);
    cf_free(tmp);
    CF_CHECK(c->data_path != NULL && c->metadata_path != NULL, err, CF_ENOMEM, "out of memory");

    file_info df, mf;
    probe(fs, d, c->data_path, &df);
    probe(fs, d, c->metadata_path, &mf);
    if ((df.exists && !df.regular) || (mf.exists && !mf.regular)) {
        c->incomplete = true;
        return cf_kudu_fs_problem(fs, df.exists && !df.regular ? c->data_path : c->metadata_path,
                                  false, 0, err,
                                  "not a regular file (a symbolic link or directory is not "
                                  "followed): container %s skipped",
                                  name);
    }
    c->data_size = df.size;
    /* CheckContainerFiles: a metadata file too short to be a container with an
     * empty data file is what a crash while creating one leaves behind. */
    if (mf.size < PBC_MIN_VALID_LEN && df.size == 0) {
        c->incomplete = true;
        c->reclaimable = df.on_disk + mf.on_disk;
        return CF_OK;
    }
    if (!mf.exists) {
        c->incomplete = true;
        return cf_kudu_fs_problem(fs, c->metadata_path, false, 0, err,
                                  "missing: the %" PRIu64 "-byte data file %s has no metadata",
                                  df.size, c->data_path);
    }
    cf_io *io = NULL;
    cf_error e = {0};
    cf_status st =
        cf_io_open_file_range_at(&io, fs->dirs[d].fd, cf_kudu_fs_in_dir(fs, d, c->metadata_path),
                                 c->metadata_path, 0, UINT64_MAX, CF_IO_RANGE_NOFOLLOW, &e);
    if (st != CF_OK) {
        c->incomplete = true;
        return st == CF_ENOMEM
                   ? cf_error_prefix(err, st, "%s", e.msg)
                   : cf_kudu_fs_problem(fs, c->metadata_path, false, 0, err, "%s", e.msg);
    }
    /* Like Kudu's MaybePreloadMetadataIntoMemory: a metadata file of modest size is
     * read once into memory, so its records cost no system calls each. */
    uint8_t *pre = NULL;
    uint64_t msize = io->ops->size(io);
    if (msize > 0 && msize <= PRELOAD_MAX && (pre = cf_malloc((size_t)msize)) != NULL) {
        cf_io *mem = NULL;
        if (io->ops->read_at(io, 0, pre, (size_t)msize, &e) == CF_OK &&
            cf_io_open_mem(&mem, pre, (size_t)msize, &e) == CF_OK) {
            cf_io_free(io);
            io = mem;
        } else {
            cf_free(pre);
            pre = NULL;
        }
    }
    size_t first_block = fs->nblocks, first_problem = fs->nproblems;
    uint64_t live_aligned;
    /* Without a data file, the records only say which blocks would be live
     * (CheckContainerFiles reads them so), not whether they fit. */
    if (!df.exists)
        c->data_size = UINT64_MAX;
    st = cf_kudu_lbm_load_container(fs, c, io, &live_aligned, err);
    cf_io_free(io);
    cf_free(pre);
    if (!df.exists)
        c->data_size = 0;
    CF_TRY(st);
    if (!df.exists) {
        /* A metadata file whose data file is gone: with no live block it is an
         * orphan Kudu deletes; with live blocks their bytes are lost. */
        c->incomplete = true;
        if (c->live_blocks == 0 && fs->nproblems == first_problem) {
            c->reclaimable = mf.on_disk;
            return CF_OK;
        }
        fs->nblocks = first_block;
        return cf_kudu_fs_problem(fs, c->data_path, false, 0, err,
                                  "missing, but %s names %zu live blocks", c->metadata_path,
                                  c->live_blocks);
    }
    if (c->dead) {
        c->reclaimable = df.on_disk + mf.on_disk;
    } else if (c->full) {
        /* The space check of Kudu's loader: a full container using more disk than
         * its live blocks need (plus slop) has space to give back by repunching and
         * truncation. */
        double threshold = (double)live_aligned * (1 + EXCESS_SPACE_FRACTION);
        if ((double)df.on_disk > threshold)
            c->reclaimable = df.on_disk - live_aligned;
    }
    return CF_OK;
}

cf_status cf_kudu_lbm_load_dir(cf_kudu_fs *fs, size_t d, cf_error *err)
{
    const char *dir = fs->dirs[d].dir;
    /* a descriptor of its own (closedir closes it) of the dir held open */
    int dfd = fcntl(fs->dirs[d].fd, F_DUPFD_CLOEXEC, 0);
    DIR *dh = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (dh == NULL && dfd >= 0)
        close(dfd);
    CF_CHECK(dh != NULL, err, CF_EIO, "%s: %s", dir, strerror(errno));
    cf_status st = CF_OK;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(dh)) != NULL) {
        size_t len = strlen(e->d_name), base;
        if (len > 5 && strcmp(e->d_name + len - 5, ".data") == 0)
            base = len - 5;
        else if (len > 9 && strcmp(e->d_name + len - 9, ".metadata") == 0)
            base = len - 9;
        else
            continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            char **p = cf_realloc(names, ncap * sizeof *p);
            if (p == NULL)
                CF_FAIL_OUT(err, CF_ENOMEM, "%s: out of memory", dir);
            names = p;
            cap = ncap;
        }
        if ((names[n] = cf_malloc(base + 1)) == NULL)
            CF_FAIL_OUT(err, CF_ENOMEM, "%s: out of memory", dir);
        memcpy(names[n], e->d_name, base);
        names[n][base] = '\0';
        n++;
    }
    if (n > 1)
        qsort(names, n, sizeof *names, name_cmp);
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && strcmp(names[i], names[i - 1]) == 0)
            continue;
        CF_TRY_OUT(load_one(fs, d, names[i], err));
    }
out:
    for (size_t i = 0; i < n; i++)
        cf_free(names[i]);
    cf_free(names);
    closedir(dh);
    return st;
}

/* Log block manager containers written (lbm_writer.h): blocks appended to
 * <id>.data at filesystem-block-aligned offsets, CREATE and DELETE records
 * appended to <id>.metadata through the protobuf container writer, holes punched
 * for deleted blocks, as log_block_manager.cc's LogBlockContainer does. */
#define _GNU_SOURCE /* fallocate, FALLOC_FL_* */
#include "lbm_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kudu_common.pb-c.h"
#include "pbc_writer.h"
#include "util/alloc.h"
#include "util/error.h"

/* An io that appends to an open descriptor in place (the container's metadata is
 * a log, not a file replaced atomically). */
typedef struct append_io {
    cf_io base;
    int fd;
    uint64_t size;
} append_io;

static cf_status aio_append(cf_io *io, const void *src, size_t len, cf_error *err)
{
    append_io *a = (append_io *)io;
    const uint8_t *p = src;
    while (len > 0) {
        ssize_t n = pwrite(a->fd, p, len, (off_t)a->size);
        if (n < 0 && errno == EINTR)
            continue;
        CF_CHECK(n > 0, err, CF_EIO, "write container metadata: %s",
                 n < 0 ? strerror(errno) : "no progress");
        p += n;
        len -= (size_t)n;
        a->size += (uint64_t)n;
    }
    return CF_OK;
}

static uint64_t aio_size(cf_io *io)
{
    return ((append_io *)io)->size;
}

static void aio_free(cf_io *io)
{
    (void)io; /* the writer owns it */
}

static const cf_io_ops append_ops = {.append = aio_append, .size = aio_size, .free = aio_free};

typedef struct written {
    uint64_t id, off, len;
    bool deleted;
} written;

struct cf_kudu_lbm_writer {
    int data_fd;
    append_io meta;
    cf_kudu_pbc_writer *pbc;
    uint64_t fsb, next;
    written *blocks;
    size_t n, cap;
    cf_sticky fail;
};

static cf_status open_new(int *fd, const char *dir, const char *id, const char *ext, cf_error *err)
{
    char path[4096];
    int k = snprintf(path, sizeof path, "%s/%s%s", dir, id, ext);
    CF_CHECK(k > 0 && (size_t)k < sizeof path, err, CF_EINVAL, "container path too long");
    *fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    CF_CHECK(*fd >= 0, err, CF_EIO, "create %s: %s", path, strerror(errno));
    return CF_OK;
}

cf_status cf_kudu_lbm_writer_create(cf_kudu_lbm_writer **out, const char *dir, const char *id,
                                    uint64_t fs_block_size, cf_error *err)
{
    *out = NULL;
    CF_CHECK(fs_block_size > 0 && (fs_block_size & (fs_block_size - 1)) == 0, err, CF_EINVAL,
             "filesystem block size %" PRIu64 " is not a power of two", fs_block_size);
    cf_kudu_lbm_writer *w = cf_calloc(1, sizeof *w);
    CF_CHECK(w != NULL, err, CF_ENOMEM, "out of memory");
    w->data_fd = w->meta.fd = -1;
    w->meta.base.ops = &append_ops;
    w->fsb = fs_block_size;
    cf_status st = CF_OK;
    CF_TRY_OUT(open_new(&w->data_fd, dir, id, ".data", err));
    CF_TRY_OUT(open_new(&w->meta.fd, dir, id, ".metadata", err));
    CF_TRY_OUT(cf_kudu_pbc_writer_create(&w->pbc, &w->meta.base, 2,
                                         &kudu__block_record_pb__descriptor, err));
    *out = w;
    return CF_OK;
out:
    cf_kudu_lbm_writer_free(w);
    return st;
}

void cf_kudu_lbm_writer_free(cf_kudu_lbm_writer *w)
{
    if (w == NULL)
        return;
    cf_kudu_pbc_writer_free(w->pbc);
    if (w->data_fd >= 0)
        close(w->data_fd);
    if (w->meta.fd >= 0)
        close(w->meta.fd);
    cf_free(w->blocks);
    cf_free(w);
}

static cf_status put_record(cf_kudu_lbm_writer *w, const cf_kudu_block_record *r, cf_error *err)
{
    Kudu__BlockIdPB bid = KUDU__BLOCK_ID_PB__INIT;
    Kudu__BlockRecordPB rec = KUDU__BLOCK_RECORD_PB__INIT;
    bid.has_id = true;
    bid.id = r->block_id;
    rec.block_id = r->has_block_id ? &bid : NULL;
    rec.has_op_type = r->has_op;
    rec.op_type = (Kudu__BlockRecordType)r->op;
    rec.has_timestamp_us = r->has_timestamp;
    rec.timestamp_us = r->timestamp_us;
    rec.has_offset = r->has_offset;
    rec.offset = r->offset;
    rec.has_length = r->has_length;
    rec.length = r->length;
    return cf_kudu_pbc_writer_append_msg(w->pbc, &rec.base, err);
}

static cf_status pwrite_all(int fd, const void *src, size_t len, uint64_t off, cf_error *err)
{
    const uint8_t *p = src;
    while (len > 0) {
        ssize_t n = pwrite(fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        CF_CHECK(n > 0, err, CF_EIO, "write container data: %s",
                 n < 0 ? strerror(errno) : "no progress");
        p += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return CF_OK;
}

static cf_status do_append(cf_kudu_lbm_writer *w, uint64_t id, const void *data, size_t len,
                           uint64_t ts, uint64_t *offset, cf_error *err)
{
    if (w->n == w->cap)
        CF_CHECK(cf_array_grow(&w->blocks, &w->cap, sizeof *w->blocks, 16), err, CF_ENOMEM,
                 "out of memory");
    uint64_t off = w->next;
    CF_TRY(pwrite_all(w->data_fd, data, len, off, err));
    cf_kudu_block_record r = {
        .has_block_id = true,
        .has_op = true,
        .has_timestamp = true,
        .has_offset = true,
        .has_length = true,
        .block_id = id,
        .op = CF_KUDU_RECORD_CREATE,
        .timestamp_us = ts,
        .offset = (int64_t)off,
        .length = (int64_t)len,
    };
    /* Data first, then its record: Kudu syncs the data before the metadata so a
     * record never names bytes that are not there. */
    CF_TRY(put_record(w, &r, err));
    uint64_t end = off + len;
    w->next = (end + w->fsb - 1) / w->fsb * w->fsb;
    w->blocks[w->n++] = (written){id, off, len, false};
    if (offset != NULL)
        *offset = off;
    return CF_OK;
}

cf_status cf_kudu_lbm_writer_append(cf_kudu_lbm_writer *w, uint64_t block_id, const void *data,
                                    size_t len, uint64_t timestamp_us, uint64_t *offset,
                                    cf_error *err)
{
    CF_TRY(cf_sticky_replay(&w->fail, "container writer", err));
    return cf_sticky_set(&w->fail, do_append(w, block_id, data, len, timestamp_us, offset, err),
                         err);
}

static cf_status do_delete(cf_kudu_lbm_writer *w, uint64_t id, uint64_t ts, cf_error *err)
{
    written *b = NULL;
    for (size_t i = w->n; i-- > 0;)
        if (w->blocks[i].id == id && !w->blocks[i].deleted) {
            b = &w->blocks[i];
            break;
        }
    CF_CHECK(b != NULL, err, CF_ENOTFOUND,
             "block %" PRIu64 " is not a live block of this container", id);
    /* Kudu punches the block's filesystem-aligned length (LogBlock::fs_aligned_length). */
    uint64_t len = (b->len + w->fsb - 1) / w->fsb * w->fsb;
    if (len > 0 && fallocate(w->data_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)b->off,
                             (off_t)len) != 0) {
        /* A filesystem without hole punching: zero the range, which reads the same. */
        uint8_t zero[4096] = {0};
        for (uint64_t o = 0; o < b->len; o += sizeof zero) {
            size_t n = b->len - o < sizeof zero ? (size_t)(b->len - o) : sizeof zero;
            CF_TRY(pwrite_all(w->data_fd, zero, n, b->off + o, err));
        }
    }
    cf_kudu_block_record r = {
        .has_block_id = true,
        .has_op = true,
        .has_timestamp = true,
        .block_id = id,
        .op = CF_KUDU_RECORD_DELETE,
        .timestamp_us = ts,
    };
    CF_TRY(put_record(w, &r, err));
    b->deleted = true;
    return CF_OK;
}

cf_status cf_kudu_lbm_writer_delete(cf_kudu_lbm_writer *w, uint64_t block_id, uint64_t timestamp_us,
                                    cf_error *err)
{
    CF_TRY(cf_sticky_replay(&w->fail, "container writer", err));
    cf_status st = do_delete(w, block_id, timestamp_us, err);
    /* An unknown block is the caller's mistake, not a broken container. */
    return st == CF_ENOTFOUND ? st : cf_sticky_set(&w->fail, st, err);
}

cf_status cf_kudu_lbm_writer_record(cf_kudu_lbm_writer *w, const cf_kudu_block_record *r,
                                    uint64_t *at, cf_error *err)
{
    CF_TRY(cf_sticky_replay(&w->fail, "container writer", err));
    if (at != NULL)
        *at = w->meta.size;
    return cf_sticky_set(&w->fail, put_record(w, r, err), err);
}

cf_status cf_kudu_lbm_writer_raw(cf_kudu_lbm_writer *w, const void *bytes, size_t len,
                                 cf_error *err)
{
    CF_TRY(cf_sticky_replay(&w->fail, "container writer", err));
    return cf_sticky_set(&w->fail, aio_append(&w->meta.base, bytes, len, err), err);
}

uint64_t cf_kudu_lbm_writer_metadata_size(const cf_kudu_lbm_writer *w)
{
    return w->meta.size;
}

uint64_t cf_kudu_lbm_writer_next_offset(const cf_kudu_lbm_writer *w)
{
    return w->next;
}

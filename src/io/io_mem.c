/* In-memory ios: a reader over caller-owned bytes (views are in place) and a
 * writer that grows a cf_buf (cf_io_mem_contents shows it). */
#include <cfile/io.h>

#include <inttypes.h>
#include <string.h>

#include "util/alloc.h"
#include "util/buf.h"
#include "util/error.h"

/* ---- reader --------------------------------------------------------------------------- */

typedef struct mem_reader {
    cf_io base;
    const uint8_t *data;
    size_t len;
} mem_reader;

static cf_status mem_read_at(cf_io *io, uint64_t off, void *dst, size_t len, cf_error *err)
{
    const mem_reader *m = (const mem_reader *)io;
    CF_CHECK(len <= m->len && off <= m->len - len, err, CF_EIO,
             "memory io: read of %zu bytes at offset %" PRIu64 " is past the end (size %zu)", len,
             off, m->len);
    if (len)
        memcpy(dst, m->data + off, len);
    return CF_OK;
}

static const uint8_t *mem_view_at(cf_io *io, uint64_t off, size_t len)
{
    const mem_reader *m = (const mem_reader *)io;
    if (len > m->len || off > m->len - len)
        return NULL;
    static const uint8_t empty[1];
    return m->data ? m->data + off : empty;
}

static uint64_t mem_size(cf_io *io)
{
    return ((const mem_reader *)io)->len;
}

static void mem_free(cf_io *io)
{
    cf_free(io);
}

static const cf_io_ops mem_reader_ops = {
    .read_at = mem_read_at,
    .view_at = mem_view_at,
    .size = mem_size,
    .free = mem_free,
};

cf_status cf_io_open_mem(cf_io **out, const void *data, size_t len, cf_error *err)
{
    *out = NULL;
    CF_CHECK(data != NULL || len == 0, err, CF_EINVAL, "memory io: NULL data with length %zu", len);
    mem_reader *m = cf_malloc(sizeof *m);
    CF_CHECK(m != NULL, err, CF_ENOMEM, "memory io: cannot allocate the reader");
    m->base.ops = &mem_reader_ops;
    m->data = data;
    m->len = len;
    *out = &m->base;
    return CF_OK;
}

/* ---- writer --------------------------------------------------------------------------- */

typedef struct mem_writer {
    cf_io base;
    cf_buf buf;
    bool committed;
    cf_sticky failed; /* the first failure, replayed by every later call */
} mem_writer;

static uint64_t memw_size(cf_io *io)
{
    return ((const mem_writer *)io)->buf.len;
}

static cf_status memw_append(cf_io *io, const void *src, size_t len, cf_error *err)
{
    mem_writer *w = (mem_writer *)io;
    CF_TRY(cf_sticky_replay(&w->failed, "memory io", err));
    CF_CHECK(!w->committed, err, CF_ESTATE, "memory io: append after commit");
    cf_buf_append(&w->buf, src, len);
    if (w->buf.oom)
        return cf_sticky_set(&w->failed,
                             cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__,
                                          "memory io: cannot grow the buffer past %zu bytes",
                                          w->buf.len),
                             err);
    return CF_OK;
}

static cf_status memw_commit(cf_io *io, cf_error *err)
{
    mem_writer *w = (mem_writer *)io;
    CF_TRY(cf_sticky_replay(&w->failed, "memory io", err));
    CF_CHECK(!w->committed, err, CF_ESTATE, "memory io: commit called twice");
    w->committed = true;
    return CF_OK;
}

static void memw_free(cf_io *io)
{
    mem_writer *w = (mem_writer *)io;
    cf_buf_dispose(&w->buf);
    cf_free(w);
}

static const cf_io_ops mem_writer_ops = {
    .size = memw_size,
    .append = memw_append,
    .commit = memw_commit,
    .free = memw_free,
};

cf_status cf_io_create_mem(cf_io **out, cf_error *err)
{
    *out = NULL;
    mem_writer *w = cf_calloc(1, sizeof *w);
    CF_CHECK(w != NULL, err, CF_ENOMEM, "memory io: cannot allocate the writer");
    w->base.ops = &mem_writer_ops;
    cf_buf_init(&w->buf);
    w->committed = false;
    *out = &w->base;
    return CF_OK;
}

cf_slice cf_io_mem_contents(const cf_io *io)
{
    cf_slice s = {NULL, 0};
    /* Any other io has no contents to show. */
    if (io == NULL || io->ops != &mem_writer_ops)
        return s;
    const mem_writer *w = (const mem_writer *)io;
    s.data = w->buf.data;
    s.len = w->buf.len;
    return s;
}

/* Shared by the cfile tests: see support_mem.h. */
#include "support_mem.h"

#include <stdlib.h>
#include <string.h>

#include "test_common.h"

cf_status mem_writer_create(cf_writer **w, cf_io **io, const cf_writer_options *o, cf_error *err)
{
    *w = NULL;
    cf_status st = cf_io_create_mem(io, err);
    if (st != CF_OK) {
        *io = NULL;
        return st;
    }
    st = cf_writer_create(w, *io, o, err);
    if (st != CF_OK) {
        cf_io_free(*io);
        *io = NULL;
    }
    return st;
}

cf_status mem_file_finish(cf_writer *w, cf_io *io, cf_status st, mem_file *out, cf_error *err)
{
    if (st == CF_OK)
        st = cf_writer_finish(w, err);
    if (st == CF_OK) {
        cf_slice s = cf_io_mem_contents(io);
        out->data = malloc(s.len);
        assert_non_null(out->data);
        memcpy(out->data, s.data, s.len);
        out->len = s.len;
    }
    cf_writer_free(w);
    cf_io_free(io);
    return st;
}

cf_status write_mem(const cf_writer_options *o, const void *vals, const uint8_t *nonnull, size_t n,
                    size_t batch, mem_file *out, cf_error *err)
{
    cf_io *io;
    cf_writer *w;
    cf_status st = mem_writer_create(&w, &io, o, err);
    if (st != CF_OK)
        return st;
    size_t es = cf_type_size(o->type);
    uint8_t *bm = calloc(batch / 8 + 2, 1);
    assert_non_null(bm);
    for (size_t i = 0; i < n && st == CF_OK; i += batch) {
        size_t k = n - i < batch ? n - i : batch;
        if (nonnull) {
            memset(bm, 0, batch / 8 + 2);
            for (size_t j = 0; j < k; j++)
                if (nonnull[(i + j) / 8] >> ((i + j) % 8) & 1)
                    bm[j / 8] |= (uint8_t)(1u << (j % 8));
        }
        st = cf_writer_append(w, (const uint8_t *)vals + i * es, nonnull ? bm : NULL, k, err);
    }
    free(bm);
    return mem_file_finish(w, io, st, out, err);
}

cf_status try_open(opened *f, const mem_file *m, const cf_reader_options *ro, cf_error *err)
{
    memset(f, 0, sizeof *f);
    cf_status st = cf_io_open_mem(&f->io, m->data, m->len, err);
    if (st == CF_OK)
        st = cf_reader_open(&f->r, f->io, ro, err);
    if (st == CF_OK)
        st = cf_iter_create(&f->it, f->r, err);
    return st;
}

void open_file(opened *f, const mem_file *m)
{
    cf_error err;
    memset(f, 0, sizeof *f);
    CF_ASSERT_OK(cf_io_open_mem(&f->io, m->data, m->len, &err), &err);
    CF_ASSERT_OK(cf_reader_open(&f->r, f->io, NULL, &err), &err);
    CF_ASSERT_OK(cf_iter_create(&f->it, f->r, &err), &err);
}

void close_file(opened *f)
{
    cf_iter_free(f->it);
    cf_reader_free(f->r);
    cf_io_free(f->io);
}

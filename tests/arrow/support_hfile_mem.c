/* The Arrow tests' in-memory HFile (support_hfile_mem.h). */
/* cf-needs: hfile */
#include "support_hfile_mem.h"

#include "test_common.h"

void hfile_mem_open(hfile_mem *m, const cf_hfile_cell *cells, size_t n, uint32_t block_size)
{
    cf_error err;
    CF_ASSERT_OK(cf_io_create_mem(&m->io, &err), &err);
    cf_hfile_writer_options wo;
    cf_hfile_writer_options_init(&wo);
    if (block_size != 0)
        wo.block_size = block_size;
    cf_hfile_writer *w;
    CF_ASSERT_OK(cf_hfile_writer_create(&w, m->io, &wo, &err), &err);
    for (size_t i = 0; i < n; i++)
        CF_ASSERT_OK(cf_hfile_writer_append(w, &cells[i], &err), &err);
    CF_ASSERT_OK(cf_hfile_writer_finish(w, &err), &err);
    cf_hfile_writer_free(w);
    cf_slice bytes = cf_io_mem_contents(m->io);
    CF_ASSERT_OK(cf_io_open_mem(&m->rio, bytes.data, bytes.len, &err), &err);
    CF_ASSERT_OK(cf_hfile_open(&m->h, m->rio, NULL, &err), &err);
}

void hfile_mem_close(hfile_mem *m)
{
    cf_hfile_free(m->h);
    cf_io_free(m->rio);
    cf_io_free(m->io);
}

/* An HFile written in memory and opened again, for the Arrow tests of HFiles. */
#ifndef CF_TEST_SUPPORT_HFILE_MEM_H
#define CF_TEST_SUPPORT_HFILE_MEM_H

#include <stddef.h>
#include <stdint.h>

#include <cfile/hfile.h>
#include <cfile/io.h>

typedef struct hfile_mem {
    cf_io *io;  /* what the writer wrote */
    cf_io *rio; /* the reader's view of its bytes */
    cf_hfile *h;
} hfile_mem;

/* Write cells[0..n) (in key order) with data blocks of block_size bytes (0: the
 * writer's default), then open the result in m->h; failures fail the test. */
void hfile_mem_open(hfile_mem *m, const cf_hfile_cell *cells, size_t n, uint32_t block_size);
void hfile_mem_close(hfile_mem *m);

#endif

/* What every cf_io shares: freeing through the vtable. The implementations live
 * in io_posix.c (pread reader, atomic file writer), io_mmap.c and io_mem.c. */
#include <cfile/io.h>

void cf_io_free(cf_io *io)
{
    if (io == NULL)
        return;
    if (io->ops != NULL && io->ops->free != NULL)
        io->ops->free(io);
}

/* Shared by the cfile tests: see support_opts.h. */
#include "support_opts.h"

cf_writer_options col_options(col_opts s)
{
    cf_writer_options o;
    cf_writer_options_init(&o, s.type);
    o.encoding = s.enc;
    o.compression = s.comp;
    o.nullable = s.nullable;
    o.is_array = s.is_array;
    o.write_validx = s.validx;
    o.checksums = !s.no_checksums;
    if (s.block_size != 0)
        o.block_size = s.block_size;
    if (s.index_block_size != 0)
        o.index_block_size = s.index_block_size;
    return o;
}

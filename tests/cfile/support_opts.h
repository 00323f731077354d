/* Shared by the cfile tests: writer options built from one literal naming only
 * the fields a test varies (col_opts), instead of _init and a line per field. */
#ifndef CF_TEST_SUPPORT_OPTS_H
#define CF_TEST_SUPPORT_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include <cfile/cfile.h>

/* A zero field keeps cf_writer_options_init's default: AUTO encoding, DEFAULT
 * compression (none), not nullable, no arrays, no value index, checksums on,
 * the default block and index block sizes. */
typedef struct col_opts {
    cf_type type;
    cf_encoding enc;
    cf_compression comp;
    bool nullable;
    bool is_array;
    bool validx;
    bool no_checksums;
    uint32_t block_size;
    uint32_t index_block_size;
} col_opts;

/* cf_writer_options_init(type), then every field s sets. */
cf_writer_options col_options(col_opts s);

#endif

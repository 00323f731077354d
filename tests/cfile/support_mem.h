/* Shared by the cfile tests: CFiles written to and read from memory. A writer's
 * bytes copied out (mem_file, freed by the caller with free(f.data)), values
 * written in calls of a given number of rows, and a file opened as io + reader
 * + iterator (opened). */
#ifndef CF_TEST_SUPPORT_MEM_H
#define CF_TEST_SUPPORT_MEM_H

#include <stddef.h>
#include <stdint.h>

#include <cfile/cfile.h>

typedef struct mem_file {
    uint8_t *data;
    size_t len;
} mem_file;

/* A writer with options o on a fresh memory io; on a failure nothing is left
 * to free (*w and *io NULL). */
cf_status mem_writer_create(cf_writer **w, cf_io **io, const cf_writer_options *o, cf_error *err);

/* The end of a write to memory: when st is CF_OK, finish w and copy io's bytes
 * into *out; then free w and io. Returns the first failure (st if it is one). */
cf_status mem_file_finish(cf_writer *w, cf_io *io, cf_status st, mem_file *out, cf_error *err);

/* Write n values (row-aligned; nonnull may be NULL) in calls of `batch` rows. */
cf_status write_mem(const cf_writer_options *o, const void *vals, const uint8_t *nonnull, size_t n,
                    size_t batch, mem_file *out, cf_error *err);

typedef struct opened {
    cf_io *io;
    cf_reader *r;
    cf_iter *it;
} opened;

/* Open m with reader options ro (NULL: defaults); what was opened before a
 * failure is in *f for close_file. */
cf_status try_open(opened *f, const mem_file *m, const cf_reader_options *ro, cf_error *err);
/* The same with defaults, asserting it opens. */
void open_file(opened *f, const mem_file *m);
void close_file(opened *f);

#endif

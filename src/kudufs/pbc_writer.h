/* Internal: writing Kudu's protobuf containers (util/pb_util.cc's
 * WritablePBContainerFile), for tests that build a server's directories and for
 * moving data into Kudu's formats. The reader is pbc.c (kudu.h, cf_kudu_pbc_*).
 *
 * Call order: create (append | append_msg)* finish? free. A writer borrows its io
 * (REQUIRES: the io outlives it); finish commits the io. The first failure is
 * sticky. One thread at a time.
 *
 * What Kudu's reader checks of what this writes (pb_util.cc, ParsePBFileHeader,
 * ReadSupplementalHeader, ReadPBStartingAt) and what the bytes are:
 *   "kuducntr" | version (le32) | v2: crc32c(magic, version) (le32)
 *   record*, the first the supplemental header (ContainerSupHeaderPB: the
 *   FileDescriptorSet `protos`, then `pb_type`), each
 *     v1: length (le32) | message | crc32c(length, message) (le32)
 *     v2: length (le32) | crc32c(length) (le32) | message | crc32c(message) (le32)
 * Kudu writes the supplemental header in both versions.
 */
#ifndef CF_KUDU_PBC_WRITER_H
#define CF_KUDU_PBC_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include <cfile/io.h>
#include <cfile/status.h>

#include "util/buf.h"

typedef struct cf_kudu_pbc_writer cf_kudu_pbc_writer;

/* Start a container of `version` (1 or 2, else CF_EINVAL) whose records are
 * `pb_type` (a full name), with `protos` (protos_len bytes, a serialized
 * FileDescriptorSet, copied) in its supplemental header. Writes the file header
 * and the supplemental header to `io` (a writer io). */
cf_status cf_kudu_pbc_writer_create_raw(cf_kudu_pbc_writer **out, cf_io *io, uint32_t version,
                                        const char *pb_type, const void *protos, size_t protos_len,
                                        cf_error *err);
/* The same for records of the protobuf-c type `type`: pb_type is its full name and
 * protos the set cf_kudu_pb_descriptor_set builds for it. */
cf_status cf_kudu_pbc_writer_create(cf_kudu_pbc_writer **out, cf_io *io, uint32_t version,
                                    const ProtobufCMessageDescriptor *type, cf_error *err);
/* One record of `len` message bytes (not checked to parse as the type). */
cf_status cf_kudu_pbc_writer_append(cf_kudu_pbc_writer *w, const void *msg, size_t len,
                                    cf_error *err);
/* One record: `m` serialized (fields in number order, as protobuf's C++ writes). */
cf_status cf_kudu_pbc_writer_append_msg(cf_kudu_pbc_writer *w, const ProtobufCMessage *m,
                                        cf_error *err);
/* Commit the io. */
cf_status cf_kudu_pbc_writer_finish(cf_kudu_pbc_writer *w, cf_error *err);
void cf_kudu_pbc_writer_free(cf_kudu_pbc_writer *w); /* NULL is a no-op */

/* A whole version 2 container at `path` holding the one message `m`, as Kudu's
 * WritePBContainerToPath writes superblocks, consensus metadata and instance files
 * (created atomically; the file's mode is 0600 as under Kudu's umask). */
cf_status cf_kudu_pbc_write_file(const char *path, const ProtobufCMessage *m, cf_error *err);

/* Append to `out` a FileDescriptorSet describing `type` and every type it reaches
 * (pb_descriptor.c says how it is laid out). CF_ENOMEM; CF_ENOTSUP when the type
 * reaches more types than the builder keeps. */
cf_status cf_kudu_pb_descriptor_set(cf_buf *out, const ProtobufCMessageDescriptor *type,
                                    cf_error *err);

#endif

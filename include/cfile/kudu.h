/* cfile: a stopped Apache Kudu tablet server's own directories, read as Kudu reads
 * them and never written: protobuf containers, the block managers (log and file),
 * tablet superblocks and consensus metadata, the write-ahead log, and tablets as
 * rows. docs/KUDU-ON-DISK.md says which Kudu source each structure comes from.
 *
 * Call order:
 *   containers:  cf_kudu_pbc_open_file (cf_kudu_pbc_next)* cf_kudu_pbc_free
 *   a server:    cf_kudu_fs_open (block | container | problem | tablet getters)*
 *                (cf_kudu_tablet_open ... cf_kudu_tablet_free)*
 *                (cf_kudu_wal_open ... cf_kudu_wal_free)* cf_kudu_fs_free
 *
 * Read-only: nothing here opens a file for writing, creates, renames or removes a
 * file under the directories it is given, or takes Kudu's lock; files are opened
 * O_RDONLY | O_NOFOLLOW where Kudu's own files are expected.
 *
 * Ownership: every handle has a _free that accepts NULL. A tablet or WAL borrows the
 * fs it was opened from (REQUIRES: the fs outlives it). Strings and arrays returned
 * by getters live as long as the handle they came from. JSON strings returned in a
 * `char **` are the caller's, freed with free().
 *
 * Threads: a handle belongs to one thread at a time; different handles (even of one
 * fs) may be used from different threads once the fs is open.
 *
 * Part of the tables module (CF_WITH_TABLES).
 */
#ifndef CFILE_KUDU_H
#define CFILE_KUDU_H

#include "version.h"
#if !CF_HAVE_TABLES
#error "kudu.h: this build of cfile has no tables module (CF_WITH_TABLES=OFF)"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io.h"
#include "rowset.h"
#include "status.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- protobuf containers (Kudu's pb_util.cc: "kuducntr", versions 1 and 2) ----------- */

typedef struct cf_kudu_pbc cf_kudu_pbc;

/* Open a container over `io` (borrowed; REQUIRES: it outlives the container). `name`
 * (copied) names the file in messages. Reads and checks the file header and, in
 * version 2, the supplemental header (its pb_type). A bad magic, unsupported version
 * or a header checksum mismatch is CF_ECORRUPT naming `name` and the offset. */
CF_API cf_status cf_kudu_pbc_open(cf_kudu_pbc **out, cf_io *io, const char *name,
                                  cf_error *err);
/* The same over a file opened read-only (the container owns that io). */
CF_API cf_status cf_kudu_pbc_open_file(cf_kudu_pbc **out, const char *path, cf_error *err);
CF_API void cf_kudu_pbc_free(cf_kudu_pbc *c); /* NULL is a no-op */
/* 1 or 2. */
CF_API uint32_t cf_kudu_pbc_version(const cf_kudu_pbc *c);
/* The message type the supplemental header names ("kudu.tablet.TabletSuperBlockPB"),
 * or NULL for a version 1 container, which does not say. */
CF_API const char *cf_kudu_pbc_type(const cf_kudu_pbc *c);
/* The next record's message bytes, valid until the next call or free; *offset is the
 * record's offset in the file. The end is *has = false. Records are checked as
 * Kudu's ReadablePBContainerFile checks them: a checksum mismatch is CF_ECORRUPT
 * naming the file and offset. An incomplete last record (the file ends inside it,
 * or, in version 2, its length and length checksum are zero: Kudu's KUDU-2260
 * preallocated tail) ends the records as well; cf_kudu_pbc_torn says so. */
CF_API cf_status cf_kudu_pbc_next(cf_kudu_pbc *c, const uint8_t **data, size_t *len,
                                  uint64_t *offset, bool *has, cf_error *err);
/* After the end: true when the records ended in an incomplete record, with the
 * offset where it starts. */
CF_API bool cf_kudu_pbc_torn(const cf_kudu_pbc *c, uint64_t *offset);

/* ---- protobuf messages as JSON ---------------------------------------------------------
 * Protobuf's JSON mapping as Kudu's `kudu pbc dump --json` and protobuf's
 * MessageToJsonString print it: original field names, only the fields present in
 * the bytes, 64-bit integers as decimal strings, bytes as base64, enums by name
 * (a number Kudu's enum does not name: the number), maps as objects. */

/* Is `type` (a full name, "kudu.tablet.TabletSuperBlockPB") a message cfile knows? */
CF_API bool cf_kudu_pb_type_known(const char *type);
/* Parse `len` bytes as `type` and print them as JSON into a new string (*json, the
 * caller's to free()). Bytes that do not parse as the type are CF_ECORRUPT; an
 * unknown type is CF_ENOTSUP. `pretty` indents by one space per level. */
CF_API cf_status cf_kudu_pb_to_json(const char *type, const void *data, size_t len, bool pretty,
                                    char **json, cf_error *err);

#ifdef __cplusplus
}
#endif

#endif /* CFILE_KUDU_H */

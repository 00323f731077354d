/* Internal: writing log block manager containers (log_block_manager.cc's
 * LogBlockContainer, as a writer of new containers), for tests that build a
 * server's directories of every shape, damaged ones included, and for moving data
 * into Kudu's formats. The reader is lbm.c.
 *
 * What is written, as Kudu writes it:
 *   <dir>/<id>.data       each block at the next multiple of the filesystem block
 *                         size after the previous one (Kudu's next_block_offset);
 *                         a deleted block's range is punched out
 *                         (fallocate PUNCH_HOLE | KEEP_SIZE), so it reads as zeros
 *   <dir>/<id>.metadata   a version 2 protobuf container (pbc_writer.c) of
 *                         kudu.BlockRecordPB: CREATE(id, offset, length,
 *                         timestamp_us) after the block's bytes, DELETE(id,
 *                         timestamp_us) after the punch
 * Both files are created with O_EXCL, mode 0600, and are never renamed: Kudu's
 * containers are appended to in place.
 *
 * Call order: create (append | delete | record | raw)* free. One thread at a time.
 * The first failure is sticky.
 */
#ifndef CF_KUDU_LBM_WRITER_H
#define CF_KUDU_LBM_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/status.h>

#include "fs_internal.h"

typedef struct cf_kudu_lbm_writer cf_kudu_lbm_writer;

/* Create the container `id` in `dir` (Kudu's <data root>/data) for a filesystem
 * block size of `fs_block_size` bytes (a power of two; 4096 on most filesystems). */
cf_status cf_kudu_lbm_writer_create(cf_kudu_lbm_writer **out, const char *dir, const char *id,
                                    uint64_t fs_block_size, cf_error *err);
void cf_kudu_lbm_writer_free(cf_kudu_lbm_writer *w); /* NULL is a no-op; closes both files */

/* Append one block's bytes at the next aligned offset and its CREATE record;
 * *offset (may be NULL) gets where it went. */
cf_status cf_kudu_lbm_writer_append(cf_kudu_lbm_writer *w, uint64_t block_id, const void *data,
                                    size_t len, uint64_t timestamp_us, uint64_t *offset,
                                    cf_error *err);
/* Punch out a block appended by this writer and write its DELETE record. A block
 * this writer did not append is CF_ENOTFOUND. */
cf_status cf_kudu_lbm_writer_delete(cf_kudu_lbm_writer *w, uint64_t block_id, uint64_t timestamp_us,
                                    cf_error *err);
/* One record exactly as given (any op number, offsets past the end, a missing
 * field): for damaged containers. Nothing is written to the data file. *at (may be
 * NULL) gets the record's offset in the metadata file. */
cf_status cf_kudu_lbm_writer_record(cf_kudu_lbm_writer *w, const cf_kudu_block_record *r,
                                    uint64_t *at, cf_error *err);
/* Raw bytes appended to the metadata file (a torn last record). */
cf_status cf_kudu_lbm_writer_raw(cf_kudu_lbm_writer *w, const void *bytes, size_t len,
                                 cf_error *err);
/* Bytes written to the metadata file so far (the next record's offset). */
uint64_t cf_kudu_lbm_writer_metadata_size(const cf_kudu_lbm_writer *w);
/* The next block offset in the data file. */
uint64_t cf_kudu_lbm_writer_next_offset(const cf_kudu_lbm_writer *w);

/* ---- instance files (instance_writer.c) --------------------------------------------------- */

/* Make `root` a Kudu root as FsManager::CreateInitialFileSystemLayout leaves it:
 * mkdir root (if missing), root/instance (InstanceMetadataPB: uuid, format_stamp,
 * and server_key when not NULL), and when `data` is set: root/data/ and
 * root/data/block_manager_instance (DirInstanceMetadataPB: dir_set {uuid,
 * all_uuids}, dir_type, filesystem_block_size_bytes); when `wal` is set the WAL
 * and metadata subdirectories (wals/, tablet-meta/, consensus-meta/). */
typedef struct cf_kudu_root_spec {
    const char *root;
    const char *server_uuid;
    const char *server_key; /* NULL: not encrypted */
    bool wal, data;
    const char *dir_uuid;         /* data only */
    const char *const *all_uuids; /* data only: the whole dir set */
    size_t nall;
    const char *dir_type; /* "log" or "file" */
    uint64_t fs_block_size;
} cf_kudu_root_spec;

cf_status cf_kudu_root_write(const cf_kudu_root_spec *spec, cf_error *err);

#endif

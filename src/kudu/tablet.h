/* Internal: tablets (tablet.c) and Kudu's SchemaPB (schema_pb.c), for the other
 * files of src/kudu (the block listing, the scanner) and for tests.
 */
#ifndef CF_KUDU_TABLET_H
#define CF_KUDU_TABLET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/kudu.h>

#include "util/buf.h"

#include "kudu_common.pb-c.h"
#include "kudu_raft.pb-c.h"
#include "kudu_tablet.pb-c.h"

/* Is `id` a tablet id as Kudu makes them (32 hex digits), so safe as a file name? */
bool cf_kudu_tablet_id_valid(const char *id);

/* cf_kudu_tablet_open over a metadata directory given by path: what the public call
 * does once it has asked the fs for it. `fs` may be NULL (then the tablet cannot
 * be scanned: tests of the superblock alone). */
cf_status cf_kudu_tablet_open_dir(cf_kudu_tablet **out, const cf_kudu_fs *fs,
                                  const char *metadata_dir, const char *tablet_id, cf_error *err);
/* The same over the bytes of a tablet-meta file (and of a consensus-meta file, or
 * NULL), named `path` in messages; the bytes are copied. For fuzzing and tests. */
cf_status cf_kudu_tablet_open_mem(cf_kudu_tablet **out, const char *tablet_id, const void *sb,
                                  size_t sb_len, const char *path, const void *cmeta,
                                  size_t cmeta_len, cf_error *err);

/* The fs the tablet came from (NULL for _open_dir/_open_mem without one). */
const cf_kudu_fs *cf_kudu_tablet_fs(const cf_kudu_tablet *t);
/* The parsed superblock, every field Kudu requires checked present. */
const Kudu__Tablet__TabletSuperBlockPB *cf_kudu_tablet_superblock(const cf_kudu_tablet *t);
/* The parsed consensus metadata, or NULL (none, or damaged: see consensus_json). */
const Kudu__Consensus__ConsensusMetadataPB *cf_kudu_tablet_consensus(const cf_kudu_tablet *t);
/* The superblock file's path. */
const char *cf_kudu_tablet_path(const cf_kudu_tablet *t);
/* The superblock file's mtime (microseconds since the epoch) as it was when the
 * tablet read it; false for a tablet opened from memory (_open_mem). */
bool cf_kudu_tablet_sb_mtime(const cf_kudu_tablet *t, int64_t *us);

/* ---- SchemaPB (schema_pb.c) ---- */

/* Kudu's SchemaPB as a cf_schema (columns in the same order) and each column's Kudu
 * id into *ids (cf_malloc'd, the caller frees). Checked as Kudu's
 * ColumnSchemaBuilderFromPB and ColumnPBsToSchema check (common/wire_protocol.cc),
 * plus the id every column of a superblock has: a missing field or a value outside
 * Kudu's enums is CF_ECORRUPT naming `file`, the column and the field; a type cfile
 * does not read (IS_DELETED, arrays of arrays) is CF_ENOTSUP. */
cf_status cf_kudu_schema_from_pb(cf_schema **out, uint32_t **ids, const Kudu__SchemaPB *pb,
                                 const char *file, cf_error *err);

/* A SchemaPB built from a cf_schema, for writers: points into itself and into
 * the schema (names), so both must outlive its use. */
typedef struct cf_kudu_schema_pb {
    Kudu__SchemaPB pb;
    Kudu__ColumnSchemaPB *cols;
    Kudu__ColumnSchemaPB **colp;
    Kudu__ColumnTypeAttributesPB *attrs;
    Kudu__NestedDataTypePB *nested;
    Kudu__NestedDataTypePB__ArrayTypeDescriptor *arrays;
} cf_kudu_schema_pb;

/* ids: each column's Kudu id, or NULL for 0, 1, 2, ... (as Kudu numbers a new
 * table's columns). */
cf_status cf_kudu_schema_pb_build(cf_kudu_schema_pb *out, const cf_schema *s, const uint32_t *ids,
                                  cf_error *err);
void cf_kudu_schema_pb_dispose(cf_kudu_schema_pb *p);

/* ---- writing a superblock (superblock_writer.c) ---- */

#define CF_KUDU_SUPERBLOCK_SPEC_VERSION 1

/* A tablet's superblock in cfile's terms; every pointer is borrowed. */
typedef struct cf_kudu_superblock_spec {
    uint32_t version;       /* set by _init */
    const char *tablet_id;  /* 32 hex digits (required) */
    const char *table_id;   /* required */
    const char *table_name; /* required */
    const cf_schema *schema;
    const uint32_t *column_ids; /* Kudu's id of each schema column; NULL = 0, 1, 2, ... */
    uint32_t schema_version;
    int64_t last_durable_mrs_id;
    const cf_kudu_rowset *rowsets; /* as cf_kudu_tablet_rowset_at gives them */
    size_t nrowsets;
    int data_state;                    /* TabletDataState number; _init: TABLET_DATA_READY */
    const char *const *data_dir_uuids; /* the tablet's data dir group, may be empty */
    size_t ndata_dir_uuids;
    bool supports_live_row_count; /* _init: true */
    /* the partition: its two keys (hash buckets, then the encoded range key);
     * _init: both empty, one unbounded range */
    const uint8_t *partition_key_start, *partition_key_end;
    size_t partition_key_start_len, partition_key_end_len;
    /* the multi-row transactions it records (txn_metadata) and the table's extra
     * config (history_max_age_sec, ...): Kudu's messages as they are; none by default */
    Kudu__Tablet__TxnMetadataEntry *const *txns;
    size_t ntxns;
    Kudu__TableExtraConfigPB *extra_config;
} cf_kudu_superblock_spec;

void cf_kudu_superblock_spec_init(cf_kudu_superblock_spec *spec);
/* The TabletSuperBlockPB message's bytes appended to out. CF_EINVAL names a bad
 * field of spec. */
cf_status cf_kudu_superblock_pack(cf_buf *out, const cf_kudu_superblock_spec *spec, cf_error *err);
/* A superblock file at `path` (a version 2 container, created atomically). */
cf_status cf_kudu_superblock_write(const char *path, const cf_kudu_superblock_spec *spec,
                                   cf_error *err);

/* Kudu's name of a DataType number ("INT64", "NESTED"), or NULL. */
const char *cf_kudu_data_type_name(int t);

#endif

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
 * fs) may be used from different threads once the fs is open. (The block readers
 * an fs keeps for its tablets' scans, cf_kudu_fs_options.reader_cache, are behind a
 * lock: a reader is used by one scan at a time.)
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
 * (copied) names the file in messages. Reads and checks the file header and the
 * supplemental header (its pb_type). A bad magic, a header checksum mismatch or a
 * supplemental header that is incomplete or does not parse is CF_ECORRUPT naming
 * `name` and the offset; a version other than 1 and 2 is CF_ENOTSUP. */
CF_API cf_status cf_kudu_pbc_open(cf_kudu_pbc **out, cf_io *io, const char *name, cf_error *err);
/* The same over a file opened read-only (the container owns that io). */
CF_API cf_status cf_kudu_pbc_open_file(cf_kudu_pbc **out, const char *path, cf_error *err);
CF_API void cf_kudu_pbc_free(cf_kudu_pbc *c); /* NULL is a no-op */
/* 1 or 2. */
CF_API uint32_t cf_kudu_pbc_version(const cf_kudu_pbc *c);
/* The message type the supplemental header names ("kudu.tablet.TabletSuperBlockPB");
 * both versions have one. */
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

/* ---- a server's directories (fs_manager.cc, dir_manager.cc) ------------------------------ */

typedef struct cf_kudu_fs cf_kudu_fs;

#define CF_KUDU_FS_OPTIONS_VERSION 2

/* cf_kudu_fs_options.reader_cache: keep no block reader between scans. */
#define CF_KUDU_READER_CACHE_OFF SIZE_MAX

/* The directories as Kudu's flags name them. */
typedef struct cf_kudu_fs_options {
    uint32_t version;             /* set by _init */
    const char *wal_dir;          /* --fs_wal_dir: required */
    const char *metadata_dir;     /* --fs_metadata_dir: NULL = wal_dir */
    const char *const *data_dirs; /* --fs_data_dirs, in the order given: NULL = wal_dir */
    size_t ndata_dirs;
    /* Kudu's --log_container_max_size, which is not kept on disk: a container whose
     * next block offset reaches it is full. 0 = Kudu's default, 10 GiB. */
    uint64_t log_container_max_size;
    /* (version 2) Block readers the fs keeps open between scans, shared by its
     * tablets, so scanning a tablet again (or another tablet of a table, as an export
     * of every tablet does) reuses each block's open file or mapping, footer and
     * dictionary instead of opening the block again. A reader is kept only while no
     * scan uses it; past the bound the least recently used is closed. The bound is
     * this, but never more than 40% of the soft RLIMIT_NOFILE at the time a reader
     * is given back (as Kudu sizes its file cache) nor 8192: 0 = that limit;
     * CF_KUDU_READER_CACHE_OFF = keep none (every scan opens its blocks). Each kept
     * reader holds one descriptor (or mapping) and its block's footer, index root
     * and dictionary. When opening a block runs out of descriptors, the kept readers
     * are closed and the open tried again. */
    size_t reader_cache;
} cf_kudu_fs_options;

CF_API void cf_kudu_fs_options_init(cf_kudu_fs_options *opts);

/* Open a stopped server's directories read-only: every instance file is read and
 * checked as Kudu's FsManager checks them (one server uuid, every data dir named in
 * the dir set present), and the block manager's containers or block tree are
 * loaded. Refusals: a directory that is not Kudu's, directories of different
 * servers, a data dir missing from the set (CF_ECORRUPT, naming the directory and
 * what is wrong); an encrypted server (server_key present): CF_ENOTSUP, "encrypted,
 * not supported". Damage inside one container does not fail the open: it is kept as
 * a problem (cf_kudu_fs_problem_at) and the rest is loaded. */
CF_API cf_status cf_kudu_fs_open(cf_kudu_fs **out, const cf_kudu_fs_options *opts, cf_error *err);
CF_API void cf_kudu_fs_free(cf_kudu_fs *fs); /* NULL is a no-op */

typedef enum cf_kudu_block_manager {
    CF_KUDU_BM_LOG = 1, /* log block manager: <id>.data + <id>.metadata containers */
    CF_KUDU_BM_FILE = 2 /* file block manager: one file per block in a hashed tree */
} cf_kudu_block_manager;

CF_API cf_kudu_block_manager cf_kudu_fs_block_manager(const cf_kudu_fs *fs);
/* The server's uuid as Kudu prints it (32 hex digits). */
CF_API const char *cf_kudu_fs_uuid(const cf_kudu_fs *fs);
CF_API const char *cf_kudu_fs_wal_dir(const cf_kudu_fs *fs);
CF_API const char *cf_kudu_fs_metadata_dir(const cf_kudu_fs *fs);
CF_API size_t cf_kudu_fs_data_dir_count(const cf_kudu_fs *fs);
CF_API const char *cf_kudu_fs_data_dir_at(const cf_kudu_fs *fs, size_t i); /* as given */
/* True when a running server holds the lock on an instance file (reported, never
 * taken or fought: reading a live server's files may see them change). */
CF_API bool cf_kudu_fs_locked(const cf_kudu_fs *fs);

/* One live block. */
typedef struct cf_kudu_block {
    uint64_t id;
    size_t data_dir;       /* index of cf_kudu_fs_data_dir_at */
    const char *container; /* log block manager: the container id (file name less
                            * ".data"); file block manager: NULL */
    uint64_t offset;       /* in the container's data file; 0 for the file manager */
    uint64_t length;
    const char *path; /* the file that holds the bytes */
} cf_kudu_block;

/* Live blocks in ascending id order. */
CF_API size_t cf_kudu_fs_block_count(const cf_kudu_fs *fs);
CF_API const cf_kudu_block *cf_kudu_fs_block_at(const cf_kudu_fs *fs, size_t i);
/* NULL when no live block has that id. */
CF_API const cf_kudu_block *cf_kudu_fs_find_block(const cf_kudu_fs *fs, uint64_t id);
/* A read-only io over the block's bytes, without copying them out (a byte range of the
 * container's data file; `mmap` maps it instead of pread). The caller frees it.
 * An id that is not a live block is CF_ENOTFOUND. */
CF_API cf_status cf_kudu_fs_open_block(const cf_kudu_fs *fs, uint64_t id, bool mmap, cf_io **out,
                                       cf_error *err);

/* One record of a container's metadata file, in file order. */
typedef enum cf_kudu_record_op {
    CF_KUDU_RECORD_CREATE = 1,
    CF_KUDU_RECORD_DELETE = 2
} cf_kudu_record_op;
typedef struct cf_kudu_record {
    int op; /* cf_kudu_record_op, or the unknown number read */
    uint64_t block_id;
    uint64_t timestamp_us;
    int64_t offset, length; /* CREATE only; -1 when absent */
    uint64_t file_offset;   /* of the record in the metadata file */
} cf_kudu_record;

/* One log block manager container. */
typedef struct cf_kudu_container {
    const char *id;
    size_t data_dir;
    const char *data_path, *metadata_path;
    uint64_t data_size;  /* the data file's size in bytes */
    uint64_t live_bytes; /* the live blocks' lengths, summed */
    size_t live_blocks, deleted_blocks;
    const cf_kudu_record *records;
    size_t nrecords;
    bool full;            /* as Kudu judges it: at the size limit or out of space */
    bool dead;            /* full and every block deleted: Kudu removes it at startup */
    bool incomplete;      /* a data or metadata file missing or empty: Kudu removes it */
    bool torn_metadata;   /* the metadata ends in an incomplete record (tolerated) */
    uint64_t reclaimable; /* bytes a hole punch or the removal would give back */
} cf_kudu_container;

/* Containers (log block manager only; 0 for the file manager), by data dir then id. */
CF_API size_t cf_kudu_fs_container_count(const cf_kudu_fs *fs);
CF_API const cf_kudu_container *cf_kudu_fs_container_at(const cf_kudu_fs *fs, size_t i);

/* Damage found while loading, each naming the file and (where there is one) the byte
 * offset: checksum mismatches, blocks past a data file's end, overlapping or
 * misaligned blocks, unknown record types, unreadable files. */
typedef struct cf_kudu_problem {
    const char *path;
    bool has_offset;
    uint64_t offset;
    const char *what;
} cf_kudu_problem;

CF_API size_t cf_kudu_fs_problem_count(const cf_kudu_fs *fs);
CF_API const cf_kudu_problem *cf_kudu_fs_problem_at(const cf_kudu_fs *fs, size_t i);

/* The tablet ids with a superblock in <metadata dir>/tablet-meta/, sorted. */
CF_API size_t cf_kudu_fs_tablet_count(const cf_kudu_fs *fs);
CF_API const char *cf_kudu_fs_tablet_at(const cf_kudu_fs *fs, size_t i);

/* ---- tablets: the superblock and consensus metadata (tablet/metadata.proto) -------------- */

typedef struct cf_kudu_tablet cf_kudu_tablet;

/* Read tablet-meta/<tablet_id> (and consensus-meta/<tablet_id> when present). A
 * tablet id not on this server is CF_ENOTFOUND; a superblock that does not parse or
 * lacks a field Kudu requires is CF_ECORRUPT naming the file and the field. */
CF_API cf_status cf_kudu_tablet_open(cf_kudu_tablet **out, const cf_kudu_fs *fs,
                                     const char *tablet_id, cf_error *err);
CF_API void cf_kudu_tablet_free(cf_kudu_tablet *t); /* NULL is a no-op */

CF_API const char *cf_kudu_tablet_id(const cf_kudu_tablet *t);
CF_API const char *cf_kudu_tablet_table_id(const cf_kudu_tablet *t);
CF_API const char *cf_kudu_tablet_table_name(const cf_kudu_tablet *t);
/* TabletDataState by Kudu's name ("TABLET_DATA_READY"). */
CF_API const char *cf_kudu_tablet_data_state(const cf_kudu_tablet *t);
CF_API int64_t cf_kudu_tablet_last_durable_mrs_id(const cf_kudu_tablet *t);
/* The schema in cfile's terms (names, types, nullability, key, encodings,
 * compression, block size); arrays for NESTED array columns. */
CF_API const cf_schema *cf_kudu_tablet_schema(const cf_kudu_tablet *t);
/* Kudu's column id of schema column i. */
CF_API uint32_t cf_kudu_tablet_column_id(const cf_kudu_tablet *t, size_t i);
/* The superblock / consensus metadata as protobuf JSON (see cf_kudu_pb_to_json);
 * the consensus metadata is CF_ENOTFOUND when the tablet has none. */
CF_API cf_status cf_kudu_tablet_superblock_json(const cf_kudu_tablet *t, bool pretty, char **json,
                                                cf_error *err);
CF_API cf_status cf_kudu_tablet_consensus_json(const cf_kudu_tablet *t, bool pretty, char **json,
                                               cf_error *err);

/* What a block is to its tablet. */
typedef enum cf_kudu_block_kind {
    CF_KUDU_BLOCK_ORPHAN = 0, /* live, but no superblock names it */
    CF_KUDU_BLOCK_COLUMN,
    CF_KUDU_BLOCK_BLOOM,
    CF_KUDU_BLOCK_ADHOC_INDEX,
    CF_KUDU_BLOCK_UNDO,
    CF_KUDU_BLOCK_REDO
} cf_kudu_block_kind;

/* "column", "bloom", "adhoc_index", "undo", "redo", "orphan". */
CF_API const char *cf_kudu_block_kind_name(cf_kudu_block_kind k);

/* One DiskRowSet of the superblock. */
typedef struct cf_kudu_rowset {
    uint64_t id;
    int64_t last_durable_dms_id;
    size_t ncolumns;
    const uint64_t *column_blocks; /* ncolumns block ids */
    const uint32_t *column_ids;    /* their Kudu column ids */
    size_t nredo, nundo;
    const uint64_t *redo_blocks, *undo_blocks;
    bool has_bloom, has_adhoc_index;
    uint64_t bloom_block, adhoc_index_block;
    const uint8_t *min_key, *max_key; /* encoded keys, NULL when absent */
    size_t min_key_len, max_key_len;
    bool has_live_row_count;
    int64_t live_row_count;
} cf_kudu_rowset;

CF_API size_t cf_kudu_tablet_rowset_count(const cf_kudu_tablet *t);
CF_API const cf_kudu_rowset *cf_kudu_tablet_rowset_at(const cf_kudu_tablet *t, size_t i);

/* ---- the write-ahead log (consensus/log_util.cc, log_reader.cc) ---------------------------- */

typedef struct cf_kudu_wal cf_kudu_wal;

/* The segments of wals/<tablet_id>/ in sequence order, each read and checked as
 * Kudu's ReadableLogSegment reads it. When wals/<tablet_id>.recovery/ exists (a
 * bootstrap was interrupted), its segments are read instead, as Kudu's
 * TabletBootstrap::PrepareRecoveryDir replays from there and discards
 * wals/<tablet_id>/ (cf_kudu_wal_from_recovery says so). A last segment without a footer, or ending
 * in a torn entry, is read up to its last complete entry and says so; damage anywhere else is
 * CF_ECORRUPT naming the segment file and offset. */
CF_API cf_status cf_kudu_wal_open(cf_kudu_wal **out, const cf_kudu_fs *fs, const char *tablet_id,
                                  cf_error *err);
CF_API void cf_kudu_wal_free(cf_kudu_wal *w); /* NULL is a no-op */

typedef struct cf_kudu_wal_segment {
    const char *file; /* "wal-000000004" */
    const char *path;
    uint64_t size;
    uint64_t sequence_number;
    uint64_t first_entry_offset;
    bool has_footer;
    bool torn_tail;      /* read up to the last complete entry */
    uint64_t end_offset; /* just past the last complete entry batch */
    size_t nentries;
} cf_kudu_wal_segment;

/* Whether the segments came from wals/<tablet_id>.recovery/. */
CF_API bool cf_kudu_wal_from_recovery(const cf_kudu_wal *w);
CF_API size_t cf_kudu_wal_segment_count(const cf_kudu_wal *w);
CF_API const cf_kudu_wal_segment *cf_kudu_wal_segment_at(const cf_kudu_wal *w, size_t i);
/* Header and footer (NULL *json and CF_OK when there is no footer) as protobuf JSON. */
CF_API cf_status cf_kudu_wal_segment_json(const cf_kudu_wal *w, size_t seg, bool footer,
                                          bool pretty, char **json, cf_error *err);

typedef enum cf_kudu_entry_type {
    CF_KUDU_ENTRY_REPLICATE = 1,
    CF_KUDU_ENTRY_COMMIT = 2,
    CF_KUDU_ENTRY_FLUSH_MARKER = 999
} cf_kudu_entry_type;

/* Kudu's RowOperationsPB.Type numbers. */
typedef enum cf_kudu_row_op_type {
    CF_KUDU_OP_INSERT = 1,
    CF_KUDU_OP_UPDATE = 2,
    CF_KUDU_OP_DELETE = 3,
    CF_KUDU_OP_SPLIT_ROW = 4,
    CF_KUDU_OP_UPSERT = 5,
    CF_KUDU_OP_RANGE_LOWER_BOUND = 6,
    CF_KUDU_OP_RANGE_UPPER_BOUND = 7,
    CF_KUDU_OP_EXCLUSIVE_RANGE_LOWER_BOUND = 8,
    CF_KUDU_OP_INCLUSIVE_RANGE_UPPER_BOUND = 9,
    CF_KUDU_OP_INSERT_IGNORE = 10,
    CF_KUDU_OP_UPDATE_IGNORE = 11,
    CF_KUDU_OP_DELETE_IGNORE = 12,
    CF_KUDU_OP_UPSERT_IGNORE = 13
} cf_kudu_row_op_type;

CF_API const char *cf_kudu_row_op_name(cf_kudu_row_op_type t); /* "INSERT", ... */

/* One decoded row operation: for each column of the schema it was decoded with,
 * whether the op sets it and, if so, its value in memory form (types.h: cf_slice for
 * binary types, 1 byte for BOOL, 16 for INT128, cf_array_cell for array columns) or
 * NULL for a NULL. */
typedef struct cf_kudu_row_op {
    cf_kudu_row_op_type type;
    size_t ncols;
    const bool *set;
    const void *const *values;
    /* Kudu's decoder would give this op a row error (a NULL key or a NULL for a NOT
     * NULL column, a DELETE with non-key values, more array elements than
     * --array_cell_max_elem_num): its COMMIT says failed; an op applied without one
     * (an orphaned REPLICATE Raft commits at startup) fails again. */
    bool failed;
} cf_kudu_row_op;

/* Where one row op of a COMMIT went (tablet.proto's MemStoreTargetPB); -1 = absent.
 * rs_txn_id: the MemRowSet of that multi-row transaction. */
typedef struct cf_kudu_mem_store {
    int64_t mrs_id, rs_id, dms_id;
    int64_t rs_txn_id;
} cf_kudu_mem_store;

typedef struct cf_kudu_op_result {
    bool failed; /* failed_status present */
    bool skip_on_replay;
    size_t nstores;
    const cf_kudu_mem_store *stores;
} cf_kudu_op_result;

/* One log entry. REPLICATE: op id, hybrid timestamp, op type (consensus.proto's
 * OperationType number) and, for WRITE_OP, its row operations decoded with the
 * schema in force when it was written: the segment header's, or that of the last
 * ALTER_SCHEMA_OP before it in the segment that did not fail (a later REPLICATE of
 * the same index undoes it, as a new leader's ops do). COMMIT: the committed op id
 * and per row op result. */
typedef struct cf_kudu_wal_entry {
    cf_kudu_entry_type type;
    size_t segment;
    uint64_t offset; /* of its entry batch in the segment */
    int64_t term, index;
    uint64_t timestamp;
    int op_type;
    const cf_schema *schema; /* what ops were decoded with (REPLICATE WRITE_OP) */
    size_t nops;
    const cf_kudu_row_op *ops;
    size_t nresults;
    const cf_kudu_op_result *results;
    const uint32_t *schema_ids; /* Kudu's column id of each column of `schema` */
    /* WRITE_OP: WriteRequestPB.txn_id (a multi-row transaction's write); PARTICIPANT_OP:
     * its ParticipantOpPB's txn_id and type (BEGIN_TXN 1 ... ABORT_TXN 4). */
    bool has_txn_id;
    int64_t txn_id;
    int participant_op;
    /* ALTER_SCHEMA_OP: AlterSchemaRequestPB.schema_version (-1 when absent). */
    int64_t alter_schema_version;
} cf_kudu_wal_entry;

/* The entries of segment `seg` in file order; pointers live until the WAL is freed. */
CF_API const cf_kudu_wal_entry *cf_kudu_wal_entry_at(const cf_kudu_wal *w, size_t seg, size_t i);
/* Entry i of segment seg as protobuf JSON (LogEntryPB). */
CF_API cf_status cf_kudu_wal_entry_json(const cf_kudu_wal *w, size_t seg, size_t i, bool pretty,
                                        char **json, cf_error *err);

/* ---- tablets as rows ------------------------------------------------------------------------ */

#define CF_KUDU_SCAN_OPTIONS_VERSION 1

typedef struct cf_kudu_scan_options {
    uint32_t version; /* set by _init */
    /* The snapshot: CF_SNAPSHOT_LATEST (default) reads every REDO delta and the WAL;
     * a hybrid time reads the rows as of it (UNDO deltas applied), within the history
     * the tablet retains. */
    uint64_t as_of;
    bool no_wal;        /* the DiskRowSets alone (no WAL replay) */
    const size_t *cols; /* projection: schema positions; NULL = all */
    size_t ncols;
    const cf_pred *preds; /* ANDed, as cf_scan_options' */
    size_t npreds;
    size_t batch_rows; /* default 1024 */
    /* Read the blocks through mmap instead of pread (default false). Faster on a warm
     * page cache, but a block file truncated underneath or a media error on a page
     * the kernel must fetch arrives as SIGBUS (the process dies) where pread returns
     * CF_EIO: the caveat of cf_io_open_mmap. Leave it off on a failing disk, which is
     * where a stopped server's tablets are often read from (docs/PERFORMANCE.md,
     * "Why pread stays the default"). */
    bool mmap;
    /* The server's --tablet_history_max_age_sec (default Kudu's, 604800; negative:
     * history GC was off). An as_of before the tablet's ancient history mark (the
     * superblock's last write minus the table's own history_max_age_sec, else this)
     * is refused with CF_EINVAL, as Kudu refuses it: history before it may be gone. */
    int64_t history_max_age_sec;
} cf_kudu_scan_options;

CF_API void cf_kudu_scan_options_init(cf_kudu_scan_options *opts);

typedef struct cf_kudu_scanner cf_kudu_scanner;

/* The tablet's rows in primary key order, as Kudu would answer a scan after a
 * restart: every DiskRowSet with its deltas at the snapshot, plus the WAL's
 * operations the superblock does not cover yet (decided op by op as Kudu's tablet
 * bootstrap decides, replayed in memory). Borrows the tablet and fs. */
CF_API cf_status cf_kudu_scanner_create(cf_kudu_scanner **out, const cf_kudu_tablet *t,
                                        const cf_kudu_scan_options *opts, cf_error *err);
/* Batches as cf_table_scanner_next gives them (projected columns; ords unused). */
CF_API cf_status cf_kudu_scanner_next(cf_kudu_scanner *sc, cf_row_batch *out, cf_error *err);
CF_API void cf_kudu_scanner_free(cf_kudu_scanner *sc); /* NULL is a no-op */
/* How many REPLICATEs of the WAL have no COMMIT and lie past the log's highest
 * committed index (their indexes in *first, *last, which may be NULL): Raft
 * decides them when the server rejoins its peers, so a restarted tablet does not
 * hold them and neither does the scan. 0 with no_wal. */
CF_API size_t cf_kudu_scanner_wal_pending(const cf_kudu_scanner *sc, int64_t *first, int64_t *last);

/* ---- a table across several servers: its tablets' replicas (replica.c) ------------------------
 *
 * A Kudu table's tablets are spread over tablet servers, each tablet held by several
 * replicas (one per server). Given several stopped servers, find every replica of
 * one table (or one tablet), and for each tablet take the replica Kudu would count
 * as the most recent:
 *   1. only a TABLET_DATA_READY replica is ever taken: TOMBSTONED and DELETED ones
 *      hold no data, and a COPYING one is a tablet copy that did not finish, which
 *      Kudu tombstones when the server starts (tserver/ts_tablet_manager.cc,
 *      HandleNonReadyTabletOnStartup);
 *   2. the largest last op id (term, then index) in its WAL: the order Raft ranks
 *      logs by, a replica voting only for a candidate whose last logged op id is at
 *      least its own (consensus/raft_consensus.cc, RequestVote), so the longest log
 *      of the latest term holds every committed op;
 *   3. then the larger current_term of its consensus metadata;
 *   4. then the server given first.
 * A replica that cannot be judged (its superblock, consensus metadata or WAL does
 * not read) fails the search unless skip_damaged, so a damaged newer replica never
 * silently gives way to an older one; a tablet's only READY replica needs no
 * judging and is taken (its problem kept). Tablets come in partition key order
 * (the superblock's partition_key_start, then the tablet id). */

typedef struct cf_kudu_replicas cf_kudu_replicas;

/* One replica found: a superblock of the table on one server. */
typedef struct cf_kudu_replica {
    const char *tablet_id;
    size_t server; /* index into the servers given */
    const char *table_id, *table_name;
    const char *data_state;        /* "TABLET_DATA_READY", ...; NULL when unreadable */
    int64_t current_term;          /* the consensus metadata's; -1 when unknown */
    int64_t last_term, last_index; /* the WAL's last REPLICATE op id; 0.0 when none */
    const uint8_t *partition_key_start, *partition_key_end;
    size_t partition_key_start_len, partition_key_end_len;
    bool chosen;         /* its tablet is read from this replica */
    const char *problem; /* NULL, or why it cannot be judged (naming the file) */
} cf_kudu_replica;

#define CF_KUDU_REPLICAS_OPTIONS_VERSION 1

typedef struct cf_kudu_replicas_options {
    uint32_t version;       /* set by _init */
    const char *table_name; /* the table by name, */
    const char *table_id;   /* or by id (one at least, unless tablet_id is given) */
    const char *tablet_id;  /* one tablet only; NULL = every tablet of the table */
    bool skip_damaged;      /* pass over a replica that cannot be judged (kept with
                             * its problem) instead of failing */
} cf_kudu_replicas_options;

CF_API void cf_kudu_replicas_options_init(cf_kudu_replicas_options *opts);
/* Find the replicas on servers[0..nservers) (each fs must outlive the result) and
 * choose one per tablet as above. Refusals: no replica matches (CF_ENOTFOUND); a
 * name that several tables have (CF_EINVAL, naming their ids); a tablet with no
 * replica to take (CF_ENOTFOUND, naming each replica's state); a superblock,
 * consensus metadata or WAL that does not read (CF_ECORRUPT naming the file; with
 * skip_damaged a superblock that does not read is passed over, its table unknown);
 * chosen tablets whose schemas differ (CF_EINVAL naming two tablets and the first
 * difference: names, types, nullability, key, arrays, precision, scale, length). */
CF_API cf_status cf_kudu_replicas_find(cf_kudu_replicas **out, const cf_kudu_fs *const *servers,
                                       size_t nservers, const cf_kudu_replicas_options *opts,
                                       cf_error *err);
CF_API void cf_kudu_replicas_free(cf_kudu_replicas *r); /* NULL is a no-op */
/* Every replica found (chosen or not), by tablet in partition key order, then server. */
CF_API size_t cf_kudu_replicas_count(const cf_kudu_replicas *r);
CF_API const cf_kudu_replica *cf_kudu_replicas_at(const cf_kudu_replicas *r, size_t i);
/* The tablets in partition key order: the chosen replica of each and its tablet,
 * opened on its server (scan it with cf_kudu_scanner_create). */
CF_API size_t cf_kudu_replicas_tablet_count(const cf_kudu_replicas *r);
CF_API const cf_kudu_replica *cf_kudu_replicas_chosen_at(const cf_kudu_replicas *r, size_t i);
CF_API const cf_kudu_tablet *cf_kudu_replicas_tablet_at(const cf_kudu_replicas *r, size_t i);
/* The schema every chosen tablet has (the first tablet's). */
CF_API const cf_schema *cf_kudu_replicas_schema(const cf_kudu_replicas *r);

#ifdef __cplusplus
}
#endif

#endif /* CFILE_KUDU_H */

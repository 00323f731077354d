/* The write-ahead log of a table (docs/ROWSET.md "Write-ahead log"). Not installed.
 *
 * DIR/wal/ holds segments `wal-<16-digit seq>.log`. Each is
 *
 *   header   "cfwalseg" | u32 version (1 or 2) | u32 field bytes (16) | u64 seq |
 *            u64 durable_ts | u32 CRC-32C of every header byte before it   (36 bytes)
 *   record*  u32 payload length | u32 CRC-32C of the payload |
 *            u32 CRC-32C of those 8 bytes | payload
 *
 * (all integers little-endian). A payload is a batch of operations:
 *
 *   u8 format (= the segment's version) | varint count | op*
 *   op = u8 type (1 insert, 2 update, 3 delete) | [format 2: u8 flags] | u64 ts |
 *        varint len | key: an UPDATE RowChangeList setting every key column |
 *        varint len | RowChangeList: REINSERT of every non-key column (insert),
 *                     UPDATE (update) or DELETE (delete)
 *
 * Flags (format 2): bit 0, CF_WAL_OP_MRS, says the op was applied to the
 * MemRowSet (an insert that made or reinserted a MemRowSet row, a mutation of
 * one); the other bits are 0. Replay uses it to skip probing the rowsets
 * (table_replay.c, replay_locate). Format 1 ops have no flags and are replayed by
 * probing, as before. A writer keeps appending in the version of the segment it
 * found; a checkpoint starts a segment of the current version.
 *
 * Values travel in the RowChangeList form the delta store already keeps
 * (src/delta/rcl.c; array cells serialized), so no new value format exists.
 *
 * A record cut short or failing its checksum at the very end of the segment is
 * a torn tail (a crash during an append that never returned success): readers
 * stop before it and a writer truncates it away. A bad record followed by a
 * valid one is damage: CF_ECORRUPT naming the segment and the offset.
 *
 * Call order of a writer: open (append | sync | checkpoint)* free.
 */
#ifndef CF_ROWSET_WAL_H
#define CF_ROWSET_WAL_H

#include "internal.h"

#define CF_WAL_DIR "wal"
#define CF_WAL_MAGIC "cfwalseg"
#define CF_WAL_VERSION 2u /* the version new segments get; 1 is still read */
#define CF_WAL_HEADER_LEN 36u
#define CF_WAL_RECORD_HEADER 12u
/* Largest payload a record may claim: a larger append is refused (CF_EINVAL),
 * a larger length read from a segment is damage. */
#define CF_WAL_MAX_RECORD (64u << 20)
/* Largest segment a reader loads (the writer checkpoints long before). */
#define CF_WAL_MAX_SEGMENT ((uint64_t)2 << 30)

typedef enum cf_wal_op_type {
    CF_WAL_INSERT = 1,
    CF_WAL_UPDATE = 2,
    CF_WAL_DELETE = 3
} cf_wal_op_type;

/* One logged operation; slices borrow from the record (or the caller). */
/* cf_wal_op.flags */
#define CF_WAL_OP_MRS 0x01u /* applied to the MemRowSet (format 2) */

typedef struct cf_wal_op {
    uint8_t type; /* cf_wal_op_type */
    uint64_t ts;
    cf_slice key;  /* UPDATE change list of the key columns */
    cf_slice rcl;  /* REINSERT (insert), UPDATE or DELETE change list */
    uint8_t flags; /* CF_WAL_OP_*; always 0 when read from a format 1 batch */
} cf_wal_op;

/* ---- payloads ------------------------------------------------------------------------------ */

/* Append the payload of a batch of n ops to b (b->oom on failure), in the
 * current format (CF_WAL_VERSION); _v in format 1 or 2 (format 1 drops flags). */
void cf_wal_batch_encode(cf_buf *b, const cf_wal_op *ops, size_t n);
void cf_wal_batch_encode_v(cf_buf *b, const cf_wal_op *ops, size_t n, uint32_t format);

/* A cursor over a batch payload. */
typedef struct cf_wal_batch {
    const uint8_t *p, *end;
    uint64_t left;  /* ops not yet read */
    uint8_t format; /* 1 or 2 */
} cf_wal_batch;

/* Check the batch header (format 1 or 2). CF_ECORRUPT for an unknown format or
 * a bad count. */
cf_status cf_wal_batch_begin(cf_wal_batch *b, cf_slice payload, cf_error *err);
/* Next op (*has = false after the last). Checks its framing and that its
 * change lists decode as the right types; not the values against a schema. */
cf_status cf_wal_batch_next(cf_wal_batch *b, cf_wal_op *op, bool *has, cf_error *err);

/* ---- segments ------------------------------------------------------------------------------ */

typedef struct cf_wal_header {
    uint64_t seq;
    uint64_t durable_ts; /* every op with ts <= this is in the rowsets' files */
    uint32_t version;    /* 1 or 2; 0 when encoding means CF_WAL_VERSION */
} cf_wal_header;

/* The 36 header bytes of a segment into dst. */
void cf_wal_header_encode(uint8_t dst[CF_WAL_HEADER_LEN], const cf_wal_header *h);
/* Parse a segment's header (name: for messages). CF_ECORRUPT when short or
 * damaged, CF_ENOTSUP for a newer version; versions 1 and 2 are read. */
cf_status cf_wal_header_parse(const uint8_t *p, size_t len, const char *name, cf_wal_header *h,
                              cf_error *err);

/* A cursor over the records of a segment held in memory. */
typedef struct cf_wal_reader {
    const uint8_t *data;
    size_t len;
    size_t off;       /* next record */
    const char *name; /* for messages */
    bool torn;        /* set once a torn tail was found at `off` */
} cf_wal_reader;

/* Start after the header (which the caller parsed). */
void cf_wal_reader_init(cf_wal_reader *r, const uint8_t *data, size_t len, const char *name);
/* The next record's payload (a view into data); *has = false at the end: the
 * clean end of the data, or a torn tail (r->torn, r->off = where it starts).
 * CF_ECORRUPT for damage. */
cf_status cf_wal_reader_next(cf_wal_reader *r, cf_slice *payload, bool *has, cf_error *err);

/* Encode one record (header + payload) onto b. */
void cf_wal_record_encode(cf_buf *b, const uint8_t *payload, size_t len);

/* ---- the directory -------------------------------------------------------------------------- */

/* "DIR/wal/wal-<seq>.log" (malloc'd, NULL when out of memory). */
char *cf_wal_segment_path(const char *table_dir, uint64_t seq);
/* Sequence numbers of the segments in DIR/wal, ascending (malloc'd *seqs, or
 * NULL when there are none). A missing wal directory is no segment. */
cf_status cf_wal_list(const char *table_dir, uint64_t **seqs, size_t *n, cf_error *err);
/* The same for the table directory held open as tdfd (dirfd.c; AT_FDCWD: by
 * path), table_dir naming it in messages; likewise the other *_at calls. */
cf_status cf_wal_list_at(int tdfd, const char *table_dir, uint64_t **seqs, size_t *n,
                         cf_error *err);
/* Does DIR/wal hold a segment with anything after its header (or one that
 * cannot be checked)? */
bool cf_wal_has_records_at(int tdfd, const char *table_dir);
/* Read a whole file into a malloc'd buffer. CF_ENOTFOUND when it does not
 * exist, CF_ECORRUPT when larger than CF_WAL_MAX_SEGMENT. */
cf_status cf_wal_read_file(const char *path, uint8_t **data, size_t *len, cf_error *err);

/* What a scan of the newest segment found. */
typedef struct cf_wal_scan {
    bool found;         /* a segment exists */
    cf_wal_header hdr;  /* of the newest segment */
    uint64_t valid_end; /* bytes of whole records (the writer truncates to this) */
    uint64_t file_len;
    size_t segments; /* how many there are (older ones: a checkpoint cut short) */
} cf_wal_scan;

/* Called for each op of the newest segment, in log order; a failure stops the
 * scan and is returned. */
typedef cf_status (*cf_wal_apply_fn)(void *ctx, const cf_wal_op *op, const char *seg, uint64_t off,
                                     cf_error *err);

/* Read the newest segment of DIR/wal and hand each op to fn (NULL: only check).
 * Older segments are not read: a checkpoint writes a new segment only after
 * every op of the older ones is in the rowsets' files (and its header says up
 * to which timestamp). CF_ENOTFOUND when the segment vanished between listing
 * and reading (a concurrent checkpoint). */
cf_status cf_wal_scan_dir(const char *table_dir, cf_wal_apply_fn fn, void *ctx, cf_wal_scan *out,
                          cf_error *err);
cf_status cf_wal_scan_dir_at(int tdfd, const char *table_dir, cf_wal_apply_fn fn, void *ctx,
                             cf_wal_scan *out, cf_error *err);

/* ---- the segment a table needs -------------------------------------------------------------
 *
 * A table's committed metadata (TABLET version 2, table_tablet.c) records the log
 * segment holding its acknowledged ops not yet in the rowsets' files, and how
 * many bytes of it were durable when that metadata was committed. Segments
 * numbered below it are retired (their ops are all in files); segments above
 * it may exist only as a checkpoint cut short, holding no acknowledged op
 * (nothing is appended to a segment before the metadata names it). */
typedef struct cf_wal_need {
    uint64_t seq;   /* 0: no record (a table written before the record existed) */
    uint64_t bytes; /* at least this many bytes of whole records (>= the header) */
} cf_wal_need;

/* Check a scan of the newest segment against the record: CF_ECORRUPT naming
 * the segment when the needed one is missing (no segment at or above it) or
 * holds fewer whole-record bytes than were durable when it was recorded
 * (truncated). A newer segment in its place is a checkpoint cut short: fine. */
cf_status cf_wal_check_need(const char *table_dir, const cf_wal_need *need, const cf_wal_scan *scan,
                            cf_error *err);

/* ---- the writer ---------------------------------------------------------------------------- */

typedef enum cf_wal_sync_mode {
    CF_WAL_SYNC_COMMIT = 0, /* fdatasync after every append */
    CF_WAL_SYNC_GROUP = 1,  /* fdatasync on cf_wal_sync, at checkpoints, and once
                             * sync_bytes have been appended since the last one */
    CF_WAL_SYNC_NONE = 2    /* never fdatasync the log (rowset files still are) */
} cf_wal_sync_mode;

typedef struct cf_wal cf_wal;

/* Open the log of table_dir for appending. With scan->found: reuse the newest
 * segment (scan->hdr.seq), truncating it to scan->valid_end when a torn tail
 * follows, and remove older segments and temporaries; appends to it are in its
 * version's format (scan->hdr.version). Without: create DIR/wal and a first
 * segment (CF_WAL_VERSION) whose durable_ts is `durable_ts`. */
cf_status cf_wal_open(cf_wal **out, const char *table_dir, const cf_wal_scan *scan,
                      uint64_t durable_ts, cf_wal_sync_mode mode, uint64_t sync_bytes,
                      cf_error *err);
/* The same for the table directory held open as tdfd. Either way the writer
 * keeps its own descriptors of the table directory and of DIR/wal from here
 * on: new segments, appends and removals never look the path up again. */
cf_status cf_wal_open_at(cf_wal **out, int tdfd, const char *table_dir, const cf_wal_scan *scan,
                         uint64_t durable_ts, cf_wal_sync_mode mode, uint64_t sync_bytes,
                         cf_error *err);
/* Append one record holding the batch of n ops; synced as the mode says. Any
 * failure is sticky: the log may end in a partial record, and every later call
 * returns the same status. CF_EINVAL (not sticky) for a batch too large. */
cf_status cf_wal_append(cf_wal *w, const cf_wal_op *ops, size_t n, cf_error *err);
/* Make room for cf_wal_append(ops, n) to build its record without allocating
 * (flags may still change: they take the same room). A table calls it before
 * it applies an op in memory, so that running out of memory refuses the op
 * instead of leaving memory ahead of the log. CF_ENOMEM, nothing changed. */
cf_status cf_wal_reserve(cf_wal *w, const cf_wal_op *ops, size_t n, cf_error *err);
/* fdatasync whatever was appended and not yet synced. */
cf_status cf_wal_sync(cf_wal *w, cf_error *err);
/* Every op so far is in the rowsets' files: start segment seq+1 whose header
 * says durable_ts, make it durable, then remove the older segments. */
cf_status cf_wal_checkpoint(cf_wal *w, uint64_t durable_ts, cf_error *err);
/* cf_wal_checkpoint in two steps, for a table that records which segment it
 * needs (above): roll starts segment seq+1 (durable) and appends go to it;
 * retire removes the older segments once the table's metadata names it. */
cf_status cf_wal_roll(cf_wal *w, uint64_t durable_ts, cf_error *err);
void cf_wal_retire(cf_wal *w);
/* Change the sync mode (for the next appends). */
void cf_wal_set_mode(cf_wal *w, cf_wal_sync_mode mode, uint64_t sync_bytes);
/* Bytes in the current segment (header included). */
uint64_t cf_wal_bytes(const cf_wal *w);
/* Of those, the bytes known to be durable (fdatasync'd, or made durable by a
 * writer before us that we cannot vouch for: only the header then): whole
 * records, never more than any crash can leave. */
uint64_t cf_wal_durable_bytes(const cf_wal *w);
uint64_t cf_wal_seq(const cf_wal *w);
/* The format version appends are written in (the current segment's). */
uint32_t cf_wal_version(const cf_wal *w);
/* Close without syncing. NULL is a no-op. */
void cf_wal_free(cf_wal *w);

#endif

/* WAL segments for tests, entry by entry, over src/kudu/wal_writer.c (Kudu's
 * WritableLogSegment framing): REPLICATEs of writes, ALTER_SCHEMA_OPs,
 * PARTICIPANT_OPs and NO_OPs, and the COMMITs with the results bootstrap judges
 * them by. Each call appends one entry batch of one entry; a failure fails the test.
 * Shared by tests/kudu and tests/cli (CMakeLists.txt adds it to both). */
#ifndef CF_TEST_SUPPORT_WALGEN_H
#define CF_TEST_SUPPORT_WALGEN_H

#include <stdbool.h>
#include <stdint.h>

#include <cfile/kudu.h>
#include <cfile/rowset.h>

#include "kudu/tablet.h"
#include "kudu/wal.h"
#include "kudu_tablet.pb-c.h"

typedef struct walgen {
    kudu_wal_writer w;
    char tablet[33];
    cf_kudu_schema_pb spb; /* the header's schema (walgen_begin) */
    bool has_spb;
    const cf_schema *sch; /* what writes are encoded with (walgen_schema changes it) */
    cf_buf batch;         /* the entries of an open batch, serialized (LogEntryBatchPB) */
    bool batch_open;
    size_t nentries; /* entries written so far */
} walgen;

/* Start a segment whose header is given whole (codec, version fields, schema);
 * writes are encoded with sch. For framing tests. */
void walgen_begin_header(walgen *g, const Kudu__Log__LogSegmentHeaderPB *h, const cf_schema *sch);
/* Entries from here to walgen_batch_close go into one entry batch; close returns
 * where the batch starts and ends in the segment (either may be NULL). */
void walgen_batch_open(walgen *g);
void walgen_batch_close(walgen *g, uint64_t *start, uint64_t *end);
/* RowOperationsPB over encoded row ops (rows, indirect data: kudu_rowops_encode's
 * output), pointing into the bufs. */
Kudu__RowOperationsPB walgen_rowops(const cf_buf *rows, const cf_buf *indirect);
/* Every cut [0, cut) of ro's rows (cut = 0 .. its length) decoded against the
 * tablet schema pb / sch: each is refused as CF_ECORRUPT (never read past) or
 * decodes; how many decode (the empty cut and the ends of ops). */
size_t walgen_rowops_cuts(const Kudu__RowOperationsPB *ro, const Kudu__SchemaPB *pb,
                          const cf_schema *sch);
/* REPLICATE of a WRITE_OP of row operations already encoded (several row ops). */
void walgen_write_rows(walgen *g, int64_t term, int64_t index, uint64_t ts, const cf_buf *rows,
                       const cf_buf *indirect, int64_t txn);
/* The segment's bytes, which the caller now owns (cf_buf_dispose), with a footer
 * (num_entries: the entries written) when `footer`, starting at *footer_at (may be
 * NULL); g is freed. */
void walgen_close(walgen *g, bool footer, cf_buf *out, uint64_t *footer_at);

/* Start a segment of `tablet` (32 hex digits) numbered seq, its header carrying sch
 * with Kudu column ids `ids` (NULL: 0, 1, ...) at schema_version. sch must outlive g. */
void walgen_begin(walgen *g, const char *tablet, uint64_t seq, const cf_schema *sch,
                  const uint32_t *ids, uint32_t schema_version);
/* The same, with edit (may be NULL) changing the header's SchemaPB first (defaults). */
void walgen_begin_edit(walgen *g, const char *tablet, uint64_t seq, const cf_schema *sch,
                       const uint32_t *ids, uint32_t schema_version,
                       void (*edit)(Kudu__SchemaPB *pb));
/* Encode later writes with sch (after an ALTER_SCHEMA_OP). */
void walgen_schema(walgen *g, const cf_schema *sch);

/* REPLICATE of a WRITE_OP at term.index, timestamp ts, of one row op (set/vals per
 * column of the current schema, in memory form; NULL value = NULL). txn: a
 * multi-row transaction's id, or -1. */
void walgen_write(walgen *g, int64_t term, int64_t index, uint64_t ts, cf_kudu_row_op_type type,
                  const bool *set, const void *const *vals, int64_t txn);

/* Where a row op went: mrs >= 0 that MemRowSet; else rs >= 0 rowset rs's DMS dms;
 * else txn >= 0 that transaction's MRS; failed: a row error instead. */
typedef struct walgen_result {
    int64_t mrs, rs, dms, txn;
    bool failed;
} walgen_result;

#define WALGEN_MRS(id) ((walgen_result){(id), -1, -1, -1, false})
#define WALGEN_DMS(rs, dms) ((walgen_result){-1, (rs), (dms), -1, false})
#define WALGEN_TXN(id) ((walgen_result){-1, -1, -1, (id), false})
#define WALGEN_FAILED ((walgen_result){-1, -1, -1, -1, true})

/* COMMIT of the WRITE_OP term.index with one row op's result. */
void walgen_commit_write(walgen *g, int64_t term, int64_t index, walgen_result r);
/* COMMIT of a non-write op (op_type: consensus.proto's number); failed: an
 * ALTER_SCHEMA_OP's failed result. index < 0: an OpId without its index (a
 * required field missing, which Kudu's parse refuses). */
void walgen_commit(walgen *g, int64_t term, int64_t index, int op_type, bool failed);

/* REPLICATE of an ALTER_SCHEMA_OP to schema sch with column ids `ids` at version. */
void walgen_alter(walgen *g, int64_t term, int64_t index, uint64_t ts, const cf_schema *sch,
                  const uint32_t *ids, uint32_t version);
/* REPLICATE of a PARTICIPANT_OP (type: BEGIN_TXN 1 ... ABORT_TXN 4) of txn. */
void walgen_participant(walgen *g, int64_t term, int64_t index, uint64_t ts, int type, int64_t txn);
/* An entry of type `type` (LogEntryTypePB: FLUSH_MARKER 999, ...) with no message. */
void walgen_bare_entry(walgen *g, int type);
/* REPLICATE of a NO_OP. */
void walgen_noop(walgen *g, int64_t term, int64_t index, uint64_t ts);

/* Write the segment (no footer: the one being written when the server stopped) to
 * <root>/wals/<tablet><suffix>/wal-<seq, 9 digits>, making the directory if it is
 * missing (suffix "" or ".recovery"), and free g. */
void walgen_finish(walgen *g, const char *root, const char *suffix, uint64_t seq);

/* A scratch server root at `root` (kfs_single_root, log block manager) holding one
 * tablet with no rowsets, its superblock at schema sch (ids, version) with
 * last_durable_mrs_id, the transactions txns and, when history_max_age_sec >= 0,
 * the table's own history_max_age_sec; and an empty wals/<tablet>/. */
typedef struct walgen_tablet {
    const char *tablet;
    const cf_schema *sch;
    const uint32_t *ids;
    uint32_t version;
    int64_t last_durable_mrs;
    Kudu__Tablet__TxnMetadataEntry *const *txns;
    size_t ntxns;
    int32_t history_max_age_sec;
} walgen_tablet;

void walgen_tablet_root(const char *root, const walgen_tablet *t);

/* The tablet at root scanned (as_of, history_max_age_sec as the options take them)
 * as text: each row's cells printed "a|b|c" (NULL "-"), rows joined by ';'. The
 * scan's status; *pending: cf_kudu_scanner_wal_pending (may be NULL). */
cf_status walgen_scan(const char *root, const char *tablet, uint64_t as_of, int64_t max_age,
                      char *out, size_t cap, size_t *pending, cf_error *err);
/* The same with every scan option given (so; NULL: defaults). */
cf_status walgen_scan_opts(const char *root, const char *tablet, const cf_kudu_scan_options *so,
                           char *out, size_t cap, size_t *pending, cf_error *err);

#endif

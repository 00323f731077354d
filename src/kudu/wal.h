/* Internal: Kudu's write-ahead log below the public cf_kudu_wal_* calls (kudu.h).
 *
 *   wal_segment.c  one segment file read as Kudu's ReadableLogSegment and
 *                  LogEntryReader read it (consensus/log_util.cc): magic and
 *                  header, the footer or none, entry batches up to the footer,
 *                  a torn tail told from damage as Kudu tells them apart
 *   wal_writer.c   the same framing written (WritableLogSegment), for tests
 *   row_ops.c      RowOperationsPB rows (common/row_operations.cc) decoded as
 *                  RowOperationsPBDecoder decodes a client's WriteRequestPB (the
 *                  header's schema as a cf_schema: tablet.h cf_kudu_schema_from_pb), and
 *                  encoded as the client's RowOperationsPBEncoder does (tests)
 *   wal.c          the segments of wals/<tablet_id>/, in sequence order
 */
#ifndef CF_KUDU_WAL_H
#define CF_KUDU_WAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/io.h>
#include <cfile/kudu.h>
#include <cfile/rowset.h>

#include "kudu_common.pb-c.h"
#include "kudu_log.pb-c.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/pb_mem.h"

/* log_util.cc: "kudulogf" + fixed32 header length; footer + "closedls" +
 * fixed32 footer length; entry headers of 12 (segments whose header has
 * DEPRECATED_major_version) or 16 bytes; headers and footers at most 8 MiB. */
#define KUDU_WAL_HEADER_MAGIC "kudulogf"
#define KUDU_WAL_FOOTER_MAGIC "closedls"
#define KUDU_WAL_MAGIC_LEN 8u
#define KUDU_WAL_FIXED_LEN 12u /* magic + fixed32 length, at either end */
#define KUDU_WAL_ENTRY_HEADER_V1 12u
#define KUDU_WAL_ENTRY_HEADER_V2 16u
#define KUDU_WAL_MAX_HEADER_LEN (8u << 20)
/* Our own bound on one entry batch (compressed or not): Kudu's batches are
 * bounded by its RPC size limit (50 MiB by default, rpc_max_message_size). */
#define KUDU_WAL_MAX_BATCH_LEN (64u << 20)

/* Give an error already set the status `st` (a codec's CF_ECORRUPT stays one;
 * a schema cf_schema_create refuses is CF_ENOTSUP here). */
static inline cf_status kudu_recode(cf_error *err, cf_status st)
{
    if (err != NULL)
        err->code = st;
    return st;
}

/* One entry batch of a segment. */
typedef struct kudu_wal_batch {
    uint64_t offset; /* of its entry header */
    uint64_t end;    /* just past its body */
    Kudu__Log__LogEntryBatchPB *pb;
} kudu_wal_batch;

/* One segment as read. Heap-allocated: `mem` is the unpack allocator of every
 * message here and must not move. */
typedef struct kudu_wal_seg {
    char *name; /* names the file in messages */
    uint64_t size;
    bool uninitialized; /* 12 zero bytes where the magic goes: Kudu skips the file */
    uint8_t *header_bytes;
    size_t header_len;
    Kudu__Log__LogSegmentHeaderPB *header;
    bool has_footer;
    uint8_t *footer_bytes;
    size_t footer_len;
    Kudu__Log__LogSegmentFooterPB *footer;
    uint64_t first_entry_offset;
    uint64_t end_offset; /* just past the last complete batch */
    bool torn_tail;      /* no footer, and the entries end before the file does */
    char torn_why[256];  /* what the torn entry was (for `wal dump` text) */
    kudu_wal_batch *batches;
    size_t nbatches;
    size_t nentries;
    cf_pb_mem mem;
} kudu_wal_seg;

/* Read a whole segment over `io` (borrowed; only needed during the call).
 * Damage is CF_ECORRUPT "<name> at offset N: ..."; a header naming an
 * incompatible feature is CF_ENOTSUP; a missing codec CF_ENOTSUP. */
cf_status kudu_wal_seg_read(kudu_wal_seg **out, cf_io *io, const char *name, cf_error *err);
void kudu_wal_seg_free(kudu_wal_seg *s); /* NULL is a no-op */

/* cf_kudu_wal_open without an fs: the segments of <wal_dir>/wals/<tablet_id>/.
 * A tablet id that is not one path component of [A-Za-z0-9_.-] is CF_EINVAL; no
 * such directory CF_ENOTFOUND. */
cf_status kudu_wal_open_dir(cf_kudu_wal **out, const char *wal_dir, const char *tablet_id,
                            cf_error *err);
/* The same below rootfd, the WAL root held open (AT_FDCWD: wal_dir is a path);
 * wal_dir names it in messages. */
cf_status kudu_wal_open_at(cf_kudu_wal **out, int rootfd, const char *wal_dir,
                           const char *tablet_id, cf_error *err);

/* ---- the writer (tests; Kudu's WritableLogSegment framing) ---------------------------- */

typedef struct kudu_wal_writer {
    cf_buf out;
    cf_compression codec; /* from the header's compression_codec; NONE for none */
    size_t entry_header_len;
    uint64_t first_entry_offset;
} kudu_wal_writer;

/* Start a segment: magic, header length, the header's bytes. The entry header
 * size and codec follow the header as Kudu's reader takes them. */
cf_status kudu_wal_writer_begin(kudu_wal_writer *w, const Kudu__Log__LogSegmentHeaderPB *header,
                                cf_error *err);
/* One entry batch: the header (lengths, CRC-32C of the body as written, CRC-32C
 * of the header) and the body, compressed when the segment has a codec. */
cf_status kudu_wal_writer_batch(kudu_wal_writer *w, const Kudu__Log__LogEntryBatchPB *batch,
                                cf_error *err);
/* The same for a batch already serialized. */
cf_status kudu_wal_writer_batch_bytes(kudu_wal_writer *w, const uint8_t *data, size_t len,
                                      cf_error *err);
cf_status kudu_wal_writer_footer(kudu_wal_writer *w, const Kudu__Log__LogSegmentFooterPB *footer,
                                 cf_error *err);
void kudu_wal_writer_dispose(kudu_wal_writer *w);

/* ---- RowOperationsPB -------------------------------------------------------------------- */

/* Decode every op of `pb` (WRITE_OPS: INSERT, UPSERT, UPDATE, DELETE and their
 * _IGNORE forms; split rows and range bounds too) as RowOperationsPBDecoder
 * does: `client` is the schema the writer encoded with (WriteRequestPB.schema;
 * NULL = the tablet's), mapped by column name onto the tablet's schema
 * `tablet_pb` / `tablet`. INSERT and UPSERT rows come out with every column set
 * (defaults or NULL for what the client left out); UPDATE the key and the
 * changed columns; DELETE the key. An INSERT that leaves out the tablet's
 * auto-incrementing column gets the next value of `auto_counter` (the request's
 * auto_incrementing_column counter; NULL = none given), as Kudu's decoder assigns
 * it. Values point into `pb` (binary) or `a`.
 * Bad bytes are CF_ECORRUPT naming the op and byte offset in `rows`. */
cf_status kudu_rowops_decode(cf_arena *a, const Kudu__RowOperationsPB *pb,
                             const Kudu__SchemaPB *client, const Kudu__SchemaPB *tablet_pb,
                             const cf_schema *tablet, const int64_t *auto_counter,
                             cf_kudu_row_op **ops, size_t *nops, cf_error *err);

/* Append one op as a client's RowOperationsPBEncoder does to rows and
 * indirect_data: type, isset bitmap, NULL bitmap (schemas with a nullable
 * column), then each set non-NULL value (binary: 16-byte offset/length into
 * indirect_data). values[i] is in memory form (NULL = NULL) where set[i]. */
void kudu_rowops_encode(cf_buf *rows, cf_buf *indirect, const cf_schema *schema,
                        cf_kudu_row_op_type type, const bool *set, const void *const *values);

#endif

/* The log segment the table needs: the `wal SEQ BYTES` line of TABLET
 * (table_tablet.c writes it) and the retiring of older segments once a
 * TABLET names a newer one. This file must not append to the log or
 * change the rowset list.
 *
 * Deleting or truncating the log segment that holds acknowledged ops must not
 * let an open show the table as it was before them (and a later op reuse their
 * timestamps, making the loss permanent). So the TABLET records the segment
 * (wal.h "the segment a table needs"): `wal SEQ BYTES`, and an open refuses a
 * table whose recorded segment is missing with no newer one in its place, or
 * holds fewer whole-record bytes than BYTES (cf_wal_check_need).
 *
 * Invariant: while a committed TABLET says SEQ, segment SEQ exists, and every
 * segment numbered above it holds no acknowledged op. It holds because
 *   - a segment is created durably (temporary, fsync, rename, directory fsync)
 *     before any TABLET names it: the first one by cf_wal_open, later ones by
 *     cf_wal_roll in a checkpoint, after every op so far is in files;
 *   - no op is appended to a segment before a committed TABLET names it
 *     (log_done commits one first when the current segment is not the one
 *     recorded, refusing the op if that fails);
 *   - older segments are removed only after a TABLET naming a newer one is
 *     committed (cf_tbl_wal_retire_after), or, at open, when a newer one exists;
 *   - BYTES is what was fdatasync'd of the segment before that TABLET was
 *     committed (cf_wal_durable_bytes), always whole records, and a writer only
 *     ever truncates a torn tail, which lies past every synced record.
 * So a crash at any point leaves either the recorded segment with at least
 * BYTES of whole records, or a newer segment (a checkpoint cut short between
 * its rename and its TABLET commit, or between that commit and the removal),
 * whose header's durable_ts covers every op of the recorded one: an open never
 * refuses a table a crash left and never finds an acknowledged op missing.
 * Ops acknowledged after the last TABLET commit are past BYTES: a truncation
 * that removes only those whole records cannot be told from fewer ops, short
 * of a metadata write per op.
 *
 * Tables without the record (a TABLET version 1, or none yet) open as before;
 * the first op or checkpoint of a writer records it (TABLET version 2, which
 * older binaries refuse as CF_ENOTSUP, never misread).
 */
#include "table_internal.h"

/* After a TABLET commit: once it names the current segment in place of an
 * older one, the older ones are retired. */
void cf_tbl_wal_retire_after(cf_table *t, uint64_t old_seq)
{
    if (t->wal != NULL && t->wal_need.seq != old_seq && t->wal_need.seq == cf_wal_seq(t->wal))
        cf_wal_retire(t->wal);
}

/* Commit a TABLET naming the log's current segment (the rowset list as it is;
 * a table without a TABLET gets one naming its root rowset). */
cf_status cf_tbl_wal_record(cf_table *t, cf_error *err)
{
    CF_TRY(cf_tbl_tablet_write(t, t->names, t->nrs, err));
    t->has_tablet = true;
    t->tablet_next = t->next_rowset;
    return CF_OK;
}

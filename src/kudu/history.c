/* The ancient history mark of a tablet read offline, and the refusal of a snapshot
 * before it.
 *
 * Kudu computes the mark from its clock, not from anything on disk
 * (Tablet::GetTabletAncientHistoryMark: now minus the table's
 * TableExtraConfigPB.history_max_age_sec, else --tablet_history_max_age_sec, 7 days
 * by default; a negative age, or a clock without a physical part, means no mark),
 * and refuses a snapshot scan before it (tablet_service.cc VerifyNotAncientHistory:
 * InvalidArgument). History older than the mark may be gone: compactions and UNDO
 * delta GC drop it.
 *
 * Offline the clock is gone; what the tablet itself proves is a time the server's
 * clock reached: the latest timestamp it holds (the DeltaFiles' stats, the WAL's
 * REPLICATEs). When the server stopped its mark was at least that minus max_age,
 * so a snapshot before that is refused as Kudu would have refused it then, and
 * history there may be gone. A server that ran on after its last write moved its
 * mark further (history GC runs in the background) and that cannot be seen on
 * disk: snapshots in that window are answered from the UNDO history that is left
 * (docs/KUDU-ON-DISK.md says so). A latest timestamp whose physical part lies
 * before 2000-01-01 is not a HybridClock's (Kudu's LogicalClock, which has no
 * mark and keeps all history): no mark. A tablet holding no timestamp at all
 * (no DeltaFile, no WAL entry) is dated by its superblock file's mtime, which is
 * no earlier than its last flush or compaction. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "scan_internal.h"
#include "tablet.h"

#include "util/error.h"

/* 2000-01-01T00:00:00Z in microseconds: no HybridClock timestamp is older. */
#define WALL_CLOCK_FLOOR_US 946684800000000LL

void cf_kudu_scan_note_delta(cf_kudu_scanner *sc, const cf_delta_reader *r)
{
    const cf_delta_stats *st;
    cf_error e;
    if (cf_delta_reader_stats(r, &st, &e) == CF_OK) {
        sc->has_delta_ts = true;
        if (st->max_ts > sc->max_ts)
            sc->max_ts = st->max_ts;
    }
}

cf_status cf_kudu_history_check(cf_kudu_scanner *sc, uint64_t snap, int64_t flag_max_age_sec,
                                cf_error *err)
{
    const cf_kudu_tablet *t = sc->t;
    if (snap == CF_SNAPSHOT_LATEST)
        return CF_OK;
    uint64_t clock = sc->max_ts;
    bool seen = sc->has_delta_ts;
    for (size_t s = 0; sc->wal != NULL && s < cf_kudu_wal_segment_count(sc->wal); s++)
        for (size_t i = 0; i < cf_kudu_wal_segment_at(sc->wal, s)->nentries; i++) {
            const cf_kudu_wal_entry *e = cf_kudu_wal_entry_at(sc->wal, s, i);
            if (e->type != CF_KUDU_ENTRY_REPLICATE)
                continue;
            if (e->timestamp > clock)
                clock = e->timestamp;
            seen = true;
        }
    if (seen && (int64_t)(clock >> 12) < WALL_CLOCK_FLOOR_US)
        return CF_OK; /* not a wall-clock hybrid time: no mark */
    const Kudu__Tablet__TabletSuperBlockPB *sb = cf_kudu_tablet_superblock(t);
    int64_t age = flag_max_age_sec;
    const char *from = "--tablet_history_max_age_sec";
    if (sb != NULL && sb->extra_config != NULL && sb->extra_config->has_history_max_age_sec) {
        age = sb->extra_config->history_max_age_sec;
        from = "the table's history_max_age_sec";
    }
    if (age < 0)
        return CF_OK; /* history GC off: everything is kept */
    int64_t now_us = (int64_t)(clock >> 12);
    const char *what = "the latest timestamp the tablet holds";
    if (!seen) {
        /* the file the tablet was read from, as it was then (whatever is at its path
         * now); only a tablet opened from memory has its path looked at */
        if (!cf_kudu_tablet_sb_mtime(t, &now_us)) {
            struct stat st;
            CF_CHECK(stat(cf_kudu_tablet_path(t), &st) == 0, err, CF_EIO, "%s: %s",
                     cf_kudu_tablet_path(t), strerror(errno));
            now_us = (int64_t)st.st_mtim.tv_sec * 1000000 + st.st_mtim.tv_nsec / 1000;
        }
        what = "the superblock's last write (the tablet holds no timestamp)";
    }
    int64_t age_us = age > INT64_MAX / 1000000 ? INT64_MAX : age * 1000000;
    if (now_us <= age_us)
        return CF_OK;
    uint64_t mark = (uint64_t)(now_us - age_us) << 12; /* HybridClock: micros << 12 */
    CF_CHECK(snap >= mark, err, CF_EINVAL,
             "tablet %s: snapshot %" PRIu64 " is earlier than the ancient history mark %" PRIu64
             " (%s minus %s, %" PRId64 " s): history before it may have been compacted away, "
             "and Kudu refuses such a scan; if the server kept more history, give its "
             "setting with --history-max-age-sec",
             cf_kudu_tablet_id(t), snap, mark, what, from, age);
    return CF_OK;
}

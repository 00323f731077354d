/* The table handle, shared by the files that make up a table (not installed).
 * Each file owns one concept and says in its opening comment what it must not
 * touch:
 *   table.c          opening and closing a handle; its accessors
 *   table_tablet.c   the TABLET file (the list of rowsets, the commit point),
 *                    new rowset directories and their permission bits, and
 *                    the clean-up of what no TABLET names
 *   table_walneed.c  the log segment a TABLET records (its `wal` line)
 *   table_flush.c    flushes, checkpoints and compaction (automatic and asked for)
 *   table_write.c    insert, update, delete: their log records and how they are
 *                    applied in memory (shared with replay)
 *   table_lookup.c   keys: which store may hold one; get and the key probes of loads
 *   table_replay.c   the log replayed at open, a reader's race with checkpoints
 *   table_commit.c   rowsets made outside the table (bulk loads) joining it
 *   table_guard.c    the thread rule;  table_scan.c  scans;  table_import.c  loads
 * Only the files above include this header. */
#ifndef CF_ROWSET_TABLE_INTERNAL_H
#define CF_ROWSET_TABLE_INTERNAL_H

#include "compaction_policy.h"
#include "internal.h"
#include "memrowset.h"
#include "wal.h"

#include "util/error.h"

#define TABLET CF_RS_TABLET

struct cf_table {
    /* The table directory, opened once (O_RDONLY | O_DIRECTORY): every file of
     * the table is reached through it (dirfd.c), so a rename of the directory
     * or a symlink put in its place cannot redirect a write. A directory that
     * cannot be opened is no table (cf_table_open fails saying why). */
    int dfd;
    char *dir; /* the path it was opened by: for messages */
    bool read_only;
    bool mmap; /* cf_table_options.mmap, passed to every rowset */
    /* Modes new files and rowset directories get (0: the defaults): those of
     * the table's metadata (TABLET, else the root MANIFEST) and its directory
     * at open, so a table made private stays private as it grows. */
    unsigned file_mode, dir_mode;
    uint64_t ahm; /* cf_table_ahm: the largest of the rowsets', kept current */
    int lock_fd;  /* the writer lock (lock.c); -1 for a reader */
    /* The reader pin (lock.c, docs/ROWSET.md "Readers: the pin"): a writer's fd
     * of the directory, taken exclusively around removals of what a commit made
     * obsolete; a reader's, held shared from before it reads TABLET until it is
     * freed (-1: not pinned; it then opened every file up front). */
    int pin_fd;
    uint64_t tablet_sum;  /* checksum of the TABLET read at open (0: none) */
    uint64_t tablet_next; /* next_rowset of the TABLET on disk (1 when there is none) */
    /* One block cache for every rowset of the table (rowsets come and go with
     * flushes and compactions; the cache stays). own_cache is freed with t. */
    cf_cache *cache, *own_cache;
    cf_schema *schema; /* a copy: rowsets come and go with compactions */
    cf_rowset **rs;
    char **names;
    size_t nrs;
    uint64_t next_rowset;
    bool has_tablet;
    cf_mrs *mrs;
    uint64_t last_ts;
    size_t flush_bytes;
    cf_buf key;
    cf_rcl_builder *rcl;
    /* cf_table_get on a MemRowSet row: the returned views */
    cf_mrs_cell *cells;
    cf_batch *gcols;
    uint8_t *gnn;
    cf_buf *gvals, *genn; /* array columns: the row's elements */
    uint32_t *goffs;      /* array columns: [0, count] per column */
    /* Automatic compaction after flushes (compaction_policy.h). */
    bool auto_compact;
    cf_cpol_options cpol;
    cf_error compact_err; /* the last automatic merge that failed */
    cf_status compact_st;
    /* The write-ahead log (docs/ROWSET.md "Write-ahead log"): every insert,
     * update and delete is applied in memory, then appended (and by default
     * synced) before it returns success. NULL for a reader. */
    cf_wal *wal;
    cf_table_sync_mode sync_mode;
    uint64_t sync_bytes, wal_max_bytes;
    cf_wal_need wal_need;        /* what the TABLET on disk records of the log (seq 0: none) */
    cf_rcl_builder *lkey, *lrcl; /* the op being logged: its key and change list */
    cf_wal_op lop;
    bool lop_mrs; /* the op being applied went to the MemRowSet (CF_WAL_OP_MRS) */
    /* A log append or sync failed after the op was applied in memory: memory is
     * now ahead of the log, so the handle refuses everything (close does not
     * flush); reopening replays what is durable. */
    cf_sticky sticky;  /* the first failure that left the handle unusable, replayed */
    uint64_t wal_seq0; /* a reader: the newest log segment before it read TABLET */
    /* replay: one op's values in memory form */
    cf_mrs_cell *rcells;
    cf_array_cell *rarr;
    const void **rvals;
    cf_column_change *rchg;
    uint64_t files_ts; /* replay: the largest last_ts of the rowsets' files at open */
    uint64_t replay_applied, replay_probes; /* cf_table_replay_stats */
    cf_rs_guard guard;                      /* the thread rule (table_guard.c) */
};

/* ---- table.c: open and close ------------------------------------------------------------- */
/* Free every rowset handle and the list of names. */
void cf_tbl_close_rowsets(cf_table *t);
/* Open rowset `name` of the table (through its cache, in its mode). */
cf_status cf_tbl_open_rowset(const cf_table *t, const char *name, cf_rowset **out, cf_error *err);
/* CF_EINVAL for a handle opened read-only. */
cf_status cf_tbl_check_writable(const cf_table *t, cf_error *err);
/* t->ahm := the largest ancient history mark of the rowsets. */
void cf_tbl_refresh_ahm(cf_table *t);
/* A reader's open of TABLET and every rowset it names, started over when a
 * writer commits a new TABLET meanwhile. */
cf_status cf_tbl_open_rowsets_reader(cf_table *t, cf_error *err);

/* ---- table_tablet.c: TABLET, rowset directories, clean-up -------------------------------- */
void cf_tbl_free_names(char **names, size_t n);
/* Write a TABLET naming `names` (with the wal line of a writer's log). */
cf_status cf_tbl_tablet_write(cf_table *t, char *const *names, size_t n, cf_error *err);
/* Read TABLET into t->names / next_rowset / wal_need; CF_ENOTFOUND when none. */
cf_status cf_tbl_tablet_read(cf_table *t, cf_error *err);
/* The checksum on the end line of the TABLET now on disk (0 when unreadable). */
uint64_t cf_tbl_tablet_sum_on_disk(const cf_table *t);
/* Commit a new rowset list (taken over): TABLET first, then memory. */
cf_status cf_tbl_commit_list(cf_table *t, char **names, size_t n, cf_error *err);
/* The path of rowset `name` ("." = the table directory), malloc'd. */
char *cf_tbl_rowset_dir(const cf_table *t, const char *name);
/* Create a fresh rs-<n> (a TABLET first if none; a crashed writer's leftovers
 * removed): its name, its path (for messages) and *dfd, the directory opened
 * (the caller closes it). On failure *path is NULL and *dfd -1. */
cf_status cf_tbl_new_rowset_dir(cf_table *t, char *name, size_t cap, char **path, int *dfd,
                                cf_error *err);
/* mkdir rowset directory `name` in the table directory, in the table's mode. */
int cf_tbl_mkdir_rowset(const cf_table *t, const char *name);
/* The permission bits of `name` in the table directory ("." itself); 0 when
 * not a file or dir. */
unsigned cf_tbl_mode_of(const cf_table *t, const char *name);
/* Give the regular files of a new rowset directory (dfd, path) the table's file mode. */
void cf_tbl_match_mode(const cf_table *t, int dfd, const char *path);
bool cf_tbl_named(char *const *names, size_t n, const char *name);
/* "rs-<n>" exactly: *num = n. */
bool cf_tbl_rowset_num(const char *n, uint64_t *num);
/* Remove what no TABLET names and is provably ours (docs/ROWSET.md "Clean-up"). */
void cf_tbl_gc_rowsets(const cf_table *t, char *const *prev, size_t nprev, uint64_t prev_next);
/* The first "rs-<n>" directory of dir into name; false when there is none (a
 * file of that name is not a rowset). */
bool cf_tbl_find_rowset_dir(int dfd, const char *dir, char *name, size_t cap);

/* ---- table_walneed.c: the log segment TABLET records ------------------------------------- */
/* After a TABLET commit: retire log segments older than the one it names. */
void cf_tbl_wal_retire_after(cf_table *t, uint64_t old_seq);
/* Commit a TABLET naming the log's current segment. */
cf_status cf_tbl_wal_record(cf_table *t, cf_error *err);

/* ---- table_flush.c: flush and compaction -------------------------------------------------- */
/* Before an op: flush what is due (refusing the op when that fails). */
cf_status cf_tbl_maybe_flush(cf_table *t, cf_error *err);
/* After an op is logged: flush what is due, best effort. */
void cf_tbl_flush_after(cf_table *t);

/* ---- table_write.c: ops applied in memory ------------------------------------------------- */
void cf_tbl_set_last_ts(cf_table *t, uint64_t ts);
/* The sticky failure of a handle memory left ahead of its log. */
cf_status cf_tbl_usable(const cf_table *t, cf_error *err);
/* Apply an op whose key is encoded in t->key (log replay shares these). */
cf_status cf_tbl_apply_insert(cf_table *t, const void *const *values, uint64_t ts, cf_error *err);
cf_status cf_tbl_apply_update(cf_table *t, const void *const *key, const cf_column_change *changes,
                              size_t n, uint64_t ts, cf_error *err);
cf_status cf_tbl_apply_delete(cf_table *t, const void *const *key, uint64_t ts, cf_error *err);

/* ---- table_lookup.c: keys ------------------------------------------------------------------ */
/* t->key := the encoded key. */
cf_status cf_tbl_encode_key(cf_table *t, const void *const *key, cf_error *err);
/* May rowset i hold the key in t->key (its key range covers it)? */
bool cf_tbl_covers(const cf_table *t, size_t i);

/* ---- table_replay.c: the log at open ------------------------------------------------------- */
/* The newest log segment's number (0: none; UINT64_MAX: unlistable). */
uint64_t cf_tbl_newest_seq(const cf_table *t);
/* Replay the log into memory; a writer then opens it for appending. */
cf_status cf_tbl_wal_attach(cf_table *t, bool writer, cf_error *err);

#endif

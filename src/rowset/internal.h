/* Rowset internals shared by the files of src/rowset/ (not installed). */
#ifndef CF_ROWSET_INTERNAL_H
#define CF_ROWSET_INTERNAL_H

#include <cfile/cfile.h>
#include <cfile/bloom.h>
#include <cfile/delta.h>
#include <cfile/rowset.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>

#include "util/arena.h"
#include "util/buf.h"

struct cf_schema {
    size_t ncols, nkeys;
    cf_column *cols;        /* names owned */
    cf_delta_column *dcols; /* the same columns as delta appliers see them */
};

/* ---- array cells in change lists (array_value.c) ------------------------------------------ */
/* Add column change col_id := `cell` (serialized) to b; CF_EINVAL when the element
 * type is not the column's. */
cf_status cf_rs_rcl_add_cell(cf_rcl_builder *b, uint32_t col_id, const cf_column *c,
                             const cf_array_cell *cell, cf_error *err);
/* Add column change col := value (memory form; NULL = SQL NULL, refused for a
 * column that is not nullable; an array column's value is a cf_array_cell). */
cf_status cf_rs_rcl_add_value(cf_rcl_builder *b, const cf_column *c, size_t col, const void *value,
                              cf_error *err);
/* Serialize elements [first, first + n) of flattened values/enn (enn NULL = all
 * present) into arena memory. */
cf_status cf_rs_cell_from_flat(cf_arena *a, cf_type type, const void *vals, const uint8_t *enn,
                               size_t first, size_t n, cf_slice *out, cf_error *err);
/* Append the elements of a serialized cell to flattened vals/enn (bit *elems
 * onwards); *count = its elements. Binary elements point into `bytes`. */
cf_status cf_rs_cell_to_flat(cf_slice bytes, cf_type type, cf_buf *vals, cf_buf *enn, size_t *elems,
                             uint32_t *count, cf_error *err);

/* ---- keys (format §1.8) --------------------------------------------------------------- */
/* Append the encoding of key column `k`'s value to b. */
/* names.c: why `name` is no column name Kudu takes (NULL when it is one); *at is
 * the byte offset of bad UTF-8. */
const char *cf_rs_name_problem(const char *name, size_t *at);
/* Length of the plain identifier [A-Za-z_][A-Za-z0-9_]* at p (0: none). */
size_t cf_rs_name_bare_len(const char *p);

void cf_rs_key_append(cf_buf *b, const cf_schema *s, size_t k, const void *v);
/* Encoded key of row i of per-column batches (values of the key columns). */
void cf_rs_key_append_row(cf_buf *b, const cf_schema *s, const cf_colvec *cols, size_t i);
/* Decode a single-column key (or a bound on it) back to a value for a value-index
 * seek; binary values point into `enc`. */
void cf_rs_key_decode_single(const cf_schema *s, const uint8_t *enc, size_t len, void *slot);
int cf_rs_bytes_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

/* ---- manifest ------------------------------------------------------------------------- */
enum { CF_RS_FILE_COLUMN, CF_RS_FILE_BLOOM, CF_RS_FILE_ADHOC, CF_RS_FILE_REDO, CF_RS_FILE_UNDO };

typedef struct cf_rs_file {
    int role;
    uint32_t col; /* columns */
    char *name;
} cf_rs_file;

typedef struct cf_rs_manifest {
    uint64_t generation, next_file, insert_ts, last_ts, rows;
    uint64_t checksum; /* of the MANIFEST as read (0 for one built in memory) */
    uint64_t ahm;      /* ancient history mark: history before it is gone (0 = none) */
    cf_schema *schema; /* owned */
    cf_buf min_key, max_key;
    /* Not stored: the permission bits files created for this rowset get from
     * their creation on (open(2)'s mode, cf_io_create_file_mode; 0 = the
     * defaults). cf_rs_manifest_read sets the MANIFEST's own; the writers of a
     * table's new rowsets set the table's. A MANIFEST that replaces one keeps
     * the bits of the one it replaces. */
    unsigned file_mode;
    cf_rs_file *files;
    size_t nfiles;
} cf_rs_manifest;

#define CF_RS_MANIFEST "MANIFEST"
#define CF_RS_TABLET "TABLET"
#define CF_RS_LOCK "LOCK"

void cf_rs_manifest_init(cf_rs_manifest *m);
void cf_rs_manifest_dispose(cf_rs_manifest *m);
cf_status cf_rs_manifest_read(cf_rs_manifest *m, const char *dir, cf_error *err);
cf_status cf_rs_manifest_write(const cf_rs_manifest *m, const char *dir, cf_error *err);
/* The same in a directory held open (dirfd.c: (dfd, dir)). */
cf_status cf_rs_manifest_read_at(cf_rs_manifest *m, int dfd, const char *dir, cf_error *err);
/* The same for the rowset directory rel below the directory held as dfd (a
 * table's), reached as rel/MANIFEST: no descriptor of rel opened for it. */
cf_status cf_rs_manifest_read_in(cf_rs_manifest *m, int dfd, const char *rel, const char *dir,
                                 cf_error *err);
cf_status cf_rs_manifest_write_at(const cf_rs_manifest *m, int dfd, const char *dir, cf_error *err);
cf_status cf_rs_manifest_add(cf_rs_manifest *m, int role, uint32_t col, const char *name,
                             cf_error *err);
const char *cf_rs_role_name(int role);
/* Our writers' exact data file names (N.colI.cfile, N.bloom.cfile, N.adhoc.cfile,
 * N.redo.delta, N.undo.delta); *num = N. */
bool cf_rs_data_name(const char *n, uint64_t *num);
/* A cf_io_create_file temporary (NAME.tmp.PID.HEX16) of `base`, or (base NULL) of
 * a MANIFEST or a data file name. */
bool cf_rs_tmp_name(const char *n, const char *base);
/* Remove from dir (regular files only, by lstat) our temporaries and the data
 * files `now` does not name that `prev` named or that are numbered >=
 * first_unfinished. now/prev may be NULL. */
void cf_rs_gc(const char *dir, const cf_rs_manifest *now, const cf_rs_manifest *prev,
              uint64_t first_unfinished);
void cf_rs_gc_at(int dfd, const char *dir, const cf_rs_manifest *now, const cf_rs_manifest *prev,
                 uint64_t first_unfinished);
/* Remove a rowset directory no TABLET names: its data files, temporaries and
 * MANIFEST, then the directory if that left it empty. Never follows a symlink.
 * True when it is gone. */
bool cf_rs_remove_dead_dir(const char *path);
/* The same for subdirectory `name` of (pdfd, parent). */
bool cf_rs_remove_dead_dir_at(int pdfd, const char *parent, const char *name);
/* dir + "/" + name, malloc'd; NULL when out of memory. */
char *cf_rs_path(const char *dir, const char *name);

/* ---- directories held open (dirfd.c) ---------------------------------------------------- */
/* (dfd, dir): a directory's descriptor and the path it was opened by (for
 * messages); dfd AT_FDCWD: dir is a path only, and files are reached by dir/name. */
/* open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC): the fd, or -1 (errno set). */
int cf_rs_dir_open(const char *dir);
/* Subdirectory `name` of (dfd, dir), not through a symlink: the fd, or -1. */
int cf_rs_subdir_open(int dfd, const char *dir, const char *name);
void cf_rs_dir_close(int dfd); /* dfd < 0 (AT_FDCWD too) is a no-op */
/* cf_io_open_file (or _mmap) / cf_io_create_file_mode of file `name` in (dfd, dir). */
cf_status cf_rs_open_file_at(cf_io **out, int dfd, const char *dir, const char *name, bool mmap,
                             cf_error *err);
cf_status cf_rs_create_file_at(cf_io **out, int dfd, const char *dir, const char *name,
                               unsigned mode, cf_error *err);
/* lstat, unlink (rmdir when is_dir), chmod, mkdir of `name` in (dfd, dir): 0 or -1. */
struct stat;
int cf_rs_lstat_at(int dfd, const char *dir, const char *name, struct stat *sb);
int cf_rs_unlink_at(int dfd, const char *dir, const char *name, bool is_dir);
int cf_rs_chmod_at(int dfd, const char *dir, const char *name, unsigned mode);
int cf_rs_mkdir_at(int dfd, const char *dir, const char *name, unsigned mode);
/* opendir of (dfd, dir) through a descriptor of its own (closedir frees it). */
DIR *cf_rs_opendir_at(int dfd, const char *dir);
cf_status cf_schema_clone(cf_schema **out, const cf_schema *s, cf_error *err);
bool cf_schema_equal(const cf_schema *a, const cf_schema *b);

/* ---- writer internals used by compaction ---------------------------------------------- */
/* Create a writer whose files are numbered from m->next_file (advanced), in
 * the directory (dfd, dir) (dirfd.c; dfd borrowed until the writer is freed); finish_files
 * adds the files, rows and min/max keys to m without writing it. */
cf_status cf_rowset_writer_create_in(cf_rowset_writer **out, int dfd, const char *dir,
                                     const cf_schema *s, const cf_rowset_writer_options *o,
                                     cf_rs_manifest *m, cf_error *err);
cf_status cf_rowset_writer_finish_files(cf_rowset_writer *w, cf_rs_manifest *m, cf_error *err);
/* The delta file of type t that a flush or compaction writes beside its rowset
 * in directory dfd (named dir in errors), opened on first use (nothing when *w
 * is already open): named "<m->next_file>.undo.delta" (or redo) into name,
 * m->next_file advanced, created with m->file_mode into *io. */
#define CF_RS_DELTA_NAME_MAX 64
cf_status cf_rs_delta_open(cf_delta_writer **w, cf_io **io, char *name, int dfd, const char *dir,
                           cf_rs_manifest *m, cf_delta_type t, cf_error *err);

/* ---- scanner internals used by rowset.c and compaction ------------------------------------- */
/* raw: base values only (no deltas, every row selected). include_dms: apply the
 * in-memory deltas. */
cf_status cf_rowset_scanner_create_ex(cf_rowset_scanner **out, cf_rowset *rs,
                                      const cf_scan_options *o, bool raw, bool include_dms,
                                      cf_error *err);
/* Restrict the scanner to ordinals [lo, hi) (repositions it). */
void cf_rowset_scanner_set_range(cf_rowset_scanner *sc, uint64_t lo, uint64_t hi);
/* Restrict the scanner to the one row `ord` whose key columns hold keyvals
 * (memory form, as cf_rowset_get takes them; borrowed until the next
 * cf_rowset_scanner_next): key columns no delta of the scanner sets are answered
 * from them instead of being read. */
void cf_rowset_scanner_set_row(cf_rowset_scanner *sc, uint64_t ord, const void *const *keyvals);
/* Worker threads a scan of ncols distinct columns starts for o->threads
 * (CF_EINVAL when out of range): 0 for a single-threaded scan. */
cf_status cf_rs_scan_workers(const cf_scan_options *o, size_t ncols, size_t *workers,
                             cf_error *err);
/* Tests: how many rowset scanners a table scanner holds open now (its merge
 * opens a rowset's when it reaches the rowset's min key, frees it at its end). */
size_t cf_rs_table_scanner_open_rowsets(const cf_table_scanner *sc);
/* Read columns with `team` (borrowed: a table scanner's, shared by its rowset
 * scanners, which it drives one at a time) instead of the scanner's own. */
struct cf_team;
void cf_rowset_scanner_set_team(cf_rowset_scanner *sc, struct cf_team *team);
/* Tests: read ahead windows of about `rows` rows (default 8192; rounded to
 * whole batches, never less than one). Requires: before the first next. */
void cf_rowset_scanner_set_window_rows(cf_rowset_scanner *sc, size_t rows);

/* ---- the writer lock (lock.c) ----------------------------------------------------------- */
/* Default wait for the lock. */
#define CF_RS_LOCK_TIMEOUT_MS 10000u
/* Take the exclusive lock on dir/LOCK (created when missing), polling up to
 * timeout_ms: CF_EBUSY naming the holder when it stays taken. *fd = the lock,
 * held until cf_rs_lock_release. */
cf_status cf_rs_lock_acquire(int *fd, const char *dir, uint32_t timeout_ms, cf_error *err);
/* The same; *created (may be NULL) says whether this call made dir/LOCK. */
cf_status cf_rs_lock_acquire2(int *fd, bool *created, const char *dir, uint32_t timeout_ms,
                              cf_error *err);
/* The same in the directory held open as dfd (dirfd.c). */
cf_status cf_rs_lock_acquire_at(int *fd, bool *created, int dfd, const char *dir,
                                uint32_t timeout_ms, cf_error *err);
void cf_rs_lock_release(int fd); /* fd < 0 is a no-op */
/* Delete dir/LOCK while still holding it (fd from cf_rs_lock_acquire*), then
 * release it: for a LOCK this run made in a directory it gives up. A waiter
 * that gets the old file then sees it is gone and locks the new one. */
void cf_rs_lock_remove(int fd, const char *dir);
void cf_rs_lock_remove_at(int fd, int dfd, const char *dir); /* (dfd, dir): dirfd.c */
/* The directory whose LOCK guards the rowset directory held as (dfd, dir): the
 * table's for an rs-<n> beside a TABLET, else dir itself. Its fd,
 * which is dfd itself or its table (the parent of the directory dfd holds, not
 * of whatever dir names now; close it when it is not dfd), and *ldir its path
 * for messages (malloc'd). -1 (and *ldir NULL) when out of memory. dfd
 * AT_FDCWD: decided by paths. */
int cf_rs_lock_dir_open(int dfd, const char *dir, char **ldir);
/* The reader pin (lock.c; docs/ROWSET.md "Readers: the pin"): a flock on the
 * table directory. Readers hold it shared while open; the writer removes files
 * a commit made obsolete only under it exclusively, taken without waiting. */
#define CF_RS_PIN_WAIT_MS 50u
/* An fd of dir for pinning (-1 on failure). */
int cf_rs_pin_open(const char *dir);
/* A reader's pin, held shared: the fd (close it to let go), or -1 when the
 * writer kept it exclusive past CF_RS_PIN_WAIT_MS or dir cannot be opened; the
 * reader then opens every file up front. */
int cf_rs_pin_shared(const char *dir);
/* The same two for the directory held open as dfd (dirfd.c). */
int cf_rs_pin_open_at(int dfd, const char *dir);
int cf_rs_pin_shared_at(int dfd, const char *dir);
/* Take the pin exclusively without waiting: false when a reader holds it. */
bool cf_rs_pin_exclusive(int fd);
void cf_rs_pin_unlock(int fd);

/* rowset.c */
/* CF_EINVAL when a read at `snapshot` needs history before `ahm` (what = "table"
 * or "rowset"). */
cf_status cf_rs_check_snapshot(uint64_t snapshot, uint64_t ahm, cf_error *err);
/* CF_EINVAL unless 1 <= ts <= CF_TS_MAX (the message states the range). */
cf_status cf_rs_check_ts_range(uint64_t ts, cf_error *err);
/* How a rowset handle may write: on its own (takes the lock at its first
 * mutation and checks that its view is current), as part of a table that holds
 * the lock for it, or not at all. */
/* CF_RS_MODE_READ_PINNED: read-only, files opened at first use like a table
 * writer's rowsets; only for a table reader holding the pin (nothing it may
 * open is removed meanwhile). */
typedef enum cf_rs_mode {
    CF_RS_MODE_OWN,
    CF_RS_MODE_TABLE,
    CF_RS_MODE_READ_ONLY,
    CF_RS_MODE_READ_PINNED
} cf_rs_mode;
cf_status cf_rs_open_mode(cf_rowset **out, const char *dir, const cf_rowset_options *o,
                          cf_rs_mode mode, cf_error *err);
/* The same for the directory held open as dfd (taken over: closed with the
 * rowset, or now on failure; AT_FDCWD: by path), dir naming it in messages. */
cf_status cf_rs_open_mode_at(cf_rowset **out, int dfd, const char *dir, const cf_rowset_options *o,
                             cf_rs_mode mode, cf_error *err);
/* The same for directory `rel` below pdfd, a table's descriptor (borrowed: it
 * outlives the rowset), opened from it for each operation; dir names it in
 * messages. */
cf_status cf_rs_open_mode_in(cf_rowset **out, int pdfd, const char *rel, const char *dir,
                             const cf_rowset_options *o, cf_rs_mode mode, cf_error *err);
/* CF_OK when rs may be changed now (taking its lock first when it is its own). */
/* Log replay into a table's rowset (read-only ones included): update, delete
 * and reinsert change the in-memory delta store only (what they always do) and
 * need neither the writer lock nor a writable handle while this is on. */
void cf_rs_set_replay(cf_rowset *rs, bool on);
cf_status cf_rs_writable(cf_rowset *rs, cf_error *err);
size_t cf_rs_delta_file_count(const cf_rowset *rs);
cf_delta_reader *cf_rs_delta_file(const cf_rowset *rs, size_t i, cf_delta_type *type);
cf_delta_reader *cf_rs_dms_reader(cf_rowset *rs, cf_error *err, cf_status *st);
cf_reader *cf_rs_column_reader(const cf_rowset *rs, size_t col);
uint64_t cf_rs_rows(const cf_rowset *rs);
uint64_t cf_rs_insert_ts(const cf_rowset *rs);
const char *cf_rs_dir(const cf_rowset *rs);
/* The rowset's directory as a descriptor for one operation (AT_FDCWD: by path,
 * with cf_rs_dir; -1 with errno set when it cannot be opened), given back with
 * cf_rs_dir_done. */
int cf_rs_dir_use(const cf_rowset *rs);
void cf_rs_dir_done(const cf_rowset *rs, int fd);
cf_rs_manifest *cf_rs_manifest_of(cf_rowset *rs);
/* Reopen every file from the MANIFEST on disk (after a commit). */
cf_status cf_rs_reload(cf_rowset *rs, cf_error *err);
/* Open the rowset's files now if they are not (a rowset of a table opened for
 * writing opens them at first use). Any failure is CF_ECORRUPT, CF_EIO or
 * CF_ENOMEM, prefixed with the rowset's directory: never a "not found" a caller
 * could take for an absent key. Callers: key probes, scanners, compaction. */
cf_status cf_rs_load(cf_rowset *rs, cf_error *err);
/* Ordinal of an encoded key: CF_ENOTFOUND when absent. */
cf_status cf_rs_find_key(cf_rowset *rs, const uint8_t *key, size_t len, uint64_t *ord,
                         cf_error *err);
cf_status cf_rs_probe_key(cf_rowset *rs, const uint8_t *key, size_t len, uint64_t *ord,
                          bool *pruned, cf_error *err);
/* May the rowset hold the encoded key: has it rows, and does its min/max key
 * range cover the key? Reads only the MANIFEST's summary, no file. */
bool cf_rs_covers_key(cf_rowset *rs, const uint8_t *key, size_t len);
/* scan_load.c: copy the bytes of n binary slices into one piece of the arena
 * and point the slices at them, so they outlive the iterator call that made
 * them (the rowset scanner's batches, the Kudu tablet scanner's). */
cf_status cf_rs_keep_bytes(cf_arena *arena, cf_slice *v, size_t n, cf_error *err);
/* Key range of a bound on the key file: first ordinal whose key >= enc. */
cf_status cf_rs_lower_bound(cf_rowset *rs, const uint8_t *enc, size_t len, uint64_t *ord,
                            cf_error *err);

/* rowset.c, for bulk loads: add a REINSERT change list `rcl` of the deleted row
 * with encoded key `key` to the in-memory delta store at ts. Unlike
 * cf_rowset_reinsert, ts may equal last_ts (every row of a load shares its
 * timestamp; each row is reinserted at most once). CF_EINVAL when the row is
 * live, CF_ENOTSUP when the rowset never held the key. */
cf_status cf_rs_reinsert_rcl(cf_rowset *rs, const uint8_t *key, size_t len, cf_slice rcl,
                             uint64_t ts, cf_error *err);
/* clone.c: copy the rowset whose MANIFEST is m (in (sdfd, src_dir); its files, no
 * in-memory deltas) into the empty directory (ddfd, dst_dir): every file hard-linked
 * (copied, with mode, where links fail), then m written as dst_dir's MANIFEST. */
cf_status cf_rs_clone(const cf_rs_manifest *m, int sdfd, const char *src_dir, int ddfd,
                      const char *dst_dir, unsigned mode, cf_error *err);

/* compact.c: cf_rowset_compact without the pin handling; gc_prev: remove the
 * files the replaced MANIFEST named (only under the pin held exclusively). */
cf_status cf_rs_compact_in_place(cf_rowset *rs, uint64_t ahm, bool gc_prev, cf_error *err);
/* compact.c: merge the rows of n rowsets (disjoint keys, same schema; each is
 * flushed first) into a new rowset in (outdfd, outdir) (an existing empty directory),
 * history kept as cf_rowset_compact keeps it; writes outdir's MANIFEST. Its
 * files are created with permission bits `mode` (0: the defaults). */
cf_status cf_rs_compact_merge(cf_rowset *const *rs, size_t n, int outdfd, const char *outdir,
                              uint64_t ahm, unsigned mode, cf_error *err);
/* manifest.c: FNV-1a 64, the checksum of manifest files. */
uint64_t cf_rs_fnv1a(const uint8_t *p, size_t n);

/* table_commit.c, for bulk loads (table_import.c): a fresh rowset subdirectory, created
 * (its name and path malloc'd, *dfd the directory opened, closed by the caller; the first one of a
 * load writes a TABLET when there is none and cleans up a crashed writer's leftovers, as a flush
 * does; on failure the three are NULL, NULL, -1: nothing to free); removing such a directory of
 * this handle's while TABLET does not name it; opening a rowset through the table's cache. */
cf_status cf_table_reserve_rowset(cf_table *t, char **name, char **path, int *dfd, cf_error *err);
void cf_table_discard_rowset(cf_table *t, const char *name);
cf_status cf_table_open_rowset(const cf_table *t, const char *name, cf_rowset **out, cf_error *err);
/* Where the table holds an encoded key (keyvals: its key column values): *state
 * 0 = nowhere, 1 = a live row, 2 = a deleted row, in store *where (its name),
 * *store (the rowset's index, CF_TABLE_STORE_MRS for the MemRowSet). */
#define CF_TABLE_STORE_MRS SIZE_MAX
cf_status cf_table_key_state(cf_table *t, const uint8_t *key, size_t len,
                             const void *const *keyvals, int *state, const char **where,
                             size_t *store, cf_error *err);
/* Add n finished rowsets (names copied, handles taken over on success) to the
 * table with one TABLET write, the commit point; an empty root rowset is dropped
 * from the list. replaces (NULL: all SIZE_MAX): per new rowset, the index of the
 * table's rowset it takes the place of (a copy holding its rows and more), or
 * SIZE_MAX to add it. takes_mrs: one of them holds every row of the MemRowSet,
 * which is then emptied. The replaced rowsets (and the root rowset when it is
 * dropped) are removed after the commit, as merged ones are. last_ts becomes
 * at least ts. */
cf_status cf_table_commit_rowsets(cf_table *t, char *const *names, cf_rowset **rs, size_t n,
                                  const size_t *replaces, bool takes_mrs, uint64_t ts,
                                  cf_error *err);
/* The thread rule of a table handle (rowset.h "Threads", table_guard.c): one
 * recursive mutex taken by every call on the handle (a locked call may make
 * another), the count of changes, against which a scanner finds out that it is
 * stale, and the scanners made since the last change, whose hold on the stores
 * (rowset scanners) the next change frees first (table_scan.c). */
typedef struct cf_rs_guard {
    pthread_mutex_t mu;
    uint64_t gen;
    struct cf_table_scanner *live;
} cf_rs_guard;
void cf_rs_guard_detach_scanners(cf_rs_guard *g);
cf_status cf_rs_guard_init(cf_rs_guard *g, cf_error *err);
void cf_rs_guard_dispose(cf_rs_guard *g);
void cf_rs_guard_lock(cf_rs_guard *g);
void cf_rs_guard_unlock(cf_rs_guard *g);
cf_rs_guard *cf_rs_table_guard(cf_table *t);
/* table*.c: the calls of rowset.h (and the ones above) without the guard, which
 * table_guard.c's public wrappers take around them. */
cf_status cf_rs_table_insert(cf_table *t, const void *const *values, uint64_t ts, cf_error *err);
cf_status cf_rs_table_update(cf_table *t, const void *const *key, const cf_column_change *changes,
                             size_t n, uint64_t ts, cf_error *err);
cf_status cf_rs_table_delete(cf_table *t, const void *const *key, uint64_t ts, cf_error *err);
cf_status cf_rs_table_get(cf_table *t, const void *const *key, uint64_t snapshot, cf_row_batch *out,
                          cf_error *err);
cf_status cf_rs_table_flush(cf_table *t, cf_error *err);
cf_status cf_rs_table_sync(cf_table *t, cf_error *err);
cf_status cf_rs_table_compact(cf_table *t, uint64_t ahm, cf_error *err);
cf_status cf_rs_table_reserve_rowset(cf_table *t, char **name, char **path, int *dfd,
                                     cf_error *err);
cf_status cf_rs_table_key_state(cf_table *t, const uint8_t *key, size_t len,
                                const void *const *keyvals, int *state, const char **where,
                                size_t *store, cf_error *err);
cf_status cf_rs_table_commit_rowsets(cf_table *t, char *const *names, cf_rowset **rs, size_t n,
                                     const size_t *replaces, bool takes_mrs, uint64_t ts,
                                     cf_error *err);
/* The table's mode for new files (0 = the defaults). */
unsigned cf_table_file_mode(const cf_table *t);
/* What the last open's log replay did: ops applied, and rowsets a replayed
 * op's key was looked up in (bloom + key index). For tests and benchmarks. */
void cf_table_replay_stats(const cf_table *t, uint64_t *applied, uint64_t *probes);
/* A reader holds the pin (its rowsets open their files at first use); false
 * for a writer and for a reader that opened everything up front. */
bool cf_table_pinned(const cf_table *t);

#endif

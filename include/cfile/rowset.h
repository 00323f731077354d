/* cfile: rowsets, multi-column tables stored the way Kudu stores a DiskRowSet
 * (format §13): one CFile per column, a BloomFile over the encoded primary keys
 * (§11), an ad-hoc composite-key index when the key has several columns (§1.8),
 * REDO/UNDO DeltaFiles (§12), and a MANIFEST naming them (docs/ROWSET.md).
 *
 * Names: cf_rowset_* is one DiskRowSet and what makes or reads one
 * (cf_rowset_writer_*, cf_rowset_scanner_*); cf_table_* is a table and its
 * loader and scanner. What both share, and what Parquet writes also use, is
 * named for what it is, with no module prefix: a schema (cf_schema_*, its
 * cf_column definitions), the values of one column of an append (cf_colvec),
 * one column's new value in an update (cf_column_change), a predicate
 * (cf_pred, CF_PRED_*), scan options and stats (cf_scan_*), the rows a scan
 * or lookup returns (cf_row_batch), and timestamps (CF_SNAPSHOT_LATEST,
 * CF_TS_MAX). So a name says which object a call acts on, and the shared types
 * read the same in rowset and table code. (cf_rs_* is left to src/rowset's
 * private helpers; scripts/rename-rowset-api.py maps the names used before.)
 *
 * Call orders:
 *   schema:  (create | parse) (getters)* free
 *   names:   cf_schema_name_format, cf_schema_name_parse (no handle: any time, any thread)
 *   writer:  create append* finish? free       (free without finish leaves no rowset)
 *   rowset:  open (get | scanner_create | update | delete | reinsert | flush | compact)* free
 *   scanner: create next* free
 *   table:   open (insert | update | delete | get | table_scanner_* | flush | compact)*
 *            (close | free)
 *   loader:  create append* commit? free       (free without commit leaves the table as it was)
 *
 * Ownership: schemas, options, projections and predicate values are copied by
 * the call that takes them (a schema may be freed once the writer, rowset or
 * table is made). Rowsets, tables and scanners own their files, caches and
 * threads; a cache named in the options is borrowed (REQUIRES: it outlives the
 * rowset or table). cf_table_rowset_at's rowsets belong to the table. Views
 * handed out live in the handle that made them: a scanner's cf_row_batch until
 * its next call, cf_rowset_get's row until the next call on the rowset,
 * cf_table_get's until the next call on the table.
 * What must outlive what: table > its scanners and loader; rowset > its
 * scanners. REQUIRES: a scanner is freed before the next change to what it
 * scans (insert, update, delete, reinsert, flush, compact), and nothing changes
 * a table between cf_table_loader_create and the loader's commit or free.
 *
 * Threads: a rowset or a table handle is used by one thread at a time (its
 * in-memory stores and returned views change with every call); a scanner
 * likewise, though with threads > 1 it runs worker threads of its own inside
 * create/next/free. Separate read-only handles, in any threads or processes,
 * read one table at the same time.
 *
 * MVCC: as in Kudu, a snapshot at TS sees every operation with ts < TS;
 * CF_SNAPSHOT_LATEST sees everything. Every mutation needs a timestamp larger
 * than any the rowset has seen (cf_rowset_info.last_ts).
 *
 * One writer, many readers (docs/ROWSET.md "Concurrency"). A table directory
 * has one writer lock: an exclusive flock(2) on the file DIR/LOCK (created when
 * missing, never deleted), so it works across processes and between two handles
 * of one process, and a writer that dies releases it. Holders:
 *   - a table opened for writing (cf_table_options.read_only false, the default
 *     of cf_table_open) takes it before it reads TABLET and the MANIFESTs and
 *     holds it until cf_table_close/free;
 *   - a rowset opened on its own for writing (cf_rowset_open) takes it at its
 *     first mutation (update, delete, reinsert, flush, compact) and holds it
 *     until cf_rowset_free; it then checks that the MANIFEST on disk is still the
 *     generation it loaded, else fails (CF_ESTATE "rowset changed since it was
 *     opened; reopen"). The lock of a table's rs-<n> rowset is the table's;
 *   - cf_rowset_writer_create, from create until free.
 * A writer that finds the lock taken polls for up to lock_timeout_ms (default
 * 10000; 0 = one try), then fails with CF_EBUSY, naming the holder ("pid P HOST
 * COMMAND since TIME", which each holder writes into LOCK). Readers
 * (read_only handles) take no lock and never write; they see the one committed
 * version that was current when they opened (TABLET and MANIFESTs are replaced
 * atomically). A reader pins that version (docs/ROWSET.md "Readers: the pin"):
 * a shared flock(2) on the table directory itself, taken before it reads
 * TABLET and held until cf_table_free/close; the writer removes the files its
 * commits made obsolete only while it gets that flock exclusively without
 * waiting, and otherwise leaves them for a later clean-up. So a pinned reader
 * opens each rowset's files at first use, like a writer, and a long-lived
 * reader only delays the reclaiming of space, never a write. A reader that
 * finds the pin held exclusively (the writer removing files at that moment)
 * for more than ~50 ms opens every file up front instead, as before the pin.
 * A read_only handle refuses every mutation with CF_EINVAL "... opened
 * read-only". The lock and the pin are advisory and meant for local file
 * systems; do not flock(2) a table directory yourself.
 *
 * Threads. A cf_table handle may be used from several threads: insert, update,
 * delete, get, flush, sync, compact, last_ts, close, the bulk loader's commit
 * and cf_table_scanner_* on its scanners take the handle's mutex, so they run
 * one at a time, each whole, and the log they write replays. The setters
 * (cf_table_set_*) and the other getters take no lock: call them before the
 * handle is shared, or while no other thread uses it.
 * Timestamps are still the caller's: two threads that both pass
 * cf_table_last_ts(t) + 1 get one success and one CF_EINVAL "is not after"
 * (take the next one and retry, or give each thread its own range). A scanner
 * lives across calls: one made before a change (insert, update, delete, flush,
 * compaction, bulk-load commit) fails its next call with CF_ESTATE (the change
 * first makes it let go of the stores it read, so freeing it later is safe).
 * cf_table_close/free must not race with another call on the handle, and every
 * scanner must be freed before them.
 * A cf_rowset handle opened on its own has no mutex: one thread at a time.
 */
#ifndef CFILE_ROWSET_H
#define CFILE_ROWSET_H

#include "version.h" /* CF_HAVE_TABLES */
#if !CF_HAVE_TABLES
#error "this build of cfile has no table module (-DCF_WITH_TABLES=OFF): test CF_HAVE_TABLES"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache.h"
#include "status.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- schema ------------------------------------------------------------------------- */

/* Most columns a schema may have. */
#define CF_SCHEMA_MAX_COLUMNS 1024u
/* Longest column name in bytes (Kudu's --max_identifier_length default). */
#define CF_SCHEMA_MAX_NAME_LEN 256u

/* One column as a caller describes it. */
typedef struct cf_column {
    const char *name; /* what Kudu takes: 1..256 bytes of UTF-8, no NUL; copied */
    cf_type type;     /* element type for arrays */
    bool nullable;
    bool is_array;
    bool is_key;                /* key columns are the leading ones, not nullable, not
                                 * BOOL/FLOAT/DOUBLE, not arrays (format §1.8) */
    cf_encoding encoding;       /* AUTO = Kudu's default for the type */
    cf_compression compression; /* DEFAULT = none */
    uint32_t block_size;        /* 0 = 256 KiB */
    int precision, scale;       /* DECIMAL*: recorded only */
    int length;                 /* VARCHAR: recorded only */
} cf_column;

typedef struct cf_schema cf_schema;

/* Validate and copy `n` columns (ids are their positions; names are copied too).
 * CF_EINVAL names the bad column and why. A name is any Kudu takes (its master's
 * ValidateIdentifier): not empty, at most CF_SCHEMA_MAX_NAME_LEN bytes, UTF-8 as
 * Kudu's decoder reads it (which also takes UTF-16 surrogates and code points up
 * to U+1FFFFF, and refuses U+FFFD); names differ byte for byte (case counts). */
CF_API cf_status cf_schema_create(cf_schema **out, const cf_column *cols, size_t n, cf_error *err);
/* Parse "id INT64 KEY, name STRING NULL, tags INT32[] NULL, p DECIMAL64(10,2)
 * ENCODING bit_shuffle COMPRESSION lz4 BLOCK_SIZE 4096". Attributes: KEY, NULL,
 * NOT NULL, ENCODING e, COMPRESSION c, BLOCK_SIZE n; arrays as T[] or ARRAY<T>.
 * A name is written bare when it is [A-Za-z_][A-Za-z0-9_]*, otherwise in
 * backquotes with `` for a backquote inside: "`my-col` INT64 KEY, `a b` STRING,
 * `it``s` INT32" (cf_schema_name_format). */
CF_API cf_status cf_schema_parse(cf_schema **out, const char *text, cf_error *err);
/* As cf_schema_parse, but KEY is optional: a list of columns for something
 * that is not a table (`cfile parquet write`). A schema without a KEY column
 * is refused by cf_rowset_writer_create (and so by tables). */
CF_API cf_status cf_schema_parse_columns(cf_schema **out, const char *text, cf_error *err);
CF_API void cf_schema_free(cf_schema *s); /* NULL is a no-op */
CF_API size_t cf_schema_column_count(const cf_schema *s);
CF_API size_t cf_schema_key_count(const cf_schema *s);
/* Column i; strings live as long as s. NULL when i >= ncols. */
CF_API const cf_column *cf_schema_column_at(const cf_schema *s, size_t i);
/* Position of the column named `name`, or -1. */
CF_API int cf_schema_find(const cf_schema *s, const char *name);
/* The schema in cf_schema_parse's syntax into dst (cap bytes, NUL included);
 * returns the length it needs (excluding the NUL), like snprintf. Names are
 * quoted exactly when they must be (cf_schema_name_format), so a schema of plain
 * identifiers reads as it always did. */
CF_API size_t cf_schema_format(const cf_schema *s, char *dst, size_t cap);
/* One column name as the schema syntax writes it: bare when it is a plain
 * identifier [A-Za-z_][A-Za-z0-9_]*, otherwise in backquotes with every backquote
 * doubled (my-col -> `my-col`, a`b -> `a``b`). Into dst (cap bytes, NUL
 * included; dst may be NULL when cap is 0); returns the length it needs
 * (excluding the NUL), like snprintf. */
CF_API size_t cf_schema_name_format(const char *name, char *dst, size_t cap);
/* Read one column name at the start of text (no blanks skipped), bare or quoted
 * as cf_schema_name_format writes it: the name, unquoted, into dst (cap bytes, NUL
 * included; CF_SCHEMA_MAX_NAME_LEN + 1 holds every name a schema takes) and the
 * bytes of text it took into *used. CF_EINVAL when text starts with no name, a
 * backquote is not closed or the name does not fit; the name is not checked
 * otherwise (cf_schema_create does that). */
CF_API cf_status cf_schema_name_parse(char *dst, size_t cap, size_t *used, const char *text,
                                      cf_error *err);

#ifdef CF_STATIC_LINKING_ONLY /* not exported by libcfile.so: status.h */
/* The composite memcomparable key (format §1.8) of one row: key[i] points to key
 * column i's value in memory form (cf_slice for binary). Writes up to cap bytes
 * to dst; *len = the full length (CF_EBUFSIZE when it exceeds cap). */
CF_STATIC_API cf_status cf_schema_key_encode(const cf_schema *s, const void *const *key,
                                             uint8_t *dst, size_t cap, size_t *len, cf_error *err);
#endif /* CF_STATIC_LINKING_ONLY */

/* ---- writer ----------------------------------------------------------------------------- */

typedef struct cf_rowset_writer cf_rowset_writer;

#define CF_ROWSET_WRITER_OPTIONS_VERSION 1

typedef struct cf_rowset_writer_options {
    uint32_t version;   /* set by _init */
    uint64_t insert_ts; /* MVCC timestamp of the rows' insertion; default 1 */
    bool checksums;     /* CRC-32C in every CFile; default true */
    /* How long cf_rowset_writer_create waits for the directory's writer lock;
     * default 10000 ms. New fields go at the end. */
    uint32_t lock_timeout_ms;
} cf_rowset_writer_options;

CF_API void cf_rowset_writer_options_init(cf_rowset_writer_options *opts);

/* One column of an append: the memory forms of writer.h (cf_writer_append, and
 * cf_writer_append_arrays for array columns, where `values` holds the elements). */
typedef struct cf_colvec {
    const void *values;
    const uint8_t *nonnull;      /* NULL = all present */
    const uint32_t *elem_counts; /* arrays only */
    const uint8_t *elem_nonnull; /* arrays only; NULL = all present */
} cf_colvec;

/* Start a rowset in directory `dir` (created when missing), holding dir's writer
 * lock (CF_EBUSY after opts->lock_timeout_ms) until free. CF_EINVAL when dir
 * already holds a table (a TABLET) or a rowset with rows (an empty one, from
 * `table create`, is replaced). Nothing is visible until finish writes the
 * MANIFEST. */
CF_API cf_status cf_rowset_writer_create(cf_rowset_writer **out, const char *dir,
                                         const cf_schema *s, const cf_rowset_writer_options *opts,
                                         cf_error *err);
/* Append nrows rows, one cf_colvec per schema column. Rows must come in
 * strictly increasing key order: CF_EINVAL "row N: duplicate key" or "row N: key
 * out of order" otherwise (sticky, like every writer error). Memory use does not
 * grow with the row count. */
CF_API cf_status cf_rowset_writer_append(cf_rowset_writer *w, const cf_colvec *cols, size_t nrows,
                                         cf_error *err);
/* Finish every file, then write the MANIFEST atomically. */
CF_API cf_status cf_rowset_writer_finish(cf_rowset_writer *w, cf_error *err);
CF_API uint64_t cf_rowset_writer_rows(const cf_rowset_writer *w);
CF_API void
cf_rowset_writer_free(cf_rowset_writer *w); /* NULL is a no-op; abandons unfinished files */

/* Write an empty rowset (MANIFEST only) with schema s into dir
 * (cf_rowset_writer_create's rules, default options). */
CF_API cf_status cf_rowset_create_empty(const char *dir, const cf_schema *s, cf_error *err);

/* ---- rowset: open, info ---------------------------------------------------------------- */

typedef struct cf_rowset cf_rowset;

#define CF_SNAPSHOT_LATEST UINT64_MAX
/* Mutations (and a writer's insert_ts) take timestamps 1..CF_TS_MAX; larger
 * values are reserved (CF_SNAPSHOT_LATEST, and room above the last one used)
 * and refused with CF_EINVAL stating the range. */
#define CF_TS_MAX ((uint64_t)INT64_MAX)

typedef struct cf_rowset_info {
    uint64_t rows;       /* base rows (deleted ones included until compacted away) */
    uint64_t generation; /* MANIFEST generation, +1 per commit */
    uint64_t insert_ts;  /* rows were inserted at this timestamp */
    uint64_t last_ts;    /* largest timestamp used so far */
    size_t redo_files, undo_files;
    /* in files; 0 until the files are open: a table's rowsets (writers and
     * pinned readers) open their files at first use (cf_rowset_load opens
     * them now) */
    uint64_t redo_deltas, undo_deltas;
    uint64_t dms_deltas;       /* in memory, not yet flushed */
    cf_slice min_key, max_key; /* encoded keys of the first and last row (empty if none) */
    /* Ancient history mark: history before it was discarded by a compaction
     * (cf_rowset_compact's ahm, recorded in the MANIFEST); 0 = none. */
    uint64_t ahm;
} cf_rowset_info;

#define CF_ROWSET_OPTIONS_VERSION 1
/* Default capacity of a rowset's own block cache. Blocks that a mapped file
 * serves in place cost only a small per-entry charge (the cache then records
 * that their checksum was verified); compressed blocks cost their logical bytes. */
#define CF_ROWSET_DEFAULT_CACHE_BYTES ((size_t)64 << 20)

typedef struct cf_rowset_options {
    uint32_t version; /* set by _init */
    /* A block cache (cache.h) shared with other rowsets or readers, borrowed: it
     * must outlive the rowset. NULL (default): the rowset makes its own. */
    cf_cache *cache;
    /* Capacity of the rowset's own cache when `cache` is NULL; 0 = no cache
     * (every read checks and decompresses its block again). Default
     * CF_ROWSET_DEFAULT_CACHE_BYTES. */
    size_t cache_bytes;
    /* true: never write, take no lock; every mutation is CF_EINVAL. Default false. */
    bool read_only;
    /* How long the first mutation waits for the writer lock (default 10000 ms;
     * 0 = one try). New fields go at the end. */
    uint32_t lock_timeout_ms;
    /* Read the column, bloom and ad-hoc index files through mmap instead of
     * pread (default false). Faster on a warm page cache and the resident set
     * then counts every page read; but a file truncated underneath or a media
     * error arrives as SIGBUS (the process dies) where pread returns CF_EIO /
     * CF_ECORRUPT: the caveat of cf_io_open_mmap (docs/PERFORMANCE.md, "Why
     * pread stays the default"). */
    bool mmap;
} cf_rowset_options;

/* Fill opts with the defaults. */
CF_API void cf_rowset_options_init(cf_rowset_options *opts);
/* Open the rowset in dir with options opts (NULL = the defaults: its own block
 * cache of CF_ROWSET_DEFAULT_CACHE_BYTES; writable, taking the writer lock at
 * the first mutation): reads and checks the MANIFEST (CF_ENOTFOUND when there
 * is none, CF_ECORRUPT when it is damaged), opens every file it names. CF_EINVAL
 * for a bad option. */
CF_API cf_status cf_rowset_open(cf_rowset **out, const char *dir, const cf_rowset_options *opts,
                                cf_error *err);
/* Open the rowset's files now. A table (opened for writing, or read_only and
 * pinned) reads only each rowset's MANIFEST when it opens and opens a rowset's
 * files when a lookup, scan, mutation or compaction first touches it
 * (docs/ROWSET.md "Opening a table"); every other rowset handle has them open
 * already (then this is a no-op). CF_ECORRUPT naming the rowset when a file is
 * missing or damaged. */
CF_API cf_status cf_rowset_load(cf_rowset *rs, cf_error *err);
/* The block cache the rowset reads through (its own or the shared one), or NULL. */
CF_API cf_cache *cf_rowset_cache(const cf_rowset *rs);
/* Unflushed mutations are lost: call cf_rowset_flush first. Releases the writer
 * lock if the rowset took it. NULL is a no-op. */
CF_API void cf_rowset_free(cf_rowset *rs);
CF_API const cf_schema *cf_rowset_schema(const cf_rowset *rs);
/* Slices live until the next mutation, flush or compaction. */
CF_API void cf_rowset_get_info(const cf_rowset *rs, cf_rowset_info *out);
/* File i of the current MANIFEST (name relative to dir, and its role: "column",
 * "bloom", "adhoc", "redo", "undo"); false past the last. */
CF_API bool cf_rowset_file_at(const cf_rowset *rs, size_t i, const char **name, const char **role);

/* ---- reading ------------------------------------------------------------------------------ */

typedef enum cf_pred_op {
    CF_PRED_EQ,
    CF_PRED_NE,
    CF_PRED_LT,
    CF_PRED_LE,
    CF_PRED_GT,
    CF_PRED_GE,
    CF_PRED_IS_NULL,
    CF_PRED_IS_NOT_NULL
} cf_pred_op;

/* A predicate on column `col`: value in memory form (cf_slice for binary), unused
 * for IS [NOT] NULL. A comparison is false for NULL rows. Array columns take only
 * IS [NOT] NULL. */
typedef struct cf_pred {
    size_t col;
    cf_pred_op op;
    const void *value;
} cf_pred;

#define CF_SCAN_OPTIONS_VERSION 1

typedef struct cf_scan_options {
    uint32_t version;   /* set by _init */
    const size_t *cols; /* projection: column positions, any order; NULL = all */
    size_t ncols;
    const cf_pred *preds; /* ANDed */
    size_t npreds;
    uint64_t snapshot; /* default CF_SNAPSHOT_LATEST */
    size_t batch_rows; /* rows examined per batch; default 1024 */
    /* Threads that read a batch's columns (docs/ROWSET.md "Reading: threads"):
     * 1 (default) = the calling thread only; N in 2..CF_SCAN_MAX_THREADS = the
     * caller and up to N-1 worker threads (never more threads than projected
     * and predicate columns), started by create and joined by free;
     * CF_SCAN_THREADS_AUTO (0) = one per online CPU. Results (rows, order,
     * batches, stats, errors) are the same for every value. New fields go at
     * the end. */
    size_t threads;
} cf_scan_options;

#define CF_SCAN_THREADS_AUTO 0u
#define CF_SCAN_MAX_THREADS 64u

CF_API void cf_scan_options_init(cf_scan_options *opts);

/* A batch of matching rows, projected columns in projection order. Views owned by
 * the scanner, valid until its next call. cols[j] follows types.h's cf_batch
 * (values, nonnull, and elem_offsets/elem_count/elem_nonnull for arrays);
 * first_ord there is meaningless. ords[i] = the row's ordinal in the rowset. */
typedef struct cf_row_batch {
    size_t count; /* 0 = the end */
    size_t ncols;
    const cf_batch *cols;
    const uint64_t *ords;
} cf_row_batch;

/* What the scanner skipped, for tests and `table scan --stats`. */
typedef struct cf_scan_stats {
    uint64_t rows_in_range; /* rows left after key-range pushdown */
    uint64_t rows_examined;
    uint64_t batches_skipped; /* batches where no row passed, other columns unread */
    bool bloom_pruned;        /* an equality on the whole key was absent from the bloom */
    /* Data blocks of a predicate column that its encoding ruled out (DICT
     * codewords, RLE runs, only NULLs: iter.h's cf_iter_block_at), with rows_skipped
     * rows of every column left unread; those rows are not counted as examined. */
    uint64_t blocks_skipped;
    uint64_t rows_skipped;
} cf_scan_stats;

typedef struct cf_rowset_scanner cf_rowset_scanner;

/* Predicates on leading key columns become an ordinal range through the key
 * index; equality on the whole key probes the bloom first. A comparison on a
 * column whose values no delta of the scan changes (no UPDATE of it, no
 * REINSERT) skips the data blocks its encoding rules out (DICT codewords, RLE
 * runs, blocks of NULLs) without reading any column there. Other predicates
 * are evaluated after deltas are applied, reading the remaining columns only
 * for batches with matches. CF_EINVAL for a bad column, predicate or
 * thread count; CF_EIO when a worker thread cannot be started. */
CF_API cf_status cf_rowset_scanner_create(cf_rowset_scanner **out, cf_rowset *rs,
                                          const cf_scan_options *opts, cf_error *err);
/* The next batch. With opts->threads > 1 the columns read after the predicates
 * are spread over the scanner's threads, and the call returns when all of them
 * are read (no thread works between calls); a failure is reported as a single
 * thread would report it (the first failing column in projection order). */
CF_API cf_status cf_rowset_scanner_next(cf_rowset_scanner *sc, cf_row_batch *out, cf_error *err);
CF_API const cf_scan_stats *cf_rowset_scanner_stats(const cf_rowset_scanner *sc);
CF_API void cf_rowset_scanner_free(cf_rowset_scanner *sc); /* NULL is a no-op */

/* Point lookup: bloom, then key index, then deltas at `snapshot`. On success out
 * holds one row of all columns (views valid until the next call on rs).
 * REQUIRES (here and for every call below that takes `key`): key[i] points to
 * key column i's value in memory form (cf_slice for binary), for each of the
 * cf_schema_key_count key columns; the count and widths cannot be checked.
 * CF_ENOTFOUND when the key is absent or deleted at the snapshot. A snapshot
 * older than the recorded ancient history mark (cf_rowset_info.ahm) is refused,
 * for lookups and scans alike: CF_EINVAL "history before AHM was discarded by
 * compaction". */
CF_API cf_status cf_rowset_get(cf_rowset *rs, const void *const *key, uint64_t snapshot,
                               cf_row_batch *out, cf_error *err);

/* ---- mutations ----------------------------------------------------------------------------- */

/* Set column `col` to `value` (memory form; NULL = SQL NULL). The value of an
 * array column is a cf_array_cell (types.h) of the column's element type. */
typedef struct cf_column_change {
    size_t col;
    const void *value;
} cf_column_change;

/* Update a live row at ts. CF_ENOTFOUND: no live row with that key; CF_EINVAL:
 * ts <= last_ts, a key column, NULL into a non-nullable one, an array cell of
 * another element type or of more than 65535 elements (CF_ENOTSUP for INT128 and
 * DECIMAL128 arrays: Kudu has no serialized form for them). */
CF_API cf_status cf_rowset_update(cf_rowset *rs, const void *const *key,
                                  const cf_column_change *changes, size_t n, uint64_t ts,
                                  cf_error *err);
/* Delete a live row at ts. CF_ENOTFOUND when absent or already deleted. */
CF_API cf_status cf_rowset_delete(cf_rowset *rs, const void *const *key, uint64_t ts,
                                  cf_error *err);
/* Insert again a row that this rowset holds as deleted; values[i] for every column
 * (key columns ignored, NULL = SQL NULL). CF_EINVAL when the row is live;
 * CF_ENOTSUP for a key the rowset never held (new keys go to a table's
 * MemRowSet: cf_table_insert). */
CF_API cf_status cf_rowset_reinsert(cf_rowset *rs, const void *const *key,
                                    const void *const *values, uint64_t ts, cf_error *err);
/* Write the in-memory deltas to a new REDO DeltaFile and commit a new MANIFEST. */
CF_API cf_status cf_rowset_flush(cf_rowset *rs, cf_error *err);
/* Flush, then rewrite base data + deltas into new files: the base becomes the
 * latest state, history before it goes to one UNDO file, rows deleted at the end
 * stay with a REDO DELETE. History older than `ahm` (ancient history mark) is
 * dropped: UNDOs with ts < ahm, rows deleted before ahm. The mark is recorded in
 * the MANIFEST (it never moves back), and reads at older snapshots are refused
 * from then on. The new MANIFEST replaces the old one atomically; the old files
 * are then removed, unless a table reader holds the pin (then they stay: a
 * leak, as after a crash between the commit and the removal). */
CF_API cf_status cf_rowset_compact(cf_rowset *rs, uint64_t ahm, cf_error *err);

/* ---- tables: a MemRowSet plus any number of DiskRowSets ----------------------------------
 *
 * A table is a directory holding rowsets the way a Kudu tablet does: new rows go
 * to an in-memory MemRowSet (sorted by encoded key, each row with its insert
 * timestamp and mutations), which is flushed to a new DiskRowSet (a rowset
 * subdirectory) when it or the write-ahead log grows past a size, on
 * cf_table_flush and before a compaction. Every insert, update and delete is
 * appended to the table's write-ahead log (DIR/wal/, docs/ROWSET.md) and, by
 * default, synced before it returns success; opening a table replays the log,
 * so nothing acknowledged is lost when a process dies. An op that runs out of
 * memory is refused before it is applied (CF_ENOMEM; the handle stays usable).
 * If the log's write or sync fails, the op is already applied in memory: the
 * handle then returns that error from every later write (close included) and
 * must be reopened. A TABLET file
 * lists the rowsets (docs/ROWSET.md); a directory
 * holding only a MANIFEST (one rowset, the older layout) opens as a table of
 * that rowset. Every key lives in one store: an insert is refused while a live
 * row has its key, and a key deleted earlier is reinserted in the store that
 * holds it. Reads merge all stores in key order. Timestamps follow the rowset
 * rules above, table-wide. A handle is used by one thread at a time; one
 * writer handle per table at a time, any number of readers (the writer lock,
 * at the top of this file).
 */
typedef struct cf_table cf_table;

/* Default MemRowSet size that triggers a flush. */
#define CF_TABLE_FLUSH_BYTES (64u << 20)
/* Default size of the write-ahead log past which the next operation first
 * flushes everything (a checkpoint), so that replay on open stays short. */
#define CF_TABLE_WAL_MAX_BYTES ((uint64_t)8 << 20)
/* Group commit: default bytes appended to the log between two fdatasyncs. */
#define CF_TABLE_SYNC_BYTES ((uint64_t)1 << 20)

/* When the write-ahead log is synced (docs/ROWSET.md "Write-ahead log"). Every
 * mode writes each op to the log before it returns, so a killed process never
 * loses an acknowledged op; the modes differ on a power loss or OS crash. */
typedef enum cf_table_sync_mode {
    /* fdatasync before each insert/update/delete returns (default) */
    CF_TABLE_SYNC_COMMIT = 0,
    /* group commit: the caller commits a group of ops with cf_table_sync (also
     * done by flush and close, and after sync_bytes of log); an OS crash may
     * lose the ops after the last sync */
    CF_TABLE_SYNC_GROUP = 1,
    /* never fdatasync the log (bulk loads): an OS crash may lose any op not yet
     * flushed to rowset files */
    CF_TABLE_SYNC_NONE = 2
} cf_table_sync_mode;

#define CF_TABLE_OPTIONS_VERSION 1

typedef struct cf_table_options {
    uint32_t version; /* set by _init */
    /* Every rowset of the table reads through one block cache: `cache` (shared,
     * borrowed: it must outlive the table) or, when NULL (default), the table's
     * own of cache_bytes (default CF_ROWSET_DEFAULT_CACHE_BYTES; 0 = none). */
    cf_cache *cache;
    size_t cache_bytes;
    /* false (default): a writer, holding the table's writer lock from open to
     * close/free. true: a reader, taking no lock (it pins its version, see the
     * top of this file); every mutation (insert, update, delete, flush,
     * compact) is CF_EINVAL "table opened read-only". */
    bool read_only;
    /* How long a writer's open waits for the lock before CF_EBUSY; default
     * 10000 ms, 0 = one try. */
    uint32_t lock_timeout_ms;
    /* Automatic compaction after each flush (see CF_TABLE_COMPACT_FANOUT below):
     * default true. A read-only table never compacts. */
    bool auto_compact;
    /* Most input bytes one automatic merge may read; default
     * CF_TABLE_COMPACT_BUDGET (128 MiB), must be > 0. */
    uint64_t compact_budget_bytes;
    /* The write-ahead log (docs/ROWSET.md "Write-ahead log"): when it is synced
     * (default CF_TABLE_SYNC_COMMIT), how many bytes group commit appends
     * between two syncs by itself (default CF_TABLE_SYNC_BYTES), and the log
     * size past which everything is flushed (a checkpoint; default
     * CF_TABLE_WAL_MAX_BYTES, at most 1 GiB). As cf_table_set_sync and
     * cf_table_set_wal_max_bytes. */
    cf_table_sync_mode sync_mode;
    uint64_t sync_bytes;
    uint64_t wal_max_bytes;
    /* Every rowset reads its files through mmap instead of pread (default
     * false): cf_rowset_options.mmap, with its SIGBUS caveat. */
    bool mmap;
    /* New fields go at the end (each with its default set by _init). */
} cf_table_options;

/* Fill opts with the defaults. */
CF_API void cf_table_options_init(cf_table_options *opts);
/* Open the table in dir with options opts (NULL = the defaults: for writing, its
 * own block cache). CF_ENOTFOUND when dir holds no table, CF_EBUSY when another
 * writer keeps the lock past opts->lock_timeout_ms (default 10 s), CF_EINVAL for a
 * bad option. */
CF_API cf_status cf_table_open(cf_table **out, const char *dir, const cf_table_options *opts,
                               cf_error *err);
/* The table's block cache, or NULL. */
CF_API cf_cache *cf_table_cache(const cf_table *t);
/* Sync the log (group commit's last ops), then free; no flush: the log holds
 * every op. Nothing to sync for a read-only table. The table is freed even on
 * error. */
CF_API cf_status cf_table_close(cf_table *t, cf_error *err);
/* Free without syncing or flushing: every op already returned is in the log
 * (synced unless the sync mode says otherwise). Releases the writer lock. NULL
 * is a no-op. */
CF_API void cf_table_free(cf_table *t);
/* MemRowSet bytes above which an insert or mutation flushes it (0 = default). */
CF_API void cf_table_set_flush_bytes(cf_table *t, size_t bytes);
/* How the write-ahead log is synced (default CF_TABLE_SYNC_COMMIT); sync_bytes:
 * group commit syncs by itself after this many bytes of log (0 = default
 * CF_TABLE_SYNC_BYTES). Switching away from a mode that did not sync does not
 * sync what was appended before: call cf_table_sync. */
CF_API void cf_table_set_sync(cf_table *t, cf_table_sync_mode mode, uint64_t sync_bytes);
/* Log size past which the next op first flushes everything (a checkpoint);
 * 0 = default CF_TABLE_WAL_MAX_BYTES. Replay on open reads at most about this
 * much. */
CF_API void cf_table_set_wal_max_bytes(cf_table *t, uint64_t bytes);
CF_API const cf_schema *cf_table_schema(const cf_table *t);
/* Largest timestamp used so far: the next operation needs a larger one. */
CF_API uint64_t cf_table_last_ts(const cf_table *t);
/* The table's ancient history mark: the largest of its rowsets' (0 = none).
 * Reads at a snapshot older than it are refused (CF_EINVAL). */
CF_API uint64_t cf_table_ahm(const cf_table *t);
/* Rows in the MemRowSet (deleted ones included). */
CF_API size_t cf_table_mrs_rows(const cf_table *t);
/* The DiskRowSets, in TABLET order, and their directory names ("." = dir itself). */
CF_API size_t cf_table_rowset_count(const cf_table *t);
/* Rowset i, owned by the table (NULL when i >= count); it writes under the
 * table's lock (or refuses to, when the table is read-only). */
CF_API cf_rowset *cf_table_rowset_at(const cf_table *t, size_t i, const char **name);
/* Whether t was opened read-only. */
CF_API bool cf_table_read_only(const cf_table *t);

/* Insert a row at ts: values[i] for every column (memory form, NULL = SQL NULL).
 * REQUIRES: values holds cf_schema_column_count pointers (not checked).
 * An array column's value is a cf_array_cell (as for updates). CF_EINVAL
 * "duplicate key" when a live row has the key, or for a bad value or timestamp. */
CF_API cf_status cf_table_insert(cf_table *t, const void *const *values, uint64_t ts,
                                 cf_error *err);
/* As cf_rowset_update / cf_rowset_delete / cf_rowset_get, over every store. */
CF_API cf_status cf_table_update(cf_table *t, const void *const *key,
                                 const cf_column_change *changes, size_t n, uint64_t ts,
                                 cf_error *err);
CF_API cf_status cf_table_delete(cf_table *t, const void *const *key, uint64_t ts, cf_error *err);
CF_API cf_status cf_table_get(cf_table *t, const void *const *key, uint64_t snapshot,
                              cf_row_batch *out, cf_error *err);
/* Write the MemRowSet as a new DiskRowSet and each rowset's deltas as REDO files,
 * then start a new log segment and remove the old one (a checkpoint). Happens by
 * itself before an op once the MemRowSet passes its flush size or the log
 * passes wal_max_bytes. */
CF_API cf_status cf_table_flush(cf_table *t, cf_error *err);
/* Make every op so far durable (fdatasync of the log): the commit point of a
 * group in CF_TABLE_SYNC_GROUP mode; a no-op for a reader. */
CF_API cf_status cf_table_sync(cf_table *t, cf_error *err);
/* Flush, then merge every rowset into one (cf_rowset_compact's rules for history
 * and `ahm`); the new TABLET replaces the old atomically, then the old rowsets
 * are removed (once no reader holds the pin). A table of one rowset is
 * compacted in place when no reader holds the pin, else into a new rowset
 * directory. */
CF_API cf_status cf_table_compact(cf_table *t, uint64_t ahm, cf_error *err);

/* Automatic compaction. After each flush of the MemRowSet (cf_table_flush,
 * cf_table_close, or an insert or mutation past the flush size) the table merges
 * rowsets of similar row counts: when CF_TABLE_COMPACT_FANOUT (K) or more
 * rowsets share a size tier (rows < K, then [K^t, K^(t+1)) rows), the smallest
 * of the lowest such tier, up to budget_bytes of input and
 * CF_TABLE_COMPACT_MAX_INPUTS rowsets, are merged into one new rowset, again
 * until no tier is full. A table of N rows then holds at most
 * (K - 1) * (floor(log_K N) + 1) rowsets, plus rowsets too large for the budget
 * to merge K at a time; each row is rewritten at most floor(log_K N) + 1 times.
 * Merges keep all history (ahm 0) and are crash-safe as cf_table_compact is
 * (docs/ROWSET.md "Automatic compaction"). */
#define CF_TABLE_COMPACT_FANOUT 4
#define CF_TABLE_COMPACT_BUDGET ((uint64_t)128 << 20)
#define CF_TABLE_COMPACT_MAX_INPUTS 64
/* Change cf_table_options.auto_compact and compact_budget_bytes of an open
 * table (budget 0 = CF_TABLE_COMPACT_BUDGET). */
CF_API void cf_table_set_compaction(cf_table *t, bool on, uint64_t budget_bytes);
/* How the automatic compaction after the last flush went. A merge that fails
 * (disk full, out of memory) is not an error of the flush or of the operation
 * that triggered it, which are committed; the table stays as it was, and the
 * merge is tried again after the next flush. CF_OK, or the failure's status
 * with its message copied to err (may be NULL). */
CF_API cf_status cf_table_compaction_status(const cf_table *t, cf_error *err);

/* A scan of every store at a snapshot, rows in key order, options and batches as
 * for a rowset scanner (ords[i] = the row's ordinal within its store; with
 * threads > 1 the rowset scanners share one set of worker threads). A scanner
 * made before a change to its table (insert, update, delete, flush, compact)
 * fails with CF_ESTATE after it, and must be freed before its table (see
 * "Threads" at the top); cf_table_get's views last until the next call on the
 * table. */
typedef struct cf_table_scanner cf_table_scanner;
CF_API cf_status cf_table_scanner_create(cf_table_scanner **out, cf_table *t,
                                         const cf_scan_options *opts, cf_error *err);
CF_API cf_status cf_table_scanner_next(cf_table_scanner *sc, cf_row_batch *out, cf_error *err);
/* The sums over the rowsets scanned (MemRowSet rows count as examined). */
CF_API const cf_scan_stats *cf_table_scanner_stats(const cf_table_scanner *sc);
CF_API void cf_table_scanner_free(cf_table_scanner *sc); /* NULL is a no-op */

/* ---- bulk loads: many rows, all or nothing ------------------------------------------------
 *
 * A loader adds rows to a table as one commit. Rows that arrive in increasing key
 * order stream straight into a new rowset (memory does not grow with them); rows
 * out of order are sorted in runs of opts->memory_bytes, spilled to temporary
 * files in the table directory when they need more, and merged at commit into
 * one new rowset (docs/ROWSET.md "Bulk loads"). These rowset directories are not
 * named by TABLET until cf_table_loader_commit names them all in one TABLET write
 * (docs/ROWSET.md "Bulk loads"): before that, nothing of the load is visible, and
 * an error, cf_table_loader_free or a crash leaves the table as it was (the
 * directories are removed by free, or by the table's clean-up after a crash).
 *
 * A key the table holds live, or one the load already had, is CF_EINVAL
 * "duplicate key" (the failing row is cf_table_loader_error_row; among rows
 * out of order it may be found only by cf_table_loader_commit). A key the
 * table holds as a deleted row is reinserted where it lives, as cf_table_insert
 * does, within the same commit: such rows are kept aside until
 * cf_table_loader_commit, which adds them as REINSERT deltas to copies of the
 * rowsets holding those keys (sharing their files through hard links) and to a
 * rowset the MemRowSet is flushed to, and names the copies in place of the
 * originals in the same TABLET write; snapshots before the load still see
 * those rows deleted. Every row is inserted at one
 * timestamp, opts->ts (default: the table's last_ts + 1; for a new table, one empty
 * rowset with no history, any ts >= 1 and default 1), so a snapshot sees all of
 * the load or none of it. The table must not be changed by other calls between
 * create and commit/free.
 *
 * Call order: loader_create loader_append* loader_commit? loader_free
 * (any error of an append is sticky but a CF_ENOMEM before it took a row,
 * and so is every error of commit: only free remains).
 */
typedef struct cf_table_loader cf_table_loader;

#define CF_TABLE_LOADER_OPTIONS_VERSION 1
/* Default memory for sorting out-of-order rows (records, index, merge buffers). */
#define CF_TABLE_LOADER_MEMORY_BYTES ((size_t)256 << 20)

typedef struct cf_table_loader_options {
    uint32_t version;    /* set by _init */
    uint64_t ts;         /* insert timestamp; 0 (default) = last_ts + 1 */
    size_t memory_bytes; /* default CF_TABLE_LOADER_MEMORY_BYTES */
} cf_table_loader_options;

CF_API void cf_table_loader_options_init(cf_table_loader_options *opts);
CF_API cf_status cf_table_loader_create(cf_table_loader **out, cf_table *t,
                                        const cf_table_loader_options *opts, cf_error *err);
/* Add nrows rows (one cf_colvec per schema column, as cf_rowset_writer_append
 * takes them; NULL in a non-nullable column is CF_EINVAL). */
CF_API cf_status cf_table_loader_append(cf_table_loader *l, const cf_colvec *cols, size_t nrows,
                                        cf_error *err);
/* 0-based row (counting every row appended) that the last error was about, or
 * UINT64_MAX when it was about none (I/O). */
CF_API uint64_t cf_table_loader_error_row(const cf_table_loader *l);
CF_API uint64_t cf_table_loader_rows(const cf_table_loader *l);
/* Write what is held and the reinserts, then name every new rowset (and the
 * copies of the rowsets the reinserts changed) in one TABLET write. Before that
 * write it may flush in-memory deltas of those rowsets into their own files (as
 * cf_table_flush would; nothing visible changes). */
CF_API cf_status cf_table_loader_commit(cf_table_loader *l, cf_error *err);
/* Removes the rowsets of a load not committed. NULL is a no-op. */
CF_API void cf_table_loader_free(cf_table_loader *l);

#ifdef __cplusplus
}
#endif
#endif

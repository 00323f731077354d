/* The CLI's one CSV reader (RFC 4180), used by `cfile write` and `cfile table
 * import`, and the CSV form of one value as they read it (what `cfile dump
 * --format csv` and `cfile table scan --format csv` print: vprint.h CF_VP_CSV).
 *
 * Records are read one at a time from a stream or a memory buffer; memory grows
 * with the longest record only. Fields are separated by commas, records by LF or
 * CRLF. A field starting with '"' is quoted: it ends at the next lone '"' ("" is
 * a quote), may hold commas, CR and LF, and must be followed by a comma or the
 * end of the record. A UTF-8 byte order mark at the very start is skipped.
 *
 * Errors name the input, the line (1-based, physical lines) and the column
 * (1-based byte offset in that line):
 *   text after the closing quote of a field      ("a"b,)
 *   a quote inside an unquoted field             (a"b)
 *   a quoted field still open at the end of input (names where it opened)
 *   a record longer than max_record_len
 *
 * Call order: (init_file | init_mem) next* dispose.
 */
#ifndef CF_CLI_CSV_H
#define CF_CLI_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cfile/cfile.h>
#if CF_HAVE_PARQUET
#include <cfile/parquet.h>
#endif
#if CF_HAVE_TABLES
#include <cfile/rowset.h>
#endif

#include "cli.h"
#include "json.h"

/* Longest record (its field bytes) a reader accepts unless told otherwise. */
#define CF_CSV_MAX_RECORD_LEN ((size_t)1 << 30)

typedef struct cf_csv_field {
    const char *data; /* NUL-terminated (the field may hold NULs too); owned by the reader */
    size_t len;
    bool quoted;        /* "" is the empty string, an empty unquoted field may be NULL */
    uint64_t line, col; /* where the field starts */
} cf_csv_field;

typedef struct cf_csv {
    const char *name; /* for messages */
    FILE *f;          /* NULL when reading memory */
    const char *mem;
    size_t mem_len, mem_off;
    char *buf; /* stream input buffer */
    size_t buf_len, buf_off, buf_cap;
    bool eof, started;
    uint64_t line, col; /* position of the next byte */
    char *rec;          /* field bytes of the current record, each NUL-terminated */
    size_t rec_len, rec_cap;
    cf_csv_field *fields;
    size_t nfields, fields_cap;
    size_t max_record_len; /* default CF_CSV_MAX_RECORD_LEN */
    uint64_t record_line;  /* first line of the last record returned */
    char msg[320];         /* the last error */
} cf_csv;

/* Read from f (not closed by the reader) or from len bytes at p (borrowed). */
void cf_csv_init_file(cf_csv *r, FILE *f, const char *name);
void cf_csv_init_mem(cf_csv *r, const void *p, size_t len, const char *name);
void cf_csv_dispose(cf_csv *r);

/* The next record: 1 with *fields / *n (views valid until the next call), 0 at the
 * end of input, -1 on error (message in r->msg, with name, line and column). An
 * empty line is a record of one empty unquoted field. */
int cf_csv_next(cf_csv *r, const cf_csv_field **fields, size_t *n);

/* ---- values ------------------------------------------------------------------------------ */

/* One CSV field as the JSON value form (values.h) of a value of type t, for
 * cf_cli_value_parse / cf_cli_column_add: an empty unquoted field is null when
 * `nullable` or t is not binary (a non-nullable column then reports it); "" is
 * the empty string; STRING/VARCHAR take the field's bytes as they are (never
 * read as JSON, so "null" and {"hex": ...} are text); BINARY is hex; BOOL
 * true/false/1/0 in any case; integers decimal; FLOAT/DOUBLE decimal or NaN,
 * Infinity, -Infinity, 0x<bits>; is_array: the field is a JSON array of the value
 * forms (parsed into the arena). Returns 0, or -1 with msg. */
int cf_csv_json(const cf_csv_field *f, cf_type t, bool is_array, bool nullable, cf_json *out,
                cf_cli_arena *arena, char *msg, size_t msg_cap);

#if CF_HAVE_TABLES && CF_HAVE_PARQUET
/* Rows of CSV (with a header naming the columns) or JSON lines ({"col": value})
 * read from `in` (named `file` in messages) into a Parquet writer whose columns
 * are s's, in batches; progress (may be NULL) after each. *rows gets the rows
 * appended. Parsed on `threads` threads (0: one per CPU), batches appended in
 * input order (import_rows.h). Returns an exit code; messages name the line
 * and column. */
int cf_cli_rows_to_parquet(cf_cli *c, const char *file, FILE *in, bool jsonl, size_t threads,
                           const cf_schema *s, cf_parquet_writer *pw,
                           void (*progress)(void *ctx, uint64_t rows), void *ctx, uint64_t *rows);

#endif

#if CF_HAVE_TABLES
/* Fills a table loader with rows (the table's schema s; new_table: the table
 * was made for this load); *rows = rows appended. Returns an exit code. */
typedef int (*cf_cli_load_fn)(void *ctx, cf_cli *c, cf_table_loader *ld, const cf_schema *s,
                              bool new_table, uint64_t *rows);

/* Rows into the table at dir through one loader (rowset.h "bulk loads"): all
 * or nothing, holding the table's writer lock (waiting up to lock_ms for it),
 * every row at timestamp ts when has_ts. A directory without a table gets one
 * with schema ns (removed again, with the directory if made here, when the load
 * fails); without ns that is a usage error saying no_table. same_schema: ns,
 * when given for an existing table, must be the table's schema. */
int cf_cli_table_load(cf_cli *c, const char *dir, const cf_schema *ns, bool same_schema,
                      const char *no_table, bool has_ts, uint64_t ts, uint32_t lock_ms,
                      cf_cli_load_fn fn, void *ctx, uint64_t *rows);

/* `cfile table import DIR FILE` (cmd_table_import.c): FILE ("-" = stdin) as CSV
 * (parsed on `threads` threads, 0 = one per online CPU, when it is a regular file)
 * with a header row, or JSON lines of {"column": value} objects (format "jsonl",
 * or NULL: by the name's suffix .jsonl/.json), loaded all or nothing, holding
 * the table's writer lock (waiting up to lock_ms for it); memory_bytes: the
 * loader's sort budget (0: its default). */
int cf_cmd_table_import(cf_cli *c, const char *dir, const char *file, const char *schema,
                        const char *format, bool has_ts, uint64_t ts, uint32_t lock_ms,
                        size_t memory_bytes, size_t threads, bool json);

/* "SIZE" with an optional K, M or G (binary) suffix, at least 64K: -1 otherwise. */
int cf_cli_parse_memory(const char *s, size_t *out);
#endif

#endif

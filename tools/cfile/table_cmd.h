/* What the `cfile table` subcommands share (cmd_table*.c): the parsed command
 * line and the way every subcommand opens the table.
 *
 * cmd_table.c       usage, options, which subcommand takes which, dispatch
 * cmd_table_read.c  scan and get, and the text/csv/jsonl row printer
 * cmd_table_write.c create, insert, update, delete, flush and compact
 * cmd_table_info.c  info (text, JSON and --svg)
 * cmd_table_import.c import (csv.h)
 *
 * Each subcommand gets the table directory and the options; it returns an exit
 * code (cli.h) and prints its own errors.
 */
#ifndef CF_CLI_TABLE_CMD_H
#define CF_CLI_TABLE_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/rowset.h>

#include "cli.h"

/* The options of `cfile table` (every subcommand's; cmd_table.c rejects the
 * ones a subcommand does not take). */
typedef struct cf_table_args {
    const char *schema, *columns, *where, *set, *row, *format, *svg;
    const char **keys; /* every --key, in order (malloc'd; cf_cmd_table frees it) */
    int nkeys;
    bool json, stats, has_asof, has_ts;
    bool raw_values; /* --raw-values: DATE, UNIXTIME_MICROS, DECIMAL as integers (vprint.h) */
    bool mmap;       /* --mmap (scan, get): cf_table_options.mmap */
    uint64_t asof, ts, ahm;
    uint64_t limit;   /* --limit: rows scan prints at most (default all) */
    size_t threads;   /* --threads: cf_scan_options.threads (default auto) */
    uint32_t lock_ms; /* --lock-timeout, for writers */
    size_t memory;    /* --memory-budget: import's sort memory (0: the loader's default) */
    unsigned seen;    /* OPT_BIT of every option given */
    char **pos;       /* the arguments after DIR */
    int npos;
} cf_table_args;

/* Open the table at dir: writers (write = true) take its lock, waiting up to
 * t->lock_ms; readers open it read-only and take none. Prints the error;
 * returns 0 or an exit code. */
int cf_cli_table_open(cf_cli *c, const char *dir, const cf_table_args *t, bool write,
                      cf_table **out);

/* The rows `next` hands out (batches as cf_table_scanner_next gives them, projected
 * columns `cols` of schema s), printed as `table scan` prints them: text, or
 * --format csv|jsonl (json: JSON lines), at most `limit` rows. An error of `next`
 * is printed as "<what>: ..." and is the exit code; *printed (may be NULL) = rows
 * printed. Also `cfile kudu tablet scan`'s printer. flags: CF_CLI_ROWS_FLOAT9 prints
 * FLOAT values in JSON as cf_cli_format_float9 (vprint.h) does. */
typedef cf_status (*cf_cli_rows_fn)(void *ctx, cf_row_batch *b, cf_error *err);
#define CF_CLI_ROWS_FLOAT9 1u
/* CF_CLI_ROWS_RAW: text and csv print DATE, UNIXTIME_MICROS and DECIMAL as their
 * integers (--raw-values), not their human forms (vprint.h cf_vp_style). */
#define CF_CLI_ROWS_RAW 2u
int cf_cli_rows_print(cf_cli *c, const cf_schema *s, const size_t *cols, size_t ncols, bool json,
                      const char *format, uint64_t limit, unsigned flags, cf_cli_rows_fn next,
                      void *ctx, const char *what, uint64_t *printed);

int cf_cmd_table_create(cf_cli *c, const char *dir, cf_table_args *t);
int cf_cmd_table_scan(cf_cli *c, const char *dir, cf_table_args *t);
int cf_cmd_table_get(cf_cli *c, const char *dir, cf_table_args *t);
int cf_cmd_table_insert(cf_cli *c, const char *dir, cf_table_args *t);
/* update, or delete when del. */
int cf_cmd_table_update(cf_cli *c, const char *dir, cf_table_args *t, bool del);
int cf_cmd_table_flush(cf_cli *c, const char *dir, const cf_table_args *t);
int cf_cmd_table_compact(cf_cli *c, const char *dir, cf_table_args *t);
int cf_cmd_table_info(cf_cli *c, const char *dir, cf_table_args *t);

#endif

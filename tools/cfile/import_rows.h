/* The rows of `cfile table import` (cmd_table_import.c): CSV or JSON lines read
 * into batches of column values, appended to a table loader (or a Parquet
 * writer), and the parallel reader (import_par.c) that parses batches on
 * several threads and appends them in input order. Not a library header. */
#ifndef CF_CLI_IMPORT_ROWS_H
#define CF_CLI_IMPORT_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "csv.h"

#define CF_IMPORT_BATCH 8192 /* rows per append */

typedef struct cf_import_col {
    const cf_column *c;
    size_t w;
    uint8_t *vals;    /* CF_IMPORT_BATCH slots */
    uint8_t *nn;      /* CF_IMPORT_BATCH bits */
    uint32_t *counts; /* arrays: elements per row */
    uint8_t *elems;   /* arrays: flattened elements */
    uint8_t *enn;
    size_t ne, ecap;
    uint32_t *offs; /* arrays into Parquet: CF_IMPORT_BATCH + 1 element offsets */
} cf_import_col;

/* Where a row of the load came from: the input line of every row, kept as the
 * rows where line - row changes (a blank line, a quoted newline), so it costs
 * nothing for plain input however many rows it has. The loader may report a
 * row of an earlier batch (a duplicate found when its sorted runs merge). */
typedef struct cf_line_map {
    uint64_t (*at)[2]; /* (row, line) */
    size_t n, cap;
    bool oom;
} cf_line_map;

typedef struct cf_importer {
    cf_cli *c;
    const char *file;
    const cf_schema *s;
    size_t nc;
    cf_import_col *ic;
    cf_colvec *cv;
    uint64_t *lines;     /* input line of each row of the batch */
    cf_line_map own_map; /* and of every row of the load */
    cf_line_map *map;    /* own_map, or the one importer's that several share */
    size_t r;            /* rows in the batch */
    cf_cli_arena arena;  /* binary values of the batch */
#if CF_HAVE_TABLES
    cf_table_loader *ld;
#endif
#if CF_HAVE_PARQUET
    cf_parquet_writer *pw; /* instead of ld: rows into a Parquet file */
#endif
    void (*progress)(void *ctx, uint64_t rows);
    void *progress_ctx;
    uint64_t total;
} cf_importer;

/* The fields of a CSV header: field i is column map[i]; seen[k]: column k is
 * named (the others are NULL in every row); nf fields. */
typedef struct cf_csv_cols {
    size_t *map;
    bool *seen;
    size_t nf;
} cf_csv_cols;

/* -1 when out of memory (dispose anyway). */
int cf_import_setup(cf_importer *im, cf_cli *c, const char *file, const cf_schema *s);
void cf_import_dispose(cf_importer *im);
/* The batch into the loader or writer; an exit code. */
int cf_import_flush(cf_importer *im);

/* The header record from r into cc (freed by cf_csv_cols_free); an exit code
 * (the error printed). */
int cf_csv_header(cf_importer *im, cf_csv *r, cf_csv_cols *cc);
void cf_csv_cols_free(cf_csv_cols *cc);
/* Every data record of r into batches (flushed each CF_IMPORT_BATCH rows, the last
 * one left for the caller); an exit code. */
int cf_csv_rows(cf_importer *im, cf_csv *r, const cf_csv_cols *cc);
/* One record (not a blank line) as row im->r; 0, or -1 with the whole message
 * (naming file, line and column) in msg. */
int cf_csv_row(cf_importer *im, const cf_csv_cols *cc, const cf_csv_field *f, size_t n, char *msg,
               size_t cap);
#define CF_CSV_MSG_CAP 4600 /* a path and a message */

/* JSON lines: the span of a line's value (line[*s0..returned len): blanks and
 * the line end trimmed, a byte order mark skipped on line 1); the line is blank
 * when *s0 equals the length. */
size_t cf_jsonl_span(const char *line, size_t got, uint64_t lineno, size_t *s0);
/* One line (got bytes, its newline included or not) as row im->r unless blank;
 * seen: nc scratch flags. 0, or -1 with the whole message in msg. */
int cf_jsonl_line(cf_importer *im, bool *seen, const char *line, size_t got, uint64_t lineno,
                  char *msg, size_t cap);
/* Every line of `in` (the first one numbered `line`) into batches (flushed each
 * CF_IMPORT_BATCH rows, the last one left for the caller); an exit code. */
int cf_jsonl_rows(cf_importer *im, FILE *in, uint64_t line);

/* import_par.c: CSV or JSON lines from `in` into im's loader or Parquet writer
 * on `threads` threads (0: one per CPU, at most 16) parsing; appends stay in
 * input order, so the table, the messages and the exit code are those of one
 * thread. `in` may be a pipe (read ahead into chunks). An exit code; the last
 * batch is left for the caller to flush. */
int cf_import_parallel(cf_importer *im, FILE *in, bool jsonl, size_t threads);
/* The bytes a chunk may grow to before the rest goes on one thread (64 MiB;
 * tests lower it to reach that path with small inputs). */
extern size_t cf_import_chunk_max;

#endif

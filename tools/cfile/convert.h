/* `cfile convert`, both directions: what cmd_convert.c (to Parquet) and
 * cmd_convert_pq.c (from Parquet) share. */
#ifndef CF_CLI_CONVERT_H
#define CF_CLI_CONVERT_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"

/* Rows done so far on stderr, at most twice a second, when `on` (--progress,
 * or stderr is a terminal). */
typedef struct cf_cli_progress {
    cf_cli *c;
    bool on;
    uint64_t total; /* 0 = unknown */
    uint64_t rows;  /* the latest count reported */
    double t0, last;
} cf_cli_progress;

void cf_cli_progress_init(cf_cli_progress *p, cf_cli *c, bool on, uint64_t total);
void cf_cli_progress_cb(void *ctx, uint64_t rows); /* ctx: a cf_cli_progress */
/* Draws the final count (rows and seconds, as the updates) and ends the line,
 * so a conversion shorter than the first update still says what it did. */
void cf_cli_progress_end(cf_cli_progress *p);

/* What OUT becomes when IN is a Parquet file. */
typedef enum cf_pq_to { CF_PQ_TO_CFILE, CF_PQ_TO_CFILES, CF_PQ_TO_TABLE } cf_pq_to;

typedef struct cf_pq_convert_args {
    const char *in, *out;
    cf_pq_to to;
    char **columns; /* --column names, or NULL (n 0) for every top-level column */
    size_t ncolumns;
    char **keys; /* --key names (table) */
    size_t nkeys;
    bool has_ts; /* --ts (table) */
    uint64_t ts;
    uint32_t lock_ms;
    bool progress, quiet;
    bool json; /* the summary as one JSON document (replaces the line) */
} cf_pq_convert_args;

/* Parquet -> one CFile, one CFile per column, or a table (cmd_convert_pq.c). */
int cf_cli_convert_parquet(cf_cli *c, const cf_pq_convert_args *a);

#endif

/* `cfile convert` from Kudu (cmd_convert_kudu.c): the servers a Kudu IN is read
 * from, and the rows-to-Parquet step it shares with a table IN (cmd_convert.c). */
#ifndef CF_CLI_CONVERT_KUDU_H
#define CF_CLI_CONVERT_KUDU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/kudu.h>
#include <cfile/rowset.h>

#include "cli.h"
#include "json.h"
#include "kudu_args.h"
#include "pq_write_args.h"

/* Several servers, each given by Kudu's own directory flags: every --fs-wal-dir
 * after the first starts the next server, and --fs-metadata-dir / --fs-data-dirs
 * belong to the server whose --fs-wal-dir came last before them (the first
 * server's when none did). */
typedef struct cf_kudu_servers {
    cf_kudu_args *a;
    char **own; /* per server: a WAL dir copied out of --kudu-server, or NULL */
    size_t n;
} cf_kudu_servers;

/* As cf_kudu_args_option, into the current server. */
int cf_kudu_servers_option(cf_cli *c, cf_kudu_servers *s, int opt, const char *arg);
/* --kudu-server WAL_DIR[:DATA_DIR,...]: one whole server (its metadata in the WAL
 * dir), the short form for a server whose flags are only those two. */
int cf_kudu_servers_add(cf_cli *c, cf_kudu_servers *s, const char *spec);
void cf_kudu_servers_free(cf_kudu_servers *s);

typedef struct cf_kudu_convert_args {
    cf_kudu_servers servers;
    const char *tablet;   /* --kudu-tablet */
    const char *table;    /* --kudu-table NAME */
    const char *table_id; /* --kudu-table-id ID */
    const char *in;       /* what messages and the summary name as IN */
    bool no_wal, skip_damaged;
    bool mmap;   /* --mmap: blocks through mmap (cf_kudu_scan_options.mmap) */
    bool has_ts; /* --as-of */
    uint64_t ts;
    bool has_history_age; /* --history-max-age-sec */
    int64_t history_age;
    const char *out;
    bool to_table;
    bool has_load_ts; /* --ts: the table load's timestamp */
    uint64_t load_ts;
    uint32_t lock_ms;
    cf_pq_args *pq; /* the Parquet writer's options, and --json/--quiet/--progress */
} cf_kudu_convert_args;

int cf_cli_convert_kudu(cf_cli *c, const cf_kudu_convert_args *a);

/* Rows from `next` (batches of every column of s in schema order) into
 * OUT.parquet, with the --json summary (cmd_convert.c); `extra` (may be NULL)
 * adds members to it. */
typedef cf_status (*cf_cli_rows_next_fn)(void *ctx, cf_row_batch *b, cf_error *err);
int cf_cli_convert_rows(cf_cli *c, const cf_schema *s, cf_cli_rows_next_fn next, void *ctx,
                        const char *from, const char *in, bool has_ts, uint64_t ts, const char *out,
                        cf_pq_args *a, void (*extra)(void *ctx, cf_jw *j), void *extra_ctx);

#endif

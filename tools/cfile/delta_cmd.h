/* What the `cfile delta` subcommands share (cmd_delta*.c): the column schema
 * of a spec (../shared/golden-delta/README.md), the options of dump and apply,
 * and the value and status forms of the golden files.
 *
 * cmd_delta.c        usage, dispatch and the helpers below
 * cmd_delta_write.c  delta write: a DeltaFile from a spec.json
 * cmd_delta_dump.c   delta dump: its deltas and statistics
 * cmd_delta_apply.c  delta apply: the deltas visible at a snapshot on base values
 */
#ifndef CF_CLI_DELTA_CMD_H
#define CF_CLI_DELTA_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/delta.h>

#include "cli.h"
#include "json.h"

/* The columns a spec's "schema" names. cols is malloc'd; names point into the
 * JSON document. */
typedef struct cf_cli_delta_schema {
    cf_delta_column *cols;
    size_t n;
} cf_cli_delta_schema;

/* A spec's "schema" array into s: 0, or -1 with a message. */
int cf_cli_delta_schema_parse(cf_cli_delta_schema *s, const cf_json *root, char *msg, size_t cap);
/* The schema file at path into s (doc holds its text): 0 or an exit code (printed). */
int cf_cli_delta_schema_load(cf_cli *c, cf_cli_delta_schema *s, cf_json_doc *doc, const char *path);
/* "REDO" or "UNDO" (any case): 0, else -1. */
int cf_cli_delta_parse_type(const char *s, cf_delta_type *out);
/* An error as the golden files record it: Kudu's status prefix and the message. */
void cf_cli_delta_write_status(cf_jw *w, cf_status st, const cf_error *e);
/* A value in memory form: FLOAT prints as the double Kudu's tool printed. */
void cf_cli_delta_value_write(cf_jw *w, cf_type t, const void *slot);
/* Raw RowChangeList value bytes, written as cf_cli_delta_value_write does. */
void cf_cli_delta_raw_write(cf_jw *w, cf_type t, cf_slice raw);

/* The options of dump and apply. */
typedef struct cf_cli_delta_args {
    bool json;
    const char *file, *schema_path, *base_path;
    cf_delta_type type;
    bool has_type, has_snapshot, has_rows, has_limit;
    uint64_t snapshot, rows, start, batch, limit;
} cf_cli_delta_args;

/* argv of dump (apply false) or apply into a: 0 or an exit code (printed). */
int cf_cli_delta_parse_args(cf_cli *c, int argc, char **argv, cf_cli_delta_args *a, bool apply);

/* The subcommands: argv[0] is the subcommand's name. */
int cf_cmd_delta_write(cf_cli *c, int argc, char **argv);
int cf_cmd_delta_dump(cf_cli *c, int argc, char **argv);
int cf_cmd_delta_apply(cf_cli *c, int argc, char **argv);

#endif

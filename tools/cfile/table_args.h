/* The text forms `cfile table` reads from its command line: KEY arguments,
 * --where conditions and --row/--set assignments, parsed against a table's
 * schema into the library's memory forms (include/cfile/rowset.h).
 *
 * Nothing here has a fixed count: a schema of CF_SCHEMA_MAX_COLUMNS columns, every
 * one of them a key column, fits. Everything parsed (values, binary bytes, the
 * arrays returned) lives in the caller's arena. Errors are printed through the
 * cf_cli (usage errors name the option and the column) and returned as exit
 * codes; 0 is success.
 *
 * Quoting, shared by all three: a value may be written in "double" or 'single'
 * quotes; inside them a comma (or " AND " in --where) is part of the value, and
 * a backslash escapes the quote character or a backslash (\" \' \\). Any other
 * backslash is kept as written. A column name that is not a plain identifier is
 * written as the schema syntax writes it, in `backquotes` (`` for one inside):
 * --where "`my-col` = 3", --set "`a b`=x", --columns "`a,b`,c".
 */
#ifndef CF_CLI_TABLE_ARGS_H
#define CF_CLI_TABLE_ARGS_H

#include <cfile/rowset.h>

#include "cli.h"

/* One scalar of type t from text into slot (its memory form, at most 16 bytes;
 * binary bytes go to the arena). Returns 0, or -1 with a message. */
int cf_cli_scalar_parse(cf_type t, const char *text, void *slot, cf_cli_arena *a, char *msg,
                        size_t cap);
/* The same for a value of column cd: DECIMAL also in its human form at the
 * column's scale ("12.34"; values.h cf_cli_value_parse_col). */
int cf_cli_scalar_parse_col(const cf_column *cd, const char *text, void *slot, cf_cli_arena *a,
                            char *msg, size_t cap);

/* The next comma-separated piece of *p (NUL-terminated in place), or NULL at
 * the end. Commas inside quotes or [...] belong to the piece. */
char *cf_cli_next_piece(char **p);

/* The next name of a comma-separated list of column names at *p (NUL-terminated
 * in place), or NULL at the end. A name in backquotes is the schema syntax's
 * quoted form (cf_schema_name_parse: `` for a backquote; commas and blanks inside
 * belong to it) and is unquoted in place; any other name runs to the next comma,
 * blanks around it dropped when `trim`, empty ones skipped. NULL with a message
 * in msg (cap bytes) when a quote is not closed or is followed by other than a
 * comma; msg is untouched otherwise. */
char *cf_cli_next_name(char **p, bool trim, char *msg, size_t cap);

/* A piece written in quotes, without them and with its escapes undone (in
 * place); any other text is returned as it is. */
char *cf_cli_unquote(char *v);

/* KEY: the key columns' values joined with commas, each quoted when it holds a
 * comma; the last one may also hold commas unquoted. *key gets one pointer per
 * key column (cf_table_get/update/delete's form). */
int cf_cli_key_parse(cf_cli *c, const cf_schema *s, const char *text, const void ***key,
                     cf_cli_arena *a);

/* "COL OP VALUE [AND COL OP VALUE ...]", OP one of = != <> < <= > >= or
 * IS [NOT] NULL; NULL where gives no predicates. */
int cf_cli_where_parse(cf_cli *c, const cf_schema *s, const char *where, cf_pred **preds, size_t *n,
                       cf_cli_arena *a);

/* "col=value[,col=value...]" for option `opt` (--row, --set): NULL (any case)
 * is SQL NULL, arrays as [e, ...]. Columns may repeat (callers decide). */
int cf_cli_assign_parse(cf_cli *c, const cf_schema *s, const char *opt, const char *text,
                        cf_column_change **ch, size_t *n, cf_cli_arena *a);

/* --columns: names of s's columns joined with commas (spaces around each name
 * ignored) into *cols (malloc'd, the caller frees it even on failure) and *n;
 * spec NULL: every column in schema order. An unknown name or an empty list is a
 * usage error. */
int cf_cli_columns_parse(cf_cli *c, const cf_schema *s, const char *spec, size_t **cols, size_t *n);

/* Scan options with the defaults but for the columns and predicates parsed from
 * --columns and --where (borrowed: they outlive the scan). */
void cf_cli_scan_options(cf_scan_options *o, const size_t *cols, size_t ncols, const cf_pred *preds,
                         size_t npreds);

/* The schema in cf_schema_parse's syntax, malloc'd (NULL when out of memory). */
char *cf_cli_schema_text(const cf_schema *s);

#endif

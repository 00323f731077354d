/* Terminal output for the `cfile` tool: when to use colour, aligned tables, the
 * plain-text and CSV forms of a value, and the command table as seen by
 * `completion` and the man page generator.
 *
 * Colour (https://no-color.org): only when the stream is a terminal, NO_COLOR is
 * unset or empty, and TERM is not "dumb". Machine formats (JSON, JSON lines, CSV)
 * never carry colour, whatever the stream.
 */
#ifndef CF_CLI_OUT_H
#define CF_CLI_OUT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cfile/cfile.h>

#include "cli.h"

/* ---- colour -------------------------------------------------------------------------- */

/* SGR parameters. */
#define CF_OUT_BOLD "1"
#define CF_OUT_DIM "2"
#define CF_OUT_RED "31"
#define CF_OUT_GREEN "32"
#define CF_OUT_YELLOW "33"
#define CF_OUT_CYAN "36"

/* Should text written to f be coloured? (Decided per call: the environment may
 * change between runs of cf_cli_main in one process, as in the tests.) */
bool cf_out_color(FILE *f);
/* "\033[<sgr>m" when color, nothing otherwise. */
void cf_out_on(FILE *f, bool color, const char *sgr);
/* "\033[0m" when color. */
void cf_out_off(FILE *f, bool color);

/* ---- a growable byte string ---------------------------------------------------------- */

typedef struct cf_out_str {
    char *data; /* NUL-terminated when len > 0 or after any append; owned */
    size_t len, cap;
    bool oom; /* an append failed: contents are truncated */
} cf_out_str;

void cf_out_str_init(cf_out_str *s);
void cf_out_str_clear(cf_out_str *s);
void cf_out_str_put(cf_out_str *s, const void *p, size_t n);
void cf_out_str_puts(cf_out_str *s, const char *p);
/* fmt's text appended, cut to at most max - 1 bytes (max <= 1024: the SVG's
 * attributes, tooltips and labels have such bounds). */
void cf_out_str_vprintf(cf_out_str *s, size_t max, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
void cf_out_str_dispose(cf_out_str *s);

/* ---- value text ---------------------------------------------------------------------- */

/* Can a STRING/VARCHAR value be shown in a text table as its bytes? Not when
 * they are not UTF-8, hold a control character (a newline would break the row),
 * or could be read as NULL (any case) or as a quoted string: the table forms
 * (`dump --format table`, `table scan`) show those in their JSON form. */
bool cf_out_string_plain(const uint8_t *p, size_t n);
/* Row i of a batch as plain text (replacing s), the value printers' (vprint.h)
 * CF_VP_TEXT form, or CF_VP_TABLE's with escape_ctl: integers and floats as in the JSON
 * value forms, BOOL as true/false, STRING/VARCHAR as their bytes (or the JSON form
 * {"hex": ...} when not UTF-8), BINARY as lower-case hex, arrays as their JSON
 * array. With escape_ctl (for tables), a string holding a control character,
 * reading as NULL (any case) or starting with a quote is given as its quoted JSON
 * string instead, so one row stays one line and NULL (shown as NULL) is distinct.
 * Returns false (s empty) for a NULL row. */
bool cf_out_row_text(cf_out_str *s, cf_type t, bool is_array, const cf_batch *b, size_t i,
                     bool escape_ctl);

/* ---- tables -------------------------------------------------------------------------- */

#define CF_OUT_TABLE_MAX_COLS 16

/* Rows are buffered and printed by cf_out_table_flush with every column padded to
 * its widest cell (header included); widths only grow, so a long listing can be
 * flushed in chunks. Columns are separated by two spaces, no trailing blanks. The
 * header is bold and underlined by dashes; with colour the dashes are dim. */
typedef struct cf_out_table {
    FILE *f;
    bool color;
    size_t ncols;
    const char *head[CF_OUT_TABLE_MAX_COLS];
    bool right[CF_OUT_TABLE_MAX_COLS]; /* right-aligned (numbers) */
    size_t width[CF_OUT_TABLE_MAX_COLS];
    const char *style[CF_OUT_TABLE_MAX_COLS]; /* SGR for cells of that column, or NULL */
    bool header_done;
    cf_out_str cells; /* NUL-separated cells, row after row */
    size_t nrows;
} cf_out_table;

/* align: one letter per column, 'l' or 'r'; heads: ncols names. */
void cf_out_table_init(cf_out_table *t, FILE *f, bool color, size_t ncols, const char *const *heads,
                       const char *align);
/* Add a row of ncols cells (copied; NULL is shown as an empty cell). */
void cf_out_table_row(cf_out_table *t, const char *const *cells);
/* Print the header (first time) and the buffered rows. */
void cf_out_table_flush(cf_out_table *t);
void cf_out_table_dispose(cf_out_table *t);

/* ---- the command table (defined in cli.c) ---------------------------------------------- */

/* Name, one-line summary and usage text of command i; NULL past the last one. */
const char *cf_cli_command_name(size_t i);
const char *cf_cli_command_summary(size_t i);
const char *cf_cli_command_usage(size_t i);
/* The text of `cfile --help`. */
void cf_cli_global_usage(FILE *f);

/* `cfile completion SHELL` and the man page (cmd_completion.c). */
int cf_cmd_completion(cf_cli *c, int argc, char **argv);
extern const char cf_cmd_completion_usage[];
/* The roff source of cfile(1), built from the usage texts above (`cfile --man`). */
void cf_cli_write_man(FILE *f);

#endif

/* The CLI's one set of value printers: a value of a column (its memory form,
 * values.h) as the text each output shows. The outputs differ only in a few
 * rules, which are the forms below, not separate code:
 *
 *   form        NULL     STRING/VARCHAR                 BINARY   NaN, INT128, ...  arrays
 *   CF_VP_JSON  null     JSON string, {"hex"} if not    "hex"    "NaN", "12"       JSON
 *                        UTF-8
 *   CF_VP_TEXT  (empty)  bytes; JSON form if not UTF-8  hex      NaN, 12           JSON
 *   CF_VP_TABLE NULL     bytes; JSON form if not        hex      NaN, 12           JSON
 *                        cf_out_string_plain
 *   CF_VP_CSV   (empty)  bytes as they are, "" for the  hex      NaN, 12           JSON
 *                        empty string                   ("" empty)
 *
 * CF_VP_CSV also quotes the field when it must (cf_vp_csv_field). The JSON form
 * is the golden value form (../shared/golden/README.md "Value forms"); every
 * form reads back through values.h's parser. Numbers are the same text in every
 * form: integers in decimal, FLOAT/DOUBLE as their shortest round-trip text
 * ("1.0", "-0.0", "1e+20"), "NaN" for the canonical quiet NaN,
 * "Infinity"/"-Infinity", the bits ("0x7fc00001") of any other NaN.
 *
 * Output goes straight to a FILE with the unlocked stdio calls: the CLI writes
 * each stream from one thread.
 */
#ifndef CF_CLI_VPRINT_H
#define CF_CLI_VPRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cfile/cfile.h>

#include "json.h"

typedef enum cf_vp_form { CF_VP_JSON, CF_VP_TEXT, CF_VP_TABLE, CF_VP_CSV } cf_vp_form;

/* Longest text cf_vp_number and cf_cli_format_* write, NUL included. */
#define CF_CLI_NUM_CAP 48

/* Row i of batch b (type t; is_array: a cell of elements) in form `form`. */
void cf_vp_cell(FILE *f, cf_vp_form form, cf_type t, bool is_array, const cf_batch *b, size_t i);
/* One non-NULL scalar of type t at slot (its memory form) in form `form`. */
void cf_vp_value(FILE *f, cf_vp_form form, cf_type t, const void *slot);

/* How the TEXT, TABLE and CSV forms show DATE, UNIXTIME_MICROS and DECIMAL
 * scalars. By default their human forms (vtext.h: 2024-01-02,
 * 2024-01-02T03:04:05.000006Z, 12.34 at the column's scale; values outside
 * years 0000..9999 as their integers); `raw` (the commands' --raw-values) the
 * integers the JSON form has (days, microseconds, the unscaled value). `scale`
 * is the DECIMAL column's scale, -1 when not known (a CFile's column: the
 * unscaled integer). The JSON form and array elements never change. What
 * cf_vp_cell and cf_vp_value print is the raw style. */
typedef struct cf_vp_style {
    bool raw;
    int scale;
} cf_vp_style;

void cf_vp_cell_styled(FILE *f, cf_vp_form form, cf_type t, bool is_array, cf_vp_style st,
                       const cf_batch *b, size_t i);
void cf_vp_value_styled(FILE *f, cf_vp_form form, cf_type t, cf_vp_style st, const void *slot);
/* cf_vp_number in style st (the text of the TEXT, TABLE and CSV forms). */
size_t cf_vp_number_styled(char out[CF_CLI_NUM_CAP], cf_type t, cf_vp_style st, const void *slot);

/* The text of a scalar that is not STRING/VARCHAR/BINARY into out (NUL-terminated);
 * returns its length. *quote: the JSON form writes it as a string (NaN, Infinity,
 * NaN bits, INT128/DECIMAL128). An unknown type gives "null". */
size_t cf_vp_number(char out[CF_CLI_NUM_CAP], cf_type t, const void *slot, bool *quote);

/* One RFC 4180 field: quoted when it holds a comma, a quote, CR or LF, or
 * leading/trailing space; quotes doubled. */
void cf_vp_csv_field(FILE *f, const char *p, size_t n);

/* Shortest decimal text that reads back to the same bits (see above);
 * *is_string: the JSON form writes it as a string. */
void cf_cli_format_float(char out[CF_CLI_NUM_CAP], float f, bool *is_string);
void cf_cli_format_double(char out[CF_CLI_NUM_CAP], double d, bool *is_string);
/* A FLOAT with nine significant digits ("%.9g", which every float round-trips
 * through), the form the Kudu-written layouts' expected files use
 * (../shared/kudu-fs); NaN, infinities and zeros as cf_cli_format_float. */
void cf_cli_format_float9(char out[CF_CLI_NUM_CAP], float f, bool *is_string);
/* Decimal text of a 128-bit two's complement value. */
void cf_cli_format_i128(char out[CF_CLI_NUM_CAP], const void *v16);

/* The JSON form through a JSON writer (its separators placed): one non-NULL
 * scalar, and row i of a batch (null, a value, or an array of elements). */
void cf_cli_value_write(cf_jw *w, cf_type t, const void *slot);
void cf_cli_row_write(cf_jw *w, cf_type t, bool is_array, const cf_batch *b, size_t i);
/* A FLOAT as Kudu's tools print one: "%.9g" (nine significant digits, always; the
 * expected files of ../shared/kudu-fs hold this form, which reads back as the same
 * float but not as the same double as our shortest form). NaN, infinities and -0.0
 * as cf_cli_format_float writes them. */
void cf_cli_format_float_kudu(char out[CF_CLI_NUM_CAP], float f, bool *is_string);
/* cf_cli_row_write, with scalar FLOAT cells in cf_cli_format_float_kudu's form. */
void cf_cli_row_write_kudu(cf_jw *w, cf_type t, bool is_array, const cf_batch *b, size_t i);

#endif

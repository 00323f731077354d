/* Value forms (../shared/golden/README.md "Value forms") <-> the library's memory
 * form of one value (writer.h / iter.h), and a column of parsed values ready to
 * append in Kudu-like batches.
 *
 * Memory forms: integers, DATE, UNIXTIME_MICROS and DECIMAL32/64 as native
 * integers of cf_type_size bytes; INT128/DECIMAL128 as a native __int128; FLOAT and
 * DOUBLE as IEEE values; BOOL as one byte 0/1; STRING, VARCHAR, BINARY as cf_slice.
 */
#ifndef CF_CLI_VALUES_H
#define CF_CLI_VALUES_H

#include <cfile/cfile.h>

#include "json.h"
#include "vprint.h"

/* INT128/DECIMAL128 in memory: __int128 is a GCC/Clang extension (-Wpedantic). */
__extension__ typedef __int128 cf_cli_i128;
__extension__ typedef unsigned __int128 cf_cli_u128;

/* Kudu's DATE range in days since 1970-01-01: 0001-01-01..9999-12-31. Parsing
 * refuses values outside it (and decimal FLOAT/DOUBLE text that overflows). */
#define CF_CLI_DATE_MIN (-719162)
#define CF_CLI_DATE_MAX 2932896

/* An 8- to 64-bit integer type's memory form (p physical: INT8..INT64, UINT8..UINT64)
 * read as 64 bits: sign-extended unless p is unsigned (UINT64 keeps its bits). */
uint64_t cf_cli_int_widen(cf_type p, const void *slot);

/* The message of a failed parse: fmt into msg (cap bytes; nothing when msg is
 * NULL). Returns -1, what the parsers here return on failure. */
int cf_cli_msg_fail(char *msg, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Parse one value form of scalar type t into `slot` (cf_type_size(t) bytes).
 * JSON null sets *is_null (slot zeroed). Binary bytes either point into the JSON
 * document (which must outlive the use) or are allocated from `arena`.
 * Returns 0, or -1 with a message in msg. */
int cf_cli_value_parse(const cf_json *v, cf_type t, void *slot, bool *is_null, cf_cli_arena *arena,
                       char *msg, size_t msg_cap);

/* As cf_cli_value_parse, for a column whose DECIMAL precision and scale are known
 * (a table's or a Parquet file's schema; precision 0 = the type's most): DECIMAL
 * also takes its human form "-12.34" (vtext.h) at that scale. scale -1: not
 * known (a CFile's column), DECIMAL then takes only the unscaled integer.
 * DATE and UNIXTIME_MICROS take their human forms "2024-01-02" and
 * "2024-01-02T03:04:05.000006Z" (vtext.h) beside the integers everywhere. */
int cf_cli_value_parse_col(const cf_json *v, cf_type t, int precision, int scale, void *slot,
                           bool *is_null, cf_cli_arena *arena, char *msg, size_t msg_cap);

/* Parse the text form of one value of scalar type t (len bytes at text; what a
 * CSV field, a KEY, a --where, --row or --set value holds): STRING/VARCHAR its
 * bytes (copied into the arena), BINARY hex, BOOL true/false in any case or 1/0,
 * integers and DATE/DECIMAL/UNIXTIME_MICROS decimal ('-' allowed, no '+', no
 * blanks) within the type's range, INT128 likewise, DATE/UNIXTIME_MICROS also
 * in their human forms (above), FLOAT/DOUBLE decimal text that survives the
 * conversion (neither overflowing nor, when not zero, reading as zero, nor
 * reading as a subnormal other than by that subnormal's shortest text), NaN,
 * Infinity, -Infinity or their bits 0x<hex>. The same rules as
 * cf_cli_value_parse for a JSON string, which is what it is. Returns 0, or -1
 * with a message naming the type and the text. */
int cf_cli_value_parse_text(const char *text, size_t len, cf_type t, void *slot,
                            cf_cli_arena *arena, char *msg, size_t msg_cap);
/* cf_cli_value_parse_text with the column's decimal precision and scale (see
 * cf_cli_value_parse_col). */
int cf_cli_value_parse_text_col(const char *text, size_t len, cf_type t, int precision, int scale,
                                void *slot, cf_cli_arena *arena, char *msg, size_t msg_cap);

/* Parse a command-line value (seek --value): the text is read as JSON when it is a
 * value form of the type, otherwise as the raw text (for STRING/VARCHAR: its bytes;
 * for BINARY: hex). Also yields the target as JSON for echoing. */
int cf_cli_value_parse_arg(const char *text, cf_type t, void *slot, cf_cli_arena *arena, char *msg,
                           size_t msg_cap);
/* cf_cli_value_parse_arg with the column's decimal precision and scale. */
int cf_cli_value_parse_arg_col(const char *text, cf_type t, int precision, int scale, void *slot,
                               cf_cli_arena *arena, char *msg, size_t msg_cap);

/* ---- a column of values (column.c) --------------------------------------------------------------
 */

typedef struct cf_cli_column {
    cf_type type;
    bool is_array;
    size_t width; /* cf_type_size(type) */
    size_t rows;  /* rows (cells for arrays) */
    size_t rows_cap;
    uint8_t *nonnull; /* bit per row/cell, 1 = present */
    size_t nulls;     /* NULL rows/cells */
    uint8_t *values;  /* scalars: rows * width; arrays: elems * width */
    size_t elems, elems_cap;
    uint8_t *elem_nonnull; /* arrays: bit per element */
    size_t elem_nulls;
    uint32_t *elem_counts; /* arrays: per cell */
    cf_cli_arena *arena;   /* binary bytes that are not in the JSON document */
} cf_cli_column;

void cf_cli_column_init(cf_cli_column *c, cf_type t, bool is_array, cf_cli_arena *arena);
void cf_cli_column_dispose(cf_cli_column *c);
/* Add one row in its value form (for arrays: a JSON array or null). */
int cf_cli_column_add(cf_cli_column *c, const cf_json *v, char *msg, size_t msg_cap);
/* Append everything to w in calls of `batch` rows (0 = one call with all rows), as
 * Kudu's writer would receive them. */
cf_status cf_cli_column_append(const cf_cli_column *c, cf_writer *w, size_t batch, cf_error *err);

#endif

/* The human text forms of DATE, UNIXTIME_MICROS and DECIMAL values: parse and
 * format, nothing else (values.c reads them, vprint.c prints them).
 *
 *   DATE             2024-01-02 (ISO 8601 calendar date; days since 1970-01-01)
 *   UNIXTIME_MICROS  2024-01-02T03:04:05.000006Z (microseconds since the epoch)
 *   DECIMAL(p,s)     -12.34 (the unscaled integer -1234 at scale 2)
 *
 * The calendar is the proleptic Gregorian one (every date as if the Gregorian
 * rules always held, as Kudu, Parquet and DuckDB count days), years 0000..9999
 * in the text forms; values outside that range have only their integer forms
 * (the formatters then return 0 and the caller prints the integer).
 *
 * Timestamps read: `YYYY-MM-DD`, 'T' or one space, `hh:mm:ss`, an optional
 * fraction of 1.. digits (digits past the sixth must be 0: a timestamp is never
 * rounded), and an optional zone: `Z`, `+hh:mm`, `-hh:mm`, `+hhmm`, `+hh`,
 * `+hh:mm:ss` (DuckDB writes a local mean time so). No zone means UTC. Written:
 * `YYYY-MM-DDThh:mm:ss[.ffffff]Z`, the fraction (six digits) only when it is not zero.
 *
 * Decimals read: an optional sign, digits, and a point with at most `scale`
 * digits after it (fewer are padded with zeros; more is an error, never a
 * rounding); at least one digit; no exponent, no blanks. The unscaled value
 * must have at most `precision` digits. Written: the unscaled value with
 * exactly `scale` digits after the point ("0.05", "-12.30"; scale 0: "12").
 *
 * Parsers return 0, or -1 with a message (naming the text) in msg.
 */
#ifndef CF_CLI_VTEXT_H
#define CF_CLI_VTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 128-bit integers are a GCC/Clang extension (-Wpedantic). */
__extension__ typedef __int128 cf_vt_i128;

/* Longest text a formatter writes, NUL included. */
#define CF_VT_CAP 48

/* Days since 1970-01-01 of a proleptic Gregorian date, and back: any int32 year,
 * any int32 day (and far beyond), in int64 arithmetic that cannot overflow there. */
int64_t cf_vt_days_from_civil(int64_t y, unsigned m, unsigned d);
void cf_vt_civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d);

int cf_vt_parse_date(const char *s, size_t len, int32_t *days, char *msg, size_t cap);
int cf_vt_parse_timestamp(const char *s, size_t len, int64_t *micros, char *msg, size_t cap);
/* precision 0: any number of digits up to 38. */
int cf_vt_parse_decimal(const char *s, size_t len, int precision, int scale, cf_vt_i128 *out,
                        char *msg, size_t cap);

/* The text into out; its length, or 0 (out empty) when the value has no text form
 * (a year outside 0000..9999; a scale outside 0..38). */
size_t cf_vt_format_date(char out[CF_VT_CAP], int64_t days);
size_t cf_vt_format_timestamp(char out[CF_VT_CAP], int64_t micros);
size_t cf_vt_format_decimal(char out[CF_VT_CAP], cf_vt_i128 v, int scale);

#endif

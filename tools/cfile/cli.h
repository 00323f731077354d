/* The `cfile` command-line tool: entry point, subcommands and the helpers they
 * share. Uses only the public API (include/cfile/).
 *
 * Exit codes (stable, documented in `cfile --help`):
 *   0  success
 *   1  failure: bad input data, a damaged file, an I/O error, a seek that found nothing
 *   2  usage: unknown command or option, missing or malformed argument
 *   3  not supported by this build of the library (CF_ENOTSUP)
 */
#ifndef CF_CLI_H
#define CF_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cfile/cfile.h>
#include <cfile/bloom.h>
#include <cfile/delta.h>

#include "json.h"

enum { CF_EXIT_OK = 0, CF_EXIT_FAIL = 1, CF_EXIT_USAGE = 2, CF_EXIT_NOTSUP = 3 };

/* Run the tool with argv[0] = "cfile". Data goes to out, diagnostics to err.
 * Callable any number of times in one process (tests do). */
int cf_cli_main(int argc, char **argv, FILE *out, FILE *err);

/* What a subcommand gets. */
typedef struct cf_cli {
    FILE *out;
    FILE *err;
    const char *cmd;   /* subcommand name, for messages */
    const char *usage; /* its usage text */
} cf_cli;

typedef int (*cf_cli_fn)(cf_cli *c, int argc, char **argv);

/* Subcommands: argv[0] is the subcommand name. */
int cf_cmd_info(cf_cli *c, int argc, char **argv);
int cf_cmd_dump(cf_cli *c, int argc, char **argv);
int cf_cmd_seek(cf_cli *c, int argc, char **argv);
int cf_cmd_verify(cf_cli *c, int argc, char **argv);
int cf_cmd_write(cf_cli *c, int argc, char **argv);
int cf_cmd_demo(cf_cli *c, int argc, char **argv);
int cf_cmd_bloom(cf_cli *c, int argc, char **argv);
int cf_cmd_delta(cf_cli *c, int argc, char **argv);
int cf_cmd_hfile(cf_cli *c, int argc, char **argv);
int cf_cmd_parquet(cf_cli *c, int argc, char **argv);
/* `cfile parquet write` (cmd_parquet_write.c); argv[0] is "write". */
int cf_cmd_parquet_write(cf_cli *c, int argc, char **argv);
/* `cfile parquet bloom` (cmd_parquet_bloom.c) and `verify` (cmd_parquet_verify.c). */
int cf_cmd_parquet_bloom(cf_cli *c, int argc, char **argv);
int cf_cmd_parquet_verify(cf_cli *c, int argc, char **argv);
int cf_cmd_convert(cf_cli *c, int argc, char **argv);
int cf_cmd_table(cf_cli *c, int argc, char **argv);
int cf_cmd_kudu(cf_cli *c, int argc, char **argv);
int cf_cmd_bench(cf_cli *c, int argc, char **argv);
int cf_cmd_head(cf_cli *c, int argc, char **argv);
/* `cfile dump` over an io the caller opened (a block inside a Kudu container):
 * argv holds dump's options only (argv[0] a name, no FILE); `name` names the bytes
 * in messages. The io is borrowed. Prints what `cfile dump` prints, except that
 * FLOAT values take Kudu's form (vprint.h cf_cli_format_float_kudu), as Kudu's
 * own `kudu fs dump cfile` prints them. */
int cf_cmd_dump_io(cf_cli *c, int argc, char **argv, cf_io *io, const char *name);

extern const char cf_cmd_info_usage[];
extern const char cf_cmd_dump_usage[];
extern const char cf_cmd_seek_usage[];
extern const char cf_cmd_verify_usage[];
extern const char cf_cmd_write_usage[];
extern const char cf_cmd_demo_usage[];
extern const char cf_cmd_bloom_usage[];
extern const char cf_cmd_delta_usage[];
extern const char cf_cmd_hfile_usage[];
extern const char cf_cmd_parquet_usage[];
extern const char cf_cmd_parquet_write_usage[];
extern const char cf_cmd_parquet_bloom_usage[];
extern const char cf_cmd_parquet_verify_usage[];
extern const char cf_cmd_convert_usage[];
extern const char cf_cmd_table_usage[];
extern const char cf_cmd_kudu_usage[];
extern const char cf_cmd_bench_usage[];
extern const char cf_cmd_head_usage[];

/* ---- helpers --------------------------------------------------------------------------- */

/* The context of a nested subcommand ("parquet bloom", "kudu tablet"): c's streams
 * with the command name its messages carry and the usage text its --help prints. */
cf_cli cf_cli_sub(const cf_cli *c, const char *cmd, const char *usage);

/* Reset getopt's global state before a subcommand parses its options. */
void cf_cli_getopt_reset(void);

/* "cfile: <what>: <err msg>"; returns CF_EXIT_NOTSUP for CF_ENOTSUP, else CF_EXIT_FAIL. */
int cf_cli_lib_fail(cf_cli *c, const char *what, cf_status st, const cf_error *e);
/* "cfile <cmd>: <message>" and the hint "try 'cfile <cmd> --help'" (never the whole
 * usage text); returns CF_EXIT_USAGE. */
int cf_cli_usage(cf_cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A row or value past the end (dump --from, seek): "cfile <cmd>: <path>: not found:
 * <msg>" on stderr; returns CF_EXIT_FAIL. dump and seek say it the same way. */
int cf_cli_not_found(cf_cli *c, const char *path, const char *msg);
/* "cfile <cmd>: <what>: not built in this configuration (<option>=OFF)"; returns
 * CF_EXIT_NOTSUP. For a part of a command that needs a module this build left out
 * (`cfile head DIR` without tables); whole commands are handled by the dispatcher. */
int cf_cli_not_built(cf_cli *c, const char *what, const char *option);
/* "cfile: <message>"; returns CF_EXIT_FAIL. */
int cf_cli_fail(cf_cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The message for getopt's '?' (unknown option or missing argument). */
int cf_cli_bad_option(cf_cli *c, char **argv);
/* Print the usage text to out; returns CF_EXIT_OK (for --help). */
int cf_cli_help(cf_cli *c);

/* Seconds on the monotonic clock (for durations). */
double cf_cli_now_s(void);

/* Does s end with suffix? */
bool cf_cli_ends_with(const char *s, const char *suffix);

/* The value of one hex digit (either case), or -1. */
int cf_cli_hex_digit(int ch);
/* len hex digits (either case) at s into len / 2 bytes at out, which may be s
 * itself (each byte is written behind the digits it came from). 0, or -1 when
 * len is odd or a character is not a hex digit (out may be partly written). */
int cf_cli_hex_decode(uint8_t *out, const char *s, size_t len);

/* Decimal unsigned integer, the whole string; 0 on success. */
int cf_cli_parse_u64(const char *s, uint64_t *out);

/* An input file argument: "-" is stdin (never closed by cf_cli_fclose_input),
 * else fopen(path, "rb"); NULL with errno set on failure. */
FILE *cf_cli_fopen_input(const char *path);
void cf_cli_fclose_input(FILE *f);
/* The whole of an input file argument ("-" is stdin) into *buf (malloc'd, NUL
 * appended, *len bytes before it). Errors ("<path>: <why>") are printed; returns
 * 0 or an exit code. */
int cf_cli_read_input(cf_cli *c, const char *path, char **buf, size_t *len);

/* Open a file for reading (checksums verified). */
cf_status cf_cli_open(cf_reader **out, const char *path, cf_error *err);
/* The same over an io the caller holds (a block inside a Kudu data file, a
 * buffer): checksums verified. */
cf_status cf_cli_open_io(cf_reader **out, cf_io *io, cf_error *err);

/* cf_reader_verify, or for a BloomFile cf_bloom_reader_verify over r's own io:
 * block kinds "value index" and "bloom block". */
cf_status cf_cli_verify(const cf_reader *r, cf_verify_fn fn, void *ctx, size_t *damaged,
                        cf_error *err);

/* A CFile's column as info --json and dump's header both begin it: "type",
 * "encoding", "compression", "num_values", "nullable", "is_array". */
void cf_cli_write_column_info(cf_jw *w, const cf_file_info *in);
/* [{"key": ..., "value": ...}, ...] with keys and values in the STRING value form. */
void cf_cli_write_metadata(cf_jw *w, const cf_metadata_pair *p, size_t n);
/* The type as the golden files spell it ("INT32"), with a fallback for unknown values. */
const char *cf_cli_type_name(cf_type t);
const char *cf_cli_encoding_name(cf_encoding e);
const char *cf_cli_compression_name(cf_compression c);

/* Rows at a time when reading. */
#define CF_CLI_BATCH 1024

#endif

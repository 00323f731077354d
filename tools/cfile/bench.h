/* What the `cfile bench` benchmarks share (cmd_bench*.c): timing, option
 * parsing and the JSON report's common members.
 *
 * cmd_bench.c        usage and dispatch, the helpers below
 * cmd_bench_read.c   bench read: scans (view or copy, threads, cold cache) vs memcpy
 * cmd_bench_seek.c   bench seek: ordinal and value seeks
 * cmd_bench_write.c  bench write: a data set (datasets.h) through the writer
 * cmd_bench_scan.c   bench scan: a table scan with each thread count
 *
 * Every figure is a median over repetitions, and every ratio compares two
 * numbers measured in this process one after the other.
 */
#ifndef CF_CLI_BENCH_H
#define CF_CLI_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cfile/cfile.h>

#include "cli.h"

/* ---- options: each benchmark lists its own in a table, one parser reads them ---- */

typedef enum cf_bench_opt_kind {
    CF_BENCH_FLAG,  /* no argument; sets *(bool *)dst */
    CF_BENCH_COUNT, /* a decimal count into *(uint64_t *)dst ("--NAME: not a number: ARG") */
    CF_BENCH_TEXT,  /* the argument itself into *(const char **)dst */
    CF_BENCH_PARSE, /* the argument through parse(c, arg, dst) */
} cf_bench_opt_kind;

typedef struct cf_bench_opt {
    const char *name; /* the long option, without "--"; NULL ends a table */
    char letter;      /* the short option getopt also takes, or 0 for none */
    cf_bench_opt_kind kind;
    void *dst;
    /* CF_BENCH_PARSE: 0, or the exit code of the usage error it printed. */
    int (*parse)(cf_cli *c, const char *arg, void *dst);
} cf_bench_opt;

/* Read argv (argv[0] is the benchmark's name) with getopt_long over opts, plus
 * --help (-h), which prints the usage, and --json, accepted as everywhere and
 * changing nothing (the report is JSON already). Then the operands: exactly
 * one, *operand_out, named `operand` in the message ("read needs exactly one
 * FILE"), or with operand NULL none ("write takes no FILE argument (use
 * --out)"). Returns -1 to go on, or the exit code to return (0 after --help,
 * CF_EXIT_USAGE after a usage error, which it printed). */
int cf_bench_parse_opts(cf_cli *c, int argc, char **argv, const cf_bench_opt *opts,
                        const char *operand, const char **operand_out);

/* qsort order of doubles. */
int cf_bench_cmp_double(const void *a, const void *b);
/* The median of v[0..n) (0 when n is 0); sorts v. */
double cf_bench_median(double *v, size_t n);
/* Open path for the benchmark (checksums verified when verify; cache may be NULL). */
cf_status cf_bench_open_reader(cf_reader **out, const char *path, bool mmap, bool verify,
                               cf_cache *cache, cf_error *err);
/* The report's opening members: {"op", "file", "type", "encoding", "compression",
 * "nullable", "rows" (the object is left open). */
void cf_bench_json_header(FILE *f, const char *op, const char *path, const cf_file_info *fi);
/* ,"cache":{...} with the cache's counters; nothing when cache is NULL. */
void cf_bench_json_cache(FILE *f, const cf_cache *cache);
/* Values in memory form to path for the peer benchmarks: int64 as 8-byte LE
 * each (narrower integers widened), strings as u32 LE length + bytes. 0 or -1. */
int cf_bench_write_values(const char *path, cf_type t, const void *vals, size_t n);
/* Set err to (st, msg); returns st. */
cf_status cf_bench_fail(cf_error *err, cf_status st, const char *msg);

/* The benchmarks: argv[0] is the benchmark's name. */
int cf_bench_read(cf_cli *c, int argc, char **argv);
int cf_bench_seek(cf_cli *c, int argc, char **argv);
int cf_bench_write(cf_cli *c, int argc, char **argv);
int cf_bench_scan(cf_cli *c, int argc, char **argv);

#endif

/* The Parquet writer's options (include/cfile/parquet.h) as command-line flags,
 * and the end of a Parquet output (summary line or --json document): what
 * `cfile convert` (cmd_convert.c) and `cfile parquet write` (cmd_parquet_write.c)
 * share. */
#ifndef CF_CLI_PQ_WRITE_ARGS_H
#define CF_CLI_PQ_WRITE_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/parquet.h>
#include <cfile/rowset.h>

#include "cli.h"

struct cf_jw; /* json.h */

/* The options' help lines, for both usage texts. */
#define PQ_OPTIONS_HELP                                                                            \
    "Parquet options:\n"                                                                           \
    "  --codec C               none, snappy (default), gzip, brotli, zstd, lz4_raw\n"              \
    "  --level N               codec level (gzip 1..9, zstd 1..22, brotli 0..11)\n"                \
    "  --row-group-rows N      most rows per row group (default 1048576)\n"                        \
    "  --row-group-bytes N     a row group ends past N encoded bytes (default 128 MiB)\n"          \
    "  --page-bytes N          a data page ends past N value bytes (default 1 MiB)\n"              \
    "  --page-rows N           most rows per data page (default 20000)\n"                          \
    "  --v2                    DATA_PAGE_V2 pages (default: v1)\n"                                 \
    "  --no-dictionary         PLAIN values only (default: dictionary, PLAIN once the\n"           \
    "                          chunk's dictionary passes --dict-bytes, default 1 MiB)\n"           \
    "  --dict-bytes N\n"                                                                           \
    "  --no-statistics         no min/max/null_count in the column chunks\n"                       \
    "  --no-page-index         no column and offset index\n"                                       \
    "  --no-crc                no page CRC-32s\n"                                                  \
    "  --bloom COL[,COL...]    split-block bloom filters for these columns (repeatable;\n"         \
    "                          'all' = every column)\n"                                            \
    "  --bloom-fpp P           their false-positive rate (default 0.01)\n"                         \
    "  --binary COL[,COL...]   STRING/VARCHAR columns written as plain BYTE_ARRAY, for\n"          \
    "                          bytes that are not UTF-8 (Parquet's STRING must be)\n"              \
    "  --meta KEY=VALUE        footer key/value metadata (repeatable)\n"                           \
    "  --threads N             threads that encode and compress the columns, and that\n"           \
    "                          parse the rows of `parquet write` (default 0: one per\n"            \
    "                          CPU; the file's bytes are the same for any N)\n"                    \
    "  --progress              rows written so far on stderr (default: when stderr is a\n"         \
    "                          terminal)\n"                                                        \
    "  --quiet                 no summary line\n"                                                  \
    "  --json                  the summary as one JSON document (see below)\n"

/* getopt_long values of the options both commands take, and of each one's own. */
enum {
    O_CODEC = 1000,
    O_LEVEL,
    O_RG_ROWS,
    O_RG_BYTES,
    O_PAGE_BYTES,
    O_PAGE_ROWS,
    O_V2,
    O_NO_DICT,
    O_DICT_BYTES,
    O_NO_STATS,
    O_NO_PI,
    O_NO_CRC,
    O_BLOOM,
    O_BLOOM_FPP,
    O_META,
    O_PROGRESS,
    O_QUIET,
    O_HELP,
    O_BINARY,
    O_SCHEMA,
    O_INPUT,
    O_FORMAT,
    O_AS_OF,
    O_NAME,
    O_TO,
    O_COLUMN,
    O_KEY,
    O_TS,
    O_LOCK_TIMEOUT,
    O_JSON,
    O_THREADS
};

#define PQ_LONG_OPTIONS                                                                            \
    {"codec", required_argument, NULL, O_CODEC}, {"level", required_argument, NULL, O_LEVEL},      \
        {"row-group-rows", required_argument, NULL, O_RG_ROWS},                                    \
        {"row-group-bytes", required_argument, NULL, O_RG_BYTES},                                  \
        {"page-bytes", required_argument, NULL, O_PAGE_BYTES},                                     \
        {"page-rows", required_argument, NULL, O_PAGE_ROWS}, {"v2", no_argument, NULL, O_V2},      \
        {"no-dictionary", no_argument, NULL, O_NO_DICT},                                           \
        {"dict-bytes", required_argument, NULL, O_DICT_BYTES},                                     \
        {"no-statistics", no_argument, NULL, O_NO_STATS},                                          \
        {"no-page-index", no_argument, NULL, O_NO_PI}, {"no-crc", no_argument, NULL, O_NO_CRC},    \
        {"bloom", required_argument, NULL, O_BLOOM},                                               \
        {"bloom-fpp", required_argument, NULL, O_BLOOM_FPP},                                       \
        {"meta", required_argument, NULL, O_META}, {"progress", no_argument, NULL, O_PROGRESS},    \
        {"quiet", no_argument, NULL, O_QUIET}, {"help", no_argument, NULL, O_HELP},                \
        {"binary", required_argument, NULL, O_BINARY},                                             \
        {"threads", required_argument, NULL, O_THREADS},                                           \
    {                                                                                              \
        "json", no_argument, NULL, O_JSON                                                          \
    }

typedef struct cf_pq_args {
    cf_parquet_writer_options o;
    char **bloom; /* column names (pieces of the --bloom arguments, owned) */
    size_t nbloom;
    char **binary; /* --binary column names (owned) */
    size_t nbinary;
    bool bloom_all;
    cf_metadata_pair *meta;
    size_t nmeta;
    char *kudu_types;           /* the CF_PQ_KUDU_TYPES_KEY entry's value, when one is added */
    bool progress, quiet, json; /* --quiet and --json: the last one given wins */
} cf_pq_args;

/* What a Parquet output was made from, for its --json summary. */
typedef struct cf_pq_source {
    const char *op;      /* "convert" or "write" */
    const char *from;    /* "cfiles", "table", "jsonl" or "csv" */
    char *const *inputs; /* the input paths ("-" for stdin) */
    size_t ninputs;
    bool has_as_of; /* a table read at --as-of */
    uint64_t as_of;
    const cf_parquet_write_column *cols;
    size_t ncols;
    /* --json: members the source adds at the end (NULL: none) */
    void (*extra)(void *ctx, struct cf_jw *j);
    void *extra_ctx;
} cf_pq_source;

void cf_pq_args_init(cf_pq_args *a);
void cf_pq_args_dispose(cf_pq_args *a);
/* One option of PQ_LONG_OPTIONS into a: 0, an exit code (a usage error,
 * printed), or 1 when ch is not one of them. */
int cf_pq_option(cf_cli *c, cf_pq_args *a, int ch, const char *arg);
/* Record the Kudu types Parquet cannot say (pq_kudu.h) in the footer, unless
 * --meta set that key itself. s: the columns' schema (VARCHAR lengths), or NULL. */
int cf_pq_kudu_types(cf_cli *c, cf_pq_args *a, const cf_parquet_write_column *cols,
                     const cf_schema *s, size_t n);
/* Mark the columns --bloom and --binary name; a name no column has is a usage error. */
int cf_pq_apply_bloom(cf_cli *c, cf_pq_args *a, cf_parquet_write_column *cols, size_t n);
/* Create the Parquet writer of OUT with the options' writer settings: 0, or the exit
 * code after saying why (a setting the writer refuses is a usage error). */
int cf_pq_writer_create(cf_cli *c, const cf_pq_args *a, const char *out,
                        const cf_parquet_write_column *cols, size_t n, cf_parquet_writer **w);
/* Columns of a table schema as the writer takes them (*out malloc'd). */
int cf_pq_columns_of(cf_cli *c, const cf_schema *s, cf_parquet_write_column **out);
/* Finish the writer and report: the summary line (t0: when writing began), or
 * with --json one document. Returns an exit code. */
int cf_pq_finish_writer(cf_cli *c, const char *out, cf_parquet_writer *w, const cf_pq_args *a,
                        const cf_pq_source *src, double t0);

#endif

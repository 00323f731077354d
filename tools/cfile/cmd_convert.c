/* `cfile convert IN... OUT` (CFiles or a table at a snapshot -> Parquet) and
 * `cfile parquet write` (CSV or JSON lines with a schema -> Parquet): the
 * Parquet writer's options (include/cfile/parquet.h) as command-line flags,
 * shared by both. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cfile/parquet.h>
#include <cfile/rowset.h>

#include "cli.h"
#include "convert.h"
#include "csv.h"
#include "pq_kudu.h"

#define PQ_OPTIONS_HELP                                                                           \
    "Parquet options:\n"                                                                         \
    "  --codec C               none, snappy (default), gzip, brotli, zstd, lz4_raw\n"            \
    "  --level N               codec level (gzip 1..9, zstd 1..22, brotli 0..11)\n"               \
    "  --row-group-rows N      most rows per row group (default 1048576)\n"                      \
    "  --row-group-bytes N     a row group ends past N encoded bytes (default 128 MiB)\n"         \
    "  --page-bytes N          a data page ends past N value bytes (default 1 MiB)\n"             \
    "  --page-rows N           most rows per data page (default 20000)\n"                        \
    "  --v2                    DATA_PAGE_V2 pages (default: v1)\n"                                \
    "  --no-dictionary         PLAIN values only (default: dictionary, PLAIN once the\n"         \
    "                          chunk's dictionary passes --dict-bytes, default 1 MiB)\n"         \
    "  --dict-bytes N\n"                                                                          \
    "  --no-statistics         no min/max/null_count in the column chunks\n"                     \
    "  --no-page-index         no column and offset index\n"                                     \
    "  --no-crc                no page CRC-32s\n"                                                 \
    "  --bloom COL[,COL...]    split-block bloom filters for these columns (repeatable;\n"       \
    "                          'all' = every column)\n"                                           \
    "  --bloom-fpp P           their false-positive rate (default 0.01)\n"                       \
    "  --binary COL[,COL...]   STRING/VARCHAR columns written as plain BYTE_ARRAY, for\n"        \
    "                          bytes that are not UTF-8 (Parquet's STRING must be)\n"            \
    "  --meta KEY=VALUE        footer key/value metadata (repeatable)\n"                         \
    "  --progress              rows written so far on stderr (default: when stderr is a\n"       \
    "                          terminal)\n"                                                        \
    "  --quiet                 no summary line\n"                                           \
    "  --json                  the summary as one JSON document (see below)\n"

const char cf_cmd_convert_usage[] =
    "usage: cfile convert [options] IN... OUT.parquet\n"
    "       cfile convert [--column C] IN.parquet OUT.cfile\n"
    "       cfile convert --to cfiles [--column C,...] IN.parquet DIR\n"
    "       cfile convert --to table --key K[,K...] [--column C,...] IN.parquet DIR\n"
    "\n"
    "The output's name says which way: OUT ending in .parquet is written as an\n"
    "Apache Parquet file, OUT ending in .cfile as one CFile, and --to cfiles or\n"
    "--to table reads one Parquet file into a directory (any other OUT without\n"
    "--to is a usage error).\n"
    "\n"
    "To Parquet: OUT is created atomically (a temporary file renamed into place once\n"
    "complete) from IN: one or more CFiles (one column each, named by its file name\n"
    "without directory and extension, all with the same number of rows), or a table\n"
    "directory (`cfile table`), read at --as-of TS (default: the latest). Types map\n"
    "to Parquet as `cfile parquet write --help` lists.\n"
    "\n"
    "  --as-of TS              the table as of timestamp TS (inclusive)\n"
    "  --name NAME             column name for a single CFile IN\n"
    PQ_OPTIONS_HELP
    "\n"
    "From Parquet: the top-level columns of IN (or those --column names), a row group\n"
    "at a time. OUT.cfile takes one column (replaced atomically). --to cfiles writes\n"
    "DIR/<column>.cfile for each (DIR is made when missing; an existing file is never\n"
    "replaced; all files or none). --to table loads the rows into the table at DIR\n"
    "in one commit (all rows or none, under the table's lock): a new table needs\n"
    "--key (its key columns, placed first); an existing one takes columns by name.\n"
    "Types: INT(bits, signed) as INT8..INT64/UINT8..UINT64, DECIMAL(p,s) as\n"
    "DECIMAL32/64/128 by p, DATE, TIMESTAMP as UNIXTIME_MICROS (MILLIS and NANOS\n"
    "converted exactly, local ones keeping their count), INT96 as UNIXTIME_MICROS,\n"
    "STRING/ENUM/JSON as STRING, other BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY (UUID\n"
    "too) as BINARY, FLOAT16 as FLOAT, BOOLEAN, FLOAT, DOUBLE; a LIST of those as an\n"
    "array column; OPTIONAL as nullable. Structs, maps, nested lists, TIME and\n"
    "INTERVAL have no Kudu column: exit 3 naming the column (leave it out with\n"
    "--column). A value that would change (sub-microsecond digits, a MILLIS time\n"
    "past the microsecond range, a decimal wider than its precision) fails with\n"
    "exit 1 naming its row and column. VARCHAR(n) and INT128, which Parquet writes\n"
    "as STRING and FIXED_LEN_BYTE_ARRAY(16), come back as they were from a file\n"
    "cfile wrote: their Kudu types are kept in the footer's key/value metadata\n"
    "(key cfile.kudu_types, a JSON object of column name to type).\n"
    "\n"
    "  --to cfiles|table|cfile the output kind (default: by OUT's name)\n"
    "  --column C[,C...]       only these top-level columns (repeatable)\n"
    "  --key K[,K...]          --to table: the new table's key columns (taken NOT NULL)\n"
    "  --ts TS                 --to table: insert timestamp of every row\n"
    "  --lock-timeout MS       --to table: wait up to MS for the lock (default 10000)\n"
    "  --progress, --quiet     as above\n"
    "  --json                  as above\n"
    "  --help                  this text\n"
    "\n"
    "--json prints one compact JSON document instead of the summary line, every\n"
    "direction starting {\"op\": \"convert\", \"from\": \"cfiles\"|\"table\"|\"parquet\",\n"
    "\"inputs\": [IN...], ... \"to\", \"rows\"}: to Parquet it adds \"as_of\" (a table\n"
    "at --as-of), \"file\", \"row_groups\" (read back from its footer), \"columns\"\n"
    "([{\"name\", \"type\", \"is_array\", \"nullable\", \"bloom_filter\"}]), \"codec\" and\n"
    "\"bytes\" (the file's size); from Parquet \"row_groups\" is IN's, and --to cfile\n"
    "or cfiles adds \"dir\" (cfiles), \"files\" ([{\"file\", \"column\", \"type\",\n"
    "\"is_array\", \"nullable\", \"encoding\", \"compression\", \"bytes\"}]) and \"bytes\"\n"
    "(their total); --to table adds \"table\", \"columns\" ([{\"column\", \"type\",\n"
    "\"is_array\", \"nullable\"}]), \"key\" (the table's key columns) and \"rowsets\"\n"
    "(the table's rowsets after the load).\n";

const char cf_cmd_parquet_write_usage[] =
    "usage: cfile parquet write --schema SCHEMA [options] [--input IN] OUT\n"
    "\n"
    "Write OUT as an Apache Parquet file from rows on stdin (or IN): JSON lines of\n"
    "{\"column\": value, ...} objects (value forms as `cfile dump`; a missing member\n"
    "is NULL) or CSV with a header row naming the columns (as `cfile table import`).\n"
    "SCHEMA as `cfile table create` takes it, e.g. \"id INT64, name STRING NULL,\n"
    "tags INT32[] NULL, price DECIMAL64(10,2)\" (KEY and the CFile attributes are\n"
    "accepted and ignored). OUT is created atomically; errors name the line.\n"
    "\n"
    "Types: INT8..INT64 and UINT8..UINT64 as INT(bits, signed) on INT32/INT64,\n"
    "DECIMAL32/64/128 as DECIMAL on INT32/INT64/FIXED_LEN_BYTE_ARRAY(16), DATE,\n"
    "UNIXTIME_MICROS as TIMESTAMP(MICROS, UTC), STRING/VARCHAR as STRING, BINARY,\n"
    "BOOL, FLOAT, DOUBLE, INT128 as FIXED_LEN_BYTE_ARRAY(16); arrays as 3-level\n"
    "LISTs; NULL columns OPTIONAL, the others REQUIRED.\n"
    "\n"
    "  --schema SCHEMA         the columns (required)\n"
    "  --input IN              read IN instead of stdin\n"
    "  --format jsonl|csv      input format (default: csv when IN ends in .csv)\n"
    PQ_OPTIONS_HELP
    "  --help                  this text\n"
    "\n"
    "--json prints one compact JSON document instead of the summary line:\n"
    "{\"op\": \"write\", \"from\": \"jsonl\"|\"csv\", \"inputs\": [IN or \"-\"], \"to\":\n"
    "\"parquet\", \"file\", \"rows\", \"row_groups\", \"columns\": [{\"name\", \"type\",\n"
    "\"is_array\", \"nullable\", \"bloom_filter\"}], \"codec\", \"bytes\"}, as\n"
    "`cfile convert --json` prints it for a Parquet OUT.\n";

/* ---- the shared options ------------------------------------------------------------------ */

enum {
    O_CODEC = 1000, O_LEVEL, O_RG_ROWS, O_RG_BYTES, O_PAGE_BYTES, O_PAGE_ROWS, O_V2, O_NO_DICT,
    O_DICT_BYTES, O_NO_STATS, O_NO_PI, O_NO_CRC, O_BLOOM, O_BLOOM_FPP, O_META, O_PROGRESS,
    O_QUIET, O_HELP, O_BINARY, O_SCHEMA, O_INPUT, O_FORMAT, O_AS_OF, O_NAME, O_TO, O_COLUMN,
    O_KEY, O_TS, O_LOCK_TIMEOUT, O_JSON
};

#define PQ_LONG_OPTIONS                                                                          \
    {"codec", required_argument, NULL, O_CODEC}, {"level", required_argument, NULL, O_LEVEL},    \
    {"row-group-rows", required_argument, NULL, O_RG_ROWS},                                       \
    {"row-group-bytes", required_argument, NULL, O_RG_BYTES},                                     \
    {"page-bytes", required_argument, NULL, O_PAGE_BYTES},                                        \
    {"page-rows", required_argument, NULL, O_PAGE_ROWS}, {"v2", no_argument, NULL, O_V2},         \
    {"no-dictionary", no_argument, NULL, O_NO_DICT},                                              \
    {"dict-bytes", required_argument, NULL, O_DICT_BYTES},                                        \
    {"no-statistics", no_argument, NULL, O_NO_STATS},                                             \
    {"no-page-index", no_argument, NULL, O_NO_PI}, {"no-crc", no_argument, NULL, O_NO_CRC},       \
    {"bloom", required_argument, NULL, O_BLOOM},                                                  \
    {"bloom-fpp", required_argument, NULL, O_BLOOM_FPP},                                          \
    {"meta", required_argument, NULL, O_META}, {"progress", no_argument, NULL, O_PROGRESS},       \
    {"quiet", no_argument, NULL, O_QUIET}, {"help", no_argument, NULL, O_HELP},                  \
    {"binary", required_argument, NULL, O_BINARY}, {"json", no_argument, NULL, O_JSON}

typedef struct pq_args {
    cf_parquet_writer_options o;
    char **bloom; /* column names (pieces of the --bloom arguments, owned) */
    size_t nbloom;
    char **binary; /* --binary column names (owned) */
    size_t nbinary;
    bool bloom_all;
    cf_metadata_pair *meta;
    size_t nmeta;
    char *kudu_types; /* the CF_PQ_KUDU_TYPES_KEY entry's value, when one is added */
    bool progress, quiet, json; /* --quiet and --json: the last one given wins */
} pq_args;

static void pq_args_init(pq_args *a)
{
    memset(a, 0, sizeof(*a));
    cf_parquet_writer_options_init(&a->o);
    a->progress = isatty(STDERR_FILENO);
}

static void pq_args_dispose(pq_args *a)
{
    for (size_t i = 0; i < a->nbloom; i++)
        free(a->bloom[i]);
    free(a->bloom);
    for (size_t i = 0; i < a->nbinary; i++)
        free(a->binary[i]);
    free(a->binary);
    free(a->meta);
    free(a->kudu_types);
}

/* Record the Kudu types Parquet cannot say (pq_kudu.h) in the footer, unless
 * --meta set that key itself. s: the columns' schema (VARCHAR lengths), or NULL. */
static int pq_kudu_types(cf_cli *c, pq_args *a, const cf_parquet_write_column *cols,
                         const cf_rs_schema *s, size_t n)
{
    const size_t klen = strlen(CF_PQ_KUDU_TYPES_KEY);
    for (size_t i = 0; i < a->nmeta; i++)
        if (a->meta[i].key.len == klen && memcmp(a->meta[i].key.data, CF_PQ_KUDU_TYPES_KEY, klen) == 0)
            return 0;
    int *len = calloc(n ? n : 1, sizeof(*len));
    if (len == NULL)
        return cf_cli_fail(c, "out of memory");
    for (size_t i = 0; s != NULL && i < n; i++)
        len[i] = cf_rs_schema_column(s, i)->length;
    char *v = cf_pq_kudu_types_value(cols, len, n);
    free(len);
    if (v == NULL)
        return 0;
    cf_metadata_pair *m = realloc(a->meta, (a->nmeta + 1) * sizeof(*m));
    if (m == NULL) {
        free(v);
        return cf_cli_fail(c, "out of memory");
    }
    free(a->kudu_types);
    a->kudu_types = v;
    a->meta = m;
    m[a->nmeta].key = (cf_slice){(const uint8_t *)CF_PQ_KUDU_TYPES_KEY, klen};
    m[a->nmeta].value = (cf_slice){(const uint8_t *)v, strlen(v)};
    a->o.kv = a->meta;
    a->o.kv_count = a->nmeta + 1;
    return 0;
}

static int parse_size(cf_cli *c, const char *opt, const char *arg, uint64_t min, uint64_t *out)
{
    if (cf_cli_parse_u64(arg, out) != 0 || *out < min)
        return cf_cli_usage(c, "--%s: expected an integer >= %" PRIu64 ", got '%s'", opt, min,
                            arg);
    return 0;
}

static int parse_codec(const char *s, int32_t *out)
{
    static const struct { const char *name; int32_t codec; } names[] = {
        {"none", CF_PARQUET_UNCOMPRESSED}, {"uncompressed", CF_PARQUET_UNCOMPRESSED},
        {"snappy", CF_PARQUET_SNAPPY}, {"gzip", CF_PARQUET_GZIP}, {"brotli", CF_PARQUET_BROTLI},
        {"zstd", CF_PARQUET_ZSTD}, {"lz4_raw", CF_PARQUET_LZ4_RAW}, {"lz4", CF_PARQUET_LZ4_RAW},
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcasecmp(s, names[i].name) == 0) {
            *out = names[i].codec;
            return 0;
        }
    return -1;
}

/* 1 = not one of ours, 0 = taken, else an exit code. */
static int pq_option(cf_cli *c, pq_args *a, int ch, const char *arg)
{
    uint64_t v;
    int rc;
    switch (ch) {
    case O_CODEC:
        if (parse_codec(arg, &a->o.codec) != 0)
            return cf_cli_usage(c, "--codec: expected none, snappy, gzip, brotli, zstd or "
                                   "lz4_raw, got '%s'", arg);
        return 0;
    case O_LEVEL:
        if ((rc = parse_size(c, "level", arg, 0, &v)) != 0)
            return rc;
        if (v > 22)
            return cf_cli_usage(c, "--level: %" PRIu64 " is above 22", v);
        a->o.level = (int)v;
        return 0;
    case O_RG_ROWS:
        if ((rc = parse_size(c, "row-group-rows", arg, 1, &v)) != 0)
            return rc;
        a->o.row_group_rows = v;
        return 0;
    case O_RG_BYTES:
        if ((rc = parse_size(c, "row-group-bytes", arg, 1, &v)) != 0)
            return rc;
        a->o.row_group_bytes = (size_t)v;
        return 0;
    case O_PAGE_BYTES:
        if ((rc = parse_size(c, "page-bytes", arg, 1, &v)) != 0)
            return rc;
        if (v > ((uint64_t)1 << 30))
            return cf_cli_usage(c, "--page-bytes: %" PRIu64 " is above 1 GiB", v);
        a->o.page_bytes = (size_t)v;
        return 0;
    case O_PAGE_ROWS:
        if ((rc = parse_size(c, "page-rows", arg, 1, &v)) != 0)
            return rc;
        if (v > UINT32_MAX)
            return cf_cli_usage(c, "--page-rows: %" PRIu64 " is too large", v);
        a->o.page_rows = (uint32_t)v;
        return 0;
    case O_DICT_BYTES:
        if ((rc = parse_size(c, "dict-bytes", arg, 0, &v)) != 0)
            return rc;
        if (v > ((uint64_t)1 << 30))
            return cf_cli_usage(c, "--dict-bytes: %" PRIu64 " is above 1 GiB", v);
        a->o.dict_page_bytes = (size_t)v;
        return 0;
    case O_V2: a->o.data_page_v2 = true; return 0;
    case O_NO_DICT: a->o.dictionary = false; return 0;
    case O_NO_STATS: a->o.statistics = false; return 0;
    case O_NO_PI: a->o.page_index = false; return 0;
    case O_NO_CRC: a->o.page_crc = false; return 0;
    case O_BLOOM:
    case O_BINARY: {
        char ***list = ch == O_BLOOM ? &a->bloom : &a->binary;
        size_t *n = ch == O_BLOOM ? &a->nbloom : &a->nbinary;
        char *copy = strdup(arg), *save = NULL;
        if (copy == NULL)
            return cf_cli_fail(c, "out of memory");
        for (char *p = strtok_r(copy, ",", &save); p != NULL; p = strtok_r(NULL, ",", &save)) {
            if (ch == O_BLOOM && strcmp(p, "all") == 0) {
                a->bloom_all = true;
                continue;
            }
            char **nb = realloc(*list, (*n + 1) * sizeof(*nb));
            char *d = strdup(p);
            if (nb == NULL || d == NULL) {
                free(d);
                if (nb)
                    *list = nb;
                free(copy);
                return cf_cli_fail(c, "out of memory");
            }
            *list = nb;
            (*list)[(*n)++] = d;
        }
        free(copy);
        return 0;
    }
    case O_BLOOM_FPP: {
        char *end;
        errno = 0;
        double p = strtod(arg, &end);
        if (errno || *end || !(p > 0.0 && p < 1.0))
            return cf_cli_usage(c, "--bloom-fpp: expected a number in (0, 1), got '%s'", arg);
        a->o.bloom_fpp = p;
        return 0;
    }
    case O_META: {
        const char *eq = strchr(arg, '=');
        if (eq == NULL || eq == arg)
            return cf_cli_usage(c, "--meta: expected KEY=VALUE, got '%s'", arg);
        cf_metadata_pair *m = realloc(a->meta, (a->nmeta + 1) * sizeof(*m));
        if (m == NULL)
            return cf_cli_fail(c, "out of memory");
        a->meta = m;
        m[a->nmeta].key = (cf_slice){(const uint8_t *)arg, (size_t)(eq - arg)};
        m[a->nmeta].value = (cf_slice){(const uint8_t *)eq + 1, strlen(eq + 1)};
        a->nmeta++;
        a->o.kv = a->meta;
        a->o.kv_count = a->nmeta;
        return 0;
    }
    case O_PROGRESS: a->progress = true; return 0;
    case O_QUIET: a->quiet = true; a->json = false; return 0;
    case O_JSON: a->json = true; a->quiet = false; return 0;
    default: return 1;
    }
}

/* Mark the columns --bloom and --binary name; a name no column has is a usage error. */
static int pq_apply_bloom(cf_cli *c, pq_args *a, cf_parquet_write_column *cols, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cols[i].bloom_filter = a->bloom_all;
    for (size_t b = 0; b < a->nbloom + a->nbinary; b++) {
        bool bloom = b < a->nbloom;
        const char *name = bloom ? a->bloom[b] : a->binary[b - a->nbloom];
        size_t i = 0;
        while (i < n && strcmp(cols[i].name, name) != 0)
            i++;
        if (i == n)
            return cf_cli_usage(c, "--%s: no column named '%s'", bloom ? "bloom" : "binary", name);
        if (bloom)
            cols[i].bloom_filter = true;
        else
            cols[i].binary = true;
    }
    return 0;
}

double cf_cli_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void cf_cli_progress_init(cf_cli_progress *p, cf_cli *c, bool on, uint64_t total)
{
    p->c = c;
    p->on = on;
    p->total = total;
    p->rows = 0;
    p->t0 = p->last = cf_cli_now_s();
}

static void progress_draw(cf_cli_progress *p, double t)
{
    if (p->total)
        fprintf(p->c->err, "\r%" PRIu64 " / %" PRIu64 " rows (%.0f%%), %.1f s", p->rows, p->total,
                100.0 * (double)p->rows / (double)p->total, t - p->t0);
    else
        fprintf(p->c->err, "\r%" PRIu64 " rows, %.1f s", p->rows, t - p->t0);
    fflush(p->c->err);
}

void cf_cli_progress_cb(void *ctx, uint64_t rows)
{
    cf_cli_progress *p = ctx;
    p->rows = rows;
    if (!p->on)
        return;
    double t = cf_cli_now_s();
    if (t - p->last < 0.5)
        return;
    p->last = t;
    progress_draw(p, t);
}

void cf_cli_progress_end(cf_cli_progress *p)
{
    if (!p->on)
        return;
    progress_draw(p, cf_cli_now_s());
    fputc('\n', p->c->err);
}

/* Columns of a table schema as the writer takes them. */
static int columns_of(cf_cli *c, const cf_rs_schema *s, cf_parquet_write_column **out)
{
    size_t n = cf_rs_schema_ncols(s);
    cf_parquet_write_column *cols = calloc(n, sizeof(*cols));
    if (cols == NULL)
        return cf_cli_fail(c, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const cf_rs_column *rc = cf_rs_schema_column(s, i);
        cols[i].name = rc->name;
        cols[i].type = rc->type;
        cols[i].nullable = rc->nullable;
        cols[i].is_array = rc->is_array;
        cols[i].precision = rc->precision;
        cols[i].scale = rc->scale;
    }
    *out = cols;
    return 0;
}

/* What a Parquet output was made from, for its --json summary. */
typedef struct pq_source {
    const char *op;      /* "convert" or "write" */
    const char *from;    /* "cfiles", "table", "jsonl" or "csv" */
    char *const *inputs; /* the input paths ("-" for stdin) */
    size_t ninputs;
    bool has_as_of; /* a table read at --as-of */
    uint64_t as_of;
    const cf_parquet_write_column *cols;
    size_t ncols;
} pq_source;

/* --json for a Parquet output: one document. Row groups are read back from the
 * footer just written (the writer does not count them). */
static int pq_json(cf_cli *c, const char *out, const cf_parquet_writer *w, const pq_args *a,
                   const pq_source *src)
{
    cf_parquet *pq = NULL;
    cf_error e;
    cf_status st = cf_parquet_open_file(&pq, out, NULL, &e);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, out, st, &e);
    cf_jw j;
    cf_jw_init(&j, c->out);
    cf_jw_obj_begin(&j);
    cf_jw_key(&j, "op");
    cf_jw_cstr(&j, src->op);
    cf_jw_key(&j, "from");
    cf_jw_cstr(&j, src->from);
    cf_jw_key(&j, "inputs");
    cf_jw_arr_begin(&j);
    for (size_t i = 0; i < src->ninputs; i++)
        cf_jw_cstr(&j, src->inputs[i]);
    cf_jw_arr_end(&j);
    if (src->has_as_of) {
        cf_jw_key(&j, "as_of");
        cf_jw_uint(&j, src->as_of);
    }
    cf_jw_key(&j, "to");
    cf_jw_cstr(&j, "parquet");
    cf_jw_key(&j, "file");
    cf_jw_cstr(&j, out);
    cf_jw_key(&j, "rows");
    cf_jw_uint(&j, cf_parquet_writer_rows(w));
    cf_jw_key(&j, "row_groups");
    cf_jw_uint(&j, cf_parquet_meta(pq)->row_group_count);
    cf_jw_key(&j, "columns");
    cf_jw_arr_begin(&j);
    for (size_t i = 0; i < src->ncols; i++) {
        const cf_parquet_write_column *col = &src->cols[i];
        cf_jw_obj_begin(&j);
        cf_jw_key(&j, "name");
        cf_jw_cstr(&j, col->name);
        cf_jw_key(&j, "type");
        cf_jw_cstr(&j, cf_cli_type_name(col->type));
        cf_jw_key(&j, "is_array");
        cf_jw_bool(&j, col->is_array);
        cf_jw_key(&j, "nullable");
        cf_jw_bool(&j, col->nullable);
        cf_jw_key(&j, "bloom_filter");
        cf_jw_bool(&j, col->bloom_filter);
        cf_jw_obj_end(&j);
    }
    cf_jw_arr_end(&j);
    cf_jw_key(&j, "codec");
    const char *codec = cf_parquet_codec_name(a->o.codec);
    cf_jw_cstr(&j, codec != NULL ? codec : "UNKNOWN");
    cf_jw_key(&j, "bytes");
    cf_jw_uint(&j, cf_parquet_file_size(pq));
    cf_jw_obj_end(&j);
    cf_jw_newline(&j);
    cf_parquet_free(pq);
    return 0;
}

static int finish_writer(cf_cli *c, const char *out, cf_parquet_writer *w, const pq_args *a,
                         const pq_source *src, double t0)
{
    cf_error e;
    cf_status st = cf_parquet_writer_finish(w, &e);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, out, st, &e);
    if (a->json)
        return pq_json(c, out, w, a, src);
    if (!a->quiet)
        fprintf(c->out, "wrote %" PRIu64 " rows, %" PRIu64 " bytes to %s in %.2f s\n",
                cf_parquet_writer_rows(w), cf_parquet_writer_bytes(w), out, cf_cli_now_s() - t0);
    return 0;
}

/* ---- cfile parquet write ------------------------------------------------------------------ */

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

int cf_cmd_parquet_write(cf_cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        PQ_LONG_OPTIONS,
        {"schema", required_argument, NULL, O_SCHEMA},
        {"input", required_argument, NULL, O_INPUT},
        {"format", required_argument, NULL, O_FORMAT},
        {NULL, 0, NULL, 0},
    };
    cf_cli sub = *c;
    sub.usage = cf_cmd_parquet_write_usage;
    sub.cmd = "parquet write";
    c = &sub;
    pq_args a;
    pq_args_init(&a);
    const char *schema = NULL, *input = "-", *format = NULL;
    int ch, rc = 0;
    cf_cli_getopt_reset();
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (ch == O_HELP) {
            pq_args_dispose(&a);
            return cf_cli_help(c);
        }
        if (ch == O_SCHEMA)
            schema = optarg;
        else if (ch == O_INPUT)
            input = optarg;
        else if (ch == O_FORMAT)
            format = optarg;
        else if ((rc = pq_option(c, &a, ch, optarg)) != 0) {
            pq_args_dispose(&a);
            return rc == 1 ? cf_cli_bad_option(c, argv) : rc;
        }
    }
    cf_rs_schema *s = NULL;
    cf_parquet_write_column *cols = NULL;
    cf_parquet_writer *w = NULL;
    FILE *in = NULL;
    cf_error e;
    if (schema == NULL) {
        rc = cf_cli_usage(c, "missing --schema");
        goto out;
    }
    if (argc - optind != 1) {
        rc = cf_cli_usage(c, argc == optind ? "missing OUT" : "expected one OUT");
        goto out;
    }
    bool jsonl = !ends_with(input, ".csv");
    if (format != NULL) {
        if (strcmp(format, "csv") != 0 && strcmp(format, "jsonl") != 0) {
            rc = cf_cli_usage(c, "--format: expected csv or jsonl, got '%s'", format);
            goto out;
        }
        jsonl = format[0] == 'j';
    }
    const char *out = argv[optind];
    cf_status st = cf_rs_schema_parse_columns(&s, schema, &e);
    if (st != CF_OK) {
        rc = cf_cli_usage(c, "--schema: %s", e.msg);
        goto out;
    }
    if ((rc = columns_of(c, s, &cols)) != 0)
        goto out;
    size_t n = cf_rs_schema_ncols(s);
    if ((rc = pq_apply_bloom(c, &a, cols, n)) != 0 || (rc = pq_kudu_types(c, &a, cols, s, n)) != 0)
        goto out;
    in = cf_cli_fopen_input(input);
    if (in == NULL) {
        rc = cf_cli_fail(c, "%s: %s", input, strerror(errno));
        goto out;
    }
    double t0 = cf_cli_now_s();
    st = cf_parquet_writer_create_file(&w, out, cols, n, &a.o, &e);
    if (st != CF_OK) {
        rc = st == CF_EINVAL ? cf_cli_usage(c, "%s", e.msg) : cf_cli_lib_fail(c, out, st, &e);
        goto out;
    }
    cf_cli_progress p;
    cf_cli_progress_init(&p, c, a.progress, 0);
    uint64_t rows;
    rc = cf_cli_rows_to_parquet(c, input, in, jsonl, s, w, cf_cli_progress_cb, &p, &rows);
    cf_cli_progress_end(&p);
    if (rc == 0) {
        char *inputs[] = {(char *)input};
        pq_source src = {"write", jsonl ? "jsonl" : "csv", inputs, 1, false, 0, cols, n};
        rc = finish_writer(c, out, w, &a, &src, t0);
    }
out:
    cf_parquet_writer_free(w); /* after a failure: nothing appears at OUT */
    if (in != NULL)
        cf_cli_fclose_input(in);
    free(cols);
    cf_rs_schema_free(s);
    pq_args_dispose(&a);
    return rc;
}

/* ---- cfile convert ---------------------------------------------------------------------- */

/* Shift a bitmap by `from` bits into dst (n bits). */
static void bits_from(uint8_t *dst, const uint8_t *src, size_t from, size_t n)
{
    memset(dst, 0, n / 8 + 1);
    for (size_t i = 0; i < n; i++)
        if ((src[(from + i) >> 3] >> ((from + i) & 7)) & 1)
            dst[i >> 3] |= (uint8_t)(1u << (i & 7));
}

typedef struct cfin {
    const char *path;
    cf_reader *r;
    cf_iter *it;
    cf_batch b;    /* current batch */
    size_t pos;    /* rows of it already written */
    char *name;
    uint8_t *nn;   /* shifted bitmap */
} cfin;

/* Several CFiles side by side: their batches end at different rows (block
 * boundaries), so each step writes the rows every file still has in its
 * current batch. */
static int convert_cfiles(cf_cli *c, char **paths, size_t n, const char *name, const char *out,
                          pq_args *a)
{
    cf_error e;
    cf_status st;
    int rc = 0;
    cfin *f = calloc(n, sizeof(*f));
    cf_parquet_write_column *cols = calloc(n, sizeof(*cols));
    cf_batch *b = calloc(n, sizeof(*b));
    cf_parquet_writer *w = NULL;
    if (f == NULL || cols == NULL || b == NULL) {
        rc = cf_cli_fail(c, "out of memory");
        goto out;
    }
    uint64_t rows = 0;
    for (size_t i = 0; i < n; i++) {
        f[i].path = paths[i];
        if ((st = cf_cli_open(&f[i].r, paths[i], &e)) != CF_OK) {
            rc = cf_cli_lib_fail(c, paths[i], st, &e);
            goto out;
        }
        if (cf_bloom_is_bloom_file(cf_reader_info(f[i].r))) {
            rc = cf_cli_fail(c, "%s: a BloomFile holds no values to convert", paths[i]);
            goto out;
        }
        const cf_file_info *fi = cf_reader_info(f[i].r);
        if (i == 0)
            rows = fi->num_values;
        else if (fi->num_values != rows) {
            rc = cf_cli_fail(c, "%s: %" PRIu64 " rows, %s has %" PRIu64, paths[i], fi->num_values,
                             paths[0], rows);
            goto out;
        }
        const char *base = strrchr(paths[i], '/');
        base = base ? base + 1 : paths[i];
        if (name != NULL)
            base = name;
        f[i].name = strdup(base);
        f[i].nn = malloc(CF_CLI_BATCH / 8 + 1);
        if (f[i].name == NULL || f[i].nn == NULL) {
            rc = cf_cli_fail(c, "out of memory");
            goto out;
        }
        char *dot = strrchr(f[i].name, '.');
        if (dot != NULL && dot != f[i].name && name == NULL)
            *dot = '\0';
        cols[i].name = f[i].name;
        cols[i].type = fi->type;
        cols[i].nullable = fi->nullable;
        cols[i].is_array = fi->is_array;
        if ((st = cf_iter_create(&f[i].it, f[i].r, &e)) != CF_OK ||
            (st = cf_iter_seek_to_first(f[i].it, &e)) != CF_OK) {
            rc = cf_cli_lib_fail(c, paths[i], st, &e);
            goto out;
        }
    }
    if ((rc = pq_apply_bloom(c, a, cols, n)) != 0 || (rc = pq_kudu_types(c, a, cols, NULL, n)) != 0)
        goto out;
    double t0 = cf_cli_now_s();
    st = cf_parquet_writer_create_file(&w, out, cols, n, &a->o, &e);
    if (st != CF_OK) {
        rc = st == CF_EINVAL ? cf_cli_usage(c, "%s", e.msg) : cf_cli_lib_fail(c, out, st, &e);
        goto out;
    }
    cf_cli_progress p;
    cf_cli_progress_init(&p, c, a->progress, rows);
    uint64_t done = 0;
    while (done < rows) {
        size_t step = SIZE_MAX;
        for (size_t i = 0; i < n; i++) {
            if (f[i].pos == f[i].b.count) {
                if ((st = cf_iter_next_batch(f[i].it, CF_CLI_BATCH, &f[i].b, &e)) != CF_OK) {
                    rc = cf_cli_lib_fail(c, f[i].path, st, &e);
                    goto out;
                }
                f[i].pos = 0;
                if (f[i].b.count == 0) {
                    rc = cf_cli_fail(c, "%s: ended at row %" PRIu64 " of %" PRIu64, f[i].path,
                                     done, rows);
                    goto out;
                }
            }
            size_t left = f[i].b.count - f[i].pos;
            step = left < step ? left : step;
        }
        for (size_t i = 0; i < n; i++) {
            const cf_batch *s = &f[i].b;
            b[i] = *s;
            b[i].count = step;
            if (s->nonnull != NULL) {
                bits_from(f[i].nn, s->nonnull, f[i].pos, step);
                b[i].nonnull = f[i].nn;
            }
            if (cols[i].is_array)
                b[i].elem_offsets = s->elem_offsets + f[i].pos; /* absolute into values */
            else
                b[i].values = (const uint8_t *)s->values + f[i].pos * cf_type_size(cols[i].type);
            f[i].pos += step;
        }
        if ((st = cf_parquet_writer_append(w, b, step, &e)) != CF_OK) {
            rc = cf_cli_lib_fail(c, out, st, &e);
            goto out;
        }
        done += step;
        cf_cli_progress_cb(&p, done);
    }
    cf_cli_progress_end(&p);
    pq_source src = {"convert", "cfiles", paths, n, false, 0, cols, n};
    rc = finish_writer(c, out, w, a, &src, t0);
out:
    cf_parquet_writer_free(w);
    for (size_t i = 0; f != NULL && i < n; i++) {
        cf_iter_free(f[i].it);
        cf_reader_free(f[i].r);
        free(f[i].name);
        free(f[i].nn);
    }
    free(f);
    free(cols);
    free(b);
    return rc;
}

static int convert_table(cf_cli *c, const char *dir, bool has_ts, uint64_t ts, const char *out,
                         pq_args *a)
{
    cf_error e;
    cf_table_options to;
    cf_table_options_init(&to);
    to.read_only = true;
    cf_table *t = NULL;
    cf_table_scanner *sc = NULL;
    cf_parquet_writer *w = NULL;
    cf_parquet_write_column *cols = NULL;
    int rc = 0;
    cf_status st = cf_table_open_opts(&t, dir, &to, &e);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, dir, st, &e);
    const cf_rs_schema *s = cf_table_schema(t);
    size_t n = cf_rs_schema_ncols(s);
    if ((rc = columns_of(c, s, &cols)) != 0 || (rc = pq_apply_bloom(c, a, cols, n)) != 0 ||
        (rc = pq_kudu_types(c, a, cols, s, n)) != 0)
        goto out;
    cf_rs_scan_options so;
    cf_rs_scan_options_init(&so);
    if (has_ts)
        so.snapshot = ts + 1; /* inclusive, as `table scan --as-of` */
    if ((st = cf_table_scanner_create(&sc, t, &so, &e)) != CF_OK) {
        rc = cf_cli_lib_fail(c, dir, st, &e);
        goto out;
    }
    double t0 = cf_cli_now_s();
    st = cf_parquet_writer_create_file(&w, out, cols, n, &a->o, &e);
    if (st != CF_OK) {
        rc = st == CF_EINVAL ? cf_cli_usage(c, "%s", e.msg) : cf_cli_lib_fail(c, out, st, &e);
        goto out;
    }
    cf_cli_progress p;
    cf_cli_progress_init(&p, c, a->progress, 0);
    uint64_t done = 0;
    for (;;) {
        cf_rs_batch rb;
        if ((st = cf_table_scanner_next(sc, &rb, &e)) != CF_OK) {
            rc = cf_cli_lib_fail(c, dir, st, &e);
            goto out;
        }
        if (rb.count == 0)
            break;
        if ((st = cf_parquet_writer_append(w, rb.cols, rb.count, &e)) != CF_OK) {
            rc = cf_cli_lib_fail(c, out, st, &e);
            goto out;
        }
        done += rb.count;
        cf_cli_progress_cb(&p, done);
    }
    cf_cli_progress_end(&p);
    char *inputs[] = {(char *)dir};
    pq_source src = {"convert", "table", inputs, 1, has_ts, ts, cols, n};
    rc = finish_writer(c, out, w, a, &src, t0);
out:
    cf_parquet_writer_free(w);
    cf_table_scanner_free(sc);
    cf_table_free(t);
    free(cols);
    return rc;
}

static void free_list(char **l, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(l[i]);
    free(l);
}

/* Comma-separated names appended to *list. */
static int add_names(cf_cli *c, const char *opt, const char *arg, char ***list, size_t *n)
{
    char *copy = strdup(arg), *save = NULL;
    if (copy == NULL)
        return cf_cli_fail(c, "out of memory");
    for (char *p = strtok_r(copy, ",", &save); p != NULL; p = strtok_r(NULL, ",", &save)) {
        char **nl = realloc(*list, (*n + 1) * sizeof(*nl));
        char *d = strdup(p);
        if (nl != NULL)
            *list = nl;
        if (nl == NULL || d == NULL) {
            free(d);
            free(copy);
            return cf_cli_fail(c, "out of memory");
        }
        (*list)[(*n)++] = d;
    }
    free(copy);
    if (*n == 0)
        return cf_cli_usage(c, "--%s: expected names, got '%s'", opt, arg);
    return 0;
}

/* The options of a Parquet IN. */
static int pq_in_option(cf_cli *c, cf_pq_convert_args *pa, const char **to, int ch,
                        const char *arg)
{
    uint64_t v;
    switch (ch) {
    case O_TO:
        if (strcmp(arg, "cfiles") != 0 && strcmp(arg, "table") != 0 && strcmp(arg, "cfile") != 0)
            return cf_cli_usage(c, "--to: expected cfiles, table or cfile, got '%s'", arg);
        *to = arg;
        return 0;
    case O_COLUMN: return add_names(c, "column", arg, &pa->columns, &pa->ncolumns);
    case O_KEY: return add_names(c, "key", arg, &pa->keys, &pa->nkeys);
    case O_TS:
        if (cf_cli_parse_u64(arg, &pa->ts) != 0 || pa->ts == 0 || pa->ts == UINT64_MAX)
            return cf_cli_usage(c, "--ts: expected a timestamp >= 1, got '%s'", arg);
        pa->has_ts = true;
        return 0;
    default:
        if (cf_cli_parse_u64(arg, &v) != 0 || v > UINT32_MAX)
            return cf_cli_usage(c, "--lock-timeout: expected milliseconds, got '%s'", arg);
        pa->lock_ms = (uint32_t)v;
        return 0;
    }
}

int cf_cmd_convert(cf_cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        PQ_LONG_OPTIONS,
        {"as-of", required_argument, NULL, O_AS_OF},
        {"name", required_argument, NULL, O_NAME},
        {"to", required_argument, NULL, O_TO},
        {"column", required_argument, NULL, O_COLUMN},
        {"key", required_argument, NULL, O_KEY},
        {"ts", required_argument, NULL, O_TS},
        {"lock-timeout", required_argument, NULL, O_LOCK_TIMEOUT},
        {NULL, 0, NULL, 0},
    };
    pq_args a;
    pq_args_init(&a);
    cf_pq_convert_args pa;
    memset(&pa, 0, sizeof(pa));
    pa.lock_ms = 10000;
    const char *to = NULL, *writer_opt = NULL, *reader_opt = NULL;
    const char *name = NULL;
    bool has_ts = false;
    uint64_t ts = 0;
    int ch, rc = 0;
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (ch == O_HELP) {
            pq_args_dispose(&a);
            free_list(pa.columns, pa.ncolumns);
            free_list(pa.keys, pa.nkeys);
            return cf_cli_help(c);
        }
        if (ch == O_AS_OF) {
            if (cf_cli_parse_u64(optarg, &ts) != 0 || ts == UINT64_MAX) {
                pq_args_dispose(&a);
                free_list(pa.columns, pa.ncolumns);
                free_list(pa.keys, pa.nkeys);
                return cf_cli_usage(c, "--as-of: expected a timestamp, got '%s'", optarg);
            }
            has_ts = true;
        } else if (ch == O_NAME) {
            name = optarg;
        } else if (ch == O_TO || ch == O_COLUMN || ch == O_KEY || ch == O_TS ||
                   ch == O_LOCK_TIMEOUT) {
            if (reader_opt == NULL)
                reader_opt = argv[optind - 1];
            if ((rc = pq_in_option(c, &pa, &to, ch, optarg)) != 0) {
                pq_args_dispose(&a);
                free_list(pa.columns, pa.ncolumns);
                free_list(pa.keys, pa.nkeys);
                return rc;
            }
        } else if ((rc = pq_option(c, &a, ch, optarg)) != 0) {
            pq_args_dispose(&a);
            free_list(pa.columns, pa.ncolumns);
            free_list(pa.keys, pa.nkeys);
            return rc == 1 ? cf_cli_bad_option(c, argv) : rc;
        } else if (ch != O_PROGRESS && ch != O_QUIET && ch != O_JSON && writer_opt == NULL) {
            writer_opt = argv[optind - 1];
        }
    }
    int nin = argc - optind - 1;
    if (nin < 1) {
        pq_args_dispose(&a);
        free_list(pa.columns, pa.ncolumns);
        free_list(pa.keys, pa.nkeys);
        return cf_cli_usage(c, argc == optind ? "missing IN and OUT" : "missing OUT");
    }
    const char *out = argv[argc - 1];
    if (to != NULL || !ends_with(out, ".parquet")) {
        /* Parquet in: the output kind by --to or OUT's name. */
        if (to == NULL && !ends_with(out, ".cfile"))
            rc = cf_cli_usage(c, "OUT: name a .parquet or .cfile file, or say --to cfiles or "
                                 "--to table for a directory");
        else if (nin != 1)
            rc = cf_cli_usage(c, "a Parquet IN is converted alone");
        else if (writer_opt != NULL || has_ts || name != NULL)
            rc = cf_cli_usage(c, "%s is for Parquet output", writer_opt != NULL ? writer_opt
                                                             : has_ts ? "--as-of" : "--name");
        else if (pa.nkeys && strcmp(to == NULL ? "" : to, "table") != 0)
            rc = cf_cli_usage(c, "--key is for --to table");
        else if ((pa.has_ts || pa.lock_ms != 10000) && strcmp(to == NULL ? "" : to, "table") != 0)
            rc = cf_cli_usage(c, "--ts and --lock-timeout are for --to table");
        if (rc == 0) {
            pa.to = to == NULL || strcmp(to, "cfile") == 0 ? CF_PQ_TO_CFILE
                    : strcmp(to, "cfiles") == 0          ? CF_PQ_TO_CFILES
                                                         : CF_PQ_TO_TABLE;
            pa.in = argv[optind];
            pa.out = out;
            pa.progress = a.progress;
            pa.quiet = a.quiet;
            pa.json = a.json;
            rc = cf_cli_convert_parquet(c, &pa);
        }
        pq_args_dispose(&a);
        free_list(pa.columns, pa.ncolumns);
        free_list(pa.keys, pa.nkeys);
        return rc;
    }
    if (reader_opt != NULL) {
        pq_args_dispose(&a);
        free_list(pa.columns, pa.ncolumns);
        free_list(pa.keys, pa.nkeys);
        return cf_cli_usage(c, "%s is for a Parquet IN", reader_opt);
    }
    struct stat sb;
    bool is_dir = stat(argv[optind], &sb) == 0 && S_ISDIR(sb.st_mode);
    if (is_dir) {
        if (nin != 1)
            rc = cf_cli_usage(c, "a table directory is converted alone");
        else if (name != NULL)
            rc = cf_cli_usage(c, "--name is for a single CFile");
        else
            rc = convert_table(c, argv[optind], has_ts, ts, out, &a);
    } else if (has_ts) {
        rc = cf_cli_usage(c, "--as-of is for a table directory");
    } else if (name != NULL && nin != 1) {
        rc = cf_cli_usage(c, "--name is for a single CFile");
    } else {
        rc = convert_cfiles(c, argv + optind, (size_t)nin, name, out, &a);
    }
    pq_args_dispose(&a);
    return rc;
}

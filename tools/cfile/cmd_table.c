/* `cfile table`: multi-column rowsets (include/cfile/rowset.h, docs/ROWSET.md). */
#include "cli.h"
#include "csv.h"
#include "out.h"
#include "svg.h"
#include "table_args.h"
#include "values.h"

#include <cfile/rowset.h>

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char cf_cmd_table_usage[] =
    "usage: cfile table create DIR --schema SCHEMA [--json] [--lock-timeout MS]\n"
    "       cfile table import DIR [--schema SCHEMA] [--ts TS] [--format csv|jsonl]\n"
    "                              [--json] [--lock-timeout MS] FILE\n"
    "       cfile table scan DIR [--json | --format text|csv|jsonl] [--columns a,b]\n"
    "                            [--where \"COL OP VALUE [AND ...]\"] [--as-of TS] [--stats]\n"
    "                            [--limit N] [--threads N|auto]\n"
    "       cfile table get DIR [--json | --format text|csv|jsonl] [--as-of TS] KEY...\n"
    "       cfile table insert DIR --row \"col=value[,col=value]\" [--ts TS] [--json]\n"
    "                              [--lock-timeout MS]\n"
    "       cfile table update DIR --key KEY --set \"col=value[,col=value]\" [--ts TS] [--json]\n"
    "                              [--lock-timeout MS]\n"
    "       cfile table delete DIR --key KEY [--ts TS] [--json] [--lock-timeout MS]\n"
    "       cfile table compact DIR [--ahm TS] [--json] [--lock-timeout MS]\n"
    "       cfile table flush DIR [--json] [--lock-timeout MS]\n"
    "       cfile table info DIR [--json] [--svg OUT.svg]\n"
    "\n"
    "A table is a directory of rowsets (docs/ROWSET.md): each has one CFile per column,\n"
    "a bloom filter and key index, REDO/UNDO delta files and a MANIFEST; new rows go to\n"
    "an in-memory MemRowSet. Every insert, update and delete is in the table's\n"
    "write-ahead log (DIR/wal/) and synced before the command reports it; the MemRowSet\n"
    "becomes a new rowset when it or the log grows large, on `flush`, and before\n"
    "`compact`.\n"
    "SCHEMA: \"id INT64 KEY, name STRING NULL, ts UNIXTIME_MICROS\" (also T[] arrays,\n"
    "  ENCODING e, COMPRESSION c, BLOCK_SIZE n per column).\n"
    "import: FILE ('-' for stdin) is CSV (RFC 4180, as `scan --format csv` prints it:\n"
    "  a header row naming the columns; an empty unquoted field is NULL, \"\" the empty\n"
    "  string; BINARY as hex, array cells as JSON arrays) or, for *.jsonl/*.json or\n"
    "  --format jsonl, one {\"column\": value} object per line (as `scan --json`\n"
    "  prints them); columns left out are NULL. All rows or none: they are written as\n"
    "  new rowsets (sorted in memory when not in key order) committed at one\n"
    "  timestamp TS (default: the next one) by one TABLET write. A key the table\n"
    "  holds, or a repeated one, is an error naming the line; so is a bad value, with\n"
    "  its column. A key the table holds as a deleted row is reinserted (as `insert`\n"
    "  does), in the same commit: older snapshots still see it deleted.\n"
    "scan/get: text (NULL as NULL; strings reading as NULL or starting with a quote\n"
    "  are quoted), csv (for import) or jsonl (--json): JSON Lines, one compact\n"
    "  {\"column\": value} object per row. Every other --json is one JSON document.\n"
    "OP: = != < <= > >= , IS NULL, IS NOT NULL.\n"
    "KEY: the key columns' values joined with commas, e.g. 7,\"x,y\",3 for a key\n"
    "  (INT64, STRING, INT32); the last value may hold commas unquoted.\n"
    "Quoting (KEY, --row, --set, --where values): \"...\" or '...' around a value\n"
    "  keeps its commas (and ' AND ') in it; inside, \\\" \\' and \\\\ stand for \" ' \\.\n"
    "Limits: a schema has 1..1024 columns, any number of them KEY; column names are\n"
    "  [A-Za-z_][A-Za-z0-9_]*, at most 128 bytes. Every command takes what create\n"
    "  accepts: --columns, --where, --row and --set have no limit of their own.\n"
    "info --svg OUT also draws the table as an SVG picture into OUT (created\n"
    "  atomically): every rowset as a bar over its key range (overlapping ranges in\n"
    "  separate lanes), with its column, bloom, key index and delta files stacked by\n"
    "  size under it; hover a shape for its keys, rows, deltas and sizes. OUT '-'\n"
    "  writes the picture to standard output and the report to standard error.\n"
    "--as-of TS shows the table with every change at timestamp <= TS.\n"
    "--limit N (scan) prints at most the first N matching rows.\n"
    "--threads N|auto (scan): threads that read the columns (default auto: one per\n"
    "  CPU, at most 64; 1 = this thread only). Output is the same for every N.\n"
    "--json on insert/update/delete prints {\"op\", \"rows\", \"ts\"}; on compact\n"
    "  {\"op\", \"table\", \"rows\", \"undo_deltas\", \"redo_deltas\", \"generation\"};\n"
    "  on create {\"op\", \"table\", \"schema\"}; on import {\"op\", \"table\", \"rows\"};\n"
    "  on flush {\"op\", \"table\", \"rows\" (MemRowSet rows flushed), \"rowsets\"}.\n"
    "An option a subcommand does not take is a usage error.\n"
    "One writer at a time: create, import, insert, update, delete and compact hold the\n"
    "table's lock (DIR/LOCK) and wait up to --lock-timeout MS (default 10000) for\n"
    "another writer, then fail (exit 1) naming it; scan, get and info take no lock.\n";

static int lib_fail(cf_cli *c, const char *what, cf_status st, const cf_error *e)
{
    return cf_cli_lib_fail(c, what, st, e);
}

/* Every CLI command is a process of its own that replays the log on open, so
 * the log is checkpointed sooner than the library's default: replay stays a few
 * milliseconds and per-command time stays flat (the flushes this adds are
 * merged by automatic compaction). */
#define CLI_WAL_MAX_BYTES ((uint64_t)128 << 10)

/* Writers (write = true) take the table's lock, waiting up to lock_ms; readers
 * open read-only and take none. */
static cf_status table_open_mode(cf_table **t, const char *dir, bool write, uint32_t lock_ms,
                                 cf_error *e)
{
    cf_table_options o;
    cf_table_options_init(&o);
    o.read_only = !write;
    o.lock_timeout_ms = lock_ms;
    o.wal_max_bytes = CLI_WAL_MAX_BYTES;
    return cf_table_open_opts(t, dir, &o, e);
}

/* Rows in the table's rowsets and MemRowSet (deleted ones included). */
static uint64_t table_rows(const cf_table *t)
{
    uint64_t n = cf_table_mrs_rows(t);
    for (size_t i = 0; i < cf_table_rowset_count(t); i++) {
        cf_rowset_info info;
        cf_rowset_get_info(cf_table_rowset(t, i, NULL), &info);
        n += info.rows;
    }
    return n;
}

/* ---- output ----------------------------------------------------------------------------------- */

/* Text of one cell for the table form: the JSON value form, strings unquoted
 * unless they could be mistaken for NULL (any case) or for a quoted string; NULL
 * itself as NULL. */
static void cell_text(FILE *mem, const cf_rs_column *col, const cf_batch *b, size_t i)
{
    bool present = b->nonnull == NULL || (b->nonnull[i >> 3] >> (i & 7)) & 1;
    if (!present) {
        fputs("NULL", mem);
        return;
    }
    if (!col->is_array && cf_type_is_binary(col->type) && col->type != CF_TYPE_BINARY) {
        const cf_slice *s = (const cf_slice *)b->values + i;
        bool nullish = s->len == 4 && strncasecmp((const char *)s->data, "null", 4) == 0;
        if (cf_utf8_valid(s->data, s->len) && !nullish && (s->len == 0 || s->data[0] != '"')) {
            fwrite(s->data, 1, s->len, mem);
            return;
        }
    }
    cf_jw w;
    cf_jw_init(&w, mem);
    cf_cli_row_write(&w, col->type, col->is_array, b, i);
}

typedef struct printer {
    cf_cli *c;
    const cf_rs_schema *s;
    const size_t *cols;
    size_t ncols;
    bool json;
    bool header_done;
    int *width;
    uint64_t rows;
    bool csv; /* --format csv: a header row, then RFC 4180 records (csv.h) */
} printer;

static void print_batch(printer *p, const cf_rs_batch *b)
{
    FILE *out = p->c->out;
    if (p->csv) {
        if (!p->header_done) {
            for (size_t j = 0; j < p->ncols; j++) {
                const char *nm = cf_rs_schema_column(p->s, p->cols[j])->name;
                if (j)
                    fputc(',', out);
                cf_out_csv_field(out, nm, strlen(nm));
            }
            fputc('\n', out);
            p->header_done = true;
        }
        for (size_t r = 0; r < b->count; r++) {
            for (size_t j = 0; j < p->ncols; j++) {
                const cf_rs_column *col = cf_rs_schema_column(p->s, p->cols[j]);
                if (j)
                    fputc(',', out);
                cf_csv_write_cell(out, col->type, col->is_array, &b->cols[j], r);
            }
            fputc('\n', out);
        }
        p->rows += b->count;
        return;
    }
    if (p->json) {
        cf_jw w;
        for (size_t r = 0; r < b->count; r++) {
            cf_jw_init(&w, out);
            cf_jw_obj_begin(&w);
            for (size_t j = 0; j < p->ncols; j++) {
                const cf_rs_column *col = cf_rs_schema_column(p->s, p->cols[j]);
                cf_jw_key(&w, col->name);
                cf_cli_row_write(&w, col->type, col->is_array, &b->cols[j], r);
            }
            cf_jw_obj_end(&w);
            cf_jw_newline(&w);
        }
        p->rows += b->count;
        return;
    }
    /* Cells of the batch as text; widths fixed by the header and the first batch. */
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    size_t n = b->count * p->ncols;
    size_t *off = calloc(n + 1, sizeof(*off));
    if (mem == NULL || off == NULL) {
        if (mem)
            fclose(mem);
        free(off);
        return;
    }
    for (size_t r = 0; r < b->count; r++)
        for (size_t j = 0; j < p->ncols; j++) {
            fflush(mem);
            off[r * p->ncols + j] = len;
            cell_text(mem, cf_rs_schema_column(p->s, p->cols[j]), &b->cols[j], r);
        }
    fflush(mem);
    off[n] = len;
    if (!p->header_done) {
        for (size_t j = 0; j < p->ncols; j++) {
            int w = (int)strlen(cf_rs_schema_column(p->s, p->cols[j])->name);
            for (size_t r = 0; r < b->count; r++) {
                size_t k = r * p->ncols + j;
                int cw = (int)(off[k + 1] - off[k]);
                if (cw > w)
                    w = cw > 60 ? 60 : cw;
            }
            p->width[j] = w;
        }
        for (size_t j = 0; j < p->ncols; j++)
            fprintf(out, "%s%-*s", j ? " | " : "", p->width[j],
                    cf_rs_schema_column(p->s, p->cols[j])->name);
        fputc('\n', out);
        for (size_t j = 0; j < p->ncols; j++) {
            fputs(j ? "-+-" : "", out);
            for (int k = 0; k < p->width[j]; k++)
                fputc('-', out);
        }
        fputc('\n', out);
        p->header_done = true;
    }
    for (size_t r = 0; r < b->count; r++) {
        for (size_t j = 0; j < p->ncols; j++) {
            size_t k = r * p->ncols + j;
            int cw = (int)(off[k + 1] - off[k]);
            fprintf(out, "%s%.*s%*s", j ? " | " : "", cw, buf + off[k],
                    p->width[j] > cw ? p->width[j] - cw : 0, "");
        }
        fputc('\n', out);
    }
    p->rows += b->count;
    fclose(mem);
    free(buf);
    free(off);
}

static void print_header_only(printer *p)
{
    if (p->json || p->header_done)
        return;
    if (p->csv) {
        cf_rs_batch none = {0, 0, NULL, NULL};
        print_batch(p, &none);
        return;
    }
    for (size_t j = 0; j < p->ncols; j++)
        fprintf(p->c->out, "%s%s", j ? " | " : "", cf_rs_schema_column(p->s, p->cols[j])->name);
    fputc('\n', p->c->out);
}

/* ---- options ------------------------------------------------------------------------------- */

enum {
    O_SCHEMA = 256, O_JSON, O_COLUMNS, O_WHERE, O_ASOF, O_KEY, O_SET, O_TS, O_AHM, O_STATS, O_ROW,
    O_LOCK_TIMEOUT, O_FORMAT, O_LIMIT, O_SVG, O_THREADS
};

static const struct option opts[] = {
    {"schema", required_argument, NULL, O_SCHEMA}, {"json", no_argument, NULL, O_JSON},
    {"columns", required_argument, NULL, O_COLUMNS}, {"where", required_argument, NULL, O_WHERE},
    {"as-of", required_argument, NULL, O_ASOF},    {"key", required_argument, NULL, O_KEY},
    {"set", required_argument, NULL, O_SET},       {"ts", required_argument, NULL, O_TS},
    {"ahm", required_argument, NULL, O_AHM},       {"stats", no_argument, NULL, O_STATS},
    {"row", required_argument, NULL, O_ROW},       {"lock-timeout", required_argument, NULL, O_LOCK_TIMEOUT},
    {"format", required_argument, NULL, O_FORMAT}, {"limit", required_argument, NULL, O_LIMIT},
    {"svg", required_argument, NULL, O_SVG},       {"threads", required_argument, NULL, O_THREADS},
    {"help", no_argument, NULL, 'h'},              {NULL, 0, NULL, 0}};

typedef struct targs {
    const char *schema, *columns, *where, *key, *set, *row, *format, *svg;
    bool json, stats, has_asof, has_ts;
    uint64_t asof, ts, ahm;
    uint64_t limit;   /* --limit: rows scan prints at most (default all) */
    size_t threads;   /* --threads: cf_rs_scan_options.threads (default auto) */
    uint32_t lock_ms; /* --lock-timeout, for writers */
    unsigned seen;    /* OPT_BIT of every option given */
    char **pos;
    int npos;
} targs;

static int open_table(cf_cli *c, const char *dir, const targs *t, bool write, cf_table **tb)
{
    cf_error e;
    cf_status st = table_open_mode(tb, dir, write, t->lock_ms, &e);
    return st == CF_OK ? 0 : lib_fail(c, dir, st, &e);
}

static int parse_args(cf_cli *c, int argc, char **argv, targs *t)
{
    memset(t, 0, sizeof(*t));
    t->lock_ms = 10000;
    t->limit = UINT64_MAX;
    t->threads = CF_RS_THREADS_AUTO;
    int ch;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (ch >= O_SCHEMA && ch - O_SCHEMA < 32)
            t->seen |= 1u << (ch - O_SCHEMA);
        switch (ch) {
        case O_SCHEMA: t->schema = optarg; break;
        case O_JSON: t->json = true; break;
        case O_SVG: t->svg = optarg; break;
        case O_STATS: t->stats = true; break;
        case O_COLUMNS: t->columns = optarg; break;
        case O_WHERE: t->where = optarg; break;
        case O_KEY: t->key = optarg; break;
        case O_SET: t->set = optarg; break;
        case O_ROW: t->row = optarg; break;
        case O_FORMAT: t->format = optarg; break;
        case O_ASOF:
            if (cf_cli_parse_u64(optarg, &t->asof) != 0)
                return cf_cli_usage(c, "--as-of: not a timestamp: %s", optarg);
            t->has_asof = true;
            break;
        case O_TS:
            if (cf_cli_parse_u64(optarg, &t->ts) != 0 || t->ts == 0)
                return cf_cli_usage(c, "--ts: not a timestamp: %s", optarg);
            if (t->ts > CF_RS_TS_MAX) /* the table reserves the values above */
                return cf_cli_usage(c, "--ts: %s is out of range: timestamps are 1..%" PRIu64,
                                    optarg, CF_RS_TS_MAX);
            t->has_ts = true;
            break;
        case O_LIMIT:
            if (cf_cli_parse_u64(optarg, &t->limit) != 0)
                return cf_cli_usage(c, "--limit: not a count: %s", optarg);
            break;
        case O_THREADS: {
            uint64_t n;
            if (strcmp(optarg, "auto") == 0)
                t->threads = CF_RS_THREADS_AUTO;
            else if (cf_cli_parse_u64(optarg, &n) != 0 || n < 1 || n > CF_RS_MAX_THREADS)
                return cf_cli_usage(c, "--threads: expected 1..%u or auto, got '%s'",
                                    CF_RS_MAX_THREADS, optarg);
            else
                t->threads = (size_t)n;
            break;
        }
        case O_AHM:
            if (cf_cli_parse_u64(optarg, &t->ahm) != 0)
                return cf_cli_usage(c, "--ahm: not a timestamp: %s", optarg);
            break;
        case O_LOCK_TIMEOUT: {
            uint64_t ms;
            if (cf_cli_parse_u64(optarg, &ms) != 0 || ms > UINT32_MAX)
                return cf_cli_usage(c, "--lock-timeout: not a number of milliseconds: %s",
                                    optarg);
            t->lock_ms = (uint32_t)ms;
            break;
        }
        case 'h': return -2;
        default: return cf_cli_bad_option(c, argv);
        }
    }
    t->pos = argv + optind;
    t->npos = argc - optind;
    return 0;
}

#define OPT_BIT(o) (1u << ((o) - O_SCHEMA))

/* What every writing subcommand also takes. */
#define WRITER OPT_BIT(O_LOCK_TIMEOUT)

/* Which options each subcommand takes: any other one is a usage error rather
 * than silently ignored (`insert --where` would otherwise look like it did
 * something it did not). Only the options listed in `opts` above are checked. */
static const struct {
    const char *sub;
    unsigned allowed;
} sub_opts[] = {
    {"create", OPT_BIT(O_SCHEMA) | OPT_BIT(O_JSON) | WRITER},
    {"import", OPT_BIT(O_SCHEMA) | OPT_BIT(O_TS) | OPT_BIT(O_FORMAT) | OPT_BIT(O_JSON) | WRITER},
    {"flush", OPT_BIT(O_JSON) | WRITER},
    {"scan",
     OPT_BIT(O_JSON) | OPT_BIT(O_COLUMNS) | OPT_BIT(O_WHERE) | OPT_BIT(O_ASOF) | OPT_BIT(O_STATS) |
         OPT_BIT(O_FORMAT) | OPT_BIT(O_LIMIT) | OPT_BIT(O_THREADS)},
    {"get", OPT_BIT(O_JSON) | OPT_BIT(O_ASOF) | OPT_BIT(O_FORMAT)},
    {"insert", OPT_BIT(O_JSON) | OPT_BIT(O_ROW) | OPT_BIT(O_TS) | WRITER},
    {"update", OPT_BIT(O_JSON) | OPT_BIT(O_KEY) | OPT_BIT(O_SET) | OPT_BIT(O_TS) | WRITER},
    {"delete", OPT_BIT(O_JSON) | OPT_BIT(O_KEY) | OPT_BIT(O_TS) | WRITER},
    {"compact", OPT_BIT(O_JSON) | OPT_BIT(O_AHM) | WRITER},
    {"info", OPT_BIT(O_JSON) | OPT_BIT(O_SVG)},
};

/* A usage error naming the first option given that `sub` does not take. */
static int check_sub_opts(cf_cli *c, const char *sub, const targs *t)
{
    unsigned known = 0;
    for (size_t i = 0; opts[i].name != NULL; i++)
        if (opts[i].val >= O_SCHEMA && opts[i].val - O_SCHEMA < 32)
            known |= OPT_BIT(opts[i].val);
    for (size_t i = 0; i < sizeof sub_opts / sizeof sub_opts[0]; i++) {
        if (strcmp(sub, sub_opts[i].sub) != 0)
            continue;
        unsigned bad = t->seen & known & ~sub_opts[i].allowed;
        for (size_t k = 0; bad != 0 && opts[k].name != NULL; k++)
            if (opts[k].val >= O_SCHEMA && (bad & OPT_BIT(opts[k].val)))
                return cf_cli_usage(c, "%s does not take --%s", sub, opts[k].name);
        return 0;
    }
    return 0; /* an unknown subcommand is reported by the caller */
}

/* ---- create / import --------------------------------------------------------------------------- */

static int cmd_create(cf_cli *c, const char *dir, targs *t)
{
    if (t->schema == NULL)
        return cf_cli_usage(c, "create needs --schema");
    cf_error e;
    cf_rs_schema *s;
    cf_status st = cf_rs_schema_parse(&s, t->schema, &e);
    if (st != CF_OK)
        return cf_cli_usage(c, "%s", e.msg);
    /* The writer checks under the table's lock that dir holds no table (an
     * empty one-rowset table may be replaced, as before). */
    cf_rs_writer_options wo;
    cf_rs_writer_options_init(&wo);
    wo.lock_timeout_ms = t->lock_ms;
    cf_rs_writer *w = NULL;
    st = cf_rs_writer_create(&w, dir, s, &wo, &e);
    if (st == CF_OK)
        st = cf_rs_writer_finish(w, &e);
    cf_rs_writer_free(w);
    if (st == CF_OK && t->json) {
        char *text = cf_cli_schema_text(s);
        cf_jw jw;
        cf_jw_init(&jw, c->out);
        cf_jw_obj_begin(&jw);
        cf_jw_key(&jw, "op");
        cf_jw_cstr(&jw, "create");
        cf_jw_key(&jw, "table");
        cf_jw_cstr(&jw, dir);
        cf_jw_key(&jw, "schema");
        if (text != NULL)
            cf_jw_cstr(&jw, text);
        else
            cf_jw_null(&jw);
        cf_jw_obj_end(&jw);
        cf_jw_newline(&jw);
        free(text);
    }
    cf_rs_schema_free(s);
    if (st != CF_OK)
        return lib_fail(c, dir, st, &e);
    return CF_EXIT_OK;
}

/* ---- scan / get ------------------------------------------------------------------------------- */

static int parse_columns(cf_cli *c, const cf_rs_schema *s, const char *spec, size_t **cols,
                         size_t *n)
{
    size_t nc = cf_rs_schema_ncols(s);
    if (spec == NULL) {
        *cols = calloc(nc, sizeof(**cols));
        for (size_t i = 0; i < nc; i++)
            (*cols)[i] = i;
        *n = nc;
        return 0;
    }
    char *copy = strdup(spec);
    *cols = calloc(strlen(spec) + 1, sizeof(**cols));
    *n = 0;
    char *save = NULL;
    for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*w))
            w++;
        char *e = w + strlen(w);
        while (e > w && isspace((unsigned char)e[-1]))
            *--e = '\0';
        int k = cf_rs_schema_find(s, w);
        if (k < 0) {
            /* w points into copy: say it before copy is freed. */
            int rc = cf_cli_usage(c, "--columns: no column '%s'", w);
            free(copy);
            return rc;
        }
        (*cols)[(*n)++] = (size_t)k;
    }
    free(copy);
    return *n ? 0 : cf_cli_usage(c, "--columns: empty");
}

/* --format text|csv|jsonl (--json = jsonl) for scan and get. */
static int output_format(cf_cli *c, const targs *t, printer *p)
{
    if (t->format == NULL)
        return 0;
    if (strcmp(t->format, "csv") == 0 && !t->json)
        p->csv = true;
    else if (strcmp(t->format, "jsonl") == 0)
        p->json = true;
    else if (strcmp(t->format, "text") != 0 || t->json)
        return cf_cli_usage(c, "--format: expected text, csv or jsonl, got '%s'%s", t->format,
                            t->json ? " (with --json)" : "");
    return 0;
}

static uint64_t snapshot_of(const targs *t)
{
    /* --as-of TS is inclusive; a snapshot at TS+1 sees every op with ts <= TS. */
    return t->has_asof && t->asof < UINT64_MAX - 1 ? t->asof + 1 : CF_RS_SNAPSHOT_LATEST;
}

static int cmd_scan(cf_cli *c, const char *dir, targs *t)
{
    cf_table *rs;
    int rc = open_table(c, dir, t, false, &rs);
    if (rc)
        return rc;
    const cf_rs_schema *s = cf_table_schema(rs);
    size_t *cols = NULL, ncols = 0, npreds = 0;
    cf_rs_pred *preds = NULL;
    cf_arena a;
    cf_arena_init(&a);
    cf_table_scanner *sc = NULL;
    int *width = NULL;
    if ((rc = parse_columns(c, s, t->columns, &cols, &ncols)) != 0 ||
        (rc = cf_cli_where_parse(c, s, t->where, &preds, &npreds, &a)) != 0)
        goto out;
    cf_rs_scan_options o;
    cf_rs_scan_options_init(&o);
    o.cols = cols;
    o.ncols = ncols;
    o.preds = preds;
    o.npreds = npreds;
    o.snapshot = snapshot_of(t);
    o.threads = t->threads;
    cf_error e;
    cf_status st = cf_table_scanner_create(&sc, rs, &o, &e);
    if (st != CF_OK) {
        rc = lib_fail(c, "scan", st, &e);
        goto out;
    }
    width = calloc(ncols, sizeof(*width));
    printer p = {c, s, cols, ncols, t->json, false, width, 0, false};
    if ((rc = output_format(c, t, &p)) != 0)
        goto out;
    for (uint64_t left = t->limit; left > 0;) {
        cf_rs_batch b;
        st = cf_table_scanner_next(sc, &b, &e);
        if (st != CF_OK) {
            rc = lib_fail(c, "scan", st, &e);
            goto out;
        }
        if (b.count == 0)
            break;
        if (b.count > left)
            b.count = (size_t)left; /* --limit: the first rows of the batch */
        left -= b.count;
        print_batch(&p, &b);
        if (ferror(c->out))
            break; /* stdout failed: cf_cli_main reports it; scanning on is wasted */
    }
    print_header_only(&p);
    if (t->stats) {
        const cf_rs_scan_stats *ss = cf_table_scanner_stats(sc);
        fprintf(c->err,
                "rows: %" PRIu64 " returned, %" PRIu64 " in key range, %" PRIu64
                " examined; %" PRIu64 " batches skipped; %" PRIu64 " blocks (%" PRIu64
                " rows) skipped by encoding%s\n",
                p.rows, ss->rows_in_range, ss->rows_examined, ss->batches_skipped,
                ss->blocks_skipped, ss->rows_skipped,
                ss->bloom_pruned ? "; bloom ruled the key out" : "");
    }
out:
    cf_table_scanner_free(sc);
    cf_table_free(rs);
    cf_arena_dispose(&a);
    free(cols);
    free(width);
    return rc;
}

static int cmd_get(cf_cli *c, const char *dir, targs *t)
{
    if (t->npos < 1)
        return cf_cli_usage(c, "get needs at least one KEY");
    cf_table *rs;
    int rc = open_table(c, dir, t, false, &rs);
    if (rc)
        return rc;
    const cf_rs_schema *s = cf_table_schema(rs);
    size_t *cols = NULL, ncols = 0;
    parse_columns(c, s, NULL, &cols, &ncols);
    int *width = calloc(ncols, sizeof(*width));
    printer p = {c, s, cols, ncols, t->json, false, width, 0, false};
    if ((rc = output_format(c, t, &p)) != 0) {
        free(cols);
        free(width);
        cf_table_free(rs);
        return rc;
    }
    cf_arena a;
    cf_arena_init(&a);
    bool missing = false;
    for (int i = 0; i < t->npos && rc == 0; i++) {
        const void **key;
        if ((rc = cf_cli_key_parse(c, s, t->pos[i], &key, &a)) != 0)
            break;
        cf_rs_batch b;
        cf_error e;
        cf_status st = cf_table_get(rs, key, snapshot_of(t), &b, &e);
        if (st == CF_ENOTFOUND) {
            fprintf(c->err, "cfile: key %s: not found\n", t->pos[i]);
            missing = true;
            continue;
        }
        if (st != CF_OK) {
            rc = lib_fail(c, t->pos[i], st, &e);
            break;
        }
        print_batch(&p, &b);
    }
    if (rc == 0 && missing)
        rc = CF_EXIT_FAIL;
    cf_arena_dispose(&a);
    free(cols);
    free(width);
    cf_table_free(rs);
    return rc;
}

/* ---- mutations -------------------------------------------------------------------------------- */

/* An automatic merge after a committed write failed: the write stands (exit
 * 0), but say so on stderr, since the rowsets it should have merged remain and
 * the next flush retries. */
static void warn_compaction(cf_cli *c, const cf_table *tb)
{
    cf_error e;
    if (cf_table_compaction_status(tb, &e) != CF_OK)
        fprintf(c->err, "cfile: warning: %s (the write itself is committed)\n", e.msg);
}

/* Flush, then say what was done: "<what> 1 row at ts N", or with --json
 * {"op": "insert"|"update"|"delete", "rows": 1, "ts": N}. */
static int finish_mutation(cf_cli *c, cf_table *rs, const char *op, const char *what,
                           uint64_t ts, bool json)
{
    /* The op is in the write-ahead log (synced): no flush per command. */
    cf_error e;
    cf_status st = cf_table_sync(rs, &e);
    if (st != CF_OK)
        return lib_fail(c, "sync", st, &e);
    warn_compaction(c, rs);
    if (json) {
        cf_jw w;
        cf_jw_init(&w, c->out);
        cf_jw_obj_begin(&w);
        cf_jw_key(&w, "op");
        cf_jw_cstr(&w, op);
        cf_jw_key(&w, "rows");
        cf_jw_uint(&w, 1);
        cf_jw_key(&w, "ts");
        cf_jw_uint(&w, ts);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else {
        fprintf(c->out, "%s 1 row at ts %" PRIu64 "\n", what, ts);
    }
    return CF_EXIT_OK;
}

static int cmd_insert(cf_cli *c, const char *dir, targs *t)
{
    if (t->row == NULL)
        return cf_cli_usage(c, "insert needs --row");
    cf_table *tb;
    int rc = open_table(c, dir, t, true, &tb);
    if (rc)
        return rc;
    const cf_rs_schema *s = cf_table_schema(tb);
    cf_arena a;
    cf_arena_init(&a);
    cf_rs_change *ch = NULL;
    const void *vals[CF_RS_MAX_COLUMNS] = {0};
    bool set[CF_RS_MAX_COLUMNS] = {0};
    size_t nch = 0;
    uint64_t ts = t->has_ts ? t->ts : cf_table_last_ts(tb) + 1;
    if ((rc = cf_cli_assign_parse(c, s, "--row", t->row, &ch, &nch, &a)) != 0)
        goto out;
    for (size_t i = 0; i < nch; i++) {
        if (set[ch[i].col]) {
            rc = cf_cli_usage(c, "--row: column '%s' given twice",
                              cf_rs_schema_column(s, ch[i].col)->name);
            goto out;
        }
        set[ch[i].col] = true;
        vals[ch[i].col] = ch[i].value;
    }
    for (size_t i = 0; i < cf_rs_schema_ncols(s); i++) {
        const cf_rs_column *cd = cf_rs_schema_column(s, i);
        if (!set[i] && !cd->nullable) {
            rc = cf_cli_usage(c, "--row: no value for column '%s'", cd->name);
            goto out;
        }
    }
    cf_error e;
    cf_status st = cf_table_insert(tb, vals, ts, &e);
    if (st != CF_OK) {
        rc = lib_fail(c, dir, st, &e);
        goto out;
    }
    rc = finish_mutation(c, tb, "insert", "inserted", ts, t->json);
out:
    cf_arena_dispose(&a);
    cf_table_free(tb);
    return rc;
}

static int cmd_update(cf_cli *c, const char *dir, targs *t, bool del)
{
    if (t->key == NULL)
        return cf_cli_usage(c, "%s needs --key", del ? "delete" : "update");
    if (!del && t->set == NULL)
        return cf_cli_usage(c, "update needs --set");
    cf_table *rs;
    int rc = open_table(c, dir, t, true, &rs);
    if (rc)
        return rc;
    const cf_rs_schema *s = cf_table_schema(rs);
    cf_arena a;
    cf_arena_init(&a);
    const void **key;
    cf_rs_change *ch = NULL;
    size_t nch = 0;
    uint64_t ts = t->has_ts ? t->ts : cf_table_last_ts(rs) + 1;
    cf_error e;
    cf_status st;
    if ((rc = cf_cli_key_parse(c, s, t->key, &key, &a)) != 0)
        goto out;
    if (del) {
        st = cf_table_delete(rs, key, ts, &e);
    } else {
        if ((rc = cf_cli_assign_parse(c, s, "--set", t->set, &ch, &nch, &a)) != 0)
            goto out;
        st = cf_table_update(rs, key, ch, nch, ts, &e);
    }
    if (st != CF_OK) {
        rc = lib_fail(c, t->key, st, &e);
        goto out;
    }
    rc = finish_mutation(c, rs, del ? "delete" : "update", del ? "deleted" : "updated", ts,
                         t->json);
out:
    cf_arena_dispose(&a);
    cf_table_free(rs);
    return rc;
}

static int cmd_flush(cf_cli *c, const char *dir, const targs *t)
{
    cf_table *tb;
    int rc = open_table(c, dir, t, true, &tb);
    if (rc)
        return rc;
    cf_error e;
    size_t rows = cf_table_mrs_rows(tb);
    cf_status st = cf_table_flush(tb, &e);
    if (st != CF_OK)
        rc = lib_fail(c, "flush", st, &e);
    else if (t->json) {
        cf_jw w;
        cf_jw_init(&w, c->out);
        cf_jw_obj_begin(&w);
        cf_jw_key(&w, "op");
        cf_jw_cstr(&w, "flush");
        cf_jw_key(&w, "table");
        cf_jw_cstr(&w, dir);
        cf_jw_key(&w, "rows");
        cf_jw_uint(&w, rows);
        cf_jw_key(&w, "rowsets");
        cf_jw_uint(&w, cf_table_rowset_count(tb));
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
        warn_compaction(c, tb);
    } else {
        fprintf(c->out, "flushed %s: %zu MemRowSet rows, %zu rowsets\n", dir, rows,
                cf_table_rowset_count(tb));
        warn_compaction(c, tb);
    }
    cf_table_free(tb);
    return rc;
}

static int cmd_compact(cf_cli *c, const char *dir, targs *t)
{
    cf_table *tb;
    int rc = open_table(c, dir, t, true, &tb);
    if (rc)
        return rc;
    cf_error e;
    cf_status st = cf_table_compact(tb, t->ahm, &e);
    if (st == CF_OK) /* its delta counts: the output's files are opened at first use */
        st = cf_rowset_load(cf_table_rowset(tb, 0, NULL), &e);
    if (st != CF_OK)
        rc = lib_fail(c, "compact", st, &e);
    else {
        cf_rowset_info info;
        cf_rowset_get_info(cf_table_rowset(tb, 0, NULL), &info);
        if (t->json) {
            cf_jw w;
            cf_jw_init(&w, c->out);
            cf_jw_obj_begin(&w);
            cf_jw_key(&w, "op");
            cf_jw_cstr(&w, "compact");
            cf_jw_key(&w, "table");
            cf_jw_cstr(&w, dir);
            cf_jw_key(&w, "rows");
            cf_jw_uint(&w, info.rows);
            cf_jw_key(&w, "undo_deltas");
            cf_jw_uint(&w, info.undo_deltas);
            cf_jw_key(&w, "redo_deltas");
            cf_jw_uint(&w, info.redo_deltas);
            cf_jw_key(&w, "generation");
            cf_jw_uint(&w, info.generation);
            cf_jw_obj_end(&w);
            cf_jw_newline(&w);
        } else {
            fprintf(c->out,
                    "compacted %s: %" PRIu64 " rows, %" PRIu64 " undo and %" PRIu64
                    " redo deltas, generation %" PRIu64 "\n",
                    dir, info.rows, info.undo_deltas, info.redo_deltas, info.generation);
        }
    }
    cf_table_free(tb);
    return rc;
}

/* ---- info ------------------------------------------------------------------------------------- */

static void hex(FILE *f, cf_slice s)
{
    for (size_t i = 0; i < s.len; i++)
        fprintf(f, "%02x", s.data[i]);
}

/* dir/name, or name alone when dir is "." or NULL; malloc'd (NULL when out of memory). */
static char *path_join(const char *dir, const char *name)
{
    bool bare = dir == NULL || strcmp(dir, ".") == 0;
    size_t n = (bare ? 0 : strlen(dir) + 1) + strlen(name) + 1;
    char *p = malloc(n);
    if (p != NULL)
        snprintf(p, n, "%s%s%s", bare ? "" : dir, bare ? "" : "/", name);
    return p;
}

static void info_rowset_json(cf_jw *w, cf_rowset *rs, const char *rsname)
{
    cf_rowset_info info;
    cf_rowset_get_info(rs, &info);
    const char *name, *role;
    cf_jw_key(w, "rows");
    cf_jw_uint(w, info.rows);
    cf_jw_key(w, "generation");
    cf_jw_uint(w, info.generation);
    cf_jw_key(w, "insert_ts");
    cf_jw_uint(w, info.insert_ts);
    cf_jw_key(w, "last_ts");
    cf_jw_uint(w, info.last_ts);
    cf_jw_key(w, "min_key");
    cf_jw_hex(w, info.min_key.data, info.min_key.len);
    cf_jw_key(w, "max_key");
    cf_jw_hex(w, info.max_key.data, info.max_key.len);
    cf_jw_key(w, "redo_deltas");
    cf_jw_uint(w, info.redo_deltas);
    cf_jw_key(w, "undo_deltas");
    cf_jw_uint(w, info.undo_deltas);
    cf_jw_key(w, "files");
    cf_jw_arr_begin(w);
    for (size_t i = 0; cf_rowset_file(rs, i, &name, &role); i++) {
        char *rel = path_join(rsname, name);
        cf_jw_obj_begin(w);
        cf_jw_key(w, "name");
        cf_jw_cstr(w, rel ? rel : name);
        cf_jw_key(w, "role");
        cf_jw_cstr(w, role);
        cf_jw_obj_end(w);
        free(rel);
    }
    cf_jw_arr_end(w);
}

static void info_rowset_text(FILE *o, const char *dir, cf_rowset *rs, const char *rsname,
                             const char *ind)
{
    cf_rowset_info info;
    cf_rowset_get_info(rs, &info);
    const char *name, *role;
    fprintf(o, "%srows:        %" PRIu64 "\n%sgeneration:  %" PRIu64 "\n%sinsert ts:   %" PRIu64
               "\n%slast ts:     %" PRIu64 "\n",
            ind, info.rows, ind, info.generation, ind, info.insert_ts, ind, info.last_ts);
    fprintf(o, "%smin key:     ", ind);
    hex(o, info.min_key);
    fprintf(o, "\n%smax key:     ", ind);
    hex(o, info.max_key);
    fprintf(o, "\n%sdeltas:      %" PRIu64 " redo in %zu files, %" PRIu64 " undo in %zu files\n",
            ind, info.redo_deltas, info.redo_files, info.undo_deltas, info.undo_files);
    if (info.dms_deltas > 0)
        fprintf(o, "%s             %" PRIu64 " more in the log, not yet flushed\n", ind,
                info.dms_deltas);
    fprintf(o, "%sfiles:\n", ind);
    for (size_t i = 0; cf_rowset_file(rs, i, &name, &role); i++) {
        struct stat sb;
        char *rel = path_join(rsname, name);
        char *path = rel ? path_join(dir, rel) : NULL;
        long long sz = path && stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
        fprintf(o, "%s  %-7s %-24s %12lld bytes\n", ind, role, rel ? rel : name, sz);
        free(rel);
        free(path);
    }
}

/* One rowset: the rowset's fields at the top level (the one-rowset layout's
 * form). Several: the table's totals, then each rowset. */
static int cmd_info(cf_cli *c, const char *dir, targs *t)
{
    cf_table *tb;
    int rc = open_table(c, dir, t, false, &tb);
    if (rc)
        return rc;
    const cf_rs_schema *s = cf_table_schema(tb);
    size_t nrs = cf_table_rowset_count(tb);
    /* The delta counts come from the delta files' footers, and a reader opens
     * a rowset's files at first use: open them all (this also checks them). */
    for (size_t i = 0; i < nrs; i++) {
        cf_error e;
        cf_status st = cf_rowset_load(cf_table_rowset(tb, i, NULL), &e);
        if (st != CF_OK) {
            cf_table_free(tb);
            return lib_fail(c, "info", st, &e);
        }
    }
    const char *rsname;
    char *schema = cf_cli_schema_text(s);
    if (schema == NULL) {
        cf_table_free(tb);
        return cf_cli_fail(c, "out of memory");
    }
    /* With the picture on stdout (--svg -), the report goes with the diagnostics,
     * as `cfile write`'s summary does when its OUT is '-'. */
    FILE *o = t->svg != NULL && strcmp(t->svg, "-") == 0 ? c->err : c->out;
    if (t->json) {
        cf_jw w;
        cf_jw_init(&w, o);
        cf_jw_obj_begin(&w);
        cf_jw_key(&w, "schema");
        cf_jw_cstr(&w, schema);
        cf_jw_key(&w, "columns");
        cf_jw_arr_begin(&w);
        for (size_t i = 0; i < cf_rs_schema_ncols(s); i++) {
            const cf_rs_column *cd = cf_rs_schema_column(s, i);
            cf_jw_obj_begin(&w);
            cf_jw_key(&w, "id");
            cf_jw_uint(&w, i);
            cf_jw_key(&w, "name");
            cf_jw_cstr(&w, cd->name);
            cf_jw_key(&w, "type");
            cf_jw_cstr(&w, cf_cli_type_name(cd->type));
            cf_jw_key(&w, "key");
            cf_jw_bool(&w, cd->is_key);
            cf_jw_key(&w, "nullable");
            cf_jw_bool(&w, cd->nullable);
            cf_jw_key(&w, "array");
            cf_jw_bool(&w, cd->is_array);
            cf_jw_obj_end(&w);
        }
        cf_jw_arr_end(&w);
        cf_jw_key(&w, "ahm"); /* the ancient history mark: 0 = all history kept */
        cf_jw_uint(&w, cf_table_ahm(tb));
        if (nrs == 1) {
            cf_rowset *rs = cf_table_rowset(tb, 0, &rsname);
            info_rowset_json(&w, rs, rsname);
        } else {
            cf_jw_key(&w, "rows");
            cf_jw_uint(&w, table_rows(tb));
            cf_jw_key(&w, "last_ts");
            cf_jw_uint(&w, cf_table_last_ts(tb));
            cf_jw_key(&w, "rowsets");
            cf_jw_arr_begin(&w);
            for (size_t i = 0; i < nrs; i++) {
                cf_rowset *rs = cf_table_rowset(tb, i, &rsname);
                cf_jw_obj_begin(&w);
                cf_jw_key(&w, "name");
                cf_jw_cstr(&w, rsname);
                info_rowset_json(&w, rs, rsname);
                cf_jw_obj_end(&w);
            }
            cf_jw_arr_end(&w);
        }
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else {
        fprintf(o, "table:       %s\nschema:      %s\n", dir, schema);
        if (nrs == 1) {
            cf_rowset *rs = cf_table_rowset(tb, 0, &rsname);
            info_rowset_text(o, dir, rs, rsname, "");
        } else {
            fprintf(o, "rows:        %" PRIu64 "\nlast ts:     %" PRIu64 "\nrowsets:     %zu\n",
                    table_rows(tb), cf_table_last_ts(tb), nrs);
            for (size_t i = 0; i < nrs; i++) {
                cf_rowset *rs = cf_table_rowset(tb, i, &rsname);
                fprintf(o, "rowset %s:\n", rsname);
                info_rowset_text(o, dir, rs, rsname, "  ");
            }
        }
        if (cf_table_mrs_rows(tb) > 0)
            fprintf(o, "memrowset:   %zu rows (in the log, not yet flushed)\n",
                    cf_table_mrs_rows(tb));
        if (cf_table_ahm(tb) > 0)
            fprintf(o,
                    "ahm:         %" PRIu64 " (history before it was discarded: reads --as-of "
                    "below it are refused)\n",
                    cf_table_ahm(tb));
    }
    free(schema);
    int rc2 = CF_EXIT_OK;
    if (t->svg != NULL) {
        cf_error e = {0};
        cf_status st = cf_svg_table(t->svg, c->out, dir, tb, &e);
        if (st != CF_OK)
            rc2 = lib_fail(c, t->svg, st, &e);
    }
    cf_table_free(tb);
    return rc2;
}

int cf_cmd_table(cf_cli *c, int argc, char **argv)
{
    if (argc < 2)
        return cf_cli_usage(c, "missing subcommand");
    const char *sub = argv[1];
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0)
        return cf_cli_help(c);
    targs t;
    int rc = parse_args(c, argc - 1, argv + 1, &t);
    if (rc == -2)
        return cf_cli_help(c);
    if (rc != 0)
        return rc;
    if ((rc = check_sub_opts(c, sub, &t)) != 0)
        return rc;
    if (t.npos < 1)
        return cf_cli_usage(c, "%s: missing DIR", sub);
    const char *dir = t.pos[0];
    t.pos++;
    t.npos--;
    if (strcmp(sub, "create") == 0)
        return cmd_create(c, dir, &t);
    if (strcmp(sub, "import") == 0) {
        if (t.npos != 1)
            return cf_cli_usage(c, "import needs one input file (CSV or JSON lines; - for stdin)");
        return cf_cmd_table_import(c, dir, t.pos[0], t.schema, t.format, t.has_ts, t.ts,
                                   t.lock_ms, t.json);
    }
    if (strcmp(sub, "scan") == 0)
        return cmd_scan(c, dir, &t);
    if (strcmp(sub, "get") == 0)
        return cmd_get(c, dir, &t);
    if (strcmp(sub, "insert") == 0)
        return cmd_insert(c, dir, &t);
    if (strcmp(sub, "update") == 0)
        return cmd_update(c, dir, &t, false);
    if (strcmp(sub, "delete") == 0)
        return cmd_update(c, dir, &t, true);
    if (strcmp(sub, "compact") == 0)
        return cmd_compact(c, dir, &t);
    if (strcmp(sub, "info") == 0)
        return cmd_info(c, dir, &t);
    if (strcmp(sub, "flush") == 0)
        return cmd_flush(c, dir, &t);
    return cf_cli_usage(c, "unknown subcommand '%s'", sub);
}

/* `cfile table`: multi-column rowsets (include/cfile/rowset.h, docs/ROWSET.md). */
#include "cli.h"
#include "csv.h"
#include "out.h"
#include "svg.h"
#include "table_args.h"
#include "table_cmd.h"
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
    "                              [--memory-budget SIZE] [--threads N|auto] [--json]\n"
    "                              [--lock-timeout MS] FILE\n"
    "       cfile table scan DIR [--json | --format text|csv|jsonl] [--columns a,b]\n"
    "                            [--where \"COL OP VALUE [AND ...]\"] [--as-of TS] [--stats]\n"
    "                            [--limit N] [--threads N|auto] [--raw-values] [--mmap]\n"
    "       cfile table get DIR [--json | --format text|csv|jsonl] [--as-of TS]\n"
    "                           --key KEY [--key KEY]... [--raw-values] [--mmap]\n"
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
    "Column names: any Kudu takes (1..256 bytes of UTF-8). One that is not a plain\n"
    "  identifier [A-Za-z_][A-Za-z0-9_]* is written in backquotes, `` for a backquote\n"
    "  inside, in SCHEMA, --columns, --where, --row and --set alike:\n"
    "  --schema \"`my-col` INT64 KEY, `a b` STRING NULL\" --where \"`my-col` >= 3\"\n"
    "  --set \"`a b`=x\"; info prints the schema so. (--columns also takes a name\n"
    "  without commas as written.) CSV headers and JSON keys hold names as they are.\n"
    "import: FILE ('-' for stdin) is CSV (RFC 4180, as `scan --format csv` prints it:\n"
    "  a header row naming the columns; an empty unquoted field is NULL, \"\" the empty\n"
    "  string; BINARY as hex, array cells as JSON arrays) or, for *.jsonl/*.json or\n"
    "  --format jsonl, one {\"column\": value} object per line (as `scan --json`\n"
    "  prints them); columns left out are NULL. All rows or none: they are written as\n"
    "  new rowsets committed at one timestamp TS (default: the next one) by one\n"
    "  TABLET write. Rows not in key order are sorted in runs of --memory-budget\n"
    "  SIZE (default 256M; K, M, G suffixes), spilled to temporary files in DIR\n"
    "  when they need more, and merged into one rowset. A key the table\n"
    "  holds, or a repeated one, is an error naming the line; so is a bad value, with\n"
    "  its column. A key the table holds as a deleted row is reinserted (as `insert`\n"
    "  does), in the same commit: older snapshots still see it deleted.\n"
    "scan/get: text (NULL as NULL; strings reading as NULL or starting with a quote\n"
    "  are quoted), csv (for import) or jsonl (--json): JSON Lines, one compact\n"
    "  {\"column\": value} object per row. Every other --json is one JSON document.\n"
    "Values as people write them (import, KEY, --key, --row, --set, --where): DATE\n"
    "  as 2024-01-02 or days since 1970-01-01; UNIXTIME_MICROS as\n"
    "  2024-01-02T03:04:05.000006Z ('T' or a space; a fraction of up to 6 digits,\n"
    "  more only if 0; zone Z, +hh:mm, -hh:mm, +hh, +hhmm, +hh:mm:ss or none =\n"
    "  UTC) or microseconds since the epoch; DECIMAL(p,s) as 12.34 (at most s\n"
    "  digits after the point, never rounded; at most p digits) or, without a\n"
    "  point, the unscaled integer (1234).\n"
    "  Text and csv output print DATE, UNIXTIME_MICROS and DECIMAL so (years\n"
    "  0000..9999; others as integers); --raw-values (scan, get) prints the\n"
    "  integers instead, as --json always does. FLOAT/DOUBLE text must survive:\n"
    "  too large, not 0 but read as 0 (1e-50 in a FLOAT), or read as a subnormal\n"
    "  other than by its shortest text (3e-324, stored as 5e-324) is an error.\n"
    "OP: = != < <= > >= , IS NULL, IS NOT NULL.\n"
    "KEY: the key columns' values joined with commas, e.g. 7,\"x,y\",3 for a key\n"
    "  (INT64, STRING, INT32); the last value may hold commas unquoted. --key KEY\n"
    "  names a row everywhere (get: repeat it for several rows, printed in that\n"
    "  order). The older spelling, keys as arguments after DIR (get DIR KEY...,\n"
    "  delete DIR KEY), is still taken, but not mixed with --key; a key starting\n"
    "  with '-' needs --key.\n"
    "Quoting (KEY, --row, --set, --where values): \"...\" or '...' around a value\n"
    "  keeps its commas (and ' AND ') in it; inside, \\\" \\' and \\\\ stand for \" ' \\.\n"
    "Limits: a schema has 1..1024 columns, any number of them KEY; column names are\n"
    "  at most 256 bytes. Every command takes what create accepts: --columns,\n"
    "  --where, --row and --set have no limit of their own.\n"
    "info --svg OUT also draws the table as an SVG picture into OUT (created\n"
    "  atomically): every rowset as a bar over its key range (overlapping ranges in\n"
    "  separate lanes), with its column, bloom, key index and delta files stacked by\n"
    "  size under it; hover a shape for its keys, rows, deltas and sizes. OUT '-'\n"
    "  writes the picture to standard output and the report to standard error.\n"
    "--as-of TS shows the table with every change at timestamp <= TS.\n"
    "--limit N (scan) prints at most the first N matching rows.\n"
    "--threads N|auto (scan): threads that read the columns (default auto: one per\n"
    "  CPU, at most 64; 1 = this thread only). Output is the same for every N.\n"
    "  (import): threads that parse CSV or JSON lines, from a file or a pipe (auto:\n"
    "  one per CPU, at most 16); the table, messages and exit code are the same\n"
    "  for every N.\n"
    "--mmap (scan, get): read the rowsets' files through mmap instead of pread (the\n"
    "  default). Less CPU on a warm page cache, and the process's RSS then counts\n"
    "  every page it reads; but a file truncated underneath or a disk error kills\n"
    "  the process (SIGBUS) where pread reports an error (exit 1).\n"
    "--json on insert/update/delete prints {\"op\", \"rows\", \"ts\"}; on compact\n"
    "  {\"op\", \"table\", \"rows\", \"undo_deltas\", \"redo_deltas\", \"generation\"};\n"
    "  on create {\"op\", \"table\", \"schema\"}; on import {\"op\", \"table\", \"rows\"};\n"
    "  on flush {\"op\", \"table\", \"rows\" (MemRowSet rows flushed), \"rowsets\"}.\n"
    "An option a subcommand does not take is a usage error.\n"
    "One writer at a time: create, import, insert, update, delete and compact hold the\n"
    "table's lock (DIR/LOCK) and wait up to --lock-timeout MS (default 10000) for\n"
    "another writer, then fail (exit 1) naming it; scan, get and info take no lock.\n";

/* Every CLI command is a process of its own that replays the log on open, so
 * the log is checkpointed sooner than the library's default: replay stays a few
 * milliseconds and per-command time stays flat (the flushes this adds are
 * merged by automatic compaction). */
#define CLI_WAL_MAX_BYTES ((uint64_t)128 << 10)

/* Writers (write = true) take the table's lock, waiting up to lock_ms; readers
 * open read-only and take none. */
static cf_status table_open_mode(cf_table **t, const char *dir, bool write, uint32_t lock_ms,
                                 bool mmap, cf_error *e)
{
    cf_table_options o;
    cf_table_options_init(&o);
    o.read_only = !write;
    o.lock_timeout_ms = lock_ms;
    o.mmap = mmap;
    o.wal_max_bytes = CLI_WAL_MAX_BYTES;
    return cf_table_open(t, dir, &o, e);
}

/* ---- options ------------------------------------------------------------------------------- */

enum {
    O_SCHEMA = 256,
    O_JSON,
    O_COLUMNS,
    O_WHERE,
    O_ASOF,
    O_KEY,
    O_SET,
    O_TS,
    O_AHM,
    O_STATS,
    O_ROW,
    O_LOCK_TIMEOUT,
    O_FORMAT,
    O_LIMIT,
    O_SVG,
    O_THREADS,
    O_RAW_VALUES,
    O_MEMORY,
    O_MMAP
};

static const struct option opts[] = {{"schema", required_argument, NULL, O_SCHEMA},
                                     {"json", no_argument, NULL, O_JSON},
                                     {"columns", required_argument, NULL, O_COLUMNS},
                                     {"where", required_argument, NULL, O_WHERE},
                                     {"as-of", required_argument, NULL, O_ASOF},
                                     {"key", required_argument, NULL, O_KEY},
                                     {"set", required_argument, NULL, O_SET},
                                     {"ts", required_argument, NULL, O_TS},
                                     {"ahm", required_argument, NULL, O_AHM},
                                     {"stats", no_argument, NULL, O_STATS},
                                     {"row", required_argument, NULL, O_ROW},
                                     {"lock-timeout", required_argument, NULL, O_LOCK_TIMEOUT},
                                     {"format", required_argument, NULL, O_FORMAT},
                                     {"limit", required_argument, NULL, O_LIMIT},
                                     {"svg", required_argument, NULL, O_SVG},
                                     {"threads", required_argument, NULL, O_THREADS},
                                     {"raw-values", no_argument, NULL, O_RAW_VALUES},
                                     {"memory-budget", required_argument, NULL, O_MEMORY},
                                     {"mmap", no_argument, NULL, O_MMAP},
                                     {"help", no_argument, NULL, 'h'},
                                     {NULL, 0, NULL, 0}};

int cf_cli_table_open(cf_cli *c, const char *dir, const cf_table_args *t, bool write, cf_table **tb)
{
    cf_error e;
    cf_status st = table_open_mode(tb, dir, write, t->lock_ms, t->mmap, &e);
    return st == CF_OK ? 0 : cf_cli_lib_fail(c, dir, st, &e);
}

static int parse_args(cf_cli *c, int argc, char **argv, cf_table_args *t)
{
    memset(t, 0, sizeof(*t));
    t->keys = malloc((size_t)argc * sizeof(*t->keys)); /* more than --key can fill */
    if (t->keys == NULL)
        return cf_cli_fail(c, "out of memory");
    t->lock_ms = 10000;
    t->limit = UINT64_MAX;
    t->threads = CF_SCAN_THREADS_AUTO;
    int ch;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (ch >= O_SCHEMA && ch - O_SCHEMA < 32)
            t->seen |= 1u << (ch - O_SCHEMA);
        switch (ch) {
        case O_SCHEMA: t->schema = optarg; break;
        case O_JSON: t->json = true; break;
        case O_SVG: t->svg = optarg; break;
        case O_STATS: t->stats = true; break;
        case O_RAW_VALUES: t->raw_values = true; break;
        case O_MMAP: t->mmap = true; break;
        case O_COLUMNS: t->columns = optarg; break;
        case O_WHERE: t->where = optarg; break;
        case O_KEY: t->keys[t->nkeys++] = optarg; break;
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
            if (t->ts > CF_TS_MAX) /* the table reserves the values above */
                return cf_cli_usage(c, "--ts: %s is out of range: timestamps are 1..%" PRIu64,
                                    optarg, CF_TS_MAX);
            t->has_ts = true;
            break;
        case O_LIMIT:
            if (cf_cli_parse_u64(optarg, &t->limit) != 0)
                return cf_cli_usage(c, "--limit: not a count: %s", optarg);
            break;
        case O_THREADS: {
            uint64_t n;
            if (strcmp(optarg, "auto") == 0)
                t->threads = CF_SCAN_THREADS_AUTO;
            else if (cf_cli_parse_u64(optarg, &n) != 0 || n < 1 || n > CF_SCAN_MAX_THREADS)
                return cf_cli_usage(c, "--threads: expected 1..%u or auto, got '%s'",
                                    CF_SCAN_MAX_THREADS, optarg);
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
                return cf_cli_usage(c, "--lock-timeout: not a number of milliseconds: %s", optarg);
            t->lock_ms = (uint32_t)ms;
            break;
        }
        case O_MEMORY:
            if (cf_cli_parse_memory(optarg, &t->memory) != 0)
                return cf_cli_usage(
                    c, "--memory-budget: expected a size of at least 64K (K, M, G), got '%s'",
                    optarg);
            break;
        case 'h': return -2;
        default: return cf_cli_bad_option(c, argv);
        }
    }
    t->pos = argv + optind;
    t->npos = argc - optind;
    return 0;
}

#define OPT_BIT(o) (1u << ((o)-O_SCHEMA))

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
    {"import", OPT_BIT(O_SCHEMA) | OPT_BIT(O_TS) | OPT_BIT(O_FORMAT) | OPT_BIT(O_JSON) |
                   OPT_BIT(O_MEMORY) | OPT_BIT(O_THREADS) | WRITER},
    {"flush", OPT_BIT(O_JSON) | WRITER},
    {"scan", OPT_BIT(O_JSON) | OPT_BIT(O_COLUMNS) | OPT_BIT(O_WHERE) | OPT_BIT(O_ASOF) |
                 OPT_BIT(O_STATS) | OPT_BIT(O_FORMAT) | OPT_BIT(O_LIMIT) | OPT_BIT(O_THREADS) |
                 OPT_BIT(O_RAW_VALUES) | OPT_BIT(O_MMAP)},
    {"get", OPT_BIT(O_JSON) | OPT_BIT(O_ASOF) | OPT_BIT(O_FORMAT) | OPT_BIT(O_KEY) |
                OPT_BIT(O_RAW_VALUES) | OPT_BIT(O_MMAP)},
    {"insert", OPT_BIT(O_JSON) | OPT_BIT(O_ROW) | OPT_BIT(O_TS) | WRITER},
    {"update", OPT_BIT(O_JSON) | OPT_BIT(O_KEY) | OPT_BIT(O_SET) | OPT_BIT(O_TS) | WRITER},
    {"delete", OPT_BIT(O_JSON) | OPT_BIT(O_KEY) | OPT_BIT(O_TS) | WRITER},
    {"compact", OPT_BIT(O_JSON) | OPT_BIT(O_AHM) | WRITER},
    {"info", OPT_BIT(O_JSON) | OPT_BIT(O_SVG)},
};

/* A usage error naming the first option given that `sub` does not take. */
static int check_sub_opts(cf_cli *c, const char *sub, const cf_table_args *t)
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

static int run_sub(cf_cli *c, const char *sub, cf_table_args *tp)
{
    cf_table_args t = *tp;
    int rc;
    if ((rc = check_sub_opts(c, sub, &t)) != 0)
        return rc;
    if (t.npos < 1)
        return cf_cli_usage(c, "%s: missing DIR", sub);
    const char *dir = t.pos[0];
    t.pos++;
    t.npos--;
    if (strcmp(sub, "create") == 0)
        return cf_cmd_table_create(c, dir, &t);
    if (strcmp(sub, "import") == 0) {
        if (t.npos != 1)
            return cf_cli_usage(c, "import needs one input file (CSV or JSON lines; - for stdin)");
        return cf_cmd_table_import(c, dir, t.pos[0], t.schema, t.format, t.has_ts, t.ts, t.lock_ms,
                                   t.memory, t.threads, t.json);
    }
    if (strcmp(sub, "scan") == 0)
        return cf_cmd_table_scan(c, dir, &t);
    if (strcmp(sub, "get") == 0)
        return cf_cmd_table_get(c, dir, &t);
    if (strcmp(sub, "insert") == 0)
        return cf_cmd_table_insert(c, dir, &t);
    if (strcmp(sub, "update") == 0)
        return cf_cmd_table_update(c, dir, &t, false);
    if (strcmp(sub, "delete") == 0)
        return cf_cmd_table_update(c, dir, &t, true);
    if (strcmp(sub, "compact") == 0)
        return cf_cmd_table_compact(c, dir, &t);
    if (strcmp(sub, "info") == 0)
        return cf_cmd_table_info(c, dir, &t);
    if (strcmp(sub, "flush") == 0)
        return cf_cmd_table_flush(c, dir, &t);
    return cf_cli_usage(c, "unknown subcommand '%s'", sub);
}

int cf_cmd_table(cf_cli *c, int argc, char **argv)
{
    if (argc < 2)
        return cf_cli_usage(c, "missing subcommand");
    const char *sub = argv[1];
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0)
        return cf_cli_help(c);
    cf_table_args t;
    int rc = parse_args(c, argc - 1, argv + 1, &t);
    if (rc == -2)
        rc = cf_cli_help(c);
    else if (rc == 0)
        rc = run_sub(c, sub, &t);
    free(t.keys);
    return rc;
}

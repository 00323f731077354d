/* `cfile kudu tablet scan [options] FS TABLET_ID`: the rows of a tablet on a stopped
 * server's disks, printed as `cfile table scan` prints a table's (the same
 * printer, projection and --where syntax: table_cmd.h, table_args.h). */
#include "kudu_cmd.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/kudu.h>

#include "kudu_args.h"
#include "table_args.h"
#include "table_cmd.h"

const char cf_cmd_kudu_tablet_scan_usage[] =
    "usage: cfile kudu tablet scan [options] --fs-wal-dir DIR [--fs-data-dirs A,B] TABLET_ID\n"
    "\n"
    "The tablet's rows in primary key order, as Kudu would answer a scan after a\n"
    "restart: every DiskRowSet (base columns with their REDO deltas, or UNDO deltas\n"
    "for an older snapshot) plus the WAL's row operations the superblock does not\n"
    "cover yet, decided op by op as Kudu's tablet bootstrap decides and replayed in\n"
    "memory. Nothing under the directories is written.\n"
    "\n"
    "options:\n"
    "  --json                 JSON lines, one object per row (= --format jsonl)\n"
    "  --format F             text (default), csv or jsonl\n"
    "  --as-of HT             the rows at hybrid time HT (ops with timestamp < HT, as\n"
    "                         Kudu's snapshot scans see them), within the history the\n"
    "                         rowsets' UNDO deltas retain: an HT before the ancient\n"
    "                         history mark (the tablet's latest timestamp minus the\n"
    "                         history age) is refused, exit 2, as Kudu refuses it\n"
    "  --history-max-age-sec N the server's --tablet_history_max_age_sec (default\n"
    "                         604800; a table's own setting in the superblock wins;\n"
    "                         negative: history GC was off)\n"
    "  --no-wal               the DiskRowSets alone (no WAL replay)\n"
    "  --columns a,b          projection, in this order (default: every column)\n"
    "  --where EXPR           COL OP VALUE [AND ...], OP = != <> < <= > >= IS [NOT] NULL\n"
    "                         (as `cfile table scan` takes them; a column name that is\n"
    "                         not [A-Za-z_][A-Za-z0-9_]* goes in backquotes, `` for one\n"
    "                         inside: --columns '`my-col`,`a b`' --where '`my-col` > 3')\n"
    "  --limit N              print at most N rows\n"
    "  --raw-values           text and csv print DATE, UNIXTIME_MICROS and DECIMAL as\n"
    "                         their integers (as --json does), not 2024-01-02,\n"
    "                         2024-01-02T03:04:05.000006Z and 12.34 (`cfile table --help`)\n"
    "  --batch-rows N         rows per batch inside the scan (default 1024)\n"
    "  --mmap                 read the blocks through mmap (default pread): faster when\n"
    "                         cached, but a media error or a file cut underneath kills\n"
    "                         the process (SIGBUS) instead of exiting 1\n" CF_KUDU_ARGS_USAGE
    "  -h, --help             this text\n"
    "\n"
    "exit: 0 ok, 1 damage or I/O (naming the file and offset), 2 usage, 3 unsupported\n";

enum {
    O_JSON = 256,
    O_FORMAT,
    O_ASOF,
    O_NOWAL,
    O_COLUMNS,
    O_WHERE,
    O_LIMIT,
    O_BATCH,
    O_MMAP,
    O_RAW,
    O_HISTAGE
};

typedef struct scan_args {
    bool json, no_wal, has_asof, mmap, raw;
    const char *format, *columns, *where;
    uint64_t as_of, limit, batch;
    bool has_age;
    int64_t age;
} scan_args;

static int parse(cf_cli *c, int argc, char **argv, scan_args *s, cf_kudu_args *ka)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, O_JSON},
        {"format", required_argument, NULL, O_FORMAT},
        {"as-of", required_argument, NULL, O_ASOF},
        {"no-wal", no_argument, NULL, O_NOWAL},
        {"columns", required_argument, NULL, O_COLUMNS},
        {"where", required_argument, NULL, O_WHERE},
        {"limit", required_argument, NULL, O_LIMIT},
        {"batch-rows", required_argument, NULL, O_BATCH},
        {"mmap", no_argument, NULL, O_MMAP},
        {"raw-values", no_argument, NULL, O_RAW},
        {"history-max-age-sec", required_argument, NULL, O_HISTAGE},
        {"help", no_argument, NULL, 'h'},
        CF_KUDU_ARGS_LONGOPTS,
        {NULL, 0, NULL, 0}};
    int ch;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case O_JSON: s->json = true; break;
        case O_FORMAT: s->format = optarg; break;
        case O_NOWAL: s->no_wal = true; break;
        case O_MMAP: s->mmap = true; break;
        case O_RAW: s->raw = true; break;
        case O_COLUMNS: s->columns = optarg; break;
        case O_WHERE: s->where = optarg; break;
        case O_ASOF:
            if (cf_cli_parse_u64(optarg, &s->as_of) != 0 || s->as_of == UINT64_MAX)
                return cf_cli_usage(c, "--as-of: not a hybrid time: %s", optarg);
            s->has_asof = true;
            break;
        case O_HISTAGE: {
            char *end;
            errno = 0;
            long long v = strtoll(optarg, &end, 10);
            if (errno != 0 || end == optarg || *end != '\0')
                return cf_cli_usage(c, "--history-max-age-sec: not a number of seconds: %s",
                                    optarg);
            s->age = v;
            s->has_age = true;
            break;
        }
        case O_LIMIT:
            if (cf_cli_parse_u64(optarg, &s->limit) != 0)
                return cf_cli_usage(c, "--limit: not a count: %s", optarg);
            break;
        case O_BATCH:
            if (cf_cli_parse_u64(optarg, &s->batch) != 0 || s->batch < 1 ||
                s->batch > ((uint64_t)1 << 20))
                return cf_cli_usage(c, "--batch-rows: expected 1..1048576, got '%s'", optarg);
            break;
        case 'h': return -2;
        default: {
            int rc = cf_kudu_args_option(c, ka, ch, optarg);
            if (rc < 0)
                return cf_cli_bad_option(c, argv);
            if (rc > 0)
                return rc;
        }
        }
    }
    if (argc - optind != 1)
        return cf_cli_usage(c, "expected one TABLET_ID, got %d arguments", argc - optind);
    return 0;
}

static cf_status scanner_next(void *ctx, cf_row_batch *b, cf_error *err)
{
    return cf_kudu_scanner_next(ctx, b, err);
}

int cf_cmd_kudu_tablet_scan(cf_cli *c, int argc, char **argv)
{
    c->usage = cf_cmd_kudu_tablet_scan_usage;
    scan_args s = {0};
    s.limit = UINT64_MAX;
    s.batch = 1024;
    cf_kudu_args ka;
    cf_kudu_args_init(&ka);
    cf_cli_getopt_reset();
    int rc = parse(c, argc, argv, &s, &ka);
    if (rc == -2) {
        cf_kudu_args_free(&ka);
        return cf_cli_help(c);
    }
    if (rc != 0) {
        cf_kudu_args_free(&ka);
        return rc;
    }
    const char *tablet_id = argv[optind];
    cf_kudu_fs *fs = NULL;
    cf_kudu_tablet *t = NULL;
    cf_kudu_scanner *sc = NULL;
    size_t *cols = NULL, ncols = 0, npreds = 0;
    cf_pred *preds = NULL;
    cf_cli_arena a;
    cf_cli_arena_init(&a);
    cf_error e;
    cf_status st;
    if ((rc = cf_kudu_args_open(c, &ka, &fs)) != 0)
        goto out;
    if ((st = cf_kudu_tablet_open(&t, fs, tablet_id, &e)) != CF_OK) {
        rc = cf_cli_lib_fail(c, tablet_id, st, &e);
        goto out;
    }
    const cf_schema *schema = cf_kudu_tablet_schema(t);
    if ((rc = cf_cli_columns_parse(c, schema, s.columns, &cols, &ncols)) != 0 ||
        (rc = cf_cli_where_parse(c, schema, s.where, &preds, &npreds, &a)) != 0)
        goto out;
    cf_kudu_scan_options o;
    cf_kudu_scan_options_init(&o);
    if (s.has_asof)
        o.as_of = s.as_of;
    o.no_wal = s.no_wal;
    o.mmap = s.mmap;
    o.cols = cols;
    o.ncols = ncols;
    o.preds = preds;
    o.npreds = npreds;
    o.batch_rows = (size_t)s.batch;
    if (s.has_age)
        o.history_max_age_sec = s.age;
    if ((st = cf_kudu_scanner_create(&sc, t, &o, &e)) != CF_OK) {
        /* a snapshot before the ancient history mark: Kudu's InvalidArgument */
        rc = cf_cli_lib_fail(c, "scan", st, &e);
        if (st == CF_EINVAL)
            rc = CF_EXIT_USAGE;
        goto out;
    }
    int64_t p0, p1;
    size_t np = cf_kudu_scanner_wal_pending(sc, &p0, &p1);
    if (np > 0)
        fprintf(c->err,
                "cfile: warning: tablet %s: %zu WAL op%s (index %" PRId64 "..%" PRId64
                ") %s no COMMIT and lie%s past the last committed index: Raft decides them "
                "when the server rejoins its peers, so the restarted tablet and this scan do "
                "not hold them\n",
                tablet_id, np, np == 1 ? "" : "s", p0, p1, np == 1 ? "has" : "have",
                np == 1 ? "s" : "");
    rc = cf_cli_rows_print(c, schema, cols, ncols, s.json, s.format, s.limit,
                           CF_CLI_ROWS_FLOAT9 | (s.raw ? CF_CLI_ROWS_RAW : 0), scanner_next, sc,
                           "scan", NULL);
out:
    cf_kudu_scanner_free(sc);
    cf_kudu_tablet_free(t);
    cf_kudu_fs_free(fs);
    cf_kudu_args_free(&ka);
    cf_cli_arena_dispose(&a);
    free(cols);
    return rc;
}

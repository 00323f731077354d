/* cfile head: the first rows of a CFile or a table, as `head` shows a file's first
 * lines. A shorthand over `dump --limit` and `table scan --limit`, so there is one
 * way to print values and this command only picks which. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

const char cf_cmd_head_usage[] =
    "usage: cfile head [-n N] [--json | --format F] [--raw-values] PATH\n"
    "\n"
    "Print the first N rows (default 10) of PATH: a CFile as `cfile dump --limit N`\n"
    "prints them, a table directory as `cfile table scan --limit N` does.\n"
    "\n"
    "  -n, --limit N  rows to print (default 10)\n"
    "  --json         JSON Lines, one object per row: a CFile's {\"row\", \"value\"}\n"
    "                 (dump --format jsonl), a table's {\"column\": value, ...}\n"
    "  --format F     as dump's (text, jsonl, csv, table) or table scan's (text, csv,\n"
    "                 jsonl) --format\n"
    "  --raw-values   DATE, UNIXTIME_MICROS (and a table's DECIMAL) as their integers\n"
    "                 in text and csv, as dump's and table scan's --raw-values\n"
    "  --help         this text\n";

int cf_cmd_head(cf_cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        {"limit", required_argument, NULL, 'n'},  {"json", no_argument, NULL, 'j'},
        {"format", required_argument, NULL, 'F'}, {"raw-values", no_argument, NULL, 'R'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    const char *limit = "10", *format = NULL;
    bool raw = false;
    uint64_t n;
    int ch;
    while ((ch = getopt_long(argc, argv, "n:jF:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'n':
            if (cf_cli_parse_u64(optarg, &n) != 0)
                return cf_cli_usage(c, "--limit: not a count: %s", optarg);
            limit = optarg;
            break;
        case 'j': format = "jsonl"; break;
        case 'F': format = optarg; break;
        case 'R': raw = true; break;
        case 'h': return cf_cli_help(c);
        default: return cf_cli_bad_option(c, argv);
        }
    }
    if (argc - optind != 1)
        return cf_cli_usage(c, "expected one PATH");
    const char *path = argv[optind];
    struct stat sb;
    bool table = stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
    /* The command it stands for, run as that command (its messages name it). */
    char *args[10];
    int na = 0;
    if (table) {
        if (!CF_HAVE_TABLES)
            return cf_cli_not_built(c, path, "CF_WITH_TABLES");
        args[na++] = "table";
        args[na++] = "scan";
    } else {
        args[na++] = "dump";
    }
    args[na++] = (char *)path;
    args[na++] = "--limit";
    args[na++] = (char *)limit;
    if (format != NULL) {
        args[na++] = "--format";
        args[na++] = (char *)format;
    }
    if (raw)
        args[na++] = "--raw-values";
    args[na] = NULL;
    cf_cli sub = cf_cli_sub(c, table ? "table" : "dump", cf_cmd_dump_usage);
    cf_cli_getopt_reset();
#if CF_HAVE_TABLES
    if (table) {
        sub.usage = cf_cmd_table_usage;
        return cf_cmd_table(&sub, na, args);
    }
#endif
    return cf_cmd_dump(&sub, na, args);
}

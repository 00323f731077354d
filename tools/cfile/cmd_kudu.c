/* `cfile kudu`: a stopped Kudu tablet server's directories, read-only (kudu.h). The
 * subcommands follow Kudu's own tools: `kudu pbc`, `kudu fs`, `kudu local_replica`,
 * `kudu wal`. */
#include "cli.h"
#include "kudu_cmd.h"

#include <string.h>

const char cf_cmd_kudu_usage[] =
    "usage: cfile kudu pbc dump [--json] [--type TYPE] FILE\n"
    "       cfile kudu fs list|check|dump ... FS\n"
    "       cfile kudu tablet list|meta|schema|rowsets|data-size|scan ... FS [TABLET]\n"
    "       cfile kudu wal dump [--json] FS TABLET\n"
    "\n"
    "Read a stopped Kudu tablet server's own directories, never writing to them.\n"
    "FS names them as Kudu's flags do:\n"
    "  --fs-wal-dir DIR          the WAL root (also the metadata root by default)\n"
    "  --fs-metadata-dir DIR     the metadata root, when not the WAL root\n"
    "  --fs-data-dirs A[,B...]   the data roots (default: the WAL root)\n"
    "Each subcommand's --help lists its options. Exit status: 0 ok, 1 damage or I/O\n"
    "error, 2 usage, 3 not supported (an encrypted server).\n";

typedef struct kudu_sub {
    const char *name;
    cf_cli_fn fn;
} kudu_sub;

/* Each subcommand's line is added with its cmd_kudu_<name>.c. */
static const kudu_sub subs[] = {
    {"pbc", cf_cmd_kudu_pbc},       /* kudu pbc */
    {"fs", cf_cmd_kudu_fs},         /* kudu fs */
    {"wal", cf_cmd_kudu_wal},       /* kudu wal */
    {"tablet", cf_cmd_kudu_tablet}, /* kudu tablet */
    {NULL, NULL},                   /* the end */
};

int cf_cmd_kudu(cf_cli *c, int argc, char **argv)
{
    if (argc < 2)
        return cf_cli_usage(c, "missing subcommand (pbc, fs, tablet or wal)");
    const char *sub = argv[1];
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0)
        return cf_cli_help(c);
    for (size_t i = 0; subs[i].name != NULL; i++)
        if (strcmp(sub, subs[i].name) == 0)
            return subs[i].fn(c, argc - 1, argv + 1);
    return cf_cli_usage(c, "unknown subcommand '%s'", sub);
}

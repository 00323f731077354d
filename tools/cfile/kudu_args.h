/* The directory options every `cfile kudu` command takes, spelled as Kudu's flags
 * (fs_manager.cc: --fs_wal_dir, --fs_metadata_dir, --fs_data_dirs), with dashes or
 * with Kudu's own underscores:
 *
 *   --fs-wal-dir DIR          the WAL root (required; alone it is the single root)
 *   --fs-metadata-dir DIR     default: the WAL root
 *   --fs-data-dirs A[,B...]   comma-separated, may repeat; default: the WAL root
 *
 * A command adds CF_KUDU_ARGS_LONGOPTS to its getopt_long table, hands every option
 * it does not know itself to cf_kudu_args_option, then calls cf_kudu_args_open.
 *
 *   cf_kudu_args a; cf_kudu_args_init(&a);
 *   ... default: rc = cf_kudu_args_option(c, &a, ch, optarg); if (rc < 0) bad option;
 *                if (rc > 0) return rc (after cf_kudu_args_free) ...
 *   rc = cf_kudu_args_open(c, &a, &fs);   (0, or an exit code already printed)
 *   ... cf_kudu_fs_free(fs); cf_kudu_args_free(&a);
 */
#ifndef CF_CLI_KUDU_ARGS_H
#define CF_CLI_KUDU_ARGS_H

#include <getopt.h>
#include <stddef.h>

#include <cfile/kudu.h>

#include "cli.h"

/* getopt_long values, out of the range of any short option. */
enum { CF_KUDU_OPT_WAL = 0x4b00, CF_KUDU_OPT_META, CF_KUDU_OPT_DATA };

#define CF_KUDU_ARGS_LONGOPTS                                                                      \
    {"fs-wal-dir", required_argument, NULL, CF_KUDU_OPT_WAL},                                      \
        {"fs_wal_dir", required_argument, NULL, CF_KUDU_OPT_WAL},                                  \
        {"fs-metadata-dir", required_argument, NULL, CF_KUDU_OPT_META},                            \
        {"fs_metadata_dir", required_argument, NULL, CF_KUDU_OPT_META},                            \
        {"fs-data-dirs", required_argument, NULL, CF_KUDU_OPT_DATA},                               \
    {                                                                                              \
        "fs_data_dirs", required_argument, NULL, CF_KUDU_OPT_DATA                                  \
    }

/* The usage lines for the options above, for a command's usage text. */
#define CF_KUDU_ARGS_USAGE                                                                         \
    "  --fs-wal-dir DIR         the server's WAL root (Kudu's --fs_wal_dir); alone,\n"             \
    "                           it is also the metadata and the only data root\n"                  \
    "  --fs-metadata-dir DIR    the metadata root (default: the WAL root)\n"                       \
    "  --fs-data-dirs A[,B...]  the data roots in Kudu's order (default: the WAL root)\n"

typedef struct cf_kudu_args {
    const char *wal_dir;
    const char *metadata_dir;
    char **data_dirs; /* malloc'd copies */
    size_t ndata_dirs;
} cf_kudu_args;

void cf_kudu_args_init(cf_kudu_args *a);
void cf_kudu_args_free(cf_kudu_args *a);

/* Take option `opt` (a getopt_long value) with argument `arg`: 0 when taken, -1 when
 * it is not one of ours, or an exit code (> 0) already printed (a bad value). */
int cf_kudu_args_option(cf_cli *c, cf_kudu_args *a, int opt, const char *arg);

/* Fill `opts` (pointers into `a`, which must outlive them). A missing --fs-wal-dir is
 * a usage error: returns 0 or the exit code printed. */
int cf_kudu_args_options(cf_cli *c, const cf_kudu_args *a, cf_kudu_fs_options *opts);

/* Open the server's directories: 0 and *fs, or the exit code after printing why
 * (1 damage or I/O, 2 usage, 3 unsupported such as an encrypted server). A lock held
 * by a running server is reported on stderr as a warning, not refused. */
int cf_kudu_args_open(cf_cli *c, const cf_kudu_args *a, cf_kudu_fs **fs);

#endif

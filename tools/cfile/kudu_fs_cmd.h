/* `cfile kudu fs` (cmd_kudu_fs.c: usage, options, opening the server's
 * directories, dispatch) and its verbs, one file each: list (cmd_kudu_fs_list.c),
 * check (cmd_kudu_fs_check.c), dump (cmd_kudu_fs_dump.c). */
#ifndef CF_KUDU_FS_CMD_H
#define CF_KUDU_FS_CMD_H

#include <stdbool.h>
#include <stdint.h>

#include <cfile/kudu.h>

#include "cli.h"
#include "json.h"
#include "kudu_args.h"
#include "kudu_roles.h"

/* Options every fs subcommand understands. */
typedef struct fs_args {
    cf_kudu_args fs;
    bool json, hex;
    const char *tablet, *table;
    bool has_block;
    uint64_t block;
    uint64_t max_size;
    /* dump cfile: options passed on to `cfile dump` */
    char *dump_argv[8];
    int dump_argc;
    int nargs;
    char **args; /* positional arguments */
} fs_args;

/* The verbs, after the options are parsed and the directories opened; each returns
 * the exit code. what: dump's object (uuid, block, cfile or tree). */
int cf_kudu_fs_cmd_list(cf_cli *c, fs_args *a, const cf_kudu_fs *fs);
int cf_kudu_fs_cmd_check(cf_cli *c, fs_args *a, const cf_kudu_fs *fs);
int cf_kudu_fs_cmd_dump(cf_cli *c, fs_args *a, const cf_kudu_fs *fs, const char *what);

/* Shared by list and check: a data dir's path ("?" when unknown), and one block as
 * the JSON object of the contract (role NULL: an orphan). */
const char *cf_kudu_fs_cmd_data_dir(const cf_kudu_fs *fs, size_t d);
void cf_kudu_fs_cmd_block_json(cf_jw *w, const cf_kudu_fs *fs, const cf_kudu_block *b,
                               const cf_kudu_role *role);

#endif

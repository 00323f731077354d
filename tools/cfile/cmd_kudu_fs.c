/* cfile kudu fs list|check|dump: a server's blocks as Kudu's `kudu fs` tool shows
 * them (src/kudu/tools/tool_action_fs.cc), read-only. list: every live block with
 * its place and its role from the superblocks; check: the report `kudu fs check`
 * gives, without ever repairing; dump: one block's bytes, CFile values or index
 * tree, or the server's uuid. */
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "kudu_cmd.h"
#include "kudu_fs_cmd.h"

static const char fs_usage[] =
    "usage: cfile kudu fs list [--json] [--tablet ID] [--table NAME] [--block ID] FS\n"
    "       cfile kudu fs check [--json] FS\n"
    "       cfile kudu fs dump uuid|block|cfile|tree [options] FS [BLOCK_ID]\n"
    "\n"
    "A stopped Kudu server's blocks, as `kudu fs list|check|dump` shows them; nothing\n"
    "is written, repaired or locked.\n"
    "\n"
    "list   every live block: block_id, data_dir, container (log block manager),\n"
    "       offset, length, and from the superblocks its tablet_id, rowset_id, kind\n"
    "       (column, bloom, adhoc_index, undo, redo; orphan when no superblock names\n"
    "       it), column and delta_index. --json prints {\"blocks\": [...]}.\n"
    "         --tablet ID   blocks of this tablet      --table NAME  of this table\n"
    "         --block ID    this block\n"
    "check  orphaned blocks, blocks the superblocks name that are missing, damage in\n"
    "       containers (file and offset), full, dead and incomplete containers, torn\n"
    "       metadata, reclaimable space. Exit 1 when damage or a missing block is found.\n"
    "dump   uuid: the server's uuid; block ID: the block's bytes (--hex: as hex);\n"
    "       cfile ID: the block as `cfile dump` prints a file (its options: --json,\n"
    "       --format, --from, --limit); tree: every root's files and directories, as\n"
    "       `kudu fs dump tree` prints them (links shown, never followed); tree ID: the\n"
    "       block's CFile index and data blocks.\n"
    "\n" CF_KUDU_ARGS_USAGE
    "  --log-container-max-size N  Kudu's --log_container_max_size (default 10 GiB),\n"
    "                           which decides which containers are full\n"
    "  --json                   JSON output\n"
    "  --help                   this text\n";

enum {
    OPT_TABLET = 0x4c00,
    OPT_TABLE,
    OPT_BLOCK,
    OPT_MAXSIZE,
    OPT_HEX,
    OPT_FORMAT,
    OPT_FROM,
    OPT_LIMIT
};

static int parse(cf_cli *c, int argc, char **argv, fs_args *a)
{
    static const struct option opts[] = {
        CF_KUDU_ARGS_LONGOPTS,
        {"json", no_argument, NULL, 'j'},
        {"tablet", required_argument, NULL, OPT_TABLET},
        {"table", required_argument, NULL, OPT_TABLE},
        {"block", required_argument, NULL, OPT_BLOCK},
        {"log-container-max-size", required_argument, NULL, OPT_MAXSIZE},
        {"hex", no_argument, NULL, OPT_HEX},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"from", required_argument, NULL, OPT_FROM},
        {"limit", required_argument, NULL, OPT_LIMIT},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    a->dump_argv[a->dump_argc++] = "dump";
    int ch;
    while ((ch = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
        switch (ch) {
        case 'j':
            a->json = true;
            a->dump_argv[a->dump_argc++] = "--json";
            break;
        case 'h': return cf_cli_help(c);
        case OPT_TABLET: a->tablet = optarg; break;
        case OPT_TABLE: a->table = optarg; break;
        case OPT_BLOCK:
            if (cf_cli_parse_u64(optarg, &a->block) != 0)
                return cf_cli_usage(c, "--block: not a block id: %s", optarg);
            a->has_block = true;
            break;
        case OPT_MAXSIZE:
            if (cf_cli_parse_u64(optarg, &a->max_size) != 0 || a->max_size == 0)
                return cf_cli_usage(c, "--log-container-max-size: not a size in bytes: %s", optarg);
            break;
        case OPT_HEX: a->hex = true; break;
        case OPT_FORMAT:
        case OPT_FROM:
        case OPT_LIMIT:
            if (a->dump_argc + 2 >= (int)(sizeof a->dump_argv / sizeof a->dump_argv[0]))
                return cf_cli_usage(c, "too many dump options");
            a->dump_argv[a->dump_argc++] = ch == OPT_FORMAT ? "--format"
                                           : ch == OPT_FROM ? "--from"
                                                            : "--limit";
            a->dump_argv[a->dump_argc++] = optarg;
            break;
        default: {
            int rc = cf_kudu_args_option(c, &a->fs, ch, optarg);
            if (rc < 0)
                return cf_cli_bad_option(c, argv);
            if (rc > 0)
                return rc;
        }
        }
    }
    a->dump_argv[a->dump_argc] = NULL;
    a->nargs = argc - optind;
    a->args = argv + optind;
    return -1;
}

static int open_fs(cf_cli *c, fs_args *a, cf_kudu_fs **fs)
{
    cf_kudu_fs_options o;
    int rc = cf_kudu_args_options(c, &a->fs, &o);
    if (rc != 0)
        return rc;
    o.log_container_max_size = a->max_size;
    cf_error e = {0};
    cf_status st = cf_kudu_fs_open(fs, &o, &e);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, "kudu fs", st, &e);
    if (cf_kudu_fs_locked(*fs))
        fprintf(c->err,
                "cfile kudu fs: warning: a running Kudu server holds the lock on an instance "
                "file; its files may change while they are read\n");
    return 0;
}

const char *cf_kudu_fs_cmd_data_dir(const cf_kudu_fs *fs, size_t d)
{
    const char *s = cf_kudu_fs_data_dir_at(fs, d);
    return s != NULL ? s : "?";
}

void cf_kudu_fs_cmd_block_json(cf_jw *w, const cf_kudu_fs *fs, const cf_kudu_block *b,
                               const cf_kudu_role *role)
{
    cf_jw_obj_begin(w);
    cf_jw_kv_uint(w, "block_id", b->id);
    cf_jw_kv_cstr(w, "data_dir", cf_kudu_fs_cmd_data_dir(fs, b->data_dir));
    cf_jw_kv_opt_cstr(w, "container", b->container);
    cf_jw_kv_opt_uint(w, "offset", b->container != NULL, b->offset);
    cf_jw_kv_uint(w, "length", b->length);
    cf_jw_kv_opt_cstr(w, "tablet_id", role != NULL ? role->tablet_id : NULL);
    cf_jw_kv_opt_uint(w, "rowset_id", role != NULL, role != NULL ? role->rowset_id : 0);
    cf_jw_kv_cstr(w, "kind",
                  cf_kudu_block_kind_name(role != NULL ? role->kind : CF_KUDU_BLOCK_ORPHAN));
    cf_jw_kv_opt_cstr(w, "column", role != NULL && role->column != NULL ? role->column : NULL);
    cf_jw_kv_opt_int(w, "delta_index", role != NULL && role->delta_index >= 0,
                     role != NULL ? role->delta_index : 0);
    cf_jw_obj_end(w);
}

int cf_cmd_kudu_fs(cf_cli *c, int argc, char **argv)
{
    cf_cli sub = cf_cli_sub(c, "kudu fs", fs_usage);
    if (argc < 2)
        return cf_cli_usage(&sub, "missing subcommand (list, check or dump)");
    const char *verb = argv[1];
    if (strcmp(verb, "--help") == 0 || strcmp(verb, "-h") == 0)
        return cf_cli_help(&sub);
    bool list = strcmp(verb, "list") == 0, check = strcmp(verb, "check") == 0,
         dump = strcmp(verb, "dump") == 0;
    if (!list && !check && !dump)
        return cf_cli_usage(&sub, "unknown subcommand '%s' (list, check or dump)", verb);
    const char *what = NULL;
    int skip = 1;
    if (dump) {
        if (argc < 3 || argv[2][0] == '-') {
            if (argc >= 3 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0))
                return cf_cli_help(&sub);
            return cf_cli_usage(&sub, "dump what? uuid, block, cfile or tree");
        }
        what = argv[2];
        skip = 2;
    }
    fs_args a;
    memset(&a, 0, sizeof a);
    cf_kudu_args_init(&a.fs);
    cf_cli_getopt_reset();
    int rc = parse(&sub, argc - skip, argv + skip, &a);
    if (rc >= 0)
        goto out;
    if (!dump && a.nargs != 0) {
        rc = cf_cli_usage(&sub, "unexpected argument '%s'", a.args[0]);
        goto out;
    }
    cf_kudu_fs *fs = NULL;
    rc = open_fs(&sub, &a, &fs);
    if (rc != 0)
        goto out;
    if (list)
        rc = cf_kudu_fs_cmd_list(&sub, &a, fs);
    else if (check)
        rc = cf_kudu_fs_cmd_check(&sub, &a, fs);
    else
        rc = cf_kudu_fs_cmd_dump(&sub, &a, fs, what);
    cf_kudu_fs_free(fs);
out:
    cf_kudu_args_free(&a.fs);
    return rc;
}

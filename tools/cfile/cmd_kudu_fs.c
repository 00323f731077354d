/* cfile kudu fs list|check|dump: a server's blocks as Kudu's `kudu fs` tool shows
 * them (src/kudu/tools/tool_action_fs.cc), read-only. list: every live block with
 * its place and its role from the superblocks; check: the report `kudu fs check`
 * gives, without ever repairing; dump: one block's bytes, CFile values or index
 * tree, or the server's uuid. */
#include <dirent.h>
#include <getopt.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "info_blocks.h"
#include "kudu_args.h"
#include "kudu_cmd.h"
#include "kudu_roles.h"

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

static const char *data_dir_name(const cf_kudu_fs *fs, size_t d)
{
    const char *s = cf_kudu_fs_data_dir_at(fs, d);
    return s != NULL ? s : "?";
}

/* ---- list ----------------------------------------------------------------------------------- */

static bool selected(const fs_args *a, const cf_kudu_block *b, const cf_kudu_role *role)
{
    if (a->has_block && b->id != a->block)
        return false;
    if (a->tablet != NULL && (role == NULL || strcmp(role->tablet_id, a->tablet) != 0))
        return false;
    if (a->table != NULL &&
        (role == NULL || role->table_name == NULL || strcmp(role->table_name, a->table) != 0))
        return false;
    return true;
}

static void block_json(cf_jw *w, const cf_kudu_fs *fs, const cf_kudu_block *b,
                       const cf_kudu_role *role)
{
    cf_jw_obj_begin(w);
    cf_jw_key(w, "block_id");
    cf_jw_uint(w, b->id);
    cf_jw_key(w, "data_dir");
    cf_jw_cstr(w, data_dir_name(fs, b->data_dir));
    cf_jw_key(w, "container");
    if (b->container != NULL)
        cf_jw_cstr(w, b->container);
    else
        cf_jw_null(w);
    cf_jw_key(w, "offset");
    if (b->container != NULL)
        cf_jw_uint(w, b->offset);
    else
        cf_jw_null(w);
    cf_jw_key(w, "length");
    cf_jw_uint(w, b->length);
    cf_jw_key(w, "tablet_id");
    if (role != NULL)
        cf_jw_cstr(w, role->tablet_id);
    else
        cf_jw_null(w);
    cf_jw_key(w, "rowset_id");
    if (role != NULL)
        cf_jw_uint(w, role->rowset_id);
    else
        cf_jw_null(w);
    cf_jw_key(w, "kind");
    cf_jw_cstr(w, cf_kudu_block_kind_name(role != NULL ? role->kind : CF_KUDU_BLOCK_ORPHAN));
    cf_jw_key(w, "column");
    if (role != NULL && role->column != NULL)
        cf_jw_cstr(w, role->column);
    else
        cf_jw_null(w);
    cf_jw_key(w, "delta_index");
    if (role != NULL && role->delta_index >= 0)
        cf_jw_int(w, role->delta_index);
    else
        cf_jw_null(w);
    cf_jw_obj_end(w);
}

static void warn_failed(cf_cli *c, const cf_kudu_roles *roles)
{
    for (size_t i = 0; i < roles->nfailed; i++)
        fprintf(c->err, "cfile kudu fs: warning: tablet %s: %s (its blocks show as orphans)\n",
                roles->failed[i].tablet_id, roles->failed[i].msg);
}

/* The damage loading found, one line each on stderr; the listing then exits 1 (the
 * blocks of a damaged container may be missing from it, so it is not a whole answer). */
static int report_damage(cf_cli *c, const cf_kudu_fs *fs, const cf_kudu_roles *roles)
{
    size_t np = cf_kudu_fs_problem_count(fs);
    for (size_t i = 0; i < np; i++) {
        const cf_kudu_problem *p = cf_kudu_fs_problem_at(fs, i);
        if (p->has_offset)
            fprintf(c->err, "cfile kudu fs: damage: %s at offset %" PRIu64 ": %s\n", p->path,
                    p->offset, p->what);
        else
            fprintf(c->err, "cfile kudu fs: damage: %s: %s\n", p->path, p->what);
    }
    /* A block a superblock names that the block manager lacks: the tablet cannot be
     * read whole (fs check lists these too). */
    size_t missing = 0;
    for (size_t i = 0; i < roles->n; i++) {
        const cf_kudu_role *r = &roles->v[i];
        if (cf_kudu_fs_find_block(fs, r->block_id) != NULL)
            continue;
        missing++;
        fprintf(c->err,
                "cfile kudu fs: damage: tablet %s rowset %" PRIu64 " names %s block %" PRIu64
                ", which no data dir holds\n",
                r->tablet_id, r->rowset_id, cf_kudu_block_kind_name(r->kind), r->block_id);
    }
    return np > 0 || roles->nfailed > 0 || missing > 0 ? CF_EXIT_FAIL : CF_EXIT_OK;
}

static int fs_list(cf_cli *c, fs_args *a, const cf_kudu_fs *fs)
{
    cf_kudu_roles roles;
    int rc = cf_kudu_roles_load(c, fs, &roles);
    if (rc != 0) {
        cf_kudu_roles_free(&roles);
        return rc;
    }
    warn_failed(c, &roles);
    cf_jw w;
    cf_jw_init(&w, c->out);
    if (a->json) {
        cf_jw_obj_begin(&w);
        cf_jw_key(&w, "blocks");
        cf_jw_arr_begin(&w);
    } else {
        fprintf(c->out, "%-20s %-9s %-32s %10s %10s %-32s %6s %-11s %s\n", "block_id", "data_dir",
                "container", "offset", "length", "tablet_id", "rowset", "kind", "column/delta");
    }
    size_t n = cf_kudu_fs_block_count(fs);
    for (size_t i = 0; i < n; i++) {
        const cf_kudu_block *b = cf_kudu_fs_block_at(fs, i);
        const cf_kudu_role *role = cf_kudu_roles_find(&roles, b->id, NULL);
        if (!selected(a, b, role))
            continue;
        if (a->json) {
            block_json(&w, fs, b, role);
            continue;
        }
        char off[24] = "-", rs[24] = "-", extra[160] = "";
        if (b->container != NULL)
            snprintf(off, sizeof off, "%" PRIu64, b->offset);
        if (role != NULL) {
            snprintf(rs, sizeof rs, "%" PRIu64, role->rowset_id);
            if (role->column != NULL)
                snprintf(extra, sizeof extra, "%s", role->column);
            else if (role->delta_index >= 0)
                snprintf(extra, sizeof extra, "%" PRId64, role->delta_index);
        }
        fprintf(c->out, "%-20" PRIu64 " %-9zu %-32s %10s %10" PRIu64 " %-32s %6s %-11s %s\n", b->id,
                b->data_dir, b->container != NULL ? b->container : "-", off, b->length,
                role != NULL ? role->tablet_id : "-", rs,
                cf_kudu_block_kind_name(role != NULL ? role->kind : CF_KUDU_BLOCK_ORPHAN), extra);
    }
    if (a->json) {
        cf_jw_arr_end(&w);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    }
    rc = report_damage(c, fs, &roles);
    cf_kudu_roles_free(&roles);
    return rc;
}

/* ---- check ---------------------------------------------------------------------------------- */

static int fs_check(cf_cli *c, fs_args *a, const cf_kudu_fs *fs)
{
    cf_kudu_roles roles;
    int rc = cf_kudu_roles_load(c, fs, &roles);
    if (rc != 0) {
        cf_kudu_roles_free(&roles);
        return rc;
    }
    size_t nb = cf_kudu_fs_block_count(fs), nc = cf_kudu_fs_container_count(fs);
    size_t np = cf_kudu_fs_problem_count(fs);
    size_t orphans = 0, missing = 0, shared = 0, full = 0, dead = 0, incomplete = 0, torn = 0;
    uint64_t live_bytes = 0, orphan_bytes = 0, reclaim = 0;
    for (size_t i = 0; i < nb; i++) {
        const cf_kudu_block *b = cf_kudu_fs_block_at(fs, i);
        live_bytes += b->length;
        size_t k;
        if (cf_kudu_roles_find(&roles, b->id, &k) == NULL) {
            orphans++;
            orphan_bytes += b->length;
        } else if (k > 1) {
            shared++;
        }
    }
    for (size_t i = 0; i < roles.n; i++)
        if (cf_kudu_fs_find_block(fs, roles.v[i].block_id) == NULL)
            missing++;
    for (size_t i = 0; i < nc; i++) {
        const cf_kudu_container *ct = cf_kudu_fs_container_at(fs, i);
        full += ct->full;
        dead += ct->dead;
        incomplete += ct->incomplete;
        torn += ct->torn_metadata;
        reclaim += ct->reclaimable;
    }
    bool damage = np > 0 || missing > 0 || shared > 0 || roles.nfailed > 0;
    bool lbm = cf_kudu_fs_block_manager(fs) == CF_KUDU_BM_LOG;

    if (a->json) {
        cf_jw w;
        cf_jw_init(&w, c->out);
        cf_jw_obj_begin(&w);
        cf_jw_key(&w, "fs_uuid");
        cf_jw_cstr(&w, cf_kudu_fs_uuid(fs));
        cf_jw_key(&w, "block_manager");
        cf_jw_cstr(&w, lbm ? "log" : "file");
        cf_jw_key(&w, "locked");
        cf_jw_bool(&w, cf_kudu_fs_locked(fs));
        cf_jw_key(&w, "damage");
        cf_jw_bool(&w, damage);
        cf_jw_key(&w, "stats");
        cf_jw_obj_begin(&w);
        cf_jw_key(&w, "live_blocks");
        cf_jw_uint(&w, nb);
        cf_jw_key(&w, "live_bytes");
        cf_jw_uint(&w, live_bytes);
        cf_jw_key(&w, "tablets");
        cf_jw_uint(&w, cf_kudu_fs_tablet_count(fs));
        cf_jw_key(&w, "containers");
        cf_jw_uint(&w, nc);
        cf_jw_key(&w, "full_containers");
        cf_jw_uint(&w, full);
        cf_jw_key(&w, "dead_containers");
        cf_jw_uint(&w, dead);
        cf_jw_key(&w, "incomplete_containers");
        cf_jw_uint(&w, incomplete);
        cf_jw_key(&w, "torn_metadata");
        cf_jw_uint(&w, torn);
        cf_jw_key(&w, "orphaned_blocks");
        cf_jw_uint(&w, orphans);
        cf_jw_key(&w, "orphaned_bytes");
        cf_jw_uint(&w, orphan_bytes);
        cf_jw_key(&w, "missing_blocks");
        cf_jw_uint(&w, missing);
        cf_jw_key(&w, "reclaimable_bytes");
        cf_jw_uint(&w, reclaim);
        cf_jw_obj_end(&w);
        cf_jw_key(&w, "orphaned_blocks");
        cf_jw_arr_begin(&w);
        for (size_t i = 0; i < nb; i++) {
            const cf_kudu_block *b = cf_kudu_fs_block_at(fs, i);
            if (cf_kudu_roles_find(&roles, b->id, NULL) == NULL)
                block_json(&w, fs, b, NULL);
        }
        cf_jw_arr_end(&w);
        cf_jw_key(&w, "missing_blocks");
        cf_jw_arr_begin(&w);
        for (size_t i = 0; i < roles.n; i++) {
            const cf_kudu_role *r = &roles.v[i];
            if (cf_kudu_fs_find_block(fs, r->block_id) != NULL)
                continue;
            cf_jw_obj_begin(&w);
            cf_jw_key(&w, "block_id");
            cf_jw_uint(&w, r->block_id);
            cf_jw_key(&w, "tablet_id");
            cf_jw_cstr(&w, r->tablet_id);
            cf_jw_key(&w, "rowset_id");
            cf_jw_uint(&w, r->rowset_id);
            cf_jw_key(&w, "kind");
            cf_jw_cstr(&w, cf_kudu_block_kind_name(r->kind));
            cf_jw_obj_end(&w);
        }
        cf_jw_arr_end(&w);
        cf_jw_key(&w, "problems");
        cf_jw_arr_begin(&w);
        for (size_t i = 0; i < np; i++) {
            const cf_kudu_problem *p = cf_kudu_fs_problem_at(fs, i);
            cf_jw_obj_begin(&w);
            cf_jw_key(&w, "path");
            cf_jw_cstr(&w, p->path);
            cf_jw_key(&w, "offset");
            if (p->has_offset)
                cf_jw_uint(&w, p->offset);
            else
                cf_jw_null(&w);
            cf_jw_key(&w, "what");
            cf_jw_cstr(&w, p->what);
            cf_jw_obj_end(&w);
        }
        for (size_t i = 0; i < roles.nfailed; i++) {
            cf_jw_obj_begin(&w);
            cf_jw_key(&w, "path");
            cf_jw_cstr(&w, roles.failed[i].tablet_id);
            cf_jw_key(&w, "offset");
            cf_jw_null(&w);
            cf_jw_key(&w, "what");
            cf_jw_cstr(&w, roles.failed[i].msg);
            cf_jw_obj_end(&w);
        }
        cf_jw_arr_end(&w);
        cf_jw_key(&w, "containers");
        cf_jw_arr_begin(&w);
        for (size_t i = 0; i < nc; i++) {
            const cf_kudu_container *ct = cf_kudu_fs_container_at(fs, i);
            if (!ct->full && !ct->dead && !ct->incomplete && !ct->torn_metadata &&
                ct->reclaimable == 0)
                continue;
            cf_jw_obj_begin(&w);
            cf_jw_key(&w, "container");
            cf_jw_cstr(&w, ct->id);
            cf_jw_key(&w, "data_dir");
            cf_jw_cstr(&w, data_dir_name(fs, ct->data_dir));
            cf_jw_key(&w, "full");
            cf_jw_bool(&w, ct->full);
            cf_jw_key(&w, "dead");
            cf_jw_bool(&w, ct->dead);
            cf_jw_key(&w, "incomplete");
            cf_jw_bool(&w, ct->incomplete);
            cf_jw_key(&w, "torn_metadata");
            cf_jw_bool(&w, ct->torn_metadata);
            cf_jw_key(&w, "live_blocks");
            cf_jw_uint(&w, ct->live_blocks);
            cf_jw_key(&w, "reclaimable_bytes");
            cf_jw_uint(&w, ct->reclaimable);
            cf_jw_obj_end(&w);
        }
        cf_jw_arr_end(&w);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else {
        FILE *o = c->out;
        fprintf(o, "Block manager report\n--------------------\n");
        fprintf(o, "fs uuid: %s (%s block manager)%s\n", cf_kudu_fs_uuid(fs), lbm ? "log" : "file",
                cf_kudu_fs_locked(fs) ? ", LOCKED by a running server" : "");
        fprintf(o, "%zu data director%s, %zu tablet%s\n", cf_kudu_fs_data_dir_count(fs),
                cf_kudu_fs_data_dir_count(fs) == 1 ? "y" : "ies", cf_kudu_fs_tablet_count(fs),
                cf_kudu_fs_tablet_count(fs) == 1 ? "" : "s");
        fprintf(o, "Total live blocks: %zu\nTotal live bytes: %" PRIu64 "\n", nb, live_bytes);
        if (lbm)
            fprintf(o,
                    "Total number of LBM containers: %zu (%zu full, %zu dead, %zu incomplete, "
                    "%zu with torn metadata)\n",
                    nc, full, dead, incomplete, torn);
        fprintf(o, "Total reclaimable bytes: %" PRIu64 "\n", reclaim);
        fprintf(o, "Orphaned blocks: %zu (%" PRIu64 " bytes)\n", orphans, orphan_bytes);
        for (size_t i = 0; i < nb; i++) {
            const cf_kudu_block *b = cf_kudu_fs_block_at(fs, i);
            if (cf_kudu_roles_find(&roles, b->id, NULL) == NULL)
                fprintf(o, "  orphaned block %" PRIu64 " (%" PRIu64 " bytes) in %s\n", b->id,
                        b->length, b->path);
        }
        fprintf(o, "Missing blocks: %zu\n", missing);
        for (size_t i = 0; i < roles.n; i++) {
            const cf_kudu_role *r = &roles.v[i];
            if (cf_kudu_fs_find_block(fs, r->block_id) == NULL)
                fprintf(o, "  missing block %" PRIu64 ": tablet %s rowset %" PRIu64 " %s\n",
                        r->block_id, r->tablet_id, r->rowset_id, cf_kudu_block_kind_name(r->kind));
        }
        fprintf(o, "Damage: %zu\n", np + roles.nfailed + shared);
        for (size_t i = 0; i < np; i++) {
            const cf_kudu_problem *p = cf_kudu_fs_problem_at(fs, i);
            if (p->has_offset)
                fprintf(o, "  %s at offset %" PRIu64 ": %s\n", p->path, p->offset, p->what);
            else
                fprintf(o, "  %s: %s\n", p->path, p->what);
        }
        for (size_t i = 0; i < roles.nfailed; i++)
            fprintf(o, "  tablet %s: %s\n", roles.failed[i].tablet_id, roles.failed[i].msg);
        if (shared > 0)
            for (size_t i = 0; i < nb; i++) {
                const cf_kudu_block *b = cf_kudu_fs_block_at(fs, i);
                size_t k;
                if (cf_kudu_roles_find(&roles, b->id, &k) != NULL && k > 1)
                    fprintf(o, "  block %" PRIu64 " is named by %zu superblock roles\n", b->id, k);
            }
        if (dead + incomplete + torn > 0)
            fprintf(o, "Containers Kudu cleans up at startup (not damage):\n");
        for (size_t i = 0; i < nc; i++) {
            const cf_kudu_container *ct = cf_kudu_fs_container_at(fs, i);
            if (ct->dead)
                fprintf(o, "  dead container %s (Kudu removes it at startup)\n", ct->id);
            else if (ct->incomplete)
                fprintf(o, "  incomplete container %s\n", ct->id);
            if (ct->torn_metadata)
                fprintf(o, "  %s: torn last record (Kudu truncates it at startup)\n",
                        ct->metadata_path);
        }
        fprintf(o, "%s\n", damage ? "DAMAGE FOUND (nothing was repaired)" : "OK");
    }
    cf_kudu_roles_free(&roles);
    return damage ? CF_EXIT_FAIL : CF_EXIT_OK;
}

/* ---- dump ----------------------------------------------------------------------------------- */

static int open_block(cf_cli *c, const cf_kudu_fs *fs, const char *text, cf_io **io, char *name,
                      size_t cap)
{
    uint64_t id;
    if (cf_cli_parse_u64(text, &id) != 0)
        return cf_cli_usage(c, "not a block id: %s", text);
    cf_error e = {0};
    cf_status st = cf_kudu_fs_open_block(fs, id, false, io, &e);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, "kudu fs dump", st, &e);
    const cf_kudu_block *b = cf_kudu_fs_find_block(fs, id);
    if (b->container != NULL)
        snprintf(name, cap, "block %" PRIu64 " (%s at offset %" PRIu64 ")", id, b->path, b->offset);
    else
        snprintf(name, cap, "block %" PRIu64 " (%s)", id, b->path);
    return 0;
}

static int dump_bytes(cf_cli *c, cf_io *io, bool hex, const char *name)
{
    uint8_t buf[65536];
    uint64_t size = io->ops->size(io);
    for (uint64_t off = 0; off < size;) {
        size_t n = size - off < sizeof buf ? (size_t)(size - off) : sizeof buf;
        cf_error e = {0};
        cf_status st = io->ops->read_at(io, off, buf, n, &e);
        if (st != CF_OK)
            return cf_cli_lib_fail(c, name, st, &e);
        if (!hex) {
            fwrite(buf, 1, n, c->out);
        } else {
            for (size_t i = 0; i < n; i += 16) {
                fprintf(c->out, "%08" PRIx64 ":", off + i);
                for (size_t j = i; j < i + 16 && j < n; j++)
                    fprintf(c->out, "%s%02x", (j - i) % 2 == 0 ? " " : "", buf[j]);
                fputc('\n', c->out);
            }
        }
        off += n;
    }
    return CF_EXIT_OK;
}

static int dump_tree(cf_cli *c, cf_io *io, bool json, const char *name)
{
    cf_reader_options o;
    cf_reader_options_init(&o);
    o.verify_checksums = true;
    cf_reader *r = NULL;
    cf_error e = {0};
    cf_status st = cf_reader_open(&r, io, &o, &e);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, name, st, &e);
    cf_blk_list l = {0};
    size_t damaged = 0;
    st = cf_cli_verify(r, cf_blocks_collect, &l, &damaged, &e);
    int rc = CF_EXIT_OK;
    if (st != CF_OK || l.oom) {
        rc = l.oom ? cf_cli_fail(c, "%s: out of memory", name) : cf_cli_lib_fail(c, name, st, &e);
        goto out;
    }
    if (json) {
        cf_jw w;
        cf_jw_init(&w, c->out);
        cf_jw_obj_begin(&w);
        cf_blocks_json(&w, &l);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else {
        /* The trees as verify walks them: each index block indented by its level. */
        for (size_t i = 0; i < l.n; i++) {
            const cf_blk *b = &l.v[i];
            bool index = strstr(b->kind, "index") != NULL;
            unsigned indent = index ? b->index_level : 0;
            if (!index) {
                for (size_t j = i; j-- > 0;)
                    if (strstr(l.v[j].kind, "index") != NULL) {
                        indent = l.v[j].index_level + 1;
                        break;
                    }
            }
            fprintf(c->out, "%*s%s at offset %" PRIu64 ", %u bytes", (int)indent * 2, "", b->kind,
                    b->off, b->size);
            if (index)
                fprintf(c->out, ": %u entries\n", b->index_entries);
            else
                fprintf(c->out, ": rows %" PRIu64 "..%" PRIu64 "\n", b->first_ord,
                        b->first_ord + b->rows);
            if (b->msg != NULL)
                fprintf(c->out, "%*s  DAMAGED: %s\n", (int)indent * 2, "", b->msg);
        }
    }
    if (damaged > 0)
        rc = CF_EXIT_FAIL;
out:
    cf_blk_list_dispose(&l);
    cf_reader_free(r);
    return rc;
}

/* The names in a directory, sorted (readdir's order is the filesystem's). */
static int name_cmp(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* One directory of `kudu fs dump tree` (fs_manager.cc DumpFileSystemTree): each
 * entry on a line after `prefix`, a directory with a "/" and its entries under it
 * with "---" more. Links are printed with their target and not entered, so a link
 * loop ends; depth is capped for the same reason. */
static void fs_tree_dir(cf_cli *c, const char *path, const char *prefix, int depth)
{
    DIR *d = opendir(path);
    if (d == NULL)
        return;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            char **p = realloc(names, cap * sizeof *p);
            if (p == NULL)
                break;
            names = p;
        }
        if ((names[n] = strdup(e->d_name)) == NULL)
            break;
        n++;
    }
    closedir(d);
    if (n > 1)
        qsort(names, n, sizeof *names, name_cmp);
    for (size_t i = 0; i < n; i++) {
        size_t plen = strlen(path) + 1 + strlen(names[i]) + 1;
        char *sub = malloc(plen);
        if (sub == NULL)
            break;
        snprintf(sub, plen, "%s/%s", path, names[i]);
        struct stat sb;
        if (lstat(sub, &sb) == 0 && S_ISLNK(sb.st_mode)) {
            char target[4096];
            ssize_t k = readlink(sub, target, sizeof target - 1);
            target[k > 0 ? k : 0] = '\0';
            fprintf(c->out, "%s%s -> %s\n", prefix, names[i], target);
        } else if (S_ISDIR(sb.st_mode) && depth < 32) {
            fprintf(c->out, "%s%s/\n", prefix, names[i]);
            size_t qlen = strlen(prefix) + 4;
            char *deeper = malloc(qlen);
            if (deeper != NULL) {
                snprintf(deeper, qlen, "%s---", prefix);
                fs_tree_dir(c, sub, deeper, depth + 1);
                free(deeper);
            }
        } else {
            fprintf(c->out, "%s%s\n", prefix, names[i]);
        }
        free(sub);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Every root once, in Kudu's order: the WAL root, the metadata root, the data roots. */
static void fs_tree(cf_cli *c, const cf_kudu_fs *fs)
{
    size_t nd = cf_kudu_fs_data_dir_count(fs);
    const char **roots = calloc(nd + 2, sizeof *roots);
    if (roots == NULL)
        return;
    size_t n = 0;
    roots[n++] = cf_kudu_fs_wal_dir(fs);
    roots[n++] = cf_kudu_fs_metadata_dir(fs);
    for (size_t i = 0; i < nd; i++)
        roots[n++] = cf_kudu_fs_data_dir_at(fs, i);
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t j = 0; j < i; j++)
            seen = seen || strcmp(roots[i], roots[j]) == 0;
        if (seen)
            continue;
        fprintf(c->out, "File-System Root: %s\n", roots[i]);
        fs_tree_dir(c, roots[i], "|-", 0);
    }
    free(roots);
}

static int fs_dump(cf_cli *c, fs_args *a, const cf_kudu_fs *fs, const char *what)
{
    if (strcmp(what, "uuid") == 0) {
        if (a->nargs != 0)
            return cf_cli_usage(c, "dump uuid takes no BLOCK_ID");
        if (a->json)
            fprintf(c->out, "{\"uuid\":\"%s\"}\n", cf_kudu_fs_uuid(fs));
        else
            fprintf(c->out, "%s\n", cf_kudu_fs_uuid(fs));
        return CF_EXIT_OK;
    }
    bool block = strcmp(what, "block") == 0, cfile = strcmp(what, "cfile") == 0,
         tree = strcmp(what, "tree") == 0;
    if (!block && !cfile && !tree)
        return cf_cli_usage(c, "dump what? uuid, block, cfile or tree, not '%s'", what);
    if (tree && a->nargs == 0) {
        fs_tree(c, fs);
        return CF_EXIT_OK;
    }
    if (a->nargs != 1)
        return cf_cli_usage(c, "dump %s needs one BLOCK_ID", what);
    cf_io *io = NULL;
    char name[512];
    int rc = open_block(c, fs, a->args[0], &io, name, sizeof name);
    if (rc != 0)
        return rc;
    if (block) {
        rc = dump_bytes(c, io, a->hex, name);
    } else if (tree) {
        rc = dump_tree(c, io, a->json, name);
    } else {
        cf_cli sub = *c;
        sub.cmd = "kudu fs dump cfile";
        cf_cli_getopt_reset();
        rc = cf_cmd_dump_io(&sub, a->dump_argc, a->dump_argv, io, name);
    }
    cf_io_free(io);
    return rc;
}

int cf_cmd_kudu_fs(cf_cli *c, int argc, char **argv)
{
    cf_cli sub = *c;
    sub.usage = fs_usage;
    sub.cmd = "kudu fs";
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
        rc = fs_list(&sub, &a, fs);
    else if (check)
        rc = fs_check(&sub, &a, fs);
    else
        rc = fs_dump(&sub, &a, fs, what);
    cf_kudu_fs_free(fs);
out:
    cf_kudu_args_free(&a.fs);
    return rc;
}

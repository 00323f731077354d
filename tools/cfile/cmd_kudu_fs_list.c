/* cfile kudu fs list: every live block with its place and its role from the
 * superblocks, as `kudu fs list` shows them (tool_action_fs.cc); the damage that
 * loading met goes to stderr and makes the exit 1. */
#include <inttypes.h>
#include <string.h>

#include "kudu_fs_cmd.h"

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

int cf_kudu_fs_cmd_list(cf_cli *c, fs_args *a, const cf_kudu_fs *fs)
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
        cf_jw_kv_arr_begin(&w, "blocks");
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
            cf_kudu_fs_cmd_block_json(&w, fs, b, role);
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

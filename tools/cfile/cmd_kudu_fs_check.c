/* cfile kudu fs check: the report `kudu fs check` gives (tool_action_fs.cc,
 * fs_report.cc), without ever repairing: orphans, missing blocks, damaged, full,
 * dead and incomplete containers, torn metadata, reclaimable space. */
#include <inttypes.h>
#include <string.h>

#include "kudu_fs_cmd.h"

int cf_kudu_fs_cmd_check(cf_cli *c, fs_args *a, const cf_kudu_fs *fs)
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
        cf_jw_kv_cstr(&w, "fs_uuid", cf_kudu_fs_uuid(fs));
        cf_jw_kv_cstr(&w, "block_manager", lbm ? "log" : "file");
        cf_jw_kv_bool(&w, "locked", cf_kudu_fs_locked(fs));
        cf_jw_kv_bool(&w, "damage", damage);
        cf_jw_kv_obj_begin(&w, "stats");
        cf_jw_kv_uint(&w, "live_blocks", nb);
        cf_jw_kv_uint(&w, "live_bytes", live_bytes);
        cf_jw_kv_uint(&w, "tablets", cf_kudu_fs_tablet_count(fs));
        cf_jw_kv_uint(&w, "containers", nc);
        cf_jw_kv_uint(&w, "full_containers", full);
        cf_jw_kv_uint(&w, "dead_containers", dead);
        cf_jw_kv_uint(&w, "incomplete_containers", incomplete);
        cf_jw_kv_uint(&w, "torn_metadata", torn);
        cf_jw_kv_uint(&w, "orphaned_blocks", orphans);
        cf_jw_kv_uint(&w, "orphaned_bytes", orphan_bytes);
        cf_jw_kv_uint(&w, "missing_blocks", missing);
        cf_jw_kv_uint(&w, "reclaimable_bytes", reclaim);
        cf_jw_obj_end(&w);
        cf_jw_kv_arr_begin(&w, "orphaned_blocks");
        for (size_t i = 0; i < nb; i++) {
            const cf_kudu_block *b = cf_kudu_fs_block_at(fs, i);
            if (cf_kudu_roles_find(&roles, b->id, NULL) == NULL)
                cf_kudu_fs_cmd_block_json(&w, fs, b, NULL);
        }
        cf_jw_arr_end(&w);
        cf_jw_kv_arr_begin(&w, "missing_blocks");
        for (size_t i = 0; i < roles.n; i++) {
            const cf_kudu_role *r = &roles.v[i];
            if (cf_kudu_fs_find_block(fs, r->block_id) != NULL)
                continue;
            cf_jw_obj_begin(&w);
            cf_jw_kv_uint(&w, "block_id", r->block_id);
            cf_jw_kv_cstr(&w, "tablet_id", r->tablet_id);
            cf_jw_kv_uint(&w, "rowset_id", r->rowset_id);
            cf_jw_kv_cstr(&w, "kind", cf_kudu_block_kind_name(r->kind));
            cf_jw_obj_end(&w);
        }
        cf_jw_arr_end(&w);
        cf_jw_kv_arr_begin(&w, "problems");
        for (size_t i = 0; i < np; i++) {
            const cf_kudu_problem *p = cf_kudu_fs_problem_at(fs, i);
            cf_jw_obj_begin(&w);
            cf_jw_kv_cstr(&w, "path", p->path);
            cf_jw_kv_opt_uint(&w, "offset", p->has_offset, p->offset);
            cf_jw_kv_cstr(&w, "what", p->what);
            cf_jw_obj_end(&w);
        }
        for (size_t i = 0; i < roles.nfailed; i++) {
            cf_jw_obj_begin(&w);
            cf_jw_kv_cstr(&w, "path", roles.failed[i].tablet_id);
            cf_jw_kv_null(&w, "offset");
            cf_jw_kv_cstr(&w, "what", roles.failed[i].msg);
            cf_jw_obj_end(&w);
        }
        cf_jw_arr_end(&w);
        cf_jw_kv_arr_begin(&w, "containers");
        for (size_t i = 0; i < nc; i++) {
            const cf_kudu_container *ct = cf_kudu_fs_container_at(fs, i);
            if (!ct->full && !ct->dead && !ct->incomplete && !ct->torn_metadata &&
                ct->reclaimable == 0)
                continue;
            cf_jw_obj_begin(&w);
            cf_jw_kv_cstr(&w, "container", ct->id);
            cf_jw_kv_cstr(&w, "data_dir", cf_kudu_fs_cmd_data_dir(fs, ct->data_dir));
            cf_jw_kv_bool(&w, "full", ct->full);
            cf_jw_kv_bool(&w, "dead", ct->dead);
            cf_jw_kv_bool(&w, "incomplete", ct->incomplete);
            cf_jw_kv_bool(&w, "torn_metadata", ct->torn_metadata);
            cf_jw_kv_uint(&w, "live_blocks", ct->live_blocks);
            cf_jw_kv_uint(&w, "reclaimable_bytes", ct->reclaimable);
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

/* `cfile table create`, `insert`, `update`, `delete`, `flush` and `compact`: the
 * subcommands that change a table, each holding its writer lock. */
#include "cli.h"
#include "table_args.h"
#include "table_cmd.h"

#include <cfile/rowset.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- create / import ---------------------------------------------------------------------------
 */

int cf_cmd_table_create(cf_cli *c, const char *dir, cf_table_args *t)
{
    if (t->schema == NULL)
        return cf_cli_usage(c, "create needs --schema");
    cf_error e;
    cf_schema *s;
    cf_status st = cf_schema_parse(&s, t->schema, &e);
    if (st != CF_OK)
        return cf_cli_usage(c, "%s", e.msg);
    /* The writer checks under the table's lock that dir holds no table (an
     * empty one-rowset table may be replaced, as before). */
    cf_rowset_writer_options wo;
    cf_rowset_writer_options_init(&wo);
    wo.lock_timeout_ms = t->lock_ms;
    cf_rowset_writer *w = NULL;
    st = cf_rowset_writer_create(&w, dir, s, &wo, &e);
    if (st == CF_OK)
        st = cf_rowset_writer_finish(w, &e);
    cf_rowset_writer_free(w);
    if (st == CF_OK && t->json) {
        char *text = cf_cli_schema_text(s);
        cf_jw jw;
        cf_jw_report_begin(&jw, c->out, "create");
        cf_jw_kv_cstr(&jw, "table", dir);
        cf_jw_kv_opt_cstr(&jw, "schema", text);
        cf_jw_obj_end(&jw);
        cf_jw_newline(&jw);
        free(text);
    }
    cf_schema_free(s);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, dir, st, &e);
    return CF_EXIT_OK;
}

/* ---- mutations --------------------------------------------------------------------------------
 */

/* An automatic merge after a committed write failed: the write stands (exit
 * 0), but say so on stderr, since the rowsets it should have merged remain and
 * the next flush retries. */
static void warn_compaction(cf_cli *c, const cf_table *tb)
{
    cf_error e;
    if (cf_table_compaction_status(tb, &e) != CF_OK)
        fprintf(c->err, "cfile: warning: %s (the write itself is committed)\n", e.msg);
}

/* Flush, then say what was done: "<what> 1 row at ts N", or with --json
 * {"op": "insert"|"update"|"delete", "rows": 1, "ts": N}. */
static int finish_mutation(cf_cli *c, cf_table *rs, const char *op, const char *what, uint64_t ts,
                           bool json)
{
    /* The op is in the write-ahead log (synced): no flush per command. */
    cf_error e;
    cf_status st = cf_table_sync(rs, &e);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, "sync", st, &e);
    warn_compaction(c, rs);
    if (json) {
        cf_jw w;
        cf_jw_report_begin(&w, c->out, op);
        cf_jw_kv_uint(&w, "rows", 1);
        cf_jw_kv_uint(&w, "ts", ts);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else {
        fprintf(c->out, "%s 1 row at ts %" PRIu64 "\n", what, ts);
    }
    return CF_EXIT_OK;
}

int cf_cmd_table_insert(cf_cli *c, const char *dir, cf_table_args *t)
{
    if (t->row == NULL)
        return cf_cli_usage(c, "insert needs --row");
    cf_table *tb;
    int rc = cf_cli_table_open(c, dir, t, true, &tb);
    if (rc)
        return rc;
    const cf_schema *s = cf_table_schema(tb);
    cf_cli_arena a;
    cf_cli_arena_init(&a);
    cf_column_change *ch = NULL;
    const void *vals[CF_SCHEMA_MAX_COLUMNS] = {0};
    bool set[CF_SCHEMA_MAX_COLUMNS] = {0};
    size_t nch = 0;
    uint64_t ts = t->has_ts ? t->ts : cf_table_last_ts(tb) + 1;
    if ((rc = cf_cli_assign_parse(c, s, "--row", t->row, &ch, &nch, &a)) != 0)
        goto out;
    for (size_t i = 0; i < nch; i++) {
        if (set[ch[i].col]) {
            rc = cf_cli_usage(c, "--row: column '%s' given twice",
                              cf_schema_column_at(s, ch[i].col)->name);
            goto out;
        }
        set[ch[i].col] = true;
        vals[ch[i].col] = ch[i].value;
    }
    for (size_t i = 0; i < cf_schema_column_count(s); i++) {
        const cf_column *cd = cf_schema_column_at(s, i);
        if (!set[i] && !cd->nullable) {
            rc = cf_cli_usage(c, "--row: no value for column '%s'", cd->name);
            goto out;
        }
    }
    cf_error e;
    cf_status st = cf_table_insert(tb, vals, ts, &e);
    if (st != CF_OK) {
        rc = cf_cli_lib_fail(c, dir, st, &e);
        goto out;
    }
    rc = finish_mutation(c, tb, "insert", "inserted", ts, t->json);
out:
    cf_cli_arena_dispose(&a);
    cf_table_free(tb);
    return rc;
}

int cf_cmd_table_update(cf_cli *c, const char *dir, cf_table_args *t, bool del)
{
    const char *op = del ? "delete" : "update";
    /* One row: its key by --key (documented) or as the one argument after DIR. */
    int nkeys = t->nkeys + t->npos;
    if (nkeys == 0)
        return cf_cli_usage(c, "%s needs --key KEY", op);
    if (nkeys > 1)
        return cf_cli_usage(c, "%s takes one key (--key KEY), got %d%s", op, nkeys,
                            t->npos > 0 ? " (arguments after DIR count as keys)" : "");
    const char *keytext = t->nkeys > 0 ? t->keys[0] : t->pos[0];
    if (!del && t->set == NULL)
        return cf_cli_usage(c, "update needs --set");
    cf_table *rs;
    int rc = cf_cli_table_open(c, dir, t, true, &rs);
    if (rc)
        return rc;
    const cf_schema *s = cf_table_schema(rs);
    cf_cli_arena a;
    cf_cli_arena_init(&a);
    const void **key;
    cf_column_change *ch = NULL;
    size_t nch = 0;
    uint64_t ts = t->has_ts ? t->ts : cf_table_last_ts(rs) + 1;
    cf_error e;
    cf_status st;
    if ((rc = cf_cli_key_parse(c, s, keytext, &key, &a)) != 0)
        goto out;
    if (del) {
        st = cf_table_delete(rs, key, ts, &e);
    } else {
        if ((rc = cf_cli_assign_parse(c, s, "--set", t->set, &ch, &nch, &a)) != 0)
            goto out;
        st = cf_table_update(rs, key, ch, nch, ts, &e);
    }
    if (st != CF_OK) {
        rc = cf_cli_lib_fail(c, keytext, st, &e);
        goto out;
    }
    rc =
        finish_mutation(c, rs, del ? "delete" : "update", del ? "deleted" : "updated", ts, t->json);
out:
    cf_cli_arena_dispose(&a);
    cf_table_free(rs);
    return rc;
}

int cf_cmd_table_flush(cf_cli *c, const char *dir, const cf_table_args *t)
{
    cf_table *tb;
    int rc = cf_cli_table_open(c, dir, t, true, &tb);
    if (rc)
        return rc;
    cf_error e;
    size_t rows = cf_table_mrs_rows(tb);
    cf_status st = cf_table_flush(tb, &e);
    if (st != CF_OK)
        rc = cf_cli_lib_fail(c, "flush", st, &e);
    else if (t->json) {
        cf_jw w;
        cf_jw_report_begin(&w, c->out, "flush");
        cf_jw_kv_cstr(&w, "table", dir);
        cf_jw_kv_uint(&w, "rows", rows);
        cf_jw_kv_uint(&w, "rowsets", cf_table_rowset_count(tb));
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
        warn_compaction(c, tb);
    } else {
        fprintf(c->out, "flushed %s: %zu MemRowSet rows, %zu rowsets\n", dir, rows,
                cf_table_rowset_count(tb));
        warn_compaction(c, tb);
    }
    cf_table_free(tb);
    return rc;
}

int cf_cmd_table_compact(cf_cli *c, const char *dir, cf_table_args *t)
{
    cf_table *tb;
    int rc = cf_cli_table_open(c, dir, t, true, &tb);
    if (rc)
        return rc;
    cf_error e;
    cf_status st = cf_table_compact(tb, t->ahm, &e);
    if (st == CF_OK) /* its delta counts: the output's files are opened at first use */
        st = cf_rowset_load(cf_table_rowset_at(tb, 0, NULL), &e);
    if (st != CF_OK)
        rc = cf_cli_lib_fail(c, "compact", st, &e);
    else {
        cf_rowset_info info;
        cf_rowset_get_info(cf_table_rowset_at(tb, 0, NULL), &info);
        if (t->json) {
            cf_jw w;
            cf_jw_report_begin(&w, c->out, "compact");
            cf_jw_kv_cstr(&w, "table", dir);
            cf_jw_kv_uint(&w, "rows", info.rows);
            cf_jw_kv_uint(&w, "undo_deltas", info.undo_deltas);
            cf_jw_kv_uint(&w, "redo_deltas", info.redo_deltas);
            cf_jw_kv_uint(&w, "generation", info.generation);
            cf_jw_obj_end(&w);
            cf_jw_newline(&w);
        } else {
            fprintf(c->out,
                    "compacted %s: %" PRIu64 " rows, %" PRIu64 " undo and %" PRIu64
                    " redo deltas, generation %" PRIu64 "\n",
                    dir, info.rows, info.undo_deltas, info.redo_deltas, info.generation);
        }
    }
    cf_table_free(tb);
    return rc;
}

/* `cfile table info`: a table's rowsets, their files and sizes (text or JSON),
 * and with --svg a picture of them (svg.h). */
#include "cli.h"
#include "svg.h"
#include "table_args.h"
#include "table_cmd.h"

#include <cfile/rowset.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The rows a scan of the latest snapshot returns: the stored counts include
 * deleted rows and leave out the MemRowSet's (replayed from the log), so only
 * a scan can tell. It reads the first key column alone (the scan merges the
 * stores by key, which it reads anyway). */
static cf_status live_rows(cf_table *t, uint64_t *n, cf_error *err)
{
    *n = 0;
    const cf_schema *s = cf_table_schema(t);
    size_t col = 0;
    while (col < cf_schema_column_count(s) && !cf_schema_column_at(s, col)->is_key)
        col++;
    cf_scan_options o;
    cf_scan_options_init(&o);
    o.cols = &col;
    o.ncols = 1;
    cf_table_scanner *sc;
    cf_status st = cf_table_scanner_create(&sc, t, &o, err);
    if (st != CF_OK)
        return st;
    for (;;) {
        cf_row_batch b;
        st = cf_table_scanner_next(sc, &b, err);
        if (st != CF_OK || b.count == 0)
            break;
        *n += b.count;
    }
    cf_table_scanner_free(sc);
    return st;
}

/* ---- info -------------------------------------------------------------------------------------
 */

static void hex(FILE *f, cf_slice s)
{
    for (size_t i = 0; i < s.len; i++)
        fprintf(f, "%02x", s.data[i]);
}

/* dir/name, or name alone when dir is "." or NULL; malloc'd (NULL when out of memory). */
static char *path_join(const char *dir, const char *name)
{
    bool bare = dir == NULL || strcmp(dir, ".") == 0;
    size_t n = (bare ? 0 : strlen(dir) + 1) + strlen(name) + 1;
    char *p = malloc(n);
    if (p != NULL)
        snprintf(p, n, "%s%s%s", bare ? "" : dir, bare ? "" : "/", name);
    return p;
}

static void info_rowset_json(cf_jw *w, cf_rowset *rs, const char *rsname)
{
    cf_rowset_info info;
    cf_rowset_get_info(rs, &info);
    const char *name, *role;
    cf_jw_kv_uint(w, "stored_rows", info.rows); /* deleted ones included; "rows" is the table's */
    cf_jw_kv_uint(w, "generation", info.generation);
    cf_jw_kv_uint(w, "insert_ts", info.insert_ts);
    cf_jw_kv_uint(w, "last_ts", info.last_ts);
    cf_jw_key(w, "min_key");
    cf_jw_hex(w, info.min_key.data, info.min_key.len);
    cf_jw_key(w, "max_key");
    cf_jw_hex(w, info.max_key.data, info.max_key.len);
    cf_jw_kv_uint(w, "redo_deltas", info.redo_deltas);
    cf_jw_kv_uint(w, "undo_deltas", info.undo_deltas);
    cf_jw_kv_arr_begin(w, "files");
    for (size_t i = 0; cf_rowset_file_at(rs, i, &name, &role); i++) {
        char *rel = path_join(rsname, name);
        cf_jw_obj_begin(w);
        cf_jw_kv_cstr(w, "name", rel ? rel : name);
        cf_jw_kv_cstr(w, "role", role);
        cf_jw_obj_end(w);
        free(rel);
    }
    cf_jw_arr_end(w);
}

static void info_rowset_text(FILE *o, const char *dir, cf_rowset *rs, const char *rsname,
                             const char *ind)
{
    cf_rowset_info info;
    cf_rowset_get_info(rs, &info);
    const char *name, *role;
    fprintf(o,
            "%sstored rows: %" PRIu64 "\n%sgeneration:  %" PRIu64 "\n%sinsert ts:   %" PRIu64
            "\n%slast ts:     %" PRIu64 "\n",
            ind, info.rows, ind, info.generation, ind, info.insert_ts, ind, info.last_ts);
    fprintf(o, "%smin key:     ", ind);
    hex(o, info.min_key);
    fprintf(o, "\n%smax key:     ", ind);
    hex(o, info.max_key);
    fprintf(o, "\n%sdeltas:      %" PRIu64 " redo in %zu files, %" PRIu64 " undo in %zu files\n",
            ind, info.redo_deltas, info.redo_files, info.undo_deltas, info.undo_files);
    if (info.dms_deltas > 0)
        fprintf(o, "%s             %" PRIu64 " more in the log, not yet flushed\n", ind,
                info.dms_deltas);
    fprintf(o, "%sfiles:\n", ind);
    for (size_t i = 0; cf_rowset_file_at(rs, i, &name, &role); i++) {
        struct stat sb;
        char *rel = path_join(rsname, name);
        char *path = rel ? path_join(dir, rel) : NULL;
        long long sz = path && stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
        fprintf(o, "%s  %-7s %-24s %12lld bytes\n", ind, role, rel ? rel : name, sz);
        free(rel);
        free(path);
    }
}

/* One rowset: the rowset's fields at the top level (the one-rowset layout's
 * form). Several: the table's totals, then each rowset. */
int cf_cmd_table_info(cf_cli *c, const char *dir, cf_table_args *t)
{
    cf_table *tb;
    int rc = cf_cli_table_open(c, dir, t, false, &tb);
    if (rc)
        return rc;
    const cf_schema *s = cf_table_schema(tb);
    size_t nrs = cf_table_rowset_count(tb);
    /* The delta counts come from the delta files' footers, and a reader opens
     * a rowset's files at first use: open them all (this also checks them). */
    for (size_t i = 0; i < nrs; i++) {
        cf_error e;
        cf_status st = cf_rowset_load(cf_table_rowset_at(tb, i, NULL), &e);
        if (st != CF_OK) {
            cf_table_free(tb);
            return cf_cli_lib_fail(c, "info", st, &e);
        }
    }
    uint64_t rows;
    cf_error rerr;
    cf_status rst = live_rows(tb, &rows, &rerr);
    if (rst != CF_OK) {
        cf_table_free(tb);
        return cf_cli_lib_fail(c, "info", rst, &rerr);
    }
    const char *rsname;
    char *schema = cf_cli_schema_text(s);
    if (schema == NULL) {
        cf_table_free(tb);
        return cf_cli_fail(c, "out of memory");
    }
    /* With the picture on stdout (--svg -), the report goes with the diagnostics,
     * as `cfile write`'s summary does when its OUT is '-'. */
    FILE *o = t->svg != NULL && strcmp(t->svg, "-") == 0 ? c->err : c->out;
    if (t->json) {
        cf_jw w;
        cf_jw_init(&w, o);
        cf_jw_obj_begin(&w);
        cf_jw_kv_cstr(&w, "schema", schema);
        cf_jw_kv_arr_begin(&w, "columns");
        for (size_t i = 0; i < cf_schema_column_count(s); i++) {
            const cf_column *cd = cf_schema_column_at(s, i);
            cf_jw_obj_begin(&w);
            cf_jw_kv_uint(&w, "id", i);
            cf_jw_kv_cstr(&w, "name", cd->name);
            cf_jw_kv_cstr(&w, "type", cf_cli_type_name(cd->type));
            cf_jw_kv_bool(&w, "key", cd->is_key);
            cf_jw_kv_bool(&w, "nullable", cd->nullable);
            cf_jw_kv_bool(&w, "array", cd->is_array);
            cf_jw_obj_end(&w);
        }
        cf_jw_arr_end(&w);
        /* the ancient history mark: 0 = all history kept */
        cf_jw_kv_uint(&w, "ahm", cf_table_ahm(tb));
        cf_jw_kv_uint(&w, "rows", rows); /* as a scan returns them */
        if (nrs == 1) {
            cf_rowset *rs = cf_table_rowset_at(tb, 0, &rsname);
            info_rowset_json(&w, rs, rsname);
        } else {
            cf_jw_kv_uint(&w, "last_ts", cf_table_last_ts(tb));
            cf_jw_kv_arr_begin(&w, "rowsets");
            for (size_t i = 0; i < nrs; i++) {
                cf_rowset *rs = cf_table_rowset_at(tb, i, &rsname);
                cf_jw_obj_begin(&w);
                cf_jw_kv_cstr(&w, "name", rsname);
                info_rowset_json(&w, rs, rsname);
                cf_jw_obj_end(&w);
            }
            cf_jw_arr_end(&w);
        }
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else {
        fprintf(o, "table:       %s\nschema:      %s\nrows:        %" PRIu64 "\n", dir, schema,
                rows);
        if (nrs == 1) {
            cf_rowset *rs = cf_table_rowset_at(tb, 0, &rsname);
            info_rowset_text(o, dir, rs, rsname, "");
        } else {
            fprintf(o, "last ts:     %" PRIu64 "\nrowsets:     %zu\n", cf_table_last_ts(tb), nrs);
            for (size_t i = 0; i < nrs; i++) {
                cf_rowset *rs = cf_table_rowset_at(tb, i, &rsname);
                fprintf(o, "rowset %s:\n", rsname);
                info_rowset_text(o, dir, rs, rsname, "  ");
            }
        }
        if (cf_table_mrs_rows(tb) > 0)
            fprintf(o, "memrowset:   %zu rows (in the log, not yet flushed)\n",
                    cf_table_mrs_rows(tb));
        if (cf_table_ahm(tb) > 0)
            fprintf(o,
                    "ahm:         %" PRIu64 " (history before it was discarded: reads --as-of "
                    "below it are refused)\n",
                    cf_table_ahm(tb));
    }
    free(schema);
    int rc2 = CF_EXIT_OK;
    if (t->svg != NULL) {
        cf_error e = {0};
        cf_status st = cf_svg_table(t->svg, c->out, dir, tb, &e);
        if (st != CF_OK)
            rc2 = cf_cli_lib_fail(c, t->svg, st, &e);
    }
    cf_table_free(tb);
    return rc2;
}

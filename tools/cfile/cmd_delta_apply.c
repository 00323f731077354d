/* `cfile delta apply`: the deltas visible at a snapshot applied to base values
 * (a base.json), batch by batch, as the golden files' apply.json records them. */
#include "cli.h"
#include "delta_cmd.h"
#include "values.h"

#include <cfile/delta.h>

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- apply ------------------------------------------------------------------------- */

int cf_cmd_delta_apply(cf_cli *c, int argc, char **argv)
{
    cf_cli_delta_args a;
    int prc = cf_cli_delta_parse_args(c, argc, argv, &a, true);
    if (prc != 0)
        return prc == -1 ? CF_EXIT_OK : CF_EXIT_USAGE;
    cf_json_doc sdoc, bdoc;
    cf_cli_delta_schema s = {0};
    char msg[256];
    int rc = cf_cli_delta_schema_load(c, &s, &sdoc, a.schema_path);
    bool have_base = false;
    cf_delta_reader *r = NULL;
    cf_delta_apply *ap = NULL;
    uint8_t **vals = NULL, **nn = NULL, *sel = NULL, *bsel = NULL;
    cf_error e;
    cf_status st;
    size_t rows = (size_t)a.rows, batch = (size_t)(a.batch < a.rows ? a.batch : a.rows);
    if (rc != CF_EXIT_OK)
        goto out;
    if (cf_json_parse_file(&bdoc, a.base_path, msg, sizeof(msg)) != 0) {
        cf_json_doc_dispose(&bdoc);
        rc = cf_cli_fail(c, "%s: %s", a.base_path, msg);
        goto out;
    }
    have_base = true;
    if (bdoc.root.kind != CF_JSON_OBJECT) {
        rc = cf_cli_fail(c, "%s: expected an object of columns", a.base_path);
        goto out;
    }
    /* Base values of rows [start, start+rows), in memory form. */
    vals = calloc(s.n ? s.n : 1, sizeof(*vals));
    nn = calloc(s.n ? s.n : 1, sizeof(*nn));
    sel = calloc((rows + 7) / 8, 1);
    bsel = calloc((batch + 7) / 8, 1);
    if (vals == NULL || nn == NULL || sel == NULL || bsel == NULL) {
        rc = cf_cli_fail(c, "out of memory");
        goto out;
    }
    for (size_t k = 0; k < s.n; k++) {
        size_t wdt = cf_type_size(s.cols[k].type);
        vals[k] = calloc(rows, wdt);
        nn[k] = calloc((rows + 7) / 8, 1);
        if (vals[k] == NULL || nn[k] == NULL) {
            rc = cf_cli_fail(c, "out of memory");
            goto out;
        }
        const cf_json *col = cf_json_get(&bdoc.root, s.cols[k].name);
        for (size_t i = 0; i < rows; i++) {
            size_t src = (size_t)a.start + i;
            bool is_null = s.cols[k].nullable;
            if (col != NULL && col->kind == CF_JSON_ARRAY && src < col->n) {
                if (cf_cli_value_parse_col(&col->items[src], s.cols[k].type, s.cols[k].precision,
                                           s.cols[k].scale, vals[k] + i * wdt, &is_null,
                                           &bdoc.arena, msg, sizeof(msg)) != 0) {
                    rc = cf_cli_fail(c, "%s: column %s row %zu: %s", a.base_path, s.cols[k].name,
                                     src, msg);
                    goto out;
                }
            } else if (cf_type_is_binary(s.cols[k].type)) {
                cf_slice empty = {(const uint8_t *)"", 0};
                memcpy(vals[k] + i * wdt, &empty, sizeof(empty));
            }
            if (!is_null)
                nn[k][i / 8] |= (uint8_t)(1u << (i % 8));
        }
    }
    bool culled = false;
    if ((st = cf_delta_reader_open_file(&r, a.file, a.type, NULL, &e)) != CF_OK ||
        (st = cf_delta_apply_create(&ap, r, s.cols, s.n, a.snapshot, &culled, &e)) != CF_OK ||
        (st = cf_delta_apply_seek(ap, (uint32_t)a.start, &e)) != CF_OK) {
        rc = cf_cli_lib_fail(c, a.file, st, &e);
        goto out;
    }
    memset(sel, 0xff, (rows + 7) / 8);
    /* Binary values from the deltas live in the applier only until its next
     * prepare: copy them, since the output is written after the last batch. */
    cf_cli_arena keep;
    cf_cli_arena_init(&keep);
    for (size_t done = 0; done < rows; done += batch) {
        size_t n = rows - done < batch ? rows - done : batch;
        if ((st = cf_delta_apply_prepare(ap, n, &e)) != CF_OK) {
            cf_cli_arena_dispose(&keep);
            rc = cf_cli_lib_fail(c, a.file, st, &e);
            goto out;
        }
        for (size_t k = 0; k < s.n && st == CF_OK; k++) {
            size_t wdt = cf_type_size(s.cols[k].type);
            uint8_t *tmpn = calloc((n + 7) / 8, 1);
            if (tmpn == NULL) {
                st = CF_ENOMEM;
                break;
            }
            for (size_t i = 0; i < n; i++)
                if (nn[k][(done + i) / 8] >> ((done + i) % 8) & 1)
                    tmpn[i / 8] |= (uint8_t)(1u << (i % 8));
            st = cf_delta_apply_updates(ap, k, vals[k] + done * wdt, tmpn, &e);
            for (size_t i = 0; i < n; i++) {
                size_t j = done + i;
                if (tmpn[i / 8] >> (i % 8) & 1)
                    nn[k][j / 8] |= (uint8_t)(1u << (j % 8));
                else
                    nn[k][j / 8] &= (uint8_t) ~(1u << (j % 8));
            }
            free(tmpn);
            if (st == CF_OK && cf_type_is_binary(s.cols[k].type)) {
                for (size_t i = 0; i < n; i++) {
                    cf_slice *sl = (cf_slice *)(void *)(vals[k] + (done + i) * wdt);
                    if (sl->len == 0)
                        continue;
                    uint8_t *cp = cf_cli_arena_alloc(&keep, sl->len);
                    if (cp == NULL) {
                        st = CF_ENOMEM;
                        break;
                    }
                    memcpy(cp, sl->data, sl->len);
                    sl->data = cp;
                }
            }
        }
        if (st == CF_OK) {
            memset(bsel, 0xff, (batch + 7) / 8);
            st = cf_delta_apply_deletes(ap, bsel, &e);
            for (size_t i = 0; i < n; i++) {
                size_t j = done + i;
                if (!(bsel[i / 8] >> (i % 8) & 1))
                    sel[j / 8] &= (uint8_t) ~(1u << (j % 8));
            }
        }
        if (st != CF_OK) {
            cf_cli_arena_dispose(&keep);
            rc = cf_cli_lib_fail(c, a.file, st, &e);
            goto out;
        }
    }
    cf_jw w;
    cf_jw_init(&w, c->out);
    cf_jw_obj_begin(&w);
    cf_jw_kv_cstr(&w, "delta_type", a.type == CF_DELTA_REDO ? "REDO" : "UNDO");
    cf_jw_kv_uint(&w, "snapshot", a.snapshot);
    cf_jw_kv_uint(&w, "start", a.start);
    cf_jw_kv_uint(&w, "rows", a.rows);
    cf_jw_kv_uint(&w, "batch", batch);
    cf_jw_kv_bool(&w, "culled_by_stats", culled);
    cf_jw_kv_arr_begin(&w, "deleted_rows");
    for (size_t i = 0; i < rows; i++)
        if (!(sel[i / 8] >> (i % 8) & 1))
            cf_jw_uint(&w, a.start + i);
    cf_jw_arr_end(&w);
    cf_jw_kv_obj_begin(&w, "columns");
    for (size_t k = 0; k < s.n; k++) {
        size_t wdt = cf_type_size(s.cols[k].type);
        cf_jw_kv_arr_begin(&w, s.cols[k].name);
        for (size_t i = 0; i < rows; i++) {
            if (nn[k][i / 8] >> (i % 8) & 1)
                cf_cli_delta_value_write(&w, s.cols[k].type, vals[k] + i * wdt);
            else
                cf_jw_null(&w);
        }
        cf_jw_arr_end(&w);
    }
    cf_jw_obj_end(&w);
    cf_jw_obj_end(&w);
    cf_jw_newline(&w);
    (void)a.json; /* the text form is the same object */
    cf_cli_arena_dispose(&keep);
out:
    cf_delta_apply_free(ap);
    cf_delta_reader_free(r);
    if (vals != NULL)
        for (size_t k = 0; k < s.n; k++)
            free(vals[k]);
    if (nn != NULL)
        for (size_t k = 0; k < s.n; k++)
            free(nn[k]);
    free(vals);
    free(nn);
    free(sel);
    free(bsel);
    free(s.cols);
    if (have_base)
        cf_json_doc_dispose(&bdoc);
    cf_json_doc_dispose(&sdoc);
    return rc;
}

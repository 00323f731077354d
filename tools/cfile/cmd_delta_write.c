/* `cfile delta write`: a DeltaFile from a spec.json of deltas in the value forms
 * of ../shared/golden-delta/README.md. */
#include "cli.h"
#include "delta_cmd.h"
#include "values.h"

#include <cfile/delta.h>

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- write ------------------------------------------------------------------------- */

/* Add one column change from its value form. */
static int add_change(cf_rcl_builder *b, const cf_delta_column *col, const cf_json *v,
                      cf_cli_arena *arena, char *msg, size_t cap)
{
    uint8_t slot[16] __attribute__((aligned(16)));
    bool is_null = false;
    if (cf_cli_value_parse_col(v, col->type, col->precision, col->scale, slot, &is_null, arena, msg,
                               cap) != 0)
        return -1;
    cf_status st;
    cf_error e;
    if (is_null) {
        if (!col->nullable) {
            snprintf(msg, cap, "column %s is not nullable", col->name);
            return -1;
        }
        st = cf_rcl_builder_add(b, col->id, NULL, 0, &e);
    } else if (cf_type_is_binary(col->type)) {
        cf_slice s;
        memcpy(&s, slot, sizeof(s));
        st = cf_rcl_builder_add(b, col->id, s.data ? s.data : (const uint8_t *)"", s.len, &e);
    } else {
        st = cf_rcl_builder_add(b, col->id, slot, cf_type_size(col->type), &e);
    }
    if (st != CF_OK) {
        snprintf(msg, cap, "%s", e.msg);
        return -1;
    }
    return 0;
}

static int build_rcl(cf_rcl_builder *b, const cf_cli_delta_schema *s, const cf_json *d,
                     cf_cli_arena *arena, cf_slice *out, uint8_t **raw, char *msg, size_t cap)
{
    const cf_json *hex = cf_json_get(d, "rcl_hex");
    if (hex != NULL) {
        if (hex->kind != CF_JSON_STRING || (*raw = malloc(hex->len / 2 + 1)) == NULL ||
            cf_cli_hex_decode(*raw, hex->str, hex->len) != 0) {
            snprintf(msg, cap, "bad \"rcl_hex\"");
            return -1;
        }
        *out = (cf_slice){*raw, hex->len / 2};
        return 0;
    }
    const cf_json *op = cf_json_get(d, "op");
    const cf_json *set = cf_json_get(d, "set");
    if (op == NULL || op->kind != CF_JSON_STRING) {
        snprintf(msg, cap, "needs \"op\" or \"rcl_hex\"");
        return -1;
    }
    if (set != NULL && set->kind != CF_JSON_OBJECT) {
        snprintf(msg, cap, "\"set\" must be an object");
        return -1;
    }
    if (strcmp(op->str, "DELETE") == 0) {
        cf_rcl_builder_reset(b, CF_RCL_DELETE);
    } else if (strcmp(op->str, "UPDATE") == 0) {
        /* Changes in the JSON order of "set" (the list keeps it). */
        cf_rcl_builder_reset(b, CF_RCL_UPDATE);
        if (set == NULL || set->n == 0) {
            snprintf(msg, cap, "UPDATE needs a non-empty \"set\"");
            return -1;
        }
        for (size_t i = 0; i < set->n; i++) {
            const char *name = set->members[i].key;
            size_t k = 0;
            while (k < s->n && strcmp(s->cols[k].name, name) != 0)
                k++;
            if (k == s->n) {
                snprintf(msg, cap, "unknown column \"%s\"", name);
                return -1;
            }
            if (add_change(b, &s->cols[k], &set->members[i].value, arena, msg, cap) != 0)
                return -1;
        }
    } else if (strcmp(op->str, "REINSERT") == 0) {
        /* A whole row: every non-key column in schema order, as Kudu's flush does. */
        cf_rcl_builder_reset(b, CF_RCL_REINSERT);
        for (size_t k = 0; k < s->n; k++) {
            if (s->cols[k].is_key)
                continue;
            const cf_json *v = set ? cf_json_get(set, s->cols[k].name) : NULL;
            if (v == NULL) {
                snprintf(msg, cap, "REINSERT lacks column \"%s\"", s->cols[k].name);
                return -1;
            }
            if (add_change(b, &s->cols[k], v, arena, msg, cap) != 0)
                return -1;
        }
    } else {
        snprintf(msg, cap, "unknown op \"%s\"", op->str);
        return -1;
    }
    *out = cf_rcl_builder_bytes(b);
    return 0;
}

static bool json_bool(const cf_json *o, const char *key, bool dflt)
{
    const cf_json *v = cf_json_get(o, key);
    if (v == NULL)
        return dflt;
    return v->kind == CF_JSON_TRUE;
}

int cf_cmd_delta_write(cf_cli *c, int argc, char **argv)
{
    /* --json anywhere among the arguments (the only option write takes). */
    bool json = false;
    const char *pos[2] = {NULL, NULL};
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = true;
        else if (argv[i][0] == '-' && argv[i][1] == '-')
            return cf_cli_usage(c, "write: unknown option '%s'", argv[i]);
        else if (npos < 2)
            pos[npos++] = argv[i];
        else
            return cf_cli_usage(c, "write: unexpected argument '%s'", argv[i]);
    }
    if (npos != 2)
        return cf_cli_usage(c, "write needs SPEC.json and OUT");
    const char *spec_path = pos[0], *out_path = pos[1];
    uint64_t ndeltas = 0;
    cf_json_doc doc;
    cf_cli_delta_schema s = {0};
    char msg[256];
    int rc = CF_EXIT_OK;
    cf_rcl_builder *b = NULL;
    cf_delta_writer *w = NULL;
    cf_error e;
    cf_status st;
    if (cf_json_parse_file(&doc, spec_path, msg, sizeof(msg)) != 0) {
        rc = cf_cli_fail(c, "%s: %s", spec_path, msg);
        goto out;
    }
    const cf_json *root = &doc.root;
    if (root->kind != CF_JSON_OBJECT ||
        cf_cli_delta_schema_parse(&s, root, msg, sizeof(msg)) != 0) {
        rc = cf_cli_fail(c, "%s: %s", spec_path,
                         root->kind == CF_JSON_OBJECT ? msg : "not an object");
        goto out;
    }
    cf_delta_writer_options o;
    cf_delta_writer_options_init(&o);
    const cf_json *v = cf_json_get(root, "type");
    if (v == NULL || v->kind != CF_JSON_STRING || cf_cli_delta_parse_type(v->str, &o.type) != 0) {
        rc = cf_cli_fail(c, "%s: \"type\" must be REDO or UNDO", spec_path);
        goto out;
    }
    if ((v = cf_json_get(root, "compression")) != NULL &&
        (v->kind != CF_JSON_STRING || cf_compression_parse(&o.compression, v->str) != CF_OK)) {
        rc = cf_cli_fail(c, "%s: unknown \"compression\"", spec_path);
        goto out;
    }
    if ((v = cf_json_get(root, "block_size")) != NULL) {
        uint64_t bs;
        if (v->kind != CF_JSON_NUMBER || cf_cli_parse_u64(v->str, &bs) != 0 || bs > UINT32_MAX) {
            rc = cf_cli_fail(c, "%s: bad \"block_size\"", spec_path);
            goto out;
        }
        /* Kudu's writer raises small blocks to 512 bytes. */
        o.block_size = bs < CF_MIN_BLOCK_SIZE ? CF_MIN_BLOCK_SIZE : (uint32_t)bs;
    }
    o.checksums = json_bool(root, "checksums", true);
    o.write_stats = json_bool(root, "write_stats", true);
    o.check_order = !json_bool(root, "allow_unsorted", false);
    const cf_json *deltas = cf_json_get(root, "deltas");
    if (deltas == NULL || deltas->kind != CF_JSON_ARRAY) {
        rc = cf_cli_fail(c, "%s: needs a \"deltas\" array", spec_path);
        goto out;
    }
    if ((st = cf_rcl_builder_create(&b, &e)) != CF_OK ||
        (st = cf_delta_writer_create_file(&w, out_path, &o, &e)) != CF_OK) {
        rc = cf_cli_lib_fail(c, out_path, st, &e);
        goto out;
    }
    for (size_t i = 0; i < deltas->n; i++) {
        const cf_json *d = &deltas->items[i];
        const cf_json *jr = cf_json_get(d, "row"), *jt = cf_json_get(d, "ts");
        uint64_t row, ts;
        if (d->kind != CF_JSON_OBJECT || jr == NULL || jt == NULL ||
            cf_cli_parse_u64(jr->str ? jr->str : "", &row) != 0 || row > UINT32_MAX ||
            cf_cli_parse_u64(jt->str ? jt->str : "", &ts) != 0) {
            rc =
                cf_cli_fail(c, "%s: delta %zu: needs \"row\" (u32) and \"ts\" (u64)", spec_path, i);
            goto out;
        }
        cf_slice rcl;
        uint8_t *raw = NULL;
        if (build_rcl(b, &s, d, &doc.arena, &rcl, &raw, msg, sizeof(msg)) != 0) {
            free(raw);
            rc = cf_cli_fail(c, "%s: delta %zu: %s", spec_path, i, msg);
            goto out;
        }
        st = cf_delta_writer_append(w, (uint32_t)row, ts, rcl, &e);
        free(raw);
        if (st != CF_OK) {
            rc = cf_cli_lib_fail(c, out_path, st, &e);
            goto out;
        }
        ndeltas++;
    }
    if ((st = cf_delta_writer_finish(w, &e)) != CF_OK)
        rc = cf_cli_lib_fail(c, out_path, st, &e);
    else if (json) {
        struct stat sb;
        cf_jw jw;
        cf_jw_init(&jw, c->out);
        cf_jw_obj_begin(&jw);
        cf_jw_kv_cstr(&jw, "file", out_path);
        cf_jw_kv_uint(&jw, "deltas", ndeltas);
        cf_jw_key(&jw, "bytes");
        if (stat(out_path, &sb) == 0)
            cf_jw_uint(&jw, (uint64_t)sb.st_size);
        else
            cf_jw_null(&jw);
        cf_jw_obj_end(&jw);
        cf_jw_newline(&jw);
    }
out:
    cf_delta_writer_free(w);
    cf_rcl_builder_free(b);
    free(s.cols);
    cf_json_doc_dispose(&doc);
    return rc;
}

/* `cfile delta write|dump|apply`: DeltaFiles (format §12) in the forms of
 * ../shared/golden-delta/README.md: write a file from a spec.json, dump its
 * deltas and statistics, apply the deltas visible at a snapshot to base values. */
#include "cli.h"
#include "values.h"

#include <cfile/delta.h>

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char cf_cmd_delta_usage[] =
    "usage: cfile delta write [--json] SPEC.json OUT\n"
    "       cfile delta dump [--json] [--limit N] FILE --schema SCHEMA.json --type REDO|UNDO\n"
    "       cfile delta apply [--json] FILE --schema SCHEMA.json --type REDO|UNDO\n"
    "                         --snapshot TS --rows N [--start R] [--batch B] --base BASE.json\n"
    "\n"
    "write   build a DeltaFile from a golden-delta spec.json (schema, deltas, options)\n"
    "dump    print every delta (row, ts, change list decoded with the schema) and the\n"
    "        file's delta statistics; --limit N stops after N deltas, as\n"
    "        `cfile dump --limit` does (in JSON: the first N of \"deltas\")\n"
    "apply   apply the deltas visible at snapshot TS (REDO: ts < TS; UNDO: undo ts >= TS)\n"
    "        to rows [R, R+N) of the base values, in batches of B rows (default N)\n"
    "\n"
    "SCHEMA.json is a spec.json (its \"schema\") or a bare array of columns\n"
    "({\"id\", \"name\", \"type\", \"nullable\", \"key\"}). Output of --json is one object;\n"
    "for write: {\"file\", \"deltas\" (written), \"bytes\" (the file's size)}. Without\n"
    "--json, write prints nothing.\n";

/* ---- schema ------------------------------------------------------------------------ */

typedef struct schema {
    cf_delta_column *cols;
    size_t n;
} schema;

static int schema_parse(schema *s, const cf_json *root, char *msg, size_t cap)
{
    const cf_json *arr = root;
    if (root->kind == CF_JSON_OBJECT)
        arr = cf_json_get(root, "schema");
    if (arr == NULL || arr->kind != CF_JSON_ARRAY) {
        snprintf(msg, cap, "schema: expected an array of columns");
        return -1;
    }
    s->n = arr->n;
    s->cols = calloc(arr->n ? arr->n : 1, sizeof(*s->cols));
    if (s->cols == NULL) {
        snprintf(msg, cap, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < arr->n; i++) {
        const cf_json *c = &arr->items[i];
        cf_delta_column *col = &s->cols[i];
        const cf_json *v;
        if (c->kind != CF_JSON_OBJECT || (v = cf_json_get(c, "name")) == NULL ||
            v->kind != CF_JSON_STRING) {
            snprintf(msg, cap, "schema column %zu: needs a \"name\"", i);
            return -1;
        }
        col->name = v->str;
        v = cf_json_get(c, "type");
        if (v == NULL || v->kind != CF_JSON_STRING || cf_type_parse(&col->type, v->str) != CF_OK) {
            snprintf(msg, cap, "schema column %s: missing or unknown \"type\"", col->name);
            return -1;
        }
        col->id = 10 + (uint32_t)i;
        if ((v = cf_json_get(c, "id")) != NULL) {
            uint64_t id;
            if (v->kind != CF_JSON_NUMBER || cf_cli_parse_u64(v->str, &id) != 0 || id > INT32_MAX) {
                snprintf(msg, cap, "schema column %s: bad \"id\"", col->name);
                return -1;
            }
            col->id = (uint32_t)id;
        }
        col->nullable = (v = cf_json_get(c, "nullable")) != NULL && v->kind == CF_JSON_TRUE;
        col->is_key = (v = cf_json_get(c, "key")) != NULL && v->kind == CF_JSON_TRUE;
        if ((v = cf_json_get(c, "precision")) != NULL && v->kind == CF_JSON_NUMBER)
            col->precision = atoi(v->str);
        if ((v = cf_json_get(c, "scale")) != NULL && v->kind == CF_JSON_NUMBER)
            col->scale = atoi(v->str);
        if ((v = cf_json_get(c, "length")) != NULL && v->kind == CF_JSON_NUMBER)
            col->length = atoi(v->str);
    }
    return 0;
}

static int schema_load(cf_cli *c, schema *s, cf_json_doc *doc, const char *path)
{
    char msg[256];
    if (cf_json_parse_file(doc, path, msg, sizeof(msg)) != 0)
        return cf_cli_fail(c, "%s: %s", path, msg);
    if (schema_parse(s, &doc->root, msg, sizeof(msg)) != 0)
        return cf_cli_fail(c, "%s: %s", path, msg);
    return CF_EXIT_OK;
}

static int parse_type(const char *s, cf_delta_type *out)
{
    if (strcasecmp(s, "REDO") == 0)
        *out = CF_DELTA_REDO;
    else if (strcasecmp(s, "UNDO") == 0)
        *out = CF_DELTA_UNDO;
    else
        return -1;
    return 0;
}

/* Kudu's Status prefix for our codes (the golden files record Kudu's strings). */
static const char *kudu_status_name(cf_status st)
{
    switch (st) {
    case CF_ECORRUPT: return "Corruption";
    case CF_ENOTSUP: return "Not implemented";
    case CF_EINVAL: return "Invalid argument";
    case CF_EIO: return "IO error";
    case CF_ENOTFOUND: return "Not found";
    case CF_ENOMEM: return "Out of memory";
    default: return "Runtime error";
    }
}

static void write_status(cf_jw *w, cf_status st, const cf_error *e)
{
    char buf[320];
    snprintf(buf, sizeof(buf), "%s: %s", kudu_status_name(st), e->msg);
    cf_jw_cstr(w, buf);
}

/* A value in memory form: FLOAT prints as the double Kudu's tool printed. */
static void value_write(cf_jw *w, cf_type t, const void *slot)
{
    if (t == CF_TYPE_FLOAT) {
        float f;
        char txt[CF_CLI_NUM_CAP];
        bool is_str;
        memcpy(&f, slot, sizeof(f));
        cf_cli_format_double(txt, (double)f, &is_str);
        if (is_str)
            cf_jw_cstr(w, txt);
        else
            cf_jw_raw(w, txt);
        return;
    }
    cf_cli_value_write(w, t, slot);
}

/* Raw RowChangeList value bytes -> memory form. */
static void raw_write(cf_jw *w, cf_type t, cf_slice raw)
{
    if (cf_type_is_binary(t)) {
        cf_slice s = raw;
        cf_cli_value_write(w, t, &s);
        return;
    }
    uint8_t slot[16] = {0};
    memcpy(slot, raw.data, raw.len < sizeof(slot) ? raw.len : sizeof(slot));
    value_write(w, t, slot);
}

/* ---- write ------------------------------------------------------------------------- */

static int hex_decode(const char *s, size_t len, uint8_t *out)
{
    if (len % 2 != 0)
        return -1;
    for (size_t i = 0; i < len / 2; i++) {
        int v = 0;
        for (int k = 0; k < 2; k++) {
            char ch = s[2 * i + k];
            int d = ch >= '0' && ch <= '9'   ? ch - '0'
                    : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                    : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                             : -1;
            if (d < 0)
                return -1;
            v = v * 16 + d;
        }
        out[i] = (uint8_t)v;
    }
    return 0;
}

/* Add one column change from its value form. */
static int add_change(cf_rcl_builder *b, const cf_delta_column *col, const cf_json *v,
                      cf_arena *arena, char *msg, size_t cap)
{
    uint8_t slot[16] __attribute__((aligned(16)));
    bool is_null = false;
    if (cf_cli_value_parse(v, col->type, slot, &is_null, arena, msg, cap) != 0)
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

static int build_rcl(cf_rcl_builder *b, const schema *s, const cf_json *d, cf_arena *arena,
                     cf_slice *out, uint8_t **raw, char *msg, size_t cap)
{
    const cf_json *hex = cf_json_get(d, "rcl_hex");
    if (hex != NULL) {
        if (hex->kind != CF_JSON_STRING || (*raw = malloc(hex->len / 2 + 1)) == NULL ||
            hex_decode(hex->str, hex->len, *raw) != 0) {
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

static int cmd_write(cf_cli *c, int argc, char **argv)
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
    schema s = {0};
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
    if (root->kind != CF_JSON_OBJECT || schema_parse(&s, root, msg, sizeof(msg)) != 0) {
        rc = cf_cli_fail(c, "%s: %s", spec_path, root->kind == CF_JSON_OBJECT ? msg : "not an object");
        goto out;
    }
    cf_delta_writer_options o;
    cf_delta_writer_options_init(&o);
    const cf_json *v = cf_json_get(root, "type");
    if (v == NULL || v->kind != CF_JSON_STRING || parse_type(v->str, &o.type) != 0) {
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
            rc = cf_cli_fail(c, "%s: delta %zu: needs \"row\" (u32) and \"ts\" (u64)", spec_path, i);
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
        cf_jw_key(&jw, "file");
        cf_jw_cstr(&jw, out_path);
        cf_jw_key(&jw, "deltas");
        cf_jw_uint(&jw, ndeltas);
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

/* ---- dump -------------------------------------------------------------------------- */

static int cmp_stat(const void *a, const void *b)
{
    const cf_delta_col_stat *x = a, *y = b;
    return x->col_id < y->col_id ? -1 : x->col_id > y->col_id;
}

static void stats_json(cf_jw *w, const cf_delta_stats *st)
{
    /* What Kudu's DeltaStats gives back: counts merged per id, ascending. */
    cf_delta_col_stat *m = malloc((st->ncols ? st->ncols : 1) * sizeof(*m));
    size_t n = 0;
    int64_t total = 0;
    if (m != NULL) {
        memcpy(m, st->cols, st->ncols * sizeof(*m));
        qsort(m, st->ncols, sizeof(*m), cmp_stat);
        for (size_t i = 0; i < st->ncols; i++) {
            total += m[i].update_count;
            if (n > 0 && m[n - 1].col_id == m[i].col_id)
                m[n - 1].update_count += m[i].update_count;
            else
                m[n++] = m[i];
        }
    }
    cf_jw_key(w, "delta_stats");
    cf_jw_obj_begin(w);
    cf_jw_key(w, "min_timestamp");
    cf_jw_uint(w, st->min_ts);
    cf_jw_key(w, "max_timestamp");
    cf_jw_uint(w, st->max_ts);
    cf_jw_key(w, "delete_count");
    cf_jw_int(w, st->delete_count);
    cf_jw_key(w, "reinsert_count");
    cf_jw_int(w, st->reinsert_count);
    cf_jw_key(w, "update_count");
    cf_jw_int(w, total);
    cf_jw_key(w, "update_counts_by_col_id");
    cf_jw_obj_begin(w);
    for (size_t i = 0; i < n; i++) {
        if (m[i].update_count <= 0)
            continue;
        char k[16];
        snprintf(k, sizeof(k), "%" PRId32, (int32_t)m[i].col_id);
        cf_jw_key(w, k);
        cf_jw_int(w, m[i].update_count);
    }
    cf_jw_obj_end(w);
    cf_jw_obj_end(w);
    free(m);

    cf_jw_key(w, "delta_stats_pb");
    cf_jw_obj_begin(w);
    cf_jw_key(w, "delete_count");
    cf_jw_int(w, st->delete_count);
    cf_jw_key(w, "reinsert_count");
    cf_jw_int(w, st->reinsert_count);
    cf_jw_key(w, "column_stats");
    cf_jw_arr_begin(w);
    for (size_t i = 0; i < st->ncols; i++) {
        cf_jw_obj_begin(w);
        cf_jw_key(w, "col_id");
        cf_jw_int(w, (int32_t)st->cols[i].col_id);
        cf_jw_key(w, "update_count");
        cf_jw_int(w, st->cols[i].update_count);
        cf_jw_obj_end(w);
    }
    cf_jw_arr_end(w);
    cf_jw_key(w, "max_timestamp");
    cf_jw_uint(w, st->max_ts);
    cf_jw_key(w, "min_timestamp");
    cf_jw_uint(w, st->min_ts);
    cf_jw_obj_end(w);
}

static const char *op_name(cf_rcl_type t)
{
    return t == CF_RCL_UPDATE ? "UPDATE" : t == CF_RCL_DELETE ? "DELETE" : "REINSERT";
}

/* One delta as the golden expected.json spells it. */
static void delta_json(cf_jw *w, const cf_delta *d, const schema *s)
{
    cf_error e;
    cf_rcl_decoder dec;
    cf_jw_obj_begin(w);
    cf_jw_key(w, "row");
    cf_jw_uint(w, d->row);
    cf_jw_key(w, "ts");
    cf_jw_uint(w, d->ts);
    cf_jw_key(w, "op");
    cf_status st = cf_rcl_decoder_init(&dec, d->rcl, &e);
    if (st != CF_OK) {
        cf_jw_cstr(w, "INVALID");
        cf_jw_key(w, "decode_error");
        write_status(w, st, &e);
    } else {
        cf_jw_cstr(w, op_name(dec.type));
    }
    if (st == CF_OK && dec.type != CF_RCL_DELETE) {
        /* Decode everything first: the error goes before "set". */
        cf_rcl_decoder probe = dec;
        cf_rcl_change ch;
        cf_status bad = CF_OK;
        cf_error be;
        int ci;
        size_t good = 0, unknown = 0;
        while (cf_rcl_decoder_has_next(&probe)) {
            if ((bad = cf_rcl_decoder_next(&probe, &ch, &be)) != CF_OK ||
                (bad = cf_rcl_change_validate(&ch, s->cols, s->n, &ci, &be)) != CF_OK)
                break;
            good++;
            unknown += ci < 0;
        }
        if (bad != CF_OK) {
            cf_jw_key(w, "decode_error");
            write_status(w, bad, &be);
        }
        cf_jw_key(w, "set");
        cf_jw_obj_begin(w);
        probe = dec;
        for (size_t i = 0; i < good; i++) {
            cf_rcl_decoder_next(&probe, &ch, NULL);
            cf_rcl_change_validate(&ch, s->cols, s->n, &ci, NULL);
            if (ci < 0)
                continue;
            cf_jw_key(w, s->cols[ci].name);
            if (ch.is_null)
                cf_jw_null(w);
            else
                raw_write(w, s->cols[ci].type, ch.value);
        }
        cf_jw_obj_end(w);
        if (unknown > 0) {
            cf_jw_key(w, "unknown_columns");
            cf_jw_arr_begin(w);
            probe = dec;
            for (size_t i = 0; i < good; i++) {
                cf_rcl_decoder_next(&probe, &ch, NULL);
                cf_rcl_change_validate(&ch, s->cols, s->n, &ci, NULL);
                if (ci >= 0)
                    continue;
                cf_jw_obj_begin(w);
                cf_jw_key(w, "col_id");
                cf_jw_uint(w, ch.col_id);
                if (ch.is_null) {
                    cf_jw_key(w, "value");
                    cf_jw_null(w);
                } else {
                    cf_jw_key(w, "raw_hex");
                    cf_jw_hex(w, ch.value.data, ch.value.len);
                }
                cf_jw_obj_end(w);
            }
            cf_jw_arr_end(w);
        }
    }
    cf_jw_key(w, "key_hex");
    cf_jw_hex(w, d->key.data, d->key.len);
    cf_jw_key(w, "rcl_hex");
    cf_jw_hex(w, d->rcl.data, d->rcl.len);
    cf_jw_obj_end(w);
}

typedef struct common_args {
    bool json;
    const char *file, *schema_path, *base_path;
    cf_delta_type type;
    bool has_type, has_snapshot, has_rows, has_limit;
    uint64_t snapshot, rows, start, batch, limit;
} common_args;

static int parse_args(cf_cli *c, int argc, char **argv, common_args *a, bool apply)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},         {"schema", required_argument, NULL, 's'},
        {"type", required_argument, NULL, 't'},   {"snapshot", required_argument, NULL, 'S'},
        {"rows", required_argument, NULL, 'n'},   {"start", required_argument, NULL, 'r'},
        {"batch", required_argument, NULL, 'b'},  {"base", required_argument, NULL, 'B'},
        {"help", no_argument, NULL, 'h'},         {"limit", required_argument, NULL, 'L'},
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof(*a));
    a->limit = UINT64_MAX;
    cf_cli_getopt_reset();
    int ch;
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        uint64_t *dst = NULL;
        switch (ch) {
        case 'j': a->json = true; break;
        case 's': a->schema_path = optarg; break;
        case 'B': a->base_path = optarg; break;
        case 'h': return cf_cli_help(c) == CF_EXIT_OK ? -1 : -1;
        case 't':
            if (parse_type(optarg, &a->type) != 0)
                return cf_cli_usage(c, "--type must be REDO or UNDO"), -2;
            a->has_type = true;
            break;
        case 'S': dst = &a->snapshot; a->has_snapshot = true; break;
        case 'n': dst = &a->rows; a->has_rows = true; break;
        case 'r': dst = &a->start; break;
        case 'b': dst = &a->batch; break;
        case 'L':
            if (cf_cli_parse_u64(optarg, &a->limit) != 0)
                return cf_cli_usage(c, "--limit: expected a row count, got '%s'", optarg), -2;
            if (apply)
                return cf_cli_usage(c, "apply takes no --limit"), -2;
            a->has_limit = true;
            continue;
        default: return cf_cli_bad_option(c, argv), -2;
        }
        if (dst != NULL && cf_cli_parse_u64(optarg, dst) != 0)
            return cf_cli_usage(c, "bad number '%s'", optarg), -2;
        if (!apply && dst != NULL)
            return cf_cli_usage(c, "dump takes no --snapshot, --rows, --start or --batch"), -2;
    }
    if (optind + 1 != argc)
        return cf_cli_usage(c, "expected exactly one FILE"), -2;
    a->file = argv[optind];
    if (a->schema_path == NULL || !a->has_type)
        return cf_cli_usage(c, "--schema and --type are required"), -2;
    if (apply) {
        if (!a->has_snapshot || !a->has_rows || a->base_path == NULL)
            return cf_cli_usage(c, "apply needs --snapshot, --rows and --base"), -2;
        if (a->rows == 0 || a->rows > UINT32_MAX || a->start > UINT32_MAX - a->rows)
            return cf_cli_usage(c, "--start/--rows out of the 32-bit row range"), -2;
        if (a->batch == 0)
            a->batch = a->rows;
    }
    return 0;
}

static int cmd_dump(cf_cli *c, int argc, char **argv)
{
    common_args a;
    int prc = parse_args(c, argc, argv, &a, false);
    if (prc != 0)
        return prc == -1 ? CF_EXIT_OK : CF_EXIT_USAGE;
    cf_json_doc sdoc;
    schema s = {0};
    int rc = schema_load(c, &s, &sdoc, a.schema_path);
    cf_delta_reader *r = NULL;
    cf_delta_iter *it = NULL;
    cf_delta *buf = NULL;
    cf_error e;
    cf_status st;
    if (rc != CF_EXIT_OK)
        goto out;
    if ((st = cf_delta_reader_open_file(&r, a.file, a.type, NULL, &e)) != CF_OK ||
        (st = cf_delta_iter_create(&it, r, &e)) != CF_OK ||
        (st = cf_delta_iter_seek_to_first(it, &e)) != CF_OK) {
        rc = cf_cli_lib_fail(c, a.file, st, &e);
        goto out;
    }
    buf = malloc(CF_CLI_BATCH * sizeof(*buf));
    if (buf == NULL) {
        rc = cf_cli_fail(c, "out of memory");
        goto out;
    }
    cf_jw w;
    cf_jw_init(&w, c->out);
    const cf_delta_stats *ds;
    cf_error se;
    cf_status sst = cf_delta_reader_stats(r, &ds, &se);
    if (a.json) {
        cf_jw_obj_begin(&w);
        cf_jw_key(&w, "delta_type");
        cf_jw_cstr(&w, a.type == CF_DELTA_REDO ? "REDO" : "UNDO");
        cf_jw_key(&w, "num_deltas");
        cf_jw_uint(&w, cf_reader_info(cf_delta_reader_cfile(r))->num_values);
        if (sst == CF_OK) {
            stats_json(&w, ds);
        } else {
            cf_jw_key(&w, "delta_file_reader_error");
            write_status(&w, sst, &se);
        }
        cf_jw_key(&w, "deltas");
        cf_jw_arr_begin(&w);
    } else {
        fprintf(c->out, "# %s: %s DeltaFile, %" PRIu64 " deltas\n", a.file,
                a.type == CF_DELTA_REDO ? "REDO" : "UNDO",
                cf_reader_info(cf_delta_reader_cfile(r))->num_values);
        if (sst == CF_OK)
            fprintf(c->out, "# ts [%" PRIu64 ", %" PRIu64 "], %" PRId64 " deletes, %" PRId64
                            " reinserts, %zu updated columns\n",
                    ds->min_ts, ds->max_ts, ds->delete_count, ds->reinsert_count, ds->ncols);
        else
            fprintf(c->out, "# stats: %s\n", se.msg);
    }
    uint64_t shown = 0;
    while (shown < a.limit) {
        size_t n;
        size_t want = a.limit - shown < CF_CLI_BATCH ? (size_t)(a.limit - shown) : CF_CLI_BATCH;
        if ((st = cf_delta_iter_next_batch(it, buf, want, &n, &e)) != CF_OK) {
            if (a.json)
                fputc('\n', c->out);
            rc = cf_cli_lib_fail(c, a.file, st, &e);
            goto out;
        }
        if (n == 0)
            break;
        for (size_t i = 0; i < n; i++) {
            if (!a.json)
                cf_jw_init(&w, c->out);
            delta_json(&w, &buf[i], &s);
            if (!a.json)
                fputc('\n', c->out);
        }
        shown += n;
    }
    if (a.json) {
        cf_jw_arr_end(&w);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    }
out:
    free(buf);
    cf_delta_iter_free(it);
    cf_delta_reader_free(r);
    free(s.cols);
    cf_json_doc_dispose(&sdoc);
    return rc;
}

/* ---- apply ------------------------------------------------------------------------- */

static int cmd_apply(cf_cli *c, int argc, char **argv)
{
    common_args a;
    int prc = parse_args(c, argc, argv, &a, true);
    if (prc != 0)
        return prc == -1 ? CF_EXIT_OK : CF_EXIT_USAGE;
    cf_json_doc sdoc, bdoc;
    schema s = {0};
    char msg[256];
    int rc = schema_load(c, &s, &sdoc, a.schema_path);
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
                if (cf_cli_value_parse(&col->items[src], s.cols[k].type, vals[k] + i * wdt, &is_null,
                                       &bdoc.arena, msg, sizeof(msg)) != 0) {
                    rc = cf_cli_fail(c, "%s: column %s row %zu: %s", a.base_path, s.cols[k].name, src,
                                     msg);
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
    cf_arena keep;
    cf_arena_init(&keep);
    for (size_t done = 0; done < rows; done += batch) {
        size_t n = rows - done < batch ? rows - done : batch;
        if ((st = cf_delta_apply_prepare(ap, n, &e)) != CF_OK) {
            cf_arena_dispose(&keep);
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
                    nn[k][j / 8] &= (uint8_t)~(1u << (j % 8));
            }
            free(tmpn);
            if (st == CF_OK && cf_type_is_binary(s.cols[k].type)) {
                for (size_t i = 0; i < n; i++) {
                    cf_slice *sl = (cf_slice *)(void *)(vals[k] + (done + i) * wdt);
                    if (sl->len == 0)
                        continue;
                    uint8_t *cp = cf_arena_alloc(&keep, sl->len);
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
                    sel[j / 8] &= (uint8_t)~(1u << (j % 8));
            }
        }
        if (st != CF_OK) {
            cf_arena_dispose(&keep);
            rc = cf_cli_lib_fail(c, a.file, st, &e);
            goto out;
        }
    }
    cf_jw w;
    cf_jw_init(&w, c->out);
    cf_jw_obj_begin(&w);
    cf_jw_key(&w, "delta_type");
    cf_jw_cstr(&w, a.type == CF_DELTA_REDO ? "REDO" : "UNDO");
    cf_jw_key(&w, "snapshot");
    cf_jw_uint(&w, a.snapshot);
    cf_jw_key(&w, "start");
    cf_jw_uint(&w, a.start);
    cf_jw_key(&w, "rows");
    cf_jw_uint(&w, a.rows);
    cf_jw_key(&w, "batch");
    cf_jw_uint(&w, batch);
    cf_jw_key(&w, "culled_by_stats");
    cf_jw_bool(&w, culled);
    cf_jw_key(&w, "deleted_rows");
    cf_jw_arr_begin(&w);
    for (size_t i = 0; i < rows; i++)
        if (!(sel[i / 8] >> (i % 8) & 1))
            cf_jw_uint(&w, a.start + i);
    cf_jw_arr_end(&w);
    cf_jw_key(&w, "columns");
    cf_jw_obj_begin(&w);
    for (size_t k = 0; k < s.n; k++) {
        size_t wdt = cf_type_size(s.cols[k].type);
        cf_jw_key(&w, s.cols[k].name);
        cf_jw_arr_begin(&w);
        for (size_t i = 0; i < rows; i++) {
            if (nn[k][i / 8] >> (i % 8) & 1)
                value_write(&w, s.cols[k].type, vals[k] + i * wdt);
            else
                cf_jw_null(&w);
        }
        cf_jw_arr_end(&w);
    }
    cf_jw_obj_end(&w);
    cf_jw_obj_end(&w);
    cf_jw_newline(&w);
    (void)a.json; /* the text form is the same object */
    cf_arena_dispose(&keep);
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

int cf_cmd_delta(cf_cli *c, int argc, char **argv)
{
    if (argc < 2)
        return cf_cli_usage(c, "missing subcommand (write, dump or apply)");
    const char *sub = argv[1];
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0)
        return cf_cli_help(c);
    if (strcmp(sub, "write") == 0)
        return cmd_write(c, argc - 1, argv + 1);
    if (strcmp(sub, "dump") == 0)
        return cmd_dump(c, argc - 1, argv + 1);
    if (strcmp(sub, "apply") == 0)
        return cmd_apply(c, argc - 1, argv + 1);
    return cf_cli_usage(c, "unknown subcommand '%s'", sub);
}

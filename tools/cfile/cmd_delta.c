/* `cfile delta write|dump|apply`: DeltaFiles (format §12) in the forms of
 * ../shared/golden-delta/README.md: write a file from a spec.json, dump its
 * deltas and statistics, apply the deltas visible at a snapshot to base values. */
#include "cli.h"
#include "delta_cmd.h"
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

int cf_cli_delta_schema_parse(cf_cli_delta_schema *s, const cf_json *root, char *msg, size_t cap)
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

int cf_cli_delta_schema_load(cf_cli *c, cf_cli_delta_schema *s, cf_json_doc *doc, const char *path)
{
    char msg[256];
    if (cf_json_parse_file(doc, path, msg, sizeof(msg)) != 0)
        return cf_cli_fail(c, "%s: %s", path, msg);
    if (cf_cli_delta_schema_parse(s, &doc->root, msg, sizeof(msg)) != 0)
        return cf_cli_fail(c, "%s: %s", path, msg);
    return CF_EXIT_OK;
}

int cf_cli_delta_parse_type(const char *s, cf_delta_type *out)
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

void cf_cli_delta_write_status(cf_jw *w, cf_status st, const cf_error *e)
{
    char buf[320];
    snprintf(buf, sizeof(buf), "%s: %s", kudu_status_name(st), e->msg);
    cf_jw_cstr(w, buf);
}

/* A value in memory form: FLOAT prints as the double Kudu's tool printed. */
void cf_cli_delta_value_write(cf_jw *w, cf_type t, const void *slot)
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
void cf_cli_delta_raw_write(cf_jw *w, cf_type t, cf_slice raw)
{
    if (cf_type_is_binary(t)) {
        cf_slice s = raw;
        cf_cli_value_write(w, t, &s);
        return;
    }
    uint8_t slot[16] = {0};
    memcpy(slot, raw.data, raw.len < sizeof(slot) ? raw.len : sizeof(slot));
    cf_cli_delta_value_write(w, t, slot);
}

int cf_cli_delta_parse_args(cf_cli *c, int argc, char **argv, cf_cli_delta_args *a, bool apply)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"schema", required_argument, NULL, 's'},
        {"type", required_argument, NULL, 't'},
        {"snapshot", required_argument, NULL, 'S'},
        {"rows", required_argument, NULL, 'n'},
        {"start", required_argument, NULL, 'r'},
        {"batch", required_argument, NULL, 'b'},
        {"base", required_argument, NULL, 'B'},
        {"help", no_argument, NULL, 'h'},
        {"limit", required_argument, NULL, 'L'},
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
            if (cf_cli_delta_parse_type(optarg, &a->type) != 0)
                return cf_cli_usage(c, "--type must be REDO or UNDO"), -2;
            a->has_type = true;
            break;
        case 'S':
            dst = &a->snapshot;
            a->has_snapshot = true;
            break;
        case 'n':
            dst = &a->rows;
            a->has_rows = true;
            break;
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

int cf_cmd_delta(cf_cli *c, int argc, char **argv)
{
    if (argc < 2)
        return cf_cli_usage(c, "missing subcommand (write, dump or apply)");
    const char *sub = argv[1];
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0)
        return cf_cli_help(c);
    if (strcmp(sub, "write") == 0)
        return cf_cmd_delta_write(c, argc - 1, argv + 1);
    if (strcmp(sub, "dump") == 0)
        return cf_cmd_delta_dump(c, argc - 1, argv + 1);
    if (strcmp(sub, "apply") == 0)
        return cf_cmd_delta_apply(c, argc - 1, argv + 1);
    return cf_cli_usage(c, "unknown subcommand '%s'", sub);
}

/* `cfile kudu tablet list|meta|schema|rowsets|data-size`: a server's tablets as
 * Kudu's `kudu local_replica list`, `dump meta`, `dump block_ids` and `data_size`
 * show them (tools/tool_action_local_replica.cc): table name and id, partition and
 * its key range, schema, data state, every DiskRowSet with its blocks, their sizes
 * and key range, the last durable MemRowSet id, and the consensus metadata.
 *
 * What kudu.h's getters do not give (partition, defaults, consensus fields) is read
 * from the superblock's and consensus metadata's protobuf JSON, the public form. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/kudu.h>

#include "cli.h"
#include "json.h"
#include "kudu_args.h"
#include "kudu_cmd.h"
#include "kudu_key.h"
#include "vprint.h"

static const char tablet_usage[] =
    "usage: cfile kudu tablet list [--json] FS\n"
    "       cfile kudu tablet meta [--json] FS TABLET_ID\n"
    "       cfile kudu tablet schema [--json] FS TABLET_ID\n"
    "       cfile kudu tablet rowsets [--json] FS TABLET_ID\n"
    "       cfile kudu tablet data-size [--json] FS [TABLET_ID]\n"
    "       cfile kudu tablet scan ... (cfile kudu tablet scan --help)\n"
    "\n"
    "A server's tablets from their superblocks (tablet-meta/) and consensus metadata\n"
    "(consensus-meta/), as Kudu's local_replica tools show them:\n"
    "  list       every tablet: id, table, data state, partition, rowsets\n"
    "  meta       table name and id, partition and key range, schema, data state, last\n"
    "             durable MemRowSet id, consensus term, vote and committed config, and\n"
    "             the whole superblock\n"
    "  schema     columns with Kudu's types, nullability, encodings, compression,\n"
    "             block sizes, defaults, and the primary key\n"
    "  rowsets    every DiskRowSet: its blocks (column, bloom, ad-hoc index, UNDO,\n"
    "             REDO) with their lengths and places, min/max keys, live rows\n"
    "  data-size  bytes per rowset and block kind, per tablet and per table\n"
    "\n"
    "FS names the server's directories:\n" CF_KUDU_ARGS_USAGE
    "  --json                   JSON instead of text\n"
    "  --help                   this text\n"
    "A damaged tablet is reported with the file and offset and the others still\n"
    "listed (exit 1); a block a superblock names that the server does not hold is\n"
    "reported as missing (exit 1).\n";

typedef struct targs {
    bool json;
    cf_kudu_args fs_args;
    const char *tablet;
    cf_kudu_fs *fs;
} targs;

static int lib_fail(cf_cli *c, cf_status st, const cf_error *e)
{
    fprintf(c->err, "cfile %s: %s\n", c->cmd, e->msg[0] ? e->msg : cf_status_str(st));
    return st == CF_ENOTSUP ? CF_EXIT_NOTSUP : st == CF_EINVAL ? CF_EXIT_USAGE : CF_EXIT_FAIL;
}

/* Options, FS, and the tablet operand (`want`: 0 none, 1 required, 2 optional). */
static int parse(cf_cli *c, int argc, char **argv, int want, targs *a)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        CF_KUDU_ARGS_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    int ch, rc;
    cf_cli_getopt_reset();
    while ((ch = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
        switch (ch) {
        case 'j': a->json = true; break;
        case 'h': cf_cli_help(c); return -1;
        default:
            rc = cf_kudu_args_option(c, &a->fs_args, ch, optarg);
            if (rc < 0)
                return cf_cli_bad_option(c, argv);
            if (rc > 0)
                return rc;
        }
    }
    int left = argc - optind;
    if (want == 0 && left != 0)
        return cf_cli_usage(c, "unexpected argument '%s'", argv[optind]);
    if (want == 1 && left != 1)
        return cf_cli_usage(c, "expected one TABLET_ID");
    if (want == 2 && left > 1)
        return cf_cli_usage(c, "expected at most one TABLET_ID");
    a->tablet = left == 1 ? argv[optind] : NULL;
    if (a->tablet != NULL && strlen(a->tablet) != 32)
        return cf_cli_usage(c, "'%s' is not a tablet id (32 hex digits)", a->tablet);
    return cf_kudu_args_open(c, &a->fs_args, &a->fs);
}

static int open_tablet(cf_cli *c, const targs *a, const char *id, cf_kudu_tablet **t)
{
    cf_error e = {0};
    cf_status st = cf_kudu_tablet_open(t, a->fs, id, &e);
    return st == CF_OK ? 0 : lib_fail(c, st, &e);
}

/* ---- the superblock's and consensus metadata's JSON ---- */

typedef struct meta_json {
    cf_json_doc sb, cm;
    bool has_sb, has_cm;
    char cm_err[300]; /* why there is no consensus metadata, when it is damaged */
} meta_json;

static int meta_load(cf_cli *c, const cf_kudu_tablet *t, meta_json *m)
{
    memset(m, 0, sizeof(*m));
    cf_error e = {0};
    char *js = NULL, msg[256];
    cf_status st = cf_kudu_tablet_superblock_json(t, false, &js, &e);
    if (st != CF_OK)
        return lib_fail(c, st, &e);
    int r = cf_json_parse(&m->sb, js, strlen(js), msg, sizeof msg);
    free(js);
    m->has_sb = true;
    if (r != 0)
        return cf_cli_fail(c, "superblock JSON: %s", msg);
    st = cf_kudu_tablet_consensus_json(t, false, &js, &e);
    if (st == CF_OK) {
        r = cf_json_parse(&m->cm, js, strlen(js), msg, sizeof msg);
        free(js);
        m->has_cm = true;
        if (r != 0)
            return cf_cli_fail(c, "consensus metadata JSON: %s", msg);
    } else if (st != CF_ENOTFOUND) {
        snprintf(m->cm_err, sizeof m->cm_err, "%s", e.msg);
    }
    return 0;
}

static void meta_free(meta_json *m)
{
    if (m->has_sb)
        cf_json_doc_dispose(&m->sb);
    if (m->has_cm)
        cf_json_doc_dispose(&m->cm);
}

static const cf_json *jget(const cf_json *o, const char *k)
{
    return o != NULL && o->kind == CF_JSON_OBJECT ? cf_json_get(o, k) : NULL;
}

static const char *jstr(const cf_json *o, const char *k)
{
    const cf_json *v = jget(o, k);
    return v != NULL && v->kind == CF_JSON_STRING ? v->str : NULL;
}

/* A protobuf JSON integer (number or decimal string), or dflt. */
static long long jint(const cf_json *o, const char *k, long long dflt)
{
    const cf_json *v = jget(o, k);
    if (v == NULL || (v->kind != CF_JSON_NUMBER && v->kind != CF_JSON_STRING))
        return dflt;
    return strtoll(v->str, NULL, 10);
}

/* A base64 bytes field into a malloc'd buffer; -1 absent or bad. */
static long jbytes(const cf_json *o, const char *k, uint8_t **out)
{
    *out = NULL;
    const char *s = jstr(o, k);
    if (s == NULL)
        return -1;
    size_t n = strlen(s);
    *out = malloc(n / 4 * 3 + 4);
    if (*out == NULL)
        return -1;
    long r = cf_kudu_base64_decode(*out, s, n);
    if (r < 0) {
        free(*out);
        *out = NULL;
    }
    return r;
}

/* ---- partitions (common/partition.cc) ---- */

/* Schema position of the column a ColumnIdentifierPB names (by id or name), or -1. */
static int column_by_ident(const cf_kudu_tablet *t, const cf_json *ident)
{
    const cf_schema *s = cf_kudu_tablet_schema(t);
    const char *name = jstr(ident, "name");
    if (name != NULL)
        return cf_schema_find(s, name);
    long long id = jint(ident, "id", -1);
    for (size_t i = 0; i < cf_schema_column_count(s); i++)
        if ((long long)cf_kudu_tablet_column_id(t, i) == id)
            return (int)i;
    return -1;
}

/* The range partition columns: range_schema's, or the primary key when the
 * partition schema has no range schema (PartitionSchema::FromPB). */
static size_t range_columns(const cf_kudu_tablet *t, const cf_json *ps, int *cols, size_t cap)
{
    const cf_json *rs = jget(ps, "range_schema");
    size_t n = 0;
    if (rs == NULL) {
        size_t nk = cf_schema_key_count(cf_kudu_tablet_schema(t));
        for (size_t i = 0; i < nk && n < cap; i++)
            cols[n++] = (int)i;
        return n;
    }
    const cf_json *cl = jget(rs, "columns");
    for (size_t i = 0; cl != NULL && i < cl->n && n < cap; i++)
        cols[n++] = column_by_ident(t, &cl->items[i]);
    return n;
}

/* One bound of a partition: the hash buckets (4 bytes each, big-endian) then
 * the encoded range key; decoded into k (0), or -1. */
static int range_key(const cf_kudu_tablet *t, const int *cols, size_t ncols, size_t nhash,
                     const uint8_t *p, long len, cf_kudu_key *k)
{
    memset(k, 0, sizeof(*k));
    if (len < 0 || (size_t)len < 4 * nhash)
        return -1;
    const cf_schema *s = cf_kudu_tablet_schema(t);
    cf_type types[CF_KUDU_KEY_MAX_COLS];
    const char *names[CF_KUDU_KEY_MAX_COLS];
    if (ncols > CF_KUDU_KEY_MAX_COLS)
        return -1;
    for (size_t i = 0; i < ncols; i++) {
        if (cols[i] < 0)
            return -1;
        types[i] = cf_schema_column_at(s, (size_t)cols[i])->type;
        names[i] = cf_schema_column_at(s, (size_t)cols[i])->name;
    }
    if ((size_t)len == 4 * nhash)
        return 1; /* unbounded */
    return cf_kudu_key_decode(k, types, names, ncols, p + 4 * nhash, (size_t)len - 4 * nhash);
}

static void write_hex(cf_jw *w, const uint8_t *p, long n)
{
    if (n < 0)
        cf_jw_null(w);
    else
        cf_jw_hex(w, p, (size_t)n);
}

/* "partition": hash buckets, the two keys in hex, and the range bounds decoded
 * (null = unbounded). */
static void partition_json(cf_jw *w, const cf_kudu_tablet *t, const cf_json *sb)
{
    const cf_json *part = jget(sb, "partition"), *ps = jget(sb, "partition_schema");
    const cf_json *hs = jget(ps, "hash_schema"), *hb = jget(part, "hash_buckets");
    size_t nhash = hs ? hs->n : 0;
    int cols[CF_KUDU_KEY_MAX_COLS];
    size_t ncols = range_columns(t, ps, cols, CF_KUDU_KEY_MAX_COLS);
    cf_jw_obj_begin(w);
    cf_jw_key(w, "hash_buckets");
    cf_jw_arr_begin(w);
    for (size_t i = 0; hb != NULL && i < hb->n; i++)
        cf_jw_int(w, strtoll(hb->items[i].str ? hb->items[i].str : "0", NULL, 10));
    cf_jw_arr_end(w);
    cf_jw_key(w, "range_columns");
    cf_jw_arr_begin(w);
    for (size_t i = 0; i < ncols; i++)
        if (cols[i] >= 0)
            cf_jw_cstr(w, cf_schema_column_at(cf_kudu_tablet_schema(t), (size_t)cols[i])->name);
    cf_jw_arr_end(w);
    static const char *const keys[2] = {"partition_key_start", "partition_key_end"};
    static const char *const bounds[2] = {"range_start", "range_end"};
    for (int b = 0; b < 2; b++) {
        uint8_t *p;
        long n = jbytes(part, keys[b], &p);
        cf_jw_key(w, keys[b]);
        write_hex(w, p, n < 0 ? 0 : n);
        cf_kudu_key k;
        int r = range_key(t, cols, ncols, nhash, p, n < 0 ? 0 : n, &k);
        cf_jw_key(w, bounds[b]);
        if (r == 0)
            cf_kudu_key_json(w, &k);
        else
            cf_jw_null(w);
        cf_kudu_key_free(&k);
        free(p);
    }
    cf_jw_obj_end(w);
}

/* As Kudu's PartitionDebugString: "HASH (c) PARTITION 2, RANGE (k) PARTITION ...". */
static void partition_text(FILE *f, const cf_kudu_tablet *t, const cf_json *sb)
{
    const cf_json *part = jget(sb, "partition"), *ps = jget(sb, "partition_schema");
    const cf_json *hs = jget(ps, "hash_schema"), *hb = jget(part, "hash_buckets");
    const cf_schema *s = cf_kudu_tablet_schema(t);
    size_t nhash = hs ? hs->n : 0;
    for (size_t i = 0; i < nhash; i++) {
        const cf_json *cl = jget(&hs->items[i], "columns");
        fputs("HASH (", f);
        for (size_t j = 0; cl != NULL && j < cl->n; j++) {
            int ci = column_by_ident(t, &cl->items[j]);
            fprintf(f, "%s%s", j ? ", " : "",
                    ci >= 0 ? cf_schema_column_at(s, (size_t)ci)->name : "?");
        }
        fprintf(f, ") PARTITION %s, ",
                hb != NULL && i < hb->n && hb->items[i].str ? hb->items[i].str : "?");
    }
    int cols[CF_KUDU_KEY_MAX_COLS];
    size_t ncols = range_columns(t, ps, cols, CF_KUDU_KEY_MAX_COLS);
    fputs("RANGE (", f);
    for (size_t i = 0; i < ncols; i++)
        fprintf(f, "%s%s", i ? ", " : "",
                cols[i] >= 0 ? cf_schema_column_at(s, (size_t)cols[i])->name : "?");
    fputs(") PARTITION ", f);
    cf_kudu_key k[2];
    int r[2];
    static const char *const keys[2] = {"partition_key_start", "partition_key_end"};
    for (int b = 0; b < 2; b++) {
        uint8_t *p;
        long n = jbytes(part, keys[b], &p);
        r[b] = range_key(t, cols, ncols, nhash, p, n < 0 ? 0 : n, &k[b]);
        free(p);
    }
    if (r[0] < 0 || r[1] < 0)
        fputs("(keys do not decode)", f);
    else if (r[0] == 1 && r[1] == 1)
        fputs("UNBOUNDED", f);
    if (r[0] == 0) {
        cf_kudu_key_text(f, &k[0]);
        fputs(" <= VALUES", f);
    }
    if (r[1] == 0) {
        fputs(r[0] == 0 ? " < " : "VALUES < ", f);
        cf_kudu_key_text(f, &k[1]);
    }
    cf_kudu_key_free(&k[0]);
    cf_kudu_key_free(&k[1]);
}

/* ---- schema ---- */

/* Kudu's own type names (common/types.h TypeTraits::name), upper case as
 * ColumnSchema::TypeToString prints them. */
static const char *kudu_type_text(cf_type t)
{
    switch (t) {
    case CF_TYPE_DECIMAL32:
    case CF_TYPE_DECIMAL64:
    case CF_TYPE_DECIMAL128: return "DECIMAL";
    default: return cf_cli_type_name(t);
    }
}

static const char *array_type_text(cf_type t)
{
    switch (t) {
    case CF_TYPE_DECIMAL32: return "DECIMAL (32 BIT) 1D-ARRAY";
    case CF_TYPE_DECIMAL64: return "DECIMAL (64 BIT) 1D-ARRAY";
    case CF_TYPE_DECIMAL128: return "DECIMAL (128 BIT) 1D-ARRAY";
    default: return NULL;
    }
}

/* One column as Kudu's ColumnSchema::TypeToString: "DECIMAL(18, 2) NULLABLE". */
static void column_type_text(FILE *f, const cf_column *c, bool immutable)
{
    if (c->is_array) {
        const char *a = array_type_text(c->type);
        if (a != NULL)
            fputs(a, f);
        else
            fprintf(f, "%s 1D-ARRAY", cf_cli_type_name(c->type));
    } else {
        fputs(kudu_type_text(c->type), f);
        if (c->type == CF_TYPE_DECIMAL32 || c->type == CF_TYPE_DECIMAL64 ||
            c->type == CF_TYPE_DECIMAL128)
            fprintf(f, "(%d, %d)", c->precision, c->scale);
        else if (c->type == CF_TYPE_VARCHAR)
            fprintf(f, "(%d)", c->length);
    }
    fputs(c->nullable ? " NULLABLE" : " NOT NULL", f);
    if (immutable)
        fputs(" IMMUTABLE", f);
}

/* Schema::ToString with column ids, as `kudu local_replica dump meta` prints it. */
static void schema_text(FILE *f, const cf_kudu_tablet *t, const cf_json *sb)
{
    const cf_schema *s = cf_kudu_tablet_schema(t);
    const cf_json *cols = jget(jget(sb, "schema"), "columns");
    fputs("(\n", f);
    for (size_t i = 0; i < cf_schema_column_count(s); i++) {
        const cf_column *c = cf_schema_column_at(s, i);
        const cf_json *cj = cols != NULL && i < cols->n ? &cols->items[i] : NULL;
        const cf_json *im = jget(cj, "immutable");
        fprintf(f, "    %" PRIu32 ":%s ", cf_kudu_tablet_column_id(t, i), c->name);
        column_type_text(f, c, im != NULL && im->kind == CF_JSON_TRUE);
        fputs(",\n", f);
    }
    fputs("    PRIMARY KEY (", f);
    for (size_t i = 0; i < cf_schema_key_count(s); i++)
        fprintf(f, "%s%s", i ? ", " : "", cf_schema_column_at(s, i)->name);
    fputs(")\n)", f);
}

/* A default value (the type's memory form, little-endian; bytes for binary types)
 * in the golden value form; hex when it does not fit the type. */
static void default_json(cf_jw *w, const cf_column *c, const uint8_t *p, long n)
{
    if (n < 0) {
        cf_jw_null(w);
        return;
    }
    if (c->is_array) {
        cf_jw_hex(w, p, (size_t)n);
        return;
    }
    if (cf_type_is_binary(c->type)) {
        cf_slice s = {p, (size_t)n};
        cf_cli_value_write(w, c->type, &s);
        return;
    }
    _Alignas(16) uint8_t slot[16] = {0};
    size_t sz = cf_type_size(c->type);
    if (sz == 0 || sz > sizeof slot || (size_t)n < sz) {
        cf_jw_hex(w, p, (size_t)n);
        return;
    }
    memcpy(slot, p, sz);
    cf_cli_value_write(w, c->type, slot);
}

static void schema_json(cf_jw *w, const cf_kudu_tablet *t, const cf_json *sb)
{
    const cf_schema *s = cf_kudu_tablet_schema(t);
    const cf_json *cols = jget(jget(sb, "schema"), "columns");
    cf_jw_obj_begin(w);
    cf_jw_key(w, "columns");
    cf_jw_arr_begin(w);
    for (size_t i = 0; i < cf_schema_column_count(s); i++) {
        const cf_column *c = cf_schema_column_at(s, i);
        const cf_json *cj = cols != NULL && i < cols->n ? &cols->items[i] : NULL;
        cf_jw_obj_begin(w);
        cf_jw_key(w, "id");
        cf_jw_uint(w, cf_kudu_tablet_column_id(t, i));
        cf_jw_key(w, "name");
        cf_jw_cstr(w, c->name);
        cf_jw_key(w, "type");
        cf_jw_cstr(w, jstr(cj, "type") ? jstr(cj, "type") : cf_cli_type_name(c->type));
        if (c->is_array) {
            cf_jw_key(w, "element_type");
            cf_jw_cstr(w, cf_cli_type_name(c->type));
        }
        cf_jw_key(w, "nullable");
        cf_jw_bool(w, c->nullable);
        cf_jw_key(w, "is_key");
        cf_jw_bool(w, c->is_key);
        cf_jw_key(w, "encoding");
        cf_jw_cstr(w, jstr(cj, "encoding") ? jstr(cj, "encoding") : "AUTO_ENCODING");
        cf_jw_key(w, "compression");
        cf_jw_cstr(w, jstr(cj, "compression") ? jstr(cj, "compression") : "DEFAULT_COMPRESSION");
        cf_jw_key(w, "cfile_block_size");
        cf_jw_int(w, jint(cj, "cfile_block_size", 0));
        if (c->type == CF_TYPE_DECIMAL32 || c->type == CF_TYPE_DECIMAL64 ||
            c->type == CF_TYPE_DECIMAL128) {
            cf_jw_key(w, "precision");
            cf_jw_int(w, c->precision);
            cf_jw_key(w, "scale");
            cf_jw_int(w, c->scale);
        }
        if (c->type == CF_TYPE_VARCHAR) {
            cf_jw_key(w, "length");
            cf_jw_int(w, c->length);
        }
        static const char *const defs[2][2] = {{"read_default_value", "read_default"},
                                               {"write_default_value", "write_default"}};
        for (int d = 0; d < 2; d++) {
            uint8_t *p;
            long n = jbytes(cj, defs[d][0], &p);
            cf_jw_key(w, defs[d][1]);
            default_json(w, c, p, n);
            free(p);
        }
        const cf_json *im = jget(cj, "immutable"), *ai = jget(cj, "is_auto_incrementing");
        cf_jw_key(w, "immutable");
        cf_jw_bool(w, im != NULL && im->kind == CF_JSON_TRUE);
        cf_jw_key(w, "auto_incrementing");
        cf_jw_bool(w, ai != NULL && ai->kind == CF_JSON_TRUE);
        cf_jw_key(w, "comment");
        if (jstr(cj, "comment"))
            cf_jw_cstr(w, jstr(cj, "comment"));
        else
            cf_jw_null(w);
        cf_jw_obj_end(w);
    }
    cf_jw_arr_end(w);
    cf_jw_key(w, "primary_key");
    cf_jw_arr_begin(w);
    for (size_t i = 0; i < cf_schema_key_count(s); i++)
        cf_jw_cstr(w, cf_schema_column_at(s, i)->name);
    cf_jw_arr_end(w);
    cf_jw_key(w, "schema_version");
    cf_jw_int(w, jint(sb, "schema_version", 0));
    cf_jw_obj_end(w);
}

/* ---- consensus metadata ---- */

static void consensus_json(cf_jw *w, const meta_json *m)
{
    if (!m->has_cm) {
        cf_jw_null(w);
        return;
    }
    const cf_json *cm = &m->cm.root, *cfg = jget(cm, "committed_config");
    const cf_json *peers = jget(cfg, "peers");
    cf_jw_obj_begin(w);
    cf_jw_key(w, "current_term");
    cf_jw_int(w, jint(cm, "current_term", 0));
    cf_jw_key(w, "voted_for");
    if (jstr(cm, "voted_for"))
        cf_jw_cstr(w, jstr(cm, "voted_for"));
    else
        cf_jw_null(w);
    cf_jw_key(w, "committed_config");
    cf_jw_obj_begin(w);
    cf_jw_key(w, "opid_index");
    cf_jw_int(w, jint(cfg, "opid_index", -1));
    cf_jw_key(w, "peers");
    cf_jw_arr_begin(w);
    for (size_t i = 0; peers != NULL && i < peers->n; i++) {
        const cf_json *p = &peers->items[i], *addr = jget(p, "last_known_addr");
        cf_jw_obj_begin(w);
        uint8_t *uuid;
        long n = jbytes(p, "permanent_uuid", &uuid);
        cf_jw_key(w, "permanent_uuid");
        if (n >= 0)
            cf_jw_bytes(w, uuid, (size_t)n);
        else
            cf_jw_null(w);
        free(uuid);
        cf_jw_key(w, "member_type");
        cf_jw_cstr(w, jstr(p, "member_type") ? jstr(p, "member_type") : "UNKNOWN_MEMBER_TYPE");
        cf_jw_key(w, "host");
        if (jstr(addr, "host"))
            cf_jw_cstr(w, jstr(addr, "host"));
        else
            cf_jw_null(w);
        cf_jw_key(w, "port");
        if (addr != NULL)
            cf_jw_int(w, jint(addr, "port", 0));
        else
            cf_jw_null(w);
        cf_jw_obj_end(w);
    }
    cf_jw_arr_end(w);
    cf_jw_obj_end(w);
    cf_jw_obj_end(w);
}

static void consensus_text(FILE *f, const meta_json *m)
{
    if (!m->has_cm) {
        fprintf(f, "Consensus metadata: %s\n", m->cm_err[0] ? m->cm_err : "none");
        return;
    }
    const cf_json *cm = &m->cm.root, *cfg = jget(cm, "committed_config");
    const cf_json *peers = jget(cfg, "peers");
    fprintf(f, "Consensus metadata: term %lld, voted for %s, committed config (opid index %lld):",
            jint(cm, "current_term", 0), jstr(cm, "voted_for") ? jstr(cm, "voted_for") : "-",
            jint(cfg, "opid_index", -1));
    for (size_t i = 0; peers != NULL && i < peers->n; i++) {
        const cf_json *p = &peers->items[i], *addr = jget(p, "last_known_addr");
        uint8_t *uuid;
        long n = jbytes(p, "permanent_uuid", &uuid);
        fprintf(f, "%s %.*s %s", i ? "," : "", n < 0 ? 1 : (int)n, n < 0 ? "?" : (char *)uuid,
                jstr(p, "member_type") ? jstr(p, "member_type") : "?");
        if (addr != NULL)
            fprintf(f, " %s:%lld", jstr(addr, "host") ? jstr(addr, "host") : "?",
                    jint(addr, "port", 0));
        free(uuid);
    }
    fputc('\n', f);
}

/* ---- rowsets and their blocks ---- */

/* The rowset's keys (all primary key columns) decoded into k, 0 or -1. */
static int rowset_key(const cf_kudu_tablet *t, const uint8_t *p, size_t len, cf_kudu_key *k)
{
    const cf_schema *s = cf_kudu_tablet_schema(t);
    size_t nk = cf_schema_key_count(s);
    cf_type types[CF_KUDU_KEY_MAX_COLS];
    const char *names[CF_KUDU_KEY_MAX_COLS];
    memset(k, 0, sizeof(*k));
    if (nk > CF_KUDU_KEY_MAX_COLS)
        return -1;
    for (size_t i = 0; i < nk; i++) {
        types[i] = cf_schema_column_at(s, i)->type;
        names[i] = cf_schema_column_at(s, i)->name;
    }
    return cf_kudu_key_decode(k, types, names, nk, p, len);
}

/* The name of the column with Kudu id `id`, or NULL. */
static const char *column_name(const cf_kudu_tablet *t, uint32_t id)
{
    const cf_schema *s = cf_kudu_tablet_schema(t);
    for (size_t i = 0; i < cf_schema_column_count(s); i++)
        if (cf_kudu_tablet_column_id(t, i) == id)
            return cf_schema_column_at(s, i)->name;
    return NULL;
}

/* One block a rowset names: its kind and where the fs has it. */
typedef struct rblock {
    uint64_t id;
    cf_kudu_block_kind kind;
    long column_id;         /* COLUMN, else -1 */
    long delta_index;       /* UNDO/REDO, else -1 */
    const cf_kudu_block *b; /* NULL: missing */
} rblock;

/* Every block of rowset rs in Kudu's order (columns, bloom, ad-hoc index, UNDO,
 * REDO) into a malloc'd array. */
static rblock *rowset_blocks(const cf_kudu_fs *fs, const cf_kudu_rowset *rs, size_t *n)
{
    size_t cap = rs->ncolumns + rs->nundo + rs->nredo + 2;
    rblock *v = calloc(cap, sizeof *v);
    size_t k = 0;
    if (v == NULL) {
        *n = 0;
        return NULL;
    }
    for (size_t i = 0; i < rs->ncolumns; i++)
        v[k++] =
            (rblock){rs->column_blocks[i], CF_KUDU_BLOCK_COLUMN, (long)rs->column_ids[i], -1, NULL};
    if (rs->has_bloom)
        v[k++] = (rblock){rs->bloom_block, CF_KUDU_BLOCK_BLOOM, -1, -1, NULL};
    if (rs->has_adhoc_index)
        v[k++] = (rblock){rs->adhoc_index_block, CF_KUDU_BLOCK_ADHOC_INDEX, -1, -1, NULL};
    for (size_t i = 0; i < rs->nundo; i++)
        v[k++] = (rblock){rs->undo_blocks[i], CF_KUDU_BLOCK_UNDO, -1, (long)i, NULL};
    for (size_t i = 0; i < rs->nredo; i++)
        v[k++] = (rblock){rs->redo_blocks[i], CF_KUDU_BLOCK_REDO, -1, (long)i, NULL};
    for (size_t i = 0; i < k; i++)
        v[i].b = cf_kudu_fs_find_block(fs, v[i].id);
    *n = k;
    return v;
}

static void key_member(cf_jw *w, const cf_kudu_tablet *t, const char *hexname, const char *name,
                       const uint8_t *p, size_t len)
{
    cf_jw_key(w, hexname);
    if (p == NULL)
        cf_jw_null(w);
    else
        cf_jw_hex(w, p, len);
    cf_jw_key(w, name);
    cf_kudu_key k;
    if (p != NULL && rowset_key(t, p, len, &k) == 0)
        cf_kudu_key_json(w, &k);
    else
        cf_jw_null(w);
    if (p != NULL)
        cf_kudu_key_free(&k);
}

/* Writes the rowsets; returns how many blocks are missing. */
static size_t rowsets_json(cf_jw *w, const cf_kudu_fs *fs, const cf_kudu_tablet *t)
{
    size_t missing = 0;
    cf_jw_arr_begin(w);
    for (size_t r = 0; r < cf_kudu_tablet_rowset_count(t); r++) {
        const cf_kudu_rowset *rs = cf_kudu_tablet_rowset_at(t, r);
        size_t nb;
        rblock *bl = rowset_blocks(fs, rs, &nb);
        uint64_t size = 0;
        cf_jw_obj_begin(w);
        cf_jw_key(w, "id");
        cf_jw_uint(w, rs->id);
        cf_jw_key(w, "last_durable_dms_id");
        cf_jw_int(w, rs->last_durable_dms_id);
        cf_jw_key(w, "live_row_count");
        if (rs->has_live_row_count)
            cf_jw_int(w, rs->live_row_count);
        else
            cf_jw_null(w);
        key_member(w, t, "min_encoded_key", "min_key", rs->min_key, rs->min_key_len);
        key_member(w, t, "max_encoded_key", "max_key", rs->max_key, rs->max_key_len);
        cf_jw_key(w, "blocks");
        cf_jw_arr_begin(w);
        for (size_t i = 0; i < nb; i++) {
            const rblock *b = &bl[i];
            cf_jw_obj_begin(w);
            cf_jw_key(w, "block_id");
            cf_jw_uint(w, b->id);
            cf_jw_key(w, "kind");
            cf_jw_cstr(w, cf_kudu_block_kind_name(b->kind));
            if (b->kind == CF_KUDU_BLOCK_COLUMN) {
                cf_jw_key(w, "column_id");
                cf_jw_int(w, b->column_id);
                cf_jw_key(w, "column");
                const char *nm = column_name(t, (uint32_t)b->column_id);
                if (nm)
                    cf_jw_cstr(w, nm);
                else
                    cf_jw_null(w);
            }
            if (b->delta_index >= 0) {
                cf_jw_key(w, "delta_index");
                cf_jw_int(w, b->delta_index);
            }
            cf_jw_key(w, "missing");
            cf_jw_bool(w, b->b == NULL);
            cf_jw_key(w, "length");
            if (b->b)
                cf_jw_uint(w, b->b->length);
            else
                cf_jw_null(w);
            cf_jw_key(w, "data_dir");
            if (b->b)
                cf_jw_cstr(w, cf_kudu_fs_data_dir_at(fs, b->b->data_dir));
            else
                cf_jw_null(w);
            cf_jw_key(w, "container");
            if (b->b && b->b->container)
                cf_jw_cstr(w, b->b->container);
            else
                cf_jw_null(w);
            cf_jw_key(w, "offset");
            if (b->b && b->b->container)
                cf_jw_uint(w, b->b->offset);
            else
                cf_jw_null(w);
            cf_jw_obj_end(w);
            if (b->b)
                size += b->b->length;
            else
                missing++;
        }
        cf_jw_arr_end(w);
        cf_jw_key(w, "size");
        cf_jw_uint(w, size);
        cf_jw_obj_end(w);
        free(bl);
    }
    cf_jw_arr_end(w);
    return missing;
}

static size_t rowsets_text(FILE *f, const cf_kudu_fs *fs, const cf_kudu_tablet *t)
{
    size_t missing = 0;
    if (cf_kudu_tablet_rowset_count(t) == 0)
        fprintf(f, "No rowsets found on disk for tablet %s\n", cf_kudu_tablet_id(t));
    for (size_t r = 0; r < cf_kudu_tablet_rowset_count(t); r++) {
        const cf_kudu_rowset *rs = cf_kudu_tablet_rowset_at(t, r);
        fprintf(f, "Rowset %zu: id %" PRIu64 ", last durable DMS id %" PRId64, r, rs->id,
                rs->last_durable_dms_id);
        if (rs->has_live_row_count)
            fprintf(f, ", %" PRId64 " live rows", rs->live_row_count);
        fputc('\n', f);
        if (rs->min_key != NULL) {
            cf_kudu_key lo, hi;
            int a = rowset_key(t, rs->min_key, rs->min_key_len, &lo);
            int b = rowset_key(t, rs->max_key, rs->max_key_len, &hi);
            fputs("  keys: ", f);
            if (a == 0 && b == 0) {
                cf_kudu_key_text(f, &lo);
                fputs(" .. ", f);
                cf_kudu_key_text(f, &hi);
            } else {
                fputs("(do not decode)", f);
            }
            fputc('\n', f);
            cf_kudu_key_free(&lo);
            cf_kudu_key_free(&hi);
        }
        size_t nb;
        rblock *bl = rowset_blocks(fs, rs, &nb);
        for (size_t i = 0; i < nb; i++) {
            const rblock *b = &bl[i];
            switch (b->kind) {
            case CF_KUDU_BLOCK_COLUMN: {
                const char *nm = column_name(t, (uint32_t)b->column_id);
                fprintf(f, "  Column block for column ID %ld (%s): %" PRIu64, b->column_id,
                        nm ? nm : "?", b->id);
                break;
            }
            case CF_KUDU_BLOCK_BLOOM: fprintf(f, "  Bloom: %" PRIu64, b->id); break;
            case CF_KUDU_BLOCK_ADHOC_INDEX: fprintf(f, "  Ad-hoc index: %" PRIu64, b->id); break;
            case CF_KUDU_BLOCK_UNDO: fprintf(f, "  UNDO: %" PRIu64, b->id); break;
            default: fprintf(f, "  REDO: %" PRIu64, b->id); break;
            }
            if (b->b == NULL) {
                fputs("  MISSING\n", f);
                missing++;
            } else if (b->b->container != NULL) {
                fprintf(f, "  %" PRIu64 " bytes in %s at %" PRIu64 "\n", b->b->length,
                        b->b->container, b->b->offset);
            } else {
                fprintf(f, "  %" PRIu64 " bytes in %s\n", b->b->length, b->b->path);
            }
        }
        free(bl);
    }
    return missing;
}

/* ---- the subcommands ---- */

static int done(targs *a, int rc)
{
    cf_kudu_fs_free(a->fs);
    cf_kudu_args_free(&a->fs_args);
    return rc;
}

static int cmd_list(cf_cli *c, targs *a)
{
    int rc = 0;
    cf_jw w;
    cf_jw_init(&w, c->out);
    if (a->json) {
        cf_jw_obj_begin(&w);
        cf_jw_key(&w, "tablets");
        cf_jw_arr_begin(&w);
    }
    for (size_t i = 0; i < cf_kudu_fs_tablet_count(a->fs); i++) {
        const char *id = cf_kudu_fs_tablet_at(a->fs, i);
        cf_kudu_tablet *t = NULL;
        cf_error e = {0};
        cf_status st = cf_kudu_tablet_open(&t, a->fs, id, &e);
        meta_json m = {0};
        if (st == CF_OK && meta_load(c, t, &m) != 0)
            st = CF_ECORRUPT;
        if (st != CF_OK) {
            fprintf(c->err, "cfile %s: %s\n", c->cmd, e.msg[0] ? e.msg : cf_status_str(st));
            rc = CF_EXIT_FAIL;
        }
        if (a->json) {
            cf_jw_obj_begin(&w);
            cf_jw_key(&w, "tablet_id");
            cf_jw_cstr(&w, id);
            if (st != CF_OK) {
                cf_jw_key(&w, "error");
                cf_jw_cstr(&w, e.msg);
            } else {
                cf_jw_key(&w, "table_name");
                cf_jw_cstr(&w, cf_kudu_tablet_table_name(t));
                cf_jw_key(&w, "table_id");
                cf_jw_cstr(&w, cf_kudu_tablet_table_id(t));
                cf_jw_key(&w, "tablet_data_state");
                cf_jw_cstr(&w, cf_kudu_tablet_data_state(t));
                cf_jw_key(&w, "partition");
                partition_json(&w, t, &m.sb.root);
                cf_jw_key(&w, "rowsets");
                cf_jw_uint(&w, cf_kudu_tablet_rowset_count(t));
                cf_jw_key(&w, "error");
                cf_jw_null(&w);
            }
            cf_jw_obj_end(&w);
        } else if (st == CF_OK) {
            fprintf(c->out, "%s  %s (%s)  %s  ", id, cf_kudu_tablet_table_name(t),
                    cf_kudu_tablet_table_id(t), cf_kudu_tablet_data_state(t));
            partition_text(c->out, t, &m.sb.root);
            fputc('\n', c->out);
        }
        meta_free(&m);
        cf_kudu_tablet_free(t);
    }
    if (a->json) {
        cf_jw_arr_end(&w);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    }
    return rc;
}

static int cmd_meta(cf_cli *c, targs *a)
{
    cf_kudu_tablet *t = NULL;
    int rc = open_tablet(c, a, a->tablet, &t);
    if (rc != 0)
        return rc;
    meta_json m;
    rc = meta_load(c, t, &m);
    if (rc != 0)
        goto out;
    const cf_json *sb = &m.sb.root;
    if (a->json) {
        cf_jw w;
        cf_jw_init(&w, c->out);
        cf_jw_obj_begin(&w);
        cf_jw_key(&w, "tablet_id");
        cf_jw_cstr(&w, cf_kudu_tablet_id(t));
        cf_jw_key(&w, "table_id");
        cf_jw_cstr(&w, cf_kudu_tablet_table_id(t));
        cf_jw_key(&w, "table_name");
        cf_jw_cstr(&w, cf_kudu_tablet_table_name(t));
        cf_jw_key(&w, "tablet_data_state");
        cf_jw_cstr(&w, cf_kudu_tablet_data_state(t));
        cf_jw_key(&w, "last_durable_mrs_id");
        cf_jw_int(&w, cf_kudu_tablet_last_durable_mrs_id(t));
        cf_jw_key(&w, "partition");
        partition_json(&w, t, sb);
        cf_jw_key(&w, "schema");
        schema_json(&w, t, sb);
        cf_jw_key(&w, "rowsets");
        cf_jw_uint(&w, cf_kudu_tablet_rowset_count(t));
        cf_jw_key(&w, "consensus");
        consensus_json(&w, &m);
        cf_jw_key(&w, "superblock");
        cf_jw_value(&w, sb);
        cf_jw_key(&w, "consensus_meta");
        if (m.has_cm)
            cf_jw_value(&w, &m.cm.root);
        else
            cf_jw_null(&w);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else {
        FILE *f = c->out;
        fputs("Partition: ", f);
        partition_text(f, t, sb);
        fprintf(f, "\nTable name: %s Table id: %s\n", cf_kudu_tablet_table_name(t),
                cf_kudu_tablet_table_id(t));
        fprintf(f, "Schema (version=%lld): ", jint(sb, "schema_version", 0));
        schema_text(f, t, sb);
        fprintf(f, "\nTablet data state: %s\nLast durable MemRowSet id: %" PRId64 "\n",
                cf_kudu_tablet_data_state(t), cf_kudu_tablet_last_durable_mrs_id(t));
        consensus_text(f, &m);
        char *js = NULL;
        cf_error e = {0};
        cf_status st = cf_kudu_tablet_superblock_json(t, true, &js, &e);
        if (st != CF_OK) {
            rc = lib_fail(c, st, &e);
            goto out;
        }
        fprintf(f, "Superblock:\n%s\n", js);
        free(js);
    }
    if (m.cm_err[0]) {
        fprintf(c->err, "cfile %s: %s\n", c->cmd, m.cm_err);
        rc = CF_EXIT_FAIL;
    }
out:
    meta_free(&m);
    cf_kudu_tablet_free(t);
    return rc;
}

static int cmd_schema(cf_cli *c, targs *a)
{
    cf_kudu_tablet *t = NULL;
    int rc = open_tablet(c, a, a->tablet, &t);
    if (rc != 0)
        return rc;
    meta_json m;
    rc = meta_load(c, t, &m);
    if (rc == 0 && a->json) {
        cf_jw w;
        cf_jw_init(&w, c->out);
        schema_json(&w, t, &m.sb.root);
        cf_jw_newline(&w);
    } else if (rc == 0) {
        schema_text(c->out, t, &m.sb.root);
        fputs("\n\ncolumn               encoding         compression          block size  "
              "read default / write default\n",
              c->out);
        const cf_json *cols = jget(jget(&m.sb.root, "schema"), "columns");
        const cf_schema *s = cf_kudu_tablet_schema(t);
        for (size_t i = 0; i < cf_schema_column_count(s); i++) {
            const cf_json *cj = cols != NULL && i < cols->n ? &cols->items[i] : NULL;
            const char *rd = jstr(cj, "read_default_value"), *wd = jstr(cj, "write_default_value");
            fprintf(c->out, "%-20s %-16s %-20s %10lld  %s / %s\n", cf_schema_column_at(s, i)->name,
                    jstr(cj, "encoding") ? jstr(cj, "encoding") : "AUTO_ENCODING",
                    jstr(cj, "compression") ? jstr(cj, "compression") : "DEFAULT_COMPRESSION",
                    jint(cj, "cfile_block_size", 0), rd ? rd : "-", wd ? wd : "-");
        }
    }
    meta_free(&m);
    cf_kudu_tablet_free(t);
    return rc;
}

static int cmd_rowsets(cf_cli *c, targs *a)
{
    cf_kudu_tablet *t = NULL;
    int rc = open_tablet(c, a, a->tablet, &t);
    if (rc != 0)
        return rc;
    size_t missing;
    if (a->json) {
        cf_jw w;
        cf_jw_init(&w, c->out);
        cf_jw_obj_begin(&w);
        cf_jw_key(&w, "tablet_id");
        cf_jw_cstr(&w, cf_kudu_tablet_id(t));
        cf_jw_key(&w, "last_durable_mrs_id");
        cf_jw_int(&w, cf_kudu_tablet_last_durable_mrs_id(t));
        cf_jw_key(&w, "rowsets");
        missing = rowsets_json(&w, a->fs, t);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else {
        fprintf(c->out, "Tablet %s: last durable MemRowSet id %" PRId64 "\n", cf_kudu_tablet_id(t),
                cf_kudu_tablet_last_durable_mrs_id(t));
        missing = rowsets_text(c->out, a->fs, t);
    }
    if (missing > 0) {
        fprintf(c->err, "cfile %s: tablet %s: %zu block(s) named by the superblock are missing\n",
                c->cmd, cf_kudu_tablet_id(t), missing);
        rc = CF_EXIT_FAIL;
    }
    cf_kudu_tablet_free(t);
    return rc;
}

/* data-size: Kudu's kinds ("c<id> (<name>)", REDO, UNDO, BLOOM, PK) per rowset. */
typedef struct sizes {
    uint64_t redo, undo, bloom, pk, columns, total;
    size_t missing;
} sizes;

static void size_add(sizes *s, const rblock *b)
{
    if (b->b == NULL) {
        s->missing++;
        return;
    }
    uint64_t n = b->b->length;
    switch (b->kind) {
    case CF_KUDU_BLOCK_COLUMN: s->columns += n; break;
    case CF_KUDU_BLOCK_BLOOM: s->bloom += n; break;
    case CF_KUDU_BLOCK_ADHOC_INDEX: s->pk += n; break;
    case CF_KUDU_BLOCK_UNDO: s->undo += n; break;
    default: s->redo += n; break;
    }
    s->total += n;
}

static void sizes_json(cf_jw *w, const sizes *s)
{
    static const char *const names[] = {"columns", "REDO", "UNDO", "BLOOM", "PK", "total"};
    const uint64_t v[] = {s->columns, s->redo, s->undo, s->bloom, s->pk, s->total};
    for (size_t i = 0; i < 6; i++) {
        cf_jw_key(w, names[i]);
        cf_jw_uint(w, v[i]);
    }
}

static void sizes_row(FILE *f, const char *table, const char *tablet, const char *rowset,
                      const char *kind, uint64_t n)
{
    fprintf(f, "%-32s  %-32s  %-9s  %-24s  %" PRIu64 "\n", table, tablet, rowset, kind, n);
}

static int cmd_data_size(cf_cli *c, targs *a)
{
    int rc = 0;
    cf_jw w;
    cf_jw_init(&w, c->out);
    if (a->json) {
        cf_jw_obj_begin(&w);
        cf_jw_key(&w, "tablets");
        cf_jw_arr_begin(&w);
    } else {
        fprintf(c->out, "%-32s  %-32s  %-9s  %-24s  %s\n", "table id", "tablet id", "rowset id",
                "block type", "size");
    }
    /* per table: ids and totals */
    size_t ntab = 0;
    char **tab_ids = NULL;
    sizes *tab_sizes = NULL;
    for (size_t i = 0; i < cf_kudu_fs_tablet_count(a->fs); i++) {
        const char *id = cf_kudu_fs_tablet_at(a->fs, i);
        if (a->tablet != NULL && strcmp(id, a->tablet) != 0)
            continue;
        cf_kudu_tablet *t = NULL;
        cf_error e = {0};
        cf_status st = cf_kudu_tablet_open(&t, a->fs, id, &e);
        if (st != CF_OK) {
            fprintf(c->err, "cfile %s: %s\n", c->cmd, e.msg);
            rc = CF_EXIT_FAIL;
            continue;
        }
        const char *table = cf_kudu_tablet_table_id(t);
        sizes ts = {0};
        if (a->json) {
            cf_jw_obj_begin(&w);
            cf_jw_key(&w, "tablet_id");
            cf_jw_cstr(&w, id);
            cf_jw_key(&w, "table_id");
            cf_jw_cstr(&w, table);
            cf_jw_key(&w, "table_name");
            cf_jw_cstr(&w, cf_kudu_tablet_table_name(t));
            cf_jw_key(&w, "rowsets");
            cf_jw_arr_begin(&w);
        }
        for (size_t r = 0; r < cf_kudu_tablet_rowset_count(t); r++) {
            const cf_kudu_rowset *rs = cf_kudu_tablet_rowset_at(t, r);
            size_t nb;
            rblock *bl = rowset_blocks(a->fs, rs, &nb);
            sizes s = {0};
            char rsid[24];
            snprintf(rsid, sizeof rsid, "%" PRIu64, rs->id);
            if (a->json) {
                cf_jw_obj_begin(&w);
                cf_jw_key(&w, "rowset_id");
                cf_jw_uint(&w, rs->id);
                cf_jw_key(&w, "column_sizes");
                cf_jw_obj_begin(&w);
            }
            for (size_t k = 0; k < nb; k++) {
                size_add(&s, &bl[k]);
                if (bl[k].kind != CF_KUDU_BLOCK_COLUMN)
                    continue;
                const char *nm = column_name(t, (uint32_t)bl[k].column_id);
                char key[300];
                snprintf(key, sizeof key, "c%ld (%s)", bl[k].column_id, nm ? nm : "?");
                uint64_t n = bl[k].b ? bl[k].b->length : 0;
                if (a->json) {
                    cf_jw_key(&w, key);
                    cf_jw_uint(&w, n);
                } else {
                    sizes_row(c->out, table, id, rsid, key, n);
                }
            }
            if (a->json) {
                cf_jw_obj_end(&w);
                sizes_json(&w, &s);
                cf_jw_obj_end(&w);
            } else {
                sizes_row(c->out, table, id, rsid, "REDO", s.redo);
                sizes_row(c->out, table, id, rsid, "UNDO", s.undo);
                sizes_row(c->out, table, id, rsid, "BLOOM", s.bloom);
                sizes_row(c->out, table, id, rsid, "PK", s.pk);
                sizes_row(c->out, table, id, rsid, "*", s.total);
            }
            ts.columns += s.columns;
            ts.redo += s.redo;
            ts.undo += s.undo;
            ts.bloom += s.bloom;
            ts.pk += s.pk;
            ts.total += s.total;
            ts.missing += s.missing;
            free(bl);
        }
        if (a->json) {
            cf_jw_arr_end(&w);
            sizes_json(&w, &ts);
            cf_jw_key(&w, "missing_blocks");
            cf_jw_uint(&w, ts.missing);
            cf_jw_obj_end(&w);
        } else {
            sizes_row(c->out, table, id, "*", "*", ts.total);
        }
        if (ts.missing > 0) {
            fprintf(c->err,
                    "cfile %s: tablet %s: %zu block(s) named by the superblock are missing\n",
                    c->cmd, id, ts.missing);
            rc = CF_EXIT_FAIL;
        }
        size_t j = 0;
        while (j < ntab && strcmp(tab_ids[j], table) != 0)
            j++;
        if (j == ntab) {
            char **ni = realloc(tab_ids, (ntab + 1) * sizeof *ni);
            if (ni != NULL)
                tab_ids = ni;
            sizes *ns = realloc(tab_sizes, (ntab + 1) * sizeof *ns);
            if (ns != NULL)
                tab_sizes = ns;
            char *dup = strdup(table);
            if (ni == NULL || ns == NULL || dup == NULL) {
                free(dup);
                cf_kudu_tablet_free(t);
                rc = cf_cli_fail(c, "out of memory");
                break;
            }
            tab_ids[ntab] = dup;
            tab_sizes[ntab] = (sizes){0};
            ntab++;
        }
        tab_sizes[j].total += ts.total;
        cf_kudu_tablet_free(t);
    }
    if (a->json) {
        cf_jw_arr_end(&w);
        cf_jw_key(&w, "tables");
        cf_jw_arr_begin(&w);
        for (size_t j = 0; j < ntab; j++) {
            cf_jw_obj_begin(&w);
            cf_jw_key(&w, "table_id");
            cf_jw_cstr(&w, tab_ids[j]);
            cf_jw_key(&w, "total");
            cf_jw_uint(&w, tab_sizes[j].total);
            cf_jw_obj_end(&w);
        }
        cf_jw_arr_end(&w);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else {
        for (size_t j = 0; j < ntab; j++)
            sizes_row(c->out, tab_ids[j], "*", "*", "*", tab_sizes[j].total);
    }
    for (size_t j = 0; j < ntab; j++)
        free(tab_ids[j]);
    free(tab_ids);
    free(tab_sizes);
    if (a->tablet != NULL && ntab == 0 && rc == 0) {
        fprintf(c->err, "cfile %s: tablet %s is not on this server\n", c->cmd, a->tablet);
        rc = CF_EXIT_FAIL;
    }
    return rc;
}

int cf_cmd_kudu_tablet(cf_cli *c, int argc, char **argv)
{
    static const struct {
        const char *name;
        int want; /* the tablet operand: 0 none, 1 required, 2 optional */
        int (*fn)(cf_cli *, targs *);
    } subs[] = {
        {"list", 0, cmd_list},       {"meta", 1, cmd_meta},           {"schema", 1, cmd_schema},
        {"rowsets", 1, cmd_rowsets}, {"data-size", 2, cmd_data_size},
    };
    cf_cli sub = *c;
    sub.cmd = "kudu tablet";
    sub.usage = tablet_usage;
    if (argc < 2)
        return cf_cli_usage(&sub, "expected: list, meta, schema, rowsets, data-size or scan");
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
        return cf_cli_help(&sub);
    if (strcmp(argv[1], "scan") == 0) {
        sub.cmd = "kudu tablet scan";
        sub.usage = cf_cmd_kudu_tablet_scan_usage;
        cf_cli_getopt_reset();
        return cf_cmd_kudu_tablet_scan(&sub, argc - 1, argv + 1);
    }
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
        if (strcmp(argv[1], subs[i].name) != 0)
            continue;
        char cmd[64];
        snprintf(cmd, sizeof cmd, "kudu tablet %s", subs[i].name);
        sub.cmd = cmd;
        targs a = {0};
        cf_kudu_args_init(&a.fs_args);
        int rc = parse(&sub, argc - 1, argv + 1, subs[i].want, &a);
        if (rc != 0)
            return done(&a, rc < 0 ? CF_EXIT_OK : rc);
        return done(&a, subs[i].fn(&sub, &a));
    }
    return cf_cli_usage(&sub, "unknown tablet command '%s'", argv[1]);
}

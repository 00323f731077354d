/* What the `cfile kudu tablet` subcommands print (kudu_tablet_out.h). */
#include "kudu_tablet_out.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kudu_key.h"
#include "vprint.h"

int cf_kt_lib_fail(cf_cli *c, cf_status st, const cf_error *e)
{
    fprintf(c->err, "cfile %s: %s\n", c->cmd, e->msg[0] ? e->msg : cf_status_str(st));
    return st == CF_ENOTSUP ? CF_EXIT_NOTSUP : st == CF_EINVAL ? CF_EXIT_USAGE : CF_EXIT_FAIL;
}

/* ---- the superblock's and consensus metadata's JSON ---- */

int cf_kt_meta_load(cf_cli *c, const cf_kudu_tablet *t, cf_kt_meta_json *m)
{
    memset(m, 0, sizeof(*m));
    cf_error e = {0};
    char *js = NULL, msg[256];
    cf_status st = cf_kudu_tablet_superblock_json(t, false, &js, &e);
    if (st != CF_OK)
        return cf_kt_lib_fail(c, st, &e);
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

void cf_kt_meta_free(cf_kt_meta_json *m)
{
    if (m->has_sb)
        cf_json_doc_dispose(&m->sb);
    if (m->has_cm)
        cf_json_doc_dispose(&m->cm);
}

const cf_json *cf_kt_jget(const cf_json *o, const char *k)
{
    return o != NULL && o->kind == CF_JSON_OBJECT ? cf_json_get(o, k) : NULL;
}

const char *cf_kt_jstr(const cf_json *o, const char *k)
{
    const cf_json *v = cf_kt_jget(o, k);
    return v != NULL && v->kind == CF_JSON_STRING ? v->str : NULL;
}

const char *cf_kt_jstr_or(const cf_json *o, const char *k, const char *dflt)
{
    const char *v = cf_kt_jstr(o, k);
    return v != NULL ? v : dflt;
}

/* A protobuf JSON integer (number or decimal string), or dflt. */
long long cf_kt_jint(const cf_json *o, const char *k, long long dflt)
{
    const cf_json *v = cf_kt_jget(o, k);
    if (v == NULL || (v->kind != CF_JSON_NUMBER && v->kind != CF_JSON_STRING))
        return dflt;
    return strtoll(v->str, NULL, 10);
}

/* A base64 bytes field into a malloc'd buffer; -1 absent or bad. */
static long jbytes(const cf_json *o, const char *k, uint8_t **out)
{
    *out = NULL;
    const char *s = cf_kt_jstr(o, k);
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
    const char *name = cf_kt_jstr(ident, "name");
    if (name != NULL)
        return cf_schema_find(s, name);
    long long id = cf_kt_jint(ident, "id", -1);
    for (size_t i = 0; i < cf_schema_column_count(s); i++)
        if ((long long)cf_kudu_tablet_column_id(t, i) == id)
            return (int)i;
    return -1;
}

/* The range partition columns: range_schema's, or the primary key when the
 * partition schema has no range schema (PartitionSchema::FromPB). */
static size_t range_columns(const cf_kudu_tablet *t, const cf_json *ps, int *cols, size_t cap)
{
    const cf_json *rs = cf_kt_jget(ps, "range_schema");
    size_t n = 0;
    if (rs == NULL) {
        size_t nk = cf_schema_key_count(cf_kudu_tablet_schema(t));
        for (size_t i = 0; i < nk && n < cap; i++)
            cols[n++] = (int)i;
        return n;
    }
    const cf_json *cl = cf_kt_jget(rs, "columns");
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
void cf_kt_partition_json(cf_jw *w, const cf_kudu_tablet *t, const cf_json *sb)
{
    const cf_json *part = cf_kt_jget(sb, "partition"), *ps = cf_kt_jget(sb, "partition_schema");
    const cf_json *hs = cf_kt_jget(ps, "hash_schema"), *hb = cf_kt_jget(part, "hash_buckets");
    size_t nhash = hs ? hs->n : 0;
    int cols[CF_KUDU_KEY_MAX_COLS];
    size_t ncols = range_columns(t, ps, cols, CF_KUDU_KEY_MAX_COLS);
    cf_jw_obj_begin(w);
    cf_jw_kv_arr_begin(w, "hash_buckets");
    for (size_t i = 0; hb != NULL && i < hb->n; i++)
        cf_jw_int(w, strtoll(hb->items[i].str ? hb->items[i].str : "0", NULL, 10));
    cf_jw_arr_end(w);
    cf_jw_kv_arr_begin(w, "range_columns");
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
void cf_kt_partition_text(FILE *f, const cf_kudu_tablet *t, const cf_json *sb)
{
    const cf_json *part = cf_kt_jget(sb, "partition"), *ps = cf_kt_jget(sb, "partition_schema");
    const cf_json *hs = cf_kt_jget(ps, "hash_schema"), *hb = cf_kt_jget(part, "hash_buckets");
    const cf_schema *s = cf_kudu_tablet_schema(t);
    size_t nhash = hs ? hs->n : 0;
    for (size_t i = 0; i < nhash; i++) {
        const cf_json *cl = cf_kt_jget(&hs->items[i], "columns");
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
void cf_kt_schema_text(FILE *f, const cf_kudu_tablet *t, const cf_json *sb)
{
    const cf_schema *s = cf_kudu_tablet_schema(t);
    const cf_json *cols = cf_kt_jget(cf_kt_jget(sb, "schema"), "columns");
    fputs("(\n", f);
    for (size_t i = 0; i < cf_schema_column_count(s); i++) {
        const cf_column *c = cf_schema_column_at(s, i);
        const cf_json *cj = cols != NULL && i < cols->n ? &cols->items[i] : NULL;
        const cf_json *im = cf_kt_jget(cj, "immutable");
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

void cf_kt_schema_json(cf_jw *w, const cf_kudu_tablet *t, const cf_json *sb)
{
    const cf_schema *s = cf_kudu_tablet_schema(t);
    const cf_json *cols = cf_kt_jget(cf_kt_jget(sb, "schema"), "columns");
    cf_jw_obj_begin(w);
    cf_jw_kv_arr_begin(w, "columns");
    for (size_t i = 0; i < cf_schema_column_count(s); i++) {
        const cf_column *c = cf_schema_column_at(s, i);
        const cf_json *cj = cols != NULL && i < cols->n ? &cols->items[i] : NULL;
        cf_jw_obj_begin(w);
        cf_jw_kv_uint(w, "id", cf_kudu_tablet_column_id(t, i));
        cf_jw_kv_cstr(w, "name", c->name);
        cf_jw_kv_cstr(w, "type", cf_kt_jstr_or(cj, "type", cf_cli_type_name(c->type)));
        if (c->is_array)
            cf_jw_kv_cstr(w, "element_type", cf_cli_type_name(c->type));
        cf_jw_kv_bool(w, "nullable", c->nullable);
        cf_jw_kv_bool(w, "is_key", c->is_key);
        cf_jw_kv_cstr(w, "encoding", cf_kt_jstr_or(cj, "encoding", "AUTO_ENCODING"));
        cf_jw_kv_cstr(w, "compression", cf_kt_jstr_or(cj, "compression", "DEFAULT_COMPRESSION"));
        cf_jw_kv_int(w, "cfile_block_size", cf_kt_jint(cj, "cfile_block_size", 0));
        if (c->type == CF_TYPE_DECIMAL32 || c->type == CF_TYPE_DECIMAL64 ||
            c->type == CF_TYPE_DECIMAL128) {
            cf_jw_kv_int(w, "precision", c->precision);
            cf_jw_kv_int(w, "scale", c->scale);
        }
        if (c->type == CF_TYPE_VARCHAR)
            cf_jw_kv_int(w, "length", c->length);
        static const char *const defs[2][2] = {{"read_default_value", "read_default"},
                                               {"write_default_value", "write_default"}};
        for (int d = 0; d < 2; d++) {
            uint8_t *p;
            long n = jbytes(cj, defs[d][0], &p);
            cf_jw_key(w, defs[d][1]);
            default_json(w, c, p, n);
            free(p);
        }
        const cf_json *im = cf_kt_jget(cj, "immutable"),
                      *ai = cf_kt_jget(cj, "is_auto_incrementing");
        cf_jw_kv_bool(w, "immutable", im != NULL && im->kind == CF_JSON_TRUE);
        cf_jw_kv_bool(w, "auto_incrementing", ai != NULL && ai->kind == CF_JSON_TRUE);
        cf_jw_kv_opt_cstr(w, "comment", cf_kt_jstr(cj, "comment"));
        cf_jw_obj_end(w);
    }
    cf_jw_arr_end(w);
    cf_jw_kv_arr_begin(w, "primary_key");
    for (size_t i = 0; i < cf_schema_key_count(s); i++)
        cf_jw_cstr(w, cf_schema_column_at(s, i)->name);
    cf_jw_arr_end(w);
    cf_jw_kv_int(w, "schema_version", cf_kt_jint(sb, "schema_version", 0));
    cf_jw_obj_end(w);
}

/* ---- consensus metadata ---- */

void cf_kt_consensus_json(cf_jw *w, const cf_kt_meta_json *m)
{
    if (!m->has_cm) {
        cf_jw_null(w);
        return;
    }
    const cf_json *cm = &m->cm.root, *cfg = cf_kt_jget(cm, "committed_config");
    const cf_json *peers = cf_kt_jget(cfg, "peers");
    cf_jw_obj_begin(w);
    cf_jw_kv_int(w, "current_term", cf_kt_jint(cm, "current_term", 0));
    cf_jw_kv_opt_cstr(w, "voted_for", cf_kt_jstr(cm, "voted_for"));
    cf_jw_kv_obj_begin(w, "committed_config");
    cf_jw_kv_int(w, "opid_index", cf_kt_jint(cfg, "opid_index", -1));
    cf_jw_kv_arr_begin(w, "peers");
    for (size_t i = 0; peers != NULL && i < peers->n; i++) {
        const cf_json *p = &peers->items[i], *addr = cf_kt_jget(p, "last_known_addr");
        cf_jw_obj_begin(w);
        uint8_t *uuid;
        long n = jbytes(p, "permanent_uuid", &uuid);
        cf_jw_key(w, "permanent_uuid");
        if (n >= 0)
            cf_jw_bytes(w, uuid, (size_t)n);
        else
            cf_jw_null(w);
        free(uuid);
        cf_jw_kv_cstr(w, "member_type", cf_kt_jstr_or(p, "member_type", "UNKNOWN_MEMBER_TYPE"));
        cf_jw_kv_opt_cstr(w, "host", cf_kt_jstr(addr, "host"));
        cf_jw_kv_opt_int(w, "port", addr != NULL, cf_kt_jint(addr, "port", 0));
        cf_jw_obj_end(w);
    }
    cf_jw_arr_end(w);
    cf_jw_obj_end(w);
    cf_jw_obj_end(w);
}

void cf_kt_consensus_text(FILE *f, const cf_kt_meta_json *m)
{
    if (!m->has_cm) {
        fprintf(f, "Consensus metadata: %s\n", m->cm_err[0] ? m->cm_err : "none");
        return;
    }
    const cf_json *cm = &m->cm.root, *cfg = cf_kt_jget(cm, "committed_config");
    const cf_json *peers = cf_kt_jget(cfg, "peers");
    fprintf(f, "Consensus metadata: term %lld, voted for %s, committed config (opid index %lld):",
            cf_kt_jint(cm, "current_term", 0), cf_kt_jstr_or(cm, "voted_for", "-"),
            cf_kt_jint(cfg, "opid_index", -1));
    for (size_t i = 0; peers != NULL && i < peers->n; i++) {
        const cf_json *p = &peers->items[i], *addr = cf_kt_jget(p, "last_known_addr");
        uint8_t *uuid;
        long n = jbytes(p, "permanent_uuid", &uuid);
        fprintf(f, "%s %.*s %s", i ? "," : "", n < 0 ? 1 : (int)n, n < 0 ? "?" : (char *)uuid,
                cf_kt_jstr_or(p, "member_type", "?"));
        if (addr != NULL)
            fprintf(f, " %s:%lld", cf_kt_jstr_or(addr, "host", "?"), cf_kt_jint(addr, "port", 0));
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
const char *cf_kt_column_name(const cf_kudu_tablet *t, uint32_t id)
{
    const cf_schema *s = cf_kudu_tablet_schema(t);
    for (size_t i = 0; i < cf_schema_column_count(s); i++)
        if (cf_kudu_tablet_column_id(t, i) == id)
            return cf_schema_column_at(s, i)->name;
    return NULL;
}

/* Every block of rowset rs in Kudu's order (columns, bloom, ad-hoc index, UNDO,
 * REDO) into a malloc'd array. */
cf_kt_rblock *cf_kt_rowset_blocks(const cf_kudu_fs *fs, const cf_kudu_rowset *rs, size_t *n)
{
    size_t cap = rs->ncolumns + rs->nundo + rs->nredo + 2;
    cf_kt_rblock *v = calloc(cap, sizeof *v);
    size_t k = 0;
    if (v == NULL) {
        *n = 0;
        return NULL;
    }
    for (size_t i = 0; i < rs->ncolumns; i++)
        v[k++] = (cf_kt_rblock){rs->column_blocks[i], CF_KUDU_BLOCK_COLUMN, (long)rs->column_ids[i],
                                -1, NULL};
    if (rs->has_bloom)
        v[k++] = (cf_kt_rblock){rs->bloom_block, CF_KUDU_BLOCK_BLOOM, -1, -1, NULL};
    if (rs->has_adhoc_index)
        v[k++] = (cf_kt_rblock){rs->adhoc_index_block, CF_KUDU_BLOCK_ADHOC_INDEX, -1, -1, NULL};
    for (size_t i = 0; i < rs->nundo; i++)
        v[k++] = (cf_kt_rblock){rs->undo_blocks[i], CF_KUDU_BLOCK_UNDO, -1, (long)i, NULL};
    for (size_t i = 0; i < rs->nredo; i++)
        v[k++] = (cf_kt_rblock){rs->redo_blocks[i], CF_KUDU_BLOCK_REDO, -1, (long)i, NULL};
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
size_t cf_kt_rowsets_json(cf_jw *w, const cf_kudu_fs *fs, const cf_kudu_tablet *t)
{
    size_t missing = 0;
    cf_jw_arr_begin(w);
    for (size_t r = 0; r < cf_kudu_tablet_rowset_count(t); r++) {
        const cf_kudu_rowset *rs = cf_kudu_tablet_rowset_at(t, r);
        size_t nb;
        cf_kt_rblock *bl = cf_kt_rowset_blocks(fs, rs, &nb);
        uint64_t size = 0;
        cf_jw_obj_begin(w);
        cf_jw_kv_uint(w, "id", rs->id);
        cf_jw_kv_int(w, "last_durable_dms_id", rs->last_durable_dms_id);
        cf_jw_kv_opt_int(w, "live_row_count", rs->has_live_row_count, rs->live_row_count);
        key_member(w, t, "min_encoded_key", "min_key", rs->min_key, rs->min_key_len);
        key_member(w, t, "max_encoded_key", "max_key", rs->max_key, rs->max_key_len);
        cf_jw_kv_arr_begin(w, "blocks");
        for (size_t i = 0; i < nb; i++) {
            const cf_kt_rblock *b = &bl[i];
            cf_jw_obj_begin(w);
            cf_jw_kv_uint(w, "block_id", b->id);
            cf_jw_kv_cstr(w, "kind", cf_kudu_block_kind_name(b->kind));
            if (b->kind == CF_KUDU_BLOCK_COLUMN) {
                cf_jw_kv_int(w, "column_id", b->column_id);
                cf_jw_key(w, "column");
                const char *nm = cf_kt_column_name(t, (uint32_t)b->column_id);
                if (nm)
                    cf_jw_cstr(w, nm);
                else
                    cf_jw_null(w);
            }
            if (b->delta_index >= 0)
                cf_jw_kv_int(w, "delta_index", b->delta_index);
            cf_jw_kv_bool(w, "missing", b->b == NULL);
            cf_jw_kv_opt_uint(w, "length", b->b != NULL, b->b ? b->b->length : 0);
            cf_jw_kv_opt_cstr(w, "data_dir",
                              b->b ? cf_kudu_fs_data_dir_at(fs, b->b->data_dir) : NULL);
            cf_jw_kv_opt_cstr(w, "container", b->b && b->b->container ? b->b->container : NULL);
            cf_jw_kv_opt_uint(w, "offset", b->b && b->b->container, b->b ? b->b->offset : 0);
            cf_jw_obj_end(w);
            if (b->b)
                size += b->b->length;
            else
                missing++;
        }
        cf_jw_arr_end(w);
        cf_jw_kv_uint(w, "size", size);
        cf_jw_obj_end(w);
        free(bl);
    }
    cf_jw_arr_end(w);
    return missing;
}

size_t cf_kt_rowsets_text(FILE *f, const cf_kudu_fs *fs, const cf_kudu_tablet *t)
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
        cf_kt_rblock *bl = cf_kt_rowset_blocks(fs, rs, &nb);
        for (size_t i = 0; i < nb; i++) {
            const cf_kt_rblock *b = &bl[i];
            switch (b->kind) {
            case CF_KUDU_BLOCK_COLUMN: {
                const char *nm = cf_kt_column_name(t, (uint32_t)b->column_id);
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

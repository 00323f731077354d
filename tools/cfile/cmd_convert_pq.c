/* `cfile convert IN.parquet OUT`: a Parquet file into one CFile, one CFile per
 * column, or a table. Rows stream through record assembly a batch at a time
 * (never more than one row group's batch in memory), are converted to Kudu's
 * memory forms (pq_kudu.c) and go to CFile writers (each file created
 * atomically; a failure removes the files this run made) or to one table
 * loader (all rows or none, under the table's lock). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cfile/parquet.h>
#include <cfile/rowset.h>

#include "convert.h"
#include "csv.h"
#include "pq_kudu.h"

#define PQ_BATCH_ROWS 4096

typedef struct pqconv {
    cf_cli *c;
    const cf_pq_convert_args *a;
    cf_parquet *pq;
    cf_parquet_records *rec;
    cf_pq_kcol *k;
    size_t n;
    uint32_t *fields;
    cf_cli_progress p;
} pqconv;

/* Open IN, map the chosen top-level columns, and start reading only them. */
static int pq_setup(pqconv *v)
{
    cf_cli *c = v->c;
    const cf_pq_convert_args *a = v->a;
    cf_error e;
    cf_status st = cf_parquet_open_file(&v->pq, a->in, NULL, &e);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, a->in, st, &e);
    cf_parquet_records *all = NULL;
    if ((st = cf_parquet_records_open(&all, v->pq, NULL, &e)) != CF_OK)
        return cf_cli_lib_fail(c, a->in, st, &e);
    const cf_parquet_array *root = cf_parquet_records_schema(all);
    int rc = 0;
    size_t want = a->ncolumns ? a->ncolumns : root->child_count;
    v->k = calloc(want + 1, sizeof(*v->k));
    v->fields = calloc(want + 1, sizeof(*v->fields));
    if (v->k == NULL || v->fields == NULL) {
        rc = cf_cli_fail(c, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < want; i++) {
        uint32_t f = (uint32_t)i;
        if (a->ncolumns) {
            const char *name = a->columns[i];
            size_t len = strlen(name);
            for (f = 0; f < root->child_count; f++) {
                cf_slice nm = root->children[f]->name;
                if (nm.len == len && memcmp(nm.data, name, len) == 0)
                    break;
            }
            if (f == root->child_count) {
                rc = cf_cli_usage(c, "--column: %s has no top-level column '%s'", a->in, name);
                goto out;
            }
            for (size_t j = 0; j < i; j++)
                if (v->fields[j] == f) {
                    rc = cf_cli_usage(c, "--column: '%s' named twice", name);
                    goto out;
                }
        }
        v->fields[i] = f;
        v->n = i + 1;
        if ((rc = cf_pq_kudu_map(c, a->in, root->children[f], f, &v->k[i])) != 0)
            goto out;
    }
    cf_pq_kudu_apply_types(cf_parquet_meta(v->pq), v->k, v->n);
    cf_parquet_records_options o;
    cf_parquet_records_options_init(&o);
    o.batch_rows = PQ_BATCH_ROWS;
    o.fields = v->fields;
    o.field_count = (uint32_t)v->n;
    if (v->n > 0 && (st = cf_parquet_records_open(&v->rec, v->pq, &o, &e)) != CF_OK)
        rc = cf_cli_lib_fail(c, a->in, st, &e);
out:
    cf_parquet_records_free(all);
    return rc;
}

static void pq_dispose(pqconv *v)
{
    cf_parquet_records_free(v->rec);
    for (size_t i = 0; v->k != NULL && i < v->n; i++)
        cf_pq_kudu_dispose(&v->k[i]);
    free(v->k);
    free(v->fields);
    cf_parquet_free(v->pq);
}

/* The next batch converted into v->k[*]; *rows = 0 at the end. */
static int pq_next(pqconv *v, size_t *rows)
{
    cf_error e;
    const cf_parquet_array *b = NULL;
    *rows = 0;
    if (v->rec == NULL)
        return 0;
    cf_status st = cf_parquet_records_next(v->rec, &b, &e);
    if (st != CF_OK)
        return cf_cli_lib_fail(v->c, v->a->in, st, &e);
    if (b == NULL)
        return 0;
    int64_t first = cf_parquet_records_first_row(v->rec);
    for (size_t i = 0; i < v->n; i++) {
        int rc = cf_pq_kudu_convert(v->c, v->a->in, &v->k[i], b->children[i], first);
        if (rc != 0)
            return rc;
    }
    *rows = b->length;
    return 0;
}

/* --json: the members every Parquet-in summary starts with. */
static void json_head(pqconv *v, cf_jw *j, const char *to, uint64_t rows)
{
    cf_jw_report_begin(j, v->c->out, "convert");
    cf_jw_kv_cstr(j, "from", "parquet");
    cf_jw_kv_arr_begin(j, "inputs");
    cf_jw_cstr(j, v->a->in);
    cf_jw_arr_end(j);
    cf_jw_kv_uint(j, "row_groups", cf_parquet_meta(v->pq)->row_group_count);
    cf_jw_kv_cstr(j, "to", to);
    cf_jw_kv_uint(j, "rows", rows);
}

static void json_column(cf_jw *j, const cf_pq_kcol *k)
{
    cf_jw_kv_cstr(j, "column", k->name);
    cf_jw_kv_cstr(j, "type", cf_cli_type_name(k->col.type));
    cf_jw_kv_bool(j, "is_array", k->col.is_array);
    cf_jw_kv_bool(j, "nullable", k->col.nullable);
}

/* ---- CFiles ------------------------------------------------------------------------------ */

static bool exists(const char *path)
{
    struct stat sb;
    return lstat(path, &sb) == 0 || errno != ENOENT;
}

static int to_cfiles(pqconv *v)
{
    cf_cli *c = v->c;
    const cf_pq_convert_args *a = v->a;
    cf_error e;
    cf_status st;
    int rc = 0;
    bool made_dir = false;
    size_t nfinished = 0;
    char **paths = calloc(v->n + 1, sizeof(*paths));
    cf_writer **w = calloc(v->n + 1, sizeof(*w));
    if (paths == NULL || w == NULL) {
        rc = cf_cli_fail(c, "out of memory");
        goto out;
    }
    if (a->to == CF_PQ_TO_CFILE) {
        if (v->n != 1) {
            rc = cf_cli_usage(c, "%s holds one column and %s has %zu: choose one with --column",
                              a->out, a->in, v->n);
            goto out;
        }
        paths[0] = strdup(a->out); /* named by the user: replaced atomically */
        if (paths[0] == NULL) {
            rc = cf_cli_fail(c, "out of memory");
            goto out;
        }
    } else {
        /* One file per column, DIR/<column>.cfile: files the user did not name
         * one by one, so none that exists is replaced. */
        for (size_t i = 0; i < v->n; i++) {
            const char *name = v->k[i].name;
            if (strchr(name, '/') != NULL || name[0] == '\0') {
                cf_cli_fail(c, "%s: column '%s': not usable as a file name", a->in, name);
                rc = CF_EXIT_NOTSUP;
                goto out;
            }
            size_t len = strlen(a->out) + strlen(name) + sizeof("/.cfile");
            if ((paths[i] = malloc(len)) == NULL) {
                rc = cf_cli_fail(c, "out of memory");
                goto out;
            }
            snprintf(paths[i], len, "%s/%s.cfile", a->out, name);
            for (size_t j = 0; j < i; j++)
                if (strcmp(paths[i], paths[j]) == 0) {
                    rc = cf_cli_fail(c, "%s: two columns named '%s'", a->in, name);
                    goto out;
                }
        }
        struct stat sb;
        if (stat(a->out, &sb) != 0) {
            if (mkdir(a->out, 0777) != 0) {
                rc = cf_cli_fail(c, "%s: %s", a->out, strerror(errno));
                goto out;
            }
            made_dir = true;
        } else if (!S_ISDIR(sb.st_mode)) {
            rc = cf_cli_usage(c, "--to cfiles: %s is not a directory", a->out);
            goto out;
        }
        for (size_t i = 0; i < v->n; i++)
            if (exists(paths[i])) {
                rc = cf_cli_fail(c,
                                 "%s exists; not replaced (convert one column to a file "
                                 "you name: --column C OUT.cfile)",
                                 paths[i]);
                goto out;
            }
    }
    for (size_t i = 0; i < v->n; i++) {
        cf_writer_options o;
        cf_writer_options_init(&o, v->k[i].col.type);
        o.nullable = v->k[i].col.nullable;
        o.is_array = v->k[i].col.is_array;
        if ((st = cf_writer_create_file(&w[i], paths[i], &o, &e)) != CF_OK) {
            rc = cf_cli_lib_fail(c, paths[i], st, &e);
            goto out;
        }
    }
    uint64_t done = 0;
    size_t rows;
    while ((rc = pq_next(v, &rows)) == 0 && rows > 0) {
        for (size_t i = 0; i < v->n; i++) {
            const cf_pq_kcol *k = &v->k[i];
            cf_colvec cv = cf_pq_kudu_colvec(k);
            st = k->col.is_array ? cf_writer_append_arrays(w[i], cv.values, cv.elem_nonnull,
                                                           cv.elem_counts, cv.nonnull, rows, &e)
                                 : cf_writer_append(w[i], cv.values, cv.nonnull, rows, &e);
            if (st != CF_OK) {
                rc = cf_cli_lib_fail(c, paths[i], st, &e);
                goto out;
            }
        }
        done += rows;
        cf_cli_progress_cb(&v->p, done);
    }
    if (rc != 0)
        goto out;
    for (; nfinished < v->n; nfinished++)
        if ((st = cf_writer_finish(w[nfinished], &e)) != CF_OK) {
            rc = cf_cli_lib_fail(c, paths[nfinished], st, &e);
            goto out;
        }
    cf_cli_progress_end(&v->p);
    if (a->json) {
        cf_jw j;
        json_head(v, &j, a->to == CF_PQ_TO_CFILE ? "cfile" : "cfiles", done);
        if (a->to == CF_PQ_TO_CFILES)
            cf_jw_kv_cstr(&j, "dir", a->out);
        uint64_t total = 0;
        cf_jw_kv_arr_begin(&j, "files");
        for (size_t i = 0; i < v->n; i++) {
            const cf_writer_options *ro = cf_writer_resolved_options(w[i]);
            struct stat sb;
            uint64_t size = stat(paths[i], &sb) == 0 ? (uint64_t)sb.st_size : 0;
            total += size;
            cf_jw_obj_begin(&j);
            cf_jw_kv_cstr(&j, "file", paths[i]);
            json_column(&j, &v->k[i]);
            cf_jw_kv_cstr(&j, "encoding", cf_cli_encoding_name(ro->encoding));
            cf_jw_kv_cstr(&j, "compression", cf_cli_compression_name(ro->compression));
            cf_jw_kv_uint(&j, "bytes", size);
            cf_jw_obj_end(&j);
        }
        cf_jw_arr_end(&j);
        cf_jw_kv_uint(&j, "bytes", total);
        cf_jw_obj_end(&j);
        cf_jw_newline(&j);
    } else if (!a->quiet) {
        fprintf(c->out, "wrote %" PRIu64 " rows of %zu column%s to %s in %.2f s\n", done, v->n,
                v->n == 1 ? "" : "s", a->out, cf_cli_now_s() - v->p.t0);
    }
out:
    for (size_t i = 0; w != NULL && i < v->n; i++)
        cf_writer_free(w[i]); /* unfinished: nothing appears at its path */
    if (rc != 0 && a->to == CF_PQ_TO_CFILES) {
        /* All the files or none: remove those this run finished (they did not
         * exist before it), and the directory if it made it. */
        for (size_t i = 0; i < nfinished; i++)
            unlink(paths[i]);
        if (made_dir)
            rmdir(a->out);
    }
    for (size_t i = 0; paths != NULL && i < v->n; i++)
        free(paths[i]);
    free(paths);
    free(w);
    return rc;
}

/* ---- a table ----------------------------------------------------------------------------- */

/* The new table's schema: the --key columns first (in --key's order), then the
 * others in the file's order. */
static int table_schema(pqconv *v, cf_schema **out)
{
    cf_cli *c = v->c;
    const cf_pq_convert_args *a = v->a;
    cf_column *cols = calloc(v->n + 1, sizeof(*cols));
    bool *used = calloc(v->n + 1, sizeof(*used));
    int rc = 0;
    if (cols == NULL || used == NULL) {
        rc = cf_cli_fail(c, "out of memory");
        goto out;
    }
    size_t m = 0;
    for (size_t i = 0; i < a->nkeys; i++) {
        size_t j = 0;
        while (j < v->n && strcmp(v->k[j].name, a->keys[i]) != 0)
            j++;
        if (j == v->n) {
            rc = cf_cli_usage(c, "--key: no column '%s' to convert", a->keys[i]);
            goto out;
        }
        if (used[j]) {
            rc = cf_cli_usage(c, "--key: '%s' named twice", a->keys[i]);
            goto out;
        }
        /* Writers like Spark make every column OPTIONAL: a key column is taken
         * NOT NULL, and a NULL in it fails at its row. */
        v->k[j].col.nullable = false;
        v->k[j].is_key = true;
        used[j] = true;
        cols[m] = v->k[j].col;
        cols[m++].is_key = true;
    }
    for (size_t j = 0; j < v->n; j++)
        if (!used[j])
            cols[m++] = v->k[j].col;
    cf_error e;
    cf_status st = cf_schema_create(out, cols, m, &e);
    if (st != CF_OK)
        rc = cf_cli_usage(c, "the table's schema: %s", e.msg);
out:
    free(cols);
    free(used);
    return rc;
}

typedef struct table_load {
    pqconv *v;
    size_t *map; /* table column -> v->k index, or SIZE_MAX: all NULL */
} table_load;

/* Match the converted columns to the table's by name (an existing table: the
 * types must agree; the table's columns the file lacks must be nullable). */
static int match_table(pqconv *v, const cf_schema *s, size_t *map)
{
    cf_cli *c = v->c;
    size_t nc = cf_schema_column_count(s);
    for (size_t j = 0; j < v->n; j++)
        if (cf_schema_find(s, v->k[j].name) < 0)
            return cf_cli_fail(c, "%s: column '%s': the table has no such column", v->a->in,
                               v->k[j].name);
    for (size_t i = 0; i < v->a->nkeys; i++) {
        const cf_column *tc = cf_schema_column_at(s, i);
        if (i >= cf_schema_key_count(s) || strcmp(tc->name, v->a->keys[i]) != 0)
            return cf_cli_usage(c, "--key differs from the table's key");
    }
    if (v->a->nkeys && v->a->nkeys != cf_schema_key_count(s))
        return cf_cli_usage(c, "--key differs from the table's key");
    for (size_t i = 0; i < nc; i++) {
        const cf_column *tc = cf_schema_column_at(s, i);
        map[i] = SIZE_MAX;
        for (size_t j = 0; j < v->n; j++)
            if (strcmp(v->k[j].name, tc->name) == 0)
                map[i] = j;
        if (map[i] == SIZE_MAX) {
            if (!tc->nullable)
                return cf_cli_fail(c, "%s: no column '%s', which the table cannot hold as NULL",
                                   v->a->in, tc->name);
            continue;
        }
        const cf_column *kc = &v->k[map[i]].col;
        if (kc->type != tc->type || kc->is_array != tc->is_array) {
            char want[64], got[64];
            snprintf(want, sizeof(want), "%s%s", cf_cli_type_name(tc->type),
                     tc->is_array ? "[]" : "");
            snprintf(got, sizeof(got), "%s%s", cf_cli_type_name(kc->type),
                     kc->is_array ? "[]" : "");
            return cf_cli_fail(c, "%s: column '%s' converts to %s; the table's is %s", v->a->in,
                               tc->name, got, want);
        }
    }
    return 0;
}

static int load_parquet(void *ctx, cf_cli *c, cf_table_loader *ld, const cf_schema *s,
                        bool new_table, uint64_t *rows_out)
{
    table_load *t = ctx;
    pqconv *v = t->v;
    size_t nc = cf_schema_column_count(s);
    int rc = 0;
    cf_colvec *cv = calloc(nc + 1, sizeof(*cv));
    uint8_t **nulls = calloc(nc + 1, sizeof(*nulls)); /* columns the file lacks */
    t->map = calloc(nc + 1, sizeof(*t->map));
    if (cv == NULL || nulls == NULL || t->map == NULL) {
        rc = cf_cli_fail(c, "out of memory");
        goto out;
    }
    if ((rc = match_table(v, s, t->map)) != 0)
        goto out;
    uint64_t done = 0;
    size_t rows;
    while ((rc = pq_next(v, &rows)) == 0 && rows > 0) {
        for (size_t i = 0; i < nc; i++) {
            if (t->map[i] != SIZE_MAX) {
                cv[i] = cf_pq_kudu_colvec(&v->k[t->map[i]]);
                continue;
            }
            /* All NULL: zeroed values (array counts 0) and an all-clear bitmap,
             * for any batch (record assembly's are at most PQ_BATCH_ROWS). */
            const cf_column *tc = cf_schema_column_at(s, i);
            size_t w = tc->is_array ? sizeof(uint32_t) : cf_type_size(tc->type);
            if (nulls[i] == NULL && (nulls[i] = calloc(PQ_BATCH_ROWS + 8, w)) == NULL) {
                rc = cf_cli_fail(c, "out of memory");
                goto out;
            }
            cv[i] = (cf_colvec){nulls[i], nulls[i], tc->is_array ? (void *)nulls[i] : NULL, NULL};
        }
        uint64_t before = cf_table_loader_rows(ld);
        cf_error e;
        cf_status st = cf_table_loader_append(ld, cv, rows, &e);
        if (st != CF_OK) {
            uint64_t row = cf_table_loader_error_row(ld);
            if (row != UINT64_MAX && row >= before) {
                /* "row N: duplicate key" counts the load's rows, as the file does */
                rc = cf_cli_fail(c, "%s: %s", v->a->in, e.msg);
                rc = st == CF_ENOTSUP ? CF_EXIT_NOTSUP : rc;
            } else {
                rc = cf_cli_lib_fail(c, v->a->out, st, &e);
            }
            goto out;
        }
        done += rows;
        cf_cli_progress_cb(&v->p, done);
    }
    if (rc != 0)
        goto out;
    *rows_out = done;
out:
    for (size_t i = 0; nulls != NULL && i < nc; i++)
        free(nulls[i]);
    free(nulls);
    free(cv);
    free(t->map);
    t->map = NULL;
    return rc;
}

/* --json after a load: the table as it now is (read back, without a lock). */
static int table_json(pqconv *v, uint64_t rows)
{
    cf_table_options o;
    cf_table_options_init(&o);
    o.read_only = true;
    cf_table *t = NULL;
    cf_error e;
    cf_status st = cf_table_open(&t, v->a->out, &o, &e);
    if (st != CF_OK)
        return cf_cli_lib_fail(v->c, v->a->out, st, &e);
    cf_jw j;
    json_head(v, &j, "table", rows);
    cf_jw_kv_cstr(&j, "table", v->a->out);
    cf_jw_kv_arr_begin(&j, "columns");
    for (size_t i = 0; i < v->n; i++) {
        cf_jw_obj_begin(&j);
        json_column(&j, &v->k[i]);
        cf_jw_obj_end(&j);
    }
    cf_jw_arr_end(&j);
    const cf_schema *s = cf_table_schema(t);
    cf_jw_kv_arr_begin(&j, "key");
    for (size_t i = 0; i < cf_schema_key_count(s); i++)
        cf_jw_cstr(&j, cf_schema_column_at(s, i)->name);
    cf_jw_arr_end(&j);
    cf_jw_kv_uint(&j, "rowsets", cf_table_rowset_count(t));
    cf_jw_obj_end(&j);
    cf_jw_newline(&j);
    cf_table_free(t);
    return 0;
}

static int to_table(pqconv *v)
{
    cf_cli *c = v->c;
    const cf_pq_convert_args *a = v->a;
    cf_schema *ns = NULL;
    int rc = 0;
    if (a->nkeys && (rc = table_schema(v, &ns)) != 0)
        return rc;
    table_load t = {v, NULL};
    uint64_t rows = 0;
    rc = cf_cli_table_load(c, a->out, ns, false,
                           "--to table: OUT holds no table; name its key columns with "
                           "--key COL[,COL...] to create one",
                           a->has_ts, a->ts, a->lock_ms, load_parquet, &t, &rows);
    cf_cli_progress_end(&v->p);
    if (rc == 0 && a->json)
        rc = table_json(v, rows);
    else if (rc == 0 && !a->quiet)
        fprintf(c->out, "imported %" PRIu64 " rows into %s in %.2f s\n", rows, a->out,
                cf_cli_now_s() - v->p.t0);
    cf_schema_free(ns);
    return rc;
}

int cf_cli_convert_parquet(cf_cli *c, const cf_pq_convert_args *a)
{
    pqconv v;
    memset(&v, 0, sizeof(v));
    v.c = c;
    v.a = a;
    int rc = pq_setup(&v);
    if (rc == 0) {
        cf_cli_progress_init(&v.p, c, a->progress, (uint64_t)cf_parquet_num_rows(v.pq));
        rc = a->to == CF_PQ_TO_TABLE ? to_table(&v) : to_cfiles(&v);
    }
    pq_dispose(&v);
    return rc;
}

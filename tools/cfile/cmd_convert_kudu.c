/* `cfile convert` from Kudu: one tablet, or every tablet of a table found across
 * several stopped servers (kudu.h "a table across several servers": replicas
 * deduplicated by tablet id, the most recent taken), into OUT.parquet or, with
 * --to table, into a cfile table in one commit (cf_cli_table_load, as Parquet ->
 * table loads). Tablets are read one after another in partition key order, each
 * as `cfile kudu tablet scan` reads it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/kudu.h>
#include <cfile/rowset.h>

#include "cli.h"
#include "convert.h"
#include "convert_kudu.h"
#include "csv.h"

/* ---- several servers: each --fs-wal-dir starts one ---------------------------------- */

/* Room for one more server, started empty. */
static int grow(cf_cli *c, cf_kudu_servers *s)
{
    cf_kudu_args *g = realloc(s->a, (s->n + 1) * sizeof *g);
    if (g != NULL)
        s->a = g;
    char **o = realloc(s->own, (s->n + 1) * sizeof *o);
    if (o != NULL)
        s->own = o;
    if (g == NULL || o == NULL)
        return cf_cli_fail(c, "out of memory");
    cf_kudu_args_init(&s->a[s->n]);
    s->own[s->n++] = NULL;
    return 0;
}

int cf_kudu_servers_option(cf_cli *c, cf_kudu_servers *s, int opt, const char *arg)
{
    if (opt != CF_KUDU_OPT_WAL && opt != CF_KUDU_OPT_META && opt != CF_KUDU_OPT_DATA)
        return -1;
    /* A new server at every --fs-wal-dir but the first (whose server may already
     * have its other directories, given before it). */
    if (s->n == 0 || (opt == CF_KUDU_OPT_WAL && s->a[s->n - 1].wal_dir != NULL)) {
        int rc = grow(c, s);
        if (rc != 0)
            return rc;
    }
    cf_kudu_args *cur = &s->a[s->n - 1];
    if (opt == CF_KUDU_OPT_META && cur->metadata_dir != NULL)
        return cf_cli_usage(c, "--fs-metadata-dir given twice for one server (each --fs-wal-dir "
                               "starts a server; give its other directories after it)");
    return cf_kudu_args_option(c, cur, opt, arg);
}

int cf_kudu_servers_add(cf_cli *c, cf_kudu_servers *s, const char *spec)
{
    /* A whole server: always a new one. */
    int rc = grow(c, s);
    if (rc != 0)
        return rc;
    const char *colon = strchr(spec, ':');
    if (colon == spec || spec[0] == '\0')
        return cf_cli_usage(c, "--kudu-server: expected WAL_DIR[:DATA_DIR,...], got '%s'", spec);
    cf_kudu_args *cur = &s->a[s->n - 1];
    if (colon == NULL) {
        cur->wal_dir = spec;
        return 0;
    }
    char *wal = strndup(spec, (size_t)(colon - spec));
    if (wal == NULL)
        return cf_cli_fail(c, "out of memory");
    s->own[s->n - 1] = wal;
    cur->wal_dir = wal;
    return cf_kudu_args_option(c, cur, CF_KUDU_OPT_DATA, colon + 1);
}

void cf_kudu_servers_free(cf_kudu_servers *s)
{
    for (size_t i = 0; i < s->n; i++) {
        cf_kudu_args_free(&s->a[i]);
        free(s->own[i]);
    }
    free(s->a);
    free(s->own);
    memset(s, 0, sizeof *s);
}

/* ---- the tablets to read, and their rows one tablet after another --------------------- */

typedef struct ksrc {
    cf_kudu_fs **fs;
    size_t nfs;
    cf_kudu_replicas *reps;
    size_t next;         /* the next tablet to open a scanner on */
    cf_kudu_scanner *sc; /* the current tablet's */
    cf_kudu_scan_options o;
    FILE *warn; /* where a tablet's ops left to Raft are reported */
} ksrc;

static void ksrc_dispose(ksrc *k)
{
    cf_kudu_scanner_free(k->sc);
    cf_kudu_replicas_free(k->reps);
    for (size_t i = 0; k->fs != NULL && i < k->nfs; i++)
        cf_kudu_fs_free(k->fs[i]);
    free(k->fs);
}

static int ksrc_open(cf_cli *c, const cf_kudu_convert_args *a, ksrc *k)
{
    memset(k, 0, sizeof *k);
    k->warn = c->err;
    const cf_kudu_servers *sv = &a->servers;
    k->fs = calloc(sv->n + 1, sizeof *k->fs);
    if (k->fs == NULL)
        return cf_cli_fail(c, "out of memory");
    for (size_t i = 0; i < sv->n; i++) {
        int rc = cf_kudu_args_open(c, &sv->a[i], &k->fs[i]);
        if (rc != 0)
            return rc;
        k->nfs = i + 1;
    }
    cf_kudu_replicas_options ro;
    cf_kudu_replicas_options_init(&ro);
    ro.tablet_id = a->tablet;
    ro.table_name = a->table;
    ro.table_id = a->table_id;
    ro.skip_damaged = a->skip_damaged;
    cf_error e = {0};
    cf_status st =
        cf_kudu_replicas_find(&k->reps, (const cf_kudu_fs *const *)k->fs, k->nfs, &ro, &e);
    if (st == CF_ENOTFOUND && a->table != NULL && a->table_id == NULL) {
        /* --kudu-table takes a table's id too, when no table has it as a name. */
        ro.table_name = NULL;
        ro.table_id = a->table;
        cf_error e2 = {0};
        st = cf_kudu_replicas_find(&k->reps, (const cf_kudu_fs *const *)k->fs, k->nfs, &ro, &e2);
        if (st != CF_ENOTFOUND)
            e = e2;
    }
    if (st != CF_OK)
        return cf_cli_lib_fail(c, a->in, st, &e);
    /* A replica with a problem (passed over with --skip-damaged-replicas, or a
     * tablet's only READY replica, read as it is) is said, not hidden. */
    for (size_t i = 0; i < cf_kudu_replicas_count(k->reps); i++) {
        const cf_kudu_replica *r = cf_kudu_replicas_at(k->reps, i);
        if (r->problem != NULL)
            fprintf(c->err, "cfile %s: warning: tablet %s on server %zu: %s (%s)\n", c->cmd,
                    r->tablet_id, r->server + 1, r->problem,
                    r->chosen ? "its only READY replica: read as it is" : "passed over");
    }
    if (!a->pq->quiet && !a->pq->json)
        for (size_t i = 0; i < cf_kudu_replicas_tablet_count(k->reps); i++) {
            const cf_kudu_replica *r = cf_kudu_replicas_chosen_at(k->reps, i);
            fprintf(c->err, "tablet %s: server %zu (%s), last op %" PRId64 ".%" PRId64 "\n",
                    r->tablet_id, r->server + 1, cf_kudu_fs_wal_dir(k->fs[r->server]), r->last_term,
                    r->last_index);
        }
    cf_kudu_scan_options_init(&k->o);
    k->o.no_wal = a->no_wal;
    k->o.mmap = a->mmap;
    if (a->has_history_age)
        k->o.history_max_age_sec = a->history_age;
    if (a->has_ts)
        k->o.as_of = a->ts;
    return 0;
}

/* err's message prefixed with the tablet it is about. */
static cf_status tablet_fail(cf_error *err, cf_status st, const cf_kudu_tablet *t)
{
    if (err != NULL) {
        char m[sizeof err->msg + 48];
        int n = snprintf(m, sizeof m, "tablet %s: %s", cf_kudu_tablet_id(t), err->msg);
        if (n > 0) {
            m[sizeof err->msg - 1] = '\0'; /* cut to fit, as cf_error_set cuts */
            memcpy(err->msg, m, sizeof err->msg);
        }
    }
    return st;
}

static cf_status ksrc_next(void *ctx, cf_row_batch *b, cf_error *err)
{
    ksrc *k = ctx;
    for (;;) {
        if (k->sc == NULL) {
            if (k->next == cf_kudu_replicas_tablet_count(k->reps)) {
                memset(b, 0, sizeof *b);
                return CF_OK;
            }
            const cf_kudu_tablet *t = cf_kudu_replicas_tablet_at(k->reps, k->next++);
            cf_status st = cf_kudu_scanner_create(&k->sc, t, &k->o, err);
            if (st != CF_OK)
                return tablet_fail(err, st, t);
            int64_t p0, p1;
            size_t np = cf_kudu_scanner_wal_pending(k->sc, &p0, &p1);
            if (np > 0 && k->warn != NULL)
                fprintf(k->warn,
                        "cfile: warning: tablet %s: %zu WAL op(s) (index %" PRId64 "..%" PRId64
                        ") without a COMMIT past the last committed index: Raft decides them "
                        "when the server rejoins its peers; not exported\n",
                        cf_kudu_tablet_id(t), np, p0, p1);
        }
        cf_status st = cf_kudu_scanner_next(k->sc, b, err);
        if (st != CF_OK)
            return tablet_fail(err, st, cf_kudu_replicas_tablet_at(k->reps, k->next - 1));
        if (b->count > 0)
            return CF_OK;
        cf_kudu_scanner_free(k->sc);
        k->sc = NULL;
    }
}

/* --json: the servers and every replica found, the chosen ones marked. */
static void replicas_json(void *ctx, cf_jw *j)
{
    const ksrc *k = ctx;
    cf_jw_kv_arr_begin(j, "servers");
    for (size_t i = 0; i < k->nfs; i++) {
        cf_jw_obj_begin(j);
        cf_jw_kv_cstr(j, "uuid", cf_kudu_fs_uuid(k->fs[i]));
        cf_jw_kv_cstr(j, "wal_dir", cf_kudu_fs_wal_dir(k->fs[i]));
        cf_jw_obj_end(j);
    }
    cf_jw_arr_end(j);
    cf_jw_kv_uint(j, "tablets", cf_kudu_replicas_tablet_count(k->reps));
    cf_jw_kv_arr_begin(j, "replicas");
    for (size_t i = 0; i < cf_kudu_replicas_count(k->reps); i++) {
        const cf_kudu_replica *r = cf_kudu_replicas_at(k->reps, i);
        cf_jw_obj_begin(j);
        cf_jw_kv_cstr(j, "tablet_id", r->tablet_id);
        cf_jw_kv_uint(j, "server", r->server + 1); /* as the text says it: 1 = the first given */
        cf_jw_key(j, "table_id");
        r->table_id ? cf_jw_cstr(j, r->table_id) : cf_jw_null(j);
        cf_jw_key(j, "data_state");
        r->data_state ? cf_jw_cstr(j, r->data_state) : cf_jw_null(j);
        cf_jw_key(j, "partition_key_start");
        cf_jw_hex(j, r->partition_key_start, r->partition_key_start_len);
        cf_jw_key(j, "partition_key_end");
        cf_jw_hex(j, r->partition_key_end, r->partition_key_end_len);
        cf_jw_kv_int(j, "current_term", r->current_term);
        char op[48];
        snprintf(op, sizeof op, "%" PRId64 ".%" PRId64, r->last_term, r->last_index);
        cf_jw_kv_cstr(j, "last_op_id", op);
        cf_jw_kv_bool(j, "chosen", r->chosen);
        if (r->problem != NULL)
            cf_jw_kv_cstr(j, "problem", r->problem);
        cf_jw_obj_end(j);
    }
    cf_jw_arr_end(j);
}

/* ---- into a table ------------------------------------------------------------------------ */

typedef struct kload {
    ksrc *k;
    cf_cli_progress p;
    const char *in;
} kload;

/* One batch's columns as the loader takes them: arrays as per-row element counts
 * (counts[j] has room for the batch), their elements from the first row's on. */
static int colvecs(cf_cli *c, const cf_schema *s, const cf_row_batch *b, cf_colvec *cv,
                   uint32_t **counts, size_t *cap)
{
    if (b->count > *cap) {
        for (size_t j = 0; j < b->ncols; j++) {
            free(counts[j]);
            counts[j] = NULL;
        }
        *cap = b->count;
    }
    for (size_t j = 0; j < b->ncols; j++) {
        const cf_batch *x = &b->cols[j];
        const cf_column *col = cf_schema_column_at(s, j);
        cv[j] = (cf_colvec){x->values, x->nonnull, NULL, NULL};
        if (!col->is_array)
            continue;
        if (counts[j] == NULL && (counts[j] = malloc((*cap + 1) * sizeof(uint32_t))) == NULL)
            return cf_cli_fail(c, "out of memory");
        for (size_t r = 0; r < b->count; r++)
            counts[j][r] = x->elem_offsets[r + 1] - x->elem_offsets[r];
        /* Elements are the batch's own from offset 0 (the scanner's batches start
         * there); a batch that did not would be a scanner bug, refused. */
        if (b->count > 0 && x->elem_offsets[0] != 0)
            return cf_cli_fail(c, "column %s: a batch's elements do not start at 0", col->name);
        cv[j].elem_counts = counts[j];
        cv[j].elem_nonnull = x->elem_nonnull;
    }
    return 0;
}

static int load_kudu(void *ctx, cf_cli *c, cf_table_loader *ld, const cf_schema *s, bool new_table,
                     uint64_t *rows_out)
{
    (void)new_table;
    kload *l = ctx;
    size_t nc = cf_schema_column_count(s);
    cf_colvec *cv = calloc(nc + 1, sizeof *cv);
    uint32_t **counts = calloc(nc + 1, sizeof *counts);
    size_t cap = 0;
    int rc = 0;
    uint64_t done = 0;
    if (cv == NULL || counts == NULL) {
        rc = cf_cli_fail(c, "out of memory");
        goto out;
    }
    for (;;) {
        cf_row_batch b;
        cf_error e = {0};
        cf_status st = ksrc_next(l->k, &b, &e);
        if (st != CF_OK) {
            rc = cf_cli_lib_fail(c, l->in, st, &e);
            if (st == CF_EINVAL)
                rc = CF_EXIT_USAGE; /* --as-of before the ancient history mark */
            goto out;
        }
        if (b.count == 0)
            break;
        if (b.ncols != nc) {
            rc =
                cf_cli_fail(c, "%s: %zu columns in a batch, the table has %zu", l->in, b.ncols, nc);
            goto out;
        }
        if ((rc = colvecs(c, s, &b, cv, counts, &cap)) != 0)
            goto out;
        if ((st = cf_table_loader_append(ld, cv, b.count, &e)) != CF_OK) {
            rc = cf_cli_lib_fail(c, l->in, st, &e);
            goto out;
        }
        done += b.count;
        cf_cli_progress_cb(&l->p, done);
    }
    *rows_out = done;
out:
    for (size_t j = 0; counts != NULL && j < nc; j++)
        free(counts[j]);
    free(counts);
    free(cv);
    return rc;
}

static int to_table(cf_cli *c, const cf_kudu_convert_args *a, ksrc *k)
{
    const cf_schema *s = cf_kudu_replicas_schema(k->reps);
    /* A new table only: rows of a tablet added to a table already there would mix
     * two sources in one commit (and its keys would clash). */
    cf_table_options to;
    cf_table_options_init(&to);
    to.read_only = true;
    cf_table *old = NULL;
    cf_error oe = {0};
    if (cf_table_open(&old, a->out, &to, &oe) == CF_OK) {
        cf_table_free(old);
        return cf_cli_fail(c, "%s: a table exists there; a Kudu IN goes into a new table", a->out);
    }
    kload l = {k, {0}, a->in};
    cf_cli_progress_init(&l.p, c, a->pq->progress, 0);
    uint64_t rows = 0;
    int rc = cf_cli_table_load(c, a->out, s, false, "", a->has_load_ts, a->load_ts, a->lock_ms,
                               load_kudu, &l, &rows);
    cf_cli_progress_end(&l.p);
    if (rc != 0)
        return rc;
    if (!a->pq->json) {
        if (!a->pq->quiet)
            fprintf(c->out, "imported %" PRIu64 " rows of %zu tablet%s into %s in %.2f s\n", rows,
                    cf_kudu_replicas_tablet_count(k->reps),
                    cf_kudu_replicas_tablet_count(k->reps) == 1 ? "" : "s", a->out,
                    cf_cli_now_s() - l.p.t0);
        return 0;
    }
    /* The table as it now is, read back without a lock. */
    cf_table_options o;
    cf_table_options_init(&o);
    o.read_only = true;
    cf_table *t = NULL;
    cf_error e = {0};
    cf_status st = cf_table_open(&t, a->out, &o, &e);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, a->out, st, &e);
    const cf_schema *ts = cf_table_schema(t);
    cf_jw j;
    cf_jw_report_begin(&j, c->out, "convert");
    cf_jw_kv_cstr(&j, "from", "kudu");
    cf_jw_kv_arr_begin(&j, "inputs");
    cf_jw_cstr(&j, a->in);
    cf_jw_arr_end(&j);
    if (a->has_ts)
        cf_jw_kv_uint(&j, "as_of", a->ts);
    cf_jw_kv_cstr(&j, "to", "table");
    cf_jw_kv_uint(&j, "rows", rows);
    cf_jw_kv_cstr(&j, "table", a->out);
    cf_jw_kv_arr_begin(&j, "columns");
    for (size_t i = 0; i < cf_schema_column_count(ts); i++) {
        const cf_column *col = cf_schema_column_at(ts, i);
        cf_jw_obj_begin(&j);
        cf_jw_kv_cstr(&j, "column", col->name);
        cf_jw_kv_cstr(&j, "type", cf_cli_type_name(col->type));
        cf_jw_kv_bool(&j, "is_array", col->is_array);
        cf_jw_kv_bool(&j, "nullable", col->nullable);
        cf_jw_obj_end(&j);
    }
    cf_jw_arr_end(&j);
    cf_jw_kv_arr_begin(&j, "key");
    for (size_t i = 0; i < cf_schema_key_count(ts); i++)
        cf_jw_cstr(&j, cf_schema_column_at(ts, i)->name);
    cf_jw_arr_end(&j);
    cf_jw_kv_uint(&j, "rowsets", cf_table_rowset_count(t));
    replicas_json(k, &j);
    cf_jw_obj_end(&j);
    cf_jw_newline(&j);
    cf_table_free(t);
    return 0;
}

int cf_cli_convert_kudu(cf_cli *c, const cf_kudu_convert_args *a)
{
    ksrc k;
    int rc = ksrc_open(c, a, &k);
    if (rc == 0 && a->to_table)
        rc = to_table(c, a, &k);
    else if (rc == 0)
        rc = cf_cli_convert_rows(c, cf_kudu_replicas_schema(k.reps), ksrc_next, &k, "kudu", a->in,
                                 a->has_ts, a->ts, a->out, a->pq, replicas_json, &k);
    ksrc_dispose(&k);
    return rc;
}

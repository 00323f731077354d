/* Record-batch streams over row scans (rowset.h's cf_row_batch): a table scan
 * (cf_arrow_stream_table), a Kudu tablet scan (cf_arrow_stream_kudu_tablet) and
 * the tablets of a Kudu table across servers, one after another
 * (cf_arrow_stream_kudu_replicas).
 * A scanner's batches (matching rows only, so often fewer than asked for) are
 * gathered until a record batch holds batch_rows rows or the scan ends. */
#include "record.h"

#include <cfile/kudu.h>
#include <cfile/rowset.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

/* A scanner of either kind, through its next and free calls. */
typedef cf_status (*rows_next_fn)(void *sc, cf_row_batch *out, cf_error *err);
typedef void (*rows_free_fn)(void *sc);

typedef struct rows_src {
    void *sc;
    rows_next_fn next;
    rows_free_fn free;
    uint64_t done;  /* rows exported so far */
    cf_row_batch b; /* the scanner's current batch, from row `at` on */
    size_t at;
    bool end;
} rows_src;

static void rows_free(void *ctx)
{
    rows_src *s = ctx;
    if (s == NULL)
        return;
    if (s->sc != NULL)
        s->free(s->sc);
    cf_free(s);
}

static cf_status rows_fill(void *ctx, cf_arrow_col *cols, size_t rows, size_t *got, cf_error *err)
{
    rows_src *s = ctx;
    size_t have = 0;
    while (have < rows && !s->end) {
        if (s->at == s->b.count) {
            CF_TRY(s->next(s->sc, &s->b, err));
            s->at = 0;
            if (s->b.count == 0) {
                s->end = true;
                break;
            }
        }
        size_t take = s->b.count - s->at;
        if (take > rows - have)
            take = rows - have;
        for (size_t j = 0; j < s->b.ncols; j++)
            CF_TRY(cf_arrow_col_append(&cols[j], &s->b.cols[j], s->at, take, s->done + have - s->at,
                                       err));
        s->at += take;
        have += take;
    }
    s->done += have;
    *got = have;
    return CF_OK;
}

/* The stream over scanner `sc` (taken over, also on failure) whose batches hold
 * the columns `proj` (NULL: all) of `schema`. */
static cf_status stream_rows(struct ArrowArrayStream *out, void *sc, rows_next_fn next,
                             rows_free_fn free_sc, const cf_schema *schema, const size_t *proj,
                             size_t nproj, const cf_arrow_options *opts, cf_error *err)
{
    cf_arrow_options dflt;
    opts = cf_arrow_options_or_default(opts, &dflt);
    size_t ncols = proj != NULL ? nproj : cf_schema_column_count(schema);
    rows_src *s = cf_calloc(1, sizeof *s);
    cf_arrow_col *cols = ncols > 0 ? cf_calloc(ncols, sizeof *cols) : NULL;
    if (s == NULL || cols == NULL) {
        free_sc(sc);
        cf_free(s);
        cf_free(cols);
        if (ncols == 0)
            CF_FAIL(err, CF_EINVAL, "arrow: a row stream needs at least one column");
        CF_FAIL(err, CF_ENOMEM, "out of memory for an arrow stream");
    }
    s->sc = sc;
    s->next = next;
    s->free = free_sc;
    cf_status st = CF_OK;
    size_t made = 0;
    for (; made < ncols; made++) {
        const cf_column *c = cf_schema_column_at(schema, proj != NULL ? proj[made] : made);
        st = cf_arrow_col_init(&cols[made], c->name, c->type, c->is_array, c->nullable,
                               c->precision, c->scale, opts, err);
        if (st != CF_OK)
            break;
    }
    cf_arrow_source src = {rows_fill, rows_free, s};
    if (st != CF_OK) {
        cf_arrow_source_drop(src, cols, made);
        return st;
    }
    return cf_arrow_stream_make(out, src, cols, ncols, opts, err);
}

static cf_status table_next(void *sc, cf_row_batch *out, cf_error *err)
{
    return cf_table_scanner_next(sc, out, err);
}

static void table_scanner_free(void *sc)
{
    cf_table_scanner_free(sc);
}

cf_status cf_arrow_stream_table(struct ArrowArrayStream *out, struct cf_table *t,
                                const struct cf_scan_options *scan, const cf_arrow_options *opts,
                                cf_error *err)
{
    memset(out, 0, sizeof *out);
    size_t ncols = scan && scan->cols ? scan->ncols : cf_schema_column_count(cf_table_schema(t));
    CF_CHECK(ncols >= 1, err, CF_EINVAL, "arrow: a table stream needs at least one column");
    /* The scanner checks the projection and the predicates. */
    cf_table_scanner *sc = NULL;
    CF_TRY(cf_table_scanner_create(&sc, t, scan, err));
    return stream_rows(out, sc, table_next, table_scanner_free, cf_table_schema(t),
                       scan ? scan->cols : NULL, ncols, opts, err);
}

static cf_status kudu_next(void *sc, cf_row_batch *out, cf_error *err)
{
    return cf_kudu_scanner_next(sc, out, err);
}

static void kudu_scanner_free(void *sc)
{
    cf_kudu_scanner_free(sc);
}

cf_status cf_arrow_stream_kudu_tablet(struct ArrowArrayStream *out, struct cf_kudu_tablet *t,
                                      const struct cf_kudu_scan_options *scan,
                                      const cf_arrow_options *opts, cf_error *err)
{
    memset(out, 0, sizeof *out);
    const cf_schema *schema = cf_kudu_tablet_schema(t);
    size_t ncols = scan && scan->cols ? scan->ncols : cf_schema_column_count(schema);
    CF_CHECK(ncols >= 1, err, CF_EINVAL, "arrow: a tablet stream needs at least one column");
    cf_kudu_scanner *sc = NULL;
    CF_TRY(cf_kudu_scanner_create(&sc, t, scan, err));
    return stream_rows(out, sc, kudu_next, kudu_scanner_free, schema, scan ? scan->cols : NULL,
                       ncols, opts, err);
}

/* The chosen tablets of a replica set, each scanned when the stream reaches it. */
typedef struct kudu_chain {
    const cf_kudu_replicas *r;
    size_t next;
    cf_kudu_scanner *sc;
    const cf_kudu_scan_options *scan;
} kudu_chain;

static cf_status chain_next(void *ctx, cf_row_batch *out, cf_error *err)
{
    kudu_chain *k = ctx;
    for (;;) {
        if (k->sc == NULL) {
            if (k->next == cf_kudu_replicas_tablet_count(k->r)) {
                memset(out, 0, sizeof *out);
                return CF_OK;
            }
            CF_TRY(cf_kudu_scanner_create(&k->sc, cf_kudu_replicas_tablet_at(k->r, k->next++),
                                          k->scan, err));
        }
        CF_TRY(cf_kudu_scanner_next(k->sc, out, err));
        if (out->count > 0)
            return CF_OK;
        cf_kudu_scanner_free(k->sc);
        k->sc = NULL;
    }
}

static void chain_free(void *ctx)
{
    kudu_chain *k = ctx;
    if (k != NULL)
        cf_kudu_scanner_free(k->sc);
    cf_free(k);
}

cf_status cf_arrow_stream_kudu_replicas(struct ArrowArrayStream *out,
                                        const struct cf_kudu_replicas *r,
                                        const struct cf_kudu_scan_options *scan,
                                        const cf_arrow_options *opts, cf_error *err)
{
    memset(out, 0, sizeof *out);
    const cf_schema *schema = cf_kudu_replicas_schema(r);
    CF_CHECK(schema != NULL, err, CF_EINVAL, "arrow: a replica set without tablets");
    size_t ncols = scan && scan->cols ? scan->ncols : cf_schema_column_count(schema);
    CF_CHECK(ncols >= 1, err, CF_EINVAL, "arrow: a table stream needs at least one column");
    kudu_chain *k = cf_calloc(1, sizeof *k);
    CF_CHECK(k != NULL, err, CF_ENOMEM, "out of memory for an arrow stream");
    k->r = r;
    k->scan = scan;
    /* The first tablet's scanner now, so a bad projection or predicate fails here. */
    cf_status st = cf_kudu_scanner_create(&k->sc, cf_kudu_replicas_tablet_at(r, 0), scan, err);
    if (st != CF_OK) {
        cf_free(k);
        return st;
    }
    k->next = 1;
    return stream_rows(out, k, chain_next, chain_free, schema, scan ? scan->cols : NULL, ncols,
                       opts, err);
}

/* Record-batch streams over row scans: a table's (cf_arrow_stream_table) and a
 * Kudu tablet's (cf_arrow_stream_kudu). The scanner's batches (matching rows only,
 * so often fewer than asked for) are gathered until a record batch holds
 * batch_rows rows or the scan ends. */
#include "record.h"

#include <cfile/kudu.h>
#include <cfile/rowset.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

/* A scanner handing out cf_row_batch views: its next and free. */
typedef struct rows_src {
    void *sc;
    cf_status (*next)(void *sc, cf_row_batch *b, cf_error *err);
    void (*free)(void *sc);
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

/* The stream over s (taken over, also on failure; its scanner made already, or
 * st its failure) with the columns proj (NULL: every column) of schema. */
static cf_status rows_stream(struct ArrowArrayStream *out, rows_src *s, cf_status st,
                             const cf_schema *schema, const size_t *proj, size_t ncols,
                             const cf_arrow_options *opts, cf_error *err)
{
    cf_arrow_col *cols = st == CF_OK ? cf_calloc(ncols, sizeof *cols) : NULL;
    if (st == CF_OK && cols == NULL)
        st = cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__, "out of memory for an arrow stream");
    size_t made = 0;
    for (; made < ncols && st == CF_OK; made++) {
        size_t ci = proj != NULL ? proj[made] : made;
        const cf_column *c = cf_schema_column_at(schema, ci);
        st = cf_arrow_col_init(&cols[made], c->name, c->type, c->is_array, c->nullable,
                               c->precision, c->scale, opts, err);
        if (st != CF_OK)
            break;
    }
    if (st != CF_OK) {
        for (size_t i = 0; i < made; i++)
            cf_arrow_col_dispose(&cols[i]);
        cf_free(cols);
        rows_free(s);
        return st;
    }
    cf_arrow_source src = {rows_fill, rows_free, s};
    return cf_arrow_stream_make(out, src, cols, ncols, opts, err);
}

static cf_status table_next(void *sc, cf_row_batch *b, cf_error *err)
{
    return cf_table_scanner_next(sc, b, err);
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
    cf_arrow_options dflt;
    if (opts == NULL) {
        cf_arrow_options_init(&dflt);
        opts = &dflt;
    }
    const cf_schema *schema = cf_table_schema(t);
    size_t ncols = scan && scan->cols ? scan->ncols : cf_schema_column_count(schema);
    CF_CHECK(ncols >= 1, err, CF_EINVAL, "arrow: a table stream needs at least one column");
    rows_src *s = cf_calloc(1, sizeof *s);
    CF_CHECK(s != NULL, err, CF_ENOMEM, "out of memory for an arrow stream");
    s->next = table_next;
    s->free = table_scanner_free;
    /* The scanner checks the projection and the predicates. */
    cf_table_scanner *sc = NULL;
    cf_status st = cf_table_scanner_create(&sc, t, scan, err);
    s->sc = sc;
    return rows_stream(out, s, st, schema, scan && scan->cols ? scan->cols : NULL, ncols, opts,
                       err);
}

static cf_status kudu_next(void *sc, cf_row_batch *b, cf_error *err)
{
    return cf_kudu_scanner_next(sc, b, err);
}

static void kudu_scanner_free(void *sc)
{
    cf_kudu_scanner_free(sc);
}

cf_status cf_arrow_stream_kudu(struct ArrowArrayStream *out, const struct cf_kudu_tablet *t,
                               const struct cf_kudu_scan_options *scan,
                               const cf_arrow_options *opts, cf_error *err)
{
    memset(out, 0, sizeof *out);
    cf_arrow_options dflt;
    if (opts == NULL) {
        cf_arrow_options_init(&dflt);
        opts = &dflt;
    }
    const cf_schema *schema = cf_kudu_tablet_schema(t);
    size_t ncols = scan && scan->cols ? scan->ncols : cf_schema_column_count(schema);
    CF_CHECK(ncols >= 1, err, CF_EINVAL, "arrow: a tablet stream needs at least one column");
    rows_src *s = cf_calloc(1, sizeof *s);
    CF_CHECK(s != NULL, err, CF_ENOMEM, "out of memory for an arrow stream");
    s->next = kudu_next;
    s->free = kudu_scanner_free;
    cf_kudu_scanner *sc = NULL;
    cf_status st = cf_kudu_scanner_create(&sc, t, scan, err);
    s->sc = sc;
    return rows_stream(out, s, st, schema, scan && scan->cols ? scan->cols : NULL, ncols, opts,
                       err);
}

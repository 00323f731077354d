/* A record-batch stream over a table scan (cf_arrow_stream_table): the scanner's
 * batches (matching rows only, so often fewer than asked for) are gathered until
 * a record batch holds batch_rows rows or the scan ends. */
#include "record.h"

#include <cfile/rowset.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

typedef struct table_src {
    cf_table_scanner *sc;
    uint64_t done;  /* rows exported so far */
    cf_row_batch b; /* the scanner's current batch, from row `at` on */
    size_t at;
    bool end;
} table_src;

static void table_free(void *ctx)
{
    table_src *s = ctx;
    if (s == NULL)
        return;
    cf_table_scanner_free(s->sc);
    cf_free(s);
}

static cf_status table_fill(void *ctx, cf_arrow_col *cols, size_t rows, size_t *got, cf_error *err)
{
    table_src *s = ctx;
    size_t have = 0;
    while (have < rows && !s->end) {
        if (s->at == s->b.count) {
            CF_TRY(cf_table_scanner_next(s->sc, &s->b, err));
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
    table_src *s = cf_calloc(1, sizeof *s);
    cf_arrow_col *cols = cf_calloc(ncols, sizeof *cols);
    if (s == NULL || cols == NULL) {
        cf_free(s);
        cf_free(cols);
        CF_FAIL(err, CF_ENOMEM, "out of memory for an arrow stream");
    }
    /* The scanner checks the projection and the predicates. */
    cf_status st = cf_table_scanner_create(&s->sc, t, scan, err);
    size_t made = 0;
    for (; made < ncols && st == CF_OK; made++) {
        size_t ci = scan && scan->cols ? scan->cols[made] : made;
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
        table_free(s);
        return st;
    }
    cf_arrow_source src = {table_fill, table_free, s};
    return cf_arrow_stream_make(out, src, cols, ncols, opts, err);
}

/* A record-batch stream over CFiles read side by side (cf_arrow_stream_cfiles).
 * Each column has its own iterator; its blocks end at other rows than its
 * neighbours', so every column is read until it has the batch's rows, in as
 * many iterator batches as that takes. */
#include "record.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

typedef struct cfiles_src {
    cf_iter **iters;
    size_t n;
    uint64_t rows, done; /* rows in every file, rows exported so far */
} cfiles_src;

static void cfiles_free(void *ctx)
{
    cfiles_src *s = ctx;
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n; i++)
        cf_iter_free(s->iters[i]);
    cf_free(s->iters);
    cf_free(s);
}

static cf_status cfiles_fill(void *ctx, cf_arrow_col *cols, size_t rows, size_t *got, cf_error *err)
{
    cfiles_src *s = ctx;
    uint64_t left = s->rows - s->done;
    size_t want = left < rows ? (size_t)left : rows;
    for (size_t i = 0; i < s->n; i++) {
        size_t have = 0;
        while (have < want) {
            cf_batch b;
            CF_TRY(cf_iter_next_batch(s->iters[i], want - have, &b, err));
            CF_CHECK(b.count > 0 && b.count <= want - have, err, CF_ECORRUPT,
                     "arrow: column '%s' ended at row %" PRIu64 " of %" PRIu64, cols[i].name,
                     s->done + have, s->rows);
            CF_TRY(cf_arrow_col_append(&cols[i], &b, 0, b.count, s->done + have, err));
            have += b.count;
        }
    }
    s->done += want;
    *got = want;
    return CF_OK;
}

cf_status cf_arrow_stream_cfiles(struct ArrowArrayStream *out, const cf_reader *const *readers,
                                 const char *const *names, size_t n, const cf_arrow_options *opts,
                                 cf_error *err)
{
    memset(out, 0, sizeof *out);
    cf_arrow_options dflt;
    opts = cf_arrow_options_or_default(opts, &dflt);
    CF_CHECK(n >= 1 && n <= CF_ARROW_MAX_COLUMNS, err, CF_EINVAL, "arrow: %zu columns (1..%u)", n,
             CF_ARROW_MAX_COLUMNS);
    uint64_t rows = cf_reader_info(readers[0])->num_values;
    for (size_t i = 1; i < n; i++) {
        uint64_t r = cf_reader_info(readers[i])->num_values;
        CF_CHECK(r == rows, err, CF_EINVAL,
                 "arrow: column %zu holds %" PRIu64 " rows, column 0 %" PRIu64
                 " (files read together need the same rows)",
                 i, r, rows);
    }
    cfiles_src *s = cf_calloc(1, sizeof *s);
    cf_arrow_col *cols = cf_calloc(n, sizeof *cols);
    if (s != NULL)
        s->iters = cf_calloc(n, sizeof *s->iters);
    if (s == NULL || cols == NULL || s->iters == NULL) {
        cfiles_free(s);
        cf_free(cols);
        CF_FAIL(err, CF_ENOMEM, "out of memory for an arrow stream");
    }
    s->rows = rows;
    cf_status st = CF_OK;
    size_t made = 0;
    for (; made < n && st == CF_OK; made++) {
        const cf_file_info *fi = cf_reader_info(readers[made]);
        char dflt_name[24];
        snprintf(dflt_name, sizeof dflt_name, "c%zu", made);
        const char *name = names && names[made] ? names[made] : dflt_name;
        st = cf_arrow_col_init(&cols[made], name, fi->type, fi->is_array, fi->nullable, 0, 0, opts,
                               err);
        if (st != CF_OK)
            break;
        s->n = made + 1;
        st = cf_iter_create(&s->iters[made], readers[made], err);
    }
    cf_arrow_source src = {cfiles_fill, cfiles_free, s};
    if (st != CF_OK) {
        cf_arrow_source_drop(src, cols, made);
        return st;
    }
    return cf_arrow_stream_make(out, src, cols, n, opts, err);
}

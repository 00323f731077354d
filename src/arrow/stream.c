/* The ArrowArrayStream over a source of record batches (record.h,
 * include/cfile/arrow.h "streams"). The schema is made once, from the column
 * builders, and copied for each get_schema; each get_next asks the source for
 * one batch and hands it over as a struct array of the builders' arrays. */
#include "record.h"

#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

typedef struct stream_priv {
    cf_arrow_stream_state st; /* first: the shared callbacks reach it */
    cf_arrow_source src;
    cf_arrow_col *cols;
    size_t ncols;
    size_t batch_rows;
    bool done;
} stream_priv;

int cf_arrow_stream_fail(cf_arrow_stream_state *st, cf_status status, const cf_error *err)
{
    snprintf(st->msg, sizeof st->msg, "%s: %s", cf_status_str(status), err->msg);
    st->failed = cf_arrow_errno(status);
    return st->failed;
}

int cf_arrow_stream_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    cf_arrow_stream_state *p = s->private_data;
    cf_error err = {0};
    cf_status st = cf_arrow_schema_copy(out, &p->schema, &err);
    if (st != CF_OK) {
        snprintf(p->msg, sizeof p->msg, "%s: %s", cf_status_str(st), err.msg);
        return cf_arrow_errno(st);
    }
    return 0;
}

const char *cf_arrow_stream_last_error(struct ArrowArrayStream *s)
{
    cf_arrow_stream_state *p = s->private_data;
    return p->msg[0] ? p->msg : NULL;
}

static int fail(stream_priv *p, cf_status st, const cf_error *err)
{
    return cf_arrow_stream_fail(&p->st, st, err);
}

cf_status cf_arrow_stream_publish(struct ArrowArrayStream *out,
                                  int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *),
                                  void (*release)(struct ArrowArrayStream *), void *p)
{
    *out = (struct ArrowArrayStream){.get_schema = cf_arrow_stream_get_schema,
                                     .get_next = get_next,
                                     .get_last_error = cf_arrow_stream_last_error,
                                     .release = release,
                                     .private_data = p};
    return CF_OK;
}

static int get_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    stream_priv *p = s->private_data;
    memset(out, 0, sizeof *out);
    if (p->st.failed)
        return p->st.failed;
    if (p->done)
        return 0;
    cf_error err = {0};
    size_t got = 0;
    cf_status st = p->src.fill(p->src.ctx, p->cols, p->batch_rows, &got, &err);
    if (st != CF_OK)
        return fail(p, st, &err);
    if (got == 0) {
        p->done = true;
        return 0;
    }
    st = cf_arrow_array_new(out, (int64_t)got, 1, (int64_t)p->ncols, &err);
    if (st != CF_OK)
        return fail(p, st, &err);
    for (size_t i = 0; i < p->ncols; i++) {
        if (p->cols[i].count != got) {
            out->release(out);
            cf_error_set(&err, CF_ECORRUPT, __FILE__, __LINE__,
                         "arrow: column '%s' gave %zu rows where the batch has %zu",
                         p->cols[i].name, p->cols[i].count, got);
            return fail(p, CF_ECORRUPT, &err);
        }
        st = cf_arrow_col_finish(&p->cols[i], out->children[i], &err);
        if (st != CF_OK) {
            out->release(out);
            return fail(p, st, &err);
        }
    }
    return 0;
}

void cf_arrow_source_drop(cf_arrow_source src, cf_arrow_col *cols, size_t made)
{
    if (src.free != NULL)
        src.free(src.ctx);
    for (size_t i = 0; i < made; i++)
        cf_arrow_col_dispose(&cols[i]);
    cf_free(cols);
}

static void free_priv(stream_priv *p)
{
    cf_arrow_source_drop(p->src, p->cols, p->ncols);
    if (p->st.schema.release != NULL)
        p->st.schema.release(&p->st.schema);
    cf_free(p);
}

static void release(struct ArrowArrayStream *s)
{
    if (s == NULL || s->release == NULL)
        return;
    free_priv(s->private_data);
    s->release = NULL;
    s->private_data = NULL;
}

cf_status cf_arrow_stream_make(struct ArrowArrayStream *out, cf_arrow_source src,
                               cf_arrow_col *cols, size_t ncols, const cf_arrow_options *o,
                               cf_error *err)
{
    memset(out, 0, sizeof *out);
    stream_priv *p = cf_calloc(1, sizeof *p);
    if (p == NULL) {
        cf_arrow_source_drop(src, cols, ncols);
        CF_FAIL(err, CF_ENOMEM, "out of memory for an arrow stream");
    }
    p->src = src;
    p->cols = cols;
    p->ncols = ncols;
    p->batch_rows = o->batch_rows ? o->batch_rows : CF_ARROW_BATCH_ROWS;
    cf_status st = cf_arrow_schema_new(&p->st.schema, "+s", "", 0, (int64_t)ncols, err);
    for (size_t i = 0; i < ncols && st == CF_OK; i++)
        st = cf_arrow_col_schema(&cols[i], p->st.schema.children[i], err);
    if (st != CF_OK) {
        free_priv(p);
        return st;
    }
    return cf_arrow_stream_publish(out, get_next, release, p);
}

/* Schema and array nodes for record batches (record.h).
 *
 * Each node's private block owns its strings or buffers and its children (the
 * structs and the pointer array Arrow wants). A child is self-contained, so a
 * consumer may move it out (copy the struct, mark the original released); the
 * parent's release then skips it, as the C Data Interface requires. */
#include "record.h"

#include <errno.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

typedef struct schema_priv {
    char *format, *name;
    struct ArrowSchema **ptrs;
    struct ArrowSchema *kids;
    int64_t n;
} schema_priv;

static void schema_release(struct ArrowSchema *s)
{
    if (s == NULL || s->release == NULL)
        return;
    schema_priv *p = s->private_data;
    if (p != NULL) {
        for (int64_t i = 0; i < p->n; i++)
            if (p->kids[i].release != NULL)
                p->kids[i].release(&p->kids[i]);
        cf_free(p->kids);
        cf_free(p->ptrs);
        cf_free(p->format);
        cf_free(p->name);
        cf_free(p);
    }
    s->release = NULL;
    s->private_data = NULL;
}

static char *dup(const char *s)
{
    size_t n = strlen(s);
    char *d = cf_malloc(n + 1);
    if (d != NULL)
        memcpy(d, s, n + 1);
    return d;
}

cf_status cf_arrow_schema_new(struct ArrowSchema *out, const char *format, const char *name,
                              int64_t flags, int64_t n_children, cf_error *err)
{
    memset(out, 0, sizeof *out);
    schema_priv *p = cf_calloc(1, sizeof *p);
    if (p == NULL)
        CF_FAIL(err, CF_ENOMEM, "out of memory for an arrow schema");
    p->format = dup(format);
    p->name = dup(name ? name : "");
    if (n_children > 0) {
        p->kids = cf_calloc((size_t)n_children, sizeof *p->kids);
        p->ptrs = cf_calloc((size_t)n_children, sizeof *p->ptrs);
    }
    out->private_data = p;
    out->release = schema_release;
    if (p->format == NULL || p->name == NULL || (n_children > 0 && (!p->kids || !p->ptrs))) {
        schema_release(out);
        CF_FAIL(err, CF_ENOMEM, "out of memory for an arrow schema");
    }
    p->n = n_children;
    for (int64_t i = 0; i < n_children; i++)
        p->ptrs[i] = &p->kids[i];
    out->format = p->format;
    out->name = p->name;
    out->flags = flags;
    out->n_children = n_children;
    out->children = p->ptrs;
    return CF_OK;
}

cf_status cf_arrow_schema_copy(struct ArrowSchema *out, const struct ArrowSchema *s, cf_error *err)
{
    CF_TRY(cf_arrow_schema_new(out, s->format, s->name, s->flags, s->n_children, err));
    for (int64_t i = 0; i < s->n_children; i++) {
        cf_status st = cf_arrow_schema_copy(out->children[i], s->children[i], err);
        if (st != CF_OK) {
            out->release(out);
            return st;
        }
    }
    return CF_OK;
}

typedef struct array_priv {
    void **owned;
    const void **bufs;
    struct ArrowArray **ptrs;
    struct ArrowArray *kids;
    int64_t nbufs, n;
} array_priv;

static void array_release(struct ArrowArray *a)
{
    if (a == NULL || a->release == NULL)
        return;
    array_priv *p = a->private_data;
    if (p != NULL) {
        for (int64_t i = 0; i < p->n; i++)
            if (p->kids[i].release != NULL)
                p->kids[i].release(&p->kids[i]);
        for (int64_t i = 0; i < p->nbufs; i++)
            cf_free(p->owned[i]);
        cf_free(p->owned);
        cf_free(p->bufs);
        cf_free(p->kids);
        cf_free(p->ptrs);
        cf_free(p);
    }
    a->release = NULL;
    a->private_data = NULL;
}

cf_status cf_arrow_array_new(struct ArrowArray *out, int64_t length, int64_t n_buffers,
                             int64_t n_children, cf_error *err)
{
    memset(out, 0, sizeof *out);
    array_priv *p = cf_calloc(1, sizeof *p);
    if (p == NULL)
        CF_FAIL(err, CF_ENOMEM, "out of memory for an arrow array");
    out->private_data = p;
    out->release = array_release;
    p->owned = cf_calloc((size_t)n_buffers + 1, sizeof *p->owned);
    p->bufs = cf_calloc((size_t)n_buffers + 1, sizeof *p->bufs);
    if (n_children > 0) {
        p->kids = cf_calloc((size_t)n_children, sizeof *p->kids);
        p->ptrs = cf_calloc((size_t)n_children, sizeof *p->ptrs);
    }
    if (!p->owned || !p->bufs || (n_children > 0 && (!p->kids || !p->ptrs))) {
        array_release(out);
        CF_FAIL(err, CF_ENOMEM, "out of memory for an arrow array");
    }
    p->nbufs = n_buffers;
    p->n = n_children;
    for (int64_t i = 0; i < n_children; i++)
        p->ptrs[i] = &p->kids[i];
    out->length = length;
    out->n_buffers = n_buffers;
    out->buffers = p->bufs;
    out->n_children = n_children;
    out->children = p->ptrs;
    return CF_OK;
}

void cf_arrow_array_own(struct ArrowArray *a, int slot, void *buf)
{
    array_priv *p = a->private_data;
    cf_free(p->owned[slot]);
    p->owned[slot] = buf;
    p->bufs[slot] = buf;
}

int cf_arrow_errno(cf_status st)
{
    switch (st) {
    case CF_OK: return 0;
    case CF_ENOMEM: return ENOMEM;
    case CF_ENOTSUP: return ENOSYS;
    case CF_ECORRUPT:
    case CF_EIO: return EIO;
    default: return EINVAL;
    }
}

/* Bulk loads into a table, all or nothing (rowset.h "bulk loads", docs/ROWSET.md
 * "Bulk loads").
 *
 * Rows in increasing key order stream into one new rowset writer. The first row
 * out of order ends that rowset; from then on rows go to a private MemRowSet
 * (sorted by key), written as a new rowset each time it holds memory_bytes. None
 * of these directories is named by TABLET until commit adds them all with one
 * TABLET write, so a failure at any point before leaves the table as it was.
 *
 * Keys: a table keeps every key in one store, and a load keeps that rule without
 * touching any existing store: each row's key is looked up in the table (the
 * MemRowSet, then the bloom and key index of every rowset whose range covers it)
 * and in what the load wrote or holds so far. A live or loaded key is a
 * duplicate; a deleted one is refused (reinserting it means a REDO in the rowset
 * that holds it, a second commit point we do not take).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "memrowset.h"

#include "../util/alloc.h"
#include "../util/error.h"

struct cf_table_loader {
    cf_table *t;
    const cf_rs_schema *s;
    uint64_t ts;
    size_t memory_bytes;
    bool table_empty; /* no store holds a row: no lookups in the table */
    cf_status failed;
    bool committed;
    uint64_t rows, err_row;
    /* streaming, until the first row out of order */
    bool streaming;
    cf_rs_writer *w; /* internal (cf_rs_writer_create_in): the table holds the lock */
    cf_rs_manifest wm;
    char *w_name, *w_path;
    cf_buf prev; /* last key streamed */
    bool have_prev;
    /* buffered rows */
    cf_mrs *mrs;
    /* rowsets written, not yet committed */
    char **names;
    cf_rowset **rs;
    size_t n, cap;
    /* per append: encoded keys (offsets into keys), row values, array cells */
    cf_buf keys;
    size_t *koff;
    size_t koff_cap;
    const void **vals, **keyvals;
    cf_array_cell *cells;
    cf_buf *cellbits;
    size_t *eoff; /* array columns: the next row's first element */
};

void cf_table_loader_options_init(cf_table_loader_options *o)
{
    memset(o, 0, sizeof(*o));
    o->version = CF_TABLE_LOADER_OPTIONS_VERSION;
    o->memory_bytes = CF_TABLE_LOADER_MEMORY_BYTES;
}

static cf_status fail_row(cf_table_loader *l, uint64_t row, cf_status st)
{
    l->err_row = row;
    if (st != CF_ENOMEM)
        l->failed = st;
    return st;
}

static cf_status fail(cf_table_loader *l, cf_status st)
{
    return fail_row(l, UINT64_MAX, st);
}

cf_status cf_table_loader_create(cf_table_loader **out, cf_table *t,
                                 const cf_table_loader_options *o, cf_error *err)
{
    *out = NULL;
    cf_table_loader_options dflt;
    if (o == NULL) {
        cf_table_loader_options_init(&dflt);
        o = &dflt;
    }
    CF_CHECK(o->version == CF_TABLE_LOADER_OPTIONS_VERSION, err, CF_EINVAL,
             "loader: options.version %u unknown", o->version);
    /* A new table (`table create`: one empty root rowset, no history) takes any
     * timestamp, as a rowset writer does: default 1. */
    const char *root;
    cf_rowset_info ri;
    cf_rowset_get_info(cf_table_rowset(t, 0, &root), &ri);
    bool fresh = cf_table_rowset_count(t) == 1 && strcmp(root, ".") == 0 && ri.rows == 0 &&
                 ri.redo_files == 0 && ri.undo_files == 0 && cf_table_mrs_rows(t) == 0;
    uint64_t last = fresh ? 0 : cf_table_last_ts(t);
    uint64_t ts = o->ts ? o->ts : last + 1;
    CF_CHECK(ts > last && ts < CF_RS_SNAPSHOT_LATEST - 1, err, CF_EINVAL,
             "loader: timestamp %" PRIu64 " is not after the last one (%" PRIu64 ")", ts, last);
    const cf_rs_schema *s = cf_table_schema(t);
    cf_table_loader *l = cf_calloc(1, sizeof(*l));
    CF_CHECK(l != NULL, err, CF_ENOMEM, "loader: out of memory");
    l->t = t;
    l->s = s;
    l->ts = ts;
    l->memory_bytes = o->memory_bytes ? o->memory_bytes : CF_TABLE_LOADER_MEMORY_BYTES;
    l->streaming = true;
    l->err_row = UINT64_MAX;
    cf_rs_manifest_init(&l->wm);
    cf_buf_init(&l->prev);
    cf_buf_init(&l->keys);
    l->table_empty = cf_table_mrs_rows(t) == 0;
    for (size_t i = 0; l->table_empty && i < cf_table_rowset_count(t); i++) {
        cf_rowset_info info;
        cf_rowset_get_info(cf_table_rowset(t, i, NULL), &info);
        l->table_empty = info.rows == 0;
    }
    l->vals = cf_calloc(s->ncols, sizeof(*l->vals));
    l->keyvals = cf_calloc(s->ncols, sizeof(*l->keyvals));
    l->cells = cf_calloc(s->ncols, sizeof(*l->cells));
    l->cellbits = cf_calloc(s->ncols, sizeof(*l->cellbits));
    l->eoff = cf_calloc(s->ncols, sizeof(*l->eoff));
    if (l->vals == NULL || l->keyvals == NULL || l->cells == NULL || l->cellbits == NULL ||
        l->eoff == NULL) {
        cf_table_loader_free(l);
        CF_FAIL(err, CF_ENOMEM, "loader: out of memory");
    }
    for (size_t c = 0; c < s->ncols; c++)
        cf_buf_init(&l->cellbits[c]);
    *out = l;
    return CF_OK;
}

uint64_t cf_table_loader_error_row(const cf_table_loader *l)
{
    return l->err_row;
}

uint64_t cf_table_loader_rows(const cf_table_loader *l)
{
    return l->rows;
}

/* ---- rowsets written by the load --------------------------------------------------------- */

/* Take over `name` (a finished rowset directory at path): open it for lookups. */
static cf_status add_rowset(cf_table_loader *l, char *name, const char *path, cf_error *err)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        char **nn = cf_realloc(l->names, cap * sizeof(*nn));
        if (nn != NULL)
            l->names = nn;
        cf_rowset **nr = nn != NULL ? cf_realloc(l->rs, cap * sizeof(*nr)) : NULL;
        if (nr == NULL) {
            cf_table_discard_rowset(l->t, name);
            cf_free(name);
            CF_FAIL(err, CF_ENOMEM, "loader: out of memory");
        }
        l->rs = nr;
        l->cap = cap;
    }
    l->names[l->n] = name;
    l->rs[l->n] = NULL;
    l->n++; /* counted before it opens, so free removes it either way */
    return cf_table_open_rowset(l->t, path, &l->rs[l->n - 1], err);
}

/* End the streamed rowset: finished and kept when it has rows. */
static cf_status finish_stream(cf_table_loader *l, cf_error *err)
{
    if (l->w == NULL)
        return CF_OK;
    cf_rs_writer *w = l->w;
    char *name = l->w_name, *path = l->w_path;
    l->w = NULL;
    l->w_name = l->w_path = NULL;
    cf_status st = CF_OK;
    if (cf_rs_writer_rows(w) == 0) {
        cf_rs_writer_free(w);
        cf_table_discard_rowset(l->t, name);
        cf_free(name);
    } else if ((st = cf_rs_writer_finish_files(w, &l->wm, err)) != CF_OK ||
               (st = cf_rs_schema_clone(&l->wm.schema, l->s, err)) != CF_OK ||
               (st = cf_rs_manifest_write(&l->wm, path, err)) != CF_OK) {
        /* every file committed first: the MANIFEST makes the rowset exist */
        cf_rs_writer_free(w);
        cf_table_discard_rowset(l->t, name);
        cf_free(name);
    } else {
        cf_rs_writer_free(w);
        st = add_rowset(l, name, path, err);
    }
    cf_free(path);
    return st;
}

/* Write the buffered rows as a rowset. */
static cf_status flush_chunk(cf_table_loader *l, cf_error *err)
{
    if (l->mrs == NULL || cf_mrs_rows(l->mrs) == 0)
        return CF_OK;
    char *name, *path;
    CF_TRY(cf_table_reserve_rowset(l->t, &name, &path, err));
    cf_status st = cf_mrs_flush(l->mrs, path, err);
    if (st != CF_OK) {
        cf_table_discard_rowset(l->t, name);
        cf_free(name);
    } else {
        st = add_rowset(l, name, path, err);
        cf_mrs_clear(l->mrs);
    }
    cf_free(path);
    return st;
}

/* ---- keys -------------------------------------------------------------------------------- */

/* Is the encoded key new to the table and to the load? (CF_OK, or the error.) */
static cf_status check_key(cf_table_loader *l, const uint8_t *k, size_t kl, uint64_t row,
                           cf_error *err)
{
    if (l->mrs != NULL && cf_mrs_find(l->mrs, k, kl) != NULL)
        CF_FAIL(err, fail_row(l, row, CF_EINVAL), "row %" PRIu64 ": duplicate key (repeated in the load)",
                row);
    for (size_t i = 0; i < l->n; i++) {
        cf_rowset_info info;
        cf_rowset_get_info(l->rs[i], &info);
        if (cf_rs_bytes_cmp(info.min_key.data, info.min_key.len, k, kl) > 0 ||
            cf_rs_bytes_cmp(k, kl, info.max_key.data, info.max_key.len) > 0)
            continue;
        uint64_t ord;
        bool pruned;
        cf_status st = cf_rs_probe_key(l->rs[i], k, kl, &ord, &pruned, err);
        if (st == CF_OK)
            CF_FAIL(err, fail_row(l, row, CF_EINVAL),
                    "row %" PRIu64 ": duplicate key (repeated in the load)", row);
        if (st != CF_ENOTFOUND)
            return fail(l, st);
    }
    if (l->table_empty)
        return CF_OK;
    int state;
    const char *where;
    cf_status st = cf_table_key_state(l->t, k, kl, l->keyvals, &state, &where, err);
    if (st != CF_OK)
        return fail(l, st);
    if (state == 1)
        CF_FAIL(err, fail_row(l, row, CF_EINVAL),
                "row %" PRIu64 ": duplicate key (the table holds it in %s)", row,
                strcmp(where, ".") == 0 ? "its root rowset" : where);
    if (state == 2)
        CF_FAIL(err, fail_row(l, row, CF_ENOTSUP),
                "row %" PRIu64 ": the table holds this key as a deleted row (in %s); a load "
                "cannot reinsert it atomically: insert that row on its own",
                row, strcmp(where, ".") == 0 ? "its root rowset" : where);
    return CF_OK;
}

static bool bit(const uint8_t *bm, size_t i)
{
    return (bm[i >> 3] >> (i & 7)) & 1;
}

/* Point keyvals at row i's key column values. */
static void key_values(cf_table_loader *l, const cf_rs_colvec *cols, size_t i)
{
    for (size_t c = 0; c < l->s->nkeys; c++)
        l->keyvals[c] = (const uint8_t *)cols[c].values + i * cf_type_size(l->s->cols[c].type);
}

/* Row i's values for the MemRowSet (array cells from the flattened elements;
 * eoff[c] is row i's first element and moves past it). */
static cf_status row_values(cf_table_loader *l, const cf_rs_colvec *cols, size_t i, cf_error *err)
{
    const cf_rs_schema *s = l->s;
    for (size_t c = 0; c < s->ncols; c++) {
        const cf_rs_column *cd = &s->cols[c];
        bool present = cols[c].nonnull == NULL || bit(cols[c].nonnull, i);
        size_t w = cf_type_size(cd->type);
        if (!cd->is_array) {
            l->vals[c] = present ? (const uint8_t *)cols[c].values + i * w : NULL;
            continue;
        }
        size_t first = l->eoff[c], n = cols[c].elem_counts[i];
        l->eoff[c] += n;
        if (!present) {
            l->vals[c] = NULL;
            continue;
        }
        const uint8_t *nn = NULL;
        if (cols[c].elem_nonnull != NULL) {
            cf_buf *b = &l->cellbits[c];
            cf_buf_clear(b);
            uint8_t *p = cf_buf_extend(b, n / 8 + 1);
            CF_CHECK(p != NULL, err, CF_ENOMEM, "loader: out of memory");
            memset(p, 0, n / 8 + 1);
            for (size_t e = 0; e < n; e++)
                if (bit(cols[c].elem_nonnull, first + e))
                    p[e >> 3] |= (uint8_t)(1u << (e & 7));
            nn = p;
        }
        l->cells[c] = (cf_array_cell){cd->type, n,
                                      (const uint8_t *)cols[c].values + first * w, nn};
        l->vals[c] = &l->cells[c];
    }
    return CF_OK;
}

/* ---- append ------------------------------------------------------------------------------ */

cf_status cf_table_loader_append(cf_table_loader *l, const cf_rs_colvec *cols, size_t nrows,
                                 cf_error *err)
{
    CF_CHECK(l->failed == CF_OK, err, l->failed, "loader: an earlier call failed");
    CF_CHECK(!l->committed, err, CF_ESTATE, "loader: append after commit");
    if (nrows == 0)
        return CF_OK;
    const cf_rs_schema *s = l->s;
    uint64_t row0 = l->rows;
    for (size_t c = 0; c < s->ncols; c++) {
        if (s->cols[c].nullable || cols[c].nonnull == NULL)
            continue;
        for (size_t i = 0; i < nrows; i++)
            if (!bit(cols[c].nonnull, i))
                CF_FAIL(err, fail_row(l, row0 + i, CF_EINVAL),
                        "row %" PRIu64 ": column '%s' cannot be NULL", row0 + i, s->cols[c].name);
    }
    /* Every key of the batch, as offsets (the buffer may move). */
    if (nrows + 1 > l->koff_cap) {
        size_t *p = cf_realloc(l->koff, (nrows + 1) * sizeof(*p));
        CF_CHECK(p != NULL, err, CF_ENOMEM, "loader: out of memory");
        l->koff = p;
        l->koff_cap = nrows + 1;
    }
    cf_buf_clear(&l->keys);
    for (size_t i = 0; i < nrows; i++) {
        l->koff[i] = l->keys.len;
        cf_rs_key_append_row(&l->keys, s, cols, i);
    }
    l->koff[nrows] = l->keys.len;
    CF_CHECK(!l->keys.oom, err, CF_ENOMEM, "loader: out of memory");
    size_t i = 0;
    cf_status st;
    if (l->streaming) {
        /* The rows in order after the last one streamed. */
        const uint8_t *pk = l->prev.data;
        size_t pl = l->prev.len;
        bool have = l->have_prev;
        size_t k = 0;
        for (; k < nrows; k++) {
            const uint8_t *key = l->keys.data + l->koff[k];
            size_t kl = l->koff[k + 1] - l->koff[k];
            if (have) {
                int cmp = cf_rs_bytes_cmp(pk, pl, key, kl);
                if (cmp == 0)
                    CF_FAIL(err, fail_row(l, row0 + k, CF_EINVAL),
                            "row %" PRIu64 ": duplicate key (repeated in the load)", row0 + k);
                if (cmp > 0)
                    break;
            }
            if (!l->table_empty) {
                key_values(l, cols, k);
                CF_TRY(check_key(l, key, kl, row0 + k, err));
            }
            pk = key;
            pl = kl;
            have = true;
        }
        if (k > 0) {
            if (l->w == NULL) {
                if ((st = cf_table_reserve_rowset(l->t, &l->w_name, &l->w_path, err)) != CF_OK)
                    return fail(l, st);
                cf_rs_writer_options wo;
                cf_rs_writer_options_init(&wo);
                wo.insert_ts = l->ts;
                cf_rs_manifest_dispose(&l->wm);
                cf_rs_manifest_init(&l->wm);
                l->wm.next_file = 1;
                l->wm.generation = 1;
                l->wm.insert_ts = l->wm.last_ts = l->ts;
                if ((st = cf_rs_writer_create_in(&l->w, l->w_path, s, &wo, &l->wm, err)) != CF_OK)
                    return fail(l, st);
            }
            if ((st = cf_rs_writer_append(l->w, cols, k, err)) != CF_OK)
                return fail(l, st);
            cf_buf_clear(&l->prev);
            cf_buf_append(&l->prev, pk, pl);
            CF_CHECK(!l->prev.oom, err, fail(l, CF_ENOMEM), "loader: out of memory");
            l->have_prev = true;
        }
        if (k == nrows) {
            l->rows += nrows;
            return CF_OK;
        }
        /* Row k is out of order: the streamed rows become a rowset of their own. */
        if ((st = finish_stream(l, err)) != CF_OK)
            return fail(l, st);
        l->streaming = false;
        if ((st = cf_mrs_create(&l->mrs, s, err)) != CF_OK)
            return fail(l, st);
        i = k;
        /* rows before k: their array elements precede row k's */
        for (size_t c = 0; c < s->ncols; c++) {
            l->eoff[c] = 0;
            if (s->cols[c].is_array)
                for (size_t r = 0; r < k; r++)
                    l->eoff[c] += cols[c].elem_counts[r];
        }
    } else {
        memset(l->eoff, 0, s->ncols * sizeof(*l->eoff));
    }
    for (; i < nrows; i++) {
        const uint8_t *key = l->keys.data + l->koff[i];
        size_t kl = l->koff[i + 1] - l->koff[i];
        key_values(l, cols, i);
        CF_TRY(check_key(l, key, kl, row0 + i, err));
        if ((st = row_values(l, cols, i, err)) != CF_OK ||
            (st = cf_mrs_insert(l->mrs, key, kl, l->vals, l->ts, err)) != CF_OK)
            return fail_row(l, row0 + i, st);
        if (cf_mrs_bytes(l->mrs) >= l->memory_bytes && (st = flush_chunk(l, err)) != CF_OK)
            return fail(l, st);
    }
    l->rows += nrows;
    return CF_OK;
}

/* ---- commit / free ----------------------------------------------------------------------- */

cf_status cf_table_loader_commit(cf_table_loader *l, cf_error *err)
{
    CF_CHECK(l->failed == CF_OK, err, l->failed, "loader: an earlier call failed");
    CF_CHECK(!l->committed, err, CF_ESTATE, "loader: committed already");
    cf_status st;
    if ((st = finish_stream(l, err)) != CF_OK || (st = flush_chunk(l, err)) != CF_OK)
        return fail(l, st);
    if ((st = cf_table_commit_rowsets(l->t, l->names, l->rs, l->n, l->ts, err)) != CF_OK)
        return fail(l, st);
    /* The table has the rowsets now. */
    for (size_t i = 0; i < l->n; i++)
        cf_free(l->names[i]);
    l->n = 0;
    l->committed = true;
    return CF_OK;
}

void cf_table_loader_free(cf_table_loader *l)
{
    if (l == NULL)
        return;
    if (l->w != NULL) {
        cf_rs_writer_free(l->w);
        cf_table_discard_rowset(l->t, l->w_name);
    }
    cf_free(l->w_name);
    cf_free(l->w_path);
    for (size_t i = 0; i < l->n; i++) {
        cf_rowset_free(l->rs[i]);
        cf_table_discard_rowset(l->t, l->names[i]);
        cf_free(l->names[i]);
    }
    cf_free(l->names);
    cf_free(l->rs);
    cf_mrs_free(l->mrs);
    cf_rs_manifest_dispose(&l->wm);
    cf_buf_dispose(&l->prev);
    cf_buf_dispose(&l->keys);
    cf_free(l->koff);
    for (size_t c = 0; l->cellbits != NULL && c < l->s->ncols; c++)
        cf_buf_dispose(&l->cellbits[c]);
    cf_free(l->cellbits);
    cf_free(l->vals);
    cf_free(l->keyvals);
    cf_free(l->cells);
    cf_free(l->eoff);
    cf_free(l);
}

/* Bulk loads into a table, all or nothing (rowset.h "bulk loads", docs/ROWSET.md
 * "Bulk loads").
 *
 * The first rows are held in an external sort (import_sort.c). When it holds
 * ORDER_PROBE_BYTES (or memory_bytes, if less) of rows that all came in
 * increasing key order, they start one new rowset writer and the rows after them stream into
 * it; the first row out of order ends that rowset. Otherwise, and after such a
 * row, rows are sorted in runs of memory_bytes, spilled to a scratch directory
 * (a rowset directory the load reserves and never names), and merged at commit
 * into one new rowset: the load's rowsets do not overlap (a streamed one that
 * the rows sorted after it overlap is read back into the sort, unless it holds
 * more rows than they do). None of these directories is named by
 * TABLET until commit adds them all with one TABLET write, so a failure at any
 * point before leaves the table as it was (free removes them, the table's
 * clean-up after a crash).
 *
 * Keys: a table keeps every key in one store, and a load keeps that rule without
 * touching any existing store: each row's key is looked up in the table (the
 * MemRowSet, then the bloom and key index of every rowset whose range covers it)
 * and in what the load wrote or holds so far. A live or loaded key is a
 * duplicate.
 *
 * A key the table holds as a deleted row is reinserted where it lives, as
 * cf_table_insert does, without a second commit point: such rows are kept aside
 * (key and REINSERT change list) until commit. Then each rowset holding some of
 * them is copied into a new rowset directory sharing its files (clone.c, after
 * its in-memory deltas are flushed into its own files) and the REINSERTs go to
 * the copy as a new REDO file at the load's timestamp; deleted rows of the
 * MemRowSet are reinserted into a rowset the MemRowSet is flushed to. The one
 * TABLET write names the copies in place of the originals (and the flushed
 * MemRowSet) together with the load's new rowsets. Until it, nothing the table
 * reads has changed; the copies are removed as the load's other directories
 * are. The log needs nothing: a copy holds every op its original held, and its
 * MANIFEST's last_ts (the load's) is above every op logged before the load, so
 * replay skips those ops for its keys (docs/ROWSET.md "Write-ahead log").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "import_sort.h"
#include "memrowset.h"

#include "util/alloc.h"
#include "util/error.h"

/* Rows in key order up to this many bytes in the sorter start streaming (a
 * sorted input needs no more memory than that); rows out of order before it
 * are sorted in runs of the whole budget. */
#define ORDER_PROBE_BYTES ((size_t)8 << 20)

/* A row that reinserts a key the table holds as a deleted row. */
typedef struct re_row {
    size_t koff, klen, roff, rlen; /* its encoded key and REINSERT change list in l->re */
    size_t store;                  /* where the table holds the key (cf_table_key_state) */
    uint64_t row;
} re_row;

struct cf_table_loader {
    cf_table *t;
    const cf_schema *s;
    uint64_t ts;
    size_t memory_bytes;
    bool table_empty; /* no store holds a row: no lookups in the table */
    cf_sticky failed; /* the first failure but out of memory, replayed */
    bool committed;
    bool touched; /* the append failing took some of its rows */
    uint64_t rows, err_row;
    /* buffering: every row so far is in the sorter (and came in order if it
     * has not spilled); streaming: rows go to w until the first one out of
     * order; neither: rows go to the sorter */
    bool buffering, streaming;
    cf_rowset_writer *w; /* internal (cf_rowset_writer_create_in): the table holds the lock */
    cf_rs_manifest wm;
    char *w_name, *w_path;
    int w_dfd;   /* its directory, held open (-1: none) */
    cf_buf prev; /* last key streamed */
    bool have_prev;
    /* rows sorted in runs; scratch: the directory its runs spill to */
    cf_rs_sorter *so;
    char *scratch_name, *scratch_path;
    int scratch_dfd; /* -1: none */
    /* the rowset streamed before a row out of order (SIZE_MAX: none), and the
     * key range and count of the rows sorted after it */
    size_t streamed;
    cf_buf lo, hi;
    uint64_t sorted_rows;
    /* rowsets written, not yet committed; replaces[i]: the table rowset that
     * rowset i is a copy of (SIZE_MAX: a new one) */
    char **names;
    cf_rowset **rs;
    size_t *replaces;
    size_t n, cap;
    bool takes_mrs; /* one of them holds the table's MemRowSet */
    /* reinserts of deleted keys, applied at commit; re_hash: open addressing
     * over their keys (index + 1, 0 = empty) */
    cf_buf re;
    re_row *rerows;
    size_t nre, re_cap;
    size_t *re_hash, re_hcap;
    cf_rcl_builder *rcl;
    /* streaming with reinserts: the streamed rows between two of them */
    cf_colvec *slice;
    cf_buf *slice_nn, *slice_enn;
    size_t *seoff; /* array columns: the segment's first element */
    bool has_arrays;
    /* per append: encoded keys (offsets into keys), row values, array cells */
    cf_buf keys;
    size_t *koff;
    size_t koff_cap;
    const void **vals, **keyvals;
    cf_array_cell *cells;
    cf_buf *cellbits;
    size_t *eoff; /* array columns: the next row's first element */
};

void cf_table_loader_options_init(cf_table_loader_options *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->version = CF_TABLE_LOADER_OPTIONS_VERSION;
    opts->memory_bytes = CF_TABLE_LOADER_MEMORY_BYTES;
}

/* Note the row a failure is about (UINT64_MAX: none) for cf_table_loader_error_row. */
static cf_status fail_row(cf_table_loader *l, uint64_t row, cf_status st)
{
    l->err_row = row;
    return st;
}

/* Out of memory leaves the loader usable (the failed call can be retried)
 * while nothing of the call's rows was taken; any other failure is sticky. */
static cf_status stick(cf_table_loader *l, cf_status st, const cf_error *err)
{
    return st == CF_ENOMEM && !l->touched ? st : cf_sticky_set(&l->failed, st, err);
}

static cf_status fail(cf_table_loader *l, cf_status st)
{
    return fail_row(l, UINT64_MAX, st);
}

cf_status cf_table_loader_create(cf_table_loader **out, cf_table *t,
                                 const cf_table_loader_options *opts, cf_error *err)
{
    *out = NULL;
    cf_table_loader_options dflt;
    if (opts == NULL) {
        cf_table_loader_options_init(&dflt);
        opts = &dflt;
    }
    CF_CHECK(opts->version == CF_TABLE_LOADER_OPTIONS_VERSION, err, CF_EINVAL,
             "loader: options.version %u unknown", opts->version);
    /* A new table (`table create`: one empty root rowset, no history) takes any
     * timestamp, as a rowset writer does: default 1. */
    const char *root;
    cf_rowset_info ri;
    cf_rowset_get_info(cf_table_rowset_at(t, 0, &root), &ri);
    bool fresh = cf_table_rowset_count(t) == 1 && strcmp(root, ".") == 0 && ri.rows == 0 &&
                 ri.redo_files == 0 && ri.undo_files == 0 && cf_table_mrs_rows(t) == 0;
    uint64_t last = fresh ? 0 : cf_table_last_ts(t);
    uint64_t ts = opts->ts ? opts->ts : last + 1;
    CF_CHECK(ts > last && ts < CF_SNAPSHOT_LATEST - 1, err, CF_EINVAL,
             "loader: timestamp %" PRIu64 " is not after the last one (%" PRIu64 ")", ts, last);
    const cf_schema *s = cf_table_schema(t);
    cf_table_loader *l = cf_calloc(1, sizeof(*l));
    CF_CHECK(l != NULL, err, CF_ENOMEM, "loader: out of memory");
    l->t = t;
    l->s = s;
    l->ts = ts;
    l->w_dfd = l->scratch_dfd = -1;
    l->memory_bytes = opts->memory_bytes ? opts->memory_bytes : CF_TABLE_LOADER_MEMORY_BYTES;
    l->buffering = true;
    l->streamed = SIZE_MAX;
    cf_buf_init(&l->lo);
    cf_buf_init(&l->hi);
    l->err_row = UINT64_MAX;
    cf_rs_manifest_init(&l->wm);
    cf_buf_init(&l->prev);
    cf_buf_init(&l->keys);
    l->table_empty = cf_table_mrs_rows(t) == 0;
    for (size_t i = 0; l->table_empty && i < cf_table_rowset_count(t); i++) {
        cf_rowset_info info;
        cf_rowset_get_info(cf_table_rowset_at(t, i, NULL), &info);
        l->table_empty = info.rows == 0;
    }
    l->vals = cf_calloc(s->ncols, sizeof(*l->vals));
    l->keyvals = cf_calloc(s->ncols, sizeof(*l->keyvals));
    l->cells = cf_calloc(s->ncols, sizeof(*l->cells));
    l->cellbits = cf_calloc(s->ncols, sizeof(*l->cellbits));
    l->eoff = cf_calloc(s->ncols, sizeof(*l->eoff));
    l->seoff = cf_calloc(s->ncols, sizeof(*l->seoff));
    l->slice = cf_calloc(s->ncols, sizeof(*l->slice));
    l->slice_nn = cf_calloc(s->ncols, sizeof(*l->slice_nn));
    l->slice_enn = cf_calloc(s->ncols, sizeof(*l->slice_enn));
    cf_buf_init(&l->re);
    if (l->vals == NULL || l->keyvals == NULL || l->cells == NULL || l->cellbits == NULL ||
        l->eoff == NULL || l->seoff == NULL || l->slice == NULL || l->slice_nn == NULL ||
        l->slice_enn == NULL) {
        cf_table_loader_free(l);
        CF_FAIL(err, CF_ENOMEM, "loader: out of memory");
    }
    for (size_t c = 0; c < s->ncols; c++) {
        l->has_arrays |= s->cols[c].is_array;
        cf_buf_init(&l->cellbits[c]);
        cf_buf_init(&l->slice_nn[c]);
        cf_buf_init(&l->slice_enn[c]);
    }
    cf_status st = cf_rcl_builder_create(&l->rcl, err);
    if (st == CF_OK)
        st = cf_rs_sorter_create(&l->so, s, l->memory_bytes, err);
    if (st != CF_OK) {
        cf_table_loader_free(l);
        return st;
    }
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

/* Take over `name` (a finished rowset directory of the table; a copy of the
 * table's rowset `replaces`, or SIZE_MAX): open it for lookups. */
static cf_status add_rowset(cf_table_loader *l, char *name, size_t replaces, cf_error *err)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        char **nn = cf_realloc(l->names, cap * sizeof(*nn));
        if (nn != NULL)
            l->names = nn;
        cf_rowset **nr = nn != NULL ? cf_realloc(l->rs, cap * sizeof(*nr)) : NULL;
        if (nr != NULL)
            l->rs = nr;
        size_t *np = nr != NULL ? cf_realloc(l->replaces, cap * sizeof(*np)) : NULL;
        if (np == NULL) {
            cf_table_discard_rowset(l->t, name);
            cf_free(name);
            CF_FAIL(err, CF_ENOMEM, "loader: out of memory");
        }
        l->replaces = np;
        l->cap = cap;
    }
    l->names[l->n] = name;
    l->rs[l->n] = NULL;
    l->replaces[l->n] = replaces;
    l->n++; /* counted before it opens, so free removes it either way */
    return cf_table_open_rowset(l->t, name, &l->rs[l->n - 1], err);
}

/* End the streamed rowset: finished and kept when it has rows. */
static cf_status finish_stream(cf_table_loader *l, cf_error *err)
{
    if (l->w == NULL)
        return CF_OK;
    cf_rowset_writer *w = l->w;
    char *name = l->w_name, *path = l->w_path;
    int dfd = l->w_dfd;
    l->w = NULL;
    l->w_name = l->w_path = NULL;
    l->w_dfd = -1;
    cf_status st = CF_OK;
    if (cf_rowset_writer_rows(w) == 0) {
        cf_rowset_writer_free(w);
        cf_table_discard_rowset(l->t, name);
        cf_free(name);
    } else if ((st = cf_rowset_writer_finish_files(w, &l->wm, err)) != CF_OK ||
               (st = cf_schema_clone(&l->wm.schema, l->s, err)) != CF_OK ||
               (st = cf_rs_manifest_write_at(&l->wm, dfd, path, err)) != CF_OK) {
        /* every file committed first: the MANIFEST makes the rowset exist */
        cf_rowset_writer_free(w);
        cf_table_discard_rowset(l->t, name);
        cf_free(name);
    } else {
        cf_rowset_writer_free(w);
        st = add_rowset(l, name, SIZE_MAX, err);
    }
    cf_rs_dir_close(dfd);
    cf_free(path);
    return st;
}

/* The scratch directory sorted runs spill to: a rowset directory no TABLET
 * names, so free, or the table's clean-up after a crash, removes it. */
static cf_status spill(cf_table_loader *l, cf_error *err)
{
    if (l->scratch_path == NULL) {
        cf_status st =
            cf_table_reserve_rowset(l->t, &l->scratch_name, &l->scratch_path, &l->scratch_dfd, err);
        if (st != CF_OK)
            return fail(l, st);
    }
    uint64_t row = UINT64_MAX;
    /* The spill sets `row`: call it before reading row (the order in which a
     * call's arguments are evaluated is unspecified; clang reads row first). */
    cf_status st = cf_rs_sorter_spill(l->so, l->scratch_dfd, l->scratch_path, &row, err);
    return fail_row(l, row, st);
}

static cf_status spill_cb(void *ctx, cf_error *err)
{
    return spill(ctx, err);
}

/* The key range of the rows sorted after a streamed rowset. */
static cf_status note_range(cf_table_loader *l, const uint8_t *k, size_t kl, cf_error *err)
{
    bool first = l->sorted_rows++ == 0;
    if (first || cf_rs_bytes_cmp(k, kl, l->lo.data, l->lo.len) < 0) {
        cf_buf_clear(&l->lo);
        cf_buf_append(&l->lo, k, kl);
    }
    if (first || cf_rs_bytes_cmp(k, kl, l->hi.data, l->hi.len) > 0) {
        cf_buf_clear(&l->hi);
        cf_buf_append(&l->hi, k, kl);
    }
    CF_CHECK(!l->lo.oom && !l->hi.oom, err, fail(l, CF_ENOMEM), "loader: out of memory");
    return CF_OK;
}

/* A streamed rowset that the rows sorted after it overlap goes back into the
 * sort (its rows are in order and were checked against every later key), so
 * the load's rowsets do not overlap; unless it holds more rows than they do
 * (then reading it again would cost more than the overlap: it stays). */
static cf_status resort_streamed(cf_table_loader *l, cf_error *err)
{
    size_t i = l->streamed;
    if (i == SIZE_MAX || l->sorted_rows == 0)
        return CF_OK;
    cf_rowset_info info;
    cf_rowset_get_info(l->rs[i], &info);
    if (info.rows > l->sorted_rows ||
        cf_rs_bytes_cmp(info.max_key.data, info.max_key.len, l->lo.data, l->lo.len) < 0 ||
        cf_rs_bytes_cmp(l->hi.data, l->hi.len, info.min_key.data, info.min_key.len) < 0)
        return CF_OK;
    /* numbered as the load's first row: no duplicate can name them */
    cf_status st = cf_rs_sorter_add_rowset(l->so, l->rs[i], 0, spill_cb, l, err);
    if (st != CF_OK)
        return fail(l, st);
    cf_rowset_free(l->rs[i]);
    cf_table_discard_rowset(l->t, l->names[i]);
    cf_free(l->names[i]);
    memmove(l->names + i, l->names + i + 1, (l->n - i - 1) * sizeof(*l->names));
    memmove(l->rs + i, l->rs + i + 1, (l->n - i - 1) * sizeof(*l->rs));
    memmove(l->replaces + i, l->replaces + i + 1, (l->n - i - 1) * sizeof(*l->replaces));
    l->n--;
    l->streamed = SIZE_MAX;
    return CF_OK;
}

/* Every row the sorter holds or spilled, in key order, into the stream writer. */
static cf_status drain_sorted(cf_table_loader *l, cf_error *err)
{
    uint64_t row = UINT64_MAX;
    cf_status st = cf_rs_sorter_drain(l->so, l->scratch_dfd, l->scratch_path, l->w, &row, err);
    if (st == CF_OK && l->scratch_name != NULL) {
        cf_table_discard_rowset(l->t, l->scratch_name);
        cf_free(l->scratch_name);
        cf_free(l->scratch_path);
        cf_rs_dir_close(l->scratch_dfd);
        l->scratch_name = l->scratch_path = NULL;
        l->scratch_dfd = -1;
    }
    return fail_row(l, row, st);
}

/* ---- keys -------------------------------------------------------------------------------- */

/* The reinsert row with encoded key k, or SIZE_MAX. */
static size_t re_find(const cf_table_loader *l, const uint8_t *k, size_t kl)
{
    if (l->re_hcap == 0)
        return SIZE_MAX;
    size_t mask = l->re_hcap - 1;
    for (size_t h = (size_t)cf_rs_fnv1a(k, kl) & mask;; h = (h + 1) & mask) {
        size_t e = l->re_hash[h];
        if (e == 0)
            return SIZE_MAX;
        const re_row *r = &l->rerows[e - 1];
        if (r->klen == kl && memcmp(l->re.data + r->koff, k, kl) == 0)
            return e - 1;
    }
}

static void re_hash_put(cf_table_loader *l, size_t idx)
{
    const re_row *r = &l->rerows[idx];
    size_t mask = l->re_hcap - 1;
    size_t h = (size_t)cf_rs_fnv1a(l->re.data + r->koff, r->klen) & mask;
    while (l->re_hash[h] != 0)
        h = (h + 1) & mask;
    l->re_hash[h] = idx + 1;
}

/* Is the encoded key new to the table and to the load? CF_OK with *re set
 * when the table holds it as a deleted row (in store *store), else the error. */
static cf_status check_key(cf_table_loader *l, const uint8_t *k, size_t kl, uint64_t row, bool *re,
                           size_t *store, cf_error *err)
{
    *re = false;
    if (re_find(l, k, kl) != SIZE_MAX)
        CF_FAIL(err, fail_row(l, row, CF_EINVAL),
                "row %" PRIu64 ": duplicate key (repeated in the load)", row);
    for (size_t i = 0; i < l->n; i++) {
        if (!cf_rs_covers_key(l->rs[i], k, kl))
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
    cf_status st = cf_table_key_state(l->t, k, kl, l->keyvals, &state, &where, store, err);
    if (st != CF_OK)
        return fail(l, st);
    if (state == 1)
        CF_FAIL(err, fail_row(l, row, CF_EINVAL),
                "row %" PRIu64 ": duplicate key (the table holds it in %s)", row,
                strcmp(where, ".") == 0 ? "its root rowset" : where);
    *re = state == 2;
    return CF_OK;
}

static bool bit(const uint8_t *bm, size_t i)
{
    return (bm[i >> 3] >> (i & 7)) & 1;
}

/* Point keyvals at row i's key column values. */
static void key_values(cf_table_loader *l, const cf_colvec *cols, size_t i)
{
    for (size_t c = 0; c < l->s->nkeys; c++)
        l->keyvals[c] = (const uint8_t *)cols[c].values + i * cf_type_size(l->s->cols[c].type);
}

/* Row i's values for the MemRowSet (array cells from the flattened elements;
 * eoff[c] is row i's first element and moves past it). */
static cf_status row_values(cf_table_loader *l, const cf_colvec *cols, size_t i, cf_error *err)
{
    const cf_schema *s = l->s;
    for (size_t c = 0; c < s->ncols; c++) {
        const cf_column *cd = &s->cols[c];
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
        l->cells[c] = (cf_array_cell){cd->type, n, (const uint8_t *)cols[c].values + first * w, nn};
        l->vals[c] = &l->cells[c];
    }
    return CF_OK;
}

/* Keep row i (encoded key k, held deleted by the table in `store`) aside as a
 * reinsert: its key and a REINSERT of its other columns. Moves eoff past it. */
static cf_status add_reinsert(cf_table_loader *l, const cf_colvec *cols, size_t i, const uint8_t *k,
                              size_t kl, uint64_t row, size_t store, cf_error *err)
{
    const cf_schema *s = l->s;
    cf_status st = row_values(l, cols, i, err);
    if (st != CF_OK)
        return fail_row(l, row, st);
    cf_rcl_builder_reset(l->rcl, CF_RCL_REINSERT);
    for (size_t c = s->nkeys; c < s->ncols; c++)
        if ((st = cf_rs_rcl_add_value(l->rcl, &s->cols[c], c, l->vals[c], err)) != CF_OK)
            return fail_row(l, row, st);
    cf_slice rcl = cf_rcl_builder_bytes(l->rcl);
    if (l->nre == l->re_cap)
        CF_CHECK(cf_array_grow(&l->rerows, &l->re_cap, sizeof *l->rerows, 16), err,
                 fail(l, CF_ENOMEM), "loader: out of memory");
    if (2 * (l->nre + 1) > l->re_hcap) {
        size_t cap = l->re_hcap ? l->re_hcap * 2 : 32;
        size_t *h = cf_calloc(cap, sizeof(*h));
        CF_CHECK(h != NULL, err, fail(l, CF_ENOMEM), "loader: out of memory");
        cf_free(l->re_hash);
        l->re_hash = h;
        l->re_hcap = cap;
        for (size_t e = 0; e < l->nre; e++)
            re_hash_put(l, e);
    }
    re_row *r = &l->rerows[l->nre];
    r->koff = l->re.len;
    r->klen = kl;
    cf_buf_append(&l->re, k, kl);
    r->roff = l->re.len;
    r->rlen = rcl.len;
    cf_buf_append(&l->re, rcl.data, rcl.len);
    CF_CHECK(!l->re.oom, err, fail(l, CF_ENOMEM), "loader: out of memory");
    r->store = store;
    r->row = row;
    re_hash_put(l, l->nre++);
    return CF_OK;
}

/* Move eoff past row i's array elements. */
static void skip_elems(cf_table_loader *l, const cf_colvec *cols, size_t i)
{
    for (size_t c = 0; l->has_arrays && c < l->s->ncols; c++)
        if (l->s->cols[c].is_array)
            l->eoff[c] += cols[c].elem_counts[i];
}

/* Bits [first, first + n) of bm into b (NULL bm: NULL). */
static const uint8_t *shift_bits(cf_buf *b, const uint8_t *bm, size_t first, size_t n)
{
    if (bm == NULL || first % 8 == 0)
        return bm != NULL ? bm + first / 8 : NULL;
    cf_buf_clear(b);
    uint8_t *p = cf_buf_extend(b, n / 8 + 1);
    if (p == NULL)
        return NULL;
    memset(p, 0, n / 8 + 1);
    for (size_t i = 0; i < n; i++)
        if (bit(bm, first + i))
            p[i >> 3] |= (uint8_t)(1u << (i & 7));
    return p;
}

/* The load's rowset writer for rows in key order (a new rowset directory). */
static cf_status open_writer(cf_table_loader *l, cf_error *err)
{
    const cf_schema *s = l->s;
    cf_status st;
    if (l->w == NULL) {
        if ((st = cf_table_reserve_rowset(l->t, &l->w_name, &l->w_path, &l->w_dfd, err)) != CF_OK)
            return fail(l, st);
        cf_rowset_writer_options wo;
        cf_rowset_writer_options_init(&wo);
        wo.insert_ts = l->ts;
        cf_rs_manifest_dispose(&l->wm);
        cf_rs_manifest_init(&l->wm);
        l->wm.next_file = 1;
        l->wm.generation = 1;
        l->wm.file_mode = cf_table_file_mode(l->t);
        l->wm.insert_ts = l->wm.last_ts = l->ts;
        if ((st = cf_rowset_writer_create_in(&l->w, l->w_dfd, l->w_path, s, &wo, &l->wm, err)) !=
            CF_OK)
            return fail(l, st);
    }
    return CF_OK;
}

/* Stream rows [a, b) of the batch (eoff: row b's first elements, seoff: row
 * a's) into the load's rowset writer, created at the first of them. */
static cf_status stream_rows(cf_table_loader *l, const cf_colvec *cols, size_t a, size_t b,
                             cf_error *err)
{
    const cf_schema *s = l->s;
    cf_status st;
    if (b <= a)
        return CF_OK;
    CF_TRY(open_writer(l, err));
    const cf_colvec *v = cols;
    if (a > 0) {
        /* the rows after a reinsert: the columns from row a on */
        for (size_t c = 0; c < s->ncols; c++) {
            const cf_column *cd = &s->cols[c];
            cf_colvec *o = &l->slice[c];
            size_t w = cf_type_size(cd->type);
            o->nonnull = shift_bits(&l->slice_nn[c], cols[c].nonnull, a, b - a);
            if (cd->is_array) {
                o->values = (const uint8_t *)cols[c].values + l->seoff[c] * w;
                o->elem_counts = cols[c].elem_counts + a;
                o->elem_nonnull = shift_bits(&l->slice_enn[c], cols[c].elem_nonnull, l->seoff[c],
                                             l->eoff[c] - l->seoff[c]);
                CF_CHECK(cols[c].elem_nonnull == NULL || o->elem_nonnull != NULL, err,
                         fail(l, CF_ENOMEM), "loader: out of memory");
            } else {
                o->values = (const uint8_t *)cols[c].values + a * w;
                o->elem_counts = NULL;
                o->elem_nonnull = NULL;
            }
            CF_CHECK(cols[c].nonnull == NULL || o->nonnull != NULL, err, fail(l, CF_ENOMEM),
                     "loader: out of memory");
        }
        v = l->slice;
    }
    if ((st = cf_rowset_writer_append(l->w, v, b - a, err)) != CF_OK)
        return fail(l, st);
    return CF_OK;
}

/* ---- append ------------------------------------------------------------------------------ */

/* Row i of the batch (row0 + i of the load) into the sorter; or, when check
 * finds its key already in the table, set aside as a reinsert (*sorted false).
 * Inlined: a call per row cost 0.7% of an import's instructions. */
static inline __attribute__((always_inline)) cf_status sort_row(cf_table_loader *l,
                                                                const cf_colvec *cols, size_t i,
                                                                uint64_t row0, bool check,
                                                                bool *sorted, cf_error *err)
{
    const uint8_t *key = l->keys.data + l->koff[i];
    size_t kl = l->koff[i + 1] - l->koff[i];
    *sorted = false;
    if (check) {
        bool re;
        size_t store;
        key_values(l, cols, i);
        CF_TRY(check_key(l, key, kl, row0 + i, &re, &store, err));
        if (re)
            return add_reinsert(l, cols, i, key, kl, row0 + i, store, err);
    }
    cf_status st = cf_rs_sorter_add(l->so, key, kl, cols, i, l->eoff, row0 + i, err);
    if (st != CF_OK)
        return fail_row(l, row0 + i, st);
    *sorted = true;
    return CF_OK;
}

static cf_status append(cf_table_loader *l, const cf_colvec *cols, size_t nrows, cf_error *err)
{
    const cf_schema *s = l->s;
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
    memset(l->eoff, 0, s->ncols * sizeof(*l->eoff));
    l->touched = true; /* from here rows are taken: a retry would take them twice */
    size_t i = 0;
    cf_status st;
    bool re;
    size_t store;
    if (l->buffering) {
        /* Into the sorter until it fills: then the rows stream on when they
         * all came in order, else they are a run. */
        for (; i < nrows; i++) {
            bool sorted;
            CF_TRY(sort_row(l, cols, i, row0, !l->table_empty, &sorted, err));
            if (!sorted)
                continue;
            cf_slice last;
            bool ordered = cf_rs_sorter_in_order(l->so, &last);
            if (!cf_rs_sorter_full(l->so) &&
                !(ordered && cf_rs_sorter_bytes(l->so) >= ORDER_PROBE_BYTES))
                continue;
            l->buffering = false;
            if (ordered) {
                cf_buf_clear(&l->prev);
                cf_buf_append(&l->prev, last.data, last.len);
                CF_CHECK(!l->prev.oom, err, fail(l, CF_ENOMEM), "loader: out of memory");
                l->have_prev = true;
                CF_TRY(open_writer(l, err));
                CF_TRY(drain_sorted(l, err));
                l->streaming = true;
            } else {
                CF_TRY(spill(l, err));
            }
            i++;
            break;
        }
    }
    if (l->streaming) {
        /* The rows in order after the last one streamed; reinserts are kept
         * aside, and the rows between them streamed in segments. */
        const uint8_t *pk = l->prev.data;
        size_t pl = l->prev.len;
        bool have = l->have_prev, streamed = false;
        size_t k = i, seg = i;
        memcpy(l->seoff, l->eoff, s->ncols * sizeof(*l->seoff));
        for (; k < nrows; k++) {
            const uint8_t *key = l->keys.data + l->koff[k];
            size_t kl = l->koff[k + 1] - l->koff[k];
            if (!l->table_empty) {
                key_values(l, cols, k);
                CF_TRY(check_key(l, key, kl, row0 + k, &re, &store, err));
                if (re) {
                    CF_TRY(stream_rows(l, cols, seg, k, err));
                    CF_TRY(add_reinsert(l, cols, k, key, kl, row0 + k, store, err));
                    seg = k + 1;
                    memcpy(l->seoff, l->eoff, s->ncols * sizeof(*l->seoff));
                    continue;
                }
            }
            if (have) {
                int cmp = cf_rs_bytes_cmp(pk, pl, key, kl);
                if (cmp == 0)
                    CF_FAIL(err, fail_row(l, row0 + k, CF_EINVAL),
                            "row %" PRIu64 ": duplicate key (repeated in the load)", row0 + k);
                if (cmp > 0)
                    break;
            }
            skip_elems(l, cols, k);
            pk = key;
            pl = kl;
            have = true;
            streamed = true;
        }
        CF_TRY(stream_rows(l, cols, seg, k, err));
        if (streamed) {
            cf_buf_clear(&l->prev);
            cf_buf_append(&l->prev, pk, pl);
            CF_CHECK(!l->prev.oom, err, fail(l, CF_ENOMEM), "loader: out of memory");
            l->have_prev = true;
        }
        if (k == nrows) {
            l->rows += nrows;
            return CF_OK;
        }
        /* Row k is out of order: the streamed rows become a rowset of their own
         * (eoff is at row k's first elements). */
        size_t had = l->n;
        if ((st = finish_stream(l, err)) != CF_OK)
            return fail(l, st);
        l->streaming = false;
        l->streamed = l->n > had ? l->n - 1 : SIZE_MAX;
        i = k;
    }
    /* Sorted runs. Keys are checked against the table and the streamed rowset
     * here; among the load's own rows, by the sort. */
    bool check = !l->table_empty || l->n > 0;
    for (; i < nrows; i++) {
        bool sorted;
        CF_TRY(sort_row(l, cols, i, row0, check, &sorted, err));
        if (!sorted)
            continue;
        if (l->streamed != SIZE_MAX)
            CF_TRY(note_range(l, l->keys.data + l->koff[i], l->koff[i + 1] - l->koff[i], err));
        if (cf_rs_sorter_full(l->so))
            CF_TRY(spill(l, err));
    }
    l->rows += nrows;
    return CF_OK;
}

cf_status cf_table_loader_append(cf_table_loader *l, const cf_colvec *cols, size_t nrows,
                                 cf_error *err)
{
    CF_TRY(cf_sticky_replay(&l->failed, "loader", err));
    CF_CHECK(!l->committed, err, CF_ESTATE, "loader: append after commit");
    if (nrows == 0)
        return CF_OK;
    l->touched = false;
    return stick(l, append(l, cols, nrows, err), err);
}

/* ---- reinserts at commit ---------------------------------------------------------------- */

static int re_cmp(const void *a, const void *b)
{
    const re_row *x = a, *y = b;
    if (x->store != y->store)
        return x->store < y->store ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* A rowset holding the rows of table store `store` that the reinserts can go
 * to without touching the table: a copy of the rowset (its in-memory deltas
 * flushed into its own files first), or the MemRowSet flushed to a new one. It
 * is l->rs[l->n - 1] on success. */
static cf_status target_for(cf_table_loader *l, size_t store, cf_error *err)
{
    char *name, *path;
    int dfd;
    cf_status st;
    const char *src_name;
    cf_rowset *src = NULL;
    if (store != CF_TABLE_STORE_MRS) {
        src = cf_table_rowset_at(l->t, store, &src_name);
        CF_CHECK(src != NULL, err, CF_ESTATE, "loader: the table changed during the load");
        CF_TRY(cf_rowset_flush(src, err));
    }
    CF_TRY(cf_table_reserve_rowset(l->t, &name, &path, &dfd, err));
    if (src == NULL)
        st = cf_mrs_flush(cf_table_mrs(l->t), dfd, path, cf_table_file_mode(l->t), err);
    else {
        int sdfd = cf_rs_dir_use(src);
        st = sdfd == -1 ? cf_error_set(err, CF_EIO, __FILE__, __LINE__, "%s: %s", cf_rs_dir(src),
                                       strerror(errno))
                        : cf_rs_clone(cf_rs_manifest_of(src), sdfd, cf_rs_dir(src), dfd, path,
                                      cf_table_file_mode(l->t), err);
        cf_rs_dir_done(src, sdfd);
    }
    cf_rs_dir_close(dfd);
    if (st != CF_OK) {
        cf_table_discard_rowset(l->t, name);
        cf_free(name);
    } else {
        st = add_rowset(l, name, src == NULL ? SIZE_MAX : store, err);
        if (src == NULL)
            l->takes_mrs = true;
    }
    cf_free(path);
    return st;
}

/* Every reinsert into a copy of the store holding its key, each copy's
 * REINSERTs then written as a REDO file (docs/ROWSET.md "Bulk loads"). */
static cf_status apply_reinserts(cf_table_loader *l, cf_error *err)
{
    if (l->nre == 0)
        return CF_OK;
    qsort(l->rerows, l->nre, sizeof(*l->rerows), re_cmp); /* re_hash is stale from here */
    for (size_t a = 0, b; a < l->nre; a = b) {
        size_t store = l->rerows[a].store;
        for (b = a; b < l->nre && l->rerows[b].store == store; b++)
            ;
        CF_TRY(target_for(l, store, err));
        cf_rowset *rs = l->rs[l->n - 1];
        for (size_t e = a; e < b; e++) {
            const re_row *r = &l->rerows[e];
            cf_status st =
                cf_rs_reinsert_rcl(rs, l->re.data + r->koff, r->klen,
                                   (cf_slice){l->re.data + r->roff, r->rlen}, l->ts, err);
            if (st != CF_OK) {
                l->err_row = r->row;
                return cf_error_prefix(err, st, "row %" PRIu64 ": ", r->row);
            }
        }
        CF_TRY(cf_rowset_flush(rs, err));
    }
    return CF_OK;
}

/* ---- commit / free ----------------------------------------------------------------------- */

cf_status cf_table_loader_commit(cf_table_loader *l, cf_error *err)
{
    CF_TRY(cf_sticky_replay(&l->failed, "loader", err));
    CF_CHECK(!l->committed, err, CF_ESTATE, "loader: committed already");
    cf_status st = CF_OK;
    if (!l->streaming && (cf_rs_sorter_rows(l->so) > 0 || cf_rs_sorter_runs(l->so) > 0) &&
        ((st = resort_streamed(l, err)) != CF_OK || (st = open_writer(l, err)) != CF_OK ||
         (st = drain_sorted(l, err)) != CF_OK))
        return cf_sticky_set(&l->failed, st, err); /* the runs are partly merged */
    /* sticky, out of memory too: the streamed rowset is gone with its writer */
    if ((st = finish_stream(l, err)) != CF_OK)
        return cf_sticky_set(&l->failed, fail(l, st), err);
    /* From here a failure is sticky, out of memory too: copies of the table's
     * rowsets may be among the load's rowsets, and a retry would copy again. */
    if ((st = apply_reinserts(l, err)) != CF_OK ||
        (st = cf_table_commit_rowsets(l->t, l->names, l->rs, l->n, l->replaces, l->takes_mrs, l->ts,
                                      err)) != CF_OK)
        return cf_sticky_set(&l->failed, st, err);
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
        cf_rowset_writer_free(l->w);
        cf_table_discard_rowset(l->t, l->w_name);
    }
    cf_free(l->w_name);
    cf_free(l->w_path);
    cf_rs_dir_close(l->w_dfd);
    for (size_t i = 0; i < l->n; i++) {
        cf_rowset_free(l->rs[i]);
        cf_table_discard_rowset(l->t, l->names[i]);
        cf_free(l->names[i]);
    }
    cf_free(l->names);
    cf_free(l->rs);
    cf_free(l->replaces);
    cf_buf_dispose(&l->re);
    cf_free(l->rerows);
    cf_free(l->re_hash);
    cf_rcl_builder_free(l->rcl);
    for (size_t c = 0; l->slice_nn != NULL && c < l->s->ncols; c++)
        cf_buf_dispose(&l->slice_nn[c]);
    for (size_t c = 0; l->slice_enn != NULL && c < l->s->ncols; c++)
        cf_buf_dispose(&l->slice_enn[c]);
    cf_free(l->slice_nn);
    cf_free(l->slice_enn);
    cf_free(l->slice);
    cf_free(l->seoff);
    cf_rs_sorter_free(l->so);
    cf_buf_dispose(&l->lo);
    cf_buf_dispose(&l->hi);
    if (l->scratch_name != NULL)
        cf_table_discard_rowset(l->t, l->scratch_name);
    cf_free(l->scratch_name);
    cf_free(l->scratch_path);
    cf_rs_dir_close(l->scratch_dfd);
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

/* One leaf column of the record reader (records.h): its chunk's levels and
 * values read page by page into buffers, checked as they arrive (the levels
 * must nest: see assemble.c's opening comment), cut into batches at row
 * starts and dropped from the front; and the jump of every leaf to a row
 * through the offset index. It reads only its own leaf and the immutable
 * file: the worker team fills leaves of different slots or columns at once.
 * Building arrays from the leaves is assemble.c's. */
#include "records.h"

#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

#define READ_STEP 4096

cf_status cf_pq_leaf_init(leaf *l, const cf_parquet *pq, uint32_t column, cf_error *err)
{
    l->column = column;
    l->col = cf_parquet_column_at(pq, column);
    l->is_bytes = l->col->type == CF_PARQUET_BYTE_ARRAY;
    l->flat = l->col->max_rep == 0;
    /* The value form sizes of include/cfile/parquet.h "column chunk reader". */
    switch (l->col->type) {
    case CF_PARQUET_BOOLEAN: l->vsize = 1; break;
    case CF_PARQUET_INT32:
    case CF_PARQUET_FLOAT: l->vsize = 4; break;
    case CF_PARQUET_INT64:
    case CF_PARQUET_DOUBLE: l->vsize = 8; break;
    case CF_PARQUET_INT96: l->vsize = 12; break;
    case CF_PARQUET_FIXED_LEN_BYTE_ARRAY: l->vsize = (size_t)l->col->type_length; break;
    default: l->vsize = sizeof(cf_slice); break;
    }
    CF_CHECK(l->col->max_rep < 64, err, CF_ENOTSUP,
             "column %" PRIu32 ": %u levels of repetition (63 at most)", column, l->col->max_rep);
    /* Walk up: each repeated ancestor (or self), deepest first, has rep level
     * r = its max_rep and the def level its max_def. */
    for (const cf_parquet_node *n = l->col->leaf; n; n = n->parent)
        if (n->repetition == CF_PARQUET_REPEATED && n->max_rep > 0 && n->max_rep < 64)
            l->rep_def[n->max_rep] = n->max_def;
    return CF_OK;
}

/* The views back at the start of their allocations (nothing is kept). */
static void leaf_unview(leaf *l)
{
    if (l->def)
        l->def -= l->lh;
    if (l->rep)
        l->rep -= l->lh;
    if (l->vals)
        l->vals -= l->vh * l->vsize;
    if (l->voff)
        l->voff -= l->vh;
    l->lh = l->vh = 0;
}

cf_status cf_pq_leaf_open(leaf *l, const cf_parquet *pq, uint32_t rg, cf_error *err)
{
    l->rg = rg;
    return cf_parquet_column_open(&l->rd, pq, rg, l->column, err);
}

void cf_pq_leaf_reset(leaf *l, uint64_t *pages_read)
{
    if (l->rd && pages_read)
        *pages_read += cf_parquet_column_pages_read(l->rd);
    cf_parquet_column_free(l->rd);
    l->rd = NULL;
    l->eof = false;
    l->levels_total = l->rows_total = 0;
    l->last_def = 0;
    leaf_unview(l);
    l->n = l->starts = l->nv = l->bytes_len = 0;
    l->cut = l->cut_values = l->vcur = 0;
}

void cf_pq_leaf_dispose(leaf *l)
{
    cf_parquet_column_free(l->rd);
    leaf_unview(l);
    cf_free(l->def);
    cf_free(l->rep);
    cf_free(l->vals);
    cf_free(l->voff);
    cf_free(l->bytes);
    cf_free(l->scratch);
}

/* Move what the taken batches left to the front of the allocations, so the
 * buffers can grow (realloc) and keep only what is still to be handed out. */
static void leaf_rebase(leaf *l)
{
    if (l->lh) {
        if (l->n) {
            memmove(l->def - l->lh, l->def, l->n * sizeof(uint16_t));
            if (l->rep)
                memmove(l->rep - l->lh, l->rep, l->n * sizeof(uint16_t));
        }
        l->def -= l->lh;
        if (l->rep)
            l->rep -= l->lh;
        l->lh = 0;
    }
    if (l->vh) {
        if (l->is_bytes) {
            size_t b0 = l->voff[0];
            if (b0 && l->bytes_len > b0)
                memmove(l->bytes, l->bytes + b0, l->bytes_len - b0);
            l->bytes_len -= b0;
            size_t *to = l->voff - l->vh;
            for (size_t i = 0; i <= l->nv; i++)
                to[i] = l->voff[i] - b0;
            l->voff = to;
        } else {
            if (l->nv)
                memmove(l->vals - l->vh * l->vsize, l->vals, l->nv * l->vsize);
            l->vals -= l->vh * l->vsize;
        }
        l->vh = 0;
    }
}

/* memcpy for the short strings most columns hold: up to 16 bytes as two
 * overlapping fixed-size moves (never reading or writing outside either
 * range), no call per value. */
static inline void copy_bytes(uint8_t *dst, const uint8_t *src, size_t n)
{
    if (n >= 8 && n <= 16) {
        uint64_t a, b;
        memcpy(&a, src, 8);
        memcpy(&b, src + n - 8, 8);
        memcpy(dst, &a, 8);
        memcpy(dst + n - 8, &b, 8);
    } else if (n >= 4 && n < 8) {
        uint32_t a, b;
        memcpy(&a, src, 4);
        memcpy(&b, src + n - 4, 4);
        memcpy(dst, &a, 4);
        memcpy(dst + n - 4, &b, 4);
    } else if (n < 4) {
        for (size_t i = 0; i < n; i++)
            dst[i] = src[i];
    } else {
        memcpy(dst, src, n);
    }
}

/* Does the leaf hold the `want` rows a batch takes? A row ends where the
 * next one starts, so a repeated leaf needs one row start more; in a flat leaf
 * each entry is a whole row. */
static bool leaf_has(const leaf *l, size_t want)
{
    return l->flat ? l->starts >= want : l->starts > want;
}

/* Read one more piece (at most one page's worth) of the leaf's chunk, towards
 * `want` rows, after moving what earlier batches left to the front. A flat
 * leaf reads no more than those rows, so that the batch takes all it holds. */
static cf_status leaf_fill(const cf_parquet_records *r, leaf *l, size_t want, cf_error *err)
{
    leaf_rebase(l);
    size_t step = READ_STEP;
    if (l->flat && want > l->n && want - l->n < step)
        step = want - l->n;
    size_t need = l->n + step;
    CF_CHECK(l->n < r->o.max_batch_levels, err, CF_ENOTSUP,
             LEAF_WHERE ": a batch of %zu rows needs more than %zu level entries", LEAF_ARGS(l),
             r->o.batch_rows, r->o.max_batch_levels);
    size_t cap = l->level_cap;
    CF_TRY(cf_pq_rec_grow((void **)&l->def, &cap, need, sizeof(uint16_t), err));
    if (!l->flat) {
        cap = l->level_cap;
        CF_TRY(cf_pq_rec_grow((void **)&l->rep, &cap, need, sizeof(uint16_t), err));
    }
    l->level_cap = cap;
    void *dst;
    if (l->is_bytes) {
        if (!l->scratch) {
            l->scratch = cf_malloc(READ_STEP * sizeof(cf_slice));
            if (!l->scratch)
                return cf_pq_rec_oom(err);
        }
        dst = l->scratch;
    } else {
        CF_TRY(cf_pq_rec_grow((void **)&l->vals, &l->vals_cap, (l->nv + step) * l->vsize, 1, err));
        dst = l->vals + l->nv * l->vsize;
    }
    size_t nl, nv;
    CF_TRY(cf_parquet_column_read(l->rd, step, l->def + l->n, l->flat ? NULL : l->rep + l->n, dst,
                                  &nl, &nv, err));
    if (nl == 0) {
        l->eof = true;
        return CF_OK;
    }
    const cf_parquet_column_chunk *cc =
        &cf_parquet_meta(r->pq)->row_groups[l->rg].columns[l->column];
    CF_CHECK(l->levels_total + nl <= (uint64_t)cc->meta.num_values, err, CF_ECORRUPT,
             LEAF_WHERE ": pages hold more than the chunk's %" PRId64 " values", LEAF_ARGS(l),
             cc->meta.num_values);
    /* Check the levels nest (see the top of the file). Flat: nothing to nest,
     * each entry is a row. */
    const uint16_t *def = l->def + l->n, *rep = l->flat ? NULL : l->rep + l->n;
    if (l->flat) {
        l->starts += nl;
        l->last_def = def[nl - 1];
    }
    for (size_t i = 0; rep != NULL && i < nl; i++) {
        uint16_t prev = l->last_def;
        l->last_def = def[i];
        if (rep[i] == 0) {
            l->starts++;
            continue;
        }
        CF_CHECK(l->levels_total + i > 0, err, CF_ECORRUPT,
                 LEAF_WHERE ": the first value has repetition level %u, not 0 (it continues "
                            "no row)",
                 LEAF_ARGS(l), rep[i]);
        /* Repeating at level r adds an element to the r-th list: this entry
         * and the one before must both have that list non-empty. */
        CF_CHECK(def[i] >= l->rep_def[rep[i]] && prev >= l->rep_def[rep[i]], err, CF_ECORRUPT,
                 LEAF_WHERE ": value %" PRIu64 " repeats at level %u but the definition "
                            "levels (%u, before it %u) say that list is empty or null",
                 LEAF_ARGS(l), l->levels_total + i, rep[i], def[i], prev);
    }
    if (l->is_bytes) {
        CF_TRY(
            cf_pq_rec_grow((void **)&l->voff, &l->voff_cap, l->nv + nv + 1, sizeof(size_t), err));
        size_t total = 0;
        for (size_t i = 0; i < nv; i++)
            total += l->scratch[i].len;
        CF_TRY(cf_pq_rec_grow((void **)&l->bytes, &l->bytes_cap, l->bytes_len + total, 1, err));
        l->voff[0] = 0;
        uint8_t *o = l->bytes;
        size_t at = l->bytes_len;
        for (size_t i = 0; i < nv; i++) {
            if (l->scratch[i].len) /* empty values: o may still be NULL */
                copy_bytes(o + at, l->scratch[i].data, l->scratch[i].len);
            at += l->scratch[i].len;
            l->voff[l->nv + i + 1] = at;
        }
        l->bytes_len = at;
    }
    l->n += nl;
    l->nv += nv;
    l->levels_total += nl;
    return CF_OK;
}

cf_status cf_pq_leaf_fill_to(const cf_parquet_records *r, leaf *l, size_t want, cf_error *err)
{
    while (!l->eof && !leaf_has(l, want))
        CF_TRY(leaf_fill(r, l, want, err));
    return CF_OK;
}

/* Take the batch's entries: everything before the (rows + 1)-th row start. */
void cf_pq_leaf_cut(leaf *l, size_t rows, size_t *rows_out)
{
    size_t i = 0;
    if (l->flat) {
        i = rows < l->n ? rows : l->n;
        *rows_out = i;
    } else {
        size_t seen = 0;
        for (; i < l->n; i++)
            if (l->rep[i] == 0 && seen++ == rows)
                break;
        *rows_out = seen > rows ? rows : seen;
    }
    l->cut = i;
    size_t v = i;
    if (l->col->max_def > 0) {
        v = 0;
        for (size_t k = 0; k < i; k++)
            v += l->def[k] == l->col->max_def;
    }
    l->cut_values = v;
    l->vcur = 0;
}

void cf_pq_leaf_compact(leaf *l, size_t rows)
{
    /* The views move past the batch; the bytes stay where they are (voff's
     * entries index them), so a batch handed out in place stays valid until
     * the next fill moves the rest to the front (leaf_rebase). */
    if (l->def) /* NULL until the first fill */
        l->def += l->cut;
    if (l->rep)
        l->rep += l->cut;
    l->lh += l->cut;
    l->n -= l->cut;
    l->starts -= rows;
    l->rows_total += rows;
    if (l->is_bytes) {
        if (l->voff)
            l->voff += l->cut_values;
    } else if (l->vals) {
        l->vals += l->cut_values * l->vsize;
    }
    l->vh += l->cut_values;
    l->nv -= l->cut_values;
    l->cut = l->cut_values = 0;
}

/* The page of an offset index holding row `target` of the row group: its
 * offset and first row, when the index is present and sane (first rows
 * ascending from 0, offsets ascending); else *offset 0 (read from the start). */
static cf_status index_page_for(const cf_parquet_records *r, const leaf *l, int64_t target,
                                uint64_t *offset, int64_t *first, cf_error *err)
{
    *offset = 0;
    *first = 0;
    cf_parquet_page_index *pi = NULL;
    cf_error e2 = {0};
    cf_status st = cf_parquet_page_index_read(&pi, r->pq, l->rg, l->column, &e2);
    if (st == CF_ENOMEM)
        return cf_error_set(err, st, __FILE__, __LINE__, "%s", e2.msg);
    if (st != CF_OK) /* none, or damaged: the pages themselves still read */
        return CF_OK;
    const cf_parquet_offset_index *oi = cf_parquet_page_index_offsets(pi);
    const cf_parquet_row_group *rg = &cf_parquet_meta(r->pq)->row_groups[l->rg];
    bool sane = oi && oi->page_count > 0 && oi->pages[0].first_row_index == 0;
    uint32_t k = 0;
    for (uint32_t i = 0; sane && i < oi->page_count; i++) {
        const cf_parquet_page_location *pl = &oi->pages[i];
        if (pl->first_row_index < 0 || pl->first_row_index >= rg->num_rows || pl->offset < 4 ||
            (i > 0 && (pl->first_row_index < oi->pages[i - 1].first_row_index ||
                       pl->offset <= oi->pages[i - 1].offset)))
            sane = false;
        else if (pl->first_row_index <= target)
            k = i;
    }
    if (sane && k > 0) {
        *offset = (uint64_t)oi->pages[k].offset;
        *first = oi->pages[k].first_row_index;
    }
    cf_parquet_page_index_free(pi);
    return CF_OK;
}

/* Drop `rows` rows from the front of the leaf's chunk. */
static cf_status leaf_drop(const cf_parquet_records *r, leaf *l, int64_t rows, cf_error *err)
{
    while (rows > 0) {
        size_t want = (int64_t)r->o.batch_rows < rows ? r->o.batch_rows : (size_t)rows;
        CF_TRY(cf_pq_leaf_fill_to(r, l, want, err));
        size_t got;
        cf_pq_leaf_cut(l, want, &got);
        CF_CHECK(got == want, err, CF_ECORRUPT,
                 LEAF_WHERE ": the chunk ends %" PRId64 " rows before the row group does",
                 LEAF_ARGS(l), rows - (int64_t)got);
        cf_pq_leaf_compact(l, got);
        rows -= (int64_t)got;
    }
    return CF_OK;
}

/* Start the open row group at its row `target`: each leaf jumps to the page
 * of its offset index that holds the row (when it has one) and drops the rows
 * before it, so only the pages from there on are read. */
cf_status cf_pq_leaves_skip_to(cf_parquet_records *r, int64_t target, cf_error *err)
{
    for (uint32_t i = 0; i < r->leaf_count; i++) {
        leaf *l = &r->leaves[i];
        uint64_t off;
        int64_t first;
        CF_TRY(index_page_for(r, l, target, &off, &first, err));
        if (off) {
            CF_TRY(cf_parquet_column_seek(l->rd, off, err));
            l->rows_total = (uint64_t)first;
        }
        CF_TRY(leaf_drop(r, l, target - first, err));
    }
    r->rg_rows_done = target;
    return CF_OK;
}

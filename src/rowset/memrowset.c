/* The MemRowSet (Kudu's in-memory store for new inserts).
 *
 * Rows live in a skip list ordered by encoded key, so inserts in any order cost
 * O(log n) and a flush walks them in key order. Each row keeps its insert
 * timestamp, its inserted values, and its mutations (RowChangeLists, in
 * timestamp order, as the rowset's delta store keeps them). All bytes come from
 * one arena, freed at once when the MemRowSet is flushed, so the values handed
 * out stay valid until then.
 *
 * A flush writes the rows as a DiskRowSet the way the rowset layer already
 * reads history: base data = the inserted values, UNDO DELETE at each row's
 * insert timestamp (so earlier snapshots do not see it), mutations as REDOs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "memrowset.h"

#include "util/alloc.h"
#include "util/bitmap.h"
#include "util/error.h"

#define MAX_LEVEL 20
#define FLUSH_BATCH 1024

typedef struct mrs_mut {
    uint64_t ts;
    const uint8_t *rcl;
    size_t len;
} mrs_mut;

struct cf_mrs_row {
    uint64_t ins_ts;
    const uint8_t *key;
    size_t klen;
    cf_mrs_cell *vals; /* inserted values, one per column */
    mrs_mut *muts;
    uint32_t nmut, capmut;
    bool alive;
    uint8_t level;
    cf_mrs_row *next[]; /* level entries */
};

struct cf_mrs {
    const cf_schema *s;
    cf_arena arena;
    size_t bytes, rows;
    uint64_t rng;
    cf_mrs_row *head; /* sentinel with MAX_LEVEL links */
    uint8_t level;
};

static void *alloc(cf_mrs *m, size_t n)
{
    void *p = cf_arena_alloc_aligned(&m->arena, n, 16);
    if (p != NULL)
        m->bytes += (n + 15) & ~(size_t)15;
    return p;
}

static cf_status make_head(cf_mrs *m, cf_error *err)
{
    m->head = alloc(m, sizeof(cf_mrs_row) + MAX_LEVEL * sizeof(cf_mrs_row *));
    CF_CHECK(m->head != NULL, err, CF_ENOMEM, "memrowset: out of memory");
    memset(m->head, 0, sizeof(cf_mrs_row) + MAX_LEVEL * sizeof(cf_mrs_row *));
    m->level = 1;
    return CF_OK;
}

cf_status cf_mrs_create(cf_mrs **out, const cf_schema *s, cf_error *err)
{
    *out = NULL;
    cf_mrs *m = cf_calloc(1, sizeof(*m));
    CF_CHECK(m != NULL, err, CF_ENOMEM, "memrowset: out of memory");
    m->s = s;
    m->rng = 0x9e3779b97f4a7c15ull;
    cf_status st = make_head(m, err);
    if (st != CF_OK) {
        cf_mrs_free(m);
        return st;
    }
    *out = m;
    return CF_OK;
}

void cf_mrs_free(cf_mrs *m)
{
    if (m == NULL)
        return;
    cf_arena_dispose(&m->arena);
    cf_free(m);
}

void cf_mrs_clear(cf_mrs *m)
{
    cf_arena_dispose(&m->arena);
    m->bytes = m->rows = 0;
    cf_error e;
    /* The first chunk of a fresh arena: the only failure is out of memory, and
     * then the next insert reports it (head NULL is checked there). */
    if (make_head(m, &e) != CF_OK)
        m->head = NULL;
}

size_t cf_mrs_rows(const cf_mrs *m)
{
    return m->rows;
}
size_t cf_mrs_bytes(const cf_mrs *m)
{
    return m->bytes;
}
cf_slice cf_mrs_row_key(const cf_mrs_row *r)
{
    return (cf_slice){r->key, r->klen};
}
bool cf_mrs_row_alive(const cf_mrs_row *r)
{
    return r->alive;
}
cf_mrs_row *cf_mrs_next(const cf_mrs_row *r)
{
    return r->next[0];
}

static int row_cmp(const cf_mrs_row *r, const uint8_t *key, size_t len)
{
    return cf_rs_bytes_cmp(r->key, r->klen, key, len);
}

/* Fill prev[] with the last row at each level whose key is < key. */
static cf_mrs_row *descend(const cf_mrs *m, const uint8_t *key, size_t len, cf_mrs_row **prev)
{
    cf_mrs_row *x = m->head;
    for (int l = m->level - 1; l >= 0; l--) {
        while (x->next[l] != NULL && row_cmp(x->next[l], key, len) < 0)
            x = x->next[l];
        if (prev != NULL)
            prev[l] = x;
    }
    return x->next[0];
}

cf_mrs_row *cf_mrs_seek(const cf_mrs *m, const uint8_t *key, size_t len)
{
    if (m->head == NULL)
        return NULL;
    if (key == NULL)
        return m->head->next[0];
    return descend(m, key, len, NULL);
}

cf_mrs_row *cf_mrs_find(const cf_mrs *m, const uint8_t *key, size_t len)
{
    cf_mrs_row *r = cf_mrs_seek(m, key, len);
    return r != NULL && row_cmp(r, key, len) == 0 ? r : NULL;
}

static uint8_t random_level(cf_mrs *m)
{
    uint8_t l = 1;
    for (;;) {
        m->rng ^= m->rng << 13;
        m->rng ^= m->rng >> 7;
        m->rng ^= m->rng << 17;
        if ((m->rng & 3) != 0 || l == MAX_LEVEL)
            return l;
        l++;
    }
}

static cf_status copy_value(cf_mrs *m, const cf_column *c, const void *v, cf_mrs_cell *out,
                            cf_error *err)
{
    memset(out, 0, sizeof(*out));
    out->nonnull = v != NULL;
    if (v == NULL)
        return CF_OK;
    if (c->is_array) {
        /* Kept serialized, the form change lists carry: mutations replace it. */
        const cf_array_cell *cell = v;
        CF_CHECK(cell->type == c->type, err, CF_EINVAL,
                 "column '%s': array of %s given for an array of %s", c->name,
                 cf_type_name(cell->type) ? cf_type_name(cell->type) : "?", cf_type_name(c->type));
        size_t cap = cf_array_cell_encoded_max(cell), len = 0;
        uint8_t *p = alloc(m, cap);
        CF_CHECK(p != NULL, err, CF_ENOMEM, "memrowset: out of memory");
        CF_TRY(cf_array_cell_encode(p, cap, &len, cell, err));
        cf_slice sl = {p, len};
        memcpy(out->slot, &sl, sizeof(sl));
        return CF_OK;
    }
    if (!cf_type_is_binary(c->type)) {
        memcpy(out->slot, v, cf_type_size(c->type));
        return CF_OK;
    }
    cf_slice sl;
    memcpy(&sl, v, sizeof(sl));
    uint8_t *p = alloc(m, sl.len ? sl.len : 1);
    CF_CHECK(p != NULL, err, CF_ENOMEM, "memrowset: out of memory");
    if (sl.len)
        memcpy(p, sl.data, sl.len);
    sl.data = p;
    memcpy(out->slot, &sl, sizeof(sl));
    return CF_OK;
}

cf_status cf_mrs_insert(cf_mrs *m, const uint8_t *key, size_t len, const void *const *values,
                        uint64_t ts, cf_error *err)
{
    CF_CHECK(m->head != NULL, err, CF_ENOMEM, "memrowset: out of memory");
    const cf_schema *s = m->s;
    cf_mrs_row *prev[MAX_LEVEL];
    descend(m, key, len, prev);
    uint8_t level = random_level(m);
    cf_mrs_row *r = alloc(m, sizeof(*r) + level * sizeof(cf_mrs_row *));
    uint8_t *k = alloc(m, len ? len : 1);
    cf_mrs_cell *vals = alloc(m, s->ncols * sizeof(*vals));
    CF_CHECK(r != NULL && k != NULL && vals != NULL, err, CF_ENOMEM, "memrowset: out of memory");
    memcpy(k, key, len);
    for (size_t c = 0; c < s->ncols; c++)
        CF_TRY(copy_value(m, &s->cols[c], values[c], &vals[c], err));
    memset(r, 0, sizeof(*r));
    r->ins_ts = ts;
    r->key = k;
    r->klen = len;
    r->vals = vals;
    r->alive = true;
    r->level = level;
    for (uint8_t l = m->level; l < level; l++)
        prev[l] = m->head;
    if (level > m->level)
        m->level = level;
    for (uint8_t l = 0; l < level; l++) {
        r->next[l] = prev[l]->next[l];
        prev[l]->next[l] = r;
    }
    m->rows++;
    return CF_OK;
}

cf_status cf_mrs_mutate(cf_mrs *m, cf_mrs_row *r, cf_slice rcl, uint64_t ts, cf_error *err)
{
    CF_CHECK(rcl.len > 0, err, CF_EINVAL, "memrowset: empty change list");
    if (r->nmut == r->capmut) {
        /* Arena memory: the old array is dropped with the arena at the flush. */
        uint32_t nc = r->capmut ? r->capmut * 2 : 2;
        mrs_mut *p = alloc(m, nc * sizeof(*p));
        CF_CHECK(p != NULL, err, CF_ENOMEM, "memrowset: out of memory");
        if (r->nmut)
            memcpy(p, r->muts, r->nmut * sizeof(*p));
        r->muts = p;
        r->capmut = nc;
    }
    uint8_t *b = alloc(m, rcl.len);
    CF_CHECK(b != NULL, err, CF_ENOMEM, "memrowset: out of memory");
    memcpy(b, rcl.data, rcl.len);
    r->muts[r->nmut++] = (mrs_mut){ts, b, rcl.len};
    if (rcl.data[0] == CF_RCL_DELETE)
        r->alive = false;
    else if (rcl.data[0] == CF_RCL_REINSERT)
        r->alive = true;
    return CF_OK;
}

/* Apply one RowChangeList to cells; binary values point into the list's bytes. */
static cf_status apply_rcl(const cf_schema *s, cf_slice rcl, cf_mrs_cell *cells, bool *alive,
                           cf_error *err)
{
    cf_rcl_decoder d;
    CF_TRY(cf_rcl_decoder_init(&d, rcl, err));
    if (d.type == CF_RCL_DELETE) {
        *alive = false;
        return CF_OK;
    }
    if (d.type == CF_RCL_REINSERT)
        *alive = true;
    while (cf_rcl_decoder_has_next(&d)) {
        cf_rcl_change ch;
        int idx;
        CF_TRY(cf_rcl_decoder_next(&d, &ch, err));
        CF_TRY(cf_rcl_change_validate(&ch, s->dcols, s->ncols, &idx, err));
        if (idx < 0 || s->cols[idx].is_key)
            continue;
        cf_mrs_cell *c = &cells[idx];
        memset(c, 0, sizeof(*c));
        c->nonnull = !ch.is_null;
        if (ch.is_null)
            continue;
        if (cf_type_is_binary(s->cols[idx].type) || s->cols[idx].is_array)
            memcpy(c->slot, &ch.value, sizeof(cf_slice));
        else
            memcpy(c->slot, ch.value.data, ch.value.len); /* size checked by validate */
    }
    return CF_OK;
}

cf_status cf_mrs_row_at(const cf_mrs *m, const cf_mrs_row *r, uint64_t snap, cf_mrs_cell *cells,
                        bool *visible, cf_error *err)
{
    *visible = false;
    if (r->ins_ts >= snap)
        return CF_OK;
    memcpy(cells, r->vals, m->s->ncols * sizeof(*cells));
    bool alive = true;
    for (uint32_t i = 0; i < r->nmut && r->muts[i].ts < snap; i++)
        CF_TRY(apply_rcl(m->s, (cf_slice){r->muts[i].rcl, r->muts[i].len}, cells, &alive, err));
    *visible = alive;
    return CF_OK;
}

/* ---- flush to a DiskRowSet ------------------------------------------------------------------ */

typedef struct flusher {
    cf_mrs *m;
    int dfd; /* the directory (dirfd.c) */
    const char *dir;
    cf_rs_manifest nm;
    cf_rowset_writer *w;
    cf_delta_writer *undo, *redo;
    cf_io *undo_io, *redo_io; /* theirs, created with the rowset's file_mode */
    char undo_name[CF_RS_DELTA_NAME_MAX], redo_name[CF_RS_DELTA_NAME_MAX];
    cf_buf *vals, *nn;    /* per column, the pending batch */
    cf_buf *counts, *enn; /* arrays: element counts (u32) and element validity */
    size_t *elems;        /* arrays: elements in the pending batch */
    size_t n;
} flusher;

static cf_status flush_batch(flusher *f, cf_error *err)
{
    if (f->n == 0)
        return CF_OK;
    const cf_schema *s = f->m->s;
    cf_colvec cv[CF_SCHEMA_MAX_COLUMNS];
    for (size_t c = 0; c < s->ncols; c++) {
        CF_CHECK(!f->vals[c].oom && !f->nn[c].oom, err, CF_ENOMEM, "memrowset: out of memory");
        CF_CHECK(!f->counts[c].oom && !f->enn[c].oom, err, CF_ENOMEM, "memrowset: out of memory");
        if (s->cols[c].is_array)
            cv[c] = (cf_colvec){f->vals[c].data, f->nn[c].data,
                                (const uint32_t *)(const void *)f->counts[c].data, f->enn[c].data};
        else
            cv[c] = (cf_colvec){f->vals[c].data, f->nn[c].data, NULL, NULL};
    }
    CF_TRY(cf_rowset_writer_append(f->w, cv, f->n, err));
    for (size_t c = 0; c < s->ncols; c++) {
        cf_buf_clear(&f->vals[c]);
        cf_buf_clear(&f->nn[c]);
        cf_buf_clear(&f->counts[c]);
        cf_buf_clear(&f->enn[c]);
        f->elems[c] = 0;
    }
    f->n = 0;
    return CF_OK;
}

static cf_status flush_rows(flusher *f, cf_error *err)
{
    const cf_schema *s = f->m->s;
    uint64_t ord = 0;
    for (cf_mrs_row *r = cf_mrs_seek(f->m, NULL, 0); r != NULL; r = r->next[0], ord++) {
        CF_CHECK(ord <= UINT32_MAX, err, CF_ENOTSUP, "memrowset: too many rows for deltas");
        for (size_t c = 0; c < s->ncols; c++) {
            if (cf_bitmap_bytes(f->n + 1) > f->nn[c].len)
                cf_buf_put_u8(&f->nn[c], 0);
            if (s->cols[c].is_array) {
                /* Elements point into the MemRowSet, which outlives the flush. */
                uint32_t k = 0;
                cf_slice cell;
                memcpy(&cell, r->vals[c].slot, sizeof(cell));
                if (r->vals[c].nonnull)
                    CF_TRY(cf_rs_cell_to_flat(cell, s->cols[c].type, &f->vals[c], &f->enn[c],
                                              &f->elems[c], &k, err));
                cf_buf_put_le32(&f->counts[c], k);
            } else {
                cf_buf_append(&f->vals[c], r->vals[c].slot, cf_type_size(s->cols[c].type));
            }
            if (!f->nn[c].oom)
                cf_bitmap_put(f->nn[c].data, f->n, r->vals[c].nonnull);
        }
        f->n++;
        if (r->ins_ts > f->nm.insert_ts) {
            static const uint8_t del = CF_RCL_DELETE;
            CF_TRY(cf_rs_delta_open(&f->undo, &f->undo_io, f->undo_name, f->dfd, f->dir, &f->nm,
                                    CF_DELTA_UNDO, err));
            CF_TRY(cf_delta_writer_append(f->undo, (uint32_t)ord, r->ins_ts, (cf_slice){&del, 1},
                                          err));
        }
        for (uint32_t i = 0; i < r->nmut; i++) {
            CF_TRY(cf_rs_delta_open(&f->redo, &f->redo_io, f->redo_name, f->dfd, f->dir, &f->nm,
                                    CF_DELTA_REDO, err));
            CF_TRY(cf_delta_writer_append(f->redo, (uint32_t)ord, r->muts[i].ts,
                                          (cf_slice){r->muts[i].rcl, r->muts[i].len}, err));
        }
        if (f->n == FLUSH_BATCH)
            CF_TRY(flush_batch(f, err));
    }
    return flush_batch(f, err);
}

cf_status cf_mrs_flush(cf_mrs *m, int dfd, const char *dir, unsigned mode, cf_error *err)
{
    const cf_schema *s = m->s;
    if (dfd == AT_FDCWD && mkdir(dir, 0777) != 0 && errno != EEXIST)
        CF_FAIL(err, CF_EIO, "%s: cannot create directory: %s", dir, strerror(errno));
    flusher f;
    memset(&f, 0, sizeof(f));
    f.m = m;
    f.dfd = dfd;
    f.dir = dir;
    cf_rs_manifest_init(&f.nm);
    f.nm.file_mode = mode;
    f.nm.next_file = 1;
    f.nm.generation = 1;
    f.nm.insert_ts = UINT64_MAX;
    for (cf_mrs_row *r = cf_mrs_seek(m, NULL, 0); r != NULL; r = r->next[0]) {
        if (r->ins_ts < f.nm.insert_ts)
            f.nm.insert_ts = r->ins_ts;
        uint64_t last = r->nmut ? r->muts[r->nmut - 1].ts : r->ins_ts;
        if (last > f.nm.last_ts)
            f.nm.last_ts = last;
    }
    if (f.nm.insert_ts == UINT64_MAX)
        f.nm.insert_ts = 1;
    cf_status st = CF_OK;
    f.vals = cf_calloc(s->ncols, sizeof(*f.vals));
    f.nn = cf_calloc(s->ncols, sizeof(*f.nn));
    f.counts = cf_calloc(s->ncols, sizeof(*f.counts));
    f.enn = cf_calloc(s->ncols, sizeof(*f.enn));
    f.elems = cf_calloc(s->ncols, sizeof(*f.elems));
    if (f.vals == NULL || f.nn == NULL || f.counts == NULL || f.enn == NULL || f.elems == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "memrowset: out of memory");
    for (size_t c = 0; c < s->ncols; c++) {
        cf_buf_init(&f.vals[c]);
        cf_buf_init(&f.nn[c]);
        cf_buf_init(&f.counts[c]);
        cf_buf_init(&f.enn[c]);
    }
    cf_rowset_writer_options wo;
    cf_rowset_writer_options_init(&wo);
    wo.insert_ts = f.nm.insert_ts;
    CF_TRY_OUT(cf_rowset_writer_create_in(&f.w, dfd, dir, s, &wo, &f.nm, err));
    CF_TRY_OUT(flush_rows(&f, err));
    CF_TRY_OUT(cf_rowset_writer_finish_files(f.w, &f.nm, err));
    if (f.undo != NULL) {
        CF_TRY_OUT(cf_delta_writer_finish(f.undo, err));
        CF_TRY_OUT(cf_rs_manifest_add(&f.nm, CF_RS_FILE_UNDO, 0, f.undo_name, err));
    }
    if (f.redo != NULL) {
        CF_TRY_OUT(cf_delta_writer_finish(f.redo, err));
        CF_TRY_OUT(cf_rs_manifest_add(&f.nm, CF_RS_FILE_REDO, 0, f.redo_name, err));
    }
    CF_TRY_OUT(cf_schema_clone(&f.nm.schema, s, err));
    /* Every file is committed: the MANIFEST makes the rowset exist. */
    CF_TRY_OUT(cf_rs_manifest_write_at(&f.nm, dfd, dir, err));
out:
    for (size_t c = 0; f.vals != NULL && c < s->ncols; c++)
        cf_buf_dispose(&f.vals[c]);
    for (size_t c = 0; f.nn != NULL && c < s->ncols; c++)
        cf_buf_dispose(&f.nn[c]);
    for (size_t c = 0; f.counts != NULL && c < s->ncols; c++)
        cf_buf_dispose(&f.counts[c]);
    for (size_t c = 0; f.enn != NULL && c < s->ncols; c++)
        cf_buf_dispose(&f.enn[c]);
    cf_free(f.vals);
    cf_free(f.nn);
    cf_free(f.counts);
    cf_free(f.enn);
    cf_free(f.elems);
    cf_rowset_writer_free(f.w);
    cf_delta_writer_free(f.undo);
    cf_delta_writer_free(f.redo);
    cf_io_free(f.undo_io); /* after the writers; removes what was not committed */
    cf_io_free(f.redo_io);
    cf_rs_manifest_dispose(&f.nm);
    return st;
}

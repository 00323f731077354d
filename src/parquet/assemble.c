/* Record assembly: the leaf columns' repetition and definition levels
 * (Dremel) turned into Arrow-shaped nested arrays (include/cfile/parquet.h
 * "record assembly").
 *
 * The field tree. Each field F of the tree (struct, list, map or primitive)
 * knows three levels:
 *   valid_def  F's slot holds a value (is not null) when def >= valid_def;
 *   elem_def   LIST/MAP: the slot holds an element when def >= elem_def
 *              (the repeated element's max definition level);
 *   elem_rep   LIST/MAP: that repeated element's repetition level.
 * Its slots are read in a context (ctx_rep, ctx_rad) set by the nearest
 * enclosing list: a level entry starts a new slot of F when
 * rep <= ctx_rep and def >= ctx_rad (entries below ctx_rad belong to a null
 * or empty ancestor; entries with a higher rep continue a deeper list). The
 * elements of a list are read in the context (elem_rep, elem_def).
 *
 * Any leaf under a field carries that field's structure, so each field reads
 * its slots from its first leaf (`rep_leaf`); fields that disagree (a struct
 * whose children count different slots, a list whose elements do not add up)
 * are damage. Each leaf's levels are checked as they arrive: the first entry
 * of a chunk starts a row (rep 0), and rep r > 0 needs def at least the
 * definition level of the r-th repeated ancestor (a continued list must
 * exist), so the walks below never see an element without a slot.
 *
 * Batches: each leaf buffers entries until it holds batch_rows + 1 row starts
 * (or its chunk ends); a batch takes every leaf's entries before its
 * (batch_rows + 1)-th row start, and the rest moves to the buffer's front. */
#include "internal.h"

#include "encoding.h"

#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

#define DEFAULT_BATCH_ROWS 1024
#define DEFAULT_MAX_BATCH_LEVELS ((size_t)64 << 20)
#define READ_STEP 4096

/* One field of the tree: the public array plus what assembly needs. */
typedef struct field {
    cf_parquet_array a; /* first member: &field->a is the public view */
    uint16_t valid_def, elem_def, elem_rep;
    uint32_t rep_leaf; /* index into r->leaves */
    struct field **kids;
    /* Owned buffers behind the array's const pointers. */
    uint8_t *validity;
    size_t validity_cap;
    int32_t *offsets;
    size_t offsets_cap;
    uint8_t *values;
    size_t values_cap;
} field;

/* One leaf column's buffered levels and values. */
typedef struct leaf {
    uint32_t column;
    const cf_parquet_column *col;
    bool is_bytes;        /* BYTE_ARRAY */
    bool flat;            /* max_rep 0: every entry starts a row, `rep` is
                           * never filled (all zeros) */
    size_t vsize;         /* value form size (cf_slice for BYTE_ARRAY) */
    uint16_t rep_def[64]; /* def level of the r-th repeated ancestor (r = 1..) */
    cf_parquet_column_reader *rd;
    bool eof;
    uint64_t levels_total; /* entries read from this chunk */
    uint16_t last_def;     /* def level of the chunk's last entry so far */
    uint64_t rows_total;   /* row starts taken from this chunk */
    uint16_t *def, *rep;
    size_t n, level_cap;
    size_t starts; /* rows starting in [0, n) */
    /* Dense non-null values: fixed-size forms, or for BYTE_ARRAY the bytes
     * with voff[i]..voff[i+1] per value. */
    uint8_t *vals;
    size_t nv, vals_cap;
    size_t *voff;
    size_t voff_cap;
    uint8_t *bytes;
    size_t bytes_len, bytes_cap;
    /* Per batch: entries and values it takes, and the walk's cursor. */
    size_t cut, cut_values;
    size_t vcur;
    /* Scratch for one read. */
    cf_slice *scratch;
} leaf;

struct cf_parquet_records {
    const cf_parquet *pq;
    cf_parquet_records_options o;
    field *root;
    field *top; /* the batch's STRUCT: root with the chosen fields */
    uint32_t leaf_count;
    leaf *leaves;
    uint32_t rg; /* current row group */
    bool rg_open;
    int64_t rg_first_row; /* file row of the row group's first row */
    int64_t rg_rows_done; /* rows of the row group handed out (or skipped) */
    uint32_t batch_rg;
    int64_t batch_first_row;
    uint64_t pages_read;
    bool done;
    /* Every field, to free. */
    field **all;
    uint32_t all_count, all_cap;
};

static cf_status oom(cf_error *err)
{
    CF_FAIL(err, CF_ENOMEM, "parquet records: out of memory");
}

static cf_status grow(void **p, size_t *cap, size_t n, size_t elem, cf_error *err)
{
    if (n <= *cap)
        return CF_OK;
    size_t want = *cap ? *cap : 64;
    while (want < n)
        want = want > SIZE_MAX / 2 ? n : want * 2;
    size_t bytes;
    if (!cf_mul_ok(want, elem, &bytes))
        return oom(err);
    void *q = cf_realloc(*p, bytes);
    if (!q)
        return oom(err);
    *p = q;
    *cap = want;
    return CF_OK;
}

void cf_parquet_records_options_init(cf_parquet_records_options *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->version = CF_PARQUET_RECORDS_OPTIONS_VERSION;
    opts->batch_rows = DEFAULT_BATCH_ROWS;
    opts->max_batch_levels = DEFAULT_MAX_BATCH_LEVELS;
    opts->row_end = INT64_MAX;
}

/* ---- the field tree --------------------------------------------------------------------- */

static field *new_field(cf_parquet_records *r, uint32_t kind, const cf_parquet_node *n)
{
    if (r->all_count == r->all_cap) {
        uint32_t cap = r->all_cap ? r->all_cap * 2 : 32;
        field **q = cf_realloc(r->all, cap * sizeof(*q));
        if (!q)
            return NULL;
        r->all = q;
        r->all_cap = cap;
    }
    field *f = cf_calloc(1, sizeof(*f));
    if (!f)
        return NULL;
    r->all[r->all_count++] = f;
    f->a.kind = kind;
    f->a.node = n;
    f->a.name = n->element->name;
    f->a.column = -1;
    return f;
}

static cf_status set_kids(cf_parquet_records *r, field *f, field **kids, uint32_t n, cf_error *err)
{
    (void)r;
    f->kids = cf_calloc(n ? n : 1, sizeof(field *));
    if (!f->kids)
        return oom(err);
    memcpy(f->kids, kids, n * sizeof(field *));
    f->a.child_count = n;
    f->a.children = (cf_parquet_array *const *)f->kids;
    f->rep_leaf = n ? kids[0]->rep_leaf : 0;
    return CF_OK;
}

static bool has_ct(const cf_parquet_node *n, int32_t ct)
{
    return n->element->has_converted_type && n->element->converted_type == ct;
}

/* Wrap `inner` (the element) in a LIST or MAP read through repeated node n. */
static field *wrap_repeated(cf_parquet_records *r, uint32_t kind, const cf_parquet_node *n,
                            field *inner, cf_error *err)
{
    field *l = new_field(r, kind, n);
    if (!l || set_kids(r, l, &inner, 1, err) != CF_OK)
        return NULL;
    l->valid_def = (uint16_t)(n->max_def - 1);
    l->elem_def = n->max_def;
    l->elem_rep = n->max_rep;
    return l;
}

/* The field a schema node reads as (see the header for the rules). *leaf_no
 * counts the leaves met so far, which are the projected leaves in order. */
static cf_status convert(cf_parquet_records *r, const cf_parquet_node *n, uint32_t *leaf_no,
                         field **out, cf_error *err)
{
    *out = NULL;
    bool repeated = n->repetition == CF_PARQUET_REPEATED;
    if (n->child_count == 0 && n->column >= 0) {
        field *p = new_field(r, CF_PARQUET_ARRAY_PRIMITIVE, n);
        if (!p)
            return oom(err);
        p->a.leaf = n;
        p->a.column = n->column;
        const cf_parquet_column *col = cf_parquet_column_at(r->pq, (uint32_t)n->column);
        p->a.value_size = col->type == CF_PARQUET_BYTE_ARRAY
                              ? 0
                              : cf_pq_value_size((unsigned)col->type, col->type_length);
        p->valid_def = n->max_def;
        p->rep_leaf = (*leaf_no)++;
        if (repeated) {
            p = wrap_repeated(r, CF_PARQUET_ARRAY_LIST, n, p, err);
            if (!p)
                return oom(err);
        }
        *out = p;
        return CF_OK;
    }
    CF_CHECK(n->child_count > 0, err, CF_ENOTSUP,
             "schema element %" PRIu32 " (%.*s): a group without fields is not supported", n->index,
             (int)n->element->name.len, (const char *)n->element->name.data);
    field *stack[16];
    field **kids = n->child_count <= 16 ? stack : cf_calloc(n->child_count, sizeof(field *));
    if (!kids)
        return oom(err);
    cf_status st = CF_OK;
    for (uint32_t i = 0; i < n->child_count && st == CF_OK; i++)
        st = convert(r, n->children[i], leaf_no, &kids[i], err);
    field *res = NULL;
    if (st != CF_OK)
        goto out;
    bool is_list = has_ct(n, CF_PARQUET_CT_LIST) || n->element->logical.kind == CF_PARQUET_LT_LIST;
    bool is_map = has_ct(n, CF_PARQUET_CT_MAP) || n->element->logical.kind == CF_PARQUET_LT_MAP;
    bool is_kv = has_ct(n, CF_PARQUET_CT_MAP_KEY_VALUE);
    if (!is_kv && n->parent && n->parent->child_count == 1 && n->parent->parent &&
        (has_ct(n->parent, CF_PARQUET_CT_MAP) ||
         n->parent->element->logical.kind == CF_PARQUET_LT_MAP))
        is_kv = true;
    if (is_kv) {
        if (n->child_count != 2 || !repeated) {
            st = cf_error_set(err, CF_ECORRUPT, __FILE__, __LINE__,
                              "schema element %" PRIu32 " (%.*s): a map's key/value group must "
                              "be repeated and have two fields (key, value)",
                              n->index, (int)n->element->name.len,
                              (const char *)n->element->name.data);
            goto out;
        }
        field *kv = new_field(r, CF_PARQUET_ARRAY_STRUCT, n);
        if (!kv) {
            st = oom(err);
            goto out;
        }
        kv->valid_def = n->max_def;
        CF_TRY_OUT(set_kids(r, kv, kids, 2, err));
        res = wrap_repeated(r, CF_PARQUET_ARRAY_MAP, n, kv, err);
        if (!res)
            st = oom(err);
        goto out;
    }
    if (n->child_count > 1 || (!is_list && !is_map && !repeated) || !n->parent) {
        res = new_field(r, CF_PARQUET_ARRAY_STRUCT, n);
        if (!res) {
            st = oom(err);
            goto out;
        }
        res->valid_def = n->max_def;
        CF_TRY_OUT(set_kids(r, res, kids, n->child_count, err));
    } else {
        res = kids[0]; /* a single child stands for its group */
    }
    if (repeated) {
        res = wrap_repeated(r, CF_PARQUET_ARRAY_LIST, n, res, err);
        if (!res) {
            st = oom(err);
            goto out;
        }
    }
    res->a.name = n->element->name;
    res->a.node = n;
out:
    if (kids != stack)
        cf_free(kids);
    *out = res;
    return st;
}

/* ---- leaves ----------------------------------------------------------------------------- */

static cf_status leaf_init(leaf *l, const cf_parquet *pq, uint32_t column, cf_error *err)
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

static void leaf_reset(leaf *l, uint64_t *pages_read)
{
    if (l->rd)
        *pages_read += cf_parquet_column_pages_read(l->rd);
    cf_parquet_column_free(l->rd);
    l->rd = NULL;
    l->eof = false;
    l->levels_total = l->rows_total = 0;
    l->last_def = 0;
    l->n = l->starts = l->nv = l->bytes_len = 0;
}

static void leaf_dispose(leaf *l)
{
    cf_parquet_column_free(l->rd);
    cf_free(l->def);
    cf_free(l->rep);
    cf_free(l->vals);
    cf_free(l->voff);
    cf_free(l->bytes);
    cf_free(l->scratch);
}

#define LEAF_WHERE "row group %" PRIu32 " column %" PRIu32 " (%.*s)"
#define LEAF_ARGS(r, l)                                                                            \
    (r)->rg, (l)->column, (int)(l)->col->leaf->element->name.len,                                  \
        (const char *)(l)->col->leaf->element->name.data

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
 * `want` rows. A flat leaf reads no more than those rows, so that a batch takes
 * all it holds: nothing is moved to the front afterwards, and its values can
 * be handed out where they are (build_primitive). */
static cf_status leaf_fill(cf_parquet_records *r, leaf *l, size_t want, cf_error *err)
{
    size_t step = READ_STEP;
    if (l->flat && want > l->n && want - l->n < step)
        step = want - l->n;
    size_t need = l->n + step;
    CF_CHECK(l->n < r->o.max_batch_levels, err, CF_ENOTSUP,
             LEAF_WHERE ": a batch of %zu rows needs more than %zu level entries", LEAF_ARGS(r, l),
             r->o.batch_rows, r->o.max_batch_levels);
    size_t cap = l->level_cap;
    CF_TRY(grow((void **)&l->def, &cap, need, sizeof(uint16_t), err));
    if (!l->flat) {
        cap = l->level_cap;
        CF_TRY(grow((void **)&l->rep, &cap, need, sizeof(uint16_t), err));
    }
    l->level_cap = cap;
    void *dst;
    if (l->is_bytes) {
        if (!l->scratch) {
            l->scratch = cf_malloc(READ_STEP * sizeof(cf_slice));
            if (!l->scratch)
                return oom(err);
        }
        dst = l->scratch;
    } else {
        CF_TRY(grow((void **)&l->vals, &l->vals_cap, (l->nv + step) * l->vsize, 1, err));
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
        &cf_parquet_meta(r->pq)->row_groups[r->rg].columns[l->column];
    CF_CHECK(l->levels_total + nl <= (uint64_t)cc->meta.num_values, err, CF_ECORRUPT,
             LEAF_WHERE ": pages hold more than the chunk's %" PRId64 " values", LEAF_ARGS(r, l),
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
                 LEAF_ARGS(r, l), rep[i]);
        /* Repeating at level r adds an element to the r-th list: this entry
         * and the one before must both have that list non-empty. */
        CF_CHECK(def[i] >= l->rep_def[rep[i]] && prev >= l->rep_def[rep[i]], err, CF_ECORRUPT,
                 LEAF_WHERE ": value %" PRIu64 " repeats at level %u but the definition "
                            "levels (%u, before it %u) say that list is empty or null",
                 LEAF_ARGS(r, l), l->levels_total + i, rep[i], def[i], prev);
    }
    if (l->is_bytes) {
        CF_TRY(grow((void **)&l->voff, &l->voff_cap, l->nv + nv + 1, sizeof(size_t), err));
        size_t total = 0;
        for (size_t i = 0; i < nv; i++)
            total += l->scratch[i].len;
        CF_TRY(grow((void **)&l->bytes, &l->bytes_cap, l->bytes_len + total, 1, err));
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

/* Take the batch's entries: everything before the (rows + 1)-th row start. */
static void leaf_cut(leaf *l, size_t rows, size_t *rows_out)
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

/* Drop the batch's entries from the front. */
static void leaf_compact(leaf *l, size_t rows)
{
    size_t rest = l->n - l->cut;
    if (rest && l->cut) {
        memmove(l->def, l->def + l->cut, rest * sizeof(uint16_t));
        if (!l->flat)
            memmove(l->rep, l->rep + l->cut, rest * sizeof(uint16_t));
    }
    l->n = rest;
    l->starts -= rows;
    l->rows_total += rows;
    size_t vrest = l->nv - l->cut_values;
    if (l->is_bytes) {
        size_t b0 = l->voff[l->cut_values];
        if (b0 && l->bytes_len > b0)
            memmove(l->bytes, l->bytes + b0, l->bytes_len - b0);
        l->bytes_len -= b0;
        for (size_t i = 0; i <= vrest; i++)
            l->voff[i] = l->voff[l->cut_values + i] - b0;
    } else {
        if (vrest && l->cut_values)
            memmove(l->vals, l->vals + l->cut_values * l->vsize, vrest * l->vsize);
    }
    l->nv = vrest;
    l->cut = l->cut_values = 0;
}

/* ---- building arrays -------------------------------------------------------------------- */

static cf_status set_length(field *f, size_t len, cf_error *err)
{
    size_t bytes = len / 8 + 1;
    CF_TRY(grow((void **)&f->validity, &f->validity_cap, bytes, 1, err));
    memset(f->validity, 0, bytes);
    f->a.length = len;
    f->a.null_count = 0;
    return CF_OK;
}

static void set_valid(field *f, size_t i, bool valid)
{
    if (valid)
        f->validity[i >> 3] |= (uint8_t)(1u << (i & 7));
    else
        f->a.null_count++;
}

static void finish_validity(field *f)
{
    f->a.validity = f->a.null_count ? f->validity : NULL;
}

static cf_status build(cf_parquet_records *r, field *f, uint16_t ctx_rep, uint16_t ctx_rad,
                       cf_error *err);

#define FIELD_WHERE "row group %" PRIu32 " field %.*s"
#define FIELD_ARGS(r, f) (r)->rg, (int)(f)->a.name.len, (const char *)(f)->a.name.data

/* The repetition level of entry i (a flat leaf stores none: all 0). */
static inline uint16_t rep_at(const leaf *l, size_t i)
{
    return l->flat ? 0 : l->rep[i];
}

/* One value of vs bytes: the common sizes as constant-size copies (inline
 * moves, not a call per value). */
static inline void copy_val(uint8_t *dst, const uint8_t *src, size_t vs)
{
    switch (vs) {
    case 1: *dst = *src; break;
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    case 16: memcpy(dst, src, 16); break;
    default: memcpy(dst, src, vs); break;
    }
}

/* A flat leaf's batch (no list above it: every entry is a slot): validity
 * straight from the definition levels, eight slots a byte; fixed-size values
 * in one copy when none is null -- or no copy at all when the batch took
 * everything the leaf held (leaf_fill reads a flat leaf only up to the batch),
 * since leaf_compact then moves nothing and the leaf's buffer stays put until
 * the next batch, as long as the array must live. */
static cf_status build_flat(cf_parquet_records *r, field *f, leaf *l, cf_error *err)
{
    size_t slots = l->cut, vs = l->is_bytes ? 0 : l->vsize;
    bool all = l->cut_values == slots, whole = l->cut == l->n;
    const uint16_t *def = l->def;
    const uint16_t vd = f->valid_def;
    CF_TRY(set_length(f, slots, err));
    f->a.value_size = vs;
    if (!all) {
        size_t i = 0;
        for (; i + 8 <= slots; i += 8) {
            unsigned b = 0;
            for (unsigned j = 0; j < 8; j++)
                b |= (unsigned)(def[i + j] >= vd) << j;
            f->validity[i >> 3] = (uint8_t)b;
        }
        for (; i < slots; i++)
            f->validity[i >> 3] |= (uint8_t)((def[i] >= vd) << (i & 7));
        f->a.null_count = slots - l->cut_values;
    }
    if (l->is_bytes) {
        CF_TRY(grow((void **)&f->offsets, &f->offsets_cap, slots + 1, sizeof(int32_t), err));
        size_t b0 = l->voff[0], b1 = l->voff[l->cut_values];
        CF_CHECK(b1 - b0 <= INT32_MAX, err, CF_ENOTSUP,
                 FIELD_WHERE ": more than 2 GiB of bytes in one batch", FIELD_ARGS(r, f));
        int32_t *o = f->offsets;
        o[0] = 0;
        if (all) {
            for (size_t i = 0; i < slots; i++)
                o[i + 1] = (int32_t)(l->voff[i + 1] - b0);
        } else {
            size_t v = 0;
            for (size_t i = 0; i < slots; i++) {
                v += def[i] >= vd;
                o[i + 1] = (int32_t)(l->voff[v] - b0);
            }
        }
        f->a.offsets = o;
        if (whole && b0 == 0 && l->bytes != NULL) {
            f->a.values = l->bytes;
        } else {
            CF_TRY(grow((void **)&f->values, &f->values_cap, (b1 - b0) ? b1 - b0 : 1, 1, err));
            if (b1 > b0)
                memcpy(f->values, l->bytes + b0, b1 - b0);
            f->a.values = f->values;
        }
    } else {
        f->a.offsets = NULL;
        size_t bytes;
        if (!cf_mul_ok(slots ? slots : 1, vs, &bytes))
            return oom(err);
        if (all && whole && slots > 0) {
            f->a.values = l->vals;
        } else {
            CF_TRY(grow((void **)&f->values, &f->values_cap, bytes, 1, err));
            if (all) {
                memcpy(f->values, l->vals, slots * vs);
            } else {
                memset(f->values, 0, slots * vs);
                size_t v = 0;
                for (size_t i = 0; i < slots; i++)
                    if (def[i] >= vd)
                        copy_val(f->values + i * vs, l->vals + vs * v++, vs);
            }
            f->a.values = f->values;
        }
    }
    finish_validity(f);
    return CF_OK;
}

static cf_status build_primitive(cf_parquet_records *r, field *f, uint16_t ctx_rep,
                                 uint16_t ctx_rad, cf_error *err)
{
    leaf *l = &r->leaves[f->rep_leaf];
    if (l->flat)
        return build_flat(r, f, l, err); /* ctx_rep and ctx_rad are 0: no list above */
    size_t slots = 0;
    if (ctx_rep >= l->col->max_rep) { /* the elements of the innermost list: no rep test */
        for (size_t i = 0; i < l->cut; i++)
            slots += l->def[i] >= ctx_rad;
    } else {
        for (size_t i = 0; i < l->cut; i++)
            slots += l->rep[i] <= ctx_rep && l->def[i] >= ctx_rad;
    }
    CF_TRY(set_length(f, slots, err));
    size_t vs = l->is_bytes ? 0 : l->vsize;
    f->a.value_size = vs;
    if (ctx_rep >= l->col->max_rep && l->cut_values == slots && !l->is_bytes) {
        /* Every entry in context is a slot, and as many slots as values: no
         * slot is null, the slots are the leaf's values in order. */
        size_t bytes;
        if (!cf_mul_ok(slots ? slots : 1, vs, &bytes))
            return oom(err);
        CF_TRY(grow((void **)&f->values, &f->values_cap, bytes, 1, err));
        if (slots)
            memcpy(f->values, l->vals, slots * vs);
        f->a.offsets = NULL;
        f->a.values = f->values;
        finish_validity(f);
        return CF_OK;
    }
    if (l->is_bytes) {
        CF_TRY(grow((void **)&f->offsets, &f->offsets_cap, slots + 1, sizeof(int32_t), err));
        size_t b0 = l->voff[0], b1 = l->cut_values ? l->voff[l->cut_values] : b0;
        CF_CHECK(b1 - b0 <= INT32_MAX, err, CF_ENOTSUP,
                 FIELD_WHERE ": more than 2 GiB of bytes in one batch", FIELD_ARGS(r, f));
        CF_TRY(grow((void **)&f->values, &f->values_cap, (b1 - b0) ? b1 - b0 : 1, 1, err));
        if (b1 > b0)
            memcpy(f->values, l->bytes + b0, b1 - b0);
        f->offsets[0] = 0;
    } else {
        size_t bytes;
        if (!cf_mul_ok(slots ? slots : 1, vs ? vs : 1, &bytes))
            return oom(err);
        CF_TRY(grow((void **)&f->values, &f->values_cap, bytes, 1, err));
    }
    size_t s = 0, v = 0;
    for (size_t i = 0; i < l->cut; i++) {
        if (!(l->rep[i] <= ctx_rep && l->def[i] >= ctx_rad))
            continue;
        bool valid = l->def[i] >= f->valid_def;
        set_valid(f, s, valid);
        if (l->is_bytes) {
            if (valid)
                v++;
            f->offsets[s + 1] = (int32_t)(l->voff[v] - l->voff[0]);
        } else if (valid) {
            copy_val(f->values + s * vs, l->vals + v * vs, vs);
            v++;
        } else {
            memset(f->values + s * vs, 0, vs);
        }
        s++;
    }
    CF_CHECK(v == l->cut_values, err, CF_ECORRUPT, FIELD_WHERE ": %zu values for %zu present slots",
             FIELD_ARGS(r, f), l->cut_values, v);
    f->a.offsets = l->is_bytes ? f->offsets : NULL;
    f->a.values = f->values;
    finish_validity(f);
    return CF_OK;
}

static cf_status build(cf_parquet_records *r, field *f, uint16_t ctx_rep, uint16_t ctx_rad,
                       cf_error *err)
{
    if (f->a.kind == CF_PARQUET_ARRAY_PRIMITIVE)
        return build_primitive(r, f, ctx_rep, ctx_rad, err);
    leaf *l = &r->leaves[f->rep_leaf];
    size_t slots = 0;
    for (size_t i = 0; i < l->cut; i++)
        slots += rep_at(l, i) <= ctx_rep && l->def[i] >= ctx_rad;
    CF_TRY(set_length(f, slots, err));
    if (f->a.kind == CF_PARQUET_ARRAY_STRUCT) {
        size_t s = 0;
        for (size_t i = 0; i < l->cut; i++)
            if (rep_at(l, i) <= ctx_rep && l->def[i] >= ctx_rad)
                set_valid(f, s++, l->def[i] >= f->valid_def);
        finish_validity(f);
        for (uint32_t k = 0; k < f->a.child_count; k++) {
            CF_TRY(build(r, f->kids[k], ctx_rep, ctx_rad, err));
            CF_CHECK(f->kids[k]->a.length == slots, err, CF_ECORRUPT,
                     FIELD_WHERE ": field %.*s has %zu values, its struct %zu", FIELD_ARGS(r, f),
                     (int)f->kids[k]->a.name.len, (const char *)f->kids[k]->a.name.data,
                     f->kids[k]->a.length, slots);
        }
        return CF_OK;
    }
    /* LIST, MAP */
    CF_TRY(grow((void **)&f->offsets, &f->offsets_cap, slots + 1, sizeof(int32_t), err));
    size_t s = 0, elems = 0;
    f->offsets[0] = 0;
    if (ctx_rep == 0 && ctx_rad == 0 && l->col->max_rep == f->elem_rep && l->cut <= INT32_MAX) {
        /* A top-level list of values (the usual list column): every entry is
         * in context, rep 0 starts a slot, and each entry at elem_def or above
         * is an element (leaf_fill saw that a continued list exists, and a
         * chunk's entries start at a row). */
        const uint16_t *def = l->def, *rp = l->rep;
        const uint16_t vd = f->valid_def, ed = f->elem_def;
        CF_CHECK(l->cut == 0 || rp[0] == 0, err, CF_ECORRUPT,
                 FIELD_WHERE ": an element before any list", FIELD_ARGS(r, f));
        size_t nulls = 0;
        int32_t *o = f->offsets;
        for (size_t i = 0; i < l->cut; i++) {
            uint16_t d = def[i];
            if (rp[i] == 0) {
                unsigned ok = d >= vd;
                f->validity[s >> 3] |= (uint8_t)(ok << (s & 7));
                nulls += !ok;
                s++;
            }
            elems += d >= ed;
            o[s] = (int32_t)elems;
        }
        f->a.null_count = nulls;
    } else {
        for (size_t i = 0; i < l->cut; i++) {
            uint16_t d = l->def[i], rp = rep_at(l, i);
            if (rp <= ctx_rep) {
                if (d < ctx_rad)
                    continue;
                set_valid(f, s, d >= f->valid_def);
                s++;
                f->offsets[s] = (int32_t)elems;
            }
            if (rp <= f->elem_rep && d >= f->elem_def) {
                CF_CHECK(s > 0, err, CF_ECORRUPT, FIELD_WHERE ": an element before any list",
                         FIELD_ARGS(r, f));
                elems++;
                CF_CHECK(elems <= INT32_MAX, err, CF_ENOTSUP,
                         FIELD_WHERE ": more than 2^31 list elements in one batch",
                         FIELD_ARGS(r, f));
                f->offsets[s] = (int32_t)elems;
            }
        }
    }
    f->a.offsets = f->offsets;
    finish_validity(f);
    CF_TRY(build(r, f->kids[0], f->elem_rep, f->elem_def, err));
    CF_CHECK(f->kids[0]->a.length == elems, err, CF_ECORRUPT,
             FIELD_WHERE ": %zu list elements by one column, %zu by another", FIELD_ARGS(r, f),
             elems, f->kids[0]->a.length);
    return CF_OK;
}

/* ---- the reader ------------------------------------------------------------------------- */

static void collect_leaves(const cf_parquet_node *n, uint32_t *cols, uint32_t *count)
{
    if (n->child_count == 0 && n->column >= 0) {
        cols[(*count)++] = (uint32_t)n->column;
        return;
    }
    for (uint32_t i = 0; i < n->child_count; i++)
        collect_leaves(n->children[i], cols, count);
}

cf_status cf_parquet_records_open(cf_parquet_records **out, const cf_parquet *pq,
                                  const cf_parquet_records_options *opts, cf_error *err)
{
    *out = NULL;
    cf_parquet_records_options def;
    if (!opts) {
        cf_parquet_records_options_init(&def);
        opts = &def;
    }
    CF_CHECK(opts->version == CF_PARQUET_RECORDS_OPTIONS_VERSION, err, CF_EINVAL,
             "parquet records options: version %" PRIu32 " (call "
             "cf_parquet_records_options_init)",
             opts->version);
    CF_CHECK(opts->batch_rows > 0 && opts->batch_rows <= INT32_MAX, err, CF_EINVAL,
             "parquet records options: batch_rows %zu out of range", opts->batch_rows);
    CF_CHECK(opts->max_batch_levels > 0, err, CF_EINVAL,
             "parquet records options: max_batch_levels 0");
    CF_CHECK(opts->row_begin >= 0 && opts->row_end >= opts->row_begin, err, CF_EINVAL,
             "parquet records options: bad row range %" PRId64 "..%" PRId64, opts->row_begin,
             opts->row_end);
    const cf_parquet_node *root = cf_parquet_schema_root(pq);
    for (uint32_t i = 0; i < opts->field_count; i++)
        CF_CHECK(opts->fields && opts->fields[i] < root->child_count, err, CF_EINVAL,
                 "parquet records options: field %" PRIu32 " out of range (%" PRIu32 " fields)",
                 opts->fields ? opts->fields[i] : 0, root->child_count);
    cf_parquet_records *r = cf_calloc(1, sizeof(*r));
    if (!r)
        return oom(err);
    r->pq = pq;
    r->o = *opts;
    if (!opts->fields)
        r->o.field_count = root->child_count;
    cf_status st = CF_OK;
    uint32_t *cols = NULL;
    field **kids = NULL;
    uint32_t ncols = cf_parquet_column_count(pq);
    cols = cf_calloc(ncols ? ncols : 1, sizeof(uint32_t));
    kids = cf_calloc(r->o.field_count ? r->o.field_count : 1, sizeof(field *));
    if (!cols || !kids)
        CF_FAIL_OUT(err, CF_ENOMEM, "parquet records: out of memory");
    uint32_t nleaves = 0;
    for (uint32_t i = 0; i < r->o.field_count; i++) {
        const cf_parquet_node *c = root->children[opts->fields ? opts->fields[i] : i];
        uint32_t first = nleaves;
        collect_leaves(c, cols, &nleaves);
        uint32_t no = first;
        CF_TRY_OUT(convert(r, c, &no, &kids[i], err));
    }
    r->leaves = cf_calloc(nleaves ? nleaves : 1, sizeof(leaf));
    if (!r->leaves)
        CF_FAIL_OUT(err, CF_ENOMEM, "parquet records: out of memory");
    r->leaf_count = nleaves;
    for (uint32_t i = 0; i < nleaves; i++)
        CF_TRY_OUT(leaf_init(&r->leaves[i], pq, cols[i], err));
    r->top = new_field(r, CF_PARQUET_ARRAY_STRUCT, root);
    if (!r->top)
        CF_FAIL_OUT(err, CF_ENOMEM, "parquet records: out of memory");
    CF_TRY_OUT(set_kids(r, r->top, kids, r->o.field_count, err));
    r->rg_first_row = 0;
out:
    cf_free(cols);
    cf_free(kids);
    if (st != CF_OK) {
        cf_parquet_records_free(r);
        return st;
    }
    *out = r;
    return CF_OK;
}

const cf_parquet_array *cf_parquet_records_schema(const cf_parquet_records *r)
{
    return &r->top->a;
}

uint32_t cf_parquet_records_row_group(const cf_parquet_records *r)
{
    return r->batch_rg;
}
int64_t cf_parquet_records_first_row(const cf_parquet_records *r)
{
    return r->batch_first_row;
}
uint64_t cf_parquet_records_pages_read(const cf_parquet_records *r)
{
    uint64_t n = r->pages_read;
    for (uint32_t i = 0; i < r->leaf_count; i++)
        if (r->leaves[i].rd)
            n += cf_parquet_column_pages_read(r->leaves[i].rd);
    return n;
}

void cf_parquet_records_free(cf_parquet_records *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->leaf_count; i++)
        leaf_dispose(&r->leaves[i]);
    cf_free(r->leaves);
    for (uint32_t i = 0; i < r->all_count; i++) {
        field *f = r->all[i];
        cf_free(f->kids);
        cf_free(f->validity);
        cf_free(f->offsets);
        cf_free(f->values);
        cf_free(f);
    }
    cf_free(r->all);
    cf_free(r);
}

/* Finish the current row group: every leaf must have ended with the group's
 * rows. */
static cf_status close_row_group(cf_parquet_records *r, cf_error *err)
{
    const cf_parquet_row_group *rg = &cf_parquet_meta(r->pq)->row_groups[r->rg];
    for (uint32_t i = 0; i < r->leaf_count; i++) {
        leaf *l = &r->leaves[i];
        CF_CHECK(l->rows_total == (uint64_t)rg->num_rows, err, CF_ECORRUPT,
                 LEAF_WHERE ": %" PRIu64 " rows, the row group says %" PRId64, LEAF_ARGS(r, l),
                 l->rows_total, rg->num_rows);
        leaf_reset(l, &r->pages_read);
    }
    r->rg_first_row += rg->num_rows;
    r->rg++;
    r->rg_open = false;
    return CF_OK;
}

/* The page of an offset index holding row `target` of the row group: its
 * offset and first row, when the index is present and sane (first rows
 * ascending from 0, offsets ascending); else *offset 0 (read from the start). */
static cf_status index_page_for(cf_parquet_records *r, leaf *l, int64_t target, uint64_t *offset,
                                int64_t *first, cf_error *err)
{
    *offset = 0;
    *first = 0;
    cf_parquet_page_index *pi = NULL;
    cf_error e2 = {0};
    cf_status st = cf_parquet_page_index_read(&pi, r->pq, r->rg, l->column, &e2);
    if (st == CF_ENOMEM)
        return cf_error_set(err, st, __FILE__, __LINE__, "%s", e2.msg);
    if (st != CF_OK) /* none, or damaged: the pages themselves still read */
        return CF_OK;
    const cf_parquet_offset_index *oi = cf_parquet_page_index_offsets(pi);
    const cf_parquet_row_group *rg = &cf_parquet_meta(r->pq)->row_groups[r->rg];
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
static cf_status leaf_drop(cf_parquet_records *r, leaf *l, int64_t rows, cf_error *err)
{
    while (rows > 0) {
        size_t want = (int64_t)r->o.batch_rows < rows ? r->o.batch_rows : (size_t)rows;
        while (!l->eof && !leaf_has(l, want))
            CF_TRY(leaf_fill(r, l, want, err));
        size_t got;
        leaf_cut(l, want, &got);
        CF_CHECK(got == want, err, CF_ECORRUPT,
                 LEAF_WHERE ": the chunk ends %" PRId64 " rows before the row group does",
                 LEAF_ARGS(r, l), rows - (int64_t)got);
        leaf_compact(l, got);
        rows -= (int64_t)got;
    }
    return CF_OK;
}

/* Start the open row group at its row `target`: each leaf jumps to the page
 * of its offset index that holds the row (when it has one) and drops the rows
 * before it, so only the pages from there on are read. */
static cf_status skip_to(cf_parquet_records *r, int64_t target, cf_error *err)
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

cf_status cf_parquet_records_next(cf_parquet_records *r, const cf_parquet_array **out,
                                  cf_error *err)
{
    *out = NULL;
    const cf_parquet_file_meta *m = cf_parquet_meta(r->pq);
    int64_t end = r->o.row_end;
    for (;;) {
        if (r->done || r->rg >= m->row_group_count ||
            r->rg_first_row + (r->rg_open ? r->rg_rows_done : 0) >= end) {
            r->done = true;
            return CF_OK;
        }
        const cf_parquet_row_group *rg = &m->row_groups[r->rg];
        if (!r->rg_open) {
            if (r->rg_first_row + rg->num_rows <= r->o.row_begin || rg->num_rows == 0) {
                /* Skipped whole (or empty): still check an empty group's chunks hold
                 * no rows when it is read. */
                if (rg->num_rows == 0 || r->leaf_count == 0) {
                    r->rg_first_row += rg->num_rows;
                    r->rg++;
                    continue;
                }
                r->rg_first_row += rg->num_rows;
                r->rg++;
                continue;
            }
            for (uint32_t i = 0; i < r->leaf_count; i++)
                CF_TRY(cf_parquet_column_open(&r->leaves[i].rd, r->pq, r->rg, r->leaves[i].column,
                                              err));
            r->rg_open = true;
            r->rg_rows_done = 0;
            if (r->o.row_begin > r->rg_first_row)
                CF_TRY(skip_to(r, r->o.row_begin - r->rg_first_row, err));
        }
        int64_t left = rg->num_rows - r->rg_rows_done;
        size_t want = r->o.batch_rows;
        /* Rows before row_begin in this group are read and dropped. */
        int64_t skip = r->o.row_begin - (r->rg_first_row + r->rg_rows_done);
        if (skip > 0 && (int64_t)want > skip)
            want = (size_t)skip;
        int64_t until_end = end - (r->rg_first_row + r->rg_rows_done);
        if (skip <= 0 && until_end < (int64_t)want)
            want = (size_t)until_end;
        if (left > 0 && (int64_t)want > left)
            want = (size_t)left;
        if (r->leaf_count == 0) {
            /* No columns chosen: rows without fields. */
            if (left <= 0) {
                r->rg_first_row += rg->num_rows;
                r->rg++;
                r->rg_open = false;
                continue;
            }
            r->batch_rg = r->rg;
            r->batch_first_row = r->rg_first_row + r->rg_rows_done;
            r->rg_rows_done += (int64_t)want;
            if (skip > 0)
                continue;
            CF_TRY(set_length(r->top, want, err));
            for (size_t i = 0; i < want; i++)
                set_valid(r->top, i, true);
            finish_validity(r->top);
            *out = &r->top->a;
            return CF_OK;
        }
        size_t rows = 0;
        for (uint32_t i = 0; i < r->leaf_count; i++) {
            leaf *l = &r->leaves[i];
            while (!l->eof && !leaf_has(l, want))
                CF_TRY(leaf_fill(r, l, want, err));
            size_t got;
            leaf_cut(l, want, &got);
            if (i == 0)
                rows = got;
            CF_CHECK(got == rows, err, CF_ECORRUPT,
                     LEAF_WHERE ": %zu rows where column %" PRIu32 " has %zu", LEAF_ARGS(r, l), got,
                     r->leaves[0].column, rows);
        }
        if (rows == 0) {
            CF_TRY(close_row_group(r, err));
            continue;
        }
        CF_CHECK((int64_t)rows <= left, err, CF_ECORRUPT,
                 "row group %" PRIu32 ": columns hold more than its %" PRId64 " rows", r->rg,
                 rg->num_rows);
        r->batch_rg = r->rg;
        r->batch_first_row = r->rg_first_row + r->rg_rows_done;
        cf_status st = CF_OK;
        if (skip <= 0) {
            st = set_length(r->top, rows, err); /* rows are never null */
            finish_validity(r->top);
            for (uint32_t k = 0; k < r->top->a.child_count && st == CF_OK; k++) {
                st = build(r, r->top->kids[k], 0, 0, err);
                if (st == CF_OK && r->top->kids[k]->a.length != rows)
                    st = cf_error_set(err, CF_ECORRUPT, __FILE__, __LINE__,
                                      "row group %" PRIu32 ": field %.*s has %zu rows, not %zu",
                                      r->rg, (int)r->top->kids[k]->a.name.len,
                                      (const char *)r->top->kids[k]->a.name.data,
                                      r->top->kids[k]->a.length, rows);
            }
        }
        for (uint32_t i = 0; i < r->leaf_count; i++)
            leaf_compact(&r->leaves[i], rows);
        r->rg_rows_done += (int64_t)rows;
        if (st != CF_OK)
            return st;
        if (skip > 0)
            continue;
        *out = &r->top->a;
        return CF_OK;
    }
}

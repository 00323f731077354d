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
#include "records.h"

#include "encoding.h"

#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

#define DEFAULT_BATCH_ROWS 1024
#define DEFAULT_MAX_BATCH_LEVELS ((size_t)64 << 20)

cf_status cf_pq_rec_oom(cf_error *err)
{
    CF_FAIL(err, CF_ENOMEM, "parquet records: out of memory");
}

cf_status cf_pq_rec_grow(void **p, size_t *cap, size_t n, size_t elem, cf_error *err)
{
    if (n <= *cap)
        return CF_OK;
    size_t want = *cap ? *cap : 64;
    while (want < n)
        want = want > SIZE_MAX / 2 ? n : want * 2;
    size_t bytes;
    if (!cf_mul_ok(want, elem, &bytes))
        return cf_pq_rec_oom(err);
    void *q = cf_realloc(*p, bytes);
    if (!q)
        return cf_pq_rec_oom(err);
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
    opts->threads = CF_PARQUET_THREADS_AUTO;
}

/* ---- the field tree --------------------------------------------------------------------- */

static field *new_field(cf_parquet_records *r, uint32_t kind, const cf_parquet_node *n)
{
    if (r->all_count == r->all_cap && !cf_array_grow(&r->all, &r->all_cap, sizeof *r->all, 32))
        return NULL;
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
        return cf_pq_rec_oom(err);
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
            return cf_pq_rec_oom(err);
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
                return cf_pq_rec_oom(err);
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
        return cf_pq_rec_oom(err);
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
            st = cf_pq_rec_oom(err);
            goto out;
        }
        kv->valid_def = n->max_def;
        CF_TRY_OUT(set_kids(r, kv, kids, 2, err));
        res = wrap_repeated(r, CF_PARQUET_ARRAY_MAP, n, kv, err);
        if (!res)
            st = cf_pq_rec_oom(err);
        goto out;
    }
    if (n->child_count > 1 || (!is_list && !is_map && !repeated) || !n->parent) {
        res = new_field(r, CF_PARQUET_ARRAY_STRUCT, n);
        if (!res) {
            st = cf_pq_rec_oom(err);
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
            st = cf_pq_rec_oom(err);
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

/* ---- building arrays -------------------------------------------------------------------- */

static cf_status set_length(field *f, size_t len, cf_error *err)
{
    size_t bytes = len / 8 + 1;
    CF_TRY(cf_pq_rec_grow((void **)&f->validity, &f->validity_cap, bytes, 1, err));
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
 * straight from the definition levels, eight slots a byte; the values handed
 * out where the leaf holds them when none is null, and a byte array's bytes
 * always (its offsets are rebased to the batch): taking a batch moves nothing
 * (cf_pq_leaf_compact), so the leaf's buffers stay put until the next call's
 * fill, as long as the array must live. */
static cf_status build_flat(cf_parquet_records *r, field *f, leaf *l, cf_error *err)
{
    size_t slots = l->cut, vs = l->is_bytes ? 0 : l->vsize;
    bool all = l->cut_values == slots;
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
        CF_TRY(
            cf_pq_rec_grow((void **)&f->offsets, &f->offsets_cap, slots + 1, sizeof(int32_t), err));
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
        if (l->bytes != NULL) {
            f->a.values = l->bytes + b0;
        } else { /* no bytes yet: every value empty or null */
            CF_TRY(cf_pq_rec_grow((void **)&f->values, &f->values_cap, 1, 1, err));
            f->a.values = f->values;
        }
    } else {
        f->a.offsets = NULL;
        size_t bytes;
        if (!cf_mul_ok(slots ? slots : 1, vs, &bytes))
            return cf_pq_rec_oom(err);
        if (all && slots > 0) {
            f->a.values = l->vals;
        } else {
            CF_TRY(cf_pq_rec_grow((void **)&f->values, &f->values_cap, bytes, 1, err));
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
            return cf_pq_rec_oom(err);
        CF_TRY(cf_pq_rec_grow((void **)&f->values, &f->values_cap, bytes, 1, err));
        if (slots)
            memcpy(f->values, l->vals, slots * vs);
        f->a.offsets = NULL;
        f->a.values = f->values;
        finish_validity(f);
        return CF_OK;
    }
    if (l->is_bytes) {
        CF_TRY(
            cf_pq_rec_grow((void **)&f->offsets, &f->offsets_cap, slots + 1, sizeof(int32_t), err));
        size_t b0 = l->voff[0], b1 = l->cut_values ? l->voff[l->cut_values] : b0;
        CF_CHECK(b1 - b0 <= INT32_MAX, err, CF_ENOTSUP,
                 FIELD_WHERE ": more than 2 GiB of bytes in one batch", FIELD_ARGS(r, f));
        CF_TRY(
            cf_pq_rec_grow((void **)&f->values, &f->values_cap, (b1 - b0) ? b1 - b0 : 1, 1, err));
        if (b1 > b0)
            memcpy(f->values, l->bytes + b0, b1 - b0);
        f->offsets[0] = 0;
    } else {
        size_t bytes;
        if (!cf_mul_ok(slots ? slots : 1, vs ? vs : 1, &bytes))
            return cf_pq_rec_oom(err);
        CF_TRY(cf_pq_rec_grow((void **)&f->values, &f->values_cap, bytes, 1, err));
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
    CF_TRY(cf_pq_rec_grow((void **)&f->offsets, &f->offsets_cap, slots + 1, sizeof(int32_t), err));
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

cf_status cf_pq_rec_build_top(cf_parquet_records *r, uint32_t k, size_t rows, cf_error *err)
{
    field *f = r->top->kids[k];
    CF_TRY(build(r, f, 0, 0, err));
    CF_CHECK(f->a.length == rows, err, CF_ECORRUPT,
             "row group %" PRIu32 ": field %.*s has %zu rows, not %zu", r->rg, (int)f->a.name.len,
             (const char *)f->a.name.data, f->a.length, rows);
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
    CF_CHECK(opts->threads <= CF_PARQUET_MAX_THREADS, err, CF_EINVAL,
             "parquet records options: threads %zu (at most %u, or 0 for one per CPU)",
             opts->threads, CF_PARQUET_MAX_THREADS);
    const cf_parquet_node *root = cf_parquet_schema_root(pq);
    for (uint32_t i = 0; i < opts->field_count; i++)
        CF_CHECK(opts->fields && opts->fields[i] < root->child_count, err, CF_EINVAL,
                 "parquet records options: field %" PRIu32 " out of range (%" PRIu32 " fields)",
                 opts->fields ? opts->fields[i] : 0, root->child_count);
    cf_parquet_records *r = cf_calloc(1, sizeof(*r));
    if (!r)
        return cf_pq_rec_oom(err);
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
    r->leaf_count = nleaves;
    r->top = new_field(r, CF_PARQUET_ARRAY_STRUCT, root);
    if (!r->top)
        CF_FAIL_OUT(err, CF_ENOMEM, "parquet records: out of memory");
    CF_TRY_OUT(set_kids(r, r->top, kids, r->o.field_count, err));
    r->rg_first_row = 0;
    CF_TRY_OUT(cf_pq_rec_start_threads(r, cols, err));
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
    for (uint32_t i = 0; r->leaves && i < r->leaf_count; i++)
        if (r->leaves[i].rd)
            n += cf_parquet_column_pages_read(r->leaves[i].rd);
    return n;
}

void cf_parquet_records_free(cf_parquet_records *r)
{
    if (!r)
        return;
    cf_pq_rec_stop_threads(r); /* first: its workers may still hold a leaf */
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
                 LEAF_WHERE ": %" PRIu64 " rows, the row group says %" PRId64, LEAF_ARGS(l),
                 l->rows_total, rg->num_rows);
        cf_pq_leaf_reset(l, &r->pages_read);
    }
    r->slots[r->cur_slot].rg = -1;
    r->rg_first_row += rg->num_rows;
    r->rg++;
    r->rg_open = false;
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
            bool ready;
            CF_TRY(cf_pq_rec_take_row_group(r, &ready, err));
            for (uint32_t i = 0; !ready && i < r->leaf_count; i++)
                CF_TRY(cf_pq_leaf_open(&r->leaves[i], r->pq, r->rg, err));
            r->rg_open = true;
            r->rg_rows_done = 0;
            /* (A row group decoded ahead starts at or after row_begin.) */
            if (r->o.row_begin > r->rg_first_row)
                CF_TRY(cf_pq_leaves_skip_to(r, r->o.row_begin - r->rg_first_row, err));
            cf_pq_rec_post_ahead(r);
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
        CF_TRY(cf_pq_rec_fill_leaves(r, want, err));
        for (uint32_t i = 0; i < r->leaf_count; i++) {
            leaf *l = &r->leaves[i];
            size_t got;
            cf_pq_leaf_cut(l, want, &got);
            if (i == 0)
                rows = got;
            CF_CHECK(got == rows, err, CF_ECORRUPT,
                     LEAF_WHERE ": %zu rows where column %" PRIu32 " has %zu", LEAF_ARGS(l), got,
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
            if (st == CF_OK)
                st = cf_pq_rec_build_fields(r, rows, err);
        }
        for (uint32_t i = 0; i < r->leaf_count; i++)
            cf_pq_leaf_compact(&r->leaves[i], rows);
        r->rg_rows_done += (int64_t)rows;
        if (st != CF_OK)
            return st;
        if (skip > 0)
            continue;
        cf_pq_rec_post_ahead(r); /* the last run may have finished meanwhile */
        *out = &r->top->a;
        return CF_OK;
    }
}

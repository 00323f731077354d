/* The schema tree from FileMetaData.schema (parquet-format README "Nested
 * Encoding", LogicalTypes.md "Backward compatibility").
 *
 * The footer lists SchemaElements depth first: each group gives num_children
 * and its children follow, the root first. The tree is built without
 * recursion (a hostile footer can nest as deep as it is long), every count is
 * checked against the elements left, and each leaf gets its column path and
 * its maximum definition level (one per OPTIONAL or REPEATED ancestor-or-self)
 * and repetition level (one per REPEATED). */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

static int name_len(const cf_parquet_schema_element *e)
{
    return e->name.len > 64 ? 64 : (int)e->name.len;
}

#define ELEM_FAIL(err, i, e, ...)                                                                  \
    do {                                                                                           \
        char m_[160];                                                                              \
        snprintf(m_, sizeof(m_), __VA_ARGS__);                                                     \
        CF_FAIL_OUT(err, CF_ECORRUPT, "schema element %" PRIu32 " (\"%.*s\"): %s", (i),            \
                    name_len(e), (e)->name.len ? (const char *)(e)->name.data : "", m_);           \
    } while (0)

cf_parquet_logical cf_pq_resolve_logical(const cf_parquet_schema_element *e)
{
    cf_parquet_logical lt = e->logical;
    if (lt.kind != CF_PARQUET_LT_NONE && lt.kind != CF_PARQUET_LT_UNSUPPORTED)
        return lt;
    memset(&lt, 0, sizeof(lt));
    if (!e->has_converted_type)
        return lt;
    switch (e->converted_type) {
    case CF_PARQUET_CT_UTF8: lt.kind = CF_PARQUET_LT_STRING; break;
    case CF_PARQUET_CT_MAP: lt.kind = CF_PARQUET_LT_MAP; break;
    case CF_PARQUET_CT_LIST: lt.kind = CF_PARQUET_LT_LIST; break;
    case CF_PARQUET_CT_ENUM: lt.kind = CF_PARQUET_LT_ENUM; break;
    case CF_PARQUET_CT_DATE: lt.kind = CF_PARQUET_LT_DATE; break;
    case CF_PARQUET_CT_JSON: lt.kind = CF_PARQUET_LT_JSON; break;
    case CF_PARQUET_CT_BSON: lt.kind = CF_PARQUET_LT_BSON; break;
    case CF_PARQUET_CT_DECIMAL:
        lt.kind = CF_PARQUET_LT_DECIMAL;
        lt.scale = e->has_scale ? e->scale : 0;
        lt.precision = e->has_precision ? e->precision : 0;
        break;
    /* The legacy time annotations are UTC-adjusted (LogicalTypes.md). */
    case CF_PARQUET_CT_TIME_MILLIS:
    case CF_PARQUET_CT_TIME_MICROS:
        lt.kind = CF_PARQUET_LT_TIME;
        lt.unit =
            e->converted_type == CF_PARQUET_CT_TIME_MILLIS ? CF_PARQUET_MILLIS : CF_PARQUET_MICROS;
        lt.utc = true;
        break;
    case CF_PARQUET_CT_TIMESTAMP_MILLIS:
    case CF_PARQUET_CT_TIMESTAMP_MICROS:
        lt.kind = CF_PARQUET_LT_TIMESTAMP;
        lt.unit = e->converted_type == CF_PARQUET_CT_TIMESTAMP_MILLIS ? CF_PARQUET_MILLIS
                                                                      : CF_PARQUET_MICROS;
        lt.utc = true;
        break;
    case CF_PARQUET_CT_UINT_8:
    case CF_PARQUET_CT_UINT_16:
    case CF_PARQUET_CT_UINT_32:
    case CF_PARQUET_CT_UINT_64:
        lt.kind = CF_PARQUET_LT_INTEGER;
        lt.bit_width = 8 << (e->converted_type - CF_PARQUET_CT_UINT_8);
        lt.is_signed = false;
        break;
    case CF_PARQUET_CT_INT_8:
    case CF_PARQUET_CT_INT_16:
    case CF_PARQUET_CT_INT_32:
    case CF_PARQUET_CT_INT_64:
        lt.kind = CF_PARQUET_LT_INTEGER;
        lt.bit_width = 8 << (e->converted_type - CF_PARQUET_CT_INT_8);
        lt.is_signed = true;
        break;
    default: break; /* MAP_KEY_VALUE, INTERVAL, unknown numbers */
    }
    return lt;
}

/* The legacy NULL annotation (ConvertedType 24, never in parquet.thrift, still
 * in old files): a column of nulls, read as its physical type. */
#define CT_LEGACY_NULL 24

/* An annotation whose value this reader does not know, where it decides what
 * the element means: a converted_type outside parquet.thrift's (the enum is
 * frozen, so such a number is damage) unless a logical type we know
 * supersedes it. Ignored, a LIST would silently read as a struct. */
static bool converted_unknown(const cf_parquet_schema_element *e)
{
    if (!e->has_converted_type || e->converted_type == CT_LEGACY_NULL)
        return false;
    if (e->logical.kind != CF_PARQUET_LT_NONE && e->logical.kind != CF_PARQUET_LT_UNSUPPORTED)
        return false;
    return cf_parquet_converted_name(e->converted_type) == NULL;
}

/* Does a leaf's annotation fit its physical type (LogicalTypes.md; DuckDB
 * refuses the same misfits)? Read otherwise, an INT annotation on a
 * BYTE_ARRAY or a DATE on an INT64 would be printed as something it is not. */
static bool annotation_fits(const cf_parquet_schema_element *e, const cf_parquet_logical *lt)
{
    const int32_t t = e->type;
    const bool bytes = t == CF_PARQUET_BYTE_ARRAY || t == CF_PARQUET_FIXED_LEN_BYTE_ARRAY;
    switch (lt->kind) {
    case CF_PARQUET_LT_STRING:
    case CF_PARQUET_LT_ENUM:
    case CF_PARQUET_LT_JSON:
    case CF_PARQUET_LT_BSON: return bytes;
    case CF_PARQUET_LT_GEOMETRY:
    case CF_PARQUET_LT_GEOGRAPHY: return t == CF_PARQUET_BYTE_ARRAY;
    case CF_PARQUET_LT_DECIMAL: return bytes || t == CF_PARQUET_INT32 || t == CF_PARQUET_INT64;
    case CF_PARQUET_LT_DATE: return t == CF_PARQUET_INT32;
    case CF_PARQUET_LT_TIME:
        return t == (lt->unit == CF_PARQUET_MILLIS ? CF_PARQUET_INT32 : CF_PARQUET_INT64);
    case CF_PARQUET_LT_TIMESTAMP: return t == CF_PARQUET_INT64;
    case CF_PARQUET_LT_INTEGER:
        if (lt->bit_width == 64)
            return t == CF_PARQUET_INT64;
        return (lt->bit_width == 8 || lt->bit_width == 16 || lt->bit_width == 32) &&
               t == CF_PARQUET_INT32;
    case CF_PARQUET_LT_UUID: return t == CF_PARQUET_FIXED_LEN_BYTE_ARRAY && e->type_length == 16;
    case CF_PARQUET_LT_FLOAT16: return t == CF_PARQUET_FIXED_LEN_BYTE_ARRAY && e->type_length == 2;
    case CF_PARQUET_LT_LIST:
    case CF_PARQUET_LT_MAP:
    case CF_PARQUET_LT_VARIANT: return false; /* group annotations */
    default: return true;                     /* none, UNKNOWN (nulls), unsupported */
    }
}

void cf_pq_schema_dispose(cf_pq_schema *s)
{
    cf_free(s->nodes);
    cf_free(s->child_slots);
    cf_free(s->columns);
    cf_free(s->path_slots);
    memset(s, 0, sizeof(*s));
}

/* A group: has num_children > 0, or num_children 0 and no type (an empty group).
 * Several writers set num_children = 0 on leaves. */
static bool is_group(const cf_parquet_schema_element *e)
{
    return e->has_num_children && (e->num_children > 0 || !e->has_type);
}

cf_status cf_pq_schema_build(cf_pq_schema *s, const cf_parquet_schema_element *elems,
                             uint32_t count, cf_error *err)
{
    cf_status st = CF_OK;
    memset(s, 0, sizeof(*s));
    uint32_t *stack = NULL; /* open groups: node index */
    uint32_t *left = NULL;  /* children still to come, per open group */
    if (count == 0)
        CF_FAIL_OUT(err, CF_ECORRUPT, "schema: no elements (not even a root)");
    const cf_parquet_schema_element *root = &elems[0];
    if (!root->has_num_children || root->num_children < 0)
        ELEM_FAIL(err, 0u, root, "the root is not a group (num_children %s)",
                  root->has_num_children ? "negative" : "absent");
    s->nodes = cf_calloc(count, sizeof(*s->nodes));
    s->child_slots = cf_calloc(count, sizeof(*s->child_slots));
    stack = cf_calloc(count, sizeof(*stack));
    left = cf_calloc(count, sizeof(*left));
    if (!s->nodes || !s->child_slots || !stack || !left)
        CF_FAIL_OUT(err, CF_ENOMEM, "schema: out of memory for %" PRIu32 " elements", count);

    uint32_t slots = 0, top = 0, leaves = 0;
    size_t path_total = 0;
    cf_parquet_node *rn = &s->nodes[0];
    rn->element = root;
    rn->column = -1;
    rn->repetition = CF_PARQUET_REQUIRED;
    rn->child_count = (uint32_t)root->num_children;
    if (rn->child_count > count - 1)
        ELEM_FAIL(err, 0u, root,
                  "declares %" PRId32 " children, the schema has %" PRIu32 " more elements",
                  root->num_children, count - 1);
    rn->children = s->child_slots;
    slots = rn->child_count;
    stack[top] = 0;
    left[top] = rn->child_count;
    top = 1;
    uint32_t i = 1;
    while (top > 0) {
        if (left[top - 1] == 0) {
            top--;
            continue;
        }
        cf_parquet_node *parent = &s->nodes[stack[top - 1]];
        if (i >= count)
            ELEM_FAIL(err, stack[top - 1], parent->element,
                      "declares %" PRIu32 " children, the list ends before %" PRIu32 " of them",
                      parent->child_count, left[top - 1]);
        const cf_parquet_schema_element *e = &elems[i];
        cf_parquet_node *n = &s->nodes[i];
        n->element = e;
        n->index = i;
        n->parent = parent;
        n->depth = parent->depth + 1;
        n->column = -1;
        ((const cf_parquet_node **)parent->children)[parent->child_count - left[top - 1]] = n;
        left[top - 1]--;
        /* An empty name is read as one (DuckDB writes a UNION's tag so, and
         * reads it back as a struct field named ""). */
        if (n->depth > CF_PQ_MAX_SCHEMA_DEPTH)
            ELEM_FAIL(err, i, e, "nested deeper than %d levels", CF_PQ_MAX_SCHEMA_DEPTH);
        /* A missing repetition on a non-root element reads as REQUIRED, as the
         * reference readers do. */
        n->repetition = e->has_repetition ? e->repetition : CF_PARQUET_REQUIRED;
        if (n->repetition < 0 || n->repetition > CF_PARQUET_REPEATED)
            ELEM_FAIL(err, i, e, "unknown repetition type %" PRId32, n->repetition);
        n->max_def = (uint16_t)(parent->max_def + (n->repetition != CF_PARQUET_REQUIRED));
        n->max_rep = (uint16_t)(parent->max_rep + (n->repetition == CF_PARQUET_REPEATED));
        n->logical = cf_pq_resolve_logical(e);
        if (converted_unknown(e))
            ELEM_FAIL(err, i, e, "unknown converted_type %" PRId32, e->converted_type);
        if (e->has_num_children && e->num_children < 0)
            ELEM_FAIL(err, i, e, "num_children %" PRId32 " < 0", e->num_children);
        i++;
        if (is_group(e)) {
            n->child_count = (uint32_t)e->num_children;
            if (n->child_count > count - slots - 1)
                ELEM_FAIL(err, i - 1, e,
                          "declares %" PRId32 " children, more than the schema's %" PRIu32
                          " elements allow",
                          e->num_children, count);
            n->children = s->child_slots + slots;
            slots += n->child_count;
            stack[top] = i - 1;
            left[top] = n->child_count;
            top++;
            continue;
        }
        if (!e->has_type)
            ELEM_FAIL(err, i - 1, e, "a leaf without a physical type");
        if (!cf_parquet_type_name(e->type))
            ELEM_FAIL(err, i - 1, e, "unknown physical type %" PRId32, e->type);
        if (e->type == CF_PARQUET_FIXED_LEN_BYTE_ARRAY &&
            (!e->has_type_length || e->type_length < 1))
            ELEM_FAIL(err, i - 1, e, "FIXED_LEN_BYTE_ARRAY without a positive type_length");
        if (!annotation_fits(e, &n->logical)) {
            char lt[64], len[24] = "";
            if (e->type == CF_PARQUET_FIXED_LEN_BYTE_ARRAY)
                snprintf(len, sizeof len, "(%" PRId32 ")", e->type_length);
            ELEM_FAIL(err, i - 1, e, "%s annotation on physical type %s%s",
                      cf_parquet_logical_str(&n->logical, lt, sizeof lt),
                      cf_parquet_type_name(e->type), len);
        }
        n->column = (int32_t)leaves++;
        path_total += n->depth;
    }
    if (i != count)
        CF_FAIL_OUT(err, CF_ECORRUPT,
                    "schema: the tree from the root uses %" PRIu32 " of %" PRIu32
                    " elements (element %" PRIu32 " is outside it)",
                    i, count, i);

    /* Paths cost one slice per ancestor per leaf: a hostile footer of a deep
     * chain with many leaves under it would multiply its size by the depth. */
    if (path_total > (size_t)count * 128 + 4096)
        CF_FAIL_OUT(err, CF_ENOTSUP,
                    "schema: %" PRIu32 " columns with %zu path names in all, more than this "
                    "reader accepts",
                    leaves, path_total);
    /* Columns, in schema order, with their paths. */
    s->column_count = leaves;
    s->columns = cf_calloc(leaves ? leaves : 1, sizeof(*s->columns));
    s->path_slots = cf_calloc(path_total ? path_total : 1, sizeof(*s->path_slots));
    if (!s->columns || !s->path_slots)
        CF_FAIL_OUT(err, CF_ENOMEM, "schema: out of memory for %" PRIu32 " columns", leaves);
    size_t p = 0;
    for (uint32_t k = 0; k < count; k++) {
        cf_parquet_node *n = &s->nodes[k];
        if (n->column < 0)
            continue;
        cf_parquet_column *c = &s->columns[n->column];
        c->leaf = n;
        c->path_len = n->depth;
        c->path = s->path_slots + p;
        const cf_parquet_node *a = n;
        for (uint32_t d = n->depth; d > 0; d--, a = a->parent)
            s->path_slots[p + d - 1] = a->element->name;
        p += n->depth;
        c->type = n->element->type;
        c->type_length =
            n->element->type == CF_PARQUET_FIXED_LEN_BYTE_ARRAY ? n->element->type_length : 0;
        c->max_def = n->max_def;
        c->max_rep = n->max_rep;
    }
out:
    cf_free(stack);
    cf_free(left);
    if (st != CF_OK)
        cf_pq_schema_dispose(s);
    return st;
}

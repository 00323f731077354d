/* Fuzz the RowOperationsPB decoder (src/kudu/row_ops.c) and its encoder:
 *
 *   input: [schema][split x2][rows and indirect data]
 *   `schema` picks one of four tablet schemas (with and without nullable columns,
 *   binary and fixed-size types, one or two key columns, array columns); `split` (little-endian)
 *   says how many of the remaining bytes are `rows`, the rest is indirect_data.
 *   A clean error is a pass. On success every op has a valid type, every binary
 *   value (array elements too) lies inside indirect_data, and the ops encoded again
 *   decode to the same
 *   ops (decoding is a fixed point after one round).
 */
/* cf-needs: tables */
#include "fuzz.h"

#include <string.h>

#include "kudu/tablet.h"
#include "kudu/wal.h"

/* A SchemaPB as the WAL reader converts it (tablet.h), without the ids. */
static cf_status kudu_test_schema(cf_schema **out, const Kudu__SchemaPB *pb, cf_error *err)
{
    uint32_t *ids = NULL;
    cf_status st = cf_kudu_schema_from_pb(out, &ids, pb, "schema", err);
    free(ids);
    return st;
}

typedef struct col_def {
    const char *name;
    int type;
    bool key, nullable, array;
} col_def;

static const col_def schemas[4][5] = {
    {{"id", KUDU__DATA_TYPE__INT64, true, false, false},
     {"s", KUDU__DATA_TYPE__STRING, false, true, false},
     {"d", KUDU__DATA_TYPE__DOUBLE, false, true, false},
     {"ai", KUDU__DATA_TYPE__INT32, false, true, true}},
    {{"k", KUDU__DATA_TYPE__INT32, true, false, false},
     {"b", KUDU__DATA_TYPE__BOOL, false, false, false},
     {"f", KUDU__DATA_TYPE__FLOAT, false, false, false}},
    {{"h", KUDU__DATA_TYPE__STRING, true, false, false},
     {"t", KUDU__DATA_TYPE__UNIXTIME_MICROS, true, false, false},
     {"x", KUDU__DATA_TYPE__BINARY, false, true, false},
     {"i8", KUDU__DATA_TYPE__INT8, false, true, false},
     {"dec", KUDU__DATA_TYPE__DECIMAL128, false, true, false}},
    {{"k", KUDU__DATA_TYPE__INT16, true, false, false},
     {"v", KUDU__DATA_TYPE__VARCHAR, false, false, false},
     {"sa", KUDU__DATA_TYPE__STRING, false, false, true},
     {"ba", KUDU__DATA_TYPE__BOOL, false, true, true}},
};

static bool same_value(cf_type t, const void *x, const void *y)
{
    if (cf_type_is_binary(t)) {
        const cf_slice *p = x, *q = y;
        return p->len == q->len && (p->len == 0 || memcmp(p->data, q->data, p->len) == 0);
    }
    return memcmp(x, y, cf_type_size(t)) == 0;
}

static bool elem_null(const cf_array_cell *c, size_t i)
{
    return c->nonnull != NULL && !((c->nonnull[i >> 3] >> (i & 7)) & 1);
}

/* Same elements, NULLs in the same places (a NULL element's slot is not compared). */
static bool same_cells(const cf_array_cell *x, const cf_array_cell *y)
{
    if (x->type != y->type || x->count != y->count)
        return false;
    size_t sz = cf_type_size(x->type);
    for (size_t i = 0; i < x->count; i++) {
        if (elem_null(x, i) != elem_null(y, i))
            return false;
        if (!elem_null(x, i) && !same_value(x->type, (const uint8_t *)x->values + i * sz,
                                            (const uint8_t *)y->values + i * sz))
            return false;
    }
    return true;
}

static bool same_ops(const cf_schema *s, const cf_kudu_row_op *a, const cf_kudu_row_op *b)
{
    if (a->type != b->type || a->ncols != b->ncols)
        return false;
    for (size_t i = 0; i < a->ncols; i++) {
        if (a->set[i] != b->set[i])
            return false;
        if (!a->set[i])
            continue;
        const void *x = a->values[i], *y = b->values[i];
        if ((x == NULL) != (y == NULL))
            return false;
        if (x == NULL)
            continue;
        const cf_column *c = cf_schema_column_at(s, i);
        if (c->is_array ? !same_cells(x, y) : !same_value(c->type, x, y))
            return false;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    const col_def *defs = schemas[fuzz_u8(&in) & 3];
    size_t split = fuzz_u16(&in);
    if (split > in.size)
        split = in.size;
    Kudu__ColumnSchemaPB cols[5], *ptrs[5];
    size_t n = 0;
    for (; n < 5 && defs[n].name != NULL; n++) {
        Kudu__ColumnSchemaPB c = KUDU__COLUMN_SCHEMA_PB__INIT;
        c.name = (char *)defs[n].name;
        c.has_id = true;
        c.id = (uint32_t)n;
        c.has_type = c.has_is_key = c.has_is_nullable = true;
        c.type = (Kudu__DataType)defs[n].type;
        c.is_key = defs[n].key;
        if (defs[n].array) {
            static Kudu__NestedDataTypePB nested[5];
            static Kudu__NestedDataTypePB__ArrayTypeDescriptor arr[5];
            kudu__nested_data_type_pb__init(&nested[n]);
            kudu__nested_data_type_pb__array_type_descriptor__init(&arr[n]);
            arr[n].has_type = true;
            arr[n].type = c.type;
            nested[n].descriptor_case = KUDU__NESTED_DATA_TYPE_PB__DESCRIPTOR_ARRAY;
            nested[n].array = &arr[n];
            c.type = KUDU__DATA_TYPE__NESTED;
            c.nested_type = &nested[n];
        }
        c.is_nullable = defs[n].nullable;
        if (c.type == KUDU__DATA_TYPE__DECIMAL128) {
            static Kudu__ColumnTypeAttributesPB attrs = KUDU__COLUMN_TYPE_ATTRIBUTES_PB__INIT;
            attrs.has_precision = attrs.has_scale = true;
            attrs.precision = 30;
            attrs.scale = 2;
            c.type_attributes = &attrs;
        }
        cols[n] = c;
        ptrs[n] = &cols[n];
    }
    Kudu__SchemaPB pb = KUDU__SCHEMA_PB__INIT;
    pb.n_columns = n;
    pb.columns = ptrs;
    cf_schema *schema = NULL;
    cf_error err = {0};
    FUZZ_REQUIRE_MSG(kudu_test_schema(&schema, &pb, &err) == CF_OK, &err);

    uint8_t *rows = fuzz_dup(in.data, split);
    uint8_t *ind = fuzz_dup(in.data + split, in.size - split);
    Kudu__RowOperationsPB ro = KUDU__ROW_OPERATIONS_PB__INIT;
    ro.has_rows = ro.has_indirect_data = true;
    ro.rows.data = rows;
    ro.rows.len = split;
    ro.indirect_data.data = ind;
    ro.indirect_data.len = in.size - split;
    cf_arena a = {0};
    cf_arena_init(&a, 64u << 20);
    cf_kudu_row_op *ops = NULL;
    size_t nops = 0;
    cf_status st = kudu_rowops_decode(&a, &ro, NULL, &pb, schema, NULL, &ops, &nops, &err);
    if (st != CF_OK) {
        fuzz_require_clean_error(st, &err);
    } else {
        FUZZ_REQUIRE(nops <= split);
        cf_buf r2, i2;
        cf_buf_init(&r2);
        cf_buf_init(&i2);
        for (size_t k = 0; k < nops; k++) {
            FUZZ_REQUIRE(ops[k].type >= CF_KUDU_OP_INSERT &&
                         ops[k].type <= CF_KUDU_OP_UPSERT_IGNORE);
            for (size_t c = 0; c < n; c++) {
                const cf_column *col = cf_schema_column_at(schema, c);
                if (!ops[k].set[c] || ops[k].values[c] == NULL || !cf_type_is_binary(col->type))
                    continue;
                const cf_slice *s = ops[k].values[c];
                size_t count = 1;
                if (col->is_array) {
                    const cf_array_cell *cell = ops[k].values[c];
                    FUZZ_REQUIRE(cell->type == col->type && cell->count <= 65535);
                    s = cell->values;
                    count = cell->count;
                }
                for (size_t e = 0; e < count; e++)
                    FUZZ_REQUIRE(
                        s[e].len == 0 ||
                        (s[e].data >= ind && s[e].data + s[e].len <= ind + ro.indirect_data.len));
            }
            kudu_rowops_encode(&r2, &i2, schema, ops[k].type, ops[k].set, ops[k].values);
        }
        FUZZ_REQUIRE(!r2.oom && !i2.oom);
        Kudu__RowOperationsPB ro2 = KUDU__ROW_OPERATIONS_PB__INIT;
        ro2.has_rows = ro2.has_indirect_data = true;
        ro2.rows.data = r2.data;
        ro2.rows.len = r2.len;
        ro2.indirect_data.data = i2.data;
        ro2.indirect_data.len = i2.len;
        cf_kudu_row_op *ops2 = NULL;
        size_t nops2 = 0;
        FUZZ_REQUIRE_MSG(
            kudu_rowops_decode(&a, &ro2, NULL, &pb, schema, NULL, &ops2, &nops2, &err) == CF_OK,
            &err);
        FUZZ_REQUIRE(nops2 == nops);
        for (size_t k = 0; k < nops; k++)
            FUZZ_REQUIRE(same_ops(schema, &ops[k], &ops2[k]));
        cf_buf_dispose(&r2);
        cf_buf_dispose(&i2);
    }
    cf_arena_dispose(&a);
    cf_schema_free(schema);
    free(rows);
    free(ind);
    return 0;
}

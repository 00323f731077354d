/* Fuzz the RowOperationsPB decoder (src/kudu/row_ops.c) and its encoder:
 *
 *   input: [schema][split x2][rows and indirect data]
 *   `schema` picks one of four tablet schemas (with and without nullable columns,
 *   binary and fixed-size types, one or two key columns); `split` (little-endian)
 *   says how many of the remaining bytes are `rows`, the rest is indirect_data.
 *   A clean error is a pass. On success every op has a valid type, every binary
 *   value lies inside indirect_data, and the ops encoded again decode to the same
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
    bool key, nullable;
} col_def;

static const col_def schemas[4][5] = {
    {{"id", KUDU__DATA_TYPE__INT64, true, false},
     {"s", KUDU__DATA_TYPE__STRING, false, true},
     {"d", KUDU__DATA_TYPE__DOUBLE, false, true}},
    {{"k", KUDU__DATA_TYPE__INT32, true, false},
     {"b", KUDU__DATA_TYPE__BOOL, false, false},
     {"f", KUDU__DATA_TYPE__FLOAT, false, false}},
    {{"h", KUDU__DATA_TYPE__STRING, true, false},
     {"t", KUDU__DATA_TYPE__UNIXTIME_MICROS, true, false},
     {"x", KUDU__DATA_TYPE__BINARY, false, true},
     {"i8", KUDU__DATA_TYPE__INT8, false, true},
     {"dec", KUDU__DATA_TYPE__DECIMAL128, false, true}},
    {{"k", KUDU__DATA_TYPE__INT16, true, false}, {"v", KUDU__DATA_TYPE__VARCHAR, false, false}},
};

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
        cf_type t = cf_schema_column_at(s, i)->type;
        if (cf_type_is_binary(t)) {
            const cf_slice *p = x, *q = y;
            if (p->len != q->len || (p->len && memcmp(p->data, q->data, p->len) != 0))
                return false;
        } else if (memcmp(x, y, cf_type_size(t)) != 0) {
            return false;
        }
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
                if (!ops[k].set[c] || ops[k].values[c] == NULL ||
                    !cf_type_is_binary(cf_schema_column_at(schema, c)->type))
                    continue;
                const cf_slice *s = ops[k].values[c];
                FUZZ_REQUIRE(s->len == 0 ||
                             (s->data >= ind && s->data + s->len <= ind + ro.indirect_data.len));
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

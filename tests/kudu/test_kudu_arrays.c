/* cf-needs: tables */
/* Kudu's array columns (NESTED with NestedDataTypePB.array) outside the CFiles:
 * - a SchemaPB's array columns map to cf_schema is_array columns and back;
 * - row operations carry array cells as FlatBuffers `Content` tables in
 *   indirect_data (common/row_operations.cc, GetColumnSlice); they decode into
 *   cf_array_cell values (NULL elements, NULL cells, empty arrays, strings), the
 *   encoder writes them as Kudu's client does, and every cut of the rows or of
 *   the indirect data and every damaged cell is refused as CF_ECORRUPT. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"

#include <cfile/delta.h>
#include <cfile/kudu.h>

#include "kudu/tablet.h"
#include "kudu/wal.h"
#include "support_walgen.h"
#include "util/buf.h"

/* id INT32 key, a INT32[] NULL, s STRING[] NULL */
static const cf_column array_cols[3] = {
    {.name = "id", .type = CF_TYPE_INT32, .is_key = true},
    {.name = "a", .type = CF_TYPE_INT32, .is_array = true, .nullable = true},
    {.name = "s", .type = CF_TYPE_STRING, .is_array = true, .nullable = true}};

/* What a test decodes with: a tablet schema and its SchemaPB, row ops encoded
 * into rows/ind, and the arena the decoded ops live in. */
typedef struct fix {
    cf_schema *s;
    cf_kudu_schema_pb pb;
    cf_buf rows, ind;
    cf_arena a;
} fix;

/* The fixture of the schema cols (asserts); fix_dispose after. */
static void fix_init(fix *f, const cf_column *cols, size_t ncols)
{
    memset(f, 0, sizeof *f);
    cf_error err = {0};
    CF_ASSERT_OK(cf_schema_create(&f->s, cols, ncols, &err), &err);
    CF_ASSERT_OK(cf_kudu_schema_pb_build(&f->pb, f->s, NULL, &err), &err);
    cf_buf_init(&f->rows);
    cf_buf_init(&f->ind);
}

static void fix_dispose(fix *f)
{
    cf_arena_dispose(&f->a);
    cf_buf_dispose(&f->rows);
    cf_buf_dispose(&f->ind);
    cf_kudu_schema_pb_dispose(&f->pb);
    cf_schema_free(f->s);
}

/* f's row ops decoded (client: the writer's schema, or NULL), asserting success
 * and `want` ops. */
static cf_kudu_row_op *fix_decode(fix *f, const Kudu__SchemaPB *client, size_t want)
{
    Kudu__RowOperationsPB ro = walgen_rowops(&f->rows, &f->ind);
    cf_kudu_row_op *ops;
    size_t n;
    cf_error err = {0};
    CF_ASSERT_OK(kudu_rowops_decode(&f->a, &ro, client, &f->pb.pb, f->s, NULL, &ops, &n, &err),
                 &err);
    assert_int_equal(n, want);
    return ops;
}

static void test_schema_pb_arrays(void **state)
{
    (void)state;
    fix f;
    fix_init(&f, array_cols, 3);
    cf_error err = {0};
    assert_int_equal(f.pb.pb.columns[1]->type, KUDU__DATA_TYPE__NESTED);
    assert_non_null(f.pb.pb.columns[1]->nested_type);
    assert_int_equal(f.pb.pb.columns[1]->nested_type->array->type, KUDU__DATA_TYPE__INT32);
    assert_int_equal(f.pb.pb.columns[2]->nested_type->array->type, KUDU__DATA_TYPE__STRING);
    cf_schema *back = NULL;
    uint32_t *ids = NULL;
    CF_ASSERT_OK(cf_kudu_schema_from_pb(&back, &ids, &f.pb.pb, "schema", &err), &err);
    for (size_t i = 0; i < 3; i++) {
        const cf_column *a = cf_schema_column_at(f.s, i), *b = cf_schema_column_at(back, i);
        assert_string_equal(a->name, b->name);
        assert_int_equal(a->type, b->type);
        assert_int_equal(a->is_array, b->is_array);
        assert_int_equal(a->nullable, b->nullable);
    }
    /* NESTED without its descriptor, and arrays of arrays */
    Kudu__NestedDataTypePB *nt = f.pb.pb.columns[1]->nested_type;
    f.pb.pb.columns[1]->nested_type = NULL;
    free(ids);
    cf_schema_free(back);
    assert_int_equal(cf_kudu_schema_from_pb(&back, &ids, &f.pb.pb, "schema", &err), CF_ECORRUPT);
    f.pb.pb.columns[1]->nested_type = nt;
    nt->array->type = KUDU__DATA_TYPE__NESTED;
    assert_int_equal(cf_kudu_schema_from_pb(&back, &ids, &f.pb.pb, "schema", &err), CF_ENOTSUP);
    fix_dispose(&f);
}

static const int32_t ints[3] = {7, 0, -9};
static const uint8_t ints_nonnull[1] = {0x5}; /* element 1 is NULL */
static const cf_slice strs[3] = {
    {(const uint8_t *)"x", 1}, {(const uint8_t *)"", 0}, {(const uint8_t *)"hello", 5}};
static const uint8_t strs_nonnull[1] = {0x3}; /* element 2 is NULL */

/* INSERT id 1 [7,NULL,-9] ["x","",NULL]; INSERT id 2 NULL []; UPDATE id 1 a=[] s=NULL */
static void encode_ops(fix *f)
{
    int32_t id1 = 1, id2 = 2;
    cf_array_cell a1 = {.type = CF_TYPE_INT32, .count = 3, .values = ints, .nonnull = ints_nonnull};
    cf_array_cell s1 = {
        .type = CF_TYPE_STRING, .count = 3, .values = strs, .nonnull = strs_nonnull};
    cf_array_cell empty_s = {.type = CF_TYPE_STRING};
    cf_array_cell empty_a = {.type = CF_TYPE_INT32};
    bool all[3] = {true, true, true};
    const void *r1[3] = {&id1, &a1, &s1};
    const void *r2[3] = {&id2, NULL, &empty_s};
    const void *u1[3] = {&id1, &empty_a, NULL};
    kudu_rowops_encode(&f->rows, &f->ind, f->s, CF_KUDU_OP_INSERT, all, r1);
    kudu_rowops_encode(&f->rows, &f->ind, f->s, CF_KUDU_OP_INSERT, all, r2);
    kudu_rowops_encode(&f->rows, &f->ind, f->s, CF_KUDU_OP_UPDATE, all, u1);
}

static void test_rowops_arrays_round_trip(void **state)
{
    (void)state;
    fix f;
    fix_init(&f, array_cols, 3);
    encode_ops(&f);
    size_t n = 3;
    cf_kudu_row_op *ops = fix_decode(&f, NULL, n);
    const cf_array_cell *c = ops[0].values[1];
    assert_int_equal(c->type, CF_TYPE_INT32);
    assert_int_equal(c->count, 3);
    assert_non_null(c->nonnull);
    assert_int_equal(c->nonnull[0] & 7, 0x5);
    assert_int_equal(((const int32_t *)c->values)[0], 7);
    assert_int_equal(((const int32_t *)c->values)[1], 0);
    assert_int_equal(((const int32_t *)c->values)[2], -9);
    c = ops[0].values[2];
    assert_int_equal(c->count, 3);
    assert_int_equal(c->nonnull[0] & 7, 0x3);
    const cf_slice *sv = c->values;
    assert_int_equal(sv[0].len, 1);
    assert_memory_equal(sv[0].data, "x", 1);
    assert_int_equal(sv[1].len, 0);
    /* a NULL cell, an empty array */
    assert_true(ops[1].set[1]);
    assert_null(ops[1].values[1]);
    c = ops[1].values[2];
    assert_int_equal(c->count, 0);
    assert_null(c->nonnull);
    c = ops[2].values[1];
    assert_int_equal(c->count, 0);
    assert_null(ops[2].values[2]);
    /* encoding the decoded ops again gives the same bytes */
    cf_buf r2, i2;
    cf_buf_init(&r2);
    cf_buf_init(&i2);
    for (size_t k = 0; k < n; k++)
        kudu_rowops_encode(&r2, &i2, f.s, ops[k].type, ops[k].set, ops[k].values);
    assert_int_equal(r2.len, f.rows.len);
    assert_memory_equal(r2.data, f.rows.data, r2.len);
    assert_int_equal(i2.len, f.ind.len);
    assert_memory_equal(i2.data, f.ind.data, i2.len);
    cf_buf_dispose(&r2);
    cf_buf_dispose(&i2);
    fix_dispose(&f);
}

/* Every cut of rows is refused but at the ends of ops; every cut of the
 * indirect data and every damaged byte of it is refused or decodes to cells
 * that stay inside it, never read past. */
static void test_rowops_arrays_cut_and_damaged(void **state)
{
    (void)state;
    fix f;
    fix_init(&f, array_cols, 3);
    encode_ops(&f);
    cf_arena *a = &f.a;
    const Kudu__SchemaPB *pb = &f.pb.pb;
    const cf_schema *s = f.s;
    cf_error err = {0};
    cf_kudu_row_op *ops;
    size_t n;
    Kudu__RowOperationsPB whole = walgen_rowops(&f.rows, &f.ind);
    assert_int_equal(walgen_rowops_cuts(&whole, pb, s), 1 + 3); /* empty, 3 ops */
    for (size_t cut = 0; cut < f.ind.len; cut++) {
        Kudu__RowOperationsPB ro = whole;
        uint8_t *p = malloc(cut + 1);
        memcpy(p, f.ind.data, cut);
        ro.indirect_data.data = p;
        ro.indirect_data.len = cut;
        cf_status st = kudu_rowops_decode(a, &ro, NULL, pb, s, NULL, &ops, &n, &err);
        assert_int_equal(st, CF_ECORRUPT);
        assert_non_null(strstr(err.msg, "row op"));
        free(p);
        cf_arena_reset(a);
    }
    /* each byte of the indirect data damaged: a clean verdict either way */
    size_t refused = 0;
    for (size_t i = 0; i < f.ind.len; i++) {
        for (int flip = 1; flip < 256; flip <<= 1) {
            Kudu__RowOperationsPB ro = whole;
            uint8_t *p = malloc(f.ind.len);
            memcpy(p, f.ind.data, f.ind.len);
            p[i] ^= (uint8_t)flip;
            ro.indirect_data.data = p;
            cf_status st = kudu_rowops_decode(a, &ro, NULL, pb, s, NULL, &ops, &n, &err);
            if (st != CF_OK) {
                assert_int_equal(st, CF_ECORRUPT);
                assert_non_null(strstr(err.msg, "array cell"));
                refused++;
            } else {
                for (size_t k = 0; k < n; k++)
                    for (size_t col = 1; col < 3; col++) {
                        const cf_array_cell *c = ops[k].values[col];
                        if (!ops[k].set[col] || c == NULL || col != 2)
                            continue;
                        for (size_t e = 0; e < c->count; e++) {
                            const cf_slice *sl = &((const cf_slice *)c->values)[e];
                            assert_true(sl->len == 0 ||
                                        (sl->data >= p && sl->data + sl->len <= p + f.ind.len));
                        }
                    }
            }
            free(p);
            cf_arena_reset(a);
        }
    }
    assert_true(refused > 0);
    fix_dispose(&f);
}

/* A client schema (WriteRequestPB.schema) maps onto the tablet's by name; its
 * array columns must be arrays of the same element type there. */
static void test_rowops_arrays_client_schema(void **state)
{
    (void)state;
    fix f;
    fix_init(&f, array_cols, 3);
    cf_error err = {0};
    /* the client's columns in another order: id, s, a */
    cf_column cc[3] = {{.name = "id", .type = CF_TYPE_INT32, .is_key = true},
                       {.name = "s", .type = CF_TYPE_STRING, .is_array = true, .nullable = true},
                       {.name = "a", .type = CF_TYPE_INT32, .is_array = true, .nullable = true}};
    cf_schema *cs;
    CF_ASSERT_OK(cf_schema_create(&cs, cc, 3, &err), &err);
    cf_kudu_schema_pb cpb;
    CF_ASSERT_OK(cf_kudu_schema_pb_build(&cpb, cs, NULL, &err), &err);
    int32_t id = 9;
    static const int32_t two[2] = {1, 2};
    cf_array_cell a = {.type = CF_TYPE_INT32, .count = 2, .values = two};
    bool set[3] = {true, false, true};
    const void *vals[3] = {&id, NULL, &a};
    kudu_rowops_encode(&f.rows, &f.ind, cs, CF_KUDU_OP_UPDATE, set, vals);
    cf_kudu_row_op *ops = fix_decode(&f, &cpb.pb, 1);
    Kudu__RowOperationsPB ro = walgen_rowops(&f.rows, &f.ind);
    size_t n;
    assert_true(ops[0].set[1] && !ops[0].set[2]);
    const cf_array_cell *got = ops[0].values[1];
    assert_int_equal(got->count, 2);
    assert_int_equal(((const int32_t *)got->values)[1], 2);
    /* the client says a is an array of INT64, then a plain INT32: refused */
    cpb.pb.columns[2]->nested_type->array->type = KUDU__DATA_TYPE__INT64;
    assert_int_equal(kudu_rowops_decode(&f.a, &ro, &cpb.pb, &f.pb.pb, f.s, NULL, &ops, &n, &err),
                     CF_ECORRUPT);
    assert_non_null(strstr(err.msg, "column a"));
    Kudu__NestedDataTypePB *nt = cpb.pb.columns[2]->nested_type;
    cpb.pb.columns[2]->nested_type = NULL;
    cpb.pb.columns[2]->type = KUDU__DATA_TYPE__INT32;
    assert_int_equal(kudu_rowops_decode(&f.a, &ro, &cpb.pb, &f.pb.pb, f.s, NULL, &ops, &n, &err),
                     CF_ECORRUPT);
    cpb.pb.columns[2]->nested_type = nt;
    cf_kudu_schema_pb_dispose(&cpb);
    cf_schema_free(cs);
    fix_dispose(&f);
}

/* Every element type Kudu serializes (DATE and DECIMAL32 as Int32Array, ...,
 * VARCHAR as StringArray), two elements the second NULL, through the encoder and
 * the decoder; arrays of INT128/DECIMAL128 have no serialized form in Kudu. */
static void test_rowops_arrays_every_type(void **state)
{
    (void)state;
    static const cf_type types[] = {CF_TYPE_UINT8,  CF_TYPE_INT8,      CF_TYPE_UINT16,
                                    CF_TYPE_INT16,  CF_TYPE_UINT32,    CF_TYPE_INT32,
                                    CF_TYPE_UINT64, CF_TYPE_INT64,     CF_TYPE_STRING,
                                    CF_TYPE_BOOL,   CF_TYPE_FLOAT,     CF_TYPE_DOUBLE,
                                    CF_TYPE_BINARY, CF_TYPE_VARCHAR,   CF_TYPE_UNIXTIME_MICROS,
                                    CF_TYPE_DATE,   CF_TYPE_DECIMAL32, CF_TYPE_DECIMAL64};
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        cf_type t = types[ti];
        cf_column cols[2] = {{.name = "id", .type = CF_TYPE_INT32, .is_key = true},
                             {.name = "v", .type = t, .is_array = true, .nullable = true}};
        if (t == CF_TYPE_DECIMAL32 || t == CF_TYPE_DECIMAL64) {
            cols[1].precision = t == CF_TYPE_DECIMAL32 ? 9 : 18;
            cols[1].scale = 2;
        }
        if (t == CF_TYPE_VARCHAR)
            cols[1].length = 10;
        fix f;
        fix_init(&f, cols, 2);
        size_t w = cf_type_size(t);
        _Alignas(16) uint8_t vals[2][16];
        memset(vals, 0, sizeof vals);
        if (cf_type_is_binary(t)) {
            cf_slice sl = {(const uint8_t *)"ab", 2};
            memcpy(vals[0], &sl, sizeof sl);
        } else if (t == CF_TYPE_BOOL) {
            vals[0][0] = 1;
        } else {
            for (size_t b = 0; b < w; b++)
                vals[0][b] = (uint8_t)(0x11 * (b + 1));
        }
        uint8_t packed[32];
        memcpy(packed, vals[0], w);
        memset(packed + w, 0, w);
        static const uint8_t nn[1] = {0x1};
        cf_array_cell cell = {.type = t, .count = 2, .values = packed, .nonnull = nn};
        int32_t id = 1;
        bool set[2] = {true, true};
        const void *v[2] = {&id, &cell};
        kudu_rowops_encode(&f.rows, &f.ind, f.s, CF_KUDU_OP_INSERT, set, v);
        cf_kudu_row_op *ops = fix_decode(&f, NULL, 1);
        const cf_array_cell *got = ops[0].values[1];
        assert_int_equal(got->type, t);
        assert_int_equal(got->count, 2);
        assert_non_null(got->nonnull);
        assert_int_equal(got->nonnull[0] & 3, 1);
        if (cf_type_is_binary(t)) {
            const cf_slice *sl = got->values;
            assert_int_equal(sl[0].len, 2);
            assert_memory_equal(sl[0].data, "ab", 2);
        } else {
            assert_memory_equal(got->values, vals[0], w);
        }
        fix_dispose(&f);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schema_pb_arrays),
        cmocka_unit_test(test_rowops_arrays_round_trip),
        cmocka_unit_test(test_rowops_arrays_cut_and_damaged),
        cmocka_unit_test(test_rowops_arrays_client_schema),
        cmocka_unit_test(test_rowops_arrays_every_type),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

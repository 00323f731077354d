/* RowChangeList encoding/decoding (format §12.3) and delta statistics (§12.4). */
#include <string.h>

#include "test_common.h"

#include <cfile/delta.h>

#include "delta/delta_internal.h"
#include "util/alloc.h"
#include "util/error.h"

static void check_bytes(cf_slice s, const char *hex)
{
    uint8_t want[64];
    size_t n = cf_test_unhex(hex, want, sizeof(want));
    CF_ASSERT_BYTES(want, n, s.data, s.len);
}

static void test_rcl__spec_examples(void **state)
{
    (void)state;
    cf_error err;
    cf_rcl_builder *b;
    CF_ASSERT_OK(cf_rcl_builder_create(&b, &err), &err);
    cf_rcl_builder_reset(b, CF_RCL_UPDATE);
    CF_ASSERT_OK(cf_rcl_builder_add(b, 2, "hello", 5, &err), &err);
    check_bytes(cf_rcl_builder_bytes(b), "01 02 06 68 65 6c 6c 6f");
    int32_t v = 33;
    cf_rcl_builder_reset(b, CF_RCL_UPDATE);
    CF_ASSERT_OK(cf_rcl_builder_add(b, 3, &v, 4, &err), &err);
    check_bytes(cf_rcl_builder_bytes(b), "01 03 05 21 00 00 00");
    cf_rcl_builder_reset(b, CF_RCL_UPDATE);
    CF_ASSERT_OK(cf_rcl_builder_add(b, 3, NULL, 0, &err), &err);
    check_bytes(cf_rcl_builder_bytes(b), "01 03 00");
    cf_rcl_builder_reset(b, CF_RCL_DELETE);
    check_bytes(cf_rcl_builder_bytes(b), "02");
    CF_ASSERT_STATUS(cf_rcl_builder_add(b, 3, &v, 4, &err), CF_ESTATE, &err);
    /* Ids >= 128 take a two-byte LEB128 varint. */
    cf_rcl_builder_reset(b, CF_RCL_REINSERT);
    CF_ASSERT_OK(cf_rcl_builder_add(b, 300, "x", 1, &err), &err);
    check_bytes(cf_rcl_builder_bytes(b), "03 ac 02 02 78");
    cf_rcl_builder_free(b);
    cf_rcl_builder_free(NULL);
}

static cf_status decode_all(const char *hex, cf_rcl_decoder *d, cf_rcl_change *ch, size_t *n,
                            cf_error *err)
{
    static uint8_t buf[64];
    size_t len = cf_test_unhex(hex, buf, sizeof(buf));
    *n = 0;
    cf_status st = cf_rcl_decoder_init(d, (cf_slice){buf, len}, err);
    if (st != CF_OK)
        return st;
    while (cf_rcl_decoder_has_next(d)) {
        st = cf_rcl_decoder_next(d, &ch[*n], err);
        if (st != CF_OK)
            return st;
        (*n)++;
    }
    return CF_OK;
}

static void test_rcl__decode(void **state)
{
    (void)state;
    cf_error err;
    cf_rcl_decoder d;
    cf_rcl_change ch[8];
    size_t n;
    CF_ASSERT_OK(decode_all("01 0a 05 07 00 00 00 0b 00", &d, ch, &n, &err), &err);
    assert_int_equal(d.type, CF_RCL_UPDATE);
    assert_int_equal(n, 2);
    assert_int_equal(ch[0].col_id, 10);
    assert_false(ch[0].is_null);
    assert_int_equal(ch[0].value.len, 4);
    assert_int_equal(ch[1].col_id, 11);
    assert_true(ch[1].is_null);
    CF_ASSERT_OK(decode_all("02", &d, ch, &n, &err), &err);
    assert_int_equal(d.type, CF_RCL_DELETE);
    CF_ASSERT_OK(decode_all("03", &d, ch, &n, &err), &err); /* empty REINSERT is legal */
    assert_int_equal(n, 0);
}

static void expect_error(const char *hex, const char *msg)
{
    cf_error err;
    cf_rcl_decoder d;
    cf_rcl_change ch[8];
    size_t n;
    CF_ASSERT_STATUS(decode_all(hex, &d, ch, &n, &err), CF_ECORRUPT, &err);
    if (strcmp(err.msg, msg) != 0)
        fail_msg("'%s': got \"%s\", want \"%s\"", hex, err.msg, msg);
}

static void test_rcl__bad_input(void **state)
{
    (void)state;
    /* Kudu's messages, as recorded in golden-delta/redo-raw-rcl-errors. */
    expect_error("", "empty changelist - expected type");
    expect_error("ff", "bad type enum value: 255 in <redacted>");
    expect_error("00 0a 00", "bad type enum value: 0 in <redacted>");
    expect_error("04", "bad type enum value: 4 in <redacted>");
    expect_error("01", "empty changelist - expected column updates");
    expect_error("02 02", "DELETE changelist too long: <redacted>");
    expect_error("01 0a 09 01",
                 "truncated value for column id 10, expected 8 bytes, only 1 remaining");
    expect_error("01 8a", "Invalid column ID varint in delta");
    expect_error("01 0a", "Invalid size varint in delta");
    expect_error("01 0a 85", "Invalid size varint in delta");
    expect_error("01 ff ff ff ff ff ff 00", "Invalid column ID varint in delta");
}

static void test_rcl__validate(void **state)
{
    (void)state;
    cf_delta_column cols[] = {
        {.id = 10, .name = "a", .type = CF_TYPE_INT32},
        {.id = 11, .name = "s", .type = CF_TYPE_STRING, .nullable = true},
        {.id = 12, .name = "d", .type = CF_TYPE_DECIMAL32, .precision = 9, .scale = 2},
    };
    cf_error err;
    int idx;
    uint8_t four[4] = {1, 0, 0, 0};
    cf_rcl_change c = {10, false, {four, 4}};
    CF_ASSERT_OK(cf_rcl_change_validate(&c, cols, 3, &idx, &err), &err);
    assert_int_equal(idx, 0);
    c.col_id = 99; /* not in the schema: skipped, not an error */
    CF_ASSERT_OK(cf_rcl_change_validate(&c, cols, 3, &idx, &err), &err);
    assert_int_equal(idx, -1);
    c = (cf_rcl_change){10, true, {NULL, 0}};
    CF_ASSERT_STATUS(cf_rcl_change_validate(&c, cols, 3, &idx, &err), CF_ECORRUPT, &err);
    assert_string_equal(err.msg, "decoded set-to-NULL for non-nullable column: a INT32 NOT NULL");
    c = (cf_rcl_change){10, false, {four, 2}};
    CF_ASSERT_STATUS(cf_rcl_change_validate(&c, cols, 3, &idx, &err), CF_ECORRUPT, &err);
    assert_string_equal(err.msg, "invalid value <redacted> for column a INT32 NOT NULL");
    c = (cf_rcl_change){12, false, {four, 3}};
    CF_ASSERT_STATUS(cf_rcl_change_validate(&c, cols, 3, &idx, &err), CF_ECORRUPT, &err);
    assert_string_equal(err.msg, "invalid value <redacted> for column d DECIMAL(9, 2) NOT NULL");
    c = (cf_rcl_change){11, false, {four, 3}}; /* binary: any length */
    CF_ASSERT_OK(cf_rcl_change_validate(&c, cols, 3, &idx, &err), &err);
    c.is_null = true;
    CF_ASSERT_OK(cf_rcl_change_validate(&c, cols, 3, &idx, &err), &err);
}

static void order_of(cf_dstats *s, uint32_t *out, size_t *n)
{
    *n = 0;
    for (uint32_t p = s->head; p != CF_DSTATS_NONE; p = s->next[p])
        out[(*n)++] = s->nodes[p].col_id;
}

static void test_rcl__stats_order_and_pb(void **state)
{
    (void)state;
    cf_error err;
    cf_dstats s;
    cf_dstats_init(&s);
    uint8_t rcl[64];
    /* golden-delta/redo-basic: ids 10 then 11 -> serialized 11, 10. */
    size_t n = cf_test_unhex("01 0a 05 07 00 00 00 0b 00", rcl, sizeof(rcl));
    CF_ASSERT_OK(cf_dstats_update(&s, 100, (cf_slice){rcl, n}, &err), &err);
    n = cf_test_unhex("01 0b 06 68 65 6c 6c 6f", rcl, sizeof(rcl));
    CF_ASSERT_OK(cf_dstats_update(&s, 101, (cf_slice){rcl, n}, &err), &err);
    n = cf_test_unhex("02", rcl, sizeof(rcl));
    CF_ASSERT_OK(cf_dstats_update(&s, 101, (cf_slice){rcl, n}, &err), &err);
    n = cf_test_unhex("03 0a 05 01 00 00 00 0b 02 78", rcl, sizeof(rcl));
    CF_ASSERT_OK(cf_dstats_update(&s, 102, (cf_slice){rcl, n}, &err), &err);
    n = cf_test_unhex("01 0b 04 61 62 63 0a 05 ff ff ff ff", rcl, sizeof(rcl));
    CF_ASSERT_OK(cf_dstats_update(&s, 100, (cf_slice){rcl, n}, &err), &err);
    n = cf_test_unhex("ff", rcl, sizeof(rcl));
    CF_ASSERT_STATUS(cf_dstats_update(&s, 100, (cf_slice){rcl, n}, &err), CF_ECORRUPT, &err);
    cf_buf pb;
    cf_buf_init(&pb);
    CF_ASSERT_OK(cf_dstats_serialize(&s, &pb, &err), &err);
    uint8_t want[64];
    size_t wn = cf_test_unhex(
        "08011964000000000000002166000000000000002a04080b10042a04080a10033001", want, sizeof(want));
    CF_ASSERT_BYTES(want, wn, pb.data, pb.len);
    cf_delta_stats ds;
    cf_delta_col_stat *cols;
    CF_ASSERT_OK(cf_dstats_parse(pb.data, pb.len, &ds, &cols, &err), &err);
    assert_int_equal(ds.delete_count, 1);
    assert_int_equal(ds.reinsert_count, 1);
    assert_true(ds.min_ts == 100 && ds.max_ts == 102);
    assert_int_equal(ds.ncols, 2);
    assert_int_equal(cols[0].col_id, 11);
    assert_int_equal(cols[0].update_count, 4);
    cf_free(cols);
    /* Truncations inside a field, and prefixes that lack a required field
     * (the first 20 bytes hold delete_count, min and max), do not parse. */
    for (size_t i = 0; i < 20; i++)
        CF_ASSERT_STATUS(cf_dstats_parse(pb.data, i, &ds, &cols, &err), CF_ECORRUPT, &err);
    for (size_t i = 21; i < pb.len - 2; i++)
        if (i != 26 && i != 32)
            CF_ASSERT_STATUS(cf_dstats_parse(pb.data, i, &ds, &cols, &err), CF_ECORRUPT, &err);
    cf_buf_dispose(&pb);
    cf_dstats_dispose(&s);

    /* Up to 13 ids that differ mod 13: reverse order of first appearance;
     * the 14th insert grows the table to 29 buckets and reorders. */
    cf_dstats_init(&s);
    for (uint32_t id = 1; id <= 3; id++)
        CF_ASSERT_OK(cf_dstats_incr(&s, id, 1, &err), &err);
    uint32_t ord[64];
    order_of(&s, ord, &n);
    assert_int_equal(n, 3);
    assert_true(ord[0] == 3 && ord[1] == 2 && ord[2] == 1);
    /* 14 collides with 1 (mod 13): goes just before it. */
    CF_ASSERT_OK(cf_dstats_incr(&s, 14, 1, &err), &err);
    order_of(&s, ord, &n);
    assert_true(n == 4 && ord[0] == 3 && ord[1] == 2 && ord[2] == 14 && ord[3] == 1);
    cf_dstats_dispose(&s);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rcl__spec_examples),      cmocka_unit_test(test_rcl__decode),
        cmocka_unit_test(test_rcl__bad_input),          cmocka_unit_test(test_rcl__validate),
        cmocka_unit_test(test_rcl__stats_order_and_pb),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

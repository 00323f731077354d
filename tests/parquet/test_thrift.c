/* The Thrift compact-protocol codec: exact bytes for every wire type, both
 * directions, and every way hostile bytes can be wrong (truncation at every
 * byte, unknown types, depth bombs, lying sizes, allocation limits). */
#include "test_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/thrift.h"
#include "util/alloc.h"

/* A struct with one field of every type, written by hand:
 *   1: i32 = -3            (delta 1, type 5)
 *   2: bool true           (delta 1, type 1)
 *   3: bool false          (delta 1, type 2)
 *   4: i8 = -1             (delta 1, type 3)
 *   5: i16 = 300           (delta 1, type 4)
 *   6: i64 = 1<<40         (delta 1, type 6)
 *   7: double 1.5          (delta 1, type 7)
 *   8: binary "hi"         (delta 1, type 8)
 *   9: list<i32> [1,2]     (delta 1, type 9; size 2, elem 5)
 *  10: set<binary> ["a"]   (delta 1, type 10)
 *  11: map<binary,bool> {"k": true} (type 11)
 *  12: struct { 1: i32 7 } (type 12)
 *  100: list<bool> [true,false] in long form id (delta 0, zigzag 100 = 200)
 *  stop */
static const char *ALL_TYPES_HEX = "15 05"                      /* 1: i32 -3 (zigzag 5) */
                                   "11"                         /* 2: true */
                                   "12"                         /* 3: false */
                                   "13 ff"                      /* 4: i8 -1 */
                                   "14 d8 04"                   /* 5: i16 300 (zigzag 600) */
                                   "16 80 80 80 80 80 40"       /* 6: i64 2^40 (zigzag 2^41) */
                                   "17 00 00 00 00 00 00 f8 3f" /* 7: 1.5 */
                                   "18 02 68 69"                /* 8: "hi" */
                                   "19 25 02 04"                /* 9: [1, 2] */
                                   "1a 18 01 61"                /* 10: {"a"} */
                                   "1b 01 81 01 6b 01"          /* 11: {"k": true} */
                                   "1c 15 0e 00"                /* 12: {1: 7} */
                                   "09 c8 01 21 01 02"          /* 100: [true, false] */
                                   "00";

static size_t all_types(uint8_t *b)
{
    return cf_test_unhex(ALL_TYPES_HEX, b, 128);
}

static void decode_all(const uint8_t *b, size_t n, cf_error *err)
{
    cf_thrift_reader r;
    cf_thrift_reader_init(&r, b, n, 0, "test", err);
    CF_ASSERT_OK(cf_thrift_struct_begin(&r), err);
    int16_t fid;
    uint8_t t;
    int seen = 0;
    for (;;) {
        CF_ASSERT_OK(cf_thrift_field_next(&r, &fid, &t), err);
        if (t == CF_TT_STOP)
            break;
        seen++;
        switch (fid) {
        case 1: {
            int32_t v;
            CF_ASSERT_OK(cf_thrift_read_i32(&r, t, &v), err);
            assert_int_equal(v, -3);
            break;
        }
        case 2:
        case 3: {
            bool v;
            CF_ASSERT_OK(cf_thrift_read_bool(&r, t, &v), err);
            assert_int_equal(v, fid == 2);
            break;
        }
        case 4:
        case 5:
        case 6: {
            int64_t v;
            CF_ASSERT_OK(cf_thrift_read_i64(&r, t, &v), err);
            assert_true(v == (fid == 4 ? -1 : fid == 5 ? 300 : (int64_t)1 << 40));
            break;
        }
        case 7: {
            double d;
            CF_ASSERT_OK(cf_thrift_read_double(&r, t, &d), err);
            assert_true(d == 1.5);
            break;
        }
        case 8: {
            cf_slice s;
            CF_ASSERT_OK(cf_thrift_read_binary(&r, t, &s), err);
            assert_int_equal(s.len, 2);
            assert_memory_equal(s.data, "hi", 2);
            break;
        }
        case 9: {
            uint8_t et;
            uint32_t n9;
            CF_ASSERT_OK(cf_thrift_list_begin(&r, t, &et, &n9), err);
            assert_int_equal(et, CF_TT_I32);
            assert_int_equal(n9, 2);
            for (uint32_t i = 0; i < n9; i++) {
                int32_t v;
                CF_ASSERT_OK(cf_thrift_read_i32(&r, et, &v), err);
                assert_int_equal(v, (int32_t)i + 1);
            }
            cf_thrift_list_end(&r);
            break;
        }
        case 11: {
            uint8_t kt, vt;
            uint32_t n11;
            CF_ASSERT_OK(cf_thrift_map_begin(&r, t, &kt, &vt, &n11), err);
            assert_int_equal(n11, 1);
            assert_int_equal(kt, CF_TT_BINARY);
            cf_slice k;
            bool v = false;
            CF_ASSERT_OK(cf_thrift_read_binary(&r, kt, &k), err);
            CF_ASSERT_OK(cf_thrift_read_bool_elem(&r, &v), err);
            assert_true(v);
            cf_thrift_list_end(&r);
            break;
        }
        case 100: {
            uint8_t et;
            uint32_t n100;
            CF_ASSERT_OK(cf_thrift_list_begin(&r, t, &et, &n100), err);
            assert_int_equal(n100, 2);
            bool a = false, c = true;
            CF_ASSERT_OK(cf_thrift_read_bool_elem(&r, &a), err);
            CF_ASSERT_OK(cf_thrift_read_bool_elem(&r, &c), err);
            assert_true(a && !c);
            cf_thrift_list_end(&r);
            break;
        }
        default: /* 10, 12: skipped as unknown */ CF_ASSERT_OK(cf_thrift_skip(&r, t), err);
        }
    }
    cf_thrift_struct_end(&r);
    assert_int_equal(seen, 13);
    assert_int_equal(cf_thrift_pos(&r), n);
    assert_int_equal(r.depth, 0);
    cf_thrift_reader_dispose(&r);
}

static void test_thrift__every_type_decodes(void **state)
{
    (void)state;
    uint8_t b[128];
    cf_error err;
    decode_all(b, all_types(b), &err);
}

static void test_thrift__skip_whole_struct(void **state)
{
    (void)state;
    uint8_t b[128];
    size_t n = all_types(b);
    cf_error err;
    cf_thrift_reader r;
    cf_thrift_reader_init(&r, b, n, 0, "test", &err);
    CF_ASSERT_OK(cf_thrift_skip(&r, CF_TT_STRUCT), &err);
    assert_int_equal(cf_thrift_pos(&r), n);
    cf_thrift_reader_dispose(&r);
}

/* The writer produces the same bytes as the hand-built vector. */
static void test_thrift__writer_matches_bytes(void **state)
{
    (void)state;
    uint8_t want[128];
    size_t wn = all_types(want);
    cf_buf out;
    cf_buf_init(&out);
    cf_thrift_writer w;
    cf_thrift_writer_init(&w, &out);
    cf_thrift_write_struct_begin(&w);
    cf_thrift_write_field_i32(&w, 1, -3);
    cf_thrift_write_field_bool(&w, 2, true);
    cf_thrift_write_field_bool(&w, 3, false);
    cf_thrift_write_field(&w, 4, CF_TT_I8);
    cf_thrift_write_i8(&w, -1);
    cf_thrift_write_field(&w, 5, CF_TT_I16);
    cf_thrift_write_i32(&w, 300);
    cf_thrift_write_field_i64(&w, 6, (int64_t)1 << 40);
    cf_thrift_write_field(&w, 7, CF_TT_DOUBLE);
    cf_thrift_write_double(&w, 1.5);
    cf_thrift_write_field_binary(&w, 8, "hi", 2);
    cf_thrift_write_field(&w, 9, CF_TT_LIST);
    cf_thrift_write_list_begin(&w, CF_TT_I32, 2);
    cf_thrift_write_i32(&w, 1);
    cf_thrift_write_i32(&w, 2);
    cf_thrift_write_field(&w, 10, CF_TT_SET);
    cf_thrift_write_list_begin(&w, CF_TT_BINARY, 1);
    cf_thrift_write_binary(&w, "a", 1);
    cf_thrift_write_field(&w, 11, CF_TT_MAP);
    cf_thrift_write_map_begin(&w, CF_TT_BINARY, CF_TT_BOOL_TRUE, 1);
    cf_thrift_write_binary(&w, "k", 1);
    cf_thrift_write_bool(&w, true);
    cf_thrift_write_field(&w, 12, CF_TT_STRUCT);
    cf_thrift_write_struct_begin(&w);
    cf_thrift_write_field_i32(&w, 1, 7);
    cf_thrift_write_struct_end(&w);
    cf_thrift_write_field(&w, 100, CF_TT_LIST);
    cf_thrift_write_list_begin(&w, CF_TT_BOOL_TRUE, 2);
    cf_thrift_write_bool(&w, true);
    cf_thrift_write_bool(&w, false);
    cf_thrift_write_struct_end(&w);
    CF_ASSERT_OK(cf_thrift_writer_status(&w), NULL);
    CF_ASSERT_BYTES(out.data, out.len, want, wn);
    cf_buf_dispose(&out);
}

/* Long-form field ids, decreasing ids, a long list (size nibble 15) and
 * extreme integers round-trip through writer and reader. */
static void test_thrift__round_trip_long_forms(void **state)
{
    (void)state;
    cf_buf out;
    cf_buf_init(&out);
    cf_thrift_writer w;
    cf_thrift_writer_init(&w, &out);
    cf_thrift_write_struct_begin(&w);
    cf_thrift_write_field_i64(&w, 20, INT64_MIN);
    cf_thrift_write_field_i64(&w, 3, INT64_MAX);  /* decreasing: long form */
    cf_thrift_write_field_i32(&w, -5, INT32_MIN); /* negative id */
    cf_thrift_write_field(&w, 32767, CF_TT_LIST);
    cf_thrift_write_list_begin(&w, CF_TT_I64, 40);
    for (int i = 0; i < 40; i++)
        cf_thrift_write_i64(&w, -i);
    cf_thrift_write_struct_end(&w);
    CF_ASSERT_OK(cf_thrift_writer_status(&w), NULL);

    cf_error err;
    cf_thrift_reader r;
    cf_thrift_reader_init(&r, out.data, out.len, 0, "test", &err);
    CF_ASSERT_OK(cf_thrift_struct_begin(&r), &err);
    int16_t fid;
    uint8_t t;
    int64_t v;
    int32_t v32;
    CF_ASSERT_OK(cf_thrift_field_next(&r, &fid, &t), &err);
    assert_int_equal(fid, 20);
    CF_ASSERT_OK(cf_thrift_read_i64(&r, t, &v), &err);
    assert_true(v == INT64_MIN);
    CF_ASSERT_OK(cf_thrift_field_next(&r, &fid, &t), &err);
    assert_int_equal(fid, 3);
    CF_ASSERT_OK(cf_thrift_read_i64(&r, t, &v), &err);
    assert_true(v == INT64_MAX);
    CF_ASSERT_OK(cf_thrift_field_next(&r, &fid, &t), &err);
    assert_int_equal(fid, -5);
    CF_ASSERT_OK(cf_thrift_read_i32(&r, t, &v32), &err);
    assert_true(v32 == INT32_MIN);
    CF_ASSERT_OK(cf_thrift_field_next(&r, &fid, &t), &err);
    assert_int_equal(fid, 32767);
    uint8_t et;
    uint32_t n;
    CF_ASSERT_OK(cf_thrift_list_begin(&r, t, &et, &n), &err);
    assert_int_equal(n, 40);
    for (uint32_t i = 0; i < n; i++) {
        CF_ASSERT_OK(cf_thrift_read_i64(&r, et, &v), &err);
        assert_true(v == -(int64_t)i);
    }
    cf_thrift_list_end(&r);
    CF_ASSERT_OK(cf_thrift_field_next(&r, &fid, &t), &err);
    assert_int_equal(t, CF_TT_STOP);
    cf_thrift_struct_end(&r);
    assert_int_equal(cf_thrift_pos(&r), out.len);
    cf_thrift_reader_dispose(&r);
    cf_buf_dispose(&out);
}

/* Every proper prefix of the vector fails cleanly, both when decoded field by
 * field and when skipped, and never reads past the prefix (ASan sees a heap
 * copy of exactly that many bytes). */
static void test_thrift__truncation_at_every_byte(void **state)
{
    (void)state;
    uint8_t b[128];
    size_t n = all_types(b);
    for (size_t cut = 0; cut < n; cut++) {
        uint8_t *c = malloc(cut ? cut : 1);
        memcpy(c, b, cut);
        cf_error err;
        cf_thrift_reader r;
        cf_thrift_reader_init(&r, c, cut, 1000, "test", &err);
        cf_status st = cf_thrift_skip(&r, CF_TT_STRUCT);
        assert_int_equal(st, CF_ECORRUPT);
        assert_non_null(strstr(err.msg, "test at offset 10"));
        cf_thrift_reader_dispose(&r);
        free(c);
    }
}

static cf_status skip_hex(const char *hex, uint8_t type, cf_error *err)
{
    uint8_t b[256];
    size_t n = cf_test_unhex(hex, b, sizeof(b));
    cf_thrift_reader r;
    cf_thrift_reader_init(&r, b, n, 0, "test", err);
    cf_status st = cf_thrift_skip(&r, type);
    cf_thrift_reader_dispose(&r);
    return st;
}

static void expect_corrupt(const char *hex, uint8_t type, const char *msg)
{
    cf_error err;
    CF_ASSERT_STATUS(skip_hex(hex, type, &err), CF_ECORRUPT, &err);
    if (!strstr(err.msg, msg))
        fail_msg("'%s': message '%s' lacks '%s'", hex, err.msg, msg);
}

/* Corrupt input to skip, and a piece of the message that must name it. */
static const struct corrupt_case {
    const char *hex;
    uint8_t type;
    const char *msg;
} corrupt_cases[] = {
    /* unknown types */
    {"0e 00", CF_TT_STRUCT, "field of unknown type 14"},
    {"0f 00", CF_TT_STRUCT, "field of unknown type 15"},
    {"10", CF_TT_STRUCT, "stop byte 0x10"},
    {"0e", CF_TT_LIST, "unknown element type 14"},
    {"10", CF_TT_LIST, "unknown element type 0"},
    {"01 f1", CF_TT_MAP, "map of unknown types 15/1"},
    {"00", 14, "cannot skip a value of type 14"},
    {"12 03", CF_TT_LIST, "bool byte 0x03"},
    /* varints and field ids out of range */
    {"16 ff ff ff ff ff ff ff ff ff 02 00", CF_TT_STRUCT, "overflows 64 bits"},
    {"16 ff ff ff ff ff ff ff ff ff 81 00", CF_TT_STRUCT, "overflows 64 bits"},
    {"05 80 80 04 00 00", CF_TT_STRUCT, "field id 32768 out of range"},
    /* Deltas that walk a field id past 32767: 0x05 long form id 32766 (zigzag
     * 65532 = fc ff 03), i32 0, then delta 15. */
    {"05 fc ff 03 00 f5 00 00", CF_TT_STRUCT, "field id 32781 out of range"},
    /* sizes claimed beyond the bytes left; first a list<i32> of 2^32-1
     * elements, 4 bytes later */
    {"f5 ff ff ff ff 0f 00 00 00 00", CF_TT_LIST, "4294967295 elements claimed"},
    {"f5 ff ff ff ff ff ff ff ff 01", CF_TT_LIST, "elements claimed"},
    {"35 00 00", CF_TT_LIST, "3 elements claimed, only 2 bytes left"},
    {"ff ff ff ff 0f 55 00", CF_TT_MAP, "map entries claimed"},
    {"02 55 00 00 00", CF_TT_MAP, "2 map entries claimed, only 3 bytes left"},
    {"ff ff ff ff 0f 61", CF_TT_BINARY, "binary of 4294967295 bytes, only 1 left"},
    {"05 61 62 63 64", CF_TT_BINARY, "binary of 5 bytes, only 4 left"},
};

static void test_thrift__corrupt_named(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof corrupt_cases / sizeof corrupt_cases[0]; i++)
        expect_corrupt(corrupt_cases[i].hex, corrupt_cases[i].type, corrupt_cases[i].msg);
}

static void test_thrift__type_mismatch_named(void **state)
{
    (void)state;
    uint8_t b[] = {0x18, 0x01, 'x', 0x00}; /* 1: binary "x" */
    cf_error err;
    cf_thrift_reader r;
    cf_thrift_reader_init(&r, b, sizeof(b), 0, "footer", &err);
    CF_ASSERT_OK(cf_thrift_struct_begin(&r), &err);
    int16_t fid;
    uint8_t t;
    CF_ASSERT_OK(cf_thrift_field_next(&r, &fid, &t), &err);
    int32_t v;
    CF_ASSERT_STATUS(cf_thrift_read_i32(&r, t, &v), CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "expected an integer, found a binary"));
    bool bv;
    CF_ASSERT_STATUS(cf_thrift_read_bool(&r, t, &bv), CF_ECORRUPT, &err);
    double d;
    CF_ASSERT_STATUS(cf_thrift_read_double(&r, t, &d), CF_ECORRUPT, &err);
    uint8_t et;
    uint32_t n;
    CF_ASSERT_STATUS(cf_thrift_list_begin(&r, t, &et, &n), CF_ECORRUPT, &err);
    CF_ASSERT_STATUS(cf_thrift_map_begin(&r, t, &et, &et, &n), CF_ECORRUPT, &err);
    cf_thrift_reader_dispose(&r);

    /* An i64 value where an i32 field is declared, and an i32 out of range. */
    uint8_t c[] = {0x16, 0x02, 0x00};
    cf_thrift_reader_init(&r, c, sizeof(c), 0, "footer", &err);
    CF_ASSERT_OK(cf_thrift_struct_begin(&r), &err);
    CF_ASSERT_OK(cf_thrift_field_next(&r, &fid, &t), &err);
    CF_ASSERT_STATUS(cf_thrift_read_i32(&r, t, &v), CF_ECORRUPT, &err);
    cf_thrift_reader_dispose(&r);
    uint8_t d5[] = {0x80, 0x80, 0x80, 0x80, 0x10}; /* zigzag 2^32 = 2^31 */
    cf_thrift_reader_init(&r, d5, sizeof(d5), 0, "footer", &err);
    CF_ASSERT_STATUS(cf_thrift_read_i32(&r, CF_TT_I32, &v), CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "out of range"));
    cf_thrift_reader_dispose(&r);
}

static void test_thrift__exact_sizes(void **state)
{
    (void)state;
    /* Exactly as many bytes as claimed is fine. */
    cf_error err;
    CF_ASSERT_OK(skip_hex("04 61 62 63 64", CF_TT_BINARY, &err), &err);
    CF_ASSERT_OK(skip_hex("25 00 00", CF_TT_LIST, &err), &err);
    CF_ASSERT_OK(skip_hex("00", CF_TT_MAP, &err), &err);
    CF_ASSERT_OK(
        skip_hex("0d 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 00 00", CF_TT_STRUCT, &err),
        &err);
}

/* Nesting: lists of lists, structs in structs, maps of maps: each refused past
 * the depth limit without recursion beyond it. */
static void test_thrift__depth_bomb(void **state)
{
    (void)state;
    enum { N = 100000 };
    uint8_t *b = malloc(N);
    cf_error err;
    cf_thrift_reader r;
    /* list<list<list<...>>>: each level 0x19 = 1 element of type list. */
    memset(b, 0x19, N);
    cf_thrift_reader_init(&r, b, N, 0, "test", &err);
    CF_ASSERT_STATUS(cf_thrift_skip(&r, CF_TT_LIST), CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "nesting deeper than 64"));
    cf_thrift_reader_dispose(&r);
    /* struct { 1: struct { 1: struct ... } } */
    memset(b, 0x1c, N);
    cf_thrift_reader_init(&r, b, N, 0, "test", &err);
    CF_ASSERT_STATUS(cf_thrift_skip(&r, CF_TT_STRUCT), CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "nesting deeper than 64"));
    cf_thrift_reader_dispose(&r);
    /* map<i8, map<i8, ...>>: 01 3b 00 repeated. */
    for (size_t i = 0; i + 3 <= N; i += 3) {
        b[i] = 0x01;
        b[i + 1] = 0x3b;
        b[i + 2] = 0x00;
    }
    cf_thrift_reader_init(&r, b, N - N % 3, 0, "test", &err);
    CF_ASSERT_STATUS(cf_thrift_skip(&r, CF_TT_MAP), CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "nesting deeper than 64"));
    cf_thrift_reader_dispose(&r);
    /* 63 nested structs inside the outer one are fine. */
    size_t k = 0;
    for (int i = 0; i < 63; i++)
        b[k++] = 0x1c;
    for (int i = 0; i < 64; i++)
        b[k++] = 0x00;
    cf_thrift_reader_init(&r, b, k, 0, "test", &err);
    CF_ASSERT_OK(cf_thrift_skip(&r, CF_TT_STRUCT), &err);
    assert_int_equal(cf_thrift_pos(&r), k);
    cf_thrift_reader_dispose(&r);
    free(b);
}

/* The arena gives out at most the limit, so a decoder cannot be made to
 * allocate beyond what the input justifies. */
static void test_thrift__allocation_bounded(void **state)
{
    (void)state;
    uint8_t b[16] = {0};
    cf_error err;
    cf_thrift_reader r;
    cf_thrift_reader_init(&r, b, sizeof(b), 0, "test", &err);
    assert_int_equal(r.alloc_limit, cf_thrift_alloc_bound(16));
    void *p;
    CF_ASSERT_OK(cf_thrift_alloc(&r, &p, 100, 100), &err);
    assert_int_equal(((uint8_t *)p)[9999], 0);
    CF_ASSERT_STATUS(cf_thrift_alloc(&r, &p, SIZE_MAX / 2, 4), CF_ECORRUPT, &err);
    CF_ASSERT_STATUS(cf_thrift_alloc(&r, &p, r.alloc_limit, 1), CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "more memory"));
    /* Many small allocations add up to the limit and no further. */
    size_t got = 0;
    while (cf_thrift_alloc(&r, &p, 1, 4096) == CF_OK)
        got++;
    assert_true(got * 4096 <= r.alloc_limit);
    assert_true(got > 0);
    cf_thrift_reader_dispose(&r);

    /* Allocation failure is ENOMEM, not corruption. */
    cf_thrift_reader_init(&r, b, sizeof(b), 0, "test", &err);
    cf_alloc_fail_after(1);
    CF_ASSERT_STATUS(cf_thrift_alloc(&r, &p, 1, 8), CF_ENOMEM, &err);
    cf_alloc_fail_after(0);
    /* Taking the arena hands it over. */
    CF_ASSERT_OK(cf_thrift_alloc(&r, &p, 1, 8), &err);
    cf_arena a = cf_thrift_reader_take_arena(&r);
    assert_non_null(a.head);
    assert_null(r.arena.head);
    cf_thrift_reader_dispose(&r);
    cf_arena_dispose(&a);
}

static void test_thrift__bool_elements(void **state)
{
    (void)state;
    /* Writers disagree on false in lists: 2 (Java) or 0. Both read as false. */
    uint8_t b[] = {0x01, 0x00, 0x02, 0x03};
    cf_error err;
    cf_thrift_reader r;
    cf_thrift_reader_init(&r, b, sizeof(b), 0, "test", &err);
    bool v;
    CF_ASSERT_OK(cf_thrift_read_bool_elem(&r, &v), &err);
    assert_true(v);
    CF_ASSERT_OK(cf_thrift_read_bool_elem(&r, &v), &err);
    assert_false(v);
    CF_ASSERT_OK(cf_thrift_read_bool_elem(&r, &v), &err);
    assert_false(v);
    CF_ASSERT_STATUS(cf_thrift_read_bool_elem(&r, &v), CF_ECORRUPT, &err);
    cf_thrift_reader_dispose(&r);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thrift__every_type_decodes),
        cmocka_unit_test(test_thrift__skip_whole_struct),
        cmocka_unit_test(test_thrift__writer_matches_bytes),
        cmocka_unit_test(test_thrift__round_trip_long_forms),
        cmocka_unit_test(test_thrift__truncation_at_every_byte),
        cmocka_unit_test(test_thrift__corrupt_named),
        cmocka_unit_test(test_thrift__type_mismatch_named),
        cmocka_unit_test(test_thrift__exact_sizes),
        cmocka_unit_test(test_thrift__depth_bomb),
        cmocka_unit_test(test_thrift__allocation_bounded),
        cmocka_unit_test(test_thrift__bool_elements),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

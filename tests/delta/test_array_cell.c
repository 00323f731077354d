/* Array cells inside RowChangeLists (format §12.3, SPEC-NOTES D.2): the FlatBuffers `Content`
 * bytes, round trips, and hostile input.
 *
 * How the expected bytes were checked: each hex string below was produced once,
 * during development, by the FlatBuffers C++ builder (Debian's libflatbuffers-dev
 * and flatc 2.0.8, from a schema written for the check with the same fields,
 * field ids and union order as Kudu's array1d.fbs), building each cell in the
 * order Kudu's serdes code does: the validity vector (only when some element is
 * NULL) first, then the values (strings / per-element UInt8Array tables before
 * their offset vector), then the typed table, then Content, then Finish. NULL
 * elements were given the value 0 / "" as Kudu's builder gives them. flatc is not
 * needed to run this test. Builder steps that bear on these bytes (PreAlign
 * skipping empty lengths, vtable de-duplication, Finish aligning to the largest
 * alignment) read the same in flatbuffers 25.2.10, the version Kudu builds.
 */
#include <string.h>

#include "test_common.h"

#include <cfile/delta.h>

#include "util/alloc.h"

typedef struct kcase {
    const char *name;
    cf_type type;
    size_t count;
    const void *values;
    const char *nonnull; /* '1'/'0' per element, NULL = all present */
    const char *hex;
} kcase;

static const int32_t v_i32[] = {1, 2, 99};
static const int64_t v_i64[] = {1, -1};
static const int8_t v_i8[] = {-1, 5};
static const uint8_t v_bool[] = {1, 0};
static const uint8_t v_u8[] = {200};
static const int16_t v_i16[] = {7, 8};
static const uint16_t v_u16[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
static const uint32_t v_u32[] = {0xffffffffu};
static const uint64_t v_u64[] = {5, 3};
static const float v_f32[] = {1.5f};
static const double v_f64[] = {-2.0, 7.0};
static const cf_slice v_str[] = {{(const uint8_t *)"a", 1},
                                 {(const uint8_t *)"", 0},
                                 {(const uint8_t *)"zz", 2},
                                 {(const uint8_t *)"hello", 5}};
static const cf_slice v_abc[] = {{(const uint8_t *)"abc", 3}};
static const cf_slice v_bin[] = {
    {(const uint8_t *)"\x01\x02", 2}, {(const uint8_t *)"q", 1}, {(const uint8_t *)"", 0}};
static const cf_slice v_ff[] = {{(const uint8_t *)"\xff", 1}};

static const kcase kcases[] = {
    {"int32 [1,2,NULL]", CF_TYPE_INT32, 3, v_i32, "110",
     "10 00 00 00 00 00 0a 00 12 00 07 00 08 00 0c 00 0a 00 00 00 00 00 00 05 "
     "10 00 00 00 24 00 00 00 00 00 06 00 08 00 04 00 06 00 00 00 04 00 00 00 "
     "03 00 00 00 01 00 00 00 02 00 00 00 00 00 00 00 01 00 00 00 03 00 00 00"},
    {"int32 []", CF_TYPE_INT32, 0, NULL, NULL,
     "0c 00 00 00 08 00 0e 00 07 00 08 00 08 00 00 00 00 00 00 05 0c 00 00 00 "
     "00 00 06 00 08 00 04 00 06 00 00 00 04 00 00 00 00 00 00 00"},
    {"int64 [1,-1]", CF_TYPE_INT64, 2, v_i64, NULL,
     "10 00 00 00 00 00 00 00 08 00 0e 00 07 00 08 00 08 00 00 00 00 00 00 07 "
     "0c 00 00 00 00 00 06 00 08 00 04 00 06 00 00 00 04 00 00 00 02 00 00 00 "
     "01 00 00 00 00 00 00 00 ff ff ff ff ff ff ff ff"},
    {"int8 [-1,5]", CF_TYPE_INT8, 2, v_i8, NULL,
     "0c 00 00 00 08 00 0e 00 07 00 08 00 08 00 00 00 00 00 00 01 0c 00 00 00 "
     "00 00 06 00 08 00 04 00 06 00 00 00 04 00 00 00 02 00 00 00 ff 05 00 00"},
    {"bool [true,false]", CF_TYPE_BOOL, 2, v_bool, NULL,
     "0c 00 00 00 08 00 0e 00 07 00 08 00 08 00 00 00 00 00 00 02 0c 00 00 00 "
     "00 00 06 00 08 00 04 00 06 00 00 00 04 00 00 00 02 00 00 00 01 00 00 00"},
    {"uint8 [200]", CF_TYPE_UINT8, 1, v_u8, "1",
     "0c 00 00 00 08 00 0e 00 07 00 08 00 08 00 00 00 00 00 00 02 0c 00 00 00 "
     "00 00 06 00 08 00 04 00 06 00 00 00 04 00 00 00 01 00 00 00 c8 00 00 00"},
    {"int16 [NULL,NULL]", CF_TYPE_INT16, 2, v_i16, "00",
     "10 00 00 00 00 00 0a 00 12 00 07 00 08 00 0c 00 0a 00 00 00 00 00 00 03 "
     "10 00 00 00 1c 00 00 00 00 00 06 00 08 00 04 00 06 00 00 00 04 00 00 00 "
     "02 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00"},
    {"uint16 [1..8,NULL]", CF_TYPE_UINT16, 9, v_u16, "111111110",
     "10 00 00 00 00 00 0a 00 12 00 07 00 08 00 0c 00 0a 00 00 00 00 00 00 04 "
     "10 00 00 00 2c 00 00 00 00 00 06 00 08 00 04 00 06 00 00 00 04 00 00 00 "
     "09 00 00 00 01 00 02 00 03 00 04 00 05 00 06 00 07 00 08 00 00 00 00 00 "
     "02 00 00 00 ff 00 00 00"},
    {"uint32 [max]", CF_TYPE_UINT32, 1, v_u32, NULL,
     "0c 00 00 00 08 00 0e 00 07 00 08 00 08 00 00 00 00 00 00 06 0c 00 00 00 "
     "00 00 06 00 08 00 04 00 06 00 00 00 04 00 00 00 01 00 00 00 ff ff ff ff"},
    {"uint64 [NULL,3]", CF_TYPE_UINT64, 2, v_u64, "01",
     "14 00 00 00 00 00 00 00 00 00 0a 00 12 00 07 00 08 00 0c 00 0a 00 00 00 "
     "00 00 00 08 10 00 00 00 28 00 00 00 00 00 06 00 08 00 04 00 06 00 00 00 "
     "04 00 00 00 02 00 00 00 00 00 00 00 00 00 00 00 03 00 00 00 00 00 00 00 "
     "01 00 00 00 02 00 00 00"},
    {"float [1.5]", CF_TYPE_FLOAT, 1, v_f32, NULL,
     "0c 00 00 00 08 00 0e 00 07 00 08 00 08 00 00 00 00 00 00 09 0c 00 00 00 "
     "00 00 06 00 08 00 04 00 06 00 00 00 04 00 00 00 01 00 00 00 00 00 c0 3f"},
    {"double [-2,NULL]", CF_TYPE_DOUBLE, 2, v_f64, "10",
     "14 00 00 00 00 00 00 00 00 00 0a 00 12 00 07 00 08 00 0c 00 0a 00 00 00 "
     "00 00 00 0a 10 00 00 00 28 00 00 00 00 00 06 00 08 00 04 00 06 00 00 00 "
     "04 00 00 00 02 00 00 00 00 00 00 00 00 00 00 c0 00 00 00 00 00 00 00 00 "
     "01 00 00 00 01 00 00 00"},
    {"unixtime []", CF_TYPE_UNIXTIME_MICROS, 0, NULL, NULL,
     "0c 00 00 00 08 00 0e 00 07 00 08 00 08 00 00 00 00 00 00 07 0c 00 00 00 "
     "00 00 06 00 08 00 04 00 06 00 00 00 04 00 00 00 00 00 00 00"},
    {"string [a,'',NULL,hello]", CF_TYPE_STRING, 4, v_str, "1101",
     "10 00 00 00 00 00 0a 00 12 00 07 00 08 00 0c 00 0a 00 00 00 00 00 00 0b "
     "10 00 00 00 4c 00 00 00 00 00 06 00 08 00 04 00 06 00 00 00 04 00 00 00 "
     "04 00 00 00 2c 00 00 00 20 00 00 00 14 00 00 00 04 00 00 00 05 00 00 00 "
     "68 65 6c 6c 6f 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 "
     "01 00 00 00 61 00 00 00 01 00 00 00 0b 00 00 00"},
    {"varchar []", CF_TYPE_VARCHAR, 0, NULL, NULL,
     "0c 00 00 00 08 00 0e 00 07 00 08 00 08 00 00 00 00 00 00 0b 0c 00 00 00 "
     "00 00 06 00 08 00 04 00 06 00 00 00 04 00 00 00 00 00 00 00"},
    {"string [abc]", CF_TYPE_STRING, 1, v_abc, NULL,
     "0c 00 00 00 08 00 0e 00 07 00 08 00 08 00 00 00 00 00 00 0b 0c 00 00 00 "
     "00 00 06 00 08 00 04 00 06 00 00 00 04 00 00 00 01 00 00 00 04 00 00 00 "
     "03 00 00 00 61 62 63 00"},
    {"binary [0102,NULL,'']", CF_TYPE_BINARY, 3, v_bin, "101",
     "10 00 00 00 00 00 0a 00 10 00 07 00 08 00 0c 00 0a 00 00 00 00 00 00 0c "
     "08 00 00 00 4c 00 00 00 ce ff ff ff 04 00 00 00 03 00 00 00 2c 00 00 00 "
     "14 00 00 00 04 00 00 00 e6 ff ff ff 04 00 00 00 00 00 00 00 f2 ff ff ff "
     "04 00 00 00 00 00 00 00 00 00 06 00 08 00 04 00 06 00 00 00 04 00 00 00 "
     "02 00 00 00 01 02 00 00 01 00 00 00 05 00 00 00"},
    {"binary []", CF_TYPE_BINARY, 0, NULL, NULL,
     "0c 00 00 00 08 00 0e 00 07 00 08 00 08 00 00 00 00 00 00 0c 0c 00 00 00 "
     "00 00 06 00 08 00 04 00 06 00 00 00 04 00 00 00 00 00 00 00"},
    {"binary [ff]", CF_TYPE_BINARY, 1, v_ff, NULL,
     "0c 00 00 00 08 00 0c 00 07 00 08 00 08 00 00 00 00 00 00 0c 04 00 00 00 "
     "ee ff ff ff 04 00 00 00 01 00 00 00 0c 00 00 00 00 00 06 00 08 00 04 00 "
     "06 00 00 00 04 00 00 00 01 00 00 00 ff 00 00 00"},
};

static void bits_of(const char *s, size_t n, uint8_t *bm)
{
    memset(bm, 0, (n + 7) / 8 + 1);
    for (size_t i = 0; i < n; i++)
        if (s[i] == '1')
            bm[i / 8] |= (uint8_t)(1u << (i % 8));
}

static size_t encode(uint8_t *dst, size_t cap, const cf_array_cell *c)
{
    cf_error err;
    size_t len = 0;
    CF_ASSERT_OK(cf_array_cell_encode(dst, cap, &len, c, &err), &err);
    assert_true(len <= cf_array_cell_encoded_max(c));
    return len;
}

/* Decode `bytes` and check it reads back as cell `c`. */
static void check_decodes_to(cf_slice bytes, const cf_array_cell *c)
{
    cf_error err;
    cf_array_cell_view v;
    CF_ASSERT_OK(cf_array_cell_decode(&v, bytes, c->type, &err), &err);
    assert_int_equal(v.count, c->count);
    size_t width = cf_type_size(c->type);
    for (size_t i = 0; i < c->count; i++) {
        bool null = c->nonnull && !((c->nonnull[i / 8] >> (i % 8)) & 1);
        assert_int_equal(cf_array_cell_is_null(&v, i), null);
        uint8_t got[16];
        cf_array_cell_get(&v, i, got);
        if (cf_type_is_binary(c->type)) {
            cf_slice s, want = null ? (cf_slice){NULL, 0} : ((const cf_slice *)c->values)[i];
            memcpy(&s, got, sizeof(s));
            assert_int_equal(s.len, want.len);
            if (s.len)
                assert_memory_equal(s.data, want.data, s.len);
        } else if (null) {
            uint8_t zero[16] = {0};
            assert_memory_equal(got, zero, width); /* NULL slots are written as zeros */
        } else {
            assert_memory_equal(got, (const uint8_t *)c->values + i * width, width);
        }
    }
}

static void test_array_cell__kudu_bytes(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof(kcases) / sizeof(kcases[0]); k++) {
        const kcase *kc = &kcases[k];
        uint8_t bm[8];
        if (kc->nonnull)
            bits_of(kc->nonnull, kc->count, bm);
        cf_array_cell c = {kc->type, kc->count, kc->values, kc->nonnull ? bm : NULL};
        uint8_t want[256], got[512];
        size_t wn = cf_test_unhex(kc->hex, want, sizeof(want));
        print_message("%s\n", kc->name);
        size_t n = encode(got, sizeof(got), &c);
        CF_ASSERT_BYTES(want, wn, got, n);
        check_decodes_to((cf_slice){want, wn}, &c);
    }
}

/* Every element type a cell can hold, random lengths and NULL patterns,
 * including empty arrays, all-NULL arrays and validity present/absent. */
static void test_array_cell__round_trips(void **state)
{
    (void)state;
    static const cf_type types[] = {
        CF_TYPE_INT8,      CF_TYPE_UINT8,     CF_TYPE_BOOL,
        CF_TYPE_INT16,     CF_TYPE_UINT16,    CF_TYPE_INT32,
        CF_TYPE_UINT32,    CF_TYPE_INT64,     CF_TYPE_UINT64,
        CF_TYPE_FLOAT,     CF_TYPE_DOUBLE,    CF_TYPE_DATE,
        CF_TYPE_DECIMAL32, CF_TYPE_DECIMAL64, CF_TYPE_UNIXTIME_MICROS,
        CF_TYPE_STRING,    CF_TYPE_VARCHAR,   CF_TYPE_BINARY,
    };
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(9));
    enum { MAXN = 300 };
    static uint8_t vals[MAXN * 16], bytes[MAXN * 8], bm[MAXN / 8 + 1];
    static cf_slice sl[MAXN];
    static uint8_t out[MAXN * 64 + 256];
    for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
        for (int round = 0; round < 40; round++) {
            size_t n = round == 0 ? 0 : (size_t)cf_rng_below(&rng, round < 30 ? 20 : MAXN);
            int mode = round % 4; /* 0 no bitmap, 1 all set, 2 random, 3 all NULL */
            for (size_t i = 0; i < sizeof(bm); i++)
                bm[i] = mode == 1 ? 0xff : mode == 3 ? 0 : (uint8_t)cf_rng_next(&rng);
            size_t width = cf_type_size(types[t]);
            for (size_t i = 0; i < n * width; i++)
                vals[i] = (uint8_t)cf_rng_next(&rng);
            if (types[t] == CF_TYPE_BOOL)
                for (size_t i = 0; i < n; i++)
                    vals[i] &= 1;
            if (cf_type_is_binary(types[t])) {
                for (size_t i = 0; i < n; i++) {
                    size_t l = (size_t)cf_rng_below(&rng, 9);
                    for (size_t j = 0; j < l; j++) /* no NULs: valid as strings */
                        bytes[i * 8 + j] = (uint8_t)(1 + cf_rng_below(&rng, 255));
                    sl[i] = (cf_slice){bytes + i * 8, l};
                }
            }
            /* zero the NULL slots so the values compare */
            for (size_t i = 0; mode != 0 && i < n; i++)
                if (!((bm[i / 8] >> (i % 8)) & 1) && !cf_type_is_binary(types[t]))
                    memset(vals + i * width, 0, width);
            cf_array_cell c = {types[t], n, cf_type_is_binary(types[t]) ? (void *)sl : vals,
                               mode == 0 ? NULL : bm};
            size_t len = encode(out, sizeof(out), &c);
            check_decodes_to((cf_slice){out, len}, &c);
            /* FlatBuffers pads the whole buffer to its largest alignment */
            assert_int_equal(len % 4, 0);
        }
    }
}

static void test_array_cell__limits(void **state)
{
    (void)state;
    cf_error err;
    uint8_t out[256];
    size_t len;
    int64_t v[2] = {1, 2};
    cf_array_cell c = {CF_TYPE_INT128, 1, v, NULL};
    CF_ASSERT_STATUS(cf_array_cell_encode(out, sizeof(out), &len, &c, &err), CF_ENOTSUP, &err);
    cf_array_cell_view view;
    CF_ASSERT_STATUS(cf_array_cell_decode(&view, (cf_slice){out, 4}, CF_TYPE_DECIMAL128, &err),
                     CF_ENOTSUP, &err);
    c = (cf_array_cell){CF_TYPE_INT8, 65536, v, NULL};
    CF_ASSERT_STATUS(cf_array_cell_encode(out, sizeof(out), &len, &c, &err), CF_EINVAL, &err);
    c = (cf_array_cell){CF_TYPE_INT64, 2, v, NULL};
    CF_ASSERT_STATUS(cf_array_cell_encode(out, 20, &len, &c, &err), CF_EBUFSIZE, &err);
    /* 0 bytes: an empty array, as Kudu reads it */
    CF_ASSERT_OK(cf_array_cell_decode(&view, (cf_slice){out, 0}, CF_TYPE_INT32, &err), &err);
    assert_int_equal(view.count, 0);
    /* a cell of one element type read as another */
    uint8_t want[128];
    size_t wn = cf_test_unhex(kcases[0].hex, want, sizeof(want));
    CF_ASSERT_STATUS(cf_array_cell_decode(&view, (cf_slice){want, wn}, CF_TYPE_INT64, &err),
                     CF_ECORRUPT, &err);
    /* DATE and DECIMAL32 share INT32's vector */
    CF_ASSERT_OK(cf_array_cell_decode(&view, (cf_slice){want, wn}, CF_TYPE_DATE, &err), &err);
    assert_int_equal(view.count, 3);
    /* the validity bitmap must be (count + 7) / 8 bytes: make it claim 2 */
    want[0x40] = 2; /* the validity vector's length in int32 [1,2,NULL] */
    CF_ASSERT_STATUS(cf_array_cell_decode(&view, (cf_slice){want, wn}, CF_TYPE_INT32, &err),
                     CF_ECORRUPT, &err);
}

/* Every truncation and every single-byte change of the Kudu-checked cells, and
 * random bytes, decode cleanly or fail cleanly; what decodes reads in bounds
 * (copied to an exact-size heap buffer so ASan sees any overrun). */
static void poke(const uint8_t *p, size_t n, cf_type type)
{
    uint8_t *copy = cf_malloc(n ? n : 1);
    assert_non_null(copy);
    if (n)
        memcpy(copy, p, n);
    cf_error err;
    cf_array_cell_view v;
    cf_status st = cf_array_cell_decode(&v, (cf_slice){copy, n}, type, &err);
    if (st == CF_OK) {
        for (size_t i = 0; i < v.count; i++) {
            uint8_t out[16];
            (void)cf_array_cell_is_null(&v, i);
            cf_array_cell_get(&v, i, out);
            if (cf_type_is_binary(type)) {
                cf_slice s;
                memcpy(&s, out, sizeof(s));
                assert_true(s.len == 0 || (s.data >= copy && s.data + s.len <= copy + n));
            }
        }
    } else {
        assert_int_equal(st, CF_ECORRUPT);
    }
    cf_free(copy);
}

static void test_array_cell__hostile(void **state)
{
    (void)state;
    uint8_t buf[256];
    for (size_t k = 0; k < sizeof(kcases) / sizeof(kcases[0]); k++) {
        size_t n = cf_test_unhex(kcases[k].hex, buf, sizeof(buf));
        for (size_t cut = 0; cut < n; cut++)
            poke(buf, cut, kcases[k].type);
        for (size_t i = 0; i < n; i++) {
            uint8_t keep = buf[i];
            static const uint8_t repl[] = {0x00, 0x01, 0x04, 0x7f, 0x80, 0xfc, 0xff};
            for (size_t r = 0; r < sizeof(repl); r++) {
                buf[i] = repl[r];
                poke(buf, n, kcases[k].type);
            }
            buf[i] = keep;
        }
    }
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(99));
    for (int round = 0; round < 20000; round++) {
        size_t n = (size_t)cf_rng_below(&rng, 96);
        for (size_t i = 0; i < n; i++) /* small values make plausible offsets */
            buf[i] = (uint8_t)(cf_rng_below(&rng, 4) ? cf_rng_below(&rng, 48) : cf_rng_next(&rng));
        static const cf_type types[] = {CF_TYPE_INT32, CF_TYPE_STRING, CF_TYPE_BINARY,
                                        CF_TYPE_DOUBLE, CF_TYPE_BOOL};
        poke(buf, n, types[round % 5]);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_array_cell__kudu_bytes),
        cmocka_unit_test(test_array_cell__round_trips),
        cmocka_unit_test(test_array_cell__limits),
        cmocka_unit_test(test_array_cell__hostile),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

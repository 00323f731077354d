/* RLE block encodings for integers and BOOL (format §8.3, §8.4): the blocks of
 * §14.4 and §7.4 byte for byte, Kudu's fullness rule (§8.3, §10.2), randomized
 * round trips with seeks for every integer type, and corrupt blocks. */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "encoding/encodings.h"

#include "support_codec.h"
#include "util/endian.h"

typedef struct built {
    uint8_t *data;
    size_t len;
} built;

/* One block of n values added in one call. */
static built encode_block(const cf_encoder_ops *ops, cf_type t, const void *vals, size_t n,
                          uint32_t ord)
{
    cf_encoder *e = enc_create(ops, t, 1u << 20);
    assert_int_equal(e->ops->add(e, vals, n, false), n);
    assert_int_equal(e->ops->count(e), n);
    cf_slice s;
    cf_error err;
    CF_ASSERT_OK(e->ops->finish(e, ord, &s, &err), &err);
    built b = {malloc(s.len ? s.len : 1), s.len};
    memcpy(b.data, s.data, s.len);
    cf_encoder_free(e);
    return b;
}

static void expect_block(const cf_encoder_ops *ops, cf_type t, const void *vals, size_t n,
                         uint32_t ord, const char *hex)
{
    uint8_t want[512];
    size_t wl = cf_test_unhex(hex, want, sizeof want);
    built b = encode_block(ops, t, vals, n, ord);
    CF_ASSERT_BYTES(b.data, b.len, want, wl);
    free(b.data);
}

static void test_rle_enc__section_14_4(void **state)
{
    (void)state;
    const int32_t five[7] = {5, 5, 5, 5, 5, 5, 5};
    expect_block(&cf_enc_rle_ops, CF_TYPE_INT32, five, 7, 0, "07000000 00000000 0e 05000000");
    expect_block(&cf_enc_rle_ops, CF_TYPE_INT32, five, 7, 100, "07000000 64000000 0e 05000000");
    const int64_t five64[7] = {5, 5, 5, 5, 5, 5, 5};
    expect_block(&cf_enc_rle_ops, CF_TYPE_INT64, five64, 7, 100,
                 "07000000 64000000 0e 0500000000000000");
    const uint8_t tf[10] = {1, 1, 0, 1, 1, 1, 1, 1, 1, 1};
    expect_block(&cf_enc_rle_bool_ops, CF_TYPE_BOOL, tf, 10, 0, "0a000000 00000000 05 fb 03");
    /* any non-zero byte is true */
    const uint8_t tf2[10] = {1, 7, 0, 1, 0x80, 1, 1, 1, 1, 1};
    expect_block(&cf_enc_rle_bool_ops, CF_TYPE_BOOL, tf2, 10, 0, "0a000000 00000000 05 fb 03");
    /* empty blocks: the header only */
    expect_block(&cf_enc_rle_bool_ops, CF_TYPE_BOOL, tf, 0, 9, "00000000 09000000");
    expect_block(&cf_enc_rle_ops, CF_TYPE_UINT16, tf, 0, 0, "00000000 00000000");
}

/* §7.4 examples as whole blocks of the types named there. */
static void test_rle_enc__section_7_4(void **state)
{
    (void)state;
    const uint16_t u16[7] = {2, 0, 0, 2, 4, 1, 1};
    expect_block(&cf_enc_rle_ops, CF_TYPE_UINT16, u16, 7, 0,
                 "07000000 00000000 03 0200 0000 0000 0200 0400 0100 0100");
    uint16_t u300[300];
    for (int i = 0; i < 300; i++)
        u300[i] = 3;
    expect_block(&cf_enc_rle_ops, CF_TYPE_UINT16, u300, 300, 0, "2c010000 00000000 d8 04 0300");
    const int32_t i32[3] = {1, 2, 3};
    expect_block(&cf_enc_rle_ops, CF_TYPE_INT32, i32, 3, 0,
                 "03000000 00000000 03 01000000 02000000 03000000");
    int32_t neg[10];
    for (int i = 0; i < 10; i++)
        neg[i] = -1;
    expect_block(&cf_enc_rle_ops, CF_TYPE_INT32, neg, 10, 0, "0a000000 00000000 14 ffffffff");
    /* DATE is stored as INT32 */
    expect_block(&cf_enc_rle_ops, CF_TYPE_DATE, neg, 10, 0, "0a000000 00000000 14 ffffffff");
    uint8_t b[20];
    memset(b, 0, 8);
    memset(b + 8, 1, 12);
    expect_block(&cf_enc_rle_bool_ops, CF_TYPE_BOOL, b, 20, 0, "14000000 00000000 10 00 18 01");
}

/* format §8.3: emitted bytes only; buffered values and an open repeated run
 * do not count; tested after each add. */
static void test_rle_enc__fullness(void **state)
{
    (void)state;
    cf_error err;
    cf_slice s;
    /* Distinct INT32 values one per call, block size 512: the 16th literal
     * group (value 128) takes the block to 8 + 1 + 512 bytes. */
    cf_encoder *e = enc_create(&cf_enc_rle_ops, CF_TYPE_INT32, 512);
    int32_t v;
    size_t n = 0;
    for (;;) {
        v = (int32_t)(n * 7 + 1);
        e->ops->add(e, &v, 1, false);
        n++;
        if (e->ops->is_full(e))
            break;
        assert_true(n < 1000);
    }
    assert_int_equal(n, 128);
    CF_ASSERT_OK(e->ops->finish(e, 0, &s, &err), &err);
    assert_int_equal(s.len, 8 + 1 + 512);
    /* reset starts an empty block */
    e->ops->reset(e);
    assert_int_equal(e->ops->count(e), 0);
    assert_false(e->ops->is_full(e));
    CF_ASSERT_OK(e->ops->finish(e, 128, &s, &err), &err);
    assert_int_equal(s.len, 8);
    cf_encoder_free(e);

    /* All-true BOOL: the repeated run is never emitted before finish. */
    e = enc_create(&cf_enc_rle_bool_ops, CF_TYPE_BOOL, 512);
    uint8_t ones[1000];
    memset(ones, 1, sizeof ones);
    for (int i = 0; i < 1000; i++) {
        assert_int_equal(e->ops->add(e, ones, sizeof ones, false), sizeof ones);
        assert_false(e->ops->is_full(e));
    }
    CF_ASSERT_OK(e->ops->finish(e, 0, &s, &err), &err);
    uint8_t want[] = {0x40, 0x42, 0x0f, 0x00, 0, 0, 0, 0, 0x80, 0x89, 0x7a, 0x01};
    CF_ASSERT_BYTES(s.data, s.len, want, sizeof want);
    cf_encoder_free(e);

    /* One call takes everything even far past the block size (and force too). */
    e = enc_create(&cf_enc_rle_ops, CF_TYPE_INT64, 512);
    int64_t big[300];
    for (int i = 0; i < 300; i++)
        big[i] = i * 1000003;
    assert_int_equal(e->ops->add(e, big, 300, false), 300);
    assert_true(e->ops->is_full(e));
    assert_int_equal(e->ops->add(e, big, 10, true), 10);
    CF_ASSERT_OK(e->ops->finish(e, 0, &s, &err), &err);
    assert_int_equal(cf_load_le32(s.data), 310);
    cf_encoder_free(e);

    /* Alternating BOOL, one per call: a literal group is emitted every 8
     * values (2 bytes for the first, 1 byte after), so the block fills at
     * 8 + 1 + 504 bytes... and then the 64th group opens a new run. */
    e = enc_create(&cf_enc_rle_bool_ops, CF_TYPE_BOOL, 512);
    n = 0;
    for (;;) {
        uint8_t b = (uint8_t)(n & 1);
        e->ops->add(e, &b, 1, false);
        n++;
        if (e->ops->is_full(e))
            break;
    }
    /* 8 header + (1 + 63) + (1 + 440 groups...) : computed by hand below */
    /* after 63 groups: 8 + 1 + 63 = 72 bytes; each further run of 63 groups
     * costs 64 bytes; 513 bytes are first exceeded after group k where
     * 8 + k + ceil(k / 63) > 512  ->  k = 497 */
    assert_int_equal(n, 497 * 8);
    cf_encoder_free(e);
}

/* ---- randomized round trips ---------------------------------------------------------- */

static const cf_type int_types[] = {CF_TYPE_UINT8,           CF_TYPE_INT8,     CF_TYPE_UINT16,
                                    CF_TYPE_INT16,           CF_TYPE_UINT32,   CF_TYPE_INT32,
                                    CF_TYPE_UINT64,          CF_TYPE_INT64,    CF_TYPE_DATE,
                                    CF_TYPE_UNIXTIME_MICROS, CF_TYPE_DECIMAL64};

static bool type_signed(cf_type t)
{
    cf_type p = cf_type_physical(t);
    return p == CF_TYPE_INT8 || p == CF_TYPE_INT16 || p == CF_TYPE_INT32 || p == CF_TYPE_INT64;
}

static int64_t load_signed(const uint8_t *p, size_t es)
{
    switch (es) {
    case 1: return (int8_t)p[0];
    case 2: return (int16_t)cf_load_le16(p);
    case 4: return (int32_t)cf_load_le32(p);
    default: return (int64_t)cf_load_le64(p);
    }
}

static uint64_t load_unsigned(const uint8_t *p, size_t es)
{
    uint64_t x = 0;
    memcpy(&x, p, es);
    return x;
}

/* <0, 0, >0 in the type's order */
static int cmp(cf_type t, const uint8_t *a, const uint8_t *b)
{
    size_t es = cf_type_size(t);
    if (type_signed(t)) {
        int64_t x = load_signed(a, es), y = load_signed(b, es);
        return (x > y) - (x < y);
    }
    uint64_t x = load_unsigned(a, es), y = load_unsigned(b, es);
    return (x > y) - (x < y);
}

static void gen(cf_rng *r, uint8_t *v, size_t n, size_t es, bool is_bool)
{
    size_t i = 0;
    while (i < n) {
        uint64_t x = cf_rng_below(r, 2) ? cf_rng_next(r) : cf_rng_below(r, 4) - 2;
        if (is_bool)
            x = cf_rng_below(r, 2);
        size_t len = cf_rng_below(r, 4) == 0 ? 1 + cf_rng_below(r, 200) : 1 + cf_rng_below(r, 3);
        for (size_t k = 0; k < len && i < n; k++, i++)
            memcpy(v + i * es, &x, es);
    }
}

static void round_trip(cf_rng *r, const cf_encoder_ops *eops, const cf_decoder_ops *dops, cf_type t,
                       bool is_bool)
{
    const size_t es = cf_type_size(t);
    cf_error err;
    for (int iter = 0; iter < 25; iter++) {
        size_t n = (size_t)cf_rng_below(r, 5000);
        uint8_t *v = malloc(n * es + 8), *got = malloc(n * es + 8);
        gen(r, v, n, es, is_bool);
        if (cf_rng_below(r, 3) == 0 && !is_bool) /* sorted, for value seeks */
            for (size_t i = 1; i < n; i++)
                if (cmp(t, v + i * es, v + (i - 1) * es) < 0)
                    memcpy(v + i * es, v + (i - 1) * es, es);
        bool sorted = true;
        for (size_t i = 1; i < n; i++)
            sorted = sorted && cmp(t, v + (i - 1) * es, v + i * es) <= 0;

        /* add in random call sizes */
        cf_encoder *e = enc_create(eops, t, 1u << 24);
        for (size_t done = 0; done < n;) {
            size_t k = 1 + (size_t)cf_rng_below(r, 300);
            k = k < n - done ? k : n - done;
            assert_int_equal(e->ops->add(e, v + done * es, k, false), k);
            done += k;
        }
        cf_slice s;
        CF_ASSERT_OK(e->ops->finish(e, 77, &s, &err), &err);

        /* the same values one call at a time give the same bytes */
        cf_encoder *e1 = enc_create(eops, t, 1u << 24);
        for (size_t i = 0; i < n; i++)
            e1->ops->add(e1, v + i * es, 1, false);
        cf_slice s1;
        CF_ASSERT_OK(e1->ops->finish(e1, 77, &s1, &err), &err);
        CF_ASSERT_BYTES(s1.data, s1.len, s.data, s.len);
        cf_encoder_free(e1);

        cf_decoder *d = dec_create(dops, t);
        CF_ASSERT_OK(d->ops->load(d, s.data, s.len, &err), &err);
        assert_int_equal(d->count, n);
        assert_int_equal(d->first_ord, 77);
        size_t done = 0, g;
        while (done < n) {
            size_t k = 1 + (size_t)cf_rng_below(r, 500);
            CF_ASSERT_OK(d->ops->next(d, got + done * es, k, &g, &err), &err);
            assert_true(g > 0 && g <= k);
            done += g;
        }
        CF_ASSERT_OK(d->ops->next(d, got, 5, &g, &err), &err);
        assert_int_equal(g, 0);
        if (is_bool) {
            for (size_t i = 0; i < n; i++)
                assert_int_equal(got[i], v[i] != 0);
        } else {
            assert_memory_equal(got, v, n * es);
        }

        /* random seeks, forward and backward */
        for (int k = 0; k < 20 && n > 0; k++) {
            size_t idx = (size_t)cf_rng_below(r, n + 1);
            CF_ASSERT_OK(d->ops->seek(d, idx, &err), &err);
            assert_int_equal(d->pos, idx);
            size_t want = n - idx < 7 ? n - idx : 7;
            CF_ASSERT_OK(d->ops->next(d, got, 7, &g, &err), &err);
            assert_int_equal(g, want);
            if (!is_bool)
                assert_memory_equal(got, v + idx * es, g * es);
        }
        CF_ASSERT_STATUS(d->ops->seek(d, n + 1, &err), CF_EINVAL, &err);

        /* value seeks: first index >= key */
        if (is_bool) {
            bool exact;
            CF_ASSERT_STATUS(d->ops->seek_at_or_after(d, v, &exact, &err), CF_ENOTSUP, &err);
        } else if (sorted) {
            for (int k = 0; k < 10; k++) {
                uint8_t key[8];
                if (n > 0 && cf_rng_below(r, 2))
                    memcpy(key, v + cf_rng_below(r, n) * es, es);
                else
                    gen(r, key, 1, es, false);
                size_t want = 0;
                while (want < n && cmp(t, v + want * es, key) < 0)
                    want++;
                bool hit = want < n && cmp(t, v + want * es, key) == 0;
                if (dec_expect_seek(d, key, want, n, hit)) {
                    CF_ASSERT_OK(d->ops->next(d, got, 3, &g, &err), &err);
                    assert_memory_equal(got, v + want * es, g * es);
                }
            }
        }
        cf_decoder_free(d);
        cf_encoder_free(e);
        free(v);
        free(got);
    }
}

static void test_rle_enc__round_trip_ints(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(1));
    for (size_t i = 0; i < sizeof int_types / sizeof int_types[0]; i++)
        round_trip(&r, &cf_enc_rle_ops, &cf_dec_rle_ops, int_types[i], false);
}

static void test_rle_enc__round_trip_bool(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(1) + 1);
    round_trip(&r, &cf_enc_rle_bool_ops, &cf_dec_rle_bool_ops, CF_TYPE_BOOL, true);
}

static void test_rle_enc__types(void **state)
{
    (void)state;
    cf_enc_params p = {.type = CF_TYPE_FLOAT, .elem_size = 4, .block_size = 512};
    cf_encoder *e = NULL;
    cf_decoder *d = NULL;
    cf_error err;
    CF_ASSERT_STATUS(cf_enc_rle_ops.create(&e, &p, &err), CF_EINVAL, &err);
    p.type = CF_TYPE_INT128;
    p.elem_size = 16;
    CF_ASSERT_STATUS(cf_enc_rle_ops.create(&e, &p, &err), CF_EINVAL, &err);
    p.type = CF_TYPE_BOOL;
    p.elem_size = 1;
    CF_ASSERT_STATUS(cf_enc_rle_ops.create(&e, &p, &err), CF_EINVAL, &err);
    p.type = CF_TYPE_INT8;
    CF_ASSERT_STATUS(cf_enc_rle_bool_ops.create(&e, &p, &err), CF_EINVAL, &err);
    cf_dec_params dp = {.type = CF_TYPE_STRING, .elem_size = cf_type_size(CF_TYPE_STRING)};
    CF_ASSERT_STATUS(cf_dec_rle_ops.create(&d, &dp, &err), CF_EINVAL, &err);
    assert_null(e);
    assert_null(d);
}

static void test_rle_enc__corrupt(void **state)
{
    (void)state;
    cf_error err;
    uint8_t buf[64];
    size_t g;
    uint32_t vals[16];
    cf_decoder *d = dec_create(&cf_dec_rle_ops, CF_TYPE_UINT32);
    /* too short for the header */
    for (size_t len = 0; len < 8; len++)
        CF_ASSERT_STATUS(d->ops->load(d, buf, len, &err), CF_ECORRUPT, &err);
    /* the stream ends before count values */
    size_t len = cf_test_unhex("0a000000 00000000 0e 05000000", buf, sizeof buf);
    CF_ASSERT_OK(d->ops->load(d, buf, len, &err), &err);
    CF_ASSERT_STATUS(d->ops->next(d, vals, 16, &g, &err), CF_ECORRUPT, &err);
    assert_int_equal(g, 7);
    CF_ASSERT_OK(d->ops->load(d, buf, len, &err), &err);
    CF_ASSERT_STATUS(d->ops->seek(d, 9, &err), CF_ECORRUPT, &err);
    CF_ASSERT_OK(d->ops->seek(d, 3, &err), &err); /* backward: restart */
    bool exact;
    uint32_t key = 6;
    CF_ASSERT_STATUS(d->ops->seek_at_or_after(d, &key, &exact, &err), CF_ECORRUPT, &err);
    /* a claimed count of 4 billion with a 5-byte stream */
    len = cf_test_unhex("ffffffff 00000000 02 05000000", buf, sizeof buf);
    CF_ASSERT_OK(d->ops->load(d, buf, len, &err), &err);
    CF_ASSERT_STATUS(d->ops->seek(d, 1000, &err), CF_ECORRUPT, &err);

    /* every truncation of a real block, and random garbage: errors, no crash */
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(1) + 5);
    uint32_t src[300];
    for (int i = 0; i < 300; i++)
        src[i] = i < 100 ? (uint32_t)i : i < 200 ? 7u : (uint32_t)cf_rng_next(&r);
    built b = encode_block(&cf_enc_rle_ops, CF_TYPE_UINT32, src, 300, 0);
    uint32_t out[400];
    for (size_t cut = 8; cut < b.len; cut++) {
        CF_ASSERT_OK(d->ops->load(d, b.data, cut, &err), &err);
        cf_status st = d->ops->next(d, out, 400, &g, &err);
        /* a cut inside the last literal group may still yield every value
         * when the missing bytes were padding; otherwise it is corruption */
        assert_true(st == CF_ECORRUPT || (st == CF_OK && g == 300));
    }
    for (int iter = 0; iter < 2000; iter++) {
        size_t gl = 8 + (size_t)cf_rng_below(&r, 48);
        for (size_t i = 0; i < gl; i++)
            buf[i] = (uint8_t)cf_rng_next(&r);
        cf_store_le32(buf, (uint32_t)cf_rng_below(&r, 400));
        CF_ASSERT_OK(d->ops->load(d, buf, gl, &err), &err);
        cf_status st = d->ops->next(d, out, 400, &g, &err);
        assert_true(st == CF_OK || st == CF_ECORRUPT);
        assert_true(g <= d->count);
        st = d->ops->seek(d, d->count / 2, &err);
        assert_true(st == CF_OK || st == CF_ECORRUPT);
    }
    free(b.data);
    cf_decoder_free(d);
}

/* Seeks through the run index: random targets, forward and backward, each
 * followed by a few values, equal the values written; a stream cut short
 * reports CF_ECORRUPT from the seek that passes its end. */
static void test_rle_enc__seek_run_index(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0x5ee4));
    enum { N = 20000 };
    int32_t *v = malloc(N * sizeof *v);
    int32_t x = 0;
    for (size_t i = 0; i < N; i++) {
        if (cf_rng_below(&r, 3) == 0)
            x = (int32_t)cf_rng_below(&r, 50); /* short runs and literals */
        v[i] = cf_rng_below(&r, 4) == 0 ? (int32_t)cf_rng_next(&r) : x;
    }
    built b = encode_block(&cf_enc_rle_ops, CF_TYPE_INT32, v, N, 0);
    cf_decoder *d = dec_create(&cf_dec_rle_ops, CF_TYPE_INT32);
    cf_error err;
    CF_ASSERT_OK(d->ops->load(d, b.data, b.len, &err), &err);
    int32_t got[16];
    for (int k = 0; k < 3000; k++) {
        size_t at = (size_t)cf_rng_below(&r, N + 1);
        CF_ASSERT_OK(d->ops->seek(d, at, &err), &err);
        assert_int_equal(d->pos, at);
        size_t n = (size_t)cf_rng_below(&r, 16), g;
        CF_ASSERT_OK(d->ops->next(d, got, n, &g, &err), &err);
        assert_int_equal(g, N - at < n ? N - at : n);
        for (size_t i = 0; i < g; i++)
            assert_int_equal(got[i], v[at + i]);
    }
    /* The same block cut in half: seeks past what it holds fail cleanly. */
    CF_ASSERT_OK(d->ops->load(d, b.data, b.len / 2, &err), &err);
    CF_ASSERT_OK(d->ops->seek(d, 10, &err), &err);
    CF_ASSERT_STATUS(d->ops->seek(d, N, &err), CF_ECORRUPT, &err);
    CF_ASSERT_STATUS(d->ops->seek(d, N - 1, &err), CF_ECORRUPT, &err);
    CF_ASSERT_OK(d->ops->seek(d, 3, &err), &err);
    CF_ASSERT_OK(d->ops->next(d, got, 1, &(size_t){0}, &err), &err);
    assert_int_equal(got[0], v[3]);
    cf_decoder_free(d);
    free(b.data);
    free(v);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rle_enc__section_14_4),
        cmocka_unit_test(test_rle_enc__section_7_4),
        cmocka_unit_test(test_rle_enc__fullness),
        cmocka_unit_test(test_rle_enc__round_trip_ints),
        cmocka_unit_test(test_rle_enc__round_trip_bool),
        cmocka_unit_test(test_rle_enc__types),
        cmocka_unit_test(test_rle_enc__corrupt),
        cmocka_unit_test(test_rle_enc__seek_run_index),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

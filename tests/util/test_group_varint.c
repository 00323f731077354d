/* Group varint (format §1.6). */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/group_varint.h"

static void test_group_varint__spec_example(void **state)
{
    (void)state;
    /* format §1.6: 12, 13, 300, 70000, 16777216 */
    const uint32_t v[5] = {12, 13, 300, 70000, 16777216};
    uint8_t want[32];
    size_t wlen =
        cf_test_unhex("06 0c 0d 2c 01 70 11 01 c0 00 00 00 01 00 00 00", want, sizeof want);
    cf_buf b;
    cf_buf_init(&b);
    cf_gvint_append(&b, v, 5);
    CF_ASSERT_OK(cf_buf_status(&b), NULL);
    CF_ASSERT_BYTES(b.data, b.len, want, wlen);

    /* and back, from an exact-size copy so any overread is caught by ASan */
    uint8_t *copy = malloc(wlen);
    memcpy(copy, want, wlen);
    uint32_t out[8];
    const uint8_t *p = cf_gvint_decode_group(copy, copy + wlen, out);
    assert_ptr_equal(p, copy + 8);
    p = cf_gvint_decode_group(p, copy + wlen, out + 4);
    assert_ptr_equal(p, copy + wlen);
    assert_memory_equal(out, v, sizeof v);
    assert_int_equal(out[5], 0);
    assert_int_equal(out[6], 0);
    assert_int_equal(out[7], 0);
    free(copy);
    cf_buf_dispose(&b);
}

static void test_group_varint__value_len(void **state)
{
    (void)state;
    assert_int_equal(cf_gvint_value_len(0), 1);
    assert_int_equal(cf_gvint_value_len(255), 1);
    assert_int_equal(cf_gvint_value_len(256), 2);
    assert_int_equal(cf_gvint_value_len(65535), 2);
    assert_int_equal(cf_gvint_value_len(65536), 3);
    assert_int_equal(cf_gvint_value_len(0xffffff), 3);
    assert_int_equal(cf_gvint_value_len(0x1000000), 4);
    assert_int_equal(cf_gvint_value_len(0xffffffff), 4);
}

static void test_group_varint__group_sizes(void **state)
{
    (void)state;
    uint8_t dst[CF_GVINT_MAX_GROUP];
    assert_int_equal(cf_gvint_encode_group(dst, 0, 0, 0, 0), 5);
    uint8_t want5[] = {0, 0, 0, 0, 0};
    assert_memory_equal(dst, want5, 5);
    assert_int_equal(cf_gvint_encode_group(dst, 0xffffffff, 0x01020304, 0x80000000, 0xfffffffe),
                     17);
    uint8_t want17[] = {0xff, 0xff, 0xff, 0xff, 0xff, 4,    3,    2,   1,
                        0,    0,    0,    0x80, 0xfe, 0xff, 0xff, 0xff};
    assert_memory_equal(dst, want17, 17);
}

static void test_group_varint__empty_and_padding(void **state)
{
    (void)state;
    cf_buf b;
    cf_buf_init(&b);
    cf_gvint_append(&b, NULL, 0);
    assert_int_equal(b.len, 0);
    const uint32_t one = 1000;
    cf_gvint_append(&b, &one, 1);
    uint8_t want[] = {0x40, 0xe8, 0x03, 0, 0, 0};
    CF_ASSERT_BYTES(b.data, b.len, want, sizeof want);
    cf_buf_dispose(&b);
}

static uint32_t random_value(cf_rng *r)
{
    /* spread over the four byte lengths */
    switch (cf_rng_below(r, 4)) {
    case 0: return (uint32_t)cf_rng_below(r, 256);
    case 1: return (uint32_t)cf_rng_below(r, 65536);
    case 2: return (uint32_t)cf_rng_below(r, 1u << 24);
    default: return (uint32_t)cf_rng_next(r);
    }
}

static void test_group_varint__random_round_trip(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(42));
    for (int iter = 0; iter < 200; iter++) {
        size_t n = (size_t)cf_rng_below(&r, 300);
        uint32_t *v = malloc((n + 4) * sizeof *v);
        for (size_t i = 0; i < n; i++)
            v[i] = random_value(&r);
        cf_buf b;
        cf_buf_init(&b);
        cf_gvint_append(&b, v, n);
        CF_ASSERT_OK(cf_buf_status(&b), NULL);
        /* exact-size copy: the decoder's fast path must stop 17 bytes from the end */
        uint8_t *copy = malloc(b.len ? b.len : 1);
        if (b.len)
            memcpy(copy, b.data, b.len);
        const uint8_t *p = copy, *end = copy + b.len;
        uint32_t *out = malloc((n + 4) * sizeof *out);
        for (size_t i = 0; i < n; i += 4) {
            p = cf_gvint_decode_group(p, end, out + i);
            assert_non_null(p);
        }
        assert_ptr_equal(p, end);
        if (n)
            assert_memory_equal(out, v, n * sizeof *v);
        for (size_t i = n; i % 4 != 0; i++)
            assert_int_equal(out[i], 0);
        free(out);
        free(copy);
        free(v);
        cf_buf_dispose(&b);
    }
}

/* cf_gvint_decode_groups (the SIMD kernel where the CPU has one) and its portable
 * form against cf_gvint_decode_group: values of every length mix, the stream cut at
 * every length near its end (each stops while 17 bytes remain, at the same group). */
static void test_group_varint__decode_groups(void **state)
{
    (void)state;
    enum { N = 400 };
    uint32_t v[N], a[N + 4], b[N + 4], want[N + 4];
    uint64_t s = 7;
    for (size_t i = 0; i < N; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        uint32_t x = (uint32_t)(s >> 32);
        v[i] = x >> (8 * (s >> 8 & 3)); /* 1..4 bytes */
    }
    cf_buf buf;
    cf_buf_init(&buf);
    cf_gvint_append(&buf, v, N);
    assert_false(buf.oom);
    size_t groups = N / 4;
    for (size_t cut = 0; cut <= buf.len; cut += cut + 40 < buf.len ? 37 : 1) {
        const uint8_t *end = buf.data + cut;
        size_t ga = 99, gb = 99, gw = 0;
        const uint8_t *pa = cf_gvint_decode_groups(buf.data, end, a, groups, &ga);
        const uint8_t *pb = cf_gvint_decode_groups_portable(buf.data, end, b, groups, &gb);
        const uint8_t *pw = buf.data;
        while (gw < groups && end - pw >= CF_GVINT_MAX_GROUP) {
            pw = cf_gvint_decode_group(pw, end, want + 4 * gw);
            assert_non_null(pw);
            gw++;
        }
        assert_int_equal(ga, gw);
        assert_int_equal(gb, gw);
        assert_ptr_equal(pa, pw);
        assert_ptr_equal(pb, pw);
        assert_memory_equal(a, want, gw * 16);
        assert_memory_equal(b, want, gw * 16);
        if (cut == buf.len)
            assert_memory_equal(want, v, gw * 16);
    }
    cf_buf_dispose(&buf);
}

static void test_group_varint__truncated_group_is_rejected(void **state)
{
    (void)state;
    uint8_t group[CF_GVINT_MAX_GROUP];
    size_t len = cf_gvint_encode_group(group, 1, 300, 70000, 16777216); /* 1+1+2+3+4 = 11 */
    assert_int_equal(len, 11);
    uint32_t out[4];
    for (size_t cut = 0; cut < len; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1);
        memcpy(copy, group, cut);
        assert_null(cf_gvint_decode_group(copy, copy + cut, out));
        free(copy);
    }
    uint8_t *copy = malloc(len);
    memcpy(copy, group, len);
    assert_ptr_equal(cf_gvint_decode_group(copy, copy + len, out), copy + len);
    assert_int_equal(out[0], 1);
    assert_int_equal(out[1], 300);
    assert_int_equal(out[2], 70000);
    assert_int_equal(out[3], 16777216);
    free(copy);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_group_varint__spec_example),
        cmocka_unit_test(test_group_varint__value_len),
        cmocka_unit_test(test_group_varint__group_sizes),
        cmocka_unit_test(test_group_varint__empty_and_padding),
        cmocka_unit_test(test_group_varint__random_round_trip),
        cmocka_unit_test(test_group_varint__truncated_group_is_rejected),
        cmocka_unit_test(test_group_varint__decode_groups),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* Parquet RLE / bit-packing hybrid, levels and dictionary indices
 * (src/parquet/levels.c, dict.c): the Encodings.md examples byte for byte,
 * width 0, prefixes, damage, and random round trips against our encoder. */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "parquet/encoding.h"
#include "util/buf.h"
#include "util/rle.h"

/* Encodings.md: 0..7 at bit width 3, bit-packed LSB-first = 88 c6 fa. */
static void test_pq_levels__spec_hybrid_bitpacked(void **state)
{
    (void)state;
    const uint8_t stream[] = {0x03, 0x88, 0xc6, 0xfa}; /* header: 1 group, literal */
    uint16_t lv[8];
    cf_error err;
    CF_ASSERT_OK(cf_pq_hybrid_decode(lv, 2, 8, 3, stream, sizeof stream, &err), &err);
    for (int i = 0; i < 8; i++)
        assert_int_equal(lv[i], i);
    /* our encoder writes exactly that (no run of 8 equal values) */
    cf_buf b;
    cf_buf_init(&b);
    CF_ASSERT_OK(cf_pq_hybrid_encode(&b, lv, 2, 8, 3, &err), &err);
    CF_ASSERT_BYTES(b.data, b.len, stream, sizeof stream);
    cf_buf_dispose(&b);
}

/* Encodings.md: the deprecated BIT_PACKED packs 0..7 MSB-first = 05 39 77. */
static void test_pq_levels__spec_bit_packed(void **state)
{
    (void)state;
    const uint8_t want[] = {0x05, 0x39, 0x77};
    uint16_t lv[8], back[8];
    for (int i = 0; i < 8; i++)
        lv[i] = (uint16_t)i;
    cf_error err;
    cf_buf b;
    cf_buf_init(&b);
    CF_ASSERT_OK(cf_pq_levels_encode(&b, lv, 8, CF_PQE_BIT_PACKED, 7, false, &err), &err);
    CF_ASSERT_BYTES(b.data, b.len, want, sizeof want);
    size_t used;
    CF_ASSERT_OK(
        cf_pq_levels_decode(back, 8, CF_PQE_BIT_PACKED, 7, false, want, sizeof want, &used, &err),
        &err);
    assert_int_equal(used, 3);
    assert_memory_equal(back, lv, sizeof lv);
    /* the spec's 30 two-bit levels take 8 bytes */
    uint16_t thirty[30] = {0};
    cf_buf_clear(&b);
    CF_ASSERT_OK(cf_pq_levels_encode(&b, thirty, 30, CF_PQE_BIT_PACKED, 3, false, &err), &err);
    assert_int_equal(b.len, 8);
    /* short input is damage */
    CF_ASSERT_STATUS(
        cf_pq_levels_decode(back, 8, CF_PQE_BIT_PACKED, 7, false, want, 2, &used, &err),
        CF_ECORRUPT, &err);
    cf_buf_dispose(&b);
}

/* A repeated run: header 2n, then ceil(w/8) value bytes. */
static void test_pq_levels__repeated_runs_and_prefix(void **state)
{
    (void)state;
    uint16_t lv[100];
    for (int i = 0; i < 100; i++)
        lv[i] = 1;
    cf_error err;
    cf_buf b;
    cf_buf_init(&b);
    CF_ASSERT_OK(cf_pq_levels_encode(&b, lv, 100, CF_PQE_RLE, 1, true, &err), &err);
    /* length 3, then varint(200) = c8 01, value 01 */
    const uint8_t want[] = {0x03, 0x00, 0x00, 0x00, 0xc8, 0x01, 0x01};
    CF_ASSERT_BYTES(b.data, b.len, want, sizeof want);
    uint8_t page[16];
    memcpy(page, want, sizeof want);
    memset(page + sizeof want, 0xee, sizeof page - sizeof want); /* next section */
    uint16_t back[100];
    size_t used;
    CF_ASSERT_OK(
        cf_pq_levels_decode(back, 100, CF_PQE_RLE, 1, true, page, sizeof page, &used, &err), &err);
    assert_int_equal(used, sizeof want);
    assert_memory_equal(back, lv, sizeof lv);
    /* v2: no prefix, the section is given exactly */
    CF_ASSERT_OK(cf_pq_levels_decode(back, 100, CF_PQE_RLE, 1, false, want + 4, 3, &used, &err),
                 &err);
    assert_int_equal(used, 3);
    /* a prefix longer than the page, and a run that ends early */
    uint8_t bad[sizeof want];
    memcpy(bad, want, sizeof want);
    bad[0] = 4;
    CF_ASSERT_STATUS(
        cf_pq_levels_decode(back, 100, CF_PQE_RLE, 1, true, bad, sizeof bad, &used, &err),
        CF_ECORRUPT, &err);
    CF_ASSERT_STATUS(
        cf_pq_levels_decode(back, 101 > 100 ? 100 : 100, CF_PQE_RLE, 1, true, want, 3, &used, &err),
        CF_ECORRUPT, &err);
    uint16_t more[101];
    CF_ASSERT_STATUS(
        cf_pq_levels_decode(more, 101, CF_PQE_RLE, 1, true, want, sizeof want, &used, &err),
        CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "ends after 100 of 101"));
    cf_buf_dispose(&b);
}

/* A level above max_level is damage even when the bit width can hold it. */
static void test_pq_levels__level_above_max(void **state)
{
    (void)state;
    const uint8_t stream[] = {0x10, 0x03}; /* 8 copies of 3 at width 2 */
    uint16_t lv[8];
    size_t used;
    cf_error err;
    CF_ASSERT_OK(cf_pq_levels_decode(lv, 8, CF_PQE_RLE, 3, false, stream, 2, &used, &err), &err);
    CF_ASSERT_STATUS(cf_pq_levels_decode(lv, 8, CF_PQE_RLE, 2, false, stream, 2, &used, &err),
                     CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "exceeds the maximum 2"));
    /* max_level 0: nothing stored, nothing consumed */
    memset(lv, 0xff, sizeof lv);
    CF_ASSERT_OK(cf_pq_levels_decode(lv, 8, CF_PQE_RLE, 0, true, NULL, 0, &used, &err), &err);
    assert_int_equal(used, 0);
    for (int i = 0; i < 8; i++)
        assert_int_equal(lv[i], 0);
    CF_ASSERT_STATUS(cf_pq_levels_decode(lv, 8, CF_PQE_PLAIN, 1, false, stream, 2, &used, &err),
                     CF_ECORRUPT, &err);
    /* A repeated run's value is a whole byte: at width 1 (an OPTIONAL column)
     * it can say 2 or 3, at width 2 (max 3) 4 or 255. Damage, not 1 or 0. */
    static const struct {
        uint8_t v;
        uint16_t max;
    } wide[] = {{2, 1}, {3, 1}, {255, 1}, {4, 3}, {7, 3}, {255, 3}, {8, 7}};
    for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++) {
        const uint8_t run[] = {0x10, wide[i].v};
        CF_ASSERT_STATUS(
            cf_pq_levels_decode(lv, 8, CF_PQE_RLE, wide[i].max, false, run, 2, &used, &err),
            CF_ECORRUPT, &err);
        assert_non_null(strstr(err.msg, "exceeds the maximum"));
    }
    /* Dictionary indices too: a width-1 run of 2 is index 2, outside a
     * 2-entry dictionary, inside a 3-entry one (as DuckDB reads it). */
    const uint8_t idx_run[] = {0x01, 0x10, 0x02};
    uint32_t idx[8];
    CF_ASSERT_STATUS(cf_pq_dict_indices_decode(idx, 8, 2, idx_run, sizeof idx_run, &err),
                     CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "index 2 of value 0"));
    CF_ASSERT_OK(cf_pq_dict_indices_decode(idx, 8, 3, idx_run, sizeof idx_run, &err), &err);
    assert_int_equal(idx[7], 2);
}

/* Bit width 0: runs carry no value bytes (a 1-entry dictionary). */
static void test_pq_levels__width_zero(void **state)
{
    (void)state;
    const uint8_t data[] = {0x00, 0x14, 0x03}; /* width 0; run of 10; literal group of 8 */
    uint32_t idx[18];
    cf_error err;
    CF_ASSERT_OK(cf_pq_dict_indices_decode(idx, 18, 1, data, sizeof data, &err), &err);
    for (int i = 0; i < 18; i++)
        assert_int_equal(idx[i], 0);
    CF_ASSERT_STATUS(cf_pq_dict_indices_decode(idx, 18, 0, data, sizeof data, &err), CF_ECORRUPT,
                     &err);
    CF_ASSERT_STATUS(cf_pq_dict_indices_decode(idx, 19, 1, data, sizeof data, &err), CF_ECORRUPT,
                     &err);
    cf_buf b;
    cf_buf_init(&b);
    CF_ASSERT_OK(cf_pq_dict_indices_encode(&b, idx, 18, 1, &err), &err);
    uint32_t back[18];
    CF_ASSERT_OK(cf_pq_dict_indices_decode(back, 18, 1, b.data, b.len, &err), &err);
    assert_memory_equal(back, idx, sizeof idx);
    cf_buf_dispose(&b);
}

static void test_pq_levels__dict_bounds(void **state)
{
    (void)state;
    /* width 2, literal group: 0 1 2 3 0 1 2 3 */
    const uint8_t data[] = {0x02, 0x03, 0xe4, 0xe4};
    uint32_t idx[8];
    cf_error err;
    CF_ASSERT_OK(cf_pq_dict_indices_decode(idx, 8, 4, data, sizeof data, &err), &err);
    for (int i = 0; i < 8; i++)
        assert_int_equal(idx[i], i % 4);
    CF_ASSERT_STATUS(cf_pq_dict_indices_decode(idx, 8, 3, data, sizeof data, &err), CF_ECORRUPT,
                     &err);
    assert_non_null(strstr(err.msg, "index 3 of value 3"));
    const uint8_t wide[] = {33, 0};
    CF_ASSERT_STATUS(cf_pq_dict_indices_decode(idx, 1, 4, wide, sizeof wide, &err), CF_ECORRUPT,
                     &err);
    CF_ASSERT_STATUS(cf_pq_dict_indices_decode(idx, 1, 4, data, 0, &err), CF_ECORRUPT, &err);
    cf_buf b;
    cf_buf_init(&b);
    CF_ASSERT_STATUS(cf_pq_dict_indices_encode(&b, idx, 8, 3, &err), CF_EINVAL, &err);
    cf_buf_dispose(&b);
}

/* Our last bit-packed run always has whole groups: w bytes per 8 values. */
static void test_pq_levels__encoder_pads_last_group(void **state)
{
    (void)state;
    const uint16_t lv[3] = {1, 0, 1};
    cf_error err;
    cf_buf b;
    cf_buf_init(&b);
    CF_ASSERT_OK(cf_pq_hybrid_encode(&b, lv, 2, 3, 5, &err), &err);
    const uint8_t want[] = {0x03, 0x01, 0x04, 0x00, 0x00, 0x00}; /* 1 group of 5 bytes */
    CF_ASSERT_BYTES(b.data, b.len, want, sizeof want);
    /* a literal stretch before a run borrows the run's head to end on a group */
    uint16_t mix[20] = {1, 2, 3};
    for (int i = 3; i < 20; i++)
        mix[i] = 7;
    cf_buf_clear(&b);
    CF_ASSERT_OK(cf_pq_hybrid_encode(&b, mix, 2, 20, 3, &err), &err);
    const uint8_t want2[] = {0x03, 0xd1, 0xfe, 0xff, 0x18, 0x07}; /* 8 literal, 12 x 7 */
    CF_ASSERT_BYTES(b.data, b.len, want2, sizeof want2);
    CF_ASSERT_STATUS(cf_pq_hybrid_encode(&b, mix, 2, 20, 2, &err), CF_EINVAL, &err);
    cf_buf_dispose(&b);
}

/* Random levels and indices at every width: encode, decode, compare; and
 * every truncation of the stream fails cleanly or decodes a prefix-equal
 * result (never reads out of bounds: ASan). Kudu's decoder is the reference
 * for the shared grammar. */
static void test_pq_levels__random_round_trips(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(1515));
    cf_error err;
    cf_buf b;
    cf_buf_init(&b);
    for (int iter = 0; iter < 400; iter++) {
        unsigned w = (unsigned)cf_rng_below(&r, 33);
        size_t n = (size_t)cf_rng_below(&r, iter % 10 == 0 ? 5000 : 300);
        uint32_t *v = malloc((n + 1) * 4), *back = malloc((n + 1) * 4);
        uint64_t lim = (uint64_t)1 << w;
        int mode = (int)cf_rng_below(&r, 3);
        for (size_t i = 0; i < n; i++) {
            if (mode == 0 || i == 0)
                v[i] = (uint32_t)(cf_rng_next(&r) % lim);
            else if (mode == 1)
                v[i] = cf_rng_below(&r, 4) ? v[i - 1] : (uint32_t)(cf_rng_next(&r) % lim);
            else
                v[i] = (uint32_t)((cf_rng_below(&r, 3) ? 0 : cf_rng_next(&r)) % lim);
        }
        cf_buf_clear(&b);
        CF_ASSERT_OK(cf_pq_hybrid_encode(&b, v, 4, n, w, &err), &err);
        CF_ASSERT_OK(cf_pq_hybrid_decode(back, 4, n, w, b.data, b.len, &err), &err);
        assert_memory_equal(back, v, n * 4);
        if (w >= 1) { /* Kudu's decoder reads the same stream (shared grammar) */
            cf_rle_decoder kd;
            cf_rle_dec_init(&kd, b.data, b.len, w);
            assert_int_equal(cf_rle_dec_get(&kd, back, 4, n), n);
            assert_memory_equal(back, v, n * 4);
        }
        if (n > 0 && b.len > 0) {
            size_t cut = (size_t)cf_rng_below(&r, b.len);
            uint8_t *t = malloc(cut ? cut : 1);
            memcpy(t, b.data, cut);
            cf_status st = cf_pq_hybrid_decode(back, 4, n, w, t, cut, &err);
            if (st == CF_OK) /* only possible when the cut removed padding */
                assert_memory_equal(back, v, n * 4);
            free(t);
        }
        /* levels of up to 16 bits through the level API */
        if (w <= 16) {
            uint16_t *lv = malloc((n + 1) * 2), *lb = malloc((n + 1) * 2);
            uint16_t maxl = (uint16_t)(lim - 1);
            for (size_t i = 0; i < n; i++)
                lv[i] = (uint16_t)v[i];
            unsigned enc = cf_rng_below(&r, 2) ? CF_PQE_RLE : CF_PQE_BIT_PACKED;
            bool pre = cf_rng_below(&r, 2);
            cf_buf_clear(&b);
            CF_ASSERT_OK(cf_pq_levels_encode(&b, lv, n, enc, maxl, pre, &err), &err);
            size_t used;
            CF_ASSERT_OK(cf_pq_levels_decode(lb, n, enc, maxl, pre, b.data, b.len, &used, &err),
                         &err);
            assert_memory_equal(lb, lv, n * 2);
            if (maxl > 0 && (enc == CF_PQE_BIT_PACKED || pre))
                assert_int_equal(used, b.len);
            free(lv);
            free(lb);
        }
        free(v);
        free(back);
    }
    cf_buf_dispose(&b);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pq_levels__spec_hybrid_bitpacked),
        cmocka_unit_test(test_pq_levels__spec_bit_packed),
        cmocka_unit_test(test_pq_levels__repeated_runs_and_prefix),
        cmocka_unit_test(test_pq_levels__level_above_max),
        cmocka_unit_test(test_pq_levels__width_zero),
        cmocka_unit_test(test_pq_levels__dict_bounds),
        cmocka_unit_test(test_pq_levels__encoder_pads_last_group),
        cmocka_unit_test(test_pq_levels__random_round_trips),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

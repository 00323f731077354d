/* Plain bitmaps (format §1.7): exact bit positions, and every range operation
 * checked against a bit-at-a-time reference on random bitmaps and ranges. */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "util/bitmap.h"
#include "util/cpu.h"

static void test_bitmap__lsb_first_layout(void **state)
{
    uint8_t bm[3] = {0};
    cf_bitmap_set(bm, 0);
    cf_bitmap_set(bm, 3);
    cf_bitmap_set(bm, 9);
    cf_bitmap_set(bm, 23);
    const uint8_t want[3] = {0x09, 0x02, 0x80};
    CF_ASSERT_BYTES(bm, 3, want, 3);
    assert_true(cf_bitmap_get(bm, 9));
    assert_false(cf_bitmap_get(bm, 8));
    cf_bitmap_clear(bm, 3);
    cf_bitmap_put(bm, 8, true);
    cf_bitmap_put(bm, 9, false);
    const uint8_t want2[3] = {0x01, 0x01, 0x80};
    CF_ASSERT_BYTES(bm, 3, want2, 3);
    assert_int_equal(cf_bitmap_bytes(0), 0);
    assert_int_equal(cf_bitmap_bytes(1), 1);
    assert_int_equal(cf_bitmap_bytes(8), 1);
    assert_int_equal(cf_bitmap_bytes(9), 2);
}

static void test_bitmap__fill_exact(void **state)
{
    uint8_t bm[4] = {0};
    cf_bitmap_fill(bm, 3, 14, true); /* bits 3..16 */
    const uint8_t want[4] = {0xf8, 0xff, 0x01, 0x00};
    CF_ASSERT_BYTES(bm, 4, want, 4);
    cf_bitmap_fill(bm, 5, 2, false); /* within one byte */
    const uint8_t want2[4] = {0x98, 0xff, 0x01, 0x00};
    CF_ASSERT_BYTES(bm, 4, want2, 4);
    cf_bitmap_fill(bm, 0, 0, true); /* empty range: nothing */
    CF_ASSERT_BYTES(bm, 4, want2, 4);
    cf_bitmap_fill(bm, 8, 8, false); /* one whole byte */
    const uint8_t want3[4] = {0x98, 0x00, 0x01, 0x00};
    CF_ASSERT_BYTES(bm, 4, want3, 4);
}

static void test_bitmap__count_and_run_exact(void **state)
{
    const uint8_t bm[3] = {0x0f, 0xf0, 0xff};
    assert_int_equal(cf_bitmap_count(bm, 0, 24), 16);
    assert_int_equal(cf_bitmap_count(bm, 2, 4), 2);
    assert_int_equal(cf_bitmap_count(bm, 0, 0), 0);
    assert_int_equal(cf_bitmap_run(bm, 0, 24), 4);   /* 1111 */
    assert_int_equal(cf_bitmap_run(bm, 4, 24), 8);   /* 0000 0000 */
    assert_int_equal(cf_bitmap_run(bm, 12, 12), 12); /* ones to the end */
    assert_int_equal(cf_bitmap_run(bm, 12, 3), 3);   /* capped by max */
    assert_int_equal(cf_bitmap_run(bm, 5, 0), 0);
}

/* ---- randomized against a reference ---------------------------------------------------- */

#define NBYTES 80
#define NBITS (NBYTES * 8)

static void random_bits(cf_rng *r, uint8_t *bm, size_t n)
{
    /* Mix dense, sparse and runny bitmaps so runs of all lengths appear. */
    int kind = (int)cf_rng_below(r, 4);
    for (size_t i = 0; i < n; i++) {
        uint64_t x = cf_rng_next(r);
        switch (kind) {
        case 0: bm[i] = (uint8_t)x; break;
        case 1: bm[i] = (x & 0x700) ? 0 : (uint8_t)x; break;
        case 2: bm[i] = (x & 0x700) ? 0xff : (uint8_t)x; break;
        default: bm[i] = (x & 0x100) ? 0xff : 0x00; break;
        }
    }
}

static void test_bitmap__random_fill_count_run(void **state)
{
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0xb17));
    uint8_t bm[NBYTES], ref[NBYTES];
    for (int iter = 0; iter < 20000; iter++) {
        random_bits(&r, bm, NBYTES);
        size_t start = (size_t)cf_rng_below(&r, NBITS);
        size_t n = (size_t)cf_rng_below(&r, NBITS - start + 1);

        size_t cnt = 0;
        for (size_t i = start; i < start + n; i++)
            cnt += cf_bitmap_get(bm, i);
        assert_int_equal(cf_bitmap_count(bm, start, n), cnt);

        if (start < NBITS) {
            size_t run = 0;
            bool v = cf_bitmap_get(bm, start);
            while (run < n && cf_bitmap_get(bm, start + run) == v)
                run++;
            assert_int_equal(cf_bitmap_run(bm, start, n), run);
        }

        bool v = cf_rng_below(&r, 2);
        memcpy(ref, bm, NBYTES);
        for (size_t i = start; i < start + n; i++)
            cf_bitmap_put(ref, i, v);
        cf_bitmap_fill(bm, start, n, v);
        CF_ASSERT_BYTES(bm, NBYTES, ref, NBYTES);
    }
}

static void test_bitmap__random_copy(void **state)
{
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0xb17));
    uint8_t src[NBYTES], dst[NBYTES], ref[NBYTES];
    for (int iter = 0; iter < 20000; iter++) {
        random_bits(&r, src, NBYTES);
        random_bits(&r, dst, NBYTES);
        size_t so = (size_t)cf_rng_below(&r, NBITS);
        size_t dof = (size_t)cf_rng_below(&r, NBITS);
        size_t lim = NBITS - (so > dof ? so : dof);
        size_t n = (size_t)cf_rng_below(&r, lim + 1);
        memcpy(ref, dst, NBYTES);
        for (size_t i = 0; i < n; i++)
            cf_bitmap_put(ref, dof + i, cf_bitmap_get(src, so + i));
        cf_bitmap_copy(dst, dof, src, so, n);
        CF_ASSERT_BYTES(dst, NBYTES, ref, NBYTES);
    }
}

/* The range operations must not touch bytes outside [start, start + n): run
 * them on exact-size heap buffers so ASan sees any stray access. */
static void test_bitmap__stays_in_bounds(void **state)
{
    for (size_t nbits = 1; nbits <= 200; nbits++) {
        size_t nb = cf_bitmap_bytes(nbits);
        uint8_t *a = test_malloc(nb), *b = test_malloc(nb);
        memset(a, 0xa5, nb);
        memset(b, 0x00, nb);
        for (size_t start = 0; start < nbits; start += 3) {
            size_t n = nbits - start;
            (void)cf_bitmap_count(a, start, n);
            (void)cf_bitmap_run(a, start, n);
            cf_bitmap_copy(b, start, a, 0, n);
            cf_bitmap_copy(b, 0, a, start, n);
            cf_bitmap_fill(b, start, n, true);
        }
        test_free(a);
        test_free(b);
    }
}

/* cf_bitmap_count picks its loop through cpu.h, so CF_CPU_DISABLE=all (the
 * ctest run util/test_bitmap_portable) makes the tests above run the
 * portable one; without it, a CPU with POPCNT runs the POPCNT build. */
static void test_bitmap__count_loop_follows_cpu_h(void **state)
{
    const char *off = getenv("CF_CPU_DISABLE");
    if (off != NULL && strcmp(off, "all") == 0)
        assert_string_equal(cf_bitmap_count_impl(), "portable");
#if defined(__x86_64__) && !defined(__POPCNT__)
    else
        assert_string_equal(cf_bitmap_count_impl(),
                            cf_cpu_has(CF_CPU_POPCNT) ? "popcnt" : "portable");
#endif
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bitmap__lsb_first_layout),
        cmocka_unit_test(test_bitmap__fill_exact),
        cmocka_unit_test(test_bitmap__count_and_run_exact),
        cmocka_unit_test(test_bitmap__random_fill_count_run),
        cmocka_unit_test(test_bitmap__random_copy),
        cmocka_unit_test(test_bitmap__stays_in_bounds),
        cmocka_unit_test(test_bitmap__count_loop_follows_cpu_h),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

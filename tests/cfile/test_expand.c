/* cf_expand_nulls and cf_expand_dict (src/cfile/expand.c): dense values
 * spread over their rows around NULLs, checked against a one-row-at-a-time
 * reference for every value size, bitmap offsets inside a byte, lengths that
 * are not multiples of 8 or 64, and NULL densities from none to all; values
 * in a separate buffer and in place (decoded into the rows' last k slots).
 * Buffers are exactly as large as the contract says (out: n values; dense:
 * exactly k values, as when they are read straight from a PLAIN block;
 * codewords: exactly k), so an overrun shows under ASan. */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "cfile/expand.h"
#include "util/bitmap.h"
#include "util/cpu.h"

/* A bitmap of bit0 + n + 64 bits, [bit0, bit0 + n) with null_pct% clear at
 * random, the bits around them random (they must be ignored). */
static uint8_t *random_bitmap(cf_rng *r, size_t bit0, size_t n, unsigned null_pct)
{
    uint8_t *bm = calloc(cf_bitmap_bytes(bit0 + n) + 8, 1);
    for (size_t i = 0; i < bit0 + n + 64; i++)
        if (i < bit0 || i >= bit0 + n ? cf_rng_below(r, 2) : cf_rng_below(r, 100) >= null_pct)
            cf_bitmap_set(bm, i);
    return bm;
}

/* The same with the dense values written into out's last k slots. */
typedef void (*expand_fn)(uint8_t *, const uint8_t *, const uint8_t *, size_t, size_t, size_t,
                          size_t);
typedef void (*dict_fn)(cf_slice *, const uint32_t *, const cf_slice *, const uint8_t *, size_t,
                        size_t, size_t);
/* The dispatching entry points (AVX2 here when the CPU has it) and the
 * portable loops alone. */
static const expand_fn expand_impl[] = {cf_expand_nulls, cf_expand_nulls_portable};
static const dict_fn dict_impl[] = {cf_expand_dict, cf_expand_dict_portable};

/* fn against the reference: k dense values in a buffer of their own of exactly
 * k values, or (in_place) written into out's last k slots. */
static void check_one(cf_rng *r, expand_fn fn, size_t es, size_t bit0, size_t n, unsigned null_pct,
                      bool in_place)
{
    uint8_t *bm = random_bitmap(r, bit0, n, null_pct);
    size_t k = cf_bitmap_count(bm, bit0, n);
    uint8_t *out = malloc(n * es + 1);
    uint8_t *want = calloc(n * es + 1, 1);
    memset(out, 0xa5, n * es + 1);
    uint8_t *own = in_place ? NULL : malloc(k * es + !k);
    uint8_t *dense = in_place ? out + (n - k) * es : own;
    for (size_t i = 0; i < k * es; i++)
        dense[i] = (uint8_t)(1 + cf_rng_below(r, 255)); /* never 0: a NULL slot must be zeroed */
    size_t j = 0;
    for (size_t i = 0; i < n; i++)
        if (cf_bitmap_get(bm, bit0 + i))
            memcpy(want + i * es, dense + es * j++, es);
    fn(out, dense, bm, bit0, n, k, es);
    if (memcmp(out, want, n * es) != 0)
        fail_msg("%ses=%zu bit0=%zu n=%zu nulls=%u%%: rows differ", in_place ? "in place " : "", es,
                 bit0, n, null_pct);
    assert_int_equal(out[n * es], 0xa5); /* nothing written past n values */
    free(bm);
    free(own);
    free(out);
    free(want);
}

/* The points every reference check runs at: each NULL density x length x first
 * bit of the grid (grid true), then 2,000 random ones (grid false). */
static const unsigned grid_pcts[] = {0, 1, 10, 50, 90, 100};
static const size_t grid_lens[] = {0, 1, 7, 8, 9, 63, 64, 65, 127, 1000, 1024, 1031};
typedef void (*point_check)(cf_rng *r, size_t bit0, size_t n, unsigned null_pct, bool grid);

static void over_points(cf_rng *r, point_check check)
{
    for (size_t pi = 0; pi < sizeof grid_pcts / sizeof grid_pcts[0]; pi++)
        for (size_t li = 0; li < sizeof grid_lens / sizeof grid_lens[0]; li++)
            for (size_t bit0 = 0; bit0 < 18; bit0 += 1 + (bit0 > 9) * 7)
                check(r, bit0, grid_lens[li], grid_pcts[pi], true);
    for (int k = 0; k < 2000; k++) {
        size_t bit0 = cf_rng_below(r, 600);
        size_t n = cf_rng_below(r, 700);
        check(r, bit0, n, (unsigned)cf_rng_below(r, 101), false);
    }
}

/* Every value size at a grid point, one random size at a random point; both
 * implementations, out of place and in place. */
static void check_sizes(cf_rng *r, size_t bit0, size_t n, unsigned pct, bool grid)
{
    static const size_t sizes[] = {1, 2, 4, 8, 12, 16};
    size_t from = grid ? 0 : (size_t)cf_rng_below(r, 6), to = grid ? 6 : from + 1;
    for (size_t si = from; si < to; si++)
        for (size_t f = 0; f < 2; f++) {
            check_one(r, expand_impl[f], sizes[si], bit0, n, pct, false);
            check_one(r, expand_impl[f], sizes[si], bit0, n, pct, true);
        }
}

static void test_expand__against_reference(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0xe4a9d));
    over_points(&r, check_sizes);
}

/* cf_expand_dict against a one-row reference: k codewords (exactly, so an
 * overread shows under ASan) naming entries of a dictionary of nd slices. */
static void check_dict(cf_rng *r, dict_fn fn, size_t nd, size_t bit0, size_t n, unsigned null_pct)
{
    static const uint8_t text[64] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    uint8_t *bm = random_bitmap(r, bit0, n, null_pct);
    size_t k = cf_bitmap_count(bm, bit0, n);
    cf_slice *entries = malloc(nd * sizeof *entries);
    for (size_t e = 0; e < nd; e++) {
        size_t off = cf_rng_below(r, 32);
        entries[e] = (cf_slice){text + off, 1 + cf_rng_below(r, 31)};
    }
    uint32_t *cw = malloc(k * sizeof *cw + !k);
    for (size_t j = 0; j < k; j++)
        cw[j] = (uint32_t)cf_rng_below(r, nd);
    cf_slice *out = malloc((n + 1) * sizeof *out);
    cf_slice *want = calloc(n + 1, sizeof *want);
    memset(out, 0xa5, (n + 1) * sizeof *out);
    size_t j = 0;
    for (size_t i = 0; i < n; i++)
        if (cf_bitmap_get(bm, bit0 + i))
            want[i] = entries[cw[j++]];
    fn(out, cw, entries, bm, bit0, n, k);
    for (size_t i = 0; i < n; i++)
        if (out[i].data != want[i].data || out[i].len != want[i].len)
            fail_msg("dict nd=%zu bit0=%zu n=%zu nulls=%u%%: row %zu differs", nd, bit0, n,
                     null_pct, i);
    const uint8_t *past = (const uint8_t *)&out[n];
    for (size_t b = 0; b < sizeof *out; b++)
        assert_int_equal(past[b], 0xa5); /* nothing written past n rows */
    free(bm);
    free(entries);
    free(cw);
    free(out);
    free(want);
}

/* Dictionaries of up to 300 entries at grid points, up to 5,000 at random ones;
 * both implementations. */
static void check_dicts(cf_rng *r, size_t bit0, size_t n, unsigned pct, bool grid)
{
    size_t nd = 1 + (size_t)cf_rng_below(r, grid ? 300 : 5000);
    for (size_t f = 0; f < 2; f++)
        check_dict(r, dict_impl[f], nd, bit0, n, pct);
}

static void test_expand__dict_against_reference(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0xd1c7));
    over_points(&r, check_dicts);
}

/* The AVX2 loops are picked through cpu.h, so CF_CPU_DISABLE=all (the ctest
 * run cfile/test_expand_portable) makes the dispatching entry points above
 * run the portable loops. */
static void test_expand__simd_follows_cpu_h(void **state)
{
    const char *off = getenv("CF_CPU_DISABLE");
    if (off != NULL && strcmp(off, "all") == 0)
        assert_string_equal(cf_expand_impl(), "portable");
#if defined(__x86_64__)
    else
        assert_string_equal(cf_expand_impl(),
                            cf_cpu_has(CF_CPU_AVX2 | CF_CPU_POPCNT) ? "avx2" : "portable");
#endif
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expand__against_reference),
        cmocka_unit_test(test_expand__dict_against_reference),
        cmocka_unit_test(test_expand__simd_follows_cpu_h),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* cf_expand_nulls (src/cfile/expand.c): dense values spread over their rows
 * around NULLs, checked against a one-row-at-a-time reference for every value
 * size, bitmap offsets inside a byte, lengths that are not multiples of 8 or
 * 64, and NULL densities from none to all. Buffers are exactly as large as
 * the contract says (out: n values; dense: exactly k values, as when they are
 * read straight from a PLAIN block), so an overrun shows under ASan. */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "cfile/expand.h"
#include "util/bitmap.h"

static void check_one(cf_rng *r, size_t es, size_t bit0, size_t n, unsigned null_pct)
{
    uint8_t *bm = calloc(cf_bitmap_bytes(bit0 + n) + 8, 1);
    /* bits before bit0 and after bit0 + n are random: they must be ignored */
    for (size_t i = 0; i < bit0 + n + 64; i++)
        if (i < bit0 || i >= bit0 + n ? cf_rng_below(r, 2) : cf_rng_below(r, 100) >= null_pct)
            cf_bitmap_set(bm, i);
    size_t k = cf_bitmap_count(bm, bit0, n);
    uint8_t *dense = malloc(k * es + !k);
    for (size_t i = 0; i < k * es; i++)
        dense[i] = (uint8_t)(1 + cf_rng_below(r, 255)); /* never 0: a NULL slot must be zeroed */
    uint8_t *out = malloc(n * es + 1);
    uint8_t *want = calloc(n * es + 1, 1);
    memset(out, 0xa5, n * es + 1);
    size_t j = 0;
    for (size_t i = 0; i < n; i++)
        if (cf_bitmap_get(bm, bit0 + i))
            memcpy(want + i * es, dense + es * j++, es);
    cf_expand_nulls(out, dense, bm, bit0, n, k, es);
    if (memcmp(out, want, n * es) != 0)
        fail_msg("es=%zu bit0=%zu n=%zu nulls=%u%%: rows differ", es, bit0, n, null_pct);
    assert_int_equal(out[n * es], 0xa5); /* nothing written past n values */
    free(bm);
    free(dense);
    free(out);
    free(want);
}

static void test_expand__against_reference(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0xe4a9d));
    const size_t sizes[] = {1, 2, 4, 8, 12, 16};
    const unsigned pcts[] = {0, 1, 10, 50, 90, 100};
    const size_t lens[] = {0, 1, 7, 8, 9, 63, 64, 65, 127, 1000, 1024, 1031};
    for (size_t si = 0; si < 6; si++)
        for (size_t pi = 0; pi < 6; pi++)
            for (size_t li = 0; li < 12; li++)
                for (size_t bit0 = 0; bit0 < 18; bit0 += 1 + (bit0 > 9) * 7)
                    check_one(&r, sizes[si], bit0, lens[li], pcts[pi]);
    for (int k = 0; k < 2000; k++)
        check_one(&r, sizes[cf_rng_below(&r, 6)], cf_rng_below(&r, 600), cf_rng_below(&r, 700),
                  (unsigned)cf_rng_below(&r, 101));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expand__against_reference),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

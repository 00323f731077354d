/* cf_array_grow: the doubling every growable array in the library uses, its
 * first size, the elements kept across growth, and the array left as it was
 * when memory runs out or the size would overflow. */
#include "test_common.h"

#include <stdint.h>
#include <string.h>

#include "util/alloc.h"

static void test_alloc__array_grow_doubles_and_keeps(void **state)
{
    (void)state;
    uint32_t *v = NULL;
    size_t n = 0, cap = 0;
    size_t caps[8], ncaps = 0;
    for (uint32_t i = 0; i < 100; i++) {
        if (n == cap) {
            assert_true(cf_array_grow(&v, &cap, sizeof *v, 4));
            caps[ncaps++] = cap;
        }
        v[n++] = i * 2654435761u;
    }
    size_t want[] = {4, 8, 16, 32, 64, 128};
    assert_int_equal(ncaps, 6);
    for (size_t i = 0; i < ncaps; i++)
        assert_int_equal(caps[i], want[i]);
    for (uint32_t i = 0; i < 100; i++)
        assert_int_equal(v[i], i * 2654435761u);
    cf_free(v);
}

static void test_alloc__array_grow_failure_keeps_array(void **state)
{
    (void)state;
    uint64_t *v = NULL;
    size_t cap = 0;
    assert_true(cf_array_grow(&v, &cap, sizeof *v, 2));
    v[0] = 7;
    v[1] = 9;
    uint64_t *before = v;
    cf_alloc_fail_after(1);
    assert_false(cf_array_grow(&v, &cap, sizeof *v, 2));
    cf_alloc_fail_after(0);
    assert_ptr_equal(v, before);
    assert_int_equal(cap, 2);
    assert_int_equal(v[0], 7);
    assert_int_equal(v[1], 9);
    cf_free(v);
}

static void test_alloc__array_grow_overflow_refused(void **state)
{
    (void)state;
    char *v = NULL;
    size_t cap = SIZE_MAX / 2 + 1; /* doubling wraps */
    assert_false(cf_array_grow(&v, &cap, 1, 16));
    assert_null(v);
    assert_int_equal(cap, SIZE_MAX / 2 + 1);
    cap = SIZE_MAX / 16; /* doubling fits, the bytes do not */
    assert_false(cf_array_grow(&v, &cap, 16, 16));
    assert_null(v);
    assert_int_equal(cap, SIZE_MAX / 16);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alloc__array_grow_doubles_and_keeps),
        cmocka_unit_test(test_alloc__array_grow_failure_keeps_array),
        cmocka_unit_test(test_alloc__array_grow_overflow_refused),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

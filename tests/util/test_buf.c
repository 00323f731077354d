/* cf_buf: exact bytes of every put, growth, and the sticky oom flag under
 * injected allocation failures (cf_alloc_fail_after). */
#include "test_common.h"

#include <string.h>

#include "util/alloc.h"
#include "util/buf.h"

static void test_buf__puts_exact_bytes(void **state)
{
    cf_buf b;
    cf_buf_init(&b);
    assert_int_equal(b.len, 0);
    assert_null(b.data);
    cf_buf_put_u8(&b, 0xab);
    cf_buf_put_le32(&b, 0x01020304);
    cf_buf_put_be32(&b, 0x01020304);
    cf_buf_put_le64(&b, 0x1122334455667788ull);
    cf_buf_put_varint32(&b, 300);
    cf_buf_put_varint64(&b, UINT64_MAX);
    cf_buf_append(&b, "xy", 2);
    cf_buf_append(&b, NULL, 0); /* empty append is fine, even with NULL */
    uint8_t want[64];
    size_t n = cf_test_unhex("ab 04030201 01020304 8877665544332211 ac02"
                             " ffffffffffffffffff01 7879",
                             want, sizeof want);
    CF_ASSERT_BYTES(b.data, b.len, want, n);
    CF_ASSERT_OK(cf_buf_status(&b), NULL);
    cf_buf_dispose(&b);
    assert_null(b.data);
    assert_int_equal(b.len, 0);
    assert_int_equal(b.cap, 0);
}

static void test_buf__extend_and_clear(void **state)
{
    cf_buf b;
    cf_buf_init(&b);
    uint8_t *p = cf_buf_extend(&b, 10);
    assert_non_null(p);
    memset(p, 7, 10);
    assert_int_equal(b.len, 10);
    size_t cap = b.cap;
    uint8_t *data = b.data;
    cf_buf_clear(&b);
    assert_int_equal(b.len, 0);
    assert_int_equal(b.cap, cap); /* memory kept */
    assert_ptr_equal(b.data, data);
    cf_buf_dispose(&b);
}

static void test_buf__grows_large(void **state)
{
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0xbf));
    cf_buf b;
    cf_buf_init(&b);
    uint8_t *ref = test_malloc(1 << 20);
    size_t len = 0;
    while (len < (1 << 20) - 5000) {
        size_t n = (size_t)cf_rng_below(&r, 5000);
        uint8_t chunk[5000];
        for (size_t i = 0; i < n; i++)
            chunk[i] = (uint8_t)cf_rng_next(&r);
        cf_buf_append(&b, chunk, n);
        memcpy(ref + len, chunk, n);
        len += n;
        assert_true(b.cap >= b.len);
    }
    CF_ASSERT_BYTES(b.data, b.len, ref, len);
    test_free(ref);
    cf_buf_dispose(&b);
}

static void test_buf__reserve_overflow_sets_oom(void **state)
{
    cf_buf b;
    cf_buf_init(&b);
    cf_buf_put_u8(&b, 1);
    assert_false(cf_buf_reserve(&b, SIZE_MAX));
    assert_true(b.oom);
    assert_int_equal(cf_buf_status(&b), CF_ENOMEM);
    cf_buf_dispose(&b);
}

static void test_buf__alloc_failure_is_sticky(void **state)
{
    cf_buf b;
    cf_buf_init(&b);
    cf_alloc_fail_after(1); /* the very next allocation fails */
    cf_buf_put_le32(&b, 42);
    cf_alloc_fail_after(0);
    assert_true(b.oom);
    assert_int_equal(b.len, 0);
    assert_int_equal(cf_buf_status(&b), CF_ENOMEM);
    /* Sticky: later appends do nothing even though memory is available. */
    cf_buf_append(&b, "abc", 3);
    assert_int_equal(b.len, 0);
    assert_null(cf_buf_extend(&b, 1));
    assert_false(cf_buf_reserve(&b, 1));
    /* clear forgets the failure. */
    cf_buf_clear(&b);
    CF_ASSERT_OK(cf_buf_status(&b), NULL);
    cf_buf_append(&b, "abc", 3);
    CF_ASSERT_BYTES(b.data, b.len, "abc", 3);
    cf_buf_dispose(&b);
}

static void test_buf__alloc_failure_on_growth_keeps_data(void **state)
{
    cf_buf b;
    cf_buf_init(&b);
    cf_buf_append(&b, "hello", 5);
    size_t cap = b.cap;
    uint8_t big[256];
    memset(big, 1, sizeof big);
    cf_alloc_fail_after(1);
    cf_buf_append(&b, big, cap); /* needs a realloc, which fails */
    cf_alloc_fail_after(0);
    assert_true(b.oom);
    /* The old contents are intact and still owned (no leak under ASan). */
    CF_ASSERT_BYTES(b.data, b.len, "hello", 5);
    cf_buf_dispose(&b);
}

static void test_buf__reserve_within_capacity_does_not_allocate(void **state)
{
    cf_buf b;
    cf_buf_init(&b);
    assert_true(cf_buf_reserve(&b, 100));
    cf_alloc_fail_after(1); /* would fail, but no allocation should happen */
    assert_true(cf_buf_reserve(&b, 100));
    cf_buf_append(&b, "0123456789", 10);
    assert_false(b.oom);
    cf_alloc_fail_after(0);
    cf_buf_dispose(&b);
}

/* Every allocation step of a long build fails once in turn: the buffer must
 * report ENOMEM and never crash or leak. */
static void test_buf__fail_each_allocation(void **state)
{
    for (uint64_t k = 1; k <= 12; k++) {
        cf_buf b;
        cf_buf_init(&b);
        cf_alloc_fail_after(k);
        for (int i = 0; i < 10000; i++)
            cf_buf_put_varint64(&b, (uint64_t)i * 0x9e3779b97f4a7c15ull);
        cf_alloc_fail_after(0);
        assert_int_equal(cf_buf_status(&b), CF_ENOMEM);
        cf_buf_dispose(&b);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_buf__puts_exact_bytes),
        cmocka_unit_test(test_buf__extend_and_clear),
        cmocka_unit_test(test_buf__grows_large),
        cmocka_unit_test(test_buf__reserve_overflow_sets_oom),
        cmocka_unit_test(test_buf__alloc_failure_is_sticky),
        cmocka_unit_test(test_buf__alloc_failure_on_growth_keeps_data),
        cmocka_unit_test(test_buf__reserve_within_capacity_does_not_allocate),
        cmocka_unit_test(test_buf__fail_each_allocation),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

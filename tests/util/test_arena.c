/* cf_arena: alignment, growth with stable pointers, reset reusing memory, the
 * byte limit and what it bounds, reserve, and injected allocation failures
 * (cf_alloc_fail_after). */
#include "test_common.h"

#include <string.h>

#include "util/alloc.h"
#include "util/arena.h"

static void test_arena__zeroed_is_empty_and_usable(void **state)
{
    cf_arena a = {0};
    assert_int_equal(cf_arena_used(&a), 0);
    assert_int_equal(cf_arena_left(&a), SIZE_MAX);
    assert_false(cf_arena_owns(&a, &a));
    cf_arena_reset(&a); /* on an empty arena: nothing to do */
    uint8_t *p = cf_arena_alloc(&a, 0);
    assert_non_null(p);
    uint8_t *q = cf_arena_alloc(&a, 0);
    assert_non_null(q);
    assert_ptr_not_equal(p, q); /* distinct: empty lists stay distinguishable */
    cf_arena_dispose(&a);
    cf_arena_dispose(&a); /* twice is fine */
    assert_null(a.head);
}

static void test_arena__packed_and_aligned(void **state)
{
    cf_arena a;
    cf_arena_init(&a, 0);
    uint8_t *p = cf_arena_alloc(&a, 3);
    uint8_t *q = cf_arena_alloc(&a, 5);
    assert_ptr_equal(q, p + 3); /* byte allocations are packed */
    assert_int_equal(cf_arena_used(&a), 8);
    for (size_t align = 1; align <= _Alignof(max_align_t); align *= 2) {
        for (size_t n = 0; n < 40; n++) {
            cf_arena_alloc(&a, 1); /* misalign */
            uint8_t *r = cf_arena_alloc_aligned(&a, n, align);
            assert_non_null(r);
            assert_int_equal((uintptr_t)r % align, 0);
            memset(r, 0xab, n);
        }
    }
    /* the first byte of a fresh chunk is aligned for anything */
    uint8_t *big = cf_arena_alloc(&a, CF_ARENA_CHUNK_MAX + 1);
    assert_non_null(big);
    assert_int_equal((uintptr_t)big % _Alignof(max_align_t), 0);
    cf_arena_dispose(&a);
}

/* Many allocations across many chunks: each keeps its bytes (nothing moves),
 * each lies in memory the arena owns, and used counts them exactly. */
static void test_arena__growth_keeps_pointers(void **state)
{
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0xa4e));
    cf_arena a = {0};
    enum { N = 4000 };
    uint8_t **ptr = test_malloc(N * sizeof *ptr);
    size_t *len = test_malloc(N * sizeof *len);
    size_t total = 0;
    for (int i = 0; i < N; i++) {
        /* mostly small, sometimes bigger than a chunk */
        len[i] = cf_rng_below(&r, 8) == 0 ? (size_t)cf_rng_below(&r, 40000) : cf_rng_below(&r, 64);
        ptr[i] = cf_arena_alloc(&a, len[i]);
        assert_non_null(ptr[i]);
        memset(ptr[i], i & 0xff, len[i]);
        total += len[i] ? len[i] : 1;
    }
    assert_int_equal(cf_arena_used(&a), total);
    for (int i = 0; i < N; i++) {
        assert_true(cf_arena_owns(&a, ptr[i]));
        for (size_t k = 0; k < len[i]; k++)
            assert_int_equal(ptr[i][k], i & 0xff);
    }
    int local;
    assert_false(cf_arena_owns(&a, &local));
    test_free(ptr);
    test_free(len);
    cf_arena_dispose(&a);
}

/* After a reset the same work is served from the same memory: no allocation
 * at all (so a scan does not page-fault block after block). */
static void test_arena__reset_reuses_memory(void **state)
{
    cf_arena a = {0};
    uint8_t *first[3];
    for (int round = 0; round < 3; round++) {
        if (round > 0)
            cf_alloc_stats_start();
        first[round] = cf_arena_alloc(&a, 10);
        for (int i = 0; i < 1000; i++)
            assert_non_null(cf_arena_alloc(&a, (size_t)(i % 300)));
        assert_non_null(cf_arena_alloc(&a, 100000)); /* a chunk of its own */
        if (round > 0) {
            cf_alloc_stats s;
            cf_alloc_stats_stop(&s);
            assert_int_equal(s.calls, 0);
        }
        assert_ptr_equal(first[round], first[0]);
        cf_arena_reset(&a);
        assert_int_equal(cf_arena_used(&a), 0);
        assert_false(cf_arena_owns(&a, first[0] + 0x7fffffff));
    }
    /* A request bigger than every chunk held frees the ones it cannot use
     * and takes a new chunk; what is held stays about what the work needs. */
    cf_alloc_stats_start();
    assert_non_null(cf_arena_alloc(&a, (size_t)3 << 20));
    assert_non_null(cf_arena_alloc(&a, (size_t)3 << 20));
    cf_alloc_stats s;
    cf_alloc_stats_stop(&s);
    assert_int_equal(s.calls, 2);
    cf_arena_dispose(&a);
}

/* The limit counts bytes handed out (padding included) between resets: what
 * fits is served, one byte more is refused with the arena unchanged, and a
 * reset makes room again. cf_arena_left tells the limit from memory. */
static void test_arena__limit(void **state)
{
    cf_arena a;
    cf_arena_init(&a, 100000);
    assert_int_equal(cf_arena_left(&a), 100000);
    assert_non_null(cf_arena_alloc(&a, 60000));
    assert_int_equal(cf_arena_left(&a), 40000);
    assert_null(cf_arena_alloc(&a, 40001));
    assert_true(40001 > cf_arena_left(&a)); /* the limit, not memory */
    assert_int_equal(cf_arena_used(&a), 60000);
    assert_false(cf_arena_reserve(&a, 40001));
    assert_true(cf_arena_reserve(&a, 40000));
    uint8_t *p = cf_arena_alloc(&a, 40000);
    assert_non_null(p);
    memset(p, 1, 40000);
    assert_int_equal(cf_arena_left(&a), 0);
    assert_null(cf_arena_alloc(&a, 1));
    assert_null(cf_arena_alloc(&a, 0)); /* a distinct pointer costs a byte */
    assert_null(cf_arena_alloc_aligned(&a, SIZE_MAX, 8));
    cf_arena_reset(&a);
    assert_non_null(cf_arena_alloc(&a, 100000));
    cf_arena_reset(&a);
    /* Padding counts: 1 + 15 + 16 bytes */
    cf_arena_alloc(&a, 1);
    assert_non_null(cf_arena_alloc_aligned(&a, 16, 16));
    assert_int_equal(cf_arena_used(&a), 32);
    cf_arena_dispose(&a);
    assert_int_equal(a.limit, 100000); /* kept */

    /* Sizes near SIZE_MAX are refused, not wrapped, with or without a limit. */
    cf_arena b = {0};
    assert_null(cf_arena_alloc(&b, SIZE_MAX));
    assert_null(cf_arena_alloc_aligned(&b, SIZE_MAX - 3, 16));
    assert_false(cf_arena_reserve(&b, SIZE_MAX - 8));
    assert_true(SIZE_MAX - 8 <= cf_arena_left(&b)); /* so: memory */
    cf_arena_dispose(&b);
}

/* Hostile request sizes against a limited arena: the memory held stays
 * within a small multiple of the limit, reset after reset. */
static void test_arena__limit_bounds_memory(void **state)
{
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0x11e));
    const size_t limit = (size_t)1 << 20;
    cf_arena a;
    cf_arena_init(&a, limit);
    cf_alloc_stats_start();
    for (int round = 0; round < 200; round++) {
        for (int i = 0; i < 50; i++) {
            size_t n = (size_t)cf_rng_below(&r, cf_rng_below(&r, 3) == 0 ? limit : 5000);
            if (cf_arena_alloc(&a, n) == NULL)
                assert_true(n > cf_arena_left(&a));
        }
        assert_true(cf_arena_used(&a) <= limit);
        cf_arena_reset(&a);
    }
    cf_alloc_stats s;
    cf_alloc_stats_stop(&s);
    assert_true(s.peak_live <= 3 * limit);
    cf_arena_dispose(&a);
}

/* reserve makes room without taking it; a loop then bumps p itself. */
static void test_arena__reserve(void **state)
{
    cf_arena a = {0};
    assert_true(cf_arena_reserve(&a, 0));
    assert_true(cf_arena_reserve(&a, 100));
    assert_true((size_t)(a.end - a.p) >= 100);
    uint8_t *p = a.p;
    assert_int_equal(cf_arena_used(&a), 0);
    memset(p, 7, 100);
    a.p += 100; /* taken by hand */
    assert_int_equal(cf_arena_used(&a), 100);
    /* more than the chunk has left: a new chunk; the old bytes stay */
    size_t room = (size_t)(a.end - a.p);
    assert_true(cf_arena_reserve(&a, room + 1));
    assert_true(a.p < p || a.p >= p + 100 + room);
    assert_int_equal(p[99], 7);
    assert_true(cf_arena_owns(&a, p));
    cf_arena_dispose(&a);
}

/* Every allocation fails once in turn: the arena returns NULL (or false),
 * stays consistent, serves later requests, and frees everything. */
static void test_arena__fail_each_allocation(void **state)
{
    for (uint64_t k = 1; k <= 8; k++) {
        cf_arena a = {0};
        size_t failed = 0, ok = 0;
        cf_alloc_fail_after(k);
        for (int i = 0; i < 200; i++) {
            size_t n = (size_t)(i * 997) % 70000;
            uint8_t *p = (i & 1) ? cf_arena_alloc(&a, n) : cf_arena_alloc_aligned(&a, n, 8);
            if (p == NULL) {
                failed++;
                assert_true(n <= cf_arena_left(&a)); /* memory, not the limit */
                continue;
            }
            ok++;
            memset(p, 1, n);
            if (i == 100)
                cf_arena_reset(&a);
        }
        cf_alloc_fail_after(0);
        assert_int_equal(failed, 1);
        assert_true(ok > 0);
        uint8_t *before = a.p;
        size_t used = cf_arena_used(&a);
        cf_alloc_fail_after(1);
        assert_false(cf_arena_reserve(&a, CF_ARENA_CHUNK_MAX * 2));
        cf_alloc_fail_after(0);
        assert_ptr_equal(a.p, before); /* unchanged */
        assert_int_equal(cf_arena_used(&a), used);
        assert_true(cf_arena_reserve(&a, CF_ARENA_CHUNK_MAX * 2));
        cf_arena_dispose(&a);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arena__zeroed_is_empty_and_usable),
        cmocka_unit_test(test_arena__packed_and_aligned),
        cmocka_unit_test(test_arena__growth_keeps_pointers),
        cmocka_unit_test(test_arena__reset_reuses_memory),
        cmocka_unit_test(test_arena__limit),
        cmocka_unit_test(test_arena__limit_bounds_memory),
        cmocka_unit_test(test_arena__reserve),
        cmocka_unit_test(test_arena__fail_each_allocation),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

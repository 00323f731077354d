/* The automatic compaction policy (src/rowset/compaction_policy.c) on synthetic
 * rowsets: tiers, which rowsets a merge takes, the budget and fan-in limits,
 * and long simulated runs of flushes whose rowset count must stay within the
 * bound at every step, with the write amplification the policy promises. */
#include "test_common.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rowset/compaction_policy.h"

static const cf_cpol_options dflt = {4, (uint64_t)128 << 20, 64};

static void test_compaction_policy__tiers_and_bound(void **state)
{
    (void)state;
    assert_int_equal(cf_cpol_tier(0, 4), 0);
    assert_int_equal(cf_cpol_tier(1, 4), 0);
    assert_int_equal(cf_cpol_tier(3, 4), 0);
    assert_int_equal(cf_cpol_tier(4, 4), 1);
    assert_int_equal(cf_cpol_tier(15, 4), 1);
    assert_int_equal(cf_cpol_tier(16, 4), 2);
    assert_int_equal(cf_cpol_tier(65535, 4), 7);
    assert_int_equal(cf_cpol_tier(65536, 4), 8);
    assert_int_equal(cf_cpol_tier(UINT64_MAX, 2), 63);
    assert_int_equal(cf_cpol_tier(999, 10), 2);
    assert_int_equal(cf_cpol_bound(0, 4), 3);
    assert_int_equal(cf_cpol_bound(100000, 4), 27); /* tiers 0..8 */
    assert_int_equal(cf_cpol_bound(1000000, 10), 9 * 7);
}

static size_t pick(const cf_cpol_rowset *rs, size_t n, const cf_cpol_options *o, size_t *out)
{
    size_t np = cf_cpol_pick(rs, n, o, out);
    for (size_t i = 1; i < np; i++)
        assert_true(out[i - 1] < out[i]); /* TABLET order, no repeats */
    return np;
}

static void test_compaction_policy__picks(void **state)
{
    (void)state;
    size_t p[16];
    /* Three small rowsets: no tier is full. */
    cf_cpol_rowset three[3] = {{1, 100}, {2, 100}, {3, 100}};
    assert_int_equal(pick(three, 3, &dflt, p), 0);
    /* The lowest full tier is merged, larger rowsets stay. */
    cf_cpol_rowset mix[7] = {{100, 9000}, {1, 100},   {50, 4000}, {0, 50},
                             {3, 300},    {20, 2000}, {2, 200}};
    assert_int_equal(pick(mix, 7, &dflt, p), 4);
    static const size_t want_mix[4] = {1, 3, 4, 6};
    assert_memory_equal(p, want_mix, sizeof(want_mix));
    /* Tier 1 (4..15 rows) full, tier 0 not: tier 1's members. */
    cf_cpol_rowset t1[6] = {{5, 500}, {1, 100}, {9, 900}, {4, 400}, {100, 1}, {15, 1500}};
    assert_int_equal(pick(t1, 6, &dflt, p), 4);
    static const size_t want_t1[4] = {0, 2, 3, 5};
    assert_memory_equal(p, want_t1, sizeof(want_t1));
    /* Deterministic: the same input, the same answer. */
    size_t q[16];
    assert_int_equal(pick(t1, 6, &dflt, q), 4);
    assert_memory_equal(p, q, sizeof(want_t1));
}

static void test_compaction_policy__budget_and_fan_in(void **state)
{
    (void)state;
    size_t p[128];
    /* Six tier-0 rowsets, room for four: the four smallest (ties by position). */
    cf_cpol_rowset six[6] = {{1, 300}, {1, 100}, {1, 500}, {1, 100}, {1, 200}, {1, 400}};
    cf_cpol_options o = {4, 700, 64};
    assert_int_equal(pick(six, 6, &o, p), 4);
    static const size_t want6[4] = {0, 1, 3, 4};
    assert_memory_equal(p, want6, sizeof(want6));
    /* Everything fits: every member of the tier in one merge. */
    o.budget_bytes = 10000;
    assert_int_equal(pick(six, 6, &o, p), 6);
    /* The budget holds tier 0 back (its four smallest need 1000 bytes); tier 1
     * fits and is merged instead. */
    cf_cpol_rowset held[8] = {{1, 250}, {1, 250}, {1, 250}, {1, 250},
                              {5, 10},  {6, 10},  {7, 10},  {8, 10}};
    o.budget_bytes = 999;
    assert_int_equal(pick(held, 8, &o, p), 4);
    static const size_t want_held[4] = {4, 5, 6, 7};
    assert_memory_equal(p, want_held, sizeof(want_held));
    /* Nothing fits: nothing is merged. */
    o.budget_bytes = 39;
    assert_int_equal(pick(held, 8, &o, p), 0);
    /* Byte sums that would overflow are refused, not wrapped. */
    cf_cpol_rowset huge[4] = {{1, UINT64_MAX - 1}, {1, UINT64_MAX - 1}, {1, 5}, {1, 5}};
    o.budget_bytes = UINT64_MAX;
    assert_int_equal(pick(huge, 4, &o, p), 0);
    /* max_inputs caps a merge of an overfull tier (a table written before
     * automatic compaction: thousands of one-row rowsets). */
    static cf_cpol_rowset many[100];
    for (size_t i = 0; i < 100; i++)
        many[i] = (cf_cpol_rowset){1, 1000 + (i * 37) % 100};
    assert_int_equal(pick(many, 100, &dflt, p), 64);
    uint64_t maxin = 0, minout = UINT64_MAX;
    for (size_t i = 0, k = 0; i < 100; i++) {
        bool in = k < 64 && p[k] == i;
        k += in;
        if (in && many[i].bytes > maxin)
            maxin = many[i].bytes;
        if (!in && many[i].bytes < minout)
            minout = many[i].bytes;
    }
    assert_true(maxin <= minout); /* the smallest were taken */
    /* Options the table never sets: no merge rather than a bad one. */
    o = (cf_cpol_options){1, 1000, 64};
    assert_int_equal(pick(six, 6, &o, p), 0);
    o = (cf_cpol_options){4, 1000, 3};
    assert_int_equal(pick(six, 6, &o, p), 0);
}

/* ---- simulated runs ------------------------------------------------------------------------ */

typedef struct sim {
    cf_cpol_rowset *rs;
    size_t n, cap;
    uint64_t rows, bytes;
    uint64_t rewritten; /* rows read by merges */
    size_t merges, max_count, held_max;
} sim;

static uint64_t sim_bytes(uint64_t rows)
{
    return 4096 + rows * 40; /* a rowset's fixed files, then its rows */
}

static void sim_flush(sim *s, const cf_cpol_options *o, uint64_t rows)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        s->rs = realloc(s->rs, s->cap * sizeof(*s->rs));
        assert_non_null(s->rs);
    }
    s->rs[s->n++] = (cf_cpol_rowset){rows, sim_bytes(rows)};
    s->rows += rows;
    s->bytes += sim_bytes(rows);
    size_t *p = malloc(s->n * sizeof(*p));
    assert_non_null(p);
    for (;;) {
        size_t np = pick(s->rs, s->n, o, p);
        if (np == 0)
            break;
        assert_true(np >= o->fanout && np <= o->max_inputs);
        cf_cpol_rowset out = {0, 0};
        uint64_t in_bytes = 0;
        for (size_t k = 0; k < np; k++) {
            out.rows += s->rs[p[k]].rows;
            in_bytes += s->rs[p[k]].bytes;
        }
        assert_true(in_bytes <= o->budget_bytes);
        out.bytes = sim_bytes(out.rows);
        s->bytes = s->bytes - in_bytes + out.bytes;
        s->rewritten += out.rows;
        s->merges++;
        /* the output takes the first input's place, as the table does */
        size_t j = 0;
        for (size_t i = 0, k = 0; i < s->n; i++) {
            if (k < np && p[k] == i) {
                if (k++ == 0)
                    s->rs[j++] = out;
            } else {
                s->rs[j++] = s->rs[i];
            }
        }
        s->n = j;
    }
    free(p);
    if (s->n > s->max_count)
        s->max_count = s->n;
}

/* 100,000 one-row flushes: the count stays within (K-1)(log_K N + 1) at every
 * step, and each row is rewritten at most log_K N + 1 times. */
static void test_compaction_policy__one_row_flushes(void **state)
{
    (void)state;
    static const uint32_t fanouts[] = {2, 4, 10};
    for (size_t f = 0; f < 3; f++) {
        cf_cpol_options o = {fanouts[f], (uint64_t)1 << 40, 64};
        sim s = {0};
        for (uint64_t i = 1; i <= 100000; i++) {
            sim_flush(&s, &o, 1);
            assert_true(s.n <= cf_cpol_bound(s.rows, o.fanout));
        }
        uint64_t tiers = cf_cpol_tier(s.rows, o.fanout) + 1;
        assert_true(s.rewritten <= s.rows * tiers);
        /* ... and the bound is not loose by much: a run of one-row flushes is
         * a base-K counter, whose digit sum for N = 100000 is small but the
         * maximum over the run reaches (K-1) per tier, minus the top. */
        assert_true(s.max_count + o.fanout > cf_cpol_bound(s.rows, o.fanout) / 2);
        print_message("fanout %u: %zu rowsets at the end, at most %zu, bound %" PRIu64
                      ", %zu merges, %.2f rewrites per row\n",
                      o.fanout, s.n, s.max_count, cf_cpol_bound(s.rows, o.fanout), s.merges,
                      (double)s.rewritten / (double)s.rows);
        free(s.rs);
    }
}

/* Flushes of random sizes under a small budget: the count stays within the
 * bound plus the rowsets too large to merge K at a time (K * bytes / budget). */
static void test_compaction_policy__random_flushes_with_budget(void **state)
{
    (void)state;
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(14003));
    cf_cpol_options o = {4, (uint64_t)4 << 20, 64};
    sim s = {0};
    for (int i = 0; i < 20000; i++) {
        uint64_t rows =
            cf_rng_below(&rng, 8) == 0 ? 1 + cf_rng_below(&rng, 20000) : 1 + cf_rng_below(&rng, 30);
        sim_flush(&s, &o, rows);
        uint64_t held = o.fanout * s.bytes / o.budget_bytes;
        assert_true(s.n <= cf_cpol_bound(s.rows, o.fanout) + held);
    }
    /* The budget did hold merges back (the run reached rowsets above
     * budget / K), and the count still grew only with the bytes. */
    assert_true(s.bytes > 4 * o.budget_bytes);
    print_message("%zu rowsets of %" PRIu64 " rows, %" PRIu64 " MiB; %zu merges\n", s.n, s.rows,
                  s.bytes >> 20, s.merges);
    free(s.rs);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compaction_policy__tiers_and_bound),
        cmocka_unit_test(test_compaction_policy__picks),
        cmocka_unit_test(test_compaction_policy__budget_and_fan_in),
        cmocka_unit_test(test_compaction_policy__one_row_flushes),
        cmocka_unit_test(test_compaction_policy__random_flushes_with_budget),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

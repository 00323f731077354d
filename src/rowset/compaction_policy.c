/* Automatic compaction policy: size tiers, a fan-in, a budget.
 *
 * Kudu's policy (docs/design-docs/compaction-policy.md there) picks, within an
 * I/O budget, the rowsets whose merge most reduces the average "height" of
 * the tablet (how many rowsets cover a key), and rolls every output into
 * key-disjoint rowsets of a bounded size. It bounds the height, not the count:
 * rowsets that do not overlap (keys inserted in order) are never worth merging
 * to it, which is right for Kudu's 32 MiB rowsets but not for ours, where a
 * flush may hold a single row and each rowset costs open files and maps.
 *
 * So this policy bounds the count, as size-tiered LSM compaction does:
 *   tier(r) = 0 when rows(r) < K, else floor(log_K rows(r))    (K = fanout)
 * When some tier holds K or more rowsets, the lowest such tier is merged: its
 * members smallest first (on-disk bytes, then TABLET position), as many as
 * the budget and max_inputs allow, but at least K, else that tier is held back
 * and the next one is tried. Called again after each merge until it picks
 * nothing.
 *
 * Why the count stays bounded: a merge of m >= K rowsets of tier t >= 1 has at
 * least m * K^t >= K^(t+1) rows, so its output sits in a higher tier (no merge
 * drops rows: automatic merges keep all history). When the policy picks
 * nothing, every tier holds at most K - 1 rowsets, and a table of N rows has
 * tiers 0 .. tier(N) only, so at most (K - 1) * (floor(log_K N) + 1) rowsets
 * (cf_cpol_bound), plus those the budget holds back: a held-back tier's K
 * smallest members exceed the budget, so each of them averages more than
 * budget / K bytes, and there are at most K * bytes / budget such rowsets.
 * Write amplification: each merge moves its rows up a tier (tier 0 aside,
 * where empty rowsets sit), so a row is rewritten at most floor(log_K N) + 1
 * times. With random keys every flush overlaps every rowset, the height is the
 * count, and the two policies want the same merges; with keys in order the
 * members of a tier are consecutive flushes, adjacent in key order, so the
 * output overlaps nothing new.
 */
#include "compaction_policy.h"

#include <stdbool.h>

unsigned cf_cpol_tier(uint64_t rows, uint32_t fanout)
{
    unsigned t = 0;
    while (rows >= fanout) {
        rows /= fanout;
        t++;
    }
    return t;
}

uint64_t cf_cpol_bound(uint64_t rows, uint32_t fanout)
{
    return (uint64_t)(fanout - 1) * (cf_cpol_tier(rows, fanout) + 1);
}

/* (bytes, index) order: a before b? */
static bool before(const cf_cpol_rowset *rs, size_t a, size_t b)
{
    return rs[a].bytes != rs[b].bytes ? rs[a].bytes < rs[b].bytes : a < b;
}

/* Pick members of `tier` smallest first within the budget; the count picked. */
static size_t pick_tier(const cf_cpol_rowset *rs, size_t n, const cf_cpol_options *o, unsigned tier,
                        size_t *pick)
{
    size_t np = 0;
    uint64_t sum = 0;
    while (np < o->max_inputs) {
        /* the next member after the last picked one in (bytes, index) order */
        size_t best = n;
        for (size_t i = 0; i < n; i++) {
            if (cf_cpol_tier(rs[i].rows, o->fanout) != tier)
                continue;
            if (np > 0 && !before(rs, pick[np - 1], i))
                continue;
            if (best == n || before(rs, i, best))
                best = i;
        }
        if (best == n || rs[best].bytes > o->budget_bytes - sum)
            break;
        sum += rs[best].bytes;
        pick[np++] = best;
    }
    return np;
}

size_t cf_cpol_pick(const cf_cpol_rowset *rs, size_t n, const cf_cpol_options *o, size_t *pick)
{
    if (o->fanout < 2 || o->max_inputs < o->fanout)
        return 0;
    /* Rowsets per tier (64 tiers cover every uint64_t row count at K = 2). */
    size_t count[65] = {0};
    for (size_t i = 0; i < n; i++)
        count[cf_cpol_tier(rs[i].rows, o->fanout)]++;
    for (unsigned t = 0; t < 65; t++) {
        if (count[t] < o->fanout)
            continue;
        size_t np = pick_tier(rs, n, o, t, pick);
        if (np < o->fanout)
            continue;                   /* held back by the budget */
        for (size_t i = 1; i < np; i++) /* TABLET order */
            for (size_t j = i; j > 0 && pick[j - 1] > pick[j]; j--) {
                size_t x = pick[j];
                pick[j] = pick[j - 1];
                pick[j - 1] = x;
            }
        return np;
    }
    return 0;
}

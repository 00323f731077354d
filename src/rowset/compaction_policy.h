/* Automatic compaction policy of a table (compaction_policy.c): which rowsets
 * to merge after a flush. A pure function of the rowsets' sizes, so it is
 * deterministic and testable on synthetic inputs (tests/rowset/test_compaction_policy.c).
 * Not installed. */
#ifndef CF_ROWSET_COMPACTION_POLICY_H
#define CF_ROWSET_COMPACTION_POLICY_H

#include <stddef.h>
#include <stdint.h>

/* What the policy knows of one rowset. */
typedef struct cf_cpol_rowset {
    uint64_t rows;  /* base rows (deleted ones included) */
    uint64_t bytes; /* on disk: every file its MANIFEST names, the MANIFEST too */
} cf_cpol_rowset;

typedef struct cf_cpol_options {
    uint32_t fanout;       /* K >= 2: a tier spans K times the rows of the one below */
    uint64_t budget_bytes; /* most input bytes one merge may read */
    size_t max_inputs;     /* most rowsets one merge may read (>= fanout) */
} cf_cpol_options;

/* Tier of a rowset of `rows` rows: 0 below K rows, else floor(log_K(rows)). */
unsigned cf_cpol_tier(uint64_t rows, uint32_t fanout);

/* The most rowsets a table of `rows` rows holds after every merge the policy
 * asks for, when no merge is held back by the budget: (K - 1) per tier, over
 * tiers 0 .. tier(rows). */
uint64_t cf_cpol_bound(uint64_t rows, uint32_t fanout);

/* Choose the rowsets of the next merge: writes their indexes (ascending) to
 * pick (room for n) and returns how many, 0 when no merge is due. Requires:
 * o->fanout >= 2, o->max_inputs >= o->fanout. */
size_t cf_cpol_pick(const cf_cpol_rowset *rs, size_t n, const cf_cpol_options *o, size_t *pick);

#endif

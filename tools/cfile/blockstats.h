/* Value statistics of one data block (`cfile info --blocks`): rows, NULLs, the
 * smallest and largest value, and for DICT blocks the number of distinct values,
 * gathered from the decoded rows as they are read. */
#ifndef CF_CLI_BLOCKSTATS_H
#define CF_CLI_BLOCKSTATS_H

#include <stdbool.h>
#include <stdint.h>

#include <cfile/cfile.h>

#include "json.h"

typedef struct cf_cli_bstats {
    cf_type type;
    uint64_t rows, nulls; /* rows seen; NULL rows (array columns: NULL cells) */
    bool has_minmax;      /* a non-NULL, non-NaN value (array columns: element) was seen */
    _Alignas(16) uint8_t min[16], max[16]; /* fixed-width values; binary: a cf_slice */
    uint8_t *min_bytes, *max_bytes;        /* binary: owned copies the slices point at */
    bool want_distinct;                    /* DICT: count distinct values */
    uint64_t *hashes;                      /* one 64-bit hash per non-NULL value */
    size_t nhashes, hcap;
    bool oom;
} cf_cli_bstats;

void cf_cli_bstats_init(cf_cli_bstats *s, cf_type t, bool want_distinct);
void cf_cli_bstats_dispose(cf_cli_bstats *s);
/* Row i of a batch (array cells: every element counts toward min/max). */
void cf_cli_bstats_add(cf_cli_bstats *s, bool is_array, const cf_batch *b, size_t i);
/* Distinct values seen (exact but for 64-bit hash collisions); call once, at the end. */
uint64_t cf_cli_bstats_distinct(cf_cli_bstats *s);
/* The value forms of min and max (cf_cli_value_write); null when there is none. */
void cf_cli_bstats_write_min(cf_jw *w, const cf_cli_bstats *s);
void cf_cli_bstats_write_max(cf_jw *w, const cf_cli_bstats *s);

#endif

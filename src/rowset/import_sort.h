/* The bulk loader's external sort (import_sort.c): rows that do not arrive in key
 * order are held as records in memory up to a budget, sorted by encoded key
 * (memcmp order) and spilled as sorted runs to files in a scratch directory the
 * loader owns; at the end every run is merged into one rowset writer, in key
 * order, so the load's rowsets do not overlap. Not installed.
 *
 * Call order: create (add (full? spill)?)* drain? free. */
#ifndef CF_ROWSET_IMPORT_SORT_H
#define CF_ROWSET_IMPORT_SORT_H

#include "internal.h"

typedef struct cf_rs_sorter cf_rs_sorter;

/* budget: the bytes of rows (records and their sort index) held in memory
 * before a spill, and of the read buffers of a merge. */
cf_status cf_rs_sorter_create(cf_rs_sorter **out, const cf_schema *s, size_t budget, cf_error *err);
/* Removes its run files (not the directory). NULL is a no-op. */
void cf_rs_sorter_free(cf_rs_sorter *so);

/* Row i of cols (one cf_colvec per column; eoff[c] is its first array element,
 * moved past it), with encoded key k and load row number `row`. */
cf_status cf_rs_sorter_add(cf_rs_sorter *so, const uint8_t *k, size_t kl, const cf_colvec *cols,
                           size_t i, size_t *eoff, uint64_t row, cf_error *err);
/* Rows held in memory, and runs spilled. */
size_t cf_rs_sorter_rows(const cf_rs_sorter *so);
size_t cf_rs_sorter_runs(const cf_rs_sorter *so);
/* Has what is held reached the budget? */
bool cf_rs_sorter_full(const cf_rs_sorter *so);
/* Bytes held in memory (records and index). */
size_t cf_rs_sorter_bytes(const cf_rs_sorter *so);
/* Did every row held arrive in strictly increasing key order (nothing spilled)?
 * Then *last (valid until the next call) is the last key. */
bool cf_rs_sorter_in_order(const cf_rs_sorter *so, cf_slice *last);

/* Every row of rowset rs (its base values) as rows numbered `row`, spill(ctx)
 * called each time the sorter is full. */
cf_status cf_rs_sorter_add_rowset(cf_rs_sorter *so, cf_rowset *rs, uint64_t row,
                                  cf_status (*spill)(void *ctx, cf_error *err), void *ctx,
                                  cf_error *err);
/* Sort the rows held and write them as a run file in (dfd, dir) (dirfd.c; the
 * sorter keeps its own descriptor of the first one it is given; made by the caller,
 * holding nothing else of the sorter's). A key repeated among them is CF_EINVAL
 * "row N: duplicate key (repeated in the load)" with *err_row = N. */
cf_status cf_rs_sorter_spill(cf_rs_sorter *so, int dfd, const char *dir, uint64_t *err_row,
                             cf_error *err);
/* Every row added, in key order, into w (merging the runs in dir when any was
 * spilled); the sorter is empty after. Duplicates as spill reports them (the
 * later row of a pair). */
cf_status cf_rs_sorter_drain(cf_rs_sorter *so, int dfd, const char *dir, cf_rowset_writer *w,
                             uint64_t *err_row, cf_error *err);

#endif

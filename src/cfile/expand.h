/* Internal: spreading a nullable block's dense values over its rows. */
#ifndef CF_CFILE_EXPAND_H
#define CF_CFILE_EXPAND_H

#include <stddef.h>
#include <stdint.h>

/* Readable bytes expand needs after the k dense values (vector loads). */
#define CF_EXPAND_SLACK 64

/* Spread k dense values of es bytes over n rows following bitmap bits
 * [bit0, bit0 + n) (k = the set bits among them): a set bit takes the next
 * dense value, a clear one zeros. dense has CF_EXPAND_SLACK readable bytes
 * after its k values; out and dense do not overlap. */
void cf_expand_nulls(uint8_t *out, const uint8_t *dense, const uint8_t *bm, size_t bit0, size_t n,
                     size_t k, size_t es);

#endif

/* Internal: spreading a nullable block's dense values over its rows. */
#ifndef CF_CFILE_EXPAND_H
#define CF_CFILE_EXPAND_H

#include <stddef.h>
#include <stdint.h>

#include <cfile/types.h>

/* Spread k dense values of es bytes over n rows following bitmap bits
 * [bit0, bit0 + n) (k = the set bits among them): a set bit takes the next
 * dense value, a clear one zeros. Reads nothing past the k dense values, so
 * dense may point straight into a block (PLAIN). dense either does not
 * overlap out or is exactly out's last k values (out + (n - k) * es): a
 * decoder may write the values there and the rows are then spread in place
 * (every step reads its values before it writes rows, and a row is never
 * written before the dense values at or below it have been read). */
void cf_expand_nulls(uint8_t *out, const uint8_t *dense, const uint8_t *bm, size_t bit0, size_t n,
                     size_t k, size_t es);

/* The same for a DICT block's rows: k codewords (each < the dictionary's
 * size) spread over n rows as their dictionary entries, NULL rows as empty
 * slices; reads nothing past the k codewords. */
void cf_expand_dict(cf_slice *out, const uint32_t *cw, const cf_slice *entries, const uint8_t *bm,
                    size_t bit0, size_t n, size_t k);

/* The loops cf_expand_nulls and cf_expand_dict use: "avx2" or "portable"
 * (for tests). */
const char *cf_expand_impl(void);

/* The portable loops alone (what CPUs without AVX2 run), same contracts:
 * for tests. */
void cf_expand_nulls_portable(uint8_t *out, const uint8_t *dense, const uint8_t *bm, size_t bit0,
                              size_t n, size_t k, size_t es);
void cf_expand_dict_portable(cf_slice *out, const uint32_t *cw, const cf_slice *entries,
                             const uint8_t *bm, size_t bit0, size_t n, size_t k);

#endif

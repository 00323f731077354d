/* Internal: a DICT block's codewords turned into their dictionary entries
 * (dict.c), checked and looked up in one pass. */
#ifndef CF_ENCODING_DICT_LOOKUP_H
#define CF_ENCODING_DICT_LOOKUP_H

#include <stddef.h>
#include <stdint.h>

#include "cfile/types.h"

/* out[i] = entries[cw[i]] for i < n while cw[i] < count; returns n, or the
 * index of the first codeword >= count (out[i] for i at and past it unset;
 * no entry past count is ever read). */
size_t cf_dict_lookup(cf_slice *out, const uint32_t *cw, size_t n, const cf_slice *entries,
                      size_t count);
/* The same without SIMD (tests compare the two). */
size_t cf_dict_lookup_portable(cf_slice *out, const uint32_t *cw, size_t n, const cf_slice *entries,
                               size_t count);
/* The kernel cf_dict_lookup uses: "avx2" or "portable". */
const char *cf_dict_lookup_impl(void);

#endif

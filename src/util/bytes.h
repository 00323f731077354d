/* The order of byte strings every key comparison in the library uses: memcmp
 * order, a proper prefix first (an empty string before every other). One
 * definition so that sorted keys written by one layer (bloom files, rowsets,
 * Kudu's partition keys) are read back in the order another layer expects. */
#ifndef CF_UTIL_BYTES_H
#define CF_UTIL_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "endian.h"

/* -1, 0 or 1 as a sorts before, with or after b. An absent string (NULL, 0)
 * compares no bytes: memcmp takes no NULL even for a length of 0. Inline: it
 * sits in sort and merge loops. */
static inline int cf_bytes_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int c = n > 0 ? memcmp(a, b, n) : 0;
    if (c != 0)
        return c < 0 ? -1 : 1;
    return alen < blen ? -1 : alen > blen;
}

/* The same order eight bytes at a time as big-endian words, with no call:
 * for the short keys of value seeks (PREFIX restart fences; index blocks keep
 * a form of their own on slices, see index_block.c), where a memcmp call costs
 * more than the comparison and a seek makes several. */
static inline int cf_bytes_cmp_short(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen, i = 0;
    for (; n - i >= 8; i += 8) {
        uint64_t x = cf_load_be64(a + i), y = cf_load_be64(b + i);
        if (x != y)
            return x < y ? -1 : 1;
    }
    for (; i < n; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return alen < blen ? -1 : alen > blen;
}

#endif

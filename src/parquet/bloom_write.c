/* A writer's split-block bloom filter (apache/parquet-format BloomFilter.md):
 * its size, and the set of distinct value hashes a column chunk collects
 * before the filter is built. The hash and the block operations themselves
 * are shared with the reader (bloom.c).
 *
 * Size: the bits BloomFilter.md gives for n distinct values and a
 * false-positive rate p, m = -8n / ln(1 - p^(1/8)), rounded up to a power of
 * two bytes between 32 bytes and 128 MiB.
 */
#include "writer.h"

#include <math.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

size_t cf_pq_bloom_bytes(uint64_t ndv, double fpp)
{
    if (!(fpp > 0.0 && fpp < 1.0))
        fpp = 0.01;
    double bits = -8.0 * (double)ndv / log(1.0 - pow(fpp, 1.0 / 8.0));
    size_t bytes = 32;
    while ((double)bytes * 8.0 < bits && bytes < CF_PQ_BLOOM_MAX_BYTES)
        bytes <<= 1;
    return bytes;
}

/* ---- a set of hashes: the distinct values of one column chunk -------------------------- */

void cf_pq_hashset_dispose(cf_pq_hashset *s)
{
    cf_free(s->slots);
    memset(s, 0, sizeof(*s));
}

/* Hash 0 marks an empty slot, so it is kept aside. */
bool cf_pq_hashset_add(cf_pq_hashset *s, uint64_t h)
{
    if (h == 0) {
        s->has_zero = true;
        return true;
    }
    if (2 * (s->count + 1) > s->cap) {
        size_t ncap = s->cap ? 2 * s->cap : 1024;
        uint64_t *ns = cf_calloc(ncap, sizeof(*ns));
        if (ns == NULL)
            return false;
        for (size_t i = 0; i < s->cap; i++) {
            uint64_t v = s->slots[i];
            if (v == 0)
                continue;
            size_t j = (size_t)(v ^ (v >> 29)) & (ncap - 1);
            while (ns[j] != 0)
                j = (j + 1) & (ncap - 1);
            ns[j] = v;
        }
        cf_free(s->slots);
        s->slots = ns;
        s->cap = ncap;
    }
    size_t j = (size_t)(h ^ (h >> 29)) & (s->cap - 1);
    while (s->slots[j] != 0) {
        if (s->slots[j] == h)
            return true;
        j = (j + 1) & (s->cap - 1);
    }
    s->slots[j] = h;
    s->count++;
    return true;
}

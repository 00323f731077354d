/* Internal: every allocation goes through here (one place to inject failures),
 * and size arithmetic is checked. */
#ifndef CF_UTIL_ALLOC_H
#define CF_UTIL_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void *cf_malloc(size_t n);
void *cf_calloc(size_t count, size_t size);
void *cf_realloc(void *p, size_t n);
void cf_free(void *p);
/* A copy of the string through cf_malloc (free it with cf_free); NULL when out of memory. */
char *cf_strdup(const char *s);

/* Double the capacity *cap of the growable array whose pointer is at arr (a
 * T ** passed as void *), of elements of `size` bytes; an empty one gets
 * `first`. False when out of memory or the size overflows: the array and *cap
 * are then as they were. Call it when the array is full. */
bool cf_array_grow(void *arr, size_t *cap, size_t size, size_t first);

/* Tests: make the n-th allocation from now fail (0 = never). */
void cf_alloc_fail_after(uint64_t n);

/* Tests: allocation accounting, so a test can bound what a hostile file makes
 * the reader allocate. Off until started; costs one relaxed atomic load per
 * call while off. Counts every thread. */
typedef struct cf_alloc_stats {
    uint64_t calls;   /* successful cf_malloc/cf_calloc/cf_realloc calls */
    size_t largest;   /* largest single request in bytes */
    size_t peak_live; /* most bytes (allocator usable sizes) live at once,
                       * counting only what was allocated since the start */
} cf_alloc_stats;
/* Reset the counters and start counting. */
void cf_alloc_stats_start(void);
/* Stop counting; *out (may be NULL) gets the counters since the start. */
void cf_alloc_stats_stop(cf_alloc_stats *out);

/* true and *out = a*b (a+b) when it fits, false on overflow. */
static inline bool cf_mul_ok(size_t a, size_t b, size_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}
static inline bool cf_add_ok(size_t a, size_t b, size_t *out)
{
    return !__builtin_add_overflow(a, b, out);
}

#endif

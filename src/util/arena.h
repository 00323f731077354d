/* Internal: the one bump allocator. Many small allocations from a list of
 * chunks, freed all at once; what it hands out never moves, so pointers stay
 * valid until the next reset. A reset keeps the chunks for reuse, so a scan
 * that rebuilds values block after block allocates (and page-faults) only
 * while it warms up.
 *
 *   cf_arena a = {0};                  (or cf_arena_init(&a, limit))
 *   p = cf_arena_alloc(&a, n);         NULL: out of memory, or over the limit
 *   cf_arena_reset(&a);                everything handed out is dead; memory kept
 *   cf_arena_dispose(&a);              everything freed; `a` is empty again
 *
 * Call order: init? (alloc | alloc_aligned | reserve | reset)* dispose.
 * A zeroed cf_arena is an empty arena without a limit. One arena belongs to one
 * thread at a time. A cf_arena may be moved by struct assignment (forget the
 * source afterwards): nothing points back into the struct. */
#ifndef CF_UTIL_ARENA_H
#define CF_UTIL_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cf_arena_chunk cf_arena_chunk;

typedef struct cf_arena {
    /* The free room of the current chunk (NULL, NULL before the first). A hot
     * loop may copy p and end into locals, bump its copy of p itself, and store
     * it back before the next call on the arena (see cf_arena_reserve). */
    uint8_t *p, *end;
    cf_arena_chunk *cur;         /* the chunk p points into */
    cf_arena_chunk *head, *tail; /* every chunk held, oldest first */
    size_t done;                 /* bytes used in the chunks before cur since the reset */
    size_t limit;                /* most bytes handed out between resets; 0 = no limit */
} cf_arena;

/* Chunks hold at least this many bytes and at most CF_ARENA_CHUNK_MAX (or the
 * one request that needs more); each new chunk doubles the last. */
#define CF_ARENA_CHUNK_MIN ((size_t)16 << 10)
#define CF_ARENA_CHUNK_MAX ((size_t)16 << 20)

/* An empty arena that hands out at most `limit` bytes (alignment padding
 * included) between resets; 0 = no limit. With a limit, the memory held also
 * stays within about twice the limit, whatever the requests. */
void cf_arena_init(cf_arena *a, size_t limit);
/* Free every chunk; the arena is empty again (its limit kept). */
void cf_arena_dispose(cf_arena *a);
/* Everything handed out is dead: start over in the first chunk, keeping all
 * chunks for reuse. */
void cf_arena_reset(cf_arena *a);

/* Make the current room (a->p .. a->end) hold at least n bytes, moving on to
 * a later or new chunk when it does not; nothing is handed out yet (bump a->p
 * to take it). For a loop that takes room for a whole batch up front. false
 * when memory is short or n would pass the limit (the arena is unchanged). */
bool cf_arena_reserve(cf_arena *a, size_t n);

void *cf_arena_alloc_slow(cf_arena *a, size_t n, size_t align);

/* n bytes, byte-aligned (packed right after the previous allocation); n == 0
 * gives a valid pointer. NULL when memory is short or n would pass the limit
 * (cf_arena_left tells which). */
static inline void *cf_arena_alloc(cf_arena *a, size_t n)
{
    /* n - 1 < room: 1 <= n <= room (n == 0 and a NULL p go the slow way) */
    if (n - 1 < (size_t)(a->end - a->p)) {
        uint8_t *r = a->p;
        a->p = r + n;
        return r;
    }
    return cf_arena_alloc_slow(a, n, 1);
}

/* n bytes at a multiple of align (a power of two, at most
 * alignof(max_align_t)); otherwise as cf_arena_alloc. */
static inline void *cf_arena_alloc_aligned(cf_arena *a, size_t n, size_t align)
{
    size_t room = (size_t)(a->end - a->p);
    size_t pad = (size_t)(-(uintptr_t)a->p) & (align - 1);
    if (n - 1 < room && pad <= room - n) {
        uint8_t *r = a->p + pad;
        a->p = r + n;
        return r;
    }
    return cf_arena_alloc_slow(a, n, align);
}

/* Bytes handed out since the last reset, alignment padding included (what
 * the limit counts; the unused tail of a chunk left behind is not). */
size_t cf_arena_used(const cf_arena *a);
/* Bytes that may still be handed out before the limit (SIZE_MAX without one):
 * after a failed allocation of n bytes, n > cf_arena_left means the limit,
 * else memory was short. */
size_t cf_arena_left(const cf_arena *a);
/* Does v point into a chunk the arena has handed out from since the last
 * reset (the current one or one before it)? */
bool cf_arena_owns(const cf_arena *a, const void *v);

#endif

/* The bump allocator (arena.h). Chunks are kept in allocation order; a reset
 * walks them again from the first, so a steady workload reuses the same
 * memory. A chunk too small for a request met on that walk is freed rather
 * than skipped for good, so what is held follows what the work needs. */
#include "arena.h"

#include <assert.h>
#include <string.h>

#include "alloc.h"

struct cf_arena_chunk {
    cf_arena_chunk *next;
    size_t cap;
    max_align_t data[]; /* cap bytes, aligned for anything */
};

static inline uint8_t *chunk_data(cf_arena_chunk *c)
{
    return (uint8_t *)c->data;
}

void cf_arena_init(cf_arena *a, size_t limit)
{
    memset(a, 0, sizeof *a);
    a->limit = limit;
}

void cf_arena_dispose(cf_arena *a)
{
    cf_arena_chunk *c = a->head;
    while (c != NULL) {
        cf_arena_chunk *next = c->next;
        cf_free(c);
        c = next;
    }
    cf_arena_init(a, a->limit);
}

/* Bytes the limit still allows when `done` bytes are used. */
static inline size_t allowed(const cf_arena *a, size_t done)
{
    return a->limit ? a->limit - done : SIZE_MAX;
}

/* Room of chunk c when it starts with `done` bytes used before it. */
static inline uint8_t *window_end(const cf_arena *a, cf_arena_chunk *c, size_t done)
{
    size_t left = allowed(a, done);
    return chunk_data(c) + (c->cap < left ? c->cap : left);
}

void cf_arena_reset(cf_arena *a)
{
    a->done = 0;
    a->cur = a->head;
    if (a->head != NULL) {
        a->p = chunk_data(a->head);
        a->end = window_end(a, a->head, 0);
    }
}

size_t cf_arena_used(const cf_arena *a)
{
    return a->done + (a->cur ? (size_t)(a->p - chunk_data(a->cur)) : 0);
}

size_t cf_arena_left(const cf_arena *a)
{
    return allowed(a, cf_arena_used(a));
}

bool cf_arena_owns(const cf_arena *a, const void *v)
{
    if (a->cur == NULL)
        return false;
    for (cf_arena_chunk *c = a->head;; c = c->next) {
        if ((uintptr_t)v - (uintptr_t)chunk_data(c) < c->cap)
            return true;
        if (c == a->cur)
            return false;
    }
}

/* Move to the first chunk after the current one whose room holds `need`
 * bytes, allocating one when there is none. The arena is unchanged on failure
 * (but for later chunks too small to be of use, which are freed either way). */
static bool next_chunk(cf_arena *a, size_t need)
{
    size_t done = cf_arena_used(a);
    size_t left = allowed(a, done);
    if (need > left)
        return false;
    cf_arena_chunk *prev = a->cur, *c = prev ? prev->next : NULL;
    while (c != NULL && c->cap < need) {
        cf_arena_chunk *next = c->next;
        prev->next = next;
        if (a->tail == c)
            a->tail = prev;
        cf_free(c);
        c = next;
    }
    if (c == NULL) {
        /* cur is now the last chunk: the new one goes after it */
        size_t cap = a->tail ? a->tail->cap : 0;
        cap = cap > CF_ARENA_CHUNK_MAX / 2 ? CF_ARENA_CHUNK_MAX : cap * 2;
        if (cap < CF_ARENA_CHUNK_MIN)
            cap = CF_ARENA_CHUNK_MIN;
        if (cap > left)
            cap = left; /* bounded memory: never more than the limit allows */
        if (cap < need)
            cap = need;
        size_t bytes;
        if (!cf_add_ok(sizeof *c, cap, &bytes) || (c = cf_malloc(bytes)) == NULL)
            return false;
        c->next = NULL;
        c->cap = cap;
        if (a->tail != NULL)
            a->tail->next = c;
        else
            a->head = c;
        a->tail = c;
    }
    a->done = done;
    a->cur = c;
    a->p = chunk_data(c);
    a->end = window_end(a, c, done);
    return true;
}

bool cf_arena_reserve(cf_arena *a, size_t n)
{
    if (a->cur != NULL && n <= (size_t)(a->end - a->p))
        return true;
    return next_chunk(a, n);
}

void *cf_arena_alloc_slow(cf_arena *a, size_t n, size_t align)
{
    assert(align > 0 && (align & (align - 1)) == 0 && align <= _Alignof(max_align_t));
    if (n == 0)
        n = 1; /* a valid pointer, distinct from the next one */
    if (a->cur != NULL) {
        size_t room = (size_t)(a->end - a->p);
        size_t pad = (size_t)(-(uintptr_t)a->p) & (align - 1);
        if (pad <= room && n <= room - pad) {
            uint8_t *r = a->p + pad;
            a->p = r + n;
            return r;
        }
    }
    /* a chunk's start is aligned for anything: no padding there */
    if (!next_chunk(a, n))
        return NULL;
    uint8_t *r = a->p;
    a->p = r + n;
    return r;
}

#include "alloc.h"

#include <malloc.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* 0 = no injected failure pending. Atomic so that threads sharing a reader in
 * tests do not race on it. */
static _Atomic uint64_t fail_countdown;

static bool should_fail(void)
{
    uint64_t n = atomic_load_explicit(&fail_countdown, memory_order_relaxed);
    if (n == 0)
        return false;
    if (atomic_fetch_sub(&fail_countdown, 1) == 1)
        return true;
    return false;
}

void cf_alloc_fail_after(uint64_t n)
{
    atomic_store(&fail_countdown, n);
}

/* ---- accounting (tests only; see alloc.h) ------------------------------------------ */

static _Atomic bool acct_on;
static _Atomic uint64_t acct_calls;
static _Atomic size_t acct_largest;
/* Signed: a block allocated before the start and freed after it takes away
 * bytes that were never added. */
static _Atomic int64_t acct_live, acct_peak;

static bool counting(void)
{
    return atomic_load_explicit(&acct_on, memory_order_relaxed);
}

static void note_alloc(void *p, size_t request)
{
    if (p == NULL || !counting())
        return;
    atomic_fetch_add(&acct_calls, 1);
    size_t big = atomic_load(&acct_largest);
    while (request > big && !atomic_compare_exchange_weak(&acct_largest, &big, request)) {
    }
    int64_t live = atomic_fetch_add(&acct_live, (int64_t)malloc_usable_size(p)) +
                   (int64_t)malloc_usable_size(p);
    int64_t peak = atomic_load(&acct_peak);
    while (live > peak && !atomic_compare_exchange_weak(&acct_peak, &peak, live)) {
    }
}

static void note_free(void *p)
{
    if (p != NULL && counting())
        atomic_fetch_sub(&acct_live, (int64_t)malloc_usable_size(p));
}

void cf_alloc_stats_start(void)
{
    atomic_store(&acct_calls, 0);
    atomic_store(&acct_largest, 0);
    atomic_store(&acct_live, 0);
    atomic_store(&acct_peak, 0);
    atomic_store(&acct_on, true);
}

void cf_alloc_stats_stop(cf_alloc_stats *out)
{
    atomic_store(&acct_on, false);
    if (out == NULL)
        return;
    out->calls = atomic_load(&acct_calls);
    out->largest = atomic_load(&acct_largest);
    int64_t peak = atomic_load(&acct_peak);
    out->peak_live = peak > 0 ? (size_t)peak : 0;
}

/* ---- the allocator ------------------------------------------------------------------ */

void *cf_malloc(size_t n)
{
    if (should_fail())
        return NULL;
    void *p = malloc(n ? n : 1);
    note_alloc(p, n);
    return p;
}

void *cf_calloc(size_t count, size_t size)
{
    if (should_fail())
        return NULL;
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (p != NULL && counting()) {
        size_t total;
        note_alloc(p, cf_mul_ok(count, size, &total) ? total : SIZE_MAX);
    }
    return p;
}

bool cf_array_grow(void *arr, size_t *cap, size_t size, size_t first)
{
    size_t n = *cap ? *cap * 2 : first, bytes;
    if (n < *cap || !cf_mul_ok(n, size, &bytes))
        return false;
    void *p;
    memcpy(&p, arr, sizeof p); /* arr holds a T *: read and written as the bytes of a pointer */
    p = cf_realloc(p, bytes);
    if (p == NULL)
        return false;
    memcpy(arr, &p, sizeof p);
    *cap = n;
    return true;
}

char *cf_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = cf_malloc(n);
    if (p != NULL)
        memcpy(p, s, n);
    return p;
}

void *cf_realloc(void *p, size_t n)
{
    if (should_fail())
        return NULL;
    size_t old = p != NULL && counting() ? malloc_usable_size(p) : 0;
    void *q = realloc(p, n ? n : 1);
    if (q != NULL && counting()) {
        atomic_fetch_sub(&acct_live, (int64_t)old);
        note_alloc(q, n);
    }
    return q;
}

void cf_free(void *p)
{
    note_free(p);
    free(p);
}

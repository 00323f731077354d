#include "alloc.h"

#include <stdatomic.h>
#include <stdlib.h>

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

void cf_alloc_fail_after(uint64_t n) { atomic_store(&fail_countdown, n); }

void *cf_malloc(size_t n) { return should_fail() ? NULL : malloc(n ? n : 1); }

void *cf_calloc(size_t count, size_t size)
{
    return should_fail() ? NULL : calloc(count ? count : 1, size ? size : 1);
}

void *cf_realloc(void *p, size_t n) { return should_fail() ? NULL : realloc(p, n ? n : 1); }

void cf_free(void *p) { free(p); }

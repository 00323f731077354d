/* Run-time kernel dispatch (cpu.h): the CPU's features, detected once and
 * less what CF_CPU_DISABLE hides, and the pick of a module's kernel. */
#include "cpu.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    unsigned bit;
} names[] = {
    {"ssse3", CF_CPU_SSSE3},           {"sse4.2", CF_CPU_SSE42},
    {"pclmul", CF_CPU_PCLMUL},         {"avx2", CF_CPU_AVX2},
    {"avx512f", CF_CPU_AVX512F},       {"avx512bw", CF_CPU_AVX512BW},
    {"avx512vbmi", CF_CPU_AVX512VBMI}, {"gfni", CF_CPU_GFNI},
    {"vpclmulqdq", CF_CPU_VPCLMULQDQ}, {"sse4.1", CF_CPU_SSE41},
    {"popcnt", CF_CPU_POPCNT},
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static unsigned features;

/* The bits CF_CPU_DISABLE names ("all", or names separated by commas;
 * unknown names are ignored, so an old build takes a newer list). */
static unsigned disabled(void)
{
    const char *env = getenv("CF_CPU_DISABLE");
    if (env == NULL)
        return 0;
    unsigned off = 0;
    while (*env != '\0') {
        size_t len = strcspn(env, ",");
        if (len == 3 && memcmp(env, "all", 3) == 0)
            off = ~0u;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strlen(names[i].name) == len && memcmp(env, names[i].name, len) == 0)
                off |= names[i].bit;
        env += len + (env[len] == ',');
    }
    return off;
}

static void detect(void)
{
    unsigned f = 0;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init(); /* __builtin_cpu_supports takes only string literals */
    f |= __builtin_cpu_supports("ssse3") ? CF_CPU_SSSE3 : 0u;
    f |= __builtin_cpu_supports("sse4.2") ? CF_CPU_SSE42 : 0u;
    f |= __builtin_cpu_supports("pclmul") ? CF_CPU_PCLMUL : 0u;
    f |= __builtin_cpu_supports("avx2") ? CF_CPU_AVX2 : 0u;
    f |= __builtin_cpu_supports("avx512f") ? CF_CPU_AVX512F : 0u;
    f |= __builtin_cpu_supports("avx512bw") ? CF_CPU_AVX512BW : 0u;
    f |= __builtin_cpu_supports("avx512vbmi") ? CF_CPU_AVX512VBMI : 0u;
    f |= __builtin_cpu_supports("gfni") ? CF_CPU_GFNI : 0u;
    f |= __builtin_cpu_supports("vpclmulqdq") ? CF_CPU_VPCLMULQDQ : 0u;
    f |= __builtin_cpu_supports("sse4.1") ? CF_CPU_SSE41 : 0u;
    f |= __builtin_cpu_supports("popcnt") ? CF_CPU_POPCNT : 0u;
#endif
    features = f & ~disabled();
}

unsigned cf_cpu_features(void)
{
    pthread_once(&once, detect);
    return features;
}

const cf_cpu_kernel *cf_cpu_pick(const cf_cpu_kernel *list, size_t n)
{
    size_t i = 0;
    while (i + 1 < n && !cf_cpu_has(list[i].needs))
        i++;
    return &list[i];
}

/* Two threads may both get here first: one lock makes prepare run once. */
static pthread_mutex_t resolve_lock = PTHREAD_MUTEX_INITIALIZER;

const cf_cpu_kernel *cf_cpu_resolve_slow(cf_cpu_dispatch *d)
{
    pthread_mutex_lock(&resolve_lock);
    const cf_cpu_kernel *k = atomic_load_explicit(&d->chosen, memory_order_relaxed);
    if (k == NULL) {
        k = cf_cpu_pick(d->list, d->n);
        if (k->prepare != NULL)
            k->prepare();
        atomic_store_explicit(&d->chosen, k, memory_order_release);
    }
    pthread_mutex_unlock(&resolve_lock);
    return k;
}

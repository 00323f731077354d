/* Internal: run-time dispatch of the SIMD kernels (crc32, crc32c, bitshuffle,
 * lz4, snappy in codec/; the popcount of util/bitmap.c; the NULL expansion of
 * cfile/expand.c; STYLE.md §4). It lives in util/, the lowest layer, so that
 * every layer, util/ itself included, asks the CPU through it: one detection
 * and one CF_CPU_DISABLE for all. What the CPU offers is detected once; a module
 * lists its kernels, fastest first, each with the features it needs, and the
 * first one the CPU has is resolved once and then called through a pointer
 * (crc32 and crc32c, which build tables first, ask cf_cpu_has in their own
 * once-only setup instead).
 *
 * The environment variable CF_CPU_DISABLE, read once, hides features from
 * every module: a comma-separated list of the names below, or "all". Tests
 * run the portable and narrower kernels with it on any machine (CMakeLists.txt
 * runs the decoder, bitmap and expansion tests again with CF_CPU_DISABLE=all).
 *
 *     static const cf_cpu_kernel kernels[] = {
 *         {"ssse3", CF_CPU_SSSE3, (cf_cpu_fn)decode_ssse3, init_tables},
 *         {"portable", 0, (cf_cpu_fn)decode_portable, NULL},
 *     };
 *     static cf_cpu_dispatch decoder = CF_CPU_DISPATCH(kernels);
 *     ...
 *     decode_fn decode = (decode_fn)cf_cpu_resolve(&decoder)->fn;
 */
#ifndef CF_UTIL_CPU_H
#define CF_UTIL_CPU_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

/* x86 features ("ssse3", "sse4.2", ... as CF_CPU_DISABLE names them); 0 elsewhere. */
enum {
    CF_CPU_SSSE3 = 1u << 0,      /* "ssse3" */
    CF_CPU_SSE42 = 1u << 1,      /* "sse4.2" */
    CF_CPU_PCLMUL = 1u << 2,     /* "pclmul" */
    CF_CPU_AVX2 = 1u << 3,       /* "avx2" */
    CF_CPU_AVX512F = 1u << 4,    /* "avx512f" (the OS saves the 512-bit state: libgcc checks) */
    CF_CPU_AVX512BW = 1u << 5,   /* "avx512bw" */
    CF_CPU_AVX512VBMI = 1u << 6, /* "avx512vbmi" */
    CF_CPU_GFNI = 1u << 7,       /* "gfni" */
    CF_CPU_VPCLMULQDQ = 1u << 8, /* "vpclmulqdq" */
    CF_CPU_SSE41 = 1u << 9,      /* "sse4.1" */
    CF_CPU_POPCNT = 1u << 10,    /* "popcnt" */
};

/* The features of this CPU less those CF_CPU_DISABLE hides (detected once). */
unsigned cf_cpu_features(void);
/* Has the CPU every feature of `need`? */
static inline bool cf_cpu_has(unsigned need)
{
    return (cf_cpu_features() & need) == need;
}

/* One kernel: called through fn cast back to the module's own type. */
typedef void (*cf_cpu_fn)(void);
typedef struct cf_cpu_kernel {
    const char *name;      /* what cf_build_features reports */
    unsigned needs;        /* CF_CPU_* bits, 0 for the portable kernel */
    cf_cpu_fn fn;          /* the module's function, cast */
    void (*prepare)(void); /* run once before the kernel is first used; may be NULL */
} cf_cpu_kernel;

/* The first of list[0..n) whose features the CPU has; the last must need none. */
const cf_cpu_kernel *cf_cpu_pick(const cf_cpu_kernel *list, size_t n);

/* A module's kernel, resolved (picked and prepared) at its first use from any
 * thread; later uses cost one atomic load. */
typedef struct cf_cpu_dispatch {
    const cf_cpu_kernel *list;
    size_t n;
    _Atomic(const cf_cpu_kernel *) chosen; /* NULL until resolved */
} cf_cpu_dispatch;
#define CF_CPU_DISPATCH(list)                                                                      \
    {                                                                                              \
        (list), sizeof(list) / sizeof((list)[0]), NULL                                             \
    }

const cf_cpu_kernel *cf_cpu_resolve_slow(cf_cpu_dispatch *d);
static inline const cf_cpu_kernel *cf_cpu_resolve(cf_cpu_dispatch *d)
{
    const cf_cpu_kernel *k = atomic_load_explicit(&d->chosen, memory_order_acquire);
    return k != NULL ? k : cf_cpu_resolve_slow(d);
}

#endif

/* DICT codewords to dictionary entries (dict_lookup.h).
 *
 * The check (codeword < dictionary size, format §8.8.2) and the lookup are one
 * pass over the codewords of a batch, not a pass for the largest codeword and a
 * second for the entries. With AVX2, eight codewords are checked at once (an
 * unsigned max against count - 1) and widened to their entries' addresses
 * (codeword << 4 + entries: a cf_slice is 16 bytes); the addresses go through
 * memory and each row is one 16-byte copy. A group with a bad codeword is left
 * to the portable loop, which stops at it before reading its entry.
 */
#include "dict_lookup.h"

#include <string.h>

#include "util/cpu.h"

_Static_assert(sizeof(cf_slice) == 16, "an entry's address is codeword << 4 + entries");

static size_t lookup_portable(cf_slice *out, const uint32_t *cw, size_t n, const cf_slice *entries,
                              size_t count)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t c = cw[i];
        if (c >= count)
            return i;
        out[i] = entries[c];
    }
    return n;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

__attribute__((target("avx2"))) static size_t
lookup_avx2(cf_slice *out, const uint32_t *cw, size_t n, const cf_slice *entries, size_t count)
{
    size_t i = 0;
    if (count == 0)
        return 0;
    /* count - 1 fits a u32 lane when count <= 2^32; larger never rejects a u32 */
    uint32_t last = count - 1 > UINT32_MAX ? UINT32_MAX : (uint32_t)(count - 1);
    __m256i lim = _mm256_set1_epi32((int)last);
    __m256i base = _mm256_set1_epi64x((long long)(uintptr_t)entries);
    for (; i + 8 <= n; i += 8) {
        __m256i c = _mm256_loadu_si256((const __m256i *)(const void *)(cw + i));
        __m256i over = _mm256_xor_si256(_mm256_max_epu32(c, lim), lim);
        if (!_mm256_testz_si256(over, over))
            break;
        __m256i lo = _mm256_cvtepu32_epi64(_mm256_castsi256_si128(c));
        __m256i hi = _mm256_cvtepu32_epi64(_mm256_extracti128_si256(c, 1));
        lo = _mm256_add_epi64(_mm256_slli_epi64(lo, 4), base);
        hi = _mm256_add_epi64(_mm256_slli_epi64(hi, 4), base);
        uintptr_t at[8];
        _mm256_storeu_si256((__m256i *)(void *)at, lo);
        _mm256_storeu_si256((__m256i *)(void *)(at + 4), hi);
        for (unsigned r = 0; r < 8; r++)
            memcpy(&out[i + r], (const void *)at[r], sizeof(cf_slice));
    }
    return i + lookup_portable(out + i, cw + i, n - i, entries, count);
}
#define CF_DICT_LOOKUP_AVX2 1
#endif

typedef size_t (*lookup_fn)(cf_slice *, const uint32_t *, size_t, const cf_slice *, size_t);

static const cf_cpu_kernel kernels[] = {
#ifdef CF_DICT_LOOKUP_AVX2
    {"avx2", CF_CPU_AVX2, (cf_cpu_fn)lookup_avx2, NULL},
#endif
    {"portable", 0, (cf_cpu_fn)lookup_portable, NULL},
};
static cf_cpu_dispatch lookup = CF_CPU_DISPATCH(kernels);

size_t cf_dict_lookup(cf_slice *out, const uint32_t *cw, size_t n, const cf_slice *entries,
                      size_t count)
{
    return ((lookup_fn)cf_cpu_resolve(&lookup)->fn)(out, cw, n, entries, count);
}

size_t cf_dict_lookup_portable(cf_slice *out, const uint32_t *cw, size_t n, const cf_slice *entries,
                               size_t count)
{
    return lookup_portable(out, cw, n, entries, count);
}

const char *cf_dict_lookup_impl(void)
{
    return cf_cpu_resolve(&lookup)->name;
}

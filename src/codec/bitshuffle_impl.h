/* Internal to src/codec: the pieces bitshuffle.c and bitshuffle_avx2.c share.
 * Element groups are 8 consecutive elements; group g of an n-element chunk
 * owns byte g of each of the 8 * elem_size bit planes (format Appendix B). */
#ifndef CF_CODEC_BITSHUFFLE_IMPL_H
#define CF_CODEC_BITSHUFFLE_IMPL_H

#include <stddef.h>

/* Portable transpose of groups [g0, g1) of an n-element chunk. */
void cf_bitshuffle_groups(const void *in, void *out, size_t n, size_t elem_size, size_t g0,
                          size_t g1);
void cf_bitunshuffle_groups(const void *in, void *out, size_t n, size_t elem_size, size_t g0,
                            size_t g1);

#if defined(__x86_64__) || defined(__i386__)
#define CF_BITSHUFFLE_X86 1
/* Require the CPU feature named in the suffix (checked by the dispatcher). */
void cf_bitshuffle_avx2(const void *in, void *out, size_t n, size_t elem_size);
void cf_bitunshuffle_avx2(const void *in, void *out, size_t n, size_t elem_size);
/* AVX-512 F + BW + VBMI and GFNI; unshuffle only (bitshuffle_avx512.c). */
void cf_bitunshuffle_avx512(const void *in, void *out, size_t n, size_t elem_size);
#endif

#endif

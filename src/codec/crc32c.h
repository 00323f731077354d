/* Internal: CRC-32C (Castagnoli), the standard iSCSI variant (format §4):
 * crc32c("123456789") == 0xE3069283. The implementation (AVX-512 or AVX2
 * carry-less folding, SSE4.2 interleaved streams, or portable slicing tables)
 * is chosen once at run time. */
#ifndef CF_CODEC_CRC32C_H
#define CF_CODEC_CRC32C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CRC of data. */
uint32_t cf_crc32c(const void *data, size_t len);
/* Continue a CRC: cf_crc32c_extend(cf_crc32c(a), b) == cf_crc32c(a || b). */
uint32_t cf_crc32c_extend(uint32_t crc, const void *data, size_t len);
/* Name of the implementation in use ("avx512+vpclmul", "sse42", "portable", ...). */
const char *cf_crc32c_impl(void);

/* Each implementation, for tests and benchmarks; same contract as _extend. */
uint32_t cf_crc32c_portable(uint32_t crc, const void *data, size_t len);
bool cf_crc32c_hw_available(void);
uint32_t cf_crc32c_hw(uint32_t crc, const void *data, size_t len); /* requires hw_available */
/* The hardware path as run on a CPU without pclmulqdq (software merge of the
 * interleaved streams), so tests can cover it anywhere; requires hw_available. */
uint32_t cf_crc32c_hw_nopclmul(uint32_t crc, const void *data, size_t len);

/* Carry-less folding with AVX-512 VPCLMULQDQ for long buffers, the avx2 and
 * hw paths for short ones; without the CPU features it falls back to
 * cf_crc32c_hw. */
bool cf_crc32c_avx512_available(void);
uint32_t cf_crc32c_avx512(uint32_t crc, const void *data, size_t len);
/* The same with 256-bit registers (AVX2 + VPCLMULQDQ, no AVX-512 needed). */
bool cf_crc32c_avx2_available(void);
uint32_t cf_crc32c_avx2(uint32_t crc, const void *data, size_t len);
/* The 256-bit folding and the crc32 instruction on different parts of the
 * buffer at once (the avx2 path below 2 KiB); falls back as avx2 does. */
uint32_t cf_crc32c_mix(uint32_t crc, const void *data, size_t len);

/* CRC of A || B from crc1 = cf_crc32c(A), crc2 = cf_crc32c(B) and len2 = |B|. */
uint32_t cf_crc32c_combine(uint32_t crc1, uint32_t crc2, uint64_t len2);

#endif

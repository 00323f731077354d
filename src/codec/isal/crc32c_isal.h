/* Internal: CRC-32C through Intel ISA-L (libisal-dev), built only when CMake
 * finds libisal (target cf_crc32c_isal, CF_HAVE_ISAL). Not used by the library
 * itself: where it was measured, our own paths are faster (crc32c.c), so only
 * the tests and bench_crc32c link it, to check and compare against it. */
#ifndef CF_CODEC_CRC32C_ISAL_H
#define CF_CODEC_CRC32C_ISAL_H

#include <stddef.h>
#include <stdint.h>

/* Same contract as cf_crc32c_extend. */
uint32_t cf_crc32c_isal(uint32_t crc, const void *data, size_t len);

#endif

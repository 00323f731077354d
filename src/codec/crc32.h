/* CRC-32 of zlib, gzip and Parquet's page headers (ISO-HDLC: reflected
 * polynomial 0xEDB88320, preset and final XOR 0xFFFFFFFF), the same results
 * as zlib's crc32_z, faster on large buffers. */
#ifndef CF_CODEC_CRC32_H
#define CF_CODEC_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* The CRC of data continued from crc (0 to start), as crc32_z(crc, data, len). */
uint32_t cf_crc32(uint32_t crc, const void *data, size_t len);
/* zlib's own, for the test: what cf_crc32 must equal. */
uint32_t cf_crc32_zlib(uint32_t crc, const void *data, size_t len);
/* "pclmul" when cf_crc32 folds with carry-less multiplies, else "zlib". */
const char *cf_crc32_impl(void);

#endif

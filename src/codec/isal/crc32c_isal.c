/* CRC-32C through ISA-L's crc32_iscsi (see crc32c_isal.h for why it is not
 * in the library). Its own folder so the codec layer's glob leaves it out. */
#include "crc32c_isal.h"

#include <isa-l/crc.h>
#include <limits.h>

uint32_t cf_crc32c_isal(uint32_t crc, const void *data, size_t len)
{
    /* crc32_iscsi works on the register (no pre/post inversion), takes an int
     * length and a non-const pointer it only reads. */
    unsigned char *p = (unsigned char *)(uintptr_t)data;
    uint32_t reg = ~crc;
    while (len > 0) {
        size_t n = len < (size_t)INT_MAX ? len : (size_t)1 << 30;
        reg = crc32_iscsi(p, (int)n, reg);
        p += n;
        len -= n;
    }
    return ~reg;
}

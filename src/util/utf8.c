/* Strict UTF-8 validation (utf8.h). An ASCII fast path, then the table of
 * well-formed byte sequences from the Unicode standard (ch. 3, table 3-7). */
#include "utf8.h"

#include <string.h>

size_t cf_utf8_invalid_at(const uint8_t *p, size_t len)
{
    size_t i = 0;
    while (i < len) {
        /* Eight ASCII bytes at a time: most strings are mostly ASCII. */
        if (len - i >= 8) {
            uint64_t w;
            memcpy(&w, p + i, 8);
            if ((w & UINT64_C(0x8080808080808080)) == 0) {
                i += 8;
                continue;
            }
        }
        uint8_t c = p[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t n;
        uint8_t lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
        if (c >= 0xC2 && c <= 0xDF)
            n = 2;
        else if (c >= 0xE0 && c <= 0xEF) {
            n = 3;
            if (c == 0xE0)
                lo = 0xA0; /* no overlong 3-byte forms */
            else if (c == 0xED)
                hi = 0x9F; /* no surrogates */
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 4;
            if (c == 0xF0)
                lo = 0x90; /* no overlong 4-byte forms */
            else if (c == 0xF4)
                hi = 0x8F; /* nothing above U+10FFFF */
        } else
            return i; /* continuation byte, C0/C1, F5..FF */
        if (len - i < n || p[i + 1] < lo || p[i + 1] > hi)
            return i;
        for (size_t k = 2; k < n; k++)
            if (p[i + k] < 0x80 || p[i + k] > 0xBF)
                return i;
        i += n;
    }
    return len;
}

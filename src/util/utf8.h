/* Internal: strict UTF-8 validation (RFC 3629: no overlong forms, no surrogates,
 * nothing above U+10FFFF), the rule Arrow's utf8 type and its consumers enforce. */
#ifndef CF_UTIL_UTF8_H
#define CF_UTIL_UTF8_H
#include <stddef.h>
#include <stdint.h>

/* Offset of the first byte that starts an invalid sequence, or len when all of
 * [p, p + len) is valid UTF-8. */
size_t cf_utf8_invalid_at(const uint8_t *p, size_t len);

#endif

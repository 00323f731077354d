/* 128-bit integers (INT128, DECIMAL128, 128-bit decimal arithmetic).
 *
 * __int128 is a GCC/Clang extension that ISO C does not have; the build uses
 * -Wpedantic, so it is named once here, marked __extension__, and everything
 * else says cf_i128 / cf_u128. */
#ifndef CF_UTIL_INT128_H
#define CF_UTIL_INT128_H

__extension__ typedef __int128 cf_i128;
__extension__ typedef unsigned __int128 cf_u128;

#endif

/* Internal: raising and annotating errors (STYLE.md §5). */
#ifndef CF_UTIL_ERROR_H
#define CF_UTIL_ERROR_H

#include <inttypes.h>

#include <cfile/status.h>

#if defined(__GNUC__)
#define CF_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CF_PRINTF(a, b)
#endif

/* Fill err (may be NULL) and return code. Never allocates. */
cf_status cf_error_set(cf_error *err, cf_status code, const char *file, int line,
                       const char *fmt, ...) CF_PRINTF(5, 6);

/* Prepend context ("block 3 at offset 81920: ") to an error already set.
 * Returns err->code (or CF_OK-less passthrough `st` when err is NULL). */
cf_status cf_error_prefix(cf_error *err, cf_status st, const char *fmt, ...) CF_PRINTF(3, 4);

/* Returns `code` itself (not cf_error_set's result) so the compiler can see
 * that a failing path never returns CF_OK. */
#define CF_FAIL(err, code, ...)                                                                    \
    do {                                                                                           \
        cf_error_set((err), (code), __FILE__, __LINE__, __VA_ARGS__);                              \
        return (code);                                                                             \
    } while (0)
#define CF_CHECK(cond, err, code, ...)                                                             \
    do {                                                                                           \
        if (!(cond))                                                                               \
            CF_FAIL(err, code, __VA_ARGS__);                                                       \
    } while (0)
#define CF_TRY(expr)                                                                               \
    do {                                                                                           \
        cf_status st_ = (expr);                                                                    \
        if (st_ != CF_OK)                                                                          \
            return st_;                                                                            \
    } while (0)
/* In functions with an `out:` cleanup label and a `cf_status st` variable. */
#define CF_TRY_OUT(expr)                                                                           \
    do {                                                                                           \
        st = (expr);                                                                               \
        if (st != CF_OK)                                                                           \
            goto out;                                                                              \
    } while (0)
#define CF_FAIL_OUT(err, code, ...)                                                                \
    do {                                                                                           \
        st = cf_error_set((err), (code), __FILE__, __LINE__, __VA_ARGS__);                         \
        goto out;                                                                                  \
    } while (0)

#endif

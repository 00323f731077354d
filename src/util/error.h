/* Internal: raising and annotating errors (STYLE.md §5). */
#ifndef CF_UTIL_ERROR_H
#define CF_UTIL_ERROR_H

#include <inttypes.h>
#include <stdbool.h>

#include <cfile/status.h>

#if defined(__GNUC__)
#define CF_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CF_PRINTF(a, b)
#endif

/* Fill err (may be NULL) and return code. Never allocates. */
cf_status cf_error_set(cf_error *err, cf_status code, const char *file, int line, const char *fmt,
                       ...) CF_PRINTF(5, 6);

/* Prepend context ("block 3 at offset 81920: ") to an error already set.
 * Returns `st` unchanged (nothing is prefixed when err is NULL or st is CF_OK). */
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

/* A writer's first failure (STYLE.md §5: "a writer's first failure is sticky").
 * Every writer (CFile, bloom, delta, rowset, table, WAL, HFile, Parquet, the
 * POSIX file writer) keeps one: the first failing call records its status and
 * message, and every later call replays both, so a caller that only sees the
 * later call still learns what went wrong. Zero-initialized = nothing failed.
 *
 *     CF_TRY(cf_sticky_replay(&w->fail, "hfile writer", err));
 *     return cf_sticky_set(&w->fail, append(w, c, err), err);
 */
typedef struct cf_sticky {
    cf_status code; /* CF_OK until the first failure */
    cf_error err;   /* that failure's message and origin */
} cf_sticky;

/* Record st as the first failure, with err's message (err may be NULL: the
 * message then names only the status), unless st is CF_OK or a failure is
 * recorded already. Returns st. */
cf_status cf_sticky_set(cf_sticky *s, cf_status st, const cf_error *err);

/* CF_OK while nothing has failed. Otherwise returns the first failure's status
 * and fills err (may be NULL) with "<who>: an earlier call failed: <message>",
 * keeping the first failure's origin in err->where. */
cf_status cf_sticky_replay(const cf_sticky *s, const char *who, cf_error *err);

/* The first failure as it was (a walk that reports its first error, not a
 * later call): returns its status and copies its record into err (may be NULL). */
cf_status cf_sticky_first(const cf_sticky *s, cf_error *err);

static inline bool cf_sticky_failed(const cf_sticky *s)
{
    return s->code != CF_OK;
}

#endif

/* Shared test helpers: cmocka includes, status assertions, seeded randomness,
 * hex dumps and golden-file paths. */
#ifndef CF_TEST_COMMON_H
#define CF_TEST_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdbool.h>
#include <cmocka.h>

#include <cfile/status.h>

#include "util/buf.h"

/* Fails with the status name and err->msg when st != CF_OK. */
#define CF_ASSERT_OK(st, errp)                                                                     \
    do {                                                                                           \
        cf_status cf_st_ = (st);                                                                   \
        if (cf_st_ != CF_OK)                                                                       \
            cf_test_fail_status(cf_st_, (errp), __FILE__, __LINE__);                               \
    } while (0)
/* Reports st and err->msg, then fails the test (never returns). */
_Noreturn void cf_test_fail_status(cf_status st, const cf_error *err, const char *file, int line);
#define CF_ASSERT_STATUS(st, want, errp)                                                           \
    cf_test_assert_status((st), (want), (errp), __FILE__, __LINE__)
void cf_test_assert_ok(cf_status st, const cf_error *err, const char *file, int line);
void cf_test_assert_status(cf_status st, cf_status want, const cf_error *err, const char *file,
                           int line);

/* A writer's replay of its first failure (cf_sticky, STYLE.md §5): status `want`
 * and a message "<who>: an earlier call failed: " followed by first->msg (its
 * tail may be cut at the record's size), with first->code == want. */
#define CF_ASSERT_REPLAYED(st, want, errp, who, firstp)                                            \
    cf_test_assert_replayed((st), (want), (errp), (who), (firstp), __FILE__, __LINE__)
void cf_test_assert_replayed(cf_status st, cf_status want, const cf_error *err, const char *who,
                             const cf_error *first, const char *file, int line);

/* Fails with a hex diff of the first difference when a != b. */
#define CF_ASSERT_BYTES(a, alen, b, blen)                                                          \
    cf_test_assert_bytes((a), (alen), (b), (blen), __FILE__, __LINE__)
void cf_test_assert_bytes(const void *a, size_t alen, const void *b, size_t blen, const char *file,
                          int line);

/* Parse "0a 0b ff" / "0a0bff" into out (cap bytes); returns the length. */
size_t cf_test_unhex(const char *hex, uint8_t *out, size_t cap);

/* Deterministic PRNG (xoshiro256**). The seed is CF_TEST_SEED from the
 * environment if set, else `dflt`; it is printed once so failures replay. */
uint64_t cf_test_seed(uint64_t dflt);
typedef struct cf_rng {
    uint64_t s[4];
} cf_rng;
void cf_rng_init(cf_rng *r, uint64_t seed);
uint64_t cf_rng_next(cf_rng *r);
/* Uniform in [0, n). */
uint64_t cf_rng_below(cf_rng *r, uint64_t n);

/* A malloc'd copy of p[0..n) of exactly n bytes (1 when n is 0), so that
 * ASan reports a read past the end of what a decoder was given (asserts). */
uint8_t *cf_test_dup(const void *p, size_t n);
/* Write data[0..len) as the whole of the file at path (created or truncated;
 * asserts every byte is written). */
void cf_test_write_file(const char *path, const void *data, size_t len);
/* Read a whole file (malloc'd; caller frees). NULL on failure. */
uint8_t *cf_test_read_file(const char *path, size_t *len);
/* Remove path and everything below it, as `rm -rf` does, without a shell and
 * without following links. A path that does not exist is not an error.
 * Returns 0, or -1 (errno set) when something could not be removed. */
int cf_test_rm_rf(const char *path);
/* cf_test_rm_rf, failing the test when something could not be removed. */
#define CF_ASSERT_RM_RF(path) assert_int_equal(cf_test_rm_rf(path), 0)
/* The shared/ directory (CF_SHARED_DIR env var, else the build-time default). */
const char *cf_test_shared_dir(void);

/* Allocation-failure sweep: setup(ctx) (may be NULL; its allocations do not
 * count), then run(ctx, err) with the k-th allocation from its start failing
 * (util/alloc.h), for k = 1, 2, ... until a run succeeds. Every failing run
 * must return CF_ENOMEM with a non-empty message in err (the test fails naming
 * `what` and k otherwise); run frees what it and setup made either way. Fails
 * the test if no run succeeds within max_k. Returns the failing runs. */
typedef void (*cf_test_alloc_setup)(void *ctx);
/* A setup for sweeps over a call that appends to a buffer: ctx points at a
 * struct that starts with a cf_test_sweep_buf; out is made anew holding
 * `prefill` zero bytes (at most 60: a new cf_buf has room for 64), so that
 * the call's first append does, or does not, have to grow it. The run
 * disposes out. */
typedef struct cf_test_sweep_buf {
    cf_buf out;
    size_t prefill;
} cf_test_sweep_buf;
void cf_test_sweep_buf_setup(void *ctx);
typedef cf_status (*cf_test_alloc_run)(void *ctx, cf_error *err);
int cf_test_alloc_sweep(const char *what, cf_test_alloc_setup setup, cf_test_alloc_run run,
                        void *ctx, uint64_t max_k);

/* Run the group, honouring `-t PATTERN` on the command line. */
#define CF_RUN_TESTS(argc, argv, tests)                                                            \
    cf_test_run((argc), (argv), #tests, tests, sizeof(tests) / sizeof((tests)[0]))
int cf_test_run(int argc, char **argv, const char *name, const struct CMUnitTest *tests, size_t n);

#endif

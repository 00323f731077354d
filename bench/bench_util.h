/* What the benchmark programs (bench/<name>.c, one executable each) share: their
 * clocks, the fixed-seed generator their data comes from, and how they stop on an
 * error. Static inline, so each program takes what it uses and no library is built.
 * A program defines BENCH_NAME (its executable's name, for messages) before the
 * include. */
#ifndef CF_BENCH_UTIL_H
#define CF_BENCH_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cfile/status.h>

#ifndef BENCH_NAME
#error "define BENCH_NAME before including bench_util.h"
#endif

/* Seconds on clock `id`. */
static inline double bench_clock(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Wall time. */
static inline double bench_wall(void)
{
    return bench_clock(CLOCK_MONOTONIC);
}

/* CPU time of the process (all its threads): on a shared machine, time spent
 * descheduled is not the code's. */
static inline double bench_cpu(void)
{
    return bench_clock(CLOCK_PROCESS_CPUTIME_ID);
}

/* CPU time of the calling thread. */
static inline double bench_thread_cpu(void)
{
    return bench_clock(CLOCK_THREAD_CPUTIME_ID);
}

/* The data generators' xorshift64, from BENCH_SEED, so every run times the same data. */
#define BENCH_SEED 88172645463325252ull
static inline uint64_t bench_xorshift(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* Best of `runs` timings, on clock `id`, of copying src[0, total) through a buffer of
 * `piece` bytes, piece by piece: the memcpy baseline decoders are compared with.
 * Each piece's first byte goes to *sink so no copy is optimised away. */
static inline double bench_memcpy_best(const uint8_t *src, size_t total, size_t piece, int runs,
                                       clockid_t id, volatile uint64_t *sink)
{
    uint8_t *dst = malloc(piece ? piece : 1);
    if (dst == NULL) {
        fprintf(stderr, "%s: out of memory\n", BENCH_NAME);
        exit(1);
    }
    double best = 1e30;
    for (int run = 0; run < runs; run++) {
        double t0 = bench_clock(id);
        for (size_t off = 0; off < total; off += piece) {
            size_t k = total - off < piece ? total - off : piece;
            memcpy(dst, src + off, k);
            *sink += dst[0];
        }
        double t = bench_clock(id) - t0;
        if (t < best)
            best = t;
    }
    free(dst);
    return best;
}

/* The key of the next random point lookup from *seed (an LCG): in 0 .. 3 * rows - 1,
 * so one in three exists among the keys 0, 3, 6, ... of the rows bench_rowset writes. */
static inline int64_t bench_lookup_key(uint64_t *seed, uint64_t rows)
{
    *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
    return (int64_t)((*seed >> 11) % (rows * 3));
}

/* Remove dir and all it holds (a benchmark's scratch output); 0 when done. */
static inline int bench_rm_rf(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* "BENCH_NAME: what: STATUS: message" on stderr, then exit 1. */
static inline void bench_die(const char *what, cf_status st, const cf_error *e)
{
    fprintf(stderr, "%s: %s: %s: %s\n", BENCH_NAME, what, cf_status_str(st), e ? e->msg : "");
    exit(1);
}

/* "BENCH_NAME: what: message" on stderr (err may be NULL), then exit 1. */
static inline void bench_die_err(const char *what, const cf_error *err)
{
    fprintf(stderr, "%s: %s: %s\n", BENCH_NAME, what, err ? err->msg : "");
    exit(1);
}

#endif

/* Shared by the tests that hold one of our decoders to the library it
 * replaces (test_lz4_decode.c: liblz4, test_snappy_decode.c: libsnappy): the
 * input shapes that reach every path of their fast loops, and the two sweeps
 * (valid payloads, mutated ones) both run. */
#ifndef CF_TEST_SUPPORT_DECODE_H
#define CF_TEST_SUPPORT_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "test_common.h"

/* Largest raw input the sweeps make. */
enum { DECODE_MAX_RAW = 9000, DECODE_KINDS = 7 };

/* n bytes of one of DECODE_KINDS shapes: random (long literals), long runs of
 * few values (long copies at offset 1), short periods with flipped bits
 * (offsets 1..32), the bench's PLAIN int64 page (one literal byte, a 7-byte
 * copy at offset 8), sorted int64s, runs of short periods with long copies,
 * text from a small alphabet. */
void decode_fill(cf_rng *r, uint8_t *p, size_t n, int kind);

typedef struct decode_pair {
    const char *lib; /* "liblz4", "libsnappy": for messages */
    /* The library's compressor: bytes written to comp (cap bytes of room). */
    size_t (*compress)(const uint8_t *raw, size_t n, uint8_t *comp, size_t cap);
    /* Ours: exactly dst_len bytes into dst, which has `slack` bytes of room past them. */
    bool (*ours)(const uint8_t *src, size_t len, uint8_t *dst, size_t dst_len);
    size_t slack;
    /* Ours and the library on src for dst_len bytes: the same verdict and bytes. */
    void (*check_same)(const uint8_t *src, size_t len, size_t dst_len);
} decode_pair;

/* 20000 valid payloads of random sizes and shapes: ours decodes each, and
 * agrees with the library on it and on a wrong output size either side. */
void decode_sweep_valid(const decode_pair *d, uint64_t seed);
/* 20000 payloads with 1-3 flipped bits, a quarter of them also truncated. */
void decode_sweep_mutations(const decode_pair *d, uint64_t seed);
/* With CF_CPU_DISABLE=all (ctest's *_portable runs) impl must be "portable". */
void decode_check_impl(const char *impl);

#endif

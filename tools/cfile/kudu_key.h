/* Kudu's encoded keys (common/key_encoder.h, common/encoded_key.cc) decoded back
 * into values, for the CLI's tablet commands: a rowset's min/max key (all primary
 * key columns) and a partition's range bound (the range partition columns).
 *
 *   integers, DATE, UNIXTIME_MICROS, DECIMAL: big-endian, the sign bit flipped
 *     for signed types
 *   STRING, BINARY, VARCHAR: the bytes as they are when the column is the last one
 *     encoded; otherwise each 0x00 written as 0x00 0x01 and the end as 0x00 0x00
 */
#ifndef CF_CLI_KUDU_KEY_H
#define CF_CLI_KUDU_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cfile/types.h>

#include "json.h"

#define CF_KUDU_KEY_MAX_COLS 64

typedef struct cf_kudu_key_val {
    cf_type type;
    const char *name;
    _Alignas(16) uint8_t slot[16]; /* the value's memory form (values.h) */
} cf_kudu_key_val;

typedef struct cf_kudu_key {
    size_t n;
    cf_kudu_key_val v[CF_KUDU_KEY_MAX_COLS];
    uint8_t *unescaped; /* malloc'd bytes the binary values point into */
} cf_kudu_key;

/* Decode p[0, len) as the key of columns (types[i], names[i]) i < n: 0, or -1
 * when the bytes are not such a key (too short, bad escape, bytes left over, a
 * type that has no key encoding). Free with cf_kudu_key_free either way. */
int cf_kudu_key_decode(cf_kudu_key *k, const cf_type *types, const char *const *names, size_t n,
                       const uint8_t *p, size_t len);
void cf_kudu_key_free(cf_kudu_key *k);

/* {"name": value, ...} in the golden value forms. */
void cf_kudu_key_json(cf_jw *w, const cf_kudu_key *k);
/* "(v1, v2)" in the text value forms. */
void cf_kudu_key_text(FILE *f, const cf_kudu_key *k);

/* Decode standard base64 (with or without '=' padding) into out (at least
 * len * 3 / 4 + 3 bytes); the decoded length, or -1 on a bad character. */
long cf_kudu_base64_decode(uint8_t *out, const char *s, size_t len);

#endif

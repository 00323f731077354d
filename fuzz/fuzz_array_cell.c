/* Fuzz the array cell codec (src/delta/array_cell.c; format §12.3,
 * docs/SPEC-NOTES.md D.2):
 *
 *   input: [type][cell bytes]
 *   type % 18 picks the element type (INT128/DECIMAL128 included: a clean
 *   CF_ENOTSUP). The bytes, in an exact-size copy, are decoded; when they decode,
 *   every element is read (binary ones must lie inside the cell), and the cell
 *   is encoded again from what was read and decoded again: the same elements,
 *   NULLs and values, and a second round trip gives the same bytes.
 *
 * A clean CF_ECORRUPT is a pass. */
#include "fuzz.h"

#include <string.h>

#include <cfile/delta.h>

static const cf_type types[] = {
    CF_TYPE_INT8,   CF_TYPE_UINT8,  CF_TYPE_BOOL,      CF_TYPE_INT16,     CF_TYPE_UINT16,
    CF_TYPE_INT32,  CF_TYPE_UINT32, CF_TYPE_INT64,     CF_TYPE_UINT64,    CF_TYPE_FLOAT,
    CF_TYPE_DOUBLE, CF_TYPE_DATE,   CF_TYPE_DECIMAL32, CF_TYPE_DECIMAL64, CF_TYPE_UNIXTIME_MICROS,
    CF_TYPE_STRING, CF_TYPE_BINARY, CF_TYPE_INT128,
};

/* Read every element of v into vals (cf_type_size slots) and nn (bitmap). */
static void read_all(const cf_array_cell_view *v, cf_slice cell, uint8_t *vals, uint8_t *nn)
{
    size_t w = cf_type_size(v->type);
    memset(nn, 0, v->count / 8 + 1);
    for (size_t i = 0; i < v->count; i++) {
        cf_array_cell_get(v, i, vals + i * w);
        if (!cf_array_cell_is_null(v, i))
            nn[i / 8] |= (uint8_t)(1u << (i % 8));
        if (cf_type_is_binary(v->type)) {
            cf_slice s;
            memcpy(&s, vals + i * w, sizeof(s));
            FUZZ_REQUIRE(s.len == 0 ||
                         (s.data >= cell.data && s.data + s.len <= cell.data + cell.len));
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    cf_type type = types[data[0] % (sizeof(types) / sizeof(types[0]))];
    uint8_t *copy = fuzz_dup(data + 1, size - 1);
    cf_slice cell = {copy, size - 1};
    cf_error err = {0};
    cf_array_cell_view v;
    cf_status st = cf_array_cell_decode(&v, cell, type, &err);
    if (st != CF_OK) {
        fuzz_require_clean_error(st, &err);
        FUZZ_REQUIRE(st == CF_ECORRUPT || (st == CF_ENOTSUP && type == CF_TYPE_INT128));
        free(copy);
        return 0;
    }
    /* every element takes at least one byte of the cell (4 for binary offsets) */
    FUZZ_REQUIRE(v.count <= cell.len);
    size_t w = cf_type_size(type);
    uint8_t *vals = malloc(v.count * w + 1), *nn = malloc(v.count / 8 + 1);
    FUZZ_REQUIRE(vals != NULL && nn != NULL);
    read_all(&v, cell, vals, nn);
    if (v.count <= 65535) {
        cf_array_cell c = {type, v.count, vals, nn};
        size_t cap = cf_array_cell_encoded_max(&c), len1 = 0, len2 = 0;
        uint8_t *enc1 = malloc(cap), *enc2 = malloc(cap);
        FUZZ_REQUIRE(enc1 != NULL && enc2 != NULL);
        FUZZ_REQUIRE_MSG(cf_array_cell_encode(enc1, cap, &len1, &c, &err) == CF_OK, &err);
        cf_array_cell_view v2;
        FUZZ_REQUIRE_MSG(cf_array_cell_decode(&v2, (cf_slice){enc1, len1}, type, &err) == CF_OK,
                         &err);
        FUZZ_REQUIRE(v2.count == v.count);
        uint8_t *vals2 = malloc(v.count * w + 1), *nn2 = malloc(v.count / 8 + 1);
        FUZZ_REQUIRE(vals2 != NULL && nn2 != NULL);
        read_all(&v2, (cf_slice){enc1, len1}, vals2, nn2);
        FUZZ_REQUIRE(memcmp(nn, nn2, v.count / 8 + 1) == 0);
        for (size_t i = 0; i < v.count; i++) {
            if (!((nn[i / 8] >> (i % 8)) & 1))
                continue; /* NULL elements are written as zeros */
            if (cf_type_is_binary(type)) {
                cf_slice a, b;
                memcpy(&a, vals + i * w, sizeof(a));
                memcpy(&b, vals2 + i * w, sizeof(b));
                FUZZ_REQUIRE(a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0));
            } else {
                FUZZ_REQUIRE(memcmp(vals + i * w, vals2 + i * w, w) == 0);
            }
        }
        /* our own bytes are a fixed point */
        cf_array_cell c2 = {type, v2.count, vals2, nn2};
        FUZZ_REQUIRE_MSG(cf_array_cell_encode(enc2, cap, &len2, &c2, &err) == CF_OK, &err);
        FUZZ_REQUIRE(len1 == len2 && memcmp(enc1, enc2, len1) == 0);
        free(vals2);
        free(nn2);
        free(enc1);
        free(enc2);
    }
    free(vals);
    free(nn);
    free(copy);
    return 0;
}

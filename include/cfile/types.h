/* cfile: column types, encodings and codecs, with Kudu's on-disk enum values.
 *
 * Plain values and pure functions: no handles, no call order; every function
 * here may be called from any thread. Names returned by cf_*_name are static
 * strings. A cf_slice never owns its bytes: the call that hands one out says
 * who does and for how long. */
#ifndef CFILE_TYPES_H
#define CFILE_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A borrowed view of bytes. Who owns `data` and for how long is stated by the
 * call that hands the slice out. */
typedef struct cf_slice {
    const uint8_t *data;
    size_t len;
} cf_slice;

/* Kudu's DataType values (common.proto); they are stored in the footer. */
typedef enum cf_type {
    CF_TYPE_UINT8 = 0,
    CF_TYPE_INT8 = 1,
    CF_TYPE_UINT16 = 2,
    CF_TYPE_INT16 = 3,
    CF_TYPE_UINT32 = 4,
    CF_TYPE_INT32 = 5,
    CF_TYPE_UINT64 = 6,
    CF_TYPE_INT64 = 7,
    CF_TYPE_STRING = 8,
    CF_TYPE_BOOL = 9,
    CF_TYPE_FLOAT = 10,
    CF_TYPE_DOUBLE = 11,
    CF_TYPE_BINARY = 12,
    CF_TYPE_UNIXTIME_MICROS = 13,
    CF_TYPE_INT128 = 14,
    CF_TYPE_DECIMAL32 = 15,
    CF_TYPE_DECIMAL64 = 16,
    CF_TYPE_DECIMAL128 = 17,
    CF_TYPE_VARCHAR = 19,
    CF_TYPE_DATE = 20
} cf_type;

/* Kudu's EncodingType values. AUTO is resolved by the writer, never stored. */
typedef enum cf_encoding {
    CF_ENC_AUTO = 0,
    CF_ENC_PLAIN = 1,
    CF_ENC_PREFIX = 2,
    CF_ENC_GROUP_VARINT = 3, /* legacy: readable, never written */
    CF_ENC_RLE = 4,
    CF_ENC_DICT = 5,
    CF_ENC_BIT_SHUFFLE = 6
} cf_encoding;

/* Kudu's CompressionType values. DEFAULT resolves to NONE, as Kudu's default. */
typedef enum cf_compression {
    CF_COMP_DEFAULT = 0,
    CF_COMP_NONE = 1,
    CF_COMP_SNAPPY = 2,
    CF_COMP_LZ4 = 3,
    CF_COMP_ZLIB = 4
} cf_compression;

/* Names as Kudu spells them ("INT32", "BIT_SHUFFLE", "NO_COMPRESSION"); NULL for
 * a value that is not one of the enums above. */
CF_API const char *cf_type_name(cf_type t);
CF_API const char *cf_encoding_name(cf_encoding e);
CF_API const char *cf_compression_name(cf_compression c);

/* Parse a name (case-insensitive; Kudu's spellings plus short forms such as
 * "plain", "lz4", "none"). CF_EINVAL when the name is unknown. */
CF_API cf_status cf_type_parse(cf_type *out, const char *name);
CF_API cf_status cf_encoding_parse(cf_encoding *out, const char *name);
CF_API cf_status cf_compression_parse(cf_compression *out, const char *name);

/* Is t one of the types above? */
CF_API bool cf_type_valid(int t);
/* STRING, BINARY, VARCHAR: values cross the API as cf_slice. */
CF_API bool cf_type_is_binary(cf_type t);
/* The physical type whose encoders and in-block form the type uses (format
 * §1.9): STRING/VARCHAR -> BINARY, UNIXTIME_MICROS/DECIMAL64 -> INT64,
 * DECIMAL32/DATE -> INT32, DECIMAL128 -> INT128, every other type itself. */
CF_API cf_type cf_type_physical(cf_type t);
/* Bytes of one value in memory: 1 for BOOL (0 or 1), 16 for INT128/DECIMAL128,
 * sizeof(cf_slice) for binary types. */
CF_API size_t cf_type_size(cf_type t);
/* Kudu's default encoding for the type (what AUTO resolves to). */
CF_API cf_encoding cf_type_default_encoding(cf_type t);
/* Does Kudu allow this encoding for this type? (GROUP_VARINT: never for writing.) */
CF_API bool cf_type_allows_encoding(cf_type t, cf_encoding e);

#ifdef CF_STATIC_LINKING_ONLY /* not exported by libcfile.so: status.h */
/* The integer types' width in bits: 8..64 for INT8..INT64 and UINT8..UINT64, 128 for
 * INT128; 0 for every other type. Logical types stored as integers (DATE,
 * UNIXTIME_MICROS, DECIMAL*) answer 0 themselves: pass cf_type_physical(t) for
 * their storage width. */
CF_STATIC_API int cf_type_int_bits(cf_type t);
/* UINT8..UINT64 (the only unsigned types). */
CF_STATIC_API bool cf_type_is_unsigned(cf_type t);
#endif /* CF_STATIC_LINKING_ONLY */

/* ---- values in memory: what readers hand out and writers take -------------------------- */

/* One batch of consecutive rows of one column, as views. An iterator's batch
 * (iter.h, cf_iter_next_batch) is owned by the iterator and valid until the
 * next call on it (or its free); the same form describes a column a writer
 * takes (parquet.h) and the columns of a cf_row_batch (rowset.h). */
typedef struct cf_batch {
    size_t count;       /* rows in this batch; 0 means the end of the file */
    uint64_t first_ord; /* ordinal of the first row */
    /* Non-array columns: `count` row-aligned values of cf_type_size(type) bytes
     * (cf_slice for binary types, uint8_t 0/1 for BOOL); NULL rows hold zeros
     * (an empty slice for binary).
     * Array columns: the flattened elements of the batch's cells, `elem_count`
     * of them; NULL elements hold zeros. */
    const void *values;
    /* Bit i (LSB-first) set = row i present. NULL when the column is not nullable. */
    const uint8_t *nonnull;
    /* Arrays only: cell i holds elements [elem_offsets[i], elem_offsets[i+1]). */
    const uint32_t *elem_offsets;
    size_t elem_count;
    const uint8_t *elem_nonnull; /* bitmap over the flattened elements */
} cf_batch;

/* The value of one array cell (an array column's row): inserts and updates of
 * rowsets and tables (rowset.h), RowChangeLists (delta.h). */
typedef struct cf_array_cell {
    cf_type type;           /* element type */
    size_t count;           /* elements, NULL ones included (at most 65535) */
    const void *values;     /* count slots of cf_type_size(type): little-endian fixed
                             * values (BOOL one byte 0/1) or cf_slice for binary types;
                             * may be NULL when count is 0 */
    const uint8_t *nonnull; /* bit per element, LSB first, 1 = present; NULL = all */
} cf_array_cell;

/* One key/value pair of file metadata (a CFile's header and footer, Parquet's
 * key_value_metadata); borrowed views, owned as the call that gives them says. */
typedef struct cf_metadata_pair {
    cf_slice key;
    cf_slice value;
} cf_metadata_pair;

#ifdef __cplusplus
}
#endif
#endif

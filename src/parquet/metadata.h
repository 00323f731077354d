/* Internal: decoding Parquet's Thrift structs (parquet.thrift) from compact
 * protocol bytes: FileMetaData (the footer), PageHeader, ColumnIndex,
 * OffsetIndex and BloomFilterHeader, and the file layout around the footer.
 *
 * Decoded structs borrow their strings and binaries from the input bytes, and
 * lists come from the thrift reader's arena: keep both alive as long as the
 * struct. Unknown fields of any type are skipped; a required field that is
 * missing, a field of the wrong wire type, or bytes that run out are
 * CF_ECORRUPT naming the struct, the field and the byte offset.
 */
#ifndef CF_PARQUET_METADATA_H
#define CF_PARQUET_METADATA_H

#include <cfile/parquet.h>

#include "thrift.h"

/* File layout (parquet-format README "File Format"):
 *   offset 0        4 bytes   "PAR1"
 *   ...                       column chunks
 *   size-8-len      len       FileMetaData (compact Thrift)
 *   size-8          4 bytes   len, little-endian
 *   size-4          4 bytes   "PAR1" ("PARE": encrypted footer) */
#define CF_PQ_MAGIC "PAR1"
#define CF_PQ_MAGIC_ENCRYPTED "PARE"

/* Decode a FileMetaData from r (whose arena receives its lists). */
cf_status cf_pq_file_meta_decode(cf_thrift_reader *r, cf_parquet_file_meta *out);

typedef struct cf_pq_data_page_header {
    int32_t num_values, encoding, definition_level_encoding, repetition_level_encoding;
    bool has_statistics;
    cf_parquet_stats statistics;
} cf_pq_data_page_header;

typedef struct cf_pq_dictionary_page_header {
    int32_t num_values, encoding;
    bool has_is_sorted, is_sorted;
} cf_pq_dictionary_page_header;

typedef struct cf_pq_data_page_header_v2 {
    int32_t num_values, num_nulls, num_rows, encoding;
    int32_t definition_levels_byte_length, repetition_levels_byte_length;
    bool is_compressed; /* default true */
    bool has_statistics;
    cf_parquet_stats statistics;
} cf_pq_data_page_header_v2;

typedef struct cf_pq_page_header {
    int32_t type; /* cf_parquet_page_type */
    int32_t uncompressed_page_size, compressed_page_size;
    bool has_crc;
    uint32_t crc; /* CRC-32 (zlib's) of the page bytes after the header */
    bool has_data_page, has_index_page, has_dictionary_page, has_data_page_v2;
    cf_pq_data_page_header data_page;
    cf_pq_dictionary_page_header dictionary_page;
    cf_pq_data_page_header_v2 data_page_v2;
} cf_pq_page_header;

/* Decode one PageHeader at the start of [data, data+len); *header_len gets its
 * size in bytes (the page body follows). No allocation; statistics borrow
 * data. Checks beyond the Thrift: sizes >= 0, the header for the page type is
 * present, counts >= 0. `off` is data's file offset, for messages. */
cf_status cf_pq_page_header_decode(cf_pq_page_header *out, size_t *header_len, const uint8_t *data,
                                   size_t len, uint64_t off, cf_error *err);

/* The page index structs are public (cfile/parquet.h). */
typedef cf_parquet_page_location cf_pq_page_location;
typedef cf_parquet_offset_index cf_pq_offset_index;
typedef cf_parquet_column_index cf_pq_column_index;

/* Both check that their lists agree in length. */
cf_status cf_pq_offset_index_decode(cf_thrift_reader *r, cf_pq_offset_index *out);
cf_status cf_pq_column_index_decode(cf_thrift_reader *r, cf_pq_column_index *out);

typedef struct cf_pq_bloom_header {
    int32_t num_bytes;
    uint32_t algorithm, hash, compression; /* union member ids: 1 = BLOCK, XXHASH, UNCOMPRESSED */
} cf_pq_bloom_header;

/* Decode a BloomFilterHeader; *header_len gets its size (the bitset follows). */
cf_status cf_pq_bloom_header_decode(cf_pq_bloom_header *out, size_t *header_len,
                                    const uint8_t *data, size_t len, uint64_t off, cf_error *err);

#endif

/* cfile: Apache Parquet files (magic "PAR1"): footer metadata and schema.
 *
 * Parquet is Redfile's design as shipped: row groups of column chunks of
 * pages, Thrift compact-protocol metadata in a footer written after the data,
 * Dremel repetition and definition levels for nested data. This header opens a
 * file, decodes its footer (FileMetaData, parquet.thrift in apache/parquet-format)
 * and builds the schema tree with each leaf column's path and maximum levels.
 *
 * Layout of a file:
 *   "PAR1" | column chunks (pages) ... | footer (FileMetaData, compact Thrift)
 *   | footer length (4 bytes little-endian) | "PAR1"
 * A file whose trailing magic is "PARE" has an encrypted footer: refused as
 * CF_ENOTSUP, as is a plaintext footer whose columns are encrypted.
 *
 * The structs below mirror parquet.thrift field for field. Enum-typed fields
 * hold the raw number from the file (names: cf_parquet_*_name), so values a
 * newer writer adds survive; `has_*` flags say whether an optional field was
 * present. Every pointer and cf_slice in them points into the cf_parquet
 * handle and lives as long as it.
 *
 * Call orders (each part below repeats its own):
 *   file:          options_init? open (getters | pages_open | column_open |
 *                  page_index_read | bloom_open | records_open)* free
 *   pages:         pages_options_init? pages_open (pages_next | pages_seek)* pages_free
 *   column reader: column_open column_seek? (column_read)* column_free
 *   records:       records_options_init? records_open (records_next)* records_free
 *   writer:        writer_options_init? writer_create (writer_append)* writer_finish?
 *                  writer_free
 *
 * Ownership: cf_parquet_open borrows its io (REQUIRES: the io outlives the
 * handle); cf_parquet_open_file owns its io. Page walkers, column readers, page
 * indexes, bloom filters and record readers borrow the cf_parquet they were
 * opened on (REQUIRES: it outlives them) and own what they hand out: pages and
 * BYTE_ARRAY slices until their next call, a records batch until the next
 * records_next. The writer copies column names, options and key/value
 * metadata at create, and encodes each append before it returns; it borrows
 * the io of cf_parquet_writer_create (REQUIRES: it outlives the writer; finish
 * commits it) and owns that of _create_file.
 *
 * Threads: an open cf_parquet is immutable and may be shared between threads,
 * each with its own walkers and readers; an open bloom filter may be probed
 * from many threads. Walkers, readers and writers belong to one thread at a time.
 */
#ifndef CFILE_PARQUET_H
#define CFILE_PARQUET_H

#include "version.h" /* CF_HAVE_PARQUET */
#if !CF_HAVE_PARQUET
#error "this build of cfile has no Parquet module (-DCF_WITH_PARQUET=OFF): test CF_HAVE_PARQUET"
#endif

#include <stdbool.h>
#include <stdint.h>

#include "io.h"
#include "status.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cf_parquet cf_parquet;

/* parquet.thrift `Type` (physical types). */
typedef enum cf_parquet_type {
    CF_PARQUET_BOOLEAN = 0,
    CF_PARQUET_INT32 = 1,
    CF_PARQUET_INT64 = 2,
    CF_PARQUET_INT96 = 3,
    CF_PARQUET_FLOAT = 4,
    CF_PARQUET_DOUBLE = 5,
    CF_PARQUET_BYTE_ARRAY = 6,
    CF_PARQUET_FIXED_LEN_BYTE_ARRAY = 7
} cf_parquet_type;

/* parquet.thrift `FieldRepetitionType`. */
typedef enum cf_parquet_repetition {
    CF_PARQUET_REQUIRED = 0,
    CF_PARQUET_OPTIONAL = 1,
    CF_PARQUET_REPEATED = 2
} cf_parquet_repetition;

/* parquet.thrift `ConvertedType` (the legacy annotations). */
typedef enum cf_parquet_converted {
    CF_PARQUET_CT_UTF8 = 0,
    CF_PARQUET_CT_MAP = 1,
    CF_PARQUET_CT_MAP_KEY_VALUE = 2,
    CF_PARQUET_CT_LIST = 3,
    CF_PARQUET_CT_ENUM = 4,
    CF_PARQUET_CT_DECIMAL = 5,
    CF_PARQUET_CT_DATE = 6,
    CF_PARQUET_CT_TIME_MILLIS = 7,
    CF_PARQUET_CT_TIME_MICROS = 8,
    CF_PARQUET_CT_TIMESTAMP_MILLIS = 9,
    CF_PARQUET_CT_TIMESTAMP_MICROS = 10,
    CF_PARQUET_CT_UINT_8 = 11,
    CF_PARQUET_CT_UINT_16 = 12,
    CF_PARQUET_CT_UINT_32 = 13,
    CF_PARQUET_CT_UINT_64 = 14,
    CF_PARQUET_CT_INT_8 = 15,
    CF_PARQUET_CT_INT_16 = 16,
    CF_PARQUET_CT_INT_32 = 17,
    CF_PARQUET_CT_INT_64 = 18,
    CF_PARQUET_CT_JSON = 19,
    CF_PARQUET_CT_BSON = 20,
    CF_PARQUET_CT_INTERVAL = 21
} cf_parquet_converted;

/* parquet.thrift `Encoding`. */
typedef enum cf_parquet_encoding {
    CF_PARQUET_PLAIN = 0,
    CF_PARQUET_PLAIN_DICTIONARY = 2,
    CF_PARQUET_RLE = 3,
    CF_PARQUET_BIT_PACKED = 4,
    CF_PARQUET_DELTA_BINARY_PACKED = 5,
    CF_PARQUET_DELTA_LENGTH_BYTE_ARRAY = 6,
    CF_PARQUET_DELTA_BYTE_ARRAY = 7,
    CF_PARQUET_RLE_DICTIONARY = 8,
    CF_PARQUET_BYTE_STREAM_SPLIT = 9
} cf_parquet_encoding;

/* parquet.thrift `CompressionCodec`. */
typedef enum cf_parquet_codec {
    CF_PARQUET_UNCOMPRESSED = 0,
    CF_PARQUET_SNAPPY = 1,
    CF_PARQUET_GZIP = 2,
    CF_PARQUET_LZO = 3,
    CF_PARQUET_BROTLI = 4,
    CF_PARQUET_LZ4 = 5,
    CF_PARQUET_ZSTD = 6,
    CF_PARQUET_LZ4_RAW = 7
} cf_parquet_codec;

/* parquet.thrift `PageType`. */
typedef enum cf_parquet_page_type {
    CF_PARQUET_DATA_PAGE = 0,
    CF_PARQUET_INDEX_PAGE = 1,
    CF_PARQUET_DICTIONARY_PAGE = 2,
    CF_PARQUET_DATA_PAGE_V2 = 3
} cf_parquet_page_type;

/* The member of the `LogicalType` union (its Thrift field id), or NONE when the
 * element has no logical type. UNSUPPORTED: a member this reader does not know
 * (treated as no logical type, as the spec asks). */
typedef enum cf_parquet_logical_kind {
    CF_PARQUET_LT_NONE = 0,
    CF_PARQUET_LT_STRING = 1,
    CF_PARQUET_LT_MAP = 2,
    CF_PARQUET_LT_LIST = 3,
    CF_PARQUET_LT_ENUM = 4,
    CF_PARQUET_LT_DECIMAL = 5,
    CF_PARQUET_LT_DATE = 6,
    CF_PARQUET_LT_TIME = 7,
    CF_PARQUET_LT_TIMESTAMP = 8,
    CF_PARQUET_LT_INTEGER = 10,
    CF_PARQUET_LT_UNKNOWN = 11, /* the null type: only nulls stored */
    CF_PARQUET_LT_JSON = 12,
    CF_PARQUET_LT_BSON = 13,
    CF_PARQUET_LT_UUID = 14,
    CF_PARQUET_LT_FLOAT16 = 15,
    CF_PARQUET_LT_VARIANT = 16,
    CF_PARQUET_LT_GEOMETRY = 17,
    CF_PARQUET_LT_GEOGRAPHY = 18,
    CF_PARQUET_LT_UNSUPPORTED = 255
} cf_parquet_logical_kind;

/* TimeUnit union member ids. */
typedef enum cf_parquet_time_unit {
    CF_PARQUET_MILLIS = 1,
    CF_PARQUET_MICROS = 2,
    CF_PARQUET_NANOS = 3
} cf_parquet_time_unit;

typedef struct cf_parquet_logical {
    uint32_t kind;            /* cf_parquet_logical_kind */
    int32_t scale, precision; /* DECIMAL */
    uint32_t unit;            /* TIME, TIMESTAMP: cf_parquet_time_unit */
    bool utc;                 /* TIME, TIMESTAMP: isAdjustedToUTC */
    int32_t bit_width;        /* INTEGER: 8, 16, 32 or 64 */
    bool is_signed;           /* INTEGER */
    bool has_crs;             /* GEOMETRY, GEOGRAPHY */
    cf_slice crs;
} cf_parquet_logical;

typedef struct cf_parquet_schema_element {
    cf_slice name;
    bool has_type, has_type_length, has_repetition, has_num_children, has_converted_type, has_scale,
        has_precision, has_field_id;
    int32_t type;        /* cf_parquet_type */
    int32_t type_length; /* FIXED_LEN_BYTE_ARRAY bytes */
    int32_t repetition;  /* cf_parquet_repetition */
    int32_t num_children;
    int32_t converted_type; /* cf_parquet_converted */
    int32_t scale, precision;
    int32_t field_id;
    cf_parquet_logical logical; /* kind NONE when absent */
} cf_parquet_schema_element;

typedef struct cf_parquet_kv {
    cf_slice key;
    bool has_value;
    cf_slice value;
} cf_parquet_kv;

/* Statistics: min/max are the deprecated signed-order fields, min_value/
 * max_value the ones written with the column order. PLAIN-encoded values. */
typedef struct cf_parquet_stats {
    bool has_max, has_min, has_null_count, has_distinct_count, has_max_value, has_min_value,
        has_is_max_value_exact, has_is_min_value_exact, has_nan_count;
    cf_slice max, min, max_value, min_value;
    int64_t null_count, distinct_count, nan_count;
    bool is_max_value_exact, is_min_value_exact;
} cf_parquet_stats;

typedef struct cf_parquet_encoding_stats {
    int32_t page_type; /* cf_parquet_page_type */
    int32_t encoding;  /* cf_parquet_encoding */
    int32_t count;
} cf_parquet_encoding_stats;

typedef struct cf_parquet_column_meta {
    int32_t type; /* cf_parquet_type */
    uint32_t encoding_count;
    const int32_t *encodings;
    uint32_t path_len;
    const cf_slice *path; /* path_in_schema, root's children first */
    int32_t codec;        /* cf_parquet_codec */
    int64_t num_values, total_uncompressed_size, total_compressed_size;
    uint32_t kv_count;
    const cf_parquet_kv *kv;
    int64_t data_page_offset;
    bool has_index_page_offset, has_dictionary_page_offset, has_statistics, has_bloom_filter_offset,
        has_bloom_filter_length;
    int64_t index_page_offset, dictionary_page_offset;
    cf_parquet_stats statistics;
    uint32_t encoding_stats_count;
    const cf_parquet_encoding_stats *encoding_stats;
    int64_t bloom_filter_offset;
    int32_t bloom_filter_length;
} cf_parquet_column_meta;

typedef struct cf_parquet_column_chunk {
    bool has_file_path; /* the chunk lives in another file: not supported for reading */
    cf_slice file_path;
    int64_t file_offset;
    bool has_meta_data;
    cf_parquet_column_meta meta;
    bool has_offset_index, has_column_index; /* offset and length both present */
    int64_t offset_index_offset, column_index_offset;
    int32_t offset_index_length, column_index_length;
    bool encrypted; /* crypto_metadata or encrypted_column_metadata present */
} cf_parquet_column_chunk;

typedef struct cf_parquet_sorting_column {
    int32_t column_idx;
    bool descending, nulls_first;
} cf_parquet_sorting_column;

typedef struct cf_parquet_row_group {
    uint32_t column_count;
    const cf_parquet_column_chunk *columns;
    int64_t total_byte_size, num_rows;
    uint32_t sorting_column_count;
    const cf_parquet_sorting_column *sorting_columns;
    bool has_file_offset, has_total_compressed_size, has_ordinal;
    int64_t file_offset, total_compressed_size;
    int16_t ordinal;
} cf_parquet_row_group;

typedef struct cf_parquet_file_meta {
    int32_t version;
    uint32_t schema_count;
    const cf_parquet_schema_element *schema; /* depth-first, root first */
    int64_t num_rows;                        /* as the footer says */
    uint32_t row_group_count;
    const cf_parquet_row_group *row_groups;
    uint32_t kv_count;
    const cf_parquet_kv *kv;
    bool has_created_by;
    cf_slice created_by;
    bool has_column_orders;
    uint32_t column_order_count;
    const uint32_t *column_orders; /* ColumnOrder union member id: 1 = TYPE_ORDER */
    bool encrypted;                /* encryption_algorithm present (plaintext footer) */
} cf_parquet_file_meta;

/* One node of the schema tree. Leaves are the file's columns. */
typedef struct cf_parquet_node cf_parquet_node;
struct cf_parquet_node {
    const cf_parquet_schema_element *element;
    uint32_t index;                /* position in the footer's schema list */
    const cf_parquet_node *parent; /* NULL for the root */
    uint32_t child_count;
    const cf_parquet_node *const *children;
    uint32_t depth;            /* root 0 */
    uint16_t max_def, max_rep; /* maximum definition and repetition level here */
    int32_t column;            /* leaf: its column index (0-based); groups: -1 */
    int32_t repetition;        /* cf_parquet_repetition (the root: REQUIRED) */
    /* The resolved annotation: the logical type, or the one the legacy
     * converted type means (UTF8 -> STRING, INT_32 -> INTEGER(32, signed),
     * TIMESTAMP_MILLIS -> TIMESTAMP(MILLIS, utc), DECIMAL -> DECIMAL(p, s), ...).
     * kind NONE when there is neither. MAP_KEY_VALUE and INTERVAL have no
     * logical type: check element->converted_type. */
    cf_parquet_logical logical;
};

/* A leaf column: the path from the root's child down, and its levels. */
typedef struct cf_parquet_column {
    const cf_parquet_node *leaf;
    uint32_t path_len;
    const cf_slice *path;
    int32_t type;        /* cf_parquet_type */
    int32_t type_length; /* FIXED_LEN_BYTE_ARRAY; else 0 */
    uint16_t max_def, max_rep;
} cf_parquet_column;

#define CF_PARQUET_OPTIONS_VERSION 1

typedef struct cf_parquet_options {
    uint32_t version;      /* set by _init */
    size_t max_footer_len; /* refuse longer footers; default 256 MiB */
} cf_parquet_options;

CF_API void cf_parquet_options_init(cf_parquet_options *opts);

/* Open a Parquet file on io (borrowed: it must outlive the handle); opts may be
 * NULL. Reads the magic at both ends, the footer, and builds the schema tree.
 * Errors: CF_ECORRUPT (bad magic, footer length, Thrift, schema; the message
 * names the structure and byte offset or schema element), CF_ENOTSUP (an
 * encrypted footer or columns), CF_EIO, CF_ENOMEM. */
CF_API cf_status cf_parquet_open(cf_parquet **out, cf_io *io, const cf_parquet_options *opts,
                                 cf_error *err);
/* Same, opening path with pread; the handle owns its io. */
CF_API cf_status cf_parquet_open_file(cf_parquet **out, const char *path,
                                      const cf_parquet_options *opts, cf_error *err);
CF_API void cf_parquet_free(cf_parquet *pq); /* NULL is a no-op */

/* Does io start and end with "PAR1" (or end with "PARE")? No error on "no". */
CF_API bool cf_parquet_sniff(cf_io *io);

CF_API const cf_parquet_file_meta *cf_parquet_meta(const cf_parquet *pq);
CF_API uint64_t cf_parquet_file_size(const cf_parquet *pq);
CF_API uint32_t cf_parquet_footer_len(const cf_parquet *pq);
/* Sum of the row groups' num_rows (what is stored; the footer's num_rows may
 * disagree in files from some writers). */
CF_API int64_t cf_parquet_num_rows(const cf_parquet *pq);
CF_API const cf_parquet_node *cf_parquet_schema_root(const cf_parquet *pq);
CF_API uint32_t cf_parquet_column_count(const cf_parquet *pq);
/* Leaf column i (0-based); NULL when i >= cf_parquet_column_count(pq). */
CF_API const cf_parquet_column *cf_parquet_column_at(const cf_parquet *pq, uint32_t i);
/* The io the handle reads from (its own for _open_file). */
CF_API cf_io *cf_parquet_io(const cf_parquet *pq);

/* ---- pages ------------------------------------------------------------------------------
 * Walking the pages of one column chunk: each page header decoded and checked
 * against the chunk (sizes inside it, a dictionary page only first, v2 level
 * lengths inside the page), its CRC-32 verified when the writer stored one,
 * and the page bytes handed out as stored (still compressed). Decoding the
 * bytes is the column reader's job.
 *
 * Call order:  pages_options_init? pages_open (pages_next | pages_seek)* pages_free
 * An iterator belongs to one thread; many may read one cf_parquet at once. */
typedef struct cf_parquet_pages cf_parquet_pages;

typedef struct cf_parquet_page {
    uint64_t offset;     /* file offset of the page header */
    uint32_t header_len; /* bytes of the header; the page bytes follow */
    int32_t type;        /* cf_parquet_page_type */
    int32_t compressed_size, uncompressed_size;
    int32_t num_values;                     /* data and dictionary pages (nulls included) */
    int32_t num_nulls, num_rows;            /* DATA_PAGE_V2; -1 otherwise */
    int32_t encoding;                       /* of the values; -1 for index pages */
    int32_t def_encoding, rep_encoding;     /* DATA_PAGE (v1); -1 otherwise */
    int32_t def_levels_len, rep_levels_len; /* DATA_PAGE_V2; -1 otherwise */
    bool is_compressed;                     /* DATA_PAGE_V2's flag; true for the others */
    bool is_sorted;                         /* DICTIONARY_PAGE's flag when present */
    bool has_crc;
    uint32_t crc; /* CRC-32 (zlib's polynomial) of `body` */
    bool has_statistics;
    cf_parquet_stats statistics;
    cf_slice body; /* compressed_size bytes as stored */
} cf_parquet_page;

#define CF_PARQUET_PAGES_OPTIONS_VERSION 1

typedef struct cf_parquet_pages_options {
    uint32_t version; /* set by _init */
    bool verify_crc;  /* check each page's CRC-32 when the writer stored one (a
                       * mismatch is CF_ECORRUPT naming the page); default true */
} cf_parquet_pages_options;

CF_API void cf_parquet_pages_options_init(cf_parquet_pages_options *opts);

/* Iterate the pages of column `column` of row group `row_group`; opts may be
 * NULL (defaults). CF_EINVAL for indexes out of range or options not filled by
 * cf_parquet_pages_options_init. Slices in the pages it returns (body,
 * statistics) live until the next call on the iterator. */
CF_API cf_status cf_parquet_pages_open(cf_parquet_pages **out, const cf_parquet *pq,
                                       uint32_t row_group, uint32_t column,
                                       const cf_parquet_pages_options *opts, cf_error *err);
/* The next page into *page with *has = true, or *has = false after the last
 * one. At the end the data pages' num_values must add up to the chunk's:
 * CF_ECORRUPT if not. */
CF_API cf_status cf_parquet_pages_next(cf_parquet_pages *it, cf_parquet_page *page, bool *has,
                                       cf_error *err);
/* Continue at the page header at `offset` (a data page's, from the offset
 * index), skipping what lies between. The end-of-chunk value count is then
 * not checked. CF_ECORRUPT for an offset outside the chunk. */
CF_API cf_status cf_parquet_pages_seek(cf_parquet_pages *it, uint64_t offset, cf_error *err);
CF_API void cf_parquet_pages_free(cf_parquet_pages *it); /* NULL is a no-op */

/* ---- column chunk reader ----------------------------------------------------------------
 * The levels and values of one column chunk, page after page: dictionary page
 * first, data pages v1 and v2, every codec (LZO and the legacy LZ4 in
 * Hadoop's framing included) and encoding of the format, CRCs verified when
 * stored. Record assembly (nested values from
 * levels) sits on top of this.
 *
 * Value forms (one value in `values`): BOOLEAN uint8_t 0/1; INT32 and FLOAT 4
 * bytes, INT64 and DOUBLE 8, INT96 12, FIXED_LEN_BYTE_ARRAY type_length bytes,
 * all as stored (little-endian); BYTE_ARRAY a cf_slice. Only non-null values
 * are stored: a level entry i holds a value when def[i] == the column's max_def.
 *
 * Call order:  column_open (column_read)* column_free */
typedef struct cf_parquet_column_reader cf_parquet_column_reader;

/* REQUIRES: row_group and column in range (else CF_EINVAL). */
CF_API cf_status cf_parquet_column_open(cf_parquet_column_reader **out, const cf_parquet *pq,
                                        uint32_t row_group, uint32_t column, cf_error *err);
/* The value size of this column's value form (see above). */
CF_API size_t cf_parquet_column_value_size(const cf_parquet_column_reader *r);
/* Read up to `max` level entries of the current page (a call never crosses a
 * page): def and rep (each may be NULL; entries are 0 when the max level is 0)
 * get *n_levels entries, values (room for max values of value_size bytes) the
 * *n_values non-null values among them. *n_levels == 0 at the end of the
 * chunk. BYTE_ARRAY slices point into the reader and stay valid until the next
 * call. CF_ECORRUPT for damage (naming row group, column, page and offset),
 * CF_ENOTSUP for a codec, encoding or page size this build does not read. */
CF_API cf_status cf_parquet_column_read(cf_parquet_column_reader *r, size_t max, uint16_t *def,
                                        uint16_t *rep, void *values, size_t *n_levels,
                                        size_t *n_values, cf_error *err);
/* Continue at the data page whose header is at `offset` (from the offset
 * index: pages of an indexed chunk start at row boundaries). The dictionary
 * page, if any, is loaded first.
 * REQUIRES: no column_read yet on this reader (else CF_EINVAL). */
CF_API cf_status cf_parquet_column_seek(cf_parquet_column_reader *r, uint64_t offset,
                                        cf_error *err);
/* Data pages decoded so far. */
CF_API uint64_t cf_parquet_column_pages_read(const cf_parquet_column_reader *r);
CF_API void cf_parquet_column_free(cf_parquet_column_reader *r); /* NULL is a no-op */

/* ---- page index (PageIndex.md) -------------------------------------------------------------
 * Per column chunk, written after the row groups: the offset index (where each
 * data page starts, its size with header, its first row) and the column index
 * (per page: all-null flag, min and max, null count), for reading only the
 * pages a row range or a predicate needs. */
typedef struct cf_parquet_page_location {
    int64_t offset;               /* file offset of the page header */
    int32_t compressed_page_size; /* header included */
    int64_t first_row_index;      /* within the row group */
} cf_parquet_page_location;

typedef struct cf_parquet_offset_index {
    uint32_t page_count;
    const cf_parquet_page_location *pages;
    uint32_t unencoded_count; /* 0 when absent, else page_count */
    const int64_t *unencoded_byte_array_data_bytes;
} cf_parquet_offset_index;

typedef struct cf_parquet_column_index {
    uint32_t page_count;
    const bool *null_pages;
    const cf_slice *min_values, *max_values; /* PLAIN-encoded; empty for null pages */
    int32_t boundary_order;                  /* 0 UNORDERED, 1 ASCENDING, 2 DESCENDING */
    bool has_null_counts;
    const int64_t *null_counts;
    uint32_t rep_histogram_count, def_histogram_count;
    const int64_t *rep_histograms, *def_histograms;
} cf_parquet_column_index;

typedef struct cf_parquet_page_index cf_parquet_page_index;

/* Read the page index of one column chunk. CF_ENOTFOUND when the chunk has
 * neither index; CF_ECORRUPT for offsets outside the file or bytes that do not
 * decode (naming the chunk); CF_EINVAL for indexes out of range. */
CF_API cf_status cf_parquet_page_index_read(cf_parquet_page_index **out, const cf_parquet *pq,
                                            uint32_t row_group, uint32_t column, cf_error *err);
/* Either may be NULL when the chunk has only the other. Owned by the index. */
CF_API const cf_parquet_offset_index *
cf_parquet_page_index_offsets(const cf_parquet_page_index *pi);
CF_API const cf_parquet_column_index *
cf_parquet_page_index_columns(const cf_parquet_page_index *pi);
CF_API void cf_parquet_page_index_free(cf_parquet_page_index *pi); /* NULL is a no-op */

/* ---- bloom filters (BloomFilter.md) --------------------------------------------------------
 * A column chunk's split-block bloom filter, located by the chunk's
 * bloom_filter_offset (and _length when the writer gave it): a
 * BloomFilterHeader (compact Thrift) then numBytes of bitset. A probe answers
 * "maybe present" (true) or "certainly absent" (false) for one value, hashed
 * with XXH64 (seed 0) over its PLAIN bytes: INT32/FLOAT 4 bytes, INT64/DOUBLE
 * 8, INT96 12, FIXED_LEN_BYTE_ARRAY type_length, BYTE_ARRAY the bytes without
 * their length prefix. The whole bitset is read at open (its size is checked
 * against the file first).
 *
 * Call order:  bloom_open probe* bloom_free
 * An open filter is immutable and may be probed from many threads. */
typedef struct cf_parquet_bloom cf_parquet_bloom;

/* Read the filter of column `column` of row group `row_group`. CF_ENOTFOUND
 * when the chunk has none; CF_ECORRUPT when it lies outside the file's data,
 * its header does not decode, its bitset is not whole 32-byte blocks or does
 * not fill bloom_filter_length; CF_ENOTSUP for an algorithm, hash or
 * compression other than BLOCK, XXHASH, UNCOMPRESSED, or a bitset larger than
 * 128 MiB; CF_EINVAL for indexes out of range. */
CF_API cf_status cf_parquet_bloom_open(cf_parquet_bloom **out, const cf_parquet *pq,
                                       uint32_t row_group, uint32_t column, cf_error *err);
/* Bytes of the bitset; file offset and bytes of the whole filter (header
 * included). */
CF_API size_t cf_parquet_bloom_bitset_bytes(const cf_parquet_bloom *b);
CF_API uint64_t cf_parquet_bloom_offset(const cf_parquet_bloom *b);
CF_API uint64_t cf_parquet_bloom_length(const cf_parquet_bloom *b);
/* Probe by hash (XXH64 seed 0 of the PLAIN bytes; opt-in, status.h), by PLAIN bytes,
 * or by one value in the column reader's value form (BYTE_ARRAY: a cf_slice; BOOLEAN
 * values are not hashed by the format: always true). */
#ifdef CF_STATIC_LINKING_ONLY /* not exported by libcfile.so: status.h */
CF_STATIC_API bool cf_parquet_bloom_probe_hash(const cf_parquet_bloom *b, uint64_t hash);
#endif /* CF_STATIC_LINKING_ONLY */
CF_API bool cf_parquet_bloom_probe_bytes(const cf_parquet_bloom *b, const void *data, size_t len);
CF_API bool cf_parquet_bloom_probe(const cf_parquet_bloom *b, const void *value);
#ifdef CF_STATIC_LINKING_ONLY /* not exported by libcfile.so: status.h */
/* The hash of one value in the value form of a column of physical type `type`
 * (type_length for FIXED_LEN_BYTE_ARRAY): what bloom filters store. */
CF_STATIC_API uint64_t cf_parquet_bloom_hash(int32_t type, int32_t type_length, const void *value);
#endif                                                  /* CF_STATIC_LINKING_ONLY */
CF_API void cf_parquet_bloom_free(cf_parquet_bloom *b); /* NULL is a no-op */

/* ---- record assembly ----------------------------------------------------------------------
 * Rows of nested values from the leaf columns' repetition and definition
 * levels (Dremel), as Arrow-shaped arrays: one array per field, with a
 * validity bitmap, list offsets and child arrays, so the JSON printer and the
 * Arrow C Data export read the same thing.
 *
 * The field tree follows the schema with the Parquet spec's backward-
 * compatibility rules as DuckDB applies them: a LIST- or MAP-annotated group,
 * or a repeated group, with a single child stands for that child; a repeated
 * field (primitive or group) is a list of its element; a repeated group under
 * a MAP with one child, or annotated MAP_KEY_VALUE, is a map of its two
 * children; any other group is a struct. So 3-level lists, legacy 2-level
 * lists and bare repeated fields all come out as LIST.
 *
 * Memory: rows come in batches of at most batch_rows within one row group;
 * each leaf column buffers only the levels and values of the batch (plus the
 * page being decoded), so memory follows the batch, not the file. */
typedef enum cf_parquet_array_kind {
    CF_PARQUET_ARRAY_PRIMITIVE = 0, /* a leaf column's values */
    CF_PARQUET_ARRAY_STRUCT = 1,    /* children: the fields */
    CF_PARQUET_ARRAY_LIST = 2,      /* children[0]: the elements */
    CF_PARQUET_ARRAY_MAP = 3        /* children[0]: a STRUCT of key, value (never null) */
} cf_parquet_array_kind;

typedef struct cf_parquet_array cf_parquet_array;
struct cf_parquet_array {
    uint32_t kind;               /* cf_parquet_array_kind */
    cf_slice name;               /* the field's name (the topmost element it reads) */
    const cf_parquet_node *node; /* that element */
    const cf_parquet_node *leaf; /* PRIMITIVE: the leaf (type, logical type); else NULL */
    int32_t column;              /* PRIMITIVE: the leaf column's index; else -1 */
    size_t length;               /* slots */
    size_t null_count;
    const uint8_t *validity; /* bit i (LSB first) set = slot i not null; NULL: none null */
    /* LIST, MAP: child slots of slot i are offsets[i]..offsets[i+1].
     * PRIMITIVE BYTE_ARRAY: bytes of slot i are values[offsets[i]..offsets[i+1]]. */
    const int32_t *offsets;
    /* PRIMITIVE: one slot of value_size bytes per slot (null slots zeroed):
     * BOOLEAN one byte 0/1, INT32/FLOAT 4, INT64/DOUBLE 8, INT96 12,
     * FIXED_LEN_BYTE_ARRAY type_length, little-endian as stored. BYTE_ARRAY:
     * value_size 0, the bytes the offsets index. */
    const uint8_t *values;
    size_t value_size;
    uint32_t child_count;
    cf_parquet_array *const *children;
};

#define CF_PARQUET_RECORDS_OPTIONS_VERSION 2

typedef struct cf_parquet_records_options {
    uint32_t version;  /* set by _init */
    size_t batch_rows; /* rows per batch at most; default 1024 */
    /* Projection: top-level field indexes (children of the schema root), in
     * the order wanted; NULL = all fields. */
    const uint32_t *fields;
    uint32_t field_count;
    /* Row range [row_begin, row_end) of the file; default 0, INT64_MAX. */
    int64_t row_begin, row_end;
    size_t max_batch_levels; /* refuse batches needing more level entries per
                                column (one huge row); default 64 Mi */
    /* Threads that decode (version 2). CF_PARQUET_THREADS_AUTO (0, the
     * default) = one per online CPU where the work pays for them: some
     * chunk asked for is compressed or nested, and at least 1 MiB of it;
     * decoding that runs at memory speed is faster on the caller alone.
     * 1 = the caller only; N = N threads whatever the work; at most
     * CF_PARQUET_MAX_THREADS. With two or more row groups to read, that many
     * workers decode whole row groups (each leaf column a job) ahead of the
     * one the caller hands out (see max_ahead_bytes); otherwise the caller
     * and threads - 1 workers (no more than there are leaf columns) read each
     * batch's leaf columns and build its top-level fields in parallel, one
     * batch per leaf in flight. Batches, values, order and errors are the
     * same for every value. */
    size_t threads;
    /* Row groups decoded ahead (version 2): at most 2 x threads + 1 at once
     * counting the current one, and those ahead at most this many bytes of
     * decoded levels and values by the metadata's counts (0 or the default:
     * 256 MiB). A row group larger than this alone, or only partly inside
     * row_begin..row_end, is read a batch at a time. */
    size_t max_ahead_bytes;
} cf_parquet_records_options;

#define CF_PARQUET_THREADS_AUTO 0u
#define CF_PARQUET_MAX_THREADS 64u

CF_API void cf_parquet_records_options_init(cf_parquet_records_options *opts);

typedef struct cf_parquet_records cf_parquet_records;

/* Start reading rows (opts may be NULL). CF_ECORRUPT for a schema the rules
 * above cannot read (a MAP_KEY_VALUE group without two children or not
 * repeated), CF_EINVAL for bad options. */
CF_API cf_status cf_parquet_records_open(cf_parquet_records **out, const cf_parquet *pq,
                                         const cf_parquet_records_options *opts, cf_error *err);
/* The field tree without data (length 0): for building an Arrow schema. Owned
 * by the reader. */
CF_API const cf_parquet_array *cf_parquet_records_schema(const cf_parquet_records *r);
/* The next batch: *out is a STRUCT array (never null) whose children are the
 * top-level fields, `length` rows long; owned by the reader and valid until
 * the next call. *out is NULL at the end. Damage (levels that do not nest,
 * columns disagreeing on the row count, counts against the metadata) is
 * CF_ECORRUPT naming the row group and column. */
CF_API cf_status cf_parquet_records_next(cf_parquet_records *r, const cf_parquet_array **out,
                                         cf_error *err);
/* Row group of the last batch, and the file row of its first row. */
CF_API uint32_t cf_parquet_records_row_group(const cf_parquet_records *r);
CF_API int64_t cf_parquet_records_first_row(const cf_parquet_records *r);
/* Data pages decoded so far (all columns), for checking that a row range
 * reads only the pages it needs. */
CF_API uint64_t cf_parquet_records_pages_read(const cf_parquet_records *r);
CF_API void cf_parquet_records_free(cf_parquet_records *r); /* NULL is a no-op */

/* ---- writer -------------------------------------------------------------------------------
 * Parquet files from Kudu-typed columns, one row group at a time: rows are
 * appended as cf_batch columns (iter.h's forms, so a CFile iterator's or a
 * table scanner's batches go straight in), encoded into pages as they arrive,
 * and each row group is written out once it reaches its size; the page index
 * and the footer follow the last one. Memory is one row group's encoded pages
 * plus, per column, one page of values and the dictionary; the first column's
 * pages go to the file as they close once its dictionary is settled (none, or
 * given up), so a one-column file holds a page (2 x threads pages with
 * threads, see below), not a row group.
 *
 * Types (Kudu -> Parquet physical type and annotation):
 *   INT8, INT16, INT32     INT32 INT(8|16|32, true)
 *   UINT8, UINT16, UINT32  INT32 INT(8|16|32, false) (UINT32 stored as its bits)
 *   INT64, UINT64          INT64 INT(64, true|false)
 *   DECIMAL32, DECIMAL64   INT32, INT64 DECIMAL(precision, scale)
 *   DECIMAL128             FIXED_LEN_BYTE_ARRAY(16) DECIMAL (big-endian two's complement)
 *   INT128                 FIXED_LEN_BYTE_ARRAY(16), no annotation (Parquet has no
 *                          128-bit integer; big-endian two's complement)
 *   DATE                   INT32 DATE
 *   UNIXTIME_MICROS        INT64 TIMESTAMP(MICROS, isAdjustedToUTC=true)
 *   STRING, VARCHAR        BYTE_ARRAY STRING;  BINARY  BYTE_ARRAY
 *   BOOL, FLOAT, DOUBLE    BOOLEAN, FLOAT, DOUBLE
 * Nullable columns are OPTIONAL, the others REQUIRED; arrays are the 3-level
 * LIST (`<rep> group name (LIST) { repeated group list { optional T element } }`).
 * The legacy converted types are written beside the logical types.
 *
 * Pages: values dictionary-encoded (RLE_DICTIONARY, dictionary page first)
 * until the chunk's dictionary passes dict_page_bytes, then PLAIN for the rest
 * of the chunk (BOOLEAN: always PLAIN); levels RLE. Statistics (min_value,
 * max_value in the column's sort order, null_count), the page index, page
 * CRC-32s and split-block bloom filters (XXH64) as the options ask.
 *
 * Call order:  create (append)* finish? free
 * free without finish abandons the file (nothing appears at the path). The
 * first failure is sticky. A writer belongs to one thread. */
typedef struct cf_parquet_writer cf_parquet_writer;

/* One column as the caller describes it. */
typedef struct cf_parquet_write_column {
    const char *name;     /* any UTF-8 name, copied */
    cf_type type;         /* element type for arrays */
    bool nullable;        /* OPTIONAL (row may be NULL), else REQUIRED */
    bool is_array;        /* 3-level LIST of `type`; elements may be NULL */
    int precision, scale; /* DECIMAL*: 0 precision = the type's most (9, 18, 38) */
    bool bloom_filter;    /* write a split-block bloom filter for this column */
    bool binary;          /* STRING/VARCHAR: plain BYTE_ARRAY without the STRING
                           * annotation. Without it their values must be UTF-8
                           * (Parquet's STRING is): others are CF_EINVAL. */
} cf_parquet_write_column;

#define CF_PARQUET_WRITER_OPTIONS_VERSION 2

typedef struct cf_parquet_writer_options {
    uint32_t version;           /* set by _init */
    int32_t codec;              /* cf_parquet_codec: UNCOMPRESSED, SNAPPY (default), GZIP,
                                 * BROTLI, ZSTD, LZ4_RAW (LZ4 and LZO: CF_EINVAL) */
    int level;                  /* codec level; 0 = the codec's default */
    uint64_t row_group_rows;    /* most rows per row group; default 1048576 */
    size_t row_group_bytes;     /* a row group ends once its encoded pages pass this;
                                 * default 128 MiB */
    size_t page_bytes;          /* a data page ends once its values pass this; default 1 MiB */
    uint32_t page_rows;         /* most rows per data page; default 20000 */
    bool dictionary;            /* dictionary encoding (default true) */
    size_t dict_page_bytes;     /* a chunk's dictionary larger than this falls back to
                                 * PLAIN; default 1 MiB */
    bool data_page_v2;          /* DATA_PAGE_V2 instead of DATA_PAGE (default false) */
    bool statistics;            /* column chunk statistics (default true) */
    bool page_index;            /* column and offset index (default true) */
    bool page_crc;              /* CRC-32 in each page header (default true) */
    double bloom_fpp;           /* bloom filters' false positive rate; default 0.01 */
    const cf_metadata_pair *kv; /* key_value_metadata of the footer (copied) */
    size_t kv_count;
    /* Threads that encode and compress the columns (version 2): each column's
     * rows of an append, and its last page, dictionary page and bloom filter
     * at a row group's end, are one job, the caller taking jobs too.
     * CF_PARQUET_THREADS_AUTO (0, the default) = one per online CPU; 1 = the
     * caller only; at most CF_PARQUET_MAX_THREADS, never more than there are
     * columns, except that a file of one column uses up to 8: the caller
     * encodes values while the threads compress the pages before (plus their
     * CRC and header), as many pages at once as there are threads. The
     * file's bytes and the errors are the same for every value (a one-column
     * file may report a page's compression error a few calls later); memory
     * in flight is the same (one row group's encoded pages), plus one
     * compressor context per thread, plus for a one-column file up to
     * 2 x threads pages in flight (values and stored bytes), which also
     * reach the file that many pages later. */
    size_t threads;
} cf_parquet_writer_options;

CF_API void cf_parquet_writer_options_init(cf_parquet_writer_options *opts);

/* Start a file on io (borrowed; append-only, as cf_io_create_file/_mem give),
 * with ncols columns (1..32767; names must be distinct and non-empty). opts may be
 * NULL. CF_EINVAL names the bad column or option, CF_ENOTSUP a codec this build
 * lacks. Nothing is written before the first row group but the magic. */
CF_API cf_status cf_parquet_writer_create(cf_parquet_writer **out, cf_io *io,
                                          const cf_parquet_write_column *cols, size_t ncols,
                                          const cf_parquet_writer_options *opts, cf_error *err);
/* Same, creating `path` atomically (cf_io_create_file: a temporary renamed over
 * path by finish, fsynced; removed by free without finish). */
CF_API cf_status cf_parquet_writer_create_file(cf_parquet_writer **out, const char *path,
                                               const cf_parquet_write_column *cols, size_t ncols,
                                               const cf_parquet_writer_options *opts,
                                               cf_error *err);
/* Append `nrows` rows: cols[i] holds column i in types.h's cf_batch form
 * (values row-aligned, NULL rows zeroed; nonnull NULL = all present; arrays:
 * elem_offsets[0..nrows], values/elem_nonnull over the elements; count and
 * first_ord are ignored). A NULL row of a REQUIRED column is CF_EINVAL. */
CF_API cf_status cf_parquet_writer_append(cf_parquet_writer *w, const cf_batch *cols, size_t nrows,
                                          cf_error *err);
/* Write the last row group, the bloom filters' and page index's remaining
 * parts and the footer, then commit the io (for _create_file: fsync + rename). */
CF_API cf_status cf_parquet_writer_finish(cf_parquet_writer *w, cf_error *err);
CF_API uint64_t cf_parquet_writer_rows(const cf_parquet_writer *w);
/* After append refused a value (a NULL in a REQUIRED column, a STRING that is
 * not UTF-8): its row, counted from the file's first row; else UINT64_MAX. */
CF_API uint64_t cf_parquet_writer_error_row(const cf_parquet_writer *w);
/* Bytes written to the io so far. */
CF_API uint64_t cf_parquet_writer_bytes(const cf_parquet_writer *w);
CF_API void cf_parquet_writer_free(cf_parquet_writer *w); /* NULL is a no-op */

#ifdef CF_STATIC_LINKING_ONLY /* not exported by libcfile.so: status.h */
/* XXH64 (seed given) of [data, data+len): the hash of Parquet's bloom filters. */
CF_STATIC_API uint64_t cf_parquet_xxh64(const void *data, size_t len, uint64_t seed);
#endif /* CF_STATIC_LINKING_ONLY */

/* Names from parquet.thrift ("INT32", "OPTIONAL", "UTF8", "RLE_DICTIONARY",
 * "ZSTD", "DATA_PAGE_V2", "MILLIS"); NULL for a number it does not know. */
CF_API const char *cf_parquet_type_name(int32_t type);
CF_API const char *cf_parquet_repetition_name(int32_t repetition);
CF_API const char *cf_parquet_converted_name(int32_t converted);
CF_API const char *cf_parquet_encoding_name(int32_t encoding);
CF_API const char *cf_parquet_codec_name(int32_t codec);
CF_API const char *cf_parquet_page_type_name(int32_t page_type);
CF_API const char *cf_parquet_time_unit_name(uint32_t unit);
/* The logical type in the normalised form of shared/parquet/README.md
 * ("STRING", "DECIMAL(9,2)", "INT(32,true)", "TIMESTAMP(MICROS,true)") into
 * buf (cap bytes, NUL-terminated, truncated if short); "" for NONE and
 * UNSUPPORTED. Returns buf. */
CF_API const char *cf_parquet_logical_str(const cf_parquet_logical *lt, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif

/* cfile: Apache HBase HFiles (v1, v2, v3) without a JVM.
 *
 * The reader opens every HFile layout HBase has written: the 60-byte v1
 * trailer, the 212-byte Writable v2 trailer and the 4096-byte protobuf trailer
 * of v2.2+/v3; block headers with and without HBase checksums (CRC32C/CRC32
 * chunks, verified by default); NONE, GZ, SNAPPY, LZ4, LZO (Hadoop block
 * framing), ZSTD (Hadoop block framing or a bare zstd frame) and BZIP2
 * payloads; data block encodings NONE, PREFIX, DIFF, FAST_DIFF and
 * ROW_INDEX_V1 with mvcc versions and (dictionary-compressed) tags;
 * single- and multi-level data indexes; FileInfo, meta blocks and compound
 * Bloom filters. An encoding it cannot decode (PREFIX_TREE) is CF_ENOTSUP
 * naming it, when the first data block is read. v1 cells are opaque keys
 * in byte order.
 *
 * The writer produces HFile v3 in HBase's block order, for bulk loading.
 *
 * Call order:
 *   reader:  open (getters | file_info_* | meta_* | bloom_* | walks | iter_create)* free
 *   iter:    create (seek_* | next | position)* free
 *   writer:  options_init? create (append | add_file_info | add_meta)* finish? free
 *
 * Ownership: cf_hfile_open borrows its io (REQUIRES: the io outlives the
 * cf_hfile); cf_hfile_open_file owns its io. Everything the getters return
 * (trailer, info, FileInfo and index slices, Bloom info) points into the
 * cf_hfile and lives as long as it; cf_hfile_meta_read gives a copy the caller
 * frees with cf_hfile_bytes_free. Iterators borrow the cf_hfile (REQUIRES: it
 * outlives them); a cell from cf_hfile_iter_next is valid until the next call on
 * that iterator. The writer borrows a writable io and does not commit it: after
 * a successful finish the caller commits (and in any case frees) the io
 * (REQUIRES: the io outlives the writer). append copies the cell.
 *
 * Threads: an open cf_hfile is immutable and may be shared; an iterator or a
 * writer belongs to one thread at a time.
 */
#ifndef CFILE_HFILE_H
#define CFILE_HFILE_H

#include "version.h" /* CF_HAVE_HFILE */
#if !CF_HAVE_HFILE
#error "this build of cfile has no HBase HFile module (-DCF_WITH_HFILE=OFF): test CF_HAVE_HFILE"
#endif

#include <stdbool.h>
#include <stdint.h>

#include "io.h"
#include "status.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cf_hfile cf_hfile;
typedef struct cf_hfile_iter cf_hfile_iter;
typedef struct cf_hfile_writer cf_hfile_writer;

/* HBase's Compression.Algorithm ordinals, as stored in the trailer. */
typedef enum cf_hfile_codec {
    CF_HFILE_LZO = 0,
    CF_HFILE_GZ = 1,
    CF_HFILE_NONE = 2,
    CF_HFILE_SNAPPY = 3,
    CF_HFILE_LZ4 = 4,
    CF_HFILE_BZIP2 = 5,
    CF_HFILE_ZSTD = 6
} cf_hfile_codec;

/* KeyValue.Type codes. */
typedef enum cf_hfile_kv_type {
    CF_HFILE_MINIMUM = 0,
    CF_HFILE_PUT = 4,
    CF_HFILE_DELETE = 8,
    CF_HFILE_DELETE_FAMILY_VERSION = 10,
    CF_HFILE_DELETE_COLUMN = 12,
    CF_HFILE_DELETE_FAMILY = 14,
    CF_HFILE_MAXIMUM = 255
} cf_hfile_kv_type;

/* DataBlockEncoding ids. */
enum {
    CF_HFILE_DBE_NONE = 0,
    CF_HFILE_DBE_PREFIX = 2,
    CF_HFILE_DBE_DIFF = 3,
    CF_HFILE_DBE_FAST_DIFF = 4,
    CF_HFILE_DBE_ROW_INDEX_V1 = 7
};

/* "GZ", "NONE", ...; NULL for an unknown ordinal. */
CF_API const char *cf_hfile_codec_name(uint32_t codec);
/* "Put", "DeleteFamily", ...; NULL for an unknown code. */
CF_API const char *cf_hfile_type_name(uint8_t type);
/* Parse a codec name ("gz", "NONE"; case-insensitive). CF_EINVAL if unknown. */
CF_API cf_status cf_hfile_codec_parse(uint32_t *out, const char *name);

/* Every trailer field, as stored (v1 leaves the v2 fields zero, and vice versa). */
typedef struct cf_hfile_trailer {
    uint32_t major, minor;
    uint32_t trailer_size; /* 60, 212 or 4096 */
    bool protobuf;         /* v2.2+ and v3 */
    uint64_t file_info_offset;
    uint64_t load_on_open_data_offset; /* v2/v3 */
    uint64_t uncompressed_data_index_size;
    uint64_t total_uncompressed_bytes;
    uint32_t data_index_count;
    uint32_t meta_index_count;
    uint64_t entry_count;
    uint32_t num_data_index_levels;
    uint64_t first_data_block_offset;
    uint64_t last_data_block_offset;
    char comparator[256]; /* NUL-terminated (v1: FileInfo hfile.COMPARATOR) */
    uint32_t compression_codec;
    bool has_encryption_key;
    uint64_t data_index_offset; /* v1 */
    uint64_t meta_index_offset; /* v1 */
} cf_hfile_trailer;

/* One cell. For v1 files only `key` and `value` are set (raw bytes).
 * The slices point into memory owned by the iterator (or the caller, when
 * appending) and stay valid until the next call on that iterator. */
typedef struct cf_hfile_cell {
    cf_slice key; /* the whole KeyValue key */
    cf_slice row, family, qualifier;
    int64_t timestamp;
    uint8_t type;
    cf_slice value;
    cf_slice tags; /* empty unless the file carries tags */
    uint64_t mvcc; /* 0 unless the file carries memstore timestamps */
} cf_hfile_cell;

/* What open found. */
typedef struct cf_hfile_info {
    uint32_t major, minor;
    uint32_t compression;    /* cf_hfile_codec */
    int data_block_encoding; /* CF_HFILE_DBE_*, from FileInfo DATA_BLOCK_ENCODING */
    bool raw_keys;           /* v1: keys are opaque bytes */
    bool includes_mvcc;      /* KEY_VALUE_VERSION == 1 */
    bool includes_tags;      /* v3 with hfile.MAX_TAGS_LEN */
    bool checksums;          /* block headers carry HBase checksums */
    uint64_t num_data_blocks;
    uint32_t index_levels;
    uint32_t root_entries;
    uint64_t leaf_index_blocks;
    uint64_t intermediate_index_blocks;
    bool has_midkey_metadata; /* multi-level root: 16 bytes after the entries */
    uint64_t mid_leaf_offset;
    uint32_t mid_leaf_on_disk_size;
    uint32_t mid_key_entry;
    size_t file_info_count;
    size_t meta_count;
} cf_hfile_info;

#define CF_HFILE_OPTIONS_VERSION 1

typedef struct cf_hfile_options {
    uint32_t version;      /* CF_HFILE_OPTIONS_VERSION, set by _init */
    bool verify_checksums; /* default true */
    size_t max_block_len;  /* refuse blocks larger than this (default 256 MiB) */
} cf_hfile_options;

CF_API void cf_hfile_options_init(cf_hfile_options *opts);

/* Open an HFile from io (borrowed: it must outlive the reader). opts may be NULL
 * (defaults); CF_EINVAL for options not filled by cf_hfile_options_init.
 * CF_ECORRUPT for anything that breaks the format, CF_ENOTSUP for a valid
 * feature not implemented here (encryption, an unbuilt codec). */
CF_API cf_status cf_hfile_open(cf_hfile **out, cf_io *io, const cf_hfile_options *opts,
                               cf_error *err);
/* Open a file by path; the reader owns its io. */
CF_API cf_status cf_hfile_open_file(cf_hfile **out, const char *path, const cf_hfile_options *opts,
                                    cf_error *err);
CF_API void cf_hfile_free(cf_hfile *h); /* NULL is a no-op */

/* Does the tail of this io look like an HFile trailer? (No error on "no".) */
CF_API bool cf_hfile_sniff(cf_io *io);

CF_API const cf_hfile_trailer *cf_hfile_get_trailer(const cf_hfile *h);
CF_API const cf_hfile_info *cf_hfile_get_info(const cf_hfile *h);

/* FileInfo entry i (0-based, file order); slices owned by h. false (empty
 * slices) when i >= cf_hfile_get_info(h)->file_info_count. */
CF_API bool cf_hfile_file_info_at(const cf_hfile *h, size_t i, cf_slice *key, cf_slice *value);
/* The value of a FileInfo key, false if absent. */
CF_API bool cf_hfile_file_info_get(const cf_hfile *h, const char *key, cf_slice *value);

/* One entry of the flattened data block index. */
typedef struct cf_hfile_block_ref {
    uint64_t offset;
    uint32_t on_disk_size; /* with header (and checksums) as the index stores it */
    cf_slice key;          /* index key (owned by h) */
} cf_hfile_block_ref;
/* Entry i (0-based) into *out; false (a zeroed *out) when
 * i >= cf_hfile_get_info(h)->num_data_blocks. */
CF_API bool cf_hfile_data_block_at(const cf_hfile *h, uint64_t i, cf_hfile_block_ref *out);
/* The mid-key (HBase's split point) as a key; empty for an empty file. */
CF_API cf_status cf_hfile_midkey(const cf_hfile *h, cf_slice *out, cf_error *err);

/* Meta block i (0-based): meta_at gives its name and index entry (false, and
 * zeroes, when i >= cf_hfile_get_info(h)->meta_count); meta_read a malloc'd
 * copy of its uncompressed payload, freed with cf_hfile_bytes_free (CF_EINVAL
 * for i out of range). */
CF_API bool cf_hfile_meta_at(const cf_hfile *h, size_t i, cf_slice *name, uint64_t *offset,
                             uint32_t *on_disk_size);
CF_API cf_status cf_hfile_meta_read(const cf_hfile *h, size_t i, uint8_t **out, size_t *len,
                                    cf_error *err);
CF_API void cf_hfile_bytes_free(void *p);

/* A block header as stored (v2/v3). */
typedef struct cf_hfile_block_header {
    char magic[9];
    uint64_t offset;
    uint32_t on_disk_size_without_header;
    uint32_t uncompressed_size_without_header;
    int64_t prev_block_offset;
    uint8_t checksum_type; /* 0 none, 1 CRC32, 2 CRC32C */
    uint32_t bytes_per_checksum;
    uint32_t on_disk_data_size_with_header;
    uint32_t header_size; /* 33 with checksums, 24 without */
} cf_hfile_block_header;
/* Walk every block from offset 0 to the trailer in file order (v2/v3),
 * verifying each one (checksums, decompression) when verify is true.
 * fn returns false to stop. */
typedef bool (*cf_hfile_block_fn)(void *ctx, const cf_hfile_block_header *hdr);
CF_API cf_status cf_hfile_walk_blocks(const cf_hfile *h, bool verify, cf_hfile_block_fn fn,
                                      void *ctx, cf_error *err);

/* Compound Bloom filters. */
enum { CF_HFILE_BLOOM_GENERAL = 0, CF_HFILE_BLOOM_DELETE_FAMILY = 1 };
enum { CF_HFILE_HASH_JENKINS = 0, CF_HFILE_HASH_MURMUR = 1, CF_HFILE_HASH_MURMUR3 = 2 };
typedef struct cf_hfile_bloom_info {
    uint32_t version;
    uint64_t total_byte_size;
    uint32_t hash_count;
    uint32_t hash_type;
    uint64_t total_key_count;
    uint64_t total_max_keys;
    uint32_t num_chunks;
    cf_slice comparator;
} cf_hfile_bloom_info;
/* NULL when the file has no such Bloom filter. */
CF_API const cf_hfile_bloom_info *cf_hfile_bloom(const cf_hfile *h, int which);
/* Chunk i's index entry (0-based); false (and zeroes) when the file has no
 * such Bloom filter or i >= its num_chunks. */
CF_API bool cf_hfile_bloom_chunk_at(const cf_hfile *h, int which, uint32_t i, uint64_t *offset,
                                    uint32_t *on_disk_size, cf_slice *first_key);
/* false when the row is certainly absent. No Bloom filter: *out = true. */
CF_API cf_status cf_hfile_bloom_may_contain(const cf_hfile *h, int which, const void *row,
                                            size_t len, bool *out, cf_error *err);
#ifdef CF_STATIC_LINKING_ONLY /* not exported by libcfile.so: status.h */
/* HBase's hash functions (Hash.JENKINS_HASH, MURMUR_HASH, MURMUR_HASH3). */
CF_STATIC_API int32_t cf_hfile_hash(uint32_t hash_type, const void *data, size_t len, int32_t seed);
#endif /* CF_STATIC_LINKING_ONLY */

/* ---- inspection (src/hfile/inspect.c): what `hbase hfile` shows ------------------- */

/* How a FileInfo value is typed, by its key, as HBase's HFilePrettyPrinter and
 * HStoreFile read it. A value whose width does not fit its key's type is
 * CF_HFILE_FI_BYTES with `malformed` set (never an error: FileInfo is
 * advisory, and HBase itself ignores most of it). */
typedef enum cf_hfile_fi_kind {
    CF_HFILE_FI_BYTES,     /* unknown key (or malformed): raw bytes */
    CF_HFILE_FI_STRING,    /* text: BLOOM_FILTER_TYPE, DATA_BLOCK_ENCODING, hfile.COMPARATOR ... */
    CF_HFILE_FI_INT,       /* 4-byte big-endian: hfile.AVG_KEY_LEN, KEY_VALUE_VERSION ... */
    CF_HFILE_FI_LONG,      /* 8-byte big-endian: MAX_SEQ_ID_KEY, EARLIEST_PUT_TS ... */
    CF_HFILE_FI_BOOL,      /* 1 byte, non-zero = true: MAJOR_COMPACTION_KEY ... */
    CF_HFILE_FI_TIMERANGE, /* TIMERANGE: Writable (two longs) or "PBUF" + TimeRangeTracker */
    CF_HFILE_FI_KEY,       /* a KeyValue key: hfile.LASTKEY, hfile.KEY_OF_BIGGEST_CELL */
    CF_HFILE_FI_COMPACTION /* COMPACTION_EVENT_KEY: "PBUF" + CompactionEventTracker */
} cf_hfile_fi_kind;

typedef struct cf_hfile_fi_value {
    cf_hfile_fi_kind kind;
    int64_t num;            /* INT, LONG, BOOL (0/1) */
    int64_t tr_from, tr_to; /* TIMERANGE */
    bool tr_protobuf;       /* TIMERANGE in its protobuf form */
    size_t tr_extra;        /* TIMERANGE: bytes after the two Writable longs (0.9x pads to 32) */
    cf_hfile_cell key;      /* KEY: row, family, qualifier, timestamp, type (slices into value) */
    size_t compacted_files; /* COMPACTION: how many store file names it lists */
    const char *malformed;  /* BYTES: why a known key's value did not decode, else NULL */
} cf_hfile_fi_value;

/* Decode one FileInfo value (key and value as cf_hfile_file_info_at gives them). */
CF_API void cf_hfile_file_info_decode(const cf_hfile *h, cf_slice key, cf_slice value,
                                      cf_hfile_fi_value *out);
/* The i-th store file name of a COMPACTION_EVENT_KEY value (a slice of value);
 * false when i is past the end. */
CF_API bool cf_hfile_compacted_file_at(cf_slice value, size_t i, cf_slice *name);

/* One index block of the data index, visited root first, then each level in
 * file order (v1: the one root-format index). entries[i].key is valid during
 * the call only. Entries of the last level point at data blocks. */
typedef struct cf_hfile_index_block {
    uint32_t level;             /* 0 = root */
    uint32_t levels;            /* trailer num_data_index_levels */
    const char *kind;           /* "root", "intermediate" or "leaf" */
    uint64_t offset;            /* of the index block */
    uint32_t on_disk_size;      /* with header (v1: 0) */
    uint32_t uncompressed_size; /* payload */
} cf_hfile_index_block;
typedef bool (*cf_hfile_index_fn)(void *ctx, const cf_hfile_index_block *blk,
                                  const cf_hfile_block_ref *entries, size_t n);
/* Read every index block again (checksums verified as the reader's options say)
 * and call fn for each; fn returns false to stop. CF_ECORRUPT as open would. */
CF_API cf_status cf_hfile_index_walk(const cf_hfile *h, cf_hfile_index_fn fn, void *ctx,
                                     cf_error *err);

/* A block type's HBase name ("DATA", "ENCODED_DATA", "LEAF_INDEX", "BLOOM_CHUNK",
 * "META", "INTERMEDIATE_INDEX", "ROOT_INDEX", "FILE_INFO", "GENERAL_BLOOM_META",
 * "DELETE_FAMILY_BLOOM_META", "TRAILER", "INDEX_V1") from its 8-byte magic;
 * NULL if unknown. */
CF_API const char *cf_hfile_block_type_name(const char magic[8]);
/* "NULL", "CRC32", "CRC32C"; NULL if unknown. */
CF_API const char *cf_hfile_checksum_name(uint8_t type);
/* "NONE", "PREFIX", "DIFF", "FAST_DIFF", "PREFIX_TREE", "ROW_INDEX_V1"; NULL if unknown. */
CF_API const char *cf_hfile_encoding_name(int id);

/* What a Bloom probe tested. */
typedef struct cf_hfile_bloom_result {
    bool present;     /* the file has this Bloom filter (else may_contain is true) */
    bool may_contain; /* false: certainly absent */
    const char
        *type;      /* general: BLOOM_FILTER_TYPE ("ROW", "ROWCOL", ...); "ROW" for delete family */
    uint32_t chunk; /* the chunk probed (when present and some chunk can hold the key) */
    bool before_first; /* the key sorts before every chunk: absent without a probe */
} cf_hfile_bloom_result;
/* Probe a Bloom filter as HBase's StoreFileReader does: which is
 * CF_HFILE_BLOOM_GENERAL (the key is built by the file's BLOOM_FILTER_TYPE:
 * ROW = the row, ROWCOL = the first-on-row-column key, which needs has_column,
 * ROWPREFIX_FIXED_LENGTH = the row's first BLOOM_FILTER_PARAM bytes) or
 * CF_HFILE_BLOOM_DELETE_FAMILY (the row). CF_EINVAL for ROWCOL without a column,
 * CF_ENOTSUP for a Bloom type this build cannot form keys for. */
CF_API cf_status cf_hfile_bloom_check(const cf_hfile *h, int which, cf_slice row, bool has_column,
                                      cf_slice family, cf_slice qualifier,
                                      cf_hfile_bloom_result *out, cf_error *err);

/* ---- cells ------------------------------------------------------------------------- */

/* Positioned before the first cell. */
CF_API cf_status cf_hfile_iter_create(cf_hfile_iter **out, const cf_hfile *h, cf_error *err);
CF_API void cf_hfile_iter_free(cf_hfile_iter *it);
/* The next cell; *has = false at the end (still CF_OK). */
CF_API cf_status cf_hfile_iter_next(cf_hfile_iter *it, cf_hfile_cell *out, bool *has,
                                    cf_error *err);
CF_API cf_status cf_hfile_iter_seek_to_first(cf_hfile_iter *it, cf_error *err);
/* Position so that next returns the first cell whose row is >= row (v1: key).
 * Bytewise unsigned order, a proper prefix sorts first. */
CF_API cf_status cf_hfile_iter_seek_row(cf_hfile_iter *it, const void *row, size_t len,
                                        cf_error *err);
/* Position before the first cell >= key under HBase's CellComparator: key's
 * row/family/qualifier/timestamp/type are used (v1: key.key, raw order). */
CF_API cf_status cf_hfile_iter_seek_key(cf_hfile_iter *it, const cf_hfile_cell *key, cf_error *err);
/* Data block and cell-in-block of the cell next will return. */
CF_API void cf_hfile_iter_position(const cf_hfile_iter *it, uint64_t *block, uint64_t *cell);
/* Number of cells in data block i (decodes it). */
CF_API cf_status cf_hfile_block_cell_count(const cf_hfile *h, uint64_t i, uint64_t *out,
                                           cf_error *err);

#ifdef CF_STATIC_LINKING_ONLY /* not exported by libcfile.so: status.h */
/* CellComparator order of two cells (row, family, qualifier, timestamp desc,
 * type desc); <0, 0, >0. */
CF_STATIC_API int cf_hfile_cell_compare(const cf_hfile_cell *a, const cf_hfile_cell *b);
/* Parse a serialized KeyValue key. CF_ECORRUPT when the lengths do not fit. */
CF_STATIC_API cf_status cf_hfile_parse_key(cf_hfile_cell *out, const uint8_t *key, size_t len,
                                           cf_error *err);
#endif /* CF_STATIC_LINKING_ONLY */

/* ---- writer (HFile v3) -------------------------------------------------------------- */

#define CF_HFILE_WRITER_OPTIONS_VERSION 1

typedef struct cf_hfile_writer_options {
    uint32_t version;            /* CF_HFILE_WRITER_OPTIONS_VERSION, set by _init */
    uint32_t compression;        /* cf_hfile_codec: any of them (default NONE) */
    uint32_t block_size;         /* data block target (default 65536) */
    uint32_t bytes_per_checksum; /* default 16384 */
    uint32_t index_block_size;   /* hfile.index.block.max.size (default 131072) */
    uint32_t index_min_entries;  /* hfile.index.block.min.entries (default 16) */
    bool row_bloom;              /* ROW Bloom filter (default true) */
    uint32_t bloom_chunk_size;   /* io.storefile.bloom.block.size (default 131072) */
    double bloom_error_rate;     /* default 0.01 */
    bool include_mvcc;           /* KEY_VALUE_VERSION 1 + mvcc vlongs (default true) */
    bool include_tags;           /* tags + MAX_TAGS_LEN (default false) */
    int64_t create_time;         /* hfile.CREATE_TIME_TS (default 0) */
    const char *comparator;      /* default org.apache.hadoop.hbase.KeyValue$KVComparator */
    int encoding;                /* data block encoding, CF_HFILE_DBE_* (default NONE);
                                  * PREFIX, DIFF and FAST_DIFF need one family per file */
    bool compress_tags;          /* tags in PREFIX/DIFF/FAST_DIFF blocks dictionary-
                                  * compressed (default true, HBase's COMPRESS_TAGS) */
    uint8_t checksum_type;       /* block checksums: 0 NULL, 1 CRC32, 2 CRC32C (default 2).
                                  * NULL writes the checksum area zero-filled, as HBase and
                                  * Hudi 1.1+ (hudi-io) do; readers do not verify it */
} cf_hfile_writer_options;

CF_API void cf_hfile_writer_options_init(cf_hfile_writer_options *opts);
/* io must be writable and is borrowed (the caller commits/frees it). opts may be
 * NULL (defaults); CF_EINVAL names a bad option (a version not set by
 * cf_hfile_writer_options_init included). */
CF_API cf_status cf_hfile_writer_create(cf_hfile_writer **out, cf_io *io,
                                        const cf_hfile_writer_options *opts, cf_error *err);
/* Append one cell (row, family, qualifier, timestamp, type, value, tags, mvcc).
 * REQUIRES: cells in non-decreasing CellComparator order (CF_EINVAL otherwise). */
CF_API cf_status cf_hfile_writer_append(cf_hfile_writer *w, const cf_hfile_cell *c, cf_error *err);
/* Extra FileInfo entries (user keys must not start with "hfile."). */
CF_API cf_status cf_hfile_writer_add_file_info(cf_hfile_writer *w, const void *key, size_t key_len,
                                               const void *value, size_t value_len, cf_error *err);
/* A named meta block (written after the data, before the load-on-open section). */
CF_API cf_status cf_hfile_writer_add_meta(cf_hfile_writer *w, const char *name, const void *data,
                                          size_t len, cf_error *err);
/* Write the index, FileInfo, Bloom metadata and trailer. */
CF_API cf_status cf_hfile_writer_finish(cf_hfile_writer *w, cf_error *err);
CF_API void cf_hfile_writer_free(cf_hfile_writer *w);

#ifdef __cplusplus
}
#endif
#endif

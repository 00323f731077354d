/* Internal: Parquet page-level encodings (apache/parquet-format Encodings.md),
 * both directions, for the reader and the writer.
 *
 * Numbers are parquet.thrift's: physical types (CF_PQT_*), encodings (CF_PQE_*).
 * The reader casts the Thrift enum values it parsed straight to these.
 *
 * Value forms (what a decoder writes and an encoder reads), per physical type:
 *
 *   | type                  | one value in memory                                 |
 *   |-----------------------|-----------------------------------------------------|
 *   | BOOLEAN               | uint8_t, 0 or 1                                     |
 *   | INT32, FLOAT          | 4 bytes, host (= file) little-endian                |
 *   | INT64, DOUBLE         | 8 bytes                                             |
 *   | INT96                 | 12 bytes, as stored                                 |
 *   | FIXED_LEN_BYTE_ARRAY  | type_length bytes, values back to back              |
 *   | BYTE_ARRAY            | cf_slice (zero copy into the page where possible)   |
 *
 * Dictionary indices and levels are separate (uint32_t indices; uint16_t or
 * uint32_t levels).
 *
 * Every decoder trusts nothing in the page: each length, count and bit width
 * is checked against the bytes left before it is used, and errors are
 * CF_ECORRUPT naming the encoding and the byte offset in the buffer given.
 * No decoder allocates in proportion to a count read from the page, except
 * the DELTA_BYTE_ARRAY arena, which holds only values actually produced
 * (capped, see cf_pq_decoder).
 */
#ifndef CF_PARQUET_ENCODING_H
#define CF_PARQUET_ENCODING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/status.h>
#include <cfile/types.h>

#include "util/arena.h"
#include "util/buf.h"
#include "util/rle.h"

/* parquet.thrift `Type`. */
enum {
    CF_PQT_BOOLEAN = 0,
    CF_PQT_INT32 = 1,
    CF_PQT_INT64 = 2,
    CF_PQT_INT96 = 3,
    CF_PQT_FLOAT = 4,
    CF_PQT_DOUBLE = 5,
    CF_PQT_BYTE_ARRAY = 6,
    CF_PQT_FIXED_LEN_BYTE_ARRAY = 7
};

/* parquet.thrift `Encoding`. */
enum {
    CF_PQE_PLAIN = 0,
    CF_PQE_PLAIN_DICTIONARY = 2,
    CF_PQE_RLE = 3,
    CF_PQE_BIT_PACKED = 4,
    CF_PQE_DELTA_BINARY_PACKED = 5,
    CF_PQE_DELTA_LENGTH_BYTE_ARRAY = 6,
    CF_PQE_DELTA_BYTE_ARRAY = 7,
    CF_PQE_RLE_DICTIONARY = 8,
    CF_PQE_BYTE_STREAM_SPLIT = 9
};

/* "PLAIN", "RLE_DICTIONARY", ...; "encoding <n>" style NULL for unknown. */
const char *cf_pq_encoding_name(unsigned encoding);
const char *cf_pq_type_name(unsigned type);
/* The (encoding, physical type) pairs the value codec takes (cf_pq_encode,
 * cf_pq_decoder_init: the list of cf_pq_decoder_init below, as data), in a
 * fixed order: the round-trip tests walk them, fuzz_pq_values picks one with
 * its first byte and its seeds are written one per pair. Append only. */
typedef struct cf_pq_value_pair {
    unsigned encoding, type;
} cf_pq_value_pair;
extern const cf_pq_value_pair cf_pq_value_pairs[];
#define CF_PQ_VALUE_PAIR_COUNT 19u

/* Bytes of one value in the forms above: 1 (BOOLEAN), 4, 8, 12, type_length
 * (FLBA), sizeof(cf_slice) (BYTE_ARRAY); 0 for an unknown type or an FLBA
 * type_length < 1. */
size_t cf_pq_value_size(unsigned type, int32_t type_length);

/* ---- RLE / bit-packing hybrid and levels (levels.c) ------------------------------------
 *
 * The hybrid is the same grammar as Kudu's RLE in src/util/rle.c (format §7):
 * ULEB128 run header, bit 0 set = bit-packed run of (header >> 1) groups of 8
 * values packed LSB-first, else a repeated run of (header >> 1) copies of one
 * value in ceil(w/8) little-endian bytes. So the decoder is cf_rle_decoder.
 * What Parquet adds or changes: bit width 0 (every value 0, header-only
 * runs), widths capped at 32, the optional 4-byte little-endian length in
 * front (data page v1 levels, RLE booleans), and writers must pad the last
 * bit-packed run to whole groups (Kudu's encoder ends on a partial group, so
 * the encoder here is Parquet's own). The deprecated BIT_PACKED level
 * encoding is a different thing: no runs, values packed MSB-first. */

/* Bits needed for values 0..max: 0 for 0, 1 for 1, 2 for 2..3, ... */
static inline unsigned cf_pq_bit_width(uint64_t max)
{
    return max == 0 ? 0 : 64 - (unsigned)__builtin_clzll(max);
}

/* Decode exactly n hybrid values of bit_width (0..32) from [data, data+len)
 * (no length prefix) into out as elem_size-byte integers (2 or 4). Values
 * wider than elem_size are damage. Bytes after the n-th value are ignored
 * (a run may extend past n, the last group pads). CF_ECORRUPT when the stream
 * ends first. */
cf_status cf_pq_hybrid_decode(void *out, size_t elem_size, size_t n, unsigned bit_width,
                              const uint8_t *data, size_t len, cf_error *err);
/* Append the hybrid encoding of n values (elem_size 1, 2 or 4 bytes each,
 * each < 2^bit_width) to out, without a length prefix. bit_width 0..32. */
cf_status cf_pq_hybrid_encode(cf_buf *out, const void *vals, size_t elem_size, size_t n,
                              unsigned bit_width, cf_error *err);

/* Levels of one page, max_level (0..65535) deciding the bit width.
 * encoding: CF_PQE_RLE (hybrid) or CF_PQE_BIT_PACKED (deprecated).
 * prefixed: RLE with the 4-byte length in front (data page v1); false for
 * data page v2, where [data, data+len) is exactly the levels section.
 * *consumed (may be NULL) gets the bytes the levels take (prefix included),
 * so a v1 page's next section starts there. Every level must be <= max_level.
 * With max_level 0 nothing is stored: n zeros, 0 bytes consumed. */
cf_status cf_pq_levels_decode(uint16_t *out, size_t n, unsigned encoding, uint16_t max_level,
                              bool prefixed, const uint8_t *data, size_t len, size_t *consumed,
                              cf_error *err);
/* Append n levels: RLE (prefixed or not) or BIT_PACKED; nothing for max_level 0. */
cf_status cf_pq_levels_encode(cf_buf *out, const uint16_t *levels, size_t n, unsigned encoding,
                              uint16_t max_level, bool prefixed, cf_error *err);

/* ---- dictionary indices (dict.c) -------------------------------------------------------- */

/* RLE_DICTIONARY / PLAIN_DICTIONARY data: 1 byte bit width (<= 32), then the
 * hybrid to the end of the buffer. Decodes exactly n indices, each checked
 * < dict_count. */
cf_status cf_pq_dict_indices_decode(uint32_t *out, size_t n, uint32_t dict_count,
                                    const uint8_t *data, size_t len, cf_error *err);
/* Append the bit-width byte (from dict_count - 1) and the hybrid. */
cf_status cf_pq_dict_indices_encode(cf_buf *out, const uint32_t *idx, size_t n, uint32_t dict_count,
                                    cf_error *err);

/* ---- DELTA_BINARY_PACKED cursor (delta.c) ----------------------------------------------
 * Exposed because DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY are built on it. */
typedef struct cf_pq_dbp {
    const uint8_t *start;         /* the buffer given to init, for offsets */
    const uint8_t *p, *end;       /* next unread byte (block header or miniblock) */
    uint64_t block_size;          /* values per block */
    uint32_t mb_count;            /* miniblocks per block */
    uint64_t mb_size;             /* values per miniblock (multiple of 32) */
    uint64_t total;               /* values the header claims */
    uint64_t done;                /* values returned */
    uint64_t last;                /* previous value, wrapping */
    uint64_t min_delta;           /* current block's (zigzag-decoded, wrapping) */
    const uint8_t *widths;        /* current block's miniblock bit widths */
    uint32_t mb_index;            /* next miniblock of the current block */
    uint64_t mb_left;             /* values left in the current miniblock */
    const uint8_t *mb_p, *mb_end; /* its bytes (cut at the buffer's end) */
    uint64_t mb_bit;              /* bit position in it */
    unsigned mb_width;            /* its bit width */
    unsigned max_width;           /* 32 for INT32, 64 for INT64 */
} cf_pq_dbp;

/* Parse the header. bits 32 or 64 (INT32/INT64 wrapping arithmetic). */
cf_status cf_pq_dbp_init(cf_pq_dbp *d, unsigned bits, const uint8_t *data, size_t len,
                         cf_error *err);
/* Next n values as int32 (bits 32) or int64 (bits 64) little-endian, n <=
 * total - done. */
cf_status cf_pq_dbp_get(cf_pq_dbp *d, void *out, size_t n, cf_error *err);
/* Decode the remaining values without storing them; with nonneg, each must
 * be >= 0 (lengths). *sum (may be NULL) gets their sum (saturating), and
 * *end_off (may be NULL) the offset of the first byte after the stream. */
cf_status cf_pq_dbp_skip_all(cf_pq_dbp *d, bool nonneg, uint64_t *sum, size_t *end_off,
                             cf_error *err);
/* Append a DELTA_BINARY_PACKED stream of n int32 (bits 32) or int64 values:
 * block 128, 4 miniblocks of 32, as parquet-java and arrow write it. */
cf_status cf_pq_dbp_encode(cf_buf *out, unsigned bits, const void *vals, size_t n, cf_error *err);

/* ---- the value decoder (values.c) ------------------------------------------------------ */

/* Default cap of a decoder's arena: the bytes one get may rebuild. */
#define CF_PQ_ARENA_CAP ((size_t)256 << 20)

typedef struct cf_pq_decoder {
    unsigned encoding, type;
    size_t width;         /* bytes of one fixed-size value (BOOLEAN 1) */
    const uint8_t *start; /* the page's value section */
    const uint8_t *p, *end;
    size_t left;         /* values still to be returned */
    uint64_t bit;        /* PLAIN BOOLEAN: next bit */
    size_t stream_len;   /* BYTE_STREAM_SPLIT: values per stream */
    size_t pos;          /* BYTE_STREAM_SPLIT: values returned */
    cf_rle_decoder rle;  /* RLE booleans */
    cf_pq_dbp dbp;       /* DELTA_BINARY_PACKED values; DLBA/DBA lengths */
    cf_pq_dbp pre;       /* DELTA_BYTE_ARRAY prefix lengths */
    const uint8_t *data; /* DLBA/DBA: next byte of the concatenated data */
    cf_slice prev;       /* DBA: the previous value */
    cf_buf prevbuf;      /* DBA: prev's bytes when they are not in the page */
    cf_arena arena;      /* DBA: rebuilt values of the last get (limit CF_PQ_ARENA_CAP) */
} cf_pq_decoder;

/* Start decoding num_values values of `type` (type_length for FLBA) stored
 * with `encoding` in [data, data+len). The decoder borrows the bytes: keep
 * them alive and unchanged until dispose. num_values is the count of values
 * actually stored (non-null), from the page header and the levels.
 * Encodings: PLAIN (all types), RLE (BOOLEAN, 4-byte length prefix),
 * DELTA_BINARY_PACKED (INT32, INT64), DELTA_LENGTH_BYTE_ARRAY (BYTE_ARRAY),
 * DELTA_BYTE_ARRAY (BYTE_ARRAY, FLBA), BYTE_STREAM_SPLIT (FLOAT, DOUBLE,
 * INT32, INT64, FLBA). CF_ENOTSUP for another (type, encoding) pair; dictionary
 * indices are cf_pq_dict_indices_decode. CF_ECORRUPT when the header parts
 * (DELTA headers, lengths, stream sizes) cannot hold num_values values.
 * Always dispose, even after a failed init. */
cf_status cf_pq_decoder_init(cf_pq_decoder *d, unsigned encoding, unsigned type,
                             int32_t type_length, const uint8_t *data, size_t len,
                             size_t num_values, cf_error *err);
void cf_pq_decoder_dispose(cf_pq_decoder *d);
/* Values not yet returned. */
static inline size_t cf_pq_decoder_left(const cf_pq_decoder *d)
{
    return d->left;
}
/* The next n values (n <= left) into out, in the forms above. BYTE_ARRAY
 * slices point into the page (PLAIN, DELTA_LENGTH_BYTE_ARRAY, and
 * DELTA_BYTE_ARRAY values with prefix 0) or into the decoder's arena (other
 * DELTA_BYTE_ARRAY values), which is reset at each get: copy what must
 * outlive the next get or dispose. CF_ENOTSUP when one get would rebuild
 * more than CF_PQ_ARENA_CAP bytes (ask for fewer values). */
cf_status cf_pq_decoder_get(cf_pq_decoder *d, void *out, size_t n, cf_error *err);
/* Zero copy for PLAIN fixed-size types (not BOOLEAN): *out points at the next
 * n values in the page itself. CF_ENOTSUP for other encodings/types. */
cf_status cf_pq_decoder_view(cf_pq_decoder *d, const uint8_t **out, size_t n, cf_error *err);

/* ---- page codecs (codec.c) ----------------------------------------------------------------- */

/* parquet.thrift `CompressionCodec`. */
enum {
    CF_PQC_UNCOMPRESSED = 0,
    CF_PQC_SNAPPY = 1,
    CF_PQC_GZIP = 2,
    CF_PQC_LZO = 3,
    CF_PQC_BROTLI = 4,
    CF_PQC_LZ4 = 5, /* deprecated: Hadoop-framed (or, from old parquet-cpp, raw/frame) */
    CF_PQC_ZSTD = 6,
    CF_PQC_LZ4_RAW = 7
};

/* "SNAPPY", ...; NULL for a number parquet.thrift does not define. */
const char *cf_pq_codec_name(unsigned codec);
/* Can we decode (and encode) pages of this codec? All parquet.thrift names. */
bool cf_pq_codec_supported(unsigned codec);
/* Decompress one page body [src, src+len) into exactly dst_len bytes (the
 * page header's uncompressed_page_size, minus v2 levels). Never writes past
 * dst + dst_len; a payload that decodes to any other size is CF_ECORRUPT.
 * CF_ENOTSUP for an unknown codec. LZO is Hadoop-framed LZO1X chunks. */
cf_status cf_pq_decompress(unsigned codec, const uint8_t *src, size_t len, uint8_t *dst,
                           size_t dst_len, cf_error *err);
/* Append the compressed form of [src, src+len) to dst. level 0 = the codec's
 * default (GZIP 6, ZSTD 3, BROTLI 5); ignored by SNAPPY and LZ4*. LZ4 is
 * written Hadoop-framed, as parquet-java and arrow do; LZO as one Hadoop block
 * of one LZO1X chunk. */
cf_status cf_pq_compress(unsigned codec, const uint8_t *src, size_t len, int level, cf_buf *dst,
                         cf_error *err);

/* cf_pq_compress for many pages of one codec and level (a writer's): GZIP
 * and ZSTD keep their library context between pages instead of building one
 * per page (the same bytes). Call order: init run* dispose; one thread at a
 * time. */
typedef struct cf_pq_compressor {
    unsigned codec;
    int level;
    struct cf_codec_gzip_cctx *gzip; /* made at the first page (codec/compress.h) */
    struct cf_codec_zstd_cctx *zstd;
} cf_pq_compressor;

void cf_pq_compressor_init(cf_pq_compressor *cz, unsigned codec, int level);
void cf_pq_compressor_dispose(cf_pq_compressor *cz);
cf_status cf_pq_compressor_run(cf_pq_compressor *cz, const uint8_t *src, size_t len, cf_buf *dst,
                               cf_error *err);

/* ---- the value encoders (values.c) ------------------------------------------------------ */

/* Append n values (forms above) encoded with `encoding` to out: PLAIN, RLE
 * (BOOLEAN, with its length prefix), DELTA_BINARY_PACKED,
 * DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT. The output
 * decodes with cf_pq_decoder to the same values. CF_EINVAL for a pair the
 * format does not allow, a BYTE_ARRAY value longer than 2^31 - 1 bytes. */
cf_status cf_pq_encode(cf_buf *out, unsigned encoding, unsigned type, int32_t type_length,
                       const void *vals, size_t n, cf_error *err);

#endif

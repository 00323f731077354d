/* Internal: the Parquet writer's parts. writer.c owns the file (schema, row
 * groups, page index, footer), the writer_col*.c files one column's chunk
 * (levels, values, dictionary, pages, statistics; writer_col.h lists them),
 * bloom_write.c the filter's size and distinct hashes (bloom.c the hash and
 * filter, shared with the reader). */
#ifndef CF_PARQUET_WRITER_H
#define CF_PARQUET_WRITER_H

#include <cfile/parquet.h>
#include <cfile/team.h>

#include "bloom.h"
#include "encoding.h"
#include "thrift.h"
#include "util/buf.h"

/* ---- bloom filters (bloom_write.c) --------------------------------------------------- */

/* Bytes of a filter for ndv distinct values at false-positive rate fpp. */
size_t cf_pq_bloom_bytes(uint64_t ndv, double fpp);

typedef struct cf_pq_hashset {
    uint64_t *slots;
    size_t cap, count;
    bool has_zero;
} cf_pq_hashset;

/* false when out of memory. */
bool cf_pq_hashset_add(cf_pq_hashset *s, uint64_t h);
void cf_pq_hashset_dispose(cf_pq_hashset *s);

/* ---- one column -------------------------------------------------------------------------- */

/* How min and max compare (the column order of the logical type). */
typedef enum cf_pq_sort {
    CF_PQS_BOOL,
    CF_PQS_I32,
    CF_PQS_U32,
    CF_PQS_I64,
    CF_PQS_U64,
    CF_PQS_FLOAT,
    CF_PQS_DOUBLE,
    CF_PQS_BYTES,     /* unsigned lexicographic (BYTE_ARRAY, FLBA without annotation) */
    CF_PQS_DECIMAL_BE /* big-endian two's complement (DECIMAL on FLBA) */
} cf_pq_sort;

/* Min and max in PLAIN form (BYTE_ARRAY: the bytes only). */
typedef struct cf_pq_minmax {
    bool has;
    cf_buf min, max;
} cf_pq_minmax;

/* One data page, for the offset and column index. */
typedef struct cf_pq_page_rec {
    int64_t offset;    /* within the chunk's data pages while open; file offset after */
    int32_t size;      /* header included */
    uint32_t hdr_len;  /* the header's bytes */
    int64_t first_row; /* within the row group */
    int64_t null_count;
    bool null_page; /* no non-null value */
    bool has_minmax;
    uint32_t min_off, min_len, max_off, max_len; /* in the chunk record's `bounds` */
} cf_pq_page_rec;

/* What the footer and page index need of one written column chunk. */
typedef struct cf_pq_chunk_rec {
    int64_t num_values;
    int64_t total_uncompressed, total_compressed;
    int64_t data_page_offset;
    bool has_dict;
    int64_t dict_page_offset;
    uint32_t encodings; /* bit per Encoding used */
    bool has_stats, has_minmax;
    int64_t null_count;
    uint8_t *min, *max; /* owned */
    uint32_t min_len, max_len;
    bool min_exact, max_exact;
    bool has_bloom;
    int64_t bloom_offset;
    int32_t bloom_len;
    /* page index */
    uint32_t page_count;
    cf_pq_page_rec *pages;
    uint8_t *bounds; /* min/max bytes of the pages (owned) */
    bool ci_ok;      /* every non-null page has min and max: a column index can be written */
    int64_t ci_offset, oi_offset;
    int32_t ci_len, oi_len;
} cf_pq_chunk_rec;

void cf_pq_chunk_rec_dispose(cf_pq_chunk_rec *r);

/* Schema facts of one leaf, fixed at create. */
typedef struct cf_pq_wcol_def {
    char *name;
    cf_type ktype;
    bool nullable, is_array, bloom;
    bool utf8; /* STRING annotation: values are checked to be UTF-8 */
    int32_t ptype, type_length;
    int precision, scale;
    uint16_t max_def, max_rep;
    cf_pq_sort sort;
} cf_pq_wcol_def;

typedef struct cf_pq_wcol cf_pq_wcol;

/* The writer options a column needs, resolved. */
typedef struct cf_pq_wopts {
    int32_t codec;
    int level;
    size_t page_bytes;
    uint32_t page_rows;
    bool dictionary;
    size_t dict_page_bytes;
    bool v2, statistics, page_index, page_crc;
    double bloom_fpp;
} cf_pq_wopts;

/* cz: the writer's compressor for o->codec and o->level, borrowed (one
 * thread at a time; see cf_pq_wcol_set_compressor). */
cf_status cf_pq_wcol_create(cf_pq_wcol **out, const cf_pq_wcol_def *def, const cf_pq_wopts *o,
                            cf_pq_compressor *cz, cf_error *err);
void cf_pq_wcol_free(cf_pq_wcol *c);
/* Rows [from, to) of b (cf_parquet_writer_append's form). */
cf_status cf_pq_wcol_append(cf_pq_wcol *c, const cf_batch *b, size_t from, size_t to,
                            cf_error *err);
/* The row (counted over the whole file) whose value an append refused, or UINT64_MAX. */
uint64_t cf_pq_wcol_bad_row(const cf_pq_wcol *c);
/* Bytes of the open chunk (its pages so far, held or streamed, plus the open
 * page): what the row group size counts. */
size_t cf_pq_wcol_buffered(const cf_pq_wcol *c);
/* Let the column write its chunk to io before the row group ends, once its
 * dictionary is settled (writer_col.c, "Streaming"). Only for the column
 * whose chunk comes first in every row group: nothing else may be appended
 * to io while its chunk is open. io NULL: hold every chunk until
 * cf_pq_wcol_write_chunk (the same bytes). */
void cf_pq_wcol_stream_to(cf_pq_wcol *c, cf_io *io);
/* The compressor the column's pages use from here on (a writer with threads
 * lends each job one of its own). */
void cf_pq_wcol_set_compressor(cf_pq_wcol *c, cf_pq_compressor *cz);
/* The row group ends: flush the open page and make the dictionary page and
 * the bloom filter's bits ready, so that write_chunk and write_bloom only
 * copy bytes to io. Touches only the column (and io when it streams), so the
 * columns of a row group may be sealed on different threads. Optional: the
 * bytes are the same without it. */
cf_status cf_pq_wcol_seal(cf_pq_wcol *c, cf_error *err);
/* Finish the chunk: flush the open page, then append [dictionary page][data
 * pages] to io (whose size is the chunk's file offset; a streaming chunk has
 * written them already, to the same io) and fill rec; the column is then
 * empty for the next row group. */
cf_status cf_pq_wcol_write_chunk(cf_pq_wcol *c, cf_io *io, cf_pq_chunk_rec *rec, cf_error *err);
/* After write_chunk: the bloom filter (header + bits) appended to io, when
 * the column has one; rec's bloom fields set. */
cf_status cf_pq_wcol_write_bloom(cf_pq_wcol *c, cf_io *io, cf_pq_chunk_rec *rec, cf_error *err);

/* Build the column's closed pages (encode, compress, CRC, header) on team,
 * per_run at a time behind the column's encoding of the next pages, job i of
 * a run with czs[i] (the builds' own, per_run of them). For a column appended
 * on the team's driving thread only (the team runs nothing else for it); the
 * team must be freed before the column. writer_col_page.c, "Pipeline".
 * CF_ENOMEM when its page slots cannot be made. */
cf_status cf_pq_wcol_pipeline(cf_pq_wcol *c, cf_team *team, cf_pq_compressor *czs, size_t per_run,
                              cf_error *err);
/* The most bytes the pages in flight can add to cf_pq_wcol_buffered (0: none). */
uint64_t cf_pq_wcol_in_flight_max(const cf_pq_wcol *c);
/* Build every page in flight and commit them: cf_pq_wcol_buffered is exact
 * after. The first failed build's error, in page order, if any. */
cf_status cf_pq_wcol_drain(cf_pq_wcol *c, cf_error *err);

/* Tests: every chunk held until its row group ends, none streamed (call
 * before the first append). The file's bytes are the same. */
void cf_pq_writer_hold_chunks(cf_parquet_writer *w);

/* Compare two values in PLAIN form (BYTE_ARRAY: bytes only) in sort order s. */
int cf_pq_wcol_cmp(cf_pq_sort s, const uint8_t *a, size_t al, const uint8_t *b, size_t bl);
/* Serialize a Statistics-form min or max for the footer (floats: -0/+0 fixed). */
void cf_pq_minmax_fix_zero(cf_pq_sort sort, uint8_t *min, uint8_t *max);

#endif

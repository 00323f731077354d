/* Internal: the Thrift compact protocol, both directions, for Parquet metadata.
 *
 * Parquet's footer, page headers, column and offset indexes and bloom filter
 * headers are Thrift structs in the compact protocol (parquet.thrift). The bytes
 * are hostile: every length, count and field header is checked against the bytes
 * left before it is used, nesting is limited, and everything the decoder
 * allocates comes from one arena whose total is bounded by the input's size.
 *
 * Wire facts (Thrift compact protocol):
 *   varint     unsigned LEB128; i16/i32/i64 are zigzag varints, i8 one raw byte
 *   double     8 bytes little-endian
 *   binary     varint length, then the bytes
 *   field      one byte: high nibble = id delta (1..15) from the previous field of
 *              the same struct, low nibble = type; delta 0 = an i16 zigzag varint
 *              id follows; a bool field carries its value in the type (1 true, 2 false)
 *   stop       one 0 byte ends a struct
 *   list/set   one byte: high nibble = size (0..14), low nibble = element type;
 *              size nibble 15 = a varint size follows; bool elements are one byte each
 *   map        varint size; when non-zero one byte key type (high) / value type (low)
 *
 * Call order (reader):  init (field_next (read_* | skip | struct_begin ... struct_end
 *                       | list_begin read_*{n})*)* ; every read checks the bytes left.
 * Call order (writer):  init (struct_begin (field_* | list_begin ...)* struct_end)* dispose
 */
#ifndef CF_PARQUET_THRIFT_H
#define CF_PARQUET_THRIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/status.h>
#include <cfile/types.h>

#include "util/arena.h"
#include "util/buf.h"

/* Compact-protocol type codes (the low nibble of a field header). */
enum {
    CF_TT_STOP = 0,
    CF_TT_BOOL_TRUE = 1,
    CF_TT_BOOL_FALSE = 2,
    CF_TT_I8 = 3,
    CF_TT_I16 = 4,
    CF_TT_I32 = 5,
    CF_TT_I64 = 6,
    CF_TT_DOUBLE = 7,
    CF_TT_BINARY = 8,
    CF_TT_LIST = 9,
    CF_TT_SET = 10,
    CF_TT_MAP = 11,
    CF_TT_STRUCT = 12,
    CF_TT_UUID = 13 /* 16 raw bytes (newer Thrift); parquet.thrift has none, skipped */
};

/* Nesting deeper than this (structs, lists, maps, counted together) is refused.
 * parquet.thrift nests at most ~8 levels; the margin leaves room for new fields. */
#define CF_THRIFT_MAX_DEPTH 64

/* ---- reader ---------------------------------------------------------------------- */

typedef struct cf_thrift_reader {
    const uint8_t *base; /* first byte (for offsets in messages) */
    const uint8_t *p;    /* next byte */
    const uint8_t *end;  /* one past the last byte */
    uint64_t base_off;   /* file offset of base, for messages */
    const char *what;    /* what is being decoded ("footer", "page header"), for messages */
    uint32_t depth;
    int16_t last_fid[CF_THRIFT_MAX_DEPTH + 1]; /* previous field id, per open struct */
    uint8_t bool_field;                        /* the bool of the last bool field header */
    /* Allocation accounting: the arena gives out at most `alloc_limit` bytes. */
    cf_arena arena; /* no limit of its own: alloc_limit is checked first */
    size_t alloc_used, alloc_limit;
    cf_error *err;
} cf_thrift_reader;

/* Decode from [data, data+len); `what` names the thing for messages, `base_off`
 * is where data sits in the file. The allocation limit defaults to
 * cf_thrift_alloc_bound(len). The reader borrows data and err. */
void cf_thrift_reader_init(cf_thrift_reader *r, const uint8_t *data, size_t len, uint64_t base_off,
                           const char *what, cf_error *err);
/* Frees the arena unless it was taken with cf_thrift_reader_take_arena. */
void cf_thrift_reader_dispose(cf_thrift_reader *r);
/* Hand the arena (everything allocated so far) to the caller, who frees it with
 * cf_arena_dispose. */
cf_arena cf_thrift_reader_take_arena(cf_thrift_reader *r);
/* The default allocation limit for `len` input bytes. Each list element costs at
 * least one input byte, so decoded structs of a few hundred bytes per element
 * fit under this with room to spare. */
size_t cf_thrift_alloc_bound(size_t len);

/* Zeroed memory from the arena, counted against the limit; CF_ECORRUPT when the
 * input cannot justify it, CF_ENOMEM when the system has none. */
cf_status cf_thrift_alloc(cf_thrift_reader *r, void **out, size_t count, size_t size);

/* Bytes consumed so far. */
static inline size_t cf_thrift_pos(const cf_thrift_reader *r)
{
    return (size_t)(r->p - r->base);
}

/* Enter a struct (its fields follow). Fails past CF_THRIFT_MAX_DEPTH. */
cf_status cf_thrift_struct_begin(cf_thrift_reader *r);
/* Leave the struct whose STOP byte field_next just returned. */
void cf_thrift_struct_end(cf_thrift_reader *r);
/* Next field header of the current struct: *type = CF_TT_STOP at its end. For
 * bool fields *type is CF_TT_BOOL_TRUE or CF_TT_BOOL_FALSE and read_bool gives
 * the value without consuming bytes. */
cf_status cf_thrift_field_next(cf_thrift_reader *r, int16_t *fid, uint8_t *type);

/* Values. Each takes the wire type the field or list declared and refuses a
 * value of a different wire type, so a schema mismatch is an error, not garbage.
 * read_i32 accepts i8/i16/i32 (range-checked), read_i64 any integer type. */
cf_status cf_thrift_read_bool(cf_thrift_reader *r, uint8_t type, bool *out);
/* A bool list element (one byte: 1 true, 0 or 2 false). */
cf_status cf_thrift_read_bool_elem(cf_thrift_reader *r, bool *out);
cf_status cf_thrift_read_i32(cf_thrift_reader *r, uint8_t type, int32_t *out);
cf_status cf_thrift_read_i64(cf_thrift_reader *r, uint8_t type, int64_t *out);
cf_status cf_thrift_read_double(cf_thrift_reader *r, uint8_t type, double *out);
/* A borrowed view into the input (no copy). */
cf_status cf_thrift_read_binary(cf_thrift_reader *r, uint8_t type, cf_slice *out);
/* List or set header: element type and count. The count is checked against the
 * bytes left (every element takes at least one byte), so a caller may allocate
 * `*count` elements. Also enters one nesting level: call list_end after. */
cf_status cf_thrift_list_begin(cf_thrift_reader *r, uint8_t type, uint8_t *elem_type,
                               uint32_t *count);
void cf_thrift_list_end(cf_thrift_reader *r);
/* Map header (key and value types are 0 when empty); list_end closes it too. */
cf_status cf_thrift_map_begin(cf_thrift_reader *r, uint8_t type, uint8_t *key_type,
                              uint8_t *value_type, uint32_t *count);
/* Skip one value of any type (a whole struct, list or map), depth-limited. */
cf_status cf_thrift_skip(cf_thrift_reader *r, uint8_t type);

/* Fail with CF_ECORRUPT naming the reader's `what` and the byte offset. */
cf_status cf_thrift_fail(cf_thrift_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- writer ---------------------------------------------------------------------- */

typedef struct cf_thrift_writer {
    cf_buf *out; /* appended to; its sticky oom flag reports CF_ENOMEM */
    uint32_t depth;
    int16_t last_fid[CF_THRIFT_MAX_DEPTH + 1];
} cf_thrift_writer;

void cf_thrift_writer_init(cf_thrift_writer *w, cf_buf *out);
/* Status of everything written so far (CF_ENOMEM if an append failed). */
cf_status cf_thrift_writer_status(const cf_thrift_writer *w);

/* Requires: struct_begin/end balanced, depth < CF_THRIFT_MAX_DEPTH, field ids
 * increasing within a struct is not required (the long form covers any order). */
void cf_thrift_write_struct_begin(cf_thrift_writer *w);
void cf_thrift_write_struct_end(cf_thrift_writer *w); /* writes STOP */
void cf_thrift_write_field(cf_thrift_writer *w, int16_t fid, uint8_t type);
void cf_thrift_write_field_bool(cf_thrift_writer *w, int16_t fid, bool v);
void cf_thrift_write_field_i32(cf_thrift_writer *w, int16_t fid, int32_t v);
void cf_thrift_write_field_i64(cf_thrift_writer *w, int16_t fid, int64_t v);
void cf_thrift_write_field_binary(cf_thrift_writer *w, int16_t fid, const void *p, size_t len);
/* Bare values (list elements, or after write_field). */
void cf_thrift_write_bool(cf_thrift_writer *w, bool v); /* list element form */
void cf_thrift_write_i8(cf_thrift_writer *w, int8_t v);
void cf_thrift_write_i32(cf_thrift_writer *w, int32_t v); /* also i16 */
void cf_thrift_write_i64(cf_thrift_writer *w, int64_t v);
void cf_thrift_write_double(cf_thrift_writer *w, double v);
void cf_thrift_write_binary(cf_thrift_writer *w, const void *p, size_t len);
void cf_thrift_write_list_begin(cf_thrift_writer *w, uint8_t elem_type, uint32_t count);
void cf_thrift_write_map_begin(cf_thrift_writer *w, uint8_t key_type, uint8_t value_type,
                               uint32_t count);

#endif

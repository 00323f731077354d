/* Parquet's Thrift structs from compact-protocol bytes (parquet.thrift of
 * apache/parquet-format; each struct's field ids are its table's indexes).
 *
 * Each struct is a table of the fields this reader keeps, indexed by field id:
 * what the field is (its kind, so its declared wire type), where it goes in the
 * decoded struct, whether it is required. One loop, decode_struct, walks the
 * fields of any struct: known ids are read when their wire type is the
 * declared one, unknown ids and fields of another wire type are skipped
 * whatever their type (newer writers add fields; Thrift's own readers skip a
 * mistyped field as unknown), and the ids seen check the required ones at the
 * end. Checks beyond the Thrift (counts >= 0, lists that must agree) follow
 * each struct's decode.
 * Lists are allocated from the reader's arena after their count has been
 * checked against the bytes left, so the memory is bounded by the input. */
#include "metadata.h"

#include <assert.h>
#include <stddef.h>
#include <string.h>

#include "util/error.h"

/* ---- lists -------------------------------------------------------------------------- */

/* Store a list's pointer in the (const-qualified) pointer member at p. */
static void set_ptr(uint8_t *p, void *v)
{
    memcpy(p, &v, sizeof(v));
}

/* list_T: a list of T into memory from cf_thrift_alloc, its pointer stored in
 * the pointer member at `out`. Like every list reader here it clears its
 * outputs first, so they are set on every path. */
#define LIST_READER(T, ctype, read)                                                                \
    static cf_status list_##T(cf_thrift_reader *r, uint8_t t, uint8_t *out, uint32_t *count)       \
    {                                                                                              \
        uint8_t et;                                                                                \
        uint32_t n;                                                                                \
        set_ptr(out, NULL);                                                                        \
        *count = 0;                                                                                \
        CF_TRY(cf_thrift_list_begin(r, t, &et, &n));                                               \
        ctype *a;                                                                                  \
        CF_TRY(cf_thrift_alloc(r, (void **)&a, n, sizeof(*a)));                                    \
        for (uint32_t i = 0; i < n; i++)                                                           \
            CF_TRY(read(r, et, &a[i]));                                                            \
        cf_thrift_list_end(r);                                                                     \
        set_ptr(out, a);                                                                           \
        *count = n;                                                                                \
        return CF_OK;                                                                              \
    }
LIST_READER(i32, int32_t, cf_thrift_read_i32)
LIST_READER(i64, int64_t, cf_thrift_read_i64)
LIST_READER(bin, cf_slice, cf_thrift_read_binary)
#undef LIST_READER

static cf_status list_bool(cf_thrift_reader *r, uint8_t t, uint8_t *out, uint32_t *count)
{
    uint8_t et;
    uint32_t n;
    set_ptr(out, NULL);
    *count = 0;
    CF_TRY(cf_thrift_list_begin(r, t, &et, &n));
    if (n && et != CF_TT_BOOL_TRUE && et != CF_TT_BOOL_FALSE)
        return cf_thrift_fail(r, "expected a list of bool, found element type %u", et);
    bool *a;
    CF_TRY(cf_thrift_alloc(r, (void **)&a, n, sizeof(*a)));
    for (uint32_t i = 0; i < n; i++)
        CF_TRY(cf_thrift_read_bool_elem(r, &a[i]));
    cf_thrift_list_end(r);
    set_ptr(out, a);
    *count = n;
    return CF_OK;
}

/* A list of structs: begin, check the element type, allocate, decode each with
 * `fn`, naming the element on failure. */
typedef cf_status (*elem_fn)(cf_thrift_reader *r, void *elem);

static cf_status list_struct(cf_thrift_reader *r, uint8_t t, size_t elem_size, elem_fn fn,
                             const char *what, uint8_t *out, uint32_t *count)
{
    uint8_t et;
    uint32_t n;
    set_ptr(out, NULL);
    *count = 0;
    CF_TRY(cf_thrift_list_begin(r, t, &et, &n));
    if (n && et != CF_TT_STRUCT)
        return cf_thrift_fail(r, "expected a list of %s structs, found element type %u", what, et);
    uint8_t *a;
    CF_TRY(cf_thrift_alloc(r, (void **)&a, n, elem_size));
    for (uint32_t i = 0; i < n; i++) {
        cf_status st = fn(r, a + (size_t)i * elem_size);
        if (st != CF_OK)
            return cf_error_prefix(r->err, st, "%s %" PRIu32 ": ", what, i);
    }
    cf_thrift_list_end(r);
    set_ptr(out, a);
    *count = n;
    return CF_OK;
}

/* ---- the field tables ------------------------------------------------------------- */

/* What a field is, and so the wire type parquet.thrift declares for it. */
enum field_kind {
    K_NONE,        /* not kept: skipped */
    K_I32,         /* an integer at `off` */
    K_I64,         /* the same, int64_t */
    K_I16,         /* an i32 on the wire, kept as int16_t: out of range is damage */
    K_BIN,         /* a cf_slice at `off` */
    K_BOOL,        /* a bool at `off` */
    K_LIST_I32,    /* a list: pointer at `off`, uint32 count at `count` */
    K_LIST_I64,    /* the same, of int64_t */
    K_LIST_BIN,    /* the same, of cf_slice */
    K_LIST_BOOL,   /* the same, of bool */
    K_LIST_STRUCT, /* the same, elements of `size` bytes decoded by `fn`, named `elem` */
    K_STRUCT,      /* a nested struct at `off`, decoded by `fn` */
    K_MARK_STRUCT, /* a struct present but not decoded: skipped, its `has` flag set */
    K_MARK_BIN,    /* the same, a binary */
    K_UNION_ID,    /* a union's empty-struct member: its id to the uint32 at `off` */
    K_COUNT
};

#define WIRE(t) (1u << (t))
#define WIRE_I32 (WIRE(CF_TT_I8) | WIRE(CF_TT_I16) | WIRE(CF_TT_I32))
#define WIRE_LIST (WIRE(CF_TT_LIST) | WIRE(CF_TT_SET))

/* The wire types each kind reads. A field of another wire type is skipped as
 * unknown, as Thrift's generated readers (and so parquet-mr, Arrow and DuckDB)
 * do; a required one is then reported missing. An integer narrower than
 * declared is read (the value is the same), a wider one is not. */
static const uint16_t wire_ok[K_COUNT] = {
    [K_I32] = WIRE_I32,
    [K_I16] = WIRE_I32,
    [K_I64] = WIRE_I32 | WIRE(CF_TT_I64),
    [K_BIN] = WIRE(CF_TT_BINARY),
    [K_BOOL] = WIRE(CF_TT_BOOL_TRUE) | WIRE(CF_TT_BOOL_FALSE),
    [K_LIST_I32] = WIRE_LIST,
    [K_LIST_I64] = WIRE_LIST,
    [K_LIST_BIN] = WIRE_LIST,
    [K_LIST_BOOL] = WIRE_LIST,
    [K_LIST_STRUCT] = WIRE_LIST,
    [K_STRUCT] = WIRE(CF_TT_STRUCT),
    [K_MARK_STRUCT] = WIRE(CF_TT_STRUCT),
    [K_MARK_BIN] = WIRE(CF_TT_BINARY),
    [K_UNION_ID] = WIRE(CF_TT_STRUCT),
};

typedef struct pq_field {
    uint8_t kind;     /* enum field_kind; K_NONE for ids not kept */
    bool req;         /* required: `name` is named when it is missing */
    uint16_t off;     /* where the value, list pointer or struct goes */
    uint16_t has;     /* 1 + the offset of the bool set once it is read; 0: none */
    uint16_t count;   /* lists: offset of the uint32 element count */
    uint16_t size;    /* K_LIST_STRUCT: bytes per element */
    elem_fn fn;       /* K_STRUCT, K_LIST_STRUCT: the decoder */
    const char *name; /* required fields and K_I16: as parquet.thrift names it */
    const char *elem; /* K_LIST_STRUCT: an element, in messages */
} pq_field;

/* Table entries; T is the decoded struct's type, defined around each table. */
#define AT(f) .off = offsetof(T, f)
#define HAS(f) .has = offsetof(T, f) + 1
#define COUNT(f) .count = offsetof(T, f)
#define REQUIRED(nm) .req = true, .name = nm
#define ELEMS(type, decode, what) .size = sizeof(type), .fn = decode, .elem = what

static inline __attribute__((always_inline)) cf_status read_field(cf_thrift_reader *r, uint8_t t,
                                                                  int16_t fid, const pq_field *f,
                                                                  uint8_t *base, const char *what)
{
    uint8_t *p = base + f->off;
    /* The integers first: most fields of the footer and of page headers. */
    if (f->kind == K_I32)
        return cf_thrift_read_i32(r, t, (int32_t *)(void *)p);
    if (f->kind == K_I64)
        return cf_thrift_read_i64(r, t, (int64_t *)(void *)p);
#define COUNT_AT ((uint32_t *)(void *)(base + f->count))
    switch (f->kind) {
    case K_I16: {
        int32_t v;
        CF_TRY(cf_thrift_read_i32(r, t, &v));
        if (v < INT16_MIN || v > INT16_MAX)
            return cf_thrift_fail(r, "%s %s %" PRId32 " out of range", what, f->name, v);
        *(int16_t *)(void *)p = (int16_t)v;
        return CF_OK;
    }
    case K_BIN: return cf_thrift_read_binary(r, t, (cf_slice *)(void *)p);
    case K_BOOL: return cf_thrift_read_bool(r, t, (bool *)p);
    case K_LIST_I32: return list_i32(r, t, p, COUNT_AT);
    case K_LIST_I64: return list_i64(r, t, p, COUNT_AT);
    case K_LIST_BIN: return list_bin(r, t, p, COUNT_AT);
    case K_LIST_BOOL: return list_bool(r, t, p, COUNT_AT);
    case K_LIST_STRUCT: return list_struct(r, t, f->size, f->fn, f->elem, p, COUNT_AT);
    case K_STRUCT: return f->fn(r, p);
    case K_UNION_ID: *(uint32_t *)(void *)p = (uint32_t)fid; return cf_thrift_skip(r, t);
    default: return cf_thrift_skip(r, t); /* K_MARK_* */
    }
#undef COUNT_AT
}

/* A struct: its name in messages, its field table and the ids of its
 * required fields (bit i: id i), which are the entries marked REQUIRED: the
 * mask spares every decode a walk of the table (Debug builds check it). */
typedef struct pq_struct {
    const char *what;
    const pq_field *f;
    size_t n;
    uint32_t required;
} pq_struct;

#define ID(i) ((uint32_t)1 << (i))
#define STRUCT(what, table, required)                                                              \
    {                                                                                              \
        what, table, sizeof(table) / sizeof(table[0]), required                                    \
    }

/* Decode the struct that starts at r into obj as `s` describes it. *seen_out
 * (if not NULL) gets the ids read. A field's `has` flag is set only after its
 * value was read, so a damaged field is never marked present. Inlined into
 * each struct's decoder, where `s` is a constant: as fast as a hand-written
 * switch per struct. */
static inline __attribute__((always_inline)) cf_status
decode_struct(cf_thrift_reader *r, void *obj, const pq_struct *s, uint64_t *seen_out)
{
#ifndef NDEBUG
    for (size_t id = 0; id < s->n; id++)
        assert(s->f[id].req == (id < 32 && (s->required >> id & 1)));
#endif
    uint8_t *base = obj;
    uint64_t seen = 0;
    int16_t fid;
    uint8_t t;
    CF_TRY(cf_thrift_struct_begin(r));
    for (;;) {
        CF_TRY(cf_thrift_field_next(r, &fid, &t));
        if (t == CF_TT_STOP)
            break;
        /* Negative ids wrap past n: they, 0 and ids past the table are K_NONE. */
        const pq_field *d = &s->f[(uint16_t)fid < s->n ? fid : 0];
        if (!(wire_ok[d->kind] >> t & 1)) {
            CF_TRY(cf_thrift_skip(r, t));
            continue;
        }
        CF_TRY(read_field(r, t, fid, d, base, s->what));
        seen |= (uint64_t)1 << fid;
        if (d->has)
            *(bool *)(base + d->has - 1) = true;
    }
    cf_thrift_struct_end(r);
    uint64_t missing = s->required & ~seen;
    if (missing) {
        int id = __builtin_ctzll(missing);
        return cf_thrift_fail(r, "%s: required field %s (%d) missing", s->what, s->f[id].name, id);
    }
    if (seen_out)
        *seen_out = seen;
    return CF_OK;
}

/* name_decode, a list element's or nested struct's decoder, from the table
 * name_fields: `what` names the struct in messages, `required` its required ids. */
#define DECODER(name, what, required)                                                              \
    static const pq_struct name##_struct = STRUCT(what, name##_fields, required);                  \
    static cf_status name##_decode(cf_thrift_reader *r, void *out)                                 \
    {                                                                                              \
        return decode_struct(r, out, &name##_struct, NULL);                                        \
    }

/* A union whose members are structs: *id gets the last member's id, 0 for none. */
static cf_status union_member(cf_thrift_reader *r, void *elem)
{
    uint32_t *id = elem;
    int16_t fid;
    uint8_t t;
    *id = 0;
    CF_TRY(cf_thrift_struct_begin(r));
    for (;;) {
        CF_TRY(cf_thrift_field_next(r, &fid, &t));
        if (t == CF_TT_STOP)
            break;
        if (t == CF_TT_STRUCT && fid > 0)
            *id = (uint32_t)fid;
        CF_TRY(cf_thrift_skip(r, t));
    }
    cf_thrift_struct_end(r);
    return CF_OK;
}

/* ---- Statistics, KeyValue, LogicalType ---------------------------------------------- */

#define T cf_parquet_stats
static const pq_field stats_fields[] = {
    [1] = {K_BIN, AT(max), HAS(has_max)},
    [2] = {K_BIN, AT(min), HAS(has_min)},
    [3] = {K_I64, AT(null_count), HAS(has_null_count)},
    [4] = {K_I64, AT(distinct_count), HAS(has_distinct_count)},
    [5] = {K_BIN, AT(max_value), HAS(has_max_value)},
    [6] = {K_BIN, AT(min_value), HAS(has_min_value)},
    [7] = {K_BOOL, AT(is_max_value_exact), HAS(has_is_max_value_exact)},
    [8] = {K_BOOL, AT(is_min_value_exact), HAS(has_is_min_value_exact)},
    [9] = {K_I64, AT(nan_count), HAS(has_nan_count)},
};
static const pq_struct stats_struct = STRUCT("Statistics", stats_fields, 0);
#undef T

static cf_status stats_decode(cf_thrift_reader *r, void *s)
{
    memset(s, 0, sizeof(cf_parquet_stats));
    return decode_struct(r, s, &stats_struct, NULL);
}

#define T cf_parquet_kv
static const pq_field kv_fields[] = {
    [1] = {K_BIN, AT(key), REQUIRED("key")},
    [2] = {K_BIN, AT(value), HAS(has_value)},
};
#undef T
DECODER(kv, "KeyValue", ID(1))

/* TimeUnit: a union of empty structs; the member id is the unit. */
static const pq_field time_unit_fields[] = {
    [1] = {.kind = K_UNION_ID}, [2] = {.kind = K_UNION_ID}, [3] = {.kind = K_UNION_ID}};
static const pq_struct time_unit_struct = STRUCT("TimeUnit", time_unit_fields, 0);

static cf_status time_unit_decode(cf_thrift_reader *r, void *unit)
{
    *(uint32_t *)unit = 0;
    return decode_struct(r, unit, &time_unit_struct, NULL);
}

#define T cf_parquet_logical
/* TimeType and TimestampType. */
static const pq_field time_fields[] = {
    [1] = {K_BOOL, AT(utc), REQUIRED("isAdjustedToUTC")},
    [2] = {K_STRUCT, AT(unit), REQUIRED("unit"), .fn = time_unit_decode},
};
static const pq_struct time_struct = STRUCT("TimeType", time_fields, ID(1) | ID(2));
static const pq_struct timestamp_struct = STRUCT("TimestampType", time_fields, ID(1) | ID(2));
static const pq_field int_type_fields[] = {
    [1] = {K_I32, AT(bit_width), REQUIRED("bitWidth")},
    [2] = {K_BOOL, AT(is_signed), REQUIRED("isSigned")},
};
static const pq_struct int_type_struct = STRUCT("IntType", int_type_fields, ID(1) | ID(2));
static const pq_field decimal_type_fields[] = {
    [1] = {K_I32, AT(scale), REQUIRED("scale")},
    [2] = {K_I32, AT(precision), REQUIRED("precision")},
};
static const pq_struct decimal_type_struct =
    STRUCT("DecimalType", decimal_type_fields, ID(1) | ID(2));
/* GeometryType (1 crs) and GeographyType (1 crs, 2 algorithm). */
static const pq_field geo_type_fields[] = {[1] = {K_BIN, AT(crs), HAS(has_crs)}};
static const pq_struct geo_type_struct = STRUCT("GeometryType", geo_type_fields, 0);
#undef T

/* LogicalType union: exactly one member, a struct. A member id this reader
 * does not know leaves the kind UNSUPPORTED (parquet.thrift: readers treat an
 * unknown logical type as absent). */
static cf_status logical_decode(cf_thrift_reader *r, void *out)
{
    cf_parquet_logical *lt = out;
    memset(lt, 0, sizeof(*lt));
    lt->kind = CF_PARQUET_LT_UNSUPPORTED;
    int members = 0;
    int16_t fid;
    uint8_t t;
    CF_TRY(cf_thrift_struct_begin(r));
    for (;;) {
        CF_TRY(cf_thrift_field_next(r, &fid, &t));
        if (t == CF_TT_STOP)
            break;
        if (t != CF_TT_STRUCT) {
            CF_TRY(cf_thrift_skip(r, t));
            continue;
        }
        members++;
        switch (fid) {
        case CF_PARQUET_LT_DECIMAL:
            lt->kind = (uint32_t)fid;
            CF_TRY(decode_struct(r, lt, &decimal_type_struct, NULL));
            break;
        case CF_PARQUET_LT_TIME:
        case CF_PARQUET_LT_TIMESTAMP:
            lt->kind = (uint32_t)fid;
            CF_TRY(decode_struct(
                r, lt, fid == CF_PARQUET_LT_TIME ? &time_struct : &timestamp_struct, NULL));
            if (lt->unit == 0)
                lt->kind = CF_PARQUET_LT_UNSUPPORTED; /* a unit this reader does not know */
            break;
        case CF_PARQUET_LT_INTEGER:
            lt->kind = (uint32_t)fid;
            CF_TRY(decode_struct(r, lt, &int_type_struct, NULL));
            break;
        case CF_PARQUET_LT_GEOMETRY:
        case CF_PARQUET_LT_GEOGRAPHY:
            lt->kind = (uint32_t)fid;
            CF_TRY(decode_struct(r, lt, &geo_type_struct, NULL));
            break;
        case CF_PARQUET_LT_STRING:
        case CF_PARQUET_LT_MAP:
        case CF_PARQUET_LT_LIST:
        case CF_PARQUET_LT_ENUM:
        case CF_PARQUET_LT_DATE:
        case CF_PARQUET_LT_UNKNOWN:
        case CF_PARQUET_LT_JSON:
        case CF_PARQUET_LT_BSON:
        case CF_PARQUET_LT_UUID:
        case CF_PARQUET_LT_FLOAT16:
        case CF_PARQUET_LT_VARIANT:
            lt->kind = (uint32_t)fid;
            CF_TRY(cf_thrift_skip(r, t));
            break;
        default: CF_TRY(cf_thrift_skip(r, t));
        }
    }
    cf_thrift_struct_end(r);
    if (members != 1)
        lt->kind = CF_PARQUET_LT_UNSUPPORTED;
    return CF_OK;
}

/* ---- SchemaElement ------------------------------------------------------------------ */

#define T cf_parquet_schema_element
static const pq_field schema_element_fields[] = {
    [1] = {K_I32, AT(type), HAS(has_type)},
    [2] = {K_I32, AT(type_length), HAS(has_type_length)},
    [3] = {K_I32, AT(repetition), HAS(has_repetition)},
    [4] = {K_BIN, AT(name), REQUIRED("name")},
    [5] = {K_I32, AT(num_children), HAS(has_num_children)},
    [6] = {K_I32, AT(converted_type), HAS(has_converted_type)},
    [7] = {K_I32, AT(scale), HAS(has_scale)},
    [8] = {K_I32, AT(precision), HAS(has_precision)},
    [9] = {K_I32, AT(field_id), HAS(has_field_id)},
    [10] = {K_STRUCT, AT(logical), .fn = logical_decode},
};
#undef T
DECODER(schema_element, "SchemaElement", ID(4))

/* ---- ColumnMetaData, ColumnChunk, RowGroup ----------------------------------------- */

#define T cf_parquet_encoding_stats
static const pq_field encoding_stats_fields[] = {
    [1] = {K_I32, AT(page_type), REQUIRED("page_type")},
    [2] = {K_I32, AT(encoding), REQUIRED("encoding")},
    [3] = {K_I32, AT(count), REQUIRED("count")},
};
#undef T
DECODER(encoding_stats, "PageEncodingStats", ID(1) | ID(2) | ID(3))

/* Not kept: 16 size_statistics, 17 geospatial_statistics. */
#define T cf_parquet_column_meta
static const pq_field column_meta_fields[] = {
    [1] = {K_I32, AT(type), REQUIRED("type")},
    [2] = {K_LIST_I32, AT(encodings), COUNT(encoding_count), REQUIRED("encodings")},
    [3] = {K_LIST_BIN, AT(path), COUNT(path_len), REQUIRED("path_in_schema")},
    [4] = {K_I32, AT(codec), REQUIRED("codec")},
    [5] = {K_I64, AT(num_values), REQUIRED("num_values")},
    [6] = {K_I64, AT(total_uncompressed_size), REQUIRED("total_uncompressed_size")},
    [7] = {K_I64, AT(total_compressed_size), REQUIRED("total_compressed_size")},
    [8] = {K_LIST_STRUCT, AT(kv), COUNT(kv_count),
           ELEMS(cf_parquet_kv, kv_decode, "key_value_metadata")},
    [9] = {K_I64, AT(data_page_offset), REQUIRED("data_page_offset")},
    [10] = {K_I64, AT(index_page_offset), HAS(has_index_page_offset)},
    [11] = {K_I64, AT(dictionary_page_offset), HAS(has_dictionary_page_offset)},
    [12] = {K_STRUCT, AT(statistics), HAS(has_statistics), .fn = stats_decode},
    [13] = {K_LIST_STRUCT, AT(encoding_stats), COUNT(encoding_stats_count),
            ELEMS(cf_parquet_encoding_stats, encoding_stats_decode, "encoding_stats")},
    [14] = {K_I64, AT(bloom_filter_offset), HAS(has_bloom_filter_offset)},
    [15] = {K_I32, AT(bloom_filter_length), HAS(has_bloom_filter_length)},
};
#undef T
DECODER(column_meta, "ColumnMetaData",
        ID(1) | ID(2) | ID(3) | ID(4) | ID(5) | ID(6) | ID(7) | ID(9))

/* file_offset (2) is required by the spec but several writers leave it out or
 * zero; nothing depends on it, so its absence is not damage. 8 crypto_metadata
 * and 9 encrypted_column_metadata only mark the chunk encrypted. */
#define T cf_parquet_column_chunk
static const pq_field column_chunk_fields[] = {
    [1] = {K_BIN, AT(file_path), HAS(has_file_path)},
    [2] = {K_I64, AT(file_offset)},
    [3] = {K_STRUCT, AT(meta), HAS(has_meta_data), .fn = column_meta_decode},
    [4] = {K_I64, AT(offset_index_offset)},
    [5] = {K_I32, AT(offset_index_length)},
    [6] = {K_I64, AT(column_index_offset)},
    [7] = {K_I32, AT(column_index_length)},
    [8] = {K_MARK_STRUCT, HAS(encrypted)},
    [9] = {K_MARK_BIN, HAS(encrypted)},
};
static const pq_struct column_chunk_struct = STRUCT("ColumnChunk", column_chunk_fields, 0);
#undef T

#define BOTH(seen, a, b) (((seen) >> (a)&1) && ((seen) >> (b)&1))

static cf_status column_chunk_decode(cf_thrift_reader *r, void *elem)
{
    cf_parquet_column_chunk *c = elem;
    uint64_t seen;
    CF_TRY(decode_struct(r, c, &column_chunk_struct, &seen));
    c->has_offset_index = BOTH(seen, 4, 5);
    c->has_column_index = BOTH(seen, 6, 7);
    return CF_OK;
}

#define T cf_parquet_sorting_column
static const pq_field sorting_column_fields[] = {
    [1] = {K_I32, AT(column_idx), REQUIRED("column_idx")},
    [2] = {K_BOOL, AT(descending), REQUIRED("descending")},
    [3] = {K_BOOL, AT(nulls_first), REQUIRED("nulls_first")},
};
#undef T
DECODER(sorting_column, "SortingColumn", ID(1) | ID(2) | ID(3))

#define T cf_parquet_row_group
static const pq_field row_group_fields[] = {
    [1] = {K_LIST_STRUCT, AT(columns), COUNT(column_count), REQUIRED("columns"),
           ELEMS(cf_parquet_column_chunk, column_chunk_decode, "column")},
    [2] = {K_I64, AT(total_byte_size), REQUIRED("total_byte_size")},
    [3] = {K_I64, AT(num_rows), REQUIRED("num_rows")},
    [4] = {K_LIST_STRUCT, AT(sorting_columns), COUNT(sorting_column_count),
           ELEMS(cf_parquet_sorting_column, sorting_column_decode, "sorting column")},
    [5] = {K_I64, AT(file_offset), HAS(has_file_offset)},
    [6] = {K_I64, AT(total_compressed_size), HAS(has_total_compressed_size)},
    [7] = {K_I16, AT(ordinal), HAS(has_ordinal), .name = "ordinal"},
};
#undef T
DECODER(row_group, "RowGroup", ID(1) | ID(2) | ID(3))

/* 7 column_orders: ColumnOrder unions, each kept as its member id (1 =
 * TYPE_ORDER); 8 encryption_algorithm only marks the file encrypted. */
#define T cf_parquet_file_meta
static const pq_field file_meta_fields[] = {
    [1] = {K_I32, AT(version), REQUIRED("version")},
    [2] = {K_LIST_STRUCT, AT(schema), COUNT(schema_count), REQUIRED("schema"),
           ELEMS(cf_parquet_schema_element, schema_element_decode, "schema element")},
    [3] = {K_I64, AT(num_rows), REQUIRED("num_rows")},
    [4] = {K_LIST_STRUCT, AT(row_groups), COUNT(row_group_count), REQUIRED("row_groups"),
           ELEMS(cf_parquet_row_group, row_group_decode, "row group")},
    [5] = {K_LIST_STRUCT, AT(kv), COUNT(kv_count),
           ELEMS(cf_parquet_kv, kv_decode, "key_value_metadata")},
    [6] = {K_BIN, AT(created_by), HAS(has_created_by)},
    [7] = {K_LIST_STRUCT, AT(column_orders), COUNT(column_order_count), HAS(has_column_orders),
           ELEMS(uint32_t, union_member, "column order")},
    [8] = {K_MARK_STRUCT, HAS(encrypted)},
};
static const pq_struct file_meta_struct =
    STRUCT("FileMetaData", file_meta_fields, ID(1) | ID(2) | ID(3) | ID(4));
#undef T

cf_status cf_pq_file_meta_decode(cf_thrift_reader *r, cf_parquet_file_meta *m)
{
    memset(m, 0, sizeof(*m));
    return decode_struct(r, m, &file_meta_struct, NULL);
}

/* ---- PageHeader ----------------------------------------------------------------------- */

#define T cf_pq_data_page_header
static const pq_field data_page_fields[] = {
    [1] = {K_I32, AT(num_values), REQUIRED("num_values")},
    [2] = {K_I32, AT(encoding), REQUIRED("encoding")},
    [3] = {K_I32, AT(definition_level_encoding), REQUIRED("definition_level_encoding")},
    [4] = {K_I32, AT(repetition_level_encoding), REQUIRED("repetition_level_encoding")},
    [5] = {K_STRUCT, AT(statistics), HAS(has_statistics), .fn = stats_decode},
};
static const pq_struct data_page_struct =
    STRUCT("DataPageHeader", data_page_fields, ID(1) | ID(2) | ID(3) | ID(4));
#undef T

/* A page header's part whose num_values (at nv) must not be negative. */
static inline __attribute__((always_inline)) cf_status
decode_counted(cf_thrift_reader *r, void *h, const pq_struct *s, const int32_t *nv)
{
    CF_TRY(decode_struct(r, h, s, NULL));
    if (*nv < 0)
        return cf_thrift_fail(r, "%s num_values %" PRId32 " < 0", s->what, *nv);
    return CF_OK;
}

static cf_status data_page_decode(cf_thrift_reader *r, void *out)
{
    cf_pq_data_page_header *h = out;
    return decode_counted(r, h, &data_page_struct, &h->num_values);
}

#define T cf_pq_dictionary_page_header
static const pq_field dict_page_fields[] = {
    [1] = {K_I32, AT(num_values), REQUIRED("num_values")},
    [2] = {K_I32, AT(encoding), REQUIRED("encoding")},
    [3] = {K_BOOL, AT(is_sorted), HAS(has_is_sorted)},
};
static const pq_struct dict_page_struct =
    STRUCT("DictionaryPageHeader", dict_page_fields, ID(1) | ID(2));
#undef T

static cf_status dict_page_decode(cf_thrift_reader *r, void *out)
{
    cf_pq_dictionary_page_header *h = out;
    return decode_counted(r, h, &dict_page_struct, &h->num_values);
}

#define T cf_pq_data_page_header_v2
static const pq_field data_page_v2_fields[] = {
    [1] = {K_I32, AT(num_values), REQUIRED("num_values")},
    [2] = {K_I32, AT(num_nulls), REQUIRED("num_nulls")},
    [3] = {K_I32, AT(num_rows), REQUIRED("num_rows")},
    [4] = {K_I32, AT(encoding), REQUIRED("encoding")},
    [5] = {K_I32, AT(definition_levels_byte_length), REQUIRED("definition_levels_byte_length")},
    [6] = {K_I32, AT(repetition_levels_byte_length), REQUIRED("repetition_levels_byte_length")},
    [7] = {K_BOOL, AT(is_compressed)},
    [8] = {K_STRUCT, AT(statistics), HAS(has_statistics), .fn = stats_decode},
};
static const pq_struct data_page_v2_struct =
    STRUCT("DataPageHeaderV2", data_page_v2_fields, ID(1) | ID(2) | ID(3) | ID(4) | ID(5) | ID(6));
#undef T

static cf_status data_page_v2_decode(cf_thrift_reader *r, void *out)
{
    cf_pq_data_page_header_v2 *h = out;
    h->is_compressed = true;
    CF_TRY(decode_struct(r, h, &data_page_v2_struct, NULL));
    if (h->num_values < 0 || h->num_nulls < 0 || h->num_rows < 0 || h->num_nulls > h->num_values ||
        h->definition_levels_byte_length < 0 || h->repetition_levels_byte_length < 0)
        return cf_thrift_fail(r,
                              "DataPageHeaderV2 counts or lengths out of range (values %" PRId32
                              ", nulls %" PRId32 ", rows %" PRId32 ", levels %" PRId32 "+%" PRId32
                              ")",
                              h->num_values, h->num_nulls, h->num_rows,
                              h->repetition_levels_byte_length, h->definition_levels_byte_length);
    return CF_OK;
}

/* The crc (4) is an i32 on the wire kept as its bits; 6 index_page_header
 * only marks the page as one. */
#define T cf_pq_page_header
static const pq_field page_header_fields[] = {
    [1] = {K_I32, AT(type), REQUIRED("type")},
    [2] = {K_I32, AT(uncompressed_page_size), REQUIRED("uncompressed_page_size")},
    [3] = {K_I32, AT(compressed_page_size), REQUIRED("compressed_page_size")},
    [4] = {K_I32, AT(crc), HAS(has_crc)},
    [5] = {K_STRUCT, AT(data_page), HAS(has_data_page), .fn = data_page_decode},
    [6] = {K_MARK_STRUCT, HAS(has_index_page)},
    [7] = {K_STRUCT, AT(dictionary_page), HAS(has_dictionary_page), .fn = dict_page_decode},
    [8] = {K_STRUCT, AT(data_page_v2), HAS(has_data_page_v2), .fn = data_page_v2_decode},
};
static const pq_struct page_header_struct =
    STRUCT("PageHeader", page_header_fields, ID(1) | ID(2) | ID(3));
#undef T

/* A header struct (no lists: it never allocates) from the start of data, at
 * file offset off, through the reader r, zeroed first: r stays for the
 * caller's own checks and the header's length. Inlined, as decode_struct. */
static inline __attribute__((always_inline)) cf_status
decode_header(cf_thrift_reader *r, void *out, size_t size, const pq_struct *s, const uint8_t *data,
              size_t len, uint64_t off, const char *what, cf_error *err)
{
    memset(out, 0, size);
    cf_thrift_reader_init(r, data, len, off, what, err);
    r->alloc_limit = 0;
    return decode_struct(r, out, s, NULL);
}

cf_status cf_pq_page_header_decode(cf_pq_page_header *out, size_t *header_len, const uint8_t *data,
                                   size_t len, uint64_t off, cf_error *err)
{
    cf_thrift_reader rd;
    cf_thrift_reader *r = &rd;
    CF_TRY(decode_header(r, out, sizeof(*out), &page_header_struct, data, len, off, "page header",
                         err));
    if (out->uncompressed_page_size < 0 || out->compressed_page_size < 0)
        return cf_thrift_fail(r, "page sizes %" PRId32 "/%" PRId32 " < 0",
                              out->compressed_page_size, out->uncompressed_page_size);
    bool ok = true;
    switch (out->type) {
    case CF_PARQUET_DATA_PAGE: ok = out->has_data_page; break;
    case CF_PARQUET_DICTIONARY_PAGE: ok = out->has_dictionary_page; break;
    case CF_PARQUET_DATA_PAGE_V2: ok = out->has_data_page_v2; break;
    default: break; /* index pages and unknown types carry nothing we read */
    }
    if (!ok)
        return cf_thrift_fail(r, "%s page without its header",
                              cf_parquet_page_type_name(out->type));
    *header_len = cf_thrift_pos(r);
    return CF_OK;
}

/* ---- page index (PageIndex.md) ---------------------------------------------------------- */

#define T cf_pq_page_location
static const pq_field page_location_fields[] = {
    [1] = {K_I64, AT(offset), REQUIRED("offset")},
    [2] = {K_I32, AT(compressed_page_size), REQUIRED("compressed_page_size")},
    [3] = {K_I64, AT(first_row_index), REQUIRED("first_row_index")},
};
#undef T
DECODER(page_location, "PageLocation", ID(1) | ID(2) | ID(3))

#define T cf_pq_offset_index
static const pq_field offset_index_fields[] = {
    [1] = {K_LIST_STRUCT, AT(pages), COUNT(page_count), REQUIRED("page_locations"),
           ELEMS(cf_pq_page_location, page_location_decode, "page")},
    [2] = {K_LIST_I64, AT(unencoded_byte_array_data_bytes), COUNT(unencoded_count)},
};
static const pq_struct offset_index_struct = STRUCT("OffsetIndex", offset_index_fields, ID(1));
#undef T

cf_status cf_pq_offset_index_decode(cf_thrift_reader *r, cf_pq_offset_index *o)
{
    memset(o, 0, sizeof(*o));
    CF_TRY(decode_struct(r, o, &offset_index_struct, NULL));
    if (o->unencoded_count && o->unencoded_count != o->page_count)
        return cf_thrift_fail(r, "OffsetIndex: %" PRIu32 " pages but %" PRIu32 " byte counts",
                              o->page_count, o->unencoded_count);
    return CF_OK;
}

/* A ColumnIndex with the lengths of its lists, which must agree. */
typedef struct column_index_wire {
    cf_pq_column_index c;
    uint32_t n_null, n_min, n_max, n_counts;
} column_index_wire;

#define T column_index_wire
static const pq_field column_index_fields[] = {
    [1] = {K_LIST_BOOL, AT(c.null_pages), COUNT(n_null), REQUIRED("null_pages")},
    [2] = {K_LIST_BIN, AT(c.min_values), COUNT(n_min), REQUIRED("min_values")},
    [3] = {K_LIST_BIN, AT(c.max_values), COUNT(n_max), REQUIRED("max_values")},
    [4] = {K_I32, AT(c.boundary_order), REQUIRED("boundary_order")},
    [5] = {K_LIST_I64, AT(c.null_counts), COUNT(n_counts), HAS(c.has_null_counts)},
    [6] = {K_LIST_I64, AT(c.rep_histograms), COUNT(c.rep_histogram_count)},
    [7] = {K_LIST_I64, AT(c.def_histograms), COUNT(c.def_histogram_count)},
};
static const pq_struct column_index_struct =
    STRUCT("ColumnIndex", column_index_fields, ID(1) | ID(2) | ID(3) | ID(4));
#undef T

cf_status cf_pq_column_index_decode(cf_thrift_reader *r, cf_pq_column_index *c)
{
    column_index_wire w;
    memset(&w, 0, sizeof(w));
    memset(c, 0, sizeof(*c));
    CF_TRY(decode_struct(r, &w, &column_index_struct, NULL));
    *c = w.c;
    if (w.n_min != w.n_null || w.n_max != w.n_null ||
        (c->has_null_counts && w.n_counts != w.n_null))
        return cf_thrift_fail(r,
                              "ColumnIndex lists disagree: %" PRIu32 " null_pages, %" PRIu32
                              " min, %" PRIu32 " max, %" PRIu32 " null counts",
                              w.n_null, w.n_min, w.n_max, w.n_counts);
    c->page_count = w.n_null;
    return CF_OK;
}

/* ---- BloomFilterHeader (BloomFilter.md) --------------------------------------------- */

/* 2 algorithm, 3 hash, 4 compression: unions, each kept as its member id. */
#define T cf_pq_bloom_header
static const pq_field bloom_header_fields[] = {
    [1] = {K_I32, AT(num_bytes), REQUIRED("numBytes")},
    [2] = {K_STRUCT, AT(algorithm), REQUIRED("algorithm"), .fn = union_member},
    [3] = {K_STRUCT, AT(hash), REQUIRED("hash"), .fn = union_member},
    [4] = {K_STRUCT, AT(compression), REQUIRED("compression"), .fn = union_member},
};
static const pq_struct bloom_header_struct =
    STRUCT("BloomFilterHeader", bloom_header_fields, ID(1) | ID(2) | ID(3) | ID(4));
#undef T

cf_status cf_pq_bloom_header_decode(cf_pq_bloom_header *out, size_t *header_len,
                                    const uint8_t *data, size_t len, uint64_t off, cf_error *err)
{
    cf_thrift_reader rd;
    cf_thrift_reader *r = &rd;
    CF_TRY(decode_header(r, out, sizeof(*out), &bloom_header_struct, data, len, off,
                         "bloom filter header", err));
    if (out->num_bytes < 0)
        return cf_thrift_fail(r, "bloom filter of %" PRId32 " bytes", out->num_bytes);
    *header_len = cf_thrift_pos(r);
    return CF_OK;
}

/* Parquet's Thrift structs from compact-protocol bytes (parquet.thrift of
 * apache/parquet-format; field ids are cited in each decoder's switch).
 *
 * Each decoder walks the fields of one struct: known ids are read when their wire
 * type is the declared one, unknown ids and fields of another wire type are
 * skipped whatever their type (newer writers add fields; Thrift's own readers
 * skip a mistyped field as unknown), and a bitmask of the ids seen checks the
 * required ones at the end.
 * Lists are allocated from the reader's arena after their count has been
 * checked against the bytes left, so the memory is bounded by the input. */
#include "metadata.h"

#include <string.h>

#include "util/error.h"

/* ---- helpers ---------------------------------------------------------------------- */

#define SEEN(id) (seen |= (uint64_t)1 << (id))

/* Fail naming the first required field (bit set in `req`) that was not seen. */
static cf_status need(cf_thrift_reader *r, uint64_t seen, uint64_t req, const char *what,
                      const char *const *names)
{
    uint64_t missing = req & ~seen;
    if (!missing)
        return CF_OK;
    int id = __builtin_ctzll(missing);
    return cf_thrift_fail(r, "%s: required field %s (%d) missing", what, names[id], id);
}

/* Field readers: opt_T reads an optional field and sets its has_ flag; req_T
 * reads a required one and records its id for need(). Both only after the
 * value was read, so a damaged field is never marked present. */
#define FIELD_READERS(T, ctype, read)                                                              \
    static cf_status opt_##T(cf_thrift_reader *r, uint8_t t, ctype *v, bool *has)                  \
    {                                                                                              \
        CF_TRY(read(r, t, v));                                                                     \
        *has = true;                                                                               \
        return CF_OK;                                                                              \
    }                                                                                              \
    static cf_status req_##T(cf_thrift_reader *r, uint8_t t, ctype *v, uint64_t *seen, int id)     \
    {                                                                                              \
        CF_TRY(read(r, t, v));                                                                     \
        *seen |= (uint64_t)1 << id;                                                                \
        return CF_OK;                                                                              \
    }
FIELD_READERS(i32, int32_t, cf_thrift_read_i32)
FIELD_READERS(i64, int64_t, cf_thrift_read_i64)
FIELD_READERS(bin, cf_slice, cf_thrift_read_binary)
FIELD_READERS(bool, bool, cf_thrift_read_bool)
#undef FIELD_READERS

/* list_T: a list of T into memory from cf_thrift_alloc. Like every list reader
 * here it clears its outputs first, so they are set on every path. */
#define LIST_READER(T, ctype, read)                                                                \
    static cf_status list_##T(cf_thrift_reader *r, uint8_t t, ctype **out, uint32_t *count)        \
    {                                                                                              \
        uint8_t et;                                                                                \
        uint32_t n;                                                                                \
        *out = NULL;                                                                               \
        *count = 0;                                                                                \
        CF_TRY(cf_thrift_list_begin(r, t, &et, &n));                                               \
        ctype *a;                                                                                  \
        CF_TRY(cf_thrift_alloc(r, (void **)&a, n, sizeof(*a)));                                    \
        for (uint32_t i = 0; i < n; i++)                                                           \
            CF_TRY(read(r, et, &a[i]));                                                            \
        cf_thrift_list_end(r);                                                                     \
        *out = a;                                                                                  \
        *count = n;                                                                                \
        return CF_OK;                                                                              \
    }
LIST_READER(i32, int32_t, cf_thrift_read_i32)
LIST_READER(i64, int64_t, cf_thrift_read_i64)
LIST_READER(bin, cf_slice, cf_thrift_read_binary)
#undef LIST_READER

static cf_status list_bool(cf_thrift_reader *r, uint8_t t, bool **out, uint32_t *count)
{
    uint8_t et;
    uint32_t n;
    *out = NULL;
    *count = 0;
    CF_TRY(cf_thrift_list_begin(r, t, &et, &n));
    if (n && et != CF_TT_BOOL_TRUE && et != CF_TT_BOOL_FALSE)
        return cf_thrift_fail(r, "expected a list of bool, found element type %u", et);
    bool *a;
    CF_TRY(cf_thrift_alloc(r, (void **)&a, n, sizeof(*a)));
    for (uint32_t i = 0; i < n; i++)
        CF_TRY(cf_thrift_read_bool_elem(r, &a[i]));
    cf_thrift_list_end(r);
    *out = a;
    *count = n;
    return CF_OK;
}

/* A list of structs: begin, check the element type, allocate, decode each with
 * `fn`, naming the element on failure. */
typedef cf_status (*elem_fn)(cf_thrift_reader *r, void *elem);

static cf_status list_struct(cf_thrift_reader *r, uint8_t t, size_t elem_size, elem_fn fn,
                             const char *what, void **out, uint32_t *count)
{
    uint8_t et;
    uint32_t n;
    *out = NULL;
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
    *out = a;
    *count = n;
    return CF_OK;
}

/* Declared field types. Each decoder lists the wire type parquet.thrift gives
 * each field id it reads (0: an id it does not read). A field whose wire type
 * differs is skipped as unknown, as Thrift's generated readers (and so
 * parquet-mr, Arrow and DuckDB) do; a required one is then reported missing.
 * An integer narrower than declared is read (the value is the same), a wider
 * one is not: DECL_I32 takes i8/i16/i32, DECL_I64 any integer. */
enum { DECL_BOOL = 1, DECL_I32, DECL_I64, DECL_BIN, DECL_LIST, DECL_STRUCT };

static bool declared(const uint8_t *decl, size_t n, int16_t fid, uint8_t t)
{
    if (fid < 0 || (size_t)fid >= n)
        return true; /* unknown id: the switch's default skips it */
    switch (decl[fid]) {
    case DECL_BOOL: return t == CF_TT_BOOL_TRUE || t == CF_TT_BOOL_FALSE;
    case DECL_I32: return t == CF_TT_I8 || t == CF_TT_I16 || t == CF_TT_I32;
    case DECL_I64: return t == CF_TT_I8 || t == CF_TT_I16 || t == CF_TT_I32 || t == CF_TT_I64;
    case DECL_BIN: return t == CF_TT_BINARY;
    case DECL_LIST: return t == CF_TT_LIST || t == CF_TT_SET;
    case DECL_STRUCT: return t == CF_TT_STRUCT;
    default: return true;
    }
}

/* For unions and structs every member of which is read with its type checked. */
static const uint8_t any_decl[1] = {0};

/* Every decoder's field loop: begin the struct, then for each field header
 * until STOP skip a field of another wire type than `decl` declares, else run
 * the switch that follows. */
#define FIELDS(r, decl)                                                                            \
    CF_TRY(cf_thrift_struct_begin(r));                                                             \
    for (;;) {                                                                                     \
        CF_TRY(cf_thrift_field_next(r, &fid, &t));                                                 \
        if (t == CF_TT_STOP)                                                                       \
            break;                                                                                 \
        if (!declared(decl, sizeof(decl), fid, t)) {                                               \
            CF_TRY(cf_thrift_skip(r, t));                                                          \
            continue;                                                                              \
        }                                                                                          \
        switch (fid)
#define END_FIELDS(r)                                                                              \
    }                                                                                              \
    cf_thrift_struct_end(r)

/* ---- Statistics, KeyValue, LogicalType ---------------------------------------------- */

static cf_status stats_decode(cf_thrift_reader *r, cf_parquet_stats *s)
{
    memset(s, 0, sizeof(*s));
    int16_t fid;
    uint8_t t;
    static const uint8_t decl[] = {
        [1] = DECL_BIN, [2] = DECL_BIN,  [3] = DECL_I64,  [4] = DECL_I64, [5] = DECL_BIN,
        [6] = DECL_BIN, [7] = DECL_BOOL, [8] = DECL_BOOL, [9] = DECL_I64};
    FIELDS(r, decl) {
    case 1: CF_TRY(opt_bin(r, t, &s->max, &s->has_max)); break;
    case 2: CF_TRY(opt_bin(r, t, &s->min, &s->has_min)); break;
    case 3: CF_TRY(opt_i64(r, t, &s->null_count, &s->has_null_count)); break;
    case 4: CF_TRY(opt_i64(r, t, &s->distinct_count, &s->has_distinct_count)); break;
    case 5: CF_TRY(opt_bin(r, t, &s->max_value, &s->has_max_value)); break;
    case 6: CF_TRY(opt_bin(r, t, &s->min_value, &s->has_min_value)); break;
    case 7: CF_TRY(opt_bool(r, t, &s->is_max_value_exact, &s->has_is_max_value_exact)); break;
    case 8: CF_TRY(opt_bool(r, t, &s->is_min_value_exact, &s->has_is_min_value_exact)); break;
    case 9: CF_TRY(opt_i64(r, t, &s->nan_count, &s->has_nan_count)); break;
    default: CF_TRY(cf_thrift_skip(r, t));
    }
    END_FIELDS(r);
    return CF_OK;
}

static cf_status kv_decode(cf_thrift_reader *r, void *elem)
{
    cf_parquet_kv *kv = elem;
    static const char *const names[] = {"", "key"};
    uint64_t seen = 0;
    int16_t fid;
    uint8_t t;
    static const uint8_t decl[] = {[1] = DECL_BIN, [2] = DECL_BIN};
    FIELDS(r, decl) {
    case 1: CF_TRY(req_bin(r, t, &kv->key, &seen, 1)); break;
    case 2: CF_TRY(opt_bin(r, t, &kv->value, &kv->has_value)); break;
    default: CF_TRY(cf_thrift_skip(r, t));
    }
    END_FIELDS(r);
    return need(r, seen, 1u << 1, "KeyValue", names);
}

/* TimeUnit: a union of empty structs; the member id is the unit. */
static cf_status time_unit_decode(cf_thrift_reader *r, uint32_t *unit)
{
    int16_t fid;
    uint8_t t;
    *unit = 0;
    static const uint8_t decl[] = {[1] = DECL_STRUCT, [2] = DECL_STRUCT, [3] = DECL_STRUCT};
    FIELDS(r, decl) {
    case 1:
    case 2:
    case 3:
        *unit = (uint32_t)fid;
        CF_TRY(cf_thrift_skip(r, t));
        break;
    default: CF_TRY(cf_thrift_skip(r, t));
    }
    END_FIELDS(r);
    return CF_OK;
}

/* TimeType and TimestampType: 1 isAdjustedToUTC, 2 unit (both required). */
static cf_status time_decode(cf_thrift_reader *r, cf_parquet_logical *lt, const char *what)
{
    static const char *const names[] = {"", "isAdjustedToUTC", "unit"};
    uint64_t seen = 0;
    int16_t fid;
    uint8_t t;
    static const uint8_t decl[] = {[1] = DECL_BOOL, [2] = DECL_STRUCT};
    FIELDS(r, decl) {
    case 1: CF_TRY(req_bool(r, t, &lt->utc, &seen, 1)); break;
    case 2:
        CF_TRY(time_unit_decode(r, &lt->unit));
        SEEN(2);
        break;
    default: CF_TRY(cf_thrift_skip(r, t));
    }
    END_FIELDS(r);
    CF_TRY(need(r, seen, 6, what, names));
    if (lt->unit == 0)
        lt->kind = CF_PARQUET_LT_UNSUPPORTED; /* a unit this reader does not know */
    return CF_OK;
}

static cf_status int_type_decode(cf_thrift_reader *r, cf_parquet_logical *lt)
{
    static const char *const names[] = {"", "bitWidth", "isSigned"};
    uint64_t seen = 0;
    int16_t fid;
    uint8_t t;
    static const uint8_t decl[] = {[1] = DECL_I32, [2] = DECL_BOOL};
    FIELDS(r, decl) {
    case 1: CF_TRY(req_i32(r, t, &lt->bit_width, &seen, 1)); break;
    case 2: CF_TRY(req_bool(r, t, &lt->is_signed, &seen, 2)); break;
    default: CF_TRY(cf_thrift_skip(r, t));
    }
    END_FIELDS(r);
    return need(r, seen, 6, "IntType", names);
}

static cf_status decimal_type_decode(cf_thrift_reader *r, cf_parquet_logical *lt)
{
    static const char *const names[] = {"", "scale", "precision"};
    uint64_t seen = 0;
    int16_t fid;
    uint8_t t;
    static const uint8_t decl[] = {[1] = DECL_I32, [2] = DECL_I32};
    FIELDS(r, decl) {
    case 1: CF_TRY(req_i32(r, t, &lt->scale, &seen, 1)); break;
    case 2: CF_TRY(req_i32(r, t, &lt->precision, &seen, 2)); break;
    default: CF_TRY(cf_thrift_skip(r, t));
    }
    END_FIELDS(r);
    return need(r, seen, 6, "DecimalType", names);
}

/* GeometryType (1 crs) and GeographyType (1 crs, 2 algorithm). */
static cf_status geo_type_decode(cf_thrift_reader *r, cf_parquet_logical *lt)
{
    int16_t fid;
    uint8_t t;
    static const uint8_t decl[] = {[1] = DECL_BIN};
    FIELDS(r, decl) {
    case 1: CF_TRY(opt_bin(r, t, &lt->crs, &lt->has_crs)); break;
    default: CF_TRY(cf_thrift_skip(r, t));
    }
    END_FIELDS(r);
    return CF_OK;
}

/* LogicalType union: exactly one member, a struct. A member id this reader
 * does not know leaves the kind UNSUPPORTED (parquet.thrift: readers treat an
 * unknown logical type as absent). */
static cf_status logical_decode(cf_thrift_reader *r, cf_parquet_logical *lt)
{
    memset(lt, 0, sizeof(*lt));
    lt->kind = CF_PARQUET_LT_UNSUPPORTED;
    int members = 0;
    int16_t fid;
    uint8_t t;
    FIELDS(r, any_decl) {
    default:
        if (t != CF_TT_STRUCT) {
            CF_TRY(cf_thrift_skip(r, t));
            break;
        }
        members++;
        switch (fid) {
        case CF_PARQUET_LT_DECIMAL:
            lt->kind = (uint32_t)fid;
            CF_TRY(decimal_type_decode(r, lt));
            break;
        case CF_PARQUET_LT_TIME:
        case CF_PARQUET_LT_TIMESTAMP:
            lt->kind = (uint32_t)fid;
            CF_TRY(time_decode(r, lt, fid == CF_PARQUET_LT_TIME ? "TimeType" : "TimestampType"));
            break;
        case CF_PARQUET_LT_INTEGER:
            lt->kind = (uint32_t)fid;
            CF_TRY(int_type_decode(r, lt));
            break;
        case CF_PARQUET_LT_GEOMETRY:
        case CF_PARQUET_LT_GEOGRAPHY:
            lt->kind = (uint32_t)fid;
            CF_TRY(geo_type_decode(r, lt));
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
    END_FIELDS(r);
    if (members != 1)
        lt->kind = CF_PARQUET_LT_UNSUPPORTED;
    return CF_OK;
}

/* ---- SchemaElement ------------------------------------------------------------------ */

static cf_status schema_element_decode(cf_thrift_reader *r, void *elem)
{
    cf_parquet_schema_element *e = elem;
    static const char *const names[] = {"", "", "", "", "name"};
    uint64_t seen = 0;
    int16_t fid;
    uint8_t t;
    static const uint8_t decl[] = {
        [1] = DECL_I32, [2] = DECL_I32, [3] = DECL_I32, [4] = DECL_BIN, [5] = DECL_I32,
        [6] = DECL_I32, [7] = DECL_I32, [8] = DECL_I32, [9] = DECL_I32, [10] = DECL_STRUCT};
    FIELDS(r, decl) {
    case 1: CF_TRY(opt_i32(r, t, &e->type, &e->has_type)); break;
    case 2: CF_TRY(opt_i32(r, t, &e->type_length, &e->has_type_length)); break;
    case 3: CF_TRY(opt_i32(r, t, &e->repetition, &e->has_repetition)); break;
    case 4: CF_TRY(req_bin(r, t, &e->name, &seen, 4)); break;
    case 5: CF_TRY(opt_i32(r, t, &e->num_children, &e->has_num_children)); break;
    case 6: CF_TRY(opt_i32(r, t, &e->converted_type, &e->has_converted_type)); break;
    case 7: CF_TRY(opt_i32(r, t, &e->scale, &e->has_scale)); break;
    case 8: CF_TRY(opt_i32(r, t, &e->precision, &e->has_precision)); break;
    case 9: CF_TRY(opt_i32(r, t, &e->field_id, &e->has_field_id)); break;
    case 10: CF_TRY(logical_decode(r, &e->logical)); break;
    default: CF_TRY(cf_thrift_skip(r, t));
    }
    END_FIELDS(r);
    return need(r, seen, 1u << 4, "SchemaElement", names);
}

/* ---- ColumnMetaData, ColumnChunk, RowGroup ----------------------------------------- */

static cf_status encoding_stats_decode(cf_thrift_reader *r, void *elem)
{
    cf_parquet_encoding_stats *s = elem;
    static const char *const names[] = {"", "page_type", "encoding", "count"};
    uint64_t seen = 0;
    int16_t fid;
    uint8_t t;
    static const uint8_t decl[] = {[1] = DECL_I32, [2] = DECL_I32, [3] = DECL_I32};
    FIELDS(r, decl) {
    case 1: CF_TRY(req_i32(r, t, &s->page_type, &seen, 1)); break;
    case 2: CF_TRY(req_i32(r, t, &s->encoding, &seen, 2)); break;
    case 3: CF_TRY(req_i32(r, t, &s->count, &seen, 3)); break;
    default: CF_TRY(cf_thrift_skip(r, t));
    }
    END_FIELDS(r);
    return need(r, seen, 0xe, "PageEncodingStats", names);
}

static cf_status column_meta_decode(cf_thrift_reader *r, cf_parquet_column_meta *m)
{
    static const char *const names[] = {"",
                                        "type",
                                        "encodings",
                                        "path_in_schema",
                                        "codec",
                                        "num_values",
                                        "total_uncompressed_size",
                                        "total_compressed_size",
                                        "",
                                        "data_page_offset"};
    uint64_t seen = 0;
    int16_t fid;
    uint8_t t;
    static const uint8_t decl[] = {
        [1] = DECL_I32,     [2] = DECL_LIST,    [3] = DECL_LIST,  [4] = DECL_I32,  [5] = DECL_I64,
        [6] = DECL_I64,     [7] = DECL_I64,     [8] = DECL_LIST,  [9] = DECL_I64,  [10] = DECL_I64,
        [11] = DECL_I64,    [12] = DECL_STRUCT, [13] = DECL_LIST, [14] = DECL_I64, [15] = DECL_I32,
        [16] = DECL_STRUCT, [17] = DECL_STRUCT};
    FIELDS(r, decl) {
    case 1: CF_TRY(req_i32(r, t, &m->type, &seen, 1)); break;
    case 2: {
        int32_t *e;
        CF_TRY(list_i32(r, t, &e, &m->encoding_count));
        m->encodings = e;
        SEEN(2);
        break;
    }
    case 3: {
        cf_slice *p;
        CF_TRY(list_bin(r, t, &p, &m->path_len));
        m->path = p;
        SEEN(3);
        break;
    }
    case 4: CF_TRY(req_i32(r, t, &m->codec, &seen, 4)); break;
    case 5: CF_TRY(req_i64(r, t, &m->num_values, &seen, 5)); break;
    case 6: CF_TRY(req_i64(r, t, &m->total_uncompressed_size, &seen, 6)); break;
    case 7: CF_TRY(req_i64(r, t, &m->total_compressed_size, &seen, 7)); break;
    case 8: {
        void *p;
        CF_TRY(list_struct(r, t, sizeof(cf_parquet_kv), kv_decode, "key_value_metadata", &p,
                           &m->kv_count));
        m->kv = p;
        break;
    }
    case 9: CF_TRY(req_i64(r, t, &m->data_page_offset, &seen, 9)); break;
    case 10: CF_TRY(opt_i64(r, t, &m->index_page_offset, &m->has_index_page_offset)); break;
    case 11:
        CF_TRY(cf_thrift_read_i64(r, t, &m->dictionary_page_offset));
        m->has_dictionary_page_offset = true;
        break;
    case 12:
        CF_TRY(stats_decode(r, &m->statistics));
        m->has_statistics = true;
        break;
    case 13: {
        void *p;
        CF_TRY(list_struct(r, t, sizeof(cf_parquet_encoding_stats), encoding_stats_decode,
                           "encoding_stats", &p, &m->encoding_stats_count));
        m->encoding_stats = p;
        break;
    }
    case 14: CF_TRY(opt_i64(r, t, &m->bloom_filter_offset, &m->has_bloom_filter_offset)); break;
    case 15: CF_TRY(opt_i32(r, t, &m->bloom_filter_length, &m->has_bloom_filter_length)); break;
    default: CF_TRY(cf_thrift_skip(r, t)); /* 16 size_statistics, 17 geospatial */
    }
    END_FIELDS(r);
    return need(r, seen, 0x2fe, "ColumnMetaData", names);
}

static cf_status column_chunk_decode(cf_thrift_reader *r, void *elem)
{
    cf_parquet_column_chunk *c = elem;
    bool has_oi_off = false, has_oi_len = false, has_ci_off = false, has_ci_len = false;
    int16_t fid;
    uint8_t t;
    /* file_offset (2) is required by the spec but several writers leave it out
     * or zero; nothing depends on it, so its absence is not damage. */
    static const uint8_t decl[] = {
        [1] = DECL_BIN, [2] = DECL_I64, [3] = DECL_STRUCT, [4] = DECL_I64, [5] = DECL_I32,
        [6] = DECL_I64, [7] = DECL_I32, [8] = DECL_STRUCT, [9] = DECL_BIN};
    FIELDS(r, decl) {
    case 1: CF_TRY(opt_bin(r, t, &c->file_path, &c->has_file_path)); break;
    case 2: CF_TRY(cf_thrift_read_i64(r, t, &c->file_offset)); break;
    case 3:
        CF_TRY(column_meta_decode(r, &c->meta));
        c->has_meta_data = true;
        break;
    case 4: CF_TRY(opt_i64(r, t, &c->offset_index_offset, &has_oi_off)); break;
    case 5: CF_TRY(opt_i32(r, t, &c->offset_index_length, &has_oi_len)); break;
    case 6: CF_TRY(opt_i64(r, t, &c->column_index_offset, &has_ci_off)); break;
    case 7: CF_TRY(opt_i32(r, t, &c->column_index_length, &has_ci_len)); break;
    case 8:
    case 9:
        c->encrypted = true;
        CF_TRY(cf_thrift_skip(r, t));
        break;
    default: CF_TRY(cf_thrift_skip(r, t));
    }
    END_FIELDS(r);
    c->has_offset_index = has_oi_off && has_oi_len;
    c->has_column_index = has_ci_off && has_ci_len;
    return CF_OK;
}

static cf_status sorting_column_decode(cf_thrift_reader *r, void *elem)
{
    cf_parquet_sorting_column *s = elem;
    static const char *const names[] = {"", "column_idx", "descending", "nulls_first"};
    uint64_t seen = 0;
    int16_t fid;
    uint8_t t;
    static const uint8_t decl[] = {[1] = DECL_I32, [2] = DECL_BOOL, [3] = DECL_BOOL};
    FIELDS(r, decl) {
    case 1: CF_TRY(req_i32(r, t, &s->column_idx, &seen, 1)); break;
    case 2: CF_TRY(req_bool(r, t, &s->descending, &seen, 2)); break;
    case 3: CF_TRY(req_bool(r, t, &s->nulls_first, &seen, 3)); break;
    default: CF_TRY(cf_thrift_skip(r, t));
    }
    END_FIELDS(r);
    return need(r, seen, 0xe, "SortingColumn", names);
}

static cf_status row_group_decode(cf_thrift_reader *r, void *elem)
{
    cf_parquet_row_group *g = elem;
    static const char *const names[] = {"", "columns", "total_byte_size", "num_rows"};
    uint64_t seen = 0;
    int16_t fid;
    uint8_t t;
    static const uint8_t decl[] = {[1] = DECL_LIST, [2] = DECL_I64, [3] = DECL_I64, [4] = DECL_LIST,
                                   [5] = DECL_I64,  [6] = DECL_I64, [7] = DECL_I32};
    FIELDS(r, decl) {
    case 1: {
        void *p;
        CF_TRY(list_struct(r, t, sizeof(cf_parquet_column_chunk), column_chunk_decode, "column", &p,
                           &g->column_count));
        g->columns = p;
        SEEN(1);
        break;
    }
    case 2: CF_TRY(req_i64(r, t, &g->total_byte_size, &seen, 2)); break;
    case 3: CF_TRY(req_i64(r, t, &g->num_rows, &seen, 3)); break;
    case 4: {
        void *p;
        CF_TRY(list_struct(r, t, sizeof(cf_parquet_sorting_column), sorting_column_decode,
                           "sorting column", &p, &g->sorting_column_count));
        g->sorting_columns = p;
        break;
    }
    case 5: CF_TRY(opt_i64(r, t, &g->file_offset, &g->has_file_offset)); break;
    case 6:
        CF_TRY(cf_thrift_read_i64(r, t, &g->total_compressed_size));
        g->has_total_compressed_size = true;
        break;
    case 7: {
        int32_t v;
        CF_TRY(cf_thrift_read_i32(r, t, &v));
        if (v < INT16_MIN || v > INT16_MAX)
            return cf_thrift_fail(r, "RowGroup ordinal %" PRId32 " out of range", v);
        g->ordinal = (int16_t)v;
        g->has_ordinal = true;
        break;
    }
    default: CF_TRY(cf_thrift_skip(r, t));
    }
    END_FIELDS(r);
    return need(r, seen, 0xe, "RowGroup", names);
}

/* ColumnOrder: a union; the member id is kept (1 = TYPE_ORDER). */
static cf_status column_order_decode(cf_thrift_reader *r, void *elem)
{
    uint32_t *id = elem;
    int16_t fid;
    uint8_t t;
    FIELDS(r, any_decl) {
    default:
        if (t == CF_TT_STRUCT && fid > 0)
            *id = (uint32_t)fid;
        CF_TRY(cf_thrift_skip(r, t));
    }
    END_FIELDS(r);
    return CF_OK;
}

cf_status cf_pq_file_meta_decode(cf_thrift_reader *r, cf_parquet_file_meta *m)
{
    static const char *const names[] = {"", "version", "schema", "num_rows", "row_groups"};
    memset(m, 0, sizeof(*m));
    uint64_t seen = 0;
    int16_t fid;
    uint8_t t;
    static const uint8_t decl[] = {
        [1] = DECL_I32, [2] = DECL_LIST, [3] = DECL_I64,    [4] = DECL_LIST, [5] = DECL_LIST,
        [6] = DECL_BIN, [7] = DECL_LIST, [8] = DECL_STRUCT, [9] = DECL_BIN};
    FIELDS(r, decl) {
    case 1: CF_TRY(req_i32(r, t, &m->version, &seen, 1)); break;
    case 2: {
        void *p;
        CF_TRY(list_struct(r, t, sizeof(cf_parquet_schema_element), schema_element_decode,
                           "schema element", &p, &m->schema_count));
        m->schema = p;
        SEEN(2);
        break;
    }
    case 3: CF_TRY(req_i64(r, t, &m->num_rows, &seen, 3)); break;
    case 4: {
        void *p;
        CF_TRY(list_struct(r, t, sizeof(cf_parquet_row_group), row_group_decode, "row group", &p,
                           &m->row_group_count));
        m->row_groups = p;
        SEEN(4);
        break;
    }
    case 5: {
        void *p;
        CF_TRY(list_struct(r, t, sizeof(cf_parquet_kv), kv_decode, "key_value_metadata", &p,
                           &m->kv_count));
        m->kv = p;
        break;
    }
    case 6: CF_TRY(opt_bin(r, t, &m->created_by, &m->has_created_by)); break;
    case 7: {
        void *p;
        CF_TRY(list_struct(r, t, sizeof(uint32_t), column_order_decode, "column order", &p,
                           &m->column_order_count));
        m->column_orders = p;
        m->has_column_orders = true;
        break;
    }
    case 8:
        m->encrypted = true;
        CF_TRY(cf_thrift_skip(r, t));
        break;
    default: CF_TRY(cf_thrift_skip(r, t));
    }
    END_FIELDS(r);
    return need(r, seen, 0x1e, "FileMetaData", names);
}

/* ---- PageHeader ----------------------------------------------------------------------- */

static cf_status data_page_decode(cf_thrift_reader *r, cf_pq_data_page_header *h)
{
    static const char *const names[] = {"", "num_values", "encoding", "definition_level_encoding",
                                        "repetition_level_encoding"};
    uint64_t seen = 0;
    int16_t fid;
    uint8_t t;
    static const uint8_t decl[] = {
        [1] = DECL_I32, [2] = DECL_I32, [3] = DECL_I32, [4] = DECL_I32, [5] = DECL_STRUCT};
    FIELDS(r, decl) {
    case 1: CF_TRY(req_i32(r, t, &h->num_values, &seen, 1)); break;
    case 2: CF_TRY(req_i32(r, t, &h->encoding, &seen, 2)); break;
    case 3: CF_TRY(req_i32(r, t, &h->definition_level_encoding, &seen, 3)); break;
    case 4: CF_TRY(req_i32(r, t, &h->repetition_level_encoding, &seen, 4)); break;
    case 5:
        CF_TRY(stats_decode(r, &h->statistics));
        h->has_statistics = true;
        break;
    default: CF_TRY(cf_thrift_skip(r, t));
    }
    END_FIELDS(r);
    CF_TRY(need(r, seen, 0x1e, "DataPageHeader", names));
    if (h->num_values < 0)
        return cf_thrift_fail(r, "DataPageHeader num_values %" PRId32 " < 0", h->num_values);
    return CF_OK;
}

static cf_status dict_page_decode(cf_thrift_reader *r, cf_pq_dictionary_page_header *h)
{
    static const char *const names[] = {"", "num_values", "encoding"};
    uint64_t seen = 0;
    int16_t fid;
    uint8_t t;
    static const uint8_t decl[] = {[1] = DECL_I32, [2] = DECL_I32, [3] = DECL_BOOL};
    FIELDS(r, decl) {
    case 1: CF_TRY(req_i32(r, t, &h->num_values, &seen, 1)); break;
    case 2: CF_TRY(req_i32(r, t, &h->encoding, &seen, 2)); break;
    case 3: CF_TRY(opt_bool(r, t, &h->is_sorted, &h->has_is_sorted)); break;
    default: CF_TRY(cf_thrift_skip(r, t));
    }
    END_FIELDS(r);
    CF_TRY(need(r, seen, 0x6, "DictionaryPageHeader", names));
    if (h->num_values < 0)
        return cf_thrift_fail(r, "DictionaryPageHeader num_values %" PRId32 " < 0", h->num_values);
    return CF_OK;
}

static cf_status data_page_v2_decode(cf_thrift_reader *r, cf_pq_data_page_header_v2 *h)
{
    static const char *const names[] = {"",
                                        "num_values",
                                        "num_nulls",
                                        "num_rows",
                                        "encoding",
                                        "definition_levels_byte_length",
                                        "repetition_levels_byte_length"};
    uint64_t seen = 0;
    int16_t fid;
    uint8_t t;
    h->is_compressed = true;
    static const uint8_t decl[] = {
        [1] = DECL_I32, [2] = DECL_I32, [3] = DECL_I32,  [4] = DECL_I32,
        [5] = DECL_I32, [6] = DECL_I32, [7] = DECL_BOOL, [8] = DECL_STRUCT};
    FIELDS(r, decl) {
    case 1: CF_TRY(req_i32(r, t, &h->num_values, &seen, 1)); break;
    case 2: CF_TRY(req_i32(r, t, &h->num_nulls, &seen, 2)); break;
    case 3: CF_TRY(req_i32(r, t, &h->num_rows, &seen, 3)); break;
    case 4: CF_TRY(req_i32(r, t, &h->encoding, &seen, 4)); break;
    case 5: CF_TRY(req_i32(r, t, &h->definition_levels_byte_length, &seen, 5)); break;
    case 6: CF_TRY(req_i32(r, t, &h->repetition_levels_byte_length, &seen, 6)); break;
    case 7: CF_TRY(cf_thrift_read_bool(r, t, &h->is_compressed)); break;
    case 8:
        CF_TRY(stats_decode(r, &h->statistics));
        h->has_statistics = true;
        break;
    default: CF_TRY(cf_thrift_skip(r, t));
    }
    END_FIELDS(r);
    CF_TRY(need(r, seen, 0x7e, "DataPageHeaderV2", names));
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

cf_status cf_pq_page_header_decode(cf_pq_page_header *out, size_t *header_len, const uint8_t *data,
                                   size_t len, uint64_t off, cf_error *err)
{
    static const char *const names[] = {"", "type", "uncompressed_page_size",
                                        "compressed_page_size"};
    memset(out, 0, sizeof(*out));
    cf_thrift_reader rd;
    cf_thrift_reader *r = &rd;
    cf_thrift_reader_init(r, data, len, off, "page header", err);
    r->alloc_limit = 0; /* a page header has no lists: it never allocates */
    uint64_t seen = 0;
    int16_t fid;
    uint8_t t;
    static const uint8_t decl[] = {
        [1] = DECL_I32,    [2] = DECL_I32,    [3] = DECL_I32,    [4] = DECL_I32,
        [5] = DECL_STRUCT, [6] = DECL_STRUCT, [7] = DECL_STRUCT, [8] = DECL_STRUCT};
    FIELDS(r, decl) {
    case 1: CF_TRY(req_i32(r, t, &out->type, &seen, 1)); break;
    case 2: CF_TRY(req_i32(r, t, &out->uncompressed_page_size, &seen, 2)); break;
    case 3: CF_TRY(req_i32(r, t, &out->compressed_page_size, &seen, 3)); break;
    case 4: {
        int32_t crc;
        CF_TRY(cf_thrift_read_i32(r, t, &crc));
        out->crc = (uint32_t)crc;
        out->has_crc = true;
        break;
    }
    case 5:
        CF_TRY(data_page_decode(r, &out->data_page));
        out->has_data_page = true;
        break;
    case 6:
        out->has_index_page = true;
        CF_TRY(cf_thrift_skip(r, t));
        break;
    case 7:
        CF_TRY(dict_page_decode(r, &out->dictionary_page));
        out->has_dictionary_page = true;
        break;
    case 8:
        CF_TRY(data_page_v2_decode(r, &out->data_page_v2));
        out->has_data_page_v2 = true;
        break;
    default: CF_TRY(cf_thrift_skip(r, t));
    }
    END_FIELDS(r);
    CF_TRY(need(r, seen, 0xe, "PageHeader", names));
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

static cf_status page_location_decode(cf_thrift_reader *r, void *elem)
{
    cf_pq_page_location *l = elem;
    static const char *const names[] = {"", "offset", "compressed_page_size", "first_row_index"};
    uint64_t seen = 0;
    int16_t fid;
    uint8_t t;
    static const uint8_t decl[] = {[1] = DECL_I64, [2] = DECL_I32, [3] = DECL_I64};
    FIELDS(r, decl) {
    case 1: CF_TRY(req_i64(r, t, &l->offset, &seen, 1)); break;
    case 2: CF_TRY(req_i32(r, t, &l->compressed_page_size, &seen, 2)); break;
    case 3: CF_TRY(req_i64(r, t, &l->first_row_index, &seen, 3)); break;
    default: CF_TRY(cf_thrift_skip(r, t));
    }
    END_FIELDS(r);
    return need(r, seen, 0xe, "PageLocation", names);
}

cf_status cf_pq_offset_index_decode(cf_thrift_reader *r, cf_pq_offset_index *o)
{
    static const char *const names[] = {"", "page_locations"};
    memset(o, 0, sizeof(*o));
    uint64_t seen = 0;
    int16_t fid;
    uint8_t t;
    static const uint8_t decl[] = {[1] = DECL_LIST, [2] = DECL_LIST};
    FIELDS(r, decl) {
    case 1: {
        void *p;
        CF_TRY(list_struct(r, t, sizeof(cf_pq_page_location), page_location_decode, "page", &p,
                           &o->page_count));
        o->pages = p;
        SEEN(1);
        break;
    }
    case 2: {
        int64_t *p = NULL;
        CF_TRY(list_i64(r, t, &p, &o->unencoded_count));
        o->unencoded_byte_array_data_bytes = p;
        break;
    }
    default: CF_TRY(cf_thrift_skip(r, t));
    }
    END_FIELDS(r);
    CF_TRY(need(r, seen, 0x2, "OffsetIndex", names));
    if (o->unencoded_count && o->unencoded_count != o->page_count)
        return cf_thrift_fail(r, "OffsetIndex: %" PRIu32 " pages but %" PRIu32 " byte counts",
                              o->page_count, o->unencoded_count);
    return CF_OK;
}

cf_status cf_pq_column_index_decode(cf_thrift_reader *r, cf_pq_column_index *c)
{
    static const char *const names[] = {"", "null_pages", "min_values", "max_values",
                                        "boundary_order"};
    memset(c, 0, sizeof(*c));
    uint64_t seen = 0;
    uint32_t n_null = 0, n_min = 0, n_max = 0, n_counts = 0;
    bool *nulls = NULL;
    cf_slice *mins = NULL, *maxs = NULL;
    int64_t *counts = NULL, *rh = NULL, *dh = NULL;
    int16_t fid;
    uint8_t t;
    static const uint8_t decl[] = {
        [1] = DECL_LIST, [2] = DECL_LIST, [3] = DECL_LIST, [4] = DECL_I32,
        [5] = DECL_LIST, [6] = DECL_LIST, [7] = DECL_LIST};
    FIELDS(r, decl) {
    case 1:
        CF_TRY(list_bool(r, t, &nulls, &n_null));
        c->null_pages = nulls;
        SEEN(1);
        break;
    case 2:
        CF_TRY(list_bin(r, t, &mins, &n_min));
        c->min_values = mins;
        SEEN(2);
        break;
    case 3:
        CF_TRY(list_bin(r, t, &maxs, &n_max));
        c->max_values = maxs;
        SEEN(3);
        break;
    case 4: CF_TRY(req_i32(r, t, &c->boundary_order, &seen, 4)); break;
    case 5:
        CF_TRY(list_i64(r, t, &counts, &n_counts));
        c->null_counts = counts;
        c->has_null_counts = true;
        break;
    case 6:
        CF_TRY(list_i64(r, t, &rh, &c->rep_histogram_count));
        c->rep_histograms = rh;
        break;
    case 7:
        CF_TRY(list_i64(r, t, &dh, &c->def_histogram_count));
        c->def_histograms = dh;
        break;
    default: CF_TRY(cf_thrift_skip(r, t));
    }
    END_FIELDS(r);
    CF_TRY(need(r, seen, 0x1e, "ColumnIndex", names));
    if (n_min != n_null || n_max != n_null || (c->has_null_counts && n_counts != n_null))
        return cf_thrift_fail(r,
                              "ColumnIndex lists disagree: %" PRIu32 " null_pages, %" PRIu32
                              " min, %" PRIu32 " max, %" PRIu32 " null counts",
                              n_null, n_min, n_max, n_counts);
    c->page_count = n_null;
    return CF_OK;
}

/* ---- BloomFilterHeader (BloomFilter.md) --------------------------------------------- */

static cf_status union_member(cf_thrift_reader *r, uint32_t *id)
{
    int16_t fid;
    uint8_t t;
    *id = 0;
    FIELDS(r, any_decl) {
    default:
        if (t == CF_TT_STRUCT && fid > 0)
            *id = (uint32_t)fid;
        CF_TRY(cf_thrift_skip(r, t));
    }
    END_FIELDS(r);
    return CF_OK;
}

cf_status cf_pq_bloom_header_decode(cf_pq_bloom_header *out, size_t *header_len,
                                    const uint8_t *data, size_t len, uint64_t off, cf_error *err)
{
    static const char *const names[] = {"", "numBytes", "algorithm", "hash", "compression"};
    memset(out, 0, sizeof(*out));
    cf_thrift_reader rd;
    cf_thrift_reader *r = &rd;
    cf_thrift_reader_init(r, data, len, off, "bloom filter header", err);
    r->alloc_limit = 0;
    uint64_t seen = 0;
    int16_t fid;
    uint8_t t;
    static const uint8_t decl[] = {
        [1] = DECL_I32, [2] = DECL_STRUCT, [3] = DECL_STRUCT, [4] = DECL_STRUCT};
    FIELDS(r, decl) {
    case 1: CF_TRY(req_i32(r, t, &out->num_bytes, &seen, 1)); break;
    case 2:
    case 3:
    case 4: {
        uint32_t *dst = fid == 2 ? &out->algorithm : fid == 3 ? &out->hash : &out->compression;
        CF_TRY(union_member(r, dst));
        SEEN(fid);
        break;
    }
    default: CF_TRY(cf_thrift_skip(r, t));
    }
    END_FIELDS(r);
    CF_TRY(need(r, seen, 0x1e, "BloomFilterHeader", names));
    if (out->num_bytes < 0)
        return cf_thrift_fail(r, "bloom filter of %" PRId32 " bytes", out->num_bytes);
    *header_len = cf_thrift_pos(r);
    return CF_OK;
}

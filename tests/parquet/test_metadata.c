/* Parquet metadata: PageHeader, FileMetaData, page index and bloom headers
 * built byte by byte with the Thrift writer and decoded; the schema tree and
 * its errors; cf_parquet_open on hand-made files that break each rule of the
 * layout; real footers truncated at every byte and bit-flipped. */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/parquet.h>

#include "parquet/internal.h"
#include "parquet/metadata.h"
#include "parquet/thrift.h"
#include "support_pqfile.h"

/* ---- builders ------------------------------------------------------------------------- */

static void stats(cf_thrift_writer *w, int16_t fid, int64_t nulls)
{
    cf_thrift_write_field(w, fid, CF_TT_STRUCT);
    cf_thrift_write_struct_begin(w);
    cf_thrift_write_field_binary(w, 1, "\x09", 1); /* max */
    cf_thrift_write_field_binary(w, 2, "\x01", 1); /* min */
    cf_thrift_write_field_i64(w, 3, nulls);
    cf_thrift_write_field_binary(w, 5, "zz", 2);
    cf_thrift_write_field_binary(w, 6, "aa", 2);
    cf_thrift_write_field_bool(w, 7, true);
    cf_thrift_write_field_bool(w, 8, false);
    cf_thrift_write_struct_end(w);
}

/* PageHeader with a v1 data page header, plus an unknown struct field 99. */
static void page_v1(cf_buf *b, bool with_sub, bool with_size)
{
    cf_thrift_writer w;
    cf_thrift_writer_init(&w, b);
    cf_thrift_write_struct_begin(&w);
    cf_thrift_write_field_i32(&w, 1, CF_PARQUET_DATA_PAGE);
    cf_thrift_write_field_i32(&w, 2, 100);
    if (with_size)
        cf_thrift_write_field_i32(&w, 3, 80);
    cf_thrift_write_field_i32(&w, 4, (int32_t)0xdeadbeef);
    if (with_sub) {
        cf_thrift_write_field(&w, 5, CF_TT_STRUCT);
        cf_thrift_write_struct_begin(&w);
        cf_thrift_write_field_i32(&w, 1, 10);
        cf_thrift_write_field_i32(&w, 2, CF_PARQUET_PLAIN);
        cf_thrift_write_field_i32(&w, 3, CF_PARQUET_RLE);
        cf_thrift_write_field_i32(&w, 4, CF_PARQUET_BIT_PACKED);
        stats(&w, 5, 2);
        cf_thrift_write_struct_end(&w);
    }
    cf_thrift_write_field(&w, 99, CF_TT_STRUCT);
    cf_thrift_write_struct_begin(&w);
    cf_thrift_write_field(&w, 1, CF_TT_LIST);
    cf_thrift_write_list_begin(&w, CF_TT_DOUBLE, 1);
    cf_thrift_write_double(&w, 2.5);
    cf_thrift_write_struct_end(&w);
    cf_thrift_write_struct_end(&w);
}

static void test_metadata__page_header_v1(void **state)
{
    (void)state;
    cf_buf b;
    cf_buf_init(&b);
    page_v1(&b, true, true);
    size_t hl = b.len;
    cf_buf_append(&b, "BODY", 4);
    cf_pq_page_header h;
    size_t got;
    cf_error err;
    CF_ASSERT_OK(cf_pq_page_header_decode(&h, &got, b.data, b.len, 500, &err), &err);
    assert_int_equal(got, hl);
    assert_int_equal(h.type, CF_PARQUET_DATA_PAGE);
    assert_int_equal(h.uncompressed_page_size, 100);
    assert_int_equal(h.compressed_page_size, 80);
    assert_true(h.has_crc);
    assert_int_equal(h.crc, 0xdeadbeef);
    assert_true(h.has_data_page && !h.has_data_page_v2 && !h.has_dictionary_page);
    assert_int_equal(h.data_page.num_values, 10);
    assert_int_equal(h.data_page.definition_level_encoding, CF_PARQUET_RLE);
    assert_int_equal(h.data_page.repetition_level_encoding, CF_PARQUET_BIT_PACKED);
    assert_true(h.data_page.has_statistics);
    const cf_parquet_stats *s = &h.data_page.statistics;
    assert_true(s->has_null_count && s->null_count == 2);
    assert_true(s->has_min && s->min.len == 1 && s->min.data[0] == 1);
    assert_true(s->has_max_value && s->max_value.len == 2 &&
                memcmp(s->max_value.data, "zz", 2) == 0);
    assert_true(s->has_is_max_value_exact && s->is_max_value_exact);
    assert_true(s->has_is_min_value_exact && !s->is_min_value_exact);
    assert_false(s->has_distinct_count);
    /* Every cut inside the header is damage, named with the file offset. */
    for (size_t cut = 0; cut < hl; cut++) {
        uint8_t *c = malloc(cut + 1);
        memcpy(c, b.data, cut);
        CF_ASSERT_STATUS(cf_pq_page_header_decode(&h, &got, c, cut, 500, &err), CF_ECORRUPT, &err);
        assert_non_null(strstr(err.msg, "page header at offset 5"));
        free(c);
    }
    cf_buf_dispose(&b);
}

static void test_metadata__page_header_errors(void **state)
{
    (void)state;
    cf_buf b;
    cf_buf_init(&b);
    cf_pq_page_header h;
    size_t got;
    cf_error err;
    page_v1(&b, false, true);
    CF_ASSERT_STATUS(cf_pq_page_header_decode(&h, &got, b.data, b.len, 0, &err), CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "DATA_PAGE page without its header"));
    cf_buf_clear(&b);
    page_v1(&b, true, false);
    CF_ASSERT_STATUS(cf_pq_page_header_decode(&h, &got, b.data, b.len, 0, &err), CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "PageHeader: required field compressed_page_size (3) missing"));

    /* v2: counts checked, is_compressed defaults to true. */
    cf_thrift_writer w;
    for (int variant = 0; variant < 4; variant++) {
        cf_buf_clear(&b);
        cf_thrift_writer_init(&w, &b);
        cf_thrift_write_struct_begin(&w);
        cf_thrift_write_field_i32(&w, 1, CF_PARQUET_DATA_PAGE_V2);
        cf_thrift_write_field_i32(&w, 2, variant == 3 ? -1 : 10);
        cf_thrift_write_field_i32(&w, 3, 10);
        cf_thrift_write_field(&w, 8, CF_TT_STRUCT);
        cf_thrift_write_struct_begin(&w);
        cf_thrift_write_field_i32(&w, 1, 5);
        cf_thrift_write_field_i32(&w, 2, variant == 1 ? 6 : 1);
        cf_thrift_write_field_i32(&w, 3, 5);
        cf_thrift_write_field_i32(&w, 4, CF_PARQUET_RLE_DICTIONARY);
        cf_thrift_write_field_i32(&w, 5, 2);
        if (variant != 2)
            cf_thrift_write_field_i32(&w, 6, 0);
        cf_thrift_write_struct_end(&w);
        cf_thrift_write_struct_end(&w);
        cf_status st = cf_pq_page_header_decode(&h, &got, b.data, b.len, 0, &err);
        if (variant == 0) {
            CF_ASSERT_OK(st, &err);
            assert_true(h.has_data_page_v2);
            assert_true(h.data_page_v2.is_compressed);
            assert_int_equal(h.data_page_v2.num_nulls, 1);
            assert_int_equal(h.data_page_v2.definition_levels_byte_length, 2);
        } else {
            CF_ASSERT_STATUS(st, CF_ECORRUPT, &err);
            assert_non_null(strstr(err.msg, variant == 1   ? "out of range"
                                            : variant == 2 ? "repetition_levels_byte_length"
                                                           : "< 0"));
        }
    }

    /* Dictionary page, is_sorted present. */
    cf_buf_clear(&b);
    cf_thrift_writer_init(&w, &b);
    cf_thrift_write_struct_begin(&w);
    cf_thrift_write_field_i32(&w, 1, CF_PARQUET_DICTIONARY_PAGE);
    cf_thrift_write_field_i32(&w, 2, 7);
    cf_thrift_write_field_i32(&w, 3, 7);
    cf_thrift_write_field(&w, 7, CF_TT_STRUCT);
    cf_thrift_write_struct_begin(&w);
    cf_thrift_write_field_i32(&w, 1, 3);
    cf_thrift_write_field_i32(&w, 2, CF_PARQUET_PLAIN_DICTIONARY);
    cf_thrift_write_field_bool(&w, 3, true);
    cf_thrift_write_struct_end(&w);
    cf_thrift_write_struct_end(&w);
    CF_ASSERT_OK(cf_pq_page_header_decode(&h, &got, b.data, b.len, 0, &err), &err);
    assert_true(h.has_dictionary_page && h.dictionary_page.has_is_sorted &&
                h.dictionary_page.is_sorted);
    assert_int_equal(h.dictionary_page.num_values, 3);
    assert_int_equal(got, b.len);

    /* A field of the wrong wire type is skipped as unknown (test_pq_mistyped.c):
     * here the required type, so it is missing. */
    uint8_t bad[] = {0x18, 0x01, 'x', 0x00};
    CF_ASSERT_STATUS(cf_pq_page_header_decode(&h, &got, bad, sizeof(bad), 0, &err), CF_ECORRUPT,
                     &err);
    assert_non_null(strstr(err.msg, "PageHeader: required field type (1) missing"));
    cf_buf_dispose(&b);
}

/* ---- schema tree ------------------------------------------------------------------------ */

static cf_parquet_schema_element el(const char *name, int type, int rep, int children)
{
    return pqt_element(name, type, rep, children, -1);
}

static void test_metadata__schema_tree(void **state)
{
    (void)state;
    /* schema { optional group a (LIST) { repeated group list { optional int32 element } }
     *          required binary b (UTF8); repeated group c { required int64 x; optional double y } }
     */
    cf_parquet_schema_element e[] = {
        el("schema", -1, -1, 3),
        el("a", -1, CF_PARQUET_OPTIONAL, 1),
        el("list", -1, CF_PARQUET_REPEATED, 1),
        el("element", CF_PARQUET_INT32, CF_PARQUET_OPTIONAL, -1),
        el("b", CF_PARQUET_BYTE_ARRAY, CF_PARQUET_REQUIRED, 0), /* leaf with num_children 0 */
        el("c", -1, CF_PARQUET_REPEATED, 2),
        el("x", CF_PARQUET_INT64, CF_PARQUET_REQUIRED, -1),
        el("y", CF_PARQUET_DOUBLE, CF_PARQUET_OPTIONAL, -1),
    };
    e[1].has_converted_type = true;
    e[1].converted_type = CF_PARQUET_CT_LIST;
    e[4].has_converted_type = true;
    e[4].converted_type = CF_PARQUET_CT_UTF8;
    cf_pq_schema s;
    cf_error err;
    CF_ASSERT_OK(cf_pq_schema_build(&s, e, 8, &err), &err);
    assert_int_equal(s.column_count, 4);
    const cf_parquet_node *root = &s.nodes[0];
    assert_int_equal(root->child_count, 3);
    assert_ptr_equal(root->children[2], &s.nodes[5]);
    assert_ptr_equal(s.nodes[5].children[1], &s.nodes[7]);
    assert_int_equal(s.nodes[1].logical.kind, CF_PARQUET_LT_LIST);
    assert_int_equal(s.nodes[4].logical.kind, CF_PARQUET_LT_STRING);
    struct {
        int def, rep;
        uint32_t depth;
        const char *last;
    } want[] = {{3, 1, 3, "element"}, {0, 0, 1, "b"}, {1, 1, 2, "x"}, {2, 1, 2, "y"}};
    for (int i = 0; i < 4; i++) {
        const cf_parquet_column *c = &s.columns[i];
        assert_int_equal(c->max_def, want[i].def);
        assert_int_equal(c->max_rep, want[i].rep);
        assert_int_equal(c->path_len, want[i].depth);
        cf_slice l = c->path[c->path_len - 1];
        assert_true(l.len == strlen(want[i].last) && memcmp(l.data, want[i].last, l.len) == 0);
        assert_int_equal(c->leaf->column, i);
    }
    assert_true(s.columns[0].path[0].len == 1 && s.columns[0].path[0].data[0] == 'a');
    assert_true(s.columns[0].path[1].len == 4);
    cf_pq_schema_dispose(&s);
}

static void expect_schema_error(cf_parquet_schema_element *e, uint32_t n, cf_status want,
                                const char *msg)
{
    cf_pq_schema s;
    cf_error err;
    CF_ASSERT_STATUS(cf_pq_schema_build(&s, e, n, &err), want, &err);
    if (!strstr(err.msg, msg))
        fail_msg("message '%s' lacks '%s'", err.msg, msg);
    assert_null(s.nodes);
}

static void test_metadata__schema_errors(void **state)
{
    (void)state;
    cf_parquet_schema_element e[4];
    memset(e, 0, sizeof(e));
    expect_schema_error(e, 0, CF_ECORRUPT, "no elements");
    e[0] = el("schema", -1, -1, -1);
    expect_schema_error(e, 1, CF_ECORRUPT,
                        "schema element 0 (\"schema\"): the root is not a group");
    e[0] = el("schema", -1, -1, 3);
    e[1] = el("a", CF_PARQUET_INT32, 0, -1);
    e[2] = el("b", CF_PARQUET_INT32, 0, -1);
    expect_schema_error(e, 3, CF_ECORRUPT, "declares 3 children, the schema has 2 more");
    e[0] = el("schema", -1, -1, 1);
    e[1] = el("g", -1, 0, 2);
    /* (Children are reserved as groups open, so a list that ends early is
     * caught when the group claims more than the elements left.) */
    expect_schema_error(e, 3, CF_ECORRUPT,
                        "schema element 1 (\"g\"): declares 2 children, more than the");
    e[1] = el("a", CF_PARQUET_INT32, 0, -1);
    expect_schema_error(e, 3, CF_ECORRUPT, "uses 2 of 3 elements");
    e[1] = el("a", -1, 0, -1);
    expect_schema_error(e, 2, CF_ECORRUPT,
                        "schema element 1 (\"a\"): a leaf without a physical type");
    e[1] = el("a", 8, 0, -1);
    expect_schema_error(e, 2, CF_ECORRUPT, "unknown physical type 8");
    e[1] = el("a", CF_PARQUET_FIXED_LEN_BYTE_ARRAY, 0, -1);
    expect_schema_error(e, 2, CF_ECORRUPT, "FIXED_LEN_BYTE_ARRAY without a positive type_length");
    e[1] = el("a", CF_PARQUET_INT32, 3, -1);
    expect_schema_error(e, 2, CF_ECORRUPT, "unknown repetition type 3");
    e[1] = el("a", -1, 0, 0);
    e[1].num_children = -7;
    expect_schema_error(e, 2, CF_ECORRUPT, "num_children -7 < 0");
    e[0] = el("schema", -1, -1, 1);
    e[1] = el("g", -1, 0, 1);
    e[2] = el("h", -1, 0, 5);
    e[3] = el("x", CF_PARQUET_INT32, 0, -1);
    expect_schema_error(e, 4, CF_ECORRUPT, "schema element 2 (\"h\"): declares 5 children, more");

    /* A chain deeper than the limit, then one that fits. */
    uint32_t n = CF_PQ_MAX_SCHEMA_DEPTH + 2;
    cf_parquet_schema_element *deep = calloc(n, sizeof(*deep));
    for (uint32_t i = 0; i + 1 < n; i++)
        deep[i] = el("g", -1, i ? CF_PARQUET_OPTIONAL : -1, 1);
    deep[n - 1] = el("leaf", CF_PARQUET_INT32, CF_PARQUET_OPTIONAL, -1);
    expect_schema_error(deep, n, CF_ECORRUPT, "nested deeper than 1000 levels");
    cf_pq_schema s;
    cf_error err;
    deep[n - 2] = el("leaf", CF_PARQUET_INT32, CF_PARQUET_OPTIONAL, -1);
    CF_ASSERT_OK(cf_pq_schema_build(&s, deep, n - 1, &err), &err);
    assert_int_equal(s.columns[0].max_def, CF_PQ_MAX_SCHEMA_DEPTH);
    assert_int_equal(s.columns[0].path_len, CF_PQ_MAX_SCHEMA_DEPTH);
    cf_pq_schema_dispose(&s);
    free(deep);
}

static void test_metadata__legacy_types_resolve(void **state)
{
    (void)state;
    struct {
        int ct;
        const char *want;
    } cases[] = {
        {CF_PARQUET_CT_UTF8, "STRING"},
        {CF_PARQUET_CT_INT_8, "INT(8,true)"},
        {CF_PARQUET_CT_INT_16, "INT(16,true)"},
        {CF_PARQUET_CT_INT_64, "INT(64,true)"},
        {CF_PARQUET_CT_UINT_8, "INT(8,false)"},
        {CF_PARQUET_CT_UINT_32, "INT(32,false)"},
        {CF_PARQUET_CT_UINT_64, "INT(64,false)"},
        {CF_PARQUET_CT_TIME_MILLIS, "TIME(MILLIS,true)"},
        {CF_PARQUET_CT_TIME_MICROS, "TIME(MICROS,true)"},
        {CF_PARQUET_CT_TIMESTAMP_MILLIS, "TIMESTAMP(MILLIS,true)"},
        {CF_PARQUET_CT_TIMESTAMP_MICROS, "TIMESTAMP(MICROS,true)"},
        {CF_PARQUET_CT_DECIMAL, "DECIMAL(9,2)"},
        {CF_PARQUET_CT_DATE, "DATE"},
        {CF_PARQUET_CT_ENUM, "ENUM"},
        {CF_PARQUET_CT_JSON, "JSON"},
        {CF_PARQUET_CT_BSON, "BSON"},
        {CF_PARQUET_CT_MAP, "MAP"},
        {CF_PARQUET_CT_LIST, "LIST"},
        {CF_PARQUET_CT_MAP_KEY_VALUE, ""},
        {CF_PARQUET_CT_INTERVAL, ""},
        {77, ""},
    };
    char buf[64];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cf_parquet_schema_element e = el("x", CF_PARQUET_INT32, 0, -1);
        e.has_converted_type = true;
        e.converted_type = cases[i].ct;
        e.has_scale = e.has_precision = true;
        e.scale = 2;
        e.precision = 9;
        cf_parquet_logical lt = cf_pq_resolve_logical(&e);
        assert_string_equal(cf_parquet_logical_str(&lt, buf, sizeof(buf)), cases[i].want);
        /* A logical type wins over the converted one; an unknown one does not. */
        e.logical.kind = CF_PARQUET_LT_TIMESTAMP;
        e.logical.unit = CF_PARQUET_NANOS;
        lt = cf_pq_resolve_logical(&e);
        assert_string_equal(cf_parquet_logical_str(&lt, buf, sizeof(buf)),
                            "TIMESTAMP(NANOS,false)");
        e.logical.kind = CF_PARQUET_LT_UNSUPPORTED;
        lt = cf_pq_resolve_logical(&e);
        assert_string_equal(cf_parquet_logical_str(&lt, buf, sizeof(buf)), cases[i].want);
    }
    assert_string_equal(cf_parquet_logical_str(&(cf_parquet_logical){.kind = 99}, buf, 64), "");
    assert_string_equal(
        cf_parquet_logical_str(&(cf_parquet_logical){.kind = CF_PARQUET_LT_UUID}, buf, 3), "UU");
    assert_null(cf_parquet_type_name(8));
    assert_null(cf_parquet_type_name(-1));
    assert_string_equal(cf_parquet_encoding_name(8), "RLE_DICTIONARY");
    assert_string_equal(cf_parquet_codec_name(7), "LZ4_RAW");
    assert_string_equal(cf_parquet_converted_name(21), "INTERVAL");
    assert_string_equal(cf_parquet_page_type_name(3), "DATA_PAGE_V2");
}

/* ---- FileMetaData and whole files --------------------------------------------------- */

typedef struct fm_opts {
    bool omit_num_rows;
    int chunk_type;   /* the chunk's physical type */
    int64_t data_off; /* data_page_offset */
    int64_t size;     /* total_compressed_size */
    int columns;      /* chunks in the row group */
    bool file_path, crypto, encryption_algorithm;
    int64_t num_rows;
    int logical_member;   /* LogicalType member on element 1 (0 = none) */
    const cf_buf *pages;  /* data bytes instead of the 16 filler bytes */
    int64_t chunk_values; /* ColumnMetaData.num_values (default num_rows) */
    int64_t dict_off;     /* dictionary_page_offset, 0 = absent */
} fm_opts;

static fm_opts fm_defaults(void)
{
    fm_opts o = {false, CF_PARQUET_INT32, 4, 10, 1, false, false, false, 5, 0, NULL, -1, 0};
    return o;
}

static void write_logical(cf_thrift_writer *w, int member)
{
    cf_thrift_write_field(w, 10, CF_TT_STRUCT);
    cf_thrift_write_struct_begin(w);
    cf_thrift_write_field(w, (int16_t)member, CF_TT_STRUCT);
    cf_thrift_write_struct_begin(w);
    if (member == CF_PARQUET_LT_TIMESTAMP || member == CF_PARQUET_LT_TIME) {
        cf_thrift_write_field_bool(w, 1, true);
        cf_thrift_write_field(w, 2, CF_TT_STRUCT);
        cf_thrift_write_struct_begin(w);
        cf_thrift_write_field(w, 2, CF_TT_STRUCT); /* MICROS */
        cf_thrift_write_struct_begin(w);
        cf_thrift_write_struct_end(w);
        cf_thrift_write_struct_end(w);
    } else if (member == CF_PARQUET_LT_INTEGER) {
        cf_thrift_write_field(w, 1, CF_TT_I8);
        cf_thrift_write_i8(w, 16);
        cf_thrift_write_field_bool(w, 2, false);
    } else if (member == CF_PARQUET_LT_DECIMAL) {
        cf_thrift_write_field_i32(w, 1, 3);
        cf_thrift_write_field_i32(w, 2, 12);
    }
    cf_thrift_write_struct_end(w);
    cf_thrift_write_struct_end(w);
}

/* A whole file: "PAR1", 16 data bytes, FileMetaData of schema { required int32 a },
 * one row group with o.columns chunks, length, "PAR1". */
static void build_file(cf_buf *f, const fm_opts *o)
{
    cf_buf_append(f, "PAR1", 4);
    if (o->pages)
        cf_buf_append(f, o->pages->data, o->pages->len);
    else
        cf_buf_append(f, "0123456789abcdef", 16);
    size_t start = f->len;
    cf_thrift_writer w;
    cf_thrift_writer_init(&w, f);
    pqt_meta_int32_a(&w, CF_PARQUET_REQUIRED);
    if (o->logical_member)
        write_logical(&w, o->logical_member);
    cf_thrift_write_struct_end(&w);
    if (!o->omit_num_rows)
        cf_thrift_write_field_i64(&w, 3, o->num_rows);
    cf_thrift_write_field(&w, 4, CF_TT_LIST);
    cf_thrift_write_list_begin(&w, CF_TT_STRUCT, 1);
    cf_thrift_write_struct_begin(&w); /* RowGroup */
    cf_thrift_write_field(&w, 1, CF_TT_LIST);
    cf_thrift_write_list_begin(&w, CF_TT_STRUCT, (uint32_t)o->columns);
    for (int c = 0; c < o->columns; c++) {
        cf_thrift_write_struct_begin(&w); /* ColumnChunk */
        if (o->file_path)
            cf_thrift_write_field_binary(&w, 1, "other.parquet", 13);
        cf_thrift_write_field_i64(&w, 2, 4);
        cf_thrift_write_field(&w, 3, CF_TT_STRUCT);
        cf_thrift_write_struct_begin(&w); /* ColumnMetaData */
        cf_thrift_write_field_i32(&w, 1, o->chunk_type);
        cf_thrift_write_field(&w, 2, CF_TT_LIST);
        cf_thrift_write_list_begin(&w, CF_TT_I32, 2);
        cf_thrift_write_i32(&w, CF_PARQUET_PLAIN);
        cf_thrift_write_i32(&w, CF_PARQUET_RLE);
        cf_thrift_write_field(&w, 3, CF_TT_LIST);
        cf_thrift_write_list_begin(&w, CF_TT_BINARY, 1);
        cf_thrift_write_binary(&w, "a", 1);
        cf_thrift_write_field_i32(&w, 4, o->pages ? CF_PARQUET_UNCOMPRESSED : CF_PARQUET_ZSTD);
        cf_thrift_write_field_i64(&w, 5, o->chunk_values >= 0 ? o->chunk_values : o->num_rows);
        cf_thrift_write_field_i64(&w, 6, 20);
        cf_thrift_write_field_i64(&w, 7, o->size);
        cf_thrift_write_field_i64(&w, 9, o->data_off);
        if (o->dict_off)
            cf_thrift_write_field_i64(&w, 11, o->dict_off);
        stats(&w, 12, 0);
        cf_thrift_write_field_i64(&w, 14, 12);
        cf_thrift_write_field_i32(&w, 15, 8);
        cf_thrift_write_struct_end(&w);
        cf_thrift_write_field_i64(&w, 4, 14); /* offset index */
        cf_thrift_write_field_i32(&w, 5, 2);
        if (o->crypto) {
            cf_thrift_write_field(&w, 8, CF_TT_STRUCT);
            cf_thrift_write_struct_begin(&w);
            cf_thrift_write_struct_end(&w);
        }
        cf_thrift_write_struct_end(&w);
    }
    cf_thrift_write_field_i64(&w, 2, 20);
    cf_thrift_write_field_i64(&w, 3, o->num_rows);
    cf_thrift_write_struct_end(&w);
    cf_thrift_write_field(&w, 5, CF_TT_LIST);
    cf_thrift_write_list_begin(&w, CF_TT_STRUCT, 1);
    cf_thrift_write_struct_begin(&w);
    cf_thrift_write_field_binary(&w, 1, "k", 1);
    cf_thrift_write_field_binary(&w, 2, "v", 1);
    cf_thrift_write_struct_end(&w);
    cf_thrift_write_field_binary(&w, 6, "cfile test", 10);
    cf_thrift_write_field(&w, 7, CF_TT_LIST);
    cf_thrift_write_list_begin(&w, CF_TT_STRUCT, 1);
    cf_thrift_write_struct_begin(&w);
    cf_thrift_write_field(&w, 1, CF_TT_STRUCT);
    cf_thrift_write_struct_begin(&w);
    cf_thrift_write_struct_end(&w);
    cf_thrift_write_struct_end(&w);
    if (o->encryption_algorithm) {
        cf_thrift_write_field(&w, 8, CF_TT_STRUCT);
        cf_thrift_write_struct_begin(&w);
        cf_thrift_write_struct_end(&w);
    }
    cf_thrift_write_struct_end(&w);
    cf_buf_put_le32(f, (uint32_t)(f->len - start));
    cf_buf_append(f, "PAR1", 4);
}

static cf_status open_buf(cf_parquet **pq, const cf_buf *f, cf_io **io, cf_error *err)
{
    CF_ASSERT_OK(cf_io_open_mem(io, f->data, f->len, err), err);
    return cf_parquet_open(pq, *io, NULL, err);
}

static void test_metadata__file_round_trip(void **state)
{
    (void)state;
    cf_buf f;
    cf_buf_init(&f);
    fm_opts o = fm_defaults();
    o.logical_member = CF_PARQUET_LT_INTEGER;
    build_file(&f, &o);
    cf_io *io;
    cf_parquet *pq;
    cf_error err;
    CF_ASSERT_OK(open_buf(&pq, &f, &io, &err), &err);
    const cf_parquet_file_meta *m = cf_parquet_meta(pq);
    assert_int_equal(m->version, 2);
    assert_int_equal(m->schema_count, 2);
    assert_int_equal(m->num_rows, 5);
    assert_int_equal(cf_parquet_num_rows(pq), 5);
    assert_true(m->has_created_by && m->created_by.len == 10);
    assert_int_equal(m->kv_count, 1);
    assert_true(m->kv[0].has_value && m->kv[0].value.data[0] == 'v');
    assert_true(m->has_column_orders && m->column_order_count == 1 && m->column_orders[0] == 1);
    assert_int_equal(m->row_group_count, 1);
    const cf_parquet_column_chunk *cc = &m->row_groups[0].columns[0];
    assert_true(cc->has_meta_data && cc->has_offset_index && !cc->has_column_index);
    assert_int_equal(cc->offset_index_offset, 14);
    assert_int_equal(cc->meta.codec, CF_PARQUET_ZSTD);
    assert_int_equal(cc->meta.encoding_count, 2);
    assert_int_equal(cc->meta.encodings[1], CF_PARQUET_RLE);
    assert_true(cc->meta.has_bloom_filter_offset && cc->meta.bloom_filter_offset == 12);
    assert_true(cc->meta.has_bloom_filter_length && cc->meta.bloom_filter_length == 8);
    assert_true(cc->meta.has_statistics && cc->meta.statistics.has_null_count);
    char buf[64];
    assert_string_equal(cf_parquet_logical_str(&m->schema[1].logical, buf, 64), "INT(16,false)");
    assert_int_equal(cf_parquet_column_count(pq), 1);
    assert_int_equal(cf_parquet_footer_len(pq), f.len - 28);
    cf_parquet_free(pq);
    cf_io_free(io);

    /* Logical members: TIME, DECIMAL, an unknown member id (read as none).
     * TIME(MICROS) and FLOAT16 do not fit the column's INT32: refused naming
     * what was decoded (test_pq_annotations.c). */
    int members[] = {CF_PARQUET_LT_TIME, CF_PARQUET_LT_DECIMAL, 40, CF_PARQUET_LT_FLOAT16};
    const char *want[] = {"TIME(MICROS,true)", "DECIMAL(12,3)", "", "FLOAT16"};
    for (int i = 0; i < 4; i++) {
        cf_buf_clear(&f);
        o.logical_member = members[i];
        build_file(&f, &o);
        if (members[i] == CF_PARQUET_LT_TIME || members[i] == CF_PARQUET_LT_FLOAT16) {
            char msg[80];
            snprintf(msg, sizeof msg, "%s annotation on physical type INT32", want[i]);
            CF_ASSERT_STATUS(open_buf(&pq, &f, &io, &err), CF_ECORRUPT, &err);
            assert_non_null(strstr(err.msg, msg));
            cf_io_free(io);
            continue;
        }
        CF_ASSERT_OK(open_buf(&pq, &f, &io, &err), &err);
        assert_string_equal(
            cf_parquet_logical_str(&cf_parquet_meta(pq)->schema[1].logical, buf, 64), want[i]);
        cf_parquet_free(pq);
        cf_io_free(io);
    }
    cf_buf_dispose(&f);
}

static void expect_open_error(const fm_opts *o, void (*patch)(cf_buf *), cf_status want,
                              const char *msg)
{
    cf_buf f;
    cf_buf_init(&f);
    build_file(&f, o);
    if (patch)
        patch(&f);
    cf_io *io;
    cf_parquet *pq = NULL;
    cf_error err;
    CF_ASSERT_STATUS(open_buf(&pq, &f, &io, &err), want, &err);
    if (!strstr(err.msg, msg))
        fail_msg("message '%s' lacks '%s'", err.msg, msg);
    assert_null(pq);
    cf_io_free(io);
    cf_buf_dispose(&f);
}

/* expect_open_error on the default file with one field of fm_opts changed. */
#define EXPECT_OPEN_ERROR_WITH(field, value, want, msg)                                            \
    do {                                                                                           \
        fm_opts o_ = fm_defaults();                                                                \
        o_.field = (value);                                                                        \
        expect_open_error(&o_, NULL, (want), (msg));                                               \
    } while (0)

static void head_magic(cf_buf *f)
{
    f->data[0] = 'X';
}
static void pare(cf_buf *f)
{
    memcpy(f->data + f->len - 4, "PARE", 4);
}
static void tail_magic(cf_buf *f)
{
    f->data[f->len - 1] = '2';
}
static void len_zero(cf_buf *f)
{
    memset(f->data + f->len - 8, 0, 4);
}
static void len_huge(cf_buf *f)
{
    memset(f->data + f->len - 8, 0xff, 4);
}
static void len_short(cf_buf *f)
{
    f->data[f->len - 8]--;
} /* footer starts one byte late */
/* One byte of padding after FileMetaData, counted in the length. */
static void len_long(cf_buf *f)
{
    uint8_t tail[8];
    memcpy(tail, f->data + f->len - 8, 8);
    f->data[f->len - 8] = 0;
    f->len -= 7;
    cf_buf_append(f, tail, 8);
    f->data[f->len - 8]++;
}
static void tiny(cf_buf *f)
{
    f->len = 11;
}

static void test_metadata__open_errors(void **state)
{
    (void)state;
    fm_opts d = fm_defaults();
    expect_open_error(&d, tiny, CF_ECORRUPT, "11 bytes cannot hold");
    expect_open_error(&d, head_magic, CF_ECORRUPT, "no \"PAR1\" magic at offset 0");
    expect_open_error(&d, tail_magic, CF_ECORRUPT, "no \"PAR1\" magic at the end");
    expect_open_error(&d, pare, CF_ENOTSUP, "encrypted footer");
    expect_open_error(&d, len_zero, CF_ECORRUPT, "footer length 0");
    expect_open_error(&d, len_huge, CF_ECORRUPT, "footer length 4294967295");
    expect_open_error(&d, len_short, CF_ECORRUPT, "footer at offset");
    expect_open_error(&d, len_long, CF_ECORRUPT, "FileMetaData ends after");
    EXPECT_OPEN_ERROR_WITH(omit_num_rows, true, CF_ECORRUPT,
                           "FileMetaData: required field num_rows (3) missing");
    EXPECT_OPEN_ERROR_WITH(columns, 2, CF_ECORRUPT,
                           "row group 0: 2 column chunks, the schema has 1");
    EXPECT_OPEN_ERROR_WITH(chunk_type, CF_PARQUET_INT64, CF_ECORRUPT,
                           "chunk type INT64, schema says INT32");
    EXPECT_OPEN_ERROR_WITH(data_off, 2, CF_ECORRUPT, "data page offset 2 outside the data");
    EXPECT_OPEN_ERROR_WITH(size, 17, CF_ECORRUPT,
                           "chunk at 4 of 17 bytes runs past the data (ends at 20)");
    EXPECT_OPEN_ERROR_WITH(size, -1, CF_ECORRUPT, "negative count or size");
    EXPECT_OPEN_ERROR_WITH(num_rows, -3, CF_ECORRUPT, "num_rows -3 < 0");
    EXPECT_OPEN_ERROR_WITH(file_path, true, CF_ENOTSUP,
                           "another file (file_path \"other.parquet\")");
    EXPECT_OPEN_ERROR_WITH(crypto, true, CF_ENOTSUP, "encrypted column");
    EXPECT_OPEN_ERROR_WITH(encryption_algorithm, true, CF_ENOTSUP, "encrypted columns");
    /* Exactly filling the data is fine. */
    fm_opts o = d;
    o.size = 16;
    cf_buf f;
    cf_buf_init(&f);
    build_file(&f, &o);
    cf_io *io;
    cf_parquet *pq;
    cf_error err;
    CF_ASSERT_OK(open_buf(&pq, &f, &io, &err), &err);
    cf_parquet_free(pq);
    cf_io_free(io);
    cf_buf_dispose(&f);
}

/* ---- pages and the column reader on hand-made chunks ------------------------------------- */

#include <zlib.h>

typedef struct pg {
    int type;      /* DATA_PAGE, DATA_PAGE_V2, DICTIONARY_PAGE */
    int32_t nvals; /* header num_values */
    int encoding;
    int32_t vals[4];    /* PLAIN INT32 values, or dictionary indices (bit width 8) */
    int nbody;          /* how many of vals go into the body */
    int crc;            /* 0 none, 1 right, 2 wrong */
    int32_t levels_len; /* v2: definition_levels_byte_length */
    int32_t size_delta; /* added to compressed_page_size in the header */
} pg;

static void put_page(cf_buf *b, const pg *p)
{
    cf_buf body;
    cf_buf_init(&body);
    if (p->encoding == CF_PARQUET_RLE_DICTIONARY) {
        /* bit width 8, one bit-packed run of one group of 8 */
        cf_buf_put_u8(&body, 8);
        cf_buf_put_u8(&body, 3);
        for (int i = 0; i < 8; i++)
            cf_buf_put_u8(&body, (uint8_t)(i < p->nbody ? p->vals[i] : 0));
    } else {
        for (int i = 0; i < p->nbody; i++)
            cf_buf_put_le32(&body, (uint32_t)p->vals[i]);
    }
    cf_thrift_writer w;
    cf_thrift_writer_init(&w, b);
    cf_thrift_write_struct_begin(&w);
    cf_thrift_write_field_i32(&w, 1, p->type);
    cf_thrift_write_field_i32(&w, 2, (int32_t)body.len);
    cf_thrift_write_field_i32(&w, 3, (int32_t)body.len + p->size_delta);
    if (p->crc)
        cf_thrift_write_field_i32(&w, 4,
                                  (int32_t)(crc32(0, body.data, (uInt)body.len) + (p->crc == 2)));
    int16_t fid = p->type == CF_PARQUET_DATA_PAGE         ? 5
                  : p->type == CF_PARQUET_DICTIONARY_PAGE ? 7
                                                          : 8;
    cf_thrift_write_field(&w, fid, CF_TT_STRUCT);
    cf_thrift_write_struct_begin(&w);
    cf_thrift_write_field_i32(&w, 1, p->nvals);
    if (p->type == CF_PARQUET_DATA_PAGE_V2) {
        cf_thrift_write_field_i32(&w, 2, 0);
        cf_thrift_write_field_i32(&w, 3, p->nvals);
    }
    cf_thrift_write_field_i32(&w, p->type == CF_PARQUET_DATA_PAGE_V2 ? 4 : 2, p->encoding);
    if (p->type == CF_PARQUET_DATA_PAGE) {
        cf_thrift_write_field_i32(&w, 3, CF_PARQUET_RLE);
        cf_thrift_write_field_i32(&w, 4, CF_PARQUET_RLE);
    } else if (p->type == CF_PARQUET_DATA_PAGE_V2) {
        cf_thrift_write_field_i32(&w, 5, p->levels_len);
        cf_thrift_write_field_i32(&w, 6, 0);
    }
    cf_thrift_write_struct_end(&w);
    cf_thrift_write_struct_end(&w);
    cf_buf_append(b, body.data, body.len);
    cf_buf_dispose(&body);
}

/* A file whose one chunk is `pages`; walk the pages and read the column.
 * Returns the first error; *got gets up to 8 values read. */
static cf_status read_pages(const pg *pages, int n, int64_t chunk_values, int32_t *got,
                            size_t *ngot, cf_error *err)
{
    cf_buf data, f;
    cf_buf_init(&data);
    cf_buf_init(&f);
    for (int i = 0; i < n; i++)
        put_page(&data, &pages[i]);
    fm_opts o = fm_defaults();
    o.pages = &data;
    o.size = (int64_t)data.len;
    o.chunk_values = chunk_values;
    o.num_rows = chunk_values;
    if (pages[0].type == CF_PARQUET_DICTIONARY_PAGE)
        o.dict_off = 4;
    build_file(&f, &o);
    cf_io *io;
    cf_parquet *pq = NULL;
    cf_status st = open_buf(&pq, &f, &io, err);
    *ngot = 0;
    if (st == CF_OK) {
        cf_parquet_column_reader *r = NULL;
        st = cf_parquet_column_open(&r, pq, 0, 0, err);
        while (st == CF_OK) {
            size_t nl, nv;
            st = cf_parquet_column_read(r, 8 - *ngot, NULL, NULL, got + *ngot, &nl, &nv, err);
            if (st != CF_OK || nl == 0)
                break;
            *ngot += nv;
        }
        cf_parquet_column_free(r);
    }
    cf_parquet_free(pq);
    cf_io_free(io);
    cf_buf_dispose(&data);
    cf_buf_dispose(&f);
    return st;
}

static void expect_pages_error(const pg *pages, int n, int64_t chunk_values, const char *msg)
{
    int32_t got[8];
    size_t ngot;
    cf_error err;
    CF_ASSERT_STATUS(read_pages(pages, n, chunk_values, got, &ngot, &err), CF_ECORRUPT, &err);
    if (!strstr(err.msg, msg))
        fail_msg("message '%s' lacks '%s'", err.msg, msg);
}

static void test_metadata__pages_and_columns(void **state)
{
    (void)state;
    int32_t got[8];
    size_t ngot;
    cf_error err;
    const int DP = CF_PARQUET_DATA_PAGE, V2 = CF_PARQUET_DATA_PAGE_V2,
              DICT = CF_PARQUET_DICTIONARY_PAGE, PLAIN = CF_PARQUET_PLAIN,
              RD = CF_PARQUET_RLE_DICTIONARY;
    /* Plain pages, v1 and v2, CRCs right: values come back in order. */
    pg ok[] = {{DP, 2, PLAIN, {7, 8}, 2, 1, 0, 0}, {V2, 1, PLAIN, {9}, 1, 1, 0, 0}};
    CF_ASSERT_OK(read_pages(ok, 2, 3, got, &ngot, &err), &err);
    assert_int_equal(ngot, 3);
    assert_true(got[0] == 7 && got[1] == 8 && got[2] == 9);
    /* A dictionary page, then indices into it. */
    pg dict[] = {{DICT, 3, PLAIN, {100, 200, 300}, 3, 0, 0, 0},
                 {DP, 4, RD, {2, 0, 1, 2}, 4, 1, 0, 0}};
    CF_ASSERT_OK(read_pages(dict, 2, 4, got, &ngot, &err), &err);
    assert_int_equal(ngot, 4);
    assert_true(got[0] == 300 && got[1] == 100 && got[2] == 200 && got[3] == 300);

    /* Each rule, broken once. */
    pg badcrc[] = {{DP, 2, PLAIN, {7, 8}, 2, 2, 0, 0}};
    expect_pages_error(badcrc, 1, 2, "page 0 at offset 4: page CRC-32 mismatch");
    pg toomany[] = {{DP, 3, PLAIN, {7, 8, 9}, 3, 0, 0, 0}};
    expect_pages_error(toomany, 1, 2, "3 values, more than the chunk's 2 left");
    pg toofew[] = {{DP, 2, PLAIN, {7, 8}, 2, 0, 0, 0}};
    expect_pages_error(toofew, 1, 3, "hold 1 values fewer than its num_values");
    pg late[] = {{DP, 1, PLAIN, {7}, 1, 0, 0, 0}, {DICT, 1, PLAIN, {1}, 1, 0, 0, 0}};
    expect_pages_error(late, 2, 1, "a dictionary page after the first page");
    pg levels[] = {{V2, 1, PLAIN, {9}, 1, 0, 5, 0}};
    expect_pages_error(levels, 1, 1, "levels of 0+5 bytes in a page of 4");
    pg past[] = {{DP, 1, PLAIN, {7}, 1, 0, 0, 1}};
    expect_pages_error(past, 1, 1, "5 page bytes, only 4 left in the chunk");
    pg badidx[] = {{DICT, 2, PLAIN, {100, 200}, 2, 0, 0, 0}, {DP, 2, RD, {0, 5}, 2, 0, 0, 0}};
    expect_pages_error(badidx, 2, 2, "dictionary indices");
    pg nodict[] = {{DP, 2, RD, {0, 1}, 2, 0, 0, 0}};
    expect_pages_error(nodict, 1, 2, "without a dictionary page");
    pg shortbody[] = {{DP, 3, PLAIN, {7, 8}, 2, 0, 0, 0}};
    expect_pages_error(shortbody, 1, 3, "values");
}

/* cf_parquet_pages_options: NULL means the defaults (CRCs verified), a version
 * not set by _init is refused, and verify_crc = false really skips the check:
 * a page whose stored CRC is wrong is refused by default and read without. */
static void test_metadata__pages_options(void **state)
{
    (void)state;
    cf_error err;
    pg badcrc[] = {{CF_PARQUET_DATA_PAGE, 2, CF_PARQUET_PLAIN, {7, 8}, 2, 2, 0, 0}};
    cf_buf data, f;
    cf_buf_init(&data);
    cf_buf_init(&f);
    put_page(&data, &badcrc[0]);
    fm_opts o = fm_defaults();
    o.pages = &data;
    o.size = (int64_t)data.len;
    o.chunk_values = 2;
    o.num_rows = 2;
    build_file(&f, &o);
    cf_io *io;
    cf_parquet *pq = NULL;
    CF_ASSERT_OK(open_buf(&pq, &f, &io, &err), &err);

    cf_parquet_pages_options po;
    cf_parquet_pages_options_init(&po);
    assert_int_equal(po.version, CF_PARQUET_PAGES_OPTIONS_VERSION);
    assert_true(po.verify_crc);

    cf_parquet_pages *it = (cf_parquet_pages *)&po; /* must be reset to NULL on failure */
    po.version = 0;
    CF_ASSERT_STATUS(cf_parquet_pages_open(&it, pq, 0, 0, &po, &err), CF_EINVAL, &err);
    assert_null(it);
    assert_non_null(strstr(err.msg, "cf_parquet_pages_options_init"));
    po.version = CF_PARQUET_PAGES_OPTIONS_VERSION + 1;
    CF_ASSERT_STATUS(cf_parquet_pages_open(&it, pq, 0, 0, &po, &err), CF_EINVAL, &err);

    /* Defaults (NULL, or _init untouched): the damaged CRC is refused. */
    cf_parquet_page page;
    bool has = true;
    CF_ASSERT_OK(cf_parquet_pages_open(&it, pq, 0, 0, NULL, &err), &err);
    CF_ASSERT_STATUS(cf_parquet_pages_next(it, &page, &has, &err), CF_ECORRUPT, &err);
    assert_false(has);
    assert_non_null(strstr(err.msg, "page CRC-32 mismatch"));
    cf_parquet_pages_free(it);
    cf_parquet_pages_options_init(&po);
    CF_ASSERT_OK(cf_parquet_pages_open(&it, pq, 0, 0, &po, &err), &err);
    CF_ASSERT_STATUS(cf_parquet_pages_next(it, &page, &has, &err), CF_ECORRUPT, &err);
    cf_parquet_pages_free(it);

    /* verify_crc = false: the page comes back, then *has = false (twice). */
    po.verify_crc = false;
    CF_ASSERT_OK(cf_parquet_pages_open(&it, pq, 0, 0, &po, &err), &err);
    CF_ASSERT_OK(cf_parquet_pages_next(it, &page, &has, &err), &err);
    assert_true(has);
    assert_int_equal(page.type, CF_PARQUET_DATA_PAGE);
    assert_int_equal(page.num_values, 2);
    assert_true(page.has_crc);
    assert_int_equal(page.body.len, 8);
    for (int i = 0; i < 2; i++) {
        has = true;
        CF_ASSERT_OK(cf_parquet_pages_next(it, &page, &has, &err), &err);
        assert_false(has);
    }
    cf_parquet_pages_free(it);

    cf_parquet_free(pq);
    cf_io_free(io);
    cf_buf_dispose(&data);
    cf_buf_dispose(&f);
}

/* ---- page index and bloom header --------------------------------------------------------- */

static void test_metadata__page_index(void **state)
{
    (void)state;
    cf_buf b;
    cf_buf_init(&b);
    cf_thrift_writer w;
    cf_thrift_writer_init(&w, &b);
    cf_thrift_write_struct_begin(&w); /* OffsetIndex */
    cf_thrift_write_field(&w, 1, CF_TT_LIST);
    cf_thrift_write_list_begin(&w, CF_TT_STRUCT, 2);
    for (int i = 0; i < 2; i++) {
        cf_thrift_write_struct_begin(&w);
        cf_thrift_write_field_i64(&w, 1, 4 + 100 * i);
        cf_thrift_write_field_i32(&w, 2, 100);
        cf_thrift_write_field_i64(&w, 3, 50 * i);
        cf_thrift_write_struct_end(&w);
    }
    cf_thrift_write_struct_end(&w);
    cf_error err;
    cf_thrift_reader r;
    cf_pq_offset_index oi;
    cf_thrift_reader_init(&r, b.data, b.len, 0, "offset index", &err);
    CF_ASSERT_OK(cf_pq_offset_index_decode(&r, &oi), &err);
    assert_int_equal(oi.page_count, 2);
    assert_int_equal(oi.pages[1].offset, 104);
    assert_int_equal(oi.pages[1].first_row_index, 50);
    assert_int_equal(oi.unencoded_count, 0);
    cf_thrift_reader_dispose(&r);

    for (int variant = 0; variant < 2; variant++) {
        cf_buf_clear(&b);
        cf_thrift_writer_init(&w, &b);
        cf_thrift_write_struct_begin(&w); /* ColumnIndex */
        cf_thrift_write_field(&w, 1, CF_TT_LIST);
        cf_thrift_write_list_begin(&w, CF_TT_BOOL_TRUE, 3);
        cf_thrift_write_bool(&w, false);
        cf_thrift_write_bool(&w, true);
        cf_thrift_write_bool(&w, false);
        for (int16_t fid = 2; fid <= 3; fid++) {
            cf_thrift_write_field(&w, fid, CF_TT_LIST);
            cf_thrift_write_list_begin(&w, CF_TT_BINARY, 3);
            for (int i = 0; i < 3; i++)
                cf_thrift_write_binary(&w, fid == 2 ? "a" : "z", i == 1 ? 0 : 1);
        }
        cf_thrift_write_field_i32(&w, 4, 1);
        cf_thrift_write_field(&w, 5, CF_TT_LIST);
        cf_thrift_write_list_begin(&w, CF_TT_I64, variant ? 2 : 3);
        for (int i = 0; i < (variant ? 2 : 3); i++)
            cf_thrift_write_i64(&w, i == 1 ? 50 : 0);
        cf_thrift_write_struct_end(&w);
        cf_pq_column_index ci;
        cf_thrift_reader_init(&r, b.data, b.len, 0, "column index", &err);
        if (variant == 0) {
            CF_ASSERT_OK(cf_pq_column_index_decode(&r, &ci), &err);
            assert_int_equal(ci.page_count, 3);
            assert_true(!ci.null_pages[0] && ci.null_pages[1] && !ci.null_pages[2]);
            assert_int_equal(ci.min_values[1].len, 0);
            assert_true(ci.max_values[2].len == 1 && ci.max_values[2].data[0] == 'z');
            assert_int_equal(ci.boundary_order, 1);
            assert_true(ci.has_null_counts && ci.null_counts[1] == 50);
        } else {
            CF_ASSERT_STATUS(cf_pq_column_index_decode(&r, &ci), CF_ECORRUPT, &err);
            assert_non_null(strstr(err.msg, "ColumnIndex lists disagree"));
        }
        cf_thrift_reader_dispose(&r);
    }

    /* Bloom filter header: numBytes and three unions. */
    cf_buf_clear(&b);
    cf_thrift_writer_init(&w, &b);
    cf_thrift_write_struct_begin(&w);
    cf_thrift_write_field_i32(&w, 1, 1024);
    for (int16_t fid = 2; fid <= 4; fid++) {
        cf_thrift_write_field(&w, fid, CF_TT_STRUCT);
        cf_thrift_write_struct_begin(&w);
        cf_thrift_write_field(&w, 1, CF_TT_STRUCT);
        cf_thrift_write_struct_begin(&w);
        cf_thrift_write_struct_end(&w);
        cf_thrift_write_struct_end(&w);
    }
    cf_thrift_write_struct_end(&w);
    size_t hl = b.len;
    cf_pq_bloom_header bh;
    size_t got;
    CF_ASSERT_OK(cf_pq_bloom_header_decode(&bh, &got, b.data, b.len, 0, &err), &err);
    assert_int_equal(got, hl);
    assert_int_equal(bh.num_bytes, 1024);
    assert_true(bh.algorithm == 1 && bh.hash == 1 && bh.compression == 1);
    CF_ASSERT_STATUS(cf_pq_bloom_header_decode(&bh, &got, b.data, 3, 0, &err), CF_ECORRUPT, &err);
    cf_buf_dispose(&b);
}

/* ---- real footers under damage ----------------------------------------------------------- */

static void decode_footer(const uint8_t *p, size_t n, bool *ok)
{
    cf_error err;
    cf_thrift_reader r;
    cf_parquet_file_meta m;
    cf_thrift_reader_init(&r, p, n, 0, "footer", &err);
    cf_status st = cf_pq_file_meta_decode(&r, &m);
    if (st == CF_OK) {
        cf_pq_schema s;
        if (cf_pq_schema_build(&s, m.schema, m.schema_count, &err) == CF_OK)
            cf_pq_schema_dispose(&s);
    } else {
        assert_int_equal(st, CF_ECORRUPT);
        assert_true(err.msg[0] != 0);
    }
    *ok = st == CF_OK;
    cf_thrift_reader_dispose(&r);
}

static void test_metadata__real_footers_damaged(void **state)
{
    (void)state;
    const char *cases[] = {"pt_nested_maps_snappy", "im_customer_multiblock_page_index",
                           "dk_uuid-arrow"};
    uint64_t seed = cf_test_seed(15);
    cf_rng rng;
    cf_rng_init(&rng, seed);
    for (size_t k = 0; k < 3; k++) {
        char path[2048];
        pqt_corpus_path(cases[k], path, sizeof path);
        size_t len;
        uint8_t *b = cf_test_read_file(path, &len);
        assert_non_null(b);
        uint32_t fl = (uint32_t)b[len - 8] | (uint32_t)b[len - 7] << 8 |
                      (uint32_t)b[len - 6] << 16 | (uint32_t)b[len - 5] << 24;
        const uint8_t *footer = b + len - 8 - fl;
        bool ok;
        decode_footer(footer, fl, &ok);
        assert_true(ok);
        /* Truncated at every byte: always an error (the last STOP is needed). */
        for (uint32_t cut = 0; cut < fl; cut += (fl > 4000 ? 7 : 1)) {
            uint8_t *c = malloc(cut + 1);
            memcpy(c, footer, cut);
            decode_footer(c, cut, &ok);
            assert_false(ok);
            free(c);
        }
        /* Random bit flips: decode or refuse, never crash (ASan watches). */
        uint8_t *c = malloc(fl);
        for (int i = 0; i < 2000; i++) {
            memcpy(c, footer, fl);
            for (int f = 0; f < 3; f++) {
                size_t at = (size_t)cf_rng_below(&rng, fl);
                c[at] ^= (uint8_t)(1u << cf_rng_below(&rng, 8));
            }
            decode_footer(c, fl, &ok);
        }
        free(c);
        free(b);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metadata__page_header_v1),
        cmocka_unit_test(test_metadata__page_header_errors),
        cmocka_unit_test(test_metadata__schema_tree),
        cmocka_unit_test(test_metadata__schema_errors),
        cmocka_unit_test(test_metadata__legacy_types_resolve),
        cmocka_unit_test(test_metadata__file_round_trip),
        cmocka_unit_test(test_metadata__open_errors),
        cmocka_unit_test(test_metadata__page_index),
        cmocka_unit_test(test_metadata__pages_and_columns),
        cmocka_unit_test(test_metadata__pages_options),
        cmocka_unit_test(test_metadata__real_footers_damaged),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* Parquet metadata whose fields arrive in another wire type than parquet.thrift
 * declares (seen in a parquet-mr 1.12 file). Thrift's generated readers skip
 * such a field as unknown, and so do we in every struct: the rest of the struct
 * is read, and a required field thereby missing is an error naming it. The
 * bytes are built by hand with the Thrift writer. */
#include "test_common.h"

#include <string.h>

#include <cfile/parquet.h>

#include "parquet/metadata.h"
#include "parquet/thrift.h"
#include "support_pqfile.h"

/* A field `fid` holding a list<i32> [1, 2]: the wire type that provoked
 * "expected an integer, found a list". */
static void list_field(cf_thrift_writer *w, int16_t fid)
{
    cf_thrift_write_field(w, fid, CF_TT_LIST);
    cf_thrift_write_list_begin(w, CF_TT_I32, 2);
    cf_thrift_write_i32(w, 1);
    cf_thrift_write_i32(w, 2);
}

/* PageHeader v1; `mistype` picks which field is written with a wrong type. */
static void page_header(cf_buf *b, int mistype)
{
    cf_thrift_writer w;
    cf_thrift_writer_init(&w, b);
    cf_thrift_write_struct_begin(&w);
    cf_thrift_write_field_i32(&w, 1, CF_PARQUET_DATA_PAGE);
    cf_thrift_write_field_i32(&w, 2, 100);
    if (mistype == 3)
        list_field(&w, 3); /* required compressed_page_size */
    else
        cf_thrift_write_field_i32(&w, 3, 80);
    if (mistype == 4)
        cf_thrift_write_field_binary(&w, 4, "crc!", 4); /* optional crc */
    else if (mistype == 44)
        cf_thrift_write_field_i64(&w, 4, 7); /* an i64 where an i32 is declared */
    cf_thrift_write_field(&w, 5, CF_TT_STRUCT);
    cf_thrift_write_struct_begin(&w);
    cf_thrift_write_field_i32(&w, 1, 10);
    cf_thrift_write_field_i32(&w, 2, CF_PARQUET_PLAIN);
    cf_thrift_write_field_i32(&w, 3, CF_PARQUET_RLE);
    if (mistype == 50)
        cf_thrift_write_field_bool(&w, 4, true); /* required repetition_level_encoding */
    else
        cf_thrift_write_field_i32(&w, 4, CF_PARQUET_RLE);
    if (mistype == 5)
        cf_thrift_write_field_binary(&w, 5, "stats", 5); /* statistics, a struct */
    cf_thrift_write_struct_end(&w);
    if (mistype == 7)
        cf_thrift_write_field_i32(&w, 7, 3); /* dictionary_page_header, a struct */
    cf_thrift_write_struct_end(&w);
}

static void test_pq_mistyped__page_header(void **state)
{
    (void)state;
    static const int skipped[] = {0, 4, 44, 5, 7};
    cf_buf b;
    cf_buf_init(&b);
    for (size_t i = 0; i < sizeof(skipped) / sizeof(skipped[0]); i++) {
        cf_buf_clear(&b);
        page_header(&b, skipped[i]);
        cf_pq_page_header h;
        size_t got;
        cf_error err;
        CF_ASSERT_OK(cf_pq_page_header_decode(&h, &got, b.data, b.len, 0, &err), &err);
        assert_int_equal(got, b.len);
        assert_int_equal(h.compressed_page_size, 80);
        assert_false(h.has_crc);
        assert_false(h.has_dictionary_page);
        assert_true(h.has_data_page);
        assert_int_equal(h.data_page.num_values, 10);
        assert_int_equal(h.data_page.repetition_level_encoding, CF_PARQUET_RLE);
        assert_false(h.data_page.has_statistics);
    }
    /* A required field skipped for its type is missing. */
    static const struct {
        int mistype;
        const char *msg;
    } missing[] = {
        {3, "PageHeader: required field compressed_page_size (3) missing"},
        {50, "DataPageHeader: required field repetition_level_encoding (4) missing"},
    };
    for (size_t i = 0; i < sizeof(missing) / sizeof(missing[0]); i++) {
        cf_buf_clear(&b);
        page_header(&b, missing[i].mistype);
        cf_pq_page_header h;
        size_t got;
        cf_error err;
        CF_ASSERT_STATUS(cf_pq_page_header_decode(&h, &got, b.data, b.len, 0, &err), CF_ECORRUPT,
                         &err);
        assert_non_null(strstr(err.msg, missing[i].msg));
    }
    cf_buf_dispose(&b);
}

/* FileMetaData of one INT32 column with mistyped fields at every level:
 * FileMetaData.created_by (binary) as an i32, SchemaElement.converted_type
 * (i32) as a list, ColumnMetaData.statistics (struct) as an i64,
 * ColumnChunk.file_path (binary) as a struct, KeyValue.value (binary) as a bool,
 * IntType.bitWidth (i8) as a binary inside the logical type; `drop_required`
 * also writes RowGroup.num_rows as a list. */
static void file_meta(cf_buf *b, bool drop_required)
{
    cf_thrift_writer w;
    cf_thrift_writer_init(&w, b);
    pqt_meta_int32_a(&w, CF_PARQUET_OPTIONAL);
    list_field(&w, 6);
    cf_thrift_write_field(&w, 10, CF_TT_STRUCT); /* LogicalType */
    cf_thrift_write_struct_begin(&w);
    cf_thrift_write_field(&w, 10, CF_TT_STRUCT); /* INTEGER */
    cf_thrift_write_struct_begin(&w);
    cf_thrift_write_field_binary(&w, 1, "8", 1);
    cf_thrift_write_field_i32(&w, 1, 16); /* the well-typed bitWidth */
    cf_thrift_write_field_bool(&w, 2, true);
    cf_thrift_write_struct_end(&w);
    cf_thrift_write_struct_end(&w);
    cf_thrift_write_struct_end(&w);
    cf_thrift_write_field_i64(&w, 3, 5);
    cf_thrift_write_field(&w, 4, CF_TT_LIST);
    cf_thrift_write_list_begin(&w, CF_TT_STRUCT, 1);
    cf_thrift_write_struct_begin(&w); /* RowGroup */
    cf_thrift_write_field(&w, 1, CF_TT_LIST);
    cf_thrift_write_list_begin(&w, CF_TT_STRUCT, 1);
    cf_thrift_write_struct_begin(&w); /* ColumnChunk */
    cf_thrift_write_field(&w, 1, CF_TT_STRUCT);
    cf_thrift_write_struct_begin(&w);
    cf_thrift_write_struct_end(&w);
    cf_thrift_write_field_i64(&w, 2, 4);
    cf_thrift_write_field(&w, 3, CF_TT_STRUCT); /* ColumnMetaData */
    cf_thrift_write_struct_begin(&w);
    cf_thrift_write_field_i32(&w, 1, CF_PARQUET_INT32);
    list_field(&w, 2);
    cf_thrift_write_field(&w, 3, CF_TT_LIST);
    cf_thrift_write_list_begin(&w, CF_TT_BINARY, 1);
    cf_thrift_write_binary(&w, "a", 1);
    cf_thrift_write_field_i32(&w, 4, 0);
    cf_thrift_write_field_i64(&w, 5, 5);
    cf_thrift_write_field_i64(&w, 6, 40);
    cf_thrift_write_field_i64(&w, 7, 40);
    cf_thrift_write_field_i64(&w, 9, 4);
    cf_thrift_write_field_i64(&w, 12, 99);
    cf_thrift_write_struct_end(&w);
    cf_thrift_write_struct_end(&w);
    cf_thrift_write_field_i64(&w, 2, 40);
    if (drop_required)
        list_field(&w, 3);
    else
        cf_thrift_write_field_i64(&w, 3, 5);
    cf_thrift_write_struct_end(&w);
    cf_thrift_write_field(&w, 5, CF_TT_LIST);
    cf_thrift_write_list_begin(&w, CF_TT_STRUCT, 1);
    cf_thrift_write_struct_begin(&w); /* KeyValue */
    cf_thrift_write_field_binary(&w, 1, "k", 1);
    cf_thrift_write_field_bool(&w, 2, true);
    cf_thrift_write_struct_end(&w);
    cf_thrift_write_field_i32(&w, 6, 12);
    cf_thrift_write_struct_end(&w);
}

static void test_pq_mistyped__file_meta(void **state)
{
    (void)state;
    cf_buf b;
    cf_buf_init(&b);
    file_meta(&b, false);
    cf_error err;
    cf_thrift_reader r;
    cf_thrift_reader_init(&r, b.data, b.len, 0, "footer", &err);
    cf_parquet_file_meta m;
    CF_ASSERT_OK(cf_pq_file_meta_decode(&r, &m), &err);
    assert_int_equal(cf_thrift_pos(&r), b.len);
    assert_false(m.has_created_by);
    assert_int_equal(m.schema_count, 2);
    assert_false(m.schema[1].has_converted_type);
    assert_int_equal(m.schema[1].logical.kind, CF_PARQUET_LT_INTEGER);
    assert_int_equal(m.schema[1].logical.bit_width, 16);
    assert_int_equal(m.row_group_count, 1);
    assert_int_equal(m.row_groups[0].num_rows, 5);
    const cf_parquet_column_chunk *c = &m.row_groups[0].columns[0];
    assert_false(c->has_file_path);
    assert_true(c->has_meta_data);
    assert_false(c->meta.has_statistics);
    assert_int_equal(c->meta.data_page_offset, 4);
    assert_int_equal(m.kv_count, 1);
    assert_false(m.kv[0].has_value);
    cf_thrift_reader_dispose(&r);

    cf_buf_clear(&b);
    file_meta(&b, true);
    cf_thrift_reader_init(&r, b.data, b.len, 0, "footer", &err);
    CF_ASSERT_STATUS(cf_pq_file_meta_decode(&r, &m), CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "RowGroup: required field num_rows (3) missing"));
    cf_thrift_reader_dispose(&r);
    cf_buf_dispose(&b);
}

/* Page index and bloom filter header: an optional field of the wrong type is
 * skipped, a required one is missing. */
static void test_pq_mistyped__index_and_bloom(void **state)
{
    (void)state;
    cf_buf b;
    cf_buf_init(&b);
    cf_error err;
    for (int bad_required = 0; bad_required < 2; bad_required++) {
        cf_buf_clear(&b);
        cf_thrift_writer w;
        cf_thrift_writer_init(&w, &b);
        cf_thrift_write_struct_begin(&w); /* ColumnIndex */
        cf_thrift_write_field(&w, 1, CF_TT_LIST);
        cf_thrift_write_list_begin(&w, CF_TT_BOOL_TRUE, 1);
        cf_thrift_write_bool(&w, false);
        cf_thrift_write_field(&w, 2, CF_TT_LIST);
        cf_thrift_write_list_begin(&w, CF_TT_BINARY, 1);
        cf_thrift_write_binary(&w, "a", 1);
        cf_thrift_write_field(&w, 3, CF_TT_LIST);
        cf_thrift_write_list_begin(&w, CF_TT_BINARY, 1);
        cf_thrift_write_binary(&w, "z", 1);
        if (bad_required)
            cf_thrift_write_field_binary(&w, 4, "x", 1);
        else
            cf_thrift_write_field_i32(&w, 4, 1);
        cf_thrift_write_field_i64(&w, 5, 3); /* null_counts, a list */
        cf_thrift_write_struct_end(&w);
        cf_thrift_reader r;
        cf_thrift_reader_init(&r, b.data, b.len, 0, "column index", &err);
        cf_pq_column_index ci;
        cf_status st = cf_pq_column_index_decode(&r, &ci);
        if (bad_required) {
            CF_ASSERT_STATUS(st, CF_ECORRUPT, &err);
            assert_non_null(strstr(err.msg, "ColumnIndex: required field boundary_order (4)"));
        } else {
            CF_ASSERT_OK(st, &err);
            assert_int_equal(ci.page_count, 1);
            assert_false(ci.has_null_counts);
        }
        cf_thrift_reader_dispose(&r);
    }

    cf_buf_clear(&b);
    cf_thrift_writer w;
    cf_thrift_writer_init(&w, &b);
    cf_thrift_write_struct_begin(&w); /* OffsetIndex */
    cf_thrift_write_field(&w, 1, CF_TT_LIST);
    cf_thrift_write_list_begin(&w, CF_TT_STRUCT, 1);
    cf_thrift_write_struct_begin(&w);
    cf_thrift_write_field_i64(&w, 1, 4);
    cf_thrift_write_field_i32(&w, 2, 30);
    cf_thrift_write_field_binary(&w, 3, "0", 1); /* required first_row_index */
    cf_thrift_write_field_i64(&w, 3, 0);
    cf_thrift_write_struct_end(&w);
    cf_thrift_write_field_i32(&w, 2, 9); /* unencoded_byte_array_data_bytes, a list */
    cf_thrift_write_struct_end(&w);
    cf_thrift_reader r;
    cf_thrift_reader_init(&r, b.data, b.len, 0, "offset index", &err);
    cf_pq_offset_index oi;
    CF_ASSERT_OK(cf_pq_offset_index_decode(&r, &oi), &err);
    assert_int_equal(oi.page_count, 1);
    assert_int_equal(oi.pages[0].compressed_page_size, 30);
    assert_int_equal(oi.unencoded_count, 0);
    cf_thrift_reader_dispose(&r);

    for (int bad_required = 0; bad_required < 2; bad_required++) {
        cf_buf_clear(&b);
        cf_thrift_writer_init(&w, &b);
        cf_thrift_write_struct_begin(&w); /* BloomFilterHeader */
        cf_thrift_write_field_i32(&w, 1, 32);
        for (int16_t fid = 2; fid <= 4; fid++) {
            if (bad_required && fid == 3) {
                cf_thrift_write_field_i32(&w, fid, 1);
                continue;
            }
            cf_thrift_write_field(&w, fid, CF_TT_STRUCT);
            cf_thrift_write_struct_begin(&w);
            cf_thrift_write_field_binary(&w, 1, "not a struct", 12); /* skipped member */
            cf_thrift_write_field(&w, 1, CF_TT_STRUCT);
            cf_thrift_write_struct_begin(&w);
            cf_thrift_write_struct_end(&w);
            cf_thrift_write_struct_end(&w);
        }
        cf_thrift_write_field_i32(&w, 9, 1);
        cf_thrift_write_struct_end(&w);
        cf_pq_bloom_header h;
        size_t hl;
        cf_status st = cf_pq_bloom_header_decode(&h, &hl, b.data, b.len, 0, &err);
        if (bad_required) {
            CF_ASSERT_STATUS(st, CF_ECORRUPT, &err);
            assert_non_null(strstr(err.msg, "BloomFilterHeader: required field hash (3)"));
        } else {
            CF_ASSERT_OK(st, &err);
            assert_int_equal(hl, b.len);
            assert_int_equal(h.algorithm, 1);
            assert_int_equal(h.hash, 1);
            assert_int_equal(h.compression, 1);
        }
    }
    cf_buf_dispose(&b);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pq_mistyped__page_header),
        cmocka_unit_test(test_pq_mistyped__file_meta),
        cmocka_unit_test(test_pq_mistyped__index_and_bloom),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

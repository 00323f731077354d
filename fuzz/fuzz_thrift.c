/* Fuzz the Thrift compact-protocol decoder (src/parquet/thrift.c) through the
 * Parquet structs built on it (src/parquet/metadata.c):
 *
 *   input: [opt][bytes]
 *   opt % 6: 0 FileMetaData (+ the schema tree), 1 PageHeader, 2 ColumnIndex,
 *            3 OffsetIndex, 4 BloomFilterHeader, 5 skip one struct generically
 *
 * A clean error is a pass. After success: the decoder consumed no more than it
 * was given, the arena stayed within its bound, every slice lies inside the
 * input, and list lengths agree with what the structs promise. */
/* cf-needs: parquet */
#include "fuzz.h"

#include <string.h>

#include "parquet/internal.h"
#include "parquet/metadata.h"
#include "parquet/thrift.h"

static const uint8_t *lo, *hi;

static void in_input(cf_slice s)
{
    FUZZ_REQUIRE(s.len == 0 || (s.data >= lo && s.len <= (size_t)(hi - s.data)));
}

static void check_stats(const cf_parquet_stats *s)
{
    in_input(s->min);
    in_input(s->max);
    in_input(s->min_value);
    in_input(s->max_value);
}

static void file_meta(const uint8_t *p, size_t n)
{
    cf_error err = {0};
    cf_thrift_reader r;
    cf_parquet_file_meta m;
    cf_thrift_reader_init(&r, p, n, 0, "footer", &err);
    cf_status st = cf_pq_file_meta_decode(&r, &m);
    if (st != CF_OK) {
        fuzz_require_clean_error(st, &err);
        cf_thrift_reader_dispose(&r);
        return;
    }
    FUZZ_REQUIRE(cf_thrift_pos(&r) <= n);
    FUZZ_REQUIRE(r.alloc_used <= r.alloc_limit);
    FUZZ_REQUIRE(r.depth == 0);
    for (uint32_t i = 0; i < m.schema_count; i++)
        in_input(m.schema[i].name);
    for (uint32_t g = 0; g < m.row_group_count; g++) {
        const cf_parquet_row_group *rg = &m.row_groups[g];
        for (uint32_t c = 0; c < rg->column_count; c++) {
            const cf_parquet_column_meta *cm = &rg->columns[c].meta;
            for (uint32_t k = 0; k < cm->path_len; k++)
                in_input(cm->path[k]);
            check_stats(&cm->statistics);
        }
    }
    cf_pq_schema s;
    st = cf_pq_schema_build(&s, m.schema, m.schema_count, &err);
    if (st == CF_OK) {
        for (uint32_t i = 0; i < s.column_count; i++) {
            const cf_parquet_column *col = &s.columns[i];
            FUZZ_REQUIRE(col->leaf->column == (int32_t)i);
            FUZZ_REQUIRE(col->path_len == col->leaf->depth && col->path_len >= 1);
            FUZZ_REQUIRE(col->max_rep <= col->max_def && col->max_def <= col->path_len);
            FUZZ_REQUIRE(col->path[col->path_len - 1].data == col->leaf->element->name.data);
        }
        FUZZ_REQUIRE(s.nodes[0].parent == NULL);
        cf_pq_schema_dispose(&s);
    } else {
        fuzz_require_clean_error(st, &err);
    }
    cf_thrift_reader_dispose(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    uint8_t opt = fuzz_u8(&in);
    uint8_t *p = fuzz_dup(in.data, in.size);
    size_t n = in.size;
    lo = p;
    hi = p + n;
    cf_error err = {0};
    cf_thrift_reader r;
    cf_status st;
    size_t hl = 0;
    switch (opt % 6) {
    case 0: file_meta(p, n); break;
    case 1: {
        cf_pq_page_header h;
        st = cf_pq_page_header_decode(&h, &hl, p, n, 0, &err);
        if (st == CF_OK) {
            FUZZ_REQUIRE(hl <= n);
            FUZZ_REQUIRE(h.compressed_page_size >= 0 && h.uncompressed_page_size >= 0);
            check_stats(&h.data_page.statistics);
            check_stats(&h.data_page_v2.statistics);
            if (h.type == CF_PARQUET_DATA_PAGE_V2)
                FUZZ_REQUIRE(h.data_page_v2.num_nulls <= h.data_page_v2.num_values);
        } else {
            fuzz_require_clean_error(st, &err);
        }
        break;
    }
    case 2: {
        cf_pq_column_index ci;
        cf_thrift_reader_init(&r, p, n, 0, "column index", &err);
        st = cf_pq_column_index_decode(&r, &ci);
        if (st == CF_OK) {
            for (uint32_t i = 0; i < ci.page_count; i++) {
                in_input(ci.min_values[i]);
                in_input(ci.max_values[i]);
                if (ci.has_null_counts)
                    (void)ci.null_counts[i];
                (void)ci.null_pages[i];
            }
        } else {
            fuzz_require_clean_error(st, &err);
        }
        cf_thrift_reader_dispose(&r);
        break;
    }
    case 3: {
        cf_pq_offset_index oi;
        cf_thrift_reader_init(&r, p, n, 0, "offset index", &err);
        st = cf_pq_offset_index_decode(&r, &oi);
        if (st == CF_OK) {
            FUZZ_REQUIRE(oi.unencoded_count == 0 || oi.unencoded_count == oi.page_count);
            int64_t sum = 0;
            for (uint32_t i = 0; i < oi.page_count; i++)
                sum += oi.pages[i].compressed_page_size;
            (void)sum;
        } else {
            fuzz_require_clean_error(st, &err);
        }
        cf_thrift_reader_dispose(&r);
        break;
    }
    case 4: {
        cf_pq_bloom_header bh;
        st = cf_pq_bloom_header_decode(&bh, &hl, p, n, 0, &err);
        if (st == CF_OK)
            FUZZ_REQUIRE(hl <= n && bh.num_bytes >= 0);
        else
            fuzz_require_clean_error(st, &err);
        break;
    }
    default:
        cf_thrift_reader_init(&r, p, n, 0, "struct", &err);
        st = cf_thrift_skip(&r, CF_TT_STRUCT);
        if (st == CF_OK)
            FUZZ_REQUIRE(cf_thrift_pos(&r) <= n && r.depth == 0);
        else
            fuzz_require_clean_error(st, &err);
        cf_thrift_reader_dispose(&r);
    }
    free(p);
    return 0;
}

/* Fuzz the whole Parquet reader as `parquet dump` drives it: open the file,
 * then assemble every row of every row group into nested arrays
 * (src/parquet/assemble.c over the column readers, pages, codecs and
 * decoders).
 *
 *   input: [opt][file bytes]   (the seeds of fuzz_parquet_footer fit as they are)
 *   opt bits 0-2: batch size 1, 2, 3, 7, 64, 1024, 4096 or 100000 rows
 *   opt bit 3:    project the top-level fields in reverse order
 *   opt bit 4:    read only the row range [1, 1 + rows/2) (the offset index path)
 *
 * A clean error is a pass. Every batch must be a well-formed tree: lengths
 * within the batch, list offsets starting at 0 and never decreasing, a child
 * exactly as long as its parent's last offset (or its parent, for struct
 * fields), null counts matching the validity bitmaps; and the rows must add
 * up to the file's row count (or the range) when the read ends cleanly. */
/* cf-needs: parquet */
#include "fuzz.h"

#include <stdint.h>
#include <string.h>

#include <cfile/parquet.h>

static size_t nulls_in(const cf_parquet_array *a)
{
    if (!a->validity)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < a->length; i++)
        n += !((a->validity[i / 8] >> (i % 8)) & 1);
    return n;
}

/* Depth is bounded by the schema, which open caps. */
static void check(const cf_parquet_array *a)
{
    FUZZ_REQUIRE(a->null_count == nulls_in(a));
    switch (a->kind) {
    case CF_PARQUET_ARRAY_PRIMITIVE:
        FUZZ_REQUIRE(a->child_count == 0 && a->leaf != NULL && a->column >= 0);
        if (a->value_size == 0 && a->length > 0) {
            FUZZ_REQUIRE(a->offsets != NULL && a->offsets[0] >= 0);
            for (size_t i = 0; i < a->length; i++)
                FUZZ_REQUIRE(a->offsets[i] <= a->offsets[i + 1]);
        }
        /* Touch the bytes: an array that lies about its size trips ASan. */
        if (a->length > 0 && a->value_size > 0) {
            volatile uint8_t sink = a->values[0];
            sink ^= a->values[a->length * a->value_size - 1];
            (void)sink;
        }
        break;
    case CF_PARQUET_ARRAY_STRUCT:
        for (uint32_t i = 0; i < a->child_count; i++) {
            FUZZ_REQUIRE(a->children[i]->length == a->length);
            check(a->children[i]);
        }
        break;
    case CF_PARQUET_ARRAY_LIST:
    case CF_PARQUET_ARRAY_MAP: {
        FUZZ_REQUIRE(a->child_count == 1);
        size_t end = 0;
        if (a->length > 0) {
            FUZZ_REQUIRE(a->offsets != NULL && a->offsets[0] == 0);
            for (size_t i = 0; i < a->length; i++)
                FUZZ_REQUIRE(a->offsets[i] <= a->offsets[i + 1]);
            end = (size_t)a->offsets[a->length];
        }
        FUZZ_REQUIRE(a->children[0]->length == end);
        if (a->kind == CF_PARQUET_ARRAY_MAP)
            FUZZ_REQUIRE(a->children[0]->kind == CF_PARQUET_ARRAY_STRUCT &&
                         a->children[0]->child_count == 2 && a->children[0]->null_count == 0);
        check(a->children[0]);
        break;
    }
    default: FUZZ_REQUIRE(!"unknown array kind");
    }
}

static void check_parquet(cf_parquet *pq, const fuzz_file *f, uint8_t opt)
{
    static const size_t batches[8] = {1, 2, 3, 7, 64, 1024, 4096, 100000};
    cf_error err = {0};
    cf_status st;
    cf_parquet_records_options o;
    cf_parquet_records_options_init(&o);
    o.batch_rows = batches[opt & 7];
    /* Keep one batch's memory modest: the limit is an option for this reason. */
    o.max_batch_levels = (size_t)1 << 22;
    /* One thread, or the team's path (fill and build jobs, first error wins). */
    o.threads = (opt & 32) ? 3 : 1;
    uint32_t fields[64];
    uint32_t nfields = cf_parquet_schema_root(pq)->child_count;
    if ((opt & 8) && nfields <= 64) {
        for (uint32_t i = 0; i < nfields; i++)
            fields[i] = nfields - 1 - i;
        o.fields = fields;
        o.field_count = nfields;
    }
    int64_t total = cf_parquet_num_rows(pq);
    if (opt & 16) {
        o.row_begin = 1;
        o.row_end = 1 + total / 2;
    }
    cf_parquet_records *r = NULL;
    st = cf_parquet_records_open(&r, pq, &o, &err);
    if (st != CF_OK) {
        fuzz_require_clean_error(st, &err);
    } else {
        const cf_parquet_array *schema = cf_parquet_records_schema(r);
        FUZZ_REQUIRE(schema != NULL && schema->length == 0);
        int64_t rows = 0;
        for (;;) {
            const cf_parquet_array *batch = NULL;
            st = cf_parquet_records_next(r, &batch, &err);
            if (st != CF_OK) {
                fuzz_require_clean_error(st, &err);
                break;
            }
            if (!batch) {
                int64_t want = total;
                if (opt & 16) {
                    int64_t end = o.row_end < total ? o.row_end : total;
                    want = end > o.row_begin ? end - o.row_begin : 0;
                }
                FUZZ_REQUIRE(rows == want);
                break;
            }
            FUZZ_REQUIRE(batch->kind == CF_PARQUET_ARRAY_STRUCT && batch->validity == NULL);
            FUZZ_REQUIRE(batch->length >= 1 && batch->length <= o.batch_rows);
            FUZZ_REQUIRE(batch->child_count == (o.fields ? o.field_count : nfields));
            check(batch);
            rows += (int64_t)batch->length;
        }
        cf_parquet_records_free(r);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_parquet_target(data, size, 0, check_parquet);
}

/* Fuzz reading Parquet bloom filters (src/parquet/bloom_read.c): a whole file
 * is opened and every column chunk's split-block bloom filter read.
 *
 *   input: [opt][file bytes]
 *   opt bit 0: read through an io without view_at (the pread path)
 *
 * A clean error is a pass (CF_ENOTFOUND for chunks without one). An open
 * filter must be whole 32-byte blocks lying inside the file, and probes must
 * agree with each other: by bytes = by the bytes' XXH64, by value form = by
 * the value's hash, the same answer twice. Probes use slices of the input. */
/* cf-needs: parquet */
#include "fuzz.h"

#include <string.h>

#include <cfile/parquet.h>

static void probe(const cf_parquet_bloom *b, const cf_parquet_column *col, const uint8_t *data,
                  size_t size)
{
    for (size_t i = 0; i < 16 && i < size; i++) {
        size_t len = (size - i) < 24 ? size - i : 24;
        uint64_t h = cf_parquet_xxh64(data + i, len, 0);
        bool a = cf_parquet_bloom_probe_bytes(b, data + i, len);
        FUZZ_REQUIRE(a == cf_parquet_bloom_probe_hash(b, h));
        FUZZ_REQUIRE(a == cf_parquet_bloom_probe_bytes(b, data + i, len));
        if (col->type == CF_PARQUET_BYTE_ARRAY) {
            cf_slice s = {data + i, len};
            FUZZ_REQUIRE(cf_parquet_bloom_probe(b, &s) == a);
        } else if (col->type != CF_PARQUET_BOOLEAN && len >= 16) {
            uint64_t hv = cf_parquet_bloom_hash(col->type, col->type_length, data + i);
            if (col->type != CF_PARQUET_FIXED_LEN_BYTE_ARRAY || (size_t)col->type_length <= len)
                FUZZ_REQUIRE(cf_parquet_bloom_probe(b, data + i) ==
                             cf_parquet_bloom_probe_hash(b, hv));
        }
    }
}

static void check_parquet(cf_parquet *pq, const fuzz_file *f, uint8_t opt)
{
    cf_error err = {0};
    cf_status st;
    const cf_parquet_file_meta *m = cf_parquet_meta(pq);
    for (uint32_t g = 0; g < m->row_group_count && g < 64; g++) {
        for (uint32_t c = 0; c < cf_parquet_column_count(pq) && c < 64; c++) {
            cf_parquet_bloom *b = NULL;
            st = cf_parquet_bloom_open(&b, pq, g, c, &err);
            if (st != CF_OK) {
                FUZZ_REQUIRE(b == NULL);
                if (st != CF_ENOTFOUND)
                    fuzz_require_clean_error(st, &err);
                else
                    FUZZ_REQUIRE(!m->row_groups[g].columns[c].meta.has_bloom_filter_offset);
                continue;
            }
            size_t bytes = cf_parquet_bloom_bitset_bytes(b);
            FUZZ_REQUIRE(bytes > 0 && bytes % 32 == 0);
            FUZZ_REQUIRE(cf_parquet_bloom_offset(b) >= 4);
            FUZZ_REQUIRE(cf_parquet_bloom_length(b) > bytes);
            FUZZ_REQUIRE(cf_parquet_bloom_offset(b) + cf_parquet_bloom_length(b) <= f->size - 8);
            probe(b, cf_parquet_column_at(pq, c), f->bytes, f->size);
            cf_parquet_bloom_free(b);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_parquet_target(data, size, 1, check_parquet);
}

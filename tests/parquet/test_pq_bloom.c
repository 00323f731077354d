/* Reading Parquet split-block bloom filters (cf_parquet_bloom_*): every value
 * our writer put in a chunk, and every value real writers put in theirs
 * (shared/parquet), probes "maybe present"; absent values come back
 * "absent" about as often as the false-positive rate promises; damaged
 * headers, lengths and offsets are refused naming where, and algorithms the
 * format does not define are not supported. */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/cfile.h>
#include <cfile/parquet.h>

#include "support_pqfile.h"
#include "support_pqgen.h"
#include "util/endian.h"
#include "util/int128.h"

#define ROWS 6000
#define GROUP_ROWS 2500

/* A file of columns i32, i64, s (STRING), d (DOUBLE), dec (DECIMAL128 = FLBA
 * 16), b (BOOL, never given a filter), n (INT64 without a filter); 3 row
 * groups. Values are i*7 etc. so the test knows what went in. */
static uint8_t *write_file(size_t *len, bool v2, int32_t codec)
{
    cf_parquet_write_column cols[] = {
        {.name = "i32", .type = CF_TYPE_INT32, .bloom_filter = true},
        {.name = "i64", .type = CF_TYPE_INT64, .nullable = true, .bloom_filter = true},
        {.name = "s", .type = CF_TYPE_STRING, .bloom_filter = true},
        {.name = "d", .type = CF_TYPE_DOUBLE, .bloom_filter = true},
        {.name = "dec",
         .type = CF_TYPE_DECIMAL128,
         .precision = 38,
         .scale = 2,
         .bloom_filter = true},
        {.name = "b", .type = CF_TYPE_BOOL, .bloom_filter = true},
        {.name = "n", .type = CF_TYPE_INT64},
    };
    enum { NC = sizeof cols / sizeof cols[0] };
    cf_parquet_writer_options o;
    cf_parquet_writer_options_init(&o);
    o.row_group_rows = GROUP_ROWS;
    o.page_rows = 700;
    o.data_page_v2 = v2;
    o.codec = codec;
    cf_error err = {0};
    cf_io *io = NULL;
    CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
    cf_parquet_writer *w = NULL;
    CF_ASSERT_OK(cf_parquet_writer_create(&w, io, cols, NC, &o, &err), &err);
    static int32_t i32[ROWS];
    static int64_t i64[ROWS];
    static cf_slice s[ROWS];
    static char sbuf[ROWS][16];
    static double d[ROWS];
    static cf_i128 dec[ROWS];
    static uint8_t b[ROWS], nn[ROWS / 8 + 1];
    for (size_t i = 0; i < ROWS; i++) {
        i32[i] = (int32_t)(i * 7) - 1000;
        i64[i] = (int64_t)i * 1000003;
        int n = snprintf(sbuf[i], sizeof sbuf[i], "k%zu", i % 3000);
        s[i].data = (const uint8_t *)sbuf[i];
        s[i].len = (size_t)n;
        d[i] = (double)i / 4.0;
        dec[i] = (cf_i128)i * 1000000007 - 5;
        b[i] = i & 1;
        if (i % 5 != 0)
            nn[i / 8] |= (uint8_t)(1u << (i % 8));
        else
            i64[i] = 0;
    }
    cf_batch bt[NC]; /* column 6 is REQUIRED: zeros where i64 is null are fine */
    pqg_batches(bt, NC, (const void *const[]){i32, i64, s, d, dec, b, i64});
    bt[1].nonnull = nn;
    CF_ASSERT_OK(cf_parquet_writer_append(w, bt, ROWS, &err), &err);
    return pqg_finish(w, io, len);
}

/* Every value of every chunk with a filter probes true; returns values probed. */
static uint64_t probe_all_values(const cf_parquet *pq, const char *name)
{
    const cf_parquet_file_meta *m = cf_parquet_meta(pq);
    uint64_t probed = 0;
    for (uint32_t g = 0; g < m->row_group_count; g++) {
        for (uint32_t c = 0; c < cf_parquet_column_count(pq); c++) {
            cf_error err = {0};
            cf_parquet_bloom *bf = NULL;
            cf_status st = cf_parquet_bloom_open(&bf, pq, g, c, &err);
            if (st == CF_ENOTFOUND) {
                assert_false(m->row_groups[g].columns[c].meta.has_bloom_filter_offset);
                continue;
            }
            CF_ASSERT_OK(st, &err);
            assert_true(cf_parquet_bloom_bitset_bytes(bf) % 32 == 0);
            cf_parquet_column_reader *r = NULL;
            CF_ASSERT_OK(cf_parquet_column_open(&r, pq, g, c, &err), &err);
            size_t vs = cf_parquet_column_value_size(r);
            uint8_t *vals = malloc(1024 * vs);
            for (;;) {
                size_t nl, nv;
                CF_ASSERT_OK(cf_parquet_column_read(r, 1024, NULL, NULL, vals, &nl, &nv, &err),
                             &err);
                if (nl == 0)
                    break;
                for (size_t i = 0; i < nv; i++) {
                    if (!cf_parquet_bloom_probe(bf, vals + i * vs)) {
                        fprintf(stderr, "%s: row group %u column %u: value %zu absent\n", name, g,
                                c, i);
                        fail();
                    }
                    probed++;
                }
            }
            free(vals);
            cf_parquet_column_free(r);
            cf_parquet_bloom_free(bf);
        }
    }
    return probed;
}

static void test_own_writer(void **state)
{
    (void)state;
    static const int32_t codecs[] = {CF_PARQUET_UNCOMPRESSED, CF_PARQUET_ZSTD};
    for (int v2 = 0; v2 < 2; v2++) {
        size_t len;
        uint8_t *file = write_file(&len, v2, codecs[v2]);
        cf_io *io;
        cf_parquet *pq = pqt_open_mem(file, len, &io);
        const cf_parquet_file_meta *m = cf_parquet_meta(pq);
        assert_int_equal(m->row_group_count, 3);
        /* bloom on every column but the BOOLEAN one and the one that asked for none */
        for (uint32_t g = 0; g < 3; g++)
            for (uint32_t c = 0; c < 7; c++)
                assert_int_equal(m->row_groups[g].columns[c].meta.has_bloom_filter_offset,
                                 c != 5 && c != 6);
        uint64_t n = probe_all_values(pq, "own");
        /* every non-null value of 5 columns: 6000 * 4 + 4800 */
        assert_int_equal(n, (uint64_t)ROWS * 4 + ROWS * 4 / 5);

        /* typed probes and bytes probes agree, and absent values mostly miss */
        cf_error err = {0};
        cf_parquet_bloom *bf = NULL;
        CF_ASSERT_OK(cf_parquet_bloom_open(&bf, pq, 0, 0, &err), &err); /* i32, rows 0..2499 */
        int32_t in = 7 * 10 - 1000;
        assert_true(cf_parquet_bloom_probe(bf, &in));
        uint8_t le[4];
        cf_store_le32(le, (uint32_t)in);
        assert_true(cf_parquet_bloom_probe_bytes(bf, le, 4));
        assert_true(cf_parquet_bloom_probe_hash(bf, cf_parquet_xxh64(le, 4, 0)));
        assert_true(cf_parquet_bloom_hash(CF_PARQUET_INT32, 0, &in) == cf_parquet_xxh64(le, 4, 0));
        unsigned fp = 0, tries = 20000;
        for (unsigned i = 0; i < tries; i++) {
            int32_t x = (int32_t)(i * 7) - 1000 + 3; /* never a multiple of 7 off -1000 */
            fp += cf_parquet_bloom_probe(bf, &x);
        }
        /* fpp 0.01 asked for; the bitset is rounded up, so fewer in practice */
        assert_true(fp < tries / 50);
        cf_parquet_bloom_free(bf);

        /* strings: present in the group that has them, absent for others */
        CF_ASSERT_OK(cf_parquet_bloom_open(&bf, pq, 2, 2, &err), &err);
        cf_slice sv = {(const uint8_t *)"k2100", 5}; /* rows 5000..5999: k2000..k2999 */
        assert_true(cf_parquet_bloom_probe(bf, &sv));
        fp = 0;
        for (unsigned i = 0; i < tries; i++) {
            char t[32];
            int k = snprintf(t, sizeof t, "absent-%u", i);
            fp += cf_parquet_bloom_probe_bytes(bf, t, (size_t)k);
        }
        assert_true(fp < tries / 50);
        assert_true(cf_parquet_bloom_length(bf) > cf_parquet_bloom_bitset_bytes(bf));
        cf_parquet_bloom_free(bf);

        /* no filter, and indexes out of range */
        CF_ASSERT_STATUS(cf_parquet_bloom_open(&bf, pq, 0, 6, &err), CF_ENOTFOUND, &err);
        assert_null(bf);
        CF_ASSERT_STATUS(cf_parquet_bloom_open(&bf, pq, 3, 0, &err), CF_EINVAL, &err);
        CF_ASSERT_STATUS(cf_parquet_bloom_open(&bf, pq, 0, 7, &err), CF_EINVAL, &err);
        cf_parquet_free(pq);
        cf_io_free(io);
        free(file);
    }
}

/* Damage the first filter's header in a copy of the file and expect `want`
 * with `needle` in the message. The header is (compact Thrift):
 *   15 <zigzag varint numBytes> 1c 1c 00 00 1c 1c 00 00 1c 1c 00 00 00 */
static void expect_damage(const uint8_t *file, size_t len, size_t at, uint8_t byte, cf_status want,
                          const char *needle)
{
    uint8_t *copy = malloc(len);
    memcpy(copy, file, len);
    copy[at] = byte;
    cf_io *io;
    cf_parquet *pq = pqt_open_mem(copy, len, &io);
    cf_error err = {0};
    cf_parquet_bloom *bf = NULL;
    CF_ASSERT_STATUS(cf_parquet_bloom_open(&bf, pq, 0, 0, &err), want, &err);
    assert_null(bf);
    if (!strstr(err.msg, needle)) {
        fprintf(stderr, "message '%s' lacks '%s'\n", err.msg, needle);
        fail();
    }
    cf_parquet_free(pq);
    cf_io_free(io);
    free(copy);
}

static void test_damage(void **state)
{
    (void)state;
    size_t len;
    uint8_t *file = write_file(&len, false, CF_PARQUET_SNAPPY);
    cf_io *io;
    cf_parquet *pq = pqt_open_mem(file, len, &io);
    const cf_parquet_column_meta *cm = &cf_parquet_meta(pq)->row_groups[0].columns[0].meta;
    size_t off = (size_t)cm->bloom_filter_offset;
    assert_true(cm->has_bloom_filter_length);
    cf_parquet_free(pq);
    cf_io_free(io);
    assert_int_equal(file[off], 0x15); /* field 1, i32 */
    size_t vl = 1;                     /* the numBytes varint's length */
    while (file[off + vl] & 0x80)
        vl++;
    /* numBytes (a power of two >= 32, zigzag: low 7 bits 0) + 1: not whole blocks */
    expect_damage(file, len, off + 1, (uint8_t)(file[off + 1] | 0x02), CF_ECORRUPT, "bloom");
    /* algorithm member 2 instead of BLOCK (1): field header 1c -> 2c */
    expect_damage(file, len, off + 1 + vl + 1, 0x2c, CF_ENOTSUP, "algorithm");
    /* a header that is not Thrift: field type 0x0f (not a type) */
    expect_damage(file, len, off, 0x1f, CF_ECORRUPT, "row group 0 column 0");
    free(file);
}

/* Real writers' filters: parquet-mr, DuckDB, Go, arrow-rs. */
static void test_corpus(void **state)
{
    (void)state;
    static const char *const cases[] = {
        "dk_issue6990",
        "dk_multi_bloom_a",
        "dk_uuid_v2",
        "pt_data_index_bloom_encoding_with_length",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cf_parquet *pq = pqt_corpus_file(cases[i]);
        uint64_t n = probe_all_values(pq, cases[i]);
        fprintf(stderr, "%s: %llu values maybe present\n", cases[i], (unsigned long long)n);
        assert_true(n > 0);
        cf_parquet_free(pq);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_own_writer),
        cmocka_unit_test(test_damage),
        cmocka_unit_test(test_corpus),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* Parquet page codecs (src/parquet/codec.c over src/codec): round trips for
 * every codec, sizes that disagree with the page header, truncated and
 * mutated payloads, concatenated gzip members and zlib streams, and the three
 * forms of the deprecated LZ4 codec, LZO in Hadoop's framing, and two real
 * files with the legacy LZ4 codec (apache/parquet-testing). */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <lz4frame.h>
#include <lzo1x.h>
#include <stdio.h>
#include <zlib.h>

#include <cfile/parquet.h>

#include "parquet/encoding.h"
#include "util/buf.h"
#include "util/endian.h"

static const unsigned codecs[] = {CF_PQC_UNCOMPRESSED, CF_PQC_SNAPPY, CF_PQC_GZIP,    CF_PQC_BROTLI,
                                  CF_PQC_LZ4,          CF_PQC_ZSTD,   CF_PQC_LZ4_RAW, CF_PQC_LZO};
#define NCODECS (sizeof codecs / sizeof codecs[0])

static void fill(cf_rng *r, uint8_t *p, size_t len)
{
    int mode = (int)cf_rng_below(r, 3);
    for (size_t i = 0; i < len; i++)
        p[i] = mode == 0   ? (uint8_t)cf_rng_next(r)
               : mode == 1 ? (uint8_t)("parquet pages "[i % 14])
                           : (uint8_t)(cf_rng_below(r, 7) == 0 ? cf_rng_next(r) : 0);
}

static void test_pq_codec__round_trips(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(1517));
    const size_t sizes[] = {0, 1, 7, 100, 4096, 70000, 300000};
    size_t maxn = 300000;
    uint8_t *src = malloc(maxn), *back = malloc(maxn + 1);
    cf_error err;
    cf_buf b;
    cf_buf_init(&b);
    for (size_t c = 0; c < NCODECS; c++) {
        assert_true(cf_pq_codec_supported(codecs[c]));
        assert_non_null(cf_pq_codec_name(codecs[c]));
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = sizes[s];
            fill(&r, src, n);
            cf_buf_clear(&b);
            CF_ASSERT_OK(cf_pq_compress(codecs[c], src, n, 0, &b, &err), &err);
            memset(back, 0xa5, maxn + 1);
            CF_ASSERT_OK(cf_pq_decompress(codecs[c], b.data, b.len, back, n, &err), &err);
            if (n)
                assert_memory_equal(back, src, n);
            assert_int_equal(back[n], 0xa5); /* nothing written past dst_len */
            /* the page header promising one byte more or less is damage */
            CF_ASSERT_STATUS(cf_pq_decompress(codecs[c], b.data, b.len, back, n + 1, &err),
                             CF_ECORRUPT, &err);
            if (n > 0)
                CF_ASSERT_STATUS(cf_pq_decompress(codecs[c], b.data, b.len, back, n - 1, &err),
                                 CF_ECORRUPT, &err);
            /* truncation and a flipped byte: an error or (flip only) the same
             * length of some output, never a crash or an overrun (ASan) */
            if (b.len > 1) {
                size_t cut = (size_t)cf_rng_below(&r, b.len);
                cf_status st = cf_pq_decompress(codecs[c], b.data, cut, back, n, &err);
                if (codecs[c] != CF_PQC_LZ4) /* a cut Hadoop frame can read as a raw block */
                    assert_int_not_equal(st, CF_OK);
                uint8_t *m = malloc(b.len);
                memcpy(m, b.data, b.len);
                m[cf_rng_below(&r, b.len)] ^= (uint8_t)(1 + cf_rng_below(&r, 255));
                (void)cf_pq_decompress(codecs[c], m, b.len, back, n, &err);
                free(m);
            }
        }
    }
    free(src);
    free(back);
    cf_buf_dispose(&b);
}

/* A writer's compressor (one library context for many pages) makes the
 * bytes cf_pq_compress makes with a context per call, page after page, for
 * every codec and a few levels, and the pages decode. */
static void test_pq_codec__compressor_same_bytes(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(1518));
    const size_t sizes[] = {70000, 0, 4096, 1, 300000, 100};
    const int levels[] = {0, 1, 9};
    size_t maxn = 300000;
    uint8_t *src = malloc(maxn), *back = malloc(maxn + 1);
    cf_error err;
    cf_buf a, b;
    cf_buf_init(&a);
    cf_buf_init(&b);
    for (size_t c = 0; c < NCODECS; c++) {
        for (size_t l = 0; l < 3; l++) {
            cf_pq_compressor cz;
            cf_pq_compressor_init(&cz, codecs[c], levels[l]);
            for (int round = 0; round < 2; round++) {
                for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                    size_t n = sizes[s];
                    fill(&r, src, n);
                    cf_buf_clear(&a);
                    cf_buf_clear(&b);
                    cf_buf_put_u8(&a, 0x77); /* appended after what dst holds */
                    cf_buf_put_u8(&b, 0x77);
                    CF_ASSERT_OK(cf_pq_compressor_run(&cz, src, n, &a, &err), &err);
                    CF_ASSERT_OK(cf_pq_compress(codecs[c], src, n, levels[l], &b, &err), &err);
                    CF_ASSERT_BYTES(a.data, a.len, b.data, b.len);
                    CF_ASSERT_OK(cf_pq_decompress(codecs[c], a.data + 1, a.len - 1, back, n, &err),
                                 &err);
                    if (n)
                        assert_memory_equal(back, src, n);
                }
            }
            if (codecs[c] == CF_PQC_GZIP || codecs[c] == CF_PQC_ZSTD)
                assert_true(cz.gzip != NULL || cz.zstd != NULL); /* kept, not per page */
            cf_pq_compressor_dispose(&cz);
            cf_pq_compressor_dispose(&cz); /* twice is harmless */
        }
    }
    free(src);
    free(back);
    cf_buf_dispose(&a);
    cf_buf_dispose(&b);
}

static void test_pq_codec__gzip_members_and_zlib(void **state)
{
    (void)state;
    const char *a = "first member, ", *bb = "second member";
    cf_error err;
    cf_buf b;
    cf_buf_init(&b);
    CF_ASSERT_OK(cf_pq_compress(CF_PQC_GZIP, (const uint8_t *)a, strlen(a), 0, &b, &err), &err);
    assert_int_equal(b.data[0], 0x1f); /* a gzip header, as the spec asks */
    assert_int_equal(b.data[1], 0x8b);
    CF_ASSERT_OK(cf_pq_compress(CF_PQC_GZIP, (const uint8_t *)bb, strlen(bb), 9, &b, &err), &err);
    char out[64];
    size_t total = strlen(a) + strlen(bb);
    CF_ASSERT_OK(cf_pq_decompress(CF_PQC_GZIP, b.data, b.len, (uint8_t *)out, total, &err), &err);
    assert_memory_equal(out, "first member, second member", total);
    /* garbage after a member */
    cf_buf_put_u8(&b, 0x00);
    cf_buf_put_u8(&b, 0x00);
    CF_ASSERT_STATUS(cf_pq_decompress(CF_PQC_GZIP, b.data, b.len, (uint8_t *)out, total, &err),
                     CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "not another gzip member"));
    /* a zlib stream (RFC 1950) is accepted */
    uint8_t z[128];
    uLongf zl = sizeof z;
    assert_int_equal(compress2(z, &zl, (const Bytef *)a, (uLong)strlen(a), 6), Z_OK);
    CF_ASSERT_OK(cf_pq_decompress(CF_PQC_GZIP, z, zl, (uint8_t *)out, strlen(a), &err), &err);
    assert_memory_equal(out, a, strlen(a));
    cf_buf_dispose(&b);
}

/* LZ4 (deprecated): Hadoop framing with several blocks, a bare block, a frame. */
static void test_pq_codec__lz4_forms(void **state)
{
    (void)state;
    uint8_t src[5000];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (uint8_t)(i * 7 / 13);
    cf_error err;
    uint8_t out[5000];
    /* Hadoop: two blocks of 3000 + 2000 */
    cf_buf b;
    cf_buf_init(&b);
    const size_t part[2] = {3000, 2000};
    size_t off = 0;
    for (int k = 0; k < 2; k++) {
        char tmp[LZ4_COMPRESSBOUND(3000)];
        int cn = LZ4_compress_default((const char *)src + off, tmp, (int)part[k], sizeof tmp);
        cf_buf_put_be32(&b, (uint32_t)part[k]);
        cf_buf_put_be32(&b, (uint32_t)cn);
        cf_buf_append(&b, tmp, (size_t)cn);
        off += part[k];
    }
    CF_ASSERT_OK(cf_pq_decompress(CF_PQC_LZ4, b.data, b.len, out, sizeof src, &err), &err);
    assert_memory_equal(out, src, sizeof src);
    /* our writer's form: one Hadoop block */
    cf_buf_clear(&b);
    CF_ASSERT_OK(cf_pq_compress(CF_PQC_LZ4, src, sizeof src, 0, &b, &err), &err);
    assert_int_equal(cf_load_be32(b.data), sizeof src);
    assert_int_equal(cf_load_be32(b.data + 4), b.len - 8);
    /* a raw block (old parquet-cpp) */
    char raw[LZ4_COMPRESSBOUND(5000)];
    int rn = LZ4_compress_default((const char *)src, raw, sizeof src, sizeof raw);
    memset(out, 0, sizeof out);
    CF_ASSERT_OK(cf_pq_decompress(CF_PQC_LZ4, (uint8_t *)raw, (size_t)rn, out, sizeof src, &err),
                 &err);
    assert_memory_equal(out, src, sizeof src);
    /* an LZ4 frame */
    size_t fb = LZ4F_compressFrameBound(sizeof src, NULL);
    uint8_t *fr = malloc(fb);
    size_t fn = LZ4F_compressFrame(fr, fb, src, sizeof src, NULL);
    assert_false(LZ4F_isError(fn));
    memset(out, 0, sizeof out);
    CF_ASSERT_OK(cf_pq_decompress(CF_PQC_LZ4, fr, fn, out, sizeof src, &err), &err);
    assert_memory_equal(out, src, sizeof src);
    CF_ASSERT_STATUS(cf_pq_decompress(CF_PQC_LZ4, fr, fn, out, sizeof src - 1, &err), CF_ECORRUPT,
                     &err);
    CF_ASSERT_STATUS(cf_pq_decompress(CF_PQC_LZ4, fr, fn - 3, out, sizeof src, &err), CF_ECORRUPT,
                     &err);
    free(fr);
    /* none of these */
    const uint8_t junk[] = {0xff, 0xff, 0xff, 0xff, 0xff};
    CF_ASSERT_STATUS(cf_pq_decompress(CF_PQC_LZ4, junk, sizeof junk, out, 100, &err), CF_ECORRUPT,
                     &err);
    assert_non_null(strstr(err.msg, "neither Hadoop-framed"));
    cf_buf_dispose(&b);
}

/* LZO: Hadoop framing by hand (two blocks, the second in two chunks), as
 * hadoop-lzo writes larger pages; a chunk cut or a length that lies is damage. */
static void test_pq_codec__lzo_framing(void **state)
{
    (void)state;
    assert_true(lzo_init() == LZO_E_OK);
    uint8_t src[9000];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (uint8_t)(i % 97 < 50 ? 'a' + i % 13 : i * 31);
    static uint8_t wrk[LZO1X_1_MEM_COMPRESS];
    cf_buf b;
    cf_buf_init(&b);
    /* block 1: 4000 bytes in one chunk; block 2: 5000 bytes in chunks of 3000 + 2000 */
    const size_t blocks[][3] = {{4000, 4000, 0}, {5000, 3000, 2000}};
    size_t off = 0;
    for (int k = 0; k < 2; k++) {
        cf_buf_put_be32(&b, (uint32_t)blocks[k][0]);
        for (int j = 1; j < 3 && blocks[k][j]; j++) {
            uint8_t tmp[4000 + 4000 / 16 + 64 + 3];
            lzo_uint n = sizeof tmp;
            assert_int_equal(lzo1x_1_compress(src + off, blocks[k][j], tmp, &n, wrk), LZO_E_OK);
            cf_buf_put_be32(&b, (uint32_t)n);
            cf_buf_append(&b, tmp, n);
            off += blocks[k][j];
        }
    }
    assert_int_equal(off, sizeof src);
    uint8_t out[sizeof src + 1];
    cf_error err;
    CF_ASSERT_OK(cf_pq_decompress(CF_PQC_LZO, b.data, b.len, out, sizeof src, &err), &err);
    assert_memory_equal(out, src, sizeof src);
    CF_ASSERT_STATUS(cf_pq_decompress(CF_PQC_LZO, b.data, b.len - 5, out, sizeof src, &err),
                     CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "LZO"));
    CF_ASSERT_STATUS(cf_pq_decompress(CF_PQC_LZO, b.data, b.len, out, sizeof src + 1, &err),
                     CF_ECORRUPT, &err);
    /* the first block claims more than the page holds */
    uint8_t *m = malloc(b.len);
    memcpy(m, b.data, b.len);
    cf_store_be32(m, 100000);
    CF_ASSERT_STATUS(cf_pq_decompress(CF_PQC_LZO, m, b.len, out, sizeof src, &err), CF_ECORRUPT,
                     &err);
    /* a chunk length past the end */
    memcpy(m, b.data, b.len);
    cf_store_be32(m + 4, 0x7fffffff);
    CF_ASSERT_STATUS(cf_pq_decompress(CF_PQC_LZO, m, b.len, out, sizeof src, &err), CF_ECORRUPT,
                     &err);
    free(m);
    cf_buf_dispose(&b);
}

/* Real pages of the deprecated LZ4 codec: parquet-java's Hadoop framing and
 * old parquet-cpp's raw block, from apache/parquet-testing (data/, commit
 * 1a2a751; the values are the ones its README gives). */
static void lz4_file(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/parquet/data/%s", CF_SOURCE_DIR, name);
    cf_error err = {0};
    cf_parquet *pq = NULL;
    CF_ASSERT_OK(cf_parquet_open_file(&pq, path, NULL, &err), &err);
    assert_int_equal(cf_parquet_column_count(pq), 3);
    const cf_parquet_file_meta *fm = cf_parquet_meta(pq);
    assert_int_equal(fm->row_group_count, 1);
    static const int64_t c0[] = {1593604800, 1593604800, 1593604801, 1593604801};
    static const char *const c1[] = {"abc", "def", "abc", "def"};
    static const double v11[] = {42.0, 7.7, 42.125, 7.7};
    for (uint32_t c = 0; c < 3; c++) {
        assert_int_equal(fm->row_groups[0].columns[c].meta.codec, CF_PARQUET_LZ4);
        cf_parquet_column_reader *r = NULL;
        CF_ASSERT_OK(cf_parquet_column_open(&r, pq, 0, c, &err), &err);
        uint8_t vals[16 * 8];
        size_t nl, nv, got = 0;
        for (;;) {
            CF_ASSERT_OK(cf_parquet_column_read(r, 16, NULL, NULL, vals, &nl, &nv, &err), &err);
            if (nl == 0)
                break;
            for (size_t i = 0; i < nv; i++, got++) {
                if (c == 0) {
                    int64_t x;
                    memcpy(&x, vals + 8 * i, 8);
                    assert_true(x == c0[got]);
                } else if (c == 1) {
                    cf_slice s;
                    memcpy(&s, vals + i * sizeof s, sizeof s);
                    assert_int_equal(s.len, 3);
                    assert_memory_equal(s.data, c1[got], 3);
                } else {
                    double d;
                    memcpy(&d, vals + 8 * i, 8);
                    assert_true(d == v11[got]);
                }
            }
        }
        assert_int_equal(got, 4);
        cf_parquet_column_free(r);
    }
    cf_parquet_free(pq);
}

static void test_pq_codec__lz4_real_files(void **state)
{
    (void)state;
    lz4_file("hadoop_lz4_compressed.parquet");
    lz4_file("non_hadoop_lz4_compressed.parquet");
}

static void test_pq_codec__unsupported(void **state)
{
    (void)state;
    cf_error err;
    uint8_t out[4];
    const uint8_t in[4] = {0};
    assert_true(cf_pq_codec_supported(CF_PQC_LZO));
    assert_false(cf_pq_codec_supported(8));
    assert_null(cf_pq_codec_name(8));
    CF_ASSERT_STATUS(cf_pq_decompress(99, in, 4, out, 4, &err), CF_ENOTSUP, &err);
    cf_buf b;
    cf_buf_init(&b);
    CF_ASSERT_STATUS(cf_pq_compress(99, in, 4, 0, &b, &err), CF_ENOTSUP, &err);
    cf_buf_dispose(&b);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pq_codec__round_trips),
        cmocka_unit_test(test_pq_codec__compressor_same_bytes),
        cmocka_unit_test(test_pq_codec__gzip_members_and_zlib),
        cmocka_unit_test(test_pq_codec__lz4_forms),
        cmocka_unit_test(test_pq_codec__lzo_framing),
        cmocka_unit_test(test_pq_codec__lz4_real_files),
        cmocka_unit_test(test_pq_codec__unsupported),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* Block codecs (format §5.3): the exact LZ4 and ZLIB bytes of §14.11, round
 * trips of every codec over assorted inputs, and hostile payloads (truncated,
 * bit-flipped, lying about their size) that must give CF_ECORRUPT without
 * writing past the output. */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/compress.h"
#include "util/alloc.h"

static const cf_compression codecs[] = {CF_COMP_NONE, CF_COMP_SNAPPY, CF_COMP_LZ4, CF_COMP_ZLIB};
#define NCODECS (sizeof codecs / sizeof codecs[0])

/* The 20-byte PLAIN INT32 block of §14.2. */
static const char *block_1423 = "03 00 00 00 00 00 00 00 01 00 00 00 02 00 00 00 03 00 00 00";

static void test_compress__lz4_exact_bytes(void **state)
{
    uint8_t in[20], want[18];
    assert_int_equal(cf_test_unhex(block_1423, in, sizeof in), 20);
    cf_test_unhex("22 03 00 01 00 c0 01 00 00 00 02 00 00 00 03 00 00 00", want, sizeof want);
    cf_buf out;
    cf_buf_init(&out);
    cf_error err;
    CF_ASSERT_OK(cf_codec_compress(CF_COMP_LZ4, in, 20, &out, &err), &err);
    CF_ASSERT_BYTES(out.data, out.len, want, 18);
    uint8_t back[20];
    CF_ASSERT_OK(cf_codec_decompress(CF_COMP_LZ4, want, 18, back, 20, &err), &err);
    CF_ASSERT_BYTES(back, 20, in, 20);
    cf_buf_dispose(&out);
}

static void test_compress__zlib_shape(void **state)
{
    uint8_t in[20];
    cf_test_unhex(block_1423, in, sizeof in);
    cf_buf out;
    cf_buf_init(&out);
    cf_error err;
    CF_ASSERT_OK(cf_codec_compress(CF_COMP_ZLIB, in, 20, &out, &err), &err);
    /* §14.11: 19 bytes, a zlib stream header for the default level. */
    assert_int_equal(out.len, 19);
    assert_int_equal(out.data[0], 0x78);
    assert_int_equal(out.data[1], 0x9c);
    uint8_t back[20];
    CF_ASSERT_OK(cf_codec_decompress(CF_COMP_ZLIB, out.data, out.len, back, 20, &err), &err);
    CF_ASSERT_BYTES(back, 20, in, 20);
    cf_buf_dispose(&out);
}

static void test_compress__snappy_fails_ratio_on_small_block(void **state)
{
    /* §14.11: snappy does not get this block under 0.9 * 20 = 18 bytes. */
    uint8_t in[20];
    cf_test_unhex(block_1423, in, sizeof in);
    cf_buf out;
    cf_buf_init(&out);
    CF_ASSERT_OK(cf_codec_compress(CF_COMP_SNAPPY, in, 20, &out, NULL), NULL);
    assert_true(out.len > 18);
    assert_int_equal(out.data[0], 20); /* raw snappy starts with the varint length */
    cf_buf_dispose(&out);
}

static void test_compress__appends_after_existing_bytes(void **state)
{
    uint8_t in[20];
    cf_test_unhex(block_1423, in, sizeof in);
    cf_buf out;
    cf_buf_init(&out);
    cf_buf_put_le32(&out, 20); /* the §5.1 header a caller writes first */
    CF_ASSERT_OK(cf_codec_compress(CF_COMP_LZ4, in, 20, &out, NULL), NULL);
    uint8_t want[22];
    cf_test_unhex("14 00 00 00 22 03 00 01 00 c0 01 00 00 00 02 00 00 00 03 00 00 00", want, 22);
    CF_ASSERT_BYTES(out.data, out.len, want, 22);
    cf_buf_dispose(&out);
}

/* Inputs: empty, tiny, repetitive, random, and text-like, several sizes. */
static size_t make_input(cf_rng *r, int kind, uint8_t *p, size_t cap)
{
    size_t n;
    switch (kind) {
    case 0: return 0;
    case 1: p[0] = 0x42; return 1;
    case 2:
        n = cap;
        memset(p, 0, n);
        return n;
    case 3:
        n = (size_t)cf_rng_below(r, cap + 1);
        for (size_t i = 0; i < n; i++)
            p[i] = (uint8_t)cf_rng_next(r);
        return n;
    case 4:
        n = (size_t)cf_rng_below(r, cap + 1);
        for (size_t i = 0; i < n; i++)
            p[i] = (uint8_t)("abcde fghij"[cf_rng_below(r, 11)]);
        return n;
    default:
        /* ascending int32s, like a PLAIN block */
        n = cap & ~(size_t)3;
        for (size_t i = 0; i < n; i += 4) {
            uint32_t v = (uint32_t)(i / 4);
            memcpy(p + i, &v, 4);
        }
        return n;
    }
}

static void test_compress__round_trips(void **state)
{
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0xc0de));
    const size_t caps[] = {1, 7, 100, 4096, 65536, 256 * 1024 + 3};
    const size_t maxcap = 256 * 1024 + 3;
    uint8_t *in = malloc(maxcap);
    assert_non_null(in);
    for (size_t ci = 0; ci < sizeof caps / sizeof caps[0]; ci++) {
        for (int kind = 0; kind < 6; kind++) {
            size_t n = make_input(&r, kind, in, caps[ci]);
            for (size_t c = 0; c < NCODECS; c++) {
                cf_buf out;
                cf_buf_init(&out);
                cf_error err;
                CF_ASSERT_OK(cf_codec_compress(codecs[c], in, n, &out, &err), &err);
                /* Exact-size output buffer: ASan catches any write past it. */
                uint8_t *back = malloc(n ? n : 1);
                CF_ASSERT_OK(cf_codec_decompress(codecs[c], out.data, out.len, back, n, &err),
                             &err);
                CF_ASSERT_BYTES(back, n, in, n);
                free(back);
                cf_buf_dispose(&out);
            }
        }
    }
    free(in);
}

static void test_compress__wrong_dst_len(void **state)
{
    uint8_t in[1000];
    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (uint8_t)(i % 13);
    for (size_t c = 0; c < NCODECS; c++) {
        cf_buf out;
        cf_buf_init(&out);
        CF_ASSERT_OK(cf_codec_compress(codecs[c], in, sizeof in, &out, NULL), NULL);
        const size_t lens[] = {0, 1, 999, 1001, 5000};
        for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
            uint8_t *dst = malloc(lens[k] ? lens[k] : 1);
            cf_error err;
            cf_status st = cf_codec_decompress(codecs[c], out.data, out.len, dst, lens[k], &err);
            CF_ASSERT_STATUS(st, CF_ECORRUPT, &err);
            assert_true(err.msg[0] != '\0');
            free(dst);
        }
        cf_buf_dispose(&out);
    }
}

static void test_compress__snappy_lying_length(void **state)
{
    uint8_t in[100];
    memset(in, 'x', sizeof in);
    cf_buf out;
    cf_buf_init(&out);
    CF_ASSERT_OK(cf_codec_compress(CF_COMP_SNAPPY, in, sizeof in, &out, NULL), NULL);
    assert_int_equal(out.data[0], 100);
    /* Claim 200 bytes while the caller expects 100, and the reverse. */
    out.data[0] = 200 & 0x7f;
    uint8_t dst[100];
    cf_error err;
    CF_ASSERT_STATUS(cf_codec_decompress(CF_COMP_SNAPPY, out.data, out.len, dst, 100, &err),
                     CF_ECORRUPT, &err);
    out.data[0] = 50;
    CF_ASSERT_STATUS(cf_codec_decompress(CF_COMP_SNAPPY, out.data, out.len, dst, 50, &err),
                     CF_ECORRUPT, &err);
    cf_buf_dispose(&out);
}

/* Every truncation and many bit flips of a real payload: each decode returns
 * OK (with exactly dst_len bytes) or ECORRUPT, and never touches memory past
 * the exact-size output (ASan run). */
static void test_compress__truncated_and_mutated(void **state)
{
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0xc0de));
    const size_t n = 3000;
    uint8_t *in = malloc(n);
    for (size_t i = 0; i < n; i++)
        in[i] = (uint8_t)("abcabcabd0123"[cf_rng_below(&r, 13)]);
    for (size_t c = 1; c < NCODECS; c++) {
        cf_buf out;
        cf_buf_init(&out);
        CF_ASSERT_OK(cf_codec_compress(codecs[c], in, n, &out, NULL), NULL);
        uint8_t *dst = malloc(n);
        for (size_t len = 0; len < out.len; len++) {
            uint8_t *src = cf_test_dup(out.data, len);
            cf_error err;
            cf_status st = cf_codec_decompress(codecs[c], src, len, dst, n, &err);
            /* zlib included: its adler-32 trailer must be complete too. */
            CF_ASSERT_STATUS(st, CF_ECORRUPT, &err);
            free(src);
        }
        uint8_t *src = malloc(out.len);
        for (int iter = 0; iter < 3000; iter++) {
            memcpy(src, out.data, out.len);
            int flips = 1 + (int)cf_rng_below(&r, 4);
            for (int f = 0; f < flips; f++) {
                size_t pos = (size_t)cf_rng_below(&r, out.len);
                src[pos] ^= (uint8_t)(1u << cf_rng_below(&r, 8));
            }
            cf_error err;
            cf_status st = cf_codec_decompress(codecs[c], src, out.len, dst, n, &err);
            assert_true(st == CF_OK || st == CF_ECORRUPT);
        }
        free(src);
        free(dst);
        cf_buf_dispose(&out);
    }
    free(in);
}

static void test_compress__garbage_payloads(void **state)
{
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0xc0de));
    uint8_t src[256];
    for (int iter = 0; iter < 5000; iter++) {
        size_t len = (size_t)cf_rng_below(&r, sizeof src + 1);
        for (size_t i = 0; i < len; i++)
            src[i] = (uint8_t)cf_rng_next(&r);
        size_t dst_len = (size_t)cf_rng_below(&r, 2048);
        uint8_t *dst = malloc(dst_len ? dst_len : 1);
        for (size_t c = 1; c < NCODECS; c++) {
            cf_status st = cf_codec_decompress(codecs[c], src, len, dst, dst_len, NULL);
            assert_true(st == CF_OK || st == CF_ECORRUPT);
        }
        free(dst);
    }
}

static void test_compress__none_codec(void **state)
{
    cf_buf out;
    cf_buf_init(&out);
    CF_ASSERT_OK(cf_codec_compress(CF_COMP_NONE, (const uint8_t *)"abc", 3, &out, NULL), NULL);
    CF_ASSERT_BYTES(out.data, out.len, "abc", 3);
    uint8_t dst[4];
    CF_ASSERT_STATUS(cf_codec_decompress(CF_COMP_NONE, out.data, 3, dst, 4, NULL), CF_ECORRUPT,
                     NULL);
    cf_buf_dispose(&out);
}

static void test_compress__availability_and_bad_codecs(void **state)
{
    for (size_t c = 0; c < NCODECS; c++)
        assert_true(cf_codec_available(codecs[c]));
    assert_false(cf_codec_available(CF_COMP_DEFAULT));
    assert_false(cf_codec_available((cf_compression)77));
    cf_buf out;
    cf_buf_init(&out);
    cf_error err;
    uint8_t dst[1];
    CF_ASSERT_STATUS(cf_codec_compress(CF_COMP_DEFAULT, dst, 1, &out, &err), CF_EINVAL, &err);
    CF_ASSERT_STATUS(cf_codec_compress((cf_compression)77, dst, 1, &out, &err), CF_ENOTSUP, &err);
    CF_ASSERT_STATUS(cf_codec_decompress((cf_compression)77, dst, 1, dst, 1, &err), CF_ENOTSUP,
                     &err);
    cf_buf_dispose(&out);
}

/* Each compressor (and ISA-L's inflate, which allocates its state), with
 * each of its allocations failing in turn: CF_ENOMEM with a message naming
 * what was being allocated. The output buffer starts with 0 or 60 bytes, so
 * that the first append is, or is not, the one that grows it. */
typedef struct codec_run {
    cf_test_sweep_buf b; /* first: the sweep's setup fills it */
    int which;           /* index into the list in run_codec */
    const uint8_t *src;
    size_t len;
} codec_run;

static cf_status run_codec(void *ctx, cf_error *err)
{
    codec_run *c = ctx;
    cf_buf *b = &c->b.out;
    cf_status st;
    if (c->which < (int)NCODECS) {
        st = cf_codec_compress(codecs[c->which], c->src, c->len, b, err);
    } else if (c->which == (int)NCODECS) {
        st = cf_codec_gzip_compress(NULL, c->src, c->len, 0, b, err);
    } else if (c->which == (int)NCODECS + 1) {
        st = cf_codec_zstd_compress(NULL, c->src, c->len, 0, b, err);
    } else if (c->which == (int)NCODECS + 2) {
        st = cf_codec_brotli_compress(c->src, c->len, 0, b, err);
    } else {
        size_t room = cf_codec_lzo_bound(c->len);
        uint8_t *o = malloc(room);
        assert_non_null(o);
        st = cf_codec_lzo_compress_chunk(c->src, c->len, o, &room, err);
        free(o);
    }
    cf_buf_dispose(b);
    return st;
}

typedef struct isal_run {
    const uint8_t *src;
    size_t len, out_len;
} isal_run;

static cf_status run_isal(void *ctx, cf_error *err)
{
    const isal_run *c = ctx;
    uint8_t out[4096];
    assert_true(c->out_len <= sizeof out);
    return cf_codec_zlib_inflate(CF_INFLATE_ISAL, c->src, c->len, out, c->out_len, err);
}

static void test_compress__alloc_failure(void **state)
{
    (void)state;
    static uint8_t in[4000];
    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (uint8_t)(i % 5 == 0 ? i * 7 : i / 100);
    static const char *const names[] = {"none", "snappy", "lz4",    "zlib",
                                        "gzip", "zstd",   "brotli", "lzo"};
    int failing = 0;
    for (int w = 0; w < (int)(sizeof names / sizeof names[0]); w++)
        for (size_t pre = 0; pre <= 60; pre += 60)
            for (size_t len = 0; len <= sizeof in; len += sizeof in) {
                codec_run run = {{{0}, pre}, w, in, len};
                char what[64];
                snprintf(what, sizeof what, "%s of %zu bytes after %zu", names[w], len, pre);
                failing += cf_test_alloc_sweep(what, cf_test_sweep_buf_setup, run_codec, &run, 100);
            }
    assert_true(failing >= 20);
    if (cf_codec_inflater_available(CF_INFLATE_ISAL)) {
        cf_buf z;
        cf_buf_init(&z);
        cf_error err;
        CF_ASSERT_OK(cf_codec_compress(CF_COMP_ZLIB, in, sizeof in, &z, &err), &err);
        isal_run run = {z.data, z.len, sizeof in};
        assert_int_equal(cf_test_alloc_sweep("isa-l inflate", NULL, run_isal, &run, 10), 1);
        cf_buf_dispose(&z);
    }
}

/* Hadoop's framing as HFile and Parquet write it: exact bytes of the empty
 * forms and of one snappy chunk, and LZO back through the shared reader. */
static void test_compress__hadoop_framing(void **state)
{
    (void)state;
    static const struct {
        cf_hadoop_chunk kind;
        const char *src;
        bool empty_chunk;
        const char *hex;
    } cases[] = {
        {CF_HADOOP_LZ4, "", true, "00000000 00000001 00"}, /* Parquet's empty LZ4 page */
        {CF_HADOOP_LZO, "", false, "00000000"},            /* Hadoop's empty stream */
        {CF_HADOOP_SNAPPY, "", false, "00000000"},
        {CF_HADOOP_SNAPPY, "abc", false, "00000003 00000005 0308616263"},
        {CF_HADOOP_LZ4, "abc", false, "00000003 00000004 30616263"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cf_buf b;
        cf_buf_init(&b);
        cf_error err;
        size_t n = strlen(cases[i].src);
        CF_ASSERT_OK(cf_codec_hadoop_encode(cases[i].kind, "test", (const uint8_t *)cases[i].src, n,
                                            cases[i].empty_chunk, &b, &err),
                     &err);
        uint8_t want[32];
        size_t want_len = cf_test_unhex(cases[i].hex, want, sizeof want);
        CF_ASSERT_BYTES(b.data, b.len, want, want_len);
        cf_buf_dispose(&b);
    }
    static uint8_t raw[5000], back[5000];
    for (size_t i = 0; i < sizeof raw; i++)
        raw[i] = (uint8_t)(i / 10);
    cf_buf b;
    cf_buf_init(&b);
    cf_error err;
    CF_ASSERT_OK(cf_codec_hadoop_encode(CF_HADOOP_LZO, "LZO", raw, sizeof raw, false, &b, &err),
                 &err);
    CF_ASSERT_OK(
        cf_codec_hadoop_decode("LZO", cf_codec_lzo_chunk, b.data, b.len, back, sizeof back, &err),
        &err);
    assert_memory_equal(back, raw, sizeof raw);
    cf_buf_dispose(&b);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compress__lz4_exact_bytes),
        cmocka_unit_test(test_compress__zlib_shape),
        cmocka_unit_test(test_compress__snappy_fails_ratio_on_small_block),
        cmocka_unit_test(test_compress__appends_after_existing_bytes),
        cmocka_unit_test(test_compress__round_trips),
        cmocka_unit_test(test_compress__wrong_dst_len),
        cmocka_unit_test(test_compress__snappy_lying_length),
        cmocka_unit_test(test_compress__truncated_and_mutated),
        cmocka_unit_test(test_compress__garbage_payloads),
        cmocka_unit_test(test_compress__none_codec),
        cmocka_unit_test(test_compress__availability_and_bad_codecs),
        cmocka_unit_test(test_compress__alloc_failure),
        cmocka_unit_test(test_compress__hadoop_framing),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

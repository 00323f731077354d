/* The ZLIB codec's two decoders (inflate.c): ISA-L's inflate (when built in)
 * against zlib's uncompress(), the one Kudu calls. On valid streams of every
 * level and shape, on damaged ones (bit flips, overwritten bytes, header
 * flips, truncation, trailing bytes) and on lying sizes (one short, one
 * over), both must accept the same inputs and produce the same bytes, and
 * neither may write past the output. Without ISA-L the zlib path is checked
 * against its own expectations and the ISA-L cases are skipped. */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include <cfile/cfile.h>

#include "codec/compress.h"

enum { MAX_RAW = 70000, GUARD = 64 };

static void fill(cf_rng *r, uint8_t *p, size_t n, int kind)
{
    switch (kind) {
    case 0: /* incompressible: stored blocks */
        for (size_t i = 0; i < n; i++)
            p[i] = (uint8_t)cf_rng_next(r);
        break;
    case 1: /* runs: long matches at short distances */
        for (size_t i = 0; i < n;) {
            uint8_t v = (uint8_t)cf_rng_below(r, 4);
            size_t run = 1 + cf_rng_below(r, 300);
            for (size_t j = 0; j < run && i < n; j++)
                p[i++] = v;
        }
        break;
    case 2: /* sorted little-endian int64s, as PLAIN int64 blocks are */
        for (size_t i = 0; i < n; i++)
            p[i] = (uint8_t)(((1000000007ull + (i / 8) * 13) >> (8 * (i % 8))) & 0xff);
        break;
    default: /* text-like: dynamic Huffman blocks */
        for (size_t i = 0; i < n; i++)
            p[i] = (uint8_t)('a' + cf_rng_below(r, 3 + (unsigned)cf_rng_below(r, 20)));
    }
}

/* Decode with `which` into a guarded buffer; returns 1 ok, 0 failed. */
static int run(cf_inflater which, const uint8_t *c, size_t cl, uint8_t *out, size_t ol)
{
    memset(out, 0xa5, ol + GUARD);
    cf_error err;
    cf_status st = cf_codec_zlib_inflate(which, c, cl, out, ol, &err);
    for (size_t i = 0; i < GUARD; i++)
        assert_int_equal(out[ol + i], 0xa5);
    if (st != CF_OK) {
        assert_int_equal(st, CF_ECORRUPT);
        assert_non_null(strstr(err.msg, "zlib"));
    }
    return st == CF_OK;
}

/* Both inflaters on one input; returns whether zlib accepted it. */
static int both(const uint8_t *c, size_t cl, size_t ol, uint8_t *a, uint8_t *b)
{
    int za = run(CF_INFLATE_ZLIB, c, cl, a, ol);
    if (cf_codec_inflater_available(CF_INFLATE_ISAL)) {
        int ia = run(CF_INFLATE_ISAL, c, cl, b, ol);
        if (ia != za)
            fail_msg("zlib %s, ISA-L %s a %zu-byte stream for %zu bytes",
                     za ? "accepts" : "rejects", ia ? "accepts" : "rejects", cl, ol);
        if (za)
            assert_memory_equal(a, b, ol);
    }
    /* AUTO is one of the two. */
    assert_int_equal(run(CF_INFLATE_AUTO, c, cl, b, ol), za);
    return za;
}

static void test_inflate__valid_streams(void **state)
{
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(17));
    uint8_t *raw = malloc(MAX_RAW), *a = malloc(MAX_RAW + GUARD + 8),
            *b = malloc(MAX_RAW + GUARD + 8);
    cf_buf c;
    cf_buf_init(&c);
    for (int i = 0; i < 400; i++) {
        size_t n = i < 8 ? (size_t)i : cf_rng_below(&r, i % 20 == 0 ? MAX_RAW : 4000);
        fill(&r, raw, n, i % 4);
        cf_buf_clear(&c);
        if (i % 3 == 0) { /* Kudu's level 6, through our writer's call */
            CF_ASSERT_OK(cf_codec_compress(CF_COMP_ZLIB, raw, n, &c, NULL), NULL);
        } else { /* every other level and strategy zlib can emit */
            uLongf cl = compressBound(n);
            assert_true(cf_buf_reserve(&c, cl));
            assert_int_equal(compress2(c.data, &cl, raw, n, (int)cf_rng_below(&r, 10)), Z_OK);
            c.len = cl;
        }
        assert_true(both(c.data, c.len, n, a, b));
        assert_memory_equal(a, raw, n);
    }
    cf_buf_dispose(&c);
    free(raw);
    free(a);
    free(b);
}

static void test_inflate__damaged_streams_agree(void **state)
{
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(4242));
    uint8_t *raw = malloc(MAX_RAW), *a = malloc(MAX_RAW + GUARD + 8),
            *b = malloc(MAX_RAW + GUARD + 8), *c = malloc(MAX_RAW + 1024);
    int rejected[8] = {0}, cases[8] = {0};
    for (int i = 0; i < 6000; i++) {
        size_t n = cf_rng_below(&r, i % 50 == 0 ? MAX_RAW : 3000);
        fill(&r, raw, n, (int)cf_rng_below(&r, 4));
        uLongf cl = MAX_RAW + 1000;
        assert_int_equal(compress2(c, &cl, raw, n, (int)cf_rng_below(&r, 10)), Z_OK);
        size_t len = cl, ol = n;
        int m = i % 8;
        switch (m) {
        case 0: /* one bit flipped anywhere */
            c[cf_rng_below(&r, len)] ^= (uint8_t)(1u << cf_rng_below(&r, 8));
            break;
        case 1: /* a few bytes overwritten */
            for (int k = 0; k < 3; k++)
                c[cf_rng_below(&r, len)] = (uint8_t)cf_rng_next(&r);
            break;
        case 2: /* truncated */ len = cf_rng_below(&r, len); break;
        case 3: /* claims one to three bytes fewer than the stream holds */
            if (n == 0)
                continue;
            ol = n - 1 - cf_rng_below(&r, n < 3 ? n : 3);
            if (ol == 0) /* zlib's 0-byte quirk, tested on its own below */
                continue;
            break;
        case 4: /* claims more */ ol = n + 1 + cf_rng_below(&r, 3); break;
        case 5: /* header bits (CM, CINFO, FDICT, FCHECK) */
            c[cf_rng_below(&r, 2)] ^= (uint8_t)(1u << cf_rng_below(&r, 8));
            break;
        case 6: /* Adler-32 trailer */
            c[len - 1 - cf_rng_below(&r, 4)] ^= (uint8_t)(1u << cf_rng_below(&r, 8));
            break;
        default: /* bytes after the stream's end: ignored by both */
            memset(c + len, (int)cf_rng_next(&r), 5);
            len += 5;
        }
        cases[m]++;
        rejected[m] += !both(c, len, ol, a, b);
    }
    /* The damage was real: lies, truncation and checksum flips always fail;
     * trailing bytes never do. */
    assert_int_equal(rejected[2], cases[2]);
    assert_int_equal(rejected[3], cases[3]);
    assert_int_equal(rejected[4], cases[4]);
    assert_int_equal(rejected[6], cases[6]);
    assert_int_equal(rejected[7], 0);
    assert_true(rejected[0] > cases[0] / 2);
    free(raw);
    free(a);
    free(b);
    free(c);
}

static void test_inflate__garbage_and_empty(void **state)
{
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(9));
    uint8_t c[300], a[300 + GUARD], b[300 + GUARD];
    for (int i = 0; i < 3000; i++) {
        size_t len = cf_rng_below(&r, sizeof c);
        for (size_t k = 0; k < len; k++)
            c[k] = (uint8_t)cf_rng_next(&r);
        if (i % 2 && len >= 2) { /* a valid header, garbage after */
            c[0] = 0x78;
            c[1] = 0x9c;
        }
        both(c, len, cf_rng_below(&r, 200), a, b);
    }
    /* Asked for 0 bytes: zlib accepts a stream of 0 or 1 byte (it decodes into
     * a scratch byte); AUTO keeps that, and ISA-L must too. */
    uint8_t one = 'x';
    cf_buf z;
    cf_buf_init(&z);
    CF_ASSERT_OK(cf_codec_compress(CF_COMP_ZLIB, &one, 0, &z, NULL), NULL);
    assert_true(both(z.data, z.len, 0, a, b));
    cf_buf_clear(&z);
    CF_ASSERT_OK(cf_codec_compress(CF_COMP_ZLIB, &one, 1, &z, NULL), NULL);
    assert_int_equal(run(CF_INFLATE_ZLIB, z.data, z.len, a, 0), 1);
    assert_int_equal(run(CF_INFLATE_AUTO, z.data, z.len, a, 0), 1);
    assert_int_equal(run(CF_INFLATE_ZLIB, z.data, 0, a, 0), 0);
    cf_buf_dispose(&z);
}

static void test_inflate__availability(void **state)
{
    assert_true(cf_codec_inflater_available(CF_INFLATE_ZLIB));
    assert_true(cf_codec_inflater_available(CF_INFLATE_AUTO));
    const char *name = cf_codec_inflater_name();
    assert_string_equal(name, cf_codec_inflater_available(CF_INFLATE_ISAL) ? "isa-l" : "zlib");
    assert_non_null(strstr(cf_build_features(), name));
    if (!cf_codec_inflater_available(CF_INFLATE_ISAL)) {
        uint8_t x = 0;
        cf_error err;
        CF_ASSERT_STATUS(cf_codec_zlib_inflate(CF_INFLATE_ISAL, &x, 1, &x, 1, &err), CF_ENOTSUP,
                         &err);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inflate__valid_streams),
        cmocka_unit_test(test_inflate__damaged_streams_agree),
        cmocka_unit_test(test_inflate__garbage_and_empty),
        cmocka_unit_test(test_inflate__availability),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* The RLE / bit-packing hybrid (format §7): the worked examples of §7.4 byte
 * for byte, Kudu's fullness measure (§8.3), run fast paths against the
 * one-value path, randomized round trips for every width, and hostile streams. */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "util/bitmap.h"
#include "util/rle.h"

static uint64_t mask_of(unsigned w)
{
    return w >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << w) - 1);
}

typedef struct seq {
    uint64_t v[700];
    size_t n;
} seq;

static void seq_add(seq *s, uint64_t v, size_t times)
{
    for (size_t i = 0; i < times; i++)
        s->v[s->n++] = v;
}

static void encode_seq(cf_rle_encoder *e, const seq *s)
{
    for (size_t i = 0; i < s->n; i++)
        cf_rle_enc_put(e, s->v[i]);
    CF_ASSERT_OK(cf_rle_enc_finish(e), NULL);
}

static void check_example(unsigned w, const seq *s, const char *hex)
{
    uint8_t want[256];
    size_t wlen = cf_test_unhex(hex, want, sizeof want);
    cf_rle_encoder e;
    cf_rle_enc_init(&e, w);
    encode_seq(&e, s);
    CF_ASSERT_BYTES(e.out.data, e.out.len, want, wlen);

    /* and back */
    uint64_t got[700];
    cf_rle_decoder d;
    cf_rle_dec_init(&d, want, wlen, w);
    assert_int_equal(cf_rle_dec_get(&d, got, 8, s->n), s->n);
    for (size_t i = 0; i < s->n; i++)
        assert_true(got[i] == (s->v[i] & mask_of(w)));
    cf_rle_enc_dispose(&e);
}

/* One worked example of format §7.4: the values as runs of (value, times),
 * ended by a run of 0 times, and the stream they encode to. */
typedef struct rle_example {
    unsigned width;
    struct {
        uint64_t v;
        size_t times;
    } runs[12];
    const char *hex;
} rle_example;

static void check_examples(const rle_example *ex, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        seq s = {.n = 0};
        for (size_t r = 0; ex[i].runs[r].times > 0; r++)
            seq_add(&s, ex[i].runs[r].v, ex[i].runs[r].times);
        check_example(ex[i].width, &s, ex[i].hex);
    }
}

static void test_rle__examples_w1(void **state)
{
    (void)state;
    static const rle_example ex[] = {
        {1, {{1, 10}}, "14 01"},
        {1, {{1, 3}}, "06 01"},
        {1, {{1, 1}}, "02 01"},
        {1, {{1, 1}, {0, 2}, {1, 1}}, "03 09"},
        {1, {{1, 2}, {0, 1}, {1, 7}}, "05 fb 03"},
        {1, {{1, 8}, {0, 1}, {1, 1}}, "10 01 03 02"},
        {1, {{1, 5}, {0, 1}, {1, 1}, {1, 20}}, "03 df 26 01"},
        {1, {{0, 3}, {1, 12}}, "05 f8 7f"},
        {1, {{0, 8}, {1, 12}}, "10 00 18 01"},
    };
    check_examples(ex, sizeof ex / sizeof ex[0]);

    seq s = {.n = 0};
    for (int i = 0; i < 600; i++)
        seq_add(&s, (uint64_t)(i & 1), 1);
    char hex[400];
    size_t o = 0;
    hex[o++] = '7';
    hex[o++] = 'f';
    for (int i = 0; i < 63; i++) {
        hex[o++] = 'a';
        hex[o++] = 'a';
    }
    hex[o++] = '1';
    hex[o++] = '9';
    for (int i = 0; i < 12; i++) {
        hex[o++] = 'a';
        hex[o++] = 'a';
    }
    hex[o] = '\0';
    check_example(1, &s, hex);
}

static void test_rle__examples_w16_w32(void **state)
{
    (void)state;
    static const rle_example ex[] = {
        {16,
         {{2, 1}, {0, 2}, {2, 1}, {4, 1}, {1, 2}},
         "03 02 00 00 00 00 00 02 00 04 00 01 00 01 00"},
        {16, {{10, 1}}, "02 0a 00"},
        {16, {{3, 300}}, "d8 04 03 00"},
        {32, {{5, 7}}, "0e 05 00 00 00"},
        {32, {{1, 1}, {2, 1}, {3, 1}}, "03 01 00 00 00 02 00 00 00 03 00 00 00"},
        {32,
         {{1, 1}, {2, 1}, {3, 1}, {4, 1}, {5, 1}, {6, 1}, {7, 1}, {8, 1}, {9, 10}},
         "03 01000000 02000000 03000000 04000000 05000000 06000000 07000000 08000000"
         " 14 09000000"},
        {32, {{(uint64_t)-1, 10}}, "14 ff ff ff ff"},
    };
    check_examples(ex, sizeof ex / sizeof ex[0]);
}

static void test_rle__empty_stream(void **state)
{
    (void)state;
    cf_rle_encoder e;
    cf_rle_enc_init(&e, 1);
    CF_ASSERT_OK(cf_rle_enc_finish(&e), NULL);
    assert_int_equal(e.out.len, 0);
    cf_rle_enc_dispose(&e);

    cf_rle_decoder d;
    uint8_t v[4];
    cf_rle_dec_init(&d, NULL, 0, 8);
    assert_int_equal(cf_rle_dec_get(&d, v, 1, 4), 0);
}

/* Kudu's "bytes emitted": neither buffered values nor an open repeated run
 * count; a reserved literal indicator and whole literal groups do. */
static void test_rle__emitted_len(void **state)
{
    (void)state;
    cf_rle_encoder e;
    cf_rle_enc_init(&e, 1);
    for (int i = 0; i < 7; i++)
        cf_rle_enc_put(&e, (uint64_t)(i & 1));
    assert_int_equal(cf_rle_enc_emitted_len(&e), 0); /* 7 buffered */
    cf_rle_enc_put(&e, 1);
    assert_int_equal(cf_rle_enc_emitted_len(&e), 2); /* indicator + one literal byte */
    cf_rle_enc_put_run(&e, 1, 1000);
    /* the first 8 ones made a group that became a repeated run; the literal
     * indicator got closed, but the run itself is not emitted yet */
    assert_int_equal(cf_rle_enc_emitted_len(&e), 2);
    cf_rle_enc_put(&e, 0);
    assert_int_equal(cf_rle_enc_emitted_len(&e), 2 + 2 + 1); /* varint(1000<<1) is 2 bytes */
    CF_ASSERT_OK(cf_rle_enc_finish(&e), NULL);
    assert_int_equal(e.out.len, 2 + 3 + 2);

    /* A header written right after reset counts too. */
    cf_rle_enc_reset(&e);
    cf_buf_put_le64(&e.out, 0);
    assert_int_equal(cf_rle_enc_emitted_len(&e), 8);
    cf_rle_enc_put_run(&e, 1, 5);
    assert_int_equal(cf_rle_enc_emitted_len(&e), 8);
    CF_ASSERT_OK(cf_rle_enc_finish(&e), NULL);
    uint8_t want[] = {0, 0, 0, 0, 0, 0, 0, 0, 0x0a, 0x01};
    CF_ASSERT_BYTES(e.out.data, e.out.len, want, sizeof want);
    cf_rle_enc_dispose(&e);

    /* Width 32: literal groups are emitted 32 bytes at a time. */
    cf_rle_enc_init(&e, 32);
    for (uint64_t v = 0; v < 16; v++)
        cf_rle_enc_put(&e, v);
    assert_int_equal(cf_rle_enc_emitted_len(&e), 1 + 64);
    cf_rle_enc_dispose(&e);
}

/* put_run(v, n) must produce exactly the bytes of n put(v) calls. */
static void test_rle__put_run_matches_put(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(1));
    const unsigned widths[] = {1, 3, 8, 13, 16, 32, 33, 63, 64};
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
        unsigned w = widths[wi];
        for (int iter = 0; iter < 40; iter++) {
            cf_rle_encoder a, b;
            cf_rle_enc_init(&a, w);
            cf_rle_enc_init(&b, w);
            int runs = 1 + (int)cf_rng_below(&r, 60);
            for (int k = 0; k < runs; k++) {
                uint64_t v = cf_rng_below(&r, 3) == 0 ? cf_rng_next(&r) : cf_rng_below(&r, 3);
                size_t n = cf_rng_below(&r, 4) == 0 ? cf_rng_below(&r, 300) : cf_rng_below(&r, 12);
                cf_rle_enc_put_run(&a, v, n);
                for (size_t i = 0; i < n; i++)
                    cf_rle_enc_put(&b, v);
                assert_int_equal(cf_rle_enc_emitted_len(&a), cf_rle_enc_emitted_len(&b));
            }
            CF_ASSERT_OK(cf_rle_enc_finish(&a), NULL);
            CF_ASSERT_OK(cf_rle_enc_finish(&b), NULL);
            CF_ASSERT_BYTES(a.out.data, a.out.len, b.out.data, b.out.len);
            cf_rle_enc_dispose(&a);
            cf_rle_enc_dispose(&b);
        }
    }
}

static void test_rle__long_run_is_fast(void **state)
{
    (void)state;
    cf_rle_encoder e;
    cf_rle_enc_init(&e, 1);
    for (int i = 0; i < 1000; i++)
        cf_rle_enc_put_run(&e, 1, 1000000); /* a billion rows */
    CF_ASSERT_OK(cf_rle_enc_finish(&e), NULL);
    uint8_t want[6];
    size_t n = 0;
    uint64_t ind = 1000000000ull << 1;
    while (ind >= 0x80) {
        want[n++] = (uint8_t)(ind | 0x80);
        ind >>= 7;
    }
    want[n++] = (uint8_t)ind;
    want[n++] = 1;
    CF_ASSERT_BYTES(e.out.data, e.out.len, want, n);

    cf_rle_decoder d;
    cf_rle_dec_init(&d, e.out.data, e.out.len, 1);
    size_t nz = 0;
    assert_int_equal(cf_rle_dec_skip(&d, 999999990, &nz), 999999990);
    assert_int_equal(nz, 999999990);
    uint8_t bm[2] = {0, 0};
    assert_int_equal(cf_rle_dec_get_bits(&d, bm, 3, 10), 10);
    assert_int_equal(bm[0], 0xf8);
    assert_int_equal(bm[1], 0x1f);
    assert_int_equal(cf_rle_dec_get_bits(&d, bm, 0, 1), 0);
    cf_rle_enc_dispose(&e);
}

/* Random sequences with runs of every length; every width 1..64. */
static void gen_values(cf_rng *r, uint64_t *v, size_t n, unsigned w)
{
    size_t i = 0;
    while (i < n) {
        uint64_t x;
        switch (cf_rng_below(r, 3)) {
        case 0: x = cf_rng_next(r); break;
        case 1: x = cf_rng_below(r, 2); break;
        default: x = cf_rng_below(r, 5); break;
        }
        x &= mask_of(w);
        size_t len = cf_rng_below(r, 5) == 0 ? 1 + cf_rng_below(r, 100) : 1 + cf_rng_below(r, 3);
        for (size_t k = 0; k < len && i < n; k++)
            v[i++] = x;
    }
}

/* n values from gen_values, encoded at width w into e (finished; the caller
 * disposes it). */
static void encode_random(cf_rng *r, uint64_t *v, size_t n, unsigned w, cf_rle_encoder *e)
{
    gen_values(r, v, n, w);
    cf_rle_enc_init(e, w);
    for (size_t i = 0; i < n; i++)
        cf_rle_enc_put(e, v[i]);
    CF_ASSERT_OK(cf_rle_enc_finish(e), NULL);
}

/* A malloc'd buffer of up to max - 1 random bytes (its length in *len), each
 * masked with `mask`: hostile input for the decoders. */
static uint8_t *random_stream(cf_rng *r, size_t max, uint8_t mask, size_t *len)
{
    *len = (size_t)cf_rng_below(r, max);
    uint8_t *buf = malloc(*len ? *len : 1);
    assert_non_null(buf);
    for (size_t i = 0; i < *len; i++)
        buf[i] = (uint8_t)cf_rng_next(r) & mask;
    return buf;
}

static void test_rle__round_trip_all_widths(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(1) + 2);
    enum { N = 3000 };
    uint64_t *v = malloc(N * sizeof *v), *got = malloc(N * sizeof *got);
    uint8_t *bm = malloc(N / 8 + 2);
    for (unsigned w = 1; w <= 64; w++) {
        for (int iter = 0; iter < 6; iter++) {
            size_t n = (size_t)cf_rng_below(&r, N) + 1;
            cf_rle_encoder e;
            encode_random(&r, v, n, w, &e);

            /* Whole decode, in uneven batches, into 8-byte values. */
            cf_rle_decoder d;
            cf_rle_dec_init(&d, e.out.data, e.out.len, w);
            size_t done = 0;
            while (done < n) {
                size_t want = 1 + (size_t)cf_rng_below(&r, 50);
                if (want > n - done)
                    want = n - done;
                assert_int_equal(cf_rle_dec_get(&d, got + done, 8, want), want);
                done += want;
            }
            for (size_t i = 0; i < n; i++)
                assert_true(got[i] == v[i]);

            /* Narrow destinations (truncating) for byte-multiple widths. */
            if (w % 8 == 0 && w <= 32) {
                size_t es = w / 8;
                uint8_t *buf = malloc(n * es);
                cf_rle_dec_init(&d, e.out.data, e.out.len, w);
                assert_int_equal(cf_rle_dec_get(&d, buf, es, n), n);
                for (size_t i = 0; i < n; i++) {
                    uint64_t x = 0;
                    memcpy(&x, buf + i * es, es);
                    assert_true(x == v[i]);
                }
                free(buf);
            }

            /* Skip + get: skipped non-zero count must match. */
            size_t at = (size_t)cf_rng_below(&r, n + 1);
            size_t nz_want = 0;
            for (size_t i = 0; i < at; i++)
                nz_want += v[i] != 0;
            size_t nz = 12345;
            cf_rle_dec_init(&d, e.out.data, e.out.len, w);
            assert_int_equal(cf_rle_dec_skip(&d, at, &nz), at);
            assert_int_equal(nz, nz_want);
            if (at < n) {
                assert_int_equal(cf_rle_dec_get(&d, got, 8, n - at), n - at);
                for (size_t i = at; i < n; i++)
                    assert_true(got[i - at] == v[i]);
            }
            /* Past the end: nothing more (the partial last group's padding
             * may read as zeros, but never beyond its claimed groups). */
            assert_true(cf_rle_dec_get(&d, got, 8, 16) < 8);

            /* Bits, at an odd offset. */
            memset(bm, 0xa5, N / 8 + 2);
            cf_rle_dec_init(&d, e.out.data, e.out.len, w);
            size_t off = 3;
            size_t first = n / 3;
            assert_int_equal(cf_rle_dec_get_bits(&d, bm, off, first), first);
            assert_int_equal(cf_rle_dec_get_bits(&d, bm, off + first, n - first), n - first);
            for (size_t i = 0; i < n; i++)
                assert_int_equal(cf_bitmap_get(bm, off + i), v[i] != 0);
            cf_rle_enc_dispose(&e);
        }
    }
    free(v);
    free(got);
    free(bm);
}

/* Bool fast path: bytes 0/1 out of literal runs, at every phase. */
static void test_rle__bool_bytes(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(1) + 3);
    enum { N = 2000 };
    uint8_t v[N], got[N];
    for (size_t i = 0; i < N; i++)
        v[i] = (uint8_t)cf_rng_below(&r, 2);
    cf_rle_encoder e;
    cf_rle_enc_init(&e, 1);
    for (size_t i = 0; i < N; i++)
        cf_rle_enc_put(&e, v[i]);
    CF_ASSERT_OK(cf_rle_enc_finish(&e), NULL);
    for (size_t step = 1; step < 20; step++) {
        cf_rle_decoder d;
        cf_rle_dec_init(&d, e.out.data, e.out.len, 1);
        for (size_t done = 0; done < N;) {
            size_t k = step < N - done ? step : N - done;
            assert_int_equal(cf_rle_dec_get(&d, got + done, 1, k), k);
            done += k;
        }
        assert_memory_equal(got, v, N);
    }
    cf_rle_enc_dispose(&e);
}

/* Streams the grammar allows that Kudu never writes. */
static void test_rle__decoder_accepts_grammar(void **state)
{
    (void)state;
    uint8_t got[64];
    cf_rle_decoder d;
    /* repeated run of 1, two adjacent equal runs, an empty repeated run and an
     * empty literal run, a literal run of 1 group with width 8 */
    const uint8_t s[] = {0x02, 0x07, 0x04, 0x07, 0x04, 0x07, 0x00, 0x09, 0x01,
                         0x03, 1,    2,    3,    4,    5,    6,    7,    8};
    cf_rle_dec_init(&d, s, sizeof s, 8);
    assert_int_equal(cf_rle_dec_get(&d, got, 1, 64), 13);
    const uint8_t want[] = {7, 7, 7, 7, 7, 1, 2, 3, 4, 5, 6, 7, 8};
    assert_memory_equal(got, want, 13);

    /* a repeated bitmap byte other than 1 means true */
    const uint8_t b[] = {0x06, 0x80};
    cf_rle_dec_init(&d, b, sizeof b, 1);
    assert_int_equal(cf_rle_dec_get(&d, got, 1, 64), 3);
    assert_int_equal(got[0], 1);
    assert_int_equal(got[2], 1);

    /* a literal run of 100 groups (more than Kudu's 63) */
    uint8_t big[2 + 100];
    big[0] = (uint8_t)(((100 << 1) | 1) | 0x80);
    big[1] = (uint8_t)(((100 << 1) | 1) >> 7);
    memset(big + 2, 0xff, 100);
    cf_rle_dec_init(&d, big, sizeof big, 1);
    size_t nz = 0;
    assert_int_equal(cf_rle_dec_skip(&d, 1000, &nz), 800);
    assert_int_equal(nz, 800);
}

static void test_rle__decoder_hostile(void **state)
{
    (void)state;
    uint64_t got[64];
    cf_rle_decoder d;
    /* truncated varint */
    const uint8_t t1[] = {0x80, 0x80};
    cf_rle_dec_init(&d, t1, sizeof t1, 8);
    assert_int_equal(cf_rle_dec_get(&d, got, 8, 4), 0);
    /* over-long varint (6 bytes) */
    const uint8_t t2[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x02, 0x01};
    cf_rle_dec_init(&d, t2, sizeof t2, 8);
    assert_int_equal(cf_rle_dec_get(&d, got, 8, 4), 0);
    /* repeated run with its value cut off */
    const uint8_t t3[] = {0x08, 0x01, 0x02};
    cf_rle_dec_init(&d, t3, sizeof t3, 32);
    assert_int_equal(cf_rle_dec_get(&d, got, 8, 4), 0);
    /* a literal run claiming 2^31 groups with 3 bytes of width-64 bits */
    const uint8_t t4[] = {0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2, 3};
    cf_rle_dec_init(&d, t4, sizeof t4, 64);
    assert_int_equal(cf_rle_dec_get(&d, got, 8, 64), 0);
    /* width 7: 3 bytes hold 3 whole values */
    const uint8_t t5[] = {0x03, 0x01, 0x01, 0x01};
    cf_rle_dec_init(&d, t5, sizeof t5, 7);
    assert_int_equal(cf_rle_dec_get(&d, got, 8, 64), 3);
    assert_true(got[0] == 1 && got[1] == 2 && got[2] == 4);
    /* a huge repeated run: counted, not materialized */
    const uint8_t t6[] = {0xfe, 0xff, 0xff, 0xff, 0x0f, 0x09};
    cf_rle_dec_init(&d, t6, sizeof t6, 8);
    size_t nz;
    assert_int_equal(cf_rle_dec_skip(&d, 5000000000ull, &nz), 0x7fffffffull);

    /* random garbage at every width never reads out of bounds */
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(1) + 4);
    for (int iter = 0; iter < 3000; iter++) {
        size_t len;
        uint8_t *buf = random_stream(&r, 40, 0xff, &len);
        unsigned w = 1 + (unsigned)cf_rng_below(&r, 64);
        cf_rle_dec_init(&d, buf, len, w);
        size_t k = cf_rle_dec_get(&d, got, 8, 64);
        assert_true(k <= 64);
        cf_rle_dec_init(&d, buf, len, w);
        uint8_t bm[8];
        cf_rle_dec_get_bits(&d, bm, 0, 64);
        cf_rle_dec_init(&d, buf, len, w);
        cf_rle_dec_skip(&d, 1000, &nz);
        free(buf);
    }
}

/* get_bits in random pieces at random offsets: exactly the flags land in
 * [off, off + n) and every bit around them keeps its old value. */
static void test_rle__get_bits_pieces_keep_neighbours(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(1) + 7);
    enum { N = 4000 };
    uint64_t *v = malloc(N * sizeof *v);
    uint8_t *bm = malloc(N / 8 + 16), *ref = malloc(N / 8 + 16);
    unsigned widths[] = {1, 1, 1, 3, 8, 17};
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
        unsigned w = widths[wi];
        for (int iter = 0; iter < 20; iter++) {
            size_t n = (size_t)cf_rng_below(&r, N - 64) + 1;
            cf_rle_encoder e;
            encode_random(&r, v, n, w, &e);
            for (size_t i = 0; i < N / 8 + 16; i++)
                ref[i] = (uint8_t)cf_rng_next(&r);
            memcpy(bm, ref, N / 8 + 16);
            size_t off = (size_t)cf_rng_below(&r, 40);
            cf_rle_decoder d;
            cf_rle_dec_init(&d, e.out.data, e.out.len, w);
            size_t done = 0;
            while (done < n) {
                size_t k = 1 + (size_t)cf_rng_below(&r, cf_rng_below(&r, 2) ? 9 : 700);
                if (k > n - done)
                    k = n - done;
                assert_int_equal(cf_rle_dec_get_bits(&d, bm, off + done, k), k);
                done += k;
            }
            for (size_t i = 0; i < (N / 8 + 16) * 8; i++) {
                bool want = i >= off && i < off + n ? v[i - off] != 0 : cf_bitmap_get(ref, i);
                assert_int_equal(cf_bitmap_get(bm, i), want);
            }
            /* The stream is over: no more flags, and nothing is written. */
            memcpy(ref, bm, N / 8 + 16);
            assert_int_equal(cf_rle_dec_get_bits(&d, bm, off + n, 20) < 8, true);
            cf_rle_enc_dispose(&e);
        }
    }
    free(v);
    free(bm);
    free(ref);
}

/* The run index: checkpoint 0 is value 0 at byte 0, indexes increase, and
 * decoding from any checkpoint gives the values from its index on; a cut
 * stream indexes only what it holds. */
static void test_rle__index_checkpoints(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(1) + 8);
    enum { N = 5000 };
    uint64_t *v = malloc(N * sizeof *v), *got = malloc(N * sizeof *got);
    unsigned widths[] = {1, 5, 16, 32, 64};
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
        unsigned w = widths[wi];
        size_t n = N - (size_t)cf_rng_below(&r, 100);
        cf_rle_encoder e;
        encode_random(&r, v, n, w, &e);
        unsigned everys[] = {0, 1, 4, 16};
        for (size_t ei = 0; ei < 4; ei++) {
            cf_buf cps;
            cf_buf_init(&cps);
            assert_int_equal(cf_rle_index_build(&cps, e.out.data, e.out.len, w, n, everys[ei]), n);
            assert_false(cps.oom);
            size_t ncp = cps.len / sizeof(cf_rle_checkpoint);
            const cf_rle_checkpoint *cp = (const cf_rle_checkpoint *)(const void *)cps.data;
            assert_true(ncp >= 1);
            assert_int_equal(cp[0].index, 0);
            assert_int_equal(cp[0].off, 0);
            for (size_t k = 0; k < ncp; k++) {
                assert_true(k == 0 || cp[k].index > cp[k - 1].index);
                assert_true(cp[k].off < e.out.len);
                cf_rle_decoder d;
                cf_rle_dec_init(&d, e.out.data + cp[k].off, e.out.len - cp[k].off, w);
                size_t m = n - (size_t)cp[k].index;
                assert_int_equal(cf_rle_dec_get(&d, got, 8, m), m);
                for (size_t i = 0; i < m; i++)
                    assert_true(got[i] == v[cp[k].index + i]);
            }
            /* Built in random steps: the same checkpoints. */
            cf_buf steps;
            cf_buf_init(&steps);
            cf_rle_index_walk walk = {0, 0, 0, false};
            size_t upto = 0;
            while (!walk.done) {
                upto += (size_t)cf_rng_below(&r, 300);
                size_t before = (size_t)walk.index;
                cf_rle_index_extend(&steps, e.out.data, e.out.len, w, n, everys[ei], upto, &walk);
                assert_true(walk.done || walk.index > upto);
                assert_true(walk.index >= before);
            }
            assert_int_equal(walk.index, n);
            CF_ASSERT_BYTES(steps.data, steps.len, cps.data, cps.len);
            cf_buf_dispose(&steps);
            /* Only the first values asked for; then a stream cut short. */
            cf_buf_clear(&cps);
            assert_int_equal(cf_rle_index_build(&cps, e.out.data, e.out.len, w, n / 2, 1), n / 2);
            const cf_rle_checkpoint *c2 = (const cf_rle_checkpoint *)(const void *)cps.data;
            assert_true(c2[cps.len / sizeof *c2 - 1].index < n / 2);
            cf_buf_clear(&cps);
            size_t held = cf_rle_index_build(&cps, e.out.data, e.out.len / 2, w, n, 1);
            assert_true(held < n);
            cf_buf_dispose(&cps);
        }
        cf_rle_enc_dispose(&e);
    }
    /* Hostile: a repeated run claiming 2^30 values indexes in one step. */
    uint8_t big[] = {0x80, 0x80, 0x80, 0x80, 0x08, 0x07};
    cf_buf cps;
    cf_buf_init(&cps);
    assert_int_equal(cf_rle_index_build(&cps, big, sizeof big, 8, SIZE_MAX, 16), (size_t)1 << 30);
    assert_int_equal(cps.len, sizeof(cf_rle_checkpoint));
    cf_buf_dispose(&cps);
    free(v);
    free(got);
}

/* cf_rle_dec_bitmap (8-byte stores, short runs without a branch on their
 * kind) against cf_rle_dec_get_bits over the same stream: the same count, the
 * same flags, zeros after them, and the decoder left in the same state (a
 * second call of either continues alike). Streams: the encoder's over bitmaps
 * of every NULL density (short literal and repeated runs alternating, long
 * runs, multi-byte indicators), and random bytes (truncated literal runs,
 * over-long indicators, zero-length runs). */
static void check_bitmap_vs_get_bits(const uint8_t *s, size_t len, size_t n, size_t n2)
{
    size_t cap = n + n2 + 64;
    uint8_t *a = malloc(cap / 8 + 9), *b = malloc(cap / 8 + 9);
    memset(a, 0x5a, cap / 8 + 9);
    memset(b, 0, cap / 8 + 9);
    cf_rle_decoder da, db;
    cf_rle_dec_init(&da, s, len, 1);
    cf_rle_dec_init(&db, s, len, 1);
    memset(a, 0, cf_bitmap_bytes(n) + 8);
    size_t ka = cf_rle_dec_bitmap(&da, a, n), kb = cf_rle_dec_get_bits(&db, b, 0, n);
    assert_int_equal(ka, kb);
    for (size_t i = 0; i < n + 64 && i / 8 < cf_bitmap_bytes(n) + 8; i++)
        assert_int_equal(cf_bitmap_get(a, i), i < ka ? cf_bitmap_get(b, i) : 0);
    assert_ptr_equal(da.p, db.p);
    assert_true(da.rep_left == db.rep_left && da.lit_left == db.lit_left);
    assert_true(da.lit_left == 0 ||
                (da.lit_p == db.lit_p && da.lit_bit == db.lit_bit && da.lit_end == db.lit_end));
    assert_true(da.rep_left == 0 || da.rep_value == db.rep_value);
    /* continuing: the same flags after the first n */
    if (ka == n && n2 > 0) {
        memset(a, 0, cap / 8 + 9);
        memset(b, 0, cap / 8 + 9);
        size_t k2a = cf_rle_dec_get_bits(&da, a, 0, n2), k2b = cf_rle_dec_get_bits(&db, b, 0, n2);
        assert_int_equal(k2a, k2b);
        assert_memory_equal(a, b, cf_bitmap_bytes(k2a));
    }
    free(a);
    free(b);
}

static void test_rle__bitmap_matches_get_bits(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(1) + 9);
    static const unsigned pct_null[] = {0, 1, 5, 10, 20, 50, 80, 95, 100};
    for (int iter = 0; iter < 400; iter++) {
        size_t n = 1 + (size_t)cf_rng_below(&r, iter < 200 ? 700 : 70000);
        unsigned pct = pct_null[iter % 9];
        cf_rle_encoder e;
        cf_rle_enc_init(&e, 1);
        for (size_t i = 0; i < n; i++) {
            /* sometimes long runs, so indicators take two or more bytes */
            if (iter % 7 == 3 && cf_rng_below(&r, 100) == 0) {
                size_t run = (size_t)cf_rng_below(&r, 3000);
                cf_rle_enc_put_run(&e, cf_rng_below(&r, 2), run);
                continue;
            }
            cf_rle_enc_put(&e, cf_rng_below(&r, 100) >= pct);
        }
        CF_ASSERT_OK(cf_rle_enc_finish(&e), NULL);
        size_t total = 0;
        cf_rle_decoder d;
        cf_rle_dec_init(&d, e.out.data, e.out.len, 1);
        total = cf_rle_dec_skip(&d, SIZE_MAX / 2, NULL);
        /* all of it, part of it (a run cut in two), more than it holds */
        size_t cut = (size_t)cf_rng_below(&r, total + 1);
        check_bitmap_vs_get_bits(e.out.data, e.out.len, total, 0);
        check_bitmap_vs_get_bits(e.out.data, e.out.len, cut, total - cut);
        check_bitmap_vs_get_bits(e.out.data, e.out.len, total + 9, 0);
        cf_rle_enc_dispose(&e);
    }
    /* zero-length runs right after the last flag asked for stay unread (as
     * get_bits leaves them; fuzz_dec_nullable found the difference) */
    static const uint8_t zl[] = {0x24, 0x24, 0x24, 0x00, 0x00, 0x00, 0x02, 0x24, 0x24, 0x24, 0x24,
                                 0x24, 0x24, 0x24, 0x24, 0x24, 0x24, 0x24, 0x24, 0x24, 0x24};
    check_bitmap_vs_get_bits(zl, sizeof zl, 36, 10);
    /* random bytes: malformed and truncated streams */
    for (int iter = 0; iter < 5000; iter++) {
        size_t len; /* odd iterations: mostly one-byte indicators and short runs */
        uint8_t *buf = random_stream(&r, 48, iter % 2 ? 0x1f : 0xff, &len);
        size_t n = (size_t)cf_rng_below(&r, 400);
        check_bitmap_vs_get_bits(buf, len, n, (size_t)cf_rng_below(&r, 100));
        free(buf);
    }
}

/* cf_rle_dec_bitmap takes a literal run of at most 7 bytes and the repeated
 * run after it in one step: hand-built streams of such pairs (literal 0-7
 * bytes, repeated 0-63 flags of either value: under, at and over the
 * 56-flag limit of a step), mixed with lone repeated runs, literal runs of 8+
 * bytes and two-byte indicators, every cut n (a cut inside the literal, at
 * its end, so the repeated run after it must stay unread, inside and at the
 * end of the repeated run) against get_bits. */
static void test_rle__bitmap_pairs(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(1) + 17);
    uint8_t s[400];
    for (int iter = 0; iter < 300; iter++) {
        size_t len = 0, total = 0;
        while (len < sizeof s - 40) {
            unsigned kind = (unsigned)cf_rng_below(&r, 10);
            if (kind < 7) { /* the pair */
                unsigned lb = (unsigned)cf_rng_below(&r, 8), rl = (unsigned)cf_rng_below(&r, 64);
                s[len++] = (uint8_t)(lb << 1 | 1);
                for (unsigned b = 0; b < lb; b++)
                    s[len++] = (uint8_t)cf_rng_next(&r);
                s[len++] = (uint8_t)(rl << 1);
                s[len++] = (uint8_t)cf_rng_below(&r, 2);
                total += lb * 8 + rl;
            } else if (kind == 7) { /* a lone repeated run */
                unsigned rl = (unsigned)cf_rng_below(&r, 64);
                s[len++] = (uint8_t)(rl << 1);
                s[len++] = (uint8_t)cf_rng_below(&r, 3);
                total += rl;
            } else if (kind == 8) { /* a literal run of 8-20 bytes */
                unsigned lb = 8 + (unsigned)cf_rng_below(&r, 13);
                s[len++] = (uint8_t)(lb << 1 | 1);
                for (unsigned b = 0; b < lb; b++)
                    s[len++] = (uint8_t)cf_rng_next(&r);
                total += lb * 8;
            } else { /* a repeated run with a two-byte indicator */
                unsigned rl = 64 + (unsigned)cf_rng_below(&r, 200);
                s[len++] = (uint8_t)((rl << 1 & 0x7f) | 0x80);
                s[len++] = (uint8_t)(rl >> 6);
                s[len++] = 1;
                total += rl;
            }
        }
        for (size_t n = 0; n <= total + 9; n += 1 + (n > 300) * cf_rng_below(&r, 20))
            check_bitmap_vs_get_bits(s, len, n, (size_t)cf_rng_below(&r, 100));
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rle__examples_w1),
        cmocka_unit_test(test_rle__examples_w16_w32),
        cmocka_unit_test(test_rle__empty_stream),
        cmocka_unit_test(test_rle__emitted_len),
        cmocka_unit_test(test_rle__put_run_matches_put),
        cmocka_unit_test(test_rle__long_run_is_fast),
        cmocka_unit_test(test_rle__round_trip_all_widths),
        cmocka_unit_test(test_rle__bool_bytes),
        cmocka_unit_test(test_rle__decoder_accepts_grammar),
        cmocka_unit_test(test_rle__decoder_hostile),
        cmocka_unit_test(test_rle__get_bits_pieces_keep_neighbours),
        cmocka_unit_test(test_rle__bitmap_matches_get_bits),
        cmocka_unit_test(test_rle__bitmap_pairs),
        cmocka_unit_test(test_rle__index_checkpoints),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

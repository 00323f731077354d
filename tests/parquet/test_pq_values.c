/* Parquet value encodings (src/parquet/values.c, encode.c, delta.c): the
 * Encodings.md examples as exact bytes, damage named by encoding and offset,
 * and a random round-trip harness over every (encoding, type) pair with
 * batches of varied sizes and truncated pages. */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "parquet/encoding.h"
#include "util/buf.h"
#include "util/endian.h"

static void decode_all(unsigned enc, unsigned type, int32_t tl, const uint8_t *p, size_t len,
                       size_t n, void *out)
{
    cf_pq_decoder d;
    cf_error err;
    cf_status st = cf_pq_decoder_init(&d, enc, type, tl, p, len, n, &err);
    if (st == CF_OK)
        st = cf_pq_decoder_get(&d, out, n, &err);
    cf_pq_decoder_dispose(&d);
    CF_ASSERT_OK(st, &err);
}

static cf_status decode_status(unsigned enc, unsigned type, int32_t tl, const uint8_t *p,
                               size_t len, size_t n, void *out, cf_error *err)
{
    cf_pq_decoder d;
    cf_status st = cf_pq_decoder_init(&d, enc, type, tl, p, len, n, err);
    if (st == CF_OK)
        st = cf_pq_decoder_get(&d, out, n, err);
    cf_pq_decoder_dispose(&d);
    return st;
}

/* Encodings.md delta example 1 (1..5) and 2 (7 5 3 1 2 3 4 5), with the
 * smallest legal block (128 values, 4 miniblocks) instead of the spec's 8. */
static void test_pq_values__spec_delta_binary_packed(void **state)
{
    (void)state;
    const uint8_t ex1[] = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00};
    const uint8_t ex2[] = {0x80, 0x01, 0x04, 0x08, 0x0e, 0x03, 0x02, 0x00, 0x00,
                           0x00, 0xc0, 0x3f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    const int32_t v1[] = {1, 2, 3, 4, 5}, v2[] = {7, 5, 3, 1, 2, 3, 4, 5};
    int32_t got[8];
    decode_all(CF_PQE_DELTA_BINARY_PACKED, CF_PQT_INT32, 0, ex1, sizeof ex1, 5, got);
    assert_memory_equal(got, v1, sizeof v1);
    decode_all(CF_PQE_DELTA_BINARY_PACKED, CF_PQT_INT32, 0, ex2, sizeof ex2, 8, got);
    assert_memory_equal(got, v2, sizeof v2);
    cf_error err;
    cf_buf b;
    cf_buf_init(&b);
    CF_ASSERT_OK(cf_pq_encode(&b, CF_PQE_DELTA_BINARY_PACKED, CF_PQT_INT32, 0, v1, 5, &err), &err);
    CF_ASSERT_BYTES(b.data, b.len, ex1, sizeof ex1);
    cf_buf_clear(&b);
    CF_ASSERT_OK(cf_pq_encode(&b, CF_PQE_DELTA_BINARY_PACKED, CF_PQT_INT32, 0, v2, 8, &err), &err);
    CF_ASSERT_BYTES(b.data, b.len, ex2, sizeof ex2);
    cf_buf_dispose(&b);
}

/* Wrapping: INT32_MIN .. INT32_MAX deltas, INT64 extremes (64-bit widths). */
static void test_pq_values__delta_wraps(void **state)
{
    (void)state;
    const int32_t v32[] = {INT32_MAX, INT32_MIN, 0, INT32_MIN, INT32_MAX, -1, 1};
    const int64_t v64[] = {INT64_MAX, INT64_MIN, 0, INT64_MIN, INT64_MAX, -1, 1};
    cf_error err;
    cf_buf b;
    cf_buf_init(&b);
    CF_ASSERT_OK(cf_pq_encode(&b, CF_PQE_DELTA_BINARY_PACKED, CF_PQT_INT32, 0, v32, 7, &err), &err);
    assert_int_equal(b.data[14], 32); /* first miniblock needs all 32 bits */
    int32_t g32[7];
    decode_all(CF_PQE_DELTA_BINARY_PACKED, CF_PQT_INT32, 0, b.data, b.len, 7, g32);
    assert_memory_equal(g32, v32, sizeof v32);
    /* a 33-bit width is damage for INT32 (writers must not use more bits) */
    b.data[14] = 33;
    CF_ASSERT_STATUS(
        decode_status(CF_PQE_DELTA_BINARY_PACKED, CF_PQT_INT32, 0, b.data, b.len, 7, g32, &err),
        CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "bit width 33 at offset 14"));
    cf_buf_clear(&b);
    CF_ASSERT_OK(cf_pq_encode(&b, CF_PQE_DELTA_BINARY_PACKED, CF_PQT_INT64, 0, v64, 7, &err), &err);
    int64_t g64[7];
    decode_all(CF_PQE_DELTA_BINARY_PACKED, CF_PQT_INT64, 0, b.data, b.len, 7, g64);
    assert_memory_equal(g64, v64, sizeof v64);
    cf_buf_dispose(&b);
}

/* Unused miniblocks of the last block: widths may be anything, no bytes. */
static void test_pq_values__delta_unused_miniblocks(void **state)
{
    (void)state;
    /* 128/4, 3 values: first 10, min delta 1, widths 0 then garbage */
    const uint8_t p[] = {0x80, 0x01, 0x04, 0x03, 0x14, 0x02, 0x00, 0xff, 0x41, 0x99};
    int64_t got[3];
    decode_all(CF_PQE_DELTA_BINARY_PACKED, CF_PQT_INT64, 0, p, sizeof p, 3, got);
    assert_int_equal(got[0], 10);
    assert_int_equal(got[2], 12);
    cf_error err;
    /* header damage */
    const uint8_t bad_block[] = {0x40, 0x04, 0x03, 0x14};
    CF_ASSERT_STATUS(decode_status(CF_PQE_DELTA_BINARY_PACKED, CF_PQT_INT64, 0, bad_block,
                                   sizeof bad_block, 3, got, &err),
                     CF_ECORRUPT, &err);
    const uint8_t bad_mb[] = {0x80, 0x01, 0x03, 0x03, 0x14};
    CF_ASSERT_STATUS(decode_status(CF_PQE_DELTA_BINARY_PACKED, CF_PQT_INT64, 0, bad_mb,
                                   sizeof bad_mb, 3, got, &err),
                     CF_ECORRUPT, &err);
    /* fewer values in the header than the page says */
    CF_ASSERT_STATUS(
        decode_status(CF_PQE_DELTA_BINARY_PACKED, CF_PQT_INT64, 0, p, sizeof p, 4, got, &err),
        CF_ECORRUPT, &err);
    /* a miniblock cut short */
    const uint8_t cut[] = {0x80, 0x01, 0x04, 0x03, 0x14, 0x02, 0x08, 0x00, 0x00, 0x00, 0x01};
    CF_ASSERT_STATUS(
        decode_status(CF_PQE_DELTA_BINARY_PACKED, CF_PQT_INT64, 0, cut, sizeof cut, 3, got, &err),
        CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "miniblock at offset 10"));
}

/* The four words as slices v and encoded as BYTE_ARRAY values with `enc` into b
 * (initialized here). */
static void encode_words(cf_buf *b, unsigned enc, const char *const words[4], cf_slice v[4])
{
    for (int i = 0; i < 4; i++)
        v[i] = (cf_slice){(const uint8_t *)words[i], strlen(words[i])};
    cf_error err;
    cf_buf_init(b);
    CF_ASSERT_OK(cf_pq_encode(b, enc, CF_PQT_BYTE_ARRAY, 0, v, 4, &err), &err);
}

/* Encodings.md: "Hello" "World" "Foobar" "ABCDEF" as DELTA_LENGTH_BYTE_ARRAY. */
static void test_pq_values__spec_delta_length(void **state)
{
    (void)state;
    cf_slice v[4];
    cf_buf b;
    encode_words(&b, CF_PQE_DELTA_LENGTH_BYTE_ARRAY,
                 (const char *const[]){"Hello", "World", "Foobar", "ABCDEF"}, v);
    cf_error err;
    const uint8_t lens[] = {0x80, 0x01, 0x04, 0x04, 0x0a, 0x00, 0x01,
                            0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00};
    assert_int_equal(b.len, sizeof lens + 22);
    CF_ASSERT_BYTES(b.data, sizeof lens, lens, sizeof lens);
    assert_memory_equal(b.data + sizeof lens, "HelloWorldFoobarABCDEF", 22);
    cf_slice got[4];
    decode_all(CF_PQE_DELTA_LENGTH_BYTE_ARRAY, CF_PQT_BYTE_ARRAY, 0, b.data, b.len, 4, got);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(got[i].len, v[i].len);
        assert_memory_equal(got[i].data, v[i].data, v[i].len);
        /* zero copy: the slices point into the page */
        assert_true(got[i].data >= b.data && got[i].data < b.data + b.len);
    }
    /* bytes missing: the lengths' sum exceeds what follows */
    CF_ASSERT_STATUS(decode_status(CF_PQE_DELTA_LENGTH_BYTE_ARRAY, CF_PQT_BYTE_ARRAY, 0, b.data,
                                   b.len - 1, 4, got, &err),
                     CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "22 value bytes from offset 14"));
    cf_buf_dispose(&b);
}

/* Encodings.md: "axis" "axle" "babble" "babyhood" as DELTA_BYTE_ARRAY:
 * prefixes 0 2 0 3, suffixes "axis" "le" "babble" "yhood". */
static void test_pq_values__spec_delta_byte_array(void **state)
{
    (void)state;
    cf_slice v[4];
    cf_buf b;
    encode_words(&b, CF_PQE_DELTA_BYTE_ARRAY,
                 (const char *const[]){"axis", "axle", "babble", "babyhood"}, v);
    cf_error err;
    assert_memory_equal(b.data + b.len - 17, "axislebabbleyhood", 17);
    /* prefix lengths: first value 0 (zigzag 0), deltas 2 -2 3 */
    const uint8_t pre_head[] = {0x80, 0x01, 0x04, 0x04, 0x00};
    CF_ASSERT_BYTES(b.data, 5, pre_head, 5);
    cf_slice got[4];
    decode_all(CF_PQE_DELTA_BYTE_ARRAY, CF_PQT_BYTE_ARRAY, 0, b.data, b.len, 4, got);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(got[i].len, v[i].len);
        assert_memory_equal(got[i].data, v[i].data, v[i].len);
    }
    /* Values decoded one per get: the previous value survives the arena reset. */
    cf_pq_decoder d;
    CF_ASSERT_OK(cf_pq_decoder_init(&d, CF_PQE_DELTA_BYTE_ARRAY, CF_PQT_BYTE_ARRAY, 0, b.data,
                                    b.len, 4, &err),
                 &err);
    for (int i = 0; i < 4; i++) {
        cf_slice one;
        CF_ASSERT_OK(cf_pq_decoder_get(&d, &one, 1, &err), &err);
        assert_int_equal(one.len, v[i].len);
        assert_memory_equal(one.data, v[i].data, v[i].len);
    }
    assert_int_equal(cf_pq_decoder_left(&d), 0);
    cf_pq_decoder_dispose(&d);
    cf_buf_dispose(&b);
}

/* A prefix longer than the previous value is damage. */
static void test_pq_values__delta_byte_array_long_prefix(void **state)
{
    (void)state;
    cf_buf b;
    cf_buf_init(&b);
    cf_error err;
    const int32_t pre[] = {0, 3}; /* "ab" then prefix 3 */
    CF_ASSERT_OK(cf_pq_encode(&b, CF_PQE_DELTA_BINARY_PACKED, CF_PQT_INT32, 0, pre, 2, &err), &err);
    cf_slice suf[] = {{(const uint8_t *)"ab", 2}, {(const uint8_t *)"c", 1}};
    CF_ASSERT_OK(
        cf_pq_encode(&b, CF_PQE_DELTA_LENGTH_BYTE_ARRAY, CF_PQT_BYTE_ARRAY, 0, suf, 2, &err), &err);
    cf_slice got[2];
    CF_ASSERT_STATUS(
        decode_status(CF_PQE_DELTA_BYTE_ARRAY, CF_PQT_BYTE_ARRAY, 0, b.data, b.len, 2, got, &err),
        CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "prefix length 3 of value 1 exceeds the previous value's 2"));
    /* and FLBA values must all have the fixed length */
    uint8_t fl[4];
    CF_ASSERT_STATUS(decode_status(CF_PQE_DELTA_BYTE_ARRAY, CF_PQT_FIXED_LEN_BYTE_ARRAY, 2, b.data,
                                   b.len, 2, fl, &err),
                     CF_ECORRUPT, &err);
    cf_buf_dispose(&b);
}

/* Encodings.md BYTE_STREAM_SPLIT example. */
static void test_pq_values__spec_byte_stream_split(void **state)
{
    (void)state;
    const uint8_t vals[] = {0xAA, 0xBB, 0xCC, 0xDD, 0x00, 0x11, 0x22, 0x33, 0xA3, 0xB4, 0xC5, 0xD6};
    const uint8_t enc[] = {0xAA, 0x00, 0xA3, 0xBB, 0x11, 0xB4, 0xCC, 0x22, 0xC5, 0xDD, 0x33, 0xD6};
    cf_error err;
    cf_buf b;
    cf_buf_init(&b);
    CF_ASSERT_OK(cf_pq_encode(&b, CF_PQE_BYTE_STREAM_SPLIT, CF_PQT_FLOAT, 0, vals, 3, &err), &err);
    CF_ASSERT_BYTES(b.data, b.len, enc, sizeof enc);
    uint8_t got[12];
    decode_all(CF_PQE_BYTE_STREAM_SPLIT, CF_PQT_FLOAT, 0, enc, sizeof enc, 3, got);
    assert_memory_equal(got, vals, 12);
    decode_all(CF_PQE_BYTE_STREAM_SPLIT, CF_PQT_FIXED_LEN_BYTE_ARRAY, 3, enc, sizeof enc, 4, got);
    CF_ASSERT_STATUS(
        decode_status(CF_PQE_BYTE_STREAM_SPLIT, CF_PQT_INT32, 0, enc, sizeof enc, 2, got, &err),
        CF_ECORRUPT, &err);
    CF_ASSERT_STATUS(
        decode_status(CF_PQE_BYTE_STREAM_SPLIT, CF_PQT_INT96, 0, enc, sizeof enc, 1, got, &err),
        CF_ECORRUPT, &err);
    cf_buf_dispose(&b);
}

/* PLAIN layouts, exact bytes, zero copy and damage. */
static void test_pq_values__plain(void **state)
{
    (void)state;
    cf_error err;
    cf_buf b;
    cf_buf_init(&b);
    const uint8_t bools[10] = {1, 0, 1, 1, 0, 0, 0, 1, 1, 0};
    CF_ASSERT_OK(cf_pq_encode(&b, CF_PQE_PLAIN, CF_PQT_BOOLEAN, 0, bools, 10, &err), &err);
    const uint8_t wantb[] = {0x8d, 0x01};
    CF_ASSERT_BYTES(b.data, b.len, wantb, 2);
    uint8_t gotb[10];
    decode_all(CF_PQE_PLAIN, CF_PQT_BOOLEAN, 0, wantb, 2, 10, gotb);
    assert_memory_equal(gotb, bools, 10);
    CF_ASSERT_STATUS(decode_status(CF_PQE_PLAIN, CF_PQT_BOOLEAN, 0, wantb, 1, 10, gotb, &err),
                     CF_ECORRUPT, &err);
    /* RLE booleans: length prefix, hybrid at width 1 */
    cf_buf_clear(&b);
    CF_ASSERT_OK(cf_pq_encode(&b, CF_PQE_RLE, CF_PQT_BOOLEAN, 0, bools, 10, &err), &err);
    const uint8_t wantr[] = {0x03, 0, 0, 0, 0x05, 0x8d, 0x01};
    CF_ASSERT_BYTES(b.data, b.len, wantr, sizeof wantr);
    decode_all(CF_PQE_RLE, CF_PQT_BOOLEAN, 0, wantr, sizeof wantr, 10, gotb);
    assert_memory_equal(gotb, bools, 10);

    const uint8_t ba[] = {3, 0, 0, 0, 'a', 'b', 'c', 0, 0, 0, 0, 1, 0, 0, 0, 'z'};
    cf_slice s[3];
    decode_all(CF_PQE_PLAIN, CF_PQT_BYTE_ARRAY, 0, ba, sizeof ba, 3, s);
    assert_int_equal(s[0].len, 3);
    assert_ptr_equal(s[0].data, ba + 4);
    assert_int_equal(s[1].len, 0);
    assert_int_equal(s[2].len, 1);
    assert_ptr_equal(s[2].data, ba + 15);
    CF_ASSERT_STATUS(
        decode_status(CF_PQE_PLAIN, CF_PQT_BYTE_ARRAY, 0, ba, sizeof ba - 1, 3, s, &err),
        CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "1 bytes at offset 11"));
    cf_buf_clear(&b);
    CF_ASSERT_OK(cf_pq_encode(&b, CF_PQE_PLAIN, CF_PQT_BYTE_ARRAY, 0, s, 3, &err), &err);
    CF_ASSERT_BYTES(b.data, b.len, ba, sizeof ba);

    /* fixed sizes: view in place */
    const uint8_t i96[24] = {1, 2, 3};
    cf_pq_decoder d;
    CF_ASSERT_OK(cf_pq_decoder_init(&d, CF_PQE_PLAIN, CF_PQT_INT96, 0, i96, 24, 2, &err), &err);
    const uint8_t *view;
    CF_ASSERT_OK(cf_pq_decoder_view(&d, &view, 1, &err), &err);
    assert_ptr_equal(view, i96);
    uint8_t one[12];
    CF_ASSERT_OK(cf_pq_decoder_get(&d, one, 1, &err), &err);
    assert_memory_equal(one, i96 + 12, 12);
    CF_ASSERT_STATUS(cf_pq_decoder_get(&d, one, 1, &err), CF_EINVAL, &err);
    cf_pq_decoder_dispose(&d);
    CF_ASSERT_STATUS(decode_status(CF_PQE_PLAIN, CF_PQT_INT64, 0, i96, 24, 4, one, &err),
                     CF_ECORRUPT, &err);
    CF_ASSERT_STATUS(
        decode_status(CF_PQE_DELTA_BINARY_PACKED, CF_PQT_DOUBLE, 0, i96, 24, 1, one, &err),
        CF_ECORRUPT, &err);
    CF_ASSERT_STATUS(
        decode_status(CF_PQE_PLAIN, CF_PQT_FIXED_LEN_BYTE_ARRAY, 0, i96, 24, 1, one, &err),
        CF_ECORRUPT, &err);
    cf_buf_dispose(&b);
}

/* ---- random round trips --------------------------------------------------------------------- */

/* Values of a random shape: small deltas, extremes, runs, shared prefixes. */
static void gen_values(cf_rng *r, unsigned type, size_t w, size_t n, uint8_t *vals, uint8_t *heap,
                       size_t heap_cap)
{
    int mode = (int)cf_rng_below(r, 4);
    if (type == CF_PQT_BOOLEAN) {
        for (size_t i = 0; i < n; i++)
            vals[i] =
                mode == 0 ? (uint8_t)(cf_rng_next(r) & 1) : (uint8_t)(cf_rng_below(r, 9) == 0);
        return;
    }
    if (type == CF_PQT_BYTE_ARRAY) {
        cf_slice *s = (cf_slice *)(void *)vals;
        size_t used = 0;
        for (size_t i = 0; i < n; i++) {
            size_t len = (size_t)cf_rng_below(r, mode == 0 ? 3 : 40);
            if (used + len > heap_cap)
                len = 0;
            uint8_t *p = heap + used;
            size_t keep = 0;
            if (i > 0 && mode >= 2) { /* share a prefix with the previous value */
                keep = s[i - 1].len < len ? s[i - 1].len : len;
                keep = (size_t)cf_rng_below(r, keep + 1);
                memcpy(p, s[i - 1].data, keep);
            }
            for (size_t k = keep; k < len; k++)
                p[k] = (uint8_t)(mode == 3 ? 'a' + cf_rng_below(r, 3) : cf_rng_next(r));
            s[i] = (cf_slice){p, len};
            used += len;
        }
        return;
    }
    uint64_t base = cf_rng_next(r);
    for (size_t i = 0; i < n; i++) {
        uint64_t x;
        switch (mode) {
        case 0: x = cf_rng_next(r); break;
        case 1: x = base + i * 3 + cf_rng_below(r, 5); break;
        case 2: x = cf_rng_below(r, 4) ? base : cf_rng_next(r); break;
        default: x = cf_rng_below(r, 2) ? (uint64_t)INT64_MIN : (uint64_t)INT64_MAX; break;
        }
        uint8_t tmp[8];
        cf_store_le64(tmp, x);
        for (size_t k = 0; k < w; k++)
            vals[i * w + k] = k < 8 ? tmp[k] : (uint8_t)(x >> (k % 8));
    }
}

static void test_pq_values__random_round_trips(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(1516));
    cf_error err;
    cf_buf b;
    cf_buf_init(&b);
    const size_t cap = 3000, heap_cap = 64 << 10;
    uint8_t *vals = malloc(cap * 24), *got = malloc(cap * 24), *heap = malloc(heap_cap);
    for (int iter = 0; iter < 1500; iter++) {
        const cf_pq_value_pair *pr = &cf_pq_value_pairs[iter % CF_PQ_VALUE_PAIR_COUNT];
        int32_t tl =
            pr->type == CF_PQT_FIXED_LEN_BYTE_ARRAY ? (int32_t)cf_rng_below(&r, 20) + 1 : 0;
        size_t w = cf_pq_value_size(pr->type, tl);
        size_t n = (size_t)cf_rng_below(&r, iter % 7 == 0 ? cap : 200);
        gen_values(&r, pr->type, w, n, vals, heap, heap_cap);
        cf_buf_clear(&b);
        CF_ASSERT_OK(cf_pq_encode(&b, pr->encoding, pr->type, tl, vals, n, &err), &err);
        /* decode in batches of varied sizes */
        cf_pq_decoder d;
        CF_ASSERT_OK(cf_pq_decoder_init(&d, pr->encoding, pr->type, tl, b.data, b.len, n, &err),
                     &err);
        size_t done = 0;
        while (done < n) {
            size_t k = 1 + (size_t)cf_rng_below(&r, 300);
            if (k > n - done)
                k = n - done;
            CF_ASSERT_OK(cf_pq_decoder_get(&d, got + done * w, k, &err), &err);
            if (pr->type == CF_PQT_BYTE_ARRAY) {
                /* compare now: arena slices live until the next get */
                const cf_slice *a = (const cf_slice *)(void *)(vals) + done;
                const cf_slice *g = (const cf_slice *)(void *)(got) + done;
                for (size_t i = 0; i < k; i++) {
                    assert_int_equal(g[i].len, a[i].len);
                    if (a[i].len)
                        assert_memory_equal(g[i].data, a[i].data, a[i].len);
                }
            }
            done += k;
        }
        assert_int_equal(cf_pq_decoder_left(&d), 0);
        cf_pq_decoder_dispose(&d);
        if (pr->type != CF_PQT_BYTE_ARRAY && n > 0)
            assert_memory_equal(got, vals, n * w);
        /* every truncation fails cleanly, never reads outside (ASan) */
        if (b.len > 0) {
            size_t cut = (size_t)cf_rng_below(&r, b.len);
            uint8_t *t = malloc(cut ? cut : 1);
            memcpy(t, b.data, cut);
            cf_status st = decode_status(pr->encoding, pr->type, tl, t, cut, n, got, &err);
            (void)st; /* a cut in padding may still decode */
            free(t);
        }
    }
    free(vals);
    free(got);
    free(heap);
    cf_buf_dispose(&b);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pq_values__spec_delta_binary_packed),
        cmocka_unit_test(test_pq_values__delta_wraps),
        cmocka_unit_test(test_pq_values__delta_unused_miniblocks),
        cmocka_unit_test(test_pq_values__spec_delta_length),
        cmocka_unit_test(test_pq_values__spec_delta_byte_array),
        cmocka_unit_test(test_pq_values__delta_byte_array_long_prefix),
        cmocka_unit_test(test_pq_values__spec_byte_stream_split),
        cmocka_unit_test(test_pq_values__plain),
        cmocka_unit_test(test_pq_values__random_round_trips),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

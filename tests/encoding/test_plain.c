/* PLAIN for fixed-width types (format §8.1, §10.2, §14.2). */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "encoding/encodings.h"

#include "support_codec.h"

/* Load from an exact-size heap copy so ASan sees any read past the end. */
static cf_status try_load(cf_type t, const uint8_t *data, size_t len, cf_error *err)
{
    cf_dec_params p = {.type = t, .elem_size = cf_type_size(t)};
    return dec_try(CF_ENC_PLAIN, &p, data, len, 0, NULL, err);
}

static void test_plain__spec_block_14_2(void **state)
{
    (void)state;
    cf_encoder *e = enc_create(&cf_enc_plain_ops, CF_TYPE_INT32, 262144);
    const int32_t v[3] = {1, 2, 3};
    assert_int_equal(e->ops->add(e, v, 3, false), 3);
    assert_false(e->ops->is_full(e));
    assert_int_equal(e->ops->count(e), 3);
    cf_slice out;
    cf_error err;
    CF_ASSERT_OK(e->ops->finish(e, 0, &out, &err), &err);
    uint8_t want[32];
    size_t wlen = cf_test_unhex("03 00 00 00 00 00 00 00 01 00 00 00 02 00 00 00 03 00 00 00", want,
                                sizeof want);
    CF_ASSERT_BYTES(out.data, out.len, want, wlen);

    cf_decoder *d = dec_open(CF_ENC_PLAIN, CF_TYPE_INT32, want, wlen);
    assert_int_equal(d->first_ord, 0);
    dec_expect_values(d, v, 3, sizeof v[0]);
    cf_decoder_free(d);
    cf_encoder_free(e);
}

static void test_plain__empty_block_and_first_ordinal(void **state)
{
    (void)state;
    cf_encoder *e = enc_create(&cf_enc_plain_ops, CF_TYPE_INT64, 512);
    cf_slice out;
    cf_error err;
    CF_ASSERT_OK(e->ops->finish(e, 0x01020304, &out, &err), &err);
    const uint8_t want[8] = {0, 0, 0, 0, 4, 3, 2, 1};
    CF_ASSERT_BYTES(out.data, out.len, want, 8);
    cf_decoder *d = dec_open(CF_ENC_PLAIN, CF_TYPE_INT64, out.data, out.len);
    assert_int_equal(d->count, 0);
    assert_int_equal(d->first_ord, 0x01020304);
    int64_t x;
    size_t n = 9;
    CF_ASSERT_OK(d->ops->next(d, &x, 1, &n, &err), &err);
    assert_int_equal(n, 0);
    bool exact = true;
    int64_t key = 5;
    CF_ASSERT_STATUS(d->ops->seek_at_or_after(d, &key, &exact, &err), CF_ENOTFOUND, &err);
    assert_false(exact);
    cf_decoder_free(d);

    /* reset starts a clean block with a new ordinal */
    const int64_t v = -2;
    e->ops->add(e, &v, 1, false);
    e->ops->reset(e);
    assert_int_equal(e->ops->count(e), 0);
    CF_ASSERT_OK(e->ops->finish(e, 7, &out, &err), &err);
    assert_int_equal(out.len, 8);
    cf_encoder_free(e);
}

/* The §10.3 loop for a non-nullable file: adds of `call` values, a block ends
 * when the builder says full. Records each block's first ordinal and length. */
static size_t write_blocks(cf_type t, uint32_t block_size, size_t total, size_t call,
                           size_t *starts, size_t *lens, size_t max_blocks)
{
    cf_encoder *e = enc_create(&cf_enc_plain_ops, t, block_size);
    size_t elem = cf_type_size(t);
    uint8_t *vals = calloc(total, elem);
    size_t done = 0, nblocks = 0, block_start = 0;
    cf_error err;
    cf_slice out;
    while (done < total) {
        size_t k = total - done < call ? total - done : call;
        size_t took = e->ops->add(e, vals + done * elem, k, false);
        assert_int_equal(took, k); /* PLAIN takes every value of the call */
        done += took;
        if (e->ops->is_full(e)) {
            CF_ASSERT_OK(e->ops->finish(e, (uint32_t)block_start, &out, &err), &err);
            assert_true(nblocks < max_blocks);
            starts[nblocks] = block_start;
            lens[nblocks++] = out.len;
            block_start = done;
            e->ops->reset(e);
        }
    }
    if (e->ops->count(e) > 0) {
        CF_ASSERT_OK(e->ops->finish(e, (uint32_t)block_start, &out, &err), &err);
        assert_true(nblocks < max_blocks);
        starts[nblocks] = block_start;
        lens[nblocks++] = out.len;
    }
    free(vals);
    cf_encoder_free(e);
    return nblocks;
}

static void test_plain__fullness_follows_add_calls(void **state)
{
    (void)state;
    size_t starts[16], lens[16], n;
    /* §10.2: one call of 300 INT32 values, block size 512: one 1208-byte block */
    n = write_blocks(CF_TYPE_INT32, 512, 300, 300, starts, lens, 16);
    assert_int_equal(n, 1);
    assert_int_equal(lens[0], 1208);
    /* calls of 100: 408 bytes after the first (not full), 808 after the second */
    n = write_blocks(CF_TYPE_INT32, 512, 300, 100, starts, lens, 16);
    assert_int_equal(n, 2);
    assert_int_equal(starts[0], 0);
    assert_int_equal(starts[1], 200);
    assert_int_equal(lens[0], 808);
    assert_int_equal(lens[1], 408);
    /* calls of 1: full when 8 + 4n > 512, i.e. at n = 127 */
    n = write_blocks(CF_TYPE_INT32, 512, 300, 1, starts, lens, 16);
    assert_int_equal(n, 3);
    assert_int_equal(starts[0], 0);
    assert_int_equal(starts[1], 127);
    assert_int_equal(starts[2], 254);
    assert_int_equal(lens[0], 8 + 127 * 4);
    assert_int_equal(lens[2], 8 + 46 * 4);

    /* exactly block_size is not full: 8 + 126*4 = 512 */
    cf_encoder *e = enc_create(&cf_enc_plain_ops, CF_TYPE_INT32, 512);
    int32_t v[127] = {0};
    e->ops->add(e, v, 126, false);
    assert_false(e->ops->is_full(e));
    e->ops->add(e, v, 1, false);
    assert_true(e->ops->is_full(e));
    /* force takes everything too */
    assert_int_equal(e->ops->add(e, v, 127, true), 127);
    assert_int_equal(e->ops->count(e), 254);
    cf_encoder_free(e);
}

static const cf_type fixed_types[] = {
    CF_TYPE_UINT8,     CF_TYPE_INT8,      CF_TYPE_UINT16,          CF_TYPE_INT16,
    CF_TYPE_UINT32,    CF_TYPE_INT32,     CF_TYPE_UINT64,          CF_TYPE_INT64,
    CF_TYPE_FLOAT,     CF_TYPE_DOUBLE,    CF_TYPE_UNIXTIME_MICROS, CF_TYPE_INT128,
    CF_TYPE_DECIMAL32, CF_TYPE_DECIMAL64, CF_TYPE_DECIMAL128,      CF_TYPE_DATE,
};
#define NFIXED (sizeof fixed_types / sizeof fixed_types[0])

static void fill_random(cf_rng *r, uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)cf_rng_next(r);
}

static void test_plain__random_round_trip_every_type(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(7));
    cf_error err;
    for (size_t ti = 0; ti < NFIXED; ti++) {
        cf_type t = fixed_types[ti];
        size_t elem = cf_type_size(t);
        for (int iter = 0; iter < 20; iter++) {
            size_t n = (size_t)cf_rng_below(&r, 2000);
            uint8_t *vals = malloc(n * elem + 1), *got = malloc(n * elem + 1);
            fill_random(&r, vals, n * elem);
            cf_encoder *e = enc_create(&cf_enc_plain_ops, t, 1024);
            /* random call sizes */
            for (size_t done = 0; done < n;) {
                size_t k = 1 + (size_t)cf_rng_below(&r, n - done);
                assert_int_equal(e->ops->add(e, vals + done * elem, k, false), k);
                done += k;
            }
            uint32_t ord = (uint32_t)cf_rng_next(&r);
            cf_slice out;
            CF_ASSERT_OK(e->ops->finish(e, ord, &out, &err), &err);
            assert_int_equal(out.len, 8 + n * elem);
            cf_decoder *d = dec_open(CF_ENC_PLAIN, t, out.data, out.len);
            assert_int_equal(d->count, n);
            assert_int_equal(d->first_ord, ord);
            /* sequential in random chunks */
            size_t pos = 0, k;
            while (pos < n) {
                size_t want = 1 + (size_t)cf_rng_below(&r, 300);
                CF_ASSERT_OK(d->ops->next(d, got + pos * elem, want, &k, &err), &err);
                assert_true(k > 0 && k <= want);
                pos += k;
            }
            assert_int_equal(pos, n);
            if (n)
                assert_memory_equal(got, vals, n * elem);
            /* random seeks */
            for (int s = 0; s < 50 && n > 0; s++) {
                size_t idx = (size_t)cf_rng_below(&r, n + 1);
                CF_ASSERT_OK(d->ops->seek(d, idx, &err), &err);
                uint8_t one[16];
                CF_ASSERT_OK(d->ops->next(d, one, 1, &k, &err), &err);
                if (idx == n) {
                    assert_int_equal(k, 0);
                } else {
                    assert_int_equal(k, 1);
                    assert_memory_equal(one, vals + idx * elem, elem);
                }
            }
            CF_ASSERT_STATUS(d->ops->seek(d, n + 1, &err), CF_EINVAL, &err);
            cf_decoder_free(d);
            cf_encoder_free(e);
            free(vals);
            free(got);
        }
    }
}

static int cmp_type;
static int cmp_sort(const void *a, const void *b)
{
    return cf_value_compare((cf_type)cmp_type, a, b);
}

/* Sorted distinct random values; seeks for each value, between neighbours,
 * before the first and after the last. */
static void test_plain__value_seek_every_ordered_type(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(11));
    cf_error err;
    for (size_t ti = 0; ti < NFIXED; ti++) {
        cf_type t = fixed_types[ti];
        if (t == CF_TYPE_FLOAT || t == CF_TYPE_DOUBLE)
            continue;
        size_t elem = cf_type_size(t);
        size_t n = elem == 1 ? 100 : 1000;
        uint8_t *vals = malloc(n * elem);
        fill_random(&r, vals, n * elem);
        cmp_type = (int)t;
        qsort(vals, n, elem, cmp_sort);
        /* make distinct */
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (m == 0 || cf_value_compare(t, vals + (m - 1) * elem, vals + i * elem) != 0)
                memmove(vals + m++ * elem, vals + i * elem, elem);
        cf_encoder *e = enc_create(&cf_enc_plain_ops, t, 1 << 20);
        e->ops->add(e, vals, m, false);
        cf_slice out;
        CF_ASSERT_OK(e->ops->finish(e, 0, &out, &err), &err);
        cf_decoder *d = dec_open(CF_ENC_PLAIN, t, out.data, out.len);
        bool exact;
        for (size_t i = 0; i < m; i++) {
            exact = false;
            CF_ASSERT_OK(d->ops->seek_at_or_after(d, vals + i * elem, &exact, &err), &err);
            assert_true(exact);
            assert_int_equal(d->pos, i);
        }
        /* between: a key one above vals[i] (when that is not vals[i+1]) lands on i+1 */
        for (size_t i = 0; i + 1 < m; i++) {
            uint8_t key[16];
            memcpy(key, vals + i * elem, elem);
            /* add 1 to the little-endian value; wraps only at the type's max */
            for (size_t b = 0; b < elem && ++key[b] == 0; b++)
                ;
            if (cf_value_compare(t, key, vals + i * elem) <= 0 ||
                cf_value_compare(t, key, vals + (i + 1) * elem) == 0)
                continue;
            exact = true;
            CF_ASSERT_OK(d->ops->seek_at_or_after(d, key, &exact, &err), &err);
            assert_false(exact);
            assert_int_equal(d->pos, i + 1);
        }
        /* before first: the type's minimum, if it is not already there */
        uint8_t minv[16] = {0}, maxv[16];
        memset(maxv, 0xff, sizeof maxv);
        bool is_signed =
            t != CF_TYPE_UINT8 && t != CF_TYPE_UINT16 && t != CF_TYPE_UINT32 && t != CF_TYPE_UINT64;
        if (is_signed) {
            minv[elem - 1] = 0x80;
            maxv[elem - 1] = 0x7f;
        }
        CF_ASSERT_OK(d->ops->seek_at_or_after(d, minv, &exact, &err), &err);
        assert_int_equal(d->pos, 0);
        assert_int_equal(exact, cf_value_compare(t, minv, vals) == 0);
        if (cf_value_compare(t, maxv, vals + (m - 1) * elem) != 0) {
            CF_ASSERT_STATUS(d->ops->seek_at_or_after(d, maxv, &exact, &err), CF_ENOTFOUND, &err);
            assert_false(exact);
            assert_int_equal(d->pos, m);
        }
        cf_decoder_free(d);
        cf_encoder_free(e);
        free(vals);
    }
}

/* The integer types' branch-free lower bound: every block length from 1 to
 * 40 (odd and even halvings), repeated values (the first of a run is the
 * answer), keys below, between, on and above them, against a linear search. */
static void test_plain__value_seek_lower_bound_small_blocks(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0x10b0));
    cf_error err;
    const cf_type ts[] = {CF_TYPE_INT32, CF_TYPE_INT64, CF_TYPE_UINT64, CF_TYPE_INT8};
    for (size_t ti = 0; ti < 4; ti++) {
        cf_type t = ts[ti];
        size_t es = cf_type_size(t);
        for (size_t n = 1; n <= 40; n++) {
            int64_t v[40];
            int64_t x = (int64_t)cf_rng_below(&r, 5) - (t == CF_TYPE_UINT64 ? 0 : 2);
            for (size_t i = 0; i < n; i++) {
                v[i] = x;
                x += (int64_t)cf_rng_below(&r, 3); /* 0: a repeat */
            }
            uint8_t vals[40 * 8];
            for (size_t i = 0; i < n; i++)
                memcpy(vals + i * es, &v[i], es); /* little-endian truncation */
            cf_encoder *e = enc_create(&cf_enc_plain_ops, t, 1 << 20);
            e->ops->add(e, vals, n, false);
            cf_slice out;
            CF_ASSERT_OK(e->ops->finish(e, 0, &out, &err), &err);
            cf_decoder *d = dec_open(CF_ENC_PLAIN, t, out.data, out.len);
            for (int64_t k = v[0] - 2; k <= v[n - 1] + 2; k++) {
                if (t == CF_TYPE_UINT64 && k < 0)
                    continue;
                size_t want = 0;
                while (want < n && v[want] < k)
                    want++;
                uint8_t key[8];
                memcpy(key, &k, es);
                dec_expect_seek(d, key, want, n, want < n && v[want] == k);
            }
            cf_decoder_free(d);
            cf_encoder_free(e);
        }
    }
}

static void test_plain__value_seek_signed_order(void **state)
{
    (void)state;
    const int32_t v[5] = {-50, -5, -1, 0, 3};
    cf_encoder *e = enc_create(&cf_enc_plain_ops, CF_TYPE_INT32, 512);
    e->ops->add(e, v, 5, false);
    cf_slice out;
    cf_error err;
    CF_ASSERT_OK(e->ops->finish(e, 0, &out, &err), &err);
    cf_decoder *d = dec_open(CF_ENC_PLAIN, CF_TYPE_INT32, out.data, out.len);
    static const struct {
        int32_t key;
        size_t pos;
        bool exact;
        cf_status st;
    } c[] = {
        {-100, 0, false, CF_OK},     {-50, 0, true, CF_OK}, {-2, 2, false, CF_OK},
        {-1, 2, true, CF_OK},        {1, 4, false, CF_OK},  {3, 4, true, CF_OK},
        {4, 5, false, CF_ENOTFOUND},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        bool exact = !c[i].exact;
        CF_ASSERT_STATUS(d->ops->seek_at_or_after(d, &c[i].key, &exact, &err), c[i].st, &err);
        assert_int_equal(d->pos, c[i].pos);
        assert_int_equal(exact, c[i].exact);
    }
    /* after a seek, next reads from there */
    bool exact;
    int32_t key = -1, got[8];
    size_t n;
    CF_ASSERT_OK(d->ops->seek_at_or_after(d, &key, &exact, &err), &err);
    CF_ASSERT_OK(d->ops->next(d, got, 8, &n, &err), &err);
    assert_int_equal(n, 3);
    assert_memory_equal(got, v + 2, 3 * sizeof *got);
    cf_decoder_free(d);
    cf_encoder_free(e);

    /* UINT32 is unsigned: 0x80000000 sorts after 1 */
    const uint32_t u[2] = {1, 0x80000000u};
    e = enc_create(&cf_enc_plain_ops, CF_TYPE_UINT32, 512);
    e->ops->add(e, u, 2, false);
    CF_ASSERT_OK(e->ops->finish(e, 0, &out, &err), &err);
    d = dec_open(CF_ENC_PLAIN, CF_TYPE_UINT32, out.data, out.len);
    uint32_t ukey = 2;
    CF_ASSERT_OK(d->ops->seek_at_or_after(d, &ukey, &exact, &err), &err);
    assert_int_equal(d->pos, 1);
    assert_false(exact);
    cf_decoder_free(d);
    cf_encoder_free(e);
}

static void test_plain__value_seek_unsupported_for_floats(void **state)
{
    (void)state;
    const double v[2] = {1.0, 2.0};
    cf_encoder *e = enc_create(&cf_enc_plain_ops, CF_TYPE_DOUBLE, 512);
    e->ops->add(e, v, 2, false);
    cf_slice out;
    cf_error err;
    CF_ASSERT_OK(e->ops->finish(e, 0, &out, &err), &err);
    cf_decoder *d = dec_open(CF_ENC_PLAIN, CF_TYPE_DOUBLE, out.data, out.len);
    bool exact;
    CF_ASSERT_STATUS(d->ops->seek_at_or_after(d, &v[0], &exact, &err), CF_ENOTSUP, &err);
    cf_decoder_free(d);
    cf_encoder_free(e);
}

static void test_plain__corrupt_lengths(void **state)
{
    (void)state;
    uint8_t blk[64];
    size_t len = cf_test_unhex("03 00 00 00 00 00 00 00 01 00 00 00 02 00 00 00 03 00 00 00", blk,
                               sizeof blk);
    cf_error err;
    CF_ASSERT_OK(try_load(CF_TYPE_INT32, blk, len, &err), &err);
    for (size_t cut = 0; cut < len; cut++)
        CF_ASSERT_STATUS(try_load(CF_TYPE_INT32, blk, cut, &err), CF_ECORRUPT, &err);
    blk[len] = 0; /* one extra byte */
    CF_ASSERT_STATUS(try_load(CF_TYPE_INT32, blk, len + 1, &err), CF_ECORRUPT, &err);
    /* lying counts */
    const uint32_t lies[] = {2, 4, 0, 0xffffffffu, 0x40000003u};
    for (size_t i = 0; i < sizeof lies / sizeof lies[0]; i++) {
        memcpy(blk, &lies[i], 4);
        CF_ASSERT_STATUS(try_load(CF_TYPE_INT32, blk, len, &err), CF_ECORRUPT, &err);
    }
    /* the same 12 value bytes read as INT64 cannot be a whole number of values... */
    const uint32_t three = 3, six = 6;
    memcpy(blk, &three, 4);
    CF_ASSERT_STATUS(try_load(CF_TYPE_INT64, blk, len, &err), CF_ECORRUPT, &err);
    /* ...but as INT16 with count 6 they are */
    memcpy(blk, &six, 4);
    CF_ASSERT_OK(try_load(CF_TYPE_INT16, blk, len, &err), &err);
    /* a failed load leaves an empty decoder behind */
    cf_dec_params p = {.type = CF_TYPE_INT32, .elem_size = 4};
    cf_decoder *d = NULL;
    CF_ASSERT_OK(cf_dec_plain_ops.create(&d, &p, &err), &err);
    CF_ASSERT_STATUS(d->ops->load(d, blk, 5, &err), CF_ECORRUPT, &err);
    assert_int_equal(d->count, 0);
    size_t n = 1;
    int32_t x;
    CF_ASSERT_OK(d->ops->next(d, &x, 1, &n, &err), &err);
    assert_int_equal(n, 0);
    cf_decoder_free(d);
}

static void test_plain__rejects_non_fixed_types(void **state)
{
    (void)state;
    cf_error err;
    const cf_type bad[] = {CF_TYPE_BOOL,    CF_TYPE_STRING, CF_TYPE_BINARY,
                           CF_TYPE_VARCHAR, (cf_type)18,    (cf_type)99};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cf_enc_params ep = {.type = bad[i], .block_size = 512};
        cf_encoder *e = (cf_encoder *)1;
        CF_ASSERT_STATUS(cf_enc_plain_ops.create(&e, &ep, &err), CF_EINVAL, &err);
        assert_null(e);
        cf_dec_params dp = {.type = bad[i]};
        cf_decoder *d = (cf_decoder *)1;
        CF_ASSERT_STATUS(cf_dec_plain_ops.create(&d, &dp, &err), CF_EINVAL, &err);
        assert_null(d);
    }
    cf_enc_params ep = {.type = CF_TYPE_INT32, .elem_size = 8, .block_size = 512};
    cf_encoder *e;
    CF_ASSERT_STATUS(cf_enc_plain_ops.create(&e, &ep, &err), CF_EINVAL, &err);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain__spec_block_14_2),
        cmocka_unit_test(test_plain__empty_block_and_first_ordinal),
        cmocka_unit_test(test_plain__fullness_follows_add_calls),
        cmocka_unit_test(test_plain__random_round_trip_every_type),
        cmocka_unit_test(test_plain__value_seek_every_ordered_type),
        cmocka_unit_test(test_plain__value_seek_lower_bound_small_blocks),
        cmocka_unit_test(test_plain__value_seek_signed_order),
        cmocka_unit_test(test_plain__value_seek_unsupported_for_floats),
        cmocka_unit_test(test_plain__corrupt_lengths),
        cmocka_unit_test(test_plain__rejects_non_fixed_types),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* BIT_SHUFFLE block encoding (format §8.5): the blocks of §14.5 and §14.9 with
 * their LZ4 bytes, UINT32 narrowing (§8.5.3) and its empty form, the capacity
 * rule (§8.5.1, §10.2), round trips with seeks for every type, and corrupt
 * or hostile headers. */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "codec/bitshuffle.h"
#include "encoding/encodings.h"

#include "all_types.h"
#include "support_codec.h"
#include "util/endian.h"
#include "util/int128.h"

/* Encode n values into one block; the caller frees *out. */
static size_t encode(cf_type t, const void *vals, size_t n, uint32_t ord, uint8_t **out)
{
    cf_encoder *e = enc_create(&cf_enc_bshuf_ops, t, 1u << 24);
    assert_int_equal(e->ops->add(e, vals, n, false), n);
    cf_slice s;
    cf_error err;
    CF_ASSERT_OK(e->ops->finish(e, ord, &s, &err), &err);
    *out = malloc(s.len);
    memcpy(*out, s.data, s.len);
    size_t len = s.len;
    cf_encoder_free(e);
    return len;
}

static void expect_block(cf_type t, const void *vals, size_t n, uint32_t ord, const char *hex)
{
    uint8_t want[256];
    size_t wl = cf_test_unhex(hex, want, sizeof want);
    uint8_t *b;
    size_t len = encode(t, vals, n, ord, &b);
    CF_ASSERT_BYTES(b, len, want, wl);
    free(b);
}

static void test_bshuf__section_14_5(void **state)
{
    (void)state;
    const int32_t v[5] = {1, 2, 3, 4, 5};
    expect_block(CF_TYPE_INT32, v, 5, 0,
                 "00000000 05000000 26000000 08000000 04000000"
                 "0000000e 4f 15 06 18 00 01 00 04 50 00 00 00 00 00");
    /* decode it back */
    uint8_t blk[64];
    size_t len = cf_test_unhex("00000000 05000000 26000000 08000000 04000000"
                               "0000000e 4f 15 06 18 00 01 00 04 50 00 00 00 00 00",
                               blk, sizeof blk);
    cf_decoder *d = dec_create(&cf_dec_bshuf_ops, CF_TYPE_INT32);
    cf_error err;
    CF_ASSERT_OK(d->ops->load(d, blk, len, &err), &err);
    dec_expect_values(d, v, 5, sizeof v[0]);
    cf_decoder_free(d);
}

/* §14.9: the codeword sub-block of a DICT block: UINT32 0,1,0 narrowed to 1 byte. */
static void test_bshuf__section_14_9_codewords(void **state)
{
    (void)state;
    const uint32_t cw[3] = {0, 1, 0};
    expect_block(CF_TYPE_UINT32, cw, 3, 0,
                 "00000000 03000000 21000000 08000000 01000000"
                 "00000009 80 02 00 00 00 00 00 00 00");
}

/* §8.5.3: values 0, m, 1 pick elem_size 1 (m = 255), 2 (256, 65535), 4 (65536). */
static void test_bshuf__narrowing(void **state)
{
    (void)state;
    const uint32_t ms[4] = {255, 256, 65535, 65536};
    const uint32_t want_esz[4] = {1, 2, 2, 4};
    cf_error err;
    for (int k = 0; k < 4; k++) {
        uint32_t v[3] = {0, ms[k], 1};
        uint8_t *b;
        size_t len = encode(CF_TYPE_UINT32, v, 3, 5, &b);
        assert_int_equal(cf_load_le32(b), 5);
        assert_int_equal(cf_load_le32(b + 4), 3);
        assert_int_equal(cf_load_le32(b + 8), len);
        assert_int_equal(cf_load_le32(b + 12), 8);
        assert_int_equal(cf_load_le32(b + 16), want_esz[k]);
        cf_decoder *d = dec_create(&cf_dec_bshuf_ops, CF_TYPE_UINT32);
        CF_ASSERT_OK(d->ops->load(d, b, len, &err), &err);
        uint32_t got[3];
        size_t g;
        CF_ASSERT_OK(d->ops->next(d, got, 3, &g, &err), &err);
        assert_int_equal(g, 3);
        assert_memory_equal(got, v, sizeof v);
        /* value seek on narrowed data */
        uint32_t key = 2;
        bool exact;
        CF_ASSERT_OK(d->ops->seek_at_or_after(d, &key, &exact, &err), &err);
        assert_int_equal(d->pos, 1); /* 0, m, 1 is not sorted; lower bound over it */
        cf_decoder_free(d);
        free(b);
    }
    /* empty blocks: UINT32 narrows to 1 byte, others keep their size */
    expect_block(CF_TYPE_UINT32, NULL, 0, 0, "00000000 00000000 14000000 00000000 01000000");
    expect_block(CF_TYPE_INT64, NULL, 0, 3, "03000000 00000000 14000000 00000000 08000000");
    uint8_t blk[20];
    cf_test_unhex("00000000 00000000 14000000 00000000 01000000", blk, 20);
    cf_decoder *d = dec_create(&cf_dec_bshuf_ops, CF_TYPE_UINT32);
    CF_ASSERT_OK(d->ops->load(d, blk, 20, &err), &err);
    assert_int_equal(d->count, 0);
    size_t g = 9;
    uint32_t x;
    CF_ASSERT_OK(d->ops->next(d, &x, 1, &g, &err), &err);
    assert_int_equal(g, 0);
    bool exact;
    CF_ASSERT_STATUS(d->ops->seek_at_or_after(d, &x, &exact, &err), CF_ENOTFOUND, &err);
    cf_decoder_free(d);
}

/* §8.5.1: capacity floor(block_size / sizeof(type)); add stops there unless forced. */
static void test_bshuf__capacity(void **state)
{
    (void)state;
    const cf_type types[] = {CF_TYPE_UINT8,  CF_TYPE_INT16,  CF_TYPE_INT32,
                             CF_TYPE_UINT32, CF_TYPE_DOUBLE, CF_TYPE_INT128};
    static uint8_t vals[16 * 4096];
    cf_error err;
    for (size_t i = 0; i < sizeof vals; i++)
        vals[i] = (uint8_t)(i * 31);
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
        size_t es = cf_type_size(types[k]);
        size_t cap = 700 / es;
        cf_encoder *e = enc_create(&cf_enc_bshuf_ops, types[k], 700);
        assert_int_equal(e->ops->add(e, vals, 5, false), 5);
        assert_false(e->ops->is_full(e));
        assert_int_equal(e->ops->add(e, vals + 5 * es, 4000, false), cap - 5);
        assert_true(e->ops->is_full(e));
        assert_int_equal(e->ops->add(e, vals, 10, false), 0);
        assert_int_equal(e->ops->add(e, vals, 10, true), 10);
        assert_int_equal(e->ops->count(e), cap + 10);
        cf_slice s;
        CF_ASSERT_OK(e->ops->finish(e, 0, &s, &err), &err);
        assert_int_equal(cf_load_le32(s.data + 4), cap + 10);
        /* finish twice gives the same block */
        uint8_t *copy = malloc(s.len);
        memcpy(copy, s.data, s.len);
        size_t clen = s.len;
        CF_ASSERT_OK(e->ops->finish(e, 0, &s, &err), &err);
        CF_ASSERT_BYTES(s.data, s.len, copy, clen);
        free(copy);
        e->ops->reset(e);
        assert_int_equal(e->ops->count(e), 0);
        assert_false(e->ops->is_full(e));
        assert_int_equal(e->ops->add(e, vals, 4000, false), cap);
        cf_encoder_free(e);
    }
    /* 256 KiB of INT32 is 65536 values */
    cf_encoder *e = enc_create(&cf_enc_bshuf_ops, CF_TYPE_INT32, 262144);
    int32_t *many = calloc(70000, 4);
    assert_int_equal(e->ops->add(e, many, 70000, false), 65536);
    assert_true(e->ops->is_full(e));
    free(many);
    cf_encoder_free(e);
}

/* ---- round trips --------------------------------------------------------------------- */

static bool is_signed_type(cf_type p)
{
    return p == CF_TYPE_INT8 || p == CF_TYPE_INT16 || p == CF_TYPE_INT32 || p == CF_TYPE_INT64 ||
           p == CF_TYPE_INT128;
}

static int cmp(cf_type t, const uint8_t *a, const uint8_t *b)
{
    cf_type p = cf_type_physical(t);
    size_t es = cf_type_size(t);
    if (p == CF_TYPE_INT128) {
        cf_i128 x, y;
        memcpy(&x, a, 16);
        memcpy(&y, b, 16);
        return (x > y) - (x < y);
    }
    if (is_signed_type(p)) {
        int64_t x, y;
        switch (es) {
        case 1:
            x = (int8_t)a[0];
            y = (int8_t)b[0];
            break;
        case 2:
            x = (int16_t)cf_load_le16(a);
            y = (int16_t)cf_load_le16(b);
            break;
        case 4:
            x = (int32_t)cf_load_le32(a);
            y = (int32_t)cf_load_le32(b);
            break;
        default:
            x = (int64_t)cf_load_le64(a);
            y = (int64_t)cf_load_le64(b);
            break;
        }
        return (x > y) - (x < y);
    }
    uint64_t x = 0, y = 0;
    memcpy(&x, a, es);
    memcpy(&y, b, es);
    return (x > y) - (x < y);
}

static int cmp_qsort_type;
static int qcmp(const void *a, const void *b)
{
    return cmp((cf_type)cmp_qsort_type, a, b);
}

static void gen(cf_rng *r, uint8_t *v, size_t n, size_t es, cf_type t)
{
    /* UINT32: random maximum so every narrowing occurs */
    uint64_t lim = 0;
    if (cf_type_physical(t) == CF_TYPE_UINT32) {
        const uint64_t lims[] = {2, 256, 65536, 1ull << 32};
        lim = lims[cf_rng_below(r, 4)];
    }
    int mode = (int)cf_rng_below(r, 3);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < es; j += 8) {
            uint64_t x = mode == 0 ? cf_rng_next(r) : mode == 1 ? cf_rng_below(r, 100) - 50 : i;
            if (lim)
                x %= lim;
            size_t k = es - j < 8 ? es - j : 8;
            memcpy(v + i * es + j, &x, k);
        }
    }
}

static void test_bshuf__round_trip_all_types(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(1));
    cf_error err;
    size_t ntypes = 0;
    for (size_t ti = 0; ti < CF_NTYPES; ti++) {
        cf_type t = cf_all_types[ti];
        if (!cf_type_allows_encoding(t, CF_ENC_BIT_SHUFFLE))
            continue;
        ntypes++;
        size_t es = cf_type_size(t);
        cf_decoder *d = dec_create(&cf_dec_bshuf_ops, t); /* reused across blocks */
        for (int iter = 0; iter < 12; iter++) {
            /* sizes spanning several bitshuffle chunks, not multiples of 8 */
            size_t n = iter == 0 ? 1 : (size_t)cf_rng_below(&r, iter < 6 ? 200 : 20000);
            uint8_t *v = malloc(n * es + 16), *got = malloc(n * es + 16);
            gen(&r, v, n, es, t);
            bool sorted = cf_rng_below(&r, 2) && t != CF_TYPE_FLOAT && t != CF_TYPE_DOUBLE;
            if (sorted) {
                cmp_qsort_type = (int)t;
                qsort(v, n, es, qcmp);
            }
            uint8_t *b;
            size_t len = encode(t, v, n, 1234, &b);
            CF_ASSERT_OK(d->ops->load(d, b, len, &err), &err);
            assert_int_equal(d->count, n);
            assert_int_equal(d->first_ord, 1234);
            size_t done = 0, g;
            while (done < n) {
                CF_ASSERT_OK(d->ops->next(d, got + done * es, 1 + cf_rng_below(&r, 3000), &g, &err),
                             &err);
                assert_true(g > 0);
                done += g;
            }
            assert_memory_equal(got, v, n * es);
            for (int k = 0; k < 10 && n; k++) {
                size_t idx = (size_t)cf_rng_below(&r, n + 1);
                CF_ASSERT_OK(d->ops->seek(d, idx, &err), &err);
                CF_ASSERT_OK(d->ops->next(d, got, 5, &g, &err), &err);
                assert_int_equal(g, n - idx < 5 ? n - idx : 5);
                assert_memory_equal(got, v + idx * es, g * es);
            }
            CF_ASSERT_STATUS(d->ops->seek(d, n + 1, &err), CF_EINVAL, &err);
            bool exact;
            if (t == CF_TYPE_FLOAT || t == CF_TYPE_DOUBLE) {
                CF_ASSERT_STATUS(d->ops->seek_at_or_after(d, v, &exact, &err), CF_ENOTSUP, &err);
            } else if (sorted) {
                /* Half the seeks with the block's seek index lent (each chunk's
                 * first value, as a cache keeps it), which the next load forgets. */
                size_t il = d->ops->seek_index_len(d);
                uint8_t *idx = il ? malloc(il) : NULL;
                size_t ce = cf_bshuf_chunk_elems(cf_load_le32(b + 16)); /* encoded width */
                assert_int_equal(il, n ? ((n + 7) / 8 * 8 + ce - 1) / ce * es : 0);
                if (il) {
                    CF_ASSERT_OK(d->ops->seek_index_build(d, idx, &err), &err);
                    for (size_t c = 0; c * ce < n; c++)
                        assert_memory_equal(idx + c * es, v + c * ce * es, es);
                }
                for (int k = 0; k < 20; k++) {
                    if (k == 10 && il)
                        d->ops->seek_index_use(d, idx, il);
                    uint8_t key[16];
                    if (n && cf_rng_below(&r, 2))
                        memcpy(key, v + cf_rng_below(&r, n) * es, es);
                    else
                        gen(&r, key, 1, es, t);
                    size_t want = 0;
                    while (want < n && cmp(t, v + want * es, key) < 0)
                        want++;
                    bool hit = want < n && cmp(t, v + want * es, key) == 0;
                    if (dec_expect_seek(d, key, want, n, hit)) {
                        CF_ASSERT_OK(d->ops->next(d, got, 1, &g, &err), &err);
                        assert_memory_equal(got, v + want * es, es);
                    }
                }
                free(idx);
            }
            free(b);
            free(v);
            free(got);
        }
        cf_decoder_free(d);
    }
    assert_int_equal(ntypes, 16); /* every fixed-width type but BOOL */
}

/* ---- corrupt blocks ------------------------------------------------------------------ */

static void test_bshuf__corrupt_header(void **state)
{
    (void)state;
    cf_error err;
    int32_t v[100];
    for (int i = 0; i < 100; i++)
        v[i] = i * i;
    uint8_t *b;
    size_t len = encode(CF_TYPE_INT32, v, 100, 0, &b);
    uint8_t *m = malloc(len + 8);
    cf_decoder *d = dec_create(&cf_dec_bshuf_ops, CF_TYPE_INT32);
    for (size_t cut = 0; cut < len; cut++)
        CF_ASSERT_STATUS(d->ops->load(d, b, cut, &err), CF_ECORRUPT, &err);
    /* block_len off by one either way, with the real length */
    memcpy(m, b, len);
    cf_store_le32(m + 8, (uint32_t)len + 1);
    CF_ASSERT_STATUS(d->ops->load(d, m, len, &err), CF_ECORRUPT, &err);
    cf_store_le32(m + 8, (uint32_t)len - 1);
    CF_ASSERT_STATUS(d->ops->load(d, m, len, &err), CF_ECORRUPT, &err);
    /* a block longer than its payload (trailing byte, block_len matching) */
    memcpy(m, b, len);
    m[len] = 0;
    cf_store_le32(m + 8, (uint32_t)len + 1);
    CF_ASSERT_STATUS(d->ops->load(d, m, len + 1, &err), CF_ECORRUPT, &err);
    /* padded count must be round_up(count, 8) */
    const uint32_t pads[] = {96, 100, 112, 0};
    for (int k = 0; k < 4; k++) {
        memcpy(m, b, len);
        cf_store_le32(m + 12, pads[k]);
        CF_ASSERT_STATUS(d->ops->load(d, m, len, &err), CF_ECORRUPT, &err);
    }
    /* count changed, padded kept consistent: the payload no longer matches */
    memcpy(m, b, len);
    cf_store_le32(m + 4, 120);
    cf_store_le32(m + 12, 120);
    CF_ASSERT_STATUS(d->ops->load(d, m, len, &err), CF_ECORRUPT, &err);
    /* element sizes */
    const uint32_t sizes[] = {0, 1, 2, 3, 8, 16, 32};
    for (int k = 0; k < 7; k++) {
        memcpy(m, b, len);
        cf_store_le32(m + 16, sizes[k]);
        CF_ASSERT_STATUS(d->ops->load(d, m, len, &err), CF_ECORRUPT, &err);
    }
    /* hostile counts: rejected before any big allocation */
    memcpy(m, b, len);
    cf_store_le32(m + 4, 0xfffffff0u);
    cf_store_le32(m + 12, 0xfffffff0u);
    CF_ASSERT_STATUS(d->ops->load(d, m, len, &err), CF_ECORRUPT, &err);
    cf_store_le32(m + 4, 0xffffffffu); /* padded would not fit 32 bits */
    CF_ASSERT_STATUS(d->ops->load(d, m, len, &err), CF_ECORRUPT, &err);
    /* a failed load leaves an empty decoder */
    assert_int_equal(d->count, 0);
    /* and a good block still loads afterwards */
    CF_ASSERT_OK(d->ops->load(d, b, len, &err), &err);
    assert_int_equal(d->count, 100);
    cf_decoder_free(d);

    /* UINT32 accepts 1, 2, 4 but not 8; INT64 only 8 */
    uint32_t u[3] = {0, 1, 0};
    free(b);
    len = encode(CF_TYPE_UINT32, u, 3, 0, &b);
    memcpy(m, b, len);
    cf_store_le32(m + 16, 8);
    d = dec_create(&cf_dec_bshuf_ops, CF_TYPE_UINT32);
    CF_ASSERT_STATUS(d->ops->load(d, m, len, &err), CF_ECORRUPT, &err);
    cf_decoder_free(d);
    d = dec_create(&cf_dec_bshuf_ops, CF_TYPE_INT64);
    CF_ASSERT_STATUS(d->ops->load(d, b, len, &err), CF_ECORRUPT, &err);
    cf_decoder_free(d);
    free(b);
    free(m);
}

static void test_bshuf__corrupt_payload(void **state)
{
    (void)state;
    cf_error err;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(1) + 9);
    enum { N = 5000 };
    int64_t *v = malloc(N * 8), *got = malloc(N * 8);
    for (int i = 0; i < N; i++)
        v[i] = (int64_t)cf_rng_below(&r, 1000);
    uint8_t *b;
    size_t len = encode(CF_TYPE_INT64, v, N, 0, &b);
    uint8_t *m = malloc(len);
    cf_decoder *d = dec_create(&cf_dec_bshuf_ops, CF_TYPE_INT64);
    for (int iter = 0; iter < 1000; iter++) {
        memcpy(m, b, len);
        size_t at = 20 + (size_t)cf_rng_below(&r, len - 20);
        m[at] ^= (uint8_t)(1u << cf_rng_below(&r, 8));
        cf_status st = d->ops->load(d, m, len, &err);
        assert_true(st == CF_OK || st == CF_ECORRUPT);
        if (st == CF_OK) {
            /* chunks decode lazily: LZ4 damage shows up in the read that
             * touches it, as a clean error */
            size_t g;
            st = d->ops->next(d, got, N, &g, &err);
            assert_true(st == CF_OK || st == CF_ECORRUPT);
            if (st == CF_OK)
                assert_int_equal(g, N);
            else
                assert_true(g < N);
        }
    }
    /* the chunk length prefix itself */
    memcpy(m, b, len);
    cf_store_be32(m + 20, 0xffffffffu);
    CF_ASSERT_STATUS(d->ops->load(d, m, len, &err), CF_ECORRUPT, &err);
    cf_decoder_free(d);
    free(b);
    free(m);
    free(v);
    free(got);
}

/* Saved state (load_saved): a block loaded from the state its first load
 * saved reads the same values at every seek, for narrowed UINT32 too; a state
 * that does not fit the block (another block's, cut short, offsets out of
 * order or past the payload) is refused and leaves the decoder unbound. */
static void saved_round_trip(cf_type t, const void *vals, size_t n)
{
    cf_error err;
    uint8_t *b;
    size_t len = encode(t, vals, n, 77, &b);
    cf_decoder *d = dec_create(&cf_dec_bshuf_ops, t), *d2 = dec_create(&cf_dec_bshuf_ops, t);
    CF_ASSERT_OK(d->ops->load(d, b, len, &err), &err);
    size_t sl = d->ops->saved_len(d);
    assert_true(sl > 0 && sl % 4 == 0);
    uint32_t *st = malloc(sl);
    d->ops->save(d, st);
    CF_ASSERT_OK(d2->ops->load_saved(d2, b, len, st, sl, &err), &err);
    assert_int_equal(d2->count, n);
    assert_int_equal(d2->first_ord, 77);
    size_t es = cf_type_size(t);
    uint8_t got[16];
    for (size_t k = 0; k < 300; k++) {
        size_t i = (k * 7919) % n;
        size_t g;
        CF_ASSERT_OK(d2->ops->seek(d2, i, &err), &err);
        CF_ASSERT_OK(d2->ops->next(d2, got, 1, &g, &err), &err);
        assert_int_equal(g, 1);
        assert_memory_equal(got, (const uint8_t *)vals + i * es, es);
    }
    /* Misfits. */
    CF_ASSERT_STATUS(d2->ops->load_saved(d2, b, len, st, sl - 4, &err), CF_ECORRUPT, &err);
    assert_int_equal(d2->count, 0);
    CF_ASSERT_STATUS(d2->ops->load_saved(d2, b, len - 1, st, sl, &err), CF_ECORRUPT, &err);
    uint32_t *bad = malloc(sl);
    memcpy(bad, st, sl);
    bad[1]++; /* count */
    CF_ASSERT_STATUS(d2->ops->load_saved(d2, b, len, bad, sl, &err), CF_ECORRUPT, &err);
    memcpy(bad, st, sl);
    if (sl / 4 > 7) { /* two chunks or more: out of order */
        bad[7] = bad[6];
        CF_ASSERT_STATUS(d2->ops->load_saved(d2, b, len, bad, sl, &err), CF_ECORRUPT, &err);
    }
    memcpy(bad, st, sl);
    bad[6] = (uint32_t)len; /* past the payload */
    CF_ASSERT_STATUS(d2->ops->load_saved(d2, b, len, bad, sl, &err), CF_ECORRUPT, &err);
    free(bad);
    free(st);
    free(b);
    cf_decoder_free(d);
    cf_decoder_free(d2);
}

static void test_bshuf__saved_state(void **state)
{
    (void)state;
    const size_t n = 5000;
    int64_t *a = malloc(n * 8);
    uint32_t *u = malloc(n * 4);
    for (size_t i = 0; i < n; i++) {
        a[i] = (int64_t)(i * 2654435761u) - 77;
        u[i] = (uint32_t)(i % 300); /* narrowed to 2 bytes */
    }
    saved_round_trip(CF_TYPE_INT64, a, n);
    saved_round_trip(CF_TYPE_UINT32, u, n);
    free(a);
    free(u);
}

/* Values read a few at a time from anywhere (a point lookup's row: from the
 * chunk's LZ4 output, one bit per plane) equal the block's, before and after
 * the decoder transposes a chunk it was read from often, and mixed with
 * whole-chunk reads; for narrowed UINT32 and 16-byte values too. */
static void test_bshuf__few_values(void **state)
{
    (void)state;
    const cf_type types[] = {CF_TYPE_UINT8, CF_TYPE_INT16,  CF_TYPE_UINT32, CF_TYPE_INT32,
                             CF_TYPE_INT64, CF_TYPE_DOUBLE, CF_TYPE_INT128};
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(7));
    cf_error err;
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        cf_type t = types[ti];
        size_t es = cf_type_size(t), n = 9000 + (size_t)cf_rng_below(&r, 100);
        uint8_t *v = malloc(n * es), *got = malloc(n * es);
        gen(&r, v, n, es, t);
        uint8_t *b;
        size_t len = encode(t, v, n, 0, &b);
        cf_decoder *d = dec_create(&cf_dec_bshuf_ops, t);
        CF_ASSERT_OK(d->ops->load(d, b, len, &err), &err);
        for (int k = 0; k < 3000; k++) {
            /* mostly single values near each other, sometimes a long read */
            size_t i = k % 50 == 49 ? (size_t)cf_rng_below(&r, n) : (size_t)(k * 37) % n;
            size_t want = k % 97 == 0 ? 2500 : 1 + (size_t)cf_rng_below(&r, 3), g;
            CF_ASSERT_OK(d->ops->seek(d, i, &err), &err);
            CF_ASSERT_OK(d->ops->next(d, got, want, &g, &err), &err);
            assert_int_equal(g, n - i < want ? n - i : want);
            assert_memory_equal(got, v + i * es, g * es);
        }
        cf_decoder_free(d);
        free(b);
        free(v);
        free(got);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bshuf__section_14_5),
        cmocka_unit_test(test_bshuf__section_14_9_codewords),
        cmocka_unit_test(test_bshuf__saved_state),
        cmocka_unit_test(test_bshuf__narrowing),
        cmocka_unit_test(test_bshuf__capacity),
        cmocka_unit_test(test_bshuf__round_trip_all_types),
        cmocka_unit_test(test_bshuf__few_values),
        cmocka_unit_test(test_bshuf__corrupt_header),
        cmocka_unit_test(test_bshuf__corrupt_payload),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

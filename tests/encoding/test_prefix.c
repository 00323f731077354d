/* PREFIX block encoding (format §8.7, §14.8): exact bytes, round trips against
 * an independent reference encoder, seeks, and corrupt blocks. */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encoding/encodings.h"
#include "util/endian.h"

#include "support_codec.h"

static cf_enc_params enc_params(uint32_t block_size, uint32_t interval)
{
    cf_enc_params p = {.type = CF_TYPE_BINARY,
                       .elem_size = sizeof(cf_slice),
                       .block_size = block_size,
                       .restart_interval = interval};
    return p;
}

static const cf_dec_params dec_params = {.type = CF_TYPE_BINARY, .elem_size = sizeof(cf_slice)};

static cf_slice S(const char *s)
{
    return (cf_slice){(const uint8_t *)s, strlen(s)};
}

/* Encode all values into one block (force) and compare with the hex. */
static void check_block(const cf_slice *v, size_t n, uint32_t interval, uint32_t ord,
                        const char *hex)
{
    cf_error err;
    cf_encoder *e;
    cf_enc_params p = enc_params(262144, interval);
    CF_ASSERT_OK(cf_enc_prefix_ops.create(&e, &p, &err), &err);
    if (n)
        assert_int_equal(cf_enc_prefix_ops.add(e, v, n, false), n);
    assert_int_equal(cf_enc_prefix_ops.count(e), n);
    cf_slice out;
    CF_ASSERT_OK(cf_enc_prefix_ops.finish(e, ord, &out, &err), &err);
    uint8_t want[256];
    size_t wl = cf_test_unhex(hex, want, sizeof want);
    CF_ASSERT_BYTES(out.data, out.len, want, wl);
    /* a second finish gives the same block */
    CF_ASSERT_OK(cf_enc_prefix_ops.finish(e, ord, &out, &err), &err);
    CF_ASSERT_BYTES(out.data, out.len, want, wl);

    /* and decode it back */
    cf_decoder *d;
    CF_ASSERT_OK(cf_decoder_open(&d, CF_ENC_PREFIX, &dec_params, out.data, out.len, &err), &err);
    assert_int_equal(d->count, n);
    assert_int_equal(d->first_ord, ord);
    cf_slice got[16];
    size_t g;
    CF_ASSERT_OK(d->ops->next(d, got, 16, &g, &err), &err);
    assert_int_equal(g, n);
    for (size_t i = 0; i < n; i++)
        CF_ASSERT_BYTES(got[i].data, got[i].len, v[i].data, v[i].len);
    cf_decoder_free(d);
    cf_encoder_free(e);
}

static void test_prefix__example_apple(void **state)
{
    (void)state;
    cf_slice v[] = {S("apple"), S("apply"), S("banana")};
    check_block(v, 3, 16, 0,
                "00 03 00 10 00"
                "00 05 61 70 70 6c 65"
                "04 01 79"
                "00 06 62 61 6e 61 6e 61"
                "00 00 00 00");
}

static void test_prefix__example_interval2(void **state)
{
    (void)state;
    cf_slice v[] = {S("a"), S("ab"), S("abc"), S("abd"), S("b")};
    check_block(v, 5, 2, 0,
                "00 05 00 02 00"
                "00 01 61"
                "01 01 62"
                "00 03 61 62 63"
                "02 01 64"
                "00 01 62"
                "0b 00 00 00 13 00 00 00"
                "02 00 00 00");
}

static void test_prefix__empty(void **state)
{
    (void)state;
    check_block(NULL, 0, 16, 7, "00 00 07 10 00 00 00 00 00");
    /* the empty block decodes to nothing and a value seek finds nothing */
    uint8_t blk[9];
    size_t bl = cf_test_unhex("00 00 07 10 00 00 00 00 00", blk, sizeof blk);
    cf_error err;
    cf_decoder *d;
    CF_ASSERT_OK(cf_decoder_open(&d, CF_ENC_PREFIX, &dec_params, blk, bl, &err), &err);
    cf_slice k = S("x"), got[1];
    bool exact = true;
    CF_ASSERT_STATUS(d->ops->seek_at_or_after(d, &k, &exact, &err), CF_ENOTFOUND, &err);
    assert_false(exact);
    size_t g = 1;
    CF_ASSERT_OK(d->ops->next(d, got, 1, &g, &err), &err);
    assert_int_equal(g, 0);
    cf_decoder_free(d);
}

static void test_prefix__first_ordinal_and_large_header(void **state)
{
    (void)state;
    /* a 4-byte ordinal and a 2-byte interval widen the header group */
    cf_slice v[] = {S("x")};
    check_block(v, 1, 300, 0x01020304u,
                "34 01 04 03 02 01 2c 01 00"
                "00 01 78"
                "00 00 00 00");
}

/* ---- reference encoder, written from the spec text alone -------------------------- */

typedef struct ref_block {
    uint8_t *data;
    size_t len;
    size_t first, count; /* value range */
} ref_block;

static size_t put_varint(uint8_t *p, uint32_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

static size_t ref_gvint(uint8_t *p, const uint32_t v[4])
{
    size_t o = 1;
    uint8_t sel = 0;
    for (int i = 0; i < 4; i++) {
        size_t l = v[i] < 0x100 ? 1 : v[i] < 0x10000 ? 2 : v[i] < 0x1000000 ? 3 : 4;
        sel = (uint8_t)(sel | (l - 1) << (6 - 2 * i));
        for (size_t k = 0; k < l; k++)
            p[o++] = (uint8_t)(v[i] >> (8 * k));
    }
    p[0] = sel;
    return o;
}

/* Blocks for `vals` with block size bs: a value is taken while entries <= bs. */
static size_t ref_encode(const cf_slice *vals, size_t n, uint32_t interval, uint32_t bs,
                         ref_block *out, size_t max_blocks)
{
    size_t nb = 0, i = 0;
    while (i < n) {
        assert_true(nb < max_blocks);
        size_t cap = 64;
        for (size_t j = i; j < n; j++)
            cap += vals[j].len + 16;
        uint8_t *ent = malloc(cap);
        uint32_t *rs = malloc(sizeof(uint32_t) * (n - i + 1));
        size_t el = 0, nr = 0, start = i;
        while (i < n && el <= bs) {
            size_t k = i - start, shared = 0;
            if (k % interval == 0) {
                if (k)
                    rs[nr++] = (uint32_t)el;
            } else {
                const cf_slice *a = &vals[i - 1], *b = &vals[i];
                while (shared < a->len && shared < b->len && a->data[shared] == b->data[shared])
                    shared++;
            }
            el += put_varint(ent + el, (uint32_t)shared);
            el += put_varint(ent + el, (uint32_t)(vals[i].len - shared));
            memcpy(ent + el, vals[i].data + shared, vals[i].len - shared);
            el += vals[i].len - shared;
            i++;
        }
        uint8_t hdr[17];
        uint32_t h[4] = {(uint32_t)(i - start), (uint32_t)start, interval, 0};
        size_t hl = ref_gvint(hdr, h);
        ref_block *b = &out[nb++];
        b->len = hl + el + 4 * nr + 4;
        b->data = malloc(b->len);
        memcpy(b->data, hdr, hl);
        memcpy(b->data + hl, ent, el);
        for (size_t k = 0; k < nr; k++)
            cf_store_le32(b->data + hl + el + 4 * k, rs[k] + (uint32_t)hl);
        cf_store_le32(b->data + b->len - 4, (uint32_t)nr);
        b->first = start;
        b->count = i - start;
        free(ent);
        free(rs);
    }
    return nb;
}

/* ---- random values ----------------------------------------------------------------- */

typedef struct valset {
    cf_slice *v;
    uint8_t **owned;
    size_t n;
} valset;

static int cmp_slice(const void *a, const void *b)
{
    const cf_slice *x = a, *y = b;
    size_t m = x->len < y->len ? x->len : y->len;
    int c = m ? memcmp(x->data, y->data, m) : 0;
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Strings from a small alphabet (NUL included) with long shared prefixes, some
 * empty, a few longer than the block size. */
static valset make_values(cf_rng *r, size_t n, bool sorted_unique, size_t long_len)
{
    valset s = {calloc(n, sizeof(cf_slice)), calloc(n, sizeof(uint8_t *)), n};
    for (size_t i = 0; i < n; i++) {
        size_t len;
        uint64_t kind = cf_rng_below(r, 100);
        if (kind < 5)
            len = 0;
        else if (kind < 8)
            len = long_len + cf_rng_below(r, 100);
        else
            len = 1 + cf_rng_below(r, 40);
        uint8_t *p = malloc(len ? len : 1);
        if (i > 0 && cf_rng_below(r, 2)) { /* share a prefix with the previous value */
            size_t sh = cf_rng_below(r, s.v[i - 1].len + 1);
            if (sh > len)
                sh = len;
            memcpy(p, s.v[i - 1].data, sh);
            for (size_t k = sh; k < len; k++)
                p[k] = (uint8_t)("\0abcz\xff"[cf_rng_below(r, 6)]);
        } else {
            for (size_t k = 0; k < len; k++)
                p[k] = (uint8_t)("\0abcz\xff"[cf_rng_below(r, 6)]);
        }
        s.owned[i] = p;
        s.v[i] = (cf_slice){p, len};
    }
    if (sorted_unique) {
        qsort(s.v, n, sizeof(cf_slice), cmp_slice);
        size_t w = 0;
        for (size_t i = 0; i < n; i++)
            if (w == 0 || cmp_slice(&s.v[w - 1], &s.v[i]) != 0)
                s.v[w++] = s.v[i];
        s.n = w;
    }
    return s;
}

static void free_values(valset *s, size_t n_alloc)
{
    for (size_t i = 0; i < n_alloc; i++)
        free(s->owned[i]);
    free(s->owned);
    free(s->v);
}

/* Encode like the cfile writer (§10.3) with random call sizes; compare every block
 * with the reference encoder, then decode it in several ways. */
static void round_trip(cf_rng *r, const valset *s, uint32_t interval, uint32_t bs)
{
    cf_error err;
    size_t max_blocks = s->n + 1;
    ref_block *ref = calloc(max_blocks, sizeof *ref);
    size_t nref = ref_encode(s->v, s->n, interval, bs, ref, max_blocks);

    cf_encoder *e;
    cf_enc_params p = enc_params(bs, interval);
    CF_ASSERT_OK(cf_enc_prefix_ops.create(&e, &p, &err), &err);
    cf_decoder *d;
    CF_ASSERT_OK(cf_dec_prefix_ops.create(&d, &dec_params, &err), &err);
    size_t i = 0, nb = 0;
    cf_slice *got = calloc(s->n + 1, sizeof(cf_slice));
    while (i < s->n || cf_enc_prefix_ops.count(e) > 0) {
        if (i < s->n) {
            size_t want = 1 + cf_rng_below(r, 50);
            if (want > s->n - i)
                want = s->n - i;
            i += cf_enc_prefix_ops.add(e, s->v + i, want, false);
        }
        if (!cf_enc_prefix_ops.is_full(e) && i < s->n)
            continue;
        cf_slice out;
        CF_ASSERT_OK(
            cf_enc_prefix_ops.finish(e, (uint32_t)(i - cf_enc_prefix_ops.count(e)), &out, &err),
            &err);
        assert_true(nb < nref);
        CF_ASSERT_BYTES(out.data, out.len, ref[nb].data, ref[nb].len);

        /* decode from an exact-size copy so that over-reads show under ASan */
        uint8_t *copy = malloc(out.len);
        memcpy(copy, out.data, out.len);
        CF_ASSERT_OK(d->ops->load(d, copy, out.len, &err), &err);
        size_t cnt = ref[nb].count, first = ref[nb].first;
        assert_int_equal(d->count, cnt);
        assert_int_equal(d->first_ord, first);
        /* random seeks, then random-sized reads to the end */
        for (int rep = 0; rep < 4; rep++) {
            size_t at = rep == 0 ? 0 : cf_rng_below(r, cnt + 1);
            CF_ASSERT_OK(d->ops->seek(d, at, &err), &err);
            size_t pos = at;
            while (pos < cnt) {
                size_t want = 1 + cf_rng_below(r, 40), g;
                CF_ASSERT_OK(d->ops->next(d, got, want, &g, &err), &err);
                assert_true(g > 0 && g <= want);
                for (size_t k = 0; k < g; k++)
                    CF_ASSERT_BYTES(got[k].data, got[k].len, s->v[first + pos + k].data,
                                    s->v[first + pos + k].len);
                pos += g;
            }
            size_t g = 7;
            CF_ASSERT_OK(d->ops->next(d, got, 4, &g, &err), &err);
            assert_int_equal(g, 0);
        }
        /* all values at once stay valid together until the next load */
        CF_ASSERT_OK(d->ops->seek(d, 0, &err), &err);
        size_t g;
        CF_ASSERT_OK(d->ops->next(d, got, cnt + 1, &g, &err), &err);
        assert_int_equal(g, cnt);
        for (size_t k = 0; k < cnt; k++)
            CF_ASSERT_BYTES(got[k].data, got[k].len, s->v[first + k].data, s->v[first + k].len);
        /* A fresh load read by sequential stretches (the stream) and seeks
         * anywhere, often forward to a run start (the stream moves there) or
         * back (random access); every slice handed out since the load stays
         * valid, so all are checked again at the end. */
        CF_ASSERT_OK(d->ops->load(d, copy, out.len, &err), &err);
        cf_slice *all = calloc(cnt + 1, sizeof *all);
        bool *seen = calloc(cnt + 1, sizeof *seen);
        size_t at = 0;
        for (int op = 0; op < 40 && cnt > 0; op++) {
            if (op > 0 && cf_rng_below(r, 2)) {
                size_t k = cf_rng_below(r, 3);
                at = k == 0   ? cf_rng_below(r, cnt + 1)
                     : k == 1 ? cf_rng_below(r, cnt / interval + 1) * interval
                              : at + cf_rng_below(r, 2 * interval + 1);
                if (at > cnt)
                    at = cnt;
                CF_ASSERT_OK(d->ops->seek(d, at, &err), &err);
            }
            size_t want = 1 + cf_rng_below(r, 3 * interval + 5);
            CF_ASSERT_OK(d->ops->next(d, all + at, want, &g, &err), &err);
            assert_int_equal(g, want < cnt - at ? want : cnt - at);
            for (size_t k = at; k < at + g; k++) {
                CF_ASSERT_BYTES(all[k].data, all[k].len, s->v[first + k].data, s->v[first + k].len);
                seen[k] = true;
            }
            at += g;
            assert_int_equal(d->pos, at);
        }
        for (size_t k = 0; k < cnt; k++)
            if (seen[k])
                CF_ASSERT_BYTES(all[k].data, all[k].len, s->v[first + k].data, s->v[first + k].len);
        free(seen);
        free(all);
        free(copy);

        nb++;
        cf_enc_prefix_ops.reset(e);
        if (i == s->n && cf_enc_prefix_ops.count(e) == 0)
            break;
    }
    assert_int_equal(nb, nref);
    for (size_t k = 0; k < nref; k++)
        free(ref[k].data);
    free(ref);
    free(got);
    cf_decoder_free(d);
    cf_encoder_free(e);
}

static void test_prefix__round_trip_random(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0x9e1f1c5));
    const uint32_t intervals[] = {1, 2, 4, 16};
    const uint32_t sizes[] = {512, 1024, 4096};
    for (size_t ii = 0; ii < 4; ii++)
        for (size_t si = 0; si < 3; si++)
            for (int sorted = 0; sorted < 2; sorted++) {
                size_t n = 1 + cf_rng_below(&r, 1500);
                valset s = make_values(&r, n, sorted, sizes[si] + 10);
                round_trip(&r, &s, intervals[ii], sizes[si]);
                free_values(&s, n);
            }
}

static void test_prefix__force_takes_all(void **state)
{
    (void)state;
    cf_error err;
    cf_encoder *e;
    cf_enc_params p = enc_params(512, 16);
    CF_ASSERT_OK(cf_enc_prefix_ops.create(&e, &p, &err), &err);
    cf_slice v[100];
    char buf[100][20];
    for (int i = 0; i < 100; i++) {
        memset(buf[i], 'a' + i % 26, 20);
        v[i] = (cf_slice){(const uint8_t *)buf[i], 20};
    }
    assert_int_equal(cf_enc_prefix_ops.add(e, v, 100, true), 100);
    assert_true(cf_enc_prefix_ops.is_full(e));
    assert_int_equal(cf_enc_prefix_ops.add(e, v, 100, false), 0);
    cf_encoder_free(e);
}

/* Sorted unique values: value seeks agree with a linear scan. */
static void test_prefix__seek_at_or_after(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0x5eec));
    cf_error err;
    const uint32_t intervals[] = {1, 2, 4, 16};
    for (size_t ii = 0; ii < 4; ii++) {
        size_t n0 = 300;
        valset s = make_values(&r, n0, true, 30);
        valset keys = make_values(&r, 200, false, 30);
        cf_encoder *e;
        cf_enc_params p = enc_params(1 << 20, intervals[ii]);
        CF_ASSERT_OK(cf_enc_prefix_ops.create(&e, &p, &err), &err);
        assert_int_equal(cf_enc_prefix_ops.add(e, s.v, s.n, false), s.n);
        cf_slice out;
        CF_ASSERT_OK(cf_enc_prefix_ops.finish(e, 0, &out, &err), &err);
        cf_decoder *d;
        CF_ASSERT_OK(cf_decoder_open(&d, CF_ENC_PREFIX, &dec_params, out.data, out.len, &err),
                     &err);
        for (size_t k = 0; k < keys.n + s.n; k++) {
            const cf_slice *key = k < keys.n ? &keys.v[k] : &s.v[k - keys.n];
            size_t want = 0;
            while (want < s.n && cmp_slice(&s.v[want], key) < 0)
                want++;
            bool hit = want < s.n && cmp_slice(&s.v[want], key) == 0;
            if (!dec_expect_seek(d, key, want, s.n, hit))
                continue;
            cf_slice got;
            size_t g;
            CF_ASSERT_OK(d->ops->next(d, &got, 1, &g, &err), &err);
            assert_int_equal(g, 1);
            assert_int_equal(cmp_slice(&got, &s.v[want]), 0);
        }
        cf_decoder_free(d);
        cf_encoder_free(e);
        free_values(&keys, 200);
        free_values(&s, n0);
    }
}

/* Every string over `alpha` of length <= maxlen (the empty one included) into
 * out[] (each 8 bytes, NUL padded), in memcmp-then-length order; returns how
 * many. */
static size_t all_strings(const char *alpha, size_t maxlen, char (*out)[8], cf_slice *v, size_t cap)
{
    size_t n = 0, na = strlen(alpha);
    /* breadth by length, then sort */
    out[n][0] = 0;
    v[n] = (cf_slice){(const uint8_t *)out[n], 0};
    n++;
    for (size_t from = 0; from < n; from++) {
        if (v[from].len == maxlen)
            continue;
        for (size_t a = 0; a < na && n < cap; a++) {
            memcpy(out[n], out[from], 8);
            out[n][v[from].len] = alpha[a];
            v[n] = (cf_slice){(const uint8_t *)out[n], v[from].len + 1};
            n++;
        }
    }
    qsort(v, n, sizeof *v, cmp_slice);
    return n;
}

/* Value seeks compare the key in place against the restart runs: values that
 * share prefixes inside and across runs (every string over "ab" up to 5 bytes,
 * the empty one first), keys shorter and longer than the values, equal to
 * them, between them, the empty key. Each seek is checked against a linear
 * search, and the values after it against the list (the stream continues from
 * the rebuilt answer, across runs), on a decoder loaded afresh and on one that
 * keeps seeking in the same block (backward seeks take the lazy path). */
static void test_prefix__seek_in_place(void **state)
{
    (void)state;
    static char vb[64][8], kb[1100][8];
    cf_slice v[64], keys[1100];
    size_t nv = all_strings("ab", 5, vb, v, 64);
    size_t nk = all_strings("abc", 6, kb, keys, 1100);
    assert_int_equal(nv, 63);
    assert_true(nk > 1000);
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0x1b7ace));
    cf_error err;
    const uint32_t intervals[] = {1, 2, 3, 16, 64};
    for (size_t ii = 0; ii < 5; ii++) {
        cf_encoder *e;
        cf_enc_params p = enc_params(1 << 20, intervals[ii]);
        CF_ASSERT_OK(cf_enc_prefix_ops.create(&e, &p, &err), &err);
        assert_int_equal(cf_enc_prefix_ops.add(e, v, nv, false), nv);
        cf_slice out;
        CF_ASSERT_OK(cf_enc_prefix_ops.finish(e, 0, &out, &err), &err);
        cf_decoder *kept;
        CF_ASSERT_OK(cf_decoder_open(&kept, CF_ENC_PREFIX, &dec_params, out.data, out.len, &err),
                     &err);
        for (size_t k = 0; k < nk; k++) {
            size_t want = 0;
            while (want < nv && cmp_slice(&v[want], &keys[k]) < 0)
                want++;
            for (int fresh = 0; fresh < 2; fresh++) {
                cf_decoder *d = kept;
                if (fresh)
                    CF_ASSERT_OK(
                        cf_decoder_open(&d, CF_ENC_PREFIX, &dec_params, out.data, out.len, &err),
                        &err);
                bool exact = true;
                cf_status st = d->ops->seek_at_or_after(d, &keys[k], &exact, &err);
                if (want == nv) {
                    CF_ASSERT_STATUS(st, CF_ENOTFOUND, &err);
                    assert_int_equal(d->pos, nv);
                    assert_false(exact);
                } else {
                    CF_ASSERT_OK(st, &err);
                    assert_int_equal(d->pos, want);
                    assert_int_equal(exact, cmp_slice(&v[want], &keys[k]) == 0);
                    cf_slice got[70];
                    size_t g, m = 1 + cf_rng_below(&r, 70);
                    CF_ASSERT_OK(d->ops->next(d, got, m, &g, &err), &err);
                    assert_int_equal(g, m < nv - want ? m : nv - want);
                    for (size_t i = 0; i < g; i++)
                        CF_ASSERT_BYTES(got[i].data, got[i].len, v[want + i].data, v[want + i].len);
                }
                if (fresh)
                    cf_decoder_free(d);
            }
        }
        /* The empty key finds the empty value, first. */
        cf_slice empty = {NULL, 0};
        bool exact = false;
        CF_ASSERT_OK(kept->ops->seek_at_or_after(kept, &empty, &exact, &err), &err);
        assert_int_equal(kept->pos, 0);
        assert_true(exact);
        cf_decoder_free(kept);
        cf_encoder_free(e);
    }
}

/* A batch-scoped decoder (the iterator's: values live until the next call)
 * restarts its stream arena on every next(): the previous value, prefix of
 * the next, must survive that, whether short (built in a register) or long
 * (copied), at every batch size, also after value seeks. Each batch is checked
 * right after its call, as the contract allows no more. */
static void test_prefix__batch_scoped_stream(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0xba7c4));
    cf_error err;
    size_t n = 3000;
    char(*buf)[120] = calloc(n, sizeof *buf);
    cf_slice *v = calloc(n, sizeof *v);
    /* sorted: a long common stem, then a counter; some values long, some
     * short. The last third are triples "k<i>", "k<i>" + 80 x, that + "y":
     * a long value sharing most of a long value just before it, which a
     * restarted arena would overwrite while copying unless moved first. */
    for (size_t i = 0; i < n; i++) {
        size_t len;
        if (i < 2000) {
            size_t stem = (i / 100) % 3 == 0 ? 90 : (i / 100) % 3 == 1 ? 10 : 0;
            memset(buf[i], 'a' + (int)(i / 1000), stem);
            int w = snprintf(buf[i] + stem, sizeof buf[i] - stem, "%06zu", i);
            len = stem + (size_t)w;
            if (i % 7 == 0)
                buf[i][len++] = 'z'; /* longer than its neighbours */
        } else {
            len = (size_t)snprintf(buf[i], sizeof buf[i], "k%04zu", (i - 2000) / 3);
            if ((i - 2000) % 3 > 0) {
                memset(buf[i] + len, 'x', 80);
                len += 80;
            }
            if ((i - 2000) % 3 == 2)
                buf[i][len++] = 'y';
        }
        v[i] = (cf_slice){(const uint8_t *)buf[i], len};
    }
    qsort(v, n, sizeof *v, cmp_slice);
    const uint32_t intervals[] = {1, 3, 16};
    for (size_t ii = 0; ii < 3; ii++) {
        cf_encoder *e;
        cf_enc_params p = enc_params(1 << 20, intervals[ii]);
        CF_ASSERT_OK(cf_enc_prefix_ops.create(&e, &p, &err), &err);
        assert_int_equal(cf_enc_prefix_ops.add(e, v, n, false), n);
        cf_slice out;
        CF_ASSERT_OK(cf_enc_prefix_ops.finish(e, 0, &out, &err), &err);
        cf_decoder *d;
        CF_ASSERT_OK(cf_decoder_open(&d, CF_ENC_PREFIX, &dec_params, out.data, out.len, &err),
                     &err);
        d->batch_scoped = true;
        for (int round = 0; round < 4; round++) {
            if (round > 0) { /* a fresh load, then start at a value seek */
                CF_ASSERT_OK(d->ops->load(d, out.data, out.len, &err), &err);
                bool exact;
                size_t at = (size_t)cf_rng_below(&r, n);
                CF_ASSERT_OK(d->ops->seek_at_or_after(d, &v[at], &exact, &err), &err);
                assert_true(exact);
                assert_int_equal(d->pos, at);
            }
            while (d->pos < n) {
                size_t at = d->pos, g;
                size_t want = round < 2 ? 1 + (size_t)cf_rng_below(&r, 50) : 1 + at % 4;
                cf_slice got[50];
                CF_ASSERT_OK(d->ops->next(d, got, want, &g, &err), &err);
                assert_int_equal(g, want < n - at ? want : n - at);
                for (size_t i = 0; i < g; i++)
                    CF_ASSERT_BYTES(got[i].data, got[i].len, v[at + i].data, v[at + i].len);
            }
        }
        cf_decoder_free(d);
        cf_encoder_free(e);
    }
    free(buf);
    free(v);
}

/* ---- restart fence (saved state) ----------------------------------------------------- */

/* One block of all n values (sorted or not) at this interval, in an exact-size
 * copy (over-reads show under ASan); *len its length. */
static uint8_t *encode_block(const cf_slice *v, size_t n, uint32_t interval, size_t *len)
{
    cf_error err;
    cf_encoder *e;
    cf_enc_params p = enc_params(1 << 24, interval);
    CF_ASSERT_OK(cf_enc_prefix_ops.create(&e, &p, &err), &err);
    assert_int_equal(cf_enc_prefix_ops.add(e, v, n, true), n);
    cf_slice out;
    CF_ASSERT_OK(cf_enc_prefix_ops.finish(e, 0, &out, &err), &err);
    uint8_t *copy = malloc(out.len);
    memcpy(copy, out.data, out.len);
    *len = out.len;
    cf_encoder_free(e);
    return copy;
}

/* The fence a block cache keeps (saved_len / save), adopted by another
 * decoder (load_saved); NULL if the block has none. */
static void *save_state(cf_decoder *d, size_t *sl)
{
    *sl = d->ops->saved_len(d);
    if (*sl == 0)
        return NULL;
    void *st = malloc(*sl);
    d->ops->save(d, st);
    return st;
}

/* The same seek on decoders with and without a fence: same status, position,
 * exactness and the values read after it. */
static void same_seek(cf_decoder *plain, cf_decoder *fenced, const cf_slice *key)
{
    cf_error err;
    bool e1 = true, e2 = false;
    cf_status s1 = plain->ops->seek_at_or_after(plain, key, &e1, &err);
    cf_status s2 = fenced->ops->seek_at_or_after(fenced, key, &e2, &err);
    assert_int_equal(s1, s2);
    assert_int_equal(plain->pos, fenced->pos);
    if (s1 != CF_OK)
        return;
    assert_int_equal(e1, e2);
    cf_slice g1[3], g2[3];
    size_t n1, n2;
    CF_ASSERT_OK(plain->ops->next(plain, g1, 3, &n1, &err), &err);
    CF_ASSERT_OK(fenced->ops->next(fenced, g2, 3, &n2, &err), &err);
    assert_int_equal(n1, n2);
    for (size_t i = 0; i < n1; i++)
        CF_ASSERT_BYTES(g1[i].data, g1[i].len, g2[i].data, g2[i].len);
}

/* Value seeks through the restart fence answer exactly as the search of the
 * block does: values with a long common prefix (so the fence's bytes start
 * past it), values that differ only after the fence's 8 bytes (equal fence
 * entries, decided in the block), NULs inside and at the end (the fence pads
 * with zeros), the empty value, every interval; keys equal to values, just
 * after them (+ "\0"), truncated, random, empty, below and above everything.
 * Checked on a decoder that adopted a saved fence and on one that built its
 * own (saved_len), against one with none. */
static void test_prefix__fence_seeks(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0xfe9ce));
    cf_error err;
    const uint32_t intervals[] = {1, 2, 4, 16, 64};
    for (int shape = 0; shape < 4; shape++) {
        size_t n = 800 + (size_t)cf_rng_below(&r, 1500);
        char(*buf)[64] = calloc(n, sizeof *buf);
        cf_slice *v = calloc(n, sizeof *v);
        for (size_t i = 0; i < n; i++) {
            size_t len = 0;
            if (shape == 0) { /* Kudu-style keys: a stem and a counter */
                len = (size_t)snprintf(buf[i], sizeof buf[i], "user%010zu", i * 7);
            } else if (shape == 1) { /* a long stem, then bytes differing late */
                memcpy(buf[i], "a-common-prefix-longer-than-8/", 30);
                len = 30;
                for (size_t k = 0, m = 1 + cf_rng_below(&r, 20); k < m; k++)
                    buf[i][len++] = "\0ab\xff"[cf_rng_below(&r, 4)];
            } else if (shape == 2) { /* 8 equal bytes, then a difference */
                len =
                    (size_t)snprintf(buf[i], sizeof buf[i], "%c12345678%c%zu",
                                     'a' + (int)cf_rng_below(&r, 3), "xy"[cf_rng_below(&r, 2)], i);
            } else { /* anything short, NULs and empties included */
                len = cf_rng_below(&r, 12);
                for (size_t k = 0; k < len; k++)
                    buf[i][k] = "\0\1az\xff"[cf_rng_below(&r, 5)];
            }
            v[i] = (cf_slice){(const uint8_t *)buf[i], len};
        }
        qsort(v, n, sizeof *v, cmp_slice);
        /* keys: every value, value + NUL, value cut short, random bytes */
        size_t nk = 4 * n + 3;
        char(*kb)[72] = calloc(nk, sizeof *kb);
        cf_slice *keys = calloc(nk, sizeof *keys);
        for (size_t i = 0; i < n; i++) {
            memcpy(kb[4 * i], v[i].data, v[i].len);
            keys[4 * i] = (cf_slice){(const uint8_t *)kb[4 * i], v[i].len};
            memcpy(kb[4 * i + 1], v[i].data, v[i].len);
            kb[4 * i + 1][v[i].len] = 0;
            keys[4 * i + 1] = (cf_slice){(const uint8_t *)kb[4 * i + 1], v[i].len + 1};
            size_t cut = cf_rng_below(&r, v[i].len + 1);
            memcpy(kb[4 * i + 2], v[i].data, cut);
            keys[4 * i + 2] = (cf_slice){(const uint8_t *)kb[4 * i + 2], cut};
            size_t kl = cf_rng_below(&r, 40);
            memcpy(kb[4 * i + 3], v[cf_rng_below(&r, n)].data, 4);
            for (size_t k = cf_rng_below(&r, 5); k < kl; k++)
                kb[4 * i + 3][k] = (char)cf_rng_below(&r, 256);
            keys[4 * i + 3] = (cf_slice){(const uint8_t *)kb[4 * i + 3], kl};
        }
        keys[4 * n] = (cf_slice){NULL, 0};
        memset(kb[4 * n + 1], 0xff, 70);
        keys[4 * n + 1] = (cf_slice){(const uint8_t *)kb[4 * n + 1], 70};
        keys[4 * n + 2] = (cf_slice){(const uint8_t *)"\0", 1};
        for (size_t ii = 0; ii < 5; ii++) {
            size_t len;
            uint8_t *blk = encode_block(v, n, intervals[ii], &len);
            cf_decoder *plain, *own, *adopted;
            CF_ASSERT_OK(cf_decoder_open(&plain, CF_ENC_PREFIX, &dec_params, blk, len, &err), &err);
            CF_ASSERT_OK(cf_decoder_open(&own, CF_ENC_PREFIX, &dec_params, blk, len, &err), &err);
            CF_ASSERT_OK(cf_dec_prefix_ops.create(&adopted, &dec_params, &err), &err);
            size_t sl;
            void *st = save_state(own, &sl);
            /* in order, at least 4 restarts: a fence unless it would outweigh
             * half the block (short intervals over short values) */
            size_t nr = cf_load_le32(blk + len - 4);
            assert_int_equal(st != NULL, 24 + 8 * ((nr + 15) / 16) + 12 * (nr + 1) <= len / 2);
            if (intervals[ii] >= 16)
                assert_non_null(st);
            if (st != NULL) {
                CF_ASSERT_OK(adopted->ops->load_saved(adopted, blk, len, st, sl, &err), &err);
                assert_int_equal(adopted->count, n);
            }
            for (size_t k = 0; k < nk; k++) {
                same_seek(plain, own, &keys[k]);
                if (st != NULL)
                    same_seek(plain, adopted, &keys[k]);
            }
            cf_decoder_free(plain);
            cf_decoder_free(own);
            cf_decoder_free(adopted);
            free(st);
            free(blk);
        }
        free(kb);
        free(keys);
        free(buf);
        free(v);
    }
}

/* A fence exists only where it is exact, and is adopted only by its block:
 * none for blocks with few restarts or restarts out of order (a seek then
 * searches the block, as before); a state of another length or from another
 * block is refused and leaves the decoder unbound. */
static void test_prefix__fence_refused(void **state)
{
    (void)state;
    cf_error err;
    char buf[64][32];
    cf_slice v[64];
    for (size_t i = 0; i < 64; i++) {
        int w = snprintf(buf[i], sizeof buf[i], "k%03zu-with-a-longer-tail", i);
        v[i] = (cf_slice){(const uint8_t *)buf[i], (size_t)w};
    }
    size_t len, len2;
    cf_decoder *d;
    CF_ASSERT_OK(cf_dec_prefix_ops.create(&d, &dec_params, &err), &err);
    /* 3 restarts: too few to gain */
    uint8_t *blk = encode_block(v, 64, 16, &len);
    CF_ASSERT_OK(d->ops->load(d, blk, len, &err), &err);
    assert_int_equal(d->ops->saved_len(d), 0);
    free(blk);
    /* restarts out of order (k063 first) */
    cf_slice t = v[0];
    v[0] = v[63];
    v[63] = t;
    blk = encode_block(v, 64, 4, &len);
    CF_ASSERT_OK(d->ops->load(d, blk, len, &err), &err);
    assert_int_equal(d->ops->saved_len(d), 0);
    free(blk);
    v[63] = v[0];
    v[0] = t;
    /* a good one, and a state offered to the wrong block or cut short */
    blk = encode_block(v, 64, 4, &len);
    uint8_t *other = encode_block(v, 60, 4, &len2);
    CF_ASSERT_OK(d->ops->load(d, blk, len, &err), &err);
    size_t sl;
    void *st = save_state(d, &sl);
    assert_non_null(st);
    CF_ASSERT_STATUS(d->ops->load_saved(d, other, len2, st, sl, &err), CF_ECORRUPT, &err);
    assert_int_equal(d->count, 0);
    CF_ASSERT_STATUS(d->ops->load_saved(d, blk, len, st, sl - 8, &err), CF_ECORRUPT, &err);
    assert_int_equal(d->count, 0);
    CF_ASSERT_OK(d->ops->load_saved(d, blk, len, st, sl, &err), &err);
    assert_int_equal(d->count, 64);
    bool exact;
    CF_ASSERT_OK(d->ops->seek_at_or_after(d, &v[37], &exact, &err), &err);
    assert_true(exact);
    assert_int_equal(d->pos, 37);
    free(st);
    free(other);
    free(blk);
    cf_decoder_free(d);
}

/* The stream's fast loop runs across restarts and takes arena room for many
 * values at once: a long block of short values read in batches of every size
 * (values valid until the next load: all checked at the end, so arena chunks
 * must not move or be reused), with long values and two-byte lengths in some
 * runs (the fast loop hands those entries to the general one mid-run and
 * takes over again), and the same batch-scoped (checked batch by batch). */
static void test_prefix__stream_across_runs(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0x5f7ea));
    cf_error err;
    size_t n = 40000;
    char(*buf)[200] = calloc(n, sizeof *buf);
    cf_slice *v = calloc(n, sizeof *v);
    for (size_t i = 0; i < n; i++) {
        size_t len = (size_t)snprintf(buf[i], sizeof buf[i], "row%08zu", i);
        if (i % 997 == 5) { /* longer than 16: copied, not blended */
            memset(buf[i] + len, 'q', 20);
            len += 20;
        } else if (i % 1499 == 7) { /* a suffix over 127 bytes: two-byte varint */
            memset(buf[i] + len, 'r', 150);
            len += 150;
        }
        v[i] = (cf_slice){(const uint8_t *)buf[i], len};
    }
    const uint32_t intervals[] = {1, 16, 100};
    for (size_t ii = 0; ii < 3; ii++) {
        size_t len;
        uint8_t *blk = encode_block(v, n, intervals[ii], &len);
        cf_decoder *d;
        CF_ASSERT_OK(cf_decoder_open(&d, CF_ENC_PREFIX, &dec_params, blk, len, &err), &err);
        for (int scoped = 0; scoped < 2; scoped++) {
            d->batch_scoped = scoped;
            CF_ASSERT_OK(d->ops->load(d, blk, len, &err), &err);
            cf_slice *all = calloc(n, sizeof *all);
            size_t at = 0;
            while (at < n) {
                size_t want = 1 + (size_t)cf_rng_below(&r, cf_rng_below(&r, 2) ? 40 : 3000), g;
                CF_ASSERT_OK(d->ops->next(d, all + at, want, &g, &err), &err);
                assert_int_equal(g, want < n - at ? want : n - at);
                if (scoped)
                    for (size_t k = at; k < at + g; k++)
                        CF_ASSERT_BYTES(all[k].data, all[k].len, v[k].data, v[k].len);
                at += g;
            }
            if (!scoped)
                for (size_t k = 0; k < n; k++)
                    CF_ASSERT_BYTES(all[k].data, all[k].len, v[k].data, v[k].len);
            free(all);
        }
        cf_decoder_free(d);
        free(blk);
    }
    free(buf);
    free(v);
}

/* ---- corruption -------------------------------------------------------------------- */

/* Every restart run again, via a seek to the last value and a value seek. */
static cf_status seek_runs(cf_decoder *d, const uint8_t *copy, size_t len, cf_error *err)
{
    (void)copy;
    (void)len;
    if (d->count == 0)
        return CF_OK;
    cf_status st = d->ops->seek(d, d->count - 1, err);
    cf_slice got[1];
    size_t g;
    if (st == CF_OK)
        st = d->ops->next(d, got, 1, &g, err);
    cf_slice key = {(const uint8_t *)"b", 1};
    if (st == CF_OK)
        st = dec_seek_value(d, &key, err);
    return st;
}

static cf_status decode_all(const uint8_t *blk, size_t len, cf_error *err)
{
    return dec_try(CF_ENC_PREFIX, &dec_params, blk, len, 7, seek_runs, err);
}

static void expect_corrupt(const char *hex)
{
    dec_expect_hex(decode_all, hex, CF_ECORRUPT);
}

static void test_prefix__corrupt_blocks(void **state)
{
    (void)state;
    /* the valid interval-2 example, for reference */
    dec_expect_hex(decode_all,
                   "00 05 00 02 00 00 01 61 01 01 62 00 03 61 62 63 02 01 64 00 01 62"
                   "0b 00 00 00 13 00 00 00 02 00 00 00",
                   CF_OK);

    expect_corrupt("");                     /* nothing */
    expect_corrupt("40 05 00");             /* header cut */
    expect_corrupt("00 00 00 10 00 00 00"); /* no room for R */
    /* restart offset out of the entries area */
    expect_corrupt("00 05 00 02 00 00 01 61 01 01 62 00 03 61 62 63 02 01 64 00 01 62"
                   "0b 00 00 00 40 00 00 00 02 00 00 00");
    /* restart offsets not increasing */
    expect_corrupt("00 05 00 02 00 00 01 61 01 01 62 00 03 61 62 63 02 01 64 00 01 62"
                   "13 00 00 00 0b 00 00 00 02 00 00 00");
    /* restart pointing into the header / at entry 0 */
    expect_corrupt("00 05 00 02 00 00 01 61 01 01 62 00 03 61 62 63 02 01 64 00 01 62"
                   "05 00 00 00 13 00 00 00 02 00 00 00");
    /* restart not at an entry boundary */
    expect_corrupt("00 05 00 02 00 00 01 61 01 01 62 00 03 61 62 63 02 01 64 00 01 62"
                   "0c 00 00 00 13 00 00 00 02 00 00 00");
    /* R too large for the block */
    expect_corrupt("00 05 00 02 00 00 01 61 01 01 62 00 03 61 62 63 02 01 64 00 01 62"
                   "0b 00 00 00 13 00 00 00 ff 00 00 00");
    /* R inconsistent with count and interval */
    expect_corrupt("00 05 00 02 00 00 01 61 01 01 62 00 03 61 62 63 02 01 64 00 01 62"
                   "0b 00 00 00 13 00 00 00 01 00 00 00");
    /* restart interval 0 */
    expect_corrupt("00 03 00 00 00 00 05 61 70 70 6c 65 04 01 79 00 06 62 61 6e 61 6e 61"
                   "00 00 00 00");
    /* shared > previous length (5 bytes of "apple", claims 6) */
    expect_corrupt("00 03 00 10 00 00 05 61 70 70 6c 65 06 01 79 00 06 62 61 6e 61 6e 61"
                   "00 00 00 00");
    /* first value shares with nothing */
    expect_corrupt("00 01 00 10 00 01 01 61 00 00 00 00");
    /* non_shared runs past the end of the entries */
    expect_corrupt("00 03 00 10 00 00 05 61 70 70 6c 65 04 01 79 00 09 62 61 6e 61 6e 61"
                   "00 00 00 00");
    /* count larger than the entries can hold */
    expect_corrupt("00 09 00 10 00 00 05 61 70 70 6c 65 04 01 79 00 06 62 61 6e 61 6e 61"
                   "00 00 00 00");
    /* count that fits the bytes but the entries run out */
    expect_corrupt("00 05 00 10 00 00 05 61 70 70 6c 65 04 01 79 00 06 62 61 6e 61 6e 61"
                   "00 00 00 00");
    /* a value in run 1 reaches into run 2 (restart says run 1 is shorter) */
    expect_corrupt("00 05 00 02 00 00 01 61 01 01 62 00 03 61 62 63 02 01 64 00 01 62"
                   "0b 00 00 00 12 00 00 00 02 00 00 00");
    /* restarts of an empty block */
    expect_corrupt("00 00 00 10 00 05 00 00 00 01 00 00 00");
}

/* Damage inside a run far from the block's end, where the stream takes its
 * fastest loop: a shared length longer than the previous value, and a suffix
 * running past its run, are reported by sequential and by seek-led decodes. */
static void test_prefix__corrupt_inside_long_block(void **state)
{
    (void)state;
    cf_error err;
    cf_encoder *e;
    cf_enc_params p = enc_params(1 << 20, 16);
    CF_ASSERT_OK(cf_enc_prefix_ops.create(&e, &p, &err), &err);
    char buf[64][8];
    cf_slice v[64];
    for (int i = 0; i < 64; i++) {
        snprintf(buf[i], sizeof buf[i], "key%03d", i);
        v[i] = (cf_slice){(const uint8_t *)buf[i], 6};
    }
    assert_int_equal(cf_enc_prefix_ops.add(e, v, 64, false), 64);
    cf_slice out;
    CF_ASSERT_OK(cf_enc_prefix_ops.finish(e, 0, &out, &err), &err);
    CF_ASSERT_OK(decode_all(out.data, out.len, &err), &err);
    /* entry 17 ("key017": shared 5, suffix "7") follows "key016", the restart
     * of run 1 (run 0 is decoded before the arena has room for a whole run) */
    size_t e1 = 0;
    for (size_t i = 0; i + 6 <= out.len && e1 == 0; i++)
        if (memcmp(out.data + i, "key016", 6) == 0)
            e1 = i + 6;
    assert_true(e1 > 0);
    uint8_t *m = malloc(out.len);
    const uint8_t patches[][2] = {{7, 1},   /* shares 7 bytes of a 6-byte value */
                                  {5, 60}}; /* a 60-byte suffix in a 48-byte run */
    for (size_t k = 0; k < 2; k++) {
        memcpy(m, out.data, out.len);
        assert_int_equal(m[e1], 5);
        m[e1] = patches[k][0];
        m[e1 + 1] = patches[k][1];
        CF_ASSERT_STATUS(decode_all(m, out.len, &err), CF_ECORRUPT, &err);
        /* random access first: a seek to value 19 decodes run 1 into vals */
        cf_decoder *d;
        CF_ASSERT_OK(cf_decoder_open(&d, CF_ENC_PREFIX, &dec_params, m, out.len, &err), &err);
        CF_ASSERT_OK(d->ops->seek(d, 19, &err), &err);
        cf_slice got[4];
        size_t g;
        CF_ASSERT_STATUS(d->ops->next(d, got, 4, &g, &err), CF_ECORRUPT, &err);
        cf_decoder_free(d);
    }
    /* Run 0 of 2 rewritten as entries of 16-byte values that run past the
     * run's end and, unchecked, past the block's: loaded into a decoder whose
     * arena already has room, so that run 0 takes the fastest loop. The copy
     * is exact-size, so an over-read shows under ASan. */
    cf_decoder *d;
    CF_ASSERT_OK(cf_decoder_open(&d, CF_ENC_PREFIX, &dec_params, out.data, out.len, &err), &err);
    cf_slice got[64];
    size_t g;
    CF_ASSERT_OK(d->ops->next(d, got, 64, &g, &err), &err);
    cf_encoder_free(e);
    CF_ASSERT_OK(cf_enc_prefix_ops.create(&e, &p, &err), &err);
    assert_int_equal(cf_enc_prefix_ops.add(e, v, 32, false), 32);
    CF_ASSERT_OK(cf_enc_prefix_ops.finish(e, 0, &out, &err), &err);
    uint8_t *small = malloc(out.len);
    memcpy(small, out.data, out.len);
    size_t r1 = cf_load_le32(small + out.len - 8); /* restart 1 */
    size_t e0 = 0;
    for (size_t i = 0; i + 6 <= out.len && e0 == 0; i++)
        if (memcmp(small + i, "key000", 6) == 0)
            e0 = i + 6;
    assert_true(e0 > 0 && r1 > e0);
    for (size_t i = e0; i < r1; i++)
        small[i] = (i - e0) % 2 ? 0x0b : 0x05; /* shared 5, 11 more bytes; then 11, 5 */
    CF_ASSERT_OK(d->ops->load(d, small, out.len, &err), &err);
    CF_ASSERT_STATUS(d->ops->next(d, got, 32, &g, &err), CF_ECORRUPT, &err);
    cf_decoder_free(d);
    free(small);
    free(m);
    cf_encoder_free(e);
}

/* Restarts are checked when first used: a load of a block with a bad restart
 * succeeds, and the seek or decode that reaches it reports the corruption. */
static void test_prefix__lazy_restart_checks(void **state)
{
    (void)state;
    const char *bad[] = {
        /* restart 1 outside the entries area */
        "00 05 00 02 00 00 01 61 01 01 62 00 03 61 62 63 02 01 64 00 01 62"
        "0b 00 00 00 40 00 00 00 02 00 00 00",
        /* restarts not increasing */
        "00 05 00 02 00 00 01 61 01 01 62 00 03 61 62 63 02 01 64 00 01 62"
        "13 00 00 00 0b 00 00 00 02 00 00 00",
        /* restart 0 inside the header */
        "00 05 00 02 00 00 01 61 01 01 62 00 03 61 62 63 02 01 64 00 01 62"
        "05 00 00 00 13 00 00 00 02 00 00 00",
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        uint8_t blk[64];
        size_t len = cf_test_unhex(bad[k], blk, sizeof blk);
        cf_error err;
        cf_decoder *d;
        CF_ASSERT_OK(cf_decoder_open(&d, CF_ENC_PREFIX, &dec_params, blk, len, &err), &err);
        assert_int_equal(d->count, 5);
        /* Value seeks binary-search the restarts; every probe is checked. */
        const char *keys[] = {"a", "abc", "b", "zz"};
        bool any = false;
        for (size_t j = 0; j < 4; j++) {
            bool exact;
            cf_slice key = {(const uint8_t *)keys[j], strlen(keys[j])};
            cf_status st = d->ops->seek_at_or_after(d, &key, &exact, &err);
            assert_true(st == CF_OK || st == CF_ENOTFOUND || st == CF_ECORRUPT);
            any |= st == CF_ECORRUPT;
        }
        assert_true(any);
        /* Decoding every value reaches every restart. */
        CF_ASSERT_OK(d->ops->seek(d, 0, &err), &err);
        cf_slice got[5];
        size_t g;
        CF_ASSERT_STATUS(d->ops->next(d, got, 5, &g, &err), CF_ECORRUPT, &err);
        cf_decoder_free(d);
    }
}

/* Truncations and bit flips of valid blocks: a clean status, never a crash. */
static void test_prefix__mutations(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0xf11b));
    cf_error err;
    valset s = make_values(&r, 120, false, 100);
    cf_encoder *e;
    cf_enc_params p = enc_params(1 << 20, 4);
    CF_ASSERT_OK(cf_enc_prefix_ops.create(&e, &p, &err), &err);
    assert_int_equal(cf_enc_prefix_ops.add(e, s.v, s.n, false), s.n);
    cf_slice out;
    CF_ASSERT_OK(cf_enc_prefix_ops.finish(e, 9, &out, &err), &err);
    uint8_t *m = malloc(out.len);
    for (size_t cut = 0; cut < out.len; cut++) {
        cf_status st = decode_all(out.data, cut, &err);
        assert_true(st == CF_ECORRUPT);
    }
    for (int it = 0; it < 3000; it++) {
        memcpy(m, out.data, out.len);
        int flips = 1 + (int)cf_rng_below(&r, 3);
        for (int f = 0; f < flips; f++)
            m[cf_rng_below(&r, out.len)] ^= (uint8_t)(1u << cf_rng_below(&r, 8));
        cf_status st = decode_all(m, out.len, &err);
        assert_true(st == CF_OK || st == CF_ECORRUPT || st == CF_ENOTSUP);
    }
    free(m);
    cf_encoder_free(e);
    free_values(&s, 120);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prefix__example_apple),
        cmocka_unit_test(test_prefix__example_interval2),
        cmocka_unit_test(test_prefix__empty),
        cmocka_unit_test(test_prefix__first_ordinal_and_large_header),
        cmocka_unit_test(test_prefix__round_trip_random),
        cmocka_unit_test(test_prefix__force_takes_all),
        cmocka_unit_test(test_prefix__seek_at_or_after),
        cmocka_unit_test(test_prefix__seek_in_place),
        cmocka_unit_test(test_prefix__batch_scoped_stream),
        cmocka_unit_test(test_prefix__fence_seeks),
        cmocka_unit_test(test_prefix__fence_refused),
        cmocka_unit_test(test_prefix__stream_across_runs),
        cmocka_unit_test(test_prefix__corrupt_blocks),
        cmocka_unit_test(test_prefix__corrupt_inside_long_block),
        cmocka_unit_test(test_prefix__lazy_restart_checks),
        cmocka_unit_test(test_prefix__mutations),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

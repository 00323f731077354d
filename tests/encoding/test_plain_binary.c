/* PLAIN for binary types (format §8.6, §10.2, §14.7, §1.6). */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "encoding/encodings.h"
#include "util/endian.h"

#include "support_codec.h"

static cf_slice S(const char *s)
{
    return (cf_slice){(const uint8_t *)s, strlen(s)};
}

/* Every value read, each slice inside the block. */
static cf_status values_inside(cf_decoder *d, const uint8_t *copy, size_t len, cf_error *err)
{
    cf_slice s[64];
    size_t n, total = 0;
    do {
        CF_ASSERT_OK(d->ops->next(d, s, 64, &n, err), err);
        for (size_t i = 0; i < n; i++) {
            assert_true(s[i].data >= copy + 12);
            assert_true(s[i].len <= (size_t)(copy + len - s[i].data));
        }
        total += n;
    } while (n > 0);
    assert_int_equal(total, d->count);
    return CF_OK;
}

/* Load from an exact-size copy, then read every value and check each slice
 * lies inside the block. */
static cf_status try_load(const uint8_t *data, size_t len, cf_error *err)
{
    cf_dec_params p = {.type = CF_TYPE_STRING, .elem_size = sizeof(cf_slice)};
    return dec_try(CF_ENC_PLAIN, &p, data, len, 0, values_inside, err);
}

static void test_plain_binary__spec_block_14_7(void **state)
{
    (void)state;
    const cf_slice v[3] = {S("ab"), S(""), S("xyz")};
    cf_encoder *e = enc_create(&cf_enc_plain_binary_ops, CF_TYPE_STRING, 262144);
    assert_int_equal(e->ops->add(e, v, 3, false), 3);
    assert_int_equal(e->ops->count(e), 3);
    cf_slice out;
    cf_error err;
    CF_ASSERT_OK(e->ops->finish(e, 0, &out, &err), &err);
    uint8_t want[64];
    size_t wlen = cf_test_unhex("00 00 00 00 03 00 00 00 11 00 00 00 61 62 78 79 7a"
                                " 00 0c 0e 0e 00",
                                want, sizeof want);
    CF_ASSERT_BYTES(out.data, out.len, want, wlen);

    cf_decoder *d = dec_open(CF_ENC_PLAIN, CF_TYPE_BINARY, want, wlen);
    assert_int_equal(d->count, 3);
    assert_int_equal(d->first_ord, 0);
    cf_slice got[4];
    size_t n;
    CF_ASSERT_OK(d->ops->next(d, got, 4, &n, &err), &err);
    assert_int_equal(n, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(got[i].len, v[i].len);
        if (v[i].len)
            assert_memory_equal(got[i].data, v[i].data, v[i].len);
    }
    assert_ptr_equal(got[0].data, want + 12);
    cf_decoder_free(d);
    cf_encoder_free(e);
}

static void test_plain_binary__empty_block(void **state)
{
    (void)state;
    cf_encoder *e = enc_create(&cf_enc_plain_binary_ops, CF_TYPE_STRING, 512);
    cf_slice out;
    cf_error err;
    CF_ASSERT_OK(e->ops->finish(e, 9, &out, &err), &err);
    uint8_t want[12];
    size_t wlen = cf_test_unhex("09 00 00 00 00 00 00 00 0c 00 00 00", want, sizeof want);
    CF_ASSERT_BYTES(out.data, out.len, want, wlen);
    cf_decoder *d = dec_open(CF_ENC_PLAIN, CF_TYPE_BINARY, want, wlen);
    assert_int_equal(d->count, 0);
    assert_int_equal(d->first_ord, 9);
    bool exact;
    cf_slice key = S("a");
    CF_ASSERT_STATUS(d->ops->seek_at_or_after(d, &key, &exact, &err), CF_ENOTFOUND, &err);
    cf_decoder_free(d);
    cf_encoder_free(e);
}

/* format §1.6: strings of lengths 1, 287, 69700, 16707216, 1 give the offsets
 * 12, 13, 300, 70000, 16777216, whose group varints are the §1.6 example. */
static void test_plain_binary__offsets_match_group_varint_example(void **state)
{
    (void)state;
    const size_t lens[5] = {1, 287, 69700, 16707216, 1};
    uint8_t *big = calloc(16707216, 1);
    cf_slice v[5];
    for (int i = 0; i < 5; i++)
        v[i] = (cf_slice){big, lens[i]};
    cf_encoder *e = enc_create(&cf_enc_plain_binary_ops, CF_TYPE_STRING, 512);
    assert_int_equal(e->ops->add(e, v, 5, true), 5);
    cf_slice out;
    cf_error err;
    CF_ASSERT_OK(e->ops->finish(e, 0, &out, &err), &err);
    uint8_t want[16];
    size_t wlen =
        cf_test_unhex("06 0c 0d 2c 01 70 11 01 c0 00 00 00 01 00 00 00", want, sizeof want);
    size_t strings = 1 + 287 + 69700 + 16707216 + 1;
    assert_int_equal(out.len, 12 + strings + wlen);
    CF_ASSERT_BYTES(out.data + 12 + strings, wlen, want, wlen);
    cf_decoder *d = dec_open(CF_ENC_PLAIN, CF_TYPE_BINARY, out.data, out.len);
    cf_slice got[5];
    size_t n;
    CF_ASSERT_OK(d->ops->next(d, got, 5, &n, &err), &err);
    assert_int_equal(n, 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(got[i].len, lens[i]);
    cf_decoder_free(d);
    cf_encoder_free(e);
    free(big);
}

static void test_plain_binary__estimate_stops_inside_a_call(void **state)
{
    (void)state;
    /* Ten 100-byte strings, block size 512. The estimate starts at 12 and each
     * value adds its length, its offset's group-varint length and, every 4th
     * value, a selector byte:
     *   v0 off 12  -> 12+1+1+100 = 114     v1 off 112 -> 215
     *   v2 off 212 -> 316                  v3 off 312 -> 316+2+100 = 418
     *   v4: 418 <= 512 so it joins, off 412 -> 418+1+2+100 = 521
     *   v5: 521 > 512, refused.
     * The block is 12 + 500 + gvint(12,112,212,312) 6 + gvint(412,0,0,0) 6 = 524. */
    char buf[100];
    memset(buf, 'q', sizeof buf);
    cf_slice v[10];
    for (int i = 0; i < 10; i++)
        v[i] = (cf_slice){(const uint8_t *)buf, 100};
    cf_encoder *e = enc_create(&cf_enc_plain_binary_ops, CF_TYPE_STRING, 512);
    assert_int_equal(e->ops->add(e, v, 10, false), 5);
    assert_true(e->ops->is_full(e));
    assert_int_equal(e->ops->add(e, v, 5, false), 0);
    cf_slice out;
    cf_error err;
    CF_ASSERT_OK(e->ops->finish(e, 0, &out, &err), &err);
    assert_int_equal(out.len, 524);

    /* the boundary does not depend on the call size */
    e->ops->reset(e);
    size_t took = 0;
    while (!e->ops->is_full(e))
        took += e->ops->add(e, v, 1, false);
    assert_int_equal(took, 5);

    /* force takes everything */
    e->ops->reset(e);
    assert_int_equal(e->ops->add(e, v, 10, true), 10);
    assert_int_equal(e->ops->count(e), 10);
    cf_encoder_free(e);

    /* estimate exactly at block_size still takes the next value: 12 + 1 + 1 + 498 = 512 */
    char big[498];
    memset(big, 'z', sizeof big);
    cf_slice w[2] = {{(const uint8_t *)big, 498}, {(const uint8_t *)big, 1}};
    e = enc_create(&cf_enc_plain_binary_ops, CF_TYPE_STRING, 512);
    assert_int_equal(e->ops->add(e, w, 2, false), 2);
    cf_encoder_free(e);
    e = enc_create(&cf_enc_plain_binary_ops, CF_TYPE_STRING, 511);
    assert_int_equal(e->ops->add(e, w, 2, false), 1);
    cf_encoder_free(e);
}

static cf_slice random_string(cf_rng *r, uint8_t *pool, size_t pool_len)
{
    size_t len = cf_rng_below(r, 8) == 0 ? 0 : (size_t)cf_rng_below(r, 300);
    size_t at = (size_t)cf_rng_below(r, pool_len - len + 1);
    return (cf_slice){pool + at, len};
}

/* The §10.3 writer loop over many blocks; every value comes back, in order. */
static void test_plain_binary__random_round_trip(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(5));
    cf_error err;
    size_t pool_len = 4096;
    uint8_t *pool = malloc(pool_len);
    for (size_t i = 0; i < pool_len; i++)
        pool[i] = (uint8_t)cf_rng_next(&r);
    for (int iter = 0; iter < 20; iter++) {
        size_t n = (size_t)cf_rng_below(&r, 5000);
        uint32_t block_size = 512 + (uint32_t)cf_rng_below(&r, 20000);
        cf_slice *v = malloc((n + 1) * sizeof *v), *got = malloc(300 * sizeof *got);
        for (size_t i = 0; i < n; i++)
            v[i] = random_string(&r, pool, pool_len);
        cf_encoder *e = enc_create(&cf_enc_plain_binary_ops, CF_TYPE_STRING, block_size);
        size_t done = 0, block_start = 0, blocks = 0;
        while (done < n || e->ops->count(e) > 0) {
            if (done < n) {
                size_t k = 1 + (size_t)cf_rng_below(&r, n - done);
                done += e->ops->add(e, v + done, k, false);
                if (!e->ops->is_full(e) && done < n)
                    continue;
            }
            cf_slice out;
            CF_ASSERT_OK(e->ops->finish(e, (uint32_t)block_start, &out, &err), &err);
            size_t cnt = e->ops->count(e);
            cf_decoder *d = dec_open(CF_ENC_PLAIN, CF_TYPE_BINARY, out.data, out.len);
            assert_int_equal(d->count, cnt);
            assert_int_equal(d->first_ord, block_start);
            size_t pos = 0, k;
            while (pos < cnt) {
                size_t want = 1 + (size_t)cf_rng_below(&r, 300);
                CF_ASSERT_OK(d->ops->next(d, got, want, &k, &err), &err);
                assert_true(k > 0);
                for (size_t i = 0; i < k; i++) {
                    assert_int_equal(got[i].len, v[block_start + pos + i].len);
                    if (got[i].len)
                        assert_memory_equal(got[i].data, v[block_start + pos + i].data, got[i].len);
                }
                pos += k;
            }
            for (int s = 0; s < 20 && cnt > 0; s++) {
                size_t idx = (size_t)cf_rng_below(&r, cnt);
                CF_ASSERT_OK(d->ops->seek(d, idx, &err), &err);
                CF_ASSERT_OK(d->ops->next(d, got, 1, &k, &err), &err);
                assert_int_equal(k, 1);
                assert_int_equal(got[0].len, v[block_start + idx].len);
            }
            cf_decoder_free(d);
            block_start += cnt;
            blocks++;
            e->ops->reset(e);
        }
        assert_int_equal(block_start, n);
        cf_encoder_free(e);
        free(v);
        free(got);
    }
    free(pool);
}

static void test_plain_binary__value_seek(void **state)
{
    (void)state;
    const cf_slice v[6] = {S(""), S("a"), S("ab"), S("abc"), S("b"), S("\xff")};
    cf_encoder *e = enc_create(&cf_enc_plain_binary_ops, CF_TYPE_STRING, 4096);
    e->ops->add(e, v, 6, false);
    cf_slice out;
    cf_error err;
    CF_ASSERT_OK(e->ops->finish(e, 0, &out, &err), &err);
    cf_decoder *d = dec_open(CF_ENC_PLAIN, CF_TYPE_BINARY, out.data, out.len);
    for (size_t i = 0; i < 6; i++) {
        bool exact = false;
        CF_ASSERT_OK(d->ops->seek_at_or_after(d, &v[i], &exact, &err), &err);
        assert_true(exact);
        assert_int_equal(d->pos, i);
    }
    static const struct {
        const char *key;
        size_t pos;
    } between[] = {{"\x01", 1}, {"aa", 2}, {"abb", 3}, {"abcd", 4}, {"ba", 5}, {"c", 5}};
    for (size_t i = 0; i < sizeof between / sizeof between[0]; i++) {
        bool exact = true;
        cf_slice key = S(between[i].key);
        CF_ASSERT_OK(d->ops->seek_at_or_after(d, &key, &exact, &err), &err);
        assert_false(exact);
        assert_int_equal(d->pos, between[i].pos);
    }
    bool exact = true;
    cf_slice key = S("\xff\x00");
    key.len = 2;
    CF_ASSERT_STATUS(d->ops->seek_at_or_after(d, &key, &exact, &err), CF_ENOTFOUND, &err);
    assert_false(exact);
    assert_int_equal(d->pos, 6);
    /* before the first: drop "" and seek for it */
    cf_decoder_free(d);
    cf_encoder_free(e);
    e = enc_create(&cf_enc_plain_binary_ops, CF_TYPE_STRING, 4096);
    e->ops->add(e, v + 1, 5, false);
    CF_ASSERT_OK(e->ops->finish(e, 0, &out, &err), &err);
    d = dec_open(CF_ENC_PLAIN, CF_TYPE_BINARY, out.data, out.len);
    key = S("");
    CF_ASSERT_OK(d->ops->seek_at_or_after(d, &key, &exact, &err), &err);
    assert_false(exact);
    assert_int_equal(d->pos, 0);
    cf_slice got;
    size_t n;
    CF_ASSERT_OK(d->ops->next(d, &got, 1, &n, &err), &err);
    assert_int_equal(got.len, 1);
    assert_int_equal(got.data[0], 'a');
    cf_decoder_free(d);
    cf_encoder_free(e);
}

static void test_plain_binary__corrupt_inputs(void **state)
{
    (void)state;
    uint8_t blk[64];
    size_t len = cf_test_unhex("00 00 00 00 03 00 00 00 11 00 00 00 61 62 78 79 7a"
                               " 00 0c 0e 0e 00",
                               blk, sizeof blk);
    cf_error err;
    CF_ASSERT_OK(try_load(blk, len, &err), &err);
    /* every truncation breaks either offsets_pos or the last group */
    for (size_t cut = 0; cut < len; cut++)
        CF_ASSERT_STATUS(try_load(blk, cut, &err), CF_ECORRUPT, &err);

    uint8_t m[64];
#define MUTATE(off, val)                                                                           \
    do {                                                                                           \
        memcpy(m, blk, len);                                                                       \
        m[off] = (val);                                                                            \
    } while (0)
    /* lying counts: 5..8 offsets need a second group; huge counts must not allocate */
    MUTATE(4, 5);
    CF_ASSERT_STATUS(try_load(m, len, &err), CF_ECORRUPT, &err);
    MUTATE(7, 0xff);
    CF_ASSERT_STATUS(try_load(m, len, &err), CF_ECORRUPT, &err);
    /* count 4 still fits the one group, but its pad offset 0 is below 12 */
    MUTATE(4, 4);
    CF_ASSERT_STATUS(try_load(m, len, &err), CF_ECORRUPT, &err);
    /* offsets_pos past the end, and below the header */
    MUTATE(8, 0x17);
    CF_ASSERT_STATUS(try_load(m, len, &err), CF_ECORRUPT, &err);
    MUTATE(8, 0x0b);
    CF_ASSERT_STATUS(try_load(m, len, &err), CF_ECORRUPT, &err);
    /* offsets out of range or order: first below 12, one past offsets_pos, decreasing */
    MUTATE(18, 0x0b);
    CF_ASSERT_STATUS(try_load(m, len, &err), CF_ECORRUPT, &err);
    MUTATE(20, 0x12);
    CF_ASSERT_STATUS(try_load(m, len, &err), CF_ECORRUPT, &err);
    MUTATE(20, 0x0d);
    CF_ASSERT_STATUS(try_load(m, len, &err), CF_ECORRUPT, &err);
    /* selector claiming 4-byte values runs past the end */
    MUTATE(17, 0xff);
    CF_ASSERT_STATUS(try_load(m, len, &err), CF_ECORRUPT, &err);
    /* count 2 (the third string then runs to offsets_pos) is fine */
    MUTATE(4, 2);
    CF_ASSERT_OK(try_load(m, len, &err), &err);
#undef MUTATE
}

/* Random bit flips and truncations of real blocks: a clean rejection or a
 * decode whose slices stay inside the block, never a crash (run under ASan). */
/* The offsets' order check over a block long enough for the vectorized loop:
 * one offset out of order (or past offsets_pos) at any position, in any lane,
 * and in the tail after the last whole vector, is refused. 37 one-byte
 * strings, all offsets < 256, so every group is a 0 selector + 4 bytes. */
static void test_plain_binary__order_checked_at_every_position(void **state)
{
    (void)state;
    enum { N = 37, GROUPS = (N + 3) / 4, POS = 12 + N, LEN = POS + GROUPS * 5 };
    uint8_t b[LEN];
    memset(b, 0, sizeof b);
    cf_store_le32(b + 4, N);
    cf_store_le32(b + 8, POS);
    memset(b + 12, 'x', N);
    for (size_t j = 0; j < N; j++)
        b[POS + j / 4 * 5 + 1 + j % 4] = (uint8_t)(12 + j);
    cf_error err;
    CF_ASSERT_OK(try_load(b, LEN, &err), &err);
    for (size_t j = 1; j < N; j++) {
        uint8_t *at = &b[POS + j / 4 * 5 + 1 + j % 4], was = *at;
        *at = (uint8_t)(12 + j - 2); /* below the previous offset */
        CF_ASSERT_STATUS(try_load(b, LEN, &err), CF_ECORRUPT, &err);
        *at = (uint8_t)(POS + 1); /* past the strings (and above the next) */
        CF_ASSERT_STATUS(try_load(b, LEN, &err), CF_ECORRUPT, &err);
        *at = was;
    }
    CF_ASSERT_OK(try_load(b, LEN, &err), &err);
}

static void test_plain_binary__mutations_never_crash(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(13));
    cf_error err;
    uint8_t pool[512];
    for (size_t i = 0; i < sizeof pool; i++)
        pool[i] = (uint8_t)cf_rng_next(&r);
    size_t ok = 0, corrupt = 0;
    for (int iter = 0; iter < 300; iter++) {
        cf_slice v[40];
        size_t n = (size_t)cf_rng_below(&r, 40);
        for (size_t i = 0; i < n; i++) {
            size_t len = (size_t)cf_rng_below(&r, 40);
            v[i] = (cf_slice){pool + cf_rng_below(&r, sizeof pool - len), len};
        }
        cf_encoder *e = enc_create(&cf_enc_plain_binary_ops, CF_TYPE_STRING, 1 << 16);
        e->ops->add(e, v, n, false);
        cf_slice out;
        CF_ASSERT_OK(e->ops->finish(e, 0, &out, &err), &err);
        uint8_t *m = malloc(out.len);
        for (int k = 0; k < 20; k++) {
            memcpy(m, out.data, out.len);
            int flips = 1 + (int)cf_rng_below(&r, 3);
            for (int f = 0; f < flips; f++) {
                size_t at = (size_t)cf_rng_below(&r, out.len);
                m[at] ^= (uint8_t)(1u << cf_rng_below(&r, 8));
            }
            size_t len = cf_rng_below(&r, 4) == 0 ? (size_t)cf_rng_below(&r, out.len + 1) : out.len;
            cf_status st = try_load(m, len, &err);
            assert_true(st == CF_OK || st == CF_ECORRUPT);
            if (st == CF_OK)
                ok++;
            else
                corrupt++;
        }
        free(m);
        cf_encoder_free(e);
    }
    assert_true(ok > 0 && corrupt > 0);
}

static void test_plain_binary__decoder_reuse_across_loads(void **state)
{
    (void)state;
    cf_error err;
    cf_dec_params p = {.type = CF_TYPE_VARCHAR, .elem_size = sizeof(cf_slice)};
    cf_decoder *d;
    CF_ASSERT_OK(cf_dec_plain_binary_ops.create(&d, &p, &err), &err);
    cf_slice big[100], small[2] = {S("x"), S("yy")};
    for (int i = 0; i < 100; i++)
        big[i] = S("abc");
    cf_encoder *e = enc_create(&cf_enc_plain_binary_ops, CF_TYPE_STRING, 1 << 16);
    e->ops->add(e, big, 100, false);
    cf_slice out;
    CF_ASSERT_OK(e->ops->finish(e, 0, &out, &err), &err);
    uint8_t *first = malloc(out.len);
    size_t first_len = out.len;
    memcpy(first, out.data, out.len);
    e->ops->reset(e);
    e->ops->add(e, small, 2, false);
    CF_ASSERT_OK(e->ops->finish(e, 100, &out, &err), &err);
    CF_ASSERT_OK(d->ops->load(d, first, first_len, &err), &err);
    assert_int_equal(d->count, 100);
    CF_ASSERT_OK(d->ops->load(d, out.data, out.len, &err), &err);
    assert_int_equal(d->count, 2);
    assert_int_equal(d->first_ord, 100);
    cf_slice got[3];
    size_t n;
    CF_ASSERT_OK(d->ops->next(d, got, 3, &n, &err), &err);
    assert_int_equal(n, 2);
    assert_int_equal(got[1].len, 2);
    assert_memory_equal(got[1].data, "yy", 2);
    /* a failed load leaves nothing to read */
    CF_ASSERT_STATUS(d->ops->load(d, first, 11, &err), CF_ECORRUPT, &err);
    assert_int_equal(d->count, 0);
    CF_ASSERT_OK(d->ops->next(d, got, 3, &n, &err), &err);
    assert_int_equal(n, 0);
    cf_decoder_free(d);
    cf_encoder_free(e);
    free(first);
}

/* Saved offsets (load_saved): a second decoder adopting them reads what a
 * normal load reads, and offsets saved from another block, or cut short, are
 * refused (the caller then decodes), leaving nothing to read. */
static void test_plain_binary__saved_state(void **state)
{
    (void)state;
    cf_error err;
    cf_slice a[3] = {S("ab"), S(""), S("cde")}, b[3] = {S("abc"), S("de"), S("")};
    uint8_t *blk[2];
    size_t len[2];
    for (int k = 0; k < 2; k++) {
        cf_encoder *e = enc_create(&cf_enc_plain_binary_ops, CF_TYPE_STRING, 1 << 16);
        assert_int_equal(e->ops->add(e, k ? b : a, 3, false), 3);
        cf_slice out;
        CF_ASSERT_OK(e->ops->finish(e, 7, &out, &err), &err);
        blk[k] = malloc(out.len);
        memcpy(blk[k], out.data, out.len);
        len[k] = out.len;
        cf_encoder_free(e);
    }
    /* Same count and string area: only the offsets tell the blocks apart. */
    assert_int_equal(len[0], len[1]);
    cf_decoder *d = dec_open(CF_ENC_PLAIN, CF_TYPE_BINARY, blk[0], len[0]);
    size_t n = d->ops->saved_len(d);
    assert_int_equal(n, (2 + 4) * 4);
    uint32_t saved[6];
    d->ops->save(d, saved);
    assert_int_equal(saved[0], 3);
    assert_int_equal(saved[1], 12 + 5);
    cf_decoder *d2;
    cf_dec_params p = {.type = CF_TYPE_STRING, .elem_size = sizeof(cf_slice)};
    CF_ASSERT_OK(cf_dec_plain_binary_ops.create(&d2, &p, &err), &err);
    CF_ASSERT_OK(d2->ops->load_saved(d2, blk[0], len[0], saved, n, &err), &err);
    assert_int_equal(d2->count, 3);
    assert_int_equal(d2->first_ord, 7);
    cf_slice got[4];
    size_t g;
    CF_ASSERT_OK(d2->ops->seek(d2, 1, &err), &err);
    CF_ASSERT_OK(d2->ops->next(d2, got, 4, &g, &err), &err);
    assert_int_equal(g, 2);
    CF_ASSERT_BYTES(got[0].data, got[0].len, "", 0);
    CF_ASSERT_BYTES(got[1].data, got[1].len, "cde", 3);
    assert_ptr_equal(got[1].data, blk[0] + 12 + 2);
    bool exact;
    cf_slice key = S("cd");
    CF_ASSERT_OK(d2->ops->seek_at_or_after(d2, &key, &exact, &err), &err);
    assert_int_equal(d2->pos, 2);
    assert_false(exact);
    /* Another count, a cut-short state, a state of another string area. */
    uint32_t bad[6];
    memcpy(bad, saved, sizeof bad);
    bad[0] = 2;
    CF_ASSERT_STATUS(d2->ops->load_saved(d2, blk[0], len[0], bad, n, &err), CF_ECORRUPT, &err);
    assert_int_equal(d2->count, 0);
    CF_ASSERT_OK(d2->ops->next(d2, got, 4, &g, &err), &err);
    assert_int_equal(g, 0);
    CF_ASSERT_STATUS(d2->ops->load_saved(d2, blk[0], len[0], saved, n - 4, &err), CF_ECORRUPT,
                     &err);
    memcpy(bad, saved, sizeof bad);
    bad[1] = bad[5] = 16;
    CF_ASSERT_STATUS(d2->ops->load_saved(d2, blk[0], len[0], bad, n, &err), CF_ECORRUPT, &err);
    CF_ASSERT_STATUS(d2->ops->load_saved(d2, blk[0], 11, saved, n, &err), CF_ECORRUPT, &err);
    /* Block b's own state reads b, not a. */
    cf_decoder *db = dec_open(CF_ENC_PLAIN, CF_TYPE_BINARY, blk[1], len[1]);
    db->ops->save(db, bad);
    CF_ASSERT_OK(d2->ops->load_saved(d2, blk[1], len[1], bad, n, &err), &err);
    CF_ASSERT_OK(d2->ops->next(d2, got, 4, &g, &err), &err);
    assert_int_equal(g, 3);
    for (int i = 0; i < 3; i++)
        CF_ASSERT_BYTES(got[i].data, got[i].len, b[i].data, b[i].len);
    cf_decoder_free(db);
    cf_decoder_free(d2);
    cf_decoder_free(d);
    free(blk[0]);
    free(blk[1]);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_binary__spec_block_14_7),
        cmocka_unit_test(test_plain_binary__empty_block),
        cmocka_unit_test(test_plain_binary__offsets_match_group_varint_example),
        cmocka_unit_test(test_plain_binary__order_checked_at_every_position),
        cmocka_unit_test(test_plain_binary__estimate_stops_inside_a_call),
        cmocka_unit_test(test_plain_binary__random_round_trip),
        cmocka_unit_test(test_plain_binary__value_seek),
        cmocka_unit_test(test_plain_binary__corrupt_inputs),
        cmocka_unit_test(test_plain_binary__mutations_never_crash),
        cmocka_unit_test(test_plain_binary__decoder_reuse_across_loads),
        cmocka_unit_test(test_plain_binary__saved_state),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* Index block builder and reader (cfile-format.md §9.1, §9.4, §3, §10.7,
 * §14.2, §14.10). */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "index/index_block.h"
#include "util/alloc.h"
#include "util/endian.h"

static cf_slice S(const void *p, size_t n)
{
    cf_slice s = {p, n};
    return s;
}

static cf_block_ptr P(uint64_t off, uint32_t size)
{
    cf_block_ptr p = {off, size};
    return p;
}

static void be32(uint8_t out[4], uint32_t v)
{
    cf_store_be32(out, v);
}

/* Build a block from parallel arrays and compare with the expected hex. */
static void check_built(bool leaf, const cf_slice *keys, const cf_block_ptr *ptrs, size_t n,
                        const char *hex)
{
    uint8_t want[512];
    size_t wlen = cf_test_unhex(hex, want, sizeof want);
    cf_index_builder b;
    cf_ib_init(&b, leaf);
    for (size_t i = 0; i < n; i++)
        cf_ib_add(&b, keys[i], ptrs[i]);
    cf_slice out;
    cf_error err;
    CF_ASSERT_OK(cf_ib_finish(&b, &out, &err), &err);
    CF_ASSERT_BYTES(out.data, out.len, want, wlen);

    /* And it reads back. */
    cf_index_block ib;
    CF_ASSERT_OK(cf_ib_parse(&ib, out.data, out.len, &err), &err);
    assert_int_equal(ib.count, n);
    assert_int_equal(ib.leaf, leaf);
    for (size_t i = 0; i < n; i++) {
        cf_slice k;
        cf_block_ptr p;
        CF_ASSERT_OK(cf_ib_entry(&ib, i, &k, &p, &err), &err);
        CF_ASSERT_BYTES(k.data, k.len, keys[i].data, keys[i].len);
        assert_int_equal(p.off, ptrs[i].off);
        assert_int_equal(p.size, ptrs[i].size);
    }
    cf_ib_dispose(&b);
}

/* §14.2: the positional root of the 99-byte file, one entry (ordinal 0 -> (16, 24)). */
static void test_index_block__posidx_one_entry_bytes(void **state)
{
    (void)state;
    uint8_t k[4];
    be32(k, 0);
    cf_slice keys[] = {S(k, 4)};
    cf_block_ptr ptrs[] = {P(16, 24)};
    check_built(true, keys, ptrs, 1, "04 00 00 00 00 10 18 00 00 00 00 08 01 10 00 04 00 00 00");
}

/* §14.10: the value-index leaf with shortened keys. */
static void test_index_block__validx_leaf_bytes(void **state)
{
    (void)state;
    const uint8_t k0[] = {0x80}, k1[] = {0x80, 0x00, 0x01};
    cf_slice keys[] = {S(k0, 1), S(k1, 3)};
    cf_block_ptr ptrs[] = {P(16, 520), P(536, 20)};
    check_built(true, keys, ptrs, 2,
                "01 80 10 88 04  03 80 00 01 98 04 14  00 00 00 00 05 00 00 00"
                "08 02 10 00 04 00 00 00");
}

/* §14.10: the positional leaf for the same two blocks. */
static void test_index_block__posidx_two_entry_bytes(void **state)
{
    (void)state;
    uint8_t k0[4], k1[4];
    be32(k0, 0);
    be32(k1, 127);
    cf_slice keys[] = {S(k0, 4), S(k1, 4)};
    cf_block_ptr ptrs[] = {P(16, 520), P(536, 20)};
    check_built(true, keys, ptrs, 2,
                "04 00 00 00 00 10 88 04  04 00 00 00 7f 98 04 14  00 00 00 00 08 00 00 00"
                "08 02 10 00 04 00 00 00");
}

/* §10.7: the root of an empty file is an empty leaf. */
static void test_index_block__empty_leaf_bytes(void **state)
{
    (void)state;
    check_built(true, NULL, NULL, 0, "08 00 10 00 04 00 00 00");
    cf_index_block ib;
    cf_error err;
    const uint8_t blk[] = {0x08, 0x00, 0x10, 0x00, 0x04, 0x00, 0x00, 0x00};
    CF_ASSERT_OK(cf_ib_parse(&ib, blk, sizeof blk, &err), &err);
    size_t idx;
    uint8_t k[4] = {0};
    CF_ASSERT_STATUS(cf_ib_seek_at_or_before(&ib, S(k, 4), &idx, &err), CF_ENOTFOUND, &err);
    CF_ASSERT_STATUS(cf_ib_seek_at_or_before(&ib, S(NULL, 0), &idx, &err), CF_ENOTFOUND, &err);
}

/* §3: IndexBlockTrailerPB{300, INTERNAL} is `08 ac 02 10 01`. */
static void test_index_block__internal_trailer_300(void **state)
{
    (void)state;
    cf_index_builder b;
    cf_ib_init(&b, false);
    for (uint32_t i = 0; i < 300; i++) {
        uint8_t k[4];
        be32(k, i * 1000);
        cf_ib_add(&b, S(k, 4), P(1000000 + i * 200, 150));
    }
    cf_slice out;
    cf_error err;
    CF_ASSERT_OK(cf_ib_finish(&b, &out, &err), &err);
    const uint8_t tail[] = {0x08, 0xac, 0x02, 0x10, 0x01, 0x05, 0x00, 0x00, 0x00};
    assert_true(out.len > sizeof tail);
    CF_ASSERT_BYTES(out.data + out.len - sizeof tail, sizeof tail, tail, sizeof tail);
    cf_index_block ib;
    CF_ASSERT_OK(cf_ib_parse(&ib, out.data, out.len, &err), &err);
    assert_int_equal(ib.count, 300);
    assert_false(ib.leaf);
    /* Entry i is 1 + 4 + 3 + 2 = 10 bytes, so the offset array starts at 3000. */
    assert_int_equal(ib.offsets_pos, 3000);
    cf_ib_dispose(&b);
}

/* §9.3: estimate = entry bytes + 4 * entries + 16; first key; reset reuses. */
static void test_index_block__estimate_first_key_reset(void **state)
{
    (void)state;
    cf_index_builder b;
    cf_ib_init(&b, true);
    assert_int_equal(cf_ib_estimated_size(&b), 16);
    const uint8_t k0[] = {1, 2, 3};
    cf_ib_add(&b, S(k0, 3), P(300, 200)); /* 1 + 3 + 2 + 2 = 8 */
    assert_int_equal(cf_ib_estimated_size(&b), 8 + 4 + 16);
    cf_ib_add(&b, S("", 0), P(5, 1)); /* 1 + 0 + 1 + 1 = 3 */
    assert_int_equal(cf_ib_estimated_size(&b), 11 + 8 + 16);
    cf_slice fk = cf_ib_first_key(&b);
    CF_ASSERT_BYTES(fk.data, fk.len, k0, 3);
    cf_slice out;
    cf_error err;
    CF_ASSERT_OK(cf_ib_finish(&b, &out, &err), &err);
    /* entries 11 + offsets 8 + trailer 4 + 4 */
    assert_int_equal(out.len, 27);

    cf_ib_reset(&b);
    assert_int_equal(b.count, 0);
    assert_int_equal(cf_ib_estimated_size(&b), 16);
    assert_int_equal(cf_ib_first_key(&b).len, 0);
    uint8_t k[4];
    be32(k, 0);
    cf_ib_add(&b, S(k, 4), P(16, 24));
    CF_ASSERT_OK(cf_ib_finish(&b, &out, &err), &err);
    uint8_t want[32];
    size_t wlen =
        cf_test_unhex("04 00 00 00 00 10 18 00 00 00 00 08 01 10 00 04 00 00 00", want, 32);
    CF_ASSERT_BYTES(out.data, out.len, want, wlen);
    cf_ib_dispose(&b);
}

/* Allocation failure while adding surfaces as CF_ENOMEM at finish. */
static void test_index_block__oom(void **state)
{
    (void)state;
    cf_index_builder b;
    cf_ib_init(&b, true);
    uint8_t big[300] = {0};
    cf_alloc_fail_after(1);
    cf_ib_add(&b, S(big, sizeof big), P(1, 1));
    cf_alloc_fail_after(0);
    cf_slice out;
    cf_error err;
    CF_ASSERT_STATUS(cf_ib_finish(&b, &out, &err), CF_ENOMEM, &err);
    cf_ib_dispose(&b);
}

/* Reference for seek: the last index whose key <= target, or -1. */
static long ref_seek(const cf_slice *keys, size_t n, cf_slice t)
{
    long r = -1;
    for (size_t i = 0; i < n; i++) {
        size_t m = keys[i].len < t.len ? keys[i].len : t.len;
        int c = m ? memcmp(keys[i].data, t.data, m) : 0;
        if (c == 0)
            c = keys[i].len < t.len ? -1 : keys[i].len > t.len;
        if (c <= 0)
            r = (long)i;
    }
    return r;
}

static int cmp_keys(const void *a, const void *b)
{
    const cf_slice *x = a, *y = b;
    size_t m = x->len < y->len ? x->len : y->len;
    int c = m ? memcmp(x->data, y->data, m) : 0;
    if (c == 0)
        c = x->len < y->len ? -1 : x->len > y->len;
    return c;
}

/* Random sorted unique variable-length keys (prefix order included): every seek
 * agrees with a linear scan, for keys present, between, before and after. */
static void test_index_block__seek_matches_linear(void **state)
{
    (void)state;
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(0x1b10c4));
    for (int round = 0; round < 60; round++) {
        size_t n = 1 + cf_rng_below(&rng, round < 10 ? 4 : 300);
        uint8_t *pool = malloc(n * 6);
        cf_slice *keys = malloc(n * sizeof *keys);
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            size_t len = cf_rng_below(&rng, 6); /* 0..5 bytes over a tiny alphabet */
            uint8_t *k = pool + i * 6;
            for (size_t j = 0; j < len; j++)
                k[j] = (uint8_t)cf_rng_below(&rng, 3) * 0x7f;
            keys[m++] = S(k, len);
        }
        qsort(keys, m, sizeof *keys, cmp_keys);
        size_t u = 0; /* dedupe */
        for (size_t i = 0; i < m; i++)
            if (u == 0 || cmp_keys(&keys[u - 1], &keys[i]) != 0)
                keys[u++] = keys[i];

        cf_index_builder b;
        cf_ib_init(&b, round & 1);
        for (size_t i = 0; i < u; i++)
            cf_ib_add(&b, keys[i], P(i * 1000, (uint32_t)i));
        cf_slice out;
        cf_error err;
        CF_ASSERT_OK(cf_ib_finish(&b, &out, &err), &err);
        cf_index_block ib;
        CF_ASSERT_OK(cf_ib_parse(&ib, out.data, out.len, &err), &err);
        assert_int_equal(ib.count, u);

        for (int q = 0; q < 400; q++) {
            uint8_t t[6];
            size_t tl = cf_rng_below(&rng, 7);
            for (size_t j = 0; j < tl; j++)
                t[j] = (uint8_t)cf_rng_below(&rng, 4) * 0x55;
            cf_slice ts = S(t, tl);
            if (q < (int)u)
                ts = keys[q];
            long want = ref_seek(keys, u, ts);
            size_t idx = 999999;
            cf_status st = cf_ib_seek_at_or_before(&ib, ts, &idx, &err);
            if (want < 0) {
                CF_ASSERT_STATUS(st, CF_ENOTFOUND, &err);
            } else {
                CF_ASSERT_OK(st, &err);
                assert_int_equal(idx, (size_t)want);
                cf_slice k;
                cf_block_ptr p;
                CF_ASSERT_OK(cf_ib_entry(&ib, idx, &k, &p, &err), &err);
                assert_int_equal(p.off, idx * 1000);
            }
        }
        cf_ib_dispose(&b);
        free(keys);
        free(pool);
    }
}

/* The windowed search (cf_ib_windows_build, cf_ib_seek_windowed) gives the
 * plain search's answers, strict and not: keys sharing a prefix of 0-12
 * bytes, then 0-14 more bytes over {00, 01, 7f, ff} (so windows tie, pad with
 * zeros against real zeros, and keys are prefixes of each other), with and
 * without equal keys, with and without a first key cut short; targets are the keys, the keys plus a
 * byte or minus one, random, and cut or changed shared prefixes. Keys out of order build no
 * windows. */
static void test_index_block__windowed_matches_plain(void **state)
{
    (void)state;
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(0x3a1d0e));
    static const uint8_t alpha[4] = {0x00, 0x01, 0x7f, 0xff};
    enum { KMAX = 26 };
    for (int round = 0; round < 200; round++) {
        size_t n = 1 + cf_rng_below(&rng, round < 40 ? 5 : 400);
        size_t plen = cf_rng_below(&rng, 13);
        uint8_t prefix[12];
        for (size_t j = 0; j < plen; j++)
            prefix[j] = (uint8_t)('a' + cf_rng_below(&rng, 26));
        uint8_t *pool = malloc(n * KMAX);
        cf_slice *keys = malloc(n * sizeof *keys);
        for (size_t i = 0; i < n; i++) {
            uint8_t *k = pool + i * KMAX;
            size_t more = cf_rng_below(&rng, 15);
            memcpy(k, prefix, plen);
            for (size_t j = 0; j < more; j++)
                k[plen + j] = alpha[cf_rng_below(&rng, round % 3 == 0 ? 2 : 4)];
            keys[i] = S(k, plen + more);
        }
        qsort(keys, n, sizeof *keys, cmp_keys);
        size_t u = n;
        if (round & 2) { /* unique keys in some rounds, repeats in the others */
            u = 0;
            for (size_t i = 0; i < n; i++)
                if (u == 0 || cmp_keys(&keys[u - 1], &keys[i]) != 0)
                    keys[u++] = keys[i];
        }
        /* A first key cut short, as Kudu's value index writes it: it shares
         * less than the others (or nothing) */
        if (round % 2 == 1 && u > 1)
            keys[0] = S(prefix, cf_rng_below(&rng, plen + 1));
        cf_index_builder b;
        cf_ib_init(&b, round & 1);
        for (size_t i = 0; i < u; i++)
            cf_ib_add(&b, keys[i], P(i * 1000 + 7, (uint32_t)i));
        cf_slice out;
        cf_error err;
        CF_ASSERT_OK(cf_ib_finish(&b, &out, &err), &err);
        cf_index_block ib;
        CF_ASSERT_OK(cf_ib_parse(&ib, out.data, out.len, &err), &err);
        void *mem = malloc(cf_ib_windows_size(&ib));
        cf_ib_windows wv;
        assert_true(cf_ib_windows_build(&ib, mem, &wv));
        for (size_t i = 0; i < u; i++) {
            CF_ASSERT_BYTES(wv.keys[i].data, wv.keys[i].len, keys[i].data, keys[i].len);
            assert_int_equal(wv.children[i].off, i * 1000 + 7);
            assert_int_equal(wv.children[i].size, i);
        }
        for (int q = 0; q < 600; q++) {
            uint8_t t[KMAX + 1];
            size_t tl;
            cf_slice base = keys[cf_rng_below(&rng, u)];
            memcpy(t, base.data, base.len);
            tl = base.len;
            switch (q % 5) {
            case 0: /* a key */ break;
            case 1: /* a key plus a byte */ t[tl++] = alpha[cf_rng_below(&rng, 4)]; break;
            case 2: /* a key cut short (into the shared prefix too) */
                tl = cf_rng_below(&rng, tl + 1);
                break;
            case 3: /* a key with one byte changed */
                if (tl > 0)
                    t[cf_rng_below(&rng, tl)] = (uint8_t)cf_rng_next(&rng);
                break;
            default: /* random bytes after the shared prefix */
                tl = plen + cf_rng_below(&rng, 16);
                for (size_t j = plen; j < tl; j++)
                    t[j] = alpha[cf_rng_below(&rng, 4)];
                memcpy(t, prefix, plen);
                break;
            }
            cf_slice ts = S(t, tl);
            for (int strict = 0; strict < 2; strict++) {
                size_t want = 999999, got = 888888;
                cf_status sw = strict ? cf_ib_seek_before(&ib, ts, &want, &err)
                                      : cf_ib_seek_at_or_before(&ib, ts, &want, &err);
                cf_status sg = cf_ib_seek_windowed(&ib, &wv, ts, strict, &got, &err);
                assert_int_equal(sg, sw);
                if (sw == CF_OK)
                    assert_int_equal(got, want);
                else
                    assert_int_equal(sw, CF_ENOTFOUND);
            }
        }
        /* Out of order: two different keys swapped. */
        if (u >= 2 && cmp_keys(&keys[0], &keys[u - 1]) != 0) {
            cf_index_builder b2;
            cf_ib_init(&b2, true);
            cf_ib_add(&b2, keys[u - 1], P(1, 1));
            for (size_t i = 1; i + 1 < u; i++)
                cf_ib_add(&b2, keys[i], P(1, 1));
            cf_ib_add(&b2, keys[0], P(1, 1));
            cf_slice out2;
            CF_ASSERT_OK(cf_ib_finish(&b2, &out2, &err), &err);
            cf_index_block ib2;
            CF_ASSERT_OK(cf_ib_parse(&ib2, out2.data, out2.len, &err), &err);
            void *mem2 = malloc(cf_ib_windows_size(&ib2));
            assert_false(cf_ib_windows_build(&ib2, mem2, &wv));
            free(mem2);
            cf_ib_dispose(&b2);
        }
        free(mem);
        cf_ib_dispose(&b);
        free(keys);
        free(pool);
    }
}

/* Parse, then touch every entry and do a few seeks; returns the first non-OK
 * status other than CF_ENOTFOUND (CF_OK when everything read cleanly). */
static cf_status exercise(const uint8_t *data, size_t len)
{
    cf_error err;
    cf_index_block ib;
    cf_status st = cf_ib_parse(&ib, data, len, &err);
    if (st != CF_OK)
        return st;
    assert_true(ib.offsets_pos <= len);
    for (size_t i = 0; i < ib.count; i++) {
        cf_slice k;
        cf_block_ptr p;
        st = cf_ib_entry(&ib, i, &k, &p, &err);
        if (st != CF_OK)
            return st;
        assert_true(k.data >= data && k.len <= (size_t)(data + ib.offsets_pos - k.data));
    }
    const uint8_t probes[][4] = {
        {0, 0, 0, 0}, {0, 0, 0, 9}, {0x80, 0, 0, 0}, {0xff, 0xff, 0xff, 0xff}};
    for (size_t i = 0; i < 4; i++) {
        size_t idx;
        st = cf_ib_seek_at_or_before(&ib, S(probes[i], 4), &idx, &err);
        if (st != CF_OK && st != CF_ENOTFOUND)
            return st;
        if (st == CF_OK)
            assert_true(idx < ib.count);
    }
    /* Windows are built only over sound, ordered entries, and then agree. */
    void *mem = malloc(cf_ib_windows_size(&ib) + 1);
    cf_ib_windows wv;
    if (cf_ib_windows_build(&ib, mem, &wv)) {
        for (size_t i = 0; i < 4; i++) {
            for (int strict = 0; strict < 2; strict++) {
                size_t want = 0, got = 1;
                cf_status sw = strict ? cf_ib_seek_before(&ib, S(probes[i], 4), &want, &err)
                                      : cf_ib_seek_at_or_before(&ib, S(probes[i], 4), &want, &err);
                assert_int_equal(cf_ib_seek_windowed(&ib, &wv, S(probes[i], 4), strict, &got, &err),
                                 sw);
                if (sw == CF_OK)
                    assert_int_equal(got, want);
            }
        }
    }
    free(mem);
    return CF_OK;
}

/* Parse `hex` (a hand-made corrupt block) and expect CF_ECORRUPT somewhere. */
static void expect_corrupt(const char *hex)
{
    uint8_t buf[256];
    size_t n = cf_test_unhex(hex, buf, sizeof buf);
    /* Copy into an exact-size heap block so ASan sees any overrun. */
    uint8_t *p = malloc(n ? n : 1);
    memcpy(p, buf, n);
    cf_status st = exercise(p, n);
    if (st != CF_ECORRUPT)
        fail_msg("block %s: expected corruption, got %s", hex, cf_status_str(st));
    free(p);
}

static void test_index_block__corrupt_cases(void **state)
{
    (void)state;
    expect_corrupt("");                                    /* no trailer length */
    expect_corrupt("04 00 00");                            /* shorter than 4 */
    expect_corrupt("03 00 00 00");                         /* trailer length 3 < 4 */
    expect_corrupt("08 00 10 00 05 00 00 00");             /* trailer length too big */
    expect_corrupt("08 00 10 00 ff ff ff ff");             /* trailer length huge */
    expect_corrupt("08 00 08 00 04 00 00 00");             /* missing required type */
    expect_corrupt("10 00 10 00 04 00 00 00");             /* missing required num_entries */
    expect_corrupt("ff ff ff ff 04 00 00 00");             /* not protobuf */
    expect_corrupt("08 00 12 00 04 00 00 00");             /* type with the wrong wire type */
    expect_corrupt("08 00 10 02 04 00 00 00");             /* unknown block type */
    expect_corrupt("08 00 10 e7 07 05 00 00 00");          /* type UNKNOWN (999) */
    expect_corrupt("08 ff ff ff ff 0f 10 00 08 00 00 00"); /* num_entries = -1 */
    /* One entry claimed but no room for offsets + a 3-byte entry. */
    expect_corrupt("00 00 00 00 08 01 10 00 04 00 00 00");
    expect_corrupt("01 00 00 00 00 00 08 01 10 00 04 00 00 00"); /* 6 bytes < 7 */
    /* Entry offset at the offset array (not before it). */
    expect_corrupt("04 00 00 00 00 10 18  07 00 00 00  08 01 10 00 04 00 00 00");
    /* Entry offset far past the block. */
    expect_corrupt("04 00 00 00 00 10 18  ff ff ff 7f  08 01 10 00 04 00 00 00");
    /* Key length overruns the entry. */
    expect_corrupt("05 00 00 00 00 10 18  00 00 00 00  08 01 10 00 04 00 00 00");
    /* Key length varint never ends. */
    expect_corrupt("84 80 80 80 80 80 80  00 00 00 00  08 01 10 00 04 00 00 00");
    /* Child size varint cut by the end of the entry room. */
    expect_corrupt("04 00 00 00 00 10 98  00 00 00 00  08 01 10 00 04 00 00 00");
    /* Two entries, second offset before the first (decreasing). */
    expect_corrupt("01 80 10 88 04 03 80 00 01 98 04 14  05 00 00 00 00 00 00 00"
                   "08 02 10 00 04 00 00 00");
    /* Two entries with equal offsets. */
    expect_corrupt("01 80 10 88 04 03 80 00 01 98 04 14  00 00 00 00 00 00 00 00"
                   "08 02 10 00 04 00 00 00");
    /* First entry's pointer runs into the second entry's room. */
    expect_corrupt("01 80 10 88 04 03 80 00 01 98 04 14  00 00 00 00 04 00 00 00"
                   "08 02 10 00 04 00 00 00");
    /* Second entry offset points at the offset array. */
    expect_corrupt("01 80 10 88 04 03 80 00 01 98 04 14  00 00 00 00 0c 00 00 00"
                   "08 02 10 00 04 00 00 00");
}

/* Unknown fields in the trailer are tolerated (Kudu's protobuf keeps them). */
static void test_index_block__trailer_unknown_field(void **state)
{
    (void)state;
    uint8_t blk[64];
    size_t n = cf_test_unhex("04 00 00 00 00 10 18  00 00 00 00  08 01 10 00 18 05 06 00 00 00",
                             blk, sizeof blk);
    cf_index_block ib;
    cf_error err;
    CF_ASSERT_OK(cf_ib_parse(&ib, blk, n, &err), &err);
    assert_int_equal(ib.count, 1);
    assert_true(ib.leaf);
    cf_slice k;
    cf_block_ptr p;
    CF_ASSERT_OK(cf_ib_entry(&ib, 0, &k, &p, &err), &err);
    assert_int_equal(p.off, 16);
    assert_int_equal(p.size, 24);
}

/* Every truncation of a valid block is rejected, and every single-byte change
 * either reads cleanly or is reported as corruption, never out of bounds. */
static void test_index_block__truncate_and_mutate(void **state)
{
    (void)state;
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(0x1b10c4) ^ 7);
    cf_index_builder b;
    cf_ib_init(&b, false);
    for (uint32_t i = 0; i < 40; i++) {
        uint8_t k[8];
        size_t kl = 1 + i % 8;
        memset(k, (int)i, kl);
        cf_ib_add(&b, S(k, kl), P((uint64_t)i << (i % 40), i * 77));
    }
    cf_slice out;
    cf_error err;
    CF_ASSERT_OK(cf_ib_finish(&b, &out, &err), &err);
    size_t len = out.len;
    uint8_t *copy = malloc(len);

    for (size_t cut = 0; cut < len; cut++) {
        uint8_t *p = malloc(cut ? cut : 1);
        memcpy(p, out.data, cut);
        assert_int_equal(exercise(p, cut), CF_ECORRUPT);
        free(p);
    }
    for (size_t pos = 0; pos < len; pos++) {
        for (int v = 0; v < 6; v++) {
            memcpy(copy, out.data, len);
            copy[pos] = v < 4 ? (uint8_t)(copy[pos] ^ (1u << (cf_rng_below(&rng, 8))))
                              : (uint8_t)cf_rng_next(&rng);
            cf_status st = exercise(copy, len);
            assert_true(st == CF_OK || st == CF_ECORRUPT);
        }
    }
    free(copy);
    cf_ib_dispose(&b);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index_block__posidx_one_entry_bytes),
        cmocka_unit_test(test_index_block__validx_leaf_bytes),
        cmocka_unit_test(test_index_block__posidx_two_entry_bytes),
        cmocka_unit_test(test_index_block__empty_leaf_bytes),
        cmocka_unit_test(test_index_block__internal_trailer_300),
        cmocka_unit_test(test_index_block__estimate_first_key_reset),
        cmocka_unit_test(test_index_block__oom),
        cmocka_unit_test(test_index_block__seek_matches_linear),
        cmocka_unit_test(test_index_block__windowed_matches_plain),
        cmocka_unit_test(test_index_block__corrupt_cases),
        cmocka_unit_test(test_index_block__trailer_unknown_field),
        cmocka_unit_test(test_index_block__truncate_and_mutate),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* DICT block encoding (format §8.8, §14.9): exact bytes of the data and
 * dictionary blocks, the mode-2 fallback against a model of §8.8.3, round trips,
 * value seeks, and corrupt blocks. */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encoding/dict_lookup.h"
#include "encoding/encodings.h"
#include "util/endian.h"

#include "support_codec.h"

static cf_enc_params enc_params(uint32_t block_size)
{
    cf_enc_params p = {.type = CF_TYPE_STRING,
                       .elem_size = sizeof(cf_slice),
                       .block_size = block_size,
                       .restart_interval = 16};
    return p;
}

static cf_slice S(const char *s)
{
    return (cf_slice){(const uint8_t *)s, strlen(s)};
}

/* A decoded dictionary: the PLAIN BINARY decoder over a copy of the block. */
typedef struct test_dict {
    uint8_t *block;
    cf_decoder *dec;
    cf_slice *entries;
    cf_dict dict;
} test_dict;

static void dict_open(test_dict *t, const uint8_t *dblock, size_t len)
{
    cf_error err;
    t->block = cf_test_dup(dblock, len);
    cf_dec_params p = {.type = CF_TYPE_STRING, .elem_size = sizeof(cf_slice)};
    CF_ASSERT_OK(cf_dec_plain_binary_ops.create(&t->dec, &p, &err), &err);
    CF_ASSERT_OK(t->dec->ops->load(t->dec, t->block, len, &err), &err);
    assert_int_equal(t->dec->first_ord, 0);
    size_t n = t->dec->count, got = 0;
    t->entries = calloc(n + 1, sizeof(cf_slice));
    if (n)
        CF_ASSERT_OK(t->dec->ops->next(t->dec, t->entries, n, &got, &err), &err);
    assert_int_equal(got, n);
    t->dict.entries = t->entries;
    t->dict.count = n;
}

static void dict_close(test_dict *t)
{
    cf_decoder_free(t->dec);
    free(t->entries);
    free(t->block);
}

static cf_decoder *open_dec(const cf_dict *dict)
{
    cf_error err;
    cf_dec_params p = {.type = CF_TYPE_STRING, .elem_size = sizeof(cf_slice), .dict = dict};
    cf_decoder *d;
    CF_ASSERT_OK(cf_dec_dict_ops.create(&d, &p, &err), &err);
    return d;
}

static void test_dict__example(void **state)
{
    (void)state;
    cf_error err;
    cf_encoder *e;
    cf_enc_params p = enc_params(262144);
    CF_ASSERT_OK(cf_enc_dict_ops.create(&e, &p, &err), &err);
    cf_slice v[] = {S("b"), S("a"), S("b")};
    assert_int_equal(cf_enc_dict_ops.add(e, v, 3, false), 3);
    assert_int_equal(cf_enc_dict_ops.count(e), 3);
    assert_false(cf_enc_dict_ops.is_full(e));
    cf_slice out;
    CF_ASSERT_OK(cf_enc_dict_ops.finish(e, 0, &out, &err), &err);
    uint8_t want[128];
    size_t wl = cf_test_unhex("01 00 00 00"
                              "00 00 00 00 03 00 00 00 21 00 00 00 08 00 00 00 01 00 00 00"
                              "00 00 00 09"
                              "80 02 00 00 00 00 00 00 00",
                              want, sizeof want);
    CF_ASSERT_BYTES(out.data, out.len, want, wl);
    uint8_t *data = malloc(out.len);
    memcpy(data, out.data, out.len);
    size_t dlen = out.len;
    cf_enc_dict_ops.reset(e);

    cf_slice dblk;
    CF_ASSERT_OK(cf_enc_dict_ops.finish_dict(e, &dblk, &err), &err);
    wl = cf_test_unhex("00 00 00 00 02 00 00 00 0e 00 00 00 62 61 00 0c 0d 00 00", want,
                       sizeof want);
    CF_ASSERT_BYTES(dblk.data, dblk.len, want, wl);

    test_dict td;
    dict_open(&td, dblk.data, dblk.len);
    cf_encoder_free(e);
    cf_decoder *d = open_dec(&td.dict);
    CF_ASSERT_OK(d->ops->load(d, data, dlen, &err), &err);
    assert_int_equal(d->count, 3);
    assert_int_equal(d->first_ord, 0);
    cf_slice got[4];
    size_t g;
    CF_ASSERT_OK(d->ops->next(d, got, 4, &g, &err), &err);
    assert_int_equal(g, 3);
    for (int i = 0; i < 3; i++)
        CF_ASSERT_BYTES(got[i].data, got[i].len, v[i].data, v[i].len);
    /* the slices are the dictionary's, not copies */
    assert_ptr_equal(got[0].data, td.entries[0].data);
    assert_ptr_equal(got[1].data, td.entries[1].data);
    cf_decoder_free(d);
    dict_close(&td);
    free(data);
}

/* Saved codewords and fallback offsets (load_saved) read as a normal load
 * does; a state of another mode, block or dictionary is refused. */
static void test_dict__saved_state(void **state)
{
    (void)state;
    cf_error err;
    cf_encoder *e;
    cf_enc_params p = enc_params(262144);
    CF_ASSERT_OK(cf_enc_dict_ops.create(&e, &p, &err), &err);
    cf_slice v[] = {S("b"), S("a"), S("b"), S("c")};
    assert_int_equal(cf_enc_dict_ops.add(e, v, 4, false), 4);
    cf_slice out;
    CF_ASSERT_OK(cf_enc_dict_ops.finish(e, 5, &out, &err), &err);
    size_t l1 = out.len;
    uint8_t *b1 = malloc(l1);
    memcpy(b1, out.data, l1);
    cf_enc_dict_ops.reset(e);
    cf_slice dblk;
    CF_ASSERT_OK(cf_enc_dict_ops.finish_dict(e, &dblk, &err), &err);
    test_dict td;
    dict_open(&td, dblk.data, dblk.len);
    cf_encoder_free(e);
    /* A mode-2 block: the mode word, then a PLAIN BINARY block. */
    cf_encoder *pe;
    CF_ASSERT_OK(cf_enc_plain_binary_ops.create(&pe, &p, &err), &err);
    cf_slice pv[] = {S("xy"), S("z")};
    assert_int_equal(pe->ops->add(pe, pv, 2, false), 2);
    CF_ASSERT_OK(pe->ops->finish(pe, 9, &out, &err), &err);
    size_t l2 = out.len + 4;
    uint8_t *b2 = malloc(l2);
    cf_store_le32(b2, 2);
    memcpy(b2 + 4, out.data, out.len);
    cf_encoder_free(pe);

    cf_decoder *d = open_dec(&td.dict), *d2 = open_dec(&td.dict);
    uint32_t s1[16], s2[16];
    CF_ASSERT_OK(d->ops->load(d, b1, l1, &err), &err);
    size_t n1 = d->ops->saved_len(d);
    assert_int_equal(n1, (4 + 4) * 4);
    d->ops->save(d, s1);
    CF_ASSERT_OK(d->ops->load(d, b2, l2, &err), &err);
    size_t n2 = d->ops->saved_len(d);
    assert_int_equal(n2, 4 + (2 + 3) * 4);
    d->ops->save(d, s2);

    cf_slice got[5];
    size_t g;
    CF_ASSERT_OK(d2->ops->load_saved(d2, b1, l1, s1, n1, &err), &err);
    assert_int_equal(d2->count, 4);
    assert_int_equal(d2->first_ord, 5);
    CF_ASSERT_OK(d2->ops->next(d2, got, 5, &g, &err), &err);
    assert_int_equal(g, 4);
    for (int i = 0; i < 4; i++)
        CF_ASSERT_BYTES(got[i].data, got[i].len, v[i].data, v[i].len);
    bool exact;
    cf_slice key = S("b");
    CF_ASSERT_OK(d2->ops->seek_at_or_after(d2, &key, &exact, &err), &err);
    CF_ASSERT_OK(d2->ops->load_saved(d2, b2, l2, s2, n2, &err), &err);
    assert_int_equal(d2->count, 2);
    assert_int_equal(d2->first_ord, 9);
    CF_ASSERT_OK(d2->ops->seek(d2, 1, &err), &err);
    CF_ASSERT_OK(d2->ops->next(d2, got, 5, &g, &err), &err);
    assert_int_equal(g, 1);
    CF_ASSERT_BYTES(got[0].data, got[0].len, "z", 1);

    /* Wrong mode either way, a cut-short state, another dictionary size. */
    CF_ASSERT_STATUS(d2->ops->load_saved(d2, b2, l2, s1, n1, &err), CF_ECORRUPT, &err);
    assert_int_equal(d2->count, 0);
    CF_ASSERT_STATUS(d2->ops->load_saved(d2, b1, l1, s2, n2, &err), CF_ECORRUPT, &err);
    CF_ASSERT_STATUS(d2->ops->load_saved(d2, b1, l1, s1, n1 - 4, &err), CF_ECORRUPT, &err);
    s1[3]++;
    CF_ASSERT_STATUS(d2->ops->load_saved(d2, b1, l1, s1, n1, &err), CF_ECORRUPT, &err);
    s1[3]--;
    s1[1]--; /* count */
    CF_ASSERT_STATUS(d2->ops->load_saved(d2, b1, l1, s1, n1 - 4, &err), CF_ECORRUPT, &err);
    CF_ASSERT_OK(d2->ops->next(d2, got, 5, &g, &err), &err);
    assert_int_equal(g, 0);
    cf_decoder_free(d);
    cf_decoder_free(d2);
    dict_close(&td);
    free(b1);
    free(b2);
}

static void test_dict__empty(void **state)
{
    (void)state;
    cf_error err;
    cf_encoder *e;
    cf_enc_params p = enc_params(262144);
    CF_ASSERT_OK(cf_enc_dict_ops.create(&e, &p, &err), &err);
    cf_slice out;
    CF_ASSERT_OK(cf_enc_dict_ops.finish(e, 5, &out, &err), &err);
    uint8_t want[64];
    size_t wl = cf_test_unhex("01 00 00 00 05 00 00 00 00 00 00 00 14 00 00 00 00 00 00 00"
                              "01 00 00 00",
                              want, sizeof want);
    CF_ASSERT_BYTES(out.data, out.len, want, wl);
    cf_slice dblk;
    CF_ASSERT_OK(cf_enc_dict_ops.finish_dict(e, &dblk, &err), &err);
    wl = cf_test_unhex("00 00 00 00 00 00 00 00 0c 00 00 00", want, sizeof want);
    CF_ASSERT_BYTES(dblk.data, dblk.len, want, wl);

    test_dict td;
    dict_open(&td, dblk.data, dblk.len);
    cf_decoder *d = open_dec(&td.dict);
    CF_ASSERT_OK(d->ops->load(d, out.data, out.len, &err), &err);
    assert_int_equal(d->count, 0);
    assert_int_equal(d->first_ord, 5);
    cf_slice got[1];
    size_t g = 3;
    CF_ASSERT_OK(d->ops->next(d, got, 1, &g, &err), &err);
    assert_int_equal(g, 0);
    bool exact;
    cf_slice key = S("a");
    CF_ASSERT_STATUS(d->ops->seek_at_or_after(d, &key, &exact, &err), CF_ENOTFOUND, &err);
    cf_decoder_free(d);
    dict_close(&td);
    cf_encoder_free(e);
}

/* ---- a model of §8.8.3 with the §8.6 estimate, written from the spec ---------------- */

typedef struct model {
    uint32_t bs;
    int mode;
    /* dictionary */
    const cf_slice **dict;
    size_t ndict;
    size_t dict_est, dict_bytes;
    /* current block */
    size_t cnt;
    size_t est, bytes; /* mode 2 block estimate */
} model;

static size_t gv_len(size_t v)
{
    return v < 0x100 ? 1 : v < 0x10000 ? 2 : v < 0x1000000 ? 3 : 4;
}

/* §8.6: estimate after adding one string to a plain block with n strings so far */
static void est_add(size_t *est, size_t *bytes, size_t n, size_t len)
{
    if (n % 4 == 0)
        *est += 1;
    *est += gv_len(12 + *bytes) + len;
    *bytes += len;
}

static bool eq(const cf_slice *a, const cf_slice *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

static long model_lookup(const model *m, const cf_slice *v)
{
    for (size_t i = 0; i < m->ndict; i++)
        if (eq(m->dict[i], v))
            return (long)i;
    return -1;
}

static size_t model_add(model *m, const cf_slice *v, size_t n)
{
    size_t i = 0;
    for (; i < n; i++) {
        if (m->mode == 1) {
            if (model_lookup(m, &v[i]) < 0) {
                if (m->dict_est > m->bs)
                    break;
                est_add(&m->dict_est, &m->dict_bytes, m->ndict, v[i].len);
                m->dict[m->ndict++] = &v[i];
            }
            if (m->cnt >= m->bs / 4)
                break;
            m->cnt++;
        } else {
            if (m->est > m->bs)
                break;
            est_add(&m->est, &m->bytes, m->cnt, v[i].len);
            m->cnt++;
        }
    }
    return i;
}

static bool model_full(const model *m)
{
    if (m->mode == 1)
        return m->cnt >= m->bs / 4 || m->dict_est > m->bs;
    return m->est > m->bs;
}

static void model_reset(model *m)
{
    if (m->mode == 1 && m->dict_est > m->bs)
        m->mode = 2;
    m->cnt = 0;
    m->est = 12;
    m->bytes = 0;
}

/* ---- a whole column through the writer loop of §10.3 ------------------------------- */

typedef struct blk {
    uint8_t *data;
    size_t len;
    size_t first, count;
    int mode;
} blk;

typedef struct column {
    blk *blocks;
    size_t nblocks;
    uint8_t *dict_block;
    size_t dict_len;
    size_t model_ndict;
} column;

/* call_size 0 = random call sizes 1..200 */
static column write_column(cf_rng *r, const cf_slice *v, size_t n, uint32_t bs, size_t call_size)
{
    cf_error err;
    cf_encoder *e;
    cf_enc_params p = enc_params(bs);
    CF_ASSERT_OK(cf_enc_dict_ops.create(&e, &p, &err), &err);
    model m = {
        .bs = bs, .mode = 1, .dict = calloc(n + 1, sizeof(cf_slice *)), .dict_est = 12, .est = 12};
    column c = {.blocks = calloc(n + 1, sizeof(blk))};
    size_t i = 0, rows = 0;
    while (i < n) {
        size_t want = call_size ? call_size : 1 + cf_rng_below(r, 200);
        if (want > n - i)
            want = n - i;
        size_t took = cf_enc_dict_ops.add(e, v + i, want, false);
        size_t mtook = model_add(&m, v + i, want);
        assert_int_equal(took, mtook);
        assert_int_equal(cf_enc_dict_ops.count(e), m.cnt);
        i += took;
        rows += took;
        bool full = cf_enc_dict_ops.is_full(e);
        assert_int_equal(full, model_full(&m));
        if (!full && i < n)
            continue;
        size_t cnt = cf_enc_dict_ops.count(e);
        if (cnt == 0)
            continue;
        cf_slice out;
        CF_ASSERT_OK(cf_enc_dict_ops.finish(e, (uint32_t)(rows - cnt), &out, &err), &err);
        blk *b = &c.blocks[c.nblocks++];
        b->data = malloc(out.len);
        memcpy(b->data, out.data, out.len);
        b->len = out.len;
        b->first = rows - cnt;
        b->count = cnt;
        b->mode = (int)cf_load_le32(out.data);
        assert_int_equal(b->mode, m.mode);
        cf_enc_dict_ops.reset(e);
        model_reset(&m);
    }
    cf_slice d;
    CF_ASSERT_OK(cf_enc_dict_ops.finish_dict(e, &d, &err), &err);
    c.dict_block = malloc(d.len);
    memcpy(c.dict_block, d.data, d.len);
    c.dict_len = d.len;
    c.model_ndict = m.ndict;

    /* the dictionary holds the model's strings in first-appearance order */
    test_dict td;
    dict_open(&td, c.dict_block, c.dict_len);
    assert_int_equal(td.dict.count, m.ndict);
    for (size_t k = 0; k < m.ndict; k++)
        CF_ASSERT_BYTES(td.entries[k].data, td.entries[k].len, m.dict[k]->data, m.dict[k]->len);
    dict_close(&td);
    free(m.dict);
    cf_encoder_free(e);
    return c;
}

static void free_column(column *c)
{
    for (size_t k = 0; k < c->nblocks; k++)
        free(c->blocks[k].data);
    free(c->blocks);
    free(c->dict_block);
}

static void read_column(cf_rng *r, const column *c, const cf_slice *v, size_t n)
{
    cf_error err;
    test_dict td;
    dict_open(&td, c->dict_block, c->dict_len);
    cf_decoder *d = open_dec(&td.dict);
    cf_slice *got = calloc(n + 1, sizeof(cf_slice));
    size_t total = 0;
    int last_mode = 1;
    for (size_t k = 0; k < c->nblocks; k++) {
        const blk *b = &c->blocks[k];
        /* mode 1 blocks first, then mode 2 only */
        assert_true(b->mode >= last_mode);
        last_mode = b->mode;
        CF_ASSERT_OK(d->ops->load(d, b->data, b->len, &err), &err);
        assert_int_equal(d->count, b->count);
        assert_int_equal(d->first_ord, b->first);
        assert_int_equal(b->first, total);
        for (int rep = 0; rep < 3; rep++) {
            size_t at = rep == 0 ? 0 : cf_rng_below(r, b->count + 1), pos = at, g;
            CF_ASSERT_OK(d->ops->seek(d, at, &err), &err);
            assert_int_equal(d->pos, at);
            while (pos < b->count) {
                CF_ASSERT_OK(d->ops->next(d, got, 1 + cf_rng_below(r, 300), &g, &err), &err);
                assert_true(g > 0);
                for (size_t j = 0; j < g; j++)
                    CF_ASSERT_BYTES(got[j].data, got[j].len, v[b->first + pos + j].data,
                                    v[b->first + pos + j].len);
                pos += g;
                assert_int_equal(d->pos, pos);
            }
        }
        total += b->count;
    }
    assert_int_equal(total, n);
    free(got);
    cf_decoder_free(d);
    dict_close(&td);
}

/* ---- value generators -------------------------------------------------------------- */

typedef struct pool {
    uint8_t **owned;
    cf_slice *s;
    size_t n;
} pool;

/* n distinct-ish strings: empty, NUL bytes, shared prefixes, some long ones */
static pool make_pool(cf_rng *r, size_t n, size_t long_len)
{
    pool p = {calloc(n, sizeof(uint8_t *)), calloc(n, sizeof(cf_slice)), n};
    for (size_t i = 0; i < n; i++) {
        uint64_t kind = cf_rng_below(r, 100);
        size_t len = kind < 3   ? 0
                     : kind < 6 ? long_len + cf_rng_below(r, 50)
                                : 1 + cf_rng_below(r, 60);
        uint8_t *b = malloc(len + 1);
        for (size_t k = 0; k < len; k++)
            b[k] = (uint8_t)("\0prefix-\xfe"[cf_rng_below(r, 10)]);
        p.owned[i] = b;
        p.s[i] = (cf_slice){b, len};
    }
    return p;
}

static void free_pool(pool *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->owned[i]);
    free(p->owned);
    free(p->s);
}

/* n values drawn from the pool, skewed towards its start */
static cf_slice *draw(cf_rng *r, const pool *p, size_t n)
{
    cf_slice *v = calloc(n + 1, sizeof(cf_slice));
    for (size_t i = 0; i < n; i++) {
        size_t a = cf_rng_below(r, p->n), b = cf_rng_below(r, p->n);
        v[i] = p->s[a < b ? a : b];
    }
    return v;
}

static void test_dict__round_trip_random(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0xd1c7));
    const uint32_t sizes[] = {512, 1024, 2048, 4096, 262144};
    const size_t distinct[] = {1, 5, 40, 300, 2000};
    for (size_t si = 0; si < 5; si++)
        for (size_t di = 0; di < 5; di++) {
            pool p = make_pool(&r, distinct[di], sizes[si] + 7);
            size_t n = 1 + cf_rng_below(&r, 3000);
            cf_slice *v = draw(&r, &p, n);
            column c = write_column(&r, v, n, sizes[si], 0);
            read_column(&r, &c, v, n);
            free_column(&c);
            free(v);
            free_pool(&p);
        }
}

/* A small block size fills the dictionary: the sequence of (mode, count) per block
 * follows the model for several call sizes, and every block after the switch is plain. */
static void test_dict__mode2_fallback(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0xfa11));
    const size_t calls[] = {1, 7, 100, 5000, 0};
    for (size_t ci = 0; ci < 5; ci++) {
        pool p = make_pool(&r, 400, 20);
        size_t n = 5000;
        cf_slice *v = draw(&r, &p, n);
        column c = write_column(&r, v, n, 512, calls[ci]);
        bool saw1 = false, saw2 = false;
        for (size_t k = 0; k < c.nblocks; k++) {
            if (c.blocks[k].mode == 1) {
                assert_false(saw2);
                saw1 = true;
            } else {
                assert_int_equal(c.blocks[k].mode, 2);
                saw2 = true;
            }
        }
        assert_true(saw1 && saw2);
        read_column(&r, &c, v, n);
        free_column(&c);
        free(v);
        free_pool(&p);
    }
}

/* Exact fallback sequence for a hand-checked case: 40 distinct 20-byte strings,
 * block size 512. The dictionary estimate after k strings is 12 + 20k + one byte
 * per offset below 256 (13 of them), two above, + ceil(k/4) selector bytes:
 * 467 after 21, 489 after 22, 511 after 23 (still <= 512, so a 24th joins),
 * 533 after 24; the 25th string is refused and ends the block. */
static void test_dict__fallback_exact(void **state)
{
    (void)state;
    char buf[40][21];
    cf_slice v[40];
    for (int i = 0; i < 40; i++) {
        snprintf(buf[i], sizeof buf[i], "string-number-%06d", i);
        v[i] = (cf_slice){(const uint8_t *)buf[i], 20};
    }
    cf_rng r;
    cf_rng_init(&r, 1);
    column c = write_column(&r, v, 40, 512, 40);
    /* one call: 24 strings enter the dictionary and are coded, the 25th is refused
     * and ends the block; the rest go to one plain block (16 * 20 bytes fit in 512) */
    assert_int_equal(c.nblocks, 2);
    assert_int_equal(c.blocks[0].mode, 1);
    assert_int_equal(c.blocks[0].count, 24);
    assert_int_equal(c.blocks[1].mode, 2);
    assert_int_equal(c.blocks[1].count, 16);
    assert_int_equal(c.model_ndict, 24);
    read_column(&r, &c, v, 40);
    free_column(&c);
}

/* Codeword capacity: block_size / 4 codewords, checked after a new string joined the
 * dictionary, so that string is coded only in the next block. */
static void test_dict__codeword_capacity(void **state)
{
    (void)state;
    cf_error err;
    cf_encoder *e;
    cf_enc_params p = enc_params(512); /* 128 codewords */
    CF_ASSERT_OK(cf_enc_dict_ops.create(&e, &p, &err), &err);
    cf_slice v[200];
    for (int i = 0; i < 200; i++)
        v[i] = i < 128 ? S("same") : S("new");
    assert_int_equal(cf_enc_dict_ops.add(e, v, 200, false), 128);
    assert_true(cf_enc_dict_ops.is_full(e));
    cf_slice dblk;
    /* "new" is already in the dictionary although no codeword refers to it yet */
    cf_slice out;
    CF_ASSERT_OK(cf_enc_dict_ops.finish(e, 0, &out, &err), &err);
    cf_enc_dict_ops.reset(e);
    assert_int_equal(cf_enc_dict_ops.add(e, v + 128, 72, false), 72);
    CF_ASSERT_OK(cf_enc_dict_ops.finish_dict(e, &dblk, &err), &err);
    test_dict td;
    dict_open(&td, dblk.data, dblk.len);
    assert_int_equal(td.dict.count, 2);
    dict_close(&td);
    cf_encoder_free(e);
}

static void test_dict__force_takes_all(void **state)
{
    (void)state;
    cf_error err;
    cf_encoder *e;
    cf_enc_params p = enc_params(512);
    CF_ASSERT_OK(cf_enc_dict_ops.create(&e, &p, &err), &err);
    pool pl = make_pool(&(cf_rng){{1, 2, 3, 4}}, 300, 10);
    assert_int_equal(cf_enc_dict_ops.add(e, pl.s, 300, true), 300);
    assert_int_equal(cf_enc_dict_ops.count(e), 300);
    assert_true(cf_enc_dict_ops.is_full(e));
    assert_int_equal(cf_enc_dict_ops.add(e, pl.s, 10, false), 0);
    cf_slice out;
    CF_ASSERT_OK(cf_enc_dict_ops.finish(e, 0, &out, &err), &err);
    cf_slice dblk;
    CF_ASSERT_OK(cf_enc_dict_ops.finish_dict(e, &dblk, &err), &err);
    test_dict td;
    dict_open(&td, dblk.data, dblk.len);
    cf_decoder *d = open_dec(&td.dict);
    CF_ASSERT_OK(d->ops->load(d, out.data, out.len, &err), &err);
    cf_slice got[300];
    size_t g;
    CF_ASSERT_OK(d->ops->next(d, got, 300, &g, &err), &err);
    assert_int_equal(g, 300);
    for (int i = 0; i < 300; i++)
        CF_ASSERT_BYTES(got[i].data, got[i].len, pl.s[i].data, pl.s[i].len);
    cf_decoder_free(d);
    dict_close(&td);
    cf_encoder_free(e);
    free_pool(&pl);
}

/* ---- value seeks ------------------------------------------------------------------- */

static int cmp_slice(const cf_slice *x, const cf_slice *y)
{
    size_t m = x->len < y->len ? x->len : y->len;
    int c = m ? memcmp(x->data, y->data, m) : 0;
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

static int qcmp(const void *a, const void *b)
{
    return cmp_slice(a, b);
}

/* A sorted unique key column: the dictionary is sorted and codewords increase,
 * so §8.8.4's two binary searches find the first value >= key in each block; the
 * same holds in plain (mode 2) blocks. */
static void test_dict__seek_at_or_after(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0x5eed));
    cf_error err;
    pool p = make_pool(&r, 3000, 30);
    qsort(p.s, p.n, sizeof(cf_slice), qcmp);
    size_t n = 0;
    cf_slice *v = calloc(p.n, sizeof(cf_slice));
    for (size_t i = 0; i < p.n; i++)
        if (n == 0 || cmp_slice(&v[n - 1], &p.s[i]) != 0)
            v[n++] = p.s[i];
    column c = write_column(&r, v, n, 1024, 0);
    assert_true(c.nblocks > 2);
    assert_int_equal(c.blocks[c.nblocks - 1].mode, 2); /* both modes are exercised */
    test_dict td;
    dict_open(&td, c.dict_block, c.dict_len);
    cf_decoder *d = open_dec(&td.dict);
    pool keys = make_pool(&r, 300, 30);
    for (size_t k = 0; k < c.nblocks; k++) {
        const blk *b = &c.blocks[k];
        CF_ASSERT_OK(d->ops->load(d, b->data, b->len, &err), &err);
        const cf_slice *bv = v + b->first;
        for (size_t q = 0; q < keys.n + 2 * b->count; q++) {
            const cf_slice *key = q < keys.n              ? &keys.s[q]
                                  : q < keys.n + b->count ? &bv[q - keys.n]
                                                          : &v[cf_rng_below(&r, n)];
            size_t want = 0;
            while (want < b->count && cmp_slice(&bv[want], key) < 0)
                want++;
            bool hit = want < b->count && cmp_slice(&bv[want], key) == 0;
            if (!dec_expect_seek(d, key, want, b->count, hit))
                continue;
            cf_slice got;
            size_t g;
            CF_ASSERT_OK(d->ops->next(d, &got, 1, &g, &err), &err);
            assert_int_equal(g, 1);
            assert_int_equal(cmp_slice(&got, &bv[want]), 0);
        }
    }
    free_pool(&keys);
    cf_decoder_free(d);
    dict_close(&td);
    free_column(&c);
    free(v);
    free_pool(&p);
}

/* ---- corruption -------------------------------------------------------------------- */

static cf_status decode_all(const cf_dict *dict, const uint8_t *dblock, size_t len, cf_error *err)
{
    uint8_t *copy = cf_test_dup(dblock, len);
    cf_decoder *d = open_dec(dict);
    cf_status st = d->ops->load(d, copy, len, err);
    if (st == CF_OK) {
        st = dec_next_all(d, 9, err);
        cf_slice key = S("prefix");
        if (st == CF_OK)
            st = dec_seek_value(d, &key, err);
    }
    cf_decoder_free(d);
    free(copy);
    return st;
}

static void test_dict__corrupt(void **state)
{
    (void)state;
    cf_error err;
    uint8_t dblock[128];
    size_t len = cf_test_unhex("01 00 00 00"
                               "00 00 00 00 03 00 00 00 21 00 00 00 08 00 00 00 01 00 00 00"
                               "00 00 00 09 80 02 00 00 00 00 00 00 00",
                               dblock, sizeof dblock);
    cf_slice ents[2] = {S("b"), S("a")};
    cf_dict two = {ents, 2}, one = {ents, 1};
    CF_ASSERT_OK(decode_all(&two, dblock, len, &err), &err);
    /* codeword 1 with a one-entry dictionary */
    CF_ASSERT_STATUS(decode_all(&one, dblock, len, &err), CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "codeword 1"));
    /* unknown modes */
    dblock[0] = 0;
    CF_ASSERT_STATUS(decode_all(&two, dblock, len, &err), CF_ECORRUPT, &err);
    dblock[0] = 3;
    CF_ASSERT_STATUS(decode_all(&two, dblock, len, &err), CF_ECORRUPT, &err);
    dblock[0] = 1;
    dblock[3] = 1; /* 0x01000001 */
    CF_ASSERT_STATUS(decode_all(&two, dblock, len, &err), CF_ECORRUPT, &err);
    dblock[3] = 0;
    /* too short for the mode word */
    CF_ASSERT_STATUS(decode_all(&two, dblock, 3, &err), CF_ECORRUPT, &err);
    /* every truncation of the codeword block */
    for (size_t cut = 0; cut < len; cut++)
        CF_ASSERT_STATUS(decode_all(&two, dblock, cut, &err), CF_ECORRUPT, &err);
    /* a mode-2 block with a bad offset area */
    len = cf_test_unhex("02 00 00 00 00 00 00 00 03 00 00 00 11 00 00 00 61 62 78 79 7a"
                        "00 0c 0e 0e 00",
                        dblock, sizeof dblock);
    CF_ASSERT_OK(decode_all(&two, dblock, len, &err), &err);
    for (size_t cut = 4; cut < len; cut++)
        CF_ASSERT_STATUS(decode_all(&two, dblock, cut, &err), CF_ECORRUPT, &err);
    /* codeword block without a dictionary */
    len = cf_test_unhex("01 00 00 00 00 00 00 00 03 00 00 00 21 00 00 00 08 00 00 00 01 00 00 00"
                        "00 00 00 09 80 02 00 00 00 00 00 00 00",
                        dblock, sizeof dblock);
    CF_ASSERT_STATUS(decode_all(NULL, dblock, len, &err), CF_EINVAL, &err);
}

/* The fused check-and-lookup (both kernels): every row before the first bad
 * codeword is its entry, the bad one's index is returned, and no entry past
 * the dictionary is read (entries is a heap array of exactly count slices). */
static void test_dict__lookup(void **state)
{
    (void)state;
    enum { N = 41 };
    for (size_t count = 1; count <= 300; count += 37) {
        cf_slice *ents = malloc(count * sizeof *ents);
        assert_non_null(ents);
        for (size_t e = 0; e < count; e++)
            ents[e] = (cf_slice){(const uint8_t *)"abcdefgh" + e % 8, e % 9};
        uint32_t cw[N];
        for (size_t bad = 0; bad <= N; bad++) { /* bad == N: none */
            for (size_t i = 0; i < N; i++)
                cw[i] = (uint32_t)((i * 7919u + bad) % count);
            if (bad < N)
                cw[bad] = bad % 2 ? (uint32_t)count : UINT32_MAX;
            for (size_t n = 0; n <= N; n += 1 + n / 8) {
                cf_slice a[N], b[N];
                size_t want = bad < n ? bad : n;
                assert_int_equal(cf_dict_lookup(a, cw, n, ents, count), want);
                assert_int_equal(cf_dict_lookup_portable(b, cw, n, ents, count), want);
                for (size_t i = 0; i < want; i++) {
                    assert_ptr_equal(a[i].data, ents[cw[i]].data);
                    assert_int_equal(a[i].len, ents[cw[i]].len);
                    assert_ptr_equal(b[i].data, ents[cw[i]].data);
                    assert_int_equal(b[i].len, ents[cw[i]].len);
                }
            }
        }
        free(ents);
    }
    /* an empty dictionary rejects the first codeword */
    uint32_t zero[8] = {0};
    cf_slice out[8];
    assert_int_equal(cf_dict_lookup(out, zero, 8, NULL, 0), 0);
    assert_int_equal(cf_dict_lookup_portable(out, zero, 8, NULL, 0), 0);
}

/* Bit flips in real blocks of both modes: a clean status, never a crash. */
static void test_dict__mutations(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0xf1195));
    cf_error err;
    pool p = make_pool(&r, 200, 30);
    size_t n = 2000;
    cf_slice *v = draw(&r, &p, n);
    column c = write_column(&r, v, n, 1024, 0);
    test_dict td;
    dict_open(&td, c.dict_block, c.dict_len);
    for (size_t k = 0; k < c.nblocks; k++) {
        const blk *b = &c.blocks[k];
        uint8_t *m = malloc(b->len);
        for (int it = 0; it < 300; it++) {
            memcpy(m, b->data, b->len);
            m[cf_rng_below(&r, b->len)] ^= (uint8_t)(1u << cf_rng_below(&r, 8));
            cf_status st = decode_all(&td.dict, m, b->len, &err);
            assert_true(st == CF_OK || st == CF_ECORRUPT);
        }
        free(m);
    }
    dict_close(&td);
    free_column(&c);
    free(v);
    free_pool(&p);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dict__example),
        cmocka_unit_test(test_dict__saved_state),
        cmocka_unit_test(test_dict__empty),
        cmocka_unit_test(test_dict__round_trip_random),
        cmocka_unit_test(test_dict__mode2_fallback),
        cmocka_unit_test(test_dict__fallback_exact),
        cmocka_unit_test(test_dict__codeword_capacity),
        cmocka_unit_test(test_dict__force_takes_all),
        cmocka_unit_test(test_dict__seek_at_or_after),
        cmocka_unit_test(test_dict__corrupt),
        cmocka_unit_test(test_dict__lookup),
        cmocka_unit_test(test_dict__mutations),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* Decoded state kept with cached data blocks (cf_block_aux): PLAIN BINARY
 * offsets and DICT codewords (both modes), with and without NULLs. The state
 * of every cached block must equal a fresh decode of that very block (stale
 * or mis-attached state fails here), be charged to the cache, and seeks served
 * from it (ordinal and value, several iterators, a cache small enough to evict
 * while pinned) must return what a cacheless reader returns. Leaks and
 * use-after-eviction show under ASan. */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/cfile.h>

#include "cfile/internal.h"
#include "util/buf.h"
#include "util/endian.h"
#include "util/varint.h"

#include "support_mem.h"
#include "support_opts.h"

#define NROWS 20000u

typedef struct strfile {
    cf_encoding enc;
    bool nullable;
    char *store;    /* 16 bytes per row */
    cf_slice *vals; /* row i's value (len 0 data NULL for a NULL row) */
    bool *valid;
    uint8_t *bytes;
    size_t len;
} strfile;

/* Sorted, variable lengths (so blocks differ in count and string area);
 * PLAIN: unique; DICT: each value 50 times, so the first blocks use codewords
 * and, once the 1-KiB dictionary is full, the rest fall back to plain strings. */
static void make_file(strfile *f, cf_encoding enc, bool nullable, cf_compression comp)
{
    memset(f, 0, sizeof *f);
    f->enc = enc;
    f->nullable = nullable;
    f->store = calloc(NROWS, 16);
    f->vals = calloc(NROWS, sizeof *f->vals);
    f->valid = calloc(NROWS, sizeof *f->valid);
    assert_true(f->store && f->vals && f->valid);
    for (size_t i = 0; i < NROWS; i++) {
        size_t k = enc == CF_ENC_DICT ? i / 50 : i;
        char *s = f->store + i * 16;
        int n = snprintf(s, 16, "k%06zu", k * 2);
        size_t len = (size_t)n + (k * 7) % 6; /* then 0..5 'x' */
        memset(s + n, 'x', len - (size_t)n);
        f->valid[i] = !nullable || i % 5 != 3;
        f->vals[i] = f->valid[i] ? (cf_slice){(const uint8_t *)s, len} : (cf_slice){NULL, 0};
    }
    cf_writer_options o = col_options((col_opts){.type = CF_TYPE_STRING,
                                                 .enc = enc,
                                                 .comp = comp,
                                                 .nullable = nullable,
                                                 .validx = true,
                                                 .block_size = 1024});
    cf_error e = {0};
    cf_io *io;
    cf_writer *w;
    CF_ASSERT_OK(mem_writer_create(&w, &io, &o, &e), &e);
    uint8_t *nn = calloc(1, NROWS / 8 + 1);
    for (size_t i = 0; i < NROWS; i++)
        if (f->valid[i])
            nn[i / 8] |= (uint8_t)(1u << (i % 8));
    CF_ASSERT_OK(cf_writer_append(w, f->vals, nullable ? nn : NULL, NROWS, &e), &e);
    CF_ASSERT_OK(cf_writer_finish(w, &e), &e);
    cf_writer_free(w);
    free(nn);
    cf_slice c = cf_io_mem_contents(io);
    f->bytes = malloc(c.len);
    memcpy(f->bytes, c.data, c.len);
    f->len = c.len;
    cf_io_free(io);
}

static void free_file(strfile *f)
{
    free(f->store);
    free(f->vals);
    free(f->valid);
    free(f->bytes);
}

static cf_reader *open_reader(const strfile *f, cf_cache *c, cf_io **io)
{
    cf_error e = {0};
    CF_ASSERT_OK(cf_io_open_mem(io, f->bytes, f->len, &e), &e);
    cf_reader_options ro;
    cf_reader_options_init(&ro);
    ro.cache = c;
    cf_reader *r;
    CF_ASSERT_OK(cf_reader_open(&r, *io, &ro, &e), &e);
    return r;
}

/* Read up to 8 rows at the iterator, starting at ordinal `ord`, and compare. */
static void check_rows(cf_iter *it, const strfile *f, uint64_t ord)
{
    cf_error e = {0};
    assert_int_equal(cf_iter_current_ordinal(it), ord);
    cf_batch b;
    CF_ASSERT_OK(cf_iter_next_batch(it, 8, &b, &e), &e);
    assert_true(b.count > 0);
    assert_int_equal(b.first_ord, ord);
    const cf_slice *v = b.values;
    for (size_t i = 0; i < b.count; i++) {
        size_t row = ord + i;
        bool present = b.nonnull == NULL || (b.nonnull[i / 8] >> (i % 8) & 1);
        assert_int_equal(present, f->valid[row]);
        if (present)
            CF_ASSERT_BYTES(v[i].data, v[i].len, f->vals[row].data, f->vals[row].len);
    }
}

/* Random ordinal seeks and value seeks (present and absent keys), alternating
 * between two iterators over the same reader. */
static void seek_and_check(cf_reader *r, const strfile *f, uint64_t seed)
{
    cf_error e = {0};
    cf_iter *its[2];
    CF_ASSERT_OK(cf_iter_create(&its[0], r, &e), &e);
    CF_ASSERT_OK(cf_iter_create(&its[1], r, &e), &e);
    cf_rng rng;
    cf_rng_init(&rng, seed);
    for (int i = 0; i < 600; i++) {
        cf_iter *it = its[i & 1];
        uint64_t ord = cf_rng_below(&rng, NROWS);
        if (i % 3 != 2) {
            CF_ASSERT_OK(cf_iter_seek_to_ordinal(it, ord, &e), &e);
            check_rows(it, f, ord);
            continue;
        }
        /* The first present row at or after ord; its value, or one just below
         * it (a trailing "\x01" appended to its predecessor is absent). */
        while (ord < NROWS && !f->valid[ord])
            ord++;
        if (ord == NROWS)
            continue;
        uint64_t first = ord;
        while (first > 0 &&
               (!f->valid[first - 1] ||
                (f->vals[first - 1].len == f->vals[ord].len &&
                 memcmp(f->vals[first - 1].data, f->vals[ord].data, f->vals[ord].len) == 0)))
            first--;
        while (!f->valid[first])
            first++;
        uint8_t key[24];
        cf_slice k = f->vals[first];
        bool want_exact = cf_rng_below(&rng, 2) == 0 || first == 0;
        if (!want_exact) {
            uint64_t p = first - 1;
            while (p > 0 && !f->valid[p])
                p--;
            if (!f->valid[p]) {
                want_exact = true;
            } else {
                memcpy(key, f->vals[p].data, f->vals[p].len);
                key[f->vals[p].len] = 1;
                k = (cf_slice){key, f->vals[p].len + 1};
            }
        }
        bool exact = !want_exact;
        CF_ASSERT_OK(cf_iter_seek_at_or_after(it, &k, &exact, &e), &e);
        assert_int_equal(exact, want_exact);
        check_rows(it, f, first);
    }
    cf_iter_free(its[0]);
    cf_iter_free(its[1]);
}

static cf_status read_index(void *ctx, cf_block_ptr ptr, cf_buf *scratch, cf_slice *out,
                            cf_error *err)
{
    return cf_reader_read_block(ctx, ptr, scratch, out, "index block", err);
}

static const cf_encoding ENCS[] = {CF_ENC_PLAIN, CF_ENC_DICT};

/* Every cached data block carries state equal to what a fresh decoder saves
 * for that block, and the cache's byte count includes it: for blocks whose
 * bytes are cached (LZ4) and for blocks the memory io serves in place (the
 * cache holds only a mark). */
static void test_cache_state__matches_fresh_decode(void **state)
{
    (void)state;
    for (size_t k = 0; k < 8; k++) {
        strfile f;
        bool lz4 = k & 2;
        make_file(&f, ENCS[k / 4], k & 1, lz4 ? CF_COMP_LZ4 : CF_COMP_NONE);
        cf_cache *c;
        cf_error e = {0};
        CF_ASSERT_OK(cf_cache_create(&c, 8u << 20, &e), &e);
        cf_io *io;
        cf_reader *r = open_reader(&f, c, &io);
        seek_and_check(r, &f, cf_test_seed(77) + k);
        /* Load every block once (a full scan). */
        cf_iter *it;
        CF_ASSERT_OK(cf_iter_create(&it, r, &e), &e);
        CF_ASSERT_OK(cf_iter_seek_to_first(it, &e), &e);
        cf_batch b;
        do
            CF_ASSERT_OK(cf_iter_next_batch(it, 1000, &b, &e), &e);
        while (b.count > 0);
        cf_iter_free(it);

        cf_decoder *d;
        CF_ASSERT_OK(r->dec_ops->create(&d, &r->dec_params, &e), &e);
        cf_btree_iter *bt;
        const cf_file_info *fi = cf_reader_info(r);
        CF_ASSERT_OK(cf_btree_iter_create(&bt,
                                          (cf_block_ptr){fi->posidx_root_off, fi->posidx_root_size},
                                          read_index, (void *)r, &e),
                     &e);
        CF_ASSERT_OK(cf_btree_iter_seek_to_first(bt, &e), &e);
        size_t blocks = 0, views = 0, modes[3] = {0, 0, 0};
        uint64_t charged = 0;
        cf_buf scratch;
        cf_buf_init(&scratch);
        for (;;) {
            cf_block_ptr p = cf_btree_iter_ptr(bt);
            cf_slice bytes, cb;
            bool view;
            cf_cache_entry *ce = cf_cache_lookup(c, r->cache_file_id, p.off, p.size, &cb, &view);
            assert_non_null(ce);
            views += view;
            CF_ASSERT_OK(cf_reader_read_block(r, p, &scratch, &bytes, "data block", &e), &e);
            const cf_block_aux *a = cf_cache_entry_aux(ce);
            assert_non_null(a);
            assert_non_null(a->dec);
            assert_true((a->ns != NULL) == f.nullable);
            const uint8_t *q = bytes.data, *end = bytes.data + bytes.len;
            if (f.nullable) { /* skip the row count and the bitmap section */
                uint32_t rows, bl;
                q = cf_varint32_decode(q, end, &rows);
                q = cf_varint32_decode(q, end, &bl);
                q += bl;
            }
            CF_ASSERT_OK(d->ops->load(d, q, (size_t)(end - q), &e), &e);
            size_t n = d->ops->saved_len(d);
            uint8_t *fresh = malloc(n);
            d->ops->save(d, fresh);
            CF_ASSERT_BYTES(a->dec, a->dec_len, fresh, n);
            free(fresh);
            if (f.enc == CF_ENC_DICT)
                modes[cf_load_le32(q) % 3]++;
            charged += cb.len + a->dec_len;
            cf_cache_release(c, ce);
            blocks++;
            if (!cf_btree_iter_has_next(bt))
                break;
            CF_ASSERT_OK(cf_btree_iter_next(bt, &e), &e);
        }
        assert_true(blocks > 20);
        /* LZ4 blocks are cached as bytes; the others only as marks. */
        assert_true(lz4 ? views < blocks : views == blocks);
        if (f.enc == CF_ENC_DICT) /* both DICT modes are covered */
            assert_true(modes[1] > 2 && modes[2] > 2);
        cf_cache_stats st;
        cf_cache_get_stats(c, &st);
        assert_int_equal(st.entries, blocks);
        assert_true(st.bytes >= charged);
        cf_buf_dispose(&scratch);
        cf_btree_iter_free(bt);
        cf_decoder_free(d);
        cf_reader_free(r);
        cf_io_free(io);
        cf_cache_free(c);
        free_file(&f);
    }
}

/* Seeks through a cache that holds only a few blocks (entries with state are
 * evicted while pinned, re-read and re-decoded), and through two readers of
 * different files sharing one cache, equal a cacheless reader's. */
static void test_cache_state__seeks_under_eviction(void **state)
{
    (void)state;
    for (size_t k = 0; k < 4; k++) {
        strfile f, g;
        make_file(&f, ENCS[k / 2], k & 1, CF_COMP_LZ4);
        make_file(&g, ENCS[k / 2], !(k & 1), CF_COMP_NONE);
        cf_io *io0, *io1, *io2;
        cf_reader *r0 = open_reader(&f, NULL, &io0);
        seek_and_check(r0, &f, cf_test_seed(5) + k);
        cf_cache *c;
        cf_error e = {0};
        CF_ASSERT_OK(cf_cache_create(&c, 12000, &e), &e);
        cf_reader *r1 = open_reader(&f, c, &io1);
        cf_reader *r2 = open_reader(&g, c, &io2);
        for (int pass = 0; pass < 2; pass++) {
            seek_and_check(r1, &f, cf_test_seed(5) + k);
            seek_and_check(r2, &g, cf_test_seed(6) + k);
        }
        cf_cache_stats st;
        cf_cache_get_stats(c, &st);
        assert_true(st.hits > 0);
        assert_true(st.evictions > 0);
        assert_true(st.bytes <= st.capacity);
        cf_reader_free(r0);
        cf_reader_free(r1);
        cf_reader_free(r2);
        cf_io_free(io0);
        cf_io_free(io1);
        cf_io_free(io2);
        cf_cache_free(c);
        free_file(&f);
        free_file(&g);
    }
}

/* A PREFIX block keeps a restart fence (a value-seek index) only when its
 * values are in order. Where there is none, the cache entry must still
 * remember that there is none: without that, every later load of the cached
 * block asked the decoder again, which reads all the block's restarts each
 * time (ordinal seeks into unsorted PREFIX columns slowed by a third). */
static void test_cache_state__prefix_without_fence_is_remembered(void **state)
{
    (void)state;
    for (int sorted = 0; sorted < 2; sorted++) {
        enum { ROWS = 6000 };
        static char store[ROWS][16];
        static cf_slice vals[ROWS];
        for (size_t i = 0; i < ROWS; i++) {
            /* sorted: k000000, k000001, ...; otherwise descending */
            size_t k = sorted ? i : ROWS - 1 - i;
            int n = snprintf(store[i], sizeof store[i], "k%06zu", k);
            vals[i] = (cf_slice){(const uint8_t *)store[i], (size_t)n};
        }
        cf_error e = {0};
        cf_io *io;
        CF_ASSERT_OK(cf_io_create_mem(&io, &e), &e);
        cf_writer_options o;
        cf_writer_options_init(&o, CF_TYPE_STRING);
        o.encoding = CF_ENC_PREFIX;
        o.block_size = 2048; /* ~400 values (~5 bytes each), ~25 restarts a block */
        cf_writer *w;
        CF_ASSERT_OK(cf_writer_create(&w, io, &o, &e), &e);
        CF_ASSERT_OK(cf_writer_append(w, vals, NULL, ROWS, &e), &e);
        CF_ASSERT_OK(cf_writer_finish(w, &e), &e);
        cf_writer_free(w);
        cf_slice bytes = cf_io_mem_contents(io);
        cf_cache *c;
        CF_ASSERT_OK(cf_cache_create(&c, 8u << 20, &e), &e);
        cf_io *rio;
        CF_ASSERT_OK(cf_io_open_mem(&rio, bytes.data, bytes.len, &e), &e);
        cf_reader_options ro;
        cf_reader_options_init(&ro);
        ro.cache = c;
        cf_reader *r;
        CF_ASSERT_OK(cf_reader_open(&r, rio, &ro, &e), &e);
        /* Each block loaded twice by ordinal seeks, answers checked. */
        cf_iter *it;
        CF_ASSERT_OK(cf_iter_create(&it, r, &e), &e);
        for (int pass = 0; pass < 2; pass++)
            for (size_t ord = 7; ord < ROWS; ord += 97) {
                CF_ASSERT_OK(cf_iter_seek_to_ordinal(it, ord, &e), &e);
                cf_slice v;
                size_t got;
                CF_ASSERT_OK(cf_iter_copy_batch(it, &v, NULL, 1, &got, &e), &e);
                assert_int_equal(got, 1);
                CF_ASSERT_BYTES(v.data, v.len, vals[ord].data, vals[ord].len);
            }
        cf_iter_free(it);
        /* Every cached block has an aux: the fence where the values are
         * sorted, an empty one (no fence) where they are not. */
        const cf_file_info *fi = cf_reader_info(r);
        cf_btree_iter *bt;
        CF_ASSERT_OK(cf_btree_iter_create(&bt,
                                          (cf_block_ptr){fi->posidx_root_off, fi->posidx_root_size},
                                          read_index, (void *)r, &e),
                     &e);
        CF_ASSERT_OK(cf_btree_iter_seek_to_first(bt, &e), &e);
        size_t blocks = 0;
        for (;;) {
            cf_block_ptr p = cf_btree_iter_ptr(bt);
            cf_slice cb;
            bool view;
            cf_cache_entry *ce = cf_cache_lookup(c, r->cache_file_id, p.off, p.size, &cb, &view);
            assert_non_null(ce);
            const cf_block_aux *a = cf_cache_entry_aux(ce);
            assert_non_null(a);
            assert_null(a->ns);
            assert_true((a->dec != NULL) == (sorted == 1));
            cf_cache_release(c, ce);
            blocks++;
            if (!cf_btree_iter_has_next(bt))
                break;
            CF_ASSERT_OK(cf_btree_iter_next(bt, &e), &e);
        }
        assert_true(blocks >= 8);
        cf_btree_iter_free(bt);
        cf_reader_free(r);
        cf_io_free(rio);
        cf_cache_free(c);
        cf_io_free(io);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cache_state__matches_fresh_decode),
        cmocka_unit_test(test_cache_state__seeks_under_eviction),
        cmocka_unit_test(test_cache_state__prefix_without_fence_is_remembered),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

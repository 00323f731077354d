/* The iterator's fast paths must agree with plain decoding: PLAIN batches
 * served straight from the block (copy_batch), nullable blocks' decoded
 * bitmaps kept with cached blocks (and shared by iterators), the RLE run index,
 * PREFIX's lazily checked restarts and its stream, and copy_batch decoding
 * straight into the caller's buffer. Every file is read with and without a
 * block cache, by random ordinal and value seeks mixed with batches, and
 * compared with the values that were written. */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cfile/cfile.h>

#include "encoding/encoding.h"
#include "util/bitmap.h"

#include "support_opts.h"

#define NROWS 20000u

typedef struct col {
    cf_type type;
    cf_encoding enc;
    bool nullable;
    int64_t *v;    /* int columns: the values (0 where NULL) */
    char (*s)[24]; /* string columns */
    cf_slice *sl;
    uint8_t *nn; /* non-null bitmap */
    uint8_t *file;
    size_t len;
} col;

static bool present(const col *c, uint64_t i)
{
    return !c->nullable || cf_bitmap_get(c->nn, i);
}

/* Sorted values with repeats (runs for RLE), 20% NULL when nullable except
 * rows [3000, 9000), all NULL, and [11000, 17000), none NULL (each spans
 * whole blocks), in 16 KiB blocks: about ten per file, each with a few
 * 512-row rank stretches. */
static void make_col(col *c, cf_type t, cf_encoding enc, bool nullable, cf_rng *rng)
{
    memset(c, 0, sizeof *c);
    c->type = t;
    c->enc = enc;
    c->nullable = nullable;
    c->nn = calloc(cf_bitmap_bytes(NROWS) + 1, 1);
    bool str = t == CF_TYPE_STRING;
    if (str) {
        c->s = calloc(NROWS, sizeof *c->s);
        c->sl = calloc(NROWS, sizeof *c->sl);
    } else {
        c->v = calloc(NROWS, sizeof *c->v);
    }
    int64_t x = -5000;
    for (uint64_t i = 0; i < NROWS; i++) {
        if (cf_rng_next(rng) % 4 == 0)
            x += 1 + (int64_t)(cf_rng_next(rng) % 7);
        bool p = !nullable || cf_rng_next(rng) % 5 != 0;
        if (nullable && i >= 3000 && i < 9000)
            p = false;
        if (i >= 11000 && i < 17000)
            p = true;
        cf_bitmap_put(c->nn, i, p);
        if (str) {
            snprintf(c->s[i], sizeof c->s[i], "k%09lld", (long long)(x + 100000));
            c->sl[i] = p ? (cf_slice){(const uint8_t *)c->s[i], strlen(c->s[i])} : (cf_slice){0};
        } else {
            c->v[i] = p ? x : 0;
        }
    }
    cf_error e = {0};
    cf_io *io;
    CF_ASSERT_OK(cf_io_create_mem(&io, &e), &e);
    cf_writer_options o = col_options((col_opts){
        .type = t, .enc = enc, .nullable = nullable, .validx = !nullable, .block_size = 16384});
    o.restart_interval = 4;
    cf_writer *w;
    CF_ASSERT_OK(cf_writer_create(&w, io, &o, &e), &e);
    int32_t v32[250];
    for (size_t i = 0; i < NROWS; i += 250) {
        const void *vals = str ? (const void *)(c->sl + i) : (const void *)(c->v + i);
        if (t == CF_TYPE_INT32) {
            for (size_t j = 0; j < 250; j++)
                v32[j] = (int32_t)c->v[i + j];
            vals = v32;
        }
        uint8_t nn[32];
        memset(nn, 0, sizeof nn);
        cf_bitmap_copy(nn, 0, c->nn, i, 250);
        CF_ASSERT_OK(cf_writer_append(w, vals, nullable ? nn : NULL, 250, &e), &e);
    }
    CF_ASSERT_OK(cf_writer_finish(w, &e), &e);
    cf_writer_free(w);
    cf_slice s = cf_io_mem_contents(io);
    c->file = malloc(s.len);
    memcpy(c->file, s.data, s.len);
    c->len = s.len;
    cf_io_free(io);
}

static void free_col(col *c)
{
    free(c->v);
    free(c->s);
    free(c->sl);
    free(c->nn);
    free(c->file);
}

/* Check the batch at the iterator against rows [ord, ord + n). */
static void check_batch(const col *c, const cf_batch *b, uint64_t ord)
{
    assert_int_equal(b->first_ord, ord);
    for (size_t i = 0; i < b->count; i++) {
        uint64_t r = ord + i;
        bool p = b->nonnull == NULL || cf_bitmap_get(b->nonnull, i);
        assert_int_equal(p, present(c, r));
        if (!p)
            continue;
        if (c->type == CF_TYPE_STRING) {
            const cf_slice *s = (const cf_slice *)b->values + i;
            CF_ASSERT_BYTES(s->data, s->len, c->sl[r].data, c->sl[r].len);
        } else if (c->type == CF_TYPE_INT32) {
            assert_int_equal(((const int32_t *)b->values)[i], c->v[r]);
        } else {
            assert_int_equal(((const int64_t *)b->values)[i], c->v[r]);
        }
    }
}

/* Random ordinal seeks, each followed by a batch (next_batch or copy_batch),
 * sometimes a second batch; then random value seeks. */
static void seek_around(const col *c, cf_reader *r, cf_rng *rng)
{
    cf_error e = {0};
    cf_iter *it;
    CF_ASSERT_OK(cf_iter_create(&it, r, &e), &e);
    uint8_t nn[64];
    for (int k = 0; k < 400; k++) {
        uint64_t ord = cf_rng_next(rng) % NROWS;
        CF_ASSERT_OK(cf_iter_seek_to_ordinal(it, ord, &e), &e);
        assert_int_equal(cf_iter_current_ordinal(it), ord);
        size_t want = 1 + cf_rng_next(rng) % 300;
        /* exactly `want` values: an overrun shows under ASan */
        void *buf = malloc(want * cf_type_size(c->type));
        for (int rep = 0; rep < 2; rep++) {
            uint64_t at = cf_iter_current_ordinal(it);
            if (cf_rng_next(rng) % 2) {
                size_t got;
                CF_ASSERT_OK(cf_iter_copy_batch(it, buf, nn, want, &got, &e), &e);
                cf_batch b = {got, at, buf, c->nullable ? nn : NULL, NULL, 0, NULL};
                check_batch(c, &b, at);
            } else {
                cf_batch b;
                CF_ASSERT_OK(cf_iter_next_batch(it, want, &b, &e), &e);
                check_batch(c, &b, at);
            }
        }
        free(buf);
    }
    if (!c->nullable) {
        for (int k = 0; k < 200; k++) {
            uint64_t ord = cf_rng_next(rng) % NROWS;
            bool ex;
            cf_status st;
            if (c->type == CF_TYPE_STRING)
                st = cf_iter_seek_at_or_after(it, &c->sl[ord], &ex, &e);
            else
                st = cf_iter_seek_at_or_after(it, &c->v[ord], &ex, &e);
            CF_ASSERT_OK(st, &e);
            assert_true(ex);
            uint64_t at = cf_iter_current_ordinal(it);
            /* The first row holding that value. */
            assert_true(at <= ord);
            if (c->type == CF_TYPE_STRING) {
                assert_int_equal(strcmp(c->s[at], c->s[ord]), 0);
                assert_true(at == 0 || strcmp(c->s[at - 1], c->s[ord]) < 0);
            } else {
                assert_int_equal(c->v[at], c->v[ord]);
                assert_true(at == 0 || c->v[at - 1] < c->v[ord]);
            }
        }
    }
    cf_iter_free(it);
}

/* A full scan in copy batches of `cap` rows into one reused buffer of
 * exactly that size. Binary slices live only until the next call, so each
 * batch is checked before the next one. */
static void scan_all(const col *c, cf_reader *r, size_t cap)
{
    cf_error e = {0};
    cf_iter *it;
    CF_ASSERT_OK(cf_iter_create(&it, r, &e), &e);
    void *buf = malloc(cap * cf_type_size(c->type));
    uint8_t *nn = malloc(cf_bitmap_bytes(cap));
    uint64_t at = 0;
    for (;;) {
        size_t got;
        CF_ASSERT_OK(cf_iter_copy_batch(it, buf, nn, cap, &got, &e), &e);
        if (got == 0)
            break;
        assert_true(got <= cap);
        cf_batch b = {got, at, buf, c->nullable ? nn : NULL, NULL, 0, NULL};
        check_batch(c, &b, at);
        at += got;
    }
    assert_int_equal(at, NROWS);
    free(nn);
    free(buf);
    cf_iter_free(it);
}

/* Open c's file: from memory (blocks served in place, so a cache holds only
 * "verified" marks) or through pread from a temporary file (blocks copied, so
 * a cache holds their bytes and the decoded state kept with them). */
typedef struct opened {
    cf_reader *r;
    cf_io *io;
    char path[64];
} opened;

static void open_col(const col *c, bool from_file, cf_cache *cache, opened *o)
{
    cf_error e = {0};
    cf_reader_options ro;
    cf_reader_options_init(&ro);
    ro.cache = cache;
    o->io = NULL;
    o->path[0] = 0;
    if (from_file) {
        snprintf(o->path, sizeof o->path, "/tmp/cf_seek_paths_XXXXXX");
        int fd = mkstemp(o->path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, c->file, c->len), (ssize_t)c->len);
        close(fd);
        CF_ASSERT_OK(cf_reader_open_file(&o->r, o->path, false, &ro, &e), &e);
    } else {
        CF_ASSERT_OK(cf_io_open_mem(&o->io, c->file, c->len, &e), &e);
        CF_ASSERT_OK(cf_reader_open(&o->r, o->io, &ro, &e), &e);
    }
}

static void close_col(opened *o)
{
    cf_reader_free(o->r);
    cf_io_free(o->io);
    if (o->path[0])
        unlink(o->path);
}

static void run_col(cf_type t, cf_encoding enc, bool nullable, uint64_t seed)
{
    cf_rng rng;
    cf_rng_init(&rng, seed);
    col c;
    make_col(&c, t, enc, nullable, &rng);
    for (int mode = 0; mode < 4; mode++) {
        cf_error e = {0};
        cf_cache *cache = NULL;
        if (mode & 1)
            CF_ASSERT_OK(cf_cache_create(&cache, 64u << 20, &e), &e);
        opened o;
        open_col(&c, (mode & 2) != 0, cache, &o);
        /* Twice: the second pass finds decoded state kept with cached blocks. */
        for (int pass = 0; pass < 2; pass++) {
            /* 1024 rows as the bench reads; 7 and 1000 cross block ends mid-batch */
            scan_all(&c, o.r, pass == 0 ? 1024 : mode & 1 ? 7 : 1000);
            seek_around(&c, o.r, &rng);
        }
        close_col(&o);
        cf_cache_free(cache);
    }
    free_col(&c);
}

static void test_seek_paths__plain_int64(void **state)
{
    run_col(CF_TYPE_INT64, CF_ENC_PLAIN, false, cf_test_seed(101));
}

static void test_seek_paths__rle_int64(void **state)
{
    run_col(CF_TYPE_INT64, CF_ENC_RLE, false, cf_test_seed(102));
}

static void test_seek_paths__bitshuffle_int64(void **state)
{
    run_col(CF_TYPE_INT64, CF_ENC_BIT_SHUFFLE, false, cf_test_seed(103));
}

static void test_seek_paths__prefix_strings(void **state)
{
    run_col(CF_TYPE_STRING, CF_ENC_PREFIX, false, cf_test_seed(104));
}

/* Strings in the other encodings: copy_batch decodes into the caller's array. */
static void test_seek_paths__dict_and_plain_strings(void **state)
{
    run_col(CF_TYPE_STRING, CF_ENC_DICT, false, cf_test_seed(110));
    run_col(CF_TYPE_STRING, CF_ENC_PLAIN, false, cf_test_seed(111));
}

static void test_seek_paths__nullable(void **state)
{
    cf_encoding encs[] = {CF_ENC_PLAIN, CF_ENC_RLE, CF_ENC_BIT_SHUFFLE};
    for (size_t k = 0; k < 3; k++)
        run_col(CF_TYPE_INT64, encs[k], true, cf_test_seed(105 + k));
    run_col(CF_TYPE_STRING, CF_ENC_PREFIX, true, cf_test_seed(108));
}

/* 4-byte values take the vector expansion (eight rows per step where the CPU
 * has AVX2); DICT strings the 16-byte one. */
static void test_seek_paths__nullable_int32_and_dict(void **state)
{
    cf_encoding encs[] = {CF_ENC_PLAIN, CF_ENC_RLE, CF_ENC_BIT_SHUFFLE};
    for (size_t k = 0; k < 3; k++)
        run_col(CF_TYPE_INT32, encs[k], true, cf_test_seed(120 + k));
    run_col(CF_TYPE_STRING, CF_ENC_DICT, true, cf_test_seed(123));
}

/* Every fixed-width type in each encoding it allows, read back by copy_batch
 * in random batch sizes into exact-size heap buffers (the decoders now write
 * straight into the caller's buffer: an overrun shows under ASan), across the
 * ends of small blocks, after a random ordinal seek. */
static void test_seek_paths__copy_batch_fixed_widths(void **state)
{
    (void)state;
    const cf_type types[] = {CF_TYPE_BOOL,  CF_TYPE_INT8,  CF_TYPE_UINT16, CF_TYPE_INT32,
                             CF_TYPE_INT64, CF_TYPE_FLOAT, CF_TYPE_DOUBLE, CF_TYPE_INT128};
    const cf_encoding encs[] = {CF_ENC_PLAIN, CF_ENC_BIT_SHUFFLE, CF_ENC_RLE};
    enum { N = 5000 };
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(112));
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        cf_type t = types[ti];
        size_t es = cf_type_size(t);
        uint8_t *vals = malloc(N * es);
        for (size_t i = 0; i < N; i++) {
            /* runs of equal values (for RLE), small magnitudes (exact floats) */
            uint64_t x = i % 7 == 0 ? cf_rng_next(&rng) % 100 : 0;
            if (i % 7 != 0)
                memcpy(&x, vals + (i - 1) * es, es < 8 ? es : 8);
            uint8_t v[16] = {0};
            if (t == CF_TYPE_BOOL) {
                v[0] = (uint8_t)(x & 1);
            } else if (t == CF_TYPE_FLOAT) {
                float fl = (float)(x % 1000);
                memcpy(v, &fl, 4);
            } else if (t == CF_TYPE_DOUBLE) {
                double db = (double)(x % 1000);
                memcpy(v, &db, 8);
            } else {
                memcpy(v, &x, es < 8 ? es : 8);
            }
            if (i % 7 != 0)
                memcpy(v, vals + (i - 1) * es, es); /* repeat the previous value */
            memcpy(vals + i * es, v, es);
        }
        for (size_t ei = 0; ei < 3; ei++) {
            if (cf_encoding_resolve(t, encs[ei]) != encs[ei])
                continue; /* Kudu does not allow this pair */
            cf_error e = {0};
            cf_io *io;
            CF_ASSERT_OK(cf_io_create_mem(&io, &e), &e);
            cf_writer_options o =
                col_options((col_opts){.type = t, .enc = encs[ei], .block_size = 1024});
            cf_writer *w;
            CF_ASSERT_OK(cf_writer_create(&w, io, &o, &e), &e);
            CF_ASSERT_OK(cf_writer_append(w, vals, NULL, N, &e), &e);
            CF_ASSERT_OK(cf_writer_finish(w, &e), &e);
            cf_writer_free(w);
            cf_slice file = cf_io_mem_contents(io);
            cf_io *rio;
            cf_reader *r;
            CF_ASSERT_OK(cf_io_open_mem(&rio, file.data, file.len, &e), &e);
            CF_ASSERT_OK(cf_reader_open(&r, rio, NULL, &e), &e);
            cf_iter *it;
            CF_ASSERT_OK(cf_iter_create(&it, r, &e), &e);
            uint64_t at = cf_rng_next(&rng) % 100;
            if (at > 0)
                CF_ASSERT_OK(cf_iter_seek_to_ordinal(it, at, &e), &e);
            while (at < N) {
                size_t cap = 1 + cf_rng_next(&rng) % 1500, got;
                uint8_t *buf = malloc(cap * es);
                uint8_t nn[200];
                CF_ASSERT_OK(cf_iter_copy_batch(it, buf, nn, cap, &got, &e), &e);
                assert_true(got > 0 && got <= cap);
                CF_ASSERT_BYTES(buf, got * es, vals + at * es, got * es);
                for (size_t i = 0; i < got; i++)
                    assert_true(cf_bitmap_get(nn, i));
                free(buf);
                at += got;
            }
            size_t got = 1;
            uint8_t one[16];
            CF_ASSERT_OK(cf_iter_copy_batch(it, one, NULL, 1, &got, &e), &e);
            assert_int_equal(got, 0);
            cf_iter_free(it);
            cf_reader_free(r);
            cf_io_free(rio);
            cf_io_free(io);
        }
        free(vals);
    }
}

/* Two iterators over one cached nullable file: the second one reuses the
 * bitmaps the first decoded, and the cache still honours its byte bound. */
static void test_seek_paths__shared_null_state(void **state)
{
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(109));
    col c;
    make_col(&c, CF_TYPE_INT64, CF_ENC_PLAIN, true, &rng);
    cf_error e = {0};
    /* A small cache: blocks and their bitmaps are evicted while in use. */
    size_t caps[] = {64u << 20, 64u << 10};
    for (size_t k = 0; k < 2; k++) {
        cf_cache *cache;
        CF_ASSERT_OK(cf_cache_create(&cache, caps[k], &e), &e);
        opened o;
        open_col(&c, true, cache, &o);
        cf_reader *r = o.r;
        seek_around(&c, r, &rng);
        seek_around(&c, r, &rng);
        scan_all(&c, r, 1000);
        cf_cache_stats st;
        cf_cache_get_stats(cache, &st);
        assert_true(st.bytes <= st.capacity);
        assert_true(st.hits > 0);
        close_col(&o);
        cf_cache_free(cache);
    }
    free_col(&c);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seek_paths__plain_int64),
        cmocka_unit_test(test_seek_paths__rle_int64),
        cmocka_unit_test(test_seek_paths__bitshuffle_int64),
        cmocka_unit_test(test_seek_paths__prefix_strings),
        cmocka_unit_test(test_seek_paths__dict_and_plain_strings),
        cmocka_unit_test(test_seek_paths__copy_batch_fixed_widths),
        cmocka_unit_test(test_seek_paths__nullable),
        cmocka_unit_test(test_seek_paths__nullable_int32_and_dict),
        cmocka_unit_test(test_seek_paths__shared_null_state),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* The shared block cache: LRU order, the byte bound, pins outliving eviction,
 * and readers sharing one cache (also from 8 threads at once), whose results
 * must equal a cacheless reader's. */
/* cf-label: threads */
#include "test_common.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cfile/cfile.h>

#include "cfile/internal.h"
#include "util/alloc.h"

#include "support_mem.h"
#include "support_opts.h"

static cf_cache *make_cache(size_t cap)
{
    cf_cache *c = NULL;
    cf_error e = {0};
    CF_ASSERT_OK(cf_cache_create(&c, cap, &e), &e);
    return c;
}

static bool cached(cf_cache *c, uint64_t id, uint64_t off, uint32_t size)
{
    cf_slice s;
    bool v;
    cf_cache_entry *e = cf_cache_lookup(c, id, off, size, &s, &v);
    cf_cache_release(c, e);
    return e != NULL;
}

static void put(cf_cache *c, uint64_t id, uint64_t off, size_t len, uint8_t fill)
{
    uint8_t *b = malloc(len ? len : 1);
    memset(b, fill, len);
    cf_slice s;
    cf_cache_entry *e = cf_cache_insert(c, id, off, (uint32_t)len, b, len, false, &s);
    assert_non_null(e);
    assert_int_equal(s.len, len);
    assert_true(len == 0 || (s.data[0] == fill && s.data[len - 1] == fill));
    cf_cache_release(c, e);
    free(b);
}

static void test_cache__bad_capacity(void **state)
{
    cf_cache *c = (cf_cache *)1;
    cf_error e = {0};
    CF_ASSERT_STATUS(cf_cache_create(&c, 0, &e), CF_EINVAL, &e);
    assert_null(c);
    cf_cache_free(NULL);
}

static void test_cache__lru_eviction(void **state)
{
    /* Room for two 1000-byte blocks (each charged a little more), not three. */
    cf_cache *c = make_cache(2600);
    uint64_t id = cf_cache_new_file_id(c);
    put(c, id, 100, 1000, 'a');
    put(c, id, 200, 1000, 'b');
    assert_true(cached(c, id, 100, 1000)); /* a is now the most recent */
    put(c, id, 300, 1000, 'c');            /* evicts b, the least recent */
    assert_true(cached(c, id, 100, 1000));
    assert_false(cached(c, id, 200, 1000));
    assert_true(cached(c, id, 300, 1000));
    /* The size is part of the key; another file id is another key space. */
    assert_false(cached(c, id, 100, 999));
    assert_false(cached(c, cf_cache_new_file_id(c), 100, 1000));
    cf_cache_stats st;
    cf_cache_get_stats(c, &st);
    assert_int_equal(st.entries, 2);
    assert_int_equal(st.evictions, 1);
    assert_int_equal(st.inserts, 3);
    assert_int_equal(st.hits, 3);
    assert_int_equal(st.misses, 3);
    assert_int_equal(st.capacity, 2600);
    cf_cache_free(c);
}

static void test_cache__byte_bound(void **state)
{
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(16));
    size_t caps[] = {5000, 64 * 1024, 32u * 1024 * 1024}; /* one shard, one, sixteen */
    for (size_t k = 0; k < 3; k++) {
        cf_cache *c = make_cache(caps[k]);
        uint64_t id = cf_cache_new_file_id(c);
        for (int i = 0; i < 3000; i++) {
            size_t len = (size_t)cf_rng_below(&r, caps[k] / 64); /* under a shard's share */
            put(c, id, cf_rng_below(&r, 500), len, (uint8_t)i);
            cf_cache_stats st;
            cf_cache_get_stats(c, &st);
            assert_true(st.bytes <= caps[k]);
        }
        /* A block bigger than the capacity is refused, not cached. */
        uint8_t *big = calloc(1, caps[k] + 1);
        cf_slice s;
        assert_null(cf_cache_insert(c, id, 7, 1, big, caps[k] + 1, false, &s));
        free(big);
        cf_cache_free(c);
    }
}

static void test_cache__pin_outlives_eviction(void **state)
{
    cf_cache *c = make_cache(2000);
    uint8_t b[1500];
    memset(b, 'x', sizeof b);
    cf_slice s, s2;
    cf_cache_entry *e = cf_cache_insert(c, 1, 0, 1500, b, sizeof b, false, &s);
    assert_non_null(e);
    put(c, 1, 8, 1500, 'y'); /* evicts the pinned entry from the table */
    assert_false(cached(c, 1, 0, 1500));
    /* Still readable (ASan checks) until released. */
    assert_int_equal(s.len, 1500);
    assert_int_equal(s.data[0], 'x');
    assert_int_equal(s.data[1499], 'x');
    cf_cache_release(c, e);
    /* A view mark has no bytes. */
    bool v = false;
    e = cf_cache_insert(c, 1, 16, 99, b, sizeof b, true, &s);
    assert_non_null(e);
    assert_int_equal(s.len, 0);
    cf_cache_release(c, e);
    e = cf_cache_lookup(c, 1, 16, 99, &s2, &v);
    assert_non_null(e);
    assert_true(v);
    cf_cache_release(c, e);
    cf_cache_free(c);
}

/* ---- readers sharing a cache --------------------------------------------------------- */

#define NROWS 60000u

static int64_t value_at(uint64_t ord)
{
    return (int64_t)ord * 3 - 1000;
}

/* Sorted INT64 with both indexes, small blocks, so a seek touches one of many. */
static uint8_t *write_file(cf_encoding enc, cf_compression comp, size_t *len)
{
    cf_writer_options o = col_options((col_opts){
        .type = CF_TYPE_INT64, .enc = enc, .comp = comp, .validx = true, .block_size = 4096});
    cf_error e = {0};
    cf_io *io;
    cf_writer *w;
    CF_ASSERT_OK(mem_writer_create(&w, &io, &o, &e), &e);
    int64_t *v = malloc(NROWS * sizeof *v);
    for (uint64_t i = 0; i < NROWS; i++)
        v[i] = value_at(i);
    /* In 100-row calls: PLAIN and RLE blocks end only between calls. */
    for (size_t i = 0; i < NROWS; i += 100)
        CF_ASSERT_OK(cf_writer_append(w, v + i, NULL, 100, &e), &e);
    CF_ASSERT_OK(cf_writer_finish(w, &e), &e);
    cf_writer_free(w);
    free(v);
    cf_slice s = cf_io_mem_contents(io);
    uint8_t *copy = malloc(s.len);
    memcpy(copy, s.data, s.len);
    *len = s.len;
    cf_io_free(io);
    return copy;
}

static cf_reader *open_mem(const uint8_t *data, size_t len, cf_cache *cache, cf_io **io)
{
    cf_error e = {0};
    CF_ASSERT_OK(cf_io_open_mem(io, data, len, &e), &e);
    cf_reader_options ro;
    cf_reader_options_init(&ro);
    ro.cache = cache;
    cf_reader *r;
    CF_ASSERT_OK(cf_reader_open(&r, *io, &ro, &e), &e);
    return r;
}

/* Read `n` rows at the iterator into out; returns how many came. */
static size_t read_rows(cf_iter *it, int64_t *out, size_t n)
{
    cf_error e = {0};
    size_t got = 0;
    while (got < n) {
        size_t k;
        CF_ASSERT_OK(cf_iter_copy_batch(it, out + got, NULL, n - got, &k, &e), &e);
        if (k == 0)
            break;
        got += k;
    }
    return got;
}

static void full_scan_check(cf_reader *r)
{
    cf_error e = {0};
    cf_iter *it;
    CF_ASSERT_OK(cf_iter_create(&it, r, &e), &e);
    int64_t *v = malloc(NROWS * sizeof *v);
    assert_int_equal(read_rows(it, v, NROWS), NROWS);
    for (uint64_t i = 0; i < NROWS; i++)
        assert_int_equal(v[i], value_at(i));
    free(v);
    cf_iter_free(it);
}

static void test_cache__scans_hit(void **state)
{
    cf_compression comps[] = {CF_COMP_NONE, CF_COMP_LZ4};
    for (size_t k = 0; k < 2; k++) {
        size_t len;
        uint8_t *f = write_file(CF_ENC_BIT_SHUFFLE, comps[k], &len);
        cf_cache *c = make_cache(64u * 1024 * 1024);
        cf_io *io;
        cf_reader *r = open_mem(f, len, c, &io);
        full_scan_check(r);
        cf_cache_stats a, b;
        cf_cache_get_stats(c, &a);
        assert_true(a.inserts > 10);
        full_scan_check(r);
        cf_cache_get_stats(c, &b);
        assert_int_equal(b.inserts, a.inserts); /* everything came from the cache */
        assert_true(b.hits >= a.inserts);
        cf_reader_free(r);
        cf_io_free(io);
        cf_cache_free(c);
        free(f);
    }
}

typedef struct worker {
    cf_reader *r;
    uint64_t seed;
    int failures;
} worker;

/* Random ordinal and value seeks (half on absent keys), each followed by a
 * short read checked against the generator: what a cacheless reader returns. */
static void *run_worker(void *arg)
{
    worker *wk = arg;
    cf_error e = {0};
    cf_iter *it;
    if (cf_iter_create(&it, wk->r, &e) != CF_OK) {
        wk->failures++;
        return NULL;
    }
    cf_rng rng;
    cf_rng_init(&rng, wk->seed);
    int64_t got[40];
    for (int i = 0; i < 1500; i++) {
        uint64_t ord = cf_rng_below(&rng, NROWS);
        uint64_t start = ord;
        if (i & 1) {
            if (cf_iter_seek_to_ordinal(it, ord, &e) != CF_OK) {
                wk->failures++;
                continue;
            }
        } else {
            /* value_at(ord) - 1 is absent: the answer is row ord. */
            int64_t key = value_at(ord) - (int64_t)(i & 2 ? 1 : 0);
            bool exact;
            if (cf_iter_seek_at_or_after(it, &key, &exact, &e) != CF_OK || exact != !(i & 2) ||
                cf_iter_current_ordinal(it) != ord) {
                wk->failures++;
                continue;
            }
        }
        size_t want = NROWS - start < 40 ? NROWS - start : 40;
        size_t n = 0;
        while (n < want) {
            size_t k;
            if (cf_iter_copy_batch(it, got + n, NULL, want - n, &k, &e) != CF_OK || k == 0)
                break;
            n += k;
        }
        if (n != want)
            wk->failures++;
        for (size_t j = 0; j < n; j++)
            if (got[j] != value_at(start + j))
                wk->failures++;
    }
    cf_iter_free(it);
    return NULL;
}

static void run_threads(cf_reader *r, uint64_t seed)
{
    enum { T = 8 };
    pthread_t th[T];
    worker wk[T];
    for (int t = 0; t < T; t++) {
        wk[t] = (worker){r, seed + (uint64_t)t, 0};
        assert_int_equal(pthread_create(&th[t], NULL, run_worker, &wk[t]), 0);
    }
    for (int t = 0; t < T; t++) {
        pthread_join(th[t], NULL);
        assert_int_equal(wk[t].failures, 0);
    }
}

static void test_cache__threads_share_reader(void **state)
{
    uint64_t seed = cf_test_seed(1616);
    cf_encoding encs[] = {CF_ENC_BIT_SHUFFLE, CF_ENC_PLAIN, CF_ENC_RLE};
    for (size_t k = 0; k < 3; k++) {
        size_t len;
        uint8_t *f = write_file(encs[k], CF_COMP_LZ4, &len);
        /* Cacheless first: the reference. Then a cache far smaller than the
         * file's blocks (2 4-KiB blocks or 85 marks of in-place blocks), so threads evict each
         * other's pins. */
        cf_io *io0;
        cf_reader *r0 = open_mem(f, len, NULL, &io0);
        run_threads(r0, seed);
        cf_cache *c = make_cache(12000);
        cf_io *io;
        cf_reader *r = open_mem(f, len, c, &io);
        run_threads(r, seed);
        cf_cache_stats st;
        cf_cache_get_stats(c, &st);
        fprintf(stderr,
                "# %s: %zu-byte file, %llu hits, %llu evictions, %llu inserts, %llu misses\n",
                cf_encoding_name(encs[k]), len, (unsigned long long)st.hits,
                (unsigned long long)st.evictions, (unsigned long long)st.inserts,
                (unsigned long long)st.misses);
        assert_true(st.hits > 0);
        assert_true(st.evictions > 0);
        assert_true(st.bytes <= st.capacity);
        full_scan_check(r);
        cf_reader_free(r);
        cf_io_free(io);
        cf_cache_free(c);
        cf_reader_free(r0);
        cf_io_free(io0);
        free(f);
    }
}

/* An mmap'd uncompressed file is served in place: the cache only marks its
 * blocks as checked, and a damaged block is still found before that. */
static void test_cache__mmap_view_marks(void **state)
{
    size_t len;
    uint8_t *f = write_file(CF_ENC_PLAIN, CF_COMP_NONE, &len);
    char path[] = "/tmp/cf_test_cache_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, f, len), (ssize_t)len);
    close(fd);
    cf_cache *c = make_cache(1u << 20);
    cf_reader_options ro;
    cf_reader_options_init(&ro);
    ro.cache = c;
    cf_error e = {0};
    cf_reader *r;
    CF_ASSERT_OK(cf_reader_open_file(&r, path, true, &ro, &e), &e);
    full_scan_check(r);
    full_scan_check(r);
    run_threads(r, 99);
    cf_cache_stats st;
    cf_cache_get_stats(c, &st);
    assert_true(st.inserts > 0);
    assert_true(st.hits > 0);
    /* Marks cost only their fixed charge. */
    assert_true(st.bytes < st.entries * 256);
    cf_reader_free(r);
    cf_cache_free(c);
    unlink(path);
    free(f);
}

/* A full scan of the iterator with fill as given: returns the status of the
 * first failing read (values checked when all succeed). */
static cf_status scan_fill(cf_reader *r, bool fill, cf_error *e)
{
    cf_iter *it;
    CF_ASSERT_OK(cf_iter_create(&it, r, e), e);
    cf_iter_set_fill_cache(it, fill);
    int64_t *v = malloc(NROWS * sizeof *v);
    size_t got = 0;
    cf_status st = CF_OK;
    while (got < NROWS) {
        size_t k;
        if ((st = cf_iter_copy_batch(it, v + got, NULL, NROWS - got, &k, e)) != CF_OK || k == 0)
            break;
        got += k;
    }
    if (st == CF_OK) {
        assert_int_equal(got, NROWS);
        for (uint64_t i = 0; i < NROWS; i++)
            assert_int_equal(v[i], value_at(i));
    }
    free(v);
    cf_iter_free(it);
    return st;
}

/* Through pread (the io serves no views): an iterator that does not fill the
 * cache adds no data block to it but uses those it holds; one that fills reads
 * each block straight into its entry (uncompressed) or through scratch (LZ4),
 * and what it cached serves later scans; a block failing its checksum is
 * reported and never cached, so every scan reports it again. */
static void test_cache__pread_fill_or_not(void **state)
{
    (void)state;
    cf_compression comps[] = {CF_COMP_NONE, CF_COMP_LZ4};
    for (size_t k = 0; k < 2; k++) {
        size_t len;
        uint8_t *f = write_file(CF_ENC_BIT_SHUFFLE, comps[k], &len);
        char path[] = "/tmp/cf_test_cache_XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, f, len), (ssize_t)len);
        cf_cache *c = make_cache(64u * 1024 * 1024);
        cf_reader_options ro;
        cf_reader_options_init(&ro);
        ro.cache = c;
        cf_error e = {0};
        cf_reader *r;
        CF_ASSERT_OK(cf_reader_open_file(&r, path, false, &ro, &e), &e);
        cf_cache_stats a, b, d;
        cf_cache_get_stats(c, &a);
        CF_ASSERT_OK(scan_fill(r, false, &e), &e);
        cf_cache_get_stats(c, &b);
        assert_true(b.inserts - a.inserts <= 2); /* an index block at most, no data block */
        CF_ASSERT_OK(scan_fill(r, true, &e), &e);
        cf_cache_get_stats(c, &d);
        assert_true(d.inserts - b.inserts > 10); /* every data block */
        CF_ASSERT_OK(scan_fill(r, false, &e), &e);
        CF_ASSERT_OK(scan_fill(r, true, &e), &e);
        cf_cache_get_stats(c, &a);
        assert_int_equal(a.inserts, d.inserts); /* both served from the cache */
        assert_true(a.hits - d.hits > 20);
        cf_reader_free(r);
        cf_cache_free(c);
        /* A damaged data block, under a fresh cache. */
        uint8_t x = (uint8_t)(f[len / 3] ^ 0x55);
        assert_int_equal(pwrite(fd, &x, 1, (off_t)(len / 3)), 1);
        c = make_cache(64u * 1024 * 1024);
        ro.cache = c;
        CF_ASSERT_OK(cf_reader_open_file(&r, path, false, &ro, &e), &e);
        for (int i = 0; i < 3; i++) {
            cf_status st = scan_fill(r, i != 1, &e);
            assert_int_equal(st, CF_ECORRUPT);
            assert_non_null(strstr(e.msg, "data block at offset"));
            assert_non_null(strstr(e.msg, "checksum mismatch")); /* not its decode */
        }
        cf_reader_free(r);
        cf_cache_free(c);
        close(fd);
        unlink(path);
        free(f);
    }
}

/* A nullable file served in place: the decoded null bitmap of each block is
 * kept with its view mark (charged to the cache), so seeks back into a block do
 * not decode it again, and every row still reads right. */
static void test_cache__mmap_view_keeps_null_state(void **state)
{
    (void)state;
    cf_error e = {0};
    cf_io *io;
    CF_ASSERT_OK(cf_io_create_mem(&io, &e), &e);
    cf_writer_options o;
    cf_writer_options_init(&o, CF_TYPE_INT64);
    o.encoding = CF_ENC_PLAIN;
    o.nullable = true;
    o.block_size = 4096;
    cf_writer *w;
    CF_ASSERT_OK(cf_writer_create(&w, io, &o, &e), &e);
    int64_t *v = malloc(NROWS * sizeof *v);
    uint8_t *nn = calloc(NROWS / 8 + 1, 1);
    for (uint64_t i = 0; i < NROWS; i++) {
        v[i] = value_at(i);
        if (i % 3 != 0)
            nn[i / 8] |= (uint8_t)(1u << (i % 8));
    }
    CF_ASSERT_OK(cf_writer_append(w, v, nn, NROWS, &e), &e);
    CF_ASSERT_OK(cf_writer_finish(w, &e), &e);
    cf_writer_free(w);
    cf_slice s = cf_io_mem_contents(io);
    char path[] = "/tmp/cf_test_cache_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, s.data, s.len), (ssize_t)s.len);
    close(fd);
    cf_io_free(io);

    cf_cache *c = make_cache(1u << 20);
    cf_reader_options ro;
    cf_reader_options_init(&ro);
    ro.cache = c;
    cf_reader *r;
    CF_ASSERT_OK(cf_reader_open_file(&r, path, true, &ro, &e), &e);
    cf_iter *it;
    CF_ASSERT_OK(cf_iter_create(&it, r, &e), &e);
    cf_cache_stats a = {0}, b = {0};
    for (int pass = 0; pass < 2; pass++) {
        /* Seek all over the file, one row at a time. */
        for (uint64_t k = 0; k < NROWS; k += 7) {
            uint64_t ord = (k * 7919) % NROWS;
            CF_ASSERT_OK(cf_iter_seek_to_ordinal(it, ord, &e), &e);
            int64_t x;
            uint8_t bm = 0;
            size_t got;
            CF_ASSERT_OK(cf_iter_copy_batch(it, &x, &bm, 1, &got, &e), &e);
            assert_int_equal(got, 1);
            assert_int_equal(bm & 1, ord % 3 != 0);
            if (ord % 3 != 0)
                assert_int_equal(x, value_at(ord));
        }
        cf_cache_get_stats(c, pass == 0 ? &a : &b);
    }
    /* Every block's mark carries its bitmap: more than the marks' fixed charge. */
    assert_true(a.entries > 1);
    assert_true(a.bytes > a.entries * 256);
    /* The second pass found everything, bitmaps included. */
    assert_int_equal(b.inserts, a.inserts);
    assert_int_equal(b.bytes, a.bytes);
    cf_iter_free(it);
    cf_reader_free(r);
    cf_cache_free(c);
    unlink(path);
    free(v);
    free(nn);
}

/* Derived state kept with an entry: charged to the cache, first setter wins,
 * freed with the entry (ASan runs see any leak), and an entry whose state no
 * longer fits is dropped from the table but stays usable while pinned. */
static void test_cache__entry_aux(void **state)
{
    (void)state;
    cf_cache *c = make_cache(4000);
    uint64_t id = cf_cache_new_file_id(c);
    put(c, id, 100, 1000, 'a');
    cf_slice s;
    bool v;
    cf_cache_entry *e = cf_cache_lookup(c, id, 100, 1000, &s, &v);
    assert_non_null(e);
    assert_null(cf_cache_entry_aux(e));
    cf_cache_stats a, b;
    cf_cache_get_stats(c, &a);
    void *x = cf_malloc(64), *y = cf_malloc(64);
    assert_ptr_equal(cf_cache_entry_set_aux(c, e, x, 500), x);
    assert_ptr_equal(cf_cache_entry_set_aux(c, e, y, 500), x); /* y freed */
    assert_ptr_equal(cf_cache_entry_aux(e), x);
    cf_cache_get_stats(c, &b);
    assert_int_equal(b.bytes, a.bytes + 500);
    cf_cache_release(c, e);
    /* Another block pushes the bytes over: the least recent goes, aux and all. */
    put(c, id, 200, 1000, 'b');
    put(c, id, 300, 1500, 'c');
    cf_cache_get_stats(c, &b);
    assert_true(b.bytes <= b.capacity);
    /* State too big for the cache: the pinned entry leaves the table only. */
    e = cf_cache_lookup(c, id, 300, 1500, &s, &v);
    assert_non_null(e);
    void *z = cf_malloc(16);
    assert_ptr_equal(cf_cache_entry_set_aux(c, e, z, 10000), z);
    cf_cache_get_stats(c, &b);
    assert_true(b.bytes <= b.capacity);
    assert_false(cached(c, id, 300, 1500));
    assert_int_equal(s.data[0], 'c');
    assert_ptr_equal(cf_cache_entry_aux(e), z);
    cf_cache_release(c, e);
    cf_cache_free(c);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cache__bad_capacity),
        cmocka_unit_test(test_cache__lru_eviction),
        cmocka_unit_test(test_cache__byte_bound),
        cmocka_unit_test(test_cache__pin_outlives_eviction),
        cmocka_unit_test(test_cache__scans_hit),
        cmocka_unit_test(test_cache__threads_share_reader),
        cmocka_unit_test(test_cache__mmap_view_marks),
        cmocka_unit_test(test_cache__pread_fill_or_not),
        cmocka_unit_test(test_cache__mmap_view_keeps_null_state),
        cmocka_unit_test(test_cache__entry_aux),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

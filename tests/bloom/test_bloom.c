/* BloomFile: Kudu's sizing (format §11.4), block header and probe bits (§11.2,
 * §11.3, §14.13), byte identity with Kudu-written golden files and Kudu's probe
 * answers, the false-positive rate on a million absent keys, and bad input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"

#include <cfile/bloom.h>
#include <cfile/cfile.h>

#include "bloom/bloom.h"
#include "bloom/cityhash.h"
#include "cfile/extend.h"
#include "cfile/internal.h"
#include "util/endian.h"

/* ---- helpers ---------------------------------------------------------------------- */

typedef struct keyset {
    cf_slice *keys;
    size_t n;
    uint8_t *text; /* backing store */
} keyset;

/* One key per line (the golden keys.txt form). */
static void keys_load(keyset *ks, const char *path)
{
    size_t len;
    ks->text = cf_test_read_file(path, &len);
    assert_non_null(ks->text);
    size_t cap = 16;
    ks->keys = malloc(cap * sizeof *ks->keys);
    ks->n = 0;
    size_t start = 0;
    for (size_t i = 0; i < len; i++) {
        if (ks->text[i] != '\n')
            continue;
        if (ks->n == cap) {
            cap *= 2;
            ks->keys = realloc(ks->keys, cap * sizeof *ks->keys);
        }
        ks->keys[ks->n++] = (cf_slice){ks->text + start, i - start};
        start = i + 1;
    }
    assert_int_equal(start, len); /* the files end with a newline */
}

static void keys_free(keyset *ks)
{
    free(ks->keys);
    free(ks->text);
}

/* Write keys with the given sizing into memory; returns the writer's io. */
static cf_io *write_mem(const cf_slice *keys, size_t n, size_t bytes, double fp,
                        cf_bloom_sizing *sz)
{
    cf_error err;
    cf_io *io;
    CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
    cf_bloom_writer_options o;
    cf_bloom_writer_options_init(&o);
    o.bytes_per_block = bytes;
    o.fp_rate = fp;
    cf_bloom_writer *w;
    CF_ASSERT_OK(cf_bloom_writer_create(&w, io, &o, &err), &err);
    for (size_t i = 0; i < n; i++)
        CF_ASSERT_OK(cf_bloom_writer_add(w, keys[i], &err), &err);
    CF_ASSERT_OK(cf_bloom_writer_finish(w, &err), &err);
    assert_int_equal(cf_bloom_writer_num_keys(w), n);
    assert_int_equal(cf_bloom_writer_written_size(w), cf_io_mem_contents(io).len);
    if (sz != NULL)
        *sz = *cf_bloom_writer_sizing(w);
    cf_bloom_writer_free(w);
    return io;
}

/* A reader over bytes the caller keeps alive; *io_out is freed by the caller. */
static cf_bloom_reader *open_mem(const uint8_t *data, size_t len, cf_io **io_out)
{
    cf_error err;
    CF_ASSERT_OK(cf_io_open_mem(io_out, data, len, &err), &err);
    cf_bloom_reader *r;
    CF_ASSERT_OK(cf_bloom_reader_open(&r, *io_out, NULL, &err), &err);
    return r;
}

static bool probe(const cf_bloom_reader *r, const void *key, size_t len)
{
    cf_error err;
    bool maybe;
    CF_ASSERT_OK(cf_bloom_reader_may_contain(r, (cf_slice){key, len}, &maybe, &err), &err);
    return maybe;
}

/* The single bloom block of a file, parsed (its bytes stay in *scratch or io). */
static void only_block(const uint8_t *file, size_t len, cf_buf *scratch, cf_bloom_block *bb)
{
    cf_error err;
    cf_io *io;
    CF_ASSERT_OK(cf_io_open_mem(&io, file, len, &err), &err);
    cf_reader *r;
    CF_ASSERT_OK(cf_reader_open(&r, io, NULL, &err), &err);
    cf_block_ptr ptr;
    bool before;
    CF_ASSERT_OK(cf_reader_find_validx_block(r, (cf_slice){NULL, 0}, &ptr, &before, &err), &err);
    cf_slice blk;
    CF_ASSERT_OK(cf_reader_read_block(r, ptr, scratch, &blk, "bloom block", &err), &err);
    CF_ASSERT_OK(cf_bloom_block_parse(bb, blk.data, blk.len, &err), &err);
    cf_reader_free(r);
    cf_io_free(io);
}

/* ---- sizing and block header (format §11.4, §11.2) --------------------------------- */

static void test_bloom__sizing_matches_kudu(void **state)
{
    (void)state;
    cf_error err;
    cf_bloom_sizing sz;
    /* Tablet defaults: the float literal 0.0001f. */
    assert_true(CF_BLOOM_DEFAULT_FP_RATE == 9.999999747378752e-05);
    CF_ASSERT_OK(cf_bloom_sizing_compute(&sz, 4096, CF_BLOOM_DEFAULT_FP_RATE, &err), &err);
    assert_int_equal(sz.expected_count, 1710);
    assert_int_equal(sz.n_hashes, 13);
    CF_ASSERT_OK(cf_bloom_sizing_compute(&sz, 32768, 0.01, &err), &err);
    assert_int_equal(sz.expected_count, 27349);
    assert_int_equal(sz.n_hashes, 6);
    /* A rate near 1 still gets one hash function. */
    CF_ASSERT_OK(cf_bloom_sizing_compute(&sz, 64, 0.9, &err), &err);
    assert_int_equal(sz.n_hashes, 1);

    cf_bloom_writer_options o;
    cf_bloom_writer_options_init(&o);
    assert_int_equal(o.bytes_per_block, 4096);
    assert_true(o.fp_rate == CF_BLOOM_DEFAULT_FP_RATE);
    assert_true(o.checksums);
}

static void test_bloom__sizing_rejects_bad_options(void **state)
{
    (void)state;
    cf_error err;
    cf_bloom_sizing sz;
    CF_ASSERT_STATUS(cf_bloom_sizing_compute(&sz, 0, 0.01, &err), CF_EINVAL, &err);
    CF_ASSERT_STATUS(cf_bloom_sizing_compute(&sz, CF_BLOOM_MAX_BLOCK_BYTES + 1, 0.01, &err),
                     CF_EINVAL, &err);
    CF_ASSERT_STATUS(cf_bloom_sizing_compute(&sz, 4096, 0.0, &err), CF_EINVAL, &err);
    CF_ASSERT_STATUS(cf_bloom_sizing_compute(&sz, 4096, 1.0, &err), CF_EINVAL, &err);
    CF_ASSERT_STATUS(cf_bloom_sizing_compute(&sz, 4096, -0.5, &err), CF_EINVAL, &err);
    CF_ASSERT_STATUS(cf_bloom_sizing_compute(&sz, 4096, NAN, &err), CF_EINVAL, &err);
    CF_ASSERT_STATUS(cf_bloom_sizing_compute(&sz, 4096, 1e-320, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "hash functions"));

    cf_io *io;
    CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
    cf_bloom_writer_options o;
    cf_bloom_writer_options_init(&o);
    o.fp_rate = 2.0;
    cf_bloom_writer *w = (cf_bloom_writer *)1;
    CF_ASSERT_STATUS(cf_bloom_writer_create(&w, io, &o, &err), CF_EINVAL, &err);
    assert_null(w);
    assert_non_null(strstr(err.msg, "fp_rate"));
    cf_bloom_writer_options_init(&o);
    o.version = 99;
    CF_ASSERT_STATUS(cf_bloom_writer_create(&w, io, &o, &err), CF_EINVAL, &err);
    cf_io_free(io);
}

static void test_bloom__header_bytes(void **state)
{
    (void)state;
    uint8_t h[CF_BLOOM_MAX_HEADER_LEN];
    static const uint8_t k13[] = {0x02, 0x00, 0x00, 0x00, 0x08, 0x0d};
    size_t n = cf_bloom_header_encode(h, 13);
    CF_ASSERT_BYTES(h, n, k13, sizeof k13);
    static const uint8_t k300[] = {0x03, 0x00, 0x00, 0x00, 0x08, 0xac, 0x02};
    n = cf_bloom_header_encode(h, 300);
    CF_ASSERT_BYTES(h, n, k300, sizeof k300);
}

/* ---- probe bits (format §14.13) ----------------------------------------------------- */

static const uint32_t BITS_14_13[13] = {11571, 14039, 16507, 18975, 21443, 23911, 26379,
                                        28847, 31315, 1015,  3483,  5951,  8419};

/* Exactly the first `k` bits of the §14.13 list are set, nothing else. */
static void assert_bits(const cf_bloom_block *bb, unsigned k)
{
    assert_int_equal(bb->n_bits, 32768);
    assert_int_equal(bb->n_hashes, k);
    size_t set = 0;
    for (size_t b = 0; b < bb->n_bits; b++) {
        bool on = (bb->bitmap[b >> 3] >> (b & 7)) & 1;
        bool want = false;
        for (unsigned i = 0; i < k; i++)
            want |= BITS_14_13[i] == b;
        assert_int_equal(on, want);
        set += on;
    }
    assert_int_equal(set, k);
    /* bit 11571 = byte 1446, bit 3 */
    assert_true(bb->bitmap[1446] & (1u << 3));
}

static void test_bloom__probe_bits_of_int32_one(void **state)
{
    (void)state;
    static const uint8_t key[4] = {0x80, 0x00, 0x00, 0x01};
    assert_true(cf_cityhash64(key, 4) == 0xd7e089a4c738ad33ULL);
    static const double rates[2] = {CF_BLOOM_DEFAULT_FP_RATE, 0.01};
    static const unsigned ks[2] = {13, 6};
    static const uint8_t hdr13[] = {0x02, 0x00, 0x00, 0x00, 0x08, 0x0d};
    static const uint8_t hdr6[] = {0x02, 0x00, 0x00, 0x00, 0x08, 0x06};
    for (int i = 0; i < 2; i++) {
        cf_io *io = write_mem(&(cf_slice){key, 4}, 1, 4096, rates[i], NULL);
        cf_slice file = cf_io_mem_contents(io);
        cf_buf scratch;
        cf_buf_init(&scratch);
        cf_bloom_block bb;
        only_block(file.data, file.len, &scratch, &bb);
        CF_ASSERT_BYTES(bb.bitmap - 6, 6, i == 0 ? hdr13 : hdr6, 6);
        assert_bits(&bb, ks[i]);
        cf_buf_dispose(&scratch);

        cf_io *rio;
        cf_bloom_reader *r = open_mem(file.data, file.len, &rio);
        assert_true(probe(r, key, 4));
        cf_bloom_reader_free(r);
        cf_io_free(rio);
        cf_io_free(io);
    }
}

/* ---- golden files written by Kudu ---------------------------------------------------- */

typedef struct golden_probe {
    char key[64];
    bool maybe;
} golden_probe;

/* The few fields of probes.json we need, by plain scanning: the golden files
 * hold ASCII keys without escapes. */
static size_t load_probes(const char *path, size_t *bytes, double *fp, golden_probe **out)
{
    size_t len;
    char *t = (char *)cf_test_read_file(path, &len);
    assert_non_null(t);
    t = realloc(t, len + 1);
    t[len] = '\0';
    const char *a = strstr(t, "\"args\"");
    assert_non_null(a);
    const char *b = strstr(a, "\"--bytes\",\"");
    const char *f = strstr(a, "\"--fp-rate\",\"");
    assert_non_null(b);
    assert_non_null(f);
    *bytes = strtoul(b + strlen("\"--bytes\",\""), NULL, 10);
    *fp = strtod(f + strlen("\"--fp-rate\",\""), NULL);
    const char *end_args = strchr(a, ']');
    const char *hex = strstr(a, "--hex");
    assert_true(hex == NULL || hex > end_args); /* text keys */
    size_t n = 0, cap = 64;
    golden_probe *p = malloc(cap * sizeof *p);
    for (const char *s = strstr(t, "{\"key\":\""); s != NULL; s = strstr(s, "{\"key\":\"")) {
        s += strlen("{\"key\":\"");
        const char *q = strchr(s, '"');
        assert_non_null(q);
        assert_true((size_t)(q - s) < sizeof p[0].key);
        if (n == cap)
            p = realloc(p, (cap *= 2) * sizeof *p);
        memcpy(p[n].key, s, (size_t)(q - s));
        p[n].key[q - s] = '\0';
        const char *m = strstr(q, "\"maybe_present\":");
        assert_non_null(m);
        m += strlen("\"maybe_present\":");
        assert_true(strncmp(m, "true", 4) == 0 || strncmp(m, "false", 5) == 0);
        p[n].maybe = m[0] == 't';
        n++;
        s = m;
    }
    free(t);
    *out = p;
    return n;
}

static void golden_case(const char *name, size_t want_blocks_min)
{
    char path[1024];
    const char *dir = cf_test_shared_dir();
    keyset ks;
    snprintf(path, sizeof path, "%s/golden/%s/keys.txt", dir, name);
    keys_load(&ks, path);
    size_t bytes;
    double fp;
    golden_probe *gp;
    snprintf(path, sizeof path, "%s/golden/%s/probes.json", dir, name);
    size_t np = load_probes(path, &bytes, &fp, &gp);
    assert_true(np > 0);
    size_t kudu_len;
    snprintf(path, sizeof path, "%s/golden/%s/%s.cfile", dir, name, name);
    uint8_t *kudu = cf_test_read_file(path, &kudu_len);
    assert_non_null(kudu);

    /* Our bytes are Kudu's bytes. */
    cf_bloom_sizing sz;
    cf_io *io = write_mem(ks.keys, ks.n, bytes, fp, &sz);
    cf_slice ours = cf_io_mem_contents(io);
    CF_ASSERT_BYTES(ours.data, ours.len, kudu, kudu_len);
    assert_true((ks.n + sz.expected_count - 1) / sz.expected_count >= want_blocks_min);

    /* Kudu's file: it is a BloomFile, every key is present, every probe gets
     * Kudu's answer. */
    cf_io *rio;
    cf_bloom_reader *r = open_mem(kudu, kudu_len, &rio);
    assert_true(cf_bloom_is_bloom_file(cf_reader_info(cf_bloom_reader_cfile(r))));
    for (size_t i = 0; i < ks.n; i++)
        assert_true(probe(r, ks.keys[i].data, ks.keys[i].len));
    for (size_t i = 0; i < np; i++) {
        if (probe(r, gp[i].key, strlen(gp[i].key)) != gp[i].maybe)
            fail_msg("%s: probe %s: kudu says %d", name, gp[i].key, gp[i].maybe);
    }
    cf_bloom_reader_free(r);
    cf_io_free(rio);

    free(kudu);
    free(gp);
    cf_io_free(io);
    keys_free(&ks);
}

static void test_bloom__golden_100keys_4096b(void **state)
{
    (void)state;
    golden_case("bloom-100keys-4096b", 1);
}

static void test_bloom__golden_20000keys_512b_multiblock(void **state)
{
    (void)state;
    golden_case("bloom-20000keys-512b-multiblock", 2);
}

static void test_bloom__ordinary_cfile_is_not_a_bloom_file(void **state)
{
    (void)state;
    char path[1024];
    snprintf(path, sizeof path,
             "%s/golden/string-prefix-nocomp-notnull-validx-only-noposidx/"
             "string-prefix-nocomp-notnull-validx-only-noposidx.cfile",
             cf_test_shared_dir());
    cf_error err;
    cf_reader *r;
    CF_ASSERT_OK(cf_reader_open_file(&r, path, false, NULL, &err), &err);
    assert_false(cf_bloom_is_bloom_file(cf_reader_info(r)));
    cf_reader_free(r);
}

/* ---- round trips ---------------------------------------------------------------------- */

static int slice_cmp(const void *a, const void *b)
{
    const cf_slice *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = n ? memcmp(x->data, y->data, n) : 0;
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Random binary keys of every length class of the hash, tiny blocks so there
 * are many pages and keys between pages: no false negatives, and keys below
 * every page are definitely absent. */
static void test_bloom__random_keys_round_trip(void **state)
{
    (void)state;
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(0xb100f11e));
    enum { N = 5000 };
    uint8_t *store = malloc((size_t)N * 100);
    cf_slice *keys = malloc(N * sizeof *keys);
    for (size_t i = 0; i < N; i++) {
        size_t len = 1 + cf_rng_below(&rng, 99);
        uint8_t *k = store + i * 100;
        k[0] = (uint8_t)(0x10 + cf_rng_below(&rng, 0xe0)); /* leaves room below */
        for (size_t j = 1; j < len; j++)
            k[j] = (uint8_t)cf_rng_next(&rng);
        keys[i] = (cf_slice){k, len};
    }
    qsort(keys, N, sizeof *keys, slice_cmp);
    cf_bloom_sizing sz;
    cf_io *io = write_mem(keys, N, 64, 0.05, &sz);
    assert_true(sz.expected_count < N / 10);
    cf_slice file = cf_io_mem_contents(io);
    cf_io *rio;
    cf_bloom_reader *r = open_mem(file.data, file.len, &rio);
    for (size_t i = 0; i < N; i++)
        assert_true(probe(r, keys[i].data, keys[i].len));
    static const uint8_t low[] = {0x01, 0x02};
    assert_false(probe(r, low, 2));
    assert_false(probe(r, NULL, 0));
    cf_bloom_reader_free(r);
    cf_io_free(rio);
    cf_io_free(io);
    free(keys);
    free(store);
}

static void test_bloom__empty_file(void **state)
{
    (void)state;
    cf_io *io = write_mem(NULL, 0, 4096, 0.01, NULL);
    cf_slice file = cf_io_mem_contents(io);
    cf_io *rio;
    cf_bloom_reader *r = open_mem(file.data, file.len, &rio);
    assert_false(probe(r, "a", 1));
    assert_false(probe(r, NULL, 0));
    cf_bloom_reader_free(r);
    cf_io_free(rio);
    cf_io_free(io);
}

/* ---- false-positive rate ---------------------------------------------------------------- */

/* Write `nkeys` keys "key-%09u" of multiples of 10, probe 1,000,000 absent keys
 * (the same numbers + 1..5, spread over every page) and check the observed rate
 * against the theoretical rate of full pages, (1 - e^(-k n / m))^k, within six
 * standard deviations both ways. */
static void fp_rate_case(size_t bytes, double fp, size_t nkeys)
{
    enum { PROBES = 1000000 };
    char *store = malloc(nkeys * 16);
    cf_slice *keys = malloc(nkeys * sizeof *keys);
    for (size_t i = 0; i < nkeys; i++) {
        int n = snprintf(store + i * 16, 16, "key-%09zu", i * 10);
        keys[i] = (cf_slice){(const uint8_t *)store + i * 16, (size_t)n};
    }
    cf_bloom_sizing sz;
    cf_io *io = write_mem(keys, nkeys, bytes, fp, &sz);
    cf_slice file = cf_io_mem_contents(io);
    cf_io *rio;
    cf_bloom_reader *r = open_mem(file.data, file.len, &rio);
    for (size_t i = 0; i < nkeys; i++)
        assert_true(probe(r, keys[i].data, keys[i].len));
    size_t hits = 0;
    for (size_t j = 0; j < PROBES; j++) {
        char k[16];
        size_t base = (j % nkeys) * 10, off = 1 + (j / nkeys) % 9;
        int n = snprintf(k, sizeof k, "key-%09zu", base + off);
        hits += probe(r, k, (size_t)n);
    }
    double m = (double)sz.n_bytes * 8, kk = sz.n_hashes, n = (double)sz.expected_count;
    double p = pow(1.0 - exp(-kk * n / m), kk);
    double mean = p * PROBES, sigma = sqrt(PROBES * p * (1 - p));
    double observed = (double)hits / PROBES;
    print_message("fp rate: %zu-byte blocks, target %g, k=%u, %zu keys/block: %zu of %d absent "
                  "keys hit (%.6f; theory %.6f, 6-sigma bound %.0f..%.0f)\n",
                  bytes, fp, sz.n_hashes, sz.expected_count, hits, PROBES, observed, p,
                  mean - 6 * sigma, mean + 6 * sigma);
    assert_true((double)hits <= mean + 6 * sigma);
    assert_true((double)hits >= mean - 6 * sigma);
    /* and the configured rate itself is met to within 10% plus noise */
    assert_true(observed <= fp * 1.1 + 6 * sigma / PROBES);
    cf_bloom_reader_free(r);
    cf_io_free(rio);
    cf_io_free(io);
    free(keys);
    free(store);
}

static void test_bloom__fp_rate_default_sizing_1m_absent(void **state)
{
    (void)state;
    fp_rate_case(4096, CF_BLOOM_DEFAULT_FP_RATE, 1710 * 100);
}

static void test_bloom__fp_rate_one_percent_1m_absent(void **state)
{
    (void)state;
    fp_rate_case(4096, 0.01, 3419 * 30);
}

/* ---- bad input ------------------------------------------------------------------------- */

static void test_bloom__keys_out_of_order(void **state)
{
    (void)state;
    cf_error err;
    cf_io *io;
    CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
    cf_bloom_writer *w;
    CF_ASSERT_OK(cf_bloom_writer_create(&w, io, NULL, &err), &err);
    CF_ASSERT_OK(cf_bloom_writer_add(w, (cf_slice){(const uint8_t *)"b", 1}, &err), &err);
    CF_ASSERT_OK(cf_bloom_writer_add(w, (cf_slice){(const uint8_t *)"b", 1}, &err), &err);
    CF_ASSERT_OK(cf_bloom_writer_add(w, (cf_slice){(const uint8_t *)"bb", 2}, &err), &err);
    CF_ASSERT_STATUS(cf_bloom_writer_add(w, (cf_slice){(const uint8_t *)"b", 1}, &err), CF_EINVAL,
                     &err);
    assert_non_null(strstr(err.msg, "sorted order"));
    assert_non_null(strstr(err.msg, "key 3"));
    /* sticky, with the first failure's message */
    const cf_error first = err;
    memset(&err, 0, sizeof err);
    CF_ASSERT_REPLAYED(cf_bloom_writer_add(w, (cf_slice){(const uint8_t *)"c", 1}, &err), CF_EINVAL,
                       &err, "bloom writer", &first);
    CF_ASSERT_REPLAYED(cf_bloom_writer_finish(w, &err), CF_EINVAL, &err, "bloom writer", &first);
    cf_bloom_writer_free(w);
    cf_io_free(io);
}

static void test_bloom__block_header_errors(void **state)
{
    (void)state;
    cf_error err;
    cf_bloom_block bb;
    static const uint8_t ok[] = {0x02, 0, 0, 0, 0x08, 0x03, 0xff};
    CF_ASSERT_OK(cf_bloom_block_parse(&bb, ok, sizeof ok, &err), &err);
    assert_int_equal(bb.n_hashes, 3);
    assert_int_equal(bb.n_bits, 8);
    /* unknown fields are skipped, the last num_hash_functions wins */
    static const uint8_t extra[] = {0x0d, 0,    0, 0, 0x08, 0x01, 0x12, 0x02, 0xaa,
                                    0xbb, 0x1d, 0, 0, 0,    0,    0x08, 0x04, 0xff};
    assert_int_equal(sizeof extra, 4 + 0x0d + 1);
    CF_ASSERT_OK(cf_bloom_block_parse(&bb, extra, sizeof extra, &err), &err);
    assert_int_equal(bb.n_hashes, 4);

    static const struct {
        const char *what;
        uint8_t bytes[16];
        size_t len;
        const char *msg;
    } bad[] = {
        {"too short", {0x02, 0, 0}, 3, "cannot hold"},
        {"header longer than block", {0x09, 0, 0, 0, 0x08, 0x03, 0xff}, 7, "does not fit"},
        {"huge header length", {0xff, 0xff, 0xff, 0xff, 0x08, 0x03}, 6, "does not fit"},
        {"k = 0", {0x02, 0, 0, 0, 0x08, 0x00, 0xff}, 7, "hash functions"},
        {"huge k", {0x04, 0, 0, 0, 0x08, 0xff, 0xff, 0x03, 0xff}, 9, "hash functions"},
        {"negative k",
         {0x0b, 0, 0, 0, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0xff},
         16,
         "hash functions"},
        {"empty bitmap", {0x02, 0, 0, 0, 0x08, 0x03}, 6, "empty bitmap"},
        {"no header field", {0x00, 0, 0, 0, 0xff}, 5, "lacks"},
        {"truncated varint", {0x02, 0, 0, 0, 0x08, 0x83, 0xff}, 7, "truncated"},
        {"bad wire type", {0x02, 0, 0, 0, 0x0f, 0x03, 0xff}, 7, "malformed"},
        {"field zero", {0x02, 0, 0, 0, 0x00, 0x03, 0xff}, 7, "malformed"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&err, 0, sizeof err);
        cf_status st = cf_bloom_block_parse(&bb, bad[i].bytes, bad[i].len, &err);
        if (st != CF_ECORRUPT || strstr(err.msg, bad[i].msg) == NULL)
            fail_msg("%s: status %s, message '%s'", bad[i].what, cf_status_str(st), err.msg);
    }
}

/* Damage inside a written file: with checksums the CRC catches it; without,
 * the header checks do. Truncation is caught at open. Never a crash. */
static void test_bloom__damaged_files(void **state)
{
    (void)state;
    static const uint8_t key[] = "key";
    for (int checksums = 0; checksums <= 1; checksums++) {
        cf_error err;
        cf_io *io;
        CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
        cf_bloom_writer_options o;
        cf_bloom_writer_options_init(&o);
        o.bytes_per_block = 64;
        o.checksums = checksums;
        cf_bloom_writer *w;
        CF_ASSERT_OK(cf_bloom_writer_create(&w, io, &o, &err), &err);
        CF_ASSERT_OK(cf_bloom_writer_add(w, (cf_slice){key, 3}, &err), &err);
        CF_ASSERT_OK(cf_bloom_writer_finish(w, &err), &err);
        cf_bloom_writer_free(w);
        cf_slice file = cf_io_mem_contents(io);
        uint8_t *copy = malloc(file.len);
        /* The bloom block is the first block, right after the empty header: magic,
         * header length, empty header PB and, with checksums, the header CRC. */
        size_t blk = checksums ? 16 : 12;
        assert_int_equal(file.data[blk], 0x02);
        assert_int_equal(file.data[blk + 4], 0x08);

        static const struct {
            size_t off;
            uint8_t val;
        } muts[] = {{0, 0x50}, {0, 0xff}, {5, 0x00}, {5, 0x7f}, {4, 0x0f}, {1, 0x01}};
        for (size_t i = 0; i < sizeof muts / sizeof muts[0]; i++) {
            memcpy(copy, file.data, file.len);
            copy[blk + muts[i].off] = muts[i].val;
            cf_io *rio;
            CF_ASSERT_OK(cf_io_open_mem(&rio, copy, file.len, &err), &err);
            cf_bloom_reader *r;
            CF_ASSERT_OK(cf_bloom_reader_open(&r, rio, NULL, &err), &err);
            bool maybe = true;
            cf_status st = cf_bloom_reader_may_contain(r, (cf_slice){key, 3}, &maybe, &err);
            /* 0x7f hash functions is a valid header: then only the answer changes */
            if (!(muts[i].off == 5 && muts[i].val == 0x7f && !checksums)) {
                CF_ASSERT_STATUS(st, CF_ECORRUPT, &err);
                assert_false(maybe);
            }
            cf_bloom_reader_free(r);
            cf_io_free(rio);
        }
        /* every truncation fails cleanly, at open or at the probe */
        for (size_t cut = 0; cut < file.len; cut++) {
            cf_io *rio;
            CF_ASSERT_OK(cf_io_open_mem(&rio, file.data, cut, &err), &err);
            cf_bloom_reader *r;
            cf_status st = cf_bloom_reader_open(&r, rio, NULL, &err);
            assert_int_not_equal(st, CF_OK);
            cf_io_free(rio);
        }
        free(copy);
        cf_io_free(io);
    }
}

/* With a block cache, a probe checks each index and bloom block's checksum once
 * and leaves a mark, so later probes of the same blocks are cache hits (the
 * point lookups' bloom cost). A damaged block is never marked: every probe
 * that reads it fails, the first and the later ones. */
static void test_bloom__cache_marks_checked_blocks(void **state)
{
    (void)state;
    enum { N = 2000 };
    uint8_t store[N][8];
    cf_slice keys[N];
    for (size_t i = 0; i < N; i++) {
        cf_store_be64(store[i], 0x1000 + i * 7);
        keys[i] = (cf_slice){store[i], 8};
    }
    cf_bloom_sizing sz;
    cf_io *io = write_mem(keys, N, 64, 0.05, &sz); /* many small bloom blocks */
    cf_slice file = cf_io_mem_contents(io);
    cf_error err;
    for (int damaged = 0; damaged <= 1; damaged++) {
        uint8_t *copy = malloc(file.len);
        memcpy(copy, file.data, file.len);
        cf_io *rio;
        CF_ASSERT_OK(cf_io_open_mem(&rio, copy, file.len, &err), &err);
        cf_cache *c;
        CF_ASSERT_OK(cf_cache_create(&c, 1u << 20, &err), &err);
        cf_reader_options ro;
        cf_reader_options_init(&ro);
        ro.cache = c;
        cf_bloom_reader *r;
        CF_ASSERT_OK(cf_bloom_reader_open(&r, rio, &ro, &err), &err);
        if (damaged) /* a byte in the middle of the first bloom block's bits */
            copy[16 + 40] ^= 0x10;
        cf_cache_stats st0, st1, st2;
        cf_cache_get_stats(c, &st0);
        bool maybe = false;
        for (int round = 0; round < 2; round++) {
            cf_status st = cf_bloom_reader_may_contain(r, keys[0], &maybe, &err);
            if (damaged) {
                CF_ASSERT_STATUS(st, CF_ECORRUPT, &err);
                assert_non_null(strstr(err.msg, "checksum mismatch"));
            } else {
                CF_ASSERT_OK(st, &err);
                assert_true(maybe);
            }
            cf_cache_get_stats(c, round == 0 ? &st1 : &st2);
        }
        if (!damaged) {
            /* the first probe marked the blocks it read; the second only hit */
            assert_true(st1.entries > st0.entries);
            assert_int_equal(st2.entries, st1.entries);
            assert_int_equal(st2.misses, st1.misses);
            assert_true(st2.hits > st1.hits);
            for (size_t i = 0; i < N; i++)
                assert_true(probe(r, keys[i].data, keys[i].len));
        } else {
            /* the index blocks passed and were marked, the damaged block was not */
            assert_int_equal(st2.entries, st1.entries);
            assert_true(st2.misses > st1.misses);
        }
        cf_bloom_reader_free(r);
        cf_cache_free(c);
        cf_io_free(rio);
        free(copy);
    }
    cf_io_free(io);
}

/* Kudu's reader refuses a compressed file and one without a value index. */
static void test_bloom__refuses_non_bloom_cfiles(void **state)
{
    (void)state;
    cf_error err;
    for (int variant = 0; variant < 2; variant++) {
        cf_io *io;
        CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
        cf_writer_options wo;
        cf_writer_options_init(&wo, CF_TYPE_BINARY);
        wo.encoding = CF_ENC_PLAIN;
        wo.compression = variant == 0 ? CF_COMP_LZ4 : CF_COMP_NONE;
        wo.write_posidx = variant == 1;
        wo.write_validx = variant == 0;
        cf_writer *w;
        CF_ASSERT_OK(cf_writer_create(&w, io, &wo, &err), &err);
        if (variant == 0) {
            uint8_t blk[64 + 6] = {0x02, 0, 0, 0, 0x08, 0x03};
            CF_ASSERT_OK(cf_writer_append_raw_block(w, blk, sizeof blk,
                                                    (cf_slice){(const uint8_t *)"a", 1},
                                                    (cf_slice){(const uint8_t *)"a", 1}, &err),
                         &err);
        }
        CF_ASSERT_OK(cf_writer_finish(w, &err), &err);
        cf_writer_free(w);
        cf_slice file = cf_io_mem_contents(io);
        cf_io *rio;
        CF_ASSERT_OK(cf_io_open_mem(&rio, file.data, file.len, &err), &err);
        cf_bloom_reader *r = (cf_bloom_reader *)1;
        CF_ASSERT_STATUS(cf_bloom_reader_open(&r, rio, NULL, &err), CF_ENOTSUP, &err);
        assert_null(r);
        assert_non_null(strstr(err.msg, variant == 0 ? "compressed" : "value index"));
        cf_io_free(rio);
        cf_io_free(io);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bloom__sizing_matches_kudu),
        cmocka_unit_test(test_bloom__sizing_rejects_bad_options),
        cmocka_unit_test(test_bloom__header_bytes),
        cmocka_unit_test(test_bloom__probe_bits_of_int32_one),
        cmocka_unit_test(test_bloom__golden_100keys_4096b),
        cmocka_unit_test(test_bloom__golden_20000keys_512b_multiblock),
        cmocka_unit_test(test_bloom__ordinary_cfile_is_not_a_bloom_file),
        cmocka_unit_test(test_bloom__random_keys_round_trip),
        cmocka_unit_test(test_bloom__empty_file),
        cmocka_unit_test(test_bloom__fp_rate_default_sizing_1m_absent),
        cmocka_unit_test(test_bloom__fp_rate_one_percent_1m_absent),
        cmocka_unit_test(test_bloom__keys_out_of_order),
        cmocka_unit_test(test_bloom__block_header_errors),
        cmocka_unit_test(test_bloom__damaged_files),
        cmocka_unit_test(test_bloom__cache_marks_checked_blocks),
        cmocka_unit_test(test_bloom__refuses_non_bloom_cfiles),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* Fuzz the BloomFile reader and writer (src/bloom/, format §11):
 *
 *   input: [opt][rest]
 *   opt bit 0 = 0: `rest` is a whole file, opened as a BloomFile twice, through
 *                  the memory io (blocks probed in place) and through an io
 *                  without views (blocks copied); bit 1: verify checksums;
 *                  bits 2..7 seed the probe keys.
 *   opt bit 0 = 1: `rest` is a list of keys, [len % 40][bytes] each, sorted and
 *                  written with the writer (bits 1..3 pick the block size,
 *                  4..5 the fp rate, 6 checksums), then read back.
 *
 * Invariants: a clean error or a sane answer; the two io paths of one file give
 * the same answer for every key; a written file is a BloomFile that finds
 * every key it was given (a bloom filter has no false negatives), with one
 * block per expected_count keys (format §11.5). */
#include "fuzz.h"

#include <string.h>

#include <cfile/bloom.h>

enum { MAX_KEYS = 1024, MAX_KEY_LEN = 40, PROBES = 24 };

static cf_bloom_reader *open_bloom(cf_io *io, bool verify)
{
    cf_reader_options o;
    cf_reader_options_init(&o);
    o.verify_checksums = verify;
    cf_bloom_reader *b = NULL;
    cf_error err = {0};
    cf_status st = cf_bloom_reader_open(&b, io, &o, &err);
    if (st != CF_OK) {
        fuzz_require_clean_error(st, &err);
        FUZZ_REQUIRE(b == NULL);
        return NULL;
    }
    const cf_file_info *fi = cf_reader_info(cf_bloom_reader_cfile(b));
    /* open refuses what Kudu's reader refuses */
    FUZZ_REQUIRE(fi->has_validx);
    FUZZ_REQUIRE(fi->compression == CF_COMP_NONE || fi->compression == CF_COMP_DEFAULT);
    (void)cf_bloom_is_bloom_file(fi);
    return b;
}

/* Probe one key; returns 0 (absent), 1 (maybe present) or -1 (clean error). */
static int probe(const cf_bloom_reader *b, cf_slice key)
{
    bool maybe = true;
    cf_error err = {0};
    cf_status st = cf_bloom_reader_may_contain(b, key, &maybe, &err);
    if (st != CF_OK) {
        fuzz_require_clean_error(st, &err);
        return -1;
    }
    return maybe ? 1 : 0;
}

static void read_file(uint8_t opt, const uint8_t *p, size_t n)
{
    bool verify = (opt & 2) != 0;
    cf_io *mem = NULL, *raw = fuzz_io_noview(p, n);
    cf_error err = {0};
    FUZZ_REQUIRE(cf_io_open_mem(&mem, p, n, &err) == CF_OK);
    cf_bloom_reader *a = open_bloom(mem, verify);
    cf_bloom_reader *b = open_bloom(raw, verify);
    /* Both ios hold the same bytes: open decides the same way. */
    FUZZ_REQUIRE((a == NULL) == (b == NULL));
    if (a != NULL) {
        fuzz_rng rng = {(uint32_t)(opt >> 2) * 2654435761u + 7};
        for (int i = 0; i < PROBES; i++) {
            /* Slices of the file itself reach the index keys and page bytes; the
             * empty key sorts before everything. */
            size_t len = i == 0 ? 0 : fuzz_rng_below(&rng, MAX_KEY_LEN + 1);
            if (len > n)
                len = n;
            size_t off = fuzz_rng_below(&rng, n - len + 1);
            uint8_t *key = fuzz_dup(p + off, len);
            /* Slices mostly sort before a file's first key; a high first byte
             * reaches the blocks (of text keys, at least the last one). */
            if (i % 2 == 1 && len > 0)
                key[0] |= 0x80;
            cf_slice k = {key, len};
            int ra = probe(a, k);
            FUZZ_REQUIRE(probe(b, k) == ra);
            FUZZ_REQUIRE(probe(a, k) == ra); /* nothing is cached between probes */
            free(key);
        }
    }
    cf_bloom_reader_free(a);
    cf_bloom_reader_free(b);
    cf_io_free(mem);
    cf_io_free(raw);
}

typedef struct key {
    uint8_t len;
    const uint8_t *p;
} key;

static int key_cmp(const void *x, const void *y)
{
    const key *a = x, *b = y;
    int c = memcmp(a->p, b->p, a->len < b->len ? a->len : b->len);
    return c != 0 ? c : (int)a->len - (int)b->len;
}

static void round_trip(uint8_t opt, const uint8_t *p, size_t n)
{
    static key keys[MAX_KEYS];
    size_t nk = 0;
    for (size_t i = 0; i < n && nk < MAX_KEYS;) {
        size_t len = p[i++] % MAX_KEY_LEN;
        if (len > n - i)
            len = n - i;
        keys[nk++] = (key){(uint8_t)len, p + i};
        i += len;
    }
    qsort(keys, nk, sizeof *keys, key_cmp);

    static const size_t block_bytes[8] = {1, 8, 32, 64, 100, 256, 512, 4096};
    static const double fp_rates[4] = {0.5, 0.1, 0.01, CF_BLOOM_DEFAULT_FP_RATE};
    cf_bloom_writer_options wo;
    cf_bloom_writer_options_init(&wo);
    wo.bytes_per_block = block_bytes[(opt >> 1) & 7];
    wo.fp_rate = fp_rates[(opt >> 4) & 3];
    wo.checksums = (opt & 64) != 0;

    cf_error err = {0};
    cf_io *out = NULL;
    FUZZ_REQUIRE(cf_io_create_mem(&out, &err) == CF_OK);
    cf_bloom_writer *w = NULL;
    cf_status st = cf_bloom_writer_create(&w, out, &wo, &err);
    if (st != CF_OK) { /* some tiny sizings are refused: a clean EINVAL */
        FUZZ_REQUIRE_MSG(st == CF_EINVAL, &err);
        cf_io_free(out);
        return;
    }
    for (size_t i = 0; i < nk; i++)
        FUZZ_REQUIRE_MSG(cf_bloom_writer_add(w, (cf_slice){keys[i].p, keys[i].len}, &err) == CF_OK,
                         &err);
    FUZZ_REQUIRE_MSG(cf_bloom_writer_finish(w, &err) == CF_OK, &err);
    size_t per = cf_bloom_writer_sizing(w)->expected_count;
    FUZZ_REQUIRE(per > 0);
    FUZZ_REQUIRE(cf_bloom_writer_num_keys(w) == nk);
    FUZZ_REQUIRE(cf_bloom_writer_num_blocks(w) == (nk + per - 1) / per);
    cf_slice file = cf_io_mem_contents(out);
    FUZZ_REQUIRE(cf_bloom_writer_written_size(w) == file.len);
    cf_bloom_writer_free(w);

    uint8_t *copy = fuzz_dup(file.data, file.len);
    cf_io_free(out);
    cf_io *in = NULL;
    FUZZ_REQUIRE(cf_io_open_mem(&in, copy, file.len, &err) == CF_OK);
    cf_reader_options ro;
    cf_reader_options_init(&ro);
    cf_bloom_reader *r = NULL;
    FUZZ_REQUIRE_MSG(cf_bloom_reader_open(&r, in, &ro, &err) == CF_OK, &err);
    FUZZ_REQUIRE(cf_bloom_is_bloom_file(cf_reader_info(cf_bloom_reader_cfile(r))));
    for (size_t i = 0; i < nk; i++) {
        bool maybe = false;
        FUZZ_REQUIRE_MSG(cf_bloom_reader_may_contain(r, (cf_slice){keys[i].p, keys[i].len}, &maybe,
                                                     &err) == CF_OK,
                         &err);
        FUZZ_REQUIRE(maybe); /* no false negatives */
    }
    cf_bloom_reader_free(r);
    cf_io_free(in);
    /* The written bytes also go through the reader-side checks. */
    read_file((uint8_t)(opt & 0xfc) | 2, copy, file.len);
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_read_or_round_trip(data, size, read_file, round_trip);
}

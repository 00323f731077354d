/* Nullable scans (issue 17 item 3: values spread into place around the
 * NULLs, PLAIN straight from the block, DICT codewords looked up into their
 * rows, the 8-byte-store bitmap decoder) against the written rows, for every
 * path a scan can take: cf_iter_copy_batch and cf_iter_next_batch with batch
 * sizes that cut blocks anywhere, seeks by ordinal into the middle of blocks
 * followed by both, with and without a block cache (the cached block's null
 * state and decoded codewords are adopted on later loads), over PLAIN (1-,
 * 2-, 4-, 8- and 16-byte values), BIT_SHUFFLE, RLE, DICT (codeword and
 * plain-fallback blocks) and PLAIN/PREFIX strings, at NULL densities from
 * none to all. A NULL row must read as zeros (an empty slice). */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include <cfile/cfile.h>

typedef struct column {
    cf_type type;
    cf_encoding enc;
    size_t es;
    size_t n;
    uint8_t *vals;  /* row-aligned, zeros at NULL rows */
    uint8_t *nn;    /* written flags */
    char *strbytes; /* string values' bytes */
    uint8_t *file;
    size_t file_len;
} column;

static bool row_present(const column *c, size_t i)
{
    return c->nn[i / 8] >> (i % 8) & 1;
}

static void make_column(column *c, cf_rng *r, cf_type type, cf_encoding enc, size_t n,
                        unsigned null_pct, uint32_t block_size, unsigned vocab)
{
    memset(c, 0, sizeof *c);
    c->type = type;
    c->enc = enc;
    c->es = cf_type_size(type);
    c->n = n;
    c->vals = calloc(n + 1, c->es);
    c->nn = calloc(n / 8 + 1, 1);
    bool binary = cf_type_is_binary(type);
    if (binary)
        c->strbytes = malloc((size_t)vocab * 16 + 1);
    for (unsigned w = 0; binary && w < vocab; w++)
        for (unsigned b = 0; b < 16; b++)
            c->strbytes[w * 16 + b] = (char)('a' + cf_rng_below(r, 26));
    uint64_t run_v = 0;
    for (size_t i = 0; i < n; i++) {
        if (cf_rng_below(r, 100) < null_pct)
            continue;
        c->nn[i / 8] |= (uint8_t)(1u << (i % 8));
        if (binary) {
            unsigned w = (unsigned)cf_rng_below(r, vocab);
            cf_slice s = {(const uint8_t *)c->strbytes + w * 16, 1 + w % 15};
            memcpy(c->vals + i * c->es, &s, sizeof s);
        } else {
            /* runs for RLE, random bytes (never all zero) for the rest */
            if (enc != CF_ENC_RLE || cf_rng_below(r, 8) == 0)
                run_v = cf_rng_next(r) | 1;
            uint8_t b[16];
            for (size_t k = 0; k < 16; k++)
                b[k] = (uint8_t)(run_v >> (8 * (k % 8)));
            if (type == CF_TYPE_BOOL)
                b[0] = (uint8_t)(run_v >> 3 & 1);
            memcpy(c->vals + i * c->es, b, c->es);
        }
    }
    cf_writer_options o;
    cf_writer_options_init(&o, type);
    o.encoding = enc;
    o.nullable = true;
    o.block_size = block_size;
    cf_error err = {0};
    cf_io *io;
    CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
    cf_writer *w;
    CF_ASSERT_OK(cf_writer_create(&w, io, &o, &err), &err);
    uint8_t *bm = calloc(n / 8 + 2, 1);
    for (size_t i = 0; i < n;) {
        size_t k = 1 + (size_t)cf_rng_below(r, 3000);
        if (k > n - i)
            k = n - i;
        memset(bm, 0, k / 8 + 1);
        for (size_t j = 0; j < k; j++)
            if (row_present(c, i + j))
                bm[j / 8] |= (uint8_t)(1u << (j % 8));
        CF_ASSERT_OK(cf_writer_append(w, c->vals + i * c->es, bm, k, &err), &err);
        i += k;
    }
    CF_ASSERT_OK(cf_writer_finish(w, &err), &err);
    cf_writer_free(w);
    free(bm);
    cf_slice s = cf_io_mem_contents(io);
    c->file = malloc(s.len);
    memcpy(c->file, s.data, s.len);
    c->file_len = s.len;
    cf_io_free(io);
}

static void free_column(column *c)
{
    free(c->vals);
    free(c->nn);
    free(c->strbytes);
    free(c->file);
}

/* Rows [ord, ord + cnt) as read (vals row-aligned, flags nn) against the column. */
static void check_rows(const column *c, size_t ord, size_t cnt, const uint8_t *vals,
                       const uint8_t *nn, const char *what)
{
    for (size_t i = 0; i < cnt; i++) {
        size_t row = ord + i;
        bool want = row_present(c, row);
        bool got = nn[i / 8] >> (i % 8) & 1;
        if (got != want)
            fail_msg("%s: row %zu: flag %d, wrote %d", what, row, got, want);
        const uint8_t *g = vals + i * c->es;
        if (cf_type_is_binary(c->type)) {
            cf_slice gs, ws;
            memcpy(&gs, g, sizeof gs);
            memcpy(&ws, c->vals + row * c->es, sizeof ws);
            if (!want && (gs.len != 0 || gs.data != NULL))
                fail_msg("%s: NULL row %zu is not an empty slice", what, row);
            if (want && (gs.len != ws.len || memcmp(gs.data, ws.data, ws.len) != 0))
                fail_msg("%s: row %zu differs", what, row);
        } else if (memcmp(g, c->vals + row * c->es, c->es) != 0) {
            fail_msg("%s: row %zu differs (%s)", what, row, want ? "value" : "NULL not zero");
        }
    }
}

/* Read from ordinal `from` to the end in batches of random sizes, alternating
 * copy_batch and next_batch at random; *left: how many batches until a new
 * seek (then the read stops). */
static void read_from(const column *c, cf_iter *it, cf_rng *r, size_t from, size_t max_batches,
                      uint8_t *vals, uint8_t *nn)
{
    cf_error err = {0};
    size_t row = from;
    for (size_t b = 0; b < max_batches; b++) {
        size_t cap = 1 + (size_t)cf_rng_below(r, cf_rng_below(r, 4) == 0 ? 3000 : 70);
        size_t got;
        if (cf_rng_below(r, 2)) {
            memset(vals, 0xa5, cap * c->es);
            memset(nn, 0xa5, cap / 8 + 1);
            CF_ASSERT_OK(cf_iter_copy_batch(it, vals, nn, cap, &got, &err), &err);
            check_rows(c, row, got, vals, nn, "copy_batch");
        } else {
            cf_batch bt;
            CF_ASSERT_OK(cf_iter_next_batch(it, cap, &bt, &err), &err);
            got = bt.count;
            assert_int_equal(bt.first_ord, row);
            if (got)
                check_rows(c, row, got, bt.values, bt.nonnull, "next_batch");
        }
        if (got == 0) {
            assert_int_equal(row, c->n);
            return;
        }
        row += got;
    }
}

static void scan_column(const column *c, cf_rng *r, bool cached)
{
    cf_error err = {0};
    cf_cache *cache = NULL;
    if (cached)
        CF_ASSERT_OK(cf_cache_create(&cache, 64u << 20, &err), &err);
    cf_reader_options ro;
    cf_reader_options_init(&ro);
    ro.cache = cache;
    cf_io *io;
    CF_ASSERT_OK(cf_io_open_mem(&io, c->file, c->file_len, &err), &err);
    cf_reader *rd;
    CF_ASSERT_OK(cf_reader_open(&rd, io, &ro, &err), &err);
    uint8_t *vals = malloc(3000 * 16 + 16), *nn = malloc(3000 / 8 + 2);
    for (int pass = 0; pass < (cached ? 2 : 1); pass++) { /* cached: cold, then adopted */
        cf_iter *it;
        CF_ASSERT_OK(cf_iter_create(&it, rd, &err), &err);
        read_from(c, it, r, 0, SIZE_MAX, vals, nn);
        for (int s = 0; s < 25 && c->n > 0; s++) {
            size_t ord = (size_t)cf_rng_below(r, c->n);
            CF_ASSERT_OK(cf_iter_seek_to_ordinal(it, ord, &err), &err);
            read_from(c, it, r, ord, 1 + (size_t)cf_rng_below(r, 4), vals, nn);
        }
        cf_iter_free(it);
    }
    free(vals);
    free(nn);
    cf_reader_free(rd);
    cf_io_free(io);
    cf_cache_free(cache);
}

static void test_nullable_scan__every_encoding_and_density(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0x4e55));
    static const struct {
        cf_type type;
        cf_encoding enc;
    } cols[] = {
        {CF_TYPE_INT8, CF_ENC_PLAIN},        {CF_TYPE_INT16, CF_ENC_PLAIN},
        {CF_TYPE_INT32, CF_ENC_PLAIN},       {CF_TYPE_INT64, CF_ENC_PLAIN},
        {CF_TYPE_INT128, CF_ENC_PLAIN},      {CF_TYPE_DOUBLE, CF_ENC_PLAIN},
        {CF_TYPE_INT32, CF_ENC_BIT_SHUFFLE}, {CF_TYPE_INT64, CF_ENC_BIT_SHUFFLE},
        {CF_TYPE_INT32, CF_ENC_RLE},         {CF_TYPE_BOOL, CF_ENC_RLE},
        {CF_TYPE_STRING, CF_ENC_DICT},       {CF_TYPE_BINARY, CF_ENC_PLAIN},
        {CF_TYPE_STRING, CF_ENC_PREFIX},
    };
    static const unsigned pcts[] = {0, 1, 10, 50, 90, 100};
    for (size_t ci = 0; ci < sizeof cols / sizeof cols[0]; ci++) {
        for (size_t pi = 0; pi < sizeof pcts / sizeof pcts[0]; pi++) {
            /* small blocks: many boundaries; DICT with a large vocabulary
             * also falls back to plain-string blocks part way */
            uint32_t bs = pi % 2 ? 512 : 4096;
            size_t n = 2000 + (size_t)cf_rng_below(&r, 9000);
            unsigned vocab = cols[ci].enc == CF_ENC_DICT && pi >= 3 ? 4000 : 60;
            column c;
            make_column(&c, &r, cols[ci].type, cols[ci].enc, n, pcts[pi], bs, vocab);
            scan_column(&c, &r, false);
            scan_column(&c, &r, true);
            free_column(&c);
        }
    }
}

/* One 256 KiB block per column (Kudu's default), so the batches land
 * inside one large block and the 64-row steps run; 0-100% NULLs. */
static void test_nullable_scan__large_blocks(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0x4e56));
    static const cf_encoding encs[] = {CF_ENC_PLAIN, CF_ENC_BIT_SHUFFLE, CF_ENC_RLE};
    static const cf_type types[] = {CF_TYPE_INT32, CF_TYPE_INT64};
    for (size_t e = 0; e < 3; e++)
        for (size_t t = 0; t < 2; t++)
            for (unsigned pct = 0; pct <= 100; pct += 25) {
                column c;
                make_column(&c, &r, types[t], encs[e], 40000, pct, 262144, 0);
                scan_column(&c, &r, e == 0 ? pct % 50 == 0 : pct == 25);
                free_column(&c);
            }
    for (unsigned pct = 0; pct <= 100; pct += 10) {
        column c;
        make_column(&c, &r, CF_TYPE_STRING, CF_ENC_DICT, 30000, pct, 262144, 300);
        scan_column(&c, &r, pct % 20 == 0);
        free_column(&c);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nullable_scan__every_encoding_and_density),
        cmocka_unit_test(test_nullable_scan__large_blocks),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* The table-driven round-trip harness: every type x every encoding it allows x
 * null patterns x data shapes x block sizes x index block sizes x append batch
 * sizes x codecs, written to memory and read back through the public API:
 * full scans in random batch sizes, random ordinal seeks, value seeks on sorted
 * files, and cf_reader_verify. The configurations are drawn from a fixed,
 * printed seed (CF_TEST_SEED replays one); a few edge configurations are
 * always run (0 rows, 1 row, 100,000 rows, strings longer than a block). */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/cfile.h>

#include "encoding/encoding.h"
#include "all_types.h"

typedef enum shape { RANDOM, ONE_VALUE, ALTERNATING, EXTREMES, SORTED, NSHAPES } shape;
typedef enum nulls { NOT_NULLABLE, NONE_NULL, ALL_NULL, SOME_NULL, NULL_RUNS, NNULLS } nulls;

typedef struct config {
    cf_type type;
    cf_encoding enc;
    cf_compression comp;
    shape shape;
    nulls nulls;
    size_t rows;
    uint32_t block_size, index_block_size;
    size_t batch; /* 0 = all in one call */
    bool validx;
    bool long_strings;
} config;

typedef struct column {
    uint8_t *vals; /* row-aligned memory form */
    uint8_t *nonnull;
    uint8_t *arena; /* string bytes */
    size_t es;
} column;

static void describe(const config *c, char *buf, size_t n)
{
    snprintf(buf, n,
             "type=%s enc=%s comp=%s shape=%d nulls=%d rows=%zu block=%u idx=%u batch=%zu "
             "validx=%d long=%d",
             cf_type_name(c->type), cf_encoding_name(c->enc), cf_compression_name(c->comp),
             c->shape, c->nulls, c->rows, c->block_size, c->index_block_size, c->batch, c->validx,
             c->long_strings);
}

/* One value of a fixed-width type from 64 random bits, shaped. */
static void fixed_value(const config *c, cf_rng *r, size_t i, uint8_t *out, size_t es)
{
    uint64_t bits[2] = {cf_rng_next(r), cf_rng_next(r)};
    switch (c->shape) {
    case ONE_VALUE: bits[0] = 0x1234567890abcdefull, bits[1] = 7; break;
    case ALTERNATING: bits[0] = i & 1 ? ~0ull : 1, bits[1] = i & 1 ? ~0ull : 0; break;
    case EXTREMES: {
        /* the type's minimum and maximum in memory form, for signed and unsigned */
        int k = (int)(cf_rng_below(r, 4));
        memset(bits, k & 1 ? 0xff : 0x00, sizeof bits);
        if (k >= 2)
            ((uint8_t *)bits)[es - 1] ^= 0x80;
        break;
    }
    case SORTED: bits[0] = (uint64_t)i * 3 + 1, bits[1] = 0; break;
    default: break;
    }
    memcpy(out, bits, es);
    if (c->shape == SORTED && es < 8) {
        /* keep the sequence increasing in the type's order: stay in range, positive */
        uint64_t lim = es == 1 ? 100 : es == 2 ? 30000 : 2000000000;
        uint64_t v = lim * i / (c->rows ? c->rows : 1);
        memcpy(out, &v, es);
    }
    if (c->type == CF_TYPE_BOOL)
        out[0] &= 1; /* memory form of BOOL is 0 or 1 */
}

static void make_column(const config *c, cf_rng *r, column *col)
{
    size_t n = c->rows, es = cf_type_size(c->type);
    col->es = es;
    col->vals = calloc(n ? n : 1, es);
    col->nonnull = calloc(n / 8 + 1, 1);
    bool binary = cf_type_is_binary(c->type);
    size_t max_len = c->long_strings ? c->block_size * 2 + 100 : 40;
    size_t arena_cap = binary ? n * (max_len + 16) + 1 : 1;
    if (c->long_strings)
        arena_cap = n * (max_len + 16) + 1; /* long_strings uses few rows */
    col->arena = malloc(arena_cap);
    size_t used = 0;
    bool in_run = false;
    for (size_t i = 0; i < n; i++) {
        bool present;
        switch (c->nulls) {
        case ALL_NULL: present = false; break;
        case SOME_NULL: present = cf_rng_below(r, 10) >= 3; break;
        case NULL_RUNS:
            if (cf_rng_below(r, 50) == 0)
                in_run = !in_run;
            present = !in_run;
            break;
        default: present = true;
        }
        if (present)
            col->nonnull[i / 8] |= (uint8_t)(1u << (i % 8));
        uint8_t *slot = col->vals + i * es;
        if (!binary) {
            fixed_value(c, r, i, slot, es);
            continue;
        }
        size_t len;
        uint8_t *p = col->arena + used;
        switch (c->shape) {
        case ONE_VALUE: len = (size_t)snprintf((char *)p, 32, "same value"); break;
        case ALTERNATING: len = i & 1 ? 0 : 3, memcpy(p, "a\0b", 3); break;
        case SORTED: len = (size_t)snprintf((char *)p, 32, "key-%010zu", i); break;
        case EXTREMES: len = cf_rng_below(r, 2) ? 0 : 1, p[0] = 0xff; break;
        default:
            len = c->long_strings ? c->block_size + cf_rng_below(r, max_len - c->block_size)
                                  : cf_rng_below(r, max_len);
            for (size_t k = 0; k < len; k++)
                p[k] = (uint8_t)(cf_rng_below(r, 4) ? 'a' + cf_rng_below(r, 3) : cf_rng_next(r));
        }
        cf_slice s = {p, len};
        memcpy(slot, &s, sizeof s);
        used += len;
    }
}

static void free_column(column *col)
{
    free(col->vals);
    free(col->nonnull);
    free(col->arena);
}

static bool get_bit(const uint8_t *bm, size_t i)
{
    return bm[i / 8] >> (i % 8) & 1;
}

static bool value_eq(const config *c, const void *a, const void *b, size_t es)
{
    if (!cf_type_is_binary(c->type))
        return memcmp(a, b, es) == 0;
    cf_slice x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    return x.len == y.len && (x.len == 0 || memcmp(x.data, y.data, x.len) == 0);
}

static void run_config(const config *c, cf_rng *r)
{
    char desc[256];
    describe(c, desc, sizeof desc);
    column col;
    make_column(c, r, &col);
    size_t n = c->rows, es = col.es;
    bool nullable = c->nulls != NOT_NULLABLE;

    cf_writer_options o;
    cf_writer_options_init(&o, c->type);
    o.encoding = c->enc;
    o.compression = c->comp;
    o.nullable = nullable;
    o.block_size = c->block_size;
    o.index_block_size = c->index_block_size;
    o.write_validx = c->validx;
    cf_error err;
    cf_io *wio;
    CF_ASSERT_OK(cf_io_create_mem(&wio, &err), &err);
    cf_writer *w;
    cf_status st = cf_writer_create(&w, wio, &o, &err);
    if (st != CF_OK)
        fail_msg("%s: create: %s", desc, err.msg);
    size_t batch = c->batch ? c->batch : (n ? n : 1);
    uint8_t *bm = calloc(batch / 8 + 2, 1);
    for (size_t i = 0; i < n; i += batch) {
        size_t k = n - i < batch ? n - i : batch;
        memset(bm, 0, batch / 8 + 2);
        for (size_t j = 0; j < k; j++)
            if (get_bit(col.nonnull, i + j))
                bm[j / 8] |= (uint8_t)(1u << (j % 8));
        st = cf_writer_append(w, col.vals + i * es, nullable ? bm : NULL, k, &err);
        if (st != CF_OK)
            fail_msg("%s: append at %zu: %s", desc, i, err.msg);
    }
    free(bm);
    st = cf_writer_finish(w, &err);
    if (st != CF_OK)
        fail_msg("%s: finish: %s", desc, err.msg);
    cf_slice file = cf_io_mem_contents(wio);

    cf_io *rio;
    CF_ASSERT_OK(cf_io_open_mem(&rio, file.data, file.len, &err), &err);
    cf_reader *rd;
    st = cf_reader_open(&rd, rio, NULL, &err);
    if (st != CF_OK)
        fail_msg("%s: open: %s", desc, err.msg);
    const cf_file_info *fi = cf_reader_info(rd);
    assert_int_equal(fi->num_values, n);
    assert_int_equal(fi->encoding, cf_encoding_resolve(c->type, c->enc));
    assert_int_equal(fi->nullable, nullable);
    st = cf_reader_verify(rd, NULL, NULL, NULL, &err);
    if (st != CF_OK)
        fail_msg("%s: verify: %s", desc, err.msg);

    cf_iter *it;
    CF_ASSERT_OK(cf_iter_create(&it, rd, &err), &err);
    size_t row = 0;
    for (;;) {
        cf_batch b;
        st = cf_iter_next_batch(it, 1 + cf_rng_below(r, 3000), &b, &err);
        if (st != CF_OK)
            fail_msg("%s: scan at %zu: %s", desc, row, err.msg);
        if (b.count == 0)
            break;
        if (b.first_ord != row)
            fail_msg("%s: batch starts at %llu, expected %zu", desc,
                     (unsigned long long)b.first_ord, row);
        for (size_t i = 0; i < b.count; i++, row++) {
            bool want = get_bit(col.nonnull, row);
            bool got = b.nonnull ? get_bit(b.nonnull, i) : true;
            if (got != want)
                fail_msg("%s: row %zu null flag %d, want %d", desc, row, got, want);
            if (want && !value_eq(c, (const uint8_t *)b.values + i * es, col.vals + row * es, es))
                fail_msg("%s: row %zu differs", desc, row);
        }
    }
    if (row != n)
        fail_msg("%s: scanned %zu rows of %zu", desc, row, n);

    for (int k = 0; n > 0 && k < 40; k++) {
        size_t ord = cf_rng_below(r, n);
        st = cf_iter_seek_to_ordinal(it, ord, &err);
        if (st != CF_OK)
            fail_msg("%s: seek %zu: %s", desc, ord, err.msg);
        cf_batch b;
        CF_ASSERT_OK(cf_iter_next_batch(it, 1 + cf_rng_below(r, 5), &b, &err), &err);
        assert_int_equal(b.first_ord, ord);
        bool want = get_bit(col.nonnull, ord);
        if (nullable)
            assert_int_equal(get_bit(b.nonnull, 0), want);
        if (want && !value_eq(c, b.values, col.vals + ord * es, es))
            fail_msg("%s: value after seek to %zu differs", desc, ord);
    }
    CF_ASSERT_STATUS(cf_iter_seek_to_ordinal(it, n, &err), CF_ENOTFOUND, &err);

    if (c->validx && n > 0) {
        for (int k = 0; k < 40; k++) {
            size_t ord = cf_rng_below(r, n);
            bool exact = false;
            st = cf_iter_seek_at_or_after(it, col.vals + ord * es, &exact, &err);
            if (st != CF_OK)
                fail_msg("%s: value seek to row %zu: %s", desc, ord, err.msg);
            /* sorted but possibly repeated values: land on the first equal row */
            uint64_t at = cf_iter_current_ordinal(it);
            if (!exact || at > ord || !value_eq(c, col.vals + at * es, col.vals + ord * es, es))
                fail_msg("%s: value seek to row %zu landed at %llu exact=%d", desc, ord,
                         (unsigned long long)at, exact);
        }
    }
    cf_iter_free(it);
    cf_reader_free(rd);
    cf_io_free(rio);
    cf_writer_free(w);
    cf_io_free(wio);
    free_column(&col);
}

static cf_encoding pick_encoding(cf_rng *r, cf_type t)
{
    cf_encoding all[] = {CF_ENC_AUTO, CF_ENC_PLAIN, CF_ENC_PREFIX,
                         CF_ENC_RLE,  CF_ENC_DICT,  CF_ENC_BIT_SHUFFLE};
    for (;;) {
        cf_encoding e = all[cf_rng_below(r, 6)];
        if (e == CF_ENC_AUTO || cf_type_allows_encoding(t, e))
            return e;
    }
}

static void random_config(cf_rng *r, config *c)
{
    static const uint32_t blocks[] = {512, 700, 4096, 262144};
    static const uint32_t idx[] = {64, 200, 32768};
    static const size_t batches[] = {1, 37, 100, 0};
    memset(c, 0, sizeof *c);
    c->type = cf_all_types[cf_rng_below(r, CF_NTYPES)];
    c->enc = pick_encoding(r, c->type);
    c->comp = (cf_compression)(CF_COMP_NONE + cf_rng_below(r, 4));
    c->shape = (shape)cf_rng_below(r, NSHAPES);
    c->nulls = (nulls)cf_rng_below(r, NNULLS);
    c->rows = cf_rng_below(r, 4) == 0 ? cf_rng_below(r, 3) : 1 + cf_rng_below(r, 6000);
    c->block_size = blocks[cf_rng_below(r, 4)];
    c->index_block_size = idx[cf_rng_below(r, 3)];
    c->batch = batches[cf_rng_below(r, 4)];
    if (c->batch == 1 && c->rows > 1500)
        c->rows = 1500; /* one call per row is slow; the shape is what matters */
    bool orderable =
        c->type != CF_TYPE_BOOL && c->type != CF_TYPE_FLOAT && c->type != CF_TYPE_DOUBLE;
    if (c->shape == SORTED && orderable && c->nulls == NOT_NULLABLE)
        c->validx = cf_rng_below(r, 2);
}

static void test_roundtrip__random_configurations(void **state)
{
    (void)state;
    cf_rng r;
    uint64_t seed = cf_test_seed(20261120);
    cf_rng_init(&r, seed);
    int runs = getenv("CF_TEST_SLOW") ? 3000 : 500;
    for (int i = 0; i < runs; i++) {
        config c;
        random_config(&r, &c);
        run_config(&c, &r);
    }
}

/* Every type with every encoding it allows, non-null and nullable, once. */
static void test_roundtrip__every_type_and_encoding(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(20261120) + 1);
    cf_encoding encs[] = {CF_ENC_AUTO, CF_ENC_PLAIN, CF_ENC_PREFIX,
                          CF_ENC_RLE,  CF_ENC_DICT,  CF_ENC_BIT_SHUFFLE};
    for (size_t t = 0; t < CF_NTYPES; t++)
        for (size_t e = 0; e < 6; e++) {
            if (encs[e] != CF_ENC_AUTO && !cf_type_allows_encoding(cf_all_types[t], encs[e]))
                continue;
            for (int nl = 0; nl < 2; nl++) {
                config c = {cf_all_types[t],
                            encs[e],
                            CF_COMP_NONE,
                            RANDOM,
                            nl ? SOME_NULL : NOT_NULLABLE,
                            2000,
                            1024,
                            128,
                            100,
                            false,
                            false};
                run_config(&c, &r);
            }
        }
}

static void test_roundtrip__edges(void **state)
{
    (void)state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(20261120) + 2);
    for (size_t t = 0; t < CF_NTYPES; t++) {
        for (size_t rows = 0; rows <= 1; rows++) {
            config c = {cf_all_types[t], CF_ENC_AUTO, CF_COMP_NONE, RANDOM, NOT_NULLABLE, rows, 512,
                        32768,           100,         false,        false};
            run_config(&c, &r);
            c.nulls = SOME_NULL;
            run_config(&c, &r);
        }
    }
    /* 100,000 rows, default sizes, one call. */
    config big = {CF_TYPE_INT64, CF_ENC_AUTO, CF_COMP_NONE, SORTED, NOT_NULLABLE, 100000, 0, 0, 0,
                  true,          false};
    run_config(&big, &r);
    big.type = CF_TYPE_STRING;
    run_config(&big, &r);
    /* Strings longer than a block, every binary encoding, with and without codecs. */
    cf_encoding encs[] = {CF_ENC_PLAIN, CF_ENC_PREFIX, CF_ENC_DICT};
    for (int e = 0; e < 3; e++)
        for (int comp = CF_COMP_NONE; comp <= CF_COMP_ZLIB; comp++) {
            config c = {
                CF_TYPE_BINARY, encs[e], (cf_compression)comp, RANDOM, SOME_NULL, 30, 512, 32768, 7,
                false,          true};
            run_config(&c, &r);
        }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip__every_type_and_encoding),
        cmocka_unit_test(test_roundtrip__edges),
        cmocka_unit_test(test_roundtrip__random_configurations),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

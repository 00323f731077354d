/* Block filters and cf_iter_block_at (iter.h): per data block, its ordinal range
 * and whether its encoding proves that no row passes a value test. Checked
 * against a model of the rows: DICT codeword and RLE blocks answer exactly,
 * all-NULL blocks never match, other encodings always say "may", the iterator
 * stays at the row asked for, and the test runs once per dictionary entry
 * (DICT) or about once per run (RLE), not once per row. */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/cfile.h>

#include "support_opts.h"

#define NROWS 20000u

typedef struct file {
    cf_io *wio, *rio;
    cf_reader *r;
} file;

/* Write n values (memory form) with these options, then open a reader on them. */
static void make_file(file *f, cf_writer_options *o, const void *vals, const uint8_t *nonnull,
                      size_t n)
{
    cf_error e = {0};
    CF_ASSERT_OK(cf_io_create_mem(&f->wio, &e), &e);
    cf_writer *w;
    CF_ASSERT_OK(cf_writer_create(&w, f->wio, o, &e), &e);
    size_t es = cf_type_size(o->type);
    /* In 100-row calls: RLE and PLAIN blocks end only between calls. */
    for (size_t i = 0; i < n; i += 100)
        CF_ASSERT_OK(cf_writer_append(w, (const uint8_t *)vals + i * es,
                                      nonnull ? nonnull + i / 8 : NULL, n - i < 100 ? n - i : 100,
                                      &e),
                     &e);
    CF_ASSERT_OK(cf_writer_finish(w, &e), &e);
    cf_writer_free(w);
    cf_slice c = cf_io_mem_contents(f->wio);
    CF_ASSERT_OK(cf_io_open_mem(&f->rio, c.data, c.len, &e), &e);
    CF_ASSERT_OK(cf_reader_open(&f->r, f->rio, NULL, &e), &e);
}

static void close_file(file *f)
{
    cf_reader_free(f->r);
    cf_io_free(f->rio);
    cf_io_free(f->wio);
}

/* ---- tests on values ------------------------------------------------------------------- */

/* The rows of the file under test, in memory form (NROWS values of g_type):
 * what the value test is checked against, row by row. */
static cf_type g_type;
static const void *g_rows;

static const void *row_value(size_t row)
{
    return (const uint8_t *)g_rows + row * cf_type_size(g_type);
}

/* Two memory-form values of g_type are equal (slices by their bytes). */
static bool same_value(const void *a, const void *b)
{
    if (!cf_type_is_binary(g_type))
        return memcmp(a, b, cf_type_size(g_type)) == 0;
    cf_slice x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    return x.len == y.len && (x.len == 0 || memcmp(x.data, y.data, x.len) == 0);
}

/* The value test: equal to *want; it counts its calls. */
typedef struct eq_test {
    const void *want;
    size_t calls;
} eq_test;

static bool test_eq(void *ctx, const void *value)
{
    eq_test *t = ctx;
    t->calls++;
    return same_value(value, t->want);
}

static bool test_any(void *ctx, const void *value)
{
    (void)ctx;
    (void)value;
    return true;
}

/* Walk every block with cf_iter_block_at from `start` rows in; for each, check
 * the range tiles the file, that the iterator still reads row `ord` next, and
 * compare may_match with truth[block] computed by `pass` over the rows. */
typedef bool (*row_pass_fn)(size_t row, void *ctx);
/* Read the iterator's next row and check that it is row `ord`'s value. */
typedef void (*row_check_fn)(cf_iter *it, uint64_t ord);
static row_check_fn g_check;

/* The truth for an eq_test: row `row` of the model equals its value. */
static bool row_eq(size_t row, void *ctx)
{
    return same_value(row_value(row), ((eq_test *)ctx)->want);
}

static void row_check(cf_iter *it, uint64_t ord);

/* The model's rows (rows: NROWS values of o->type) written with options o and
 * opened, the walks checking the rows they land on against them. */
static void model_file(file *f, cf_writer_options *o, const void *rows)
{
    make_file(f, o, rows, NULL, NROWS);
    g_type = o->type;
    g_rows = rows;
    g_check = row_check;
}

static void row_check(cf_iter *it, uint64_t ord)
{
    cf_error e = {0};
    uint8_t x[16]; /* any value's memory form */
    size_t got;
    CF_ASSERT_OK(cf_iter_copy_batch(it, x, NULL, 1, &got, &e), &e);
    assert_int_equal(got, 1);
    assert_true(same_value(x, row_value(ord)));
}

static size_t walk(const file *f, const cf_block_filter *flt, row_pass_fn pass, void *pctx,
                   bool exact, size_t *skipped)
{
    cf_error e = {0};
    cf_iter *it;
    CF_ASSERT_OK(cf_iter_create(&it, f->r, &e), &e);
    uint64_t ord = 0;
    size_t blocks = 0;
    *skipped = 0;
    while (ord < NROWS) {
        /* Ask from the middle of the block the first time round. */
        uint64_t at = blocks == 1 ? ord + 1 : ord;
        cf_block_info bi;
        CF_ASSERT_OK(cf_iter_block_at(it, at, flt, &bi, &e), &e);
        assert_int_equal(bi.first_ord, ord);
        assert_true(bi.rows > 0 && bi.first_ord + bi.rows <= NROWS);
        assert_int_equal(cf_iter_current_ordinal(it), at);
        if (g_check != NULL) {
            g_check(it, at); /* the block test left the decoder where the seek put it */
            /* Also from the block's last row. */
            uint64_t last = bi.first_ord + bi.rows - 1;
            cf_block_info b2;
            CF_ASSERT_OK(cf_iter_block_at(it, last, flt, &b2, &e), &e);
            assert_int_equal(b2.first_ord, bi.first_ord);
            assert_int_equal(b2.may_match, bi.may_match);
            g_check(it, last);
        }
        bool truth = false;
        for (uint64_t i = bi.first_ord; i < bi.first_ord + bi.rows; i++)
            truth |= pass((size_t)i, pctx);
        if (exact)
            assert_int_equal(bi.may_match, truth);
        else
            assert_true(bi.may_match || !truth); /* never a false "no" */
        *skipped += !bi.may_match;
        ord = bi.first_ord + bi.rows;
        blocks++;
    }
    cf_error e2;
    cf_block_info bi;
    CF_ASSERT_STATUS(cf_iter_block_at(it, NROWS, flt, &bi, &e2), CF_ENOTFOUND, &e2);
    cf_iter_free(it);
    return blocks;
}

/* ---- DICT ---------------------------------------------------------------------------------- */

static char g_names[NROWS][16];

/* A DICT file of NROWS strings in 1024-byte blocks (256 codewords a block: many
 * blocks), as the model; returns its rows (the caller frees them). Row i holds
 * "k<(i / 1000) % 12>" when `few` (runs of 1000 rows, 12 distinct strings),
 * else the unique "u<i>". */
static cf_slice *dict_file(file *f, bool few)
{
    cf_slice *v = malloc(NROWS * sizeof *v);
    assert_non_null(v);
    for (size_t i = 0; i < NROWS; i++) {
        if (few)
            snprintf(g_names[i], sizeof g_names[i], "k%zu", (i / 1000) % 12);
        else
            snprintf(g_names[i], sizeof g_names[i], "u%07zu", i);
        v[i] = (cf_slice){(const uint8_t *)g_names[i], strlen(g_names[i])};
    }
    cf_writer_options o =
        col_options((col_opts){.type = CF_TYPE_STRING, .enc = CF_ENC_DICT, .block_size = 1024});
    model_file(f, &o, v);
    return v;
}

static void test_block_filter__dict_codewords(void **state)
{
    (void)state;
    file f;
    cf_slice *v = dict_file(&f, true);
    cf_error e = {0};
    const cf_slice k3 = {(const uint8_t *)"k3", 2}, zz = {(const uint8_t *)"zz", 2};
    eq_test t = {&k3, 0};
    cf_block_filter *flt;
    CF_ASSERT_OK(cf_block_filter_create(&flt, f.r, test_eq, &t, &e), &e);
    assert_int_equal(t.calls, 12); /* once per dictionary entry */
    size_t skipped;
    size_t blocks = walk(&f, flt, row_eq, &t, true, &skipped);
    assert_int_equal(t.calls, 12); /* blocks look at codewords only */
    assert_true(blocks > 50);
    assert_true(skipped > blocks / 2);
    cf_block_filter_free(flt);

    /* A string no row holds rules out every block; no filter rules out none. */
    eq_test none = {&zz, 0};
    CF_ASSERT_OK(cf_block_filter_create(&flt, f.r, test_eq, &none, &e), &e);
    walk(&f, flt, row_eq, &none, true, &skipped);
    assert_int_equal(skipped, blocks);
    cf_block_filter_free(flt);
    walk(&f, NULL, row_eq, &t, false, &skipped);
    assert_int_equal(skipped, 0);
    g_check = NULL;
    close_file(&f);
    free(v);
}

/* Strings that do not fit a dictionary: plain-mode blocks cannot tell. */
static void test_block_filter__dict_plain_mode_says_may(void **state)
{
    (void)state;
    file f;
    cf_slice *v = dict_file(&f, false);
    cf_error e = {0};
    const cf_slice nothing = {(const uint8_t *)"nothing", 7};
    eq_test t = {&nothing, 0};
    cf_block_filter *flt;
    CF_ASSERT_OK(cf_block_filter_create(&flt, f.r, test_eq, &t, &e), &e);
    size_t skipped;
    walk(&f, flt, row_eq, &t, false, &skipped);
    /* The dictionary fills up early; the later (plain) blocks all say "may". */
    cf_iter *it;
    CF_ASSERT_OK(cf_iter_create(&it, f.r, &e), &e);
    cf_block_info bi;
    CF_ASSERT_OK(cf_iter_block_at(it, NROWS - 1, flt, &bi, &e), &e);
    assert_true(bi.may_match);
    cf_iter_free(it);
    cf_block_filter_free(flt);
    g_check = NULL;
    close_file(&f);
    free(v);
}

/* ---- RLE ----------------------------------------------------------------------------------- */

static int32_t g_ints[NROWS];

static void test_block_filter__rle_runs(void **state)
{
    (void)state;
    /* Runs of 20 equal values, with a stretch of literals in the middle. */
    for (size_t i = 0; i < NROWS; i++)
        g_ints[i] = (int32_t)(i / 20);
    for (size_t i = 9000; i < 9400; i++)
        g_ints[i] = (int32_t)(1000 + i * 7 % 13);
    /* some 80 runs per block */
    cf_writer_options o =
        col_options((col_opts){.type = CF_TYPE_INT32, .enc = CF_ENC_RLE, .block_size = 512});
    file f;
    model_file(&f, &o, g_ints);
    cf_error e = {0};
    int32_t wants[] = {0, 5, 500, 999, 1003, 99999};
    for (size_t w = 0; w < sizeof wants / sizeof wants[0]; w++) {
        eq_test t = {&wants[w], 0};
        cf_block_filter *flt;
        CF_ASSERT_OK(cf_block_filter_create(&flt, f.r, test_eq, &t, &e), &e);
        size_t skipped;
        size_t blocks = walk(&f, flt, row_eq, &t, true, &skipped);
        assert_true(blocks > 5);
        assert_true(skipped > 0);
        /* About two tests per repeated run (1000 of them) and one per literal
         * (400), far fewer than one per row; walk asks twice per block. */
        assert_true(t.calls < 2 * (2 * 1000 + 400 + 2 * blocks));
        cf_block_filter_free(flt);
    }
    g_check = NULL;
    close_file(&f);
}

/* ---- NULLs and encodings without a shortcut ------------------------------------------------ */

static bool never(size_t row, void *ctx)
{
    (void)row;
    (void)ctx;
    return false;
}

static void test_block_filter__nulls_and_plain(void **state)
{
    (void)state;
    int64_t *v = calloc(NROWS, sizeof *v);
    uint8_t *nn = calloc(NROWS / 8 + 1, 1);
    for (size_t i = 0; i < NROWS; i++)
        v[i] = (int64_t)i;
    cf_writer_options o = col_options((col_opts){
        .type = CF_TYPE_INT64, .enc = CF_ENC_PLAIN, .nullable = true, .block_size = 2048});
    /* Every row NULL: no value test passes. */
    file f;
    make_file(&f, &o, v, nn, NROWS);
    cf_error e = {0};
    cf_block_filter *flt;
    CF_ASSERT_OK(cf_block_filter_create(&flt, f.r, test_any, NULL, &e), &e);
    size_t skipped;
    size_t blocks = walk(&f, flt, never, NULL, true, &skipped);
    assert_int_equal(skipped, blocks);
    cf_block_filter_free(flt);
    close_file(&f);
    /* Some rows present: PLAIN cannot tell, every block says "may". */
    for (size_t i = 0; i < NROWS; i += 3)
        nn[i / 8] |= (uint8_t)(1u << (i % 8));
    make_file(&f, &o, v, nn, NROWS);
    CF_ASSERT_OK(cf_block_filter_create(&flt, f.r, test_any, NULL, &e), &e);
    blocks = walk(&f, flt, never, NULL, false, &skipped);
    assert_true(blocks > 1);
    assert_int_equal(skipped, 0);
    cf_block_filter_free(flt);
    close_file(&f);

    o.nullable = false;
    o.encoding = CF_ENC_BIT_SHUFFLE;
    make_file(&f, &o, v, NULL, NROWS);
    CF_ASSERT_OK(cf_block_filter_create(&flt, f.r, test_any, NULL, &e), &e);
    walk(&f, flt, never, NULL, false, &skipped);
    assert_int_equal(skipped, 0);
    cf_block_filter_free(flt);
    close_file(&f);
    free(v);
    free(nn);
}

static void test_block_filter__errors(void **state)
{
    (void)state;
    cf_error e = {0};
    int32_t v[100];
    for (int i = 0; i < 100; i++)
        v[i] = i;
    cf_writer_options o;
    cf_writer_options_init(&o, CF_TYPE_INT32);
    file a, b;
    make_file(&a, &o, v, NULL, 100);
    make_file(&b, &o, v, NULL, 100);
    cf_block_filter *flt;
    CF_ASSERT_STATUS(cf_block_filter_create(&flt, a.r, NULL, NULL, &e), CF_EINVAL, &e);
    CF_ASSERT_OK(cf_block_filter_create(&flt, a.r, test_any, NULL, &e), &e);
    cf_iter *it;
    CF_ASSERT_OK(cf_iter_create(&it, b.r, &e), &e);
    cf_block_info bi;
    CF_ASSERT_STATUS(cf_iter_block_at(it, 0, flt, &bi, &e), CF_EINVAL, &e); /* other reader */
    CF_ASSERT_STATUS(cf_iter_block_at(it, 100, NULL, &bi, &e), CF_ENOTFOUND, &e);
    CF_ASSERT_OK(cf_iter_block_at(it, 99, NULL, &bi, &e), &e);
    assert_true(bi.may_match);
    assert_int_equal(bi.first_ord + bi.rows, 100);
    cf_iter_free(it);
    cf_block_filter_free(flt);
    cf_block_filter_free(NULL);
    close_file(&a);
    close_file(&b);

    /* Array columns: no filter. */
    o = col_options((col_opts){.type = CF_TYPE_INT32, .is_array = true});
    CF_ASSERT_OK(cf_io_create_mem(&a.wio, &e), &e);
    cf_writer *w;
    CF_ASSERT_OK(cf_writer_create(&w, a.wio, &o, &e), &e);
    uint32_t counts[2] = {1, 2};
    CF_ASSERT_OK(cf_writer_append_arrays(w, v, NULL, counts, NULL, 2, &e), &e);
    CF_ASSERT_OK(cf_writer_finish(w, &e), &e);
    cf_writer_free(w);
    cf_slice c = cf_io_mem_contents(a.wio);
    CF_ASSERT_OK(cf_io_open_mem(&a.rio, c.data, c.len, &e), &e);
    CF_ASSERT_OK(cf_reader_open(&a.r, a.rio, NULL, &e), &e);
    CF_ASSERT_STATUS(cf_block_filter_create(&flt, a.r, test_any, NULL, &e), CF_EINVAL, &e);
    close_file(&a);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_filter__dict_codewords),
        cmocka_unit_test(test_block_filter__dict_plain_mode_says_may),
        cmocka_unit_test(test_block_filter__rle_runs),
        cmocka_unit_test(test_block_filter__nulls_and_plain),
        cmocka_unit_test(test_block_filter__errors),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

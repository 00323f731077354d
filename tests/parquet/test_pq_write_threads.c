/* The Parquet writer's threads (cf_parquet_writer_options.threads) against
 * its one-thread path: the same rows written with 1, 2, 4 and 16 threads give
 * the same file, byte for byte, over many shapes (every type, nullable or
 * not, arrays, dictionary on, off and falling back, v1 and v2 pages, every
 * codec built in, bloom filters, many row groups ended by rows or by bytes,
 * page index on and off, batches above and below the size that is handed to
 * the team), and files of one column, whose pages build on a second thread
 * (one_column). A batch refused in two columns gives the error and error row of
 * the first column, as one thread does, whichever job finished first. Run
 * under ThreadSanitizer by CI. */
/* cf-label: threads */
/* cf-needs: parquet */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/cfile.h>
#include <cfile/parquet.h>

#define MAX_COLS 64
#define ROWS 12000

static const size_t thread_counts[] = {2, 4, 16};

typedef struct gcol {
    cf_parquet_write_column spec;
    size_t width;
    uint8_t *values; /* rows (scalars) or elements (arrays) */
    uint8_t *nonnull;
    uint32_t *offsets; /* arrays: rows + 1 */
    uint8_t *elem_nonnull;
} gcol;

typedef struct gtable {
    size_t ncols, rows;
    gcol c[MAX_COLS];
    char names[MAX_COLS][24];
    char *strings;
    size_t str_len, str_cap;
} gtable;

static void setbit(uint8_t *bm, size_t i, bool v)
{
    if (v)
        bm[i >> 3] |= (uint8_t)(1u << (i & 7));
    else
        bm[i >> 3] &= (uint8_t) ~(1u << (i & 7));
}

/* A value of type ty from x (within the type's range; strings: offsets into
 * t->strings until fix_strings). */
static void gen_value(gtable *t, cf_type ty, uint64_t x, uint8_t *slot)
{
    if (cf_type_is_binary(ty)) {
        char tmp[96];
        int n = snprintf(tmp, sizeof tmp, "value-%llu", (unsigned long long)x);
        size_t len = x % 7 == 0 ? (size_t)n + (size_t)(x % 80) : (size_t)n; /* some past 64 */
        assert_true(t->str_len + len <= t->str_cap);
        for (size_t i = 0; i < len; i++)
            t->strings[t->str_len + i] = i < (size_t)n ? tmp[i] : (char)('a' + i % 26);
        cf_slice s = {(const uint8_t *)(uintptr_t)t->str_len, len};
        t->str_len += len;
        memcpy(slot, &s, sizeof s);
        return;
    }
    uint64_t v = x * 0x9E3779B97F4A7C15ULL;
    switch (ty) {
    case CF_TYPE_BOOL: slot[0] = (uint8_t)(x & 1); return;
    case CF_TYPE_FLOAT: {
        float f = (float)((double)(x % 20001) - 10000.0) / 8.0f;
        memcpy(slot, &f, 4);
        return;
    }
    case CF_TYPE_DOUBLE: {
        double d = ((double)(x % 2000001) - 1e6) / 3.0;
        memcpy(slot, &d, 8);
        return;
    }
    case CF_TYPE_DATE:
    case CF_TYPE_DECIMAL32: {
        int32_t i = (int32_t)(x % 100000) - 50000;
        memcpy(slot, &i, 4);
        return;
    }
    case CF_TYPE_DECIMAL64: {
        int64_t i = (int64_t)(x % 1000000000000ULL) - 500000000000LL;
        memcpy(slot, &i, 8);
        return;
    }
    default: { /* ints; DECIMAL128 and INT128 take v twice */
        uint8_t wide[16];
        memcpy(wide, &v, 8);
        memcpy(wide + 8, &v, 8);
        memcpy(slot, wide, cf_type_size(ty));
        return;
    }
    }
}

static void add_col(gtable *t, cf_type ty, bool nullable, bool array)
{
    gcol *g = &t->c[t->ncols];
    snprintf(t->names[t->ncols], sizeof t->names[0], "c%zu", t->ncols);
    memset(g, 0, sizeof *g);
    g->spec.name = t->names[t->ncols];
    g->spec.type = ty;
    g->spec.nullable = nullable;
    g->spec.is_array = array;
    g->spec.bloom_filter = t->ncols % 3 != 1;
    g->width = cf_type_size(ty);
    t->ncols++;
}

/* Every type, nullable and not, some arrays; odd columns of high cardinality
 * (their chunks fall back to PLAIN with a small dictionary limit). */
static void gen(gtable *t, size_t rows, uint64_t seed)
{
    static const cf_type types[] = {CF_TYPE_INT8,       CF_TYPE_INT16,     CF_TYPE_INT32,
                                    CF_TYPE_INT64,      CF_TYPE_UINT8,     CF_TYPE_UINT16,
                                    CF_TYPE_UINT32,     CF_TYPE_UINT64,    CF_TYPE_FLOAT,
                                    CF_TYPE_DOUBLE,     CF_TYPE_BOOL,      CF_TYPE_STRING,
                                    CF_TYPE_VARCHAR,    CF_TYPE_BINARY,    CF_TYPE_UNIXTIME_MICROS,
                                    CF_TYPE_DATE,       CF_TYPE_DECIMAL32, CF_TYPE_DECIMAL64,
                                    CF_TYPE_DECIMAL128, CF_TYPE_INT128};
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        add_col(t, types[i], false, false);
        add_col(t, types[i], true, false);
    }
    add_col(t, CF_TYPE_INT32, false, true);
    add_col(t, CF_TYPE_STRING, true, true);
    add_col(t, CF_TYPE_DOUBLE, true, true);
    cf_rng rng;
    cf_rng_init(&rng, seed);
    t->rows = rows;
    t->str_cap = rows * 1000 + 1;
    t->strings = malloc(t->str_cap);
    for (size_t c = 0; c < t->ncols; c++) {
        gcol *g = &t->c[c];
        uint64_t card = c % 2 ? 1000000 : 50;
        size_t cap = g->spec.is_array ? rows * 3 : rows;
        g->nonnull = calloc(rows / 8 + 1, 1);
        g->values = calloc(cap + 1, g->width);
        if (g->spec.is_array) {
            g->offsets = calloc(rows + 1, sizeof(uint32_t));
            g->elem_nonnull = calloc(cap / 8 + 1, 1);
        }
        size_t elems = 0;
        for (size_t r = 0; r < rows; r++) {
            bool present = !g->spec.nullable || cf_rng_below(&rng, 5) != 0;
            setbit(g->nonnull, r, present);
            if (!g->spec.is_array) {
                if (present)
                    gen_value(t, g->spec.type, cf_rng_below(&rng, card), g->values + r * g->width);
                continue;
            }
            g->offsets[r] = (uint32_t)elems;
            size_t n = present ? cf_rng_below(&rng, 4) : 0;
            for (size_t j = 0; j < n; j++, elems++) {
                bool ep = cf_rng_below(&rng, 6) != 0;
                setbit(g->elem_nonnull, elems, ep);
                if (ep)
                    gen_value(t, g->spec.type, cf_rng_below(&rng, card),
                              g->values + elems * g->width);
            }
        }
        if (g->spec.is_array)
            g->offsets[rows] = (uint32_t)elems;
    }
    for (size_t c = 0; c < t->ncols; c++) { /* string offsets -> pointers */
        gcol *g = &t->c[c];
        if (!cf_type_is_binary(g->spec.type))
            continue;
        size_t n = g->spec.is_array ? g->offsets[rows] : rows;
        for (size_t i = 0; i < n; i++) {
            cf_slice s;
            memcpy(&s, g->values + i * sizeof s, sizeof s);
            s.data = (const uint8_t *)t->strings + (uintptr_t)s.data;
            memcpy(g->values + i * sizeof s, &s, sizeof s);
        }
    }
}

static void gtable_free(gtable *t)
{
    for (size_t c = 0; c < t->ncols; c++) {
        free(t->c[c].values);
        free(t->c[c].nonnull);
        free(t->c[c].offsets);
        free(t->c[c].elem_nonnull);
    }
    free(t->strings);
}

/* Rows [r, r + n) of column g as a batch (bitmaps copied to start at bit 0). */
static void slice(const gcol *g, size_t r, size_t n, cf_batch *b)
{
    memset(b, 0, sizeof *b);
    b->count = n;
    uint8_t *nn = calloc(n / 8 + 1, 1);
    for (size_t i = 0; i < n; i++)
        setbit(nn, i, (g->nonnull[(r + i) >> 3] >> ((r + i) & 7)) & 1);
    b->nonnull = nn;
    if (!g->spec.is_array) {
        b->values = g->values + r * g->width;
        return;
    }
    uint32_t base = g->offsets[r];
    uint32_t *offs = malloc((n + 1) * sizeof(uint32_t));
    for (size_t i = 0; i <= n; i++)
        offs[i] = g->offsets[r + i] - base;
    b->elem_offsets = offs;
    b->elem_count = offs[n];
    b->values = g->values + (size_t)base * g->width;
    uint8_t *en = calloc(b->elem_count / 8 + 1, 1);
    for (size_t i = 0; i < b->elem_count; i++)
        setbit(en, i, (g->elem_nonnull[(base + i) >> 3] >> ((base + i) & 7)) & 1);
    b->elem_nonnull = en;
}

static void slice_free(cf_batch *b)
{
    free((void *)b->nonnull);
    free((void *)b->elem_offsets);
    free((void *)b->elem_nonnull);
}

/* The file of t's rows in batches of `batch` (NULL when the codec is not
 * built in); *len its size. */
static uint8_t *write_file(const gtable *t, cf_parquet_writer_options o, size_t threads,
                           size_t batch, size_t *len)
{
    o.threads = threads;
    cf_error err;
    cf_io *io;
    CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
    cf_parquet_write_column specs[MAX_COLS];
    for (size_t c = 0; c < t->ncols; c++)
        specs[c] = t->c[c].spec;
    cf_parquet_writer *w;
    cf_status st = cf_parquet_writer_create(&w, io, specs, t->ncols, &o, &err);
    if (st == CF_ENOTSUP) {
        cf_io_free(io);
        return NULL;
    }
    CF_ASSERT_OK(st, &err);
    cf_batch b[MAX_COLS];
    for (size_t r = 0; r < t->rows; r += batch) {
        size_t n = t->rows - r < batch ? t->rows - r : batch;
        for (size_t c = 0; c < t->ncols; c++)
            slice(&t->c[c], r, n, &b[c]);
        CF_ASSERT_OK(cf_parquet_writer_append(w, b, n, &err), &err);
        for (size_t c = 0; c < t->ncols; c++)
            slice_free(&b[c]);
    }
    CF_ASSERT_OK(cf_parquet_writer_finish(w, &err), &err);
    cf_slice s = cf_io_mem_contents(io);
    uint8_t *copy = malloc(s.len);
    memcpy(copy, s.data, s.len);
    *len = s.len;
    cf_parquet_writer_free(w);
    cf_io_free(io);
    return copy;
}

/* One shape: the file at each thread count equals the one-thread file. */
static void same_bytes(const gtable *t, const cf_parquet_writer_options *o, size_t batch,
                       const char *what)
{
    size_t len1;
    uint8_t *one = write_file(t, *o, 1, batch, &len1);
    if (one == NULL)
        return; /* codec not built in */
    for (size_t k = 0; k < sizeof thread_counts / sizeof thread_counts[0]; k++) {
        size_t len;
        uint8_t *f = write_file(t, *o, thread_counts[k], batch, &len);
        assert_non_null(f);
        if (len != len1 || memcmp(f, one, len) != 0) {
            size_t at = 0;
            while (at < len && at < len1 && f[at] == one[at])
                at++;
            fail_msg("%s, batch %zu, %zu threads: %zu bytes, one thread %zu; first difference at "
                     "byte %zu",
                     what, batch, thread_counts[k], len, len1, at);
        }
        free(f);
    }
    free(one);
}

/* The options of one shape: shape 1 v2 pages without CRCs, 2 no
 * dictionary, 3 no statistics or page index; high-cardinality chunks fall
 * back from their dictionary. */
static void shape_options(cf_parquet_writer_options *o, int32_t codec, int shape)
{
    cf_parquet_writer_options_init(o);
    o->codec = codec;
    o->data_page_v2 = shape & 1;
    o->dict_page_bytes = 20000;
    o->dictionary = shape != 2;
    o->page_index = shape != 3;
    o->statistics = shape != 3;
    o->page_crc = shape != 1;
}

static void test_pq_write_threads__same_bytes(void **state)
{
    (void)state;
    gtable t;
    gen(&t, ROWS, 29);
    static const int32_t codecs[] = {CF_PARQUET_UNCOMPRESSED, CF_PARQUET_SNAPPY,
                                     CF_PARQUET_GZIP,         CF_PARQUET_BROTLI,
                                     CF_PARQUET_ZSTD,         CF_PARQUET_LZ4_RAW};
    for (size_t ci = 0; ci < sizeof codecs / sizeof codecs[0]; ci++) {
        for (int shape = 0; shape < 4; shape++) {
            cf_parquet_writer_options o;
            shape_options(&o, codecs[ci], shape);
            o.row_group_rows = 5000; /* several row groups, the last short */
            o.page_rows = 700;       /* many pages per chunk */
            char what[64];
            snprintf(what, sizeof what, "codec %d shape %d", (int)codecs[ci], shape);
            /* batches above and below the slice handed to the team */
            same_bytes(&t, &o, shape == 0 ? 3000 : 5000, what);
            if (ci == 1)
                same_bytes(&t, &o, 100, what);
        }
    }
    /* row groups ended by their bytes, pages by theirs */
    cf_parquet_writer_options o;
    cf_parquet_writer_options_init(&o);
    o.row_group_bytes = 150000;
    o.page_bytes = 4000;
    same_bytes(&t, &o, 4096, "row groups by bytes");
    gtable_free(&t);
}

/* A file of one column: its pages are built on a second thread behind the
 * encoding of the next (writer_col_page.c, "Pipeline"), so the pages must
 * still come in order, each with its offset, and each row group must end
 * where one thread ends it: with row groups ended by bytes, a page in flight
 * is waited for only near the limit. Every codec, dictionary on, off and
 * falling back (held chunks, and chunks that stream once the dictionary is
 * given up), v1 and v2 pages, CRC and page index on and off, scalars,
 * nullable or not, and arrays. */
static void test_pq_write_threads__one_column(void **state)
{
    (void)state;
    gtable t;
    gen(&t, ROWS, 31);
    /* c6 INT64 (50 values: dictionary), c7 INT64 nullable (falls back), c20
     * BOOL, c23 STRING nullable (falls back), c36 DECIMAL128, c41 array of
     * nullable STRINGs, c42 array of DOUBLEs */
    static const size_t cols[] = {6, 7, 20, 23, 36, 41, 42};
    static const int32_t codecs[] = {CF_PARQUET_UNCOMPRESSED, CF_PARQUET_SNAPPY,
                                     CF_PARQUET_GZIP,         CF_PARQUET_BROTLI,
                                     CF_PARQUET_ZSTD,         CF_PARQUET_LZ4_RAW};
    for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++) {
        gtable *one = malloc(sizeof *one); /* a view of column cols[k]: its data freed with t */
        *one = t;
        one->ncols = 1;
        one->c[0] = t.c[cols[k]];
        for (size_t ci = 0; ci < sizeof codecs / sizeof codecs[0]; ci++) {
            for (int shape = 0; shape < 5; shape++) {
                cf_parquet_writer_options o;
                shape_options(&o, codecs[ci], shape);
                o.page_rows = 300;
                if (shape == 4) { /* row groups by bytes, pages by theirs */
                    o.row_group_bytes = 9000;
                    o.page_bytes = 700;
                } else {
                    o.row_group_rows = 5000;
                }
                char what[96];
                snprintf(what, sizeof what, "one column c%zu, codec %d shape %d", cols[k],
                         (int)codecs[ci], shape);
                /* shape 4: small batches, so the row group's size is
                 * checked often, and near its end with a page in flight */
                same_bytes(one, &o, shape == 0 ? 1000 : shape == 4 ? 50 : 4096, what);
            }
        }
        free(one);
    }
    gtable_free(&t);
}

/* A batch whose column c3 (INT32, REQUIRED) has a NULL at file row 9700 and
 * whose column c1 (STRING) holds a value that is not UTF-8 at row 9900: the
 * one-thread loop stops at c1, so that is the error and row 9900 the error
 * row at every thread count, though c3's job meets an earlier row. */
static void test_pq_write_threads__first_column_error(void **state)
{
    (void)state;
    char *bad = "\xff\xfe";
    cf_parquet_write_column specs[4] = {
        {.name = "c0", .type = CF_TYPE_INT64},
        {.name = "c1", .type = CF_TYPE_STRING},
        {.name = "c2", .type = CF_TYPE_DOUBLE},
        {.name = "c3", .type = CF_TYPE_INT32},
    };
    const size_t n = 5000;
    int64_t *i64 = calloc(n, 8);
    cf_slice *str = calloc(n, sizeof(cf_slice));
    double *dbl = calloc(n, 8);
    int32_t *i32 = calloc(n, 4);
    uint8_t *nn3 = malloc(n / 8 + 1);
    memset(nn3, 0xff, n / 8 + 1);
    for (size_t i = 0; i < n; i++) {
        i64[i] = (int64_t)i * 7;
        str[i] = (cf_slice){(const uint8_t *)"ok", 2};
        dbl[i] = (double)i / 3;
        i32[i] = (int32_t)i;
    }
    char first_msg[256] = "";
    cf_status first_st = CF_OK;
    for (size_t k = 0; k < 4; k++) {
        size_t threads = k == 0 ? 1 : thread_counts[k - 1];
        cf_parquet_writer_options o;
        cf_parquet_writer_options_init(&o);
        o.threads = threads;
        cf_error err;
        cf_io *io;
        CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
        cf_parquet_writer *w;
        CF_ASSERT_OK(cf_parquet_writer_create(&w, io, specs, 4, &o, &err), &err);
        cf_batch b[4];
        memset(b, 0, sizeof b);
        b[0].values = (const uint8_t *)i64;
        b[1].values = (const uint8_t *)str;
        b[2].values = (const uint8_t *)dbl;
        b[3].values = (const uint8_t *)i32;
        CF_ASSERT_OK(cf_parquet_writer_append(w, b, n, &err), &err); /* rows 0..4999 */
        str[4900] = (cf_slice){(const uint8_t *)bad, 2};             /* row 9900 */
        setbit(nn3, 4700, false);                                    /* row 9700 */
        b[3].nonnull = nn3;
        cf_status st = cf_parquet_writer_append(w, b, n, &err);
        assert_int_equal(st, CF_EINVAL);
        assert_int_equal(cf_parquet_writer_error_row(w), 9900);
        assert_non_null(strstr(err.msg, "column c1"));
        if (k == 0) {
            snprintf(first_msg, sizeof first_msg, "%s", err.msg);
            first_st = st;
        } else {
            assert_int_equal(st, first_st);
            assert_string_equal(err.msg, first_msg);
        }
        /* the failure is sticky */
        assert_int_equal(cf_parquet_writer_finish(w, &err), first_st);
        cf_parquet_writer_free(w);
        cf_io_free(io);
        str[4900] = (cf_slice){(const uint8_t *)"ok", 2};
        setbit(nn3, 4700, true);
    }
    free(i64);
    free(str);
    free(dbl);
    free(i32);
    free(nn3);
}

static void test_pq_write_threads__bad_option(void **state)
{
    (void)state;
    cf_parquet_write_column spec = {.name = "v", .type = CF_TYPE_INT64};
    cf_parquet_writer_options o;
    cf_parquet_writer_options_init(&o);
    assert_int_equal(o.threads, CF_PARQUET_THREADS_AUTO);
    o.threads = CF_PARQUET_MAX_THREADS + 1;
    cf_error err;
    cf_io *io;
    CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
    cf_parquet_writer *w = NULL;
    assert_int_equal(cf_parquet_writer_create(&w, io, &spec, 1, &o, &err), CF_EINVAL);
    assert_non_null(strstr(err.msg, "threads"));
    assert_null(w);
    cf_io_free(io);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pq_write_threads__same_bytes),
        cmocka_unit_test(test_pq_write_threads__one_column),
        cmocka_unit_test(test_pq_write_threads__first_column_error),
        cmocka_unit_test(test_pq_write_threads__bad_option),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

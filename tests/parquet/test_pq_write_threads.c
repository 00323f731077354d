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

#include "support_pqgen.h"

#define ROWS 12000

static const size_t thread_counts[] = {2, 4, 16};

typedef pqg_col gcol;
typedef pqg_table gtable;

/* Columns of 50 and of a million distinct values by turns, two in three with
 * a Bloom filter. */
static void add_col(gtable *t, cf_type ty, bool nullable, bool array)
{
    size_t c = t->ncols;
    pqg_add_col(t, NULL, ty, nullable, array, c % 2 ? 1000000 : 50, c % 3 != 1);
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
    t->null_one_in = 5;
    t->elem_null_one_in = 6;
    pqg_gen(t, rows, seed);
}

/* The file of t's rows in batches of `batch` (NULL when the codec is not
 * built in); *len its size. */
static uint8_t *write_file(const gtable *t, cf_parquet_writer_options o, size_t threads,
                           size_t batch, size_t *len)
{
    o.threads = threads;
    cf_error err;
    cf_io *io;
    cf_parquet_writer *w;
    cf_status st = pqg_writer(&w, &io, t, &o, &err);
    if (st == CF_ENOTSUP)
        return NULL;
    CF_ASSERT_OK(st, &err);
    cf_batch b[PQG_MAX_COLS];
    for (size_t r = 0; r < t->rows; r += batch) {
        size_t n = t->rows - r < batch ? t->rows - r : batch;
        for (size_t c = 0; c < t->ncols; c++)
            pqg_slice(&t->c[c], r, n, &b[c]);
        CF_ASSERT_OK(cf_parquet_writer_append(w, b, n, &err), &err);
        for (size_t c = 0; c < t->ncols; c++)
            pqg_slice_free(&b[c]);
    }
    return pqg_finish(w, io, len);
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
    pqg_free(&t);
}

/* A file of one column: its pages are built on the team, several at once,
 * behind the encoding of the next (writer_col_page.c, "Pipeline"), so the
 * pages must still come in order, each with its offset, and each row group
 * must end where one thread ends it: with row groups ended by bytes, the
 * pages in flight are waited for only near the limit. Every codec, dictionary on, off and
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
    pqg_free(&t);
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
        pqg_batches(b, 4, (const void *const[]){i64, str, dbl, i32});
        CF_ASSERT_OK(cf_parquet_writer_append(w, b, n, &err), &err); /* rows 0..4999 */
        str[4900] = (cf_slice){(const uint8_t *)bad, 2};             /* row 9900 */
        pqg_setbit(nn3, 4700, false);                                /* row 9700 */
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
        pqg_setbit(nn3, 4700, true);
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

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pq_write_threads__same_bytes),
        cmocka_unit_test(test_pq_write_threads__one_column),
        cmocka_unit_test(test_pq_write_threads__first_column_error),
        cmocka_unit_test(test_pq_write_threads__bad_option),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

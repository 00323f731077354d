/* Record-batch streams (arrow.h "streams"): schema shape, column alignment across
 * files whose blocks end at different rows, the UTF-8 rule, errors that are
 * final, release semantics (children moved out), table and HFile sources (in
 * builds with those modules, CF_HAVE_*). */
#include <cfile/arrow.h>
#include <cfile/config.h> /* CF_HAVE_TABLES, CF_HAVE_HFILE */
#include <cfile/io.h>
#include <cfile/reader.h>
#include <cfile/writer.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if CF_HAVE_HFILE
#include "support_hfile_mem.h"
#endif
#if CF_HAVE_TABLES
#include "support_table.h"
#endif
#include "support_schema.h"
#include "test_common.h"
#include "util/utf8.h"

/* An in-memory CFile of n rows: INT32 i*3 (nullable, every 7th NULL) or STRING
 * "s<i>" (with `bad` at row bad_row when bad != NULL). */
static cf_reader *mem_file(cf_io **io_out, cf_type t, size_t n, uint32_t block_size,
                           const char *bad, size_t bad_row)
{
    cf_error err;
    cf_io *io;
    CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
    cf_writer_options o;
    cf_writer_options_init(&o, t);
    o.block_size = block_size;
    o.nullable = t == CF_TYPE_INT32;
    cf_writer *w;
    CF_ASSERT_OK(cf_writer_create(&w, io, &o, &err), &err);
    for (size_t i = 0; i < n; i++) {
        if (t == CF_TYPE_INT32) {
            int32_t v = (int32_t)i * 3;
            uint8_t nn = i % 7 != 0;
            CF_ASSERT_OK(cf_writer_append(w, &v, &nn, 1, &err), &err);
        } else {
            char buf[32];
            snprintf(buf, sizeof buf, "s%zu", i);
            cf_slice s = {(const uint8_t *)buf, strlen(buf)};
            if (bad != NULL && i == bad_row)
                s = (cf_slice){(const uint8_t *)bad, strlen(bad)};
            CF_ASSERT_OK(cf_writer_append(w, &s, NULL, 1, &err), &err);
        }
    }
    CF_ASSERT_OK(cf_writer_finish(w, &err), &err);
    cf_writer_free(w);
    cf_slice b = cf_io_mem_contents(io);
    cf_io *rio;
    CF_ASSERT_OK(cf_io_open_mem(&rio, b.data, b.len, &err), &err);
    cf_reader *r;
    CF_ASSERT_OK(cf_reader_open(&r, rio, NULL, &err), &err);
    io_out[0] = io;
    io_out[1] = rio;
    return r;
}

static void free_file(cf_reader *r, cf_io **io)
{
    cf_reader_free(r);
    cf_io_free(io[1]);
    cf_io_free(io[0]);
}

static void test_stream__cfiles_aligned(void **state)
{
    (void)state;
    cf_io *io1[2], *io2[2];
    enum { N = 5000 };
    cf_reader *a = mem_file(io1, CF_TYPE_INT32, N, 512, NULL, 0);
    cf_reader *b = mem_file(io2, CF_TYPE_STRING, N, 700, NULL, 0);
    const cf_reader *rs[2] = {a, b};
    const char *names[2] = {"num", NULL};
    cf_arrow_options o;
    cf_arrow_options_init(&o);
    o.batch_rows = 777;
    cf_error err;
    struct ArrowArrayStream s;
    CF_ASSERT_OK(cf_arrow_stream_cfiles(&s, rs, names, 2, &o, &err), &err);

    struct ArrowSchema sc;
    stream_schema_is(&s, &sc, "num", "i", "c1", "u", NULL);
    assert_true(sc.children[0]->flags & ARROW_FLAG_NULLABLE);
    assert_false(sc.children[1]->flags & ARROW_FLAG_NULLABLE);
    sc.release(&sc);

    size_t row = 0, batches = 0;
    for (;;) {
        struct ArrowArray arr;
        assert_int_equal(s.get_next(&s, &arr), 0);
        if (arr.release == NULL)
            break;
        batches++;
        assert_int_equal(arr.n_children, 2);
        assert_int_equal(arr.null_count, 0);
        assert_true(arr.length == 777 || row + (size_t)arr.length == N);
        /* Move the string child out, release the batch, then read the child. */
        struct ArrowArray str = *arr.children[1];
        arr.children[1]->release = NULL;
        const struct ArrowArray *num = arr.children[0];
        assert_int_equal(num->length, arr.length);
        const uint8_t *valid = num->buffers[0];
        const int32_t *nv = num->buffers[1];
        for (int64_t i = 0; i < arr.length; i++) {
            size_t r = row + (size_t)i;
            bool present = valid == NULL || (valid[i >> 3] >> (i & 7)) & 1;
            assert_int_equal(present, r % 7 != 0);
            if (present)
                assert_int_equal(nv[i], (int32_t)r * 3);
        }
        arr.release(&arr);
        const int32_t *off = str.buffers[1];
        const char *bytes = str.buffers[2];
        for (int64_t i = 0; i < str.length; i++) {
            char want[32];
            snprintf(want, sizeof want, "s%zu", row + (size_t)i);
            assert_int_equal(off[i + 1] - off[i], strlen(want));
            assert_memory_equal(bytes + off[i], want, strlen(want));
        }
        str.release(&str);
        row += (size_t)(str.length);
    }
    assert_int_equal(row, N);
    assert_int_equal(batches, (N + 776) / 777);
    /* The end repeats. */
    struct ArrowArray again;
    assert_int_equal(s.get_next(&s, &again), 0);
    assert_null(again.release);
    s.release(&s);
    assert_null(s.release);
    free_file(a, io1);
    free_file(b, io2);
}

static void test_stream__cfiles_errors(void **state)
{
    (void)state;
    cf_io *io1[2], *io2[2];
    cf_reader *a = mem_file(io1, CF_TYPE_INT32, 10, 512, NULL, 0);
    cf_reader *b = mem_file(io2, CF_TYPE_INT32, 11, 512, NULL, 0);
    const cf_reader *rs[2] = {a, b};
    cf_error err;
    struct ArrowArrayStream s;
    CF_ASSERT_STATUS(cf_arrow_stream_cfiles(&s, rs, NULL, 2, NULL, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "column 1 holds 11 rows, column 0 10"));
    assert_null(s.release);
    CF_ASSERT_STATUS(cf_arrow_stream_cfiles(&s, rs, NULL, 0, NULL, &err), CF_EINVAL, &err);
    cf_arrow_options o;
    cf_arrow_options_init(&o);
    o.utf8 = 7;
    CF_ASSERT_STATUS(cf_arrow_stream_cfiles(&s, rs, NULL, 1, &o, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "utf8"));
    free_file(a, io1);
    free_file(b, io2);
}

static void test_stream__utf8_rule(void **state)
{
    (void)state;
    cf_io *io[2];
    /* Row 1234 holds an overlong '/' (C0 AF): not UTF-8. */
    cf_reader *r = mem_file(io, CF_TYPE_STRING, 3000, 4096, "ok\xC0\xAF", 1234);
    const cf_reader *rs[1] = {r};
    const char *names[1] = {"s"};
    cf_error err;
    struct ArrowArrayStream s;
    CF_ASSERT_OK(cf_arrow_stream_cfiles(&s, rs, names, 1, NULL, &err), &err);
    struct ArrowArray arr;
    int rc = 0;
    size_t rows = 0;
    while ((rc = s.get_next(&s, &arr)) == 0 && arr.release != NULL) {
        rows += (size_t)arr.length;
        arr.release(&arr);
    }
    assert_int_equal(rc, ENOSYS);
    assert_true(rows <= 1234); /* nothing from the bad batch on */
    const char *msg = s.get_last_error(&s);
    assert_non_null(msg);
    assert_non_null(strstr(msg, "column 's' row 1234 is not valid UTF-8 (byte 2)"));
    /* An error is final. */
    assert_int_equal(s.get_next(&s, &arr), ENOSYS);
    assert_null(arr.release);
    s.release(&s);

    /* As binary: every byte, format "z". */
    cf_arrow_options o;
    cf_arrow_options_init(&o);
    o.utf8 = CF_ARROW_UTF8_BINARY;
    o.batch_rows = 5000;
    CF_ASSERT_OK(cf_arrow_stream_cfiles(&s, rs, names, 1, &o, &err), &err);
    struct ArrowSchema sc;
    assert_int_equal(s.get_schema(&s, &sc), 0);
    assert_string_equal(sc.children[0]->format, "z");
    sc.release(&sc);
    assert_int_equal(s.get_next(&s, &arr), 0);
    assert_int_equal(arr.length, 3000);
    const int32_t *off = arr.children[0]->buffers[1];
    const char *bytes = arr.children[0]->buffers[2];
    assert_int_equal(off[1235] - off[1234], 4);
    assert_memory_equal(bytes + off[1234], "ok\xC0\xAF", 4);
    arr.release(&arr);
    s.release(&s);

    /* The one-column export follows the same rule. */
    cf_iter *it;
    CF_ASSERT_OK(cf_iter_create(&it, r, &err), &err);
    CF_ASSERT_OK(cf_iter_seek_to_ordinal(it, 1200, &err), &err);
    CF_ASSERT_STATUS(cf_iter_next_arrow(it, 100, NULL, &arr, NULL, &err), CF_ENOTSUP, &err);
    assert_non_null(strstr(err.msg, "row 1234 is not valid UTF-8"));
    assert_null(arr.release);
    CF_ASSERT_OK(cf_iter_seek_to_ordinal(it, 1200, &err), &err);
    CF_ASSERT_OK(cf_iter_next_arrow(it, 100, &o, &arr, &sc, &err), &err);
    assert_string_equal(sc.format, "z");
    sc.release(&sc);
    arr.release(&arr);
    cf_iter_free(it);
    free_file(r, io);
}

static void test_stream__utf8_validator(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        size_t bad; /* SIZE_MAX = valid */
    } cases[] = {
        {"", SIZE_MAX},
        {"plain ascii, long enough for the 8-byte path", SIZE_MAX},
        {"\xC3\xA9t\xC3\xA9", SIZE_MAX}, /* été */
        {"\xE2\x82\xAC", SIZE_MAX},      /* € */
        {"\xF0\x9F\x98\x80", SIZE_MAX},  /* U+1F600 */
        {"\xF4\x8F\xBF\xBF", SIZE_MAX},  /* U+10FFFF */
        {"abc\xF4\x90\x80\x80", 3},      /* above U+10FFFF */
        {"\xC0\xAF", 0},                 /* overlong */
        {"\xE0\x80\xAF", 0},             /* overlong */
        {"\xF0\x80\x80\xAF", 0},         /* overlong */
        {"\xED\xA0\x80", 0},             /* surrogate */
        {"x\x80", 1},                    /* lone continuation */
        {"0123456789\xE2\x82", 10},      /* truncated */
        {"\xFF", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = strlen(cases[i].s);
        size_t want = cases[i].bad == SIZE_MAX ? n : cases[i].bad;
        assert_int_equal(cf_utf8_invalid_at((const uint8_t *)cases[i].s, n), want);
    }
}

#if CF_HAVE_TABLES
static void test_stream__table(void **state)
{
    (void)state;
    char dir[256];
    cf_table *t = fixture_table(dir);
    cf_error err;
    struct ArrowArrayStream s;
    CF_ASSERT_OK(cf_arrow_stream_table(&s, t, NULL, NULL, &err), &err);
    struct ArrowSchema sc;
    stream_schema_is(&s, &sc, "id", "l", "name", "u", "score", "g", "tags", "+l", "price", "d:10,2",
                     "at", "tsu:", "ok", "b", "raw", "z", NULL);
    assert_string_equal(sc.children[3]->children[0]->format, "i");
    sc.release(&sc);
    /* Latest snapshot: every row minus the deleted ones (every 29th from 5). */
    size_t rows = 0;
    int64_t prev = -1;
    struct ArrowArray arr;
    while (s.get_next(&s, &arr) == 0 && arr.release != NULL) {
        const int64_t *ids = arr.children[0]->buffers[1];
        for (int64_t i = 0; i < arr.length; i++) {
            assert_true(ids[i] > prev);
            assert_true(ids[i] < 5 || (ids[i] - 5) % 29 != 0);
            prev = ids[i];
        }
        rows += (size_t)arr.length;
        arr.release(&arr);
    }
    assert_int_equal(rows, FIX_ROWS - (FIX_ROWS - 5 + 28) / 29);
    s.release(&s);

    /* A bad projection fails at creation, naming it. */
    cf_scan_options o;
    cf_scan_options_init(&o);
    size_t proj[1] = {99};
    o.cols = proj;
    o.ncols = 1;
    assert_int_not_equal(cf_arrow_stream_table(&s, t, &o, NULL, &err), CF_OK);
    assert_null(s.release);
    cf_table_free(t);
    CF_ASSERT_RM_RF(dir);
}

#endif

#if CF_HAVE_HFILE
static void test_stream__hfile(void **state)
{
    (void)state;
    cf_error err;
    cf_hfile_cell c = {0};
    c.row = (cf_slice){(const uint8_t *)"r1", 2};
    c.family = (cf_slice){(const uint8_t *)"cf", 2};
    c.qualifier = (cf_slice){(const uint8_t *)"q", 1};
    c.timestamp = 42;
    c.type = 4;
    c.value = (cf_slice){(const uint8_t *)"\xff\x00v", 3};
    hfile_mem m;
    hfile_mem_open(&m, &c, 1, 0);
    cf_hfile *h = m.h;
    struct ArrowArrayStream s;
    CF_ASSERT_OK(cf_arrow_stream_hfile(&s, h, NULL, &err), &err);
    struct ArrowSchema sc;
    stream_schema_is(&s, &sc, "row", "z", "family", "z", "qualifier", "z", "timestamp", "l", "type",
                     "u", "value", "z", NULL);
    sc.release(&sc);
    struct ArrowArray arr;
    assert_int_equal(s.get_next(&s, &arr), 0);
    assert_int_equal(arr.length, 1);
    assert_int_equal(((const int64_t *)arr.children[3]->buffers[1])[0], 42);
    const int32_t *to = arr.children[4]->buffers[1];
    assert_int_equal(to[1], 3);
    assert_memory_equal(arr.children[4]->buffers[2], "Put", 3);
    const int32_t *vo = arr.children[5]->buffers[1];
    assert_int_equal(vo[1], 3);
    assert_memory_equal(arr.children[5]->buffers[2], "\xff\x00v", 3);
    arr.release(&arr);
    assert_int_equal(s.get_next(&s, &arr), 0);
    assert_null(arr.release);
    s.release(&s);
    hfile_mem_close(&m);
}
#endif

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream__cfiles_aligned),
        cmocka_unit_test(test_stream__cfiles_errors),
        cmocka_unit_test(test_stream__utf8_rule),
        cmocka_unit_test(test_stream__utf8_validator),
#if CF_HAVE_TABLES
        cmocka_unit_test(test_stream__table),
#endif
#if CF_HAVE_HFILE
        cmocka_unit_test(test_stream__hfile),
#endif
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* Writer misuse and out-of-range options: every one is refused with CF_EINVAL
 * (bad argument or option) or CF_ESTATE (call out of order), with a message
 * that names the offending field, and a writer's first error is sticky.
 * The contract is documented in include/cfile/writer.h. */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cfile/cfile.h>

#include "support_opts.h"

/* The status is `want` and the message mentions `needle`. */
#define ASSERT_ERR(st, want, errp, needle)                                                         \
    do {                                                                                           \
        CF_ASSERT_STATUS((st), (want), (errp));                                                    \
        if (strstr((errp)->msg, (needle)) == NULL)                                                 \
            fail_msg("message \"%s\" does not name \"%s\"", (errp)->msg, (needle));                \
        assert_int_equal((errp)->code, (want));                                                    \
    } while (0)

/* cf_writer_create on a fresh memory io; the io is returned for freeing. */
static cf_status create(cf_writer **w, cf_io **io, const cf_writer_options *o, cf_error *err)
{
    CF_ASSERT_OK(cf_io_create_mem(io, err), err);
    return cf_writer_create(w, *io, o, err);
}

/* Free a writer and the io under it. */
static void drop(cf_writer *w, cf_io *io)
{
    cf_writer_free(w);
    cf_io_free(io);
}

/* Options that create accepts (the writer is dropped at once). */
static void expect_created(const cf_writer_options *o)
{
    cf_io *io;
    cf_writer *w;
    cf_error err;
    CF_ASSERT_OK(create(&w, &io, o, &err), &err);
    drop(w, io);
}

/* Options that must be refused at create, with `needle` in the message. */
static void expect_bad_options(const cf_writer_options *o, const char *needle)
{
    cf_io *io;
    cf_writer *w = (cf_writer *)&io; /* must be reset to NULL on failure */
    cf_error err;
    memset(&err, 0, sizeof err);
    ASSERT_ERR(create(&w, &io, o, &err), CF_EINVAL, &err, needle);
    assert_null(w);
    cf_io_free(io);
}

static void test_writer_validation__block_size(void **state)
{
    (void)state;
    cf_writer_options o =
        col_options((col_opts){.type = CF_TYPE_INT32, .block_size = CF_DEFAULT_MAX_BLOCK_LEN + 1});
    expect_bad_options(&o, "block_size");
    o.block_size = UINT32_MAX;
    expect_bad_options(&o, "block_size");
    /* The limit itself, 0 (default) and tiny (raised to 512) are accepted. */
    uint32_t ok[] = {CF_DEFAULT_MAX_BLOCK_LEN, 0, 1, CF_MIN_BLOCK_SIZE};
    uint32_t want[] = {CF_DEFAULT_MAX_BLOCK_LEN, CF_DEFAULT_BLOCK_SIZE, CF_MIN_BLOCK_SIZE,
                       CF_MIN_BLOCK_SIZE};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        o.block_size = ok[i];
        cf_io *io;
        cf_writer *w;
        cf_error err;
        CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
        assert_int_equal(cf_writer_resolved_options(w)->block_size, want[i]);
        drop(w, io);
    }
}

static void test_writer_validation__index_block_size(void **state)
{
    (void)state;
    cf_writer_options o;
    cf_writer_options_init(&o, CF_TYPE_INT64);
    uint32_t bad[] = {1, 63, CF_DEFAULT_MAX_BLOCK_LEN + 1, UINT32_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        o.index_block_size = bad[i];
        expect_bad_options(&o, "index_block_size");
    }
    uint32_t ok[] = {0, 64, CF_DEFAULT_MAX_BLOCK_LEN};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        o.index_block_size = ok[i];
        expect_created(&o);
    }
}

static void test_writer_validation__restart_interval(void **state)
{
    (void)state;
    cf_writer_options o = col_options((col_opts){.type = CF_TYPE_STRING, .enc = CF_ENC_PREFIX});
    o.restart_interval = 65537;
    expect_bad_options(&o, "restart_interval");
    o.restart_interval = UINT32_MAX;
    expect_bad_options(&o, "restart_interval");
    o.restart_interval = 65536;
    expect_created(&o);
}

static void test_writer_validation__unknown_enums(void **state)
{
    (void)state;
    cf_writer_options o;
    int bad_types[] = {-1, 18, 21, 1000};
    for (size_t i = 0; i < sizeof bad_types / sizeof bad_types[0]; i++) {
        cf_writer_options_init(&o, CF_TYPE_INT32);
        o.type = (cf_type)bad_types[i];
        expect_bad_options(&o, "type");
    }
    int bad_encs[] = {-1, 7, 99};
    for (size_t i = 0; i < sizeof bad_encs / sizeof bad_encs[0]; i++) {
        o = col_options((col_opts){.type = CF_TYPE_INT32, .enc = (cf_encoding)bad_encs[i]});
        expect_bad_options(&o, "encoding");
    }
    int bad_comps[] = {-1, 5, 99};
    for (size_t i = 0; i < sizeof bad_comps / sizeof bad_comps[0]; i++) {
        o = col_options((col_opts){.type = CF_TYPE_INT32, .comp = (cf_compression)bad_comps[i]});
        expect_bad_options(&o, "compression");
    }
    /* A struct not filled by _init (or from a future layout). */
    cf_writer_options_init(&o, CF_TYPE_INT32);
    o.version = 0;
    expect_bad_options(&o, "version");
    o.version = CF_WRITER_OPTIONS_VERSION + 1;
    expect_bad_options(&o, "version");
}

static void test_writer_validation__group_varint_is_read_only(void **state)
{
    (void)state;
    cf_writer_options o =
        col_options((col_opts){.type = CF_TYPE_UINT32, .enc = CF_ENC_GROUP_VARINT});
    expect_bad_options(&o, "GROUP_VARINT");
}

static void test_writer_validation__validx_unkeyable_types(void **state)
{
    (void)state;
    cf_type t[] = {CF_TYPE_FLOAT, CF_TYPE_DOUBLE, CF_TYPE_BOOL};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        cf_writer_options o = col_options((col_opts){.type = t[i], .validx = true});
        expect_bad_options(&o, "write_validx");
    }
    cf_writer_options o =
        col_options((col_opts){.type = CF_TYPE_INT32, .is_array = true, .validx = true});
    expect_bad_options(&o, "write_validx");
    /* Every keyable type is fine. */
    cf_type okt[] = {CF_TYPE_INT8,   CF_TYPE_UINT64, CF_TYPE_STRING,   CF_TYPE_BINARY,
                     CF_TYPE_INT128, CF_TYPE_DATE,   CF_TYPE_DECIMAL64};
    for (size_t i = 0; i < sizeof okt / sizeof okt[0]; i++) {
        o = col_options((col_opts){.type = okt[i], .validx = true});
        expect_created(&o);
    }
}

static void test_writer_validation__null_pointers_at_create(void **state)
{
    (void)state;
    cf_error err;
    cf_writer *w = (cf_writer *)&err;
    cf_io *io;
    CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
    ASSERT_ERR(cf_writer_create(&w, io, NULL, &err), CF_EINVAL, &err, "options");
    assert_null(w);
    cf_writer_options o;
    cf_writer_options_init(&o, CF_TYPE_INT32);
    ASSERT_ERR(cf_writer_create(&w, NULL, &o, &err), CF_EINVAL, &err, "io");
    /* A read-only io cannot be written. */
    cf_io *ro;
    uint8_t byte = 0;
    CF_ASSERT_OK(cf_io_open_mem(&ro, &byte, 1, &err), &err);
    ASSERT_ERR(cf_writer_create(&w, ro, &o, &err), CF_EINVAL, &err, "io");
    cf_io_free(ro);
    cf_io_free(io);
    ASSERT_ERR(cf_writer_create_file(&w, NULL, &o, &err), CF_EINVAL, &err, "path");
    ASSERT_ERR(cf_writer_create_file(&w, "", &o, &err), CF_EINVAL, &err, "path");
    /* The error record may be NULL. */
    assert_int_equal(cf_writer_create(&w, NULL, &o, NULL), CF_EINVAL);
}

/* Bad options given to create_file leave nothing behind in the directory. */
static void test_writer_validation__create_file_bad_options_leaves_nothing(void **state)
{
    (void)state;
    char dir[] = "/tmp/cf_wv_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/col.cfile", dir);
    cf_writer_options o = col_options((col_opts){.type = CF_TYPE_INT32, .block_size = UINT32_MAX});
    cf_writer *w;
    cf_error err;
    ASSERT_ERR(cf_writer_create_file(&w, path, &o, &err), CF_EINVAL, &err, "block_size");
    assert_null(w);
    /* rmdir succeeds only on an empty directory: no target, no temp file. */
    assert_int_equal(rmdir(dir), 0);
}

static void test_writer_validation__null_in_non_nullable_column(void **state)
{
    (void)state;
    cf_writer_options o;
    cf_writer_options_init(&o, CF_TYPE_INT32);
    cf_io *io;
    cf_writer *w;
    cf_error err;
    CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
    int32_t v[10] = {0};
    uint8_t nonnull[2] = {0xff, 0x01}; /* rows 0..8 present, row 9 NULL */
    ASSERT_ERR(cf_writer_append(w, v, nonnull, 10, &err), CF_EINVAL, &err, "nullable");
    drop(w, io);

    /* An all-set bitmap is accepted on a non-nullable column. */
    CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
    uint8_t all[2] = {0xff, 0x03};
    CF_ASSERT_OK(cf_writer_append(w, v, all, 10, &err), &err);
    CF_ASSERT_OK(cf_writer_finish(w, &err), &err);
    drop(w, io);

    /* Arrays: a NULL cell in a column that is not nullable. */
    o = col_options((col_opts){.type = CF_TYPE_INT32, .is_array = true});
    CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
    uint32_t counts[2] = {1, 0};
    uint8_t cells = 0x01; /* cell 1 NULL */
    ASSERT_ERR(cf_writer_append_arrays(w, v, NULL, counts, &cells, 2, &err), CF_EINVAL, &err,
               "nullable");
    drop(w, io);
}

static void test_writer_validation__arrays(void **state)
{
    (void)state;
    cf_writer_options o =
        col_options((col_opts){.type = CF_TYPE_INT16, .is_array = true, .nullable = true});
    cf_io *io;
    cf_writer *w;
    cf_error err;
    /* Too long: Kudu's u16 element count would silently truncate 65536 to 0. */
    size_t n = CF_MAX_ARRAY_ELEMS + 1;
    int16_t *elems = calloc(n + 8, sizeof *elems); /* and the 2 + 1 of the other cells */
    assert_non_null(elems);
    uint32_t counts[3] = {2, (uint32_t)n, 1};
    CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
    ASSERT_ERR(cf_writer_append_arrays(w, elems, NULL, counts, NULL, 3, &err), CF_EINVAL, &err,
               "65535");
    assert_int_equal(cf_writer_num_values(w), 0); /* nothing half-added */
    drop(w, io);
    /* Exactly the maximum is fine and reads back whole. */
    counts[1] = CF_MAX_ARRAY_ELEMS;
    CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
    CF_ASSERT_OK(cf_writer_append_arrays(w, elems, NULL, counts, NULL, 3, &err), &err);
    CF_ASSERT_OK(cf_writer_finish(w, &err), &err);
    assert_int_equal(cf_writer_num_values(w), 3);
    drop(w, io);

    /* A NULL cell must say 0 elements. */
    uint32_t c2[2] = {1, 3};
    uint8_t cells = 0x01;
    CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
    ASSERT_ERR(cf_writer_append_arrays(w, elems, NULL, c2, &cells, 2, &err), CF_EINVAL, &err,
               "cell 1");
    drop(w, io);

    /* NULL pointers. */
    CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
    ASSERT_ERR(cf_writer_append_arrays(w, elems, NULL, NULL, NULL, 2, &err), CF_EINVAL, &err,
               "elem_counts");
    drop(w, io);
    CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
    ASSERT_ERR(cf_writer_append_arrays(w, NULL, NULL, c2, NULL, 2, &err), CF_EINVAL, &err, "elems");
    drop(w, io);
    /* No elements at all needs no element buffer. */
    uint32_t zero[2] = {0, 0};
    CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
    CF_ASSERT_OK(cf_writer_append_arrays(w, NULL, NULL, zero, NULL, 2, &err), &err);
    CF_ASSERT_OK(cf_writer_finish(w, &err), &err);
    drop(w, io);
    free(elems);
}

static void test_writer_validation__wrong_append_function(void **state)
{
    (void)state;
    cf_writer_options o = col_options((col_opts){.type = CF_TYPE_INT32, .is_array = true});
    cf_io *io;
    cf_writer *w;
    cf_error err;
    int32_t v[2] = {1, 2};
    CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
    ASSERT_ERR(cf_writer_append(w, v, NULL, 2, &err), CF_EINVAL, &err, "append_arrays");
    drop(w, io);

    cf_writer_options_init(&o, CF_TYPE_INT32);
    uint32_t counts[1] = {2};
    CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
    ASSERT_ERR(cf_writer_append_arrays(w, v, NULL, counts, NULL, 1, &err), CF_EINVAL, &err,
               "cf_writer_append");
    drop(w, io);
}

static void test_writer_validation__null_values(void **state)
{
    (void)state;
    cf_writer_options o;
    cf_writer_options_init(&o, CF_TYPE_INT32);
    cf_io *io;
    cf_writer *w;
    cf_error err;
    CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
    CF_ASSERT_OK(cf_writer_append(w, NULL, NULL, 0, &err), &err); /* nothing to read */
    ASSERT_ERR(cf_writer_append(w, NULL, NULL, 3, &err), CF_EINVAL, &err, "values");
    drop(w, io);
    CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
    ASSERT_ERR(cf_writer_add_metadata(w, NULL, "v", 1, &err), CF_EINVAL, &err, "metadata");
    drop(w, io);
    CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
    ASSERT_ERR(cf_writer_add_metadata(w, "k", NULL, 1, &err), CF_EINVAL, &err, "metadata");
    drop(w, io);
    /* An empty value may be NULL. */
    CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
    CF_ASSERT_OK(cf_writer_add_metadata(w, "k", NULL, 0, &err), &err);
    drop(w, io);
}

/* cf_reader_get_metadata is an in-memory lookup: true and the value when the key
 * is there (header pairs before footer pairs), false when absent (cfile.h,
 * "Lookups"); out may be NULL. */
static void test_writer_validation__metadata_lookup(void **state)
{
    (void)state;
    cf_writer_options o;
    cf_writer_options_init(&o, CF_TYPE_INT32);
    cf_io *io;
    cf_writer *w;
    cf_error err;
    CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
    CF_ASSERT_OK(cf_writer_add_metadata(w, "k", "v1", 2, &err), &err);
    int32_t v = 7;
    CF_ASSERT_OK(cf_writer_append(w, &v, NULL, 1, &err), &err);
    CF_ASSERT_OK(cf_writer_finish(w, &err), &err);
    cf_slice bytes = cf_io_mem_contents(io);
    cf_io *rio;
    cf_reader *r;
    CF_ASSERT_OK(cf_io_open_mem(&rio, bytes.data, bytes.len, &err), &err);
    CF_ASSERT_OK(cf_reader_open(&r, rio, NULL, &err), &err);
    cf_slice got = {0};
    assert_true(cf_reader_get_metadata(r, "k", &got));
    assert_int_equal(got.len, 2);
    assert_memory_equal(got.data, "v1", 2);
    assert_true(cf_reader_get_metadata(r, "k", NULL));
    got.len = 99;
    assert_false(cf_reader_get_metadata(r, "absent", &got));
    assert_int_equal(got.len, 99); /* untouched */
    cf_reader_free(r);
    cf_io_free(rio);
    drop(w, io);
}

static void test_writer_validation__values_out_of_order(void **state)
{
    (void)state;
    cf_writer_options o = col_options((col_opts){.type = CF_TYPE_INT32, .validx = true});
    cf_io *io;
    cf_writer *w;
    cf_error err;
    /* Within one call; signed order, so -1 < 0 holds. Equal neighbours are fine. */
    int32_t v[5] = {-5, -1, -1, 0, -2};
    CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
    ASSERT_ERR(cf_writer_append(w, v, NULL, 5, &err), CF_EINVAL, &err, "row 4");
    drop(w, io);
    /* Across calls. */
    CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
    CF_ASSERT_OK(cf_writer_append(w, v, NULL, 4, &err), &err);
    ASSERT_ERR(cf_writer_append(w, v + 4, NULL, 1, &err), CF_EINVAL, &err, "sorted");
    drop(w, io);
    /* Binary: a proper prefix sorts first; "ab" after "abc" is out of order. */
    o = col_options((col_opts){.type = CF_TYPE_STRING, .validx = true});
    cf_slice s[3] = {
        {(const uint8_t *)"ab", 2}, {(const uint8_t *)"abc", 3}, {(const uint8_t *)"ab", 2}};
    CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
    CF_ASSERT_OK(cf_writer_append(w, s, NULL, 2, &err), &err);
    ASSERT_ERR(cf_writer_append(w, s + 2, NULL, 1, &err), CF_EINVAL, &err, "row 2");
    drop(w, io);
    /* Unsigned order for UINT64: 2^63 > 1. */
    o = col_options((col_opts){.type = CF_TYPE_UINT64, .validx = true});
    uint64_t u[3] = {1, UINT64_C(1) << 63, 7};
    CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
    ASSERT_ERR(cf_writer_append(w, u, NULL, 3, &err), CF_EINVAL, &err, "row 2");
    drop(w, io);
}

static void test_writer_validation__first_error_is_sticky(void **state)
{
    (void)state;
    cf_writer_options o = col_options((col_opts){.type = CF_TYPE_INT32, .validx = true});
    cf_io *io;
    cf_writer *w;
    cf_error err;
    int32_t v[3] = {5, 1, 9};
    CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
    ASSERT_ERR(cf_writer_append(w, v, NULL, 2, &err), CF_EINVAL, &err, "sorted");
    const cf_error first = err;
    /* A valid append, metadata and finish all report the first error again,
     * its message included. */
    CF_ASSERT_REPLAYED(cf_writer_append(w, v + 2, NULL, 1, &err), CF_EINVAL, &err, "cfile writer",
                       &first);
    CF_ASSERT_REPLAYED(cf_writer_add_metadata(w, "k", "v", 1, &err), CF_EINVAL, &err,
                       "cfile writer", &first);
    CF_ASSERT_REPLAYED(cf_writer_finish(w, &err), CF_EINVAL, &err, "cfile writer", &first);
    assert_string_equal(err.where, first.where); /* the origin is the first failure's */
    drop(w, io);
}

static void test_writer_validation__calls_after_finish(void **state)
{
    (void)state;
    cf_writer_options o;
    cf_writer_options_init(&o, CF_TYPE_INT32);
    cf_io *io;
    cf_writer *w;
    cf_error err;
    int32_t v[2] = {1, 2};
    CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
    CF_ASSERT_OK(cf_writer_append(w, v, NULL, 2, &err), &err);
    CF_ASSERT_OK(cf_writer_finish(w, &err), &err);
    size_t len = cf_io_mem_contents(io).len;
    ASSERT_ERR(cf_writer_finish(w, &err), CF_ESTATE, &err, "twice");
    ASSERT_ERR(cf_writer_add_metadata(w, "k", "v", 1, &err), CF_ESTATE, &err, "after finish");
    assert_int_equal(cf_io_mem_contents(io).len, len); /* the file is untouched */
    drop(w, io);

    /* The misuse itself is the writer's first error, hence sticky: a later
     * finish repeats it. */
    CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
    CF_ASSERT_OK(cf_writer_append(w, v, NULL, 2, &err), &err);
    CF_ASSERT_OK(cf_writer_finish(w, &err), &err);
    ASSERT_ERR(cf_writer_append(w, v, NULL, 2, &err), CF_ESTATE, &err, "after finish");
    ASSERT_ERR(cf_writer_finish(w, &err), CF_ESTATE, &err, "after finish");
    assert_int_equal(cf_io_mem_contents(io).len, len);
    assert_int_equal(cf_writer_num_values(w), 2);
    drop(w, io);

    /* Arrays too. */
    o = col_options((col_opts){.type = CF_TYPE_INT32, .is_array = true});
    uint32_t counts[1] = {2};
    CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
    CF_ASSERT_OK(cf_writer_finish(w, &err), &err);
    ASSERT_ERR(cf_writer_append_arrays(w, v, NULL, counts, NULL, 1, &err), CF_ESTATE, &err,
               "after finish");
    drop(w, io);
}

/* BOOL values are one byte each and any nonzero byte is true (the width is
 * fixed by the type: the library cannot see a buffer of another width). */
static void test_writer_validation__bool_nonzero_is_true(void **state)
{
    (void)state;
    cf_error err;
    cf_encoding encs[] = {CF_ENC_PLAIN, CF_ENC_RLE};
    for (size_t e = 0; e < 2; e++) {
        cf_writer_options o = col_options((col_opts){.type = CF_TYPE_BOOL, .enc = encs[e]});
        cf_io *io;
        cf_writer *w;
        uint8_t v[12] = {0, 1, 2, 0xff, 0, 0x80, 1, 0, 0, 7, 1, 0};
        CF_ASSERT_OK(create(&w, &io, &o, &err), &err);
        CF_ASSERT_OK(cf_writer_append(w, v, NULL, 12, &err), &err);
        CF_ASSERT_OK(cf_writer_finish(w, &err), &err);
        cf_slice bytes = cf_io_mem_contents(io);
        cf_io *rio;
        CF_ASSERT_OK(cf_io_open_mem(&rio, bytes.data, bytes.len, &err), &err);
        cf_reader *r;
        CF_ASSERT_OK(cf_reader_open(&r, rio, NULL, &err), &err);
        cf_iter *it;
        CF_ASSERT_OK(cf_iter_create(&it, r, &err), &err);
        uint8_t got[12];
        size_t n;
        CF_ASSERT_OK(cf_iter_copy_batch(it, got, NULL, 12, &n, &err), &err);
        assert_int_equal(n, 12);
        for (size_t i = 0; i < 12; i++)
            assert_int_equal(got[i], v[i] != 0);
        cf_iter_free(it);
        cf_reader_free(r);
        cf_io_free(rio);
        drop(w, io);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer_validation__block_size),
        cmocka_unit_test(test_writer_validation__index_block_size),
        cmocka_unit_test(test_writer_validation__restart_interval),
        cmocka_unit_test(test_writer_validation__unknown_enums),
        cmocka_unit_test(test_writer_validation__group_varint_is_read_only),
        cmocka_unit_test(test_writer_validation__validx_unkeyable_types),
        cmocka_unit_test(test_writer_validation__null_pointers_at_create),
        cmocka_unit_test(test_writer_validation__create_file_bad_options_leaves_nothing),
        cmocka_unit_test(test_writer_validation__null_in_non_nullable_column),
        cmocka_unit_test(test_writer_validation__arrays),
        cmocka_unit_test(test_writer_validation__wrong_append_function),
        cmocka_unit_test(test_writer_validation__null_values),
        cmocka_unit_test(test_writer_validation__values_out_of_order),
        cmocka_unit_test(test_writer_validation__first_error_is_sticky),
        cmocka_unit_test(test_writer_validation__calls_after_finish),
        cmocka_unit_test(test_writer_validation__bool_nonzero_is_true),
        cmocka_unit_test(test_writer_validation__metadata_lookup),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

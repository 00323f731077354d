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

/* The state of the tests that call a writer: one on a fresh memory io. */
typedef struct fix {
    cf_writer *w;
    cf_io *io;
    cf_error err;
} fix;

/* Free f's writer and io and start new ones with options o (NULL: INT32 with
 * _init's options). A writer's first error is sticky, so each misuse a test
 * checks gets a writer of its own. */
static void renew(fix *f, const cf_writer_options *o)
{
    drop(f->w, f->io);
    cf_writer_options int32;
    cf_writer_options_init(&int32, CF_TYPE_INT32);
    CF_ASSERT_OK(create(&f->w, &f->io, o != NULL ? o : &int32, &f->err), &f->err);
}

static int fix_setup(void **state)
{
    fix *f = calloc(1, sizeof *f);
    if (f == NULL)
        return -1;
    renew(f, NULL);
    *state = f;
    return 0;
}

static int fix_teardown(void **state)
{
    fix *f = *state;
    drop(f->w, f->io);
    free(f);
    return 0;
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
    fix *f = *state;
    int32_t v[10] = {0};
    uint8_t nonnull[2] = {0xff, 0x01}; /* rows 0..8 present, row 9 NULL */
    ASSERT_ERR(cf_writer_append(f->w, v, nonnull, 10, &f->err), CF_EINVAL, &f->err, "nullable");

    /* An all-set bitmap is accepted on a non-nullable column. */
    renew(f, NULL);
    uint8_t all[2] = {0xff, 0x03};
    CF_ASSERT_OK(cf_writer_append(f->w, v, all, 10, &f->err), &f->err);
    CF_ASSERT_OK(cf_writer_finish(f->w, &f->err), &f->err);

    /* Arrays: a NULL cell in a column that is not nullable. */
    cf_writer_options o = col_options((col_opts){.type = CF_TYPE_INT32, .is_array = true});
    renew(f, &o);
    uint32_t counts[2] = {1, 0};
    uint8_t cells = 0x01; /* cell 1 NULL */
    ASSERT_ERR(cf_writer_append_arrays(f->w, v, NULL, counts, &cells, 2, &f->err), CF_EINVAL,
               &f->err, "nullable");
}

static void test_writer_validation__arrays(void **state)
{
    fix *f = *state;
    cf_writer_options o =
        col_options((col_opts){.type = CF_TYPE_INT16, .is_array = true, .nullable = true});
    /* Too long: Kudu's u16 element count would silently truncate 65536 to 0. */
    size_t n = CF_MAX_ARRAY_ELEMS + 1;
    int16_t *elems = calloc(n + 8, sizeof *elems); /* and the 2 + 1 of the other cells */
    assert_non_null(elems);
    uint32_t counts[3] = {2, (uint32_t)n, 1};
    renew(f, &o);
    ASSERT_ERR(cf_writer_append_arrays(f->w, elems, NULL, counts, NULL, 3, &f->err), CF_EINVAL,
               &f->err, "65535");
    assert_int_equal(cf_writer_num_values(f->w), 0); /* nothing half-added */
    /* Exactly the maximum is fine and reads back whole. */
    counts[1] = CF_MAX_ARRAY_ELEMS;
    renew(f, &o);
    CF_ASSERT_OK(cf_writer_append_arrays(f->w, elems, NULL, counts, NULL, 3, &f->err), &f->err);
    CF_ASSERT_OK(cf_writer_finish(f->w, &f->err), &f->err);
    assert_int_equal(cf_writer_num_values(f->w), 3);

    /* A NULL cell must say 0 elements. */
    uint32_t c2[2] = {1, 3};
    uint8_t cells = 0x01;
    renew(f, &o);
    ASSERT_ERR(cf_writer_append_arrays(f->w, elems, NULL, c2, &cells, 2, &f->err), CF_EINVAL,
               &f->err, "cell 1");

    /* NULL pointers. */
    renew(f, &o);
    ASSERT_ERR(cf_writer_append_arrays(f->w, elems, NULL, NULL, NULL, 2, &f->err), CF_EINVAL,
               &f->err, "elem_counts");
    renew(f, &o);
    ASSERT_ERR(cf_writer_append_arrays(f->w, NULL, NULL, c2, NULL, 2, &f->err), CF_EINVAL, &f->err,
               "elems");
    /* No elements at all needs no element buffer. */
    uint32_t zero[2] = {0, 0};
    renew(f, &o);
    CF_ASSERT_OK(cf_writer_append_arrays(f->w, NULL, NULL, zero, NULL, 2, &f->err), &f->err);
    CF_ASSERT_OK(cf_writer_finish(f->w, &f->err), &f->err);
    free(elems);
}

static void test_writer_validation__wrong_append_function(void **state)
{
    fix *f = *state;
    cf_writer_options o = col_options((col_opts){.type = CF_TYPE_INT32, .is_array = true});
    int32_t v[2] = {1, 2};
    renew(f, &o);
    ASSERT_ERR(cf_writer_append(f->w, v, NULL, 2, &f->err), CF_EINVAL, &f->err, "append_arrays");

    cf_writer_options_init(&o, CF_TYPE_INT32);
    uint32_t counts[1] = {2};
    renew(f, &o);
    ASSERT_ERR(cf_writer_append_arrays(f->w, v, NULL, counts, NULL, 1, &f->err), CF_EINVAL, &f->err,
               "cf_writer_append");
}

static void test_writer_validation__null_values(void **state)
{
    fix *f = *state;
    CF_ASSERT_OK(cf_writer_append(f->w, NULL, NULL, 0, &f->err), &f->err); /* nothing to read */
    ASSERT_ERR(cf_writer_append(f->w, NULL, NULL, 3, &f->err), CF_EINVAL, &f->err, "values");
    renew(f, NULL);
    ASSERT_ERR(cf_writer_add_metadata(f->w, NULL, "v", 1, &f->err), CF_EINVAL, &f->err, "metadata");
    renew(f, NULL);
    ASSERT_ERR(cf_writer_add_metadata(f->w, "k", NULL, 1, &f->err), CF_EINVAL, &f->err, "metadata");
    /* An empty value may be NULL. */
    renew(f, NULL);
    CF_ASSERT_OK(cf_writer_add_metadata(f->w, "k", NULL, 0, &f->err), &f->err);
}

/* cf_reader_get_metadata is an in-memory lookup: true and the value when the key
 * is there (header pairs before footer pairs), false when absent (cfile.h,
 * "Lookups"); out may be NULL. */
static void test_writer_validation__metadata_lookup(void **state)
{
    fix *f = *state;
    CF_ASSERT_OK(cf_writer_add_metadata(f->w, "k", "v1", 2, &f->err), &f->err);
    int32_t v = 7;
    CF_ASSERT_OK(cf_writer_append(f->w, &v, NULL, 1, &f->err), &f->err);
    CF_ASSERT_OK(cf_writer_finish(f->w, &f->err), &f->err);
    cf_slice bytes = cf_io_mem_contents(f->io);
    cf_io *rio;
    cf_reader *r;
    CF_ASSERT_OK(cf_io_open_mem(&rio, bytes.data, bytes.len, &f->err), &f->err);
    CF_ASSERT_OK(cf_reader_open(&r, rio, NULL, &f->err), &f->err);
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
}

static void test_writer_validation__values_out_of_order(void **state)
{
    fix *f = *state;
    cf_writer_options o = col_options((col_opts){.type = CF_TYPE_INT32, .validx = true});
    /* Within one call; signed order, so -1 < 0 holds. Equal neighbours are fine. */
    int32_t v[5] = {-5, -1, -1, 0, -2};
    renew(f, &o);
    ASSERT_ERR(cf_writer_append(f->w, v, NULL, 5, &f->err), CF_EINVAL, &f->err, "row 4");
    /* Across calls. */
    renew(f, &o);
    CF_ASSERT_OK(cf_writer_append(f->w, v, NULL, 4, &f->err), &f->err);
    ASSERT_ERR(cf_writer_append(f->w, v + 4, NULL, 1, &f->err), CF_EINVAL, &f->err, "sorted");
    /* Binary: a proper prefix sorts first; "ab" after "abc" is out of order. */
    o = col_options((col_opts){.type = CF_TYPE_STRING, .validx = true});
    cf_slice s[3] = {
        {(const uint8_t *)"ab", 2}, {(const uint8_t *)"abc", 3}, {(const uint8_t *)"ab", 2}};
    renew(f, &o);
    CF_ASSERT_OK(cf_writer_append(f->w, s, NULL, 2, &f->err), &f->err);
    ASSERT_ERR(cf_writer_append(f->w, s + 2, NULL, 1, &f->err), CF_EINVAL, &f->err, "row 2");
    /* Unsigned order for UINT64: 2^63 > 1. */
    o = col_options((col_opts){.type = CF_TYPE_UINT64, .validx = true});
    uint64_t u[3] = {1, UINT64_C(1) << 63, 7};
    renew(f, &o);
    ASSERT_ERR(cf_writer_append(f->w, u, NULL, 3, &f->err), CF_EINVAL, &f->err, "row 2");
}

static void test_writer_validation__first_error_is_sticky(void **state)
{
    fix *f = *state;
    cf_writer_options o = col_options((col_opts){.type = CF_TYPE_INT32, .validx = true});
    int32_t v[3] = {5, 1, 9};
    renew(f, &o);
    ASSERT_ERR(cf_writer_append(f->w, v, NULL, 2, &f->err), CF_EINVAL, &f->err, "sorted");
    const cf_error first = f->err;
    /* A valid append, metadata and finish all report the first error again,
     * its message included. */
    CF_ASSERT_REPLAYED(cf_writer_append(f->w, v + 2, NULL, 1, &f->err), CF_EINVAL, &f->err,
                       "cfile writer", &first);
    CF_ASSERT_REPLAYED(cf_writer_add_metadata(f->w, "k", "v", 1, &f->err), CF_EINVAL, &f->err,
                       "cfile writer", &first);
    CF_ASSERT_REPLAYED(cf_writer_finish(f->w, &f->err), CF_EINVAL, &f->err, "cfile writer", &first);
    assert_string_equal(f->err.where, first.where); /* the origin is the first failure's */
}

static void test_writer_validation__calls_after_finish(void **state)
{
    fix *f = *state;
    int32_t v[2] = {1, 2};
    CF_ASSERT_OK(cf_writer_append(f->w, v, NULL, 2, &f->err), &f->err);
    CF_ASSERT_OK(cf_writer_finish(f->w, &f->err), &f->err);
    size_t len = cf_io_mem_contents(f->io).len;
    ASSERT_ERR(cf_writer_finish(f->w, &f->err), CF_ESTATE, &f->err, "twice");
    ASSERT_ERR(cf_writer_add_metadata(f->w, "k", "v", 1, &f->err), CF_ESTATE, &f->err,
               "after finish");
    assert_int_equal(cf_io_mem_contents(f->io).len, len); /* the file is untouched */

    /* The misuse itself is the writer's first error, hence sticky: a later
     * finish repeats it. */
    renew(f, NULL);
    CF_ASSERT_OK(cf_writer_append(f->w, v, NULL, 2, &f->err), &f->err);
    CF_ASSERT_OK(cf_writer_finish(f->w, &f->err), &f->err);
    ASSERT_ERR(cf_writer_append(f->w, v, NULL, 2, &f->err), CF_ESTATE, &f->err, "after finish");
    ASSERT_ERR(cf_writer_finish(f->w, &f->err), CF_ESTATE, &f->err, "after finish");
    assert_int_equal(cf_io_mem_contents(f->io).len, len);
    assert_int_equal(cf_writer_num_values(f->w), 2);

    /* Arrays too. */
    cf_writer_options o = col_options((col_opts){.type = CF_TYPE_INT32, .is_array = true});
    uint32_t counts[1] = {2};
    renew(f, &o);
    CF_ASSERT_OK(cf_writer_finish(f->w, &f->err), &f->err);
    ASSERT_ERR(cf_writer_append_arrays(f->w, v, NULL, counts, NULL, 1, &f->err), CF_ESTATE, &f->err,
               "after finish");
}

/* BOOL values are one byte each and any nonzero byte is true (the width is
 * fixed by the type: the library cannot see a buffer of another width). */
static void test_writer_validation__bool_nonzero_is_true(void **state)
{
    fix *f = *state;
    cf_encoding encs[] = {CF_ENC_PLAIN, CF_ENC_RLE};
    for (size_t e = 0; e < 2; e++) {
        cf_writer_options o = col_options((col_opts){.type = CF_TYPE_BOOL, .enc = encs[e]});
        uint8_t v[12] = {0, 1, 2, 0xff, 0, 0x80, 1, 0, 0, 7, 1, 0};
        renew(f, &o);
        CF_ASSERT_OK(cf_writer_append(f->w, v, NULL, 12, &f->err), &f->err);
        CF_ASSERT_OK(cf_writer_finish(f->w, &f->err), &f->err);
        cf_slice bytes = cf_io_mem_contents(f->io);
        cf_io *rio;
        CF_ASSERT_OK(cf_io_open_mem(&rio, bytes.data, bytes.len, &f->err), &f->err);
        cf_reader *r;
        CF_ASSERT_OK(cf_reader_open(&r, rio, NULL, &f->err), &f->err);
        cf_iter *it;
        CF_ASSERT_OK(cf_iter_create(&it, r, &f->err), &f->err);
        uint8_t got[12];
        size_t n;
        CF_ASSERT_OK(cf_iter_copy_batch(it, got, NULL, 12, &n, &f->err), &f->err);
        assert_int_equal(n, 12);
        for (size_t i = 0; i < 12; i++)
            assert_int_equal(got[i], v[i] != 0);
        cf_iter_free(it);
        cf_reader_free(r);
        cf_io_free(rio);
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
        cmocka_unit_test_setup_teardown(test_writer_validation__null_in_non_nullable_column,
                                        fix_setup, fix_teardown),
        cmocka_unit_test_setup_teardown(test_writer_validation__arrays, fix_setup, fix_teardown),
        cmocka_unit_test_setup_teardown(test_writer_validation__wrong_append_function, fix_setup,
                                        fix_teardown),
        cmocka_unit_test_setup_teardown(test_writer_validation__null_values, fix_setup,
                                        fix_teardown),
        cmocka_unit_test_setup_teardown(test_writer_validation__values_out_of_order, fix_setup,
                                        fix_teardown),
        cmocka_unit_test_setup_teardown(test_writer_validation__first_error_is_sticky, fix_setup,
                                        fix_teardown),
        cmocka_unit_test_setup_teardown(test_writer_validation__calls_after_finish, fix_setup,
                                        fix_teardown),
        cmocka_unit_test_setup_teardown(test_writer_validation__bool_nonzero_is_true, fix_setup,
                                        fix_teardown),
        cmocka_unit_test_setup_teardown(test_writer_validation__metadata_lookup, fix_setup,
                                        fix_teardown),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

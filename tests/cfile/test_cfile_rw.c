/* Writer and reader end to end through memory: exact bytes of the format's
 * worked examples, round trips over types x nulls x block sizes, seeks, and
 * the errors of a misused writer or a damaged file. */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/cfile.h>

#include "support_mem.h"
#include "support_opts.h"

static void test_cfile_rw__worked_example_99_bytes(void **state)
{
    (void)state;
    /* format §14.2: INT32 PLAIN, values 1, 2, 3, checksums, positional index. */
    static const char *want_hex = "6b75647563666c32 00000000 02943ad3"
                                  "03000000 00000000 01000000 02000000 03000000 bee92a24"
                                  "04 00000000 10 18 00000000 08011000 04000000 33c9f219"
                                  "1f6ba458 0805 1001 1803 22060a0408281017 3001 4000 5001"
                                  "6b75647563666c32 14000000";
    uint8_t want[128];
    size_t want_len = cf_test_unhex(want_hex, want, sizeof want);
    assert_int_equal(want_len, 99);
    cf_writer_options o = col_options((col_opts){.type = CF_TYPE_INT32, .enc = CF_ENC_PLAIN});
    int32_t v[3] = {1, 2, 3};
    mem_file f;
    cf_error err;
    CF_ASSERT_OK(write_mem(&o, v, NULL, 3, 100, &f, &err), &err);
    CF_ASSERT_BYTES(f.data, f.len, want, want_len);
    free(f.data);
}

static void test_cfile_rw__read_back_and_seek(void **state)
{
    (void)state;
    cf_writer_options o =
        col_options((col_opts){.type = CF_TYPE_INT64, .enc = CF_ENC_PLAIN, .block_size = 512});
    o.index_block_size = 64; /* several index levels */
    o.write_validx = true;
    enum { N = 5000 };
    int64_t *v = malloc(N * sizeof *v);
    for (int i = 0; i < N; i++)
        v[i] = (int64_t)i * 3 - 7000;
    mem_file f;
    cf_error err;
    CF_ASSERT_OK(write_mem(&o, v, NULL, N, 100, &f, &err), &err);
    cf_io *io;
    CF_ASSERT_OK(cf_io_open_mem(&io, f.data, f.len, &err), &err);
    cf_reader *r;
    CF_ASSERT_OK(cf_reader_open(&r, io, NULL, &err), &err);
    const cf_file_info *fi = cf_reader_info(r);
    assert_int_equal(fi->num_values, N);
    assert_true(fi->has_posidx && fi->has_validx);
    cf_iter *it;
    CF_ASSERT_OK(cf_iter_create(&it, r, &err), &err);
    size_t seen = 0;
    for (;;) {
        cf_batch b;
        CF_ASSERT_OK(cf_iter_next_batch(it, 77, &b, &err), &err);
        if (b.count == 0)
            break;
        assert_int_equal(b.first_ord, seen);
        assert_memory_equal(b.values, v + seen, b.count * 8);
        seen += b.count;
    }
    assert_int_equal(seen, N);
    for (int k = 0; k < 200; k++) {
        uint64_t ord = (uint64_t)(k * 37) % N;
        CF_ASSERT_OK(cf_iter_seek_to_ordinal(it, ord, &err), &err);
        cf_batch b;
        CF_ASSERT_OK(cf_iter_next_batch(it, 1, &b, &err), &err);
        assert_int_equal(b.count, 1);
        assert_int_equal(((const int64_t *)b.values)[0], v[ord]);
        /* value seeks: exact hits and the gaps between values */
        int64_t key = v[ord] + (k & 1);
        bool exact;
        cf_status st = cf_iter_seek_at_or_after(it, &key, &exact, &err);
        if (k & 1) {
            if (ord == N - 1) {
                CF_ASSERT_STATUS(st, CF_ENOTFOUND, &err);
                continue;
            }
            CF_ASSERT_OK(st, &err);
            assert_false(exact);
            assert_int_equal(cf_iter_current_ordinal(it), ord + 1);
        } else {
            CF_ASSERT_OK(st, &err);
            assert_true(exact);
            assert_int_equal(cf_iter_current_ordinal(it), ord);
        }
    }
    CF_ASSERT_STATUS(cf_iter_seek_to_ordinal(it, N, &err), CF_ENOTFOUND, &err);
    int64_t before = -100000;
    bool exact;
    CF_ASSERT_OK(cf_iter_seek_at_or_after(it, &before, &exact, &err), &err);
    assert_false(exact);
    assert_int_equal(cf_iter_current_ordinal(it), 0);
    cf_iter_free(it);
    cf_reader_free(r);
    cf_io_free(io);
    free(f.data);
    free(v);
}

static void test_cfile_rw__nullable_round_trip(void **state)
{
    (void)state;
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(42));
    static const uint32_t block_sizes[] = {512, 1000, 4096, 262144};
    for (size_t bs = 0; bs < 4; bs++) {
        for (int pattern = 0; pattern < 4; pattern++) {
            size_t n = 3000 + cf_rng_below(&rng, 2000);
            int32_t *v = calloc(n, 4);
            uint8_t *nn = calloc(n / 8 + 1, 1);
            for (size_t i = 0; i < n; i++) {
                bool present = pattern == 0   ? true
                               : pattern == 1 ? false
                               : pattern == 2 ? (i % 10) != 3
                                              : cf_rng_below(&rng, 3) != 0;
                if (present) {
                    nn[i / 8] |= (uint8_t)(1u << (i % 8));
                    v[i] = (int32_t)cf_rng_next(&rng);
                }
            }
            cf_writer_options o = col_options((col_opts){.type = CF_TYPE_INT32,
                                                         .enc = CF_ENC_PLAIN,
                                                         .nullable = true,
                                                         .block_size = block_sizes[bs]});
            mem_file f;
            cf_error err;
            CF_ASSERT_OK(write_mem(&o, v, nn, n, 1 + cf_rng_below(&rng, 300), &f, &err), &err);
            cf_reader *r;
            cf_io *io;
            CF_ASSERT_OK(cf_io_open_mem(&io, f.data, f.len, &err), &err);
            CF_ASSERT_OK(cf_reader_open(&r, io, NULL, &err), &err);
            cf_iter *it;
            CF_ASSERT_OK(cf_iter_create(&it, r, &err), &err);
            size_t row = 0;
            for (;;) {
                cf_batch b;
                CF_ASSERT_OK(cf_iter_next_batch(it, 1 + cf_rng_below(&rng, 500), &b, &err), &err);
                if (b.count == 0)
                    break;
                for (size_t i = 0; i < b.count; i++, row++) {
                    bool want = nn[row / 8] >> (row % 8) & 1;
                    bool got = b.nonnull[i / 8] >> (i % 8) & 1;
                    assert_int_equal(got, want);
                    if (want)
                        assert_int_equal(((const int32_t *)b.values)[i], v[row]);
                }
            }
            assert_int_equal(row, n);
            for (int k = 0; k < 50; k++) {
                size_t ord = cf_rng_below(&rng, n);
                CF_ASSERT_OK(cf_iter_seek_to_ordinal(it, ord, &err), &err);
                cf_batch b;
                CF_ASSERT_OK(cf_iter_next_batch(it, 1, &b, &err), &err);
                bool want = nn[ord / 8] >> (ord % 8) & 1;
                assert_int_equal(b.nonnull[0] & 1, want);
                if (want)
                    assert_int_equal(((const int32_t *)b.values)[0], v[ord]);
            }
            cf_iter_free(it);
            cf_reader_free(r);
            cf_io_free(io);
            free(f.data);
            free(v);
            free(nn);
        }
    }
}

static void test_cfile_rw__writer_misuse(void **state)
{
    (void)state;
    cf_error err;
    cf_io *io;
    CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
    cf_writer *w;
    cf_writer_options o =
        col_options((col_opts){.type = CF_TYPE_INT32, .validx = true, .enc = CF_ENC_PLAIN});
    CF_ASSERT_OK(cf_writer_create(&w, io, &o, &err), &err);
    int32_t v[3] = {5, 4, 6};
    CF_ASSERT_STATUS(cf_writer_append(w, v, NULL, 3, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "sorted"));
    /* sticky */
    CF_ASSERT_STATUS(cf_writer_append(w, v + 2, NULL, 1, &err), CF_EINVAL, &err);
    cf_writer_free(w);
    cf_io_free(io);

    CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
    o = col_options((col_opts){.type = CF_TYPE_INT32, .enc = CF_ENC_PLAIN});
    CF_ASSERT_OK(cf_writer_create(&w, io, &o, &err), &err);
    CF_ASSERT_OK(cf_writer_append(w, v, NULL, 3, &err), &err);
    CF_ASSERT_OK(cf_writer_finish(w, &err), &err);
    CF_ASSERT_STATUS(cf_writer_append(w, v, NULL, 3, &err), CF_ESTATE, &err);
    CF_ASSERT_STATUS(cf_writer_finish(w, &err), CF_ESTATE, &err);
    cf_writer_free(w);
    cf_io_free(io);

    o = col_options((col_opts){.type = CF_TYPE_DOUBLE, .validx = true});
    CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
    CF_ASSERT_STATUS(cf_writer_create(&w, io, &o, &err), CF_EINVAL, &err);
    o = col_options((col_opts){.type = CF_TYPE_UINT32, .enc = CF_ENC_GROUP_VARINT});
    CF_ASSERT_STATUS(cf_writer_create(&w, io, &o, &err), CF_EINVAL, &err);
    cf_writer_options_init(&o, CF_TYPE_INT32);
    o.version = 99;
    CF_ASSERT_STATUS(cf_writer_create(&w, io, &o, &err), CF_EINVAL, &err);
    CF_ASSERT_STATUS(cf_writer_create(&w, io, NULL, &err), CF_EINVAL, &err);
    cf_io_free(io);
}

/* The sort check for a value index must not keep pointers into the caller's
 * values: binary slices are only borrowed for the duration of one call
 * (regression: the last slice of a call was compared after its bytes changed). */
static void test_cfile_rw__validx_sort_check_owns_its_bytes(void **state)
{
    (void)state;
    cf_error err;
    cf_io *io;
    CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
    cf_writer_options o = col_options((col_opts){.type = CF_TYPE_STRING, .validx = true});
    cf_writer *w;
    CF_ASSERT_OK(cf_writer_create(&w, io, &o, &err), &err);
    char buf[2][8];
    cf_slice s[2];
    for (int call = 0; call < 50; call++) {
        for (int i = 0; i < 2; i++) {
            snprintf(buf[i], sizeof buf[i], "k%05d", call * 2 + i);
            s[i] = (cf_slice){(const uint8_t *)buf[i], 6};
        }
        CF_ASSERT_OK(cf_writer_append(w, s, NULL, 2, &err), &err);
        memset(buf, 'z', sizeof buf); /* the caller reuses its memory */
    }
    /* ...and a genuinely smaller value is still refused */
    snprintf(buf[0], sizeof buf[0], "k00000");
    s[0] = (cf_slice){(const uint8_t *)buf[0], 6};
    CF_ASSERT_STATUS(cf_writer_append(w, s, NULL, 1, &err), CF_EINVAL, &err);
    cf_writer_free(w);
    cf_io_free(io);
}

/* Every truncation of a small file is a clean error, never a crash. */
static void test_cfile_rw__truncation_and_bad_magic(void **state)
{
    (void)state;
    cf_writer_options o = col_options((col_opts){.type = CF_TYPE_INT32, .enc = CF_ENC_PLAIN});
    int32_t v[300];
    for (int i = 0; i < 300; i++)
        v[i] = i;
    mem_file f;
    cf_error err;
    CF_ASSERT_OK(write_mem(&o, v, NULL, 300, 100, &f, &err), &err);
    for (size_t len = 0; len < f.len; len++) {
        cf_io *io;
        CF_ASSERT_OK(cf_io_open_mem(&io, f.data, len, &err), &err);
        cf_reader *r = NULL;
        cf_status st = cf_reader_open(&r, io, NULL, &err);
        assert_int_not_equal(st, CF_OK);
        assert_true(err.msg[0] != '\0');
        cf_io_free(io);
    }
    f.data[f.len - 5] ^= 0x01; /* magic at the end */
    cf_io *io;
    CF_ASSERT_OK(cf_io_open_mem(&io, f.data, f.len, &err), &err);
    cf_reader *r;
    CF_ASSERT_STATUS(cf_reader_open(&r, io, NULL, &err), CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "magic"));
    cf_io_free(io);
    free(f.data);
}

/* Out of memory while opening is CF_ENOMEM with a message at every allocation,
 * the header's and footer's protobuf unpacks included: protobuf-c returns NULL
 * for both a failed allocation and bytes that do not parse, and the reader
 * used to call a file it could not unpack for want of memory corrupt. */
static cf_status open_and_free(void *io, cf_error *err)
{
    cf_reader *r = NULL;
    cf_status st = cf_reader_open(&r, io, NULL, err);
    if (st == CF_OK)
        assert_int_equal(cf_reader_info(r)->num_values, 3);
    cf_reader_free(r);
    return st;
}

static void test_cfile_rw__open_out_of_memory_is_enomem(void **state)
{
    (void)state;
    cf_error err;
    cf_io *wio;
    CF_ASSERT_OK(cf_io_create_mem(&wio, &err), &err);
    cf_writer_options o;
    cf_writer_options_init(&o, CF_TYPE_INT32);
    cf_writer *w;
    CF_ASSERT_OK(cf_writer_create(&w, wio, &o, &err), &err);
    CF_ASSERT_OK(cf_writer_add_metadata(w, "header key", "header value", 12, &err), &err);
    int32_t v[3] = {1, 2, 3};
    CF_ASSERT_OK(cf_writer_append(w, v, NULL, 3, &err), &err);
    CF_ASSERT_OK(cf_writer_add_metadata(w, "footer key", "footer value", 12, &err), &err);
    CF_ASSERT_OK(cf_writer_finish(w, &err), &err);
    cf_writer_free(w);
    cf_slice s = cf_io_mem_contents(wio);
    cf_io *io;
    CF_ASSERT_OK(cf_io_open_mem(&io, s.data, s.len, &err), &err);
    /* the buffers and both unpacks */
    assert_true(cf_test_alloc_sweep("cf_reader_open", NULL, open_and_free, io, 200) >= 4);
    cf_io_free(io);
    cf_io_free(wio);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cfile_rw__worked_example_99_bytes),
        cmocka_unit_test(test_cfile_rw__read_back_and_seek),
        cmocka_unit_test(test_cfile_rw__nullable_round_trip),
        cmocka_unit_test(test_cfile_rw__writer_misuse),
        cmocka_unit_test(test_cfile_rw__truncation_and_bad_magic),
        cmocka_unit_test(test_cfile_rw__validx_sort_check_owns_its_bytes),
        cmocka_unit_test(test_cfile_rw__open_out_of_memory_is_enomem),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

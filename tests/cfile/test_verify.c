/* cf_reader_verify: intact files report every block intact; a damaged data
 * block is named with its offset and rows while the others stay intact. */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/cfile.h>

#include "support_mem.h"
#include "support_opts.h"

typedef struct seen {
    size_t data_ok, data_bad, index_ok;
    uint64_t bad_off, bad_first;
    char msg[256];
} seen;

static void on_block(void *ctx, const cf_block_report *rep)
{
    seen *s = ctx;
    bool data = strcmp(rep->kind, "data block") == 0;
    if (rep->status == CF_OK) {
        if (data)
            s->data_ok++;
        else
            s->index_ok++;
    } else if (data) {
        s->data_bad++;
        s->bad_off = rep->off;
        s->bad_first = rep->first_ord;
        snprintf(s->msg, sizeof s->msg, "%s", rep->msg);
    }
}

static uint8_t *write_file(size_t *len)
{
    cf_error err;
    cf_writer_options o =
        col_options((col_opts){.type = CF_TYPE_INT32, .enc = CF_ENC_PLAIN, .block_size = 512});
    cf_io *io;
    cf_writer *w;
    CF_ASSERT_OK(mem_writer_create(&w, &io, &o, &err), &err);
    int32_t v[100];
    for (int call = 0; call < 10; call++) {
        for (int i = 0; i < 100; i++)
            v[i] = call * 100 + i;
        CF_ASSERT_OK(cf_writer_append(w, v, NULL, 100, &err), &err);
    }
    mem_file f;
    CF_ASSERT_OK(mem_file_finish(w, io, CF_OK, &f, &err), &err);
    *len = f.len;
    return f.data;
}

static cf_status verify(const uint8_t *data, size_t len, seen *s, size_t *damaged, cf_error *err)
{
    cf_io *io;
    CF_ASSERT_OK(cf_io_open_mem(&io, data, len, err), err);
    cf_reader *r;
    cf_status st = cf_reader_open(&r, io, NULL, err);
    if (st == CF_OK) {
        st = cf_reader_verify(r, on_block, s, damaged, err);
        cf_reader_free(r);
    }
    cf_io_free(io);
    return st;
}

static void test_verify__intact(void **state)
{
    (void)state;
    size_t len, damaged = 99;
    uint8_t *f = write_file(&len);
    seen s = {0};
    cf_error err;
    CF_ASSERT_OK(verify(f, len, &s, &damaged, &err), &err);
    assert_int_equal(damaged, 0);
    assert_int_equal(s.data_ok, 5); /* 1000 INT32 in calls of 100, block size 512 */
    assert_true(s.index_ok >= 1);
    free(f);
}

static void test_verify__damaged_data_block_is_named(void **state)
{
    (void)state;
    size_t len, damaged = 0;
    uint8_t *f = write_file(&len);
    /* Blocks are 8 + 200*4 + 4 = 812 bytes from offset 16; flip a byte in the 3rd. */
    size_t third = 16 + 2 * 812;
    f[third + 100] ^= 0x40;
    seen s = {0};
    cf_error err;
    CF_ASSERT_STATUS(verify(f, len, &s, &damaged, &err), CF_ECORRUPT, &err);
    assert_int_equal(damaged, 1);
    assert_int_equal(s.data_bad, 1);
    assert_int_equal(s.data_ok, 4);
    assert_int_equal(s.bad_off, third);
    assert_int_equal(s.bad_first, 400);
    assert_non_null(strstr(s.msg, "checksum"));
    assert_non_null(strstr(err.msg, "offset 1640"));
    free(f);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verify__intact),
        cmocka_unit_test(test_verify__damaged_data_block_is_named),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

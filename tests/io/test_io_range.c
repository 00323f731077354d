/* cf_io_open_range and cf_io_open_file_range (src/io/io_range.c): a window of an
 * io or of a file reads exactly its bytes, lends them when the base lends (mmap,
 * memory), refuses reads past its end and ranges past the base's end, owns or
 * borrows its base as asked, and refuses a symbolic link with NOFOLLOW. */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cfile/io.h>

#include "util/alloc.h"

static uint8_t bytes[3 * 4096 + 123];

static void fill(void)
{
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (uint8_t)(i * 31 + 7);
}

static void check_window(cf_io *io, uint64_t off, uint64_t len, bool lends)
{
    cf_error e = {0};
    assert_int_equal(io->ops->size(io), len);
    uint8_t *got = malloc(len + 1);
    assert_non_null(got);
    CF_ASSERT_OK(io->ops->read_at(io, 0, got, (size_t)len, &e), &e);
    CF_ASSERT_BYTES(got, (size_t)len, bytes + off, (size_t)len);
    if (len > 2) {
        CF_ASSERT_OK(io->ops->read_at(io, 1, got, (size_t)len - 2, &e), &e);
        CF_ASSERT_BYTES(got, (size_t)len - 2, bytes + off + 1, (size_t)len - 2);
    }
    /* One byte past the window is refused even though the base has it. */
    CF_ASSERT_STATUS(io->ops->read_at(io, len, got, 1, &e), CF_EIO, &e);
    CF_ASSERT_STATUS(io->ops->read_at(io, 0, got, (size_t)len + 1, &e), CF_EIO, &e);
    const uint8_t *v = io->ops->view_at(io, 0, (size_t)len);
    if (lends) {
        assert_non_null(v);
        assert_memory_equal(v, bytes + off, (size_t)len);
        assert_null(io->ops->view_at(io, 1, (size_t)len));
    } else {
        assert_null(v);
    }
    free(got);
}

static void test_io_range__over_memory(void **state)
{
    (void)state;
    fill();
    cf_io *mem = NULL, *r = NULL;
    cf_error e = {0};
    CF_ASSERT_OK(cf_io_open_mem(&mem, bytes, sizeof bytes, &e), &e);
    CF_ASSERT_OK(cf_io_open_range(&r, mem, false, 100, 5000, &e), &e);
    check_window(r, 100, 5000, true);
    cf_io_free(r);
    /* Empty windows, at the start and at the very end. */
    CF_ASSERT_OK(cf_io_open_range(&r, mem, false, 0, 0, &e), &e);
    assert_int_equal(r->ops->size(r), 0);
    cf_io_free(r);
    CF_ASSERT_OK(cf_io_open_range(&r, mem, false, sizeof bytes, 0, &e), &e);
    cf_io_free(r);
    /* Past the base's end. */
    CF_ASSERT_STATUS(cf_io_open_range(&r, mem, false, 1, sizeof bytes, &e), CF_EINVAL, &e);
    assert_null(r);
    CF_ASSERT_STATUS(cf_io_open_range(&r, mem, false, UINT64_MAX, 2, &e), CF_EINVAL, &e);
    /* Owned: freeing the window frees the base (leak-checked under ASan). */
    CF_ASSERT_OK(cf_io_open_range(&r, mem, true, 0, sizeof bytes, &e), &e);
    check_window(r, 0, sizeof bytes, true);
    cf_io_free(r);
    /* An owned base is freed on failure too. */
    CF_ASSERT_OK(cf_io_open_mem(&mem, bytes, sizeof bytes, &e), &e);
    CF_ASSERT_STATUS(cf_io_open_range(&r, mem, true, 0, sizeof bytes + 1, &e), CF_EINVAL, &e);
}

static void test_io_range__files(void **state)
{
    (void)state;
    fill();
    char dir[256], path[300], link[300];
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/cf_test_io_range.XXXXXX", t && *t ? t : "/tmp");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/f", dir);
    snprintf(link, sizeof link, "%s/l", dir);
    cf_test_write_file(path, bytes, sizeof bytes);
    assert_int_equal(symlink(path, link), 0);
    static const uint64_t offs[] = {0, 1, 4095, 4096, 5000, sizeof bytes - 1};
    cf_error e = {0};
    for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
        uint64_t off = offs[i], len = sizeof bytes - off;
        for (unsigned mm = 0; mm < 2; mm++) {
            cf_io *io = NULL;
            unsigned flags = CF_IO_RANGE_NOFOLLOW | (mm ? CF_IO_RANGE_MMAP : 0);
            CF_ASSERT_OK(cf_io_open_file_range(&io, path, off, len, flags, &e), &e);
            check_window(io, off, len, mm);
            cf_io_free(io);
            CF_ASSERT_OK(cf_io_open_file_range(&io, path, off, len > 10 ? 10 : len, flags, &e), &e);
            check_window(io, off, len > 10 ? 10 : len, mm);
            cf_io_free(io);
            /* UINT64_MAX: to the end. */
            CF_ASSERT_OK(cf_io_open_file_range(&io, path, off, UINT64_MAX, flags, &e), &e);
            check_window(io, off, len, mm);
            cf_io_free(io);
        }
    }
    cf_io *io = NULL;
    CF_ASSERT_STATUS(cf_io_open_file_range(&io, path, 10, sizeof bytes, 0, &e), CF_ECORRUPT, &e);
    assert_non_null(strstr(e.msg, "past the end"));
    /* The link is followed only without NOFOLLOW. */
    CF_ASSERT_OK(cf_io_open_file_range(&io, link, 0, 4, 0, &e), &e);
    cf_io_free(io);
    CF_ASSERT_STATUS(cf_io_open_file_range(&io, link, 0, 4, CF_IO_RANGE_NOFOLLOW, &e), CF_EIO, &e);
    assert_non_null(strstr(e.msg, "symbolic link"));
    /* A directory is not a file. */
    CF_ASSERT_STATUS(cf_io_open_file_range(&io, dir, 0, 0, 0, &e), CF_EIO, &e);
    unlink(link);
    unlink(path);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_io_range__over_memory),
        cmocka_unit_test(test_io_range__files),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

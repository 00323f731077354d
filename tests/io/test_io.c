/* cf_io: the atomic file writer (temporary name, commit, abandon), the pread
 * and mmap readers, the memory reader and writer, and their errors. */
#include "test_common.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cfile/io.h>

#include "util/alloc.h"

/* A fresh empty directory per test, removed (with its files) afterwards. */
typedef struct tdir {
    char path[256];
} tdir;

static int setup_dir(void **state)
{
    tdir *d = malloc(sizeof *d);
    const char *base = getenv("TMPDIR");
    snprintf(d->path, sizeof d->path, "%s/cf_test_io.XXXXXX", base && *base ? base : "/tmp");
    if (mkdtemp(d->path) == NULL) {
        free(d);
        return -1;
    }
    *state = d;
    return 0;
}

static int teardown_dir(void **state)
{
    tdir *d = *state;
    DIR *dir = opendir(d->path);
    if (dir) {
        struct dirent *e;
        char p[512];
        while ((e = readdir(dir)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(p, sizeof p, "%s/%s", d->path, e->d_name);
            unlink(p);
        }
        closedir(dir);
    }
    rmdir(d->path);
    free(d);
    return 0;
}

/* Names in the directory, as one sorted-insensitive count plus a lookup. */
static int dir_count(const char *path, const char *must_have, int *found)
{
    DIR *dir = opendir(path);
    assert_non_null(dir);
    int n = 0;
    *found = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        n++;
        if (must_have && strcmp(e->d_name, must_have) == 0)
            *found = 1;
    }
    closedir(dir);
    return n;
}

static void fill_random(cf_rng *r, uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)cf_rng_next(r);
}

static void check_reader(cf_io *io, const uint8_t *want, size_t len, bool views, cf_rng *r)
{
    cf_error err;
    assert_int_equal(io->ops->size(io), len);
    uint8_t *buf = malloc(len + 1);
    CF_ASSERT_OK(io->ops->read_at(io, 0, buf, len, &err), &err);
    CF_ASSERT_BYTES(buf, len, want, len);
    for (int i = 0; i < 200; i++) {
        uint64_t off = cf_rng_below(r, len + 1);
        size_t n = (size_t)cf_rng_below(r, len - off + 1);
        CF_ASSERT_OK(io->ops->read_at(io, off, buf, n, &err), &err);
        CF_ASSERT_BYTES(buf, n, want + off, n);
        const uint8_t *v = io->ops->view_at(io, off, n);
        if (views) {
            assert_non_null(v);
            CF_ASSERT_BYTES(v, n, want + off, n);
        } else {
            assert_null(v);
        }
    }
    /* Views never reach past the end. */
    if (views) {
        assert_null(io->ops->view_at(io, len, 1));
        assert_null(io->ops->view_at(io, 0, len + 1));
        assert_null(io->ops->view_at(io, UINT64_MAX, 2));
        assert_null(io->ops->view_at(io, 1, SIZE_MAX));
        assert_non_null(io->ops->view_at(io, len, 0));
    }
    free(buf);
}

static void test_io__file_round_trip(void **state)
{
    tdir *d = *state;
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0x10));
    char path[300];
    snprintf(path, sizeof path, "%s/data.cfile", d->path);

    const size_t total = 3u << 20; /* crosses the 1 MiB write buffer several times */
    uint8_t *want = malloc(total);
    fill_random(&r, want, total);

    cf_io *w = NULL;
    cf_error err;
    CF_ASSERT_OK(cf_io_create_file(&w, path, &err), &err);
    size_t off = 0;
    while (off < total) {
        /* mostly small appends, some bigger than the buffer */
        size_t n = cf_rng_below(&r, 8) == 0 ? (size_t)cf_rng_below(&r, 1500000)
                                            : (size_t)cf_rng_below(&r, 5000);
        if (n > total - off)
            n = total - off;
        CF_ASSERT_OK(w->ops->append(w, want + off, n, &err), &err);
        off += n;
        assert_int_equal(w->ops->size(w), off);
    }
    /* Before commit: only the temporary file, named after the target. */
    int found;
    assert_int_equal(dir_count(d->path, "data.cfile", &found), 1);
    assert_false(found);
    DIR *dir = opendir(d->path);
    struct dirent *e;
    while ((e = readdir(dir)) != NULL)
        if (e->d_name[0] != '.')
            assert_int_equal(strncmp(e->d_name, "data.cfile.tmp.", 15), 0);
    closedir(dir);

    CF_ASSERT_OK(w->ops->commit(w, &err), &err);
    assert_int_equal(dir_count(d->path, "data.cfile", &found), 1);
    assert_true(found);
    /* Append and commit after commit are out of order. */
    CF_ASSERT_STATUS(w->ops->append(w, "x", 1, &err), CF_ESTATE, &err);
    CF_ASSERT_STATUS(w->ops->commit(w, &err), CF_ESTATE, &err);
    cf_io_free(w);
    /* free after commit leaves the target alone. */
    assert_int_equal(dir_count(d->path, "data.cfile", &found), 1);
    assert_true(found);

    cf_io *rd = NULL;
    CF_ASSERT_OK(cf_io_open_file(&rd, path, &err), &err);
    check_reader(rd, want, total, false, &r);
    cf_io_free(rd);

    CF_ASSERT_OK(cf_io_open_mmap(&rd, path, &err), &err);
    check_reader(rd, want, total, true, &r);
    cf_io_free(rd);
    free(want);
}

static void test_io__free_without_commit_leaves_nothing(void **state)
{
    tdir *d = *state;
    char path[300];
    snprintf(path, sizeof path, "%s/abandoned", d->path);
    cf_io *w = NULL;
    cf_error err;
    CF_ASSERT_OK(cf_io_create_file(&w, path, &err), &err);
    uint8_t big[4096] = {1};
    for (int i = 0; i < 600; i++) /* > 1 MiB: some bytes reached the disk */
        CF_ASSERT_OK(w->ops->append(w, big, sizeof big, &err), &err);
    int found;
    assert_int_equal(dir_count(d->path, NULL, &found), 1);
    cf_io_free(w);
    assert_int_equal(dir_count(d->path, NULL, &found), 0);
    struct stat st;
    assert_int_not_equal(stat(path, &st), 0);
}

static void test_io__commit_replaces_existing(void **state)
{
    tdir *d = *state;
    char path[300];
    snprintf(path, sizeof path, "%s/f", d->path);
    cf_error err;
    for (int round = 0; round < 2; round++) {
        cf_io *w = NULL;
        CF_ASSERT_OK(cf_io_create_file(&w, path, &err), &err);
        const char *msg = round ? "second" : "first version";
        CF_ASSERT_OK(w->ops->append(w, msg, strlen(msg), &err), &err);
        CF_ASSERT_OK(w->ops->commit(w, &err), &err);
        cf_io_free(w);
    }
    size_t len;
    uint8_t *got = cf_test_read_file(path, &len);
    assert_non_null(got);
    CF_ASSERT_BYTES(got, len, "second", 6);
    free(got);
    int found;
    assert_int_equal(dir_count(d->path, "f", &found), 1);
}

/* A failed commit (its target became a non-empty directory) is sticky: every
 * later call returns it with the rename's message, and nothing is left behind. */
static void test_io__file_writer_failure_is_sticky(void **state)
{
    tdir *d = *state;
    char path[300], sub[320];
    snprintf(path, sizeof path, "%s/taken", d->path);
    snprintf(sub, sizeof sub, "%s/x", path);
    cf_io *w = NULL;
    cf_error err;
    CF_ASSERT_OK(cf_io_create_file(&w, path, &err), &err);
    CF_ASSERT_OK(w->ops->append(w, "abc", 3, &err), &err);
    assert_int_equal(mkdir(path, 0700), 0);
    assert_int_equal(mkdir(sub, 0700), 0);
    CF_ASSERT_STATUS(w->ops->commit(w, &err), CF_EIO, &err);
    assert_non_null(strstr(err.msg, "rename"));
    const cf_error first = err;
    assert_int_equal(rmdir(sub), 0);
    assert_int_equal(rmdir(path), 0);
    CF_ASSERT_REPLAYED(w->ops->append(w, "d", 1, &err), CF_EIO, &err, "file writer", &first);
    CF_ASSERT_REPLAYED(w->ops->commit(w, &err), CF_EIO, &err, "file writer", &first);
    cf_io_free(w);
    int found;
    assert_int_equal(dir_count(d->path, NULL, &found), 0);
}

static void test_io__empty_file(void **state)
{
    tdir *d = *state;
    char path[300];
    snprintf(path, sizeof path, "%s/empty", d->path);
    cf_error err;
    cf_io *w = NULL;
    CF_ASSERT_OK(cf_io_create_file(&w, path, &err), &err);
    CF_ASSERT_OK(w->ops->commit(w, &err), &err);
    cf_io_free(w);
    cf_io *(rds[2]) = {NULL, NULL};
    CF_ASSERT_OK(cf_io_open_file(&rds[0], path, &err), &err);
    CF_ASSERT_OK(cf_io_open_mmap(&rds[1], path, &err), &err);
    for (int i = 0; i < 2; i++) {
        uint8_t b;
        assert_int_equal(rds[i]->ops->size(rds[i]), 0);
        CF_ASSERT_OK(rds[i]->ops->read_at(rds[i], 0, &b, 0, &err), &err);
        CF_ASSERT_STATUS(rds[i]->ops->read_at(rds[i], 0, &b, 1, &err), CF_EIO, &err);
        assert_null(rds[i]->ops->view_at(rds[i], 0, 1));
        cf_io_free(rds[i]);
    }
}

static void test_io__read_past_eof(void **state)
{
    tdir *d = *state;
    char path[300];
    snprintf(path, sizeof path, "%s/short", d->path);
    cf_error err;
    cf_io *w = NULL;
    CF_ASSERT_OK(cf_io_create_file(&w, path, &err), &err);
    CF_ASSERT_OK(w->ops->append(w, "0123456789", 10, &err), &err);
    CF_ASSERT_OK(w->ops->commit(w, &err), &err);
    cf_io_free(w);

    cf_io *rd = NULL;
    uint8_t buf[32];
    for (int kind = 0; kind < 2; kind++) {
        CF_ASSERT_OK((kind ? cf_io_open_mmap : cf_io_open_file)(&rd, path, &err), &err);
        CF_ASSERT_OK(rd->ops->read_at(rd, 6, buf, 4, &err), &err);
        CF_ASSERT_BYTES(buf, 4, "6789", 4);
        memset(&err, 0, sizeof err);
        CF_ASSERT_STATUS(rd->ops->read_at(rd, 6, buf, 5, &err), CF_EIO, &err);
        /* The message names the file, the length and the offset. */
        assert_non_null(strstr(err.msg, path));
        assert_non_null(strstr(err.msg, "5 bytes"));
        assert_non_null(strstr(err.msg, "offset 6"));
        CF_ASSERT_STATUS(rd->ops->read_at(rd, 11, buf, 0, &err), CF_EIO, &err);
        CF_ASSERT_STATUS(rd->ops->read_at(rd, UINT64_MAX, buf, 2, &err), CF_EIO, &err);
        CF_ASSERT_STATUS(rd->ops->read_at(rd, 2, buf, SIZE_MAX, NULL), CF_EIO, NULL);
        cf_io_free(rd);
    }
}

static void test_io__open_errors(void **state)
{
    tdir *d = *state;
    char path[300];
    snprintf(path, sizeof path, "%s/missing", d->path);
    cf_error err;
    cf_io *rd = (cf_io *)&err; /* set to NULL on failure */
    CF_ASSERT_STATUS(cf_io_open_file(&rd, path, &err), CF_EIO, &err);
    assert_null(rd);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "No such file"));
    CF_ASSERT_STATUS(cf_io_open_mmap(&rd, path, &err), CF_EIO, &err);
    assert_null(rd);
    /* A directory is not a file. */
    CF_ASSERT_STATUS(cf_io_open_file(&rd, d->path, &err), CF_EIO, &err);
    CF_ASSERT_STATUS(cf_io_open_mmap(&rd, d->path, &err), CF_EIO, &err);
    /* Creating in a missing directory fails and leaves nothing. */
    snprintf(path, sizeof path, "%s/nodir/x", d->path);
    CF_ASSERT_STATUS(cf_io_create_file(&rd, path, &err), CF_EIO, &err);
    assert_null(rd);
    assert_non_null(strstr(err.msg, "nodir"));
    CF_ASSERT_STATUS(cf_io_create_file(&rd, "", &err), CF_EINVAL, &err);
    int found;
    assert_int_equal(dir_count(d->path, NULL, &found), 0);
}

static void test_io__create_alloc_failures(void **state)
{
    tdir *d = *state;
    char path[300];
    snprintf(path, sizeof path, "%s/oom", d->path);
    for (uint64_t k = 1; k <= 4; k++) {
        cf_io *w = NULL;
        cf_error err;
        cf_alloc_fail_after(k);
        cf_status st = cf_io_create_file(&w, path, &err);
        cf_alloc_fail_after(0);
        CF_ASSERT_STATUS(st, CF_ENOMEM, &err);
        assert_null(w);
        int found;
        assert_int_equal(dir_count(d->path, NULL, &found), 0);
    }
}

static void test_io__mem_reader(void **state)
{
    cf_rng r;
    cf_rng_init(&r, cf_test_seed(0x10));
    uint8_t data[5000];
    fill_random(&r, data, sizeof data);
    cf_io *io = NULL;
    cf_error err;
    CF_ASSERT_OK(cf_io_open_mem(&io, data, sizeof data, &err), &err);
    check_reader(io, data, sizeof data, true, &r);
    /* Views are in place, not copies. */
    assert_ptr_equal(io->ops->view_at(io, 17, 3), data + 17);
    uint8_t b[2];
    CF_ASSERT_STATUS(io->ops->read_at(io, 4999, b, 2, &err), CF_EIO, &err);
    assert_null(io->ops->append);
    cf_io_free(io);

    CF_ASSERT_OK(cf_io_open_mem(&io, NULL, 0, &err), &err);
    assert_int_equal(io->ops->size(io), 0);
    cf_io_free(io);
    CF_ASSERT_STATUS(cf_io_open_mem(&io, NULL, 3, &err), CF_EINVAL, &err);
}

static void test_io__mem_writer(void **state)
{
    cf_io *io = NULL;
    cf_error err;
    CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
    cf_slice s = cf_io_mem_contents(io);
    assert_int_equal(s.len, 0);
    CF_ASSERT_OK(io->ops->append(io, "hello ", 6, &err), &err);
    CF_ASSERT_OK(io->ops->append(io, "world", 5, &err), &err);
    CF_ASSERT_OK(io->ops->append(io, NULL, 0, &err), &err);
    assert_int_equal(io->ops->size(io), 11);
    s = cf_io_mem_contents(io);
    CF_ASSERT_BYTES(s.data, s.len, "hello world", 11);
    CF_ASSERT_OK(io->ops->commit(io, &err), &err);
    CF_ASSERT_STATUS(io->ops->append(io, "!", 1, &err), CF_ESTATE, &err);
    CF_ASSERT_STATUS(io->ops->commit(io, &err), CF_ESTATE, &err);
    s = cf_io_mem_contents(io);
    CF_ASSERT_BYTES(s.data, s.len, "hello world", 11);

    /* The contents read back through a memory reader. */
    cf_io *rd = NULL;
    CF_ASSERT_OK(cf_io_open_mem(&rd, s.data, s.len, &err), &err);
    char buf[5];
    CF_ASSERT_OK(rd->ops->read_at(rd, 6, buf, 5, &err), &err);
    CF_ASSERT_BYTES(buf, 5, "world", 5);
    /* Only a memory writer has contents. */
    assert_int_equal(cf_io_mem_contents(rd).len, 0);
    assert_int_equal(cf_io_mem_contents(NULL).len, 0);
    cf_io_free(rd);
    cf_io_free(io);
}

static void test_io__mem_writer_alloc_failure(void **state)
{
    cf_io *io = NULL;
    cf_error err;
    cf_alloc_fail_after(1);
    CF_ASSERT_STATUS(cf_io_create_mem(&io, &err), CF_ENOMEM, &err);
    cf_alloc_fail_after(0);
    assert_null(io);
    CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
    cf_alloc_fail_after(1);
    CF_ASSERT_STATUS(io->ops->append(io, "abc", 3, &err), CF_ENOMEM, &err);
    cf_alloc_fail_after(0);
    const cf_error first = err;
    assert_non_null(strstr(first.msg, "cannot grow"));
    /* sticky: a later append (that would fit now) and the commit say why */
    CF_ASSERT_REPLAYED(io->ops->append(io, "d", 1, &err), CF_ENOMEM, &err, "memory io", &first);
    CF_ASSERT_REPLAYED(io->ops->commit(io, &err), CF_ENOMEM, &err, "memory io", &first);
    cf_io_free(io);
}

static void test_io__free_null(void **state)
{
    cf_io_free(NULL);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup_dir, teardown_dir)

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        T(test_io__file_round_trip),
        T(test_io__free_without_commit_leaves_nothing),
        T(test_io__commit_replaces_existing),
        T(test_io__file_writer_failure_is_sticky),
        T(test_io__empty_file),
        T(test_io__read_past_eof),
        T(test_io__open_errors),
        T(test_io__create_alloc_failures),
        cmocka_unit_test(test_io__mem_reader),
        cmocka_unit_test(test_io__mem_writer),
        cmocka_unit_test(test_io__mem_writer_alloc_failure),
        cmocka_unit_test(test_io__free_null),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

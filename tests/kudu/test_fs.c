/* cf-needs: tables */
/* A server's directories (src/kudufs/fs.c, instance.c, fbm.c): every layout of
 * ../shared/kudu-fs opens with the uuid, block manager, tablets and live blocks its
 * expected/fs.json names, each block readable in place (pread and mmap); roots of
 * the wrong kind are refused with the reason (not Kudu's, different servers, a data
 * dir missing from the set, an encrypted server), a lock held by a running server
 * is reported and left alone, symbolic links are not followed (a link loop in the
 * file block manager's tree ends), and opening changes nothing on disk. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_common.h"

#include <cfile/kudu.h>

#include "kudufs/lbm_writer.h"
#include "support_fsroot.h"

static void check_layout(const char *name)
{
    kfs_layout l;
    kfs_layout_load(&l, name);
    cf_kudu_fs *fs = NULL;
    cf_error e = {0};
    CF_ASSERT_OK(kfs_layout_open(&l, &fs, &e), &e);
    const cf_json *root = &l.fsj.root;
    assert_string_equal(cf_kudu_fs_uuid(fs), cf_json_get(root, "fs_uuid")->str);
    bool lbm = strcmp(cf_json_get(root, "block_manager")->str, "log") == 0;
    assert_int_equal(cf_kudu_fs_block_manager(fs), lbm ? CF_KUDU_BM_LOG : CF_KUDU_BM_FILE);
    assert_string_equal(cf_kudu_fs_wal_dir(fs), l.wal);
    assert_string_equal(cf_kudu_fs_metadata_dir(fs), l.wal);
    assert_int_equal(cf_kudu_fs_data_dir_count(fs), l.ndata);
    for (size_t i = 0; i < l.ndata; i++)
        assert_string_equal(cf_kudu_fs_data_dir_at(fs, i), l.data[i]);
    assert_false(cf_kudu_fs_locked(fs));
    assert_int_equal(cf_kudu_fs_problem_count(fs), 0);
    assert_int_equal(cf_kudu_fs_tablet_count(fs), 1);
    assert_string_equal(cf_kudu_fs_tablet_at(fs, 0), cf_json_get(root, "tablet_id")->str);
    if (!lbm)
        assert_int_equal(cf_kudu_fs_container_count(fs), 0);

    const cf_json *lb = cf_json_get(root, "live_blocks");
    assert_int_equal(cf_kudu_fs_block_count(fs), lb->n);
    for (size_t i = 1; i < cf_kudu_fs_block_count(fs); i++)
        assert_true(cf_kudu_fs_block_at(fs, i - 1)->id < cf_kudu_fs_block_at(fs, i)->id);
    for (size_t k = 0; k < lb->n; k++) {
        uint64_t id = (uint64_t)kfs_int(&lb->items[k], "block_id");
        const cf_kudu_block *b = cf_kudu_fs_find_block(fs, id);
        assert_non_null(b);
        const char *want = cf_json_get(&lb->items[k], "path")->str;
        char full[1500];
        snprintf(full, sizeof full, "%s/%s", l.dir, want);
        assert_string_equal(b->path, full);
        if (!lbm) {
            assert_null(b->container);
            assert_int_equal(b->offset, 0);
        }
        /* The block's bytes in place, by pread and by mmap, equal the file's. */
        size_t flen;
        uint8_t *file = cf_test_read_file(b->path, &flen);
        assert_non_null(file);
        assert_true(b->offset + b->length <= flen);
        for (int mm = 0; mm < 2; mm++) {
            cf_io *io = NULL;
            CF_ASSERT_OK(cf_kudu_fs_open_block(fs, id, mm, &io, &e), &e);
            assert_int_equal(io->ops->size(io), b->length);
            uint8_t *got = malloc(b->length + 1);
            assert_non_null(got);
            CF_ASSERT_OK(io->ops->read_at(io, 0, got, (size_t)b->length, &e), &e);
            CF_ASSERT_BYTES(got, (size_t)b->length, file + b->offset, (size_t)b->length);
            if (mm) {
                const uint8_t *v = io->ops->view_at(io, 0, (size_t)b->length);
                assert_non_null(v);
                assert_memory_equal(v, file + b->offset, (size_t)b->length);
            }
            free(got);
            cf_io_free(io);
        }
        free(file);
    }
    assert_null(cf_kudu_fs_find_block(fs, 0));
    assert_null(cf_kudu_fs_find_block(fs, UINT64_MAX));
    cf_io *io = NULL;
    CF_ASSERT_STATUS(cf_kudu_fs_open_block(fs, UINT64_MAX, false, &io, &e), CF_ENOTFOUND, &e);
    assert_null(io);
    cf_kudu_fs_free(fs);
    kfs_layout_dispose(&l);
}

static void test_fs__layouts(void **state)
{
    (void)state;
    for (size_t i = 0; i < KFS_NLAYOUTS; i++)
        check_layout(kfs_layouts[i]);
}

static cf_status open_dirs(const char *wal, const char *const *data, size_t n, cf_kudu_fs **fs,
                           cf_error *err)
{
    cf_kudu_fs_options o;
    cf_kudu_fs_options_init(&o);
    o.wal_dir = wal;
    o.data_dirs = data;
    o.ndata_dirs = n;
    return cf_kudu_fs_open(fs, &o, err);
}

static void test_fs__refusals(void **state)
{
    (void)state;
    cf_error e = {0};
    cf_kudu_fs *fs = NULL;
    char tmp[512];
    kfs_tmpdir(tmp, sizeof tmp);
    /* Not Kudu's: an empty directory. */
    CF_ASSERT_STATUS(open_dirs(tmp, NULL, 0, &fs, &e), CF_ECORRUPT, &e);
    assert_non_null(strstr(e.msg, "not a Kudu directory"));
    assert_null(fs);
    /* Not a Kudu file where the instance belongs. */
    char p[700];
    snprintf(p, sizeof p, "%s/instance", tmp);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("hello, not a container\n", f);
    fclose(f);
    CF_ASSERT_STATUS(open_dirs(tmp, NULL, 0, &fs, &e), CF_ECORRUPT, &e);
    assert_non_null(strstr(e.msg, "not a Kudu directory"));
    /* The options themselves. */
    CF_ASSERT_STATUS(open_dirs(NULL, NULL, 0, &fs, &e), CF_EINVAL, &e);
    CF_ASSERT_STATUS(cf_kudu_fs_open(&fs, NULL, &e), CF_EINVAL, &e);
    CF_ASSERT_RM_RF(tmp);

    /* Two servers' directories: the WAL root of one, a data root of the other. */
    kfs_layout a, b;
    kfs_layout_load(&a, "lbm-basic-s1");
    kfs_layout_load(&b, "lbm-compound-s2");
    const char *mixed[] = {a.data[0], b.data[1]};
    CF_ASSERT_STATUS(open_dirs(a.wal, mixed, 2, &fs, &e), CF_ECORRUPT, &e);
    assert_non_null(strstr(e.msg, "different servers"));
    /* One data dir of the set left out. */
    CF_ASSERT_STATUS(open_dirs(a.wal, a.data_ptrs, 1, &fs, &e), CF_ECORRUPT, &e);
    assert_non_null(strstr(e.msg, "missing"));
    /* The same dir twice. */
    const char *twice[] = {a.data[0], a.data[0], a.data[1]};
    CF_ASSERT_STATUS(open_dirs(a.wal, twice, 3, &fs, &e), CF_ECORRUPT, &e);
    assert_non_null(strstr(e.msg, "same data dir"));
    /* The data dirs in another order are the same server. */
    const char *swapped[] = {a.data[1], a.data[0]};
    CF_ASSERT_OK(open_dirs(a.wal, swapped, 2, &fs, &e), &e);
    assert_int_equal(cf_kudu_fs_block_count(fs), 45);
    cf_kudu_fs_free(fs);
    kfs_layout_dispose(&a);
    kfs_layout_dispose(&b);

    /* An encrypted server. */
    kfs_scratch s;
    kfs_scratch_new(&s, "log", "00112233445566778899aabbccddeeff");
    CF_ASSERT_STATUS(open_dirs(s.root, NULL, 0, &fs, &e), CF_ENOTSUP, &e);
    assert_non_null(strstr(e.msg, "encrypted, not supported"));
    CF_ASSERT_RM_RF(s.tmp);

    /* A block manager we do not read. */
    kfs_scratch_new(&s, "logr", NULL);
    CF_ASSERT_STATUS(open_dirs(s.root, NULL, 0, &fs, &e), CF_ENOTSUP, &e);
    CF_ASSERT_RM_RF(s.tmp);
}

static void test_fs__symlinked_instance_refused(void **state)
{
    (void)state;
    char real[700], inst[700];
    kfs_scratch s;
    kfs_scratch_new(&s, "log", NULL);
    snprintf(inst, sizeof inst, "%s/instance", s.root);
    snprintf(real, sizeof real, "%s/instance.real", s.tmp);
    assert_int_equal(rename(inst, real), 0);
    assert_int_equal(symlink(real, inst), 0);
    cf_kudu_fs *fs = NULL;
    cf_error e = {0};
    cf_status st = open_dirs(s.root, NULL, 0, &fs, &e);
    assert_int_not_equal(st, CF_OK);
    assert_non_null(strstr(e.msg, "symbolic link"));
    CF_ASSERT_RM_RF(s.tmp);
}

/* Hostile roots: a FIFO where a file belongs (an open must not wait for a writer),
 * a link loop where the data directory belongs. */
static void test_fs__hostile_files(void **state)
{
    (void)state;
    char p[800];
    kfs_scratch s;
    kfs_scratch_new(&s, "log", NULL);
    cf_kudu_fs *fs = NULL;
    cf_error e = {0};
    /* A FIFO named like a container's metadata: a problem, the rest loads. */
    snprintf(p, sizeof p, "%s/f.metadata", s.data);
    assert_int_equal(mkfifo(p, 0600), 0);
    CF_ASSERT_OK(open_dirs(s.root, NULL, 0, &fs, &e), &e);
    assert_non_null(kfs_problem(fs, "not a regular file"));
    cf_kudu_fs_free(fs);
    /* A FIFO as the instance file. */
    snprintf(p, sizeof p, "%s/instance", s.root);
    assert_int_equal(unlink(p), 0);
    assert_int_equal(mkfifo(p, 0600), 0);
    assert_int_not_equal(open_dirs(s.root, NULL, 0, &fs, &e), CF_OK);
    assert_non_null(strstr(e.msg, "not a regular file"));
    CF_ASSERT_RM_RF(s.tmp);
    /* data/ a link to itself. */
    kfs_scratch_new(&s, "log", NULL);
    char d[700], moved[800];
    snprintf(d, sizeof d, "%s/data", s.root);
    snprintf(moved, sizeof moved, "%s/data.real", s.tmp);
    assert_int_equal(rename(d, moved), 0);
    assert_int_equal(symlink("data", d), 0);
    assert_int_not_equal(open_dirs(s.root, NULL, 0, &fs, &e), CF_OK);
    assert_non_null(strstr(e.msg, "data"));
    CF_ASSERT_RM_RF(s.tmp);
}

/* A file block manager root written by hand, with a link loop in its tree. */
static void test_fs__fbm_tree(void **state)
{
    (void)state;
    char p[900];
    kfs_scratch s;
    kfs_scratch_new(&s, "file", NULL);
    static const uint64_t ids[] = {0x0000420444042a09ull, 5, 0x0001000000000007ull};
    for (size_t i = 0; i < 3; i++) {
        uint64_t id = ids[i];
        char d[800];
        snprintf(d, sizeof d, "%s/%02x", s.data, (unsigned)((id >> 40) & 0xff));
        mkdir(d, 0700);
        snprintf(d + strlen(d), sizeof d - strlen(d), "/%02x", (unsigned)((id >> 32) & 0xff));
        mkdir(d, 0700);
        snprintf(d + strlen(d), sizeof d - strlen(d), "/%02x", (unsigned)((id >> 24) & 0xff));
        mkdir(d, 0700);
        snprintf(p, sizeof p, "%s/%016llu", d, (unsigned long long)id);
        FILE *f = fopen(p, "w");
        assert_non_null(f);
        for (size_t k = 0; k <= i; k++)
            fputc('a' + (int)k, f);
        fclose(f);
    }
    /* Not blocks: a name that does not hash to its place, a non-numeric name, a
     * link to a real block, and a loop of directory links. */
    snprintf(p, sizeof p, "%s/00/00/00/0000000000000099x", s.data);
    fclose(fopen(p, "w"));
    snprintf(p, sizeof p, "%s/42/04/44/0000000000000005", s.data);
    fclose(fopen(p, "w"));
    char target[900];
    snprintf(target, sizeof target, "%s/00/00/00/0000000000000005", s.data);
    snprintf(p, sizeof p, "%s/00/00/00/0000000000000006", s.data);
    assert_int_equal(symlink(target, p), 0);
    snprintf(p, sizeof p, "%s/00/00/ff", s.data);
    assert_int_equal(symlink("..", p), 0);
    snprintf(p, sizeof p, "%s/aa", s.data);
    assert_int_equal(symlink("aa", p), 0);

    cf_kudu_fs *fs = NULL;
    cf_error e = {0};
    CF_ASSERT_OK(open_dirs(s.root, NULL, 0, &fs, &e), &e);
    assert_int_equal(cf_kudu_fs_block_manager(fs), CF_KUDU_BM_FILE);
    assert_int_equal(cf_kudu_fs_block_count(fs), 3);
    assert_int_equal(cf_kudu_fs_block_at(fs, 0)->id, 5);
    assert_int_equal(cf_kudu_fs_block_at(fs, 0)->length, 2);
    /* The link to block 5 named as block 6 is a problem, not a block. */
    assert_null(cf_kudu_fs_find_block(fs, 6));
    assert_non_null(kfs_problem(fs, "not a regular file"));
    cf_io *io = NULL;
    CF_ASSERT_OK(cf_kudu_fs_open_block(fs, 0x0001000000000007ull, true, &io, &e), &e);
    uint8_t buf[3];
    CF_ASSERT_OK(io->ops->read_at(io, 0, buf, 3, &e), &e);
    assert_memory_equal(buf, "abc", 3);
    cf_io_free(io);
    cf_kudu_fs_free(fs);
    CF_ASSERT_RM_RF(s.tmp);
}

/* A running server's lock (fcntl F_SETLK on block_manager_instance, as Kudu's
 * env_posix.cc takes it) is reported; we neither wait for it nor take it. */
static void test_fs__lock_reported(void **state)
{
    (void)state;
    char p[800];
    kfs_scratch s;
    kfs_scratch_new(&s, "log", NULL);
    snprintf(p, sizeof p, "%s/block_manager_instance", s.data);
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open(p, O_RDWR);
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
        char ok = fd >= 0 && fcntl(fd, F_SETLK, &fl) == 0 ? 'y' : 'n';
        if (write(pipefd[1], &ok, 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    char ok = 0;
    assert_int_equal(read(pipefd[0], &ok, 1), 1);
    assert_int_equal(ok, 'y');
    cf_kudu_fs *fs = NULL;
    cf_error e = {0};
    CF_ASSERT_OK(open_dirs(s.root, NULL, 0, &fs, &e), &e);
    assert_true(cf_kudu_fs_locked(fs));
    cf_kudu_fs_free(fs);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    close(pipefd[0]);
    close(pipefd[1]);
    CF_ASSERT_OK(open_dirs(s.root, NULL, 0, &fs, &e), &e);
    assert_false(cf_kudu_fs_locked(fs));
    cf_kudu_fs_free(fs);
    CF_ASSERT_RM_RF(s.tmp);
}

/* Every file's size, mode and mtime, and the count of entries, under a tree. */
typedef struct snap {
    char names[256][300];
    struct stat st[256];
    size_t n;
} snap;

static void snap_tree(snap *s, const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        assert_true(s->n < 256);
        snprintf(s->names[s->n], sizeof s->names[0], "%s/%s", dir, e->d_name);
        assert_int_equal(lstat(s->names[s->n], &s->st[s->n]), 0);
        size_t i = s->n++;
        if (S_ISDIR(s->st[i].st_mode))
            snap_tree(s, s->names[i]);
    }
    closedir(d);
}

static void test_fs__read_only(void **state)
{
    (void)state;
    kfs_layout l;
    kfs_layout_load(&l, "lbm-basic-s1");
    static snap before, after;
    memset(&before, 0, sizeof before);
    memset(&after, 0, sizeof after);
    char fsdir[1100];
    snprintf(fsdir, sizeof fsdir, "%s/fs", l.dir);
    snap_tree(&before, fsdir);
    cf_kudu_fs *fs = NULL;
    cf_error e = {0};
    CF_ASSERT_OK(kfs_layout_open(&l, &fs, &e), &e);
    for (size_t i = 0; i < cf_kudu_fs_block_count(fs); i++) {
        cf_io *io = NULL;
        CF_ASSERT_OK(cf_kudu_fs_open_block(fs, cf_kudu_fs_block_at(fs, i)->id, i % 2, &io, &e), &e);
        cf_io_free(io);
    }
    cf_kudu_fs_free(fs);
    snap_tree(&after, fsdir);
    assert_int_equal(before.n, after.n);
    for (size_t i = 0; i < before.n; i++) {
        assert_string_equal(before.names[i], after.names[i]);
        assert_int_equal(before.st[i].st_size, after.st[i].st_size);
        assert_int_equal(before.st[i].st_mode, after.st[i].st_mode);
        assert_int_equal(before.st[i].st_mtim.tv_sec, after.st[i].st_mtim.tv_sec);
        assert_int_equal(before.st[i].st_mtim.tv_nsec, after.st[i].st_mtim.tv_nsec);
    }
    kfs_layout_dispose(&l);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fs__layouts),
        cmocka_unit_test(test_fs__refusals),
        cmocka_unit_test(test_fs__symlinked_instance_refused),
        cmocka_unit_test(test_fs__hostile_files),
        cmocka_unit_test(test_fs__fbm_tree),
        cmocka_unit_test(test_fs__lock_reported),
        cmocka_unit_test(test_fs__read_only),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

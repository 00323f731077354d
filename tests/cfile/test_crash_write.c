/* Crash-safe writes (cf_writer_create_file, io.h): a writer process killed
 * with SIGKILL at a random moment leaves the target path either absent or a
 * complete, valid file holding exactly all its rows, never a partial file.
 *
 * Each iteration forks a child that writes a multi-block file with random
 * sleeps and yields between append calls; the parent kills it after a random
 * delay calibrated to the length of an uninterrupted write, so kills land
 * before, during and after the commit (fsync, rename, fsync of the directory).
 *
 * The temporary files of killed writers stay behind: nothing unlinks the
 * "<target>.tmp.<pid>.<random>" of a process that died (recovery code could
 * sweep them; the library does not). The test checks that they never carry
 * the target's name and that nothing else appears in the directory.
 *
 * The files go to /dev/shm when it exists: SIGKILL does not lose the page
 * cache, so a tmpfs tests the same property without paying for fsync on every
 * commit (CF_CRASH_DIR overrides the directory). CF_CRASH_ITERS overrides the
 * number of iterations (default 200); the loop also stops after TIME_BUDGET
 * seconds so that slow machines (valgrind) stay bounded. */
#include "test_common.h"

#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cfile/cfile.h>

enum { NROWS = 20000 };
#define TIME_BUDGET 10.0

static int64_t g_vals[NROWS];
static uint8_t g_nonnull[NROWS / 8];

static double now_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void init_values(void)
{
    cf_rng rng;
    cf_rng_init(&rng, 0x6372617368ull);
    for (size_t i = 0; i < NROWS; i++) {
        g_vals[i] = (int64_t)cf_rng_next(&rng);
        if (cf_rng_below(&rng, 8) != 0)
            g_nonnull[i / 8] |= (uint8_t)(1u << (i % 8));
        else
            g_vals[i] = 0;
    }
}

static void options(cf_writer_options *o)
{
    cf_writer_options_init(o, CF_TYPE_INT64);
    o->encoding = CF_ENC_PLAIN;
    o->nullable = true;
    o->block_size = 4096; /* about 40 data blocks */
    o->index_block_size = 256;
}

/* The child: write the whole file, pausing at random between calls. Exit code
 * 0 on success; anything else is reported by the parent. */
static _Noreturn void child_write(const char *path, uint64_t seed, bool pauses)
{
    cf_rng rng;
    cf_rng_init(&rng, seed);
    cf_writer_options o;
    options(&o);
    cf_writer *w;
    cf_error err;
    if (cf_writer_create_file(&w, path, &o, &err) != CF_OK)
        _exit(10);
    if (cf_writer_add_metadata(w, "test", "crash", 5, &err) != CF_OK)
        _exit(11);
    uint8_t bm[64];
    for (size_t i = 0; i < NROWS;) {
        size_t k = 1 + cf_rng_below(&rng, 400);
        if (k > NROWS - i)
            k = NROWS - i;
        memset(bm, 0, sizeof bm);
        for (size_t j = 0; j < k; j++)
            if (g_nonnull[(i + j) / 8] >> ((i + j) % 8) & 1)
                bm[j / 8] |= (uint8_t)(1u << (j % 8));
        if (cf_writer_append(w, g_vals + i, bm, k, &err) != CF_OK)
            _exit(12);
        i += k;
        if (pauses) {
            /* Rare: under load a yield can cost a whole time slice. */
            uint64_t p = cf_rng_below(&rng, 16);
            if (p == 0)
                sched_yield();
            else if (p == 1)
                usleep((useconds_t)cf_rng_below(&rng, 20));
        }
    }
    if (cf_writer_finish(w, &err) != CF_OK)
        _exit(13);
    cf_writer_free(w);
    _exit(0);
}

/* The target exists: it must be complete. Returns a message or NULL. */
static const char *check_complete(const char *path, char *msg, size_t cap)
{
    cf_reader *r;
    cf_error err;
    if (cf_reader_open_file(&r, path, false, NULL, &err) != CF_OK) {
        snprintf(msg, cap, "open: %s", err.msg);
        return msg;
    }
    const char *bad = NULL;
    size_t damaged = 0;
    cf_iter *it = NULL;
    if (cf_reader_info(r)->num_values != NROWS) {
        snprintf(msg, cap, "%llu rows, want %d", (unsigned long long)cf_reader_info(r)->num_values,
                 NROWS);
        bad = msg;
    } else if (cf_reader_verify(r, NULL, NULL, &damaged, &err) != CF_OK || damaged) {
        snprintf(msg, cap, "verify: %zu damaged: %s", damaged, err.msg);
        bad = msg;
    } else if (cf_iter_create(&it, r, &err) != CF_OK) {
        snprintf(msg, cap, "iter: %s", err.msg);
        bad = msg;
    } else {
        size_t ord = 0;
        for (;;) {
            cf_batch b;
            if (cf_iter_next_batch(it, 1000, &b, &err) != CF_OK) {
                snprintf(msg, cap, "scan at %zu: %s", ord, err.msg);
                bad = msg;
                break;
            }
            if (b.count == 0)
                break;
            for (size_t i = 0; i < b.count && !bad; i++, ord++) {
                bool want = g_nonnull[ord / 8] >> (ord % 8) & 1;
                bool got = b.nonnull[i / 8] >> (i % 8) & 1;
                if (want != got || ((const int64_t *)b.values)[i] != g_vals[ord]) {
                    snprintf(msg, cap, "row %zu differs", ord);
                    bad = msg;
                }
            }
            if (bad)
                break;
        }
        if (!bad && ord != NROWS) {
            snprintf(msg, cap, "scan saw %zu rows", ord);
            bad = msg;
        }
    }
    cf_iter_free(it);
    cf_reader_free(r);
    return bad;
}

static pid_t spawn(const char *path, uint64_t seed, bool pauses)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        child_write(path, seed, pauses);
    return pid;
}

static long iterations(void)
{
    const char *s = getenv("CF_CRASH_ITERS");
    long n = s ? strtol(s, NULL, 10) : 200;
    return n > 0 ? n : 200;
}

/* A fresh directory for the test's files. */
static void make_dir(char *out, size_t cap)
{
    const char *base = getenv("CF_CRASH_DIR");
    if (base == NULL)
        base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(out, cap, "%s/cf_crash_XXXXXX", base);
    assert_non_null(mkdtemp(out));
}

/* Remove every entry of dir (flat) and the dir itself. */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    char p[512];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        assert_int_equal(unlink(p), 0);
    }
    closedir(d);
    assert_int_equal(rmdir(dir), 0);
}

static void test_crash_write__uninterrupted_child_writes_a_valid_file(void **state)
{
    (void)state;
    char dir[256];
    make_dir(dir, sizeof dir);
    char path[300], msg[300];
    snprintf(path, sizeof path, "%s/col.cfile", dir);
    int status;
    pid_t pid = spawn(path, 1, true);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    const char *bad = check_complete(path, msg, sizeof msg);
    if (bad)
        fail_msg("%s", bad);
    /* A committed writer leaves exactly its target: no temp file. */
    DIR *d = opendir(dir);
    assert_non_null(d);
    int entries = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            assert_string_equal(e->d_name, "col.cfile");
            entries++;
        }
    closedir(d);
    assert_int_equal(entries, 1);
    remove_dir(dir);
}

static void test_crash_write__sigkill_never_leaves_a_partial_target(void **state)
{
    (void)state;
    char dir[256];
    make_dir(dir, sizeof dir);
    char path[300], msg[300];
    uint64_t seed = cf_test_seed(0x6b696c6c);
    cf_rng rng;
    cf_rng_init(&rng, seed);

    /* Calibrate: how long does a whole write (with its pauses) take here? */
    double t0 = now_sec();
    snprintf(path, sizeof path, "%s/calibrate.cfile", dir);
    int status;
    pid_t pid = spawn(path, 2, true);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    double full = now_sec() - t0;
    assert_int_equal(unlink(path), 0);
    /* Delays up to 1.3x a full write: most kills land mid-write, some after. */
    long max_us = (long)(full * 1.3e6) + 1;

    long iters = iterations(), absent = 0, complete = 0;
    double start = now_sec();
    long i;
    for (i = 0; i < iters && now_sec() - start < TIME_BUDGET; i++) {
        snprintf(path, sizeof path, "%s/col%ld.cfile", dir, i);
        pid = spawn(path, cf_rng_next(&rng), true);
        long us = (long)cf_rng_below(&rng, (uint64_t)max_us);
        if (us > 0)
            usleep((useconds_t)us);
        kill(pid, SIGKILL);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        /* Killed, or finished first (then it must have succeeded). */
        if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
            fail_msg("iteration %ld: writer failed with exit code %d", i, WEXITSTATUS(status));
        if (access(path, F_OK) != 0) {
            absent++;
            continue;
        }
        const char *bad = check_complete(path, msg, sizeof msg);
        if (bad)
            fail_msg("iteration %ld (kill after %ld us): partial target: %s", i, us, bad);
        complete++;
    }
    double took = now_sec() - start;

    /* Leftovers: complete targets, and temp files of killed writers, which are
     * named "<target>.tmp.<pid>.<hex>" and so never collide with a target. */
    DIR *d = opendir(dir);
    assert_non_null(d);
    long temps = 0, targets = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        long n;
        int end = 0;
        if (sscanf(e->d_name, "col%ld.cfile%n", &n, &end) == 1 && e->d_name[end] == '\0') {
            targets++;
            continue;
        }
        if (sscanf(e->d_name, "col%ld.cfile", &n) != 1)
            fail_msg("unexpected file %s", e->d_name);
        char want[64];
        int wl = snprintf(want, sizeof want, "col%ld.cfile.tmp.", n);
        if (strncmp(e->d_name, want, (size_t)wl) != 0 || strlen(e->d_name) <= (size_t)wl)
            fail_msg("unexpected file %s", e->d_name);
        temps++;
    }
    closedir(d);
    assert_int_equal(targets, complete);
    iters = i;
    print_message("%ld kills in %.2f s (full write %.1f ms): %ld targets absent, %ld complete, "
                  "%ld temp files left by killed writers\n",
                  iters, took, full * 1e3, absent, complete, temps);
    /* The delays span the whole write, so both outcomes must have happened. */
    if (iters >= 50) {
        assert_true(absent > 0);
        assert_true(complete > 0);
    }
    remove_dir(dir);
}

int main(int argc, char **argv)
{
    init_values();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crash_write__uninterrupted_child_writes_a_valid_file),
        cmocka_unit_test(test_crash_write__sigkill_never_leaves_a_partial_target),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

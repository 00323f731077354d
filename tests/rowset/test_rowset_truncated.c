/* A rowset's files cut short while it is open: reads fail with an error, the
 * process lives. Rowsets (and so tables) read their column and bloom files
 * through pread like every other reader (io.h: mmap is the caller's opt-in, as
 * a page past a truncation arrives as SIGBUS). Each case runs in a child so a
 * SIGBUS fails the test instead of ending the suite. */
#include "test_common.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cfile/cfile.h>
#include <cfile/rowset.h>

#include "support_model.h"

#define ROWS 60000
#define NAME_LEN 100

/* (id INT64 KEY, name STRING): ROWS rows of NAME_LEN-byte names, several MB,
 * so later blocks lie far past the first batch's. */
static void write_rowset(const char *dir)
{
    cf_error err;
    cf_schema *s;
    CF_ASSERT_OK(cf_schema_parse(&s, "id INT64 KEY, name STRING", &err), &err);
    cf_rowset_writer *w;
    CF_ASSERT_OK(cf_rowset_writer_create(&w, dir, s, NULL, &err), &err);
    static int64_t ids[ROWS];
    static cf_slice names[ROWS];
    static char bytes[ROWS][NAME_LEN];
    for (size_t i = 0; i < ROWS; i++) {
        ids[i] = (int64_t)i;
        uint64_t x = 0x9e3779b97f4a7c15ull * (i + 1); /* distinct, incompressible */
        for (size_t j = 0; j < NAME_LEN; j++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            bytes[i][j] = (char)('a' + (int)(x % 26));
        }
        names[i] = (cf_slice){(const uint8_t *)bytes[i], NAME_LEN};
    }
    cf_colvec cols[2] = {{ids, NULL, NULL, NULL}, {names, NULL, NULL, NULL}};
    CF_ASSERT_OK(cf_rowset_writer_append(w, cols, ROWS, &err), &err);
    CF_ASSERT_OK(cf_rowset_writer_finish(w, &err), &err);
    cf_rowset_writer_free(w);
    cf_schema_free(s);
}

/* The path of dir's file whose name holds `part` (malloc'd). */
static char *file_with(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    char *out = NULL;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strstr(e->d_name, part) != NULL) {
            out = malloc(strlen(dir) + strlen(e->d_name) + 2);
            assert_non_null(out);
            sprintf(out, "%s/%s", dir, e->d_name);
        }
    closedir(d);
    assert_non_null(out);
    return out;
}

/* In a child: open, read one batch, cut `victim` to 4 KiB, read on. Exit 0 when
 * a read then failed with CF_EIO or CF_ECORRUPT, 1 when every read succeeded. */
static int scan_child(const char *dir, const char *victim)
{
    cf_error err;
    cf_rowset *rs;
    if (cf_rowset_open(&rs, dir, NULL, &err) != CF_OK)
        return 2;
    cf_scan_options o;
    cf_scan_options_init(&o);
    cf_rowset_scanner *sc;
    if (cf_rowset_scanner_create(&sc, rs, &o, &err) != CF_OK)
        return 2;
    cf_row_batch b;
    if (cf_rowset_scanner_next(sc, &b, &err) != CF_OK || b.count == 0)
        return 2;
    if (truncate(victim, 4096) != 0)
        return 2;
    int code = 1;
    for (;;) {
        cf_status st = cf_rowset_scanner_next(sc, &b, &err);
        if (st != CF_OK) {
            code = (st == CF_EIO || st == CF_ECORRUPT) && err.msg[0] != '\0' ? 0 : 3;
            break;
        }
        if (b.count == 0)
            break;
    }
    cf_rowset_scanner_free(sc);
    cf_rowset_free(rs);
    return code;
}

static void test_rowset_truncated__column_file_under_a_scan(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    write_rowset(dir);
    char *victim = file_with(dir, ".col1.");
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(scan_child(dir, victim));
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status))
        fail_msg("the scan died of signal %d (%s) instead of returning an error", WTERMSIG(status),
                 WTERMSIG(status) == SIGBUS ? "SIGBUS: read through mmap" : "?");
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    free(victim);
    CF_ASSERT_RM_RF(dir); /* dir: mkdtemp_dir's static buffer, not freed */
}

/* The opt-in mmap (cf_rowset_options.mmap) reads the same rows. */
static void test_rowset_truncated__mmap_opt_in_reads_all_rows(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    write_rowset(dir);
    for (int mm = 0; mm < 2; mm++) {
        cf_error err;
        cf_rowset_options ro;
        cf_rowset_options_init(&ro);
        assert_false(ro.mmap); /* pread is the default */
        ro.mmap = mm == 1;
        cf_rowset *rs;
        CF_ASSERT_OK(cf_rowset_open(&rs, dir, &ro, &err), &err);
        cf_scan_options o;
        cf_scan_options_init(&o);
        cf_rowset_scanner *sc;
        CF_ASSERT_OK(cf_rowset_scanner_create(&sc, rs, &o, &err), &err);
        size_t rows = 0;
        int64_t sum = 0;
        for (cf_row_batch b;;) {
            CF_ASSERT_OK(cf_rowset_scanner_next(sc, &b, &err), &err);
            if (b.count == 0)
                break;
            const int64_t *ids = b.cols[0].values;
            for (size_t i = 0; i < b.count; i++)
                sum += ids[i];
            rows += b.count;
        }
        assert_int_equal(rows, ROWS);
        assert_int_equal(sum, (int64_t)ROWS * (ROWS - 1) / 2);
        cf_rowset_scanner_free(sc);
        cf_rowset_free(rs);
    }
    CF_ASSERT_RM_RF(dir);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rowset_truncated__column_file_under_a_scan),
        cmocka_unit_test(test_rowset_truncated__mmap_opt_in_reads_all_rows),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

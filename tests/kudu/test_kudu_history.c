/* cf-needs: tables */
/* The ancient history mark of a tablet that holds no timestamp (no DeltaFile, no
 * WAL entry): dated by its superblock file's mtime as the tablet read it, through
 * the metadata root the fs holds open, not by whatever is at the path later. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include <cmocka.h>

#include <cfile/kudu.h>

#include "support_fsroot.h"
#include "support_walgen.h"
#include "test_common.h"

#define TAB "0123456789abcdef0123456789abcdef"
#define DAY_US (86400ull * 1000000)

/* A snapshot `days` days before now_us, as a HybridClock timestamp. */
static uint64_t days_back(uint64_t now_us, uint64_t days)
{
    return (now_us - days * DAY_US) << 12;
}

/* The superblock written 30 days ago: with Kudu's 7 days the mark is 37 days back.
 * The superblock is then touched to now under the open tablet (as a server running
 * again would rewrite it): the tablet's mark stays the one of the file it read, so
 * 35 days back is still answered and 40 days back still refused. */
static void test_history__mark_from_the_superblock_read(void **state)
{
    (void)state;
    cf_schema *s;
    cf_error err = {0};
    CF_ASSERT_OK(cf_schema_parse(&s, "k INT64 KEY, v INT32", &err), &err);
    char root[512], sb[700];
    kfs_tmpdir(root, sizeof root);
    walgen_tablet_root(root, &(walgen_tablet){TAB, s, NULL, 0, 0, NULL, 0, -1});
    snprintf(sb, sizeof sb, "%s/tablet-meta/" TAB, root);
    struct timeval tv;
    gettimeofday(&tv, NULL);
    uint64_t now_us = (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
    struct timeval old[2] = {{tv.tv_sec - 30 * 86400, 0}, {tv.tv_sec - 30 * 86400, 0}};
    assert_int_equal(utimes(sb, old), 0);

    cf_kudu_fs *fs;
    cf_kudu_tablet *t;
    kfs_open_tablet(root, TAB, &fs, &t);
    assert_int_equal(utimes(sb, NULL), 0); /* now */
    cf_kudu_scan_options so;
    cf_kudu_scan_options_init(&so);
    so.history_max_age_sec = 7 * 86400;
    cf_kudu_scanner *sc = NULL;
    so.as_of = days_back(now_us, 40);
    assert_int_equal(cf_kudu_scanner_create(&sc, t, &so, &err), CF_EINVAL);
    assert_non_null(strstr(err.msg, "ancient history mark"));
    assert_non_null(strstr(err.msg, "the superblock's last write"));
    assert_null(sc);
    so.as_of = days_back(now_us, 35);
    CF_ASSERT_OK(cf_kudu_scanner_create(&sc, t, &so, &err), &err);
    cf_kudu_scanner_free(sc);
    cf_kudu_tablet_free(t);
    cf_kudu_fs_free(fs);

    /* Opened again, the tablet reads the superblock as it is now: 35 days back is
     * before the mark (7 days back) and refused. */
    kfs_open_tablet(root, TAB, &fs, &t);
    sc = NULL;
    assert_int_equal(cf_kudu_scanner_create(&sc, t, &so, &err), CF_EINVAL);
    assert_non_null(strstr(err.msg, "ancient history mark"));
    so.as_of = days_back(now_us, 6);
    CF_ASSERT_OK(cf_kudu_scanner_create(&sc, t, &so, &err), &err);
    cf_kudu_scanner_free(sc);
    cf_kudu_tablet_free(t);
    cf_kudu_fs_free(fs);
    cf_schema_free(s);
    CF_ASSERT_RM_RF(root);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_history__mark_from_the_superblock_read),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

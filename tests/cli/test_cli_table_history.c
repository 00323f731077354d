/* `cfile table` never answers a read older than the history it kept, and never
 * takes a timestamp it reserves: `compact --ahm` then `scan/get --as-of` older
 * than the mark exits 1 saying history was discarded; `--ts` past the range
 * exits 2 stating it, and the table goes on taking writes. */
/* cf-needs: tables */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "support_cli.h"
#include "test_common.h"

static void test_cli_history__ahm_and_reserved_ts(void **state)
{
    (void)state;
    char t[128];
    snprintf(t, sizeof(t), "%s/t", cli_dir);
    run r;
    cli_table_create(t, "k INT64 KEY, v INT64 NULL");
    CLI(&r, "table", "insert", t, "--row", "k=1,v=1", "--ts", "10");
    cli_rc(&r, 0);
    CLI(&r, "table", "update", t, "--key", "1", "--set", "v=2", "--ts", "20");
    cli_rc(&r, 0);
    CLI(&r, "table", "update", t, "--key", "1", "--set", "v=3", "--ts", "30");
    cli_rc(&r, 0);
    CLI(&r, "table", "scan", t, "--as-of", "15");
    cli_out(&r, 0, "1 | 1");
    CLI(&r, "table", "info", t, "--json");
    cli_out(&r, 0, "\"ahm\":0,");
    CLI(&r, "table", "compact", t, "--ahm", "25");
    cli_rc(&r, 0);
    /* info shows the mark */
    CLI(&r, "table", "info", t);
    cli_out(&r, 0, "\nahm:         25 (history before it was discarded");
    CLI(&r, "table", "info", t, "--json");
    cli_out(&r, 0, "\"ahm\":25,");
    /* Older than the mark: refused, not answered from what is left. */
    CLI(&r, "table", "scan", t, "--as-of", "15");
    EXPECT_RC(r, 1);
    assert_non_null(strstr(r.err, "history before 25 was discarded by compaction"));
    assert_int_equal(r.out_len, 0);
    done(&r);
    CLI(&r, "table", "get", t, "1", "--as-of", "15");
    cli_err(&r, 1, "discarded by compaction");
    CLI(&r, "table", "scan", t, "--as-of", "26");
    cli_out(&r, 0, "1 | 2");

    /* The value that used to brick the table (next ts would be UINT64_MAX). */
    CLI(&r, "table", "update", t, "--key", "1", "--set", "v=4", "--ts", "18446744073709551614");
    cli_err(&r, 2, "1..9223372036854775807");
    CLI(&r, "table", "insert", t, "--row", "k=2,v=2", "--ts", "9223372036854775808");
    cli_rc(&r, 2);
    CLI(&r, "table", "update", t, "--key", "1", "--set", "v=4");
    cli_rc(&r, 0);
    CLI(&r, "table", "get", t, "1");
    cli_out(&r, 0, "4");
}

/* An automatic merge that fails after a committed write: the write stands
 * (exit 0, the row is there) and stderr says the merge failed. Here a column
 * file of a rowset that is no key's home for the rows inserted damages the
 * merge that the fourth rowset triggers. */
static void test_cli_history__failed_merge_warns(void **state)
{
    (void)state;
    char t[128], p[256];
    snprintf(t, sizeof(t), "%s/w", cli_dir);
    run r;
    cli_table_create(t, "k INT64 KEY, v INT64 NULL");
    static char rows[5][16] = {"k=10,v=1", "k=20,v=1", "k=30,v=1", "k=40,v=1", "k=50,v=1"};
    for (size_t i = 0; i < 5; i++) {
        CLI(&r, "table", "insert", t, "--row", rows[i]);
        cli_rc(&r, 0);
        CLI(&r, "table", "flush", t);
        EXPECT_RC(r, 0);
        assert_null(strstr(r.err, "warning"));
        done(&r);
    }
    /* ".", rs-1..3 merged into rs-4 at the third flush; rs-5 holds 40, rs-6 50 */
    snprintf(p, sizeof(p), "%s/rs-5/MANIFEST", t);
    assert_int_equal(access(p, F_OK), 0);
    char bak[300];
    snprintf(p, sizeof(p), "%s/rs-5/1.col1.cfile", t);
    snprintf(bak, sizeof(bak), "%s.bak", p);
    assert_int_equal(rename(p, bak), 0);
    write_str(p, "too short");
    CLI(&r, "table", "insert", t, "--row", "k=60,v=1");
    cli_rc(&r, 0);
    CLI(&r, "table", "flush", t); /* the fourth rowset: a merge, which fails */
    EXPECT_RC(r, 0);
    assert_non_null(strstr(r.out, "flushed"));
    cli_has(r.err, "cfile: warning: automatic compaction: ", "rs-5",
            "(the write itself is committed)", NULL);
    done(&r);
    /* repaired, the row is there and the next flush merges without a word */
    assert_int_equal(rename(bak, p), 0);
    CLI(&r, "table", "get", t, "60", "--format", "csv");
    cli_out(&r, 0, "60,1");
    CLI(&r, "table", "insert", t, "--row", "k=70,v=1");
    cli_rc(&r, 0);
    CLI(&r, "table", "flush", t);
    EXPECT_RC(r, 0);
    assert_null(strstr(r.err, "warning"));
    done(&r);
    cli_prints("k,v\n10,1\n20,1\n30,1\n40,1\n50,1\n60,1\n70,1\n", "table", "scan", t, "--format",
               "csv", NULL);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        CLI_DIR_TEST(test_cli_history__ahm_and_reserved_ts),
        CLI_DIR_TEST(test_cli_history__failed_merge_warns),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* `cfile table import --memory-budget`: CSV in shuffled key order imports as the
 * same rows sorted do (scan output identical) when its sorted runs spill to
 * files, and a key repeated across runs (found when they merge, at commit,
 * batches after the row was read) is named by its input line, counted past a
 * quoted newline; the table and its directory are then as before. */
/* cf-needs: tables */
/* cf-label: threads */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "support_cli.h"
#include "test_common.h"

#define SCHEMA "id INT64 KEY, name STRING NULL, v INT32"
#define N 40000

/* CSV of ids perm[0..n): row i on line i + 2, but for a name holding a quoted
 * newline in the row of key `nl` (every later row one line further). */
static void write_csv(const char *path, const int64_t *perm, size_t n, int64_t nl)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "id,name,v\n");
    for (size_t i = 0; i < n; i++) {
        if (perm[i] == nl)
            fprintf(f, "%" PRId64 ",\"two\nlines\",%d\n", perm[i], (int)(perm[i] % 1000));
        else if (perm[i] % 7 == 0)
            fprintf(f, "%" PRId64 ",,%d\n", perm[i], (int)(perm[i] % 1000));
        else
            fprintf(f, "%" PRId64 ",name-%" PRId64 ",%d\n", perm[i], perm[i] * 31 % 1009,
                    (int)(perm[i] % 1000));
    }
    fclose(f);
}

static char *scan_csv(const char *dir)
{
    run r;
    cli(&r, "table", "scan", dir, "--format", "csv", NULL);
    EXPECT_RC(r, 0);
    char *s = strdup(r.out);
    done(&r);
    return s;
}

static char *listing(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "cd '%s' && find . | LC_ALL=C sort", dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int ch;
    while ((ch = fgetc(p)) != EOF)
        fputc(ch, f);
    fclose(f);
    assert_int_equal(pclose(p), 0);
    return buf;
}

static void test_cli_table_import_sort__spilled_runs(void **state)
{
    (void)state;
    static int64_t perm[N + 1], ids[N];
    for (size_t i = 0; i < N; i++)
        perm[i] = ids[i] = (int64_t)i + 1;
    char *sorted = cli_dir_path("sorted.csv"), *shuffled = cli_dir_path("shuffled.csv");
    uint64_t x = 88172645463325252ull; /* xorshift: a fixed shuffle */
    for (size_t i = N; i > 1; i--) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        size_t j = (size_t)(x % i);
        int64_t t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
    write_csv(sorted, ids, N, perm[5]);
    write_csv(shuffled, perm, N, perm[5]);
    char *a = cli_dir_path("a"), *b = cli_dir_path("b");
    run r;
    cli(&r, "table", "import", a, "--schema", SCHEMA, sorted, NULL);
    cli_rc(&r, 0);
    cli(&r, "table", "import", b, "--schema", SCHEMA, "--memory-budget", "64K", shuffled, NULL);
    cli_out(&r, 0, "imported 40000 rows");
    char *want = scan_csv(a), *got = scan_csv(b);
    assert_true(strlen(want) > N * 10);
    assert_string_equal(got, want);
    free(got);
    /* one rowset; no run file left */
    char *ls = listing(b);
    assert_null(strstr(ls, ".tmp."));
    assert_non_null(strstr(ls, "./rs-2\n"));
    assert_null(strstr(ls, "./rs-1\n"));
    assert_null(strstr(ls, "./rs-3\n"));
    free(ls);

    /* The same rows again into the table: every one a key it holds, the first
     * reported. */
    cli(&r, "table", "import", b, "--memory-budget", "64K", shuffled, NULL);
    cli_err(&r, CF_EXIT_FAIL, "shuffled.csv: line 2: duplicate key (the table holds it in");

    /* A key repeated 30000 rows later, in another run: found by the merge at
     * commit, named by its line (one more than its row + 2: the quoted newline). */
    char *c = cli_dir_path("c"), *dup = cli_dir_path("dup.csv");
    perm[N] = perm[100];
    write_csv(dup, perm, N + 1, perm[5]);
    cli(&r, "table", "import", c, "--schema", SCHEMA, sorted, NULL);
    cli_rc(&r, 0);
    char *before = listing(c);
    cli(&r, "table", "import", c, "--schema", SCHEMA, "--memory-budget", "64K", dup, NULL);
    cli_err(&r, CF_EXIT_FAIL, "dup.csv: line 2: duplicate key (the table holds it in");
    char *d = cli_dir_path("d");
    char *zero = cli_dir_path("zero.csv");
    write_str(zero, "id,name,v\n0,zero,0\n");
    cli(&r, "table", "import", d, "--schema", SCHEMA, zero, NULL);
    cli_rc(&r, 0);
    char *before_d = listing(d);
    cli(&r, "table", "import", d, "--memory-budget", "64K", dup, NULL);
    EXPECT_RC(r, CF_EXIT_FAIL);
    char want_err[128];
    snprintf(want_err, sizeof(want_err), "dup.csv: line %d: duplicate key (repeated in the load)",
             N + 3);
    assert_non_null(strstr(r.err, want_err));
    done(&r);
    char *after_d = listing(d);
    assert_string_equal(after_d, before_d);
    char *empty = scan_csv(d);
    assert_string_equal(empty, "id,name,v\n0,zero,0\n");
    free(empty);
    /* the table that holds them: as before */
    char *after = listing(c);
    assert_string_equal(after, before);
    free(before);
    free(after);
    free(before_d);
    free(after_d);
    free(want);
}

static void test_cli_table_import_sort__budget_option(void **state)
{
    (void)state;
    char *dir = cli_dir_path("t"), *csv = cli_dir_path("x.csv");
    write_str(csv, "id,name,v\n2,b,1\n1,a,2\n");
    static const char *const bad[] = {"10", "64", "1X", "", "-1M", "99999999999999999999G"};
    run r;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cli(&r, "table", "import", dir, "--schema", SCHEMA, "--memory-budget", bad[i], csv, NULL);
        cli_err(&r, CF_EXIT_USAGE, "--memory-budget");
    }
    cli(&r, "table", "scan", dir, "--memory-budget", "1M", NULL);
    cli_rc(&r, CF_EXIT_USAGE);
    cli(&r, "table", "import", dir, "--schema", SCHEMA, "--memory-budget", "1m", csv, NULL);
    cli_rc(&r, 0);
    char *got = scan_csv(dir);
    assert_string_equal(got, "id,name,v\n1,a,2\n2,b,1\n");
    free(got);
}

/* CSV text for the threads test: n rows of keys in shuffled order, CRLF on every
 * third line, blank lines, quoted commas, quotes and newlines, NULLs; `bad`
 * (if not NULL) replaces row `at`. */
static void write_mixed(const char *path, size_t n, size_t at, const char *bad)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "\xEF\xBB\xBFv,id,name\n");
    for (size_t i = 0; i < n; i++) {
        int64_t k = (int64_t)((i * 7919) % n); /* n prime to 7919: a permutation */
        const char *eol = i % 3 == 0 ? "\r\n" : "\n";
        if (bad != NULL && i == at)
            fprintf(f, "%s%s", bad, eol);
        else if (i % 97 == 0)
            fprintf(f, "%d,%" PRId64 ",\"multi\nline, \"\"quoted\"\"\nfield %" PRId64 "\"%s",
                    (int)i, k, k, eol);
        else if (i % 13 == 0)
            fprintf(f, "%d,%" PRId64 ",%s", (int)i, k, eol);
        else
            fprintf(f, "%d,%" PRId64 ",n%" PRId64 "%s", (int)i, k, k * 3, eol);
        if (i % 1000 == 999)
            fputs(i % 2000 == 999 ? "\n" : "\r\n", f);
    }
    fclose(f);
}

/* --threads 1 and 3 give the same exit code, messages and table (the batches
 * are the same: a chunk is one batch of rows, cut where no quote is open). */
static void test_cli_table_import_sort__threads_same_as_one(void **state)
{
    (void)state;
    static const struct {
        size_t n, at;
        const char *bad;
    } cases[] = {
        {50021, 0, NULL},
        {50021, 45000, "7,123456789,x,y"},              /* a field too many, past a chunk */
        {50021, 31000, "x,77777777,bad-v"},             /* a bad value */
        {50021, 30000, "1,88888888,\"never closed"},    /* a quote open to the end */
        {50021, 40000, "1,5,dup"},                      /* key 5 again, chunks later */
        {50021, 20000, "1,99999999,a\"b"},              /* a quote inside a field */
        {50021, 50020, "1,99999998,\"open to the end"}, /* a quote never closed */
        {0, 0, NULL},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        char *csv = strdup(cli_dir_path("m.csv"));
        write_mixed(csv, cases[c].n, cases[c].at, cases[c].bad);
        char *out[2], *err[2], *scan[2];
        int rc[2];
        for (int t = 0; t < 2; t++) {
            char *dir = strdup(cli_dir_path("thr")); /* the same name: messages name it */
            run r;
            cli(&r, "table", "import", dir, "--schema", "id INT64 KEY, name STRING NULL, v INT32",
                "--threads", t ? "3" : "1", csv, NULL);
            rc[t] = r.rc;
            char *in = strstr(r.out, " in "); /* the time differs */
            if (in != NULL)
                *in = '\0';
            out[t] = strdup(r.out);
            err[t] = strdup(r.err);
            done(&r);
            scan[t] = rc[t] == 0 ? scan_csv(dir) : strdup("");
            CF_ASSERT_RM_RF(dir);
            free(dir);
        }
        print_message("case %zu: exit %d %s%s", c, rc[0], out[0], err[0]);
        assert_int_equal(rc[0], rc[1]);
        assert_string_equal(out[0], out[1]);
        assert_string_equal(err[0], err[1]);
        assert_string_equal(scan[0], scan[1]);
        if (cases[c].bad == NULL && cases[c].n > 0)
            assert_true(strlen(scan[0]) > cases[c].n * 8);
        else if (cases[c].bad != NULL)
            assert_true(rc[0] != 0 && strstr(err[0], "m.csv: line ") != NULL);
        for (int t = 0; t < 2; t++) {
            free(out[t]);
            free(err[t]);
            free(scan[t]);
        }
        free(csv);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        CLI_DIR_TEST(test_cli_table_import_sort__spilled_runs),
        CLI_DIR_TEST(test_cli_table_import_sort__budget_option),
        CLI_DIR_TEST(test_cli_table_import_sort__threads_same_as_one),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

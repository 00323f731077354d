/* `cfile table import` and `cfile parquet write` parse on several threads
 * (import_par.c): JSON lines files, and CSV or JSON lines piped on stdin, give
 * with --threads 2, 3 and 8 the table (scan output), the Parquet bytes, the
 * messages (line, column) and the exit code of --threads 1, over valid input
 * and every kind of error, blank and CRLF lines, a last line without newline,
 * a raw newline inside a string, and lines longer than a chunk may grow. */
/* cf-needs: tables parquet */
/* cf-label: threads */
#include <inttypes.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "import_rows.h"
#include "support_cli.h"
#include "test_common.h"

#define SCHEMA "id INT64 KEY, name STRING NULL, v INT32"
#define N 40009 /* prime to 7919: i * 7919 % N is a permutation */

/* n rows of shuffled keys as JSON lines, members in varying order, with a byte
 * order mark, CRLF on every third line, blank lines (spaces, tabs, CR), NULLs
 * and escapes; `bad` (if not NULL) replaces row `at`; `last_nl`: whether the
 * last line ends in a newline. */
static void write_jsonl(const char *path, size_t n, size_t at, const char *bad, bool last_nl)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("\xEF\xBB\xBF", f);
    for (size_t i = 0; i < n; i++) {
        int64_t k = (int64_t)((i * 7919) % n) + 1;
        const char *eol = i + 1 == n && !last_nl ? "" : i % 3 == 0 ? "\r\n" : "\n";
        if (bad != NULL && i == at)
            fprintf(f, "%s%s", bad, eol);
        else if (i % 13 == 0)
            fprintf(f, "{\"v\": %d, \"id\": %" PRId64 "}%s", (int)(i % 1000), k, eol);
        else if (i % 11 == 0)
            fprintf(f, "  {\"id\":%" PRId64 ",\"name\":null,\"v\":%d}\t%s", k, (int)i, eol);
        else
            fprintf(f, "{\"id\":%" PRId64 ",\"name\":\"n\\\"%" PRId64 "\\u00e9\",\"v\":%d}%s", k,
                    k * 3, (int)(i % 1000), eol);
        if (i % 1000 == 999 && i + 1 < n)
            fputs(i % 2000 == 999 ? "\n" : " \t\r\n", f);
    }
    fclose(f);
}

/* The line of row i of write_jsonl (a blank line after every 1000 rows). */
static size_t line_of(size_t i)
{
    return i + 1 + i / 1000;
}

/* The same rows as CSV (quoted newlines, CRLF, blank lines). */
static void write_csv(const char *path, size_t n, size_t at, const char *bad)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "v,id,name\n");
    for (size_t i = 0; i < n; i++) {
        int64_t k = (int64_t)((i * 7919) % n) + 1;
        const char *eol = i % 3 == 0 ? "\r\n" : "\n";
        if (bad != NULL && i == at)
            fprintf(f, "%s%s", bad, eol);
        else if (i % 97 == 0)
            fprintf(f, "%d,%" PRId64 ",\"two\nlines\"%s", (int)i, k, eol);
        else
            fprintf(f, "%d,%" PRId64 ",n%" PRId64 "%s", (int)i, k, k * 3, eol);
        if (i % 1000 == 999)
            fputs("\n", f);
    }
    fclose(f);
}

/* A line of one string value of `len` bytes (longer than a chunk may grow). */
static char *huge_line(int64_t id, size_t len, bool valid)
{
    char *s = malloc(len + 64);
    assert_non_null(s);
    int h = snprintf(s, 64, "{\"id\":%" PRId64 ",\"name\":\"", id);
    memset(s + h, 'x', len);
    strcpy(s + h + len, valid ? "\",\"v\":1}" : "\",\"v\":\"one\"}");
    return s;
}

typedef struct outcome {
    int rc;
    char *out, *err, *result; /* result: scan output, or the Parquet file's bytes */
    size_t result_len;
} outcome;

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        *len = 0;
        return strdup("");
    }
    char *buf = NULL;
    size_t cap = 0;
    FILE *m = open_memstream(&buf, &cap);
    int ch;
    while ((ch = fgetc(f)) != EOF)
        fputc(ch, m);
    fclose(f);
    fclose(m);
    *len = cap;
    return buf;
}

/* Feed `path` to this process's stdin through a pipe (a child writes it):
 * returns the saved stdin descriptor and the child's pid. */
static int pipe_stdin(const char *path, pid_t *child)
{
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fd[0]);
        FILE *f = fopen(path, "rb");
        char buf[65536];
        size_t got;
        while (f != NULL && (got = fread(buf, 1, sizeof(buf), f)) > 0)
            if (write(fd[1], buf, got) != (ssize_t)got)
                _exit(1);
        _exit(0); /* a reader that stopped early gets SIGPIPE: fine */
    }
    close(fd[1]);
    int saved = dup(0);
    assert_true(saved >= 0);
    assert_true(dup2(fd[0], 0) == 0);
    close(fd[0]);
    clearerr(stdin);
    *child = pid;
    return saved;
}

static void unpipe_stdin(int saved, pid_t child)
{
    int st;
    assert_true(dup2(saved, 0) == 0);
    close(saved);
    __fpurge(stdin); /* what a run that stopped early left unread */
    clearerr(stdin);
    assert_int_equal(waitpid(child, &st, 0), child);
}

/* One run on `threads` threads: `table import` (parquet false) or `parquet
 * write` of `input` ("-": `path` piped on stdin). */
static void run_one(outcome *o, const char *path, bool from_stdin, const char *format, bool parquet,
                    const char *threads)
{
    char *dir = strdup(cli_dir_path("thr")); /* the same name: messages name it */
    char *input = from_stdin ? "-" : (char *)path;
    pid_t child = 0;
    int saved = from_stdin ? pipe_stdin(path, &child) : -1;
    run r;
    if (parquet)
        CLI(&r, "parquet", "write", "--schema", SCHEMA, "--format", (char *)format, "--input",
            input, "--threads", (char *)threads, dir);
    else
        CLI(&r, "table", "import", dir, "--schema", SCHEMA, "--format", (char *)format, "--threads",
            (char *)threads, input);
    if (from_stdin)
        unpipe_stdin(saved, child);
    o->rc = r.rc;
    char *in = strstr(r.out, " in "); /* the time differs */
    if (in != NULL)
        *in = '\0';
    o->out = strdup(parquet ? "" : r.out);
    o->err = strdup(r.err);
    done(&r);
    o->result_len = 0;
    if (parquet) {
        o->result = slurp(dir, &o->result_len);
        unlink(dir);
    } else if (o->rc == 0) {
        cli(&r, "table", "scan", dir, "--format", "csv", NULL);
        EXPECT_RC(r, 0);
        o->result = strdup(r.out);
        o->result_len = strlen(r.out);
        done(&r);
    } else {
        o->result = strdup("");
    }
    if (!parquet)
        CF_ASSERT_RM_RF(dir);
    free(dir);
}

static void outcome_free(outcome *o)
{
    free(o->out);
    free(o->err);
    free(o->result);
}

/* threads 1 vs 2, 3, 8: the same in every way; returns the one-thread exit
 * code and (when want_err is not NULL) checks its message holds want_err. */
static int same_on_threads(const char *path, bool from_stdin, const char *format, bool parquet,
                           const char *want_err)
{
    static const char *const threads[] = {"1", "2", "3", "8"};
    outcome one;
    run_one(&one, path, from_stdin, format, parquet, "1");
    print_message("%s %s%s: exit %d %s%s\n", format, from_stdin ? "stdin" : "file",
                  parquet ? " parquet" : "", one.rc, one.out, one.err);
    for (size_t t = 1; t < sizeof(threads) / sizeof(threads[0]); t++) {
        outcome o;
        run_one(&o, path, from_stdin, format, parquet, threads[t]);
        assert_int_equal(o.rc, one.rc);
        assert_string_equal(o.out, one.out);
        assert_string_equal(o.err, one.err);
        assert_int_equal(o.result_len, one.result_len);
        assert_memory_equal(o.result, one.result, one.result_len);
        outcome_free(&o);
    }
    if (want_err == NULL) {
        assert_int_equal(one.rc, 0);
        assert_true(one.result_len > 1000);
    } else if (strstr(one.err, want_err) == NULL) {
        fail_msg("want '%s' in: %s", want_err, one.err);
    }
    int rc = one.rc;
    outcome_free(&one);
    return rc;
}

static void test_cli_import_threads__jsonl_same_as_one(void **state)
{
    (void)state;
    static const struct {
        size_t at;
        const char *bad, *want; /* want: the message after "m.jsonl: line L" */
    } cases[] = {
        {0, NULL, NULL},
        {25000, "{\"id\":123456789,\"name\":\"x\"", ": "}, /* bad JSON */
        {31000, "{\"id\":77777777,\"v\":\"seven\"}", ", column 'v': "},
        {17000, "{\"name\":\"no key\",\"v\":1}", ": column 'id' cannot be NULL"},
        {39000, "{\"id\":5,\"v\":1}", ": "}, /* key 5 again, chunks later */
        {30000, "{\"id\":99999999,\"name\":\"raw\nnewline\",\"v\":1}", ": "},
        {9000, "{\"id\":99999998,\"nosuch\":1}", ": no column 'nosuch'"},
        {12000, "{\"id\":99999997,\"v\":1,\"v\":2}", ": column 'v' given twice"},
        {20000, "[1,2,3]", ": expected an object"},
        {N - 1, "{\"id\":99999996,\"v\":", ": "}, /* the last line */
    };
    char *path = strdup(cli_dir_path("m.jsonl"));
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        write_jsonl(path, N, cases[c].at, cases[c].bad, c % 2 == 0);
        char want[200];
        if (cases[c].want != NULL)
            snprintf(want, sizeof(want), "m.jsonl: line %zu%s", line_of(cases[c].at),
                     cases[c].want);
        assert_int_equal(
            same_on_threads(path, false, "jsonl", false, cases[c].want != NULL ? want : NULL),
            cases[c].want != NULL ? 1 : 0);
    }
    /* piped, into a table and into Parquet (bytes compared) */
    write_jsonl(path, N, 0, NULL, false);
    assert_int_equal(same_on_threads(path, true, "jsonl", false, NULL), 0);
    assert_int_equal(same_on_threads(path, false, "jsonl", true, NULL), 0);
    write_jsonl(path, N, 31000, "{\"id\":77777777,\"v\":\"seven\"}", true);
    char want[200];
    snprintf(want, sizeof(want), "stdin: line %zu, column 'v'", line_of(31000));
    assert_int_equal(same_on_threads(path, true, "jsonl", false, want), 1);
    snprintf(want, sizeof(want), "m.jsonl: line %zu, column 'v'", line_of(31000));
    assert_int_equal(same_on_threads(path, false, "jsonl", true, want), 1);
    /* empty input, blank lines only */
    write_str(path, "");
    assert_int_equal(same_on_threads(path, false, "jsonl", false, ""), 0);
    write_str(path, "\xEF\xBB\xBF \r\n\t\n\n");
    assert_int_equal(same_on_threads(path, true, "jsonl", false, ""), 0);
    free(path);
}

static void test_cli_import_threads__csv_stdin_same_as_one(void **state)
{
    (void)state;
    char *path = strdup(cli_dir_path("m.csv"));
    write_csv(path, N, 0, NULL);
    assert_int_equal(same_on_threads(path, true, "csv", false, NULL), 0);
    assert_int_equal(same_on_threads(path, true, "csv", true, NULL), 0);
    write_csv(path, N, 33000, "1,2,x");
    assert_int_equal(same_on_threads(path, true, "csv", false, "stdin: line "), 1);
    write_csv(path, N, 22000, "1,99999999,\"never closed");
    assert_int_equal(same_on_threads(path, true, "csv", false, "stdin: line "), 1);
    free(path);
}

/* Lines longer than a chunk may grow (lowered to 1 MiB here): the rest goes on
 * one thread, from a file or a pipe, and still the same. */
static void test_cli_import_threads__huge_lines(void **state)
{
    (void)state;
    size_t saved = cf_import_chunk_max;
    cf_import_chunk_max = (size_t)1 << 20;
    char *path = strdup(cli_dir_path("m.jsonl"));
    for (int valid = 1; valid >= 0; valid--) {
        char *h = huge_line(88888888, (size_t)3 << 20, valid != 0);
        write_jsonl(path, N, 20000, h, true);
        free(h);
        int rc = valid ? 0 : 1;
        char w[100];
        snprintf(w, sizeof(w), ": line %zu, column 'v'", line_of(20000));
        const char *want = valid ? NULL : w;
        assert_int_equal(same_on_threads(path, false, "jsonl", false, want), rc);
        assert_int_equal(same_on_threads(path, true, "jsonl", false, want), rc);
    }
    char *csv = strdup(cli_dir_path("m.csv"));
    write_csv(csv, N, 20000, "1,99999999,\"never closed");
    assert_int_equal(same_on_threads(csv, true, "csv", false, "stdin: line "), 1);
    free(csv);
    free(path);
    cf_import_chunk_max = saved;
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        CLI_DIR_TEST(test_cli_import_threads__jsonl_same_as_one),
        CLI_DIR_TEST(test_cli_import_threads__csv_stdin_same_as_one),
        CLI_DIR_TEST(test_cli_import_threads__huge_lines),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

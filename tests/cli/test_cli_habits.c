/* `cfile` habits shared by every command (issue 18, item 4): a usage error is one line
 * and a hint (exit 2), never the whole help; --json is compact JSON in one of two
 * documented shapes (one document, or JSON Lines for row streams); --limit and `head`
 * cut dumps and scans; `cfile table --help` lists every table command; reading past
 * the end is the same "not found" in dump and seek. The table cases run only in a
 * build with the table module (CF_HAVE_TABLES); the rest run in every build. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cfile/config.h> /* CF_HAVE_TABLES, ... */

#include "cli.h"
#include "json.h"
#include "out.h"
#include "support_cli.h"
#include "test_common.h"

typedef struct fixture {
    char dir[64];
    char file[128];  /* 25 INT64 rows 0, 10, ..., 240, with a value index */
    char table[128]; /* a table of 12 rows (CF_HAVE_TABLES) */
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    strcpy(f->dir, "/tmp/cf_habits_XXXXXX");
    if (mkdtemp(f->dir) == NULL)
        return -1;
    char in[128], csv[128], text[512] = "";
    snprintf(in, sizeof(in), "%s/in.jsonl", f->dir);
    for (int i = 0; i < 25; i++)
        snprintf(text + strlen(text), sizeof(text) - strlen(text), "%d\n", i * 10);
    write_str(in, text);
    snprintf(f->file, sizeof(f->file), "%s/a.cfile", f->dir);
    run r;
    CLI(&r, "write", "--type", "INT64", "--validx", "--quiet", in, f->file);
    if (r.rc != 0)
        return -1;
    done(&r);
#if CF_HAVE_TABLES
    snprintf(csv, sizeof(csv), "%s/rows.csv", f->dir);
    strcpy(text, "id,name\n");
    for (int i = 0; i < 12; i++)
        snprintf(text + strlen(text), sizeof(text) - strlen(text), "%d,n%d\n", i, i);
    write_str(csv, text);
    snprintf(f->table, sizeof(f->table), "%s/t", f->dir);
    CLI(&r, "table", "import", f->table, "--schema", "id INT64 KEY, name STRING", csv);
    if (r.rc != 0)
        return -1;
    done(&r);
#else
    (void)csv;
#endif
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    CF_ASSERT_RM_RF(f->dir);
    free(f);
    return 0;
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* ---- usage errors ------------------------------------------------------------------------ */

/* Exactly "cfile CMD: <what>\ntry 'cfile CMD --help'\n" on stderr, nothing on stdout. */
static void expect_usage_error(const run *r, const char *cmd)
{
    if (r->rc != 2)
        fail_msg("cfile %s: exit %d, want 2; stderr: %s", cmd, r->rc, r->err);
    char prefix[64], hint[64];
    snprintf(prefix, sizeof(prefix), "cfile %s: ", cmd);
    snprintf(hint, sizeof(hint), "\ntry 'cfile %s --help'\n", cmd);
    size_t hl = strlen(hint);
    if (strncmp(r->err, prefix, strlen(prefix)) != 0 || count_lines(r->err) != 2 ||
        r->err_len < hl || strcmp(r->err + r->err_len - hl, hint) != 0)
        fail_msg("cfile %s: a usage error is one line and a hint, got:\n%s", cmd, r->err);
    if (r->out_len != 0)
        fail_msg("cfile %s: a usage error printed to stdout:\n%s", cmd, r->out);
}

static void test_cli_habits__usage_error_is_one_line(void **state)
{
    (void)state;
    run r;
    /* Every command, from the command table itself: an unknown option. */
    size_t n = 0;
    for (size_t i = 0; cf_cli_command_name(i) != NULL; i++, n++) {
        const char *cmd = cf_cli_command_name(i);
        CLI(&r, (char *)cmd, "--no-such-option", "x");
        expect_usage_error(&r, cmd);
        done(&r);
    }
    /* 11 in every build, plus those of the modules built (cli.c `commands`). */
    assert_true(n >= 11 + CF_HAVE_HFILE + CF_HAVE_PARQUET + (CF_HAVE_PARQUET && CF_HAVE_TABLES) +
                         CF_HAVE_TABLES);
    /* Missing arguments and bad values, a few commands and subcommands over. */
    static char *const cases[][6] = {
        {"dump", NULL},
        {"seek", "x.cfile", NULL},
        {"dump", "--limit", "many", "x", NULL},
        {"info", "a", "b", NULL},
#if CF_HAVE_TABLES
        {"table", NULL},
        {"table", "frobnicate", "t", NULL},
        {"table", "scan", "t", "--limit", "-1", NULL},
        {"table", "insert", "t", "--where", "id = 1", NULL},
#endif
        {"head", "-n", "x", "f", NULL},
        {"write", "--type", "NOPE", "in", "out", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *args[8] = {0};
        for (size_t k = 0; k < 6 && cases[i][k] != NULL; k++)
            args[k] = cases[i][k];
        run_argv(&r, NULL, args);
        expect_usage_error(&r, cases[i][0]);
        done(&r);
    }
    /* The tool itself: no command, an unknown one, an unknown option. */
    char *argv0[] = {NULL};
    run_argv(&r, NULL, argv0);
    EXPECT_RC(r, 2);
    assert_string_equal(r.err, "cfile: no command given\ntry 'cfile --help'\n");
    done(&r);
    CLI(&r, "frobnicate");
    EXPECT_RC(r, 2);
    assert_string_equal(r.err, "cfile: unknown command 'frobnicate'\ntry 'cfile --help'\n");
    done(&r);
    CLI(&r, "--bogus");
    EXPECT_RC(r, 2);
    assert_string_equal(r.err, "cfile: unknown option '--bogus'\ntry 'cfile --help'\n");
    done(&r);
    /* --help still prints the whole text, to stdout, exit 0. */
    CLI(&r, "dump", "--help");
    EXPECT_RC(r, 0);
    assert_true(strncmp(r.out, "usage: cfile dump", 17) == 0);
    assert_int_equal(r.err_len, 0);
    done(&r);
}

/* ---- cfile table --help ------------------------------------------------------------------ */
#if CF_HAVE_TABLES

static void test_cli_habits__table_help_lists_every_command(void **state)
{
    (void)state;
    run r;
    CLI(&r, "table", "--help");
    EXPECT_RC(r, 0);
    /* Every subcommand the dispatcher knows (strcmp(sub, "NAME") in cmd_table.c), so a
     * new one cannot be added without its usage line. */
    size_t len = 0;
    uint8_t *raw = cf_test_read_file(CF_SOURCE_DIR "/tools/cfile/cmd_table.c", &len);
    assert_non_null(raw);
    char *src = malloc(len + 1); /* the file's bytes are not NUL-terminated */
    assert_non_null(src);
    memcpy(src, raw, len);
    src[len] = '\0';
    free(raw);
    size_t found = 0;
    for (const char *p = src; (p = strstr(p, "strcmp(sub, \"")) != NULL; p++) {
        const char *name = p + strlen("strcmp(sub, \"");
        const char *end = strchr(name, '"');
        if (end == NULL || end - name >= 32 || name[0] == '-')
            continue;
        char want[64];
        snprintf(want, sizeof(want), "cfile table %.*s ", (int)(end - name), name);
        if (strstr(r.out, want) == NULL)
            fail_msg("`cfile table --help` does not list '%.*s'", (int)(end - name), name);
        found++;
    }
    free(src);
    assert_true(found >= 10);
    static const char *const subs[] = {"create", "import", "scan",    "get",   "insert",
                                       "update", "delete", "compact", "flush", "info"};
    for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
        char want[64];
        snprintf(want, sizeof(want), "cfile table %s ", subs[i]);
        assert_non_null(strstr(r.out, want));
    }
    done(&r);
    /* -h and `cfile help table` are the same text. */
    run h;
    CLI(&h, "help", "table");
    EXPECT_RC(h, 0);
    CLI(&r, "table", "-h");
    cli_out_is(&r, 0, h.out);
    done(&h);
}
#endif

/* ---- past the end ------------------------------------------------------------------------- */

static void test_cli_habits__past_the_end_same_in_dump_and_seek(void **state)
{
    fixture *f = *state;
    run d, s;
    /* A start row that is not a row: not found, exit 1, the same message. */
    static char *const rows[] = {"25", "26", "1000"};
    for (size_t i = 0; i < 3; i++) {
        CLI(&d, "dump", f->file, "--from", rows[i]);
        CLI(&s, "seek", f->file, "--ordinal", rows[i]);
        EXPECT_RC(d, 1);
        EXPECT_RC(s, 1);
        assert_int_equal(d.out_len, 0);
        assert_int_equal(s.out_len, 0);
        char want[300];
        snprintf(want, sizeof(want), ": %s: not found: ordinal %s is past the last row (25 rows)\n",
                 f->file, rows[i]);
        if (strcmp(d.err + strlen("cfile dump"), want) != 0 ||
            strcmp(s.err + strlen("cfile seek"), want) != 0)
            fail_msg("dump and seek differ past the end:\n%s%s", d.err, s.err);
        done(&d);
        done(&s);
    }
    /* Every format of dump says it the same way. */
    static char *const fmts[] = {"json", "jsonl", "csv", "table"};
    for (size_t i = 0; i < 4; i++) {
        CLI(&d, "dump", "--format", fmts[i], f->file, "--from", "25");
        EXPECT_RC(d, 1);
        assert_int_equal(d.out_len, 0);
        assert_non_null(strstr(d.err, "not found: ordinal 25 is past the last row"));
        done(&d);
    }
    /* A read that runs past the end stops at the last row in both, exit 0. */
    CLI(&d, "dump", "--format", "jsonl", f->file, "--from", "23", "--limit", "10");
    CLI(&s, "seek", "--json", f->file, "--ordinal", "23", "--count", "10");
    EXPECT_RC(d, 0);
    EXPECT_RC(s, 0);
    assert_string_equal(d.out, "{\"row\":23,\"value\":230}\n{\"row\":24,\"value\":240}\n");
    assert_non_null(strstr(s.out, "\"values\":[230,240]}"));
    done(&d);
    done(&s);
    /* A value past the last one: seek says not found on stderr too (text mode). */
    CLI(&s, "seek", f->file, "--value", "241");
    EXPECT_RC(s, 1);
    assert_int_equal(s.out_len, 0);
    assert_true(strncmp(s.err, "cfile seek: ", 12) == 0);
    assert_non_null(strstr(s.err, ": not found: "));
    done(&s);
    /* The last row itself is a row. */
    CLI(&d, "dump", f->file, "--from", "24");
    cli_out(&d, 0, "\n24: 240\n");
}

/* ---- --limit and head ---------------------------------------------------------------------- */

static void test_cli_habits__limit_and_head(void **state)
{
    fixture *f = *state;
    run r;
    CLI(&r, "dump", "--format", "csv", f->file, "--limit", "3");
    cli_out_is(&r, 0, "row,value\n0,0\n1,10\n2,20\n");
    CLI(&r, "dump", "--format", "csv", f->file, "-n", "2", "--from", "5");
    cli_out_is(&r, 0, "row,value\n5,50\n6,60\n");
    /* head: 10 rows by default, -n N, --json as JSON Lines. */
    CLI(&r, "head", "--format", "csv", f->file);
    EXPECT_RC(r, 0);
    assert_int_equal(count_lines(r.out), 11);
    assert_non_null(strstr(r.out, "\n9,90\n"));
    assert_null(strstr(r.out, "\n10,100\n"));
    done(&r);
    CLI(&r, "head", "-n", "2", "--json", f->file);
    cli_out_is(&r, 0, "{\"row\":0,\"value\":0}\n{\"row\":1,\"value\":10}\n");
#if CF_HAVE_TABLES
    /* A table: scan --limit and head on the directory. */
    cli_prints("{\"id\":0,\"name\":\"n0\"}\n{\"id\":1,\"name\":\"n1\"}\n", "table", "scan",
               f->table, "--json", "--limit", "2", NULL);
    cli_prints("id,name\n", "table", "scan", f->table, "--format", "csv", "--limit", "0", NULL);
    CLI(&r, "head", "--json", f->table);
    EXPECT_RC(r, 0);
    assert_int_equal(count_lines(r.out), 10);
    assert_non_null(strstr(r.out, "{\"id\":9,\"name\":\"n9\"}\n"));
    done(&r);
    CLI(&r, "head", "-n", "100", "--json", f->table);
    EXPECT_RC(r, 0);
    assert_int_equal(count_lines(r.out), 12);
    done(&r);
    /* --limit where scan is the only taker. */
    CLI(&r, "table", "get", f->table, "--limit", "1", "3");
    expect_usage_error(&r, "table");
    done(&r);
#endif
}

/* ---- --json: one compact document, or JSON Lines ------------------------------------------- */

/* Each line of out is one JSON value with no insignificant whitespace (our writer
 * puts none: every ' ' outside strings and every newline inside a value is a defect). */
static void expect_compact_json(const char *what, const char *out, size_t want_lines)
{
    size_t lines = 0;
    for (const char *p = out; *p != '\0';) {
        const char *nl = strchr(p, '\n');
        if (nl == NULL)
            fail_msg("%s: output does not end in a newline: %s", what, p);
        cf_json_doc doc;
        char msg[200];
        if (cf_json_parse(&doc, p, (size_t)(nl - p), msg, sizeof(msg)) != 0)
            fail_msg("%s: line %zu is not one JSON value (%s): %.*s", what, lines + 1, msg,
                     (int)(nl - p), p);
        cf_json_doc_dispose(&doc);
        bool in_str = false;
        for (const char *q = p; q < nl; q++) {
            if (in_str && *q == '\\')
                q++;
            else if (*q == '"')
                in_str = !in_str;
            else if (!in_str && (*q == ' ' || *q == '\t'))
                fail_msg("%s: not compact (whitespace at byte %td): %.*s", what, q - p,
                         (int)(nl - p), p);
        }
        lines++;
        p = nl + 1;
    }
    if (want_lines != 0 && lines != want_lines)
        fail_msg("%s: %zu JSON lines, want %zu:\n%s", what, lines, want_lines, out);
}

static void test_cli_habits__json_shapes(void **state)
{
    fixture *f = *state;
    char out2[160], keys[160], jout[160];
    snprintf(out2, sizeof(out2), "%s/b.cfile", f->dir);
    snprintf(keys, sizeof(keys), "%s/keys.txt", f->dir);
    snprintf(jout, sizeof(jout), "%s/in.jsonl", f->dir);
    write_str(keys, "a\nb\nc\n");
    char bloom[160];
    snprintf(bloom, sizeof(bloom), "%s/k.bloom", f->dir);
    /* Reports: one document, one line. */
    struct {
        char *args[10];
        size_t lines; /* 1 = one document; 0 = JSON Lines, any count */
    } cases[] = {
        {{"info", "--json", f->file}, 1},
        {{"info", "--json", "--blocks", f->file}, 1},
        {{"verify", "--json", f->file}, 1},
        {{"verify", "--json", f->file, f->file}, 2}, /* one document per FILE */
        {{"seek", "--json", f->file, "--value", "35", "--count", "3"}, 1},
        {{"dump", "--json", f->file}, 1},
        {{"write", "--json", "--type", "INT64", jout, out2}, 1},
        {{"bloom", "write", "--json", keys, bloom}, 1},
        {{"bloom", "probe", "--json", bloom, "a", "z"}, 1},
#if CF_HAVE_TABLES
        {{"table", "info", "--json", f->table}, 1},
        {{"table", "insert", f->table, "--row", "id=100,name=x", "--json"}, 1},
        {{"table", "update", f->table, "--key", "100", "--set", "name=y", "--json"}, 1},
        {{"table", "delete", f->table, "--key", "100", "--json"}, 1},
#endif
        /* Row streams: JSON Lines. */
        {{"dump", "--format", "jsonl", f->file}, 25},
        {{"head", "--json", f->file}, 10},
#if CF_HAVE_TABLES
        {{"table", "scan", f->table, "--json"}, 12},
        {{"table", "get", f->table, "--json", "3", "4"}, 2},
#endif
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        run r;
        run_argv(&r, NULL, cases[i].args);
        char what[200];
        snprintf(what, sizeof(what), "cfile %s %s", cases[i].args[0], cases[i].args[1]);
        if (r.rc != 0)
            fail_msg("%s: exit %d: %s", what, r.rc, r.err);
        expect_compact_json(what, r.out, cases[i].lines);
        done(&r);
    }
    /* write --json: the summary's fields. */
    run r;
    CLI(&r, "write", "--json", "--type", "INT64", "--compression", "LZ4", jout, out2);
    EXPECT_RC(r, 0);
    cf_json_doc doc;
    char msg[128];
    assert_int_equal(cf_json_parse(&doc, r.out, r.out_len, msg, sizeof(msg)), 0);
    assert_string_equal(cf_json_get(&doc.root, "file")->str, out2);
    assert_string_equal(cf_json_get(&doc.root, "rows")->str, "25");
    assert_string_equal(cf_json_get(&doc.root, "type")->str, "INT64");
    assert_string_equal(cf_json_get(&doc.root, "compression")->str, "LZ4");
    struct stat sb;
    assert_int_equal(stat(out2, &sb), 0);
    char size[32];
    snprintf(size, sizeof(size), "%lld", (long long)sb.st_size);
    assert_string_equal(cf_json_get(&doc.root, "bytes")->str, size);
    cf_json_doc_dispose(&doc);
    done(&r);
    /* The documented meaning is in the global help. */
    CLI(&r, "--help");
    cli_out_has(&r, 0, "json:\n", "JSON Lines", NULL);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_habits__usage_error_is_one_line),
#if CF_HAVE_TABLES
        cmocka_unit_test(test_cli_habits__table_help_lists_every_command),
#endif
        cmocka_unit_test_setup_teardown(test_cli_habits__past_the_end_same_in_dump_and_seek, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_cli_habits__limit_and_head, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cli_habits__json_shapes, setup, teardown),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

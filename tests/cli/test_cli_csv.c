/* The CLI's one CSV reader (tools/cfile/csv.c) and what uses it: every reader
 * error with its line and column, BOM, CRLF, embedded newlines, long fields;
 * value errors (float overflow, DATE range) with line and column; round trips of
 * `dump --format csv|jsonl` through `write` and of `table scan --format
 * csv|jsonl` through `table import`; NULL never printed as the string "null";
 * and `table import` all or nothing (bad value, duplicate key, after rows that
 * reinsert deleted keys; SIGKILL mid-import). The table cases run in builds with
 * the table module (CF_HAVE_TABLES). */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cfile/config.h> /* CF_HAVE_TABLES */

#include "cli.h"
#include "csv.h"
#include "support_cli.h"
#include "test_common.h"

/* ---- the reader itself ------------------------------------------------------------------- */

/* Every record of text as "f1|f2|...\n" with quoted fields marked by a leading
 * '*'; or "ERR <message>" at the first error. Through memory and a stream. */
static char *records(const char *text, size_t len)
{
    char *outs[2];
    for (int mode = 0; mode < 2; mode++) {
        cf_csv r;
        FILE *f = NULL;
        if (mode == 0) {
            cf_csv_init_mem(&r, text, len, "in");
        } else {
            f = fmemopen((void *)text, len ? len : 1, "rb");
            assert_non_null(f);
            if (len == 0)
                fgetc(f);
            cf_csv_init_file(&r, f, "in");
        }
        char *buf = NULL;
        size_t blen = 0;
        FILE *m = open_memstream(&buf, &blen);
        const cf_csv_field *fl;
        size_t n;
        int got;
        while ((got = cf_csv_next(&r, &fl, &n)) > 0) {
            for (size_t i = 0; i < n; i++) {
                fprintf(m, "%s%s", i ? "|" : "", fl[i].quoted ? "*" : "");
                fwrite(fl[i].data, 1, fl[i].len, m);
            }
            fputc('\n', m);
        }
        if (got < 0)
            fprintf(m, "ERR %s", r.msg);
        fclose(m);
        cf_csv_dispose(&r);
        if (f != NULL)
            fclose(f);
        outs[mode] = buf;
    }
    assert_string_equal(outs[0], outs[1]);
    free(outs[1]);
    return outs[0];
}

static void expect_records(const char *text, const char *want)
{
    char *got = records(text, strlen(text));
    assert_string_equal(got, want);
    free(got);
}

static void test_csv__reader(void **state)
{
    (void)state;
    expect_records("", "");
    expect_records("a,b\nc,d", "a|b\nc|d\n");
    expect_records("a,b\r\nc,d\r\n", "a|b\nc|d\n");
    expect_records("\xEF\xBB\xBFid,x\n1,2\n", "id|x\n1|2\n");
    expect_records("\"a,b\",\"say \"\"hi\"\"\",\"\"\n", "*a,b|*say \"hi\"|*\n");
    expect_records("\"multi\nline\r\nfield\",x\n", "*multi\nline\r\nfield|x\n");
    expect_records(",\n\n", "|\n\n");
    expect_records("a\rb\n", "a\rb\n"); /* a lone CR is data */
    expect_records("x,\"\"", "x|*\n");
    expect_records("a\n\"b\"x,c\n",
                   "a\nERR in: line 2, column 4: text after the closing quote of the field "
                   "opened at line 2, column 1");
    expect_records("a,\"b\n\nc",
                   "ERR in: line 1, column 3: quoted field never closed (the input ends at "
                   "line 3)");
    expect_records("a,b\"c\n", "ERR in: line 1, column 4: a quote inside an unquoted field "
                               "(quote the whole field and double the quote: \"a\"\"b\")");
    expect_records("1,2\n\"x\n\"y\n", "1|2\nERR in: line 3, column 2: text after the closing "
                                      "quote of the field opened at line 2, column 1");
}

static void test_csv__long_fields(void **state)
{
    (void)state;
    /* Longer than the stream buffer, quoted and not, with many fields. */
    size_t n = (size_t)3 << 20;
    char *text = malloc(2 * n + 4096 * 2 + 16);
    size_t o = 0;
    text[o++] = '"';
    for (size_t i = 0; i < n; i++)
        text[o++] = i % 1000 == 999 ? '\n' : 'a' + (char)(i % 26);
    text[o++] = '"';
    text[o++] = ',';
    memset(text + o, 'z', n);
    o += n;
    for (int i = 0; i < 4096; i++) {
        text[o++] = ',';
        text[o++] = 'q';
    }
    text[o++] = '\n';
    cf_csv r;
    FILE *f = fmemopen(text, o, "rb");
    cf_csv_init_file(&r, f, "big");
    const cf_csv_field *fl;
    size_t nf;
    assert_int_equal(cf_csv_next(&r, &fl, &nf), 1);
    assert_int_equal(nf, 4098);
    assert_int_equal(fl[0].len, n);
    assert_true(fl[0].quoted);
    assert_int_equal(fl[1].len, n);
    assert_int_equal(fl[1].line, n / 1000 + 1);
    assert_int_equal(fl[4097].len, 1);
    assert_int_equal(cf_csv_next(&r, &fl, &nf), 0);
    cf_csv_dispose(&r);
    fclose(f);
    /* A record limit, when a caller sets one, is an error naming the record. */
    cf_csv_init_mem(&r, text, o, "big");
    r.max_record_len = 1000;
    assert_int_equal(cf_csv_next(&r, &fl, &nf), -1);
    assert_non_null(strstr(r.msg, "big: line 1, column 1: record longer than 1000 bytes"));
    cf_csv_dispose(&r);
    free(text);
}

static void test_csv__write_errors(void **state)
{
    (void)state;
    char *in = cli_dir_path("in.csv"), *out = cli_dir_path("out.cfile");
    run r;
    write_str(in, "1\n2\n1e999\n");
    cli(&r, "write", "--type", "DOUBLE", in, out, NULL);
    cli_err(&r, 1, "in.csv: line 3, column 1: DOUBLE: 1e999 is out of range");
    write_str(in, "1\n-1e60\n");
    cli(&r, "write", "--type", "FLOAT", in, out, NULL);
    cli_err(&r, 1, "line 2, column 1: FLOAT: -1e60 is out of range");
    write_str(in, "row,value\n0,-719162\n1,2932897\n");
    cli(&r, "write", "--type", "DATE", in, out, NULL);
    cli_err(&r, 1, "line 3, column 3: DATE: 2932897 is out of range (days -719162..2932896");
    write_str(in, "-719163\n");
    cli(&r, "write", "--type", "DATE", in, out, NULL);
    cli_err(&r, 1, "line 1, column 1: DATE: -719163 is out of range");
    write_str(in, "128\n");
    cli(&r, "write", "--type", "INT8", in, out, NULL);
    cli_err(&r, 1, "line 1, column 1: INT8: 128 is out of range");
    write_str(in, "9223372036854775808\n");
    cli(&r, "write", "--type", "UNIXTIME_MICROS", in, out, NULL);
    cli_err(&r, 1, "line 1, column 1: UNIXTIME_MICROS: 9223372036854775808 is out of range");
    write_str(in, "a\n\"b\" \n");
    cli(&r, "write", "--type", "STRING", in, out, NULL);
    cli_err(&r, 1, "in.csv: line 2, column 4: text after the closing quote");
    write_str(in, "a\nb,c\n");
    cli(&r, "write", "--type", "STRING", in, out, NULL);
    cli_err(&r, 1, "in.csv: line 2: 2 fields, expected 1");
    write_str(in, "1\n\n");
    cli(&r, "write", "--type", "INT32", in, out, NULL);
    cli_err(&r, 1, "line 2, column 1: an empty field is NULL");
    /* The range ends themselves are fine. */
    write_str(in, "-719162\n2932896\n");
    cli(&r, "write", "--type", "DATE", in, out, NULL);
    cli_rc(&r, 0);
}

/* dump FILE --format F > x; write --type T [flags] x -> y; dump y --format F == x. */
static void write_round_trip(const char *type, bool nullable, bool array, const char *jsonl)
{
    char *src = cli_dir_path("src.jsonl"), *a = cli_dir_path("a.cfile"),
         *b = cli_dir_path("b.cfile");
    write_str(src, jsonl);
    run r;
    char *args[16];
    int n = 0;
    args[n++] = "write";
    args[n++] = "--type";
    args[n++] = (char *)type;
    if (nullable)
        args[n++] = "--nullable";
    if (array)
        args[n++] = "--array";
    int base = n;
    const char *fmts[2] = {"csv", "jsonl"};
    args[n++] = src;
    args[n++] = a;
    args[n] = NULL;
    run_argv(&r, NULL, args);
    cli_rc(&r, 0);
    for (int k = 0; k < 2; k++) {
        char *dumped = cli_dir_path(k ? "d.jsonl" : "d.csv");
        cli(&r, "dump", "--format", fmts[k], a, NULL);
        EXPECT_RC(r, 0);
        write_text(dumped, r.out, r.out_len);
        char *first = strdup(r.out);
        done(&r);
        n = base;
        args[n++] = "--format";
        args[n++] = (char *)fmts[k];
        args[n++] = dumped;
        args[n++] = b;
        args[n] = NULL;
        run_argv(&r, NULL, args);
        cli_rc(&r, 0);
        cli(&r, "dump", "--format", fmts[k], b, NULL);
        cli_out_is(&r, 0, first);
        free(first);
        /* the same values, not only the same text: the exact value forms agree */
        cli(&r, "dump", "--json", a, NULL);
        EXPECT_RC(r, 0);
        char *va = strdup(strstr(r.out, "\"values\""));
        done(&r);
        cli(&r, "dump", "--json", b, NULL);
        EXPECT_RC(r, 0);
        assert_string_equal(strstr(r.out, "\"values\""), va);
        done(&r);
        free(va);
    }
}

static void test_csv__write_round_trips(void **state)
{
    (void)state;
    write_round_trip(
        "STRING", true, false,
        "\"plain\"\n\"a,b\"\n\"say \\\"hi\\\"\"\n\"two\\nlines\\r\\n\"\nnull\n\"null\"\n"
        "\"NULL\"\n\"\"\n\" lead\"\n{\"hex\":\"ff00fe\"}\n\"\\u00e9\"\n");
    write_round_trip("BINARY", true, false, "\"00ff\"\n\"\"\nnull\n\"2c22\"\n");
    write_round_trip("BINARY", false, false, "\"00ff\"\n\"\"\n");
    write_round_trip("DOUBLE", true, false,
                     "1.5\n-0.0\n\"NaN\"\n\"Infinity\"\n\"-Infinity\"\n1.7976931348623157e+308\n"
                     "5e-324\nnull\n\"0x7ff8000000000001\"\n");
    write_round_trip("FLOAT", false, false, "3.4028235e+38\n-1.0\n\"0x7fc00001\"\n");
    write_round_trip("INT64", true, false, "-9223372036854775808\n9223372036854775807\nnull\n0\n");
    write_round_trip("DATE", false, false, "-719162\n2932896\n0\n");
    write_round_trip("BOOL", true, false, "true\nfalse\nnull\n");
    write_round_trip("DECIMAL128", false, false,
                     "\"-170141183460469231731687303715884105728\"\n\"1\"\n");
    write_round_trip("STRING", true, true,
                     "[\"a,b\",null,\"null\",\"\"]\n[]\nnull\n[\"q\\\"\\n\"]\n");
    write_round_trip("INT32", true, true, "[1,null,3]\n[]\nnull\n");
}

/* ---- NULL and "null" ------------------------------------------------------------------------ */

static void test_csv__null_is_not_the_string_null(void **state)
{
    (void)state;
    char *src = cli_dir_path("n.jsonl"), *f = cli_dir_path("n.cfile");
    write_str(src, "null\n\"null\"\n\"NULL\"\n\"\\\"x\\\"\"\n");
    run r;
    cli(&r, "write", "--type", "STRING", "--nullable", src, f, NULL);
    cli_rc(&r, 0);
    const char *fmts[] = {"text", "json", "jsonl", "csv", "table"};
    for (size_t k = 0; k < 5; k++) {
        cli(&r, "dump", "--format", fmts[k], f, NULL);
        EXPECT_RC(r, 0);
        /* the four values, each printed differently from the others */
        char *lines[8] = {0};
        size_t nl = 0;
        char *copy = strdup(r.out);
        for (char *s = strtok(copy, "\n"); s && nl < 8; s = strtok(NULL, "\n"))
            lines[nl++] = s;
        if (strcmp(fmts[k], "json") != 0) {
            size_t first = nl - 4;
            for (size_t i = first; i < nl; i++)
                for (size_t j = i + 1; j < nl; j++) {
                    /* strip the row label: what follows the row number */
                    const char *a = lines[i] + strspn(lines[i], "0123456789");
                    const char *b = lines[j] + strspn(lines[j], "0123456789");
                    a += strspn(a, ":, ");
                    b += strspn(b, ":, ");
                    if (strcmp(fmts[k], "jsonl") == 0) {
                        a = strstr(lines[i], "\"value\"");
                        b = strstr(lines[j], "\"value\"");
                    }
                    if (a && b && strcmp(a, b) == 0)
                        fail_msg("dump --format %s prints rows %zu and %zu the same: %s", fmts[k],
                                 i - first, j - first, a);
                }
        }
        free(copy);
        done(&r);
    }
#if CF_HAVE_TABLES
    /* table scan, every form */
    char *dir = cli_table_import("nt", "id INT64 KEY, s STRING NULL",
                                 "id,s\n1,\n2,null\n3,NULL\n4,\"\"\"x\"\"\"\n5,\"\"\n", NULL);
    cli_prints("id | s      \n---+--------\n1  | NULL   \n2  | \"null\" \n"
               "3  | \"NULL\" \n4  | \"\\\"x\\\"\"\n5  |        \n",
               "table", "scan", dir, NULL);
    cli_prints("{\"id\":1,\"s\":null}\n{\"id\":2,\"s\":\"null\"}\n"
               "{\"id\":3,\"s\":\"NULL\"}\n{\"id\":4,\"s\":\"\\\"x\\\"\"}\n"
               "{\"id\":5,\"s\":\"\"}\n",
               "table", "scan", dir, "--json", NULL);
    cli_prints("id,s\n1,\n2,null\n3,NULL\n4,\"\"\"x\"\"\"\n5,\"\"\n", "table", "scan", dir,
               "--format", "csv", NULL);
#endif
}

/* ---- table round trips ---------------------------------------------------------------------- */
#if CF_HAVE_TABLES

#define RT_SCHEMA                                                                                  \
    "id INT64 KEY, name STRING NULL, b BINARY NULL, d DOUBLE NULL, day DATE NULL, ok BOOL "        \
    "NULL, tags INT32[] NULL, words STRING[] NULL, big DECIMAL128(38,0) NULL"

/* `table scan` text is one line per row: a string holding a newline or a tab is
 * shown in its JSON form, as `dump --format table` shows it (the table printer
 * used to write its bytes, so a row ran over two lines). */
static void test_csv__table_text_escapes_control_characters(void **state)
{
    (void)state;
    run r;
    char *dir = cli_table_import("ct", "id INT64 KEY, s STRING",
                                 "id,s\n1,\"two\nlines\"\n2,\"a\tb\"\n3,plain\n", NULL);
    cli_prints("id | s           \n---+-------------\n1  | \"two\\nlines\"\n"
               "2  | \"a\\tb\"      \n3  | plain       \n",
               "table", "scan", dir, NULL);
    /* The same cells as `cfile dump --format table` prints them. */
    cli(&r, "head", dir, NULL);
    cli_out(&r, 0, "1  | \"two\\nlines\"\n");
}

/* `table scan` text shows every value as `dump --format table` does (one value
 * printer, vprint.h CF_VP_TABLE): BINARY as bare hex, NaN and Infinity, INT128
 * and DECIMAL128 unquoted. scan used to print their JSON forms ("00ff", "NaN"),
 * so the two outputs differed for the same values. */
static void test_csv__table_text_as_dump_table(void **state)
{
    (void)state;
    run r;
    char *dir = cli_table_import(
        "tt", "id INT64 KEY, b BINARY NULL, d DOUBLE, f FLOAT, big INT128 NULL",
        "id,b,d,f,big\n1,00ff,NaN,0x7fc00001,-170141183460469231731687303715884105728\n"
        "2,,Infinity,-Infinity,12\n3,\"\",-0.0,1.5,\n",
        NULL);
    cli(&r, "table", "scan", dir, NULL);
    EXPECT_RC(r, 0);
    assert_string_equal(
        r.out, "id | b    | d        | f          | big                                     \n"
               "---+------+----------+------------+-----------------------------------------\n"
               "1  | 00ff | NaN      | 0x7fc00001 | -170141183460469231731687303715884105728\n"
               "2  | NULL | Infinity | -Infinity  | 12                                      \n"
               "3  |      | -0.0     | 1.5        | NULL                                    \n");
    done(&r);
    /* dump --format table of the column prints the same cells */
    char *one = cli_dir_path("tt.cfile"), *in = cli_dir_path("tt.in.csv");
    write_str(in, "row,value\n0,00ff\n1,\n2,\"\"\n");
    cli(&r, "write", "--type", "BINARY", "--nullable", in, one, NULL);
    cli_rc(&r, 0);
    cli(&r, "dump", "--format", "table", one, NULL);
    cli_out_is(&r, 0, "row  value\n---  -----\n  0  00ff\n  1  NULL\n  2\n");
    /* JSON keeps the value forms */
    cli(&r, "table", "scan", dir, "--json", "--columns", "b,d,f,big", NULL);
    EXPECT_RC(r, 0);
    assert_string_equal(r.out,
                        "{\"b\":\"00ff\",\"d\":\"NaN\",\"f\":\"0x7fc00001\","
                        "\"big\":\"-170141183460469231731687303715884105728\"}\n"
                        "{\"b\":null,\"d\":\"Infinity\",\"f\":\"-Infinity\",\"big\":\"12\"}\n"
                        "{\"b\":\"\",\"d\":-0.0,\"f\":1.5,\"big\":null}\n");
    done(&r);
}

/* `bench scan --columns` reads the list as `table scan --columns` does: spaces
 * after the commas are allowed (bench used to look for a column named " s"). */
static void test_csv__bench_scan_columns_as_table_scan(void **state)
{
    (void)state;
    run r;
    char *dir = cli_dir_path("bc"), *csv = cli_dir_path("bc.csv");
    write_str(csv, "id,s\n1,x\n2,y\n");
    cli(&r, "table", "import", dir, "--schema", "id INT64 KEY, s STRING", csv, NULL);
    cli_rc(&r, 0);
    cli_prints("id,s\n1,x\n2,y\n", "table", "scan", dir, "--columns", "id, s", "--format", "csv",
               NULL);
    cli(&r, "bench", "scan", dir, "--columns", "id, s", "--iters", "1", "--threads", "1", NULL);
    cli_out(&r, 0, "\"rows\":2");
    cli(&r, "bench", "scan", dir, "--columns", "id,nosuch", "--iters", "1", NULL);
    cli_err(&r, CF_EXIT_USAGE, "--columns: no column 'nosuch'");
}
static void test_csv__table_round_trips(void **state)
{
    (void)state;
    char *src = cli_dir_path("rt.jsonl"), *t0 = cli_dir_path("rt0");
    write_str(src,
              "{\"id\":3,\"name\":\"a,b\",\"b\":\"00ff\",\"d\":1.5,\"day\":-719162,\"ok\":true,"
              "\"tags\":[1,null],\"words\":[\"x,y\",null,\"null\"],\"big\":\"-1\"}\n"
              "{\"id\":1,\"name\":\"say \\\"hi\\\"\\nthere\",\"b\":\"\",\"d\":\"NaN\","
              "\"day\":2932896,\"ok\":false,\"tags\":[],\"words\":[],\"big\":\"0\"}\n"
              "{\"id\":2,\"name\":\"null\",\"d\":\"-Infinity\"}\n"
              "{\"id\":4,\"name\":\"\",\"d\":-0.0,\"words\":[\"\"]}\n"
              "{\"id\":5,\"name\":\"\\u00e9\\r\\n\",\"d\":5e-324}\n");
    run r;
    cli(&r, "table", "import", t0, "--schema", RT_SCHEMA, src, NULL);
    cli_out(&r, 0, "imported 5 rows");
    cli(&r, "table", "scan", t0, "--json", NULL);
    EXPECT_RC(r, 0);
    char *want = strdup(r.out);
    done(&r);
    const char *forms[][3] = {{"--format", "csv", "x.csv"},
                              {"--format", "jsonl", "x.jsonl"},
                              {"--json", NULL, "y.jsonl"}};
    for (int k = 0; k < 3; k++) {
        char *file = cli_dir_path(forms[k][2]);
        char name[32];
        snprintf(name, sizeof(name), "rt%d", k + 1);
        char *tk = cli_dir_path(name);
        if (forms[k][1] != NULL)
            cli(&r, "table", "scan", t0, (char *)forms[k][0], (char *)forms[k][1], NULL);
        else
            cli(&r, "table", "scan", t0, (char *)forms[k][0], NULL);
        EXPECT_RC(r, 0);
        write_text(file, r.out, r.out_len);
        done(&r);
        cli(&r, "table", "import", tk, "--schema", RT_SCHEMA, file, NULL);
        cli_rc(&r, 0);
        cli_prints(want, "table", "scan", tk, "--json", NULL);
    }
    free(want);
}

/* ---- import: all or nothing ----------------------------------------------------------------- */

/* What a table is: its rows and versions (scan --json at the latest and two
 * older snapshots), TABLET's bytes, and the rs-* directories present. */
static char *table_state(const char *dir)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    const char *asof[] = {NULL, "1", "2"};
    for (int i = 0; i < 3; i++) {
        run r;
        if (asof[i])
            cli(&r, "table", "scan", dir, "--json", "--as-of", asof[i], NULL);
        else
            cli(&r, "table", "scan", dir, "--json", NULL);
        EXPECT_RC(r, 0);
        fprintf(m, "%s--\n", r.out);
        done(&r);
    }
    char path[300];
    snprintf(path, sizeof(path), "%s/TABLET", dir);
    FILE *f = fopen(path, "rb");
    if (f != NULL) {
        int ch;
        while ((ch = fgetc(f)) != EOF)
            fputc(ch, m);
        fclose(f);
    }
    DIR *d = opendir(dir);
    struct dirent *e;
    char names[64][64];
    int n = 0;
    while ((e = readdir(d)) != NULL && n < 64)
        if (strncmp(e->d_name, "rs-", 3) == 0)
            snprintf(names[n++], 64, "%.60s", e->d_name);
    closedir(d);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (strcmp(names[i], names[j]) > 0) {
                char t[64];
                memcpy(t, names[i], 64);
                memcpy(names[i], names[j], 64);
                memcpy(names[j], t, 64);
            }
    for (int i = 0; i < n; i++)
        fprintf(m, "dir %s\n", names[i]);
    fclose(m);
    return buf;
}

static void test_csv__import_all_or_nothing(void **state)
{
    (void)state;
    char *dir = cli_dir_path("an"), *a = cli_dir_path("a.csv"), *bad = cli_dir_path("bad.csv");
    run r;
    write_str(a, "id,name\n10,x\n20,y\n30,z\n");
    cli(&r, "table", "import", dir, "--schema", "id INT64 KEY, name STRING NULL, v DOUBLE NULL", a,
        NULL);
    cli_rc(&r, 0);
    cli(&r, "table", "delete", dir, "--key", "20", NULL); /* in rs-1's deltas: ts 2 */
    cli_rc(&r, 0);
    cli(&r, "table", "insert", dir, "--row", "id=25,name=w", NULL); /* the MemRowSet's: ts 3 */
    cli_rc(&r, 0);
    cli(&r, "table", "delete", dir, "--key", "25", NULL); /* ts 4 */
    cli_rc(&r, 0);
    char *before = table_state(dir);
    /* Failures after more than one 8192-row batch, sorted and not, and after
     * rows that reinsert the deleted keys 20 and 25 (first in every file). */
    size_t cap = 1 << 20;
    char *text = malloc(cap);
    struct {
        const char *last; /* the failing record */
        bool sorted;
        int rc;
        const char *msg;
    } cases[] = {
        {"20001,a,1e999\n", true, 1,
         "bad.csv: line 20004, column 9 ('v'): DOUBLE: 1e999 is out "
         "of range"},
        {"20001,a,x\n", false, 1, "bad.csv: line 20004, column 9 ('v'): DOUBLE: not a number: x"},
        {"30,again,\n", true, 1, "bad.csv: line 20004: duplicate key (the table holds it in rs-"},
        {"19000,again,\n", false, 1, "bad.csv: line 20004: duplicate key (repeated in the load)"},
        {"19000,again,\n", true, 1, "bad.csv: line 20004: duplicate key (repeated in the load)"},
        {"20,again,\n", false, 1, "bad.csv: line 20004: duplicate key (repeated in the load)"},
        {"25,again,\n", true, 1, "bad.csv: line 20004: duplicate key (repeated in the load)"},
        {"20001,\"open\n", true, 1, "bad.csv: line 20004, column 7: quoted field never closed"},
        {"20001,\"a\"b,\n", false, 1, "bad.csv: line 20004, column 10: text after the closing"},
        {"20001,a,1,2\n", true, 1, "bad.csv: line 20004: 4 fields, the header has 3"},
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        size_t o = (size_t)snprintf(text, cap, "id,name,v\n20,back,2.5\n25,back,\n");
        for (int i = 0; i < 20000; i++) {
            int id = cases[k].sorted ? 1000 + i : 1000 + (i * 7919) % 20000;
            o += (size_t)snprintf(text + o, cap - o, "%d,n%d,%d.5\n", id, i, i);
        }
        o += (size_t)snprintf(text + o, cap - o, "%s", cases[k].last);
        write_text(bad, text, o);
        cli(&r, "table", "import", dir, bad, NULL);
        if (r.rc != cases[k].rc || strstr(r.err, cases[k].msg) == NULL)
            fail_msg("case %zu: exit %d, stderr %s; want exit %d and '%s'", k, r.rc, r.err,
                     cases[k].rc, cases[k].msg);
        done(&r);
        char *after = table_state(dir);
        assert_string_equal(after, before);
        free(after);
    }
    /* An I/O error: a file-size limit (ulimit -f) in a child, so writing a rowset
     * fails part way; the table is as before and nothing is left behind. */
    {
        size_t o = (size_t)snprintf(text, cap, "id,name,v\n");
        for (int i = 0; i < 20000; i++)
            o += (size_t)snprintf(text + o, cap - o, "%d,name number %d,%d.25\n",
                                  1000 + (i * 7919) % 20000, i, i);
        write_text(bad, text, o);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            signal(SIGXFSZ, SIG_IGN);
            struct rlimit rl = {64 << 10, 64 << 10};
            setrlimit(RLIMIT_FSIZE, &rl);
            FILE *devnull = fopen("/dev/null", "w");
            char *args[] = {"cfile", "table", "import", dir, bad, NULL};
            _exit(cf_cli_main(5, args, devnull, devnull));
        }
        int status;
        waitpid(pid, &status, 0);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 1);
        char *after = table_state(dir);
        assert_string_equal(after, before);
        free(after);
    }
    /* The same rows without the bad one: all of them, at one timestamp (5),
     * the deleted keys back with their new values. */
    size_t o = (size_t)snprintf(text, cap, "id,name,v\n20,back,2.5\n25,back,\n");
    for (int i = 0; i < 20000; i++)
        o += (size_t)snprintf(text + o, cap - o, "%d,n%d,%d.5\n", 1000 + (i * 7919) % 20000, i, i);
    write_text(bad, text, o);
    cli(&r, "table", "import", dir, bad, NULL);
    cli_out(&r, 0, "imported 20002 rows");
    cli(&r, "table", "get", dir, "--json", "--as-of", "4", "1000", NULL);
    EXPECT_RC(r, 1); /* the load is at ts 5 */
    done(&r);
    for (int i = 0; i < 2; i++) { /* older snapshots: 20 and 25 as they were */
        cli(&r, "table", "scan", dir, "--format", "csv", "--as-of", i ? "3" : "4", NULL);
        EXPECT_RC(r, 0);
        assert_string_equal(r.out,
                            i ? "id,name,v\n10,x,\n25,w,\n30,z,\n" : "id,name,v\n10,x,\n30,z,\n");
        done(&r);
    }
    cli(&r, "table", "get", dir, "--format", "csv", "--as-of", "5", "1000", "20999", "20", "25",
        NULL);
    EXPECT_RC(r, 0);
    assert_string_equal(r.out,
                        "id,name,v\n1000,n0,0.5\n20999,n2321,2321.5\n20,back,2.5\n25,back,\n");
    done(&r);
    /* after a compaction and at every snapshot */
    char *after = table_state(dir);
    cli(&r, "table", "compact", dir, NULL);
    cli_rc(&r, 0);
    char *compacted = table_state(dir);
    char *s1 = strstr(after, "cfile-tablet"), *s2 = strstr(compacted, "cfile-tablet");
    assert_non_null(s1);
    assert_non_null(s2);
    *s1 = *s2 = '\0';
    assert_string_equal(after, compacted);
    free(after);
    free(compacted);
    free(text);
    free(before);
}

/* A failed import into a new table leaves no part of a table behind (it left
 * TABLET and the log, and the next import found "no rowset here"): the
 * directory holds at most the LOCK, and the same import without the bad row
 * then works. */
static void test_csv__failed_new_table_retry(void **state)
{
    (void)state;
    char *dir = cli_dir_path("nt"), *bad = cli_dir_path("nt_bad.jsonl"),
         *good = cli_dir_path("nt_good.jsonl");
    run r;
    write_str(bad, "{\"v\": 5}\n{\"v\": 3}\n{\"v\": 5}\n"); /* out of order, then repeated */
    write_str(good, "{\"v\": 5}\n{\"v\": 3}\n");
    cli(&r, "table", "import", dir, "--schema", "v INT32 KEY", bad, NULL);
    cli_err(&r, 1, "line 3: duplicate key");
    DIR *d = opendir(dir);
    if (d != NULL) {
        struct dirent *de;
        while ((de = readdir(d)) != NULL)
            if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 &&
                strcmp(de->d_name, "LOCK") != 0)
                fail_msg("left behind: %s", de->d_name);
        closedir(d);
    }
    cli(&r, "table", "import", dir, "--schema", "v INT32 KEY", good, NULL);
    cli_rc(&r, 0);
    cli_prints("v\n3\n5\n", "table", "scan", dir, "--format", "csv", NULL);
}

/* SIGKILL a child in the middle of an import that also reinserts a deleted key,
 * at random moments: the table then holds all of the import or none of it, and
 * opens. */
static void test_csv__import_killed(void **state)
{
    (void)state;
    char *dir = cli_dir_path("k"), *a = cli_dir_path("k0.csv"), *big = cli_dir_path("big.csv");
    run r;
    /* -2 deleted (in the log and rs-1's deltas), then reinserted by the import */
    write_str(a, "id,name\n-2,second\n-1,first\n");
    cli(&r, "table", "import", dir, "--schema", "id INT64 KEY, name STRING NULL", a, NULL);
    cli_rc(&r, 0);
    cli(&r, "table", "delete", dir, "--key", "-2", NULL);
    cli_rc(&r, 0);
    size_t rows = 60000, cap = rows * 32;
    char *text = malloc(cap);
    size_t o = (size_t)snprintf(text, cap, "id,name\n-2,back\n");
    for (size_t i = 0; i < rows; i++) /* sorted for half, then out of order */
        o += (size_t)snprintf(text + o, cap - o, "%zu,name %zu\n",
                              i < rows / 2 ? i : rows / 2 + (i * 7919) % (rows / 2), i);
    write_text(big, text, o);
    free(text);
    srand((unsigned)time(NULL));
    int all = 0, none = 0;
    for (int round = 0; round < 10; round++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            FILE *devnull = fopen("/dev/null", "w");
            char *args[] = {"cfile", "table", "import", dir, big, NULL};
            _exit(cf_cli_main(5, args, devnull, devnull));
        }
        usleep((useconds_t)(rand() % 700000));
        kill(pid, SIGKILL);
        int status;
        waitpid(pid, &status, 0);
        cli(&r, "table", "info", dir, "--json", NULL);
        cli_rc(&r, 0);
        cli(&r, "table", "scan", dir, "--format", "csv", "--columns", "id", NULL);
        EXPECT_RC(r, 0);
        size_t lines = 0;
        for (const char *p = r.out; *p; p++)
            lines += *p == '\n';
        done(&r);
        size_t have = lines - 1; /* the header */
        if (have == 1) {
            none++;
        } else {
            assert_int_equal(have, rows + 2);
            all++;
            /* back to one row for the next round */
            char *fresh = cli_dir_path("k");
            CF_ASSERT_RM_RF(fresh);
            cli(&r, "table", "import", dir, "--schema", "id INT64 KEY, name STRING NULL", a, NULL);
            cli_rc(&r, 0);
            cli(&r, "table", "delete", dir, "--key", "-2", NULL);
            cli_rc(&r, 0);
        }
    }
    print_message("import killed 10 times: %d left all rows, %d none\n", all, none);
}
#endif /* CF_HAVE_TABLES */

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv__reader),
        cmocka_unit_test(test_csv__long_fields),
        CLI_DIR_TEST(test_csv__write_errors),
        CLI_DIR_TEST(test_csv__write_round_trips),
        CLI_DIR_TEST(test_csv__null_is_not_the_string_null),
#if CF_HAVE_TABLES
        CLI_DIR_TEST(test_csv__table_round_trips),
        CLI_DIR_TEST(test_csv__import_all_or_nothing),
        CLI_DIR_TEST(test_csv__import_killed),
        CLI_DIR_TEST(test_csv__table_text_escapes_control_characters),
        CLI_DIR_TEST(test_csv__table_text_as_dump_table),
        CLI_DIR_TEST(test_csv__bench_scan_columns_as_table_scan),
        CLI_DIR_TEST(test_csv__failed_new_table_retry),
#endif
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

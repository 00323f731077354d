/* One set of habits (issue 18, item 4): --json on the reporting commands that
 * lacked it (demo, table create/import/flush, delta write, convert in every
 * direction, parquet write), each one compact JSON document; --limit N on
 * `hfile dump` and `parquet dump`, stopping after N rows as `cfile dump --limit`
 * does. The cases of a module run in builds with it (CF_HAVE_*); the rest in all. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cfile/config.h> /* CF_HAVE_HFILE, CF_HAVE_TABLES, CF_HAVE_PARQUET */

#include "json.h"
#include "out.h"
#include "support_cli.h"
#include "test_common.h"

/* Parse a run's stdout as exactly one JSON document on one line. */
static void parse_one(cf_json_doc *doc, const run *r)
{
    char msg[160];
    assert_non_null(r->out);
    assert_true(r->out_len > 1);
    assert_int_equal(r->out[r->out_len - 1], '\n');
    assert_null(memchr(r->out, '\n', r->out_len - 1)); /* one line: compact */
    if (cf_json_parse(doc, r->out, r->out_len, msg, sizeof(msg)) != 0)
        fail_msg("not JSON (%s): %.200s", msg, r->out);
}

static const char *str_of(const cf_json *o, const char *key)
{
    const cf_json *v = cf_json_get(o, key);
    if (v == NULL || v->kind != CF_JSON_STRING)
        fail_msg("no string \"%s\"", key);
    return v->str;
}

static long long num_of(const cf_json *o, const char *key)
{
    const cf_json *v = cf_json_get(o, key);
    if (v == NULL || v->kind != CF_JSON_NUMBER)
        fail_msg("no number \"%s\"", key);
    return atoll(v->str);
}

#if CF_HAVE_HFILE || CF_HAVE_PARQUET
static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}
#endif

static void test_json_habits__demo(void **state)
{
    (void)state;
    char *dir = cli_dir; /* cli_dir_setup made it; cli_dir_teardown removes it */
    run r;
    CLI(&r, "demo", "--dir", dir, "--rows", "300", "--json");
    EXPECT_RC(r, 0);
    cf_json_doc doc;
    parse_one(&doc, &r);
    assert_string_equal(str_of(&doc.root, "dir"), dir);
    assert_int_equal(num_of(&doc.root, "rows"), 300);
    const cf_json *cols = cf_json_get(&doc.root, "columns");
    assert_non_null(cols);
    assert_int_equal(cols->n, 6);
    for (size_t i = 0; i < cols->n; i++) {
        const cf_json *c = &cols->items[i];
        assert_int_equal(num_of(c, "rows"), 300);
        /* bytes: the file's size on disk */
        struct stat sb;
        assert_int_equal(stat(str_of(c, "file"), &sb), 0);
        assert_int_equal(num_of(c, "bytes"), sb.st_size);
        const cf_json *fv = cf_json_get(c, "first_values");
        assert_true(fv != NULL && fv->kind == CF_JSON_ARRAY && fv->n == 4);
    }
    assert_string_equal(str_of(&cols->items[0], "name"), "id");
    const cf_json *lk = cf_json_get(&cols->items[0], "value_index_lookup");
    assert_non_null(lk);
    /* ids are 0, 7, 14, ...: the key 150*7+3 falls between two of them */
    assert_int_equal(num_of(lk, "key"), 1053);
    assert_int_equal(num_of(lk, "value"), 1057);
    assert_int_equal(num_of(lk, "row"), 151);
    assert_int_equal(cf_json_get(lk, "exact")->kind, CF_JSON_FALSE);
    cf_json_doc_dispose(&doc);
    done(&r);
    /* Text stays as it was: a table, then the hint. */
    CLI(&r, "demo", "--dir", dir, "--rows", "300");
    EXPECT_RC(r, 0);
    assert_non_null(strstr(r.out, "column  type"));
    assert_non_null(strstr(r.out, "\ntry: cfile info"));
    assert_null(strstr(r.out, "  \n")); /* no trailing blanks */
    done(&r);
}

#if CF_HAVE_TABLES
static void test_json_habits__table_create_import_flush(void **state)
{
    (void)state;
    char *t = cli_dir_path("t");
    char *csv = cli_dir_path("rows.csv");
    write_str(csv, "id,name\n1,a\n2,b\n3,c\n");
    run r;
    cf_json_doc doc;
    CLI(&r, "table", "create", t, "--schema", "id INT64 KEY, name STRING NULL", "--json");
    EXPECT_RC(r, 0);
    parse_one(&doc, &r);
    assert_string_equal(str_of(&doc.root, "op"), "create");
    assert_string_equal(str_of(&doc.root, "table"), t);
    assert_string_equal(str_of(&doc.root, "schema"), "id INT64 KEY, name STRING NULL");
    cf_json_doc_dispose(&doc);
    done(&r);

    CLI(&r, "table", "import", t, csv, "--json");
    EXPECT_RC(r, 0);
    parse_one(&doc, &r);
    assert_string_equal(str_of(&doc.root, "op"), "import");
    assert_int_equal(num_of(&doc.root, "rows"), 3);
    cf_json_doc_dispose(&doc);
    done(&r);

    CLI(&r, "table", "insert", t, "--row", "id=9,name=z");
    cli_rc(&r, 0);
    CLI(&r, "table", "flush", t, "--json");
    EXPECT_RC(r, 0);
    parse_one(&doc, &r);
    assert_string_equal(str_of(&doc.root, "op"), "flush");
    assert_int_equal(num_of(&doc.root, "rows"), 1);
    assert_int_equal(num_of(&doc.root, "rowsets"), 2);
    cf_json_doc_dispose(&doc);
    done(&r);

    /* flush takes only --json and --lock-timeout now, like the other writers. */
    CLI(&r, "table", "flush", t, "--where", "id = 1");
    cli_err(&r, 2, "flush does not take --where");
}
#endif

static void test_json_habits__delta_write(void **state)
{
    (void)state;
    char spec[512];
    snprintf(spec, sizeof(spec), "%s/golden-delta/redo-basic/spec.json", cf_test_shared_dir());
    char *out = cli_dir_path("d.cfile");
    run r;
    CLI(&r, "delta", "write", "--json", spec, out);
    EXPECT_RC(r, 0);
    cf_json_doc doc;
    parse_one(&doc, &r);
    assert_string_equal(str_of(&doc.root, "file"), out);
    struct stat sb;
    assert_int_equal(stat(out, &sb), 0);
    assert_int_equal(num_of(&doc.root, "bytes"), sb.st_size);
    long long nd = num_of(&doc.root, "deltas");
    cf_json_doc_dispose(&doc);
    done(&r);
    /* As many as dump finds in the file. */
    CLI(&r, "delta", "dump", "--json", out, "--schema", spec, "--type", "REDO");
    EXPECT_RC(r, 0);
    char msg[128];
    assert_int_equal(cf_json_parse(&doc, r.out, r.out_len, msg, sizeof(msg)), 0);
    const cf_json *ds = cf_json_get(&doc.root, "deltas");
    assert_non_null(ds);
    assert_int_equal((long long)ds->n, nd);
    assert_true(nd > 0);
    cf_json_doc_dispose(&doc);
    done(&r);
    /* --limit N: the first N deltas, as `cfile dump --limit` (JSON and text). */
    assert_true(nd > 1);
    CLI(&r, "delta", "dump", "--json", "--limit", "1", out, "--schema", spec, "--type", "REDO");
    EXPECT_RC(r, 0);
    parse_one(&doc, &r);
    assert_int_equal(cf_json_get(&doc.root, "deltas")->n, 1);
    assert_int_equal(num_of(&doc.root, "num_deltas"), nd); /* the file's count stays */
    cf_json_doc_dispose(&doc);
    done(&r);
    CLI(&r, "delta", "dump", "--limit", "0", out, "--schema", spec, "--type", "REDO");
    EXPECT_RC(r, 0);
    for (const char *p = r.out; *p; p = strchr(p, '\n') + 1)
        assert_int_equal(*p, '#'); /* the header lines only */
    done(&r);
    CLI(&r, "delta", "dump", "--limit", "x", out, "--schema", spec, "--type", "REDO");
    cli_rc(&r, 2);
    /* Without --json: silent, as before. */
    unlink(out);
    CLI(&r, "delta", "write", spec, out);
    EXPECT_RC(r, 0);
    assert_int_equal(r.out_len, 0);
    done(&r);
    CLI(&r, "delta", "write", "--jsn", spec, out);
    cli_rc(&r, 2);
}

#if CF_HAVE_HFILE
static void test_json_habits__hfile_dump_limit(void **state)
{
    (void)state;
    char f[512];
    snprintf(f, sizeof(f), "%s/hfile/gohfile_simple_v1.hfile", cf_test_shared_dir());
    run r;
    cf_json_doc doc;
    CLI(&r, "hfile", "dump", "--json", f);
    EXPECT_RC(r, 0);
    parse_one(&doc, &r);
    size_t all = cf_json_get(&doc.root, "cells")->n;
    assert_true(all > 2);
    cf_json_doc_dispose(&doc);
    done(&r);
    CLI(&r, "hfile", "dump", "--json", "--limit", "2", f);
    EXPECT_RC(r, 0);
    parse_one(&doc, &r);
    assert_int_equal(cf_json_get(&doc.root, "cells")->n, 2);
    cf_json_doc_dispose(&doc);
    done(&r);
    /* Text: two cells and the count line. */
    CLI(&r, "hfile", "dump", "-n", "2", f);
    EXPECT_RC(r, 0);
    assert_int_equal(count_lines(r.out), 3);
    assert_non_null(strstr(r.out, "Scanned kv count -> 2\n"));
    done(&r);
    CLI(&r, "hfile", "dump", "--limit", "0", "--json", f);
    EXPECT_RC(r, 0);
    parse_one(&doc, &r);
    assert_int_equal(cf_json_get(&doc.root, "cells")->n, 0);
    cf_json_doc_dispose(&doc);
    done(&r);
    CLI(&r, "hfile", "meta", "--limit", "2", f);
    cli_err(&r, 2, "--limit does not apply to 'meta'");
    CLI(&r, "hfile", "dump", "--limit", "x", f);
    cli_rc(&r, 2);
}
#endif

#if CF_HAVE_PARQUET
static void test_json_habits__parquet_dump_limit(void **state)
{
    (void)state;
    char f[512];
    snprintf(f, sizeof(f), "%s/parquet/pt_binary/pt_binary.parquet", cf_test_shared_dir());
    run r;
    cf_json_doc doc;
    CLI(&r, "parquet", "dump", "--json", "--limit", "3", f);
    EXPECT_RC(r, 0);
    parse_one(&doc, &r);
    const cf_json *rows = cf_json_get(&doc.root, "rows");
    assert_int_equal(rows->n, 3);
    cf_json_doc_dispose(&doc);
    done(&r);
    /* JSON Lines stop after N rows, from --rows' start. */
    CLI(&r, "parquet", "dump", "--limit", "2", "--rows", "5..", f);
    EXPECT_RC(r, 0);
    /* in the one compact style of every --json (no spaces) */
    assert_string_equal(r.out, "{\"foo\":\"05\"}\n{\"foo\":\"06\"}\n");
    done(&r);
    CLI(&r, "parquet", "head", "--limit", "1", f);
    EXPECT_RC(r, 0);
    assert_int_equal(count_lines(r.out), 1);
    done(&r);
    CLI(&r, "parquet", "meta", "--limit", "1", f);
    cli_err(&r, 2, "--limit");
}
#endif

/* `parquet write` and `convert`: both modules (a table schema and row loader). */
#if CF_HAVE_PARQUET && CF_HAVE_TABLES
/* A string item. */
static const char *sv(const cf_json *v)
{
    if (v->kind != CF_JSON_STRING)
        fail_msg("not a string");
    return v->str;
}

static long long file_size(const char *path)
{
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    return (long long)sb.st_size;
}

static const cf_json *arr_of(const cf_json *o, const char *key, size_t n)
{
    const cf_json *v = cf_json_get(o, key);
    if (v == NULL || v->kind != CF_JSON_ARRAY)
        fail_msg("no array \"%s\"", key);
    if (v->n != n)
        fail_msg("\"%s\" has %zu items, want %zu", key, v->n, n);
    return v;
}

/* Row groups of a Parquet file as `cfile info --json` reads them. */
static long long pq_row_groups(const char *path)
{
    run r;
    cf_json_doc doc;
    CLI(&r, "info", "--json", (char *)path);
    EXPECT_RC(r, 0);
    parse_one(&doc, &r);
    long long n = num_of(&doc.root, "num_row_groups");
    assert_int_equal(num_of(&doc.root, "num_rows"), 10);
    cf_json_doc_dispose(&doc);
    done(&r);
    return n;
}

static void check_pq_columns(const cf_json *root)
{
    const cf_json *cols = arr_of(root, "columns", 2);
    assert_string_equal(str_of(&cols->items[0], "name"), "id");
    assert_string_equal(str_of(&cols->items[0], "type"), "INT64");
    assert_int_equal(cf_json_get(&cols->items[0], "nullable")->kind, CF_JSON_FALSE);
    assert_string_equal(str_of(&cols->items[1], "name"), "name");
    assert_string_equal(str_of(&cols->items[1], "type"), "STRING");
    assert_int_equal(cf_json_get(&cols->items[1], "nullable")->kind, CF_JSON_TRUE);
}

static void test_json_habits__parquet_write(void **state)
{
    (void)state;
    char *csv = cli_dir_path("rows.csv");
    char *out = cli_dir_path("out.parquet");
    write_str(csv, "id,name\n0,a\n1,b\n2,\n3,d\n4,e\n5,f\n6,g\n7,h\n8,\n9,j\n");
    run r;
    cf_json_doc doc;
    CLI(&r, "parquet", "write", "--schema", "id INT64, name STRING NULL", "--input", csv,
        "--row-group-rows", "4", "--codec", "zstd", "--bloom", "id", "--json", out);
    EXPECT_RC(r, 0);
    parse_one(&doc, &r);
    assert_string_equal(str_of(&doc.root, "op"), "write");
    assert_string_equal(str_of(&doc.root, "from"), "csv");
    assert_string_equal(sv(&arr_of(&doc.root, "inputs", 1)->items[0]), csv);
    assert_string_equal(str_of(&doc.root, "to"), "parquet");
    assert_string_equal(str_of(&doc.root, "file"), out);
    assert_int_equal(num_of(&doc.root, "rows"), 10);
    assert_int_equal(num_of(&doc.root, "row_groups"), 3);
    assert_int_equal(pq_row_groups(out), 3);
    check_pq_columns(&doc.root);
    const cf_json *cols = cf_json_get(&doc.root, "columns");
    assert_int_equal(cf_json_get(&cols->items[0], "bloom_filter")->kind, CF_JSON_TRUE);
    assert_int_equal(cf_json_get(&cols->items[1], "bloom_filter")->kind, CF_JSON_FALSE);
    assert_string_equal(str_of(&doc.root, "codec"), "ZSTD");
    assert_int_equal(num_of(&doc.root, "bytes"), file_size(out));
    cf_json_doc_dispose(&doc);
    done(&r);

    /* JSON lines from stdin (a file here): "from" says so; the last of --quiet and
     * --json wins, as in `cfile write`. */
    char *jl = cli_dir_path("rows.jsonl");
    write_str(jl, "{\"id\": 1, \"name\": \"x\"}\n{\"id\": 2}\n");
    CLI(&r, "parquet", "write", "--schema", "id INT64, name STRING NULL", "--quiet", "--json",
        "--input", jl, out);
    EXPECT_RC(r, 0);
    parse_one(&doc, &r);
    assert_string_equal(str_of(&doc.root, "from"), "jsonl");
    assert_int_equal(num_of(&doc.root, "rows"), 2);
    assert_int_equal(num_of(&doc.root, "row_groups"), 1);
    assert_string_equal(str_of(&doc.root, "codec"), "SNAPPY");
    cf_json_doc_dispose(&doc);
    done(&r);
    CLI(&r, "parquet", "write", "--schema", "id INT64, name STRING NULL", "--json", "--quiet",
        "--input", jl, out);
    EXPECT_RC(r, 0);
    assert_int_equal(r.out_len, 0);
    done(&r);
    /* A failure prints no document. */
    write_str(jl, "{\"id\": \"nope\"}\n");
    CLI(&r, "parquet", "write", "--schema", "id INT64", "--json", "--input", jl, out);
    EXPECT_RC(r, 1);
    assert_int_equal(r.out_len, 0);
    done(&r);
}

static void test_json_habits__convert(void **state)
{
    (void)state;
    char *csv = cli_dir_path("rows.csv");
    char *pq = cli_dir_path("in.parquet");
    char *cdir = cli_dir_path("cols");
    char *one = cli_dir_path("one.cfile");
    char *back = cli_dir_path("back.parquet");
    char *t = cli_dir_path("t");
    char *tpq = cli_dir_path("t.parquet");
    write_str(csv, "id,name\n0,a\n1,b\n2,\n3,d\n4,e\n5,f\n6,g\n7,h\n8,\n9,j\n");
    run r;
    cf_json_doc doc;
    CLI(&r, "parquet", "write", "--schema", "id INT64, name STRING NULL", "--input", csv,
        "--row-group-rows", "5", "--quiet", pq);
    cli_rc(&r, 0);

    /* Parquet -> one CFile per column. */
    CLI(&r, "convert", "--json", pq, "--to", "cfiles", cdir);
    EXPECT_RC(r, 0);
    parse_one(&doc, &r);
    assert_string_equal(str_of(&doc.root, "op"), "convert");
    assert_string_equal(str_of(&doc.root, "from"), "parquet");
    assert_string_equal(sv(&arr_of(&doc.root, "inputs", 1)->items[0]), pq);
    assert_int_equal(num_of(&doc.root, "row_groups"), 2);
    assert_string_equal(str_of(&doc.root, "to"), "cfiles");
    assert_string_equal(str_of(&doc.root, "dir"), cdir);
    assert_int_equal(num_of(&doc.root, "rows"), 10);
    const cf_json *files = arr_of(&doc.root, "files", 2);
    long long total = 0;
    char paths[2][160];
    for (size_t i = 0; i < 2; i++) {
        const cf_json *f = &files->items[i];
        snprintf(paths[i], sizeof(paths[i]), "%s", str_of(f, "file"));
        assert_int_equal(num_of(f, "bytes"), file_size(paths[i]));
        total += num_of(f, "bytes");
        assert_non_null(cf_json_get(f, "encoding"));
        assert_non_null(cf_json_get(f, "compression"));
    }
    assert_string_equal(str_of(&files->items[0], "column"), "id");
    assert_string_equal(str_of(&files->items[0], "type"), "INT64");
    assert_string_equal(str_of(&files->items[1], "column"), "name");
    assert_string_equal(str_of(&files->items[1], "type"), "STRING");
    assert_int_equal(cf_json_get(&files->items[1], "nullable")->kind, CF_JSON_TRUE);
    assert_int_equal(num_of(&doc.root, "bytes"), total);
    cf_json_doc_dispose(&doc);
    done(&r);
    /* What it says it wrote is what the files hold. */
    CLI(&r, "info", "--json", paths[1]);
    EXPECT_RC(r, 0);
    parse_one(&doc, &r);
    assert_int_equal(num_of(&doc.root, "num_values"), 10);
    cf_json_doc_dispose(&doc);
    done(&r);

    /* Parquet -> one CFile. */
    CLI(&r, "convert", "--column", "name", "--json", pq, one);
    EXPECT_RC(r, 0);
    parse_one(&doc, &r);
    assert_string_equal(str_of(&doc.root, "to"), "cfile");
    assert_null(cf_json_get(&doc.root, "dir"));
    files = arr_of(&doc.root, "files", 1);
    assert_string_equal(str_of(&files->items[0], "file"), one);
    assert_int_equal(num_of(&doc.root, "bytes"), file_size(one));
    cf_json_doc_dispose(&doc);
    done(&r);

    /* CFiles -> Parquet. */
    CLI(&r, "convert", "--json", "--codec", "gzip", "--row-group-rows", "3", paths[0], paths[1],
        back);
    EXPECT_RC(r, 0);
    parse_one(&doc, &r);
    assert_string_equal(str_of(&doc.root, "op"), "convert");
    assert_string_equal(str_of(&doc.root, "from"), "cfiles");
    const cf_json *ins = arr_of(&doc.root, "inputs", 2);
    assert_string_equal(sv(&ins->items[1]), paths[1]);
    assert_null(cf_json_get(&doc.root, "as_of"));
    assert_string_equal(str_of(&doc.root, "to"), "parquet");
    assert_string_equal(str_of(&doc.root, "file"), back);
    assert_int_equal(num_of(&doc.root, "rows"), 10);
    assert_int_equal(num_of(&doc.root, "row_groups"), 4);
    assert_int_equal(pq_row_groups(back), 4);
    check_pq_columns(&doc.root);
    assert_string_equal(str_of(&doc.root, "codec"), "GZIP");
    assert_int_equal(num_of(&doc.root, "bytes"), file_size(back));
    cf_json_doc_dispose(&doc);
    done(&r);

    /* Parquet -> a new table. */
    CLI(&r, "convert", "--json", "--to", "table", "--key", "id", "--ts", "7", pq, t);
    EXPECT_RC(r, 0);
    parse_one(&doc, &r);
    assert_string_equal(str_of(&doc.root, "to"), "table");
    assert_string_equal(str_of(&doc.root, "table"), t);
    assert_int_equal(num_of(&doc.root, "rows"), 10);
    assert_int_equal(num_of(&doc.root, "row_groups"), 2);
    assert_string_equal(sv(&arr_of(&doc.root, "key", 1)->items[0]), "id");
    assert_string_equal(str_of(&arr_of(&doc.root, "columns", 2)->items[1], "column"), "name");
    assert_int_equal(num_of(&doc.root, "rowsets"), 1);
    cf_json_doc_dispose(&doc);
    done(&r);

    /* A table at a snapshot -> Parquet. */
    CLI(&r, "convert", "--json", "--as-of", "7", t, tpq);
    EXPECT_RC(r, 0);
    parse_one(&doc, &r);
    assert_string_equal(str_of(&doc.root, "from"), "table");
    assert_string_equal(sv(&arr_of(&doc.root, "inputs", 1)->items[0]), t);
    assert_int_equal(num_of(&doc.root, "as_of"), 7);
    assert_int_equal(num_of(&doc.root, "rows"), 10);
    assert_int_equal(num_of(&doc.root, "row_groups"), 1);
    assert_int_equal(num_of(&doc.root, "bytes"), file_size(tpq));
    cf_json_doc_dispose(&doc);
    done(&r);
    CLI(&r, "convert", "--json", "--as-of", "6", t, tpq);
    EXPECT_RC(r, 0);
    parse_one(&doc, &r);
    assert_int_equal(num_of(&doc.root, "rows"), 0);
    cf_json_doc_dispose(&doc);
    done(&r);

    /* A refused conversion prints no document; a bad flag is one usage line. */
    CLI(&r, "convert", "--json", pq, "--to", "cfiles", cdir);
    EXPECT_RC(r, 1);
    assert_int_equal(r.out_len, 0);
    done(&r);
    CLI(&r, "convert", "--json=yes", pq, back);
    EXPECT_RC(r, 2);
    assert_int_equal(count_lines(r.err), 2);
    done(&r);
}
#endif

/* Every output line of a run is one compact JSON document (a report has one
 * line, a row stream one per row). */
static void expect_json_lines(const char *what, const run *r)
{
    if (r->rc != 0)
        fail_msg("%s: exit %d: %.300s", what, r->rc, r->err);
    if (r->out_len == 0 || r->out[r->out_len - 1] != '\n')
        fail_msg("%s: no JSON on stdout", what);
    const char *p = r->out;
    while (*p) {
        const char *e = strchr(p, '\n');
        char msg[160];
        cf_json_doc doc;
        if (cf_json_parse(&doc, p, (size_t)(e - p), msg, sizeof(msg)) != 0)
            fail_msg("%s: not JSON (%s): %.200s", what, msg, p);
        cf_json_doc_dispose(&doc);
        /* compact: no space outside strings */
        bool in_str = false;
        for (const char *q = p; q < e; q++) {
            if (*q == '"' && (q == p || q[-1] != '\\'))
                in_str = !in_str;
            if (!in_str && (*q == ' ' || *q == '\t'))
                fail_msg("%s: not compact: %.200s", what, p);
        }
        p = e + 1;
    }
}

/* `--json` on every command that reports something (issue 18): each run below
 * exits 0 with compact JSON on stdout. `completion` prints a script, and the
 * picture of --svg - is SVG: those are the only outputs that are not JSON. */
static void test_json_habits__every_reporting_command(void **state)
{
    (void)state;
    char *dir = cli_dir; /* cli_dir_setup made it; cli_dir_teardown removes it */
    char jl[128], cf[128], cf2[128], keys[128], bl[128], t[128], csv[128], delta[128], hf[128],
        hf2[128], pq[128], pq2[128], cdir[128], spec[512], hfile[512], pqin[512];
    snprintf(jl, sizeof(jl), "%s/v.jsonl", dir);
    snprintf(cf, sizeof(cf), "%s/v.cfile", dir);
    snprintf(cf2, sizeof(cf2), "%s/from-parquet", dir);
    snprintf(keys, sizeof(keys), "%s/keys.txt", dir);
    snprintf(bl, sizeof(bl), "%s/k.bloom", dir);
    snprintf(t, sizeof(t), "%s/t", dir);
    snprintf(csv, sizeof(csv), "%s/rows.csv", dir);
    snprintf(delta, sizeof(delta), "%s/d.delta", dir);
    snprintf(hf, sizeof(hf), "%s/h.hfile", dir);
    snprintf(hf2, sizeof(hf2), "%s/cells.jsonl", dir);
    snprintf(pq, sizeof(pq), "%s/p.parquet", dir);
    snprintf(pq2, sizeof(pq2), "%s/q.parquet", dir);
    snprintf(cdir, sizeof(cdir), "%s/cols", dir);
    snprintf(spec, sizeof(spec), "%s/golden-delta/redo-basic/spec.json", cf_test_shared_dir());
    snprintf(hfile, sizeof(hfile), "%s/hfile/gohfile_simple_v1.hfile", cf_test_shared_dir());
    snprintf(pqin, sizeof(pqin), "%s/parquet/pt_binary/pt_binary.parquet", cf_test_shared_dir());
    write_str(jl, "1\n2\n3\n");
    write_str(keys, "a\nb\n");
    write_str(csv, "id,name\n1,a\n2,b\n");
    write_str(hf2, "{\"row\":\"r\",\"family\":\"f\",\"qualifier\":\"q\",\"timestamp\":1,"
                   "\"type\":\"Put\",\"value\":\"v\"}\n");
    char *cases[][12] = {
        {"write", "--json", "--type", "INT64", jl, cf},
        {"info", "--json", cf},
        {"info", "--json", "--blocks", cf},
        {"verify", "--json", cf},
        {"seek", "--json", cf, "--ordinal", "1"},
        {"dump", "--json", cf},
        {"dump", "--json", "--limit", "1", cf},
        {"head", "--json", cf},
        {"demo", "--json", "--dir", cdir, "--rows", "10"},
        {"bloom", "write", "--json", keys, bl},
        {"bloom", "probe", "--json", bl, "a"},
        {"delta", "write", "--json", spec, delta},
        {"delta", "dump", "--json", delta, "--schema", spec, "--type", "REDO"},
#if CF_HAVE_HFILE
        {"hfile", "write", "--json", hf, hf2},
        {"hfile", "meta", "--json", hfile},
        {"hfile", "info", "--json", hfile},
        {"hfile", "blocks", "--json", hfile},
        {"hfile", "stats", "--json", hfile},
        {"hfile", "dump", "--json", hfile},
        {"hfile", "check", "--json", hfile},
        {"hfile", "verify", "--json", hfile},
        {"hfile", "seek", "--json", hfile, "--hex", "00"},
        {"hfile", "bloom", "--json", hfile, "x"},
#endif
#if CF_HAVE_PARQUET
        {"parquet", "meta", "--json", pqin},
        {"parquet", "schema", "--json", pqin},
        {"parquet", "pages", "--json", pqin},
        {"parquet", "dump", "--json", pqin},
        {"parquet", "dump", pqin}, /* JSON Lines */
        {"parquet", "head", pqin},
        {"parquet", "verify", "--json", pqin},
#endif
#if CF_HAVE_PARQUET && CF_HAVE_TABLES
        {"parquet", "write", "--json", "--schema", "id INT64, name STRING", "--input", csv,
         "--bloom", "id", pq},
        {"parquet", "bloom", "--json", "--column", "id", pq, "1", "7"},
        {"convert", "--json", pq, "--to", "cfiles", cf2},
        {"convert", "--json", cf, pq2},
#endif
#if CF_HAVE_TABLES
        {"table", "create", "--json", t, "--schema", "id INT64 KEY, name STRING NULL"},
        {"table", "import", "--json", t, csv},
        {"table", "insert", "--json", t, "--row", "id=3,name=c"},
        {"table", "update", "--json", t, "--key", "3", "--set", "name=d"},
        {"table", "delete", "--json", t, "--key", "3"},
        {"table", "flush", "--json", t},
        {"table", "compact", "--json", t},
        {"table", "info", "--json", t},
        {"table", "scan", "--json", t},
        {"table", "get", "--json", t, "1"},
#endif
        {"bench", "read", "--json", cf, "--iters", "1"},
        {"bench", "seek", "--json", cf, "--mode", "ordinal", "--n", "10"},
#if CF_HAVE_TABLES
        {"bench", "scan", "--json", t, "--iters", "1", "--threads", "1"},
#endif
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        run r;
        run_argv(&r, NULL, cases[i]);
        char what[160];
        snprintf(what, sizeof(what), "cfile %s %s %s", cases[i][0], cases[i][1],
                 cases[i][2] ? cases[i][2] : "");
        expect_json_lines(what, &r);
        done(&r);
    }
    /* Every command's --help names --json, but completion's (a script). */
    for (size_t i = 0; cf_cli_command_name(i) != NULL; i++) {
        const char *name = cf_cli_command_name(i), *u = cf_cli_command_usage(i);
        if (strcmp(name, "completion") != 0 && strstr(u, "--json") == NULL)
            fail_msg("cfile %s --help does not mention --json", name);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        CLI_DIR_TEST(test_json_habits__demo),
#if CF_HAVE_TABLES
        CLI_DIR_TEST(test_json_habits__table_create_import_flush),
#endif
        CLI_DIR_TEST(test_json_habits__delta_write),
#if CF_HAVE_HFILE
        CLI_DIR_TEST(test_json_habits__hfile_dump_limit),
#endif
#if CF_HAVE_PARQUET
        CLI_DIR_TEST(test_json_habits__parquet_dump_limit),
#endif
#if CF_HAVE_PARQUET && CF_HAVE_TABLES
        CLI_DIR_TEST(test_json_habits__parquet_write),
        CLI_DIR_TEST(test_json_habits__convert),
#endif
        CLI_DIR_TEST(test_json_habits__every_reporting_command),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

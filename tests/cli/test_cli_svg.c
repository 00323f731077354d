/* `--svg`: the SVG writer's escaping and bucketing, and `cfile info --svg` as a
 * command (exit codes, atomic output, damaged files drawn). Rendering in a real
 * browser is tests/svg/render_test.py. Parquet files and tables are drawn in
 * builds with those modules (CF_HAVE_*); CFiles and BloomFiles in every build. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cfile/config.h> /* CF_HAVE_TABLES, CF_HAVE_PARQUET, CF_HAVE_HFILE */

#include "json.h"
#include "support_cli.h"
#include "svg.h"
#include "test_common.h"

static void golden(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/golden/%s/%s.cfile", cf_test_shared_dir(), name, name);
}

static char *slurp(const char *path)
{
    size_t len = 0;
    uint8_t *p = cf_test_read_file(path, &len);
    assert_non_null(p);
    char *s = realloc(p, len + 1);
    assert_non_null(s);
    s[len] = '\0';
    return s;
}

/* `cfile args...` (NULL-terminated, holding `--svg out`), expecting exit
 * want_rc: the picture's text (the caller frees it); out is removed. */
static char *svg_run(const char *out, int want_rc, char **args)
{
    run r;
    run_argv(&r, NULL, args);
    cli_rc(&r, want_rc);
    char *s = slurp(out);
    unlink(out);
    return s;
}

/* `cfile info --svg out file`, as svg_run. */
static char *info_svg(const char *out, const char *file, int want_rc)
{
    char *args[] = {"info", "--svg", (char *)out, (char *)file, NULL};
    return svg_run(out, want_rc, args);
}

static void test_svg__escape(void **state)
{
    (void)state;
    /* XML's specials, a control character, a byte that is not UTF-8, a truncated
     * sequence, a surrogate, and good UTF-8 (é, €) kept as is. */
    static const char in[] = "a&<>\"'\x01\xff\xc3\xa9\xe2\x82\xac\xed\xa0\x80\xe2\x82";
    cf_out_str s;
    cf_out_str_init(&s);
    cf_svg_escape(&s, in, sizeof(in) - 1);
    const char *want = "a&amp;&lt;&gt;&quot;&apos;\\x01\\xff\xc3\xa9\xe2\x82\xac\\xed\\xa0\\x80"
                       "\\xe2\\x82";
    assert_string_equal(s.data, want);
    cf_out_str_dispose(&s);
}

static void test_svg__buckets(void **state)
{
    (void)state;
    /* Widths 10, 1, 1, 1, 1, 10, 0.5: the four narrow ones merge in pairs at 2 px,
     * the last (narrow, nothing after it) stands alone. */
    double x0[] = {0, 10, 11, 12, 13, 14, 24};
    double x1[] = {10, 11, 12, 13, 14, 24, 24.5};
    size_t out[7];
    size_t n = cf_svg_buckets(x0, x1, 7, 2.0, out);
    assert_int_equal(n, 5);
    size_t want[] = {0, 1, 3, 5, 6};
    for (size_t i = 0; i < n; i++)
        assert_int_equal(out[i], want[i]);
    assert_int_equal(cf_svg_buckets(x0, x1, 0, 2.0, out), 0);
}

static void test_svg__info_writes_picture(void **state)
{
    (void)state;
    char *dir = cli_dir; /* cli_dir_setup made it; cli_dir_teardown removes it */
    char f[512];
    golden(f, sizeof(f), "int32-bitshuffle-nocomp-notnull-sorted-validx-multilevel");
    char *out = cli_dir_path("pic.svg");
    write_str(out, "old contents\n"); /* replaced whole */
    run r;
    CLI(&r, "info", "--svg", out, f);
    EXPECT_RC(r, 0);
    assert_non_null(strstr(r.out, "BIT_SHUFFLE")); /* the usual report still printed */
    done(&r);
    char *s = slurp(out);
    assert_memory_equal(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 44);
    assert_non_null(strstr(s, "</svg>\n"));
    assert_null(strstr(s, "old contents"));
    assert_non_null(strstr(s, ">positional L0 root<"));
    assert_non_null(strstr(s, ">value L2 leaves<"));
    /* the last data block's tooltip gives its rows (20000 rows in all). */
    assert_non_null(strstr(s, "rows 19968 .. 19999 (32 rows)"));
    free(s);
    cli_dir_holds(dir, "pic.svg"); /* no temporary left behind */
}

static void test_svg__path_is_escaped(void **state)
{
    (void)state;
    char src[512];
    golden(src, sizeof(src), "string-dict-lz4-nullable");
    char *f = cli_dir_path("a&b<c>\x01.cfile");
    copy_file(src, f);
    char *out = cli_dir_path("pic.svg");
    char *s = info_svg(out, f, 0);
    assert_non_null(strstr(s, "a&amp;b&lt;c&gt;\\x01.cfile"));
    assert_null(strstr(s, "a&b"));
    assert_non_null(strstr(s, "dictionary block"));
    free(s);
}

static void test_svg__damaged_file_is_drawn(void **state)
{
    (void)state;
    char src[512];
    golden(src, sizeof(src), "int32-plain-nocomp-notnull-multiblock");
    size_t len = 0;
    uint8_t *bytes = cf_test_read_file(src, &len);
    assert_non_null(bytes);
    assert_true(len > 600);
    bytes[300] ^= 0x40; /* inside the first data blocks: a checksum mismatch */
    char *f = cli_dir_path("bad.cfile");
    write_text(f, (const char *)bytes, len);
    free(bytes);
    char *out = cli_dir_path("pic.svg");
    char *s = info_svg(out, f, 1);
    assert_non_null(strstr(s, "DAMAGED"));
    assert_non_null(strstr(s, ">damaged<")); /* in the legend */
    free(s);
}

static void test_svg__errors(void **state)
{
    (void)state;
    char f[512];
    golden(f, sizeof(f), "int32-plain-nocomp-notnull-multiblock");
    run r;
    /* --svg needs its argument. */
    CLI(&r, "info", f, "--svg");
    cli_rc(&r, 2);
    /* A directory that does not exist: exit 1, naming the output. */
    CLI(&r, "info", "--svg", "/nonexistent-cf-dir/pic.svg", f);
    cli_err(&r, 1, "/nonexistent-cf-dir/pic.svg");
    char *dir = cli_dir;
    char *out = cli_dir_path("pic.svg");
    (void)out; /* unused in a build with none of the modules below */
#if CF_HAVE_HFILE
    /* HFiles are not drawn: unsupported, and nothing written. */
    char h[512];
    snprintf(h, sizeof(h), "%s/hfile/gohfile_simple_v1.hfile", cf_test_shared_dir());
    CLI(&r, "info", "--svg", out, h);
    cli_err(&r, 3, "HFile");
    cli_dir_holds(dir, "");
#endif
    /* --svg belongs to `parquet meta` and `table info` only. */
#if CF_HAVE_PARQUET
    char pq[512];
    snprintf(pq, sizeof(pq), "%s/parquet/pt_binary/pt_binary.parquet", cf_test_shared_dir());
    CLI(&r, "parquet", "schema", "--svg", out, pq);
    cli_rc(&r, 2);
#endif
#if CF_HAVE_TABLES
    CLI(&r, "table", "scan", dir, "--svg", out);
    cli_err(&r, 2, "--svg");
#endif
    cli_dir_holds(dir, "");
}

#if CF_HAVE_PARQUET
static void test_svg__parquet(void **state)
{
    (void)state;
    char pq[512];
    snprintf(pq, sizeof(pq), "%s/parquet/pt_binary/pt_binary.parquet", cf_test_shared_dir());
    char *out = cli_dir_path("pic.svg");
    char *meta[] = {"parquet", "meta", pq, "--svg", out, NULL};
    char *s = svg_run(out, 0, meta);
    cli_has(s, ">column chunks<", "footer (FileMetaData, Thrift)", NULL);
    free(s);
    /* The same picture through `cfile info`. */
    s = info_svg(out, pq, 0);
    cli_has(s, ">column chunks<", NULL);
    free(s);
}
#endif

#if CF_HAVE_TABLES
static void test_svg__table(void **state)
{
    (void)state;
    char *out = cli_dir_path("pic.svg");
    /* A table whose key strings need escaping. */
    char *tdir = cli_table_import("t", "k STRING KEY, v INT32", "k,v\n\"a<&>\",1\nb,2\n", NULL);
    char *info[] = {"table", "info", tdir, "--svg", out, NULL};
    char *s = svg_run(out, 0, info);
    cli_has(s, "a&lt;&amp;&gt; .. b", NULL);
    assert_null(strstr(s, "a<&>"));
    free(s);
}
#endif

/* `--svg -`: the picture on stdout, the report on stderr, no file named "-". */
static void expect_svg_on_stdout(const run *r)
{
    assert_non_null(r->out);
    assert_true(r->out_len > 100);
    assert_memory_equal(r->out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 44);
    assert_string_equal(r->out + r->out_len - 7, "</svg>\n");
    /* one document: nothing but the picture on stdout */
    assert_ptr_equal(strstr(r->out, "</svg>"), r->out + r->out_len - 7);
    assert_int_equal(access("-", F_OK), -1);
}

static void test_svg__to_stdout(void **state)
{
    (void)state;
    char f[512], pq[512];
    golden(f, sizeof(f), "int32-bitshuffle-nocomp-notnull-sorted-validx-multilevel");
    snprintf(pq, sizeof(pq), "%s/parquet/pt_binary/pt_binary.parquet", cf_test_shared_dir());
    run r;
    CLI(&r, "info", "--svg", "-", f);
    EXPECT_RC(r, 0);
    expect_svg_on_stdout(&r);
    assert_non_null(strstr(r.out, ">value L2 leaves<"));
    assert_non_null(strstr(r.err, "BIT_SHUFFLE")); /* the report, on stderr */
    assert_null(strstr(r.out, "format version"));
    done(&r);
    /* With --json the report on stderr is the JSON document. */
    CLI(&r, "info", "--json", "--blocks", "--svg", "-", f);
    EXPECT_RC(r, 0);
    expect_svg_on_stdout(&r);
    cf_json_doc doc;
    char msg[128];
    assert_int_equal(cf_json_parse(&doc, r.err, r.err_len, msg, sizeof(msg)), 0);
    assert_non_null(cf_json_get(&doc.root, "blocks"));
    cf_json_doc_dispose(&doc);
    done(&r);
#if CF_HAVE_PARQUET
    /* Parquet: `parquet meta` and `info`. */
    CLI(&r, "parquet", "meta", "--svg", "-", pq);
    EXPECT_RC(r, 0);
    expect_svg_on_stdout(&r);
    assert_non_null(strstr(r.out, ">column chunks<"));
    assert_true(r.err_len > 0);
    done(&r);
    CLI(&r, "info", "--json", pq, "--svg", "-");
    EXPECT_RC(r, 0);
    expect_svg_on_stdout(&r);
    assert_non_null(strstr(r.err, "\"num_row_groups\""));
    done(&r);
#endif
#if CF_HAVE_TABLES
    /* A table. */
    char *tdir = cli_table_import("t", "k STRING KEY, v INT32", "k,v\nx,1\ny,2\n", NULL);
    CLI(&r, "table", "info", tdir, "--svg", "-");
    EXPECT_RC(r, 0);
    expect_svg_on_stdout(&r);
    assert_non_null(strstr(r.out, "x .. y"));
    assert_non_null(strstr(r.err, "schema:"));
    done(&r);
#endif
}

/* A BloomFile: its bloom blocks by offset under the value index, drawn above
 * them; the index node knows how many bloom blocks it points at (the index
 * entries BloomFile verification reports, as a CFile's does). */
static void test_svg__bloomfile(void **state)
{
    (void)state;
    char f[512];
    golden(f, sizeof(f), "bloom-20000keys-512b-multiblock");
    char *out = cli_dir_path("pic.svg");
    char *s = info_svg(out, f, 0);
    cli_has(s, "<title>layout of a BloomFile</title>", ">index L0 root+leaf<",
            "points at 47 bloom blocks, offset 16 .. 24550", NULL);
    assert_non_null(strstr(s, ">bloom blocks: 47, 24.0 KiB stored, 23.8 KiB logical, 96.4% of the "
                              "file<"));
    assert_non_null(strstr(s, "block #0: bloom block\noffset 16 .. 538"));
    /* No rows or data blocks in a BloomFile's picture, and the index is above
     * the blocks: its row before the strip's label. */
    assert_null(strstr(s, "data block ("));
    assert_null(strstr(s, "rows 0"));
    const char *idx = strstr(s, ">index L0"), *strip = strstr(s, ">file by offset<");
    assert_non_null(strip);
    double iy = atof(strstr(idx - 40, "y=\"") + 3), sy = atof(strstr(strip - 40, "y=\"") + 3);
    assert_true(iy < sy);
    free(s);
    /* --blocks JSON: the index block's entries and level, from verify. */
    run r;
    CLI(&r, "info", "--json", "--blocks", f);
    cli_out_has(&r, 0, "\"kind\":\"value index\"", "\"index_level\":0,\"index_entries\":47", NULL);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        CLI_DIR_TEST(test_svg__escape),
        CLI_DIR_TEST(test_svg__buckets),
        CLI_DIR_TEST(test_svg__info_writes_picture),
        CLI_DIR_TEST(test_svg__path_is_escaped),
        CLI_DIR_TEST(test_svg__damaged_file_is_drawn),
        CLI_DIR_TEST(test_svg__errors),
#if CF_HAVE_PARQUET
        CLI_DIR_TEST(test_svg__parquet),
#endif
#if CF_HAVE_TABLES
        CLI_DIR_TEST(test_svg__table),
#endif
        CLI_DIR_TEST(test_svg__to_stdout),
        CLI_DIR_TEST(test_svg__bloomfile),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* `cfile` polish: --version, `completion bash`, the man page, dump --format
 * csv|jsonl|table, info --blocks (table and JSON, adding up to the file), and
 * colour only on a terminal without NO_COLOR. Each test works in its own temp dir. */
#define _XOPEN_SOURCE 700 /* posix_openpt, grantpt, unlockpt, ptsname */

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "json.h"
#include "out.h"
#include "support_cli.h"
#include "vprint.h"
#include "test_common.h"

/* ---- fixture and running the tool ---------------------------------------------------------- */

/* Each test's scratch directory is support_cli's cli_dir; `state` is unused. */
static const char *path_in(void **state, const char *name)
{
    (void)state;
    return cli_dir_path(name);
}

/* Write `jsonl` as a column with the given `cfile write` options. */
static void make_file(void **state, const char *name, const char *jsonl, char **opts)
{
    const char *in = path_in(state, "in.jsonl");
    write_str(in, jsonl);
    char *args[24];
    size_t n = 0;
    args[n++] = "write";
    args[n++] = "--quiet";
    while (*opts != NULL)
        args[n++] = *opts++;
    args[n++] = (char *)in;
    args[n++] = (char *)path_in(state, name);
    args[n] = NULL;
    run r;
    run_argv(&r, NULL, args);
    cli_rc(&r, 0);
}

#define MAKE(state, name, jsonl, ...)                                                              \
    do {                                                                                           \
        char *o_[] = {__VA_ARGS__, NULL};                                                          \
        make_file((state), (name), (jsonl), o_);                                                   \
    } while (0)

static void expect_text(const run *r, const char *want)
{
    if (strcmp(r->out, want) != 0)
        fail_msg("output differs.\n--- got ---\n%s\n--- want ---\n%s", r->out, want);
}

/* ---- --version, completion, man page ----------------------------------------------------- */

/* The formats line names the modules this build has (CF_WITH_*; cmake/config.h.in). */
#if CF_HAVE_TABLES
#define FORMAT_TABLE " table"
#else
#define FORMAT_TABLE ""
#endif
#if CF_HAVE_HFILE
#define FORMAT_HFILE " hfile"
#else
#define FORMAT_HFILE ""
#endif
#if CF_HAVE_PARQUET
#define FORMAT_PARQUET " parquet"
#else
#define FORMAT_PARQUET ""
#endif

static void test_cli_polish__version(void **state)
{
    char want[64];
    snprintf(want, sizeof(want), "cfile %d.%d.%d\n", CF_VERSION_MAJOR, CF_VERSION_MINOR,
             CF_VERSION_PATCH);
    /* The first line is the version alone; then the build's formats, codecs and the
     * kernels picked for this CPU, the same for --version and -V. */
    static const char *const lines[] = {
        "\nformats: cfile bloomfile deltafile" FORMAT_TABLE FORMAT_HFILE FORMAT_PARQUET " arrow\n",
        "\ncodecs: snappy lz4 zlib gzip zstd brotli lzo bzip2\n", "\ncrc32c: ", "\nbitshuffle: "};
    static char *const flags[] = {"--version", "-V"};
    run r;
    for (size_t f = 0; f < 2; f++) {
        CLI(&r, flags[f]);
        EXPECT_RC(r, 0);
        assert_true(strncmp(r.out, want, strlen(want)) == 0);
        for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
            if (strstr(r.out, lines[i]) == NULL)
                fail_msg("%s lacks \"%s\":\n%s", flags[f], lines[i] + 1, r.out);
        assert_int_equal(r.err_len, 0);
        done(&r);
    }
    assert_string_equal(cf_build_features() + strlen(cf_build_features()) - 1, "\n");
    /* The library agrees with its header. */
    assert_int_equal(cf_version(),
                     (CF_VERSION_MAJOR << 16) | (CF_VERSION_MINOR << 8) | CF_VERSION_PATCH);
    assert_string_equal(want + 6, "0.1.0\n");
    assert_string_equal(cf_version_string(), "0.1.0");
    /* --help mentions --version and the new command. */
    CLI(&r, "--help");
    EXPECT_RC(r, 0);
    cli_has(r.out, "[--version]", "completion", "NO_COLOR", NULL);
    done(&r);
}

static void test_cli_polish__completion_script(void **state)
{
    run r;
    CLI(&r, "completion", "bash");
    EXPECT_RC(r, 0);
    assert_non_null(strstr(r.out, "complete -o filenames -o bashdefault -F _cfile cfile\n"));
    size_t ncmd = 0;
    for (size_t i = 0; cf_cli_command_name(i) != NULL; i++, ncmd++) {
        char want[64];
        /* in the first word list, and with a case arm of its own */
        snprintf(want, sizeof(want), "%s%s ", i == 0 ? "\"" : " ", cf_cli_command_name(i));
        if (strstr(r.out, want) == NULL)
            fail_msg("%s is not in the command list", cf_cli_command_name(i));
        snprintf(want, sizeof(want), "\n    %s) opts=", cf_cli_command_name(i));
        if (strstr(r.out, want) == NULL)
            fail_msg("no case arm for %s", cf_cli_command_name(i));
    }
    assert_true(ncmd >= 9);
    /* Options come from the usage texts, values from `write --help`. */
    assert_non_null(
        strstr(r.out, "dump) opts=\"--format --from --limit --json --count --raw-values --help\""));
    cli_has(r.out, "info) opts=\"--json --blocks --svg --help\"", "actions=\"write probe\"",
            "\"AUTO PLAIN PREFIX RLE DICT BIT_SHUFFLE\"", "\"NONE SNAPPY LZ4 ZLIB\"",
            "\"text json jsonl csv table\"", NULL);
    assert_null(strstr(r.out, "\033"));

    /* bash accepts it and completes with it. */
    if (system("command -v bash >/dev/null 2>&1") == 0) {
        const char *script = path_in(state, "cfile.bash");
        write_str(script, r.out);
        char cmd[1200];
        snprintf(cmd, sizeof(cmd),
                 "bash -c 'source %s; COMP_WORDS=(cfile du); COMP_CWORD=1; _cfile; "
                 "a=\"${COMPREPLY[*]}\"; COMP_WORDS=(cfile dump --format j); COMP_CWORD=3; "
                 "_cfile; b=\"${COMPREPLY[*]}\"; COMP_WORDS=(cfile info --bl); COMP_CWORD=2; "
                 "_cfile; c=\"${COMPREPLY[*]}\"; "
                 "test \"$a|$b|$c\" = \"dump|json jsonl|--blocks\"'",
                 script);
        assert_int_equal(system(cmd), 0);
    }
    done(&r);

    CLI(&r, "completion", "tcsh");
    cli_err(&r, 2, "only bash");
    CLI(&r, "completion");
    cli_rc(&r, 2);
    CLI(&r, "completion", "--help");
    cli_out(&r, 0, "usage: cfile completion bash");
}

static void test_cli_polish__man_page(void **state)
{
    run r;
    CLI(&r, "--man");
    EXPECT_RC(r, 0);
    cli_has(r.out, "\n.TH CFILE 1 \"\" \"cfile 0.1.0\" \"User Commands\"\n",
            "\n.SH NAME\ncfile \\- ", "\n.SH ENVIRONMENT\n", NULL);
    for (size_t i = 0; cf_cli_command_name(i) != NULL; i++) {
        char want[64];
        snprintf(want, sizeof(want), "\n.SS %s\n", cf_cli_command_name(i));
        if (strstr(r.out, want) == NULL)
            fail_msg("man page lacks %s", cf_cli_command_name(i));
    }
    /* Option text comes from the usage strings, with roff-escaped hyphens. */
    assert_non_null(strstr(r.out, "\\-\\-format F  text (default), json, jsonl, csv or table\n"));
    assert_non_null(strstr(r.out, "\\-\\-blocks   per\\-block statistics"));
    /* No text line can be taken for a request: lines starting with a dot are ours. */
    const char *p = r.out;
    while ((p = strchr(p, '\n')) != NULL) {
        p++;
        if (*p == '.') {
            bool known = strncmp(p, ".SH ", 4) == 0 || strncmp(p, ".SS ", 4) == 0 ||
                         strncmp(p, ".PP\n", 4) == 0 || strncmp(p, ".nf\n", 4) == 0 ||
                         strncmp(p, ".fi\n", 4) == 0 || strncmp(p, ".TH ", 4) == 0 ||
                         strncmp(p, ".TP\n", 4) == 0 || strncmp(p, ".B ", 3) == 0 ||
                         strncmp(p, ".BR ", 4) == 0 || strncmp(p, ".I ", 3) == 0 ||
                         strncmp(p, ".\\\"", 3) == 0;
            if (!known)
                fail_msg("unexpected roff request: %.40s", p);
        }
    }
    done(&r);
}

/* ---- dump --format ------------------------------------------------------------------------- */

static const char int_rows[] = "1\nnull\n-3\n2147483647\n";

static void test_cli_polish__dump_int32_nullable(void **state)
{
    MAKE(state, "a.cfile", int_rows, "--type", "INT32", "--nullable");
    const char *f = path_in(state, "a.cfile");
    run r;
    CLI(&r, "dump", "--format", "csv", (char *)f);
    EXPECT_RC(r, 0);
    expect_text(&r, "row,value\n0,1\n1,\n2,-3\n3,2147483647\n");
    done(&r);

    CLI(&r, "dump", "--format", "jsonl", (char *)f);
    EXPECT_RC(r, 0);
    expect_text(&r, "{\"row\":0,\"value\":1}\n{\"row\":1,\"value\":null}\n"
                    "{\"row\":2,\"value\":-3}\n{\"row\":3,\"value\":2147483647}\n");
    done(&r);

    CLI(&r, "dump", "--format", "table", (char *)f);
    EXPECT_RC(r, 0);
    expect_text(&r, "row       value\n"
                    "---  ----------\n"
                    "  0           1\n"
                    "  1        NULL\n"
                    "  2          -3\n"
                    "  3  2147483647\n");
    done(&r);

    /* --from/--count apply to every format. */
    CLI(&r, "dump", "--format", "csv", (char *)f, "--from", "1", "--count", "2");
    EXPECT_RC(r, 0);
    expect_text(&r, "row,value\n1,\n2,-3\n");
    done(&r);
    CLI(&r, "dump", "--format", "table", (char *)f, "--from", "1", "--limit", "0");
    EXPECT_RC(r, 0);
    expect_text(&r, "row  value\n---  -----\n");
    done(&r);
    /* A start row past the end is "not found", as `seek --ordinal` says it. */
    CLI(&r, "dump", "--format", "table", (char *)f, "--from", "9");
    EXPECT_RC(r, 1);
    expect_text(&r, "");
    assert_non_null(strstr(r.err, "not found: ordinal 9 is past the last row (4 rows)\n"));
    done(&r);

    /* text and json are unchanged; --json is --format json. */
    CLI(&r, "dump", "--format", "text", (char *)f);
    cli_out(&r, 0, "\n0: 1\n1: null\n2: -3\n3: 2147483647\n");
    run a, b;
    CLI(&a, "dump", "--format", "json", (char *)f);
    CLI(&b, "dump", "--json", (char *)f);
    EXPECT_RC(a, 0);
    assert_string_equal(a.out, b.out);
    assert_non_null(strstr(a.out, "\"values\":[1,null,-3,2147483647]"));
    done(&a);
    done(&b);

    CLI(&r, "dump", "--format", "xml", (char *)f);
    cli_err(&r, 2, "--format");
}

static void test_cli_polish__dump_strings(void **state)
{
    MAKE(state, "s.cfile",
         "\"a\"\n\"b,c\"\nnull\n\"\"\n\"x\\ny\"\n\"say \\\"hi\\\"\"\n\" "
         "pad\"\n\"\\u00e9t\\u00e9\"\n",
         "--type", "STRING", "--nullable", "--encoding", "DICT");
    const char *f = path_in(state, "s.cfile");
    run r;
    CLI(&r, "dump", "--format", "csv", (char *)f);
    EXPECT_RC(r, 0);
    expect_text(&r, "row,value\n"
                    "0,a\n"
                    "1,\"b,c\"\n"
                    "2,\n"
                    "3,\"\"\n"
                    "4,\"x\ny\"\n"
                    "5,\"say \"\"hi\"\"\"\n"
                    "6,\" pad\"\n"
                    "7,\xc3\xa9t\xc3\xa9\n");
    done(&r);

    CLI(&r, "dump", "--format", "table", (char *)f);
    EXPECT_RC(r, 0);
    /* One line per row: the control character shows as a JSON string; widths
     * count UTF-8 characters, not bytes. */
    expect_text(&r, "row  value\n"
                    "---  --------\n"
                    "  0  a\n"
                    "  1  b,c\n"
                    "  2  NULL\n"
                    "  3\n"
                    "  4  \"x\\ny\"\n"
                    "  5  say \"hi\"\n"
                    "  6   pad\n"
                    "  7  \xc3\xa9t\xc3\xa9\n");
    done(&r);

    CLI(&r, "dump", "--format", "jsonl", (char *)f, "--count", "5");
    EXPECT_RC(r, 0);
    expect_text(&r, "{\"row\":0,\"value\":\"a\"}\n{\"row\":1,\"value\":\"b,c\"}\n"
                    "{\"row\":2,\"value\":null}\n{\"row\":3,\"value\":\"\"}\n"
                    "{\"row\":4,\"value\":\"x\\ny\"}\n");
    done(&r);
}

static void test_cli_polish__dump_other_types(void **state)
{
    run r;
    MAKE(state, "d.cfile", "1.5\n\"NaN\"\n-0.0\n\"-Infinity\"\n", "--type", "DOUBLE");
    CLI(&r, "dump", "--format", "csv", (char *)path_in(state, "d.cfile"));
    EXPECT_RC(r, 0);
    expect_text(&r, "row,value\n0,1.5\n1,NaN\n2,-0.0\n3,-Infinity\n");
    done(&r);

    MAKE(state, "b.cfile", "\"00ff\"\n\"\"\nnull\n", "--type", "BINARY", "--nullable");
    CLI(&r, "dump", "--format", "table", (char *)path_in(state, "b.cfile"));
    EXPECT_RC(r, 0);
    expect_text(&r, "row  value\n---  -----\n  0  00ff\n  1\n  2  NULL\n");
    done(&r);

    MAKE(state, "t.cfile", "true\nfalse\nnull\n", "--type", "BOOL", "--nullable");
    CLI(&r, "dump", "--format", "csv", (char *)path_in(state, "t.cfile"));
    EXPECT_RC(r, 0);
    expect_text(&r, "row,value\n0,true\n1,false\n2,\n");
    done(&r);

    MAKE(state, "arr.cfile", "[1,null,3]\nnull\n[]\n", "--type", "INT16", "--nullable", "--array");
    CLI(&r, "dump", "--format", "csv", (char *)path_in(state, "arr.cfile"));
    EXPECT_RC(r, 0);
    expect_text(&r, "row,value\n0,\"[1,null,3]\"\n1,\n2,[]\n");
    done(&r);
    CLI(&r, "dump", "--format", "jsonl", (char *)path_in(state, "arr.cfile"));
    EXPECT_RC(r, 0);
    expect_text(&r, "{\"row\":0,\"value\":[1,null,3]}\n{\"row\":1,\"value\":null}\n"
                    "{\"row\":2,\"value\":[]}\n");
    done(&r);
}

/* ---- info --blocks ---------------------------------------------------------------------- */

static uint64_t num(const cf_json *obj, const char *key)
{
    const cf_json *v = cf_json_get(obj, key);
    if (v == NULL || v->kind != CF_JSON_NUMBER)
        fail_msg("no number %s", key);
    return strtoull(v->str, NULL, 10);
}

static const char *str(const cf_json *obj, const char *key)
{
    const cf_json *v = cf_json_get(obj, key);
    if (v == NULL || v->kind != CF_JSON_STRING)
        return NULL;
    return v->str;
}

/* Check that the blocks of `info --blocks --json` tile the file between its
 * header and footer, and that the totals and rows add up. Returns the number of
 * DICT blocks in codeword and plain mode through the out-parameters. */
static void check_blocks(const char *json, uint64_t *codewords, uint64_t *plain)
{
    cf_json_doc doc;
    char msg[200];
    if (cf_json_parse(&doc, json, strlen(json), msg, sizeof(msg)) != 0)
        fail_msg("bad JSON: %s", msg);
    const cf_json *root = &doc.root;
    uint64_t size = num(root, "file_size"), rows = num(root, "num_values");
    bool crc = (num(root, "incompatible_features") & CF_FEATURE_CHECKSUM) != 0;
    /* format §2.2/§2.3: magic, length and PB (and a CRC in v2 with checksums). */
    bool v2 = num(root, "format_version") == 2;
    uint64_t head = 12 + num(root, "header_len") + (v2 && crc ? 4 : 0);
    uint64_t foot = num(root, "footer_len") + 12 + (v2 && crc ? 4 : 0);
    const cf_json *blocks = cf_json_get(root, "blocks");
    assert_non_null(blocks);
    assert_int_equal(blocks->kind, CF_JSON_ARRAY);
    assert_true(blocks->n > 0);
    uint64_t at = head, data_rows = 0, stored = 0, logical = 0, ndata = 0;
    *codewords = *plain = 0;
    for (size_t i = 0; i < blocks->n; i++) {
        const cf_json *b = &blocks->items[i];
        if (num(b, "offset") != at)
            fail_msg("block %zu at %llu, expected %llu", i, (unsigned long long)num(b, "offset"),
                     (unsigned long long)at);
        at += num(b, "stored_bytes");
        stored += num(b, "stored_bytes");
        logical += num(b, "logical_bytes");
        assert_string_equal(str(b, "status"), "ok");
        /* stored = logical + CRC when uncompressed */
        if (strcmp(str(root, "compression"), "NO_COMPRESSION") == 0)
            assert_int_equal(num(b, "stored_bytes"), num(b, "logical_bytes") + (crc ? 4 : 0));
        if (strcmp(str(b, "kind"), "data block") == 0) {
            assert_int_equal(num(b, "first_row"), data_rows);
            data_rows += num(b, "rows");
            ndata++;
        }
        const char *dm = str(b, "dict_mode");
        if (dm != NULL && strcmp(dm, "codewords") == 0)
            ++*codewords;
        else if (dm != NULL && strcmp(dm, "plain") == 0)
            ++*plain;
        else
            assert_int_equal(cf_json_get(b, "dict_mode")->kind, CF_JSON_NULL);
    }
    assert_int_equal(at + foot, size);
    assert_int_equal(data_rows, rows);
    const cf_json *tot = cf_json_get(root, "block_totals");
    assert_non_null(tot);
    uint64_t tcount = 0, tstored = 0, tlogical = 0;
    for (size_t i = 0; i < tot->n; i++) {
        const cf_json *t = &tot->items[i];
        tcount += num(t, "count");
        tstored += num(t, "stored_bytes");
        tlogical += num(t, "logical_bytes");
        assert_int_equal(num(t, "damaged"), 0);
        if (strcmp(str(t, "kind"), "data block") == 0) {
            assert_int_equal(num(t, "count"), ndata);
            assert_int_equal(num(t, "rows"), rows);
            assert_int_equal(num(t, "dict_codewords_blocks"), *codewords);
            assert_int_equal(num(t, "dict_plain_blocks"), *plain);
        }
    }
    assert_int_equal(tcount, blocks->n);
    assert_int_equal(tstored, stored);
    assert_int_equal(tlogical, logical);
    cf_json_doc_dispose(&doc);
}

/* n distinct strings of 40 bytes, one per line: too many for one dictionary. */
static char *many_strings(size_t n)
{
    char *s = malloc(n * 48 + 1);
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += (size_t)sprintf(s + len, "\"%038zu\"\n", i * 7919);
    return s;
}

static void test_cli_polish__info_blocks_json(void **state)
{
    uint64_t cw, pl;
    run r;
    /* Small DICT file: one codeword block, one index block, the dictionary. */
    MAKE(state, "s.cfile", "\"a\"\n\"b\"\nnull\n\"a\"\n", "--type", "STRING", "--nullable",
         "--encoding", "DICT");
    CLI(&r, "info", "--blocks", "--json", (char *)path_in(state, "s.cfile"));
    EXPECT_RC(r, 0);
    check_blocks(r.out, &cw, &pl);
    assert_int_equal(cw, 1);
    assert_int_equal(pl, 0);
    assert_non_null(strstr(r.out, "\"kind\":\"dictionary block\""));
    assert_non_null(strstr(r.out, "\"kind\":\"positional index\""));
    done(&r);

    /* The cheap default reads no blocks. */
    CLI(&r, "info", "--json", (char *)path_in(state, "s.cfile"));
    EXPECT_RC(r, 0);
    assert_null(strstr(r.out, "\"blocks\""));
    done(&r);

    /* Many distinct strings overflow the dictionary: later blocks go plain. */
    char *strs = many_strings(3000);
    MAKE(state, "big.cfile", strs, "--type", "STRING", "--encoding", "DICT", "--block-size",
         "4096");
    free(strs);
    CLI(&r, "info", "--blocks", "--json", (char *)path_in(state, "big.cfile"));
    EXPECT_RC(r, 0);
    check_blocks(r.out, &cw, &pl);
    assert_true(cw >= 1);
    assert_true(pl >= 1);
    done(&r);

    /* Compressed INT64 with both indexes, many blocks: logical bytes exceed stored. */
    char *ints = malloc(20000 * 8);
    size_t len = 0;
    for (int i = 0; i < 20000; i++)
        len += (size_t)sprintf(ints + len, "%d\n", i / 3);
    MAKE(state, "i.cfile", ints, "--type", "INT64", "--encoding", "PLAIN", "--compression", "LZ4",
         "--validx", "--block-size", "4096");
    free(ints);
    CLI(&r, "info", "--blocks", "--json", (char *)path_in(state, "i.cfile"));
    EXPECT_RC(r, 0);
    check_blocks(r.out, &cw, &pl);
    assert_int_equal(cw + pl, 0);
    assert_non_null(strstr(r.out, "\"kind\":\"value index\""));
    cf_json_doc doc;
    char msg[100];
    assert_int_equal(cf_json_parse(&doc, r.out, strlen(r.out), msg, sizeof(msg)), 0);
    const cf_json *tot = cf_json_get(&doc.root, "block_totals");
    for (size_t i = 0; i < tot->n; i++) {
        if (strcmp(str(&tot->items[i], "kind"), "data block") == 0) {
            assert_true(num(&tot->items[i], "count") > 10);
            assert_true(num(&tot->items[i], "logical_bytes") > num(&tot->items[i], "stored_bytes"));
        }
    }
    cf_json_doc_dispose(&doc);
    done(&r);
}

static void test_cli_polish__info_blocks_table(void **state)
{
    MAKE(state, "s.cfile", "\"a\"\n\"b\"\nnull\n\"a\"\n", "--type", "STRING", "--nullable",
         "--encoding", "DICT");
    const char *f = path_in(state, "s.cfile");
    run r;
    CLI(&r, "info", "--blocks", (char *)f);
    EXPECT_RC(r, 0);
    assert_non_null(strstr(r.out, "\n#  kind              offset  stored  logical  first  rows  "
                                  "nulls  min  max  distinct  dict       status\n"));
    assert_non_null(strstr(r.out, "  data block  "));
    /* The block's statistics: 4 rows, 1 NULL, min "a", max "b", 2 distinct values. */
    assert_non_null(strstr(r.out, "     4      1  \"a\"  \"b\"         2  codewords  ok\n"));
    assert_non_null(strstr(r.out, "\nall blocks  "));
    struct stat sb;
    assert_int_equal(stat(f, &sb), 0);
    /* The summary line: blocks + framing = file. */
    const char *line = strstr(r.out, " bytes in blocks + ");
    assert_non_null(line);
    while (line > r.out && line[-1] != '\n')
        line--;
    unsigned long long in_blocks, framing, total;
    assert_int_equal(sscanf(line, "%llu bytes in blocks + %llu bytes of header and footer = %llu",
                            &in_blocks, &framing, &total),
                     3);
    assert_int_equal(total, (unsigned long long)sb.st_size);
    assert_int_equal(in_blocks + framing, total);
    /* No line ends in a blank. */
    assert_null(strstr(r.out, " \n"));
    done(&r);

    /* A damaged data block: listed as such, exit 1. */
    FILE *fp = fopen(f, "r+b");
    assert_non_null(fp);
    fseek(fp, 18, SEEK_SET); /* inside the first data block (it starts at 16) */
    int ch = fgetc(fp);
    fseek(fp, 18, SEEK_SET);
    fputc(ch ^ 0x55, fp);
    fclose(fp);
    CLI(&r, "info", "--blocks", "--json", (char *)f);
    EXPECT_RC(r, 1);
    assert_non_null(strstr(r.out, "\"status\":\"damaged\",\"error\":\"data block at offset 16: "));
    assert_non_null(strstr(r.out, "\"damaged\":1"));
    assert_non_null(strstr(r.err, "checksum"));
    done(&r);
}

/* ---- colour ------------------------------------------------------------------------------- */

/* Run `cfile args` with stdout on a pseudo-terminal; returns what it printed. */
static char *on_tty(char **args, int *rc)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    if (m < 0)
        return NULL;
    if (grantpt(m) != 0 || unlockpt(m) != 0) {
        close(m);
        return NULL;
    }
    int s = open(ptsname(m), O_RDWR | O_NOCTTY);
    if (s < 0) {
        close(m);
        return NULL;
    }
    FILE *out = fdopen(s, "w");
    run r;
    run_argv(&r, out, args);
    fclose(out);
    *rc = r.rc;
    free(r.err);
    /* The slave is closed: read everything the master holds (EIO at the end). */
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    ssize_t got;
    int fl = fcntl(m, F_GETFL);
    fcntl(m, F_SETFL, fl | O_NONBLOCK);
    while (len + 1 < cap && (got = read(m, buf + len, cap - 1 - len)) > 0)
        len += (size_t)got;
    buf[len] = '\0';
    close(m);
    return buf;
}

typedef struct saved_env {
    char *no_color, *term;
} saved_env;

static saved_env save_env(void)
{
    saved_env e = {NULL, NULL};
    if (getenv("NO_COLOR"))
        e.no_color = strdup(getenv("NO_COLOR"));
    if (getenv("TERM"))
        e.term = strdup(getenv("TERM"));
    return e;
}

static void restore_env(saved_env *e)
{
    if (e->no_color)
        setenv("NO_COLOR", e->no_color, 1);
    else
        unsetenv("NO_COLOR");
    if (e->term)
        setenv("TERM", e->term, 1);
    else
        unsetenv("TERM");
    free(e->no_color);
    free(e->term);
}

/* `cfile args...` on a terminal exits 0 printing colour (an escape sequence)
 * when colour, else no escape byte at all, and each of the needles that follow
 * (NULL-terminated). */
static void tty_prints(char **args, bool colour, ...)
{
    int rc;
    char *out = on_tty(args, &rc);
    assert_non_null(out);
    assert_int_equal(rc, 0);
    if (colour)
        assert_non_null(strstr(out, "\033["));
    else
        assert_null(strstr(out, "\033"));
    va_list ap;
    va_start(ap, colour);
    const char *needle;
    while ((needle = va_arg(ap, const char *)) != NULL)
        if (strstr(out, needle) == NULL)
            fail_msg("on a terminal, `cfile %s` lacks '%s': %.300s", args[0], needle, out);
    va_end(ap);
    free(out);
}

static void test_cli_polish__color_policy(void **state)
{
    MAKE(state, "a.cfile", int_rows, "--type", "INT32", "--nullable");
    char *f = (char *)path_in(state, "a.cfile");
    saved_env env = save_env();
    setenv("TERM", "xterm", 1);
    unsetenv("NO_COLOR");

    /* Not a terminal: never colour, whatever the format. */
    static const char *const fmts[] = {"text", "table", "csv", "jsonl", "json"};
    run r;
    for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
        CLI(&r, "dump", "--format", (char *)fmts[i], f);
        EXPECT_RC(r, 0);
        assert_null(strstr(r.out, "\033"));
        done(&r);
    }
    CLI(&r, "info", "--blocks", f);
    EXPECT_RC(r, 0);
    assert_null(strstr(r.out, "\033"));
    done(&r);

    /* A terminal: colour for people's formats, none for machines'. */
    int rc;
    char *info_args[] = {"info", "--blocks", f, NULL};
    char *table_args[] = {"dump", "--format", "table", f, NULL};
    char *csv_args[] = {"dump", "--format", "csv", f, NULL};
    char *json_args[] = {"info", "--json", f, NULL};
    char *out = on_tty(info_args, &rc);
    if (out == NULL) {
        restore_env(&env);
        skip(); /* no pseudo-terminals here */
    }
    free(out);
    tty_prints(info_args, true, "\033[1m", "\033[0m", NULL);
    tty_prints(table_args, true, NULL);
    tty_prints(csv_args, false, "row,value", NULL);
    tty_prints(json_args, false, NULL);

    /* NO_COLOR (any non-empty value) turns it off on a terminal too... */
    setenv("NO_COLOR", "1", 1);
    tty_prints(info_args, false, "file size", NULL);
    tty_prints(table_args, false, NULL);
    /* ...an empty NO_COLOR does not (no-color.org), TERM=dumb does. */
    setenv("NO_COLOR", "", 1);
    tty_prints(info_args, true, NULL);
    unsetenv("NO_COLOR");
    setenv("TERM", "dumb", 1);
    tty_prints(info_args, false, NULL);
    restore_env(&env);
}

/* ---- helpers of out.c ------------------------------------------------------------------- */

static void test_cli_polish__table_and_csv_helpers(void **state)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    static const char *const heads[] = {"n", "name", "note"};
    cf_out_table t;
    cf_out_table_init(&t, m, false, 3, heads, "rll");
    const char *r1[] = {"1", "alpha", ""};
    const char *r2[] = {"100", "b", "x"};
    const char *r3[] = {"7", NULL, NULL};
    cf_out_table_row(&t, r1);
    cf_out_table_row(&t, r2);
    cf_out_table_flush(&t);
    cf_out_table_row(&t, r3); /* a later chunk keeps the widths */
    cf_out_table_flush(&t);
    cf_out_table_dispose(&t);
    cf_vp_csv_field(m, "plain", 5);
    fputc('|', m);
    cf_vp_csv_field(m, "a\"b", 3);
    fputc('|', m);
    cf_vp_csv_field(m, "x\r", 2);
    fputc('|', m);
    cf_vp_csv_field(m, "", 0);
    fclose(m);
    assert_string_equal(buf, "  n  name   note\n"
                             "---  -----  ----\n"
                             "  1  alpha\n"
                             "100  b      x\n"
                             "  7\n"
                             "plain|\"a\"\"b\"|\"x\r\"|");
    free(buf);
    /* Memory streams are never terminals. */
    m = open_memstream(&buf, &len);
    assert_false(cf_out_color(m));
    fclose(m);
    free(buf);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_polish__version),
        CLI_DIR_TEST(test_cli_polish__completion_script),
        cmocka_unit_test(test_cli_polish__man_page),
        CLI_DIR_TEST(test_cli_polish__dump_int32_nullable),
        CLI_DIR_TEST(test_cli_polish__dump_strings),
        CLI_DIR_TEST(test_cli_polish__dump_other_types),
        CLI_DIR_TEST(test_cli_polish__info_blocks_json),
        CLI_DIR_TEST(test_cli_polish__info_blocks_table),
        CLI_DIR_TEST(test_cli_polish__color_policy),
        cmocka_unit_test(test_cli_polish__table_and_csv_helpers),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

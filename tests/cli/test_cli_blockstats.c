/* `cfile info --blocks`: per-block statistics (rows, NULLs, min, max, and distinct
 * values for DICT blocks) match the values each block holds, computed here from the
 * rows the test wrote. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "json.h"
#include "support_cli.h"
#include "support_json.h"
#include "test_common.h"

enum { N = 3000 };

static int32_t value_of(int i)
{
    return (int32_t)((i * 7919) % 2001) - 1000;
}

static bool null_at(int i)
{
    return i % 5 == 3;
}

static void test_blockstats__int32_nullable_multiblock(void **state)
{
    (void)state;
    char *in = cli_dir_path("in.jsonl");
    char *file = cli_dir_path("a.cfile");
    FILE *f = fopen(in, "w");
    assert_non_null(f);
    for (int i = 0; i < N; i++) {
        if (null_at(i))
            fputs("null\n", f);
        else
            fprintf(f, "%d\n", value_of(i));
    }
    fclose(f);
    run r;
    CLI(&r, "write", "--quiet", "--type", "INT32", "--nullable", "--encoding", "PLAIN",
        "--block-size", "512", in, file);
    cli_rc(&r, 0);
    CLI(&r, "info", "--blocks", "--json", file);
    EXPECT_RC(r, 0);
    cf_json_doc doc;
    char msg[128];
    assert_int_equal(cf_json_parse(&doc, r.out, r.out_len, msg, sizeof(msg)), 0);
    const cf_json *blocks = cf_json_get(&doc.root, "blocks");
    assert_non_null(blocks);
    size_t ndata = 0;
    uint64_t covered = 0;
    for (size_t b = 0; b < blocks->n; b++) {
        const cf_json *bl = &blocks->items[b];
        if (strcmp(cf_json_get(bl, "kind")->str, "data block") != 0) {
            assert_null(cf_json_get(bl, "min")); /* only data blocks have values */
            continue;
        }
        ndata++;
        long first = atol(cf_json_get(bl, "first_row")->str);
        long rows = atol(cf_json_get(bl, "rows")->str);
        long nulls = 0, mn = 1L << 40, mx = -(1L << 40);
        for (long i = first; i < first + rows; i++) {
            if (null_at((int)i)) {
                nulls++;
                continue;
            }
            mn = value_of((int)i) < mn ? value_of((int)i) : mn;
            mx = value_of((int)i) > mx ? value_of((int)i) : mx;
        }
        assert_int_equal(atol(cf_json_get(bl, "nulls")->str), nulls);
        assert_int_equal(atol(cf_json_get(bl, "min")->str), mn);
        assert_int_equal(atol(cf_json_get(bl, "max")->str), mx);
        assert_null(cf_json_get(bl, "distinct")); /* PLAIN: no distinct count */
        covered += (uint64_t)rows;
    }
    assert_true(ndata > 5); /* 512-byte blocks: many of them */
    assert_int_equal(covered, N);
    cf_json_doc_dispose(&doc);
    done(&r);

    /* DICT strings: distinct values per block, exactly (3 words, all in each block). */
    FILE *g = fopen(in, "w");
    assert_non_null(g);
    static const char *const words[] = {"\"pear\"", "\"apple\"", "\"fig\""};
    for (int i = 0; i < N; i++)
        fprintf(g, "%s\n", i % 11 == 0 ? "null" : words[i % 3]);
    fclose(g);
    CLI(&r, "write", "--quiet", "--type", "STRING", "--nullable", "--encoding", "DICT",
        "--block-size", "512", in, file);
    cli_rc(&r, 0);
    CLI(&r, "info", "--blocks", "--json", file);
    EXPECT_RC(r, 0);
    assert_int_equal(cf_json_parse(&doc, r.out, r.out_len, msg, sizeof(msg)), 0);
    blocks = cf_json_get(&doc.root, "blocks");
    ndata = 0;
    for (size_t b = 0; b < blocks->n; b++) {
        const cf_json *bl = &blocks->items[b];
        if (strcmp(cf_json_get(bl, "kind")->str, "data block") != 0)
            continue;
        ndata++;
        cli_json_fields(bl, "distinct", "3", "min", "apple", "max", "pear", NULL);
    }
    assert_true(ndata > 1);
    cf_json_doc_dispose(&doc);
    done(&r);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        CLI_DIR_TEST(test_blockstats__int32_nullable_multiblock),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

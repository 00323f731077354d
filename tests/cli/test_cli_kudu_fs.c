/* cf-needs: tables */
/* cfile kudu fs list|check|dump (tools/cfile/cmd_kudu_fs.c) in-process: the JSON
 * of ../shared/kudu-fs/README.md item 2 with roles from the superblock, filters,
 * Kudu's check report on an intact layout (exit 0) and on written roots with
 * damage (exit 1, file and offset named), dump uuid/block/cfile/tree, and the usage
 * and refusal exits (2 usage, 3 encrypted). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"

#include "json.h"
#include "kudufs/lbm_writer.h"
#include "support_cli.h"
#include "support_kudu.h"

static char wal[1100], data0[1100], data1[1100], dirs[2300], layout[1024];

static void basic(void)
{
    snprintf(layout, sizeof layout, "%s/kudu-fs/lbm-basic-s1", cf_test_shared_dir());
    snprintf(wal, sizeof wal, "%s/fs/wal", layout);
    snprintf(data0, sizeof data0, "%s/fs/data0", layout);
    snprintf(data1, sizeof data1, "%s/fs/data1", layout);
    snprintf(dirs, sizeof dirs, "%s,%s", data0, data1);
}

/* r exited rc and printed JSON: into doc. */
static void json_of(cf_json_doc *doc, const run *r, int rc)
{
    EXPECT_RC(*r, rc);
    char msg[256];
    if (cf_json_parse(doc, r->out, r->out_len, msg, sizeof msg) != 0)
        fail_msg("not JSON: %s: %.200s", msg, r->out);
}

/* `cfile kudu fs <cmd> --json` over lbm-basic-s1: exit 0, its JSON into doc. */
static void basic_json(cf_json_doc *doc, char *cmd)
{
    basic();
    run r;
    CLI(&r, "kudu", "fs", cmd, "--json", "--fs-wal-dir", wal, "--fs-data-dirs", dirs);
    json_of(doc, &r, 0);
    done(&r);
}

/* A one-directory root <test dir>/name (its spec into *spec, may be NULL) and a
 * log block manager writer of its container `container`. */
static cf_kudu_lbm_writer *lbm_root(const char *name, const char *container, char **root,
                                    cf_kudu_root_spec *spec)
{
    *root = cli_dir_path(name);
    static const char *const all[] = {"0123456789abcdef0123456789abcdef"};
    cf_kudu_root_spec sp = cli_kudu_root(*root, all);
    if (spec != NULL)
        *spec = sp;
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/data", *root);
    cf_kudu_lbm_writer *w = NULL;
    cf_error e = {0};
    CF_ASSERT_OK(cf_kudu_lbm_writer_create(&w, dir, container, 4096, &e), &e);
    return w;
}

static const cf_json *block_with_id(const cf_json *blocks, long long id)
{
    for (size_t i = 0; i < blocks->n; i++)
        if (strtoll(cf_json_get(&blocks->items[i], "block_id")->str, NULL, 10) == id)
            return &blocks->items[i];
    return NULL;
}

static void test_cli_kudu_fs__list(void **state)
{
    (void)state;
    cf_json_doc doc;
    basic_json(&doc, "list");
    const cf_json *blocks = cf_json_get(&doc.root, "blocks");
    assert_non_null(blocks);
    assert_int_equal(blocks->n, 45);
    /* Block 1: rowset 0's id column, at the start of its container (containers.json). */
    const cf_json *b = block_with_id(blocks, 1);
    assert_non_null(b);
    assert_string_equal(cf_json_get(b, "kind")->str, "column");
    assert_string_equal(cf_json_get(b, "column")->str, "id");
    assert_string_equal(cf_json_get(b, "rowset_id")->str, "0");
    assert_string_equal(cf_json_get(b, "container")->str, "7cc50801eb454c8baf4a480462e7d1ea");
    assert_string_equal(cf_json_get(b, "offset")->str, "0");
    assert_string_equal(cf_json_get(b, "data_dir")->str, data1);
    assert_string_equal(cf_json_get(b, "tablet_id")->str, "203c009b3a23aa40f3c4636398a419ee");
    assert_int_equal(cf_json_get(b, "delta_index")->kind, CF_JSON_NULL);
    cf_json_doc_dispose(&doc);

    /* Filters. */
    run r;
    CLI(&r, "kudu", "fs", "list", "--json", "--block", "14", "--fs-wal-dir", wal, "--fs-data-dirs",
        dirs);
    json_of(&doc, &r, 0);
    blocks = cf_json_get(&doc.root, "blocks");
    assert_int_equal(blocks->n, 1);
    assert_string_equal(cf_json_get(&blocks->items[0], "length")->str, "29240");
    cf_json_doc_dispose(&doc);
    done(&r);
    CLI(&r, "kudu", "fs", "list", "--json", "--tablet", "203c009b3a23aa40f3c4636398a419ee",
        "--fs_wal_dir", wal, "--fs_data_dirs", data0, "--fs-data-dirs", data1);
    json_of(&doc, &r, 0);
    assert_int_equal(cf_json_get(&doc.root, "blocks")->n, 45);
    cf_json_doc_dispose(&doc);
    done(&r);
    CLI(&r, "kudu", "fs", "list", "--json", "--table", "no-such-table", "--fs-wal-dir", wal,
        "--fs-data-dirs", dirs);
    json_of(&doc, &r, 0);
    assert_int_equal(cf_json_get(&doc.root, "blocks")->n, 0);
    cf_json_doc_dispose(&doc);
    done(&r);
    /* Text. */
    CLI(&r, "kudu", "fs", "list", "--fs-wal-dir", wal, "--fs-data-dirs", dirs);
    EXPECT_RC(r, 0);
    assert_non_null(strstr(r.out, "block_id"));
    assert_non_null(strstr(r.out, "7cc50801eb454c8baf4a480462e7d1ea"));
    done(&r);
}

static void test_cli_kudu_fs__check_intact(void **state)
{
    (void)state;
    cf_json_doc doc;
    basic_json(&doc, "check");
    assert_int_equal(cf_json_get(&doc.root, "damage")->kind, CF_JSON_FALSE);
    const cf_json *st = cf_json_get(&doc.root, "stats");
    assert_string_equal(cf_json_get(st, "live_blocks")->str, "45");
    assert_string_equal(cf_json_get(st, "containers")->str, "17");
    assert_string_equal(cf_json_get(st, "orphaned_blocks")->str, "0");
    assert_string_equal(cf_json_get(st, "missing_blocks")->str, "0");
    assert_int_equal(cf_json_get(&doc.root, "problems")->n, 0);
    cf_json_doc_dispose(&doc);
    run r;
    CLI(&r, "kudu", "fs", "check", "--fs-wal-dir", wal, "--fs-data-dirs", dirs);
    cli_out(&r, 0, "Total live blocks: 45");
}

static void test_cli_kudu_fs__check_damage(void **state)
{
    (void)state;
    char *root;
    cf_kudu_root_spec spec;
    cf_kudu_lbm_writer *w = lbm_root("r", "c", &root, &spec);
    cf_error e = {0};
    CF_ASSERT_OK(cf_kudu_lbm_writer_append(w, 1, "hello", 5, 1, NULL, &e), &e);
    cf_kudu_block_record rec = {
        .has_block_id = true,
        .has_op = true,
        .has_timestamp = true,
        .has_offset = true,
        .has_length = true,
        .block_id = 2,
        .op = 1,
        .timestamp_us = 2,
        .offset = 8192,
        .length = 100,
    };
    uint64_t at;
    CF_ASSERT_OK(cf_kudu_lbm_writer_record(w, &rec, &at, &e), &e);
    cf_kudu_lbm_writer_free(w);
    run r;
    CLI(&r, "kudu", "fs", "check", "--json", "--fs-wal-dir", root);
    cf_json_doc doc;
    json_of(&doc, &r, 1);
    assert_int_equal(cf_json_get(&doc.root, "damage")->kind, CF_JSON_TRUE);
    const cf_json *p = cf_json_get(&doc.root, "problems");
    assert_int_equal(p->n, 1);
    assert_non_null(strstr(cf_json_get(&p->items[0], "path")->str, "c.metadata"));
    assert_int_equal((uint64_t)strtoull(cf_json_get(&p->items[0], "offset")->str, NULL, 10), at);
    /* Block 1 has no superblock naming it: an orphan, reported, not damage. */
    assert_int_equal(cf_json_get(&doc.root, "orphaned_blocks")->n, 1);
    cf_json_doc_dispose(&doc);
    done(&r);
    /* list still lists what is intact, names the damage on stderr and exits 1. */
    CLI(&r, "kudu", "fs", "list", "--json", "--fs-wal-dir", root);
    assert_non_null(strstr(r.err, "c.metadata at offset"));
    json_of(&doc, &r, 1);
    const cf_json *blocks = cf_json_get(&doc.root, "blocks");
    assert_int_equal(blocks->n, 1);
    assert_string_equal(cf_json_get(&blocks->items[0], "kind")->str, "orphan");
    cf_json_doc_dispose(&doc);
    done(&r);
    /* dump block: the bytes themselves, or as hex. */
    CLI(&r, "kudu", "fs", "dump", "block", "--fs-wal-dir", root, "1");
    EXPECT_RC(r, 0);
    assert_int_equal(r.out_len, 5);
    assert_memory_equal(r.out, "hello", 5);
    done(&r);
    CLI(&r, "kudu", "fs", "dump", "block", "--hex", "--fs-wal-dir", root, "1");
    cli_out_is(&r, 0, "00000000: 6865 6c6c 6f\n");
    CLI(&r, "kudu", "fs", "dump", "block", "--fs-wal-dir", root, "2");
    cli_rc(&r, 1);

    /* An encrypted server: exit 3. */
    char *enc = cli_dir_path("enc");
    spec.root = enc;
    spec.server_key = "00112233";
    CF_ASSERT_OK(cf_kudu_root_write(&spec, &e), &e);
    CLI(&r, "kudu", "fs", "list", "--fs-wal-dir", enc);
    cli_err(&r, 3, "encrypted, not supported");
}

/* Full and dead containers are judged by --log-container-max-size (Kudu's flag, not
 * kept on disk); they are reported, not damage. */
static void test_cli_kudu_fs__check_dead(void **state)
{
    (void)state;
    char *root;
    cf_kudu_lbm_writer *w = lbm_root("d", "dd", &root, NULL);
    cf_error e = {0};
    CF_ASSERT_OK(cf_kudu_lbm_writer_append(w, 1, "x", 1, 1, NULL, &e), &e);
    CF_ASSERT_OK(cf_kudu_lbm_writer_append(w, 2, "y", 1, 1, NULL, &e), &e);
    CF_ASSERT_OK(cf_kudu_lbm_writer_delete(w, 1, 2, &e), &e);
    CF_ASSERT_OK(cf_kudu_lbm_writer_delete(w, 2, 2, &e), &e);
    cf_kudu_lbm_writer_free(w);
    run r;
    CLI(&r, "kudu", "fs", "check", "--json", "--log-container-max-size", "8192", "--fs-wal-dir",
        root);
    cf_json_doc doc;
    json_of(&doc, &r, 0);
    const cf_json *st = cf_json_get(&doc.root, "stats");
    assert_string_equal(cf_json_get(st, "dead_containers")->str, "1");
    assert_string_equal(cf_json_get(st, "full_containers")->str, "1");
    const cf_json *cs = cf_json_get(&doc.root, "containers");
    assert_int_equal(cs->n, 1);
    assert_int_equal(cf_json_get(&cs->items[0], "dead")->kind, CF_JSON_TRUE);
    cf_json_doc_dispose(&doc);
    done(&r);
    /* With Kudu's default (10 GiB) the same container is neither. */
    CLI(&r, "kudu", "fs", "check", "--json", "--fs-wal-dir", root);
    json_of(&doc, &r, 0);
    st = cf_json_get(&doc.root, "stats");
    assert_string_equal(cf_json_get(st, "dead_containers")->str, "0");
    cf_json_doc_dispose(&doc);
    done(&r);
    CLI(&r, "kudu", "fs", "check", "--log-container-max-size", "0", "--fs-wal-dir", root);
    cli_rc(&r, 2);
}

static void test_cli_kudu_fs__dump(void **state)
{
    (void)state;
    basic();
    run r;
    CLI(&r, "kudu", "fs", "dump", "uuid", "--fs-wal-dir", wal, "--fs-data-dirs", dirs);
    cli_out_is(&r, 0, "5a14baabf6ddd776a9e66bd7912d9441\n");
    /* cfile: what `cfile dump --json` prints; values equal what Kudu read back. */
    CLI(&r, "kudu", "fs", "dump", "cfile", "--json", "--fs-wal-dir", wal, "--fs-data-dirs", dirs,
        "1");
    cf_json_doc got, want;
    json_of(&got, &r, 0);
    char p[1200], msg[256];
    snprintf(p, sizeof p, "%s/expected/cfile-1.json", layout);
    assert_int_equal(cf_json_parse_file(&want, p, msg, sizeof msg), 0);
    const cf_json *gv = cf_json_get(&got.root, "values"), *wv = cf_json_get(&want.root, "values");
    assert_non_null(gv);
    assert_int_equal(gv->n, wv->n);
    for (size_t i = 0; i < gv->n; i++)
        assert_string_equal(gv->items[i].str, wv->items[i].str);
    cf_json_doc_dispose(&got);
    cf_json_doc_dispose(&want);
    done(&r);
    CLI(&r, "kudu", "fs", "dump", "cfile", "--limit", "2", "--fs-wal-dir", wal, "--fs-data-dirs",
        dirs, "1");
    cli_out(&r, 0, "INT64");
    /* tree without an id: the roots' files, as `kudu fs dump tree`. */
    CLI(&r, "kudu", "fs", "dump", "tree", "--fs-wal-dir", wal, "--fs-data-dirs", dirs);
    EXPECT_RC(r, 0);
    char line[1200];
    snprintf(line, sizeof line, "File-System Root: %s\n|-consensus-meta/\n", wal);
    assert_non_null(strstr(r.out, line));
    assert_non_null(strstr(r.out, "|----7cc50801eb454c8baf4a480462e7d1ea.data\n"));
    assert_non_null(strstr(r.out, "|-instance\n"));
    done(&r);
    CLI(&r, "kudu", "fs", "dump", "tree", "--fs-wal-dir", wal, "--fs-data-dirs", dirs, "1");
    cli_out(&r, 0, "index");
}

static void test_cli_kudu_fs__usage(void **state)
{
    (void)state;
    basic();
    run r;
    CLI(&r, "kudu", "fs", "list", "--json");
    cli_err(&r, 2, "--fs-wal-dir");
    CLI(&r, "kudu", "fs", "frobnicate", "--fs-wal-dir", wal);
    cli_rc(&r, 2);
    CLI(&r, "kudu", "fs", "dump", "cfile", "--fs-wal-dir", wal, "--fs-data-dirs", dirs);
    cli_rc(&r, 2);
    CLI(&r, "kudu", "fs", "dump", "cfile", "--fs-wal-dir", wal, "--fs-data-dirs", dirs, "x1");
    cli_rc(&r, 2);
    CLI(&r, "kudu", "fs", "dump", "cfile", "--fs-wal-dir", wal, "--fs-data-dirs", dirs, "999999");
    cli_rc(&r, 1);
    CLI(&r, "kudu", "fs", "list", "--fs-wal-dir", wal, "--fs-data-dirs", ",,");
    cli_rc(&r, 2);
    CLI(&r, "kudu", "fs", "list", "--fs-wal-dir", wal, "--fs-data-dirs", data0);
    cli_err(&r, 1, "missing");
    CLI(&r, "kudu", "fs", "--help");
    cli_out(&r, 0, "usage: cfile kudu fs list");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_kudu_fs__list),
        cmocka_unit_test(test_cli_kudu_fs__check_intact),
        cmocka_unit_test_setup_teardown(test_cli_kudu_fs__check_damage, cli_dir_setup,
                                        cli_dir_teardown),
        cmocka_unit_test_setup_teardown(test_cli_kudu_fs__check_dead, cli_dir_setup,
                                        cli_dir_teardown),
        cmocka_unit_test(test_cli_kudu_fs__dump),
        cmocka_unit_test(test_cli_kudu_fs__usage),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* cf-needs: tables */
/* Column names Kudu takes and a plain identifier is not: a copy of the Kudu-written
 * layout lbm-compound-s2 with its columns renamed (superblock schema, every WAL
 * segment header's schema and every write request's client schema; the data
 * blocks name columns by id) to `my-col`, `a b, c`, `Größe`, `select`, a name
 * with a backquote, a double quote and a newline, and one of 256 bytes. The
 * tablet opens; `kudu tablet scan` gives expected/tablet_latest.json's rows under
 * the new names, --columns/--where take the names quoted; CSV quotes them in its
 * header; an Arrow stream of the tablet names its fields so; `convert` writes them
 * unchanged into Parquet, `convert --to table`
 * loads that file into a table whose MANIFEST quotes them, and the table scans
 * back to the same rows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cfile/arrow.h>
#include <cfile/config.h> /* CF_HAVE_PARQUET */
#include <cfile/kudu.h>

#include "json.h"
#include "kudufs/pbc_writer.h"
#include "kudu/tablet.h"
#include "kudu/wal.h"
#include "support_cli.h"
#include "support_json.h"
#include "support_kudu.h"
#include "test_common.h"
#include "util/alloc.h"

#define LAYOUT "lbm-compound-s2"
#define NCOLS 6

static const char *const old_names[NCOLS] = {"host", "ts", "metric", "count", "tag", "ok"};
static char new_names[NCOLS][300];

static void names_init(void)
{
    snprintf(new_names[0], 300, "my-col");
    snprintf(new_names[1], 300, "a b, c");
    snprintf(new_names[2], 300,
             "Gr\xc3\xb6\xc3\x9f"
             "e");
    snprintf(new_names[3], 300, "select");
    snprintf(new_names[4], 300, "it`s \"q\"\nline2");
    /* 256 bytes: 127 x U+00FC and "ok" */
    size_t k = 0;
    for (int i = 0; i < 127; i++) {
        new_names[5][k++] = '\xc3';
        new_names[5][k++] = '\xbc';
    }
    memcpy(new_names[5] + k, "ok", 3);
    assert_int_equal(strlen(new_names[5]), 256);
}

/* ---- the renamed copy -------------------------------------------------------------------- */

static void rename_schema(Kudu__SchemaPB *s, ProtobufCAllocator *a)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n_columns; i++) {
        Kudu__ColumnSchemaPB *c = s->columns[i];
        for (size_t j = 0; j < NCOLS; j++) {
            if (c->name == NULL || strcmp(c->name, old_names[j]) != 0)
                continue;
            size_t n = strlen(new_names[j]) + 1;
            char *nn = a ? a->alloc(a->allocator_data, n) : malloc(n);
            assert_non_null(nn);
            memcpy(nn, new_names[j], n);
            if (a)
                a->free(a->allocator_data, c->name);
            else
                free(c->name);
            c->name = nn;
            break;
        }
    }
}

static void rename_superblock(const char *path)
{
    cf_error err = {0};
    cf_kudu_pbc *pbc;
    CF_ASSERT_OK(cf_kudu_pbc_open_file(&pbc, path, &err), &err);
    const uint8_t *data;
    size_t len;
    uint64_t off;
    bool has;
    CF_ASSERT_OK(cf_kudu_pbc_next(pbc, &data, &len, &off, &has, &err), &err);
    assert_true(has);
    Kudu__Tablet__TabletSuperBlockPB *sb =
        kudu__tablet__tablet_super_block_pb__unpack(NULL, len, data);
    assert_non_null(sb);
    cf_kudu_pbc_free(pbc);
    rename_schema(sb->schema, NULL);
    CF_ASSERT_OK(cf_kudu_pbc_write_file(path, &sb->base, &err), &err);
    kudu__tablet__tablet_super_block_pb__free_unpacked(sb, NULL);
}

static void rename_segment(const char *path)
{
    cf_error err = {0};
    cf_io *io;
    CF_ASSERT_OK(cf_io_open_file(&io, path, &err), &err);
    kudu_wal_seg *s;
    CF_ASSERT_OK(kudu_wal_seg_read(&s, io, path, &err), &err);
    uint64_t size = io->ops->size(io);
    uint8_t *file = malloc(size + 1);
    assert_non_null(file);
    CF_ASSERT_OK(io->ops->read_at(io, 0, file, size, &err), &err);
    cf_io_free(io);
    rename_schema(s->header->schema, &s->mem.a);
    kudu_wal_writer w;
    CF_ASSERT_OK(kudu_wal_writer_begin(&w, s->header, &err), &err);
    for (size_t b = 0; b < s->nbatches; b++) {
        Kudu__Log__LogEntryBatchPB *pb = s->batches[b].pb;
        for (size_t e = 0; e < pb->n_entry; e++) {
            Kudu__Log__ReplicateMsg *r = pb->entry[e]->replicate;
            if (r != NULL && r->write_request != NULL)
                rename_schema(r->write_request->schema, &s->mem.a);
            assert_true(r == NULL || r->alter_schema_request == NULL);
        }
        CF_ASSERT_OK(kudu_wal_writer_batch(&w, pb, &err), &err);
    }
    if (s->has_footer)
        CF_ASSERT_OK(kudu_wal_writer_footer(&w, s->footer, &err), &err);
    else /* the torn tail as it was */
        cf_buf_append(&w.out, file + s->end_offset, (size_t)(size - s->end_offset));
    write_text(path, (const char *)w.out.data, w.out.len);
    kudu_wal_writer_dispose(&w);
    kudu_wal_seg_free(s);
    free(file);
}

/* The test skips when the layout is not there. */
static void renamed_copy(cli_kudu_lay *l)
{
    /* the roots are named relative to the layout's directory ("fs/wal") */
    if (!cli_kudu_lay_open(l, LAYOUT, cli_dir))
        skip();
    char cmd[1500];
    snprintf(cmd, sizeof cmd, "cp -r '%s/kudu-fs/%s/fs' '%s/' && chmod -R u+w '%s/fs'",
             cf_test_shared_dir(), LAYOUT, cli_dir, cli_dir);
    assert_int_equal(system(cmd), 0);
    char p[1500];
    snprintf(p, sizeof p, "%s/tablet-meta/%s", l->wal, l->tablet);
    rename_superblock(p);
    for (int seq = 1; seq < 100; seq++) {
        snprintf(p, sizeof p, "%s/wals/%s/wal-%09d", l->wal, l->tablet, seq);
        struct stat st;
        if (stat(p, &st) == 0)
            rename_segment(p);
    }
}

/* ---- comparing rows ------------------------------------------------------------------------ */

/* The renamed copy in l (renamed_copy) and the expected rows in d (dispose it);
 * returns the rows. */
static const cf_json *renamed_with_rows(cli_kudu_lay *l, cf_json_doc *d)
{
    renamed_copy(l);
    char p[1500], msg[200];
    snprintf(p, sizeof p, "%s/kudu-fs/%s/expected/tablet_latest.json", cf_test_shared_dir(),
             LAYOUT);
    if (cf_json_parse_file(d, p, msg, sizeof(msg)) != 0)
        fail_msg("%s: %s", p, msg);
    const cf_json *rows = cf_json_get(&d->root, "rows");
    assert_non_null(rows);
    return rows;
}

/* JSON lines `out` against the expected rows (all columns, old names), each row
 * keyed by the new names; `keep` filters the expected rows (NULL: all). */
static size_t expect_rows(const char *what, const char *out, const cf_json *rows,
                          bool (*keep)(const cf_json *row))
{
    cf_json_doc got;
    cli_json_lines(&got, out);
    size_t g = 0;
    for (size_t i = 0; i < rows->n; i++) {
        const cf_json *want = &rows->items[i];
        if (keep != NULL && !keep(want))
            continue;
        if (g >= got.root.n)
            fail_msg("%s: %zu rows, expected more", what, got.root.n);
        const cf_json *row = &got.root.items[g++];
        assert_int_equal(row->n, NCOLS);
        for (size_t c = 0; c < NCOLS; c++) {
            if (strcmp(row->members[c].key, new_names[c]) != 0)
                fail_msg("%s: row %zu: column %zu is '%s'", what, g, c, row->members[c].key);
            const cf_json *v = cf_json_get(want, old_names[c]);
            assert_non_null(v);
            if (!cli_json_same(&row->members[c].value, v, false))
                fail_msg("%s: row %zu column '%s' differs", what, g, old_names[c]);
        }
    }
    if (g != got.root.n)
        fail_msg("%s: %zu rows, expected %zu", what, got.root.n, g);
    cf_json_doc_dispose(&got);
    return g;
}

/* ---- the tests ------------------------------------------------------------------------------ */

static void test_kudu_names__scan(void **state)
{
    (void)state;
    cli_kudu_lay l;
    cf_json_doc want;
    const cf_json *rows = renamed_with_rows(&l, &want);

    run r;
    CLI(&r, "kudu", "tablet", "scan", "--json", "--fs-wal-dir", l.wal, "--fs-data-dirs", l.data,
        l.tablet);
    EXPECT_RC(r, 0);
    assert_int_equal(expect_rows("scan", r.out, rows, NULL), rows->n);
    done(&r);

    /* the schema as `kudu tablet schema --json` names it */
    CLI(&r, "kudu", "tablet", "schema", "--json", "--fs-wal-dir", l.wal, "--fs-data-dirs", l.data,
        l.tablet);
    EXPECT_RC(r, 0);
    for (size_t c = 0; c < NCOLS; c++)
        if (c != 4) /* the newline and quotes are escaped in JSON */
            assert_non_null(strstr(r.out, new_names[c]));
    assert_non_null(strstr(r.out, "it`s \\\"q\\\"\\nline2"));
    done(&r);

    /* --columns and --where take the names quoted (and a bare non-identifier in
     * --columns as written) */
    CLI(&r, "kudu", "tablet", "scan", "--json", "--fs-wal-dir", l.wal, "--fs-data-dirs", l.data,
        "--columns",
        "`select`, Gr\xc3\xb6\xc3\x9f"
        "e ,`it``s \"q\"\nline2`",
        "--where", "`my-col` = 'host-00-000' AND `select` IS NOT NULL AND `a b, c` >= 0", l.tablet);
    EXPECT_RC(r, 0);
    cf_json_doc got;
    cli_json_lines(&got, r.out);
    size_t n = 0;
    for (size_t i = 0; i < rows->n; i++) {
        const cf_json *h = cf_json_get(&rows->items[i], "host");
        const cf_json *cnt = cf_json_get(&rows->items[i], "count");
        if (strcmp(h->str, "host-00-000") != 0 || cnt->kind == CF_JSON_NULL)
            continue;
        assert_true(n < got.root.n);
        const cf_json *g = &got.root.items[n++];
        assert_int_equal(g->n, 3);
        assert_string_equal(g->members[0].key, new_names[3]);
        assert_string_equal(g->members[1].key, new_names[2]);
        assert_string_equal(g->members[2].key, new_names[4]);
        assert_true(cli_json_same(&g->members[0].value, cnt, false));
        assert_true(
            cli_json_same(&g->members[1].value, cf_json_get(&rows->items[i], "metric"), false));
    }
    assert_true(n > 0);
    assert_int_equal(n, got.root.n);
    cf_json_doc_dispose(&got);
    done(&r);

    /* an Arrow stream of the tablet names its fields as the tablet does */
    char datas[sizeof l.data];
    snprintf(datas, sizeof datas, "%s", l.data);
    const char *dirs[8];
    size_t nd = 0;
    for (char *tok = strtok(datas, ","); tok && nd < 8; tok = strtok(NULL, ","))
        dirs[nd++] = tok;
    cf_kudu_fs_options fo;
    cf_kudu_fs_options_init(&fo);
    fo.wal_dir = l.wal;
    fo.data_dirs = dirs;
    fo.ndata_dirs = nd;
    cf_kudu_fs *fs;
    cf_error err = {0};
    CF_ASSERT_OK(cf_kudu_fs_open(&fs, &fo, &err), &err);
    cf_kudu_tablet *t;
    CF_ASSERT_OK(cf_kudu_tablet_open(&t, fs, l.tablet, &err), &err);
    struct ArrowArrayStream as;
    CF_ASSERT_OK(cf_arrow_stream_kudu_tablet(&as, t, NULL, NULL, &err), &err);
    struct ArrowSchema sc;
    assert_int_equal(as.get_schema(&as, &sc), 0);
    assert_int_equal(sc.n_children, NCOLS);
    for (size_t c = 0; c < NCOLS; c++)
        assert_string_equal(sc.children[c]->name, new_names[c]);
    sc.release(&sc);
    as.release(&as);
    cf_kudu_tablet_free(t);
    cf_kudu_fs_free(fs);

    /* an unclosed quote and an unknown quoted name are usage errors naming them */
    CLI(&r, "kudu", "tablet", "scan", "--fs-wal-dir", l.wal, "--fs-data-dirs", l.data, "--columns",
        "`my-col", l.tablet);
    cli_err(&r, 2, "closing backquote");
    CLI(&r, "kudu", "tablet", "scan", "--fs-wal-dir", l.wal, "--fs-data-dirs", l.data, "--where",
        "`my col` = 'x'", l.tablet);
    cli_err(&r, 2, "no column 'my col'");

    /* CSV: the header names every column, quoted as RFC 4180 quotes fields */
    CLI(&r, "kudu", "tablet", "scan", "--format", "csv", "--limit", "1", "--fs-wal-dir", l.wal,
        "--fs-data-dirs", l.data, l.tablet);
    EXPECT_RC(r, 0);
    char hdr[1200];
    snprintf(hdr, sizeof hdr, "my-col,\"a b, c\",%s,select,\"it`s \"\"q\"\"\nline2\",%s\n",
             new_names[2], new_names[5]);
    assert_memory_equal(r.out, hdr, strlen(hdr));
    done(&r);
    cf_json_doc_dispose(&want);
}

#if CF_HAVE_PARQUET
static void test_kudu_names__parquet_and_table(void **state)
{
    (void)state;
    cli_kudu_lay l;
    cf_json_doc want;
    const cf_json *rows = renamed_with_rows(&l, &want);

    /* to Parquet: the names unchanged in the file's schema */
    char *pq = cli_dir_path("t.parquet");
    run r;
    CLI(&r, "convert", "--kudu-tablet", l.tablet, "--fs-wal-dir", l.wal, "--fs-data-dirs", l.data,
        pq);
    cli_rc(&r, 0);
    CLI(&r, "parquet", "dump", pq);
    EXPECT_RC(r, 0);
    assert_int_equal(expect_rows("parquet dump", r.out, rows, NULL), rows->n);
    done(&r);

    /* and into a table: the key named quoted in --key */
    char *tab = cli_dir_path("tab");
    CLI(&r, "convert", "--to", "table", "--key", "`my-col`,`a b, c`", pq, tab);
    cli_rc(&r, 0);
    CLI(&r, "table", "scan", "--json", tab);
    EXPECT_RC(r, 0);
    assert_int_equal(expect_rows("table scan", r.out, rows, NULL), rows->n);
    done(&r);

    /* its schema text quotes exactly the names that need it */
    CLI(&r, "table", "info", "--json", tab);
    EXPECT_RC(r, 0);
    assert_non_null(strstr(r.out, "\"schema\":\"`my-col` STRING KEY, `a b, c` UNIXTIME_MICROS "
                                  "KEY, `Gr\xc3\xb6\xc3\x9f"
                                  "e` DOUBLE, select INT32 NULL, `it``s \\\"q\\\"\\nline2` "
                                  "STRING NULL, `"));
    done(&r);

    /* the table's MANIFEST, read again by a new process: names, --where, --set */
    CLI(&r, "table", "update", tab, "--key", "host-00-000,1767225600000000", "--set",
        "`select` = 77, `it``s \"q\"\nline2`='v,w'");
    cli_rc(&r, 0);
    CLI(&r, "table", "scan", "--json", tab, "--columns", "`select`,`it``s \"q\"\nline2`", "--where",
        "`my-col` = host-00-000 AND `a b, c` = 1767225600000000");
    EXPECT_RC(r, 0);
    char line[200];
    snprintf(line, sizeof line, "{\"select\":77,\"it`s \\\"q\\\"\\nline2\":\"v,w\"}\n");
    assert_string_equal(r.out, line);
    done(&r);
    cf_json_doc_dispose(&want);
}
#endif

/* A table of such names: its schema text from `table info` creates a copy, and
 * what `scan --format csv` and `scan --json` print imports into it unchanged. */
static void test_kudu_names__table_import(void **state)
{
    (void)state;
    char schema[1200];
    snprintf(schema, sizeof schema,
             "`my-col` INT64 KEY, `a \"b\", c` STRING NULL, `x\ny` INT32 NULL, `%s` DOUBLE NULL",
             new_names[5]);
    char *src = cli_dir_path("src");
    run r;
    cli_table_create(src, schema);
    CLI(&r, "table", "insert", src, "--row", "`my-col`=1,`a \"b\", c`=\"q,r\",`x\ny`=5");
    cli_rc(&r, 0);
    char row2[600];
    snprintf(row2, sizeof row2, "`my-col` = 2, `%s` = 2.5", new_names[5]);
    CLI(&r, "table", "insert", src, "--row", row2);
    cli_rc(&r, 0);
    CLI(&r, "table", "info", "--json", src);
    EXPECT_RC(r, 0);
    cf_json_doc info;
    char msg[200];
    if (cf_json_parse(&info, r.out, strlen(r.out), msg, sizeof msg) != 0)
        fail_msg("info: %s", msg);
    const cf_json *text = cf_json_get(&info.root, "schema");
    assert_non_null(text);
    assert_string_equal(text->str, schema); /* quoted exactly as written */
    done(&r);
    run want;
    CLI(&want, "table", "scan", "--json", src);
    EXPECT_RC(want, 0);
    static char csv[] = "csv", jsonl[] = "jsonl";
    char *forms[2] = {csv, jsonl};
    for (size_t f = 0; f < 2; f++) {
        CLI(&r, "table", "scan", "--format", forms[f], src);
        EXPECT_RC(r, 0);
        char *in = cli_dir_path(f ? "rows.jsonl" : "rows.csv");
        write_str(in, r.out);
        done(&r);
        char *dst = cli_dir_path(f ? "dst1" : "dst0");
        cli_table_create(dst, text->str);
        CLI(&r, "table", "import", dst, in, "--format", forms[f]);
        cli_rc(&r, 0);
        CLI(&r, "table", "scan", "--json", dst);
        cli_out_is(&r, 0, want.out);
    }
    done(&want);
    cf_json_doc_dispose(&info);
}

int main(int argc, char **argv)
{
    names_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_kudu_names__scan, cli_dir_setup, cli_dir_teardown),
        cmocka_unit_test_setup_teardown(test_kudu_names__table_import, cli_dir_setup,
                                        cli_dir_teardown),
#if CF_HAVE_PARQUET
        cmocka_unit_test_setup_teardown(test_kudu_names__parquet_and_table, cli_dir_setup,
                                        cli_dir_teardown),
#endif
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

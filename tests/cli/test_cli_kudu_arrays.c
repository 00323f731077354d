/* cf-needs: parquet tables */
/* A Kudu tablet with array columns (NESTED, NestedDataTypePB.array), written with
 * the library's Kudu writers: "k INT64 KEY, a INT32[] NULL, s STRING[] NULL",
 * one DiskRowSet (array CFiles with NULL cells, empty arrays and NULL elements),
 * an UNDO and a REDO DeltaFile of array updates, and a WAL of INSERT, UPDATE and
 * UPSERT row ops carrying array cells. What `cfile kudu wal dump`, `kudu tablet
 * scan` (latest, --as-of, --no-wal, --columns) and `convert --kudu-tablet` (read
 * back by `parquet dump --json`) print for it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cfile/arrow.h>
#include <cfile/delta.h>
#include <cfile/io.h>
#include <cfile/kudu.h>
#include <cfile/writer.h>

#include "json.h"
#include "kudufs/lbm_writer.h"
#include "kudufs/pbc_writer.h"
#include "kudu/tablet.h"
#include "kudu/wal.h"
#include "kudu_log.pb-c.h"
#include "kudu_tablet.pb-c.h"
#include "support_cli.h"
#include "support_fsroot.h"
#include "support_kudu.h"
#include "support_walgen.h"
#include "test_common.h"
#include "util/buf.h"

#define TABLET "0123456789abcdef0123456789abcdef"
#define SCHEMA "k INT64 KEY, a INT32[] NULL, s STRING[] NULL"

/* Set: the tablet also has "d INT32[] NULL", added after the rowset was written,
 * with read default [7] and write default [8] (serialized cells, as Kudu's
 * ColumnSchemaPB holds an array's defaults). */
static bool with_d;
static uint8_t def_read[256], def_write[256];
static size_t def_read_len, def_write_len;

static void make_defaults(void)
{
    static const int32_t seven[1] = {7}, eight[1] = {8};
    cf_array_cell r = {.type = CF_TYPE_INT32, .count = 1, .values = seven};
    cf_array_cell w = {.type = CF_TYPE_INT32, .count = 1, .values = eight};
    cf_error e = {0};
    CF_ASSERT_OK(cf_array_cell_encode(def_read, sizeof def_read, &def_read_len, &r, &e), &e);
    CF_ASSERT_OK(cf_array_cell_encode(def_write, sizeof def_write, &def_write_len, &w, &e), &e);
}

static void set_defaults(Kudu__ColumnSchemaPB *d)
{
    d->has_read_default_value = d->has_write_default_value = true;
    d->read_default_value = (ProtobufCBinaryData){def_read_len, def_read};
    d->write_default_value = (ProtobufCBinaryData){def_write_len, def_write};
}

static void put_block(cf_kudu_lbm_writer *lw, cf_io *io, uint64_t id)
{
    cf_error e;
    cf_slice b = cf_io_mem_contents(io);
    CF_ASSERT_OK(cf_kudu_lbm_writer_append(lw, id, b.data, b.len, 1, NULL, &e), &e);
    cf_io_free(io);
}

static cf_slice S(const char *s)
{
    return (cf_slice){(const uint8_t *)s, strlen(s)};
}

/* Set: the REDO of column s writes bytes that are not an array cell. */
static bool bad_redo;

/* One delta file (type) of one change: row `row` at ts, column id `col` := cell
 * (NULL: SQL NULL). */
static cf_io *delta_file(cf_delta_type type, uint32_t row, uint64_t ts, uint32_t col,
                         const cf_array_cell *cell)
{
    cf_error e = {0};
    cf_io *io;
    cf_delta_writer *dw;
    cf_rcl_builder *b;
    cf_delta_writer_options o;
    cf_delta_writer_options_init(&o);
    o.type = type;
    CF_ASSERT_OK(cf_io_create_mem(&io, &e), &e);
    CF_ASSERT_OK(cf_delta_writer_create(&dw, io, &o, &e), &e);
    CF_ASSERT_OK(cf_rcl_builder_create(&b, &e), &e);
    cf_rcl_builder_reset(b, CF_RCL_UPDATE);
    if (cell == NULL) {
        CF_ASSERT_OK(cf_rcl_builder_add(b, col, NULL, 0, &e), &e);
    } else if (bad_redo && type == CF_DELTA_REDO) {
        CF_ASSERT_OK(cf_rcl_builder_add(b, col, "\x08\0\0\0junk", 8, &e), &e);
    } else {
        uint8_t buf[512];
        size_t len = 0;
        assert_true(cf_array_cell_encoded_max(cell) <= sizeof buf);
        CF_ASSERT_OK(cf_array_cell_encode(buf, sizeof buf, &len, cell, &e), &e);
        CF_ASSERT_OK(cf_rcl_builder_add(b, col, buf, len, &e), &e);
    }
    CF_ASSERT_OK(cf_delta_writer_append(dw, row, ts, cf_rcl_builder_bytes(b), &e), &e);
    CF_ASSERT_OK(cf_delta_writer_finish(dw, &e), &e);
    cf_delta_writer_free(dw);
    cf_rcl_builder_free(b);
    return io;
}

/* The base rows, k = 1..5:
 *   1  a [1,NULL,3]  s ["x",NULL,""]
 *   2  a NULL        s []
 *   3  a []          s NULL
 *   4  a [40]        s ["four"]
 *   5  a [5,5]       s ["a","b"]
 * UNDO (ts 50): row 4's a was [4] before; REDO: row 4 (ts 60) s := ["c",NULL],
 * then (second REDO file, ts 70) row 0's a := NULL. */
static void write_rowset(const char *root, cf_schema *sch, const uint32_t *cids)
{
    char data[1100], p[1200];
    snprintf(data, sizeof data, "%s/data", root);
    cf_error e = {0};
    cf_kudu_lbm_writer *lw;
    CF_ASSERT_OK(cf_kudu_lbm_writer_create(&lw, data, "00000000000000000000000000000001", 4096, &e),
                 &e);
    static const int64_t keys[5] = {1, 2, 3, 4, 5};
    static const int32_t aval[] = {1, 0, 3, 40, 5, 5};
    static const uint8_t aenn[1] = {0x3d}; /* element 1 NULL */
    static const uint32_t acnt[5] = {3, 0, 0, 1, 2};
    static const uint8_t acell[1] = {0x1d}; /* row 1 NULL */
    cf_slice sval[] = {S("x"), S(""), S(""), S("four"), S("a"), S("b")};
    static const uint8_t senn[1] = {0x3d}; /* element 1 NULL */
    static const uint32_t scnt[5] = {3, 0, 0, 1, 2};
    static const uint8_t scell[1] = {0x1b}; /* row 2 NULL */
    cf_io *io[3];
    cf_writer *w[3];
    for (int c = 0; c < 3; c++) {
        const cf_column *col = cf_schema_column_at(sch, (size_t)c);
        cf_writer_options o;
        cf_writer_options_init(&o, col->type);
        o.is_array = col->is_array;
        o.nullable = col->nullable;
        o.write_validx = c == 0;
        CF_ASSERT_OK(cf_io_create_mem(&io[c], &e), &e);
        CF_ASSERT_OK(cf_writer_create(&w[c], io[c], &o, &e), &e);
    }
    CF_ASSERT_OK(cf_writer_append(w[0], keys, NULL, 5, &e), &e);
    CF_ASSERT_OK(cf_writer_append_arrays(w[1], aval, aenn, acnt, acell, 5, &e), &e);
    CF_ASSERT_OK(cf_writer_append_arrays(w[2], sval, senn, scnt, scell, 5, &e), &e);
    uint64_t blocks[6];
    for (int c = 0; c < 3; c++) {
        CF_ASSERT_OK(cf_writer_finish(w[c], &e), &e);
        cf_writer_free(w[c]);
        blocks[c] = (uint64_t)c + 1;
        put_block(lw, io[c], blocks[c]);
    }
    static const int32_t four[1] = {4};
    cf_array_cell undo_a = {.type = CF_TYPE_INT32, .count = 1, .values = four};
    cf_slice redo_s[2] = {S("c"), S("")};
    static const uint8_t redo_nn[1] = {0x1};
    cf_array_cell redo_c = {
        .type = CF_TYPE_STRING, .count = 2, .values = redo_s, .nonnull = redo_nn};
    blocks[3] = 4;
    put_block(lw, delta_file(CF_DELTA_UNDO, 3, 50, cids[1], &undo_a), blocks[3]);
    blocks[4] = 5;
    put_block(lw, delta_file(CF_DELTA_REDO, 4, 60, cids[2], &redo_c), blocks[4]);
    blocks[5] = 6;
    put_block(lw, delta_file(CF_DELTA_REDO, 0, 70, cids[1], NULL), blocks[5]);
    cf_kudu_lbm_writer_free(lw);

    uint8_t lo[8], hi[8];
    size_t kl;
    const void *lov[1] = {&keys[0]}, *hiv[1] = {&keys[4]};
    CF_ASSERT_OK(cf_schema_key_encode(sch, lov, lo, 8, &kl, &e), &e);
    CF_ASSERT_OK(cf_schema_key_encode(sch, hiv, hi, 8, &kl, &e), &e);
    cf_kudu_rowset meta = {.id = 0,
                           .last_durable_dms_id = 0,
                           .ncolumns = 3,
                           .column_blocks = blocks,
                           .column_ids = cids,
                           .nundo = 1,
                           .undo_blocks = &blocks[3],
                           .nredo = 2,
                           .redo_blocks = &blocks[4],
                           .min_key = lo,
                           .max_key = hi,
                           .min_key_len = 8,
                           .max_key_len = 8};
    cf_kudu_superblock_spec sp;
    kfs_superblock_spec(&sp, TABLET, "arrays", sch, cids);
    sp.last_durable_mrs_id = 1;
    sp.rowsets = &meta;
    sp.nrowsets = 1;
    if (!with_d) {
        kfs_superblock_write(root, &sp);
        return;
    }
    snprintf(p, sizeof p, "%s/tablet-meta/" TABLET, root);
    Kudu__Tablet__TabletSuperBlockPB *pb = cli_kudu_superblock_pb(&sp);
    Kudu__ColumnSchemaPB *d = pb->schema->columns[3];
    set_defaults(d);
    CF_ASSERT_OK(cf_kudu_pbc_write_file(p, &pb->base, &e), &e);
    d->has_read_default_value = d->has_write_default_value = false;
    d->read_default_value = d->write_default_value = (ProtobufCBinaryData){0, NULL};
    kudu__tablet__tablet_super_block_pb__free_unpacked(pb, NULL);
}

/* One WRITE_OP with its COMMIT: the op went to MRS `mrs` (>= 0) or to DMS 1 of
 * rowset 0. */
/* The WAL: INSERT k 6 a [6,NULL] s ["six"] (MRS 2, ts 100); UPDATE k 2 a [2,2]
 * (DMS 1, ts 101); UPSERT k 3 s ["t"] (DMS 1, ts 102). */
static void edit_defaults(Kudu__SchemaPB *pb)
{
    set_defaults(pb->columns[3]);
}

static void write_wal(const char *root, const cf_schema *sch, const uint32_t *cids)
{
    walgen g;
    walgen_begin_edit(&g, TABLET, 1, sch, cids, 0, with_d ? edit_defaults : NULL);
    int64_t k6 = 6, k2 = 2, k3 = 3;
    static const int32_t a6v[2] = {6, 0};
    static const uint8_t a6nn[1] = {0x1};
    cf_array_cell a6 = {.type = CF_TYPE_INT32, .count = 2, .values = a6v, .nonnull = a6nn};
    cf_slice s6v[1] = {S("six")};
    cf_array_cell s6 = {.type = CF_TYPE_STRING, .count = 1, .values = s6v};
    bool all[4] = {true, true, true, false};
    const void *ins[4] = {&k6, &a6, &s6, NULL};
    walgen_write(&g, 1, 10, 100, CF_KUDU_OP_INSERT, all, ins, -1);
    walgen_commit_write(&g, 1, 10, WALGEN_MRS(2));
    static const int32_t a2v[2] = {2, 2};
    cf_array_cell a2 = {.type = CF_TYPE_INT32, .count = 2, .values = a2v};
    bool ka[4] = {true, true, false, false};
    const void *upd[4] = {&k2, &a2, NULL, NULL};
    walgen_write(&g, 1, 11, 101, CF_KUDU_OP_UPDATE, ka, upd, -1);
    walgen_commit_write(&g, 1, 11, WALGEN_DMS(0, 1));
    cf_slice s3v[1] = {S("t")};
    cf_array_cell s3 = {.type = CF_TYPE_STRING, .count = 1, .values = s3v};
    bool ks[4] = {true, false, true, false};
    const void *ups[4] = {&k3, NULL, &s3, NULL};
    walgen_write(&g, 1, 12, 102, CF_KUDU_OP_UPSERT, ks, ups, -1);
    walgen_commit_write(&g, 1, 12, WALGEN_DMS(0, 1));
    walgen_finish(&g, root, "", 1);
}

/* The whole root under the test's directory; its path. */
static char *array_root(void)
{
    char *root = cli_dir_path("root");
    static const char *const all[] = {"00000000000000000000000000000001"};
    cli_kudu_root(root, all);
    cf_error err = {0};
    cf_schema *sch = NULL;
    CF_ASSERT_OK(cf_schema_parse(&sch, with_d ? SCHEMA ", d INT32[] NULL" : SCHEMA, &err), &err);
    static const uint32_t cids[4] = {0, 3, 7, 9};
    make_defaults();
    write_rowset(root, sch, cids);
    write_wal(root, sch, cids);
    cf_schema_free(sch);
    return root;
}

/* The rows of `scan --json` output (one JSON object a line) joined by '|', keys
 * sorted as printed. */
static void expect_lines(const run *r, const char *want)
{
    if (strcmp(r->out, want) != 0)
        fail_msg("got:\n%s\nwant:\n%s", r->out, want);
}

static void test_cli_kudu_arrays__wal_dump(void **state)
{
    (void)state;
    char *root = array_root();
    run r;
    CLI(&r, "kudu", "wal", "dump", "--json", "--fs-wal-dir", root, TABLET);
    EXPECT_RC(r, 0);
    cli_has(r.out, "\"a\":[6,null]", "\"s\":[\"six\"]", "\"a\":[2,2]", "\"s\":[\"t\"]", NULL);
    done(&r);
    CLI(&r, "kudu", "wal", "dump", "--fs-wal-dir", root, TABLET);
    cli_out(&r, 0, "INT32[] a=[6,null], STRING[] s=[\"six\"]");
}

#define LATEST                                                                                     \
    "{\"k\":1,\"a\":null,\"s\":[\"x\",null,\"\"]}\n"                                               \
    "{\"k\":2,\"a\":[2,2],\"s\":[]}\n"                                                             \
    "{\"k\":3,\"a\":[],\"s\":[\"t\"]}\n"                                                           \
    "{\"k\":4,\"a\":[40],\"s\":[\"four\"]}\n"                                                      \
    "{\"k\":5,\"a\":[5,5],\"s\":[\"c\",null]}\n"                                                   \
    "{\"k\":6,\"a\":[6,null],\"s\":[\"six\"]}\n"

/* Base CFile arrays (NULL cells, empty arrays, NULL elements), REDO and UNDO array
 * updates and replayed array values, at every snapshot; the same rows at every
 * batch size. */
static void test_cli_kudu_arrays__scan(void **state)
{
    (void)state;
    char *root = array_root();
    run r;
    CLI(&r, "kudu", "tablet", "scan", "--json", "--fs-wal-dir", root, TABLET);
    EXPECT_RC(r, 0);
    expect_lines(&r, LATEST);
    done(&r);
    static char batches[][4] = {"1", "2", "5"};
    for (size_t i = 0; i < 3; i++) {
        CLI(&r, "kudu", "tablet", "scan", "--json", "--batch-rows", batches[i], "--fs-wal-dir",
            root, TABLET);
        EXPECT_RC(r, 0);
        expect_lines(&r, LATEST);
        done(&r);
    }
    CLI(&r, "kudu", "tablet", "scan", "--json", "--no-wal", "--fs-wal-dir", root, TABLET);
    EXPECT_RC(r, 0);
    expect_lines(&r, "{\"k\":1,\"a\":null,\"s\":[\"x\",null,\"\"]}\n"
                     "{\"k\":2,\"a\":null,\"s\":[]}\n"
                     "{\"k\":3,\"a\":[],\"s\":null}\n"
                     "{\"k\":4,\"a\":[40],\"s\":[\"four\"]}\n"
                     "{\"k\":5,\"a\":[5,5],\"s\":[\"c\",null]}\n");
    done(&r);
    /* before the REDOs (60, 70), after the UNDO's change (50) */
    CLI(&r, "kudu", "tablet", "scan", "--json", "--as-of", "55", "--fs-wal-dir", root, TABLET);
    EXPECT_RC(r, 0);
    expect_lines(&r, "{\"k\":1,\"a\":[1,null,3],\"s\":[\"x\",null,\"\"]}\n"
                     "{\"k\":2,\"a\":null,\"s\":[]}\n"
                     "{\"k\":3,\"a\":[],\"s\":null}\n"
                     "{\"k\":4,\"a\":[40],\"s\":[\"four\"]}\n"
                     "{\"k\":5,\"a\":[5,5],\"s\":[\"a\",\"b\"]}\n");
    done(&r);
    /* before the UNDO's change: row 4's old array */
    CLI(&r, "kudu", "tablet", "scan", "--json", "--as-of", "40", "--fs-wal-dir", root, TABLET);
    cli_out(&r, 0, "{\"k\":4,\"a\":[4],\"s\":[\"four\"]}\n");
    /* between the replayed ops */
    CLI(&r, "kudu", "tablet", "scan", "--json", "--as-of", "101", "--fs-wal-dir", root, TABLET);
    EXPECT_RC(r, 0);
    assert_non_null(strstr(r.out, "{\"k\":2,\"a\":null,\"s\":[]}\n"));
    assert_non_null(strstr(r.out, "{\"k\":6,\"a\":[6,null],\"s\":[\"six\"]}\n"));
    done(&r);
    /* projection, and IS [NOT] NULL on an array column */
    CLI(&r, "kudu", "tablet", "scan", "--json", "--columns", "s,k", "--where", "a IS NULL",
        "--fs-wal-dir", root, TABLET);
    EXPECT_RC(r, 0);
    expect_lines(&r, "{\"s\":[\"x\",null,\"\"],\"k\":1}\n");
    done(&r);
    CLI(&r, "kudu", "tablet", "scan", "--json", "--columns", "a", "--where", "s IS NOT NULL",
        "--no-wal", "--fs-wal-dir", root, TABLET);
    EXPECT_RC(r, 0);
    expect_lines(&r, "{\"a\":null}\n{\"a\":null}\n{\"a\":[40]}\n{\"a\":[5,5]}\n");
    done(&r);
    CLI(&r, "kudu", "tablet", "scan", "--where", "a = 3", "--fs-wal-dir", root, TABLET);
    cli_rc(&r, 2);
}

/* The tablet into Parquet (LIST columns), read back. */
static void test_cli_kudu_arrays__convert(void **state)
{
    (void)state;
    char *root = array_root();
    char out[300];
    snprintf(out, sizeof out, "%s", cli_dir_path("t.parquet"));
    run r;
    CLI(&r, "convert", "--json", "--kudu-tablet", TABLET, "--fs-wal-dir", root, out);
    cli_out(&r, 0, "\"rows\":6");
    CLI(&r, "parquet", "dump", "--json", out);
    EXPECT_RC(r, 0);
    assert_non_null(strstr(r.out,
                           "\"rows\":[[1,null,[\"x\",null,\"\"]],[2,[2,2],[]],[3,[],[\"t\"]],"
                           "[4,[40],[\"four\"]],[5,[5,5],[\"c\",null]],"
                           "[6,[6,null],[\"six\"]]]"));
    done(&r);
    /* into a cfile table, scanned back */
    char tdir[300];
    snprintf(tdir, sizeof tdir, "%s", cli_dir_path("tbl"));
    CLI(&r, "convert", "--kudu-tablet", TABLET, "--fs-wal-dir", root, "--to", "table", tdir);
    cli_rc(&r, 0);
    CLI(&r, "table", "scan", "--json", tdir);
    EXPECT_RC(r, 0);
    expect_lines(&r, LATEST);
    done(&r);
    CLI(&r, "convert", "--json", "--as-of", "40", "--kudu-tablet", TABLET, "--fs-wal-dir", root,
        out);
    cli_rc(&r, 0);
    CLI(&r, "parquet", "dump", "--json", out);
    EXPECT_RC(r, 0);
    assert_non_null(strstr(r.out, "\"rows\":[[1,[1,null,3],[\"x\",null,\"\"]],[2,null,[]],"
                                  "[3,[],null],[4,[4],[\"four\"]],[5,[5,5],[\"a\",\"b\"]]]"));
    done(&r);
}

/* The Arrow stream: list<int32> and list<utf8> children with the rows' offsets,
 * NULL cells and NULL elements. */
static void test_cli_kudu_arrays__arrow(void **state)
{
    (void)state;
    char *root = array_root();
    cf_kudu_fs_options o;
    cf_kudu_fs_options_init(&o);
    o.wal_dir = root;
    cf_kudu_fs *fs;
    cf_kudu_tablet *t;
    cf_error err = {0};
    CF_ASSERT_OK(cf_kudu_fs_open(&fs, &o, &err), &err);
    CF_ASSERT_OK(cf_kudu_tablet_open(&t, fs, TABLET, &err), &err);
    for (size_t batch = 1; batch <= 8; batch += 3) {
        cf_arrow_options ao;
        cf_arrow_options_init(&ao);
        ao.batch_rows = batch;
        struct ArrowArrayStream s;
        CF_ASSERT_OK(cf_arrow_stream_kudu_tablet(&s, t, NULL, &ao, &err), &err);
        struct ArrowSchema sc;
        assert_int_equal(s.get_schema(&s, &sc), 0);
        assert_int_equal(sc.n_children, 3);
        assert_string_equal(sc.children[1]->format, "+l");
        assert_string_equal(sc.children[1]->children[0]->format, "i");
        assert_string_equal(sc.children[2]->format, "+l");
        assert_string_equal(sc.children[2]->children[0]->format, "u");
        sc.release(&sc);
        /* every row's a as text, e.g. "N,[6,N]" */
        char got[256] = "";
        struct ArrowArray arr;
        while (s.get_next(&s, &arr) == 0 && arr.release != NULL) {
            const struct ArrowArray *a = arr.children[1];
            const uint8_t *valid = a->buffers[0];
            const int32_t *offs = a->buffers[1];
            const struct ArrowArray *el = a->children[0];
            const uint8_t *evalid = el->buffers[0];
            const int32_t *ev = el->buffers[1];
            for (int64_t i = 0; i < arr.length; i++) {
                int64_t row = a->offset + i;
                size_t len = strlen(got);
                if (valid != NULL && !((valid[row >> 3] >> (row & 7)) & 1)) {
                    snprintf(got + len, sizeof got - len, "N,");
                    continue;
                }
                snprintf(got + len, sizeof got - len, "[");
                for (int32_t e = offs[row]; e < offs[row + 1]; e++) {
                    int64_t x = el->offset + e;
                    len = strlen(got);
                    if (evalid != NULL && !((evalid[x >> 3] >> (x & 7)) & 1))
                        snprintf(got + len, sizeof got - len, "%sN", e > offs[row] ? " " : "");
                    else
                        snprintf(got + len, sizeof got - len, "%s%d", e > offs[row] ? " " : "",
                                 ev[x]);
                }
                len = strlen(got);
                snprintf(got + len, sizeof got - len, "],");
            }
            arr.release(&arr);
        }
        s.release(&s);
        assert_string_equal(got, "N,[2 2],[],[40],[5 5],[6 N],");
    }
    cf_kudu_tablet_free(t);
    cf_kudu_fs_free(fs);
}

/* A REDO whose array cell does not decode: the scan fails as damage naming the
 * column, never prints a wrong array. */
static void test_cli_kudu_arrays__bad_delta_cell(void **state)
{
    (void)state;
    bad_redo = true;
    char *root = array_root();
    bad_redo = false;
    run r;
    CLI(&r, "kudu", "tablet", "scan", "--json", "--fs-wal-dir", root, TABLET);
    cli_err(&r, 1, "column s");
    /* projected away, the rows read */
    CLI(&r, "kudu", "tablet", "scan", "--json", "--columns", "k,a", "--fs-wal-dir", root, TABLET);
    cli_rc(&r, 0);
}

/* A larger rowset (arrays across many CFile blocks: row k holds k % 5 elements
 * k, k+1, ..., every third one NULL, in a as INT32 and in s as their decimal
 * text; every seventh row a NULL cell), scanned with the library at several
 * batch sizes: every cell as written. */
static void test_cli_kudu_arrays__many_rows(void **state)
{
    (void)state;
    enum { N = 20000 };
    char *root = cli_dir_path("root");
    static const char *const all[] = {"00000000000000000000000000000001"};
    cli_kudu_root(root, all);
    cf_error e = {0};
    cf_schema *sch = NULL;
    CF_ASSERT_OK(cf_schema_parse(&sch, "k INT64 KEY, a INT32[] NULL, s STRING[] NULL", &e), &e);
    static int64_t keys[N];
    static int32_t elems[N * 4];
    static uint8_t enn[N * 4 / 8 + 1], cnn[N / 8 + 1];
    static uint32_t counts[N];
    static char text[N * 4][12];
    static cf_slice strs[N * 4];
    size_t ne = 0;
    for (int64_t k = 0; k < N; k++) {
        keys[k] = k;
        bool null = k % 7 == 0;
        cnn[k / 8] |= (uint8_t)(!null << (k % 8));
        counts[k] = null ? 0 : (uint32_t)(k % 5);
        for (uint32_t i = 0; i < counts[k]; i++, ne++) {
            elems[ne] = (int32_t)(k + i);
            int tl = snprintf(text[ne], sizeof text[ne], "%d", elems[ne]);
            strs[ne] = (cf_slice){(const uint8_t *)text[ne], (size_t)tl};
            enn[ne / 8] |= (uint8_t)((ne % 3 != 0) << (ne % 8));
        }
    }
    char data[400];
    snprintf(data, sizeof data, "%s/data", root);
    cf_kudu_lbm_writer *lw;
    CF_ASSERT_OK(cf_kudu_lbm_writer_create(&lw, data, all[0], 4096, &e), &e);
    cf_io *io[3];
    cf_writer *w[3];
    static const cf_type types[3] = {CF_TYPE_INT64, CF_TYPE_INT32, CF_TYPE_STRING};
    for (int c = 0; c < 3; c++) {
        cf_writer_options o;
        cf_writer_options_init(&o, types[c]);
        o.is_array = c > 0;
        o.nullable = c > 0;
        o.write_validx = c == 0;
        o.block_size = 1024; /* many blocks */
        CF_ASSERT_OK(cf_io_create_mem(&io[c], &e), &e);
        CF_ASSERT_OK(cf_writer_create(&w[c], io[c], &o, &e), &e);
    }
    CF_ASSERT_OK(cf_writer_append(w[0], keys, NULL, N, &e), &e);
    CF_ASSERT_OK(cf_writer_append_arrays(w[1], elems, enn, counts, cnn, N, &e), &e);
    CF_ASSERT_OK(cf_writer_append_arrays(w[2], strs, enn, counts, cnn, N, &e), &e);
    uint64_t blocks[3] = {1, 2, 3};
    for (int c = 0; c < 3; c++) {
        CF_ASSERT_OK(cf_writer_finish(w[c], &e), &e);
        cf_writer_free(w[c]);
        put_block(lw, io[c], blocks[c]);
    }
    cf_kudu_lbm_writer_free(lw);
    static const uint32_t cids[3] = {0, 1, 2};
    cf_kudu_rowset meta = {.id = 0, .ncolumns = 3, .column_blocks = blocks, .column_ids = cids};
    cf_kudu_superblock_spec sp;
    kfs_superblock_spec(&sp, TABLET, "many", sch, cids);
    sp.last_durable_mrs_id = 1;
    sp.rowsets = &meta;
    sp.nrowsets = 1;
    kfs_superblock_write(root, &sp);
    cf_schema_free(sch);

    cf_kudu_fs *fs;
    cf_kudu_tablet *t;
    kfs_open_tablet(root, TABLET, &fs, &t);
    static const size_t batches[] = {1024, 7, 1};
    for (size_t bi = 0; bi < 3; bi++) {
        cf_kudu_scan_options so;
        cf_kudu_scan_options_init(&so);
        so.batch_rows = batches[bi];
        so.no_wal = true;
        cf_kudu_scanner *sc;
        CF_ASSERT_OK(cf_kudu_scanner_create(&sc, t, &so, &e), &e);
        int64_t k = 0;
        size_t want_e = 0;
        for (;;) {
            cf_row_batch b;
            CF_ASSERT_OK(cf_kudu_scanner_next(sc, &b, &e), &e);
            if (b.count == 0)
                break;
            const cf_batch *a = &b.cols[1];
            for (size_t i = 0; i < b.count; i++, k++) {
                assert_int_equal(((const int64_t *)b.cols[0].values)[i], k);
                bool present = (a->nonnull[i / 8] >> (i % 8)) & 1;
                assert_int_equal(present, k % 7 != 0);
                uint32_t n = a->elem_offsets[i + 1] - a->elem_offsets[i];
                assert_int_equal(n, counts[k]);
                for (uint32_t x = 0; x < n; x++, want_e++) {
                    uint32_t at = a->elem_offsets[i] + x;
                    bool ep =
                        a->elem_nonnull == NULL || ((a->elem_nonnull[at / 8] >> (at % 8)) & 1);
                    assert_int_equal(ep, want_e % 3 != 0);
                    if (ep)
                        assert_int_equal(((const int32_t *)a->values)[at], k + x);
                    const cf_batch *sb = &b.cols[2];
                    uint32_t sat = sb->elem_offsets[i] + x;
                    assert_int_equal(sb->elem_offsets[i + 1] - sb->elem_offsets[i], n);
                    if (ep) {
                        const cf_slice *sv = &((const cf_slice *)sb->values)[sat];
                        char want[12];
                        int wl = snprintf(want, sizeof want, "%d", (int)(k + x));
                        assert_int_equal(sv->len, (size_t)wl);
                        assert_memory_equal(sv->data, want, (size_t)wl);
                    }
                }
            }
        }
        assert_int_equal(k, N);
        assert_int_equal(want_e, ne);
        cf_kudu_scanner_free(sc);
    }
    cf_kudu_tablet_free(t);
    cf_kudu_fs_free(fs);
}

/* An array column added after the rowset was written: the rowset's rows read its
 * read default, a replayed INSERT that leaves it out takes its write default. */
static void test_cli_kudu_arrays__defaults(void **state)
{
    (void)state;
    with_d = true;
    char *root = array_root();
    with_d = false;
    run r;
    CLI(&r, "kudu", "tablet", "scan", "--json", "--columns", "k,d", "--fs-wal-dir", root, TABLET);
    EXPECT_RC(r, 0);
    expect_lines(&r, "{\"k\":1,\"d\":[7]}\n{\"k\":2,\"d\":[7]}\n{\"k\":3,\"d\":[7]}\n"
                     "{\"k\":4,\"d\":[7]}\n{\"k\":5,\"d\":[7]}\n{\"k\":6,\"d\":[8]}\n");
    done(&r);
    CLI(&r, "kudu", "wal", "dump", "--json", "--fs-wal-dir", root, TABLET);
    cli_out(&r, 0, "\"d\":[8]");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cli_kudu_arrays__wal_dump, cli_dir_setup,
                                        cli_dir_teardown),
        cmocka_unit_test_setup_teardown(test_cli_kudu_arrays__scan, cli_dir_setup,
                                        cli_dir_teardown),
        cmocka_unit_test_setup_teardown(test_cli_kudu_arrays__convert, cli_dir_setup,
                                        cli_dir_teardown),
        cmocka_unit_test_setup_teardown(test_cli_kudu_arrays__arrow, cli_dir_setup,
                                        cli_dir_teardown),
        cmocka_unit_test_setup_teardown(test_cli_kudu_arrays__bad_delta_cell, cli_dir_setup,
                                        cli_dir_teardown),
        cmocka_unit_test_setup_teardown(test_cli_kudu_arrays__defaults, cli_dir_setup,
                                        cli_dir_teardown),
        cmocka_unit_test_setup_teardown(test_cli_kudu_arrays__many_rows, cli_dir_setup,
                                        cli_dir_teardown),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

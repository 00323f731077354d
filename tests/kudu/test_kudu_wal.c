/* cf-needs: tables */
/* Kudu's write-ahead log (src/kudu/wal_segment.c, wal.c, wal_writer.c):
 * - every layout of ../shared/kudu-fs reads back as Kudu's ReadableLogSegment read
 *   it (expected/wal.json: segments, footers or none, torn tails, headers, footers
 *   and every entry as protobuf JSON) and its row ops decode as Kudu's
 *   RowOperationsPBDecoder decoded them (expected/wal_ops.json);
 * - the writer re-encodes the layouts' batches to Kudu's own bytes (LZ4 by liblz4);
 * - segments of every shape built by the writer get Kudu's verdicts: a footer, none,
 *   a zero tail, a cut at every byte of the last entry (torn), a bad CRC followed by
 *   valid entries (damage) or not (torn), damage in a closed segment, a cut header,
 *   every codec and both entry header versions. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "support_walgen.h"
#include "test_common.h"

#include <cfile/io.h>
#include <cfile/kudu.h>

#include "codec/compress.h"
#include "codec/crc32c.h"
#include "json.h"
#include "kudu/tablet.h"
#include "kudu/wal.h"
#include "kudu_tablet.pb-c.h"
#include "support_wal.h"
#include "util/buf.h"
#include "support_fsroot.h"

/* A SchemaPB as the WAL reader converts it (tablet.h), without the ids. */
static cf_status kudu_test_schema(cf_schema **out, const Kudu__SchemaPB *pb, cf_error *err)
{
    uint32_t *ids = NULL;
    cf_status st = cf_kudu_schema_from_pb(out, &ids, pb, "schema", err);
    free(ids);
    return st;
}

static void parse_text(cf_json_doc *d, const char *text)
{
    char msg[256];
    if (cf_json_parse(d, text, strlen(text), msg, sizeof msg) != 0)
        fail_msg("not JSON (%s): %.200s", msg, text);
}

static void parse_file(cf_json_doc *d, const char *path)
{
    char msg[256];
    if (cf_json_parse_file(d, path, msg, sizeof msg) != 0)
        fail_msg("%s: %s", path, msg);
}

static void expect_json(const char *got, const cf_json *want, const char *what)
{
    cf_json_doc d;
    parse_text(&d, got);
    if (!kudu_json_equal(&d.root, want))
        fail_msg("%s differs from the expected JSON: %.300s", what, got);
    cf_json_doc_dispose(&d);
}

static const char *tablet_of(const char *layout, char *buf, size_t cap)
{
    char p[1024];
    kfs_layout_path(p, sizeof p, layout, "expected/fs.json");
    cf_json_doc d;
    parse_file(&d, p);
    const cf_json *t = cf_json_get(&d.root, "tablet_id");
    assert_non_null(t);
    snprintf(buf, cap, "%s", t->str);
    cf_json_doc_dispose(&d);
    return buf;
}

static cf_kudu_wal *open_layout(const char *layout)
{
    char wal[1024], id[128];
    kfs_layout_path(wal, sizeof wal, layout, "fs/wal");
    cf_kudu_wal *w = NULL;
    cf_error err = {0};
    CF_ASSERT_OK(kudu_wal_open_dir(&w, wal, tablet_of(layout, id, sizeof id), &err), &err);
    return w;
}

/* ---- the layouts ------------------------------------------------------------------------------
 */

static void test_layouts_match_wal_json(void **state)
{
    (void)state;
    for (size_t l = 0; l < KFS_NLAYOUTS; l++) {
        cf_kudu_wal *w = open_layout(kfs_layouts[l]);
        char p[1024];
        kfs_layout_path(p, sizeof p, kfs_layouts[l], "expected/wal.json");
        cf_json_doc want;
        parse_file(&want, p);
        assert_int_equal(cf_kudu_wal_segment_count(w), want.root.n);
        for (size_t s = 0; s < want.root.n; s++) {
            const cf_json *ws = &want.root.items[s];
            const cf_kudu_wal_segment *seg = cf_kudu_wal_segment_at(w, s);
            assert_string_equal(seg->file, cf_json_get(ws, "file")->str);
            assert_int_equal(seg->has_footer, cf_json_get(ws, "has_footer")->kind == CF_JSON_TRUE);
            assert_int_equal(seg->torn_tail, cf_json_get(ws, "torn_tail")->kind == CF_JSON_TRUE);
            assert_int_equal(seg->size, strtoull(cf_json_get(ws, "file_size")->str, NULL, 10));
            assert_int_equal(seg->first_entry_offset,
                             strtoull(cf_json_get(ws, "first_entry_offset")->str, NULL, 10));
            const cf_json *we = cf_json_get(ws, "entries");
            assert_int_equal(seg->nentries, we->n);
            cf_error err = {0};
            char *j;
            CF_ASSERT_OK(cf_kudu_wal_segment_json(w, s, false, false, &j, &err), &err);
            expect_json(j, cf_json_get(ws, "header"), "segment header");
            free(j);
            CF_ASSERT_OK(cf_kudu_wal_segment_json(w, s, true, false, &j, &err), &err);
            if (seg->has_footer)
                expect_json(j, cf_json_get(ws, "footer"), "segment footer");
            else
                assert_null(j);
            free(j);
            for (size_t i = 0; i < we->n; i++) {
                CF_ASSERT_OK(cf_kudu_wal_entry_json(w, s, i, false, &j, &err), &err);
                expect_json(j, &we->items[i], "entry");
                free(j);
            }
        }
        cf_json_doc_dispose(&want);
        cf_kudu_wal_free(w);
    }
}

/* An entry in wal_ops.json's form: type, op id, ops or results. */
static char *ops_form(const cf_kudu_wal_entry *e)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    cf_jw w;
    cf_jw_init(&w, f);
    cf_jw_obj_begin(&w);
    cf_jw_key(&w, "type");
    cf_jw_cstr(&w, e->type == CF_KUDU_ENTRY_REPLICATE ? "REPLICATE" : "COMMIT");
    cf_jw_key(&w, e->type == CF_KUDU_ENTRY_REPLICATE ? "op_id" : "committed_op_id");
    cf_jw_obj_begin(&w);
    cf_jw_key(&w, "term");
    cf_jw_int(&w, e->term);
    cf_jw_key(&w, "index");
    cf_jw_int(&w, e->index);
    cf_jw_obj_end(&w);
    if (e->type == CF_KUDU_ENTRY_REPLICATE) {
        cf_jw_key(&w, "timestamp");
        cf_jw_uint(&w, e->timestamp);
        cf_jw_key(&w, "ops");
        cf_jw_arr_begin(&w);
        for (size_t i = 0; i < e->nops; i++)
            wal_write_op(&w, e->schema, &e->ops[i]);
        cf_jw_arr_end(&w);
    } else {
        cf_jw_key(&w, "results");
        cf_jw_arr_begin(&w);
        for (size_t i = 0; i < e->nresults; i++) {
            const cf_kudu_op_result *r = &e->results[i];
            cf_jw_obj_begin(&w);
            if (r->failed) {
                cf_jw_key(&w, "failed");
                cf_jw_bool(&w, true);
            } else {
                cf_jw_key(&w, "mutated_stores");
                cf_jw_arr_begin(&w);
                for (size_t k = 0; k < r->nstores; k++) {
                    cf_jw_obj_begin(&w);
                    if (r->stores[k].mrs_id >= 0) {
                        cf_jw_key(&w, "mrs_id");
                        cf_jw_int(&w, r->stores[k].mrs_id);
                    } else {
                        cf_jw_key(&w, "rs_id");
                        cf_jw_int(&w, r->stores[k].rs_id);
                        cf_jw_key(&w, "dms_id");
                        cf_jw_int(&w, r->stores[k].dms_id);
                    }
                    cf_jw_obj_end(&w);
                }
                cf_jw_arr_end(&w);
            }
            cf_jw_obj_end(&w);
        }
        cf_jw_arr_end(&w);
    }
    cf_jw_obj_end(&w);
    fclose(f);
    return text;
}

static void test_layouts_ops_match_wal_ops(void **state)
{
    (void)state;
    for (size_t l = 0; l < KFS_NLAYOUTS; l++) {
        cf_kudu_wal *w = open_layout(kfs_layouts[l]);
        char p[1024];
        kfs_layout_path(p, sizeof p, kfs_layouts[l], "expected/wal_ops.json");
        cf_json_doc want;
        parse_file(&want, p);
        const cf_json *entries = cf_json_get(&want.root, "entries");
        size_t k = 0, nops = 0;
        for (size_t s = 0; s < cf_kudu_wal_segment_count(w); s++) {
            const cf_kudu_wal_segment *seg = cf_kudu_wal_segment_at(w, s);
            for (size_t i = 0; i < seg->nentries; i++, k++) {
                assert_true(k < entries->n);
                const cf_json *x = &entries->items[k];
                assert_string_equal(cf_json_get(x, "segment")->str, seg->file);
                const cf_kudu_wal_entry *e = cf_kudu_wal_entry_at(w, s, i);
                char *text = ops_form(e);
                cf_json_doc got;
                parse_text(&got, text);
                /* results: "failed" stands for expected's failed_status */
                for (size_t m = 0; m < got.root.n; m++) {
                    const char *key = got.root.members[m].key;
                    const cf_json *g = &got.root.members[m].value, *x2 = cf_json_get(x, key);
                    if (strcmp(key, "results") == 0) {
                        assert_int_equal(g->n, x2->n);
                        for (size_t r = 0; r < g->n; r++) {
                            bool failed = cf_json_get(&g->items[r], "failed") != NULL;
                            assert_int_equal(failed,
                                             cf_json_get(&x2->items[r], "failed_status") != NULL);
                            if (!failed && !kudu_json_equal(&g->items[r], &x2->items[r]))
                                fail_msg("%s entry %zu result %zu differs: %.300s", kfs_layouts[l],
                                         k, r, text);
                        }
                    } else if (x2 == NULL || !kudu_json_equal(g, x2)) {
                        fail_msg("%s entry %zu: %s differs: %.400s", kfs_layouts[l], k, key, text);
                    }
                }
                nops += e->nops;
                cf_json_doc_dispose(&got);
                free(text);
            }
        }
        assert_int_equal(k, entries->n);
        const cf_json *sum = cf_json_get(cf_json_get(&want.root, "summary"), "row_ops");
        assert_int_equal(nops, strtoull(sum->str, NULL, 10));
        /* the torn tail: where the last complete entry ends */
        const cf_kudu_wal_segment *last =
            cf_kudu_wal_segment_at(w, cf_kudu_wal_segment_count(w) - 1);
        bool torn = cf_json_get(&want.root, "torn_tail")->kind == CF_JSON_TRUE;
        assert_int_equal(last->torn_tail, torn);
        if (torn)
            assert_int_equal(
                last->end_offset,
                strtoull(cf_json_get(&want.root, "last_complete_entry_end_offset")->str, NULL, 10));
        cf_json_doc_dispose(&want);
        cf_kudu_wal_free(w);
    }
}

/* Re-encode every batch of every real segment with the writer: Kudu's bytes. */
static void test_writer_reproduces_layout_bytes(void **state)
{
    (void)state;
    size_t batches = 0, same = 0, segs_same = 0, segs = 0;
    for (size_t l = 0; l < KFS_NLAYOUTS; l++) {
        char wal[1024], id[128], dir[1200];
        kfs_layout_path(wal, sizeof wal, kfs_layouts[l], "fs/wal");
        snprintf(dir, sizeof dir, "%s/wals/%s", wal, tablet_of(kfs_layouts[l], id, sizeof id));
        DIR *d = opendir(dir);
        assert_non_null(d);
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            if (strncmp(de->d_name, "wal-", 4) != 0)
                continue;
            char path[1500];
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            cf_io *io;
            cf_error err = {0};
            CF_ASSERT_OK(cf_io_open_file(&io, path, &err), &err);
            kudu_wal_seg *s;
            CF_ASSERT_OK(kudu_wal_seg_read(&s, io, path, &err), &err);
            uint64_t size = io->ops->size(io);
            uint8_t *file = malloc(size);
            CF_ASSERT_OK(io->ops->read_at(io, 0, file, size, &err), &err);
            kudu_wal_writer w;
            CF_ASSERT_OK(kudu_wal_writer_begin(&w, s->header, &err), &err);
            assert_int_equal(w.first_entry_offset, s->first_entry_offset);
            for (size_t b = 0; b < s->nbatches; b++) {
                size_t before = w.out.len;
                CF_ASSERT_OK(kudu_wal_writer_batch(&w, s->batches[b].pb, &err), &err);
                batches++;
                size_t n = w.out.len - before;
                if (n == s->batches[b].end - s->batches[b].offset &&
                    memcmp(w.out.data + before, file + s->batches[b].offset, n) == 0)
                    same++;
            }
            if (s->has_footer)
                CF_ASSERT_OK(kudu_wal_writer_footer(&w, s->footer, &err), &err);
            segs++;
            if (w.out.len <= size && memcmp(w.out.data, file, w.out.len) == 0 &&
                (s->has_footer ? w.out.len == size : true))
                segs_same++;
            kudu_wal_writer_dispose(&w);
            free(file);
            kudu_wal_seg_free(s);
            cf_io_free(io);
        }
        closedir(d);
    }
    printf("# writer: %zu of %zu batches and %zu of %zu segments byte-identical\n", same, batches,
           segs_same, segs);
    assert_int_equal(same, batches);
    assert_int_equal(segs_same, segs);
}

/* ---- segments the writer builds ----------------------------------------------------------------
 */

static Kudu__ColumnSchemaPB col_id, col_name, col_v;
static Kudu__ColumnSchemaPB *cols[3];
static Kudu__SchemaPB schema_pb;
static cf_schema *schema;

static void setup_schema(void)
{
    Kudu__ColumnSchemaPB init = KUDU__COLUMN_SCHEMA_PB__INIT;
    col_id = col_name = col_v = init;
    col_id.name = "id";
    col_id.has_id = col_name.has_id = col_v.has_id = true;
    col_name.id = 1;
    col_v.id = 2;
    col_id.has_type = col_id.has_is_key = true;
    col_id.type = KUDU__DATA_TYPE__INT64;
    col_id.is_key = true;
    col_name.name = "name";
    col_name.has_type = col_name.has_is_nullable = true;
    col_name.type = KUDU__DATA_TYPE__STRING;
    col_name.is_nullable = true;
    col_v.name = "v";
    col_v.has_type = col_v.has_is_nullable = true;
    col_v.type = KUDU__DATA_TYPE__DOUBLE;
    col_v.is_nullable = true;
    cols[0] = &col_id;
    cols[1] = &col_name;
    cols[2] = &col_v;
    Kudu__SchemaPB s = KUDU__SCHEMA_PB__INIT;
    schema_pb = s;
    schema_pb.n_columns = 3;
    schema_pb.columns = cols;
    if (schema == NULL) {
        cf_error err = {0};
        CF_ASSERT_OK(kudu_test_schema(&schema, &schema_pb, &err), &err);
    }
}

/* Row ops of batch b: an INSERT, an UPDATE of v to NULL, a DELETE. */
static void batch_rows(cf_buf *rows, cf_buf *ind, int b)
{
    int64_t id = 100 + b;
    char name[32];
    snprintf(name, sizeof name, "row-%d", b);
    cf_slice sl = {(const uint8_t *)name, strlen(name)};
    double v = b * 1.5;
    const void *ins[3] = {&id, &sl, &v};
    bool all[3] = {true, true, true};
    kudu_rowops_encode(rows, ind, schema, CF_KUDU_OP_INSERT, all, ins);
    const void *upd[3] = {&id, NULL, NULL};
    bool uset[3] = {true, false, true};
    kudu_rowops_encode(rows, ind, schema, CF_KUDU_OP_UPDATE, uset, upd);
    bool dset[3] = {true, false, false};
    kudu_rowops_encode(rows, ind, schema, CF_KUDU_OP_DELETE, dset, upd);
}

typedef struct built {
    cf_buf bytes;
    size_t nbatches;
    uint64_t off[8], end[8];
    size_t footer_at; /* where the footer starts (0: none) */
} built;

/* A segment of n batches (each a REPLICATE WRITE_OP and the COMMIT of the one
 * before), the header's codec `codec`, v1 entry headers if `v1`, a footer if `footer`. */
static void build_open(built *out, walgen *g, int n, int codec, bool v1);

static void build(built *out, int n, int codec, bool v1, bool footer)
{
    walgen g;
    build_open(out, &g, n, codec, v1);
    uint64_t footer_at;
    walgen_close(&g, footer, &out->bytes, &footer_at);
    out->footer_at = (size_t)footer_at;
}

/* The same batches, g left open for more entries (walgen_close to end it). */
static void build_open(built *out, walgen *g, int n, int codec, bool v1)
{
    setup_schema();
    Kudu__Log__LogSegmentHeaderPB h = KUDU__LOG__LOG_SEGMENT_HEADER_PB__INIT;
    h.has_tablet_id = true;
    h.tablet_id.data = (uint8_t *)"0123456789abcdef0123456789abcdef";
    h.tablet_id.len = 32;
    h.has_sequence_number = true;
    h.sequence_number = 7;
    h.schema = &schema_pb;
    h.has_schema_version = true;
    if (codec != 0) {
        h.has_compression_codec = true;
        h.compression_codec = (Kudu__CompressionType)codec;
    }
    if (v1) {
        h.has_deprecated_major_version = true;
        h.deprecated_major_version = 1;
    }
    walgen_begin_header(g, &h, schema);
    memset(out, 0, sizeof *out);
    for (int b = 0; b < n; b++) {
        cf_buf rows, ind;
        cf_buf_init(&rows);
        cf_buf_init(&ind);
        batch_rows(&rows, &ind, b);
        walgen_batch_open(g);
        walgen_write_rows(g, 1, 10 + b, 1000 + (uint64_t)b, &rows, &ind, -1);
        walgen_commit_write(g, 1, 10 + b, WALGEN_MRS(3));
        walgen_batch_close(g, &out->off[b], &out->end[b]);
        cf_buf_dispose(&rows);
        cf_buf_dispose(&ind);
    }
    out->nbatches = (size_t)n;
}

static cf_status read_bytes(const uint8_t *p, size_t n, kudu_wal_seg **s, cf_error *err)
{
    cf_io *io;
    CF_ASSERT_OK(cf_io_open_mem(&io, p, n, err), err);
    cf_status st = kudu_wal_seg_read(s, io, "seg", err);
    cf_io_free(io);
    return st;
}

/* Read `n` bytes of b plus `zeros` zero bytes. */
static cf_status read_cut(const built *b, size_t n, size_t zeros, kudu_wal_seg **s, cf_error *err)
{
    uint8_t *p = calloc(1, n + zeros + 1);
    memcpy(p, b->bytes.data, n);
    cf_status st = read_bytes(p, n + zeros, s, err);
    free(p);
    return st;
}

static void test_every_codec_and_header_version(void **state)
{
    (void)state;
    const int codecs[] = {0, CF_COMP_NONE, CF_COMP_LZ4, CF_COMP_SNAPPY, CF_COMP_ZLIB};
    for (size_t c = 0; c < sizeof codecs / sizeof codecs[0]; c++)
        /* v1 entry headers (segments of Kudu before compression) have no
         * uncompressed length: only without a codec */
        for (int v1 = 0; v1 < (codecs[c] <= CF_COMP_NONE ? 2 : 1); v1++)
            for (int footer = 0; footer < 2; footer++) {
                built b;
                build(&b, 4, codecs[c], v1, footer);
                kudu_wal_seg *s;
                cf_error err = {0};
                CF_ASSERT_OK(read_bytes(b.bytes.data, b.bytes.len, &s, &err), &err);
                assert_int_equal(s->has_footer, footer);
                assert_false(s->torn_tail);
                assert_int_equal(s->nbatches, 4);
                assert_int_equal(s->nentries, 8);
                assert_int_equal(s->end_offset, b.end[3]);
                for (size_t i = 0; i < 4; i++)
                    assert_int_equal(s->batches[i].offset, b.off[i]);
                /* the row ops decode back to what was encoded */
                const Kudu__Log__LogEntryPB *e = s->batches[2].pb->entry[0];
                cf_arena a = {0};
                cf_kudu_row_op *ops;
                size_t nops;
                CF_ASSERT_OK(kudu_rowops_decode(&a, e->replicate->write_request->row_operations,
                                                NULL, &schema_pb, schema, NULL, &ops, &nops, &err),
                             &err);
                assert_int_equal(nops, 3);
                assert_int_equal(ops[0].type, CF_KUDU_OP_INSERT);
                assert_int_equal(*(const int64_t *)ops[0].values[0], 102);
                const cf_slice *nm = ops[0].values[1];
                assert_int_equal(nm->len, 5);
                assert_memory_equal(nm->data, "row-2", 5);
                assert_true(*(const double *)ops[0].values[2] == 3.0);
                assert_int_equal(ops[1].type, CF_KUDU_OP_UPDATE);
                assert_true(ops[1].set[0] && !ops[1].set[1] && ops[1].set[2]);
                assert_null(ops[1].values[2]);
                assert_int_equal(ops[2].type, CF_KUDU_OP_DELETE);
                assert_true(ops[2].set[0] && !ops[2].set[1] && !ops[2].set[2]);
                cf_arena_dispose(&a);
                kudu_wal_seg_free(s);
                cf_buf_dispose(&b.bytes);
            }
}

/* No footer: cut anywhere in the last batch, with or without a zero tail, the
 * batches before it come back and the tail is torn; cut exactly at its end, all
 * of them and nothing torn (unless zeros follow). */
static void test_torn_tail_at_every_byte(void **state)
{
    (void)state;
    built b;
    build(&b, 3, CF_COMP_LZ4, false, false);
    for (size_t zeros = 0; zeros <= 64; zeros += 64)
        for (size_t cut = b.off[2]; cut <= b.end[2]; cut++) {
            kudu_wal_seg *s;
            cf_error err = {0};
            CF_ASSERT_OK(read_cut(&b, cut, zeros, &s, &err), &err);
            bool whole = cut == b.end[2];
            assert_int_equal(s->nbatches, whole ? 3 : 2);
            bool boundary = whole || cut == b.off[2];
            assert_int_equal(s->torn_tail, !boundary || zeros > 0);
            assert_int_equal(s->end_offset, whole ? b.end[2] : b.off[2]);
            kudu_wal_seg_free(s);
        }
    cf_buf_dispose(&b.bytes);
}

static void flip(built *b, size_t at)
{
    b->bytes.data[at] ^= 0x40;
}

static void test_bad_crc_torn_or_damage(void **state)
{
    (void)state;
    for (int where = 0; where < 3; where++) {
        built b;
        build(&b, 3, CF_COMP_NONE, false, false);
        /* a byte of batch `where`'s body: damage unless it is the last batch */
        flip(&b, b.off[where] + KUDU_WAL_ENTRY_HEADER_V2 + 3);
        kudu_wal_seg *s = NULL;
        cf_error err = {0};
        cf_status st = read_bytes(b.bytes.data, b.bytes.len, &s, &err);
        if (where < 2) {
            assert_int_equal(st, CF_ECORRUPT);
            assert_non_null(strstr(err.msg, "seg at offset"));
        } else {
            CF_ASSERT_OK(st, &err);
            assert_true(s->torn_tail);
            assert_int_equal(s->nbatches, 2);
            kudu_wal_seg_free(s);
        }
        /* the same in a header byte */
        flip(&b, b.off[where] + KUDU_WAL_ENTRY_HEADER_V2 + 3);
        flip(&b, b.off[where] + 1);
        st = read_bytes(b.bytes.data, b.bytes.len, &s, &err);
        if (where < 2) {
            assert_int_equal(st, CF_ECORRUPT);
        } else {
            CF_ASSERT_OK(st, &err);
            assert_true(s->torn_tail);
            kudu_wal_seg_free(s);
        }
        cf_buf_dispose(&b.bytes);
    }
}

/* A segment cut at `cut` bytes of b, then `zeros` zero bytes, then `tail` (n bytes),
 * then `zeros2` zero bytes. */
static cf_status read_spliced(const built *b, size_t cut, size_t zeros, const uint8_t *tail,
                              size_t n, size_t zeros2, kudu_wal_seg **s, cf_error *err)
{
    size_t len = cut + zeros + n + zeros2;
    uint8_t *p = calloc(1, len + 1);
    assert_non_null(p);
    memcpy(p, b->bytes.data, cut);
    if (n > 0)
        memcpy(p + cut + zeros, tail, n);
    cf_status st = read_bytes(p, len, s, err);
    free(p);
    return st;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A segment preallocated with a long run of zeros (Kudu preallocates its segments):
 * after whole batches, after a batch cut in its body, and with no batch at all, the
 * zeros are a torn tail (preallocated space) and the batches before them come back. */
static void test_long_zero_tail(void **state)
{
    (void)state;
    built b;
    build(&b, 3, CF_COMP_NONE, false, false);
    size_t mid = b.off[2] + (b.end[2] - b.off[2]) / 2;
    const struct {
        size_t cut, nbatches;
        uint64_t end;
    } cases[] = {{b.end[2], 3, b.end[2]}, {mid, 2, b.off[2]}, {b.off[0], 0, b.off[0]}};
    for (size_t zeros = 1u << 20; zeros <= (3u << 20) + 7; zeros += (1u << 20) + 7)
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            kudu_wal_seg *s = NULL;
            cf_error err = {0};
            double t0 = now_ms();
            CF_ASSERT_OK(read_cut(&b, cases[k].cut, zeros, &s, &err), &err);
            if (getenv("CF_TEST_WAL_TIMES") != NULL)
                fprintf(stderr, "zero tail %zu after %zu bytes: %.3f ms\n", zeros, cases[k].cut,
                        now_ms() - t0);
            assert_int_equal(s->nbatches, cases[k].nbatches);
            assert_true(s->torn_tail);
            assert_int_equal(s->end_offset, cases[k].end);
            kudu_wal_seg_free(s);
        }
    cf_buf_dispose(&b.bytes);
}

/* A v2 entry header for `len` body bytes whose own CRC is right (the body need not
 * match: Kudu's forward scan looks at headers only). */
static void craft_header(uint8_t h[KUDU_WAL_ENTRY_HEADER_V2], uint32_t len)
{
    memset(h, 0, KUDU_WAL_ENTRY_HEADER_V2);
    for (int i = 0; i < 4; i++) {
        h[i] = (uint8_t)(len >> (8 * i));
        h[4 + i] = (uint8_t)(len >> (8 * i));
        h[8 + i] = (uint8_t)(0x5au + i);
    }
    uint32_t crc = cf_crc32c(h, 12);
    for (int i = 0; i < 4; i++)
        h[12 + i] = (uint8_t)(crc >> (8 * i));
}

/* After a zero header (preallocated space), a valid entry header anywhere later is
 * damage, however many zeros hide it: a real batch, a header whose first bytes are
 * zeros (a length that is a multiple of 256), a header of lengths 0 with a right
 * CRC (Kudu's scan checks the CRC only, DecodeEntryHeader in log_util.cc), before,
 * at and across the scan's 1 MiB chunk boundaries. As in Kudu, a header the scan
 * does not reach is not seen: one starting less than a header after the bad one's
 * start, and one ending at the file's end (ScanForValidEntryHeaders looks at
 * positions p with p + header < size). */
static void test_entry_after_zeros_is_damage(void **state)
{
    (void)state;
    built b;
    build(&b, 2, CF_COMP_NONE, false, false);
    const size_t hlen = KUDU_WAL_ENTRY_HEADER_V2, chunk = (size_t)1 << 20;
    uint8_t h256[KUDU_WAL_ENTRY_HEADER_V2], h0[KUDU_WAL_ENTRY_HEADER_V2];
    craft_header(h256, 256);
    craft_header(h0, 0);
    const struct {
        const uint8_t *p;
        size_t n;
    } tails[] = {{b.bytes.data + b.off[1], b.end[1] - b.off[1]}, {h256, hlen}, {h0, hlen}};
    const size_t gaps[] = {16,         17,         31,         32,         4096,
                           chunk - 40, chunk - 33, chunk - 32, chunk - 31, chunk - 17,
                           chunk - 16, chunk - 1,  chunk,      chunk + 1,  2 * chunk - 48,
                           2 * chunk};
    for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++)
        for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++)
            for (size_t after = 1; after <= 64; after += 63) {
                kudu_wal_seg *s = NULL;
                cf_error err = {0};
                cf_status st =
                    read_spliced(&b, b.end[0], gaps[g], tails[t].p, tails[t].n, after, &s, &err);
                if (st != CF_ECORRUPT)
                    fail_msg("tail %zu after %zu zeros (+%zu): status %d", t, gaps[g], after,
                             (int)st);
                assert_non_null(strstr(err.msg, "valid entries follow a bad one"));
            }
    /* Fewer zeros than a header: the scan starts past the hidden header. */
    for (size_t gap = 1; gap < hlen; gap++) {
        kudu_wal_seg *s = NULL;
        cf_error err = {0};
        CF_ASSERT_OK(read_spliced(&b, b.end[0], gap, h0, hlen, 64, &s, &err), &err);
        assert_true(s->torn_tail);
        assert_int_equal(s->nbatches, 1);
        kudu_wal_seg_free(s);
    }
    for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
        kudu_wal_seg *s = NULL;
        cf_error err = {0};
        CF_ASSERT_OK(read_spliced(&b, b.end[0], gaps[g], h0, hlen, 0, &s, &err), &err);
        assert_true(s->torn_tail);
        kudu_wal_seg_free(s);
    }
    cf_buf_dispose(&b.bytes);
}

/* With a footer every bad byte of an entry is damage. */
static void test_closed_segment_damage(void **state)
{
    (void)state;
    built b;
    build(&b, 3, CF_COMP_LZ4, false, true);
    for (size_t at = b.off[0]; at < b.footer_at; at++) {
        flip(&b, at);
        kudu_wal_seg *s = NULL;
        cf_error err = {0};
        cf_status st = read_bytes(b.bytes.data, b.bytes.len, &s, &err);
        if (st == CF_OK) {
            /* a flip protobuf and CRC cannot see does not exist: the CRC covers all */
            fail_msg("flipped byte %zu read cleanly", at);
        }
        assert_int_equal(st, CF_ECORRUPT);
        flip(&b, at);
    }
    /* the footer's count must match */
    kudu_wal_seg *s = NULL;
    cf_error err = {0};
    built c;
    build(&c, 2, CF_COMP_NONE, false, false);
    Kudu__Log__LogSegmentFooterPB f = KUDU__LOG__LOG_SEGMENT_FOOTER_PB__INIT;
    f.has_num_entries = true;
    f.num_entries = 5;
    kudu_wal_writer w = {.out = c.bytes};
    CF_ASSERT_OK(kudu_wal_writer_footer(&w, &f, &err), &err);
    assert_int_equal(read_bytes(w.out.data, w.out.len, &s, &err), CF_ECORRUPT);
    assert_non_null(strstr(err.msg, "footer says 5"));
    cf_buf_dispose(&w.out);
    cf_buf_dispose(&b.bytes);
}

/* A cut inside the magic, header length or header is damage; 12 zero bytes are a
 * segment never written (Kudu skips it). */
static void test_truncated_header(void **state)
{
    (void)state;
    built b;
    build(&b, 1, CF_COMP_NONE, false, false);
    for (size_t cut = 0; cut < b.off[0]; cut++) {
        kudu_wal_seg *s = NULL;
        cf_error err = {0};
        assert_int_equal(read_cut(&b, cut, 0, &s, &err), CF_ECORRUPT);
        assert_non_null(strstr(err.msg, "seg at offset"));
    }
    uint8_t zeros[4096] = {0};
    kudu_wal_seg *s = NULL;
    cf_error err = {0};
    CF_ASSERT_OK(read_bytes(zeros, sizeof zeros, &s, &err), &err);
    assert_true(s->uninitialized);
    kudu_wal_seg_free(s);
    /* a header length past 8 MiB */
    b.bytes.data[11] = 0x7f;
    assert_int_equal(read_bytes(b.bytes.data, b.bytes.len, &s, &err), CF_ECORRUPT);
    cf_buf_dispose(&b.bytes);
}

/* A field Kudu's protos require is missing: Kudu's parse fails, so does ours. */
static void test_missing_required_field(void **state)
{
    (void)state;
    built b;
    walgen g;
    build_open(&b, &g, 1, CF_COMP_NONE, false);
    walgen_commit(&g, 1, -1, KUDU__LOG__OPERATION_TYPE__NO_OP, false); /* no index */
    walgen_close(&g, true, &b.bytes, NULL);                            /* num_entries 3 */
    kudu_wal_seg *s = NULL;
    cf_error err = {0};
    assert_int_equal(read_bytes(b.bytes.data, b.bytes.len, &s, &err), CF_ECORRUPT);
    assert_non_null(strstr(err.msg, "required field OpId.index"));
    cf_buf_dispose(&b.bytes);
}

/* ---- row operations
 * ------------------------------------------------------------------------------ */

static void test_rowops_cut_and_bad_slices(void **state)
{
    (void)state;
    setup_schema();
    cf_buf rows, ind;
    cf_buf_init(&rows);
    cf_buf_init(&ind);
    for (int b = 0; b < 3; b++)
        batch_rows(&rows, &ind, b);
    Kudu__RowOperationsPB ro = walgen_rowops(&rows, &ind);
    /* every cut but the ends of ops is refused, never read past */
    assert_int_equal(walgen_rowops_cuts(&ro, &schema_pb, schema), 1 + 9); /* empty, 9 ops */
    cf_arena a = {0};
    /* an indirect slice past indirect_data */
    ro.indirect_data.len = ind.len - 1;
    cf_kudu_row_op *ops;
    size_t n;
    cf_error err = {0};
    assert_int_equal(kudu_rowops_decode(&a, &ro, NULL, &schema_pb, schema, NULL, &ops, &n, &err),
                     CF_ECORRUPT);
    assert_non_null(strstr(err.msg, "indirect"));
    /* an unknown op type */
    ro.indirect_data.len = ind.len;
    rows.data[0] = 42;
    assert_int_equal(kudu_rowops_decode(&a, &ro, NULL, &schema_pb, schema, NULL, &ops, &n, &err),
                     CF_ECORRUPT);
    cf_arena_dispose(&a);
    cf_buf_dispose(&rows);
    cf_buf_dispose(&ind);
}

/* A client schema in another order than the tablet's: mapped by name. */
static void test_rowops_client_schema(void **state)
{
    (void)state;
    setup_schema();
    Kudu__ColumnSchemaPB *ccols[3] = {&col_id, &col_v, &col_name};
    Kudu__SchemaPB client = KUDU__SCHEMA_PB__INIT;
    client.n_columns = 3;
    client.columns = ccols;
    cf_column cc[3] = {{.name = "id", .type = CF_TYPE_INT64, .is_key = true},
                       {.name = "v", .type = CF_TYPE_DOUBLE, .nullable = true},
                       {.name = "name", .type = CF_TYPE_STRING, .nullable = true}};
    cf_schema *cs;
    cf_error err = {0};
    CF_ASSERT_OK(cf_schema_create(&cs, cc, 3, &err), &err);
    int64_t id = 5;
    double v = 2.5;
    cf_slice nm = {(const uint8_t *)"abc", 3};
    const void *vals[3] = {&id, &v, &nm};
    bool set[3] = {true, true, true};
    cf_buf rows, ind;
    cf_buf_init(&rows);
    cf_buf_init(&ind);
    kudu_rowops_encode(&rows, &ind, cs, CF_KUDU_OP_UPSERT, set, vals);
    Kudu__RowOperationsPB ro = walgen_rowops(&rows, &ind);
    cf_arena a = {0};
    cf_kudu_row_op *ops;
    size_t n;
    CF_ASSERT_OK(kudu_rowops_decode(&a, &ro, &client, &schema_pb, schema, NULL, &ops, &n, &err),
                 &err);
    assert_int_equal(n, 1);
    assert_int_equal(ops[0].type, CF_KUDU_OP_UPSERT);
    assert_true(*(const double *)ops[0].values[2] == 2.5);
    assert_int_equal(((const cf_slice *)ops[0].values[1])->len, 3);
    cf_arena_dispose(&a);
    cf_buf_dispose(&rows);
    cf_buf_dispose(&ind);
    cf_schema_free(cs);
}

/* An INSERT without the auto-incrementing column gets the request's counter + 1,
 * then + 2 ...; an UPSERT that gives a larger value moves the counter on. */
static void test_rowops_auto_incrementing(void **state)
{
    (void)state;
    Kudu__ColumnSchemaPB k = KUDU__COLUMN_SCHEMA_PB__INIT, ai = KUDU__COLUMN_SCHEMA_PB__INIT,
                         v = KUDU__COLUMN_SCHEMA_PB__INIT;
    k.name = "k";
    k.has_id = k.has_type = k.has_is_key = true;
    k.type = KUDU__DATA_TYPE__INT32;
    k.is_key = true;
    ai.name = "auto_incrementing_id";
    ai.has_id = ai.has_type = ai.has_is_key = ai.has_is_auto_incrementing = true;
    ai.id = 1;
    ai.type = KUDU__DATA_TYPE__INT64;
    ai.is_key = ai.is_auto_incrementing = true;
    v.name = "v";
    v.has_id = v.has_type = v.has_is_nullable = true;
    v.id = 2;
    v.type = KUDU__DATA_TYPE__INT32;
    v.is_nullable = true;
    Kudu__ColumnSchemaPB *cs[3] = {&k, &ai, &v};
    Kudu__SchemaPB pb = KUDU__SCHEMA_PB__INIT;
    pb.n_columns = 3;
    pb.columns = cs;
    cf_schema *sch;
    cf_error err = {0};
    CF_ASSERT_OK(kudu_test_schema(&sch, &pb, &err), &err);
    cf_buf rows, ind;
    cf_buf_init(&rows);
    cf_buf_init(&ind);
    int32_t key = 1, val = 7;
    int64_t given = 100;
    const void *ins[3] = {&key, NULL, &val};
    bool iset[3] = {true, false, true};
    kudu_rowops_encode(&rows, &ind, sch, CF_KUDU_OP_INSERT, iset, ins);
    kudu_rowops_encode(&rows, &ind, sch, CF_KUDU_OP_INSERT, iset, ins);
    const void *ups[3] = {&key, &given, &val};
    bool uset[3] = {true, true, true};
    kudu_rowops_encode(&rows, &ind, sch, CF_KUDU_OP_UPSERT, uset, ups);
    kudu_rowops_encode(&rows, &ind, sch, CF_KUDU_OP_INSERT, iset, ins);
    Kudu__RowOperationsPB ro = KUDU__ROW_OPERATIONS_PB__INIT;
    ro.has_rows = true;
    ro.rows.data = rows.data;
    ro.rows.len = rows.len;
    cf_arena a = {0};
    cf_kudu_row_op *ops;
    size_t n;
    int64_t counter = 41;
    CF_ASSERT_OK(kudu_rowops_decode(&a, &ro, NULL, &pb, sch, &counter, &ops, &n, &err), &err);
    assert_int_equal(n, 4);
    assert_int_equal(*(const int64_t *)ops[0].values[1], 42);
    assert_int_equal(*(const int64_t *)ops[1].values[1], 43);
    assert_int_equal(*(const int64_t *)ops[2].values[1], 100);
    assert_int_equal(*(const int64_t *)ops[3].values[1], 101);
    /* no counter in the request: the INSERT failed in Kudu; the column stays unset */
    CF_ASSERT_OK(kudu_rowops_decode(&a, &ro, NULL, &pb, sch, NULL, &ops, &n, &err), &err);
    assert_false(ops[0].set[1]);
    cf_arena_dispose(&a);
    cf_buf_dispose(&rows);
    cf_buf_dispose(&ind);
    cf_schema_free(sch);
}

static void test_bad_tablet_ids(void **state)
{
    (void)state;
    const char *bad[] = {"", ".", "..", "a/b", "../x", "x y"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cf_kudu_wal *w = NULL;
        cf_error err = {0};
        assert_int_equal(kudu_wal_open_dir(&w, "/nonexistent", bad[i], &err), CF_EINVAL);
        assert_null(w);
    }
    cf_kudu_wal *w = NULL;
    cf_error err = {0};
    assert_int_equal(kudu_wal_open_dir(&w, "/nonexistent", "abc", &err), CF_ENOTFOUND);
}

static int teardown(void **state)
{
    (void)state;
    cf_schema_free(schema);
    schema = NULL;
    return 0;
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layouts_match_wal_json),
        cmocka_unit_test(test_layouts_ops_match_wal_ops),
        cmocka_unit_test(test_writer_reproduces_layout_bytes),
        cmocka_unit_test(test_every_codec_and_header_version),
        cmocka_unit_test(test_torn_tail_at_every_byte),
        cmocka_unit_test(test_bad_crc_torn_or_damage),
        cmocka_unit_test(test_long_zero_tail),
        cmocka_unit_test(test_entry_after_zeros_is_damage),
        cmocka_unit_test(test_closed_segment_damage),
        cmocka_unit_test(test_truncated_header),
        cmocka_unit_test(test_missing_required_field),
        cmocka_unit_test(test_rowops_cut_and_bad_slices),
        cmocka_unit_test(test_rowops_client_schema),
        cmocka_unit_test(test_rowops_auto_incrementing),
        cmocka_unit_test(test_bad_tablet_ids),
    };
    int rc = CF_RUN_TESTS(argc, argv, tests);
    teardown(NULL);
    return rc;
}

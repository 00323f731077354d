/* HFile inspection (src/hfile/inspect.c): FileInfo values decoded by key
 * against every "decoded" value of shared/hfile/<name>.expected.json plus the
 * forms no real file here has (protobuf TIMERANGE, compaction events, values of
 * the wrong width); the index walk against the reader's flattened index and
 * the expected index block counts; Bloom probes of every row; block type names. */
#include "test_common.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/hfile.h>
#include <cfile/io.h>

#include "json.h"
#include "support_hfile.h"

static cf_slice S(const char *s)
{
    return (cf_slice){(const uint8_t *)s, strlen(s)};
}

static cf_hfile *open_written(cf_io **io, uint8_t **bytes)
{
    cf_error err = {0};
    cf_io *w;
    CF_ASSERT_OK(cf_io_create_mem(&w, &err), &err);
    cf_hfile_writer_options o;
    cf_hfile_writer_options_init(&o);
    o.block_size = 64;
    o.index_block_size = 256;
    o.index_min_entries = 2;
    o.bloom_chunk_size = 64;
    cf_hfile_writer *wr;
    CF_ASSERT_OK(cf_hfile_writer_create(&wr, w, &o, &err), &err);
    char row[32];
    for (int i = 0; i < 400; i++) {
        cf_hfile_cell c;
        memset(&c, 0, sizeof(c));
        snprintf(row, sizeof(row), "row-%05d", i * 2);
        c.row = S(row);
        c.family = S("f");
        c.qualifier = S("q");
        c.timestamp = 1000 + i;
        c.type = CF_HFILE_PUT;
        c.value = S("some value bytes");
        CF_ASSERT_OK(cf_hfile_writer_append(wr, &c, &err), &err);
    }
    CF_ASSERT_OK(cf_hfile_writer_finish(wr, &err), &err);
    cf_hfile_writer_free(wr);
    cf_slice s = cf_io_mem_contents(w);
    *bytes = malloc(s.len);
    memcpy(*bytes, s.data, s.len);
    CF_ASSERT_OK(cf_io_open_mem(io, *bytes, s.len, &err), &err);
    cf_io_free(w);
    cf_hfile *h;
    CF_ASSERT_OK(cf_hfile_open(&h, *io, NULL, &err), &err);
    return h;
}

static void test_inspect__file_info_forms(void **state)
{
    (void)state;
    cf_io *io;
    uint8_t *bytes;
    cf_hfile *h = open_written(&io, &bytes);
    cf_hfile_fi_value d;
    /* Writable TIMERANGE, and HBase 0.9x's 32-byte zero-padded one. */
    uint8_t tr[32] = {0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 1, 0};
    cf_hfile_file_info_decode(h, S("TIMERANGE"), (cf_slice){tr, 16}, &d);
    assert_int_equal(d.kind, CF_HFILE_FI_TIMERANGE);
    assert_int_equal(d.tr_from, 5);
    assert_int_equal(d.tr_to, 256);
    assert_false(d.tr_protobuf);
    cf_hfile_file_info_decode(h, S("TIMERANGE"), (cf_slice){tr, 32}, &d);
    assert_int_equal(d.tr_extra, 16);
    /* HBase 2.0.0's protobuf form: PBUF, from = 1 (varint 300), to = 2 (varint 1<<40),
     * plus an unknown field that must be skipped. */
    const uint8_t pb[] = {'P',  'B',  'U',  'F',  0x08, 0xac, 0x02, 0x18,
                          0x07, 0x10, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20};
    cf_hfile_file_info_decode(h, S("TIMERANGE"), (cf_slice){pb, sizeof(pb)}, &d);
    assert_int_equal(d.kind, CF_HFILE_FI_TIMERANGE);
    assert_true(d.tr_protobuf);
    assert_int_equal(d.tr_from, 300);
    assert_int_equal(d.tr_to, (int64_t)1 << 40);
    cf_hfile_file_info_decode(h, S("TIMERANGE"), (cf_slice){pb, sizeof(pb) - 1}, &d);
    assert_int_equal(d.kind, CF_HFILE_FI_BYTES);
    assert_non_null(d.malformed);
    cf_hfile_file_info_decode(h, S("TIMERANGE"), (cf_slice){tr, 15}, &d);
    assert_int_equal(d.kind, CF_HFILE_FI_BYTES);
    /* Widths: a 4-byte MAX_SEQ_ID_KEY is not a long; ints are signed. */
    const uint8_t neg[8] = {0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 0};
    cf_hfile_file_info_decode(h, S("MAX_SEQ_ID_KEY"), (cf_slice){neg, 4}, &d);
    assert_int_equal(d.kind, CF_HFILE_FI_BYTES);
    assert_string_equal(d.malformed, "expected an 8-byte long");
    cf_hfile_file_info_decode(h, S("hfile.AVG_KEY_LEN"), (cf_slice){neg, 4}, &d);
    assert_int_equal(d.kind, CF_HFILE_FI_INT);
    assert_int_equal(d.num, -2);
    cf_hfile_file_info_decode(h, S("MAJOR_COMPACTION_KEY"), (cf_slice){(const uint8_t *)"\xff", 1},
                              &d);
    assert_int_equal(d.kind, CF_HFILE_FI_BOOL);
    assert_int_equal(d.num, 1);
    cf_hfile_file_info_decode(h, S("MAJOR_COMPACTION_KEY"), (cf_slice){neg, 2}, &d);
    assert_int_equal(d.kind, CF_HFILE_FI_BYTES);
    /* Unknown keys stay bytes without complaint; LASTKEY must parse as a key. */
    cf_hfile_file_info_decode(h, S("user.thing"), S("x"), &d);
    assert_int_equal(d.kind, CF_HFILE_FI_BYTES);
    assert_null(d.malformed);
    cf_hfile_file_info_decode(h, S("hfile.LASTKEY"), S("\x00\x09zz"), &d);
    assert_int_equal(d.kind, CF_HFILE_FI_BYTES);
    assert_non_null(d.malformed);
    const uint8_t key[] = {0, 1, 'r', 1, 'f', 'q', 0, 0, 0, 0, 0, 0, 0, 7, 4};
    cf_hfile_file_info_decode(h, S("hfile.LASTKEY"), (cf_slice){key, sizeof(key)}, &d);
    assert_int_equal(d.kind, CF_HFILE_FI_KEY);
    assert_int_equal(d.key.timestamp, 7);
    assert_int_equal(d.key.type, CF_HFILE_PUT);
    assert_memory_equal(d.key.qualifier.data, "q", 1);
    /* COMPACTION_EVENT_KEY: PBUF + two names; the bare "PBUF" of an empty tracker. */
    const uint8_t ce[] = {'P', 'B', 'U', 'F', 0x0a, 0x02, 'a', 'b', 0x0a, 0x01, 'c'};
    cf_hfile_file_info_decode(h, S("COMPACTION_EVENT_KEY"), (cf_slice){ce, sizeof(ce)}, &d);
    assert_int_equal(d.kind, CF_HFILE_FI_COMPACTION);
    assert_int_equal(d.compacted_files, 2);
    cf_slice name;
    assert_true(cf_hfile_compacted_file_at((cf_slice){ce, sizeof(ce)}, 1, &name));
    assert_int_equal(name.len, 1);
    assert_int_equal(name.data[0], 'c');
    assert_false(cf_hfile_compacted_file_at((cf_slice){ce, sizeof(ce)}, 2, &name));
    cf_hfile_file_info_decode(h, S("COMPACTION_EVENT_KEY"), S("PBUF"), &d);
    assert_int_equal(d.kind, CF_HFILE_FI_COMPACTION);
    assert_int_equal(d.compacted_files, 0);
    cf_hfile_file_info_decode(h, S("COMPACTION_EVENT_KEY"), (cf_slice){ce, sizeof(ce) - 1}, &d);
    assert_int_equal(d.kind, CF_HFILE_FI_BYTES);
    cf_hfile_free(h);
    cf_io_free(io);
    free(bytes);
}

typedef struct walk {
    const cf_hfile *h;
    uint64_t data_refs, leaf, inter, root;
    bool mismatch;
} walk;

static bool on_index(void *ctx, const cf_hfile_index_block *b, const cf_hfile_block_ref *e,
                     size_t n)
{
    walk *w = ctx;
    if (b->level == 0)
        w->root++;
    else if (strcmp(b->kind, "leaf") == 0)
        w->leaf++;
    else
        w->inter++;
    if (b->level + 1 != b->levels)
        return true;
    for (size_t i = 0; i < n; i++) {
        cf_hfile_block_ref r;
        assert_true(cf_hfile_data_block_at(w->h, w->data_refs++, &r));
        if (r.offset != e[i].offset || r.on_disk_size != e[i].on_disk_size ||
            r.key.len != e[i].key.len || memcmp(r.key.data, e[i].key.data, r.key.len) != 0)
            w->mismatch = true;
    }
    return true;
}

static void test_inspect__multilevel_index_walk(void **state)
{
    (void)state;
    cf_io *io;
    uint8_t *bytes;
    cf_hfile *h = open_written(&io, &bytes);
    const cf_hfile_info *in = cf_hfile_get_info(h);
    assert_true(in->index_levels >= 2);
    walk w = {h, 0, 0, 0, 0, false};
    cf_error err = {0};
    CF_ASSERT_OK(cf_hfile_index_walk(h, on_index, &w, &err), &err);
    assert_false(w.mismatch);
    assert_int_equal(w.data_refs, in->num_data_blocks);
    assert_int_equal(w.root, 1);
    assert_int_equal(w.leaf, in->leaf_index_blocks);
    assert_int_equal(w.inter, in->intermediate_index_blocks);
    /* Bloom: every written row may be present; the odd rows between them mostly not,
     * and a row before every chunk is absent without a probe. */
    char row[32];
    int absent = 0;
    for (int i = 0; i < 800; i++) {
        snprintf(row, sizeof(row), "row-%05d", i);
        cf_hfile_bloom_result r;
        CF_ASSERT_OK(
            cf_hfile_bloom_check(h, CF_HFILE_BLOOM_GENERAL, S(row), false, S(""), S(""), &r, &err),
            &err);
        assert_true(r.present);
        assert_string_equal(r.type, "ROW");
        if (i % 2 == 0)
            assert_true(r.may_contain);
        else
            absent += !r.may_contain;
    }
    assert_true(absent > 300);
    cf_hfile_bloom_result r;
    CF_ASSERT_OK(
        cf_hfile_bloom_check(h, CF_HFILE_BLOOM_GENERAL, S("a"), false, S(""), S(""), &r, &err),
        &err);
    assert_true(r.before_first);
    assert_false(r.may_contain);
    CF_ASSERT_OK(cf_hfile_bloom_check(h, CF_HFILE_BLOOM_DELETE_FAMILY, S("row-00000"), false, S(""),
                                      S(""), &r, &err),
                 &err);
    assert_false(r.present);
    assert_true(r.may_contain);
    assert_int_equal(cf_hfile_bloom_check(h, 7, S("x"), false, S(""), S(""), &r, &err), CF_EINVAL);
    cf_hfile_free(h);
    cf_io_free(io);
    free(bytes);
}

static void test_inspect__names(void **state)
{
    (void)state;
    assert_string_equal(cf_hfile_block_type_name("DATABLK*"), "DATA");
    assert_string_equal(cf_hfile_block_type_name("IDXINTE2"), "INTERMEDIATE_INDEX");
    assert_string_equal(cf_hfile_block_type_name("DFBLMET2"), "DELETE_FAMILY_BLOOM_META");
    assert_null(cf_hfile_block_type_name("XXXXXXXX"));
    assert_string_equal(cf_hfile_checksum_name(1), "CRC32");
    assert_string_equal(cf_hfile_checksum_name(2), "CRC32C");
    assert_null(cf_hfile_checksum_name(3));
    assert_string_equal(cf_hfile_encoding_name(CF_HFILE_DBE_FAST_DIFF), "FAST_DIFF");
    assert_null(cf_hfile_encoding_name(5));
}

/* ---- the real files ------------------------------------------------------------------ */

static bool json_bytes_eq(const cf_json *j, cf_slice s)
{
    if (j->kind == CF_JSON_STRING)
        return j->len == s.len && (s.len == 0 || memcmp(j->str, s.data, s.len) == 0);
    const cf_json *hx = cf_json_get(j, "hex");
    if (!hx)
        return false;
    uint8_t buf[4096];
    size_t n = cf_test_unhex(hx->str, buf, sizeof(buf));
    return n == s.len && (n == 0 || memcmp(buf, s.data, n) == 0);
}

static int64_t num(const cf_json *j)
{
    return strtoll(j->str, NULL, 10);
}

static void check_decoded(const cf_hfile *h, const char *name, const cf_json *fi)
{
    for (size_t i = 0; i < fi->n; i++) {
        const cf_json *e = &fi->items[i];
        const cf_json *want = cf_json_get(e, "decoded");
        const cf_json *k = cf_json_get(e, "key");
        cf_slice key = {(const uint8_t *)k->str, k->len}, v;
        assert_true(cf_hfile_file_info_get(h, k->str, &v));
        cf_hfile_fi_value d;
        cf_hfile_file_info_decode(h, key, v, &d);
        if (!want) {
            /* Known keys the corpus leaves undecoded are raw keys (v1) or strings. */
            if (d.kind != CF_HFILE_FI_BYTES && d.kind != CF_HFILE_FI_STRING &&
                d.kind != CF_HFILE_FI_COMPACTION)
                fail_msg("%s: %s decoded as kind %d, corpus has no decoding", name, k->str, d.kind);
            continue;
        }
        switch (want->kind) {
        case CF_JSON_NUMBER:
            if (!(d.kind == CF_HFILE_FI_INT || d.kind == CF_HFILE_FI_LONG) || d.num != num(want))
                fail_msg("%s: %s: got kind %d value %lld", name, k->str, d.kind, (long long)d.num);
            break;
        case CF_JSON_TRUE:
        case CF_JSON_FALSE:
            assert_int_equal(d.kind, CF_HFILE_FI_BOOL);
            assert_int_equal(d.num, want->kind == CF_JSON_TRUE);
            break;
        case CF_JSON_OBJECT:
            if (cf_json_get(want, "from")) {
                assert_int_equal(d.kind, CF_HFILE_FI_TIMERANGE);
                assert_int_equal(d.tr_from, num(cf_json_get(want, "from")));
                assert_int_equal(d.tr_to, num(cf_json_get(want, "to")));
            } else {
                if (d.kind != CF_HFILE_FI_KEY)
                    fail_msg("%s: %s is not decoded as a key (%s)", name, k->str,
                             d.malformed ? d.malformed : "");
                assert_true(json_bytes_eq(cf_json_get(want, "row"), d.key.row));
                assert_true(json_bytes_eq(cf_json_get(want, "family"), d.key.family));
                assert_true(json_bytes_eq(cf_json_get(want, "qualifier"), d.key.qualifier));
                assert_int_equal(d.key.timestamp, num(cf_json_get(want, "timestamp")));
                assert_string_equal(cf_hfile_type_name(d.key.type), cf_json_get(want, "type")->str);
            }
            break;
        default: fail_msg("%s: %s: unexpected decoded form", name, k->str);
        }
    }
}

static void test_inspect__real_files(void **state)
{
    (void)state;
    hfile_corpus hc;
    hfile_corpus_open(&hc);
    int files = 0, opened = 0;
    while (hfile_corpus_next(&hc)) {
        files++;
        char msg[256];
        cf_json_doc doc;
        assert_int_equal(cf_json_parse_file(&doc, hc.json, msg, sizeof(msg)), 0);
        cf_error err = {0};
        cf_hfile *h;
        cf_status st = cf_hfile_open_file(&h, hc.path, NULL, &err);
        if (st != CF_OK) {
            /* Issue 16's codec/encoding gaps: counted, printed, never silent. */
            printf("known gap (not inspected): %s: %s\n", hc.name, err.msg);
            cf_json_doc_dispose(&doc);
            continue;
        }
        opened++;
        check_decoded(h, hc.name, cf_json_get(&doc.root, "file_info"));
        walk w = {h, 0, 0, 0, 0, false};
        CF_ASSERT_OK(cf_hfile_index_walk(h, on_index, &w, &err), &err);
        assert_false(w.mismatch);
        const cf_json *idx = cf_json_get(&doc.root, "index");
        assert_int_equal(w.data_refs, num(cf_json_get(idx, "data_blocks")));
        const cf_json *leaf = cf_json_get(idx, "leaf_index_blocks");
        const cf_json *inter = cf_json_get(idx, "intermediate_index_blocks");
        assert_int_equal(w.leaf, leaf ? num(leaf) : 0); /* v1: one level */
        assert_int_equal(w.inter, inter ? num(inter) : 0);
        /* Every row of a ROW Bloom file tests positive. */
        const cf_json *bl = cf_json_get(&doc.root, "blooms");
        const cf_json *bt = bl ? cf_json_get(bl, "bloom_filter_type") : NULL;
        if (bt && bt->kind == CF_JSON_STRING && strcmp(bt->str, "ROW") == 0 &&
            cf_hfile_bloom(h, CF_HFILE_BLOOM_GENERAL)) {
            cf_hfile_iter *it;
            CF_ASSERT_OK(cf_hfile_iter_create(&it, h, &err), &err);
            for (;;) {
                cf_hfile_cell c;
                if (!hfile_next(it, &c))
                    break;
                cf_hfile_bloom_result r;
                CF_ASSERT_OK(cf_hfile_bloom_check(h, CF_HFILE_BLOOM_GENERAL, c.row, false, S(""),
                                                  S(""), &r, &err),
                             &err);
                if (!r.may_contain)
                    fail_msg("%s: row of %zu bytes fails its own Bloom filter", hc.name, c.row.len);
            }
            cf_hfile_iter_free(it);
        }
        cf_hfile_free(h);
        cf_json_doc_dispose(&doc);
    }
    printf("inspected %d of %d real HFiles\n", opened, files);
    assert_true(files >= 19);
    assert_int_equal(opened, files); /* issue 16: every real file reads */
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inspect__file_info_forms),
        cmocka_unit_test(test_inspect__multilevel_index_walk),
        cmocka_unit_test(test_inspect__names),
        cmocka_unit_test(test_inspect__real_files),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

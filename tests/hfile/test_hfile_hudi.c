/* HFiles from Apache Hudi's own Java writer (hudi-io HFileWriterImpl), built
 * byte by byte as its first native writer laid them out: NULL checksums,
 * prev-block offsets all -1, row-only keys (2-byte length + record key) in
 * cells and root index, a one-byte mvcc 0 after every cell without
 * KEY_VALUE_VERSION, comparator "NA", an empty encryption key in the
 * trailer. Hudi's reader reads them; so must we, exactly as it does. The
 * same file with a non-empty encryption key is refused as encrypted. */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/hfile.h>
#include <cfile/io.h>

#include "hfile.pb-c.h"
#include "hfile/internal.h"
#include "util/endian.h"

static void put_be16(cf_buf *b, uint16_t v)
{
    cf_buf_put_u8(b, (uint8_t)(v >> 8));
    cf_buf_put_u8(b, (uint8_t)v);
}

static void put_be64(cf_buf *b, uint64_t v)
{
    cf_buf_put_be32(b, (uint32_t)(v >> 32));
    cf_buf_put_be32(b, (uint32_t)v);
}

/* A block with Hudi's header: NULL checksum type, no checksum bytes. */
static void block(cf_buf *f, const char *magic, const cf_buf *payload)
{
    cf_buf_append(f, magic, 8);
    cf_buf_put_be32(f, (uint32_t)payload->len);
    cf_buf_put_be32(f, (uint32_t)payload->len);
    put_be64(f, UINT64_MAX);
    cf_buf_put_u8(f, 0);
    cf_buf_put_be32(f, 16384);
    cf_buf_put_be32(f, (uint32_t)(33 + payload->len));
    cf_buf_append(f, payload->data, payload->len);
}

static void row_key(char *out, size_t cap, int i)
{
    snprintf(out, cap, "hudi-key-%06d", i);
}

static void build(cf_buf *f, int n, bool real_key)
{
    cf_buf p;
    cf_buf_init(&p);
    char k[32], v[32];
    for (int i = 0; i < n; i++) {
        row_key(k, sizeof(k), i);
        snprintf(v, sizeof(v), "value-%d", i * 7);
        size_t kl = strlen(k), vl = strlen(v);
        cf_buf_put_be32(&p, (uint32_t)(kl + 2));
        cf_buf_put_be32(&p, (uint32_t)vl);
        put_be16(&p, (uint16_t)kl);
        cf_buf_append(&p, k, kl);
        cf_buf_append(&p, v, vl);
        cf_buf_put_u8(&p, 0);
    }
    block(f, "DATABLK*", &p);
    uint64_t data_size = f->len;
    uint64_t load_on_open = f->len;
    cf_buf_clear(&p);
    row_key(k, sizeof(k), 0);
    put_be64(&p, 0);
    cf_buf_put_be32(&p, (uint32_t)data_size);
    cf_buf_put_u8(&p, (uint8_t)(2 + strlen(k)));
    put_be16(&p, (uint16_t)strlen(k));
    cf_buf_append(&p, k, strlen(k));
    block(f, "IDXROOT2", &p);
    cf_buf_clear(&p);
    block(f, "IDXROOT2", &p);
    uint64_t fi_off = f->len;
    Hbase__BytesBytesPair e[2];
    Hbase__BytesBytesPair *ep[2] = {&e[0], &e[1]};
    hbase__bytes_bytes_pair__init(&e[0]);
    hbase__bytes_bytes_pair__init(&e[1]);
    e[0].first = (ProtobufCBinaryData){25, (uint8_t *)"hfile.MAX_MEMSTORE_TS_KEY"};
    e[0].second = (ProtobufCBinaryData){1, (uint8_t *)"\0"};
    row_key(k, sizeof(k), n - 1);
    uint8_t last[40];
    last[0] = 0;
    last[1] = (uint8_t)strlen(k);
    memcpy(last + 2, k, strlen(k));
    e[1].first = (ProtobufCBinaryData){13, (uint8_t *)"hfile.LASTKEY"};
    e[1].second = (ProtobufCBinaryData){2 + strlen(k), last};
    Hbase__FileInfoProto fi;
    hbase__file_info_proto__init(&fi);
    fi.n_map_entry = 2;
    fi.map_entry = ep;
    cf_buf_clear(&p);
    cf_buf_append(&p, "PBUF", 4);
    size_t len = hbase__file_info_proto__get_packed_size(&fi);
    cf_buf_put_varint32(&p, (uint32_t)len);
    hbase__file_info_proto__pack(&fi, cf_buf_extend(&p, len));
    block(f, "FILEINF2", &p);
    Hbase__FileTrailerProto t;
    hbase__file_trailer_proto__init(&t);
    t.has_file_info_offset = t.has_load_on_open_data_offset = t.has_data_index_count = true;
    t.has_meta_index_count = t.has_entry_count = t.has_num_data_index_levels = true;
    t.has_first_data_block_offset = t.has_last_data_block_offset = true;
    t.has_compression_codec = t.has_encryption_key = t.has_uncompressed_data_index_size = true;
    t.file_info_offset = fi_off;
    t.load_on_open_data_offset = load_on_open;
    t.uncompressed_data_index_size = 12345; /* Hudi stored the data bytes here */
    t.data_index_count = 1;
    t.entry_count = (uint64_t)n;
    t.num_data_index_levels = 1;
    t.comparator_class_name = "NA";
    t.compression_codec = CF_HFILE_NONE;
    t.encryption_key =
        real_key ? (ProtobufCBinaryData){3, (uint8_t *)"key"} : (ProtobufCBinaryData){0, NULL};
    size_t start = f->len;
    cf_buf_append(f, "TRABLK\"$", 8);
    len = hbase__file_trailer_proto__get_packed_size(&t);
    cf_buf_put_varint32(f, (uint32_t)len);
    hbase__file_trailer_proto__pack(&t, cf_buf_extend(f, len));
    memset(cf_buf_extend(f, start + 4096 - 4 - f->len), 0, start + 4096 - 4 - f->len);
    cf_buf_put_be32(f, 3);
    assert_int_equal(cf_buf_status(f), CF_OK);
    cf_buf_dispose(&p);
}

static void test_hfile__hudi_native_writer(void **state)
{
    (void)state;
    cf_buf f;
    cf_buf_init(&f);
    build(&f, 40, false);
    cf_error err = {0};
    cf_io *io;
    CF_ASSERT_OK(cf_io_open_mem(&io, f.data, f.len, &err), &err);
    cf_hfile *h;
    CF_ASSERT_OK(cf_hfile_open(&h, io, NULL, &err), &err);
    const cf_hfile_info *in = cf_hfile_get_info(h);
    assert_true(in->includes_mvcc);
    assert_false(in->raw_keys);
    assert_string_equal(cf_hfile_get_trailer(h)->comparator, "NA");
    cf_hfile_iter *it;
    CF_ASSERT_OK(cf_hfile_iter_create(&it, h, &err), &err);
    char k[32], v[32];
    int i = 0;
    for (;; i++) {
        cf_hfile_cell c;
        bool has;
        CF_ASSERT_OK(cf_hfile_iter_next(it, &c, &has, &err), &err);
        if (!has)
            break;
        row_key(k, sizeof(k), i);
        snprintf(v, sizeof(v), "value-%d", i * 7);
        CF_ASSERT_BYTES(c.row.data, c.row.len, k, strlen(k));
        CF_ASSERT_BYTES(c.value.data, c.value.len, v, strlen(v));
        assert_int_equal(c.family.len + c.qualifier.len, 0);
        assert_true(c.timestamp == INT64_MAX && c.type == CF_HFILE_PUT && c.mvcc == 0);
    }
    assert_int_equal(i, 40);
    /* Seeks: an existing key, one between two, one past the end. */
    row_key(k, sizeof(k), 17);
    CF_ASSERT_OK(cf_hfile_iter_seek_row(it, k, strlen(k), &err), &err);
    cf_hfile_cell c;
    bool has;
    CF_ASSERT_OK(cf_hfile_iter_next(it, &c, &has, &err), &err);
    assert_true(has);
    CF_ASSERT_BYTES(c.row.data, c.row.len, k, strlen(k));
    CF_ASSERT_OK(cf_hfile_iter_seek_row(it, "hudi-key-000017x", 16, &err), &err);
    CF_ASSERT_OK(cf_hfile_iter_next(it, &c, &has, &err), &err);
    row_key(k, sizeof(k), 18);
    assert_true(has);
    CF_ASSERT_BYTES(c.row.data, c.row.len, k, strlen(k));
    CF_ASSERT_OK(cf_hfile_iter_seek_row(it, "z", 1, &err), &err);
    CF_ASSERT_OK(cf_hfile_iter_next(it, &c, &has, &err), &err);
    assert_false(has);
    cf_hfile_iter_free(it);
    cf_hfile_free(h);
    cf_io_free(io);

    /* A real encryption key is still refused. */
    cf_buf_clear(&f);
    build(&f, 3, true);
    CF_ASSERT_OK(cf_io_open_mem(&io, f.data, f.len, &err), &err);
    CF_ASSERT_STATUS(cf_hfile_open(&h, io, NULL, &err), CF_ENOTSUP, &err);
    assert_non_null(strstr(err.msg, "encrypted"));
    cf_io_free(io);
    cf_buf_dispose(&f);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hfile__hudi_native_writer),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

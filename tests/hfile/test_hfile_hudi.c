/* HFiles from Apache Hudi's own Java writer (hudi-io HFileWriterImpl), built
 * byte by byte as its first native writer laid them out: NULL checksums,
 * prev-block offsets all -1, row-only keys (2-byte length + record key) in
 * cells and root index, a one-byte mvcc 0 after every cell without
 * KEY_VALUE_VERSION, comparator "NA", an empty encryption key in the
 * trailer. Hudi's reader reads them; so must we, exactly as it does. The
 * same file with a non-empty encryption key is refused as encrypted. Hudi
 * 1.1+ files (further down) keep a zero-filled checksum area under type NULL. */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/hfile.h>
#include <cfile/io.h>

#include "hfile.pb-c.h"
#include "hfile/internal.h"
#include "support_hfile.h"
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

/* A block as Hudi writes it: checksum type NULL, `bpc` bytes per checksum,
 * the (compressed) body of a `raw_len`-byte payload, then `ck` zero bytes of
 * checksum area. */
static void hudi_block(cf_buf *f, const char *magic, const cf_buf *body, size_t raw_len,
                       int64_t prev, uint32_t bpc, size_t ck)
{
    cf_buf_append(f, magic, 8);
    cf_buf_put_be32(f, (uint32_t)(body->len + ck));
    cf_buf_put_be32(f, (uint32_t)raw_len);
    put_be64(f, (uint64_t)prev);
    cf_buf_put_u8(f, 0); /* NULL */
    cf_buf_put_be32(f, bpc);
    cf_buf_put_be32(f, (uint32_t)(33 + body->len));
    cf_buf_append(f, body->data, body->len);
    memset(cf_buf_extend(f, ck), 0, ck);
}

/* A block of Hudi's first writer: no checksum bytes, no previous block. */
static void block(cf_buf *f, const char *magic, const cf_buf *payload)
{
    hudi_block(f, magic, payload, payload->len, -1, 16384, 0);
}

/* FileInfo's block: "PBUF", the length-delimited FileInfoProto of the entries. */
static void file_info(cf_buf *p, Hbase__BytesBytesPair **ep, size_t n)
{
    Hbase__FileInfoProto fi;
    hbase__file_info_proto__init(&fi);
    fi.n_map_entry = n;
    fi.map_entry = ep;
    cf_buf_clear(p);
    cf_buf_append(p, "PBUF", 4);
    size_t len = hbase__file_info_proto__get_packed_size(&fi);
    cf_buf_put_varint32(p, (uint32_t)len);
    hbase__file_info_proto__pack(&fi, cf_buf_extend(p, len));
}

/* The trailer's fields both writers set. */
static void trailer_init(Hbase__FileTrailerProto *t)
{
    hbase__file_trailer_proto__init(t);
    t->has_file_info_offset = t->has_load_on_open_data_offset = t->has_data_index_count = true;
    t->has_meta_index_count = t->has_entry_count = t->has_num_data_index_levels = true;
    t->has_first_data_block_offset = t->has_last_data_block_offset = true;
    t->has_compression_codec = t->has_uncompressed_data_index_size = true;
    t->num_data_index_levels = 1;
}

/* The 4096-byte trailer block, ending in the version word 3 (minor 0). */
static void trailer(cf_buf *f, const Hbase__FileTrailerProto *t)
{
    size_t start = f->len;
    cf_buf_append(f, "TRABLK\"$", 8);
    size_t len = hbase__file_trailer_proto__get_packed_size(t);
    cf_buf_put_varint32(f, (uint32_t)len);
    hbase__file_trailer_proto__pack(t, cf_buf_extend(f, len));
    memset(cf_buf_extend(f, start + 4096 - 4 - f->len), 0, start + 4096 - 4 - f->len);
    cf_buf_put_be32(f, 3);
    assert_int_equal(cf_buf_status(f), CF_OK);
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
    file_info(&p, ep, 2);
    block(f, "FILEINF2", &p);
    Hbase__FileTrailerProto t;
    trailer_init(&t);
    t.has_encryption_key = true;
    t.file_info_offset = fi_off;
    t.load_on_open_data_offset = load_on_open;
    t.uncompressed_data_index_size = 12345; /* Hudi stored the data bytes here */
    t.data_index_count = 1;
    t.entry_count = (uint64_t)n;
    t.comparator_class_name = "NA";
    t.compression_codec = CF_HFILE_NONE;
    t.encryption_key =
        real_key ? (ProtobufCBinaryData){3, (uint8_t *)"key"} : (ProtobufCBinaryData){0, NULL};
    trailer(f, &t);
    cf_buf_dispose(&p);
}

/* ---- Hudi 1.1+ (table version 9) ------------------------------------------------------
 * hudi-io's HFileBlock.serialize as of Hudi 1.1: checksum type NULL and
 * bytesPerChecksum 16384 in every header, yet a zero-filled checksum area of
 * ceil(onDiskDataSizeWithHeader / 16384) * 4 bytes after the (compressed)
 * payload, counted in onDiskSizeWithoutHeader; HFileDataBlock writes full
 * KeyValue keys (row, empty family, LATEST_TIMESTAMP, Put) and an mvcc byte 0;
 * the root index keeps row-only keys (2-byte length + key); one meta block per
 * meta entry; FileInfo with KEY_VALUE_VERSION 1; the trailer names
 * HoodieHBaseKVComparator, stores the data bytes as the uncompressed index size
 * and ends in the version word 3 (minor 0). */

typedef struct hudi11 {
    int n;                 /* cells */
    size_t block_size;     /* flush a data block past this many payload bytes */
    uint32_t codec;        /* CF_HFILE_NONE or CF_HFILE_GZ */
    uint32_t bpc;          /* bytes per checksum in the headers (Hudi: 16384) */
    int ck_extra;          /* bytes added to the checksum area (damage cases) */
    const char *value_pad; /* appended to each value, to make blocks big */
    int key_pad;           /* bytes of 'k' appended to each record key */
} hudi11;

static void key11(char *out, size_t cap, const hudi11 *o, int i)
{
    row_key(out, cap, i);
    size_t l = strlen(out);
    for (int j = 0; j < o->key_pad && l + 1 < cap; j++)
        out[l++] = 'k';
    out[l] = '\0';
}

static void block11(cf_buf *f, const hudi11 *o, const char *magic, const cf_buf *payload,
                    int64_t prev)
{
    cf_buf z;
    cf_buf_init(&z);
    const cf_buf *body = payload;
    if (o->codec != CF_HFILE_NONE) {
        cf_error err = {0};
        CF_ASSERT_OK(cf_hfile_compress(o->codec, payload->data, payload->len, &z, &err), &err);
        body = &z;
    }
    size_t dsz = 33 + body->len;
    size_t ck = o->bpc == 0 ? 0 : (dsz / o->bpc + (dsz % o->bpc != 0)) * 4;
    ck = (size_t)((int64_t)ck + o->ck_extra);
    hudi_block(f, magic, body, payload->len, prev, o->bpc, ck);
    cf_buf_dispose(&z);
}

static void value_of(char *out, size_t cap, const hudi11 *o, int i)
{
    snprintf(out, cap, "value-%d%s", i * 7, o->value_pad ? o->value_pad : "");
}

static void fi_entry(Hbase__BytesBytesPair *e, const char *k, const void *v, size_t vl)
{
    hbase__bytes_bytes_pair__init(e);
    e->first = (ProtobufCBinaryData){strlen(k), (uint8_t *)k};
    e->second = (ProtobufCBinaryData){vl, (uint8_t *)v};
}

static void build11(cf_buf *f, const hudi11 *o)
{
    cf_buf p, idx;
    cf_buf_init(&p);
    cf_buf_init(&idx);
    char k[300], v[600];
    size_t entries = 0, data_bytes = 0;
    int64_t first_off = -1, last_off = 0, prev = -1;
    int first_in_block = 0;
    for (int i = 0; i <= o->n; i++) {
        if (i == o->n || (p.len > 0 && p.len > o->block_size)) {
            if (p.len == 0)
                break;
            uint64_t off = f->len;
            block11(f, o, "DATABLK*", &p, prev);
            if (first_off < 0)
                first_off = (int64_t)off;
            last_off = (int64_t)off;
            /* The next data block's "previous" offset is where it starts itself. */
            prev = (int64_t)f->len;
            key11(k, sizeof(k), o, first_in_block);
            put_be64(&idx, off);
            cf_buf_put_be32(&idx, (uint32_t)(f->len - off));
            /* Hudi writes this length as a protobuf varint (CodedOutputStream),
             * where HBase and Hudi's reader take a Hadoop vint: the same byte
             * below 128, not above. */
            cf_buf_put_varint32(&idx, (uint32_t)(2 + strlen(k)));
            put_be16(&idx, (uint16_t)strlen(k));
            cf_buf_append(&idx, k, strlen(k));
            entries++;
            cf_buf_clear(&p);
            first_in_block = i;
            if (i == o->n)
                break;
        }
        key11(k, sizeof(k), o, i);
        value_of(v, sizeof(v), o, i);
        size_t kl = strlen(k), vl = strlen(v);
        cf_buf_put_be32(&p, (uint32_t)(kl + 12));
        cf_buf_put_be32(&p, (uint32_t)vl);
        put_be16(&p, (uint16_t)kl);
        cf_buf_append(&p, k, kl);
        cf_buf_put_u8(&p, 0);    /* family length */
        put_be64(&p, INT64_MAX); /* LATEST_TIMESTAMP */
        cf_buf_put_u8(&p, 4);    /* Put */
        cf_buf_append(&p, v, vl);
        cf_buf_put_u8(&p, 0); /* mvcc */
        data_bytes += kl + vl + 9;
    }
    /* One meta block: its payload is the value; the meta index has no 2-byte key length. */
    uint64_t meta_off = f->len;
    cf_buf_clear(&p);
    cf_buf_append(&p, "bloom-bytes", 11);
    block11(f, o, "METABLKc", &p, -1);
    uint32_t meta_size = (uint32_t)(f->len - meta_off);
    uint64_t load_on_open = f->len;
    block11(f, o, "IDXROOT2", &idx, -1);
    cf_buf_clear(&p);
    put_be64(&p, meta_off);
    cf_buf_put_be32(&p, meta_size);
    cf_buf_put_u8(&p, 11);
    cf_buf_append(&p, "bloomFilter", 11);
    block11(f, o, "IDXROOT2", &p, -1);
    uint64_t fi_off = f->len;
    uint8_t zero8[8] = {0}, kvv[4] = {0, 0, 0, 1}, avg[4] = {0, 0, 0, 15}, last[302];
    /* Hudi's LASTKEY: 2-byte length + key, empty in an empty file. */
    size_t last_len = 0;
    if (o->n > 0) {
        key11(k, sizeof(k), o, o->n - 1);
        last[0] = (uint8_t)(strlen(k) >> 8);
        last[1] = (uint8_t)strlen(k);
        memcpy(last + 2, k, strlen(k));
        last_len = 2 + strlen(k);
    }
    Hbase__BytesBytesPair e[6];
    Hbase__BytesBytesPair *ep[6] = {&e[0], &e[1], &e[2], &e[3], &e[4], &e[5]};
    fi_entry(&e[0], "hfile.MAX_MEMSTORE_TS_KEY", zero8, 8);
    fi_entry(&e[1], "hfile.LASTKEY", last, last_len);
    fi_entry(&e[2], "hfile.AVG_KEY_LEN", avg, 4);
    fi_entry(&e[3], "hfile.CREATE_TIME_TS", zero8, 8);
    fi_entry(&e[4], "hfile.AVG_VALUE_LEN", avg, 4);
    fi_entry(&e[5], "KEY_VALUE_VERSION", kvv, 4);
    file_info(&p, ep, 6);
    block11(f, o, "FILEINF2", &p, -1);
    Hbase__FileTrailerProto t;
    trailer_init(&t);
    t.file_info_offset = fi_off;
    t.load_on_open_data_offset = load_on_open;
    t.uncompressed_data_index_size = data_bytes;
    t.data_index_count = (uint32_t)entries;
    t.meta_index_count = 1;
    t.entry_count = (uint64_t)o->n;
    t.first_data_block_offset = (uint64_t)first_off;
    t.last_data_block_offset = (uint64_t)last_off;
    t.comparator_class_name = "org.apache.hudi.io.storage.HoodieHBaseKVComparator";
    t.compression_codec = o->codec;
    trailer(f, &t);
    cf_buf_dispose(&p);
    cf_buf_dispose(&idx);
}

/* it, from the start, gives o->n cells: record key i (as key11 makes it) to
 * value_of i, with no family or qualifier, LATEST_TIMESTAMP, Put, mvcc 0. */
static void expect_cells(cf_hfile_iter *it, const hudi11 *o)
{
    char k[300], v[600];
    int i = 0;
    for (;; i++) {
        cf_hfile_cell c;
        if (!hfile_next(it, &c))
            break;
        key11(k, sizeof(k), o, i);
        value_of(v, sizeof(v), o, i);
        CF_ASSERT_BYTES(c.row.data, c.row.len, k, strlen(k));
        CF_ASSERT_BYTES(c.value.data, c.value.len, v, strlen(v));
        assert_int_equal(c.family.len + c.qualifier.len, 0);
        assert_true(c.timestamp == INT64_MAX && c.type == CF_HFILE_PUT && c.mvcc == 0);
    }
    assert_int_equal(i, o->n);
}

/* After a seek to row `seek` the next cell is row `want` (NULL: none). */
static void seek_expect(cf_hfile_iter *it, const char *seek, const char *want)
{
    cf_error err = {0};
    CF_ASSERT_OK(cf_hfile_iter_seek_row(it, seek, strlen(seek), &err), &err);
    cf_hfile_cell c;
    bool has;
    CF_ASSERT_OK(cf_hfile_iter_next(it, &c, &has, &err), &err);
    assert_int_equal(has, want != NULL);
    if (want)
        CF_ASSERT_BYTES(c.row.data, c.row.len, want, strlen(want));
}

static cf_status open11(const hudi11 *o, cf_buf *f, cf_io **io, cf_hfile **h, cf_error *err)
{
    cf_buf_clear(f);
    build11(f, o);
    CF_ASSERT_OK(cf_io_open_mem(io, f->data, f->len, err), err);
    return cf_hfile_open(h, *io, NULL, err);
}

static bool count_block(void *ctx, const cf_hfile_block_header *hdr)
{
    size_t *n = ctx;
    assert_int_equal(hdr->checksum_type, 0);
    (*n)++;
    return true;
}

static void check11(const hudi11 *o)
{
    cf_buf f;
    cf_buf_init(&f);
    cf_error err = {0};
    cf_io *io;
    cf_hfile *h;
    CF_ASSERT_OK(open11(o, &f, &io, &h, &err), &err);
    const cf_hfile_info *in = cf_hfile_get_info(h);
    assert_true(in->includes_mvcc);
    assert_int_equal(in->major, 3);
    assert_int_equal(in->minor, 0);
    assert_int_equal(in->meta_count, 1);
    if (o->n == 0)
        assert_int_equal(in->num_data_blocks, 0);
    else
        assert_true(in->num_data_blocks >= (o->block_size < 4096 ? 2u : 1u));
    uint8_t *meta;
    size_t meta_len;
    CF_ASSERT_OK(cf_hfile_meta_read(h, 0, &meta, &meta_len, &err), &err);
    CF_ASSERT_BYTES(meta, meta_len, "bloom-bytes", 11);
    cf_hfile_bytes_free(meta);
    size_t blocks = 0;
    CF_ASSERT_OK(cf_hfile_walk_blocks(h, true, count_block, &blocks, &err), &err);
    assert_int_equal(blocks, in->num_data_blocks + 4);
    cf_hfile_iter *it;
    CF_ASSERT_OK(cf_hfile_iter_create(&it, h, &err), &err);
    expect_cells(it, o);
    char k[300];
    /* Every row is found by a seek through the row-only index keys. */
    for (int j = 0; j < o->n; j += 7) {
        key11(k, sizeof(k), o, j);
        seek_expect(it, k, k);
    }
    cf_hfile_iter_free(it);
    cf_hfile_free(h);
    cf_io_free(io);
    cf_buf_dispose(&f);
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
    expect_cells(it, &(hudi11){.n = 40});
    char k[32];
    /* Seeks: an existing key, one between two, one past the end. */
    row_key(k, sizeof(k), 17);
    seek_expect(it, k, k);
    row_key(k, sizeof(k), 18);
    seek_expect(it, "hudi-key-000017x", k);
    seek_expect(it, "z", NULL);
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

static char pad[513];

static void test_hfile__hudi_1_1_null_checksum_area(void **state)
{
    (void)state;
    memset(pad, 'p', 512);
    /* No cell (first data block offset -1, empty LASTKEY), one small block, many
     * blocks, blocks past 16 KB (several checksum chunks). */
    check11(&(hudi11){.n = 0, .block_size = 65536, .codec = CF_HFILE_NONE, .bpc = 16384});
    check11(&(hudi11){.n = 40, .block_size = 65536, .codec = CF_HFILE_NONE, .bpc = 16384});
    check11(&(hudi11){.n = 300, .block_size = 1024, .codec = CF_HFILE_NONE, .bpc = 16384});
    check11(&(hudi11){
        .n = 200, .block_size = 40000, .codec = CF_HFILE_NONE, .bpc = 16384, .value_pad = pad});
    check11(&(hudi11){.n = 300, .block_size = 1024, .codec = CF_HFILE_GZ, .bpc = 16384});
    check11(&(hudi11){
        .n = 200, .block_size = 40000, .codec = CF_HFILE_GZ, .bpc = 512, .value_pad = pad});
}

/* The file o describes is refused as damage, the message saying `msg`. */
static void expect_damage11(const hudi11 *o, const char *msg)
{
    cf_buf f;
    cf_buf_init(&f);
    cf_error err = {0};
    cf_io *io;
    cf_hfile *h = NULL;
    CF_ASSERT_STATUS(open11(o, &f, &io, &h, &err), CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, msg));
    cf_io_free(io);
    cf_buf_dispose(&f);
}

static void test_hfile__hudi_1_1_null_checksum_damage(void **state)
{
    (void)state;
    /* A checksum area of a size bytes per checksum does not give is damage. */
    expect_damage11(
        &(hudi11){
            .n = 10, .block_size = 65536, .codec = CF_HFILE_NONE, .bpc = 16384, .ck_extra = 4},
        "8 checksum bytes with checksum type NULL, expected 4");
    /* NULL with bytes per checksum 0: HBase counts no checksum area, so 4 bytes
     * are damage and none is a good block. */
    expect_damage11(
        &(hudi11){.n = 10, .block_size = 65536, .codec = CF_HFILE_NONE, .bpc = 0, .ck_extra = 4},
        "4 checksum bytes with checksum type NULL, expected 0");
    check11(&(hudi11){.n = 10, .block_size = 65536, .codec = CF_HFILE_NONE, .bpc = 0});
    /* Index keys of 126 bytes and more: Hudi's writer spells their length as a
     * protobuf varint, which Hudi's own reader and HBase read as a Hadoop vint
     * and fail on; so do we, naming the entry (up to 125 bytes both agree). */
    check11(&(hudi11){
        .n = 30, .block_size = 1024, .codec = CF_HFILE_NONE, .bpc = 16384, .key_pad = 108});
    expect_damage11(
        &(hudi11){
            .n = 30, .block_size = 1024, .codec = CF_HFILE_NONE, .bpc = 16384, .key_pad = 200},
        "root data index: entry 0");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hfile__hudi_native_writer),
        cmocka_unit_test(test_hfile__hudi_1_1_null_checksum_area),
        cmocka_unit_test(test_hfile__hudi_1_1_null_checksum_damage),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

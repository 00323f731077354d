/* WAL segments written as Kudu's WritableLogSegment writes them
 * (consensus/log_util.cc WriteHeader, WriteEntryBatch, WriteFooter), into
 * memory, for tests that build segments of every shape (wal.h has the layout).
 * Compression calls the codecs as Kudu does (src/codec/compress.h: LZ4 through
 * LZ4_compress_default, snappy::Compress, zlib compress()), so a batch encodes
 * to Kudu's bytes wherever the codec library is the same. */
#include <string.h>

#include "codec/compress.h"
#include "codec/crc32c.h"
#include "util/alloc.h"
#include "util/error.h"
#include "wal.h"

static void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static cf_status append_pb(cf_buf *b, const ProtobufCMessage *m, size_t *len, cf_error *err)
{
    *len = protobuf_c_message_get_packed_size(m);
    uint8_t *p = cf_buf_extend(b, *len);
    CF_CHECK(p != NULL || *len == 0, err, CF_ENOMEM, "out of memory");
    if (*len)
        protobuf_c_message_pack(m, p);
    return CF_OK;
}

cf_status kudu_wal_writer_begin(kudu_wal_writer *w, const Kudu__Log__LogSegmentHeaderPB *header,
                                cf_error *err)
{
    memset(w, 0, sizeof *w);
    cf_buf_init(&w->out);
    w->codec = CF_COMP_NONE;
    if (header->has_compression_codec &&
        header->compression_codec != KUDU__COMPRESSION_TYPE__NO_COMPRESSION)
        w->codec = (cf_compression)header->compression_codec;
    w->entry_header_len =
        header->has_deprecated_major_version ? KUDU_WAL_ENTRY_HEADER_V1 : KUDU_WAL_ENTRY_HEADER_V2;
    CF_CHECK(w->entry_header_len == KUDU_WAL_ENTRY_HEADER_V2 || w->codec == CF_COMP_NONE, err,
             CF_EINVAL,
             "v1 entry headers (DEPRECATED_major_version) cannot say a compressed length");
    CF_CHECK(w->codec == CF_COMP_NONE || cf_codec_available(w->codec), err, CF_EINVAL,
             "compression_codec %d is not a codec of this build", (int)w->codec);
    cf_buf_append(&w->out, KUDU_WAL_HEADER_MAGIC, KUDU_WAL_MAGIC_LEN);
    size_t at = w->out.len;
    cf_buf_put_le32(&w->out, 0);
    size_t len;
    CF_TRY(append_pb(&w->out, &header->base, &len, err));
    CF_TRY(cf_buf_status(&w->out));
    put_le32(w->out.data + at, (uint32_t)len);
    w->first_entry_offset = w->out.len;
    return CF_OK;
}

cf_status kudu_wal_writer_batch_bytes(kudu_wal_writer *w, const uint8_t *data, size_t len,
                                      cf_error *err)
{
    CF_CHECK(len <= KUDU_WAL_MAX_BATCH_LEN, err, CF_EINVAL, "entry batch of %zu bytes", len);
    cf_buf body;
    cf_buf_init(&body);
    const uint8_t *bytes = data;
    size_t blen = len;
    if (w->codec != CF_COMP_NONE) {
        cf_status st = cf_codec_compress(w->codec, data, len, &body, err);
        if (st != CF_OK) {
            cf_buf_dispose(&body);
            return st;
        }
        bytes = body.data;
        blen = body.len;
    }
    uint8_t h[KUDU_WAL_ENTRY_HEADER_V2];
    size_t hl = w->entry_header_len;
    if (hl == KUDU_WAL_ENTRY_HEADER_V2) {
        put_le32(h, (uint32_t)blen);
        put_le32(h + 4, (uint32_t)len);
        put_le32(h + 8, cf_crc32c(bytes, blen));
    } else {
        put_le32(h, (uint32_t)blen);
        put_le32(h + 4, cf_crc32c(bytes, blen));
    }
    put_le32(h + hl - 4, cf_crc32c(h, hl - 4));
    cf_buf_append(&w->out, h, hl);
    cf_buf_append(&w->out, bytes, blen);
    cf_buf_dispose(&body);
    CF_CHECK(!w->out.oom, err, CF_ENOMEM, "out of memory");
    return CF_OK;
}

cf_status kudu_wal_writer_batch(kudu_wal_writer *w, const Kudu__Log__LogEntryBatchPB *batch,
                                cf_error *err)
{
    cf_buf b;
    cf_buf_init(&b);
    size_t len;
    cf_status st = append_pb(&b, &batch->base, &len, err);
    if (st == CF_OK)
        st = kudu_wal_writer_batch_bytes(w, b.data, b.len, err);
    cf_buf_dispose(&b);
    return st;
}

cf_status kudu_wal_writer_footer(kudu_wal_writer *w, const Kudu__Log__LogSegmentFooterPB *footer,
                                 cf_error *err)
{
    size_t len;
    CF_TRY(append_pb(&w->out, &footer->base, &len, err));
    cf_buf_append(&w->out, KUDU_WAL_FOOTER_MAGIC, KUDU_WAL_MAGIC_LEN);
    cf_buf_put_le32(&w->out, (uint32_t)len);
    CF_CHECK(!w->out.oom, err, CF_ENOMEM, "out of memory");
    return CF_OK;
}

void kudu_wal_writer_dispose(kudu_wal_writer *w)
{
    cf_buf_dispose(&w->out);
}

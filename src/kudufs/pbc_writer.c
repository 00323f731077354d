/* Writing Kudu's protobuf containers, versions 1 and 2, byte for byte as
 * util/pb_util.cc's WritablePBContainerFile (CreateNew, AppendMsgToBuffer) lays them
 * out; pbc_writer.h has the layout. */
#include <string.h>

#include "codec/crc32c.h"
#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"

#include "kudu_common.pb-c.h"
#include "pbc_writer.h"

static const char magic[8] = {'k', 'u', 'd', 'u', 'c', 'n', 't', 'r'};

struct cf_kudu_pbc_writer {
    cf_io *io;
    uint32_t version;
    cf_sticky fail;
    cf_buf rec;
};

/* One record framed as `version` into b (cleared first). */
static void frame(cf_buf *b, uint32_t version, const void *msg, size_t len)
{
    cf_buf_clear(b);
    uint8_t *p = cf_buf_extend(b, version == 1 ? 4 : 8);
    if (p == NULL)
        return;
    cf_store_le32(p, (uint32_t)len);
    if (version >= 2)
        cf_store_le32(p + 4, cf_crc32c(p, 4));
    cf_buf_append(b, msg, len);
    if (b->oom)
        return;
    /* v1: the checksum covers the length too; v2: the message alone */
    uint32_t crc = version == 1 ? cf_crc32c(b->data, b->len) : cf_crc32c(b->data + 8, len);
    cf_buf_put_le32(b, crc);
}

static cf_status write_record(cf_kudu_pbc_writer *w, const void *msg, size_t len, cf_error *err)
{
    /* Kudu refuses messages of 2 GiB or more (pb_util.cc: CHECK_LT(data_len, INT32_MAX)) */
    CF_CHECK(len < INT32_MAX, err, CF_EINVAL, "protobuf container: a %zu-byte message is too big",
             len);
    frame(&w->rec, w->version, msg, len);
    CF_CHECK(!w->rec.oom, err, CF_ENOMEM, "protobuf container: out of memory");
    return w->io->ops->append(w->io, w->rec.data, w->rec.len, err);
}

static cf_status create(cf_kudu_pbc_writer *w, const char *pb_type, const void *protos,
                        size_t protos_len, cf_error *err)
{
    uint8_t hdr[16];
    memcpy(hdr, magic, 8);
    cf_store_le32(hdr + 8, w->version);
    size_t hlen = 12;
    if (w->version >= 2) {
        cf_store_le32(hdr + 12, cf_crc32c(hdr, 12));
        hlen = 16;
    }
    CF_TRY(w->io->ops->append(w->io, hdr, hlen, err));
    Kudu__ContainerSupHeaderPB sup = KUDU__CONTAINER_SUP_HEADER_PB__INIT;
    sup.has_protos = true;
    sup.protos.data = (uint8_t *)protos;
    sup.protos.len = protos_len;
    sup.pb_type = (char *)pb_type;
    cf_buf b;
    cf_buf_init(&b);
    size_t n = kudu__container_sup_header_pb__get_packed_size(&sup);
    uint8_t *p = cf_buf_extend(&b, n);
    cf_status st = CF_OK;
    if (p == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "protobuf container: out of memory");
    kudu__container_sup_header_pb__pack(&sup, p);
    st = write_record(w, b.data, b.len, err);
out:
    cf_buf_dispose(&b);
    return st;
}

cf_status cf_kudu_pbc_writer_create_raw(cf_kudu_pbc_writer **out, cf_io *io, uint32_t version,
                                        const char *pb_type, const void *protos, size_t protos_len,
                                        cf_error *err)
{
    *out = NULL;
    CF_CHECK(version == 1 || version == 2, err, CF_EINVAL,
             "protobuf container: version %u (1 or 2)", version);
    CF_CHECK(pb_type != NULL && pb_type[0] != '\0', err, CF_EINVAL,
             "protobuf container: no message type");
    CF_CHECK(io != NULL && io->ops->append != NULL, err, CF_EINVAL,
             "protobuf container: the io does not write");
    cf_kudu_pbc_writer *w = cf_calloc(1, sizeof(*w));
    CF_CHECK(w != NULL, err, CF_ENOMEM, "protobuf container: out of memory");
    w->io = io;
    w->version = version;
    cf_buf_init(&w->rec);
    cf_status st = create(w, pb_type, protos, protos_len, err);
    if (st != CF_OK) {
        cf_kudu_pbc_writer_free(w);
        return st;
    }
    *out = w;
    return CF_OK;
}

cf_status cf_kudu_pbc_writer_create(cf_kudu_pbc_writer **out, cf_io *io, uint32_t version,
                                    const ProtobufCMessageDescriptor *type, cf_error *err)
{
    *out = NULL;
    cf_buf set;
    cf_buf_init(&set);
    cf_status st = cf_kudu_pb_descriptor_set(&set, type, err);
    if (st == CF_OK)
        st = cf_kudu_pbc_writer_create_raw(out, io, version, type->name, set.data, set.len, err);
    cf_buf_dispose(&set);
    return st;
}

cf_status cf_kudu_pbc_writer_append(cf_kudu_pbc_writer *w, const void *msg, size_t len,
                                    cf_error *err)
{
    CF_TRY(cf_sticky_replay(&w->fail, "protobuf container writer", err));
    return cf_sticky_set(&w->fail, write_record(w, msg, len, err), err);
}

cf_status cf_kudu_pbc_writer_append_msg(cf_kudu_pbc_writer *w, const ProtobufCMessage *m,
                                        cf_error *err)
{
    CF_TRY(cf_sticky_replay(&w->fail, "protobuf container writer", err));
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *p = cf_malloc(n ? n : 1);
    if (p == NULL) {
        cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__, "protobuf container: out of memory");
        return cf_sticky_set(&w->fail, CF_ENOMEM, err);
    }
    protobuf_c_message_pack(m, p);
    cf_status st = write_record(w, p, n, err);
    cf_free(p);
    return cf_sticky_set(&w->fail, st, err);
}

cf_status cf_kudu_pbc_writer_finish(cf_kudu_pbc_writer *w, cf_error *err)
{
    CF_TRY(cf_sticky_replay(&w->fail, "protobuf container writer", err));
    cf_status st = w->io->ops->commit ? w->io->ops->commit(w->io, err) : CF_OK;
    return cf_sticky_set(&w->fail, st, err);
}

void cf_kudu_pbc_writer_free(cf_kudu_pbc_writer *w)
{
    if (w == NULL)
        return;
    cf_buf_dispose(&w->rec);
    cf_free(w);
}

cf_status cf_kudu_pbc_write_file(const char *path, const ProtobufCMessage *m, cf_error *err)
{
    cf_io *io = NULL;
    cf_kudu_pbc_writer *w = NULL;
    cf_status st;
    CF_TRY_OUT(cf_io_create_file_mode(&io, path, 0600, err));
    CF_TRY_OUT(cf_kudu_pbc_writer_create(&w, io, 2, m->descriptor, err));
    CF_TRY_OUT(cf_kudu_pbc_writer_append_msg(w, m, err));
    CF_TRY_OUT(cf_kudu_pbc_writer_finish(w, err));
out:
    cf_kudu_pbc_writer_free(w);
    cf_io_free(io);
    return st;
}

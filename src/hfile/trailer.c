/* An HFile's trailer (HBase FixedFileTrailer), found from the version word
 * in the file's last 4 bytes, and the sniff that tells an HFile from other
 * files by it.
 *
 * Trailers (the version word is the file's last 4 bytes: minor << 24 | major):
 *   v1, 60 bytes:  magic | fileinfo off (8) | data index off (8) | data index
 *     count (4) | meta index off (8) | meta index count (4) | total
 *     uncompressed (8) | entry count (4) | codec (4) | version (4)
 *   v2.0/2.1, 212 bytes: magic | fileinfo off (8) | load-on-open off (8) |
 *     data index count (4) | uncompressed index size (8) | meta index count (4)
 *     | total uncompressed (8) | entry count (8) | codec (4) | index levels (4)
 *     | first data block (8) | last data block (8) | comparator (128, NUL
 *     padded) | version (4)
 *   v2.2+ (212) and v3 (4096): magic | varint length | FileTrailerProto |
 *     zero padding | version (4)
 *
 * Owns h->tr. It must not check the trailer's offsets against the sections
 * they point at (reader.c does, per version) nor read anything else. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "hfile.pb-c.h"
#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/pb_mem.h"

/* The fixed trailers' fields after the magic (the layouts above). */
#define TR(at, width, member) HF_BE(at, width, cf_hfile_trailer, member)
static const hf_be_field trailer_v1[] = {
    TR(0, 8, file_info_offset),   TR(8, 8, data_index_offset),  TR(16, 4, data_index_count),
    TR(20, 8, meta_index_offset), TR(28, 4, meta_index_count),  TR(32, 8, total_uncompressed_bytes),
    TR(40, 4, entry_count),       TR(44, 4, compression_codec),
};
static const hf_be_field trailer_v2[] = {
    TR(0, 8, file_info_offset),
    TR(8, 8, load_on_open_data_offset),
    TR(16, 4, data_index_count),
    TR(20, 8, uncompressed_data_index_size),
    TR(28, 4, meta_index_count),
    TR(32, 8, total_uncompressed_bytes),
    TR(40, 8, entry_count),
    TR(48, 4, compression_codec),
    TR(52, 4, num_data_index_levels),
    TR(56, 8, first_data_block_offset),
    TR(64, 8, last_data_block_offset),
};

/* internal.h */
cf_status cf_hfile_parse_trailer(cf_hfile *h, cf_error *err)
{
    cf_hfile_trailer *t = &h->tr;
    CF_CHECK(h->file_size >= 4, err, CF_ECORRUPT, "file of %" PRIu64 " bytes has no trailer",
             h->file_size);
    uint8_t vb[4];
    CF_TRY(h->io->ops->read_at(h->io, h->file_size - 4, vb, 4, err));
    uint32_t ver = cf_load_be32(vb);
    t->major = ver & 0xffffff;
    t->minor = ver >> 24;
    if (t->major == 1)
        t->trailer_size = HF_TRAILER_V1;
    else if (t->major == 2)
        t->trailer_size = HF_TRAILER_V2;
    else if (t->major == 3)
        t->trailer_size = HF_TRAILER_V3;
    else
        CF_FAIL(err, CF_ECORRUPT, "not an HFile: version word %08" PRIx32 " (major %" PRIu32 ")",
                ver, t->major);
    CF_CHECK(h->file_size >= t->trailer_size, err, CF_ECORRUPT,
             "HFile v%" PRIu32 ": %" PRIu64 "-byte file is smaller than its %" PRIu32
             "-byte trailer",
             t->major, h->file_size, t->trailer_size);
    uint8_t buf[HF_TRAILER_V3];
    uint64_t toff = h->file_size - t->trailer_size;
    CF_TRY(h->io->ops->read_at(h->io, toff, buf, t->trailer_size, err));
    CF_CHECK(memcmp(buf, HF_TRAILER, HF_MAGIC_LEN) == 0, err, CF_ECORRUPT,
             "trailer at offset %" PRIu64 ": bad magic", toff);
    const uint8_t *p = buf + HF_MAGIC_LEN;
    if (t->major == 1) {
        cf_hfile_read_be_fields(t, p, trailer_v1, sizeof trailer_v1 / sizeof *trailer_v1);
        t->num_data_index_levels = 1;
        return CF_OK;
    }
    if (t->major == 2 && t->minor < 2) {
        cf_hfile_read_be_fields(t, p, trailer_v2, sizeof trailer_v2 / sizeof *trailer_v2);
        memcpy(t->comparator, p + 72, 128);
        t->comparator[128] = '\0';
        return CF_OK;
    }
    t->protobuf = true;
    size_t room = t->trailer_size - HF_MAGIC_LEN - 4;
    uint64_t len = 0;
    size_t pos = 0;
    for (int shift = 0;; shift += 7) {
        CF_CHECK(pos < room && shift < 35, err, CF_ECORRUPT, "trailer: bad length varint");
        uint8_t b = p[pos++];
        len |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
    }
    CF_CHECK(len <= room - pos, err, CF_ECORRUPT,
             "trailer: FileTrailerProto of %" PRIu64 " bytes exceeds the trailer", len);
    cf_pb_mem mem;
    cf_pb_mem_init(&mem);
    Hbase__FileTrailerProto *m = hbase__file_trailer_proto__unpack(&mem.a, (size_t)len, p + pos);
    CF_CHECK(m != NULL || !mem.oom, err, CF_ENOMEM, "trailer: out of memory");
    CF_CHECK(m != NULL, err, CF_ECORRUPT, "trailer: FileTrailerProto does not parse");
    t->file_info_offset = m->file_info_offset;
    t->load_on_open_data_offset = m->load_on_open_data_offset;
    t->uncompressed_data_index_size = m->uncompressed_data_index_size;
    t->total_uncompressed_bytes = m->total_uncompressed_bytes;
    t->data_index_count = m->data_index_count;
    t->meta_index_count = m->meta_index_count;
    t->entry_count = m->entry_count;
    t->num_data_index_levels = m->num_data_index_levels;
    t->first_data_block_offset = m->first_data_block_offset;
    t->last_data_block_offset = m->last_data_block_offset;
    if (m->comparator_class_name) {
        size_t cl = strlen(m->comparator_class_name);
        if (cl >= sizeof(t->comparator))
            cl = sizeof(t->comparator) - 1;
        memcpy(t->comparator, m->comparator_class_name, cl);
        t->comparator[cl] = '\0';
    }
    t->compression_codec = m->has_compression_codec ? m->compression_codec : CF_HFILE_NONE;
    /* Hudi's first native writer stored an empty key; Hudi reads such files. */
    t->has_encryption_key = m->has_encryption_key && m->encryption_key.len > 0;
    hbase__file_trailer_proto__free_unpacked(m, &mem.a);
    return CF_OK;
}

bool cf_hfile_sniff(cf_io *io)
{
    uint64_t size = io->ops->size(io);
    if (size < HF_TRAILER_V1)
        return false;
    uint8_t vb[4];
    if (io->ops->read_at(io, size - 4, vb, 4, NULL) != CF_OK)
        return false;
    uint32_t ver = cf_load_be32(vb);
    uint32_t major = ver & 0xffffff;
    uint32_t ts = major == 1   ? HF_TRAILER_V1
                  : major == 2 ? HF_TRAILER_V2
                  : major == 3 ? HF_TRAILER_V3
                               : 0;
    if (ts == 0 || size < ts)
        return false;
    uint8_t m[HF_MAGIC_LEN];
    if (io->ops->read_at(io, size - ts, m, HF_MAGIC_LEN, NULL) != CF_OK)
        return false;
    return memcmp(m, HF_TRAILER, HF_MAGIC_LEN) == 0;
}

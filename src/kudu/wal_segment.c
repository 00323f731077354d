/* One WAL segment read as Kudu reads it (consensus/log_util.cc: ReadableLogSegment
 * Init/ReadHeader/ReadFooter, LogEntryReader::ReadNextEntry and HandleReadError,
 * ScanForValidEntryHeaders, DecodeEntryHeader, ReadEntryBatch).
 *
 * Layout: "kudulogf", fixed32 header length, LogSegmentHeaderPB; entry batches,
 * each an entry header (v2: fixed32 body length as written, fixed32 length after
 * decompression, fixed32 CRC-32C of the body as written, fixed32 CRC-32C of the
 * 12 bytes before it; v1, for headers with DEPRECATED_major_version: length,
 * body CRC, header CRC) and a LogEntryBatchPB body, compressed with the header's
 * compression_codec; then, once the segment is closed, LogSegmentFooterPB,
 * "closedls", fixed32 footer length.
 *
 * Where the entries end: up to the footer when there is one, else the file's
 * end. A bad entry in a segment with a footer is damage. Without a footer
 * (the server stopped while writing it) a bad entry is a torn tail when no
 * valid-looking entry header follows it anywhere in the file (Kudu's scan,
 * byte by byte; runs of zeros skipped where no header can start, with the same
 * verdicts), and damage when one does. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "codec/compress.h"
#include "codec/crc32c.h"
#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"
#include "wal.h"

/* Kudu scans for headers in chunks of 1 MiB overlapping by a header. */
#define SCAN_CHUNK ((size_t)1 << 20)

/* The first offset at or after i whose byte is not zero, else n: eight bytes at a
 * time, since preallocated segments hold megabytes of zeros. */
static size_t zero_run_end(const uint8_t *p, size_t i, size_t n)
{
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        if (w != 0)
            break;
    }
    while (i < n && p[i] == 0)
        i++;
    return i;
}

static bool all_zeros(const uint8_t *p, size_t n)
{
    return zero_run_end(p, 0, n) == n;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

typedef enum { HDR_OK, HDR_ZEROS, HDR_CRC } hdr_status;

typedef struct entry_header {
    uint32_t len;      /* body length as written */
    uint32_t raw_len;  /* after decompression */
    uint32_t body_crc; /* CRC-32C of the body as written */
} entry_header;

static hdr_status decode_header(const uint8_t *p, size_t hlen, entry_header *h)
{
    uint32_t want;
    uint32_t got = cf_crc32c(p, hlen - 4);
    if (hlen == KUDU_WAL_ENTRY_HEADER_V2) {
        h->len = le32(p);
        h->raw_len = le32(p + 4);
        h->body_crc = le32(p + 8);
        want = le32(p + 12);
    } else {
        h->len = h->raw_len = le32(p);
        h->body_crc = le32(p + 4);
        want = le32(p + 8);
    }
    if (got == want)
        return HDR_OK;
    return all_zeros(p, hlen) ? HDR_ZEROS : HDR_CRC;
}

/* Fields Kudu's messages declare `required` (log.proto, consensus.proto, opid.proto,
 * tserver.proto, tserver_admin.proto, common.proto, wire_protocol.proto,
 * rpc_header.proto): proto/kudu/ makes every field optional, so what Kudu's
 * ParseFromArray would refuse for a missing field is refused here. */
static const struct required_field {
    const char *message, *field;
} required[] = {
    {"LogEntryPB", "type"},
    {"LogSegmentHeaderPB", "tablet_id"},
    {"LogSegmentHeaderPB", "sequence_number"},
    {"LogSegmentHeaderPB", "schema"},
    {"LogSegmentFooterPB", "num_entries"},
    {"ReplicateMsg", "id"},
    {"ReplicateMsg", "timestamp"},
    {"ReplicateMsg", "op_type"},
    {"CommitMsg", "op_type"},
    {"OpId", "term"},
    {"OpId", "index"},
    {"WriteRequestPB", "tablet_id"},
    {"AlterSchemaRequestPB", "tablet_id"},
    {"AlterSchemaRequestPB", "schema"},
    {"AlterSchemaRequestPB", "schema_version"},
    {"ColumnSchemaPB", "name"},
    {"ColumnSchemaPB", "type"},
    {"AppStatusPB", "code"},
    {"RequestIdPB", "client_id"},
    {"RequestIdPB", "seq_no"},
    {"RequestIdPB", "first_incomplete_seq_no"},
    {"RequestIdPB", "attempt_no"},
    {"HostPortPB", "host"},
    {"HostPortPB", "port"},
};

static bool is_required(const char *msg, const char *field)
{
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (strcmp(required[i].message, msg) == 0 && strcmp(required[i].field, field) == 0)
            return true;
    return false;
}

static bool field_present(const ProtobufCMessage *m, const ProtobufCFieldDescriptor *f)
{
    const uint8_t *base = (const uint8_t *)m;
    if (f->label == PROTOBUF_C_LABEL_REPEATED)
        return *(const size_t *)(base + f->quantifier_offset) > 0;
    if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
        return *(const uint32_t *)(base + f->quantifier_offset) == f->id;
    if (f->type == PROTOBUF_C_TYPE_MESSAGE || f->type == PROTOBUF_C_TYPE_STRING)
        return *(const void *const *)(base + f->offset) != NULL;
    return *(const protobuf_c_boolean *)(base + f->quantifier_offset);
}

/* The first required field missing in m or a message inside it ("OpId.index"), or
 * NULL. Depth is bounded by protobuf-c's own unpacking. */
static const char *missing_required(const ProtobufCMessage *m, char *buf, size_t cap)
{
    const ProtobufCMessageDescriptor *d = m->descriptor;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        bool present = field_present(m, f);
        if (!present) {
            if (is_required(d->short_name, f->name)) {
                snprintf(buf, cap, "%s.%s", d->short_name, f->name);
                return buf;
            }
            continue;
        }
        if (f->type != PROTOBUF_C_TYPE_MESSAGE)
            continue;
        const uint8_t *base = (const uint8_t *)m;
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            size_t n = *(const size_t *)(base + f->quantifier_offset);
            const ProtobufCMessage *const *arr =
                *(const ProtobufCMessage *const *const *)(base + f->offset);
            for (size_t k = 0; k < n; k++)
                if (missing_required(arr[k], buf, cap) != NULL)
                    return buf;
        } else if (missing_required(*(const ProtobufCMessage *const *)(base + f->offset), buf,
                                    cap) != NULL) {
            return buf;
        }
    }
    return NULL;
}

typedef struct seg_reader {
    kudu_wal_seg *s;
    cf_io *io;
    size_t hlen;          /* entry header size */
    cf_compression codec; /* CF_COMP_NONE: bodies stored as they are */
    uint8_t *buf;         /* one body as written, then decompressed */
    size_t cap;
} seg_reader;

static cf_status read_at(seg_reader *r, uint64_t off, void *dst, size_t len, cf_error *err)
{
    cf_status st = r->io->ops->read_at(r->io, off, dst, len, err);
    if (st != CF_OK)
        return cf_error_prefix(err, st, "%s at offset %" PRIu64 ": ", r->s->name, off);
    return CF_OK;
}

static cf_status grow(seg_reader *r, size_t need, cf_error *err)
{
    if (need <= r->cap)
        return CF_OK;
    uint8_t *p = cf_realloc(r->buf, need);
    CF_CHECK(p != NULL, err, CF_ENOMEM, "%s: out of memory for a %zu-byte entry batch", r->s->name,
             need);
    r->buf = p;
    r->cap = need;
    return CF_OK;
}

/* Is there a valid-looking entry header at any offset in [from, size - hlen)?
 * (ScanForValidEntryHeaders: positions p with p + hlen < size; valid means only
 * that the header's CRC matches, DecodeEntryHeader checks no length, so neither do
 * we.) Kudu tries every offset; so do we, except where the verdict is known without
 * a CRC: a header of all zeros is valid only if the CRC-32C of hlen - 4 zero bytes
 * is zero, which it is not, so inside a run of zeros only the offsets less than a
 * header from its end need a CRC. That keeps a torn batch followed by a
 * preallocated megabyte of zeros from costing a CRC per byte. */
static cf_status scan_for_headers(seg_reader *r, uint64_t from, bool *found, cf_error *err)
{
    uint64_t size = r->s->size;
    size_t hlen = r->hlen;
    *found = false;
    if (size <= hlen)
        return CF_OK;
    static const uint8_t zero_header[KUDU_WAL_ENTRY_HEADER_V2];
    entry_header zh;
    bool skip_zeros = decode_header(zero_header, hlen, &zh) != HDR_OK; /* computed, not assumed */
    CF_TRY(grow(r, SCAN_CHUNK, err));
    for (uint64_t off = from; off < size - hlen; off += SCAN_CHUNK - hlen) {
        size_t n = (size_t)(size - off < SCAN_CHUNK ? size - off : SCAN_CHUNK);
        CF_TRY(read_at(r, off, r->buf, n, err));
        const uint8_t *p = r->buf;
        size_t zend = 0; /* when i < zend: where the run of zeros holding i ends */
        for (size_t i = 0; i + hlen < n;) {
            if (skip_zeros && p[i] == 0) {
                if (i >= zend)
                    zend = zero_run_end(p, i, n);
                if (zend - i >= hlen) {
                    i = zend - hlen + 1; /* the headers starting before it are all zeros */
                    continue;
                }
            }
            entry_header h;
            if (decode_header(p + i, hlen, &h) == HDR_OK) {
                *found = true;
                return CF_OK;
            }
            i++;
        }
    }
    return CF_OK;
}

/* Header magic and header (ReadHeader). */
static cf_status read_seg_header(seg_reader *r, cf_error *err)
{
    kudu_wal_seg *s = r->s;
    uint8_t fixed[KUDU_WAL_FIXED_LEN];
    CF_CHECK(s->size >= KUDU_WAL_FIXED_LEN, err, CF_ECORRUPT,
             "%s at offset 0: %" PRIu64 "-byte file, too short for the segment magic and "
             "header length",
             s->name, s->size);
    CF_TRY(read_at(r, 0, fixed, sizeof fixed, err));
    if (memcmp(fixed, KUDU_WAL_HEADER_MAGIC, KUDU_WAL_MAGIC_LEN) != 0) {
        if (all_zeros(fixed, sizeof fixed)) {
            s->uninitialized = true;
            return CF_OK;
        }
        CF_FAIL(err, CF_ECORRUPT, "%s at offset 0: bad segment magic (not \"kudulogf\")", s->name);
    }
    uint32_t len = le32(fixed + 8);
    CF_CHECK(len <= KUDU_WAL_MAX_HEADER_LEN, err, CF_ECORRUPT,
             "%s at offset 8: header length %" PRIu32 " exceeds the maximum %u", s->name, len,
             KUDU_WAL_MAX_HEADER_LEN);
    CF_CHECK(len <= s->size - KUDU_WAL_FIXED_LEN, err, CF_ECORRUPT,
             "%s at offset 8: header length %" PRIu32 " runs past the file's end (%" PRIu64
             " bytes)",
             s->name, len, s->size);
    s->header_bytes = cf_malloc(len ? len : 1);
    CF_CHECK(s->header_bytes != NULL, err, CF_ENOMEM, "%s: out of memory", s->name);
    s->header_len = len;
    CF_TRY(read_at(r, KUDU_WAL_FIXED_LEN, s->header_bytes, len, err));
    s->header = kudu__log__log_segment_header_pb__unpack(&s->mem.a, len, s->header_bytes);
    CF_CHECK(s->header != NULL || !s->mem.oom, err, CF_ENOMEM, "%s: out of memory", s->name);
    CF_CHECK(s->header != NULL, err, CF_ECORRUPT,
             "%s at offset 12: the segment header (LogSegmentHeaderPB, %" PRIu32
             " bytes) does not parse",
             s->name, len);
    char miss[128];
    CF_CHECK(missing_required(&s->header->base, miss, sizeof miss) == NULL, err, CF_ECORRUPT,
             "%s at offset 12: the segment header lacks the required field %s", s->name, miss);
    CF_CHECK(s->header->n_incompatible_features == 0, err, CF_ENOTSUP,
             "%s: the segment header names an incompatible feature (%d), not supported", s->name,
             (int)s->header->incompatible_features[0]);
    s->first_entry_offset = KUDU_WAL_FIXED_LEN + (uint64_t)len;
    return CF_OK;
}

/* The footer, when the file ends in one (ReadFooter: a missing footer magic is
 * "no footer", anything else wrong with it is damage). */
static cf_status read_seg_footer(seg_reader *r, cf_error *err)
{
    kudu_wal_seg *s = r->s;
    uint8_t fixed[KUDU_WAL_FIXED_LEN];
    if (s->size <= KUDU_WAL_FIXED_LEN)
        return CF_OK;
    uint64_t at = s->size - KUDU_WAL_FIXED_LEN;
    CF_TRY(read_at(r, at, fixed, sizeof fixed, err));
    if (memcmp(fixed, KUDU_WAL_FOOTER_MAGIC, KUDU_WAL_MAGIC_LEN) != 0)
        return CF_OK;
    uint32_t len = le32(fixed + 8);
    CF_CHECK(len != 0 && len <= KUDU_WAL_MAX_HEADER_LEN, err, CF_ECORRUPT,
             "%s at offset %" PRIu64 ": footer length %" PRIu32 " is zero or exceeds %u", s->name,
             at + 8, len, KUDU_WAL_MAX_HEADER_LEN);
    /* Kudu compares with the bytes after the first entry; the footer must also
     * start after it, or it would overlap the header. */
    CF_CHECK(s->first_entry_offset <= at && len <= at - s->first_entry_offset, err, CF_ECORRUPT,
             "%s at offset %" PRIu64 ": footer length %" PRIu32
             " reaches back before the first entry (offset %" PRIu64 ")",
             s->name, at + 8, len, s->first_entry_offset);
    uint64_t off = at - len;
    s->footer_bytes = cf_malloc(len);
    CF_CHECK(s->footer_bytes != NULL, err, CF_ENOMEM, "%s: out of memory", s->name);
    s->footer_len = len;
    CF_TRY(read_at(r, off, s->footer_bytes, len, err));
    s->footer = kudu__log__log_segment_footer_pb__unpack(&s->mem.a, len, s->footer_bytes);
    CF_CHECK(s->footer != NULL || !s->mem.oom, err, CF_ENOMEM, "%s: out of memory", s->name);
    CF_CHECK(s->footer != NULL, err, CF_ECORRUPT,
             "%s at offset %" PRIu64 ": the footer (LogSegmentFooterPB, %" PRIu32
             " bytes) does not parse",
             s->name, off, len);
    char miss[128];
    CF_CHECK(missing_required(&s->footer->base, miss, sizeof miss) == NULL, err, CF_ECORRUPT,
             "%s at offset %" PRIu64 ": the footer lacks the required field %s", s->name, off,
             miss);
    s->has_footer = true;
    return CF_OK;
}

/* One batch at `off` (ReadEntryHeaderAndBatch). A failure the caller may
 * forgive as a torn tail is CF_ECORRUPT with *zeros telling whether the entry
 * header was all zeros (preallocated space). */
static cf_status read_batch(seg_reader *r, uint64_t off, uint64_t limit, kudu_wal_batch *b,
                            bool *zeros, cf_error *err)
{
    kudu_wal_seg *s = r->s;
    uint8_t hb[KUDU_WAL_ENTRY_HEADER_V2];
    entry_header h;
    *zeros = false;
    if (off + r->hlen >= limit)
        CF_FAIL(err, CF_ECORRUPT,
                "%s at offset %" PRIu64 ": truncated entry (the %zu-byte entry header and a body "
                "do not fit before offset %" PRIu64 ")",
                s->name, off, r->hlen, limit);
    CF_TRY(read_at(r, off, hb, r->hlen, err));
    switch (decode_header(hb, r->hlen, &h)) {
    case HDR_OK: break;
    case HDR_ZEROS:
        *zeros = true;
        CF_FAIL(err, CF_ECORRUPT,
                "%s at offset %" PRIu64 ": preallocated space (zero entry header)", s->name, off);
    default:
        CF_FAIL(err, CF_ECORRUPT, "%s at offset %" PRIu64 ": entry header CRC mismatch", s->name,
                off);
    }
    uint64_t body = off + r->hlen;
    CF_CHECK(h.raw_len != 0, err, CF_ECORRUPT, "%s at offset %" PRIu64 ": entry length 0", s->name,
             off);
    CF_CHECK((uint64_t)h.len <= limit - body, err, CF_ECORRUPT,
             "%s at offset %" PRIu64 ": %" PRIu32 "-byte entry runs past offset %" PRIu64, s->name,
             off, h.len, limit);
    CF_CHECK(h.len <= KUDU_WAL_MAX_BATCH_LEN && h.raw_len <= KUDU_WAL_MAX_BATCH_LEN, err,
             CF_ECORRUPT, "%s at offset %" PRIu64 ": entry length %" PRIu32 " exceeds %u bytes",
             s->name, off, h.len > h.raw_len ? h.len : h.raw_len, KUDU_WAL_MAX_BATCH_LEN);
    size_t need = (size_t)h.len + (r->codec != CF_COMP_NONE ? (size_t)h.raw_len + CF_CODEC_PAD : 0);
    CF_TRY(grow(r, need ? need : 1, err));
    CF_TRY(read_at(r, body, r->buf, h.len, err));
    uint32_t crc = cf_crc32c(r->buf, h.len);
    CF_CHECK(crc == h.body_crc, err, CF_ECORRUPT,
             "%s at offset %" PRIu64 ": entry CRC mismatch over bytes %" PRIu64 "-%" PRIu64
             " (stored %08" PRIx32 ", computed %08" PRIx32 ")",
             s->name, off, body, body + h.len, h.body_crc, crc);
    const uint8_t *msg = r->buf;
    size_t msg_len = h.len;
    if (r->codec != CF_COMP_NONE) {
        uint8_t *dst = r->buf + h.len;
        cf_status st = cf_codec_decompress(r->codec, r->buf, h.len, dst, h.raw_len, err);
        if (st != CF_OK)
            return cf_error_prefix(err, kudu_recode(err, st == CF_ENOMEM ? st : CF_ECORRUPT),
                                   "%s at offset %" PRIu64 ": entry does not decompress (%s): ",
                                   s->name, off, cf_compression_name(r->codec));
        msg = dst;
        msg_len = h.raw_len;
    }
    b->pb = kudu__log__log_entry_batch_pb__unpack(&s->mem.a, msg_len, msg);
    CF_CHECK(b->pb != NULL || !s->mem.oom, err, CF_ENOMEM, "%s: out of memory", s->name);
    CF_CHECK(b->pb != NULL, err, CF_ECORRUPT,
             "%s at offset %" PRIu64 ": entry batch (LogEntryBatchPB, %zu bytes) does not parse",
             s->name, off, msg_len);
    char miss[128];
    if (missing_required(&b->pb->base, miss, sizeof miss) != NULL) {
        kudu__log__log_entry_batch_pb__free_unpacked(b->pb, &s->mem.a);
        b->pb = NULL;
        CF_FAIL(err, CF_ECORRUPT,
                "%s at offset %" PRIu64 ": entry batch lacks the required field %s", s->name, off,
                miss);
    }
    b->offset = off;
    b->end = body + h.len;
    return CF_OK;
}

static cf_status read_entries(seg_reader *r, cf_error *err)
{
    kudu_wal_seg *s = r->s;
    uint64_t off = s->first_entry_offset;
    uint64_t limit = s->has_footer ? s->size - KUDU_WAL_FIXED_LEN - s->footer_len : s->size;
    size_t cap = 0;
    s->end_offset = off;
    while (off < limit) {
        if (s->nbatches == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            kudu_wal_batch *nb = cf_realloc(s->batches, ncap * sizeof *nb);
            CF_CHECK(nb != NULL, err, CF_ENOMEM, "%s: out of memory", s->name);
            s->batches = nb;
            cap = ncap;
        }
        kudu_wal_batch *b = &s->batches[s->nbatches];
        bool zeros;
        cf_error e = {0};
        cf_status st = read_batch(r, off, limit, b, &zeros, &e);
        if (st != CF_OK) {
            if (st != CF_ECORRUPT || s->has_footer) {
                if (err)
                    *err = e;
                if (st == CF_ECORRUPT && s->has_footer)
                    cf_error_prefix(err, st, "closed segment: ");
                return st;
            }
            /* HandleReadError: a torn tail only if nothing valid follows. */
            bool found;
            CF_TRY(scan_for_headers(r, off + r->hlen, &found, err));
            if (found) {
                if (err)
                    *err = e;
                return cf_error_prefix(err, st, "valid entries follow a bad one: ");
            }
            s->torn_tail = true;
            snprintf(s->torn_why, sizeof s->torn_why, "%.255s",
                     zeros ? "preallocated space" : e.msg);
            break;
        }
        s->nbatches++;
        s->nentries += b->pb->n_entry;
        off = b->end;
        s->end_offset = off;
    }
    if (s->has_footer)
        CF_CHECK((uint64_t)s->footer->num_entries == s->nentries, err, CF_ECORRUPT,
                 "%s at offset %" PRIu64 ": read %zu entries, the footer says %" PRId64, s->name,
                 limit, s->nentries, s->footer->num_entries);
    return CF_OK;
}

cf_status kudu_wal_seg_read(kudu_wal_seg **out, cf_io *io, const char *name, cf_error *err)
{
    *out = NULL;
    kudu_wal_seg *s = cf_calloc(1, sizeof *s);
    CF_CHECK(s != NULL, err, CF_ENOMEM, "out of memory");
    cf_pb_mem_init(&s->mem);
    seg_reader r = {.s = s, .io = io, .codec = CF_COMP_NONE};
    cf_status st;
    s->name = strdup(name);
    if (s->name == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "out of memory");
    s->size = io->ops->size(io);
    CF_TRY_OUT(read_seg_header(&r, err));
    if (!s->uninitialized) {
        r.hlen = s->header->has_deprecated_major_version ? KUDU_WAL_ENTRY_HEADER_V1
                                                         : KUDU_WAL_ENTRY_HEADER_V2;
        if (s->header->has_compression_codec &&
            s->header->compression_codec != KUDU__COMPRESSION_TYPE__NO_COMPRESSION) {
            int c = (int)s->header->compression_codec;
            if (c != CF_COMP_SNAPPY && c != CF_COMP_LZ4 && c != CF_COMP_ZLIB)
                CF_FAIL_OUT(err, CF_ECORRUPT,
                            "%s: the header's compression_codec %d is not a codec", s->name, c);
            r.codec = (cf_compression)c;
            if (!cf_codec_available(r.codec))
                CF_FAIL_OUT(err, CF_ENOTSUP, "%s: codec %s is not in this build", s->name,
                            cf_compression_name(r.codec));
        }
        CF_TRY_OUT(read_seg_footer(&r, err));
        CF_TRY_OUT(read_entries(&r, err));
    }
    *out = s;
    s = NULL;
    st = CF_OK;
out:
    cf_free(r.buf);
    kudu_wal_seg_free(s);
    return st;
}

void kudu_wal_seg_free(kudu_wal_seg *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->nbatches; i++)
        kudu__log__log_entry_batch_pb__free_unpacked(s->batches[i].pb, &s->mem.a);
    if (s->header)
        kudu__log__log_segment_header_pb__free_unpacked(s->header, &s->mem.a);
    if (s->footer)
        kudu__log__log_segment_footer_pb__free_unpacked(s->footer, &s->mem.a);
    cf_free(s->batches);
    cf_free(s->header_bytes);
    cf_free(s->footer_bytes);
    free(s->name);
    cf_free(s);
}

/* Kudu's protobuf container files, read as ReadablePBContainerFile reads them
 * (src/kudu/util/pb_util.cc and the format comment of pb_util.h):
 *
 *   "kuducntr" | version (le32) | [v2: crc32c(magic, version) (le32)]
 *   records:  length (le32) | [v2: crc32c(length) (le32)] | message | crc32c (le32)
 *             (v1: the crc covers length and message; v2: the message alone)
 *
 * The first record of either version is the supplemental header
 * (ContainerSupHeaderPB: the message type's name and its FileDescriptorSet).
 * A record the file ends inside is "incomplete": in version 2 it is a torn last
 * write that Kudu tolerates (as is a zero length and length checksum followed by
 * nothing but zeros, KUDU-2260: space the filesystem extended but never wrote);
 * in version 1 Kudu calls it unrecoverable corruption. */
#include <cfile/kudu.h>

#include <string.h>

#include "codec/crc32c.h"
#include "kudu_common.pb-c.h"
#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/pb_mem.h"

#define PBC_MAGIC "kuducntr"
#define PBC_MAGIC_LEN 8u
/* Kudu parses records with a 512 MiB byte limit (pb_util.cc); a longer length is
 * damage, not a reason to allocate. */
#define PBC_MAX_RECORD (512u * 1024u * 1024u)

struct cf_kudu_pbc {
    cf_io *io;
    cf_io *owned; /* io opened by cf_kudu_pbc_open_file */
    char *name;
    uint32_t version;
    char *type;
    uint64_t size;
    uint64_t pos; /* next record */
    uint8_t *buf;
    size_t cap;
    bool done, torn;
    uint64_t torn_at;
};

static cf_status read_exact(cf_kudu_pbc *c, uint64_t off, void *dst, size_t len, cf_error *err)
{
    cf_status st = c->io->ops->read_at(c->io, off, dst, len, err);
    if (st != CF_OK)
        return cf_error_prefix(err, st, "%s: reading %zu bytes at offset %llu: ", c->name, len,
                               (unsigned long long)off);
    return CF_OK;
}

static cf_status grow(cf_kudu_pbc *c, size_t n, cf_error *err)
{
    if (n <= c->cap)
        return CF_OK;
    uint8_t *p = cf_realloc(c->buf, n);
    CF_CHECK(p != NULL, err, CF_ENOMEM, "%s: out of memory for a %zu-byte record", c->name, n);
    c->buf = p;
    c->cap = n;
    return CF_OK;
}

/* Are the bytes [off, size) all zero? Read in bounded chunks. */
static cf_status rest_is_zero(cf_kudu_pbc *c, uint64_t off, bool *zero, cf_error *err)
{
    uint8_t chunk[4096];
    *zero = true;
    while (off < c->size) {
        size_t n = c->size - off < sizeof chunk ? (size_t)(c->size - off) : sizeof chunk;
        CF_TRY(read_exact(c, off, chunk, n, err));
        for (size_t i = 0; i < n; i++) {
            if (chunk[i] != 0) {
                *zero = false;
                return CF_OK;
            }
        }
        off += n;
    }
    return CF_OK;
}

/* The record at c->pos: its message into c->buf. *incomplete when the file ends
 * inside it (or the KUDU-2260 zero tail starts there). */
static cf_status read_record(cf_kudu_pbc *c, size_t *len, bool *incomplete, cf_error *err)
{
    uint64_t at = c->pos;
    size_t head = c->version == 1 ? 4 : 8;
    uint8_t hb[8];
    *incomplete = false;
    if (c->size - at < head) {
        *incomplete = true;
        return CF_OK;
    }
    CF_TRY(read_exact(c, at, hb, head, err));
    uint32_t n = cf_load_le32(hb);
    if (c->version >= 2) {
        if (memcmp(hb, "\0\0\0\0\0\0\0\0", 8) == 0) {
            bool zero;
            CF_TRY(rest_is_zero(c, at + 8, &zero, err));
            if (zero) {
                *incomplete = true;
                return CF_OK;
            }
        }
        uint32_t want = cf_load_le32(hb + 4);
        uint32_t got = cf_crc32c(hb, 4);
        CF_CHECK(want == got, err, CF_ECORRUPT,
                 "%s: record at offset %llu: length checksum mismatch (stored 0x%08x, computed "
                 "0x%08x)",
                 c->name, (unsigned long long)at, want, got);
    }
    CF_CHECK(n <= PBC_MAX_RECORD, err, CF_ECORRUPT,
             "%s: record at offset %llu: length %u is over the 512 MiB limit", c->name,
             (unsigned long long)at, n);
    if (c->size - at - head < (uint64_t)n + 4) {
        *incomplete = true;
        return CF_OK;
    }
    CF_TRY(grow(c, (size_t)n + 4, err));
    CF_TRY(read_exact(c, at + head, c->buf, (size_t)n + 4, err));
    uint32_t want = cf_load_le32(c->buf + n);
    uint32_t got =
        c->version == 1 ? cf_crc32c_extend(cf_crc32c(hb, 4), c->buf, n) : cf_crc32c(c->buf, n);
    CF_CHECK(want == got, err, CF_ECORRUPT,
             "%s: record at offset %llu: data checksum mismatch (stored 0x%08x, computed 0x%08x)",
             c->name, (unsigned long long)at, want, got);
    *len = n;
    c->pos = at + head + n + 4;
    return CF_OK;
}

static cf_status read_header(cf_kudu_pbc *c, cf_error *err)
{
    uint8_t h[16];
    CF_CHECK(c->size >= 12, err, CF_ECORRUPT,
             "%s: %llu bytes is too short for a protobuf container header", c->name,
             (unsigned long long)c->size);
    size_t n = c->size >= 16 ? 16 : 12;
    CF_TRY(read_exact(c, 0, h, n, err));
    CF_CHECK(memcmp(h, PBC_MAGIC, PBC_MAGIC_LEN) == 0, err, CF_ECORRUPT,
             "%s: not a Kudu protobuf container (bad magic at offset 0)", c->name);
    c->version = cf_load_le32(h + 8);
    CF_CHECK(c->version == 1 || c->version == 2, err, CF_ENOTSUP,
             "%s: protobuf container version %u is not supported (offset 8; Kudu writes 1 and 2)",
             c->name, c->version);
    c->pos = 12;
    if (c->version == 2) {
        CF_CHECK(n == 16, err, CF_ECORRUPT, "%s: header ends at offset %llu, before its checksum",
                 c->name, (unsigned long long)c->size);
        uint32_t want = cf_load_le32(h + 12), got = cf_crc32c(h, 12);
        CF_CHECK(want == got, err, CF_ECORRUPT,
                 "%s: file header checksum mismatch at offset 12 (stored 0x%08x, computed 0x%08x)",
                 c->name, want, got);
        c->pos = 16;
    }
    uint64_t at = c->pos;
    size_t len = 0;
    bool incomplete;
    CF_TRY(read_record(c, &len, &incomplete, err));
    CF_CHECK(!incomplete, err, CF_ECORRUPT,
             "%s: the supplemental header at offset %llu is incomplete (the file ends at %llu)",
             c->name, (unsigned long long)at, (unsigned long long)c->size);
    cf_pb_mem mem;
    cf_pb_mem_init(&mem);
    Kudu__ContainerSupHeaderPB *sup = kudu__container_sup_header_pb__unpack(&mem.a, len, c->buf);
    CF_CHECK(sup != NULL || !mem.oom, err, CF_ENOMEM, "%s: out of memory", c->name);
    CF_CHECK(sup != NULL, err, CF_ECORRUPT,
             "%s: the supplemental header at offset %llu does not parse", c->name,
             (unsigned long long)at);
    cf_status st = CF_OK;
    if (sup->pb_type == NULL || sup->pb_type[0] == '\0')
        st = cf_error_set(err, CF_ECORRUPT, __FILE__, __LINE__,
                          "%s: the supplemental header at offset %llu names no message type",
                          c->name, (unsigned long long)at);
    else if ((c->type = cf_strdup(sup->pb_type)) == NULL)
        st = cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__, "%s: out of memory", c->name);
    kudu__container_sup_header_pb__free_unpacked(sup, &mem.a);
    return st;
}

cf_status cf_kudu_pbc_open(cf_kudu_pbc **out, cf_io *io, const char *name, cf_error *err)
{
    *out = NULL;
    CF_CHECK(io != NULL && name != NULL, err, CF_EINVAL, "cf_kudu_pbc_open: io and name needed");
    cf_kudu_pbc *c = cf_calloc(1, sizeof *c);
    CF_CHECK(c != NULL, err, CF_ENOMEM, "%s: out of memory", name);
    c->io = io;
    c->name = cf_strdup(name);
    c->size = io->ops->size(io);
    cf_status st = c->name != NULL ? read_header(c, err)
                                   : cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__,
                                                  "%s: out of memory", name);
    if (st != CF_OK) {
        cf_kudu_pbc_free(c);
        return st;
    }
    *out = c;
    return CF_OK;
}

cf_status cf_kudu_pbc_open_file(cf_kudu_pbc **out, const char *path, cf_error *err)
{
    *out = NULL;
    cf_io *io = NULL;
    /* The whole file, as a range: the range opener refuses a FIFO or device (which
     * cf_io_open_file would wait on until a writer appeared) as not a regular file. */
    CF_TRY(cf_io_open_file_range(&io, path, 0, UINT64_MAX, 0, err));
    cf_status st = cf_kudu_pbc_open(out, io, path, err);
    if (st != CF_OK) {
        cf_io_free(io);
        return st;
    }
    (*out)->owned = io;
    return CF_OK;
}

void cf_kudu_pbc_free(cf_kudu_pbc *c)
{
    if (c == NULL)
        return;
    cf_io_free(c->owned);
    cf_free(c->name);
    cf_free(c->type);
    cf_free(c->buf);
    cf_free(c);
}

uint32_t cf_kudu_pbc_version(const cf_kudu_pbc *c)
{
    return c->version;
}

const char *cf_kudu_pbc_type(const cf_kudu_pbc *c)
{
    return c->type;
}

cf_status cf_kudu_pbc_next(cf_kudu_pbc *c, const uint8_t **data, size_t *len, uint64_t *offset,
                           bool *has, cf_error *err)
{
    *has = false;
    *data = NULL;
    *len = 0;
    if (c->done || c->pos == c->size) {
        c->done = true;
        return CF_OK;
    }
    uint64_t at = c->pos;
    bool incomplete;
    size_t n = 0;
    CF_TRY(read_record(c, &n, &incomplete, err));
    if (incomplete) {
        CF_CHECK(c->version >= 2, err, CF_ECORRUPT,
                 "%s: the record at offset %llu is incomplete (the file ends at %llu), which a "
                 "version 1 container cannot recover from",
                 c->name, (unsigned long long)at, (unsigned long long)c->size);
        c->done = c->torn = true;
        c->torn_at = at;
        return CF_OK;
    }
    *data = c->buf;
    *len = n;
    if (offset != NULL)
        *offset = at;
    *has = true;
    return CF_OK;
}

bool cf_kudu_pbc_torn(const cf_kudu_pbc *c, uint64_t *offset)
{
    if (c->torn && offset != NULL)
        *offset = c->torn_at;
    return c->torn;
}

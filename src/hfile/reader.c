/* Opening an HFile: trailer, load-on-open section, data index, FileInfo,
 * meta index and Bloom metadata (HBase FixedFileTrailer, HFileBlockIndex,
 * HFileInfo, CompoundBloomFilter; hudi-io/hfile_format.md).
 *
 * File layout (v2/v3), in HBase's block order:
 *   data blocks, with inline IDXLEAF2 leaf-index and BLMFBLK2 Bloom chunks
 *   METABLKc meta blocks
 *   IDXINTE2 intermediate index blocks (3+ levels)
 *   load-on-open: IDXROOT2 data root (+16 bytes mid-key metadata when
 *     multi-level) | IDXROOT2 meta index | FILEINF2 | BLMFMET2 | DFBLMET2
 *   trailer
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
 * Root index entry: offset (8) | on-disk size (4) | vint key length | key.
 * Non-root (leaf/intermediate) block: entry count N (4) | N+1 entry offsets
 *   (4, relative to the first entry) | entries: offset (8) | size (4) | key.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "hfile.pb-c.h"
#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/pb_mem.h"

#define HF_MAX_LEVELS 16

void cf_hfile_options_init(cf_hfile_options *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->version = CF_HFILE_OPTIONS_VERSION;
    opts->verify_checksums = true;
    opts->max_block_len = (size_t)256 << 20;
}

static const char *const type_names[] = {
    "Minimum", "Put", "Delete", "DeleteFamilyVersion", "DeleteColumn", "DeleteFamily", "Maximum"};

const char *cf_hfile_type_name(uint8_t t)
{
    switch (t) {
    case CF_HFILE_MINIMUM: return type_names[0];
    case CF_HFILE_PUT: return type_names[1];
    case CF_HFILE_DELETE: return type_names[2];
    case CF_HFILE_DELETE_FAMILY_VERSION: return type_names[3];
    case CF_HFILE_DELETE_COLUMN: return type_names[4];
    case CF_HFILE_DELETE_FAMILY: return type_names[5];
    case CF_HFILE_MAXIMUM: return type_names[6];
    default: return NULL;
    }
}

/* ---- index entries ------------------------------------------------------------------- */

/* Key buffers always own memory, so "data + offset" is valid even when every
 * key is empty. */
static void keybuf_init(cf_buf *b)
{
    cf_buf_init(b);
    (void)cf_buf_reserve(b, 16);
}

static cf_status vec_push(entry_vec *e, cf_buf *keys, uint64_t off, uint32_t size,
                          const uint8_t *key, size_t key_len, size_t limit, cf_error *err)
{
    CF_CHECK(e->n < limit, err, CF_ECORRUPT, "index lists more than %zu entries", limit);
    if (e->n == e->cap) {
        size_t nc = e->cap ? e->cap * 2 : 16;
        size_t bytes;
        CF_CHECK(cf_mul_ok(nc, sizeof(hf_entry), &bytes), err, CF_ENOMEM, "index too large");
        hf_entry *nv = cf_realloc(e->v, bytes);
        CF_CHECK(nv != NULL, err, CF_ENOMEM, "index: out of memory");
        e->v = nv;
        e->cap = nc;
    }
    CF_CHECK(key_len <= UINT32_MAX, err, CF_ECORRUPT, "index key too long");
    e->v[e->n++] = (hf_entry){off, size, (uint32_t)key_len, keys->len};
    cf_buf_append(keys, key, key_len);
    return cf_buf_status(keys);
}

/* Root-format entries: count of them from p (n bytes); *used = bytes consumed. */
static cf_status parse_root(const uint8_t *p, size_t n, uint64_t count, entry_vec *e, cf_buf *keys,
                            size_t *used, const char *what, cf_error *err)
{
    CF_CHECK(count <= n / 13, err, CF_ECORRUPT, "%s: %" PRIu64 " entries cannot fit in %zu bytes",
             what, count, n);
    size_t pos = 0;
    for (uint64_t i = 0; i < count; i++) {
        CF_CHECK(n - pos >= 13, err, CF_ECORRUPT, "%s: entry %" PRIu64 " truncated", what, i);
        uint64_t off = cf_load_be64(p + pos);
        uint32_t size = cf_load_be32(p + pos + 8);
        pos += 12;
        int64_t klen;
        size_t m = cf_hfile_get_vlong(p + pos, n - pos, &klen);
        CF_CHECK(m > 0, err, CF_ECORRUPT, "%s: entry %" PRIu64 " key length truncated", what, i);
        pos += m;
        CF_CHECK(klen >= 0 && (uint64_t)klen <= n - pos, err, CF_ECORRUPT,
                 "%s: entry %" PRIu64 " key length %" PRId64 " exceeds the block", what, i, klen);
        CF_TRY(vec_push(e, keys, off, size, p + pos, (size_t)klen, SIZE_MAX / 2, err));
        pos += (size_t)klen;
    }
    *used = pos;
    return CF_OK;
}

/* Non-root block payload into (off, size, key slice) callbacks via a vec. */
static cf_status parse_nonroot(const uint8_t *p, size_t n, entry_vec *e, cf_buf *keys, size_t limit,
                               cf_error *err)
{
    CF_CHECK(n >= 4, err, CF_ECORRUPT, "non-root index block: %zu bytes", n);
    uint32_t cnt = cf_load_be32(p);
    CF_CHECK(cnt <= (n - 4) / 16 && (size_t)cnt * 4 + 4 <= n - 4, err, CF_ECORRUPT,
             "non-root index block: %" PRIu32 " entries cannot fit in %zu bytes", cnt, n);
    const uint8_t *sec = p + 4;
    size_t base = 4 + ((size_t)cnt + 1) * 4;
    size_t area = n - base;
    for (uint32_t i = 0; i < cnt; i++) {
        uint32_t a = cf_load_be32(sec + 4 * i), b = cf_load_be32(sec + 4 * (i + 1));
        CF_CHECK(a <= b && b <= area && b - a >= 12, err, CF_ECORRUPT,
                 "non-root index block: entry %" PRIu32 " spans [%" PRIu32 ", %" PRIu32
                 ") of %zu bytes",
                 i, a, b, area);
        const uint8_t *q = p + base + a;
        CF_TRY(vec_push(e, keys, cf_load_be64(q), cf_load_be32(q + 8), q + 12, b - a - 12, limit,
                        err));
    }
    return CF_OK;
}

typedef struct flatten {
    cf_hfile *h;
    entry_vec out;
    size_t limit;
    uint64_t blocks_read, max_blocks;
    hf_block blk;
} flatten;

static cf_status descend(flatten *f, uint64_t off, uint32_t size, const uint8_t *key,
                         size_t key_len, uint32_t levels_below, cf_error *err)
{
    cf_hfile *h = f->h;
    if (levels_below == 0) {
        CF_CHECK(off < h->tr.load_on_open_data_offset, err, CF_ECORRUPT,
                 "data block offset %" PRIu64 " lies in the load-on-open section", off);
        return vec_push(&f->out, &h->keys, off, size, key, key_len, f->limit, err);
    }
    CF_CHECK(++f->blocks_read <= f->max_blocks, err, CF_ECORRUPT,
             "index references more index blocks than the file can hold");
    const char *magic = levels_below == 1 ? HF_LEAF : HF_INTER;
    if (levels_below == 1)
        h->info.leaf_index_blocks++;
    else
        h->info.intermediate_index_blocks++;
    CF_TRY(cf_hfile_read_block(h, off, size, magic, h->opt.verify_checksums, &f->blk, err));
    entry_vec kids = {0};
    cf_buf kkeys;
    keybuf_init(&kkeys);
    cf_status st =
        parse_nonroot(f->blk.payload, f->blk.payload_len, &kids, &kkeys, SIZE_MAX / 2, err);
    if (st == CF_OK && kids.n > 0) {
        /* The index key of a child must not sort after its first grandchild's (loose check). */
        for (size_t i = 0; i < kids.n && st == CF_OK; i++)
            st = descend(f, kids.v[i].off, kids.v[i].size, kkeys.data + kids.v[i].key_off,
                         kids.v[i].key_len, levels_below - 1, err);
    }
    if (st != CF_OK)
        st = cf_error_prefix(err, st, "index block at offset %" PRIu64 ": ", off);
    cf_free(kids.v);
    cf_buf_dispose(&kkeys);
    return st;
}

/* ---- FileInfo ------------------------------------------------------------------------ */

static cf_status fi_add(cf_hfile *h, entry_vec *unused, const uint8_t *k, size_t kl,
                        const uint8_t *v, size_t vl, size_t *cap, cf_error *err)
{
    (void)unused;
    if (h->info.file_info_count == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        hf_fi *n = cf_realloc(h->fi, nc * sizeof(hf_fi));
        CF_CHECK(n != NULL, err, CF_ENOMEM, "file info: out of memory");
        h->fi = n;
        *cap = nc;
    }
    hf_fi *e = &h->fi[h->info.file_info_count++];
    e->key_off = h->fi_buf.len;
    e->key_len = kl;
    cf_buf_append(&h->fi_buf, k, kl);
    e->val_off = h->fi_buf.len;
    e->val_len = vl;
    cf_buf_append(&h->fi_buf, v, vl);
    return cf_buf_status(&h->fi_buf);
}

/* Writable map: count (4) | { vint key len | key | class code (1) | vint len | value }. */
static cf_status parse_fileinfo_writable(cf_hfile *h, const uint8_t *p, size_t n, cf_error *err)
{
    CF_CHECK(n >= 4, err, CF_ECORRUPT, "file info: %zu bytes hold no entry count", n);
    uint32_t cnt = cf_load_be32(p);
    CF_CHECK(cnt <= (n - 4) / 3, err, CF_ECORRUPT, "file info: %" PRIu32 " entries in %zu bytes",
             cnt, n);
    size_t pos = 4, cap = 0;
    for (uint32_t i = 0; i < cnt; i++) {
        int64_t kl, vl;
        size_t m = cf_hfile_get_vlong(p + pos, n - pos, &kl);
        CF_CHECK(m > 0 && kl >= 0 && (uint64_t)kl <= n - pos - m, err, CF_ECORRUPT,
                 "file info: entry %" PRIu32 " key truncated", i);
        const uint8_t *k = p + pos + m;
        pos += m + (size_t)kl;
        CF_CHECK(n - pos >= 1, err, CF_ECORRUPT, "file info: entry %" PRIu32 " class code missing",
                 i);
        pos++;
        m = cf_hfile_get_vlong(p + pos, n - pos, &vl);
        CF_CHECK(m > 0 && vl >= 0 && (uint64_t)vl <= n - pos - m, err, CF_ECORRUPT,
                 "file info: entry %" PRIu32 " value truncated", i);
        CF_TRY(fi_add(h, NULL, k, (size_t)kl, p + pos + m, (size_t)vl, &cap, err));
        pos += m + (size_t)vl;
    }
    return CF_OK;
}

static cf_status parse_fileinfo(cf_hfile *h, const uint8_t *p, size_t n, cf_error *err)
{
    if (n < 4 || memcmp(p, "PBUF", 4) != 0)
        return parse_fileinfo_writable(h, p, n, err);
    int64_t len = 0;
    /* protobuf varint delimiter (not a Hadoop vlong) */
    uint64_t v = 0;
    size_t pos = 4;
    int shift = 0;
    for (;;) {
        CF_CHECK(pos < n && shift < 64, err, CF_ECORRUPT, "file info: bad length varint");
        uint8_t b = p[pos++];
        v |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80))
            break;
    }
    CF_CHECK(v <= n - pos, err, CF_ECORRUPT,
             "file info: message of %" PRIu64 " bytes exceeds the %zu-byte block", v, n - pos);
    len = (int64_t)v;
    cf_pb_mem mem;
    cf_pb_mem_init(&mem);
    Hbase__FileInfoProto *m = hbase__file_info_proto__unpack(&mem.a, (size_t)len, p + pos);
    CF_CHECK(m != NULL || !mem.oom, err, CF_ENOMEM, "file info: out of memory");
    CF_CHECK(m != NULL, err, CF_ECORRUPT, "file info: FileInfoProto does not parse");
    cf_status st = CF_OK;
    size_t cap = 0;
    for (size_t i = 0; i < m->n_map_entry && st == CF_OK; i++) {
        Hbase__BytesBytesPair *e = m->map_entry[i];
        st = fi_add(h, NULL, e->first.data, e->first.len, e->second.data, e->second.len, &cap, err);
    }
    hbase__file_info_proto__free_unpacked(m, &mem.a);
    return st;
}

bool cf_hfile_file_info_get(const cf_hfile *h, const char *key, cf_slice *value)
{
    size_t kl = strlen(key);
    for (size_t i = 0; i < h->info.file_info_count; i++) {
        const hf_fi *e = &h->fi[i];
        if (e->key_len == kl && memcmp(h->fi_buf.data + e->key_off, key, kl) == 0) {
            if (value)
                *value = (cf_slice){h->fi_buf.data + e->val_off, e->val_len};
            return true;
        }
    }
    return false;
}

bool cf_hfile_file_info_at(const cf_hfile *h, size_t i, cf_slice *key, cf_slice *value)
{
    if (i >= h->info.file_info_count) {
        *key = *value = (cf_slice){NULL, 0};
        return false;
    }
    const hf_fi *e = &h->fi[i];
    *key = (cf_slice){h->fi_buf.data + e->key_off, e->key_len};
    *value = (cf_slice){h->fi_buf.data + e->val_off, e->val_len};
    return true;
}

/* ---- trailer ------------------------------------------------------------------------- */

static cf_status parse_trailer(cf_hfile *h, cf_error *err)
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
        t->file_info_offset = cf_load_be64(p);
        t->data_index_offset = cf_load_be64(p + 8);
        t->data_index_count = cf_load_be32(p + 16);
        t->meta_index_offset = cf_load_be64(p + 20);
        t->meta_index_count = cf_load_be32(p + 28);
        t->total_uncompressed_bytes = cf_load_be64(p + 32);
        t->entry_count = cf_load_be32(p + 40);
        t->compression_codec = cf_load_be32(p + 44);
        t->num_data_index_levels = 1;
        return CF_OK;
    }
    if (t->major == 2 && t->minor < 2) {
        t->file_info_offset = cf_load_be64(p);
        t->load_on_open_data_offset = cf_load_be64(p + 8);
        t->data_index_count = cf_load_be32(p + 16);
        t->uncompressed_data_index_size = cf_load_be64(p + 20);
        t->meta_index_count = cf_load_be32(p + 28);
        t->total_uncompressed_bytes = cf_load_be64(p + 32);
        t->entry_count = cf_load_be64(p + 40);
        t->compression_codec = cf_load_be32(p + 48);
        t->num_data_index_levels = cf_load_be32(p + 52);
        t->first_data_block_offset = cf_load_be64(p + 56);
        t->last_data_block_offset = cf_load_be64(p + 64);
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

/* ---- Bloom metadata ------------------------------------------------------------------ */

static cf_status parse_bloom_meta(cf_hfile *h, int which, const uint8_t *p, size_t n, cf_error *err)
{
    hf_bloom *b = &h->bloom[which];
    CF_CHECK(!b->present, err, CF_ECORRUPT, "two Bloom metadata blocks of the same kind");
    CF_CHECK(n >= 40, err, CF_ECORRUPT, "Bloom metadata: %zu bytes too short", n);
    cf_hfile_bloom_info *i = &b->info;
    i->version = cf_load_be32(p);
    CF_CHECK(i->version == 3, err, CF_ECORRUPT, "Bloom metadata: version %" PRIu32 ", expected 3",
             i->version);
    i->total_byte_size = cf_load_be64(p + 4);
    i->hash_count = cf_load_be32(p + 12);
    i->hash_type = cf_load_be32(p + 16);
    i->total_key_count = cf_load_be64(p + 20);
    i->total_max_keys = cf_load_be64(p + 28);
    i->num_chunks = cf_load_be32(p + 36);
    CF_CHECK(i->hash_type <= 2, err, CF_ECORRUPT, "Bloom metadata: unknown hash type %" PRIu32,
             i->hash_type);
    CF_CHECK(i->hash_count >= 1 && i->hash_count <= 1024, err, CF_ECORRUPT,
             "Bloom metadata: hash count %" PRIu32, i->hash_count);
    size_t pos = 40;
    int64_t cl;
    size_t m = cf_hfile_get_vlong(p + pos, n - pos, &cl);
    CF_CHECK(m > 0 && cl >= 0 && (uint64_t)cl <= n - pos - m, err, CF_ECORRUPT,
             "Bloom metadata: comparator name truncated");
    pos += m;
    size_t cmp_off = pos;
    pos += (size_t)cl;
    entry_vec e = {0};
    size_t used = 0;
    keybuf_init(&b->keys);
    /* Keep the comparator name first in the key buffer. */
    cf_buf_append(&b->keys, p + cmp_off, (size_t)cl);
    cf_status st =
        parse_root(p + pos, n - pos, i->num_chunks, &e, &b->keys, &used, "Bloom chunk index", err);
    b->chunks = e.v;
    if (st != CF_OK)
        return st;
    i->comparator = (cf_slice){b->keys.data, (size_t)cl};
    b->present = true;
    return CF_OK;
}

const cf_hfile_bloom_info *cf_hfile_bloom(const cf_hfile *h, int which)
{
    if (which < 0 || which > 1 || !h->bloom[which].present)
        return NULL;
    return &h->bloom[which].info;
}

bool cf_hfile_bloom_chunk_at(const cf_hfile *h, int which, uint32_t i, uint64_t *offset,
                             uint32_t *on_disk_size, cf_slice *first_key)
{
    if (cf_hfile_bloom(h, which) == NULL || i >= h->bloom[which].info.num_chunks) {
        *offset = 0;
        *on_disk_size = 0;
        *first_key = (cf_slice){NULL, 0};
        return false;
    }
    const hf_bloom *b = &h->bloom[which];
    const hf_entry *e = &b->chunks[i];
    *offset = e->off;
    *on_disk_size = e->size;
    *first_key = (cf_slice){b->keys.data + e->key_off, e->key_len};
    return true;
}

static int raw_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
    size_t n = al < bl ? al : bl;
    int r = n ? memcmp(a, b, n) : 0;
    if (r != 0)
        return r;
    return al < bl ? -1 : al > bl;
}

cf_status cf_hfile_bloom_may_contain(const cf_hfile *h, int which, const void *row, size_t len,
                                     bool *out, cf_error *err)
{
    *out = true;
    if (which < 0 || which > 1 || !h->bloom[which].present)
        return CF_OK;
    if (which == CF_HFILE_BLOOM_GENERAL) {
        cf_slice t;
        if (cf_hfile_file_info_get(h, "BLOOM_FILTER_TYPE", &t) &&
            !(t.len == 3 && memcmp(t.data, "ROW", 3) == 0))
            CF_FAIL(err, CF_ENOTSUP, "Bloom filter type %.*s: only ROW Blooms are probed by row",
                    (int)(t.len > 32 ? 32 : t.len), (const char *)t.data);
    }
    const hf_bloom *b = &h->bloom[which];
    /* The last chunk whose first key is <= row; none means absent. */
    size_t lo = 0, hi = b->info.num_chunks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const hf_entry *e = &b->chunks[mid];
        if (raw_cmp(b->keys.data + e->key_off, e->key_len, row, len) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) {
        *out = false;
        return CF_OK;
    }
    const hf_entry *e = &b->chunks[lo - 1];
    hf_block blk;
    cf_hfile_block_init(&blk);
    cf_status st =
        cf_hfile_read_block(h, e->off, e->size, HF_BLOOMCHK, h->opt.verify_checksums, &blk, err);
    if (st == CF_OK)
        *out = cf_hfile_bloom_probe(b->info.hash_type, b->info.hash_count, blk.payload,
                                    blk.payload_len, row, len);
    cf_hfile_block_dispose(&blk);
    return st;
}

/* ---- open ---------------------------------------------------------------------------- */

/* A compressed v1 index stores each block's uncompressed size; its bytes on
 * disk run to whatever structure starts next (a block, FileInfo, an index). */
static uint64_t v1_next(const cf_hfile *h, uint64_t off, uint64_t tstart)
{
    const cf_hfile_trailer *t = &h->tr;
    uint64_t end = tstart;
    uint64_t fixed[3] = {t->file_info_offset, t->data_index_offset, t->meta_index_offset};
    for (int i = 0; i < 3; i++)
        if (fixed[i] > off && fixed[i] < end)
            end = fixed[i];
    for (uint64_t i = 0; i < h->info.num_data_blocks; i++)
        if (h->blocks[i].off > off && h->blocks[i].off < end)
            end = h->blocks[i].off;
    for (size_t i = 0; i < h->info.meta_count; i++)
        if (h->metas[i].off > off && h->metas[i].off < end)
            end = h->metas[i].off;
    return end;
}

static void fix_v1_extents(cf_hfile *h, uint64_t tstart)
{
    for (uint64_t i = 0; i < h->info.num_data_blocks; i++) {
        uint64_t n = v1_next(h, h->blocks[i].off, tstart) - h->blocks[i].off;
        h->blocks[i].size = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
    }
    for (size_t i = 0; i < h->info.meta_count; i++) {
        uint64_t n = v1_next(h, h->metas[i].off, tstart) - h->metas[i].off;
        h->metas[i].size = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
    }
}

static cf_status open_v1(cf_hfile *h, cf_error *err)
{
    cf_hfile_trailer *t = &h->tr;
    uint64_t tstart = h->file_size - t->trailer_size;
    h->hdr_size = 0;
    CF_CHECK(t->file_info_offset <= tstart && t->data_index_offset <= tstart &&
                 t->meta_index_offset <= tstart,
             err, CF_ECORRUPT, "v1 trailer: offsets past the trailer");
    cf_status st = CF_OK;
    uint8_t *buf = NULL;
    /* FileInfo runs up to the data index (v1 writes it just before). */
    uint64_t fi_end = t->data_index_offset > t->file_info_offset ? t->data_index_offset : tstart;
    size_t n = (size_t)(fi_end - t->file_info_offset);
    CF_CHECK(n <= h->opt.max_block_len, err, CF_ECORRUPT, "v1 file info too large");
    buf = cf_malloc(n ? n : 1);
    CF_CHECK(buf != NULL, err, CF_ENOMEM, "out of memory");
    CF_TRY_OUT(h->io->ops->read_at(h->io, t->file_info_offset, buf, n, err));
    CF_TRY_OUT(parse_fileinfo_writable(h, buf, n, err));
    cf_free(buf);
    buf = NULL;
    cf_slice cmp;
    if (cf_hfile_file_info_get(h, "hfile.COMPARATOR", &cmp)) {
        size_t cl = cmp.len < sizeof(t->comparator) - 1 ? cmp.len : sizeof(t->comparator) - 1;
        memcpy(t->comparator, cmp.data, cl);
        t->comparator[cl] = '\0';
    }
    /* v1 cells are read as opaque keys in byte order, whatever the comparator
     * (HBase 0.90's KeyComparator files included), as HFile v1 tools list them. */
    h->raw_compare = true;
    h->info.raw_keys = true;
    /* Data index: IDXBLK)+ then root-format entries. */
    uint64_t di_end = t->meta_index_count > 0 && t->meta_index_offset > t->data_index_offset
                          ? t->meta_index_offset
                          : tstart;
    n = (size_t)(di_end - t->data_index_offset);
    CF_CHECK(di_end >= t->data_index_offset && n >= HF_MAGIC_LEN && n <= h->opt.max_block_len, err,
             CF_ECORRUPT, "v1 data index: bad extent");
    buf = cf_malloc(n);
    CF_CHECK(buf != NULL, err, CF_ENOMEM, "out of memory");
    CF_TRY_OUT(h->io->ops->read_at(h->io, t->data_index_offset, buf, n, err));
    if (memcmp(buf, HF_IDXV1, HF_MAGIC_LEN) != 0)
        CF_FAIL_OUT(err, CF_ECORRUPT, "v1 data index: bad magic");
    entry_vec e = {0};
    size_t used;
    st = parse_root(buf + HF_MAGIC_LEN, n - HF_MAGIC_LEN, t->data_index_count, &e, &h->keys, &used,
                    "v1 data index", err);
    h->blocks = e.v;
    h->info.num_data_blocks = e.n;
    if (st != CF_OK)
        goto out;
    for (size_t i = 0; i < e.n; i++)
        if (e.v[i].off > tstart || e.v[i].size > tstart - e.v[i].off)
            CF_FAIL_OUT(err, CF_ECORRUPT, "v1 data block %zu: extent past the data", i);
    cf_free(buf);
    buf = NULL;
    if (t->meta_index_count > 0) {
        n = (size_t)(tstart - t->meta_index_offset);
        CF_CHECK(n >= HF_MAGIC_LEN && n <= h->opt.max_block_len, err, CF_ECORRUPT,
                 "v1 meta index: bad extent");
        buf = cf_malloc(n);
        CF_CHECK(buf != NULL, err, CF_ENOMEM, "out of memory");
        CF_TRY_OUT(h->io->ops->read_at(h->io, t->meta_index_offset, buf, n, err));
        if (memcmp(buf, HF_IDXV1, HF_MAGIC_LEN) != 0)
            CF_FAIL_OUT(err, CF_ECORRUPT, "v1 meta index: bad magic");
        entry_vec me = {0};
        st = parse_root(buf + HF_MAGIC_LEN, n - HF_MAGIC_LEN, t->meta_index_count, &me,
                        &h->meta_keys, &used, "v1 meta index", err);
        h->metas = me.v;
        h->info.meta_count = me.n;
    }
    if (st == CF_OK && t->compression_codec != CF_HFILE_NONE)
        fix_v1_extents(h, tstart);
    h->info.index_levels = 1;
    h->info.root_entries = t->data_index_count;
out:
    cf_free(buf);
    return st;
}

static cf_status open_v2(cf_hfile *h, cf_error *err)
{
    cf_hfile_trailer *t = &h->tr;
    uint64_t tstart = h->file_size - t->trailer_size;
    h->hdr_size = (t->major == 2 && t->minor == 0) ? HF_HDR_NOCKSUM : HF_HDR_CKSUM;
    h->info.checksums = h->hdr_size == HF_HDR_CKSUM;
    CF_CHECK(!t->has_encryption_key, err, CF_ENOTSUP, "encrypted HFiles are not supported");
    CF_CHECK(t->load_on_open_data_offset < tstart, err, CF_ECORRUPT,
             "trailer: load-on-open offset %" PRIu64 " is not before the trailer at %" PRIu64,
             t->load_on_open_data_offset, tstart);
    CF_CHECK(t->file_info_offset >= t->load_on_open_data_offset && t->file_info_offset < tstart,
             err, CF_ECORRUPT,
             "trailer: file info offset %" PRIu64 " outside the load-on-open "
             "section",
             t->file_info_offset);
    CF_CHECK(t->num_data_index_levels >= 1 && t->num_data_index_levels <= HF_MAX_LEVELS, err,
             CF_ECORRUPT, "trailer: %" PRIu32 " index levels", t->num_data_index_levels);
    CF_CHECK(cf_hfile_codec_name(t->compression_codec) != NULL, err, CF_ECORRUPT,
             "trailer: unknown compression codec %" PRIu32, t->compression_codec);
    CF_CHECK(cf_hfile_codec_built(t->compression_codec), err, CF_ENOTSUP,
             "compression %s is not supported by this build",
             cf_hfile_codec_name(t->compression_codec));
    h->raw_compare = false;
    h->info.index_levels = t->num_data_index_levels;
    h->info.root_entries = t->data_index_count;

    cf_status st = CF_OK;
    hf_block blk;
    cf_hfile_block_init(&blk);
    flatten f;
    memset(&f, 0, sizeof(f));
    cf_hfile_block_init(&f.blk);
    entry_vec root = {0};
    cf_buf rkeys;
    keybuf_init(&rkeys);

    /* Root data index, then the meta index right after it. */
    uint64_t off = t->load_on_open_data_offset;
    CF_TRY_OUT(cf_hfile_read_block(h, off, 0, HF_ROOT, h->opt.verify_checksums, &blk, err));
    size_t used = 0;
    st = parse_root(blk.payload, blk.payload_len, t->data_index_count, &root, &rkeys, &used,
                    "root data index", err);
    if (st != CF_OK)
        goto out;
    if (t->num_data_index_levels > 1) {
        if (blk.payload_len - used < 16)
            CF_FAIL_OUT(err, CF_ECORRUPT, "root data index: mid-key metadata missing");
        memcpy(h->midkey_meta, blk.payload + used, 16);
        h->info.has_midkey_metadata = true;
        h->info.mid_leaf_offset = cf_load_be64(h->midkey_meta);
        h->info.mid_leaf_on_disk_size = cf_load_be32(h->midkey_meta + 8);
        h->info.mid_key_entry = cf_load_be32(h->midkey_meta + 12);
    }
    off += blk.hdr.header_size + blk.hdr.on_disk_size_without_header;
    CF_TRY_OUT(cf_hfile_read_block(h, off, 0, HF_ROOT, h->opt.verify_checksums, &blk, err));
    {
        entry_vec me = {0};
        st = parse_root(blk.payload, blk.payload_len, t->meta_index_count, &me, &h->meta_keys,
                        &used, "meta index", err);
        h->metas = me.v;
        h->info.meta_count = me.n;
        if (st != CF_OK)
            goto out;
    }
    off += blk.hdr.header_size + blk.hdr.on_disk_size_without_header;

    /* FileInfo, then Bloom metadata blocks up to the trailer. */
    CF_TRY_OUT(cf_hfile_read_block(h, t->file_info_offset, 0, HF_FILEINFO, h->opt.verify_checksums,
                                   &blk, err));
    CF_TRY_OUT(parse_fileinfo(h, blk.payload, blk.payload_len, err));
    off = t->file_info_offset + blk.hdr.header_size + blk.hdr.on_disk_size_without_header;
    while (off < tstart) {
        CF_TRY_OUT(cf_hfile_read_block(h, off, 0, NULL, h->opt.verify_checksums, &blk, err));
        if (memcmp(blk.hdr.magic, HF_GBLOOM, HF_MAGIC_LEN) == 0)
            st = parse_bloom_meta(h, CF_HFILE_BLOOM_GENERAL, blk.payload, blk.payload_len, err);
        else if (memcmp(blk.hdr.magic, HF_DFBLOOM, HF_MAGIC_LEN) == 0)
            st = parse_bloom_meta(h, CF_HFILE_BLOOM_DELETE_FAMILY, blk.payload, blk.payload_len,
                                  err);
        if (st != CF_OK) {
            st = cf_error_prefix(err, st, "block at offset %" PRIu64 ": ", off);
            goto out;
        }
        off += blk.hdr.header_size + blk.hdr.on_disk_size_without_header;
    }
    if (off != tstart)
        CF_FAIL_OUT(err, CF_ECORRUPT, "load-on-open blocks overrun the trailer at %" PRIu64,
                    tstart);

    /* What the cells carry. */
    cf_slice v;
    if (cf_hfile_file_info_get(h, "KEY_VALUE_VERSION", &v)) {
        if (v.len != 4)
            CF_FAIL_OUT(err, CF_ECORRUPT, "file info: KEY_VALUE_VERSION is %zu bytes", v.len);
        h->info.includes_mvcc = cf_load_be32(v.data) == 1;
    } else if (strstr(t->comparator, "org.apache.hudi") != NULL ||
               strcmp(t->comparator, "NA") == 0) {
        /* Hudi's reader always skips one mvcc byte per cell, and its first
         * native writers wrote that byte without KEY_VALUE_VERSION. */
        h->info.includes_mvcc = true;
    }
    h->info.includes_tags = t->major >= 3 && cf_hfile_file_info_get(h, "hfile.MAX_TAGS_LEN", NULL);
    /* HBase honours the flag only in files with tags, and only its delta
     * encoders compress tags (ROW_INDEX_V1 and NONE write them plain). */
    h->tags_compressed = h->info.includes_tags &&
                         cf_hfile_file_info_get(h, "hfile.TAGS_COMPRESSED", &v) && v.len == 1 &&
                         v.data[0] != 0;
    h->info.data_block_encoding = CF_HFILE_DBE_NONE;
    if (cf_hfile_file_info_get(h, "DATA_BLOCK_ENCODING", &v)) {
        static const struct {
            const char *n;
            int id;
        } encs[] = {{"NONE", 0},      {"PREFIX", 2},      {"DIFF", 3},
                    {"FAST_DIFF", 4}, {"PREFIX_TREE", 6}, {"ROW_INDEX_V1", 7}};
        h->info.data_block_encoding = -1;
        for (size_t i = 0; i < sizeof(encs) / sizeof(encs[0]); i++)
            if (strlen(encs[i].n) == v.len && memcmp(encs[i].n, v.data, v.len) == 0)
                h->info.data_block_encoding = encs[i].id;
    }

    /* Flatten the data index. Every data block needs at least a header. */
    f.h = h;
    f.limit = (size_t)(tstart / h->hdr_size) + 1;
    f.max_blocks = tstart / h->hdr_size + 1;
    for (size_t i = 0; i < root.n && st == CF_OK; i++)
        st = descend(&f, root.v[i].off, root.v[i].size, rkeys.data + root.v[i].key_off,
                     root.v[i].key_len, t->num_data_index_levels - 1, err);
    h->blocks = f.out.v;
    h->info.num_data_blocks = f.out.n;
out:
    cf_hfile_block_dispose(&blk);
    cf_hfile_block_dispose(&f.blk);
    cf_free(root.v);
    cf_buf_dispose(&rkeys);
    return st;
}

cf_status cf_hfile_open(cf_hfile **out, cf_io *io, const cf_hfile_options *opts, cf_error *err)
{
    *out = NULL;
    CF_CHECK(io != NULL && io->ops->read_at != NULL, err, CF_EINVAL, "hfile: no readable io");
    CF_CHECK(opts == NULL || opts->version == CF_HFILE_OPTIONS_VERSION, err, CF_EINVAL,
             "hfile options: version %" PRIu32 " (call cf_hfile_options_init)", opts->version);
    cf_hfile *h = cf_calloc(1, sizeof(*h));
    CF_CHECK(h != NULL, err, CF_ENOMEM, "hfile: out of memory");
    h->io = io;
    if (opts)
        h->opt = *opts;
    else
        cf_hfile_options_init(&h->opt);
    if (h->opt.max_block_len == 0)
        h->opt.max_block_len = (size_t)256 << 20;
    keybuf_init(&h->keys);
    keybuf_init(&h->meta_keys);
    keybuf_init(&h->fi_buf);
    h->file_size = io->ops->size(io);
    cf_status st = parse_trailer(h, err);
    if (st == CF_OK) {
        h->info.major = h->tr.major;
        h->info.minor = h->tr.minor;
        h->info.compression = h->tr.compression_codec;
        st = h->tr.major == 1 ? open_v1(h, err) : open_v2(h, err);
    }
    if (st != CF_OK) {
        cf_hfile_free(h);
        return st;
    }
    *out = h;
    return CF_OK;
}

cf_status cf_hfile_open_file(cf_hfile **out, const char *path, const cf_hfile_options *opts,
                             cf_error *err)
{
    *out = NULL;
    cf_io *io = NULL;
    CF_TRY(cf_io_open_file(&io, path, err));
    cf_status st = cf_hfile_open(out, io, opts, err);
    if (st != CF_OK) {
        cf_io_free(io);
        return st;
    }
    (*out)->own_io = true;
    return CF_OK;
}

void cf_hfile_free(cf_hfile *h)
{
    if (h == NULL)
        return;
    cf_free(h->blocks);
    cf_buf_dispose(&h->keys);
    cf_free(h->metas);
    cf_buf_dispose(&h->meta_keys);
    cf_free(h->fi);
    cf_buf_dispose(&h->fi_buf);
    for (int i = 0; i < 2; i++) {
        cf_free(h->bloom[i].chunks);
        if (h->bloom[i].present || h->bloom[i].keys.data)
            cf_buf_dispose(&h->bloom[i].keys);
    }
    if (h->own_io)
        cf_io_free(h->io);
    cf_free(h);
}

const cf_hfile_trailer *cf_hfile_get_trailer(const cf_hfile *h)
{
    return &h->tr;
}
const cf_hfile_info *cf_hfile_get_info(const cf_hfile *h)
{
    return &h->info;
}

bool cf_hfile_data_block_at(const cf_hfile *h, uint64_t i, cf_hfile_block_ref *out)
{
    if (i >= h->info.num_data_blocks) {
        *out = (cf_hfile_block_ref){0, 0, {NULL, 0}};
        return false;
    }
    const hf_entry *e = &h->blocks[i];
    *out = (cf_hfile_block_ref){e->off, e->size, {h->keys.data + e->key_off, e->key_len}};
    return true;
}

bool cf_hfile_meta_at(const cf_hfile *h, size_t i, cf_slice *name, uint64_t *offset,
                      uint32_t *on_disk_size)
{
    if (i >= h->info.meta_count) {
        *name = (cf_slice){NULL, 0};
        *offset = 0;
        *on_disk_size = 0;
        return false;
    }
    const hf_entry *e = &h->metas[i];
    *name = (cf_slice){h->meta_keys.data + e->key_off, e->key_len};
    *offset = e->off;
    *on_disk_size = e->size;
    return true;
}

void cf_hfile_bytes_free(void *p)
{
    cf_free(p);
}

cf_status cf_hfile_meta_read(const cf_hfile *h, size_t i, uint8_t **out, size_t *len, cf_error *err)
{
    *out = NULL;
    *len = 0;
    CF_CHECK(i < h->info.meta_count, err, CF_EINVAL, "meta block %zu of %zu", i,
             h->info.meta_count);
    const hf_entry *e = &h->metas[i];
    cf_status st = CF_OK;
    hf_block blk;
    cf_hfile_block_init(&blk);
    const uint8_t *src;
    size_t n;
    if (h->tr.major == 1) {
        CF_CHECK(e->off <= h->file_size && e->size <= h->file_size - e->off &&
                     e->size <= h->opt.max_block_len,
                 err, CF_ECORRUPT, "v1 meta block %zu: bad extent", i);
        CF_CHECK(cf_buf_reserve(&blk.raw, e->size), err, CF_ENOMEM, "out of memory");
        CF_TRY_OUT(h->io->ops->read_at(h->io, e->off, blk.raw.data, e->size, err));
        CF_TRY_OUT(cf_hfile_decompress_grow(h->tr.compression_codec, blk.raw.data, e->size,
                                            &blk.unpacked, h->opt.max_block_len, err));
        if (blk.unpacked.len < HF_MAGIC_LEN || memcmp(blk.unpacked.data, HF_META, HF_MAGIC_LEN))
            CF_FAIL_OUT(err, CF_ECORRUPT, "v1 meta block %zu: bad magic", i);
        src = blk.unpacked.data + HF_MAGIC_LEN;
        n = blk.unpacked.len - HF_MAGIC_LEN;
    } else {
        CF_TRY_OUT(
            cf_hfile_read_block(h, e->off, e->size, HF_META, h->opt.verify_checksums, &blk, err));
        src = blk.payload;
        n = blk.payload_len;
    }
    *out = cf_malloc(n ? n : 1);
    if (*out == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "out of memory");
    memcpy(*out, src, n);
    *len = n;
out:
    cf_hfile_block_dispose(&blk);
    return st;
}

cf_status cf_hfile_midkey(const cf_hfile *h, cf_slice *out, cf_error *err)
{
    *out = (cf_slice){NULL, 0};
    if (h->info.num_data_blocks == 0)
        return CF_OK;
    if (!h->info.has_midkey_metadata) {
        /* Single level: the middle root entry. */
        cf_hfile_block_ref mid;
        (void)cf_hfile_data_block_at(h, (h->info.num_data_blocks - 1) / 2, &mid);
        *out = mid.key;
        return CF_OK;
    }
    /* Find the leaf's entries among the flattened ones: the leaf is read again
     * to honour the metadata exactly as stored. */
    hf_block blk;
    cf_hfile_block_init(&blk);
    entry_vec e = {0};
    cf_buf keys;
    keybuf_init(&keys);
    cf_status st = cf_hfile_read_block(h, h->info.mid_leaf_offset, h->info.mid_leaf_on_disk_size,
                                       HF_LEAF, h->opt.verify_checksums, &blk, err);
    if (st == CF_OK)
        st = parse_nonroot(blk.payload, blk.payload_len, &e, &keys, SIZE_MAX / 2, err);
    if (st == CF_OK && h->info.mid_key_entry >= e.n)
        st = cf_error_set(err, CF_ECORRUPT, __FILE__, __LINE__,
                          "mid-key entry %" PRIu32 " of a %zu-entry leaf", h->info.mid_key_entry,
                          e.n);
    if (st == CF_OK) {
        /* Point into our own flattened copy so the slice outlives this call. */
        const hf_entry *m = &e.v[h->info.mid_key_entry];
        bool found = false;
        for (uint64_t i = 0; i < h->info.num_data_blocks; i++) {
            if (h->blocks[i].off == m->off) {
                cf_hfile_block_ref ref;
                (void)cf_hfile_data_block_at(h, i, &ref);
                *out = ref.key;
                found = true;
                break;
            }
        }
        if (!found)
            st = cf_error_set(err, CF_ECORRUPT, __FILE__, __LINE__,
                              "mid-key points at offset %" PRIu64 ", not a data block", m->off);
    }
    cf_free(e.v);
    cf_buf_dispose(&keys);
    cf_hfile_block_dispose(&blk);
    return st;
}

cf_status cf_hfile_walk_blocks(const cf_hfile *h, bool verify, cf_hfile_block_fn fn, void *ctx,
                               cf_error *err)
{
    CF_CHECK(h->tr.major >= 2, err, CF_ENOTSUP, "v1 blocks have no headers to walk");
    uint64_t tstart = h->file_size - h->tr.trailer_size;
    uint64_t off = 0;
    hf_block blk;
    cf_hfile_block_init(&blk);
    cf_status st = CF_OK;
    while (off < tstart) {
        if (verify)
            st = cf_hfile_read_block(h, off, 0, NULL, true, &blk, err);
        else
            st = cf_hfile_read_header(h, off, &blk.hdr, err);
        if (st != CF_OK)
            break;
        uint64_t next = off + blk.hdr.header_size + blk.hdr.on_disk_size_without_header;
        if (next > tstart) {
            st = cf_error_set(err, CF_ECORRUPT, __FILE__, __LINE__,
                              "block at offset %" PRIu64 " runs into the trailer", off);
            break;
        }
        if (!fn(ctx, &blk.hdr))
            break;
        off = next;
    }
    cf_hfile_block_dispose(&blk);
    return st;
}

/* The index parsers, for src/hfile/inspect.c's index listing. */
cf_status cf_hfile_parse_root(const uint8_t *p, size_t n, uint64_t count, entry_vec *e,
                              cf_buf *keys, size_t *used, const char *what, cf_error *err)
{
    return parse_root(p, n, count, e, keys, used, what, err);
}

cf_status cf_hfile_parse_nonroot(const uint8_t *p, size_t n, entry_vec *e, cf_buf *keys,
                                 size_t limit, cf_error *err)
{
    return parse_nonroot(p, n, e, keys, limit, err);
}

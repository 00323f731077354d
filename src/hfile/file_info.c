/* An HFile's FileInfo (HBase HFileInfo): the v1/v2.0 Writable map and the
 * v2.1+ "PBUF" + delimited FileInfoProto, parsed into one key/value list, and
 * the lookups on it. Owns h->fi and h->fi_buf. It must not interpret the
 * values (reader.c reads the comparator, KEY_VALUE_VERSION and the data
 * block encoding from them) nor find the block (reader.c). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "hfile.pb-c.h"
#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"
#include "util/pb_mem.h"

static cf_status fi_add(cf_hfile *h, entry_vec *unused, const uint8_t *k, size_t kl,
                        const uint8_t *v, size_t vl, size_t *cap, cf_error *err)
{
    (void)unused;
    CF_CHECK(h->info.file_info_count < *cap || cf_array_grow(&h->fi, cap, sizeof *h->fi, 16), err,
             CF_ENOMEM, "file info: out of memory");
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
cf_status cf_hfile_parse_file_info_writable(cf_hfile *h, const uint8_t *p, size_t n, cf_error *err)
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

/* internal.h */
cf_status cf_hfile_parse_file_info(cf_hfile *h, const uint8_t *p, size_t n, cf_error *err)
{
    if (n < 4 || memcmp(p, "PBUF", 4) != 0)
        return cf_hfile_parse_file_info_writable(h, p, n, err);
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

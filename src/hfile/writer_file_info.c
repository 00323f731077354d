/* HFile writer: FileInfo (HFileInfo: "PBUF" + a delimited FileInfoProto with
 * the entries sorted by key, HBase's reserved hfile.* keys added) and the
 * record lists that user FileInfo and meta blocks are kept in until finish.
 * It must not write anything but the FILEINF2 block. */
#include "writer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"

#include "hfile.pb-c.h"

/* writer.h */
void cf_hfile_put_record(cf_buf *b, const void *k, size_t kl, const void *v, size_t vl)
{
    cf_buf_put_be32(b, (uint32_t)kl);
    cf_buf_append(b, k, kl);
    cf_buf_put_be32(b, (uint32_t)vl);
    cf_buf_append(b, v, vl);
}

static int rec_cmp(const void *a, const void *b)
{
    const rec *x = a, *y = b;
    return cf_hfile_bytes_compare((cf_slice){x->k, x->kl}, (cf_slice){y->k, y->kl});
}

/* Records of a put_record buffer, sorted by key (HBase keeps FileInfo in a
 * TreeMap and meta blocks in name order). */
/* writer.h */
rec *cf_hfile_records(const cf_buf *b, size_t *n)
{
    size_t cnt = 0;
    for (size_t p = 0; p < b->len;) {
        p += 4 + cf_load_be32(b->data + p);
        p += 4 + cf_load_be32(b->data + p);
        cnt++;
    }
    rec *r = cf_calloc(cnt + 1, sizeof(*r));
    if (!r)
        return NULL;
    size_t i = 0;
    for (size_t p = 0; p < b->len; i++) {
        r[i].kl = cf_load_be32(b->data + p);
        r[i].k = b->data + p + 4;
        p += 4 + r[i].kl;
        r[i].vl = cf_load_be32(b->data + p);
        r[i].v = b->data + p + 4;
        p += 4 + r[i].vl;
    }
    qsort(r, cnt, sizeof(*r), rec_cmp);
    *n = cnt;
    return r;
}

static void put_be32_rec(cf_buf *fi, const char *k, uint32_t v)
{
    uint8_t t[4];
    cf_store_be32(t, v);
    cf_hfile_put_record(fi, k, strlen(k), t, 4);
}

static void put_be64_rec(cf_buf *fi, const char *k, uint64_t v)
{
    uint8_t t[8];
    cf_store_be64(t, v);
    cf_hfile_put_record(fi, k, strlen(k), t, 8);
}

/* writer.h */
void cf_hfile_put_varint(cf_buf *b, uint64_t v)
{
    while (v >= 0x80) {
        cf_buf_put_u8(b, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    cf_buf_put_u8(b, (uint8_t)v);
}

/* writer.h */
cf_status cf_hfile_write_file_info(cf_hfile_writer *w, cf_error *err)
{
    cf_buf *fi = &w->user_fi;
    if (w->o.row_bloom && w->bloom_total_keys > 0) {
        cf_hfile_put_record(fi, "BLOOM_FILTER_TYPE", 17, "ROW", 3);
        cf_hfile_put_record(fi, "LAST_BLOOM_KEY", 14, w->last_row.data, w->last_row.len);
    }
    if (w->entries > 0)
        cf_hfile_put_record(fi, "hfile.LASTKEY", 13, w->last_key.data, w->last_key.len);
    put_be32_rec(fi, "hfile.AVG_KEY_LEN",
                 (uint32_t)(w->entries ? w->total_key_len / w->entries : 0));
    put_be64_rec(fi, "hfile.CREATE_TIME_TS", (uint64_t)w->o.create_time);
    put_be32_rec(fi, "hfile.AVG_VALUE_LEN",
                 (uint32_t)(w->entries ? w->total_val_len / w->entries : 0));
    if (w->o.include_tags) {
        put_be32_rec(fi, "hfile.MAX_TAGS_LEN", w->max_tags);
        /* As HBase sets it (any encoding); only its delta encoders then
         * compress tags, ROW_INDEX_V1 writes them plain whatever the flag. */
        bool ct = w->o.compress_tags && w->o.encoding != CF_HFILE_DBE_NONE;
        cf_hfile_put_record(fi, "hfile.TAGS_COMPRESSED", 21, ct ? "\xff" : "\0", 1);
    }
    if (w->o.encoding != CF_HFILE_DBE_NONE) {
        const char *en = cf_hfile_encoding_name(w->o.encoding);
        cf_hfile_put_record(fi, "DATA_BLOCK_ENCODING", 19, en, strlen(en));
    }
    if (w->o.include_mvcc) {
        put_be64_rec(fi, "MAX_MEMSTORE_TS_KEY", w->max_mvcc);
        put_be32_rec(fi, "KEY_VALUE_VERSION", 1);
    }
    CF_TRY(cf_buf_status(fi));
    size_t n = 0;
    rec *r = cf_hfile_records(fi, &n);
    CF_CHECK(r != NULL, err, CF_ENOMEM, "hfile writer: out of memory");
    Hbase__BytesBytesPair *pairs = cf_calloc(n + 1, sizeof(*pairs));
    Hbase__BytesBytesPair **pp = cf_calloc(n + 1, sizeof(*pp));
    cf_status st = CF_OK;
    if (!pairs || !pp) {
        st = cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__, "hfile writer: out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        hbase__bytes_bytes_pair__init(&pairs[i]);
        pairs[i].first.data = (uint8_t *)(uintptr_t)r[i].k;
        pairs[i].first.len = r[i].kl;
        pairs[i].second.data = (uint8_t *)(uintptr_t)r[i].v;
        pairs[i].second.len = r[i].vl;
        pp[i] = &pairs[i];
    }
    Hbase__FileInfoProto m;
    hbase__file_info_proto__init(&m);
    m.n_map_entry = n;
    m.map_entry = pp;
    size_t plen = hbase__file_info_proto__get_packed_size(&m);
    cf_buf_clear(&w->payload);
    cf_buf_append(&w->payload, "PBUF", 4);
    cf_hfile_put_varint(&w->payload, plen);
    uint8_t *dst = cf_buf_extend(&w->payload, plen);
    if (dst == NULL) {
        st = cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__, "hfile writer: out of memory");
        goto out;
    }
    hbase__file_info_proto__pack(&m, dst);
    st = cf_hfile_write_block(w, HF_FILEINFO, w->payload.data, w->payload.len, true, NULL, NULL,
                              err);
out:
    cf_free(pairs);
    cf_free(pp);
    cf_free(r);
    return st;
}

/* An HFile's Bloom filters as the load-on-open section describes them (HBase
 * CompoundBloomFilter): the BLMFMET2 / DFBLMET2 metadata with its chunk
 * index, and the membership probe that finds a row's chunk and reads it.
 * Owns h->bloom. It must not find the metadata blocks (reader.c walks the
 * load-on-open section) nor hash (hash.c). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"

/* The metadata's fixed fields (HBase CompoundBloomFilter's version 3), then a
 * vlong-prefixed comparator name and the chunk index. */
#define BM(at, width, member) HF_BE(at, width, cf_hfile_bloom_info, member)
static const hf_be_field bloom_meta_v3[] = {
    BM(0, 4, version),     BM(4, 8, total_byte_size),  BM(12, 4, hash_count),
    BM(16, 4, hash_type),  BM(20, 8, total_key_count), BM(28, 8, total_max_keys),
    BM(36, 4, num_chunks),
};

/* internal.h */
cf_status cf_hfile_parse_bloom_meta(cf_hfile *h, int which, const uint8_t *p, size_t n,
                                    cf_error *err)
{
    hf_bloom *b = &h->bloom[which];
    CF_CHECK(!b->present, err, CF_ECORRUPT, "two Bloom metadata blocks of the same kind");
    CF_CHECK(n >= 40, err, CF_ECORRUPT, "Bloom metadata: %zu bytes too short", n);
    cf_hfile_bloom_info *i = &b->info;
    cf_hfile_read_be_fields(i, p, bloom_meta_v3, sizeof bloom_meta_v3 / sizeof *bloom_meta_v3);
    CF_CHECK(i->version == 3, err, CF_ECORRUPT, "Bloom metadata: version %" PRIu32 ", expected 3",
             i->version);
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
    cf_hfile_keybuf_init(&b->keys);
    /* Keep the comparator name first in the key buffer. */
    cf_buf_append(&b->keys, p + cmp_off, (size_t)cl);
    cf_status st = cf_hfile_parse_root(p + pos, n - pos, i->num_chunks, &e, &b->keys, &used,
                                       "Bloom chunk index", err);
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
        if (cf_hfile_bytes_compare((cf_slice){b->keys.data + e->key_off, e->key_len},
                                   (cf_slice){row, len}) <= 0)
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

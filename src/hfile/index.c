/* Reading an HFile's block index (HBase HFileBlockIndex): root-format
 * entries (the root, the v1 index, the meta index), non-root leaf and
 * intermediate blocks, the walk that flattens a multi-level data index into
 * one array of data blocks, and what is asked of that array (a block by
 * number, the mid-key).
 *
 * Root index entry: offset (8) | on-disk size (4) | vint key length | key.
 * Non-root (leaf/intermediate) block: entry count N (4) | N+1 entry offsets
 *   (4, relative to the first entry) | entries: offset (8) | size (4) | key.
 *
 * Owns the entry lists (entry_vec) and the flattened data index (h->blocks,
 * h->keys). It must not read the trailer or FileInfo (trailer.c, file_info.c)
 * nor decide how the load-on-open section is laid out (reader.c). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"

/* internal.h */
void cf_hfile_keybuf_init(cf_buf *b)
{
    cf_buf_init(b);
    (void)cf_buf_reserve(b, 16);
}

static cf_status vec_push(entry_vec *e, cf_buf *keys, uint64_t off, uint32_t size,
                          const uint8_t *key, size_t key_len, size_t limit, cf_error *err)
{
    CF_CHECK(e->n < limit, err, CF_ECORRUPT, "index lists more than %zu entries", limit);
    CF_CHECK(e->n < e->cap || cf_array_grow(&e->v, &e->cap, sizeof *e->v, 16), err, CF_ENOMEM,
             "index: out of memory");
    CF_CHECK(key_len <= UINT32_MAX, err, CF_ECORRUPT, "index key too long");
    e->v[e->n++] = (hf_entry){off, size, (uint32_t)key_len, keys->len};
    cf_buf_append(keys, key, key_len);
    return cf_buf_status(keys);
}

/* internal.h */
cf_status cf_hfile_parse_root(const uint8_t *p, size_t n, uint64_t count, entry_vec *e,
                              cf_buf *keys, size_t *used, const char *what, cf_error *err)
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

/* internal.h */
cf_status cf_hfile_parse_nonroot(const uint8_t *p, size_t n, entry_vec *e, cf_buf *keys,
                                 size_t limit, cf_error *err)
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
    cf_hfile_keybuf_init(&kkeys);
    cf_status st = cf_hfile_parse_nonroot(f->blk.payload, f->blk.payload_len, &kids, &kkeys,
                                          SIZE_MAX / 2, err);
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
    cf_hfile_keybuf_init(&keys);
    cf_status st = cf_hfile_read_block(h, h->info.mid_leaf_offset, h->info.mid_leaf_on_disk_size,
                                       HF_LEAF, h->opt.verify_checksums, &blk, err);
    if (st == CF_OK)
        st = cf_hfile_parse_nonroot(blk.payload, blk.payload_len, &e, &keys, SIZE_MAX / 2, err);
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

/* internal.h */
cf_status cf_hfile_index_flatten(cf_hfile *h, const entry_vec *root, const uint8_t *root_keys,
                                 uint64_t tstart, cf_error *err)
{
    flatten f;
    memset(&f, 0, sizeof(f));
    cf_hfile_block_init(&f.blk);
    /* Every data block needs at least a header. */
    f.h = h;
    f.limit = (size_t)(tstart / h->hdr_size) + 1;
    f.max_blocks = tstart / h->hdr_size + 1;
    cf_status st = CF_OK;
    for (size_t i = 0; i < root->n && st == CF_OK; i++)
        st = descend(&f, root->v[i].off, root->v[i].size, root_keys + root->v[i].key_off,
                     root->v[i].key_len, h->tr.num_data_index_levels - 1, err);
    h->blocks = f.out.v;
    h->info.num_data_blocks = f.out.n;
    cf_hfile_block_dispose(&f.blk);
    return st;
}

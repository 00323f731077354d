/* HFile writer: the block index (HBase HFileBlockIndex.BlockIndexWriter).
 * Owns index chunks and their two formats (root: offset, size, vint key
 * length, key; non-root: count, entry offsets, entries), writing inline leaf
 * blocks (and the Bloom chunks that are ready, inline with them), the
 * intermediate levels at finish, and the shortened "mid-point" key that
 * indexes each non-first data block. It must not decide when a data block
 * ends (writer.c) nor how a block is framed (writer_block.c). */
#include "writer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"

/* writer.h */
void cf_hfile_ichunk_init(ichunk *c)
{
    memset(c, 0, sizeof(*c));
    cf_buf_init(&c->keys);
    (void)cf_buf_reserve(&c->keys, 16); /* data + offset stays valid for empty keys */
}

/* writer.h */
void cf_hfile_ichunk_dispose(ichunk *c)
{
    cf_free(c->v);
    cf_free(c->sub);
    cf_buf_dispose(&c->keys);
}

/* writer.h */
void cf_hfile_ichunk_clear(ichunk *c)
{
    c->n = 0;
    c->root_bytes = c->key_bytes = 0;
    cf_buf_clear(&c->keys);
}

/* writer.h */
cf_status cf_hfile_ichunk_add(ichunk *c, const uint8_t *key, size_t klen, uint64_t off,
                              uint32_t size, uint64_t sub, cf_error *err)
{
    if (c->n == c->cap) {
        size_t nc = c->cap ? c->cap * 2 : 64;
        hf_entry *nv = cf_realloc(c->v, nc * sizeof(*nv));
        if (nv)
            c->v = nv;
        uint64_t *ns = cf_realloc(c->sub, nc * sizeof(*ns));
        if (ns)
            c->sub = ns;
        CF_CHECK(nv != NULL && ns != NULL, err, CF_ENOMEM, "hfile writer: out of memory");
        c->cap = nc;
    }
    c->v[c->n] = (hf_entry){off, size, (uint32_t)klen, c->keys.len};
    c->sub[c->n] = sub;
    c->n++;
    cf_buf_append(&c->keys, key, klen);
    c->root_bytes += 12 + cf_hfile_vlong_size((int64_t)klen) + klen;
    c->key_bytes += klen;
    return cf_buf_status(&c->keys);
}

/* writer.h */
size_t cf_hfile_ichunk_nonroot_size(const ichunk *c)
{
    return 4 + 4 * (c->n + 1) + 12 * c->n + c->key_bytes;
}

/* writer.h */
void cf_hfile_ichunk_write_root(const ichunk *c, cf_buf *b)
{
    for (size_t i = 0; i < c->n; i++) {
        cf_hfile_put_be64(b, c->v[i].off);
        cf_buf_put_be32(b, c->v[i].size);
        cf_hfile_put_vlong(b, c->v[i].key_len);
        cf_buf_append(b, c->keys.data + c->v[i].key_off, c->v[i].key_len);
    }
}

/* writer.h */
void cf_hfile_ichunk_write_nonroot(const ichunk *c, cf_buf *b)
{
    cf_buf_put_be32(b, (uint32_t)c->n);
    uint32_t rel = 0;
    for (size_t i = 0; i < c->n; i++) {
        cf_buf_put_be32(b, rel);
        rel += 12 + c->v[i].key_len;
    }
    cf_buf_put_be32(b, rel);
    for (size_t i = 0; i < c->n; i++) {
        cf_hfile_put_be64(b, c->v[i].off);
        cf_buf_put_be32(b, c->v[i].size);
        cf_buf_append(b, c->keys.data + c->v[i].key_off, c->v[i].key_len);
    }
}

static cf_status write_leaf(cf_hfile_writer *w, cf_error *err)
{
    cf_buf_clear(&w->payload);
    cf_hfile_ichunk_write_nonroot(&w->leaf, &w->payload);
    CF_TRY(cf_buf_status(&w->payload));
    uint64_t off;
    uint32_t size;
    CF_TRY(
        cf_hfile_write_block(w, HF_LEAF, w->payload.data, w->payload.len, true, &off, &size, err));
    w->index_uncompressed += w->payload.len;
    w->leaf_entries_total += w->leaf.n;
    CF_TRY(cf_hfile_ichunk_add(&w->root, w->leaf.keys.data + w->leaf.v[0].key_off,
                               w->leaf.v[0].key_len, off, size, w->leaf_entries_total, err));
    if (w->levels < 2)
        w->levels = 2;
    cf_hfile_ichunk_clear(&w->leaf);
    return CF_OK;
}

/* writer.h */
cf_status cf_hfile_write_inline(cf_hfile_writer *w, bool closing, cf_error *err)
{
    if (w->leaf.n > 0) {
        if (closing) {
            if (w->root.n > 0)
                CF_TRY(write_leaf(w, err));
        } else if (cf_hfile_ichunk_nonroot_size(&w->leaf) >= w->o.index_block_size) {
            CF_TRY(write_leaf(w, err));
        }
    }
    if (w->o.row_bloom) {
        CF_TRY(cf_hfile_bloom_enqueue(w, closing, err));
        for (size_t i = 0; i < w->nready; i++) {
            ready_chunk *r = &w->ready[i];
            uint64_t off;
            uint32_t size;
            CF_TRY(cf_hfile_write_block(w, HF_BLOOMCHK, w->ready_data.data + r->data_off,
                                        r->data_len, true, &off, &size, err));
            CF_TRY(cf_hfile_ichunk_add(&w->bloom_index, w->ready_data.data + r->key_off, r->key_len,
                                       off, size, 0, err));
        }
        w->nready = 0;
        cf_buf_clear(&w->ready_data);
    }
    return CF_OK;
}

/* HBase's getMinimumMidpointArray: the shortest byte string > left and <= right. */
static void midpoint_array(const uint8_t *l, size_t ll, const uint8_t *r, size_t rl, cf_buf *o)
{
    size_t m = ll < rl ? ll : rl, d = 0;
    while (d < m && l[d] == r[d])
        d++;
    if (d >= m) {
        cf_buf_append(o, r, d + 1);
        return;
    }
    int diff = (int8_t)l[d]; /* a signed Java byte, on purpose */
    if ((diff & 0xff) < 0xff && diff + 1 < (int)r[d]) {
        cf_buf_append(o, l, d);
        cf_buf_put_u8(o, (uint8_t)(diff + 1));
    } else {
        cf_buf_append(o, r, d + 1);
    }
}

/* The index key of a block: HFileWriterImpl.getMidpoint(prev last, this first). */
cf_status cf_hfile_index_key(cf_hfile_writer *w, cf_buf *o, cf_error *err)
{
    cf_buf_clear(o);
    cf_hfile_cell l, r;
    CF_TRY(cf_hfile_parse_key(&l, w->prev_blk_last_key.data, w->prev_blk_last_key.len, err));
    CF_TRY(cf_hfile_parse_key(&r, w->blk_first_key.data, w->blk_first_key.len, err));
    cf_buf mid;
    cf_buf_init(&mid);
    cf_slice none = {(const uint8_t *)"", 0};
    /* The first of row, family, qualifier where the previous block's last key
     * sorts before this block's first: the key keeps this block's parts
     * before it, the shortest part between the two there, and none after. */
    const cf_slice ls[3] = {l.row, l.family, l.qualifier}, rs[3] = {r.row, r.family, r.qualifier};
    for (int k = 0; k < 3; k++) {
        if (cf_hfile_bytes_compare(ls[k], rs[k]) < 0) {
            midpoint_array(ls[k].data, ls[k].len, rs[k].data, rs[k].len, &mid);
            cf_slice part[3] = {rs[0], rs[1], rs[2]};
            part[k] = (cf_slice){mid.data, mid.len};
            for (int j = k + 1; j < 3; j++)
                part[j] = none;
            cf_hfile_put_key(o, part[0], part[1], part[2], INT64_MAX, CF_HFILE_MAXIMUM);
            goto done;
        }
    }
    cf_buf_append(o, w->blk_first_key.data, w->blk_first_key.len);
done:
    if (mid.oom)
        o->oom = true;
    cf_buf_dispose(&mid);
    return cf_buf_status(o);
}

/* writer.h */
cf_status cf_hfile_write_intermediate_level(cf_hfile_writer *w, ichunk *cur, ichunk *parent,
                                            cf_error *err)
{
    ichunk c;
    cf_hfile_ichunk_init(&c);
    cf_status st = CF_OK;
    for (size_t i = 0; i < cur->n && st == CF_OK; i++) {
        st = cf_hfile_ichunk_add(&c, cur->keys.data + cur->v[i].key_off, cur->v[i].key_len,
                                 cur->v[i].off, cur->v[i].size, 0, err);
        bool last = i + 1 == cur->n;
        if (st == CF_OK && c.n > 0 &&
            ((i >= w->o.index_min_entries && c.root_bytes >= w->o.index_block_size) || last)) {
            cf_buf_clear(&w->payload);
            cf_hfile_ichunk_write_nonroot(&c, &w->payload);
            uint64_t off;
            uint32_t size;
            st = cf_buf_status(&w->payload);
            if (st == CF_OK)
                st = cf_hfile_write_block(w, HF_INTER, w->payload.data, w->payload.len, false, &off,
                                          &size, err);
            if (st == CF_OK) {
                w->index_uncompressed += w->payload.len;
                st = cf_hfile_ichunk_add(parent, c.keys.data + c.v[0].key_off, c.v[0].key_len, off,
                                         size, 0, err);
            }
            cf_hfile_ichunk_clear(&c);
        }
    }
    cf_hfile_ichunk_dispose(&c);
    return st;
}

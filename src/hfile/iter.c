/* Cell iteration and seeks over the flattened data index.
 *
 * Index keys are <= their block's first cell and > the previous block's last
 * cell, but HBase usually writes shortened "fake" keys, so a seek picks the
 * last block whose index key sorts strictly before the search key (every
 * later block then holds only cells >= it) and scans forward, crossing into
 * the next block when that block has nothing >= the key. Strictness matters
 * for duplicate keys that straddle a block boundary.
 */
#include "internal.h"

#include <string.h>

#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"

struct cf_hfile_iter {
    const cf_hfile *h;
    hf_block blk;
    cf_buf decoded; /* a delta-encoded block expanded to plain cells */
    uint64_t block; /* index of the loaded block; == num blocks at the end */
    bool loaded;
    const uint8_t *cells; /* cells region of the loaded block */
    size_t cells_len;
    size_t pos; /* next cell's offset in the region */
    uint64_t cell_in_block;
};

cf_status cf_hfile_iter_create(cf_hfile_iter **out, const cf_hfile *h, cf_error *err)
{
    *out = NULL;
    cf_hfile_iter *it = cf_calloc(1, sizeof(*it));
    CF_CHECK(it != NULL, err, CF_ENOMEM, "hfile iterator: out of memory");
    it->h = h;
    cf_hfile_block_init(&it->blk);
    cf_buf_init(&it->decoded);
    *out = it;
    return CF_OK;
}

void cf_hfile_iter_free(cf_hfile_iter *it)
{
    if (it == NULL)
        return;
    cf_hfile_block_dispose(&it->blk);
    cf_buf_dispose(&it->decoded);
    cf_free(it);
}

/* Load data block i and find its cells. */
static cf_status load_block(cf_hfile_iter *it, uint64_t i, cf_error *err)
{
    const cf_hfile *h = it->h;
    const hf_entry *e = &h->blocks[i];
    it->loaded = false;
    cf_status st;
    if (h->tr.major == 1) {
        cf_buf *raw = &it->blk.raw;
        cf_buf_clear(raw);
        CF_CHECK(e->size <= h->opt.max_block_len, err, CF_ECORRUPT,
                 "v1 data block %" PRIu64 ": %" PRIu32 " bytes exceed the block limit", i, e->size);
        CF_CHECK(e->size >= HF_MAGIC_LEN, err, CF_ECORRUPT,
                 "v1 data block %" PRIu64 ": %" PRIu32 " bytes cannot hold its magic", i, e->size);
        CF_CHECK(cf_buf_extend(raw, e->size) != NULL, err, CF_ENOMEM, "out of memory");
        CF_TRY(h->io->ops->read_at(h->io, e->off, raw->data, e->size, err));
        st = cf_hfile_decompress_grow(h->tr.compression_codec, raw->data, e->size,
                                      &it->blk.unpacked, h->opt.max_block_len, err);
        if (st != CF_OK)
            return cf_error_prefix(err, st, "v1 data block %" PRIu64 ": ", i);
        const cf_buf *u = &it->blk.unpacked;
        CF_CHECK(u->len >= HF_MAGIC_LEN && memcmp(u->data, HF_DATA, HF_MAGIC_LEN) == 0, err,
                 CF_ECORRUPT, "v1 data block %" PRIu64 " at offset %" PRIu64 ": bad magic", i,
                 e->off);
        it->cells = u->data + HF_MAGIC_LEN;
        it->cells_len = u->len - HF_MAGIC_LEN;
    } else {
        st = cf_hfile_read_block(h, e->off, e->size, NULL, h->opt.verify_checksums, &it->blk, err);
        if (st != CF_OK)
            return cf_error_prefix(err, st, "data block %" PRIu64 ": ", i);
        const char *m = it->blk.hdr.magic;
        CF_CHECK(memcmp(m, HF_DATA, HF_MAGIC_LEN) == 0 || memcmp(m, HF_ENCDATA, HF_MAGIC_LEN) == 0,
                 err, CF_ECORRUPT, "data block %" PRIu64 " at offset %" PRIu64 ": magic '%.8s'", i,
                 e->off, "not data");
        st = cf_hfile_cells_region(h, m, it->blk.payload, it->blk.payload_len, &it->decoded,
                                   &it->cells, &it->cells_len, err);
        if (st != CF_OK)
            return cf_error_prefix(err, st, "data block %" PRIu64 ": ", i);
    }
    it->block = i;
    it->pos = 0;
    it->cell_in_block = 0;
    it->loaded = true;
    return CF_OK;
}

cf_status cf_hfile_iter_seek_to_first(cf_hfile_iter *it, cf_error *err)
{
    it->loaded = false;
    it->block = 0;
    it->pos = 0;
    it->cell_in_block = 0;
    (void)err;
    return CF_OK;
}

cf_status cf_hfile_iter_next(cf_hfile_iter *it, cf_hfile_cell *out, bool *has, cf_error *err)
{
    const cf_hfile *h = it->h;
    *has = false;
    for (;;) {
        if (!it->loaded) {
            if (it->block >= h->info.num_data_blocks)
                return CF_OK;
            CF_TRY(load_block(it, it->block, err));
        }
        if (it->pos < it->cells_len)
            break;
        /* A block with no cells is legal only for an empty file. */
        CF_CHECK(it->cell_in_block > 0, err, CF_ECORRUPT, "data block %" PRIu64 " holds no cells",
                 it->block);
        it->loaded = false;
        it->block++;
        it->pos = 0;
        it->cell_in_block = 0;
    }
    size_t used = 0;
    cf_status st =
        cf_hfile_parse_cell(h, it->cells + it->pos, it->cells_len - it->pos, out, &used, err);
    if (st != CF_OK)
        return cf_error_prefix(err, st, "data block %" PRIu64 ", cell %" PRIu64 ": ", it->block,
                               it->cell_in_block);
    it->pos += used;
    it->cell_in_block++;
    *has = true;
    return CF_OK;
}

void cf_hfile_iter_position(const cf_hfile_iter *it, uint64_t *block, uint64_t *cell)
{
    if (it->loaded && it->pos >= it->cells_len) {
        *block = it->block + 1;
        *cell = 0;
        return;
    }
    *block = it->block;
    *cell = it->cell_in_block;
}

cf_status cf_hfile_iter_seek_key(cf_hfile_iter *it, const cf_hfile_cell *key, cf_error *err)
{
    const cf_hfile *h = it->h;
    uint64_t n = h->info.num_data_blocks;
    /* Count of blocks whose index key < key. */
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        const hf_entry *e = &h->blocks[mid];
        if (cf_hfile_key_compare(h, h->keys.data + e->key_off, e->key_len, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint64_t b = lo == 0 ? 0 : lo - 1;
    it->loaded = false;
    it->block = b;
    it->pos = 0;
    it->cell_in_block = 0;
    if (b >= n)
        return CF_OK;
    CF_TRY(load_block(it, b, err));
    for (;;) {
        if (it->pos >= it->cells_len) {
            /* Everything in this block sorts before the key: the answer is the
             * next block's first cell (or the end). */
            it->loaded = false;
            it->block = b + 1;
            it->pos = 0;
            it->cell_in_block = 0;
            return CF_OK;
        }
        cf_hfile_cell c;
        size_t used;
        cf_status st =
            cf_hfile_parse_cell(h, it->cells + it->pos, it->cells_len - it->pos, &c, &used, err);
        if (st != CF_OK)
            return cf_error_prefix(err, st, "data block %" PRIu64 ": ", b);
        int r = h->raw_compare ? cf_hfile_key_compare(h, c.key.data, c.key.len, key)
                               : cf_hfile_cell_compare(&c, key);
        if (r >= 0)
            return CF_OK;
        it->pos += used;
        it->cell_in_block++;
    }
}

cf_status cf_hfile_iter_seek_row(cf_hfile_iter *it, const void *row, size_t len, cf_error *err)
{
    cf_hfile_cell k;
    memset(&k, 0, sizeof(k));
    if (it->h->raw_compare) {
        k.key = (cf_slice){row, len};
    } else {
        /* firstOnRow: empty column, newest timestamp, type Maximum sorts first. */
        k.row = (cf_slice){row, len};
        k.timestamp = INT64_MAX;
        k.type = CF_HFILE_MAXIMUM;
    }
    return cf_hfile_iter_seek_key(it, &k, err);
}

cf_status cf_hfile_block_cell_count(const cf_hfile *h, uint64_t i, uint64_t *out, cf_error *err)
{
    *out = 0;
    CF_CHECK(i < h->info.num_data_blocks, err, CF_EINVAL, "data block %" PRIu64 " of %" PRIu64, i,
             h->info.num_data_blocks);
    cf_hfile_iter *it;
    CF_TRY(cf_hfile_iter_create(&it, h, err));
    cf_status st = load_block(it, i, err);
    while (st == CF_OK && it->pos < it->cells_len) {
        cf_hfile_cell c;
        size_t used;
        st = cf_hfile_parse_cell(h, it->cells + it->pos, it->cells_len - it->pos, &c, &used, err);
        if (st == CF_OK) {
            it->pos += used;
            (*out)++;
        }
    }
    cf_hfile_iter_free(it);
    return st;
}

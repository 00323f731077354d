/* HFile writer: the row Bloom filter (HBase CompoundBloomFilterWriter,
 * BloomFilterUtil): sizing a chunk, setting a row's bits, folding a chunk
 * that is at most half full and queueing it for writer_index.c to write
 * inline. Owns the open chunk and the ready list. It must not write blocks
 * nor the Bloom metadata (writer.c at finish). */
#include "writer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"

/* writer.h */
void cf_hfile_bloom_setup(cf_hfile_writer *w)
{
    /* BloomFilterUtil.createBySize with fold factor 7. */
    uint64_t bytes = ((uint64_t)w->o.bloom_chunk_size * 8 + 7) / 8;
    if (bytes & 127)
        bytes = ((bytes >> 7) + 1) << 7;
    double bits = (double)(bytes * 8);
    double ln2 = log(2.0);
    double err = w->o.bloom_error_rate;
    uint64_t maxk = (uint64_t)(int64_t)(bits * (ln2 * ln2 / -log(err)));
    if (maxk == 0)
        maxk = 1;
    uint32_t hc = (uint32_t)ceil(ln2 * (double)((bytes * 8) / maxk));
    if (hc == 0)
        hc = 1;
    double mk = -bits / hc * log(1 - exp(log(err) / hc));
    w->bloom_bytes = (size_t)bytes;
    w->hash_count = hc;
    w->chunk_max_keys = (uint64_t)(int32_t)(int64_t)mk;
}

/* writer.h */
cf_status cf_hfile_bloom_enqueue(cf_hfile_writer *w, bool closing, cf_error *err)
{
    if (!w->chunk_open || (w->chunk_keys < w->chunk_max_keys && !closing))
        return CF_OK;
    /* compactBloom: fold while the chunk is at most half full and folding is lossless. */
    size_t nb = w->bloom_bytes, pieces = 1;
    uint64_t nm = w->chunk_max_keys;
    while ((nb & 1) == 0 && nm > (w->chunk_keys << 1)) {
        pieces <<= 1;
        nb >>= 1;
        nm >>= 1;
    }
    for (size_t p = 1; p < pieces; p++)
        for (size_t i = 0; i < nb; i++)
            w->bits[i] |= w->bits[p * nb + i];
    CF_CHECK(w->nready < w->ready_cap ||
                 cf_array_grow(&w->ready, &w->ready_cap, sizeof *w->ready, 4),
             err, CF_ENOMEM, "hfile writer: out of memory");
    ready_chunk *r = &w->ready[w->nready++];
    r->data_off = w->ready_data.len;
    r->data_len = nb;
    cf_buf_append(&w->ready_data, w->bits, nb);
    r->key_off = w->ready_data.len;
    r->key_len = w->chunk_first_key.len;
    cf_buf_append(&w->ready_data, w->chunk_first_key.data, w->chunk_first_key.len);
    w->bloom_total_max += nm;
    w->bloom_total_bytes += nb;
    w->chunk_open = false;
    return cf_buf_status(&w->ready_data);
}

/* writer.h */
cf_status cf_hfile_bloom_add(cf_hfile_writer *w, const uint8_t *row, size_t len, cf_error *err)
{
    CF_TRY(cf_hfile_bloom_enqueue(w, false, err));
    if (!w->chunk_open) {
        if (w->bits == NULL) {
            w->bits = cf_malloc(w->bloom_bytes);
            CF_CHECK(w->bits != NULL, err, CF_ENOMEM, "hfile writer: Bloom out of memory");
        }
        memset(w->bits, 0, w->bloom_bytes);
        cf_buf_clear(&w->chunk_first_key);
        cf_buf_append(&w->chunk_first_key, row, len);
        w->chunk_open = true;
        w->chunk_keys = 0;
    }
    int32_t nbits = (int32_t)(w->bloom_bytes * 8);
    int32_t h1 = cf_hfile_hash(CF_HFILE_HASH_MURMUR, row, len, 0);
    int32_t h2 = cf_hfile_hash(CF_HFILE_HASH_MURMUR, row, len, h1);
    for (uint32_t i = 0; i < w->hash_count; i++) {
        uint32_t comp = (uint32_t)h1 + i * (uint32_t)h2;
        int32_t r = (int32_t)comp % nbits;
        uint32_t bit = (uint32_t)abs(r);
        w->bits[bit >> 3] |= (uint8_t)(1u << (bit & 7));
    }
    w->chunk_keys++;
    w->bloom_total_keys++;
    return cf_buf_status(&w->chunk_first_key);
}

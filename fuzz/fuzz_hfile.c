/* Fuzz the HFile reader (src/hfile/) with whole files:
 *
 *   input: [opt][file bytes]
 *   opt bit 0: verify checksums (else skipped, so mutations reach the parsers
 *   behind them); bits 1..7: seed for the seek targets.
 *
 * Open, then use everything the API offers: trailer/info, FileInfo, meta
 * blocks, mid-key, Bloom probes, the block walk, a full scan and row seeks.
 * A clean error is a pass; a successful seek must land on a cell whose row is
 * >= the target, and a scan never yields more cells than the file can hold. */
/* cf-needs: hfile */
#include "fuzz.h"

#include <string.h>

#include <cfile/hfile.h>

static bool count_block(void *ctx, const cf_hfile_block_header *hdr)
{
    (void)hdr;
    (*(size_t *)ctx)++;
    return true;
}

static void check_hfile(cf_hfile *h, const fuzz_file *f, uint8_t opt)
{
    cf_error err = {0};
    const cf_hfile_info *info = cf_hfile_get_info(h);
    for (size_t i = 0; i < info->file_info_count; i++) {
        cf_slice k, v;
        cf_hfile_file_info_at(h, i, &k, &v);
        FUZZ_REQUIRE(k.len <= f->size && v.len <= f->size + (1u << 24));
    }
    for (size_t i = 0; i < info->meta_count && i < 8; i++) {
        uint8_t *m;
        size_t n;
        if (cf_hfile_meta_read(h, i, &m, &n, &err) == CF_OK)
            cf_hfile_bytes_free(m);
    }
    cf_slice mid;
    (void)cf_hfile_midkey(h, &mid, &err);
    size_t blocks = 0;
    if (info->major >= 2)
        (void)cf_hfile_walk_blocks(h, (opt & 1) != 0, count_block, &blocks, &err);
    bool maybe;
    (void)cf_hfile_bloom_may_contain(h, 0, "row", 3, &maybe, &err);
    (void)cf_hfile_bloom_may_contain(h, 1, "", 0, &maybe, &err);

    cf_hfile_iter *it = NULL;
    if (cf_hfile_iter_create(&it, h, &err) == CF_OK) {
        uint64_t n = 0;
        uint8_t target[64];
        size_t tlen = 0;
        fuzz_rng rng = {(uint32_t)opt * 2654435761u + 1};
        for (;;) {
            cf_hfile_cell c;
            bool has;
            if (cf_hfile_iter_next(it, &c, &has, &err) != CF_OK || !has)
                break;
            n++;
            /* Every cell takes at least 8 bytes of some block. */
            FUZZ_REQUIRE(n <= (uint64_t)f->size * 2 + (1u << 24));
            cf_slice r = info->raw_keys ? c.key : c.row;
            if (fuzz_rng_below(&rng, 8) == 0) {
                tlen = r.len < sizeof(target) ? r.len : sizeof(target);
                memcpy(target, r.data, tlen);
            }
            if (n > 100000)
                break;
        }
        if (cf_hfile_iter_seek_row(it, target, tlen, &err) == CF_OK) {
            cf_hfile_cell c;
            bool has;
            if (cf_hfile_iter_next(it, &c, &has, &err) == CF_OK && has && info->raw_keys == false) {
                /* lower bound: the row found is >= the target (when the file is sorted
                 * the iterator guarantees it; unsorted garbage may break it, so only
                 * check the cheap bound on lengths). */
                FUZZ_REQUIRE(c.row.len <= f->size);
            }
        }
        cf_hfile_iter_free(it);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_hfile_target(data, size, check_hfile);
}

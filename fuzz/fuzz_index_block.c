/* Fuzz B-tree index blocks (format §9.1) and the B-tree over them (§9.4).
 *
 *   input: [opt] ...
 *   opt bit 0 = 0: [block bytes]: cf_ib_parse, every entry, seeks in the block
 *   opt bit 0 = 1: [u32 le root off][u32 le root size][image]: a tree whose
 *                  block pointers address the image directly (no framing);
 *                  iterate, seek and walk it as the reader and verify do.
 *   bits 1..7: seed for seek targets.
 */
#include "fuzz.h"

#include <string.h>

#include "index/btree.h"
#include "index/index_block.h"

#define MAX_ENTRIES 4096u
#define MAX_STEPS 100000u

static int key_cmp(cf_slice a, cf_slice b)
{
    size_t n = a.len < b.len ? a.len : b.len;
    int c = n ? memcmp(a.data, b.data, n) : 0;
    if (c)
        return c;
    return (a.len > b.len) - (a.len < b.len);
}

static bool inside(cf_slice s, const uint8_t *base, size_t len)
{
    return s.len == 0 || (s.data >= base && s.len <= len && (size_t)(s.data - base) <= len - s.len);
}

static void one_block(const uint8_t *blk, size_t len, fuzz_rng *rng)
{
    cf_error err = {0};
    cf_index_block ib;
    cf_status st = cf_ib_parse(&ib, blk, len, &err);
    if (st != CF_OK) {
        FUZZ_REQUIRE(err.code == st && err.msg[0]);
        return;
    }
    FUZZ_REQUIRE((size_t)ib.count <= len / 3); /* each entry takes >= 3 bytes */
    FUZZ_REQUIRE(ib.offsets_pos <= len);
    size_t n = ib.count < MAX_ENTRIES ? ib.count : MAX_ENTRIES;
    cf_slice keys[16];
    size_t nkeys = 0;
    for (size_t i = 0; i < n; i++) {
        cf_slice k;
        cf_block_ptr c;
        st = cf_ib_entry(&ib, i, &k, &c, &err);
        if (st != CF_OK) {
            FUZZ_REQUIRE(err.code == st && err.msg[0]);
            continue;
        }
        FUZZ_REQUIRE(inside(k, blk, len));
        if (nkeys < 16)
            keys[nkeys++] = k;
    }
    FUZZ_REQUIRE(cf_ib_entry(&ib, ib.count, &(cf_slice){0}, &(cf_block_ptr){0}, &err) != CF_OK);

    uint8_t tb[8];
    for (int t = 0; t < 6; t++) {
        cf_slice target;
        if (t < 3 && nkeys) {
            target = keys[fuzz_rng_below(rng, nkeys)];
        } else {
            size_t tl = fuzz_rng_below(rng, sizeof tb + 1);
            for (size_t i = 0; i < tl; i++)
                tb[i] = (uint8_t)fuzz_rng_next(rng);
            target = (cf_slice){tb, tl};
        }
        size_t idx = SIZE_MAX;
        st = cf_ib_seek_at_or_before(&ib, target, &idx, &err);
        if (st == CF_OK) {
            FUZZ_REQUIRE(idx < ib.count);
            cf_slice k;
            cf_block_ptr c;
            if (cf_ib_entry(&ib, idx, &k, &c, &err) == CF_OK)
                FUZZ_REQUIRE(key_cmp(k, target) <= 0);
        } else {
            FUZZ_REQUIRE(err.code == st && err.msg[0]);
        }
    }
}

typedef struct image {
    const uint8_t *p;
    size_t n;
    size_t reads;
} image;

static cf_status read_img(void *ctx, cf_block_ptr ptr, cf_buf *scratch, cf_slice *out,
                          cf_error *err)
{
    image *im = ctx;
    im->reads++;
    if (ptr.off > im->n || ptr.size > im->n - ptr.off) {
        err->code = CF_ECORRUPT;
        snprintf(err->msg, sizeof err->msg, "block %llu+%u outside the image",
                 (unsigned long long)ptr.off, ptr.size);
        return CF_ECORRUPT;
    }
    /* Alternate between views and copies, as mmap and pread readers do.
     * (FUZZ_SKIP=buf_extend_zero: no copy of empty blocks, see fuzz/README.md.) */
    if ((im->reads & 1) && !(ptr.size == 0 && fuzz_skip("buf_extend_zero"))) {
        cf_buf_clear(scratch);
        uint8_t *d = cf_buf_extend(scratch, ptr.size);
        if (d == NULL)
            return CF_ENOMEM;
        if (ptr.size)
            memcpy(d, im->p + ptr.off, ptr.size);
        *out = (cf_slice){scratch->data, ptr.size};
    } else {
        *out = (cf_slice){im->p + ptr.off, ptr.size};
    }
    return CF_OK;
}

static cf_status visit(void *vctx, unsigned level, cf_block_ptr ptr, const cf_index_block *ib,
                       cf_error *err)
{
    size_t *visits = vctx;
    FUZZ_REQUIRE(level < CF_BTREE_MAX_DEPTH);
    (*visits)++;
    return CF_OK;
}

static void tree(const uint8_t *img, size_t n, cf_block_ptr root, fuzz_rng *rng)
{
    cf_error err = {0};
    image im = {img, n, 0};
    cf_btree_iter *it = NULL;
    cf_status st = cf_btree_iter_create(&it, root, read_img, &im, &err);
    if (st != CF_OK)
        return;
    st = cf_btree_iter_seek_to_first(it, &err);
    cf_slice firsts[8];
    uint8_t kbuf[8][16];
    size_t nf = 0;
    for (size_t steps = 0; st == CF_OK && steps < MAX_STEPS; steps++) {
        cf_slice k = cf_btree_iter_key(it);
        FUZZ_REQUIRE(k.len == 0 || k.data != NULL);
        if (nf < 8) {
            size_t kl = k.len < 16 ? k.len : 16;
            if (kl)
                memcpy(kbuf[nf], k.data, kl);
            firsts[nf] = (cf_slice){kbuf[nf], kl};
            nf++;
        }
        (void)cf_btree_iter_ptr(it);
        bool more = cf_btree_iter_has_next(it);
        st = cf_btree_iter_next(it, &err);
        if (!more)
            FUZZ_REQUIRE(st != CF_OK);
    }
    uint8_t tb[8];
    for (int t = 0; t < 6; t++) {
        cf_slice target;
        if (t < 3 && nf) {
            target = firsts[fuzz_rng_below(rng, nf)];
        } else {
            size_t tl = fuzz_rng_below(rng, sizeof tb + 1);
            for (size_t i = 0; i < tl; i++)
                tb[i] = (uint8_t)fuzz_rng_next(rng);
            target = (cf_slice){tb, tl};
        }
        st = cf_btree_iter_seek_at_or_before(it, target, &err);
        if (st == CF_OK) {
            FUZZ_REQUIRE(key_cmp(cf_btree_iter_key(it), target) <= 0);
            for (int s = 0; s < 4 && cf_btree_iter_next(it, &err) == CF_OK; s++)
                (void)cf_btree_iter_key(it);
        }
    }
    cf_btree_iter_free(it);
    size_t visits = 0;
    (void)cf_btree_walk(root, read_img, &im, visit, &visits, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    uint8_t opt = fuzz_u8(&in);
    fuzz_rng rng = {(uint32_t)opt * 0x01000193u + (uint32_t)size};
    if (!(opt & 1)) {
        uint8_t *blk = fuzz_dup(in.data, in.size);
        one_block(blk, in.size, &rng);
        free(blk);
        return 0;
    }
    uint32_t off = fuzz_u32(&in), sz = fuzz_u32(&in);
    uint8_t *img = fuzz_dup(in.data, in.size);
    tree(img, in.size, (cf_block_ptr){off, sz}, &rng);
    free(img);
    return 0;
}

/* The B-tree over data blocks: writer, iterator and walk (cfile-format.md §9.3,
 * §9.4, §2.8). Index blocks use the layout of index_block.c (§9.1).
 *
 * Shape of a tree (every leaf at the same depth, level 0 = root here):
 *
 *   level     block type   children
 *   --------  -----------  -------------------------------------------------
 *   0 .. d-2  INTERNAL     index blocks of the next level (key = child's first key)
 *   d-1       LEAF         data blocks (key = the block's index key, §9.2)
 *
 * The writer numbers levels the other way (0 = leaves), as §9.3 does, because
 * the tree grows at the top. Blocks are written post-order: a block is written
 * as soon as it is full, before the entry for it is added to its parent.
 */
#include "btree.h"

#include <limits.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

/* ---- writer ------------------------------------------------------------------------- */

struct cf_btree_writer {
    size_t block_size;
    cf_block_write_fn write;
    void *ctx;
    size_t nlevels; /* builders in use; level[0] is the leaf level */
    bool finished;
    cf_sticky failed; /* the first failure, replayed by every later call */
    cf_index_builder level[CF_BTREE_MAX_DEPTH];
};

cf_status cf_btree_writer_create(cf_btree_writer **out, size_t index_block_size,
                                 cf_block_write_fn write, void *ctx, cf_error *err)
{
    *out = NULL;
    CF_CHECK(write != NULL, err, CF_EINVAL, "btree writer: no block write callback");
    cf_btree_writer *w = cf_calloc(1, sizeof *w);
    CF_CHECK(w != NULL, err, CF_ENOMEM, "btree writer: out of memory");
    w->block_size = index_block_size;
    w->write = write;
    w->ctx = ctx;
    cf_ib_init(&w->level[0], true);
    w->nlevels = 1;
    *out = w;
    return CF_OK;
}

void cf_btree_writer_free(cf_btree_writer *w)
{
    if (w == NULL)
        return;
    for (size_t i = 0; i < w->nlevels; i++)
        cf_ib_dispose(&w->level[i]);
    cf_free(w);
}

static cf_status write_level(cf_btree_writer *w, size_t lvl, cf_block_ptr *ptr, cf_error *err)
{
    cf_slice blk;
    CF_TRY(cf_ib_finish(&w->level[lvl], &blk, err));
    return w->write(w->ctx, blk.data, blk.len, ptr, err);
}

static cf_status flush_and_propagate(cf_btree_writer *w, size_t lvl, cf_error *err);

/* format §9.3 append(key, ptr, lvl): a block is flushed right after the entry
 * that pushes its estimate over the limit, but never with a single entry. */
static cf_status add_at(cf_btree_writer *w, cf_slice key, cf_block_ptr ptr, size_t lvl,
                        cf_error *err)
{
    if (lvl == w->nlevels) {
        /* A deeper tree than the reader follows would be unreadable. */
        CF_CHECK(lvl < CF_BTREE_MAX_DEPTH, err, CF_EINVAL,
                 "btree writer: more than %d levels; index_block_size %zu is too small",
                 CF_BTREE_MAX_DEPTH, w->block_size);
        cf_ib_init(&w->level[lvl], false);
        w->nlevels++;
    }
    cf_index_builder *b = &w->level[lvl];
    cf_ib_add(b, key, ptr);
    if (b->count > 1 && cf_ib_estimated_size(b) > w->block_size)
        return flush_and_propagate(w, lvl, err);
    return CF_OK;
}

static cf_status flush_and_propagate(cf_btree_writer *w, size_t lvl, cf_error *err)
{
    cf_index_builder *b = &w->level[lvl];
    /* A level emptied by a flush just before finish has nothing to write. */
    if (b->count == 0)
        return CF_OK;
    cf_block_ptr ptr;
    CF_TRY(write_level(w, lvl, &ptr, err));
    /* The first key lives in b until the reset, so add it to the parent first. */
    CF_TRY(add_at(w, cf_ib_first_key(b), ptr, lvl + 1, err));
    cf_ib_reset(b);
    return CF_OK;
}

static cf_status usable(const cf_btree_writer *w, cf_error *err)
{
    CF_TRY(cf_sticky_replay(&w->failed, "btree writer", err));
    CF_CHECK(!w->finished, err, CF_ESTATE, "btree writer: already finished");
    return CF_OK;
}

cf_status cf_btree_writer_append(cf_btree_writer *w, cf_slice key, cf_block_ptr child,
                                 cf_error *err)
{
    CF_TRY(usable(w, err));
    return cf_sticky_set(&w->failed, add_at(w, key, child, 0, err), err);
}

cf_status cf_btree_writer_finish(cf_btree_writer *w, cf_block_ptr *root, cf_error *err)
{
    CF_TRY(usable(w, err));
    cf_status st = CF_OK;
    /* format §9.3 finish: nlevels may grow while the lower levels are flushed. */
    for (size_t i = 1; i < w->nlevels; i++)
        CF_TRY_OUT(flush_and_propagate(w, i - 1, err));
    /* The root is written even when it is an empty leaf (format §10.7). */
    CF_TRY_OUT(write_level(w, w->nlevels - 1, root, err));
    w->finished = true;
out:
    return cf_sticky_set(&w->failed, st, err);
}

/* ---- reading: shared by the iterator and the walk ----------------------------------- */

typedef struct level_state {
    cf_buf scratch;    /* holds the block when the read callback copies it */
    cf_index_block ib; /* parsed view of the loaded block */
    cf_block_ptr ptr;  /* which block is loaded */
    bool loaded;
    size_t pos;         /* current entry */
    cf_slice key;       /* entry `pos` */
    cf_block_ptr child; /* entry `pos` */
    /* Key windows of the loaded block (index_block.h), built once the
     * searches of this block while loaded have cost about what building them
     * costs (building reads every entry, a search about log2 of them): the
     * root is searched on every seek and gets them early; a large lower block
     * that seeks keep leaving and coming back to (point lookups spread over
     * two or more leaves) is not decoded whole for every second search. */
    unsigned searches;
    bool windowed;
    cf_ib_windows wv;
    cf_buf win;
} level_state;

static cf_status load_block(level_state *ls, cf_block_read_fn read, void *ctx, cf_block_ptr ptr,
                            cf_error *err)
{
    /* Blocks are immutable, so the block already loaded at this level is reused
     * (the root on every seek, and shared upper levels of nearby seeks). */
    if (ls->loaded && ls->ptr.off == ptr.off && ls->ptr.size == ptr.size)
        return CF_OK;
    ls->loaded = false;
    ls->windowed = false;
    ls->searches = 0;
    cf_slice s;
    cf_status st = read(ctx, ptr, &ls->scratch, &s, err);
    if (st == CF_OK)
        st = cf_ib_parse(&ls->ib, s.data, s.len, err);
    if (st != CF_OK)
        return cf_error_prefix(err, st, "index block at offset %llu (size %u): ",
                               (unsigned long long)ptr.off, (unsigned)ptr.size);
    ls->ptr = ptr;
    ls->loaded = true;
    return CF_OK;
}

/* format §9.1: all leaves at one depth, only the root may be empty, and no chain
 * of INTERNAL blocks deeper than CF_BTREE_MAX_DEPTH (which also ends cycles).
 * *leaf_depth is the depth of the leaves once known, else -1. */
static cf_status check_shape(const cf_index_block *ib, unsigned lvl, int *leaf_depth,
                             cf_block_ptr ptr, cf_error *err)
{
    unsigned long long off = (unsigned long long)ptr.off;
    if (ib->count == 0) {
        CF_CHECK(lvl == 0, err, CF_ECORRUPT, "index block at offset %llu (level %u) is empty", off,
                 lvl);
        CF_CHECK(ib->leaf, err, CF_ECORRUPT, "index root at offset %llu is an empty internal block",
                 off);
    }
    if (ib->leaf) {
        CF_CHECK(*leaf_depth < 0 || (unsigned)*leaf_depth == lvl, err, CF_ECORRUPT,
                 "index leaf at offset %llu is at level %u, other leaves at level %d", off, lvl,
                 *leaf_depth);
        *leaf_depth = (int)lvl;
    } else {
        CF_CHECK(*leaf_depth < 0 || lvl < (unsigned)*leaf_depth, err, CF_ECORRUPT,
                 "internal index block at offset %llu is at level %u, leaves at level %d", off, lvl,
                 *leaf_depth);
        CF_CHECK(lvl + 1 < CF_BTREE_MAX_DEPTH, err, CF_ECORRUPT,
                 "internal index block at offset %llu: tree deeper than %d levels (or a cycle)",
                 off, CF_BTREE_MAX_DEPTH);
    }
    return CF_OK;
}

/* ---- iterator ----------------------------------------------------------------------- */

struct cf_btree_iter {
    cf_block_read_fn read;
    void *ctx;
    cf_block_ptr root;
    int leaf_depth; /* level of the leaves once seen, else -1 */
    unsigned depth; /* levels on the stack when positioned; leaf = depth - 1 */
    bool positioned;
    uint64_t windows_built; /* for tests: cf_btree_iter_windows_built */
    level_state lv[CF_BTREE_MAX_DEPTH];
};

/* Are windows worth building for a block of `count` entries searched
 * `searches` times since it was loaded? From the second search on, once the
 * searches' entry reads (about log2(count) each) add up to the count: a block
 * left after a few searches then costs at most about twice the plain searches. */
static bool windows_pay(unsigned searches, uint32_t count)
{
    unsigned bits = 1;
    while (bits < 32 && ((uint64_t)1 << bits) < count)
        bits++;
    return searches >= 2 && (uint64_t)searches * bits >= count;
}

cf_status cf_btree_iter_create(cf_btree_iter **out, cf_block_ptr root, cf_block_read_fn read,
                               void *ctx, cf_error *err)
{
    *out = NULL;
    CF_CHECK(read != NULL, err, CF_EINVAL, "btree iterator: no block read callback");
    cf_btree_iter *it = cf_calloc(1, sizeof *it);
    CF_CHECK(it != NULL, err, CF_ENOMEM, "btree iterator: out of memory");
    it->read = read;
    it->ctx = ctx;
    it->root = root;
    it->leaf_depth = -1;
    for (unsigned i = 0; i < CF_BTREE_MAX_DEPTH; i++) {
        cf_buf_init(&it->lv[i].scratch);
        cf_buf_init(&it->lv[i].win);
    }
    *out = it;
    return CF_OK;
}

void cf_btree_iter_free(cf_btree_iter *it)
{
    if (it == NULL)
        return;
    for (unsigned i = 0; i < CF_BTREE_MAX_DEPTH; i++) {
        cf_buf_dispose(&it->lv[i].scratch);
        cf_buf_dispose(&it->lv[i].win);
    }
    cf_free(it);
}

/* Load `ptr` at level lvl, check where it sits, and take entry `idx` (or the
 * last entry <= *target when target is not NULL). */
static cf_status enter(cf_btree_iter *it, unsigned lvl, cf_block_ptr ptr, const cf_slice *target,
                       bool strict, cf_error *err)
{
    level_state *ls = &it->lv[lvl];
    CF_TRY(load_block(ls, it->read, it->ctx, ptr, err));
    CF_TRY(check_shape(&ls->ib, lvl, &it->leaf_depth, ptr, err));
    size_t idx = 0;
    if (target != NULL && !ls->windowed && ls->searches != UINT_MAX && ls->ib.count > 0 &&
        windows_pay(++ls->searches, ls->ib.count)) {
        cf_buf_clear(&ls->win);
        void *w = cf_buf_extend(&ls->win, cf_ib_windows_size(&ls->ib));
        ls->windowed = w != NULL && cf_ib_windows_build(&ls->ib, w, &ls->wv);
        it->windows_built++;
        if (!ls->windowed)
            ls->searches = UINT_MAX; /* unsound or out of order: the plain search only */
    }
    if (target != NULL && ls->windowed) {
        /* every entry was decoded and checked when the windows were built */
        CF_TRY(cf_ib_seek_windowed(&ls->ib, &ls->wv, *target, strict, &idx, err));
        ls->pos = idx;
        ls->key = ls->wv.keys[idx];
        ls->child = ls->wv.children[idx];
        return CF_OK;
    }
    if (target != NULL && strict)
        CF_TRY(cf_ib_seek_before(&ls->ib, *target, &idx, err));
    else if (target != NULL)
        CF_TRY(cf_ib_seek_at_or_before(&ls->ib, *target, &idx, err));
    else if (ls->ib.count == 0)
        return cf_error_set(err, CF_ENOTFOUND, __FILE__, __LINE__, "btree: empty index");
    ls->pos = idx;
    return cf_ib_entry(&ls->ib, idx, &ls->key, &ls->child, err);
}

/* Descend from level lvl (whose block is at ptr) down to a leaf. */
static cf_status descend(cf_btree_iter *it, unsigned lvl, cf_block_ptr ptr, const cf_slice *target,
                         bool strict, cf_error *err)
{
    for (;;) {
        CF_TRY(enter(it, lvl, ptr, target, strict, err));
        if (it->lv[lvl].ib.leaf) {
            it->depth = lvl + 1;
            it->positioned = true;
            return CF_OK;
        }
        ptr = it->lv[lvl].child;
        lvl++; /* check_shape keeps lvl < CF_BTREE_MAX_DEPTH */
    }
}

cf_status cf_btree_iter_seek_at_or_before(cf_btree_iter *it, cf_slice target, cf_error *err)
{
    it->positioned = false;
    return descend(it, 0, it->root, &target, false, err);
}

cf_status cf_btree_iter_seek_before(cf_btree_iter *it, cf_slice target, cf_error *err)
{
    it->positioned = false;
    return descend(it, 0, it->root, &target, true, err);
}

cf_status cf_btree_iter_seek_to_first(cf_btree_iter *it, cf_error *err)
{
    it->positioned = false;
    return descend(it, 0, it->root, NULL, false, err);
}

cf_status cf_btree_iter_next(cf_btree_iter *it, cf_error *err)
{
    CF_CHECK(it->positioned, err, CF_ESTATE, "btree iterator: next before a successful seek");
    /* format §9.4: advance the deepest level that has an entry left, then take
     * entry 0 all the way down. At the end the position is left unchanged. */
    unsigned l = it->depth;
    while (l > 0 && it->lv[l - 1].pos + 1 >= it->lv[l - 1].ib.count)
        l--;
    if (l == 0)
        return cf_error_set(err, CF_ENOTFOUND, __FILE__, __LINE__, "btree: end of index");
    level_state *ls = &it->lv[l - 1];
    it->positioned = false;
    CF_TRY(cf_ib_entry(&ls->ib, ls->pos + 1, &ls->key, &ls->child, err));
    ls->pos++;
    if (ls->ib.leaf) {
        it->positioned = true;
        return CF_OK;
    }
    return descend(it, l, ls->child, NULL, false, err);
}

uint64_t cf_btree_iter_windows_built(const cf_btree_iter *it)
{
    return it->windows_built;
}

bool cf_btree_iter_has_next(const cf_btree_iter *it)
{
    if (!it->positioned)
        return false;
    for (unsigned l = 0; l < it->depth; l++)
        if (it->lv[l].pos + 1 < it->lv[l].ib.count)
            return true;
    return false;
}

cf_block_ptr cf_btree_iter_ptr(const cf_btree_iter *it)
{
    cf_block_ptr none = {0, 0};
    return it->positioned ? it->lv[it->depth - 1].child : none;
}

cf_slice cf_btree_iter_key(const cf_btree_iter *it)
{
    cf_slice none = {NULL, 0};
    return it->positioned ? it->lv[it->depth - 1].key : none;
}

/* ---- walk --------------------------------------------------------------------------- */

typedef struct walker {
    cf_block_read_fn read;
    void *ctx;
    cf_btree_visit_fn visit;
    void *vctx;
    int leaf_depth;
    /* Offset of the block last visited at each level. */
    uint64_t last_off[CF_BTREE_MAX_DEPTH];
    bool seen[CF_BTREE_MAX_DEPTH];
    level_state lv[CF_BTREE_MAX_DEPTH];
} walker;

static cf_status walk_block(walker *wk, unsigned lvl, cf_block_ptr ptr, cf_error *err)
{
    level_state *ls = &wk->lv[lvl];
    /* Any sequential writer (Kudu's included, §2.8) puts the blocks of one level
     * at increasing offsets from left to right. Requiring it bounds the walk of a
     * hostile tree whose internal blocks share children to the size of the file. */
    CF_CHECK(!wk->seen[lvl] || ptr.off > wk->last_off[lvl], err, CF_ECORRUPT,
             "index block at offset %llu (level %u) is not after its left neighbour",
             (unsigned long long)ptr.off, lvl);
    wk->seen[lvl] = true;
    wk->last_off[lvl] = ptr.off;
    ls->loaded = false; /* the walk never revisits a block */
    CF_TRY(load_block(ls, wk->read, wk->ctx, ptr, err));
    CF_TRY(check_shape(&ls->ib, lvl, &wk->leaf_depth, ptr, err));
    /* Decode every entry once so the visitor sees a fully checked block. */
    for (size_t i = 0; i < ls->ib.count; i++)
        CF_TRY(cf_ib_entry(&ls->ib, i, &ls->key, &ls->child, err));
    CF_TRY(wk->visit(wk->vctx, lvl, ptr, &ls->ib, err));
    if (ls->ib.leaf)
        return CF_OK;
    for (size_t i = 0; i < ls->ib.count; i++) {
        /* The children reuse deeper buffers only, so this block stays readable. */
        CF_TRY(cf_ib_entry(&ls->ib, i, &ls->key, &ls->child, err));
        CF_TRY(walk_block(wk, lvl + 1, ls->child, err));
    }
    return CF_OK;
}

cf_status cf_btree_walk(cf_block_ptr root, cf_block_read_fn read, void *ctx,
                        cf_btree_visit_fn visit, void *vctx, cf_error *err)
{
    CF_CHECK(read != NULL && visit != NULL, err, CF_EINVAL, "btree walk: missing callback");
    walker *wk = cf_calloc(1, sizeof *wk);
    CF_CHECK(wk != NULL, err, CF_ENOMEM, "btree walk: out of memory");
    wk->read = read;
    wk->ctx = ctx;
    wk->visit = visit;
    wk->vctx = vctx;
    wk->leaf_depth = -1;
    for (unsigned i = 0; i < CF_BTREE_MAX_DEPTH; i++)
        cf_buf_init(&wk->lv[i].scratch);
    cf_status st = walk_block(wk, 0, root, err);
    for (unsigned i = 0; i < CF_BTREE_MAX_DEPTH; i++)
        cf_buf_dispose(&wk->lv[i].scratch);
    cf_free(wk);
    return st;
}

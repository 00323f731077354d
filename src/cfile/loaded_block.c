/* One data block loaded for reading: loaded_block.h. */
#include "loaded_block.h"

#include <string.h>

#include "util/alloc.h"
#include "util/endian.h"

cf_status cf_loaded_block_init(cf_loaded_block *b, const cf_reader *r, cf_error *err)
{
    memset(b, 0, sizeof *b);
    b->r = r;
    b->kind = cf_block_layout_kind_of(r->info.nullable, r->info.is_array);
    cf_buf *bufs[] = {&b->scratch,      &b->ns_own, &b->cell_nonnull,
                      &b->elem_nonnull, &b->counts, &b->offsets};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        cf_buf_init(bufs[i]);
    CF_TRY(r->dec_ops->create(&b->dec, &r->dec_params, err));
    /* iter.h: batches are valid until the next call on the iterator */
    b->dec->batch_scoped = true;
    return CF_OK;
}

void cf_loaded_block_dispose(cf_loaded_block *b)
{
    cf_cache *c = b->r->opts.cache;
    cf_cache_release(c, b->contents.pin);
    cf_cache_release(c, b->seek_pin);
    cf_decoder_free(b->dec);
    cf_buf *bufs[] = {&b->scratch,      &b->ns_own, &b->cell_nonnull,
                      &b->elem_nonnull, &b->counts, &b->offsets};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        cf_buf_dispose(bufs[i]);
}

cf_status cf_loaded_block_prefix(const cf_loaded_block *b, cf_status st, cf_error *err)
{
    return cf_error_prefix(err, st, "data block at offset %llu: ", (unsigned long long)b->ptr.off);
}

/* ---- the decoded flags --------------------------------------------------------------- */

/* Flags up to this many rows are decoded straight away (the decode checks
 * that the stream holds them); larger claims must first be backed by the
 * stream before memory is sized by them. */
#define SMALL_BITMAP_ROWS (1u << 22)

static size_t null_state_size(uint32_t rows, size_t *bits_off)
{
    size_t rank_n = ((size_t)rows >> CF_NULL_RANK_SHIFT) + 1;
    *bits_off = (sizeof(cf_null_state) + rank_n * 4 + 7) & ~(size_t)7;
    return *bits_off + cf_bitmap_bytes(rows) + 8;
}

/* Decode a nullable block's row flags into a fresh cf_null_state in ns_own. */
static cf_status build_null_state(cf_loaded_block *b, cf_error *err)
{
    const cf_block_layout *l = &b->layout;
    uint32_t rows = l->rows;
    if (rows > SMALL_BITMAP_ROWS && !cf_block_layout_rows_backed(l))
        CF_BLOCK_FAIL(b, err, "non-null bitmap holds fewer than its %u rows", rows);
    size_t bits_off, size = null_state_size(rows, &bits_off);
    cf_buf_clear(&b->ns_own);
    uint8_t *mem = cf_buf_extend(&b->ns_own, size);
    CF_CHECK(mem != NULL, err, CF_ENOMEM,
             "data block at offset %llu: out of memory for a "
             "%u-row bitmap",
             (unsigned long long)b->ptr.off, rows);
    cf_null_state *ns = (cf_null_state *)(void *)mem;
    uint8_t *bits = mem + bits_off;
    memset(bits, 0, cf_bitmap_bytes(rows) + 8);
    CF_TRY(cf_loaded_block_fail(b, cf_block_layout_decode_nonnull(l, bits, err), err));
    ns->rows = rows;
    ns->bits = bits;
    uint32_t acc = 0;
    const uint32_t stretch = 1u << CF_NULL_RANK_SHIFT;
    for (uint32_t i = 0, j = 0; j <= rows >> CF_NULL_RANK_SHIFT; j++, i += stretch) {
        ns->rank[j] = acc;
        uint32_t k = rows - i < stretch ? rows - i : stretch;
        acc += (uint32_t)cf_bitmap_count(bits, i, k);
    }
    ns->present = acc;
    b->ns = ns;
    return CF_OK;
}

/* A fresh zeroed bitmap of n flags (and 8 spare bytes) in bm. */
static uint8_t *fresh_bitmap(const cf_loaded_block *b, cf_buf *bm, size_t n, cf_error *err)
{
    cf_buf_clear(bm);
    uint8_t *p = cf_buf_extend(bm, cf_bitmap_bytes(n) + 8);
    if (p == NULL) {
        cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__,
                     "data block at offset %llu: out of memory for a %zu-bit bitmap",
                     (unsigned long long)b->ptr.off, n);
        return NULL;
    }
    memset(p, 0, bm->len);
    return p;
}

/* Arrays: decode the element flags, the cell flags and the cells' counts and
 * element offsets. parse has checked that every stream backs its claim. */
static cf_status decode_cells(cf_loaded_block *b, cf_error *err)
{
    const cf_block_layout *l = &b->layout;
    uint8_t *ebits = fresh_bitmap(b, &b->elem_nonnull, l->elems, err);
    if (ebits == NULL)
        return CF_ENOMEM;
    CF_TRY(cf_loaded_block_fail(b, cf_block_layout_decode_elem_nonnull(l, ebits, err), err));
    uint8_t *cbits = fresh_bitmap(b, &b->cell_nonnull, l->rows, err);
    if (cbits == NULL)
        return CF_ENOMEM;
    CF_TRY(cf_loaded_block_fail(b, cf_block_layout_decode_nonnull(l, cbits, err), err));
    cf_buf_clear(&b->counts);
    cf_buf_clear(&b->offsets);
    uint16_t *c = (uint16_t *)(void *)cf_buf_extend(&b->counts, (size_t)l->rows * 2 + 2);
    uint32_t *o = (uint32_t *)(void *)cf_buf_extend(&b->offsets, ((size_t)l->rows + 1) * 4);
    CF_CHECK(c != NULL && o != NULL, err, CF_ENOMEM, "out of memory loading an array block");
    return cf_loaded_block_fail(b, cf_block_layout_decode_cells(l, c, o, err), err);
}

#define ALIGN8(n) (((n) + 7) & ~(size_t)7)

/* Offer the loaded block's derived state to its cache entry (see cf_block_aux).
 * Best effort: without memory the next load simply decodes again. */
static void attach_aux(cf_loaded_block *b)
{
    const cf_decoder_ops *ops = b->dec->ops;
    size_t dec_len = ops->saved_len != NULL ? ops->saved_len(b->dec) : 0;
    size_t bits_off = 0, ns_len = 0;
    if (b->kind == CF_LAYOUT_NULLABLE)
        ns_len = null_state_size(b->ns->rows, &bits_off);
    /* Nothing to keep: return, unless the decoder was asked and found nothing
     * worth keeping (a PREFIX block whose values are out of order has no
     * fence). Then an empty aux records the answer, or every later load of
     * the cached block would ask, and pay for the asking, again. */
    if (dec_len == 0 && ns_len == 0 && ops->saved_len == NULL)
        return;
    /* Both parts are bounded by memory the block already holds. */
    size_t ns_at = ALIGN8(sizeof(cf_block_aux)), dec_at = ns_at + ALIGN8(ns_len);
    size_t total = dec_at + dec_len;
    uint8_t *m = cf_malloc(total);
    if (m == NULL)
        return;
    cf_block_aux *a = (cf_block_aux *)(void *)m;
    a->ns = NULL;
    a->dec = NULL;
    a->dec_len = dec_len;
    if (ns_len) {
        memcpy(m + ns_at, b->ns, ns_len);
        cf_null_state *ns = (cf_null_state *)(void *)(m + ns_at);
        ns->bits = m + ns_at + bits_off;
        a->ns = ns;
    }
    if (dec_len) {
        ops->save(b->dec, m + dec_at);
        a->dec = m + dec_at;
    }
    /* Another iterator may have attached its own first: ours is then freed,
     * and this load keeps using the block's own copy either way. */
    cf_cache_entry_set_aux(b->r->opts.cache, b->contents.pin, m, total);
}

/* ---- loading ------------------------------------------------------------------------- */

/* Load the decoder with the block's encoded values: from the state a previous
 * load kept with the cached block, or by decoding. */
static cf_status load_decoder(cf_loaded_block *b, const cf_block_aux *aux, cf_error *err)
{
    cf_slice enc = b->layout.encoded;
    const cf_decoder_ops *ops = b->dec->ops;
    /* A state that does not fit the block (never expected: the entry's bytes
     * are the ones it was derived from) is ignored and the block decoded. */
    cf_status dst = CF_ECORRUPT;
    if (aux != NULL && aux->dec != NULL && ops->load_saved != NULL)
        dst = ops->load_saved(b->dec, enc.data, enc.len, aux->dec, aux->dec_len, NULL);
    if (dst != CF_OK)
        CF_TRY(cf_loaded_block_fail(b, ops->load(b->dec, enc.data, enc.len, err), err));
    return CF_OK;
}

/* The block's present values, as its flags count them, must be the values
 * the decoder holds; a plain block's rows are its values (set here; the
 * other layouts' rows are set once their flags are decoded). */
static cf_status check_present(cf_loaded_block *b, cf_error *err)
{
    size_t present = b->dec->count;
    if (b->kind == CF_LAYOUT_ARRAY) {
        size_t flagged = cf_bitmap_count(b->elem_nonnull.data, 0, b->layout.elems);
        if (flagged != present)
            CF_BLOCK_FAIL(b, err, "element bitmap has %zu present elements but the block holds %zu",
                          flagged, present);
    } else if (b->kind == CF_LAYOUT_NULLABLE) {
        if (b->ns->present != present)
            CF_BLOCK_FAIL(b, err, "bitmap has %u present rows but the block holds %zu values",
                          b->ns->present, present);
    } else {
        if (present > UINT32_MAX)
            CF_BLOCK_FAIL(b, err, "block claims %zu values", present);
        b->rows = (uint32_t)present;
    }
    return CF_OK;
}

/* Drop the loaded block: pins released, derived state forgotten. */
static void unload(cf_loaded_block *b)
{
    cf_cache *c = b->r->opts.cache;
    b->valid = false;
    b->flat = NULL;
    b->ns = NULL;
    cf_cache_release(c, b->contents.pin);
    /* the load that follows makes the decoder forget its seek index */
    cf_cache_release(c, b->seek_pin);
    b->seek_pin = NULL;
    b->contents = (cf_block_contents){{NULL, 0}, CF_BLOCK_IN_SCRATCH, NULL};
}

cf_status cf_loaded_block_load(cf_loaded_block *b, cf_block_ptr ptr, cf_error *err)
{
    const cf_reader *r = b->r;
    if (b->valid && b->ptr.off == ptr.off && b->ptr.size == ptr.size) {
        /* Blocks are immutable: a seek back into the loaded block costs no read,
         * checksum, decompression or flag decode. */
        return b->dec->ops->seek(b->dec, 0, err);
    }
    unload(b);
    b->ptr = ptr;
    CF_TRY(b->no_fill ? cf_reader_read_data_block_no_fill(r, ptr, &b->scratch, &b->contents, err)
                      : cf_reader_read_data_block(r, ptr, &b->scratch, &b->contents, err));
    cf_slice logical = b->contents.data;
    const cf_block_aux *aux = b->contents.pin != NULL ? cf_cache_entry_aux(b->contents.pin) : NULL;
    cf_block_layout_limits lim = {r->info.num_values, r->opts.max_block_len};
    CF_TRY(cf_loaded_block_fail(b, cf_block_layout_parse(&b->layout, b->kind, logical, &lim, err),
                                err));
    if (b->kind == CF_LAYOUT_ARRAY) {
        CF_TRY(decode_cells(b, err));
        b->rows = b->layout.rows;
    } else if (b->kind == CF_LAYOUT_NULLABLE) {
        const cf_null_state *ns = aux != NULL ? aux->ns : NULL;
        if (ns != NULL && ns->rows == b->layout.rows)
            b->ns = ns; /* decoded by an earlier load of this cached block */
        else
            CF_TRY(build_null_state(b, err));
        b->rows = b->layout.rows;
    }
    CF_TRY(load_decoder(b, aux, err));
    /* Remembered for cf_iter_check_block; the decoder has already checked that
     * a DICT block starts with a valid 4-byte mode word. */
    cf_slice enc = b->layout.encoded;
    b->logical_len = (uint32_t)logical.len;
    b->dict_mode =
        r->info.encoding == CF_ENC_DICT && enc.len >= 4 ? (int)cf_load_le32(enc.data) : 0;
    CF_TRY(check_present(b, err));
    b->first_ord = b->dec->first_ord;
    if (b->first_ord + b->rows > r->info.num_values)
        CF_BLOCK_FAIL(b, err, "rows [%llu, %llu) run past the file's %llu rows",
                      (unsigned long long)b->first_ord,
                      (unsigned long long)(b->first_ord + b->rows),
                      (unsigned long long)r->info.num_values);
    if (b->contents.pin != NULL && aux == NULL)
        attach_aux(b);
    b->valid = true;
    if (r->info.encoding == CF_ENC_PLAIN && b->kind == CF_LAYOUT_PLAIN &&
        b->dec->ops->view != NULL) {
        /* PLAIN's view is the block's value array itself (format §8.1). */
        const uint8_t *v = b->dec->ops->view(b->dec, 0);
        size_t es = b->r->dec_params.elem_size, align = es < 8 ? es : 8;
        if (((uintptr_t)v & (align - 1)) == 0)
            b->flat = v;
    }
    return CF_OK;
}

/* ---- positions ----------------------------------------------------------------------- */

uint32_t cf_loaded_block_row_of_value(const cf_loaded_block *b, size_t idx)
{
    if (b->kind != CF_LAYOUT_NULLABLE)
        return (uint32_t)idx;
    /* The last 512-row stretch with fewer than idx + 1 present rows before
     * it, then bit by bit inside it. */
    const cf_null_state *ns = b->ns;
    size_t lo = 0, hi = (size_t)(ns->rows >> CF_NULL_RANK_SHIFT) + 1;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (ns->rank[mid] <= idx)
            lo = mid;
        else
            hi = mid;
    }
    size_t seen = ns->rank[lo];
    for (uint32_t j = (uint32_t)(lo << CF_NULL_RANK_SHIFT); j < ns->rows; j++)
        if (cf_bitmap_get(ns->bits, j) && seen++ == idx)
            return j;
    return b->rows;
}

/* The seek index is a cache entry of its own, keyed by the block's offset
 * with the top bit set (no block starts there), charged like a block and
 * evicted like one. Only with a cache: building one costs more than the seek
 * it serves. When it cannot be built (no memory, a damaged chunk) the seek
 * simply goes without, and reports any damage it meets itself. */
void cf_loaded_block_use_seek_index(cf_loaded_block *b)
{
    const cf_reader *r = b->r;
    const cf_decoder_ops *ops = b->dec->ops;
    if (r->opts.cache == NULL || ops->seek_index_len == NULL || b->seek_pin != NULL)
        return;
    size_t len = ops->seek_index_len(b->dec);
    if (len == 0)
        return;
    uint64_t key = b->ptr.off | (UINT64_C(1) << 63);
    cf_slice got = {NULL, 0};
    bool is_view = false;
    cf_cache_entry *e =
        cf_cache_lookup(r->opts.cache, r->cache_file_id, key, b->ptr.size, &got, &is_view);
    if (e == NULL) {
        uint64_t *tmp = cf_malloc(len);
        cf_error e2;
        if (tmp != NULL && ops->seek_index_build(b->dec, tmp, &e2) == CF_OK)
            e = cf_cache_insert(r->opts.cache, r->cache_file_id, key, b->ptr.size,
                                (const uint8_t *)tmp, len, false, &got);
        cf_free(tmp);
        if (e == NULL)
            return;
    }
    if (is_view || got.len != len) { /* never expected: not an index of this block */
        cf_cache_release(r->opts.cache, e);
        return;
    }
    b->seek_pin = e;
    ops->seek_index_use(b->dec, got.data, got.len);
}

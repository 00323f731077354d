/* Array cells as values of rowset mutations: a change list carries a cell in its
 * serialized form (format §12.3, docs/SPEC-NOTES.md D.2); scans and compaction
 * turn it back into the flattened elements batches hold (types.h's cf_batch). */
#include <string.h>

#include "internal.h"

#include "util/alloc.h"
#include "util/bitmap.h"
#include "util/error.h"

cf_status cf_rs_rcl_add_cell(cf_rcl_builder *b, uint32_t col_id, const cf_column *c,
                             const cf_array_cell *cell, cf_error *err)
{
    CF_CHECK(cell->type == c->type, err, CF_EINVAL,
             "column '%s': array of %s given for an array of %s", c->name,
             cf_type_name(cell->type) ? cf_type_name(cell->type) : "?", cf_type_name(c->type));
    size_t cap = cf_array_cell_encoded_max(cell);
    uint8_t *buf = cf_malloc(cap);
    CF_CHECK(buf != NULL, err, CF_ENOMEM, "out of memory");
    size_t len = 0;
    cf_status st = cf_array_cell_encode(buf, cap, &len, cell, err);
    if (st == CF_OK)
        st = cf_rcl_builder_add(b, col_id, buf, len, err);
    cf_free(buf);
    return st;
}

cf_status cf_rs_cell_from_flat(cf_arena *a, cf_type type, const void *vals, const uint8_t *enn,
                               size_t first, size_t n, cf_slice *out, cf_error *err)
{
    size_t w = cf_type_size(type);
    uint8_t *bm = NULL;
    if (enn != NULL && n > 0) {
        bm = cf_arena_alloc_aligned(a, cf_bitmap_bytes(n), 16);
        CF_CHECK(bm != NULL, err, CF_ENOMEM, "out of memory");
        memset(bm, 0, cf_bitmap_bytes(n));
        cf_bitmap_copy(bm, 0, enn, first, n);
    }
    cf_array_cell cell = {type, n, n ? (const uint8_t *)vals + first * w : NULL, bm};
    size_t cap = cf_array_cell_encoded_max(&cell);
    uint8_t *buf = cf_arena_alloc_aligned(a, cap, 16);
    CF_CHECK(buf != NULL, err, CF_ENOMEM, "out of memory");
    size_t len = 0;
    CF_TRY(cf_array_cell_encode(buf, cap, &len, &cell, err));
    *out = (cf_slice){buf, len};
    return CF_OK;
}

cf_status cf_rs_cell_to_flat(cf_slice bytes, cf_type type, cf_buf *vals, cf_buf *enn, size_t *elems,
                             uint32_t *count, cf_error *err)
{
    cf_array_cell_view v;
    CF_TRY(cf_array_cell_decode(&v, bytes, type, err));
    CF_CHECK(v.count <= UINT16_MAX, err, CF_ECORRUPT,
             "array cell of %zu elements (a CFile holds at most 65535)", v.count);
    size_t w = cf_type_size(type);
    uint8_t *dst = cf_buf_extend(vals, v.count * w);
    size_t need = cf_bitmap_bytes(*elems + v.count);
    if (need > enn->len) {
        size_t old = enn->len;
        uint8_t *q = cf_buf_extend(enn, need - old);
        if (q != NULL)
            memset(q, 0, need - old);
    }
    CF_CHECK((dst != NULL || v.count == 0) && !enn->oom, err, CF_ENOMEM, "out of memory");
    for (size_t i = 0; i < v.count; i++) {
        bool null = cf_array_cell_is_null(&v, i);
        if (null)
            memset(dst + i * w, 0, w); /* NULL elements hold zeros (an empty slice) */
        else
            cf_array_cell_get(&v, i, dst + i * w);
        cf_bitmap_put(enn->data, *elems + i, !null);
    }
    *elems += v.count;
    *count = (uint32_t)v.count;
    return CF_OK;
}

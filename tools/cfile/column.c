/* A column of parsed values (values.h "a column of values"): rows added one at a
 * time in their value form, appended to a writer in Kudu-like batches. */
#include "values.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool bit(const uint8_t *bm, size_t i)
{
    return (bm[i >> 3] >> (i & 7)) & 1;
}

/* ---- columns ------------------------------------------------------------------------- */

void cf_cli_column_init(cf_cli_column *c, cf_type t, bool is_array, cf_cli_arena *arena)
{
    memset(c, 0, sizeof(*c));
    c->type = t;
    c->is_array = is_array;
    c->width = cf_type_size(t);
    c->arena = arena;
}

void cf_cli_column_dispose(cf_cli_column *c)
{
    free(c->nonnull);
    free(c->values);
    free(c->elem_nonnull);
    free(c->elem_counts);
    memset(c, 0, sizeof(*c));
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 64;
    while (ncap < need)
        ncap *= 2;
    void *np = realloc(*p, ncap * elem);
    if (np == NULL)
        return -1;
    *p = np;
    *cap = ncap;
    return 0;
}

/* Bitmaps grow with the rows: bytes for `cap` bits, new bytes zeroed. */
static int grow_bits(uint8_t **bm, size_t old_cap, size_t new_cap)
{
    size_t ob = (old_cap + 7) / 8, nb = (new_cap + 7) / 8;
    if (nb <= ob && *bm != NULL)
        return 0;
    uint8_t *n = realloc(*bm, nb ? nb : 1);
    if (n == NULL)
        return -1;
    memset(n + ob, 0, (nb ? nb : 1) - ob);
    *bm = n;
    return 0;
}

static void set_bit(uint8_t *bm, size_t i)
{
    bm[i >> 3] |= (uint8_t)(1u << (i & 7));
}

static int add_row_slot(cf_cli_column *c, char *msg, size_t cap)
{
    if (c->rows == c->rows_cap) {
        size_t old = c->rows_cap;
        size_t ncap = old ? old * 2 : 256;
        if (grow_bits(&c->nonnull, old, ncap) != 0)
            return cf_cli_msg_fail(msg, cap, "out of memory");
        if (c->is_array) {
            uint32_t *ec = realloc(c->elem_counts, ncap * sizeof(uint32_t));
            if (ec == NULL)
                return cf_cli_msg_fail(msg, cap, "out of memory");
            c->elem_counts = ec;
        } else {
            void *vp = c->values;
            size_t vcap = old;
            if (grow(&vp, &vcap, ncap, c->width) != 0)
                return cf_cli_msg_fail(msg, cap, "out of memory");
            c->values = vp;
        }
        c->rows_cap = ncap;
    }
    return 0;
}

int cf_cli_column_add(cf_cli_column *c, const cf_json *v, char *msg, size_t msg_cap)
{
    if (add_row_slot(c, msg, msg_cap) != 0)
        return -1;
    size_t r = c->rows;
    bool is_null;
    if (!c->is_array) {
        if (cf_cli_value_parse(v, c->type, c->values + r * c->width, &is_null, c->arena, msg,
                               msg_cap) != 0)
            return -1;
        if (is_null)
            c->nulls++;
        else
            set_bit(c->nonnull, r);
        c->rows++;
        return 0;
    }
    if (v->kind == CF_JSON_NULL) {
        c->elem_counts[r] = 0;
        c->nulls++;
        c->rows++;
        return 0;
    }
    if (v->kind != CF_JSON_ARRAY)
        return cf_cli_msg_fail(msg, msg_cap, "array column: expected an array or null, got %s",
                               cf_json_kind_name(v->kind));
    if (v->n > UINT32_MAX)
        return cf_cli_msg_fail(msg, msg_cap, "array cell of %zu elements", v->n);
    size_t need = c->elems + v->n;
    if (need > c->elems_cap) {
        size_t old = c->elems_cap;
        void *vp = c->values;
        size_t vcap = old;
        if (grow(&vp, &vcap, need, c->width) != 0)
            return cf_cli_msg_fail(msg, msg_cap, "out of memory");
        c->values = vp;
        if (grow_bits(&c->elem_nonnull, old, vcap) != 0)
            return cf_cli_msg_fail(msg, msg_cap, "out of memory");
        c->elems_cap = vcap;
    }
    for (size_t i = 0; i < v->n; i++) {
        size_t e = c->elems + i;
        if (cf_cli_value_parse(&v->items[i], c->type, c->values + e * c->width, &is_null, c->arena,
                               msg, msg_cap) != 0)
            return -1;
        if (is_null)
            c->elem_nulls++;
        else
            set_bit(c->elem_nonnull, e);
    }
    c->elems += v->n;
    c->elem_counts[r] = (uint32_t)v->n;
    set_bit(c->nonnull, r);
    c->rows++;
    return 0;
}

/* Bits [start, start + n) of src into dst from bit 0. */
static void copy_bits(uint8_t *dst, const uint8_t *src, size_t start, size_t n)
{
    memset(dst, 0, (n + 7) / 8);
    for (size_t i = 0; i < n; i++)
        if (bit(src, start + i))
            set_bit(dst, i);
}

/* A view of bits [start, start + n): in place when byte aligned, else copied into *tmp. */
static const uint8_t *bits_at(const uint8_t *src, size_t start, size_t n, uint8_t **tmp,
                              size_t *tmp_cap)
{
    if (start % 8 == 0)
        return src + start / 8;
    size_t need = (n + 7) / 8;
    if (need > *tmp_cap) {
        uint8_t *t = realloc(*tmp, need);
        if (t == NULL)
            return NULL;
        *tmp = t;
        *tmp_cap = need;
    }
    copy_bits(*tmp, src, start, n);
    return *tmp;
}

cf_status cf_cli_column_append(const cf_cli_column *c, cf_writer *w, size_t batch, cf_error *err)
{
    cf_status st = CF_OK;
    uint8_t *tmp1 = NULL, *tmp2 = NULL;
    size_t cap1 = 0, cap2 = 0;
    size_t elem_start = 0;
    for (size_t start = 0; start < c->rows;) {
        size_t n = batch == 0 ? c->rows - start : batch;
        if (n > c->rows - start)
            n = c->rows - start;
        const uint8_t *nn = NULL;
        if (c->nulls > 0) {
            nn = bits_at(c->nonnull, start, n, &tmp1, &cap1);
            if (nn == NULL) {
                st = CF_ENOMEM;
                goto out;
            }
        }
        if (!c->is_array) {
            st = cf_writer_append(w, c->values + start * c->width, nn, n, err);
        } else {
            size_t ecount = 0;
            for (size_t i = 0; i < n; i++)
                ecount += c->elem_counts[start + i];
            const uint8_t *enn = NULL;
            if (c->elem_nulls > 0 && ecount > 0) {
                enn = bits_at(c->elem_nonnull, elem_start, ecount, &tmp2, &cap2);
                if (enn == NULL) {
                    st = CF_ENOMEM;
                    goto out;
                }
            }
            st = cf_writer_append_arrays(w, c->values ? c->values + elem_start * c->width : NULL,
                                         enn, c->elem_counts + start, nn, n, err);
            elem_start += ecount;
        }
        if (st != CF_OK)
            goto out;
        start += n;
    }
out:
    if (st == CF_ENOMEM && err != NULL) {
        err->code = CF_ENOMEM;
        snprintf(err->msg, sizeof(err->msg), "out of memory");
    }
    free(tmp1);
    free(tmp2);
    return st;
}

/* The rowset scanner's key range: the key predicates (equalities on a key
 * prefix, then bounds on the next key column) turned into the ordinal range
 * [lo, hi) through the key index (format §13); an equality on the whole key
 * asks the bloom filter first. Owns only that computation: it reads the
 * predicates and sets sc->lo, sc->hi and the bloom statistic, and must not
 * touch columns, iterators or deltas (scan.h). */
#include <inttypes.h>
#include <string.h>

#include "scan.h"

#include "util/alloc.h"
#include "util/bitmap.h"
#include "util/error.h"
#include "util/int128.h"

/* ---- key range pushdown --------------------------------------------------------------------- */

/* The smallest byte string greater than every string that starts with b:
 * drop trailing ff bytes, then add one to the last. False when none exists. */
static bool prefix_succ(cf_buf *b)
{
    while (b->len > 0 && b->data[b->len - 1] == 0xff)
        b->len--;
    if (b->len == 0)
        return false;
    b->data[b->len - 1]++;
    return true;
}

static void buf_set(cf_buf *dst, const cf_buf *src)
{
    cf_buf_clear(dst);
    cf_buf_append(dst, src->data, src->len);
}

/* Bound on key column k from `pred` after an equal prefix: lower (GE/GT) or upper (LT/LE). */
static void pred_bound(cf_rowset_scanner *sc, const cf_buf *prefix, size_t k, const rs_pred *p,
                       cf_buf *out, bool *none)
{
    const cf_schema *s = sc->s;
    bool last_bin = cf_type_physical(s->cols[k].type) == CF_TYPE_BINARY && k + 1 == s->nkeys;
    buf_set(out, prefix);
    cf_rs_key_append(out, s, k, p->slot);
    *none = false;
    if (p->op == CF_PRED_GT || p->op == CF_PRED_LE) {
        if (last_bin)
            cf_buf_put_u8(out, 0);
        else
            *none = !prefix_succ(out);
    }
}

cf_status cf_rs_scan_key_range(cf_rowset_scanner *sc, cf_error *err)
{
    const cf_schema *s = sc->s;
    cf_rowset *rs = sc->rs;
    sc->lo = 0;
    sc->hi = cf_rs_rows(rs);
    if (sc->raw || sc->hi == 0)
        return CF_OK;
    cf_buf prefix, lo, hi, t;
    cf_buf_init(&prefix);
    cf_buf_init(&lo);
    cf_buf_init(&hi);
    cf_buf_init(&t);
    bool have_hi = false, whole = true;
    cf_status st = CF_OK;
    size_t k = 0;
    for (; k < s->nkeys; k++) {
        const rs_pred *eq = NULL;
        for (size_t i = 0; i < sc->npreds && eq == NULL; i++)
            if (sc->preds[i].col == k && sc->preds[i].op == CF_PRED_EQ)
                eq = &sc->preds[i];
        if (eq != NULL) {
            cf_rs_key_append(&prefix, s, k, eq->slot);
            continue;
        }
        whole = false;
        buf_set(&lo, &prefix);
        buf_set(&hi, &prefix);
        have_hi = prefix.len > 0 && prefix_succ(&hi);
        for (size_t i = 0; i < sc->npreds; i++) {
            const rs_pred *p = &sc->preds[i];
            if (p->col != k || p->op == CF_PRED_NE || p->op == CF_PRED_IS_NULL ||
                p->op == CF_PRED_IS_NOT_NULL)
                continue;
            bool none;
            pred_bound(sc, &prefix, k, p, &t, &none);
            if (p->op == CF_PRED_GE || p->op == CF_PRED_GT) {
                if (none) { /* nothing is greater */
                    sc->hi = 0;
                    goto out;
                }
                if (cf_rs_bytes_cmp(t.data, t.len, lo.data, lo.len) > 0)
                    buf_set(&lo, &t);
            } else if (!none) {
                if (!have_hi || cf_rs_bytes_cmp(t.data, t.len, hi.data, hi.len) < 0)
                    buf_set(&hi, &t);
                have_hi = true;
            }
        }
        break;
    }
    if (whole) {
        /* Equality on every key column: one key; the bloom filter may rule it out. */
        uint64_t ord;
        bool pruned;
        st = cf_rs_probe_key(rs, prefix.data, prefix.len, &ord, &pruned, err);
        sc->st.bloom_pruned = pruned;
        if (st == CF_ENOTFOUND) {
            st = CF_OK;
            sc->hi = 0;
        } else if (st == CF_OK) {
            sc->lo = ord;
            sc->hi = ord + 1;
        }
        goto out;
    }
    if (lo.len > 0)
        CF_TRY_OUT(cf_rs_lower_bound(rs, lo.data, lo.len, &sc->lo, err));
    if (have_hi)
        CF_TRY_OUT(cf_rs_lower_bound(rs, hi.data, hi.len, &sc->hi, err));
    if (lo.oom || hi.oom || prefix.oom || t.oom)
        CF_FAIL_OUT(err, CF_ENOMEM, "scan: out of memory");
out:
    if (sc->hi < sc->lo)
        sc->hi = sc->lo;
    cf_buf_dispose(&prefix);
    cf_buf_dispose(&lo);
    cf_buf_dispose(&hi);
    cf_buf_dispose(&t);
    return st;
}

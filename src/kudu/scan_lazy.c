/* Opening a tablet scan's rowsets when the merge reaches them. A rowset whose key
 * bounds the superblock records (min/max_encoded_key) can hold no row before its
 * min key, so it stays closed until the merge's smallest current key (rowsets
 * open and WAL ops) reaches that key, and it is closed at its end (scan_merge.c):
 * the blocks open and the batches held at once are those of rowsets whose key
 * ranges overlap, not of every rowset, which keeps a tablet of thousands of
 * rowsets within its descriptors and memory. Kudu's MergeIterator keeps such
 * sub-iterators cold until their lower bound in the same way. */
#include <inttypes.h>
#include <stdlib.h>

#include "scan_internal.h"
#include "tablet.h"

#include "util/alloc.h"
#include "util/error.h"

typedef struct bound {
    const uint8_t *k;
    size_t len, idx;
} bound;

static int bound_cmp(const void *a, const void *b)
{
    const bound *x = a, *y = b;
    int c = key_cmp(x->k, x->len, y->k, y->len);
    return c != 0 ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

cf_status cf_kudu_scan_lazy_plan(cf_kudu_scanner *sc, size_t *live, cf_error *err)
{
    size_t nrs = cf_kudu_tablet_rowset_count(sc->t), nb = 0;
    for (size_t i = 0; i < nrs; i++)
        nb += rowset_lazy(sc, cf_kudu_tablet_rowset_at(sc->t, i));
    *live = nrs - nb;
    if (nb == 0)
        return CF_OK;
    bound *lo = cf_calloc(nb, sizeof(*lo)), *hi = cf_calloc(nb, sizeof(*hi));
    sc->pending = cf_calloc(nb, sizeof(*sc->pending));
    if (lo == NULL || hi == NULL || sc->pending == NULL) {
        cf_free(lo);
        cf_free(hi);
        CF_FAIL(err, CF_ENOMEM, "scan: out of memory");
    }
    for (size_t i = 0, k = 0; i < nrs; i++) {
        const cf_kudu_rowset *m = cf_kudu_tablet_rowset_at(sc->t, i);
        if (!rowset_lazy(sc, m))
            continue;
        lo[k] = (bound){m->min_key, m->min_key_len, i};
        hi[k++] = (bound){m->max_key, m->max_key_len, i};
    }
    qsort(lo, nb, sizeof(*lo), bound_cmp);
    qsort(hi, nb, sizeof(*hi), bound_cmp);
    for (size_t k = 0; k < nb; k++)
        sc->pending[k] = lo[k].idx;
    sc->npending = nb;
    /* The most [min, max] ranges that share a key: a sweep over both ends. */
    size_t open = 0, most = 0;
    for (size_t i = 0, j = 0; i < nb;) {
        if (j >= nb || key_cmp(lo[i].k, lo[i].len, hi[j].k, hi[j].len) <= 0) {
            if (++open > most)
                most = open;
            i++;
        } else {
            open -= open > 0; /* a min above its max (damage) must not wrap */
            j++;
        }
    }
    *live += most;
    cf_free(lo);
    cf_free(hi);
    return CF_OK;
}

bool cf_kudu_scan_lazy_before(const cf_kudu_scanner *sc, const uint8_t *key, size_t len)
{
    if (sc->pi >= sc->npending)
        return true;
    const cf_kudu_rowset *m = cf_kudu_tablet_rowset_at(sc->t, sc->pending[sc->pi]);
    return key_cmp(key, len, m->min_key, m->min_key_len) < 0;
}

cf_status cf_kudu_scan_lazy_open(cf_kudu_scanner *sc, cf_error *err)
{
    while (sc->pi < sc->npending) {
        const scan_rowset *top = sc->nheap > 0 ? sc->heap[0] : NULL;
        if (top != NULL && top->streaming)
            return CF_OK; /* its rows all come first (can_stream) and it has no key */
        size_t idx = sc->pending[sc->pi];
        const cf_kudu_rowset *m = cf_kudu_tablet_rowset_at(sc->t, idx);
        const wal_op *w = sc->oi < sc->nops ? &sc->ops[sc->oi] : NULL;
        if (top != NULL && key_cmp(m->min_key, m->min_key_len, top->key.data, top->key.len) > 0)
            return CF_OK;
        if (w != NULL && key_cmp(m->min_key, m->min_key_len, w->key, w->klen) > 0)
            return CF_OK;
        sc->pi++;
        scan_rowset *d = &sc->rs[idx];
        CF_TRY(cf_kudu_scan_rowset_open(sc, d, m, err));
        CF_TRY(cf_kudu_scan_rowset_settle(sc, d, err));
        if (d->eof) {
            cf_kudu_scan_rowset_close(sc, d);
            continue;
        }
        CF_CHECK(key_cmp(d->key.data, d->key.len, m->min_key, m->min_key_len) >= 0, err,
                 CF_ECORRUPT, "tablet %s: rowset %" PRIu64 " holds a key below its min_encoded_key",
                 cf_kudu_tablet_id(sc->t), m->id);
        cf_kudu_scan_merge_add(sc, d);
    }
    return CF_OK;
}

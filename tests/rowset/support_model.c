/* Shared by the rowset and table tests: see support_model.h. */
#include "support_model.h"

#include "support_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *mkdtemp_dir(void)
{
    static char buf[256];
    snprintf(buf, sizeof(buf), "/tmp/cf_rowset_test_XXXXXX");
    assert_non_null(mkdtemp(buf));
    return buf;
}

char *mkdtemp_fast_dir(void)
{
    static char buf[256];
    snprintf(buf, sizeof(buf), "/dev/shm/cf_rowset_test_XXXXXX");
    if (mkdtemp(buf) != NULL)
        return buf;
    return mkdtemp_dir();
}

bool bit(const uint8_t *bm, size_t i)
{
    return bm == NULL || ((bm[i >> 3] >> (i & 7)) & 1);
}

void mkey(size_t i, char *kb, int32_t *j)
{
    snprintf(kb, 16, "k%03u", (unsigned)(i / 3 % 1000));
    *j = (int32_t)(i % 3) - 1;
}

void model_key_of(model_key *mk, size_t i)
{
    mkey(i, mk->k, &mk->j);
    mk->ks = (cf_slice){(const uint8_t *)mk->k, strlen(mk->k)};
    mk->key[0] = &mk->ks;
    mk->key[1] = &mk->j;
}

void push_version(mrow *r, version v)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 4;
        r->h = realloc(r->h, r->cap * sizeof(version));
        assert_non_null(r->h);
    }
    r->h[r->n++] = v;
}

const version *at(const mrow *r, uint64_t snap)
{
    const version *v = NULL;
    for (size_t i = 0; i < r->n; i++)
        if (r->h[i].ts < snap)
            v = &r->h[i];
    return v != NULL && v->alive ? v : NULL;
}

bool passes(const version *v, size_t i, int kind, int32_t x, const char *kb)
{
    char mk[16];
    int32_t mj;
    mkey(i, mk, &mj);
    return v != NULL && (kind != 1 || (v->v_nn && v->v >= x)) && (kind != 2 || !v->s_nn) &&
           (kind != 3 || strcmp(mk, kb) <= 0);
}

void check_row(const cf_row_batch *b, size_t r, size_t i, const version *v, bool keys, size_t cv,
               size_t cs)
{
    if (keys) {
        char mk[16];
        int32_t mj;
        mkey(i, mk, &mj);
        const cf_slice *k = (const cf_slice *)b->cols[0].values + r;
        assert_int_equal(k->len, strlen(mk));
        assert_memory_equal(k->data, mk, k->len);
        assert_int_equal(((const int32_t *)b->cols[1].values)[r], mj);
    }
    assert_int_equal(bit(b->cols[cv].nonnull, r), v->v_nn);
    if (v->v_nn)
        assert_int_equal(((const int32_t *)b->cols[cv].values)[r], v->v);
    assert_int_equal(bit(b->cols[cs].nonnull, r), v->s_nn);
    if (v->s_nn) {
        const cf_slice *s = (const cf_slice *)b->cols[cs].values + r;
        assert_int_equal(s->len, strlen(v->s));
        assert_memory_equal(s->data, v->s, s->len);
    }
}

void model_update_draw(model_update *u, cf_rng *rng, const version *cur, uint64_t ts)
{
    u->next = cur ? *cur : (version){0};
    u->next.ts = ts;
    u->nch = 0;
    u->v = (int32_t)cf_rng_below(rng, 100);
    snprintf(u->sb, sizeof(u->sb), "u%u", (unsigned)cf_rng_below(rng, 1000));
    u->sv = (cf_slice){(const uint8_t *)u->sb, strlen(u->sb)};
    bool vnull = cf_rng_below(rng, 5) == 0, snull = cf_rng_below(rng, 5) == 0;
    if (cf_rng_below(rng, 2)) {
        u->ch[u->nch++] = (cf_column_change){2, vnull ? NULL : &u->v};
        u->next.v_nn = !vnull;
        u->next.v = u->v;
    }
    if (u->nch == 0 || cf_rng_below(rng, 2)) {
        u->ch[u->nch++] = (cf_column_change){3, snull ? NULL : &u->sv};
        u->next.s_nn = !snull;
        snprintf(u->next.s, sizeof(u->next.s), "%s", u->sb);
    }
}

void model_pred_draw(model_pred *mp, cf_scan_options *o, cf_rng *rng, size_t nkeys, uint64_t snap)
{
    mp->kind = (int)cf_rng_below(rng, 4);
    mp->x = (int32_t)cf_rng_below(rng, 100);
    snprintf(mp->kb, sizeof(mp->kb), "k%03d", (int)cf_rng_below(rng, nkeys / 3));
    mp->ks = (cf_slice){(const uint8_t *)mp->kb, strlen(mp->kb)};
    cf_scan_options_init(o);
    o->snapshot = snap;
    o->batch_rows = 1 + cf_rng_below(rng, 100);
    if (mp->kind == 1)
        mp->p[0] = (cf_pred){2, CF_PRED_GE, &mp->x};
    else if (mp->kind == 2)
        mp->p[0] = (cf_pred){3, CF_PRED_IS_NULL, NULL};
    else if (mp->kind == 3)
        mp->p[0] = (cf_pred){0, CF_PRED_LE, &mp->ks};
    o->preds = mp->p;
    o->npreds = mp->kind ? 1 : 0;
}

void model_check_batch(const cf_row_batch *b, const mrow *m, size_t nkeys, size_t *i, uint64_t snap,
                       const model_pred *mp, bool keys, size_t cv, size_t cs)
{
    for (size_t r = 0; r < b->count; r++) {
        while (*i < nkeys && !passes(at(&m[*i], snap), *i, mp->kind, mp->x, mp->kb))
            (*i)++;
        assert_true(*i < nkeys);
        check_row(b, r, *i, at(&m[*i], snap), keys, cv, cs);
        (*i)++;
    }
}

void model_check_rest(const mrow *m, size_t nkeys, size_t i, uint64_t snap, const model_pred *mp)
{
    for (; i < nkeys; i++)
        assert_false(passes(at(&m[i], snap), i, mp->kind, mp->x, mp->kb));
}

void model_check_get(cf_status st, const cf_error *err, const cf_row_batch *g, const mrow *m,
                     size_t r, uint64_t snap, bool keys)
{
    const version *v = at(&m[r], snap);
    if (v == NULL) {
        CF_ASSERT_STATUS(st, CF_ENOTFOUND, err);
        return;
    }
    CF_ASSERT_OK(st, err);
    check_row(g, 0, r, v, keys, 2, 3);
}

void model_free(mrow *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(m[i].h);
    free(m);
}

void model_check_table(cf_table *t, const mrow *m, size_t nkeys, uint64_t snap, cf_rng *rng)
{
    cf_error err;
    model_pred mp;
    cf_scan_options o;
    model_pred_draw(&mp, &o, rng, nkeys, snap);
    /* Half the scans project (s, v) only: no key column asked for. */
    static const size_t sv[2] = {3, 2};
    bool narrow = cf_rng_below(rng, 2) == 0;
    if (narrow) {
        o.cols = sv;
        o.ncols = 2;
    }
    size_t cv = narrow ? 1 : 2, cs = narrow ? 0 : 3;
    cf_table_scanner *sc = table_scan_open(t, &o);
    size_t i = 0;
    cf_row_batch b;
    while (table_scan_next(sc, &b))
        model_check_batch(&b, m, nkeys, &i, snap, &mp, !narrow, cv, cs);
    model_check_rest(m, nkeys, i, snap, &mp);
    cf_table_scanner_free(sc);
    for (int n = 0; n < 8; n++) {
        size_t r = cf_rng_below(rng, nkeys);
        model_key mk;
        model_key_of(&mk, r);
        cf_row_batch g;
        cf_status st = cf_table_get(t, mk.key, snap, &g, &err);
        model_check_get(st, &err, &g, m, r, snap, false);
    }
}

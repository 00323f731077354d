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

int tmpdir_setup(void **state)
{
    *state = strdup(mkdtemp_dir());
    return *state != NULL ? 0 : -1;
}

int tmpdir_teardown(void **state)
{
    int rc = cf_test_rm_rf(*state);
    free(*state);
    return rc;
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

/* model_start's rowset: model rows first, first + step, ... below end, each
 * with random v and s, written to dir (insert timestamp 10) and pushed onto m
 * as their first version. */
static void model_write_rowset(const char *dir, const cf_schema *s, mrow *m, size_t first,
                               size_t end, size_t step, cf_rng *rng)
{
    size_t cap = (end - first + step - 1) / step;
    char(*kbs)[16] = calloc(cap, 16);
    cf_slice *ks = calloc(cap, sizeof(cf_slice)), *ss = calloc(cap, sizeof(cf_slice));
    int32_t *js = calloc(cap, 4), *vs = calloc(cap, 4);
    uint8_t *nnv = calloc(cap / 8 + 1, 1), *nns = calloc(cap / 8 + 1, 1);
    assert_true(kbs && ks && ss && js && vs && nnv && nns);
    size_t n = 0;
    for (size_t i = first; i < end; i += step, n++) {
        version v = {.ts = 10, .alive = true};
        mkey(i, kbs[n], &js[n]);
        ks[n] = (cf_slice){(const uint8_t *)kbs[n], strlen(kbs[n])};
        v.v_nn = cf_rng_below(rng, 4) != 0;
        v.v = (int32_t)cf_rng_below(rng, 100);
        v.s_nn = cf_rng_below(rng, 4) != 0;
        snprintf(v.s, sizeof(v.s), "s%u", (unsigned)cf_rng_below(rng, 1000));
        vs[n] = v.v;
        if (v.v_nn)
            nnv[n / 8] |= (uint8_t)(1u << (n % 8));
        if (v.s_nn)
            nns[n / 8] |= (uint8_t)(1u << (n % 8));
        push_version(&m[i], v);
        ss[n] = (cf_slice){(const uint8_t *)m[i].h[0].s, strlen(m[i].h[0].s)};
    }
    cf_colvec cols[4] = {{ks, NULL, NULL, NULL},
                         {js, NULL, NULL, NULL},
                         {vs, nnv, NULL, NULL},
                         {ss, nns, NULL, NULL}};
    cf_rowset_writer_options wo;
    cf_rowset_writer_options_init(&wo);
    wo.insert_ts = 10;
    rowset_write(dir, s, &wo, cols, n);
    free(kbs);
    free(ks);
    free(ss);
    free(js);
    free(vs);
    free(nnv);
    free(nns);
}

mrow *model_start(char **dir, size_t nkeys, size_t first, size_t end, size_t step, cf_rng *rng)
{
    *dir = strdup(mkdtemp_dir());
    assert_non_null(*dir);
    cf_error err;
    cf_schema *s;
    CF_ASSERT_OK(
        cf_schema_parse(&s, "k STRING KEY, j INT32 KEY, v INT32 NULL, s STRING NULL", &err), &err);
    mrow *m = calloc(nkeys, sizeof(*m));
    assert_non_null(m);
    model_write_rowset(*dir, s, m, first, end, step, rng);
    cf_schema_free(s);
    return m;
}

void model_end(char *dir, mrow *m, size_t nkeys)
{
    model_free(m, nkeys);
    CF_ASSERT_RM_RF(dir);
    free(dir);
}

void model_insert_draw(model_insert *mi, cf_rng *rng, const model_key *mk, bool v_nullable,
                       char tag, uint64_t ts)
{
    mi->v = (int32_t)cf_rng_below(rng, 100);
    snprintf(mi->sb, sizeof(mi->sb), "%c%u", tag, (unsigned)cf_rng_below(rng, 1000));
    mi->sv = (cf_slice){(const uint8_t *)mi->sb, strlen(mi->sb)};
    bool vnull = v_nullable && cf_rng_below(rng, 4) == 0, snull = cf_rng_below(rng, 3) == 0;
    mi->vals[0] = mk ? &mk->ks : NULL;
    mi->vals[1] = mk ? &mk->j : NULL;
    mi->vals[2] = vnull ? NULL : &mi->v;
    mi->vals[3] = snull ? NULL : &mi->sv;
    mi->next = (version){.ts = ts, .alive = true, .v_nn = !vnull, .v = mi->v, .s_nn = !snull};
    snprintf(mi->next.s, sizeof(mi->next.s), "%s", mi->sb);
}

bool model_apply_update(mrow *r, cf_status st, const cf_error *err, const version *next)
{
    if (at(r, UINT64_MAX) == NULL) {
        CF_ASSERT_STATUS(st, CF_ENOTFOUND, err);
        return false;
    }
    CF_ASSERT_OK(st, err);
    push_version(r, *next);
    return true;
}

bool model_apply_delete(mrow *r, cf_status st, const cf_error *err, uint64_t ts)
{
    const version *cur = at(r, UINT64_MAX);
    if (cur == NULL) {
        CF_ASSERT_STATUS(st, CF_ENOTFOUND, err);
        return false;
    }
    CF_ASSERT_OK(st, err);
    version nv = *cur;
    nv.ts = ts;
    nv.alive = false;
    push_version(r, nv);
    return true;
}

void model_compacted(mrow *m, size_t nkeys, uint64_t ahm)
{
    for (size_t i = 0; i < nkeys; i++) {
        const version *lv = m[i].n ? &m[i].h[m[i].n - 1] : NULL;
        if (lv != NULL && !lv->alive && lv->ts < ahm) {
            m[i].n = 0; /* never visible again at snapshots >= ahm: keep no history */
            m[i].gone = true;
        }
    }
}

uint64_t model_snap_draw(cf_rng *rng, uint64_t ahm, uint64_t ts)
{
    uint64_t snap =
        cf_rng_below(rng, 4) == 0 ? CF_SNAPSHOT_LATEST : ahm + cf_rng_below(rng, ts + 2 - ahm);
    return snap < ahm ? ahm : snap;
}

/* What a model check reads: a rowset or a table, behind these calls. */
typedef struct model_reader {
    void *h;
    void *(*scan_open)(void *h, const cf_scan_options *o);
    bool (*scan_next)(void *sc, cf_row_batch *b);
    void (*scan_free)(void *sc);
    cf_status (*get)(void *h, const void *const *key, uint64_t snap, cf_row_batch *g,
                     cf_error *err);
    int lookups;      /* random lookups a check makes */
    bool lookup_keys; /* a lookup's key columns are checked (copies of the key asked for) */
} model_reader;

/* A scan with a random predicate and projection (mkey order), then
 * rd->lookups random lookups. */
static void model_check(const model_reader *rd, const mrow *m, size_t nkeys, uint64_t snap,
                        cf_rng *rng)
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
    void *sc = rd->scan_open(rd->h, &o);
    size_t i = 0;
    cf_row_batch b;
    while (rd->scan_next(sc, &b))
        model_check_batch(&b, m, nkeys, &i, snap, &mp, !narrow, cv, cs);
    model_check_rest(m, nkeys, i, snap, &mp);
    rd->scan_free(sc);
    for (int n = 0; n < rd->lookups; n++) {
        size_t r = cf_rng_below(rng, nkeys);
        model_key mk;
        model_key_of(&mk, r);
        cf_row_batch g;
        cf_status st = rd->get(rd->h, mk.key, snap, &g, &err);
        /* What comes back must not point into the caller's key. */
        memset(mk.k, 'X', sizeof(mk.k));
        mk.j = -1;
        model_check_get(st, &err, &g, m, r, snap, rd->lookup_keys);
    }
}

static void *rowset_open_scan(void *rs, const cf_scan_options *o)
{
    return rowset_scan_open(rs, o);
}

static bool rowset_next(void *sc, cf_row_batch *b)
{
    return rowset_scan_next(sc, b);
}

static void rowset_scan_free(void *sc)
{
    cf_rowset_scanner_free(sc);
}

static cf_status rowset_get(void *rs, const void *const *key, uint64_t snap, cf_row_batch *g,
                            cf_error *err)
{
    return cf_rowset_get(rs, key, snap, g, err);
}

void model_check_rowset(cf_rowset *rs, const mrow *m, size_t nkeys, uint64_t snap, cf_rng *rng)
{
    /* The key columns come back from the key looked up (not read again):
     * copies, which outlive the caller's buffers. */
    const model_reader rd = {rs,  rowset_open_scan, rowset_next, rowset_scan_free, rowset_get, 5,
                             true};
    model_check(&rd, m, nkeys, snap, rng);
}

static void *table_open_scan(void *t, const cf_scan_options *o)
{
    return table_scan_open(t, o);
}

static bool table_next(void *sc, cf_row_batch *b)
{
    return table_scan_next(sc, b);
}

static void table_scan_free(void *sc)
{
    cf_table_scanner_free(sc);
}

static cf_status table_get(void *t, const void *const *key, uint64_t snap, cf_row_batch *g,
                           cf_error *err)
{
    return cf_table_get(t, key, snap, g, err);
}

void model_check_table(cf_table *t, const mrow *m, size_t nkeys, uint64_t snap, cf_rng *rng)
{
    const model_reader rd = {t, table_open_scan, table_next, table_scan_free, table_get, 8, false};
    model_check(&rd, m, nkeys, snap, rng);
}

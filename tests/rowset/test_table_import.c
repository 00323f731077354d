/* Bulk loads (cf_table_loader_*, src/rowset/table_import.c) that reinsert keys
 * the table holds as deleted rows, in rowsets (flushed and unflushed deletes)
 * and in the MemRowSet: every snapshot reads as a model says before the load,
 * at the load's timestamp and after it; after reopening (log replay) and after
 * a compaction. Sorted loads stream the rows between reinserts (nullable and
 * array columns sliced at any row), unsorted ones go through the loader's
 * MemRowSet. A load that fails (a duplicate after reinserts, an allocation
 * failure at any point of its commit) leaves the table as it was, on disk and
 * in the handle, and works when retried; SIGKILL at random moments of such a
 * load leaves all of it or none. */
#include "test_common.h"

#include <dirent.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cfile/cfile.h>
#include <cfile/rowset.h>

#include "support_model.h"
#include "support_table.h"
#include "util/alloc.h"

#define NKEYS 640 /* ids 0..NKEYS-1: even ones are put in the table, odd ones are new */
#define HIST 24

/* One version of a row of (id INT64 KEY, v INT32 NULL, tags INT32[] NULL). */
typedef struct ver {
    uint64_t ts;
    bool alive, v_nn, t_nn;
    int32_t v;
    int nt;
    int32_t tags[3];
    uint8_t tvalid;
} ver;

typedef struct krow {
    ver h[HIST];
    int n;
} krow;

static void draw(ver *v, cf_rng *rng, uint64_t ts)
{
    memset(v, 0, sizeof(*v));
    v->ts = ts;
    v->alive = true;
    v->v_nn = cf_rng_below(rng, 5) != 0;
    v->v = v->v_nn ? (int32_t)cf_rng_below(rng, 100000) - 50000 : 0;
    v->t_nn = cf_rng_below(rng, 4) != 0;
    v->nt = v->t_nn ? (int)cf_rng_below(rng, 4) : 0;
    v->tvalid = (uint8_t)(cf_rng_below(rng, 3) ? 0x7 : cf_rng_below(rng, 8));
    for (int e = 0; e < 3; e++)
        v->tags[e] = (v->tvalid >> e) & 1 && e < v->nt ? (int32_t)cf_rng_below(rng, 900) : 0;
}

static void push(krow *r, ver v)
{
    assert_true(r->n < HIST);
    r->h[r->n++] = v;
}

static const ver *cur(const krow *r)
{
    return r->n > 0 && r->h[r->n - 1].alive ? &r->h[r->n - 1] : NULL;
}

/* The version a snapshot at snap sees (ts < snap), or NULL. */
static const ver *seen(const krow *r, uint64_t snap)
{
    const ver *v = NULL;
    for (int i = 0; i < r->n && r->h[i].ts < snap; i++)
        v = &r->h[i];
    return v != NULL && v->alive ? v : NULL;
}

static void render(FILE *f, int64_t id, const ver *v)
{
    fprintf(f, "%" PRId64 ":", id);
    if (v->v_nn)
        fprintf(f, "%d", v->v);
    else
        fprintf(f, "N");
    fprintf(f, ":");
    if (!v->t_nn) {
        fprintf(f, "N\n");
        return;
    }
    fprintf(f, "[");
    for (int e = 0; e < v->nt; e++) {
        if ((v->tvalid >> e) & 1)
            fprintf(f, "%s%d", e ? "," : "", v->tags[e]);
        else
            fprintf(f, "%sN", e ? "," : "");
    }
    fprintf(f, "]\n");
}

static char *model_text(const krow *m, uint64_t snap)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    for (int64_t id = 0; id < NKEYS; id++) {
        const ver *v = seen(&m[id], snap);
        if (v != NULL)
            render(f, id, v);
    }
    fclose(f);
    return buf;
}

/* table_scan_text: row r of b as the model renders it. */
static void row_text(FILE *f, const cf_row_batch *b, size_t r, void *ctx)
{
    (void)ctx;
    const cf_batch *tc = &b->cols[2];
    ver v;
    memset(&v, 0, sizeof(v));
    v.v_nn = bit(b->cols[1].nonnull, r);
    v.v = ((const int32_t *)b->cols[1].values)[r];
    v.t_nn = bit(tc->nonnull, r);
    uint32_t a = tc->elem_offsets[r];
    v.nt = (int)(tc->elem_offsets[r + 1] - a);
    assert_true(v.nt <= 3);
    for (int e = 0; e < v.nt; e++) {
        if (bit(tc->elem_nonnull, a + (uint32_t)e))
            v.tvalid |= (uint8_t)(1u << e);
        v.tags[e] = ((const int32_t *)tc->values)[a + (uint32_t)e];
    }
    render(f, ((const int64_t *)b->cols[0].values)[r], &v);
}

static char *table_text(cf_table *t, uint64_t snap)
{
    cf_scan_options o;
    cf_scan_options_init(&o);
    o.snapshot = snap;
    o.batch_rows = 29; /* batches cut across stores */
    return table_scan_text(t, &o, row_text, NULL);
}

/* Every stride-th snapshot from 1 to last_ts + 1, the last few and the latest
 * read as the model; lookups of a few keys too. */
static void check(cf_table *t, const krow *m, cf_rng *rng, uint64_t stride)
{
    uint64_t last = cf_table_last_ts(t);
    for (uint64_t s = 1; s <= last + 2; s++) {
        if (s % stride != 0 && s + 3 <= last)
            continue;
        uint64_t snap = s == last + 2 ? CF_SNAPSHOT_LATEST : s;
        char *want = model_text(m, snap), *got = table_text(t, snap);
        if (strcmp(want, got) != 0) {
            const char *a = got, *b = want;
            while (*a && *a == *b)
                a++, b++;
            while (a > got && a[-1] != '\n')
                a--, b--;
            fail_msg("snapshot %" PRIu64 ": the table has '%.40s', the model '%.40s'", snap, a, b);
        }
        free(want);
        free(got);
    }
    cf_error err;
    for (int i = 0; i < 40; i++) {
        int64_t id = (int64_t)cf_rng_below(rng, NKEYS);
        uint64_t snap = 1 + cf_rng_below(rng, last + 1);
        const void *key[1] = {&id};
        cf_row_batch b;
        cf_status st = cf_table_get(t, key, snap, &b, &err);
        const ver *v = seen(&m[id], snap);
        if (v == NULL) {
            CF_ASSERT_STATUS(st, CF_ENOTFOUND, &err);
            continue;
        }
        CF_ASSERT_OK(st, &err);
        assert_int_equal(b.count, 1);
        assert_int_equal(bit(b.cols[1].nonnull, 0), v->v_nn);
        if (v->v_nn)
            assert_int_equal(((const int32_t *)b.cols[1].values)[0], v->v);
        assert_int_equal(bit(b.cols[2].nonnull, 0), v->t_nn);
        assert_int_equal(b.cols[2].elem_offsets[1] - b.cols[2].elem_offsets[0], (uint32_t)v->nt);
    }
}

static void make_table(const char *dir)
{
    table_create(dir, "id INT64 KEY, v INT32 NULL, tags INT32[] NULL");
}

static cf_status insert(cf_table *t, int64_t id, const ver *v, cf_error *err)
{
    cf_array_cell cell = {CF_TYPE_INT32, (size_t)v->nt, v->tags, &v->tvalid};
    const void *vals[3] = {&id, v->v_nn ? &v->v : NULL, v->t_nn ? &cell : NULL};
    return cf_table_insert(t, vals, v->ts, err);
}

/* Rows of a load: ids[i] with values rows[i]. */
typedef struct batch {
    int64_t ids[64];
    int32_t v[64];
    uint8_t vnn[8], tnn[8];
    uint32_t counts[64];
    int32_t elems[192];
    uint8_t enn[24];
    size_t n, ne;
} batch;

static void batch_add(batch *b, int64_t id, const ver *v)
{
    size_t i = b->n++;
    b->ids[i] = id;
    b->v[i] = v->v;
    if (v->v_nn)
        b->vnn[i / 8] |= (uint8_t)(1u << (i % 8));
    if (v->t_nn)
        b->tnn[i / 8] |= (uint8_t)(1u << (i % 8));
    b->counts[i] = (uint32_t)v->nt;
    for (int e = 0; e < v->nt; e++) {
        if ((v->tvalid >> e) & 1)
            b->enn[b->ne / 8] |= (uint8_t)(1u << (b->ne % 8));
        b->elems[b->ne++] = v->tags[e];
    }
}

static cf_status batch_append(cf_table_loader *l, const batch *b, cf_error *err)
{
    cf_colvec cols[3] = {
        {b->ids, NULL, NULL, NULL},
        {b->v, b->vnn, NULL, NULL},
        {b->elems, b->tnn, b->counts, b->enn},
    };
    return cf_table_loader_append(l, cols, b->n, err);
}

/* Tests: the commit's allocations (g_commit_fail: the n-th of them fails; 0 =
 * none), counted into g_commit_calls. */
static uint64_t g_commit_fail, g_commit_calls;
static double g_commit_t0, g_commit_t1; /* CLOCK_MONOTONIC around the last commit */

/* Load rows ids[0..n) (values drawn at the load's ts into *vals) in batches of
 * up to bs rows. Returns the first failure of append or commit. */
static cf_status load(cf_table *t, const int64_t *ids, const ver *vals, size_t n, size_t bs,
                      uint64_t ts, uint64_t *err_row, cf_error *err)
{
    cf_table_loader_options o;
    cf_table_loader_options_init(&o);
    o.ts = ts;
    o.memory_bytes = 4096; /* unsorted rows: several rowsets */
    cf_table_loader *l;
    cf_status st = cf_table_loader_create(&l, t, &o, err);
    if (st != CF_OK)
        return st;
    for (size_t a = 0; a < n && st == CF_OK; a += bs) {
        batch b;
        memset(&b, 0, sizeof(b));
        for (size_t i = a; i < n && i < a + bs; i++)
            batch_add(&b, ids[i], &vals[i]);
        st = batch_append(l, &b, err);
    }
    if (st != CF_OK && st != CF_ENOMEM) {
        /* sticky: the commit refuses too, and says why */
        cf_error again;
        CF_ASSERT_REPLAYED(cf_table_loader_commit(l, &again), st, &again, "loader", err);
    }
    if (st == CF_OK) {
        cf_alloc_stats_start();
        cf_alloc_fail_after(g_commit_fail);
        g_commit_t0 = now_s();
        st = cf_table_loader_commit(l, err);
        g_commit_t1 = now_s();
        cf_alloc_fail_after(0);
        cf_alloc_stats stats;
        cf_alloc_stats_stop(&stats);
        g_commit_calls = stats.calls;
    }
    if (err_row != NULL)
        *err_row = cf_table_loader_error_row(l);
    cf_table_loader_free(l);
    return st;
}

/* A table of even keys: the root rowset (a first load), a flushed rowset, a
 * third one, and rows in the MemRowSet; updates, and deletes flushed, in
 * rowsets' in-memory stores and in the MemRowSet. */
static void build(const char *dir, krow *m, cf_rng *rng, cf_table **out)
{
    cf_error err;
    memset(m, 0, NKEYS * sizeof(*m));
    make_table(dir);
    cf_table *t = table_open(dir);
    int64_t ids[NKEYS];
    ver vals[NKEYS];
    size_t n = 0;
    for (int64_t id = 0; id < 200; id += 2, n++) {
        ids[n] = id;
        draw(&vals[n], rng, 1);
        push(&m[id], vals[n]);
    }
    CF_ASSERT_OK(load(t, ids, vals, n, 64, 1, NULL, &err), &err);
    uint64_t ts = cf_table_last_ts(t);
    for (int64_t id = 200; id < 400; id += 2) {
        ver v;
        draw(&v, rng, ++ts);
        CF_ASSERT_OK(insert(t, id, &v, &err), &err);
        push(&m[id], v);
        if (id == 318 || id == 398)
            CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    }
    for (int round = 0; round < 3; round++) {
        for (int64_t id = 400; round == 1 && id < 440; id += 2) { /* the MemRowSet's */
            ver v;
            draw(&v, rng, ++ts);
            CF_ASSERT_OK(insert(t, id, &v, &err), &err);
            push(&m[id], v);
        }
        for (int k = 0; k < 40; k++) {
            int64_t id = 2 * (int64_t)cf_rng_below(rng, 220);
            const ver *c = cur(&m[id]);
            ver v;
            if (c == NULL)
                continue;
            if (cf_rng_below(rng, 3) == 0) {
                cf_column_change ch = {1, NULL};
                draw(&v, rng, ++ts);
                v.t_nn = c->t_nn, v.nt = c->nt, v.tvalid = c->tvalid;
                memcpy(v.tags, c->tags, sizeof(v.tags));
                ch.value = v.v_nn ? &v.v : NULL;
                const void *key[1] = {&id};
                CF_ASSERT_OK(cf_table_update(t, key, &ch, 1, v.ts, &err), &err);
            } else {
                memset(&v, 0, sizeof(v));
                v.ts = ++ts;
                const void *key[1] = {&id};
                CF_ASSERT_OK(cf_table_delete(t, key, v.ts, &err), &err);
            }
            push(&m[id], v);
        }
        if (round == 0)
            CF_ASSERT_OK(cf_table_flush(t, &err), &err); /* deletes in REDO files too */
    }
    assert_true(cf_table_mrs_rows(t) > 0);
    *out = t;
}

/* The keys a load puts: every deleted even key and every odd key < lim, in key
 * order, each with new values at ts. */
static size_t load_rows(const krow *m, int64_t lim, cf_rng *rng, uint64_t ts, int64_t *ids,
                        ver *vals, size_t *reinserts)
{
    size_t n = 0;
    *reinserts = 0;
    for (int64_t id = 0; id < lim; id++) {
        bool deleted = m[id].n > 0 && cur(&m[id]) == NULL;
        if (!deleted && (id % 2 == 0 || m[id].n > 0))
            continue;
        *reinserts += deleted;
        ids[n] = id;
        draw(&vals[n], rng, ts);
        n++;
    }
    return n;
}

static void shuffle(int64_t *ids, ver *vals, size_t n, cf_rng *rng)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)cf_rng_below(rng, i);
        int64_t ti = ids[i - 1];
        ids[i - 1] = ids[j];
        ids[j] = ti;
        ver tv = vals[i - 1];
        vals[i - 1] = vals[j];
        vals[j] = tv;
    }
}

#define STRIDE 1

/* The rows of a load (ids[i] with values vals[i]) pushed onto the model. */
static void push_load(krow *m, const int64_t *ids, const ver *vals, size_t n)
{
    for (size_t i = 0; i < n; i++)
        push(&m[ids[i]], vals[i]);
}

/* t freed and the table in dir opened again, which must read as the model. */
static cf_table *reopen_check(cf_table *t, const char *dir, const krow *m, cf_rng *rng)
{
    cf_table_free(t);
    t = table_open(dir);
    check(t, m, rng, STRIDE);
    return t;
}
static void test_table_import__reinserts(void **state)
{
    (void)state;
    cf_error err;
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(1401));
    static krow m[NKEYS];
    for (int sorted = 1; sorted >= 0; sorted--) {
        char dir[256];
        snprintf(dir, sizeof(dir), "%s", mkdtemp_fast_dir());
        cf_table *t;
        build(dir, m, &rng, &t);
        check(t, m, &rng, STRIDE);
        static int64_t ids[NKEYS];
        static ver vals[NKEYS];
        size_t re;
        uint64_t ts = cf_table_last_ts(t) + 1;
        size_t n = load_rows(m, 500, &rng, ts, ids, vals, &re);
        assert_true(re > 20);
        if (!sorted)
            shuffle(ids, vals, n, &rng);
        size_t nrs = cf_table_rowset_count(t);
        CF_ASSERT_OK(load(t, ids, vals, n, 37, ts, NULL, &err), &err);
        push_load(m, ids, vals, n);
        assert_int_equal(cf_table_mrs_rows(t), 0); /* its deleted rows went with the load */
        assert_true(cf_table_rowset_count(t) > nrs);
        check(t, m, &rng, STRIDE);
        /* Deletes of reinserted rows, then another load reinserting them. */
        ts = cf_table_last_ts(t);
        for (int64_t id = 0; id < 500; id += 3) {
            if (cur(&m[id]) == NULL || cf_rng_below(&rng, 2))
                continue;
            const void *key[1] = {&id};
            ver v;
            memset(&v, 0, sizeof(v));
            v.ts = ++ts;
            CF_ASSERT_OK(cf_table_delete(t, key, v.ts, &err), &err);
            push(&m[id], v);
        }
        ts++;
        n = load_rows(m, NKEYS, &rng, ts, ids, vals, &re);
        if (!sorted)
            shuffle(ids, vals, n, &rng);
        CF_ASSERT_OK(load(t, ids, vals, n, 61, ts, NULL, &err), &err);
        push_load(m, ids, vals, n);
        check(t, m, &rng, STRIDE);
        /* Reopened (the log replays onto the copies), compacted, reopened. */
        t = reopen_check(t, dir, m, &rng);
        CF_ASSERT_OK(cf_table_compact(t, 0, &err), &err);
        assert_int_equal(cf_table_rowset_count(t), 1);
        check(t, m, &rng, STRIDE);
        CF_ASSERT_OK(cf_table_close(t, &err), &err);
        cf_table_options o;
        cf_table_options_init(&o);
        o.read_only = true;
        CF_ASSERT_OK(cf_table_open(&t, dir, &o, &err), &err);
        check(t, m, &rng, STRIDE);
        cf_table_free(t);
        CF_ASSERT_RM_RF(dir);
    }
}

/* The rowset directories in dir, and TABLET's bytes. */
static char *disk_state(const char *dir)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    char cmd[400];
    snprintf(cmd, sizeof(cmd), "cd '%s' && ls -d rs-* && cat TABLET", dir);
    FILE *p = popen(cmd, "r");
    int ch;
    while ((ch = fgetc(p)) != EOF)
        fputc(ch, f);
    pclose(p);
    fclose(f);
    return buf;
}

/* A load that fails after reinserts (a duplicate key late in it, or an
 * allocation failure anywhere in its commit) leaves the table as it was: every
 * snapshot, the files and TABLET; the handle keeps working, and the same load
 * works when retried, also after reopening. */
#undef STRIDE
#define STRIDE 37
static void test_table_import__failure_commits_nothing(void **state)
{
    (void)state;
    cf_error err;
    cf_rng rng;
    uint64_t seed = cf_test_seed(1402);
    static krow m[NKEYS];
    static int64_t ids[NKEYS + 1];
    static ver vals[NKEYS + 1];
    uint64_t calls = 0;
    int failed = 0, passed = 0;
    for (int k = -2; k < 40; k++) {
        char dir[256];
        snprintf(dir, sizeof(dir), "%s", mkdtemp_fast_dir());
        cf_rng_init(&rng, seed); /* the same table and load every time */
        cf_table *t;
        build(dir, m, &rng, &t);
        char *disk0 = disk_state(dir);
        size_t re;
        uint64_t ts = cf_table_last_ts(t) + 1;
        size_t n = load_rows(m, NKEYS, &rng, ts, ids, vals, &re);
        cf_status st;
        if (k == -2) {
            /* a repeated key after every reinsert: fails at that row */
            ids[n] = ids[n / 2];
            vals[n] = vals[0];
            uint64_t row;
            st = load(t, ids, vals, n + 1, 50, ts, &row, &err);
            CF_ASSERT_STATUS(st, CF_EINVAL, &err);
            assert_non_null(strstr(err.msg, "duplicate key (repeated in the load)"));
            assert_int_equal(row, n);
        } else if (k == -1) { /* count the allocations of the commit */
            CF_ASSERT_OK(load(t, ids, vals, n, 50, ts, NULL, &err), &err);
            calls = g_commit_calls;
            assert_true(calls > 100);
            st = CF_OK;
        } else {
            g_commit_fail = 1 + (uint64_t)k * calls / 40;
            st = load(t, ids, vals, n, 50, ts, NULL, &err);
            g_commit_fail = 0;
        }
        if (st != CF_OK) {
            failed++;
            check(t, m, &rng, STRIDE); /* the handle, unchanged */
            /* A failed commit may have flushed a rowset's in-memory deltas into its
             * own files (a new REDO file, same contents); the rowset directories
             * and TABLET are as they were. */
            char *disk1 = disk_state(dir);
            assert_non_null(strstr(disk1, "cfile-tablet"));
            assert_string_equal(disk0, disk1);
            free(disk1);
            t = reopen_check(t, dir, m, &rng);
            CF_ASSERT_OK(load(t, ids, vals, n, 50, ts, NULL, &err), &err);
        } else {
            passed++;
        }
        push_load(m, ids, vals, n);
        check(t, m, &rng, STRIDE);
        t = reopen_check(t, dir, m, &rng);
        /* nothing left over once a flush writes (and cleans up): every rs-*
         * directory is named by TABLET */
        ver v;
        draw(&v, &rng, cf_table_last_ts(t) + 1);
        CF_ASSERT_OK(insert(t, NKEYS + 1, &v, &err), &err);
        CF_ASSERT_OK(cf_table_flush(t, &err), &err);
        char what[32];
        snprintf(what, sizeof(what), "k %d", k);
        check_no_stray_rowsets(t, dir, what);
        cf_table_free(t);
        free(disk0);
        CF_ASSERT_RM_RF(dir);
    }
    print_message("%" PRIu64 " allocations in a load's commit; %d injected failures failed it, "
                  "%d did not\n",
                  calls, failed, passed);
    assert_true(failed > 30);
}

/* SIGKILL a process in the middle of a load that reinserts keys of three
 * rowsets and of the MemRowSet: the table then reads as before the load or as
 * after all of it, at every snapshot, and compacts. Kills land anywhere in the
 * time one uninterrupted load takes, half of them during its commit. */
#undef STRIDE
#define STRIDE 11
#define ROUNDS 20
typedef struct killed_load {
    const int64_t *ids;
    const ver *vals;
    size_t n;
    uint64_t ts;
    const char *times; /* where to write the commit's start and end, or NULL */
} killed_load;

static cf_status killed_load_run(cf_table *t, void *ctx, cf_error *err)
{
    const killed_load *kl = ctx;
    cf_status st = load(t, kl->ids, kl->vals, kl->n, 40, kl->ts, NULL, err);
    FILE *f = kl->times != NULL ? fopen(kl->times, "w") : NULL;
    if (f != NULL) {
        fprintf(f, "%.6f %.6f\n", g_commit_t0, g_commit_t1);
        fclose(f);
    }
    return st;
}

static void test_table_import__killed(void **state)
{
    (void)state;
    cf_error err;
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(1403));
    static krow m[NKEYS];
    static int64_t ids[NKEYS];
    static ver vals[NKEYS];
    char tmpl[256], dir[300];
    snprintf(tmpl, sizeof(tmpl), "%s", mkdtemp_fast_dir());
    cf_table *t;
    build(tmpl, m, &rng, &t);
    cf_table_free(t); /* the MemRowSet and unflushed deltas stay in the log */
    size_t re;
    uint64_t ts = 0;
    t = table_open(tmpl);
    ts = cf_table_last_ts(t) + 1;
    cf_table_free(t);
    size_t n = load_rows(m, NKEYS, &rng, ts, ids, vals, &re);
    shuffle(ids, vals, n, &rng);
    snprintf(dir, sizeof(dir), "%s.run", tmpl);
    char cmd[1024];
    int all = 0, none = 0;
    double full = 0, c0 = 0, c1 = 0; /* seconds from fork: the end, the commit */
    char times[320];
    snprintf(times, sizeof(times), "%s.times", tmpl);
    for (int round = -1; round < ROUNDS; round++) {
        copy_tree(tmpl, dir);
        /* anywhere, or (odd rounds) during the commit; the first round runs
         * to the end and times it */
        double lo = round % 2 ? c0 : 0, hi = round % 2 ? c1 : full, t0;
        double kill_at = round < 0 ? -1 : lo + (hi - lo) * (double)cf_rng_below(&rng, 1001) / 1000;
        killed_load kl = {ids, vals, n, ts, round < 0 ? times : NULL};
        double took = run_table_child(dir, killed_load_run, &kl, kill_at, &t0);
        if (round < 0) {
            full = took;
            FILE *f = fopen(times, "r");
            assert_non_null(f);
            assert_int_equal(fscanf(f, "%lf %lf", &c0, &c1), 2);
            fclose(f);
            c0 -= t0;
            c1 -= t0;
        }
        t = table_open(dir);
        bool done = cf_table_last_ts(t) == ts;
        if (done)
            push_load(m, ids, vals, n);
        check(t, m, &rng, STRIDE);
        CF_ASSERT_OK(cf_table_compact(t, 0, &err), &err);
        check(t, m, &rng, STRIDE);
        cf_table_free(t);
        if (done) {
            all++;
            for (size_t i = 0; i < n; i++)
                m[ids[i]].n--;
        } else {
            none++;
        }
    }
    print_message("load of %zu rows (%zu reinserts) in %.3f s (commit at %.3f-%.3f s), killed %d "
                  "times: %d left all of it, %d none\n",
                  n, re, full, c0, c1, ROUNDS, all - 1, none);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s' '%s'", dir, tmpl, times);
    assert_int_equal(system(cmd), 0);
}

/* Every regular file under dir (rowset directories and the log included; not
 * LOCK, which holds no data) has exactly permission bits `mode`: the count of
 * files checked, or fails naming the first that does not. */
static int check_file_modes(const char *dir, unsigned mode, const char *when)
{
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "find '%s' -type f ! -name LOCK -printf '%%m %%p\\n'", dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[600];
    int n = 0;
    while (fgets(line, sizeof(line), p) != NULL) {
        unsigned m = (unsigned)strtoul(line, NULL, 8);
        if (m != mode)
            fail_msg("%s: %s (want %o)", when, line, mode);
        n++;
    }
    pclose(p);
    return n;
}

/* A table made private (its MANIFEST 0600) gets every new file with those bits
 * from the file's creation on, not at a chmod before the commit: under umask
 * 022 the load's rowset files, written while the load runs (streamed column
 * files still temporaries, rowsets of unsorted rows finished but not
 * committed), were 0644 until the commit; so were the files a commit or a
 * compaction had written when it failed (out of memory at every point), which
 * stay until the next clean-up. */
static void test_table_import__files_private_from_creation(void **state)
{
    (void)state;
    mode_t old_umask = umask(022);
    cf_error err;
    cf_rng rng;
    uint64_t seed = cf_test_seed(1404);
    static krow m[NKEYS];
    static int64_t ids[NKEYS];
    static ver vals[NKEYS];
    for (int k = -1; k < 24; k++) {
        char dir[256], path[400];
        snprintf(dir, sizeof(dir), "%s", mkdtemp_fast_dir());
        cf_rng_init(&rng, seed);
        cf_table *t;
        build(dir, m, &rng, &t);
        cf_table_free(t);
        snprintf(path, sizeof(path), "find '%s' -type f ! -name LOCK -exec chmod 600 {} +", dir);
        assert_int_equal(system(path), 0);
        t = table_open(dir);
        size_t re;
        uint64_t ts = cf_table_last_ts(t) + 1;
        size_t n = load_rows(m, NKEYS, &rng, ts, ids, vals, &re);
        cf_table_loader_options o;
        cf_table_loader_options_init(&o);
        o.ts = ts;
        o.memory_bytes = 2048;
        cf_table_loader *l;
        CF_ASSERT_OK(cf_table_loader_create(&l, t, &o, &err), &err);
        batch b;
        memset(&b, 0, sizeof(b));
        for (size_t i = 0; i < 40; i++) /* sorted: streamed into a rowset writer */
            batch_add(&b, ids[i], &vals[i]);
        CF_ASSERT_OK(batch_append(l, &b, &err), &err);
        if (k < 0)
            assert_true(check_file_modes(dir, 0600, "streaming") > 0);
        shuffle(ids + 40, vals + 40, n - 40, &rng);
        for (size_t a = 40; a < n; a += 60) { /* unsorted: rowsets of 2 KiB */
            memset(&b, 0, sizeof(b));
            for (size_t i = a; i < n && i < a + 60; i++)
                batch_add(&b, ids[i], &vals[i]);
            CF_ASSERT_OK(batch_append(l, &b, &err), &err);
        }
        if (k < 0)
            check_file_modes(dir, 0600, "unsorted rows written");
        cf_alloc_fail_after(k < 0 ? 0 : 1 + (uint64_t)k * 97);
        cf_status st = cf_table_loader_commit(l, &err);
        cf_alloc_fail_after(0);
        check_file_modes(dir, 0600, st == CF_OK ? "committed" : "commit failed");
        cf_table_loader_free(l);
        /* a compaction (every rowset merged into a new one) that fails part way */
        cf_alloc_fail_after(k < 0 ? 0 : 1 + (uint64_t)k * 131);
        st = cf_table_compact(t, 0, &err);
        cf_alloc_fail_after(0);
        check_file_modes(dir, 0600, st == CF_OK ? "compacted" : "compaction failed");
        cf_table_free(t);
        CF_ASSERT_RM_RF(dir);
    }
    umask(old_umask);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_import__reinserts),
        cmocka_unit_test(test_table_import__failure_commits_nothing),
        cmocka_unit_test(test_table_import__killed),
        cmocka_unit_test(test_table_import__files_private_from_creation),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

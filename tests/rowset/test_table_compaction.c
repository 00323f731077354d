/* Automatic compaction of a table: thousands of one-row flushes of random keys
 * keep the rowset count within the policy's bound at every step, against the
 * MVCC model; a merge of some rowsets leaves every older snapshot reading the
 * same and the other rowsets (and their unflushed deltas) untouched; SIGKILL at
 * random moments of a run of flushes and merges leaves a table that opens with
 * whole operations only. Directories are in /dev/shm where there is one: these
 * tests commit thousands of times. */
#include "test_common.h"

#include <dirent.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cfile/cfile.h>
#include <cfile/rowset.h>

#include "rowset/compaction_policy.h"
#include "support_model.h"
#include "support_table.h"
#include "util/alloc.h"

#define SCHEMA "k STRING KEY, j INT32 KEY, v INT32 NULL, s STRING NULL"

static uint64_t table_rows(const cf_table *t)
{
    uint64_t n = 0;
    for (size_t i = 0; i < cf_table_rowset_count(t); i++) {
        cf_rowset_info info;
        cf_rowset_get_info(cf_table_rowset_at(t, i, NULL), &info);
        n += info.rows;
    }
    return n;
}

/* ---- many small flushes ------------------------------------------------------------------- */

#define NK 3000 /* model keys (mkey order) */

/* Insert model key r at ts as the model says it should go; true when it did. */
static bool insert_row(cf_table *t, mrow *m, size_t r, uint64_t ts, cf_rng *rng)
{
    cf_error err;
    char mk[16], sb[16];
    int32_t mj;
    mkey(r, mk, &mj);
    cf_slice ks = {(const uint8_t *)mk, strlen(mk)};
    int32_t v = (int32_t)cf_rng_below(rng, 100);
    snprintf(sb, sizeof(sb), "i%u", (unsigned)cf_rng_below(rng, 1000));
    cf_slice sv = {(const uint8_t *)sb, strlen(sb)};
    bool vnull = cf_rng_below(rng, 4) == 0, snull = cf_rng_below(rng, 3) == 0;
    const void *vals[4] = {&ks, &mj, vnull ? NULL : &v, snull ? NULL : &sv};
    cf_status st = cf_table_insert(t, vals, ts, &err);
    if (at(&m[r], CF_SNAPSHOT_LATEST) != NULL) {
        CF_ASSERT_STATUS(st, CF_EINVAL, &err);
        return false;
    }
    CF_ASSERT_OK(st, &err);
    version nv = {.ts = ts, .alive = true, .v_nn = !vnull, .v = v, .s_nn = !snull};
    snprintf(nv.s, sizeof(nv.s), "%s", sb);
    push_version(&m[r], nv);
    return true;
}

/* Update (or delete) model key r at ts; true when the table did. */
static bool mutate_row(cf_table *t, mrow *m, size_t r, uint64_t ts, bool del, cf_rng *rng)
{
    cf_error err;
    char mk[16];
    int32_t mj;
    mkey(r, mk, &mj);
    cf_slice ks = {(const uint8_t *)mk, strlen(mk)};
    const void *key[2] = {&ks, &mj};
    const version *cur = at(&m[r], CF_SNAPSHOT_LATEST);
    cf_status st;
    version nv;
    if (del) {
        st = cf_table_delete(t, key, ts, &err);
        if (cur != NULL) {
            nv = *cur;
            nv.ts = ts;
            nv.alive = false;
        }
    } else {
        model_update u;
        model_update_draw(&u, rng, cur, ts);
        st = cf_table_update(t, key, u.ch, u.nch, ts, &err);
        nv = u.next;
    }
    if (cur == NULL) {
        CF_ASSERT_STATUS(st, CF_ENOTFOUND, &err);
        return false;
    }
    CF_ASSERT_OK(st, &err);
    push_version(&m[r], nv);
    return true;
}

/* 3000 operations of random keys, a flush after each (a one-row rowset per
 * fresh insert): after every flush the count is within the policy's bound for
 * the rows the table holds, and the table reads as the model at random
 * snapshots, across reopens. */
static void test_table_compaction__bounded_over_many_flushes(void **state)
{
    (void)state;
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(1403));
    char dir[256];
    snprintf(dir, sizeof(dir), "%s", mkdtemp_fast_dir());
    cf_error err;
    cf_schema *s;
    CF_ASSERT_OK(cf_schema_parse(&s, SCHEMA, &err), &err);
    CF_ASSERT_OK(cf_rowset_create_empty(dir, s, &err), &err);
    mrow *m = calloc(NK, sizeof(*m));
    assert_non_null(m);
    cf_table *t = table_open(dir);
    uint64_t ts = 1, last_ok = 0;
    size_t max_count = 0, fresh = 0;
    for (int step = 0; step < 3000; step++) {
        size_t r = cf_rng_below(&rng, NK);
        int op = (int)cf_rng_below(&rng, 100);
        ts++;
        if (op < 70) {
            fresh += at(&m[r], CF_SNAPSHOT_LATEST) == NULL && m[r].n == 0;
            if (insert_row(t, m, r, ts, &rng))
                last_ok = ts;
        } else if (mutate_row(t, m, r, ts, op >= 88, &rng)) {
            last_ok = ts;
        }
        CF_ASSERT_OK(cf_table_flush(t, &err), &err);
        CF_ASSERT_OK(cf_table_compaction_status(t, &err), &err);
        size_t n = cf_table_rowset_count(t);
        uint64_t rows = table_rows(t);
        if (n > cf_cpol_bound(rows, CF_TABLE_COMPACT_FANOUT))
            fail_msg("step %d: %zu rowsets for %" PRIu64 " rows, the bound is %" PRIu64, step, n,
                     rows, cf_cpol_bound(rows, CF_TABLE_COMPACT_FANOUT));
        if (n > max_count)
            max_count = n;
        if (step % 250 == 249) {
            model_check_table(t, m, NK, CF_SNAPSHOT_LATEST, &rng);
            model_check_table(t, m, NK, 1 + cf_rng_below(&rng, ts + 1), &rng);
        }
        if (step % 1000 == 999) {
            CF_ASSERT_OK(cf_table_close(t, &err), &err);
            t = table_open(dir);
            assert_int_equal(cf_table_last_ts(t), last_ok);
        }
    }
    /* Over a thousand one-row rowsets were flushed; merges kept a handful. */
    assert_true(fresh > 1000);
    assert_true(max_count <= cf_cpol_bound(table_rows(t), CF_TABLE_COMPACT_FANOUT));
    print_message("%zu fresh rows flushed one by one; at most %zu rowsets, %zu at the end\n", fresh,
                  max_count, cf_table_rowset_count(t));
    for (uint64_t snap = 1; snap < ts + 2; snap += 1 + ts / 12)
        model_check_table(t, m, NK, snap, &rng);
    check_no_stray_rowsets(t, dir, "compaction");
    cf_table_free(t);
    model_free(m, NK);
    cf_schema_free(s);
    CF_ASSERT_RM_RF(dir);
}

/* ---- a merge of some rowsets keeps every snapshot ---------------------------------------- */

/* Every row of a full scan at snap, as text. Caller frees. */
static char *scan_text(cf_table *t, uint64_t snap)
{
    cf_scan_options o;
    cf_scan_options_init(&o);
    o.snapshot = snap;
    cf_table_scanner *sc = table_scan_open(t, &o);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    cf_row_batch b;
    while (table_scan_next(sc, &b)) {
        for (size_t r = 0; r < b.count; r++) {
            const cf_slice *k = (const cf_slice *)b.cols[0].values + r;
            const cf_slice *sv = (const cf_slice *)b.cols[3].values + r;
            fprintf(f, "%.*s/%d ", (int)k->len, (const char *)k->data,
                    ((const int32_t *)b.cols[1].values)[r]);
            if (bit(b.cols[2].nonnull, r))
                fprintf(f, "v=%d ", ((const int32_t *)b.cols[2].values)[r]);
            else
                fprintf(f, "v=NULL ");
            if (bit(b.cols[3].nonnull, r))
                fprintf(f, "s='%.*s'\n", (int)sv->len, (const char *)sv->data);
            else
                fprintf(f, "s=NULL\n");
        }
    }
    cf_table_scanner_free(sc);
    fclose(f);
    return text;
}

/* A root rowset of 100 rows (tier 3) and three one-row flushes with updates and
 * deletes in both; a fourth flush fills tier 0 and the four one-row rowsets are
 * merged, alone. Scans at every timestamp read the same before and after (and
 * after a reopen), the root keeps its files and its unflushed deltas, the merged
 * rowset starts at the earliest source's insert_ts. */
static void test_table_compaction__partial_merge_keeps_snapshots(void **state)
{
    (void)state;
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(1404));
    char dir[256];
    snprintf(dir, sizeof(dir), "%s", mkdtemp_dir());
    cf_error err;
    cf_schema *s;
    CF_ASSERT_OK(cf_schema_parse(&s, SCHEMA, &err), &err);
    enum { NROOT = 100, NM = 2 * NROOT + 16 };
    mrow *m = calloc(NM, sizeof(*m));
    assert_non_null(m);
    {
        /* the root rowset: even model keys, inserted at ts 10 */
        cf_rowset_writer_options wo;
        cf_rowset_writer_options_init(&wo);
        wo.insert_ts = 10;
        cf_rowset_writer *w;
        CF_ASSERT_OK(cf_rowset_writer_create(&w, dir, s, &wo, &err), &err);
        static char kb[NROOT][16];
        static cf_slice ks[NROOT], ss[NROOT];
        static int32_t js[NROOT], vs[NROOT];
        for (size_t n = 0; n < NROOT; n++) {
            version v = {.ts = 10, .alive = true, .v_nn = true, .v = (int32_t)n, .s_nn = true};
            snprintf(v.s, sizeof(v.s), "b%zu", n);
            mkey(2 * n, kb[n], &js[n]);
            ks[n] = (cf_slice){(const uint8_t *)kb[n], strlen(kb[n])};
            vs[n] = v.v;
            push_version(&m[2 * n], v);
            ss[n] = (cf_slice){(const uint8_t *)m[2 * n].h[0].s, strlen(m[2 * n].h[0].s)};
        }
        cf_colvec cols[4] = {{ks, NULL, NULL, NULL},
                             {js, NULL, NULL, NULL},
                             {vs, NULL, NULL, NULL},
                             {ss, NULL, NULL, NULL}};
        CF_ASSERT_OK(cf_rowset_writer_append(w, cols, NROOT, &err), &err);
        CF_ASSERT_OK(cf_rowset_writer_finish(w, &err), &err);
        cf_rowset_writer_free(w);
    }
    cf_table *t = table_open(dir);
    cf_table_set_compaction(t, false, 0);
    uint64_t ts = 10;
    for (size_t f = 0; f < 3; f++) {
        assert_true(insert_row(t, m, 2 * f + 1, ++ts, &rng));       /* a fresh key */
        assert_true(mutate_row(t, m, 4 * f, ++ts, false, &rng));    /* a root row */
        assert_true(mutate_row(t, m, 4 * f + 2, ++ts, true, &rng)); /* another, deleted */
        if (f > 0)                                                  /* the last flush's row */
            assert_true(mutate_row(t, m, 2 * f - 1, ++ts, f == 2, &rng));
        CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    }
    assert_int_equal(cf_table_rowset_count(t), 4);
    /* Unflushed deltas: in the root (stays) and in a rowset about to be merged. */
    assert_true(mutate_row(t, m, 40, ++ts, false, &rng));
    assert_true(mutate_row(t, m, 42, ++ts, true, &rng));
    assert_true(mutate_row(t, m, 5, ++ts, false, &rng));
    assert_true(insert_row(t, m, 2, ++ts, &rng)); /* reinsert of a key deleted in the root */
    uint64_t before = ts;
    char **caps = calloc(before + 2, sizeof(*caps));
    assert_non_null(caps);
    for (uint64_t snap = 0; snap <= before + 1; snap++)
        caps[snap] = scan_text(t, snap);
    cf_rowset_info root0;
    cf_rowset_get_info(cf_table_rowset_at(t, 0, NULL), &root0);
    assert_true(root0.dms_deltas > 0);
    uint64_t first_ts = 0;
    {
        cf_rowset_info i1;
        cf_rowset_get_info(cf_table_rowset_at(t, 1, NULL), &i1);
        first_ts = i1.insert_ts;
    }
    /* The next insert flushes the MemRowSet (flush size 1 byte) and fills tier 0. */
    cf_table_set_compaction(t, true, 0);
    cf_table_set_flush_bytes(t, 1);
    assert_true(insert_row(t, m, 7, ++ts, &rng));
    CF_ASSERT_OK(cf_table_compaction_status(t, &err), &err);
    assert_int_equal(cf_table_rowset_count(t), 2);
    const char *nm;
    cf_rowset *root = cf_table_rowset_at(t, 0, &nm);
    assert_string_equal(nm, ".");
    cf_rowset_info root1;
    cf_rowset_get_info(root, &root1);
    assert_int_equal(root1.generation, root0.generation); /* untouched */
    assert_int_equal(root1.dms_deltas, root0.dms_deltas);
    assert_int_equal(root1.redo_files, root0.redo_files);
    cf_rowset_info mi;
    cf_rowset_get_info(cf_table_rowset_at(t, 1, &nm), &mi);
    assert_string_equal(nm, "rs-5");
    assert_int_equal(mi.rows, 4);
    assert_int_equal(mi.insert_ts, first_ts);
    for (int i = 1; i <= 4; i++) {
        char d[16];
        snprintf(d, sizeof(d), "rs-%d", i);
        char p[512];
        snprintf(p, sizeof(p), "%s/%s", dir, d);
        assert_int_not_equal(access(p, F_OK), 0);
    }
    for (int pass = 0; pass < 2; pass++) {
        /* Snapshots up to the new row's timestamp do not see it. */
        for (uint64_t snap = 0; snap <= before + 1; snap++) {
            char *now = scan_text(t, snap);
            if (strcmp(now, caps[snap]) != 0)
                fail_msg("snapshot %" PRIu64 " (pass %d) differs:\nbefore:\n%s\nafter:\n%s", snap,
                         pass, caps[snap], now);
            free(now);
        }
        for (uint64_t snap = 1; snap <= ts + 1; snap++)
            model_check_table(t, m, NM, snap, &rng);
        model_check_table(t, m, NM, CF_SNAPSHOT_LATEST, &rng);
        /* Closing flushes the root's deltas; the table reopens the same. */
        CF_ASSERT_OK(cf_table_close(t, &err), &err);
        t = table_open(dir);
        assert_int_equal(cf_table_rowset_count(t), 2);
    }
    for (uint64_t snap = 0; snap <= before + 1; snap++)
        free(caps[snap]);
    free(caps);
    cf_table_free(t);
    model_free(m, NM);
    cf_schema_free(s);
    CF_ASSERT_RM_RF(dir);
}

/* ---- crash test ------------------------------------------------------------------------------ */

static int64_t crash_id(uint64_t i)
{
    return (int64_t)((i * 2654435761u) % 4294967291u);
}

/* The child's operations: insert crash_id(i) named "n<i>", flush (merges
 * follow); every fifth step also renames row i/2 to "u<i>" and flushes. */
static void crash_child(const char *dir)
{
    cf_error e;
    cf_table *t;
    if (cf_table_open(&t, dir, NULL, &e) != CF_OK)
        _exit(1);
    uint64_t ts = 2;
    for (uint64_t i = 0; i < 1000000; i++) {
        char nb[24];
        int64_t id = crash_id(i);
        snprintf(nb, sizeof(nb), "n%" PRIu64, i);
        cf_slice n = {(const uint8_t *)nb, strlen(nb)};
        const void *v[2] = {&id, &n};
        if (cf_table_insert(t, v, ts++, &e) != CF_OK || cf_table_flush(t, &e) != CF_OK)
            _exit(1);
        if (i % 5 == 4) {
            id = crash_id(i / 2);
            snprintf(nb, sizeof(nb), "u%" PRIu64, i);
            n = (cf_slice){(const uint8_t *)nb, strlen(nb)};
            cf_column_change ch = {1, &n};
            const void *key[1] = {&id};
            if (cf_table_update(t, key, &ch, 1, ts++, &e) != CF_OK ||
                cf_table_flush(t, &e) != CF_OK)
                _exit(1);
        }
        if (cf_table_compaction_status(t, &e) != CF_OK)
            _exit(1);
    }
    _exit(0);
}

typedef struct crow {
    int64_t id;
    char name[24];
} crow;

static int crow_cmp(const void *a, const void *b)
{
    int64_t x = ((const crow *)a)->id, y = ((const crow *)b)->id;
    return (x > y) - (x < y);
}

/* The table after p inserts, with the update of step p - 1 or not. */
static crow *crash_model(size_t p, bool last_update)
{
    crow *r = calloc(p + 1, sizeof(*r));
    assert_non_null(r);
    for (size_t i = 0; i < p; i++) {
        r[i].id = crash_id(i);
        snprintf(r[i].name, sizeof(r[i].name), "n%zu", i);
    }
    for (size_t i = 0; i < p; i++)
        if (i % 5 == 4 && (i + 1 < p || last_update))
            snprintf(r[i / 2].name, sizeof(r[i / 2].name), "u%zu", i);
    qsort(r, p, sizeof(*r), crow_cmp);
    return r;
}

static void test_table_compaction__crash_during_merges(void **state)
{
    (void)state;
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(1405));
    size_t merged_any = 0, cut = 0;
    for (int round = 0; round < 8; round++) {
        char dir[256];
        snprintf(dir, sizeof(dir), "%s", mkdtemp_fast_dir());
        cf_error err;
        cf_schema *s;
        CF_ASSERT_OK(cf_schema_parse(&s, "id INT64 KEY, name STRING NULL", &err), &err);
        CF_ASSERT_OK(cf_rowset_create_empty(dir, s, &err), &err);
        cf_schema_free(s);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
            crash_child(dir);
        usleep((useconds_t)(5000 + cf_rng_below(&rng, 400000)));
        kill(pid, SIGKILL);
        int status;
        waitpid(pid, &status, 0);
        assert_false(WIFEXITED(status) && WEXITSTATUS(status) != 0);
        cf_table *t = table_open(dir);
        /* Read it all, in key order. */
        size_t cap = 1024, n = 0;
        crow *got = malloc(cap * sizeof(*got));
        assert_non_null(got);
        cf_scan_options o;
        cf_scan_options_init(&o);
        cf_table_scanner *sc = table_scan_open(t, &o);
        cf_row_batch b;
        while (table_scan_next(sc, &b)) {
            for (size_t r = 0; r < b.count; r++) {
                if (n == cap) {
                    cap *= 2;
                    got = realloc(got, cap * sizeof(*got));
                    assert_non_null(got);
                }
                const cf_slice *nmv = (const cf_slice *)b.cols[1].values + r;
                got[n].id = ((const int64_t *)b.cols[0].values)[r];
                snprintf(got[n].name, sizeof(got[n].name), "%.*s", (int)nmv->len,
                         (const char *)nmv->data);
                n++;
            }
        }
        cf_table_scanner_free(sc);
        /* Whole operations only: the first n inserts, with or without the
         * update that followed the last of them. */
        bool ok = false;
        for (int lu = 0; lu < 2 && !ok; lu++) {
            crow *want = crash_model(n, lu == 1);
            ok = true;
            for (size_t i = 0; i < n && ok; i++)
                ok = want[i].id == got[i].id && strcmp(want[i].name, got[i].name) == 0;
            free(want);
        }
        if (!ok)
            fail_msg("round %d: %zu rows that are not the first %zu operations", round, n, n);
        if (cf_table_rowset_count(t) < n)
            merged_any++;
        /* A directory the TABLET does not name: killed in a flush or a merge. */
        cut += stray_rowsets(t, dir) > 0;
        /* The table takes rows after the crash, and the next flush removes
         * what an interrupted merge left. */
        int64_t id = -1;
        cf_slice nv = {(const uint8_t *)"after", 5};
        const void *v[2] = {&id, &nv};
        CF_ASSERT_OK(cf_table_insert(t, v, cf_table_last_ts(t) + 1, &err), &err);
        CF_ASSERT_OK(cf_table_flush(t, &err), &err);
        check_no_stray_rowsets(t, dir, "compaction");
        CF_ASSERT_OK(cf_table_close(t, &err), &err);
        free(got);
        CF_ASSERT_RM_RF(dir);
    }
    assert_true(merged_any > 0);
    print_message("%zu of 8 rounds killed while a rowset directory was being written\n", cut);
}

/* ---- options, failures ----------------------------------------------------------------- */

static void make_id_table(const char *dir)
{
    table_create(dir, "id INT64 KEY, name STRING NULL");
}

static cf_status ins_id(cf_table *t, int64_t id, cf_error *err)
{
    cf_slice n = {(const uint8_t *)"x", 1};
    const void *v[2] = {&id, &n};
    return cf_table_insert(t, v, cf_table_last_ts(t) + 1, err);
}

static void test_table_compaction__options(void **state)
{
    (void)state;
    char dir[256];
    snprintf(dir, sizeof(dir), "%s", mkdtemp_fast_dir());
    make_id_table(dir);
    cf_error err;
    cf_table *t;
    cf_table_options o;
    cf_table_options_init(&o);
    assert_true(o.auto_compact);
    assert_int_equal(o.compact_budget_bytes, CF_TABLE_COMPACT_BUDGET);
    o.compact_budget_bytes = 0;
    CF_ASSERT_STATUS(cf_table_open(&t, dir, &o, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "compact_budget_bytes"));
    /* Off: every flush stays a rowset. */
    o.auto_compact = false;
    o.compact_budget_bytes = CF_TABLE_COMPACT_BUDGET;
    CF_ASSERT_OK(cf_table_open(&t, dir, &o, &err), &err);
    for (int64_t i = 0; i < 12; i++) {
        CF_ASSERT_OK(ins_id(t, i, &err), &err);
        CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    }
    assert_int_equal(cf_table_rowset_count(t), 13);
    cf_table_free(t);
    /* A budget smaller than any four rowsets: nothing is merged either. */
    o.auto_compact = true;
    o.compact_budget_bytes = 1000;
    CF_ASSERT_OK(cf_table_open(&t, dir, &o, &err), &err);
    CF_ASSERT_OK(ins_id(t, 100, &err), &err);
    CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    assert_int_equal(cf_table_rowset_count(t), 14);
    cf_table_free(t);
    /* A reader never merges (nor writes). */
    o = (cf_table_options){0};
    cf_table_options_init(&o);
    o.read_only = true;
    CF_ASSERT_OK(cf_table_open(&t, dir, &o, &err), &err);
    cf_table_set_compaction(t, true, 0);
    CF_ASSERT_STATUS(cf_table_flush(t, &err), CF_EINVAL, &err);
    assert_int_equal(cf_table_rowset_count(t), 14);
    cf_table_free(t);
    /* Defaults: the next flush merges the overfull tier 0 down. */
    t = table_open(dir);
    CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    assert_true(cf_table_rowset_count(t) <= cf_cpol_bound(table_rows(t), CF_TABLE_COMPACT_FANOUT));
    assert_int_equal(table_rows(t), 13);
    check_no_stray_rowsets(t, dir, "compaction");
    cf_table_free(t);
    CF_ASSERT_RM_RF(dir);
}

/* An allocation failure at every point of a flush followed by a merge: the
 * flush either fails as a whole (and works when retried) or is committed with
 * the merge's failure kept for cf_table_compaction_status, the table as it was;
 * the next flush merges. Rows are never lost. */
static void test_table_compaction__failed_merge_is_not_a_failed_flush(void **state)
{
    (void)state;
    cf_error err;
    uint64_t calls = 0;
    size_t merge_failed = 0, flush_failed = 0;
    for (int k = -1; k < 96; k++) {
        char dir[256];
        snprintf(dir, sizeof(dir), "%s", mkdtemp_fast_dir());
        make_id_table(dir);
        cf_table *t = table_open(dir);
        for (int64_t i = 0; i < 2; i++) { /* the empty root and two one-row rowsets */
            CF_ASSERT_OK(ins_id(t, i, &err), &err);
            CF_ASSERT_OK(cf_table_flush(t, &err), &err);
        }
        assert_int_equal(cf_table_rowset_count(t), 3);
        CF_ASSERT_OK(ins_id(t, 2, &err), &err);
        cf_status st;
        if (k < 0) { /* count the allocations of the flush and its merge */
            cf_alloc_stats_start();
            st = cf_table_flush(t, &err);
            cf_alloc_stats stats;
            cf_alloc_stats_stop(&stats);
            calls = stats.calls;
            CF_ASSERT_OK(st, &err);
            assert_int_equal(cf_table_rowset_count(t), 1);
        } else {
            cf_alloc_fail_after(1 + (uint64_t)k * calls / 96);
            st = cf_table_flush(t, &err);
            cf_alloc_fail_after(0);
            if (st != CF_OK) {
                flush_failed++;
                CF_ASSERT_OK(cf_table_flush(t, &err), &err); /* retried */
            } else if (cf_table_compaction_status(t, &err) != CF_OK) {
                merge_failed++;
                assert_non_null(strstr(err.msg, "automatic compaction"));
                assert_int_equal(cf_table_rowset_count(t), 4);
                CF_ASSERT_OK(ins_id(t, 3, &err), &err);
                CF_ASSERT_OK(cf_table_flush(t, &err), &err);
                CF_ASSERT_OK(cf_table_compaction_status(t, &err), &err);
                assert_true(cf_table_rowset_count(t) < 4);
            }
        }
        cf_table_free(t);
        t = table_open(dir);
        uint64_t rows = table_rows(t);
        assert_true(rows == 3 || rows == 4);
        /* The next flush that writes removes what a failed flush or merge left. */
        CF_ASSERT_OK(ins_id(t, 50, &err), &err);
        CF_ASSERT_OK(cf_table_flush(t, &err), &err);
        check_no_stray_rowsets(t, dir, "compaction");
        cf_table_free(t);
        CF_ASSERT_RM_RF(dir);
    }
    print_message("%" PRIu64
                  " allocations; 96 failures: %zu failed the flush, %zu only the merge\n",
                  calls, flush_failed, merge_failed);
    assert_true(merge_failed > 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_compaction__bounded_over_many_flushes),
        cmocka_unit_test(test_table_compaction__partial_merge_keeps_snapshots),
        cmocka_unit_test(test_table_compaction__crash_during_merges),
        cmocka_unit_test(test_table_compaction__options),
        cmocka_unit_test(test_table_compaction__failed_merge_is_not_a_failed_flush),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* The table's write-ahead log end to end (docs/ROWSET.md "Write-ahead log"):
 * ops freed without a flush come back on reopen (MemRowSet rows and deltas of
 * flushed rowsets alike, across checkpoints); a damaged log is an error naming
 * the segment; and processes SIGKILLed at random moments (during inserts,
 * updates, deletes, flushes, compactions with and without an ancient history
 * mark, and log replay) never lose an acknowledged op nor leave one
 * half-applied, checked against a model. */
#include "test_common.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cfile/cfile.h>
#include <cfile/rowset.h>

#include "codec/crc32c.h"
#include "rowset/internal.h"
#include "rowset/wal.h"
#include "util/alloc.h"
#include "util/endian.h"

#include "support_model.h"
#include "support_table.h"

#define NKEYS 96

/* (id INT64 KEY, v INT64 NULL, s STRING NULL) */
static void make_table(const char *dir)
{
    table_create(dir, "id INT64 KEY, v INT64 NULL, s STRING NULL");
}

/* TMPDIR_TEST with that table made in the directory. */
static int table_setup(void **state)
{
    if (tmpdir_setup(state) != 0)
        return -1;
    make_table(*state);
    return 0;
}
#define TABLE_TEST(f) cmocka_unit_test_setup_teardown(f, table_setup, tmpdir_teardown)

/* The model: each key's latest state (and, where a test keeps it there, the
 * timestamp its next op takes). */
typedef struct mstate {
    bool live[NKEYS];
    int64_t v[NKEYS];
    uint64_t ts;
} mstate;

static cf_status put(cf_table *t, int64_t id, int64_t v, uint64_t ts, cf_error *err)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "s%" PRId64, v);
    cf_slice s = {(const uint8_t *)buf, strlen(buf)};
    const void *vals[3] = {&id, &v, &s};
    return cf_table_insert(t, vals, ts, err);
}

static cf_status upd(cf_table *t, int64_t id, int64_t v, uint64_t ts, cf_error *err)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "s%" PRId64, v);
    cf_slice s = {(const uint8_t *)buf, strlen(buf)};
    const void *key[1] = {&id};
    cf_column_change ch[2] = {{1, &v}, {2, &s}};
    return cf_table_update(t, key, ch, 2, ts, err);
}

static cf_status del(cf_table *t, int64_t id, uint64_t ts, cf_error *err)
{
    const void *key[1] = {&id};
    return cf_table_delete(t, key, ts, err);
}

/* Read the table's latest state; false (with a message) when a row's two
 * columns disagree, i.e. an update was half applied. */
static bool read_state(cf_table *t, mstate *out)
{
    memset(out, 0, sizeof(*out));
    cf_table_scanner *sc = table_scan_open(t, NULL);
    bool ok = true;
    cf_row_batch b;
    while (table_scan_next(sc, &b)) {
        for (size_t r = 0; r < b.count; r++) {
            int64_t id = ((const int64_t *)b.cols[0].values)[r];
            int64_t v = ((const int64_t *)b.cols[1].values)[r];
            cf_slice s = ((const cf_slice *)b.cols[2].values)[r];
            assert_true(id >= 0 && id < NKEYS);
            char want[32];
            snprintf(want, sizeof(want), "s%" PRId64, v);
            if (s.len != strlen(want) || memcmp(s.data, want, s.len) != 0) {
                print_error("key %" PRId64 ": v %" PRId64 " but s '%.*s'\n", id, v, (int)s.len,
                            (const char *)s.data);
                ok = false;
            }
            out->live[id] = true;
            out->v[id] = v;
        }
    }
    cf_table_scanner_free(sc);
    return ok;
}

static bool same(const mstate *a, const mstate *b)
{
    for (int k = 0; k < NKEYS; k++)
        if (a->live[k] != b->live[k] || (a->live[k] && a->v[k] != b->v[k]))
            return false;
    return true;
}

/* The writer on the table in dir, its model m empty, the next timestamp 2. */
static cf_table *start(const char *dir, mstate *m)
{
    memset(m, 0, sizeof(*m));
    m->ts = 2;
    return table_open(dir);
}

/* The table reads back as model m, no row half applied. */
static void assert_state(cf_table *t, const mstate *m)
{
    mstate got;
    assert_true(read_state(t, &got));
    assert_true(same(&got, m));
}

/* The table in dir, opened again, reads back as model m. */
static void assert_reopened(const char *dir, const mstate *m)
{
    cf_table *t = table_open(dir);
    assert_state(t, m);
    cf_table_free(t);
}

/* put, asserted, and recorded in model m. */
static void put_m(cf_table *t, mstate *m, int64_t id, int64_t v, uint64_t ts)
{
    cf_error err;
    CF_ASSERT_OK(put(t, id, v, ts, &err), &err);
    m->live[id] = true;
    m->v[id] = v;
}

/* ---- reopen without a flush -------------------------------------------------------------- */

static void test_table_wal__free_without_flush(void **state)
{
    const char *dir = *state;
    cf_error err;
    mstate m;
    cf_table *t = start(dir, &m);
    /* rows into a flushed rowset, then ops on them (rowset deltas) and new rows
     * (MemRowSet), then a second checkpoint and more */
    for (int k = 0; k < 40; k++) {
        put_m(t, &m, k, k, m.ts++);
    }
    CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    for (int round = 0; round < 3; round++) {
        for (int k = 0; k < NKEYS; k++) {
            int64_t v = round * 1000 + k;
            if (!m.live[k] && (k + round) % 3 != 0) {
                CF_ASSERT_OK(put(t, k, v, m.ts++, &err), &err);
            } else if (m.live[k] && (k + round) % 4 == 0) {
                CF_ASSERT_OK(del(t, k, m.ts++, &err), &err);
                m.live[k] = false;
                continue;
            } else if (m.live[k]) {
                CF_ASSERT_OK(upd(t, k, v, m.ts++, &err), &err);
            } else {
                continue;
            }
            m.live[k] = true;
            m.v[k] = v;
        }
        if (round == 1)
            CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    }
    uint64_t last = cf_table_last_ts(t);
    cf_table_free(t);             /* no flush, no close */
    for (int i = 0; i < 2; i++) { /* twice: replay is repeatable */
        t = table_open(dir);
        assert_int_equal(cf_table_last_ts(t), last);
        assert_state(t, &m);
        cf_table_free(t);
    }
    /* after a flush the log is short again and the state the same */
    t = table_open(dir);
    CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    assert_int_equal(cf_table_mrs_rows(t), 0);
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    assert_reopened(dir, &m);
}

/* A flipped byte inside a logged record that is followed by more records is
 * damage: open fails naming the segment and offset, and nothing is truncated. */
static void test_table_wal__damaged_log(void **state)
{
    const char *dir = *state;
    cf_error err;
    cf_table *t = table_open(dir);
    for (int k = 0; k < 10; k++)
        CF_ASSERT_OK(put(t, k, k, 2 + (uint64_t)k, &err), &err);
    cf_table_free(t);
    char path[600];
    snprintf(path, sizeof(path), "%s/wal/wal-0000000000000001.log", dir);
    size_t len;
    uint8_t *bytes = cf_test_read_file(path, &len);
    assert_non_null(bytes);
    bytes[60] ^= 0x40; /* inside the first record's payload */
    cf_test_write_file(path, bytes, len);
    CF_ASSERT_STATUS(cf_table_open(&t, dir, NULL, &err), CF_ECORRUPT, &err);
    assert_non_null(strstr(err.msg, "wal-0000000000000001.log: record at offset 36"));
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal((size_t)sb.st_size, len);
    free(bytes);
}

/* ---- SIGKILL at random moments ------------------------------------------------------------- */

/* What the child tells the parent, through a pipe, before and after each op. */
typedef struct msg {
    uint8_t kind; /* 'I'ntent or 'A'ck */
    uint8_t op;   /* 'i' insert, 'u' update, 'd' delete, 'f' flush, 'c' compact */
    int32_t key;
    int64_t v;
    uint64_t ts;
} msg;

static void send_msg(int fd, const msg *m)
{
    if (write(fd, m, sizeof(*m)) != (ssize_t)sizeof(*m))
        _exit(3);
}

/* The child (run_child): ops chosen from its copy of the model, each
 * announced, done, then acknowledged; runs until killed. */
typedef struct child_args {
    const char *dir;
    const mstate *m; /* the model when the child starts, which it copies */
    uint64_t seed;
} child_args;

static int child(void *ctx, int fd)
{
    const child_args *a = ctx;
    mstate m = *a->m;
    cf_rng rng;
    cf_rng_init(&rng, a->seed);
    cf_error e;
    cf_table *t;
    if (cf_table_open(&t, a->dir, NULL, &e) != CF_OK) {
        fprintf(stderr, "child open: %s\n", e.msg);
        _exit(2);
    }
    cf_table_set_flush_bytes(t, 8 << 10);
    for (;;) {
        msg x = {'I', 0, 0, 0, cf_table_last_ts(t) + 1};
        uint64_t r = cf_rng_below(&rng, 100);
        x.key = (int32_t)cf_rng_below(&rng, NKEYS);
        x.v = (int64_t)cf_rng_below(&rng, 1000000);
        cf_status st;
        if (r < 3) {
            x.op = 'f';
        } else if (r < 5) {
            x.op = 'c';
            /* an ahm at the last timestamp drops deleted rows and all history */
            x.v = cf_rng_below(&rng, 2) ? (int64_t)cf_table_last_ts(t) : 0;
        } else if (!m.live[x.key]) {
            x.op = 'i';
        } else {
            x.op = cf_rng_below(&rng, 3) ? 'u' : 'd';
        }
        send_msg(fd, &x);
        switch (x.op) {
        case 'f': st = cf_table_flush(t, &e); break;
        case 'c': st = cf_table_compact(t, (uint64_t)x.v, &e); break;
        case 'i': st = put(t, x.key, x.v, x.ts, &e); break;
        case 'u': st = upd(t, x.key, x.v, x.ts, &e); break;
        default: st = del(t, x.key, x.ts, &e); break;
        }
        if (st != CF_OK) {
            fprintf(stderr, "child op %c: %s\n", x.op, e.msg);
            _exit(2);
        }
        if (x.op == 'i' || x.op == 'u')
            m.live[x.key] = true, m.v[x.key] = x.v;
        else if (x.op == 'd')
            m.live[x.key] = false;
        x.kind = 'A';
        send_msg(fd, &x);
    }
}

static void apply(mstate *m, const msg *x)
{
    if (x->op == 'i' || x->op == 'u') {
        m->live[x->key] = true;
        m->v[x->key] = x->v;
    } else if (x->op == 'd') {
        m->live[x->key] = false;
    }
}

static void test_table_wal__crash(void **state)
{
    const char *dir = *state;
    uint64_t seed = cf_test_seed(14);
    cf_rng rng;
    cf_rng_init(&rng, seed);
    mstate m;
    memset(&m, 0, sizeof(m));
    uint64_t acked_ts = 0;
    int pending_seen = 0, rounds = 40;
    for (int round = 0; round < rounds; round++) {
        child_args a = {dir, &m, seed * 1000 + (uint64_t)round};
        /* sometimes right away (during the replay of a long log), else later */
        uint64_t r = cf_rng_below(&rng, 4);
        uint64_t us = r == 0 ? cf_rng_below(&rng, 3000) : 2000 + cf_rng_below(&rng, 60000);
        char what[32];
        snprintf(what, sizeof(what), "round %d", round);
        int acks = run_child(child, &a, (double)us / 1e6, true, what);
        /* what the child acknowledged, and the op it was doing when killed */
        msg x, pending = {0}; /* set before use (has_pending); gcc cannot tell */
        bool has_pending = false;
        ssize_t n;
        while ((n = read(acks, &x, sizeof(x))) == (ssize_t)sizeof(x)) {
            if (x.kind == 'I') {
                pending = x;
                has_pending = true;
            } else {
                assert_true(has_pending && pending.ts == x.ts && pending.op == x.op);
                apply(&m, &x);
                if (x.op != 'f' && x.op != 'c')
                    acked_ts = x.ts;
                has_pending = false;
            }
        }
        assert_true(n == 0 || n == -1 || (size_t)n < sizeof(x));
        close(acks);
        cf_table *t = table_open(dir);
        mstate got;
        if (!read_state(t, &got))
            fail_msg("round %d: a half-applied row", round);
        assert_true(cf_table_last_ts(t) >= acked_ts);
        if (!same(&got, &m)) {
            /* then only the op in flight may explain the difference, wholly */
            mstate with = m;
            if (has_pending)
                apply(&with, &pending);
            if (!has_pending || !same(&got, &with)) {
                for (int k = 0; k < NKEYS; k++)
                    if (got.live[k] != m.live[k] || (m.live[k] && got.v[k] != m.v[k]))
                        print_error("key %d: table %d/%" PRId64 ", model %d/%" PRId64 "\n", k,
                                    got.live[k], got.v[k], m.live[k], m.v[k]);
                fail_msg("round %d (seed %" PRIu64 "): an acknowledged op is missing", round, seed);
            }
            m = with;
            pending_seen++;
        }
        cf_table_free(t);
    }
    print_message("crash rounds: %d, in-flight ops found applied: %d\n", rounds, pending_seen);
}

/* The child of test_table_wal__append_failure_is_sticky (run_child): inserts
 * into the table in dir ctx, each key acknowledged on fd, until the log may
 * not grow; exit 0 when every later call then refused as it should. */
static int append_until_full(void *ctx, int fd)
{
    signal(SIGXFSZ, SIG_IGN);
    cf_error e;
    cf_table *t;
    if (cf_table_open(&t, ctx, NULL, &e) != CF_OK)
        return 2;
    struct rlimit rl = {4096, 4096}; /* the log may not grow past 4 KiB */
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
        return 2;
    int64_t k = 0;
    cf_status st;
    while ((st = put(t, k, k, cf_table_last_ts(t) + 1, &e)) == CF_OK) {
        if (write(fd, &k, sizeof(k)) != (ssize_t)sizeof(k))
            return 2;
        k++;
    }
    if (st != CF_EIO || strstr(e.msg, "not logged") == NULL)
        return 3;
    /* sticky: reads, writes, flush and close all refuse */
    cf_error e2;
    if (put(t, 1000, 1, cf_table_last_ts(t) + 1, &e2) != CF_EIO ||
        strstr(e2.msg, "table: an earlier call failed: the operation was not logged") == NULL ||
        cf_table_flush(t, &e2) != CF_EIO || cf_table_sync(t, &e2) != CF_EIO ||
        cf_table_close(t, &e2) != CF_EIO)
        return 4;
    return 0;
}

/* A log append that fails (here: the file size limit, ulimit -f) after the op
 * was applied in memory makes the handle unusable: that op and every later
 * call fail with the same error, close too; reopening has every acknowledged
 * op and not the failed one (its partial record is a torn tail, cut). */
static void test_table_wal__append_failure_is_sticky(void **state)
{
    const char *dir = *state;
    int acks = run_child(append_until_full, (void *)dir, -1, false, "append");
    int64_t k, acked = 0;
    while (read(acks, &k, sizeof(k)) == (ssize_t)sizeof(k))
        assert_int_equal(k, acked++);
    close(acks);
    assert_true(acked > 10);
    cf_error err;
    cf_table *t = table_open(dir);
    mstate got;
    assert_true(read_state(t, &got));
    for (int64_t i = 0; i < NKEYS; i++)
        assert_int_equal(got.live[i], i < acked);
    /* and it takes new ops */
    CF_ASSERT_OK(put(t, acked, 7, cf_table_last_ts(t) + 1, &err), &err);
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
}

/* The latest state of key id through the handle: -1 absent, else its v. */
static int64_t get_v(cf_table *t, int64_t id)
{
    cf_error err;
    const void *key[1] = {&id};
    cf_row_batch b;
    cf_status st = cf_table_get(t, key, CF_SNAPSHOT_LATEST, &b, &err);
    if (st == CF_ENOTFOUND)
        return -1;
    CF_ASSERT_OK(st, &err);
    return ((const int64_t *)b.cols[1].values)[0];
}

/* An allocation failure at any point of an insert, update or delete (of a
 * MemRowSet row, of a rowset row, a reinsert in each) leaves the handle
 * consistent: the op either succeeded, or failed and is nowhere, not in the
 * handle's reads either; the next op succeeds and is durable; reopening shows
 * exactly the ops that succeeded. Two bugs this found: an out-of-memory while
 * the log record was built, after the op was applied in memory, made the
 * handle unusable, its reads showing the failed op (which reopening lost); and
 * a delete whose change list lost its type byte to an allocation failure was
 * accepted and logged empty, after which the table no longer opened. */
static void test_table_wal__oom_in_an_op(void **state)
{
    (void)state;
    cf_error err;
    int failed = 0;
    /* op: 0 insert (MemRowSet), 1 reinsert (rowset), 2 reinsert (MemRowSet),
     * 3 update (rowset), 4 update (MemRowSet), 5 delete (rowset) */
    for (int op = 0; op < 6; op++) {
        uint64_t calls = 0;
        for (uint64_t k = 0; k == 0 || k <= calls; k++) {
            char dir[256];
            snprintf(dir, sizeof(dir), "%s", mkdtemp_fast_dir());
            make_table(dir);
            cf_table *t = table_open(dir);
            mstate m;
            memset(&m, 0, sizeof(m));
            uint64_t ts = cf_table_last_ts(t);
            for (int64_t id = 0; id < 20; id++) {
                put_m(t, &m, id, id, ++ts);
                if (id == 9)
                    CF_ASSERT_OK(cf_table_flush(t, &err), &err); /* 0..9 in a rowset */
            }
            CF_ASSERT_OK(del(t, 3, ++ts, &err), &err);
            CF_ASSERT_OK(del(t, 13, ++ts, &err), &err);
            m.live[3] = m.live[13] = false;
            cf_table_free(t); /* a fresh handle: its first op allocates all it needs */
            t = table_open(dir);
            int64_t id = op == 0 ? 50 : op == 1 ? 3 : op == 2 ? 13 : op == 3 ? 5 : op == 4 ? 15 : 6;
            cf_status st;
            if (k == 0)
                cf_alloc_stats_start();
            else
                cf_alloc_fail_after(k);
            ++ts;
            if (op <= 2)
                st = put(t, id, 77, ts, &err);
            else if (op <= 4)
                st = upd(t, id, 77, ts, &err);
            else
                st = del(t, id, ts, &err);
            cf_alloc_fail_after(0);
            if (k == 0) {
                cf_alloc_stats s;
                cf_alloc_stats_stop(&s);
                calls = s.calls;
                CF_ASSERT_OK(st, &err);
            }
            if (st == CF_OK) {
                m.live[id] = op != 5;
                m.v[id] = 77;
            } else {
                failed++;
                CF_ASSERT_STATUS(st, CF_ENOMEM, &err);
            }
            /* the handle reads what the op did, or did not do */
            int64_t want = m.live[id] ? m.v[id] : -1;
            if (get_v(t, id) != want)
                fail_msg("op %d, allocation %" PRIu64 ": %s, yet the handle reads key %" PRId64
                         " as %" PRId64,
                         op, k, st == CF_OK ? "done" : "failed", id, get_v(t, id));
            assert_state(t, &m);
            /* and takes the next op, durably */
            cf_status st2 = put(t, 60, 60, ++ts, &err);
            if (st2 != CF_OK)
                fail_msg("op %d, allocation %" PRIu64 " (%s): the next insert: %s", op, k,
                         st == CF_OK ? "done" : "failed", err.msg);
            m.live[60] = true;
            m.v[60] = 60;
            cf_table_free(t);
            cf_status st3 = cf_table_open(&t, dir, NULL, &err);
            if (st3 != CF_OK)
                fail_msg("op %d, allocation %" PRIu64 " (%s): reopening: %s", op, k,
                         st == CF_OK ? "done" : "failed", err.msg);
            assert_state(t, &m);
            cf_table_free(t);
            CF_ASSERT_RM_RF(dir);
        }
    }
    print_message("%d injected allocation failures failed their op\n", failed);
    assert_true(failed > 10);
}

/* Replay sends an op to the store holding its key, even when an earlier
 * rowset whose key range covers the key has files with a later last_ts (that
 * rowset would refuse the op's timestamp: a bug the crash test found). */
static void test_table_wal__replay_skips_covering_rowsets(void **state)
{
    const char *dir = *state;
    cf_error err;
    cf_table *t = table_open(dir);
    cf_table_set_compaction(t, false, 0);
    CF_ASSERT_OK(put(t, 0, 0, 2, &err), &err);
    CF_ASSERT_OK(put(t, 9, 9, 3, &err), &err);
    CF_ASSERT_OK(cf_table_flush(t, &err), &err); /* rs-1: keys 0..9 */
    CF_ASSERT_OK(put(t, 5, 5, 4, &err), &err);
    CF_ASSERT_OK(cf_table_flush(t, &err), &err); /* rs-2: key 5 */
    CF_ASSERT_OK(upd(t, 5, 50, 5, &err), &err);  /* rs-2's deltas, logged */
    CF_ASSERT_OK(upd(t, 0, 60, 6, &err), &err);  /* rs-1's deltas, logged */
    const char *name;
    cf_rowset *rs1 = cf_table_rowset_at(t, 1, &name);
    assert_string_equal(name, "rs-1");
    CF_ASSERT_OK(cf_rowset_flush(rs1, &err), &err); /* rs-1's files: last_ts 6 */
    cf_table_free(t);
    t = table_open(dir);
    mstate got;
    assert_true(read_state(t, &got));
    assert_true(got.live[0] && got.v[0] == 60 && got.live[5] && got.v[5] == 50 && got.live[9]);
    cf_table_free(t);
}

/* Ops logged as applied to the MemRowSet (CF_WAL_OP_MRS) at timestamps above
 * every rowset's files replay without looking the key up in any rowset, even
 * when rowsets cover the key range (each lookup reads bloom and index blocks in
 * a fresh process: this was ~83% of a CLI insert). Ops on rowset rows still
 * find their rowset. Readers replay the same way. */
static void test_table_wal__replay_probes_no_rowset_for_mrs_ops(void **state)
{
    const char *dir = *state;
    cf_error err;
    mstate m;
    cf_table *t = start(dir, &m);
    cf_table_set_compaction(t, false, 0);
    for (int r = 0; r < 3; r++) { /* three rowsets, each covering 0..90 */
        for (int k = r; k < 92; k += 10) {
            put_m(t, &m, k, k, m.ts++);
        }
        CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    }
    int mrs_ops = 0;
    for (int k = 5; k < 92; k += 10) { /* new keys: MemRowSet inserts */
        put_m(t, &m, k, k, m.ts++);
        mrs_ops++;
    }
    CF_ASSERT_OK(upd(t, 15, 150, m.ts++, &err), &err); /* a MemRowSet row */
    CF_ASSERT_OK(del(t, 25, m.ts++, &err), &err);
    CF_ASSERT_OK(put(t, 25, 250, m.ts++, &err), &err); /* reinserted in the MemRowSet */
    m.v[15] = 150;
    m.v[25] = 250;
    mrs_ops += 3;
    CF_ASSERT_OK(upd(t, 1, 10, m.ts++, &err), &err); /* rowset rows: they must probe */
    CF_ASSERT_OK(del(t, 2, m.ts++, &err), &err);
    m.v[1] = 10;
    m.live[2] = false;
    cf_table_free(t);
    for (int ro = 0; ro < 2; ro++) {
        cf_table_options o;
        cf_table_options_init(&o);
        o.read_only = ro == 1;
        CF_ASSERT_OK(cf_table_open(&t, dir, &o, &err), &err);
        uint64_t applied, probes;
        cf_table_replay_stats(t, &applied, &probes);
        assert_int_equal(applied, (uint64_t)mrs_ops + 2);
        /* key 1 lives in the second rowset of the three, key 2 in the third,
         * all three cover both: 2 + 3 probes; the MemRowSet ops none */
        assert_int_equal(probes, 5);
        assert_state(t, &m);
        cf_table_free(t);
    }
}

/* Logs written before ops carried flags (segment version 1, batch format 1)
 * still replay (by probing), a writer keeps appending format 1 records to such
 * a segment, and its next checkpoint starts a version 2 segment. The old log is
 * made from a new one by dropping the flags byte of every op, which is all that
 * differs between the formats. */
static void rewrite_as_v1(const char *path)
{
    size_t len;
    uint8_t *bytes = cf_test_read_file(path, &len);
    assert_non_null(bytes);
    assert_int_equal(cf_load_le32(bytes + 8), 2);
    free(bytes);
    assert_true(wal_rewrite(path, 1, 2, NULL, NULL) > 0);
}

/* wal_records: the record's batch is in format *ctx. */
static bool in_format(cf_slice payload, size_t start, size_t rec, void *ctx)
{
    (void)start, (void)rec;
    assert_int_equal(payload.data[0], *(const uint32_t *)ctx);
    return true;
}

static uint32_t segment_version(const char *dir, uint64_t seq)
{
    char path[600];
    snprintf(path, sizeof(path), "%s/wal/wal-%016" PRIu64 ".log", dir, seq);
    size_t len;
    uint8_t *bytes = cf_test_read_file(path, &len);
    assert_non_null(bytes);
    assert_true(len >= CF_WAL_HEADER_LEN);
    uint32_t v = cf_load_le32(bytes + 8);
    /* every record's batch is in the segment's format */
    wal_records(bytes, len, in_format, &v);
    free(bytes);
    return v;
}

static void test_table_wal__old_log_format(void **state)
{
    const char *dir = *state;
    cf_error err;
    mstate m;
    cf_table *t = start(dir, &m);
    for (int k = 0; k < 40; k += 2) {
        put_m(t, &m, k, k, m.ts++);
    }
    CF_ASSERT_OK(cf_table_flush(t, &err), &err); /* segment 2 from here */
    for (int k = 1; k < 40; k += 4) {
        put_m(t, &m, k, k, m.ts++);
    }
    CF_ASSERT_OK(upd(t, 4, 44, m.ts++, &err), &err);
    CF_ASSERT_OK(del(t, 1, m.ts++, &err), &err);
    m.v[4] = 44;
    m.live[1] = false;
    cf_table_free(t);
    char path[600];
    snprintf(path, sizeof(path), "%s/wal/wal-%016" PRIu64 ".log", dir, (uint64_t)2);
    assert_int_equal(segment_version(dir, 2), 2);
    rewrite_as_v1(path);
    assert_int_equal(segment_version(dir, 2), 1);
    for (int round = 0; round < 2; round++) {
        t = table_open(dir);
        uint64_t applied, probes;
        cf_table_replay_stats(t, &applied, &probes);
        assert_int_equal(applied, 12 + (uint64_t)round * 3);
        assert_true(probes > 0); /* no flags: every op not in the MemRowSet probes */
        assert_state(t, &m);
        /* more ops: appended to the version 1 segment in its format */
        int k = 60 + round;
        CF_ASSERT_OK(put(t, k, k, m.ts++, &err), &err);
        CF_ASSERT_OK(upd(t, 6, 66 + round, m.ts++, &err), &err);
        CF_ASSERT_OK(put(t, 1 + 2 * round, 7, m.ts++, &err), &err);
        m.live[k] = true;
        m.v[k] = k;
        m.v[6] = 66 + round;
        m.live[1 + 2 * round] = true;
        m.v[1 + 2 * round] = 7;
        cf_table_free(t);
        assert_int_equal(segment_version(dir, 2), 1);
    }
    t = table_open(dir);
    CF_ASSERT_OK(cf_table_flush(t, &err), &err); /* checkpoint: a version 2 segment */
    put_m(t, &m, 70, 70, m.ts++);
    cf_table_free(t);
    assert_int_equal(segment_version(dir, 3), 2);
    assert_reopened(dir, &m);
}

/* Readers open (read-only, no lock) while a writer inserts key i and deletes
 * key i - 50, checkpoints often (a small log limit), flushes and compacts with
 * an ancient history mark that drops the deleted rows. Every reader must see one
 * state the table really had: exactly the keys [n - 50, n) for one n, and n at
 * least the count acknowledged before it opened (no op lost, none mixed in
 * from two different checkpoints). */
static void test_table_wal__readers_during_checkpoints(void **state)
{
    const char *dir = *state;
    volatile uint64_t *acked =
        mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(acked != MAP_FAILED);
    *acked = 0;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        cf_error e;
        cf_table *t;
        if (cf_table_open(&t, dir, NULL, &e) != CF_OK)
            _exit(2);
        cf_table_set_sync(t, CF_TABLE_SYNC_NONE, 0);
        cf_table_set_wal_max_bytes(t, 8 << 10);
        cf_table_set_flush_bytes(t, 4 << 10);
        for (int64_t i = 0; i < 20000; i++) {
            if (put(t, i, i, cf_table_last_ts(t) + 1, &e) != CF_OK)
                _exit(3);
            if (i >= 50 && del(t, i - 50, cf_table_last_ts(t) + 1, &e) != CF_OK)
                _exit(4);
            if (i % 97 == 96 && cf_table_compact(t, cf_table_last_ts(t), &e) != CF_OK)
                _exit(5);
            *acked = (uint64_t)i + 1;
            usleep(50);
        }
        pause(); /* until the parent kills it */
        _exit(0);
    }
    cf_table_options o;
    cf_table_options_init(&o);
    o.read_only = true;
    int opens = 0;
    static int64_t ids[4096];
    while (*acked < 3000 && opens < 20000) {
        uint64_t before = *acked;
        cf_error err;
        cf_table *t;
        CF_ASSERT_OK(cf_table_open(&t, dir, &o, &err), &err);
        cf_table_scanner *sc = table_scan_open(t, NULL);
        size_t n = 0;
        cf_row_batch b;
        while (table_scan_next(sc, &b)) {
            for (size_t r = 0; r < b.count && n < 4096; r++)
                ids[n++] = ((const int64_t *)b.cols[0].values)[r];
        }
        cf_table_scanner_free(sc);
        cf_table_free(t);
        /* keys [top - 50, top), or [top - 51, top) between an insert and the
         * delete that follows it */
        int64_t top = n ? ids[n - 1] + 1 : 0;
        int64_t lo = n ? ids[0] : 0;
        bool ok = (uint64_t)top >= before && n == (size_t)(top - lo) &&
                  (lo == (top > 50 ? top - 50 : 0) || lo == top - 51 || n == 0);
        for (size_t i = 0; ok && i < n; i++)
            ok = ids[i] == lo + (int64_t)i;
        if (!ok) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
            fail_msg("reader %d: %zu rows %" PRId64 "..%" PRId64 ", %" PRIu64
                     " acknowledged before",
                     opens, n, lo, top, before);
        }
        opens++;
    }
    kill(pid, SIGKILL);
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFSIGNALED(status)); /* still writing: it never failed */
    assert_true(opens >= 20);
    print_message("reader opens: %d, writer ops acknowledged: %" PRIu64 "\n", opens, *acked);
    munmap((void *)acked, 4096);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        TABLE_TEST(test_table_wal__free_without_flush),
        TABLE_TEST(test_table_wal__damaged_log),
        TABLE_TEST(test_table_wal__replay_skips_covering_rowsets),
        TABLE_TEST(test_table_wal__replay_probes_no_rowset_for_mrs_ops),
        TABLE_TEST(test_table_wal__old_log_format),
        TABLE_TEST(test_table_wal__append_failure_is_sticky),
        cmocka_unit_test(test_table_wal__oom_in_an_op),
        TABLE_TEST(test_table_wal__crash),
        TABLE_TEST(test_table_wal__readers_during_checkpoints),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

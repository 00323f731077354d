/* The reader pin (docs/ROWSET.md "Readers: the pin"): read-only tables open
 * their rowsets' files at first use, and still see one committed version while
 * a writer in another process inserts, updates, deletes, flushes and compacts
 * (which removes what its commits make obsolete, but only while no reader is
 * pinned); a SIGKILLed reader's pin goes with it; a reader that finds the pin
 * held exclusively opens everything up front instead; the writer never waits
 * for readers. */
#include "test_common.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cfile/cfile.h>
#include <cfile/rowset.h>

#include "rowset/internal.h"

#include "support_model.h"
#include "support_table.h"

/* ---- the writer's op sequence: a pure function of the seed ------------------------------- */

#define NKEYS 48
#define NOPS 2500
#define TS0 10 /* op i runs at ts TS0 + i */

typedef struct op {
    int type; /* 1 insert, 2 update, 3 delete */
    int64_t id;
    int32_t v;
} op;

static void gen_ops(op *ops, uint64_t seed)
{
    bool alive[NKEYS] = {false};
    cf_rng r;
    cf_rng_init(&r, seed);
    for (int i = 0; i < NOPS; i++) {
        int64_t id = (int64_t)cf_rng_below(&r, NKEYS);
        ops[i].id = id;
        ops[i].v = i * 7 + 1;
        if (!alive[id])
            ops[i].type = 1;
        else
            ops[i].type = cf_rng_below(&r, 3) == 0 ? 3 : 2;
        alive[id] = ops[i].type != 3;
    }
}

/* The table a snapshot at snap (ops with ts < snap) sees. */
static void model_at(const op *ops, uint64_t snap, bool *alive, int32_t *v)
{
    memset(alive, 0, NKEYS * sizeof(*alive));
    for (int i = 0; i < NOPS && TS0 + (uint64_t)i < snap; i++) {
        alive[ops[i].id] = ops[i].type != 3;
        v[ops[i].id] = ops[i].v;
    }
}

static void make_table(const char *dir)
{
    table_create(dir, "id INT64 KEY, v INT32");
}

static cf_status apply(cf_table *t, const op *o, uint64_t ts, cf_error *err)
{
    const void *key[1] = {&o->id};
    if (o->type == 1) {
        const void *vals[2] = {&o->id, &o->v};
        return cf_table_insert(t, vals, ts, err);
    }
    if (o->type == 2) {
        cf_column_change ch = {1, &o->v};
        return cf_table_update(t, key, &ch, 1, ts, err);
    }
    return cf_table_delete(t, key, ts, err);
}

static void child_fail(const char *who, const char *what, cf_status st, const cf_error *e)
{
    fprintf(stderr, "%s: %s: %s: %s\n", who, what, cf_status_str(st), e ? e->msg : "");
    _exit(1);
}

/* Runs every op, a flush every 11, a compaction of everything every 37 (the
 * merges remove what readers may still read), a reopen every 101; automatic
 * compaction merges as well. */
static void writer_child(const char *dir, const op *ops)
{
    cf_error e;
    cf_status st;
    cf_table_options o;
    cf_table_options_init(&o);
    o.sync_mode = CF_TABLE_SYNC_NONE;
    o.wal_max_bytes = 8192; /* checkpoints too */
    cf_table *t;
    if ((st = cf_table_open(&t, dir, &o, &e)) != CF_OK)
        child_fail("writer", "open", st, &e);
    for (int i = 0; i < NOPS; i++) {
        if ((st = apply(t, &ops[i], TS0 + (uint64_t)i, &e)) != CF_OK)
            child_fail("writer", "op", st, &e);
        if (i % 11 == 10 && (st = cf_table_flush(t, &e)) != CF_OK)
            child_fail("writer", "flush", st, &e);
        if (i % 37 == 36 && (st = cf_table_compact(t, 0, &e)) != CF_OK)
            child_fail("writer", "compact", st, &e);
        if (i % 101 == 100) {
            if ((st = cf_table_close(t, &e)) != CF_OK)
                child_fail("writer", "close", st, &e);
            if ((st = cf_table_open(&t, dir, &o, &e)) != CF_OK)
                child_fail("writer", "reopen", st, &e);
        }
    }
    if ((st = cf_table_close(t, &e)) != CF_OK)
        child_fail("writer", "close", st, &e);
    _exit(0);
}

/* Scan at snap must be exactly the model at snap. */
static void check_scan(cf_table *r, const op *ops, uint64_t snap, const char *what)
{
    bool alive[NKEYS];
    int32_t v[NKEYS];
    model_at(ops, snap, alive, v);
    cf_error e;
    cf_scan_options so;
    cf_scan_options_init(&so);
    so.snapshot = snap;
    cf_table_scanner *sc;
    cf_status st = cf_table_scanner_create(&sc, r, &so, &e);
    if (st != CF_OK)
        child_fail("reader", what, st, &e);
    int64_t next = 0; /* every id below it is checked */
    for (;;) {
        cf_row_batch b;
        if ((st = cf_table_scanner_next(sc, &b, &e)) != CF_OK)
            child_fail("reader", what, st, &e);
        if (b.count == 0)
            break;
        for (size_t i = 0; i < b.count; i++) {
            int64_t id = ((const int64_t *)b.cols[0].values)[i];
            int32_t val = ((const int32_t *)b.cols[1].values)[i];
            for (; next < id; next++)
                if (alive[next]) {
                    fprintf(stderr, "reader: %s at %" PRIu64 ": id %" PRId64 " missing\n", what,
                            snap, next);
                    _exit(1);
                }
            if (id >= NKEYS || id < next || !alive[id] || v[id] != val) {
                fprintf(stderr, "reader: %s at %" PRIu64 ": id %" PRId64 " v %d unexpected\n", what,
                        snap, id, (int)val);
                _exit(1);
            }
            next = id + 1;
        }
    }
    for (; next < NKEYS; next++)
        if (alive[next]) {
            fprintf(stderr, "reader: %s at %" PRIu64 ": id %" PRId64 " missing at the end\n", what,
                    snap, next);
            _exit(1);
        }
    cf_table_scanner_free(sc);
}

/* Opens read-only again and again until `done` exists: the version it opened
 * is the writer's state after ops up to its last_ts; lookups (each opens at
 * most the rowsets covering the key), a full scan and a scan at an older
 * snapshot must all be that version, also after a pause in which the writer
 * compacts. Writes "pinned unpinned" counts to out. */
static void reader_child(const char *dir, const op *ops, const char *done, const char *out,
                         uint64_t seed)
{
    cf_rng rng;
    cf_rng_init(&rng, seed);
    cf_table_options o;
    cf_table_options_init(&o);
    o.read_only = true;
    unsigned pinned = 0, unpinned = 0, retries = 0;
    for (unsigned iter = 0; access(done, F_OK) != 0 || iter < 5; iter++) {
        cf_error e;
        cf_table *r;
        cf_status st = cf_table_open(&r, dir, &o, &e);
        if (st == CF_EIO && strstr(e.msg, "kept changing") != NULL) {
            retries++; /* the writer checkpoints faster than we open: a refusal, not a lie */
            continue;
        }
        if (st != CF_OK)
            child_fail("reader", "open", st, &e);
        if (cf_table_pinned(r))
            pinned++;
        else
            unpinned++;
        uint64_t last = cf_table_last_ts(r);
        if (last >= TS0 + NOPS) {
            fprintf(stderr, "reader: last_ts %" PRIu64 " past the ops\n", last);
            _exit(1);
        }
        usleep((useconds_t)cf_rng_below(&rng, 3000));
        bool alive[NKEYS];
        int32_t v[NKEYS];
        model_at(ops, last + 1, alive, v);
        for (int k = 0; k < 6; k++) {
            int64_t id = (int64_t)cf_rng_below(&rng, NKEYS);
            const void *key[1] = {&id};
            cf_row_batch b;
            st = cf_table_get(r, key, CF_SNAPSHOT_LATEST, &b, &e);
            if (st == CF_ENOTFOUND)
                b.count = 0;
            else if (st != CF_OK)
                child_fail("reader", "get", st, &e);
            if (b.count != (alive[id] ? 1u : 0u) ||
                (b.count == 1 && ((const int32_t *)b.cols[1].values)[0] != v[id])) {
                fprintf(stderr, "reader: get %" PRId64 " at last_ts %" PRIu64 ": wrong\n", id,
                        last);
                _exit(1);
            }
            if (k == 2)
                usleep((useconds_t)cf_rng_below(&rng, 2000));
        }
        check_scan(r, ops, last + 1, "scan");
        uint64_t span = last + 2 > TS0 ? last + 2 - TS0 : 1;
        check_scan(r, ops, TS0 + cf_rng_below(&rng, span), "older scan");
        cf_table_free(r);
    }
    FILE *f = fopen(out, "w");
    if (f == NULL)
        _exit(1);
    fprintf(f, "%u %u %u\n", pinned, unpinned, retries);
    fclose(f);
    _exit(0);
}

/* rs-<n> directories in dir */
static size_t rowset_dirs(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strncmp(e->d_name, "rs-", 3) == 0;
    closedir(d);
    return n;
}

#define NREADERS 3

static void test_pin__readers_race_a_writer(void **state)
{
    (void)state;
    char *dir = mkdtemp_fast_dir();
    make_table(dir);
    uint64_t seed = 0x5eed0000u + (uint64_t)getpid();
    static op ops[NOPS];
    gen_ops(ops, seed);
    char done[600];
    snprintf(done, sizeof(done), "%s.done", dir);
    unlink(done);
    char outs[NREADERS][640];
    pid_t pr[NREADERS];
    for (int i = 0; i < NREADERS; i++) {
        snprintf(outs[i], sizeof(outs[i]), "%s.reader%d", dir, i);
        pr[i] = fork();
        assert_true(pr[i] >= 0);
        if (pr[i] == 0)
            reader_child(dir, ops, done, outs[i], seed + 1 + (uint64_t)i);
    }
    pid_t pw = fork();
    assert_true(pw >= 0);
    if (pw == 0)
        writer_child(dir, ops);
    int status;
    assert_int_equal(waitpid(pw, &status, 0), pw);
    FILE *df = fopen(done, "w");
    assert_non_null(df);
    fclose(df);
    bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    unsigned pinned = 0;
    for (int i = 0; i < NREADERS; i++) {
        int rs;
        assert_int_equal(waitpid(pr[i], &rs, 0), pr[i]);
        if (!WIFEXITED(rs) || WEXITSTATUS(rs) != 0) {
            fprintf(stderr, "reader %d failed (seed %" PRIu64 ")\n", i, seed);
            ok = false;
            continue;
        }
        FILE *f = fopen(outs[i], "r");
        assert_non_null(f);
        unsigned p = 0, u = 0, x = 0;
        assert_int_equal(fscanf(f, "%u %u %u", &p, &u, &x), 3);
        fclose(f);
        unlink(outs[i]);
        print_message("reader %d: %u pinned opens, %u unpinned, %u retried\n", i, p, u, x);
        pinned += p;
    }
    unlink(done);
    if (!ok)
        fprintf(stderr, "seed %" PRIu64 "\n", seed);
    assert_true(ok);
    assert_true(pinned > 0);
    /* The final state, and no garbage once the readers are gone: the next
     * clean-up removes every rowset directory TABLET no longer names. */
    cf_error e;
    cf_table *t = table_open(dir);
    op extra = {1, NKEYS + 1, 5};
    CF_ASSERT_OK(apply(t, &extra, TS0 + NOPS, &e), &e);
    CF_ASSERT_OK(cf_table_flush(t, &e), &e);
    assert_int_equal(rowset_dirs(dir), cf_table_rowset_count(t));
    cf_table_free(t);
    CF_ASSERT_RM_RF(dir);
}

/* A reader SIGKILLed while pinned: its pin goes with it (the kernel drops the
 * flock), and the garbage it kept is removed by the next clean-up. While it
 * lived, the writer neither waited (lock timeout 0 is enough) nor removed it. */
static void test_pin__killed_reader(void **state)
{
    (void)state;
    char *dir = mkdtemp_fast_dir();
    make_table(dir);
    cf_error e;
    cf_table *t = table_open(dir);
    cf_table_set_compaction(t, false, 0);
    uint64_t ts = 5;
    for (int r = 0; r < 3; r++) {
        op o = {1, r, r};
        CF_ASSERT_OK(apply(t, &o, ts++, &e), &e);
        CF_ASSERT_OK(cf_table_flush(t, &e), &e);
    }
    CF_ASSERT_OK(cf_table_close(t, &e), &e);
    assert_int_equal(rowset_dirs(dir), 3);
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        cf_table_options o;
        cf_table_options_init(&o);
        o.read_only = true;
        cf_table *r;
        if (cf_table_open(&r, dir, &o, &e) != CF_OK || !cf_table_pinned(r))
            _exit(1);
        if (write(ready[1], "x", 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    close(ready[1]);
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    close(ready[0]);
    cf_table_options wo;
    cf_table_options_init(&wo);
    wo.lock_timeout_ms = 0; /* the reader does not hold LOCK */
    wo.auto_compact = false;
    CF_ASSERT_OK(cf_table_open(&t, dir, &wo, &e), &e);
    CF_ASSERT_OK(cf_table_compact(t, 0, &e), &e);
    assert_int_equal(cf_table_rowset_count(t), 1);
    assert_int_equal(rowset_dirs(dir), 4); /* rs-1..rs-3 kept for the reader */
    op o = {1, 10, 10};
    CF_ASSERT_OK(apply(t, &o, ts++, &e), &e);
    CF_ASSERT_OK(cf_table_flush(t, &e), &e);
    assert_int_equal(rowset_dirs(dir), 5); /* still pinned */
    assert_int_equal(kill(pid, SIGKILL), 0);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    o.id = 11;
    CF_ASSERT_OK(apply(t, &o, ts++, &e), &e);
    CF_ASSERT_OK(cf_table_flush(t, &e), &e);
    assert_int_equal(rowset_dirs(dir), cf_table_rowset_count(t));
    assert_int_equal(cf_table_rowset_count(t), 3);
    cf_table_free(t);
    CF_ASSERT_RM_RF(dir);
}

/* While someone holds the pin exclusively (the writer removing files, here the
 * test itself), a reader does not wait for it: it opens every file up front,
 * as readers did before the pin, and reads the same. */
static void test_pin__held_exclusively(void **state)
{
    (void)state;
    char *dir = mkdtemp_fast_dir();
    make_table(dir);
    cf_error e;
    cf_table *t = table_open(dir);
    for (int r = 0; r < 4; r++) {
        op o = {1, r, r * 3};
        CF_ASSERT_OK(apply(t, &o, 5 + (uint64_t)r, &e), &e);
    }
    CF_ASSERT_OK(cf_table_flush(t, &e), &e);
    CF_ASSERT_OK(cf_table_close(t, &e), &e);
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
    cf_table_options o;
    cf_table_options_init(&o);
    o.read_only = true;
    cf_table *r;
    CF_ASSERT_OK(cf_table_open(&r, dir, &o, &e), &e);
    assert_false(cf_table_pinned(r));
    int64_t id = 2;
    const void *key[1] = {&id};
    cf_row_batch b;
    CF_ASSERT_OK(cf_table_get(r, key, CF_SNAPSHOT_LATEST, &b, &e), &e);
    assert_int_equal(b.count, 1);
    assert_int_equal(((const int32_t *)b.cols[1].values)[0], 6);
    cf_table_free(r);
    close(fd);
    CF_ASSERT_OK(cf_table_open(&r, dir, &o, &e), &e);
    assert_true(cf_table_pinned(r));
    /* A writer's own handle is never pinned. */
    t = table_open(dir);
    assert_false(cf_table_pinned(t));
    cf_table_free(t);
    cf_table_free(r);
    CF_ASSERT_RM_RF(dir);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pin__held_exclusively),
        cmocka_unit_test(test_pin__killed_reader),
        cmocka_unit_test(test_pin__readers_race_a_writer),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

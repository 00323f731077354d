/* The thread rule of a table handle (rowset.h "Threads"): calls from several
 * threads on one cf_table run one at a time. Eight threads inserting distinct
 * keys into one handle, each taking last_ts + 1 as its timestamp, get only the
 * refusals a timestamp already taken deserves, every acknowledged row is there,
 * and the log they leave replays: the table opens again with every row. A
 * scanner made before a change (an insert, an update, a flush) is refused
 * after it, and can still be freed after the stores it read are gone. A log such concurrent calls
 * could write before the handle serialised them (two records with one timestamp) is refused on
 * open, saying so. */
/* cf-label: threads */
#include "test_common.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/cfile.h>
#include <cfile/rowset.h>

#include "rowset/wal.h"
#include "util/buf.h"
#include "util/endian.h"

#include "support_model.h"
#include "support_table.h"

#define THREADS 8
#define PER_THREAD 200

static void make_table(const char *dir)
{
    table_create(dir, "id INT64 KEY, name STRING NULL");
}

typedef struct worker {
    cf_table *t;
    int64_t first;
    size_t acked, stale_ts;
    cf_status bad; /* the first refusal other than a timestamp taken meanwhile */
    char msg[256];
} worker;

static void *insert_rows(void *arg)
{
    worker *w = arg;
    for (int64_t i = 0; i < PER_THREAD; i++) {
        int64_t id = w->first + i;
        char name[32];
        snprintf(name, sizeof name, "row %lld", (long long)id);
        cf_slice n = {(const uint8_t *)name, strlen(name)};
        const void *v[2] = {&id, &n};
        for (;;) {
            cf_error err = {0};
            cf_status st = cf_table_insert(w->t, v, cf_table_last_ts(w->t) + 1, &err);
            if (st == CF_OK) {
                w->acked++;
                break;
            }
            if (st == CF_EINVAL && strstr(err.msg, "is not after") != NULL) {
                w->stale_ts++; /* another thread took that timestamp first: ask again */
                continue;
            }
            if (w->bad == CF_OK) {
                w->bad = st;
                snprintf(w->msg, sizeof w->msg, "%s", err.msg);
            }
            break;
        }
    }
    return NULL;
}

static void check_rows(cf_table *t)
{
    cf_error err;
    assert_int_equal(table_count_rows(t), THREADS * PER_THREAD);
    for (int64_t id = 0; id < THREADS * PER_THREAD; id++) {
        const void *k[1] = {&id};
        cf_row_batch b;
        CF_ASSERT_OK(cf_table_get(t, k, CF_SNAPSHOT_LATEST, &b, &err), &err);
        assert_int_equal(b.count, 1);
        char want[32];
        snprintf(want, sizeof want, "row %lld", (long long)id);
        const cf_slice *name = b.cols[1].values;
        assert_int_equal(name->len, strlen(want));
        assert_memory_equal(name->data, want, name->len);
    }
}

static void run_inserts(const char *dir, cf_table_sync_mode mode, size_t flush_bytes)
{
    cf_error err;
    make_table(dir);
    cf_table_options o;
    cf_table_options_init(&o);
    o.sync_mode = mode;
    cf_table *t;
    CF_ASSERT_OK(cf_table_open(&t, dir, &o, &err), &err);
    if (flush_bytes)
        cf_table_set_flush_bytes(t, flush_bytes); /* flushes while the threads insert */
    pthread_t th[THREADS];
    worker w[THREADS];
    memset(w, 0, sizeof w);
    for (int i = 0; i < THREADS; i++) {
        w[i].t = t;
        w[i].first = (int64_t)i * PER_THREAD;
        assert_int_equal(pthread_create(&th[i], NULL, insert_rows, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_join(th[i], NULL), 0);
    for (int i = 0; i < THREADS; i++) {
        if (w[i].bad != CF_OK)
            fail_msg("thread %d: %s: %s", i, cf_status_str(w[i].bad), w[i].msg);
        assert_int_equal(w[i].acked, PER_THREAD);
    }
    check_rows(t);
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    /* the log replays: every acknowledged row is read again */
    t = table_open(dir);
    check_rows(t);
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
}

static void test_threads__inserts_into_one_handle(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    run_inserts(dir, CF_TABLE_SYNC_NONE, 0);
    CF_ASSERT_RM_RF(dir);
}

static void test_threads__inserts_with_flushes(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    run_inserts(dir, CF_TABLE_SYNC_GROUP, 4096);
    CF_ASSERT_RM_RF(dir);
}

/* A scanner made, then a change; the scanner's next call is refused, and
 * freeing it afterwards touches nothing the change freed (ASan checks). */
static void stale_after(const char *dir, int change)
{
    cf_error err;
    cf_table *t = table_open(dir);
    cf_table_scanner *sc, *sc2;
    CF_ASSERT_OK(cf_table_scanner_create(&sc, t, NULL, &err), &err);
    CF_ASSERT_OK(cf_table_scanner_create(&sc2, t, NULL, &err), &err);
    cf_row_batch b;
    CF_ASSERT_OK(cf_table_scanner_next(sc2, &b, &err), &err); /* part way through */
    int64_t id = 1000 + change;
    const void *v[2] = {&id, NULL};
    const void *k[1] = {&id};
    cf_slice nm = {(const uint8_t *)"x", 1};
    cf_column_change ch = {1, &nm};
    switch (change) {
    case 0: CF_ASSERT_OK(cf_table_insert(t, v, cf_table_last_ts(t) + 1, &err), &err); break;
    case 1: /* an update in a rowset: the next read rebuilds its delta reader */
        id = 1;
        CF_ASSERT_OK(cf_table_update(t, k, &ch, 1, cf_table_last_ts(t) + 1, &err), &err);
        CF_ASSERT_OK(cf_table_get(t, k, CF_SNAPSHOT_LATEST, &b, &err), &err);
        break;
    case 2: /* frees the MemRowSet the scanners read */
        CF_ASSERT_OK(cf_table_flush(t, &err), &err);
        break;
    default: /* frees every rowset the scanners read */
        CF_ASSERT_OK(cf_table_compact(t, 0, &err), &err);
        break;
    }
    CF_ASSERT_STATUS(cf_table_scanner_next(sc, &b, &err), CF_ESTATE, &err);
    assert_non_null(strstr(err.msg, "the table changed since the scan began"));
    assert_int_equal(b.count, 0);
    CF_ASSERT_STATUS(cf_table_scanner_next(sc2, &b, &err), CF_ESTATE, &err);
    cf_table_scanner_free(sc2);
    cf_table_scanner_free(sc);
    /* a scanner made after the change reads it */
    size_t n = table_count_rows(t);
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    t = table_open(dir);
    assert_int_equal(table_count_rows(t), n);
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
}

static void test_threads__stale_scanner_refused(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    cf_error err;
    make_table(dir);
    cf_table *t = table_open(dir);
    for (int64_t id = 1; id <= 600; id++) {
        cf_slice nm = {(const uint8_t *)"row", 3};
        const void *v[2] = {&id, &nm};
        CF_ASSERT_OK(cf_table_insert(t, v, cf_table_last_ts(t) + 1, &err), &err);
        if (id % 200 == 0)
            CF_ASSERT_OK(cf_table_flush(t, &err), &err); /* three rowsets */
    }
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    for (int change = 0; change < 4; change++)
        stale_after(dir, change);
    CF_ASSERT_RM_RF(dir);
}

/* Record `which` (0-based) of a segment takes the timestamp of the record
 * before it. */
typedef struct repeat_ts {
    size_t which;
    uint64_t prev;
} repeat_ts;

static void repeat_ts_edit(cf_wal_op *op, size_t rec, void *ctx)
{
    repeat_ts *e = ctx;
    uint64_t ts = op->ts;
    if (rec == e->which)
        op->ts = e->prev;
    e->prev = ts;
}

/* Give the newest log segment's record `which` (0-based) the timestamp of the
 * record before it, as two inserts racing on one handle could. */
static void repeat_timestamp(const char *dir, size_t which)
{
    cf_error err;
    uint64_t *seqs;
    size_t nseg;
    CF_ASSERT_OK(cf_wal_list(dir, &seqs, &nseg, &err), &err);
    assert_true(nseg > 0);
    char *path = cf_wal_segment_path(dir, seqs[nseg - 1]);
    free(seqs);
    repeat_ts e = {which, 0};
    assert_true(wal_rewrite(path, 0, 0, repeat_ts_edit, &e) > which);
    free(path);
}

static void test_threads__out_of_order_log_reported(void **state)
{
    (void)state;
    char *dir = mkdtemp_dir();
    cf_error err;
    make_table(dir);
    cf_table *t = table_open(dir);
    uint64_t ts0 = cf_table_last_ts(t);
    for (int64_t id = 1; id <= 3; id++) {
        const void *v[2] = {&id, NULL};
        CF_ASSERT_OK(cf_table_insert(t, v, cf_table_last_ts(t) + 1, &err), &err);
    }
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    repeat_timestamp(dir, 2);
    CF_ASSERT_STATUS(cf_table_open(&t, dir, NULL, &err), CF_ECORRUPT, &err);
    char want[96];
    snprintf(want, sizeof want, "timestamp %llu is not after the previous record's %llu",
             (unsigned long long)(ts0 + 2), (unsigned long long)(ts0 + 2));
    assert_non_null(strstr(err.msg, want));
    assert_non_null(strstr(err.msg, "the log is out of order"));
    assert_non_null(strstr(err.msg, "wal-")); /* names the segment */
    CF_ASSERT_RM_RF(dir);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads__inserts_into_one_handle),
        cmocka_unit_test(test_threads__inserts_with_flushes),
        cmocka_unit_test(test_threads__stale_scanner_refused),
        cmocka_unit_test(test_threads__out_of_order_log_reported),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

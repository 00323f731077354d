/* cf-needs: tables */
/* What tablet_bootstrap.cc and Raft's start do with the WAL ops beyond plain
 * writes, over logs written here (support_walgen.c): ALTER_SCHEMA_OPs inside a
 * segment, orphaned REPLICATEs, transactions, the recovery directory, the ancient
 * history mark, and the array element limit of the row op decoder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include <cmocka.h>

#include <cfile/kudu.h>

#include "support_fsroot.h"
#include "support_walgen.h"
#include "test_common.h"

#include "kudu_log.pb-c.h"
#include "util/arena.h"
#include "util/buf.h"

#define TAB "0123456789abcdef0123456789abcdef"
#define WRITE_OP 3
#define ALTER_OP 4
#define PARTICIPANT_OP 6

static cf_schema *parse(const char *text)
{
    cf_schema *s;
    cf_error e = {0};
    CF_ASSERT_OK(cf_schema_parse(&s, text, &e), &e);
    return s;
}

/* ---- ALTER_SCHEMA_OP inside a segment ------------------------------------------------------- */

/* A fresh root in root (cap bytes) holding tablet TAB at schema s (no
 * rowsets, no transactions, no history age of its own), and (g not NULL) g
 * begun on its first WAL segment. */
static void fresh_tablet(char *root, size_t cap, const cf_schema *s, walgen *g)
{
    kfs_tmpdir(root, cap);
    walgen_tablet_root(root, &(walgen_tablet){TAB, s, NULL, 0, 0, NULL, 0, -1});
    if (g != NULL)
        walgen_begin(g, TAB, 1, s, NULL, 0);
}

/* The header's schema k, v, d (ids 0, 1, 2); an ALTER to k, w, e (ids 0, 1, 3):
 * v renamed w, d dropped, e added (nullable). The writes before it are decoded
 * with the old schema, those after it with the new one; the scan's columns are the
 * latest schema's (the superblock's), matched by column id. */
static void test_alter_within_segment(void **state)
{
    (void)state;
    cf_schema *s0 = parse("k INT64 KEY, v INT32, d INT32 NULL");
    cf_schema *s1 = parse("k INT64 KEY, w INT32, e INT32 NULL");
    static const uint32_t ids0[3] = {0, 1, 2}, ids1[3] = {0, 1, 3};
    char root[512], got[512];
    for (int failed_alter = 0; failed_alter < 2; failed_alter++) {
        kfs_tmpdir(root, sizeof root);
        walgen_tablet_root(root,
                           &(walgen_tablet){TAB, failed_alter ? s0 : s1, failed_alter ? ids0 : ids1,
                                            failed_alter ? 0 : 1, 0, NULL, 0, -1});
        walgen g;
        walgen_begin(&g, TAB, 1, s0, ids0, 0);
        int64_t k1 = 1, k2 = 2;
        int32_t v10 = 10, d100 = 100, w20 = 20, e200 = 200, e111 = 111;
        walgen_write(&g, 1, 1, 100, CF_KUDU_OP_INSERT, (bool[]){true, true, true},
                     (const void *[]){&k1, &v10, &d100}, -1);
        walgen_commit_write(&g, 1, 1, WALGEN_MRS(1));
        walgen_alter(&g, 1, 2, 101, s1, ids1, 1);
        walgen_commit(&g, 1, 2, ALTER_OP, failed_alter);
        if (!failed_alter)
            walgen_schema(&g, s1);
        walgen_write(&g, 1, 3, 102, CF_KUDU_OP_INSERT, (bool[]){true, true, true},
                     (const void *[]){&k2, &w20, failed_alter ? (const void *)&d100 : &e200}, -1);
        walgen_commit_write(&g, 1, 3, WALGEN_MRS(1));
        walgen_write(&g, 1, 4, 103, CF_KUDU_OP_UPDATE, (bool[]){true, false, true},
                     (const void *[]){&k1, NULL, &e111}, -1);
        walgen_commit_write(&g, 1, 4, WALGEN_MRS(1));
        walgen_finish(&g, root, "", 1);
        cf_error err = {0};
        CF_ASSERT_OK(
            walgen_scan(root, TAB, CF_SNAPSHOT_LATEST, 604800, got, sizeof got, NULL, &err), &err);
        /* failed: the schema stays k, v, d and every write is in it */
        assert_string_equal(got, failed_alter ? "1|10|111;2|20|100;" : "1|10|111;2|20|200;");
        CF_ASSERT_RM_RF(root);
    }
    cf_schema_free(s0);
    cf_schema_free(s1);
}

/* An ALTER that only Raft's start would apply (no COMMIT, in the committed range),
 * bringing a schema newer than the superblock's: refused, not read with the old
 * columns. */
static void test_alter_newer_than_superblock(void **state)
{
    (void)state;
    cf_schema *s0 = parse("k INT64 KEY, v INT32");
    cf_schema *s1 = parse("k INT64 KEY, v INT32, e INT32 NULL");
    static const uint32_t ids1[3] = {0, 1, 2};
    char root[512], got[256];
    walgen g;
    fresh_tablet(root, sizeof root, s0, &g);
    walgen_alter(&g, 1, 1, 100, s1, ids1, 1);
    walgen_noop(&g, 1, 2, 101);
    walgen_commit(&g, 1, 2, 1, false);
    walgen_finish(&g, root, "", 1);
    cf_error err = {0};
    assert_int_equal(
        walgen_scan(root, TAB, CF_SNAPSHOT_LATEST, 604800, got, sizeof got, NULL, &err),
        CF_ENOTSUP);
    assert_non_null(strstr(err.msg, "ALTER_SCHEMA_OP 1.1"));
    assert_non_null(strstr(err.msg, "newer than the superblock"));
    CF_ASSERT_RM_RF(root);
    cf_schema_free(s0);
    cf_schema_free(s1);
}

/* ---- orphaned REPLICATEs -------------------------------------------------------------------- */

/* 1 INSERT k1 (committed), 2 INSERT k2 (no COMMIT), 3 UPDATE k1 (committed: its
 * COMMIT waits for 2's), 4 INSERT k3 (no COMMIT, past the last committed index), 5
 * INSERT k1 again (no COMMIT, index 5 > 3). Bootstrap leaves 2 and 3 pending; Raft
 * commits up to index 3 at its start, so both apply in order; 4 and 5 stay Raft's. */
static void test_orphaned_replicates(void **state)
{
    (void)state;
    cf_schema *s = parse("k INT64 KEY, v INT32");
    char root[512], got[256];
    walgen g;
    fresh_tablet(root, sizeof root, s, &g);
    int64_t k1 = 1, k2 = 2, k3 = 3;
    int32_t a = 10, b = 20, c = 11, d = 30;
    bool all[2] = {true, true};
    walgen_write(&g, 1, 1, 100, CF_KUDU_OP_INSERT, all, (const void *[]){&k1, &a}, -1);
    walgen_commit_write(&g, 1, 1, WALGEN_MRS(1));
    walgen_write(&g, 1, 2, 101, CF_KUDU_OP_INSERT, all, (const void *[]){&k2, &b}, -1);
    walgen_write(&g, 1, 3, 102, CF_KUDU_OP_UPDATE, all, (const void *[]){&k1, &c}, -1);
    walgen_commit_write(&g, 1, 3, WALGEN_MRS(1));
    walgen_write(&g, 1, 4, 103, CF_KUDU_OP_INSERT, all, (const void *[]){&k3, &d}, -1);
    walgen_write(&g, 1, 5, 104, CF_KUDU_OP_INSERT, all, (const void *[]){&k1, &d}, -1);
    walgen_finish(&g, root, "", 1);
    cf_error err = {0};
    size_t pending = 0;
    CF_ASSERT_OK(
        walgen_scan(root, TAB, CF_SNAPSHOT_LATEST, 604800, got, sizeof got, &pending, &err), &err);
    assert_string_equal(got, "1|11;2|20;");
    assert_int_equal(pending, 2);
    /* at a snapshot between them: the pending ops have their own timestamps */
    CF_ASSERT_OK(walgen_scan(root, TAB, 102, 604800, got, sizeof got, NULL, &err), &err);
    assert_string_equal(got, "1|10;2|20;");
    CF_ASSERT_RM_RF(root);

    /* An orphaned REPLICATE that fails when run again (an INSERT of a live key) is
     * a row error, as a new op's would be, not damage. */
    fresh_tablet(root, sizeof root, s, &g);
    walgen_write(&g, 1, 1, 100, CF_KUDU_OP_INSERT, all, (const void *[]){&k1, &a}, -1);
    walgen_commit_write(&g, 1, 1, WALGEN_MRS(1));
    walgen_write(&g, 1, 2, 101, CF_KUDU_OP_INSERT, all, (const void *[]){&k1, &b}, -1);
    walgen_write(&g, 1, 3, 102, CF_KUDU_OP_INSERT, all, (const void *[]){&k2, &b}, -1);
    walgen_commit_write(&g, 1, 3, WALGEN_MRS(1));
    walgen_finish(&g, root, "", 1);
    CF_ASSERT_OK(
        walgen_scan(root, TAB, CF_SNAPSHOT_LATEST, 604800, got, sizeof got, &pending, &err), &err);
    assert_string_equal(got, "1|10;2|20;");
    assert_int_equal(pending, 0);
    CF_ASSERT_RM_RF(root);

    /* A gap between the last committed index and the first op without a COMMIT is
     * what Raft refuses to start with. */
    fresh_tablet(root, sizeof root, s, &g);
    walgen_write(&g, 1, 5, 100, CF_KUDU_OP_INSERT, all, (const void *[]){&k1, &a}, -1);
    walgen_commit_write(&g, 1, 2, WALGEN_MRS(0));
    walgen_finish(&g, root, "", 1);
    assert_int_equal(
        walgen_scan(root, TAB, CF_SNAPSHOT_LATEST, 604800, got, sizeof got, NULL, &err),
        CF_ECORRUPT);
    assert_non_null(strstr(err.msg, "gap"));
    CF_ASSERT_RM_RF(root);
    cf_schema_free(s);
}

/* A FLUSH_MARKER entry (long deprecated) is one TabletBootstrap::HandleEntry
 * refuses ("unexpected log entry type"): damage, not skipped. */
static void test_flush_marker_refused(void **state)
{
    (void)state;
    cf_schema *s = parse("k INT64 KEY, v INT32");
    char root[512], got[256];
    walgen g;
    fresh_tablet(root, sizeof root, s, &g);
    walgen_noop(&g, 1, 1, 100);
    walgen_commit(&g, 1, 1, 1, false);
    walgen_bare_entry(&g, 999);
    walgen_finish(&g, root, "", 1);
    cf_error err = {0};
    assert_int_equal(
        walgen_scan(root, TAB, CF_SNAPSHOT_LATEST, 604800, got, sizeof got, NULL, &err),
        CF_ECORRUPT);
    assert_non_null(strstr(err.msg, "type 999"));
    CF_ASSERT_RM_RF(root);
    cf_schema_free(s);
}

/* ---- transactions --------------------------------------------------------------------------- */

static Kudu__Tablet__TxnMetadataPB txn_pb;
static Kudu__Tablet__TxnMetadataEntry txn_entry;
static Kudu__Tablet__TxnMetadataEntry *txn_list[1] = {&txn_entry};

/* Superblock record of transaction 7: committed (flushed or not) or aborted. */
static void txn7(bool committed, bool flushed, bool aborted)
{
    kudu__tablet__txn_metadata_pb__init(&txn_pb);
    kudu__tablet__txn_metadata_entry__init(&txn_entry);
    txn_entry.has_key = true;
    txn_entry.key = 7;
    txn_entry.value = &txn_pb;
    txn_pb.has_commit_timestamp = committed;
    txn_pb.commit_timestamp = committed ? 200 : 0;
    txn_pb.has_flushed_committed_mrs = flushed;
    txn_pb.flushed_committed_mrs = flushed;
    txn_pb.has_aborted = aborted;
    txn_pb.aborted = aborted;
}

/* BEGIN_TXN 7 (1), a write of txn 7 into its MRS (2), FINALIZE_COMMIT (3): what
 * the superblock records decides. Unrecorded or committed but not flushed: the
 * rows would have to be rebuilt from the log: refused naming the op. Aborted, or
 * committed and flushed: nothing of it to replay. */
static void test_transactions(void **state)
{
    (void)state;
    cf_schema *s = parse("k INT64 KEY, v INT32");
    static const struct {
        bool record, committed, flushed, aborted;
        cf_status st;
        const char *what;
    } cases[] = {
        {false, false, false, false, CF_ENOTSUP, "PARTICIPANT_OP 1.1 of transaction 7"},
        {true, true, false, false, CF_ENOTSUP, "WRITE_OP 1.2 of transaction 7"},
        {true, false, false, false, CF_ENOTSUP, "WRITE_OP 1.2 of transaction 7"},
        {true, true, true, false, CF_OK, NULL},
        {true, false, false, true, CF_OK, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char root[512], got[256];
        kfs_tmpdir(root, sizeof root);
        txn7(cases[i].committed, cases[i].flushed, cases[i].aborted);
        walgen_tablet_root(
            root, &(walgen_tablet){TAB, s, NULL, 0, 0, txn_list, cases[i].record ? 1 : 0, -1});
        walgen g;
        walgen_begin(&g, TAB, 1, s, NULL, 0);
        int64_t k1 = 1;
        int32_t a = 10;
        walgen_participant(&g, 1, 1, 100, 1, 7);
        walgen_commit(&g, 1, 1, PARTICIPANT_OP, false);
        walgen_write(&g, 1, 2, 101, CF_KUDU_OP_INSERT, (bool[]){true, true},
                     (const void *[]){&k1, &a}, 7);
        walgen_commit_write(&g, 1, 2, WALGEN_TXN(7));
        walgen_participant(&g, 1, 3, 102, 3, 7);
        walgen_commit(&g, 1, 3, PARTICIPANT_OP, false);
        walgen_finish(&g, root, "", 1);
        cf_error err = {0};
        cf_status st =
            walgen_scan(root, TAB, CF_SNAPSHOT_LATEST, 604800, got, sizeof got, NULL, &err);
        if (st != cases[i].st)
            fail_msg("case %zu: %s (%s)", i, cf_status_str(st), err.msg);
        if (cases[i].what != NULL && strstr(err.msg, cases[i].what) == NULL)
            fail_msg("case %zu: %s", i, err.msg);
        if (st == CF_OK)
            assert_string_equal(got, "");
        CF_ASSERT_RM_RF(root);
    }
    cf_schema_free(s);
}

/* ---- the recovery directory ----------------------------------------------------------------- */

/* A bootstrap cut short leaves wals/<tablet>.recovery (the original log) beside a
 * new, partial wals/<tablet>: Kudu replays the recovery dir and discards the other. */
static void test_recovery_dir(void **state)
{
    (void)state;
    cf_schema *s = parse("k INT64 KEY, v INT32");
    char root[512], got[256];
    fresh_tablet(root, sizeof root, s, NULL);
    int64_t k1 = 1, k2 = 2;
    int32_t a = 10, b = 20;
    bool all[2] = {true, true};
    walgen g;
    for (int rec = 0; rec < 2; rec++) {
        walgen_begin(&g, TAB, 1, s, NULL, 0);
        walgen_write(&g, 1, 1, 100, CF_KUDU_OP_INSERT, all, (const void *[]){&k1, &a}, -1);
        walgen_commit_write(&g, 1, 1, WALGEN_MRS(1));
        if (rec) {
            walgen_write(&g, 1, 2, 101, CF_KUDU_OP_INSERT, all, (const void *[]){&k2, &b}, -1);
            walgen_commit_write(&g, 1, 2, WALGEN_MRS(1));
        }
        walgen_finish(&g, root, rec ? ".recovery" : "", 1);
    }
    cf_error err = {0};
    CF_ASSERT_OK(walgen_scan(root, TAB, CF_SNAPSHOT_LATEST, 604800, got, sizeof got, NULL, &err),
                 &err);
    assert_string_equal(got, "1|10;2|20;");
    cf_kudu_fs_options o;
    cf_kudu_fs_options_init(&o);
    o.wal_dir = root;
    cf_kudu_fs *fs;
    CF_ASSERT_OK(cf_kudu_fs_open(&fs, &o, &err), &err);
    cf_kudu_wal *w;
    CF_ASSERT_OK(cf_kudu_wal_open(&w, fs, TAB, &err), &err);
    assert_true(cf_kudu_wal_from_recovery(w));
    assert_non_null(strstr(cf_kudu_wal_segment_at(w, 0)->path, TAB ".recovery/wal-"));
    cf_kudu_wal_free(w);
    cf_kudu_fs_free(fs);
    CF_ASSERT_RM_RF(root);
    cf_schema_free(s);
}

/* ---- the ancient history mark --------------------------------------------------------------- */

static uint64_t hybrid_days_ago(double days)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    uint64_t us = (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
    return (us - (uint64_t)(days * 86400e6)) << 12;
}

/* A tablet whose last op is at wall-clock time now: a snapshot 8 days back is
 * before its mark with Kudu's 7 days, and is refused; 6 days back, or with the
 * server's or the table's longer setting, or history GC off, is read. A tablet of
 * a logical clock (timestamps not wall-clock times) has no mark. */
static void test_ancient_history_mark(void **state)
{
    (void)state;
    cf_schema *s = parse("k INT64 KEY, v INT32");
    int64_t k1 = 1;
    int32_t a = 10;
    for (int table_age = 0; table_age < 2; table_age++) {
        char root[512], got[256];
        kfs_tmpdir(root, sizeof root);
        walgen_tablet_root(
            root, &(walgen_tablet){TAB, s, NULL, 0, 0, NULL, 0, table_age ? 10 * 86400 : -1});
        walgen g;
        walgen_begin(&g, TAB, 1, s, NULL, 0);
        walgen_write(&g, 1, 1, hybrid_days_ago(0), CF_KUDU_OP_INSERT, (bool[]){true, true},
                     (const void *[]){&k1, &a}, -1);
        walgen_commit_write(&g, 1, 1, WALGEN_MRS(1));
        walgen_finish(&g, root, "", 1);
        cf_error err = {0};
        cf_status st =
            walgen_scan(root, TAB, hybrid_days_ago(8), 604800, got, sizeof got, NULL, &err);
        if (table_age) {
            CF_ASSERT_OK(st, &err); /* the table keeps 10 days */
        } else {
            assert_int_equal(st, CF_EINVAL);
            assert_non_null(strstr(err.msg, "ancient history mark"));
        }
        CF_ASSERT_OK(
            walgen_scan(root, TAB, hybrid_days_ago(6), 604800, got, sizeof got, NULL, &err), &err);
        assert_string_equal(got, "");
        CF_ASSERT_OK(
            walgen_scan(root, TAB, hybrid_days_ago(8), 30 * 86400, got, sizeof got, NULL, &err),
            &err);
        CF_ASSERT_OK(walgen_scan(root, TAB, hybrid_days_ago(8), -1, got, sizeof got, NULL, &err),
                     &err);
        /* the latest snapshot has no mark to pass */
        CF_ASSERT_OK(
            walgen_scan(root, TAB, CF_SNAPSHOT_LATEST, 604800, got, sizeof got, NULL, &err), &err);
        assert_string_equal(got, "1|10;");
        CF_ASSERT_RM_RF(root);
    }
    char root[512], got[256];
    walgen g;
    fresh_tablet(root, sizeof root, s, &g);
    walgen_write(&g, 1, 1, 1000, CF_KUDU_OP_INSERT, (bool[]){true, true}, (const void *[]){&k1, &a},
                 -1);
    walgen_commit_write(&g, 1, 1, WALGEN_MRS(1));
    walgen_finish(&g, root, "", 1);
    cf_error err = {0};
    CF_ASSERT_OK(walgen_scan(root, TAB, 1, 604800, got, sizeof got, NULL, &err), &err);
    assert_string_equal(got, "");
    CF_ASSERT_RM_RF(root);
    cf_schema_free(s);
}

/* ---- arrays in row ops ---------------------------------------------------------------------- */

static cf_status decode_one(const cf_schema *s, cf_kudu_row_op_type type, const bool *set,
                            const void *const *vals, cf_arena *a, cf_kudu_row_op **op,
                            cf_error *err)
{
    cf_buf rows, ind;
    cf_buf_init(&rows);
    cf_buf_init(&ind);
    kudu_rowops_encode(&rows, &ind, s, type, set, vals);
    cf_kudu_schema_pb spb;
    CF_ASSERT_OK(cf_kudu_schema_pb_build(&spb, s, NULL, err), err);
    Kudu__RowOperationsPB ro = walgen_rowops(&rows, &ind);
    size_t n = 0;
    cf_status st = kudu_rowops_decode(a, &ro, NULL, &spb.pb, s, NULL, op, &n, err);
    if (st == CF_OK)
        assert_int_equal(n, 1);
    cf_kudu_schema_pb_dispose(&spb);
    /* the decoded op points into these only for binary cells, none here */
    cf_buf_dispose(&rows);
    cf_buf_dispose(&ind);
    return st;
}

/* --array_cell_max_elem_num (1024 by default): an op with a longer array cell is
 * the decoder's row error (op->failed), one at the limit is not. */
static void test_array_elem_limit(void **state)
{
    (void)state;
    cf_schema *s = parse("k INT64 KEY, a INT32[] NULL");
    static int32_t vals[1025];
    for (int n = 1024; n <= 1025; n++) {
        cf_array_cell cell = {.type = CF_TYPE_INT32, .count = (size_t)n, .values = vals};
        int64_t k = 1;
        cf_arena a;
        cf_arena_init(&a, 0);
        cf_kudu_row_op *op;
        cf_error err = {0};
        CF_ASSERT_OK(decode_one(s, CF_KUDU_OP_INSERT, (bool[]){true, true},
                                (const void *[]){&k, &cell}, &a, &op, &err),
                     &err);
        assert_int_equal(op->failed, n > 1024);
        cf_arena_dispose(&a);
    }
    cf_schema_free(s);
}

/* 128-bit elements: Kudu's master refuses such columns and has no serialized form
 * for their cells, so a tablet with one is unsupported, never a row of empty
 * arrays. */
static void test_int128_arrays_refused(void **state)
{
    (void)state;
    static const char *const types[] = {"k INT64 KEY, a INT128[] NULL",
                                        "k INT64 KEY, a DECIMAL128(30,2)[] NULL"};
    for (size_t i = 0; i < 2; i++) {
        cf_schema *s = parse(types[i]);
        int64_t k = 1;
        cf_arena a;
        cf_arena_init(&a, 0);
        cf_kudu_row_op *op;
        cf_error err = {0};
        static const uint8_t v[16] = {1};
        cf_array_cell cell = {.type = cf_schema_column_at(s, 1)->type, .count = 1, .values = v};
        assert_int_equal(decode_one(s, CF_KUDU_OP_INSERT, (bool[]){true, true},
                                    (const void *[]){&k, &cell}, &a, &op, &err),
                         CF_ENOTSUP);
        assert_non_null(strstr(err.msg, "128-bit"));
        cf_arena_dispose(&a);
        char root[512], got[64];
        fresh_tablet(root, sizeof root, s, NULL);
        assert_int_equal(
            walgen_scan(root, TAB, CF_SNAPSHOT_LATEST, 604800, got, sizeof got, NULL, &err),
            CF_ENOTSUP);
        assert_non_null(strstr(err.msg, "128-bit"));
        CF_ASSERT_RM_RF(root);
        cf_schema_free(s);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alter_within_segment),
        cmocka_unit_test(test_alter_newer_than_superblock),
        cmocka_unit_test(test_orphaned_replicates),
        cmocka_unit_test(test_flush_marker_refused),
        cmocka_unit_test(test_transactions),
        cmocka_unit_test(test_recovery_dir),
        cmocka_unit_test(test_ancient_history_mark),
        cmocka_unit_test(test_array_elem_limit),
        cmocka_unit_test(test_int128_arrays_refused),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

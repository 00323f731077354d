/* The log segment a table needs (docs/ROWSET.md "The log segment a table
 * needs"; issue 30 item 10): the TABLET records the write-ahead log segment
 * holding acknowledged ops not yet in the rowsets, and an open (writer or
 * reader) refuses a table whose recorded segment is missing or truncated below
 * the bytes recorded as durable, naming it, instead of showing the state
 * before those ops. A segment retired by a checkpoint, or the older one a
 * checkpoint cut short leaves, is never required. Old TABLETs (version 1, no
 * record) open as before and are upgraded by a writer's first op. A process
 * SIGKILLed during inserts and checkpoints leaves a table that opens with
 * every acknowledged row. */
#include "test_common.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cfile/cfile.h>
#include <cfile/rowset.h>

#include "rowset/internal.h"
#include "rowset/wal.h"

#include "support_model.h"
#include "support_table.h"

/* (id INT64 KEY, v INT64 NULL) */
static char *make_table(void)
{
    char *dir = mkdtemp_dir();
    table_create(dir, "id INT64 KEY, v INT64 NULL");
    return dir;
}

static cf_status put(cf_table *t, int64_t id, cf_error *err)
{
    int64_t v = id * 10;
    const void *vals[2] = {&id, &v};
    return cf_table_insert(t, vals, cf_table_last_ts(t) + 1, err);
}

static cf_status open_as(cf_table **t, const char *dir, bool reader, cf_error *err)
{
    cf_table_options o;
    cf_table_options_init(&o);
    o.read_only = reader;
    return cf_table_open(t, dir, &o, err);
}

/* Rows a scan returns; -1 when the table does not open. */
static long rows_of(const char *dir, bool reader)
{
    cf_error err;
    cf_table *t;
    if (open_as(&t, dir, reader, &err) != CF_OK)
        return -1;
    long n = (long)table_count_rows(t);
    cf_table_free(t);
    return n;
}

static void insert_n(const char *dir, int64_t from, int n)
{
    cf_error err;
    cf_table *t = table_open(dir);
    for (int i = 0; i < n; i++)
        CF_ASSERT_OK(put(t, from + i, &err), &err);
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
}

static void flush(const char *dir)
{
    cf_error err;
    cf_table *t = table_open(dir);
    CF_ASSERT_OK(cf_table_flush(t, &err), &err);
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
}

static char *seg(const char *dir, uint64_t seq)
{
    static char p[4][600];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof(p[k]), "%s/wal/wal-%016" PRIu64 ".log", dir, seq);
    return p[k];
}

static bool exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static void copy_file(const char *from, const char *to)
{
    size_t len;
    uint8_t *b = cf_test_read_file(from, &len);
    assert_non_null(b);
    cf_test_write_file(to, b, len);
    free(b);
}

/* The path of segment seq of dir with ".<ext>" added, made a copy of the
 * segment (4 static buffers in turn, as seg). */
static char *seg_copy(const char *dir, uint64_t seq, const char *ext)
{
    static char p[4][700];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof(p[k]), "%s.%s", seg(dir, seq), ext);
    copy_file(seg(dir, seq), p[k]);
    return p[k];
}

/* A table in a fresh directory with 5 rows, all in log segment 1, of which
 * *kept is a copy (seg_copy's, with ext). Returns the directory. */
static char *five_rows(const char *ext, char **kept)
{
    char *dir = make_table();
    insert_n(dir, 0, 5);
    *kept = seg_copy(dir, 1, ext);
    return dir;
}

static char *tablet_text(const char *dir)
{
    char p[600];
    snprintf(p, sizeof(p), "%s/TABLET", dir);
    size_t len;
    char *t = (char *)cf_test_read_file(p, &len);
    if (t == NULL)
        return NULL;
    char *z = realloc(t, len + 1);
    assert_non_null(z);
    z[len] = '\0';
    return z;
}

/* The recorded segment and bytes ("wal SEQ BYTES"); false without the line. */
static bool recorded(const char *dir, uint64_t *seq, uint64_t *bytes)
{
    char *t = tablet_text(dir);
    assert_non_null(t);
    const char *w = strstr(t, "\nwal ");
    bool ok = w != NULL && sscanf(w + 5, "%" SCNu64 " %" SCNu64, seq, bytes) == 2;
    free(t);
    return ok;
}

/* Write a TABLET of the given lines (header included) with its checksum. */
static void write_tablet(const char *dir, const char *body)
{
    char p[600];
    snprintf(p, sizeof(p), "%s/TABLET", dir);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fprintf(f, "%s", body);
    fprintf(f, "end %016" PRIx64 "\n", cf_rs_fnv1a((const uint8_t *)body, strlen(body)));
    fclose(f);
}

/* The TABLET's lines without its end line, header replaced, the wal line
 * dropped (wal == NULL) or replaced (after next_rowset, as the writer puts it). */
static void rewrite_tablet(const char *dir, const char *header, const char *wal)
{
    char *t = tablet_text(dir);
    assert_non_null(t);
    char body[4096];
    size_t n = 0;
    body[0] = '\0';
    char *save = NULL;
    for (char *ln = strtok_r(t, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
        const char *out = ln;
        if (strncmp(ln, "cfile-tablet ", 13) == 0)
            out = header;
        else if (strncmp(ln, "wal ", 4) == 0 || strncmp(ln, "end ", 4) == 0)
            out = NULL;
        if (out != NULL)
            n += (size_t)snprintf(body + n, sizeof(body) - n, "%s\n", out);
        if (strncmp(ln, "next_rowset ", 12) == 0 && wal != NULL)
            n += (size_t)snprintf(body + n, sizeof(body) - n, "%s\n", wal);
        assert_true(n < sizeof(body));
    }
    free(t);
    write_tablet(dir, body);
}

static void expect_refused(const char *dir, const char *what, const char *name)
{
    for (int reader = 0; reader < 2; reader++) {
        cf_error err;
        cf_table *t;
        CF_ASSERT_STATUS(open_as(&t, dir, reader, &err), CF_ECORRUPT, &err);
        if (strstr(err.msg, name) == NULL || strstr(err.msg, what) == NULL)
            fail_msg("%s: '%s' does not say '%s' of '%s'", reader ? "reader" : "writer", err.msg,
                     what, name);
    }
}

/* ---- a missing segment ---------------------------------------------------------------------- */

/* The current segment of a table never flushed (its ops all in the log). */
static void test_walseg__current_segment_missing(void **state)
{
    (void)state;
    char *keep;
    char *dir = five_rows("keep", &keep);
    assert_int_equal(unlink(seg(dir, 1)), 0);
    /* before: both opened, showing 0 rows, and a writer then reused ts 2 */
    expect_refused(dir, "segment missing", "wal-0000000000000001.log");
    assert_false(exists(seg(dir, 1))); /* refusing creates nothing */
    /* the whole wal directory gone: the same */
    copy_file(keep, seg(dir, 1));
    char cmd[800];
    snprintf(cmd, sizeof(cmd), "%s/wal", dir);
    char moved[800];
    snprintf(moved, sizeof(moved), "%s/wal.moved", dir);
    assert_int_equal(rename(cmd, moved), 0);
    expect_refused(dir, "segment missing", "wal-0000000000000001.log");
    assert_int_equal(rename(moved, cmd), 0);
    /* put back: every row */
    assert_int_equal(rows_of(dir, true), 5);
    assert_int_equal(rows_of(dir, false), 5);
    CF_ASSERT_RM_RF(dir);
}

/* After a checkpoint the TABLET names the new segment, and the retired one is
 * gone and never required; later ops live in the new one. */
static void test_walseg__after_checkpoint(void **state)
{
    (void)state;
    char *old;
    char *dir = five_rows("old", &old);
    flush(dir);
    uint64_t sq, by;
    assert_true(recorded(dir, &sq, &by));
    assert_int_equal(sq, 2);
    assert_int_equal(by, CF_WAL_HEADER_LEN);
    assert_false(exists(seg(dir, 1))); /* retired */
    assert_int_equal(rows_of(dir, true), 5);
    /* a stale copy of the retired segment is ignored, and removed by a writer */
    copy_file(old, seg(dir, 1));
    assert_int_equal(rows_of(dir, true), 5);
    assert_int_equal(rows_of(dir, false), 5);
    assert_false(exists(seg(dir, 1)));
    insert_n(dir, 5, 3);
    assert_int_equal(rows_of(dir, true), 8);
    assert_int_equal(unlink(seg(dir, 2)), 0);
    /* before: 5 rows, the 3 acknowledged inserts silently gone */
    expect_refused(dir, "segment missing", "wal-0000000000000002.log");
    /* an older segment in its place is not it */
    copy_file(old, seg(dir, 1));
    expect_refused(dir, "newest is wal-0000000000000001.log", "wal-0000000000000002.log");
    CF_ASSERT_RM_RF(dir);
}

/* What a checkpoint cut short leaves (the new segment renamed into place, the
 * TABLET still naming the old one, both there): every row, whichever of the
 * two is deleted; a writer's next op records the new one first. */
static void test_walseg__checkpoint_cut_short(void **state)
{
    (void)state;
    char *old;
    char *dir = five_rows("old", &old);
    uint64_t sq, by;
    assert_true(recorded(dir, &sq, &by));
    assert_int_equal(sq, 1);
    flush(dir);
    struct stat sb;
    assert_int_equal(stat(old, &sb), 0);
    char line[64];
    snprintf(line, sizeof(line), "wal 1 %lld", (long long)sb.st_size);
    rewrite_tablet(dir, "cfile-tablet 2", line);
    copy_file(old, seg(dir, 1));
    char *new2 = seg_copy(dir, 2, "new");
    assert_int_equal(rows_of(dir, true), 5);
    assert_int_equal(unlink(seg(dir, 1)), 0); /* the older one: not needed */
    assert_int_equal(rows_of(dir, true), 5);
    copy_file(old, seg(dir, 1));
    assert_int_equal(unlink(seg(dir, 2)), 0); /* the newer one: the older replays */
    assert_int_equal(rows_of(dir, true), 5);
    copy_file(new2, seg(dir, 2));
    /* a writer appends to segment 2 only once the TABLET names it */
    insert_n(dir, 5, 1);
    assert_true(recorded(dir, &sq, &by));
    assert_int_equal(sq, 2);
    assert_false(exists(seg(dir, 1)));
    assert_int_equal(rows_of(dir, true), 6);
    CF_ASSERT_RM_RF(dir);
}

/* ---- a truncated segment -------------------------------------------------------------------- */

/* wal_records: ctx[1] = where the last record starting below ctx[0] starts. */
static bool last_below(cf_slice payload, size_t start, size_t rec, void *ctx)
{
    (void)payload, (void)rec;
    uint64_t *below = ctx;
    if (start >= below[0])
        return false;
    below[1] = start;
    return true;
}

/* MemRowSet flushes commit TABLETs recording the segment's synced bytes:
 * cutting the segment below them is refused, torn or at a record boundary. */
static void test_walseg__truncated(void **state)
{
    (void)state;
    char *dir = make_table();
    cf_error err;
    cf_table *t = table_open(dir);
    cf_table_set_flush_bytes(t, 1); /* a MemRowSet flush after every op */
    for (int i = 0; i < 4; i++)
        CF_ASSERT_OK(put(t, i, &err), &err);
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    uint64_t sq, by;
    assert_true(recorded(dir, &sq, &by));
    assert_int_equal(sq, 1);
    struct stat sb;
    assert_int_equal(stat(seg(dir, 1), &sb), 0);
    assert_int_equal(by, (uint64_t)sb.st_size); /* synced per op: all of it */
    insert_n(dir, 10, 3);                       /* after the last record: the log alone */
    assert_int_equal(rows_of(dir, true), 7);
    char *keep = seg_copy(dir, 1, "keep");
    /* below the recorded bytes: in a record (a torn tail to the replay), at the
     * header, at the start of the last record they cover */
    size_t len;
    uint8_t *data = cf_test_read_file(keep, &len);
    assert_non_null(data);
    uint64_t below[2] = {by, 0}; /* the recorded bytes; the last record starting below */
    wal_records(data, len, last_below, below);
    uint64_t last_start = below[1];
    free(data);
    assert_true(last_start > CF_WAL_HEADER_LEN && last_start < by);
    const uint64_t cuts[] = {by - 1, CF_WAL_HEADER_LEN, last_start};
    for (size_t i = 0; i < 3; i++) {
        copy_file(keep, seg(dir, 1));
        assert_int_equal(truncate(seg(dir, 1), (off_t)cuts[i]), 0);
        /* before: 4 or fewer rows at exit 0, and a writer cut the tail for good */
        expect_refused(dir, "truncated", "wal-0000000000000001.log");
        assert_int_equal(stat(seg(dir, 1), &sb), 0);
        assert_int_equal((uint64_t)sb.st_size, cuts[i]); /* nothing cut further */
    }
    /* Above them the record says nothing: a cut after the last flush cannot be
     * told from fewer ops (documented); here the last insert goes. */
    copy_file(keep, seg(dir, 1));
    assert_int_equal(stat(seg(dir, 1), &sb), 0);
    assert_int_equal(truncate(seg(dir, 1), sb.st_size - 1), 0);
    assert_int_equal(rows_of(dir, true), 6);
    CF_ASSERT_RM_RF(dir);
}

/* Group commit: a MemRowSet flush records only the synced bytes, so losing the
 * unsynced appends (a power loss: here the segment cut back to what was
 * recorded) leaves a table that opens, with the flushed rows. */
static void test_walseg__group_commit_records_synced_bytes(void **state)
{
    (void)state;
    char *dir = make_table();
    cf_error err;
    cf_table_options o;
    cf_table_options_init(&o);
    o.sync_mode = CF_TABLE_SYNC_GROUP;
    o.sync_bytes = 1 << 20;
    cf_table *t;
    CF_ASSERT_OK(cf_table_open(&t, dir, &o, &err), &err);
    cf_table_set_flush_bytes(t, 1); /* a MemRowSet flush after every op */
    for (int i = 0; i < 3; i++)
        CF_ASSERT_OK(put(t, i, &err), &err);
    cf_table_free(t); /* no close: nothing synced */
    uint64_t sq, by;
    assert_true(recorded(dir, &sq, &by));
    assert_int_equal(sq, 1);
    assert_int_equal(by, CF_WAL_HEADER_LEN);
    struct stat sb;
    assert_int_equal(stat(seg(dir, 1), &sb), 0);
    assert_true((uint64_t)sb.st_size > by);
    assert_int_equal(truncate(seg(dir, 1), (off_t)by), 0);
    assert_int_equal(rows_of(dir, true), 3);
    /* reopened: appends found there are not vouched for until synced */
    CF_ASSERT_OK(cf_table_open(&t, dir, &o, &err), &err);
    cf_table_set_flush_bytes(t, 1);
    CF_ASSERT_OK(put(t, 3, &err), &err);
    CF_ASSERT_OK(cf_table_sync(t, &err), &err);
    CF_ASSERT_OK(put(t, 4, &err), &err); /* its flush records the synced bytes */
    cf_table_free(t);
    assert_true(recorded(dir, &sq, &by));
    assert_int_equal(stat(seg(dir, 1), &sb), 0);
    assert_true(by > CF_WAL_HEADER_LEN && by < (uint64_t)sb.st_size);
    assert_int_equal(truncate(seg(dir, 1), (off_t)by), 0);
    assert_int_equal(rows_of(dir, false), 5);
    CF_ASSERT_RM_RF(dir);
}

/* ---- older tables ---------------------------------------------------------------------------- */

/* A version 1 TABLET (no wal line) opens as before; a writer's first op
 * records its segment (version 2). A table without a TABLET gets one naming
 * its root rowset at the first op, not before (an opened and closed new table
 * still takes a sorted import's fast path). */
static void test_walseg__older_tables(void **state)
{
    (void)state;
    char *dir = make_table();
    cf_error err;
    cf_table *t = table_open(dir);
    CF_ASSERT_OK(cf_table_close(t, &err), &err);
    assert_null(tablet_text(dir));
    insert_n(dir, 0, 2);
    char *txt = tablet_text(dir);
    assert_non_null(txt);
    assert_non_null(strstr(txt, "cfile-tablet 2\nnext_rowset 1\nwal 1 36\nrowset .\nend "));
    free(txt);
    flush(dir);
    insert_n(dir, 2, 2);
    /* as the previous version wrote it */
    rewrite_tablet(dir, "cfile-tablet 1", NULL);
    uint64_t sq, by;
    assert_false(recorded(dir, &sq, &by));
    assert_int_equal(rows_of(dir, true), 4);
    assert_int_equal(rows_of(dir, false), 4); /* opening alone writes nothing */
    assert_false(recorded(dir, &sq, &by));
    insert_n(dir, 4, 1);
    assert_true(recorded(dir, &sq, &by));
    assert_int_equal(sq, 2);
    txt = tablet_text(dir);
    assert_int_equal(strncmp(txt, "cfile-tablet 2\n", 15), 0);
    free(txt);
    assert_int_equal(rows_of(dir, true), 5);
    assert_int_equal(unlink(seg(dir, 2)), 0);
    expect_refused(dir, "segment missing", "wal-0000000000000002.log");
    CF_ASSERT_RM_RF(dir);
}

/* Damaged or unknown wal lines. */
static void test_walseg__bad_wal_lines(void **state)
{
    (void)state;
    char *dir = make_table();
    insert_n(dir, 0, 2);
    static const struct {
        const char *header, *wal;
        cf_status want;
    } cases[] = {
        {"cfile-tablet 2", NULL, CF_ECORRUPT},                 /* version 2 without it */
        {"cfile-tablet 1", "wal 1 36", CF_ECORRUPT},           /* version 1 with it */
        {"cfile-tablet 2", "wal 0 36", CF_ECORRUPT},           /* no segment 0 */
        {"cfile-tablet 2", "wal 1 35", CF_ECORRUPT},           /* less than a header */
        {"cfile-tablet 2", "wal 1 36 7", CF_ECORRUPT},         /* trailing */
        {"cfile-tablet 2", "wal 1", CF_ECORRUPT},              /* short */
        {"cfile-tablet 2", "wal -1 36", CF_ECORRUPT},          /* sign */
        {"cfile-tablet 2", "wal 1 36\nwal 1 36", CF_ECORRUPT}, /* twice */
        {"cfile-tablet 3", "wal 1 36", CF_ENOTSUP},            /* a newer version */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        rewrite_tablet(dir, cases[i].header, cases[i].wal);
        cf_error err;
        cf_table *t;
        if (open_as(&t, dir, true, &err) != cases[i].want)
            fail_msg("case %zu: want %s: %s", i, cf_status_str(cases[i].want), err.msg);
        assert_non_null(strstr(err.msg, "tablet"));
    }
    rewrite_tablet(dir, "cfile-tablet 2", "wal 1 36");
    assert_int_equal(rows_of(dir, true), 2);
    CF_ASSERT_RM_RF(dir);
}

/* ---- SIGKILL during inserts and checkpoints -------------------------------------------------- */

/* The child (run_child) inserts keys from..., checkpointing every few ops (and when the
 * log passes a small size), reporting each acknowledged key on the pipe. */
typedef struct child_args {
    const char *dir;
    int64_t from;
    uint64_t seed;
} child_args;

static int child(void *ctx, int fd)
{
    const child_args *a = ctx;
    cf_error err;
    cf_table_options o;
    cf_table_options_init(&o);
    o.wal_max_bytes = 150 + a->seed % 200;
    cf_table *t;
    if (cf_table_open(&t, a->dir, &o, &err) != CF_OK)
        return 3;
    for (int64_t k = a->from;; k++) {
        if (put(t, k, &err) != CF_OK)
            return 4;
        if (write(fd, &k, sizeof(k)) != (ssize_t)sizeof(k))
            return 5;
        if ((k + (int64_t)a->seed) % 3 == 0 && cf_table_flush(t, &err) != CF_OK)
            return 6;
    }
}

static void test_walseg__crash(void **state)
{
    (void)state;
    uint64_t seed = cf_test_seed(30);
    cf_rng rng;
    cf_rng_init(&rng, seed);
    char *dir = make_table();
    int64_t have = 0; /* the table holds keys 0..have-1 */
    int rounds = 30;
    for (int round = 0; round < rounds; round++) {
        child_args a = {dir, have, seed + (uint64_t)round};
        char what[32];
        snprintf(what, sizeof(what), "round %d", round);
        int acks =
            run_child(child, &a, (double)(5000 + cf_rng_below(&rng, 100000)) / 1e6, true, what);
        int64_t k, acked = have - 1; /* keys 0..acked are acknowledged */
        while (read(acks, &k, sizeof(k)) == (ssize_t)sizeof(k))
            acked = k;
        close(acks);
        /* opens (writer and reader), with every acknowledged key, and at most the
         * one in flight besides */
        long n = rows_of(dir, true);
        if (n < 0) {
            cf_error err;
            cf_table *t;
            CF_ASSERT_OK(open_as(&t, dir, true, &err), &err);
        }
        if (n != acked + 1 && n != acked + 2)
            fail_msg("round %d (seed %" PRIu64 "): %ld rows, %" PRId64 " acknowledged", round, seed,
                     n, acked + 1);
        assert_int_equal(rows_of(dir, false), n);
        have = n;
    }
    print_message("crash rounds: %d, rows: %" PRId64 "\n", rounds, have);
    CF_ASSERT_RM_RF(dir);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_walseg__current_segment_missing),
        cmocka_unit_test(test_walseg__after_checkpoint),
        cmocka_unit_test(test_walseg__checkpoint_cut_short),
        cmocka_unit_test(test_walseg__truncated),
        cmocka_unit_test(test_walseg__group_commit_records_synced_bytes),
        cmocka_unit_test(test_walseg__older_tables),
        cmocka_unit_test(test_walseg__bad_wal_lines),
        cmocka_unit_test(test_walseg__crash),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

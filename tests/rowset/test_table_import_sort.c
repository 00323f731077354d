/* Bulk loads of rows in any key order (src/rowset/import_sort.c): the external
 * sort behind cf_table_loader. Rows in shuffled order load into the same table
 * as the same rows sorted (scan output identical), as one rowset, whether they
 * fit the memory budget or spill to sorted runs (a budget of 64 KiB, merged in
 * passes); the runs live in a scratch rs-<n> of the table while the load runs
 * and nothing of them is left after commit, failure or free. A key repeated
 * across runs is reported with the later row; a bad row late in the input
 * leaves the table (and its directory) as it was; SIGKILL at any moment of a
 * spilling load leaves all of it or none, and the next write's clean-up
 * removes what it left. */
#include "test_common.h"

#include <dirent.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cfile/cfile.h>
#include <cfile/rowset.h>

#include "support_model.h"
#include "support_table.h"
#include "util/alloc.h"

#define SCHEMA_INT "id INT64 KEY, name STRING NULL, v INT32"
/* keys of 11+ bytes with an 8-byte common prefix: the sort compares whole keys */
#define SCHEMA_STR "s STRING KEY, v INT64 NULL, tags INT32[] NULL"
#define BATCH 1000
#define SMALL ((size_t)64 << 10)

/* Row values of key k (k >= 0), as both schemas hold them. */
typedef struct rows {
    bool str;
    size_t n;
    int64_t ids[BATCH];
    char names[BATCH][24];
    cf_slice slices[BATCH];
    int32_t v32[BATCH];
    int64_t v64[BATCH];
    uint8_t nn[BATCH / 8 + 1];
    uint32_t counts[BATCH];
    int32_t elems[BATCH * 3];
    uint8_t enn[BATCH * 3 / 8 + 1];
    size_t ne;
} rows;

static void rows_add(rows *r, int64_t k)
{
    size_t i = r->n++;
    bool present = k % 5 != 0;
    if (present)
        r->nn[i / 8] |= (uint8_t)(1u << (i % 8));
    r->ids[i] = k;
    if (r->str)
        snprintf(r->names[i], sizeof(r->names[i]), "key-0000%07" PRId64, k);
    else
        snprintf(r->names[i], sizeof(r->names[i]), "n%" PRId64, k * 7919 % 100003);
    r->slices[i] = (cf_slice){(const uint8_t *)r->names[i], strlen(r->names[i])};
    r->v32[i] = (int32_t)(k * 3);
    r->v64[i] = k * -5;
    r->counts[i] = present ? (uint32_t)(k % 4) : 0;
    for (uint32_t e = 0; e < r->counts[i]; e++) {
        if ((k + e) % 3 != 0)
            r->enn[r->ne / 8] |= (uint8_t)(1u << (r->ne % 8));
        r->elems[r->ne++] = (int32_t)(k + e);
    }
}

static cf_status rows_append(cf_table_loader *l, const rows *r, cf_error *err)
{
    cf_colvec cols[3];
    if (r->str) {
        cols[0] = (cf_colvec){r->slices, NULL, NULL, NULL};
        cols[1] = (cf_colvec){r->v64, r->nn, NULL, NULL};
        cols[2] = (cf_colvec){r->elems, r->nn, r->counts, r->enn};
    } else {
        cols[0] = (cf_colvec){r->ids, NULL, NULL, NULL};
        cols[1] = (cf_colvec){r->slices, r->nn, NULL, NULL};
        cols[2] = (cf_colvec){r->v32, NULL, NULL, NULL};
    }
    return cf_table_loader_append(l, cols, r->n, err);
}

/* Load keys[0..n) in batches; budget 0: the default. The loader stays open
 * (for the caller to look at the scratch files) until `*out` is committed or
 * freed; NULL out: committed here. Returns the first failure. */
static cf_status load(cf_table *t, bool str, const int64_t *keys, size_t n, size_t budget,
                      cf_table_loader **out, uint64_t *err_row, cf_error *err)
{
    cf_table_loader_options o;
    cf_table_loader_options_init(&o);
    if (budget != 0)
        o.memory_bytes = budget;
    cf_table_loader *l;
    cf_status st = cf_table_loader_create(&l, t, &o, err);
    if (st != CF_OK)
        return st;
    static rows r;
    for (size_t a = 0; a < n && st == CF_OK; a += BATCH) {
        memset(&r, 0, sizeof(r));
        r.str = str;
        for (size_t i = a; i < n && i < a + BATCH; i++)
            rows_add(&r, keys[i]);
        st = rows_append(l, &r, err);
    }
    if (st == CF_OK && out == NULL)
        st = cf_table_loader_commit(l, err);
    if (err_row != NULL)
        *err_row = cf_table_loader_error_row(l);
    if (out != NULL && st == CF_OK) {
        *out = l;
        return CF_OK;
    }
    cf_table_loader_free(l);
    return st;
}

/* table_scan_text: row r of b, its key an integer (*str false) or a string. */
static void row_text(FILE *f, const cf_row_batch *b, size_t r, void *str)
{
    const cf_batch *c0 = &b->cols[0], *c1 = &b->cols[1], *c2 = &b->cols[2];
    if (!*(const bool *)str) {
        const cf_slice *nm = (const cf_slice *)c1->values + r;
        fprintf(f, "%" PRId64 " %s%.*s %d\n", ((const int64_t *)c0->values)[r],
                bit(c1->nonnull, r) ? "" : "NULL", (int)nm->len, (const char *)nm->data,
                ((const int32_t *)c2->values)[r]);
        return;
    }
    const cf_slice *s = (const cf_slice *)c0->values + r;
    fprintf(f, "%.*s %s%" PRId64 " [", (int)s->len, (const char *)s->data,
            bit(c1->nonnull, r) ? "" : "NULL", ((const int64_t *)c1->values)[r]);
    for (uint32_t e = c2->elem_offsets[r]; e < c2->elem_offsets[r + 1]; e++)
        fprintf(f, bit(c2->elem_nonnull, e) ? " %d" : " null", ((const int32_t *)c2->values)[e]);
    fprintf(f, "]%s\n", bit(c2->nonnull, r) ? "" : " NULL");
}

/* Every row as text, in scan order. */
static char *scan_text(cf_table *t, bool str)
{
    return table_scan_text(t, NULL, row_text, &str);
}

/* The names in dir (and, for rs-* directories, in them), sorted, one a line. */
static char *listing(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "cd '%s' && find . -path ./wal -prune -o -print | LC_ALL=C sort",
             dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int ch;
    while ((ch = fgetc(p)) != EOF)
        fputc(ch, f);
    fclose(f);
    assert_int_equal(pclose(p), 0);
    return buf;
}

/* The rs-* directories of a listing, one a line. */
static char *top_dirs(const char *ls)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    for (const char *p = ls; *p != '\0';) {
        const char *e = strchr(p, '\n');
        size_t n = e != NULL ? (size_t)(e - p) : strlen(p);
        if (n > 5 && strncmp(p, "./rs-", 5) == 0 && memchr(p + 2, '/', n - 2) == NULL)
            fprintf(f, "%.*s\n", (int)n, p);
        p += n + (e != NULL);
    }
    fclose(f);
    return buf;
}

/* Files named as the sort's runs (a data file's temporary) anywhere in dir. */
static int run_files(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "find '%s' -name '*.adhoc.cfile.tmp.*' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    int n = -1;
    assert_int_equal(fscanf(p, "%d", &n), 1);
    pclose(p);
    return n;
}

static void shuffle(int64_t *k, size_t n, cf_rng *rng)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)cf_rng_below(rng, i);
        int64_t x = k[i - 1];
        k[i - 1] = k[j];
        k[j] = x;
    }
}

/* Rowsets with rows in the table. */
static size_t rowsets_with_rows(cf_table *t)
{
    size_t n = 0;
    for (size_t i = 0; i < cf_table_rowset_count(t); i++) {
        cf_rowset_info ri;
        cf_rowset_get_info(cf_table_rowset_at(t, i, NULL), &ri);
        n += ri.rows > 0;
    }
    return n;
}

#define NROWS 30000

static void shuffled_is_sorted(bool str)
{
    cf_error err;
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(2901));
    static int64_t keys[NROWS];
    for (size_t i = 0; i < NROWS; i++)
        keys[i] = (int64_t)i * 3 + 1;
    char sorted_dir[256];
    snprintf(sorted_dir, sizeof(sorted_dir), "%s", mkdtemp_fast_dir());
    cf_table *t = table_create_open(sorted_dir, str ? SCHEMA_STR : SCHEMA_INT);
    CF_ASSERT_OK(load(t, str, keys, NROWS, 0, NULL, NULL, &err), &err);
    char *want = scan_text(t, str);
    cf_table_free(t);
    assert_true(strlen(want) > NROWS * 8);
    shuffle(keys, NROWS, &rng);
    for (int pass = 0; pass < 2; pass++) {
        /* pass 0: the default budget (one run in memory); 1: 64 KiB, spilled
         * runs merged in passes */
        char dir[256];
        snprintf(dir, sizeof(dir), "%s", mkdtemp_fast_dir());
        t = table_create_open(dir, str ? SCHEMA_STR : SCHEMA_INT);
        cf_table_loader *l = NULL;
        CF_ASSERT_OK(load(t, str, keys, NROWS, pass ? SMALL : 0, &l, NULL, &err), &err);
        int runs = run_files(dir);
        if (pass == 0)
            assert_int_equal(runs, 0);
        else
            assert_true(runs > 8); /* more than one merge of 64 KiB can read at once */
        CF_ASSERT_OK(cf_table_loader_commit(l, &err), &err);
        cf_table_loader_free(l);
        assert_int_equal(run_files(dir), 0);
        char *got = scan_text(t, str);
        assert_string_equal(got, want);
        free(got);
        /* one rowset, and nothing else the load made left in the directory */
        assert_int_equal(rowsets_with_rows(t), 1);
        const char *name;
        cf_table_rowset_at(t, 0, &name);
        char *ls = listing(dir), *tops = top_dirs(ls);
        char expect[64];
        snprintf(expect, sizeof(expect), "./%s\n", name);
        assert_string_equal(tops, expect);
        free(tops);
        free(ls);
        cf_table_free(t);
        t = table_open(dir);
        got = scan_text(t, str);
        assert_string_equal(got, want);
        free(got);
        cf_table_free(t);
        CF_ASSERT_RM_RF(dir);
    }
    free(want);
    CF_ASSERT_RM_RF(sorted_dir);
}

static void test_table_import_sort__shuffled_is_sorted_int_keys(void **state)
{
    (void)state;
    shuffled_is_sorted(false);
}

static void test_table_import_sort__shuffled_is_sorted_string_keys(void **state)
{
    (void)state;
    shuffled_is_sorted(true);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Rows in key order long enough to start streaming, then rows out of order
 * within their range: the streamed rowset goes back into the sort and the load
 * is one rowset; when it holds more rows than the rest, it stays (two). */
static void test_table_import_sort__streamed_prefix(void **state)
{
    (void)state;
    cf_error err;
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(2905));
    static int64_t keys[NROWS];
    for (size_t split = 5000; split <= 25000; split += 20000) {
        /* even keys in order first, then odd ones in their range (and the
         * rest, past it) shuffled */
        for (size_t i = 0; i < split; i++)
            keys[i] = (int64_t)(2 * i);
        for (size_t i = split, o = 0; i < NROWS; i++, o++)
            keys[i] = o < split ? (int64_t)(2 * o + 1) : (int64_t)(split + o);
        static int64_t in_order[NROWS];
        memcpy(in_order, keys, sizeof(keys));
        qsort(in_order, NROWS, sizeof(*in_order), cmp_i64);
        char dir[256];
        snprintf(dir, sizeof(dir), "%s", mkdtemp_fast_dir());
        cf_table *t = table_create_open(dir, SCHEMA_INT);
        CF_ASSERT_OK(load(t, false, in_order, NROWS, 0, NULL, NULL, &err), &err);
        char *want = scan_text(t, false);
        cf_table_free(t);
        CF_ASSERT_RM_RF(dir);
        shuffle(keys + split, NROWS - split, &rng);
        snprintf(dir, sizeof(dir), "%s", mkdtemp_fast_dir());
        t = table_create_open(dir, SCHEMA_INT);
        CF_ASSERT_OK(load(t, false, keys, NROWS, SMALL, NULL, NULL, &err), &err);
        char *got = scan_text(t, false);
        assert_string_equal(got, want);
        assert_int_equal(rowsets_with_rows(t), split < NROWS / 2 ? 1 : 2);
        assert_int_equal(run_files(dir), 0);
        char *ls = listing(dir), *tops = top_dirs(ls);
        size_t dirs = 0;
        for (const char *p = tops; (p = strchr(p, '\n')) != NULL; p++)
            dirs++;
        assert_int_equal(dirs, split < NROWS / 2 ? 1 : 2); /* the re-sorted one is gone */
        free(tops);
        free(ls);
        free(got);
        free(want);
        cf_table_free(t);
        CF_ASSERT_RM_RF(dir);
    }
}

/* A key repeated in another run fails the load with the later row, whichever of
 * the two comes first in key order of the merge; one repeated within a run, with
 * the earliest row that repeats a key. */
static void test_table_import_sort__duplicates_across_runs(void **state)
{
    (void)state;
    cf_error err;
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(2902));
    static int64_t keys[NROWS];
    static const struct {
        size_t first, again; /* keys[again] = keys[first] */
        size_t budget;
        uint64_t want;
    } cases[] = {
        {10, NROWS - 5, SMALL, NROWS - 5}, /* runs far apart */
        {NROWS - 7, 3, SMALL, NROWS - 7},  /* the repeat first */
        {100, 20000, 0, 20000},            /* one run in memory */
        {500, 520, SMALL, 520},            /* in one spilled run */
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        for (size_t i = 0; i < NROWS; i++)
            keys[i] = (int64_t)i;
        shuffle(keys, NROWS, &rng);
        keys[cases[c].again] = keys[cases[c].first];
        char dir[256];
        snprintf(dir, sizeof(dir), "%s", mkdtemp_fast_dir());
        cf_table *t = table_create_open(dir, SCHEMA_INT);
        int64_t first[3] = {NROWS, NROWS + 1, NROWS + 2};
        CF_ASSERT_OK(load(t, false, first, 3, 0, NULL, NULL, &err), &err);
        char *want_rows = scan_text(t, false);
        char *before = listing(dir);
        uint64_t row = 0;
        cf_status st = load(t, false, keys, NROWS, cases[c].budget, NULL, &row, &err);
        CF_ASSERT_STATUS(st, CF_EINVAL, &err);
        assert_non_null(strstr(err.msg, "duplicate key (repeated in the load)"));
        assert_int_equal(row, cases[c].want);
        char want[64];
        snprintf(want, sizeof(want), "row %" PRIu64 ": ", cases[c].want);
        assert_non_null(strstr(err.msg, want));
        char *after = listing(dir);
        assert_string_equal(before, after);
        free(before);
        free(after);
        char *got = scan_text(t, false);
        assert_string_equal(got, want_rows);
        free(got);
        free(want_rows);
        cf_table_free(t);
        CF_ASSERT_RM_RF(dir);
    }
}

/* A bad row (NULL in a column that cannot be NULL) after runs were spilled:
 * the table reads as before and its directory holds what it held. */
static void test_table_import_sort__bad_row_late_leaves_nothing(void **state)
{
    (void)state;
    cf_error err;
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(2903));
    char dir[256];
    snprintf(dir, sizeof(dir), "%s", mkdtemp_fast_dir());
    cf_table *t = table_create_open(dir, SCHEMA_INT);
    static int64_t keys[NROWS];
    for (size_t i = 0; i < 2000; i++)
        keys[i] = (int64_t)i * 2; /* a first load: even keys */
    CF_ASSERT_OK(load(t, false, keys, 2000, 0, NULL, NULL, &err), &err);
    cf_table_free(t);
    t = table_open(dir);
    char *want = scan_text(t, false);
    char *before = listing(dir);
    for (size_t i = 0; i < NROWS; i++)
        keys[i] = (int64_t)(2 * i + 4001); /* odd keys, new */
    shuffle(keys, NROWS, &rng);
    cf_table_loader_options o;
    cf_table_loader_options_init(&o);
    o.memory_bytes = SMALL;
    cf_table_loader *l;
    CF_ASSERT_OK(cf_table_loader_create(&l, t, &o, &err), &err);
    static rows r;
    cf_status st = CF_OK;
    for (size_t a = 0; a < NROWS && st == CF_OK; a += BATCH) {
        memset(&r, 0, sizeof(r));
        for (size_t i = a; i < a + BATCH; i++)
            rows_add(&r, keys[i]);
        if (a + BATCH == NROWS) {
            assert_true(run_files(dir) > 10);
            cf_colvec cols[3] = {{r.ids, NULL, NULL, NULL},
                                 {r.slices, r.nn, NULL, NULL},
                                 {r.v32, (const uint8_t *)"\xff\xff\xfe", NULL, NULL}};
            st = cf_table_loader_append(l, cols, 24, &err);
        } else {
            st = rows_append(l, &r, &err);
        }
    }
    CF_ASSERT_STATUS(st, CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "cannot be NULL"));
    assert_int_equal(cf_table_loader_error_row(l), NROWS - BATCH + 16);
    cf_table_loader_free(l);
    assert_int_equal(run_files(dir), 0);
    char *after = listing(dir);
    assert_string_equal(before, after);
    char *got = scan_text(t, false);
    assert_string_equal(got, want);
    free(got);
    cf_table_free(t);
    t = table_open(dir);
    got = scan_text(t, false);
    assert_string_equal(got, want);
    free(got);
    cf_table_free(t);
    free(after);
    free(before);
    free(want);
    CF_ASSERT_RM_RF(dir);
}

/* A commit that runs out of memory at any point either fails again when
 * retried or, having failed before anything was lost, commits every row: never
 * a table without the rows it streamed. */
static void test_table_import_sort__commit_retry_after_enomem(void **state)
{
    (void)state;
    cf_error err;
    static int64_t keys[NROWS];
    for (size_t i = 0; i < NROWS; i++)
        keys[i] = (int64_t)i;
    int refused = 0, whole = 0;
    for (uint64_t k = 1; k < 400; k += 3) {
        char dir[256];
        snprintf(dir, sizeof(dir), "%s", mkdtemp_fast_dir());
        cf_table *t = table_create_open(dir, SCHEMA_INT);
        cf_table_loader *l = NULL;
        /* in order past the budget: streamed into a rowset writer */
        CF_ASSERT_OK(load(t, false, keys, NROWS, SMALL, &l, NULL, &err), &err);
        cf_alloc_fail_after(k);
        cf_status st = cf_table_loader_commit(l, &err);
        cf_alloc_fail_after(0);
        bool done = st == CF_OK;
        if (!done) {
            st = cf_table_loader_commit(l, &err);
            if (st != CF_OK)
                refused++;
            else
                whole++;
        }
        cf_table_loader_free(l);
        char *got = scan_text(t, false);
        size_t lines = 0;
        for (const char *p = got; (p = strchr(p, '\n')) != NULL; p++)
            lines++;
        if (st == CF_OK)
            assert_int_equal(lines, NROWS);
        else
            assert_int_equal(lines, 0);
        free(got);
        cf_table_free(t);
        CF_ASSERT_RM_RF(dir);
        if (done)
            break;
    }
    print_message("commits out of memory: %d retries refused, %d committed every row\n", refused,
                  whole);
    assert_true(refused > 0);
}

/* SIGKILL at any moment of a load that spills runs: the table reads as before
 * it or as after all of it; a write after (a flush) removes every directory
 * and run file the killed load left. */
#define KILL_ROUNDS 12
#define KILL_ROWS 120000
static cf_status killed_load_run(cf_table *t, void *keys, cf_error *err)
{
    return load(t, false, keys, KILL_ROWS, SMALL, NULL, NULL, err);
}

static void test_table_import_sort__killed(void **state)
{
    (void)state;
    cf_error err;
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(2904));
    static int64_t keys[KILL_ROWS];
    char tmpl[256], dir[300], cmd[1024];
    snprintf(tmpl, sizeof(tmpl), "%s", mkdtemp_fast_dir());
    snprintf(dir, sizeof(dir), "%s.run", tmpl);
    cf_table *t = table_create_open(tmpl, SCHEMA_INT);
    for (size_t i = 0; i < 1000; i++)
        keys[i] = (int64_t)i * 2;
    CF_ASSERT_OK(load(t, false, keys, 1000, 0, NULL, NULL, &err), &err);
    char *before = scan_text(t, false);
    cf_table_free(t);
    for (size_t i = 0; i < KILL_ROWS; i++)
        keys[i] = (int64_t)(2 * i + 2001);
    shuffle(keys, KILL_ROWS, &rng);
    char *after = NULL;
    double full = 0;
    int all = 0, none = 0, left = 0;
    for (int round = -1; round < KILL_ROUNDS; round++) {
        copy_tree(tmpl, dir);
        double kill_at = round < 0 ? -1 : full * (double)cf_rng_below(&rng, 1001) / 1000;
        double took = run_table_child(dir, killed_load_run, keys, kill_at, NULL);
        if (round < 0)
            full = took;
        left += run_files(dir) > 0;
        t = table_open(dir);
        char *got = scan_text(t, false);
        if (round < 0)
            after = got;
        bool done = strcmp(got, after) == 0;
        if (!done)
            assert_string_equal(got, before);
        if (got != after)
            free(got);
        if (round >= 0) {
            all += done;
            none += !done;
        }
        /* the next write's clean-up: nothing the load left stays */
        int64_t k = 1;
        const void *vals[3] = {&k, NULL, &(int32_t){0}};
        CF_ASSERT_OK(cf_table_insert(t, vals, cf_table_last_ts(t) + 1, &err), &err);
        CF_ASSERT_OK(cf_table_flush(t, &err), &err);
        assert_int_equal(run_files(dir), 0);
        char what[32];
        snprintf(what, sizeof(what), "round %d", round);
        check_no_stray_rowsets(t, dir, what);
        cf_table_free(t);
    }
    print_message("spilling load of %d rows in %.3f s, killed %d times: %d left all of it, %d "
                  "none, %d left run files for the clean-up\n",
                  KILL_ROWS, full, KILL_ROUNDS, all, none, left);
    assert_true(none > 0);
    assert_true(left > 0); /* some kills did land while runs were on disk */
    free(before);
    free(after);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", dir, tmpl);
    assert_int_equal(system(cmd), 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_import_sort__shuffled_is_sorted_int_keys),
        cmocka_unit_test(test_table_import_sort__shuffled_is_sorted_string_keys),
        cmocka_unit_test(test_table_import_sort__streamed_prefix),
        cmocka_unit_test(test_table_import_sort__duplicates_across_runs),
        cmocka_unit_test(test_table_import_sort__bad_row_late_leaves_nothing),
        cmocka_unit_test(test_table_import_sort__commit_retry_after_enomem),
        cmocka_unit_test(test_table_import_sort__killed),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* The record reader's threads (cf_parquet_records_options.threads) against
 * its one-thread path: over every file of the real corpus (../shared/parquet),
 * damaged ones included, each thread count and batch size gives the same rows,
 * in the same batches, or the same error (status and message): the leaf or
 * field the one-thread loop fails on first. A hand-built file damaged in two
 * columns shows the first one named whatever thread finished first. Run under
 * ThreadSanitizer by CI. */
/* cf-label: threads */
#include "test_common.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/parquet.h>

#include "parquet/records.h" /* the team, for what AUTO chose */
#include "pq_values.h"
#include "support_pqfile.h"

/* Every batch of the reader as text: "batch R rows\n" and the rows as the
 * dump's JSON values; then the error, if any. */
static char *read_all(const cf_parquet *pq, size_t threads, size_t batch_rows, bool reversed,
                      cf_status *st_out)
{
    char *text = NULL;
    size_t len;
    FILE *m = open_memstream(&text, &len);
    assert_non_null(m);
    cf_parquet_records_options o;
    cf_parquet_records_options_init(&o);
    o.threads = threads;
    o.batch_rows = batch_rows;
    uint32_t nf = cf_parquet_schema_root(pq)->child_count;
    uint32_t fields[256];
    if (reversed && nf <= 256) {
        for (uint32_t i = 0; i < nf; i++)
            fields[i] = nf - 1 - i;
        o.fields = fields;
        o.field_count = nf;
    }
    cf_error err = {0};
    cf_parquet_records *r = NULL;
    cf_status st = cf_parquet_records_open(&r, pq, &o, &err);
    while (st == CF_OK) {
        const cf_parquet_array *b;
        st = cf_parquet_records_next(r, &b, &err);
        if (st != CF_OK || !b)
            break;
        fprintf(m, "batch %zu rows (group %u)\n", b->length, cf_parquet_records_row_group(r));
        for (size_t i = 0; i < b->length; i++) {
            putc('[', m);
            for (uint32_t k = 0; k < b->child_count; k++) {
                if (k)
                    putc(',', m);
                cf_pq_put_value(m, b->children[k], i);
            }
            fputs("]\n", m);
        }
    }
    if (st != CF_OK)
        fprintf(m, "error %d: %s\n", (int)st, err.msg);
    cf_parquet_records_free(r);
    fclose(m);
    *st_out = st;
    return text;
}

/* `reps` reads with `threads` workers each give one thread's text `one` and status st1. */
static void expect_as_one(const cf_parquet *pq, size_t threads, size_t batch_rows, bool reversed,
                          const char *one, cf_status st1, int reps)
{
    for (int k = 0; k < reps; k++) {
        cf_status stn;
        char *many = read_all(pq, threads, batch_rows, reversed, &stn);
        assert_int_equal(stn, st1);
        assert_string_equal(many, one);
        free(many);
    }
}

static void test_pq_threads__corpus_same_as_one_thread(void **state)
{
    (void)state;
    char dir[2048];
    snprintf(dir, sizeof dir, "%s/parquet", CF_SHARED_DIR);
    DIR *d = opendir(dir);
    assert_non_null(d);
    int files = 0, damaged = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s/%s.parquet", dir, de->d_name, de->d_name);
        FILE *probe = fopen(path, "rb");
        if (!probe)
            continue;
        fclose(probe);
        cf_error err;
        cf_parquet *pq;
        if (cf_parquet_open_file(&pq, path, NULL, &err) != CF_OK)
            continue; /* a footer that does not open has nothing to read in parallel */
        /* Batches of 1000 rows and of 7 (many batches per page), all fields
         * and reversed. */
        static const struct {
            size_t batch;
            bool reversed;
        } runs[] = {{1000, false}, {7, true}};
        for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
            cf_status st1, stn;
            char *one = read_all(pq, 1, runs[k].batch, runs[k].reversed, &st1);
            if (k == 0 && st1 != CF_OK)
                damaged++;
            static const size_t counts[] = {2, 4, 16};
            for (size_t t = 0; t < sizeof counts / sizeof counts[0]; t++) {
                char *many = read_all(pq, counts[t], runs[k].batch, runs[k].reversed, &stn);
                if (stn != st1 || strcmp(one, many) != 0)
                    fail_msg("%s: %zu threads, batches of %zu%s: not the one-thread result",
                             de->d_name, counts[t], runs[k].batch,
                             runs[k].reversed ? " (fields reversed)" : "");
                free(many);
            }
            free(one);
        }
        cf_parquet_free(pq);
        files++;
    }
    closedir(d);
    assert_true(files >= 80);
    assert_true(damaged >= 1); /* the error path was compared too */
}

typedef struct damage {
    uint32_t rg, col;
} damage;

/* Three INT32 columns of `rows` rows in row groups of `rg_rows` (one CRC'd
 * page per chunk), then a byte of the data page of each chunk in `bad`
 * flipped: reading such a chunk fails on its CRC. */
static uint8_t *coded_file(size_t rows, size_t rg_rows, int32_t codec, const damage *bad,
                           size_t nbad, size_t *len)
{
    cf_error err;
    cf_io *io;
    CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
    const cf_parquet_write_column cols[3] = {
        {.name = "a", .type = CF_TYPE_INT32},
        {.name = "b", .type = CF_TYPE_INT32},
        {.name = "c", .type = CF_TYPE_INT32},
    };
    cf_parquet_writer_options o;
    cf_parquet_writer_options_init(&o);
    o.codec = codec;
    o.dictionary = false;
    o.row_group_rows = rg_rows;
    cf_parquet_writer *w;
    CF_ASSERT_OK(cf_parquet_writer_create(&w, io, cols, 3, &o, &err), &err);
    int32_t *v[3];
    for (int c = 0; c < 3; c++) {
        v[c] = malloc(rows * sizeof(int32_t));
        assert_non_null(v[c]);
    }
    for (size_t i = 0; i < rows; i++)
        v[0][i] = (int32_t)i, v[1][i] = -(int32_t)i, v[2][i] = (int32_t)i * 7;
    cf_batch b[3] = {{.values = v[0]}, {.values = v[1]}, {.values = v[2]}};
    CF_ASSERT_OK(cf_parquet_writer_append(w, b, rows, &err), &err);
    for (int c = 0; c < 3; c++)
        free(v[c]);
    CF_ASSERT_OK(cf_parquet_writer_finish(w, &err), &err);
    cf_parquet_writer_free(w);
    cf_slice whole = cf_io_mem_contents(io);
    uint8_t *f = malloc(whole.len);
    assert_non_null(f);
    memcpy(f, whole.data, whole.len);
    *len = whole.len;
    cf_io_free(io);
    /* Find each chunk's data page body through the page iterator. */
    cf_io *rio;
    cf_parquet *pq;
    CF_ASSERT_OK(cf_io_open_mem(&rio, f, *len, &err), &err);
    CF_ASSERT_OK(cf_parquet_open(&pq, rio, NULL, &err), &err);
    assert_int_equal(cf_parquet_meta(pq)->row_group_count, (rows + rg_rows - 1) / rg_rows);
    size_t at[16];
    assert_true(nbad <= 16);
    for (size_t k = 0; k < nbad; k++) {
        cf_parquet_pages *it;
        CF_ASSERT_OK(cf_parquet_pages_open(&it, pq, bad[k].rg, bad[k].col, NULL, &err), &err);
        cf_parquet_page pg;
        bool has;
        CF_ASSERT_OK(cf_parquet_pages_next(it, &pg, &has, &err), &err);
        assert_true(has && pg.has_crc && pg.body.len > 100);
        at[k] = (size_t)((const uint8_t *)pg.body.data - f) + 50;
        cf_parquet_pages_free(it);
    }
    cf_parquet_free(pq);
    cf_io_free(rio);
    for (size_t k = 0; k < nbad; k++)
        f[at[k]] ^= 0x40;
    return f;
}

static uint8_t *damaged_file(size_t rows, size_t rg_rows, const damage *bad, size_t nbad,
                             size_t *len)
{
    return coded_file(rows, rg_rows, CF_PARQUET_UNCOMPRESSED, bad, nbad, len);
}

/* Every column fails, and whichever thread fails first, the error is the
 * first column's in reading order: the one-thread loop's. */
static void test_pq_threads__first_failing_column_named(void **state)
{
    (void)state;
    size_t len;
    const damage every[3] = {{0, 0}, {0, 1}, {0, 2}};
    uint8_t *f = damaged_file(5000, 5000, every, 3, &len);
    cf_io *io;
    cf_parquet *pq = pqt_open_mem(f, len, &io);
    for (int rev = 0; rev < 2; rev++) {
        cf_status st1;
        char *one = read_all(pq, 1, 1000, rev, &st1);
        assert_int_equal(st1, CF_ECORRUPT);
        /* "column 0 (a)" read forwards, "column 2 (c)" reversed. */
        assert_non_null(strstr(one, rev ? "column 2" : "column 0"));
        expect_as_one(pq, 3, 1000, rev, one, st1, 20);
        free(one);
    }
    cf_parquet_free(pq);
    cf_io_free(io);
    free(f);
}

/* Row groups decoded ahead: eight of 1000 rows, damage in group 3 (column 2)
 * and group 5 (column 0). Every thread count hands out the batches of groups
 * 0..2 and then group 3's error, exactly as one thread does (the damaged
 * group is read again a batch at a time); an undamaged file gives every row. */
static void test_pq_threads__row_groups_ahead_same_as_one_thread(void **state)
{
    (void)state;
    const damage bad[2] = {{3, 2}, {5, 0}};
    for (int damaged = 0; damaged < 2; damaged++) {
        size_t len;
        uint8_t *f = damaged_file(8000, 1000, bad, damaged ? 2 : 0, &len);
        cf_io *io;
        cf_parquet *pq = pqt_open_mem(f, len, &io);
        static const size_t batches[] = {1000, 300, 4096};
        for (size_t b = 0; b < 3; b++) {
            cf_status st1;
            char *one = read_all(pq, 1, batches[b], false, &st1);
            assert_int_equal(st1, damaged ? CF_ECORRUPT : CF_OK);
            if (damaged)
                assert_non_null(strstr(one, "row group 3 column 2"));
            else
                assert_non_null(strstr(one, "[7999,-7999,55993]"));
            for (size_t t = 2; t <= 5; t++)
                expect_as_one(pq, t, batches[b], false, one, st1, 5);
            free(one);
        }
        cf_parquet_free(pq);
        cf_io_free(io);
        free(f);
    }
}

/* A budget too small for any row group: read a batch at a time, same rows. */
static void test_pq_threads__tiny_ahead_budget(void **state)
{
    (void)state;
    size_t len;
    uint8_t *f = damaged_file(8000, 1000, NULL, 0, &len);
    cf_io *io;
    cf_parquet *pq = pqt_open_mem(f, len, &io);
    cf_error err;
    cf_status st;
    char *one = read_all(pq, 1, 700, false, &st);
    CF_ASSERT_OK(st, &err);
    cf_parquet_records_options o;
    cf_parquet_records_options_init(&o);
    o.threads = 4;
    o.batch_rows = 700;
    o.max_ahead_bytes = 1000; /* below one row group's 1000 x 3 x 6 bytes */
    cf_parquet_records *r;
    CF_ASSERT_OK(cf_parquet_records_open(&r, pq, &o, &err), &err);
    size_t rows = 0;
    for (;;) {
        const cf_parquet_array *b;
        CF_ASSERT_OK(cf_parquet_records_next(r, &b, &err), &err);
        if (!b)
            break;
        rows += b->length;
    }
    assert_int_equal(rows, 8000);
    cf_parquet_records_free(r);
    free(one);
    cf_parquet_free(pq);
    cf_io_free(io);
    free(f);
}

static void test_pq_threads__bad_counts_refused(void **state)
{
    (void)state;
    cf_error err;
    cf_parquet *pq = pqt_corpus_file("dk_complex");
    cf_parquet_records_options o;
    cf_parquet_records_options_init(&o);
    assert_int_equal(o.threads, CF_PARQUET_THREADS_AUTO);
    o.threads = CF_PARQUET_MAX_THREADS + 1;
    cf_parquet_records *r = NULL;
    assert_int_equal(cf_parquet_records_open(&r, pq, &o, &err), CF_EINVAL);
    assert_non_null(strstr(err.msg, "threads"));
    assert_null(r);
    /* An old caller's options (version 1, no threads field) are refused by
     * version, never read past their end. */
    cf_parquet_records_options_init(&o);
    o.version = 1;
    assert_int_equal(cf_parquet_records_open(&r, pq, &o, &err), CF_EINVAL);
    cf_parquet_free(pq);
}

/* Threads left to the reader (AUTO) are used only where the work pays for
 * them: not on chunks stored uncompressed and flat (decoded at memory speed),
 * nor on less than 1 MiB; threads asked for are used whatever the work. The
 * rows are the one-thread rows either way. */
static void test_pq_threads__auto_only_where_work_pays(void **state)
{
    (void)state;
    if (cf_team_online_cpus(CF_PARQUET_MAX_THREADS) < 2)
        skip();
    static const struct {
        size_t rows;
        int32_t codec;
        bool team;
    } cases[] = {
        {200000, CF_PARQUET_UNCOMPRESSED, false}, /* 2.4 MB, memory speed */
        {200000, CF_PARQUET_SNAPPY, true},
        {200000, CF_PARQUET_ZSTD, true},
        {20000, CF_PARQUET_SNAPPY, false}, /* 240 kB: less than starting a team */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t len;
        uint8_t *f = coded_file(cases[c].rows, 50000, cases[c].codec, NULL, 0, &len);
        cf_io *io;
        cf_parquet *pq = pqt_open_mem(f, len, &io);
        cf_error err;
        for (size_t threads = 0; threads <= 2; threads += 2) {
            cf_parquet_records_options o;
            cf_parquet_records_options_init(&o);
            o.threads = threads;
            cf_parquet_records *r;
            CF_ASSERT_OK(cf_parquet_records_open(&r, pq, &o, &err), &err);
            assert_int_equal(r->team != NULL, threads == 2 || cases[c].team);
            cf_parquet_records_free(r);
        }
        cf_status st1, st0;
        char *one = read_all(pq, 1, 4096, false, &st1);
        char *dflt = read_all(pq, CF_PARQUET_THREADS_AUTO, 4096, false, &st0);
        CF_ASSERT_OK(st1, &err);
        assert_int_equal(st0, st1);
        assert_string_equal(dflt, one);
        free(one);
        free(dflt);
        cf_parquet_free(pq);
        cf_io_free(io);
        free(f);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pq_threads__corpus_same_as_one_thread),
        cmocka_unit_test(test_pq_threads__first_failing_column_named),
        cmocka_unit_test(test_pq_threads__row_groups_ahead_same_as_one_thread),
        cmocka_unit_test(test_pq_threads__tiny_ahead_budget),
        cmocka_unit_test(test_pq_threads__bad_counts_refused),
        cmocka_unit_test(test_pq_threads__auto_only_where_work_pays),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

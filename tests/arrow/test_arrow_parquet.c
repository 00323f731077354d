/* Parquet through the Arrow C Stream Interface (cf_arrow_stream_parquet),
 * checked against an independent reader: every valid file of the real corpus
 * (../shared/parquet) is exported in batches of 100 rows, scanned by DuckDB
 * (libduckdb from npm, dlopen()ed) into a table, and compared by DuckDB with
 * its own read_parquet() of the same file (EXCEPT ALL both ways, and the row
 * count). Nested lists, structs and maps take part like any column. Plus the
 * buffers of one small nested file, checked exactly. */
/* cf-needs: parquet */
#include <cfile/arrow.h>
#include <cfile/parquet.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support_duck.h"
#include "support_pqfile.h"
#include "support_schema.h"
#include "test_common.h"

/* Files whose Arrow form DuckDB cannot compare with its own reading, and why. */
static const char *const skipped[][2] = {
    {"pt_float16_nonzeros_and_nans", "DuckDB's Arrow scan has no half float (\"e\")"},
    {"pt_float16_zeros_and_nans", "DuckDB's Arrow scan has no half float (\"e\")"},
    {"pt_geospatial", "DuckDB reads GEOMETRY as its own type, with no cast from BLOB"},
    {"pt_geospatial-with-nan", "DuckDB reads GEOMETRY as its own type, with no cast from BLOB"},
    {NULL, NULL},
};

static const char *skip_reason(const char *name)
{
    for (size_t i = 0; skipped[i][0]; i++)
        if (strcmp(skipped[i][0], name) == 0)
            return skipped[i][1];
    return NULL;
}

static int64_t get_i64(duck *d, duck_result *r, duck_idx col)
{
    return d->get_int64(r, col, 0);
}

static void test_arrow_parquet__corpus_through_duckdb(void **state)
{
    (void)state;
    pqt_corpus pc;
    if (!pqt_corpus_open(&pc))
        skip();
    duck d;
    duck_start(&d);
    int checked = 0, failed = 0;
    while (pqt_corpus_next(&pc)) {
        const char *why_skip = skip_reason(pc.name);
        if (why_skip) {
            printf("  %s: skipped (%s)\n", pc.name, why_skip);
            continue;
        }
        cf_error err;
        cf_parquet *pq;
        CF_ASSERT_OK(cf_parquet_open_file(&pq, pc.path, NULL, &err), &err);
        cf_arrow_options o;
        cf_arrow_options_init(&o);
        o.batch_rows = 100;
        struct ArrowArrayStream s;
        cf_status st = cf_arrow_stream_parquet(&s, pq, NULL, &o, &err);
        if (st == CF_ENOTSUP) {
            /* Only STRING bytes that are not UTF-8: then binary on request. */
            fail_msg("%s: %s", pc.name, err.msg);
        }
        CF_ASSERT_OK(st, &err);
        char why[1024];
        if (!duck_load(&d, &s, "p", why, sizeof why)) {
            if (strstr(why, "not valid UTF-8")) {
                o.utf8 = CF_ARROW_UTF8_BINARY;
                CF_ASSERT_OK(cf_arrow_stream_parquet(&s, pq, NULL, &o, &err), &err);
                if (duck_load(&d, &s, "p", why, sizeof why))
                    goto loaded;
            }
            printf("  %s: duckdb refused the stream: %s\n", pc.name, why);
            failed++;
            cf_parquet_free(pq);
            continue;
        }
    loaded:;
        char sql[8800];
        snprintf(sql, sizeof sql,
                 "SELECT (SELECT count(*) FROM p), "
                 "(SELECT count(*) FROM (SELECT * FROM p EXCEPT ALL "
                 "SELECT * FROM read_parquet('%s'))), "
                 "(SELECT count(*) FROM (SELECT * FROM read_parquet('%s') EXCEPT ALL "
                 "SELECT * FROM p))",
                 pc.path, pc.path);
        duck_result r;
        if (!duck_query(&d, sql, &r, why, sizeof why)) {
            printf("  %s: duckdb could not compare: %s\n", pc.name, why);
            failed++;
        } else {
            int64_t n = get_i64(&d, &r, 0), a = get_i64(&d, &r, 1), b = get_i64(&d, &r, 2);
            if (n != cf_parquet_num_rows(pq) || a != 0 || b != 0) {
                printf("  %s: %lld rows (file %lld), %lld only ours, %lld only duckdb's\n", pc.name,
                       (long long)n, (long long)cf_parquet_num_rows(pq), (long long)a,
                       (long long)b);
                failed++;
            }
            d.destroy_result(&r);
        }
        duck_exec(&d, "DROP TABLE p");
        cf_parquet_free(pq);
        checked++;
    }
    duck_stop(&d);
    printf("arrow parquet: %d files compared with DuckDB, %d differ\n", checked, failed);
    assert_int_equal(failed, 0);
    assert_true(checked >= 80);
}

/* repeated_primitive_no_list: bare repeated fields, and a struct of them. */
static void test_arrow_parquet__nested_buffers(void **state)
{
    (void)state;
    cf_error err;
    cf_parquet *pq = pqt_corpus_file("pt_repeated_primitive_no_list");
    struct ArrowArrayStream s;
    CF_ASSERT_OK(cf_arrow_stream_parquet(&s, pq, NULL, NULL, &err), &err);
    struct ArrowSchema sc;
    stream_schema_is(&s, &sc, "Int32_list", "+l", "String_list", "+l", "group_of_lists", "+s",
                     NULL);
    assert_string_equal(sc.children[0]->children[0]->format, "i");
    assert_string_equal(sc.children[1]->children[0]->format, "u");
    assert_string_equal(sc.children[2]->children[0]->format, "+l");
    sc.release(&sc);
    struct ArrowArray a;
    assert_int_equal(s.get_next(&s, &a), 0);
    assert_non_null(a.release);
    assert_int_equal(a.length, 4);
    assert_int_equal(a.n_children, 3);
    const struct ArrowArray *l = a.children[0];
    assert_int_equal(l->length, 4);
    assert_int_equal(l->null_count, 0);
    assert_null(l->buffers[0]);
    const int32_t *off = l->buffers[1];
    const int32_t want_off[] = {0, 4, 4, 5, 9};
    for (int i = 0; i < 5; i++)
        assert_int_equal(off[i], want_off[i]);
    const struct ArrowArray *e = l->children[0];
    assert_int_equal(e->length, 9);
    const int32_t *v = e->buffers[1];
    for (int i = 0; i < 9; i++)
        assert_int_equal(v[i], i);
    /* The strings of row 1: ["three"]. */
    const struct ArrowArray *sl = a.children[1], *se = sl->children[0];
    const int32_t *soff = sl->buffers[1], *boff = se->buffers[1];
    assert_int_equal(soff[2] - soff[1], 1);
    const char *bytes = se->buffers[2];
    assert_int_equal(boff[soff[1] + 1] - boff[soff[1]], 5);
    assert_memory_equal(bytes + boff[soff[1]], "three", 5);
    a.release(&a);
    assert_null(a.release);
    /* The end. */
    assert_int_equal(s.get_next(&s, &a), 0);
    assert_null(a.release);
    s.release(&s);
    cf_parquet_free(pq);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arrow_parquet__nested_buffers),
        cmocka_unit_test(test_arrow_parquet__corpus_through_duckdb),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* The Arrow C Stream Interface against a real consumer: DuckDB (libduckdb from npm,
 * dlopen()ed) scans cf_arrow_stream_* through duckdb_arrow_scan into a table, and
 * every value it read is compared with what cfile's own readers return, for every
 * golden CFile, a multi-rowset table (full scan, and a projected, filtered scan at
 * an older snapshot) and an HFile (the table and the HFile in builds with those
 * modules, CF_HAVE_*). */
#include <cfile/arrow.h>
#include <cfile/config.h> /* CF_HAVE_TABLES, CF_HAVE_HFILE */
#include <cfile/io.h>
#include <cfile/reader.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support_compare.h"
#include "support_duck.h"
#if CF_HAVE_HFILE
#include "support_hfile_mem.h"
#endif
#if CF_HAVE_TABLES
#include "support_table.h"
#endif
#include "test_common.h"

/* The reference: every row of the reader, through its iterator. */
static void read_ref(const cf_reader *r, refcol *rc)
{
    cf_error err;
    const cf_file_info *fi = cf_reader_info(r);
    refcol_init(rc, fi->type, fi->is_array);
    cf_iter *it;
    CF_ASSERT_OK(cf_iter_create(&it, r, &err), &err);
    for (;;) {
        cf_batch b;
        CF_ASSERT_OK(cf_iter_next_batch(it, 1000, &b, &err), &err);
        if (b.count == 0)
            break;
        refcol_add(rc, &b, 0, b.count);
    }
    cf_iter_free(it);
}

/* Load one golden file through DuckDB and compare; returns the differences. */
static size_t golden_one(duck *d, const char *name, const char *path, int *utf8_refusals)
{
    cf_error err;
    cf_reader *r;
    CF_ASSERT_OK(cf_reader_open_file(&r, path, false, NULL, &err), &err);
    const char *names[1] = {"v"};
    const cf_reader *rs[1] = {r};
    struct ArrowArrayStream s;
    CF_ASSERT_OK(cf_arrow_stream_cfiles(&s, rs, names, 1, NULL, &err), &err);
    char why[1024];
    bool as_binary = false;
    if (!duck_load(d, &s, "g", why, sizeof why)) {
        /* The documented rule: STRING bytes that are not UTF-8 fail the default
         * export (never reach DuckDB as utf8) and load as binary on request. */
        if (strstr(why, "not valid UTF-8") == NULL)
            fail_msg("%s: duckdb refused the stream: %s", name, why);
        (*utf8_refusals)++;
        cf_arrow_options o;
        cf_arrow_options_init(&o);
        o.utf8 = CF_ARROW_UTF8_BINARY;
        CF_ASSERT_OK(cf_arrow_stream_cfiles(&s, rs, names, 1, &o, &err), &err);
        if (!duck_load(d, &s, "g", why, sizeof why))
            fail_msg("%s: duckdb refused the binary stream: %s", name, why);
        as_binary = true;
    }
    refcol rc;
    read_ref(r, &rc);
    size_t bad = refcol_check(d, "g", "v", &rc, as_binary, name);
    refcol_dispose(&rc);
    duck_exec(d, "DROP TABLE g");
    cf_reader_free(r);
    return bad;
}

/* Sanitizer builds check every STRIDE-th golden file only: DuckDB under ASan
 * spends seconds per file (its allocations all go through the sanitizer), and the
 * full sweep runs in the ordinary build. */
#ifndef CF_DUCKDB_GOLDEN_STRIDE
#define CF_DUCKDB_GOLDEN_STRIDE 1
#endif

static void test_duckdb__golden_cfiles(void **state)
{
    (void)state;
    duck d;
    duck_start(&d);
    char root[512];
    snprintf(root, sizeof root, "%s/golden", cf_test_shared_dir());
    struct dirent **ents;
    int n = scandir(root, &ents, NULL, alphasort);
    assert_true(n > 0);
    int files = 0, differing = 0, utf8_refusals = 0;
    for (int i = 0; i < n; i++) {
        const char *c = ents[i]->d_name;
        char path[2200];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s/%s.cfile", root, c, c);
        bool pick = i % CF_DUCKDB_GOLDEN_STRIDE == 0 || strstr(c, "nonutf8") != NULL;
        if (pick && c[0] != '.' && strncmp(c, "bloom-", 6) != 0 && stat(path, &st) == 0) {
            files++;
            if (golden_one(&d, c, path, &utf8_refusals) != 0)
                differing++;
        }
        free(ents[i]);
    }
    free(ents);
    print_message("golden: %d files, %d differ, %d refused as utf8 (loaded as binary)\n", files,
                  differing, utf8_refusals);
    assert_true(files >= 150 / CF_DUCKDB_GOLDEN_STRIDE);
    assert_int_equal(differing, 0);
    /* string-plain-nocomp-notnull-nonutf8-hexinput holds bytes that are not UTF-8. */
    assert_true(utf8_refusals >= 1);
    duck_stop(&d);
}

/* Scan the table with o, gathering the reference side from the same scan. */
#if CF_HAVE_TABLES
static void table_case(duck *d, cf_table *t, const cf_scan_options *o, const char *label)
{
    cf_error err;
    const cf_schema *s = cf_table_schema(t);
    size_t ncols = o->cols ? o->ncols : cf_schema_column_count(s);
    refcol rc[16];
    const cf_column *cols[16];
    assert_true(ncols <= 16);
    for (size_t j = 0; j < ncols; j++) {
        cols[j] = cf_schema_column_at(s, o->cols ? o->cols[j] : j);
        refcol_init(&rc[j], cols[j]->type, cols[j]->is_array);
    }
    cf_table_scanner *sc;
    CF_ASSERT_OK(cf_table_scanner_create(&sc, t, o, &err), &err);
    for (;;) {
        cf_row_batch b;
        CF_ASSERT_OK(cf_table_scanner_next(sc, &b, &err), &err);
        if (b.count == 0)
            break;
        for (size_t j = 0; j < ncols; j++)
            refcol_add(&rc[j], &b.cols[j], 0, b.count);
    }
    cf_table_scanner_free(sc);
    assert_true(rc[0].rows > 0);

    struct ArrowArrayStream st;
    cf_arrow_options ao;
    cf_arrow_options_init(&ao);
    ao.batch_rows = 333; /* many batches, none aligned with the scanner's */
    CF_ASSERT_OK(cf_arrow_stream_table(&st, t, o, &ao, &err), &err);
    char why[1024];
    if (!duck_load(d, &st, "tb", why, sizeof why))
        fail_msg("%s: duckdb refused the stream: %s", label, why);
    size_t bad = 0;
    for (size_t j = 0; j < ncols; j++) {
        char l[128];
        snprintf(l, sizeof l, "%s.%s", label, cols[j]->name);
        bad += refcol_check(d, "tb", cols[j]->name, &rc[j], false, l);
        refcol_dispose(&rc[j]);
    }
    /* The decimal column carries the table's precision and scale. */
    duck_result res;
    if (o->cols == NULL) {
        assert_true(duck_query(d, "SELECT typeof(price) FROM tb LIMIT 1", &res, why, sizeof why));
        duck_string ty = d->get_string(&res, 0, 0);
        assert_int_equal(ty.size, strlen("DECIMAL(10,2)"));
        assert_memory_equal(ty.data, "DECIMAL(10,2)", ty.size);
        d->free(ty.data);
        d->destroy_result(&res);
    }
    duck_exec(d, "DROP TABLE tb");
    assert_int_equal(bad, 0);
}

static void test_duckdb__table(void **state)
{
    (void)state;
    duck d;
    duck_start(&d);
    char dir[256];
    cf_table *t = fixture_table(dir);
    cf_scan_options o;
    cf_scan_options_init(&o);
    table_case(&d, t, &o, "all");
    /* Projection in another order, predicates on a key and a value column, and a
     * snapshot that sees the updates and none of the deletes. */
    size_t proj[3] = {3, 1, 0};
    int64_t lo = 300;
    double sc = -1.5;
    cf_pred preds[2] = {{0, CF_PRED_GE, &lo}, {2, CF_PRED_NE, &sc}};
    o.cols = proj;
    o.ncols = 3;
    o.preds = preds;
    o.npreds = 2;
    o.snapshot = FIX_TS_DELETE;
    table_case(&d, t, &o, "projected");
    cf_table_free(t);
    CF_ASSERT_RM_RF(dir);
    duck_stop(&d);
}

#endif

#if CF_HAVE_HFILE
static void test_duckdb__hfile(void **state)
{
    (void)state;
    cf_error err;
    enum { N = 700 };
    char rows[N][16];
    uint8_t quals[N][2], vals[N][5]; /* the cells' bytes, kept until they are written */
    cf_hfile_cell cells[N];
    for (int i = 0; i < N; i++) {
        snprintf(rows[i], sizeof rows[i], "row%05d", i);
        cf_hfile_cell c = {0};
        c.row = (cf_slice){(const uint8_t *)rows[i], strlen(rows[i])};
        c.family = (cf_slice){(const uint8_t *)"f", 1};
        quals[i][0] = 0xfe;
        quals[i][1] = (uint8_t)i;
        c.qualifier = (cf_slice){quals[i], 2};
        c.timestamp = 1600000000000 + i;
        c.type = i % 10 == 9 ? 8 : 4; /* Delete, Put */
        memcpy(vals[i], "\0\0\xffxy", 5);
        vals[i][0] = (uint8_t)i;
        c.value = (cf_slice){vals[i], (size_t)(i % 6)};
        cells[i] = c;
    }
    hfile_mem m;
    hfile_mem_open(&m, cells, N, 512);
    cf_hfile *h = m.h;

    duck d;
    duck_start(&d);
    struct ArrowArrayStream s;
    CF_ASSERT_OK(cf_arrow_stream_hfile(&s, h, NULL, &err), &err);
    char why[1024];
    if (!duck_load(&d, &s, "hf", why, sizeof why))
        fail_msg("hfile: duckdb refused the stream: %s", why);
    duck_result res;
    assert_true(duck_query(&d,
                           "SELECT row, family, qualifier, timestamp, type, value FROM hf "
                           "ORDER BY rowid",
                           &res, why, sizeof why));
    assert_int_equal(d.row_count(&res), N);
    cf_hfile_iter *it;
    CF_ASSERT_OK(cf_hfile_iter_create(&it, h, &err), &err);
    for (duck_idx i = 0; i < N; i++) {
        cf_hfile_cell c;
        bool has;
        CF_ASSERT_OK(cf_hfile_iter_next(it, &c, &has, &err), &err);
        assert_true(has);
        const char *tn = cf_hfile_type_name(c.type);
        cf_slice type = {(const uint8_t *)tn, strlen(tn)};
        if (!cmp_value(&d, &res, 0, i, CF_TYPE_BINARY, false, &c.row, why, sizeof why) ||
            !cmp_value(&d, &res, 1, i, CF_TYPE_BINARY, false, &c.family, why, sizeof why) ||
            !cmp_value(&d, &res, 2, i, CF_TYPE_BINARY, false, &c.qualifier, why, sizeof why) ||
            !cmp_value(&d, &res, 3, i, CF_TYPE_INT64, false, &c.timestamp, why, sizeof why) ||
            !cmp_value(&d, &res, 4, i, CF_TYPE_STRING, false, &type, why, sizeof why) ||
            !cmp_value(&d, &res, 5, i, CF_TYPE_BINARY, false, &c.value, why, sizeof why))
            fail_msg("hfile cell %llu: %s", (unsigned long long)i, why);
    }
    cf_hfile_iter_free(it);
    d.destroy_result(&res);
    duck_stop(&d);
    hfile_mem_close(&m);
}
#endif

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_duckdb__golden_cfiles),
#if CF_HAVE_TABLES
        cmocka_unit_test(test_duckdb__table),
#endif
#if CF_HAVE_HFILE
        cmocka_unit_test(test_duckdb__hfile),
#endif
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* Record assembly (src/parquet/assemble.c): levels to nested arrays.
 *
 * Hand-built files pin the arrays exactly (offsets, validity, values) for a
 * 3-level list, a legacy 2-level list and a bare repeated field, and show that
 * levels which do not nest are refused naming the column. Over the real corpus
 * (../shared/parquet): every valid file gives the same rows whatever the batch
 * size, a projection gives the chosen fields' values, and a row range gives
 * the slice of the whole. */
#include "test_common.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/parquet.h>

#include "cli.h"
#include "parquet/encoding.h"
#include "parquet/thrift.h"
#include "pq_values.h"
#include "support_pqfile.h"
#include "util/buf.h"

/* ---- a small file builder --------------------------------------------------------------- */

typedef pqt_el tel;

typedef struct tcol {
    const char *path[4];
    int path_len;
    size_t n; /* level entries */
    const uint16_t *def, *rep;
    uint16_t max_def, max_rep;
    size_t nv;
    const int32_t *vals;
} tcol;

/* What every built chunk claims beyond its bytes (zero: the truth). The body
 * is stored as is whatever the codec says. */
static struct {
    int codec;
    int32_t raw_size;
} claim;

static void put_chunk_pages(cf_buf *f, const tcol *c)
{
    cf_error err;
    cf_buf body;
    cf_buf_init(&body);
    if (c->max_rep)
        CF_ASSERT_OK(cf_pq_levels_encode(&body, c->rep, c->n, CF_PQE_RLE, c->max_rep, true, &err),
                     &err);
    if (c->max_def)
        CF_ASSERT_OK(cf_pq_levels_encode(&body, c->def, c->n, CF_PQE_RLE, c->max_def, true, &err),
                     &err);
    for (size_t i = 0; i < c->nv; i++)
        cf_buf_put_le32(&body, (uint32_t)c->vals[i]);
    cf_thrift_writer w;
    cf_thrift_writer_init(&w, f);
    cf_thrift_write_struct_begin(&w);
    cf_thrift_write_field_i32(&w, 1, CF_PARQUET_DATA_PAGE);
    cf_thrift_write_field_i32(&w, 2, claim.raw_size ? claim.raw_size : (int32_t)body.len);
    cf_thrift_write_field_i32(&w, 3, (int32_t)body.len);
    cf_thrift_write_field(&w, 5, CF_TT_STRUCT);
    cf_thrift_write_struct_begin(&w);
    cf_thrift_write_field_i32(&w, 1, (int32_t)c->n);
    cf_thrift_write_field_i32(&w, 2, CF_PARQUET_PLAIN);
    cf_thrift_write_field_i32(&w, 3, CF_PARQUET_RLE);
    cf_thrift_write_field_i32(&w, 4, CF_PARQUET_RLE);
    cf_thrift_write_struct_end(&w);
    cf_thrift_write_struct_end(&w);
    cf_buf_append(f, body.data, body.len);
    cf_buf_dispose(&body);
}

/* "PAR1", one data page per column, FileMetaData, length, "PAR1". */
static void build(cf_buf *f, const tel *els, int nel, const tcol *cols, int ncols, int64_t num_rows)
{
    static const int32_t plain = CF_PARQUET_PLAIN;
    pqt_chunk chunks[8];
    cf_buf_append(f, "PAR1", 4);
    for (int c = 0; c < ncols; c++) {
        int64_t off = (int64_t)f->len;
        put_chunk_pages(f, &cols[c]);
        chunks[c] = (pqt_chunk){.type = CF_PARQUET_INT32,
                                .encodings = &plain,
                                .encoding_count = 1,
                                .path = cols[c].path,
                                .path_len = cols[c].path_len,
                                .codec = claim.codec,
                                .num_values = (int64_t)cols[c].n,
                                .offset = off,
                                .len = (int64_t)f->len - off,
                                .data_off = off,
                                .dict_off = -1};
    }
    pqt_footer(f, els, nel, num_rows, chunks, ncols);
}

/* Every row of the file as the dump's JSON rows, one per line. */
static cf_status rows_text(cf_parquet *pq, const cf_parquet_records_options *o, char **text,
                           cf_error *err)
{
    size_t len;
    FILE *m = open_memstream(text, &len);
    assert_non_null(m);
    cf_parquet_records *r = NULL;
    cf_status st = cf_parquet_records_open(&r, pq, o, err);
    while (st == CF_OK) {
        const cf_parquet_array *b;
        st = cf_parquet_records_next(r, &b, err);
        if (st != CF_OK || !b)
            break;
        for (size_t i = 0; i < b->length; i++) {
            putc('[', m);
            for (uint32_t k = 0; k < b->child_count; k++) {
                if (k)
                    fputs(",", m);
                cf_pq_put_value(m, b->children[k], i);
            }
            fputs("]\n", m);
        }
    }
    cf_parquet_records_free(r);
    fclose(m);
    return st;
}

static cf_status text_of(const cf_buf *f, char **text, cf_error *err)
{
    cf_io *io;
    cf_parquet *pq = NULL;
    CF_ASSERT_OK(cf_io_open_mem(&io, f->data, f->len, err), err);
    cf_status st = cf_parquet_open(&pq, io, NULL, err);
    *text = NULL;
    if (st == CF_OK)
        st = rows_text(pq, NULL, text, err);
    cf_parquet_free(pq);
    cf_io_free(io);
    return st;
}

/* optional group a (LIST) { repeated group list { optional int32 element } }
 * rows: [1, null, 2], null, [], [3] */
static const tel list3[] = {
    {"schema", -1, -1, 1, -1},
    {"a", -1, CF_PARQUET_OPTIONAL, 1, CF_PARQUET_CT_LIST},
    {"list", -1, CF_PARQUET_REPEATED, 1, -1},
    {"element", CF_PARQUET_INT32, CF_PARQUET_OPTIONAL, 0, -1},
};
static const uint16_t list3_def[] = {3, 2, 3, 0, 1, 3};
static const uint16_t list3_rep[] = {0, 1, 1, 0, 0, 0};
static const int32_t list3_vals[] = {1, 2, 3};

static void test_pq_assemble__three_level_list_arrays(void **state)
{
    (void)state;
    tcol c = {{"a", "list", "element"}, 3, 6, list3_def, list3_rep, 3, 1, 3, list3_vals};
    cf_buf f;
    cf_buf_init(&f);
    build(&f, list3, 4, &c, 1, 4);
    cf_io *io;
    cf_parquet *pq;
    cf_error err;
    CF_ASSERT_OK(cf_io_open_mem(&io, f.data, f.len, &err), &err);
    CF_ASSERT_OK(cf_parquet_open(&pq, io, NULL, &err), &err);
    cf_parquet_records *r;
    CF_ASSERT_OK(cf_parquet_records_open(&r, pq, NULL, &err), &err);
    const cf_parquet_array *b;
    CF_ASSERT_OK(cf_parquet_records_next(r, &b, &err), &err);
    assert_non_null(b);
    assert_int_equal(b->length, 4);
    assert_int_equal(b->child_count, 1);
    const cf_parquet_array *a = b->children[0];
    assert_int_equal(a->kind, CF_PARQUET_ARRAY_LIST);
    assert_int_equal(a->name.len, 1);
    assert_int_equal(a->length, 4);
    assert_int_equal(a->null_count, 1);
    assert_non_null(a->validity);
    assert_int_equal(a->validity[0] & 0xf, 0xd); /* slot 1 null */
    const int32_t want_off[] = {0, 3, 3, 3, 4};
    for (int i = 0; i < 5; i++)
        assert_int_equal(a->offsets[i], want_off[i]);
    const cf_parquet_array *e = a->children[0];
    assert_int_equal(e->kind, CF_PARQUET_ARRAY_PRIMITIVE);
    assert_int_equal(e->column, 0);
    assert_int_equal(e->length, 4);
    assert_int_equal(e->null_count, 1);
    assert_int_equal(e->validity[0] & 0xf, 0xd);
    assert_int_equal(e->value_size, 4);
    const int32_t *v = (const int32_t *)e->values;
    assert_int_equal(v[0], 1);
    assert_int_equal(v[1], 0); /* null slots are zeroed */
    assert_int_equal(v[2], 2);
    assert_int_equal(v[3], 3);
    CF_ASSERT_OK(cf_parquet_records_next(r, &b, &err), &err);
    assert_null(b);
    cf_parquet_records_free(r);

    /* One row per batch gives the same rows. */
    char *all = NULL, *one = NULL;
    CF_ASSERT_OK(rows_text(pq, NULL, &all, &err), &err);
    assert_string_equal(all, "[[1,null,2]]\n[null]\n[[]]\n[[3]]\n");
    cf_parquet_records_options o;
    cf_parquet_records_options_init(&o);
    o.batch_rows = 1;
    CF_ASSERT_OK(rows_text(pq, &o, &one, &err), &err);
    assert_string_equal(one, all);
    free(one);
    /* Rows 1..3 only. */
    o.row_begin = 1;
    o.row_end = 3;
    CF_ASSERT_OK(rows_text(pq, &o, &one, &err), &err);
    assert_string_equal(one, "[null]\n[[]]\n");
    free(one);
    free(all);
    cf_parquet_free(pq);
    cf_io_free(io);
    cf_buf_dispose(&f);
}

/* Legacy forms: a 2-level list (repeated int32 under a LIST group) and a bare
 * repeated field next to it; a struct around a required field. */
static void test_pq_assemble__legacy_lists_and_structs(void **state)
{
    (void)state;
    const tel els[] = {
        {"schema", -1, -1, 3, -1},
        {"a", -1, CF_PARQUET_REQUIRED, 1, CF_PARQUET_CT_LIST},
        {"array", CF_PARQUET_INT32, CF_PARQUET_REPEATED, 0, -1},
        {"b", CF_PARQUET_INT32, CF_PARQUET_REPEATED, 0, -1},
        {"s", -1, CF_PARQUET_OPTIONAL, 1, -1},
        {"x", CF_PARQUET_INT32, CF_PARQUET_REQUIRED, 0, -1},
    };
    const uint16_t a_def[] = {1, 1, 0}, a_rep[] = {0, 1, 0};
    const int32_t a_vals[] = {7, 8};
    const uint16_t b_def[] = {0, 1}, b_rep[] = {0, 0};
    const int32_t b_vals[] = {9};
    const uint16_t s_def[] = {1, 0}, s_rep[] = {0, 0};
    const int32_t s_vals[] = {5};
    tcol cols[] = {
        {{"a", "array"}, 2, 3, a_def, a_rep, 1, 1, 2, a_vals},
        {{"b"}, 1, 2, b_def, b_rep, 1, 1, 1, b_vals},
        {{"s", "x"}, 2, 2, s_def, s_rep, 1, 0, 1, s_vals},
    };
    cf_buf f;
    cf_buf_init(&f);
    build(&f, els, 6, cols, 3, 2);
    char *text;
    cf_error err;
    CF_ASSERT_OK(text_of(&f, &text, &err), &err);
    assert_string_equal(text, "[[7,8],[],{\"x\":5}]\n[[],[9],null]\n");
    free(text);
    cf_buf_dispose(&f);
}

static void expect_damage(const tcol *c, int64_t num_rows, const char *msg)
{
    cf_buf f;
    cf_buf_init(&f);
    build(&f, list3, 4, c, 1, num_rows);
    char *text = NULL;
    cf_error err;
    CF_ASSERT_STATUS(text_of(&f, &text, &err), CF_ECORRUPT, &err);
    if (!strstr(err.msg, msg))
        fail_msg("message '%s' lacks '%s'", err.msg, msg);
    free(text);
    cf_buf_dispose(&f);
}

static void test_pq_assemble__levels_that_do_not_nest(void **state)
{
    (void)state;
    /* The chunk starts by continuing a row. */
    const uint16_t d1[] = {3, 3}, r1[] = {1, 0};
    const int32_t v[] = {1, 2, 3};
    tcol c = {{"a", "list", "element"}, 3, 2, d1, r1, 3, 1, 2, v};
    expect_damage(&c, 1, "row group 0 column 0 (element): the first value has repetition level 1");
    /* Continuing a list that the entry before said was null. */
    const uint16_t d2[] = {0, 3}, r2[] = {0, 1};
    tcol c2 = {{"a", "list", "element"}, 3, 2, d2, r2, 3, 1, 1, v};
    expect_damage(&c2, 1, "repeats at level 1 but the definition levels (3, before it 0)");
    /* Repeating with a definition level below the list's. */
    const uint16_t d3[] = {3, 1}, r3[] = {0, 1};
    tcol c3 = {{"a", "list", "element"}, 3, 2, d3, r3, 3, 1, 1, v};
    expect_damage(&c3, 1, "repeats at level 1");
    /* More rows in the column than the row group holds, and fewer. */
    tcol c4 = {{"a", "list", "element"}, 3, 6, list3_def, list3_rep, 3, 1, 3, list3_vals};
    expect_damage(&c4, 3, "columns hold more than its 3 rows");
    expect_damage(&c4, 5, "4 rows, the row group says 5");
    /* A compressed page claiming to inflate to 300 MiB inside a chunk of a
     * few dozen bytes is a lie (damage), not a page too big for us (exit 3). */
    claim.codec = CF_PARQUET_SNAPPY;
    claim.raw_size = 300 << 20;
    expect_damage(&c4, 3, "bytes decompressed in a chunk of");
    claim.codec = CF_PARQUET_UNCOMPRESSED;
    claim.raw_size = 0;
}

/* ---- the real corpus -------------------------------------------------------------------- */

static void test_pq_assemble__corpus_batches_projection_ranges(void **state)
{
    (void)state;
    pqt_corpus pc;
    if (!pqt_corpus_open(&pc))
        skip();
    int files = 0;
    while (pqt_corpus_next(&pc)) {
        cf_error err;
        cf_parquet *pq;
        CF_ASSERT_OK(cf_parquet_open_file(&pq, pc.path, NULL, &err), &err);
        char *all = NULL, *other = NULL;
        CF_ASSERT_OK(rows_text(pq, NULL, &all, &err), &err);
        /* Lines of `all`. */
        size_t nl = 0;
        for (char *p = all; *p; p++)
            nl += *p == '\n';
        assert_int_equal((int64_t)nl, cf_parquet_num_rows(pq));
        cf_parquet_records_options o;
        const size_t sizes[] = {1, 7};
        for (int k = 0; k < 2; k++) {
            cf_parquet_records_options_init(&o);
            o.batch_rows = sizes[k];
            CF_ASSERT_OK(rows_text(pq, &o, &other, &err), &err);
            if (strcmp(all, other) != 0)
                fail_msg("%s: batches of %zu rows differ", pc.name, sizes[k]);
            free(other);
        }
        /* Rows [n/3, 2n/3) are those lines of the whole. */
        int64_t n = (int64_t)nl, b = n / 3, e = 2 * n / 3;
        cf_parquet_records_options_init(&o);
        o.batch_rows = 5;
        o.row_begin = b;
        o.row_end = e;
        CF_ASSERT_OK(rows_text(pq, &o, &other, &err), &err);
        const char *p = all;
        for (int64_t i = 0; i < b; i++)
            p = strchr(p, '\n') + 1;
        const char *q = p;
        for (int64_t i = b; i < e; i++)
            q = strchr(q, '\n') + 1;
        if (strlen(other) != (size_t)(q - p) || memcmp(other, p, (size_t)(q - p)) != 0)
            fail_msg("%s: rows %lld..%lld differ from the whole", pc.name, (long long)b,
                     (long long)e);
        free(other);
        /* The last field alone: each line's last value. */
        uint32_t nf = cf_parquet_schema_root(pq)->child_count;
        if (nf > 1) {
            uint32_t last = nf - 1;
            cf_parquet_records_options_init(&o);
            o.fields = &last;
            o.field_count = 1;
            CF_ASSERT_OK(rows_text(pq, &o, &other, &err), &err);
            size_t olines = 0;
            for (char *s = other; *s; s++)
                olines += *s == '\n';
            assert_int_equal(olines, nl);
            /* Each projected line "[v]" ends the full line ",v]". */
            const char *fl = all, *ol = other;
            for (size_t i = 0; i < nl; i++) {
                const char *fe = strchr(fl, '\n'), *oe = strchr(ol, '\n');
                size_t vlen = (size_t)(oe - ol) - 2; /* without [ and ] */
                if ((size_t)(fe - fl) < vlen + 2 || memcmp(fe - 1 - vlen, ol + 1, vlen) != 0 ||
                    fe[-2 - (long)vlen] != ',')
                    fail_msg("%s: row %zu: projected '%.*s' is not the end of '%.*s'", pc.name, i,
                             (int)(oe - ol), ol, (int)(fe - fl), fl);
                fl = fe + 1;
                ol = oe + 1;
            }
            free(other);
        }
        free(all);
        cf_parquet_free(pq);
        files++;
    }
    assert_true(files >= 80);
}

/* Pages decoded for rows [b, e) of a corpus file. */
static uint64_t pages_for(const char *name, int64_t b, int64_t e, int64_t *rows)
{
    cf_error err;
    cf_parquet *pq = pqt_corpus_file(name);
    cf_parquet_records_options o;
    cf_parquet_records_options_init(&o);
    o.row_begin = b;
    o.row_end = e;
    cf_parquet_records *r;
    CF_ASSERT_OK(cf_parquet_records_open(&r, pq, &o, &err), &err);
    *rows = 0;
    for (;;) {
        const cf_parquet_array *a;
        CF_ASSERT_OK(cf_parquet_records_next(r, &a, &err), &err);
        if (!a)
            break;
        *rows += (int64_t)a->length;
    }
    uint64_t n = cf_parquet_records_pages_read(r);
    cf_parquet_records_free(r);
    cf_parquet_free(pq);
    return n;
}

/* A row range reads only the pages the offset index says hold its rows. */
static void test_pq_assemble__row_range_reads_few_pages(void **state)
{
    (void)state;
    char probe[2048];
    snprintf(probe, sizeof probe, "%s/parquet/pt_int32_with_null_pages", CF_SHARED_DIR);
    DIR *d = opendir(probe);
    if (!d)
        skip();
    closedir(d);
    int64_t rows;
    /* One column, 1000 rows in 10 pages of 100. */
    uint64_t n = pages_for("pt_int32_with_null_pages", 0, INT64_MAX, &rows);
    assert_int_equal(rows, 1000);
    assert_int_equal(n, 10);
    assert_int_equal(pages_for("pt_int32_with_null_pages", 950, 1000, &rows), 1);
    assert_int_equal(rows, 50);
    assert_int_equal(pages_for("pt_int32_with_null_pages", 450, 460, &rows), 1);
    assert_int_equal(rows, 10);
    assert_int_equal(pages_for("pt_int32_with_null_pages", 390, 410, &rows), 2);
    /* parquet-go wrote value counts, not rows, as first_row_index for its
     * nested columns (the index says row 8456 of 1411): such an index is
     * ignored and the pages are read from the start, still giving the rows. */
    uint64_t all = pages_for("go_issue206", 0, INT64_MAX, &rows);
    assert_int_equal(rows, 1411);
    uint64_t tail = pages_for("go_issue206", 1405, 1411, &rows);
    assert_int_equal(rows, 6);
    assert_true(tail < all);
    /* 20 row groups: rows of the last one read none of the others' pages. */
    all = pages_for("im_customer_multiblock_page_index", 0, INT64_MAX, &rows);
    assert_int_equal(rows, 2000);
    tail = pages_for("im_customer_multiblock_page_index", 1950, 2000, &rows);
    assert_int_equal(rows, 50);
    assert_true(tail * 10 <= all);
}

/* Run the CLI; returns its exit code, stdout in *out (caller frees). */
static int cli(char **out, const char *a1, const char *a2, const char *a3, const char *a4,
               const char *a5, const char *a6)
{
    char *argv[10] = {"cfile",    "parquet",  (char *)a1, (char *)a2, (char *)a3,
                      (char *)a4, (char *)a5, (char *)a6, NULL};
    int argc = 2;
    while (argv[argc])
        argc++;
    size_t ol, el;
    char *errs = NULL;
    FILE *o = open_memstream(out, &ol), *e = open_memstream(&errs, &el);
    int rc = cf_cli_main(argc, argv, o, e);
    fclose(o);
    fclose(e);
    free(errs);
    return rc;
}

static void test_pq_assemble__cli_head_rows_columns(void **state)
{
    (void)state;
    char path[2048];
    pqt_corpus_path("pt_repeated_primitive_no_list", path, sizeof path);
    FILE *f = fopen(path, "rb");
    if (!f)
        skip();
    fclose(f);
    char *out;
    assert_int_equal(cli(&out, "head", "-n", "2", "--columns", "String_list,Int32_list", path), 0);
    assert_string_equal(out, "{\"String_list\":[\"foo\",\"zero\",\"one\",\"two\"],"
                             "\"Int32_list\":[0,1,2,3]}\n"
                             "{\"String_list\":[\"three\"],\"Int32_list\":[]}\n");
    free(out);
    assert_int_equal(cli(&out, "dump", "--rows", "2..", "--columns", "Int32_list", path), 0);
    assert_string_equal(out, "{\"Int32_list\":[4]}\n{\"Int32_list\":[5,6,7,8]}\n");
    free(out);
    assert_int_equal(cli(&out, "dump", "--columns", "nope", path, NULL, NULL), 2);
    free(out);
    assert_int_equal(cli(&out, "dump", "--rows", "3..1", path, NULL, NULL), 2);
    free(out);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pq_assemble__cli_head_rows_columns),
        cmocka_unit_test(test_pq_assemble__row_range_reads_few_pages),
        cmocka_unit_test(test_pq_assemble__three_level_list_arrays),
        cmocka_unit_test(test_pq_assemble__legacy_lists_and_structs),
        cmocka_unit_test(test_pq_assemble__levels_that_do_not_nest),
        cmocka_unit_test(test_pq_assemble__corpus_batches_projection_ranges),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

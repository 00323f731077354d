/* The Parquet writer against our own reader: every Kudu type, nullable or
 * not, scalar or array, through every codec, v1 and v2 pages, dictionary on,
 * off and falling back, small pages and row groups (many of each); the levels
 * and values read back with cf_parquet_column_read are rebuilt into rows and
 * compared with what was written. Also: the footer (types, annotations,
 * statistics in the column's order, page index, bloom filters), XXH64
 * vectors, atomic file creation, and the errors.
 * DuckDB reads the same kind of files in tests/parquet/duckdb_writer.mjs. */
#include "test_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cfile/cfile.h>

#include "parquet/writer.h"
#include "support_pqfile.h"
#include "support_pqgen.h"
#include "util/int128.h"

/* ---- a table of generated columns ---------------------------------------------------- */

typedef pqg_col gcol;
typedef pqg_table gtable;

static bool getbit(const uint8_t *bm, size_t i)
{
    return bm == NULL || (bm[i >> 3] >> (i & 7)) & 1;
}

/* Every type, scalar nullable and not, plus arrays of some. */
static void all_types(gtable *t)
{
    static const struct {
        const char *name;
        cf_type ty;
    } types[] = {
        {"i8", CF_TYPE_INT8},
        {"i16", CF_TYPE_INT16},
        {"i32", CF_TYPE_INT32},
        {"i64", CF_TYPE_INT64},
        {"u8", CF_TYPE_UINT8},
        {"u16", CF_TYPE_UINT16},
        {"u32", CF_TYPE_UINT32},
        {"u64", CF_TYPE_UINT64},
        {"f", CF_TYPE_FLOAT},
        {"d", CF_TYPE_DOUBLE},
        {"b", CF_TYPE_BOOL},
        {"s", CF_TYPE_STRING},
        {"vc", CF_TYPE_VARCHAR},
        {"bin", CF_TYPE_BINARY},
        {"ts", CF_TYPE_UNIXTIME_MICROS},
        {"date", CF_TYPE_DATE},
        {"dec32", CF_TYPE_DECIMAL32},
        {"dec64", CF_TYPE_DECIMAL64},
        {"dec128", CF_TYPE_DECIMAL128},
        {"cf_i128", CF_TYPE_INT128},
    };
    static char names[3][20][24];
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < 20; i++) {
        snprintf(names[0][i], 24, "%s", types[i].name);
        snprintf(names[1][i], 24, "%s_n", types[i].name);
        /* high cardinality for every other type: those chunks fall back to PLAIN */
        int card = i % 2 ? 100000 : 40;
        pqg_add_col(t, names[0][i], types[i].ty, false, false, card, true);
        pqg_add_col(t, names[1][i], types[i].ty, true, false, card, true);
    }
    static const cf_type arr[] = {CF_TYPE_INT32, CF_TYPE_STRING, CF_TYPE_DOUBLE,
                                  CF_TYPE_DECIMAL128};
    for (size_t i = 0; i < 4; i++) {
        snprintf(names[2][i], 24, "arr%zu", i);
        snprintf(names[2][4 + i], 24, "arr%zu_n", i);
        pqg_add_col(t, names[2][i], arr[i], false, true, 300, true);
        pqg_add_col(t, names[2][4 + i], arr[i], true, true, 300, true);
    }
}

/* Finish w (writing into the memory file io) and open the file for reading
 * through *rio. */
static cf_parquet *finish_open(cf_parquet_writer *w, cf_io *io, cf_io **rio)
{
    cf_error err;
    CF_ASSERT_OK(cf_parquet_writer_finish(w, &err), &err);
    cf_slice f = cf_io_mem_contents(io);
    CF_ASSERT_OK(cf_io_open_mem(rio, f.data, f.len, &err), &err);
    cf_parquet *pq;
    CF_ASSERT_OK(cf_parquet_open(&pq, *rio, NULL, &err), &err);
    return pq;
}

/* ---- writing --------------------------------------------------------------------------- */

/* hold: no chunk streamed (cf_pq_writer_hold_chunks); first_bytes, when not
 * NULL: the file's size after the first batch. */
static uint8_t *write_table_x(const gtable *t, const cf_parquet_writer_options *o, size_t batch,
                              size_t *len, bool hold, uint64_t *first_bytes)
{
    cf_error err;
    cf_io *io;
    cf_parquet_writer *w;
    CF_ASSERT_OK(pqg_writer(&w, &io, t, o, &err), &err);
    if (hold)
        cf_pq_writer_hold_chunks(w);
    cf_batch b[PQG_MAX_COLS];
    for (size_t r = 0; r < t->rows; r += batch) {
        size_t n = t->rows - r < batch ? t->rows - r : batch;
        for (size_t c = 0; c < t->ncols; c++) {
            pqg_slice(&t->c[c], r, n, &b[c]);
            if (!t->c[c].spec.nullable) { /* no row bitmap where there are no nulls */
                free((void *)b[c].nonnull);
                b[c].nonnull = NULL;
            }
        }
        CF_ASSERT_OK(cf_parquet_writer_append(w, b, n, &err), &err);
        if (first_bytes && r == 0)
            *first_bytes = cf_parquet_writer_bytes(w);
        for (size_t c = 0; c < t->ncols; c++)
            pqg_slice_free(&b[c]);
    }
    assert_int_equal(cf_parquet_writer_rows(w), t->rows);
    return pqg_finish(w, io, len);
}

static uint8_t *write_table(const gtable *t, const cf_parquet_writer_options *o, size_t batch,
                            size_t *len)
{
    return write_table_x(t, o, batch, len, false, NULL);
}

/* ---- reading back ---------------------------------------------------------------------- */

/* The PLAIN bytes a Kudu value becomes (the reader's value form). */
static size_t expect_plain(cf_type ty, const uint8_t *src, uint8_t out[16], const uint8_t **p)
{
    int32_t v = 0;
    *p = out;
    switch (ty) {
    case CF_TYPE_INT8: v = (int8_t)src[0]; break;
    case CF_TYPE_UINT8: v = src[0]; break;
    case CF_TYPE_INT16: {
        int16_t x;
        memcpy(&x, src, 2);
        v = x;
        break;
    }
    case CF_TYPE_UINT16: {
        uint16_t x;
        memcpy(&x, src, 2);
        v = x;
        break;
    }
    case CF_TYPE_BOOL: out[0] = src[0]; return 1;
    case CF_TYPE_INT128:
    case CF_TYPE_DECIMAL128:
        for (int i = 0; i < 16; i++)
            out[i] = src[15 - i];
        return 16;
    case CF_TYPE_STRING:
    case CF_TYPE_VARCHAR:
    case CF_TYPE_BINARY: {
        cf_slice s;
        memcpy(&s, src, sizeof s);
        *p = s.data;
        return s.len;
    }
    default: *p = src; return cf_type_size(ty);
    }
    memcpy(out, &v, 4);
    return 4;
}

typedef struct readback {
    uint16_t *def, *rep;
    uint8_t *vals; /* value_size each; BYTE_ARRAY: copied bytes, see strs */
    size_t nlev, nval, vsize;
    cf_slice *strs;
    uint8_t *strbytes;
    size_t strlen_used;
} readback;

static void read_column(const uint8_t *file, size_t len, uint32_t col, readback *rb,
                        size_t *pages_seen)
{
    cf_error err;
    cf_io *io;
    CF_ASSERT_OK(cf_io_open_mem(&io, file, len, &err), &err);
    cf_parquet *pq;
    CF_ASSERT_OK(cf_parquet_open(&pq, io, NULL, &err), &err);
    const cf_parquet_file_meta *m = cf_parquet_meta(pq);
    size_t cap = 1 << 16;
    memset(rb, 0, sizeof *rb);
    rb->def = malloc(cap * 2);
    rb->rep = malloc(cap * 2);
    for (uint32_t g = 0; g < m->row_group_count; g++) {
        /* every page passes the CRC check */
        cf_parquet_pages *pi;
        CF_ASSERT_OK(cf_parquet_pages_open(&pi, pq, g, col, NULL, &err), &err);
        for (;;) {
            cf_parquet_page pg;
            if (!pqt_next_page(pi, &pg))
                break;
            assert_true(pg.has_crc);
            if (pages_seen)
                (*pages_seen)++;
        }
        cf_parquet_pages_free(pi);

        cf_parquet_column_reader *cr;
        CF_ASSERT_OK(cf_parquet_column_open(&cr, pq, g, col, &err), &err);
        rb->vsize = cf_parquet_column_value_size(cr);
        if (rb->vals == NULL) {
            rb->vals = malloc(cap * rb->vsize);
            rb->strbytes = malloc(cap * 160);
        }
        for (;;) {
            size_t nl, nv;
            if (rb->nlev + 4096 > cap) {
                cap *= 2;
                rb->def = realloc(rb->def, cap * 2);
                rb->rep = realloc(rb->rep, cap * 2);
                rb->vals = realloc(rb->vals, cap * rb->vsize);
                rb->strbytes = realloc(rb->strbytes, cap * 160);
            }
            CF_ASSERT_OK(cf_parquet_column_read(cr, 4096, rb->def + rb->nlev, rb->rep + rb->nlev,
                                                rb->vals + rb->nval * rb->vsize, &nl, &nv, &err),
                         &err);
            if (nl == 0)
                break;
            if (cf_parquet_column_at(pq, col)->type == CF_PARQUET_BYTE_ARRAY) {
                /* slices live until the next call: copy their bytes (offsets for now) */
                cf_slice *s = (cf_slice *)(void *)(rb->vals + rb->nval * rb->vsize);
                for (size_t i = 0; i < nv; i++) {
                    memcpy(rb->strbytes + rb->strlen_used, s[i].data, s[i].len);
                    s[i].data = (const uint8_t *)(uintptr_t)rb->strlen_used;
                    rb->strlen_used += s[i].len;
                }
            }
            rb->nlev += nl;
            rb->nval += nv;
        }
        cf_parquet_column_free(cr);
    }
    cf_parquet_free(pq);
    cf_io_free(io);
}

static void value_check(const gcol *g, const readback *rb, size_t vi, const uint8_t *src,
                        size_t row)
{
    uint8_t tmp[16];
    const uint8_t *p;
    size_t n = expect_plain(g->spec.type, src, tmp, &p);
    assert_true(vi < rb->nval);
    if (cf_type_is_binary(g->spec.type)) {
        cf_slice s;
        memcpy(&s, rb->vals + vi * rb->vsize, sizeof s);
        if (s.len != n || (n && memcmp(rb->strbytes + (uintptr_t)s.data, p, n) != 0))
            fail_msg("column %s row %zu: string differs", g->spec.name, row);
    } else if (memcmp(rb->vals + vi * rb->vsize, p, n) != 0) {
        fail_msg("column %s row %zu: value differs", g->spec.name, row);
    }
}

/* Rebuild rows from levels and compare with the source. */
static void check_column(const gtable *t, size_t c, const readback *rb)
{
    const gcol *g = &t->c[c];
    size_t li = 0, vi = 0;
    uint16_t md = g->spec.is_array ? (g->spec.nullable ? 3 : 2) : (g->spec.nullable ? 1 : 0);
    for (size_t r = 0; r < t->rows; r++) {
        assert_true(li < rb->nlev);
        bool present = getbit(g->nonnull, r);
        if (!g->spec.is_array) {
            if (md)
                assert_int_equal(rb->def[li], present ? 1 : 0);
            if (present)
                value_check(g, rb, vi++, g->values + r * g->width, r);
            li++;
            continue;
        }
        assert_int_equal(rb->rep[li], 0);
        if (!present) {
            assert_int_equal(rb->def[li++], 0);
            continue;
        }
        uint32_t a = g->offsets[r], e = g->offsets[r + 1];
        if (a == e) {
            assert_int_equal(rb->def[li++], md - 2);
            continue;
        }
        for (uint32_t j = a; j < e; j++, li++) {
            assert_int_equal(rb->rep[li], j == a ? 0 : 1);
            if (!getbit(g->elem_nonnull, j)) {
                assert_int_equal(rb->def[li], md - 1);
            } else {
                assert_int_equal(rb->def[li], md);
                value_check(g, rb, vi++, g->values + (size_t)j * g->width, r);
            }
        }
    }
    assert_int_equal(li, rb->nlev);
    assert_int_equal(vi, rb->nval);
}

static void readback_free(readback *rb)
{
    free(rb->def);
    free(rb->rep);
    free(rb->vals);
    free(rb->strbytes);
}

static void check_file(const gtable *t, const uint8_t *file, size_t len, size_t *pages)
{
    for (size_t c = 0; c < t->ncols; c++) {
        readback rb;
        read_column(file, len, (uint32_t)c, &rb, pages);
        check_column(t, c, &rb);
        readback_free(&rb);
    }
}

/* ---- tests ------------------------------------------------------------------------------- */

static void test_pq_writer__round_trip_matrix(void **state)
{
    (void)state;
    gtable t;
    all_types(&t);
    pqg_gen(&t, 3000, cf_test_seed(15));
    static const int32_t codecs[] = {CF_PARQUET_UNCOMPRESSED, CF_PARQUET_SNAPPY, CF_PARQUET_GZIP,
                                     CF_PARQUET_LZ4_RAW,      CF_PARQUET_ZSTD,   CF_PARQUET_BROTLI};
    for (size_t k = 0; k < 6; k++) {
        for (int v2 = 0; v2 < 2; v2++) {
            for (int dict = 0; dict < 2; dict++) {
                cf_parquet_writer_options o;
                cf_parquet_writer_options_init(&o);
                o.codec = codecs[k];
                o.data_page_v2 = v2;
                o.dictionary = dict;
                o.row_group_rows = 1100; /* three row groups */
                o.page_rows = 300;
                o.page_bytes = 2048;
                o.dict_page_bytes = 4096; /* high-cardinality columns fall back */
                size_t len, pages = 0;
                uint8_t *f = write_table(&t, &o, 700, &len);
                check_file(&t, f, len, &pages);
                assert_true(pages > t.ncols * 3 * 2);
                free(f);
            }
        }
    }
    pqg_free(&t);
}

/* Dictionary encoding: low-cardinality chunks have a dictionary page and only
 * RLE_DICTIONARY data pages; high-cardinality ones fall back to PLAIN after it. */
static void test_pq_writer__dictionary_fallback(void **state)
{
    (void)state;
    gtable t;
    memset(&t, 0, sizeof t);
    pqg_add_col(&t, "low", CF_TYPE_STRING, false, false, 10, true);
    pqg_add_col(&t, "high", CF_TYPE_INT64, false, false, 1 << 30, true);
    pqg_gen(&t, 5000, 7);
    cf_parquet_writer_options o;
    cf_parquet_writer_options_init(&o);
    o.dict_page_bytes = 1024;
    o.page_rows = 500;
    size_t len;
    uint8_t *f = write_table(&t, &o, 5000, &len);
    check_file(&t, f, len, NULL);
    cf_io *io;
    cf_parquet *pq = pqt_open_mem(f, len, &io);
    cf_error err;
    const cf_parquet_file_meta *m = cf_parquet_meta(pq);
    assert_int_equal(m->row_group_count, 1);
    for (uint32_t c = 0; c < 2; c++) {
        const cf_parquet_column_meta *cm = &m->row_groups[0].columns[c].meta;
        assert_true(cm->has_dictionary_page_offset);
        cf_parquet_pages *pi;
        CF_ASSERT_OK(cf_parquet_pages_open(&pi, pq, 0, c, NULL, &err), &err);
        unsigned dict_pages = 0, rle = 0, plain = 0;
        for (;;) {
            cf_parquet_page pg;
            if (!pqt_next_page(pi, &pg))
                break;
            if (pg.type == CF_PARQUET_DICTIONARY_PAGE)
                dict_pages++;
            else if (pg.encoding == CF_PARQUET_RLE_DICTIONARY)
                rle++;
            else if (pg.encoding == CF_PARQUET_PLAIN) {
                assert_true(rle > 0); /* plain only after the dictionary pages */
                plain++;
            }
        }
        cf_parquet_pages_free(pi);
        assert_int_equal(dict_pages, 1);
        if (c == 0) {
            assert_int_equal(plain, 0);
            assert_true(rle >= 10);
        } else {
            assert_true(rle >= 1);
            assert_true(plain >= 5);
        }
    }
    cf_parquet_free(pq);
    cf_io_free(io);
    free(f);
    pqg_free(&t);
}

/* Every row group starts at its first chunk's first page (file_offset), its
 * chunks follow each other in column order, and the row groups each other. */
static void chunk_layout(const uint8_t *f, size_t len)
{
    cf_io *io;
    cf_parquet *pq = pqt_open_mem(f, len, &io);
    const cf_parquet_file_meta *m = cf_parquet_meta(pq);
    int64_t at = 4;
    for (uint32_t g = 0; g < m->row_group_count; g++) {
        const cf_parquet_row_group *rg = &m->row_groups[g];
        assert_true(rg->has_file_offset);
        if (g == 0)
            assert_int_equal(rg->file_offset, 4);
        else
            assert_true(rg->file_offset >= at); /* bloom filters sit between */
        at = rg->file_offset;
        for (uint32_t c = 0; c < rg->column_count; c++) {
            const cf_parquet_column_meta *cm = &rg->columns[c].meta;
            int64_t start =
                cm->has_dictionary_page_offset ? cm->dictionary_page_offset : cm->data_page_offset;
            assert_int_equal(start, at);
            at += cm->total_compressed_size;
        }
    }
    cf_parquet_free(pq);
    cf_io_free(io);
}

/* The first column writes its pages as they close once its dictionary is
 * settled (none, or given up): the file holds the bytes it would have had
 * with every chunk held to the end of its row group, whatever the codec, page
 * version, dictionary, fallback, and number of pages and row groups; the pages
 * do reach the file before their row group ends. */
static void test_pq_writer__streamed_same_bytes(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        cf_type ty;
        bool nullable, array;
        int card;
    } cols[] = {
        {"i64", CF_TYPE_INT64, false, false, 1 << 30}, /* falls back */
        {"s", CF_TYPE_STRING, true, false, 1 << 30},   /* falls back, nullable */
        {"d", CF_TYPE_DOUBLE, true, false, 40},        /* keeps its dictionary */
        {"b", CF_TYPE_BOOL, true, false, 2},           /* never a dictionary */
        {"l", CF_TYPE_INT32, true, true, 1 << 30},     /* levels, falls back */
        {"x", CF_TYPE_DECIMAL128, false, false, 1 << 30},
    };
    static const int32_t codecs[] = {CF_PARQUET_UNCOMPRESSED, CF_PARQUET_SNAPPY,
                                     CF_PARQUET_GZIP,         CF_PARQUET_ZSTD,
                                     CF_PARQUET_LZ4_RAW,      CF_PARQUET_BROTLI};
    const size_t nc = sizeof cols / sizeof cols[0];
    for (size_t first = 0; first <= nc; first++) { /* nc: every column, first i64 */
        gtable t;
        memset(&t, 0, sizeof t);
        for (size_t i = 0; i < nc; i++)
            if (first == nc || i == first)
                pqg_add_col(&t, cols[i].name, cols[i].ty, cols[i].nullable, cols[i].array,
                            cols[i].card, true);
        for (size_t i = 0; i < t.ncols; i++)
            t.c[i].spec.bloom_filter = i % 2 == 0;
        pqg_gen(&t, 6000, cf_test_seed(31) + first);
        for (size_t k = 0; k < 6; k++) {
            for (int variant = 0; variant < 4; variant++) {
                cf_parquet_writer_options o;
                cf_parquet_writer_options_init(&o);
                o.codec = codecs[k];
                o.page_rows = 400;
                o.dict_page_bytes = 2048;
                /* one thread: a file of one column on several builds pages
                 * behind its encoding, 2 x threads at a time (writer.c), so
                 * what the first batch streams is one thread's question;
                 * test_pq_write_threads compares the threads' bytes */
                o.threads = 1;
                if (variant == 1) {
                    o.data_page_v2 = true;
                    o.row_group_rows = 1300; /* several row groups */
                } else if (variant == 2) {
                    o.dictionary = false;
                    o.row_group_bytes = 9000; /* row groups ended by their size */
                    o.page_crc = false;
                } else if (variant == 3) {
                    o.page_bytes = 700;
                    o.page_index = false;
                    o.statistics = false;
                }
                size_t len, hlen;
                uint64_t first_bytes = 0, hold_first = 0;
                uint8_t *f = write_table_x(&t, &o, 1000, &len, false, &first_bytes);
                uint8_t *h = write_table_x(&t, &o, 1000, &hlen, true, &hold_first);
                CF_ASSERT_BYTES(f, len, h, hlen);
                if (o.row_group_bytes > 9000) {      /* the first batch ends no row group */
                    assert_int_equal(hold_first, 4); /* held: nothing but the magic */
                    /* streamed: 1000 rows fill pages of 400 rows, which the first
                     * column writes unless it still builds a dictionary */
                    bool settles = o.dictionary == false || t.c[0].spec.type == CF_TYPE_BOOL ||
                                   (t.c[0].card > 1000 && !t.c[0].spec.is_array);
                    if (settles)
                        assert_true(first_bytes > 4);
                }
                chunk_layout(f, len);
                if ((k == 1 || k == 3) && o.page_crc) /* check_file wants CRCs */
                    check_file(&t, f, len, NULL);
                free(f);
                free(h);
            }
        }
        pqg_free(&t);
    }
}

static int64_t ld64(cf_slice s)
{
    int64_t v;
    assert_int_equal(s.len, 8);
    memcpy(&v, s.data, 8);
    return v;
}
static int32_t ld32(cf_slice s)
{
    int32_t v;
    assert_int_equal(s.len, 4);
    memcpy(&v, s.data, 4);
    return v;
}

/* Schema, annotations, statistics (signed and unsigned order, -0.0), page index. */
static void test_pq_writer__footer(void **state)
{
    (void)state;
    cf_parquet_write_column cols[] = {
        {.name = "u64", .type = CF_TYPE_UINT64},
        {.name = "i32", .type = CF_TYPE_INT32, .nullable = true},
        {.name = "u8", .type = CF_TYPE_UINT8},
        {.name = "ts", .type = CF_TYPE_UNIXTIME_MICROS},
        {.name = "dec", .type = CF_TYPE_DECIMAL64, .precision = 12, .scale = 3},
        {.name = "s", .type = CF_TYPE_STRING, .is_array = true, .nullable = true},
        {.name = "f", .type = CF_TYPE_FLOAT},
    };
    uint64_t u64[4] = {1, UINT64_MAX, 5, 1ULL << 63};
    int32_t i32[4] = {-5, 0, 7, 3};
    uint8_t i32nn = 0x0b; /* row 2 NULL */
    uint8_t u8[4] = {200, 1, 255, 3};
    int64_t ts[4] = {0, 1, 2, 3};
    int64_t dec[4] = {-12345, 1, 2, 99999};
    const char *sv[] = {"b", "a", "zz"};
    cf_slice ss[3];
    for (int i = 0; i < 3; i++) {
        ss[i].data = (const uint8_t *)sv[i];
        ss[i].len = strlen(sv[i]);
    }
    uint32_t soff[5] = {0, 2, 2, 3, 3};
    uint8_t snn = 0x07; /* row 3 NULL list, row 1 empty list */
    float fv[4] = {0.0f, 1.5f, NAN, -2.0f};
    fv[0] = 0.0f;
    cf_batch b[7];
    pqg_batches(b, 7, (const void *const[]){u64, i32, u8, ts, dec, ss, fv});
    b[1].nonnull = &i32nn;
    b[5].nonnull = &snn;
    b[5].elem_offsets = soff;
    b[5].elem_count = 3;
    cf_error err;
    cf_io *io;
    CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
    cf_parquet_writer_options o;
    cf_parquet_writer_options_init(&o);
    cf_metadata_pair kv = {{(const uint8_t *)"k", 1}, {(const uint8_t *)"v", 1}};
    o.kv = &kv;
    o.kv_count = 1;
    cf_parquet_writer *w;
    CF_ASSERT_OK(cf_parquet_writer_create(&w, io, cols, 7, &o, &err), &err);
    CF_ASSERT_OK(cf_parquet_writer_append(w, b, 4, &err), &err);
    cf_io *rio;
    cf_parquet *pq = finish_open(w, io, &rio);
    cf_parquet_writer_free(w);
    const cf_parquet_file_meta *m = cf_parquet_meta(pq);
    assert_int_equal(m->num_rows, 4);
    assert_true(m->has_created_by);
    char cb[64];
    snprintf(cb, sizeof cb, "cfile version %d.%d.%d", CF_VERSION_MAJOR, CF_VERSION_MINOR,
             CF_VERSION_PATCH);
    CF_ASSERT_BYTES(m->created_by.data, m->created_by.len, cb, strlen(cb));
    assert_int_equal(m->kv_count, 1);
    assert_int_equal(m->column_order_count, 7);
    assert_int_equal(cf_parquet_column_count(pq), 7);
    char lt[64];
    const cf_parquet_column *c0 = cf_parquet_column_at(pq, 0);
    assert_string_equal(cf_parquet_logical_str(&c0->leaf->logical, lt, sizeof lt), "INT(64,false)");
    assert_int_equal(c0->leaf->repetition, CF_PARQUET_REQUIRED);
    const cf_parquet_column *c1 = cf_parquet_column_at(pq, 1);
    assert_int_equal(c1->leaf->repetition, CF_PARQUET_OPTIONAL);
    assert_string_equal(
        cf_parquet_logical_str(&cf_parquet_column_at(pq, 3)->leaf->logical, lt, sizeof lt),
        "TIMESTAMP(MICROS,true)");
    assert_string_equal(
        cf_parquet_logical_str(&cf_parquet_column_at(pq, 4)->leaf->logical, lt, sizeof lt),
        "DECIMAL(12,3)");
    const cf_parquet_column *c5 = cf_parquet_column_at(pq, 5);
    assert_int_equal(c5->path_len, 3);
    assert_int_equal(c5->max_def, 3);
    assert_int_equal(c5->max_rep, 1);
    assert_string_equal(cf_parquet_logical_str(&c5->leaf->parent->parent->logical, lt, sizeof lt),
                        "LIST");

    const cf_parquet_column_chunk *ch = m->row_groups[0].columns;
    /* unsigned order: min 1, max 2^64-1 */
    assert_true(ch[0].meta.statistics.has_min_value);
    assert_int_equal((uint64_t)ld64(ch[0].meta.statistics.min_value), 1);
    assert_int_equal((uint64_t)ld64(ch[0].meta.statistics.max_value), UINT64_MAX);
    assert_int_equal(ld32(ch[1].meta.statistics.min_value), -5);
    assert_int_equal(ld32(ch[1].meta.statistics.max_value), 3);
    assert_int_equal(ch[1].meta.statistics.null_count, 1);
    assert_int_equal(ld32(ch[2].meta.statistics.min_value), 1);
    assert_int_equal(ld32(ch[2].meta.statistics.max_value), 255);
    CF_ASSERT_BYTES(ch[5].meta.statistics.min_value.data, ch[5].meta.statistics.min_value.len, "a",
                    1);
    CF_ASSERT_BYTES(ch[5].meta.statistics.max_value.data, ch[5].meta.statistics.max_value.len, "zz",
                    2);
    assert_int_equal(ch[5].meta.statistics.null_count, 2); /* the NULL and the empty list */
    /* floats: NaN ignored, max 1.5, min -2 */
    float fmin, fmax;
    memcpy(&fmin, ch[6].meta.statistics.min_value.data, 4);
    memcpy(&fmax, ch[6].meta.statistics.max_value.data, 4);
    assert_true(fmin == -2.0f && fmax == 1.5f);

    /* page index of every chunk */
    for (uint32_t c = 0; c < 7; c++) {
        cf_parquet_page_index *pi;
        CF_ASSERT_OK(cf_parquet_page_index_read(&pi, pq, 0, c, &err), &err);
        const cf_parquet_offset_index *oi = cf_parquet_page_index_offsets(pi);
        const cf_parquet_column_index *ci = cf_parquet_page_index_columns(pi);
        assert_non_null(oi);
        assert_non_null(ci);
        assert_int_equal(oi->page_count, 1);
        assert_int_equal(oi->pages[0].first_row_index, 0);
        assert_int_equal(ci->page_count, 1);
        assert_false(ci->null_pages[0]);
        if (c == 1)
            assert_int_equal(ci->null_counts[0], 1);
        cf_parquet_page_index_free(pi);
    }
    cf_parquet_free(pq);
    cf_io_free(rio);
    cf_io_free(io);
}

/* Float statistics: a min of +0 is written as -0, a max of -0 as +0. */
static void test_pq_writer__zero_bounds(void **state)
{
    (void)state;
    uint8_t mn[8], mx[8];
    double a = 0.0, b = -0.0;
    memcpy(mn, &a, 8);
    memcpy(mx, &b, 8);
    cf_pq_minmax_fix_zero(CF_PQS_DOUBLE, mn, mx);
    memcpy(&a, mn, 8);
    memcpy(&b, mx, 8);
    assert_true(signbit(a));
    assert_false(signbit(b));
    /* DECIMAL on FLBA: big-endian two's complement, -1 < 1 */
    uint8_t m1[16], p1[16];
    memset(m1, 0xff, 16);
    memset(p1, 0, 16);
    p1[15] = 1;
    assert_true(cf_pq_wcol_cmp(CF_PQS_DECIMAL_BE, m1, 16, p1, 16) < 0);
    assert_true(cf_pq_wcol_cmp(CF_PQS_BYTES, m1, 16, p1, 16) > 0);
    uint8_t u1[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, u2[8] = {1};
    assert_true(cf_pq_wcol_cmp(CF_PQS_U64, u1, 8, u2, 8) > 0);
    assert_true(cf_pq_wcol_cmp(CF_PQS_I64, u1, 8, u2, 8) < 0);
}

static void test_pq_writer__xxh64(void **state)
{
    (void)state;
    assert_int_equal(cf_parquet_xxh64("", 0, 0), 0xEF46DB3751D8E999ULL);
    assert_int_equal(cf_parquet_xxh64("a", 1, 0), 0xD24EC4F1A98C6E5BULL);
    assert_int_equal(cf_parquet_xxh64("abc", 3, 0), 0x44BC2CF5AD770999ULL);
    /* the bloom filter keeps what went in */
    uint8_t bits[1024];
    memset(bits, 0, sizeof bits);
    for (uint64_t i = 0; i < 300; i++)
        cf_pq_bloom_insert(bits, sizeof bits, cf_parquet_xxh64(&i, 8, 0));
    unsigned fp = 0;
    for (uint64_t i = 0; i < 300; i++)
        assert_true(cf_pq_bloom_check(bits, sizeof bits, cf_parquet_xxh64(&i, 8, 0)));
    for (uint64_t i = 1000; i < 11000; i++)
        fp += cf_pq_bloom_check(bits, sizeof bits, cf_parquet_xxh64(&i, 8, 0));
    assert_true(fp < 500);
    assert_int_equal(cf_pq_bloom_bytes(0, 0.01), 32);
    assert_true(cf_pq_bloom_bytes(1000000, 0.01) >= 1000000);
    assert_int_equal(cf_pq_bloom_bytes(UINT64_C(1) << 40, 0.01), CF_PQ_BLOOM_MAX_BYTES);
}

/* The file appears only at finish; free without finish leaves nothing. */
static void test_pq_writer__atomic_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/cf_pqw_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/out.parquet", dir);
    cf_parquet_write_column col = {.name = "x", .type = CF_TYPE_INT32};
    int32_t v[3] = {1, 2, 3};
    cf_batch b = {.values = v};
    cf_error err;
    cf_parquet_writer *w;
    CF_ASSERT_OK(cf_parquet_writer_create_file(&w, path, &col, 1, NULL, &err), &err);
    CF_ASSERT_OK(cf_parquet_writer_append(w, &b, 3, &err), &err);
    assert_int_not_equal(access(path, F_OK), 0);
    cf_parquet_writer_free(w); /* abandoned */
    assert_int_not_equal(access(path, F_OK), 0);
    CF_ASSERT_OK(cf_parquet_writer_create_file(&w, path, &col, 1, NULL, &err), &err);
    CF_ASSERT_OK(cf_parquet_writer_append(w, &b, 3, &err), &err);
    CF_ASSERT_OK(cf_parquet_writer_finish(w, &err), &err);
    cf_parquet_writer_free(w);
    cf_parquet *pq;
    CF_ASSERT_OK(cf_parquet_open_file(&pq, path, NULL, &err), &err);
    assert_int_equal(cf_parquet_num_rows(pq), 3);
    cf_parquet_free(pq);
    /* only out.parquet in the directory: no temporary left */
    char cmd[300];
    snprintf(cmd, sizeof cmd, "test \"$(ls -A %s)\" = out.parquet", dir);
    assert_int_equal(system(cmd), 0);
    unlink(path);
    rmdir(dir);
}

static void test_pq_writer__errors(void **state)
{
    (void)state;
    cf_error err;
    cf_io *io;
    CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
    cf_parquet_writer *w;
    cf_parquet_write_column dup[2] = {{.name = "a", .type = CF_TYPE_INT32},
                                      {.name = "a", .type = CF_TYPE_INT64}};
    CF_ASSERT_STATUS(cf_parquet_writer_create(&w, io, dup, 2, NULL, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "two columns named a"));
    cf_parquet_write_column bad = {.name = "d", .type = CF_TYPE_DECIMAL32, .precision = 10};
    CF_ASSERT_STATUS(cf_parquet_writer_create(&w, io, &bad, 1, NULL, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "precision 10"));
    cf_parquet_write_column noname = {.name = "", .type = CF_TYPE_INT32};
    CF_ASSERT_STATUS(cf_parquet_writer_create(&w, io, &noname, 1, NULL, &err), CF_EINVAL, &err);
    cf_parquet_writer_options o;
    cf_parquet_writer_options_init(&o);
    o.codec = CF_PARQUET_LZO;
    cf_parquet_write_column ok = {.name = "x", .type = CF_TYPE_INT32};
    CF_ASSERT_STATUS(cf_parquet_writer_create(&w, io, &ok, 1, &o, &err), CF_EINVAL, &err);
    cf_parquet_writer_options_init(&o);
    o.page_rows = 0;
    CF_ASSERT_STATUS(cf_parquet_writer_create(&w, io, &ok, 1, &o, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "page_rows"));

    /* a NULL in a REQUIRED column is refused, and the failure is sticky */
    CF_ASSERT_OK(cf_parquet_writer_create(&w, io, &ok, 1, NULL, &err), &err);
    int32_t v[2] = {1, 0};
    uint8_t nn = 0x1;
    cf_batch b = {.values = v, .nonnull = &nn};
    CF_ASSERT_STATUS(cf_parquet_writer_append(w, &b, 2, &err), CF_EINVAL, &err);
    assert_non_null(strstr(err.msg, "row 1 is NULL"));
    assert_int_equal(cf_parquet_writer_error_row(w), 1);
    const cf_error first = err;
    b.nonnull = NULL;
    CF_ASSERT_REPLAYED(cf_parquet_writer_append(w, &b, 2, &err), CF_EINVAL, &err, "parquet writer",
                       &first);
    CF_ASSERT_REPLAYED(cf_parquet_writer_finish(w, &err), CF_EINVAL, &err, "parquet writer",
                       &first);
    cf_parquet_writer_free(w);
    cf_io_free(io);
}

/* Parquet's STRING is UTF-8: other bytes are refused, naming the row, unless the
 * column is written as binary (no STRING annotation). */
static void test_pq_writer__utf8(void **state)
{
    (void)state;
    cf_slice v[3] = {{(const uint8_t *)"ok", 2},
                     {(const uint8_t *)"\xc3\xa9", 2},
                     {(const uint8_t *)"\xff\x00", 2}};
    cf_batch b = {.values = v};
    cf_parquet_write_column col = {.name = "s", .type = CF_TYPE_STRING};
    for (int k = 0; k < 4; k++) { /* checked as a new dictionary entry, or each PLAIN value */
        int binary = k % 2;
        col.binary = binary;
        cf_parquet_writer_options o;
        cf_parquet_writer_options_init(&o);
        o.dictionary = k < 2;
        cf_error err;
        cf_io *io;
        CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
        cf_parquet_writer *w;
        CF_ASSERT_OK(cf_parquet_writer_create(&w, io, &col, 1, &o, &err), &err);
        if (!binary) {
            CF_ASSERT_OK(cf_parquet_writer_append(w, &b, 2, &err), &err);
            CF_ASSERT_STATUS(cf_parquet_writer_append(w, &b, 3, &err), CF_EINVAL, &err);
            assert_non_null(strstr(err.msg, "row 4: the value is not UTF-8"));
            assert_int_equal(cf_parquet_writer_error_row(w), 4);
        } else {
            CF_ASSERT_OK(cf_parquet_writer_append(w, &b, 3, &err), &err);
            cf_io *rio;
            cf_parquet *pq = finish_open(w, io, &rio);
            assert_int_equal(cf_parquet_column_at(pq, 0)->leaf->logical.kind, CF_PARQUET_LT_NONE);
            cf_parquet_free(pq);
            cf_io_free(rio);
        }
        cf_parquet_writer_free(w);
        cf_io_free(io);
    }
}

/* Zero rows: a valid file with no row group. */
static void test_pq_writer__empty(void **state)
{
    (void)state;
    gtable t;
    all_types(&t);
    pqg_gen(&t, 0, 1);
    size_t len;
    uint8_t *f = write_table(&t, NULL, 10, &len);
    cf_io *io;
    cf_parquet *pq = pqt_open_mem(f, len, &io);
    assert_int_equal(cf_parquet_meta(pq)->row_group_count, 0);
    assert_int_equal(cf_parquet_column_count(pq), t.ncols);
    cf_parquet_free(pq);
    cf_io_free(io);
    free(f);
    pqg_free(&t);
}

/* ---- the 4/8-byte fast path's statistics -------------------------------------------- */

#define FS_ROWS 5000
#define FS_PAGE 700

/* -1, 0, 1: a against b in the column's order (a and b not NaN). */
#define FS_CMP_AS(ctype)                                                                           \
    {                                                                                              \
        ctype x, y;                                                                                \
        memcpy(&x, a, sizeof(x)), memcpy(&y, b, sizeof(y));                                        \
        return (x > y) - (x < y);                                                                  \
    }
static int fs_cmp(cf_type t, const uint8_t *a, const uint8_t *b)
{
    switch (t) {
    case CF_TYPE_FLOAT: FS_CMP_AS(float)
    case CF_TYPE_DOUBLE: FS_CMP_AS(double)
    case CF_TYPE_INT32: FS_CMP_AS(int32_t)
    case CF_TYPE_UINT32: FS_CMP_AS(uint32_t)
    case CF_TYPE_INT64: FS_CMP_AS(int64_t)
    default: FS_CMP_AS(uint64_t)
    }
}
#undef FS_CMP_AS

static bool fs_nan(cf_type t, const uint8_t *p)
{
    if (t == CF_TYPE_FLOAT) {
        float f;
        memcpy(&f, p, 4);
        return isnan(f);
    }
    if (t == CF_TYPE_DOUBLE) {
        double d;
        memcpy(&d, p, 8);
        return isnan(d);
    }
    return false;
}

/* What a reader expects of rows [from, to): min and max of the values that are
 * not NULL or NaN, a zero min as -0 and a zero max as +0; false when none. */
static bool fs_bounds(cf_type t, size_t w, const uint8_t *v, const uint8_t *nn, size_t from,
                      size_t to, uint8_t *mn, uint8_t *mx)
{
    bool any = false;
    for (size_t i = from; i < to; i++) {
        const uint8_t *p = v + i * w;
        if (!getbit(nn, i) || fs_nan(t, p))
            continue;
        if (!any || fs_cmp(t, p, mn) < 0)
            memcpy(mn, p, w);
        if (!any || fs_cmp(t, p, mx) > 0)
            memcpy(mx, p, w);
        any = true;
    }
    if (any && (t == CF_TYPE_FLOAT || t == CF_TYPE_DOUBLE))
        cf_pq_minmax_fix_zero(t == CF_TYPE_FLOAT ? CF_PQS_FLOAT : CF_PQS_DOUBLE, mn, mx);
    return any;
}

/* 4- and 8-byte integers and floats, with NULLs, NaNs, both zeros, infinities
 * and each type's extremes, dictionary or PLAIN, v1 or v2, appended in batches
 * that do not line up with the pages: every page's bounds and null count in
 * the column index, the chunk's statistics and the page count are what the
 * rows say (the fast path keeps min and max as sort keys per stretch; the
 * general path, taken with a bloom filter, compares each dictionary entry once
 * per page). */
static void test_pq_writer__fixed_statistics(void **state)
{
    (void)state;
    static const cf_type types[] = {CF_TYPE_FLOAT,  CF_TYPE_DOUBLE, CF_TYPE_INT32,
                                    CF_TYPE_UINT32, CF_TYPE_INT64,  CF_TYPE_UINT64};
    enum { NT = sizeof(types) / sizeof(types[0]) };
    cf_parquet_write_column cols[NT];
    uint8_t *vals[NT], *nn[NT];
    uint64_t x = 0x2545F4914F6CDD1Dull;
    for (size_t c = 0; c < NT; c++) {
        size_t w = cf_type_size(types[c]);
        cols[c] = (cf_parquet_write_column){
            .name = cf_type_name(types[c]), .type = types[c], .nullable = c % 2 == 0};
        vals[c] = calloc(FS_ROWS, w);
        nn[c] = cols[c].nullable ? calloc(FS_ROWS / 8 + 1, 1) : NULL;
        for (size_t i = 0; i < FS_ROWS; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            uint8_t *p = vals[c] + i * w;
            int pick = (int)(x % 40);
            bool page3 = i / FS_PAGE == 3; /* a page of NaNs and NULLs only */
            if (nn[c])
                pqg_setbit(nn[c], i, x % 7 != 0 && !(page3 && c % 2 == 0 && i % 2));
            if (types[c] == CF_TYPE_FLOAT) {
                float f = pick == 0   ? NAN
                          : pick == 1 ? -0.0f
                          : pick == 2 ? 0.0f
                          : pick == 3 ? INFINITY
                          : pick == 4 ? -INFINITY
                                      : (float)((int)(x >> 20) % 1000) / 4.0f;
                if (page3)
                    f = NAN;
                memcpy(p, &f, 4);
            } else if (types[c] == CF_TYPE_DOUBLE) {
                double d = pick == 0   ? NAN
                           : pick == 1 ? -0.0
                           : pick == 2 ? 0.0
                           : pick == 3 ? -INFINITY
                                       : (double)((int64_t)(x >> 11) % 100000) / 8.0;
                memcpy(p, &d, 8);
            } else {
                /* extremes, and few distinct values so the dictionary holds */
                uint64_t v = pick == 0   ? 0
                             : pick == 1 ? UINT64_MAX
                             : pick == 2 ? 1ull << 63
                             : pick == 3 ? (1ull << 31)
                             : pick == 4 ? 0x7fffffffull
                                         : (x >> 40) % 300 - 150;
                memcpy(p, &v, w); /* little-endian: the low bytes for 4-byte types */
            }
        }
    }
    for (int variant = 0; variant < 8; variant++) {
        cf_parquet_writer_options o;
        cf_parquet_writer_options_init(&o);
        o.page_rows = FS_PAGE;
        o.dictionary = variant % 2 == 0;
        o.data_page_v2 = variant % 4 >= 2;
        for (size_t c = 0; c < NT; c++) /* a bloom filter: the general path, value by value */
            cols[c].bloom_filter = variant >= 4;
        cf_error err;
        cf_io *io;
        cf_parquet_writer *w;
        CF_ASSERT_OK(cf_io_create_mem(&io, &err), &err);
        CF_ASSERT_OK(cf_parquet_writer_create(&w, io, cols, NT, &o, &err), &err);
        for (size_t at = 0; at < FS_ROWS;) {
            size_t n = at % 3 == 0 ? 333 : 1000; /* batches across page ends */
            if (n > FS_ROWS - at)
                n = FS_ROWS - at;
            cf_batch b[NT];
            uint8_t bm[NT][1000 / 8 + 2];
            memset(b, 0, sizeof b);
            for (size_t c = 0; c < NT; c++) {
                b[c].values = vals[c] + at * cf_type_size(types[c]);
                if (nn[c]) {
                    memset(bm[c], 0, sizeof bm[c]);
                    for (size_t i = 0; i < n; i++)
                        pqg_setbit(bm[c], i, getbit(nn[c], at + i));
                    b[c].nonnull = bm[c];
                }
            }
            CF_ASSERT_OK(cf_parquet_writer_append(w, b, n, &err), &err);
            at += n;
        }
        cf_io *rio;
        cf_parquet *pq = finish_open(w, io, &rio);
        cf_parquet_writer_free(w);
        const cf_parquet_column_chunk *ch = cf_parquet_meta(pq)->row_groups[0].columns;
        for (size_t c = 0; c < NT; c++) {
            size_t w8 = cf_type_size(types[c]);
            uint8_t mn[8], mx[8];
            int64_t nulls = 0;
            for (size_t i = 0; i < FS_ROWS; i++)
                nulls += !getbit(nn[c], i);
            const cf_parquet_stats *st = &ch[c].meta.statistics;
            assert_true(fs_bounds(types[c], w8, vals[c], nn[c], 0, FS_ROWS, mn, mx));
            assert_int_equal(st->null_count, nulls);
            CF_ASSERT_BYTES(st->min_value.data, st->min_value.len, mn, w8);
            CF_ASSERT_BYTES(st->max_value.data, st->max_value.len, mx, w8);
            cf_parquet_page_index *pi;
            CF_ASSERT_OK(cf_parquet_page_index_read(&pi, pq, 0, (uint32_t)c, &err), &err);
            const cf_parquet_offset_index *oi = cf_parquet_page_index_offsets(pi);
            const cf_parquet_column_index *ci = cf_parquet_page_index_columns(pi);
            size_t pages = (FS_ROWS + FS_PAGE - 1) / FS_PAGE;
            assert_int_equal(oi->page_count, pages);
            /* the float column's NaN page has no bounds to give: no column index */
            if (types[c] == CF_TYPE_FLOAT) {
                assert_null(ci);
            } else {
                assert_non_null(ci);
                for (size_t g = 0; g < pages; g++) {
                    size_t from = g * FS_PAGE,
                           to = from + FS_PAGE < FS_ROWS ? from + FS_PAGE : FS_ROWS;
                    assert_int_equal(oi->pages[g].first_row_index, from);
                    int64_t pn = 0;
                    for (size_t i = from; i < to; i++)
                        pn += !getbit(nn[c], i);
                    assert_int_equal(ci->null_counts[g], pn);
                    bool any = fs_bounds(types[c], w8, vals[c], nn[c], from, to, mn, mx);
                    assert_int_equal(ci->null_pages[g], !any);
                    if (any) {
                        CF_ASSERT_BYTES(ci->min_values[g].data, ci->min_values[g].len, mn, w8);
                        CF_ASSERT_BYTES(ci->max_values[g].data, ci->max_values[g].len, mx, w8);
                    }
                }
            }
            cf_parquet_page_index_free(pi);
        }
        cf_parquet_free(pq);
        cf_io_free(rio);
        cf_io_free(io);
    }
    for (size_t c = 0; c < NT; c++) {
        free(vals[c]);
        free(nn[c]);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pq_writer__xxh64),
        cmocka_unit_test(test_pq_writer__zero_bounds),
        cmocka_unit_test(test_pq_writer__footer),
        cmocka_unit_test(test_pq_writer__dictionary_fallback),
        cmocka_unit_test(test_pq_writer__streamed_same_bytes),
        cmocka_unit_test(test_pq_writer__round_trip_matrix),
        cmocka_unit_test(test_pq_writer__atomic_file),
        cmocka_unit_test(test_pq_writer__errors),
        cmocka_unit_test(test_pq_writer__empty),
        cmocka_unit_test(test_pq_writer__utf8),
        cmocka_unit_test(test_pq_writer__fixed_statistics),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

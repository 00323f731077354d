/* Every file of shared/parquet/ opens through cf_parquet_open and its footer
 * agrees with expected.json (written by DuckDB): row counts, every schema
 * element field, file metadata, key/value metadata, the top-level columns, and
 * per column chunk the type, codec, encodings, path, counts, sizes, page
 * offsets, null count and bloom filter location. Malformed files whose damage
 * is in the footer are refused as CF_ECORRUPT; the ones whose damage is in the
 * pages (listed below) open, and the test fails when that list is wrong either
 * way. (The CLI over these files: test_pq_cli.c.) */
#include "test_common.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/parquet.h>

#include "cli.h"
#include "support_pqfile.h"
#include "util/alloc.h"

static char dir[1024];

/* Malformed cases whose footer is sound: their damage is in the pages. */
static const char *const page_level_damage[] = {
    "dk_issue22325_datapage_v2_zero_compressed_size",
    "im_dict-encoded-negative-len",
    "pt_datapage_v1-corrupt-checksum",
};

static bool is_page_level(const char *name)
{
    for (size_t i = 0; i < sizeof(page_level_damage) / sizeof(page_level_damage[0]); i++)
        if (strcmp(name, page_level_damage[i]) == 0)
            return true;
    return false;
}

/* An expected integer: a JSON number, or a string of digits (DuckDB gives
 * type_length as text). */
/* The corpus, case by case: each directory with an expected.json (README.md
 * and MANIFEST.json are passed over). */
typedef struct golden_case {
    DIR *d;
    const char *name;
    char path[2300];
    cf_json_doc doc; /* expected.json; the loop disposes it */
} golden_case;

static void cases_open(golden_case *c)
{
    c->d = opendir(dir);
    assert_non_null(c->d);
}

/* The next case, false (the directory closed) after the last. */
static bool cases_next(golden_case *c)
{
    struct dirent *de;
    while ((de = readdir(c->d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char ej[2300], msg[256];
        snprintf(ej, sizeof(ej), "%s/%s/expected.json", dir, de->d_name);
        snprintf(c->path, sizeof(c->path), "%s/%s/%s.parquet", dir, de->d_name, de->d_name);
        if (cf_json_parse_file(&c->doc, ej, msg, sizeof(msg)) != 0) {
            cf_json_doc_dispose(&c->doc);
            continue;
        }
        c->name = de->d_name;
        return true;
    }
    closedir(c->d);
    return false;
}

/* The case's file opened; *want_ok: expected.json says it is good. NULL (the
 * case's expected.json disposed) when it does not open, which only a file
 * expected to fail may do. */
static cf_parquet *case_file(golden_case *c, bool *want_ok)
{
    *want_ok = strcmp(cf_json_get(&c->doc.root, "expect")->str, "ok") == 0;
    cf_error err = {0};
    cf_parquet *pq = NULL;
    if (cf_parquet_open_file(&pq, c->path, NULL, &err) != CF_OK) {
        assert_false(*want_ok);
        cf_json_doc_dispose(&c->doc);
        return NULL;
    }
    return pq;
}

static bool json_int(const cf_json *j, int64_t *v)
{
    if (!j || (j->kind != CF_JSON_NUMBER && j->kind != CF_JSON_STRING))
        return false;
    char *end;
    *v = strtoll(j->str, &end, 10);
    return end != j->str && *end == 0;
}

static void expect_int(const char *name, const char *what, const cf_json *j, bool has, int64_t v)
{
    if (!j || j->kind == CF_JSON_NULL) {
        if (has)
            fail_msg("%s: %s: got %lld, expected null", name, what, (long long)v);
        return;
    }
    int64_t want;
    if (!json_int(j, &want))
        fail_msg("%s: %s: expected value is not an integer", name, what);
    if (!has || want != v)
        fail_msg("%s: %s: got %s%lld, expected %lld", name, what, has ? "" : "null/", (long long)v,
                 (long long)want);
}

static void expect_str(const char *name, const char *what, const cf_json *j, const char *s,
                       size_t len)
{
    if (!j || j->kind == CF_JSON_NULL) {
        if (s)
            fail_msg("%s: %s: got '%.*s', expected null", name, what, (int)len, s);
        return;
    }
    if (j->kind != CF_JSON_STRING)
        fail_msg("%s: %s: expected value is a %s", name, what, cf_json_kind_name(j->kind));
    if (!s || j->len != len || memcmp(j->str, s, len) != 0)
        fail_msg("%s: %s: got '%.*s', expected '%s'", name, what, s ? (int)len : 4, s ? s : "null",
                 j->str);
}

static void expect_cstr(const char *name, const char *what, const cf_json *j, const char *s)
{
    expect_str(name, what, j, s, s ? strlen(s) : 0);
}

static void check_schema(const char *name, const cf_json *es, const cf_parquet_file_meta *m)
{
    assert_int_equal(es->kind, CF_JSON_ARRAY);
    if (es->n != m->schema_count)
        fail_msg("%s: %u schema elements, expected %zu", name, m->schema_count, es->n);
    for (uint32_t i = 0; i < m->schema_count; i++) {
        const cf_json *x = &es->items[i];
        const cf_parquet_schema_element *e = &m->schema[i];
        char what[64], lt[64];
        snprintf(what, sizeof(what), "schema[%u]", i);
        expect_str(name, what, cf_json_get(x, "name"), (const char *)e->name.data, e->name.len);
        expect_cstr(name, what, cf_json_get(x, "type"),
                    e->has_type ? cf_parquet_type_name(e->type) : NULL);
        expect_int(name, what, cf_json_get(x, "type_length"), e->has_type_length, e->type_length);
        expect_cstr(name, what, cf_json_get(x, "repetition_type"),
                    e->has_repetition ? cf_parquet_repetition_name(e->repetition) : NULL);
        expect_int(name, what, cf_json_get(x, "num_children"), e->has_num_children,
                   e->num_children);
        expect_cstr(name, what, cf_json_get(x, "converted_type"),
                    e->has_converted_type ? cf_parquet_converted_name(e->converted_type) : NULL);
        expect_int(name, what, cf_json_get(x, "scale"), e->has_scale, e->scale);
        expect_int(name, what, cf_json_get(x, "precision"), e->has_precision, e->precision);
        expect_int(name, what, cf_json_get(x, "field_id"), e->has_field_id, e->field_id);
        cf_parquet_logical_str(&e->logical, lt, sizeof(lt));
        expect_cstr(name, what, cf_json_get(x, "logical"), lt[0] ? lt : NULL);
    }
}

static void check_chunks(const char *name, const cf_json *md, const cf_parquet_file_meta *m)
{
    size_t k = 0;
    for (uint32_t g = 0; g < m->row_group_count; g++) {
        const cf_parquet_row_group *rg = &m->row_groups[g];
        for (uint32_t c = 0; c < rg->column_count; c++, k++) {
            if (k >= md->n)
                fail_msg("%s: more column chunks than expected (%zu)", name, md->n);
            const cf_json *x = &md->items[k];
            const cf_parquet_column_meta *cm = &rg->columns[c].meta;
            char what[64];
            snprintf(what, sizeof(what), "row group %u column %u", g, c);
            expect_int(name, what, cf_json_get(x, "row_group_id"), true, g);
            expect_int(name, what, cf_json_get(x, "row_group_num_rows"), true, rg->num_rows);
            expect_int(name, what, cf_json_get(x, "row_group_num_columns"), true, rg->column_count);
            expect_int(name, what, cf_json_get(x, "column_id"), true, c);
            expect_int(name, what, cf_json_get(x, "num_values"), true, cm->num_values);
            expect_cstr(name, what, cf_json_get(x, "type"), cf_parquet_type_name(cm->type));
            expect_cstr(name, what, cf_json_get(x, "compression"),
                        cf_parquet_codec_name(cm->codec));
            char path[1024] = "";
            size_t pl = 0;
            for (uint32_t i = 0; i < cm->path_len && pl < sizeof(path) - 1; i++)
                pl += (size_t)snprintf(path + pl, sizeof(path) - pl, "%s%.*s", i ? ", " : "",
                                       (int)cm->path[i].len, (const char *)cm->path[i].data);
            expect_cstr(name, what, cf_json_get(x, "path_in_schema"), path);
            expect_int(name, what, cf_json_get(x, "data_page_offset"), true, cm->data_page_offset);
            expect_int(name, what, cf_json_get(x, "dictionary_page_offset"),
                       cm->has_dictionary_page_offset, cm->dictionary_page_offset);
            expect_int(name, what, cf_json_get(x, "index_page_offset"), cm->has_index_page_offset,
                       cm->index_page_offset);
            expect_int(name, what, cf_json_get(x, "total_compressed_size"), true,
                       cm->total_compressed_size);
            expect_int(name, what, cf_json_get(x, "total_uncompressed_size"), true,
                       cm->total_uncompressed_size);
            expect_int(name, what, cf_json_get(x, "bloom_filter_offset"),
                       cm->has_bloom_filter_offset, cm->bloom_filter_offset);
            expect_int(name, what, cf_json_get(x, "bloom_filter_length"),
                       cm->has_bloom_filter_length, cm->bloom_filter_length);
            expect_int(name, what, cf_json_get(x, "stats_null_count"),
                       cm->has_statistics && cm->statistics.has_null_count,
                       cm->statistics.null_count);
            /* Encodings: DuckDB lists each once, in its own order. */
            const cf_json *enc = cf_json_get(x, "encodings");
            assert_non_null(enc);
            size_t listed = 0;
            for (const char *p = enc->str; *p;) {
                const char *e = strstr(p, ", ");
                size_t n = e ? (size_t)(e - p) : strlen(p);
                bool found = false;
                for (uint32_t i = 0; i < cm->encoding_count && !found; i++) {
                    const char *en = cf_parquet_encoding_name(cm->encodings[i]);
                    found = en && strlen(en) == n && memcmp(en, p, n) == 0;
                }
                if (!found)
                    fail_msg("%s: %s: encoding '%.*s' not in the chunk's list", name, what, (int)n,
                             p);
                listed++;
                p = e ? e + 2 : p + n;
            }
            if (cm->encoding_count && listed == 0)
                fail_msg("%s: %s: encodings missing", name, what);
        }
    }
    if (k != md->n)
        fail_msg("%s: %zu column chunks, expected %zu", name, k, md->n);
}

static void check_kv(const char *name, const cf_json *kv, const cf_parquet_file_meta *m)
{
    if (kv->n != m->kv_count)
        fail_msg("%s: %u key/value pairs, expected %zu", name, m->kv_count, kv->n);
    for (uint32_t i = 0; i < m->kv_count; i++) {
        const cf_json *x = &kv->items[i];
        expect_str(name, "kv key", cf_json_get(x, "key"), (const char *)m->kv[i].key.data,
                   m->kv[i].key.len);
        const cf_json *v = cf_json_get(x, "value");
        cf_slice got = m->kv[i].value;
        /* expected.json truncates values past 2,000 characters (README). */
        if (v && v->kind == CF_JSON_STRING && v->len > 2000 && got.len > 2000) {
            if (memcmp(v->str, got.data, 1000) != 0)
                fail_msg("%s: kv value %u differs", name, i);
            continue;
        }
        if (m->kv[i].has_value && v && v->kind == CF_JSON_STRING)
            expect_str(name, "kv value", v, (const char *)got.data, got.len);
    }
}

static void check_ok(const char *name, const cf_json *exp, cf_parquet *pq)
{
    const cf_parquet_file_meta *m = cf_parquet_meta(pq);
    expect_int(name, "num_rows", cf_json_get(exp, "num_rows"), true, cf_parquet_num_rows(pq));
    const cf_json *fnr = cf_json_get(exp, "footer_num_rows");
    if (fnr)
        expect_int(name, "footer_num_rows", fnr, true, m->num_rows);
    else if (m->num_rows != cf_parquet_num_rows(pq))
        fail_msg("%s: footer num_rows %lld disagrees with the row groups", name,
                 (long long)m->num_rows);
    check_schema(name, cf_json_get(exp, "schema"), m);

    const cf_json *fm = cf_json_get(exp, "file_metadata");
    expect_str(name, "created_by", cf_json_get(fm, "created_by"),
               m->has_created_by ? (const char *)m->created_by.data : NULL, m->created_by.len);
    expect_int(name, "format_version", cf_json_get(fm, "format_version"), true, m->version);
    expect_int(name, "footer num_rows", cf_json_get(fm, "num_rows"), true, m->num_rows);
    expect_int(name, "num_row_groups", cf_json_get(fm, "num_row_groups"), true, m->row_group_count);
    expect_int(name, "footer_size", cf_json_get(fm, "footer_size"), true,
               cf_parquet_footer_len(pq));
    expect_int(name, "file_size_bytes", cf_json_get(fm, "file_size_bytes"), true,
               (int64_t)cf_parquet_file_size(pq));
    const cf_json *co = cf_json_get(fm, "column_orders");
    if (co && co->kind == CF_JSON_ARRAY) {
        if (!m->has_column_orders || co->n != m->column_order_count)
            fail_msg("%s: column_orders", name);
        for (uint32_t i = 0; i < m->column_order_count; i++)
            if ((strstr(co->items[i].str, "TYPE_ORDER") != NULL) != (m->column_orders[i] == 1))
                fail_msg("%s: column order %u", name, i);
    }
    check_kv(name, cf_json_get(exp, "kv_metadata"), m);

    /* Top-level columns are the root's children. */
    const cf_json *cols = cf_json_get(exp, "columns");
    const cf_parquet_node *root = cf_parquet_schema_root(pq);
    if (cols->n != root->child_count)
        fail_msg("%s: %u top-level fields, expected %zu", name, root->child_count, cols->n);
    for (uint32_t i = 0; i < root->child_count; i++) {
        cf_slice nm = root->children[i]->element->name;
        expect_str(name, "column name", cf_json_get(&cols->items[i], "name"), (const char *)nm.data,
                   nm.len);
    }
    check_chunks(name, cf_json_get(exp, "metadata"), m);

    /* The tree: levels as the repetitions along each path say. Past the last
     * column, column_at gives NULL. */
    assert_null(cf_parquet_column_at(pq, cf_parquet_column_count(pq)));
    assert_null(cf_parquet_column_at(pq, UINT32_MAX));
    for (uint32_t i = 0; i < cf_parquet_column_count(pq); i++) {
        const cf_parquet_column *c = cf_parquet_column_at(pq, i);
        unsigned d = 0, r = 0;
        for (const cf_parquet_node *n = c->leaf; n->parent; n = n->parent) {
            d += n->repetition != CF_PARQUET_REQUIRED;
            r += n->repetition == CF_PARQUET_REPEATED;
        }
        assert_int_equal(c->max_def, d);
        assert_int_equal(c->max_rep, r);
        assert_int_equal(c->leaf->column, (int32_t)i);
        assert_int_equal(c->path_len, c->leaf->depth);
        if (m->row_group_count) {
            const cf_parquet_column_meta *cm = &m->row_groups[0].columns[i].meta;
            assert_int_equal(cm->path_len, c->path_len);
            for (uint32_t k = 0; k < c->path_len; k++)
                assert_true(cm->path[k].len == c->path[k].len &&
                            memcmp(cm->path[k].data, c->path[k].data, c->path[k].len) == 0);
        }
    }
}

/* Walk every page of every chunk (CRCs verified). Returns the first error.
 * *types gets a bit per page type seen, *crc whether any page had a CRC. */
static cf_status walk_pages(const cf_parquet *pq, bool verify, unsigned *types, bool *crc,
                            uint64_t *pages, cf_error *err)
{
    const cf_parquet_file_meta *m = cf_parquet_meta(pq);
    *types = 0;
    *crc = false;
    *pages = 0;
    for (uint32_t g = 0; g < m->row_group_count; g++) {
        for (uint32_t c = 0; c < cf_parquet_column_count(pq); c++) {
            cf_parquet_pages *it;
            cf_parquet_pages_options po;
            cf_parquet_pages_options_init(&po);
            po.verify_crc = verify;
            cf_status st = cf_parquet_pages_open(&it, pq, g, c, &po, err);
            if (st != CF_OK)
                return st;
            bool has = false;
            int64_t values = 0;
            while (st == CF_OK) {
                cf_parquet_page p;
                st = cf_parquet_pages_next(it, &p, &has, err);
                if (st != CF_OK || !has)
                    break;
                (*pages)++;
                *types |= 1u << (p.type & 7);
                *crc |= p.has_crc;
                assert_int_equal(p.body.len, (size_t)p.compressed_size);
                if (p.type == CF_PARQUET_DATA_PAGE || p.type == CF_PARQUET_DATA_PAGE_V2)
                    values += p.num_values;
            }
            cf_parquet_pages_free(it);
            if (st != CF_OK)
                return st;
            assert_int_equal(values, m->row_groups[g].columns[c].meta.num_values);
        }
    }
    return CF_OK;
}

/* Does the features list `key` of expected.json hold `s`? */
static bool feature_has(const cf_json *exp, const char *key, const char *s)
{
    const cf_json *l = cf_json_get(cf_json_get(exp, "features"), key);
    for (size_t i = 0; l && i < l->n; i++)
        if (strcmp(l->items[i].str, s) == 0)
            return true;
    return false;
}

static void test_parquet_golden__every_page(void **state)
{
    (void)state;
    golden_case gc;
    cases_open(&gc);
    int ok = 0, refused = 0;
    uint64_t total = 0;
    while (cases_next(&gc)) {
        const cf_json *exp = &gc.doc.root;
        bool want_ok;
        cf_error err = {0};
        cf_parquet *pq = case_file(&gc, &want_ok);
        if (!pq)
            continue;
        unsigned types;
        bool crc;
        uint64_t pages;
        cf_status st = walk_pages(pq, true, &types, &crc, &pages, &err);
        if (want_ok) {
            if (st != CF_OK)
                fail_msg("%s: %s", gc.name, err.msg);
            /* The survey in expected.json saw the same page kinds and CRCs. */
            bool seen[3] = {(types >> CF_PARQUET_DATA_PAGE) & 1,
                            (types >> CF_PARQUET_DATA_PAGE_V2) & 1,
                            (types >> CF_PARQUET_DICTIONARY_PAGE) & 1};
            const char *kinds[3] = {"DATA_PAGE", "DATA_PAGE_V2", "DICTIONARY_PAGE"};
            /* (The survey skipped chunks without values: it lists no page kinds.) */
            bool surveyed = cf_json_get(cf_json_get(exp, "features"), "page_types")->n > 0;
            for (int k = 0; k < 3 && surveyed; k++)
                if (seen[k] != feature_has(exp, "page_types", kinds[k]))
                    fail_msg("%s: %s pages %s, the survey says otherwise", gc.name, kinds[k],
                             seen[k] ? "seen" : "not seen");
            const cf_json *fc = cf_json_get(cf_json_get(exp, "features"), "crc");
            if (crc != (fc->kind == CF_JSON_TRUE))
                fail_msg("%s: page CRCs %s, the survey says otherwise", gc.name,
                         crc ? "seen" : "not seen");
            total += pages;
            ok++;
        } else if (strcmp(gc.name, "im_dict-encoded-negative-len") == 0) {
            /* Its damage is in the values: the headers are sound. */
            CF_ASSERT_OK(st, &err);
        } else {
            CF_ASSERT_STATUS(st, CF_ECORRUPT, &err);
            if (strcmp(gc.name, "pt_datapage_v1-corrupt-checksum") == 0) {
                assert_non_null(strstr(err.msg, "page 0 at offset 4: page CRC-32 mismatch"));
                /* Without verification the same walk succeeds. */
                CF_ASSERT_OK(walk_pages(pq, false, &types, &crc, &pages, &err), &err);
            }
            refused++;
        }
        cf_parquet_free(pq);
        cf_json_doc_dispose(&gc.doc);
    }
    printf("parquet pages: %d files, %llu pages walked with CRCs checked; %d page-damaged files "
           "refused\n",
           ok, (unsigned long long)total, refused);
    assert_int_equal(ok, 90);
    assert_int_equal(refused, 2);
}

/* Read one chunk completely; counts into *levels, *values, *nulls_flat. */
static cf_status read_chunk(const cf_parquet *pq, uint32_t g, uint32_t c, int64_t *levels,
                            int64_t *values, cf_error *err)
{
    cf_parquet_column_reader *r;
    cf_status st = cf_parquet_column_open(&r, pq, g, c, err);
    if (st != CF_OK)
        return st;
    const cf_parquet_column *col = cf_parquet_column_at(pq, c);
    enum { MAXN = 777 }; /* odd, so reads end mid-run */
    uint16_t def[MAXN], rep[MAXN];
    void *vals = malloc(MAXN * cf_parquet_column_value_size(r));
    *levels = *values = 0;
    for (;;) {
        size_t nl, nv;
        st = cf_parquet_column_read(r, MAXN, def, rep, vals, &nl, &nv, err);
        if (st != CF_OK || nl == 0)
            break;
        size_t present = 0;
        for (size_t i = 0; i < nl; i++) {
            assert_true(def[i] <= col->max_def && rep[i] <= col->max_rep);
            present += def[i] == col->max_def;
        }
        assert_int_equal(present, nv);
        if (col->type == CF_PARQUET_BYTE_ARRAY)
            for (size_t i = 0; i < nv; i++)
                assert_true(((cf_slice *)vals)[i].len == 0 || ((cf_slice *)vals)[i].data);
        *levels += (int64_t)nl;
        *values += (int64_t)nv;
    }
    free(vals);
    cf_parquet_column_free(r);
    return st;
}

static void test_parquet_golden__every_column(void **state)
{
    (void)state;
    golden_case gc;
    cases_open(&gc);
    int ok = 0, refused = 0, unsupported = 0;
    int64_t total_levels = 0;
    while (cases_next(&gc)) {
        bool want_ok;
        cf_error err = {0};
        cf_parquet *pq = case_file(&gc, &want_ok);
        if (!pq)
            continue;
        const cf_parquet_file_meta *m = cf_parquet_meta(pq);
        cf_status st = CF_OK;
        for (uint32_t g = 0; g < m->row_group_count && st == CF_OK; g++) {
            for (uint32_t c = 0; c < cf_parquet_column_count(pq) && st == CF_OK; c++) {
                int64_t lv, vv;
                st = read_chunk(pq, g, c, &lv, &vv, &err);
                if (st != CF_OK)
                    break;
                const cf_parquet_column_meta *cm = &m->row_groups[g].columns[c].meta;
                if (lv != cm->num_values)
                    fail_msg("%s: row group %u column %u: %lld levels, num_values %lld", gc.name, g,
                             c, (long long)lv, (long long)cm->num_values);
                const cf_parquet_column *col = cf_parquet_column_at(pq, c);
                /* Flat columns: the statistics' null count is the nulls read. */
                if (col->max_rep == 0 && cm->has_statistics && cm->statistics.has_null_count &&
                    lv - vv != cm->statistics.null_count)
                    fail_msg("%s: row group %u column %u: %lld nulls, statistics say %lld", gc.name,
                             g, c, (long long)(lv - vv), (long long)cm->statistics.null_count);
                if (col->max_rep == 0)
                    assert_int_equal(lv, m->row_groups[g].num_rows);
                total_levels += lv;
            }
        }
        if (want_ok) {
            if (st == CF_ENOTSUP) {
                printf("  %s: not supported: %s\n", gc.name, err.msg);
                unsupported++;
            } else if (st != CF_OK) {
                fail_msg("%s: %s: %s", gc.name, cf_status_str(st), err.msg);
            } else {
                ok++;
            }
        } else {
            if (st != CF_ECORRUPT)
                fail_msg("%s: malformed: got %s (%s)", gc.name, cf_status_str(st), err.msg);
            refused++;
        }
        cf_parquet_free(pq);
        cf_json_doc_dispose(&gc.doc);
    }
    printf("parquet columns: %d files read completely (%lld level entries), %d not supported, "
           "%d malformed refused\n",
           ok, (long long)total_levels, unsupported, refused);
    assert_int_equal(ok + unsupported, 90);
    assert_int_equal(unsupported, 0);
    assert_int_equal(refused, 3);
}

/* Values of a flat file against expected.json: the INT32 `id` column of
 * alltypes_plain, and its BYTE_ARRAY `string_col` (hex in the corpus forms). */
static void test_parquet_golden__values(void **state)
{
    (void)state;
    const char *cases[] = {"pt_alltypes_plain", "pt_alltypes_dictionary",
                           "pt_alltypes_plain_snappy"};
    for (int k = 0; k < 3; k++) {
        char path[2300], ej[2300];
        snprintf(path, sizeof(path), "%s/%s/%s.parquet", dir, cases[k], cases[k]);
        snprintf(ej, sizeof(ej), "%s/%s/expected.json", dir, cases[k]);
        cf_json_doc doc;
        char msg[256];
        assert_int_equal(cf_json_parse_file(&doc, ej, msg, sizeof(msg)), 0);
        const cf_json *rows = cf_json_get(&doc.root, "rows");
        cf_error err;
        cf_parquet *pq;
        CF_ASSERT_OK(cf_parquet_open_file(&pq, path, NULL, &err), &err);
        assert_string_equal((const char *)cf_parquet_column_at(pq, 0)->path[0].data, "id");
        size_t row = 0;
        for (uint32_t g = 0; g < cf_parquet_meta(pq)->row_group_count; g++) {
            cf_parquet_column_reader *r;
            CF_ASSERT_OK(cf_parquet_column_open(&r, pq, g, 0, &err), &err);
            for (;;) {
                uint16_t def[3];
                int32_t v[3];
                size_t nl, nv;
                CF_ASSERT_OK(cf_parquet_column_read(r, 3, def, NULL, v, &nl, &nv, &err), &err);
                if (nl == 0)
                    break;
                for (size_t i = 0; i < nv; i++, row++) {
                    char want[32];
                    snprintf(want, sizeof(want), "%d", v[i]);
                    assert_string_equal(rows->items[row].items[0].str, want);
                }
            }
            cf_parquet_column_free(r);
        }
        assert_int_equal(row, rows->n);
        cf_parquet_free(pq);
        cf_json_doc_dispose(&doc);
    }
}

/* The offset index agrees with the page walk: one entry per data page, same
 * offsets, sizes with headers, first rows from 0 upwards. */
static void test_parquet_golden__page_index(void **state)
{
    (void)state;
    golden_case gc;
    cases_open(&gc);
    int files = 0, chunks = 0;
    while (cases_next(&gc)) {
        bool want_ok = strcmp(cf_json_get(&gc.doc.root, "expect")->str, "ok") == 0;
        bool has_pi =
            cf_json_get(cf_json_get(&gc.doc.root, "features"), "page_index")->kind == CF_JSON_TRUE;
        cf_json_doc_dispose(&gc.doc);
        cf_error err = {0};
        cf_parquet *pq = NULL;
        if (!want_ok || cf_parquet_open_file(&pq, gc.path, NULL, &err) != CF_OK) {
            cf_parquet_free(pq);
            continue;
        }
        const cf_parquet_file_meta *m = cf_parquet_meta(pq);
        int here = 0;
        for (uint32_t g = 0; g < m->row_group_count; g++) {
            for (uint32_t c = 0; c < cf_parquet_column_count(pq); c++) {
                cf_parquet_page_index *pi;
                cf_status st = cf_parquet_page_index_read(&pi, pq, g, c, &err);
                if (st == CF_ENOTFOUND)
                    continue;
                if (st != CF_OK)
                    fail_msg("%s: %s", gc.name, err.msg);
                here++;
                const cf_parquet_offset_index *oi = cf_parquet_page_index_offsets(pi);
                const cf_parquet_column_index *ci = cf_parquet_page_index_columns(pi);
                if (oi) {
                    cf_parquet_pages *it;
                    cf_parquet_pages_options po;
                    cf_parquet_pages_options_init(&po);
                    po.verify_crc = false;
                    CF_ASSERT_OK(cf_parquet_pages_open(&it, pq, g, c, &po, &err), &err);
                    uint32_t k = 0;
                    for (;;) {
                        cf_parquet_page p;
                        if (!pqt_next_page(it, &p))
                            break;
                        if (p.type != CF_PARQUET_DATA_PAGE && p.type != CF_PARQUET_DATA_PAGE_V2)
                            continue;
                        if (k >= oi->page_count)
                            fail_msg("%s: rg %u col %u: more data pages than the offset index",
                                     gc.name, g, c);
                        const cf_parquet_page_location *l = &oi->pages[k];
                        /* PageIndex.md counts the header in the size; parquet-go
                         * (go_issue206) leaves it out. */
                        if ((uint64_t)l->offset != p.offset ||
                            (l->compressed_page_size != (int32_t)p.header_len + p.compressed_size &&
                             l->compressed_page_size != p.compressed_size))
                            fail_msg("%s: rg %u col %u page %u: offset index %lld+%d, page at "
                                     "%llu+%u",
                                     gc.name, g, c, k, (long long)l->offset,
                                     l->compressed_page_size, (unsigned long long)p.offset,
                                     p.header_len + (unsigned)p.compressed_size);
                        if (k == 0)
                            assert_int_equal(l->first_row_index, 0);
                        else
                            assert_true(l->first_row_index > oi->pages[k - 1].first_row_index);
                        /* (parquet-go counts values, not rows, in repeated columns.) */
                        if (cf_parquet_column_at(pq, c)->max_rep == 0 &&
                            l->first_row_index >= m->row_groups[g].num_rows && p.num_values > 0)
                            fail_msg("%s: rg %u col %u page %u: first row %lld of %lld", gc.name, g,
                                     c, k, (long long)l->first_row_index,
                                     (long long)m->row_groups[g].num_rows);
                        k++;
                    }
                    cf_parquet_pages_free(it);
                    assert_int_equal(k, oi->page_count);
                }
                if (ci)
                    for (uint32_t k = 0; k < ci->page_count; k++)
                        assert_true(!ci->null_pages[k] || ci->min_values[k].len == 0 ||
                                    ci->has_null_counts);
                cf_parquet_page_index_free(pi);
            }
        }
        if ((here > 0) != has_pi)
            fail_msg("%s: page index %s, the survey says otherwise", gc.name,
                     here ? "found" : "not found");
        files += here > 0;
        chunks += here;
        cf_parquet_free(pq);
    }
    printf("parquet page index: %d files, %d chunks agree with their pages\n", files, chunks);
    assert_int_equal(files, 23); /* README: page indexes 23 */
}

static void test_parquet_golden__every_file(void **state)
{
    (void)state;
    golden_case gc;
    cases_open(&gc);
    int ok = 0, refused = 0, page_level = 0;
    while (cases_next(&gc)) {
        const cf_json *exp = &gc.doc.root;
        bool want_ok = strcmp(cf_json_get(exp, "expect")->str, "ok") == 0;
        cf_error err = {0};
        cf_parquet *pq = NULL;
        cf_status st = cf_parquet_open_file(&pq, gc.path, NULL, &err);
        if (want_ok) {
            if (st != CF_OK)
                fail_msg("%s: %s: %s", gc.name, cf_status_str(st), err.msg);
            check_ok(gc.name, exp, pq);
            ok++;
        } else if (is_page_level(gc.name)) {
            if (st != CF_OK)
                fail_msg("%s: refused at open (%s), but its damage is in the pages: update "
                         "the list",
                         gc.name, err.msg);
            page_level++;
        } else {
            if (st != CF_ECORRUPT)
                fail_msg("%s: malformed footer: got %s, expected %s", gc.name, cf_status_str(st),
                         cf_status_str(CF_ECORRUPT));
            assert_true(strlen(err.msg) > 10);
            refused++;
        }
        cf_parquet_free(pq);
        cf_json_doc_dispose(&gc.doc);
    }
    printf("parquet golden: %d files agree, %d malformed refused at open, %d with page damage "
           "open\n",
           ok, refused, page_level);
    assert_int_equal(ok, 90);
    assert_int_equal(refused + page_level, 10);
    assert_int_equal(page_level, (int)(sizeof(page_level_damage) / sizeof(page_level_damage[0])));
}

/* Open from memory too, and allocation failure at every step is ENOMEM with
 * nothing leaked (ASan checks the leak part). */
static void test_parquet_golden__open_mem_and_alloc_failures(void **state)
{
    (void)state;
    char path[2300];
    snprintf(path, sizeof(path), "%s/pt_nested_maps_snappy/pt_nested_maps_snappy.parquet", dir);
    size_t len;
    uint8_t *b = cf_test_read_file(path, &len);
    assert_non_null(b);
    cf_io *io;
    cf_error err;
    CF_ASSERT_OK(cf_io_open_mem(&io, b, len, &err), &err);
    assert_true(cf_parquet_sniff(io));
    cf_parquet *pq;
    CF_ASSERT_OK(cf_parquet_open(&pq, io, NULL, &err), &err);
    assert_int_equal(cf_parquet_num_rows(pq), 6);
    assert_ptr_equal(cf_parquet_io(pq), io);
    cf_parquet_free(pq);
    cf_parquet_options o;
    cf_parquet_options_init(&o);
    o.version = 99;
    CF_ASSERT_STATUS(cf_parquet_open(&pq, io, &o, &err), CF_EINVAL, &err);
    cf_parquet_options_init(&o);
    o.max_footer_len = 10;
    CF_ASSERT_STATUS(cf_parquet_open(&pq, io, &o, &err), CF_ENOTSUP, &err);
    int failures = 0;
    for (uint64_t n = 1; n < 100; n++) {
        cf_alloc_fail_after(n);
        cf_status st = cf_parquet_open(&pq, io, NULL, &err);
        cf_alloc_fail_after(0);
        if (st == CF_OK) {
            cf_parquet_free(pq);
            break;
        }
        CF_ASSERT_STATUS(st, CF_ENOMEM, &err);
        failures++;
    }
    assert_true(failures >= 3);
    cf_io_free(io);
    free(b);
}

int main(int argc, char **argv)
{
    snprintf(dir, sizeof(dir), "%s/parquet", cf_test_shared_dir());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parquet_golden__every_file),
        cmocka_unit_test(test_parquet_golden__every_page),
        cmocka_unit_test(test_parquet_golden__every_column),
        cmocka_unit_test(test_parquet_golden__values),
        cmocka_unit_test(test_parquet_golden__page_index),
        cmocka_unit_test(test_parquet_golden__open_mem_and_alloc_failures),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

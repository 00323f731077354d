/* cf-needs: parquet */
#include "support_pqfile.h"

#include <stdio.h>
#include <string.h>

#include "test_common.h"

cf_parquet_schema_element pqt_element(const char *name, int type, int rep, int children,
                                      int converted)
{
    cf_parquet_schema_element e;
    memset(&e, 0, sizeof(e));
    e.name.data = (const uint8_t *)name;
    e.name.len = strlen(name);
    e.has_type = type >= 0;
    e.type = e.has_type ? type : 0;
    e.has_repetition = rep >= 0;
    e.repetition = e.has_repetition ? rep : 0;
    e.has_num_children = children >= 0;
    e.num_children = e.has_num_children ? children : 0;
    e.has_converted_type = converted >= 0;
    e.converted_type = e.has_converted_type ? converted : 0;
    return e;
}

static void write_schema(cf_thrift_writer *w, const pqt_el *els, int nel)
{
    cf_thrift_write_field(w, 2, CF_TT_LIST);
    cf_thrift_write_list_begin(w, CF_TT_STRUCT, (uint32_t)nel);
    for (int i = 0; i < nel; i++) {
        cf_thrift_write_struct_begin(w);
        if (els[i].type >= 0)
            cf_thrift_write_field_i32(w, 1, els[i].type);
        if (els[i].repetition >= 0)
            cf_thrift_write_field_i32(w, 3, els[i].repetition);
        cf_thrift_write_field_binary(w, 4, els[i].name, strlen(els[i].name));
        if (els[i].type < 0)
            cf_thrift_write_field_i32(w, 5, els[i].children);
        if (els[i].converted >= 0)
            cf_thrift_write_field_i32(w, 6, els[i].converted);
        cf_thrift_write_struct_end(w);
    }
}

static void write_chunk(cf_thrift_writer *w, const pqt_chunk *c)
{
    cf_thrift_write_struct_begin(w); /* ColumnChunk */
    cf_thrift_write_field_i64(w, 2, c->offset);
    cf_thrift_write_field(w, 3, CF_TT_STRUCT);
    cf_thrift_write_struct_begin(w); /* ColumnMetaData */
    cf_thrift_write_field_i32(w, 1, c->type);
    cf_thrift_write_field(w, 2, CF_TT_LIST);
    cf_thrift_write_list_begin(w, CF_TT_I32, (uint32_t)c->encoding_count);
    for (int k = 0; k < c->encoding_count; k++)
        cf_thrift_write_i32(w, c->encodings[k]);
    cf_thrift_write_field(w, 3, CF_TT_LIST);
    cf_thrift_write_list_begin(w, CF_TT_BINARY, (uint32_t)c->path_len);
    for (int k = 0; k < c->path_len; k++)
        cf_thrift_write_binary(w, c->path[k], strlen(c->path[k]));
    cf_thrift_write_field_i32(w, 4, c->codec);
    cf_thrift_write_field_i64(w, 5, c->num_values);
    cf_thrift_write_field_i64(w, 6, c->len);
    cf_thrift_write_field_i64(w, 7, c->len);
    cf_thrift_write_field_i64(w, 9, c->data_off);
    if (c->dict_off >= 0)
        cf_thrift_write_field_i64(w, 11, c->dict_off);
    cf_thrift_write_struct_end(w);
    cf_thrift_write_struct_end(w);
}

void pqt_footer(cf_buf *f, const pqt_el *els, int nel, int64_t num_rows, const pqt_chunk *chunks,
                int nchunks)
{
    size_t start = f->len;
    cf_thrift_writer w;
    cf_thrift_writer_init(&w, f);
    cf_thrift_write_struct_begin(&w);
    cf_thrift_write_field_i32(&w, 1, 2);
    write_schema(&w, els, nel);
    cf_thrift_write_field_i64(&w, 3, num_rows);
    cf_thrift_write_field(&w, 4, CF_TT_LIST);
    cf_thrift_write_list_begin(&w, CF_TT_STRUCT, 1);
    cf_thrift_write_struct_begin(&w); /* RowGroup */
    cf_thrift_write_field(&w, 1, CF_TT_LIST);
    cf_thrift_write_list_begin(&w, CF_TT_STRUCT, (uint32_t)nchunks);
    for (int c = 0; c < nchunks; c++)
        write_chunk(&w, &chunks[c]);
    cf_thrift_write_field_i64(&w, 2, 100);
    cf_thrift_write_field_i64(&w, 3, num_rows);
    cf_thrift_write_struct_end(&w);
    cf_thrift_write_struct_end(&w);
    assert_int_equal(cf_thrift_writer_status(&w), CF_OK);
    cf_buf_put_le32(f, (uint32_t)(f->len - start));
    cf_buf_append(f, "PAR1", 4);
}

void pqt_meta_int32_a(cf_thrift_writer *w, int rep)
{
    cf_thrift_write_struct_begin(w);
    cf_thrift_write_field_i32(w, 1, 2);
    cf_thrift_write_field(w, 2, CF_TT_LIST);
    cf_thrift_write_list_begin(w, CF_TT_STRUCT, 2);
    cf_thrift_write_struct_begin(w);
    cf_thrift_write_field_binary(w, 4, "schema", 6);
    cf_thrift_write_field_i32(w, 5, 1);
    cf_thrift_write_struct_end(w);
    cf_thrift_write_struct_begin(w);
    cf_thrift_write_field_i32(w, 1, CF_PARQUET_INT32);
    cf_thrift_write_field_i32(w, 3, rep);
    cf_thrift_write_field_binary(w, 4, "a", 1);
}

bool pqt_next_page(cf_parquet_pages *it, cf_parquet_page *p)
{
    cf_error err;
    bool has;
    CF_ASSERT_OK(cf_parquet_pages_next(it, p, &has, &err), &err);
    return has;
}

/* Is dir/name a case whose expected.json does not expect an error? Then
 * path (of cap bytes) gets its .parquet file. */
static bool corpus_good(const char *dir, const char *name, char *path, size_t cap)
{
    if (name[0] == '.')
        return false;
    char exp[2048];
    snprintf(exp, sizeof exp, "%s/%s/expected.json", dir, name);
    FILE *e = fopen(exp, "rb");
    if (!e)
        return false;
    char head[4096];
    size_t n = fread(head, 1, sizeof head - 1, e);
    fclose(e);
    head[n] = 0;
    if (strstr(head, "\"expect\": \"error\""))
        return false;
    snprintf(path, cap, "%s/%s/%s.parquet", dir, name, name);
    return true;
}

bool pqt_corpus_open(pqt_corpus *c)
{
    snprintf(c->dir, sizeof c->dir, "%s/parquet", CF_SHARED_DIR);
    c->d = opendir(c->dir);
    return c->d != NULL;
}

bool pqt_corpus_next(pqt_corpus *c)
{
    struct dirent *de;
    while ((de = readdir(c->d)) != NULL)
        if (corpus_good(c->dir, de->d_name, c->path, sizeof c->path)) {
            c->name = de->d_name;
            return true;
        }
    closedir(c->d);
    return false;
}

void pqt_corpus_path(const char *name, char *path, size_t cap)
{
    snprintf(path, cap, "%s/parquet/%s/%s.parquet", CF_SHARED_DIR, name, name);
}

cf_parquet *pqt_corpus_file(const char *name)
{
    char path[2048];
    pqt_corpus_path(name, path, sizeof path);
    cf_error err;
    cf_parquet *pq;
    CF_ASSERT_OK(cf_parquet_open_file(&pq, path, NULL, &err), &err);
    return pq;
}

cf_parquet *pqt_open_mem(const uint8_t *f, size_t len, cf_io **io)
{
    cf_error err;
    cf_parquet *pq;
    CF_ASSERT_OK(cf_io_open_mem(io, f, len, &err), &err);
    CF_ASSERT_OK(cf_parquet_open(&pq, *io, NULL, &err), &err);
    return pq;
}

/* `cfile parquet`'s metadata printers (pq_meta_out.h): footer, schema and page
 * headers as JSON and as text. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/parquet.h>

#include "cli.h"
#include "pq_meta_out.h"

static void jw_slice(cf_jw *w, cf_slice s)
{
    cf_jw_str(w, s.data, s.len);
}

static void jw_enum(cf_jw *w, const char *name, int32_t v)
{
    if (name)
        cf_jw_cstr(w, name);
    else
        cf_jw_int(w, v);
}

/* ---- schema ------------------------------------------------------------------------- */

void cf_pq_schema_element_json(cf_jw *w, const cf_parquet_schema_element *e)
{
    char lt[64];
    cf_jw_obj_begin(w);
    cf_jw_key(w, "name");
    jw_slice(w, e->name);
    cf_jw_key(w, "type");
    if (e->has_type)
        jw_enum(w, cf_parquet_type_name(e->type), e->type);
    else
        cf_jw_null(w);
    cf_jw_kv_opt_int(w, "type_length", e->has_type_length, e->type_length);
    cf_jw_key(w, "repetition_type");
    if (e->has_repetition)
        jw_enum(w, cf_parquet_repetition_name(e->repetition), e->repetition);
    else
        cf_jw_null(w);
    cf_jw_kv_opt_int(w, "num_children", e->has_num_children, e->num_children);
    cf_jw_key(w, "converted_type");
    if (e->has_converted_type)
        jw_enum(w, cf_parquet_converted_name(e->converted_type), e->converted_type);
    else
        cf_jw_null(w);
    cf_jw_kv_opt_int(w, "scale", e->has_scale, e->scale);
    cf_jw_kv_opt_int(w, "precision", e->has_precision, e->precision);
    cf_jw_kv_opt_int(w, "field_id", e->has_field_id, e->field_id);
    cf_jw_key(w, "logical");
    cf_parquet_logical_str(&e->logical, lt, sizeof(lt));
    if (lt[0])
        cf_jw_cstr(w, lt);
    else
        cf_jw_null(w);
    cf_jw_obj_end(w);
}

void cf_pq_path_json(cf_jw *w, const cf_slice *path, uint32_t n)
{
    cf_jw_arr_begin(w);
    for (uint32_t i = 0; i < n; i++)
        jw_slice(w, path[i]);
    cf_jw_arr_end(w);
}

void cf_pq_schema_json(FILE *f, const cf_parquet *pq)
{
    const cf_parquet_file_meta *m = cf_parquet_meta(pq);
    cf_jw w;
    cf_jw_init(&w, f);
    cf_jw_obj_begin(&w);
    cf_jw_kv_int(&w, "num_rows", cf_parquet_num_rows(pq));
    if (m->num_rows != cf_parquet_num_rows(pq))
        cf_jw_kv_int(&w, "footer_num_rows", m->num_rows);
    cf_jw_kv_arr_begin(&w, "schema");
    for (uint32_t i = 0; i < m->schema_count; i++)
        cf_pq_schema_element_json(&w, &m->schema[i]);
    cf_jw_arr_end(&w);
    cf_jw_kv_arr_begin(&w, "columns");
    for (uint32_t i = 0; i < cf_parquet_column_count(pq); i++) {
        const cf_parquet_column *c = cf_parquet_column_at(pq, i);
        char lt[64];
        cf_jw_obj_begin(&w);
        cf_jw_key(&w, "path");
        cf_pq_path_json(&w, c->path, c->path_len);
        cf_jw_kv_cstr(&w, "type", cf_parquet_type_name(c->type));
        if (c->type == CF_PARQUET_FIXED_LEN_BYTE_ARRAY)
            cf_jw_kv_int(&w, "type_length", c->type_length);
        cf_jw_key(&w, "logical");
        cf_parquet_logical_str(&c->leaf->logical, lt, sizeof(lt));
        if (lt[0])
            cf_jw_cstr(&w, lt);
        else
            cf_jw_null(&w);
        cf_jw_kv_int(&w, "max_definition_level", c->max_def);
        cf_jw_kv_int(&w, "max_repetition_level", c->max_rep);
        cf_jw_obj_end(&w);
    }
    cf_jw_arr_end(&w);
    cf_jw_obj_end(&w);
    cf_jw_newline(&w);
}

static void lower(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s, f);
}

/* Parquet's message syntax (as parquet-java's MessageType.toString writes it). */
static void schema_node_text(FILE *f, const cf_parquet_node *n, int indent)
{
    const cf_parquet_schema_element *e = n->element;
    char lt[64];
    const char *rep = cf_parquet_repetition_name(n->repetition);
    cf_parquet_logical_str(&n->logical, lt, sizeof(lt));
    if (!lt[0] && e->has_converted_type && cf_parquet_converted_name(e->converted_type))
        snprintf(lt, sizeof(lt), "%s", cf_parquet_converted_name(e->converted_type));
    fprintf(f, "%*s", indent, "");
    lower(f, rep ? rep : "?");
    if (n->column < 0) {
        fprintf(f, " group %.*s", (int)e->name.len, (const char *)e->name.data);
    } else {
        fputc(' ', f);
        lower(f, e->type == CF_PARQUET_BYTE_ARRAY ? "binary" : cf_parquet_type_name(e->type));
        if (e->type == CF_PARQUET_FIXED_LEN_BYTE_ARRAY)
            fprintf(f, "(%" PRId32 ")", e->type_length);
        fprintf(f, " %.*s", (int)e->name.len, (const char *)e->name.data);
    }
    if (lt[0])
        fprintf(f, " (%s)", lt);
    if (e->has_field_id)
        fprintf(f, " = %" PRId32, e->field_id);
    if (n->column < 0) {
        fprintf(f, " {\n");
        for (uint32_t i = 0; i < n->child_count; i++)
            schema_node_text(f, n->children[i], indent + 2);
        fprintf(f, "%*s}\n", indent, "");
    } else {
        fprintf(f, ";\n");
    }
}

void cf_pq_schema_text(FILE *f, const cf_parquet *pq)
{
    const cf_parquet_node *root = cf_parquet_schema_root(pq);
    fprintf(f, "message %.*s {\n", (int)root->element->name.len,
            (const char *)root->element->name.data);
    for (uint32_t i = 0; i < root->child_count; i++)
        schema_node_text(f, root->children[i], 2);
    fprintf(f, "}\n\ncolumns (max definition / repetition level):\n");
    for (uint32_t i = 0; i < cf_parquet_column_count(pq); i++) {
        const cf_parquet_column *c = cf_parquet_column_at(pq, i);
        fprintf(f, "  %4" PRIu32 "  ", i);
        for (uint32_t k = 0; k < c->path_len; k++)
            fprintf(f, "%s%.*s", k ? "." : "", (int)c->path[k].len, (const char *)c->path[k].data);
        fprintf(f, "  %s  D:%u R:%u\n", cf_parquet_type_name(c->type), c->max_def, c->max_rep);
    }
}

/* ---- meta --------------------------------------------------------------------------- */

static void stats_json(cf_jw *w, const cf_parquet_stats *s)
{
    cf_jw_obj_begin(w);
#define BIN(k, has, v)                                                                             \
    cf_jw_key(w, k);                                                                               \
    if (has)                                                                                       \
        cf_jw_hex(w, (v).data, (v).len);                                                           \
    else                                                                                           \
        cf_jw_null(w);
    BIN("min", s->has_min, s->min)
    BIN("max", s->has_max, s->max)
    BIN("min_value", s->has_min_value, s->min_value)
    BIN("max_value", s->has_max_value, s->max_value)
#undef BIN
    cf_jw_kv_opt_int(w, "null_count", s->has_null_count, s->null_count);
    cf_jw_kv_opt_int(w, "distinct_count", s->has_distinct_count, s->distinct_count);
    cf_jw_kv_opt_int(w, "nan_count", s->has_nan_count, s->nan_count);
    cf_jw_kv_opt_bool(w, "is_min_value_exact", s->has_is_min_value_exact, s->is_min_value_exact);
    cf_jw_kv_opt_bool(w, "is_max_value_exact", s->has_is_max_value_exact, s->is_max_value_exact);
    cf_jw_obj_end(w);
}

static void kv_json(cf_jw *w, const cf_parquet_kv *kv, uint32_t n)
{
    cf_jw_arr_begin(w);
    for (uint32_t i = 0; i < n; i++) {
        cf_jw_obj_begin(w);
        cf_jw_key(w, "key");
        cf_jw_bytes(w, kv[i].key.data, kv[i].key.len);
        cf_jw_key(w, "value");
        if (kv[i].has_value)
            cf_jw_bytes(w, kv[i].value.data, kv[i].value.len);
        else
            cf_jw_null(w);
        cf_jw_obj_end(w);
    }
    cf_jw_arr_end(w);
}

static void chunk_json(cf_jw *w, const cf_parquet_column_chunk *cc)
{
    const cf_parquet_column_meta *m = &cc->meta;
    cf_jw_obj_begin(w);
    cf_jw_key(w, "path");
    cf_pq_path_json(w, m->path, m->path_len);
    cf_jw_key(w, "type");
    jw_enum(w, cf_parquet_type_name(m->type), m->type);
    cf_jw_key(w, "codec");
    jw_enum(w, cf_parquet_codec_name(m->codec), m->codec);
    cf_jw_kv_arr_begin(w, "encodings");
    for (uint32_t i = 0; i < m->encoding_count; i++)
        jw_enum(w, cf_parquet_encoding_name(m->encodings[i]), m->encodings[i]);
    cf_jw_arr_end(w);
    cf_jw_kv_int(w, "file_offset", cc->file_offset);
    cf_jw_kv_int(w, "num_values", m->num_values);
    cf_jw_kv_int(w, "total_compressed_size", m->total_compressed_size);
    cf_jw_kv_int(w, "total_uncompressed_size", m->total_uncompressed_size);
    cf_jw_kv_int(w, "data_page_offset", m->data_page_offset);
    cf_jw_kv_opt_int(w, "dictionary_page_offset", m->has_dictionary_page_offset,
                     m->dictionary_page_offset);
    cf_jw_kv_opt_int(w, "index_page_offset", m->has_index_page_offset, m->index_page_offset);
    cf_jw_key(w, "statistics");
    if (m->has_statistics)
        stats_json(w, &m->statistics);
    else
        cf_jw_null(w);
    cf_jw_kv_arr_begin(w, "encoding_stats");
    for (uint32_t i = 0; i < m->encoding_stats_count; i++) {
        const cf_parquet_encoding_stats *s = &m->encoding_stats[i];
        cf_jw_obj_begin(w);
        cf_jw_key(w, "page_type");
        jw_enum(w, cf_parquet_page_type_name(s->page_type), s->page_type);
        cf_jw_key(w, "encoding");
        jw_enum(w, cf_parquet_encoding_name(s->encoding), s->encoding);
        cf_jw_kv_int(w, "count", s->count);
        cf_jw_obj_end(w);
    }
    cf_jw_arr_end(w);
    cf_jw_kv_opt_int(w, "bloom_filter_offset", m->has_bloom_filter_offset, m->bloom_filter_offset);
    cf_jw_kv_opt_int(w, "bloom_filter_length", m->has_bloom_filter_length, m->bloom_filter_length);
    cf_jw_kv_opt_int(w, "offset_index_offset", cc->has_offset_index, cc->offset_index_offset);
    cf_jw_kv_opt_int(w, "offset_index_length", cc->has_offset_index, cc->offset_index_length);
    cf_jw_kv_opt_int(w, "column_index_offset", cc->has_column_index, cc->column_index_offset);
    cf_jw_kv_opt_int(w, "column_index_length", cc->has_column_index, cc->column_index_length);
    cf_jw_key(w, "key_value_metadata");
    kv_json(w, m->kv, m->kv_count);
    cf_jw_obj_end(w);
}

void cf_pq_summary_json(cf_jw *w, const cf_parquet *pq)
{
    const cf_parquet_file_meta *m = cf_parquet_meta(pq);
    cf_jw_kv_uint(w, "file_size", cf_parquet_file_size(pq));
    cf_jw_kv_uint(w, "footer_size", cf_parquet_footer_len(pq));
    cf_jw_kv_int(w, "format_version", m->version);
    cf_jw_key(w, "created_by");
    if (m->has_created_by)
        cf_jw_bytes(w, m->created_by.data, m->created_by.len);
    else
        cf_jw_null(w);
    cf_jw_kv_int(w, "num_rows", cf_parquet_num_rows(pq));
    cf_jw_kv_int(w, "footer_num_rows", m->num_rows);
    cf_jw_kv_uint(w, "num_row_groups", m->row_group_count);
    cf_jw_kv_uint(w, "num_columns", cf_parquet_column_count(pq));
}

void cf_pq_meta_json(FILE *f, const cf_parquet *pq)
{
    const cf_parquet_file_meta *m = cf_parquet_meta(pq);
    cf_jw w;
    cf_jw_init(&w, f);
    cf_jw_obj_begin(&w);
    cf_pq_summary_json(&w, pq);
    cf_jw_key(&w, "key_value_metadata");
    kv_json(&w, m->kv, m->kv_count);
    cf_jw_key(&w, "column_orders");
    if (m->has_column_orders) {
        cf_jw_arr_begin(&w);
        for (uint32_t i = 0; i < m->column_order_count; i++) {
            if (m->column_orders[i] == 1)
                cf_jw_cstr(&w, "TYPE_ORDER");
            else
                cf_jw_uint(&w, m->column_orders[i]);
        }
        cf_jw_arr_end(&w);
    } else {
        cf_jw_null(&w);
    }
    cf_jw_kv_arr_begin(&w, "row_groups");
    for (uint32_t g = 0; g < m->row_group_count; g++) {
        const cf_parquet_row_group *rg = &m->row_groups[g];
        cf_jw_obj_begin(&w);
        cf_jw_kv_int(&w, "num_rows", rg->num_rows);
        cf_jw_kv_int(&w, "total_byte_size", rg->total_byte_size);
        cf_jw_kv_opt_int(&w, "total_compressed_size", rg->has_total_compressed_size,
                         rg->total_compressed_size);
        cf_jw_kv_opt_int(&w, "file_offset", rg->has_file_offset, rg->file_offset);
        cf_jw_kv_opt_int(&w, "ordinal", rg->has_ordinal, rg->ordinal);
        cf_jw_kv_arr_begin(&w, "sorting_columns");
        for (uint32_t i = 0; i < rg->sorting_column_count; i++) {
            const cf_parquet_sorting_column *s = &rg->sorting_columns[i];
            cf_jw_obj_begin(&w);
            cf_jw_kv_int(&w, "column_idx", s->column_idx);
            cf_jw_kv_bool(&w, "descending", s->descending);
            cf_jw_kv_bool(&w, "nulls_first", s->nulls_first);
            cf_jw_obj_end(&w);
        }
        cf_jw_arr_end(&w);
        cf_jw_kv_arr_begin(&w, "columns");
        for (uint32_t c = 0; c < rg->column_count; c++)
            chunk_json(&w, &rg->columns[c]);
        cf_jw_arr_end(&w);
        cf_jw_obj_end(&w);
    }
    cf_jw_arr_end(&w);
    cf_jw_obj_end(&w);
    cf_jw_newline(&w);
}

static void print_slice(FILE *f, cf_slice s, size_t max)
{
    size_t n = s.len > max ? max : s.len;
    for (size_t i = 0; i < n; i++) {
        uint8_t b = s.data[i];
        fputc(b >= 0x20 && b < 0x7f ? b : '.', f);
    }
    if (s.len > max)
        fprintf(f, "... (%zu bytes)", s.len);
}

void cf_pq_meta_text(FILE *f, const char *path, const cf_parquet *pq)
{
    const cf_parquet_file_meta *m = cf_parquet_meta(pq);
    fprintf(f, "file:            %s\n", path);
    fprintf(f, "format:          Apache Parquet, format version %" PRId32 "\n", m->version);
    fprintf(f, "created by:      ");
    if (m->has_created_by)
        print_slice(f, m->created_by, 200);
    fprintf(f, "\nsize:            %" PRIu64 " bytes (footer %" PRIu32 ")\n",
            cf_parquet_file_size(pq), cf_parquet_footer_len(pq));
    fprintf(f, "rows:            %" PRId64, cf_parquet_num_rows(pq));
    if (m->num_rows != cf_parquet_num_rows(pq))
        fprintf(f, " (the footer says %" PRId64 ")", m->num_rows);
    fprintf(f, "\nrow groups:      %" PRIu32 "\ncolumns:         %" PRIu32 "\n", m->row_group_count,
            cf_parquet_column_count(pq));
    if (m->kv_count) {
        fprintf(f, "key/value metadata:\n");
        for (uint32_t i = 0; i < m->kv_count; i++) {
            fprintf(f, "  ");
            print_slice(f, m->kv[i].key, 80);
            fprintf(f, " = ");
            if (m->kv[i].has_value)
                print_slice(f, m->kv[i].value, 100);
            fprintf(f, "\n");
        }
    }
    for (uint32_t g = 0; g < m->row_group_count; g++) {
        const cf_parquet_row_group *rg = &m->row_groups[g];
        fprintf(f, "\nrow group %" PRIu32 ": %" PRId64 " rows, %" PRId64 " bytes\n", g,
                rg->num_rows, rg->total_byte_size);
        for (uint32_t c = 0; c < rg->column_count; c++) {
            const cf_parquet_column_chunk *cc = &rg->columns[c];
            const cf_parquet_column_meta *cm = &cc->meta;
            const char *codec = cf_parquet_codec_name(cm->codec);
            fprintf(f, "  ");
            for (uint32_t k = 0; k < cm->path_len; k++) {
                fprintf(f, "%s", k ? "." : "");
                print_slice(f, cm->path[k], 80);
            }
            fprintf(f, "  %s %s [", cf_parquet_type_name(cm->type), codec ? codec : "?");
            for (uint32_t k = 0; k < cm->encoding_count; k++) {
                const char *e = cf_parquet_encoding_name(cm->encodings[k]);
                fprintf(f, "%s%s", k ? " " : "", e ? e : "?");
            }
            fprintf(f, "] values %" PRId64 ", %" PRId64 " -> %" PRId64 " bytes, data at %" PRId64,
                    cm->num_values, cm->total_uncompressed_size, cm->total_compressed_size,
                    cm->data_page_offset);
            if (cm->has_dictionary_page_offset)
                fprintf(f, ", dictionary at %" PRId64, cm->dictionary_page_offset);
            if (cm->has_statistics && cm->statistics.has_null_count)
                fprintf(f, ", nulls %" PRId64, cm->statistics.null_count);
            if (cc->has_column_index || cc->has_offset_index)
                fprintf(f, ", page index");
            if (cm->has_bloom_filter_offset)
                fprintf(f, ", bloom at %" PRId64, cm->bloom_filter_offset);
            fprintf(f, "\n");
        }
    }
}

/* ---- pages ------------------------------------------------------------------------------ */

void cf_pq_page_json(cf_jw *w, const cf_parquet_page *p)
{
    cf_jw_obj_begin(w);
    cf_jw_kv_uint(w, "offset", p->offset);
    cf_jw_kv_uint(w, "header_size", p->header_len);
    cf_jw_key(w, "type");
    jw_enum(w, cf_parquet_page_type_name(p->type), p->type);
    cf_jw_kv_int(w, "compressed_size", p->compressed_size);
    cf_jw_kv_int(w, "uncompressed_size", p->uncompressed_size);
    cf_jw_kv_int(w, "num_values", p->num_values);
    cf_jw_kv_opt_int(w, "num_nulls", p->num_nulls >= 0, p->num_nulls);
    cf_jw_kv_opt_int(w, "num_rows", p->num_rows >= 0, p->num_rows);
    cf_jw_key(w, "encoding");
    if (p->encoding >= 0)
        jw_enum(w, cf_parquet_encoding_name(p->encoding), p->encoding);
    else
        cf_jw_null(w);
    cf_jw_key(w, "definition_level_encoding");
    if (p->def_encoding >= 0)
        jw_enum(w, cf_parquet_encoding_name(p->def_encoding), p->def_encoding);
    else
        cf_jw_null(w);
    cf_jw_key(w, "repetition_level_encoding");
    if (p->rep_encoding >= 0)
        jw_enum(w, cf_parquet_encoding_name(p->rep_encoding), p->rep_encoding);
    else
        cf_jw_null(w);
    cf_jw_kv_opt_int(w, "definition_levels_size", p->def_levels_len >= 0, p->def_levels_len);
    cf_jw_kv_opt_int(w, "repetition_levels_size", p->rep_levels_len >= 0, p->rep_levels_len);
    if (p->type == CF_PARQUET_DATA_PAGE_V2)
        cf_jw_kv_bool(w, "is_compressed", p->is_compressed);
    cf_jw_kv_opt_uint(w, "crc", p->has_crc, p->crc);
    cf_jw_key(w, "statistics");
    if (p->has_statistics)
        stats_json(w, &p->statistics);
    else
        cf_jw_null(w);
    cf_jw_obj_end(w);
}

void cf_pq_page_text(FILE *f, const cf_parquet_page *p)
{
    const char *t = cf_parquet_page_type_name(p->type);
    const char *e = p->encoding >= 0 ? cf_parquet_encoding_name(p->encoding) : NULL;
    fprintf(f, "    %-15s at %" PRIu64 ": %" PRId32 " values, %" PRId32 " -> %" PRId32 " bytes",
            t ? t : "?", p->offset, p->num_values, p->uncompressed_size, p->compressed_size);
    if (e)
        fprintf(f, ", %s", e);
    if (p->num_nulls >= 0)
        fprintf(f, ", %" PRId32 " nulls, %" PRId32 " rows", p->num_nulls, p->num_rows);
    if (p->has_crc)
        fprintf(f, ", crc %08" PRIx32 " ok", p->crc);
    fprintf(f, "\n");
}

/* Every page of every chunk. JSON goes to a memory buffer first, so damage
 * found half-way leaves stdout empty rather than holding half a document. */

/* A Parquet file's footer, schema and page headers as `cfile parquet` prints
 * them: JSON (schema elements as shared/parquet/README.md has them: raw footer
 * values, enums by their parquet.thrift names, null for absent optional fields)
 * and text. Used by cmd_parquet.c (meta, schema, pages, dump) and cmd_info.c. */
#ifndef CF_CLI_PQ_META_OUT_H
#define CF_CLI_PQ_META_OUT_H

#include <stdint.h>
#include <stdio.h>

#include <cfile/parquet.h>

#include "json.h"

/* One schema element as an object. */
void cf_pq_schema_element_json(cf_jw *w, const cf_parquet_schema_element *e);
/* A column's path as an array of names. */
void cf_pq_path_json(cf_jw *w, const cf_slice *path, uint32_t n);
/* `parquet schema --json` and `parquet schema`. */
void cf_pq_schema_json(FILE *f, const cf_parquet *pq);
void cf_pq_schema_text(FILE *f, const cf_parquet *pq);
/* The file's summary as keys of the object being written, in this order:
 * file_size, footer_size, format_version, created_by (null when absent),
 * num_rows (the row groups' sum), footer_num_rows, num_row_groups,
 * num_columns. `parquet meta --json` starts with them, `info --json` has them
 * after "format". */
void cf_pq_summary_json(cf_jw *w, const cf_parquet *pq);
/* `parquet meta --json` and `parquet meta` (path: as given, for the header line). */
void cf_pq_meta_json(FILE *f, const cf_parquet *pq);
void cf_pq_meta_text(FILE *f, const char *path, const cf_parquet *pq);
/* One page header, as an object or as one indented line. */
void cf_pq_page_json(cf_jw *w, const cf_parquet_page *p);
void cf_pq_page_text(FILE *f, const cf_parquet_page *p);

#endif

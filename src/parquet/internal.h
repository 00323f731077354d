/* Internal: the open Parquet file handle and the schema tree builder. */
#ifndef CF_PARQUET_INTERNAL_H
#define CF_PARQUET_INTERNAL_H

#include <cfile/parquet.h>

#include "metadata.h"
#include "thrift.h"

/* Deeper schemas are refused (Impala tests 100 levels; levels are uint16). */
#define CF_PQ_MAX_SCHEMA_DEPTH 1000

/* The tree built from FileMetaData.schema. */
typedef struct cf_pq_schema {
    uint32_t node_count;
    cf_parquet_node *nodes;              /* nodes[i] is schema element i */
    const cf_parquet_node **child_slots; /* every node's children, back to back */
    uint32_t column_count;
    cf_parquet_column *columns;
    cf_slice *path_slots; /* every column's path, back to back */
} cf_pq_schema;

/* Build and check the tree. Errors name the schema element by index and name. */
cf_status cf_pq_schema_build(cf_pq_schema *out, const cf_parquet_schema_element *elems,
                             uint32_t count, cf_error *err);
void cf_pq_schema_dispose(cf_pq_schema *s);
/* The logical type an element means: its LogicalType, else what its legacy
 * ConvertedType stands for; kind NONE when neither says anything. */
cf_parquet_logical cf_pq_resolve_logical(const cf_parquet_schema_element *e);

/* The chunk of `column` in `row_group` into *out: CF_EINVAL, the message
 * starting with `what`, when either is out of range. */
cf_status cf_pq_chunk_at(const cf_parquet *pq, uint32_t row_group, uint32_t column,
                         const char *what, const cf_parquet_column_chunk **out, cf_error *err);

struct cf_parquet {
    cf_io *io;
    bool own_io;
    uint64_t file_size;
    uint32_t footer_len;
    uint8_t *footer; /* the FileMetaData bytes (owned) */
    cf_arena arena;  /* the decoded metadata's lists */
    cf_parquet_file_meta meta;
    cf_pq_schema schema;
    int64_t num_rows; /* sum of the row groups' */
};

#endif

/* Parquet columns as Kudu columns, for `cfile convert IN.parquet OUT`: the
 * reverse of the Parquet writer's type mapping (include/cfile/parquet.h), and
 * each batch of record assembly's arrays turned into the memory forms that
 * cf_writer_append(_arrays) and cf_table_loader_append take.
 *
 * Only what maps faithfully is taken: a top-level primitive field, or a LIST
 * of a primitive (a Kudu array column). Structs, maps and lists of anything
 * but a primitive have no Kudu column, nor have TIME, INTERVAL and decimals
 * wider than 38 digits: those are refused as unsupported (exit 3) naming the
 * column. A value that cannot be carried exactly (a TIMESTAMP(NANOS) with
 * sub-microsecond digits, a MILLIS timestamp past the micros range, a value
 * wider than its declared width) is refused as bad data (exit 1) naming the
 * row and column. */
#ifndef CF_CLI_PQ_KUDU_H
#define CF_CLI_PQ_KUDU_H

#include <cfile/parquet.h>
#include <cfile/rowset.h>

#include "cli.h"

typedef struct cf_pq_kcol {
    cf_column col;     /* name (owned), type, nullable, is_array, precision, scale */
    char *name;        /* the field's name, NUL-terminated (col.name points here) */
    uint32_t field;    /* the top-level field's index in the file's schema */
    int conv;          /* how values convert (pq_kudu.c) */
    int32_t bits;      /* integers: the Parquet annotation's width */
    bool src_signed;   /* integers: the Parquet annotation's signedness */
    bool is_key;       /* a table's key column: NOT NULL whatever the file says */
    int32_t fixed_len; /* FIXED_LEN_BYTE_ARRAY without annotation: its length, else 0 */
    /* The batch in memory form: values (scalars) or the flattened elements
     * (arrays), the rows' bitmap, and for arrays each row's element count and
     * the elements' bitmap. Binary values are slices into the Parquet batch:
     * valid until the next cf_parquet_records_next. */
    uint8_t *vals;
    size_t vals_cap; /* values */
    uint8_t *nn, *enn;
    size_t nn_cap, enn_cap; /* bits */
    uint32_t *counts;
    size_t counts_cap;
    size_t rows, elems;
} cf_pq_kcol;

/* Map top-level field a (a child of cf_parquet_records_schema's root) to a
 * Kudu column in *k (zeroed first; cf_pq_kudu_dispose it even on failure).
 * 0, or after a message on c->err: CF_EXIT_NOTSUP (no Kudu equivalent, naming
 * the column and why) or CF_EXIT_FAIL. `file` names the input in messages. */
int cf_pq_kudu_map(cf_cli *c, const char *file, const cf_parquet_array *a, uint32_t field,
                   cf_pq_kcol *k);

/* The Kudu types a Parquet type cannot say, recorded in the footer's
 * key_value_metadata by `cfile convert` / `cfile parquet write` under this key
 * so that converting back gives the same Kudu column: a JSON object
 * {"column": "VARCHAR(n)" | "VARCHAR" | "INT128", ...} (VARCHAR is written as
 * STRING, INT128 as FIXED_LEN_BYTE_ARRAY(16); every other Kudu type has a
 * Parquet type that maps back to it). */
#define CF_PQ_KUDU_TYPES_KEY "cfile.kudu_types"

/* The value for columns cols[0..n) (lengths[i]: VARCHAR length, 0 unknown;
 * lengths may be NULL), malloc'd; NULL when no column needs recording (or out
 * of memory: the entry is advisory). --binary columns are not recorded. */
char *cf_pq_kudu_types_value(const cf_parquet_write_column *cols, const int *lengths, size_t n);

/* After cf_pq_kudu_map of each of k[0..n): take the recorded Kudu type of a
 * column from meta's CF_PQ_KUDU_TYPES_KEY entry where the column's Parquet
 * type is the one the writer makes of it (STRING for VARCHAR,
 * FIXED_LEN_BYTE_ARRAY(16) for INT128). An entry that does not parse, or does
 * not fit the column, is ignored: the file's own types stand. */
void cf_pq_kudu_apply_types(const cf_parquet_file_meta *meta, cf_pq_kcol *k, size_t n);

/* Convert this batch's array of k's field (a->length rows; first_row: the file
 * row of slot 0, for messages) into k's buffers. 0 or an exit status after a
 * message naming the row and column. */
int cf_pq_kudu_convert(cf_cli *c, const char *file, cf_pq_kcol *k, const cf_parquet_array *a,
                       int64_t first_row);

/* The converted batch as a cf_colvec (valid until the next convert). */
cf_colvec cf_pq_kudu_colvec(const cf_pq_kcol *k);

void cf_pq_kudu_dispose(cf_pq_kcol *k);

#endif

/* Parquet values as JSON text (shared/parquet/README.md "Value forms"), read
 * from the arrays of cf_parquet_records. */
#ifndef CF_CLI_PQ_VALUES_H
#define CF_CLI_PQ_VALUES_H

#include <stdio.h>

#include <cfile/parquet.h>

/* Slot i of a (null or not) as its JSON value form. */
void cf_pq_put_value(FILE *f, const cf_parquet_array *a, size_t i);
/* A JSON string of bytes (invalid UTF-8 bytes as \u00XX escapes): for field names;
 * a string value that is not UTF-8 is printed {"hex": ...} by cf_pq_put_value. */
void cf_pq_put_string(FILE *f, const uint8_t *p, size_t n);

#endif

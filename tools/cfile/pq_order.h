/* Parquet's sort orders (parquet.thrift ColumnOrder, the "Sort order" rules of
 * the format's statistics): which order a column's min/max statistics are
 * written in, comparison of two values in it, and a running min/max of a
 * column's values. Used by `cfile parquet verify` (cmd_parquet_verify.c). */
#ifndef CF_CLI_PQ_ORDER_H
#define CF_CLI_PQ_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/parquet.h>

typedef enum cf_pq_order {
    CF_PQ_ORD_NONE,
    CF_PQ_ORD_BOOL,
    CF_PQ_ORD_I32,
    CF_PQ_ORD_U32,
    CF_PQ_ORD_I64,
    CF_PQ_ORD_U64,
    CF_PQ_ORD_FLOAT,
    CF_PQ_ORD_DOUBLE,
    CF_PQ_ORD_BYTES,  /* unsigned lexicographic */
    CF_PQ_ORD_DECIMAL /* big-endian two's complement */
} cf_pq_order;

/* A value: fixed bytes or a byte string. */
typedef struct cf_pq_val {
    const uint8_t *p;
    size_t n;
} cf_pq_val;

/* Running min/max of a set of values (copies: pages come and go). */
typedef struct cf_pq_range {
    bool any;
    uint8_t *min, *max;
    size_t min_n, max_n, min_cap, max_cap;
} cf_pq_range;

/* The order min_value/max_value are written in; CF_PQ_ORD_NONE with *why. */
cf_pq_order cf_pq_stat_order(const cf_parquet_column *col, const char **why);
/* Is a a NaN (FLOAT and DOUBLE orders)? */
bool cf_pq_is_nan(cf_pq_order o, cf_pq_val a);
/* Width a stats value must have in order o (0: any). */
size_t cf_pq_order_width(cf_pq_order o);
/* <0, 0, >0 as a sorts before, with or after b in order o. */
int cf_pq_cmp(cf_pq_order o, cf_pq_val a, cf_pq_val b);
/* Widen r by v (NaN and CF_PQ_ORD_NONE leave it as it is). */
void cf_pq_range_add(cf_pq_range *r, cf_pq_order o, cf_pq_val v);
void cf_pq_range_free(cf_pq_range *r);

#endif

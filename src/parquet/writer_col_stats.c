/* Min and max of the Parquet writer's columns: how two values compare in a
 * column's sort order (the column order of its logical type), the zero rule
 * for floating-point bounds, and the column index's truncated BYTE_ARRAY
 * bounds. Pure functions of their arguments: they must not touch a column's
 * state (the callers keep the page's and chunk's min and max, writer_col.h's
 * minmax_add).
 */
#include "writer_col.h"

#include "util/bytes.h"

/* Column index bounds of BYTE_ARRAY pages longer than this are truncated. */
#define CI_TRUNC 64

/* ---- ordering --------------------------------------------------------------------------- */

/* -1, 0 or 1 as x is below, equal to or above y (x and y evaluated twice). */
#define CMP(x, y) (((x) > (y)) - ((x) < (y)))

int cf_pq_wcol_cmp(cf_pq_sort s, const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
    switch (s) {
    case CF_PQS_BOOL: return (int)a[0] - (int)b[0];
    case CF_PQS_I32: return CMP((int32_t)cf_load_le32(a), (int32_t)cf_load_le32(b));
    case CF_PQS_U32: return CMP(cf_load_le32(a), cf_load_le32(b));
    case CF_PQS_I64: return CMP((int64_t)cf_load_le64(a), (int64_t)cf_load_le64(b));
    case CF_PQS_U64: return CMP(cf_load_le64(a), cf_load_le64(b));
    case CF_PQS_FLOAT: {
        float x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return CMP(x, y);
    }
    case CF_PQS_DOUBLE: {
        double x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return CMP(x, y);
    }
    case CF_PQS_DECIMAL_BE: {
        int x = (int8_t)a[0], y = (int8_t)b[0];
        if (x != y)
            return CMP(x, y);
        return cf_bytes_cmp(a + 1, al - 1, b + 1, bl - 1); /* the rest: unsigned */
    }
    case CF_PQS_BYTES:
    default: return cf_bytes_cmp(a, al, b, bl); /* unsigned bytes, a prefix first */
    }
}

/* Is the FLOAT or DOUBLE at p zero (either sign)? */
static bool is_zero(cf_pq_sort sort, const uint8_t *p)
{
    if (sort == CF_PQS_FLOAT) {
        float f;
        memcpy(&f, p, 4);
        return f == 0.0f;
    }
    double d;
    memcpy(&d, p, 8);
    return d == 0.0;
}

static void put_zero(cf_pq_sort sort, uint8_t *p, bool negative)
{
    if (sort == CF_PQS_FLOAT) {
        float f = negative ? -0.0f : 0.0f;
        memcpy(p, &f, 4);
    } else {
        double d = negative ? -0.0 : 0.0;
        memcpy(p, &d, 8);
    }
}

void cf_pq_minmax_fix_zero(cf_pq_sort sort, uint8_t *min, uint8_t *max)
{
    /* PageIndex.md / parquet.thrift: a min of +0 is written -0, a max of -0 as +0,
     * so a reader comparing against either zero never skips wrongly. */
    if (sort != CF_PQS_FLOAT && sort != CF_PQS_DOUBLE)
        return;
    if (is_zero(sort, min))
        put_zero(sort, min, true);
    if (is_zero(sort, max))
        put_zero(sort, max, false);
}

/* Truncate a BYTE_ARRAY page bound for the column index: the min to a prefix
 * (never larger), the max to a prefix with its last byte raised (never
 * smaller). A max of only 0xff bytes stays whole. */
void cf_pq_wcol_put_bound(cf_buf *b, const cf_buf *v, bool is_max, bool truncate, uint32_t *off,
                          uint32_t *len)
{
    size_t n = v->len;
    *off = (uint32_t)b->len;
    if (!truncate || n <= CI_TRUNC) {
        cf_buf_append(b, v->data, n);
        *len = (uint32_t)n;
        return;
    }
    if (!is_max) {
        cf_buf_append(b, v->data, CI_TRUNC);
        *len = CI_TRUNC;
        return;
    }
    size_t k = CI_TRUNC;
    while (k > 0 && v->data[k - 1] == 0xff)
        k--;
    if (k == 0) {
        cf_buf_append(b, v->data, n);
        *len = (uint32_t)n;
        return;
    }
    cf_buf_append(b, v->data, k);
    if (!b->oom)
        b->data[b->len - 1]++;
    *len = (uint32_t)k;
}

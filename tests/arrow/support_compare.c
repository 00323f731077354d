/* cmp_value (support_compare.h). */
#include "support_compare.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static bool same_bytes(duck *d, void *data, duck_idx size, cf_slice want, char *why, size_t cap)
{
    bool ok = size == want.len && (size == 0 || memcmp(data, want.data, size) == 0);
    if (!ok)
        snprintf(why, cap, "%" PRIu64 " bytes vs cfile %zu bytes", (uint64_t)size, want.len);
    d->free(data);
    return ok;
}

bool cmp_value(duck *d, duck_result *res, duck_idx col, duck_idx row, cf_type t, bool as_binary,
               const void *v, char *why, size_t cap)
{
    bool null = d->is_null(res, col, row);
    if (v == NULL || null) {
        if ((v == NULL) != null)
            snprintf(why, cap, "duckdb %s, cfile %s", null ? "NULL" : "a value",
                     v == NULL ? "NULL" : "a value");
        return (v == NULL) == null;
    }
    int64_t want = 0, got = 0;
    switch (t) {
    case CF_TYPE_INT8: want = *(const int8_t *)v; goto int64;
    case CF_TYPE_INT16: want = *(const int16_t *)v; goto int64;
    case CF_TYPE_INT32: want = *(const int32_t *)v; goto int64;
    case CF_TYPE_INT64: want = *(const int64_t *)v; goto int64;
    case CF_TYPE_UINT8: want = *(const uint8_t *)v; goto int64;
    case CF_TYPE_UINT16: want = *(const uint16_t *)v; goto int64;
    case CF_TYPE_UINT32:
        want = *(const uint32_t *)v;
        goto int64;
    int64:
        got = d->get_int64(res, col, row);
        break;
    case CF_TYPE_UINT64: {
        uint64_t w = *(const uint64_t *)v, g = d->get_uint64(res, col, row);
        if (w != g)
            snprintf(why, cap, "duckdb %" PRIu64 ", cfile %" PRIu64, g, w);
        return w == g;
    }
    case CF_TYPE_DATE:
        want = *(const int32_t *)v;
        got = d->get_date(res, col, row).days;
        break;
    case CF_TYPE_UNIXTIME_MICROS:
        want = *(const int64_t *)v;
        got = d->get_timestamp(res, col, row).micros;
        break;
    case CF_TYPE_BOOL:
        want = *(const uint8_t *)v != 0;
        got = d->get_bool(res, col, row);
        break;
    case CF_TYPE_FLOAT: {
        float w = *(const float *)v, g = d->get_float(res, col, row);
        bool ok = (isnan(w) && isnan(g)) || memcmp(&w, &g, sizeof w) == 0;
        if (!ok)
            snprintf(why, cap, "duckdb %.9g, cfile %.9g", (double)g, (double)w);
        return ok;
    }
    case CF_TYPE_DOUBLE: {
        double w = *(const double *)v, g = d->get_double(res, col, row);
        bool ok = (isnan(w) && isnan(g)) || memcmp(&w, &g, sizeof w) == 0;
        if (!ok)
            snprintf(why, cap, "duckdb %.17g, cfile %.17g", g, w);
        return ok;
    }
    case CF_TYPE_DECIMAL32:
    case CF_TYPE_DECIMAL64:
    case CF_TYPE_DECIMAL128:
    case CF_TYPE_INT128: {
        duck_hugeint w;
        if (t == CF_TYPE_DECIMAL32) {
            w.lower = (uint64_t)(int64_t) * (const int32_t *)v;
            w.upper = *(const int32_t *)v < 0 ? -1 : 0;
        } else if (t == CF_TYPE_DECIMAL64) {
            w.lower = (uint64_t) * (const int64_t *)v;
            w.upper = *(const int64_t *)v < 0 ? -1 : 0;
        } else {
            memcpy(&w.lower, v, 8);
            memcpy(&w.upper, (const uint8_t *)v + 8, 8);
        }
        duck_decimal g = d->get_decimal(res, col, row);
        bool ok = g.value.lower == w.lower && g.value.upper == w.upper;
        if (!ok)
            snprintf(why, cap,
                     "duckdb %016" PRIx64 "%016" PRIx64 ", cfile %016" PRIx64 "%016" PRIx64,
                     (uint64_t)g.value.upper, g.value.lower, (uint64_t)w.upper, w.lower);
        return ok;
    }
    case CF_TYPE_BINARY: {
        duck_blob b = d->get_blob(res, col, row);
        return same_bytes(d, b.data, b.size, *(const cf_slice *)v, why, cap);
    }
    case CF_TYPE_STRING:
    case CF_TYPE_VARCHAR: {
        if (as_binary) {
            duck_blob b = d->get_blob(res, col, row);
            return same_bytes(d, b.data, b.size, *(const cf_slice *)v, why, cap);
        }
        duck_string s = d->get_string(res, col, row);
        return same_bytes(d, s.data, s.size, *(const cf_slice *)v, why, cap);
    }
    default: snprintf(why, cap, "type %d not compared", (int)t); return false;
    }
    if (want != got)
        snprintf(why, cap, "duckdb %" PRId64 ", cfile %" PRId64, got, want);
    return want == got;
}

#include <stdlib.h>

#include "test_common.h"

static void *grow(void *p, size_t n, size_t size)
{
    void *q = realloc(p, (n ? n : 1) * size);
    assert_non_null(q);
    return q;
}

void refcol_init(refcol *rc, cf_type t, bool is_array)
{
    memset(rc, 0, sizeof *rc);
    rc->t = t;
    rc->is_array = is_array;
    rc->elem_start = grow(NULL, 1, sizeof(size_t));
    rc->elem_start[0] = 0;
}

void refcol_dispose(refcol *rc)
{
    if (cf_type_is_binary(rc->t)) {
        cf_slice *sl = (cf_slice *)(void *)rc->vals;
        for (size_t i = 0; i < rc->nvals; i++)
            free((void *)sl[i].data);
    }
    free(rc->row_present);
    free(rc->elem_start);
    free(rc->vals);
    free(rc->val_present);
    memset(rc, 0, sizeof *rc);
}

static bool bit(const uint8_t *bm, size_t i)
{
    return bm == NULL || (bm[i >> 3] >> (i & 7)) & 1;
}

static void add_val(refcol *rc, const void *v, bool present)
{
    size_t w = cf_type_size(rc->t);
    rc->vals = grow(rc->vals, rc->nvals + 1, w);
    rc->val_present = grow(rc->val_present, rc->nvals + 1, 1);
    uint8_t *dst = rc->vals + rc->nvals * w;
    if (cf_type_is_binary(rc->t)) {
        cf_slice s = present ? *(const cf_slice *)v : (cf_slice){NULL, 0};
        uint8_t *copy = malloc(s.len ? s.len : 1);
        assert_non_null(copy);
        if (s.len)
            memcpy(copy, s.data, s.len);
        cf_slice c = {copy, s.len};
        memcpy(dst, &c, sizeof c);
    } else
        memcpy(dst, v, w);
    rc->val_present[rc->nvals++] = present;
}

void refcol_add(refcol *rc, const cf_batch *b, size_t from, size_t n)
{
    size_t w = cf_type_size(rc->t);
    const uint8_t *vals = b->values;
    rc->row_present = grow(rc->row_present, rc->rows + n, 1);
    rc->elem_start = grow(rc->elem_start, rc->rows + n + 1, sizeof(size_t));
    for (size_t r = from; r < from + n; r++) {
        bool present = bit(b->nonnull, r);
        rc->row_present[rc->rows] = present;
        if (!rc->is_array)
            add_val(rc, vals + r * w, present);
        else if (present)
            for (uint32_t e = b->elem_offsets[r]; e < b->elem_offsets[r + 1]; e++)
                add_val(rc, vals + (size_t)e * w, bit(b->elem_nonnull, e));
        rc->elem_start[++rc->rows] = rc->nvals;
    }
}

static size_t report(size_t bad, const char *label, const char *what, size_t i, const char *why)
{
    if (bad < 5)
        print_message("  %s: %s %zu: %s\n", label, what, i, why);
    return bad + 1;
}

/* Run sql into res, failing the test when DuckDB refuses it; a result of other
 * than want rows is a difference (what names them: "rows", "elements").
 * Returns the rows DuckDB gave. */
static duck_idx query_rows(duck *d, const char *sql, duck_result *res, size_t want,
                           const char *what, const char *label, size_t *bad)
{
    char why[1024];
    if (!duck_query(d, sql, res, why, sizeof why))
        fail_msg("%s: %s: %s", label, sql, why);
    duck_idx n = d->row_count(res);
    if (n != want) {
        snprintf(why, sizeof why, "duckdb %" PRIu64 " %s, cfile %zu", (uint64_t)n, what, want);
        *bad = report(*bad, label, what, 0, why);
    }
    return n;
}

/* Compare column 0 of res's first n rows with rc's values 0..count-1 (one a
 * row: the rows of a plain column, the elements of an array column); what
 * names one ("row", "element"). Frees res. */
static size_t check_values(duck *d, duck_result *res, duck_idx n, const refcol *rc, size_t count,
                           bool as_binary, const char *label, const char *what, size_t bad)
{
    char why[1024];
    size_t w = cf_type_size(rc->t);
    for (size_t i = 0; i < count && i < n; i++) {
        const void *v = rc->val_present[i] ? rc->vals + i * w : NULL;
        if (!cmp_value(d, res, 0, i, rc->t, as_binary, v, why, sizeof why))
            bad = report(bad, label, what, i, why);
    }
    d->destroy_result(res);
    return bad;
}

size_t refcol_check(duck *d, const char *table, const char *col, const refcol *rc, bool as_binary,
                    const char *label)
{
    char sql[512], why[1024];
    duck_result res;
    size_t bad = 0;
    /* Text comes back through encode() (its bytes as a BLOB): the C API's string
     * getters stop at a NUL byte, which STRING values may hold. */
    bool text = (rc->t == CF_TYPE_STRING || rc->t == CF_TYPE_VARCHAR) && !as_binary;
    const char *wrap = text ? "encode" : "";
    if (!rc->is_array) {
        snprintf(sql, sizeof sql, "SELECT %s(\"%s\") FROM %s ORDER BY rowid", wrap, col, table);
        duck_idx n = query_rows(d, sql, &res, rc->rows, "rows", label, &bad);
        return check_values(d, &res, n, rc, rc->rows, as_binary || text, label, "row", bad);
    }
    /* Arrays: which cells are NULL and how long each is, then every element. */
    snprintf(sql, sizeof sql, "SELECT \"%s\" IS NULL, len(\"%s\") FROM %s ORDER BY rowid", col, col,
             table);
    duck_idx n = query_rows(d, sql, &res, rc->rows, "rows", label, &bad);
    for (size_t i = 0; i < rc->rows && i < n; i++) {
        bool null = d->get_bool(&res, 0, i);
        int64_t len = null ? 0 : d->get_int64(&res, 1, i);
        int64_t want = (int64_t)(rc->elem_start[i + 1] - rc->elem_start[i]);
        if (null != !rc->row_present[i] || len != want) {
            snprintf(why, sizeof why, "duckdb %s of %" PRId64 ", cfile %s of %" PRId64,
                     null ? "NULL" : "cell", len, rc->row_present[i] ? "cell" : "NULL", want);
            bad = report(bad, label, "row", i, why);
        }
    }
    d->destroy_result(&res);
    snprintf(sql, sizeof sql,
             "SELECT %s(c[k]) FROM (SELECT rowid AS r, \"%s\" AS c, unnest(range(1, len(\"%s\") "
             "+ 1)) AS k FROM %s) ORDER BY r, k",
             wrap, col, col, table);
    n = query_rows(d, sql, &res, rc->nvals, "elements", label, &bad);
    return check_values(d, &res, n, rc, rc->nvals, as_binary || text, label, "element", bad);
}

/* Parquet values as text: the canonical JSON forms of shared/parquet/README.md
 * "Value forms", read from the assembled arrays of cf_parquet_records.
 *
 * Each primitive column is printed by its physical type and the annotation the
 * schema resolves for it (cf_parquet_node.logical, which already folds the
 * legacy converted types in): DECIMAL as exact decimal text, DATE as a
 * proleptic Gregorian date with astronomical years, INT96 as microseconds,
 * FLOAT16 widened to double, UUID in its dashed form, strings as JSON
 * strings (bytes of a string column that are not UTF-8 as {"hex": "..."}, as
 * the CFile dump prints them), other binary as lower-case hex. */
#include "pq_values.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "values.h"

/* Integers beyond 2^53 do not survive a double: written as strings. */
#define SAFE_INT ((int64_t)1 << 53)

static void put_i64(FILE *f, int64_t v)
{
    if (v > SAFE_INT || v < -SAFE_INT)
        fprintf(f, "\"%" PRId64 "\"", v);
    else
        fprintf(f, "%" PRId64, v);
}

static void put_u64(FILE *f, uint64_t v)
{
    if (v > (uint64_t)SAFE_INT)
        fprintf(f, "\"%" PRIu64 "\"", v);
    else
        fprintf(f, "%" PRIu64, v);
}

static void put_double(FILE *f, double d)
{
    if (isnan(d)) {
        fputs("\"NaN\"", f);
        return;
    }
    char buf[CF_CLI_NUM_CAP];
    bool is_string;
    cf_cli_format_double(buf, d, &is_string);
    if (is_string)
        fprintf(f, "\"%s\"", buf);
    else
        fputs(buf, f);
}

static double half_to_double(uint16_t h)
{
    int sign = h >> 15, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    double v;
    if (exp == 0)
        v = ldexp((double)mant, -24);
    else if (exp == 31)
        v = mant ? NAN : INFINITY;
    else
        v = ldexp((double)(mant | 0x400), exp - 25);
    return sign ? -v : v;
}

/* A JSON string of bytes: valid UTF-8 passes, control characters and
 * quotes are escaped, a byte that is not UTF-8 becomes \u00XX (its Latin-1
 * reading) so the document stays valid. Used as is only for field names (JSON
 * keys); values check cf_utf8_valid first. */
void cf_pq_put_string(FILE *f, const uint8_t *p, size_t n)
{
    putc('"', f);
    size_t i = 0;
    while (i < n) {
        uint8_t c = p[i];
        if (c < 0x80) {
            if (c == '"' || c == '\\') {
                putc('\\', f);
                putc(c, f);
            } else if (c == '\n') {
                fputs("\\n", f);
            } else if (c == '\t') {
                fputs("\\t", f);
            } else if (c == '\r') {
                fputs("\\r", f);
            } else if (c < 0x20 || c == 0x7f) {
                fprintf(f, "\\u%04x", c);
            } else {
                putc(c, f);
            }
            i++;
            continue;
        }
        size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
        if (len && i + len <= n && cf_utf8_valid(p + i, len)) {
            fwrite(p + i, 1, len, f);
            i += len;
        } else {
            fprintf(f, "\\u%04x", c);
            i++;
        }
    }
    putc('"', f);
}

static void put_hex(FILE *f, const uint8_t *p, size_t n)
{
    static const char hx[] = "0123456789abcdef";
    putc('"', f);
    for (size_t i = 0; i < n; i++) {
        putc(hx[p[i] >> 4], f);
        putc(hx[p[i] & 15], f);
    }
    putc('"', f);
}

/* Decimal text of a magnitude's digits with `scale` digits after the point. */
static void put_decimal_digits(FILE *f, bool neg, const char *digits, size_t nd, int32_t scale)
{
    putc('"', f);
    if (neg)
        putc('-', f);
    if (scale <= 0) {
        fwrite(digits, 1, nd, f);
        for (int32_t i = 0; i < -scale && !(nd == 1 && digits[0] == '0'); i++)
            putc('0', f);
    } else {
        size_t s = (size_t)scale;
        if (nd <= s) {
            fputs("0.", f);
            for (size_t i = nd; i < s; i++)
                putc('0', f);
            fwrite(digits, 1, nd, f);
        } else {
            fwrite(digits, 1, nd - s, f);
            putc('.', f);
            fwrite(digits + nd - s, 1, s, f);
        }
    }
    putc('"', f);
}

static void put_decimal_u64(FILE *f, bool neg, uint64_t mag, int32_t scale)
{
    char tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + mag % 10);
        mag /= 10;
    } while (mag);
    char d[24];
    for (size_t i = 0; i < n; i++)
        d[i] = tmp[n - 1 - i];
    put_decimal_digits(f, neg && !(n == 1 && d[0] == '0'), d, n, scale);
}

/* Big-endian two's complement of any length. */
static void put_decimal_be(FILE *f, const uint8_t *p, size_t n, int32_t scale)
{
    if (n == 0) {
        put_decimal_u64(f, false, 0, scale);
        return;
    }
    if (n <= 8) {
        uint64_t u = (p[0] & 0x80) ? ~(uint64_t)0 : 0;
        for (size_t i = 0; i < n; i++)
            u = (u << 8) | p[i];
        int64_t v = (int64_t)u;
        put_decimal_u64(f, v < 0, v < 0 ? (uint64_t)0 - u : u, scale);
        return;
    }
    /* Long form: negate into a magnitude, then divide by 10 repeatedly. */
    uint8_t mag[256], *m = mag;
    uint8_t *heap = NULL;
    if (n > sizeof(mag)) {
        heap = malloc(n);
        if (!heap) {
            fputs("null", f);
            return;
        }
        m = heap;
    }
    bool neg = p[0] & 0x80;
    memcpy(m, p, n);
    if (neg) {
        for (size_t i = 0; i < n; i++)
            m[i] = (uint8_t)~m[i];
        for (size_t i = n; i-- > 0;)
            if (++m[i] != 0)
                break;
    }
    size_t cap = n * 3 + 2;
    char *d = malloc(cap);
    if (!d) {
        free(heap);
        fputs("null", f);
        return;
    }
    size_t nd = 0, start = 0;
    for (;;) {
        while (start < n && m[start] == 0)
            start++;
        if (start == n)
            break;
        unsigned rem = 0;
        for (size_t i = start; i < n; i++) {
            unsigned cur = (rem << 8) | m[i];
            m[i] = (uint8_t)(cur / 10);
            rem = cur % 10;
        }
        d[nd++] = (char)('0' + rem);
    }
    if (nd == 0)
        d[nd++] = '0';
    for (size_t i = 0; i < nd / 2; i++) {
        char t = d[i];
        d[i] = d[nd - 1 - i];
        d[nd - 1 - i] = t;
    }
    put_decimal_digits(f, neg, d, nd, scale);
    free(d);
    free(heap);
}

/* Days since 1970-01-01 to a proleptic Gregorian date (H. Hinnant's
 * civil_from_days), years astronomical. */
static void put_date(FILE *f, int64_t z)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = yoe + era * 400;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int64_t d = doy - (153 * mp + 2) / 5 + 1;
    int64_t m = mp < 10 ? mp + 3 : mp - 9;
    y += m <= 2;
    if (y < 0)
        fprintf(f, "\"-%04" PRId64 "-%02" PRId64 "-%02" PRId64 "\"", -y, m, d);
    else if (y > 9999)
        fprintf(f, "\"+%" PRId64 "-%02" PRId64 "-%02" PRId64 "\"", y, m, d);
    else
        fprintf(f, "\"%04" PRId64 "-%02" PRId64 "-%02" PRId64 "\"", y, m, d);
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
    return le32(p) | (uint64_t)le32(p + 4) << 32;
}

static bool is_string_annotated(const cf_parquet_node *n)
{
    uint32_t k = n->logical.kind;
    if (k == CF_PARQUET_LT_STRING || k == CF_PARQUET_LT_ENUM || k == CF_PARQUET_LT_JSON)
        return true;
    const cf_parquet_schema_element *e = n->element;
    return e->has_converted_type &&
           (e->converted_type == CF_PARQUET_CT_UTF8 || e->converted_type == CF_PARQUET_CT_ENUM ||
            e->converted_type == CF_PARQUET_CT_JSON) &&
           e->logical.kind != CF_PARQUET_LT_UNSUPPORTED;
}

static void put_int(FILE *f, const cf_parquet_node *n, int64_t v, bool is32)
{
    const cf_parquet_logical *lt = &n->logical;
    switch (lt->kind) {
    case CF_PARQUET_LT_DECIMAL:
        put_decimal_u64(f, v < 0, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, lt->scale);
        return;
    case CF_PARQUET_LT_DATE: put_date(f, v); return;
    case CF_PARQUET_LT_INTEGER:
        if (!lt->is_signed) {
            put_u64(f, is32 ? (uint64_t)(uint32_t)v : (uint64_t)v);
            return;
        }
        break;
    default: break;
    }
    put_i64(f, v);
}

/* One primitive value (slot i, not null). */
static void put_primitive(FILE *f, const cf_parquet_array *a, size_t i)
{
    const cf_parquet_node *n = a->leaf;
    const uint8_t *v = a->values + i * a->value_size;
    switch (n->element->type) {
    case CF_PARQUET_BOOLEAN: fputs(v[0] ? "true" : "false", f); return;
    case CF_PARQUET_INT32: put_int(f, n, (int32_t)le32(v), true); return;
    case CF_PARQUET_INT64: put_int(f, n, (int64_t)le64(v), false); return;
    case CF_PARQUET_INT96: {
        /* Nanoseconds of the day (8 bytes, signed), then the Julian day (4,
         * unsigned). As DuckDB, the reference: the day count times 86400e6
         * plus the nanoseconds truncated to microseconds, in 64-bit
         * arithmetic that wraps (garbage days give garbage, not a crash). */
        int64_t nanos = (int64_t)le64(v);
        uint64_t days = (uint64_t)le32(v + 8) - 2440588u;
        int64_t us = (int64_t)(days * UINT64_C(86400000000) + (uint64_t)(nanos / 1000));
        put_i64(f, us);
        return;
    }
    case CF_PARQUET_FLOAT: {
        float x;
        memcpy(&x, v, 4);
        put_double(f, (double)x);
        return;
    }
    case CF_PARQUET_DOUBLE: {
        double x;
        memcpy(&x, v, 8);
        put_double(f, x);
        return;
    }
    default: break;
    }
    const uint8_t *p;
    size_t len;
    if (a->value_size == 0) {
        p = a->values + a->offsets[i];
        len = (size_t)(a->offsets[i + 1] - a->offsets[i]);
    } else {
        p = v;
        len = a->value_size;
    }
    const cf_parquet_logical *lt = &n->logical;
    if (lt->kind == CF_PARQUET_LT_DECIMAL) {
        put_decimal_be(f, p, len, lt->scale);
    } else if (lt->kind == CF_PARQUET_LT_UUID && len == 16) {
        static const char hx[] = "0123456789abcdef";
        putc('"', f);
        for (size_t k = 0; k < 16; k++) {
            if (k == 4 || k == 6 || k == 8 || k == 10)
                putc('-', f);
            putc(hx[p[k] >> 4], f);
            putc(hx[p[k] & 15], f);
        }
        putc('"', f);
    } else if (lt->kind == CF_PARQUET_LT_FLOAT16 && len == 2) {
        put_double(f, half_to_double((uint16_t)(p[0] | p[1] << 8)));
    } else if (n->element->has_converted_type &&
               n->element->converted_type == CF_PARQUET_CT_INTERVAL && len == 12) {
        fprintf(f, "{\"months\":%" PRIu32 ",\"days\":%" PRIu32 ",\"millis\":%" PRIu32 "}", le32(p),
                le32(p + 4), le32(p + 8));
    } else if (is_string_annotated(n)) {
        /* Bytes that are not UTF-8 are not a string: printed in a form no
         * string has (the CFile dump's), never as escapes that would read as
         * another, valid string. */
        if (cf_utf8_valid(p, len)) {
            cf_pq_put_string(f, p, len);
        } else {
            fputs("{\"hex\":", f);
            put_hex(f, p, len);
            putc('}', f);
        }
    } else {
        put_hex(f, p, len);
    }
}

static bool is_valid(const cf_parquet_array *a, size_t i)
{
    return !a->validity || (a->validity[i >> 3] >> (i & 7)) & 1;
}

void cf_pq_put_value(FILE *f, const cf_parquet_array *a, size_t i)
{
    if (!is_valid(a, i)) {
        fputs("null", f);
        return;
    }
    switch (a->kind) {
    case CF_PARQUET_ARRAY_PRIMITIVE: put_primitive(f, a, i); return;
    case CF_PARQUET_ARRAY_STRUCT:
        putc('{', f);
        for (uint32_t k = 0; k < a->child_count; k++) {
            if (k)
                fputs(",", f);
            cf_pq_put_string(f, a->children[k]->name.data, a->children[k]->name.len);
            fputs(":", f);
            cf_pq_put_value(f, a->children[k], i);
        }
        putc('}', f);
        return;
    case CF_PARQUET_ARRAY_LIST:
        putc('[', f);
        for (int32_t j = a->offsets[i]; j < a->offsets[i + 1]; j++) {
            if (j > a->offsets[i])
                fputs(",", f);
            cf_pq_put_value(f, a->children[0], (size_t)j);
        }
        putc(']', f);
        return;
    case CF_PARQUET_ARRAY_MAP: {
        const cf_parquet_array *kv = a->children[0];
        putc('[', f);
        for (int32_t j = a->offsets[i]; j < a->offsets[i + 1]; j++) {
            if (j > a->offsets[i])
                fputs(",", f);
            fputs("{\"key\":", f);
            cf_pq_put_value(f, kv->children[0], (size_t)j);
            fputs(",\"value\":", f);
            if (kv->child_count > 1)
                cf_pq_put_value(f, kv->children[1], (size_t)j);
            else
                fputs("null", f);
            putc('}', f);
        }
        putc(']', f);
        return;
    }
    default: fputs("null", f); return;
    }
}

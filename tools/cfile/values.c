/* Value forms <-> memory forms, and columns of parsed values (see values.h and
 * ../shared/golden/README.md "Value forms"). */
#include "values.h"
#include "cli.h"
#include "vtext.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int cf_cli_msg_fail(char *msg, size_t cap, const char *fmt, ...)
{
    if (msg != NULL && cap > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, cap, fmt, ap);
        va_end(ap);
    }
    return -1;
}

uint64_t cf_cli_int_widen(cf_type p, const void *slot)
{
    int bits = cf_type_int_bits(p);
    uint64_t u = 0;
    memcpy(&u, slot, (size_t)bits / 8); /* little-endian: the low bytes */
    if (!cf_type_is_unsigned(p) && bits < 64 && (u >> (bits - 1)) & 1)
        u |= ~(uint64_t)0 << bits; /* sign-extend */
    return u;
}

#define CANON_NAN32 0x7fc00000u
#define CANON_NAN64 0x7ff8000000000000ull

/* ---- text to numbers ----------------------------------------------------------------- */

/* Integer text ("-12", "0") into sign and magnitude; no fraction, exponent or '+'. */
static int parse_int_text(const char *s, size_t len, bool *neg, cf_cli_u128 *mag)
{
    size_t i = 0;
    *neg = false;
    if (i < len && s[i] == '-') {
        *neg = true;
        i++;
    }
    if (i == len)
        return -1;
    cf_cli_u128 m = 0;
    const cf_cli_u128 max = ~(cf_cli_u128)0;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (m > (max - d) / 10)
            return -1;
        m = m * 10 + d;
    }
    *mag = m;
    return 0;
}

/* The human forms (vtext.h) of DATE, UNIXTIME_MICROS and DECIMAL into val; -1 with
 * the message when the text is not one (or, for DECIMAL, the scale is unknown). */
static int parse_human(const char *s, size_t len, cf_type t, int precision, int scale,
                       cf_cli_i128 *val, char *msg, size_t cap)
{
    char why[200];
    int rc = -1;
    if (t == CF_TYPE_DATE) {
        int32_t d;
        if ((rc = cf_vt_parse_date(s, len, &d, why, sizeof why)) == 0)
            *val = d;
    } else if (t == CF_TYPE_UNIXTIME_MICROS) {
        int64_t us;
        if ((rc = cf_vt_parse_timestamp(s, len, &us, why, sizeof why)) == 0)
            *val = us;
    } else if (scale < 0) {
        return cf_cli_msg_fail(msg, cap,
                               "%s: %.*s: not an integer (this column's scale is not known here: "
                               "give the unscaled integer)",
                               cf_type_name(t), (int)(len > 60 ? 60 : len), s);
    } else {
        int pmax = t == CF_TYPE_DECIMAL32 ? 9 : t == CF_TYPE_DECIMAL64 ? 18 : 38;
        int p = precision > 0 && precision < pmax ? precision : pmax;
        rc = cf_vt_parse_decimal(s, len, p, scale, val, why, sizeof why);
    }
    if (rc != 0)
        return cf_cli_msg_fail(msg, cap, "%s: %s", cf_type_name(t), why);
    return 0;
}

static int parse_integer(const cf_json *v, cf_type t, int precision, int scale, void *slot,
                         char *msg, size_t cap)
{
    const char *s;
    size_t len;
    if (v->kind == CF_JSON_NUMBER || v->kind == CF_JSON_STRING) {
        s = v->str;
        len = v->len;
    } else {
        return cf_cli_msg_fail(msg, cap, "%s: expected an integer, got %s", cf_type_name(t),
                               cf_json_kind_name(v->kind));
    }
    bool neg;
    cf_cli_u128 mag;
    cf_type p = cf_type_physical(t);
    int bits = cf_type_int_bits(p);
    bool is_signed = !cf_type_is_unsigned(p);
    bool human = t == CF_TYPE_DATE || t == CF_TYPE_UNIXTIME_MICROS || t == CF_TYPE_DECIMAL32 ||
                 t == CF_TYPE_DECIMAL64 || t == CF_TYPE_DECIMAL128;
    cf_cli_i128 hval = 0;
    bool ok;
    if (parse_int_text(s, len, &neg, &mag) != 0) {
        if (!human)
            return cf_cli_msg_fail(msg, cap, "%s: not an integer: %.*s", cf_type_name(t),
                                   (int)(len > 60 ? 60 : len), s);
        /* Not the integer form: the human one, whose value fits the type by its
         * own rules (years 0000..9999, the precision). */
        if (parse_human(s, len, t, precision, scale, &hval, msg, cap) != 0)
            return -1;
        neg = hval < 0;
        mag = neg ? (cf_cli_u128)0 - (cf_cli_u128)hval : (cf_cli_u128)hval;
    }
    if (!is_signed) {
        ok = (!neg || mag == 0) && (bits == 128 || mag <= (((cf_cli_u128)1 << bits) - 1));
    } else {
        cf_cli_u128 lim = (cf_cli_u128)1 << (bits - 1); /* |min| */
        ok = neg ? mag <= lim : mag < lim;
    }
    if (!ok)
        return cf_cli_msg_fail(msg, cap, "%s: %.*s is out of range", cf_type_name(t),
                               (int)(len > 60 ? 60 : len), s);
    cf_cli_i128 val = neg ? (cf_cli_i128)((cf_cli_u128)0 - mag) : (cf_cli_i128)mag;
    /* Kudu's DATE is days since 1970-01-01 in 0001-01-01..9999-12-31
     * (DataTypeTraits<DATE>; the golden date-* files hold both ends). */
    if (t == CF_TYPE_DATE && (val < CF_CLI_DATE_MIN || val > CF_CLI_DATE_MAX))
        return cf_cli_msg_fail(msg, cap,
                               "DATE: %.*s is out of range (days %d..%d, 0001-01-01..9999-12-31)",
                               (int)(len > 60 ? 60 : len), s, CF_CLI_DATE_MIN, CF_CLI_DATE_MAX);
    /* A column whose scale is known is a table's or a Parquet file's: its unscaled
     * integers, as its decimal texts, have at most the precision's digits (what
     * Kudu takes; the human form printed for the value must read back). */
    bool dec = t == CF_TYPE_DECIMAL32 || t == CF_TYPE_DECIMAL64 || t == CF_TYPE_DECIMAL128;
    if (dec && scale >= 0) {
        int pmax = t == CF_TYPE_DECIMAL32 ? 9 : t == CF_TYPE_DECIMAL64 ? 18 : 38;
        int prec = precision > 0 && precision < pmax ? precision : pmax;
        int nd = 0;
        for (cf_cli_u128 m = mag; m != 0; m /= 10)
            nd++;
        if (nd > prec)
            return cf_cli_msg_fail(
                msg, cap, "%s: %.*s has more than the %d digits of DECIMAL(%d,%d)", cf_type_name(t),
                (int)(len > 60 ? 60 : len), s, prec, prec, scale);
    }
    switch (bits) {
    case 8: {
        uint8_t x = (uint8_t)val;
        memcpy(slot, &x, 1);
        break;
    }
    case 16: {
        uint16_t x = (uint16_t)val;
        memcpy(slot, &x, 2);
        break;
    }
    case 32: {
        uint32_t x = (uint32_t)val;
        memcpy(slot, &x, 4);
        break;
    }
    case 64: {
        uint64_t x = (uint64_t)val;
        memcpy(slot, &x, 8);
        break;
    }
    default: memcpy(slot, &val, 16); break;
    }
    return 0;
}

/* "0x7fc00001" -> bits, at most max_digits hex digits. */
static int parse_bits(const char *s, size_t len, int max_digits, uint64_t *out)
{
    if (len < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || len - 2 > (size_t)max_digits)
        return -1;
    uint64_t v = 0;
    for (size_t i = 2; i < len; i++) {
        int h = cf_cli_hex_digit((unsigned char)s[i]);
        if (h < 0)
            return -1;
        v = (v << 4) | (uint64_t)h;
    }
    *out = v;
    return 0;
}

/* Decimal number text as digits without leading or trailing zeros and the power
 * of ten of the first one (value = 0.D x 10^exp), for comparing two texts
 * exactly. *nonzero: a digit other than 0. */
typedef struct dec_norm {
    bool neg, nonzero, long_text; /* long_text: more digits than d holds */
    char d[800];
    size_t nd;
    long exp;
} dec_norm;

static void dec_normalize(const char *s, size_t len, dec_norm *n)
{
    memset(n, 0, sizeof(*n));
    size_t i = 0;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        n->neg = s[i++] == '-';
    long point = 0;
    bool seen_point = false;
    for (; i < len && s[i] != 'e' && s[i] != 'E'; i++) {
        if (s[i] == '.') {
            seen_point = true;
            continue;
        }
        if (s[i] == '0' && n->nd == 0) { /* a leading zero */
            if (seen_point)
                point--;
            continue;
        }
        if (!seen_point)
            point++;
        if (n->nd < sizeof(n->d))
            n->d[n->nd++] = s[i];
        else
            n->long_text = true;
    }
    long e = 0;
    if (i < len) { /* the exponent, clamped: the callers' texts are within range */
        i++;
        bool eneg = i < len && s[i] == '-';
        if (i < len && (s[i] == '-' || s[i] == '+'))
            i++;
        for (; i < len; i++)
            if (e < 100000)
                e = e * 10 + (s[i] - '0');
        e = eneg ? -e : e;
    }
    while (n->nd > 0 && n->d[n->nd - 1] == '0')
        n->nd--;
    n->nonzero = n->nd > 0;
    n->exp = point + e;
}

static bool dec_same(const char *a, size_t alen, const char *b)
{
    dec_norm x, y;
    dec_normalize(a, alen, &x);
    dec_normalize(b, strlen(b), &y);
    if (!x.nonzero || !y.nonzero)
        return x.nonzero == y.nonzero;
    if (x.long_text || y.long_text)
        return false; /* no shortest text is that long */
    return x.neg == y.neg && x.nd == y.nd && x.exp == y.exp && memcmp(x.d, y.d, x.nd) == 0;
}

/* The shortest decimal text that reads back as x (as a float when is_float):
 * the nearest one of the fewest significant digits. */
static void shortest_text(char out[CF_CLI_NUM_CAP], double x, bool is_float)
{
    for (int n = 1; n <= 17; n++) {
        snprintf(out, CF_CLI_NUM_CAP, "%.*g", n, x);
        if (is_float ? strtof(out, NULL) == (float)x : strtod(out, NULL) == x)
            return;
    }
}

/* Does decimal text s (which read as `got`) survive the conversion? Text that is
 * not zero but reads as zero does not; nor does text that reads as a subnormal
 * unless it is that subnormal's shortest text (the nearest of the fewest digits
 * that read back as it; for a FLOAT also the shortest text of the same value as
 * a double, the form the golden files use): below the normal range a value
 * keeps fewer significant bits, so any other text, 3e-324 say, would be stored
 * as a different number (5e-324). */
static int check_underflow(const char *s, size_t len, cf_type t, double got, char *msg, size_t cap)
{
    dec_norm n;
    int cls = t == CF_TYPE_FLOAT ? fpclassify((float)got) : fpclassify(got);
    if (cls != FP_ZERO && cls != FP_SUBNORMAL)
        return 0;
    dec_normalize(s, len, &n);
    if (cls == FP_ZERO && !n.nonzero)
        return 0;
    char shortest[CF_CLI_NUM_CAP], wide[CF_CLI_NUM_CAP] = "", printed[CF_CLI_NUM_CAP];
    bool q;
    if (t == CF_TYPE_FLOAT)
        cf_cli_format_float(printed, (float)got, &q);
    else
        cf_cli_format_double(printed, got, &q);
    if (cls == FP_ZERO) {
        snprintf(shortest, sizeof shortest, "%s", printed);
    } else {
        shortest_text(shortest, got, t == CF_TYPE_FLOAT);
        if (t == CF_TYPE_FLOAT)
            shortest_text(wide, got, false);
    }
    if (cls == FP_ZERO)
        return cf_cli_msg_fail(msg, cap,
                               "%s: %.*s is too small: it would be stored as %s (underflow)",
                               cf_type_name(t), (int)(len > 60 ? 60 : len), s, shortest);
    /* Also what cfile prints for it, so that every printed value reads back. */
    if (dec_same(s, len, shortest) || (wide[0] != '\0' && dec_same(s, len, wide)) ||
        dec_same(s, len, printed))
        return 0;
    return cf_cli_msg_fail(msg, cap,
                           "%s: %.*s is below the normal range and would be stored as %s "
                           "(write that, or the bits as 0x...)",
                           cf_type_name(t), (int)(len > 60 ? 60 : len), s, shortest);
}

static int parse_floating(const cf_json *v, cf_type t, void *slot, char *msg, size_t cap)
{
    bool is_float = t == CF_TYPE_FLOAT;
    if (v->kind != CF_JSON_NUMBER && v->kind != CF_JSON_STRING)
        return cf_cli_msg_fail(msg, cap, "%s: expected a number, got %s", cf_type_name(t),
                               cf_json_kind_name(v->kind));
    const char *s = v->str;
    size_t len = v->len;
    if (strcmp(s, "NaN") == 0) {
        if (is_float) {
            uint32_t b = CANON_NAN32;
            memcpy(slot, &b, 4);
        } else {
            uint64_t b = CANON_NAN64;
            memcpy(slot, &b, 8);
        }
        return 0;
    }
    uint64_t bits;
    if (v->kind == CF_JSON_STRING && parse_bits(s, len, is_float ? 8 : 16, &bits) == 0) {
        if (is_float) {
            uint32_t b = (uint32_t)bits;
            memcpy(slot, &b, 4);
        } else {
            memcpy(slot, &bits, 8);
        }
        return 0;
    }
    if (strcmp(s, "Infinity") == 0 || strcmp(s, "-Infinity") == 0) {
        double d = s[0] == '-' ? -INFINITY : INFINITY;
        if (is_float) {
            float f = (float)d;
            memcpy(slot, &f, 4);
        } else {
            memcpy(slot, &d, 8);
        }
        return 0;
    }
    /* Plain decimal text only: strtod would also take "inf", "nan(...)" and hex floats. */
    bool ok = len > 0 && strlen(s) == len;
    for (size_t i = 0; ok && i < len; i++)
        ok = (s[i] >= '0' && s[i] <= '9') || s[i] == '-' || s[i] == '+' || s[i] == '.' ||
             s[i] == 'e' || s[i] == 'E';
    char *end = NULL;
    errno = 0;
    bool overflow = false;
    if (ok && is_float) {
        /* strtof rounds the decimal once; (float)strtod could round twice. */
        float f = strtof(s, &end);
        ok = end == s + len;
        overflow = isinf(f);
        memcpy(slot, &f, 4);
    } else if (ok) {
        double d = strtod(s, &end);
        ok = end == s + len;
        overflow = isinf(d);
        memcpy(slot, &d, 8);
    }
    /* Decimal text that does not fit is an error, not infinity (which has its own
     * form); text too small for the type is one too (check_underflow). */
    if (ok && overflow)
        return cf_cli_msg_fail(msg, cap, "%s: %.*s is out of range (use \"Infinity\" for infinity)",
                               cf_type_name(t), (int)(len > 60 ? 60 : len), s);
    if (!ok)
        return cf_cli_msg_fail(msg, cap, "%s: not a number: %.*s", cf_type_name(t),
                               (int)(len > 60 ? 60 : len), s);
    double got;
    if (is_float) {
        float f;
        memcpy(&f, slot, 4);
        got = f;
    } else {
        memcpy(&got, slot, 8);
    }
    return check_underflow(s, len, t, got, msg, cap);
}

/* ---- bytes --------------------------------------------------------------------------- */

static int decode_hex(const char *s, size_t len, cf_cli_arena *arena, cf_slice *out, char *msg,
                      size_t cap)
{
    if (len % 2 != 0)
        return cf_cli_msg_fail(msg, cap, "hex string of odd length %zu", len);
    uint8_t *d = cf_cli_arena_alloc(arena, len / 2);
    if (d == NULL)
        return cf_cli_msg_fail(msg, cap, "out of memory");
    if (cf_cli_hex_decode(d, s, len) != 0)
        return cf_cli_msg_fail(msg, cap, "not a hex string: %.*s", (int)(len > 60 ? 60 : len), s);
    out->data = d;
    out->len = len / 2;
    return 0;
}

static int parse_bytes(const cf_json *v, cf_type t, cf_slice *out, cf_cli_arena *arena, char *msg,
                       size_t cap);

/* {"repeat": unit, "count": n}: n copies of unit (unit in the type's own form). */
static int parse_repeat(const cf_json *v, cf_type t, cf_slice *out, cf_cli_arena *arena, char *msg,
                        size_t cap)
{
    const cf_json *unit = cf_json_get(v, "repeat");
    const cf_json *count = cf_json_get(v, "count");
    bool neg;
    cf_cli_u128 n;
    if (unit == NULL || count == NULL || !cf_json_is_integer(count) ||
        parse_int_text(count->str, count->len, &neg, &n) != 0 || neg)
        return cf_cli_msg_fail(msg, cap, "%s: {\"repeat\": ..., \"count\": N} needs both fields",
                               cf_type_name(t));
    cf_slice u;
    if (parse_bytes(unit, t, &u, arena, msg, cap) != 0)
        return -1;
    if (n > (cf_cli_u128)(SIZE_MAX / 2) ||
        (u.len != 0 && n > (cf_cli_u128)((SIZE_MAX / 2) / u.len)))
        return cf_cli_msg_fail(msg, cap, "%s: repeat count too large", cf_type_name(t));
    size_t total = u.len * (size_t)n;
    uint8_t *d = cf_cli_arena_alloc(arena, total);
    if (d == NULL)
        return cf_cli_msg_fail(msg, cap, "out of memory");
    for (size_t i = 0; i < (size_t)n; i++)
        memcpy(d + i * u.len, u.data, u.len);
    out->data = d;
    out->len = total;
    return 0;
}

static int parse_bytes(const cf_json *v, cf_type t, cf_slice *out, cf_cli_arena *arena, char *msg,
                       size_t cap)
{
    if (v->kind == CF_JSON_STRING) {
        if (t == CF_TYPE_BINARY)
            return decode_hex(v->str, v->len, arena, out, msg, cap);
        out->data = (const uint8_t *)v->str;
        out->len = v->len;
        return 0;
    }
    if (v->kind == CF_JSON_OBJECT) {
        const cf_json *hex = cf_json_get(v, "hex");
        if (hex != NULL && hex->kind == CF_JSON_STRING && v->n == 1)
            return decode_hex(hex->str, hex->len, arena, out, msg, cap);
        if (cf_json_get(v, "repeat") != NULL)
            return parse_repeat(v, t, out, arena, msg, cap);
    }
    return cf_cli_msg_fail(
        msg, cap, "%s: expected a string, {\"hex\": ...} or {\"repeat\": ..., \"count\": N}",
        cf_type_name(t));
}

/* ---- one value ----------------------------------------------------------------------- */

int cf_cli_value_parse(const cf_json *v, cf_type t, void *slot, bool *is_null, cf_cli_arena *arena,
                       char *msg, size_t msg_cap)
{
    return cf_cli_value_parse_col(v, t, 0, -1, slot, is_null, arena, msg, msg_cap);
}

int cf_cli_value_parse_col(const cf_json *v, cf_type t, int precision, int scale, void *slot,
                           bool *is_null, cf_cli_arena *arena, char *msg, size_t msg_cap)
{
    size_t width = cf_type_size(t);
    memset(slot, 0, width);
    *is_null = v->kind == CF_JSON_NULL;
    if (*is_null)
        return 0;
    switch (t) {
    case CF_TYPE_BOOL: {
        uint8_t b;
        if (v->kind == CF_JSON_TRUE || v->kind == CF_JSON_FALSE)
            b = v->kind == CF_JSON_TRUE;
        else if ((v->kind == CF_JSON_NUMBER || v->kind == CF_JSON_STRING) &&
                 (strcmp(v->str, "0") == 0 || strcmp(v->str, "1") == 0))
            b = v->str[0] == '1';
        else if (v->kind == CF_JSON_STRING &&
                 (strcasecmp(v->str, "true") == 0 || strcasecmp(v->str, "false") == 0))
            b = (v->str[0] | 0x20) == 't';
        else
            return cf_cli_msg_fail(msg, msg_cap, "BOOL: expected true or false, got %s",
                                   cf_json_kind_name(v->kind));
        memcpy(slot, &b, 1);
        return 0;
    }
    case CF_TYPE_FLOAT:
    case CF_TYPE_DOUBLE: return parse_floating(v, t, slot, msg, msg_cap);
    case CF_TYPE_STRING:
    case CF_TYPE_VARCHAR:
    case CF_TYPE_BINARY: {
        cf_slice s;
        if (parse_bytes(v, t, &s, arena, msg, msg_cap) != 0)
            return -1;
        memcpy(slot, &s, sizeof(s));
        return 0;
    }
    default:
        if (!cf_type_valid((int)t))
            return cf_cli_msg_fail(msg, msg_cap, "unknown type %d", (int)t);
        return parse_integer(v, t, precision, scale, slot, msg, msg_cap);
    }
}

int cf_cli_value_parse_text(const char *text, size_t len, cf_type t, void *slot,
                            cf_cli_arena *arena, char *msg, size_t msg_cap)
{
    return cf_cli_value_parse_text_col(text, len, t, 0, -1, slot, arena, msg, msg_cap);
}

int cf_cli_value_parse_text_col(const char *text, size_t len, cf_type t, int precision, int scale,
                                void *slot, cf_cli_arena *arena, char *msg, size_t msg_cap)
{
    bool is_null;
    if (text[len] != '\0' || cf_type_is_binary(t)) {
        /* The parser reads NUL-terminated text, and a STRING keeps pointing at it:
         * a copy in the arena. */
        char *copy = cf_cli_arena_alloc(arena, len + 1);
        if (copy == NULL)
            return cf_cli_msg_fail(msg, msg_cap, "out of memory");
        memcpy(copy, text, len);
        copy[len] = '\0';
        text = copy;
    }
    cf_json raw = {CF_JSON_STRING, text, len, 0, NULL, NULL};
    return cf_cli_value_parse_col(&raw, t, precision, scale, slot, &is_null, arena, msg, msg_cap);
}

int cf_cli_value_parse_arg(const char *text, cf_type t, void *slot, cf_cli_arena *arena, char *msg,
                           size_t msg_cap)
{
    return cf_cli_value_parse_arg_col(text, t, 0, -1, slot, arena, msg, msg_cap);
}

int cf_cli_value_parse_arg_col(const char *text, cf_type t, int precision, int scale, void *slot,
                               cf_cli_arena *arena, char *msg, size_t msg_cap)
{
    cf_json_doc doc;
    bool is_null = false;
    int rc = -1;
    size_t len = strlen(text);
    char jmsg[200];
    if (msg != NULL && msg_cap > 0)
        msg[0] = '\0';
    /* The document's strings are copied into the arena: the slot must outlive doc. */
    if (cf_json_parse(&doc, text, len, jmsg, sizeof(jmsg)) == 0) {
        if (doc.root.kind == CF_JSON_STRING || doc.root.kind == CF_JSON_OBJECT) {
            /* Text forms: make sure the bytes live in the arena. */
            rc = cf_cli_value_parse_col(&doc.root, t, precision, scale, slot, &is_null, arena, msg,
                                        msg_cap);
            if (rc == 0 && cf_type_is_binary(t)) {
                cf_slice s;
                memcpy(&s, slot, sizeof(s));
                uint8_t *copy = cf_cli_arena_alloc(arena, s.len);
                if (copy == NULL) {
                    rc = cf_cli_msg_fail(msg, msg_cap, "out of memory");
                } else {
                    if (s.len > 0)
                        memcpy(copy, s.data, s.len);
                    s.data = copy;
                    memcpy(slot, &s, sizeof(s));
                }
            }
        } else if (doc.root.kind != CF_JSON_NULL) {
            rc = cf_cli_value_parse_col(&doc.root, t, precision, scale, slot, &is_null, arena, msg,
                                        msg_cap);
        } else {
            rc = cf_cli_msg_fail(msg, msg_cap, "a seek target cannot be null");
        }
    }
    cf_json_doc_dispose(&doc);
    if (rc == 0)
        return 0;
    /* Not a value form of the type: take the raw text. */
    char msg2[256];
    if (cf_cli_value_parse_text_col(text, len, t, precision, scale, slot, arena, msg2,
                                    sizeof(msg2)) == 0)
        return 0;
    /* Keep the message of the JSON reading when there was one: it is the likelier intent. */
    if (msg != NULL && msg_cap > 0 && msg[0] == '\0')
        snprintf(msg, msg_cap, "%s", msg2);
    return -1;
}

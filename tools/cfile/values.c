/* Value forms <-> memory forms, and columns of parsed values (see values.h and
 * ../shared/golden/README.md "Value forms"). */
#include "values.h"
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *msg, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(char *msg, size_t cap, const char *fmt, ...)
{
    if (msg != NULL && cap > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, cap, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* ---- numbers to text ----------------------------------------------------------------- */

#define CANON_NAN32 0x7fc00000u
#define CANON_NAN64 0x7ff8000000000000ull

/* "1" -> "1.0" and "-0" -> "-0.0", so a float never reads back as an integer. */
static void mark_float(char *out)
{
    if (strpbrk(out, ".eE") == NULL) {
        size_t n = strlen(out);
        if (n + 3 <= CF_CLI_NUM_CAP)
            memcpy(out + n, ".0", 3);
    }
}

void cf_cli_format_float(char out[CF_CLI_NUM_CAP], float f, bool *is_string)
{
    uint32_t bits;
    memcpy(&bits, &f, 4);
    *is_string = true;
    if (isnan(f)) {
        if (bits == CANON_NAN32)
            strcpy(out, "NaN");
        else
            snprintf(out, CF_CLI_NUM_CAP, "0x%08" PRIx32, bits);
        return;
    }
    if (isinf(f)) {
        strcpy(out, f > 0 ? "Infinity" : "-Infinity");
        return;
    }
    *is_string = false;
    /* A float's shortest round-trip form has at most 9 digits; if one of <= 6 digits
     * exists, %.6g finds it (the float lies within half a 6-digit step of it). */
    for (int prec = 6; prec <= 9; prec++) {
        snprintf(out, CF_CLI_NUM_CAP, "%.*g", prec, (double)f);
        float back = strtof(out, NULL);
        uint32_t bb;
        memcpy(&bb, &back, 4);
        if (bb == bits)
            break;
    }
    mark_float(out);
}

void cf_cli_format_double(char out[CF_CLI_NUM_CAP], double d, bool *is_string)
{
    uint64_t bits;
    memcpy(&bits, &d, 8);
    *is_string = true;
    if (isnan(d)) {
        if (bits == CANON_NAN64)
            strcpy(out, "NaN");
        else
            snprintf(out, CF_CLI_NUM_CAP, "0x%016" PRIx64, bits);
        return;
    }
    if (isinf(d)) {
        strcpy(out, d > 0 ? "Infinity" : "-Infinity");
        return;
    }
    *is_string = false;
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(out, CF_CLI_NUM_CAP, "%.*g", prec, d);
        double back = strtod(out, NULL);
        uint64_t bb;
        memcpy(&bb, &back, 8);
        if (bb == bits)
            break;
    }
    mark_float(out);
}

void cf_cli_format_i128(char out[CF_CLI_NUM_CAP], const void *v16)
{
    cf_cli_i128 v;
    memcpy(&v, v16, 16);
    cf_cli_u128 mag = v < 0 ? (cf_cli_u128)0 - (cf_cli_u128)v : (cf_cli_u128)v;
    char tmp[48];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + (int)(mag % 10));
        mag /= 10;
    } while (mag != 0);
    size_t o = 0;
    if (v < 0)
        out[o++] = '-';
    while (n > 0)
        out[o++] = tmp[--n];
    out[o] = '\0';
}

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

static int parse_integer(const cf_json *v, cf_type t, void *slot, char *msg, size_t cap)
{
    const char *s;
    size_t len;
    if (v->kind == CF_JSON_NUMBER || v->kind == CF_JSON_STRING) {
        s = v->str;
        len = v->len;
    } else {
        return fail(msg, cap, "%s: expected an integer, got %s", cf_type_name(t),
                    cf_json_kind_name(v->kind));
    }
    bool neg;
    cf_cli_u128 mag;
    if (parse_int_text(s, len, &neg, &mag) != 0)
        return fail(msg, cap, "%s: not an integer: %.*s", cf_type_name(t),
                    (int)(len > 60 ? 60 : len), s);
    int bits;
    bool is_signed = true;
    switch (t) {
    case CF_TYPE_UINT8:
        bits = 8;
        is_signed = false;
        break;
    case CF_TYPE_UINT16:
        bits = 16;
        is_signed = false;
        break;
    case CF_TYPE_UINT32:
        bits = 32;
        is_signed = false;
        break;
    case CF_TYPE_UINT64:
        bits = 64;
        is_signed = false;
        break;
    case CF_TYPE_INT8: bits = 8; break;
    case CF_TYPE_INT16: bits = 16; break;
    case CF_TYPE_INT32:
    case CF_TYPE_DATE:
    case CF_TYPE_DECIMAL32: bits = 32; break;
    case CF_TYPE_INT64:
    case CF_TYPE_UNIXTIME_MICROS:
    case CF_TYPE_DECIMAL64: bits = 64; break;
    default: bits = 128; break;
    }
    bool ok;
    if (!is_signed) {
        ok = (!neg || mag == 0) && (bits == 128 || mag <= (((cf_cli_u128)1 << bits) - 1));
    } else {
        cf_cli_u128 lim = (cf_cli_u128)1 << (bits - 1); /* |min| */
        ok = neg ? mag <= lim : mag < lim;
    }
    if (!ok)
        return fail(msg, cap, "%s: %.*s is out of range", cf_type_name(t),
                    (int)(len > 60 ? 60 : len), s);
    cf_cli_i128 val = neg ? (cf_cli_i128)((cf_cli_u128)0 - mag) : (cf_cli_i128)mag;
    /* Kudu's DATE is days since 1970-01-01 in 0001-01-01..9999-12-31
     * (DataTypeTraits<DATE>; the golden date-* files hold both ends). */
    if (t == CF_TYPE_DATE && (val < CF_CLI_DATE_MIN || val > CF_CLI_DATE_MAX))
        return fail(msg, cap, "DATE: %.*s is out of range (days %d..%d, 0001-01-01..9999-12-31)",
                    (int)(len > 60 ? 60 : len), s, CF_CLI_DATE_MIN, CF_CLI_DATE_MAX);
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

static int parse_floating(const cf_json *v, cf_type t, void *slot, char *msg, size_t cap)
{
    bool is_float = t == CF_TYPE_FLOAT;
    if (v->kind != CF_JSON_NUMBER && v->kind != CF_JSON_STRING)
        return fail(msg, cap, "%s: expected a number, got %s", cf_type_name(t),
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
     * form); text too small for the type rounds to 0 or a subnormal, as it must. */
    if (ok && overflow)
        return fail(msg, cap, "%s: %.*s is out of range (use \"Infinity\" for infinity)",
                    cf_type_name(t), (int)(len > 60 ? 60 : len), s);
    if (!ok)
        return fail(msg, cap, "%s: not a number: %.*s", cf_type_name(t), (int)(len > 60 ? 60 : len),
                    s);
    return 0;
}

/* ---- bytes --------------------------------------------------------------------------- */

static int decode_hex(const char *s, size_t len, cf_arena *arena, cf_slice *out, char *msg,
                      size_t cap)
{
    if (len % 2 != 0)
        return fail(msg, cap, "hex string of odd length %zu", len);
    uint8_t *d = cf_arena_alloc(arena, len / 2);
    if (d == NULL)
        return fail(msg, cap, "out of memory");
    if (cf_cli_hex_decode(d, s, len) != 0)
        return fail(msg, cap, "not a hex string: %.*s", (int)(len > 60 ? 60 : len), s);
    out->data = d;
    out->len = len / 2;
    return 0;
}

static int parse_bytes(const cf_json *v, cf_type t, cf_slice *out, cf_arena *arena, char *msg,
                       size_t cap);

/* {"repeat": unit, "count": n}: n copies of unit (unit in the type's own form). */
static int parse_repeat(const cf_json *v, cf_type t, cf_slice *out, cf_arena *arena, char *msg,
                        size_t cap)
{
    const cf_json *unit = cf_json_get(v, "repeat");
    const cf_json *count = cf_json_get(v, "count");
    bool neg;
    cf_cli_u128 n;
    if (unit == NULL || count == NULL || !cf_json_is_integer(count) ||
        parse_int_text(count->str, count->len, &neg, &n) != 0 || neg)
        return fail(msg, cap, "%s: {\"repeat\": ..., \"count\": N} needs both fields",
                    cf_type_name(t));
    cf_slice u;
    if (parse_bytes(unit, t, &u, arena, msg, cap) != 0)
        return -1;
    if (n > (cf_cli_u128)(SIZE_MAX / 2) ||
        (u.len != 0 && n > (cf_cli_u128)((SIZE_MAX / 2) / u.len)))
        return fail(msg, cap, "%s: repeat count too large", cf_type_name(t));
    size_t total = u.len * (size_t)n;
    uint8_t *d = cf_arena_alloc(arena, total);
    if (d == NULL)
        return fail(msg, cap, "out of memory");
    for (size_t i = 0; i < (size_t)n; i++)
        memcpy(d + i * u.len, u.data, u.len);
    out->data = d;
    out->len = total;
    return 0;
}

static int parse_bytes(const cf_json *v, cf_type t, cf_slice *out, cf_arena *arena, char *msg,
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
    return fail(msg, cap,
                "%s: expected a string, {\"hex\": ...} or {\"repeat\": ..., \"count\": N}",
                cf_type_name(t));
}

/* ---- one value ----------------------------------------------------------------------- */

int cf_cli_value_parse(const cf_json *v, cf_type t, void *slot, bool *is_null, cf_arena *arena,
                       char *msg, size_t msg_cap)
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
                 (strcmp(v->str, "true") == 0 || strcmp(v->str, "false") == 0))
            b = v->str[0] == 't';
        else
            return fail(msg, msg_cap, "BOOL: expected true or false, got %s",
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
            return fail(msg, msg_cap, "unknown type %d", (int)t);
        return parse_integer(v, t, slot, msg, msg_cap);
    }
}

int cf_cli_value_parse_arg(const char *text, cf_type t, void *slot, cf_arena *arena, char *msg,
                           size_t msg_cap)
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
            rc = cf_cli_value_parse(&doc.root, t, slot, &is_null, arena, msg, msg_cap);
            if (rc == 0 && cf_type_is_binary(t)) {
                cf_slice s;
                memcpy(&s, slot, sizeof(s));
                uint8_t *copy = cf_arena_alloc(arena, s.len);
                if (copy == NULL) {
                    rc = fail(msg, msg_cap, "out of memory");
                } else {
                    if (s.len > 0)
                        memcpy(copy, s.data, s.len);
                    s.data = copy;
                    memcpy(slot, &s, sizeof(s));
                }
            }
        } else if (doc.root.kind != CF_JSON_NULL) {
            rc = cf_cli_value_parse(&doc.root, t, slot, &is_null, arena, msg, msg_cap);
        } else {
            rc = fail(msg, msg_cap, "a seek target cannot be null");
        }
    }
    cf_json_doc_dispose(&doc);
    if (rc == 0)
        return 0;
    /* Not a value form of the type: take the raw text. */
    char *copy = cf_arena_alloc(arena, len + 1);
    if (copy == NULL)
        return fail(msg, msg_cap, "out of memory");
    memcpy(copy, text, len + 1);
    cf_json raw = {CF_JSON_STRING, copy, len, 0, NULL, NULL};
    char msg2[256];
    if (cf_cli_value_parse(&raw, t, slot, &is_null, arena, msg2, sizeof(msg2)) == 0)
        return 0;
    /* Keep the message of the JSON reading when there was one: it is the likelier intent. */
    if (msg != NULL && msg_cap > 0 && msg[0] == '\0')
        snprintf(msg, msg_cap, "%s", msg2);
    return -1;
}

void cf_cli_value_write(cf_jw *w, cf_type t, const void *slot)
{
    char buf[CF_CLI_NUM_CAP];
    bool is_string;
    switch (t) {
    case CF_TYPE_UINT8: {
        uint8_t x;
        memcpy(&x, slot, 1);
        cf_jw_uint(w, x);
        break;
    }
    case CF_TYPE_INT8: {
        int8_t x;
        memcpy(&x, slot, 1);
        cf_jw_int(w, x);
        break;
    }
    case CF_TYPE_UINT16: {
        uint16_t x;
        memcpy(&x, slot, 2);
        cf_jw_uint(w, x);
        break;
    }
    case CF_TYPE_INT16: {
        int16_t x;
        memcpy(&x, slot, 2);
        cf_jw_int(w, x);
        break;
    }
    case CF_TYPE_UINT32: {
        uint32_t x;
        memcpy(&x, slot, 4);
        cf_jw_uint(w, x);
        break;
    }
    case CF_TYPE_INT32:
    case CF_TYPE_DATE:
    case CF_TYPE_DECIMAL32: {
        int32_t x;
        memcpy(&x, slot, 4);
        cf_jw_int(w, x);
        break;
    }
    case CF_TYPE_UINT64: {
        uint64_t x;
        memcpy(&x, slot, 8);
        cf_jw_uint(w, x);
        break;
    }
    case CF_TYPE_INT64:
    case CF_TYPE_UNIXTIME_MICROS:
    case CF_TYPE_DECIMAL64: {
        int64_t x;
        memcpy(&x, slot, 8);
        cf_jw_int(w, x);
        break;
    }
    case CF_TYPE_INT128:
    case CF_TYPE_DECIMAL128:
        cf_cli_format_i128(buf, slot);
        cf_jw_cstr(w, buf);
        break;
    case CF_TYPE_BOOL: {
        uint8_t x;
        memcpy(&x, slot, 1);
        cf_jw_bool(w, x != 0);
        break;
    }
    case CF_TYPE_FLOAT: {
        float f;
        memcpy(&f, slot, 4);
        cf_cli_format_float(buf, f, &is_string);
        if (is_string)
            cf_jw_cstr(w, buf);
        else
            cf_jw_raw(w, buf);
        break;
    }
    case CF_TYPE_DOUBLE: {
        double d;
        memcpy(&d, slot, 8);
        cf_cli_format_double(buf, d, &is_string);
        if (is_string)
            cf_jw_cstr(w, buf);
        else
            cf_jw_raw(w, buf);
        break;
    }
    case CF_TYPE_STRING:
    case CF_TYPE_VARCHAR: {
        cf_slice s;
        memcpy(&s, slot, sizeof(s));
        cf_jw_bytes(w, s.data, s.len);
        break;
    }
    case CF_TYPE_BINARY: {
        cf_slice s;
        memcpy(&s, slot, sizeof(s));
        cf_jw_hex(w, s.data, s.len);
        break;
    }
    default: cf_jw_null(w); break;
    }
}

static bool bit(const uint8_t *bm, size_t i)
{
    return (bm[i >> 3] >> (i & 7)) & 1;
}

void cf_cli_row_write(cf_jw *w, cf_type t, bool is_array, const cf_batch *b, size_t i)
{
    if (b->nonnull != NULL && !bit(b->nonnull, i)) {
        cf_jw_null(w);
        return;
    }
    size_t width = cf_type_size(t);
    const uint8_t *vals = b->values;
    if (!is_array) {
        cf_cli_value_write(w, t, vals + i * width);
        return;
    }
    cf_jw_arr_begin(w);
    if (b->elem_offsets != NULL) {
        for (uint32_t e = b->elem_offsets[i]; e < b->elem_offsets[i + 1]; e++) {
            if (b->elem_nonnull != NULL && !bit(b->elem_nonnull, e))
                cf_jw_null(w);
            else
                cf_cli_value_write(w, t, vals + (size_t)e * width);
        }
    }
    cf_jw_arr_end(w);
}

/* ---- columns ------------------------------------------------------------------------- */

void cf_cli_column_init(cf_cli_column *c, cf_type t, bool is_array, cf_arena *arena)
{
    memset(c, 0, sizeof(*c));
    c->type = t;
    c->is_array = is_array;
    c->width = cf_type_size(t);
    c->arena = arena;
}

void cf_cli_column_dispose(cf_cli_column *c)
{
    free(c->nonnull);
    free(c->values);
    free(c->elem_nonnull);
    free(c->elem_counts);
    memset(c, 0, sizeof(*c));
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 64;
    while (ncap < need)
        ncap *= 2;
    void *np = realloc(*p, ncap * elem);
    if (np == NULL)
        return -1;
    *p = np;
    *cap = ncap;
    return 0;
}

/* Bitmaps grow with the rows: bytes for `cap` bits, new bytes zeroed. */
static int grow_bits(uint8_t **bm, size_t old_cap, size_t new_cap)
{
    size_t ob = (old_cap + 7) / 8, nb = (new_cap + 7) / 8;
    if (nb <= ob && *bm != NULL)
        return 0;
    uint8_t *n = realloc(*bm, nb ? nb : 1);
    if (n == NULL)
        return -1;
    memset(n + ob, 0, (nb ? nb : 1) - ob);
    *bm = n;
    return 0;
}

static void set_bit(uint8_t *bm, size_t i)
{
    bm[i >> 3] |= (uint8_t)(1u << (i & 7));
}

static int add_row_slot(cf_cli_column *c, char *msg, size_t cap)
{
    if (c->rows == c->rows_cap) {
        size_t old = c->rows_cap;
        size_t ncap = old ? old * 2 : 256;
        if (grow_bits(&c->nonnull, old, ncap) != 0)
            return fail(msg, cap, "out of memory");
        if (c->is_array) {
            uint32_t *ec = realloc(c->elem_counts, ncap * sizeof(uint32_t));
            if (ec == NULL)
                return fail(msg, cap, "out of memory");
            c->elem_counts = ec;
        } else {
            void *vp = c->values;
            size_t vcap = old;
            if (grow(&vp, &vcap, ncap, c->width) != 0)
                return fail(msg, cap, "out of memory");
            c->values = vp;
        }
        c->rows_cap = ncap;
    }
    return 0;
}

int cf_cli_column_add(cf_cli_column *c, const cf_json *v, char *msg, size_t msg_cap)
{
    if (add_row_slot(c, msg, msg_cap) != 0)
        return -1;
    size_t r = c->rows;
    bool is_null;
    if (!c->is_array) {
        if (cf_cli_value_parse(v, c->type, c->values + r * c->width, &is_null, c->arena, msg,
                               msg_cap) != 0)
            return -1;
        if (is_null)
            c->nulls++;
        else
            set_bit(c->nonnull, r);
        c->rows++;
        return 0;
    }
    if (v->kind == CF_JSON_NULL) {
        c->elem_counts[r] = 0;
        c->nulls++;
        c->rows++;
        return 0;
    }
    if (v->kind != CF_JSON_ARRAY)
        return fail(msg, msg_cap, "array column: expected an array or null, got %s",
                    cf_json_kind_name(v->kind));
    if (v->n > UINT32_MAX)
        return fail(msg, msg_cap, "array cell of %zu elements", v->n);
    size_t need = c->elems + v->n;
    if (need > c->elems_cap) {
        size_t old = c->elems_cap;
        void *vp = c->values;
        size_t vcap = old;
        if (grow(&vp, &vcap, need, c->width) != 0)
            return fail(msg, msg_cap, "out of memory");
        c->values = vp;
        if (grow_bits(&c->elem_nonnull, old, vcap) != 0)
            return fail(msg, msg_cap, "out of memory");
        c->elems_cap = vcap;
    }
    for (size_t i = 0; i < v->n; i++) {
        size_t e = c->elems + i;
        if (cf_cli_value_parse(&v->items[i], c->type, c->values + e * c->width, &is_null, c->arena,
                               msg, msg_cap) != 0)
            return -1;
        if (is_null)
            c->elem_nulls++;
        else
            set_bit(c->elem_nonnull, e);
    }
    c->elems += v->n;
    c->elem_counts[r] = (uint32_t)v->n;
    set_bit(c->nonnull, r);
    c->rows++;
    return 0;
}

/* Bits [start, start + n) of src into dst from bit 0. */
static void copy_bits(uint8_t *dst, const uint8_t *src, size_t start, size_t n)
{
    memset(dst, 0, (n + 7) / 8);
    for (size_t i = 0; i < n; i++)
        if (bit(src, start + i))
            set_bit(dst, i);
}

/* A view of bits [start, start + n): in place when byte aligned, else copied into *tmp. */
static const uint8_t *bits_at(const uint8_t *src, size_t start, size_t n, uint8_t **tmp,
                              size_t *tmp_cap)
{
    if (start % 8 == 0)
        return src + start / 8;
    size_t need = (n + 7) / 8;
    if (need > *tmp_cap) {
        uint8_t *t = realloc(*tmp, need);
        if (t == NULL)
            return NULL;
        *tmp = t;
        *tmp_cap = need;
    }
    copy_bits(*tmp, src, start, n);
    return *tmp;
}

cf_status cf_cli_column_append(const cf_cli_column *c, cf_writer *w, size_t batch, cf_error *err)
{
    cf_status st = CF_OK;
    uint8_t *tmp1 = NULL, *tmp2 = NULL;
    size_t cap1 = 0, cap2 = 0;
    size_t elem_start = 0;
    for (size_t start = 0; start < c->rows;) {
        size_t n = batch == 0 ? c->rows - start : batch;
        if (n > c->rows - start)
            n = c->rows - start;
        const uint8_t *nn = NULL;
        if (c->nulls > 0) {
            nn = bits_at(c->nonnull, start, n, &tmp1, &cap1);
            if (nn == NULL) {
                st = CF_ENOMEM;
                goto out;
            }
        }
        if (!c->is_array) {
            st = cf_writer_append(w, c->values + start * c->width, nn, n, err);
        } else {
            size_t ecount = 0;
            for (size_t i = 0; i < n; i++)
                ecount += c->elem_counts[start + i];
            const uint8_t *enn = NULL;
            if (c->elem_nulls > 0 && ecount > 0) {
                enn = bits_at(c->elem_nonnull, elem_start, ecount, &tmp2, &cap2);
                if (enn == NULL) {
                    st = CF_ENOMEM;
                    goto out;
                }
            }
            st = cf_writer_append_arrays(w, c->values ? c->values + elem_start * c->width : NULL,
                                         enn, c->elem_counts + start, nn, n, err);
            elem_start += ecount;
        }
        if (st != CF_OK)
            goto out;
        start += n;
    }
out:
    if (st == CF_ENOMEM && err != NULL) {
        err->code = CF_ENOMEM;
        snprintf(err->msg, sizeof(err->msg), "out of memory");
    }
    free(tmp1);
    free(tmp2);
    return st;
}

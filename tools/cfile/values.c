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

static int parse_integer(const cf_json *v, cf_type t, void *slot, char *msg, size_t cap)
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
    if (parse_int_text(s, len, &neg, &mag) != 0)
        return cf_cli_msg_fail(msg, cap, "%s: not an integer: %.*s", cf_type_name(t),
                               (int)(len > 60 ? 60 : len), s);
    cf_type p = cf_type_physical(t);
    int bits = cf_type_int_bits(p);
    bool is_signed = !cf_type_is_unsigned(p);
    bool ok;
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
     * form); text too small for the type rounds to 0 or a subnormal, as it must. */
    if (ok && overflow)
        return cf_cli_msg_fail(msg, cap, "%s: %.*s is out of range (use \"Infinity\" for infinity)",
                               cf_type_name(t), (int)(len > 60 ? 60 : len), s);
    if (!ok)
        return cf_cli_msg_fail(msg, cap, "%s: not a number: %.*s", cf_type_name(t),
                               (int)(len > 60 ? 60 : len), s);
    return 0;
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
        return parse_integer(v, t, slot, msg, msg_cap);
    }
}

int cf_cli_value_parse_text(const char *text, size_t len, cf_type t, void *slot,
                            cf_cli_arena *arena, char *msg, size_t msg_cap)
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
    return cf_cli_value_parse(&raw, t, slot, &is_null, arena, msg, msg_cap);
}

int cf_cli_value_parse_arg(const char *text, cf_type t, void *slot, cf_cli_arena *arena, char *msg,
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
            rc = cf_cli_value_parse(&doc.root, t, slot, &is_null, arena, msg, msg_cap);
        } else {
            rc = cf_cli_msg_fail(msg, msg_cap, "a seek target cannot be null");
        }
    }
    cf_json_doc_dispose(&doc);
    if (rc == 0)
        return 0;
    /* Not a value form of the type: take the raw text. */
    char msg2[256];
    if (cf_cli_value_parse_text(text, len, t, slot, arena, msg2, sizeof(msg2)) == 0)
        return 0;
    /* Keep the message of the JSON reading when there was one: it is the likelier intent. */
    if (msg != NULL && msg_cap > 0 && msg[0] == '\0')
        snprintf(msg, msg_cap, "%s", msg2);
    return -1;
}

/* The CLI's value printers (vprint.h): numbers as text, and a column's values in
 * the JSON, text, table and CSV forms. */
#include "vprint.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "values.h"
#include "vtext.h"

/* ---- integers ---------------------------------------------------------------------------- */

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

/* ---- floating point ------------------------------------------------------------------ */

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

/* 10^k, exact in a double for every k here (5^22 < 2^53). */
static const double pow10_tab[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* The fast path of the shortest round-trip text, without printf or strtod: when
 * |x| in [1e-4, 10^digits) equals m / 10^k for an integer m < 10^digits that
 * reads back to x, the text is m with k decimals. That is exactly what "%.<digits>g"
 * prints (the first precision the slow path tries): m / 10^k lies on the grid of
 * <digits> significant digits and within half an ulp of x, far less than half a
 * grid step, so %g rounds x to it, and %g's fixed notation covers exponents
 * -4..digits-1. It reads back: strtod rounds the decimal m / 10^k correctly, as the
 * division of the exact m and 10^k does; for a float, both operands are floats
 * (m < 10^6, k <= 10) and a double carries more than 2 * 24 + 2 bits, so the
 * division rounded to double and then to float is the correctly rounded float.
 * Returns the length, or 0 when x is not such a number. */
static size_t short_fixed(char *out, double x, int digits, bool is_float)
{
    double a = fabs(x);
    if (!(a >= 1e-4 && a < pow10_tab[digits]))
        return 0;
    for (int k = 0; k <= digits + 4; k++) {
        double m = a * pow10_tab[k];
        if (m >= pow10_tab[digits])
            return 0;
        if (m != floor(m))
            continue;
        double back = m / pow10_tab[k];
        if (is_float ? (float)back != (float)a : back != a)
            continue;
        char d[24];
        size_t nd = cf_json_fmt_u64(d, (uint64_t)m);
        size_t o = 0;
        if (x < 0)
            out[o++] = '-';
        size_t ki = (size_t)k;
        char frac[32]; /* the k decimals, then without trailing zeros */
        if (nd > ki) {
            memcpy(out + o, d, nd - ki);
            o += nd - ki;
            memcpy(frac, d + nd - ki, ki);
        } else {
            out[o++] = '0';
            memset(frac, '0', ki - nd);
            memcpy(frac + ki - nd, d, nd);
        }
        size_t nf = ki;
        while (nf > 0 && frac[nf - 1] == '0')
            nf--;
        out[o++] = '.';
        if (nf == 0)
            out[o++] = '0';
        memcpy(out + o, frac, nf);
        o += nf;
        out[o] = '\0';
        return o;
    }
    return 0;
}

/* "%.<p>g" of the p significant digits dig[0..p) times 10^(x - p + 1), as printf
 * writes it: fixed notation for exponents -4..p-1, else d.ddde+XX; trailing
 * zeros dropped, then mark_float. */
static void put_g(char *out, bool neg, const char *dig, int p, int x)
{
    int nd = p;
    while (nd > 1 && dig[nd - 1] == '0')
        nd--; /* significant digits left after dropping trailing zeros */
    char *o = out;
    if (neg)
        *o++ = '-';
    if (x < -4 || x >= p) {
        *o++ = dig[0];
        if (nd > 1) {
            *o++ = '.';
            memcpy(o, dig + 1, (size_t)nd - 1);
            o += nd - 1;
        }
        *o++ = 'e';
        *o++ = x < 0 ? '-' : '+';
        int ax = x < 0 ? -x : x;
        if (ax >= 100)
            *o++ = (char)('0' + ax / 100);
        *o++ = (char)('0' + ax / 10 % 10);
        *o++ = (char)('0' + ax % 10);
        *o = '\0';
        return;
    }
    if (x >= 0) {
        memcpy(o, dig, (size_t)x + 1);
        o += x + 1;
        if (nd > x + 1) {
            *o++ = '.';
            memcpy(o, dig + x + 1, (size_t)(nd - x - 1));
            o += nd - x - 1;
        }
    } else {
        *o++ = '0';
        *o++ = '.';
        for (int i = 0; i < -x - 1; i++)
            *o++ = '0';
        memcpy(o, dig, (size_t)nd);
        o += nd;
    }
    *o = '\0';
    mark_float(out);
}

/* Does the decimal dig[0..p) * 10^(x - p + 1) read back to a (> 0)? Exactly as
 * strtod would say: an integer below 2^53 and a power of ten up to 10^22 are
 * exact doubles, and one multiplication or division of exact operands rounds
 * correctly (Clinger's fast path); otherwise strtod itself. */
static bool reads_back(const char *dig, int p, int x, double a)
{
    uint64_t m = 0;
    for (int i = 0; i < p; i++)
        m = m * 10 + (uint64_t)(dig[i] - '0');
    int e = x - p + 1;
    if (m <= ((uint64_t)1 << 53) && e >= -22 && e <= 22)
        return (e < 0 ? (double)m / pow10_tab[-e] : (double)m * pow10_tab[e]) == a;
    char txt[40];
    snprintf(txt, sizeof(txt), "%.*se%d", p, dig, e);
    return strtod(txt, NULL) == a;
}

/* The shortest of "%.15g", "%.16g", "%.17g" that reads back (what the loop in
 * cf_cli_format_double picks) from one "%.16e": its 17 digits rounded to 16 and
 * 15 give the other two, except when the digits dropped are 5 or 50, where the
 * 17-digit text may itself have been rounded up from below the half (then the
 * caller's loop decides). Returns false when it cannot tell. */
static bool shortest_from_17(char *out, double d)
{
    char buf[40];
    double a = fabs(d);
    snprintf(buf, sizeof(buf), "%.16e", a);
    /* d.dddddddddddddddde[+-]XX */
    char dig[17];
    dig[0] = buf[0];
    memcpy(dig + 1, buf + 2, 16);
    int x = atoi(buf + 19);
    for (int p = 15; p <= 16; p++) {
        const char *drop = dig + p;
        size_t nd = (size_t)(17 - p);
        if (drop[0] == '5' && (nd == 1 || drop[1] == '0'))
            return false;
        char r[17];
        memcpy(r, dig, (size_t)p);
        int rx = x;
        if (drop[0] >= '5') {
            int i = p - 1;
            while (i >= 0 && r[i] == '9')
                r[i--] = '0';
            if (i < 0) {
                r[0] = '1'; /* 99..9 -> 100..0: one more decimal place */
                rx++;
            } else {
                r[i]++;
            }
        }
        if (reads_back(r, p, rx, a)) {
            put_g(out, d < 0, r, p, rx);
            return true;
        }
    }
    put_g(out, d < 0, dig, 17, x);
    return true;
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
    if (f == 0) {
        strcpy(out, signbit(f) ? "-0.0" : "0.0");
        return;
    }
    if (short_fixed(out, (double)f, 6, true) != 0)
        return;
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

void cf_cli_format_float9(char out[CF_CLI_NUM_CAP], float f, bool *is_string)
{
    cf_cli_format_float(out, f, is_string);
    if (*is_string || f == 0)
        return; /* NaN, infinities and zeros as above */
    snprintf(out, CF_CLI_NUM_CAP, "%.9g", (double)f);
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
    if (d == 0) {
        strcpy(out, signbit(d) ? "-0.0" : "0.0");
        return;
    }
    if (short_fixed(out, d, 15, false) != 0 || shortest_from_17(out, d))
        return;
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

/* ---- scalars ------------------------------------------------------------------------- */

size_t cf_vp_number(char out[CF_CLI_NUM_CAP], cf_type t, const void *slot, bool *quote)
{
    *quote = false;
    switch (t) {
    case CF_TYPE_BOOL: {
        uint8_t x;
        memcpy(&x, slot, 1);
        strcpy(out, x ? "true" : "false");
        return x ? 4 : 5;
    }
    case CF_TYPE_FLOAT: {
        float x;
        memcpy(&x, slot, 4);
        cf_cli_format_float(out, x, quote);
        return strlen(out);
    }
    case CF_TYPE_DOUBLE: {
        double x;
        memcpy(&x, slot, 8);
        cf_cli_format_double(out, x, quote);
        return strlen(out);
    }
    default: break;
    }
    cf_type p = cf_type_physical(t);
    int bits = cf_type_valid((int)t) && !cf_type_is_binary(t) ? cf_type_int_bits(p) : 0;
    if (bits == 128) {
        *quote = true; /* beyond a JSON number's safe range: a decimal string */
        cf_cli_format_i128(out, slot);
        return strlen(out);
    }
    if (bits == 0) {
        strcpy(out, "null");
        return 4;
    }
    uint64_t u = cf_cli_int_widen(p, slot);
    if (cf_type_is_unsigned(p))
        return cf_json_fmt_u64(out, u);
    return cf_json_fmt_i64(out, (int64_t)u);
}

size_t cf_vp_number_styled(char out[CF_CLI_NUM_CAP], cf_type t, cf_vp_style st, const void *slot)
{
    if (!st.raw) {
        size_t n = 0;
        _Static_assert(CF_VT_CAP <= CF_CLI_NUM_CAP, "the human forms fit a number's buffer");
        if (t == CF_TYPE_DATE) {
            int32_t d;
            memcpy(&d, slot, 4);
            n = cf_vt_format_date(out, d);
        } else if (t == CF_TYPE_UNIXTIME_MICROS) {
            int64_t us;
            memcpy(&us, slot, 8);
            n = cf_vt_format_timestamp(out, us);
        } else if (st.scale >= 0 &&
                   (t == CF_TYPE_DECIMAL32 || t == CF_TYPE_DECIMAL64 || t == CF_TYPE_DECIMAL128)) {
            cf_vt_i128 v;
            if (t == CF_TYPE_DECIMAL32) {
                int32_t x;
                memcpy(&x, slot, 4);
                v = x;
            } else if (t == CF_TYPE_DECIMAL64) {
                int64_t x;
                memcpy(&x, slot, 8);
                v = x;
            } else {
                memcpy(&v, slot, 16);
            }
            /* A scale past the type's digits (no valid schema has one) would
             * print text the parser refuses: the integer then. */
            int pmax = t == CF_TYPE_DECIMAL32 ? 9 : t == CF_TYPE_DECIMAL64 ? 18 : 38;
            if (st.scale <= pmax)
                n = cf_vt_format_decimal(out, v, st.scale);
        }
        if (n > 0)
            return n;
    }
    bool quote;
    return cf_vp_number(out, t, slot, &quote);
}

void cf_vp_csv_field(FILE *f, const char *p, size_t n)
{
    bool quote = n > 0 && (p[0] == ' ' || p[n - 1] == ' ');
    if (!quote)
        quote = memchr(p, ',', n) || memchr(p, '"', n) || memchr(p, '\n', n) || memchr(p, '\r', n);
    if (!quote) {
        CF_IO_WRITE(p, n, f);
        return;
    }
    CF_IO_PUTC('"', f);
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '"') {
            CF_IO_WRITE(p + run, i + 1 - run, f);
            run = i; /* the quote again: doubled */
        }
    }
    CF_IO_WRITE(p + run, n - run, f);
    CF_IO_PUTC('"', f);
}

static void put_hex(FILE *f, const uint8_t *p, size_t n)
{
    static const char hexd[] = "0123456789abcdef";
    char buf[256];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        buf[k++] = hexd[p[i] >> 4];
        buf[k++] = hexd[p[i] & 15];
        if (k == sizeof(buf)) {
            CF_IO_WRITE(buf, k, f);
            k = 0;
        }
    }
    CF_IO_WRITE(buf, k, f);
}

static void json_bytes(FILE *f, const cf_slice *s)
{
    cf_jw w;
    cf_jw_init(&w, f);
    cf_jw_bytes(&w, s->data, s->len);
}

void cf_vp_value(FILE *f, cf_vp_form form, cf_type t, const void *slot)
{
    cf_vp_style raw = {true, -1};
    cf_vp_value_styled(f, form, t, raw, slot);
}

void cf_vp_value_styled(FILE *f, cf_vp_form form, cf_type t, cf_vp_style st, const void *slot)
{
    if (cf_type_is_binary(t)) {
        cf_slice s;
        memcpy(&s, slot, sizeof(s));
        if (t == CF_TYPE_BINARY) {
            bool quote = form == CF_VP_JSON || (form == CF_VP_CSV && s.len == 0);
            if (quote)
                CF_IO_PUTC('"', f);
            put_hex(f, s.data, s.len);
            if (quote)
                CF_IO_PUTC('"', f);
            return;
        }
        switch (form) {
        case CF_VP_JSON: json_bytes(f, &s); return;
        case CF_VP_TEXT:
            if (cf_utf8_valid(s.data, s.len))
                CF_IO_WRITE(s.data, s.len, f);
            else
                json_bytes(f, &s);
            return;
        case CF_VP_TABLE:
            if (cf_out_string_plain(s.data, s.len))
                CF_IO_WRITE(s.data, s.len, f);
            else
                json_bytes(f, &s);
            return;
        case CF_VP_CSV:
            /* The bytes as they are, whatever they are: CSV carries any byte. */
            if (s.len == 0)
                CF_IO_WRITE("\"\"", 2, f);
            else
                cf_vp_csv_field(f, (const char *)s.data, s.len);
            return;
        }
        return;
    }
    char num[CF_CLI_NUM_CAP];
    bool quote;
    size_t n;
    if (form != CF_VP_JSON && !st.raw) {
        n = cf_vp_number_styled(num, t, st, slot);
        quote = false;
    } else {
        n = cf_vp_number(num, t, slot, &quote);
    }
    quote = quote && form == CF_VP_JSON;
    if (quote)
        CF_IO_PUTC('"', f);
    CF_IO_WRITE(num, n, f);
    if (quote)
        CF_IO_PUTC('"', f);
}

static bool bit(const uint8_t *bm, size_t i)
{
    return (bm[i >> 3] >> (i & 7)) & 1;
}

/* An array cell as its JSON array of value forms (null elements as null). */
static void json_array(FILE *f, cf_type t, const cf_batch *b, size_t i)
{
    size_t width = cf_type_size(t);
    CF_IO_PUTC('[', f);
    if (b->elem_offsets != NULL) {
        for (uint32_t e = b->elem_offsets[i]; e < b->elem_offsets[i + 1]; e++) {
            if (e > b->elem_offsets[i])
                CF_IO_PUTC(',', f);
            if (b->elem_nonnull != NULL && !bit(b->elem_nonnull, e))
                CF_IO_WRITE("null", 4, f);
            else
                cf_vp_value(f, CF_VP_JSON, t, (const uint8_t *)b->values + (size_t)e * width);
        }
    }
    CF_IO_PUTC(']', f);
}

void cf_vp_cell(FILE *f, cf_vp_form form, cf_type t, bool is_array, const cf_batch *b, size_t i)
{
    cf_vp_style raw = {true, -1};
    cf_vp_cell_styled(f, form, t, is_array, raw, b, i);
}

void cf_vp_cell_styled(FILE *f, cf_vp_form form, cf_type t, bool is_array, cf_vp_style st,
                       const cf_batch *b, size_t i)
{
    if (b->nonnull != NULL && !bit(b->nonnull, i)) {
        if (form == CF_VP_JSON)
            CF_IO_WRITE("null", 4, f);
        else if (form == CF_VP_TABLE)
            CF_IO_WRITE("NULL", 4, f);
        return; /* TEXT, CSV: nothing */
    }
    if (!is_array) {
        cf_vp_value_styled(f, form, t, st, (const uint8_t *)b->values + i * cf_type_size(t));
        return;
    }
    if (form != CF_VP_CSV) {
        json_array(f, t, b, i);
        return;
    }
    /* CSV: the JSON array, quoted as a field needs (it holds commas and quotes). */
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (m == NULL)
        return;
    json_array(m, t, b, i);
    fclose(m);
    cf_vp_csv_field(f, buf, len);
    free(buf);
}

/* ---- through a JSON writer ----------------------------------------------------------- */

void cf_cli_value_write(cf_jw *w, cf_type t, const void *slot)
{
    cf_vp_value(cf_jw_value_begin(w), CF_VP_JSON, t, slot);
}

void cf_cli_row_write(cf_jw *w, cf_type t, bool is_array, const cf_batch *b, size_t i)
{
    cf_vp_cell(cf_jw_value_begin(w), CF_VP_JSON, t, is_array, b, i);
}

void cf_cli_format_float_kudu(char out[CF_CLI_NUM_CAP], float f, bool *is_string)
{
    if (isnan(f) || isinf(f) || f == 0) {
        cf_cli_format_float(out, f, is_string);
        return;
    }
    *is_string = false;
    snprintf(out, CF_CLI_NUM_CAP, "%.9g", (double)f);
}

void cf_cli_row_write_kudu(cf_jw *w, cf_type t, bool is_array, const cf_batch *b, size_t i)
{
    if (t != CF_TYPE_FLOAT || is_array || (b->nonnull != NULL && !bit(b->nonnull, i))) {
        cf_cli_row_write(w, t, is_array, b, i);
        return;
    }
    float x;
    memcpy(&x, (const uint8_t *)b->values + i * sizeof x, sizeof x);
    char out[CF_CLI_NUM_CAP];
    bool quote;
    cf_cli_format_float_kudu(out, x, &quote);
    FILE *f = cf_jw_value_begin(w);
    if (quote)
        CF_IO_PUTC('"', f);
    CF_IO_WRITE(out, strlen(out), f);
    if (quote)
        CF_IO_PUTC('"', f);
}

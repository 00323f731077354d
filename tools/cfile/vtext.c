/* Human text forms of DATE, UNIXTIME_MICROS and DECIMAL (vtext.h). */
#include "vtext.h"

#include <stdio.h>
#include <string.h>

#include "values.h" /* cf_cli_msg_fail */

#define US_PER_DAY INT64_C(86400000000)
#define SHOWN(len) (int)((len) > 60 ? 60 : (len))

/* ---- the calendar -------------------------------------------------------------------- */

/* Howard Hinnant's days_from_civil / civil_from_days: 400-year eras of 146097
 * days, the year counted from March so that the leap day ends it. */
int64_t cf_vt_days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (int64_t)(m > 2 ? m - 3 : m + 9) + 2) / 5 + (int64_t)d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void cf_vt_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
    *m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

static bool is_leap(int64_t y)
{
    return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

static unsigned month_days(int64_t y, unsigned m)
{
    static const unsigned char n[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : n[m - 1];
}

/* ---- parsing ------------------------------------------------------------------------- */

/* Exactly n digits at s[*i] into *v. */
static bool digits(const char *s, size_t len, size_t *i, size_t n, unsigned *v)
{
    if (len - *i < n)
        return false;
    unsigned x = 0;
    for (size_t k = 0; k < n; k++) {
        char c = s[*i + k];
        if (c < '0' || c > '9')
            return false;
        x = x * 10 + (unsigned)(c - '0');
    }
    *i += n;
    *v = x;
    return true;
}

/* YYYY-MM-DD at s[*i]: days, or -1 with the message. */
static int date_at(const char *s, size_t len, size_t *i, int64_t *days, const char *what, char *msg,
                   size_t cap)
{
    unsigned y, m, d;
    if (!digits(s, len, i, 4, &y) || *i >= len || s[(*i)++] != '-' || !digits(s, len, i, 2, &m) ||
        *i >= len || s[(*i)++] != '-' || !digits(s, len, i, 2, &d))
        return cf_cli_msg_fail(msg, cap, "not %s: %.*s", what, SHOWN(len), s);
    if (m < 1 || m > 12)
        return cf_cli_msg_fail(msg, cap, "%.*s: no month %02u", SHOWN(len), s, m);
    if (d < 1 || d > month_days(y, m))
        return cf_cli_msg_fail(msg, cap, "%.*s: %04u-%02u has no day %02u", SHOWN(len), s, y, m, d);
    *days = cf_vt_days_from_civil(y, m, d);
    return 0;
}

int cf_vt_parse_date(const char *s, size_t len, int32_t *days, char *msg, size_t cap)
{
    size_t i = 0;
    int64_t v;
    if (date_at(s, len, &i, &v, "a date (YYYY-MM-DD)", msg, cap) != 0)
        return -1;
    if (i != len)
        return cf_cli_msg_fail(msg, cap, "not a date (YYYY-MM-DD): %.*s", SHOWN(len), s);
    *days = (int32_t)v; /* years 0000..9999: well inside int32 */
    return 0;
}

int cf_vt_parse_timestamp(const char *s, size_t len, int64_t *micros, char *msg, size_t cap)
{
    static const char what[] = "a timestamp (YYYY-MM-DDThh:mm:ss[.ffffff][Z|+hh:mm])";
    size_t i = 0;
    int64_t days;
    unsigned hh, mm, ss;
    if (date_at(s, len, &i, &days, what, msg, cap) != 0)
        return -1;
    if (i >= len || (s[i] != 'T' && s[i] != 't' && s[i] != ' '))
        return cf_cli_msg_fail(msg, cap, "not %s: %.*s", what, SHOWN(len), s);
    i++;
    if (!digits(s, len, &i, 2, &hh) || i >= len || s[i++] != ':' || !digits(s, len, &i, 2, &mm) ||
        i >= len || s[i++] != ':' || !digits(s, len, &i, 2, &ss))
        return cf_cli_msg_fail(msg, cap, "not %s: %.*s", what, SHOWN(len), s);
    if (hh > 23 || mm > 59 || ss > 59)
        return cf_cli_msg_fail(msg, cap, "%.*s: no time %02u:%02u:%02u", SHOWN(len), s, hh, mm, ss);
    int64_t frac = 0;
    if (i < len && s[i] == '.') {
        size_t start = ++i;
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
            size_t k = i - start;
            if (k < 6)
                frac = frac * 10 + (s[i] - '0');
            else if (s[i] != '0')
                return cf_cli_msg_fail(
                    msg, cap,
                    "%.*s: a fraction finer than microseconds (the timestamp would be "
                    "rounded)",
                    SHOWN(len), s);
        }
        if (i == start)
            return cf_cli_msg_fail(msg, cap, "not %s: %.*s", what, SHOWN(len), s);
        for (size_t k = i - start; k < 6; k++)
            frac *= 10;
    }
    int64_t offset_s = 0;
    if (i < len && (s[i] == 'Z' || s[i] == 'z')) {
        i++;
    } else if (i < len && (s[i] == '+' || s[i] == '-')) {
        int sign = s[i++] == '-' ? -1 : 1;
        unsigned oh, om = 0, os = 0;
        if (!digits(s, len, &i, 2, &oh))
            return cf_cli_msg_fail(msg, cap, "not %s: %.*s", what, SHOWN(len), s);
        if (i < len && s[i] == ':') {
            i++;
            if (!digits(s, len, &i, 2, &om))
                return cf_cli_msg_fail(msg, cap, "not %s: %.*s", what, SHOWN(len), s);
            /* Seconds, as DuckDB writes a local mean time (+05:53:28). */
            if (i < len && s[i] == ':' && (i++, !digits(s, len, &i, 2, &os)))
                return cf_cli_msg_fail(msg, cap, "not %s: %.*s", what, SHOWN(len), s);
        } else if (i < len && !digits(s, len, &i, 2, &om)) {
            return cf_cli_msg_fail(msg, cap, "not %s: %.*s", what, SHOWN(len), s);
        }
        if (oh > 23 || om > 59 || os > 59)
            return cf_cli_msg_fail(msg, cap, "%.*s: no zone offset %02u:%02u:%02u", SHOWN(len), s,
                                   oh, om, os);
        offset_s = sign * (int64_t)(oh * 3600 + om * 60 + os);
    }
    if (i != len)
        return cf_cli_msg_fail(msg, cap, "not %s: %.*s", what, SHOWN(len), s);
    /* |days| < 2^22 for years 0000..9999: no overflow anywhere here. */
    int64_t secs = (int64_t)hh * 3600 + (int64_t)mm * 60 + (int64_t)ss - offset_s;
    *micros = days * US_PER_DAY + secs * 1000000 + frac;
    return 0;
}

int cf_vt_parse_decimal(const char *s, size_t len, int precision, int scale, cf_vt_i128 *out,
                        char *msg, size_t cap)
{
    if (precision <= 0 || precision > 38)
        precision = 38;
    if (scale < 0 || scale > precision)
        return cf_cli_msg_fail(msg, cap, "%.*s: the column's scale %d is not one of 0..%d",
                               SHOWN(len), s, scale, precision);
    size_t i = 0;
    bool neg = false;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    cf_vt_i128 v = 0;
    int nd = 0;       /* significant digits so far (leading zeros not counted) */
    int frac = -1;    /* digits after the point, -1 before it */
    bool any = false; /* a digit at all */
    for (; i < len; i++) {
        char c = s[i];
        if (c == '.' && frac < 0) {
            frac = 0;
            continue;
        }
        if (c < '0' || c > '9')
            return cf_cli_msg_fail(msg, cap, "not a decimal number: %.*s", SHOWN(len), s);
        any = true;
        if (frac >= 0 && ++frac > scale)
            return cf_cli_msg_fail(
                msg, cap,
                "%.*s has more than %d digit%s after the point (a decimal is never "
                "rounded)",
                SHOWN(len), s, scale, scale == 1 ? "" : "s");
        if (nd > 0 || c != '0')
            nd++;
        if (nd > precision)
            break;
        v = v * 10 + (c - '0');
    }
    if (!any)
        return cf_cli_msg_fail(msg, cap, "not a decimal number: %.*s", SHOWN(len), s);
    for (int k = frac < 0 ? 0 : frac; k < scale && nd <= precision; k++) {
        if (nd > 0 && ++nd > precision)
            break; /* before v would pass 38 digits */
        v *= 10;
    }
    if (nd > precision)
        return cf_cli_msg_fail(msg, cap, "%.*s has more than the %d digits of DECIMAL(%d,%d)",
                               SHOWN(len), s, precision, precision, scale);
    *out = neg ? -v : v;
    return 0;
}

/* ---- formatting ---------------------------------------------------------------------- */

size_t cf_vt_format_date(char out[CF_VT_CAP], int64_t days)
{
    int64_t y;
    unsigned m, d;
    out[0] = '\0';
    /* 0000-01-01 .. 9999-12-31 */
    if (days < -719528 || days > 2932896)
        return 0;
    cf_vt_civil_from_days(days, &y, &m, &d);
    return (size_t)snprintf(out, CF_VT_CAP, "%04d-%02u-%02u", (int)y, m, d);
}

size_t cf_vt_format_timestamp(char out[CF_VT_CAP], int64_t micros)
{
    /* Floor division: the day and the microseconds into it. */
    int64_t days = micros / US_PER_DAY, rem = micros % US_PER_DAY;
    if (rem < 0) {
        rem += US_PER_DAY;
        days--;
    }
    size_t n = cf_vt_format_date(out, days);
    if (n == 0)
        return 0;
    int64_t secs = rem / 1000000, us = rem % 1000000;
    n += (size_t)snprintf(out + n, CF_VT_CAP - n, "T%02d:%02d:%02d", (int)(secs / 3600),
                          (int)(secs / 60 % 60), (int)(secs % 60));
    if (us != 0)
        n += (size_t)snprintf(out + n, CF_VT_CAP - n, ".%06d", (int)us);
    out[n++] = 'Z';
    out[n] = '\0';
    return n;
}

size_t cf_vt_format_decimal(char out[CF_VT_CAP], cf_vt_i128 v, int scale)
{
    out[0] = '\0';
    if (scale < 0 || scale > 38)
        return 0;
    __extension__ unsigned __int128 mag =
        v < 0 ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
    char dig[41];
    int nd = 0;
    do {
        dig[nd++] = (char)('0' + (int)(mag % 10));
        mag /= 10;
    } while (mag != 0);
    while (nd <= scale) /* at least one digit before the point */
        dig[nd++] = '0';
    size_t n = 0;
    if (v < 0)
        out[n++] = '-';
    for (int k = nd - 1; k >= 0; k--) {
        out[n++] = dig[k];
        if (k == scale && k > 0)
            out[n++] = '.';
    }
    out[n] = '\0';
    return n;
}

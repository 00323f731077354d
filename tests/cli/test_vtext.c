/* The human text forms of DATE, UNIXTIME_MICROS and DECIMAL (tools/cfile/vtext.c):
 * every day of years 0000..9999 against a calendar walked one day at a time,
 * the whole int32 day range without overflow, timestamps at their boundaries and
 * in every accepted spelling, decimals at every scale, and bad inputs with
 * their messages. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "test_common.h"
#include "vtext.h"

/* ---- the calendar ---------------------------------------------------------------------- */

/* Walk 0000-01-01 .. 9999-12-31 one day at a time (the month lengths written out
 * here, the leap rule the Gregorian one), each day's number counting up from
 * 0000-01-01 = -719528: days_from_civil, civil_from_days, format and parse agree
 * with the walk on every day. */
static void test_vtext__every_day(void **state)
{
    (void)state;
    static const unsigned mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int64_t n = -719528;
    size_t leap_days = 0;
    for (int y = 0; y <= 9999; y++) {
        bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        for (unsigned m = 1; m <= 12; m++) {
            unsigned len = mdays[m - 1] + (m == 2 && leap);
            for (unsigned d = 1; d <= len; d++, n++) {
                assert_int_equal(cf_vt_days_from_civil(y, m, d), n);
                int64_t yy;
                unsigned mm, dd;
                cf_vt_civil_from_days(n, &yy, &mm, &dd);
                if (yy != y || mm != m || dd != d)
                    fail_msg("day %lld: %lld-%u-%u, want %d-%u-%u", (long long)n, (long long)yy, mm,
                             dd, y, m, d);
                char out[CF_VT_CAP], want[CF_VT_CAP];
                snprintf(want, sizeof want, "%04d-%02u-%02u", y, m, d);
                assert_int_equal(cf_vt_format_date(out, n), strlen(want));
                assert_string_equal(out, want);
                int32_t back;
                char msg[200];
                if (cf_vt_parse_date(out, strlen(out), &back, msg, sizeof msg) != 0)
                    fail_msg("%s: %s", out, msg);
                assert_int_equal(back, n);
                leap_days += m == 2 && d == 29;
            }
        }
    }
    assert_int_equal(n, 2932897);      /* one past 9999-12-31 */
    assert_int_equal(leap_days, 2425); /* 10000 years: 2500 - 100 + 25 */
}

static void test_vtext__anchors(void **state)
{
    (void)state;
    assert_int_equal(cf_vt_days_from_civil(1970, 1, 1), 0);
    assert_int_equal(cf_vt_days_from_civil(2024, 1, 2), 19724);
    assert_int_equal(cf_vt_days_from_civil(1, 1, 1), -719162); /* Kudu's DATE minimum */
    assert_int_equal(cf_vt_days_from_civil(9999, 12, 31), 2932896);
    assert_int_equal(cf_vt_days_from_civil(1969, 12, 31), -1);
    assert_int_equal(cf_vt_days_from_civil(2000, 3, 1) - cf_vt_days_from_civil(2000, 2, 28), 2);
    assert_int_equal(cf_vt_days_from_civil(1900, 3, 1) - cf_vt_days_from_civil(1900, 2, 28), 1);
    assert_int_equal(cf_vt_days_from_civil(2100, 3, 1) - cf_vt_days_from_civil(2100, 2, 28), 1);
}

/* Every int32 day (sampled, with both ends) maps to a civil date and back without
 * overflow; outside 0000..9999 there is no text form. */
static void test_vtext__int32_range(void **state)
{
    (void)state;
    int64_t samples[] = {INT32_MIN, INT32_MIN + 1, -719529,       -719528,
                         2932896,   2932897,       INT32_MAX - 1, INT32_MAX};
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        int64_t y;
        unsigned m, d;
        cf_vt_civil_from_days(samples[i], &y, &m, &d);
        assert_true(m >= 1 && m <= 12 && d >= 1 && d <= 31);
        assert_int_equal(cf_vt_days_from_civil(y, m, d), samples[i]);
    }
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t day = (int32_t)(uint32_t)x;
        int64_t y;
        unsigned m, d;
        cf_vt_civil_from_days(day, &y, &m, &d);
        assert_int_equal(cf_vt_days_from_civil(y, m, d), day);
        char out[CF_VT_CAP];
        size_t n = cf_vt_format_date(out, day);
        assert_int_equal(n != 0, y >= 0 && y <= 9999);
    }
    char out[CF_VT_CAP];
    assert_int_equal(cf_vt_format_date(out, -719529), 0); /* -0001-12-31 */
    assert_string_equal(out, "");
    assert_int_equal(cf_vt_format_date(out, 2932897), 0); /* 10000-01-01 */
}

/* A refused text's message holds want. */
static void expect_msg(const char *text, const char *msg, const char *want)
{
    if (strstr(msg, want) == NULL)
        fail_msg("%s: message '%s' lacks '%s'", text, msg, want);
}

typedef enum vt_kind { VT_DATE, VT_TIMESTAMP, VT_DECIMAL } vt_kind;

/* text is refused as a value of kind k (DECIMAL(p,s) for decimals) with a
 * message holding want, and the parser's output is left alone. */
static void refused(vt_kind k, const char *text, int p, int s, const char *want)
{
    int32_t day = 12345;
    int64_t us = 7;
    cf_vt_i128 dec = 99;
    char msg[200] = "";
    size_t n = strlen(text);
    int rc = k == VT_DATE        ? cf_vt_parse_date(text, n, &day, msg, sizeof msg)
             : k == VT_TIMESTAMP ? cf_vt_parse_timestamp(text, n, &us, msg, sizeof msg)
                                 : cf_vt_parse_decimal(text, n, p, s, &dec, msg, sizeof msg);
    assert_int_equal(rc, -1);
    assert_int_equal(day, 12345);
    assert_int_equal(us, 7);
    assert_true(dec == 99);
    expect_msg(text, msg, want);
}

static void date_bad(const char *text, const char *want)
{
    refused(VT_DATE, text, 0, 0, want);
}

static void test_vtext__bad_dates(void **state)
{
    (void)state;
    date_bad("", "not a date (YYYY-MM-DD): ");
    date_bad("2024-1-02", "not a date (YYYY-MM-DD): 2024-1-02");
    date_bad("24-01-02", "not a date");
    date_bad("2024/01/02", "not a date");
    date_bad("2024-01-02 ", "not a date");
    date_bad(" 2024-01-02", "not a date");
    date_bad("2024-01-02T00:00:00", "not a date");
    date_bad("+2024-01-02", "not a date");
    date_bad("-0001-01-01", "not a date");
    date_bad("12024-01-02", "not a date");
    date_bad("2024-00-10", "2024-00-10: no month 00");
    date_bad("2024-13-10", "no month 13");
    date_bad("2024-01-00", "2024-01 has no day 00");
    date_bad("2024-01-32", "2024-01 has no day 32");
    date_bad("2023-02-29", "2023-02 has no day 29");
    date_bad("1900-02-29", "1900-02 has no day 29");
    date_bad("2024-04-31", "2024-04 has no day 31");
    int32_t d;
    assert_int_equal(cf_vt_parse_date("2000-02-29", 10, &d, NULL, 0), 0);
    assert_int_equal(cf_vt_parse_date("0000-01-01", 10, &d, NULL, 0), 0);
    assert_int_equal(d, -719528);
    /* The length counts, not a NUL. */
    assert_int_equal(cf_vt_parse_date("2024-01-02xyz", 10, &d, NULL, 0), 0);
    assert_int_equal(d, 19724);
}

/* ---- timestamps ------------------------------------------------------------------------ */

static int64_t ts_ok(const char *text)
{
    int64_t us = 0;
    char msg[200];
    if (cf_vt_parse_timestamp(text, strlen(text), &us, msg, sizeof msg) != 0)
        fail_msg("%s: %s", text, msg);
    return us;
}

static void ts_bad(const char *text, const char *want)
{
    refused(VT_TIMESTAMP, text, 0, 0, want);
}

static void ts_format(int64_t us, const char *want)
{
    char out[CF_VT_CAP];
    assert_int_equal(cf_vt_format_timestamp(out, us), strlen(want));
    assert_string_equal(out, want);
}

static void test_vtext__timestamps(void **state)
{
    (void)state;
    const int64_t t = INT64_C(1704164645000006); /* 2024-01-02T03:04:05.000006Z */
    assert_true(ts_ok("2024-01-02T03:04:05.000006Z") == t);
    assert_true(ts_ok("2024-01-02 03:04:05.000006") == t); /* no zone: UTC */
    assert_true(ts_ok("2024-01-02t03:04:05.000006z") == t);
    assert_true(ts_ok("2024-01-02T03:04:05.000006000Z") == t); /* zeros past micros */
    assert_true(ts_ok("2024-01-02T04:04:05.000006+01:00") == t);
    assert_true(ts_ok("2024-01-02T04:04:05.000006+0100") == t);
    assert_true(ts_ok("2024-01-02T04:04:05.000006+01") == t);
    assert_true(ts_ok("2024-01-01T23:34:05.000006-03:30") == t);
    assert_true(ts_ok("2024-01-02T03:04:05.000006+00") == t); /* DuckDB's TIMESTAMPTZ */
    assert_true(ts_ok("2024-01-02T08:57:33.000006+05:53:28") == t);
    assert_true(ts_ok("2024-01-01T23:00:00.000006-04:04:05") == t);
    assert_true(ts_ok("2024-01-02T03:04:05Z") == t - 6);
    assert_true(ts_ok("2024-01-02T03:04:05.1Z") == t - 6 + 100000);
    assert_true(ts_ok("2024-01-02T03:04:05.12345Z") == t - 6 + 123450);
    assert_true(ts_ok("1970-01-01T00:00:00Z") == 0);
    assert_true(ts_ok("1969-12-31T23:59:59.999999Z") == -1);
    assert_true(ts_ok("0000-01-01T00:00:00Z") == INT64_C(-62167219200000000));
    assert_true(ts_ok("9999-12-31T23:59:59.999999Z") == INT64_C(253402300799999999));
    /* A zone can carry a time across a day, a year and the ends of the text range. */
    assert_true(ts_ok("2000-01-01T00:30:00+01:00") == ts_ok("1999-12-31T23:30:00Z"));
    assert_true(ts_ok("0000-01-01T00:00:00+23:59") < ts_ok("0000-01-01T00:00:00Z"));

    ts_format(t, "2024-01-02T03:04:05.000006Z");
    ts_format(t - 6, "2024-01-02T03:04:05Z");
    ts_format(0, "1970-01-01T00:00:00Z");
    ts_format(-1, "1969-12-31T23:59:59.999999Z");
    ts_format(INT64_C(-62167219200000000), "0000-01-01T00:00:00Z");
    ts_format(INT64_C(253402300799999999), "9999-12-31T23:59:59.999999Z");
    char out[CF_VT_CAP];
    assert_int_equal(cf_vt_format_timestamp(out, INT64_C(-62167219200000001)), 0);
    assert_int_equal(cf_vt_format_timestamp(out, INT64_C(253402300800000000)), 0);
    assert_int_equal(cf_vt_format_timestamp(out, INT64_MIN), 0);
    assert_int_equal(cf_vt_format_timestamp(out, INT64_MAX), 0);

    /* Round trips over the text range, microsecond-exact. */
    uint64_t x = 0x9E3779B97F4A7C15ull;
    const int64_t lo = INT64_C(-62167219200000000), span = INT64_C(253402300799999999) - lo + 1;
    for (int i = 0; i < 300000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t us = lo + (int64_t)(x % (uint64_t)span);
        if (i % 3 == 0)
            us -= us % 1000000; /* whole seconds: no fraction printed */
        char text[CF_VT_CAP];
        assert_true(cf_vt_format_timestamp(text, us) > 0);
        assert_true(ts_ok(text) == us);
    }
}

static void test_vtext__bad_timestamps(void **state)
{
    (void)state;
    ts_bad("", "not a timestamp (YYYY-MM-DDThh:mm:ss[.ffffff][Z|+hh:mm])");
    ts_bad("2024-01-02", "not a timestamp");
    ts_bad("2024-01-02T", "not a timestamp");
    ts_bad("2024-01-02T03:04", "not a timestamp");
    ts_bad("2024-01-02X03:04:05", "not a timestamp");
    ts_bad("2024-01-02  03:04:05", "not a timestamp");
    ts_bad("2024-01-02T3:04:05", "not a timestamp");
    ts_bad("2024-01-02T03:04:05.", "not a timestamp");
    ts_bad("2024-01-02T03:04:05.Z", "not a timestamp");
    ts_bad("2024-01-02T03:04:05Zx", "not a timestamp");
    ts_bad("2024-01-02T03:04:05 Z", "not a timestamp");
    ts_bad("2024-01-02T03:04:05+1", "not a timestamp");
    ts_bad("2024-01-02T03:04:05+01:0", "not a timestamp");
    ts_bad("2024-01-02T03:04:05+01:00:0", "not a timestamp");
    ts_bad("2024-01-02T03:04:05+01:00:00:00", "not a timestamp");
    ts_bad("2024-01-02T03:04:05+01:00:60", "no zone offset 01:00:60");
    ts_bad("2024-01-02T24:00:00Z", "no time 24:00:00");
    ts_bad("2024-01-02T23:60:00Z", "no time 23:60:00");
    ts_bad("2024-01-02T23:59:60Z", "no time 23:59:60"); /* no leap seconds */
    ts_bad("2024-01-02T03:04:05+24:00", "no zone offset 24:00:00");
    ts_bad("2024-01-02T03:04:05-01:60", "no zone offset 01:60:00");
    ts_bad("2023-02-29T00:00:00Z", "2023-02 has no day 29");
    ts_bad("2024-01-02T03:04:05.0000001Z", "a fraction finer than microseconds");
    ts_bad("2024-01-02T03:04:05.0000060001", "a fraction finer than microseconds");
    ts_bad("1704164645000006", "not a timestamp"); /* the integer form is values.c's */
}

/* ---- decimals -------------------------------------------------------------------------- */

static cf_vt_i128 dec_ok(const char *text, int p, int s)
{
    cf_vt_i128 v = 0;
    char msg[200];
    if (cf_vt_parse_decimal(text, strlen(text), p, s, &v, msg, sizeof msg) != 0)
        fail_msg("%s (%d,%d): %s", text, p, s, msg);
    return v;
}

static void dec_bad(const char *text, int p, int s, const char *want)
{
    refused(VT_DECIMAL, text, p, s, want);
}

static void dec_format(cf_vt_i128 v, int s, const char *want)
{
    char out[CF_VT_CAP];
    assert_int_equal(cf_vt_format_decimal(out, v, s), strlen(want));
    assert_string_equal(out, want);
}

static void test_vtext__decimals(void **state)
{
    (void)state;
    assert_true(dec_ok("12.34", 18, 2) == 1234);
    assert_true(dec_ok("12.3", 18, 2) == 1230);
    assert_true(dec_ok("12", 18, 2) == 1200);
    assert_true(dec_ok("12.", 18, 2) == 1200);
    assert_true(dec_ok(".5", 18, 2) == 50);
    assert_true(dec_ok("-0.05", 18, 2) == -5);
    assert_true(dec_ok("+1.5", 18, 2) == 150);
    assert_true(dec_ok("-0", 18, 2) == 0);
    assert_true(dec_ok("0000012.34", 4, 2) == 1234); /* leading zeros are not digits */
    assert_true(dec_ok("99.99", 4, 2) == 9999);
    assert_true(dec_ok("-99.99", 4, 2) == -9999);
    assert_true(dec_ok("0.0001", 4, 4) == 1);
    assert_true(dec_ok("7", 1, 0) == 7);
    /* 38 digits at every scale, and the precision 0 default of 38. */
    const char *nines = "99999999999999999999999999999999999999";
    cf_vt_i128 max38 = 0;
    for (int i = 0; i < 38; i++)
        max38 = max38 * 10 + 9;
    for (int s = 0; s <= 38; s++) {
        char text[128];
        snprintf(text, sizeof text, "-%.*s%s%.*s", 38 - s, nines, s ? "." : "", s, nines);
        assert_true(dec_ok(text, 38, s) == -max38);
        assert_true(dec_ok(text + 1, 0, s) == max38);
        char out[CF_VT_CAP];
        assert_int_equal(cf_vt_format_decimal(out, -max38, s), strlen(text) + (s == 38));
        if (s < 38)
            assert_string_equal(out, text);
        else
            assert_true(strcmp(out, "-0.99999999999999999999999999999999999999") == 0);
    }
    dec_format(1234, 2, "12.34");
    dec_format(5, 2, "0.05");
    dec_format(-5, 2, "-0.05");
    dec_format(-1230, 2, "-12.30");
    dec_format(0, 2, "0.00");
    dec_format(0, 0, "0");
    dec_format(12, 0, "12");
    dec_format(-12, 0, "-12");
    cf_vt_i128 max128 = (cf_vt_i128)INT64_MAX << 64 | (cf_vt_i128)UINT64_MAX;
    cf_vt_i128 min128 = -max128 - 1;
    dec_format(min128, 0, "-170141183460469231731687303715884105728");
    dec_format(min128, 38, "-1.70141183460469231731687303715884105728");
    char out[CF_VT_CAP];
    assert_int_equal(cf_vt_format_decimal(out, 1, 39), 0);
    assert_int_equal(cf_vt_format_decimal(out, 1, -1), 0);
    /* Round trips at every scale. */
    uint64_t x = 0x2545F4914F6CDD1Dull;
    for (int i = 0; i < 100000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int s = (int)(x % 19);
        cf_vt_i128 v = (cf_vt_i128)(int64_t)x % INT64_C(1000000000000000000);
        char text[CF_VT_CAP];
        assert_true(cf_vt_format_decimal(text, v, s) > 0);
        assert_true(dec_ok(text, 18, s) == v);
    }
}

static void test_vtext__bad_decimals(void **state)
{
    (void)state;
    dec_bad("1.234", 18, 2,
            "1.234 has more than 2 digits after the point (a decimal is never "
            "rounded)");
    dec_bad("1.230", 18, 2, "more than 2 digits"); /* a zero too: never more digits */
    dec_bad("1.5", 18, 0, "more than 0 digits");
    dec_bad("1.25", 18, 1, "more than 1 digit after");
    dec_bad("100.00", 4, 2, "100.00 has more than the 4 digits of DECIMAL(4,2)");
    dec_bad("100", 4, 2, "more than the 4 digits");
    dec_bad("-100", 4, 2, "more than the 4 digits");
    dec_bad("10", 1, 0, "more than the 1 digits");
    dec_bad("999999999999999999999999999999999999999", 38, 0, "more than the 38 digits");
    dec_bad("99999999999999999999999999999999999999", 38, 1, "more than the 38 digits");
    dec_bad("", 18, 2, "not a decimal number: ");
    dec_bad("-", 18, 2, "not a decimal number");
    dec_bad(".", 18, 2, "not a decimal number");
    dec_bad("-.", 18, 2, "not a decimal number");
    dec_bad("1.2.3", 18, 2, "not a decimal number");
    dec_bad("1e5", 18, 2, "not a decimal number");
    dec_bad(" 1", 18, 2, "not a decimal number");
    dec_bad("1 ", 18, 2, "not a decimal number");
    dec_bad("--1", 18, 2, "not a decimal number");
    dec_bad("0x10", 18, 2, "not a decimal number");
    dec_bad("1,5", 18, 2, "not a decimal number");
    dec_bad("1.5", 4, 5, "the column's scale 5 is not one of 0..4");
    dec_bad("1.5", 4, -1, "the column's scale -1");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vtext__every_day),   cmocka_unit_test(test_vtext__anchors),
        cmocka_unit_test(test_vtext__int32_range), cmocka_unit_test(test_vtext__bad_dates),
        cmocka_unit_test(test_vtext__timestamps),  cmocka_unit_test(test_vtext__bad_timestamps),
        cmocka_unit_test(test_vtext__decimals),    cmocka_unit_test(test_vtext__bad_decimals),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* The CLI's JSON parser and writer, and the value forms (tools/cfile/json.c, json_write.c,
 * values.c), without files. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "test_common.h"
#include "values.h"

/* Write with a cf_jw into a string (caller frees). */
typedef struct sink {
    char *buf;
    size_t len;
    FILE *f;
    cf_jw w;
} sink;

static void sink_open(sink *s)
{
    s->buf = NULL;
    s->f = open_memstream(&s->buf, &s->len);
    assert_non_null(s->f);
    cf_jw_init(&s->w, s->f);
}

static char *sink_close(sink *s)
{
    fclose(s->f);
    return s->buf;
}

static void parse_ok(cf_json_doc *d, const char *text)
{
    char msg[256];
    int rc = cf_json_parse(d, text, strlen(text), msg, sizeof(msg));
    if (rc != 0)
        fail_msg("parse failed: %s: %s", text, msg);
}

static void parse_bad(const char *text, size_t len, const char *want_msg)
{
    cf_json_doc d;
    char msg[256];
    assert_int_equal(cf_json_parse(&d, text, len, msg, sizeof(msg)), -1);
    if (want_msg != NULL && strstr(msg, want_msg) == NULL)
        fail_msg("message '%s' lacks '%s'", msg, want_msg);
    cf_json_doc_dispose(&d);
}

static void test_json__parse_all_kinds(void **state)
{
    cf_json_doc d;
    parse_ok(&d, " {\"a\": [1, -2.5e3, true, false, null, \"x\\u00e9\\ud83d\\ude00\\n\"],"
                 " \"b\": {}, \"c\": [], \"big\": 18446744073709551615, \"a\": 0} ");
    const cf_json *r = &d.root;
    assert_int_equal(r->kind, CF_JSON_OBJECT);
    assert_int_equal(r->n, 5);
    const cf_json *a = cf_json_get(r, "a"); /* the first of two "a" */
    assert_non_null(a);
    assert_int_equal(a->kind, CF_JSON_ARRAY);
    assert_int_equal(a->n, 6);
    assert_string_equal(a->items[0].str, "1");
    assert_true(cf_json_is_integer(&a->items[0]));
    assert_string_equal(a->items[1].str, "-2.5e3");
    assert_false(cf_json_is_integer(&a->items[1]));
    assert_int_equal(a->items[2].kind, CF_JSON_TRUE);
    assert_int_equal(a->items[3].kind, CF_JSON_FALSE);
    assert_int_equal(a->items[4].kind, CF_JSON_NULL);
    assert_int_equal(a->items[5].len, strlen("x\xc3\xa9\xf0\x9f\x98\x80\n"));
    assert_memory_equal(a->items[5].str, "x\xc3\xa9\xf0\x9f\x98\x80\n", a->items[5].len);
    assert_string_equal(cf_json_get(r, "big")->str, "18446744073709551615");
    assert_int_equal(cf_json_get(r, "b")->n, 0);
    assert_null(cf_json_get(r, "zz"));
    cf_json_doc_dispose(&d);
}

static void test_json__nul_in_strings(void **state)
{
    cf_json_doc d;
    parse_ok(&d, "[\"a\\u0000b\", \"\\u0000\"]");
    assert_int_equal(d.root.items[0].len, 3);
    assert_memory_equal(d.root.items[0].str, "a\0b", 3);
    assert_int_equal(d.root.items[1].len, 1);
    cf_json_doc_dispose(&d);
}

static void test_json__python_literals(void **state)
{
    cf_json_doc d;
    parse_ok(&d, "[NaN, Infinity, -Infinity]");
    assert_string_equal(d.root.items[0].str, "NaN");
    assert_string_equal(d.root.items[1].str, "Infinity");
    assert_string_equal(d.root.items[2].str, "-Infinity");
    assert_int_equal(d.root.items[2].kind, CF_JSON_NUMBER);
    cf_json_doc_dispose(&d);
}

static void test_json__errors(void **state)
{
    parse_bad("", 0, "end of input");
    parse_bad("[1,]", 4, NULL);
    parse_bad("[1 2]", 5, "expected ','");
    parse_bad("{\"a\" 1}", 7, "expected ':'");
    parse_bad("\"abc", 4, "unterminated");
    parse_bad("\"a\\qb\"", 6, "bad escape");
    parse_bad("\"\\ud800\"", 8, "surrogate");
    parse_bad("\"\\udc00x\"", 9, "surrogate");
    parse_bad("\"a\nb\"", 5, "control character");
    parse_bad("01", 2, "trailing");
    parse_bad("1.", 2, "digits");
    parse_bad("1e", 2, "exponent");
    parse_bad("-", 1, "bad number");
    parse_bad("tru", 3, "literal");
    parse_bad("[1] x", 5, "trailing");
    parse_bad("\"a\\u12\"", 7, "\\u");
    /* A backslash as the last byte does not close the string (was "abc"). */
    parse_bad("\"abc\\", 5, "unterminated");
    parse_bad("[\"abc\\", 6, "unterminated");
    /* Strings are UTF-8 (RFC 8259): raw bytes that are not are refused, with
     * the offset of the string; the writer never emits them. */
    parse_bad("[1, \"a\xff"
              "b\"]",
              10, "json at byte 4: a string that is not valid UTF-8");
    parse_bad("{\"k\xc3\": 1}", 9, "not valid UTF-8");
    parse_bad("\"\xc3\\u00a9\"", 9, "not valid UTF-8"); /* a raw lead byte, then an escape */
    /* Deep nesting is refused, not a stack overflow. */
    size_t n = 100000;
    char *deep = malloc(n);
    memset(deep, '[', n);
    parse_bad(deep, n, "nested deeper");
    free(deep);
    /* Any truncation of a valid document fails cleanly. */
    const char *doc = "{\"k\": [1, \"two\", {\"x\": null}, 3.5e-1]}";
    for (size_t i = 0; i < strlen(doc); i++)
        parse_bad(doc, i, NULL);
}

static void test_json__utf8(void **state)
{
    assert_true(cf_utf8_valid((const uint8_t *)"", 0));
    assert_true(cf_utf8_valid((const uint8_t *)"caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x98\x80", 14));
    assert_true(cf_utf8_valid((const uint8_t *)"a\0b", 3));
    assert_false(cf_utf8_valid((const uint8_t *)"\xff", 1));
    assert_false(cf_utf8_valid((const uint8_t *)"\x80", 1));
    assert_false(cf_utf8_valid((const uint8_t *)"\xc3", 1));     /* truncated */
    assert_false(cf_utf8_valid((const uint8_t *)"\xc3\x28", 2)); /* bad continuation */
    assert_false(cf_utf8_valid((const uint8_t *)"\xc0\xaf", 2)); /* overlong */
    assert_false(cf_utf8_valid((const uint8_t *)"\xe0\x80\xaf", 3));
    assert_false(cf_utf8_valid((const uint8_t *)"\xed\xa0\x80", 3));     /* surrogate */
    assert_false(cf_utf8_valid((const uint8_t *)"\xf4\x90\x80\x80", 4)); /* > U+10FFFF */
}

static void test_json__writer_escapes(void **state)
{
    sink s;
    sink_open(&s);
    cf_jw_obj_begin(&s.w);
    cf_jw_key(&s.w, "q\"k");
    cf_jw_str(&s.w, "a\"b\\c\n\t\r\b\f\x01\x1f\x7f", 13);
    cf_jw_key(&s.w, "nul");
    cf_jw_str(&s.w, "x\0y", 3);
    cf_jw_key(&s.w, "bytes");
    cf_jw_arr_begin(&s.w);
    cf_jw_bytes(&s.w, "ok\xc3\xa9", 4);
    cf_jw_bytes(&s.w, "\xff\x00\xfe", 3);
    cf_jw_hex(&s.w, "\xAB\x01", 2);
    cf_jw_arr_end(&s.w);
    cf_jw_key(&s.w, "n");
    cf_jw_int(&s.w, INT64_MIN);
    cf_jw_key(&s.w, "u");
    cf_jw_uint(&s.w, UINT64_MAX);
    cf_jw_key(&s.w, "e");
    cf_jw_arr_begin(&s.w);
    cf_jw_arr_end(&s.w);
    cf_jw_obj_end(&s.w);
    char *out = sink_close(&s);
    assert_string_equal(out, "{\"q\\\"k\":\"a\\\"b\\\\c\\n\\t\\r\\b\\f\\u0001\\u001f\x7f\","
                             "\"nul\":\"x\\u0000y\","
                             "\"bytes\":[\"ok\xc3\xa9\",{\"hex\":\"ff00fe\"},\"ab01\"],"
                             "\"n\":-9223372036854775808,\"u\":18446744073709551615,\"e\":[]}");
    /* And it parses back to the same bytes. */
    cf_json_doc d;
    parse_ok(&d, out);
    const cf_json *q = cf_json_get(&d.root, "q\"k");
    assert_non_null(q);
    assert_int_equal(q->len, 13);
    assert_memory_equal(q->str, "a\"b\\c\n\t\r\b\f\x01\x1f\x7f", 13);
    cf_json_doc_dispose(&d);
    free(out);
}

/* text parsed, then its DOM written back (the caller frees it). */
static char *written_back(const char *text)
{
    cf_json_doc d;
    parse_ok(&d, text);
    sink s;
    sink_open(&s);
    cf_jw_value(&s.w, &d.root);
    char *out = sink_close(&s);
    cf_json_doc_dispose(&d);
    return out;
}

static void test_json__writer_roundtrip_dom(void **state)
{
    const char *text = "{\"a\":[1,-2.5e3,true,false,null,\"x\"],\"b\":{\"c\":{}},\"d\":NaN}";
    char *out = written_back(text);
    /* Bare NaN comes back in the string form. */
    assert_string_equal(out,
                        "{\"a\":[1,-2.5e3,true,false,null,\"x\"],\"b\":{\"c\":{}},\"d\":\"NaN\"}");
    free(out);
}

/* Any DOM the parser accepts is written back as it was, however deep (the
 * writer keeps CF_JW_MAX_DEPTH levels of state; deeper ones share the last). */
static void test_json__writer_roundtrip_deep(void **state)
{
    (void)state;
    size_t depth = CF_JSON_MAX_DEPTH - 1;
    size_t cap = depth * 8 + 16, n = 0;
    char *text = malloc(cap);
    for (size_t i = 0; i < depth; i++)
        text[n++] = '[';
    n += (size_t)sprintf(text + n, "1,2");
    for (size_t i = 1; i < depth; i++)
        n += (size_t)sprintf(text + n, "],%zu", i);
    text[n++] = ']';
    text[n] = '\0';
    char *out = written_back(text);
    assert_string_equal(out, text);
    free(out);
    free(text);
}

/* v printed as a DOUBLE (or, as_float, as a FLOAT: v holds one exactly, NaN
 * payloads included) is want, a JSON string when want_string. */
static void fmt_num(bool as_float, double v, const char *want, bool want_string)
{
    char buf[CF_CLI_NUM_CAP];
    bool is_string;
    if (as_float)
        cf_cli_format_float(buf, (float)v, &is_string);
    else
        cf_cli_format_double(buf, v, &is_string);
    assert_string_equal(buf, want);
    assert_int_equal(is_string, want_string);
}

static void fmt_double(double v, const char *want, bool want_string)
{
    fmt_num(false, v, want, want_string);
}

static void fmt_float(float v, const char *want, bool want_string)
{
    fmt_num(true, v, want, want_string);
}

static double dbits(uint64_t b)
{
    double d;
    memcpy(&d, &b, 8);
    return d;
}

static float fbits(uint32_t b)
{
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static void test_json__float_forms(void **state)
{
    fmt_double(0.0, "0.0", false);
    fmt_double(-0.0, "-0.0", false);
    fmt_double(1.0, "1.0", false);
    fmt_double(-1.0, "-1.0", false);
    fmt_double(0.1, "0.1", false);
    fmt_double(1.7976931348623157e308, "1.7976931348623157e+308", false);
    /* Subnormals have fewer digits than %.15g asks for: longer than the
     * shortest form, but exact. */
    fmt_double(5e-324, "4.94065645841247e-324", false);
    fmt_double(2.087975966800483, "2.087975966800483", false);
    fmt_double(1e20, "1e+20", false);
    fmt_double(NAN, "NaN", true);
    fmt_double(INFINITY, "Infinity", true);
    fmt_double(-INFINITY, "-Infinity", true);
    fmt_double(dbits(0x7ff8000000000001ull), "0x7ff8000000000001", true);
    fmt_double(dbits(0xfff8000000000000ull), "0xfff8000000000000", true);
    fmt_float(0.0f, "0.0", false);
    fmt_float(-0.0f, "-0.0", false);
    fmt_float(-1.4743731021881104f, "-1.4743731", false);
    fmt_float(3.4028234663852886e+38f, "3.4028235e+38", false);
    fmt_float(1.401298464324817e-45f, "1.4013e-45", false);
    fmt_float(0.1f, "0.1", false);
    fmt_float(88.0f, "88.0", false);
    fmt_float(NAN, "NaN", true);
    fmt_float(fbits(0x7fc00001u), "0x7fc00001", true);
    fmt_float(-INFINITY, "-Infinity", true);
    /* Every printed finite value reads back to the same bits. */
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(6));
    for (int i = 0; i < 20000; i++) {
        uint64_t b = cf_rng_next(&rng);
        double d = dbits(b);
        float f = fbits((uint32_t)b);
        char buf[CF_CLI_NUM_CAP];
        bool is_string;
        if (isfinite(d)) {
            cf_cli_format_double(buf, d, &is_string);
            double back = strtod(buf, NULL);
            assert_memory_equal(&back, &d, 8);
        }
        if (isfinite(f)) {
            cf_cli_format_float(buf, f, &is_string);
            float back = strtof(buf, NULL);
            assert_memory_equal(&back, &f, 4);
            assert_true(strlen(buf) <= 16);
        }
    }
}

/* The definition the fast paths of cf_cli_format_double/float must meet: the
 * first of "%.15g".."%.17g" ("%.6g".."%.9g") that reads back, ".0" added to
 * an integer. */
static void slow_form(char *out, double d, bool is_float)
{
    for (int p = is_float ? 6 : 15; p <= (is_float ? 9 : 17); p++) {
        snprintf(out, CF_CLI_NUM_CAP, "%.*g", p, d);
        if (is_float ? strtof(out, NULL) == (float)d : strtod(out, NULL) == d)
            break;
    }
    if (strpbrk(out, ".e") == NULL)
        strcat(out, ".0");
}

static void test_json__float_fast_paths(void **state)
{
    (void)state;
    cf_rng rng;
    cf_rng_init(&rng, cf_test_seed(7));
    static const double scale[] = {1e-300, 1e-20, 1e-5, 1e-4, 1e-3, 1,
                                   1e3,    1e14,  1e15, 1e16, 1e300};
    for (int i = 0; i < 300000; i++) {
        uint64_t b = cf_rng_next(&rng);
        double d;
        switch (i % 5) {
        case 0: d = dbits(b); break;                                         /* any bits */
        case 1: d = (double)(b % 100000000) / 100.0; break;                  /* prices */
        case 2: d = (double)(b % 1000) / 7.0 * scale[(b >> 40) % 11]; break; /* 17 digits */
        case 3: d = (double)(b % 1000000) * scale[(b >> 40) % 11]; break;
        default: d = (double)(int64_t)b / 1024.0; break; /* exact binary fractions */
        }
        char want[CF_CLI_NUM_CAP], got[CF_CLI_NUM_CAP];
        bool is_string;
        if (isfinite(d) && d != 0) {
            slow_form(want, d, false);
            cf_cli_format_double(got, d, &is_string);
            if (strcmp(want, got) != 0)
                fail_msg("double %a: %s, want %s", d, got, want);
        }
        float f = i % 5 == 0 ? fbits((uint32_t)b) : (float)d;
        if (isfinite(f) && f != 0) {
            slow_form(want, (double)f, true);
            cf_cli_format_float(got, f, &is_string);
            if (strcmp(want, got) != 0)
                fail_msg("float %a: %s, want %s", (double)f, got, want);
        }
    }
}

/* Parse text as a value of type t into slot; returns 0 or -1. */
static int value_of(const char *text, cf_type t, void *slot, bool *is_null, cf_cli_arena *a)
{
    cf_json v;
    char msg[256];
    if (cf_json_parse_arena(a, &v, text, strlen(text), msg, sizeof(msg)) != 0)
        fail_msg("%s: %s", text, msg);
    return cf_cli_value_parse(&v, t, slot, is_null, a, msg, sizeof(msg));
}

static char *render(cf_type t, const void *slot)
{
    sink s;
    sink_open(&s);
    cf_cli_value_write(&s.w, t, slot);
    return sink_close(&s);
}

/* One case of cf_cli_value_parse: text, as a value of type t, renders as want. */
typedef struct value_case {
    const char *text;
    cf_type t;
    const char *want;
} value_case;

static void parses_as(const value_case *c)
{
    cf_cli_arena a;
    cf_cli_arena_init(&a);
    _Alignas(16) uint8_t slot[32];
    bool is_null;
    if (value_of(c->text, c->t, slot, &is_null, &a) != 0)
        fail_msg("%s did not parse as %s", c->text, cf_type_name(c->t));
    assert_false(is_null);
    char *out = render(c->t, slot);
    assert_string_equal(out, c->want);
    free(out);
    cf_cli_arena_dispose(&a);
}

/* text is not a value of type t. */
static void is_refused(const char *text, cf_type t)
{
    cf_cli_arena a;
    cf_cli_arena_init(&a);
    _Alignas(16) uint8_t slot[32];
    bool is_null;
    if (value_of(text, t, slot, &is_null, &a) == 0)
        fail_msg("%s parsed as %s", text, cf_type_name(t));
    cf_cli_arena_dispose(&a);
}

static void test_json__value_forms(void **state)
{
    static const value_case parsed[] = {
        {"-128", CF_TYPE_INT8, "-128"},
        {"127", CF_TYPE_INT8, "127"},
        {"255", CF_TYPE_UINT8, "255"},
        {"-32768", CF_TYPE_INT16, "-32768"},
        {"65535", CF_TYPE_UINT16, "65535"},
        {"-2147483648", CF_TYPE_INT32, "-2147483648"},
        {"4294967295", CF_TYPE_UINT32, "4294967295"},
        {"-9223372036854775808", CF_TYPE_INT64, "-9223372036854775808"},
        {"18446744073709551615", CF_TYPE_UINT64, "18446744073709551615"},
        {"\"42\"", CF_TYPE_INT32, "42"},
        {"-719162", CF_TYPE_DATE, "-719162"},
        {"-999999999", CF_TYPE_DECIMAL32, "-999999999"},
        {"999999999999999999", CF_TYPE_DECIMAL64, "999999999999999999"},
        {"-9223372036854775808", CF_TYPE_UNIXTIME_MICROS, "-9223372036854775808"},
        {"\"-99999999999999999999999999999999999999\"", CF_TYPE_DECIMAL128,
         "\"-99999999999999999999999999999999999999\""},
        {"\"170141183460469231731687303715884105727\"", CF_TYPE_INT128,
         "\"170141183460469231731687303715884105727\""},
        {"\"-170141183460469231731687303715884105728\"", CF_TYPE_INT128,
         "\"-170141183460469231731687303715884105728\""},
        {"7", CF_TYPE_DECIMAL128, "\"7\""},
        {"true", CF_TYPE_BOOL, "true"},
        {"false", CF_TYPE_BOOL, "false"},
        {"1", CF_TYPE_BOOL, "true"},
        {"\"NaN\"", CF_TYPE_DOUBLE, "\"NaN\""},
        {"NaN", CF_TYPE_DOUBLE, "\"NaN\""},
        {"\"Infinity\"", CF_TYPE_DOUBLE, "\"Infinity\""},
        {"\"-Infinity\"", CF_TYPE_FLOAT, "\"-Infinity\""},
        {"-0.0", CF_TYPE_DOUBLE, "-0.0"},
        {"-0.0", CF_TYPE_FLOAT, "-0.0"},
        {"1", CF_TYPE_DOUBLE, "1.0"},
        {"1.7976931348623157e+308", CF_TYPE_DOUBLE, "1.7976931348623157e+308"},
        {"-1.4743731021881104", CF_TYPE_FLOAT, "-1.4743731"},
        {"\"0x7fc00001\"", CF_TYPE_FLOAT, "\"0x7fc00001\""},
        {"\"0x7fc00000\"", CF_TYPE_FLOAT, "\"NaN\""},
        {"\"0x3f800000\"", CF_TYPE_FLOAT, "1.0"},
        {"\"0x7ff0000000000001\"", CF_TYPE_DOUBLE, "\"0x7ff0000000000001\""},
        {"\"0x8000000000000000\"", CF_TYPE_DOUBLE, "-0.0"},
        {"\"2.5\"", CF_TYPE_DOUBLE, "2.5"},
        {"\"caf\\u00e9\"", CF_TYPE_STRING, "\"caf\xc3\xa9\""},
        {"\"nul\\u0000inside\"", CF_TYPE_STRING, "\"nul\\u0000inside\""},
        {"{\"hex\": \"ff00fe\"}", CF_TYPE_STRING, "{\"hex\":\"ff00fe\"}"},
        {"{\"hex\": \"6f6b\"}", CF_TYPE_VARCHAR, "\"ok\""},
        {"{\"repeat\": \"ab\", \"count\": 3}", CF_TYPE_STRING, "\"ababab\""},
        {"{\"repeat\": \"ab\", \"count\": 0}", CF_TYPE_STRING, "\"\""},
        {"\"DEADbeef00\"", CF_TYPE_BINARY, "\"deadbeef00\""},
        {"\"\"", CF_TYPE_BINARY, "\"\""},
        {"{\"repeat\": \"00ff\", \"count\": 2}", CF_TYPE_BINARY, "\"00ff00ff\""},
    };
    for (size_t i = 0; i < sizeof parsed / sizeof parsed[0]; i++)
        parses_as(&parsed[i]);
    static const struct {
        const char *text;
        cf_type t;
    } refused[] = {
        {"128", CF_TYPE_INT8},
        {"-129", CF_TYPE_INT8},
        {"-1", CF_TYPE_UINT8},
        {"2147483648", CF_TYPE_INT32},
        {"18446744073709551616", CF_TYPE_UINT64},
        {"1.5", CF_TYPE_INT32},
        {"1e3", CF_TYPE_INT32},
        {"true", CF_TYPE_INT32},
        {"\"170141183460469231731687303715884105728\"", CF_TYPE_INT128},
        {"2", CF_TYPE_BOOL},
        {"\"0x1p3\"", CF_TYPE_DOUBLE},
        {"\"0x123456789\"", CF_TYPE_FLOAT},
        {"\"inf\"", CF_TYPE_DOUBLE},
        {"\"nan(1)\"", CF_TYPE_DOUBLE},
        {"[]", CF_TYPE_DOUBLE},
        {"{\"repeat\": \"ab\"}", CF_TYPE_STRING},
        {"{\"hex\": \"f\"}", CF_TYPE_STRING},
        {"{\"hex\": \"zz\"}", CF_TYPE_STRING},
        {"5", CF_TYPE_STRING},
        {"\"abc\"", CF_TYPE_BINARY},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        is_refused(refused[i].text, refused[i].t);

    cf_cli_arena a;
    cf_cli_arena_init(&a);
    _Alignas(16) uint8_t slot[32];
    bool is_null = false;
    assert_int_equal(value_of("null", CF_TYPE_INT32, slot, &is_null, &a), 0);
    assert_true(is_null);
    /* A long repeat. */
    assert_int_equal(
        value_of("{\"repeat\": \"L\", \"count\": 100000}", CF_TYPE_STRING, slot, &is_null, &a), 0);
    cf_slice s;
    memcpy(&s, slot, sizeof(s));
    assert_int_equal(s.len, 100000);
    assert_int_equal(s.data[99999], 'L');
    cf_cli_arena_dispose(&a);
}

static void test_json__value_args(void **state)
{
    cf_cli_arena a;
    cf_cli_arena_init(&a);
    _Alignas(16) uint8_t slot[32];
    char msg[256];
    cf_slice s;
    /* Raw text for strings, JSON strings when quoted. */
    assert_int_equal(cf_cli_value_parse_arg("key-0001", CF_TYPE_STRING, slot, &a, msg, sizeof(msg)),
                     0);
    memcpy(&s, slot, sizeof(s));
    assert_int_equal(s.len, 8);
    assert_memory_equal(s.data, "key-0001", 8);
    assert_int_equal(
        cf_cli_value_parse_arg("\"k\\u0000\"", CF_TYPE_STRING, slot, &a, msg, sizeof(msg)), 0);
    memcpy(&s, slot, sizeof(s));
    assert_int_equal(s.len, 2);
    assert_memory_equal(s.data, "k\0", 2);
    assert_int_equal(cf_cli_value_parse_arg("123", CF_TYPE_STRING, slot, &a, msg, sizeof(msg)), 0);
    memcpy(&s, slot, sizeof(s));
    assert_int_equal(s.len, 3);
    assert_int_equal(cf_cli_value_parse_arg("0aff", CF_TYPE_BINARY, slot, &a, msg, sizeof(msg)), 0);
    memcpy(&s, slot, sizeof(s));
    assert_int_equal(s.len, 2);
    assert_int_equal(s.data[1], 0xff);
    int32_t i32;
    assert_int_equal(
        cf_cli_value_parse_arg("-2147483648", CF_TYPE_INT32, slot, &a, msg, sizeof(msg)), 0);
    memcpy(&i32, slot, 4);
    assert_int_equal(i32, INT32_MIN);
    assert_int_equal(cf_cli_value_parse_arg("abc", CF_TYPE_INT32, slot, &a, msg, sizeof(msg)), -1);
    assert_non_null(strstr(msg, "INT32"));
    assert_int_equal(cf_cli_value_parse_arg("null", CF_TYPE_INT32, slot, &a, msg, sizeof(msg)), -1);
    double d;
    assert_int_equal(cf_cli_value_parse_arg("NaN", CF_TYPE_DOUBLE, slot, &a, msg, sizeof(msg)), 0);
    memcpy(&d, slot, 8);
    assert_true(isnan(d));
    cf_cli_arena_dispose(&a);
}

static void test_json__arena_large_and_small(void **state)
{
    cf_cli_arena a;
    cf_cli_arena_init(&a);
    void *p0 = cf_cli_arena_alloc(&a, 0);
    assert_non_null(p0);
    for (int i = 0; i < 1000; i++) {
        size_t n = (size_t)(i % 7 == 0 ? 100000 : i);
        uint8_t *p = cf_cli_arena_alloc(&a, n);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 16, 0);
        memset(p, i & 0xff, n);
    }
    cf_cli_arena_dispose(&a);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json__parse_all_kinds),
        cmocka_unit_test(test_json__nul_in_strings),
        cmocka_unit_test(test_json__python_literals),
        cmocka_unit_test(test_json__errors),
        cmocka_unit_test(test_json__utf8),
        cmocka_unit_test(test_json__writer_escapes),
        cmocka_unit_test(test_json__writer_roundtrip_dom),
        cmocka_unit_test(test_json__writer_roundtrip_deep),
        cmocka_unit_test(test_json__float_forms),
        cmocka_unit_test(test_json__float_fast_paths),
        cmocka_unit_test(test_json__value_forms),
        cmocka_unit_test(test_json__value_args),
        cmocka_unit_test(test_json__arena_large_and_small),
    };
    return CF_RUN_TESTS(argc, argv, tests);
}

/* The CLI's streaming JSON writer (json.h): compact output, commas placed by
 * depth, strings escaped so the output is valid JSON whatever the bytes. */
#include "json.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- writer ------------------------------------------------------------------------ */

void cf_jw_init(cf_jw *w, FILE *f)
{
    w->f = f;
    w->depth = 0;
    w->first[0] = true;
    w->after_key = false;
}

/* Called before every value and key: writes the separating comma. */
static void sep(cf_jw *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (!w->first[w->depth])
        CF_IO_PUTC(',', w->f);
    w->first[w->depth] = false;
}

static void jw_open(cf_jw *w, char c)
{
    sep(w);
    CF_IO_PUTC(c, w->f);
    if (w->depth + 1 < CF_JW_MAX_DEPTH)
        w->depth++;
    w->first[w->depth] = true;
}

static void jw_close(cf_jw *w, char c)
{
    CF_IO_PUTC(c, w->f);
    if (w->depth > 0)
        w->depth--;
}

void cf_jw_obj_begin(cf_jw *w)
{
    jw_open(w, '{');
}
void cf_jw_obj_end(cf_jw *w)
{
    jw_close(w, '}');
}
void cf_jw_arr_begin(cf_jw *w)
{
    jw_open(w, '[');
}
void cf_jw_arr_end(cf_jw *w)
{
    jw_close(w, ']');
}

static void put_escaped(FILE *f, const uint8_t *s, size_t len)
{
    static const char hexd[] = "0123456789abcdef";
    CF_IO_PUTC('"', f);
    size_t run = 0; /* start of the pending run of bytes needing no escape */
    for (size_t i = 0; i < len; i++) {
        uint8_t c = s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        if (i > run)
            CF_IO_WRITE(s + run, i - run, f);
        run = i + 1;
        switch (c) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        default: {
            char u[7] = {'\\', 'u', '0', '0', hexd[c >> 4], hexd[c & 15], 0};
            fputs(u, f);
        }
        }
    }
    if (len > run)
        CF_IO_WRITE(s + run, len - run, f);
    CF_IO_PUTC('"', f);
}

/* Escapes every byte >= 0x80 as the code point of the same value: only for bytes
 * that are not UTF-8, where any reading is a guess but the output must parse. */
static void put_latin1(FILE *f, const uint8_t *s, size_t len)
{
    CF_IO_PUTC('"', f);
    for (size_t i = 0; i < len; i++) {
        uint8_t c = s[i];
        if (c >= 0x80 || c < 0x20 || c == '"' || c == '\\')
            fprintf(f, "\\u%04x", c);
        else
            CF_IO_PUTC(c, f);
    }
    CF_IO_PUTC('"', f);
}

void cf_jw_key(cf_jw *w, const char *key)
{
    sep(w);
    put_escaped(w->f, (const uint8_t *)key, strlen(key));
    CF_IO_PUTC(':', w->f);
    w->after_key = true;
}

void cf_jw_str(cf_jw *w, const void *s, size_t len)
{
    sep(w);
    if (cf_utf8_valid(s, len))
        put_escaped(w->f, s, len);
    else
        put_latin1(w->f, s, len);
}

void cf_jw_cstr(cf_jw *w, const char *s)
{
    cf_jw_str(w, s, strlen(s));
}

static void put_hex(FILE *f, const uint8_t *s, size_t len)
{
    static const char hexd[] = "0123456789abcdef";
    char buf[512];
    size_t n = 0;
    CF_IO_PUTC('"', f);
    for (size_t i = 0; i < len; i++) {
        buf[n++] = hexd[s[i] >> 4];
        buf[n++] = hexd[s[i] & 15];
        if (n == sizeof(buf)) {
            CF_IO_WRITE(buf, n, f);
            n = 0;
        }
    }
    CF_IO_WRITE(buf, n, f);
    CF_IO_PUTC('"', f);
}

void cf_jw_bytes(cf_jw *w, const void *s, size_t len)
{
    if (cf_utf8_valid(s, len)) {
        sep(w);
        put_escaped(w->f, s, len);
        return;
    }
    cf_jw_obj_begin(w);
    cf_jw_key(w, "hex");
    cf_jw_hex(w, s, len);
    cf_jw_obj_end(w);
}

void cf_jw_hex(cf_jw *w, const void *s, size_t len)
{
    sep(w);
    put_hex(w->f, s, len);
}

void cf_jw_raw(cf_jw *w, const char *lit_)
{
    sep(w);
    fputs(lit_, w->f);
}

FILE *cf_jw_value_begin(cf_jw *w)
{
    sep(w);
    return w->f;
}

size_t cf_json_fmt_u64(char *out, uint64_t v)
{
    char tmp[20];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    for (size_t i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    out[n] = '\0';
    return n;
}

size_t cf_json_fmt_i64(char *out, int64_t v)
{
    if (v >= 0)
        return cf_json_fmt_u64(out, (uint64_t)v);
    out[0] = '-';
    return 1 + cf_json_fmt_u64(out + 1, (uint64_t)0 - (uint64_t)v);
}

void cf_jw_int(cf_jw *w, int64_t v)
{
    char buf[24];
    sep(w);
    CF_IO_WRITE(buf, cf_json_fmt_i64(buf, v), w->f);
}

void cf_jw_uint(cf_jw *w, uint64_t v)
{
    char buf[24];
    sep(w);
    CF_IO_WRITE(buf, cf_json_fmt_u64(buf, v), w->f);
}

void cf_jw_bool(cf_jw *w, bool v)
{
    cf_jw_raw(w, v ? "true" : "false");
}
void cf_jw_null(cf_jw *w)
{
    cf_jw_raw(w, "null");
}

/* ---- members in one call: the key, then the value ---------------------------------- */

void cf_jw_kv_int(cf_jw *w, const char *key, int64_t v)
{
    cf_jw_key(w, key);
    cf_jw_int(w, v);
}

void cf_jw_kv_uint(cf_jw *w, const char *key, uint64_t v)
{
    cf_jw_key(w, key);
    cf_jw_uint(w, v);
}

void cf_jw_kv_bool(cf_jw *w, const char *key, bool v)
{
    cf_jw_key(w, key);
    cf_jw_bool(w, v);
}

void cf_jw_kv_cstr(cf_jw *w, const char *key, const char *s)
{
    cf_jw_key(w, key);
    cf_jw_cstr(w, s);
}

void cf_jw_kv_null(cf_jw *w, const char *key)
{
    cf_jw_key(w, key);
    cf_jw_null(w);
}

/* The key, and null when the value is absent; true when the caller's value is
 * still to be written. */
static bool kv_opt(cf_jw *w, const char *key, bool has)
{
    cf_jw_key(w, key);
    if (!has)
        cf_jw_null(w);
    return has;
}

void cf_jw_kv_opt_cstr(cf_jw *w, const char *key, const char *s)
{
    if (kv_opt(w, key, s != NULL))
        cf_jw_cstr(w, s);
}

void cf_jw_kv_opt_int(cf_jw *w, const char *key, bool has, int64_t v)
{
    if (kv_opt(w, key, has))
        cf_jw_int(w, v);
}

void cf_jw_kv_opt_uint(cf_jw *w, const char *key, bool has, uint64_t v)
{
    if (kv_opt(w, key, has))
        cf_jw_uint(w, v);
}

void cf_jw_kv_opt_bool(cf_jw *w, const char *key, bool has, bool v)
{
    if (kv_opt(w, key, has))
        cf_jw_bool(w, v);
}

void cf_jw_kv_obj_begin(cf_jw *w, const char *key)
{
    cf_jw_key(w, key);
    cf_jw_obj_begin(w);
}

void cf_jw_kv_arr_begin(cf_jw *w, const char *key)
{
    cf_jw_key(w, key);
    cf_jw_arr_begin(w);
}

void cf_jw_report_begin(cf_jw *w, FILE *f, const char *op)
{
    cf_jw_init(w, f);
    cf_jw_obj_begin(w);
    cf_jw_kv_cstr(w, "op", op);
}

void cf_jw_value(cf_jw *w, const cf_json *v)
{
    switch (v->kind) {
    case CF_JSON_NULL: cf_jw_null(w); break;
    case CF_JSON_FALSE: cf_jw_bool(w, false); break;
    case CF_JSON_TRUE: cf_jw_bool(w, true); break;
    case CF_JSON_NUMBER:
        /* Bare NaN/Infinity are not JSON: write them in the string form. */
        if (v->str[0] == 'N' || v->str[0] == 'I' || (v->str[0] == '-' && v->str[1] == 'I'))
            cf_jw_cstr(w, v->str);
        else
            cf_jw_raw(w, v->str);
        break;
    case CF_JSON_STRING: cf_jw_str(w, v->str, v->len); break;
    case CF_JSON_ARRAY:
        cf_jw_arr_begin(w);
        for (size_t i = 0; i < v->n; i++)
            cf_jw_value(w, &v->items[i]);
        cf_jw_arr_end(w);
        break;
    case CF_JSON_OBJECT:
        cf_jw_obj_begin(w);
        for (size_t i = 0; i < v->n; i++) {
            sep(w);
            put_escaped(w->f, (const uint8_t *)v->members[i].key, v->members[i].key_len);
            CF_IO_PUTC(':', w->f);
            w->after_key = true;
            cf_jw_value(w, &v->members[i].value);
        }
        cf_jw_obj_end(w);
        break;
    }
}

void cf_jw_newline(cf_jw *w)
{
    CF_IO_PUTC('\n', w->f);
}

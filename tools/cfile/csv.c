/* The CLI's CSV reader and the CSV form of one value (csv.h). */
#include "csv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define IN_CHUNK ((size_t)64 << 10)

static void init(cf_csv *r, const char *name)
{
    memset(r, 0, sizeof(*r));
    r->name = name != NULL ? name : "input";
    r->line = 1;
    r->col = 1;
    r->max_record_len = CF_CSV_MAX_RECORD_LEN;
}

void cf_csv_init_file(cf_csv *r, FILE *f, const char *name)
{
    init(r, name);
    r->f = f;
}

void cf_csv_init_mem(cf_csv *r, const void *p, size_t len, const char *name)
{
    init(r, name);
    r->mem = p;
    r->mem_len = len;
    r->eof = true;
}

void cf_csv_dispose(cf_csv *r)
{
    free(r->buf);
    free(r->rec);
    free(r->fields);
    memset(r, 0, sizeof(*r));
}

static int fail_at(cf_csv *r, uint64_t line, uint64_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail_at(cf_csv *r, uint64_t line, uint64_t col, const char *fmt, ...)
{
    int n = snprintf(r->msg, sizeof(r->msg), "%s: line %llu, column %llu: ", r->name,
                     (unsigned long long)line, (unsigned long long)col);
    if (n < 0 || (size_t)n >= sizeof(r->msg))
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->msg + n, sizeof(r->msg) - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- input bytes ---------------------------------------------------------------------- */

/* The unread bytes: a view of memory input, or the stream buffer refilled so that
 * it holds at least `need` bytes unless the input ends first. -1 on a read error. */
static int avail(cf_csv *r, size_t need, const unsigned char **p, size_t *n)
{
    if (r->f == NULL) {
        *p = (const unsigned char *)r->mem + r->mem_off;
        *n = r->mem_len - r->mem_off;
        return 0;
    }
    if (r->buf_len - r->buf_off < need && !r->eof) {
        if (r->buf_off > 0) {
            memmove(r->buf, r->buf + r->buf_off, r->buf_len - r->buf_off);
            r->buf_len -= r->buf_off;
            r->buf_off = 0;
        }
        if (r->buf == NULL) {
            if ((r->buf = malloc(IN_CHUNK)) == NULL)
                return fail_at(r, r->line, r->col, "out of memory");
            r->buf_cap = IN_CHUNK;
        }
        while (r->buf_len < need && !r->eof) {
            size_t got = fread(r->buf + r->buf_len, 1, r->buf_cap - r->buf_len, r->f);
            r->buf_len += got;
            if (got == 0) {
                if (ferror(r->f))
                    return fail_at(r, r->line, r->col, "read error: %s", strerror(errno));
                r->eof = true;
            }
        }
    }
    *p = (const unsigned char *)r->buf + r->buf_off;
    *n = r->buf_len - r->buf_off;
    return 0;
}

static void consume(cf_csv *r, size_t n)
{
    if (r->f == NULL)
        r->mem_off += n;
    else
        r->buf_off += n;
}

/* ---- the record being built ----------------------------------------------------------- */

static int put(cf_csv *r, const void *p, size_t n)
{
    if (r->rec_cap - r->rec_len < n) {
        if (r->rec_len + n > r->max_record_len + 1024)
            return fail_at(r, r->record_line, 1, "record longer than %zu bytes", r->max_record_len);
        size_t cap = r->rec_cap ? r->rec_cap : 256;
        while (cap - r->rec_len < n)
            cap *= 2;
        char *nr = realloc(r->rec, cap);
        if (nr == NULL)
            return fail_at(r, r->record_line, 1, "out of memory for a record");
        r->rec = nr;
        r->rec_cap = cap;
    }
    memcpy(r->rec + r->rec_len, p, n);
    r->rec_len += n;
    return 0;
}

/* Keep n bytes of field text, having read `used` input bytes on this line for them. */
static int keep(cf_csv *r, const void *p, size_t n, size_t used)
{
    if (put(r, p, n) != 0)
        return -1;
    consume(r, used);
    r->col += used;
    return 0;
}

static int add_field(cf_csv *r, size_t off, bool quoted, uint64_t line, uint64_t col)
{
    if (put(r, "", 1) != 0)
        return -1;
    if (r->nfields == r->fields_cap) {
        size_t cap = r->fields_cap ? r->fields_cap * 2 : 16;
        cf_csv_field *nf = realloc(r->fields, cap * sizeof(*nf));
        if (nf == NULL)
            return fail_at(r, line, col, "out of memory for a record");
        r->fields = nf;
        r->fields_cap = cap;
    }
    /* data holds the offset until the record is complete (rec may move). */
    r->fields[r->nfields++] =
        (cf_csv_field){(const char *)(uintptr_t)off, r->rec_len - 1 - off, quoted, line, col};
    return 0;
}

/* Bytes [0, n) of p up to (not including) the first byte in `stops`; columns
 * advance (lines cannot: '\n' is always a stop or handled by the caller). */
static size_t span(const unsigned char *p, size_t n, bool quoted)
{
    size_t i = 0;
    if (quoted) {
        while (i < n && p[i] != '"' && p[i] != '\n')
            i++;
    } else {
        while (i < n && p[i] != ',' && p[i] != '"' && p[i] != '\n' && p[i] != '\r')
            i++;
    }
    return i;
}

int cf_csv_next(cf_csv *r, const cf_csv_field **fields, size_t *nout)
{
    const unsigned char *p;
    size_t n;
    r->msg[0] = '\0';
    *fields = NULL;
    *nout = 0;
    if (avail(r, 3, &p, &n) != 0)
        return -1;
    if (!r->started) {
        r->started = true;
        if (n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) {
            consume(r, 3); /* a UTF-8 byte order mark; columns count from after it */
            if (avail(r, 3, &p, &n) != 0)
                return -1;
        }
    }
    if (n == 0)
        return 0;
    r->rec_len = 0;
    r->nfields = 0;
    r->record_line = r->line;
    for (;;) {
        /* one field */
        uint64_t fline = r->line, fcol = r->col;
        size_t off = r->rec_len;
        if (avail(r, 2, &p, &n) != 0)
            return -1;
        bool quoted = n > 0 && p[0] == '"';
        if (quoted) {
            consume(r, 1);
            r->col++;
            for (;;) {
                if (avail(r, 2, &p, &n) != 0)
                    return -1;
                if (n == 0)
                    return fail_at(r, fline, fcol,
                                   "quoted field never closed (the input ends at line %llu)",
                                   (unsigned long long)r->line);
                size_t k = span(p, n, true);
                if (k > 0) {
                    if (keep(r, p, k, k) != 0)
                        return -1;
                    continue;
                }
                if (p[0] == '\n') {
                    if (put(r, "\n", 1) != 0)
                        return -1;
                    consume(r, 1);
                    r->line++;
                    r->col = 1;
                    continue;
                }
                /* a quote: "" is one quote, a lone one closes the field */
                if (n >= 2 && p[1] == '"') {
                    if (keep(r, "\"", 1, 2) != 0)
                        return -1;
                    continue;
                }
                consume(r, 1);
                r->col++;
                break;
            }
            if (avail(r, 2, &p, &n) != 0)
                return -1;
            bool end =
                n == 0 || p[0] == ',' || p[0] == '\n' || (p[0] == '\r' && (n == 1 || p[1] == '\n'));
            if (!end)
                return fail_at(r, r->line, r->col,
                               "text after the closing quote of the field opened at line "
                               "%llu, column %llu",
                               (unsigned long long)fline, (unsigned long long)fcol);
        } else {
            for (;;) {
                if (avail(r, 2, &p, &n) != 0)
                    return -1;
                size_t k = span(p, n, false);
                if (k > 0) {
                    if (keep(r, p, k, k) != 0)
                        return -1;
                    continue;
                }
                if (n == 0 || p[0] == ',' || p[0] == '\n')
                    break;
                if (p[0] == '\r') {
                    if (n == 1 || p[1] == '\n')
                        break;                 /* CRLF (or a CR ending the input) ends the record */
                    if (keep(r, p, 1, 1) != 0) /* a lone CR is data */
                        return -1;
                    continue;
                }
                return fail_at(r, r->line, r->col,
                               "a quote inside an unquoted field (quote the whole field and "
                               "double the quote: \"a\"\"b\")");
            }
        }
        if (add_field(r, off, quoted, fline, fcol) != 0)
            return -1;
        /* the separator */
        if (avail(r, 2, &p, &n) != 0)
            return -1;
        if (n > 0 && p[0] == ',') {
            consume(r, 1);
            r->col++;
            continue;
        }
        if (n > 0 && p[0] == '\r') {
            consume(r, 1);
            n--;
            p++;
        }
        if (n > 0 && p[0] == '\n') {
            consume(r, 1);
            r->line++;
            r->col = 1;
        }
        break;
    }
    for (size_t i = 0; i < r->nfields; i++)
        r->fields[i].data = r->rec + (uintptr_t)r->fields[i].data;
    *fields = r->fields;
    *nout = r->nfields;
    return 1;
}

/* ---- values --------------------------------------------------------------------------- */

int cf_csv_json(const cf_csv_field *f, cf_type t, bool is_array, bool nullable, cf_json *out,
                cf_cli_arena *arena, char *msg, size_t msg_cap)
{
    memset(out, 0, sizeof(*out));
    if (!f->quoted && f->len == 0 && (nullable || is_array || !cf_type_is_binary(t))) {
        out->kind = CF_JSON_NULL;
        return 0;
    }
    if (is_array) {
        if (cf_json_parse_arena(arena, out, f->data, f->len, msg, msg_cap) != 0)
            return -1;
        if (out->kind != CF_JSON_ARRAY && out->kind != CF_JSON_NULL) {
            snprintf(msg, msg_cap, "an array column takes a JSON array [e, ...]");
            return -1;
        }
        return 0;
    }
    /* The field's text as a JSON string: the value parser reads it as the text form
     * (values.h cf_cli_value_parse_text) and may point into it (STRING), so a copy
     * that outlives the record. */
    char *copy = cf_cli_arena_alloc(arena, f->len + 1);
    if (copy == NULL) {
        snprintf(msg, msg_cap, "out of memory");
        return -1;
    }
    memcpy(copy, f->data, f->len);
    copy[f->len] = '\0';
    out->kind = CF_JSON_STRING;
    out->str = copy;
    out->len = f->len;
    return 0;
}

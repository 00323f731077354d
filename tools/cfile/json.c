/* JSON for the CLI: arena and DOM parser (RFC 8259, plus the bare literals NaN,
 * Infinity and -Infinity that Python writes); the writer is json_write.c.
 *
 * Numbers keep their text: the value forms need exact 64-bit integers, 128-bit
 * decimals and float bit patterns, none of which survive a trip through double.
 */
#include "json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena ------------------------------------------------------------------------- */

struct cf_cli_arena_chunk {
    cf_cli_arena_chunk *next;
    size_t cap;
    _Alignas(16) unsigned char data[];
};

#define ARENA_CHUNK (64u * 1024u)

void cf_cli_arena_init(cf_cli_arena *a)
{
    a->head = NULL;
    a->used = 0;
    a->cap = 0;
}

void *cf_cli_arena_alloc(cf_cli_arena *a, size_t n)
{
    size_t need = (n + 15u) & ~(size_t)15u;
    if (need < n)
        return NULL;
    if (a->head == NULL || need > a->cap - a->used) {
        /* Big requests get a chunk of their own so the current chunk keeps serving
         * small ones. */
        size_t cap = need > ARENA_CHUNK / 4 ? need : ARENA_CHUNK;
        if (cap > SIZE_MAX - sizeof(cf_cli_arena_chunk))
            return NULL;
        cf_cli_arena_chunk *c = malloc(sizeof(cf_cli_arena_chunk) + cap);
        if (c == NULL)
            return NULL;
        c->cap = cap;
        if (cap == ARENA_CHUNK || a->head == NULL) {
            c->next = a->head;
            a->head = c;
            a->used = need;
            a->cap = cap;
            return c->data;
        }
        /* A dedicated chunk goes behind the head. */
        c->next = a->head->next;
        a->head->next = c;
        return c->data;
    }
    void *p = a->head->data + a->used;
    a->used += need;
    return p;
}

void cf_cli_arena_dispose(cf_cli_arena *a)
{
    cf_cli_arena_chunk *c = a->head;
    while (c != NULL) {
        cf_cli_arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    cf_cli_arena_init(a);
}

/* ---- UTF-8 ------------------------------------------------------------------------- */

/* Inline here, so cf_utf8_valid's loop (every string the JSON writer puts out)
 * does not pay a call per character. */
static inline size_t char_len(const uint8_t *p, size_t n, uint32_t *cp_out)
{
    uint8_t c = p[0];
    size_t len;
    uint32_t cp;
    *cp_out = c;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        cp = c & 0x1fu;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        cp = c & 0x0fu;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        cp = c & 0x07u;
    } else {
        return 0; /* continuation byte, 0xc0/0xc1 overlong lead, or > 0xf4 */
    }
    if (n < len)
        return 0;
    for (size_t k = 1; k < len; k++) {
        if ((p[k] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[k] & 0x3fu);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    *cp_out = cp;
    return len;
}

size_t cf_utf8_char_len(const uint8_t *p, size_t n, uint32_t *cp)
{
    return char_len(p, n, cp);
}

bool cf_utf8_valid(const uint8_t *p, size_t len)
{
    size_t i = 0;
    while (i < len) {
        uint32_t cp;
        size_t k = char_len(p + i, len - i, &cp);
        if (k == 0)
            return false;
        i += k;
    }
    return true;
}

/* ---- parser ------------------------------------------------------------------------ */

#define MAX_DEPTH CF_JSON_MAX_DEPTH

typedef struct parser {
    const char *p, *end, *start;
    cf_cli_arena *arena;
    char *msg;
    size_t msg_cap;
    int depth;
} parser;

static int perr(parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int perr(parser *ps, const char *fmt, ...)
{
    if (ps->msg != NULL && ps->msg_cap > 0) {
        int off = snprintf(ps->msg, ps->msg_cap, "json at byte %zu: ", (size_t)(ps->p - ps->start));
        if (off > 0 && (size_t)off < ps->msg_cap) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(ps->msg + off, ps->msg_cap - (size_t)off, fmt, ap);
            va_end(ap);
        }
    }
    return -1;
}

static void skip_ws(parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static bool lit(parser *ps, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) >= n && memcmp(ps->p, word, n) == 0) {
        ps->p += n;
        return true;
    }
    return false;
}

static int hex4(const char *s, uint32_t *out)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (uint32_t)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

static size_t put_utf8(char *d, uint32_t cp)
{
    if (cp < 0x80) {
        d[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        d[0] = (char)(0xc0 | (cp >> 6));
        d[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        d[0] = (char)(0xe0 | (cp >> 12));
        d[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        d[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    d[0] = (char)(0xf0 | (cp >> 18));
    d[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    d[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    d[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* At the opening quote. The decoded form is never longer than the escaped one, so
 * the raw span up to the closing quote sizes the buffer. */
static int parse_string(parser *ps, const char **out, size_t *out_len)
{
    const char *q = ps->p + 1;
    while (q < ps->end && *q != '"') {
        if (*q == '\\') {
            if (ps->end - q < 2)
                break;
            q++;
        }
        q++;
    }
    if (q >= ps->end || *q != '"') /* the end, or a backslash at the very end */
        return perr(ps, "unterminated string");
    size_t raw = (size_t)(q - (ps->p + 1));
    char *d = cf_cli_arena_alloc(ps->arena, raw + 1);
    if (d == NULL)
        return perr(ps, "out of memory");
    size_t n = 0;
    ps->p++;
    while (ps->p < q) {
        unsigned char c = (unsigned char)*ps->p;
        if (c < 0x20)
            return perr(ps, "control character 0x%02x in a string", c);
        if (c != '\\') {
            d[n++] = (char)c;
            ps->p++;
            continue;
        }
        char e = ps->p[1];
        ps->p += 2;
        switch (e) {
        case '"': d[n++] = '"'; break;
        case '\\': d[n++] = '\\'; break;
        case '/': d[n++] = '/'; break;
        case 'b': d[n++] = '\b'; break;
        case 'f': d[n++] = '\f'; break;
        case 'n': d[n++] = '\n'; break;
        case 'r': d[n++] = '\r'; break;
        case 't': d[n++] = '\t'; break;
        case 'u': {
            uint32_t cp;
            if (q - ps->p < 4 || hex4(ps->p, &cp) != 0)
                return perr(ps, "bad \\u escape");
            ps->p += 4;
            if (cp >= 0xd800 && cp <= 0xdbff) {
                uint32_t lo;
                if (q - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u' ||
                    hex4(ps->p + 2, &lo) != 0 || lo < 0xdc00 || lo > 0xdfff)
                    return perr(ps, "unpaired surrogate \\u%04x", (unsigned)cp);
                ps->p += 6;
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            } else if (cp >= 0xdc00 && cp <= 0xdfff) {
                return perr(ps, "unpaired surrogate \\u%04x", (unsigned)cp);
            }
            /* \uXXXX is 6 bytes and its UTF-8 at most 3, a pair 12 and 4: fits. */
            n += put_utf8(d + n, cp);
            break;
        }
        default: ps->p--; return perr(ps, "bad escape \\%c", e);
        }
    }
    /* RFC 8259 text is UTF-8; escapes always decode to valid UTF-8, so the raw
     * bytes are what this checks. (Bytes that are not UTF-8 have a value form of
     * their own, {"hex": ...}, which is what the writer emits.) */
    if (!cf_utf8_valid((const uint8_t *)d, n)) {
        ps->p = q - raw - 1; /* the opening quote */
        return perr(ps, "a string that is not valid UTF-8");
    }
    ps->p = q + 1;
    d[n] = '\0';
    *out = d;
    *out_len = n;
    return 0;
}

static int parse_number(parser *ps, cf_json *v)
{
    const char *s = ps->p;
    const char *p = s;
    if (p < ps->end && *p == '-')
        p++;
    if (p < ps->end && *p == 'I') { /* -Infinity */
        ps->p = p;
        if (!lit(ps, "Infinity"))
            return perr(ps, "bad number");
        goto done;
    }
    if (p >= ps->end || *p < '0' || *p > '9')
        return perr(ps, "bad number");
    if (*p == '0') {
        p++;
    } else {
        while (p < ps->end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < ps->end && *p == '.') {
        p++;
        if (p >= ps->end || *p < '0' || *p > '9') {
            ps->p = p;
            return perr(ps, "bad number: digits must follow '.'");
        }
        while (p < ps->end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < ps->end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < ps->end && (*p == '+' || *p == '-'))
            p++;
        if (p >= ps->end || *p < '0' || *p > '9') {
            ps->p = p;
            return perr(ps, "bad number: bad exponent");
        }
        while (p < ps->end && *p >= '0' && *p <= '9')
            p++;
    }
    ps->p = p;
done:;
    size_t n = (size_t)(ps->p - s);
    char *d = cf_cli_arena_alloc(ps->arena, n + 1);
    if (d == NULL)
        return perr(ps, "out of memory");
    memcpy(d, s, n);
    d[n] = '\0';
    v->kind = CF_JSON_NUMBER;
    v->str = d;
    v->len = n;
    return 0;
}

/* A growable scratch vector for the children of one array or object; they move
 * into the arena once the count is known. */
typedef struct vec {
    void *data;
    size_t n, cap, elem;
} vec;

static void *vec_push(vec *v)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 8;
        void *d = realloc(v->data, cap * v->elem);
        if (d == NULL)
            return NULL;
        v->data = d;
        v->cap = cap;
    }
    return (char *)v->data + v->elem * v->n++;
}

static void *vec_to_arena(vec *v, cf_cli_arena *a)
{
    if (v->n == 0)
        return NULL;
    void *d = cf_cli_arena_alloc(a, v->n * v->elem);
    if (d != NULL)
        memcpy(d, v->data, v->n * v->elem);
    return d;
}

static int parse_value(parser *ps, cf_json *v);

static int parse_array(parser *ps, cf_json *v)
{
    vec items = {NULL, 0, 0, sizeof(cf_json)};
    int rc = -1;
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == ']') {
        ps->p++;
    } else {
        for (;;) {
            cf_json *it = vec_push(&items);
            if (it == NULL) {
                perr(ps, "out of memory");
                goto out;
            }
            if (parse_value(ps, it) != 0)
                goto out;
            skip_ws(ps);
            if (ps->p < ps->end && *ps->p == ',') {
                ps->p++;
                continue;
            }
            if (ps->p < ps->end && *ps->p == ']') {
                ps->p++;
                break;
            }
            perr(ps, "expected ',' or ']' in an array");
            goto out;
        }
    }
    v->kind = CF_JSON_ARRAY;
    v->n = items.n;
    v->items = vec_to_arena(&items, ps->arena);
    if (items.n > 0 && v->items == NULL) {
        perr(ps, "out of memory");
        goto out;
    }
    rc = 0;
out:
    free(items.data);
    return rc;
}

static int parse_object(parser *ps, cf_json *v)
{
    vec mem = {NULL, 0, 0, sizeof(cf_json_member)};
    int rc = -1;
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == '}') {
        ps->p++;
    } else {
        for (;;) {
            cf_json_member *m = vec_push(&mem);
            if (m == NULL) {
                perr(ps, "out of memory");
                goto out;
            }
            memset(m, 0, sizeof(*m));
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != '"') {
                perr(ps, "expected a member name");
                goto out;
            }
            if (parse_string(ps, &m->key, &m->key_len) != 0)
                goto out;
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':') {
                perr(ps, "expected ':'");
                goto out;
            }
            ps->p++;
            if (parse_value(ps, &m->value) != 0)
                goto out;
            skip_ws(ps);
            if (ps->p < ps->end && *ps->p == ',') {
                ps->p++;
                continue;
            }
            if (ps->p < ps->end && *ps->p == '}') {
                ps->p++;
                break;
            }
            perr(ps, "expected ',' or '}' in an object");
            goto out;
        }
    }
    v->kind = CF_JSON_OBJECT;
    v->n = mem.n;
    v->members = vec_to_arena(&mem, ps->arena);
    if (mem.n > 0 && v->members == NULL) {
        perr(ps, "out of memory");
        goto out;
    }
    rc = 0;
out:
    free(mem.data);
    return rc;
}

static int parse_value(parser *ps, cf_json *v)
{
    memset(v, 0, sizeof(*v));
    skip_ws(ps);
    if (ps->p >= ps->end)
        return perr(ps, "unexpected end of input");
    if (++ps->depth > MAX_DEPTH)
        return perr(ps, "nested deeper than %d", MAX_DEPTH);
    int rc;
    switch (*ps->p) {
    case '{': rc = parse_object(ps, v); break;
    case '[': rc = parse_array(ps, v); break;
    case '"':
        v->kind = CF_JSON_STRING;
        rc = parse_string(ps, &v->str, &v->len);
        break;
    case 'n':
        v->kind = CF_JSON_NULL;
        rc = lit(ps, "null") ? 0 : perr(ps, "bad literal");
        break;
    case 't':
        v->kind = CF_JSON_TRUE;
        rc = lit(ps, "true") ? 0 : perr(ps, "bad literal");
        break;
    case 'f':
        v->kind = CF_JSON_FALSE;
        rc = lit(ps, "false") ? 0 : perr(ps, "bad literal");
        break;
    case 'N':
    case 'I': {
        /* Python's json writes these bare; keep them as number literals. */
        const char *s = ps->p;
        if (!lit(ps, "NaN") && !lit(ps, "Infinity")) {
            rc = perr(ps, "bad literal");
            break;
        }
        v->kind = CF_JSON_NUMBER;
        v->str = *s == 'N' ? "NaN" : "Infinity";
        v->len = strlen(v->str);
        rc = 0;
        break;
    }
    default: rc = parse_number(ps, v); break;
    }
    ps->depth--;
    return rc;
}

int cf_json_parse_arena(cf_cli_arena *a, cf_json *out, const char *text, size_t len, char *msg,
                        size_t msg_cap)
{
    memset(out, 0, sizeof(*out));
    if (msg != NULL && msg_cap > 0)
        msg[0] = '\0';
    parser ps = {text, text + len, text, a, msg, msg_cap, 0};
    if (parse_value(&ps, out) != 0)
        return -1;
    skip_ws(&ps);
    if (ps.p != ps.end)
        return perr(&ps, "trailing characters after the value");
    return 0;
}

int cf_json_parse(cf_json_doc *doc, const char *text, size_t len, char *msg, size_t msg_cap)
{
    cf_cli_arena_init(&doc->arena);
    return cf_json_parse_arena(&doc->arena, &doc->root, text, len, msg, msg_cap);
}

int cf_json_parse_file(cf_json_doc *doc, const char *path, char *msg, size_t msg_cap)
{
    cf_cli_arena_init(&doc->arena);
    memset(&doc->root, 0, sizeof(doc->root));
    /* "-" is standard input, as for every input file argument of the CLI. */
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (f == NULL) {
        snprintf(msg, msg_cap, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (cap - len < 65536) {
            size_t ncap = cap ? cap * 2 : 1u << 20;
            char *nb = realloc(buf, ncap);
            if (nb == NULL) {
                free(buf);
                if (f != stdin)
                    fclose(f);
                snprintf(msg, msg_cap, "%s: out of memory", path);
                return -1;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    bool failed = ferror(f) != 0;
    if (f != stdin)
        fclose(f);
    if (failed) {
        free(buf);
        snprintf(msg, msg_cap, "%s: read error", path);
        return -1;
    }
    int rc = cf_json_parse(doc, buf, len, msg, msg_cap);
    free(buf);
    return rc;
}

void cf_json_doc_dispose(cf_json_doc *doc)
{
    cf_cli_arena_dispose(&doc->arena);
}

const cf_json *cf_json_get(const cf_json *obj, const char *key)
{
    if (obj == NULL || obj->kind != CF_JSON_OBJECT)
        return NULL;
    size_t kl = strlen(key);
    for (size_t i = 0; i < obj->n; i++)
        if (obj->members[i].key_len == kl && memcmp(obj->members[i].key, key, kl) == 0)
            return &obj->members[i].value;
    return NULL;
}

bool cf_json_is_integer(const cf_json *v)
{
    if (v->kind != CF_JSON_NUMBER)
        return false;
    for (size_t i = 0; i < v->len; i++) {
        char c = v->str[i];
        if (!(c == '-' || (c >= '0' && c <= '9')))
            return false;
    }
    return v->len > 0;
}

const char *cf_json_kind_name(cf_json_kind k)
{
    switch (k) {
    case CF_JSON_NULL: return "null";
    case CF_JSON_FALSE:
    case CF_JSON_TRUE: return "boolean";
    case CF_JSON_NUMBER: return "number";
    case CF_JSON_STRING: return "string";
    case CF_JSON_ARRAY: return "array";
    case CF_JSON_OBJECT: return "object";
    }
    return "?";
}

/* Rowset schemas, their text form, and composite memcomparable keys (format §1.8).
 *
 * Key encoding of one component, by physical type:
 *   unsigned ints   big-endian, full width
 *   signed ints     most significant bit flipped, big-endian, full width (INT128 too)
 *   BINARY (last)   the bytes unchanged
 *   BINARY (other)  each 00 -> 00 01, other bytes copied, then 00 00
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

#include "util/alloc.h"
#include "util/bytes.h"
#include "util/error.h"

/* ---- schema ------------------------------------------------------------------------------- */

static bool has_key_encoder(cf_type t)
{
    switch (cf_type_physical(t)) {
    case CF_TYPE_BOOL:
    case CF_TYPE_FLOAT:
    case CF_TYPE_DOUBLE: return false;
    default: return true;
    }
}

void cf_schema_free(cf_schema *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->ncols; i++)
        cf_free((char *)s->cols[i].name);
    cf_free(s->cols);
    cf_free(s->dcols);
    cf_free(s);
}

static cf_status schema_create(cf_schema **out, const cf_column *cols, size_t n, bool need_key,
                               cf_error *err)
{
    *out = NULL;
    CF_CHECK(n > 0 && n <= CF_SCHEMA_MAX_COLUMNS, err, CF_EINVAL, "schema: %zu columns (1..%u)", n,
             CF_SCHEMA_MAX_COLUMNS);
    size_t nkeys = 0;
    for (size_t i = 0; i < n; i++) {
        const cf_column *c = &cols[i];
        size_t at;
        const char *why = cf_rs_name_problem(c->name, &at);
        if (why != NULL && at > 0)
            CF_FAIL(err, CF_EINVAL, "schema: column %zu: bad name '%.*s...': %s at byte %zu", i,
                    (int)(at < 64 ? at : 64), c->name, why, at);
        CF_CHECK(why == NULL, err, CF_EINVAL, "schema: column %zu: bad name '%.64s%s': %s", i,
                 c->name ? c->name : "(null)", c->name && strlen(c->name) > 64 ? "..." : "", why);
        for (size_t j = 0; j < i; j++)
            CF_CHECK(strcmp(cols[j].name, c->name) != 0, err, CF_EINVAL,
                     "schema: column '%s' appears twice", c->name);
        CF_CHECK(cf_type_valid((int)c->type), err, CF_EINVAL, "schema: column '%s': bad type %d",
                 c->name, (int)c->type);
        if (c->is_key) {
            CF_CHECK(nkeys == i, err, CF_EINVAL,
                     "schema: key column '%s' must come before every non-key column", c->name);
            CF_CHECK(!c->nullable, err, CF_EINVAL, "schema: key column '%s' cannot be NULL",
                     c->name);
            CF_CHECK(!c->is_array, err, CF_EINVAL, "schema: key column '%s' cannot be an array",
                     c->name);
            CF_CHECK(has_key_encoder(c->type), err, CF_EINVAL,
                     "schema: key column '%s': %s has no key encoding", c->name,
                     cf_type_name(c->type));
            nkeys++;
        }
        if (c->encoding != CF_ENC_AUTO)
            CF_CHECK(cf_type_allows_encoding(c->type, c->encoding), err, CF_EINVAL,
                     "schema: column '%s': %s does not allow %s", c->name, cf_type_name(c->type),
                     cf_encoding_name(c->encoding) ? cf_encoding_name(c->encoding) : "?");
        CF_CHECK((int)c->compression >= 0 && c->compression <= CF_COMP_ZLIB, err, CF_EINVAL,
                 "schema: column '%s': bad compression", c->name);
    }
    CF_CHECK(nkeys > 0 || !need_key, err, CF_EINVAL, "schema: no KEY column");
    cf_schema *s = cf_calloc(1, sizeof(*s));
    CF_CHECK(s != NULL, err, CF_ENOMEM, "schema: out of memory");
    s->cols = cf_calloc(n, sizeof(*s->cols));
    s->dcols = cf_calloc(n, sizeof(*s->dcols));
    if (s->cols == NULL || s->dcols == NULL) {
        cf_schema_free(s);
        CF_FAIL(err, CF_ENOMEM, "schema: out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        s->cols[i] = cols[i];
        size_t l = strlen(cols[i].name);
        char *nm = cf_malloc(l + 1);
        if (nm == NULL) {
            s->ncols = i;
            cf_schema_free(s);
            CF_FAIL(err, CF_ENOMEM, "schema: out of memory");
        }
        memcpy(nm, cols[i].name, l + 1);
        s->cols[i].name = nm;
        s->dcols[i] = (cf_delta_column){.id = (uint32_t)i,
                                        .name = nm,
                                        /* an array cell travels in a change list as
                                         * opaque bytes (Kudu's physical BINARY) */
                                        .type = cols[i].is_array ? CF_TYPE_BINARY : cols[i].type,
                                        .nullable = cols[i].nullable,
                                        .is_key = cols[i].is_key,
                                        .precision = cols[i].precision,
                                        .scale = cols[i].scale,
                                        .length = cols[i].length};
    }
    s->ncols = n;
    s->nkeys = nkeys;
    *out = s;
    return CF_OK;
}

cf_status cf_schema_clone(cf_schema **out, const cf_schema *s, cf_error *err)
{
    return schema_create(out, s->cols, s->ncols, s->nkeys > 0, err);
}

bool cf_schema_equal(const cf_schema *a, const cf_schema *b)
{
    if (a->ncols != b->ncols)
        return false;
    for (size_t i = 0; i < a->ncols; i++) {
        const cf_column *x = &a->cols[i], *y = &b->cols[i];
        if (strcmp(x->name, y->name) != 0 || x->type != y->type || x->nullable != y->nullable ||
            x->is_array != y->is_array || x->is_key != y->is_key)
            return false;
    }
    return true;
}

size_t cf_schema_column_count(const cf_schema *s)
{
    return s->ncols;
}
size_t cf_schema_key_count(const cf_schema *s)
{
    return s->nkeys;
}
const cf_column *cf_schema_column_at(const cf_schema *s, size_t i)
{
    return i < s->ncols ? &s->cols[i] : NULL;
}

int cf_schema_find(const cf_schema *s, const char *name)
{
    for (size_t i = 0; i < s->ncols; i++)
        if (strcmp(s->cols[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* ---- text form ---------------------------------------------------------------------------- */

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* Next word: letters, digits, '_' , or a single punctuation char. */
static size_t word(const char *p)
{
    size_t n = 0;
    while (isalnum((unsigned char)p[n]) || p[n] == '_')
        n++;
    return n ? n : (p[0] ? 1 : 0);
}

static bool word_is(const char *p, size_t n, const char *w)
{
    return strlen(w) == n && strncasecmp(p, w, n) == 0;
}

static cf_status parse_int_word(const char **pp, long *out, const char *what, cf_error *err)
{
    const char *p = skip_ws(*pp);
    char *end;
    long v = strtol(p, &end, 10);
    CF_CHECK(end != p && v >= 0, err, CF_EINVAL, "schema: %s needs a number", what);
    *pp = end;
    *out = v;
    return CF_OK;
}

static cf_status parse_column(const char **pp, cf_column *c, char *namebuf, cf_error *err)
{
    const char *p = skip_ws(*pp);
    size_t n;
    cf_status st = cf_schema_name_parse(namebuf, CF_SCHEMA_MAX_NAME_LEN + 1, &n, p, err);
    if (st != CF_OK)
        return cf_error_prefix(err, st, "schema: ");
    memset(c, 0, sizeof(*c));
    c->name = namebuf;
    p = skip_ws(p + n);
    n = word(p);
    bool arr = false;
    if (word_is(p, n, "ARRAY")) {
        p = skip_ws(p + n);
        CF_CHECK(*p == '<', err, CF_EINVAL, "schema: column '%s': ARRAY needs <type>", namebuf);
        p = skip_ws(p + 1);
        n = word(p);
        arr = true;
    }
    char tname[64];
    CF_CHECK(n > 0 && n < sizeof(tname), err, CF_EINVAL, "schema: column '%s': missing type",
             namebuf);
    memcpy(tname, p, n);
    tname[n] = '\0';
    CF_CHECK(cf_type_parse(&c->type, tname) == CF_OK, err, CF_EINVAL,
             "schema: column '%s': unknown type '%s'", namebuf, tname);
    p = skip_ws(p + n);
    if (*p == '(') {
        long a, b = 0;
        p++;
        CF_TRY(parse_int_word(&p, &a, "a type parameter", err));
        p = skip_ws(p);
        bool comma = *p == ',';
        if (comma) {
            p++;
            CF_TRY(parse_int_word(&p, &b, "a type parameter", err));
            p = skip_ws(p);
        }
        CF_CHECK(*p == ')', err, CF_EINVAL, "schema: column '%s': missing ')'", namebuf);
        p = skip_ws(p + 1);
        /* Kudu's ranges: what is recorded must also be what the text form gives
         * back (cf_schema_format writes the parameters of these types only). */
        long maxp = c->type == CF_TYPE_DECIMAL32    ? 9
                    : c->type == CF_TYPE_DECIMAL64  ? 18
                    : c->type == CF_TYPE_DECIMAL128 ? 38
                                                    : 0;
        if (c->type == CF_TYPE_VARCHAR) {
            CF_CHECK(a >= 1 && a <= 65535 && !comma, err, CF_EINVAL,
                     "schema: column '%s': VARCHAR(n) takes a length of 1..65535", namebuf);
            c->length = (int)a;
        } else {
            CF_CHECK(maxp > 0, err, CF_EINVAL, "schema: column '%s': %s takes no (...)", namebuf,
                     cf_type_name(c->type));
            CF_CHECK(a >= 1 && a <= maxp && b <= a, err, CF_EINVAL,
                     "schema: column '%s': %s(p,s) takes a precision of 1..%ld and a scale "
                     "of 0..p",
                     namebuf, cf_type_name(c->type), maxp);
            c->precision = (int)a;
            c->scale = (int)b;
        }
    }
    if (arr) {
        CF_CHECK(*p == '>', err, CF_EINVAL, "schema: column '%s': missing '>'", namebuf);
        p = skip_ws(p + 1);
    } else if (p[0] == '[' && skip_ws(p + 1)[0] == ']') {
        arr = true;
        p = skip_ws(skip_ws(p + 1) + 1);
    }
    c->is_array = arr;
    for (;;) {
        p = skip_ws(p);
        if (*p == '\0' || *p == ',')
            break;
        n = word(p);
        if (word_is(p, n, "KEY") || word_is(p, n, "PRIMARY")) {
            if (word_is(p, n, "PRIMARY")) {
                p = skip_ws(p + n);
                n = word(p);
                CF_CHECK(word_is(p, n, "KEY"), err, CF_EINVAL, "schema: PRIMARY without KEY");
            }
            c->is_key = true;
            p += n;
        } else if (word_is(p, n, "NULL")) {
            c->nullable = true;
            p += n;
        } else if (word_is(p, n, "NOT")) {
            p = skip_ws(p + n);
            n = word(p);
            CF_CHECK(word_is(p, n, "NULL"), err, CF_EINVAL, "schema: NOT without NULL");
            c->nullable = false;
            p += n;
        } else if (word_is(p, n, "ENCODING") || word_is(p, n, "COMPRESSION")) {
            bool enc = word_is(p, n, "ENCODING");
            p = skip_ws(p + n);
            size_t m = word(p);
            char v[64];
            CF_CHECK(m > 0 && m < sizeof(v), err, CF_EINVAL, "schema: column '%s': missing %s",
                     namebuf, enc ? "encoding" : "compression");
            memcpy(v, p, m);
            v[m] = '\0';
            if (enc)
                CF_CHECK(cf_encoding_parse(&c->encoding, v) == CF_OK, err, CF_EINVAL,
                         "schema: column '%s': unknown encoding '%s'", namebuf, v);
            else
                CF_CHECK(cf_compression_parse(&c->compression, v) == CF_OK, err, CF_EINVAL,
                         "schema: column '%s': unknown compression '%s'", namebuf, v);
            p += m;
        } else if (word_is(p, n, "BLOCK_SIZE")) {
            long v;
            p += n;
            CF_TRY(parse_int_word(&p, &v, "BLOCK_SIZE", err));
            CF_CHECK(v <= (1L << 26), err, CF_EINVAL, "schema: BLOCK_SIZE too large");
            c->block_size = (uint32_t)v;
        } else {
            CF_FAIL(err, CF_EINVAL, "schema: column '%s': unexpected '%.*s'", namebuf, (int)n, p);
        }
    }
    *pp = p;
    return CF_OK;
}

cf_status cf_schema_create(cf_schema **out, const cf_column *cols, size_t n, cf_error *err)
{
    return schema_create(out, cols, n, true, err);
}

static cf_status schema_parse(cf_schema **out, const char *text, bool need_key, cf_error *err)
{
    *out = NULL;
    cf_column *cols = cf_calloc(CF_SCHEMA_MAX_COLUMNS, sizeof(*cols));
    char(*names)[CF_SCHEMA_MAX_NAME_LEN + 1] = cf_malloc(CF_SCHEMA_MAX_COLUMNS * sizeof(*names));
    cf_status st = CF_OK;
    if (cols == NULL || names == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "schema: out of memory");
    size_t n = 0;
    const char *p = text;
    for (;;) {
        if (n == CF_SCHEMA_MAX_COLUMNS)
            CF_FAIL_OUT(err, CF_EINVAL, "schema: more than %u columns", CF_SCHEMA_MAX_COLUMNS);
        CF_TRY_OUT(parse_column(&p, &cols[n], names[n], err));
        n++;
        if (*p == '\0')
            break;
        p++; /* ',' */
    }
    st = schema_create(out, cols, n, need_key, err);
out:
    cf_free(cols);
    cf_free(names);
    return st;
}

cf_status cf_schema_parse(cf_schema **out, const char *text, cf_error *err)
{
    return schema_parse(out, text, true, err);
}

cf_status cf_schema_parse_columns(cf_schema **out, const char *text, cf_error *err)
{
    return schema_parse(out, text, false, err);
}

size_t cf_schema_format(const cf_schema *s, char *dst, size_t cap)
{
    size_t len = 0;
#define PUT(...)                                                                                   \
    do {                                                                                           \
        int k_ = snprintf(len < cap ? dst + len : NULL, len < cap ? cap - len : 0, __VA_ARGS__);   \
        len += k_ > 0 ? (size_t)k_ : 0;                                                            \
    } while (0)
    if (cap > 0)
        dst[0] = '\0';
    for (size_t i = 0; i < s->ncols; i++) {
        const cf_column *c = &s->cols[i];
        if (i)
            PUT(", ");
        len +=
            cf_schema_name_format(c->name, len < cap ? dst + len : NULL, len < cap ? cap - len : 0);
        PUT(" %s", cf_type_name(c->type));
        if (c->type == CF_TYPE_VARCHAR && c->length > 0)
            PUT("(%d)", c->length);
        else if ((c->type == CF_TYPE_DECIMAL32 || c->type == CF_TYPE_DECIMAL64 ||
                  c->type == CF_TYPE_DECIMAL128) &&
                 c->precision > 0)
            PUT("(%d,%d)", c->precision, c->scale);
        if (c->is_array)
            PUT("[]");
        if (c->is_key)
            PUT(" KEY");
        if (c->nullable)
            PUT(" NULL");
        if (c->encoding != CF_ENC_AUTO)
            PUT(" ENCODING %s", cf_encoding_name(c->encoding));
        if (c->compression != CF_COMP_DEFAULT)
            PUT(" COMPRESSION %s", cf_compression_name(c->compression));
        if (c->block_size != 0)
            PUT(" BLOCK_SIZE %u", c->block_size);
    }
#undef PUT
    return len;
}

/* ---- keys ------------------------------------------------------------------------------ */

static bool is_signed(cf_type p)
{
    return p == CF_TYPE_INT8 || p == CF_TYPE_INT16 || p == CF_TYPE_INT32 || p == CF_TYPE_INT64 ||
           p == CF_TYPE_INT128;
}

void cf_rs_key_append(cf_buf *b, const cf_schema *s, size_t k, const void *v)
{
    cf_type p = cf_type_physical(s->cols[k].type);
    if (p == CF_TYPE_BINARY) {
        cf_slice sl;
        memcpy(&sl, v, sizeof(sl)); /* callers' slots need not be aligned */
        if (k + 1 == s->nkeys) {
            cf_buf_append(b, sl.data, sl.len);
            return;
        }
        /* format §1.8: non-last BINARY components are escaped and terminated. */
        for (size_t i = 0; i < sl.len; i++) {
            cf_buf_put_u8(b, sl.data[i]);
            if (sl.data[i] == 0)
                cf_buf_put_u8(b, 1);
        }
        cf_buf_put_u8(b, 0);
        cf_buf_put_u8(b, 0);
        return;
    }
    size_t w = cf_type_size(p);
    uint8_t tmp[16];
    const uint8_t *src = v;
    for (size_t i = 0; i < w; i++) /* little-endian memory -> big-endian */
        tmp[i] = src[w - 1 - i];
    if (is_signed(p))
        tmp[0] ^= 0x80;
    cf_buf_append(b, tmp, w);
}

void cf_rs_key_append_row(cf_buf *b, const cf_schema *s, const cf_colvec *cols, size_t i)
{
    for (size_t k = 0; k < s->nkeys; k++) {
        size_t w = cf_type_size(s->cols[k].type);
        cf_rs_key_append(b, s, k, (const uint8_t *)cols[k].values + i * w);
    }
}

void cf_rs_key_decode_single(const cf_schema *s, const uint8_t *enc, size_t len, void *slot)
{
    cf_type p = cf_type_physical(s->cols[0].type);
    if (p == CF_TYPE_BINARY) {
        cf_slice sl = {enc, len};
        memcpy(slot, &sl, sizeof(sl));
        return;
    }
    size_t w = cf_type_size(p);
    uint8_t tmp[16] = {0};
    memcpy(tmp, enc, len < w ? len : w); /* a shortened bound is padded with zeros */
    if (is_signed(p))
        tmp[0] ^= 0x80;
    uint8_t *dst = slot;
    for (size_t i = 0; i < w; i++)
        dst[i] = tmp[w - 1 - i];
}

int cf_rs_bytes_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    return cf_bytes_cmp(a, alen, b, blen);
}

cf_status cf_schema_key_encode(const cf_schema *s, const void *const *key, uint8_t *dst, size_t cap,
                               size_t *len, cf_error *err)
{
    cf_buf b;
    cf_buf_init(&b);
    for (size_t k = 0; k < s->nkeys; k++)
        cf_rs_key_append(&b, s, k, key[k]);
    cf_status st = cf_buf_status(&b);
    if (st != CF_OK) {
        cf_buf_dispose(&b);
        CF_FAIL(err, st, "key: out of memory");
    }
    *len = b.len;
    if (b.len > cap) {
        cf_buf_dispose(&b);
        CF_FAIL(err, CF_EBUFSIZE, "key: needs %zu bytes", *len);
    }
    if (b.len)
        memcpy(dst, b.data, b.len);
    cf_buf_dispose(&b);
    return CF_OK;
}

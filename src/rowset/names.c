/* Column names: which ones a schema takes, and how the text forms (the schema
 * syntax, a MANIFEST's column lines, the CLI's column lists) write them.
 *
 * The rule is Kudu's, so that every tablet a Kudu server wrote can be opened:
 * its master checks a table's column names in ValidateIdentifier and
 * ValidateLengthAndUTF8 (src/kudu/master/catalog_manager.cc): not empty, at most
 * --max_identifier_length bytes (default 256), and every character decodes with
 * gutil's charntorune (src/kudu/gutil/utf/rune.c) to something other than
 * Runeerror and NUL. That decoder is laxer than strict UTF-8 in two ways (it takes
 * UTF-16 surrogates U+D800..U+DFFF and 4-byte forms up to U+1FFFFF) and stricter
 * in one (a literal U+FFFD decodes to Runeerror and is refused); we follow it
 * exactly, so we refuse what Kudu refuses and nothing else.
 *
 * Quoting: a name that is a plain identifier [A-Za-z_][A-Za-z0-9_]* is written
 * bare (every name schemas took before, so old texts and MANIFESTs stay byte for
 * byte the same); any other is written in backquotes with a backquote inside
 * doubled (`my-col`, `a``b`), as Impala and Spark SQL quote Kudu's identifiers.
 * Backquotes rather than double quotes because the CLI already uses "..." and
 * '...' (with backslash escapes) for values in the same arguments (--where
 * "`a b` = 'x'"), and because a doubled quote needs no escape character.
 */
#include <string.h>

#include "internal.h"

#include "util/error.h"

_Static_assert(CF_SCHEMA_MAX_NAME_LEN == 256, "the messages below say 256");

/* The length of the UTF-8 sequence at p (n bytes left) as Kudu's charntorune
 * decodes it, or 0 when it decodes to Runeerror or NUL. */
static size_t kudu_rune_len(const uint8_t *p, size_t n)
{
    uint32_t c = p[0];
    if (c < 0x80)
        return c != 0;
    size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    if (c < 0xC0 || c >= 0xF8 || n < len)
        return 0; /* a continuation byte, a 5-byte lead, or cut short */
    uint32_t v = c & (0x7Fu >> len);
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (p[i] & 0x3Fu);
    }
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000}; /* no overlong forms */
    if (v < min[len] || v == 0xFFFD)
        return 0;
    return len;
}

const char *cf_rs_name_problem(const char *name, size_t *at)
{
    *at = 0;
    if (name == NULL)
        return "no name";
    size_t n = strlen(name);
    if (n == 0)
        return "the empty name";
    if (n > CF_SCHEMA_MAX_NAME_LEN)
        return "longer than 256 bytes";
    const uint8_t *p = (const uint8_t *)name;
    for (size_t i = 0; i < n;) {
        size_t k = kudu_rune_len(p + i, n - i);
        if (k == 0) {
            *at = i;
            return "not valid UTF-8";
        }
        i += k;
    }
    return NULL;
}

static bool is_word_start(char ch)
{
    return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || ch == '_';
}

static bool is_word_char(char ch)
{
    return is_word_start(ch) || (ch >= '0' && ch <= '9');
}

size_t cf_rs_name_bare_len(const char *p)
{
    if (!is_word_start(*p))
        return 0;
    size_t n = 1;
    while (is_word_char(p[n]))
        n++;
    return n;
}

size_t cf_schema_name_format(const char *name, char *dst, size_t cap)
{
    size_t n = strlen(name);
    bool bare = n > 0 && cf_rs_name_bare_len(name) == n;
    size_t len = 0;
#define PUT(ch)                                                                                    \
    do {                                                                                           \
        if (len + 1 < cap)                                                                         \
            dst[len] = (ch);                                                                       \
        len++;                                                                                     \
    } while (0)
    if (!bare)
        PUT('`');
    for (size_t i = 0; i < n; i++) {
        if (name[i] == '`')
            PUT('`');
        PUT(name[i]);
    }
    if (!bare)
        PUT('`');
#undef PUT
    if (cap > 0)
        dst[len < cap ? len : cap - 1] = '\0';
    return len;
}

cf_status cf_schema_name_parse(char *dst, size_t cap, size_t *used, const char *text, cf_error *err)
{
    *used = 0;
    if (cap > 0)
        dst[0] = '\0';
    const char *p = text;
    size_t len = 0;
    if (*p != '`') {
        len = cf_rs_name_bare_len(p);
        CF_CHECK(len > 0, err, CF_EINVAL, "expected a column name at '%.20s'", text);
        CF_CHECK(len < cap, err, CF_EINVAL, "column name '%.20s...' is longer than %zu bytes", text,
                 cap ? cap - 1 : 0);
        memcpy(dst, p, len);
        dst[len] = '\0';
        *used = len;
        return CF_OK;
    }
    for (p++;; p++) {
        CF_CHECK(*p != '\0', err, CF_EINVAL, "column name %.20s...: no closing backquote", text);
        if (*p == '`') {
            if (p[1] != '`')
                break;
            p++; /* `` stands for one backquote */
        }
        CF_CHECK(len + 1 < cap, err, CF_EINVAL, "column name %.20s...: longer than %zu bytes", text,
                 cap ? cap - 1 : 0);
        dst[len++] = *p;
    }
    dst[len] = '\0';
    *used = (size_t)(p + 1 - text);
    return CF_OK;
}

/* Fuzz the rowset schema text form (cf_schema_parse / cf_schema_format,
 * src/rowset/schema.c): the text `table create --schema` takes and `table info`
 * prints, and which the CLI parses back to copy a table's schema.
 *
 *   input: the schema text (up to the first NUL byte)
 *
 * Invariants: a clean error, or a schema of 1..CF_SCHEMA_MAX_COLUMNS columns whose
 * key columns lead; its text (format, sized by a first call) parses back to an
 * equal schema, every column field compared, and formats to the same text;
 * format into any smaller buffer writes a NUL-terminated prefix of that text. */
/* cf-needs: tables */
#include "fuzz.h"

#include <string.h>

#include <cfile/rowset.h>

static char *format(const cf_schema *s, size_t *len)
{
    *len = cf_schema_format(s, NULL, 0);
    char *t = malloc(*len + 1);
    FUZZ_REQUIRE(t != NULL);
    memset(t, 'x', *len + 1);
    FUZZ_REQUIRE(cf_schema_format(s, t, *len + 1) == *len);
    FUZZ_REQUIRE(t[*len] == '\0' && strlen(t) == *len);
    return t;
}

static bool column_equal(const cf_column *a, const cf_column *b)
{
    return strcmp(a->name, b->name) == 0 && a->type == b->type && a->nullable == b->nullable &&
           a->is_array == b->is_array && a->is_key == b->is_key && a->encoding == b->encoding &&
           a->compression == b->compression && a->block_size == b->block_size &&
           a->precision == b->precision && a->scale == b->scale && a->length == b->length;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    FUZZ_REQUIRE(text != NULL);
    memcpy(text, data, size);
    text[size] = '\0';
    cf_schema *s = NULL;
    cf_error err = {0};
    cf_status st = cf_schema_parse(&s, text, &err);
    if (st != CF_OK) {
        fuzz_require_clean_error(st, &err);
        FUZZ_REQUIRE(s == NULL);
        free(text);
        return 0;
    }
    size_t n = cf_schema_column_count(s), nk = cf_schema_key_count(s);
    FUZZ_REQUIRE(n >= 1 && n <= CF_SCHEMA_MAX_COLUMNS);
    FUZZ_REQUIRE(nk >= 1 && nk <= n);
    for (size_t i = 0; i < n; i++) {
        const cf_column *c = cf_schema_column_at(s, i);
        FUZZ_REQUIRE(c->is_key == (i < nk));
        FUZZ_REQUIRE(!c->is_key || (!c->nullable && !c->is_array));
        size_t l = strlen(c->name);
        FUZZ_REQUIRE(l >= 1 && l <= CF_SCHEMA_MAX_NAME_LEN);
        FUZZ_REQUIRE(cf_schema_find(s, c->name) == (int)i);
    }
    FUZZ_REQUIRE(cf_schema_column_at(s, n) == NULL);

    size_t len;
    char *t1 = format(s, &len);
    cf_schema *s2 = NULL;
    st = cf_schema_parse(&s2, t1, &err);
    FUZZ_REQUIRE_MSG(st == CF_OK, &err);
    FUZZ_REQUIRE(cf_schema_column_count(s2) == n && cf_schema_key_count(s2) == nk);
    for (size_t i = 0; i < n; i++)
        FUZZ_REQUIRE(column_equal(cf_schema_column_at(s, i), cf_schema_column_at(s2, i)));
    size_t len2;
    char *t2 = format(s2, &len2);
    FUZZ_REQUIRE(len2 == len && memcmp(t1, t2, len) == 0);

    /* Truncated output: a NUL-terminated prefix, never more than cap bytes. */
    size_t caps[3] = {1, len / 2 + 1, len};
    for (size_t k = 0; k < 3; k++) {
        size_t cap = caps[k];
        char *b = malloc(cap);
        FUZZ_REQUIRE(b != NULL);
        FUZZ_REQUIRE(cf_schema_format(s, b, cap) == len);
        FUZZ_REQUIRE(strlen(b) == cap - 1 && memcmp(b, t1, cap - 1) == 0);
        free(b);
    }

    free(t1);
    free(t2);
    cf_schema_free(s2);
    cf_schema_free(s);
    free(text);
    return 0;
}

/* Fuzz the CLI's JSON parser and writer (tools/cfile/json.c, json_write.c): what
 * `cfile write` reads (JSON lines, golden specs), `cfile delta` reads (specs, bases) and
 * `table` reads for array cells.
 *
 *   input: JSON text (any bytes)
 *
 * Invariants: a clean error ("json at byte N: ...", N within the input), or a
 * DOM whose strings are valid UTF-8 of the length given; written back with
 * cf_jw_value it parses again to an equal DOM (NaN, Infinity and -Infinity,
 * which JSON lacks, are written as strings: the one difference allowed), and
 * writing that DOM gives the same bytes again. */
#include "fuzz.h"

#include <string.h>

#include "json.h"

static bool is_nonfinite(const cf_json *v)
{
    return v->kind == CF_JSON_NUMBER &&
           (strcmp(v->str, "NaN") == 0 || strcmp(v->str, "Infinity") == 0 ||
            strcmp(v->str, "-Infinity") == 0);
}

static void check_dom(const cf_json *v, int depth)
{
    FUZZ_REQUIRE(depth <= CF_JSON_MAX_DEPTH);
    switch (v->kind) {
    case CF_JSON_NULL:
    case CF_JSON_FALSE:
    case CF_JSON_TRUE: break;
    case CF_JSON_NUMBER:
        FUZZ_REQUIRE(v->str != NULL && v->len > 0 && strlen(v->str) == v->len);
        break;
    case CF_JSON_STRING:
        FUZZ_REQUIRE(v->str != NULL && v->str[v->len] == '\0');
        FUZZ_REQUIRE(cf_utf8_valid((const uint8_t *)v->str, v->len));
        break;
    case CF_JSON_ARRAY:
        FUZZ_REQUIRE(v->n == 0 || v->items != NULL);
        for (size_t i = 0; i < v->n; i++)
            check_dom(&v->items[i], depth + 1);
        break;
    case CF_JSON_OBJECT:
        FUZZ_REQUIRE(v->n == 0 || v->members != NULL);
        for (size_t i = 0; i < v->n; i++) {
            const cf_json_member *m = &v->members[i];
            FUZZ_REQUIRE(m->key != NULL && m->key[m->key_len] == '\0');
            FUZZ_REQUIRE(cf_utf8_valid((const uint8_t *)m->key, m->key_len));
            check_dom(&m->value, depth + 1);
        }
        break;
    default: FUZZ_REQUIRE(!"bad kind");
    }
}

/* a (as parsed) equals b (parsed from what the writer made of a). */
static bool dom_equal(const cf_json *a, const cf_json *b)
{
    if (is_nonfinite(a))
        return b->kind == CF_JSON_STRING && b->len == a->len && memcmp(a->str, b->str, a->len) == 0;
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case CF_JSON_NUMBER:
    case CF_JSON_STRING: return a->len == b->len && memcmp(a->str, b->str, a->len) == 0;
    case CF_JSON_ARRAY:
        if (a->n != b->n)
            return false;
        for (size_t i = 0; i < a->n; i++)
            if (!dom_equal(&a->items[i], &b->items[i]))
                return false;
        return true;
    case CF_JSON_OBJECT:
        if (a->n != b->n)
            return false;
        for (size_t i = 0; i < a->n; i++) {
            const cf_json_member *x = &a->members[i], *y = &b->members[i];
            if (x->key_len != y->key_len || memcmp(x->key, y->key, x->key_len) != 0 ||
                !dom_equal(&x->value, &y->value))
                return false;
        }
        return true;
    default: return true;
    }
}

/* The writer's bytes for v (malloc'd). */
static char *write_dom(const cf_json *v, size_t *len)
{
    fuzz_text t;
    cf_jw w;
    cf_jw_init(&w, fuzz_text_open(&t));
    cf_jw_value(&w, v);
    char *buf = fuzz_text_close(&t);
    *len = t.len;
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = fuzz_dup(data, size); /* exact size: reads past the end are caught */
    char msg[160];
    cf_json_doc doc;
    if (cf_json_parse(&doc, (const char *)copy, size, msg, sizeof(msg)) != 0) {
        size_t at;
        FUZZ_REQUIRE(sscanf(msg, "json at byte %zu: ", &at) == 1 && at <= size);
        FUZZ_REQUIRE(strchr(msg, ':') != NULL && strlen(strchr(msg, ':')) > 2);
        cf_json_doc_dispose(&doc);
        free(copy);
        return 0;
    }
    check_dom(&doc.root, 1);
    size_t len1;
    char *out1 = write_dom(&doc.root, &len1);
    cf_json_doc doc2;
    if (cf_json_parse(&doc2, out1, len1, msg, sizeof(msg)) != 0) {
        fprintf(stderr, "written JSON does not parse: %s\n%.*s\n", msg, (int)len1, out1);
        FUZZ_REQUIRE(!"written JSON parses");
    }
    FUZZ_REQUIRE(dom_equal(&doc.root, &doc2.root));
    size_t len2;
    char *out2 = write_dom(&doc2.root, &len2);
    FUZZ_REQUIRE(len2 == len1 && memcmp(out1, out2, len1) == 0);
    free(out1);
    free(out2);
    cf_json_doc_dispose(&doc2);
    cf_json_doc_dispose(&doc);
    free(copy);
    return 0;
}

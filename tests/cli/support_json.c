/* Shared by the CLI tests: see support_json.h. */
#include "support_json.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"

bool cli_json_same(const cf_json *a, const cf_json *b, bool as_float)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case CF_JSON_NUMBER:
        return strcmp(a->str, b->str) == 0 || strtod(a->str, NULL) == strtod(b->str, NULL) ||
               (as_float && strtof(a->str, NULL) == strtof(b->str, NULL));
    case CF_JSON_STRING: return a->len == b->len && memcmp(a->str, b->str, a->len) == 0;
    case CF_JSON_ARRAY:
        if (a->n != b->n)
            return false;
        for (size_t i = 0; i < a->n; i++)
            if (!cli_json_same(&a->items[i], &b->items[i], as_float))
                return false;
        return true;
    case CF_JSON_OBJECT:
        if (a->n != b->n)
            return false;
        for (size_t i = 0; i < a->n; i++)
            if (strcmp(a->members[i].key, b->members[i].key) != 0 ||
                !cli_json_same(&a->members[i].value, &b->members[i].value, as_float))
                return false;
        return true;
    default: return true;
    }
}

void cli_json_lines(cf_json_doc *d, const char *out)
{
    size_t n = strlen(out);
    char *arr = malloc(n + 3);
    assert_non_null(arr);
    size_t k = 0;
    arr[k++] = '[';
    for (const char *p = out; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e != NULL ? (size_t)(e - p) : strlen(p);
        if (len > 0) {
            if (k > 1)
                arr[k++] = ',';
            memcpy(arr + k, p, len);
            k += len;
        }
        p += len + (e != NULL);
    }
    arr[k++] = ']';
    char msg[200];
    if (cf_json_parse(d, arr, k, msg, sizeof(msg)) != 0)
        fail_msg("output is not JSON lines: %s", msg);
    free(arr);
}

void cli_json_fields(const cf_json *o, ...)
{
    va_list ap;
    va_start(ap, o);
    const char *key;
    while ((key = va_arg(ap, const char *)) != NULL) {
        const char *want = va_arg(ap, const char *);
        const cf_json *v = cf_json_get(o, key);
        if (v == NULL || (v->kind != CF_JSON_STRING && v->kind != CF_JSON_NUMBER))
            fail_msg("'%s': missing, or neither a string nor a number", key);
        if (strcmp(v->str, want) != 0)
            fail_msg("'%s' is '%s', want '%s'", key, v->str, want);
    }
    va_end(ap);
}

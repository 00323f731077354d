/* cf-needs: tables */
#include "support_wal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vprint.h"

static bool int_text(const cf_json *v, long long *out)
{
    if (v->kind == CF_JSON_NUMBER && cf_json_is_integer(v)) {
        *out = strtoll(v->str, NULL, 10);
        return true;
    }
    if (v->kind == CF_JSON_STRING && v->len > 0) {
        char *end;
        *out = strtoll(v->str, &end, 10);
        return *end == '\0';
    }
    return false;
}

bool kudu_json_equal(const cf_json *a, const cf_json *b)
{
    long long x, y;
    if (int_text(a, &x) && int_text(b, &y))
        return x == y;
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case CF_JSON_NULL:
    case CF_JSON_TRUE:
    case CF_JSON_FALSE: return true;
    case CF_JSON_NUMBER: {
        double p = strtod(a->str, NULL), q = strtod(b->str, NULL);
        return p == q || (float)p == (float)q;
    }
    case CF_JSON_STRING: return a->len == b->len && memcmp(a->str, b->str, a->len) == 0;
    case CF_JSON_ARRAY:
        if (a->n != b->n)
            return false;
        for (size_t i = 0; i < a->n; i++)
            if (!kudu_json_equal(&a->items[i], &b->items[i]))
                return false;
        return true;
    case CF_JSON_OBJECT:
        if (a->n != b->n)
            return false;
        for (size_t i = 0; i < a->n; i++) {
            const cf_json *o = cf_json_get(b, a->members[i].key);
            if (o == NULL || !kudu_json_equal(&a->members[i].value, o))
                return false;
        }
        return true;
    }
    return false;
}

void wal_write_op(cf_jw *w, const cf_schema *s, const cf_kudu_row_op *op)
{
    cf_jw_obj_begin(w);
    cf_jw_key(w, "op");
    cf_jw_cstr(w, cf_kudu_row_op_name(op->type));
    cf_jw_key(w, "row");
    cf_jw_obj_begin(w);
    for (size_t k = 0; k < op->ncols; k++) {
        if (!op->set[k])
            continue;
        const cf_column *c = cf_schema_column_at(s, k);
        cf_jw_key(w, c->name);
        if (op->values[k] == NULL)
            cf_jw_null(w);
        else
            cf_cli_value_write(w, c->type, op->values[k]);
    }
    cf_jw_obj_end(w);
    cf_jw_obj_end(w);
}

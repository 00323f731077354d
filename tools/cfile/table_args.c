/* `cfile table`'s command-line text forms: KEY, --where, --row/--set
 * (table_args.h). */
#include "table_args.h"
#include "values.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static char *arena_strdup(cf_cli_arena *a, const char *s)
{
    size_t n = strlen(s);
    char *d = cf_cli_arena_alloc(a, n + 1);
    if (d != NULL)
        memcpy(d, s, n + 1);
    return d;
}

/* Room for one more element in an arena-backed array (*cap doubles; the old
 * array stays in the arena, which bounds the waste to the final size). */
static void *arena_grow(cf_cli_arena *a, void *arr, size_t n, size_t *cap, size_t elem)
{
    if (n < *cap)
        return arr;
    size_t nc = *cap ? *cap * 2 : 16;
    void *d = cf_cli_arena_alloc(a, nc * elem);
    if (d == NULL)
        return NULL;
    if (n)
        memcpy(d, arr, n * elem);
    *cap = nc;
    return d;
}

/* ---- values from text ------------------------------------------------------------------- */

/* One scalar from text into slot (memory form); binary bytes go to the arena.
 * The text forms are the CLI's (values.h cf_cli_value_parse_text); a BINARY or
 * FLOAT/DOUBLE value may also be given in its JSON value form ({"hex": ...},
 * "NaN"), as `seek --value` takes it. */
int cf_cli_scalar_parse(cf_type t, const char *text, void *slot, cf_cli_arena *a, char *msg,
                        size_t cap)
{
    cf_column cd = {.type = t, .scale = -1};
    return cf_cli_scalar_parse_col(&cd, text, slot, a, msg, cap);
}

int cf_cli_scalar_parse_col(const cf_column *cd, const char *text, void *slot, cf_cli_arena *a,
                            char *msg, size_t cap)
{
    cf_type t = cd->type;
    if (cf_cli_value_parse_text_col(text, strlen(text), t, cd->precision, cd->scale, slot, a, msg,
                                    cap) == 0)
        return 0;
    if (t == CF_TYPE_STRING || t == CF_TYPE_VARCHAR)
        return -1; /* never fails but for memory */
    char first[256];
    snprintf(first, sizeof(first), "%s", msg);
    if (cf_cli_value_parse_arg_col(text, t, cd->precision, cd->scale, slot, a, msg, cap) == 0)
        return 0;
    snprintf(msg, cap, "%s", first); /* the text form's reason */
    return -1;
}

/* ---- quoting ------------------------------------------------------------------------------ */

/* At an opening quote: the matching closing quote, or the terminating NUL when
 * there is none. A backslash inside quotes escapes the next character. */
static const char *quote_end(const char *q)
{
    char quote = *q++;
    for (; *q; q++) {
        if (*q == '\\' && q[1])
            q++;
        else if (*q == quote)
            return q;
    }
    return q;
}

/* Length of the comma-separated piece at p: up to the first comma outside
 * quotes and [...]. */
static size_t piece_len(const char *p)
{
    const char *q = p;
    int depth = 0;
    for (; *q; q++) {
        if (*q == '"' || *q == '\'') {
            q = quote_end(q);
            if (*q == '\0')
                break;
        } else if (*q == '[') {
            depth++;
        } else if (*q == ']') {
            depth--;
        } else if (*q == ',' && depth <= 0) {
            break;
        }
    }
    return (size_t)(q - p);
}

char *cf_cli_next_piece(char **p)
{
    char *start = *p;
    if (start == NULL)
        return NULL;
    char *q = start + piece_len(start);
    *p = *q ? q + 1 : NULL;
    *q = '\0';
    return start;
}

char *cf_cli_unquote(char *v)
{
    if (*v != '"' && *v != '\'')
        return v;
    const char *close = quote_end(v);
    if (*close == '\0' || close[1] != '\0')
        return v; /* not one quoted value: taken as written */
    char quote = *v, *d = v;
    for (const char *s = v + 1; s < close; s++) {
        if (*s == '\\' && (s[1] == quote || s[1] == '\\'))
            s++;
        *d++ = *s;
    }
    *d = '\0';
    return v;
}

/* A column name in backquotes at q (the schema syntax's quoted form,
 * cf_schema_name_parse): the name, unquoted, in the arena, and *used the bytes
 * it took. NULL with a message in msg when the quote is not closed or the name
 * is too long. */
static char *quoted_name(cf_cli_arena *a, const char *q, size_t *used, char *msg, size_t cap)
{
    char *nm = cf_cli_arena_alloc(a, CF_SCHEMA_MAX_NAME_LEN + 1);
    if (nm == NULL)
        return snprintf(msg, cap, "out of memory"), NULL;
    cf_error e;
    if (cf_schema_name_parse(nm, CF_SCHEMA_MAX_NAME_LEN + 1, used, q, &e) != CF_OK)
        return snprintf(msg, cap, "%s", e.msg), NULL;
    return nm;
}

char *cf_cli_next_name(char **p, bool trim, char *msg, size_t cap)
{
    for (;;) {
        char *w = *p;
        if (w == NULL)
            return NULL;
        char *q = w;
        while (isspace((unsigned char)*q))
            q++;
        if (*q == '`') {
            /* unquoted in place: the name is shorter than its quoted form */
            char nm[CF_SCHEMA_MAX_NAME_LEN + 1];
            size_t used;
            cf_error e;
            if (cf_schema_name_parse(nm, sizeof(nm), &used, q, &e) != CF_OK) {
                snprintf(msg, cap, "%s", e.msg);
                *p = NULL;
                return NULL;
            }
            char *after = q + used;
            while (isspace((unsigned char)*after))
                after++;
            if (*after != ',' && *after != '\0') {
                snprintf(msg, cap, "expected a comma after %.*s", (int)used, q);
                *p = NULL;
                return NULL;
            }
            *p = *after ? after + 1 : NULL;
            memcpy(w, nm, strlen(nm) + 1);
            return w;
        }
        char *e = strchr(w, ',');
        *p = e ? e + 1 : NULL;
        if (e != NULL)
            *e = '\0';
        if (*w == '\0')
            continue; /* an empty piece (",,", a trailing comma) is skipped */
        if (trim) {
            w = q;
            char *end = w + strlen(w);
            while (end > w && isspace((unsigned char)end[-1]))
                *--end = '\0';
        }
        return w;
    }
}

/* ---- KEY ----------------------------------------------------------------------------------- */

int cf_cli_key_parse(cf_cli *c, const cf_schema *s, const char *text, const void ***key,
                     cf_cli_arena *a)
{
    size_t nk = cf_schema_key_count(s);
    const void **ptrs = cf_cli_arena_alloc(a, nk * sizeof(*ptrs));
    uint8_t(*slots)[16] = cf_cli_arena_alloc(a, nk * sizeof(*slots));
    char *rest = arena_strdup(a, text);
    if (ptrs == NULL || slots == NULL || rest == NULL)
        return cf_cli_fail(c, "out of memory");
    for (size_t i = 0; i < nk; i++) {
        char *v;
        if (i + 1 < nk) {
            v = cf_cli_next_piece(&rest);
            if (rest == NULL)
                return cf_cli_usage(c,
                                    "key '%s': needs %zu comma-separated values (one per key "
                                    "column), got %zu; quote a value that holds a comma",
                                    text, nk, i + 1);
        } else {
            /* The last value: one quoted piece is unquoted, anything else
             * (commas included) is the value as written. */
            v = rest;
            if (v[piece_len(v)] == '\0')
                v = cf_cli_unquote(v);
        }
        if (i + 1 < nk)
            v = cf_cli_unquote(v);
        char msg[200];
        const cf_column *col = cf_schema_column_at(s, i);
        if (cf_cli_scalar_parse_col(col, v, slots[i], a, msg, sizeof(msg)) != 0)
            return cf_cli_usage(c, "key column '%s': %s", col->name, msg);
        ptrs[i] = slots[i];
    }
    *key = ptrs;
    return 0;
}

/* ---- --where ------------------------------------------------------------------------------- */

int cf_cli_where_parse(cf_cli *c, const cf_schema *s, const char *where, cf_pred **out, size_t *n,
                       cf_cli_arena *a)
{
    *out = NULL;
    *n = 0;
    if (where == NULL)
        return 0;
    char *p = arena_strdup(a, where);
    if (p == NULL)
        return cf_cli_fail(c, "out of memory");
    cf_pred *preds = NULL;
    size_t cap = 0;
    for (;;) {
        /* The column: bare ([A-Za-z0-9_]*) or in backquotes. */
        while (isspace((unsigned char)*p))
            p++;
        char *nm = p;
        bool bare = *p != '`';
        if (!bare) {
            char msg[300];
            size_t used;
            if ((nm = quoted_name(a, p, &used, msg, sizeof(msg))) == NULL)
                return cf_cli_usage(c, "--where: %s", msg);
            p += used;
        } else {
            while (isalnum((unsigned char)*p) || *p == '_')
                p++;
        }
        char *after_name = p;
        /* The next " AND " (any case) outside quotes ends this condition. */
        char *end = NULL;
        for (char *x = p; *x; x++) {
            if (*x == '\'' || *x == '"') {
                x = (char *)quote_end(x);
                if (*x == '\0')
                    break;
            } else if (isspace((unsigned char)*x) && strncasecmp(x + 1, "AND", 3) == 0 &&
                       isspace((unsigned char)x[4])) {
                end = x;
                break;
            }
        }
        if (end)
            *end = '\0';
        char save = *after_name;
        if (bare)
            *after_name = '\0'; /* a bare name ends here */
        int col = cf_schema_find(s, nm);
        if (col < 0)
            return cf_cli_usage(c, "--where: no column '%s'", nm);
        *after_name = save;
        while (isspace((unsigned char)*p))
            p++;
        if ((preds = arena_grow(a, preds, *n, &cap, sizeof(*preds))) == NULL)
            return cf_cli_fail(c, "out of memory");
        cf_pred *pr = &preds[*n];
        pr->col = (size_t)col;
        pr->value = NULL;
        const cf_column *cd = cf_schema_column_at(s, (size_t)col);
        if (strncasecmp(p, "IS", 2) == 0 && isspace((unsigned char)p[2])) {
            p += 3;
            while (isspace((unsigned char)*p))
                p++;
            if (strncasecmp(p, "NOT", 3) == 0 && isspace((unsigned char)p[3])) {
                pr->op = CF_PRED_IS_NOT_NULL;
                p += 4;
                while (isspace((unsigned char)*p))
                    p++;
            } else {
                pr->op = CF_PRED_IS_NULL;
            }
            if (strncasecmp(p, "NULL", 4) != 0)
                return cf_cli_usage(c, "--where: expected NULL after IS [NOT]");
            p += 4;
            while (isspace((unsigned char)*p))
                p++;
            if (*p != '\0')
                return cf_cli_usage(c, "--where: unexpected '%s'", p);
        } else {
            static const struct {
                const char *s;
                cf_pred_op op;
            } ops[] = {{"<=", CF_PRED_LE}, {">=", CF_PRED_GE}, {"!=", CF_PRED_NE},
                       {"<>", CF_PRED_NE}, {"=", CF_PRED_EQ},  {"<", CF_PRED_LT},
                       {">", CF_PRED_GT}};
            size_t k = 0;
            for (; k < sizeof(ops) / sizeof(ops[0]); k++)
                if (strncmp(p, ops[k].s, strlen(ops[k].s)) == 0)
                    break;
            if (k == sizeof(ops) / sizeof(ops[0]))
                return cf_cli_usage(c, "--where: expected an operator after '%s'", cd->name);
            pr->op = ops[k].op;
            p += strlen(ops[k].s);
            while (isspace((unsigned char)*p))
                p++;
            char *v = p, *ve = p + strlen(p);
            while (ve > v && isspace((unsigned char)ve[-1]))
                *--ve = '\0';
            v = cf_cli_unquote(v);
            if (cd->is_array)
                return cf_cli_usage(c, "--where: array column '%s' takes only IS [NOT] NULL",
                                    cd->name);
            void *slot = cf_cli_arena_alloc(a, 16);
            if (slot == NULL)
                return cf_cli_fail(c, "out of memory");
            char msg[200];
            if (cf_cli_scalar_parse_col(cd, v, slot, a, msg, sizeof(msg)) != 0)
                return cf_cli_usage(c, "--where: column '%s': %s", cd->name, msg);
            pr->value = slot;
        }
        (*n)++;
        if (end == NULL)
            break;
        p = end + 5;
    }
    *out = preds;
    return 0;
}

/* ---- --row / --set ------------------------------------------------------------------------- */

/* An array value "[e, ...]": the elements in the JSON value forms `table scan
 * --json` prints, NULL (any case) or null for a NULL element. */
static int parse_array(const cf_column *cd, const char *text, cf_array_cell **out, cf_cli_arena *a,
                       char *msg, size_t cap)
{
    /* Bare NULL words become JSON null; quoted text is left alone. */
    size_t n = strlen(text);
    char *j = cf_cli_arena_alloc(a, n + 1);
    if (j == NULL)
        return snprintf(msg, cap, "out of memory"), -1;
    memcpy(j, text, n + 1);
    char quote = 0;
    for (size_t i = 0; i < n; i++) {
        if (quote) {
            if (j[i] == '\\' && i + 1 < n)
                i++;
            else if (j[i] == quote)
                quote = 0;
        } else if (j[i] == '"') {
            quote = '"';
        } else if (strncasecmp(j + i, "null", 4) == 0 &&
                   (i == 0 || !isalnum((unsigned char)j[i - 1])) &&
                   !isalnum((unsigned char)j[i + 4])) {
            memcpy(j + i, "null", 4);
            i += 3;
        }
    }
    cf_json v;
    if (cf_json_parse_arena(a, &v, j, n, msg, cap) != 0)
        return -1;
    if (v.kind != CF_JSON_ARRAY)
        return snprintf(msg, cap, "an array column takes [element, ...]"), -1;
    size_t w = cf_type_size(cd->type);
    cf_array_cell *cell = cf_cli_arena_alloc(a, sizeof(*cell));
    uint8_t *vals = cf_cli_arena_alloc(a, v.n * w + 1);
    uint8_t *nn = cf_cli_arena_alloc(a, v.n / 8 + 1);
    if (cell == NULL || vals == NULL || nn == NULL)
        return snprintf(msg, cap, "out of memory"), -1;
    memset(nn, 0, v.n / 8 + 1);
    for (size_t i = 0; i < v.n; i++) {
        bool is_null = false;
        memset(vals + i * w, 0, w);
        if (cf_cli_value_parse_col(&v.items[i], cd->type, cd->precision, cd->scale, vals + i * w,
                                   &is_null, a, msg, cap) != 0)
            return -1;
        if (!is_null)
            nn[i / 8] |= (uint8_t)(1u << (i % 8));
    }
    *cell = (cf_array_cell){cd->type, v.n, vals, nn};
    *out = cell;
    return 0;
}

int cf_cli_assign_parse(cf_cli *c, const cf_schema *s, const char *opt, const char *text,
                        cf_column_change **out, size_t *n, cf_cli_arena *a)
{
    char *rest = arena_strdup(a, text);
    if (rest == NULL)
        return cf_cli_fail(c, "out of memory");
    cf_column_change *ch = NULL;
    size_t nch = 0, cap = 0;
    while (rest != NULL) {
        char *q = rest, *w, *v;
        while (isspace((unsigned char)*q))
            q++;
        if (*q == '`') {
            /* `quoted name` = value */
            char msg[300];
            size_t used;
            if ((w = quoted_name(a, q, &used, msg, sizeof(msg))) == NULL)
                return cf_cli_usage(c, "%s: %s", opt, msg);
            char *eq = q + used;
            while (isspace((unsigned char)*eq))
                eq++;
            if (*eq != '=')
                return cf_cli_usage(c, "%s: expected col=value after %.*s", opt, (int)used, q);
            rest = eq + 1;
            v = cf_cli_next_piece(&rest);
        } else {
            w = cf_cli_next_piece(&rest);
            if (*w == '\0')
                continue; /* empty pieces (",,", a trailing comma) are skipped, as before */
            char *eq = strchr(w, '=');
            if (eq == NULL)
                return cf_cli_usage(c, "%s: expected col=value, got '%s'", opt, w);
            *eq = '\0';
            while (isspace((unsigned char)*w))
                w++;
            char *we = eq;
            while (we > w && isspace((unsigned char)we[-1]))
                *--we = '\0';
            v = eq + 1;
        }
        int col = cf_schema_find(s, w);
        if (col < 0)
            return cf_cli_usage(c, "%s: no column '%s'", opt, w);
        const cf_column *cd = cf_schema_column_at(s, (size_t)col);
        if ((ch = arena_grow(a, ch, nch, &cap, sizeof(*ch))) == NULL)
            return cf_cli_fail(c, "out of memory");
        ch[nch].col = (size_t)col;
        char msg[200];
        if (strcasecmp(v, "NULL") == 0) {
            ch[nch].value = NULL;
        } else if (cd->is_array) {
            cf_array_cell *cell;
            if (parse_array(cd, v, &cell, a, msg, sizeof(msg)) != 0)
                return cf_cli_usage(c, "%s: column '%s': %s", opt, cd->name, msg);
            ch[nch].value = cell;
        } else {
            void *slot = cf_cli_arena_alloc(a, 16);
            if (slot == NULL)
                return cf_cli_fail(c, "out of memory");
            v = cf_cli_unquote(v);
            if (cf_cli_scalar_parse_col(cd, v, slot, a, msg, sizeof(msg)) != 0)
                return cf_cli_usage(c, "%s: column '%s': %s", opt, cd->name, msg);
            ch[nch].value = slot;
        }
        nch++;
    }
    *out = ch;
    *n = nch;
    return 0;
}

/* ---- schema text --------------------------------------------------------------------------- */

char *cf_cli_schema_text(const cf_schema *s)
{
    size_t n = cf_schema_format(s, NULL, 0);
    char *t = malloc(n + 1);
    if (t != NULL)
        cf_schema_format(s, t, n + 1);
    return t;
}

void cf_cli_scan_options(cf_scan_options *o, const size_t *cols, size_t ncols, const cf_pred *preds,
                         size_t npreds)
{
    cf_scan_options_init(o);
    o->cols = cols;
    o->ncols = ncols;
    o->preds = preds;
    o->npreds = npreds;
}

int cf_cli_columns_parse(cf_cli *c, const cf_schema *s, const char *spec, size_t **cols, size_t *n)
{
    size_t nc = cf_schema_column_count(s);
    if (spec == NULL) {
        *cols = calloc(nc ? nc : 1, sizeof(**cols));
        if (*cols == NULL)
            return cf_cli_fail(c, "out of memory");
        for (size_t i = 0; i < nc; i++)
            (*cols)[i] = i;
        *n = nc;
        return 0;
    }
    char *copy = strdup(spec);
    *cols = calloc(strlen(spec) + 1, sizeof(**cols));
    if (copy == NULL || *cols == NULL) {
        free(copy);
        return cf_cli_fail(c, "out of memory");
    }
    *n = 0;
    char *rest = copy, msg[300] = "";
    for (char *w; (w = cf_cli_next_name(&rest, true, msg, sizeof(msg))) != NULL;) {
        int k = cf_schema_find(s, w);
        if (k < 0) {
            /* w points into copy: say it before copy is freed. */
            int rc = cf_cli_usage(c, "--columns: no column '%s'", w);
            free(copy);
            return rc;
        }
        (*cols)[(*n)++] = (size_t)k;
    }
    free(copy);
    if (msg[0] != '\0')
        return cf_cli_usage(c, "--columns: %s", msg);
    return *n ? 0 : cf_cli_usage(c, "--columns: empty");
}

/* Fuzz `cfile table`'s command-line text forms (tools/cfile/table_args.c)
 * against a fixed schema with a column of nearly every type, four key columns
 * (INT64, STRING, INT32, STRING) and two array columns:
 *
 *   input: [opt][text]   text up to the first NUL byte
 *   opt % 3 == 0: --where "COL OP VALUE [AND ...]"  (cf_cli_where_parse)
 *   opt % 3 == 1: a KEY argument                     (cf_cli_key_parse)
 *   opt % 3 == 2: --row/--set assignments            (cf_cli_assign_parse)
 *
 * Invariants: a usage error (exit 2), or well-formed results: predicates on
 * existing columns with a valid operator, a value exactly when the operator
 * takes one, only IS [NOT] NULL on array columns, binary values readable, no
 * more conditions than the text can hold; one key value per key column;
 * assignments to existing columns, array cells of the column's type. Where
 * every value is an integer or a string, the results written back as text
 * (each string quoted, its quotes and backslashes escaped) parse to the same
 * results: the quoting round-trips. */
#include "fuzz.h"

#include <inttypes.h>
#include <string.h>

#include <cfile/rowset.h>

#include "table_args.h"

static const char SCHEMA[] =
    "k INT64 KEY, s STRING KEY, i32 INT32 KEY, t STRING KEY, i8 INT8 NULL, i16 INT16 NULL, "
    "u8 UINT8 NULL, u16 UINT16 NULL, u32 UINT32 NULL, u64 UINT64 NULL, f FLOAT NULL, "
    "d DOUBLE NULL, b BOOL NULL, bin BINARY NULL, vc VARCHAR(10) NULL, "
    "ts UNIXTIME_MICROS NULL, dt DATE NULL, d32 DECIMAL32(9,2) NULL, d64 DECIMAL64(18,4) NULL, "
    "d128 DECIMAL128(38,10) NULL, i128 INT128 NULL, arr INT32[] NULL, sarr STRING[] NULL";

static cf_rs_schema *g_schema;
static cf_cli g_cli;

static void init(void)
{
    if (g_schema != NULL)
        return;
    cf_error err;
    FUZZ_REQUIRE(cf_rs_schema_parse(&g_schema, SCHEMA, &err) == CF_OK);
    FILE *null = fopen("/dev/null", "w");
    FUZZ_REQUIRE(null != NULL);
    g_cli = (cf_cli){null, null, "table", cf_cmd_table_usage};
}

static bool is_int(cf_type t)
{
    switch (t) {
    case CF_TYPE_INT8:
    case CF_TYPE_INT16:
    case CF_TYPE_INT32:
    case CF_TYPE_INT64:
    case CF_TYPE_UINT8:
    case CF_TYPE_UINT16:
    case CF_TYPE_UINT32:
    case CF_TYPE_UINT64:
    case CF_TYPE_UNIXTIME_MICROS: return true;
    default: return false;
    }
}

static bool is_text(cf_type t) { return t == CF_TYPE_STRING || t == CF_TYPE_VARCHAR; }

/* Touch every byte of a value (ASan checks it is readable); binary ones must
 * not be longer than the text they came from. */
static void check_value(cf_type t, const void *v, size_t text_len)
{
    FUZZ_REQUIRE(v != NULL);
    if (cf_type_is_binary(t)) {
        cf_slice sl;
        memcpy(&sl, v, sizeof(sl));
        FUZZ_REQUIRE(sl.len <= text_len);
        FUZZ_REQUIRE(sl.len == 0 || sl.data != NULL);
        volatile uint8_t sum = 0;
        for (size_t i = 0; i < sl.len; i++)
            sum ^= sl.data[i];
        (void)sum;
    } else if (t == CF_TYPE_BOOL) {
        FUZZ_REQUIRE(*(const uint8_t *)v <= 1);
    } else {
        volatile uint8_t sum = 0;
        for (size_t i = 0; i < cf_type_size(t); i++)
            sum ^= ((const uint8_t *)v)[i];
        (void)sum;
    }
}

/* A value back as text: integers in decimal, strings in double quotes with
 * " and \ escaped. */
static void put_value(FILE *f, cf_type t, const void *v)
{
    if (is_text(t)) {
        cf_slice sl;
        memcpy(&sl, v, sizeof(sl));
        fputc('"', f);
        for (size_t i = 0; i < sl.len; i++) {
            if (sl.data[i] == '"' || sl.data[i] == '\\')
                fputc('\\', f);
            fputc(sl.data[i], f);
        }
        fputc('"', f);
        return;
    }
    size_t w = cf_type_size(t);
    if (t == CF_TYPE_UINT8 || t == CF_TYPE_UINT16 || t == CF_TYPE_UINT32 || t == CF_TYPE_UINT64) {
        uint64_t x = 0;
        memcpy(&x, v, w);
        fprintf(f, "%" PRIu64, x);
    } else {
        int64_t x = 0;
        memcpy(&x, v, w);
        if (w < 8) /* sign-extend */
            x = (int64_t)((uint64_t)x << (64 - 8 * w)) >> (64 - 8 * w);
        fprintf(f, "%" PRId64, x);
    }
}

static bool same_value(cf_type t, const void *a, const void *b)
{
    if (cf_type_is_binary(t)) {
        cf_slice x, y;
        memcpy(&x, a, sizeof(x));
        memcpy(&y, b, sizeof(y));
        return x.len == y.len && (x.len == 0 || memcmp(x.data, y.data, x.len) == 0);
    }
    return memcmp(a, b, cf_type_size(t)) == 0;
}

static const char *op_text(cf_rs_op op)
{
    static const char *t[] = {"=", "!=", "<", "<=", ">", ">="};
    return (size_t)op < sizeof(t) / sizeof(t[0]) ? t[op] : NULL;
}

static void fuzz_where(const char *text, size_t len)
{
    cf_arena a;
    cf_arena_init(&a);
    cf_rs_pred *p = NULL;
    size_t n = 0;
    int rc = cf_cli_where_parse(&g_cli, g_schema, text, &p, &n, &a);
    if (rc != 0) {
        FUZZ_REQUIRE(rc == CF_EXIT_USAGE);
        cf_arena_dispose(&a);
        return;
    }
    /* each condition takes at least "c=" and each AND " AND " */
    FUZZ_REQUIRE(n >= 1 && 2 * n + 5 * (n - 1) <= len);
    bool simple = true;
    for (size_t i = 0; i < n; i++) {
        FUZZ_REQUIRE(p[i].col < cf_rs_schema_ncols(g_schema));
        const cf_rs_column *c = cf_rs_schema_column(g_schema, p[i].col);
        bool nullop = p[i].op == CF_RS_IS_NULL || p[i].op == CF_RS_IS_NOT_NULL;
        FUZZ_REQUIRE(nullop || op_text(p[i].op) != NULL);
        FUZZ_REQUIRE(nullop == (p[i].value == NULL));
        FUZZ_REQUIRE(nullop || !c->is_array);
        if (!nullop) {
            check_value(c->type, p[i].value, len);
            simple = simple && (is_int(c->type) || is_text(c->type));
        }
    }
    if (simple) {
        char *buf = NULL;
        size_t blen = 0;
        FILE *f = open_memstream(&buf, &blen);
        FUZZ_REQUIRE(f != NULL);
        for (size_t i = 0; i < n; i++) {
            const cf_rs_column *c = cf_rs_schema_column(g_schema, p[i].col);
            fprintf(f, "%s%s ", i ? " and " : "", c->name);
            if (p[i].op == CF_RS_IS_NULL || p[i].op == CF_RS_IS_NOT_NULL) {
                fputs(p[i].op == CF_RS_IS_NULL ? "IS NULL" : "is not null", f);
            } else {
                fprintf(f, "%s ", op_text(p[i].op));
                put_value(f, c->type, p[i].value);
            }
        }
        FUZZ_REQUIRE(fclose(f) == 0);
        cf_rs_pred *q = NULL;
        size_t m = 0;
        rc = cf_cli_where_parse(&g_cli, g_schema, buf, &q, &m, &a);
        if (rc != 0 || m != n) {
            fprintf(stderr, "written back: %s\n", buf);
            FUZZ_REQUIRE(!"the written conditions parse back");
        }
        for (size_t i = 0; i < n; i++) {
            FUZZ_REQUIRE(q[i].col == p[i].col && q[i].op == p[i].op);
            const cf_rs_column *c = cf_rs_schema_column(g_schema, p[i].col);
            FUZZ_REQUIRE((p[i].value == NULL) == (q[i].value == NULL));
            if (p[i].value != NULL && !same_value(c->type, p[i].value, q[i].value)) {
                fprintf(stderr, "written back: %s\n", buf);
                FUZZ_REQUIRE(!"the same values");
            }
        }
        free(buf);
    }
    cf_arena_dispose(&a);
}

static void fuzz_key(const char *text, size_t len)
{
    cf_arena a;
    cf_arena_init(&a);
    const void **key = NULL;
    int rc = cf_cli_key_parse(&g_cli, g_schema, text, &key, &a);
    if (rc != 0) {
        FUZZ_REQUIRE(rc == CF_EXIT_USAGE);
        cf_arena_dispose(&a);
        return;
    }
    size_t nk = cf_rs_schema_nkeys(g_schema);
    for (size_t i = 0; i < nk; i++)
        check_value(cf_rs_schema_column(g_schema, i)->type, key[i], len);
    /* every key column is an integer or a string: write the key back, quoted */
    char *buf = NULL;
    size_t blen = 0;
    FILE *f = open_memstream(&buf, &blen);
    FUZZ_REQUIRE(f != NULL);
    for (size_t i = 0; i < nk; i++) {
        if (i)
            fputc(',', f);
        put_value(f, cf_rs_schema_column(g_schema, i)->type, key[i]);
    }
    FUZZ_REQUIRE(fclose(f) == 0);
    const void **k2 = NULL;
    rc = cf_cli_key_parse(&g_cli, g_schema, buf, &k2, &a);
    if (rc != 0) {
        fprintf(stderr, "written back: %s\n", buf);
        FUZZ_REQUIRE(!"the written key parses back");
    }
    for (size_t i = 0; i < nk; i++)
        if (!same_value(cf_rs_schema_column(g_schema, i)->type, key[i], k2[i])) {
            fprintf(stderr, "written back: %s\n", buf);
            FUZZ_REQUIRE(!"the same key");
        }
    free(buf);
    cf_arena_dispose(&a);
}

static void fuzz_assign(const char *text, size_t len)
{
    cf_arena a;
    cf_arena_init(&a);
    cf_rs_change *ch = NULL;
    size_t n = 0;
    int rc = cf_cli_assign_parse(&g_cli, g_schema, "--set", text, &ch, &n, &a);
    if (rc != 0) {
        FUZZ_REQUIRE(rc == CF_EXIT_USAGE);
        cf_arena_dispose(&a);
        return;
    }
    FUZZ_REQUIRE(3 * n <= len + 1); /* "c=" and a comma each, at least */
    for (size_t i = 0; i < n; i++) {
        FUZZ_REQUIRE(ch[i].col < cf_rs_schema_ncols(g_schema));
        const cf_rs_column *c = cf_rs_schema_column(g_schema, ch[i].col);
        if (ch[i].value == NULL)
            continue;
        if (!c->is_array) {
            check_value(c->type, ch[i].value, len);
            continue;
        }
        const cf_array_cell *cell = ch[i].value;
        FUZZ_REQUIRE(cell->type == c->type && cell->count <= len);
        for (size_t e = 0; e < cell->count; e++) {
            bool present = cell->nonnull == NULL || ((cell->nonnull[e / 8] >> (e % 8)) & 1);
            if (present)
                check_value(c->type, (const uint8_t *)cell->values + e * cf_type_size(c->type),
                            len);
        }
    }
    cf_arena_dispose(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    init();
    if (size < 1)
        return 0;
    uint8_t opt = data[0];
    size_t len = strnlen((const char *)data + 1, size - 1);
    char *text = malloc(len + 1);
    FUZZ_REQUIRE(text != NULL);
    memcpy(text, data + 1, len);
    text[len] = '\0';
    switch (opt % 3) {
    case 0: fuzz_where(text, len); break;
    case 1: fuzz_key(text, len); break;
    default: fuzz_assign(text, len); break;
    }
    free(text);
    return 0;
}

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
 * every value is an integer, a string (or NULL for assignments), the results
 * written back as text (each string quoted, its quotes and backslashes
 * escaped) parse to the same results: the quoting round-trips. Accepted conditions also scan a
 * small table of that schema (two overlapping DiskRowSets and MemRowSet rows, NULLs and extreme
 * values): the library takes them, and where every compared value is an integer or a string the
 * rows returned are exactly those a model picks; an accepted KEY looks up exactly the row with
 * those key values, or none. */
/* cf-needs: tables */
#include "fuzz.h"

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include <cfile/rowset.h>

#include "table_args.h"

static const char SCHEMA[] =
    "k INT64 KEY, s STRING KEY, i32 INT32 KEY, t STRING KEY, i8 INT8 NULL, i16 INT16 NULL, "
    "u8 UINT8 NULL, u16 UINT16 NULL, u32 UINT32 NULL, u64 UINT64 NULL, f FLOAT NULL, "
    "d DOUBLE NULL, b BOOL NULL, bin BINARY NULL, vc VARCHAR(10) NULL, "
    "ts UNIXTIME_MICROS NULL, dt DATE NULL, d32 DECIMAL32(9,2) NULL, d64 DECIMAL64(18,4) NULL, "
    "d128 DECIMAL128(38,10) NULL, i128 INT128 NULL, arr INT32[] NULL, sarr STRING[] NULL";

static cf_schema *g_schema;
static cf_cli g_cli;

/* ---- the table ------------------------------------------------------------------------------- */

enum { NROWS = 7, MAXCOLS = 32 };

static char g_dir[64];
static cf_table *g_table;
static _Alignas(16) uint8_t g_val[NROWS][MAXCOLS][16]; /* memory forms */
static bool g_present[NROWS][MAXCOLS];

static const char *const g_s[NROWS] = {"", "a,b", "x\"y", "it's", "AND", "zz", "\xc3\xa9"};
static const char *const g_t[NROWS] = {"t0", "", " sp ", "\\", "a AND b", "last", "~"};

static void cleanup(void)
{
    cf_table_free(g_table);
    char cmd[96];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "fuzz_where: could not remove %s\n", g_dir);
}

static void put_int(uint8_t *slot, size_t w, int64_t v)
{
    memcpy(slot, &v, w);
}

/* Row r's values: keys always, other columns NULL now and then. */
static void make_row(size_t r)
{
    static const int64_t k[NROWS] = {INT64_MIN, -5, 0, 7, 100, 1000, INT64_MAX};
    static const int64_t small[NROWS] = {-128, -1, 0, 1, 127, 5, -7};
    static const uint64_t big[NROWS] = {0, 1, 255, 65535, 4294967295u, UINT64_MAX, 12345};
    size_t nc = cf_schema_column_count(g_schema);
    for (size_t c = 0; c < nc; c++) {
        const cf_column *cd = cf_schema_column_at(g_schema, c);
        uint8_t *v = g_val[r][c];
        memset(v, 0, 16);
        g_present[r][c] = cd->is_key || (!cd->is_array && (r + c) % 4 != 0);
        if (!g_present[r][c])
            continue;
        size_t w = cf_type_size(cd->type);
        const char *name = cd->name;
        if (strcmp(name, "k") == 0)
            put_int(v, 8, k[r]);
        else if (strcmp(name, "s") == 0 || strcmp(name, "t") == 0 || strcmp(name, "vc") == 0 ||
                 strcmp(name, "bin") == 0) {
            const char *str = name[0] == 't' ? g_t[r] : g_s[(r + 3) % NROWS];
            if (name[0] == 's')
                str = g_s[r];
            cf_slice sl = {(const uint8_t *)str, strlen(str)};
            memcpy(v, &sl, sizeof(sl));
        } else if (strcmp(name, "i32") == 0)
            put_int(v, 4, r == 0 ? INT32_MIN : r == NROWS - 1 ? INT32_MAX : (int64_t)r * 3 - 6);
        else if (cd->type == CF_TYPE_UINT8 || cd->type == CF_TYPE_UINT16 ||
                 cd->type == CF_TYPE_UINT32 || cd->type == CF_TYPE_UINT64) {
            uint64_t x = big[r] & (w == 8 ? UINT64_MAX : (1ull << (8 * w)) - 1);
            memcpy(v, &x, w);
        } else if (cd->type == CF_TYPE_FLOAT) {
            float x = (float)r * 1.5f - 3;
            memcpy(v, &x, 4);
        } else if (cd->type == CF_TYPE_DOUBLE) {
            double x = (double)r * -2.25 + 1;
            memcpy(v, &x, 8);
        } else if (cd->type == CF_TYPE_BOOL) {
            v[0] = r % 2;
        } else if (cd->type == CF_TYPE_INT128 || cd->type == CF_TYPE_DECIMAL128) {
            put_int(v, 8, small[r] * 1000003);
            if (small[r] < 0)
                memset(v + 8, 0xff, 8); /* sign-extend to 128 bits */
        } else {
            put_int(v, w, small[r]); /* INT8..INT64, DATE, DECIMAL32/64, UNIXTIME */
        }
    }
}

/* The table: rows 0, 3, 5 and rows 1, 4 in two flushed rowsets with
 * overlapping keys, rows 2 and 6 in the MemRowSet. */
static void make_table(void)
{
    strcpy(g_dir, "/tmp/cf_fuzz_where_XXXXXX");
    FUZZ_REQUIRE(mkdtemp(g_dir) != NULL);
    cf_error err;
    FUZZ_REQUIRE_MSG(cf_rowset_create_empty(g_dir, g_schema, &err) == CF_OK, &err);
    FUZZ_REQUIRE_MSG(cf_table_open(&g_table, g_dir, NULL, &err) == CF_OK, &err);
    atexit(cleanup);
    static const size_t order[NROWS] = {0, 3, 5, 1, 4, 2, 6};
    uint64_t ts = cf_table_last_ts(g_table) + 1;
    for (size_t i = 0; i < NROWS; i++) {
        size_t r = order[i];
        make_row(r);
        const void *vals[MAXCOLS];
        for (size_t c = 0; c < cf_schema_column_count(g_schema); c++)
            vals[c] = g_present[r][c] ? g_val[r][c] : NULL;
        FUZZ_REQUIRE_MSG(cf_table_insert(g_table, vals, ts++, &err) == CF_OK, &err);
        if (i == 2 || i == 4)
            FUZZ_REQUIRE_MSG(cf_table_flush(g_table, &err) == CF_OK, &err);
    }
}

static void init(void)
{
    if (g_schema != NULL)
        return;
    cf_error err;
    FUZZ_REQUIRE(cf_schema_parse(&g_schema, SCHEMA, &err) == CF_OK);
    FUZZ_REQUIRE(cf_schema_column_count(g_schema) <= MAXCOLS);
    FILE *null = fopen("/dev/null", "w");
    FUZZ_REQUIRE(null != NULL);
    g_cli = (cf_cli){null, null, "table", cf_cmd_table_usage};
    make_table();
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

static bool is_text(cf_type t)
{
    return t == CF_TYPE_STRING || t == CF_TYPE_VARCHAR;
}

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

static const char *op_text(cf_pred_op op)
{
    static const char *t[] = {" = ", " != ", " < ", " <= ", " > ", " >= "}; /* as written back */
    return (size_t)op < sizeof(t) / sizeof(t[0]) ? t[op] : NULL;
}

/* -1, 0, 1: a <=> b for an integer or string column (a, b memory forms). */
static int model_cmp(cf_type t, const uint8_t *a, const uint8_t *b)
{
    if (is_text(t)) {
        cf_slice x, y;
        memcpy(&x, a, sizeof(x));
        memcpy(&y, b, sizeof(y));
        size_t m = x.len < y.len ? x.len : y.len;
        int c = m ? memcmp(x.data, y.data, m) : 0;
        if (c != 0)
            return c < 0 ? -1 : 1;
        return x.len < y.len ? -1 : x.len > y.len;
    }
    size_t w = cf_type_size(t);
    if (t == CF_TYPE_UINT8 || t == CF_TYPE_UINT16 || t == CF_TYPE_UINT32 || t == CF_TYPE_UINT64) {
        uint64_t x = 0, y = 0;
        memcpy(&x, a, w);
        memcpy(&y, b, w);
        return x < y ? -1 : x > y;
    }
    int64_t x = 0, y = 0;
    memcpy(&x, a, w);
    memcpy(&y, b, w);
    if (w < 8) {
        x = (int64_t)((uint64_t)x << (64 - 8 * w)) >> (64 - 8 * w);
        y = (int64_t)((uint64_t)y << (64 - 8 * w)) >> (64 - 8 * w);
    }
    return x < y ? -1 : x > y;
}

static bool model_row(size_t r, const cf_pred *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        bool present = g_present[r][p[i].col];
        if (p[i].op == CF_PRED_IS_NULL || p[i].op == CF_PRED_IS_NOT_NULL) {
            if (present != (p[i].op == CF_PRED_IS_NOT_NULL))
                return false;
            continue;
        }
        if (!present)
            return false; /* a comparison is false for NULL */
        const cf_column *c = cf_schema_column_at(g_schema, p[i].col);
        int cmp = model_cmp(c->type, g_val[r][p[i].col], p[i].value);
        bool ok = p[i].op == CF_PRED_EQ   ? cmp == 0
                  : p[i].op == CF_PRED_NE ? cmp != 0
                  : p[i].op == CF_PRED_LT ? cmp < 0
                  : p[i].op == CF_PRED_LE ? cmp <= 0
                  : p[i].op == CF_PRED_GT ? cmp > 0
                                          : cmp >= 0;
        if (!ok)
            return false;
    }
    return true;
}

/* Scan the table with the conditions (projection: k); with `model`, the rows
 * must be exactly the model's. */
static void scan_table(const cf_pred *p, size_t n, bool model)
{
    size_t col = 0;
    cf_scan_options o;
    cf_scan_options_init(&o);
    o.cols = &col;
    o.ncols = 1;
    o.preds = p;
    o.npreds = n;
    cf_table_scanner *sc = NULL;
    cf_error err;
    FUZZ_REQUIRE_MSG(cf_table_scanner_create(&sc, g_table, &o, &err) == CF_OK, &err);
    unsigned got = 0;
    for (;;) {
        cf_row_batch b;
        FUZZ_REQUIRE_MSG(cf_table_scanner_next(sc, &b, &err) == CF_OK, &err);
        if (b.count == 0)
            break;
        FUZZ_REQUIRE(b.ncols == 1);
        for (size_t i = 0; i < b.count; i++) {
            int64_t k;
            memcpy(&k, (const uint8_t *)b.cols[0].values + 8 * i, 8);
            size_t r = 0;
            while (r < NROWS && memcmp(g_val[r][0], &k, 8) != 0)
                r++;
            FUZZ_REQUIRE(r < NROWS && !(got >> r & 1)); /* a row of the table, once */
            got |= 1u << r;
        }
    }
    cf_table_scanner_free(sc);
    if (model) {
        unsigned want = 0;
        for (size_t r = 0; r < NROWS; r++)
            if (model_row(r, p, n))
                want |= 1u << r;
        if (got != want) {
            fprintf(stderr, "scan gave rows 0x%x, the model 0x%x\n", got, want);
            FUZZ_REQUIRE(!"the rows the model picks");
        }
    }
}

/* One item of a list written back: the name of column col, then op as is, then
 * value (NULL: none) in its text form (put_value). */
typedef struct wb_item {
    size_t col;
    const char *op;
    const void *value;
} wb_item;

/* The n items as text, joined by sep (free() it). */
static char *write_back(const wb_item *it, size_t n, const char *sep)
{
    fuzz_text t;
    FILE *f = fuzz_text_open(&t);
    for (size_t i = 0; i < n; i++) {
        const cf_column *c = cf_schema_column_at(g_schema, it[i].col);
        fprintf(f, "%s%s%s", i ? sep : "", c->name, it[i].op);
        if (it[i].value != NULL)
            put_value(f, c->type, it[i].value);
    }
    return fuzz_text_close(&t);
}

/* Text written back from what was parsed must parse back to the same: else the
 * text is shown and the check named by `what` fails. */
static void require_written_back(bool same, const char *text, const char *what)
{
    if (!same) {
        fprintf(stderr, "written back: %s\nFUZZ_REQUIRE failed: %s\n", text, what);
        abort();
    }
}

static void fuzz_where(const char *text, size_t len, cf_cli_arena *a)
{
    cf_pred *p = NULL;
    size_t n = 0;
    int rc = cf_cli_where_parse(&g_cli, g_schema, text, &p, &n, a);
    if (rc != 0) {
        FUZZ_REQUIRE(rc == CF_EXIT_USAGE);
        return;
    }
    /* each condition takes at least "c=" and each AND " AND " */
    FUZZ_REQUIRE(n >= 1 && 2 * n + 5 * (n - 1) <= len);
    bool simple = true;
    for (size_t i = 0; i < n; i++) {
        FUZZ_REQUIRE(p[i].col < cf_schema_column_count(g_schema));
        const cf_column *c = cf_schema_column_at(g_schema, p[i].col);
        bool nullop = p[i].op == CF_PRED_IS_NULL || p[i].op == CF_PRED_IS_NOT_NULL;
        FUZZ_REQUIRE(nullop || op_text(p[i].op) != NULL);
        FUZZ_REQUIRE(nullop == (p[i].value == NULL));
        FUZZ_REQUIRE(nullop || !c->is_array);
        if (!nullop) {
            check_value(c->type, p[i].value, len);
            simple = simple && (is_int(c->type) || is_text(c->type));
        }
    }
    scan_table(p, n, simple);
    if (simple) {
        wb_item *it = malloc(n * sizeof *it);
        FUZZ_REQUIRE(it != NULL);
        for (size_t i = 0; i < n; i++)
            it[i] = (wb_item){p[i].col,
                              p[i].op == CF_PRED_IS_NULL       ? " IS NULL"
                              : p[i].op == CF_PRED_IS_NOT_NULL ? " is not null"
                                                               : op_text(p[i].op),
                              p[i].value};
        char *buf = write_back(it, n, " and ");
        free(it);
        cf_pred *q = NULL;
        size_t m = 0;
        rc = cf_cli_where_parse(&g_cli, g_schema, buf, &q, &m, a);
        require_written_back(rc == 0 && m == n, buf, "the written conditions parse back");
        for (size_t i = 0; i < n; i++) {
            FUZZ_REQUIRE(q[i].col == p[i].col && q[i].op == p[i].op);
            const cf_column *c = cf_schema_column_at(g_schema, p[i].col);
            FUZZ_REQUIRE((p[i].value == NULL) == (q[i].value == NULL));
            require_written_back(p[i].value == NULL || same_value(c->type, p[i].value, q[i].value),
                                 buf, "the same values");
        }
        free(buf);
    }
}

static void fuzz_key(const char *text, size_t len, cf_cli_arena *a)
{
    const void **key = NULL;
    int rc = cf_cli_key_parse(&g_cli, g_schema, text, &key, a);
    if (rc != 0) {
        FUZZ_REQUIRE(rc == CF_EXIT_USAGE);
        return;
    }
    size_t nk = cf_schema_key_count(g_schema);
    for (size_t i = 0; i < nk; i++)
        check_value(cf_schema_column_at(g_schema, i)->type, key[i], len);
    /* The lookup finds the table's row with exactly these key values, or none. */
    size_t want = NROWS;
    for (size_t r = 0; r < NROWS && want == NROWS; r++) {
        bool eq = true;
        for (size_t i = 0; i < nk && eq; i++)
            eq = model_cmp(cf_schema_column_at(g_schema, i)->type, g_val[r][i], key[i]) == 0;
        if (eq)
            want = r;
    }
    cf_row_batch row;
    cf_error err;
    cf_status st = cf_table_get(g_table, key, CF_SNAPSHOT_LATEST, &row, &err);
    FUZZ_REQUIRE_MSG(st == (want < NROWS ? CF_OK : CF_ENOTFOUND), &err);
    if (st == CF_OK) {
        FUZZ_REQUIRE(row.count == 1);
        FUZZ_REQUIRE(memcmp(row.cols[0].values, g_val[want][0], 8) == 0);
    }
    /* every key column is an integer or a string: write the key back, quoted */
    fuzz_text t;
    FILE *f = fuzz_text_open(&t);
    for (size_t i = 0; i < nk; i++) {
        if (i)
            fputc(',', f);
        put_value(f, cf_schema_column_at(g_schema, i)->type, key[i]);
    }
    char *buf = fuzz_text_close(&t);
    const void **k2 = NULL;
    rc = cf_cli_key_parse(&g_cli, g_schema, buf, &k2, a);
    require_written_back(rc == 0, buf, "the written key parses back");
    for (size_t i = 0; i < nk; i++)
        require_written_back(same_value(cf_schema_column_at(g_schema, i)->type, key[i], k2[i]), buf,
                             "the same key");
    free(buf);
}

static void fuzz_assign(const char *text, size_t len, cf_cli_arena *a)
{
    cf_column_change *ch = NULL;
    size_t n = 0;
    int rc = cf_cli_assign_parse(&g_cli, g_schema, "--set", text, &ch, &n, a);
    if (rc != 0) {
        FUZZ_REQUIRE(rc == CF_EXIT_USAGE);
        return;
    }
    FUZZ_REQUIRE(3 * n <= len + 1); /* "c=" and a comma each, at least */
    bool simple = true;
    for (size_t i = 0; i < n; i++) {
        FUZZ_REQUIRE(ch[i].col < cf_schema_column_count(g_schema));
        const cf_column *c = cf_schema_column_at(g_schema, ch[i].col);
        if (ch[i].value == NULL)
            continue;
        if (!c->is_array) {
            check_value(c->type, ch[i].value, len);
            simple = simple && (is_int(c->type) || is_text(c->type));
            continue;
        }
        simple = false;
        const cf_array_cell *cell = ch[i].value;
        FUZZ_REQUIRE(cell->type == c->type && cell->count <= len);
        for (size_t e = 0; e < cell->count; e++) {
            bool present = cell->nonnull == NULL || ((cell->nonnull[e / 8] >> (e % 8)) & 1);
            if (present)
                check_value(c->type, (const uint8_t *)cell->values + e * cf_type_size(c->type),
                            len);
        }
    }
    if (simple) {
        /* written back as name=value, strings quoted: the same assignments */
        wb_item *it = calloc(n + 1, sizeof *it); /* n may be 0 */
        FUZZ_REQUIRE(it != NULL);
        for (size_t i = 0; i < n; i++)
            it[i] = (wb_item){ch[i].col, ch[i].value != NULL ? "=" : "=null", ch[i].value};
        char *buf = write_back(it, n, ",");
        free(it);
        cf_column_change *c2 = NULL;
        size_t m = 0;
        rc = cf_cli_assign_parse(&g_cli, g_schema, "--set", buf, &c2, &m, a);
        bool same = rc == 0 && m == n;
        for (size_t i = 0; same && i < n; i++) {
            const cf_column *c = cf_schema_column_at(g_schema, ch[i].col);
            same = c2[i].col == ch[i].col && (c2[i].value == NULL) == (ch[i].value == NULL) &&
                   (ch[i].value == NULL || same_value(c->type, ch[i].value, c2[i].value));
        }
        require_written_back(same, buf, "the written assignments parse back");
        free(buf);
    }
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
    /* what each parser hands out lives in the arena, freed here whatever happened */
    cf_cli_arena a;
    cf_cli_arena_init(&a);
    switch (opt % 3) {
    case 0: fuzz_where(text, len, &a); break;
    case 1: fuzz_key(text, len, &a); break;
    default: fuzz_assign(text, len, &a); break;
    }
    cf_cli_arena_dispose(&a);
    free(text);
    return 0;
}

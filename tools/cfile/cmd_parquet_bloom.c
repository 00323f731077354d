/* cfile parquet bloom FILE --column C VALUE...: probe a column's split-block
 * bloom filters, one per row group, for each value given on the command line.
 *
 * A value is text in the column's terms, turned into the PLAIN bytes the
 * filter hashed:
 *   INT32, INT64        a decimal integer (in the range of INT(bits, signed));
 *                       DATE also YYYY-MM-DD; DECIMAL(p, s) also "12.34"
 *   FLOAT, DOUBLE       a decimal number, NaN, Infinity, -Infinity or the bits
 *                       0x<hex>
 * (numbers through cf_cli_value_parse_text, the forms KEY, --where and --set take)
 *   BYTE_ARRAY          the text's bytes (--hex: hex digits)
 *   FIXED_LEN_BYTE_ARRAY  hex digits (exactly type_length bytes); UUID also the
 *                       8-4-4-4-12 form; DECIMAL also "12.34"
 *   INT96               hex digits (12 bytes)
 * BOOLEAN columns have no defined hash (exit 3). Values starting with '-' go
 * after "--". */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/parquet.h>

#include "cli.h"
#include "values.h"
#include "vtext.h"

const char cf_cmd_parquet_bloom_usage[] =
    "usage: cfile parquet bloom [--json] [--hex] --column C FILE [--] VALUE...\n"
    "\n"
    "Probe column C's bloom filters (one per row group) for each VALUE: 'maybe\n"
    "present' or 'absent' per row group. C is a column path (a.b.c) or a top-level\n"
    "field with one leaf column. A VALUE is text in the column's terms: integers\n"
    "(DATE also YYYY-MM-DD, DECIMAL also 12.34), FLOAT/DOUBLE as decimal text, NaN,\n"
    "Infinity, -Infinity or their bits 0x<hex> (as --where takes them), the bytes of\n"
    "the text for BYTE_ARRAY, hex for FIXED_LEN_BYTE_ARRAY and INT96 (UUID also in\n"
    "its 8-4-4-4-12 form, DECIMAL as 12.34). Values starting with '-' go after --.\n"
    "\n"
    "Exit 1 when no row group of the column has a bloom filter, or a filter is\n"
    "damaged (naming row group, column and offset); 3 for a filter of an algorithm,\n"
    "hash or compression the format does not define, or a BOOLEAN column.\n"
    "\n"
    "  --column C  the column (required)\n"
    "  --hex       BYTE_ARRAY values are given as hex digits\n"
    "  --json      one JSON document: {\"column\", \"type\", \"row_groups\",\n"
    "              \"filters\": [{\"row_group\", \"offset\", \"length\", \"bitset_bytes\"}],\n"
    "              \"values\": [{\"value\", \"present\": [true|false|null per row\n"
    "              group (null: no filter)]}]}\n"
    "  --help      this text\n";

/* Longest PLAIN form we build from text: FLBA of a command-line value. */
#define VALUE_CAP 4096

typedef struct pq_probe_value {
    uint8_t bytes[VALUE_CAP];
    size_t len;
} pq_probe_value;

static bool parse_hex(const char *s, pq_probe_value *v)
{
    size_t n = strlen(s);
    if (n % 2 || n / 2 > VALUE_CAP)
        return false;
    if (cf_cli_hex_decode(v->bytes, s, n) != 0)
        return false;
    v->len = n / 2;
    return true;
}

/* 8-4-4-4-12 hex digits into 16 bytes. */
static bool parse_uuid(const char *s, pq_probe_value *v)
{
    if (strlen(s) != 36)
        return false;
    size_t k = 0;
    for (size_t i = 0; i < 36;) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i++] != '-')
                return false;
            continue;
        }
        int hi = cf_cli_hex_digit(s[i]), lo = cf_cli_hex_digit(s[i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        v->bytes[k++] = (uint8_t)(hi << 4 | lo);
        i += 2;
    }
    v->len = 16;
    return true;
}

/* Days since 1970-01-01 of a proleptic Gregorian date: the form `parquet dump`
 * prints, so years past 0000..9999 (astronomical, "-0001-12-31") too, with the
 * calendar of the CLI's value forms (vtext.h). */
static bool parse_date(const char *s, int64_t *days)
{
    int y, m, d, n = 0;
    if (sscanf(s, "%d-%d-%d%n", &y, &m, &d, &n) != 3 || s[n] || m < 1 || m > 12 || d < 1 ||
        d > 31 || y < -999999 || y > 999999)
        return false;
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (d > mdays[m - 1] || (m == 2 && d == 29 && !leap))
        return false;
    *days = cf_vt_days_from_civil(y, (unsigned)m, (unsigned)d);
    return true;
}

/* "-12.34" with `scale` fraction digits at most (and at most the column's
 * precision of digits) into the unscaled integer: the CLI's decimal form
 * (vtext.h), which `parquet dump` prints. */
static bool parse_decimal(const char *s, const cf_parquet_logical *lt, cf_cli_i128 *out)
{
    cf_vt_i128 v;
    if (cf_vt_parse_decimal(s, strlen(s), lt->precision, lt->scale, &v, NULL, 0) != 0)
        return false;
    *out = v;
    return true;
}

/* Big-endian two's complement of v in n bytes (n <= 16), if it fits. */
static bool be_twos(cf_cli_i128 v, size_t n, uint8_t *out)
{
    if (n < 16) {
        cf_cli_i128 lim = (cf_cli_i128)1 << (8 * n - 1);
        if (v < -lim || v >= lim)
            return false;
    }
    cf_cli_u128 u = (cf_cli_u128)v;
    for (size_t i = 0; i < n; i++)
        out[n - 1 - i] = (uint8_t)(u >> (8 * i));
    return true;
}

/* The library type whose text form and range an INT32/INT64 column's integers
 * take: INT(bits, signed) as written, else the physical type. */
static cf_type int_type(const cf_parquet_column *col, const cf_parquet_logical *lt)
{
    static const cf_type sig[] = {CF_TYPE_INT8, CF_TYPE_INT16, CF_TYPE_INT32, CF_TYPE_INT64};
    static const cf_type uns[] = {CF_TYPE_UINT8, CF_TYPE_UINT16, CF_TYPE_UINT32, CF_TYPE_UINT64};
    if (lt->kind == CF_PARQUET_LT_INTEGER) {
        int k = lt->bit_width <= 8 ? 0 : lt->bit_width <= 16 ? 1 : lt->bit_width <= 32 ? 2 : 3;
        return lt->is_signed ? sig[k] : uns[k];
    }
    return col->type == CF_PARQUET_INT64 ? CF_TYPE_INT64 : CF_TYPE_INT32;
}

/* The PLAIN bytes of `text` for column col; a message in msg when it is not
 * a value of the column. Returns CF_EXIT_OK, CF_EXIT_USAGE or CF_EXIT_NOTSUP. */
static int parse_value(const cf_parquet_column *col, const char *text, bool hex, pq_probe_value *v,
                       char *msg, size_t cap)
{
    const cf_parquet_logical *lt = &col->leaf->logical;
    char why[200]; /* the shared parser's message (no arena: it copies no number text) */
    memset(v, 0, sizeof(*v));
    switch (col->type) {
    case CF_PARQUET_INT32:
    case CF_PARQUET_INT64: {
        bool is64 = col->type == CF_PARQUET_INT64;
        int64_t x;
        cf_cli_i128 d;
        if (lt->kind == CF_PARQUET_LT_DATE && strchr(text + 1, '-') && parse_date(text, &x)) {
            /* x from the date */
        } else if (lt->kind == CF_PARQUET_LT_DECIMAL && parse_decimal(text, lt, &d)) {
            if (d < INT64_MIN || d > INT64_MAX)
                goto bad;
            x = (int64_t)d;
        } else {
            /* The CLI's one text-to-value parser (values.h), as for KEY, --where and
             * --set: the integer form and range of INT(bits, signed). */
            cf_type t = int_type(col, lt);
            uint8_t slot[8];
            if (cf_cli_value_parse_text(text, strlen(text), t, slot, NULL, why, sizeof why) != 0)
                goto bad_why;
            x = (int64_t)cf_cli_int_widen(t, slot); /* UINT64 keeps its bits */
        }
        if (!is64 && (x < INT32_MIN || x > (int64_t)UINT32_MAX))
            goto bad;
        if (is64) {
            uint64_t u = (uint64_t)x;
            for (int i = 0; i < 8; i++)
                v->bytes[i] = (uint8_t)(u >> (8 * i));
            v->len = 8;
        } else {
            uint32_t u = (uint32_t)x;
            for (int i = 0; i < 4; i++)
                v->bytes[i] = (uint8_t)(u >> (8 * i));
            v->len = 4;
        }
        return CF_EXIT_OK;
    }
    case CF_PARQUET_FLOAT:
    case CF_PARQUET_DOUBLE: {
        /* Decimal text, NaN, Infinity, -Infinity or the bits 0x<hex> (values.h). */
        cf_type t = col->type == CF_PARQUET_FLOAT ? CF_TYPE_FLOAT : CF_TYPE_DOUBLE;
        if (cf_cli_value_parse_text(text, strlen(text), t, v->bytes, NULL, why, sizeof why) != 0)
            goto bad_why;
        v->len = cf_type_size(t);
        return CF_EXIT_OK;
    }
    case CF_PARQUET_BYTE_ARRAY:
        if (hex)
            return parse_hex(text, v)
                       ? CF_EXIT_OK
                       : (snprintf(msg, cap, "'%s' is not hex", text), CF_EXIT_USAGE);
        if (lt->kind == CF_PARQUET_LT_DECIMAL) {
            cf_cli_i128 d;
            if (!parse_decimal(text, lt, &d))
                goto bad;
            /* The shortest two's complement, as writers store it. */
            size_t n = 1;
            while (n < 16 && !be_twos(d, n, v->bytes))
                n++;
            be_twos(d, n, v->bytes);
            v->len = n;
            return CF_EXIT_OK;
        }
        v->len = strlen(text);
        if (v->len > VALUE_CAP)
            goto bad;
        memcpy(v->bytes, text, v->len);
        return CF_EXIT_OK;
    case CF_PARQUET_FIXED_LEN_BYTE_ARRAY: {
        size_t want = (size_t)col->type_length;
        if (lt->kind == CF_PARQUET_LT_UUID && parse_uuid(text, v))
            return CF_EXIT_OK;
        if (lt->kind == CF_PARQUET_LT_DECIMAL && want <= 16) {
            cf_cli_i128 d;
            if (parse_decimal(text, lt, &d)) {
                if (!be_twos(d, want, v->bytes))
                    goto bad;
                v->len = want;
                return CF_EXIT_OK;
            }
        }
        if (!parse_hex(text, v) || v->len != want) {
            snprintf(msg, cap, "'%s' is not %zu bytes of hex", text, want);
            return CF_EXIT_USAGE;
        }
        return CF_EXIT_OK;
    }
    case CF_PARQUET_INT96:
        if (!parse_hex(text, v) || v->len != 12) {
            snprintf(msg, cap, "'%s' is not 12 bytes of hex (INT96)", text);
            return CF_EXIT_USAGE;
        }
        return CF_EXIT_OK;
    default:
        snprintf(msg, cap, "bloom filters of %s columns are not defined",
                 cf_parquet_type_name(col->type) ? cf_parquet_type_name(col->type) : "?");
        return CF_EXIT_NOTSUP;
    }
bad:
    snprintf(msg, cap, "'%s' is not a value of this %s column", text,
             cf_parquet_type_name(col->type));
    return CF_EXIT_USAGE;
bad_why:
    snprintf(msg, cap, "'%s' is not a value of this %s column (%s)", text,
             cf_parquet_type_name(col->type), why);
    return CF_EXIT_USAGE;
}

/* Column by dotted path, or a top-level field with a single leaf. -1 if none. */
static int64_t find_column(const cf_parquet *pq, const char *name)
{
    uint32_t n = cf_parquet_column_count(pq);
    for (uint32_t i = 0; i < n; i++) {
        const cf_parquet_column *col = cf_parquet_column_at(pq, i);
        const char *p = name;
        uint32_t k = 0;
        for (; k < col->path_len; k++) {
            cf_slice s = col->path[k];
            if (strncmp(p, (const char *)s.data, s.len) != 0)
                break;
            p += s.len;
            if (k + 1 < col->path_len) {
                if (*p != '.')
                    break;
                p++;
            }
        }
        if (k == col->path_len && *p == 0)
            return i;
    }
    int64_t found = -1;
    size_t len = strlen(name);
    for (uint32_t i = 0; i < n; i++) {
        const cf_parquet_column *col = cf_parquet_column_at(pq, i);
        if (col->path[0].len == len && memcmp(col->path[0].data, name, len) == 0) {
            if (found >= 0)
                return -1;
            found = i;
        }
    }
    return found;
}

static void put_path(FILE *f, const cf_parquet_column *col)
{
    for (uint32_t k = 0; k < col->path_len; k++)
        fprintf(f, "%s%.*s", k ? "." : "", (int)col->path[k].len, (const char *)col->path[k].data);
}

int cf_cmd_parquet_bloom(cf_cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        {"column", required_argument, NULL, 'c'},
        {"hex", no_argument, NULL, 'x'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    cf_cli sub = cf_cli_sub(c, "parquet bloom", cf_cmd_parquet_bloom_usage);
    c = &sub;
    bool json = false, hex = false;
    const char *colname = NULL;
    int ch;
    cf_cli_getopt_reset();
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (ch) {
        case 'c': colname = optarg; break;
        case 'x': hex = true; break;
        case 'j': json = true; break;
        case 'h': return cf_cli_help(c);
        default: return cf_cli_bad_option(c, argv);
        }
    }
    if (optind >= argc)
        return cf_cli_usage(c, "missing FILE");
    const char *path = argv[optind++];
    if (!colname)
        return cf_cli_usage(c, "missing --column");
    if (optind >= argc)
        return cf_cli_usage(c, "missing VALUE");
    int nvals = argc - optind;
    char **vals = argv + optind;

    cf_error err = {0};
    cf_parquet *pq = NULL;
    cf_status st = cf_parquet_open_file(&pq, path, NULL, &err);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, path, st, &err);
    int rc = CF_EXIT_OK;
    int64_t ci = find_column(pq, colname);
    const cf_parquet_file_meta *m = cf_parquet_meta(pq);
    uint32_t ngroups = m->row_group_count;
    cf_parquet_bloom **filters = NULL;
    pq_probe_value *pv = NULL;
    if (ci < 0) {
        rc = cf_cli_usage(c,
                          "no column '%s' (a path a.b.c, or a top-level field with one "
                          "leaf column)",
                          colname);
        goto out;
    }
    const cf_parquet_column *col = cf_parquet_column_at(pq, (uint32_t)ci);
    pv = calloc((size_t)nvals, sizeof(*pv));
    filters = calloc(ngroups ? ngroups : 1, sizeof(*filters));
    if (!pv || !filters) {
        rc = cf_cli_fail(c, "out of memory");
        goto out;
    }
    for (int i = 0; i < nvals; i++) {
        char msg[256];
        rc = parse_value(col, vals[i], hex, &pv[i], msg, sizeof msg);
        if (rc == CF_EXIT_NOTSUP) {
            fprintf(c->err, "cfile: %s: %s\n", path, msg);
            goto out;
        }
        if (rc != CF_EXIT_OK) {
            rc = cf_cli_usage(c, "%s", msg);
            goto out;
        }
    }
    uint32_t with = 0;
    for (uint32_t g = 0; g < ngroups; g++) {
        st = cf_parquet_bloom_open(&filters[g], pq, g, (uint32_t)ci, &err);
        if (st == CF_ENOTFOUND)
            continue;
        if (st != CF_OK) {
            rc = cf_cli_lib_fail(c, path, st, &err);
            goto out;
        }
        with++;
    }
    if (with == 0) {
        fprintf(c->err, "cfile: %s: column ", path);
        put_path(c->err, col);
        fprintf(c->err, " has no bloom filter in any of its %" PRIu32 " row groups\n", ngroups);
        rc = CF_EXIT_FAIL;
        goto out;
    }
    FILE *f = c->out;
    if (json) {
        cf_jw w;
        cf_jw_init(&w, f);
        cf_jw_obj_begin(&w);
        cf_jw_kv_arr_begin(&w, "column");
        for (uint32_t k = 0; k < col->path_len; k++)
            cf_jw_str(&w, col->path[k].data, col->path[k].len);
        cf_jw_arr_end(&w);
        cf_jw_kv_cstr(&w, "type", cf_parquet_type_name(col->type));
        cf_jw_kv_uint(&w, "row_groups", ngroups);
        cf_jw_kv_arr_begin(&w, "filters");
        for (uint32_t g = 0; g < ngroups; g++) {
            if (!filters[g])
                continue;
            cf_jw_obj_begin(&w);
            cf_jw_kv_uint(&w, "row_group", g);
            cf_jw_kv_uint(&w, "offset", cf_parquet_bloom_offset(filters[g]));
            cf_jw_kv_uint(&w, "length", cf_parquet_bloom_length(filters[g]));
            cf_jw_kv_uint(&w, "bitset_bytes", cf_parquet_bloom_bitset_bytes(filters[g]));
            cf_jw_obj_end(&w);
        }
        cf_jw_arr_end(&w);
        cf_jw_kv_arr_begin(&w, "values");
        for (int i = 0; i < nvals; i++) {
            cf_jw_obj_begin(&w);
            cf_jw_kv_cstr(&w, "value", vals[i]);
            cf_jw_kv_arr_begin(&w, "present");
            for (uint32_t g = 0; g < ngroups; g++) {
                if (!filters[g])
                    cf_jw_null(&w);
                else
                    cf_jw_bool(&w,
                               cf_parquet_bloom_probe_bytes(filters[g], pv[i].bytes, pv[i].len));
            }
            cf_jw_arr_end(&w);
            cf_jw_obj_end(&w);
        }
        cf_jw_arr_end(&w);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else {
        fprintf(f, "column ");
        put_path(f, col);
        fprintf(f, " (%s): bloom filters in %" PRIu32 " of %" PRIu32 " row groups\n",
                cf_parquet_type_name(col->type), with, ngroups);
        for (int i = 0; i < nvals; i++) {
            fprintf(f, "%s:", vals[i]);
            for (uint32_t g = 0; g < ngroups; g++) {
                const char *a = !filters[g] ? "no filter"
                                : cf_parquet_bloom_probe_bytes(filters[g], pv[i].bytes, pv[i].len)
                                    ? "maybe present"
                                    : "absent";
                fprintf(f, "%s row group %" PRIu32 " %s", g ? "," : "", g, a);
            }
            fputc('\n', f);
        }
    }
out:
    if (filters)
        for (uint32_t g = 0; g < ngroups; g++)
            cf_parquet_bloom_free(filters[g]);
    free(filters);
    free(pv);
    cf_parquet_free(pq);
    return rc;
}

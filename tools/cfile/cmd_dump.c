/* cfile dump: print a file's values as text, the golden expected.json object,
 * JSON lines, CSV or an aligned table. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/bloom.h>

#include "cli.h"
#include "csv.h"
#include "out.h"
#include "values.h"
#include "vprint.h"

const char cf_cmd_dump_usage[] =
    "usage: cfile dump [--format text|json|jsonl|csv|table] FILE [--from N] [--limit M]\n"
    "\n"
    "Print the values of a CFile, one per line as `ordinal: value`, or with --json\n"
    "one object with the fields of the golden files' expected.json (type, encoding,\n"
    "compression, num_values, nullable, is_array, has_posidx, has_validx,\n"
    "incompatible_features, compatible_features, has_dict_block, header_metadata,\n"
    "footer_metadata, values). Values use the golden value forms: integers as\n"
    "numbers, INT128/DECIMAL128 as decimal strings, FLOAT/DOUBLE as numbers or\n"
    "\"NaN\"/\"Infinity\"/\"-Infinity\" (other NaNs as their bits \"0x7fc00001\"),\n"
    "BINARY as hex, STRING as text or {\"hex\": ...} when not UTF-8, NULL as null,\n"
    "array cells as arrays.\n"
    "\n"
    "Other formats, one row per line: jsonl writes {\"row\": N, \"value\": V} with V\n"
    "in the value form; csv writes a `row,value` header, then the value as plain\n"
    "text (strings as their bytes, BINARY as hex, arrays as JSON), an empty field\n"
    "for NULL and \"\" for an empty string (both forms read back by `cfile write`);\n"
    "table aligns `row` and `value` columns and shows NULL as NULL (a string that\n"
    "reads as NULL or starts with a quote is shown quoted).\n"
    "\n"
    "A BloomFile (see `cfile info`) holds no values: dump lists its bloom blocks\n"
    "instead (text: `# bloom block N at offset O, S bytes`; json: \"kind\":\n"
    "\"BloomFile\", \"bloom_blocks\": [{\"offset\", \"size\", \"logical_size\"}] and no\n"
    "values; the row formats print no rows). `cfile bloom probe` answers for keys.\n"
    "\n"
    "  --format F  text (default), json, jsonl, csv or table\n"
    "  --json      same as --format json\n"
    "  --from N    start at row N (through the positional index when there is one);\n"
    "              N past the last row is \"not found\" (exit 1), as in `cfile seek`\n"
    "  -n, --limit M  print at most M rows (--count M is the same)\n"
    "  --raw-values  text, csv and table print DATE and UNIXTIME_MICROS as their\n"
    "              integers (days, microseconds since 1970-01-01, as json does),\n"
    "              not as 2024-01-02 and 2024-01-02T03:04:05.000006Z (years\n"
    "              0000..9999; others as integers). DECIMAL is the unscaled\n"
    "              integer: a CFile does not record the scale.\n"
    "  --help      this text\n";

typedef enum dump_format { FMT_TEXT, FMT_JSON, FMT_JSONL, FMT_CSV, FMT_TABLE } dump_format;

static int parse_format(const char *s, dump_format *out)
{
    static const char *const names[] = {"text", "json", "jsonl", "csv", "table"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(s, names[i]) == 0) {
            *out = (dump_format)i;
            return 0;
        }
    }
    return -1;
}

/* Integers and floats read best right-aligned in a table. */
static bool numeric(cf_type t)
{
    return t != CF_TYPE_STRING && t != CF_TYPE_VARCHAR && t != CF_TYPE_BINARY && t != CF_TYPE_BOOL;
}

/* Position `it` at row `from`: through the positional index, or by reading forward
 * when the file has none. *past_end is set when there is no such row. */
static cf_status position(cf_iter *it, const cf_file_info *in, uint64_t from, bool *past_end,
                          cf_error *err)
{
    *past_end = false;
    if (from >= in->num_values) {
        *past_end = true;
        return CF_OK;
    }
    if (from == 0)
        return cf_iter_seek_to_first(it, err);
    if (in->has_posidx) {
        cf_status st = cf_iter_seek_to_ordinal(it, from, err);
        if (st == CF_ENOTFOUND)
            *past_end = true;
        return st == CF_ENOTFOUND ? CF_OK : st;
    }
    cf_status st = cf_iter_seek_to_first(it, err);
    uint64_t left = from;
    while (st == CF_OK && left > 0) {
        cf_batch b;
        st = cf_iter_next_batch(it, left < CF_CLI_BATCH ? (size_t)left : CF_CLI_BATCH, &b, err);
        if (st == CF_OK && b.count == 0) {
            *past_end = true;
            break;
        }
        if (st == CF_OK)
            left -= b.count;
    }
    return st;
}

static void header_fields(cf_jw *w, const cf_reader *r)
{
    const cf_file_info *in = cf_reader_info(r);
    const cf_metadata_pair *hm, *fm;
    size_t nh = cf_reader_header_metadata(r, &hm);
    size_t nf = cf_reader_footer_metadata(r, &fm);
    cf_cli_write_column_info(w, in);
    cf_jw_kv_bool(w, "has_posidx", in->has_posidx);
    cf_jw_kv_bool(w, "has_validx", in->has_validx);
    cf_jw_kv_uint(w, "incompatible_features", in->incompatible_features);
    cf_jw_kv_uint(w, "compatible_features", in->compatible_features);
    cf_jw_kv_bool(w, "has_dict_block", in->has_dict_block);
    cf_jw_key(w, "header_metadata");
    cf_cli_write_metadata(w, hm, nh);
    cf_jw_key(w, "footer_metadata");
    cf_cli_write_metadata(w, fm, nf);
    cf_jw_kv_uint(w, "file_size", in->file_size);
    cf_jw_kv_int(w, "format_version", in->format_version);
}

/* The bloom blocks of a BloomFile, in file order, as cf_cli_verify reports them. */
typedef struct bloom_blocks {
    cf_block_report *v; /* msg is not kept */
    size_t n, cap;
    bool oom;
} bloom_blocks;

static void on_bloom_block(void *ctx, const cf_block_report *rep)
{
    bloom_blocks *l = ctx;
    if (strcmp(rep->kind, "bloom block") != 0 || l->oom)
        return;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        cf_block_report *v = realloc(l->v, cap * sizeof(*v));
        if (v == NULL) {
            l->oom = true;
            return;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n] = *rep;
    l->v[l->n++].msg = NULL;
}

/* A BloomFile has no values to print: list its bloom blocks (checking each). */
static int dump_bloom(cf_cli *c, const cf_reader *r, const char *path, dump_format fmt, bool color)
{
    bloom_blocks l = {NULL, 0, 0, false};
    cf_error err = {0};
    cf_status st = cf_cli_verify(r, on_bloom_block, &l, NULL, &err);
    if (l.oom) {
        free(l.v);
        return cf_cli_fail(c, "%s: out of memory", path);
    }
    if (fmt == FMT_JSON) {
        cf_jw w;
        cf_jw_init(&w, c->out);
        cf_jw_obj_begin(&w);
        header_fields(&w, r);
        cf_jw_kv_cstr(&w, "kind", "BloomFile");
        cf_jw_kv_arr_begin(&w, "bloom_blocks");
        for (size_t i = 0; i < l.n; i++) {
            cf_jw_obj_begin(&w);
            cf_jw_kv_uint(&w, "offset", l.v[i].off);
            cf_jw_kv_uint(&w, "size", l.v[i].size);
            cf_jw_kv_uint(&w, "logical_size", l.v[i].logical_size);
            cf_jw_obj_end(&w);
        }
        cf_jw_arr_end(&w);
        cf_jw_kv_arr_begin(&w, "values");
        cf_jw_arr_end(&w);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else if (fmt == FMT_TEXT) {
        cf_out_on(c->out, color, CF_OUT_DIM);
        fprintf(c->out,
                "# %s: BloomFile, %zu bloom block%s, no values (`cfile bloom probe` tests keys)\n",
                path, l.n, l.n == 1 ? "" : "s");
        for (size_t i = 0; i < l.n; i++)
            fprintf(c->out, "# bloom block %zu at offset %" PRIu64 ", %" PRIu32 " bytes\n", i,
                    l.v[i].off, l.v[i].size);
        cf_out_off(c->out, color);
    } else if (fmt == FMT_CSV) {
        fputs("row,value\n", c->out);
    } else if (fmt == FMT_TABLE) {
        static const char *const heads[] = {"row", "value"};
        cf_out_table tab;
        cf_out_table_init(&tab, c->out, color, 2, heads, "rl");
        cf_out_table_flush(&tab);
        cf_out_table_dispose(&tab);
    }
    free(l.v);
    return st == CF_OK ? CF_EXIT_OK : cf_cli_lib_fail(c, path, st, &err);
}

/* The options of `cfile dump` (FILE aside) into *o; 0 or an exit code. */
typedef struct dump_opts {
    dump_format fmt;
    uint64_t from, count;
    bool from_given;
    bool kudu_floats; /* FLOAT values in Kudu's tools' form (cf_cli_format_float_kudu) */
    bool raw;         /* --raw-values: DATE and UNIXTIME_MICROS as integers in text/csv/table */
} dump_opts;

/* A DATE or UNIXTIME_MICROS value of row i in its human form (vprint.h
 * cf_vp_style) into s: false when the row is NULL, an array or another type
 * (printed as before), or --raw-values. A CFile knows no DECIMAL scale: its
 * decimals stay unscaled integers. */
static bool human_text(const dump_opts *o, cf_out_str *s, cf_type t, bool is_array,
                       const cf_batch *b, size_t i)
{
    if (o->raw || is_array || (t != CF_TYPE_DATE && t != CF_TYPE_UNIXTIME_MICROS) ||
        (b->nonnull != NULL && !((b->nonnull[i >> 3] >> (i & 7)) & 1)))
        return false;
    char num[CF_CLI_NUM_CAP];
    cf_vp_style st = {false, -1};
    cf_out_str_clear(s);
    cf_out_str_put(
        s, num, cf_vp_number_styled(num, t, st, (const uint8_t *)b->values + i * cf_type_size(t)));
    return true;
}

static int parse_dump_opts(cf_cli *c, int argc, char **argv, dump_opts *o)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},        {"format", required_argument, NULL, 'F'},
        {"from", required_argument, NULL, 'f'},  {"count", required_argument, NULL, 'n'},
        {"limit", required_argument, NULL, 'n'}, {"raw-values", no_argument, NULL, 'R'},
        {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0},
    };
    dump_format fmt = FMT_TEXT;
    uint64_t from = 0, count = UINT64_MAX;
    bool from_given = false;
    o->fmt = FMT_TEXT;
    o->kudu_floats = false;
    o->raw = false;
    int ch;
    while ((ch = getopt_long(argc, argv, "jF:f:n:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'j': fmt = FMT_JSON; break;
        case 'F':
            if (parse_format(optarg, &fmt) != 0)
                return cf_cli_usage(c, "--format: not one of text, json, jsonl, csv, table: %s",
                                    optarg);
            break;
        case 'f':
            if (cf_cli_parse_u64(optarg, &from) != 0)
                return cf_cli_usage(c, "--from: not a row number: %s", optarg);
            from_given = true;
            break;
        case 'n':
            if (cf_cli_parse_u64(optarg, &count) != 0)
                return cf_cli_usage(c, "--limit: not a count: %s", optarg);
            break;
        case 'R': o->raw = true; break;
        case 'h': return cf_cli_help(c);
        default: return cf_cli_bad_option(c, argv);
        }
    }
    o->fmt = fmt;
    o->from = from;
    o->count = count;
    o->from_given = from_given;
    return -1;
}

/* Dump `io` (when not NULL, named `path` in messages) or the file at `path`. */
static int dump_run(cf_cli *c, const char *path, cf_io *io, const dump_opts *o)
{
    dump_format fmt = o->fmt;
    uint64_t from = o->from, count = o->count;
    bool from_given = o->from_given;

    bool json = fmt == FMT_JSON;
    bool color = fmt == FMT_TEXT || fmt == FMT_TABLE ? cf_out_color(c->out) : false;
    cf_error err = {0};
    cf_reader *r = NULL;
    cf_iter *it = NULL;
    int rc = CF_EXIT_OK;
    cf_out_str text;
    cf_out_str_init(&text);
    cf_out_table tab;
    static const char *const heads[] = {"row", "value"};
    cf_out_table_init(&tab, c->out, color, 2, heads, "rl");
    cf_status st = io != NULL ? cf_cli_open_io(&r, io, &err) : cf_cli_open(&r, path, &err);
    if (st != CF_OK) {
        rc = cf_cli_lib_fail(c, path, st, &err);
        goto out;
    }
    const cf_file_info *in = cf_reader_info(r);
    if (cf_bloom_is_bloom_file(in)) {
        rc = dump_bloom(c, r, path, fmt, color);
        goto out;
    }
    tab.right[1] = !in->is_array && numeric(in->type);
    st = cf_iter_create(&it, r, &err);
    bool past_end = false;
    if (st == CF_OK)
        st = position(it, in, from, &past_end, &err);
    if (st != CF_OK) {
        rc = cf_cli_lib_fail(c, path, st, &err);
        goto out;
    }
    if (past_end && from_given) {
        /* As `cfile seek --ordinal` says it: a start row that is not a row. */
        char m[128];
        snprintf(m, sizeof(m), "ordinal %" PRIu64 " is past the last row (%" PRIu64 " rows)", from,
                 in->num_values);
        rc = cf_cli_not_found(c, path, m);
        goto out;
    }

    cf_jw w;
    cf_jw_init(&w, c->out);
    if (json) {
        cf_jw_obj_begin(&w);
        header_fields(&w, r);
        cf_jw_kv_arr_begin(&w, "values");
    } else if (fmt == FMT_TEXT) {
        cf_out_on(c->out, color, CF_OUT_DIM);
        fprintf(c->out, "# %s: %s%s %s %s, %" PRIu64 " rows%s", path, cf_cli_type_name(in->type),
                in->is_array ? " 1d-array" : "", cf_cli_encoding_name(in->encoding),
                cf_cli_compression_name(in->compression), in->num_values,
                in->nullable ? ", nullable" : "");
        cf_out_off(c->out, color);
        fputc('\n', c->out);
    } else if (fmt == FMT_CSV) {
        fputs("row,value\n", c->out);
    }
    uint64_t left = past_end ? 0 : count;
    while (left > 0) {
        cf_batch b;
        st = cf_iter_next_batch(it, left < CF_CLI_BATCH ? (size_t)left : CF_CLI_BATCH, &b, &err);
        if (st != CF_OK) {
            if (json)
                fputc('\n', c->out); /* leave the partial document on its own line */
            rc = cf_cli_lib_fail(c, path, st, &err);
            goto out;
        }
        if (b.count == 0)
            break;
        for (size_t i = 0; i < b.count; i++) {
            uint64_t ord = b.first_ord + i;
            switch (fmt) {
            case FMT_JSON:
                if (o->kudu_floats)
                    cf_cli_row_write_kudu(&w, in->type, in->is_array, &b, i);
                else
                    cf_cli_row_write(&w, in->type, in->is_array, &b, i);
                break;
            case FMT_TEXT:
                cf_out_on(c->out, color, CF_OUT_CYAN);
                fprintf(c->out, "%" PRIu64 ":", ord);
                cf_out_off(c->out, color);
                fputc(' ', c->out);
                if (human_text(o, &text, in->type, in->is_array, &b, i)) {
                    fputs(text.data != NULL ? text.data : "", c->out);
                } else {
                    cf_jw_init(&w, c->out);
                    cf_cli_row_write(&w, in->type, in->is_array, &b, i);
                }
                fputc('\n', c->out);
                break;
            case FMT_JSONL:
                cf_jw_init(&w, c->out);
                cf_jw_obj_begin(&w);
                cf_jw_kv_uint(&w, "row", ord);
                cf_jw_key(&w, "value");
                cf_cli_row_write(&w, in->type, in->is_array, &b, i);
                cf_jw_obj_end(&w);
                cf_jw_newline(&w);
                break;
            case FMT_CSV:
                fprintf(c->out, "%" PRIu64 ",", ord);
                cf_vp_cell_styled(c->out, CF_VP_CSV, in->type, in->is_array,
                                  (cf_vp_style){o->raw, -1}, &b, i); /* reads back */
                fputc('\n', c->out);
                break;
            case FMT_TABLE: {
                char num[24];
                snprintf(num, sizeof(num), "%" PRIu64, ord);
                bool present = human_text(o, &text, in->type, in->is_array, &b, i) ||
                               cf_out_row_text(&text, in->type, in->is_array, &b, i, true);
                const char *cells[2] = {num, present ? text.data : "NULL"};
                cf_out_table_row(&tab, cells);
                break;
            }
            }
        }
        if (fmt == FMT_TABLE)
            cf_out_table_flush(&tab);
        left -= b.count;
        if (ferror(c->out))
            break; /* stdout failed: cf_cli_main reports it; reading on is wasted */
    }
    if (json) {
        cf_jw_arr_end(&w);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    }
    if (fmt == FMT_TABLE)
        cf_out_table_flush(&tab); /* the header alone for an empty selection */
    if (text.oom || tab.cells.oom)
        rc = cf_cli_fail(c, "%s: out of memory", path);
out:
    cf_out_table_dispose(&tab);
    cf_out_str_dispose(&text);
    cf_iter_free(it);
    cf_reader_free(r);
    return rc;
}

int cf_cmd_dump(cf_cli *c, int argc, char **argv)
{
    dump_opts o;
    int rc = parse_dump_opts(c, argc, argv, &o);
    if (rc >= 0)
        return rc;
    if (argc - optind != 1)
        return cf_cli_usage(c, "expected one FILE");
    return dump_run(c, argv[optind], NULL, &o);
}

int cf_cmd_dump_io(cf_cli *c, int argc, char **argv, cf_io *io, const char *name)
{
    dump_opts o;
    int rc = parse_dump_opts(c, argc, argv, &o);
    if (rc >= 0)
        return rc;
    o.kudu_floats = true;
    if (argc - optind != 0)
        return cf_cli_usage(c, "unexpected argument '%s'", argv[optind]);
    return dump_run(c, name, io, &o);
}

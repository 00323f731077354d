/* cfile dump: print a file's values, as text or as the golden expected.json object. */
#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#include "cli.h"
#include "values.h"

const char cf_cmd_dump_usage[] =
    "usage: cfile dump [--json] FILE [--from N] [--count M]\n"
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
    "  --json      JSON output\n"
    "  --from N    start at row N (through the positional index when there is one)\n"
    "  --count M   print at most M rows\n"
    "  --help      this text\n";

/* Position `it` at row `from`: through the positional index, or by reading forward
 * when the file has none. *past_end is set when there is no such row. */
static cf_status position(cf_iter *it, const cf_file_info *in, uint64_t from, bool *past_end,
                          cf_error *err)
{
    *past_end = false;
    if (from == 0)
        return cf_iter_seek_to_first(it, err);
    if (from >= in->num_values) {
        *past_end = true;
        return CF_OK;
    }
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
    cf_jw_key(w, "type");
    cf_jw_cstr(w, cf_cli_type_name(in->type));
    cf_jw_key(w, "encoding");
    cf_jw_cstr(w, cf_cli_encoding_name(in->encoding));
    cf_jw_key(w, "compression");
    cf_jw_cstr(w, cf_cli_compression_name(in->compression));
    cf_jw_key(w, "num_values");
    cf_jw_uint(w, in->num_values);
    cf_jw_key(w, "nullable");
    cf_jw_bool(w, in->nullable);
    cf_jw_key(w, "is_array");
    cf_jw_bool(w, in->is_array);
    cf_jw_key(w, "has_posidx");
    cf_jw_bool(w, in->has_posidx);
    cf_jw_key(w, "has_validx");
    cf_jw_bool(w, in->has_validx);
    cf_jw_key(w, "incompatible_features");
    cf_jw_uint(w, in->incompatible_features);
    cf_jw_key(w, "compatible_features");
    cf_jw_uint(w, in->compatible_features);
    cf_jw_key(w, "has_dict_block");
    cf_jw_bool(w, in->has_dict_block);
    cf_jw_key(w, "header_metadata");
    cf_cli_write_metadata(w, hm, nh);
    cf_jw_key(w, "footer_metadata");
    cf_cli_write_metadata(w, fm, nf);
    cf_jw_key(w, "file_size");
    cf_jw_uint(w, in->file_size);
    cf_jw_key(w, "format_version");
    cf_jw_int(w, in->format_version);
}

int cf_cmd_dump(cf_cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"from", required_argument, NULL, 'f'},
        {"count", required_argument, NULL, 'n'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    bool json = false;
    uint64_t from = 0, count = UINT64_MAX;
    int ch;
    while ((ch = getopt_long(argc, argv, "jf:n:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'j': json = true; break;
        case 'f':
            if (cf_cli_parse_u64(optarg, &from) != 0)
                return cf_cli_usage(c, "--from: not a row number: %s", optarg);
            break;
        case 'n':
            if (cf_cli_parse_u64(optarg, &count) != 0)
                return cf_cli_usage(c, "--count: not a count: %s", optarg);
            break;
        case 'h': return cf_cli_help(c);
        default: return cf_cli_bad_option(c, argv);
        }
    }
    if (argc - optind != 1)
        return cf_cli_usage(c, "expected one FILE");
    const char *path = argv[optind];

    cf_error err = {0};
    cf_reader *r = NULL;
    cf_iter *it = NULL;
    int rc = CF_EXIT_OK;
    cf_status st = cf_cli_open(&r, path, &err);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, path, st, &err);
    const cf_file_info *in = cf_reader_info(r);
    st = cf_iter_create(&it, r, &err);
    bool past_end = false;
    if (st == CF_OK)
        st = position(it, in, from, &past_end, &err);
    if (st != CF_OK) {
        rc = cf_cli_lib_fail(c, path, st, &err);
        goto out;
    }

    cf_jw w;
    cf_jw_init(&w, c->out);
    if (json) {
        cf_jw_obj_begin(&w);
        header_fields(&w, r);
        cf_jw_key(&w, "values");
        cf_jw_arr_begin(&w);
    } else {
        fprintf(c->out, "# %s: %s%s %s %s, %" PRIu64 " rows%s\n", path, cf_cli_type_name(in->type),
                in->is_array ? " 1d-array" : "", cf_cli_encoding_name(in->encoding),
                cf_cli_compression_name(in->compression), in->num_values,
                in->nullable ? ", nullable" : "");
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
            if (!json) {
                fprintf(c->out, "%" PRIu64 ": ", b.first_ord + i);
                cf_jw_init(&w, c->out);
            }
            cf_cli_row_write(&w, in->type, in->is_array, &b, i);
            if (!json)
                fputc('\n', c->out);
        }
        left -= b.count;
    }
    if (json) {
        cf_jw_arr_end(&w);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    }
out:
    cf_iter_free(it);
    cf_reader_free(r);
    return rc;
}

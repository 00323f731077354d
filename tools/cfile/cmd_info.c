/* cfile info: what a file's header and footer say. */
#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#include <cfile/bloom.h>
#include <cfile/delta.h>

#include "cli.h"

const char cf_cmd_info_usage[] =
    "usage: cfile info [--json] FILE\n"
    "\n"
    "Show the header and footer of a CFile: format version, type, encoding,\n"
    "compression, row count, nullability, array flag, index roots, dictionary block,\n"
    "feature flags, metadata and file size.\n"
    "\n"
    "  --json   one JSON object (stable field names) instead of text\n"
    "  --help   this text\n";

static void feature_names(cf_jw *w, uint32_t f)
{
    cf_jw_arr_begin(w);
    if (f & CF_FEATURE_CHECKSUM)
        cf_jw_cstr(w, "CHECKSUM");
    if (f & CF_FEATURE_ARRAY_DATA_BLOCK)
        cf_jw_cstr(w, "ARRAY_DATA_BLOCK");
    uint32_t rest = f & ~(uint32_t)CF_FEATURES_SUPPORTED;
    for (int b = 0; b < 32; b++) {
        if (rest & (1u << b)) {
            char name[24];
            snprintf(name, sizeof(name), "UNKNOWN_0x%x", 1u << b);
            cf_jw_cstr(w, name);
        }
    }
    cf_jw_arr_end(w);
}

/* What the file is used as: a column, or a BloomFile (format §11.1). */
static const char *file_kind(const cf_file_info *in)
{
    if (cf_bloom_is_bloom_file(in))
        return "BloomFile";
    return "CFile";
}

/* A DeltaFile carries its statistics as footer metadata (format §12.4). */
static const char *kind_of(const cf_reader *r)
{
    cf_slice v;
    if (cf_reader_get_metadata(r, CF_DELTA_STATS_KEY, &v) == CF_OK)
        return "DeltaFile";
    return file_kind(cf_reader_info(r));
}

static void root(cf_jw *w, const char *key, bool has, uint64_t off, uint32_t size)
{
    cf_jw_key(w, key);
    if (!has) {
        cf_jw_null(w);
        return;
    }
    cf_jw_obj_begin(w);
    cf_jw_key(w, "offset");
    cf_jw_uint(w, off);
    cf_jw_key(w, "size");
    cf_jw_uint(w, size);
    cf_jw_obj_end(w);
}

static void info_json(FILE *out, const cf_reader *r)
{
    const cf_file_info *in = cf_reader_info(r);
    const cf_metadata_pair *hm, *fm;
    size_t nh = cf_reader_header_metadata(r, &hm);
    size_t nf = cf_reader_footer_metadata(r, &fm);
    cf_jw w;
    cf_jw_init(&w, out);
    cf_jw_obj_begin(&w);
    cf_jw_key(&w, "format_version");
    cf_jw_int(&w, in->format_version);
    cf_jw_key(&w, "kind");
    cf_jw_cstr(&w, kind_of(r));
    cf_jw_key(&w, "type");
    cf_jw_cstr(&w, cf_cli_type_name(in->type));
    cf_jw_key(&w, "encoding");
    cf_jw_cstr(&w, cf_cli_encoding_name(in->encoding));
    cf_jw_key(&w, "compression");
    cf_jw_cstr(&w, cf_cli_compression_name(in->compression));
    cf_jw_key(&w, "num_values");
    cf_jw_uint(&w, in->num_values);
    cf_jw_key(&w, "nullable");
    cf_jw_bool(&w, in->nullable);
    cf_jw_key(&w, "is_array");
    cf_jw_bool(&w, in->is_array);
    cf_jw_key(&w, "has_posidx");
    cf_jw_bool(&w, in->has_posidx);
    root(&w, "posidx_root", in->has_posidx, in->posidx_root_off, in->posidx_root_size);
    cf_jw_key(&w, "has_validx");
    cf_jw_bool(&w, in->has_validx);
    root(&w, "validx_root", in->has_validx, in->validx_root_off, in->validx_root_size);
    cf_jw_key(&w, "has_dict_block");
    cf_jw_bool(&w, in->has_dict_block);
    root(&w, "dict_block", in->has_dict_block, in->dict_block_off, in->dict_block_size);
    cf_jw_key(&w, "incompatible_features");
    cf_jw_uint(&w, in->incompatible_features);
    cf_jw_key(&w, "incompatible_feature_names");
    feature_names(&w, in->incompatible_features);
    cf_jw_key(&w, "compatible_features");
    cf_jw_uint(&w, in->compatible_features);
    cf_jw_key(&w, "header_metadata");
    cf_cli_write_metadata(&w, hm, nh);
    cf_jw_key(&w, "footer_metadata");
    cf_cli_write_metadata(&w, fm, nf);
    cf_jw_key(&w, "header_len");
    cf_jw_uint(&w, in->header_len);
    cf_jw_key(&w, "footer_len");
    cf_jw_uint(&w, in->footer_len);
    cf_jw_key(&w, "file_size");
    cf_jw_uint(&w, in->file_size);
    cf_jw_obj_end(&w);
    cf_jw_newline(&w);
}

static void print_pairs(FILE *out, const char *title, const cf_metadata_pair *p, size_t n)
{
    fprintf(out, "%-22s %zu\n", title, n);
    for (size_t i = 0; i < n; i++) {
        cf_jw w;
        cf_jw_init(&w, out);
        fputs("  ", out);
        cf_jw_bytes(&w, p[i].key.data, p[i].key.len);
        fputs(" = ", out);
        cf_jw_init(&w, out);
        cf_jw_bytes(&w, p[i].value.data, p[i].value.len);
        fputc('\n', out);
    }
}

static void info_text(FILE *out, const char *path, const cf_reader *r)
{
    const cf_file_info *in = cf_reader_info(r);
    const cf_metadata_pair *hm, *fm;
    size_t nh = cf_reader_header_metadata(r, &hm);
    size_t nf = cf_reader_footer_metadata(r, &fm);
    fprintf(out, "%-22s %s\n", "file", path);
    fprintf(out, "%-22s %s\n", "kind", kind_of(r));
    fprintf(out, "%-22s %d (%s)\n", "format version", in->format_version,
            in->format_version == 1 ? "kuducfil" : "kuducfl2");
    fprintf(out, "%-22s %s%s\n", "type", cf_cli_type_name(in->type), in->is_array ? " 1d-array" : "");
    fprintf(out, "%-22s %s\n", "encoding", cf_cli_encoding_name(in->encoding));
    fprintf(out, "%-22s %s\n", "compression", cf_cli_compression_name(in->compression));
    fprintf(out, "%-22s %" PRIu64 "\n", "rows", in->num_values);
    fprintf(out, "%-22s %s\n", "nullable", in->nullable ? "yes" : "no");
    if (in->has_posidx)
        fprintf(out, "%-22s root at %" PRIu64 ", %" PRIu32 " bytes\n", "positional index",
                in->posidx_root_off, in->posidx_root_size);
    else
        fprintf(out, "%-22s none\n", "positional index");
    if (in->has_validx)
        fprintf(out, "%-22s root at %" PRIu64 ", %" PRIu32 " bytes\n", "value index",
                in->validx_root_off, in->validx_root_size);
    else
        fprintf(out, "%-22s none\n", "value index");
    if (in->has_dict_block)
        fprintf(out, "%-22s at %" PRIu64 ", %" PRIu32 " bytes\n", "dictionary block",
                in->dict_block_off, in->dict_block_size);
    fprintf(out, "%-22s 0x%" PRIx32 "%s%s\n", "incompatible features", in->incompatible_features,
            (in->incompatible_features & CF_FEATURE_CHECKSUM) ? " checksum" : "",
            (in->incompatible_features & CF_FEATURE_ARRAY_DATA_BLOCK) ? " array" : "");
    fprintf(out, "%-22s 0x%" PRIx32 "\n", "compatible features", in->compatible_features);
    print_pairs(out, "header metadata", hm, nh);
    print_pairs(out, "footer metadata", fm, nf);
    fprintf(out, "%-22s %zu bytes header PB, %zu bytes footer PB\n", "header/footer",
            in->header_len, in->footer_len);
    fprintf(out, "%-22s %" PRIu64 " bytes\n", "file size", in->file_size);
}

int cf_cmd_info(cf_cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    bool json = false;
    int ch;
    while ((ch = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
        switch (ch) {
        case 'j': json = true; break;
        case 'h': return cf_cli_help(c);
        default: return cf_cli_bad_option(c, argv);
        }
    }
    if (argc - optind != 1)
        return cf_cli_usage(c, "expected one FILE");
    const char *path = argv[optind];
    cf_error err = {0};
    cf_reader *r = NULL;
    cf_status st = cf_cli_open(&r, path, &err);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, path, st, &err);
    if (json)
        info_json(c->out, r);
    else
        info_text(c->out, path, r);
    cf_reader_free(r);
    return CF_EXIT_OK;
}

/* cfile info: what a file's header and footer say. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/bloom.h>
#include <cfile/delta.h>
#include <cfile/version.h> /* CF_HAVE_* */

#if CF_HAVE_HFILE
#include <cfile/hfile.h>
#endif
#if CF_HAVE_PARQUET
#include <cfile/parquet.h>
#endif

#include "blockstats.h"
#include "cli.h"
#include "info_blocks.h"
#include "out.h"
#if CF_HAVE_PARQUET
#include "pq_meta_out.h"
#endif
#include "svg.h"

const char cf_cmd_info_usage[] =
    "usage: cfile info [--json] [--blocks] [--svg OUT.svg] FILE\n"
    "\n"
    "Show the header and footer of a CFile: format version, type, encoding,\n"
    "compression, row count, nullability, array flag, index roots, dictionary block,\n"
    "feature flags, metadata and file size. This reads only the header and footer.\n"
    "\n"
    "With --blocks, also read, check and decode every block (as `cfile verify` does)\n"
    "and list each one: kind, offset, stored bytes (as on disk: compressed, with its\n"
    "checksum), logical bytes (after decompression: the encoded block), first row\n"
    "and rows of data blocks, their statistics (NULL rows, smallest and largest\n"
    "value in the value forms of `cfile dump --help`, NaNs left out; array columns:\n"
    "NULL cells and the extremes of their elements; DICT blocks: distinct values),\n"
    "gathered by reading every intact block's rows, the mode of DICT data blocks\n"
    "(codewords or plain) and whether it is intact; then totals per kind. The stored\n"
    "bytes of all blocks plus the header and footer add up to the file size. In JSON\n"
    "the list is \"blocks\" ({\"kind\", \"offset\", \"stored_bytes\", \"logical_bytes\",\n"
    "\"first_row\", \"rows\", data blocks: \"nulls\", \"min\", \"max\", DICT: \"distinct\";\n"
    "index blocks: \"index_level\" (root 0), \"index_entries\"; \"dict_mode\", \"status\":\n"
    "\"ok\" or \"damaged\", \"error\"}) and the totals per kind\n"
    "\"block_totals\". A damaged block makes the exit status 1.\n"
    "\n"
    "  --json     one JSON object (stable field names) instead of text\n"
    "  --blocks   per-block statistics (decodes the whole file)\n"
    "  --svg OUT  also draw the file's layout as an SVG picture into OUT (created\n"
    "             atomically): every block at its offset, as wide as its stored\n"
    "             bytes, coloured by kind and encoding, its logical size and NULL\n"
    "             share marked, both B-trees drawn over the blocks they point at;\n"
    "             hover a shape for its offsets, sizes and statistics. Reads every\n"
    "             block as --blocks does. A BloomFile gets its bloom blocks by\n"
    "             offset under its B-tree index. A Parquet file gets its row\n"
    "             groups, column chunks and pages (as `cfile parquet meta --svg`);\n"
    "             HFiles are not drawn (exit 3). OUT '-' writes the picture to\n"
    "             standard output, and the report (text or JSON) to standard error\n"
    "  --help     this text\n";

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
    if (cf_reader_get_metadata(r, CF_DELTA_STATS_KEY, &v))
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
    cf_jw_kv_uint(w, "offset", off);
    cf_jw_kv_uint(w, "size", size);
    cf_jw_obj_end(w);
}

/* --svg: the blocks as svg_cfile.c takes them. */
static cf_status draw(const char *out, FILE *std, const char *path, const cf_reader *r,
                      const cf_blk_list *l, cf_error *err)
{
    cf_svg_cblock *v = calloc(l->n ? l->n : 1, sizeof(*v));
    if (v == NULL) {
        err->code = CF_ENOMEM;
        snprintf(err->msg, sizeof(err->msg), "out of memory drawing the picture");
        return CF_ENOMEM;
    }
    for (size_t i = 0; i < l->n; i++) {
        const cf_blk *b = &l->v[i];
        cf_svg_cblock *d = &v[i];
        d->kind = b->kind;
        d->off = b->off;
        d->first_ord = b->first_ord;
        d->rows = b->rows;
        d->size = b->size;
        d->logical_size = b->status == CF_OK ? b->logical_size : 0;
        d->dict_mode = b->dict_mode;
        d->damaged = b->status != CF_OK;
        d->index_level = b->index_level;
        d->index_entries = b->index_entries;
        d->seq = b->seq;
        d->msg = b->msg;
        if (b->st != NULL) {
            d->has_stats = true;
            d->nulls = b->st->nulls;
            d->has_distinct = b->st->want_distinct;
            d->distinct = b->distinct;
            if (b->st->has_minmax) {
                cf_blocks_value_cell(d->min, sizeof(d->min), b->st, false);
                cf_blocks_value_cell(d->max, sizeof(d->max), b->st, true);
            }
        }
    }
    cf_status st = cf_svg_cfile(out, std, path, r, kind_of(r), v, l->n, err);
    free(v);
    return st;
}

static void info_json(FILE *out, const cf_reader *r, const cf_blk_list *blocks)
{
    const cf_file_info *in = cf_reader_info(r);
    const cf_metadata_pair *hm, *fm;
    size_t nh = cf_reader_header_metadata(r, &hm);
    size_t nf = cf_reader_footer_metadata(r, &fm);
    cf_jw w;
    cf_jw_init(&w, out);
    cf_jw_obj_begin(&w);
    cf_jw_kv_int(&w, "format_version", in->format_version);
    cf_jw_kv_cstr(&w, "kind", kind_of(r));
    cf_cli_write_column_info(&w, in);
    cf_jw_kv_bool(&w, "has_posidx", in->has_posidx);
    root(&w, "posidx_root", in->has_posidx, in->posidx_root_off, in->posidx_root_size);
    cf_jw_kv_bool(&w, "has_validx", in->has_validx);
    root(&w, "validx_root", in->has_validx, in->validx_root_off, in->validx_root_size);
    cf_jw_kv_bool(&w, "has_dict_block", in->has_dict_block);
    root(&w, "dict_block", in->has_dict_block, in->dict_block_off, in->dict_block_size);
    cf_jw_kv_uint(&w, "incompatible_features", in->incompatible_features);
    cf_jw_key(&w, "incompatible_feature_names");
    feature_names(&w, in->incompatible_features);
    cf_jw_kv_uint(&w, "compatible_features", in->compatible_features);
    cf_jw_key(&w, "header_metadata");
    cf_cli_write_metadata(&w, hm, nh);
    cf_jw_key(&w, "footer_metadata");
    cf_cli_write_metadata(&w, fm, nf);
    cf_jw_kv_uint(&w, "header_len", in->header_len);
    cf_jw_kv_uint(&w, "footer_len", in->footer_len);
    cf_jw_kv_uint(&w, "file_size", in->file_size);
    if (blocks != NULL)
        cf_blocks_json(&w, blocks);
    cf_jw_obj_end(&w);
    cf_jw_newline(&w);
}

static void label(FILE *out, bool color, const char *name)
{
    cf_out_on(out, color, CF_OUT_BOLD);
    fprintf(out, "%-22s", name);
    cf_out_off(out, color);
    fputc(' ', out);
}

static void print_pairs(FILE *out, bool color, const char *title, const cf_metadata_pair *p,
                        size_t n)
{
    label(out, color, title);
    fprintf(out, "%zu\n", n);
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

static void info_text(FILE *out, bool color, const char *path, const cf_reader *r)
{
    const cf_file_info *in = cf_reader_info(r);
    const cf_metadata_pair *hm, *fm;
    size_t nh = cf_reader_header_metadata(r, &hm);
    size_t nf = cf_reader_footer_metadata(r, &fm);
    label(out, color, "file");
    fprintf(out, "%s\n", path);
    label(out, color, "kind");
    fprintf(out, "%s\n", kind_of(r));
    label(out, color, "format version");
    fprintf(out, "%d (%s)\n", in->format_version,
            in->format_version == 1 ? "kuducfil" : "kuducfl2");
    label(out, color, "type");
    fprintf(out, "%s%s\n", cf_cli_type_name(in->type), in->is_array ? " 1d-array" : "");
    label(out, color, "encoding");
    fprintf(out, "%s\n", cf_cli_encoding_name(in->encoding));
    label(out, color, "compression");
    fprintf(out, "%s\n", cf_cli_compression_name(in->compression));
    label(out, color, "rows");
    fprintf(out, "%" PRIu64 "\n", in->num_values);
    label(out, color, "nullable");
    fprintf(out, "%s\n", in->nullable ? "yes" : "no");
    label(out, color, "positional index");
    if (in->has_posidx)
        fprintf(out, "root at %" PRIu64 ", %" PRIu32 " bytes\n", in->posidx_root_off,
                in->posidx_root_size);
    else
        fprintf(out, "none\n");
    label(out, color, "value index");
    if (in->has_validx)
        fprintf(out, "root at %" PRIu64 ", %" PRIu32 " bytes\n", in->validx_root_off,
                in->validx_root_size);
    else
        fprintf(out, "none\n");
    if (in->has_dict_block) {
        label(out, color, "dictionary block");
        fprintf(out, "at %" PRIu64 ", %" PRIu32 " bytes\n", in->dict_block_off,
                in->dict_block_size);
    }
    label(out, color, "incompatible features");
    fprintf(out, "0x%" PRIx32 "%s%s\n", in->incompatible_features,
            (in->incompatible_features & CF_FEATURE_CHECKSUM) ? " checksum" : "",
            (in->incompatible_features & CF_FEATURE_ARRAY_DATA_BLOCK) ? " array" : "");
    label(out, color, "compatible features");
    fprintf(out, "0x%" PRIx32 "\n", in->compatible_features);
    print_pairs(out, color, "header metadata", hm, nh);
    print_pairs(out, color, "footer metadata", fm, nf);
    label(out, color, "header/footer");
    fprintf(out, "%zu bytes header PB, %zu bytes footer PB\n", in->header_len, in->footer_len);
    label(out, color, "file size");
    fprintf(out, "%" PRIu64 " bytes\n", in->file_size);
}

#if CF_HAVE_HFILE
/* An HBase HFile: what it is and how its blocks are stored; `cfile hfile meta`
 * has the rest. */
static int hfile_info(cf_cli *c, const char *path, bool json)
{
    cf_error err = {0};
    cf_hfile *h = NULL;
    cf_status st = cf_hfile_open_file(&h, path, NULL, &err);
    if (st != CF_OK) {
        fprintf(c->err, "cfile: %s: an HBase HFile, but it cannot be read:\n", path);
        return cf_cli_lib_fail(c, path, st, &err);
    }
    const cf_hfile_info *in = cf_hfile_get_info(h);
    const cf_hfile_trailer *t = cf_hfile_get_trailer(h);
    const char *codec = cf_hfile_codec_name(in->compression);
    const char *enc = cf_hfile_encoding_name(in->data_block_encoding);
    if (json) {
        cf_jw w;
        cf_jw_init(&w, c->out);
        cf_jw_obj_begin(&w);
        cf_jw_kv_cstr(&w, "format", "hfile");
        cf_jw_kv_obj_begin(&w, "hfile_version");
        cf_jw_kv_uint(&w, "major", in->major);
        cf_jw_kv_uint(&w, "minor", in->minor);
        cf_jw_obj_end(&w);
        cf_jw_kv_cstr(&w, "compression", codec ? codec : "UNKNOWN");
        cf_jw_kv_cstr(&w, "data_block_encoding", enc ? enc : "UNKNOWN");
        cf_jw_kv_uint(&w, "num_cells", t->entry_count);
        cf_jw_kv_uint(&w, "data_blocks", in->num_data_blocks);
        cf_jw_kv_uint(&w, "index_levels", in->index_levels);
        cf_jw_kv_cstr(&w, "comparator", t->comparator);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else {
        fprintf(c->out,
                "%s: an HBase HFile (v%" PRIu32 ".%" PRIu32 "), not a CFile\n"
                "compression:          %s\ndata block encoding:  %s\n"
                "cells:                %" PRIu64 "\ndata blocks:          %" PRIu64 " (%" PRIu32
                " index level%s)\ncomparator:           %s\n"
                "more:                 cfile hfile meta %s\n",
                path, in->major, in->minor, codec ? codec : "UNKNOWN", enc ? enc : "UNKNOWN",
                t->entry_count, in->num_data_blocks, in->index_levels,
                in->index_levels == 1 ? "" : "s", t->comparator, path);
    }
    cf_hfile_free(h);
    return CF_EXIT_OK;
}
#endif

#if CF_HAVE_PARQUET
/* A Parquet file: a short summary; `cfile parquet meta|schema` show the rest. */
static int parquet_info(cf_cli *c, const char *path, bool json, const char *svg)
{
    cf_error err = {0};
    cf_parquet *pq = NULL;
    cf_status st = cf_parquet_open_file(&pq, path, NULL, &err);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, path, st, &err);
    const cf_parquet_file_meta *m = cf_parquet_meta(pq);
    FILE *rep = svg != NULL && strcmp(svg, "-") == 0 ? c->err : c->out; /* as for a CFile */
    if (json) {
        cf_jw w;
        cf_jw_init(&w, rep);
        cf_jw_obj_begin(&w);
        cf_jw_kv_cstr(&w, "format", "parquet");
        cf_pq_summary_json(&w, pq); /* the keys `parquet meta --json` starts with */
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else {
        fprintf(rep, "%s: Apache Parquet (format version %" PRId32 ")\n", path, m->version);
        if (m->has_created_by)
            fprintf(rep, "created by:  %.*s\n", (int)m->created_by.len,
                    (const char *)m->created_by.data);
        fprintf(rep,
                "rows:        %" PRId64 "\nrow groups:  %" PRIu32 "\ncolumns:     %" PRIu32
                "\nsize:        %" PRIu64 " bytes (footer %" PRIu32 ")\n"
                "see `cfile parquet meta %s` and `cfile parquet schema %s`\n",
                cf_parquet_num_rows(pq), m->row_group_count, cf_parquet_column_count(pq),
                cf_parquet_file_size(pq), cf_parquet_footer_len(pq), path, path);
    }
    int rc = svg != NULL ? cf_cli_svg_parquet_cmd(c, path, pq, svg) : CF_EXIT_OK;
    cf_parquet_free(pq);
    return rc;
}
#endif

/* FILE is not a CFile: an HBase HFile's or a Parquet file's summary (of the modules
 * this build has), an exit code; -1 when it is neither. */
static int other_format(cf_cli *c, const char *path, bool json, const char *svg)
{
    cf_io *io = NULL;
    bool hfile = false, parquet = false;
    if (cf_io_open_file(&io, path, NULL) == CF_OK) {
#if CF_HAVE_HFILE
        hfile = cf_hfile_sniff(io);
#endif
#if CF_HAVE_PARQUET
        parquet = !hfile && cf_parquet_sniff(io);
#endif
    }
    cf_io_free(io);
#if CF_HAVE_HFILE
    if (hfile && svg != NULL) {
        fprintf(c->err,
                "cfile info: %s: --svg draws CFiles, tables and Parquet files, not HBase "
                "HFiles\n",
                path);
        return CF_EXIT_NOTSUP;
    }
    if (hfile)
        return hfile_info(c, path, json);
#endif
#if CF_HAVE_PARQUET
    if (parquet)
        return parquet_info(c, path, json, svg);
#endif
    return hfile || parquet ? CF_EXIT_FAIL : -1; /* (not reached: both are handled above) */
}

int cf_cmd_info(cf_cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"blocks", no_argument, NULL, 'b'},
        {"svg", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    bool json = false, blocks = false;
    const char *svg = NULL;
    int ch;
    while ((ch = getopt_long(argc, argv, "jbs:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'j': json = true; break;
        case 'b': blocks = true; break;
        case 's': svg = optarg; break;
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
    if (st != CF_OK) {
        /* Not a CFile: an HBase HFile or a Parquet file gets a summary of its own. */
        int rc = other_format(c, path, json, svg);
        if (rc >= 0)
            return rc;
        return cf_cli_lib_fail(c, path, st, &err);
    }
    cf_blk_list bl = {NULL, 0, 0, false};
    size_t damaged = 0;
    cf_status vst = CF_OK;
    if (blocks || svg != NULL) {
        vst = cf_cli_verify(r, cf_blocks_collect, &bl, &damaged, &err);
        if (bl.oom) {
            cf_blk_list_dispose(&bl);
            cf_reader_free(r);
            return cf_cli_fail(c, "%s: out of memory listing blocks", path);
        }
        /* Verify visits the trees one after the other; file order reads better. */
        if (bl.n > 1)
            qsort(bl.v, bl.n, sizeof(bl.v[0]), cf_blocks_by_offset);
        /* A block verify passed but the iterator cannot read is a failure too. */
        cf_error serr = {0};
        cf_status sst = cf_blocks_gather_stats(r, &bl, &serr);
        if (sst != CF_OK && vst == CF_OK) {
            vst = sst;
            err = serr;
        }
    }
    /* With the picture on stdout (--svg -), the report goes with the diagnostics,
     * as `cfile write`'s summary does when its OUT is '-'. */
    FILE *rep = svg != NULL && strcmp(svg, "-") == 0 ? c->err : c->out;
    bool color = !json && cf_out_color(rep);
    if (json) {
        info_json(rep, r, blocks ? &bl : NULL);
    } else {
        info_text(rep, color, path, r);
        if (blocks) {
            fputc('\n', rep);
            cf_blocks_text(rep, color, &bl);
            cf_blocks_framing_line(rep, r, &bl);
        }
    }
    int rc = CF_EXIT_OK;
    if (svg != NULL) {
        /* Drawn even when damaged: the red blocks are the point then. */
        cf_error serr = {0};
        cf_status sst = draw(svg, c->out, path, r, &bl, &serr);
        if (sst != CF_OK)
            rc = cf_cli_lib_fail(c, svg, sst, &serr);
    }
    if (vst != CF_OK)
        rc = cf_cli_lib_fail(c, path, vst, &err);
    cf_blk_list_dispose(&bl);
    cf_reader_free(r);
    return rc;
}

/* cfile info: what a file's header and footer say. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/bloom.h>
#include <cfile/delta.h>

#include <cfile/hfile.h>
#include <cfile/parquet.h>

#include "blockstats.h"
#include "cli.h"
#include "out.h"
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

/* ---- per-block statistics (--blocks) ---------------------------------------------------- */

typedef struct blk {
    const char *kind; /* a string literal of the library's */
    uint64_t off, first_ord, rows;
    uint32_t size, logical_size;
    int dict_mode;
    cf_status status;
    char *msg; /* owned; NULL when intact */
    /* Added to the library's report: */
    uint32_t index_entries; /* index blocks: entries */
    unsigned index_level;   /* index blocks: depth below the root (0) */
    size_t seq;             /* the order verify reported it (a pre-order walk per tree) */
    cf_cli_bstats *st;      /* data blocks: value statistics; NULL when not read */
    uint64_t distinct;      /* DICT data blocks (st->want_distinct) */
} blk;

typedef struct blk_list {
    blk *v;
    size_t n, cap;
    bool oom;
} blk_list;

static void collect(void *ctx, const cf_block_report *rep)
{
    blk_list *l = ctx;
    if (l->oom)
        return;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        blk *v = realloc(l->v, cap * sizeof(*v));
        if (v == NULL) {
            l->oom = true;
            return;
        }
        l->v = v;
        l->cap = cap;
    }
    blk *b = &l->v[l->n++];
    b->kind = rep->kind;
    b->off = rep->off;
    b->first_ord = rep->first_ord;
    b->rows = rep->rows;
    b->size = rep->size;
    b->logical_size = rep->logical_size;
    b->dict_mode = rep->dict_mode;
    b->status = rep->status;
    b->msg = rep->msg != NULL ? strdup(rep->msg) : NULL;
    b->index_entries = rep->index_entries;
    b->index_level = rep->index_level;
    b->seq = l->n - 1;
    b->st = NULL;
    b->distinct = 0;
}

static void blk_list_dispose(blk_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].msg);
        if (l->v[i].st != NULL)
            cf_cli_bstats_dispose(l->v[i].st);
        free(l->v[i].st);
    }
    free(l->v);
}

static int by_offset(const void *a, const void *b)
{
    const blk *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

static bool is_data(const blk *b)
{
    return strcmp(b->kind, "data block") == 0;
}

/* Read every intact data block's rows again, through an iterator, and gather their
 * statistics (verify has checked the blocks but keeps no values). With a positional
 * index each block is reached by seeking to its first row; without one, by reading
 * on in file order until the first damaged block. Blocks must be in file order. */
static cf_status gather_stats(const cf_reader *r, blk_list *l, cf_error *err)
{
    const cf_file_info *in = cf_reader_info(r);
    if (cf_bloom_is_bloom_file(in))
        return CF_OK; /* bloom pages, not values */
    cf_iter *it = NULL;
    cf_status st = cf_iter_create(&it, r, err);
    if (st == CF_OK)
        st = cf_iter_seek_to_first(it, err);
    uint64_t at = 0; /* the iterator's next row, when reading on */
    for (size_t i = 0; st == CF_OK && i < l->n; i++) {
        blk *b = &l->v[i];
        if (!is_data(b))
            continue;
        if (b->status != CF_OK) {
            if (!in->has_posidx)
                break;
            continue;
        }
        if (in->has_posidx && b->rows > 0) {
            st = cf_iter_seek_to_ordinal(it, b->first_ord, err);
            at = b->first_ord;
        }
        if (st != CF_OK || at != b->first_ord)
            break;
        b->st = malloc(sizeof(*b->st));
        if (b->st == NULL) {
            st = CF_ENOMEM;
            break;
        }
        cf_cli_bstats_init(b->st, in->type, in->encoding == CF_ENC_DICT);
        for (uint64_t left = b->rows; st == CF_OK && left > 0;) {
            cf_batch bt;
            st = cf_iter_next_batch(it, left < CF_CLI_BATCH ? (size_t)left : CF_CLI_BATCH, &bt,
                                    err);
            if (st != CF_OK || bt.count == 0)
                break;
            for (size_t k = 0; k < bt.count; k++)
                cf_cli_bstats_add(b->st, in->is_array, &bt, k);
            left -= bt.count;
            at += bt.count;
        }
        if (b->st->oom)
            st = CF_ENOMEM;
        b->distinct = cf_cli_bstats_distinct(b->st);
    }
    cf_iter_free(it);
    return st;
}

/* A value form as text for the block table, cut to `cap` characters. */
static void value_cell(char *out, size_t cap, const cf_cli_bstats *s, bool max)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    out[0] = '\0';
    if (f == NULL)
        return;
    cf_jw w;
    cf_jw_init(&w, f);
    if (max)
        cf_cli_bstats_write_max(&w, s);
    else
        cf_cli_bstats_write_min(&w, s);
    fclose(f);
    if (buf == NULL)
        return;
    if (len < cap) {
        memcpy(out, buf, len + 1);
    } else if (cap > 4) {
        memcpy(out, buf, cap - 4);
        memcpy(out + cap - 4, "...", 4);
    }
    free(buf);
}

static const char *dict_mode_name(int m)
{
    return m == 1 ? "codewords" : m == 2 ? "plain" : NULL;
}

/* Totals of one kind of block. */
typedef struct kind_total {
    const char *kind;
    uint64_t count, stored, logical, rows, codewords, plain, damaged;
} kind_total;

#define MAX_KINDS 8

static size_t totals(const blk_list *l, kind_total *t)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++) {
        const blk *b = &l->v[i];
        size_t k = 0;
        while (k < n && strcmp(t[k].kind, b->kind) != 0)
            k++;
        if (k == n) {
            if (n == MAX_KINDS)
                continue;
            memset(&t[n], 0, sizeof(t[n]));
            t[n++].kind = b->kind;
        }
        t[k].count++;
        t[k].stored += b->size;
        t[k].logical += b->logical_size;
        t[k].rows += b->rows;
        t[k].codewords += b->dict_mode == 1;
        t[k].plain += b->dict_mode == 2;
        t[k].damaged += b->status != CF_OK;
    }
    return n;
}

static void blocks_json(cf_jw *w, const blk_list *l)
{
    cf_jw_key(w, "blocks");
    cf_jw_arr_begin(w);
    for (size_t i = 0; i < l->n; i++) {
        const blk *b = &l->v[i];
        cf_jw_obj_begin(w);
        cf_jw_key(w, "kind");
        cf_jw_cstr(w, b->kind);
        cf_jw_key(w, "offset");
        cf_jw_uint(w, b->off);
        cf_jw_key(w, "stored_bytes");
        cf_jw_uint(w, b->size);
        cf_jw_key(w, "logical_bytes");
        cf_jw_uint(w, b->logical_size);
        cf_jw_key(w, "first_row");
        cf_jw_uint(w, b->first_ord);
        cf_jw_key(w, "rows");
        cf_jw_uint(w, b->rows);
        if (b->st != NULL) {
            cf_jw_key(w, "nulls");
            cf_jw_uint(w, b->st->nulls);
            cf_jw_key(w, "min");
            cf_cli_bstats_write_min(w, b->st);
            cf_jw_key(w, "max");
            cf_cli_bstats_write_max(w, b->st);
            if (b->st->want_distinct) {
                cf_jw_key(w, "distinct");
                cf_jw_uint(w, b->distinct);
            }
        }
        if (strcmp(b->kind, "positional index") == 0 || strcmp(b->kind, "value index") == 0) {
            cf_jw_key(w, "index_level");
            cf_jw_uint(w, b->index_level);
            cf_jw_key(w, "index_entries");
            cf_jw_uint(w, b->index_entries);
        }
        cf_jw_key(w, "dict_mode");
        if (dict_mode_name(b->dict_mode) != NULL)
            cf_jw_cstr(w, dict_mode_name(b->dict_mode));
        else
            cf_jw_null(w);
        cf_jw_key(w, "status");
        cf_jw_cstr(w, b->status == CF_OK ? "ok" : "damaged");
        if (b->msg != NULL) {
            cf_jw_key(w, "error");
            cf_jw_cstr(w, b->msg);
        }
        cf_jw_obj_end(w);
    }
    cf_jw_arr_end(w);
    kind_total t[MAX_KINDS];
    size_t n = totals(l, t);
    cf_jw_key(w, "block_totals");
    cf_jw_arr_begin(w);
    for (size_t k = 0; k < n; k++) {
        cf_jw_obj_begin(w);
        cf_jw_key(w, "kind");
        cf_jw_cstr(w, t[k].kind);
        cf_jw_key(w, "count");
        cf_jw_uint(w, t[k].count);
        cf_jw_key(w, "stored_bytes");
        cf_jw_uint(w, t[k].stored);
        cf_jw_key(w, "logical_bytes");
        cf_jw_uint(w, t[k].logical);
        cf_jw_key(w, "rows");
        cf_jw_uint(w, t[k].rows);
        cf_jw_key(w, "dict_codewords_blocks");
        cf_jw_uint(w, t[k].codewords);
        cf_jw_key(w, "dict_plain_blocks");
        cf_jw_uint(w, t[k].plain);
        cf_jw_key(w, "damaged");
        cf_jw_uint(w, t[k].damaged);
        cf_jw_obj_end(w);
    }
    cf_jw_arr_end(w);
}

static void u64s(char *buf, size_t cap, uint64_t v)
{
    snprintf(buf, cap, "%" PRIu64, v);
}

static void blocks_text(FILE *out, bool color, const blk_list *l)
{
    static const char *const heads[] = {"#",    "kind",  "offset", "stored", "logical",
                                        "first", "rows", "nulls", "min",    "max",
                                        "distinct", "dict", "status"};
    cf_out_table t;
    cf_out_table_init(&t, out, color, 13, heads, "rlrrrrrrllrll");
    for (size_t i = 0; i < l->n; i++) {
        const blk *b = &l->v[i];
        bool data = strcmp(b->kind, "data block") == 0;
        char c[7][24];
        u64s(c[0], sizeof(c[0]), i);
        u64s(c[1], sizeof(c[1]), b->off);
        u64s(c[2], sizeof(c[2]), b->size);
        u64s(c[3], sizeof(c[3]), b->logical_size);
        u64s(c[4], sizeof(c[4]), b->first_ord);
        u64s(c[5], sizeof(c[5]), b->rows);
        const char *dm = dict_mode_name(b->dict_mode);
        char nulls[24] = "", mn[28] = "", mx[28] = "", dist[24] = "";
        if (b->st != NULL) {
            u64s(nulls, sizeof(nulls), b->st->nulls);
            value_cell(mn, sizeof(mn), b->st, false);
            value_cell(mx, sizeof(mx), b->st, true);
            if (b->st->want_distinct)
                u64s(dist, sizeof(dist), b->distinct);
        }
        /* A damaged block's logical size is unknown; its rows are those lost. */
        const char *cells[13] = {c[0],
                                b->kind,
                                c[1],
                                c[2],
                                b->status == CF_OK ? c[3] : "?",
                                data ? c[4] : "",
                                data ? c[5] : "",
                                nulls,
                                mn,
                                mx,
                                dist,
                                dm ? dm : "",
                                b->status == CF_OK ? "ok"
                                : b->msg           ? b->msg
                                                   : "damaged"};
        cf_out_table_row(&t, cells);
    }
    cf_out_table_flush(&t);
    cf_out_table_dispose(&t);

    kind_total tot[MAX_KINDS];
    size_t n = totals(l, tot);
    static const char *const theads[] = {
        "kind", "count", "stored", "logical", "rows", "dict codewords/plain", "damaged"};
    fputc('\n', out);
    cf_out_table_init(&t, out, color, 7, theads, "lrrrrrr");
    uint64_t all_count = 0, all_stored = 0, all_logical = 0;
    for (size_t k = 0; k < n; k++) {
        char c[6][48];
        u64s(c[0], sizeof(c[0]), tot[k].count);
        u64s(c[1], sizeof(c[1]), tot[k].stored);
        u64s(c[2], sizeof(c[2]), tot[k].logical);
        u64s(c[3], sizeof(c[3]), tot[k].rows);
        snprintf(c[4], sizeof(c[4]), "%" PRIu64 "/%" PRIu64, tot[k].codewords, tot[k].plain);
        u64s(c[5], sizeof(c[5]), tot[k].damaged);
        bool data = strcmp(tot[k].kind, "data block") == 0;
        const char *cells[7] = {tot[k].kind,
                                c[0],
                                c[1],
                                c[2],
                                data ? c[3] : "",
                                tot[k].codewords + tot[k].plain ? c[4] : "",
                                c[5]};
        cf_out_table_row(&t, cells);
        all_count += tot[k].count;
        all_stored += tot[k].stored;
        all_logical += tot[k].logical;
    }
    char c[3][24];
    u64s(c[0], sizeof(c[0]), all_count);
    u64s(c[1], sizeof(c[1]), all_stored);
    u64s(c[2], sizeof(c[2]), all_logical);
    const char *cells[7] = {"all blocks", c[0], c[1], c[2], "", "", ""};
    cf_out_table_row(&t, cells);
    cf_out_table_flush(&t);
    cf_out_table_dispose(&t);
}

/* The bytes no block accounts for: the header and the footer. */
static void framing_line(FILE *out, const cf_reader *r, const blk_list *l)
{
    uint64_t stored = 0;
    for (size_t i = 0; i < l->n; i++)
        stored += l->v[i].size;
    uint64_t size = cf_reader_info(r)->file_size;
    fprintf(out,
            "\n%" PRIu64 " bytes in blocks + %" PRIu64 " bytes of header and footer = %" PRIu64
            " bytes\n",
            stored, size > stored ? size - stored : 0, size);
}

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

/* --svg: the blocks as svg_cfile.c takes them. */
static cf_status draw(const char *out, FILE *std, const char *path, const cf_reader *r,
                      const blk_list *l, cf_error *err)
{
    cf_svg_cblock *v = calloc(l->n ? l->n : 1, sizeof(*v));
    if (v == NULL) {
        err->code = CF_ENOMEM;
        snprintf(err->msg, sizeof(err->msg), "out of memory drawing the picture");
        return CF_ENOMEM;
    }
    for (size_t i = 0; i < l->n; i++) {
        const blk *b = &l->v[i];
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
                value_cell(d->min, sizeof(d->min), b->st, false);
                value_cell(d->max, sizeof(d->max), b->st, true);
            }
        }
    }
    cf_status st = cf_svg_cfile(out, std, path, r, kind_of(r), v, l->n, err);
    free(v);
    return st;
}

static void info_json(FILE *out, const cf_reader *r, const blk_list *blocks)
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
    if (blocks != NULL)
        blocks_json(&w, blocks);
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

/* A Parquet file: a short summary; `cfile parquet meta|schema` show the rest. */
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
        cf_jw_key(&w, "format");
        cf_jw_cstr(&w, "hfile");
        cf_jw_key(&w, "hfile_version");
        cf_jw_obj_begin(&w);
        cf_jw_key(&w, "major");
        cf_jw_uint(&w, in->major);
        cf_jw_key(&w, "minor");
        cf_jw_uint(&w, in->minor);
        cf_jw_obj_end(&w);
        cf_jw_key(&w, "compression");
        cf_jw_cstr(&w, codec ? codec : "UNKNOWN");
        cf_jw_key(&w, "data_block_encoding");
        cf_jw_cstr(&w, enc ? enc : "UNKNOWN");
        cf_jw_key(&w, "num_cells");
        cf_jw_uint(&w, t->entry_count);
        cf_jw_key(&w, "data_blocks");
        cf_jw_uint(&w, in->num_data_blocks);
        cf_jw_key(&w, "index_levels");
        cf_jw_uint(&w, in->index_levels);
        cf_jw_key(&w, "comparator");
        cf_jw_cstr(&w, t->comparator);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else {
        fprintf(c->out, "%s: an HBase HFile (v%" PRIu32 ".%" PRIu32 "), not a CFile\n"
                        "compression:          %s\ndata block encoding:  %s\n"
                        "cells:                %" PRIu64 "\ndata blocks:          %" PRIu64
                        " (%" PRIu32 " index level%s)\ncomparator:           %s\n"
                        "more:                 cfile hfile meta %s\n",
                path, in->major, in->minor, codec ? codec : "UNKNOWN", enc ? enc : "UNKNOWN",
                t->entry_count, in->num_data_blocks, in->index_levels,
                in->index_levels == 1 ? "" : "s", t->comparator, path);
    }
    cf_hfile_free(h);
    return CF_EXIT_OK;
}

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
        cf_jw_key(&w, "format");
        cf_jw_cstr(&w, "parquet");
        cf_jw_key(&w, "format_version");
        cf_jw_int(&w, m->version);
        cf_jw_key(&w, "created_by");
        if (m->has_created_by)
            cf_jw_bytes(&w, m->created_by.data, m->created_by.len);
        else
            cf_jw_null(&w);
        cf_jw_key(&w, "file_size");
        cf_jw_uint(&w, cf_parquet_file_size(pq));
        cf_jw_key(&w, "footer_size");
        cf_jw_uint(&w, cf_parquet_footer_len(pq));
        cf_jw_key(&w, "num_rows");
        cf_jw_int(&w, cf_parquet_num_rows(pq));
        cf_jw_key(&w, "num_row_groups");
        cf_jw_uint(&w, m->row_group_count);
        cf_jw_key(&w, "num_columns");
        cf_jw_uint(&w, cf_parquet_column_count(pq));
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
        /* Not a CFile: an HBase HFile has its own command. */
        cf_io *io = NULL;
        bool opened = cf_io_open_file(&io, path, NULL) == CF_OK;
        bool hfile = opened && cf_hfile_sniff(io);
        bool parquet = opened && !hfile && cf_parquet_sniff(io);
        cf_io_free(io);
        if (hfile && svg != NULL) {
            fprintf(c->err,
                    "cfile info: %s: --svg draws CFiles, tables and Parquet files, not HBase "
                    "HFiles\n",
                    path);
            return CF_EXIT_NOTSUP;
        }
        if (parquet)
            return parquet_info(c, path, json, svg);
        if (hfile)
            return hfile_info(c, path, json);
        return cf_cli_lib_fail(c, path, st, &err);
    }
    blk_list bl = {NULL, 0, 0, false};
    size_t damaged = 0;
    cf_status vst = CF_OK;
    if (blocks || svg != NULL) {
        vst = cf_cli_verify(r, path, collect, &bl, &damaged, &err);
        if (bl.oom) {
            blk_list_dispose(&bl);
            cf_reader_free(r);
            return cf_cli_fail(c, "%s: out of memory listing blocks", path);
        }
        /* Verify visits the trees one after the other; file order reads better. */
        if (bl.n > 1)
            qsort(bl.v, bl.n, sizeof(bl.v[0]), by_offset);
        /* A block verify passed but the iterator cannot read is a failure too. */
        cf_error serr = {0};
        cf_status sst = gather_stats(r, &bl, &serr);
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
            blocks_text(rep, color, &bl);
            framing_line(rep, r, &bl);
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
    blk_list_dispose(&bl);
    cf_reader_free(r);
    return rc;
}

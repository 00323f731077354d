/* `cfile info --blocks`: the block list, its statistics and its table (info_blocks.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "blockstats.h"
#include "cli.h"
#include "info_blocks.h"
#include "out.h"

void cf_blocks_collect(void *ctx, const cf_block_report *rep)
{
    cf_blk_list *l = ctx;
    if (l->oom)
        return;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        cf_blk *v = realloc(l->v, cap * sizeof(*v));
        if (v == NULL) {
            l->oom = true;
            return;
        }
        l->v = v;
        l->cap = cap;
    }
    cf_blk *b = &l->v[l->n++];
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

void cf_blk_list_dispose(cf_blk_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].msg);
        if (l->v[i].st != NULL)
            cf_cli_bstats_dispose(l->v[i].st);
        free(l->v[i].st);
    }
    free(l->v);
}

int cf_blocks_by_offset(const void *a, const void *b)
{
    const cf_blk *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

static bool is_data(const cf_blk *b)
{
    return strcmp(b->kind, "data block") == 0;
}

/* Read every intact data block's rows again, through an iterator, and gather their
 * statistics (verify has checked the blocks but keeps no values). With a positional
 * index each block is reached by seeking to its first row; without one, by reading
 * on in file order until the first damaged block. Blocks must be in file order. */
cf_status cf_blocks_gather_stats(const cf_reader *r, cf_blk_list *l, cf_error *err)
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
        cf_blk *b = &l->v[i];
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
            st =
                cf_iter_next_batch(it, left < CF_CLI_BATCH ? (size_t)left : CF_CLI_BATCH, &bt, err);
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
void cf_blocks_value_cell(char *out, size_t cap, const cf_cli_bstats *s, bool max)
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

static size_t totals(const cf_blk_list *l, kind_total *t)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++) {
        const cf_blk *b = &l->v[i];
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

void cf_blocks_json(cf_jw *w, const cf_blk_list *l)
{
    cf_jw_kv_arr_begin(w, "blocks");
    for (size_t i = 0; i < l->n; i++) {
        const cf_blk *b = &l->v[i];
        cf_jw_obj_begin(w);
        cf_jw_kv_cstr(w, "kind", b->kind);
        cf_jw_kv_uint(w, "offset", b->off);
        cf_jw_kv_uint(w, "stored_bytes", b->size);
        cf_jw_kv_uint(w, "logical_bytes", b->logical_size);
        cf_jw_kv_uint(w, "first_row", b->first_ord);
        cf_jw_kv_uint(w, "rows", b->rows);
        if (b->st != NULL) {
            cf_jw_kv_uint(w, "nulls", b->st->nulls);
            cf_jw_key(w, "min");
            cf_cli_bstats_write_min(w, b->st);
            cf_jw_key(w, "max");
            cf_cli_bstats_write_max(w, b->st);
            if (b->st->want_distinct)
                cf_jw_kv_uint(w, "distinct", b->distinct);
        }
        if (strcmp(b->kind, "positional index") == 0 || strcmp(b->kind, "value index") == 0) {
            cf_jw_kv_uint(w, "index_level", b->index_level);
            cf_jw_kv_uint(w, "index_entries", b->index_entries);
        }
        cf_jw_kv_opt_cstr(w, "dict_mode", dict_mode_name(b->dict_mode));
        cf_jw_kv_cstr(w, "status", b->status == CF_OK ? "ok" : "damaged");
        if (b->msg != NULL)
            cf_jw_kv_cstr(w, "error", b->msg);
        cf_jw_obj_end(w);
    }
    cf_jw_arr_end(w);
    kind_total t[MAX_KINDS];
    size_t n = totals(l, t);
    cf_jw_kv_arr_begin(w, "block_totals");
    for (size_t k = 0; k < n; k++) {
        cf_jw_obj_begin(w);
        cf_jw_kv_cstr(w, "kind", t[k].kind);
        cf_jw_kv_uint(w, "count", t[k].count);
        cf_jw_kv_uint(w, "stored_bytes", t[k].stored);
        cf_jw_kv_uint(w, "logical_bytes", t[k].logical);
        cf_jw_kv_uint(w, "rows", t[k].rows);
        cf_jw_kv_uint(w, "dict_codewords_blocks", t[k].codewords);
        cf_jw_kv_uint(w, "dict_plain_blocks", t[k].plain);
        cf_jw_kv_uint(w, "damaged", t[k].damaged);
        cf_jw_obj_end(w);
    }
    cf_jw_arr_end(w);
}

static void u64s(char *buf, size_t cap, uint64_t v)
{
    snprintf(buf, cap, "%" PRIu64, v);
}

void cf_blocks_text(FILE *out, bool color, const cf_blk_list *l)
{
    static const char *const heads[] = {"#",        "kind", "offset", "stored", "logical",
                                        "first",    "rows", "nulls",  "min",    "max",
                                        "distinct", "dict", "status"};
    cf_out_table t;
    cf_out_table_init(&t, out, color, 13, heads, "rlrrrrrrllrll");
    for (size_t i = 0; i < l->n; i++) {
        const cf_blk *b = &l->v[i];
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
            cf_blocks_value_cell(mn, sizeof(mn), b->st, false);
            cf_blocks_value_cell(mx, sizeof(mx), b->st, true);
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
void cf_blocks_framing_line(FILE *out, const cf_reader *r, const cf_blk_list *l)
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

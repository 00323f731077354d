/* cfile parquet verify FILE: everything a Parquet file can be checked for
 * without an expected answer.
 *
 *   footer      FileMetaData and the schema decode (at open)
 *   pages       every page header of every chunk decodes and fits its chunk;
 *               every stored CRC-32 matches (counted: verified / absent)
 *   values      every page decompressed and decoded: levels within their
 *               maxima, as many level entries as num_values, dictionary
 *               indices inside the dictionary, v2 num_nulls and num_rows
 *   rows        every column of a row group holds num_rows rows
 *   statistics  chunk min/max/null_count against the decoded values, in the
 *               column's sort order (see stat_order); skipped, and said so,
 *               where the order is undefined
 *   page index  offset index against the pages (offset, size with header,
 *               first_row_index); column index against each page's values
 *               (null_pages, null_counts, min/max, boundary_order)
 *   bloom       each filter opens (well-formed) and holds every decoded value
 *
 * Every problem is named by row group, column, page and offset; a damaged
 * chunk stops that chunk only, so one run lists them all. Exit 0 clean, 1
 * with problems, 3 when only unsupported features (a codec, an encryption)
 * stopped a check. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/parquet.h>

#include "pq_order.h"

#include "cli.h"

const char cf_cmd_parquet_verify_usage[] =
    "usage: cfile parquet verify [--json] FILE\n"
    "\n"
    "Check everything a Parquet file can be checked for without an expected answer:\n"
    "the footer; every page header and stored CRC-32; every page decompressed and\n"
    "decoded (level and value counts, dictionary indices); each row group's columns\n"
    "agreeing on its row count; chunk statistics (min/max/null_count) against the\n"
    "decoded values in the column's sort order; the column and offset index against\n"
    "the pages; bloom filters well-formed and holding every decoded value.\n"
    "\n"
    "Sort orders (parquet.thrift ColumnOrder TYPE_ORDER): signed integers, unsigned\n"
    "for INT(bits, false), numeric for FLOAT/DOUBLE (NaN ignored, -0 = +0), unsigned\n"
    "bytes for BYTE_ARRAY/FIXED_LEN_BYTE_ARRAY, signed for DECIMAL on them.\n"
    "min_value/max_value are checked in that order; the deprecated min/max only for\n"
    "columns whose signed order is theirs (not for byte arrays or unsigned integers,\n"
    "where legacy writers used a signed byte order: ignored). INT96, INTERVAL and\n"
    "FLOAT16 have no order here: their statistics are skipped and reported as such.\n"
    "\n"
    "Exit 0 when clean, 1 naming every problem (row group, column, page, offset)\n"
    "on stderr, 3 when a feature this build does not read stopped a check.\n"
    "\n"
    "  --json   one document: {\"file\", \"ok\", \"row_groups\", \"columns\", \"pages\",\n"
    "           \"values\", \"crc\": {\"verified\", \"absent\"}, \"statistics\": {\"checked\",\n"
    "           \"skipped\"}, \"page_index\": {\"checked\"}, \"bloom_filters\": {\"checked\",\n"
    "           \"values\"}, \"notes\": [...], \"unsupported\": [...], \"problems\": [...]}\n"
    "  --help   this text\n";

#define MAX_PROBLEMS 1000

typedef struct vstate {
    const cf_parquet *pq;
    char **problems, **notes, **unsupported;
    size_t nproblems, nnotes, nunsupported;
    uint64_t pages, values, crc_ok, crc_absent, stats_checked, stats_skipped, pi_checked,
        bloom_checked, bloom_values;
} vstate;

__attribute__((format(printf, 3, 0))) static void add_msg(char ***list, size_t *count,
                                                          const char *fmt, va_list ap)
{
    if (*count >= MAX_PROBLEMS)
        return;
    char tmp[1024];
    int len = vsnprintf(tmp, sizeof tmp, fmt, ap);
    if (len < 0)
        return;
    size_t n = (size_t)len < sizeof tmp ? (size_t)len : sizeof tmp - 1;
    char *s = malloc(n + 1);
    if (!s)
        return;
    memcpy(s, tmp, n);
    s[n] = 0;
    char **l = realloc(*list, (*count + 1) * sizeof(char *));
    if (!l) {
        free(s);
        return;
    }
    l[(*count)++] = s;
    *list = l;
}

__attribute__((format(printf, 2, 3))) static void problem(vstate *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_msg(&v->problems, &v->nproblems, fmt, ap);
    va_end(ap);
}

__attribute__((format(printf, 2, 3))) static void note(vstate *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_msg(&v->notes, &v->nnotes, fmt, ap);
    va_end(ap);
}

__attribute__((format(printf, 2, 3))) static void unsupported(vstate *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_msg(&v->unsupported, &v->nunsupported, fmt, ap);
    va_end(ap);
}

/* A library error: damage is a problem, ENOTSUP a stop reported apart. */
static void lib_error(vstate *v, cf_status st, const cf_error *err)
{
    if (st == CF_ENOTSUP)
        unsupported(v, "%s", err->msg);
    else
        problem(v, "%s", err->msg);
}

/* The statistics' bounds against the values' range. `what` names the place. */
static void check_bounds(vstate *v, cf_pq_order o, const cf_pq_range *r, bool has_min,
                         cf_slice smin, bool has_max, cf_slice smax, bool exact, const char *what,
                         const char *fields)
{
    size_t w = cf_pq_order_width(o);
    if ((has_min && w && smin.len != w) || (has_max && w && smax.len != w)) {
        problem(v, "%s: %s of %zu/%zu bytes, the type takes %zu", what, fields,
                has_min ? smin.len : 0, has_max ? smax.len : 0, w);
        return;
    }
    if (!r->any)
        return; /* only nulls (or NaNs): nothing to hold the bounds against */
    cf_pq_val mn = {r->min, r->min_n}, mx = {r->max, r->max_n};
    if (has_min) {
        cf_pq_val s = {smin.data, smin.len};
        if (!cf_pq_is_nan(o, s) && cf_pq_cmp(o, s, mn) > 0)
            problem(v, "%s: %s min is above the smallest value", what, fields);
        else if (exact && !cf_pq_is_nan(o, s) && cf_pq_cmp(o, s, mn) != 0)
            problem(v, "%s: %s min is not the smallest value", what, fields);
    }
    if (has_max) {
        cf_pq_val s = {smax.data, smax.len};
        if (!cf_pq_is_nan(o, s) && cf_pq_cmp(o, s, mx) < 0)
            problem(v, "%s: %s max is below the largest value", what, fields);
        else if (exact && !cf_pq_is_nan(o, s) && cf_pq_cmp(o, s, mx) != 0)
            problem(v, "%s: %s max is not the largest value", what, fields);
    }
}

/* ---- one column chunk -------------------------------------------------------------------- */

typedef struct page_info {
    uint64_t offset;
    uint32_t header_len;
    int32_t compressed_size, num_values, num_rows;
    int64_t rows, nulls, present;   /* from the decoded levels */
    int64_t first_row, first_level; /* rows and level entries before the page */
    cf_pq_range r;
} page_info;

static void path_str(const cf_parquet_column *col, char *buf, size_t cap)
{
    size_t at = 0;
    buf[0] = 0;
    for (uint32_t k = 0; k < col->path_len && at + 1 < cap; k++) {
        int n = snprintf(buf + at, cap - at, "%s%.*s", k ? "." : "", (int)col->path[k].len,
                         (const char *)col->path[k].data);
        if (n < 0)
            break;
        at += (size_t)n;
        if (at >= cap)
            at = cap - 1;
    }
}

/* The data pages of the chunk as their headers say (CRCs checked by the
 * iterator). false when the chunk's pages are damaged (reported). */
static bool walk_pages(vstate *v, uint32_t g, uint32_t c, page_info **out, size_t *count)
{
    cf_error err = {0};
    cf_parquet_pages *it = NULL;
    cf_status st = cf_parquet_pages_open(&it, v->pq, g, c, NULL, &err);
    size_t n = 0, cap = 0;
    page_info *pi = NULL;
    while (st == CF_OK) {
        cf_parquet_page p;
        bool has;
        st = cf_parquet_pages_next(it, &p, &has, &err);
        if (st != CF_OK || !has)
            break;
        v->pages++;
        if (p.has_crc)
            v->crc_ok++;
        else
            v->crc_absent++;
        if (p.type != CF_PARQUET_DATA_PAGE && p.type != CF_PARQUET_DATA_PAGE_V2)
            continue;
        if (n == cap) {
            size_t ncap = cap ? 2 * cap : 16;
            page_info *q = realloc(pi, ncap * sizeof(*q));
            if (!q) {
                problem(v, "out of memory");
                break;
            }
            pi = q;
            cap = ncap;
        }
        memset(&pi[n], 0, sizeof(pi[n]));
        pi[n].offset = p.offset;
        pi[n].header_len = p.header_len;
        pi[n].compressed_size = p.compressed_size;
        pi[n].num_values = p.num_values;
        pi[n].num_rows = p.num_rows;
        n++;
    }
    cf_parquet_pages_free(it);
    *out = pi;
    *count = n;
    if (st != CF_OK) {
        lib_error(v, st, &err);
        return false;
    }
    return true;
}

static void free_pages(page_info *pi, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cf_pq_range_free(&pi[i].r);
    free(pi);
}

static cf_pq_val value_at(const cf_parquet_column *col, const uint8_t *vals, size_t vs, size_t i)
{
    if (col->type == CF_PARQUET_BYTE_ARRAY) {
        cf_slice s;
        memcpy(&s, vals + i * vs, sizeof s);
        return (cf_pq_val){s.data, s.len};
    }
    return (cf_pq_val){vals + i * vs, vs};
}

#define BATCH 4096

static void verify_chunk(vstate *v, uint32_t g, uint32_t c)
{
    const cf_parquet_file_meta *m = cf_parquet_meta(v->pq);
    const cf_parquet_row_group *rg = &m->row_groups[g];
    const cf_parquet_column_chunk *cc = &rg->columns[c];
    const cf_parquet_column *col = cf_parquet_column_at(v->pq, c);
    char name[512], where[700];
    path_str(col, name, sizeof name);
    snprintf(where, sizeof where, "row group %" PRIu32 " column %" PRIu32 " (%s)", g, c, name);

    page_info *pi = NULL;
    size_t np = 0;
    if (!walk_pages(v, g, c, &pi, &np)) {
        free_pages(pi, np);
        return;
    }
    const char *why = NULL;
    cf_pq_order o = cf_pq_stat_order(col, &why);
    cf_error err = {0};
    cf_parquet_bloom *bloom = NULL;
    cf_status st = cf_parquet_bloom_open(&bloom, v->pq, g, c, &err);
    if (st != CF_OK && st != CF_ENOTFOUND)
        lib_error(v, st, &err);
    if (bloom)
        v->bloom_checked++;

    cf_parquet_column_reader *r = NULL;
    st = cf_parquet_column_open(&r, v->pq, g, c, &err);
    if (st != CF_OK) {
        lib_error(v, st, &err);
        cf_parquet_bloom_free(bloom);
        free_pages(pi, np);
        return;
    }
    size_t vs = cf_parquet_column_value_size(r);
    uint16_t *def = malloc(BATCH * sizeof(uint16_t)), *rep = malloc(BATCH * sizeof(uint16_t));
    uint8_t *vals = malloc(BATCH * (vs ? vs : 1));
    cf_pq_range chunk = {0};
    int64_t rows = 0, nulls = 0, levels = 0;
    bool ok = def && rep && vals;
    bool bloom_miss = false;
    while (ok) {
        size_t nl, nv;
        st = cf_parquet_column_read(r, BATCH, def, rep, vals, &nl, &nv, &err);
        if (st != CF_OK) {
            lib_error(v, st, &err);
            ok = false;
            break;
        }
        if (nl == 0)
            break;
        uint64_t pno = cf_parquet_column_pages_read(r);
        page_info *p = pno >= 1 && pno <= np ? &pi[pno - 1] : NULL;
        if (!p) {
            problem(v, "%s: data page %" PRIu64 " not seen walking the headers", where, pno);
            ok = false;
            break;
        }
        if (p->rows == 0 && p->nulls == 0 && p->present == 0) {
            p->first_row = rows;
            p->first_level = levels;
        }
        for (size_t i = 0; i < nl; i++) {
            if (rep[i] == 0) {
                rows++;
                p->rows++;
            }
            if (def[i] < col->max_def) {
                nulls++;
                p->nulls++;
            }
        }
        levels += (int64_t)nl;
        p->present += (int64_t)nv;
        v->values += nv;
        for (size_t i = 0; i < nv; i++) {
            cf_pq_val x = value_at(col, vals, vs, i);
            cf_pq_range_add(&chunk, o, x);
            cf_pq_range_add(&p->r, o, x);
            if (bloom && !bloom_miss && col->type != CF_PARQUET_BOOLEAN) {
                v->bloom_values++;
                if (!cf_parquet_bloom_probe_bytes(bloom, x.p, x.n)) {
                    problem(v,
                            "%s: bloom filter at %" PRIu64 " lacks a value of page at offset "
                            "%" PRIu64,
                            where, cf_parquet_bloom_offset(bloom), p->offset);
                    bloom_miss = true;
                }
            }
        }
    }
    free(def);
    free(rep);
    free(vals);
    cf_parquet_column_free(r);
    cf_parquet_bloom_free(bloom);
    if (!ok) {
        cf_pq_range_free(&chunk);
        free_pages(pi, np);
        return;
    }

    /* rows, and per-page counts the headers state */
    if (rows != rg->num_rows)
        problem(v, "%s: %" PRId64 " rows, the row group says %" PRId64, where, rows, rg->num_rows);
    for (size_t k = 0; k < np; k++) {
        /* Old parquet-cpp wrote a v2 page's level count as its num_rows in
         * repeated columns; readers go by the levels. A known writer bug,
         * recognised by that exact signature and noted, not failed. */
        if (pi[k].num_rows >= 0 && pi[k].num_rows != pi[k].rows && col->max_rep > 0 &&
            pi[k].num_rows == pi[k].num_values)
            note(v,
                 "%s: page %zu at offset %" PRIu64 ": num_rows %" PRId32 " is the level count "
                 "(old parquet-cpp), the levels hold %" PRId64 " rows",
                 where, k, pi[k].offset, pi[k].num_rows, pi[k].rows);
        else if (pi[k].num_rows >= 0 && pi[k].num_rows != pi[k].rows)
            problem(v,
                    "%s: page %zu at offset %" PRIu64 ": num_rows %" PRId32 ", its levels "
                    "hold %" PRId64,
                    where, k, pi[k].offset, pi[k].num_rows, pi[k].rows);
    }

    /* chunk statistics */
    const cf_parquet_column_meta *cm = &cc->meta;
    if (cm->has_statistics) {
        const cf_parquet_stats *s = &cm->statistics;
        bool any_minmax = s->has_min_value || s->has_max_value || s->has_min || s->has_max;
        if (s->has_null_count) {
            bool flat = col->max_rep == 0;
            if (flat ? s->null_count != nulls : s->null_count > nulls)
                problem(v,
                        "%s: statistics null_count %" PRId64 ", the levels hold %" PRId64 " nulls",
                        where, s->null_count, nulls);
        }
        if (any_minmax && o == CF_PQ_ORD_NONE) {
            v->stats_skipped++;
            note(v, "%s: statistics not checked: %s", where, why);
        } else if (any_minmax) {
            v->stats_checked++;
            bool bytes = o == CF_PQ_ORD_BYTES || o == CF_PQ_ORD_DECIMAL;
            if (s->has_min_value || s->has_max_value) {
                /* Exact unless the writer says otherwise; byte arrays may be truncated. */
                bool exact = !bytes && o != CF_PQ_ORD_FLOAT && o != CF_PQ_ORD_DOUBLE &&
                             !(s->has_is_min_value_exact && !s->is_min_value_exact);
                check_bounds(v, o, &chunk, s->has_min_value, s->min_value, s->has_max_value,
                             s->max_value, exact, where, "statistics min_value/max_value");
            } else if (!bytes && o != CF_PQ_ORD_U32 && o != CF_PQ_ORD_U64) {
                check_bounds(v, o, &chunk, s->has_min, s->min, s->has_max, s->max, false, where,
                             "deprecated statistics min/max");
            } else {
                v->stats_skipped++;
                note(v,
                     "%s: deprecated min/max ignored (signed order from legacy writers; "
                     "no min_value/max_value)",
                     where);
            }
        }
    }

    /* page index */
    cf_parquet_page_index *pidx = NULL;
    st = cf_parquet_page_index_read(&pidx, v->pq, g, c, &err);
    if (st != CF_OK && st != CF_ENOTFOUND)
        lib_error(v, st, &err);
    if (pidx) {
        v->pi_checked++;
        const cf_parquet_offset_index *oi = cf_parquet_page_index_offsets(pidx);
        const cf_parquet_column_index *ci = cf_parquet_page_index_columns(pidx);
        if (oi) {
            if (oi->page_count != np) {
                problem(v, "%s: offset index of %" PRIu32 " pages, the chunk has %zu data pages",
                        where, oi->page_count, np);
            } else {
                bool noted = false;
                for (size_t k = 0; k < np; k++) {
                    const cf_parquet_page_location *l = &oi->pages[k];
                    /* parquet-go wrote the page size without its header: a
                     * known writer bug (readers that trust the size read
                     * short), recognised exactly and noted once per chunk. */
                    if ((uint64_t)l->offset == pi[k].offset &&
                        l->compressed_page_size == pi[k].compressed_size &&
                        (l->first_row_index == pi[k].first_row ||
                         l->first_row_index == pi[k].first_level)) {
                        if (!noted)
                            note(v,
                                 "%s: offset index sizes leave out the page headers%s "
                                 "(parquet-go)",
                                 where,
                                 l->first_row_index != pi[k].first_row
                                     ? ", first_row_index counts values"
                                     : "");
                        noted = true;
                        continue;
                    }
                    if ((uint64_t)l->offset != pi[k].offset ||
                        (int64_t)l->compressed_page_size !=
                            (int64_t)pi[k].header_len + pi[k].compressed_size)
                        problem(v,
                                "%s: offset index page %zu at %" PRId64 " of %" PRId32
                                " bytes, the page is at %" PRIu64 " with %" PRId64 " bytes",
                                where, k, l->offset, l->compressed_page_size, pi[k].offset,
                                (int64_t)pi[k].header_len + pi[k].compressed_size);
                    else if (l->first_row_index != pi[k].first_row)
                        problem(v,
                                "%s: offset index page %zu at %" PRId64 ": first_row_index %" PRId64
                                ", the page starts at row %" PRId64,
                                where, k, l->offset, l->first_row_index, pi[k].first_row);
                }
            }
        }
        if (ci && ci->page_count == np) {
            const char *cwhy = NULL;
            cf_pq_order co = cf_pq_stat_order(col, &cwhy);
            const cf_parquet_page_location *locs = oi ? oi->pages : NULL;
            int prev = -1;
            bool asc = true, desc = true;
            for (size_t k = 0; k < np; k++) {
                char pw[800];
                snprintf(pw, sizeof pw, "%s: column index page %zu (at offset %" PRIu64 ")", where,
                         k, locs ? (uint64_t)locs[k].offset : pi[k].offset);
                bool all_null = pi[k].present == 0;
                if (ci->null_pages[k] != all_null) {
                    problem(v, "%s: null_pages says %s, the page has %" PRId64 " values", pw,
                            ci->null_pages[k] ? "true" : "false", pi[k].present);
                    continue;
                }
                if (ci->has_null_counts) {
                    bool flat = col->max_rep == 0;
                    if (flat ? ci->null_counts[k] != pi[k].nulls : ci->null_counts[k] > pi[k].nulls)
                        problem(v, "%s: null_count %" PRId64 ", the page has %" PRId64, pw,
                                ci->null_counts[k], pi[k].nulls);
                }
                if (all_null || co == CF_PQ_ORD_NONE)
                    continue;
                check_bounds(v, co, &pi[k].r, true, ci->min_values[k], true, ci->max_values[k],
                             false, pw, "min/max");
                if (prev >= 0) {
                    cf_pq_val pmin = {ci->min_values[prev].data, ci->min_values[prev].len};
                    cf_pq_val pmax = {ci->max_values[prev].data, ci->max_values[prev].len};
                    cf_pq_val kmin = {ci->min_values[k].data, ci->min_values[k].len};
                    cf_pq_val kmax = {ci->max_values[k].data, ci->max_values[k].len};
                    if (cf_pq_cmp(co, kmin, pmin) < 0 || cf_pq_cmp(co, kmax, pmax) < 0)
                        asc = false;
                    if (cf_pq_cmp(co, kmin, pmin) > 0 || cf_pq_cmp(co, kmax, pmax) > 0)
                        desc = false;
                }
                prev = (int)k;
            }
            if (co != CF_PQ_ORD_NONE &&
                ((ci->boundary_order == 1 && !asc) || (ci->boundary_order == 2 && !desc)))
                problem(v, "%s: column index says %s, the page bounds are not", where,
                        ci->boundary_order == 1 ? "ASCENDING" : "DESCENDING");
        } else if (ci) {
            problem(v, "%s: column index of %" PRIu32 " pages, the chunk has %zu data pages", where,
                    ci->page_count, np);
        }
        cf_parquet_page_index_free(pidx);
    }
    cf_pq_range_free(&chunk);
    free_pages(pi, np);
}

static void put_list(cf_jw *w, const char *key, char **l, size_t n)
{
    cf_jw_kv_arr_begin(w, key);
    for (size_t i = 0; i < n; i++)
        cf_jw_cstr(w, l[i]);
    cf_jw_arr_end(w);
}

static void free_list(char **l, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(l[i]);
    free(l);
}

static int verify_file(cf_cli *c, const char *path, bool json)
{
    cf_error err = {0};
    cf_parquet *pq = NULL;
    cf_status st = cf_parquet_open_file(&pq, path, NULL, &err);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, path, st, &err);
    vstate v = {.pq = pq};
    const cf_parquet_file_meta *m = cf_parquet_meta(pq);
    if (m->num_rows != cf_parquet_num_rows(pq))
        note(&v, "footer num_rows %" PRId64 ", the row groups hold %" PRId64, m->num_rows,
             cf_parquet_num_rows(pq));
    uint32_t ncols = cf_parquet_column_count(pq);
    for (uint32_t g = 0; g < m->row_group_count; g++)
        for (uint32_t col = 0; col < ncols; col++)
            verify_chunk(&v, g, col);
    bool ok = v.nproblems == 0 && v.nunsupported == 0;
    if (json) {
        cf_jw w;
        cf_jw_init(&w, c->out);
        cf_jw_obj_begin(&w);
        cf_jw_kv_cstr(&w, "file", path);
        cf_jw_kv_bool(&w, "ok", ok);
        cf_jw_kv_uint(&w, "row_groups", m->row_group_count);
        cf_jw_kv_uint(&w, "columns", ncols);
        cf_jw_kv_int(&w, "rows", cf_parquet_num_rows(pq));
        cf_jw_kv_uint(&w, "pages", v.pages);
        cf_jw_kv_uint(&w, "values", v.values);
        cf_jw_kv_obj_begin(&w, "crc");
        cf_jw_kv_uint(&w, "verified", v.crc_ok);
        cf_jw_kv_uint(&w, "absent", v.crc_absent);
        cf_jw_obj_end(&w);
        cf_jw_kv_obj_begin(&w, "statistics");
        cf_jw_kv_uint(&w, "checked", v.stats_checked);
        cf_jw_kv_uint(&w, "skipped", v.stats_skipped);
        cf_jw_obj_end(&w);
        cf_jw_kv_obj_begin(&w, "page_index");
        cf_jw_kv_uint(&w, "checked", v.pi_checked);
        cf_jw_obj_end(&w);
        cf_jw_kv_obj_begin(&w, "bloom_filters");
        cf_jw_kv_uint(&w, "checked", v.bloom_checked);
        cf_jw_kv_uint(&w, "values", v.bloom_values);
        cf_jw_obj_end(&w);
        put_list(&w, "notes", v.notes, v.nnotes);
        put_list(&w, "unsupported", v.unsupported, v.nunsupported);
        put_list(&w, "problems", v.problems, v.nproblems);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else {
        fprintf(c->out,
                "%s: %s\n  %" PRIu32 " row groups, %" PRIu32 " columns, %" PRId64 " rows, %" PRIu64
                " pages, %" PRIu64 " values decoded\n  page CRCs: %" PRIu64 " verified, %" PRIu64
                " absent\n  statistics: %" PRIu64 " chunks checked, %" PRIu64
                " skipped\n  page index: %" PRIu64 " chunks checked\n  bloom filters: %" PRIu64
                " checked, %" PRIu64 " values probed\n",
                path,
                ok            ? "OK"
                : v.nproblems ? "DAMAGED"
                              : "NOT FULLY CHECKED (unsupported)",
                m->row_group_count, ncols, cf_parquet_num_rows(pq), v.pages, v.values, v.crc_ok,
                v.crc_absent, v.stats_checked, v.stats_skipped, v.pi_checked, v.bloom_checked,
                v.bloom_values);
        for (size_t i = 0; i < v.nnotes; i++)
            fprintf(c->out, "  note: %s\n", v.notes[i]);
    }
    for (size_t i = 0; i < v.nproblems; i++)
        fprintf(c->err, "cfile: %s: %s\n", path, v.problems[i]);
    for (size_t i = 0; i < v.nunsupported; i++)
        fprintf(c->err, "cfile: %s: not supported: %s\n", path, v.unsupported[i]);
    free_list(v.problems, v.nproblems);
    free_list(v.notes, v.nnotes);
    free_list(v.unsupported, v.nunsupported);
    cf_parquet_free(pq);
    return v.nproblems ? CF_EXIT_FAIL : v.nunsupported ? CF_EXIT_NOTSUP : CF_EXIT_OK;
}

int cf_cmd_parquet_verify(cf_cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    cf_cli sub = cf_cli_sub(c, "parquet verify", cf_cmd_parquet_verify_usage);
    c = &sub;
    bool json = false;
    int ch;
    cf_cli_getopt_reset();
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (ch) {
        case 'j': json = true; break;
        case 'h': return cf_cli_help(c);
        default: return cf_cli_bad_option(c, argv);
        }
    }
    if (optind >= argc)
        return cf_cli_usage(c, "missing FILE");
    if (argc - optind != 1)
        return cf_cli_usage(c, "expected one FILE");
    return verify_file(c, argv[optind], json);
}

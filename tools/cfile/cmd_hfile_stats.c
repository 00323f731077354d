/* cfile hfile stats (HBase's hfile -s, -d) and check (-k, -a).
 *
 * stats: HBase's printer keeps four histograms -- key length, value length,
 * row size in bytes and row size in cells -- over a 1028-sample reservoir and
 * counts per size range (RANGES below). We keep exact count, min, max, mean and
 * standard deviation, percentiles from a 65536-sample reservoir (exact up to
 * that many values, a uniform sample beyond: memory stays bounded), and exact
 * range counts. Key length is per cell (HBase's printer records the last key
 * of each row, a quirk we do not copy). Row size in bytes is the cells' KeyValue
 * serialized size: 8 + key + value (+ 2 + tags when the file has tags).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hfile_cli.h"

#define RESERVOIR 65536

static const uint64_t ranges[] = {1,      3,       10,      50,       100,      500,
                                  1000,   5000,    10000,   50000,    100000,   500000,
                                  750000, 1000000, 5000000, 10000000, 50000000, 100000000};
#define NRANGES (sizeof(ranges) / sizeof(ranges[0]))

typedef struct hist {
    const char *name, *json_name;
    uint64_t count, min, max;
    double mean, m2; /* Welford */
    uint64_t *sample;
    size_t n_sample;
    uint64_t rng;
    uint64_t range_count[NRANGES + 1]; /* last: above every range */
} hist;

static void hist_add(hist *s, uint64_t v)
{
    s->count++;
    if (s->count == 1 || v < s->min)
        s->min = v;
    if (v > s->max)
        s->max = v;
    double d = (double)v - s->mean;
    s->mean += d / (double)s->count;
    s->m2 += d * ((double)v - s->mean);
    size_t r = 0;
    while (r < NRANGES && v > ranges[r])
        r++;
    s->range_count[r]++;
    if (s->sample == NULL)
        return;
    if (s->n_sample < RESERVOIR) {
        s->sample[s->n_sample++] = v;
        return;
    }
    /* Algorithm R with a fixed-seed xorshift, so runs are repeatable. */
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 7;
    s->rng ^= s->rng << 17;
    uint64_t j = s->rng % s->count;
    if (j < RESERVOIR)
        s->sample[j] = v;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Quantile q of the sorted sample, interpolated as the metrics library HBase uses does. */
static double quantile(const hist *s, double q)
{
    if (s->n_sample == 0)
        return 0;
    double pos = q * (double)(s->n_sample + 1);
    if (pos < 1)
        return (double)s->sample[0];
    if (pos >= (double)s->n_sample)
        return (double)s->sample[s->n_sample - 1];
    size_t lo = (size_t)pos;
    double lower = (double)s->sample[lo - 1], upper = (double)s->sample[lo];
    return lower + (pos - floor(pos)) * (upper - lower);
}

static double stddev(const hist *s)
{
    return s->count > 1 ? sqrt(s->m2 / (double)(s->count - 1)) : 0;
}

static const double qs[] = {0.5, 0.75, 0.95, 0.98, 0.99, 0.999};
static const char *const q_text[] = {"median", "75%", "95%", "98%", "99%", "99.9%"};
static const char *const q_json[] = {"median", "p75", "p95", "p98", "p99", "p999"};

static void hist_text(FILE *o, const hist *s, bool details)
{
    fprintf(o, "   %s:\n", s->name);
    fprintf(o, "               min = %" PRIu64 "\n", s->count ? s->min : 0);
    fprintf(o, "               max = %" PRIu64 "\n", s->max);
    fprintf(o, "              mean = %.2f\n", s->mean);
    fprintf(o, "            stddev = %.2f\n", stddev(s));
    for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
        fprintf(o, "%18s %s %.2f\n", q_text[i], i == 0 ? "=" : "<=", quantile(s, qs[i]));
    fprintf(o, "             count = %" PRIu64 "\n", s->count);
    if (!details)
        return;
    fprintf(o, "           (range <= count):\n");
    for (size_t r = 0; r <= NRANGES; r++) {
        if (s->range_count[r] == 0)
            continue;
        if (r == NRANGES)
            fprintf(o, "%17s <= %" PRIu64 "\n", "inf", s->range_count[r]);
        else
            fprintf(o, "%17" PRIu64 " <= %" PRIu64 "\n", ranges[r], s->range_count[r]);
    }
}

static void hist_json(cf_jw *w, const hist *s)
{
    cf_jw_kv_obj_begin(w, s->json_name);
    cf_jw_kv_uint(w, "count", s->count);
    cf_jw_kv_uint(w, "min", s->count ? s->min : 0);
    cf_jw_kv_uint(w, "max", s->max);
    char num[64];
    cf_jw_key(w, "mean");
    snprintf(num, sizeof(num), "%.2f", s->mean);
    cf_jw_raw(w, num);
    cf_jw_key(w, "stddev");
    snprintf(num, sizeof(num), "%.2f", stddev(s));
    cf_jw_raw(w, num);
    for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
        cf_jw_key(w, q_json[i]);
        snprintf(num, sizeof(num), "%.2f", quantile(s, qs[i]));
        cf_jw_raw(w, num);
    }
    cf_jw_kv_bool(w, "percentiles_exact", s->count <= RESERVOIR);
    cf_jw_kv_arr_begin(w, "ranges");
    for (size_t r = 0; r <= NRANGES; r++) {
        if (s->range_count[r] == 0)
            continue;
        cf_jw_obj_begin(w);
        cf_jw_key(w, "le");
        if (r == NRANGES)
            cf_jw_null(w);
        else
            cf_jw_uint(w, ranges[r]);
        cf_jw_kv_uint(w, "count", s->range_count[r]);
        cf_jw_obj_end(w);
    }
    cf_jw_arr_end(w);
    cf_jw_obj_end(w);
}

/* A growable copy of some bytes (the previous row, the biggest row, a family). */
typedef struct bytes {
    uint8_t *p;
    size_t len, cap;
} bytes;

static bool bytes_set(bytes *b, cf_slice s)
{
    if (s.len > b->cap) {
        uint8_t *n = realloc(b->p, s.len);
        if (!n)
            return false;
        b->p = n;
        b->cap = s.len;
    }
    if (s.len)
        memcpy(b->p, s.data, s.len);
    b->len = s.len;
    return true;
}

static bool bytes_eq(const bytes *b, cf_slice s)
{
    return b->len == s.len && (s.len == 0 || memcmp(b->p, s.data, s.len) == 0);
}

static cf_slice bytes_slice(const bytes *b)
{
    return (cf_slice){b->p, b->len};
}

#define MAX_FAMILIES 16

int hf_do_stats(cf_cli *c, cf_hfile *h, const hf_opts *o)
{
    const cf_hfile_info *in = cf_hfile_get_info(h);
    hist hs[4] = {
        {.name = "Key length", .json_name = "key_length"},
        {.name = "Val length", .json_name = "value_length"},
        {.name = "Row size (bytes)", .json_name = "row_size_bytes"},
        {.name = "Row size (columns)", .json_name = "row_size_columns"},
    };
    int rc = CF_EXIT_OK;
    for (int i = 0; i < 4; i++) {
        hs[i].rng = 0x9e3779b97f4a7c15ull + (uint64_t)i;
        hs[i].sample = malloc(RESERVOIR * sizeof(uint64_t));
        if (!hs[i].sample)
            rc = cf_cli_fail(c, "stats: out of memory");
    }
    uint64_t by_type[256] = {0};
    uint64_t cells = 0, rows = 0, row_bytes = 0, row_cells = 0, biggest = 0, tagged = 0;
    int64_t ts_min = 0, ts_max = 0;
    uint64_t mvcc_max = 0;
    bytes prev = {0}, big = {0}, fams[MAX_FAMILIES] = {{0}};
    size_t nfam = 0;
    bool more_fams = false, oom = false;
    cf_error e = {0};
    cf_hfile_iter *it = NULL;
    cf_status st = rc == CF_EXIT_OK ? cf_hfile_iter_create(&it, h, &e) : CF_OK;
    while (rc == CF_EXIT_OK && st == CF_OK && !oom) {
        cf_hfile_cell cell;
        bool has;
        st = cf_hfile_iter_next(it, &cell, &has, &e);
        if (st != CF_OK || !has)
            break;
        cf_slice row = in->raw_keys ? cell.key : cell.row;
        if (cells > 0 && !bytes_eq(&prev, row)) {
            hist_add(&hs[2], row_bytes);
            hist_add(&hs[3], row_cells);
            if (row_bytes > biggest) {
                biggest = row_bytes;
                oom |= !bytes_set(&big, bytes_slice(&prev));
            }
            row_bytes = row_cells = 0;
        }
        if (cells == 0 || !bytes_eq(&prev, row)) {
            rows++;
            oom |= !bytes_set(&prev, row);
        }
        hist_add(&hs[0], cell.key.len);
        hist_add(&hs[1], cell.value.len);
        row_bytes +=
            8 + cell.key.len + cell.value.len + (in->includes_tags ? 2 + cell.tags.len : 0);
        row_cells++;
        by_type[cell.type]++;
        if (!in->raw_keys) {
            if (cells == 0 || cell.timestamp < ts_min)
                ts_min = cell.timestamp;
            if (cells == 0 || cell.timestamp > ts_max)
                ts_max = cell.timestamp;
            bool seen = false;
            for (size_t f = 0; f < nfam && !seen; f++)
                seen = bytes_eq(&fams[f], cell.family);
            if (!seen && nfam < MAX_FAMILIES)
                oom |= !bytes_set(&fams[nfam++], cell.family);
            else if (!seen)
                more_fams = true;
        }
        if (cell.mvcc > mvcc_max)
            mvcc_max = cell.mvcc;
        tagged += cell.tags.len > 0;
        cells++;
    }
    cf_hfile_iter_free(it);
    if (cells > 0) {
        hist_add(&hs[2], row_bytes);
        hist_add(&hs[3], row_cells);
        if (row_bytes > biggest) {
            biggest = row_bytes;
            oom |= !bytes_set(&big, bytes_slice(&prev));
        }
    }
    if (rc == CF_EXIT_OK && oom)
        rc = cf_cli_fail(c, "stats: out of memory");
    if (rc == CF_EXIT_OK && st != CF_OK)
        rc = cf_cli_lib_fail(c, "stats", st, &e);
    for (int i = 0; i < 4 && rc == CF_EXIT_OK; i++)
        if (hs[i].n_sample)
            qsort(hs[i].sample, hs[i].n_sample, sizeof(uint64_t), cmp_u64);
    if (rc == CF_EXIT_OK && o->json) {
        cf_jw w;
        hf_jw_begin(&w, c->out, o);
        cf_jw_kv_uint(&w, "cells", cells);
        cf_jw_kv_uint(&w, "rows", rows);
        cf_jw_kv_obj_begin(&w, "cell_types");
        for (int t = 0; t < 256 && !in->raw_keys; t++) {
            if (!by_type[t])
                continue;
            char name[16];
            const char *n = cf_hfile_type_name((uint8_t)t);
            if (!n) {
                snprintf(name, sizeof(name), "type_%d", t);
                n = name;
            }
            cf_jw_kv_uint(&w, n, by_type[t]);
        }
        cf_jw_obj_end(&w);
        if (!in->raw_keys) {
            cf_jw_key(&w, "timestamp_range");
            if (cells) {
                cf_jw_obj_begin(&w);
                cf_jw_kv_int(&w, "min", ts_min);
                cf_jw_kv_int(&w, "max", ts_max);
                cf_jw_obj_end(&w);
            } else {
                cf_jw_null(&w);
            }
            cf_jw_kv_arr_begin(&w, "families");
            for (size_t f = 0; f < nfam; f++)
                hf_jw_bytes(&w, bytes_slice(&fams[f]));
            cf_jw_arr_end(&w);
            if (more_fams)
                cf_jw_kv_bool(&w, "families_truncated", true);
        }
        cf_jw_kv_uint(&w, "max_mvcc", mvcc_max);
        cf_jw_kv_uint(&w, "cells_with_tags", tagged);
        for (int i = 0; i < 4; i++)
            hist_json(&w, &hs[i]);
        cf_jw_key(&w, "biggest_row");
        if (cells) {
            cf_jw_obj_begin(&w);
            cf_jw_key(&w, "row");
            hf_jw_bytes(&w, bytes_slice(&big));
            cf_jw_kv_uint(&w, "bytes", biggest);
            cf_jw_obj_end(&w);
        } else {
            cf_jw_null(&w);
        }
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    } else if (rc == CF_EXIT_OK) {
        FILE *out = c->out;
        fprintf(out, "Stats:\n");
        if (cells == 0) {
            fputs("no data available for statistics\n", out);
        } else {
            for (int i = 0; i < 4; i++)
                hist_text(out, &hs[i], o->details);
            fprintf(out, "Key of biggest row: ");
            hf_print_bytes(out, bytes_slice(&big));
            fprintf(out, " (%" PRIu64 " bytes)\n", biggest);
        }
        fprintf(out, "Cells: %" PRIu64 ", rows: %" PRIu64 "\n", cells, rows);
        fputs(in->raw_keys ? "Cell types: none (raw v1 keys)" : "Cell types:", out);
        for (int t = 0; t < 256 && !in->raw_keys; t++)
            if (by_type[t])
                fprintf(out, " %s=%" PRIu64,
                        cf_hfile_type_name((uint8_t)t) ? cf_hfile_type_name((uint8_t)t) : "Unknown",
                        by_type[t]);
        fputc('\n', out);
        if (!in->raw_keys && cells) {
            fprintf(out, "Timestamps: %" PRId64 "....%" PRId64 "\nFamilies:", ts_min, ts_max);
            for (size_t f = 0; f < nfam; f++) {
                fputs(" '", out);
                hf_print_bytes(out, bytes_slice(&fams[f]));
                fputc('\'', out);
            }
            fputs(more_fams ? " ...\n" : "\n", out);
        }
        fprintf(out, "Max mvcc: %" PRIu64 ", cells with tags: %" PRIu64 "\n", mvcc_max, tagged);
    }
    for (int i = 0; i < 4; i++)
        free(hs[i].sample);
    free(prev.p);
    free(big.p);
    for (size_t f = 0; f < MAX_FAMILIES; f++)
        free(fams[f].p);
    return rc;
}

/* ---- check --------------------------------------------------------------------------- */

int hf_do_check(cf_cli *c, cf_hfile *h, const hf_opts *o)
{
    const cf_hfile_info *in = cf_hfile_get_info(h);
    cf_error e = {0};
    cf_hfile_iter *it = NULL;
    cf_status st = cf_hfile_iter_create(&it, h, &e);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, "iterate", st, &e);
    bytes prev = {0}, fam = {0}, bad_prev = {0}, bad_key = {0}, other_fam = {0};
    uint64_t cells = 0, bad_index = 0, bad_block = 0, bad_in_block = 0, fam_index = 0;
    bool bad = false, two_fams = false, oom = false;
    while (!bad && !oom) {
        uint64_t blk, cib;
        cf_hfile_iter_position(it, &blk, &cib);
        cf_hfile_cell cell;
        bool has;
        st = cf_hfile_iter_next(it, &cell, &has, &e);
        if (st != CF_OK || !has)
            break;
        if (cells > 0) {
            if (hf_key_cmp_prev(h, bytes_slice(&prev), &cell) > 0) {
                bad = true;
                bad_index = cells;
                /* Where the cell came from: the position after next moves to the next
                 * block once a block is used up. */
                uint64_t ab, ac;
                cf_hfile_iter_position(it, &ab, &ac);
                bad_block = ac == 0 ? blk : ab;
                bad_in_block = ac == 0 ? cib : ac - 1;
                oom |= !bytes_set(&bad_prev, bytes_slice(&prev)) || !bytes_set(&bad_key, cell.key);
            }
        }
        if (!in->raw_keys) {
            if (cells == 0)
                oom |= !bytes_set(&fam, cell.family);
            else if (!two_fams && !bytes_eq(&fam, cell.family)) {
                two_fams = true;
                fam_index = cells;
                oom |= !bytes_set(&other_fam, cell.family);
            }
        }
        oom |= !bytes_set(&prev, cell.key);
        cells++;
    }
    cf_hfile_iter_free(it);
    int rc = CF_EXIT_OK;
    if (oom)
        rc = cf_cli_fail(c, "check: out of memory");
    else if (st != CF_OK)
        rc = cf_cli_lib_fail(c, "check", st, &e);
    if (rc == CF_EXIT_OK) {
        if (o->json) {
            cf_jw w;
            hf_jw_begin(&w, c->out, o);
            cf_jw_kv_bool(&w, "ok", !bad);
            cf_jw_kv_uint(&w, "cells_checked", cells);
            cf_jw_key(&w, "first_out_of_order");
            if (bad) {
                cf_jw_obj_begin(&w);
                cf_jw_kv_uint(&w, "cell_index", bad_index);
                cf_jw_kv_uint(&w, "block", bad_block);
                cf_jw_kv_uint(&w, "cell_in_block", bad_in_block);
                cf_jw_key(&w, "key");
                hf_jw_key(&w, h, bytes_slice(&bad_key));
                cf_jw_key(&w, "previous_key");
                hf_jw_key(&w, h, bytes_slice(&bad_prev));
                cf_jw_obj_end(&w);
            } else {
                cf_jw_null(&w);
            }
            if (!in->raw_keys) {
                cf_jw_key(&w, "mixed_families");
                if (two_fams) {
                    cf_jw_obj_begin(&w);
                    cf_jw_kv_uint(&w, "cell_index", fam_index);
                    cf_jw_key(&w, "first_family");
                    hf_jw_bytes(&w, bytes_slice(&fam));
                    cf_jw_key(&w, "other_family");
                    hf_jw_bytes(&w, bytes_slice(&other_fam));
                    cf_jw_obj_end(&w);
                } else {
                    cf_jw_null(&w);
                }
            }
            cf_jw_obj_end(&w);
            cf_jw_newline(&w);
        } else {
            fprintf(c->out, "%s: %" PRIu64 " cells checked%s\n", bad ? "OUT OF ORDER" : "OK", cells,
                    bad ? " (stopped at the first out-of-order cell)" : ", in order");
        }
        if (two_fams) {
            fprintf(c->err, "cfile: WARNING: cell %" PRIu64 " has family '", fam_index);
            hf_print_bytes(c->err, bytes_slice(&other_fam));
            fputs("', the first cell '", c->err);
            hf_print_bytes(c->err, bytes_slice(&fam));
            fputs("' (a store file holds one family)\n", c->err);
        }
        if (bad) {
            fprintf(c->err, "cfile: cell %" PRIu64 " (block %" PRIu64 ", cell %" PRIu64 " in it) ",
                    bad_index, bad_block, bad_in_block);
            hf_print_key(c->err, h, bytes_slice(&bad_key));
            fputs(" sorts before its predecessor ", c->err);
            hf_print_key(c->err, h, bytes_slice(&bad_prev));
            fputc('\n', c->err);
            rc = CF_EXIT_FAIL;
        }
    }
    free(prev.p);
    free(fam.p);
    free(bad_prev.p);
    free(bad_key.p);
    free(other_fam.p);
    return rc;
}

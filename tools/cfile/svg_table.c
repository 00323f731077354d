/* `cfile table info DIR --svg OUT`: a table's rowsets as a picture.
 *
 *   title and summary line
 *   the key axis: each rowset a bar from its smallest to its largest key (bars
 *       that overlap go to separate lanes, so overlapping key ranges, the work a
 *       compaction would remove, are visible at a glance), labelled with its name
 *       and rows; under it a stacked bar of its files by size: column CFiles,
 *       bloom filter, ad hoc key index, REDO and UNDO delta files
 *   the key axis' ends, legend and a table of every rowset (up to a limit)
 *
 * The axis: keys are the memcomparable encoded keys (format §1.8), so the 8
 * bytes after the prefix all keys share, read big-endian, order the rowsets
 * and space them in proportion for integer keys and roughly for strings.
 * Key labels decode the first key column (integers, strings), else hex.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cfile/rowset.h>

#include "svg.h"

#define WIDTH 1280.0
#define LEFT 24.0
#define RIGHT 24.0
#define PLOT (WIDTH - LEFT - RIGHT)
#define LANE_H 48.0
#define BAR_H 18.0
#define FILES_H 12.0
#define MAX_LANES 24
#define MAX_FILES_DRAWN 600 /* rowsets past it: key bars only */
#define MAX_LISTED 40

typedef struct rsv {
    const char *name;
    cf_rowset_info info;
    cf_rowset *rs;
    double x0, x1;
    unsigned lane;
    uint64_t bytes[5]; /* column, bloom, adhoc, redo, undo */
    size_t files[5];
} rsv;

static const char *const roles[5] = {"column", "bloom", "adhoc", "redo", "undo"};
static const char *const role_fill[5] = {"#4e79a7", "#ff9da7", "#9d9d9d", "#f28e2b", "#7a45a6"};
static const char *const role_label[5] = {"column CFiles", "bloom filter", "ad hoc key index",
                                          "REDO delta files", "UNDO delta files"};

/* The 8 bytes of k after `skip`, big-endian, zero-padded. */
static double key_pos(cf_slice k, size_t skip)
{
    uint64_t v = 0;
    for (size_t i = 0; i < 8; i++)
        v = v << 8 | (skip + i < k.len ? k.data[skip + i] : 0);
    return (double)v;
}

/* A readable form of an encoded key into s: the first key column decoded. */
static void key_text(cf_out_str *s, const cf_schema *sc, cf_slice k)
{
    if (k.len == 0) {
        cf_out_str_puts(s, "(none)");
        return;
    }
    const cf_column *c0 = cf_schema_column_at(sc, 0);
    size_t nkeys = cf_schema_key_count(sc);
    cf_type t = c0->type;
    size_t w = cf_type_is_binary(t) ? 0 : cf_type_size(t);
    char buf[64];
    bool is_int = t == CF_TYPE_INT8 || t == CF_TYPE_INT16 || t == CF_TYPE_INT32 ||
                  t == CF_TYPE_INT64 || t == CF_TYPE_UINT8 || t == CF_TYPE_UINT16 ||
                  t == CF_TYPE_UINT32 || t == CF_TYPE_UINT64 || t == CF_TYPE_UNIXTIME_MICROS ||
                  t == CF_TYPE_DATE;
    size_t used = 0;
    if (is_int && w > 0 && w <= 8 && k.len >= w) {
        uint64_t v = 0;
        for (size_t i = 0; i < w; i++)
            v = v << 8 | k.data[i];
        bool is_signed = !(t == CF_TYPE_UINT8 || t == CF_TYPE_UINT16 || t == CF_TYPE_UINT32 ||
                           t == CF_TYPE_UINT64);
        if (is_signed) {
            /* Signed keys are stored with the sign bit flipped (format §1.8). */
            uint64_t sign = (uint64_t)1 << (8 * w - 1);
            v ^= sign;
            unsigned shift = (unsigned)(64 - 8 * w);
            int64_t sv = (int64_t)(v << shift) >> shift; /* sign-extend */
            snprintf(buf, sizeof(buf), "%" PRId64, sv);
        } else {
            snprintf(buf, sizeof(buf), "%" PRIu64, v);
        }
        cf_out_str_puts(s, buf);
        used = w;
    } else if (cf_type_is_binary(t)) {
        /* The last key column is stored as is; others escape 0 as 0,1 and end with 0,0. */
        size_t i = 0;
        while (i < k.len && used == 0) {
            if (nkeys > 1 && k.data[i] == 0 && i + 1 < k.len && k.data[i + 1] == 0) {
                used = i + 2;
                break;
            }
            if (nkeys > 1 && k.data[i] == 0 && i + 1 < k.len && k.data[i + 1] == 1) {
                cf_out_str_put(s, "", 1);
                i += 2;
                continue;
            }
            cf_out_str_put(s, k.data + i, 1);
            i++;
        }
        if (used == 0)
            used = k.len;
    } else {
        for (size_t i = 0; i < k.len && i < 24; i++) {
            snprintf(buf, sizeof(buf), "%02x", k.data[i]);
            cf_out_str_puts(s, buf);
        }
        if (k.len > 24)
            cf_out_str_puts(s, "...");
        return;
    }
    if (nkeys > 1 && used < k.len)
        cf_out_str_puts(s, ", ...");
}

static int by_min(const void *a, const void *b)
{
    const rsv *x = a, *y = b;
    size_t n =
        x->info.min_key.len < y->info.min_key.len ? x->info.min_key.len : y->info.min_key.len;
    int c = n ? memcmp(x->info.min_key.data, y->info.min_key.data, n) : 0;
    if (c != 0)
        return c;
    return x->info.min_key.len < y->info.min_key.len ? -1
                                                     : x->info.min_key.len > y->info.min_key.len;
}

static void file_sizes(rsv *r, const char *dir)
{
    const char *name, *role;
    for (size_t i = 0; cf_rowset_file_at(r->rs, i, &name, &role); i++) {
        int k = 0;
        while (k < 5 && strcmp(role, roles[k]) != 0)
            k++;
        if (k == 5)
            k = 2;
        size_t n = strlen(dir) + strlen(r->name) + strlen(name) + 3;
        char *p = malloc(n);
        if (p == NULL)
            continue;
        snprintf(p, n, "%s/%s/%s", dir, r->name, name);
        struct stat sb;
        if (stat(p, &sb) == 0)
            r->bytes[k] += (uint64_t)sb.st_size;
        r->files[k]++;
        free(p);
    }
}

static void tip_key(cf_svg *g, const cf_schema *sc, cf_slice k)
{
    cf_out_str s;
    cf_out_str_init(&s);
    key_text(&s, sc, k);
    if (s.len)
        cf_svg_tip_bytes(g, s.data, s.len);
    cf_out_str_dispose(&s);
}

static void rowset_tip(cf_svg *g, const cf_schema *sc, const rsv *r)
{
    cf_svg_tip(g, "rowset ");
    cf_svg_tip_bytes(g, r->name, strlen(r->name));
    cf_svg_tip(g, ": %" PRIu64 " rows\nkeys ", r->info.rows);
    tip_key(g, sc, r->info.min_key);
    cf_svg_tip(g, " .. ");
    tip_key(g, sc, r->info.max_key);
    cf_svg_tip(g, "\ngeneration %" PRIu64 ", inserted at ts %" PRIu64 ", last ts %" PRIu64,
               r->info.generation, r->info.insert_ts, r->info.last_ts);
    cf_svg_tip(g, "\n%" PRIu64 " REDO deltas in %zu files, %" PRIu64 " UNDO deltas in %zu files",
               r->info.redo_deltas, r->info.redo_files, r->info.undo_deltas, r->info.undo_files);
    for (int k = 0; k < 5; k++) {
        if (r->files[k] == 0)
            continue;
        char b[32];
        cf_svg_bytes(b, sizeof(b), r->bytes[k]);
        cf_svg_tip(g, "\n%s: %zu file%s, %s", role_label[k], r->files[k],
                   r->files[k] == 1 ? "" : "s", b);
    }
}

cf_status cf_svg_table(const char *out_path, FILE *std, const char *dir, cf_table *tb,
                       cf_error *err)
{
    const cf_schema *sc = cf_table_schema(tb);
    size_t n = cf_table_rowset_count(tb);
    rsv *v = calloc(n ? n : 1, sizeof(*v));
    cf_svg g;
    cf_svg_init(&g, WIDTH);
    cf_status st = CF_OK;
    if (v == NULL) {
        st = CF_ENOMEM;
        goto out;
    }
    uint64_t rows = 0, total_bytes = 0;
    for (size_t i = 0; i < n; i++) {
        v[i].rs = cf_table_rowset_at(tb, i, &v[i].name);
        cf_rowset_get_info(v[i].rs, &v[i].info);
        file_sizes(&v[i], dir);
        rows += v[i].info.rows;
        for (int k = 0; k < 5; k++)
            total_bytes += v[i].bytes[k];
    }
    qsort(v, n, sizeof(*v), by_min);
    /* The axis: skip the prefix every key shares. */
    size_t skip = SIZE_MAX;
    cf_slice first = {NULL, 0};
    for (size_t i = 0; i < n; i++) {
        cf_slice ks[2] = {v[i].info.min_key, v[i].info.max_key};
        for (int j = 0; j < 2; j++) {
            if (ks[j].len == 0)
                continue;
            if (first.data == NULL) {
                first = ks[j];
                skip = ks[j].len;
                continue;
            }
            size_t p = 0;
            while (p < skip && p < ks[j].len && ks[j].data[p] == first.data[p])
                p++;
            skip = p;
        }
    }
    if (skip == SIZE_MAX)
        skip = 0;
    double lo = 0, hi = 0;
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        if (v[i].info.min_key.len == 0)
            continue;
        double a = key_pos(v[i].info.min_key, skip), b = key_pos(v[i].info.max_key, skip);
        if (!any || a < lo)
            lo = a;
        if (!any || b > hi)
            hi = b;
        any = true;
    }
    /* Lanes: the first whose last bar ends before this one starts. */
    double lane_end[MAX_LANES];
    unsigned nlanes = 0;
    for (size_t i = 0; i < n; i++) {
        double a = key_pos(v[i].info.min_key, skip), b = key_pos(v[i].info.max_key, skip);
        if (v[i].info.min_key.len == 0 || hi <= lo) {
            v[i].x0 = LEFT;
            v[i].x1 = LEFT + PLOT;
        } else {
            v[i].x0 = LEFT + (a - lo) / (hi - lo) * PLOT;
            v[i].x1 = LEFT + (b - lo) / (hi - lo) * PLOT;
        }
        if (v[i].x1 - v[i].x0 < 3)
            v[i].x1 = v[i].x0 + 3;
        unsigned l = 0;
        while (l < nlanes && lane_end[l] > v[i].x0 - 1)
            l++;
        if (l == MAX_LANES)
            l = MAX_LANES - 1; /* crowded: the last lane takes the rest, overlapping */
        if (l == nlanes && nlanes < MAX_LANES)
            lane_end[nlanes++] = 0;
        lane_end[l] = v[i].x1 > lane_end[l] ? v[i].x1 : lane_end[l];
        v[i].lane = l;
    }

    cf_svg_css(&g,
               ".rs{stroke:#1f2a44;stroke-width:.8;fill:#dfe6f3}\n"
               ".rsl{font-size:10px;fill:#1f2a44}\n.mrs{fill:#59a14f;fill-opacity:.5}\n"
               ".fseg{stroke:#fff;stroke-width:.4}\n.row{font-size:10px;font-family:monospace}\n"
               ".lane{fill:#f6f6f6}");
    cf_svg_text_bytes(&g, 12, 22, "start", "ttl", dir, strlen(dir), 120);
    char schema[512];
    size_t sl = cf_schema_format(sc, schema, sizeof(schema));
    if (sl >= sizeof(schema))
        memcpy(schema + sizeof(schema) - 4, "...", 4);
    char tb_bytes[32];
    cf_svg_bytes(tb_bytes, sizeof(tb_bytes), total_bytes);
    cf_svg_text(&g, 12, 40, "start", "sub",
                "table \u00b7 %zu rowset%s \u00b7 %" PRIu64 " rows in rowsets%s \u00b7 %s in files "
                "\u00b7 last ts %" PRIu64,
                n, n == 1 ? "" : "s", rows, cf_table_mrs_rows(tb) ? " (+ MemRowSet)" : "", tb_bytes,
                cf_table_last_ts(tb));
    cf_svg_tip(&g, "schema: %s", schema);
    cf_svg_text_bytes(&g, 12, 56, "start", "sub", schema, strlen(schema), 180);

    double y = 72;
    cf_svg_text(&g, 12, y + 4, "start", "lab",
                "rowsets by key range (overlapping ranges stack in lanes)");
    y += 12;
    double top = y;
    for (unsigned l = 0; l < nlanes; l++)
        cf_svg_rect(&g, LEFT, top + l * LANE_H, PLOT, LANE_H - 4, "lane");
    for (size_t i = 0; i < n; i++) {
        double ly = top + v[i].lane * LANE_H + 3;
        double w = v[i].x1 - v[i].x0;
        rowset_tip(&g, sc, &v[i]);
        cf_svg_rect(&g, v[i].x0, ly, w, BAR_H, "rs");
        if (w > 50) {
            char lab[160];
            snprintf(lab, sizeof(lab), "%s \u00b7 %" PRIu64 " rows", v[i].name, v[i].info.rows);
            cf_svg_text_bytes(&g, v[i].x0 + 4, ly + 13, "start", "rsl", lab, strlen(lab),
                              (size_t)(w / 6.2));
        }
        if (n > MAX_FILES_DRAWN)
            continue;
        /* The files, stacked by size across the bar. */
        uint64_t tot = 0;
        for (int k = 0; k < 5; k++)
            tot += v[i].bytes[k];
        double fx = v[i].x0;
        for (int k = 0; k < 5 && tot > 0; k++) {
            if (v[i].files[k] == 0)
                continue;
            double fw = w * (double)v[i].bytes[k] / (double)tot;
            char b[32];
            cf_svg_bytes(b, sizeof(b), v[i].bytes[k]);
            cf_svg_tip(&g, "rowset ");
            cf_svg_tip_bytes(&g, v[i].name, strlen(v[i].name));
            cf_svg_tip(&g, ": %s, %zu file%s, %" PRIu64 " bytes (%s)", role_label[k], v[i].files[k],
                       v[i].files[k] == 1 ? "" : "s", v[i].bytes[k], b);
            if (k == 3)
                cf_svg_tip(&g, ", %" PRIu64 " deltas", v[i].info.redo_deltas);
            if (k == 4)
                cf_svg_tip(&g, ", %" PRIu64 " deltas", v[i].info.undo_deltas);
            cf_svg_rect_fill(&g, fx, ly + BAR_H + 3, fw < 0.5 ? 0.5 : fw, FILES_H, role_fill[k],
                             "fseg");
            fx += fw;
        }
        /* Deltas at a glance: a count beside wide bars. */
        if (w > 160 && (v[i].info.redo_deltas || v[i].info.undo_deltas))
            cf_svg_text(&g, v[i].x1 - 4, ly + 13, "end", "rsl",
                        "%" PRIu64 " redo / %" PRIu64 " undo deltas", v[i].info.redo_deltas,
                        v[i].info.undo_deltas);
    }
    y = top + (nlanes ? nlanes : 1) * LANE_H;
    if (cf_table_mrs_rows(tb) > 0) {
        cf_svg_tip(&g, "MemRowSet: %zu rows in the write-ahead log, not yet flushed to a rowset",
                   cf_table_mrs_rows(tb));
        cf_svg_rect(&g, LEFT, y, PLOT, 10, "mrs");
        cf_svg_text(&g, LEFT + 4, y + 22, "start", "ax", "MemRowSet: %zu rows (not yet flushed)",
                    cf_table_mrs_rows(tb));
        y += 30;
    }
    /* The axis' ends and the keys where it starts and stops. */
    cf_svg_line(&g, LEFT, y + 2, LEFT + PLOT, y + 2, "axl");
    cf_out_str ks;
    cf_out_str_init(&ks);
    if (n > 0) {
        key_text(&ks, sc, v[0].info.min_key);
        cf_svg_text_bytes(&g, LEFT, y + 16, "start", "ax", ks.data ? ks.data : "", ks.len, 60);
        cf_out_str_clear(&ks);
        cf_slice mx = v[0].info.max_key;
        for (size_t i = 1; i < n; i++) {
            cf_slice k = v[i].info.max_key;
            size_t m = k.len < mx.len ? k.len : mx.len;
            int c = m ? memcmp(k.data, mx.data, m) : 0;
            if (c > 0 || (c == 0 && k.len > mx.len))
                mx = k;
        }
        key_text(&ks, sc, mx);
        cf_svg_text_bytes(&g, LEFT + PLOT, y + 16, "end", "ax", ks.data ? ks.data : "", ks.len, 60);
        cf_out_str_clear(&ks);
    }
    cf_svg_text(&g, LEFT + PLOT / 2, y + 16, "middle", "ax", "key (%s) \u2192",
                cf_schema_column_at(sc, 0)->name);
    y += 40;

    /* Legend. */
    cf_svg_text(&g, 12, y, "start", "lab", "legend");
    y += 18;
    double lx = cf_svg_legend(&g, 12, y, "rs", NULL, "rowset: its key range");
    for (int k = 0; k < 5; k++)
        lx = cf_svg_legend(&g, lx, y, NULL, role_fill[k], role_label[k]);
    y += 18;
    cf_svg_text(&g, 12, y, "start", "lg",
                "under each rowset: its files stacked by size; hover for keys, rows, deltas and "
                "sizes");
    y += 24;
    /* The rowsets as a list. */
    cf_svg_text(&g, 12, y, "start", "lab", "rowsets");
    y += 16;
    /* Columns at fixed x (SVG collapses runs of spaces). */
    static const double colx[] = {12, 300, 390, 460, 530, 550};
    static const char *const heads[] = {"name", "rows", "bytes", "redo", "undo", "keys"};
    for (int k = 0; k < 6; k++)
        cf_svg_text(&g, colx[k], y, k >= 1 && k <= 4 ? "end" : "start", "row", "%s", heads[k]);
    y += 14;
    for (size_t i = 0; i < n && i < MAX_LISTED; i++) {
        uint64_t tot = 0;
        for (int k = 0; k < 5; k++)
            tot += v[i].bytes[k];
        rowset_tip(&g, sc, &v[i]);
        cf_svg_text_bytes(&g, colx[0], y, "start", "row", v[i].name, strlen(v[i].name), 40);
        const uint64_t nums[4] = {v[i].info.rows, tot, v[i].info.redo_deltas,
                                  v[i].info.undo_deltas};
        for (int k = 0; k < 4; k++)
            cf_svg_text(&g, colx[k + 1], y, "end", "row", "%" PRIu64, nums[k]);
        cf_out_str_clear(&ks);
        key_text(&ks, sc, v[i].info.min_key);
        cf_out_str_puts(&ks, " .. ");
        key_text(&ks, sc, v[i].info.max_key);
        cf_svg_text_bytes(&g, colx[5], y, "start", "row", ks.data, ks.len, 110);
        y += 13;
    }
    if (n > MAX_LISTED) {
        cf_svg_text(&g, 12, y, "start", "lg", "... and %zu more rowsets (`cfile table info`)",
                    n - MAX_LISTED);
        y += 13;
    }
    cf_out_str_dispose(&ks);
    y += 12;
    st = cf_svg_finish(&g, y, "layout of a table", out_path, std, err);
out:
    if (st == CF_ENOMEM && err != NULL) {
        err->code = CF_ENOMEM;
        snprintf(err->msg, sizeof(err->msg), "out of memory drawing the picture");
    }
    free(v);
    cf_svg_dispose(&g);
    return st;
}

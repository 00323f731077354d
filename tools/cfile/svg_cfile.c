/* `cfile info FILE --svg OUT`: a CFile's layout as a picture.
 *
 *   title and summary line
 *   positional index, root (L0) at the top down to its leaves: each node spans
 *       the data blocks below it, lines join parents to children, a shaded
 *       curtain joins each leaf to the blocks it points at
 *   the file by offset: every block at its offset, as wide as its stored bytes,
 *       coloured by kind and encoding; the pale part of a bar is the logical
 *       size the codec saved (fill height = stored / logical), a magenta band
 *       on top the share of NULL rows
 *   the offset axis
 *   value index, leaves at the top down to its root (mirrored, so both trees
 *       point at the same strip)
 *   legend and totals per kind
 *
 * A BloomFile (bloom blocks under a value index keyed by each block's first key)
 * is drawn the same way, its index above the strip: there is no positional
 * tree, and bloom blocks hold no rows.
 *
 * Thousands of blocks: items narrower than a few pixels are merged into one
 * bucket (its tooltip says which blocks and their totals), so the document's size
 * is bounded by the picture's width, not the block count.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

#define WIDTH 1280.0
#define LEFT 170.0 /* room for the lane labels */
#define RIGHT 24.0
#define PLOT (WIDTH - LEFT - RIGHT)
#define LEVEL_H 28.0 /* one tree level */
#define NODE_H 15.0
#define STRIP_H 60.0
#define MIN_PX 3.0    /* narrower items are bucketed */
#define MAX_LEVELS 24 /* deeper trees: the lower levels are merged into the last row */

/* Colours: data blocks by encoding, then the kinds around them. */
static const char *enc_fill(cf_encoding e, int dict_mode)
{
    switch (e) {
    case CF_ENC_PLAIN: return "#4e79a7";
    case CF_ENC_BIT_SHUFFLE: return "#17a2b8";
    case CF_ENC_RLE: return "#59a14f";
    case CF_ENC_PREFIX: return "#9c755f";
    case CF_ENC_GROUP_VARINT: return "#86bcb6";
    case CF_ENC_DICT: return dict_mode == 2 ? "#b6992d" : "#f28e2b";
    default: return "#4e79a7";
    }
}

#define FILL_DICT "#edc948"
#define FILL_BLOOM "#ff9da7"
#define FILL_FRAME "#9d9d9d"
#define FILL_DAMAGED "#d62728"

/* Index levels: the positional tree in slate blues, the value tree in purples,
 * darker at the root. */
static const char *const pos_fills[] = {"#1f2a44", "#34466e", "#4b6293",
                                        "#6880b5", "#8ba0cf", "#afc0e3"};
static const char *const val_fills[] = {"#3f1d5c", "#5b2c83", "#7a45a6",
                                        "#9966c2", "#b78ad8", "#d2b2ea"};

static const char *level_fill(bool value_tree, unsigned level)
{
    const char *const *f = value_tree ? val_fills : pos_fills;
    return f[level < 6 ? level : 5];
}

typedef struct layout {
    uint64_t file_size;
    double strip_y;
} layout;

static double xoff(const layout *L, uint64_t off)
{
    if (L->file_size == 0)
        return LEFT;
    return LEFT + (double)off / (double)L->file_size * PLOT;
}

static bool is_data_kind(const char *k)
{
    return strcmp(k, "data block") == 0 || strcmp(k, "bloom block") == 0;
}

static const char *block_fill(const cf_file_info *in, const cf_svg_cblock *b)
{
    if (b->damaged)
        return FILL_DAMAGED;
    if (strcmp(b->kind, "data block") == 0)
        return enc_fill(in->encoding, b->dict_mode);
    if (strcmp(b->kind, "bloom block") == 0)
        return FILL_BLOOM;
    if (strcmp(b->kind, "dictionary block") == 0)
        return FILL_DICT;
    if (strcmp(b->kind, "positional index") == 0)
        return level_fill(false, b->index_level);
    if (strcmp(b->kind, "value index") == 0)
        return level_fill(true, b->index_level);
    return FILL_FRAME;
}

static void ratio_text(char *buf, size_t cap, uint64_t stored, uint64_t logical)
{
    if (logical == 0 || stored == 0)
        snprintf(buf, cap, "logical size unknown");
    else
        snprintf(buf, cap, "%.2fx (stored/logical %.0f%%)", (double)logical / (double)stored,
                 100.0 * (double)stored / (double)logical);
}

/* The tooltip of one block. */
static void block_tip(cf_svg *g, const cf_svg_cblock *b, size_t i)
{
    char st[32], lg[32], ratio[64];
    cf_svg_bytes(st, sizeof(st), b->size);
    cf_svg_bytes(lg, sizeof(lg), b->logical_size);
    ratio_text(ratio, sizeof(ratio), b->size, b->logical_size);
    cf_svg_tip(g, "block #%zu: %s", i, b->kind);
    if (!is_data_kind(b->kind) && strcmp(b->kind, "dictionary block") != 0)
        cf_svg_tip(g, " level %u (%s), %" PRIu32 " entries", b->index_level,
                   b->index_level == 0 ? "root" : "below the root", b->index_entries);
    cf_svg_tip(g,
               "\noffset %" PRIu64 " .. %" PRIu64 "\nstored %" PRIu32
               " bytes (%s), logical %" PRIu32 " bytes (%s)\ncompression %s",
               b->off, b->off + b->size, b->size, st, b->logical_size, lg, ratio);
    if (strcmp(b->kind, "data block") == 0)
        cf_svg_tip(g, "\nrows %" PRIu64 " .. %" PRIu64 " (%" PRIu64 " rows)", b->first_ord,
                   b->rows ? b->first_ord + b->rows - 1 : b->first_ord, b->rows);
    if (b->has_stats) {
        cf_svg_tip(g, "\nnulls %" PRIu64, b->nulls);
        if (b->min[0] != '\0')
            cf_svg_tip(g, "\nmin %s\nmax %s", b->min, b->max);
        if (b->has_distinct)
            cf_svg_tip(g, "\ndistinct %" PRIu64, b->distinct);
    }
    if (b->dict_mode != 0)
        cf_svg_tip(g, "\ndictionary mode: %s",
                   b->dict_mode == 1 ? "codewords" : "plain strings (dictionary full)");
    if (b->damaged)
        cf_svg_tip(g, "\nDAMAGED: %s", b->msg ? b->msg : "unreadable");
}

/* One bar of the strip: stored bytes in full colour from the bottom (height =
 * stored/logical of the strip), the rest pale; NULL share on top. */
static void bar(cf_svg *g, double x0, double x1, double y, const char *fill, uint64_t stored,
                uint64_t logical, uint64_t rows, uint64_t nulls, bool has_nulls)
{
    double w = x1 - x0;
    if (w < 0.5)
        w = 0.5;
    double frac = 1.0;
    if (logical > 0 && stored < logical)
        frac = (double)stored / (double)logical;
    /* The tooltip goes on the outer (full height) rect; the others are decoration. */
    cf_svg_rect_fill(g, x0, y, w, STRIP_H, fill, frac < 1.0 ? "blk lt" : "blk");
    if (frac < 1.0) {
        double h = STRIP_H * frac;
        cf_svg_rect_fill(g, x0, y + STRIP_H - h, w, h, fill, "in");
    }
    if (has_nulls && rows > 0 && nulls > 0)
        cf_svg_rect(g, x0, y, w * (double)nulls / (double)rows, 5, "nul");
}

/* ---- the trees ------------------------------------------------------------------------ */

typedef struct node {
    size_t blk;     /* index into the block list */
    long parent;    /* index into nodes, -1 for the root */
    unsigned level; /* clamped to MAX_LEVELS - 1 */
    size_t d0, d1;  /* data blocks covered [d0, d1) (indexes into the data list) */
    double x0, x1;
} node;

/* Rebuild one tree from verify's pre-order report and lay it out over the strip. */
static size_t build_tree(const cf_svg_cblock *b, size_t n, const char *kind, const size_t *data,
                         size_t ndata, const layout *L, node **out, unsigned *levels)
{
    *out = NULL;
    *levels = 0;
    size_t cnt = 0;
    for (size_t i = 0; i < n; i++)
        cnt += strcmp(b[i].kind, kind) == 0;
    if (cnt == 0)
        return 0;
    size_t *order = malloc(cnt * sizeof(*order));
    node *nd = calloc(cnt, sizeof(*nd));
    if (order == NULL || nd == NULL) {
        free(order);
        free(nd);
        return 0;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(b[i].kind, kind) == 0)
            order[k++] = i;
    /* Pre-order: sort by the order verify reported them. */
    for (size_t i = 1; i < cnt; i++) {
        size_t v = order[i], j = i;
        while (j > 0 && b[order[j - 1]].seq > b[v].seq) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    long last[MAX_LEVELS];
    for (int l = 0; l < MAX_LEVELS; l++)
        last[l] = -1;
    size_t m = 0;
    unsigned maxl = 0;
    for (size_t i = 0; i < cnt; i++) {
        const cf_svg_cblock *blk = &b[order[i]];
        /* A damaged tree reports its root again after the walk: keep the first. */
        bool dup = false;
        for (size_t j = 0; j < m && !dup; j++)
            dup = b[nd[j].blk].off == blk->off;
        if (dup)
            continue;
        unsigned lvl = blk->index_level < MAX_LEVELS ? blk->index_level : MAX_LEVELS - 1;
        nd[m].blk = order[i];
        nd[m].level = lvl;
        nd[m].parent = lvl > 0 ? last[lvl - 1] : -1;
        nd[m].d0 = nd[m].d1 = 0;
        last[lvl] = (long)m;
        for (unsigned l = lvl + 1; l < MAX_LEVELS; l++)
            last[l] = -1;
        if (lvl > maxl)
            maxl = lvl;
        m++;
    }
    free(order);
    /* Leaves (the deepest level) point at data blocks, in key order. */
    size_t next = 0;
    for (size_t i = 0; i < m; i++) {
        if (nd[i].level != maxl)
            continue;
        size_t e = b[nd[i].blk].index_entries;
        nd[i].d0 = next < ndata ? next : ndata;
        nd[i].d1 = ndata - nd[i].d0 < e ? ndata : nd[i].d0 + e;
        next = nd[i].d1;
    }
    /* Inner nodes cover their children's union: children follow their parent in
     * pre-order, so walking backwards finishes every child before its parent. */
    for (size_t i = m; i-- > 0;) {
        long p = nd[i].parent;
        if (p >= 0 && nd[i].d1 > nd[i].d0) {
            if (nd[p].d1 == nd[p].d0) {
                nd[p].d0 = nd[i].d0;
                nd[p].d1 = nd[i].d1;
            } else {
                if (nd[i].d0 < nd[p].d0)
                    nd[p].d0 = nd[i].d0;
                if (nd[i].d1 > nd[p].d1)
                    nd[p].d1 = nd[i].d1;
            }
        }
    }
    for (size_t i = 0; i < m; i++) {
        if (nd[i].d1 > nd[i].d0) {
            const cf_svg_cblock *f = &b[data[nd[i].d0]], *l = &b[data[nd[i].d1 - 1]];
            nd[i].x0 = xoff(L, f->off);
            nd[i].x1 = xoff(L, l->off + l->size);
        } else {
            /* Covers nothing we know of (damaged below): drawn where its bytes are. */
            const cf_svg_cblock *s = &b[nd[i].blk];
            nd[i].x0 = xoff(L, s->off);
            nd[i].x1 = xoff(L, s->off + s->size);
        }
    }
    *out = nd;
    *levels = maxl + 1;
    return m;
}

/* Draw a tree: rows of nodes, root at top_y (down) or bottom (up = mirrored). */
static void draw_tree(cf_svg *g, const cf_svg_cblock *b, const node *nd, size_t m, unsigned levels,
                      bool value_tree, double top_y, bool mirrored, const layout *L,
                      const size_t *data, bool bloom)
{
    const char *name = value_tree ? "value index" : "positional index";
    const char *lane = bloom ? "index" : value_tree ? "value" : "positional";
    /* Row y of level l. */
#define ROW_Y(l)                                                                                   \
    (mirrored ? top_y + (double)(levels - 1 - (l)) * LEVEL_H : top_y + (double)(l)*LEVEL_H)
    size_t *idx = malloc((m ? m : 1) * sizeof(*idx));
    double *x0 = malloc((m ? m : 1) * sizeof(*x0)), *x1 = malloc((m ? m : 1) * sizeof(*x1));
    size_t *bk = malloc((m ? m : 1) * sizeof(*bk));
    size_t *bucket_of = malloc((m ? m : 1) * sizeof(*bucket_of)); /* node -> bucket id */
    double *bcx = malloc((m ? m : 1) * sizeof(*bcx));             /* bucket centre x */
    if (idx == NULL || x0 == NULL || x1 == NULL || bk == NULL || bucket_of == NULL || bcx == NULL)
        goto out;
    size_t bid = 0;
    for (unsigned l = 0; l < levels; l++) {
        double y = ROW_Y(l) + (LEVEL_H - NODE_H) / 2;
        cf_svg_text(g, 10, y + 11, "start", "lab", "%s L%u%s", lane, l,
                    l == 0 && levels == 1 ? " root+leaf"
                    : l == 0              ? " root"
                    : l + 1 == levels     ? " leaves"
                                          : "");
        size_t k = 0;
        for (size_t i = 0; i < m; i++)
            if (nd[i].level == l)
                idx[k++] = i;
        /* In key order: by the data they cover, then by offset. */
        for (size_t i = 1; i < k; i++) {
            size_t v = idx[i], j = i;
            while (j > 0 && nd[idx[j - 1]].x0 > nd[v].x0) {
                idx[j] = idx[j - 1];
                j--;
            }
            idx[j] = v;
        }
        for (size_t i = 0; i < k; i++) {
            x0[i] = nd[idx[i]].x0;
            x1[i] = nd[idx[i]].x1;
        }
        size_t nb = cf_svg_buckets(x0, x1, k, MIN_PX, bk);
        for (size_t q = 0; q < nb; q++) {
            size_t s = bk[q], e = q + 1 < nb ? bk[q + 1] : k;
            double bx0 = x0[s], bx1 = x1[s];
            uint64_t stored = 0, logical = 0, entries = 0;
            bool damaged = false;
            for (size_t i = s; i < e; i++) {
                const cf_svg_cblock *blk = &b[nd[idx[i]].blk];
                bx0 = x0[i] < bx0 ? x0[i] : bx0;
                bx1 = x1[i] > bx1 ? x1[i] : bx1;
                stored += blk->size;
                logical += blk->logical_size;
                entries += blk->index_entries;
                damaged |= blk->damaged;
                bucket_of[idx[i]] = bid;
            }
            bcx[bid] = (bx0 + bx1) / 2;
            bid++;
            double w = bx1 - bx0 - (bx1 - bx0 > 3 ? 1 : 0);
            const cf_svg_cblock *first = &b[nd[idx[s]].blk];
            char sb[32];
            cf_svg_bytes(sb, sizeof(sb), stored);
            if (e - s == 1) {
                block_tip(g, first, nd[idx[s]].blk);
                if (bloom && nd[idx[s]].d1 > nd[idx[s]].d0)
                    cf_svg_tip(g, "\npoints at %zu bloom blocks, offset %" PRIu64 " .. %" PRIu64,
                               nd[idx[s]].d1 - nd[idx[s]].d0, b[data[nd[idx[s]].d0]].off,
                               b[data[nd[idx[s]].d1 - 1]].off + b[data[nd[idx[s]].d1 - 1]].size);
                else if (nd[idx[s]].d1 > nd[idx[s]].d0)
                    cf_svg_tip(g, "\npoints at data blocks covering rows %" PRIu64 " .. %" PRIu64,
                               b[data[nd[idx[s]].d0]].first_ord,
                               b[data[nd[idx[s]].d1 - 1]].first_ord +
                                   b[data[nd[idx[s]].d1 - 1]].rows -
                                   (b[data[nd[idx[s]].d1 - 1]].rows ? 1 : 0));
            } else {
                cf_svg_tip(g,
                           "%zu %s blocks at level %u (too narrow to draw one by one)\n"
                           "%" PRIu64 " entries, %s stored (%" PRIu64 " bytes), %" PRIu64
                           " bytes logical",
                           e - s, name, l, entries, sb, stored, logical);
            }
            cf_svg_rect_fill(g, bx0, y, w < 0.8 ? 0.8 : w, NODE_H,
                             damaged ? FILL_DAMAGED : level_fill(value_tree, l), "node");
            if (w > 70 && e - s == 1)
                cf_svg_text(g, bx0 + w / 2, y + 11, "middle", "nt", "%" PRIu32 " entries",
                            first->index_entries);
            else if (w > 40 && e - s > 1)
                cf_svg_text(g, bx0 + w / 2, y + 11, "middle", "nt", "%zu nodes", e - s);
        }
    }
    /* Lines from each bucket to its parent's bucket (one per bucket). */
    for (size_t i = 0; i < m; i++) {
        long p = nd[i].parent;
        if (p < 0)
            continue;
        if (i > 0 && bucket_of[i] == bucket_of[i - 1] && nd[i - 1].parent >= 0 &&
            bucket_of[nd[i - 1].parent] == bucket_of[p])
            continue; /* same pair as the previous node: drawn already */
        double py = ROW_Y(nd[p].level) + (LEVEL_H - NODE_H) / 2 + (mirrored ? 0 : NODE_H);
        double cy = ROW_Y(nd[i].level) + (LEVEL_H - NODE_H) / 2 + (mirrored ? NODE_H : 0);
        cf_svg_line(g, bcx[bucket_of[p]], py, bcx[bucket_of[i]], cy, "edge");
    }
    /* Curtains from each leaf bucket to the strip: what each leaf points at. */
    unsigned leaf = levels - 1;
    double ly = ROW_Y(leaf) + (LEVEL_H - NODE_H) / 2;
    double from = mirrored ? L->strip_y + STRIP_H + 22 : ly + NODE_H;
    double to = mirrored ? ly : L->strip_y;
    size_t shade = 0;
    long prev = -1;
    for (size_t i = 0; i < m; i++) {
        if (nd[i].level != leaf || nd[i].d1 <= nd[i].d0)
            continue;
        if (prev >= 0 && bucket_of[i] == (size_t)prev)
            continue;
        prev = (long)bucket_of[i];
        double cx0 = nd[i].x0, cx1 = nd[i].x1;
        for (size_t j = i + 1; j < m; j++)
            if (nd[j].level == leaf && bucket_of[j] == bucket_of[i] && nd[j].d1 > nd[j].d0)
                cx1 = nd[j].x1 > cx1 ? nd[j].x1 : cx1;
        double q[8] = {cx0, from, cx1, from, cx1, to, cx0, to};
        cf_svg_quad(g, q, shade++ % 2 ? "cur cur2" : "cur");
    }
    /* Where the root's own bytes are: a dashed line down to its block. */
    for (size_t i = 0; i < m; i++) {
        if (nd[i].level != 0)
            continue;
        const cf_svg_cblock *rb = &b[nd[i].blk];
        double ry = ROW_Y(0) + (LEVEL_H - NODE_H) / 2 + (mirrored ? NODE_H : 0);
        double rx = nd[i].x1 - 2;
        double tx = xoff(L, rb->off) + 1;
        double ty = mirrored ? L->strip_y + STRIP_H : L->strip_y;
        cf_svg_tip(g, "the %s root's own bytes: offset %" PRIu64 ", %" PRIu32 " bytes", name,
                   rb->off, rb->size);
        cf_svg_line(g, rx, ry, tx, ty, "loc");
        break;
    }
#undef ROW_Y
out:
    free(idx);
    free(x0);
    free(x1);
    free(bk);
    free(bucket_of);
    free(bcx);
}

/* ---- the strip -------------------------------------------------------------------------- */

/* Items of the strip: the blocks and the bytes between them (header, footer, gaps). */
typedef struct item {
    uint64_t off, size;
    long blk; /* -1: framing */
    const char *what;
} item;

static void draw_axis(cf_svg *g, const layout *L, double y)
{
    cf_svg_byte_axis(g, LEFT, PLOT, y, L->file_size);
}

cf_status cf_svg_cfile(const char *out_path, FILE *std, const char *file_path, const cf_reader *r,
                       const char *kind, const cf_svg_cblock *b, size_t n, cf_error *err)
{
    const cf_file_info *in = cf_reader_info(r);
    cf_svg g;
    cf_svg_init(&g, WIDTH);
    cf_status st = CF_OK;
    size_t *data = malloc((n ? n : 1) * sizeof(*data));
    item *it = malloc((2 * n + 2) * sizeof(*it));
    double *x0 = malloc((2 * n + 2) * sizeof(*x0)), *x1 = malloc((2 * n + 2) * sizeof(*x1));
    size_t *bk = malloc((2 * n + 2) * sizeof(*bk));
    node *pos = NULL, *val = NULL;
    if (data == NULL || it == NULL || x0 == NULL || x1 == NULL || bk == NULL) {
        st = CF_ENOMEM;
        goto out;
    }
    layout L = {in->file_size, 0};
    bool bloom = strcmp(kind, "BloomFile") == 0;
    size_t ndata = 0;
    for (size_t i = 0; i < n; i++)
        if (is_data_kind(b[i].kind))
            data[ndata++] = i;

    /* CSS for the shapes. */
    cf_svg_css(&g, ".blk{stroke:#fff;stroke-width:.4}\n.lt{fill-opacity:.32}\n"
                   ".in{stroke:none}\n.nul{fill:#e377c2}\n.frm{fill:" FILL_FRAME "}\n"
                   ".gap{fill:#fff;stroke:#d62728;stroke-dasharray:2,2}\n"
                   ".node{stroke:#fff;stroke-width:.5}\n.nt{font-size:9px;fill:#fff}\n"
                   ".edge{stroke:#555;stroke-width:.7;stroke-opacity:.7}\n"
                   ".cur{fill:#34466e;fill-opacity:.07}\n.cur2{fill-opacity:.16}\n"
                   ".loc{stroke:#333;stroke-width:1;stroke-dasharray:4,3;fill:none}\n"
                   ".sbg{fill:#f4f4f4}\n.ixb{fill:#1f2a44}");

    /* Title. */
    cf_svg_text_bytes(&g, 12, 22, "start", "ttl", file_path, strlen(file_path), 120);
    char fsz[32];
    cf_svg_bytes(fsz, sizeof(fsz), in->file_size);
    if (bloom)
        cf_svg_text(&g, 12, 40, "start", "sub",
                    "BloomFile v%d \u00b7 %zu bloom blocks under a value index keyed by each "
                    "block's first key \u00b7 %zu index blocks \u00b7 %" PRIu64 " bytes (%s)",
                    in->format_version, ndata, n - ndata, in->file_size, fsz);
    else
        cf_svg_text(&g, 12, 40, "start", "sub",
                    "%s v%d \u00b7 %s%s%s \u00b7 %s \u00b7 %s \u00b7 %" PRIu64
                    " rows \u00b7 %zu blocks (%zu data) \u00b7 %" PRIu64 " bytes (%s)",
                    kind, in->format_version, cf_cli_type_name(in->type),
                    in->is_array ? " array" : "", in->nullable ? " nullable" : "",
                    cf_cli_encoding_name(in->encoding), cf_cli_compression_name(in->compression),
                    in->num_values, n, ndata, in->file_size, fsz);

    unsigned plev = 0, vlev = 0;
    size_t npos = build_tree(b, n, "positional index", data, ndata, &L, &pos, &plev);
    size_t nval = build_tree(b, n, "value index", data, ndata, &L, &val, &vlev);
    double y = 58;
    double pos_top = y;
    if (npos > 0)
        y += (double)plev * LEVEL_H + 14;
    else if (bloom && nval > 0)
        y += (double)vlev * LEVEL_H + 14; /* a BloomFile's index goes above */
    L.strip_y = y + 14;
    double strip_lab_y = y + 8;
    y = L.strip_y + STRIP_H;
    double axis_y = y + 2;
    y += 24;
    double val_top = y + 8;
    if (nval > 0 && !bloom)
        y = val_top + (double)vlev * LEVEL_H + 6;

    /* The strip: blocks and the bytes around them, by offset. */
    (void)strip_lab_y;
    cf_svg_text(&g, 10, L.strip_y + STRIP_H / 2 - 2, "start", "lab", "file by offset");
    cf_svg_text(&g, 10, L.strip_y + STRIP_H / 2 + 12, "start", "ax", "width = stored bytes");
    cf_svg_rect(&g, LEFT, L.strip_y, PLOT, STRIP_H, "sbg");
    size_t ni = 0;
    uint64_t at = 0;
    for (size_t i = 0; i <= n; i++) {
        uint64_t off = i < n ? b[i].off : in->file_size;
        if (off > at) {
            it[ni].off = at;
            it[ni].size = off - at;
            it[ni].blk = -1;
            it[ni].what = at == 0 ? "header" : i == n ? "footer" : "gap";
            ni++;
        }
        if (i == n)
            break;
        it[ni].off = b[i].off;
        it[ni].size = b[i].size;
        it[ni].blk = (long)i;
        it[ni].what = b[i].kind;
        ni++;
        if (b[i].off + b[i].size > at)
            at = b[i].off + b[i].size;
    }
    for (size_t i = 0; i < ni; i++) {
        x0[i] = xoff(&L, it[i].off);
        x1[i] = xoff(&L, it[i].off + it[i].size);
    }
    size_t nb = cf_svg_buckets(x0, x1, ni, MIN_PX, bk);
    bool any_ixb = false;
    for (size_t q = 0; q < nb; q++) {
        size_t s = bk[q], e = q + 1 < nb ? bk[q + 1] : ni;
        if (e - s == 1 && it[s].blk < 0) {
            char sz[32];
            cf_svg_bytes(sz, sizeof(sz), it[s].size);
            if (strcmp(it[s].what, "gap") == 0)
                cf_svg_tip(&g, "%" PRIu64 " bytes at offset %" PRIu64 " that no block accounts for",
                           it[s].size, it[s].off);
            else
                cf_svg_tip(&g, "%s: offset %" PRIu64 " .. %" PRIu64 ", %" PRIu64 " bytes (%s)%s",
                           it[s].what, it[s].off, it[s].off + it[s].size, it[s].size, sz,
                           strcmp(it[s].what, "header") == 0
                               ? "\nmagic, header length, header protobuf"
                               : "\nfooter protobuf, its length and the magic");
            double w = x1[s] - x0[s];
            cf_svg_rect(&g, x0[s], L.strip_y, w < 0.5 ? 0.5 : w, STRIP_H,
                        strcmp(it[s].what, "gap") == 0 ? "gap" : "frm blk");
            continue;
        }
        if (e - s == 1) {
            const cf_svg_cblock *blk = &b[it[s].blk];
            block_tip(&g, blk, (size_t)it[s].blk);
            bar(&g, x0[s], x1[s], L.strip_y, block_fill(in, blk), blk->size, blk->logical_size,
                blk->rows, blk->nulls, blk->has_stats);
            if (blk->damaged)
                cf_svg_line(&g, x0[s], L.strip_y, x1[s], L.strip_y + STRIP_H, "edge");
            continue;
        }
        /* A bucket of narrow items: drawn in the colour of the most bytes. */
        uint64_t stored = 0, logical = 0, rows = 0, nulls = 0, first_row = UINT64_MAX, last_row = 0,
                 best = 0;
        size_t ndat = 0, nidx = 0, nframe = 0, ndmg = 0, best_i = s;
        bool stats = false;
        for (size_t i = s; i < e; i++) {
            if (it[i].blk < 0) {
                nframe++;
                continue;
            }
            const cf_svg_cblock *blk = &b[it[i].blk];
            stored += blk->size;
            logical += blk->logical_size ? blk->logical_size : blk->size;
            if (is_data_kind(blk->kind)) {
                ndat++;
                rows += blk->rows;
                if (blk->first_ord < first_row)
                    first_row = blk->first_ord;
                if (blk->first_ord + blk->rows > last_row)
                    last_row = blk->first_ord + blk->rows;
                if (blk->has_stats) {
                    stats = true;
                    nulls += blk->nulls;
                }
            } else {
                nidx++;
            }
            ndmg += blk->damaged;
            if (blk->size > best) {
                best = blk->size;
                best_i = i;
            }
        }
        const char *fill = it[best_i].blk >= 0 ? block_fill(in, &b[it[best_i].blk]) : FILL_FRAME;
        if (ndmg > 0)
            fill = FILL_DAMAGED;
        char sb[32], lb[32], ratio[64];
        cf_svg_bytes(sb, sizeof(sb), stored);
        cf_svg_bytes(lb, sizeof(lb), logical);
        ratio_text(ratio, sizeof(ratio), stored, logical);
        uint64_t end = it[e - 1].off + it[e - 1].size;
        cf_svg_tip(
            &g,
            "%zu blocks merged (each narrower than %.0f px): %zu data, %zu index/dictionary%s"
            "\nblocks #%ld .. #%ld, offset %" PRIu64 " .. %" PRIu64 "\nstored %" PRIu64
            " bytes (%s), logical %" PRIu64 " bytes (%s)\ncompression %s",
            e - s - nframe, MIN_PX, ndat, nidx, nframe ? ", plus header/footer bytes" : "",
            it[s].blk >= 0 ? it[s].blk : (e - s > 1 ? it[s + 1].blk : 0),
            it[e - 1].blk >= 0 ? it[e - 1].blk : it[e - 2].blk, it[s].off, end, stored, sb, logical,
            lb, ratio);
        if (ndat > 0 && !bloom)
            cf_svg_tip(&g, "\nrows %" PRIu64 " .. %" PRIu64 " (%" PRIu64 " rows)", first_row,
                       last_row ? last_row - 1 : 0, rows);
        if (stats)
            cf_svg_tip(&g, "\nnulls %" PRIu64, nulls);
        if (ndmg)
            cf_svg_tip(&g, "\n%zu DAMAGED", ndmg);
        bar(&g, x0[s], x1[e - 1], L.strip_y, fill, stored, logical, rows, nulls, stats);
        /* Index blocks hidden among data blocks: their share as a band at the foot. */
        if (nidx > 0 && ndat > 0) {
            any_ixb = true;
            uint64_t ib = 0;
            for (size_t i = s; i < e; i++)
                if (it[i].blk >= 0 && !is_data_kind(b[it[i].blk].kind))
                    ib += b[it[i].blk].size;
            double w = (x1[e - 1] - x0[s]) * (double)ib / (double)(stored ? stored : 1);
            cf_svg_rect(&g, x0[s], L.strip_y + STRIP_H - 5, w < 0.5 ? 0.5 : w, 5, "ixb");
        }
    }
    draw_axis(&g, &L, axis_y);

    if (npos > 0)
        draw_tree(&g, b, pos, npos, plev, false, pos_top, false, &L, data, false);
    if (nval > 0 && bloom)
        draw_tree(&g, b, val, nval, vlev, true, pos_top, false, &L, data, true);
    else if (nval > 0)
        draw_tree(&g, b, val, nval, vlev, true, val_top, true, &L, data, false);

    /* Legend: what each colour means, then totals. */
    y += 22;
    double lx = 12;
    cf_svg_text(&g, lx, y, "start", "lab", "legend");
    y += 18;
    char lab[96];
    snprintf(lab, sizeof(lab), "data block (%s)", cf_cli_encoding_name(in->encoding));
    bool any_plain = false, any_dmg = false, any_nulls = false, any_comp = false;
    bool any_bloom = false;
    for (size_t i = 0; i < n; i++) {
        any_plain |= b[i].dict_mode == 2;
        any_dmg |= b[i].damaged;
        any_nulls |= b[i].has_stats && b[i].nulls > 0;
        any_comp |= b[i].logical_size > 0 && b[i].size < b[i].logical_size;
        any_bloom |= strcmp(b[i].kind, "bloom block") == 0;
    }
    lx = cf_svg_legend(&g, lx, y, NULL, FILL_FRAME, "header / footer");
    if (!bloom)
        lx = cf_svg_legend(&g, lx, y, NULL, enc_fill(in->encoding, 1),
                           in->encoding == CF_ENC_DICT ? "data block (DICT codewords)" : lab);
    if (any_plain)
        lx = cf_svg_legend(&g, lx, y, NULL, enc_fill(CF_ENC_DICT, 2),
                           "data block (DICT fallback: plain strings)");
    if (any_bloom)
        lx = cf_svg_legend(&g, lx, y, NULL, FILL_BLOOM, "bloom block");
    if (in->has_dict_block)
        lx = cf_svg_legend(&g, lx, y, NULL, FILL_DICT, "dictionary block");
    if (any_dmg)
        lx = cf_svg_legend(&g, lx, y, NULL, FILL_DAMAGED, "damaged");
    y += 20;
    lx = 12;
    for (unsigned l = 0; l < plev && l < 6; l++) {
        snprintf(lab, sizeof(lab), "positional index L%u", l);
        lx = cf_svg_legend(&g, lx, y, NULL, level_fill(false, l), lab);
    }
    for (unsigned l = 0; l < vlev && l < 6; l++) {
        snprintf(lab, sizeof(lab), "%s L%u", bloom ? "index" : "value index", l);
        lx = cf_svg_legend(&g, lx, y, NULL, level_fill(true, l), lab);
    }
    if (plev > 0 || vlev > 0)
        y += 20;
    lx = 12;
    if (any_comp)
        lx = cf_svg_legend(&g, lx, y, "lt", bloom ? FILL_BLOOM : enc_fill(in->encoding, 1),
                           "pale: logical bytes saved by compression");
    if (any_ixb)
        lx = cf_svg_legend(&g, lx, y, "ixb", NULL, "foot band: index bytes among merged blocks");
    if (in->nullable)
        lx = cf_svg_legend(&g, lx, y, "nul", NULL,
                           any_nulls ? "NULL share of the block's rows" : "nullable (no NULLs)");
    if (lx > 12)
        y += 20;
    cf_svg_text(&g, 12, y, "start", "lg", "%s",
                bloom ? "bar width = stored bytes at its offset; hover any shape for offsets and "
                        "sizes, an index node for the bloom blocks it points at"
                      : "bar width = stored bytes at its offset; hover any shape for offsets, "
                        "sizes, rows and statistics");
    y += 24;

    /* Totals per kind. */
    static const char *const kinds[] = {"data block", "bloom block", "dictionary block",
                                        "positional index", "value index"};
    static const char *const plural[] = {"data blocks", "bloom blocks", "dictionary blocks",
                                         "positional index blocks", "value index blocks"};
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        uint64_t cnt = 0, stored = 0, logical = 0, rows = 0;
        for (size_t i = 0; i < n; i++) {
            if (strcmp(b[i].kind, kinds[k]) != 0)
                continue;
            cnt++;
            stored += b[i].size;
            logical += b[i].logical_size;
            rows += b[i].rows;
        }
        if (cnt == 0)
            continue;
        char sb[32], lb[32];
        cf_svg_bytes(sb, sizeof(sb), stored);
        cf_svg_bytes(lb, sizeof(lb), logical);
        char rw[48] = "";
        if (strcmp(kinds[k], "data block") == 0)
            snprintf(rw, sizeof(rw), ", %" PRIu64 " rows", rows);
        cf_svg_text(&g, 12, y, "start", "lg",
                    "%s: %" PRIu64 ", %s stored, %s logical%s, %.1f%% of the file", plural[k], cnt,
                    sb, lb, rw,
                    in->file_size ? 100.0 * (double)stored / (double)in->file_size : 0.0);
        y += 16;
    }
    y += 8;

    char title[160];
    snprintf(title, sizeof(title), "layout of a %s", kind);
    st = cf_svg_finish(&g, y, title, out_path, std, err);
out:
    if (st == CF_ENOMEM && err != NULL) {
        err->code = CF_ENOMEM;
        snprintf(err->msg, sizeof(err->msg), "out of memory drawing the picture");
    }
    free(pos);
    free(val);
    free(data);
    free(it);
    free(x0);
    free(x1);
    free(bk);
    cf_svg_dispose(&g);
    return st;
}

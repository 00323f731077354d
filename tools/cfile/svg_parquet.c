/* `cfile parquet meta FILE --svg OUT` (and `cfile info FILE.parquet --svg OUT`):
 * a Parquet file's layout as a picture, every lane on one byte axis.
 *
 *   title and summary line
 *   row groups      each row group's byte span (from its first chunk to the end
 *                   of its last), labelled with its index and rows
 *   column chunks   each chunk at its offset, coloured by column (the legend
 *                   names them); curtains join each chunk to its pages
 *   pages           every page: its header (dark foot) and body, coloured by
 *                   page type and encoding, the pale part what the codec saved;
 *                   the page index (column and offset index), bloom filters and
 *                   the footer where they lie; bytes nothing accounts for hatched
 *   the offset axis, legend and totals
 *   a row group x column grid: each cell a chunk, its shade its compressed size,
 *   its tooltip its codec, encodings, sizes and values
 *
 * Bounded: lanes merge items narrower than a few pixels; the grid shows at most
 * GRID_MAX_COLS columns and GRID_MAX_RGS row groups (the rest is counted).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cfile/parquet.h>

#include "svg.h"

#define WIDTH 1280.0
#define LEFT 130.0
#define RIGHT 24.0
#define PLOT (WIDTH - LEFT - RIGHT)
#define LANE_H 22.0
#define PAGE_H 60.0
#define MIN_PX 3.0
#define GRID_MAX_COLS 64
#define GRID_MAX_RGS 48
#define MAX_PAGES 250000 /* pages drawn (memory stays ~25 MB); past it, left out */

/* Column colours (cycled), distinct from the page colours' meaning. */
static const char *const col_fills[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759",
                                        "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
                                        "#9c755f", "#bab0ac", "#17becf", "#8c564b"};
#define NCOLFILL (sizeof(col_fills) / sizeof(col_fills[0]))

#define FILL_DICT "#edc948"
#define FILL_V1 "#4e79a7"
#define FILL_V2 "#17a2b8"
#define FILL_RLE_DICT "#f28e2b"
#define FILL_DELTA "#59a14f"
#define FILL_INDEXPAGE "#9c755f"
#define FILL_COLIDX "#7a45a6"
#define FILL_OFFIDX "#b78ad8"
#define FILL_BLOOM "#ff9da7"
#define FILL_FRAME "#9d9d9d"
#define FILL_RG_A "#34466e"
#define FILL_RG_B "#6880b5"

typedef struct pq_page {
    uint64_t off;
    uint32_t header_len;
    int32_t type, encoding, compressed, uncompressed, num_values;
    uint32_t rg, col;
} pq_page;

typedef struct region {
    uint64_t off, size;
    const char *what; /* "column index", "offset index", "bloom filter", "footer", ... */
    uint32_t rg, col;
    bool per_chunk;
} region;

typedef struct pq_ctx {
    const cf_parquet *pq;
    const cf_parquet_file_meta *m;
    pq_page *pages;
    size_t npages, cap;
    region *regs;
    size_t nregs, rcap;
    cf_svg_item *items;
    const void **ref;   /* items[i]'s page or region or chunk */
    unsigned char *tag; /* pages lane: 0 gap, 1 page, 2 region */
    uint64_t file_size;
} pq_ctx;

static double xoff(const pq_ctx *c, uint64_t off)
{
    return LEFT + (c->file_size ? (double)off / (double)c->file_size * PLOT : 0);
}

static const char *page_fill(const pq_page *p)
{
    switch (p->type) {
    case CF_PARQUET_DICTIONARY_PAGE: return FILL_DICT;
    case CF_PARQUET_INDEX_PAGE: return FILL_INDEXPAGE;
    default: break;
    }
    if (p->encoding == CF_PARQUET_RLE_DICTIONARY || p->encoding == CF_PARQUET_PLAIN_DICTIONARY)
        return FILL_RLE_DICT;
    if (p->encoding == CF_PARQUET_DELTA_BINARY_PACKED ||
        p->encoding == CF_PARQUET_DELTA_LENGTH_BYTE_ARRAY ||
        p->encoding == CF_PARQUET_DELTA_BYTE_ARRAY || p->encoding == CF_PARQUET_BYTE_STREAM_SPLIT)
        return FILL_DELTA;
    return p->type == CF_PARQUET_DATA_PAGE_V2 ? FILL_V2 : FILL_V1;
}

static const char *name_or(const char *n, const char *dflt)
{
    return n ? n : dflt;
}

/* "a.b.c" for a column path into the tooltip. */
static void tip_path(cf_svg *g, const cf_parquet *pq, uint32_t col)
{
    if (col >= cf_parquet_column_count(pq))
        return;
    const cf_parquet_column *cd = cf_parquet_column_at(pq, col);
    for (uint32_t k = 0; k < cd->path_len; k++) {
        if (k)
            cf_svg_tip(g, ".");
        cf_svg_tip_bytes(g, cd->path[k].data, cd->path[k].len);
    }
}

/* Where a chunk's bytes start: its dictionary page when it has one. */
static uint64_t chunk_start(const cf_parquet_column_meta *m)
{
    if (m->has_dictionary_page_offset && m->dictionary_page_offset > 0 &&
        m->dictionary_page_offset < m->data_page_offset)
        return (uint64_t)m->dictionary_page_offset;
    return m->data_page_offset > 0 ? (uint64_t)m->data_page_offset : 0;
}

static uint64_t chunk_size(const cf_parquet_column_meta *m)
{
    return m->total_compressed_size > 0 ? (uint64_t)m->total_compressed_size : 0;
}

static bool add_region(pq_ctx *c, uint64_t off, uint64_t size, const char *what, uint32_t rg,
                       uint32_t col, bool per_chunk)
{
    if (off >= c->file_size)
        return true; /* pointing outside the file: not drawn (meta shows the number) */
    if (size > c->file_size - off)
        size = c->file_size - off;
    if (c->nregs == c->rcap) {
        size_t cap = c->rcap ? c->rcap * 2 : 64;
        region *v = realloc(c->regs, cap * sizeof(*v));
        if (v == NULL)
            return false;
        c->regs = v;
        c->rcap = cap;
    }
    c->regs[c->nregs++] = (region){off, size, what, rg, col, per_chunk};
    return true;
}

static cf_status walk_pages(pq_ctx *c, cf_status *damage, cf_error *derr, bool *truncated)
{
    const cf_parquet_file_meta *m = c->m;
    uint32_t ncol = cf_parquet_column_count(c->pq);
    for (uint32_t g = 0; g < m->row_group_count; g++) {
        for (uint32_t col = 0; col < ncol && col < m->row_groups[g].column_count; col++) {
            cf_parquet_pages *it = NULL;
            cf_error e = {0};
            cf_parquet_pages_options po;
            cf_parquet_pages_options_init(&po);
            po.verify_crc = false; /* a picture of the layout, damaged or not */
            cf_status st = cf_parquet_pages_open(&it, c->pq, g, col, &po, &e);
            bool has = false;
            while (st == CF_OK) {
                cf_parquet_page p;
                st = cf_parquet_pages_next(it, &p, &has, &e);
                if (st != CF_OK || !has)
                    break;
                if (c->npages >= MAX_PAGES) {
                    *truncated = true;
                    break;
                }
                if (c->npages == c->cap) {
                    size_t cap = c->cap ? c->cap * 2 : 256;
                    pq_page *v = realloc(c->pages, cap * sizeof(*v));
                    if (v == NULL) {
                        cf_parquet_pages_free(it);
                        return CF_ENOMEM;
                    }
                    c->pages = v;
                    c->cap = cap;
                }
                c->pages[c->npages++] = (pq_page){p.offset,
                                                  p.header_len,
                                                  p.type,
                                                  p.encoding,
                                                  p.compressed_size,
                                                  p.uncompressed_size,
                                                  p.num_values,
                                                  g,
                                                  col};
            }
            cf_parquet_pages_free(it);
            if (st == CF_ENOMEM)
                return st;
            if (st != CF_OK && *damage == CF_OK) {
                *damage = st;
                *derr = e;
            }
        }
    }
    return CF_OK;
}

static int by_off(const void *a, const void *b)
{
    const pq_page *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

static int reg_by_off(const void *a, const void *b)
{
    const region *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* ---- tooltips --------------------------------------------------------------------------- */

static void page_tip(cf_svg *g, void *ctx, size_t i)
{
    pq_ctx *c = ctx;
    const void *r = c->ref[i];
    if (c->tag[i] == 0) {
        cf_svg_tip(g,
                   "%" PRIu64 " bytes at offset %" PRIu64 " that no page, index or footer "
                   "accounts for",
                   c->items[i].size, c->items[i].off);
        return;
    }
    if (c->tag[i] == 2) {
        const region *rg = r;
        cf_svg_tip(g, "%s\noffset %" PRIu64 " .. %" PRIu64 ", %" PRIu64 " bytes", rg->what, rg->off,
                   rg->off + rg->size, rg->size);
        if (rg->per_chunk) {
            cf_svg_tip(g, "\nrow group %" PRIu32 ", column %" PRIu32 " ", rg->rg, rg->col);
            tip_path(g, c->pq, rg->col);
        }
        return;
    }
    const pq_page *p = r;
    cf_svg_tip(g, "%s page, %s", name_or(cf_parquet_page_type_name(p->type), "UNKNOWN"),
               p->encoding >= 0 ? name_or(cf_parquet_encoding_name(p->encoding), "UNKNOWN")
                                : "no encoding");
    cf_svg_tip(g, "\nrow group %" PRIu32 ", column %" PRIu32 " ", p->rg, p->col);
    tip_path(g, c->pq, p->col);
    cf_svg_tip(g,
               "\noffset %" PRIu64 " .. %" PRIu64 " (header %" PRIu32 " bytes)\ncompressed %" PRId32
               " bytes, uncompressed %" PRId32 " bytes\nvalues %" PRId32,
               p->off, p->off + p->header_len + (uint64_t)(p->compressed > 0 ? p->compressed : 0),
               p->header_len, p->compressed, p->uncompressed, p->num_values);
}

static void chunk_tip(cf_svg *g, void *ctx, size_t i)
{
    pq_ctx *c = ctx;
    const cf_parquet_column_chunk *cc = c->ref[i];
    const cf_parquet_column_meta *m = &cc->meta;
    /* Which row group and column: found by pointer. */
    uint32_t rg = 0, col = 0;
    for (uint32_t k = 0; k < c->m->row_group_count; k++) {
        const cf_parquet_row_group *r = &c->m->row_groups[k];
        if (cc >= r->columns && cc < r->columns + r->column_count) {
            rg = k;
            col = (uint32_t)(cc - r->columns);
        }
    }
    cf_svg_tip(g, "column chunk: row group %" PRIu32 ", column %" PRIu32 " ", rg, col);
    tip_path(g, c->pq, col);
    cf_svg_tip(g, "\n%s, %s", name_or(cf_parquet_type_name(m->type), "UNKNOWN"),
               name_or(cf_parquet_codec_name(m->codec), "UNKNOWN"));
    cf_svg_tip(g, "\nencodings:");
    for (uint32_t k = 0; k < m->encoding_count; k++)
        cf_svg_tip(g, " %s", name_or(cf_parquet_encoding_name(m->encodings[k]), "UNKNOWN"));
    uint64_t s = chunk_start(m);
    cf_svg_tip(g,
               "\noffset %" PRIu64 " .. %" PRIu64 "\ncompressed %" PRId64
               " bytes, uncompressed %" PRId64 " bytes\nvalues %" PRId64,
               s, s + chunk_size(m), m->total_compressed_size, m->total_uncompressed_size,
               m->num_values);
    if (m->has_dictionary_page_offset)
        cf_svg_tip(g, "\ndictionary page at %" PRId64, m->dictionary_page_offset);
    cf_svg_tip(g, "\nfirst data page at %" PRId64, m->data_page_offset);
    if (cc->has_column_index)
        cf_svg_tip(g, "\ncolumn index at %" PRId64 " (%" PRId32 " bytes)", cc->column_index_offset,
                   cc->column_index_length);
    if (cc->has_offset_index)
        cf_svg_tip(g, "\noffset index at %" PRId64 " (%" PRId32 " bytes)", cc->offset_index_offset,
                   cc->offset_index_length);
    if (m->has_bloom_filter_offset)
        cf_svg_tip(g, "\nbloom filter at %" PRId64, m->bloom_filter_offset);
    if (m->has_statistics && m->statistics.has_null_count)
        cf_svg_tip(g, "\nnulls %" PRId64, m->statistics.null_count);
}

static void rg_tip(cf_svg *g, void *ctx, size_t i)
{
    pq_ctx *c = ctx;
    const cf_parquet_row_group *r = c->ref[i];
    size_t k = (size_t)(r - c->m->row_groups);
    char sb[32];
    cf_svg_bytes(sb, sizeof(sb), c->items[i].size);
    cf_svg_tip(g,
               "row group %zu: %" PRId64 " rows, %" PRIu32 " column chunks\noffset %" PRIu64
               " .. %" PRIu64 " (%s)\ntotal_byte_size (uncompressed) %" PRId64,
               k, r->num_rows, r->column_count, c->items[i].off, c->items[i].off + c->items[i].size,
               sb, r->total_byte_size);
}

/* ---- the picture ------------------------------------------------------------------------ */

static void curtain_lane(cf_svg *g, const pq_ctx *c, const cf_svg_item *it, size_t n, double y0,
                         double y1)
{
    /* One curtain per visible run, as the lane merges them. */
    double last = -1;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        double a = xoff(c, it[i].off), b = xoff(c, it[i].off + it[i].size);
        if (b - a < MIN_PX && a < last + MIN_PX)
            continue;
        last = b;
        double q[8] = {a, y0, b, y0, b, y1, a, y1};
        cf_svg_quad(g, q, k++ % 2 ? "cur cur2" : "cur");
    }
}

static void axis(cf_svg *g, const pq_ctx *c, double y)
{
    cf_svg_byte_axis(g, LEFT, PLOT, y, c->file_size);
}

cf_status cf_svg_parquet(const char *out_path, FILE *std, const char *file_path,
                         const cf_parquet *pq, cf_status *damage, cf_error *damage_err,
                         cf_error *err)
{
    const cf_parquet_file_meta *m = cf_parquet_meta(pq);
    pq_ctx c = {0};
    c.pq = pq;
    c.m = m;
    c.file_size = cf_parquet_file_size(pq);
    *damage = CF_OK;
    bool truncated = false;
    cf_svg g;
    cf_svg_init(&g, WIDTH);
    cf_status st = walk_pages(&c, damage, damage_err, &truncated);
    uint32_t ncol = cf_parquet_column_count(pq);
    size_t nchunks = 0;
    for (uint32_t k = 0; k < m->row_group_count; k++)
        nchunks += m->row_groups[k].column_count;
    /* Regions besides the pages: magic, page index, bloom filters, footer. */
    uint32_t flen = cf_parquet_footer_len(pq);
    bool ok = st == CF_OK && add_region(&c, 0, 4, "magic \"PAR1\"", 0, 0, false);
    for (uint32_t k = 0; ok && k < m->row_group_count; k++) {
        const cf_parquet_row_group *r = &m->row_groups[k];
        for (uint32_t j = 0; ok && j < r->column_count; j++) {
            const cf_parquet_column_chunk *cc = &r->columns[j];
            if (cc->has_column_index && cc->column_index_offset >= 0 && cc->column_index_length > 0)
                ok = add_region(&c, (uint64_t)cc->column_index_offset,
                                (uint64_t)cc->column_index_length, "column index (page index)", k,
                                j, true);
            if (ok && cc->has_offset_index && cc->offset_index_offset >= 0 &&
                cc->offset_index_length > 0)
                ok = add_region(&c, (uint64_t)cc->offset_index_offset,
                                (uint64_t)cc->offset_index_length, "offset index (page index)", k,
                                j, true);
            if (ok && cc->meta.has_bloom_filter_offset && cc->meta.bloom_filter_offset >= 0)
                ok = add_region(&c, (uint64_t)cc->meta.bloom_filter_offset,
                                cc->meta.has_bloom_filter_length && cc->meta.bloom_filter_length > 0
                                    ? (uint64_t)cc->meta.bloom_filter_length
                                    : 1,
                                "bloom filter", k, j, true);
        }
    }
    if (ok && c.file_size >= (uint64_t)flen + 8)
        ok = add_region(&c, c.file_size - 8 - flen, flen, "footer (FileMetaData, Thrift)", 0, 0,
                        false);
    if (ok && c.file_size >= 8)
        ok = add_region(&c, c.file_size - 8, 8, "footer length and magic \"PAR1\"", 0, 0, false);
    if (st == CF_OK && !ok)
        st = CF_ENOMEM;
    size_t cap = c.npages + c.nregs + nchunks + m->row_group_count + 1;
    cap = 2 * cap + 2;
    c.items = malloc(cap * sizeof(*c.items));
    c.ref = malloc(cap * sizeof(*c.ref));
    c.tag = calloc(cap, 1);
    if (st == CF_OK && (c.items == NULL || c.ref == NULL || c.tag == NULL))
        st = CF_ENOMEM;
    if (st != CF_OK)
        goto out;
    qsort(c.pages, c.npages, sizeof(*c.pages), by_off);
    qsort(c.regs, c.nregs, sizeof(*c.regs), reg_by_off);

    cf_svg_css(&g, ".rgl{font-size:10px;fill:#fff}\n.hdr{fill:#222;fill-opacity:.55}\n"
                   ".gap{fill:#fff;stroke:#d62728;stroke-dasharray:2,2}\n.sbg{fill:#f4f4f4}\n"
                   ".gl{font-size:9px;fill:#444}\n.cell{stroke:#fff;stroke-width:.5}");
    double scale = c.file_size ? PLOT / (double)c.file_size : 0;

    /* Title. */
    cf_svg_text_bytes(&g, 12, 22, "start", "ttl", file_path, strlen(file_path), 120);
    char fsz[32];
    cf_svg_bytes(fsz, sizeof(fsz), c.file_size);
    cf_svg_tip(&g, "created by: ");
    if (m->has_created_by)
        cf_svg_tip_bytes(&g, m->created_by.data, m->created_by.len);
    cf_svg_text(&g, 12, 40, "start", "sub",
                "Apache Parquet v%" PRId32 " \u00b7 %" PRId64 " rows \u00b7 %" PRIu32
                " row groups \u00b7 %" PRIu32 " columns \u00b7 %zu column chunks \u00b7 %zu pages"
                " \u00b7 %" PRIu64 " bytes (%s), footer %" PRIu32 " bytes",
                m->version, cf_parquet_num_rows(pq), m->row_group_count, ncol, nchunks, c.npages,
                c.file_size, fsz, flen);

    double y = 58;
    /* Row groups. */
    size_t n = 0;
    for (uint32_t k = 0; k < m->row_group_count; k++) {
        const cf_parquet_row_group *r = &m->row_groups[k];
        uint64_t lo = UINT64_MAX, hi = 0;
        for (uint32_t j = 0; j < r->column_count; j++) {
            uint64_t s = chunk_start(&r->columns[j].meta), e = s + chunk_size(&r->columns[j].meta);
            if (s < lo)
                lo = s;
            if (e > hi)
                hi = e;
        }
        if (lo >= hi || hi > c.file_size)
            continue;
        c.items[n] = (cf_svg_item){lo, hi - lo, 0, k % 2 ? FILL_RG_B : FILL_RG_A, false};
        c.ref[n++] = r;
    }
    cf_svg_text(&g, 10, y + 15, "start", "lab", "row groups");
    cf_svg_lane(&g, c.items, n, LEFT, scale, y, LANE_H, MIN_PX, "row groups", rg_tip, &c);
    for (size_t i = 0; i < n; i++) {
        double w = (double)c.items[i].size * scale;
        const cf_parquet_row_group *r = c.ref[i];
        if (w > 60)
            cf_svg_text(&g, LEFT + (double)c.items[i].off * scale + w / 2, y + 15, "middle", "rgl",
                        "RG %zu \u00b7 %" PRId64 " rows", (size_t)(r - m->row_groups), r->num_rows);
    }
    y += LANE_H + 8;

    /* Column chunks, in offset order. */
    n = 0;
    for (uint32_t k = 0; k < m->row_group_count; k++) {
        const cf_parquet_row_group *r = &m->row_groups[k];
        for (uint32_t j = 0; j < r->column_count; j++) {
            const cf_parquet_column_meta *cm = &r->columns[j].meta;
            uint64_t s = chunk_start(cm), sz = chunk_size(cm);
            if (s >= c.file_size || sz == 0)
                continue;
            if (sz > c.file_size - s)
                sz = c.file_size - s;
            uint64_t lg =
                cm->total_uncompressed_size > 0 ? (uint64_t)cm->total_uncompressed_size : 0;
            c.items[n] = (cf_svg_item){s, sz, lg, col_fills[j % NCOLFILL], false};
            c.ref[n++] = &r->columns[j];
        }
    }
    /* Sort the chunks by offset (insertion: writers store them nearly in order). */
    for (size_t i = 1; i < n; i++) {
        cf_svg_item v = c.items[i];
        const void *rv = c.ref[i];
        size_t j = i;
        while (j > 0 && c.items[j - 1].off > v.off) {
            c.items[j] = c.items[j - 1];
            c.ref[j] = c.ref[j - 1];
            j--;
        }
        c.items[j] = v;
        c.ref[j] = rv;
    }
    double chunk_y = y;
    cf_svg_text(&g, 10, y + 15, "start", "lab", "column chunks");
    double page_y = y + LANE_H + 18;
    curtain_lane(&g, &c, c.items, n, chunk_y + LANE_H, page_y);
    cf_svg_lane(&g, c.items, n, LEFT, scale, y, LANE_H, MIN_PX, "column chunks", chunk_tip, &c);
    y = page_y;

    /* Pages and every other region, with the gaps between them. */
    n = 0;
    size_t pi = 0, ri = 0;
    uint64_t at = 0;
    while (pi < c.npages || ri < c.nregs) {
        bool page = ri >= c.nregs || (pi < c.npages && c.pages[pi].off < c.regs[ri].off);
        uint64_t off, size;
        if (page) {
            const pq_page *p = &c.pages[pi++];
            off = p->off;
            size = p->header_len + (uint64_t)(p->compressed > 0 ? p->compressed : 0);
            if (off >= c.file_size)
                continue;
            if (size > c.file_size - off)
                size = c.file_size - off;
            if (off > at) {
                c.items[n] = (cf_svg_item){at, off - at, 0, "#ffffff", false};
                c.tag[n] = 0;
                c.ref[n++] = NULL;
            }
            uint64_t lg = p->uncompressed > p->compressed && p->compressed > 0
                              ? p->header_len + (uint64_t)p->uncompressed
                              : 0;
            c.items[n] = (cf_svg_item){off, size, lg, page_fill(p), false};
            c.tag[n] = 1;
            c.ref[n++] = p;
        } else {
            const region *r = &c.regs[ri++];
            off = r->off;
            size = r->size;
            if (off > at) {
                c.items[n] = (cf_svg_item){at, off - at, 0, "#ffffff", false};
                c.tag[n] = 0;
                c.ref[n++] = NULL;
            }
            const char *fill = FILL_FRAME;
            if (strncmp(r->what, "column index", 12) == 0)
                fill = FILL_COLIDX;
            else if (strncmp(r->what, "offset index", 12) == 0)
                fill = FILL_OFFIDX;
            else if (strcmp(r->what, "bloom filter") == 0)
                fill = FILL_BLOOM;
            c.items[n] = (cf_svg_item){off, size, 0, fill, false};
            c.tag[n] = 2;
            c.ref[n++] = r;
        }
        if (off + size > at)
            at = off + size;
    }
    cf_svg_text(&g, 10, y + PAGE_H / 2 - 2, "start", "lab", "pages, indexes,");
    cf_svg_text(&g, 10, y + PAGE_H / 2 + 12, "start", "lab", "footer by offset");
    cf_svg_rect(&g, LEFT, y, PLOT, PAGE_H, "sbg");
    cf_svg_lane(&g, c.items, n, LEFT, scale, y, PAGE_H, MIN_PX, "pages and regions", page_tip, &c);
    /* Page headers: a dark foot as wide as the header, where it is visible. */
    for (size_t i = 0; i < c.npages; i++) {
        double w = (double)c.pages[i].header_len * scale;
        double pw = (double)(c.pages[i].header_len +
                             (uint64_t)(c.pages[i].compressed > 0 ? c.pages[i].compressed : 0)) *
                    scale;
        if (pw >= 12 && w >= 0.8 && c.pages[i].off < c.file_size)
            cf_svg_rect(&g, xoff(&c, c.pages[i].off), y + PAGE_H - 6, w, 6, "hdr");
    }
    y += PAGE_H;
    axis(&g, &c, y + 2);
    y += 30;

    /* Legend. */
    cf_svg_text(&g, 12, y, "start", "lab", "legend");
    y += 18;
    bool has[8] = {false};
    for (size_t i = 0; i < c.npages; i++) {
        const char *f = page_fill(&c.pages[i]);
        has[0] |= strcmp(f, FILL_DICT) == 0;
        has[1] |= strcmp(f, FILL_V1) == 0;
        has[2] |= strcmp(f, FILL_V2) == 0;
        has[3] |= strcmp(f, FILL_RLE_DICT) == 0;
        has[4] |= strcmp(f, FILL_DELTA) == 0;
        has[5] |= strcmp(f, FILL_INDEXPAGE) == 0;
    }
    bool any_ci = false, any_oi = false, any_bf = false;
    for (size_t i = 0; i < c.nregs; i++) {
        any_ci |= strncmp(c.regs[i].what, "column index", 12) == 0;
        any_oi |= strncmp(c.regs[i].what, "offset index", 12) == 0;
        any_bf |= strcmp(c.regs[i].what, "bloom filter") == 0;
    }
    double lx = 12;
    if (has[0])
        lx = cf_svg_legend(&g, lx, y, NULL, FILL_DICT, "dictionary page");
    if (has[3])
        lx = cf_svg_legend(&g, lx, y, NULL, FILL_RLE_DICT, "data page, dictionary-encoded");
    if (has[1])
        lx = cf_svg_legend(&g, lx, y, NULL, FILL_V1, "data page v1 (PLAIN, RLE...)");
    if (has[2])
        lx = cf_svg_legend(&g, lx, y, NULL, FILL_V2, "data page v2 (PLAIN, RLE...)");
    if (has[4])
        lx = cf_svg_legend(&g, lx, y, NULL, FILL_DELTA, "data page, DELTA_* / BYTE_STREAM_SPLIT");
    if (has[5])
        lx = cf_svg_legend(&g, lx, y, NULL, FILL_INDEXPAGE, "index page");
    y += 20;
    lx = 12;
    if (any_ci)
        lx = cf_svg_legend(&g, lx, y, NULL, FILL_COLIDX, "column index");
    if (any_oi)
        lx = cf_svg_legend(&g, lx, y, NULL, FILL_OFFIDX, "offset index");
    if (any_bf)
        lx = cf_svg_legend(&g, lx, y, NULL, FILL_BLOOM, "bloom filter");
    lx = cf_svg_legend(&g, lx, y, NULL, FILL_FRAME, "footer and magic");
    lx = cf_svg_legend(&g, lx, y, "hdr", NULL, "page header");
    lx = cf_svg_legend(&g, lx, y, "lt", FILL_V1, "pale: bytes saved by the codec");
    y += 20;
    lx = 12;
    cf_svg_text(&g, lx, y, "start", "lg", "column chunk colours:");
    lx += 130;
    for (uint32_t j = 0; j < ncol && j < NCOLFILL; j++) {
        const cf_parquet_column *cd = cf_parquet_column_at(pq, j);
        char lab[64];
        size_t o = 0;
        for (uint32_t k = 0; k < cd->path_len && o < sizeof(lab) - 1; k++) {
            int w = snprintf(lab + o, sizeof(lab) - o, "%s%.*s", k ? "." : "", (int)cd->path[k].len,
                             (const char *)cd->path[k].data);
            if (w < 0)
                break;
            o += (size_t)w;
            if (o >= sizeof(lab))
                o = sizeof(lab) - 1;
        }
        lab[o] = '\0';
        if (strlen(lab) > 24)
            memcpy(lab + 21, "...", 4);
        if (lx > WIDTH - 180) {
            y += 18;
            lx = 142;
        }
        lx = cf_svg_legend(&g, lx, y, NULL, col_fills[j], lab); /* escaped by cf_svg_text */
    }
    if (ncol > NCOLFILL)
        cf_svg_text(&g, lx, y, "start", "lg", "(colours repeat every %zu columns)", NCOLFILL);
    y += 18;
    cf_svg_text(&g, 12, y, "start", "lg",
                "bar width = bytes at their offset; hover any shape for offsets, sizes, "
                "encodings and values%s",
                truncated ? "; too many pages: only the first 250,000 are drawn" : "");
    y += 26;

    /* The row group x column grid. */
    uint32_t gc = ncol < GRID_MAX_COLS ? ncol : GRID_MAX_COLS;
    uint32_t gr = m->row_group_count < GRID_MAX_RGS ? m->row_group_count : GRID_MAX_RGS;
    if (gc > 0 && gr > 0) {
        cf_svg_text(&g, 12, y, "start", "lab",
                    "column chunks by row group (rows) and column: darker = more bytes stored");
        y += 10;
        int64_t maxsz = 1;
        for (uint32_t k = 0; k < gr; k++)
            for (uint32_t j = 0; j < gc && j < m->row_groups[k].column_count; j++)
                if (m->row_groups[k].columns[j].meta.total_compressed_size > maxsz)
                    maxsz = m->row_groups[k].columns[j].meta.total_compressed_size;
        double cw = PLOT / gc, ch = 12;
        for (uint32_t j = 0; j < gc; j++) {
            cf_svg_tip(&g, "column %" PRIu32 ": ", j);
            tip_path(&g, pq, j);
            if (cw >= 14)
                cf_svg_text(&g, LEFT + cw * j + cw / 2, y + 10, "middle", "gl", "%" PRIu32, j);
            else
                cf_svg_rect(&g, LEFT + cw * j, y + 4, cw, 6, "sbg");
        }
        y += 14;
        for (uint32_t k = 0; k < gr; k++) {
            const cf_parquet_row_group *r = &m->row_groups[k];
            cf_svg_text(&g, LEFT - 6, y + 10, "end", "gl", "RG %" PRIu32, k);
            for (uint32_t j = 0; j < gc && j < r->column_count; j++) {
                const cf_parquet_column_chunk *cc = &r->columns[j];
                double t = (double)cc->meta.total_compressed_size / (double)maxsz;
                if (t < 0)
                    t = 0;
                /* White to blue by size (square root: small chunks stay visible). */
                double s = t > 0 ? 0.15 + 0.85 * sqrt(t) : 0;
                char fill[8];
                snprintf(fill, sizeof(fill), "#%02x%02x%02x", (int)(255 - s * (255 - 0x08)),
                         (int)(255 - s * (255 - 0x51)), (int)(255 - s * (255 - 0x9c)));
                size_t idx = 0;
                c.ref[idx] = cc;
                chunk_tip(&g, &c, idx);
                cf_svg_rect_fill(&g, LEFT + cw * j, y, cw, ch, fill, "cell");
            }
            y += ch;
        }
        if (m->row_group_count > gr || ncol > gc)
            cf_svg_text(&g, LEFT, y + 14, "start", "lg",
                        "(%" PRIu32 " more row groups and %" PRIu32
                        " more columns not in the grid)",
                        m->row_group_count - gr, ncol - gc);
        y += 24;
    }

    char title[64];
    snprintf(title, sizeof(title), "layout of a Parquet file");
    st = cf_svg_finish(&g, y, title, out_path, std, err);
out:
    if (st == CF_ENOMEM && err != NULL) {
        err->code = CF_ENOMEM;
        snprintf(err->msg, sizeof(err->msg), "out of memory drawing the picture");
    }
    free(c.pages);
    free(c.regs);
    free(c.items);
    free(c.ref);
    free(c.tag);
    cf_svg_dispose(&g);
    return st;
}

int cf_cli_svg_parquet_cmd(cf_cli *c, const char *path, const cf_parquet *pq, const char *out)
{
    cf_status damage = CF_OK;
    cf_error derr = {0}, err = {0};
    cf_status st = cf_svg_parquet(out, c->out, path, pq, &damage, &derr, &err);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, out, st, &err);
    /* Drawn as far as the pages could be read; the damage still fails the run. */
    if (damage != CF_OK)
        return cf_cli_lib_fail(c, path, damage, &derr);
    return CF_EXIT_OK;
}

/* Hand-written SVG 1.1 for `--svg` (cfile info, table info, parquet meta): the
 * drawing primitives every layout picture shares, built in memory and written to
 * its file in one go (cf_io's temporary file + fsync + rename, as every output
 * of the tool).
 *
 * Every string that reaches the document passes through one escaper: XML's five
 * special characters become entities; bytes that are not UTF-8, and control
 * characters XML 1.0 cannot carry, become the text "\xNN". So column names, keys
 * and paths from a file never break the document.
 *
 * Size: callers draw at most a few elements per pixel column and lane (see
 * cf_svg_buckets), so a file with millions of blocks still gives a picture of a
 * few hundred kilobytes.
 *
 * Call order:  init (rect|text|line|...)* finish dispose
 */
#ifndef CF_CLI_SVG_H
#define CF_CLI_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cfile/cfile.h>
#if CF_HAVE_PARQUET
#include <cfile/parquet.h>
#endif
#if CF_HAVE_TABLES
#include <cfile/rowset.h>
#endif

#include "out.h"

typedef struct cf_svg {
    cf_out_str body;  /* everything between the root element's tags */
    cf_out_str style; /* CSS rules (cf_svg_css) */
    cf_out_str tip;   /* the tooltip being built (cf_svg_tip*) */
    double width, height;
} cf_svg;

void cf_svg_init(cf_svg *g, double width);
void cf_svg_dispose(cf_svg *g);

/* A CSS rule for the document's <style> ("." class "{" decl "}"). */
void cf_svg_css(cf_svg *g, const char *rule);

/* The tooltip (a <title> child) of the next shape: cleared by every shape. */
void cf_svg_tip(cf_svg *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append raw bytes (escaped when written), e.g. a key from a file. */
void cf_svg_tip_bytes(cf_svg *g, const void *p, size_t n);

/* Shapes. cls: CSS class names (may be NULL); each takes the pending tooltip. */
void cf_svg_rect(cf_svg *g, double x, double y, double w, double h, const char *cls);
/* A rect with an explicit fill colour ("#rrggbb"), for palettes picked at run time. */
void cf_svg_rect_fill(cf_svg *g, double x, double y, double w, double h, const char *fill,
                      const char *cls);
void cf_svg_line(cf_svg *g, double x1, double y1, double x2, double y2, const char *cls);
/* A quadrilateral (x0,y0) (x1,y1) (x2,y2) (x3,y3). */
void cf_svg_quad(cf_svg *g, const double *xy, const char *cls);
/* Text at (x, y): anchor "start", "middle" or "end"; the text is escaped. */
void cf_svg_text(cf_svg *g, double x, double y, const char *anchor, const char *cls,
                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Raw bytes as text (escaped), cut to max_chars characters with "..." after. */
void cf_svg_text_bytes(cf_svg *g, double x, double y, const char *anchor, const char *cls,
                       const void *p, size_t n, size_t max_chars);
/* A legend entry: a swatch of class cls (or fill) and its label; returns the x after it. */
double cf_svg_legend(cf_svg *g, double x, double y, const char *cls, const char *fill,
                     const char *label);

/* Set the document height and write the whole document to path atomically, or
 * to std when path is "-" (a failed write is caught where the tool flushes it).
 * CF_EIO etc. from cf_io with err set; nothing is left at path on failure. */
cf_status cf_svg_finish(cf_svg *g, double height, const char *title, const char *path, FILE *std,
                        cf_error *err);
/* The whole document as it would be written (for tests); caller frees with free(). */
char *cf_svg_render(cf_svg *g, double height, const char *title, size_t *len);

/* XML-escape n bytes into s (see above). */
void cf_svg_escape(cf_out_str *s, const void *p, size_t n);

/* "1.5 KiB", "12 B", "3.2 MiB" into buf. */
void cf_svg_bytes(char *buf, size_t cap, uint64_t n);

/* A file's byte axis at height y: a line from x = left to left + width, and ticks
 * labelled in bytes every power of two (at most 12 of them, so KiB and MiB labels
 * stay round), offset t at left + t / size * width. Only the line when size is 0. */
void cf_svg_byte_axis(cf_svg *g, double left, double width, double y, uint64_t size);

/* ---- bucketing: many items, a few pixels ------------------------------------------------
 * Items on an axis, in order, each [x0, x1) in pixels: runs of consecutive items
 * narrower than min_px are merged into one bucket at least min_px wide (or up to
 * the next wide item). out[k] = index of the first item of bucket k; returns the
 * number of buckets (out must hold n entries). */
size_t cf_svg_buckets(const double *x0, const double *x1, size_t n, double min_px, size_t *out);

/* ---- lanes: items on a byte axis --------------------------------------------------------- */

typedef struct cf_svg_item {
    uint64_t off, size; /* where on the axis */
    uint64_t logical;   /* bytes before compression; 0: no compression mark */
    const char *fill;   /* "#rrggbb" */
    bool damaged;
} cf_svg_item;

/* Append item i's tooltip text (cf_svg_tip) for a lane. */
typedef void (*cf_svg_tip_fn)(cf_svg *g, void *ctx, size_t i);

/* Draw items it[0..n) (in offset order) as bars of height h at y, x = left + off *
 * scale: full colour for the stored bytes, the pale rest up to the logical size.
 * Runs of items narrower than min_px become one bar in the colour of the most
 * bytes, with a tooltip counting them ("N <noun> merged") and the first's. */
void cf_svg_lane(cf_svg *g, const cf_svg_item *it, size_t n, double left, double scale, double y,
                 double h, double min_px, const char *noun, cf_svg_tip_fn tip, void *ctx);

/* ---- the pictures ----------------------------------------------------------------------
 * Each takes out_path "-" to mean std (the command's standard output). */

/* One block of a CFile as `cfile info --blocks` found it. */
typedef struct cf_svg_cblock {
    const char *kind; /* "data block", "bloom block", "dictionary block",
                         "positional index", "value index" */
    uint64_t off, first_ord, rows;
    uint32_t size, logical_size; /* logical 0: unknown */
    int dict_mode;               /* 1 codewords, 2 plain strings (DICT fallback) */
    bool damaged;
    unsigned index_level;   /* index blocks: depth below the root */
    uint32_t index_entries; /* index blocks: entries */
    size_t seq;             /* the order verify reported it (pre-order per tree) */
    bool has_stats;         /* data blocks whose rows were read */
    uint64_t nulls, distinct;
    bool has_distinct;
    char min[48], max[48]; /* value forms, cut; "" when none */
    const char *msg;       /* why damaged, or NULL */
} cf_svg_cblock;

/* The layout of a CFile (svg_cfile.c): blocks b[0..n) in file order. */
cf_status cf_svg_cfile(const char *out_path, FILE *std, const char *file_path, const cf_reader *r,
                       const char *kind, const cf_svg_cblock *b, size_t n, cf_error *err);

#if CF_HAVE_PARQUET
/* The layout of a Parquet file (svg_parquet.c). Pages are walked (CRCs not
 * checked); a chunk whose pages cannot be read is drawn as far as they could,
 * and its error goes to *damage / damage_err (the first one; CF_OK if none).
 * Returns the status of writing the picture. */
cf_status cf_svg_parquet(const char *out_path, FILE *std, const char *file_path,
                         const cf_parquet *pq, cf_status *damage, cf_error *damage_err,
                         cf_error *err);
/* --svg OUT for a Parquet file as a command does it: exit code, messages on c->err;
 * OUT "-" is c->out. */
int cf_cli_svg_parquet_cmd(cf_cli *c, const char *path, const cf_parquet *pq, const char *out);
#endif
#if CF_HAVE_TABLES
/* The layout of a table (svg_table.c): its rowsets on a key axis, with their files. */
cf_status cf_svg_table(const char *out_path, FILE *std, const char *dir, cf_table *tb,
                       cf_error *err);
#endif

#endif

/* SVG primitives for the layout pictures (svg.h). */
#include "svg.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cf_svg_init(cf_svg *g, double width)
{
    cf_out_str_init(&g->body);
    cf_out_str_init(&g->style);
    cf_out_str_init(&g->tip);
    g->width = width;
    g->height = 0;
}

void cf_svg_dispose(cf_svg *g)
{
    cf_out_str_dispose(&g->body);
    cf_out_str_dispose(&g->style);
    cf_out_str_dispose(&g->tip);
}

/* Length of the UTF-8 sequence at p (of n bytes left), or 0 when it is not one
 * (overlong forms, surrogates and code points past U+10FFFF included). */
static size_t utf8_len(const uint8_t *p, size_t n)
{
    uint32_t cp;
    size_t len = cf_utf8_char_len(p, n, &cp);
    /* U+FFFE and U+FFFF are not XML characters either. */
    if (len == 0 || cp == 0xfffe || cp == 0xffff)
        return 0;
    return len;
}

void cf_svg_escape(cf_out_str *s, const void *src, size_t n)
{
    const uint8_t *p = src;
    size_t i = 0;
    while (i < n) {
        uint8_t c = p[i];
        const char *ent = NULL;
        switch (c) {
        case '&': ent = "&amp;"; break;
        case '<': ent = "&lt;"; break;
        case '>': ent = "&gt;"; break;
        case '"': ent = "&quot;"; break;
        case '\'': ent = "&apos;"; break;
        default: break;
        }
        if (ent != NULL) {
            cf_out_str_puts(s, ent);
            i++;
            continue;
        }
        size_t len = utf8_len(p + i, n - i);
        bool ctl = c < 0x20 && c != '\n' && c != '\t';
        if (len == 0 || ctl || c == 0x7f) {
            char hex[8];
            snprintf(hex, sizeof(hex), "\\x%02x", c);
            cf_out_str_puts(s, hex);
            i++;
            continue;
        }
        cf_out_str_put(s, p + i, len);
        i += len;
    }
}

static void putf(cf_out_str *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(cf_out_str *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cf_out_str_vprintf(s, 512, fmt, ap);
    va_end(ap);
}

/* Coordinates with one decimal: enough for a screen, short in the file. */
static void num(cf_out_str *s, double v)
{
    char buf[32];
    long long t = (long long)(v * 10 + (v < 0 ? -0.5 : 0.5));
    if (t % 10 == 0)
        snprintf(buf, sizeof(buf), "%lld", t / 10);
    else
        snprintf(buf, sizeof(buf), "%s%lld.%lld", t < 0 ? "-" : "", llabs(t) / 10, llabs(t) % 10);
    cf_out_str_puts(s, buf);
}

static void attr_num(cf_out_str *s, const char *name, double v)
{
    cf_out_str_puts(s, " ");
    cf_out_str_puts(s, name);
    cf_out_str_puts(s, "=\"");
    num(s, v);
    cf_out_str_puts(s, "\"");
}

static void attr_cls(cf_out_str *s, const char *cls)
{
    if (cls == NULL || cls[0] == '\0')
        return;
    cf_out_str_puts(s, " class=\"");
    cf_out_str_puts(s, cls); /* our own literals: no escaping needed */
    cf_out_str_puts(s, "\"");
}

/* Close a shape's start tag: with the pending tooltip as a <title> child. */
static void close_shape(cf_svg *g, const char *tag)
{
    if (g->tip.len == 0) {
        cf_out_str_puts(&g->body, "/>\n");
        return;
    }
    cf_out_str_puts(&g->body, "><title>");
    cf_svg_escape(&g->body, g->tip.data, g->tip.len);
    cf_out_str_puts(&g->body, "</title></");
    cf_out_str_puts(&g->body, tag);
    cf_out_str_puts(&g->body, ">\n");
    cf_out_str_clear(&g->tip);
}

void cf_svg_css(cf_svg *g, const char *rule)
{
    cf_out_str_puts(&g->style, rule);
    cf_out_str_puts(&g->style, "\n");
}

void cf_svg_tip(cf_svg *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cf_out_str_vprintf(&g->tip, 1024, fmt, ap);
    va_end(ap);
}

void cf_svg_tip_bytes(cf_svg *g, const void *p, size_t n)
{
    cf_out_str_put(&g->tip, p, n);
}

static void rect_start(cf_svg *g, double x, double y, double w, double h)
{
    cf_out_str_puts(&g->body, "<rect");
    attr_num(&g->body, "x", x);
    attr_num(&g->body, "y", y);
    attr_num(&g->body, "width", w > 0 ? w : 0);
    attr_num(&g->body, "height", h > 0 ? h : 0);
}

void cf_svg_rect(cf_svg *g, double x, double y, double w, double h, const char *cls)
{
    rect_start(g, x, y, w, h);
    attr_cls(&g->body, cls);
    close_shape(g, "rect");
}

void cf_svg_rect_fill(cf_svg *g, double x, double y, double w, double h, const char *fill,
                      const char *cls)
{
    rect_start(g, x, y, w, h);
    attr_cls(&g->body, cls);
    putf(&g->body, " fill=\"%s\"", fill);
    close_shape(g, "rect");
}

void cf_svg_line(cf_svg *g, double x1, double y1, double x2, double y2, const char *cls)
{
    cf_out_str_puts(&g->body, "<line");
    attr_num(&g->body, "x1", x1);
    attr_num(&g->body, "y1", y1);
    attr_num(&g->body, "x2", x2);
    attr_num(&g->body, "y2", y2);
    attr_cls(&g->body, cls);
    close_shape(g, "line");
}

void cf_svg_quad(cf_svg *g, const double *xy, const char *cls)
{
    cf_out_str_puts(&g->body, "<polygon points=\"");
    for (int i = 0; i < 4; i++) {
        if (i > 0)
            cf_out_str_puts(&g->body, " ");
        num(&g->body, xy[2 * i]);
        cf_out_str_puts(&g->body, ",");
        num(&g->body, xy[2 * i + 1]);
    }
    cf_out_str_puts(&g->body, "\"");
    attr_cls(&g->body, cls);
    close_shape(g, "polygon");
}

static void text_start(cf_svg *g, double x, double y, const char *anchor, const char *cls)
{
    cf_out_str_puts(&g->body, "<text");
    attr_num(&g->body, "x", x);
    attr_num(&g->body, "y", y);
    if (anchor != NULL && strcmp(anchor, "start") != 0)
        putf(&g->body, " text-anchor=\"%s\"", anchor);
    attr_cls(&g->body, cls);
    cf_out_str_puts(&g->body, ">");
}

static void text_end(cf_svg *g)
{
    if (g->tip.len > 0) {
        cf_out_str_puts(&g->body, "<title>");
        cf_svg_escape(&g->body, g->tip.data, g->tip.len);
        cf_out_str_puts(&g->body, "</title>");
        cf_out_str_clear(&g->tip);
    }
    cf_out_str_puts(&g->body, "</text>\n");
}

void cf_svg_text(cf_svg *g, double x, double y, const char *anchor, const char *cls,
                 const char *fmt, ...)
{
    cf_out_str label;
    cf_out_str_init(&label);
    va_list ap;
    va_start(ap, fmt);
    cf_out_str_vprintf(&label, 1024, fmt, ap);
    va_end(ap);
    text_start(g, x, y, anchor, cls);
    cf_svg_escape(&g->body, label.data, label.len);
    text_end(g);
    cf_out_str_dispose(&label);
}

void cf_svg_text_bytes(cf_svg *g, double x, double y, const char *anchor, const char *cls,
                       const void *src, size_t n, size_t max_chars)
{
    const uint8_t *p = src;
    /* Cut at a character boundary (counting UTF-8 sequences, not bytes). */
    size_t i = 0, chars = 0;
    while (i < n && chars < max_chars) {
        size_t l = utf8_len(p + i, n - i);
        i += l ? l : 1;
        chars++;
    }
    text_start(g, x, y, anchor, cls);
    cf_svg_escape(&g->body, p, i);
    if (i < n)
        cf_out_str_puts(&g->body, "...");
    text_end(g);
}

double cf_svg_legend(cf_svg *g, double x, double y, const char *cls, const char *fill,
                     const char *label)
{
    if (fill != NULL)
        cf_svg_rect_fill(g, x, y - 10, 14, 12, fill, cls);
    else
        cf_svg_rect(g, x, y - 10, 14, 12, cls);
    cf_svg_text(g, x + 19, y, "start", "lg", "%s", label);
    /* An estimate of the label's width: the legend wraps by it, no font metrics here. */
    return x + 19 + 6.2 * (double)strlen(label) + 16;
}

void cf_svg_bytes(char *buf, size_t cap, uint64_t n)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    if (n < 1024) {
        snprintf(buf, cap, "%" PRIu64 " B", n);
        return;
    }
    double v = (double)n;
    int u = 0;
    while (v >= 1024 && u < 5) {
        v /= 1024;
        u++;
    }
    snprintf(buf, cap, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v, units[u]);
}

void cf_svg_byte_axis(cf_svg *g, double left, double width, double y, uint64_t size)
{
    cf_svg_line(g, left, y, left + width, y, "axl");
    if (size == 0)
        return;
    uint64_t step = 1;
    while (size / step > 12)
        step *= 2;
    for (uint64_t t = 0; t <= size; t += step) {
        double x = left + (double)t / (double)size * width;
        cf_svg_line(g, x, y, x, y + 4, "axl");
        char buf[32];
        cf_svg_bytes(buf, sizeof(buf), t);
        cf_svg_text(g, x, y + 15, "middle", "ax", "%s", buf);
        if (size - t < step)
            break;
    }
}

/* The fixed look of every picture: fonts, outlines, the legend's text. */
static const char base_css[] =
    "text{font-family:DejaVu Sans,Verdana,Arial,sans-serif;font-size:11px;fill:#222}\n"
    ".ttl{font-size:15px;font-weight:bold}\n"
    ".sub{font-size:11px;fill:#555}\n"
    ".lg{font-size:11px}\n"
    ".ax{font-size:10px;fill:#666}\n"
    ".axl{stroke:#999;stroke-width:1}\n"
    ".lab{font-size:11px;font-weight:bold;fill:#333}\n"
    ".blk{stroke:#fff;stroke-width:.4}\n.lt{fill-opacity:.32}\n.in{stroke:none}\n"
    ".cur{fill:#34466e;fill-opacity:.07}\n.cur2{fill-opacity:.16}\n";

char *cf_svg_render(cf_svg *g, double height, const char *title, size_t *len)
{
    cf_out_str d;
    cf_out_str_init(&d);
    g->height = height;
    cf_out_str_puts(&d, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\"");
    attr_num(&d, "width", g->width);
    attr_num(&d, "height", height);
    cf_out_str_puts(&d, " viewBox=\"0 0 ");
    num(&d, g->width);
    cf_out_str_puts(&d, " ");
    num(&d, height);
    cf_out_str_puts(&d, "\">\n<title>");
    cf_svg_escape(&d, title, strlen(title));
    cf_out_str_puts(&d, "</title>\n<style type=\"text/css\"><![CDATA[\n");
    cf_out_str_puts(&d, base_css);
    if (g->style.len > 0)
        cf_out_str_put(&d, g->style.data, g->style.len);
    cf_out_str_puts(&d, "]]></style>\n");
    cf_out_str_puts(&d,
                    "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
    if (g->body.len > 0)
        cf_out_str_put(&d, g->body.data, g->body.len);
    cf_out_str_puts(&d, "</svg>\n");
    bool oom = d.oom || g->body.oom || g->style.oom;
    if (oom) {
        cf_out_str_dispose(&d);
        return NULL;
    }
    *len = d.len;
    return d.data; /* ownership passes to the caller */
}

cf_status cf_svg_finish(cf_svg *g, double height, const char *title, const char *path, FILE *std,
                        cf_error *err)
{
    size_t len = 0;
    char *doc = cf_svg_render(g, height, title, &len);
    if (doc == NULL) {
        if (err != NULL) {
            err->code = CF_ENOMEM;
            snprintf(err->msg, sizeof(err->msg), "out of memory drawing the picture");
        }
        return CF_ENOMEM;
    }
    if (strcmp(path, "-") == 0) {
        /* A short write leaves std's error flag set: cf_cli_main reports it. */
        fwrite(doc, 1, len, std);
        free(doc);
        return CF_OK;
    }
    cf_io *io = NULL;
    cf_status st = cf_io_create_file(&io, path, err);
    if (st == CF_OK)
        st = io->ops->append(io, doc, len, err);
    if (st == CF_OK)
        st = io->ops->commit(io, err);
    cf_io_free(io); /* without a commit: removes the temporary file */
    free(doc);
    return st;
}

size_t cf_svg_buckets(const double *x0, const double *x1, size_t n, double min_px, size_t *out)
{
    size_t nb = 0, i = 0;
    while (i < n) {
        out[nb++] = i;
        size_t j = i + 1;
        if (x1[i] - x0[i] < min_px) {
            while (j < n && x1[j - 1] - x0[i] < min_px && x1[j] - x0[j] < min_px)
                j++;
        }
        i = j;
    }
    return nb;
}

void cf_svg_lane(cf_svg *g, const cf_svg_item *it, size_t n, double left, double scale, double y,
                 double h, double min_px, const char *noun, cf_svg_tip_fn tip, void *ctx)
{
    double *x0 = malloc((n ? n : 1) * sizeof(*x0)), *x1 = malloc((n ? n : 1) * sizeof(*x1));
    size_t *bk = malloc((n ? n : 1) * sizeof(*bk));
    if (x0 == NULL || x1 == NULL || bk == NULL) {
        g->body.oom = true;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        x0[i] = left + (double)it[i].off * scale;
        x1[i] = left + (double)(it[i].off + it[i].size) * scale;
    }
    size_t nb = cf_svg_buckets(x0, x1, n, min_px, bk);
    for (size_t q = 0; q < nb; q++) {
        size_t s = bk[q], e = q + 1 < nb ? bk[q + 1] : n;
        uint64_t stored = 0, logical = 0, best = 0;
        size_t best_i = s, dmg = 0;
        for (size_t i = s; i < e; i++) {
            stored += it[i].size;
            logical += it[i].logical ? it[i].logical : it[i].size;
            dmg += it[i].damaged;
            if (it[i].size >= best) {
                best = it[i].size;
                best_i = i;
            }
        }
        if (e - s > 1) {
            char sb[32], lb[32];
            cf_svg_bytes(sb, sizeof(sb), stored);
            cf_svg_bytes(lb, sizeof(lb), logical);
            cf_svg_tip(g,
                       "%zu %s merged (each narrower than %.0f px)\noffset %" PRIu64 " .. %" PRIu64
                       "\nstored %" PRIu64 " bytes (%s), logical %" PRIu64 " bytes (%s)",
                       e - s, noun, min_px, it[s].off, it[e - 1].off + it[e - 1].size, stored, sb,
                       logical, lb);
            if (dmg)
                cf_svg_tip(g, "\n%zu DAMAGED", dmg);
            cf_svg_tip(g, "\n\nthe first of them:\n");
        }
        tip(g, ctx, s);
        const char *fill = dmg ? "#d62728" : it[best_i].fill;
        double w = x1[e - 1] - x0[s];
        if (w < 0.5)
            w = 0.5;
        double frac = 1.0;
        if (logical > stored && stored > 0)
            frac = (double)stored / (double)logical;
        cf_svg_rect_fill(g, x0[s], y, w, h, fill, frac < 1.0 ? "blk lt" : "blk");
        if (frac < 1.0)
            cf_svg_rect_fill(g, x0[s], y + h - h * frac, w, h * frac, fill, "in");
    }
out:
    free(x0);
    free(x1);
    free(bk);
}

/* Terminal output helpers: colour policy, aligned tables, text and CSV forms of
 * values (see out.h). */
#include "out.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "json.h"
#include "vprint.h"

/* ---- colour -------------------------------------------------------------------------- */

bool cf_out_color(FILE *f)
{
    const char *nc = getenv("NO_COLOR");
    if (nc != NULL && nc[0] != '\0')
        return false;
    const char *term = getenv("TERM");
    if (term != NULL && strcmp(term, "dumb") == 0)
        return false;
    int fd = fileno(f); /* -1 for memory streams: never a terminal */
    return fd >= 0 && isatty(fd);
}

void cf_out_on(FILE *f, bool color, const char *sgr)
{
    if (color && sgr != NULL)
        fprintf(f, "\033[%sm", sgr);
}

void cf_out_off(FILE *f, bool color)
{
    if (color)
        fputs("\033[0m", f);
}

/* ---- strings ------------------------------------------------------------------------- */

void cf_out_str_init(cf_out_str *s)
{
    memset(s, 0, sizeof(*s));
}

void cf_out_str_clear(cf_out_str *s)
{
    s->len = 0;
    if (s->data != NULL)
        s->data[0] = '\0';
}

void cf_out_str_put(cf_out_str *s, const void *p, size_t n)
{
    if (s->oom)
        return;
    if (n + 1 > s->cap - s->len || s->data == NULL) {
        size_t cap = s->cap ? s->cap : 64;
        while (n + 1 > cap - s->len) {
            if (cap > SIZE_MAX / 2) {
                s->oom = true;
                return;
            }
            cap *= 2;
        }
        char *d = realloc(s->data, cap);
        if (d == NULL) {
            s->oom = true;
            return;
        }
        s->data = d;
        s->cap = cap;
    }
    if (n > 0)
        memcpy(s->data + s->len, p, n);
    s->len += n;
    s->data[s->len] = '\0';
}

void cf_out_str_puts(cf_out_str *s, const char *p)
{
    cf_out_str_put(s, p, strlen(p));
}

void cf_out_str_vprintf(cf_out_str *s, size_t max, const char *fmt, va_list ap)
{
    char buf[1024];
    if (max > sizeof(buf))
        max = sizeof(buf);
    int n = vsnprintf(buf, max, fmt, ap);
    if (n > 0)
        cf_out_str_put(s, buf, (size_t)n < max ? (size_t)n : max - 1);
}

void cf_out_str_dispose(cf_out_str *s)
{
    free(s->data);
    memset(s, 0, sizeof(*s));
}

/* ---- value text ---------------------------------------------------------------------- */

static bool bit(const uint8_t *bm, size_t i)
{
    return (bm[i >> 3] >> (i & 7)) & 1;
}

static bool has_ctl(const uint8_t *p, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (p[k] < 0x20 || p[k] == 0x7f)
            return true;
    return false;
}

bool cf_out_string_plain(const uint8_t *p, size_t n)
{
    /* In tables NULL is shown as NULL: a string that reads as NULL (or as a
     * quoted string) is shown quoted, so the two never look alike. */
    bool ambiguous =
        (n == 4 && strncasecmp((const char *)p, "null", 4) == 0) || (n > 0 && p[0] == '"');
    return cf_utf8_valid(p, n) && !has_ctl(p, n) && !ambiguous;
}

bool cf_out_row_text(cf_out_str *s, cf_type t, bool is_array, const cf_batch *b, size_t i,
                     bool escape_ctl)
{
    cf_out_str_clear(s);
    if (b->nonnull != NULL && !bit(b->nonnull, i))
        return false;
    const uint8_t *slot = (const uint8_t *)b->values + i * cf_type_size(t);
    if (!is_array && !cf_type_is_binary(t)) {
        char num[CF_CLI_NUM_CAP];
        bool quote;
        cf_out_str_put(s, num, cf_vp_number(num, t, slot, &quote));
        return true;
    }
    /* Strings, BINARY and arrays: the printer's text or table form. */
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (m == NULL) {
        s->oom = true;
        return true;
    }
    cf_vp_cell(m, escape_ctl ? CF_VP_TABLE : CF_VP_TEXT, t, is_array, b, i);
    fclose(m);
    cf_out_str_put(s, buf, len);
    free(buf);
    return true;
}

/* ---- tables -------------------------------------------------------------------------- */

/* Display width: code points, counting UTF-8 continuation bytes as nothing (wide
 * characters are rare in a column dump and not worth a wcwidth table). */
static size_t text_width(const char *p)
{
    size_t w = 0;
    for (; *p; p++)
        w += ((unsigned char)*p & 0xC0) != 0x80;
    return w;
}

void cf_out_table_init(cf_out_table *t, FILE *f, bool color, size_t ncols, const char *const *heads,
                       const char *align)
{
    memset(t, 0, sizeof(*t));
    t->f = f;
    t->color = color;
    t->ncols = ncols < CF_OUT_TABLE_MAX_COLS ? ncols : CF_OUT_TABLE_MAX_COLS;
    for (size_t c = 0; c < t->ncols; c++) {
        t->head[c] = heads[c];
        t->right[c] = align != NULL && align[c] == 'r';
        t->width[c] = text_width(heads[c]);
    }
    cf_out_str_init(&t->cells);
}

void cf_out_table_row(cf_out_table *t, const char *const *cells)
{
    for (size_t c = 0; c < t->ncols; c++) {
        const char *v = cells[c] != NULL ? cells[c] : "";
        size_t w = text_width(v);
        if (w > t->width[c])
            t->width[c] = w;
        cf_out_str_put(&t->cells, v, strlen(v) + 1);
    }
    t->nrows++;
}

static void pad(FILE *f, size_t n)
{
    while (n-- > 0)
        fputc(' ', f);
}

/* One cell with its padding. Blanks are held back in *pending and written only
 * when text follows, so no line ends in spaces. */
static void cell(const cf_out_table *t, size_t c, const char *v, const char *sgr, size_t *pending)
{
    size_t w = text_width(v);
    size_t gap = t->width[c] > w ? t->width[c] - w : 0;
    if (c > 0)
        *pending += 2;
    if (t->right[c])
        *pending += gap;
    if (*v != '\0') {
        pad(t->f, *pending);
        *pending = 0;
        cf_out_on(t->f, t->color, sgr);
        fputs(v, t->f);
        cf_out_off(t->f, t->color && sgr != NULL);
    }
    if (!t->right[c])
        *pending += gap;
}

void cf_out_table_flush(cf_out_table *t)
{
    size_t pending = 0;
    if (!t->header_done) {
        for (size_t c = 0; c < t->ncols; c++)
            cell(t, c, t->head[c], CF_OUT_BOLD, &pending);
        fputc('\n', t->f);
        pending = 0;
        cf_out_on(t->f, t->color, CF_OUT_DIM);
        for (size_t c = 0; c < t->ncols; c++) {
            if (c > 0)
                fputs("  ", t->f);
            for (size_t k = 0; k < t->width[c]; k++)
                fputc('-', t->f);
        }
        cf_out_off(t->f, t->color);
        fputc('\n', t->f);
        t->header_done = true;
    }
    const char *p = t->cells.data;
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t c = 0; c < t->ncols; c++) {
            cell(t, c, p, t->style[c], &pending);
            p += strlen(p) + 1;
        }
        fputc('\n', t->f);
        pending = 0;
    }
    t->nrows = 0;
    cf_out_str_clear(&t->cells);
}

void cf_out_table_dispose(cf_out_table *t)
{
    cf_out_str_dispose(&t->cells);
}

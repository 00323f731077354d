/* `cfile table scan` and `get`: rows of a table printed as text (an aligned
 * table), CSV (what `import` reads back) or JSON lines. */
#include "cli.h"
#include "csv.h"
#include "out.h"
#include "table_args.h"
#include "table_cmd.h"
#include "values.h"
#include "vprint.h"

#include <cfile/rowset.h>

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- output -----------------------------------------------------------------------------------
 */

typedef struct printer {
    cf_cli *c;
    const cf_schema *s;
    const size_t *cols;
    size_t ncols;
    bool json;
    bool header_done;
    int *width;
    uint64_t rows;
    bool csv;    /* --format csv: a header row, then RFC 4180 records (csv.h) */
    bool float9; /* JSON: FLOAT as cf_cli_format_float9 */
    bool raw;    /* text, csv: DATE, UNIXTIME_MICROS, DECIMAL as integers */
} printer;

/* How text and csv show column col's values (vprint.h). */
static cf_vp_style style_of(const printer *p, const cf_column *col)
{
    cf_vp_style st = {p->raw, col->scale};
    return st;
}

/* The JSON lines form: {"column": value, ...} per row. The keys are written
 * once per batch into `keys` (each with its separator) and copied per row. */
static void print_jsonl(printer *p, const cf_row_batch *b)
{
    FILE *out = p->c->out;
    char *keys = NULL;
    size_t klen = 0;
    size_t *koff = calloc(p->ncols + 1, sizeof(*koff));
    FILE *m = koff != NULL ? open_memstream(&keys, &klen) : NULL;
    if (m == NULL) {
        free(koff);
        return;
    }
    for (size_t j = 0; j < p->ncols; j++) {
        cf_jw w;
        cf_jw_init(&w, m);
        fputc(j ? ',' : '{', m);
        cf_jw_key(&w, cf_schema_column_at(p->s, p->cols[j])->name);
        fflush(m);
        koff[j + 1] = klen;
    }
    fclose(m);
    for (size_t r = 0; r < b->count; r++) {
        for (size_t j = 0; j < p->ncols; j++) {
            const cf_column *col = cf_schema_column_at(p->s, p->cols[j]);
            CF_IO_WRITE(keys + koff[j], koff[j + 1] - koff[j], out);
            const cf_batch *cb = &b->cols[j];
            if (p->float9 && col->type == CF_TYPE_FLOAT && !col->is_array &&
                (cb->nonnull == NULL || (cb->nonnull[r / 8] >> (r % 8)) & 1)) {
                char num[CF_CLI_NUM_CAP];
                bool quote;
                float f;
                memcpy(&f, (const float *)cb->values + r, sizeof(f));
                cf_cli_format_float9(num, f, &quote);
                fprintf(out, quote ? "\"%s\"" : "%s", num);
                continue;
            }
            cf_vp_cell(out, CF_VP_JSON, col->type, col->is_array, cb, r);
        }
        CF_IO_WRITE("}\n", 2, out);
    }
    free(keys);
    free(koff);
}

static void print_csv(printer *p, const cf_row_batch *b)
{
    FILE *out = p->c->out;
    if (!p->header_done) {
        for (size_t j = 0; j < p->ncols; j++) {
            const char *nm = cf_schema_column_at(p->s, p->cols[j])->name;
            if (j)
                fputc(',', out);
            cf_vp_csv_field(out, nm, strlen(nm));
        }
        fputc('\n', out);
        p->header_done = true;
    }
    for (size_t r = 0; r < b->count; r++) {
        for (size_t j = 0; j < p->ncols; j++) {
            const cf_column *col = cf_schema_column_at(p->s, p->cols[j]);
            if (j)
                CF_IO_PUTC(',', out);
            cf_vp_cell_styled(out, CF_VP_CSV, col->type, col->is_array, style_of(p, col),
                              &b->cols[j], r);
        }
        CF_IO_PUTC('\n', out);
    }
}

static void print_batch(printer *p, const cf_row_batch *b)
{
    FILE *out = p->c->out;
    p->rows += b->count;
    if (p->csv) {
        print_csv(p, b);
        return;
    }
    if (p->json) {
        print_jsonl(p, b);
        return;
    }
    /* The text form: cells as `dump --format table` shows them (vprint.h
     * CF_VP_TABLE: NULL as NULL, strings that could be mistaken for NULL or a
     * quoted string, or hold a control character, quoted), widths fixed by the
     * header and the first batch. */
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    size_t n = b->count * p->ncols;
    size_t *off = calloc(n + 1, sizeof(*off));
    if (mem == NULL || off == NULL) {
        if (mem)
            fclose(mem);
        free(off);
        return;
    }
    for (size_t r = 0; r < b->count; r++)
        for (size_t j = 0; j < p->ncols; j++) {
            const cf_column *col = cf_schema_column_at(p->s, p->cols[j]);
            off[r * p->ncols + j] = (size_t)ftello(mem);
            cf_vp_cell_styled(mem, CF_VP_TABLE, col->type, col->is_array, style_of(p, col),
                              &b->cols[j], r);
        }
    fflush(mem);
    off[n] = len;
    if (!p->header_done) {
        for (size_t j = 0; j < p->ncols; j++) {
            int w = (int)strlen(cf_schema_column_at(p->s, p->cols[j])->name);
            for (size_t r = 0; r < b->count; r++) {
                size_t k = r * p->ncols + j;
                int cw = (int)(off[k + 1] - off[k]);
                if (cw > w)
                    w = cw > 60 ? 60 : cw;
            }
            p->width[j] = w;
        }
        for (size_t j = 0; j < p->ncols; j++)
            fprintf(out, "%s%-*s", j ? " | " : "", p->width[j],
                    cf_schema_column_at(p->s, p->cols[j])->name);
        fputc('\n', out);
        for (size_t j = 0; j < p->ncols; j++) {
            fputs(j ? "-+-" : "", out);
            for (int k = 0; k < p->width[j]; k++)
                fputc('-', out);
        }
        fputc('\n', out);
        p->header_done = true;
    }
    static const char blanks[64] =
        "                                                               ";
    for (size_t r = 0; r < b->count; r++) {
        for (size_t j = 0; j < p->ncols; j++) {
            size_t k = r * p->ncols + j;
            size_t cw = off[k + 1] - off[k];
            if (j)
                CF_IO_WRITE(" | ", 3, out);
            CF_IO_WRITE(buf + off[k], cw, out);
            for (size_t pad = (size_t)p->width[j] > cw ? (size_t)p->width[j] - cw : 0; pad > 0;) {
                size_t step = pad < sizeof(blanks) - 1 ? pad : sizeof(blanks) - 1;
                CF_IO_WRITE(blanks, step, out);
                pad -= step;
            }
        }
        CF_IO_PUTC('\n', out);
    }
    fclose(mem);
    free(buf);
    free(off);
}

static void print_header_only(printer *p)
{
    if (p->json || p->header_done)
        return;
    if (p->csv) {
        cf_row_batch none = {0, 0, NULL, NULL};
        print_batch(p, &none);
        return;
    }
    for (size_t j = 0; j < p->ncols; j++)
        fprintf(p->c->out, "%s%s", j ? " | " : "", cf_schema_column_at(p->s, p->cols[j])->name);
    fputc('\n', p->c->out);
}

/* ---- scan / get -------------------------------------------------------------------------------
 */

/* --format text|csv|jsonl (--json = jsonl) for scan and get. */
static int output_format(cf_cli *c, bool json, const char *format, printer *p)
{
    if (format == NULL)
        return 0;
    if (strcmp(format, "csv") == 0 && !json)
        p->csv = true;
    else if (strcmp(format, "jsonl") == 0)
        p->json = true;
    else if (strcmp(format, "text") != 0 || json)
        return cf_cli_usage(c, "--format: expected text, csv or jsonl, got '%s'%s", format,
                            json ? " (with --json)" : "");
    return 0;
}

int cf_cli_rows_print(cf_cli *c, const cf_schema *s, const size_t *cols, size_t ncols, bool json,
                      const char *format, uint64_t limit, unsigned flags, cf_cli_rows_fn next,
                      void *ctx, const char *what, uint64_t *printed)
{
    int *width = calloc(ncols + 1, sizeof(*width));
    if (width == NULL)
        return cf_cli_fail(c, "out of memory");
    printer p = {c,
                 s,
                 cols,
                 ncols,
                 json,
                 false,
                 width,
                 0,
                 false,
                 (flags & CF_CLI_ROWS_FLOAT9) != 0,
                 (flags & CF_CLI_ROWS_RAW) != 0};
    int rc = output_format(c, json, format, &p);
    for (uint64_t left = limit; rc == 0 && left > 0;) {
        cf_row_batch b;
        cf_error e;
        cf_status st = next(ctx, &b, &e);
        if (st != CF_OK) {
            rc = cf_cli_lib_fail(c, what, st, &e);
            break;
        }
        if (b.count == 0)
            break;
        if (b.count > left)
            b.count = (size_t)left; /* --limit: the first rows of the batch */
        left -= b.count;
        print_batch(&p, &b);
        if (ferror(c->out))
            break; /* stdout failed: cf_cli_main reports it; scanning on is wasted */
    }
    if (rc == 0)
        print_header_only(&p);
    if (printed != NULL)
        *printed = p.rows;
    free(width);
    return rc;
}

static cf_status table_next(void *ctx, cf_row_batch *b, cf_error *err)
{
    return cf_table_scanner_next(ctx, b, err);
}

static uint64_t snapshot_of(const cf_table_args *t)
{
    /* --as-of TS is inclusive; a snapshot at TS+1 sees every op with ts <= TS. */
    return t->has_asof && t->asof < UINT64_MAX - 1 ? t->asof + 1 : CF_SNAPSHOT_LATEST;
}

int cf_cmd_table_scan(cf_cli *c, const char *dir, cf_table_args *t)
{
    cf_table *rs;
    int rc = cf_cli_table_open(c, dir, t, false, &rs);
    if (rc)
        return rc;
    const cf_schema *s = cf_table_schema(rs);
    size_t *cols = NULL, ncols = 0, npreds = 0;
    cf_pred *preds = NULL;
    cf_cli_arena a;
    cf_cli_arena_init(&a);
    cf_table_scanner *sc = NULL;
    if ((rc = cf_cli_columns_parse(c, s, t->columns, &cols, &ncols)) != 0 ||
        (rc = cf_cli_where_parse(c, s, t->where, &preds, &npreds, &a)) != 0)
        goto out;
    cf_scan_options o;
    cf_cli_scan_options(&o, cols, ncols, preds, npreds);
    o.snapshot = snapshot_of(t);
    o.threads = t->threads;
    cf_error e;
    cf_status st = cf_table_scanner_create(&sc, rs, &o, &e);
    if (st != CF_OK) {
        rc = cf_cli_lib_fail(c, "scan", st, &e);
        goto out;
    }
    uint64_t printed = 0;
    if ((rc = cf_cli_rows_print(c, s, cols, ncols, t->json, t->format, t->limit,
                                t->raw_values ? CF_CLI_ROWS_RAW : 0, table_next, sc, "scan",
                                &printed)) != 0)
        goto out;
    if (t->stats) {
        const cf_scan_stats *ss = cf_table_scanner_stats(sc);
        fprintf(
            c->err,
            "rows: %" PRIu64 " returned, %" PRIu64 " in key range, %" PRIu64 " examined; %" PRIu64
            " batches skipped; %" PRIu64 " blocks (%" PRIu64 " rows) skipped by encoding%s\n",
            printed, ss->rows_in_range, ss->rows_examined, ss->batches_skipped, ss->blocks_skipped,
            ss->rows_skipped, ss->bloom_pruned ? "; bloom ruled the key out" : "");
    }
out:
    cf_table_scanner_free(sc);
    cf_table_free(rs);
    cf_cli_arena_dispose(&a);
    free(cols);
    return rc;
}

int cf_cmd_table_get(cf_cli *c, const char *dir, cf_table_args *t)
{
    /* Keys by --key (the documented spelling, as update and delete take them)
     * or as arguments (the older one), not mixed: either order could be meant. */
    if (t->nkeys > 0 && t->npos > 0)
        return cf_cli_usage(c,
                            "get takes its keys as --key KEY or as arguments, not both "
                            "(argument '%s')",
                            t->pos[0]);
    const char *const *keys = t->nkeys > 0 ? t->keys : (const char *const *)t->pos;
    int nkeys = t->nkeys > 0 ? t->nkeys : t->npos;
    if (nkeys < 1)
        return cf_cli_usage(c, "get needs a key: --key KEY (repeatable)");
    cf_table *rs;
    int rc = cf_cli_table_open(c, dir, t, false, &rs);
    if (rc)
        return rc;
    const cf_schema *s = cf_table_schema(rs);
    size_t *cols = NULL, ncols = 0;
    cf_cli_columns_parse(c, s, NULL, &cols, &ncols);
    int *width = calloc(ncols, sizeof(*width));
    printer p = {c, s, cols, ncols, t->json, false, width, 0, false, false, t->raw_values};
    if ((rc = output_format(c, t->json, t->format, &p)) != 0) {
        free(cols);
        free(width);
        cf_table_free(rs);
        return rc;
    }
    cf_cli_arena a;
    cf_cli_arena_init(&a);
    bool missing = false;
    for (int i = 0; i < nkeys && rc == 0; i++) {
        const void **key;
        if ((rc = cf_cli_key_parse(c, s, keys[i], &key, &a)) != 0)
            break;
        cf_row_batch b;
        cf_error e;
        cf_status st = cf_table_get(rs, key, snapshot_of(t), &b, &e);
        if (st == CF_ENOTFOUND) {
            fprintf(c->err, "cfile: key %s: not found\n", keys[i]);
            missing = true;
            continue;
        }
        if (st != CF_OK) {
            rc = cf_cli_lib_fail(c, keys[i], st, &e);
            break;
        }
        print_batch(&p, &b);
    }
    if (rc == 0 && missing)
        rc = CF_EXIT_FAIL;
    cf_cli_arena_dispose(&a);
    free(cols);
    free(width);
    cf_table_free(rs);
    return rc;
}

/* A record-batch stream over the cells of an HFile (cf_arrow_stream_hfile):
 * row, family, qualifier, timestamp, type, value, one row per cell. */
#include "record.h"

#include <cfile/hfile.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"

enum { H_ROW, H_FAMILY, H_QUALIFIER, H_TIMESTAMP, H_TYPE, H_VALUE, H_NCOLS };

typedef struct hfile_src {
    cf_hfile_iter *it;
    bool raw_keys; /* v1: opaque keys */
    uint64_t done;
    bool end;
} hfile_src;

static void hfile_free(void *ctx)
{
    hfile_src *s = ctx;
    if (s == NULL)
        return;
    cf_hfile_iter_free(s->it);
    cf_free(s);
}

static cf_status hfile_fill(void *ctx, cf_arrow_col *cols, size_t rows, size_t *got, cf_error *err)
{
    hfile_src *s = ctx;
    size_t have = 0;
    while (have < rows && !s->end) {
        cf_hfile_cell c;
        bool has = false;
        CF_TRY(cf_hfile_iter_next(s->it, &c, &has, err));
        if (!has) {
            s->end = true;
            break;
        }
        uint64_t row = s->done + have;
        cf_slice empty = {NULL, 0};
        if (s->raw_keys) {
            CF_TRY(cf_arrow_col_append_one(&cols[H_ROW], &c.key, row, err));
            CF_TRY(cf_arrow_col_append_one(&cols[H_FAMILY], &empty, row, err));
            CF_TRY(cf_arrow_col_append_one(&cols[H_QUALIFIER], &empty, row, err));
            CF_TRY(cf_arrow_col_append_one(&cols[H_TIMESTAMP], NULL, row, err));
            CF_TRY(cf_arrow_col_append_one(&cols[H_TYPE], NULL, row, err));
        } else {
            CF_TRY(cf_arrow_col_append_one(&cols[H_ROW], &c.row, row, err));
            CF_TRY(cf_arrow_col_append_one(&cols[H_FAMILY], &c.family, row, err));
            CF_TRY(cf_arrow_col_append_one(&cols[H_QUALIFIER], &c.qualifier, row, err));
            CF_TRY(cf_arrow_col_append_one(&cols[H_TIMESTAMP], &c.timestamp, row, err));
            char code[8];
            const char *name = cf_hfile_type_name(c.type);
            if (name == NULL) {
                snprintf(code, sizeof code, "%u", (unsigned)c.type);
                name = code;
            }
            cf_slice t = {(const uint8_t *)name, strlen(name)};
            CF_TRY(cf_arrow_col_append_one(&cols[H_TYPE], &t, row, err));
        }
        CF_TRY(cf_arrow_col_append_one(&cols[H_VALUE], &c.value, row, err));
        have++;
    }
    s->done += have;
    *got = have;
    return CF_OK;
}

cf_status cf_arrow_stream_hfile(struct ArrowArrayStream *out, const struct cf_hfile *h,
                                const cf_arrow_options *opts, cf_error *err)
{
    memset(out, 0, sizeof *out);
    cf_arrow_options use;
    if (opts == NULL)
        cf_arrow_options_init(&use);
    else
        use = *opts;
    use.utf8 = CF_ARROW_UTF8_CHECK; /* only `type`, whose names are ASCII, is utf8 */
    static const struct {
        const char *name;
        cf_type type;
    } spec[H_NCOLS] = {{"row", CF_TYPE_BINARY},       {"family", CF_TYPE_BINARY},
                       {"qualifier", CF_TYPE_BINARY}, {"timestamp", CF_TYPE_INT64},
                       {"type", CF_TYPE_STRING},      {"value", CF_TYPE_BINARY}};
    hfile_src *s = cf_calloc(1, sizeof *s);
    cf_arrow_col *cols = cf_calloc(H_NCOLS, sizeof *cols);
    if (s == NULL || cols == NULL) {
        cf_free(s);
        cf_free(cols);
        CF_FAIL(err, CF_ENOMEM, "out of memory for an arrow stream");
    }
    s->raw_keys = cf_hfile_get_info(h)->raw_keys;
    cf_status st = cf_hfile_iter_create(&s->it, h, err);
    size_t made = 0;
    for (; made < H_NCOLS && st == CF_OK; made++) {
        bool nullable = s->raw_keys && (made == H_TIMESTAMP || made == H_TYPE);
        st = cf_arrow_col_init(&cols[made], spec[made].name, spec[made].type, false, nullable, 0, 0,
                               &use, err);
        if (st != CF_OK)
            break;
    }
    cf_arrow_source src = {hfile_fill, hfile_free, s};
    if (st != CF_OK) {
        cf_arrow_source_drop(src, cols, made);
        return st;
    }
    return cf_arrow_stream_make(out, src, cols, H_NCOLS, &use, err);
}

/* DeltaFile writer (format §12.1, §12.2, §12.4, §12.5): a CFile of BINARY PLAIN
 * values (no positional index; value index keyed by each block's first
 * DeltaKey, never shortened), one value per delta = DeltaKey || RowChangeList,
 * and the statistics as footer metadata "deltafilestats".
 */
#include <string.h>

#include "delta_internal.h"

#include "cfile/extend.h"
#include "util/alloc.h"
#include "util/error.h"

struct cf_delta_writer {
    cf_writer *w;
    cf_delta_writer_options opts;
    cf_dstats stats;
    cf_buf tmp;
    uint64_t count;
    uint32_t last_row;
    uint64_t last_ts;
    cf_sticky sticky; /* the first failure, replayed by every later call */
};

void cf_delta_writer_options_init(cf_delta_writer_options *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->version = CF_DELTA_WRITER_OPTIONS_VERSION;
    opts->type = CF_DELTA_REDO;
    opts->compression = CF_COMP_LZ4;
    opts->block_size = CF_DELTA_DEFAULT_BLOCK_SIZE;
    opts->checksums = true;
    opts->write_stats = true;
    opts->check_order = true;
}

/* The value index key: the DeltaKey of the block's first value, re-encoded (as
 * Kudu's key encoder does), without the change list (format §12.5). */
static void validx_key(void *ctx, const void *value, cf_buf *out)
{
    (void)ctx;
    const cf_slice *v = value;
    uint32_t row;
    uint64_t ts;
    size_t used;
    cf_buf_clear(out);
    if (cf_delta_key_decode(v->data, v->len, &row, &ts, &used, NULL) != CF_OK) {
        cf_buf_append(out, v->data, v->len); /* unreachable: we wrote the key */
        return;
    }
    uint8_t *dst = cf_buf_extend(out, CF_DELTA_KEY_MAX);
    if (dst != NULL)
        out->len = out->len - CF_DELTA_KEY_MAX + cf_delta_key_encode(dst, row, ts);
}

static cf_status setup(cf_delta_writer **out, const cf_delta_writer_options *opts,
                       cf_writer_options *wo, cf_delta_writer **dw, cf_error *err)
{
    cf_delta_writer_options def;
    if (opts == NULL) {
        cf_delta_writer_options_init(&def);
        opts = &def;
    }
    *out = NULL;
    CF_CHECK(opts->version == CF_DELTA_WRITER_OPTIONS_VERSION, err, CF_EINVAL,
             "delta writer options: unknown version %" PRIu32, opts->version);
    CF_CHECK(opts->type == CF_DELTA_REDO || opts->type == CF_DELTA_UNDO, err, CF_EINVAL,
             "delta writer options: type %d is neither REDO nor UNDO", (int)opts->type);
    cf_writer_options_init(wo, CF_TYPE_BINARY);
    wo->encoding = CF_ENC_PLAIN;
    wo->compression = opts->compression;
    wo->write_posidx = false;
    wo->write_validx = true;
    wo->optimize_index_keys = false;
    wo->checksums = opts->checksums;
    wo->block_size = opts->block_size ? opts->block_size : CF_DELTA_DEFAULT_BLOCK_SIZE;
    cf_delta_writer *w = cf_calloc(1, sizeof(*w));
    CF_CHECK(w != NULL, err, CF_ENOMEM, "delta writer: out of memory");
    w->opts = *opts;
    cf_dstats_init(&w->stats);
    cf_buf_init(&w->tmp);
    *dw = w;
    return CF_OK;
}

static cf_status finish_setup(cf_delta_writer **out, cf_delta_writer *w, cf_status st,
                              cf_error *err)
{
    if (st == CF_OK)
        st = cf_writer_set_validx_key_fn(w->w, validx_key, NULL, err);
    if (st != CF_OK) {
        cf_delta_writer_free(w);
        return st;
    }
    *out = w;
    return CF_OK;
}

cf_status cf_delta_writer_create(cf_delta_writer **out, cf_io *io,
                                 const cf_delta_writer_options *opts, cf_error *err)
{
    cf_writer_options wo;
    cf_delta_writer *w = NULL;
    CF_TRY(setup(out, opts, &wo, &w, err));
    return finish_setup(out, w, cf_writer_create(&w->w, io, &wo, err), err);
}

cf_status cf_delta_writer_create_file(cf_delta_writer **out, const char *path,
                                      const cf_delta_writer_options *opts, cf_error *err)
{
    cf_writer_options wo;
    cf_delta_writer *w = NULL;
    CF_TRY(setup(out, opts, &wo, &w, err));
    return finish_setup(out, w, cf_writer_create_file(&w->w, path, &wo, err), err);
}

static cf_status fail(cf_delta_writer *w, cf_status st, const cf_error *err)
{
    return cf_sticky_set(&w->sticky, st, err);
}

cf_status cf_delta_writer_append(cf_delta_writer *w, uint32_t row, uint64_t ts, cf_slice rcl,
                                 cf_error *err)
{
    CF_TRY(cf_sticky_replay(&w->sticky, "delta writer", err));
    cf_status st;
    if (w->opts.check_order && w->count > 0) {
        /* Kudu's DeltaKey::CompareTo<REDO|UNDO>: row ascending, then ts ascending
         * (REDO) or descending (UNDO); equal keys are allowed. */
        bool ok = row > w->last_row ||
                  (row == w->last_row &&
                   (w->opts.type == CF_DELTA_REDO ? ts >= w->last_ts : ts <= w->last_ts));
        if (!ok) {
            st = cf_error_set(err, CF_EINVAL, __FILE__, __LINE__,
                              "delta %" PRIu64 ": %s key (row %" PRIu32 "@ts%" PRIu64
                              ") after (row %" PRIu32 "@ts%" PRIu64 ") breaks the order "
                              "(row ascending, then ts %s)",
                              w->count, w->opts.type == CF_DELTA_REDO ? "redo" : "undo", row, ts,
                              w->last_row, w->last_ts,
                              w->opts.type == CF_DELTA_REDO ? "ascending" : "descending");
            return fail(w, st, err);
        }
    }
    if (w->opts.write_stats) {
        st = cf_dstats_update(&w->stats, ts, rcl, err);
        if (st != CF_OK) {
            cf_error_prefix(
                err, st, "delta %" PRIu64 " (row %" PRIu32 "@ts%" PRIu64 "): ", w->count, row, ts);
            return fail(w, st, err);
        }
    }
    cf_buf_clear(&w->tmp);
    uint8_t *k = cf_buf_extend(&w->tmp, CF_DELTA_KEY_MAX);
    if (k != NULL)
        w->tmp.len = cf_delta_key_encode(k, row, ts);
    cf_buf_append(&w->tmp, rcl.data, rcl.len);
    if (w->tmp.oom)
        return fail(w,
                    cf_error_set(err, CF_ENOMEM, __FILE__, __LINE__, "delta writer: out of memory"),
                    err);
    cf_slice v = {w->tmp.data, w->tmp.len};
    st = cf_writer_append(w->w, &v, NULL, 1, err);
    if (st != CF_OK)
        return fail(w, st, err);
    w->count++;
    w->last_row = row;
    w->last_ts = ts;
    return CF_OK;
}

cf_status cf_delta_writer_finish(cf_delta_writer *w, cf_error *err)
{
    CF_TRY(cf_sticky_replay(&w->sticky, "delta writer", err));
    cf_status st;
    if (w->count == 0)
        return fail(w, cf_error_set(err, CF_ESTATE, __FILE__, __LINE__, "no deltas written"), err);
    if (w->opts.write_stats) {
        st = cf_dstats_serialize(&w->stats, &w->tmp, err);
        if (st == CF_OK)
            st = cf_writer_add_metadata(w->w, CF_DELTA_STATS_KEY, w->tmp.data, w->tmp.len, err);
        if (st != CF_OK)
            return fail(w, st, err);
    }
    st = cf_writer_finish(w->w, err);
    if (st != CF_OK)
        return fail(w, st, err);
    return CF_OK;
}

void cf_delta_writer_free(cf_delta_writer *w)
{
    if (w == NULL)
        return;
    cf_writer_free(w->w);
    cf_dstats_dispose(&w->stats);
    cf_buf_dispose(&w->tmp);
    cf_free(w);
}

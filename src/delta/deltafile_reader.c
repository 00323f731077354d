/* DeltaFile reader and delta iterator (format §12.2, §12.4, §12.5).
 *
 * A DeltaFile is a CFile of BINARY values, each = DeltaKey || RowChangeList.
 * The statistics live in the metadata entry "deltafilestats" (DeltaStatsPB).
 * Seeking to a row goes through the value index at-or-before
 * mcvarint(row) || mcvarint(0) and then scans forward (format §12.5).
 */
#include <string.h>

#include "delta_internal.h"

#include "cfile/extend.h"
#include "util/alloc.h"
#include "util/error.h"

struct cf_delta_reader {
    cf_reader *r;
    cf_delta_type type;
    cf_status stats_st;
    cf_error stats_err;
    cf_delta_stats stats;
    cf_delta_col_stat *stats_cols;
};

static cf_status finish_open(cf_delta_reader **out, cf_reader *r, cf_delta_type type, cf_error *err)
{
    const cf_file_info *fi = cf_reader_info(r);
    if (!fi->has_validx) {
        cf_reader_free(r);
        CF_FAIL(err, CF_ENOTSUP, "file does not have a value index!");
    }
    if (fi->type != CF_TYPE_BINARY || fi->nullable || fi->is_array) {
        /* fi lives in r: say what the values are before freeing it */
        cf_status st = cf_error_set(
            err, CF_ENOTSUP, __FILE__, __LINE__, "not a delta file: values are %s%s%s, not BINARY",
            fi->is_array ? "arrays of " : "", cf_type_name(fi->type) ? cf_type_name(fi->type) : "?",
            fi->nullable ? " (nullable)" : "");
        cf_reader_free(r);
        return st;
    }
    cf_delta_reader *d = cf_calloc(1, sizeof(*d));
    if (d == NULL) {
        cf_reader_free(r);
        CF_FAIL(err, CF_ENOMEM, "delta reader: out of memory");
    }
    d->r = r;
    d->type = type;
    cf_slice md;
    if (!cf_reader_get_metadata(r, CF_DELTA_STATS_KEY, &md)) {
        d->stats_st = cf_error_set(&d->stats_err, CF_ENOTSUP, __FILE__, __LINE__,
                                   "missing delta stats from the delta file metadata");
    } else {
        d->stats_st = cf_dstats_parse(md.data, md.len, &d->stats, &d->stats_cols, &d->stats_err);
    }
    *out = d;
    return CF_OK;
}

cf_status cf_delta_reader_open(cf_delta_reader **out, cf_io *io, cf_delta_type type,
                               const cf_reader_options *opts, cf_error *err)
{
    cf_reader *r;
    *out = NULL;
    CF_CHECK(type == CF_DELTA_REDO || type == CF_DELTA_UNDO, err, CF_EINVAL,
             "delta reader: type %d is neither REDO nor UNDO", (int)type);
    CF_TRY(cf_reader_open(&r, io, opts, err));
    return finish_open(out, r, type, err);
}

cf_status cf_delta_reader_open_file(cf_delta_reader **out, const char *path, cf_delta_type type,
                                    const cf_reader_options *opts, cf_error *err)
{
    cf_reader *r;
    *out = NULL;
    CF_CHECK(type == CF_DELTA_REDO || type == CF_DELTA_UNDO, err, CF_EINVAL,
             "delta reader: type %d is neither REDO nor UNDO", (int)type);
    CF_TRY(cf_reader_open_file(&r, path, false, opts, err));
    return finish_open(out, r, type, err);
}

cf_status cf_delta_reader_open_owned(cf_delta_reader **out, cf_io *io, cf_delta_type type,
                                     const cf_reader_options *opts, cf_error *err)
{
    cf_reader *r;
    *out = NULL;
    if (type != CF_DELTA_REDO && type != CF_DELTA_UNDO)
        cf_io_free(io);
    CF_CHECK(type == CF_DELTA_REDO || type == CF_DELTA_UNDO, err, CF_EINVAL,
             "delta reader: type %d is neither REDO nor UNDO", (int)type);
    CF_TRY(cf_reader_open_owned(&r, io, opts, err));
    return finish_open(out, r, type, err);
}

void cf_delta_reader_free(cf_delta_reader *r)
{
    if (r == NULL)
        return;
    cf_reader_free(r->r);
    cf_free(r->stats_cols);
    cf_free(r);
}

const cf_reader *cf_delta_reader_cfile(const cf_delta_reader *r)
{
    return r->r;
}

cf_delta_type cf_delta_reader_type(const cf_delta_reader *r)
{
    return r->type;
}

cf_status cf_delta_reader_stats(const cf_delta_reader *r, const cf_delta_stats **out, cf_error *err)
{
    if (r->stats_st != CF_OK) {
        if (err != NULL)
            *err = r->stats_err;
        return r->stats_st;
    }
    *out = &r->stats;
    return CF_OK;
}

/* ---- iterator ------------------------------------------------------------------------ */

struct cf_delta_iter {
    const cf_delta_reader *r;
    cf_iter *it;
    uint32_t min_row; /* deltas of earlier rows are skipped (after a seek) */
    bool at_end;
};

cf_status cf_delta_iter_create(cf_delta_iter **out, const cf_delta_reader *r, cf_error *err)
{
    cf_delta_iter *d = cf_calloc(1, sizeof(*d));
    CF_CHECK(d != NULL, err, CF_ENOMEM, "delta iterator: out of memory");
    cf_status st = cf_iter_create(&d->it, r->r, err);
    if (st != CF_OK) {
        cf_free(d);
        return st;
    }
    d->r = r;
    *out = d;
    return CF_OK;
}

void cf_delta_iter_free(cf_delta_iter *it)
{
    if (it == NULL)
        return;
    cf_iter_free(it->it);
    cf_free(it);
}

cf_status cf_delta_iter_seek_to_first(cf_delta_iter *it, cf_error *err)
{
    it->min_row = 0;
    it->at_end = false;
    return cf_iter_seek_to_first(it->it, err);
}

cf_status cf_delta_iter_seek_to_row(cf_delta_iter *it, uint32_t row, cf_error *err)
{
    /* Kudu seeks at-or-before DeltaKey(row, 0) (format §12.5). We seek with the
     * row's varint alone: a proper prefix of every key of the row, so it sorts
     * strictly before all of them. With (row, 0), deltas stamped 0 make keys
     * equal to the seek key, and when such equal keys span blocks the seek
     * lands in the last of them and skips the rest; Kudu never stamps 0, so
     * both seeks agree on Kudu's files. */
    uint8_t key[CF_DELTA_KEY_MAX];
    size_t n = cf_mcvarint_encode(key, row);
    it->min_row = row;
    it->at_end = false;
    cf_status st = cf_iter_seek_validx_block(it->it, (cf_slice){key, n}, err);
    if (st == CF_ENOTFOUND) {
        it->at_end = true; /* an empty file */
        return CF_OK;
    }
    return st;
}

cf_status cf_delta_iter_next_batch(cf_delta_iter *it, cf_delta *out, size_t cap, size_t *n,
                                   cf_error *err)
{
    *n = 0;
    if (it->at_end || cap == 0)
        return CF_OK;
    for (;;) {
        cf_batch b;
        uint64_t ord = cf_iter_current_ordinal(it->it);
        CF_TRY(cf_iter_next_batch(it->it, cap, &b, err));
        if (b.count == 0) {
            it->at_end = true;
            return CF_OK;
        }
        const cf_slice *v = b.values;
        size_t k = 0;
        for (size_t i = 0; i < b.count; i++) {
            cf_delta *d = &out[k];
            size_t used;
            cf_status st = cf_delta_key_decode(v[i].data, v[i].len, &d->row, &d->ts, &used, err);
            if (st != CF_OK)
                return cf_error_prefix(err, st, "delta at ordinal %" PRIu64 ": ", ord + i);
            if (d->row < it->min_row)
                continue;
            d->key = (cf_slice){v[i].data, used};
            d->rcl = (cf_slice){v[i].data + used, v[i].len - used};
            k++;
        }
        if (k > 0) {
            /* Once past the seek target nothing is skipped any more. */
            it->min_row = 0;
            *n = k;
            return CF_OK;
        }
    }
}

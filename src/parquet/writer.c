/* The Parquet writer: schema, row groups, page index and footer.
 *
 * File layout as written:
 *   "PAR1"
 *   per row group: per column [dictionary page][data pages]; then the row
 *                  group's bloom filters (header + bitset) per column
 *   column indexes of every chunk, then offset indexes (PageIndex.md: each
 *   kind together, so a reader fetches them in one read)
 *   FileMetaData (compact Thrift) | its length (4 bytes LE) | "PAR1"
 *
 * Only the open row group's pages are in memory (writer_col.c), less for the
 * first column, which writes its pages as they close once its dictionary is
 * settled; what the footer and page index need of written chunks is a few
 * numbers per chunk and a few per page (cf_pq_chunk_rec).
 *
 * Threads: each column's encoder touches only its own state (and the file,
 * for the first column once it streams), so the columns of a slice of rows
 * are appended as one job each on the worker team (cfile/team.h), and at a
 * row group's end each column is sealed (last page, dictionary page, bloom
 * bits) as one job; only the copies to the file stay on the caller, in
 * column order. Every job runs on a compressor of its own, claimed from one
 * per thread (a compressor's output does not depend on what it compressed
 * before). The bytes are those of one thread: a column's pages depend only on
 * its own rows, and a row group ends where it would, since the slices and the
 * check after each are the same. When jobs fail, the first in column order
 * gives the error and the error row, as the one-thread loop, which stops at
 * that column, would. Memory in flight is the same as with one thread (the
 * open row group's encoded pages) plus a compressor context per thread.
 *
 * A file of one column has no second column to run beside: the caller
 * appends (values, dictionary, statistics) while the team builds the pages
 * closed before (levels and indices encoded, compression, CRC, header;
 * writer_col_page.c, "Pipeline"), threads pages at a time (at most
 * PIPE_MAX_THREADS), so memory grows by up to 2 x threads pages' values and
 * encoded bodies. Since the compressed size of a page in flight is not known
 * yet, the row group's size check counts each at its most and waits for
 * them only when that could reach row_group_bytes, so row groups end where
 * they end on one thread. A build's error surfaces at a later append, finish
 * or row group end, with the same text.
 */
#include "writer.h"

#include <cfile/version.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/endian.h"
#include "util/error.h"
#include <cfile/team.h>

/* Rows of one batch handed to the columns at a time: bounds how far a row
 * group can overshoot row_group_bytes. */
#define SLICE_ROWS 4096
#define MAX_COLUMNS 32767
/* Slices with fewer rows are appended on the caller: a run's hand-off would
 * cost about as much as the work (the bytes are the same either way). */
#define PAR_MIN_ROWS 256

typedef struct rg_rec {
    int64_t num_rows, total_byte_size, total_compressed, file_offset;
    cf_pq_chunk_rec *chunks; /* ncols */
} rg_rec;

struct cf_parquet_writer {
    cf_io *io;
    bool own_io;
    cf_pq_wopts o;
    cf_pq_compressor cz; /* one codec context for every page */
    uint64_t rg_max_rows;
    size_t rg_max_bytes;
    int data_page_version;
    size_t ncols;
    cf_pq_wcol_def *defs;
    cf_pq_wcol **cols;
    cf_metadata_pair *kv; /* copies */
    size_t kv_count;
    uint64_t rows, rg_rows;
    rg_rec *rgs;
    size_t nrgs, rgs_cap;
    cf_sticky failed; /* the first failure, replayed by every later call */
    bool finished;
    uint64_t error_row; /* the failing column's refused row (UINT64_MAX: none) */
    /* threads (see the top); team NULL: the caller alone */
    cf_team *team;
    cf_pq_compressor *czs; /* one per team thread, claimed by a job while it runs */
    atomic_bool *cz_busy;
    size_t nczs;
    cf_status *jst; /* per column: the run's job status and error */
    cf_error *jerr;
    bool pipe;                /* one column: appended on the caller, its pages built on the team */
    const cf_batch *job_cols; /* the run's slice: rows [job_from, job_to) */
    size_t job_from, job_to;
};

void cf_parquet_writer_options_init(cf_parquet_writer_options *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->version = CF_PARQUET_WRITER_OPTIONS_VERSION;
    opts->codec = CF_PARQUET_SNAPPY;
    opts->row_group_rows = 1048576;
    opts->row_group_bytes = (size_t)128 << 20;
    opts->page_bytes = (size_t)1 << 20;
    opts->page_rows = 20000;
    opts->dictionary = true;
    opts->dict_page_bytes = (size_t)1 << 20;
    opts->statistics = true;
    opts->page_index = true;
    opts->page_crc = true;
    opts->bloom_fpp = 0.01;
    opts->threads = CF_PARQUET_THREADS_AUTO;
}

/* ---- schema --------------------------------------------------------------------------- */

/* How a Kudu type is stored: its physical type, the order of its min and max
 * (the column order of its logical type), and for decimals the largest
 * precision. */
typedef struct pq_kind {
    int32_t ptype;
    cf_pq_sort sort;
    int32_t type_length;
    int maxp;
} pq_kind;

static const pq_kind kinds[] = {
    [CF_TYPE_BOOL] = {CF_PQT_BOOLEAN, CF_PQS_BOOL, 0, 0},
    [CF_TYPE_INT8] = {CF_PQT_INT32, CF_PQS_I32, 0, 0},
    [CF_TYPE_INT16] = {CF_PQT_INT32, CF_PQS_I32, 0, 0},
    [CF_TYPE_INT32] = {CF_PQT_INT32, CF_PQS_I32, 0, 0},
    [CF_TYPE_DATE] = {CF_PQT_INT32, CF_PQS_I32, 0, 0},
    [CF_TYPE_UINT8] = {CF_PQT_INT32, CF_PQS_U32, 0, 0},
    [CF_TYPE_UINT16] = {CF_PQT_INT32, CF_PQS_U32, 0, 0},
    [CF_TYPE_UINT32] = {CF_PQT_INT32, CF_PQS_U32, 0, 0},
    [CF_TYPE_INT64] = {CF_PQT_INT64, CF_PQS_I64, 0, 0},
    [CF_TYPE_UNIXTIME_MICROS] = {CF_PQT_INT64, CF_PQS_I64, 0, 0},
    [CF_TYPE_UINT64] = {CF_PQT_INT64, CF_PQS_U64, 0, 0},
    [CF_TYPE_FLOAT] = {CF_PQT_FLOAT, CF_PQS_FLOAT, 0, 0},
    [CF_TYPE_DOUBLE] = {CF_PQT_DOUBLE, CF_PQS_DOUBLE, 0, 0},
    [CF_TYPE_STRING] = {CF_PQT_BYTE_ARRAY, CF_PQS_BYTES, 0, 0},
    [CF_TYPE_VARCHAR] = {CF_PQT_BYTE_ARRAY, CF_PQS_BYTES, 0, 0},
    [CF_TYPE_BINARY] = {CF_PQT_BYTE_ARRAY, CF_PQS_BYTES, 0, 0},
    [CF_TYPE_DECIMAL32] = {CF_PQT_INT32, CF_PQS_I32, 0, 9},
    [CF_TYPE_DECIMAL64] = {CF_PQT_INT64, CF_PQS_I64, 0, 18},
    [CF_TYPE_DECIMAL128] = {CF_PQT_FIXED_LEN_BYTE_ARRAY, CF_PQS_DECIMAL_BE, 16, 38},
    [CF_TYPE_INT128] = {CF_PQT_FIXED_LEN_BYTE_ARRAY, CF_PQS_BYTES, 16, 0},
};

static cf_status column_def(cf_pq_wcol_def *d, const cf_parquet_write_column *c, size_t i,
                            cf_error *err)
{
    CF_CHECK(c->name != NULL && c->name[0] != '\0', err, CF_EINVAL, "column %zu: empty name", i);
    CF_CHECK(cf_type_valid((int)c->type), err, CF_EINVAL, "column %s: unknown type %d", c->name,
             (int)c->type);
    memset(d, 0, sizeof(*d));
    d->ktype = c->type;
    d->nullable = c->nullable;
    d->is_array = c->is_array;
    d->bloom = c->bloom_filter && c->type != CF_TYPE_BOOL;
    d->utf8 = (c->type == CF_TYPE_STRING || c->type == CF_TYPE_VARCHAR) && !c->binary;
    d->precision = c->precision;
    d->scale = c->scale;
    const pq_kind *k = &kinds[c->type];
    d->ptype = k->ptype;
    d->sort = k->sort;
    d->type_length = k->type_length;
    const int maxp = k->maxp;
    if (maxp) {
        if (d->precision == 0)
            d->precision = maxp;
        CF_CHECK(d->precision >= 1 && d->precision <= maxp, err, CF_EINVAL,
                 "column %s: precision %d outside 1..%d for %s", c->name, c->precision, maxp,
                 cf_type_name(c->type));
        CF_CHECK(d->scale >= 0 && d->scale <= d->precision, err, CF_EINVAL,
                 "column %s: scale %d outside 0..%d", c->name, c->scale, d->precision);
    }
    if (c->is_array) {
        d->max_rep = 1;
        d->max_def = c->nullable ? 3 : 2;
    } else {
        d->max_def = c->nullable ? 1 : 0;
    }
    size_t n = strlen(c->name);
    d->name = cf_malloc(n + 1);
    CF_CHECK(d->name != NULL, err, CF_ENOMEM, "out of memory");
    memcpy(d->name, c->name, n + 1);
    return CF_OK;
}

static cf_status check_options(const cf_parquet_writer_options *o, cf_error *err)
{
    CF_CHECK(o->version == CF_PARQUET_WRITER_OPTIONS_VERSION, err, CF_EINVAL,
             "parquet writer options: version %u is not %u (call _init)", o->version,
             CF_PARQUET_WRITER_OPTIONS_VERSION);
    switch (o->codec) {
    case CF_PARQUET_UNCOMPRESSED:
    case CF_PARQUET_SNAPPY:
    case CF_PARQUET_GZIP:
    case CF_PARQUET_BROTLI:
    case CF_PARQUET_ZSTD:
    case CF_PARQUET_LZ4_RAW: break;
    default:
        CF_FAIL(err, CF_EINVAL,
                "parquet writer options: codec %d is not UNCOMPRESSED, SNAPPY, GZIP, BROTLI, "
                "ZSTD or LZ4_RAW",
                o->codec);
    }
    CF_CHECK(o->row_group_rows >= 1, err, CF_EINVAL, "parquet writer options: row_group_rows 0");
    CF_CHECK(o->row_group_bytes >= 1, err, CF_EINVAL, "parquet writer options: row_group_bytes 0");
    CF_CHECK(o->page_bytes >= 1 && o->page_bytes <= ((size_t)1 << 30), err, CF_EINVAL,
             "parquet writer options: page_bytes %zu outside 1..1 GiB", o->page_bytes);
    CF_CHECK(o->page_rows >= 1, err, CF_EINVAL, "parquet writer options: page_rows 0");
    CF_CHECK(o->dict_page_bytes <= ((size_t)1 << 30), err, CF_EINVAL,
             "parquet writer options: dict_page_bytes %zu above 1 GiB", o->dict_page_bytes);
    CF_CHECK(o->bloom_fpp > 0.0 && o->bloom_fpp < 1.0, err, CF_EINVAL,
             "parquet writer options: bloom_fpp %g outside (0, 1)", o->bloom_fpp);
    CF_CHECK(o->kv_count == 0 || o->kv != NULL, err, CF_EINVAL,
             "parquet writer options: kv_count without kv");
    CF_CHECK(o->threads <= CF_PARQUET_MAX_THREADS, err, CF_EINVAL,
             "parquet writer options: threads %zu above %u", o->threads, CF_PARQUET_MAX_THREADS);
    return CF_OK;
}

/* A file of one column builds at most this many pages at once: twice as many
 * are in memory (see the top). */
#define PIPE_MAX_THREADS 8

/* The team and its compressors, for `threads` threads over ncols columns. */
static cf_status start_threads(cf_parquet_writer *w, size_t threads, cf_error *err)
{
    size_t t =
        threads == CF_PARQUET_THREADS_AUTO ? cf_team_online_cpus(CF_PARQUET_MAX_THREADS) : threads;
    /* one column: its pages build on the team (see the top), at most
     * PIPE_MAX_THREADS at once */
    if (t > (w->ncols == 1 ? PIPE_MAX_THREADS : w->ncols))
        t = w->ncols == 1 ? PIPE_MAX_THREADS : w->ncols;
    if (t < 2)
        return CF_OK;
    w->czs = cf_calloc(t, sizeof(*w->czs));
    w->cz_busy = cf_calloc(t, sizeof(*w->cz_busy));
    w->jst = cf_calloc(w->ncols, sizeof(*w->jst));
    w->jerr = cf_calloc(w->ncols, sizeof(*w->jerr));
    CF_CHECK(w->czs && w->cz_busy && w->jst && w->jerr, err, CF_ENOMEM, "out of memory");
    for (size_t i = 0; i < t; i++) {
        cf_pq_compressor_init(&w->czs[i], (unsigned)w->o.codec, w->o.level);
        atomic_init(&w->cz_busy[i], false);
    }
    w->nczs = t;
    CF_TRY(cf_team_create(&w->team, t - 1, err));
    if (w->ncols == 1) {
        w->pipe = true;
        CF_TRY(cf_pq_wcol_pipeline(w->cols[0], w->team, w->czs, t, err));
    }
    return CF_OK;
}

/* A compressor no running job holds: there is always one, since no more jobs
 * run at once than the team has threads. */
static cf_pq_compressor *claim_cz(cf_parquet_writer *w)
{
    for (;;)
        for (size_t i = 0; i < w->nczs; i++)
            if (!atomic_exchange_explicit(&w->cz_busy[i], true, memory_order_acq_rel))
                return &w->czs[i];
}

static void release_cz(cf_parquet_writer *w, const cf_pq_compressor *cz)
{
    atomic_store_explicit(&w->cz_busy[cz - w->czs], false, memory_order_release);
}

static cf_status append_job(void *ctx, size_t i, cf_error *err)
{
    cf_parquet_writer *w = ctx;
    cf_pq_compressor *cz = claim_cz(w);
    cf_pq_wcol_set_compressor(w->cols[i], cz);
    cf_status st = cf_pq_wcol_append(w->cols[i], &w->job_cols[i], w->job_from, w->job_to, err);
    release_cz(w, cz);
    return st;
}

static cf_status seal_job(void *ctx, size_t i, cf_error *err)
{
    cf_parquet_writer *w = ctx;
    cf_pq_compressor *cz = claim_cz(w);
    cf_pq_wcol_set_compressor(w->cols[i], cz);
    cf_status st = cf_pq_wcol_seal(w->cols[i], err);
    release_cz(w, cz);
    return st;
}

/* One job per column on the team; the first failing column's error. */
static cf_status run_columns(cf_parquet_writer *w, cf_team_fn fn, cf_error *err)
{
    cf_team_run(w->team, fn, w, w->ncols, w->jst, w->jerr);
    for (size_t i = 0; i < w->ncols; i++)
        if (w->jst[i] != CF_OK) {
            w->error_row = cf_pq_wcol_bad_row(w->cols[i]);
            if (err)
                *err = w->jerr[i];
            return w->jst[i];
        }
    return CF_OK;
}

static cf_status dup_slice(cf_slice *out, cf_slice in, cf_error *err)
{
    uint8_t *p = cf_malloc(in.len + 1);
    CF_CHECK(p != NULL, err, CF_ENOMEM, "out of memory");
    if (in.len)
        memcpy(p, in.data, in.len);
    out->data = p;
    out->len = in.len;
    return CF_OK;
}

cf_status cf_parquet_writer_create(cf_parquet_writer **out, cf_io *io,
                                   const cf_parquet_write_column *cols, size_t ncols,
                                   const cf_parquet_writer_options *opts, cf_error *err)
{
    *out = NULL;
    cf_parquet_writer_options defaults;
    if (opts == NULL) {
        cf_parquet_writer_options_init(&defaults);
        opts = &defaults;
    }
    CF_TRY(check_options(opts, err));
    CF_CHECK(io != NULL && io->ops->append != NULL, err, CF_EINVAL,
             "parquet writer: the io is not writable");
    CF_CHECK(ncols >= 1 && ncols <= MAX_COLUMNS, err, CF_EINVAL,
             "parquet writer: %zu columns (1..%d)", ncols, MAX_COLUMNS);
    CF_CHECK(cf_pq_codec_supported((unsigned)opts->codec), err, CF_ENOTSUP,
             "parquet writer: codec %s is not built in", cf_pq_codec_name((unsigned)opts->codec));
    cf_status st = CF_OK;
    cf_parquet_writer *w = cf_calloc(1, sizeof(*w));
    CF_CHECK(w != NULL, err, CF_ENOMEM, "out of memory");
    w->io = io;
    w->error_row = UINT64_MAX;
    cf_pq_compressor_init(&w->cz, (unsigned)opts->codec, opts->level);
    w->o.codec = opts->codec;
    w->o.level = opts->level;
    w->o.page_bytes = opts->page_bytes;
    w->o.page_rows = opts->page_rows;
    w->o.dictionary = opts->dictionary;
    w->o.dict_page_bytes = opts->dict_page_bytes;
    w->o.v2 = opts->data_page_v2;
    w->o.statistics = opts->statistics;
    w->o.page_index = opts->page_index;
    w->o.page_crc = opts->page_crc;
    w->o.bloom_fpp = opts->bloom_fpp;
    w->rg_max_rows = opts->row_group_rows;
    w->rg_max_bytes = opts->row_group_bytes;
    w->ncols = ncols;
    w->defs = cf_calloc(ncols, sizeof(*w->defs));
    w->cols = cf_calloc(ncols, sizeof(*w->cols));
    if (w->defs == NULL || w->cols == NULL)
        CF_FAIL_OUT(err, CF_ENOMEM, "out of memory");
    for (size_t i = 0; i < ncols; i++) {
        CF_TRY_OUT(column_def(&w->defs[i], &cols[i], i, err));
        for (size_t j = 0; j < i; j++)
            if (strcmp(w->defs[j].name, w->defs[i].name) == 0)
                CF_FAIL_OUT(err, CF_EINVAL, "parquet writer: two columns named %s",
                            w->defs[i].name);
        CF_TRY_OUT(cf_pq_wcol_create(&w->cols[i], &w->defs[i], &w->o, &w->cz, err));
    }
    cf_pq_wcol_stream_to(w->cols[0], io); /* its chunk leads every row group */
    CF_TRY_OUT(start_threads(w, opts->threads, err));
    if (opts->kv_count) {
        w->kv = cf_calloc(opts->kv_count, sizeof(*w->kv));
        if (w->kv == NULL)
            CF_FAIL_OUT(err, CF_ENOMEM, "out of memory");
        w->kv_count = opts->kv_count;
        for (size_t i = 0; i < opts->kv_count; i++) {
            CF_TRY_OUT(dup_slice(&w->kv[i].key, opts->kv[i].key, err));
            CF_TRY_OUT(dup_slice(&w->kv[i].value, opts->kv[i].value, err));
        }
    }
    CF_TRY_OUT(io->ops->append(io, "PAR1", 4, err));
    *out = w;
    return CF_OK;
out:
    cf_parquet_writer_free(w);
    return st;
}

cf_status cf_parquet_writer_create_file(cf_parquet_writer **out, const char *path,
                                        const cf_parquet_write_column *cols, size_t ncols,
                                        const cf_parquet_writer_options *opts, cf_error *err)
{
    *out = NULL;
    cf_io *io;
    CF_TRY(cf_io_create_file(&io, path, err));
    cf_status st = cf_parquet_writer_create(out, io, cols, ncols, opts, err);
    if (st != CF_OK) {
        cf_io_free(io);
        return st;
    }
    (*out)->own_io = true;
    return CF_OK;
}

void cf_parquet_writer_free(cf_parquet_writer *w)
{
    if (w == NULL)
        return;
    cf_team_free(w->team); /* no job runs once it returns */
    for (size_t i = 0; i < w->nczs; i++)
        cf_pq_compressor_dispose(&w->czs[i]);
    cf_free(w->czs);
    cf_free((void *)w->cz_busy);
    cf_free(w->jst);
    cf_free(w->jerr);
    for (size_t i = 0; i < w->ncols; i++) {
        if (w->cols)
            cf_pq_wcol_free(w->cols[i]);
        if (w->defs)
            cf_free(w->defs[i].name);
    }
    cf_free(w->cols);
    cf_free(w->defs);
    for (size_t i = 0; i < w->kv_count; i++) {
        cf_free((void *)w->kv[i].key.data);
        cf_free((void *)w->kv[i].value.data);
    }
    cf_free(w->kv);
    for (size_t g = 0; g < w->nrgs; g++) {
        for (size_t i = 0; i < w->ncols; i++)
            cf_pq_chunk_rec_dispose(&w->rgs[g].chunks[i]);
        cf_free(w->rgs[g].chunks);
    }
    cf_free(w->rgs);
    cf_pq_compressor_dispose(&w->cz);
    if (w->own_io)
        cf_io_free(w->io);
    cf_free(w);
}

uint64_t cf_parquet_writer_rows(const cf_parquet_writer *w)
{
    return w->rows;
}

uint64_t cf_parquet_writer_error_row(const cf_parquet_writer *w)
{
    return w->error_row;
}
uint64_t cf_parquet_writer_bytes(const cf_parquet_writer *w)
{
    return w->io->ops->size(w->io);
}

/* ---- row groups ------------------------------------------------------------------------ */

static cf_status fail(cf_parquet_writer *w, cf_status st, const cf_error *err)
{
    return cf_sticky_set(&w->failed, st, err);
}

static cf_status flush_row_group(cf_parquet_writer *w, cf_error *err)
{
    if (w->rg_rows == 0)
        return CF_OK;
    if (w->nrgs == w->rgs_cap) {
        size_t ncap = w->rgs_cap ? 2 * w->rgs_cap : 8;
        rg_rec *n = cf_realloc(w->rgs, ncap * sizeof(*n));
        CF_CHECK(n != NULL, err, CF_ENOMEM, "out of memory");
        w->rgs = n;
        w->rgs_cap = ncap;
    }
    CF_CHECK(w->nrgs < 32767, err, CF_EINVAL,
             "parquet writer: more than 32767 row groups (raise the row group size)");
    rg_rec *g = &w->rgs[w->nrgs];
    memset(g, 0, sizeof(*g));
    g->chunks = cf_calloc(w->ncols, sizeof(*g->chunks));
    CF_CHECK(g->chunks != NULL, err, CF_ENOMEM, "out of memory");
    w->nrgs++;
    g->num_rows = (int64_t)w->rg_rows;
    if (w->pipe)
        CF_TRY(cf_pq_wcol_seal(w->cols[0], err));
    else if (w->team)
        CF_TRY(run_columns(w, seal_job, err));
    for (size_t i = 0; i < w->ncols; i++) {
        CF_TRY(cf_pq_wcol_write_chunk(w->cols[i], w->io, &g->chunks[i], err));
        g->total_byte_size += g->chunks[i].total_uncompressed;
        g->total_compressed += g->chunks[i].total_compressed;
    }
    /* the first chunk's start (it may have been written while the row group
     * was open) */
    const cf_pq_chunk_rec *c0 = &g->chunks[0];
    g->file_offset = c0->has_dict ? c0->dict_page_offset : c0->data_page_offset;
    for (size_t i = 0; i < w->ncols; i++)
        CF_TRY(cf_pq_wcol_write_bloom(w->cols[i], w->io, &g->chunks[i], err));
    w->rg_rows = 0;
    return CF_OK;
}

/* Have the row group's pages reached row_group_bytes? Pages in flight
 * (writer_col_page.c, "Pipeline") are waited for only when their most bytes
 * could reach it, so the answer is the one thread's, and mostly without
 * waiting. */
static cf_status row_group_full(cf_parquet_writer *w, bool *full, cf_error *err)
{
    size_t buffered = 0;
    uint64_t ahead = 0;
    for (size_t i = 0; i < w->ncols; i++) {
        buffered += cf_pq_wcol_buffered(w->cols[i]);
        ahead += cf_pq_wcol_in_flight_max(w->cols[i]);
    }
    *full = buffered >= w->rg_max_bytes;
    if (*full || ahead == 0 || buffered + ahead < w->rg_max_bytes)
        return CF_OK;
    buffered = 0;
    for (size_t i = 0; i < w->ncols; i++) {
        CF_TRY(cf_pq_wcol_drain(w->cols[i], err));
        buffered += cf_pq_wcol_buffered(w->cols[i]);
    }
    *full = buffered >= w->rg_max_bytes;
    return CF_OK;
}

static cf_status append(cf_parquet_writer *w, const cf_batch *cols, size_t nrows, cf_error *err)
{
    size_t done = 0;
    while (done < nrows) {
        uint64_t room = w->rg_max_rows - w->rg_rows;
        size_t n = nrows - done;
        if (n > SLICE_ROWS)
            n = SLICE_ROWS;
        if (n > room)
            n = (size_t)room;
        if (w->team && !w->pipe && n >= PAR_MIN_ROWS) {
            w->job_cols = cols;
            w->job_from = done;
            w->job_to = done + n;
            CF_TRY(run_columns(w, append_job, err));
        } else {
            for (size_t i = 0; i < w->ncols; i++) {
                cf_status st = cf_pq_wcol_append(w->cols[i], &cols[i], done, done + n, err);
                if (st != CF_OK) {
                    w->error_row = cf_pq_wcol_bad_row(w->cols[i]);
                    return st;
                }
            }
        }
        done += n;
        w->rg_rows += n;
        w->rows += n;
        if (w->rg_rows >= w->rg_max_rows) {
            CF_TRY(flush_row_group(w, err));
        } else {
            bool full;
            CF_TRY(row_group_full(w, &full, err));
            if (full)
                CF_TRY(flush_row_group(w, err));
        }
    }
    return CF_OK;
}

cf_status cf_parquet_writer_append(cf_parquet_writer *w, const cf_batch *cols, size_t nrows,
                                   cf_error *err)
{
    CF_TRY(cf_sticky_replay(&w->failed, "parquet writer", err));
    CF_CHECK(!w->finished, err, CF_ESTATE, "parquet writer: append after finish");
    CF_CHECK(cols != NULL || nrows == 0, err, CF_EINVAL, "parquet writer: no columns");
    cf_status st = append(w, cols, nrows, err);
    if (st != CF_OK)
        return fail(w, st, err);
    return CF_OK;
}

/* ---- footer ------------------------------------------------------------------------------ */

static void logical(cf_thrift_writer *tw, const cf_pq_wcol_def *d)
{
    /* INT128 has no INT annotation: Parquet stores it as FIXED_LEN_BYTE_ARRAY(16). */
    int bits = d->ktype == CF_TYPE_INT128 ? 0 : cf_type_int_bits(d->ktype);
    bool is_signed = !cf_type_is_unsigned(d->ktype);
    int32_t ct = -1;
    if (bits) {
        static const int32_t sct[] = {CF_PARQUET_CT_INT_8, CF_PARQUET_CT_INT_16,
                                      CF_PARQUET_CT_INT_32, CF_PARQUET_CT_INT_64};
        static const int32_t uct[] = {CF_PARQUET_CT_UINT_8, CF_PARQUET_CT_UINT_16,
                                      CF_PARQUET_CT_UINT_32, CF_PARQUET_CT_UINT_64};
        int k = bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : 3;
        ct = is_signed ? sct[k] : uct[k];
    }
    switch (d->ktype) {
    case CF_TYPE_STRING:
    case CF_TYPE_VARCHAR:
        if (d->utf8)
            ct = CF_PARQUET_CT_UTF8;
        break;
    case CF_TYPE_DATE: ct = CF_PARQUET_CT_DATE; break;
    case CF_TYPE_UNIXTIME_MICROS: ct = CF_PARQUET_CT_TIMESTAMP_MICROS; break;
    case CF_TYPE_DECIMAL32:
    case CF_TYPE_DECIMAL64:
    case CF_TYPE_DECIMAL128: ct = CF_PARQUET_CT_DECIMAL; break;
    default: break;
    }
    if (ct >= 0)
        cf_thrift_write_field_i32(tw, 6, ct);
    if (ct == CF_PARQUET_CT_DECIMAL) {
        cf_thrift_write_field_i32(tw, 7, d->scale);
        cf_thrift_write_field_i32(tw, 8, d->precision);
    }
    if (ct < 0)
        return;
    cf_thrift_write_field(tw, 10, CF_TT_STRUCT); /* LogicalType union */
    cf_thrift_write_struct_begin(tw);
    if (bits) {
        cf_thrift_write_field(tw, CF_PARQUET_LT_INTEGER, CF_TT_STRUCT);
        cf_thrift_write_struct_begin(tw);
        cf_thrift_write_field(tw, 1, CF_TT_I8);
        cf_thrift_write_i8(tw, (int8_t)bits);
        cf_thrift_write_field_bool(tw, 2, is_signed);
        cf_thrift_write_struct_end(tw);
    } else if (ct == CF_PARQUET_CT_UTF8 || ct == CF_PARQUET_CT_DATE) {
        cf_thrift_write_field(
            tw, ct == CF_PARQUET_CT_UTF8 ? CF_PARQUET_LT_STRING : CF_PARQUET_LT_DATE, CF_TT_STRUCT);
        cf_thrift_write_struct_begin(tw);
        cf_thrift_write_struct_end(tw);
    } else if (ct == CF_PARQUET_CT_TIMESTAMP_MICROS) {
        cf_thrift_write_field(tw, CF_PARQUET_LT_TIMESTAMP, CF_TT_STRUCT);
        cf_thrift_write_struct_begin(tw);
        cf_thrift_write_field_bool(tw, 1, true);
        cf_thrift_write_field(tw, 2, CF_TT_STRUCT); /* TimeUnit union */
        cf_thrift_write_struct_begin(tw);
        cf_thrift_write_field(tw, CF_PARQUET_MICROS, CF_TT_STRUCT);
        cf_thrift_write_struct_begin(tw);
        cf_thrift_write_struct_end(tw);
        cf_thrift_write_struct_end(tw);
        cf_thrift_write_struct_end(tw);
    } else if (ct == CF_PARQUET_CT_DECIMAL) {
        cf_thrift_write_field(tw, CF_PARQUET_LT_DECIMAL, CF_TT_STRUCT);
        cf_thrift_write_struct_begin(tw);
        cf_thrift_write_field_i32(tw, 1, d->scale);
        cf_thrift_write_field_i32(tw, 2, d->precision);
        cf_thrift_write_struct_end(tw);
    }
    cf_thrift_write_struct_end(tw);
}

static void leaf_element(cf_thrift_writer *tw, const cf_pq_wcol_def *d, const char *name,
                         int32_t repetition)
{
    cf_thrift_write_struct_begin(tw);
    cf_thrift_write_field_i32(tw, 1, d->ptype);
    if (d->ptype == CF_PQT_FIXED_LEN_BYTE_ARRAY)
        cf_thrift_write_field_i32(tw, 2, d->type_length);
    cf_thrift_write_field_i32(tw, 3, repetition);
    cf_thrift_write_field_binary(tw, 4, name, strlen(name));
    logical(tw, d);
    cf_thrift_write_struct_end(tw);
}

static void group_element(cf_thrift_writer *tw, const char *name, int32_t repetition,
                          int32_t children, bool list)
{
    cf_thrift_write_struct_begin(tw);
    if (repetition >= 0)
        cf_thrift_write_field_i32(tw, 3, repetition);
    cf_thrift_write_field_binary(tw, 4, name, strlen(name));
    cf_thrift_write_field_i32(tw, 5, children);
    if (list) {
        cf_thrift_write_field_i32(tw, 6, CF_PARQUET_CT_LIST);
        cf_thrift_write_field(tw, 10, CF_TT_STRUCT);
        cf_thrift_write_struct_begin(tw);
        cf_thrift_write_field(tw, CF_PARQUET_LT_LIST, CF_TT_STRUCT);
        cf_thrift_write_struct_begin(tw);
        cf_thrift_write_struct_end(tw);
        cf_thrift_write_struct_end(tw);
    }
    cf_thrift_write_struct_end(tw);
}

static void write_chunk_meta(cf_thrift_writer *tw, const cf_parquet_writer *w,
                             const cf_pq_wcol_def *d, const cf_pq_chunk_rec *r)
{
    cf_thrift_write_struct_begin(tw); /* ColumnChunk */
    cf_thrift_write_field_i64(tw, 2, r->has_dict ? r->dict_page_offset : r->data_page_offset);
    cf_thrift_write_field(tw, 3, CF_TT_STRUCT);
    cf_thrift_write_struct_begin(tw); /* ColumnMetaData */
    cf_thrift_write_field_i32(tw, 1, d->ptype);
    uint32_t nenc = 0;
    for (unsigned e = 0; e < 32; e++)
        nenc += (r->encodings >> e) & 1;
    cf_thrift_write_field(tw, 2, CF_TT_LIST);
    cf_thrift_write_list_begin(tw, CF_TT_I32, nenc);
    for (unsigned e = 0; e < 32; e++)
        if ((r->encodings >> e) & 1)
            cf_thrift_write_i32(tw, (int32_t)e);
    cf_thrift_write_field(tw, 3, CF_TT_LIST);
    if (d->is_array) {
        cf_thrift_write_list_begin(tw, CF_TT_BINARY, 3);
        cf_thrift_write_binary(tw, d->name, strlen(d->name));
        cf_thrift_write_binary(tw, "list", 4);
        cf_thrift_write_binary(tw, "element", 7);
    } else {
        cf_thrift_write_list_begin(tw, CF_TT_BINARY, 1);
        cf_thrift_write_binary(tw, d->name, strlen(d->name));
    }
    cf_thrift_write_field_i32(tw, 4, w->o.codec);
    cf_thrift_write_field_i64(tw, 5, r->num_values);
    cf_thrift_write_field_i64(tw, 6, r->total_uncompressed);
    cf_thrift_write_field_i64(tw, 7, r->total_compressed);
    cf_thrift_write_field_i64(tw, 9, r->data_page_offset);
    if (r->has_dict)
        cf_thrift_write_field_i64(tw, 11, r->dict_page_offset);
    if (r->has_stats) {
        cf_thrift_write_field(tw, 12, CF_TT_STRUCT);
        cf_thrift_write_struct_begin(tw);
        cf_thrift_write_field_i64(tw, 3, r->null_count);
        if (r->has_minmax) {
            cf_thrift_write_field_binary(tw, 5, r->max, r->max_len);
            cf_thrift_write_field_binary(tw, 6, r->min, r->min_len);
        }
        cf_thrift_write_struct_end(tw);
    }
    if (r->has_bloom) {
        cf_thrift_write_field_i64(tw, 14, r->bloom_offset);
        cf_thrift_write_field_i32(tw, 15, r->bloom_len);
    }
    cf_thrift_write_struct_end(tw); /* ColumnMetaData */
    if (r->oi_len) {
        cf_thrift_write_field_i64(tw, 4, r->oi_offset);
        cf_thrift_write_field_i32(tw, 5, r->oi_len);
    }
    if (r->ci_len) {
        cf_thrift_write_field_i64(tw, 6, r->ci_offset);
        cf_thrift_write_field_i32(tw, 7, r->ci_len);
    }
    cf_thrift_write_struct_end(tw);
}

static cf_status write_footer(cf_parquet_writer *w, cf_buf *b, cf_error *err)
{
    cf_thrift_writer tw;
    cf_thrift_writer_init(&tw, b);
    cf_thrift_write_struct_begin(&tw);
    cf_thrift_write_field_i32(&tw, 1, w->o.v2 ? 2 : 1);
    uint32_t nelem = 1;
    for (size_t i = 0; i < w->ncols; i++)
        nelem += w->defs[i].is_array ? 3 : 1;
    cf_thrift_write_field(&tw, 2, CF_TT_LIST);
    cf_thrift_write_list_begin(&tw, CF_TT_STRUCT, nelem);
    group_element(&tw, "schema", -1, (int32_t)w->ncols, false);
    for (size_t i = 0; i < w->ncols; i++) {
        const cf_pq_wcol_def *d = &w->defs[i];
        int32_t rep = d->nullable ? CF_PARQUET_OPTIONAL : CF_PARQUET_REQUIRED;
        if (d->is_array) {
            group_element(&tw, d->name, rep, 1, true);
            group_element(&tw, "list", CF_PARQUET_REPEATED, 1, false);
            leaf_element(&tw, d, "element", CF_PARQUET_OPTIONAL);
        } else {
            leaf_element(&tw, d, d->name, rep);
        }
    }
    cf_thrift_write_field_i64(&tw, 3, (int64_t)w->rows);
    cf_thrift_write_field(&tw, 4, CF_TT_LIST);
    cf_thrift_write_list_begin(&tw, CF_TT_STRUCT, (uint32_t)w->nrgs);
    for (size_t g = 0; g < w->nrgs; g++) {
        const rg_rec *rg = &w->rgs[g];
        cf_thrift_write_struct_begin(&tw);
        cf_thrift_write_field(&tw, 1, CF_TT_LIST);
        cf_thrift_write_list_begin(&tw, CF_TT_STRUCT, (uint32_t)w->ncols);
        for (size_t i = 0; i < w->ncols; i++)
            write_chunk_meta(&tw, w, &w->defs[i], &rg->chunks[i]);
        cf_thrift_write_field_i64(&tw, 2, rg->total_byte_size);
        cf_thrift_write_field_i64(&tw, 3, rg->num_rows);
        cf_thrift_write_field_i64(&tw, 5, rg->file_offset);
        cf_thrift_write_field_i64(&tw, 6, rg->total_compressed);
        cf_thrift_write_field(&tw, 7, CF_TT_I16);
        cf_thrift_write_i32(&tw, (int32_t)g);
        cf_thrift_write_struct_end(&tw);
    }
    if (w->kv_count) {
        cf_thrift_write_field(&tw, 5, CF_TT_LIST);
        cf_thrift_write_list_begin(&tw, CF_TT_STRUCT, (uint32_t)w->kv_count);
        for (size_t i = 0; i < w->kv_count; i++) {
            cf_thrift_write_struct_begin(&tw);
            cf_thrift_write_field_binary(&tw, 1, w->kv[i].key.data, w->kv[i].key.len);
            cf_thrift_write_field_binary(&tw, 2, w->kv[i].value.data, w->kv[i].value.len);
            cf_thrift_write_struct_end(&tw);
        }
    }
    char created_by[64];
    snprintf(created_by, sizeof(created_by), "cfile version %d.%d.%d", CF_VERSION_MAJOR,
             CF_VERSION_MINOR, CF_VERSION_PATCH);
    cf_thrift_write_field_binary(&tw, 6, created_by, strlen(created_by));
    cf_thrift_write_field(&tw, 7, CF_TT_LIST);
    cf_thrift_write_list_begin(&tw, CF_TT_STRUCT, (uint32_t)w->ncols);
    for (size_t i = 0; i < w->ncols; i++) {
        cf_thrift_write_struct_begin(&tw); /* ColumnOrder { 1: TYPE_ORDER {} } */
        cf_thrift_write_field(&tw, 1, CF_TT_STRUCT);
        cf_thrift_write_struct_begin(&tw);
        cf_thrift_write_struct_end(&tw);
        cf_thrift_write_struct_end(&tw);
    }
    cf_thrift_write_struct_end(&tw);
    CF_CHECK(cf_thrift_writer_status(&tw) == CF_OK, err, CF_ENOMEM,
             "out of memory encoding the footer");
    return CF_OK;
}

/* ---- page index ------------------------------------------------------------------------ */

/* A page bound's bytes (bounds is NULL when every bound is empty). */
static const uint8_t *bound(const cf_pq_chunk_rec *r, uint32_t off)
{
    return r->bounds ? r->bounds + off : (const uint8_t *)"";
}

/* ASCENDING (1) when every non-null page's bounds are >= the previous one's,
 * DESCENDING (2) when <=, else UNORDERED (0). */
static int32_t boundary_order(const cf_pq_chunk_rec *r, cf_pq_sort s)
{
    bool asc = true, desc = true;
    const cf_pq_page_rec *prev = NULL;
    for (uint32_t i = 0; i < r->page_count; i++) {
        const cf_pq_page_rec *p = &r->pages[i];
        if (!p->has_minmax)
            continue;
        if (prev) {
            int cmin = cf_pq_wcol_cmp(s, bound(r, prev->min_off), prev->min_len,
                                      bound(r, p->min_off), p->min_len);
            int cmax = cf_pq_wcol_cmp(s, bound(r, prev->max_off), prev->max_len,
                                      bound(r, p->max_off), p->max_len);
            if (cmin > 0 || cmax > 0)
                asc = false;
            if (cmin < 0 || cmax < 0)
                desc = false;
        }
        prev = p;
    }
    return asc ? 1 : desc ? 2 : 0;
}

static cf_status write_page_index(cf_parquet_writer *w, cf_error *err)
{
    cf_buf b;
    cf_buf_init(&b);
    cf_status st = CF_OK;
    for (int kind = 0; kind < 2; kind++) { /* column indexes, then offset indexes */
        for (size_t g = 0; g < w->nrgs; g++) {
            for (size_t i = 0; i < w->ncols; i++) {
                cf_pq_chunk_rec *r = &w->rgs[g].chunks[i];
                if (r->page_count == 0 || (kind == 0 && !r->ci_ok))
                    continue;
                cf_buf_clear(&b);
                cf_thrift_writer tw;
                cf_thrift_writer_init(&tw, &b);
                cf_thrift_write_struct_begin(&tw);
                if (kind == 0) {
                    cf_thrift_write_field(&tw, 1, CF_TT_LIST);
                    cf_thrift_write_list_begin(&tw, CF_TT_BOOL_TRUE, r->page_count);
                    for (uint32_t p = 0; p < r->page_count; p++)
                        cf_thrift_write_bool(&tw, r->pages[p].null_page);
                    for (int16_t f = 2; f <= 3; f++) {
                        cf_thrift_write_field(&tw, f, CF_TT_LIST);
                        cf_thrift_write_list_begin(&tw, CF_TT_BINARY, r->page_count);
                        for (uint32_t p = 0; p < r->page_count; p++) {
                            const cf_pq_page_rec *pr = &r->pages[p];
                            if (!pr->has_minmax)
                                cf_thrift_write_binary(&tw, "", 0);
                            else if (f == 2)
                                cf_thrift_write_binary(&tw, bound(r, pr->min_off), pr->min_len);
                            else
                                cf_thrift_write_binary(&tw, bound(r, pr->max_off), pr->max_len);
                        }
                    }
                    cf_thrift_write_field_i32(&tw, 4, boundary_order(r, w->defs[i].sort));
                    cf_thrift_write_field(&tw, 5, CF_TT_LIST);
                    cf_thrift_write_list_begin(&tw, CF_TT_I64, r->page_count);
                    for (uint32_t p = 0; p < r->page_count; p++)
                        cf_thrift_write_i64(&tw, r->pages[p].null_count);
                } else {
                    cf_thrift_write_field(&tw, 1, CF_TT_LIST);
                    cf_thrift_write_list_begin(&tw, CF_TT_STRUCT, r->page_count);
                    for (uint32_t p = 0; p < r->page_count; p++) {
                        cf_thrift_write_struct_begin(&tw);
                        cf_thrift_write_field_i64(&tw, 1, r->pages[p].offset);
                        cf_thrift_write_field_i32(&tw, 2, r->pages[p].size);
                        cf_thrift_write_field_i64(&tw, 3, r->pages[p].first_row);
                        cf_thrift_write_struct_end(&tw);
                    }
                }
                cf_thrift_write_struct_end(&tw);
                if (cf_thrift_writer_status(&tw) != CF_OK || b.len > INT32_MAX)
                    CF_FAIL_OUT(err, CF_ENOMEM, "out of memory encoding the page index");
                int64_t off = (int64_t)w->io->ops->size(w->io);
                CF_TRY_OUT(w->io->ops->append(w->io, b.data, b.len, err));
                if (kind == 0) {
                    r->ci_offset = off;
                    r->ci_len = (int32_t)b.len;
                } else {
                    r->oi_offset = off;
                    r->oi_len = (int32_t)b.len;
                }
            }
        }
    }
out:
    cf_buf_dispose(&b);
    return st;
}

static cf_status finish(cf_parquet_writer *w, cf_error *err)
{
    CF_TRY(flush_row_group(w, err));
    if (w->o.page_index)
        CF_TRY(write_page_index(w, err));
    cf_buf b;
    cf_buf_init(&b);
    cf_status st = write_footer(w, &b, err);
    if (st == CF_OK && b.len > UINT32_MAX)
        st = cf_error_set(err, CF_EINVAL, __FILE__, __LINE__, "footer of %zu bytes", b.len);
    if (st == CF_OK) {
        uint8_t tail[8];
        cf_store_le32(tail, (uint32_t)b.len);
        memcpy(tail + 4, "PAR1", 4);
        st = w->io->ops->append(w->io, b.data, b.len, err);
        if (st == CF_OK)
            st = w->io->ops->append(w->io, tail, 8, err);
    }
    cf_buf_dispose(&b);
    CF_TRY(st);
    if (w->io->ops->commit)
        CF_TRY(w->io->ops->commit(w->io, err));
    return CF_OK;
}

cf_status cf_parquet_writer_finish(cf_parquet_writer *w, cf_error *err)
{
    CF_TRY(cf_sticky_replay(&w->failed, "parquet writer", err));
    CF_CHECK(!w->finished, err, CF_ESTATE, "parquet writer: finish called twice");
    cf_status st = finish(w, err);
    if (st != CF_OK)
        return fail(w, st, err);
    w->finished = true;
    return CF_OK;
}

void cf_pq_writer_hold_chunks(cf_parquet_writer *w)
{
    cf_pq_wcol_stream_to(w->cols[0], NULL);
}

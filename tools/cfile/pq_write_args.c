/* The Parquet writer options both `cfile convert` and `cfile parquet write` take
 * (pq_write_args.h), and the summary of a Parquet output. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cfile/parquet.h>
#include <cfile/rowset.h>

#include "cli.h"
#include "convert.h"
#include "csv.h"
#include "pq_kudu.h"
#include "pq_write_args.h"

void cf_pq_args_init(cf_pq_args *a)
{
    memset(a, 0, sizeof(*a));
    cf_parquet_writer_options_init(&a->o);
    a->progress = isatty(STDERR_FILENO);
}

void cf_pq_args_dispose(cf_pq_args *a)
{
    for (size_t i = 0; i < a->nbloom; i++)
        free(a->bloom[i]);
    free(a->bloom);
    for (size_t i = 0; i < a->nbinary; i++)
        free(a->binary[i]);
    free(a->binary);
    free(a->meta);
    free(a->kudu_types);
}

/* Record the Kudu types Parquet cannot say (pq_kudu.h) in the footer, unless
 * --meta set that key itself. s: the columns' schema (VARCHAR lengths), or NULL. */
int cf_pq_kudu_types(cf_cli *c, cf_pq_args *a, const cf_parquet_write_column *cols,
                     const cf_schema *s, size_t n)
{
    const size_t klen = strlen(CF_PQ_KUDU_TYPES_KEY);
    for (size_t i = 0; i < a->nmeta; i++)
        if (a->meta[i].key.len == klen &&
            memcmp(a->meta[i].key.data, CF_PQ_KUDU_TYPES_KEY, klen) == 0)
            return 0;
    int *len = calloc(n ? n : 1, sizeof(*len));
    if (len == NULL)
        return cf_cli_fail(c, "out of memory");
    for (size_t i = 0; s != NULL && i < n; i++)
        len[i] = cf_schema_column_at(s, i)->length;
    char *v = cf_pq_kudu_types_value(cols, len, n);
    free(len);
    if (v == NULL)
        return 0;
    cf_metadata_pair *m = realloc(a->meta, (a->nmeta + 1) * sizeof(*m));
    if (m == NULL) {
        free(v);
        return cf_cli_fail(c, "out of memory");
    }
    free(a->kudu_types);
    a->kudu_types = v;
    a->meta = m;
    m[a->nmeta].key = (cf_slice){(const uint8_t *)CF_PQ_KUDU_TYPES_KEY, klen};
    m[a->nmeta].value = (cf_slice){(const uint8_t *)v, strlen(v)};
    a->o.kv = a->meta;
    a->o.kv_count = a->nmeta + 1;
    return 0;
}

static int parse_size(cf_cli *c, const char *opt, const char *arg, uint64_t min, uint64_t *out)
{
    if (cf_cli_parse_u64(arg, out) != 0 || *out < min)
        return cf_cli_usage(c, "--%s: expected an integer >= %" PRIu64 ", got '%s'", opt, min, arg);
    return 0;
}

static int parse_codec(const char *s, int32_t *out)
{
    static const struct {
        const char *name;
        int32_t codec;
    } names[] = {
        {"none", CF_PARQUET_UNCOMPRESSED}, {"uncompressed", CF_PARQUET_UNCOMPRESSED},
        {"snappy", CF_PARQUET_SNAPPY},     {"gzip", CF_PARQUET_GZIP},
        {"brotli", CF_PARQUET_BROTLI},     {"zstd", CF_PARQUET_ZSTD},
        {"lz4_raw", CF_PARQUET_LZ4_RAW},   {"lz4", CF_PARQUET_LZ4_RAW},
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcasecmp(s, names[i].name) == 0) {
            *out = names[i].codec;
            return 0;
        }
    return -1;
}

/* 1 = not one of ours, 0 = taken, else an exit code. */
int cf_pq_option(cf_cli *c, cf_pq_args *a, int ch, const char *arg)
{
    uint64_t v;
    int rc;
    switch (ch) {
    case O_CODEC:
        if (parse_codec(arg, &a->o.codec) != 0)
            return cf_cli_usage(c,
                                "--codec: expected none, snappy, gzip, brotli, zstd or "
                                "lz4_raw, got '%s'",
                                arg);
        return 0;
    case O_LEVEL:
        if ((rc = parse_size(c, "level", arg, 0, &v)) != 0)
            return rc;
        if (v > 22)
            return cf_cli_usage(c, "--level: %" PRIu64 " is above 22", v);
        a->o.level = (int)v;
        return 0;
    case O_THREADS:
        if ((rc = parse_size(c, "threads", arg, 0, &v)) != 0)
            return rc;
        if (v > CF_PARQUET_MAX_THREADS)
            return cf_cli_usage(c, "--threads: %" PRIu64 " is above %u", v, CF_PARQUET_MAX_THREADS);
        a->o.threads = (size_t)v;
        return 0;
    case O_RG_ROWS:
        if ((rc = parse_size(c, "row-group-rows", arg, 1, &v)) != 0)
            return rc;
        a->o.row_group_rows = v;
        return 0;
    case O_RG_BYTES:
        if ((rc = parse_size(c, "row-group-bytes", arg, 1, &v)) != 0)
            return rc;
        a->o.row_group_bytes = (size_t)v;
        return 0;
    case O_PAGE_BYTES:
        if ((rc = parse_size(c, "page-bytes", arg, 1, &v)) != 0)
            return rc;
        if (v > ((uint64_t)1 << 30))
            return cf_cli_usage(c, "--page-bytes: %" PRIu64 " is above 1 GiB", v);
        a->o.page_bytes = (size_t)v;
        return 0;
    case O_PAGE_ROWS:
        if ((rc = parse_size(c, "page-rows", arg, 1, &v)) != 0)
            return rc;
        if (v > UINT32_MAX)
            return cf_cli_usage(c, "--page-rows: %" PRIu64 " is too large", v);
        a->o.page_rows = (uint32_t)v;
        return 0;
    case O_DICT_BYTES:
        if ((rc = parse_size(c, "dict-bytes", arg, 0, &v)) != 0)
            return rc;
        if (v > ((uint64_t)1 << 30))
            return cf_cli_usage(c, "--dict-bytes: %" PRIu64 " is above 1 GiB", v);
        a->o.dict_page_bytes = (size_t)v;
        return 0;
    case O_V2: a->o.data_page_v2 = true; return 0;
    case O_NO_DICT: a->o.dictionary = false; return 0;
    case O_NO_STATS: a->o.statistics = false; return 0;
    case O_NO_PI: a->o.page_index = false; return 0;
    case O_NO_CRC: a->o.page_crc = false; return 0;
    case O_BLOOM:
    case O_BINARY: {
        char ***list = ch == O_BLOOM ? &a->bloom : &a->binary;
        size_t *n = ch == O_BLOOM ? &a->nbloom : &a->nbinary;
        char *copy = strdup(arg), *save = NULL;
        if (copy == NULL)
            return cf_cli_fail(c, "out of memory");
        for (char *p = strtok_r(copy, ",", &save); p != NULL; p = strtok_r(NULL, ",", &save)) {
            if (ch == O_BLOOM && strcmp(p, "all") == 0) {
                a->bloom_all = true;
                continue;
            }
            char **nb = realloc(*list, (*n + 1) * sizeof(*nb));
            char *d = strdup(p);
            if (nb == NULL || d == NULL) {
                free(d);
                if (nb)
                    *list = nb;
                free(copy);
                return cf_cli_fail(c, "out of memory");
            }
            *list = nb;
            (*list)[(*n)++] = d;
        }
        free(copy);
        return 0;
    }
    case O_BLOOM_FPP: {
        char *end;
        errno = 0;
        double p = strtod(arg, &end);
        if (errno || *end || !(p > 0.0 && p < 1.0))
            return cf_cli_usage(c, "--bloom-fpp: expected a number in (0, 1), got '%s'", arg);
        a->o.bloom_fpp = p;
        return 0;
    }
    case O_META: {
        const char *eq = strchr(arg, '=');
        if (eq == NULL || eq == arg)
            return cf_cli_usage(c, "--meta: expected KEY=VALUE, got '%s'", arg);
        cf_metadata_pair *m = realloc(a->meta, (a->nmeta + 1) * sizeof(*m));
        if (m == NULL)
            return cf_cli_fail(c, "out of memory");
        a->meta = m;
        m[a->nmeta].key = (cf_slice){(const uint8_t *)arg, (size_t)(eq - arg)};
        m[a->nmeta].value = (cf_slice){(const uint8_t *)eq + 1, strlen(eq + 1)};
        a->nmeta++;
        a->o.kv = a->meta;
        a->o.kv_count = a->nmeta;
        return 0;
    }
    case O_PROGRESS: a->progress = true; return 0;
    case O_QUIET:
        a->quiet = true;
        a->json = false;
        return 0;
    case O_JSON:
        a->json = true;
        a->quiet = false;
        return 0;
    default: return 1;
    }
}

int cf_pq_writer_create(cf_cli *c, const cf_pq_args *a, const char *out,
                        const cf_parquet_write_column *cols, size_t n, cf_parquet_writer **w)
{
    cf_error e;
    cf_status st = cf_parquet_writer_create_file(w, out, cols, n, &a->o, &e);
    if (st == CF_OK)
        return 0;
    return st == CF_EINVAL ? cf_cli_usage(c, "%s", e.msg) : cf_cli_lib_fail(c, out, st, &e);
}

/* Mark the columns --bloom and --binary name; a name no column has is a usage error. */
int cf_pq_apply_bloom(cf_cli *c, cf_pq_args *a, cf_parquet_write_column *cols, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cols[i].bloom_filter = a->bloom_all;
    for (size_t b = 0; b < a->nbloom + a->nbinary; b++) {
        bool bloom = b < a->nbloom;
        const char *name = bloom ? a->bloom[b] : a->binary[b - a->nbloom];
        size_t i = 0;
        while (i < n && strcmp(cols[i].name, name) != 0)
            i++;
        if (i == n)
            return cf_cli_usage(c, "--%s: no column named '%s'", bloom ? "bloom" : "binary", name);
        if (bloom)
            cols[i].bloom_filter = true;
        else
            cols[i].binary = true;
    }
    return 0;
}

/* Columns of a table schema as the writer takes them. */
int cf_pq_columns_of(cf_cli *c, const cf_schema *s, cf_parquet_write_column **out)
{
    size_t n = cf_schema_column_count(s);
    cf_parquet_write_column *cols = calloc(n, sizeof(*cols));
    if (cols == NULL)
        return cf_cli_fail(c, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const cf_column *rc = cf_schema_column_at(s, i);
        cols[i].name = rc->name;
        cols[i].type = rc->type;
        cols[i].nullable = rc->nullable;
        cols[i].is_array = rc->is_array;
        cols[i].precision = rc->precision;
        cols[i].scale = rc->scale;
    }
    *out = cols;
    return 0;
}

/* --json for a Parquet output: one document. Row groups are read back from the
 * footer just written (the writer does not count them). */
static int pq_json(cf_cli *c, const char *out, const cf_parquet_writer *w, const cf_pq_args *a,
                   const cf_pq_source *src)
{
    cf_parquet *pq = NULL;
    cf_error e;
    cf_status st = cf_parquet_open_file(&pq, out, NULL, &e);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, out, st, &e);
    cf_jw j;
    cf_jw_report_begin(&j, c->out, src->op);
    cf_jw_kv_cstr(&j, "from", src->from);
    cf_jw_kv_arr_begin(&j, "inputs");
    for (size_t i = 0; i < src->ninputs; i++)
        cf_jw_cstr(&j, src->inputs[i]);
    cf_jw_arr_end(&j);
    if (src->has_as_of)
        cf_jw_kv_uint(&j, "as_of", src->as_of);
    cf_jw_kv_cstr(&j, "to", "parquet");
    cf_jw_kv_cstr(&j, "file", out);
    cf_jw_kv_uint(&j, "rows", cf_parquet_writer_rows(w));
    cf_jw_kv_uint(&j, "row_groups", cf_parquet_meta(pq)->row_group_count);
    cf_jw_kv_arr_begin(&j, "columns");
    for (size_t i = 0; i < src->ncols; i++) {
        const cf_parquet_write_column *col = &src->cols[i];
        cf_jw_obj_begin(&j);
        cf_jw_kv_cstr(&j, "name", col->name);
        cf_jw_kv_cstr(&j, "type", cf_cli_type_name(col->type));
        cf_jw_kv_bool(&j, "is_array", col->is_array);
        cf_jw_kv_bool(&j, "nullable", col->nullable);
        cf_jw_kv_bool(&j, "bloom_filter", col->bloom_filter);
        cf_jw_obj_end(&j);
    }
    cf_jw_arr_end(&j);
    cf_jw_key(&j, "codec");
    const char *codec = cf_parquet_codec_name(a->o.codec);
    cf_jw_cstr(&j, codec != NULL ? codec : "UNKNOWN");
    cf_jw_kv_uint(&j, "bytes", cf_parquet_file_size(pq));
    if (src->extra != NULL)
        src->extra(src->extra_ctx, &j);
    cf_jw_obj_end(&j);
    cf_jw_newline(&j);
    cf_parquet_free(pq);
    return 0;
}

int cf_pq_finish_writer(cf_cli *c, const char *out, cf_parquet_writer *w, const cf_pq_args *a,
                        const cf_pq_source *src, double t0)
{
    cf_error e;
    cf_status st = cf_parquet_writer_finish(w, &e);
    if (st != CF_OK)
        return cf_cli_lib_fail(c, out, st, &e);
    if (a->json)
        return pq_json(c, out, w, a, src);
    if (!a->quiet)
        fprintf(c->out, "wrote %" PRIu64 " rows, %" PRIu64 " bytes to %s in %.2f s\n",
                cf_parquet_writer_rows(w), cf_parquet_writer_bytes(w), out, cf_cli_now_s() - t0);
    return 0;
}

/* `cfile delta dump`: a DeltaFile's deltas and statistics, as the golden files'
 * expected.json records them. */
#include "cli.h"
#include "delta_cmd.h"
#include "values.h"

#include <cfile/delta.h>

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- dump -------------------------------------------------------------------------- */

static int cmp_stat(const void *a, const void *b)
{
    const cf_delta_col_stat *x = a, *y = b;
    return x->col_id < y->col_id ? -1 : x->col_id > y->col_id;
}

static void stats_json(cf_jw *w, const cf_delta_stats *st)
{
    /* What Kudu's DeltaStats gives back: counts merged per id, ascending. */
    cf_delta_col_stat *m = malloc((st->ncols ? st->ncols : 1) * sizeof(*m));
    size_t n = 0;
    int64_t total = 0;
    if (m != NULL) {
        memcpy(m, st->cols, st->ncols * sizeof(*m));
        qsort(m, st->ncols, sizeof(*m), cmp_stat);
        for (size_t i = 0; i < st->ncols; i++) {
            total += m[i].update_count;
            if (n > 0 && m[n - 1].col_id == m[i].col_id)
                m[n - 1].update_count += m[i].update_count;
            else
                m[n++] = m[i];
        }
    }
    cf_jw_kv_obj_begin(w, "delta_stats");
    cf_jw_kv_uint(w, "min_timestamp", st->min_ts);
    cf_jw_kv_uint(w, "max_timestamp", st->max_ts);
    cf_jw_kv_int(w, "delete_count", st->delete_count);
    cf_jw_kv_int(w, "reinsert_count", st->reinsert_count);
    cf_jw_kv_int(w, "update_count", total);
    cf_jw_kv_obj_begin(w, "update_counts_by_col_id");
    for (size_t i = 0; i < n; i++) {
        if (m[i].update_count <= 0)
            continue;
        char k[16];
        snprintf(k, sizeof(k), "%" PRId32, (int32_t)m[i].col_id);
        cf_jw_kv_int(w, k, m[i].update_count);
    }
    cf_jw_obj_end(w);
    cf_jw_obj_end(w);
    free(m);

    cf_jw_kv_obj_begin(w, "delta_stats_pb");
    cf_jw_kv_int(w, "delete_count", st->delete_count);
    cf_jw_kv_int(w, "reinsert_count", st->reinsert_count);
    cf_jw_kv_arr_begin(w, "column_stats");
    for (size_t i = 0; i < st->ncols; i++) {
        cf_jw_obj_begin(w);
        cf_jw_kv_int(w, "col_id", (int32_t)st->cols[i].col_id);
        cf_jw_kv_int(w, "update_count", st->cols[i].update_count);
        cf_jw_obj_end(w);
    }
    cf_jw_arr_end(w);
    cf_jw_kv_uint(w, "max_timestamp", st->max_ts);
    cf_jw_kv_uint(w, "min_timestamp", st->min_ts);
    cf_jw_obj_end(w);
}

static const char *op_name(cf_rcl_type t)
{
    return t == CF_RCL_UPDATE ? "UPDATE" : t == CF_RCL_DELETE ? "DELETE" : "REINSERT";
}

/* One delta as the golden expected.json spells it. */
static void delta_json(cf_jw *w, const cf_delta *d, const cf_cli_delta_schema *s)
{
    cf_error e;
    cf_rcl_decoder dec;
    cf_jw_obj_begin(w);
    cf_jw_kv_uint(w, "row", d->row);
    cf_jw_kv_uint(w, "ts", d->ts);
    cf_jw_key(w, "op");
    cf_status st = cf_rcl_decoder_init(&dec, d->rcl, &e);
    if (st != CF_OK) {
        cf_jw_cstr(w, "INVALID");
        cf_jw_key(w, "decode_error");
        cf_cli_delta_write_status(w, st, &e);
    } else {
        cf_jw_cstr(w, op_name(dec.type));
    }
    if (st == CF_OK && dec.type != CF_RCL_DELETE) {
        /* Decode everything first: the error goes before "set". */
        cf_rcl_decoder probe = dec;
        cf_rcl_change ch;
        cf_status bad = CF_OK;
        cf_error be;
        int ci;
        size_t good = 0, unknown = 0;
        while (cf_rcl_decoder_has_next(&probe)) {
            if ((bad = cf_rcl_decoder_next(&probe, &ch, &be)) != CF_OK ||
                (bad = cf_rcl_change_validate(&ch, s->cols, s->n, &ci, &be)) != CF_OK)
                break;
            good++;
            unknown += ci < 0;
        }
        if (bad != CF_OK) {
            cf_jw_key(w, "decode_error");
            cf_cli_delta_write_status(w, bad, &be);
        }
        cf_jw_kv_obj_begin(w, "set");
        probe = dec;
        for (size_t i = 0; i < good; i++) {
            cf_rcl_decoder_next(&probe, &ch, NULL);
            cf_rcl_change_validate(&ch, s->cols, s->n, &ci, NULL);
            if (ci < 0)
                continue;
            cf_jw_key(w, s->cols[ci].name);
            if (ch.is_null)
                cf_jw_null(w);
            else
                cf_cli_delta_raw_write(w, s->cols[ci].type, ch.value);
        }
        cf_jw_obj_end(w);
        if (unknown > 0) {
            cf_jw_kv_arr_begin(w, "unknown_columns");
            probe = dec;
            for (size_t i = 0; i < good; i++) {
                cf_rcl_decoder_next(&probe, &ch, NULL);
                cf_rcl_change_validate(&ch, s->cols, s->n, &ci, NULL);
                if (ci >= 0)
                    continue;
                cf_jw_obj_begin(w);
                cf_jw_kv_uint(w, "col_id", ch.col_id);
                if (ch.is_null) {
                    cf_jw_kv_null(w, "value");
                } else {
                    cf_jw_key(w, "raw_hex");
                    cf_jw_hex(w, ch.value.data, ch.value.len);
                }
                cf_jw_obj_end(w);
            }
            cf_jw_arr_end(w);
        }
    }
    cf_jw_key(w, "key_hex");
    cf_jw_hex(w, d->key.data, d->key.len);
    cf_jw_key(w, "rcl_hex");
    cf_jw_hex(w, d->rcl.data, d->rcl.len);
    cf_jw_obj_end(w);
}

int cf_cmd_delta_dump(cf_cli *c, int argc, char **argv)
{
    cf_cli_delta_args a;
    int prc = cf_cli_delta_parse_args(c, argc, argv, &a, false);
    if (prc != 0)
        return prc == -1 ? CF_EXIT_OK : CF_EXIT_USAGE;
    cf_json_doc sdoc;
    cf_cli_delta_schema s = {0};
    int rc = cf_cli_delta_schema_load(c, &s, &sdoc, a.schema_path);
    cf_delta_reader *r = NULL;
    cf_delta_iter *it = NULL;
    cf_delta *buf = NULL;
    cf_error e;
    cf_status st;
    if (rc != CF_EXIT_OK)
        goto out;
    if ((st = cf_delta_reader_open_file(&r, a.file, a.type, NULL, &e)) != CF_OK ||
        (st = cf_delta_iter_create(&it, r, &e)) != CF_OK ||
        (st = cf_delta_iter_seek_to_first(it, &e)) != CF_OK) {
        rc = cf_cli_lib_fail(c, a.file, st, &e);
        goto out;
    }
    buf = malloc(CF_CLI_BATCH * sizeof(*buf));
    if (buf == NULL) {
        rc = cf_cli_fail(c, "out of memory");
        goto out;
    }
    cf_jw w;
    cf_jw_init(&w, c->out);
    const cf_delta_stats *ds;
    cf_error se;
    cf_status sst = cf_delta_reader_stats(r, &ds, &se);
    if (a.json) {
        cf_jw_obj_begin(&w);
        cf_jw_kv_cstr(&w, "delta_type", a.type == CF_DELTA_REDO ? "REDO" : "UNDO");
        cf_jw_kv_uint(&w, "num_deltas", cf_reader_info(cf_delta_reader_cfile(r))->num_values);
        if (sst == CF_OK) {
            stats_json(&w, ds);
        } else {
            cf_jw_key(&w, "delta_file_reader_error");
            cf_cli_delta_write_status(&w, sst, &se);
        }
        cf_jw_kv_arr_begin(&w, "deltas");
    } else {
        fprintf(c->out, "# %s: %s DeltaFile, %" PRIu64 " deltas\n", a.file,
                a.type == CF_DELTA_REDO ? "REDO" : "UNDO",
                cf_reader_info(cf_delta_reader_cfile(r))->num_values);
        if (sst == CF_OK)
            fprintf(c->out,
                    "# ts [%" PRIu64 ", %" PRIu64 "], %" PRId64 " deletes, %" PRId64
                    " reinserts, %zu updated columns\n",
                    ds->min_ts, ds->max_ts, ds->delete_count, ds->reinsert_count, ds->ncols);
        else
            fprintf(c->out, "# stats: %s\n", se.msg);
    }
    uint64_t shown = 0;
    while (shown < a.limit) {
        size_t n;
        size_t want = a.limit - shown < CF_CLI_BATCH ? (size_t)(a.limit - shown) : CF_CLI_BATCH;
        if ((st = cf_delta_iter_next_batch(it, buf, want, &n, &e)) != CF_OK) {
            if (a.json)
                fputc('\n', c->out);
            rc = cf_cli_lib_fail(c, a.file, st, &e);
            goto out;
        }
        if (n == 0)
            break;
        for (size_t i = 0; i < n; i++) {
            if (!a.json)
                cf_jw_init(&w, c->out);
            delta_json(&w, &buf[i], &s);
            if (!a.json)
                fputc('\n', c->out);
        }
        shown += n;
    }
    if (a.json) {
        cf_jw_arr_end(&w);
        cf_jw_obj_end(&w);
        cf_jw_newline(&w);
    }
out:
    free(buf);
    cf_delta_iter_free(it);
    cf_delta_reader_free(r);
    free(s.cols);
    cf_json_doc_dispose(&sdoc);
    return rc;
}

/* `cfile kudu wal dump`: a tablet's write-ahead log as Kudu's `kudu wal dump`
 * and `kudu local_replica dump wals` show it (tools/tool_action_wal.cc): each
 * segment's header and footer (or that it has none), every entry with its op
 * id, type and hybrid time, WRITE_OP row operations decoded with the segment's
 * schema, COMMIT results with the stores each row op went to; a last segment
 * that ends in a torn entry says so. --json prints the contract of
 * ../shared/kudu-fs/README.md item 4. */
#include "cli.h"
#include "kudu_args.h"
#include "kudu_cmd.h"

#include <cfile/kudu.h>

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "vprint.h"

static const char wal_usage[] =
    "usage: cfile kudu wal dump [--json] --fs-wal-dir DIR [--fs-data-dirs A,B]\n"
    "                           [--fs-metadata-dir DIR] TABLET_ID\n"
    "\n"
    "Print the write-ahead log of a tablet (<wal dir>/wals/TABLET_ID/wal-*), read as\n"
    "Kudu's log reader reads it: each segment's header and footer, every entry (op id\n"
    "term.index, type, hybrid time), WRITE_OP row operations decoded with the\n"
    "segment's schema, COMMIT results (the MemRowSet or DeltaMemStore each row op\n"
    "went to, or its failure). A segment without a footer that ends in a torn entry\n"
    "is read up to its last complete entry and marked torn; damage anywhere else is\n"
    "an error naming the segment and offset (exit 1).\n"
    "\n"
    "  --json                  {\"segments\": [{\"file\", \"header\", \"footer\", \"entries\",\n"
    "                          \"torn_tail\"}]}, protobufs in protobuf's JSON mapping;\n"
    "                          WRITE_OP entries add \"ops\": [{\"op\", "
    "\"row\"}]\n" CF_KUDU_ARGS_USAGE "  --help                   this text\n";

/* ---- the parts both forms share ------------------------------------------------------------- */

static int lib_fail(cf_cli *c, cf_status st, const cf_error *e)
{
    fprintf(c->err, "cfile kudu wal: %s\n", e->msg[0] ? e->msg : cf_status_str(st));
    return st == CF_ENOTSUP ? CF_EXIT_NOTSUP : st == CF_EINVAL ? CF_EXIT_USAGE : CF_EXIT_FAIL;
}

static const char *entry_type_name(int t)
{
    switch (t) {
    case CF_KUDU_ENTRY_REPLICATE: return "REPLICATE";
    case CF_KUDU_ENTRY_COMMIT: return "COMMIT";
    case CF_KUDU_ENTRY_FLUSH_MARKER: return "FLUSH_MARKER";
    default: return "UNKNOWN";
    }
}

static const char *op_type_name(int t)
{
    switch (t) {
    case 0: return "UNKNOWN_OP";
    case 1: return "NO_OP";
    case 3: return "WRITE_OP";
    case 4: return "ALTER_SCHEMA_OP";
    case 5: return "CHANGE_CONFIG_OP";
    case 6: return "PARTICIPANT_OP";
    default: return "?";
    }
}

/* ---- JSON ----------------------------------------------------------------------------------- */

/* An array value (a cf_array_cell) as a batch of one cell, the form the value
 * printers take; `offs` holds its element offsets. */
static cf_batch array_batch(const cf_array_cell *cell, uint32_t offs[2])
{
    offs[0] = 0;
    offs[1] = (uint32_t)cell->count;
    cf_batch b = {.count = 1,
                  .values = cell->values,
                  .elem_offsets = offs,
                  .elem_count = cell->count,
                  .elem_nonnull = cell->nonnull};
    return b;
}

static void json_value(cf_jw *w, const cf_column *col, const void *v)
{
    if (v == NULL) {
        cf_jw_null(w);
    } else if (col->is_array) {
        uint32_t offs[2];
        cf_batch b = array_batch(v, offs);
        cf_cli_row_write_kudu(w, col->type, true, &b, 0);
    } else if (col->type == CF_TYPE_FLOAT) {
        /* FLOAT as Kudu's tools print it, the form ../shared/kudu-fs expects */
        char num[CF_CLI_NUM_CAP];
        bool quote;
        cf_cli_format_float_kudu(num, *(const float *)v, &quote);
        if (quote)
            cf_jw_cstr(w, num);
        else
            cf_jw_raw(w, num);
    } else {
        cf_cli_value_write(w, col->type, v);
    }
}

static void json_ops(cf_jw *w, const cf_kudu_wal_entry *e)
{
    cf_jw_arr_begin(w);
    for (size_t i = 0; i < e->nops; i++) {
        const cf_kudu_row_op *op = &e->ops[i];
        cf_jw_obj_begin(w);
        cf_jw_kv_cstr(w, "op", cf_kudu_row_op_name(op->type));
        cf_jw_kv_obj_begin(w, "row");
        for (size_t k = 0; k < op->ncols; k++) {
            if (!op->set[k])
                continue;
            const cf_column *col = cf_schema_column_at(e->schema, k);
            cf_jw_key(w, col->name);
            json_value(w, col, op->values[k]);
        }
        cf_jw_obj_end(w);
        cf_jw_obj_end(w);
    }
    cf_jw_arr_end(w);
}

/* The entry's LogEntryPB JSON with "ops" added before its closing brace. */
static int json_entry(cf_cli *c, cf_jw *w, const cf_kudu_wal *wal, size_t s, size_t i)
{
    const cf_kudu_wal_entry *e = cf_kudu_wal_entry_at(wal, s, i);
    char *pb;
    cf_error err = {0};
    cf_status st = cf_kudu_wal_entry_json(wal, s, i, false, &pb, &err);
    if (st != CF_OK)
        return lib_fail(c, st, &err);
    if (e->schema == NULL) {
        cf_jw_raw(w, pb);
        free(pb);
        return CF_EXIT_OK;
    }
    char *ops = NULL;
    size_t ops_len = 0;
    FILE *m = open_memstream(&ops, &ops_len);
    if (m == NULL) {
        free(pb);
        return cf_cli_fail(c, "out of memory");
    }
    cf_jw ow;
    cf_jw_init(&ow, m);
    json_ops(&ow, e);
    fclose(m);
    size_t n = strlen(pb);
    while (n > 0 && pb[n - 1] != '}')
        n--;
    bool empty = n >= 2 && strspn(pb, "{ \n") >= n - 1;
    FILE *f = cf_jw_value_begin(w);
    fwrite(pb, 1, n > 0 ? n - 1 : 0, f);
    fprintf(f, "%s\"ops\":%s}", empty ? "" : ",", ops ? ops : "[]");
    free(ops);
    free(pb);
    return CF_EXIT_OK;
}

/* Segment s's header (footer 0) or footer (1) as JSON in *j (malloc'd; NULL when the
 * segment has no footer): 0, or the exit code after saying why. */
static int segment_pb_json(cf_cli *c, const cf_kudu_wal *wal, size_t s, int footer, char **j)
{
    cf_error err = {0};
    cf_status st = cf_kudu_wal_segment_json(wal, s, footer, false, j, &err);
    return st == CF_OK ? 0 : lib_fail(c, st, &err);
}

static int dump_json(cf_cli *c, const cf_kudu_wal *wal)
{
    cf_jw w;
    cf_jw_init(&w, c->out);
    cf_jw_obj_begin(&w);
    cf_jw_kv_arr_begin(&w, "segments");
    for (size_t s = 0; s < cf_kudu_wal_segment_count(wal); s++) {
        const cf_kudu_wal_segment *seg = cf_kudu_wal_segment_at(wal, s);
        cf_jw_obj_begin(&w);
        cf_jw_kv_cstr(&w, "file", seg->file);
        for (int footer = 0; footer < 2; footer++) {
            char *j;
            int rc = segment_pb_json(c, wal, s, footer, &j);
            if (rc != 0)
                return rc;
            cf_jw_key(&w, footer ? "footer" : "header");
            if (j == NULL)
                cf_jw_null(&w);
            else
                cf_jw_raw(&w, j);
            free(j);
        }
        cf_jw_kv_arr_begin(&w, "entries");
        for (size_t i = 0; i < seg->nentries; i++) {
            int rc = json_entry(c, &w, wal, s, i);
            if (rc != CF_EXIT_OK)
                return rc;
        }
        cf_jw_arr_end(&w);
        cf_jw_kv_bool(&w, "torn_tail", seg->torn_tail);
        cf_jw_obj_end(&w);
    }
    cf_jw_arr_end(&w);
    cf_jw_obj_end(&w);
    cf_jw_newline(&w);
    return CF_EXIT_OK;
}

/* ---- text ----------------------------------------------------------------------------------- */

static void text_op(FILE *f, const cf_kudu_wal_entry *e, const cf_kudu_row_op *op)
{
    fprintf(f, "    %s (", cf_kudu_row_op_name(op->type));
    bool first = true;
    for (size_t k = 0; k < op->ncols; k++) {
        if (!op->set[k])
            continue;
        const cf_column *col = cf_schema_column_at(e->schema, k);
        fprintf(f, "%s%s%s %s=", first ? "" : ", ", cf_type_name(col->type),
                col->is_array ? "[]" : "", col->name);
        first = false;
        if (op->values[k] == NULL) {
            fputs("NULL", f);
        } else if (col->is_array) {
            uint32_t offs[2];
            cf_batch b = array_batch(op->values[k], offs);
            cf_vp_cell(f, CF_VP_TABLE, col->type, true, &b, 0);
        } else {
            cf_vp_value(f, CF_VP_TABLE, col->type, op->values[k]);
        }
    }
    fputs(")\n", f);
}

static void text_results(FILE *f, const cf_kudu_wal_entry *e)
{
    for (size_t i = 0; i < e->nresults; i++) {
        const cf_kudu_op_result *r = &e->results[i];
        fprintf(f, "    op %zu:", i);
        if (r->failed)
            fputs(" failed", f);
        if (r->skip_on_replay)
            fputs(" skip_on_replay", f);
        for (size_t j = 0; j < r->nstores; j++) {
            const cf_kudu_mem_store *m = &r->stores[j];
            if (m->mrs_id >= 0)
                fprintf(f, " mrs %" PRId64, m->mrs_id);
            else
                fprintf(f, " rowset %" PRId64 " dms %" PRId64, m->rs_id, m->dms_id);
        }
        if (!r->failed && r->nstores == 0)
            fputs(" (no store)", f);
        fputc('\n', f);
    }
}

static int dump_text(cf_cli *c, const cf_kudu_wal *wal)
{
    FILE *f = c->out;
    for (size_t s = 0; s < cf_kudu_wal_segment_count(wal); s++) {
        const cf_kudu_wal_segment *seg = cf_kudu_wal_segment_at(wal, s);
        fprintf(
            f, "%s: sequence %" PRIu64 ", %" PRIu64 " bytes, %zu entries from offset %" PRIu64 "\n",
            seg->path, seg->sequence_number, seg->size, seg->nentries, seg->first_entry_offset);
        for (int footer = 0; footer < 2; footer++) {
            char *j;
            int rc = segment_pb_json(c, wal, s, footer, &j);
            if (rc != 0)
                return rc;
            fprintf(f, "  %s: %s\n", footer ? "Footer" : "Header",
                    j ? j : "none (the segment was not closed)");
            free(j);
        }
        for (size_t i = 0; i < seg->nentries; i++) {
            const cf_kudu_wal_entry *e = cf_kudu_wal_entry_at(wal, s, i);
            fprintf(f, "  @%" PRIu64 " %" PRId64 ".%" PRId64 " %s %s", e->offset, e->term, e->index,
                    entry_type_name((int)e->type), op_type_name(e->op_type));
            if (e->type == CF_KUDU_ENTRY_REPLICATE)
                fprintf(f, " hybrid time %" PRIu64, e->timestamp);
            fputc('\n', f);
            for (size_t k = 0; k < e->nops; k++)
                text_op(f, e, &e->ops[k]);
            text_results(f, e);
        }
        if (seg->torn_tail)
            fprintf(f, "  torn tail: entries end at offset %" PRIu64 " of %" PRIu64 "\n",
                    seg->end_offset, seg->size);
    }
    return CF_EXIT_OK;
}

/* ---- the command ---------------------------------------------------------------------------- */

int cf_cmd_kudu_wal(cf_cli *c, int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        CF_KUDU_ARGS_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    c->usage = wal_usage;
    c->cmd = "kudu wal";
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
        return argc < 2 ? cf_cli_usage(c, "expected: dump") : cf_cli_help(c);
    if (strcmp(argv[1], "dump") != 0)
        return cf_cli_usage(c, "unknown wal command: %s (expected dump)", argv[1]);
    argc--;
    argv++;
    bool json = false;
    cf_kudu_args fa;
    cf_kudu_args_init(&fa);
    int rc = CF_EXIT_OK, ch;
    cf_kudu_fs *fs = NULL;
    cf_kudu_wal *wal = NULL;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
        switch (ch) {
        case 'j': json = true; break;
        case 'h': rc = cf_cli_help(c); goto out;
        default:
            rc = cf_kudu_args_option(c, &fa, ch, optarg);
            if (rc < 0) {
                rc = cf_cli_bad_option(c, argv);
                goto out;
            }
            if (rc > 0)
                goto out;
        }
    }
    if (argc - optind != 1) {
        rc = cf_cli_usage(c, "expected one TABLET_ID");
        goto out;
    }
    if ((rc = cf_kudu_args_open(c, &fa, &fs)) != 0)
        goto out;
    cf_error err = {0};
    cf_status st = cf_kudu_wal_open(&wal, fs, argv[optind], &err);
    if (st != CF_OK) {
        rc = lib_fail(c, st, &err);
        goto out;
    }
    if (cf_kudu_wal_from_recovery(wal))
        fprintf(c->err,
                "cfile: note: tablet %s: reading wals/%s.recovery, the log of a bootstrap that "
                "did not finish, which Kudu replays at its next start (wals/%s is discarded)\n",
                argv[optind], argv[optind], argv[optind]);
    rc = json ? dump_json(c, wal) : dump_text(c, wal);
out:
    cf_kudu_wal_free(wal);
    cf_kudu_fs_free(fs);
    cf_kudu_args_free(&fa);
    return rc;
}
